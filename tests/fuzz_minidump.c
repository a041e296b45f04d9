/* libFuzzer target for the minidump reader: the input is written to a
 * memfd and read through the ordinary path (mmap included), then freed.
 * Built by `CC=clang meson setup B -Dfuzzing=true -Db_lundef=false`
 * against the instrumented library (tests/meson.build). */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "formats/minidump.h"
#include "fuzz_memfd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz_minidump", data, size, path);
	if (fd < 0)
		return 0;
	struct sw_snapshot snap;
	struct sw_err err = { 0 };
	sw_minidump_read(path, &snap, &err);
	/* Touch what a consumer touches: every region's bytes. */
	volatile uint8_t sink = 0;
	for (uint32_t i = 0; i < snap.nmem; i++)
		if (snap.mem[i].size)
			sink ^= snap.mem[i].data[snap.mem[i].size - 1];
	(void)sink;
	sw_snapshot_free(&snap);
	close(fd);
	return 0;
}
