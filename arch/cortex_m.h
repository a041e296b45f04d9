/* Cortex-M exception frames (arch/cortex_m.c). */
#ifndef SW_ARCH_CORTEX_M_H
#define SW_ARCH_CORTEX_M_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/arch.h"

/* Is v an EXC_RETURN value (bits 31:24 all ones), not a code address? */
bool sw_cortex_m_is_exc_return(uint64_t v);

/* When c's pc, as a rule found it, is an EXC_RETURN value of a Cortex-M
 * snapshot: c becomes the context the exception interrupted, read from
 * the exception frame (restored_context set). NO_RULE when c's pc is
 * an address; END when the frame cannot be read (its stack pointer or
 * memory not captured, a wrong integrity signature). */
enum sw_unwind_status sw_cortex_m_caller_of_exception(const struct sw_step *s,
                                                      struct sw_caller *c);

#endif
