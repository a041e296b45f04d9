/* The .snap register sets' named registers, shared with the readers of
 * other captures of the same CPUs (the debug-probe folder of
 * formats/offline_probe.c): a Cortex-M's xpsr, msp, psp, control,
 * exc_return and fault registers, a RISC-V hart's trap CSRs
 * (docs/snap-format.md, "Register sets"). One list and one rule for what
 * the context takes from them, not a copy per reader. */
#ifndef SW_FORMATS_SNAP_REGS_H
#define SW_FORMATS_SNAP_REGS_H

#include <stdint.h>

#include "lib/arch.h"
#include "lib/snapshot.h"
#include "snap_writer.h"

/* The set's own spelling of `name` (static) when it is one of the named
 * registers of register set `regset` (SNAP_REGSET_CORTEX_M,
 * SNAP_REGSET_RISCV: the registers after the arch table's); else NULL. */
const char *sw_snap_named_reg(uint16_t regset, const char *name);

/* What thread t's context takes from its named registers (t->extra_regs):
 * a Cortex-M's cpsr from xPSR (the Thumb bit where the arm table reads
 * it), a RISC-V trap's pc from mepc when no pc was given. */
void sw_snap_context_from_named(uint16_t regset, const struct sw_arch *a, struct sw_thread *t);

#endif
