/* The call-instruction check that validates scanned return addresses on
 * x86 and amd64 (Intel SDM vol. 2, "CALL—Call Procedure"):
 *   E8 cd           call rel32                     5 bytes
 *   FF /2           call r/m: ModRM.reg == 2, length from ModRM/SIB/disp
 * Prefixes (REX, segment, operand size) precede the opcode and do not change
 * where the instruction ends, so they need no decoding here. */
#include "x86_call.h"

#include <string.h>

#include "lib/snapshot.h"
#include "lib/walker.h"
#include "stub.h"
#include "x86_prologue.h"

/* Length of an FF /2 instruction whose ModRM byte is modrm and whose SIB
 * byte (if any) is sib; 0 if ModRM.reg is not 2. In 64-bit mode mod=00
 * rm=101 is RIP-relative, with the same disp32 length. */
static unsigned ff2_length(uint8_t modrm, uint8_t sib)
{
	unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
	if (reg != 2)
		return 0;
	unsigned len = 2;
	if (mod == 3)
		return len;
	if (rm == 4) {
		len += 1; /* SIB */
		if (mod == 0 && (sib & 7) == 5)
			len += 4;
	}
	if (mod == 0 && rm == 5)
		len += 4;
	else if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

/* The lengths of the FF /2 calls that may end at code + 7 (bit n set for
 * an n-byte form). */
static unsigned ff2_calls_ending(const uint8_t code[7])
{
	unsigned forms = 0;
	for (unsigned n = 2; n <= 7; n++) {
		const uint8_t *insn = &code[7 - n];
		uint8_t sib = n >= 3 ? insn[2] : 0;
		if (insn[0] == 0xff && ff2_length(insn[1], sib) == n)
			forms |= 1u << n;
	}
	return forms;
}

bool sw_x86_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	uint8_t code[7];
	*known = false;
	if (ra < sizeof code || !sw_walk_read(w, ra - sizeof code, code, sizeof code))
		return true;
	*known = true;
	/* code[6] is the byte just before ra; code[7 - n] starts an n-byte call. */
	return code[7 - 5] == 0xe8 || ff2_calls_ending(code) != 0;
}

static int32_t le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	                 (uint32_t)p[3] << 24);
}

/* PLT entries (System V AMD64 ABI §5.2 and its IBT/MPX forms; i386 ABI
 * §5), each jumping through its GOT slot:
 *   ff 25 d32                  jmp *d32(%rip)   amd64; i386: jmp *abs32
 *   ff a3 d32                  jmp *d32(%ebx)   i386 PIC (STUB_PIC_SLOT)
 *   f2 ff 25 d32               bnd jmp *d32(%rip)
 *   f3 0f 1e fa ...            endbr64 before either (.plt.sec)
 *   f3 0f 1e fb ...            endbr32 before either
 * The PIC i386 form's slot is d32 from the GOT base its caller holds in
 * ebx (x86_pic_got_base). A direct jmp (e9 rel32, a veneer) is followed
 * to its target. STUB_NONE: no stub, the call's target is `at` itself. */
enum x86_stub { X86_STUB_NONE, X86_STUB_SLOT, X86_STUB_PIC_SLOT, X86_STUB_JUMP };

static enum x86_stub x86_stub_at(const struct sw_walk *w, uint64_t at, bool is64, uint64_t *next)
{
	uint8_t c[11];
	if (!sw_walk_read(w, at, c, sizeof c))
		return X86_STUB_NONE;
	unsigned i = 0;
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && (c[3] == 0xfa || c[3] == 0xfb))
		i = 4;
	if (c[i] == 0xf2)
		i++;
	if (c[i] == 0xff && c[i + 1] == 0x25) {
		int32_t d = le32(&c[i + 2]);
		*next = is64 ? at + i + 6 + (uint64_t)(int64_t)d : (uint64_t)(uint32_t)d;
		return X86_STUB_SLOT;
	}
	if (!is64 && c[i] == 0xff && c[i + 1] == 0xa3) {
		*next = (uint64_t)(uint32_t)le32(&c[i + 2]);
		return X86_STUB_PIC_SLOT;
	}
	if (i == 0 && c[0] == 0xe9) {
		*next = at + 5 + (uint64_t)(int64_t)le32(&c[1]);
		if (!is64)
			*next &= 0xffffffffu;
		return X86_STUB_JUMP;
	}
	return X86_STUB_NONE;
}

enum { X86_STUB_HOPS = 3 };

/* How far before a call its function's GOT set-up is looked for. */
enum { X86_GOT_SETUP_REACH = 4096 };

/* The GOT base an i386 PIC function holds while it calls through the PLT
 * (i386 ABI §5, "Procedure Linkage Table": ebx must hold it). GCC sets it
 * up as the return address of a pc thunk plus a constant:
 *   e8 rel32       call __x86.get_pc_thunk.REG   (8b REG 24 c3: mov (%esp),REG; ret)
 *   81 c0+REG i32  add $_GLOBAL_OFFSET_TABLE_ - ., REG   (eax: 05 i32)
 * Every function of a module computes the same base, so the nearest such
 * pair before the call (the calling function's prologue, or one before
 * it) gives it; any register the thunk loads will do. */
static bool x86_pic_got_base(const struct sw_walk *w, uint64_t call, uint64_t *got)
{
	uint8_t code[X86_GOT_SETUP_REACH];
	uint64_t from = call > sizeof code ? call - sizeof code : 0;
	size_t len = (size_t)(call - from);
	while (len >= 11 && !sw_walk_read(w, from, code, len)) {
		from += len / 2;
		len -= len / 2;
	}
	for (size_t at = len >= 11 ? len - 11 : 0; len >= 11; at--) {
		const uint8_t *c = &code[at];
		/* add $imm32, REG: 81 c0+REG, or eax's own short form 05 (GCC
		 * -O0 computes the base in eax: zoo i386 3532). */
		bool long_form = c[5] == 0x81 && (c[6] & 0xf8) == 0xc0 && (c[6] & 7) != 4;
		bool eax_form = c[5] == 0x05;
		if (c[0] == 0xe8 && (long_form || eax_form)) {
			uint64_t add = from + at + 5;
			uint64_t thunk = (add + (uint64_t)(int64_t)le32(&c[1])) & 0xffffffffu;
			uint8_t t[4];
			uint8_t load = (uint8_t)(0x04 | (long_form ? c[6] & 7 : 0) << 3);
			if (sw_walk_read(w, thunk, t, sizeof t) && t[0] == 0x8b && t[1] == load &&
			    t[2] == 0x24 && t[3] == 0xc3) {
				*got = (add + (uint64_t)(int64_t)le32(&c[long_form ? 7 : 6])) & 0xffffffffu;
				return true;
			}
		}
		if (at == 0)
			break;
	}
	return false;
}

/* The destination of a PLT stub at `stub` through its GOT slot. A slot
 * the dynamic linker has not bound yet (lazy binding) points back into
 * the PLT, at the entry's push $index (68 i32, after an endbr in the
 * .plt.sec form): no answer. A bound slot may name a function of the
 * stub's own module (a DSO calling its own exported function, which
 * another module could interpose): that is the call's target too. */
static bool x86_through_slot(const struct sw_walk *w, uint64_t stub, uint64_t slot, bool is64,
                             uint64_t *dest)
{
	unsigned size = is64 ? 8 : 4;
	if (sw_stub_through_slot(w, stub, slot, size, dest))
		return true;
	uint8_t c[5];
	uint64_t v;
	if (!sw_stub_slot_value(w, slot, size, &v))
		return false;
	int32_t home = sw_module_at(w->snap, stub);
	if (v == 0 || home < 0 || sw_module_at(w->snap, v) != home ||
	    !sw_walk_read(w, v, c, sizeof c))
		return false;
	unsigned i = c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e ? 4 : 0;
	if (c[i] == 0x68)
		return false;
	*dest = v;
	return true;
}

/* Is the module at pc the kernel's vDSO (linux-gate.so.1 on i386, as
 * the link map and minidumps name it; "[vdso]" in /proc/PID/maps)? */
static bool in_vdso(const struct sw_walk *w, uint64_t pc)
{
	int32_t m = sw_module_at(w->snap, pc);
	if (m < 0)
		return false;
	const char *name = sw_basename(w->snap->modules[m].code_file ? w->snap->modules[m].code_file : "");
	return strncmp(name, "linux-gate", 10) == 0 || strncmp(name, "linux-vdso", 10) == 0 ||
	       strcmp(name, "[vdso]") == 0;
}

/* Is the call before ra `call *%gs:0x10` (65 ff 15 10 00 00 00): glibc's
 * i386 system calls through the TCB's sysinfo slot (sysdeps/unix/sysv/
 * linux/i386/sysdep.h, ENTER_KERNEL)? */
static bool calls_through_sysinfo(const struct sw_walk *w, uint64_t ra)
{
	static const uint8_t through_sysinfo[7] = { 0x65, 0xff, 0x15, 0x10, 0, 0, 0 };
	uint8_t call[7];
	return ra >= sizeof call && sw_walk_read(w, ra - sizeof call, call, sizeof call) &&
	       memcmp(call, through_sysinfo, sizeof call) == 0;
}

/* Is pc in the kernel's entry code, as far as it can tell: right after
 * int $0x80 or sysenter (cd 80, 0f 34), where a crash or a signal in a
 * system call leaves it, or in the vDSO? *known is false when the code
 * cannot be read. */
static bool in_syscall_entry(const struct sw_walk *w, uint64_t pc, bool *known)
{
	uint8_t before[2];
	*known = true;
	if (in_vdso(w, pc))
		return true;
	if (pc < 2 || !sw_walk_read(w, pc - 2, before, sizeof before)) {
		*known = false;
		return false;
	}
	return (before[0] == 0xcd && before[1] == 0x80) || (before[0] == 0x0f && before[1] == 0x34);
}

bool sw_x86_syscall_call_reaches(const struct sw_walk *w, uint64_t ra, uint64_t pc)
{
	bool known;
	return !calls_through_sysinfo(w, ra) || in_syscall_entry(w, pc, &known) || !known;
}

bool sw_x86_call_target(const struct sw_walk *w, uint64_t ra, bool is64, uint64_t *target)
{
	uint8_t code[7];
	if (ra < sizeof code || !sw_walk_read(w, ra - sizeof code, code, sizeof code))
		return false;
	/* Only a call rel32 names its target; when an FF /2 form could end
	 * at ra as well (its ModRM, SIB or displacement bytes include the
	 * E8), which of the two ran is not known: no answer. */
	if (code[7 - 5] != 0xe8 || ff2_calls_ending(code) != 0)
		return false;
	uint64_t at = ra + (uint64_t)(int64_t)le32(&code[3]), next, got;
	if (!is64)
		at &= 0xffffffffu;
	for (unsigned hop = 0; hop < X86_STUB_HOPS; hop++) {
		switch (x86_stub_at(w, at, is64, &next)) {
		case X86_STUB_NONE:
			*target = at;
			return true;
		case X86_STUB_SLOT:
			return x86_through_slot(w, at, next, is64, target);
		case X86_STUB_PIC_SLOT:
			return x86_pic_got_base(w, ra - 5, &got) &&
			       x86_through_slot(w, at, (got + next) & 0xffffffffu, false, target);
		case X86_STUB_JUMP:
			at = next;
			break;
		}
	}
	return false;
}

/* How far into a function its frame-pointer prologue is looked for (GCC's
 * shrink-wrapping may put a test and an early return first), and how
 * much of a function a tail jump is looked for in. */
enum { X86_PROLOGUE_REACH = 256, X86_PUSH_REACH = 12, X86_TAIL_REACH = 1024 };

bool sw_x86_frame_is_set_up(const struct sw_walk *w, uint64_t fn, uint64_t pc, bool is64,
                            bool *known)
{
	/* mov %rsp,%rbp (48 89 e5, or 48 8b ec; i386 without the REX prefix:
	 * 89 e5, 8b ec) after a push %rbp (55). The compiler may schedule
	 * other instructions between the two (GCC -O2: push %rbp; mov
	 * %edi,%r8d; mov %rsp,%rbp), so the push is looked for in the
	 * X86_PUSH_REACH bytes before the mov. */
	static const uint8_t mov64[2][3] = { { 0x48, 0x89, 0xe5 }, { 0x48, 0x8b, 0xec } };
	static const uint8_t mov32[2][2] = { { 0x89, 0xe5 }, { 0x8b, 0xec } };
	uint8_t code[X86_PROLOGUE_REACH];
	*known = false;
	if (pc <= fn)
		return false;
	size_t len = pc - fn < X86_PROLOGUE_REACH ? (size_t)(pc - fn) : X86_PROLOGUE_REACH;
	if (!sw_walk_read(w, fn, code, len))
		return false;
	*known = true;
	unsigned n = is64 ? 3 : 2;
	for (size_t at = 1; at + n <= len; at++) {
		bool mov = false;
		for (unsigned k = 0; k < 2; k++)
			mov |= memcmp(&code[at], is64 ? mov64[k] : mov32[k], n) == 0;
		if (!mov)
			continue;
		for (size_t back = 1; back <= X86_PUSH_REACH && back <= at; back++)
			if (code[at - back] == 0x55)
				return true;
	}
	return false;
}

/* A jump at `at` (e9 rel32, or ff 25 through a GOT slot) whose destination,
 * through PLT entries, lies in module `to`. */
static bool jumps_into(const struct sw_walk *w, const uint8_t *c, uint64_t at, bool is64,
                       int32_t to)
{
	uint64_t dest, next;
	if (c[0] == 0xe9) {
		dest = at + 5 + (uint64_t)(int64_t)le32(&c[1]);
		if (!is64)
			dest &= 0xffffffffu;
		if (x86_stub_at(w, dest, is64, &next) == X86_STUB_SLOT &&
		    !sw_stub_through_slot(w, dest, next, is64 ? 8 : 4, &dest))
			return false;
	} else if (c[0] == 0xff && c[1] == 0x25) {
		next = is64 ? at + 6 + (uint64_t)(int64_t)le32(&c[2]) : (uint64_t)(uint32_t)le32(&c[2]);
		if (!sw_stub_through_slot(w, at, next, is64 ? 8 : 4, &dest))
			return false;
	} else {
		return false;
	}
	return sw_module_at(w->snap, dest) == to;
}

bool sw_x86_jumps_into_module(const struct sw_walk *w, uint64_t fn, bool is64, int32_t to)
{
	uint8_t code[X86_TAIL_REACH];
	uint64_t base;
	uint32_t len;
	if (to < 0)
		return false;
	if (sw_x86_tail_calls_through_pointer(w, fn, is64))
		return true;
	if (!sw_walk_read_window(w, fn, 1, code, sizeof code, &base, &len))
		return false;
	/* The window is centred on fn where it can be: its part from fn on. */
	for (uint64_t at = fn; at + 6 <= base + len; at++)
		if (jumps_into(w, &code[at - base], at, is64, to))
			return true;
	return false;
}

static bool linux_like(const struct sw_walk *w)
{
	return w->snap->sys.os == SW_OS_LINUX || w->snap->sys.os == SW_OS_ANDROID;
}

enum sw_x86_frame sw_x86_frame_of(const struct sw_walk *w, const struct sw_frame *callee, bool is64)
{
	uint64_t fn;
	bool known;
	/* A caller's lookup pc is inside its call, after the prologue. */
	uint64_t pc = sw_frame_has_live_context(callee) ? callee->pc : callee->lookup_pc + 1;
	/* Without symbols, a start the code shows (a miss only makes the
	 * answer NONE where a record was made before a later candidate: the
	 * walk then scans, with the scan's checks); with none, on Linux, a
	 * frame whose code from its pc (a suspended frame's: its return
	 * address) returns without touching rbp has none of its own. (Windows code keeps ebp chains that skip its frame-pointer-
	 * omitted functions, as Breakpad follows them; a scan there, with no
	 * code bytes to check a candidate by, would take stale words.) */
	if (!sw_walk_function_start(w, callee->lookup_pc, &fn) &&
	    !sw_x86_start_without_symbols(w, pc, is64, &fn))
		return linux_like(w) && sw_walk_pc_in_module_code(w, callee->pc) &&
		               sw_x86_returns_leaving_fp(w, callee->pc, is64)
		               ? SW_X86_FRAME_NONE
		               : SW_X86_FRAME_UNKNOWN;
	bool set_up = sw_x86_frame_is_set_up(w, fn, pc, is64, &known);
	return !known ? SW_X86_FRAME_UNKNOWN : set_up ? SW_X86_FRAME_SET_UP : SW_X86_FRAME_NONE;
}

bool sw_x86_record_of(const struct sw_walk *w, const struct sw_frame *callee, bool is64,
                      struct sw_x86_record *r)
{
	unsigned fp = w->arch->fp, size = is64 ? 8 : 4;
	if (!sw_reg_valid(&callee->regs, fp))
		return false;
	r->own = sw_x86_frame_of(w, callee, is64);
	r->fp = callee->regs.v[fp];
	return r->own != SW_X86_FRAME_NONE && sw_walk_read_word(w, r->fp, &r->saved_fp) &&
	       sw_walk_read_word(w, r->fp + size, &r->ra);
}

/* A live context's rbp (the crash's, or one a signal frame restored) in
 * a function whose code cannot tell (the snapshot lacks it, or no
 * symbol or CFI says where the function starts), on Linux: the SysV
 * psABIs make rbp/ebp a general register and distributions build
 * without frame pointers, so nothing says whether it holds this
 * function's record or a caller's, and a caller's skips every frame
 * between (a crash in a syscall wrapper of the C library, rbp still the
 * record of the program's function that called it). The stack can:
 * below a caller's record lies this function's own return address,
 * while below its own record lie only its locals. So the record is
 * believed when no word from sp up to it is a return address of a call
 * to this function (calls_this_function; a local that passes makes the
 * walk shorter, never wrong), and not beyond X86_OWN_FRAME_MAX bytes.
 * Asked of every frame whose rbp may be one it inherited (the crash's,
 * a signal's, a leaf's caller, one found by prologue analysis or a scan
 * with no record below its return address), and of a frame a record
 * found of which nothing tells (no code, no symbols: a core read
 * without its files): its rbp is the record's saved one, which a
 * function that keeps no record of its own passes on from an older
 * frame (zoo x86_64 5033 and 2708, `nofp`, the core alone: f6's rbp was
 * f5's record, and following it skipped f5). There a stale return
 * address in the locals of a frame that does keep a record ends the
 * walk early (zoo x86_64 4005, 4034, `fp`, the core alone: short), as
 * nothing without code tells the two apart; a shorter walk, never a
 * skipped frame. Where something tells of the frame but not whether it
 * keeps a record, a frame a record found is asked only for a signal
 * handler's return: a handler that keeps no record leaves rbp as the
 * signal found it, and a signal frame the kernel wrote between sp and
 * that record is proof that the record is older than the interrupted
 * frame (zoo x86_64 5002 `nofp -O0`, the core alone: the record skipped
 * the signal frame, pthread_kill and f6). */
enum { X86_OWN_FRAME_MAX = 1 << 16 };

/* Is ra this frame's own return address, as far as the code tells? With
 * the call's code at hand, only a direct call to a start at most
 * X86_OWN_FRAME_MAX below the frame's pc from which that pc is reachable
 * counts, or one to a start above the pc whose code jumps down to a cold
 * part holding it (GCC's f.cold lies before f), or an i386 system call
 * through %gs:0x10 when the pc is in the kernel's entry code (the C
 * library's syscall wrappers keep no record: ebp is a caller's, and the
 * wrapper's return address lies right at esp): a function's locals often
 * hold stale return addresses of the helpers it called before (and their
 * callees'), and an indirect call tells nothing. Without the call's code,
 * any call that may have led here. */
static bool calls_this_function(const struct sw_walk *w, uint64_t ra,
                                const struct sw_frame *callee, bool is64)
{
	uint8_t byte;
	uint64_t target, pc = sw_frame_code_pc(callee);
	if (!sw_walk_read(w, ra - 1, &byte, 1))
		return sw_walk_call_may_reach(w, ra, callee);
	bool known;
	if (!sw_x86_call_target(w, ra, is64, &target))
		return !is64 && calls_through_sysinfo(w, ra) && in_syscall_entry(w, pc, &known);
	if (target > pc)
		return sw_x86_cold_part_holds(w, target, pc, is64);
	return pc - target <= X86_OWN_FRAME_MAX && sw_x86_call_reaches(w, target, pc, is64);
}

/* Does nothing tell of the frame's function (neither the snapshot's code
 * nor any symbols of its module), in a snapshot whose scans must prove
 * their candidates by code (a core read without its files)? A refused
 * record then ends the walk; in a minidump it would leave the walk to a
 * scan by Breakpad's rule, which takes stale words. */
static bool knows_nothing_of(const struct sw_walk *w, const struct sw_frame *f)
{
	uint8_t byte;
	int32_t m;
	uint64_t pc = sw_frame_code_pc(f);
	return w->snap->scans_need_code && !sw_walk_read(w, pc, &byte, 1) &&
	       !sw_walk_symbols_at(w, pc, &m);
}

bool sw_x86_live_record_unproven(const struct sw_walk *w, const struct sw_frame *callee,
                                 bool is64)
{
	enum sw_os os = w->snap->sys.os;
	const struct sw_arch *a = w->arch;
	if ((os != SW_OS_LINUX && os != SW_OS_ANDROID) || !sw_reg_valid(&callee->regs, a->sp) ||
	    !sw_reg_valid(&callee->regs, a->fp))
		return false;
	bool found_by_record = callee->trust == SW_TRUST_FRAME_POINTER && !knows_nothing_of(w, callee);
	unsigned size = is64 ? 8 : 4;
	uint64_t sp = callee->regs.v[a->sp], fp = callee->regs.v[a->fp], word;
	if (fp < sp || fp - sp > X86_OWN_FRAME_MAX)
		return !found_by_record;
	for (uint64_t at = sp; at < fp; at += size) {
		if (!sw_walk_read_word(w, at, &word))
			continue;
		/* The frame may be the handler's, its own return address
		 * below its record: a record above a signal frame is older. */
		bool code_known;
		if (sw_walk_handler_returns_to(w, word, at + size, &code_known))
			return true;
		if (!found_by_record && sw_walk_is_return_address(w, word) &&
		    calls_this_function(w, word, callee, is64))
			return true;
	}
	return false;
}
