/* The crashing instruction as text (lib/disasm.h), by Capstone 4.0.2
 * (cs_open/cs_disasm: one instruction, at its own address, so relative
 * branch targets print as absolute addresses). */
#include "disasm.h"
#include "disasm_decode.h"

#include "riscv_disasm.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sw_cs_mode(enum sw_cpu cpu, bool big_endian, bool thumb, cs_arch *arch, cs_mode *mode)
{
	cs_mode endian = big_endian ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN;
	switch (cpu) {
	case SW_CPU_X86: *arch = CS_ARCH_X86; *mode = CS_MODE_32; return true;
	case SW_CPU_AMD64: *arch = CS_ARCH_X86; *mode = CS_MODE_64; return true;
	case SW_CPU_ARM:
		*arch = CS_ARCH_ARM;
		*mode = (thumb ? CS_MODE_THUMB : CS_MODE_ARM) | endian;
		return true;
	case SW_CPU_ARM64: *arch = CS_ARCH_ARM64; *mode = CS_MODE_ARM | endian; return true;
	case SW_CPU_MIPS: *arch = CS_ARCH_MIPS; *mode = CS_MODE_MIPS32 | endian; return true;
	case SW_CPU_MIPS64: *arch = CS_ARCH_MIPS; *mode = CS_MODE_MIPS64 | endian; return true;
	case SW_CPU_PPC: *arch = CS_ARCH_PPC; *mode = CS_MODE_32 | endian; return true;
	case SW_CPU_PPC64: *arch = CS_ARCH_PPC; *mode = CS_MODE_64 | endian; return true;
	default: return false;
	}
}

/* Capstone's Intel syntax as rust-minidump's x86 disassembler prints it
 * (its JSON's crash_info.instruction, e.g. "mov dword [0x45], 0x5"):
 * no "ptr" after an operand size, and numbers in hex (Capstone writes
 * those below 10 in decimal). A number is a token of digits alone, not a
 * register's index (st(1), xmm0, r8d: letters join them, a parenthesis
 * precedes). The result is no longer than the text but by
 * "0x" per number: it is written into out (n bytes). */
static bool x86_as_rust_minidump(const char *in, char *out, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; in[i];) {
		if (strncmp(&in[i], " ptr ", 5) == 0) {
			i += 4;
			continue;
		}
		bool word = isalnum((unsigned char)in[i]) || in[i] == '_';
		if (!word) {
			if (o + 1 >= n)
				return false;
			out[o++] = in[i++];
			continue;
		}
		size_t j = i;
		bool digits = true;
		while (isalnum((unsigned char)in[j]) || in[j] == '_') {
			digits &= isdigit((unsigned char)in[j]) != 0;
			j++;
		}
		bool number = digits && (i == 0 || in[i - 1] != '(');
		int w = number ? snprintf(&out[o], n - o, "0x%llx", strtoull(&in[i], NULL, 10))
		               : snprintf(&out[o], n - o, "%.*s", (int)(j - i), &in[i]);
		if (w < 0 || (size_t)w >= n - o)
			return false;
		o += (size_t)w;
		i = j;
	}
	out[o] = '\0';
	return true;
}

/* RISC-V, which Capstone 4 lacks: lib/riscv_disasm.c. */
static bool riscv_decode(enum sw_cpu cpu, uint64_t pc, const uint8_t *code, size_t len,
                         struct sw_rv_insn *out)
{
	return (cpu == SW_CPU_RISCV32 || cpu == SW_CPU_RISCV64) &&
	       sw_riscv_decode(code, len, pc, cpu == SW_CPU_RISCV64, out);
}

static bool is_riscv(enum sw_cpu cpu)
{
	return cpu == SW_CPU_RISCV32 || cpu == SW_CPU_RISCV64;
}

/* An integer register's value by its ABI name; x0 reads 0. */
static bool riscv_reg(unsigned r, sw_reg_by_name reg, void *ctx, uint64_t *v)
{
	if (r == 0) {
		*v = 0;
		return true;
	}
	return reg(ctx, sw_riscv_reg_name(r), v);
}

static int riscv_accesses(enum sw_cpu cpu, const struct sw_rv_insn *d, sw_reg_by_name reg,
                          void *ctx, struct sw_mem_access *out, unsigned max)
{
	uint64_t base;
	if (!d->loads && !d->stores)
		return 0;
	if (!riscv_reg(d->base, reg, ctx, &base))
		return -1;
	uint64_t at = base + (uint64_t)d->offset;
	if (cpu == SW_CPU_RISCV32)
		at &= 0xffffffffu;
	bool null_base = d->base != 0 && base == 0;
	unsigned n = 0;
	if (d->loads && n < max)
		out[n++] = (struct sw_mem_access){ at, (uint8_t)d->size, false, null_base };
	if (d->stores && n < max)
		out[n++] = (struct sw_mem_access){ at, (uint8_t)d->size, true, null_base };
	return (int)n;
}

bool sw_disassemble(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                    const uint8_t *code, size_t len, char *out, size_t n)
{
	cs_arch arch;
	cs_mode mode;
	csh h;
	struct sw_rv_insn rv;
	if (is_riscv(cpu)) {
		if (n == 0 || !riscv_decode(cpu, pc, code, len, &rv))
			return false;
		int w = snprintf(out, n, "%s", rv.text);
		return w > 0 && (size_t)w < n;
	}
	if (len == 0 || n == 0 || !sw_cs_mode(cpu, big_endian, thumb, &arch, &mode) ||
	    cs_open(arch, mode, &h) != CS_ERR_OK)
		return false;
	cs_insn *insn = NULL;
	bool ok = cs_disasm(h, code, len, pc, 1, &insn) == 1;
	if (ok) {
		char text[CS_MNEMONIC_SIZE + sizeof insn->op_str + 2];
		snprintf(text, sizeof text, insn->op_str[0] ? "%s %s" : "%s%s", insn->mnemonic,
		         insn->op_str);
		if (arch == CS_ARCH_X86) {
			ok = x86_as_rust_minidump(text, out, n);
		} else {
			int w = snprintf(out, n, "%s", text);
			ok = w > 0 && (size_t)w < n;
		}
		cs_free(insn, 1);
	}
	cs_close(&h);
	return ok;
}

/* A register's value as an operand names it: x86's 32-bit names in
 * 64-bit code (addr32 forms: [eax]) are the low half of the 64-bit one,
 * and so are arm64's w registers of the x ones. */
bool sw_cs_reg_value(csh h, unsigned r, sw_reg_by_name reg, void *ctx, uint64_t *v)
{
	const char *name = cs_reg_name(h, r);
	if (!name)
		return false;
	if (reg(ctx, name, v))
		return true;
	/* ARM's other names of r9-r12 (Capstone prints sb, sl, fp, ip). */
	static const char *const arm_alias[][2] = { { "sb", "r9" }, { "sl", "r10" },
		                                    { "fp", "r11" }, { "ip", "r12" } };
	for (size_t i = 0; i < sizeof arm_alias / sizeof arm_alias[0]; i++)
		if (strcmp(name, arm_alias[i][0]) == 0 && reg(ctx, arm_alias[i][1], v))
			return true;
	char wide[8];
	if (name[0] == 'e' && strlen(name) == 3)
		snprintf(wide, sizeof wide, "r%s", name + 1);
	else if (name[0] == 'w' && strlen(name) <= 3 && strcmp(name, "wzr") != 0)
		snprintf(wide, sizeof wide, "x%s", name + 1);
	else
		return strcmp(name, "xzr") == 0 || strcmp(name, "wzr") == 0 ? (*v = 0, true) : false;
	if (!reg(ctx, wide, v))
		return false;
	*v &= 0xffffffffu;
	return true;
}

/* A memory operand's effective address (Intel SDM vol. 1, 3.7.5: base +
 * index * scale + displacement; rip-relative from the next instruction;
 * cut to the address size). False for an fs/gs-relative one (the segment
 * base is not in the context) or a register not known. *null_base (when
 * asked): it names a base register, and that holds 0. */
static bool x86_effective_address(csh h, const cs_insn *insn, const cs_x86_op *op,
                                  sw_reg_by_name reg, void *ctx, uint64_t *a, bool *null_base)
{
	uint64_t base = 0, index = 0;
	if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS)
		return false;
	if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP)
		base = insn->address + insn->size;
	else if (op->mem.base != X86_REG_INVALID && !sw_cs_reg_value(h, op->mem.base, reg, ctx, &base))
		return false;
	if (op->mem.index != X86_REG_INVALID && !sw_cs_reg_value(h, op->mem.index, reg, ctx, &index))
		return false;
	*a = base + index * (uint64_t)(int64_t)op->mem.scale + (uint64_t)op->mem.disp;
	if (null_base)
		*null_base = op->mem.base != X86_REG_INVALID && op->mem.base != X86_REG_RIP &&
		             op->mem.base != X86_REG_EIP && base == 0;
	unsigned size = insn->detail->x86.addr_size;
	if (size == 4)
		*a &= 0xffffffffu;
	else if (size == 2)
		*a &= 0xffffu;
	return true;
}

/* Capstone 4's x86 detail (cs_x86: operands with their access, the
 * address size; the stack use of push/call/pop/ret is implicit). */
static int x86_accesses(csh h, const cs_insn *insn, bool is64, sw_reg_by_name reg, void *ctx,
                        struct sw_mem_access *out, unsigned max)
{
	const cs_x86 *x = &insn->detail->x86;
	const unsigned word = is64 ? 8 : 4;
	unsigned n = 0;
	/* lea and the long nops name memory and touch none (Capstone 4
	 * marks lea's operand read). */
	bool touches = insn->id != X86_INS_LEA && insn->id != X86_INS_NOP;
	for (uint8_t i = 0; i < x->op_count && touches; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (op->type != X86_OP_MEM || op->access == 0)
			continue;
		uint64_t a;
		bool null_base;
		if (!x86_effective_address(h, insn, op, reg, ctx, &a, &null_base))
			return -1;
		for (int w = 0; w < 2; w++) {
			if (!(op->access & (w ? CS_AC_WRITE : CS_AC_READ)))
				continue;
			if (n == max)
				return (int)n;
			out[n++] = (struct sw_mem_access){ a, op->size, w == 1, null_base };
		}
	}
	/* The stack slot a push or call writes below sp, a pop or ret reads
	 * at sp (Intel SDM vol. 2: PUSH, CALL, POP, RET). */
	bool push = insn->id == X86_INS_PUSH || insn->id == X86_INS_CALL;
	bool pop = insn->id == X86_INS_POP || insn->id == X86_INS_RET;
	if (push || pop) {
		uint64_t sp;
		if (!reg(ctx, is64 ? "rsp" : "esp", &sp))
			return -1;
		if (n < max)
			out[n++] = (struct sw_mem_access){ push ? sp - word : sp, (uint8_t)word, push,
				                           false };
	}
	return (int)n;
}

/* The bytes an arm64 load or store moves per register: the mnemonic's
 * size suffix (ldrb, strh, ldrsw, ...), else the first register's width
 * (w: 4, x: 8; the SIMD b/h/s/d/q views: 1, 2, 4, 8, 16). 0: not known
 * (vector structures, ld1 {v0.16b}). */
static unsigned a64_transfer_size(csh h, const cs_insn *insn)
{
	const char *m = insn->mnemonic;
	size_t n = strlen(m);
	if (strstr(m, "sw"))
		return 4;
	/* The suffix after ldr/str/ldur/stur/ldar/stlr/ldxr/stxr/ldaxr/...:
	 * the last letter, when it is b or h and the base form ends in r. */
	if (n >= 4 && m[n - 2] == 'r' && (m[n - 1] == 'b' || m[n - 1] == 'h'))
		return m[n - 1] == 'b' ? 1 : 2;
	if (n >= 5 && m[n - 3] == 'r' && m[n - 2] == 's' && (m[n - 1] == 'b' || m[n - 1] == 'h'))
		return m[n - 1] == 'b' ? 1 : 2; /* ldrsb, ldrsh, ldursb, ... */
	const cs_arm64 *a = &insn->detail->arm64;
	if (a->op_count == 0 || a->operands[0].type != ARM64_OP_REG)
		return 0;
	const char *r = cs_reg_name(h, a->operands[0].reg);
	switch (r ? r[0] : 0) {
	case 'w': return 4;
	case 'x': return 8;
	case 'b': return 1;
	case 'h': return 2;
	case 's': return strcmp(r, "sp") == 0 ? 8 : 4;
	case 'd': return 8;
	case 'q': return 16;
	default: return 0;
	}
}

/* Capstone 4's arm64 detail: the memory operand (base, index with its
 * extension and shift, displacement: pre-index shows it, post-index
 * accesses the base alone), the direction from the mnemonic (Capstone 4's
 * operand access is not reliable there: a store's operand reads as both),
 * pairs moving two registers. Atomics (ldadd, swp, cas, ...) read and
 * write; prefetches touch nothing. Arm ARM C6.2 (LDR, STR, LDP, ...). */
static int a64_accesses(csh h, const cs_insn *insn, sw_reg_by_name reg, void *ctx,
                        struct sw_mem_access *out, unsigned max)
{
	const cs_arm64 *a = &insn->detail->arm64;
	const char *m = insn->mnemonic;
	const cs_arm64_op *mem = NULL;
	for (uint8_t i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_MEM)
			mem = &a->operands[i];
	if (!mem || strncmp(m, "prfm", 4) == 0 || strncmp(m, "prfum", 5) == 0)
		return 0;
	bool load = m[0] == 'l' && m[1] == 'd', store = m[0] == 's' && m[1] == 't';
	bool atomic = (load && strncmp(m, "ldr", 3) != 0 && strncmp(m, "ldu", 3) != 0 &&
	               strncmp(m, "ldp", 3) != 0 && strncmp(m, "ldnp", 4) != 0 &&
	               strncmp(m, "lda", 3) != 0 && strncmp(m, "ldx", 3) != 0 &&
	               strncmp(m, "ldlar", 5) != 0) ||
	              strncmp(m, "swp", 3) == 0 || strncmp(m, "cas", 3) == 0;
	if (!load && !store && !atomic)
		return -1;
	unsigned size = a64_transfer_size(h, insn);
	if (size == 0)
		return -1;
	if (strncmp(m, "ldp", 3) == 0 || strncmp(m, "stp", 3) == 0 || strncmp(m, "ldnp", 4) == 0 ||
	    strncmp(m, "stnp", 4) == 0 || strstr(m, "xp"))
		size *= 2; /* a pair: ldp, stp, ldnp, ldpsw, ldxp, ldaxp, stxp, stlxp */
	uint64_t base, index = 0;
	if (!sw_cs_reg_value(h, mem->mem.base, reg, ctx, &base))
		return -1;
	if (mem->mem.index != ARM64_REG_INVALID) {
		if (!sw_cs_reg_value(h, mem->mem.index, reg, ctx, &index))
			return -1;
		switch (mem->ext) {
		case ARM64_EXT_UXTW: index &= 0xffffffffu; break;
		case ARM64_EXT_SXTW: index = (uint64_t)(int64_t)(int32_t)index; break;
		default: break;
		}
		if (mem->shift.type == ARM64_SFT_LSL)
			index <<= mem->shift.value;
	}
	uint64_t addr = base + index + (uint64_t)(int64_t)mem->mem.disp;
	bool null_base = base == 0;
	unsigned n = 0;
	if ((load || atomic) && n < max)
		out[n++] = (struct sw_mem_access){ addr, (uint8_t)size, false, null_base };
	if ((store || atomic) && n < max)
		out[n++] = (struct sw_mem_access){ addr, (uint8_t)size, true, null_base };
	return (int)n;
}

/* The size a MIPS or PowerPC load or store moves, from its mnemonic: the
 * letter after the l/s (MIPS: lb, sh, lwl, ld, lwc1, ldc1; PowerPC: lbz,
 * sth, lwz, std, lfs, stfd, with update or reserve forms), ll/sc and
 * lld/scd; 0 when not known (multiple-word forms: lmw, stmw, lswi). */
static unsigned risc_transfer_size(const char *m, bool ppc)
{
	const char *p = m + (m[0] == 's' && m[1] == 't' && ppc ? 2 : 1);
	if (strcmp(m, "ll") == 0 || strcmp(m, "sc") == 0)
		return 4;
	if (strcmp(m, "lld") == 0 || strcmp(m, "scd") == 0)
		return 8;
	if (ppc && (strncmp(m, "lm", 2) == 0 || strncmp(m, "stm", 3) == 0 || strncmp(m, "ls", 2) == 0 ||
	            strncmp(m, "sts", 3) == 0))
		return 0;
	if (*p == 'f' && ppc)
		p++; /* lfs, lfd, stfs, stfd */
	switch (*p) {
	case 'b': return 1;
	case 'h': return 2;
	case 'w': case 's': return 4;
	case 'd': return 8;
	default: return 0;
	}
}

/* MIPS (vol. II: LB ... SD, the offset(base) form) and PowerPC (D and DS
 * forms, d(ra); an indexed X-form names two registers, which Capstone 4
 * shows as plain registers: not known here) loads and stores. */
static int risc_accesses(csh h, const cs_insn *insn, bool ppc, sw_reg_by_name reg, void *ctx,
                         struct sw_mem_access *out, unsigned max)
{
	const char *m = insn->mnemonic;
	bool load = m[0] == 'l', store = m[0] == 's';
	unsigned base_reg = 0;
	int64_t disp = 0;
	bool mem = false;
	if (ppc) {
		const cs_ppc *a = &insn->detail->ppc;
		for (uint8_t i = 0; i < a->op_count; i++)
			if (a->operands[i].type == PPC_OP_MEM) {
				base_reg = a->operands[i].mem.base;
				disp = a->operands[i].mem.disp;
				mem = true;
			}
		if (!mem && (load || (store && m[1] == 't')) && strchr(m, 'x'))
			return -1; /* lwzx, stwx, ...: an indexed access */
	} else {
		const cs_mips *a = &insn->detail->mips;
		for (uint8_t i = 0; i < a->op_count; i++)
			if (a->operands[i].type == MIPS_OP_MEM) {
				base_reg = a->operands[i].mem.base;
				disp = a->operands[i].mem.disp;
				mem = true;
			}
	}
	if (!mem || strncmp(m, "pref", 4) == 0 || strncmp(m, "dcb", 3) == 0 ||
	    strncmp(m, "icb", 3) == 0 || strncmp(m, "cache", 5) == 0)
		return 0;
	unsigned size = risc_transfer_size(m, ppc);
	uint64_t base;
	if ((!load && !store) || size == 0 || !sw_cs_reg_value(h, base_reg, reg, ctx, &base))
		return -1;
	if (max == 0)
		return 0;
	/* MIPS's $zero as a base is an absolute address, not a null pointer
	 * (PowerPC's r0 there reads as 0 too: Capstone 4 names it r0). */
	bool zero_reg = ppc ? base_reg == PPC_REG_R0 : base_reg == MIPS_REG_ZERO;
	out[0] = (struct sw_mem_access){ base + (uint64_t)disp, (uint8_t)size, store,
		                         base == 0 && !zero_reg };
	return 1;
}

/* ARM and Thumb (ARM ARM A8.8: LDR, STR and their byte, halfword,
 * doubleword and exclusive forms at base ± index shifted or + offset, a
 * post-index form at the base; LDM/STM and PUSH/POP over their register
 * lists; VLDR/VSTR). Capstone 4's arm detail. */
static int arm_accesses(csh h, const cs_insn *insn, sw_reg_by_name reg, void *ctx,
                        struct sw_mem_access *out, unsigned max)
{
	const cs_arm *a = &insn->detail->arm;
	unsigned size;
	bool store;
	switch (insn->id) {
	case ARM_INS_LDR: case ARM_INS_LDRT: case ARM_INS_LDREX: size = 4; store = false; break;
	case ARM_INS_STR: case ARM_INS_STRT: case ARM_INS_STREX: size = 4; store = true; break;
	case ARM_INS_LDRB: case ARM_INS_LDRSB: case ARM_INS_LDRBT: case ARM_INS_LDREXB:
		size = 1; store = false; break;
	case ARM_INS_STRB: case ARM_INS_STRBT: case ARM_INS_STREXB: size = 1; store = true; break;
	case ARM_INS_LDRH: case ARM_INS_LDRSH: case ARM_INS_LDRHT: case ARM_INS_LDREXH:
		size = 2; store = false; break;
	case ARM_INS_STRH: case ARM_INS_STRHT: case ARM_INS_STREXH: size = 2; store = true; break;
	case ARM_INS_LDRD: case ARM_INS_LDREXD: size = 8; store = false; break;
	case ARM_INS_STRD: case ARM_INS_STREXD: size = 8; store = true; break;
	case ARM_INS_VLDR: case ARM_INS_VSTR: {
		const char *r = a->op_count ? cs_reg_name(h, a->operands[0].reg) : NULL;
		size = r && r[0] == 'd' ? 8 : 4;
		store = insn->id == ARM_INS_VSTR;
		break;
	}
	case ARM_INS_PUSH: case ARM_INS_POP: case ARM_INS_LDM: case ARM_INS_LDMDA:
	case ARM_INS_LDMDB: case ARM_INS_LDMIB: case ARM_INS_STM: case ARM_INS_STMDA:
	case ARM_INS_STMDB: case ARM_INS_STMIB: {
		/* A register list: 4 bytes a register, from sp (push/pop) or the
		 * base register (the first operand). */
		bool list_from_sp = insn->id == ARM_INS_PUSH || insn->id == ARM_INS_POP;
		unsigned nregs = list_from_sp ? a->op_count : a->op_count - 1u;
		uint64_t base;
		if (a->op_count == 0 || nregs == 0 || nregs > 16 ||
		    (list_from_sp ? !reg(ctx, "sp", &base)
		                  : a->operands[0].type != ARM_OP_REG ||
		                        !sw_cs_reg_value(h, a->operands[0].reg, reg, ctx, &base)))
			return -1;
		uint64_t bytes = 4u * nregs, at = base;
		store = insn->id == ARM_INS_PUSH || insn->id == ARM_INS_STM ||
		        insn->id == ARM_INS_STMDA || insn->id == ARM_INS_STMDB ||
		        insn->id == ARM_INS_STMIB;
		if (insn->id == ARM_INS_PUSH || insn->id == ARM_INS_LDMDB || insn->id == ARM_INS_STMDB)
			at = base - bytes;
		else if (insn->id == ARM_INS_LDMDA || insn->id == ARM_INS_STMDA)
			at = base - bytes + 4;
		else if (insn->id == ARM_INS_LDMIB || insn->id == ARM_INS_STMIB)
			at = base + 4;
		if (max == 0)
			return 0;
		out[0] = (struct sw_mem_access){ at & 0xffffffffu, (uint8_t)bytes, store, base == 0 };
		return 1;
	}
	default:
		return 0; /* no memory operand the crash could have faulted on */
	}
	const cs_arm_op *mem = NULL;
	for (uint8_t i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_MEM)
			mem = &a->operands[i];
	uint64_t base, index = 0;
	if (!mem || !sw_cs_reg_value(h, mem->mem.base, reg, ctx, &base))
		return -1;
	if (mem->mem.base == ARM_REG_PC)
		return -1; /* pc-relative: the pc's read value is the mode's, not known here */
	if (mem->mem.index != ARM_REG_INVALID) {
		if (!sw_cs_reg_value(h, mem->mem.index, reg, ctx, &index))
			return -1;
		if (mem->shift.type == ARM_SFT_LSL)
			index <<= mem->shift.value;
		else if (mem->shift.type != ARM_SFT_INVALID)
			return -1;
		if (mem->subtracted)
			index = (uint64_t)0 - index;
	}
	if (max == 0)
		return 0;
	out[0] = (struct sw_mem_access){ (base + index + (uint64_t)(int64_t)mem->mem.disp) &
	                                         0xffffffffu,
	                                 (uint8_t)size, store, base == 0 };
	return 1;
}

bool sw_cs_decode(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc, const uint8_t *code,
                  size_t len, struct sw_cs_decoded *d)
{
	cs_mode mode;
	d->insn = NULL;
	if (len == 0 || !sw_cs_mode(cpu, big_endian, thumb, &d->arch, &mode) ||
	    cs_open(d->arch, mode, &d->h) != CS_ERR_OK)
		return false;
	if (cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK &&
	    cs_disasm(d->h, code, len, pc, 1, &d->insn) == 1)
		return true;
	cs_close(&d->h);
	return false;
}

void sw_cs_done(struct sw_cs_decoded *d)
{
	cs_free(d->insn, 1);
	cs_close(&d->h);
}

int sw_memory_accesses(enum sw_cpu cpu, uint64_t pc, const uint8_t *code, size_t len,
                       sw_reg_by_name reg, void *ctx, struct sw_mem_access *out, unsigned max)
{
	return sw_memory_accesses_in(cpu, false, false, pc, code, len, reg, ctx, out, max);
}

int sw_memory_accesses_in(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                          const uint8_t *code, size_t len, sw_reg_by_name reg, void *ctx,
                          struct sw_mem_access *out, unsigned max)
{
	struct sw_cs_decoded d;
	struct sw_rv_insn rv;
	if (is_riscv(cpu))
		return riscv_decode(cpu, pc, code, len, &rv) ? riscv_accesses(cpu, &rv, reg, ctx, out, max)
		                                             : -1;
	if (!sw_cs_decode(cpu, big_endian, thumb, pc, code, len, &d))
		return -1;
	int n;
	if (d.arch == CS_ARCH_X86) {
		n = x86_accesses(d.h, d.insn, cpu == SW_CPU_AMD64, reg, ctx, out, max);
	} else if (d.arch == CS_ARCH_ARM64) {
		n = a64_accesses(d.h, d.insn, reg, ctx, out, max);
	} else if (d.arch == CS_ARCH_ARM) {
		n = arm_accesses(d.h, d.insn, reg, ctx, out, max);
	} else {
		n = risc_accesses(d.h, d.insn, d.arch == CS_ARCH_PPC, reg, ctx, out, max);
		if (n >= 0 && (cpu == SW_CPU_MIPS || cpu == SW_CPU_PPC))
			for (int i = 0; i < n; i++)
				out[i].address &= 0xffffffffu;
	}
	sw_cs_done(&d);
	return n;
}

/* The target of an x86 call/jmp/ret at insn (Capstone 4 detail). */
static bool x86_ip_update(csh h, const cs_insn *insn, bool is64, sw_reg_by_name reg,
                          sw_word_at word, void *ctx, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;
	const unsigned size = is64 ? 8 : 4;
	uint64_t sp, a;
	switch (insn->id) {
	case X86_INS_RET:
		return reg(ctx, is64 ? "rsp" : "esp", &sp) && word(ctx, sp, size, target);
	case X86_INS_CALL:
	case X86_INS_JMP:
		break;
	default:
		return false;
	}
	if (x->op_count != 1)
		return false;
	const cs_x86_op *op = &x->operands[0];
	if (op->type == X86_OP_REG)
		return sw_cs_reg_value(h, op->reg, reg, ctx, target);
	/* An immediate is a direct target, valid by construction. */
	return op->type == X86_OP_MEM && x86_effective_address(h, insn, op, reg, ctx, &a, NULL) &&
	       word(ctx, a, size, target);
}

/* arm64's branches through a register (Arm ARM C6.2: BR, BLR, RET, whose
 * register is x30 unless named). */
static bool a64_ip_update(csh h, const cs_insn *insn, sw_reg_by_name reg, void *ctx,
                          uint64_t *target)
{
	const cs_arm64 *a = &insn->detail->arm64;
	if (insn->id == ARM64_INS_RET && a->op_count == 0)
		return reg(ctx, "x30", target);
	if ((insn->id == ARM64_INS_BR || insn->id == ARM64_INS_BLR || insn->id == ARM64_INS_RET) &&
	    a->op_count == 1 && a->operands[0].type == ARM64_OP_REG)
		return sw_cs_reg_value(h, a->operands[0].reg, reg, ctx, target);
	return false;
}

/* ARM and Thumb (ARM ARM A8.8): BX and BLX through a register (its value,
 * the state bit cleared), MOV pc, Rm, POP and LDM with pc in the list (the
 * list's last word: pc is the highest register), LDR pc from memory (not
 * pc-relative). Only unconditional ones: a condition not known to pass
 * may not send the pc anywhere. */
static bool arm_ip_update(csh h, const cs_insn *insn, sw_reg_by_name reg, sw_word_at word,
                          void *ctx, uint64_t *target)
{
	const cs_arm *a = &insn->detail->arm;
	if (a->cc != ARM_CC_AL && a->cc != ARM_CC_INVALID)
		return false;
	uint64_t v, base;
	switch (insn->id) {
	case ARM_INS_BX: case ARM_INS_BLX:
		if (a->op_count != 1 || a->operands[0].type != ARM_OP_REG ||
		    !sw_cs_reg_value(h, a->operands[0].reg, reg, ctx, &v))
			return false;
		*target = v & 0xfffffffeu;
		return true;
	case ARM_INS_MOV:
		if (a->op_count != 2 || a->operands[0].type != ARM_OP_REG ||
		    a->operands[0].reg != ARM_REG_PC || a->operands[1].type != ARM_OP_REG ||
		    !sw_cs_reg_value(h, a->operands[1].reg, reg, ctx, &v))
			return false;
		*target = v & 0xfffffffeu;
		return true;
	case ARM_INS_POP: case ARM_INS_LDM: {
		bool pop = insn->id == ARM_INS_POP;
		unsigned first = pop ? 0 : 1, n = a->op_count;
		if (n <= first || a->operands[n - 1].type != ARM_OP_REG ||
		    a->operands[n - 1].reg != ARM_REG_PC ||
		    !(pop ? reg(ctx, "sp", &base)
		          : a->operands[0].type == ARM_OP_REG &&
		                sw_cs_reg_value(h, a->operands[0].reg, reg, ctx, &base)) ||
		    !word(ctx, (base + 4u * (n - 1 - first)) & 0xffffffffu, 4, &v))
			return false;
		*target = v & 0xfffffffeu;
		return true;
	}
	case ARM_INS_LDR: {
		if (a->op_count < 2 || a->operands[0].type != ARM_OP_REG ||
		    a->operands[0].reg != ARM_REG_PC || a->operands[1].type != ARM_OP_MEM)
			return false;
		const cs_arm_op *m = &a->operands[1];
		if (m->mem.base == ARM_REG_PC || m->mem.index != ARM_REG_INVALID ||
		    !sw_cs_reg_value(h, m->mem.base, reg, ctx, &base))
			return false;
		/* A post-indexed form loads from the base itself. */
		uint64_t at = base + (a->op_count == 2 ? (uint64_t)(int64_t)m->mem.disp : 0);
		if (!word(ctx, at & 0xffffffffu, 4, &v))
			return false;
		*target = v & 0xfffffffeu;
		return true;
	}
	default:
		return false;
	}
}

/* MIPS's jumps through a register (jr, jalr: the last register named) and
 * PowerPC's branches to lr and ctr (blr, blrl, bctr, bctrl), unconditional
 * ones. */
static bool risc_ip_update(csh h, const cs_insn *insn, bool ppc, sw_reg_by_name reg, void *ctx,
                           uint64_t *target)
{
	if (ppc) {
		switch (insn->id) {
		case PPC_INS_BLR: case PPC_INS_BLRL:
			return insn->detail->ppc.bc == PPC_BC_INVALID && reg(ctx, "lr", target);
		case PPC_INS_BCTR: case PPC_INS_BCTRL:
			return insn->detail->ppc.bc == PPC_BC_INVALID && reg(ctx, "ctr", target);
		default:
			return false;
		}
	}
	const cs_mips *m = &insn->detail->mips;
	if ((insn->id != MIPS_INS_JR && insn->id != MIPS_INS_JALR && insn->id != MIPS_INS_JR_HB &&
	     insn->id != MIPS_INS_JALR_HB) ||
	    m->op_count == 0 || m->operands[m->op_count - 1].type != MIPS_OP_REG)
		return false;
	return sw_cs_reg_value(h, m->operands[m->op_count - 1].reg, reg, ctx, target);
}

bool sw_instruction_pointer_update(enum sw_cpu cpu, uint64_t pc, const uint8_t *code, size_t len,
                                   sw_reg_by_name reg, sw_word_at word, void *ctx,
                                   uint64_t *target)
{
	return sw_instruction_pointer_update_in(cpu, false, false, pc, code, len, reg, word, ctx,
	                                        target);
}

bool sw_instruction_pointer_update_in(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                                      const uint8_t *code, size_t len, sw_reg_by_name reg,
                                      sw_word_at word, void *ctx, uint64_t *target)
{
	struct sw_cs_decoded d;
	struct sw_rv_insn rv;
	if (is_riscv(cpu)) {
		uint64_t base;
		if (!riscv_decode(cpu, pc, code, len, &rv) || !rv.jumps_through ||
		    !riscv_reg(rv.jump_reg, reg, ctx, &base))
			return false;
		*target = (base + (uint64_t)rv.jump_offset) & ~(uint64_t)1;
		if (cpu == SW_CPU_RISCV32)
			*target &= 0xffffffffu;
		return true;
	}
	if (!sw_cs_decode(cpu, big_endian, thumb, pc, code, len, &d))
		return false;
	bool ok;
	switch (d.arch) {
	case CS_ARCH_ARM64: ok = a64_ip_update(d.h, d.insn, reg, ctx, target); break;
	case CS_ARCH_X86:
		ok = x86_ip_update(d.h, d.insn, cpu == SW_CPU_AMD64, reg, word, ctx, target);
		break;
	case CS_ARCH_ARM: ok = arm_ip_update(d.h, d.insn, reg, word, ctx, target); break;
	case CS_ARCH_MIPS: case CS_ARCH_PPC:
		ok = risc_ip_update(d.h, d.insn, d.arch == CS_ARCH_PPC, reg, ctx, target);
		if (ok && (cpu == SW_CPU_MIPS || cpu == SW_CPU_PPC))
			*target &= 0xffffffffu;
		break;
	default: ok = false; break;
	}
	sw_cs_done(&d);
	return ok;
}

/* Adds register r's use (its name and value) to out, once. */
static void add_use(csh h, unsigned r, sw_reg_by_name reg, void *ctx, struct sw_reg_use *out,
                    unsigned max, unsigned *n)
{
	const char *name = cs_reg_name(h, r);
	uint64_t v;
	if (!name || *n >= max || !sw_cs_reg_value(h, r, reg, ctx, &v))
		return;
	for (unsigned i = 0; i < *n; i++)
		if (strcmp(out[i].name, name) == 0)
			return;
	out[(*n)++] = (struct sw_reg_use){ name, v };
}

unsigned sw_address_registers(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                              const uint8_t *code, size_t len, sw_reg_by_name reg, void *ctx,
                              struct sw_reg_use *out, unsigned max)
{
	struct sw_cs_decoded dec;
	unsigned n = 0;
	struct sw_rv_insn rv;
	if (is_riscv(cpu)) {
		unsigned r = 0;
		uint64_t v;
		if (riscv_decode(cpu, pc, code, len, &rv))
			r = rv.loads || rv.stores ? rv.base : rv.jumps_through ? rv.jump_reg : 0;
		if (r == 0 || max == 0 || !riscv_reg(r, reg, ctx, &v))
			return 0;
		out[0] = (struct sw_reg_use){ sw_riscv_reg_name(r), v };
		return 1;
	}
	if (!sw_cs_decode(cpu, big_endian, thumb, pc, code, len, &dec))
		return 0;
	csh h = dec.h;
	const cs_insn *insn = dec.insn;
	const cs_detail *d = insn->detail;
	switch (dec.arch) {
	case CS_ARCH_X86:
		for (uint8_t i = 0; i < d->x86.op_count; i++) {
			const cs_x86_op *op = &d->x86.operands[i];
			if (op->type == X86_OP_MEM && insn->id != X86_INS_LEA && insn->id != X86_INS_NOP) {
				if (op->mem.base != X86_REG_INVALID && op->mem.base != X86_REG_RIP &&
				    op->mem.base != X86_REG_EIP)
					add_use(h, op->mem.base, reg, ctx, out, max, &n);
				if (op->mem.index != X86_REG_INVALID)
					add_use(h, op->mem.index, reg, ctx, out, max, &n);
			} else if (op->type == X86_OP_REG &&
			           (insn->id == X86_INS_CALL || insn->id == X86_INS_JMP)) {
				add_use(h, op->reg, reg, ctx, out, max, &n);
			}
		}
		break;
	case CS_ARCH_ARM64:
		for (uint8_t i = 0; i < d->arm64.op_count; i++) {
			const cs_arm64_op *op = &d->arm64.operands[i];
			if (op->type == ARM64_OP_MEM) {
				add_use(h, op->mem.base, reg, ctx, out, max, &n);
				if (op->mem.index != ARM64_REG_INVALID)
					add_use(h, op->mem.index, reg, ctx, out, max, &n);
			} else if (op->type == ARM64_OP_REG &&
			           (insn->id == ARM64_INS_BR || insn->id == ARM64_INS_BLR ||
			            insn->id == ARM64_INS_RET)) {
				add_use(h, op->reg, reg, ctx, out, max, &n);
			}
		}
		if (insn->id == ARM64_INS_RET && d->arm64.op_count == 0)
			add_use(h, ARM64_REG_X30, reg, ctx, out, max, &n);
		break;
	case CS_ARCH_ARM:
		for (uint8_t i = 0; i < d->arm.op_count; i++) {
			const cs_arm_op *op = &d->arm.operands[i];
			if (op->type == ARM_OP_MEM && op->mem.base != ARM_REG_PC) {
				add_use(h, op->mem.base, reg, ctx, out, max, &n);
				if (op->mem.index != ARM_REG_INVALID)
					add_use(h, op->mem.index, reg, ctx, out, max, &n);
			}
		}
		break;
	case CS_ARCH_MIPS:
		for (uint8_t i = 0; i < d->mips.op_count; i++)
			if (d->mips.operands[i].type == MIPS_OP_MEM)
				add_use(h, d->mips.operands[i].mem.base, reg, ctx, out, max, &n);
		break;
	case CS_ARCH_PPC:
		for (uint8_t i = 0; i < d->ppc.op_count; i++)
			if (d->ppc.operands[i].type == PPC_OP_MEM)
				add_use(h, d->ppc.operands[i].mem.base, reg, ctx, out, max, &n);
		break;
	default:
		break;
	}
	sw_cs_done(&dec);
	return n;
}
