/* libFuzzer: DWARF debugging information (symbols/dwarf_info.c,
 * dwarf_line_program.c, dwarf_lines*.c). The input starts with ten 16-bit
 * little-endian sizes, then the sections in this order: .debug_info,
 * .debug_abbrev, .debug_str, .debug_line_str, .debug_str_offsets,
 * .debug_addr, .debug_ranges, .debug_rnglists, .debug_line,
 * .debug_aranges (each cut to what is left). The reader opens them and is
 * asked what is at addresses taken from the input itself: every unit's
 * range starts, middles and ends, and words of .debug_addr. Seeds:
 * testdata/dwarf (made by testdata/dwarf/make_seeds.py from real files). */
#include <stdint.h>
#include <string.h>

#include "lib/arena.h"
#include "symbols/dwarf_lines.h"
#include "symbols/dwarf_lines_internal.h"

static volatile uint64_t sink;

static void ask(struct sw_dwarf *d, uint64_t vaddr)
{
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info info;
	if (sw_dwarf_lookup(d, vaddr, &a, &info)) {
		if (info.function)
			sink += (uint8_t)info.function[0];
		if (info.file)
			sink += (uint8_t)info.file[0];
		for (uint32_t i = 0; i < info.ninlines; i++)
			sink += (uint8_t)info.inlines[i].function[0];
	}
	sw_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { NSECTIONS = 10 };
	if (size < 2 * NSECTIONS)
		return 0;
	struct sw_span parts[NSECTIONS];
	size_t at = 2 * NSECTIONS;
	for (unsigned i = 0; i < NSECTIONS; i++) {
		size_t want = (size_t)data[2 * i] | (size_t)data[2 * i + 1] << 8;
		size_t n = want < size - at ? want : size - at;
		parts[i] = (struct sw_span){ data + at, n, 0, false };
		at += n;
	}
	struct sw_dwarf_sections s = {
		.info = parts[0], .abbrev = parts[1], .str = parts[2], .line_str = parts[3],
		.str_offsets = parts[4], .addr = parts[5], .ranges = parts[6], .rnglists = parts[7],
		.line = parts[8], .aranges = parts[9],
	};
	struct sw_err err = {0};
	struct sw_dwarf *d = sw_dwarf_open_sections(&s, "fuzz", &err);
	if (!d)
		return 0;
	/* At most 64 ranges: a lookup may read a unit, and the input could
	 * name thousands. */
	for (size_t i = 0; i < d->nranges && i < 64; i++) {
		const struct dw_unit_range *r = &d->ranges[i];
		ask(d, r->lo);
		ask(d, r->lo + (r->hi - r->lo) / 2);
		ask(d, r->hi - 1);
	}
	for (size_t off = 0; off + 8 <= s.addr.size && off < 64; off += 8)
		ask(d, sw_u64(s.addr, off));
	sw_dwarf_free(d);
	return 0;
}
