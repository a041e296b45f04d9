/* libFuzzer: the Java method at a DEX offset (lib/dex_method.c). The
 * input's first 4 bytes (little-endian) are the offset, the rest is the
 * DEX file, read through a callback that refuses bytes past its end, as
 * a snapshot refuses memory it did not capture. The oracle: no read out
 * of bounds (ASan), and a method found holds the offset in its code and
 * is named "class.method". Seeds: testdata/dex (make_seeds.c). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dex_fixture.h"
#include "lib/dex_method.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	uint32_t offset = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	                  (uint32_t)data[3] << 24;
	struct dex_view v = { data + 4, size - 4 };
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_dex_method m;
	if (sw_dex_method_at(dex_read_view, &v, offset, &a, &m) &&
	    (m.code_offset > offset || !strchr(m.name, '.')))
		abort();
	sw_arena_free(&a);
	return 0;
}
