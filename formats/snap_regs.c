/* The .snap reader, registers: the format's CPU ids and register sets
 * (docs/snap-format.md, "CPU" and "Register sets"), mapped onto the arch
 * tables' register numbers (arch/<cpu>.c). A set's first registers are the arch
 * table's own, number for number (the DWARF numbers on ARM and RISC-V; the
 * whole set for the CPUs whose set is the table); the registers after them
 * are named, and a name the arch table has (riscv's vlenb) goes into the
 * context, any other (mcause, msp, cfsr) into the thread's extra
 * registers. */
#include <string.h>

#include "arch/registry.h"
#include "snap_internal.h"
#include "snap_regs.h"

/* The format's CPU ids (fixed by the spec, not stackwalk's enum). */
static const struct {
	uint16_t id;
	enum sw_cpu cpu;
	uint8_t word_size;
} sr_cpus[] = {
	{ SNAP_CPU_X86, SW_CPU_X86, 4 },         { SNAP_CPU_AMD64, SW_CPU_AMD64, 8 },
	{ SNAP_CPU_ARM, SW_CPU_ARM, 4 },         { SNAP_CPU_ARM64, SW_CPU_ARM64, 8 },
	{ SNAP_CPU_MIPS, SW_CPU_MIPS, 4 },       { SNAP_CPU_MIPS64, SW_CPU_MIPS64, 8 },
	{ SNAP_CPU_PPC, SW_CPU_PPC, 4 },         { SNAP_CPU_PPC64, SW_CPU_PPC64, 8 },
	{ SNAP_CPU_RISCV32, SW_CPU_RISCV32, 4 }, { SNAP_CPU_RISCV64, SW_CPU_RISCV64, 8 },
};

enum sw_cpu sr_cpu(uint16_t id, uint8_t *word_size)
{
	*word_size = 0;
	for (size_t i = 0; i < sizeof sr_cpus / sizeof sr_cpus[0]; i++)
		if (sr_cpus[i].id == id) {
			*word_size = sr_cpus[i].word_size;
			return sr_cpus[i].cpu;
		}
	return SW_CPU_UNKNOWN;
}

/* Cortex-M registers 16-38 (ARMv7-M ARM B1.4 and B3.2; ARMv8-M adds
 * SFSR and SFAR, the Security Extension's banked stack pointers and
 * CONTROL, and FPCCR). */
static const char *const cortex_m_names[SNAP_CM_NREGS] = {
	[SNAP_CM_XPSR] = "xpsr", [SNAP_CM_MSP] = "msp", [SNAP_CM_PSP] = "psp",
	[SNAP_CM_CONTROL] = "control", [SNAP_CM_EXC_RETURN] = "exc_return",
	[SNAP_CM_PRIMASK] = "primask", [SNAP_CM_BASEPRI] = "basepri",
	[SNAP_CM_FAULTMASK] = "faultmask", [SNAP_CM_CFSR] = "cfsr", [SNAP_CM_HFSR] = "hfsr",
	[SNAP_CM_DFSR] = "dfsr", [SNAP_CM_MMFAR] = "mmfar", [SNAP_CM_BFAR] = "bfar",
	[SNAP_CM_AFSR] = "afsr", [SNAP_CM_SFSR] = "sfsr", [SNAP_CM_SFAR] = "sfar",
	[SNAP_CM_MSP_NS] = "msp_ns", [SNAP_CM_PSP_NS] = "psp_ns", [SNAP_CM_MSP_S] = "msp_s",
	[SNAP_CM_PSP_S] = "psp_s", [SNAP_CM_FPCCR] = "fpccr", [SNAP_CM_CONTROL_NS] = "control_ns",
	[SNAP_CM_CONTROL_S] = "control_s",
};

/* RISC-V registers 33-37: machine-mode trap CSRs (privileged ISA, "Machine
 * Trap Handling"), and the V extension's vlenb, which riscv's table has. */
static const char *const riscv_names[SNAP_RV_NREGS] = {
	[SNAP_RV_MCAUSE] = "mcause", [SNAP_RV_MEPC] = "mepc", [SNAP_RV_MTVAL] = "mtval",
	[SNAP_RV_MSTATUS] = "mstatus", [SNAP_RV_VLENB] = "vlenb",
};

struct regset {
	uint16_t id;
	uint8_t nregs;
	uint8_t same;              /* registers 0..same-1 are the arch table's 0..same-1 */
	const char *const *names;  /* names of registers same..nregs-1 */
	enum sw_cpu cpus[2];
};

static const struct regset regsets[] = {
	{ SNAP_REGSET_X86, 10, 10, NULL, { SW_CPU_X86, SW_CPU_X86 } },
	{ SNAP_REGSET_AMD64, 18, 18, NULL, { SW_CPU_AMD64, SW_CPU_AMD64 } },
	{ SNAP_REGSET_ARM, 17, 17, NULL, { SW_CPU_ARM, SW_CPU_ARM } },
	{ SNAP_REGSET_ARM64, 34, 34, NULL, { SW_CPU_ARM64, SW_CPU_ARM64 } },
	{ SNAP_REGSET_MIPS, 35, 35, NULL, { SW_CPU_MIPS, SW_CPU_MIPS64 } },
	{ SNAP_REGSET_PPC, 37, 37, NULL, { SW_CPU_PPC, SW_CPU_PPC64 } },
	{ SNAP_REGSET_RISCV, SNAP_RV_NREGS, SNAP_RV_PC + 1, riscv_names,
	  { SW_CPU_RISCV32, SW_CPU_RISCV64 } },
	{ SNAP_REGSET_CORTEX_M, SNAP_CM_NREGS, SNAP_CM_PC + 1, cortex_m_names,
	  { SW_CPU_ARM, SW_CPU_ARM } },
};

static const struct regset *find_regset(uint16_t id)
{
	for (size_t i = 0; i < sizeof regsets / sizeof regsets[0]; i++)
		if (regsets[i].id == id)
			return &regsets[i];
	return NULL;
}

unsigned sr_regset_size(uint16_t regset)
{
	const struct regset *rs = find_regset(regset);
	return rs ? rs->nregs : 0;
}

const char *sr_regset_name(uint16_t regset, unsigned i)
{
	const struct regset *rs = find_regset(regset);
	return rs && rs->names && i >= rs->same && i < rs->nregs ? rs->names[i] : NULL;
}

bool sr_regset_fits(uint16_t regset, enum sw_cpu cpu)
{
	const struct regset *rs = find_regset(regset);
	return rs && (rs->cpus[0] == cpu || rs->cpus[1] == cpu);
}

/* The A-profile CPSR a Cortex-M's xPSR stands for (ARMv7-M ARM B1.4.2):
 * the flags N Z C V Q (bits 31-27) and GE (19-16) are where CPSR has them;
 * EPSR.T, bit 24, is CPSR.T, bit 5 (bit 5 of xPSR is IPSR's exception
 * number, which the arm table would misread as the instruction set). */
static uint64_t cpsr_of_xpsr(uint64_t xpsr)
{
	return (xpsr & 0xf80f0000u) | ((xpsr >> 24) & 1) << 5;
}

void sr_regs_to_thread(struct sr_reader *r, struct sw_thread *t, uint16_t regset,
                         uint64_t mask, struct sw_span values)
{
	const struct regset *rs = find_regset(regset);
	const struct sw_arch *a = sw_arch_for_cpu(r->cpu);
	memset(&t->ctx, 0, sizeof t->ctx);
	if (!rs || !a)
		return;
	uint32_t nextra = 0;
	for (unsigned i = rs->same; i < rs->nregs; i++)
		nextra += (mask >> i) & 1;
	struct sw_named_reg *extra =
		nextra ? sw_arena_array(&r->snap->arena, nextra, sizeof *extra) : NULL;
	t->extra_regs = extra;
	t->nextra_regs = 0;
	unsigned k = 0;
	for (unsigned i = 0; i < SR_MAX_REGS; i++) {
		if (!((mask >> i) & 1))
			continue;
		uint64_t v = sw_uint(values, (uint64_t)k++ * r->word_size, r->word_size);
		if (i < rs->same) {
			if (i < a->nregs)
				sw_reg_set(&t->ctx, i, v);
			continue;
		}
		if (i >= rs->nregs)
			continue; /* not the set's: the caller says so */
		const char *name = rs->names[i];
		int ours = sw_arch_reg_index(a, name, strlen(name));
		if (ours >= 0)
			sw_reg_set(&t->ctx, (unsigned)ours, v);
		else if (extra)
			extra[t->nextra_regs++] = (struct sw_named_reg){ name, v };
	}
	sw_snap_context_from_named(regset, a, t);
}

const char *sw_snap_named_reg(uint16_t regset, const char *name)
{
	const struct regset *rs = find_regset(regset);
	for (unsigned i = rs ? rs->same : 0; rs && i < rs->nregs; i++)
		if (strcmp(rs->names[i], name) == 0)
			return rs->names[i];
	return NULL;
}

void sw_snap_context_from_named(uint16_t regset, const struct sw_arch *a, struct sw_thread *t)
{
	uint64_t v;
	int cpsr = sw_arch_reg_index(a, "cpsr", 4);
	if (regset == SNAP_REGSET_CORTEX_M && cpsr >= 0 && sw_thread_extra_reg(t, "xpsr", &v))
		sw_reg_set(&t->ctx, (unsigned)cpsr, cpsr_of_xpsr(v));
	/* A trap handler's record of the interrupted code: its pc is mepc. */
	if (regset == SNAP_REGSET_RISCV && !sw_reg_valid(&t->ctx, a->pc) &&
	    sw_thread_extra_reg(t, "mepc", &v))
		sw_reg_set(&t->ctx, a->pc, v);
}
