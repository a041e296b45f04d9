/* Writes testdata/dex's fuzzing seeds (tests/fuzz_dex_method.c): the DEX
 * file of tests/dex_fixture.h, after a 4-byte offset into main's code.
 *   cc -I tests -o /tmp/make_seeds testdata/dex/make_seeds.c &&
 *   /tmp/make_seeds testdata/dex */
#include <stdio.h>

#include "dex_fixture.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	struct dex_fixture f = dex_fixture_build(0);
	uint32_t offsets[2] = { f.main_insns + 2, f.run_insns };
	for (unsigned i = 0; i < 2; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/seed%u.bin", argv[1], i);
		FILE *out = fopen(path, "wb");
		uint8_t off[4];
		dex_put32(off, 0, offsets[i]);
		if (!out || fwrite(off, 1, 4, out) != 4 || fwrite(f.b, 1, f.size, out) != f.size)
			return 1;
		fclose(out);
	}
	free(f.b);
	return 0;
}
