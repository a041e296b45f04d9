/* MIPS: o32 (32-bit), n32 (64-bit registers, 32-bit pointers) and n64;
 * big- and little-endian (instructions are stored in the data byte order).
 *
 * Register numbers 0-31 are the general registers (their DWARF numbers,
 * MIPS psABI); hi, lo and pc follow. Callers come from CFI (the walker),
 * then prologue analysis, then Breakpad's MIPS scan. There is no
 * frame-pointer chain: the psABI fixes no frame record (where $fp, $s8,
 * points into its frame, and where the caller's $fp is saved, is each
 * function's choice), so $fp is only used where the prologue decoder saw
 * the function set it up. */
#include "registry.h"

#include <string.h>

#include "lib/walker.h"
#include "prologue.h"
#include "signal_frame.h"
#include "stub.h"

enum { MIPS_ZERO = 0, MIPS_T9 = 25, MIPS_GP = 28, MIPS_SP = 29, MIPS_FP = 30, MIPS_RA = 31,
       MIPS_HI = 32, MIPS_LO = 33, MIPS_PC = 34 };

static const char *const mips_reg_names[] = {
	"zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2",
	"t3", "t4", "t5", "t6", "t7", "s0", "s1", "s2", "s3", "s4", "s5",
	"s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp", "ra", "hi",
	"lo", "pc",
};

static const uint8_t mips_print_order[] = {
	MIPS_GP, MIPS_SP, MIPS_FP, MIPS_RA, MIPS_PC,
	16, 17, 18, 19, 20, 21, 22, 23,
};

/* DWARF numbers (MIPS psABI, as GCC and GDB use them): 0-31 the general
 * registers, 32-63 the floating-point ones, 64 hi, 65 lo; the pc has none
 * (CFI's return-address column is ra). */
static const int8_t mips_dwarf_regs[66] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	MIPS_HI, MIPS_LO,
};

/* A jump or branch is followed by its delay slot, which runs before the
 * callee: the return address is the call plus 8, the call is ra - 8. */
static uint64_t mips_call_site(uint64_t ra)
{
	return ra - 8;
}

static uint64_t mips_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr;
}

/* Instructions are 4-byte aligned (MIPS16e and microMIPS code, with odd
 * addresses, is not walked). */
static bool mips64_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && (pc & 3) == 0;
}

static bool mips_pc_plausible(uint64_t pc)
{
	return mips64_pc_plausible(pc) && pc <= 0xffffffffu;
}

/* An instruction word in the snapshot's byte order. */
static bool read_insn(struct sw_code *c, uint64_t addr, uint32_t *insn)
{
	uint8_t b[4];
	if (!sw_code_read(c, addr, b, 4))
		return false;
	*insn = c->w->snap->sys.big_endian
	        ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
	        : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return true;
}

/* Instruction fields (MIPS32/MIPS64 Architecture, vol. II). */
static unsigned op_of(uint32_t i) { return i >> 26; }
static unsigned rs_of(uint32_t i) { return i >> 21 & 31; }
static unsigned rt_of(uint32_t i) { return i >> 16 & 31; }
static unsigned rd_of(uint32_t i) { return i >> 11 & 31; }
static unsigned funct_of(uint32_t i) { return i & 63; }
static int64_t simm_of(uint32_t i) { return (int16_t)(i & 0xffff); }

enum {
	OP_SPECIAL = 0, OP_REGIMM = 1, OP_J = 2, OP_JAL = 3, OP_BEQ = 4, OP_BLEZ = 6, OP_BGTZ = 7,
	OP_ADDI = 8, OP_ADDIU = 9, OP_ORI = 13, OP_LUI = 15, OP_COP1 = 17, OP_DADDI = 24,
	OP_DADDIU = 25, OP_SPECIAL2 = 28, OP_JALX = 29, OP_SPECIAL3 = 31, OP_LW = 35, OP_LWU = 39,
	OP_SW = 43, OP_BC = 50, OP_JIC = 54, OP_LD = 55, OP_BALC = 58, OP_JIALC = 62, OP_SD = 63,
	FN_JR = 8, FN_JALR = 9, FN_ADD = 32, FN_ADDU = 33, FN_SUB = 34, FN_SUBU = 35, FN_OR = 37,
	FN_DADD = 44, FN_DADDU = 45, FN_DSUB = 46, FN_DSUBU = 47,
	RT_BLTZAL = 16, RT_BGEZALL = 19,
};

/* Calls, as the return address they leave in ra tells them apart
 * (MIPS32 vol. II, and Release 6 for the compact forms):
 *   with a delay slot, at ra - 8: JAL, JALX, JALR (rd != 0: JALR with rd 0
 *   is R6's JR), BLTZAL/BGEZAL/BLTZALL/BGEZALL (BAL, NAL included);
 *   compact (R6, no delay slot), at ra - 4: BALC, JIALC (POP76 with rs 0).
 * Pre-R6 cores give BALC's and JIALC's opcodes to SWC2 and SDC2 (Cavium
 * Octeon to BBIT1/BBIT132): an address after one of those also passes,
 * a looser check only on such code. */
static bool is_delay_slot_call(uint32_t i)
{
	switch (op_of(i)) {
	case OP_JAL:
	case OP_JALX:
		return true;
	case OP_SPECIAL:
		return funct_of(i) == FN_JALR && rd_of(i) != 0 && rt_of(i) == 0;
	case OP_REGIMM:
		return rt_of(i) >= RT_BLTZAL && rt_of(i) <= RT_BGEZALL;
	default:
		return false;
	}
}

static bool is_compact_call(uint32_t i)
{
	return op_of(i) == OP_BALC || (op_of(i) == OP_JIALC && rs_of(i) == 0);
}

static bool mips_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	struct sw_code c;
	sw_code_init(&c, w);
	uint32_t before, call;
	bool have_before = ra >= 4 && read_insn(&c, ra - 4, &before);
	bool have_call = ra >= 8 && read_insn(&c, ra - 8, &call);
	if ((have_call && is_delay_slot_call(call)) || (have_before && is_compact_call(before))) {
		*known = true;
		return true;
	}
	/* Without the word at ra - 8, the usual call cannot be ruled out. */
	*known = have_call;
	return !have_call;
}

/* ---- where a call goes ---- */

/* The target of the direct call ending at ra (vol. II, JAL, BAL/BGEZAL,
 * BALC), whose pc-relative offsets count from the delay slot (ra - 4) or,
 * for R6's compact BALC, from the instruction after it (ra):
 *   JAL, JALX   the 256 MiB region of the delay slot, instr_index << 2
 *   REGIMM ..AL the delay slot + (offset << 2)
 *   BALC        ra + (offset26 << 2)
 * JALR and JIALC name no target. */
static bool mips_direct_call(struct sw_code *c, uint64_t ra, uint64_t *to)
{
	uint32_t call;
	if (ra >= 8 && read_insn(c, ra - 8, &call) && is_delay_slot_call(call)) {
		if (op_of(call) == OP_JAL || op_of(call) == OP_JALX)
			*to = ((ra - 4) & ~(uint64_t)0x0fffffff) | (uint64_t)(call & 0x3ffffffu) << 2;
		else if (op_of(call) == OP_REGIMM)
			*to = ra - 4 + (uint64_t)(simm_of(call) * 4);
		else
			return false;
		return true;
	}
	if (ra < 4 || !read_insn(c, ra - 4, &call) || op_of(call) != OP_BALC)
		return false;
	int64_t off = ((int64_t)(call & 0x3ffffffu) ^ 0x2000000) - 0x2000000;
	*to = ra + (uint64_t)(off * 4);
	return true;
}

/* A PLT entry of a non-PIC executable at `at` (binutils' elfxx-mips.c,
 * mips_exec_plt_entry; PIC code calls other modules through jalr t9):
 *   lui t7, %hi(slot); l{w|d} t9, %lo(slot)(t7); jr t9 (R6: jalr zero, t9)
 * jumps through the GOT slot (%hi << 16) + %lo. */
static bool mips_plt_slot(struct sw_code *c, uint64_t at, uint64_t *slot)
{
	uint32_t lui, load, jr;
	if (!read_insn(c, at, &lui) || (lui & 0xffff0000u) != 0x3c0f0000u ||
	    !read_insn(c, at + 4, &load) ||
	    ((load & 0xffff0000u) != 0x8df90000u && (load & 0xffff0000u) != 0xddf90000u) ||
	    !read_insn(c, at + 8, &jr) || (jr != 0x03200008u && jr != 0x03200009u))
		return false;
	*slot = (uint64_t)((int64_t)(int32_t)((lui & 0xffffu) << 16) + simm_of(load));
	return true;
}

/* The call_target hook: the direct call's target, followed through a PLT
 * entry (arch.h). */
static bool mips_call_target(const struct sw_walk *w, uint64_t ra, uint64_t *target)
{
	struct sw_code c;
	sw_code_init(&c, w);
	const uint64_t mask = w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	uint64_t at, slot;
	if (!mips_direct_call(&c, ra, &at))
		return false;
	at &= mask;
	if (mips_plt_slot(&c, at, &slot))
		return sw_stub_through_slot(w, at, slot & mask, w->arch->word_size, target);
	*target = at;
	return true;
}

/* ---- prologue analysis ----
 *
 * The MIPS psABI ("Function Prologue"; GCC's mips_expand_prologue does
 * the same for n32/n64) has a non-leaf function allocate its whole frame
 * with `addiu/daddiu sp, sp, -N` (beyond 32 KiB: the first part so, the
 * rest with `subu/dsubu sp, sp, rT` after `li rT`), then store ra and the
 * callee-saved registers it uses (s0-s7, fp; gp on n32/n64) with `sw`/`sd`
 * into it, and, when it needs a frame pointer (alloca, -O0), set
 * `move fp, sp` or `addiu fp, sp, K`. Leaf functions may keep ra in its
 * register and allocate nothing. o32 PIC functions start with .cpload
 * (`lui gp, %hi(_gp_disp); addiu gp, gp, %lo; addu gp, gp, t9`) and store
 * that new gp (.cprestore): not the caller's. Epilogues reload, then
 * release with `addiu sp, sp, N`, often in the delay slot of `jr ra`. */

enum {
	MAX_BACKWARD = 4096,      /* how far back a function's start is sought */
	ALLOC_WINDOW = 16 * 4,    /* past an allocation, how far an exact start */
	MAX_FORWARD = 8 * 1024,   /* how much of a function is decoded */
	BRANCH_BACK_REACH = 1024, /* how far before an early return a branch past it is sought */
};

/* Feeds one instruction to the frame state. *end_after is set to the
 * number of instructions after which control leaves this path (1: after
 * the delay slot; 0: at once, R6 compact jumps), else left alone. */
static void decode(struct sw_prologue *p, uint32_t i, int *end_after)
{
	unsigned op = op_of(i), rs = rs_of(i), rt = rt_of(i), rd = rd_of(i), fn = funct_of(i);
	int64_t imm = simm_of(i), a, b;
	bool wide;
	switch (op) {
	case OP_SPECIAL:
		switch (fn) {
		case FN_JR:
			*end_after = 1;
			return;
		case FN_JALR:
			if (rd == 0)
				*end_after = 1;
			else
				sw_pro_call(p, rd);
			return;
		case FN_ADD: case FN_ADDU: case FN_DADD: case FN_DADDU: case FN_OR:
			wide = fn == FN_DADD || fn == FN_DADDU;
			if (rd == MIPS_SP) {
				/* addu sp, sp, rT; move sp, fp; addu sp, fp, rT */
				if (rs == MIPS_SP && fn != FN_OR && sw_pro_const_get(p, rt, &b))
					sw_pro_sp_add(p, b);
				else if (rs == MIPS_FP && (rt == 0 || (fn != FN_OR && sw_pro_const_get(p, rt, &b))))
					sw_pro_sp_from_fp(p, rt == 0 ? 0 : b);
				else if (rt == MIPS_FP && rs == 0)
					sw_pro_sp_from_fp(p, 0);
				else if (!(rs == MIPS_SP && rt == 0))
					sw_pro_sp_unknown(p);
			} else if (rd == MIPS_FP && ((rs == MIPS_SP && rt == 0) || (rt == MIPS_SP && rs == 0))) {
				sw_pro_fp_from_sp(p, 0); /* move fp, sp */
			} else if (rd == MIPS_FP && rs == MIPS_SP && fn != FN_OR && sw_pro_const_get(p, rt, &b)) {
				sw_pro_fp_from_sp(p, b);
			} else if (sw_pro_const_get(p, rs, &a) && sw_pro_const_get(p, rt, &b)) {
				int64_t v = fn == FN_OR ? (a | b) : sw_pro_add(a, b);
				sw_pro_const(p, rd, wide || fn == FN_OR ? v : (int32_t)v);
			} else {
				sw_pro_write(p, rd);
			}
			return;
		case FN_SUB: case FN_SUBU: case FN_DSUB: case FN_DSUBU:
			if (rd == MIPS_SP && rs == MIPS_SP && sw_pro_const_get(p, rt, &b))
				sw_pro_sp_add(p, sw_pro_sub(0, b));
			else
				sw_pro_write(p, rd);
			return;
		case 0x0c: case 0x0d: case 0x0f: case 0x11: case 0x13: /* syscall break sync mthi mtlo */
			return;
		default:
			/* Pre-R6 mult/div (0x18-0x1f) write hi/lo with rd 0; R6's
			 * forms and every other SPECIAL instruction write rd. */
			if (fn < 0x30 || fn > 0x36) /* not a trap */
				sw_pro_write(p, rd);
			return;
		}
	case OP_REGIMM:
		if (rt >= RT_BLTZAL && rt <= RT_BGEZALL)
			sw_pro_call(p, MIPS_RA);
		return;
	case OP_J:
		*end_after = 1;
		return;
	case OP_JAL:
	case OP_JALX:
		sw_pro_call(p, MIPS_RA);
		return;
	case OP_BEQ:
		if (rs == 0 && rt == 0) /* b: unconditional */
			*end_after = 1;
		return;
	case OP_BLEZ:
	case OP_BGTZ:
		if (rt != 0) /* R6 BLEZALC/BGEZALC/BGTZALC/BLTZALC: compact calls */
			sw_pro_call(p, MIPS_RA);
		return;
	case OP_ADDI: case OP_ADDIU: case OP_DADDI: case OP_DADDIU:
		wide = op == OP_DADDI || op == OP_DADDIU;
		if (rt == MIPS_SP) {
			if (rs == MIPS_SP)
				sw_pro_sp_add(p, imm);
			else if (rs == MIPS_FP)
				sw_pro_sp_from_fp(p, imm);
			else
				sw_pro_sp_unknown(p);
		} else if (rt == MIPS_FP && rs == MIPS_SP) {
			sw_pro_fp_from_sp(p, imm);
		} else if (sw_pro_const_get(p, rs, &a)) {
			sw_pro_const(p, rt, wide ? sw_pro_add(a, imm) : (int32_t)sw_pro_add(a, imm));
		} else {
			sw_pro_write(p, rt);
		}
		return;
	case OP_ORI:
		if (sw_pro_const_get(p, rs, &a))
			sw_pro_const(p, rt, a | (int64_t)(i & 0xffff));
		else
			sw_pro_write(p, rt);
		return;
	case OP_LUI: /* R6 AUI when rs != 0 */
		if (sw_pro_const_get(p, rs, &a))
			sw_pro_const(p, rt, (int32_t)sw_pro_add(a, (int64_t)((uint32_t)(i & 0xffff) << 16)));
		else
			sw_pro_write(p, rt);
		return;
	case OP_LW:
	case OP_LD:
		sw_pro_load(p, rt, rs, imm);
		return;
	case OP_SW:
	case OP_SD:
		sw_pro_store(p, rt, rs, imm, op == OP_SW ? 4 : 8);
		return;
	case 40: case 41: case 42: case 44: case 45: case 46: /* sb sh swl sdl sdr swr */
	case 49: case 53: case 57: case 61: /* lwc1 ldc1 swc1 sdc1 */
	case 47: case 51: /* cache pref */
		return;
	case OP_COP1:
		if (rs <= 3) /* mfc1, dmfc1, cfc1, mfhc1 */
			sw_pro_write(p, rt);
		return;
	case 16: case 18: /* COP0, COP2: moves from them write rt */
		if (rs <= 3)
			sw_pro_write(p, rt);
		return;
	case OP_SPECIAL2:
		sw_pro_write(p, rd);
		return;
	case OP_SPECIAL3:
		/* BSHFL/DBSHFL (seb, seh, wsbh, ...) write rd; ext/ins, rdhwr
		 * and the rest rt. */
		sw_pro_write(p, fn == 0x20 || fn == 0x24 ? rd : rt);
		return;
	case OP_BALC:
	case OP_JIALC:
		if (op == OP_BALC || rs == 0)
			sw_pro_call(p, MIPS_RA);
		return;
	case OP_BC:
		*end_after = 0;
		return;
	case OP_JIC:
		if (rs == 0) /* jic, jrc: R6 compact jumps (jrc ra returns) */
			*end_after = 0;
		return;
	default:
		/* Loads and ALU-immediate forms (andi, xori, slti, lb, lwu, ...)
		 * write rt; the rest (branches) write nothing. */
		if ((op >= 10 && op <= 14) || (op >= 32 && op <= 39) || op == 26 || op == 27 ||
		    op == 48 || op == 52 || op == 56 || op == 60) /* ... ll lld sc scd */
			sw_pro_write(p, rt);
		else if (op == 59) /* R6 PCREL: addiupc, auipc, ... write rs */
			sw_pro_write(p, rs);
		return;
	}
}

/* Decodes [start, pc) into p. False if a word cannot be read. */
static bool decode_range(struct sw_code *c, struct sw_prologue *p, uint64_t start, uint64_t pc)
{
	int end_after = -1;
	p->decoded_from = start;
	uint64_t stop = pc;
	if (pc - start > MAX_FORWARD) {
		/* A huge function: its prologue is at its start; what lies
		 * between it and pc is body code, which has made calls. */
		stop = start + MAX_FORWARD;
	}
	for (uint64_t a = start; a < stop; a += 4) {
		uint32_t insn;
		if (!read_insn(c, a, &insn))
			return false;
		int was = end_after;
		decode(p, insn, &end_after);
		if (was >= 0 || end_after == 0) {
			/* The delay slot (or a compact jump) done: this path ends. */
			sw_pro_path_end(p);
			end_after = -1;
		}
	}
	if (stop != pc)
		sw_pro_call(p, MIPS_RA);
	return true;
}

static bool is_return(uint32_t i)
{
	/* jr ra (jr.hb ra), R6's jalr zero, ra (and .hb), R6's jrc ra */
	return (i & 0xfffffbffu) == 0x03e00008u || (i & 0xfffffbffu) == 0x03e00009u ||
	       i == 0xd81f0000u;
}

static bool is_sp_adjust(uint32_t i, bool release)
{
	unsigned op = op_of(i);
	return (op == OP_ADDIU || op == OP_DADDIU) && rs_of(i) == MIPS_SP && rt_of(i) == MIPS_SP &&
	       (release ? simm_of(i) > 0 : simm_of(i) < 0);
}

/* o32's .cpload: lui gp, X; addiu gp, gp, Y; addu gp, gp, t9, the first
 * instructions of a PIC function. */
static bool is_cpload(struct sw_code *c, uint64_t a, uint32_t i)
{
	uint32_t i1, i2;
	return (i >> 16) == 0x3c1c && read_insn(c, a + 4, &i1) && read_insn(c, a + 8, &i2) &&
	       (i1 >> 16) == 0x279c && i2 == 0x0399e021u;
}

/* Does control leave the straight line after instruction i (and its
 * delay slot)? *slot is the bytes that follow it before the next path
 * starts: 8 with a delay slot, 4 for R6's compact branches. */
static bool is_transfer(uint32_t i, unsigned *slot)
{
	unsigned op = op_of(i);
	*slot = 8;
	switch (op) {
	case OP_SPECIAL:
		return funct_of(i) == FN_JR || funct_of(i) == FN_JALR;
	case OP_REGIMM:
		return rt_of(i) <= 3 || (rt_of(i) >= RT_BLTZAL && rt_of(i) <= RT_BGEZALL);
	case 2: case 3: case 4: case 5: case 6: case 7: case 20: case 21: case 22: case 23:
	case OP_JALX:
		return true;
	case OP_COP1:
		return rs_of(i) == 8; /* bc1f, bc1t */
	case OP_BC:
	case OP_BALC:
		*slot = 4;
		return true;
	case OP_JIC:
	case OP_JIALC:
		*slot = 4;
		return rs_of(i) == 0;
	default:
		return false;
	}
}

/* The target of a pc-relative branch or a J at a (vol. II: the offset
 * counts from the delay slot), or false for anything else. */
static bool branch_target(uint64_t a, uint32_t i, uint64_t *to)
{
	unsigned op = op_of(i);
	bool rel = (op >= OP_BEQ && op <= OP_BGTZ) || (op >= 20 && op <= 23) ||
	           (op == OP_REGIMM && rt_of(i) <= 3);
	if (rel) {
		*to = a + 4 + (uint64_t)(simm_of(i) * 4);
		return true;
	}
	if (op == OP_J) {
		*to = ((a + 4) & ~(uint64_t)0x0fffffff) | (uint64_t)(i & 0x03ffffffu) << 2;
		return true;
	}
	return false;
}

/* Is the code from `from` to pc the middle of a function, past an early
 * return, rather than a function's start? GCC puts early returns (`jr ra`
 * with the frame's release in its delay slot) in the middle of a
 * function, the rest of its body after them. A function's start makes no
 * call before it saves ra (JAL, BAL, JALR ra write ra; psABI "Function
 * Prologue") unless it never returns, so the code must call before any
 * allocation or save of ra (at pc at the latest: a suspended frame's pc
 * here is its call), and also
 *  - read or write the stack at sp + off, off >= 0 (o32: past the four
 *    argument words a callee may use, psABI "Stack Frame"): a frame it did
 *    not allocate; or
 *  - branch back before `from` (on its way to pc, or after it up to its
 *    next return): into the body the early return left; or
 *  - be the target of a conditional branch before `from`: reached from
 *    the body before the early return.
 * *back is then that target, or that branch, which the function's start
 * must precede.
 * A function that never returns may make calls without saving ra (GCC
 * -O2 does), but neither uses a frame it did not make nor jumps into the
 * function before it. */
static bool follows_early_return(struct sw_code *c, uint64_t from, uint64_t pc, uint64_t *back)
{
	const unsigned min_off = c->w->arch->word_size == 4 ? 16 : 0;
	bool called = false, used_frame = false;
	*back = 0;
	for (uint64_t a = from; a - from < MAX_BACKWARD; a += 4) {
		uint32_t i;
		uint64_t to;
		if (!read_insn(c, a, &i)) {
			if (a <= pc)
				return false;
			break;
		}
		if (a <= pc) {
			if (is_return(i) || is_sp_adjust(i, false))
				return false;
			unsigned op = op_of(i);
			bool mem = op == 32 || op == 33 || op == OP_LW || op == 36 || op == 37 ||
			           op == OP_LWU || op == 40 || op == 41 || op == OP_SW || op == OP_LD ||
			           op == OP_SD;
			if (mem && rs_of(i) == MIPS_SP && rt_of(i) == MIPS_RA && (op == OP_SW || op == OP_SD))
				return false; /* ra saved: a prologue */
			if (mem && rs_of(i) == MIPS_SP && simm_of(i) >= (int64_t)min_off)
				used_frame = true;
			if (is_delay_slot_call(i) || is_compact_call(i))
				called = true;
			if (called && used_frame)
				return true;
		} else if (!called) {
			return false;
		}
		if (branch_target(a, i, &to) && to < from) {
			*back = to;
			return called;
		}
		if (is_return(i))
			break;
	}
	if (!called)
		return false;
	/* A conditional branch before `from` into [from, pc]: the code there
	 * is reached from the body before it (MIPS has no conditional tail
	 * call, and PIC code tail-calls through t9 anyway). */
	for (uint64_t a = from - 4; from - a <= BRANCH_BACK_REACH && a >= 4; a -= 4) {
		uint32_t i;
		uint64_t to;
		if (!read_insn(c, a, &i))
			return false;
		bool uncond = op_of(i) == OP_J || (op_of(i) == OP_BEQ && rs_of(i) == 0 && rt_of(i) == 0);
		if (!uncond && branch_target(a, i, &to) && to >= from && to <= pc) {
			*back = a;
			return true;
		}
	}
	return false;
}

/* The size an allocation `addiu/daddiu sp, sp, -N` at a makes, or 0. */
static int64_t allocation_at(struct sw_code *c, uint64_t a)
{
	uint32_t i;
	return a && read_insn(c, a, &i) && is_sp_adjust(i, false) ? -simm_of(i) : 0;
}

static uint64_t find_start_from(struct sw_code *c, uint64_t pc, int64_t *released,
                                uint64_t *alloc_at, uint64_t *back);

/* Without symbols, the function holding pc starts after the nearest
 * earlier end of another one: a `jr ra` and its delay slot, or a stack
 * release `addiu sp, sp, +N` (the last instruction of a function that
 * ends in a tail call); or at an o32 .cpload. The first allocation met
 * going back is this function's own: the start lies at most a few
 * instructions before it (.cpload, loads of t9, constants), after any
 * earlier jump, branch or call (a function may end in a call that does
 * not return), else at the allocation itself. Never before the module
 * holding pc, nor more than MAX_BACKWARD bytes back, nor past code the
 * snapshot lacks. 0: no start found.
 *
 * An end whose code after it is the middle of a function
 * (follows_early_return) is an early return: the search goes on past it,
 * and the start found must allocate the frame that return released (an
 * epilogue releases what its prologue allocated), else there is none. */
static uint64_t find_start(struct sw_code *c, uint64_t pc)
{
	int64_t released = 0;
	uint64_t alloc = 0, back = 0;
	uint64_t start = find_start_from(c, pc, &released, &alloc, &back);
	if (released && (!start || allocation_at(c, alloc) != released || alloc < start ||
	                 (back && back <= alloc)))
		return 0;
	return start;
}

static uint64_t find_start_from(struct sw_code *c, uint64_t pc, int64_t *released,
                                uint64_t *alloc_at, uint64_t *back)
{
	uint64_t lo = sw_pro_search_floor(c->w, pc, MAX_BACKWARD);
	/* The instruction at pc itself may open the function. */
	uint32_t i;
	uint64_t alloc = 0;
	if (read_insn(c, pc, &i)) {
		if (is_cpload(c, pc, i))
			return pc;
		if (is_sp_adjust(i, false))
			alloc = pc;
	}
	unsigned slot;
	for (uint64_t a = pc & ~(uint64_t)3; a >= lo + 4;) {
		a -= 4;
		*alloc_at = alloc;
		if (!read_insn(c, a, &i))
			return alloc;
		if (alloc && alloc - a > ALLOC_WINDOW)
			return alloc;
		/* pc in the delay slot of its own function's return */
		bool own_return = a + 4 == pc;
		uint64_t end = 0;
		if (is_return(i) && !own_return)
			end = i == 0xd81f0000u ? a + 4 : a + 8;
		else if (is_sp_adjust(i, true))
			end = a + 4;
		uint64_t to = 0;
		if (end && !alloc && follows_early_return(c, end, pc, &to)) {
			if (to && (!*back || to < *back))
				*back = to;
			/* Past an early return: its release (in the jr's delay
			 * slot, met first going back, or just before the jr) is
			 * the frame's size. */
			uint32_t d;
			int64_t n = 0;
			if (is_sp_adjust(i, true)) {
				n = simm_of(i);
				if (a >= lo + 4 && read_insn(c, a - 4, &d) && is_return(d))
					a -= 4; /* the jr whose delay slot this is */
			} else if (a >= lo + 4 && read_insn(c, a - 4, &d) && is_sp_adjust(d, true)) {
				n = simm_of(d);
				a -= 4;
			}
			if (!n || (*released && *released != n))
				return 0;
			*released = n;
			continue;
		}
		if (end)
			return end;
		/* A call to an address past its own delay slot, up to pc,
		 * enters another function there: a function never calls into
		 * its own body past the call. The function before ended with a
		 * call that does not return (zoo mips64el 1100: f2 ends `jal
		 * f3` and its delay slot, f3 follows at once). `bal` to the
		 * instruction after its delay slot reads the pc (hand-written
		 * PIC code), no call. */
		uint64_t entered;
		if (!own_return &&
		    ((is_delay_slot_call(i) && mips_direct_call(c, a + 8, &entered) &&
		      (entered > a + 8 || (entered == a + 8 && op_of(i) != OP_REGIMM))) ||
		     (op_of(i) == OP_BALC && mips_direct_call(c, a + 4, &entered) && entered >= a + 4)) &&
		    entered <= pc)
			return entered;
		if (is_cpload(c, a, i))
			return a;
		if (alloc && is_transfer(i, &slot))
			return a + slot;
		if (!alloc && is_sp_adjust(i, false))
			alloc = a;
	}
	*alloc_at = alloc;
	return alloc;
}

/* A live frame (the context, or one a signal frame restored) stopped at
 * the first instruction of the function the call before its ra entered:
 * a call through a bad pointer that landed on a function's start and
 * faulted there, a signal taken at a function's entry. Nothing of the
 * function has run, so its prologue is empty: sp and ra are still the
 * caller's. The call says where it went, and the frame's registers show
 * it went to pc (MIPS32/MIPS64 Architecture vol. II, JAL, JALR, BAL;
 * SYSV ABI MIPS RISC Processor Supplement, "Function Calling Sequence"
 * and "Position-Independent Function Prologue": a PIC caller jumps with
 * `jalr t9`, and $25 holds the entered function's address on entry):
 *   a direct call (JAL, BAL, BALC) whose target is pc;
 *   JALR ra, rs (ra - 8) whose rs still holds pc: rs is read before the
 *   delay slot runs, and a function that has run one instruction has
 *   moved pc past the value.
 * That proves the function's start where no symbol or unwind table
 * covers pc and its code cannot be read (a library the symbol path lacks:
 * prologue analysis has nothing to decode, the scan no word to find). */
static bool mips_call_entered_pc(struct sw_code *c, const struct sw_frame *callee)
{
	const struct sw_regs *r = &callee->regs;
	const uint64_t mask = c->w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	if (!sw_frame_has_live_context(callee) || !sw_reg_valid(r, MIPS_RA))
		return false;
	uint64_t ra = r->v[MIPS_RA] & mask, pc = callee->pc & mask, to;
	uint32_t call;
	if (mips_direct_call(c, ra, &to))
		return (to & mask) == pc;
	if (ra < 8 || !read_insn(c, ra - 8, &call) || op_of(call) != OP_SPECIAL ||
	    funct_of(call) != FN_JALR || rd_of(call) != MIPS_RA || rt_of(call) != 0)
		return false;
	return sw_reg_valid(r, rs_of(call)) && (r->v[rs_of(call)] & mask) == pc;
}

/* A live frame whose ra's call is a direct one to a target below pc from
 * which the code runs on to pc (no return, no unconditional jump or
 * jump through a register on the way, within MAX_BACKWARD): that call
 * entered pc's function there. A stale ra (the function's own earlier
 * call) names another function, whose code reaches no pc of this one
 * without returning first. Zoo mips64el 1923 stripped: f6, a leaf that
 * never returns (it ends `b .`), was called by f5's last instruction `bal
 * f6`, so ra is main's entry; the function before f6 ends in a `b` back
 * into itself, which no start search takes for an end. */
static bool mips_call_entered_below_pc(struct sw_code *c, const struct sw_frame *callee,
                                       uint64_t *start)
{
	const struct sw_regs *r = &callee->regs;
	const uint64_t mask = c->w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	uint64_t ra, pc = callee->pc & mask, to;
	if (!sw_frame_has_live_context(callee) || !sw_reg_valid(r, MIPS_RA))
		return false;
	ra = r->v[MIPS_RA] & mask;
	uint32_t call;
	if (!mips_direct_call(c, ra, &to))
		return false;
	to &= mask;
	/* `bal` to the instruction after its delay slot reads the pc. */
	if (to == ra && read_insn(c, ra - 8, &call) && op_of(call) == OP_REGIMM)
		return false;
	if (to > pc || pc - to > MAX_BACKWARD || (to & 3) != 0)
		return false;
	for (uint64_t a = to; a < pc; a += 4) {
		uint32_t i;
		if (!read_insn(c, a, &i) || is_return(i) || op_of(i) == OP_J ||
		    (op_of(i) == OP_BEQ && rs_of(i) == 0 && rt_of(i) == 0) ||
		    (op_of(i) == OP_SPECIAL && funct_of(i) == FN_JR))
			return false;
	}
	*start = to;
	return true;
}

/* The caller by decoding the function's prologue from its start (the
 * symbols', else find_start's) to the callee's pc. A FUNC record's start
 * is exact; a PUBLIC one may be an exported function far below a static
 * one the file does not name, so a nearer start found in the code wins.
 * A live frame the call before its ra entered at pc starts there. */
static enum sw_unwind_status mips_caller_by_prologue(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	if (!sw_reg_valid(&callee->regs, MIPS_SP) || (callee->pc & 3) != 0)
		return SW_UNWIND_NO_RULE;
	uint64_t pc = callee->pc;
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t start = sw_pro_symbol_start(s);
	if (start != pc && mips_call_entered_pc(&c, callee)) {
		start = pc;
	} else if (!start || callee->function_is_public) {
		/* A suspended frame's function is its call's, which a call that
		 * does not return may leave at the very end of the function. */
		uint64_t found = find_start(&c, sw_frame_has_live_context(callee) ? pc : callee->lookup_pc);
		uint64_t entered;
		if (mips_call_entered_below_pc(&c, callee, &entered) && entered > found)
			found = entered;
		if (found > start)
			start = found;
	}
	if (!start || start > pc)
		return SW_UNWIND_NO_RULE;
	struct sw_prologue p;
	sw_pro_init(&p, w->arch);
	if (!decode_range(&c, &p, start, pc))
		return SW_UNWIND_NO_RULE;
	return sw_pro_caller(&p, s, out);
}

/* ---- Breakpad's MIPS scan (stackwalker_mips.cc) ----
 *
 * A MIPS function stores ra at the top of its frame and, when it has one,
 * the caller's fp just below it, and the caller's fp lies above that slot.
 * So a return address found in a stack word is believed only if the word
 * below it holds an fp less than 1 KiB above the word (unsigned: below it
 * fails too); else the scan goes on past it, within one 1 KiB frame in
 * all. On o32 every non-leaf function reserves four argument words at the
 * bottom of its frame (psABI "Stack Frame"), so for every frame but the
 * context one (which may be a leaf) the scan starts past them. The
 * caller's sp is just above the return address, its fp that word. */
enum { SCAN_FRAME_BYTES = 1024, O32_ARG_WORDS = 4 };

static enum sw_unwind_status mips_caller_by_scan(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const unsigned ws = w->arch->word_size;
	if (!sw_reg_valid(&callee->regs, MIPS_SP))
		return SW_UNWIND_NO_RULE;
	uint64_t from = callee->regs.v[MIPS_SP];
	int64_t count = SCAN_FRAME_BYTES / ws;
	if (ws == 4 && !sw_frame_has_live_context(callee)) {
		from += O32_ARG_WORDS * ws;
		count -= O32_ARG_WORDS;
	}
	const uint64_t mask = ws == 4 ? 0xffffffffu : UINT64_MAX;
	uint64_t slot, ra, fp;
	bool reaches;
	do {
		slot = from;
		if (!sw_walk_scan_for_return_address(w, &slot, &ra, (uint32_t)count))
			return SW_UNWIND_NO_RULE;
		if (!sw_walk_read_word(w, slot - ws, &fp))
			return SW_UNWIND_NO_RULE;
		count -= (int64_t)((slot - from) / ws);
		from = slot + ws;
		/* Our rule on top of Breakpad's: a direct call into another
		 * module than the callee's left a stale word (lib/walker.c). */
		reaches = sw_walk_call_may_reach(w, ra, callee);
	} while ((!reaches || ((fp - slot) & mask) >= SCAN_FRAME_BYTES) && count > 0);
	/* Breakpad gives up when the count ran out, even on a good last word. */
	if (count == 0 || !reaches)
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, MIPS_PC, ra);
	sw_reg_set(&out->regs, MIPS_SP, slot + ws);
	sw_reg_set(&out->regs, MIPS_FP, fp);
	return SW_UNWIND_OK;
}

/* ---- signal frames ----
 *
 * Linux's restorers (the vDSO's, or the C library's) are
 *   li v0, NR (addiu v0, zero, NR)   0x24020000 | NR
 *   syscall                          0x0000000c
 * with NR 4119 (o32 sigreturn), 4193 (o32 rt_sigreturn), 5211 (n64
 * rt_sigreturn) or 6211 (n32 rt_sigreturn). The handler returns to them
 * with sp at the frame it was given (arch/mips/kernel/signal.c,
 * signal_n32.c, signal_o32.c); every frame begins with 16 bytes of
 * argument save space and 8 of padding:
 *   sigframe    { u32 sf_ass[4]; u32 sf_pad[2]; struct sigcontext sf_sc; }
 *               -> sigcontext at sp + 24
 *   rt_sigframe { u32 rs_ass[4]; u32 rs_pad[2]; siginfo (128 bytes);
 *                 struct ucontext rs_uc; }, ucontext at sp + 152, its
 *               uc_mcontext at +24 (o32, n32: uc_flags 4, uc_link 4,
 *               uc_stack 12, 8-aligned) or +40 (n64)
 * The sigcontexts (offsets computed from the cross toolchains'
 * asm/sigcontext.h and asm/ucontext.h: mips-linux-gnu for o32,
 * mips64el-linux-gnuabi64 with -mabi=64 and -mabi=n32):
 *   o32      { u32 sc_regmask, sc_status; u64 sc_pc at +8; u64 sc_regs[32]
 *              at +16; fp registers; sc_mdhi +552; sc_mdlo +560; ... }
 *   n32, n64 { u64 sc_regs[32] at +0; fp registers; sc_mdhi +512; hi1-3;
 *              sc_mdlo +544; lo1-3; sc_pc +576; ... }
 * Every register is saved as 64 bits; o32 keeps the low 32. */
enum {
	MIPS_NR_O32_SIGRETURN = 4119,
	MIPS_NR_O32_RT_SIGRETURN = 4193,
	MIPS_NR_N64_RT_SIGRETURN = 5211,
	MIPS_NR_N32_RT_SIGRETURN = 6211,
	MIPS_SIGFRAME_SC = 24,
	MIPS_RT_SIGFRAME_UC = 24 + 128,
};

#define MIPS_GPR_SLOTS(first) \
	{ 1, (first) + 1 }, { 2, (first) + 2 }, { 3, (first) + 3 }, { 4, (first) + 4 }, \
	{ 5, (first) + 5 }, { 6, (first) + 6 }, { 7, (first) + 7 }, { 8, (first) + 8 }, \
	{ 9, (first) + 9 }, { 10, (first) + 10 }, { 11, (first) + 11 }, { 12, (first) + 12 }, \
	{ 13, (first) + 13 }, { 14, (first) + 14 }, { 15, (first) + 15 }, \
	{ 16, (first) + 16 }, { 17, (first) + 17 }, { 18, (first) + 18 }, \
	{ 19, (first) + 19 }, { 20, (first) + 20 }, { 21, (first) + 21 }, \
	{ 22, (first) + 22 }, { 23, (first) + 23 }, { 24, (first) + 24 }, \
	{ 25, (first) + 25 }, { 26, (first) + 26 }, { 27, (first) + 27 }, \
	{ 28, (first) + 28 }, { 29, (first) + 29 }, { 30, (first) + 30 }, { 31, (first) + 31 }

/* o32, 8-byte fields from sc_pc (sigcontext + 8) on: sc_regs[i] is field
 * 1 + i, sc_mdhi field 68, sc_mdlo 69. */
static const struct sw_sigframe_slot mips_o32_sigcontext_slots[] = {
	{ MIPS_PC, 0 }, MIPS_GPR_SLOTS(1), { MIPS_HI, 68 }, { MIPS_LO, 69 },
};

/* n32 and n64, 8-byte fields from the sigcontext's start: sc_regs[i] is
 * field i, sc_mdhi 64, sc_mdlo 68, sc_pc 72. */
static const struct sw_sigframe_slot mips_n64_sigcontext_slots[] = {
	MIPS_GPR_SLOTS(0), { MIPS_HI, 64 }, { MIPS_LO, 68 }, { MIPS_PC, 72 },
};

static enum sw_unwind_status mips_caller_of_signal_frame(const struct sw_step *s,
                                                         struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	uint64_t code[2];
	if (!sw_reg_valid(r, MIPS_SP) ||
	    !sw_sigframe_read_fields(w, s->callee->pc, 4, w->snap->sys.big_endian, 2, code) ||
	    (code[0] & 0xffff0000u) != 0x24020000u || code[1] != 0x0000000cu)
		return SW_UNWIND_NO_RULE;
	bool o32 = w->arch->word_size == 4;
	uint64_t sp = r->v[MIPS_SP], sc;
	switch (code[0] & 0xffffu) {
	case MIPS_NR_O32_SIGRETURN:
		sc = MIPS_SIGFRAME_SC + 8; /* from sc_pc */
		break;
	case MIPS_NR_O32_RT_SIGRETURN:
		sc = MIPS_RT_SIGFRAME_UC + 24 + 8;
		break;
	case MIPS_NR_N64_RT_SIGRETURN:
		sc = MIPS_RT_SIGFRAME_UC + 40;
		break;
	case MIPS_NR_N32_RT_SIGRETURN:
		sc = MIPS_RT_SIGFRAME_UC + 24;
		break;
	default:
		return SW_UNWIND_NO_RULE;
	}
	/* A 32-bit process makes only o32 calls, a 64-bit one n32 or n64. */
	bool o32_call = (code[0] & 0xffffu) < MIPS_NR_N64_RT_SIGRETURN;
	if (o32 != o32_call)
		return SW_UNWIND_NO_RULE;
	if (sp > UINT64_MAX - sc)
		return SW_UNWIND_FAILED;
	enum sw_unwind_status st =
		o32 ? sw_sigframe_restore(w, sp + sc, 8, mips_o32_sigcontext_slots,
		                          sizeof mips_o32_sigcontext_slots /
		                                  sizeof mips_o32_sigcontext_slots[0],
		                          out)
		    : sw_sigframe_restore(w, sp + sc, 8, mips_n64_sigcontext_slots,
		                          sizeof mips_n64_sigcontext_slots /
		                                  sizeof mips_n64_sigcontext_slots[0],
		                          out);
	if (st != SW_UNWIND_OK)
		return st;
	sw_reg_set(&out->regs, MIPS_ZERO, 0);
	if (o32)
		for (unsigned i = 0; i <= MIPS_PC; i++)
			out->regs.v[i] &= 0xffffffffu;
	return SW_UNWIND_OK;
}

/* o32 / n32 / n64 psABI: s0-s7, sp and fp are callee-saved; so is gp on
 * n32 and n64 (o32 PIC code recomputes it instead). */
#define MIPS_CALLEE_SAVED ((0xffull << 16) | (1ull << MIPS_GP) | (1ull << MIPS_SP) | (1ull << MIPS_FP))

/* What 32- and 64-bit MIPS share: the rest of each struct sw_arch below. */
#define MIPS_ARCH_COMMON \
	.nregs = sizeof mips_reg_names / sizeof mips_reg_names[0], \
	.reg_names = mips_reg_names, \
	.pc = MIPS_PC, \
	.sp = MIPS_SP, \
	.fp = MIPS_FP, \
	.ra = MIPS_RA, \
	.callee_saved = MIPS_CALLEE_SAVED, \
	.print_order = mips_print_order, \
	.nprint = sizeof mips_print_order, \
	.dwarf_regs = mips_dwarf_regs, \
	.ndwarf_regs = sizeof mips_dwarf_regs, \
	.call_site = mips_call_site, \
	.printed_address = sw_frame_call_site_address, \
	.strip_code_pointer = mips_strip, \
	.caller_of_signal_frame = mips_caller_of_signal_frame, \
	.caller_by_prologue = mips_caller_by_prologue, \
	.caller_by_scan = mips_caller_by_scan, \
	.call_precedes = mips_call_precedes, \
	.call_target = mips_call_target, \
	.text_registers_wide = true,

const struct sw_arch sw_arch_mips = {
	.name = "mips",
	.cpu = SW_CPU_MIPS,
	.word_size = 4,
	.pc_is_plausible = mips_pc_plausible,
	MIPS_ARCH_COMMON
};

const struct sw_arch sw_arch_mips64 = {
	.name = "mips64",
	.cpu = SW_CPU_MIPS64,
	.word_size = 8,
	.pc_is_plausible = mips64_pc_plausible,
	MIPS_ARCH_COMMON
};
