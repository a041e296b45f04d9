/* libFuzzer: an .eh_frame or .debug_frame section image, optionally
 * followed by an .eh_frame_hdr, indexed and unwound at several addresses
 * with fixed registers and the input itself as memory.
 *
 * Input: an 8-byte header, then the section, then the hdr.
 *   [0] flags: 1 = .eh_frame, 2 = 32-bit, 4 = big-endian, 8 = arm64
 *   [1..2] hdr length (little-endian; 0 = no hdr)
 *   [3] address step, [4..7] first address (little-endian) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dwarf_cfi.h"
#include "symbols/dwarf_cfi_internal.h"

static const uint8_t *g_data;
static size_t g_size;

static bool fuzz_reg(void *self, uint32_t n, uint64_t *v)
{
	(void)self;
	if (n % 7 == 6)
		return false;
	*v = 0x100 + 8 * (uint64_t)n;
	return true;
}

static bool fuzz_mem(void *self, uint64_t addr, void *out, size_t n)
{
	(void)self;
	if (addr > g_size || n > g_size - addr)
		return false;
	memcpy(out, g_data + addr, n);
	return true;
}

static void unwind_at(const struct sw_cfi *c, const struct sw_unwind_io *io, uint64_t pc)
{
	struct sw_unwind_result out;
	(void)sw_cfi_covers(c, pc);
	(void)sw_cfi_unwind(c, pc, io, &out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	uint8_t flags = data[0];
	size_t hdr_len = data[1] | (size_t)data[2] << 8;
	uint64_t step = data[3] + 1;
	uint64_t first = data[4] | (uint64_t)data[5] << 8 | (uint64_t)data[6] << 16 |
	                 (uint64_t)data[7] << 24;
	const uint8_t *body = data + 8;
	size_t n = size - 8;
	if (hdr_len > n)
		hdr_len = n;
	g_data = data;
	g_size = size;
	struct sw_cfi_params p = { .address_size = flags & 2 ? 4 : 8, .big_endian = flags & 4,
	                           .machine = flags & 8 ? 183 : 62, .load_bias = 0x1000 };
	struct sw_cfi_section frame = { body, n - hdr_len, 0x10000 };
	struct sw_cfi_section hdr = { body + (n - hdr_len), hdr_len, 0x8000 };
	struct sw_cfi *c = sw_cfi_create(&frame, flags & 1, hdr_len ? &hdr : NULL, &p);
	if (!c)
		return 0;
	struct sw_unwind_io io = { NULL, fuzz_reg, fuzz_mem, p.address_size, p.big_endian };
	for (uint64_t k = 0; k < 8; k++)
		unwind_at(c, &io, first + k * step);
	/* And where FDEs start, so that programs run. */
	if (c->use_hdr) {
		for (uint64_t i = 0; i < c->hdr_count && i < 8; i++) {
			struct sw_dcur d = { c->hdr, c->hdr_table + i * 2 * c->hdr_entry_size, false };
			struct sw_pe_bases b = { .section_vaddr = c->hdr_vaddr, .datarel = c->hdr_vaddr,
			                         .has_datarel = true, .address_size = p.address_size };
			uint64_t loc;
			if (sw_pe_read(&d, c->hdr_enc, &b, &loc)) {
				unwind_at(c, &io, loc);
				unwind_at(c, &io, loc + step);
			}
		}
	} else {
		for (size_t i = 0; i < c->nranges && i < 8; i++) {
			unwind_at(c, &io, c->ranges[i].begin);
			unwind_at(c, &io, c->ranges[i].begin + (c->ranges[i].end - c->ranges[i].begin) / 2);
			unwind_at(c, &io, c->ranges[i].end - 1);
		}
	}
	sw_cfi_free(c);
	return 0;
}
