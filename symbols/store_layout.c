/* The symbol store's layout (see store_layout.h). */
#include "store_layout.h"

#include <string.h>
#include <strings.h>

#include "lib/path.h"

const char *sw_store_debug_name(const struct sw_module *m)
{
	const char *n = m->debug_file && *m->debug_file ? sw_basename(m->debug_file) : NULL;
	if (!n || !*n)
		n = m->code_file && *m->code_file ? sw_basename(m->code_file) : NULL;
	return n && *n ? n : NULL;
}

bool sw_store_sym_path(char *out, size_t cap, const char *top, const char *name,
                       const char *debug_id, bool gz)
{
	size_t stem = strlen(name);
	if (stem > 4 && strcasecmp(name + stem - 4, ".pdb") == 0)
		stem -= 4;
	return sw_path_printf(out, cap, "%s%s%s/%s/%.*s%s", top ? top : "", top ? "/" : "", name,
	                      debug_id, (int)stem, name, gz ? ".sym.gz" : ".sym");
}

bool sw_store_elf_path(char *out, size_t cap, const char *top, const char *code_name,
                       const char *build_id)
{
	return sw_path_printf(out, cap, "%s%s%s/%s/%s", top ? top : "", top ? "/" : "", code_name,
	                      build_id, code_name);
}
