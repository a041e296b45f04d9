/* 32-bit ARM (AAPCS). Register numbers are the DWARF ones (ARM DWARF ABI
 * §4.1): r0-r15, with r13 = sp, r14 = lr, r15 = pc; cpsr follows. Walking
 * hooks arrive with the ARM issue; this table already decodes contexts. */
#include "registry.h"

enum { ARM_R7 = 7, ARM_R11 = 11, ARM_SP = 13, ARM_LR = 14, ARM_PC = 15, ARM_CPSR = 16 };

static const char *const arm_reg_names[] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
	"r11", "r12", "sp", "lr", "pc", "cpsr",
};

static const uint8_t arm_print_order[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ARM_SP, ARM_LR, ARM_PC,
};

static uint64_t arm_call_site(uint64_t ra)
{
	return ra - 1;
}

static uint64_t arm_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr & ~(uint64_t)1; /* the Thumb bit */
}

static bool arm_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && pc <= 0xffffffffu;
}

const struct sw_arch sw_arch_arm = {
	.name = "arm",
	.cpu = SW_CPU_ARM,
	.word_size = 4,
	.nregs = sizeof arm_reg_names / sizeof arm_reg_names[0],
	.reg_names = arm_reg_names,
	.pc = ARM_PC,
	.sp = ARM_SP,
	.fp = ARM_R11,
	.ra = ARM_LR,
	/* AAPCS §5.1.1: r4-r11 and sp are callee-saved. */
	.callee_saved = 0xff0u | (1u << ARM_SP),
	.print_order = arm_print_order,
	.nprint = sizeof arm_print_order,
	.call_site = arm_call_site,
	.strip_code_pointer = arm_strip,
	.pc_is_plausible = arm_pc_plausible,
};
