/* libFuzzer: a DWARF expression. The first byte picks the address size
 * (bit 0: 4 bytes), the byte order (bit 1) and whether a CFA is pushed
 * first (bit 2); registers hold fixed values (some unknown) and memory is
 * the input itself. */
#include <stdint.h>
#include <string.h>

#include "symbols/dwarf_cfi_internal.h"
#include "symbols/dwarf_expr.h"

static const uint8_t *g_data;
static size_t g_size;

static bool fuzz_reg(void *self, uint32_t n, uint64_t *v)
{
	(void)self;
	if (n % 5 == 4)
		return false;
	*v = (uint64_t)n * 3;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	g_data = data;
	g_size = size;
	uint8_t flags = data[0];
	struct sw_unwind_io io = { NULL, fuzz_reg, fuzz_mem, flags & 1 ? 4 : 8, flags & 2 };
	uint64_t v;
	(void)sw_dwarf_expr_eval_biased(data + 1, size - 1, &io, 0x4000, flags & 4, 8, &v);
	return 0;
}
