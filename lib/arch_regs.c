/* Register numbers by name and by DWARF number: lookups in a CPU's table
 * (lib/arch.h) that need nothing but the table, so that the symbol
 * providers which call them depend on lib/ alone. */
#include "arch.h"

#include <string.h>

int sw_arch_reg_index(const struct sw_arch *a, const char *name, size_t len)
{
	if (len > 0 && name[0] == '$') {
		name++;
		len--;
	}
	for (unsigned i = 0; i < a->nregs; i++) {
		const char *r = a->reg_names[i];
		if (r && strlen(r) == len && memcmp(r, name, len) == 0)
			return (int)i;
	}
	return -1;
}

int sw_arch_dwarf_reg(const struct sw_arch *a, unsigned n)
{
	if (a->dwarf_regs && n < a->ndwarf_regs)
		return a->dwarf_regs[n];
	for (unsigned i = 0; i < a->ndwarf_extra; i++)
		if (a->dwarf_extra[i].dwarf == n)
			return a->dwarf_extra[i].reg;
	return -1;
}
