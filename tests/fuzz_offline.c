/* libFuzzer target for the offline reader. A folder is several files, so
 * the input is a small container: three little-endian u16 lengths, then
 * regs.txt, maps.txt and stack.data of those lengths, and the rest of the
 * input as lib.so (an ELF file maps.txt may name). Bytes a length claims
 * past the input's end are simply not there (the file is shorter). The
 * files are written to a fresh folder under /tmp (mkdtemp), read with
 * sw_offline_read, and removed. Seeds: testdata/offline/. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/offline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_HEADER = 6 };

static const char *const fuzz_files[] = { "regs.txt", "maps.txt", "stack.data", "lib.so" };

static void write_part(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	if (n)
		fwrite(p, 1, n, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < FUZZ_HEADER)
		return 0;
	char dir[] = "/tmp/fuzz_offline_XXXXXX";
	if (!mkdtemp(dir))
		return 0;
	size_t pos = FUZZ_HEADER;
	for (unsigned i = 0; i < 4; i++) {
		size_t want = i < 3 ? (size_t)(data[2 * i] | data[2 * i + 1] << 8) : size - pos;
		size_t n = want < size - pos ? want : size - pos;
		write_part(dir, fuzz_files[i], data + pos, n);
		pos += n;
	}

	struct sw_snapshot snap;
	struct sw_err err = { 0 };
	sw_offline_read(dir, &snap, &err);
	/* Touch what a consumer touches: every region's bytes, every
	 * module's strings. */
	volatile uint8_t sink = 0;
	for (uint32_t i = 0; i < snap.nmem; i++)
		if (snap.mem[i].size)
			sink ^= snap.mem[i].data[0] ^ snap.mem[i].data[snap.mem[i].size - 1];
	for (uint32_t i = 0; i < snap.nmodules; i++) {
		const struct sw_module *m = &snap.modules[i];
		sink ^= (uint8_t)m->code_file[0] ^ (uint8_t)m->debug_file[0] ^
		        (uint8_t)(m->debug_id ? m->debug_id[0] : 0) ^
		        (uint8_t)(m->image_path ? m->image_path[0] : 0);
	}
	for (uint32_t i = 0; i < snap.nmaps; i++)
		sink ^= (uint8_t)(snap.maps[i].path ? snap.maps[i].path[0] : 0);
	(void)sink;
	sw_snapshot_free(&snap);

	for (unsigned i = 0; i < 4; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/%s", dir, fuzz_files[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}
