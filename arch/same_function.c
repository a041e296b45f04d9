/* The test the link-register CPUs use to tell a live return address from
 * one left over from an earlier call: a function that has called others
 * since its entry holds, in its link register, an address inside itself. */
#include "same_function.h"

#include <string.h>

#include "lib/walker.h"

/* The absolute start of the function covering addr, if the symbols say. */
static bool function_start(const struct sw_walk *w, uint64_t addr, int32_t *module,
                           uint64_t *start)
{
	const struct sw_module_symbols *syms = sw_walk_symbols_at(w, addr, module);
	if (!syms || !syms->ops->lookup || *module < 0)
		return false;
	const struct sw_module *m = &w->snap->modules[*module];
	uint64_t base = m->base + m->load_bias;
	struct sw_sym_info info;
	memset(&info, 0, sizeof info);
	if (!syms->ops->lookup(syms->self, addr - base, w->arena, &info) || !info.function)
		return false;
	*start = base + info.function_offset;
	return true;
}

enum sw_function_relation sw_arch_same_function(const struct sw_walk *w, uint64_t a,
                                                uint64_t b)
{
	int32_t ma = sw_module_at(w->snap, a), mb = sw_module_at(w->snap, b);
	if (ma < 0 || mb < 0)
		return SW_FUNCTION_UNKNOWN;
	if (ma != mb)
		return SW_FUNCTION_DIFFERENT;
	uint64_t sa, sb;
	if (!function_start(w, a, &ma, &sa) || !function_start(w, b, &mb, &sb))
		return SW_FUNCTION_UNKNOWN;
	return sa == sb ? SW_FUNCTION_SAME : SW_FUNCTION_DIFFERENT;
}
