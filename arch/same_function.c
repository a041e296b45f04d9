/* The test the link-register CPUs use to tell a live return address from
 * one left over from an earlier call: a function that has called others
 * since its entry holds, in its link register, an address inside itself. */
#include "same_function.h"

#include "lib/walker.h"

enum sw_function_relation sw_arch_same_function(const struct sw_walk *w, uint64_t a,
                                                uint64_t b)
{
	int32_t ma = sw_module_at(w->snap, a), mb = sw_module_at(w->snap, b);
	if (ma < 0 || mb < 0)
		return SW_FUNCTION_UNKNOWN;
	if (ma != mb)
		return SW_FUNCTION_DIFFERENT;
	uint64_t sa, sb;
	if (!sw_walk_function_start(w, a, &sa) || !sw_walk_function_start(w, b, &sb))
		return SW_FUNCTION_UNKNOWN;
	return sa == sb ? SW_FUNCTION_SAME : SW_FUNCTION_DIFFERENT;
}
