/* RISC-V RV32 and RV64, with or without the C extension (psABI). Register
 * numbers 0-31 are x0-x31 under their ABI names (their DWARF numbers); pc
 * follows, then vlenb (the V extension's vector register length in bytes,
 * a read-only CSR that CFI for vector spills names). Callers come from CFI (the walker), the s0 frame-pointer chain,
 * prologue analysis, then the walker's validated scan. Instructions are
 * little-endian parcels of 16 bits whatever the data byte order (RISC-V
 * ISA manual, "Instruction Length Encoding"). */
#include "registry.h"

#include <string.h>

#include "lib/walker.h"
#include "prologue.h"
#include "riscv_trap.h"
#include "same_function.h"
#include "signal_frame.h"
#include "stub.h"

enum { RV_ZERO = 0, RV_RA = 1, RV_SP = 2, RV_T0 = 5, RV_S0 = 8, RV_PC = 32, RV_VLENB = 33 };

static const char *const riscv_reg_names[] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
	"a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
	"s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6", "pc",
	"vlenb",
};

/* vlenb is not printed: Breakpad and rust-minidump know no such register. */
static const uint8_t riscv_print_order[] = {
	RV_PC, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

/* DWARF numbers (psABI "DWARF Register Numbers"): x0-x31 are 0-31, f0-f31
 * 32-63; the pc has none. 64 is the "Alternate Frame Return Column": no
 * register, a CFI return-address column (a trap entry's CIE names it and
 * saves mepc there, .cfi_return_column 64), read as the caller's pc by
 * the CFI provider whatever its number (symbols/elf_symbols.c). */
static const int8_t riscv_dwarf_regs[32] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

/* psABI "DWARF Register Numbers": 4096 + n is control and status register
 * n; vlenb is CSR 0xc22 (V extension, "Vector Byte Length"). */
static const struct sw_dwarf_reg_pair riscv_dwarf_extra[] = {
	{ 4096 + 0xc22, RV_VLENB },
};

/* vlenb is a property of the hardware thread, the same in every frame:
 * callers found without CFI keep the callee's (the walker's CFI step
 * keeps it as a callee-saved register). */
static void keep_vlenb(const struct sw_frame *callee, struct sw_caller *out)
{
	if (sw_reg_valid(&callee->regs, RV_VLENB))
		sw_reg_set(&out->regs, RV_VLENB, callee->regs.v[RV_VLENB]);
}

/* Calls are 4 bytes (jal, jalr) or 2 (c.jal, c.jalr): ra - 2 lies inside
 * the call of either length, so symbolization stays in the calling
 * function even when a call to a function that never returns ends it. */
static uint64_t riscv_call_site(uint64_t ra)
{
	return ra - 2;
}

static uint64_t riscv_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr;
}

/* Instructions are 2-byte aligned with the C extension. */
static bool riscv64_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && (pc & 1) == 0;
}

static bool riscv32_pc_plausible(uint64_t pc)
{
	return riscv64_pc_plausible(pc) && pc <= 0xffffffffu;
}

static bool read16(struct sw_code *c, uint64_t addr, uint16_t *h)
{
	uint8_t b[2];
	if (!sw_code_read(c, addr, b, 2))
		return false;
	*h = (uint16_t)(b[0] | b[1] << 8);
	return true;
}

static bool read32(struct sw_code *c, uint64_t addr, uint32_t *i)
{
	uint8_t b[4];
	if (!sw_code_read(c, addr, b, 4))
		return false;
	*i = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return true;
}

/* The length of the instruction whose first parcel is h: 2, 4, or 0 for
 * the longer encodings (not decoded here). */
static unsigned insn_length(uint16_t h)
{
	if ((h & 3) != 3)
		return 2;
	return (h & 0x1c) != 0x1c ? 4 : 0;
}

/* Calls that link through ra (ISA manual, "Control Transfer
 * Instructions"; psABI: ra is the return address register): JAL and JALR
 * with rd = ra, 4 bytes before the return address; C.JALR (any rs1 but
 * x0), and on RV32 only C.JAL (RV64 gives its encoding to C.ADDIW), 2
 * bytes before it. The bytes before a return address cannot say where
 * instructions start: when the symbols give the function's start (at
 * most MAX_BOUNDARY_SPAN bytes back), instruction lengths are followed
 * from there and only the instruction that ends exactly at the return
 * address counts; otherwise either length is tried, and the upper half of
 * a 32-bit instruction, or two 16-bit ones, may pass for a call. */
static bool is_call32(uint32_t i)
{
	return (i & 0xfff) == 0x0ef ||                 /* jal ra, off */
	       (i & 0x7fff) == 0x00e7;                 /* jalr ra, off(rs1) */
}

static bool is_call16(uint16_t h, unsigned word_size)
{
	if ((h & 0xf07f) == 0x9002 && (h & 0x0f80) != 0) /* c.jalr rs1 */
		return true;
	return word_size == 4 && (h & 0xe003) == 0x2001; /* c.jal (RV32) */
}

/* How far from its function's start a return address may lie for the
 * lengths to be followed: a scan asks about every stack word, and the
 * cost must stay small on stacks built to make it large. */
enum { MAX_BOUNDARY_SPAN = 2048 };

/* Is the instruction ending exactly at ra, decoded from the function's
 * start, a call? False also when no instruction ends at ra. *decided is
 * false when the code cannot be followed (not captured, long encodings). */
static bool call_ends_at(struct sw_code *c, uint64_t start, uint64_t ra, unsigned word_size,
                         bool *decided)
{
	*decided = false;
	for (uint64_t a = start; a < ra;) {
		uint16_t h;
		uint32_t i;
		if (!read16(c, a, &h))
			return false;
		unsigned len = insn_length(h);
		if (len == 0)
			return false;
		if (a + len >= ra) {
			*decided = true;
			if (a + len > ra)
				return false; /* ra is inside an instruction */
			if (len == 2)
				return is_call16(h, word_size);
			if (!read32(c, a, &i)) {
				*decided = false;
				return false;
			}
			return is_call32(i);
		}
		a += len;
	}
	*decided = true;
	return false;
}

static bool riscv_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	struct sw_code c;
	sw_code_init(&c, w);
	uint32_t i;
	uint16_t h;
	uint64_t start;
	bool have32 = ra >= 4 && read32(&c, ra - 4, &i);
	bool have16 = ra >= 2 && read16(&c, ra - 2, &h);
	if ((have32 && is_call32(i)) || (have16 && is_call16(h, w->arch->word_size))) {
		*known = true;
		/* The bytes look like a call: make sure one ends at ra. */
		bool decided = false, call = true;
		if ((ra & 1) == 0 && sw_walk_function_start(w, ra - 2, &start) &&
		    ra - start <= MAX_BOUNDARY_SPAN)
			call = call_ends_at(&c, start, ra, w->arch->word_size, &decided);
		return decided ? call : true;
	}
	/* Without the 4 bytes at ra - 4, a 32-bit call cannot be ruled out. */
	*known = have32;
	return !have32;
}

static int64_t sext(uint64_t v, unsigned bits);

/* A PLT entry at `at` (psABI "Procedure Linkage Table"; binutils and lld
 * write the same):
 *   auipc t3, hi; l{w|d} t3, lo(t3); jalr t1, t3; nop
 * jumps through the GOT slot at + hi + lo. */
static bool riscv_plt_slot(struct sw_code *c, uint64_t at, unsigned word_size, uint64_t *slot)
{
	uint32_t auipc, load, jalr;
	uint32_t load_op = word_size == 8 ? 0x00003e03u : 0x00002e03u; /* ld / lw t3, (t3) */
	if (!read32(c, at, &auipc) || (auipc & 0xfffu) != 0xe17u || !read32(c, at + 4, &load) ||
	    (load & 0xfffffu) != (load_op | 28u << 15) || !read32(c, at + 8, &jalr) ||
	    jalr != 0x000e0367u)
		return false;
	*slot = at + (uint64_t)(sext(auipc & 0xfffff000u, 32) + sext(load >> 20, 12));
	if (word_size == 4)
		*slot &= 0xffffffffu;
	return true;
}

static bool riscv_direct_call(const struct sw_walk *w, struct sw_code *c, uint64_t ra,
                              uint64_t *target);

/* The call_target hook: the direct call's target, followed through a PLT
 * entry (arch.h). */
static bool riscv_call_target(const struct sw_walk *w, uint64_t ra, uint64_t *target)
{
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t at, slot;
	if (!riscv_direct_call(w, &c, ra, &at))
		return false;
	if (riscv_plt_slot(&c, at, w->arch->word_size, &slot))
		return sw_stub_through_slot(w, at, slot, w->arch->word_size, target);
	*target = at;
	return true;
}

/* The J-immediate of jal (ISA manual, "Unconditional Jumps") and the
 * CJ-immediate of c.j/c.jal (C extension, "Control Transfer
 * Instructions"): byte offsets from the instruction. */
static int64_t j_offset(uint32_t i)
{
	return sext((uint64_t)(i >> 31) << 20 | (uint64_t)(i >> 12 & 0xff) << 12 |
	                    (uint64_t)(i >> 20 & 1) << 11 | (uint64_t)(i >> 21 & 0x3ff) << 1,
	            21);
}

static int64_t cj_offset(uint16_t h)
{
	return sext((uint64_t)(h >> 12 & 1) << 11 | (uint64_t)(h >> 11 & 1) << 4 |
	                    (uint64_t)(h >> 9 & 3) << 8 | (uint64_t)(h >> 8 & 1) << 10 |
	                    (uint64_t)(h >> 7 & 1) << 6 | (uint64_t)(h >> 6 & 1) << 7 |
	                    (uint64_t)(h >> 3 & 7) << 1 | (uint64_t)(h >> 2 & 1) << 5,
	            12);
}

/* The target of a direct call ending at ra (ISA manual, "Unconditional
 * Jumps" and "Control Transfer Instructions" of the C extension):
 *   jal ra, off                 ra - 4 + off (J-immediate)
 *   auipc rX, hi; jalr ra, lo(rX)  ra - 8 + (hi << 12) + lo (the `call`
 *                               pseudo-instruction, any rX)
 *   c.jal off (RV32)            ra - 2 + off (CJ-immediate)
 * A jalr through a register that no auipc just set, and c.jalr, are
 * indirect: no target. */
static bool riscv_direct_call(const struct sw_walk *w, struct sw_code *c, uint64_t ra,
                              uint64_t *target)
{
	uint32_t i, hi;
	uint16_t h;
	uint64_t mask = w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	if (ra >= 4 && read32(c, ra - 4, &i)) {
		if ((i & 0xfff) == 0x0ef) { /* jal ra */
			*target = (ra - 4 + (uint64_t)j_offset(i)) & mask;
			return true;
		}
		unsigned rs1 = i >> 15 & 31;
		if ((i & 0x7fff) == 0x00e7 && rs1 != 0 && ra >= 8 && read32(c, ra - 8, &hi) &&
		    (hi & 0x7f) == 0x17 && (hi >> 7 & 31) == rs1) { /* auipc rX; jalr ra, lo(rX) */
			int64_t off = sext(hi & 0xfffff000u, 32) + sext(i >> 20, 12);
			*target = (ra - 8 + (uint64_t)off) & mask;
			return true;
		}
		if (is_call32(i))
			return false; /* jalr through a register: indirect */
	}
	if (w->arch->word_size == 4 && ra >= 2 && read16(c, ra - 2, &h) && (h & 0xe003) == 0x2001) {
		*target = (ra - 2 + (uint64_t)cj_offset(h)) & mask;
		return true;
	}
	return false;
}

/* How far past a call's target the code is followed to pc. */
enum { RV_MAX_ENTERED = 4096 };

/* How an instruction (h, its first halfword; i, the whole of a 32-bit
 * one) at a moves the flow: whether no path falls through it (ret, jr, a
 * jump through a register; j and c.j, whose destination is *to; UINT64_MAX
 * for the indirect ones). */
static bool rv_flow_of(uint16_t h, uint32_t i, unsigned len, uint64_t a, uint64_t *to)
{
	*to = UINT64_MAX;
	if (len == 2) {
		if ((h & 0xe003) == 0xa001) { /* c.j */
			*to = a + (uint64_t)cj_offset(h);
			return true;
		}
		return (h & 0xf07f) == 0x8002 && (h >> 7 & 31) != 0; /* c.jr rs, ret */
	}
	if ((i & 0xfff) == 0x06f) { /* jal x0: j */
		*to = a + (uint64_t)j_offset(i);
		return true;
	}
	return (i & 0x7fff) == 0x0067; /* jalr x0, rs: ret, jr */
}

/* The destination of a direct branch or jump (B-type, j, c.j, c.beqz,
 * c.bnez: ISA manual "Conditional Branches" and the C extension's
 * "Control Transfer Instructions"); calls are not followed. */
static bool rv_branch_of(uint16_t h, uint32_t i, unsigned len, uint64_t a, uint64_t *dest)
{
	if (len == 2) {
		if ((h & 0xe003) == 0xa001) { /* c.j */
			*dest = a + (uint64_t)cj_offset(h);
			return true;
		}
		if ((h & 0xc003) == 0xc001) { /* c.beqz, c.bnez */
			int64_t off = sext((uint64_t)(h >> 12 & 1) << 8 | (uint64_t)(h >> 10 & 3) << 3 |
			                           (uint64_t)(h >> 5 & 3) << 6 | (uint64_t)(h >> 3 & 3) << 1 |
			                           (uint64_t)(h >> 2 & 1) << 5,
			                   9);
			*dest = a + (uint64_t)off;
			return true;
		}
		return false;
	}
	if ((i & 0xfff) == 0x06f) { /* jal x0: j (a call's target is another function's) */
		*dest = a + (uint64_t)j_offset(i);
		return true;
	}
	if ((i & 0x7f) == 0x63) { /* beq, bne, blt, bge, bltu, bgeu */
		int64_t off = sext((uint64_t)(i >> 31) << 12 | (uint64_t)(i >> 7 & 1) << 11 |
		                           (uint64_t)(i >> 25 & 0x3f) << 5 | (uint64_t)(i >> 8 & 0xf) << 1,
		                   13);
		*dest = a + (uint64_t)off;
		return true;
	}
	return false;
}

/* The instruction at a, as code followed towards pc sees it: its length
 * and its flow (rv_flow_of). False for code that cannot be read, or
 * zeros. */
static bool rv_flow_at(struct sw_code *c, uint64_t a, unsigned *len, bool *ends, uint64_t *to)
{
	uint16_t h;
	uint32_t i = 0;
	if (!read16(c, a, &h) || h == 0)
		return false;
	*len = insn_length(h);
	if (*len != 2 && (*len != 4 || !read32(c, a, &i)))
		return false;
	*ends = rv_flow_of(h, i, *len, a, to);
	return true;
}

/* Does the code from `target` run on to pc, landing on it, with nothing
 * that may end a function between (no ret or jr; a jump only within
 * [target, pc])? */
static bool riscv_runs_on_to(struct sw_code *c, uint64_t target, uint64_t pc, uint64_t mask)
{
	uint64_t a = target;
	while (a < pc) {
		unsigned len;
		bool ends;
		uint64_t to;
		if (!rv_flow_at(c, a, &len, &ends, &to))
			return false;
		if (ends && (to == UINT64_MAX || (to & mask) < target || (to & mask) > pc))
			return false;
		a += len;
	}
	return a == pc;
}

/* The function at `target` ends its first path in a jump below its own
 * start (a tail call: GCC's `j f3`); *to is where it leads. */
static bool riscv_tail_jump_below(struct sw_code *c, uint64_t target, uint64_t mask, uint64_t *to)
{
	for (uint64_t a = target; a - target < RV_MAX_ENTERED;) {
		unsigned len;
		bool ends;
		if (!rv_flow_at(c, a, &len, &ends, to))
			return false;
		if (ends) {
			*to &= mask;
			return *to != (UINT64_MAX & mask) && *to < target;
		}
		a += len;
	}
	return false;
}

/* Did the direct call before ra enter the function pc is in, by the code
 * alone (as arch/ppc.c's rule)? Its target T <= pc, the code from T runs
 * on to pc, and the call itself lies outside [T, pc] (not recursion from
 * the frame's own function); or T first jumps below itself (a tail call)
 * to such a place (zoo riscv64 1034 stripped: main's call of f2, f2's
 * `j f3`, the crash in the leaf f3: the scan skipped main). Functions are
 * laid out contiguously, so pc lies in the function the call entered. */
static bool riscv_call_entered_pc_function(const struct sw_walk *w, uint64_t ra, uint64_t pc)
{
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t target, mask = w->arch->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	if (ra < 2 || !riscv_direct_call(w, &c, ra, &target))
		return false;
	for (unsigned hop = 0; hop < 2; hop++) {
		if (target <= pc && pc - target <= RV_MAX_ENTERED && !(ra - 1 >= target && ra - 1 <= pc))
			return riscv_runs_on_to(&c, target, pc, mask);
		if (hop == 1 || !riscv_tail_jump_below(&c, target, mask, &target))
			return false;
	}
	return false;
}

/* ---- prologue analysis ----
 *
 * GCC and LLVM open a RISC-V function (psABI "Procedure Calling
 * Convention", "Frame Pointer Convention") with `addi sp, sp, -N`
 * (c.addi16sp, or c.addi sp for small frames; beyond 2 KiB the rest with
 * `lui t0` + `sub/add sp, sp, t0`), store ra and the callee-saved s0-s11
 * they use with sw/sd (c.swsp/c.sdsp) into the frame, and with a frame
 * pointer set `addi s0, sp, N` (c.addi4spn s0, c.mv s0, sp) so that s0 is
 * the CFA. Epilogues reload, release and `ret` (jalr x0, 0(ra) / c.jr ra).
 * With the C extension, 16- and 32-bit instructions mix: decoding runs
 * forwards only, since the bytes before an instruction cannot say where
 * the previous one began. */

enum {
	MAX_BACKWARD = 4096,      /* how far back a function's start is sought */
	MAX_FORWARD = 8 * 1024,   /* how much of a function is decoded */
	/* Instructions one analysis may decode over all its candidates: the
	 * search must stay cheap on code built to defeat it. */
	DECODE_BUDGET = 8 * 1024,
};

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	return (int64_t)((v ^ m) - m);
}

/* rd = rs1 + imm (addi, c.addi, ...) for the frame. */
static void add_imm(struct sw_prologue *p, unsigned rd, unsigned rs1, int64_t imm, bool word32)
{
	int64_t v;
	if (rd == RV_SP) {
		if (rs1 == RV_SP)
			sw_pro_sp_add(p, imm);
		else if (rs1 == RV_S0)
			sw_pro_sp_from_fp(p, imm);
		else
			sw_pro_sp_unknown(p);
	} else if (rd == RV_S0 && rs1 == RV_SP) {
		sw_pro_fp_from_sp(p, imm);
	} else if (sw_pro_const_get(p, rs1, &v)) {
		sw_pro_const(p, rd, word32 ? (int32_t)sw_pro_add(v, imm) : sw_pro_add(v, imm));
	} else {
		sw_pro_write(p, rd);
	}
}

/* rd = rs1 + rs2 (add, c.add, c.mv with rs1 = x0) or rs1 - rs2. */
static void add_reg(struct sw_prologue *p, unsigned rd, unsigned rs1, unsigned rs2, bool sub)
{
	int64_t a, b;
	if (rd == RV_SP && sub) {
		if (rs1 == RV_SP && sw_pro_const_get(p, rs2, &b))
			sw_pro_sp_add(p, sw_pro_sub(0, b));
		else
			sw_pro_sp_unknown(p);
		return;
	}
	if (!sub && rs2 == RV_SP) { /* add is commutative */
		unsigned t = rs1;
		rs1 = rs2;
		rs2 = t;
	}
	if (!sub && (rs1 == RV_SP || rs1 == RV_S0) && sw_pro_const_get(p, rs2, &b)) {
		add_imm(p, rd, rs1, b, false);
		return;
	}
	if (sw_pro_const_get(p, rs1, &a) && sw_pro_const_get(p, rs2, &b))
		sw_pro_const(p, rd, sub ? sw_pro_sub(a, b) : sw_pro_add(a, b));
	else if (rd == RV_SP)
		sw_pro_sp_unknown(p);
	else
		sw_pro_write(p, rd);
}

/* Feeds a 32-bit instruction to the frame state; *ends: no path falls
 * through it. */
static void decode32(struct sw_prologue *p, uint32_t i, bool *ends)
{
	unsigned opcode = i & 0x7f, rd = i >> 7 & 31, f3 = i >> 12 & 7, rs1 = i >> 15 & 31,
	         rs2 = i >> 20 & 31, f7 = i >> 25;
	int64_t imm_i = sext(i >> 20, 12);
	int64_t imm_s = sext((i >> 25) << 5 | (i >> 7 & 31), 12);
	int64_t v;
	switch (opcode) {
	case 0x13: /* OP-IMM */
		if (f3 == 0)
			add_imm(p, rd, rs1, imm_i, false);
		else
			sw_pro_write(p, rd);
		return;
	case 0x1b: /* OP-IMM-32: addiw */
		if (f3 == 0 && rd != RV_SP && rd != RV_S0 && sw_pro_const_get(p, rs1, &v))
			sw_pro_const(p, rd, (int32_t)sw_pro_add(v, imm_i));
		else
			sw_pro_write(p, rd);
		return;
	case 0x37: /* LUI */
		sw_pro_const(p, rd, (int32_t)(i & 0xfffff000u));
		if (rd == RV_SP)
			sw_pro_sp_unknown(p);
		return;
	case 0x33: /* OP: add, sub (M-extension and logic ops just write) */
		if (f3 == 0 && (f7 == 0 || f7 == 0x20))
			add_reg(p, rd, rs1, rs2, f7 == 0x20);
		else
			sw_pro_write(p, rd);
		return;
	case 0x03: /* LOAD */
		if (f3 == 2 || f3 == 3)
			sw_pro_load(p, rd, rs1, imm_i);
		else
			sw_pro_write(p, rd);
		return;
	case 0x23: /* STORE */
		if (f3 == 2 || f3 == 3)
			sw_pro_store(p, rs2, rs1, imm_s, f3 == 2 ? 4 : 8);
		return;
	case 0x6f: /* JAL */
	case 0x67: /* JALR */
		if (rd == 0)
			*ends = true;
		else
			sw_pro_call(p, rd);
		return;
	case 0x63: /* BRANCH */
	case 0x0f: /* FENCE */
	case 0x07: /* LOAD-FP */
	case 0x27: /* STORE-FP */
	case 0x43: case 0x47: case 0x4b: case 0x4f: /* fused multiply-add */
		return;
	case 0x73: /* SYSTEM: CSR reads write rd; ecall, ebreak nothing */
		if (f3 != 0)
			sw_pro_write(p, rd);
		return;
	case 0x53: /* OP-FP: compares, classes, conversions and moves to x */
		if ((f7 & 0x7c) == 0x50 || (f7 & 0x7c) == 0x60 || (f7 & 0x7c) == 0x70)
			sw_pro_write(p, rd);
		return;
	default: /* AUIPC, OP-32, AMO, vector configuration, ...: write rd */
		sw_pro_write(p, rd);
		return;
	}
}

/* Feeds a compressed instruction (ISA manual, "C" Standard Extension). */
static void decode16(struct sw_prologue *p, uint16_t h, unsigned word_size, bool *ends)
{
	unsigned f3 = h >> 13, rd = h >> 7 & 31, rs2 = h >> 2 & 31;
	unsigned rdp = 8 + (h >> 2 & 7), rs1p = 8 + (h >> 7 & 7); /* x8-x15 */
	int64_t imm6 = sext((h >> 12 & 1) << 5 | (h >> 2 & 31), 6), v;
	uint64_t u;
	switch ((h & 3) << 3 | f3) {
	case 0 << 3 | 0: /* c.addi4spn rd', sp, nzuimm */
		u = (uint64_t)(h >> 11 & 3) << 4 | (uint64_t)(h >> 7 & 15) << 6 |
		    (uint64_t)(h >> 6 & 1) << 2 | (uint64_t)(h >> 5 & 1) << 3;
		if (h == 0)
			p->failed = true; /* the all-zero parcel is illegal: not code */
		else
			add_imm(p, rdp, RV_SP, (int64_t)u, false);
		return;
	case 0 << 3 | 2: /* c.lw */
		u = (uint64_t)(h >> 10 & 7) << 3 | (uint64_t)(h >> 6 & 1) << 2 | (uint64_t)(h >> 5 & 1) << 6;
		sw_pro_load(p, rdp, rs1p, (int64_t)u);
		return;
	case 0 << 3 | 3: /* c.ld (RV64), c.flw (RV32) */
		u = (uint64_t)(h >> 10 & 7) << 3 | (uint64_t)(h >> 5 & 3) << 6;
		if (word_size == 8)
			sw_pro_load(p, rdp, rs1p, (int64_t)u);
		return;
	case 0 << 3 | 6: /* c.sw */
		u = (uint64_t)(h >> 10 & 7) << 3 | (uint64_t)(h >> 6 & 1) << 2 | (uint64_t)(h >> 5 & 1) << 6;
		sw_pro_store(p, rdp, rs1p, (int64_t)u, 4);
		return;
	case 0 << 3 | 7: /* c.sd (RV64), c.fsw (RV32) */
		u = (uint64_t)(h >> 10 & 7) << 3 | (uint64_t)(h >> 5 & 3) << 6;
		if (word_size == 8)
			sw_pro_store(p, rdp, rs1p, (int64_t)u, 8);
		return;
	case 1 << 3 | 0: /* c.addi (c.nop) */
		if (rd != 0)
			add_imm(p, rd, rd, imm6, false);
		return;
	case 1 << 3 | 1: /* c.jal (RV32), c.addiw (RV64) */
		if (word_size == 4)
			sw_pro_call(p, RV_RA);
		else if (rd != RV_SP && rd != RV_S0 && sw_pro_const_get(p, rd, &v))
			sw_pro_const(p, rd, (int32_t)sw_pro_add(v, imm6));
		else
			sw_pro_write(p, rd);
		return;
	case 1 << 3 | 2: /* c.li */
		if (rd == RV_SP || rd == RV_S0)
			sw_pro_write(p, rd);
		else
			sw_pro_const(p, rd, imm6);
		return;
	case 1 << 3 | 3: /* c.addi16sp (rd = sp), c.lui */
		if (rd == RV_SP) {
			v = sext((uint64_t)(h >> 12 & 1) << 9 | (uint64_t)(h >> 6 & 1) << 4 |
			         (uint64_t)(h >> 5 & 1) << 6 | (uint64_t)(h >> 3 & 3) << 7 |
			         (uint64_t)(h >> 2 & 1) << 5, 10);
			sw_pro_sp_add(p, v);
		} else if (rd == RV_S0) {
			sw_pro_write(p, rd);
		} else {
			sw_pro_const(p, rd, sext((uint64_t)(h >> 12 & 1) << 17 | (uint64_t)(h >> 2 & 31) << 12, 18));
		}
		return;
	case 1 << 3 | 4: /* c.srli, c.srai, c.andi, c.sub, c.xor, c.or, c.and, c.subw, c.addw */
		if ((h >> 10 & 3) == 3 && !(h >> 12 & 1) && (h >> 5 & 3) == 0)
			add_reg(p, rs1p, rs1p, rdp, true); /* c.sub */
		else
			sw_pro_write(p, rs1p);
		return;
	case 1 << 3 | 5: /* c.j */
		*ends = true;
		return;
	case 2 << 3 | 0: /* c.slli */
		sw_pro_write(p, rd);
		return;
	case 2 << 3 | 2: /* c.lwsp */
		u = (uint64_t)(h >> 12 & 1) << 5 | (uint64_t)(h >> 4 & 7) << 2 | (uint64_t)(h >> 2 & 3) << 6;
		sw_pro_load(p, rd, RV_SP, (int64_t)u);
		return;
	case 2 << 3 | 3: /* c.ldsp (RV64), c.flwsp (RV32) */
		u = (uint64_t)(h >> 12 & 1) << 5 | (uint64_t)(h >> 5 & 3) << 3 | (uint64_t)(h >> 2 & 7) << 6;
		if (word_size == 8)
			sw_pro_load(p, rd, RV_SP, (int64_t)u);
		return;
	case 2 << 3 | 4:
		if (!(h >> 12 & 1)) {
			if (rs2 == 0)
				*ends = rd != 0;          /* c.jr rs1 (ret: c.jr ra) */
			else
				add_reg(p, rd, rs2, RV_ZERO, false); /* c.mv rd, rs2 */
		} else if (rs2 == 0) {
			if (rd != 0)
				sw_pro_call(p, RV_RA);    /* c.jalr rs1 */
		} else {
			add_reg(p, rd, rd, rs2, false);   /* c.add */
		}
		return;
	case 2 << 3 | 6: /* c.swsp */
		u = (uint64_t)(h >> 9 & 15) << 2 | (uint64_t)(h >> 7 & 3) << 6;
		sw_pro_store(p, rs2, RV_SP, (int64_t)u, 4);
		return;
	case 2 << 3 | 7: /* c.sdsp (RV64), c.fswsp (RV32) */
		u = (uint64_t)(h >> 10 & 7) << 3 | (uint64_t)(h >> 7 & 7) << 6;
		if (word_size == 8)
			sw_pro_store(p, rs2, RV_SP, (int64_t)u, 8);
		return;
	default: /* floating-point loads and stores, reserved encodings */
		return;
	}
}

/* Decodes from start; true if an instruction ends exactly at pc, with p
 * the frame state there. What a return met on the way does is `returns`.
 * Each instruction costs one unit of *budget; none left fails the decode. */
static bool decode_range(struct sw_code *c, struct sw_prologue *p, uint64_t start, uint64_t pc,
                         enum sw_pro_returns returns, unsigned *budget)
{
	unsigned ws = c->w->arch->word_size;
	uint64_t a = start, stop = pc;
	bool truncated = false;
	struct sw_pro_candidate k = { .returns = returns };
	p->decoded_from = start;
	if (pc - start > MAX_FORWARD) {
		/* A huge function: decode its prologue, take the rest for body
		 * code that has made calls (pc cannot be checked to land). */
		stop = start + MAX_FORWARD;
		truncated = true;
	}
	uint64_t reach = start, dest;
	while (a < stop) {
		uint16_t h;
		uint32_t i;
		bool ends = false, ret;
		if (*budget == 0 || !read16(c, a, &h))
			return false;
		--*budget;
		unsigned len = insn_length(h);
		if (len == 2) {
			i = 0;
			decode16(p, h, ws, &ends);
			ret = h == 0x8082; /* c.jr ra */
		} else if (len == 4 && read32(c, a, &i)) {
			decode32(p, i, &ends);
			ret = i == 0x00008067u; /* jalr x0, 0(ra) */
		} else {
			return false;
		}
		if (!sw_pro_candidate_step(p, &k, ret, ends))
			return false;
		if (rv_branch_of(h, i, len, a, &dest) && dest > reach)
			reach = dest;
		uint64_t to;
		bool flow_ends = rv_flow_of(h, i, len, a, &to);
		a += len;
		/* A candidate's function ends at a return, or a jump below its
		 * start (a tail call), past which no branch seen leads (the
		 * tail jump ending frame_dummy, then f3: zoo riscv64 1034): pc
		 * is in the next function, which begins right after it, with
		 * nothing of the candidate's frame. (A jump to itself, an
		 * endless loop, may end a noreturn function too; not counted.) */
		if (returns != SW_PRO_RETURNS_END_PATHS && a < pc && a > reach && flow_ends &&
		    (to == UINT64_MAX || to < start)) {
			sw_pro_init(p, c->w->arch);
			k = (struct sw_pro_candidate){ .returns = SW_PRO_RETURNS_REFUTE };
			start = reach = a;
			p->decoded_from = start;
		}
		/* A call (jal ra) to an address from its own return up to pc
		 * enters another function there: a function never calls into
		 * its own body past the call. The candidate's function ended
		 * with a call that does not return (zoo riscv64 1100: f2 ends
		 * `jal f3`, f3 follows at once), and pc's begins at the
		 * target. */
		if (returns != SW_PRO_RETURNS_END_PATHS && len == 4 && (i & 0xfff) == 0x0ef &&
		    a - len + (uint64_t)j_offset(i) >= a && a - len + (uint64_t)j_offset(i) <= pc &&
		    a - len + (uint64_t)j_offset(i) < stop) {
			a = a - len + (uint64_t)j_offset(i);
			sw_pro_init(p, c->w->arch);
			k = (struct sw_pro_candidate){ .returns = SW_PRO_RETURNS_REFUTE };
			start = reach = a;
			p->decoded_from = start;
		}
	}
	if (truncated) {
		sw_pro_call(p, RV_RA);
		return true;
	}
	return a == pc;
}

/* Is there an instruction at a that opens a frame: addi sp, sp, -N,
 * c.addi16sp -N, or c.addi sp, -N? */
static bool is_allocation(struct sw_code *c, uint64_t a)
{
	uint16_t h;
	uint32_t i;
	if (!read16(c, a, &h))
		return false;
	if ((h & 0xef83) == 0x6101) /* c.addi16sp: sign bit 12 set means negative */
		return (h >> 12 & 1) != 0;
	if ((h & 0xef83) == 0x0101) /* c.addi sp, imm: imm negative */
		return (h >> 12 & 1) != 0;
	return read32(c, a, &i) && (i & 0xfffff) == 0x10113 && (i >> 31) != 0;
}

/* Does a return end just before a? */
static bool follows_return(struct sw_code *c, uint64_t a)
{
	uint16_t h;
	uint32_t i;
	return (a >= 2 && read16(c, a - 2, &h) && h == 0x8082) ||
	       (a >= 4 && read32(c, a - 4, &i) && i == 0x00008067u);
}

/* Without symbols, the start is sought by candidates, nearest first: an
 * address right after a return (the previous function's end: this one
 * then may be a leaf) or an allocation (this function's prologue, though
 * it may load a large frame's size before it). Each is decoded forwards
 * and accepted only if its instructions end exactly at pc, it passes no
 * return on the way (which would put it in an earlier function; from an
 * allocation, only the returns of its own epilogues), it keeps track of
 * the CFA, and a call on the way found the return address saved: a
 * function that called before saving ra could never return, so the
 * candidate is a block after an epilogue, not a start. The search runs
 * back from `origin`: pc, or for a suspended frame its call, which may
 * end its function. */
static bool decode_without_symbols(struct sw_code *c, struct sw_prologue *p, uint64_t origin,
                                   uint64_t pc, unsigned *budget)
{
	uint64_t lo = sw_pro_search_floor(c->w, origin, MAX_BACKWARD);
	for (uint64_t x = origin & ~(uint64_t)1; x >= lo; x -= 2) {
		uint16_t h;
		if (!read16(c, x, &h) && x != pc)
			return false; /* the code before x is not captured */
		bool allocation = is_allocation(c, x);
		if (allocation || follows_return(c, x)) {
			sw_pro_init(p, c->w->arch);
			enum sw_pro_returns returns = allocation ? SW_PRO_RETURNS_EPILOGUE_ONLY : SW_PRO_RETURNS_REFUTE;
			if (decode_range(c, p, x, pc, returns, budget) &&
			    (p->cur.sp_known || p->cur.fp_known) && !sw_pro_ra_lost(p))
				return true;
			if (*budget == 0)
				return false;
		}
		if (x < lo + 2)
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
	uint64_t origin = sw_frame_has_live_context(callee) ? pc : callee->lookup_pc;
	if (decode_without_symbols(c, p, origin, pc, &budget))
		return true;
	if (!start || start > pc)
		return false;
	sw_pro_init(p, s->walk->arch);
	budget = DECODE_BUDGET;
	return decode_range(c, p, start, pc, SW_PRO_RETURNS_END_PATHS, &budget);
}

static enum sw_unwind_status riscv_caller_by_prologue(const struct sw_step *s,
                                                      struct sw_caller *out)
{
	if (!sw_reg_valid(&s->callee->regs, RV_SP) || (s->callee->pc & 1) != 0)
		return SW_UNWIND_NO_RULE;
	struct sw_code c;
	sw_code_init(&c, s->walk);
	struct sw_prologue p;
	if (!analyze(s, &c, &p))
		return SW_UNWIND_NO_RULE;
	enum sw_unwind_status st = sw_pro_caller(&p, s, out);
	if (st == SW_UNWIND_OK)
		keep_vlenb(s->callee, out);
	return st;
}

/* How much of a frame may_hold_return_address reads. */
enum { MAX_FRAME_BODY = 64 * 1024 };

/* Might a word in [lo, hi) be a return address (sw_walk_is_return_address:
 * a call site in a module, and the call before it where the code shows
 * it)? True too when any of it cannot be read or it is too large. */
static bool may_hold_return_address(const struct sw_walk *w, uint64_t lo, uint64_t hi)
{
	const unsigned ws = w->arch->word_size;
	if (hi < lo || hi - lo > MAX_FRAME_BODY)
		return true;
	for (uint64_t a = lo; a + ws <= hi; a += ws) {
		uint64_t v;
		if (!sw_walk_read_word(w, a, &v) || (v != 0 && sw_walk_is_return_address(w, v)))
			return true;
	}
	return false;
}

/* ---- the frame-pointer chain ----
 *
 * psABI "Frame Pointer Convention": with a frame pointer, s0 holds the
 * CFA (the sp at the function's entry), the return address is saved at
 * s0 - XLEN/8 and the caller's s0 at s0 - 2 * XLEN/8, so
 *   pc_caller = [s0 - w],  s0_caller = [s0 - 2w],  sp_caller = s0.
 * Nothing marks a function as keeping the convention (s0 is an ordinary
 * callee-saved register in code built without it), so the record is
 * believed when the code at pc, if captured, shows the function set s0 up
 * as its CFA with ra and s0 saved in their places; when the code is not
 * captured, when s0 is word-aligned, the record lies above the callee's sp,
 * the chain grows and the return address passes the scan's checks. An
 * intact record holding a NULL return address ends the chain (the
 * outermost frame) when the code vouched for it or the callee was itself
 * found on the chain.
 *
 * A frame with a live context may not have stored its record yet (a
 * leaf, or stopped in its prologue); with its code captured, prologue
 * analysis then answers. Without it, ra is the caller's return address
 * only when the frame is a leaf, and a function that has made a call
 * holds in ra an address inside itself (psABI: jal/jalr write ra; the
 * callee returns through it and ra keeps the value). So, unless the
 * record already holds ra:
 *  - the symbols put ra's call in another function (or ra is in another
 *    module): the frame is a leaf, ra its return address, sp and s0 kept
 *    (Breakpad and rust-minidump take ra for the context frame always);
 *  - they put it in the frame's own function: left over, the record
 *    at s0 is the frame's own;
 *  - no symbols tell, but the code does: the direct call before ra
 *    entered the function pc is in (riscv_call_entered_pc_function);
 *  - nothing bounds the function (no symbols, no code): ra may be either,
 *    and so may the record (the frame's own, or, for a leaf that set up
 *    none, its caller's: taking it would skip the caller). Neither is
 *    proven, no rule here. A live ra that names no code is not a leaf's
 *    return address: the record is then the frame's own. */
static enum sw_unwind_status riscv_caller_by_frame_pointer(const struct sw_step *s,
                                                           struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const struct sw_regs *r = &callee->regs;
	const unsigned ws = w->arch->word_size;
	if (!sw_reg_valid(r, RV_S0) || !sw_reg_valid(r, RV_SP))
		return SW_UNWIND_NO_RULE;
	uint64_t fp = r->v[RV_S0], sp = r->v[RV_SP];

	/* What the code says about s0 at pc. */
	struct sw_code c;
	sw_code_init(&c, w);
	struct sw_prologue p;
	bool analyzed = (callee->pc & 1) == 0 && analyze(s, &c, &p);
	bool vouched = false;
	if (analyzed) {
		const struct sw_pro_frame *f = &p.cur;
		vouched = f->fp_known && f->fp_off == 0 && (f->saved >> RV_RA & 1) &&
		          f->slot[RV_RA] == -(int64_t)ws && (f->saved >> RV_S0 & 1) &&
		          f->slot[RV_S0] == -2 * (int64_t)ws;
		if (!vouched)
			return SW_UNWIND_NO_RULE; /* no record at s0: the prologue's turn */
	}

	uint64_t saved_ra = 0, saved_fp = 0;
	bool record = fp % ws == 0 && fp >= 2 * ws && fp - 2 * ws >= sp &&
	              sw_walk_read_word(w, fp - ws, &saved_ra) &&
	              sw_walk_read_word(w, fp - 2 * ws, &saved_fp);

	if (!analyzed && sw_frame_has_live_context(callee) && sw_reg_valid(r, RV_RA)) {
		uint64_t lr = r->v[RV_RA];
		enum sw_function_relation rel =
			sw_arch_same_function(w, callee->pc, riscv_call_site(lr));
		if (!(record && saved_ra == lr)) {
			bool entered = rel == SW_FUNCTION_UNKNOWN &&
			               riscv_call_entered_pc_function(w, lr, callee->pc);
			if ((rel == SW_FUNCTION_DIFFERENT || entered) &&
			    sw_walk_caller_by_link_register(s, out) == SW_UNWIND_OK)
				return SW_UNWIND_OK;
			if (rel == SW_FUNCTION_UNKNOWN && sw_walk_is_return_address(w, lr))
				return SW_UNWIND_NO_RULE;
		}
	}
	if (!record)
		return SW_UNWIND_NO_RULE;
	if (saved_ra == 0)
		return vouched || callee->trust == SW_TRUST_FRAME_POINTER ? SW_UNWIND_END
		                                                          : SW_UNWIND_NO_RULE;
	if (!vouched && saved_fp != 0 && saved_fp <= fp)
		return SW_UNWIND_NO_RULE;
	/* A record the code vouches for whose return address names no code is
	 * a broken chain: a scan from here must prove its candidate by the
	 * code before it (FAILED). Unvouched, s0 may be any saved value. */
	if (!sw_walk_is_return_address(w, saved_ra))
		return vouched ? SW_UNWIND_FAILED : SW_UNWIND_NO_RULE;
	/* Unvouched, the record may be an outer frame's, the frame keeping
	 * none (zoo riscv64 1021, the capture alone: f6 and f5, built without
	 * frame pointers, between f7's records and f4's; f6's s0 was f4's,
	 * whose record skipped f5 five times and f4). A frame that made a
	 * call saved its return address in its own frame, which lies between
	 * its sp and the outer frame's record: where no word there may be a
	 * return address, the frame's return address can only be the
	 * record's, and the record is its own. A live frame's record holding
	 * the live ra is its own already, and so is the record of a frame
	 * stopped at the same return address as the frame below it, whose
	 * record found it: one function at one call site, whose code kept a
	 * record there (a recursion's frames). Not told apart: a frame that
	 * keeps no record and saved no ra, its call never to return (GCC may
	 * drop the save before a noreturn call). */
	const struct sw_frame *below = s->callee_callee;
	bool same_site = below && callee->trust == SW_TRUST_FRAME_POINTER &&
	                 !sw_frame_has_live_context(below) && below->pc == callee->pc &&
	                 sw_reg_valid(&below->regs, RV_S0) && below->regs.v[RV_S0] == sp;
	if (!vouched && !same_site &&
	    !(sw_frame_has_live_context(callee) && sw_reg_valid(r, RV_RA) &&
	      saved_ra == r->v[RV_RA]) &&
	    may_hold_return_address(w, sp, fp - 2 * ws))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	/* The other callee-saved registers: from their slots when the code
	 * showed them, else as the callee left them. */
	for (unsigned i = 0; i < 32; i++) {
		if (!(w->arch->callee_saved >> i & 1) || i == RV_SP || i == RV_S0)
			continue;
		uint64_t v;
		if (analyzed && (p.cur.saved >> i & 1)) {
			if (p.cur.width[i] == ws && sw_walk_read_word(w, fp + (uint64_t)p.cur.slot[i], &v))
				sw_reg_set(&out->regs, i, v);
		} else if (!(analyzed && (p.cur.written >> i & 1)) && sw_reg_valid(r, i)) {
			sw_reg_set(&out->regs, i, r->v[i]);
		}
	}
	sw_reg_set(&out->regs, RV_PC, saved_ra);
	sw_reg_set(&out->regs, RV_S0, saved_fp);
	sw_reg_set(&out->regs, RV_SP, fp);
	keep_vlenb(callee, out);
	return SW_UNWIND_OK;
}

/* ---- signal frames and trap frames ----
 *
 * A frame inside a firmware's trap-entry routine (FreeRTOS, ESP-IDF) is
 * the same kind of frame: arch/riscv_trap.c reads the interrupted context
 * from the routine's own layout. Below, Linux's signal frame.
 *
 * Linux's restorer, the vDSO's __vdso_rt_sigreturn, is
 *   li a7, 139 (__NR_rt_sigreturn)   0x08b00893
 *   ecall                            0x00000073
 * and a handler returns to it with sp at the struct rt_sigframe it was
 * given (arch/riscv/kernel/signal.c: { siginfo info; struct ucontext uc; }).
 * Offsets computed from the riscv64 toolchain's asm/ucontext.h and
 * asm/sigcontext.h, for RV64 and (with -march=rv32gc -mabi=ilp32d) RV32:
 *   siginfo    128 bytes
 *   ucontext   { uc_flags, uc_link, uc_stack, uc_sigmask 8, __unused to
 *                128 bytes from uc_sigmask, uc_mcontext (16-aligned) }:
 *                uc_mcontext at +176 (RV64), +160 (RV32)
 *   sigcontext { struct user_regs_struct sc_regs { pc, ra, sp, gp, tp,
 *                t0-t2, s0, s1, a0-a7, s2-s11, t3-t6 }, fp state }
 * sc_regs holds x1-x31 in their own slots and the pc in x0's. */
enum { RV64_SIGCONTEXT = 128 + 176, RV32_SIGCONTEXT = 128 + 160 };

static const struct sw_sigframe_slot riscv_sigcontext_slots[] = {
	{ RV_PC, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 },
	{ 8, 8 }, { 9, 9 }, { 10, 10 }, { 11, 11 }, { 12, 12 }, { 13, 13 }, { 14, 14 },
	{ 15, 15 }, { 16, 16 }, { 17, 17 }, { 18, 18 }, { 19, 19 }, { 20, 20 }, { 21, 21 },
	{ 22, 22 }, { 23, 23 }, { 24, 24 }, { 25, 25 }, { 26, 26 }, { 27, 27 }, { 28, 28 },
	{ 29, 29 }, { 30, 30 }, { 31, 31 },
};

static enum sw_unwind_status riscv_caller_of_signal_frame(const struct sw_step *s,
                                                          struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	const unsigned ws = w->arch->word_size;
	uint64_t code[2];
	/* A firmware trap entry is recognised by its name, before any code. */
	enum sw_unwind_status trap = sw_riscv_caller_of_trap(s, out);
	if (trap != SW_UNWIND_NO_RULE)
		return trap;
	/* Instructions are little-endian whatever the data byte order. */
	if (!sw_reg_valid(r, RV_SP) || !sw_sigframe_read_fields(w, s->callee->pc, 4, false, 2, code) ||
	    code[0] != 0x08b00893u || code[1] != 0x00000073u)
		return SW_UNWIND_NO_RULE;
	uint64_t sp = r->v[RV_SP], off = ws == 8 ? RV64_SIGCONTEXT : RV32_SIGCONTEXT;
	if (sp > UINT64_MAX - off)
		return SW_UNWIND_FAILED;
	enum sw_unwind_status st =
		sw_sigframe_restore(w, sp + off, ws, riscv_sigcontext_slots,
		                    sizeof riscv_sigcontext_slots / sizeof riscv_sigcontext_slots[0],
		                    out);
	if (st == SW_UNWIND_OK) {
		sw_reg_set(&out->regs, RV_ZERO, 0);
		keep_vlenb(s->callee, out);
	}
	return st;
}

/* psABI: s0-s11 and sp are callee-saved; vlenb never changes. */
#define RISCV_CALLEE_SAVED \
	((1ull << RV_SP) | (3ull << 8) | (0x3ffull << 18) | (1ull << RV_VLENB))

/* What RV32 and RV64 share: the rest of each struct sw_arch below. */
#define RISCV_ARCH_COMMON \
	.nregs = sizeof riscv_reg_names / sizeof riscv_reg_names[0], \
	.reg_names = riscv_reg_names, \
	.pc = RV_PC, \
	.sp = RV_SP, \
	.fp = RV_S0, \
	.ra = RV_RA, \
	.callee_saved = RISCV_CALLEE_SAVED, \
	.print_order = riscv_print_order, \
	.nprint = sizeof riscv_print_order, \
	.dwarf_regs = riscv_dwarf_regs, \
	.ndwarf_regs = sizeof riscv_dwarf_regs, \
	.dwarf_extra = riscv_dwarf_extra, \
	.ndwarf_extra = sizeof riscv_dwarf_extra / sizeof riscv_dwarf_extra[0], \
	.call_site = riscv_call_site, \
	.printed_address = sw_frame_call_site_address, \
	.strip_code_pointer = riscv_strip, \
	.caller_of_signal_frame = riscv_caller_of_signal_frame, \
	.caller_by_frame_pointer = riscv_caller_by_frame_pointer, \
	.caller_by_prologue = riscv_caller_by_prologue, \
	.call_precedes = riscv_call_precedes, \
	.call_target = riscv_call_target,

const struct sw_arch sw_arch_riscv32 = {
	.name = "riscv32",
	.cpu = SW_CPU_RISCV32,
	.word_size = 4,
	.pc_is_plausible = riscv32_pc_plausible,
	RISCV_ARCH_COMMON
};

const struct sw_arch sw_arch_riscv64 = {
	.name = "riscv64",
	.cpu = SW_CPU_RISCV64,
	.word_size = 8,
	.pc_is_plausible = riscv64_pc_plausible,
	RISCV_ARCH_COMMON
};
