/* AArch64 prologue analysis: each instruction from a function's start to
 * pc fed to the shared frame state (arch/prologue.h), for code without
 * unwind tables (a stripped program built with -fno-asynchronous-unwind-
 * tables, a function with no FDE).
 *
 * AAPCS64 §6.4 and what GCC and clang emit: a function lowers sp by a
 * multiple of 16 (sub sp, sp, #imm{, lsl #12}; beyond that a constant
 * built in x16/x17 or another scratch register, then sub sp, sp, xN; or
 * the pre-indexed save stp x29, x30, [sp, #-N]! / str x30, [sp, #-N]!),
 * stores x30 (the return address) and the callee-saved x19-x29 it uses
 * with stp/str at [sp, #off], and with a frame record points x29 at the
 * pair {caller's x29, x30} (mov x29, sp / add x29, sp, #imm). Epilogues
 * reload (ldp ..., [sp], #N post-indexed, or at [sp, #off]), release (add
 * sp, sp, #imm; mov sp, x29) and ret. BL and BLR write x30. PACIASP,
 * PACIBSP, AUTIASP and BTI are hints that leave the frame as it is (the
 * walker strips a signed return address). Every instruction is 4 bytes
 * and little-endian whatever the data byte order (Arm ARM B2.6.2). */
#include "arm64_prologue.h"

#include <string.h>

#include "lib/walker.h"
#include "prologue.h"

/* Frame-state register numbers: the DWARF ones (x0-x30, sp = 31). In an
 * encoding, register field 31 is sp or the zero register by instruction:
 * A64_ZR stands for the latter, a number the frame state ignores. */
enum { A64_FP = 29, A64_LR = 30, A64_SP = 31, A64_ZR = 32 };

enum {
	MAX_BACKWARD = 4096,      /* how far back a function's start is sought */
	MAX_FORWARD = 8 * 1024,   /* how much of a function is decoded */
	/* Instructions one analysis may decode over all its candidates: the
	 * search must stay cheap on code built to defeat it. */
	DECODE_BUDGET = 4 * 1024,
};

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

/* Register field f where 31 names the zero register / the stack pointer. */
static unsigned zr(unsigned f)
{
	return f == 31 ? A64_ZR : f;
}

/* A constant in a register (x0 is an ordinary register here: the shared
 * state's register 0 is MIPS's and RISC-V's zero register). */
static bool const_get(const struct sw_prologue *p, unsigned reg, int64_t *v)
{
	if (reg == A64_ZR) {
		*v = 0;
		return true;
	}
	return reg != 0 && sw_pro_const_get(p, reg, v);
}

/* rd = rn + imm (ADD/SUB immediate, or extended register with a known
 * constant), rd and rn with 31 as sp. */
static void add_imm(struct sw_prologue *p, unsigned rd, unsigned rn, int64_t imm)
{
	int64_t v;
	if (rd == A64_SP) {
		if (rn == A64_SP) {
			sw_pro_sp_add(p, imm);
		} else if (rn == A64_FP) {
			/* mov sp, x29 before the reloads: sp becomes a copy of
			 * x29, which stays the CFA's register (GCC's CFI keeps
			 * naming x29 until ldp x29, x30 reloads it). */
			bool from_fp = p->cur.cfa_from_fp;
			sw_pro_sp_from_fp(p, imm);
			p->cur.cfa_from_fp = from_fp && p->cur.fp_known && p->cur.sp_known;
		} else {
			sw_pro_sp_unknown(p);
		}
	} else if (rd == A64_FP && rn == A64_SP) {
		sw_pro_fp_from_sp(p, imm);
	} else if (rd == A64_FP && rn == A64_FP) {
		sw_pro_fp_add(p, imm);
	} else if (const_get(p, rn, &v)) {
		sw_pro_const(p, rd, sw_pro_add(v, imm));
	} else {
		sw_pro_write(p, rd);
	}
}

/* A base register moved by a pre- or post-indexed access. */
static void writeback(struct sw_prologue *p, unsigned base, int64_t off)
{
	if (base == A64_SP)
		sw_pro_sp_add(p, off);
	else if (base == A64_FP)
		sw_pro_fp_add(p, off);
	else
		sw_pro_write(p, base);
}

/* Data processing, immediate (Arm ARM C4.1.86). */
static void decode_dp_imm(struct sw_prologue *p, uint32_t i)
{
	unsigned rd = i & 31, rn = i >> 5 & 31, sf = i >> 31, opc = i >> 29 & 3;
	int64_t v;
	switch (i >> 23 & 7) {
	case 2: { /* ADD/SUB (immediate): Rn is sp; Rd too unless flags are set */
		bool setflags = i >> 29 & 1;
		unsigned dst = rd == 31 ? (setflags ? A64_ZR : A64_SP) : rd;
		int64_t imm = (int64_t)(i >> 10 & 0xfff) << (i >> 22 & 1 ? 12 : 0);
		if (i >> 30 & 1)
			imm = -imm;
		if (!sf || setflags)
			sw_pro_write(p, dst);
		else
			add_imm(p, dst, rn, imm);
		return;
	}
	case 3: /* ADDG/SUBG: Rd may be sp */
		sw_pro_write(p, rd);
		return;
	case 4: /* logical (immediate): Rd is sp unless ANDS */
		sw_pro_write(p, rd == 31 && opc != 3 ? A64_SP : zr(rd));
		return;
	case 5: { /* MOVN, MOVZ, MOVK: a large frame's size */
		unsigned shift = 16 * (i >> 21 & 3);
		uint64_t imm = (uint64_t)(i >> 5 & 0xffff) << shift, r;
		if (rd == 31)
			return;
		if (!sf && shift >= 32) {
			sw_pro_write(p, rd);
			return;
		}
		if (opc == 0)
			r = ~imm;
		else if (opc == 2)
			r = imm;
		else if (opc == 3 && const_get(p, rd, &v))
			r = ((uint64_t)v & ~((uint64_t)0xffff << shift)) | imm;
		else {
			sw_pro_write(p, rd);
			return;
		}
		sw_pro_const(p, rd, (int64_t)(sf ? r : r & 0xffffffffu));
		return;
	}
	default: /* ADR, ADRP, bitfield, extract */
		sw_pro_write(p, zr(rd));
		return;
	}
}

/* Branches, exception generation, system (C4.1.87). */
static void decode_branch_system(struct sw_prologue *p, uint32_t i, bool *ends)
{
	if ((i & 0x7c000000u) == 0x14000000u) {          /* B, BL */
		if (i >> 31)
			sw_pro_call(p, A64_LR);
		else
			*ends = true;
	} else if ((i & 0xfe000000u) == 0xd6000000u) {   /* BR, BLR, RET, ERET and PAC forms */
		if ((i >> 21 & 7) == 1)
			sw_pro_call(p, A64_LR);                  /* BLR, BLRAA, BLRAB, ... */
		else
			*ends = true;
	} else if ((i & 0xffc00000u) == 0xd5000000u) {   /* system: MRS, SYSL write Rt */
		if (i >> 21 & 1)
			sw_pro_write(p, zr(i & 31));
	} else if ((i & 0xff000000u) == 0xd4000000u) {   /* BRK, HLT end the path */
		unsigned opc = i >> 21 & 7;
		*ends = opc == 1 || opc == 2;
	}
	/* B.cond, CBZ, CBNZ, TBZ, TBNZ: no register changes. */
}

/* Loads and stores (C4.1.88). Only 64-bit saves and reloads of general
 * registers are frame events; FP registers (stp d8, d9) only move the base. */
static void decode_load_store(struct sw_prologue *p, uint32_t i)
{
	unsigned rt = zr(i & 31), base = i >> 5 & 31, v = i >> 26 & 1, opc = i >> 22 & 3;
	if ((i & 0x3a000000u) == 0x28000000u) {
		/* Pairs (STP, LDP, STNP, LDNP, LDPSW, STGP): imm7 scaled. */
		unsigned rt2 = zr(i >> 10 & 31), mode = i >> 23 & 3, size = i >> 30;
		bool load = i >> 22 & 1, x = !v && size == 2;
		int64_t off = sext(i >> 15 & 0x7f, 7) * (v ? 4 << size : size & 2 ? 8 : 4);
		int64_t at = mode == 1 || mode == 3 ? 0 : off;
		if (mode == 3)
			writeback(p, base, off);
		if (!v && load) {
			if (x) {
				sw_pro_load(p, rt, base, at);
				sw_pro_load(p, rt2, base, at + 8);
			} else {
				sw_pro_write(p, rt);
				sw_pro_write(p, rt2);
			}
		} else if (x) {
			sw_pro_store(p, rt, base, at, 8);
			sw_pro_store(p, rt2, base, at + 8, 8);
		}
		if (mode == 1)
			writeback(p, base, off);
		return;
	}
	if ((i & 0x3a000000u) == 0x38000000u) {
		/* One register: unsigned offset, imm9 (unscaled, pre-, post-index,
		 * unprivileged), register offset, atomics, LDRAA/LDRAB. */
		unsigned size = i >> 30;
		int64_t at = 0, wb = 0;
		bool pre = false, post = false, addressed = true, atomic = false;
		if (i >> 24 & 1) {
			at = (int64_t)(i >> 10 & 0xfff) << size;
		} else if (!(i >> 21 & 1)) {
			int64_t imm9 = sext(i >> 12 & 0x1ff, 9);
			unsigned kind = i >> 10 & 3;
			pre = kind == 3;
			post = kind == 1;
			at = pre || post ? 0 : imm9;
			wb = imm9;
		} else if (i >> 10 & 1) { /* LDRAA, LDRAB: authenticated, maybe writeback */
			if (!v) {
				sw_pro_write(p, rt);
				if (i >> 11 & 1)
					sw_pro_write(p, base == 31 ? A64_SP : base);
			}
			return;
		} else {
			addressed = false; /* register offset, or an atomic */
			atomic = (i >> 10 & 3) == 0;
		}
		if (pre)
			writeback(p, base, wb);
		if (!v && opc == 0 && size == 3 && addressed)
			sw_pro_store(p, rt, base, at, 8);
		else if (!v && opc == 1 && size == 3 && addressed)
			sw_pro_load(p, rt, base, at);
		else if (!v && (atomic || (opc != 0 && !(size == 3 && opc == 2))))
			sw_pro_write(p, rt); /* other loads; atomics return the old value */
		if (post)
			writeback(p, base, wb);
		return;
	}
	if ((i & 0x3f000000u) == 0x08000000u) {
		/* Exclusive and ordered: the status or compare register Rs, and
		 * loads' Rt (and Rt2 of pairs) are written. */
		unsigned rs = i >> 16 & 31;
		if (rs != 31) {
			sw_pro_write(p, rs);
			if (i >> 21 & 1 && rs < 30)
				sw_pro_write(p, rs + 1);
		}
		if (i >> 22 & 1) {
			sw_pro_write(p, rt);
			if (i >> 21 & 1)
				sw_pro_write(p, zr(i >> 10 & 31));
		}
		return;
	}
	if ((i & 0x3b000000u) == 0x18000000u) { /* LDR (literal), LDRSW, PRFM */
		if (!v && (i >> 30) != 3)
			sw_pro_write(p, rt);
		return;
	}
	if ((i & 0xbe000000u) == 0x0c000000u) { /* SIMD structures: post-index moves Rn */
		if (i >> 23 & 1)
			sw_pro_write(p, base == 31 ? A64_SP : base);
		return;
	}
	if ((i & 0xff200000u) == 0xd9200000u) { /* memory tags: STG, STZG, LDG, ... */
		unsigned kind = i >> 10 & 3;
		if (kind == 1 || kind == 3)
			writeback(p, base, sext(i >> 12 & 0x1ff, 9) * 16);
		else if (opc == 1 && kind == 0)
			sw_pro_write(p, rt);
		return;
	}
	/* LDAPR, STLUR and the rest: a load writes Rt. */
	if (!v && opc != 0)
		sw_pro_write(p, rt);
}

/* Data processing, register (C4.1.89). */
static void decode_dp_reg(struct sw_prologue *p, uint32_t i)
{
	unsigned rd = i & 31, rn = i >> 5 & 31, rm = i >> 16 & 31, sf = i >> 31;
	bool sub = i >> 30 & 1, setflags = i >> 29 & 1;
	int64_t a, b;
	if ((i & 0x1f200000u) == 0x0b200000u) {
		/* ADD/SUB (extended register): Rn is sp, Rd too unless flags are
		 * set; sub sp, sp, x16 after mov x16, #N allocates a large frame. */
		unsigned dst = rd == 31 ? (setflags ? A64_ZR : A64_SP) : rd;
		unsigned option = i >> 13 & 7, shift = i >> 10 & 7;
		if (sf && !setflags && (option & 3) == 3 && shift <= 4 && const_get(p, zr(rm), &b)) {
			b = (int64_t)((uint64_t)b << shift);
			add_imm(p, dst, rn, sub ? sw_pro_sub(0, b) : b);
		} else {
			sw_pro_write(p, dst);
		}
		return;
	}
	if ((i & 0x1f200000u) == 0x0b000000u && sf && !setflags && (i >> 22 & 3) == 0 &&
	    const_get(p, zr(rn), &a) && const_get(p, zr(rm), &b)) {
		/* ADD/SUB (shifted register, LSL) of two constants. */
		b = (int64_t)((uint64_t)b << (i >> 10 & 63));
		sw_pro_const(p, zr(rd), sub ? sw_pro_sub(a, b) : sw_pro_add(a, b));
		return;
	}
	if ((i & 0xff2003e0u) == 0xaa0003e0u && (i >> 10 & 63) == 0 && const_get(p, zr(rm), &b)) {
		sw_pro_const(p, zr(rd), b); /* MOV Xd, Xm (ORR Xd, xzr, Xm) */
		return;
	}
	sw_pro_write(p, zr(rd));
}

/* SIMD and floating point (C4.1.90): only moves and conversions to a
 * general register write one. */
static void decode_simd_fp(struct sw_prologue *p, uint32_t i)
{
	if ((i & 0x5f20fc00u) == 0x1e200000u) {
		unsigned opcode = i >> 16 & 7; /* SCVTF, UCVTF, FMOV from general: 2, 3, 7 */
		if (opcode != 2 && opcode != 3 && opcode != 7)
			sw_pro_write(p, zr(i & 31));
	} else if ((i & 0xbfe0ec00u) == 0x0e002c00u) { /* SMOV, UMOV */
		sw_pro_write(p, zr(i & 31));
	}
}

/* Feeds one instruction to the frame state; *ends: no path falls through
 * it. The top-level groups are op0, bits 28:25 (C4.1). */
static void decode(struct sw_prologue *p, uint32_t i, bool *ends)
{
	unsigned op0 = i >> 25 & 15;
	if ((op0 & 0xe) == 0x8) {
		decode_dp_imm(p, i);
	} else if ((op0 & 0xe) == 0xa) {
		decode_branch_system(p, i, ends);
	} else if ((op0 & 0x5) == 0x4) {
		decode_load_store(p, i);
	} else if ((op0 & 0x7) == 0x5) {
		decode_dp_reg(p, i);
	} else if ((op0 & 0x7) == 0x7) {
		decode_simd_fp(p, i);
	} else if (op0 == 2) {
		/* SVE: ADDVL/ADDPL may move sp by a multiple of the vector length
		 * (not known here); any other may write a general register. */
		unsigned rd = i & 31;
		if ((i & 0xffa0f800u) == 0x04205000u)
			sw_pro_write(p, rd == 31 ? A64_SP : rd);
		else
			sw_pro_write(p, zr(rd));
	} else {
		p->failed = true; /* UDF and unallocated encodings: not code */
	}
}

/* RET Xn, RETAA, RETAB (C6.2.254-255). */
static bool is_ret(uint32_t i)
{
	return (i & 0xfffffc1fu) == 0xd65f0000u || i == 0xd65f0bffu || i == 0xd65f0fffu;
}

/* B, BR and its authenticating forms: a tail call, a jump table. */
static bool is_jump(uint32_t i)
{
	return (i & 0xfc000000u) == 0x14000000u || (i & 0xfffffc1fu) == 0xd61f0000u ||
	       (i & 0xfffff81fu) == 0xd61f081fu || (i & 0xfffff800u) == 0xd71f0800u;
}

/* BL, BLR and their authenticating forms. */
static bool is_call(uint32_t i)
{
	return (i & 0xfc000000u) == 0x94000000u ||  /* BL */
	       (i & 0xfffffc1fu) == 0xd63f0000u ||  /* BLR */
	       (i & 0xfffff81fu) == 0xd63f081fu ||  /* BLRAAZ, BLRABZ */
	       (i & 0xfffff800u) == 0xd73f0800u;    /* BLRAA, BLRAB */
}

/* NOP, BTI, PACIASP, PACIBSP: what may stand between functions or open one. */
static bool is_filler(uint32_t i)
{
	return i == 0xd503201fu || (i & 0xffffff3fu) == 0xd503241fu || i == 0xd503233fu ||
	       i == 0xd503237fu;
}

static bool read_insn(struct sw_code *c, uint64_t addr, uint32_t *i)
{
	uint8_t b[4];
	if (!sw_code_read(c, addr, b, 4))
		return false;
	*i = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return true;
}

/* A direct branch's destination: B, B.cond, CBZ, CBNZ, TBZ, TBNZ. */
static bool branch_destination(uint32_t i, uint64_t at, uint64_t *to)
{
	if ((i & 0xfc000000u) == 0x14000000u)
		*to = at + (uint64_t)sext((uint64_t)(i & 0x3ffffffu) << 2, 28);
	else if ((i & 0xff000010u) == 0x54000000u || (i & 0x7e000000u) == 0x34000000u)
		*to = at + (uint64_t)sext((uint64_t)(i >> 5 & 0x7ffffu) << 2, 21);
	else if ((i & 0x7e000000u) == 0x36000000u)
		*to = at + (uint64_t)sext((uint64_t)(i >> 5 & 0x3fffu) << 2, 16);
	else
		return false;
	return true;
}

/* Decodes from start; true if the instructions reach pc, with p the frame
 * state there. Each instruction costs one unit of *budget. */
static bool decode_range(struct sw_code *c, struct sw_prologue *p, uint64_t start, uint64_t pc,
                         enum sw_pro_returns returns, unsigned *budget)
{
	uint64_t a = start, stop = pc, reach = 0, to = 0;
	bool truncated = false, after_call = false, restarted = false;
	struct sw_pro_candidate k = { .returns = returns };
	p->decoded_from = start;
	if (pc - start > MAX_FORWARD) {
		/* A huge function: decode its prologue, take the rest for body
		 * code that has made calls. */
		stop = start + MAX_FORWARD;
		truncated = true;
	}
	for (; a < stop; a += 4) {
		uint32_t i;
		bool ends = false;
		if (*budget == 0 || !read_insn(c, a, &i))
			return false;
		--*budget;
		/* Padding right after a call that no branch seen jumps to: the
		 * call never returns (GCC ends a function with bl abort), the
		 * code from here is another function's, as after a return. */
		if (after_call && is_filler(i) && a > reach && returns != SW_PRO_RETURNS_END_PATHS)
			return false;
		after_call = is_call(i);
		bool branch = branch_destination(i, a, &to);
		if (branch && to > reach)
			reach = to;
		decode(p, i, &ends);
		bool ret = is_ret(i);
		if (!sw_pro_candidate_step(p, &k, ret, ends))
			return false;
		/* A candidate's function ends at a return, or a B below its
		 * start (a tail call), past which no branch seen leads (the
		 * tail jumps ending frame_dummy, then f3: zoo aarch64 183
		 * stripped, where f3 ends `b .` after the crash and no return
		 * refuted the candidate): pc is in the next function, which
		 * begins right after it with nothing of the candidate's frame;
		 * the decode starts afresh there (as arch/riscv.c does), from
		 * a start now known, whose own returns end paths (f2's early
		 * return before the code its b.gt reaches: zoo aarch64 186). A
		 * jump through a register (a switch's table) may lead on. */
		bool tail = (i & 0xfc000000u) == 0x14000000u && branch && to < start;
		if ((returns != SW_PRO_RETURNS_END_PATHS || restarted) && (ret || tail) &&
		    a + 4 < pc && a + 4 > reach) {
			sw_pro_init(p, c->w->arch);
			k = (struct sw_pro_candidate){ .returns = SW_PRO_RETURNS_END_PATHS };
			start = reach = a + 4;
			p->decoded_from = start;
			restarted = true;
			continue;
		}
		/* A BL to an address from its own return up to pc enters
		 * another function there: a function never calls into its own
		 * body past the call. The candidate's function ended with a
		 * call that does not return (zoo aarch64 206 stripped: f2 ends
		 * `bl f3`, f3 right after it; f2's 48-byte frame was taken for
		 * f3's, and its sp came out 48 high). */
		uint64_t entered = a + (uint64_t)sext((uint64_t)(i & 0x3ffffffu) << 2, 28);
		if ((returns != SW_PRO_RETURNS_END_PATHS || restarted) &&
		    (i & 0xfc000000u) == 0x94000000u && entered >= a + 4 && entered <= pc &&
		    entered < stop && entered % 4 == 0) {
			sw_pro_init(p, c->w->arch);
			k = (struct sw_pro_candidate){ .returns = SW_PRO_RETURNS_END_PATHS };
			start = reach = entered;
			p->decoded_from = start;
			restarted = true;
			after_call = false;
			a = entered - 4;
		}
	}
	if (truncated) {
		sw_pro_call(p, A64_LR);
		return true;
	}
	return a == pc;
}

/* Does the instruction at a open a frame: sub sp, sp, #imm; stp x.., x..,
 * [sp, #-N]! or stp d.., d.., [sp, #-N]!; str x.., [sp, #-N]!? */
static bool is_allocation(struct sw_code *c, uint64_t a)
{
	uint32_t i;
	if (!read_insn(c, a, &i))
		return false;
	return (i & 0xff8003ffu) == 0xd10003ffu ||
	       (((i & 0xffc003e0u) == 0xa98003e0u || (i & 0xffc003e0u) == 0x6d8003e0u) &&
	        (i >> 21 & 1)) ||                                      /* stp, pre, imm7 < 0 */
	       ((i & 0xffe00fe0u) == 0xf8000fe0u && (i >> 20 & 1));    /* str x, pre, imm9 < 0 */
}

/* How the code just before a ends, past padding: a return, a jump, a
 * call with padding after it (one that never returns), or other code. */
enum before { BEFORE_CODE, BEFORE_RETURN, BEFORE_JUMP, BEFORE_CALL };

static enum before code_before(struct sw_code *c, uint64_t a, uint64_t lo, uint64_t *call_end)
{
	uint32_t i;
	for (unsigned k = 0; k < 8 && a >= lo + 4; k++) {
		a -= 4;
		if (!read_insn(c, a, &i))
			return BEFORE_CODE;
		if (is_ret(i))
			return BEFORE_RETURN;
		if (is_jump(i))
			return BEFORE_JUMP;
		if (is_call(i) && k > 0) {
			*call_end = a + 4;
			return BEFORE_CALL;
		}
		if (!is_filler(i))
			return BEFORE_CODE;
	}
	return BEFORE_CODE;
}

/* Does code just before a (up to a function boundary) lower sp? Then an
 * allocation at a is the second step of a large frame's (sub sp, sp,
 * #0x180; ...; sub sp, sp, #0x11, lsl #12), not a function's start. */
static bool lowered_before(struct sw_code *c, uint64_t a, uint64_t lo)
{
	uint32_t i;
	for (unsigned k = 0; k < 8 && a >= lo + 4; k++) {
		a -= 4;
		if (!read_insn(c, a, &i) || is_ret(i) || is_jump(i) || is_call(i))
			return false;
		if (is_allocation(c, a) || (i & 0xffe003ffu) == 0xcb2003ffu) /* sub sp, sp, xN */
			return true;
	}
	return false;
}

/* How much an instruction releases of the frame: add sp, sp, #imm; ldp
 * or ldr post-indexed on sp. */
static int64_t released(uint32_t i)
{
	if ((i & 0xff8003ffu) == 0x910003ffu)
		return (int64_t)(i >> 10 & 0xfff) << (i >> 22 & 1 ? 12 : 0);
	if ((i & 0xffc003e0u) == 0xa8c003e0u)
		return sext(i >> 15 & 0x7f, 7) * 8;
	if ((i & 0xffe00fe0u) == 0xf84007e0u)
		return sext(i >> 12 & 0x1ff, 9);
	return 0;
}

/* Enough of the code from pc on to see whether the frame state found
 * for a candidate start fits it: an epilogue ahead that releases more
 * than the state has allocated, or returns with some of it still
 * allocated, shows the candidate started inside the function. Code that
 * allocates first is not an epilogue. */
enum { PEEK = 8 };

static bool fits_code_ahead(struct sw_code *c, const struct sw_prologue *p, uint64_t pc,
                            unsigned *budget)
{
	struct sw_prologue q = *p;
	for (uint64_t a = pc; a - pc < 4 * PEEK; a += 4) {
		uint32_t i;
		bool ends = false;
		if (*budget == 0 || !read_insn(c, a, &i))
			return true; /* nothing more to see */
		--*budget;
		if (!q.cur.sp_known)
			return true;
		int64_t r = released(i);
		if (r > 0 && q.cur.sp_off + r > 0)
			return false;
		if (is_ret(i))
			return q.cur.sp_off == 0;
		int64_t before = q.cur.sp_off;
		decode(&q, i, &ends);
		if (q.failed)
			return false;
		if (ends || branch_destination(i, a, &(uint64_t){ 0 }))
			return true;
		/* An allocation is no epilogue's: the code ahead is another
		 * function's (after a call that does not return, GCC puts the
		 * next function right after the bl: zoo aarch64 1024, f3's
		 * `bl abort` and _fini), nothing to judge by. */
		if (q.cur.sp_known && q.cur.sp_off < before)
			return true;
	}
	return true;
}

/* Without symbols the start is sought by candidates, nearest first (as
 * arch/riscv.c does): a frame allocation (this function's prologue,
 * though a large frame's size may be built before it), or the first
 * instruction after a return past padding (the previous function's end:
 * this one then may be a leaf), or after a call past padding (a call that
 * never returns ends the previous function), or after a jump (a tail call
 * ends the previous function; code after a jump inside a function is
 * common, so such a candidate must build a frame of its own on the way).
 * An allocation with another just before it is a large frame's second
 * step, not a start; and the code just past pc must fit the state found
 * (fits_code_ahead). Each is
 * decoded forwards and accepted only if it reaches pc, passes no return
 * on the way (from an allocation, only its own epilogues' returns), keeps
 * track of the CFA, and, where a call on the way replaced x30, had saved
 * it first: a function that calls before saving x30 could never return,
 * so the candidate is a block after an epilogue, not a start. The search
 * runs back from `origin`: pc, or for a suspended frame its call. */
static bool decode_without_symbols(struct sw_code *c, struct sw_prologue *p, uint64_t origin,
                                   uint64_t pc, uint64_t live_ra, unsigned *budget)
{
	uint64_t lo = sw_pro_search_floor(c->w, origin, MAX_BACKWARD);
	for (uint64_t x = origin & ~(uint64_t)3; x >= lo; x -= 4) {
		uint32_t i;
		if (!read_insn(c, x, &i) && x != pc)
			return false; /* the code before x is not captured */
		bool allocation = is_allocation(c, x) && !lowered_before(c, x, lo);
		uint64_t call_end = 0;
		enum before before = allocation ? BEFORE_CODE : code_before(c, x, lo, &call_end);
		/* Padding after a call that returned (x30 holds its return
		 * address) is executed: no function boundary. */
		if (before == BEFORE_CALL && live_ra == call_end)
			before = BEFORE_CODE;
		if (allocation || before != BEFORE_CODE) {
			sw_pro_init(p, c->w->arch);
			enum sw_pro_returns returns = allocation ? SW_PRO_RETURNS_EPILOGUE_ONLY : SW_PRO_RETURNS_REFUTE;
			if (decode_range(c, p, x, pc, returns, budget) &&
			    (p->cur.sp_known || p->cur.fp_known) && !sw_pro_ra_lost(p) &&
			    (before != BEFORE_JUMP || p->cur.saved || p->cur.sp_off < 0) &&
			    fits_code_ahead(c, p, pc, budget))
				return true;
			if (*budget == 0)
				return false;
		}
		if (x < lo + 4)
			break;
	}
	return false;
}

static bool analyze(const struct sw_step *s, struct sw_code *c, struct sw_prologue *p)
{
	const struct sw_frame *callee = s->callee;
	uint64_t pc = callee->pc;
	uint64_t start = sw_pro_symbol_start(s);
	unsigned budget = DECODE_BUDGET;
	if (start && start <= pc && !callee->function_is_public) {
		sw_pro_init(p, s->walk->arch);
		return decode_range(c, p, start, pc, SW_PRO_RETURNS_END_PATHS, &budget);
	}
	/* A PUBLIC record may name an exported function far below a static
	 * one: candidates from the code first, the symbol's start last. */
	bool live = sw_frame_has_live_context(callee);
	uint64_t origin = live ? pc : callee->lookup_pc, live_ra = 0;
	if (live && sw_reg_valid(&callee->regs, A64_LR))
		live_ra = s->walk->arch->strip_code_pointer(s->walk, callee->regs.v[A64_LR]);
	if (decode_without_symbols(c, p, origin, pc, live_ra, &budget))
		return true;
	if (!start || start > pc)
		return false;
	sw_pro_init(p, s->walk->arch);
	budget = DECODE_BUDGET;
	return decode_range(c, p, start, pc, SW_PRO_RETURNS_END_PATHS, &budget);
}

bool sw_arm64_live_cfa(const struct sw_step *s, uint64_t *cfa)
{
	const struct sw_frame *callee = s->callee;
	if (!sw_frame_has_live_context(callee) || !sw_reg_valid(&callee->regs, A64_SP) ||
	    (callee->pc & 3) != 0)
		return false;
	struct sw_code c;
	sw_code_init(&c, s->walk);
	struct sw_prologue p;
	if (!analyze(s, &c, &p) || !p.cur.sp_known)
		return false;
	*cfa = callee->regs.v[A64_SP] - (uint64_t)p.cur.sp_off;
	return true;
}

/* How far above the record the code places the CFA, or 0: the answer
 * for pc's function, the same for every frame of a recursion (kept in
 * the walk's memo, which on AArch64 nothing else uses). */
static uint64_t record_depth(const struct sw_step *s)
{
	const struct sw_frame *callee = s->callee;
	struct sw_walk_memo *m = s->walk->memo;
	if (m && m->valid && m->key == callee->pc)
		return m->answer ? m->value : 0;
	uint64_t depth = 0;
	struct sw_code c;
	sw_code_init(&c, s->walk);
	struct sw_prologue p;
	const uint32_t record = 1u << A64_FP | 1u << A64_LR;
	if (sw_pro_symbol_start(s) && !callee->function_is_public && analyze(s, &c, &p) &&
	    !p.failed && p.cur.fp_known && (p.cur.saved & record) == record &&
	    p.cur.slot[A64_FP] == p.cur.fp_off && p.cur.slot[A64_LR] == p.cur.fp_off + 8 &&
	    p.cur.fp_off < 0)
		depth = (uint64_t)-p.cur.fp_off;
	if (m)
		*m = (struct sw_walk_memo){ .valid = true, .answer = depth != 0, .key = callee->pc,
		                            .value = depth };
	return depth;
}

bool sw_arm64_record_cfa(const struct sw_step *s, uint64_t fp, uint64_t *cfa)
{
	if ((s->callee->pc & 3) != 0)
		return false;
	uint64_t depth = record_depth(s);
	if (depth == 0 || fp > UINT64_MAX - depth)
		return false;
	*cfa = fp + depth;
	return true;
}

/* How exact the callee's sp is. A frame found through a frame record or
 * by a scan has only a lower bound for it (lib/walker.c,
 * sp_only_bounded: AArch64 keeps x30 at the bottom of a frame, not at
 * its CFA); its x29, restored from the record, is exact, and so is its
 * sp where the record's owner's code places the record below its CFA
 * (sw_arm64_record_cfa: the record step marks it sp_exact). A frame
 * found through the live x30 of the context frame below it
 * (arch/arm64.c) is exact where its sp is the CFA that frame's code
 * shows (sw_arm64_live_cfa). A leaf that called through a NULL pointer
 * moved none (caller_of_bad_pc). */
static bool sp_is_exact(const struct sw_step *s)
{
	const struct sw_frame *callee = s->callee, *below = s->callee_callee;
	if (sw_frame_has_live_context(callee) ||
	    (callee->trust != SW_TRUST_FRAME_POINTER && callee->trust != SW_TRUST_SCAN))
		return true;
	if (callee->trust != SW_TRUST_FRAME_POINTER || !below)
		return false;
	if (callee->sp_exact)
		return true;
	struct sw_step t = { .walk = s->walk, .callee = below, .callee_callee = NULL };
	uint64_t cfa;
	return sw_arm64_live_cfa(&t, &cfa) && cfa == callee->regs.v[A64_SP];
}

/* A scan found the callee's return address in `slot`. Where the callee's
 * code shows x30 stored at CFA + k (k < 0) by pc, the slot is that store's
 * and the CFA, the caller's sp, is slot - k: not slot + 8, which lies
 * inside the callee's frame (AArch64 keeps x30 at a frame's bottom; zoo
 * aarch64 1034 stripped: main's x30 at sp + 16 of its 32 bytes, and
 * __libc_start_call_main's CFI, CFA = sp + 272, read from 8 bytes too
 * low, gave nothing, and the next scan took a stale word in main's
 * frame). The sp the code then had, CFA + its offset, must be at or above
 * the callee's (exactly it where that is exact); the registers the code
 * saved are read from their slots, the others it left alone passed on,
 * as the prologue rule does from that sp. */
bool sw_arm64_scanned_caller(const struct sw_step *s, uint64_t slot, uint64_t ra,
                             struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	if (!sw_reg_valid(&callee->regs, A64_SP) || (callee->pc & 3) != 0)
		return false;
	struct sw_code c;
	sw_code_init(&c, w);
	struct sw_prologue p;
	if (!analyze(s, &c, &p) || p.failed || !p.cur.sp_known ||
	    !(p.cur.saved & 1u << A64_LR) || p.cur.width[A64_LR] != 8 ||
	    p.cur.slot[A64_LR] >= 0 || p.cur.slot[A64_LR] < p.cur.sp_off)
		return false;
	uint64_t cfa = slot - (uint64_t)p.cur.slot[A64_LR];
	uint64_t sp = cfa + (uint64_t)p.cur.sp_off, bound = callee->regs.v[A64_SP];
	if (cfa <= slot || sp < bound || (sp_is_exact(s) && sp != bound))
		return false;
	struct sw_frame probe = *callee;
	probe.regs.v[A64_SP] = sp;
	struct sw_step t = *s;
	t.callee = &probe;
	p.cur.cfa_from_fp = false;
	struct sw_caller got;
	if (sw_pro_caller(&p, &t, &got) != SW_UNWIND_OK || !sw_reg_valid(&got.regs, w->arch->pc) ||
	    got.regs.v[w->arch->pc] != ra || got.regs.v[A64_SP] != cfa)
		return false;
	*out = got;
	return true;
}

enum sw_unwind_status sw_arm64_caller_by_prologue(const struct sw_step *s, struct sw_caller *out)
{
	if (!sw_reg_valid(&s->callee->regs, A64_SP) || (s->callee->pc & 3) != 0)
		return SW_UNWIND_NO_RULE;
	struct sw_code c;
	sw_code_init(&c, s->walk);
	struct sw_prologue p;
	if (!analyze(s, &c, &p))
		return SW_UNWIND_NO_RULE;
	/* From a bounded sp only x29 locates the CFA, where the code set it:
	 * a slot read from sp would be any stale word (zoo aarch64 5
	 * stripped: __libc_start_main's scanned frame read an old return
	 * address into _init). */
	if (!sp_is_exact(s)) {
		if (!p.cur.fp_known || !sw_reg_valid(&s->callee->regs, A64_FP))
			return SW_UNWIND_NO_RULE;
		p.cur.cfa_from_fp = true;
		enum sw_unwind_status st = sw_pro_caller(&p, s, out);
		return st == SW_UNWIND_END ? SW_UNWIND_NO_RULE : st;
	}
	enum sw_unwind_status st = sw_pro_caller(&p, s, out);
	/* With both sp and x29 known the two agree in the code's own frame;
	 * GCC's CFI names x29 only in a function that moves sp by unknown
	 * amounts (alloca), sp otherwise. Where the register that defined
	 * the CFA last gives none (x29 not the frame's: a context stopped
	 * where the compiler keeps it for something else), the other is
	 * asked, and its answer passes the same checks. */
	if (st == SW_UNWIND_NO_RULE && p.cur.sp_known && p.cur.fp_known) {
		p.cur.cfa_from_fp = !p.cur.cfa_from_fp;
		st = sw_pro_caller(&p, s, out);
	}
	return st;
}
