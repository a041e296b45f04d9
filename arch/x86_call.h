/* Shared by x86 and amd64: does a call instruction end right before a
 * return address? */
#ifndef SW_ARCH_X86_CALL_H
#define SW_ARCH_X86_CALL_H

#include <stdbool.h>
#include <stdint.h>

struct sw_walk;

/* True if the bytes before ra decode as a near call (E8 rel32, or FF /2 in
 * any ModRM form). When the code bytes are not in the snapshot the check
 * cannot be made: *known is set false and the result is true. */
bool sw_x86_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known);

#endif
