/* PowerPC 32/64 (SysV / ELFv2 ABI). Register numbers 0-31 are r0-r31 (r1 =
 * sp); srr0 (the pc), lr, ctr, cr and xer follow. Walking hooks (the r1
 * back chain) arrive with the PowerPC issue. */
#include "registry.h"

enum { PPC_SP = 1, PPC_SRR0 = 32, PPC_LR = 33 };

static const char *const ppc_reg_names[] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
	"r11", "r12", "r13", "r14", "r15", "r16", "r17", "r18", "r19", "r20",
	"r21", "r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29", "r30",
	"r31", "srr0", "lr", "ctr", "cr", "xer",
};

static const uint8_t ppc_print_order[] = { PPC_SRR0, PPC_SP };

static uint64_t ppc_call_site(uint64_t ra)
{
	return ra - 4;
}

static uint64_t ppc_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr;
}

static bool ppc_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && (pc & 3) == 0;
}

/* SysV ABI: r1 and r14-r31 are non-volatile. */
#define PPC_CALLEE_SAVED ((1ull << PPC_SP) | (0x3ffffull << 14))

const struct sw_arch sw_arch_ppc = {
	.name = "ppc",
	.cpu = SW_CPU_PPC,
	.word_size = 4,
	.nregs = sizeof ppc_reg_names / sizeof ppc_reg_names[0],
	.reg_names = ppc_reg_names,
	.pc = PPC_SRR0,
	.sp = PPC_SP,
	.fp = PPC_SP,
	.ra = PPC_LR,
	.callee_saved = PPC_CALLEE_SAVED,
	.print_order = ppc_print_order,
	.nprint = sizeof ppc_print_order,
	.call_site = ppc_call_site,
	.strip_code_pointer = ppc_strip,
	.pc_is_plausible = ppc_pc_plausible,
};

const struct sw_arch sw_arch_ppc64 = {
	.name = "ppc64",
	.cpu = SW_CPU_PPC64,
	.word_size = 8,
	.nregs = sizeof ppc_reg_names / sizeof ppc_reg_names[0],
	.reg_names = ppc_reg_names,
	.pc = PPC_SRR0,
	.sp = PPC_SP,
	.fp = PPC_SP,
	.ra = PPC_LR,
	.callee_saved = PPC_CALLEE_SAVED,
	.print_order = ppc_print_order,
	.nprint = sizeof ppc_print_order,
	.call_site = ppc_call_site,
	.strip_code_pointer = ppc_strip,
	.pc_is_plausible = ppc_pc_plausible,
};
