/* libFuzzer: a dSYM bundle's DWARF file, a 64-bit Mach-O image
 * (symbols/macho_dsym.c), opened as the symbol store opens one: its
 * identity (LC_UUID, __TEXT's vmaddr) and its __DWARF segment's sections
 * read by sw_dsym_open, given the debug id the input's own UUID makes (so
 * that the check passes and the DWARF is read), from a memfd the reader
 * maps as it maps a file; then the provider's lookup and has_function at
 * module offsets of every unit range (start, middle, last byte). Seeds:
 * testdata/macho (testdata/macho/make_seeds.py: real DWARF in a Mach-O). */
#include <stdint.h>
#include <unistd.h>

#include "fuzz_memfd.h"
#include "lib/arena.h"
#include "symbols/dwarf_lines_internal.h"
#include "symbols/macho_dsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void ask(struct sw_dsym *d, uint64_t offset)
{
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info info;
	if (sw_dsym_ops.lookup(d, offset, &a, &info)) {
		sink += (uint8_t)info.function[0] + info.function_offset;
		if (info.file)
			sink += (uint8_t)info.file[0] + info.line;
		for (uint32_t i = 0; i < info.ninlines; i++)
			sink += (uint8_t)info.inlines[i].function[0];
	}
	sink += sw_dsym_ops.has_function(d, offset);
	sw_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t uuid[16];
	uint64_t text_vmaddr = 0;
	if (!sw_macho_identity(data, size, uuid, &text_vmaddr))
		return 0;
	char id[34];
	sw_macho_debug_id(uuid, id);
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz_macho_dsym", data, size, path);
	if (fd < 0)
		return 0;
	struct sw_err err = { 0 };
	struct sw_dsym *d = sw_dsym_open(path, id, &err);
	if (d) {
		const struct sw_dwarf *dw = sw_dsym_dwarf(d);
		/* At most 32 ranges: a lookup may read a unit, and the input
		 * could name thousands. */
		for (size_t i = 0; i < dw->nranges && i < 32; i++) {
			const struct dw_unit_range *r = &dw->ranges[i];
			ask(d, r->lo - text_vmaddr);
			ask(d, r->lo + (r->hi - r->lo) / 2 - text_vmaddr);
			ask(d, r->hi - 1 - text_vmaddr);
		}
		sw_dsym_free(d);
	}
	close(fd);
	return 0;
}
