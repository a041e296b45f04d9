/* RISC-V RV32 and RV64 (psABI). Register numbers 0-31 are x0-x31 under their
 * ABI names (their DWARF numbers); pc follows. Walking hooks (frame pointer
 * s0, prologue analysis) arrive with the RISC-V issue. */
#include "registry.h"

enum { RV_RA = 1, RV_SP = 2, RV_S0 = 8, RV_PC = 32 };

static const char *const riscv_reg_names[] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
	"a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
	"s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6", "pc",
};

static const uint8_t riscv_print_order[] = {
	RV_PC, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

static uint64_t riscv_call_site(uint64_t ra)
{
	return ra - 2; /* inside a jal/jalr of either length */
}

static uint64_t riscv_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr;
}

static bool riscv_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && (pc & 1) == 0;
}

/* psABI: s0-s11 and sp are callee-saved. */
#define RISCV_CALLEE_SAVED ((1ull << RV_SP) | (3ull << 8) | (0x3ffull << 18))

const struct sw_arch sw_arch_riscv32 = {
	.name = "riscv32",
	.cpu = SW_CPU_RISCV32,
	.word_size = 4,
	.nregs = sizeof riscv_reg_names / sizeof riscv_reg_names[0],
	.reg_names = riscv_reg_names,
	.pc = RV_PC,
	.sp = RV_SP,
	.fp = RV_S0,
	.ra = RV_RA,
	.callee_saved = RISCV_CALLEE_SAVED,
	.print_order = riscv_print_order,
	.nprint = sizeof riscv_print_order,
	.call_site = riscv_call_site,
	.strip_code_pointer = riscv_strip,
	.pc_is_plausible = riscv_pc_plausible,
};

const struct sw_arch sw_arch_riscv64 = {
	.name = "riscv64",
	.cpu = SW_CPU_RISCV64,
	.word_size = 8,
	.nregs = sizeof riscv_reg_names / sizeof riscv_reg_names[0],
	.reg_names = riscv_reg_names,
	.pc = RV_PC,
	.sp = RV_SP,
	.fp = RV_S0,
	.ra = RV_RA,
	.callee_saved = RISCV_CALLEE_SAVED,
	.print_order = riscv_print_order,
	.nprint = sizeof riscv_print_order,
	.call_site = riscv_call_site,
	.strip_code_pointer = riscv_strip,
	.pc_is_plausible = riscv_pc_plausible,
};
