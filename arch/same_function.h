/* Shared by the link-register CPUs (arm, ppc): do two code addresses lie
 * in the same function? */
#ifndef SW_ARCH_SAME_FUNCTION_H
#define SW_ARCH_SAME_FUNCTION_H

#include <stdint.h>

struct sw_walk;

enum sw_function_relation {
	SW_FUNCTION_UNKNOWN,   /* no symbols say (one of them is in no module,
	                          or its module has no function there) */
	SW_FUNCTION_SAME,
	SW_FUNCTION_DIFFERENT, /* different modules, or different functions */
};

/* Where a and b (addresses inside instructions, e.g. call sites) lie
 * relative to each other: in different modules they are in different
 * functions even without symbols; in one module the module's symbols
 * must cover both. */
enum sw_function_relation sw_arch_same_function(const struct sw_walk *w, uint64_t a,
                                                uint64_t b);

#endif
