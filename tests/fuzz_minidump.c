/* libFuzzer target for the minidump reader: the input is written to a
 * memfd and read through the ordinary path (mmap included), then freed.
 * Built by `CC=clang meson setup B -Dfuzzing=true -Db_lundef=false`
 * against the instrumented library (tests/meson.build). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/minidump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_minidump", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return 0;
		}
		done += (size_t)n;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
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
