/* 32-bit x86 (System V i386 ABI, and Windows' stdcall/cdecl conventions).
 *
 * Register numbers are the DWARF ones (SysV i386 ABI, table 2.14): eax, ecx,
 * edx, ebx, esp, ebp, esi, edi, eip, eflags. */
#include "registry.h"

#include <string.h>

#include "lib/walker.h"
#include "signal_frame.h"
#include "x86_call.h"
#include "x86_prologue.h"

enum {
	X86_EAX, X86_ECX, X86_EDX, X86_EBX, X86_ESP, X86_EBP, X86_ESI, X86_EDI,
	X86_EIP, X86_EFLAGS, X86_NREGS
};

static const char *const x86_reg_names[X86_NREGS] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags",
};

/* Breakpad's text output says "efl". */
static const char *const x86_text_names[X86_NREGS] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "efl",
};

/* The order of Breakpad's minidump_stackwalk. */
static const uint8_t x86_print_order[] = {
	X86_EIP, X86_ESP, X86_EBP, X86_EBX, X86_ESI, X86_EDI, X86_EAX, X86_ECX,
	X86_EDX, X86_EFLAGS,
};

/* Our numbers are the DWARF ones (i386 psABI table 2.14): eax..eflags. */
static const int8_t x86_dwarf_regs[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };

static uint64_t x86_call_site(uint64_t ra)
{
	return ra - 1;
}

static uint64_t x86_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr;
}

static bool x86_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && pc <= 0xffffffffu;
}

/* The traditional ebp chain: `push %ebp; mov %esp, %ebp` leaves
 *   %eip_caller = *(%ebp + 4),  %ebp_caller = *(%ebp),  %esp_caller = %ebp + 8.
 * A NULL return address ends the chain (Windows threads start with one). No
 * CFI vouches for the chain, so any other return address must pass the
 * scan's checks; if it does not, or ebp points at no captured memory, the
 * walker scans instead. A function whose code shows no `push %ebp; mov
 * %esp,%ebp` before pc keeps its caller's ebp: not followed. */
/* How much of a function's start a realigning prologue is sought in. */
enum { X86_DRAP_REACH = 48 };

/* GCC's i386 main realigns its stack (a DRAP, dynamic realign argument
 * pointer): it keeps the CFA in ecx, copies its return address above the
 * realigned sp and makes its record there, then saves ecx among its
 * pushes:
 *   8d 4c 24 04   lea 0x4(%esp),%ecx      (ecx = the CFA)
 *   83 e4 NN      and $-N,%esp
 *   ff 71 fc      push -0x4(%ecx)         (the return address, copied)
 *   55 89 e5      push %ebp; mov %esp,%ebp
 *   5x ...        push %edi/%esi/%ebx, call the pc thunk, add to ebx
 *   51            push %ecx
 * The record is then no guide to the caller's esp: ebp + 8 lies in the
 * realigned area. Where the function at fn opens so, *slot is where from
 * ebp the saved ecx, the caller's esp, lies. */
static bool x86_drap_slot(const struct sw_walk *w, uint64_t fn, int64_t *slot)
{
	static const uint8_t head[] = { 0x8d, 0x4c, 0x24, 0x04, 0x83, 0xe4 };
	static const uint8_t copy[] = { 0xff, 0x71, 0xfc, 0x55, 0x89, 0xe5 };
	uint8_t c[X86_DRAP_REACH];
	if (!sw_walk_read(w, fn, c, sizeof c) || memcmp(c, head, sizeof head) != 0 ||
	    memcmp(c + 7, copy, sizeof copy) != 0)
		return false;
	int64_t pushes = 0;
	for (size_t at = 7 + sizeof copy; at < sizeof c;) {
		if (c[at] == 0x51) {
			*slot = -4 * (pushes + 1);
			return true;
		}
		if (c[at] >= 0x50 && c[at] <= 0x57) {
			pushes++;
			at++;
		} else if (c[at] == 0xe8) {
			at += 5;                        /* call the pc thunk */
		} else if (c[at] == 0x81 && at + 1 < sizeof c && (c[at + 1] & 0xf8) == 0xc0) {
			at += 6;                        /* add $GOT-., reg */
		} else {
			return false;
		}
	}
	return false;
}

static bool x86_is_signal_trampoline(const struct sw_walk *w, uint64_t addr);

static enum sw_unwind_status x86_caller_by_frame_pointer(const struct sw_step *s,
                                                    struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	struct sw_regs *caller = &out->regs;
	struct sw_x86_record rec;
	if (!sw_x86_record_of(w, callee, false, &rec))
		return SW_UNWIND_NO_RULE;
	enum sw_x86_frame own = rec.own;
	uint64_t ebp = rec.fp, caller_eip = rec.ra, caller_ebp = rec.saved_fp;
	if (caller_eip < 0x1000)
		return SW_UNWIND_END;
	/* A record at a plausible frame pointer (aligned, above esp) whose
	 * return address is no code: the chain is broken here. A signal
	 * handler's record holds the restorer (no call precedes it), which
	 * the walker takes only above a real signal frame (zoo i386 1027:
	 * with symbols the handler's start is known, its record believed,
	 * and the restorer in it ended the walk). */
	if (!sw_walk_is_return_address(w, caller_eip) && !x86_is_signal_trampoline(w, caller_eip))
		return ebp % 4 == 0 && sw_reg_valid(&callee->regs, X86_ESP) &&
		       ebp >= callee->regs.v[X86_ESP] ? SW_UNWIND_FAILED : SW_UNWIND_NO_RULE;
	if (own == SW_X86_FRAME_UNKNOWN && sw_x86_live_record_unproven(w, callee, false))
		return SW_UNWIND_NO_RULE;
	/* A realigned main's caller's esp is the CFA it saved (x86_drap_slot),
	 * just above the return address the record copied. */
	uint64_t caller_esp = ebp + 8, fn, cfa, ra;
	int64_t slot;
	if (own == SW_X86_FRAME_SET_UP && sw_walk_function_start(w, callee->lookup_pc, &fn) &&
	    x86_drap_slot(w, fn, &slot) && sw_walk_read_word(w, ebp + (uint64_t)slot, &cfa) &&
	    cfa > ebp && sw_walk_read_word(w, cfa - 4, &ra) && ra == caller_eip)
		caller_esp = cfa;
	memset(out, 0, sizeof *out);
	sw_reg_set(caller, X86_EIP, caller_eip);
	sw_reg_set(caller, X86_ESP, caller_esp);
	sw_reg_set(caller, X86_EBP, caller_ebp);
	return SW_UNWIND_OK;
}

static bool x86_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	return sw_x86_call_precedes(w, ra, known);
}

static bool x86_call_target(const struct sw_walk *w, uint64_t ra, uint64_t *target)
{
	return sw_x86_call_target(w, ra, false, target);
}

/* i386 code keeps arguments and locals on the stack in shapes the
 * amd64 prologue decoder does not model: of a call's target only whether
 * it can reach the callee at all is asked (the PIC thunk
 * __x86.get_pc_thunk.bx returns at once: its call's return address, left
 * in every PIC function's frame, is never a caller). */
static bool x86_slot_fits_call(const struct sw_walk *w, const struct sw_frame *callee,
                               uint64_t target, uint64_t slot)
{
	(void)slot;
	uint64_t pc = sw_frame_code_pc(callee);
	return sw_x86_call_reaches(w, target, pc, false);
}

static bool x86_call_reaches(const struct sw_walk *w, uint64_t target, uint64_t pc)
{
	return sw_x86_call_reaches(w, target, pc, false);
}

static bool x86_jumps_into_module(const struct sw_walk *w, uint64_t fn, int32_t to)
{
	return sw_x86_jumps_into_module(w, fn, false, to);
}

/* The scan starts above what the frame's opening allocated: the pushes
 * of callee-saved registers and the sub from esp its function's code
 * begins with stay below its return address until its epilogue, so a
 * return address among them is a leftover local (zoo i386 1018 nofp,
 * stripped and alone: a stale libc return in f4's 0xd0 bytes of locals,
 * whose call reaches an ld.so function ending in a tail call through a
 * pointer, skipped f3's recursion; programs without unwind tables
 * whose frames put the return address past the scan's reach ended
 * short). The opening is read from the function's start, its symbol's
 * (not a PUBLIC one's) or the one its code shows; 4 bytes less are
 * skipped, for a callee that popped its hidden struct-return pointer
 * (`ret $4`) and left esp that much higher after its call. Only on
 * Linux: a Windows stdcall callee pops its arguments, which code that
 * stores them in its allocation (GCC's -maccumulate-outgoing-args)
 * takes back with a sub after the call. */
static enum sw_unwind_status x86_caller_by_scan(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	if (!sw_reg_valid(&callee->regs, X86_ESP))
		return SW_UNWIND_NO_RULE;
	uint64_t from = callee->regs.v[X86_ESP], fn = 0;
	uint64_t pc = sw_frame_has_live_context(callee) ? callee->pc : callee->lookup_pc + 1;
	enum sw_os os = w->snap->sys.os;
	/* A PUBLIC symbol (no size) may lie far below the function. */
	bool named = callee->function && callee->function_base <= callee->lookup_pc;
	if (named && !callee->function_is_public)
		fn = callee->function_base;
	else if (!named && !sw_x86_start_without_symbols(w, pc, false, &fn))
		fn = 0;
	uint64_t skip = 0, ahead;
	if ((os == SW_OS_LINUX || os == SW_OS_ANDROID) && fn) {
		uint64_t opening = sw_x86_opening_size(w, fn, pc, false);
		if (opening > 4)
			skip = opening - 4;
	}
	/* Where the code from pc runs straight to `ret`, it names the slot
	 * (the arguments a call pushed, which the opening does not count,
	 * included: zoo i386 4122). It is at least the opening: a return
	 * address after a call that does not return is the next function's
	 * entry, whose code nets no release (zoo i386 5: f6 ends calling f7,
	 * the pc thunk follows), and is not believed there. */
	if (sw_walk_pc_in_module_code(w, callee->pc) &&
	    sw_x86_return_slot_ahead(w, callee->pc, false, &ahead) && ahead > skip)
		skip = ahead;
	from += skip;
	return sw_walk_caller_by_scan(s, &from, out);
}

/* After a scan found the return address in `slot`: a callee that set up a
 * standard frame stored the caller's ebp just below it, at slot - 4. That
 * word is the caller's ebp if it points above where it is stored, by no
 * more than a plausible frame (Breakpad: 128 KiB); otherwise the callee's
 * ebp is passed on unchanged. */
static void x86_after_scan(const struct sw_step *s, uint64_t slot, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	struct sw_regs *caller = &out->regs;
	enum { MAX_FRAME_GAP = 128 * 1024 };
	uint64_t stored_at = slot - 4, saved;
	if (sw_walk_read_word(w, stored_at, &saved) && saved > stored_at &&
	    saved - stored_at <= MAX_FRAME_GAP)
		sw_reg_set(caller, X86_EBP, saved);
	else if (sw_reg_valid(&callee->regs, X86_EBP))
		sw_reg_set(caller, X86_EBP, callee->regs.v[X86_EBP]);
}

/* Linux signal frames (arch/x86/include/asm/sigframe.h). The C library's
 * restorers, into which the handler's `ret` pops the frame's pretcode:
 *   __restore     pop %eax; mov $0x77, %eax; int $0x80   58 b8 77 00 00 00 cd 80
 *   __restore_rt  mov $0xad, %eax; int $0x80             b8 ad 00 00 00 cd 80
 * At their first instruction sp therefore points at the frame's `sig`:
 *   sigframe    { char *pretcode; int sig; struct sigcontext sc; ... }
 *               -> sigcontext at sp + 4
 *   rt_sigframe { char *pretcode; int sig; siginfo *pinfo; void *puc;
 *                 siginfo info (128 bytes); struct ucontext uc; ... }
 *               -> ucontext at sp + 12 + 128, its uc_mcontext (+20:
 *                  uc_flags 4, uc_link 4, uc_stack 12) at sp + 160
 * sigcontext (struct sigcontext_32 of the host's asm/sigcontext.h; the
 * ucontext offset computed with its asm/ucontext.h under -m32):
 *   gs, fs, es, ds, edi +16, esi +20, ebp +24, esp +28, ebx +32, edx +36,
 *   ecx +40, eax +44, trapno, err, eip +56, cs, eflags +64, ... */
enum { X86_SIGFRAME_SC = 4, X86_RT_SIGFRAME_SC = 4 + 4 + 4 + 128 + 20 };

static const uint8_t x86_restore[] = { 0x58, 0xb8, 0x77, 0x00, 0x00, 0x00, 0xcd, 0x80 };
static const uint8_t x86_restore_rt[] = { 0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80 };

static const struct sw_sigframe_slot x86_sigcontext_slots[] = {
	{ X86_EDI, 4 }, { X86_ESI, 5 }, { X86_EBP, 6 }, { X86_ESP, 7 }, { X86_EBX, 8 },
	{ X86_EDX, 9 }, { X86_ECX, 10 }, { X86_EAX, 11 }, { X86_EIP, 14 }, { X86_EFLAGS, 16 },
};

/* Where the restorer at addr finds the sigcontext, from its sp (0: no
 * restorer there). */
static uint64_t x86_restorer_sigcontext(const struct sw_walk *w, uint64_t addr)
{
	uint8_t code[sizeof x86_restore];
	if (!sw_walk_read(w, addr, code, sizeof x86_restore_rt))
		return 0;
	if (memcmp(code, x86_restore_rt, sizeof x86_restore_rt) == 0)
		return X86_RT_SIGFRAME_SC;
	if (sw_walk_read(w, addr, code, sizeof x86_restore) &&
	    memcmp(code, x86_restore, sizeof x86_restore) == 0)
		return X86_SIGFRAME_SC;
	return 0;
}

static bool x86_is_signal_trampoline(const struct sw_walk *w, uint64_t addr)
{
	return x86_restorer_sigcontext(w, addr) != 0;
}

/* A signal frame known by what the kernel (or qemu-user) wrote, for a
 * restorer whose code the snapshot lacks (a Linux core holds no code of
 * the files it mapped). An rt_sigframe at sp: a signal number (1-64),
 * then pinfo and puc pointing at its own info and uc (sp + 12, sp + 140).
 * A sigframe: the signal number, then a sigcontext holding the user code
 * and stack selectors (__USER_CS/__USER_DS: 0x73/0x7b under an i386
 * kernel, 0x23/0x2b under an x86-64 one and qemu-user). Stale words do
 * not line up like that by chance. Where sp finds the sigcontext, or 0. */
uint64_t sw_x86_sigcontext_written_at(const struct sw_walk *w, uint64_t sp)
{
	uint64_t f[X86_SIGFRAME_SC / 4 + 19];
	if (!sw_sigframe_read_fields(w, sp, 4, false, sizeof f / sizeof f[0], f) || f[0] < 1 ||
	    f[0] > 64)
		return 0;
	if (f[1] == sp + 12 && f[2] == sp + X86_RT_SIGFRAME_SC - 20)
		return X86_RT_SIGFRAME_SC;
	const uint64_t *sc = f + X86_SIGFRAME_SC / 4;
	uint16_t cs = (uint16_t)sc[15], ss = (uint16_t)sc[18];
	bool user = (cs == 0x73 && ss == 0x7b) || (cs == 0x23 && ss == 0x2b);
	return user ? X86_SIGFRAME_SC : 0;
}

static bool x86_signal_frame_written_at(const struct sw_walk *w, uint64_t sp)
{
	return sw_x86_sigcontext_written_at(w, sp) != 0;
}

static enum sw_unwind_status x86_caller_of_signal_frame(const struct sw_step *s,
                                                        struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	if (!sw_reg_valid(r, X86_ESP))
		return SW_UNWIND_NO_RULE;
	uint64_t esp = r->v[X86_ESP] & 0xffffffffu;
	uint8_t code;
	uint64_t sc = sw_walk_read(w, s->callee->pc, &code, 1)
	                      ? x86_restorer_sigcontext(w, s->callee->pc)
	                      : sw_x86_sigcontext_written_at(w, esp);
	if (!sc)
		return SW_UNWIND_NO_RULE;
	return sw_sigframe_restore(w, esp + sc, 4, x86_sigcontext_slots,
	                           sizeof x86_sigcontext_slots / sizeof x86_sigcontext_slots[0], out);
}

const struct sw_arch sw_arch_x86 = {
	.name = "x86",
	.cpu = SW_CPU_X86,
	.word_size = 4,
	.nregs = X86_NREGS,
	.reg_names = x86_reg_names,
	.text_names = x86_text_names,
	.pc = X86_EIP,
	.sp = X86_ESP,
	.fp = X86_EBP,
	.ra = -1,
	/* i386 ABI: ebx, esi, edi, ebp (and esp) belong to the caller. */
	.callee_saved = (1ull << X86_EBX) | (1ull << X86_ESI) | (1ull << X86_EDI) |
	                (1ull << X86_EBP) | (1ull << X86_ESP),
	.print_order = x86_print_order,
	.nprint = sizeof x86_print_order,
	.dwarf_regs = x86_dwarf_regs,
	.ndwarf_regs = sizeof x86_dwarf_regs,
	.call_site = x86_call_site,
	.strip_code_pointer = x86_strip,
	.pc_is_plausible = x86_pc_plausible,
	.caller_of_signal_frame = x86_caller_of_signal_frame,
	.is_signal_trampoline = x86_is_signal_trampoline,
	.signal_frame_written_at = x86_signal_frame_written_at,
	.caller_by_frame_pointer = x86_caller_by_frame_pointer,
	.call_precedes = x86_call_precedes,
	.call_target = x86_call_target,
	.jumps_into_module = x86_jumps_into_module,
	.slot_fits_call = x86_slot_fits_call,
	.call_reaches = x86_call_reaches,
	.indirect_call_reaches = sw_x86_syscall_call_reaches,
	.after_scan = x86_after_scan,
	.caller_by_scan = x86_caller_by_scan,
};
