/* What the crashing instruction is, beyond its text and accesses
 * (lib/disasm.h sw_instruction_facts): whether its accesses are all
 * known, whether it divides, may fault for privilege, or faults for a
 * non-canonical address only. The lists follow the Intel SDM vol. 2
 * (each instruction's "Protected Mode Exceptions") and Capstone 4's
 * instruction groups. */
#include "disasm_decode.h"

#include "riscv_disasm.h"

#include <string.h>

/* x86 instructions whose memory accesses are their explicit operands and
 * the stack slot of push/pop/call/ret, all of which sw_memory_accesses_in
 * lists; and, of those, the ones that need an aligned operand (a
 * misaligned one raises #GP too). Not the string instructions (a rep
 * prefix and fast strings fault ahead of rsi/rdi), nor movsd, whose id
 * Capstone 4 shares with the string form. */
static const unsigned x86_complete[] = {
	X86_INS_MOV, X86_INS_MOVABS, X86_INS_MOVZX, X86_INS_MOVSX, X86_INS_MOVSXD,
	X86_INS_ADD, X86_INS_ADC, X86_INS_SUB, X86_INS_SBB, X86_INS_AND, X86_INS_OR,
	X86_INS_XOR, X86_INS_CMP, X86_INS_TEST, X86_INS_INC, X86_INS_DEC, X86_INS_NEG,
	X86_INS_NOT, X86_INS_LEA, X86_INS_NOP, X86_INS_PUSH, X86_INS_POP, X86_INS_CALL,
	X86_INS_JMP, X86_INS_RET, X86_INS_XCHG, X86_INS_XADD, X86_INS_CMPXCHG, X86_INS_SHL,
	X86_INS_SHR, X86_INS_SAR, X86_INS_ROL, X86_INS_ROR, X86_INS_IMUL, X86_INS_MUL,
	X86_INS_DIV, X86_INS_IDIV, X86_INS_BT, X86_INS_BTS, X86_INS_BTR, X86_INS_BTC,
	X86_INS_CMOVA, X86_INS_CMOVAE, X86_INS_CMOVB, X86_INS_CMOVBE, X86_INS_CMOVE,
	X86_INS_CMOVG, X86_INS_CMOVGE, X86_INS_CMOVL, X86_INS_CMOVLE, X86_INS_CMOVNE,
	X86_INS_CMOVNO, X86_INS_CMOVNP, X86_INS_CMOVNS, X86_INS_CMOVO, X86_INS_CMOVP,
	X86_INS_CMOVS, X86_INS_SETA, X86_INS_SETAE, X86_INS_SETB, X86_INS_SETBE,
	X86_INS_SETE, X86_INS_SETG, X86_INS_SETGE, X86_INS_SETL, X86_INS_SETLE,
	X86_INS_SETNE, X86_INS_SETNO, X86_INS_SETNP, X86_INS_SETNS, X86_INS_SETO,
	X86_INS_SETP, X86_INS_SETS, X86_INS_JAE, X86_INS_JA, X86_INS_JBE, X86_INS_JB,
	X86_INS_JE, X86_INS_JGE, X86_INS_JG, X86_INS_JLE, X86_INS_JL, X86_INS_JNE,
	X86_INS_JNO, X86_INS_JNP, X86_INS_JNS, X86_INS_JO, X86_INS_JP, X86_INS_JS,
	X86_INS_MOVUPS, X86_INS_MOVUPD, X86_INS_MOVDQU, X86_INS_MOVSS, X86_INS_MOVQ,
	X86_INS_MOVD, X86_INS_UCOMISS, X86_INS_UCOMISD, X86_INS_COMISS, X86_INS_COMISD,
	X86_INS_CVTSI2SD, X86_INS_CVTSI2SS, X86_INS_CVTSS2SD, X86_INS_CVTSD2SS,
	X86_INS_ADDSD, X86_INS_ADDSS, X86_INS_SUBSD, X86_INS_SUBSS, X86_INS_MULSD,
	X86_INS_MULSS, X86_INS_DIVSD, X86_INS_DIVSS,
	/* aligned (x86_aligned below) */
	X86_INS_MOVAPS, X86_INS_MOVAPD, X86_INS_MOVDQA,
};
static const unsigned x86_aligned[] = { X86_INS_MOVAPS, X86_INS_MOVAPD, X86_INS_MOVDQA };

/* Those that fault for privilege by a setting outside Capstone's
 * privileged group: I/O by IOPL, rdmsr/wrmsr always outside ring 0,
 * rdpmc and rdtsc(p) by CR4.PCE and CR4.TSD. */
static const unsigned x86_privileged_by_setting[] = {
	X86_INS_IN, X86_INS_OUT, X86_INS_INSB, X86_INS_INSW, X86_INS_INSD, X86_INS_OUTSB,
	X86_INS_OUTSW, X86_INS_OUTSD, X86_INS_RDMSR, X86_INS_WRMSR, X86_INS_RDPMC,
	X86_INS_RDTSC, X86_INS_RDTSCP,
};

static bool listed(unsigned id, const unsigned *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == id)
			return true;
	return false;
}

#define LISTED(id, list) listed(id, list, sizeof list / sizeof list[0])

/* Every register reads as 0: what an access's form is, whatever the
 * frame's values. */
static bool any_register(void *ctx, const char *name, uint64_t *value)
{
	(void)ctx;
	(void)name;
	*value = 0;
	return true;
}

/* Outside x86: a load or store whose form sw_memory_accesses_in knows,
 * one access for its whole transfer. Not arm64's structure loads and
 * stores (ld1-ld4, st1-st4: the size is the first register's) nor MIPS's
 * unaligned halves (lwl, swr, ...: they touch only part of the word). */
static bool risc_complete(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                          const uint8_t *code, size_t len, const char *m)
{
	struct sw_mem_access acc[2];
	if (sw_memory_accesses_in(cpu, big_endian, thumb, pc, code, len, any_register, NULL, acc,
	                          2) < 1)
		return false;
	if (cpu == SW_CPU_ARM64 && (m[0] == 'l' || m[0] == 's') &&
	    (strncmp(m + 1, "d1", 2) == 0 || strncmp(m + 1, "d2", 2) == 0 ||
	     strncmp(m + 1, "d3", 2) == 0 || strncmp(m + 1, "d4", 2) == 0 ||
	     strncmp(m + 1, "t1", 2) == 0 || strncmp(m + 1, "t2", 2) == 0 ||
	     strncmp(m + 1, "t3", 2) == 0 || strncmp(m + 1, "t4", 2) == 0))
		return false;
	if ((cpu == SW_CPU_MIPS || cpu == SW_CPU_MIPS64) && strlen(m) == 3 &&
	    (m[2] == 'l' || m[2] == 'r') && (m[1] == 'w' || m[1] == 'd'))
		return false;
	return true;
}

bool sw_instruction_facts(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                          const uint8_t *code, size_t len, struct sw_insn_facts *out)
{
	struct sw_cs_decoded d;
	memset(out, 0, sizeof *out);
	if (cpu == SW_CPU_RISCV32 || cpu == SW_CPU_RISCV64) {
		struct sw_rv_insn rv;
		if (!sw_riscv_decode(code, len, pc, cpu == SW_CPU_RISCV64, &rv))
			return false;
		out->accesses_complete = rv.loads || rv.stores;
		return true;
	}
	if (!sw_cs_decode(cpu, big_endian, thumb, pc, code, len, &d))
		return false;
	unsigned id = d.insn->id;
	out->maybe_privileged = cs_insn_group(d.h, d.insn, CS_GRP_PRIVILEGE) ||
	                        cs_insn_group(d.h, d.insn, CS_GRP_INT);
	if (d.arch == CS_ARCH_X86) {
		out->accesses_complete = LISTED(id, x86_complete);
		out->division = id == X86_INS_DIV || id == X86_INS_IDIV;
		out->maybe_privileged |= LISTED(id, x86_privileged_by_setting);
		out->gp_only_when_non_canonical = out->accesses_complete &&
		                                  !LISTED(id, x86_aligned) && !out->maybe_privileged;
	} else {
		out->accesses_complete = risc_complete(cpu, big_endian, thumb, pc, code, len,
		                                       d.insn->mnemonic);
	}
	sw_cs_done(&d);
	return true;
}
