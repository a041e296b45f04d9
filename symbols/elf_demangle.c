/* Symbol names as people read them: libiberty's demangler (GCC's), which
 * knows the Itanium C++ ABI (§5.1 "External Names") and both Rust
 * manglings; a Rust legacy name is printed without its "h<hash>" element,
 * as rustc's own demangler does. */
#include "symbols/elf_image.h"

#include <demangle.h>
#include <stdlib.h>
#include <string.h>

/* Only names in a mangled form are handed over: "_Z" (Itanium C++, and
 * Rust legacy, which borrows it) and "_R" (Rust v0). libiberty would also
 * rewrite other shapes ("_GLOBAL__sub_I_x" -> "global constructors keyed
 * to x"), which unwinders and symbolizers print as they are. */
static bool looks_mangled(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/* Android's dynamic linker is built with every symbol renamed "__dl_" +
 * name (objcopy --prefix-symbols), and libunwindstack prints the rest
 * demangled behind the prefix: "__dl__ZL24debuggerd_signal_handleriP7siginfoPv"
 * is "__dl_debuggerd_signal_handler(int, siginfo*, void*)" in its
 * zlib_compress_arm and load_bias_different_section_bias_arm64 outputs. */
static const char linker_prefix[] = "__dl_";

const char *sw_demangle(const char *name, struct sw_arena *a)
{
	const char *prefix = "";
	const char *mangled = name;
	if (strncmp(name, linker_prefix, sizeof linker_prefix - 1) == 0) {
		prefix = linker_prefix;
		mangled = name + sizeof linker_prefix - 1;
	}
	if (!looks_mangled(mangled))
		return name;
	char *d = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!d)
		return name;
	const char *out = sw_arena_printf(a, "%s%s", prefix, d);
	free(d);
	return out;
}
