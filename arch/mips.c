/* MIPS o32 and n64. Register numbers 0-31 are the general registers (their
 * DWARF numbers, MIPS psABI); hi, lo, pc follow. Walking hooks (prologue
 * analysis) arrive with the MIPS issue; these tables decode contexts. */
#include "registry.h"

enum { MIPS_GP = 28, MIPS_SP = 29, MIPS_FP = 30, MIPS_RA = 31, MIPS_HI = 32,
       MIPS_LO = 33, MIPS_PC = 34 };

static const char *const mips_reg_names[] = {
	"zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2",
	"t3", "t4", "t5", "t6", "t7", "s0", "s1", "s2", "s3", "s4", "s5",
	"s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp", "ra", "hi",
	"lo", "pc",
};

static const uint8_t mips_print_order[] = {
	MIPS_GP, MIPS_SP, MIPS_FP, MIPS_RA, MIPS_PC,
	16, 17, 18, 19, 20, 21, 22, 23,
};

/* The call is followed by its delay slot: ra - 8 is the jal itself. */
static uint64_t mips_call_site(uint64_t ra)
{
	return ra - 8;
}

static uint64_t mips_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr;
}

static bool mips_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && (pc & 3) == 0;
}

/* o32 / n64 psABI: s0-s7, gp (n64), sp and fp are callee-saved. */
#define MIPS_CALLEE_SAVED ((0xffull << 16) | (1ull << MIPS_GP) | (1ull << MIPS_SP) | (1ull << MIPS_FP))

const struct sw_arch sw_arch_mips = {
	.name = "mips",
	.cpu = SW_CPU_MIPS,
	.word_size = 4,
	.nregs = sizeof mips_reg_names / sizeof mips_reg_names[0],
	.reg_names = mips_reg_names,
	.pc = MIPS_PC,
	.sp = MIPS_SP,
	.fp = MIPS_FP,
	.ra = MIPS_RA,
	.callee_saved = MIPS_CALLEE_SAVED,
	.print_order = mips_print_order,
	.nprint = sizeof mips_print_order,
	.call_site = mips_call_site,
	.strip_code_pointer = mips_strip,
	.pc_is_plausible = mips_pc_plausible,
};

const struct sw_arch sw_arch_mips64 = {
	.name = "mips64",
	.cpu = SW_CPU_MIPS64,
	.word_size = 8,
	.nregs = sizeof mips_reg_names / sizeof mips_reg_names[0],
	.reg_names = mips_reg_names,
	.pc = MIPS_PC,
	.sp = MIPS_SP,
	.fp = MIPS_FP,
	.ra = MIPS_RA,
	.callee_saved = MIPS_CALLEE_SAVED,
	.print_order = mips_print_order,
	.nprint = sizeof mips_print_order,
	.call_site = mips_call_site,
	.strip_code_pointer = mips_strip,
	.pc_is_plausible = mips_pc_plausible,
};
