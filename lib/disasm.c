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
