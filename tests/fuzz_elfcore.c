/* libFuzzer target for the ELF core reader: the input is written to a
 * memfd and read through the ordinary path (content detection, mmap),
 * then every thread, region and module is touched; nothing is walked.
 * Seeds: lldb's cores (tests/meson.build, fuzz_seeds). */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "formats/open.h"
#include "fuzz_memfd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz_elfcore", data, size, path);
	if (fd < 0)
		return 0;
	struct sw_snapshot snap;
	struct sw_err err = { 0 };
	/* A search path that is no file: the no-NT_FILE path runs to its end. */
	const char *paths[] = { "/nonexistent" };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 1 };
	sw_snapshot_open_with(path, &o, &snap, &err);
	volatile uint64_t sink = 0;
	for (uint32_t i = 0; i < snap.nthreads; i++)
		sink ^= snap.threads[i].id ^ snap.threads[i].ctx.valid ^
		        (uint8_t)(snap.threads[i].name ? snap.threads[i].name[0] : 0);
	for (uint32_t i = 0; i < snap.nmem; i++)
		if (snap.mem[i].size)
			sink ^= snap.mem[i].data[0] ^ snap.mem[i].data[snap.mem[i].size - 1];
	for (uint32_t i = 0; i < snap.nmodules; i++)
		sink ^= (uint8_t)snap.modules[i].code_file[0] ^
		        (uint8_t)(snap.modules[i].debug_id ? snap.modules[i].debug_id[0] : 0) ^
		        snap.modules[i].size;
	for (uint32_t i = 0; i < snap.nmaps; i++)
		sink ^= snap.maps[i].start ^ (uint8_t)(snap.maps[i].path ? snap.maps[i].path[0] : 0);
	for (uint32_t i = 0; i < snap.nlink_map; i++)
		sink ^= (uint8_t)snap.link_map[i].name[0];
	(void)sink;
	sw_snapshot_free(&snap);
	close(fd);
	return 0;
}
