/* PowerPC: 32-bit (System V ABI PowerPC Processor Supplement; Darwin) and
 * 64-bit (ELFv1 big-endian, ELFv2 little- and big-endian), in the byte
 * order of the snapshot.
 *
 * Register numbers 0-31 are r0-r31 (r1 = sp); srr0 (the pc), lr, ctr, cr
 * and xer follow. DWARF numbers r0-r31 = 0-31, lr = 65, ctr = 66 (64-bit
 * ELF ABI §3.4 / ELFv2 §2.4, and GCC's .eh_frame and .debug_frame on ppc32).
 *
 * There is no frame pointer: every frame starts with the back chain, so
 * callers come from the r1 chain (Breakpad's "frame pointer" on PowerPC),
 * from the context frame's live link register, and from a scan validated
 * by decoding bl/bctrl/blrl. */
#include "registry.h"

#include <stdlib.h>
#include <string.h>

#include "lib/walker.h"
#include "same_function.h"
#include "signal_frame.h"

enum { PPC_SP = 1, PPC_SRR0 = 32, PPC_LR = 33, PPC_CTR = 34, PPC_CR = 35, PPC_XER = 36, PPC_NREGS = 37 };

static const char *const ppc_reg_names[PPC_NREGS] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
	"r11", "r12", "r13", "r14", "r15", "r16", "r17", "r18", "r19", "r20",
	"r21", "r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29", "r30",
	"r31", "srr0", "lr", "ctr", "cr", "xer",
};

static const uint8_t ppc_print_order[] = { PPC_SRR0, PPC_SP };

#define NONE8 -1, -1, -1, -1, -1, -1, -1, -1
static const int8_t ppc_dwarf_regs[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	NONE8, NONE8, NONE8, NONE8, /* 32-63: f0-f31 */
	-1,                         /* 64: cr (ELFv2) */
	PPC_LR, PPC_CTR,            /* 65, 66 */
};
#undef NONE8

/* Every instruction is 4 bytes: the call is the word before the return
 * address (Breakpad's ppc walker; its ppc64 one subtracts 8, believing
 * ppc64 instructions to be 8 bytes long). */
static uint64_t ppc_call_site(uint64_t ra)
{
	return ra - 4;
}

static uint64_t ppc_strip(const struct sw_walk *w, uint64_t addr)
{
	return w->arch->word_size == 4 ? addr & 0xffffffffu : addr;
}

static bool ppc32_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && pc <= 0xffffffffu && (pc & 3) == 0;
}

static bool ppc64_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && (pc & 3) == 0;
}

/* ---- the call check ---------------------------------------------------- */

/* Branches that set LR to the next instruction (Power ISA v3.1 Book I
 * §2.4, LK = 1):
 *   bl, bla            I-form, primary opcode 18
 *   bcl, bcla          B-form, opcode 16 (conditional calls), except a
 *                      branch to the next instruction: `bcl 20,31,$+4` is
 *                      how 32-bit PIC code reads its own address
 *   bclrl (blrl)       XL-form, opcode 19, extended opcode 16
 *   bcctrl (bctrl)     XL-form, opcode 19, extended opcode 528
 *   bctarl             XL-form, opcode 19, extended opcode 560 (v2.07) */
static bool ppc_insn_is_call(uint32_t insn)
{
	if ((insn & 1) == 0)
		return false;
	switch (insn >> 26) {
	case 18:
		return true;
	case 16:
		return (insn & 0xfffeu) != 4; /* BD = 1 word, AA = 0: to ra */
	case 19: {
		uint32_t xo = (insn >> 1) & 0x3ffu;
		return xo == 16 || xo == 528 || xo == 560;
	}
	default:
		return false;
	}
}

static bool ppc_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	*known = true;
	if (ra & 3)
		return false;
	uint8_t b[4];
	if (ra < 4 || !sw_walk_read(w, ra - 4, b, sizeof b)) {
		*known = false;
		return true;
	}
	/* Code is in the data byte order on PowerPC (little-endian mode swaps
	 * instruction fetches too). */
	uint32_t insn = w->snap->sys.big_endian
	                ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
	                : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return ppc_insn_is_call(insn);
}

/* ---- the back chain ---------------------------------------------------- */

/* Where a function saves its return address: in its caller's frame, at a
 * fixed offset from the caller's sp (the back chain):
 *   ppc32 System V (Linux): 4   (SysV ABI PPC supplement, "Stack Frame")
 *   ppc32 Darwin:           8   (its linkage area: back chain, CR, LR)
 *   ppc64 ELFv1, ELFv2:     16  (ELFv1 §3.2.2, ELFv2 §2.2.2.1; Darwin too) */
static unsigned ppc_lr_save_offset(const struct sw_walk *w)
{
	if (w->arch->word_size == 8)
		return 16;
	return w->snap->sys.os == SW_OS_MACOS ? 8 : 4;
}

/* A NULL return address ends the chain; Darwin puts 1 in the outermost
 * frame's slot (Breakpad's observation). */
static bool ppc_is_null_return(const struct sw_walk *w, uint64_t ra)
{
	return ra == 0 || (ra == 1 && w->snap->sys.os == SW_OS_MACOS);
}

/* The LI field of an I-form branch (bits 6-29), sign-extended, in bytes. */
static int64_t sext_li(uint32_t insn)
{
	uint32_t li = insn & 0x03fffffcu;
	return (li & 0x02000000u) ? (int64_t)li - 0x04000000 : (int64_t)li;
}

static bool ppc_read_insn(const struct sw_walk *w, uint64_t addr, uint32_t *insn)
{
	uint8_t b[4];
	if (!sw_walk_read(w, addr, b, sizeof b))
		return false;
	/* Code is in the data byte order on PowerPC. */
	*insn = w->snap->sys.big_endian
	        ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
	        : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return true;
}

/* How far past a call's target the code is followed to pc. */
enum { PPC_MAX_ENTERED = 4096 };

/* Does the code from `target` run on to pc, with nothing that may end a
 * function between (ppc_call_entered_pc_function)? */
static bool ppc_runs_on_to(const struct sw_walk *w, uint64_t target, uint64_t pc, uint64_t mask)
{
	for (uint64_t a = target; a < pc; a += 4) {
		uint32_t i;
		if (!ppc_read_insn(w, a, &i))
			return false;
		if (i == 0x4e800020u || i == 0x4e800420u || i == 0x7fe00008u) /* blr, bctr, trap */
			return false;
		if ((i & 0xfc000003u) == 0x48000000u) { /* b */
			uint64_t to = (a + (uint64_t)sext_li(i)) & mask;
			if (to < target || to > pc)
				return false;
		}
	}
	return true;
}

/* The function at `target` ends in a tail call below its start: the first
 * `b` met that leaves it downwards (no blr, bctr or trap before it);
 * *to is where it leads. A `b` forward may stay inside the function: no
 * answer then. */
static bool ppc_tail_branch_below(const struct sw_walk *w, uint64_t target, uint64_t mask,
                                  uint64_t *to)
{
	for (uint64_t a = target; a - target < PPC_MAX_ENTERED; a += 4) {
		uint32_t i;
		if (!ppc_read_insn(w, a, &i) || i == 0x4e800020u || i == 0x4e800420u || i == 0x7fe00008u)
			return false;
		if ((i & 0xfc000003u) == 0x48000000u) {
			*to = (a + (uint64_t)sext_li(i)) & mask;
			return *to < target;
		}
	}
	return false;
}

/* The target of the call before lr: a direct bl's, or a bctrl's that
 * ctr still holds (0: not known). *site is the call's address. */
static bool ppc_call_target(const struct sw_walk *w, uint64_t lr, uint64_t ctr, uint64_t *site,
                            uint64_t *target)
{
	uint32_t call;
	uint64_t mask = w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	*site = ppc_call_site(lr);
	if (lr < 4 || !ppc_read_insn(w, *site, &call))
		return false;
	if ((call & 0xfc000003u) == 0x48000001u)
		*target = (*site + (uint64_t)sext_li(call)) & mask;
	else if (call == 0x4e800421u && ctr != 0) /* bctrl */
		*target = ctr & mask;
	else
		return false;
	return true;
}

/* Does the call at `site`, to `target`, lie outside [target, pc] with pc
 * at most PPC_MAX_ENTERED past the target? */
static bool ppc_target_below_pc(uint64_t site, uint64_t target, uint64_t pc)
{
	return target <= pc && pc - target <= PPC_MAX_ENTERED && !(site >= target && site <= pc);
}

/* Where the call before lr led, when that lies at or below pc within
 * PPC_MAX_ENTERED with the call site outside [entry, pc] (*entry): the
 * call's target (a direct bl's, or a bctrl's that the live ctr still
 * holds, `ctr`, 0 when not known), or, for a target above pc that ends
 * in a tail branch below itself, where that branch leads (zoo ppc64le
 * 1034: main's bl f2, f2's b f3, the crash in f3). It is where the
 * function lr's caller entered may start: ppc_call_entered_pc_function
 * proves pc in it, and ppc_frame_at_pc follows every path from it to pc
 * (a path that reaches pc shows pc in that code; a jump past pc to the
 * function's epilogue, which ppc_call_entered_pc_function cannot prove
 * harmless, is followed there: zoo ppc64le 1136, an -O0 comparator that
 * branches to its epilogue after the crash's block). */
static bool ppc_call_led_below_pc(const struct sw_walk *w, uint64_t lr, uint64_t pc,
                                  uint64_t ctr, uint64_t *entry)
{
	uint64_t site, target, mask = w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	if (!ppc_call_target(w, lr, ctr, &site, &target))
		return false;
	for (unsigned hop = 0; hop < 2; hop++) {
		if (ppc_target_below_pc(site, target, pc)) {
			*entry = target;
			return true;
		}
		if (hop == 1 || !ppc_tail_branch_below(w, target, mask, &target))
			return false;
	}
	return false;
}

/* Did the call before lr enter the function pc is in, by the code alone?
 * The call must be a direct `bl` (I-form, opcode 18, AA = 0, LK = 1:
 * Power ISA Book I §2.4), or a `bctrl` whose target the live ctr still
 * holds (a leaf rarely uses ctr, and an indirect call's target stays
 * there), leading to an entry T with T <= pc (ppc_call_led_below_pc), and
 * the code from T to pc must hold nothing that may end a function: blr
 * and bctr (a return, an indirect tail call), trap, or a `b` leaving [T,
 * pc] (a tail call; a jump forward within the function past pc also
 * counts, which only costs the proof). Functions are laid out
 * contiguously, so pc then lies in the function the call entered (ELFv2's
 * local entry point included). A call left over from the frame's own
 * earlier call went to another function, which returned: laid out below
 * pc its return, or its tail call, lies between. The call site itself
 * must lie outside [T, pc]: a call from the frame's own function to its
 * own entry (recursion) would pass too. */
static bool ppc_call_entered_pc_function(const struct sw_walk *w, uint64_t lr, uint64_t pc,
                                         uint64_t ctr, uint64_t *entry)
{
	uint64_t mask = w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	return ppc_call_led_below_pc(w, lr, pc, ctr, entry) && ppc_runs_on_to(w, *entry, pc, mask);
}

/* The falls_through hook (lib/arch.h): nothing in [from, to) ends the
 * flow: no unconditional branch (b, or bc/bclr/bcctr with BO "branch
 * always", Power ISA Book I §2.4) that does not link, and no trap. A
 * live lr that runs straight on to pc is the frame's own earlier call's
 * return (zoo ppc64le 102: f4's return from side2, with its own frame
 * above). */
static bool ppc_falls_through(const struct sw_walk *w, uint64_t from, uint64_t to)
{
	if (to <= from || (from & 3) != 0 || (to & 3) != 0 || to - from > PPC_MAX_ENTERED)
		return false;
	for (uint64_t a = from; a < to; a += 4) {
		uint32_t i;
		if (!ppc_read_insn(w, a, &i))
			return false;
		unsigned op = i >> 26, bo = (i >> 21) & 31, xo = (i >> 1) & 0x3ff;
		bool link = i & 1, always = (bo & 0x14) == 0x14;
		if ((op == 18 && !link) || (op == 16 && always && !link) ||
		    (op == 19 && (xo == 16 || xo == 528 || xo == 560) && always && !link) ||
		    i == 0x7fe00008u)
			return false;
	}
	return true;
}

/* The caller of a frame whose registers are live (frame 0, a signal frame)
 * may be in lr: its function is a leaf, or has not saved lr yet. Whether
 * it is, the frame's own slot ([back chain + offset]) does not say for
 * sure, since a leaf leaves it unwritten (holding whatever an earlier
 * callee of the caller saved there) and a function that made calls leaves
 * lr pointing back into itself. So lr is taken when
 *  - its call site lies in another function than the frame's pc (by the
 *    symbols, or another module): it is no leftover of the frame's calls;
 *  - no symbols tell, but the code does: the call before lr entered the
 *    function pc is in (ppc_call_entered_pc_function). A leaf that made
 *    no frame leaves r1 at its caller's frame, whose back chain and slot
 *    then name the caller's caller: the slot is no evidence here;
 *  - nothing tells, and the slot holds no return address: the frame has not
 *    saved one, so lr still holds it.
 * Otherwise the chain decides, as Breakpad's walker always does. */
static bool ppc_lr_may_return(const struct sw_step *s, uint64_t lr, bool slot_is_return)
{
	switch (sw_arch_same_function(s->walk, ppc_call_site(lr), s->callee->lookup_pc)) {
	case SW_FUNCTION_SAME: return false;
	case SW_FUNCTION_DIFFERENT: return true;
	case SW_FUNCTION_UNKNOWN: break;
	}
	const struct sw_regs *r = &s->callee->regs;
	uint64_t ctr = sw_reg_valid(r, PPC_CTR) ? ppc_strip(s->walk, r->v[PPC_CTR]) : 0;
	uint64_t entry;
	return ppc_call_entered_pc_function(s->walk, lr, s->callee->pc, ctr, &entry) ||
	       !slot_is_return;
}

/* May the instruction write r1 (Power ISA v3.1 Book I: the target field
 * of each form)? True when it does or may, and for anything not known:
 *   RT (bits 6-10) is the target of the D- and DS-form arithmetic and
 *   loads, of mfspr and most X-forms; RA (bits 11-15) of the D-form and
 *   X-form logical ops, the rotates and shifts, and of every update form
 *   (lwzu, stwu, ldu, stdu, lfdu, ...). Comparisons, branches, traps,
 *   stores without update, mtspr and FP/vector arithmetic write no GPR. */
static bool ppc_may_write_r1(uint32_t i)
{
	unsigned op = i >> 26, rt = (i >> 21) & 31, ra = (i >> 16) & 31, xo = (i >> 1) & 0x3ff;
	switch (op) {
	case 7: case 8: case 12: case 13: case 14: case 15:   /* mulli subfic addic(.) addi(s) */
	case 32: case 34: case 40: case 42:                   /* lwz lbz lhz lha */
		return rt == 1;
	case 46:                                              /* lmw: rt..r31 */
		return rt <= 1;
	case 33: case 35: case 41: case 43:                   /* lwzu lbzu lhzu lhau */
		return rt == 1 || ra == 1;
	case 37: case 39: case 45: case 49: case 51: case 53: case 55: /* store/FP load with update */
		return ra == 1;
	case 36: case 38: case 44: case 47: case 48: case 50: case 52: case 54: /* stores, FP loads */
	case 2: case 3: case 10: case 11: case 16: case 17: case 18: case 19: /* traps, cmp, branches, sc, CR */
	case 59: case 63:                                     /* FP arithmetic */
		return false;
	case 20: case 21: case 23: case 24: case 25: case 26: case 27: case 28: case 29: case 30:
		return ra == 1;                                   /* rotates, D-form logical */
	case 58:                                              /* ld, ldu, lwa */
		return rt == 1 || ((i & 3) == 1 && ra == 1);
	case 62:                                              /* std, stdu, stq */
		return (i & 3) == 1 && ra == 1;
	case 31:
		switch (xo) {
		case 28: case 60: case 124: case 284: case 316: case 412: case 444: case 476: /* logical */
		case 24: case 27: case 536: case 539: case 792: case 794: case 824: /* shifts */
		case 26: case 58: case 922: case 954: case 986:   /* cntlz, extend */
			return ra == 1;
		case 0: case 32: case 4: case 68:                 /* cmp, cmpl, tw, td */
		case 149: case 151: case 215: case 407: case 663: case 727: /* stores indexed */
		case 150: case 214: case 467: case 144:           /* stwcx. stdcx. mtspr mtcrf */
			return false;
		default:
			return rt == 1 || ra == 1;
		}
	default:
		return true;
	}
}

/* What the function entered at `entry` did to r1 by pc, on every path
 * from its entry to pc (ppc_frame_at_pc). */
enum ppc_frame_kind {
	PPC_FRAME_UNKNOWN, /* the paths disagree, or the code does not show */
	PPC_FRAME_NONE,    /* r1 untouched: it is the caller's sp */
	PPC_FRAME_FIXED,   /* one allocation `stdu r1, -N(r1)`: [r1] = r1 + N */
	PPC_FRAME_DYNAMIC, /* that, then more with update (alloca's `stdux`) */
};

/* The phases of a path through the code (ppc_frame_at_pc). */
enum { PPC_PATH_NONE, PPC_PATH_FIXED, PPC_PATH_DYNAMIC, PPC_PATH_LOST };

/* How much code ppc_frame_at_pc follows, in instructions, from the entry. */
enum { PPC_FRAME_WINDOW = (PPC_MAX_ENTERED + 1024) / 4 };

struct ppc_paths {
	const struct sw_walk *w;
	uint64_t entry, mask;
	uint32_t insn[PPC_FRAME_WINDOW];
	uint8_t seen[PPC_FRAME_WINDOW];   /* phases pushed (bits 0-3); bit 7: insn read */
	uint16_t todo[PPC_FRAME_WINDOW * 4];
	unsigned ntodo;
	uint8_t at_pc;                    /* the phases that may reach pc */
	bool bctr_reaches_pc;             /* set by the caller: may a bctr lead to pc? */
};

static void ppc_paths_push(struct ppc_paths *p, uint64_t addr, unsigned phase)
{
	uint64_t i = (addr - p->entry) / 4;
	if (!(p->seen[i] & (1u << phase))) {
		p->seen[i] |= (uint8_t)(1u << phase);
		p->todo[p->ntodo++] = (uint16_t)(i << 2 | phase);
	}
}

/* Every path from `entry` (the start the symbols give, or the target of
 * the call that entered pc's function), followed through both ways of each
 * conditional branch (Power ISA v3.1 Book I §2.4: I-form b, B-form bc with
 * BO "branch always" when (BO & 0x14) == 0x14, XL-form bclr/bcctr/bctar;
 * a branch that links returns to the next instruction), is tracked in one
 * of four phases: no frame yet; one allocation with update of r1 (`stdu
 * r1, -N(r1)`, `stwu` on ppc32: the ABI's frame, whose back chain [r1] is
 * the caller's sp); more allocations with update after it (alloca's `stdux
 * rS, r1, rB`, which store the back chain again: zoo ppc64le 1073, where
 * the leaf f5's alloca came just before the crash); or r1 written any
 * other way (an epilogue's `addi r1, r1, N`: lost). The answer is the phase
 * every path reaching pc is in, when they agree on one other than lost.
 * An indirect jump (bctr) may lead anywhere: from a path holding a frame
 * (a switch), to pc too in that phase (where p->bctr_reaches_pc says so);
 * from a lost one it is a tail call.
 * A return, a trap or a tail jump out of the code (with no frame held)
 * ends a path, and so does the end of the code followed (a function
 * that does not return runs on into the next one); a path leaving with
 * a frame held (a cold part, which may jump back) makes the answer
 * unknown. Epilogues that r1 passes through before pc in the address
 * order (zoo ppc64le 1077: f8's early return above the crash's block)
 * matter only where a path goes on from them to pc. */
static enum ppc_frame_kind ppc_frame_at_pc(struct ppc_paths *p, const struct sw_walk *w,
                                           uint64_t entry, uint64_t pc, uint64_t *fixed)
{
	const bool wide = w->arch->word_size == 8;
	if (entry > pc || pc - entry >= PPC_MAX_ENTERED || (entry & 3) || (pc & 3))
		return PPC_FRAME_UNKNOWN;
	p->w = w;
	p->entry = entry;
	p->mask = wide ? UINT64_MAX : 0xffffffffu;
	p->ntodo = 0;
	p->at_pc = 0;
	memset(p->seen, 0, sizeof p->seen);
	*fixed = 0;
	ppc_paths_push(p, entry, PPC_PATH_NONE);
	while (p->ntodo > 0) {
		unsigned item = p->todo[--p->ntodo], idx = item >> 2, phase = item & 3;
		uint64_t a = entry + 4u * idx;
		if (a == pc)
			p->at_pc |= (uint8_t)(1u << phase);
		if (!(p->seen[idx] & 0x80)) {
			if (!ppc_read_insn(w, a, &p->insn[idx])) {
				if (a < pc)
					return PPC_FRAME_UNKNOWN;
				continue; /* the code captured ends past pc */
			}
			p->seen[idx] |= 0x80;
		}
		uint32_t i = p->insn[idx];
		unsigned op = i >> 26, xo = (i >> 1) & 0x3ff, bo = (i >> 21) & 31;
		bool update_r1 = ((i & 0xffff0003u) == 0xf8210001u && wide) ||  /* stdu r1, d(r1) */
		                 ((i & 0xffff0000u) == 0x94210000u && !wide) ||  /* stwu r1, d(r1) */
		                 (op == 31 && ((i >> 16) & 31) == 1 &&
		                  ((xo == 181 && wide) || (xo == 183 && !wide))); /* stdux, stwux */
		if (update_r1 && phase == PPC_PATH_NONE && op != 31) {
			int64_t d = (int16_t)(i & (wide ? 0xfffcu : 0xffffu));
			if (d >= 0 || (*fixed != 0 && *fixed != (uint64_t)-d))
				return PPC_FRAME_UNKNOWN;
			*fixed = (uint64_t)-d;
			phase = PPC_PATH_FIXED;
		} else if (update_r1 && (phase == PPC_PATH_FIXED || phase == PPC_PATH_DYNAMIC)) {
			phase = PPC_PATH_DYNAMIC;
		} else if (ppc_may_write_r1(i)) {
			phase = PPC_PATH_LOST;
		}
		bool link = i & 1, always = (bo & 0x14) == 0x14, next = true;
		uint64_t to = 0;
		bool direct = false;
		if (op == 18 || op == 16) {
			if (i & 2)
				return PPC_FRAME_UNKNOWN; /* absolute: not in this code */
			to = (a + (uint64_t)(op == 18 ? sext_li(i)
			                              : (int64_t)(int16_t)(i & 0xfffcu))) & p->mask;
			direct = !link;
			next = link || (op == 16 && !always);
		} else if (op == 19 && xo == 16 && !link) {         /* bclr: a return */
			next = !always;
		} else if (op == 19 && (xo == 528 || xo == 560) && !link) { /* bcctr, bctar */
			if (phase != PPC_PATH_LOST && p->bctr_reaches_pc)
				p->at_pc |= (uint8_t)(1u << phase);
			next = !always;
		} else if (i == 0x7fe00008u) {                     /* trap */
			next = false;
		}
		if (direct) {
			if (to >= entry && to < entry + 4u * PPC_FRAME_WINDOW)
				ppc_paths_push(p, to, phase);
			else if (phase == PPC_PATH_FIXED || phase == PPC_PATH_DYNAMIC)
				return PPC_FRAME_UNKNOWN; /* leaves with its frame: may come back */
		}
		if (next && idx + 1 < PPC_FRAME_WINDOW)
			ppc_paths_push(p, a + 4, phase);
	}
	switch (p->at_pc) {
	case 1u << PPC_PATH_NONE: return PPC_FRAME_NONE;
	case 1u << PPC_PATH_FIXED: return PPC_FRAME_FIXED;
	case 1u << PPC_PATH_DYNAMIC:
	case 1u << PPC_PATH_FIXED | 1u << PPC_PATH_DYNAMIC: return PPC_FRAME_DYNAMIC;
	default: return PPC_FRAME_UNKNOWN;
	}
}

/* The caller's sp of a live frame that returns to lr, when the code of
 * the function entered at `entry` shows it: r1 itself for a function that
 * made no frame by pc; the back chain for one that made its own, checked
 * against the allocation (sp + N for a fixed frame; above the fixed part
 * after an alloca). False when the code does not tell. */
static bool ppc_caller_sp_by_code(const struct sw_walk *w, uint64_t entry, uint64_t pc,
                                  uint64_t sp, uint64_t *caller_sp)
{
	struct ppc_paths *p = malloc(sizeof *p);
	if (p == NULL)
		return false;
	uint64_t fixed, bc;
	p->bctr_reaches_pc = true;
	enum ppc_frame_kind kind = ppc_frame_at_pc(p, w, entry, pc, &fixed);
	free(p);
	switch (kind) {
	case PPC_FRAME_NONE:
		*caller_sp = sp;
		return true;
	case PPC_FRAME_FIXED:
	case PPC_FRAME_DYNAMIC:
		if (sp > UINT64_MAX - fixed || !sw_walk_read_word(w, sp, &bc) ||
		    (kind == PPC_FRAME_FIXED ? bc != sp + fixed : bc < sp + fixed) ||
		    bc % w->arch->word_size != 0)
			return false;
		*caller_sp = bc;
		return true;
	case PPC_FRAME_UNKNOWN:
		break;
	}
	return false;
}

/* Does a path from `from` reach `to`, by direct branches alone (both
 * ways of each conditional branch; ppc_frame_at_pc's paths, within
 * PPC_MAX_ENTERED)? A bctr (a switch, a linker stub's jump) proves no
 * path. */
static bool ppc_path_reaches(const struct sw_walk *w, uint64_t from, uint64_t to)
{
	struct ppc_paths *p = malloc(sizeof *p);
	if (p == NULL)
		return false;
	uint64_t fixed;
	p->at_pc = 0;
	p->bctr_reaches_pc = false;
	(void)ppc_frame_at_pc(p, w, from, to, &fixed);
	bool reached = p->at_pc != 0;
	free(p);
	return reached;
}

/* Is ra, read from a back chain's LR save slot as the callee's caller,
 * left over from the callee's own earlier call? The slot above a frame is
 * written by that frame's callees, so a frame whose r1 lies one frame too
 * low (a leaf's own frame, where no code proved one) reads its own
 * callees' return into itself there, as a live lr may hold one
 * (sw_walk_own_earlier_call: by the symbols, or the code running straight
 * from ra to the callee's pc). Only recursion puts a return into the
 * callee's function right above it, proven by a direct bl into that
 * function: by the symbols, to its global or ELFv2's local entry (the
 * walker's proof, a call to the start, knows no local entry: PowerPC has
 * no call_target hook, its calls leave a module through linker stubs it
 * does not follow); without them, to code at or below the call from
 * which a path of direct branches reaches it (zoo ppc64le 5700: f4's
 * recursion, with an early return between its entry and the call), or
 * between ra and the callee's pc (a noreturn call ending a function, to
 * the callee's, laid out next). A call through ctr proves nothing. */
static bool ppc_own_earlier_call(const struct sw_walk *w, uint64_t ra,
                                 const struct sw_frame *callee)
{
	uint64_t site, target, addr = ppc_strip(w, ra), pc = ppc_strip(w, callee->pc);
	if (!sw_walk_own_earlier_call(w, ra, callee))
		return false;
	if (!ppc_call_target(w, addr, 0, &site, &target))
		return true;
	switch (sw_arch_same_function(w, target, callee->lookup_pc)) {
	case SW_FUNCTION_SAME: return false;
	case SW_FUNCTION_DIFFERENT: return true;
	case SW_FUNCTION_UNKNOWN: break;
	}
	return !((target <= site && ppc_path_reaches(w, target, site)) ||
	         (target >= addr && target <= pc));
}

/* The back chain (SysV PPC supplement and ELFv1/ELFv2: the word at r1 is
 * the caller's r1, and always maintained):
 *   sp_caller = [sp],  pc_caller = [sp_caller + lr save offset].
 * The chain must climb; a NULL back chain (the initial frame, which the
 * kernel and the C runtime start with a NULL back chain and LR) or a NULL
 * return address in an intact chain ends the walk, unless the frame was
 * found by scanning, whose sp is only a guess.
 *
 * For a live frame, lr (see ppc_lr_may_return) gives the caller first; the
 * caller's sp is then r1 if the frame made no frame of its own (the slot
 * above holds the caller's return address into its own caller), else the
 * back chain. */
static bool ppc_is_signal_trampoline(const struct sw_walk *w, uint64_t addr);

static enum sw_unwind_status ppc_caller_by_frame_pointer(const struct sw_step *s,
                                                         struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const struct sw_regs *r = &callee->regs;
	const unsigned ws = w->arch->word_size, off = ppc_lr_save_offset(w);
	if (!sw_reg_valid(r, PPC_SP))
		return SW_UNWIND_NO_RULE;
	uint64_t sp = r->v[PPC_SP], bc = 0, ra = 0;
	bool chain = sp % ws == 0 && sw_walk_read_word(w, sp, &bc) &&
	             (bc == 0 || (bc > sp && bc % ws == 0 && sw_walk_read_word(w, bc + off, &ra)));
	bool slot_is_return = chain && bc != 0 && sw_walk_is_return_address(w, ra);

	if (sw_frame_has_live_context(callee) && sw_reg_valid(r, PPC_LR)) {
		uint64_t lr = ppc_strip(w, r->v[PPC_LR]);
		bool own_slot = chain && bc != 0 && ra == lr;
		if (!own_slot && ppc_lr_may_return(s, lr, slot_is_return) &&
		    sw_walk_caller_by_link_register(s, out) == SW_UNWIND_OK) {
			/* Which sp goes with lr: where the function pc is in
			 * is known (its symbol, or the call before lr entered
			 * it), its code says whether it made a frame by pc
			 * (ppc_caller_sp_by_code). Zoo ppc64le 1065 stripped:
			 * the leaf f8's `stdu r1, -64(r1)`; r1 kept as the
			 * caller's sp read f7's slot, where side5 had saved its
			 * return, and f7 came twice (so did f3 in zoo ppc64le
			 * 3508 stripped, whose callee f4 entered the leaf f5 by
			 * a tail branch: ppc_call_led_below_pc follows it). Zoo
			 * ppc64le 1099: the
			 * frameless leaf f6 under a recursion of f5, whose
			 * slot holds a return into f5 as f6's own would.
			 * Otherwise the slot decides: a restorer there is a
			 * handler's return (the slot of a frame above a leaf
			 * that made none); a return into another function than
			 * lr's is the caller's own return, so r1 is its sp. */
			uint64_t ctr = sw_reg_valid(r, PPC_CTR) ? ppc_strip(w, r->v[PPC_CTR]) : 0;
			uint64_t pc = ppc_strip(w, callee->pc), entry, caller_sp;
			if ((sw_walk_function_start(w, pc, &entry) ||
			     ppc_call_led_below_pc(w, lr, pc, ctr, &entry)) &&
			    ppc_caller_sp_by_code(w, entry, pc, sp, &caller_sp)) {
				sw_reg_set(&out->regs, PPC_SP, caller_sp);
				return SW_UNWIND_OK;
			}
			/* A return into lr's function, by the symbols or (not
			 * recursion) by its code, is one of its callees'
			 * returns: the slot above lr's frame, at bc. */
			const struct sw_frame lr_frame = { .pc = lr, .lookup_pc = ppc_call_site(lr),
			                                   .trust = SW_TRUST_FRAME_POINTER,
			                                   .module = -1, .unloaded_module = -1 };
			if (chain && bc != 0 && !ppc_is_signal_trampoline(w, ra) &&
			    (!slot_is_return ||
			     sw_arch_same_function(w, ppc_call_site(ra), ppc_call_site(lr)) ==
			             SW_FUNCTION_SAME ||
			     ppc_own_earlier_call(w, ra, &lr_frame)))
				sw_reg_set(&out->regs, PPC_SP, bc);
			return SW_UNWIND_OK;
		}
	}
	if (!chain)
		return SW_UNWIND_NO_RULE;
	if (bc == 0 || ppc_is_null_return(w, ra))
		return callee->trust == SW_TRUST_SCAN ? SW_UNWIND_NO_RULE : SW_UNWIND_END;
	/* A signal handler's slot holds the restorer's address (qemu-user's
	 * page is in no module), which no call precedes: its caller all the
	 * same, where the slot is the frame's own. A live frame's may be its
	 * caller's (a leaf that made no frame, called by the handler): it is
	 * the frame's own when lr is left over from a call the frame made (the
	 * code runs straight from lr to pc), so that it has a frame. */
	bool live = sw_frame_has_live_context(callee);
	if (!slot_is_return &&
	    !(ppc_is_signal_trampoline(w, ra) &&
	      (!live || (sw_reg_valid(r, PPC_LR) &&
	                 ppc_falls_through(w, ppc_strip(w, r->v[PPC_LR]), ppc_strip(w, callee->pc))))))
		return SW_UNWIND_NO_RULE;
	/* A return into the callee's own function, from its earlier call, is
	 * no caller (zoo ppc64le 3508 stripped: f3 twice, its r1 one frame
	 * low): the scan, which refuses the same word, tries above. */
	if (ppc_own_earlier_call(w, ra, callee))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, PPC_SRR0, ra);
	sw_reg_set(&out->regs, PPC_SP, bc);
	return SW_UNWIND_OK;
}

/* The scan starts above the frame's own header (back chain and the slot its
 * callees save their return addresses in): a return address found there is
 * a leftover of the frame's own calls. */
static enum sw_unwind_status ppc_caller_by_scan(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	if (!sw_reg_valid(&s->callee->regs, PPC_SP))
		return SW_UNWIND_NO_RULE;
	uint64_t from = s->callee->regs.v[PPC_SP] + ppc_lr_save_offset(w) + w->arch->word_size;
	return sw_walk_caller_by_scan(s, &from, out);
}

/* A return address found in `slot` was saved at [sp_caller + offset]: the
 * caller's sp (its back chain word) is offset below the slot. */
static void ppc_after_scan(const struct sw_step *s, uint64_t slot, struct sw_caller *out)
{
	sw_reg_set(&out->regs, PPC_SP, slot - ppc_lr_save_offset(s->walk));
}

/* ---- signal frames ------------------------------------------------------
 *
 * Linux's restorers (arch/powerpc/kernel/vdso/sigtramp32.S and
 * sigtramp64.S; the older kernels' trampoline on the stack, and qemu-user's
 * in a page of its own, setup_sigtramp in linux-user/ppc/signal.c) are
 *   li r0, NR     0x38000000 | NR: 119 sigreturn, 172 rt_sigreturn
 *   sc            0x44000002
 * Since Linux 5.11 the 64-bit vDSO calls the handler itself, which returns
 * to __kernel_sigtramp_rt64 one instruction earlier:
 *   addi r1, r1, __SIGNAL_FRAMESIZE (128)   0x38210080
 * The handler returns with r1 where the kernel left it, __SIGNAL_FRAMESIZE
 * below the frame (plus 16 for 32-bit rt frames, signal_32.c), and each
 * frame holds a pointer to the saved registers, the one the vDSO's CFI
 * follows (its PTREGS), at
 *   ppc64 rt_sigframe { ucontext uc (its sigcontext at +168); ... }:
 *       r1 + 128 + 168 + 56, sigcontext.regs (signal_64.c)
 *   ppc32 rt_sigframe { siginfo (128 bytes); ucontext uc; ... }:
 *       r1 + 64 + 16 + 128 + 48, uc.uc_regs
 *   ppc32 sigframe { sigcontext sctx; mcontext mctx; ... }:
 *       r1 + 64 + 28, sctx.regs
 * qemu-user 7.2 places the ppc64 frame 16 bytes higher, as its ppc32 one
 * (seen in testdata/cores/ppc64le-*: sigcontext.regs at r1 + 368).
 *
 * The pointer must point where the layout puts the registers: to
 * sigcontext.gp_regs, the word after it, on ppc64; to uc.uc_mcontext
 * (uc + 192) or to sctx's mcontext (sctx + 32) on ppc32. That it does is
 * the proof of the layout. The register block is a pt_regs (asm/ptrace.h,
 * uapi): gpr[32], nip, msr, orig_gpr3, ctr, link, xer, ccr, one word
 * each.
 *
 * The vDSO's own CFI describes the same frame (CIE augmentation "zRS",
 * the return address in column 67, "ap", every register an expression
 * through PTREGS): the walker's CFI path reads the pc from that column
 * though it is none of our registers. This rule is asked first and
 * restores more (ctr and xer, which that CFI leaves out), and it also
 * covers the trampolines no CFI describes (qemu's page, the stack). */
enum {
	PPC_INSN_LI_R0 = 0x38000000u,
	PPC_INSN_SC = 0x44000002u,
	PPC_INSN_ADDI_R1_128 = 0x38210080u,
	PPC_NR_SIGRETURN = 119,
	PPC_NR_RT_SIGRETURN = 172,
	PPC64_SIGNAL_FRAMESIZE = 128,
	PPC64_RT_REGS_PTR = PPC64_SIGNAL_FRAMESIZE + 168 + 56,
	PPC64_QEMU_SHIFT = 16,
	PPC32_RT_UC = 64 + 16 + 128,
	PPC32_RT_REGS_PTR = PPC32_RT_UC + 48,
	PPC32_RT_MCONTEXT = PPC32_RT_UC + 192,
	PPC32_SIG_REGS_PTR = 64 + 28,
	PPC32_SIG_MCONTEXT = 64 + 32,
	PT_NIP = 32, PT_CTR = 35, PT_LNK = 36, PT_XER = 37, PT_CCR = 38,
};

static const struct sw_sigframe_slot ppc_pt_regs_slots[] = {
	{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 },
	{ 8, 8 }, { 9, 9 }, { 10, 10 }, { 11, 11 }, { 12, 12 }, { 13, 13 }, { 14, 14 },
	{ 15, 15 }, { 16, 16 }, { 17, 17 }, { 18, 18 }, { 19, 19 }, { 20, 20 }, { 21, 21 },
	{ 22, 22 }, { 23, 23 }, { 24, 24 }, { 25, 25 }, { 26, 26 }, { 27, 27 }, { 28, 28 },
	{ 29, 29 }, { 30, 30 }, { 31, 31 },
	{ PPC_SRR0, PT_NIP }, { PPC_CTR, PT_CTR }, { PPC_LR, PT_LNK }, { PPC_XER, PT_XER },
	{ PPC_CR, PT_CCR },
};

/* Does a restorer begin at addr (li r0, NR; sc, or the 64-bit vDSO's
 * addi r1, r1, 128 before them), where a handler returns? *nr is its
 * system call, *addi_first whether the addi comes first. */
static bool ppc_restorer_at(const struct sw_walk *w, uint64_t addr, unsigned *nr,
                            bool *addi_first)
{
	uint64_t code[3];
	const bool be = w->snap->sys.big_endian;
	if ((addr & 3) != 0 || addr > UINT64_MAX - 12 ||
	    !sw_sigframe_read_fields(w, addr, 4, be, 2, code))
		return false;
	*addi_first = w->arch->word_size == 8 && code[0] == PPC_INSN_ADDI_R1_128;
	if (*addi_first && !sw_sigframe_read_fields(w, addr + 8, 4, be, 1, &code[2]))
		return false;
	const uint64_t *li = *addi_first ? &code[1] : &code[0];
	*nr = (unsigned)(li[0] & 0xffffu);
	return (li[0] & 0xffff0000u) == PPC_INSN_LI_R0 && li[1] == PPC_INSN_SC &&
	       (*nr == PPC_NR_SIGRETURN || *nr == PPC_NR_RT_SIGRETURN);
}

static bool ppc_is_signal_trampoline(const struct sw_walk *w, uint64_t addr)
{
	unsigned nr;
	bool addi_first;
	return ppc_restorer_at(w, addr, &nr, &addi_first);
}

/* The word at addr (a pointer of the frame) when it equals want. */
static bool ppc_regs_pointer_is(const struct sw_walk *w, uint64_t addr, uint64_t want)
{
	uint64_t v;
	return sw_sigframe_read_fields(w, addr, w->arch->word_size, w->snap->sys.big_endian, 1,
	                               &v) &&
	       v == want;
}

static enum sw_unwind_status ppc_caller_of_signal_frame(const struct sw_step *s,
                                                        struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	const unsigned ws = w->arch->word_size;
	const bool be = w->snap->sys.big_endian;
	uint64_t pc = ppc_strip(w, s->callee->pc), before = 0;
	unsigned nr;
	bool addi_first;
	if (!sw_reg_valid(r, PPC_SP) || !ppc_restorer_at(w, pc, &nr, &addi_first))
		return SW_UNWIND_NO_RULE;
	uint64_t sp = r->v[PPC_SP];
	/* At the vDSO's addi, r1 is still the handler's (where the handler
	 * returns to); a live context stopped at the li just after it has r1
	 * at the frame already. */
	if (!addi_first && ws == 8 && sw_frame_has_live_context(s->callee) && pc >= 4 &&
	    sw_sigframe_read_fields(w, pc - 4, 4, be, 1, &before) && before == PPC_INSN_ADDI_R1_128)
		sp -= PPC64_SIGNAL_FRAMESIZE;
	if (sp > UINT64_MAX - 4096)
		return SW_UNWIND_FAILED;
	uint64_t regs;
	if (ws == 8 && nr == PPC_NR_RT_SIGRETURN) {
		uint64_t at = sp + PPC64_RT_REGS_PTR;
		if (!ppc_regs_pointer_is(w, at, at + 8)) {
			at += PPC64_QEMU_SHIFT;
			if (!ppc_regs_pointer_is(w, at, at + 8))
				return SW_UNWIND_NO_RULE;
		}
		regs = at + 8;
	} else if (ws == 4 && nr == PPC_NR_RT_SIGRETURN) {
		if (!ppc_regs_pointer_is(w, sp + PPC32_RT_REGS_PTR, sp + PPC32_RT_MCONTEXT))
			return SW_UNWIND_NO_RULE;
		regs = sp + PPC32_RT_MCONTEXT;
	} else if (ws == 4 && nr == PPC_NR_SIGRETURN) {
		if (!ppc_regs_pointer_is(w, sp + PPC32_SIG_REGS_PTR, sp + PPC32_SIG_MCONTEXT))
			return SW_UNWIND_NO_RULE;
		regs = sp + PPC32_SIG_MCONTEXT;
	} else {
		return SW_UNWIND_NO_RULE;
	}
	return sw_sigframe_restore(w, regs, ws, ppc_pt_regs_slots,
	                           sizeof ppc_pt_regs_slots / sizeof ppc_pt_regs_slots[0], out);
}

/* SysV ABI: r1 and r14-r31 are non-volatile. */
#define PPC_CALLEE_SAVED ((1ull << PPC_SP) | (0x3ffffull << 14))

/* What 32- and 64-bit PowerPC share: the rest of each struct sw_arch below. */
#define PPC_ARCH_COMMON \
	.nregs = PPC_NREGS, \
	.reg_names = ppc_reg_names, \
	.pc = PPC_SRR0, \
	.sp = PPC_SP, \
	.fp = PPC_SP, \
	.ra = PPC_LR, \
	.callee_saved = PPC_CALLEE_SAVED, \
	.print_order = ppc_print_order, \
	.nprint = sizeof ppc_print_order, \
	.dwarf_regs = ppc_dwarf_regs, \
	.ndwarf_regs = sizeof ppc_dwarf_regs, \
	.call_site = ppc_call_site, \
	.printed_address = sw_frame_call_site_address, \
	.strip_code_pointer = ppc_strip, \
	.caller_of_signal_frame = ppc_caller_of_signal_frame, \
	.is_signal_trampoline = ppc_is_signal_trampoline, \
	.falls_through = ppc_falls_through, \
	.caller_by_frame_pointer = ppc_caller_by_frame_pointer, \
	.caller_by_scan = ppc_caller_by_scan, \
	.call_precedes = ppc_call_precedes, \
	.after_scan = ppc_after_scan,

const struct sw_arch sw_arch_ppc = {
	.name = "ppc",
	.cpu = SW_CPU_PPC,
	.word_size = 4,
	.pc_is_plausible = ppc32_pc_plausible,
	PPC_ARCH_COMMON
};

const struct sw_arch sw_arch_ppc64 = {
	.name = "ppc64",
	.cpu = SW_CPU_PPC64,
	.word_size = 8,
	.pc_is_plausible = ppc64_pc_plausible,
	PPC_ARCH_COMMON
};
