/* RISC-V firmware trap entries (arch/riscv_trap.c). */
#ifndef SW_ARCH_RISCV_TRAP_H
#define SW_ARCH_RISCV_TRAP_H

#include "lib/arch.h"

/* When the callee's function is a trap-entry routine whose frame layout
 * is known (FreeRTOS's RISC-V port, ESP-IDF's vectors.S), its caller is
 * the interrupted context, read whole from the frame the routine saved:
 * OK with out->restored_context set. NO_RULE for any other function;
 * END when the routine is known but its frame cannot be found or fails
 * its checks (no other method may guess past a trap entry). */
enum sw_unwind_status sw_riscv_caller_of_trap(const struct sw_step *s, struct sw_caller *out);

#endif
