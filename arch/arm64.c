/* AArch64 (AAPCS64). Register numbers are the DWARF ones (AADWARF64 §4.1):
 * x0-x30 = 0-30 (x29 = fp, x30 = lr), sp = 31; pc and cpsr follow.
 * Callers by CFI (the walker), the frame record chain and the live link
 * register, prologue analysis (arm64_prologue.c), then a scan validated by
 * BL/BLR decoding. */
#include "registry.h"

#include <string.h>

#include "arm64_prologue.h"
#include "lib/walker.h"
#include "signal_frame.h"
#include "stub.h"

enum { ARM64_FP = 29, ARM64_LR = 30, ARM64_SP = 31, ARM64_PC = 32, ARM64_CPSR = 33 };

static const char *const arm64_reg_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30",
	"sp", "pc", "cpsr",
};

/* Breakpad and rust-minidump print x29/x30 as fp/lr. */
static const char *const arm64_text_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "fp", "lr",
	"sp", "pc", "cpsr",
};

static const uint8_t arm64_print_order[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	20, 21, 22, 23, 24, 25, 26, 27, 28, ARM64_FP, ARM64_LR, ARM64_SP, ARM64_PC,
};

/* DWARF numbers (AADWARF64 §4.1): x0-x30 = 0-30, sp = 31, pc = 32. */
static const int8_t arm64_dwarf_regs[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, ARM64_SP, ARM64_PC,
};

/* Every instruction is 4 bytes: the call is the word before the return
 * address (Breakpad and rust-minidump symbolize callers at pc - 4). */
static uint64_t arm64_call_site(uint64_t ra)
{
	return ra - 4;
}

/* Pointer authentication (ARMv8.3-A) puts a signature in the unused high
 * bits of return addresses and saved frame pointers (Apple arm64e, Linux
 * with -mbranch-protection). Linux core files give the exact mask
 * (NT_ARM_PAC_MASK); otherwise every bit above the highest address the
 * snapshot uses is a signature bit (rust-minidump's ptr_auth_strip). */
static uint64_t arm64_strip(const struct sw_walk *w, uint64_t addr)
{
	if (w->snap->sys.pointer_auth_mask)
		return addr & ~w->snap->sys.pointer_auth_mask;
	return addr & w->address_mask;
}

/* User-space code: above the NULL page, below 2^52 (the largest virtual
 * address space, ARMv8.2 LVA), 4-byte aligned. */
static bool arm64_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && pc <= 0x000fffffffffffffull && (pc & 3) == 0;
}

/* Calls that set the link register (Arm ARM C6.2): BL imm26; BLR Xn; the
 * pointer-authenticating BLRAA/BLRAB Xn, Xm and BLRAAZ/BLRABZ Xn. */
static bool arm64_is_call(uint32_t insn)
{
	return (insn & 0xfc000000u) == 0x94000000u ||   /* BL */
	       (insn & 0xfffffc1fu) == 0xd63f0000u ||   /* BLR */
	       (insn & 0xfffffc00u) == 0xd73f0800u ||   /* BLRAA */
	       (insn & 0xfffffc00u) == 0xd73f0c00u ||   /* BLRAB */
	       (insn & 0xfffffc1fu) == 0xd63f081fu ||   /* BLRAAZ */
	       (insn & 0xfffffc1fu) == 0xd63f0c1fu;     /* BLRABZ */
}

/* n bytes (4: an instruction, 8: a literal) of code at addr, in the
 * snapshot's byte order, as the call check has always read them. */
static bool arm64_read_code(const struct sw_walk *w, uint64_t addr, unsigned n, uint64_t *out)
{
	uint8_t b[8];
	if (n > sizeof b || !sw_walk_read(w, addr, b, n))
		return false;
	*out = 0;
	for (unsigned i = 0; i < n; i++)
		*out |= (uint64_t)b[w->snap->sys.big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
	return true;
}

static bool arm64_read_insn(const struct sw_walk *w, uint64_t addr, uint32_t *insn)
{
	uint64_t v;
	if (!arm64_read_code(w, addr, 4, &v))
		return false;
	*insn = (uint32_t)v;
	return true;
}

static bool arm64_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	uint32_t insn;
	ra = arm64_strip(w, ra);
	*known = ra >= 4 && arm64_read_insn(w, ra - 4, &insn);
	return !*known || arm64_is_call(insn);
}

/* ---- where a call goes ---- */

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)(v ^ m) - (int64_t)m;
}

/* Where B or BL at `at` goes: its imm26, in instructions (Arm ARM
 * C6.2.26, C6.2.35). */
static uint64_t a64_imm26_destination(uint32_t insn, uint64_t at)
{
	return at + (uint64_t)sext((uint64_t)(insn & 0x3ffffffu) << 2, 28);
}

enum {
	A64_BR_X16 = 0xd61f0200u,
	A64_BR_X17 = 0xd61f0220u,
	A64_AUTIA1716 = 0xd503219fu,
	A64_AUTIB1716 = 0xd50321dfu,
	A64_LDR_X16_LIT8 = 0x58000050u,   /* ldr x16, #8 */
	ARM64_STUB_HOPS = 4,
};

/* BTI, BTI c, j, jc (HINT #32-#38): a landing pad first in a stub built
 * with branch protection. */
static bool a64_is_bti(uint32_t insn)
{
	return (insn & 0xffffff3fu) == 0xd503241fu;
}

/* ADRP x16 at pc (Arm ARM C6.2.11): the 4 KiB page pc's page + imm. */
static bool a64_adrp_x16(uint32_t insn, uint64_t pc, uint64_t *page)
{
	if ((insn & 0x9f00001fu) != 0x90000010u)
		return false;
	uint64_t imm = (uint64_t)((insn >> 5 & 0x7ffffu) << 2 | (insn >> 29 & 3)) << 12;
	*page = (pc & ~(uint64_t)0xfff) + (uint64_t)sext(imm, 33);
	return true;
}

enum a64_stub { A64_STUB_NONE, A64_STUB_SLOT, A64_STUB_CODE };

/* PLT entries and veneers at `at` (binutils' elfnn-aarch64.c, lld's
 * AArch64.cpp and Thunks.cpp), each after an optional BTI:
 *   PLT     adrp x16, P; ldr x17, [x16, #L]; add x16, x16, #L;
 *           [autia1716 | autib1716;] br x17     slot P + L
 *   veneer  adrp x16, P; add x16, x16, #L; br x16   code at P + L
 *   veneer  ldr x16, #8; br x16; .xword X        code at X */
static enum a64_stub a64_stub_at(const struct sw_walk *w, uint64_t at, uint64_t *next)
{
	uint32_t i[5];
	if (!arm64_read_insn(w, at, &i[0]))
		return A64_STUB_NONE;
	if (a64_is_bti(i[0])) {
		at += 4;
		if (!arm64_read_insn(w, at, &i[0]))
			return A64_STUB_NONE;
	}
	for (unsigned k = 1; k < 3; k++)
		if (!arm64_read_insn(w, at + 4 * k, &i[k]))
			return A64_STUB_NONE;
	uint64_t page;
	if (i[0] == A64_LDR_X16_LIT8 && i[1] == A64_BR_X16)
		return arm64_read_code(w, at + 8, 8, next) ? A64_STUB_CODE : A64_STUB_NONE;
	if (!a64_adrp_x16(i[0], at, &page))
		return A64_STUB_NONE;
	uint32_t add_x16 = 0x91000210u, ldr_x17 = 0xf9400211u, mask = 0xffc003ffu;
	if ((i[1] & mask) == add_x16 && i[2] == A64_BR_X16) {
		*next = page + (i[1] >> 10 & 0xfffu);
		return A64_STUB_CODE;
	}
	if ((i[1] & mask) != ldr_x17 || (i[2] & mask) != add_x16 ||
	    !arm64_read_insn(w, at + 12, &i[3]))
		return A64_STUB_NONE;
	bool auth = i[3] == A64_AUTIA1716 || i[3] == A64_AUTIB1716;
	if (auth && !arm64_read_insn(w, at + 16, &i[4]))
		return A64_STUB_NONE;
	if ((auth ? i[4] : i[3]) != A64_BR_X17)
		return A64_STUB_NONE;
	*next = page + 8 * (i[1] >> 10 & 0xfffu);
	return A64_STUB_SLOT;
}

/* The call_target hook: BL's target (imm26, times 4, from the BL's own
 * address), followed through the stubs above. BLR and its authenticating
 * forms name no target. */
static bool arm64_call_target(const struct sw_walk *w, uint64_t ra, uint64_t *target)
{
	uint32_t insn;
	ra = arm64_strip(w, ra);
	if (ra < 4 || !arm64_read_insn(w, ra - 4, &insn) || (insn & 0xfc000000u) != 0x94000000u)
		return false;
	uint64_t at = a64_imm26_destination(insn, ra - 4), next;
	for (unsigned hop = 0; hop < ARM64_STUB_HOPS; hop++) {
		switch (a64_stub_at(w, at, &next)) {
		case A64_STUB_NONE:
			*target = at;
			return true;
		case A64_STUB_SLOT:
			return sw_stub_through_slot(w, at, next, 8, target);
		case A64_STUB_CODE:
			at = arm64_strip(w, next);
			break;
		}
	}
	return false;
}

/* How much of a function a tail jump is looked for in. */
enum { ARM64_TAIL_REACH = 1024 };

static bool a64_function_extent(const struct sw_walk *w, uint64_t fn, uint64_t *end);

/* Where a jump through the stubs above finally goes. */
static bool a64_jump_destination(const struct sw_walk *w, uint64_t at, uint64_t *dest)
{
	uint64_t next;
	for (unsigned hop = 0; hop < ARM64_STUB_HOPS; hop++) {
		switch (a64_stub_at(w, at, &next)) {
		case A64_STUB_NONE:
			*dest = at;
			return true;
		case A64_STUB_SLOT:
			return sw_stub_through_slot(w, at, next, 8, dest);
		case A64_STUB_CODE:
			at = arm64_strip(w, next);
			break;
		}
	}
	return false;
}

static bool a64_is_br(uint32_t insn);

/* Does the instruction reload x30 (LDP with x30 as either register, Arm
 * ARM C6.2.130; LDR x30, C6.2.132 unsigned offset, pre- and post-index)?
 * An epilogue does, before the function's return or tail call. */
static bool a64_restores_lr(uint32_t insn)
{
	bool ldp = (insn & 0xfc400000u) == 0xa8400000u; /* 64-bit LDP, any addressing */
	return (ldp && ((insn & 31) == 30 || (insn >> 10 & 31) == 30)) ||
	       (insn & 0xffc0001fu) == 0xf940001eu || (insn & 0xffe0041fu) == 0xf840041eu;
}

/* The jumps_into_module hook: a B (Arm ARM C6.2.26) in the code at fn,
 * within its symbol's extent or ARM64_TAIL_REACH bytes, whose
 * destination (through PLT entries and veneers) lies in module `to`:
 * GCC ends a function with `b callee` for a call in tail position, and a
 * callee in another library is reached through its PLT entry. Or a BR
 * through a register a few instructions after the epilogue reloaded x30:
 * a tail call through a pointer, which may lead into any module (zoo
 * aarch64 1120 stripped: libzoo's f6 ends `ldp x21, x30, [sp, #16]; ...;
 * ldr x2, [x2, #56]; ...; br x16` into the program's f7, so f7's live x30,
 * returning into f6, was refused, and a record skipped f6 and f5). A
 * switch's table jump reloads no x30. */
enum { A64_TAIL_AFTER_EPILOGUE = 8 };

static bool arm64_jumps_into_module(const struct sw_walk *w, uint64_t fn, int32_t to)
{
	uint64_t end, dest;
	fn = arm64_strip(w, fn);
	if (to < 0 || (fn & 3))
		return false;
	if (!a64_function_extent(w, fn, &end) || end - fn > ARM64_TAIL_REACH)
		end = fn + ARM64_TAIL_REACH;
	unsigned since_epilogue = A64_TAIL_AFTER_EPILOGUE + 1;
	for (uint64_t at = fn; at < end; at += 4) {
		uint32_t insn;
		if (!arm64_read_insn(w, at, &insn))
			return false;
		if ((insn & 0xfc000000u) == 0x14000000u &&
		    a64_jump_destination(w, a64_imm26_destination(insn, at), &dest) &&
		    sw_module_at(w->snap, dest) == to)
			return true;
		if (a64_is_br(insn) && since_epilogue <= A64_TAIL_AFTER_EPILOGUE)
			return true;
		since_epilogue = a64_restores_lr(insn) ? 0 : since_epilogue + 1;
	}
	return false;
}

/* How much straight-line code falls_through reads: a function's body
 * between a call and the crash seldom runs longer. */
enum { ARM64_STRAIGHT_MAX = 4096 };

/* Instructions after which the next one does not run (Arm ARM C4.1.65,
 * "Branches, Exception Generating and System instructions"): B; the
 * unconditional branches to a register (BR, RET, ERET and their
 * pointer-authenticating forms: every opc but BLR's, 0001 and 1001);
 * the traps BRK and HLT, and UDF. */
static bool a64_ends_flow(uint32_t insn)
{
	return (insn & 0xfc000000u) == 0x14000000u ||                          /* B */
	       ((insn & 0xfe000000u) == 0xd6000000u && (insn >> 21 & 7) != 1) || /* BR, RET, ... */
	       (insn & 0xffe0001fu) == 0xd4200000u ||                          /* BRK */
	       (insn & 0xffe0001fu) == 0xd4400000u ||                          /* HLT */
	       (insn & 0xffff0000u) == 0;                                      /* UDF */
}

/* A direct branch's destination (Arm ARM C4.1.65): B and B.cond, CBZ and
 * CBNZ, TBZ and TBNZ. False for anything else. */
static bool a64_branch_destination(uint32_t insn, uint64_t at, uint64_t *to)
{
	if ((insn & 0xfc000000u) == 0x14000000u)
		*to = a64_imm26_destination(insn, at);
	else if ((insn & 0xff000010u) == 0x54000000u || (insn & 0x7e000000u) == 0x34000000u)
		*to = at + (uint64_t)sext((uint64_t)(insn >> 5 & 0x7ffffu) << 2, 21);
	else if ((insn & 0x7e000000u) == 0x36000000u)
		*to = at + (uint64_t)sext((uint64_t)(insn >> 5 & 0x3fffu) << 2, 16);
	else
		return false;
	return true;
}

/* The call_reaches hook: does the function a direct call entered at
 * `target` stay away from pc? It does when its code, read from target
 * on, leaves only by its returns (every branch lands between target and
 * a return past which none reaches: a closed function) and pc is not in
 * it: whatever it calls returns to it, and it returns to its caller. A
 * branch below target, a jump through a register (a tail call, a switch)
 * or code that cannot be read: not known, true. */
static bool arm64_call_reaches(const struct sw_walk *w, uint64_t target, uint64_t pc)
{
	target = arm64_strip(w, target);
	pc = arm64_strip(w, pc);
	if (pc == target || (target & 3))
		return true;
	uint64_t reach = target;
	for (uint64_t at = target; at - target < ARM64_STRAIGHT_MAX; at += 4) {
		uint32_t insn;
		uint64_t to;
		if (!arm64_read_insn(w, at, &insn))
			return true;
		bool branch = a64_branch_destination(insn, at, &to);
		if (branch && to < target)
			return true;
		/* A BL forward to an address up to pc enters another function
		 * there: a function never calls into its own body past the call
		 * (zoo aarch64 5070 `nofp -O0`, stripped: f4 ends `bl f5`, f5
		 * follows; f4's record, x29 in f5, was taken for f5's caller). */
		uint64_t callee = a64_imm26_destination(insn, at);
		if ((insn & 0xfc000000u) == 0x94000000u && callee > at && callee <= pc)
			return false;
		if (branch && to > reach)
			reach = to;
		bool is_b = (insn & 0xfc000000u) == 0x14000000u;
		bool is_ret = (insn & 0xfffffc1fu) == 0xd65f0000u || insn == 0xd65f0bffu ||
		              insn == 0xd65f0fffu; /* RET, RETAA, RETAB */
		if (!is_b && !is_ret && a64_ends_flow(insn) &&
		    (insn & 0xfe000000u) == 0xd6000000u)
			return true; /* BR and its kin: where it goes is not known */
		if ((is_ret || is_b || a64_ends_flow(insn)) && at + 4 > reach)
			return pc >= target && pc < at + 4;
	}
	return true;
}

static bool arm64_falls_through(const struct sw_walk *w, uint64_t from, uint64_t to)
{
	from = arm64_strip(w, from);
	to = arm64_strip(w, to);
	if (from > to || to - from > ARM64_STRAIGHT_MAX || (from & 3) || (to & 3))
		return false;
	for (uint64_t at = from; at < to; at += 4) {
		uint32_t insn;
		if (!arm64_read_insn(w, at, &insn) || a64_ends_flow(insn))
			return false;
	}
	return true;
}

/* The call_never_made hook: a BL to a PLT entry whose GOT slot still
 * holds where the linker put it before binding, the PLT's head (binutils:
 * PLT0 begins stp x16, x30, [sp, #-16]!, after a BTI where built with
 * branch protection), in the entry's own module. */
static bool arm64_call_never_made(const struct sw_walk *w, uint64_t ra)
{
	uint32_t insn;
	uint64_t slot, v;
	if (ra < 4 || !arm64_read_insn(w, ra - 4, &insn) || (insn & 0xfc000000u) != 0x94000000u)
		return false;
	uint64_t stub = a64_imm26_destination(insn, ra - 4);
	if (a64_stub_at(w, stub, &slot) != A64_STUB_SLOT || !arm64_read_code(w, slot, 8, &v))
		return false;
	v = arm64_strip(w, v);
	int32_t home = sw_module_at(w->snap, stub);
	if (home < 0 || sw_module_at(w->snap, v) != home || v >= stub ||
	    !arm64_read_insn(w, v, &insn))
		return false;
	if (a64_is_bti(insn) && !arm64_read_insn(w, v + 4, &insn))
		return false;
	return insn == 0xa9bf7bf0u; /* stp x16, x30, [sp, #-16]! */
}

/* The function starting at fn, when the module's symbols give its extent
 * (a sized FUNC symbol, not a PUBLIC record): [fn, *end). */
static bool a64_function_extent(const struct sw_walk *w, uint64_t fn, uint64_t *end)
{
	int32_t m;
	const struct sw_module_symbols *syms = sw_walk_symbols_at(w, fn, &m);
	if (!syms || !syms->ops->lookup)
		return false;
	const struct sw_module *mod = &w->snap->modules[m];
	uint64_t bias = mod->base + mod->load_bias;
	struct sw_arena scratch;
	sw_arena_init(&scratch);
	struct sw_sym_info info;
	memset(&info, 0, sizeof info);
	bool ok = syms->ops->lookup(syms->self, fn - bias, &scratch, &info) && info.function &&
	          !info.is_public && info.function_size && bias + info.function_offset == fn;
	sw_arena_free(&scratch);
	*end = fn + info.function_size;
	return ok;
}

/* Could a call to the function at fn have led to pc without leaving a
 * return address of its own: pc inside it, or inside a function it
 * branches to without linking (a tail call: B, B.cond, CBZ/CBNZ out of its
 * extent), `hops` deep? True whenever it cannot tell: an extent the
 * symbols do not give, code it cannot read, a BR (a jump anywhere), more
 * code than *budget instructions. */
enum { ARM64_TAIL_HOPS = 3, ARM64_TAIL_BUDGET = 8192 /* instructions */ };

static bool a64_may_lead_to(const struct sw_walk *w, uint64_t fn, uint64_t pc, unsigned hops,
                            uint32_t *budget)
{
	uint64_t end;
	if (!a64_function_extent(w, fn, &end) || (pc >= fn && pc < end) || hops == 0)
		return true;
	for (uint64_t at = fn; at < end; at += 4) {
		uint32_t insn;
		uint64_t to;
		if (*budget == 0 || !arm64_read_insn(w, at, &insn))
			return true;
		--*budget;
		if ((insn & 0xfc000000u) == 0x14000000u)            /* B */
			to = a64_imm26_destination(insn, at);
		else if ((insn & 0xff000010u) == 0x54000000u ||     /* B.cond */
		         (insn & 0x7e000000u) == 0x34000000u)       /* CBZ, CBNZ */
			to = at + (uint64_t)sext((uint64_t)(insn >> 5 & 0x7ffffu) << 2, 21);
		else if ((insn & 0xfffffc1fu) == 0xd61f0000u)       /* BR */
			return true;
		else
			continue;
		if ((to < fn || to >= end) && a64_may_lead_to(w, to, pc, hops - 1, budget))
			return true;
	}
	return false;
}

/* The slot_fits_call hook, for calls into another module. A BL through a
 * PLT entry enters the one function its GOT slot names: a callee frame in
 * that module was reached from there, or from a function it branches to
 * without linking (only BL and BLR set x30, Arm ARM C6.2), which that
 * function's code shows. A scanned word whose call went to a
 * function that leads nowhere near the callee is left over from an
 * earlier call (main's sigaction@plt return address in zoo_init's frame,
 * found above glibc's msort frames). Within a module nothing is refused
 * (.cold parts, local code the symbols do not name). */
static bool arm64_slot_fits_call(const struct sw_walk *w, const struct sw_frame *callee,
                                 uint64_t target, uint64_t slot)
{
	uint64_t pc = arm64_strip(w, sw_frame_has_live_context(callee) ? callee->pc
	                                                               : callee->lookup_pc);
	uint64_t ra;
	int32_t m = sw_module_at(w->snap, pc);
	if (m < 0 || sw_module_at(w->snap, target) != m || !sw_walk_read_word(w, slot, &ra) ||
	    sw_module_at(w->snap, arm64_strip(w, ra) - 4) == m)
		return true;
	uint32_t budget = ARM64_TAIL_BUDGET;
	return a64_may_lead_to(w, target, pc, ARM64_TAIL_HOPS, &budget);
}

/* A scan's caller: where the callee's code shows where it keeps x30, the
 * slot found gives the caller's sp and saved registers
 * (sw_arm64_scanned_caller); else the walker's slot + 8, a lower bound. */
static void arm64_after_scan(const struct sw_step *s, uint64_t slot, struct sw_caller *out)
{
	struct sw_caller c;
	if (sw_arm64_scanned_caller(s, slot, out->regs.v[ARM64_PC], &c))
		*out = c;
}

/* ---- whose frame record x29 points at ---- */

/* AAPCS64 §6.4.6 lets code keep no frame record: GCC and Clang without
 * frame pointers (-fomit-frame-pointer, GCC's default from -O1) never
 * write x29, which then still points at the record of the nearest caller
 * that made one (a function using alloca keeps one even so). Following it
 * from such a frame skips every frame in between. A function makes its
 * own record with `add x29, sp, #imm` (`mov x29, sp` is its alias) after
 * storing the pair; its code before pc says whether it did. */
enum arm64_record { ARM64_RECORD_UNKNOWN, ARM64_RECORD_OWN, ARM64_RECORD_NONE };

/* How many instructions of a function are looked at. */
enum { ARM64_RECORD_REACH = 1024 };

/* ADD (immediate), 64-bit, Rd = x29, Rn = sp, either shift (C6.2.4). */
static bool a64_sets_frame_pointer(uint32_t insn)
{
	return (insn & 0xff8003ffu) == 0x910003fdu;
}

/* RET Xn, RETAA, RETAB (C6.2.254-255). */
static bool a64_is_ret(uint32_t insn)
{
	return (insn & 0xfffffc1fu) == 0xd65f0000u || insn == 0xd65f0bffu || insn == 0xd65f0fffu;
}

/* BR Xn, BRAAZ, BRABZ, BRAA, BRAB (C6.2.37-38). */
static bool a64_is_br(uint32_t insn)
{
	return (insn & 0xfffffc1fu) == 0xd61f0000u || (insn & 0xfffff81fu) == 0xd61f081fu ||
	       (insn & 0xfffff800u) == 0xd71f0800u;
}

/* LDP x29, x30, [sp], #imm or [sp, #imm]: an epilogue popping a record. */
static bool a64_pops_record(uint32_t insn)
{
	return (insn & 0xffc07fffu) == 0xa8c07bfdu || (insn & 0xffc07fffu) == 0xa9407bfdu;
}

/* The first instruction a function runs when it makes a frame: sub sp,
 * sp, #imm; sub sp, sp, xM (extended register, UXTX: a frame past 4 KiB
 * whose size a mov put in x12 first: zoo aarch64 1110); or a pre-indexed
 * store to sp (stp x29, x30, [sp, #-N]!, str x30, [sp, #-N]!), 64-bit
 * (C6.2.273, C6.2.277, C6.2.308, C6.2.356). */
static bool a64_allocates_frame(uint32_t insn)
{
	return (insn & 0xff8003ffu) == 0xd10003ffu || (insn & 0xffe0e3ffu) == 0xcb2063ffu ||
	       (insn & 0xffc003e0u) == 0xa98003e0u || (insn & 0xffe00fe0u) == 0xf8000fe0u;
}

/* Padding and landing pads before a function's first instruction: NOP,
 * zeros, BTI, PACIASP, PACIBSP. */
static bool a64_is_entry_filler(uint32_t insn)
{
	return insn == 0xd503201fu || insn == 0 || a64_is_bti(insn) || insn == 0xd503233fu ||
	       insn == 0xd503237fu;
}

/* Does a function begin after the return at `at` and before pc: within
 * its first four instructions, past padding and before any branch, one
 * makes a frame (the compiler may schedule an address computation before
 * it: adrp, ldr; str x30, [sp, #-32]!)? Code after a return that is still
 * the same function carries on in the frame it has. */
static bool a64_function_follows(const struct sw_walk *w, uint64_t at, uint64_t pc)
{
	uint32_t insn;
	uint64_t to;
	unsigned code = 0;
	for (unsigned k = 0; k < 16 && code < 4 && (at += 4) < pc; k++) {
		if (!arm64_read_insn(w, at, &insn))
			return false;
		if (a64_is_entry_filler(insn))
			continue;
		if (a64_ends_flow(insn) || a64_branch_destination(insn, at, &to) ||
		    arm64_is_call(insn))
			return false;
		if (a64_allocates_frame(insn))
			return true;
		code++;
	}
	return false;
}

/* Where the function's start is known, its code from there to pc is
 * read. Otherwise the code before pc is read backwards to the first
 * return. When a function that makes a frame begins right after it (the
 * previous one ended there), or the return pops no record (it ends a
 * function that had none: the previous one, or an early exit of ours
 * taken before its record was made), no setup between it and pc means
 * none of ours. A return after a record's epilogue with no frame made
 * after it may end one of ours: unknown. Code that cannot be read, or
 * farther than the reach, is unknown too (the record is then followed as
 * before: a minidump without code, a .sym-only walk), unless a function
 * that makes a frame begins right after it. */
/* How many instructions ahead of a live pc its return is sought. */
enum { ARM64_RETURN_REACH = 32 };

/* Does the instruction leave x29 alone: name it in none of the fields
 * that may hold it (Arm ARM C4.1): Rd/Rt (bits 4:0), Rn (9:5: a base,
 * written back or not, or a source), a load/store pair's Rt2 (14:10), a
 * data-processing register form's Rm (20:16)? Reading x29 counts too: a
 * frame that addresses its locals from x29 made its record. */
static bool a64_leaves_x29(uint32_t insn)
{
	unsigned op0 = insn >> 25 & 15;
	bool load_store = (op0 & 5) == 4, pair = load_store && (insn >> 27 & 7) == 5;
	bool dp_register = (op0 & 7) == 5;
	return (insn & 31) != 29 && (insn >> 5 & 31) != 29 && !(pair && (insn >> 10 & 31) == 29) &&
	       !(dp_register && (insn >> 16 & 31) == 29);
}

/* Does the code from a live pc run straight to its return (no branch,
 * call or system instruction but a hint on the way) leaving x29 alone?
 * The function then returns with x29 as it found it: a caller's, never
 * this frame's record (zoo aarch64 1218 stripped: f7, shrink-wrapped,
 * `str x30, [sp, #-32]!` after a test, kept start_thread's x29, and its
 * record skipped f6; no start was proven, an earlier function's epilogue
 * popping a record just before it). */
static bool arm64_returns_leaving_fp(const struct sw_walk *w, uint64_t pc)
{
	uint32_t insn;
	for (unsigned k = 0; k < ARM64_RETURN_REACH; k++, pc += 4) {
		if (!arm64_read_insn(w, pc, &insn))
			return false;
		if (a64_is_ret(insn))
			return true;
		bool branch_or_system = (insn >> 26 & 7) == 5;
		bool hint = (insn & 0xfffff01fu) == 0xd503201fu;
		if ((branch_or_system && !hint) || !a64_leaves_x29(insn))
			return false;
	}
	return false;
}

static enum arm64_record arm64_record_of(const struct sw_walk *w, const struct sw_frame *callee)
{
	uint64_t pc = arm64_strip(w, sw_frame_has_live_context(callee) ? callee->pc
	                                                               : callee->lookup_pc);
	uint64_t start;
	uint32_t insn;
	if (sw_walk_function_start(w, pc, &start)) {
		if ((pc - start) / 4 > ARM64_RECORD_REACH)
			return ARM64_RECORD_UNKNOWN;
		for (uint64_t at = start; at < pc; at += 4) {
			if (!arm64_read_insn(w, at, &insn))
				return ARM64_RECORD_UNKNOWN;
			if (a64_sets_frame_pointer(insn))
				return ARM64_RECORD_OWN;
		}
		return ARM64_RECORD_NONE;
	}
	if (sw_frame_has_live_context(callee) && sw_walk_pc_in_module_code(w, pc) &&
	    arm64_returns_leaving_fp(w, pc))
		return ARM64_RECORD_NONE;
	for (uint64_t at = pc, n = 0; at >= 4 && n < ARM64_RECORD_REACH; n++) {
		at -= 4;
		/* Code that cannot be read (the zeros between a static
		 * program's .plt and .text read as unknown) right before a
		 * function that makes a frame: that function is the frame's. */
		if (!arm64_read_insn(w, at, &insn))
			return a64_function_follows(w, at, pc) ? ARM64_RECORD_NONE
			                                       : ARM64_RECORD_UNKNOWN;
		if (a64_sets_frame_pointer(insn))
			return ARM64_RECORD_OWN;
		/* A jump through a register ends a PLT entry or a tail call,
		 * and so may a direct one (b: crtstuff's frame_dummy tail-calls
		 * register_tm_clones): where a function that makes a frame
		 * follows it, that one is the frame's. */
		if ((a64_is_br(insn) || (insn & 0xfc000000u) == 0x14000000u) &&
		    a64_function_follows(w, at, pc))
			return ARM64_RECORD_NONE;
		if (a64_is_ret(insn)) {
			if (a64_function_follows(w, at, pc))
				return ARM64_RECORD_NONE;
			for (unsigned k = 1; k <= 3 && at >= 4 * k; k++)
				if (arm64_read_insn(w, at - 4 * k, &insn) && a64_pops_record(insn))
					return ARM64_RECORD_UNKNOWN;
			return ARM64_RECORD_NONE;
		}
	}
	return ARM64_RECORD_UNKNOWN;
}

/* The frame record (AAPCS64 §6.4.6): a function that calls others stores
 * {caller's x29, x30} as a pair and points x29 at it, so
 *   pc_caller = [x29 + 8],  x29_caller = [x29],  sp_caller = x29 + 16
 * (sp_caller is where the record's owner had sp at least; CFI corrects it
 * when the caller has rules). Both saved words may carry a PAC signature.
 *
 * The context frame may not have stored its record yet (a leaf, or a
 * function interrupted in its prologue): then x30 still holds its return
 * address and x29 is the caller's. Breakpad always takes x30 for the
 * context frame's caller, rust-minidump never; we take it when the record
 * at x29 does not already hold it (then the record is the frame's own) and
 * x30 passes the scan's checks, and keep sp (a leaf that moved sp would
 * have needed CFI, which was tried first). Later frames have no live x30:
 * their caller comes from the record only. */
static enum sw_unwind_status arm64_caller_by_frame_pointer(const struct sw_step *s,
                                                           struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	if (!sw_reg_valid(r, ARM64_FP) || !sw_reg_valid(r, ARM64_SP))
		return SW_UNWIND_NO_RULE;
	uint64_t fp = arm64_strip(w, r->v[ARM64_FP]), sp = r->v[ARM64_SP];
	uint64_t saved_fp = 0, saved_lr = 0;
	bool record = fp % 8 == 0 && fp >= sp && fp <= UINT64_MAX - 16 &&
	              sw_walk_read_word(w, fp, &saved_fp) && sw_walk_read_word(w, fp + 8, &saved_lr);
	saved_fp = arm64_strip(w, saved_fp);
	saved_lr = arm64_strip(w, saved_lr);

	enum arm64_record own = record ? arm64_record_of(w, s->callee) : ARM64_RECORD_UNKNOWN;
	if (sw_frame_has_live_context(s->callee) && sw_reg_valid(r, ARM64_LR)) {
		uint64_t lr = arm64_strip(w, r->v[ARM64_LR]);
		/* A caller's record may hold the same return address as x30
		 * (recursion from one call site): it is the frame's own only if
		 * the code made one. */
		if (!(record && saved_lr == lr && own != ARM64_RECORD_NONE) &&
		    sw_walk_caller_by_link_register(s, out) == SW_UNWIND_OK) {
			/* The caller's sp is the frame's CFA: above sp by what
			 * the code has allocated so far (f5's `sub sp, sp,
			 * #0xbd0; str x30, [sp]` stopped on the store). */
			uint64_t cfa;
			if (sw_arm64_live_cfa(s, &cfa) && cfa >= sp)
				sw_reg_set(&out->regs, ARM64_SP, cfa);
			sw_reg_set(&out->regs, ARM64_PC, lr);
			sw_reg_set(&out->regs, ARM64_FP, fp);
			return SW_UNWIND_OK;
		}
	}
	/* AAPCS64 §6.4.6: a frame record whose saved x29 is zero is the last
	 * of the chain; its owner (thread_start, _start) has no caller. */
	if (fp == 0 && !sw_frame_has_live_context(s->callee) &&
	    s->callee->trust == SW_TRUST_FRAME_POINTER)
		return SW_UNWIND_END;
	if (!record)
		return SW_UNWIND_NO_RULE;
	/* The record must be this frame's own: code that shows it made none
	 * left a caller's in x29 (arm64_record_of). */
	if (own == ARM64_RECORD_NONE)
		return SW_UNWIND_NO_RULE;
	/* An intact record of zeros ends the chain (thread entry points and
	 * _start clear x29 and x30). */
	if (saved_lr == 0 && saved_fp == 0)
		return SW_UNWIND_END;
	/* The caller's record lies above this one, or the chain ends in NULL;
	 * and its return address names code. A record that fails either is a
	 * broken chain (FAILED): a scan from this frame must then prove its
	 * candidate by the code bytes before it, or find none (a minidump's
	 * stack without code would give runs of stale words). */
	if (saved_fp != 0 && saved_fp <= fp)
		return SW_UNWIND_FAILED;
	if (!sw_walk_is_return_address(w, saved_lr))
		return SW_UNWIND_FAILED;
	memset(out, 0, sizeof *out);
	for (unsigned i = 19; i <= 28; i++)
		if (sw_reg_valid(r, i))
			sw_reg_set(&out->regs, i, r->v[i]);
	/* The record bounds the caller's sp from below (AArch64 keeps it at
	 * a frame's bottom); where the frame's code shows how far below its
	 * CFA it put the record, the caller's sp is that CFA (zoo aarch64
	 * 5092 `nofp -O2`, stripped: f4's `stp x29, x30, [sp, #-272]!` put
	 * it 272 bytes down; from fp + 16, f2's prologue could not be read,
	 * and a scan in f4's frame took a stale return into f2). */
	uint64_t cfa;
	bool exact = sw_arm64_record_cfa(s, fp, &cfa) && cfa >= fp + 16;
	sw_reg_set(&out->regs, ARM64_PC, saved_lr);
	sw_reg_set(&out->regs, ARM64_FP, saved_fp);
	sw_reg_set(&out->regs, ARM64_SP, exact ? cfa : fp + 16);
	out->sp_exact = exact;
	return SW_UNWIND_OK;
}

/* Linux signal frames. The kernel's restorer, the vDSO's
 * __kernel_rt_sigreturn (glibc's __restore_rt is the same code), is
 *   mov x8, #0x8b (__NR_rt_sigreturn)   0xd2801168
 *   svc #0                              0xd4000001
 * and the handler returns to it with sp at the struct rt_sigframe it was
 * given (arch/arm64/kernel/signal.c):
 *   rt_sigframe { siginfo info (128 bytes); struct ucontext uc; }
 *   ucontext { uc_flags 8, uc_link 8, uc_stack 24, uc_sigmask 8,
 *              __unused[120], uc_mcontext at +176 (struct sigcontext is
 *              16-aligned) }
 *   sigcontext { fault_address 8, regs[31] at +8, sp +256, pc +264,
 *                pstate +272 }
 * so x0 is at sp + 128 + 176 + 8 = sp + 0x138, followed by x1-x30, sp, pc
 * and pstate, 8 bytes each (offsets computed from the aarch64 toolchain's
 * asm/ucontext.h and asm/sigcontext.h). Instructions are little-endian in
 * every AArch64 process (Arm ARM B2.6.2). */
enum { ARM64_SIGCONTEXT_X0 = 128 + 176 + 8 };

static const struct sw_sigframe_slot arm64_sigcontext_slots[] = {
	{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 },
	{ 8, 8 }, { 9, 9 }, { 10, 10 }, { 11, 11 }, { 12, 12 }, { 13, 13 }, { 14, 14 },
	{ 15, 15 }, { 16, 16 }, { 17, 17 }, { 18, 18 }, { 19, 19 }, { 20, 20 }, { 21, 21 },
	{ 22, 22 }, { 23, 23 }, { 24, 24 }, { 25, 25 }, { 26, 26 }, { 27, 27 }, { 28, 28 },
	{ ARM64_FP, 29 }, { ARM64_LR, 30 }, { ARM64_SP, 31 }, { ARM64_PC, 32 },
	{ ARM64_CPSR, 33 },
};

static enum sw_unwind_status arm64_caller_of_signal_frame(const struct sw_step *s,
                                                          struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	uint64_t code[2];
	if (!sw_reg_valid(r, ARM64_SP) ||
	    !sw_sigframe_read_fields(w, arm64_strip(w, s->callee->pc), 4, false, 2, code) ||
	    code[0] != 0xd2801168u || code[1] != 0xd4000001u)
		return SW_UNWIND_NO_RULE;
	uint64_t sp = r->v[ARM64_SP];
	if (sp > UINT64_MAX - ARM64_SIGCONTEXT_X0)
		return SW_UNWIND_FAILED;
	return sw_sigframe_restore(w, sp + ARM64_SIGCONTEXT_X0, 8, arm64_sigcontext_slots,
	                           sizeof arm64_sigcontext_slots / sizeof arm64_sigcontext_slots[0],
	                           out);
}

const struct sw_arch sw_arch_arm64 = {
	.name = "arm64",
	.cpu = SW_CPU_ARM64,
	.word_size = 8,
	.nregs = sizeof arm64_reg_names / sizeof arm64_reg_names[0],
	.reg_names = arm64_reg_names,
	.text_names = arm64_text_names,
	.json_names = arm64_text_names, /* rust-minidump spells them so too */
	.pc = ARM64_PC,
	.sp = ARM64_SP,
	.fp = ARM64_FP,
	.ra = ARM64_LR,
	/* AAPCS64 §6.1.1: x19-x29 and sp are callee-saved. */
	.callee_saved = (0x7ffull << 19) | (1ull << ARM64_SP),
	.print_order = arm64_print_order,
	.nprint = sizeof arm64_print_order,
	.dwarf_regs = arm64_dwarf_regs,
	.ndwarf_regs = sizeof arm64_dwarf_regs,
	.call_site = arm64_call_site,
	.printed_address = sw_frame_call_site_address,
	.strip_code_pointer = arm64_strip,
	.pc_is_plausible = arm64_pc_plausible,
	.caller_of_signal_frame = arm64_caller_of_signal_frame,
	.caller_by_frame_pointer = arm64_caller_by_frame_pointer,
	.caller_by_prologue = sw_arm64_caller_by_prologue,
	.call_precedes = arm64_call_precedes,
	.after_scan = arm64_after_scan,
	.call_target = arm64_call_target,
	.slot_fits_call = arm64_slot_fits_call,
	.falls_through = arm64_falls_through,
	.jumps_into_module = arm64_jumps_into_module,
	.call_reaches = arm64_call_reaches,
	.call_never_made = arm64_call_never_made,
};
