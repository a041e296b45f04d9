/* libFuzzer: arbitrary .ARM.exidx / .ARM.extab bytes and a stack image,
 * then lookups, decodes and unwinds at the entries' boundaries.
 *
 * Input: byte 0 flags (bit 0: big-endian, bit 1: a text_end bound,
 * bit 2: lr unknown, bit 3: sp unknown; r12 is never known),
 * bytes 1-2 and 3-4 the little-endian lengths of .ARM.exidx and
 * .ARM.extab (clipped to what follows), then their bytes, then the stack
 * memory (at STACK). The seeds are in testdata/exidx. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/arm_exidx.h"
#include "symbols/arm_exidx_internal.h"

#define EXIDX_VADDR 0x20000u
#define EXTAB_VADDR 0x1f000u
#define STACK 0x7000u

struct fuzz_mem {
	const uint8_t *stack;
	size_t len;
	uint32_t unknown;   /* registers read_reg does not know */
};

static bool fuzz_reg(void *self, uint32_t r, uint64_t *v)
{
	const struct fuzz_mem *m = self;
	if (r >= 16 || (m->unknown & (1u << r)))
		return false;
	*v = r == 13 ? STACK : r == 14 ? 0x10101u : STACK + 0x10 * r;
	return true;
}

static bool fuzz_read(void *self, uint64_t addr, void *out, size_t n)
{
	const struct fuzz_mem *m = self;
	if (addr < STACK || addr - STACK > m->len || n > m->len - (addr - STACK))
		return false;
	memcpy(out, m->stack + (addr - STACK), n);
	return true;
}

static void unwind_at(const struct sw_exidx_sections *s, const struct sw_unwind_io *io,
                      uint64_t vaddr)
{
	struct sw_unwind_result r;
	enum sw_cfi_status st = sw_exidx_unwind(s, vaddr, io, &r);
	bool covers = sw_exidx_covers(s, vaddr);
	if ((st == SW_CFI_NO_RULE) == covers)
		abort(); /* covers and unwind disagree on the lookup */
	if (st == SW_CFI_OK && (!sw_unwind_known(&r, 13) || !sw_unwind_known(&r, r.ra_column)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	uint8_t flags = data[0];
	size_t nexidx = (size_t)data[1] | (size_t)data[2] << 8;
	size_t nextab = (size_t)data[3] | (size_t)data[4] << 8;
	data += 5;
	size -= 5;
	if (nexidx > size)
		nexidx = size;
	if (nextab > size - nexidx)
		nextab = size - nexidx;

	/* Copies, so that ASan sees reads past each section. */
	uint8_t *exidx = malloc(nexidx ? nexidx : 1);
	uint8_t *extab = malloc(nextab ? nextab : 1);
	memcpy(exidx, data, nexidx);
	memcpy(extab, data + nexidx, nextab);
	struct fuzz_mem mem = { data + nexidx + nextab, size - nexidx - nextab, 1u << 12 };
	if (flags & 4)
		mem.unknown |= 1u << 14;
	if (flags & 8)
		mem.unknown |= 1u << 13;

	struct sw_exidx_sections s = {
		.exidx = exidx, .exidx_size = nexidx, .exidx_vaddr = EXIDX_VADDR,
		.extab = extab, .extab_size = nextab, .extab_vaddr = EXTAB_VADDR,
		.text_end = (flags & 2) ? EXIDX_VADDR : 0,
		.big_endian = flags & 1,
	};
	struct sw_unwind_io io = { &mem, fuzz_reg, fuzz_read, 4, flags & 1 };

	uint32_t n = sw_exidx_count(&s);
	for (uint32_t i = 0; i < n && i < 32; i++) {
		struct sw_exidx_entry e;
		if (!sw_exidx_entry_at(&s, i, &e))
			abort();
		struct sw_exidx_program p;
		if (sw_exidx_program_of(&s, &e, &p) == SW_CFI_OK) {
			if (p.nbytes > SW_EXIDX_MAX_BYTES)
				abort();
			static struct sw_exidx_op ops[SW_EXIDX_MAX_BYTES];
			size_t nops = sw_exidx_decode(p.bytes, p.nbytes, ops, SW_EXIDX_MAX_BYTES);
			size_t at = 0;
			for (size_t k = 0; k < nops; k++) {
				if (ops[k].offset != at || ops[k].length == 0)
					abort();
				at += ops[k].length;
			}
			if (at != p.nbytes)
				abort();
		}
		unwind_at(&s, &io, e.fn_start);
		unwind_at(&s, &io, e.fn_start + 1);
		unwind_at(&s, &io, e.fn_end - 1);
		unwind_at(&s, &io, e.fn_end);
	}
	static const uint64_t fixed[] = { 0, 0x10000, EXIDX_VADDR, 0xffffffffu, 0x100000000ull };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		unwind_at(&s, &io, fixed[i]);
	free(exidx);
	free(extab);
	return 0;
}
