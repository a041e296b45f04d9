/* AArch64 (AAPCS64). Register numbers are the DWARF ones (AADWARF64 §4.1):
 * x0-x30 = 0-30 (x29 = fp, x30 = lr), sp = 31; pc and cpsr follow. Walking
 * hooks arrive with the ARM64 issue; this table already decodes contexts. */
#include "registry.h"

enum { ARM64_FP = 29, ARM64_LR = 30, ARM64_SP = 31, ARM64_PC = 32, ARM64_CPSR = 33 };

static const char *const arm64_reg_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30",
	"sp", "pc", "cpsr",
};

/* Breakpad and rust-minidump print x29/x30 as fp/lr. */
static const char *const arm64_text_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "fp", "lr",
	"sp", "pc", "cpsr",
};

static const uint8_t arm64_print_order[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	20, 21, 22, 23, 24, 25, 26, 27, 28, ARM64_FP, ARM64_LR, ARM64_SP, ARM64_PC,
};

static uint64_t arm64_call_site(uint64_t ra)
{
	return ra - 4;
}

/* Pointer authentication (ARMv8.3) signs the high bits of return
 * addresses; user-space code addresses fit in 48 bits here. */
static uint64_t arm64_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr & 0x0000ffffffffffffull;
}

static bool arm64_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && (pc & 3) == 0;
}

const struct sw_arch sw_arch_arm64 = {
	.name = "arm64",
	.cpu = SW_CPU_ARM64,
	.word_size = 8,
	.nregs = sizeof arm64_reg_names / sizeof arm64_reg_names[0],
	.reg_names = arm64_reg_names,
	.text_names = arm64_text_names,
	.pc = ARM64_PC,
	.sp = ARM64_SP,
	.fp = ARM64_FP,
	.ra = ARM64_LR,
	/* AAPCS64 §6.1.1: x19-x29 and sp are callee-saved. */
	.callee_saved = (0x7ffull << 19) | (1ull << ARM64_SP),
	.print_order = arm64_print_order,
	.nprint = sizeof arm64_print_order,
	.call_site = arm64_call_site,
	.strip_code_pointer = arm64_strip,
	.pc_is_plausible = arm64_pc_plausible,
};
