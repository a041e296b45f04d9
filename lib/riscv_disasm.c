/* RISC-V instructions as text (lib/riscv_disasm.h), by the encodings of
 * the unprivileged ISA manual (20191213): chapter 24's RV32/64G listings
 * and chapter 16's RVC tables; the mnemonics and aliases GNU objdump and
 * gdb print (`ret`, `li`, `mv`, `j`, `beqz`, ...), compressed
 * instructions as the instructions they expand to, immediates in
 * decimal and branch targets as addresses. */
#include "riscv_disasm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const abi[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
	"a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
	"s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};
static const char *const fabi[32] = {
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0",
	"fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5",
	"fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
};

const char *sw_riscv_reg_name(unsigned r)
{
	return abi[r & 31];
}

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

static bool put(struct sw_rv_insn *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->text, sizeof o->text, fmt, ap);
	va_end(ap);
	return n > 0 && (size_t)n < sizeof o->text;
}

/* A load or store: its text, and what it touches. */
static bool mem(struct sw_rv_insn *o, const char *m, bool fp, unsigned r, unsigned base,
                int64_t off, unsigned size, bool store)
{
	o->loads = !store;
	o->stores = store;
	o->size = size;
	o->base = base;
	o->offset = off;
	return put(o, "%s %s, %" PRId64 "(%s)", m, fp ? fabi[r] : abi[r], off, abi[base]);
}

static bool jump_through(struct sw_rv_insn *o, unsigned rd, unsigned rs1, int64_t off)
{
	o->jumps_through = true;
	o->jump_reg = rs1;
	o->jump_offset = off;
	if (rd == 0 && rs1 == 1 && off == 0)
		return put(o, "ret");
	if (rd == 0 && off == 0)
		return put(o, "jr %s", abi[rs1]);
	if (rd == 1 && off == 0)
		return put(o, "jalr %s", abi[rs1]);
	if (off == 0)
		return put(o, "jalr %s, %s", abi[rd], abi[rs1]);
	return put(o, "jalr %s, %" PRId64 "(%s)", abi[rd], off, abi[rs1]);
}

static bool addi(struct sw_rv_insn *o, unsigned rd, unsigned rs1, int64_t imm)
{
	if (rd == 0 && rs1 == 0 && imm == 0)
		return put(o, "nop");
	if (rs1 == 0)
		return put(o, "li %s, %" PRId64, abi[rd], imm);
	if (imm == 0)
		return put(o, "mv %s, %s", abi[rd], abi[rs1]);
	return put(o, "addi %s, %s, %" PRId64, abi[rd], abi[rs1], imm);
}

static bool branch(struct sw_rv_insn *o, unsigned f3, unsigned rs1, unsigned rs2, uint64_t to)
{
	static const char *const name[8] = { "beq", "bne", NULL, NULL, "blt", "bge", "bltu", "bgeu" };
	if (!name[f3])
		return false;
	/* Against zero: beqz, bnez, bltz, bgez; blez and bgtz when zero is
	 * the first operand. */
	static const char *const rs2_zero[8] = { "beqz", "bnez", NULL, NULL, "bltz", "bgez" };
	static const char *const rs1_zero[8] = { NULL, NULL, NULL, NULL, "bgtz", "blez" };
	if (rs2 == 0 && rs2_zero[f3])
		return put(o, "%s %s, 0x%" PRIx64, rs2_zero[f3], abi[rs1], to);
	if (rs1 == 0 && rs1_zero[f3])
		return put(o, "%s %s, 0x%" PRIx64, rs1_zero[f3], abi[rs2], to);
	return put(o, "%s %s, %s, 0x%" PRIx64, name[f3], abi[rs1], abi[rs2], to);
}

/* OP and OP-32: register-register arithmetic, M included. */
static bool op(struct sw_rv_insn *o, uint32_t i, bool w, bool rv64)
{
	static const char *const base[8] = { "add", "sll", "slt", "sltu", "xor", "srl", "or", "and" };
	static const char *const mext[8] = { "mul", "mulh", "mulhsu", "mulhu",
		                             "div", "divu", "rem", "remu" };
	unsigned rd = (i >> 7) & 31, f3 = (i >> 12) & 7, rs1 = (i >> 15) & 31,
		 rs2 = (i >> 20) & 31, f7 = i >> 25;
	const char *m = NULL;
	if (f7 == 0)
		m = base[f3];
	else if (f7 == 0x20 && (f3 == 0 || f3 == 5))
		m = f3 ? "sra" : "sub";
	else if (f7 == 1)
		m = mext[f3];
	if (!m || (w && (!rv64 || (f7 != 1 && f3 != 0 && f3 != 1 && f3 != 5) ||
	                 (f7 == 1 && f3 >= 1 && f3 <= 3))))
		return false;
	if (f7 == 0x20 && f3 == 0 && rs1 == 0)
		return put(o, "neg%s %s, %s", w ? "w" : "", abi[rd], abi[rs2]);
	if (!w && f7 == 0 && f3 == 3 && rs1 == 0)
		return put(o, "snez %s, %s", abi[rd], abi[rs2]);
	if (!w && f7 == 0 && f3 == 2 && (rs1 == 0 || rs2 == 0))
		return put(o, "%s %s, %s", rs1 == 0 ? "sgtz" : "sltz", abi[rd], abi[rs1 ? rs1 : rs2]);
	return put(o, "%s%s %s, %s, %s", m, w ? "w" : "", abi[rd], abi[rs1], abi[rs2]);
}

/* OP-IMM and OP-IMM-32. */
static bool op_imm(struct sw_rv_insn *o, uint32_t i, bool w, bool rv64)
{
	static const char *const name[8] = { "addi", "slli", "slti", "sltiu",
		                             "xori", "srli", "ori", "andi" };
	unsigned rd = (i >> 7) & 31, f3 = (i >> 12) & 7, rs1 = (i >> 15) & 31;
	int64_t imm = sext(i >> 20, 12);
	if (f3 == 1 || f3 == 5) {
		unsigned shbits = w || !rv64 ? 5 : 6;
		unsigned shamt = (i >> 20) & ((1u << shbits) - 1);
		unsigned high = (i >> (20 + shbits)) & (0x7fu >> (shbits - 5));
		bool arith = f3 == 5 && (i >> 30 & 1);
		if (high != (arith ? 0x20u >> (shbits - 5) : 0))
			return false;
		return put(o, "%s%s %s, %s, %u", f3 == 1 ? "slli" : arith ? "srai" : "srli",
		           w ? "w" : "", abi[rd], abi[rs1], shamt);
	}
	if (w) {
		if (!rv64 || f3 != 0)
			return false;
		if (imm == 0)
			return put(o, "sext.w %s, %s", abi[rd], abi[rs1]);
		return put(o, "addiw %s, %s, %" PRId64, abi[rd], abi[rs1], imm);
	}
	if (f3 == 0)
		return addi(o, rd, rs1, imm);
	if (f3 == 7 && imm == 255)
		return put(o, "zext.b %s, %s", abi[rd], abi[rs1]);
	if (f3 == 4 && imm == -1)
		return put(o, "not %s, %s", abi[rd], abi[rs1]);
	if (f3 == 3 && imm == 1)
		return put(o, "seqz %s, %s", abi[rd], abi[rs1]);
	return put(o, "%s %s, %s, %" PRId64, name[f3], abi[rd], abi[rs1], imm);
}

/* AMO: lr, sc and the read-modify-writes (A extension, chapter 8). */
static bool amo(struct sw_rv_insn *o, uint32_t i, bool rv64)
{
	unsigned rd = (i >> 7) & 31, f3 = (i >> 12) & 7, rs1 = (i >> 15) & 31,
		 rs2 = (i >> 20) & 31, f5 = i >> 27;
	static const char *const order[4] = { "", ".rl", ".aq", ".aqrl" };
	const char *ord = order[(i >> 25) & 3];
	if (f3 != 2 && !(f3 == 3 && rv64))
		return false;
	char w = f3 == 2 ? 'w' : 'd';
	o->size = f3 == 2 ? 4 : 8;
	o->base = rs1;
	o->offset = 0;
	switch (f5) {
	case 0x02:
		if (rs2 != 0)
			return false;
		o->loads = true;
		return put(o, "lr.%c%s %s, (%s)", w, ord, abi[rd], abi[rs1]);
	case 0x03:
		o->stores = true;
		return put(o, "sc.%c%s %s, %s, (%s)", w, ord, abi[rd], abi[rs2], abi[rs1]);
	default: break;
	}
	static const struct { unsigned f5; const char *name; } ops[] = {
		{ 0x01, "amoswap" }, { 0x00, "amoadd" }, { 0x04, "amoxor" }, { 0x0c, "amoand" },
		{ 0x08, "amoor" }, { 0x10, "amomin" }, { 0x14, "amomax" }, { 0x18, "amominu" },
		{ 0x1c, "amomaxu" },
	};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (ops[k].f5 == f5) {
			o->loads = o->stores = true;
			return put(o, "%s.%c%s %s, %s, (%s)", ops[k].name, w, ord, abi[rd], abi[rs2],
			           abi[rs1]);
		}
	return false;
}

static bool system_insn(struct sw_rv_insn *o, uint32_t i)
{
	static const struct { uint32_t i; const char *name; } fixed[] = {
		{ 0x00000073u, "ecall" }, { 0x00100073u, "ebreak" }, { 0x10200073u, "sret" },
		{ 0x30200073u, "mret" }, { 0x10500073u, "wfi" },
	};
	for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
		if (fixed[k].i == i)
			return put(o, "%s", fixed[k].name);
	static const char *const csr[8] = { NULL, "csrrw", "csrrs", "csrrc",
		                            NULL, "csrrwi", "csrrsi", "csrrci" };
	unsigned rd = (i >> 7) & 31, f3 = (i >> 12) & 7, rs1 = (i >> 15) & 31;
	if (!csr[f3])
		return false;
	if (f3 >= 5)
		return put(o, "%s %s, 0x%x, %u", csr[f3], abi[rd], i >> 20, rs1);
	return put(o, "%s %s, 0x%x, %s", csr[f3], abi[rd], i >> 20, abi[rs1]);
}

static bool decode32(uint32_t i, uint64_t pc, bool rv64, struct sw_rv_insn *o)
{
	unsigned rd = (i >> 7) & 31, f3 = (i >> 12) & 7, rs1 = (i >> 15) & 31, rs2 = (i >> 20) & 31;
	int64_t imm_i = sext(i >> 20, 12);
	int64_t imm_s = sext(((i >> 25) << 5) | ((i >> 7) & 31), 12);
	switch (i & 0x7f) {
	case 0x03: { /* LOAD */
		static const char *const name[8] = { "lb", "lh", "lw", "ld", "lbu", "lhu", "lwu", NULL };
		static const unsigned size[8] = { 1, 2, 4, 8, 1, 2, 4, 0 };
		if (!name[f3] || (!rv64 && (f3 == 3 || f3 == 6)))
			return false;
		return mem(o, name[f3], false, rd, rs1, imm_i, size[f3], false);
	}
	case 0x07: /* LOAD-FP */
		if (f3 != 2 && f3 != 3)
			return false;
		return mem(o, f3 == 2 ? "flw" : "fld", true, rd, rs1, imm_i, f3 == 2 ? 4 : 8, false);
	case 0x23: { /* STORE */
		static const char *const name[4] = { "sb", "sh", "sw", "sd" };
		if (f3 > 3 || (!rv64 && f3 == 3))
			return false;
		return mem(o, name[f3], false, rs2, rs1, imm_s, 1u << f3, true);
	}
	case 0x27: /* STORE-FP */
		if (f3 != 2 && f3 != 3)
			return false;
		return mem(o, f3 == 2 ? "fsw" : "fsd", true, rs2, rs1, imm_s, f3 == 2 ? 4 : 8, true);
	case 0x0f: /* MISC-MEM */
		if (f3 == 1)
			return put(o, "fence.i");
		if (f3 != 0)
			return false;
		if (((i >> 20) & 0xff) == 0xff)
			return put(o, "fence");
		{
			/* The predecessor and successor sets: i, o, r, w. */
			char set[2][5];
			for (int k = 0; k < 2; k++) {
				unsigned bits = (i >> (k ? 20 : 24)) & 15, n = 0;
				for (int b = 3; b >= 0; b--)
					if (bits >> b & 1)
						set[k][n++] = "wroi"[b];
				set[k][n] = '\0';
			}
			return put(o, "fence %s, %s", set[0], set[1]);
		}
	case 0x13: return op_imm(o, i, false, rv64);
	case 0x1b: return op_imm(o, i, true, rv64);
	case 0x33: return op(o, i, false, rv64);
	case 0x3b: return op(o, i, true, rv64);
	case 0x17: return put(o, "auipc %s, 0x%x", abi[rd], i >> 12);
	case 0x37: return put(o, "lui %s, 0x%x", abi[rd], i >> 12);
	case 0x2f: return amo(o, i, rv64);
	case 0x63: {
		int64_t off = sext(((i >> 31) & 1) << 12 | ((i >> 7) & 1) << 11 |
		                   ((i >> 25) & 0x3f) << 5 | ((i >> 8) & 0xf) << 1, 13);
		return branch(o, f3, rs1, rs2, pc + (uint64_t)off);
	}
	case 0x67:
		return f3 == 0 && jump_through(o, rd, rs1, imm_i);
	case 0x6f: {
		int64_t off = sext(((i >> 31) & 1) << 20 | ((i >> 12) & 0xff) << 12 |
		                   ((i >> 20) & 1) << 11 | ((i >> 21) & 0x3ff) << 1, 21);
		uint64_t to = pc + (uint64_t)off;
		if (rd == 0)
			return put(o, "j 0x%" PRIx64, to);
		if (rd == 1)
			return put(o, "jal 0x%" PRIx64, to);
		return put(o, "jal %s, 0x%" PRIx64, abi[rd], to);
	}
	case 0x73: return system_insn(o, i);
	default: return false;
	}
}

/* Quadrant 0: the stack-pointer-based addi and the loads and stores of
 * x8-x15 (rd', rs1', rs2'). */
static bool c_quadrant0(uint16_t h, bool rv64, struct sw_rv_insn *o)
{
	unsigned f3 = h >> 13, rs1 = 8 + ((h >> 7) & 7), r = 8 + ((h >> 2) & 7);
	/* Word offsets (uimm[5:3|2|6]) and doubleword ones (uimm[5:3|7:6]). */
	unsigned offw = ((h >> 7) & 0x38) | ((h >> 4) & 4) | ((h << 1) & 0x40);
	unsigned offd = ((h >> 7) & 0x38) | ((h << 1) & 0xc0);
	switch (f3) {
	case 0: {
		unsigned imm = ((h >> 7) & 0x30) | ((h >> 1) & 0x3c0) | ((h >> 4) & 4) | ((h >> 2) & 8);
		return imm != 0 && put(o, "addi %s, sp, %u", abi[r], imm);
	}
	case 1: return mem(o, "fld", true, r, rs1, offd, 8, false);
	case 2: return mem(o, "lw", false, r, rs1, offw, 4, false);
	case 3: return rv64 ? mem(o, "ld", false, r, rs1, offd, 8, false)
	                    : mem(o, "flw", true, r, rs1, offw, 4, false);
	case 5: return mem(o, "fsd", true, r, rs1, offd, 8, true);
	case 6: return mem(o, "sw", false, r, rs1, offw, 4, true);
	case 7: return rv64 ? mem(o, "sd", false, r, rs1, offd, 8, true)
	                    : mem(o, "fsw", true, r, rs1, offw, 4, true);
	default: return false;
	}
}

static int64_t c_j_offset(uint16_t h)
{
	return sext(((h >> 1) & 0x800) | ((h >> 7) & 0x10) | ((h >> 1) & 0x300) | ((h << 2) & 0x400) |
	                    ((h >> 1) & 0x40) | ((h << 1) & 0x80) | ((h >> 2) & 0xe) |
	                    ((h << 3) & 0x20),
	            12);
}

/* Quadrant 1: immediates, arithmetic on x8-x15, jumps and branches. */
static bool c_quadrant1(uint16_t h, uint64_t pc, bool rv64, struct sw_rv_insn *o)
{
	unsigned f3 = h >> 13, rd = (h >> 7) & 31, rdp = 8 + ((h >> 7) & 7), rs2p = 8 + ((h >> 2) & 7);
	int64_t imm6 = sext(((h >> 7) & 0x20) | ((h >> 2) & 0x1f), 6);
	switch (f3) {
	case 0: return addi(o, rd, rd, imm6);
	case 1:
		if (!rv64)
			return put(o, "jal 0x%" PRIx64, pc + (uint64_t)c_j_offset(h));
		if (rd == 0)
			return false;
		return imm6 ? put(o, "addiw %s, %s, %" PRId64, abi[rd], abi[rd], imm6)
		            : put(o, "sext.w %s, %s", abi[rd], abi[rd]);
	case 2: return put(o, "li %s, %" PRId64, abi[rd], imm6);
	case 3:
		if (rd == 2) {
			int64_t imm = sext(((h >> 3) & 0x200) | ((h >> 2) & 0x10) | ((h << 1) & 0x40) |
			                           ((h << 4) & 0x180) | ((h << 3) & 0x20),
			                   10);
			return imm != 0 && put(o, "addi sp, sp, %" PRId64, imm);
		} else {
			int64_t imm = sext(((h << 5) & 0x20000) | ((h << 10) & 0x1f000), 18);
			return imm != 0 && rd != 0 &&
			       put(o, "lui %s, 0x%" PRIx64, abi[rd], ((uint64_t)imm >> 12) & 0xfffff);
		}
	case 4: {
		unsigned shamt = ((h >> 7) & 0x20) | ((h >> 2) & 0x1f);
		switch ((h >> 10) & 3) {
		case 0: return put(o, "srli %s, %s, %u", abi[rdp], abi[rdp], shamt);
		case 1: return put(o, "srai %s, %s, %u", abi[rdp], abi[rdp], shamt);
		case 2: return put(o, "andi %s, %s, %" PRId64, abi[rdp], abi[rdp], imm6);
		default: break;
		}
		static const char *const name[8] = { "sub", "xor", "or", "and", "subw", "addw", NULL, NULL };
		const char *m = name[((h >> 10) & 4) | ((h >> 5) & 3)];
		if (!m || (!rv64 && (h >> 12 & 1)))
			return false;
		return put(o, "%s %s, %s, %s", m, abi[rdp], abi[rdp], abi[rs2p]);
	}
	case 5: return put(o, "j 0x%" PRIx64, pc + (uint64_t)c_j_offset(h));
	default: { /* 6, 7: c.beqz, c.bnez */
		int64_t off = sext(((h >> 4) & 0x100) | ((h >> 7) & 0x18) | ((h << 1) & 0xc0) |
		                           ((h >> 2) & 6) | ((h << 3) & 0x20),
		                   9);
		return put(o, "%s %s, 0x%" PRIx64, f3 == 6 ? "beqz" : "bnez", abi[rdp],
		           pc + (uint64_t)off);
	}
	}
}

/* Quadrant 2: the stack-pointer loads and stores, jumps through a
 * register, mv and add. */
static bool c_quadrant2(uint16_t h, bool rv64, struct sw_rv_insn *o)
{
	unsigned f3 = h >> 13, rd = (h >> 7) & 31, rs2 = (h >> 2) & 31;
	unsigned lw = ((h >> 7) & 0x20) | ((h >> 2) & 0x1c) | ((h << 4) & 0xc0);
	unsigned ld = ((h >> 7) & 0x20) | ((h >> 2) & 0x18) | ((h << 4) & 0x1c0);
	unsigned sw = ((h >> 7) & 0x3c) | ((h >> 1) & 0xc0);
	unsigned sd = ((h >> 7) & 0x38) | ((h >> 1) & 0x1c0);
	switch (f3) {
	case 0:
		return rd != 0 && put(o, "slli %s, %s, %u", abi[rd], abi[rd],
		                      ((h >> 7) & 0x20) | ((h >> 2) & 0x1f));
	case 1: return mem(o, "fld", true, rd, 2, ld, 8, false);
	case 2: return rd != 0 && mem(o, "lw", false, rd, 2, lw, 4, false);
	case 3: return rv64 ? rd != 0 && mem(o, "ld", false, rd, 2, ld, 8, false)
	                    : mem(o, "flw", true, rd, 2, lw, 4, false);
	case 4:
		if (!(h >> 12 & 1)) {
			if (rs2 == 0)
				return rd != 0 && jump_through(o, 0, rd, 0);
			return put(o, "mv %s, %s", abi[rd], abi[rs2]);
		}
		if (rd == 0 && rs2 == 0)
			return put(o, "ebreak");
		if (rs2 == 0)
			return jump_through(o, 1, rd, 0);
		return put(o, "add %s, %s, %s", abi[rd], abi[rd], abi[rs2]);
	case 5: return mem(o, "fsd", true, rs2, 2, sd, 8, true);
	case 6: return mem(o, "sw", false, rs2, 2, sw, 4, true);
	default: return rv64 ? mem(o, "sd", false, rs2, 2, sd, 8, true)
	                     : mem(o, "fsw", true, rs2, 2, sw, 4, true);
	}
}

bool sw_riscv_decode(const uint8_t *code, size_t len, uint64_t pc, bool rv64,
                     struct sw_rv_insn *out)
{
	memset(out, 0, sizeof *out);
	if (len < 2)
		return false;
	uint16_t h = (uint16_t)(code[0] | code[1] << 8);
	if (h == 0)
		return false; /* the defined illegal instruction */
	if ((h & 3) != 3) {
		out->len = 2;
		switch (h & 3) {
		case 0: return c_quadrant0(h, rv64, out);
		case 1: return c_quadrant1(h, pc, rv64, out);
		default: return c_quadrant2(h, rv64, out);
		}
	}
	if ((h & 0x1c) == 0x1c || len < 4)
		return false; /* a 48-bit or longer encoding, or cut short */
	out->len = 4;
	uint32_t i = (uint32_t)code[0] | (uint32_t)code[1] << 8 | (uint32_t)code[2] << 16 |
	             (uint32_t)code[3] << 24;
	return decode32(i, pc, rv64, out);
}
