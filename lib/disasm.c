/* The crashing instruction as text (lib/disasm.h), by Capstone 4.0.2
 * (cs_open/cs_disasm: one instruction, at its own address, so relative
 * branch targets print as absolute addresses). */
#include "disasm.h"

#include <capstone/capstone.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Capstone's architecture and mode for a CPU; false where it has none. */
static bool capstone_mode(enum sw_cpu cpu, bool big_endian, bool thumb, cs_arch *arch,
                          cs_mode *mode)
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

bool sw_disassemble(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                    const uint8_t *code, size_t len, char *out, size_t n)
{
	cs_arch arch;
	cs_mode mode;
	csh h;
	if (len == 0 || n == 0 || !capstone_mode(cpu, big_endian, thumb, &arch, &mode) ||
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

/* A register's value as an address operand names it: 32-bit names in
 * 64-bit code (addr32 forms: [eax]) are the low half of the 64-bit one. */
static bool x86_reg_value(csh h, unsigned r, sw_reg_by_name reg, void *ctx, uint64_t *v)
{
	const char *name = cs_reg_name(h, r);
	if (!name)
		return false;
	if (reg(ctx, name, v))
		return true;
	if (name[0] == 'e' && strlen(name) == 3) {
		char wide[4] = { 'r', name[1], name[2], '\0' };
		if (reg(ctx, wide, v)) {
			*v &= 0xffffffffu;
			return true;
		}
	}
	return false;
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
		if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS)
			return -1;
		uint64_t base = 0, index = 0;
		if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP)
			base = insn->address + insn->size;
		else if (op->mem.base != X86_REG_INVALID && !x86_reg_value(h, op->mem.base, reg, ctx, &base))
			return -1;
		if (op->mem.index != X86_REG_INVALID && !x86_reg_value(h, op->mem.index, reg, ctx, &index))
			return -1;
		uint64_t a = base + index * (uint64_t)(int64_t)op->mem.scale + (uint64_t)op->mem.disp;
		if (x->addr_size == 4)
			a &= 0xffffffffu;
		else if (x->addr_size == 2)
			a &= 0xffffu;
		for (int w = 0; w < 2; w++) {
			if (!(op->access & (w ? CS_AC_WRITE : CS_AC_READ)))
				continue;
			if (n == max)
				return (int)n;
			out[n++] = (struct sw_mem_access){ a, op->size, w == 1 };
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
			out[n++] = (struct sw_mem_access){ push ? sp - word : sp, (uint8_t)word, push };
	}
	return (int)n;
}

int sw_memory_accesses(enum sw_cpu cpu, uint64_t pc, const uint8_t *code, size_t len,
                       sw_reg_by_name reg, void *ctx, struct sw_mem_access *out, unsigned max)
{
	csh h;
	bool is64 = cpu == SW_CPU_AMD64;
	if (len == 0 || (cpu != SW_CPU_X86 && !is64) ||
	    cs_open(CS_ARCH_X86, is64 ? CS_MODE_64 : CS_MODE_32, &h) != CS_ERR_OK)
		return -1;
	int n = -1;
	cs_insn *insn = NULL;
	if (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK &&
	    cs_disasm(h, code, len, pc, 1, &insn) == 1) {
		n = x86_accesses(h, insn, is64, reg, ctx, out, max);
		cs_free(insn, 1);
	}
	cs_close(&h);
	return n;
}

/* The target of an x86 call/jmp/ret at insn (Capstone 4 detail). */
static bool x86_ip_update(csh h, const cs_insn *insn, bool is64, sw_reg_by_name reg,
                          sw_word_at word, void *ctx, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;
	const unsigned size = is64 ? 8 : 4;
	uint64_t sp, a, base = 0, index = 0;
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
		return x86_reg_value(h, op->reg, reg, ctx, target);
	if (op->type != X86_OP_MEM || op->mem.segment == X86_REG_FS ||
	    op->mem.segment == X86_REG_GS)
		return false; /* an immediate: a direct target, valid by construction */
	if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP)
		base = insn->address + insn->size;
	else if (op->mem.base != X86_REG_INVALID && !x86_reg_value(h, op->mem.base, reg, ctx, &base))
		return false;
	if (op->mem.index != X86_REG_INVALID && !x86_reg_value(h, op->mem.index, reg, ctx, &index))
		return false;
	a = base + index * (uint64_t)(int64_t)op->mem.scale + (uint64_t)op->mem.disp;
	if (x->addr_size == 4)
		a &= 0xffffffffu;
	return word(ctx, a, size, target);
}

bool sw_instruction_pointer_update(enum sw_cpu cpu, uint64_t pc, const uint8_t *code, size_t len,
                                   sw_reg_by_name reg, sw_word_at word, void *ctx,
                                   uint64_t *target)
{
	csh h;
	bool is64 = cpu == SW_CPU_AMD64, ok = false;
	if (len == 0 || (cpu != SW_CPU_X86 && !is64) ||
	    cs_open(CS_ARCH_X86, is64 ? CS_MODE_64 : CS_MODE_32, &h) != CS_ERR_OK)
		return false;
	cs_insn *insn = NULL;
	if (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK &&
	    cs_disasm(h, code, len, pc, 1, &insn) == 1) {
		ok = x86_ip_update(h, insn, is64, reg, word, ctx, target);
		cs_free(insn, 1);
	}
	cs_close(&h);
	return ok;
}
