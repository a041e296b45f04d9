/* The .snap reader, modules: how a module's run-time addresses relate to
 * the addresses its symbol files use (docs/snap-format.md, MODULE).
 *
 * A MODULE record gives the image's run-time range and its bias (run-time
 * address - link address; 0 for firmware). stackwalk's providers take a
 * module offset, address - base - load_bias, and add the ELF's file_vaddr
 * (p_vaddr - p_offset of its first PT_LOAD: where file offset 0 would be
 * linked) to get the link address. So base + load_bias must be file_vaddr
 * + bias, and file_vaddr is the ELF's, which the device does not know: a
 * firmware linked at 0x08000000 whose first segment sits at file offset
 * 0x10000 has file_vaddr 0x07ff0000. It is read here from the module's
 * ELF among the symbol paths (found as the symbol store finds it: by
 * build-id, else by name), which then becomes the module's image. Without
 * one, module offsets count from base (load_bias 0): a Breakpad .sym's
 * addresses count from the first loadable segment's p_vaddr (dump_syms),
 * so a .sym alone is right when base is where that segment runs (its
 * p_vaddr + bias; docs/snap-format.md, MODULE). A .sym read together
 * with the ELF is looked up at the ELF's offsets less that segment's
 * p_offset (symbols/elf_symbols.h, sw_elf_symbols_sym_base). */
#include <stdlib.h>

#include "snap_internal.h"
#include "symbols/elf_image.h"
#include "symbols/elf_locate.h"

void sr_link_modules(struct sr_reader *r, const uint64_t *bias, const bool *linked)
{
	struct sw_snapshot *s = r->snap;
	const struct sw_open_options *o = r->opts;
	if (!o || o->nsearch_paths == 0)
		return;
	struct sw_elf_locator l = {
		.snap = s,
		.paths = o->search_paths,
		.npaths = o->nsearch_paths,
	};
	for (uint32_t i = 0; i < s->nmodules; i++) {
		struct sw_module *m = &s->modules[i];
		if (linked[i])
			continue;
		struct sw_elf *image = NULL, *debug = NULL;
		char *image_path = NULL, *debug_path = NULL;
		if (!sw_elf_locate(&l, m, &image, &debug, &image_path, &debug_path))
			continue;
		/* The provider's file_vaddr: the binary's, else the debug
		 * file's (objcopy --only-keep-debug keeps the program headers). */
		uint64_t file_vaddr = sw_elf_info(image ? image : debug)->file_vaddr;
		m->load_bias = file_vaddr + bias[i] - m->base;
		if (image_path)
			m->image_path = sw_arena_strdup(&s->arena, image_path);
		sw_elf_free(image);
		sw_elf_free(debug);
		free(image_path);
		free(debug_path);
	}
	sw_elf_locator_free(&l);
}
