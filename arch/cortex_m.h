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

/* The caller of a live frame (the capture's context, or one unstacked
 * from an exception frame) of a Cortex-M snapshot whose lr holds
 * EXC_RETURN: a handler that has called nothing yet. pc = EXC_RETURN (the
 * walker then unstacks the frame with sw_cortex_m_caller_of_exception);
 * sp = the handler's entry sp and r4-r11 when its code from its entry to
 * pc proves them, else neither. NO_RULE for any other frame. */
enum sw_unwind_status sw_cortex_m_caller_of_handler(const struct sw_step *s,
                                                    struct sw_caller *out);

#endif
