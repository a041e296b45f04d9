/* libFuzzer target for ESP-IDF core dumps (formats/espcore.c and the ESP
 * parts of the ELF core reader): the input is written to a memfd and read
 * as an image whatever its first bytes (the container's decoding, header,
 * checksum, the 0.x task list, the embedded ELF core), then through the
 * ordinary path (content detection); and its text is decoded as console
 * base64. Every thread, region and module is touched; nothing is walked.
 * Seeds: the ESP32-C6 dump in its three forms (tests/meson.build). */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "formats/espcore.h"
#include "formats/open.h"
#include "fuzz_memfd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(const struct sw_snapshot *snap)
{
	volatile uint64_t sink = 0;
	for (uint32_t i = 0; i < snap->nthreads; i++)
		sink ^= snap->threads[i].id ^ snap->threads[i].ctx.valid ^
		        (uint8_t)(snap->threads[i].name ? snap->threads[i].name[0] : 0);
	for (uint32_t i = 0; i < snap->nmem; i++)
		if (snap->mem[i].size)
			sink ^= snap->mem[i].data[0] ^ snap->mem[i].data[snap->mem[i].size - 1];
	for (uint32_t i = 0; i < snap->nmodules; i++)
		sink ^= (uint8_t)snap->modules[i].code_file[0] ^ snap->modules[i].size;
	if (snap->crash.reason)
		sink ^= (uint8_t)snap->crash.reason[0];
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz_espcore", data, size, path);
	if (fd < 0)
		return 0;
	/* A search path that is no file: the firmware search runs to its end. */
	const char *paths[] = { "/nonexistent" };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 1 };
	struct sw_snapshot snap;
	struct sw_err err = { 0 };
	sw_espcore_read(path, &o, &snap, &err);
	touch(&snap);
	sw_snapshot_free(&snap);
	struct sw_err err2 = { 0 };
	sw_snapshot_open_with(path, &o, &snap, &err2);
	touch(&snap);
	sw_snapshot_free(&snap);
	uint8_t out[64];
	size_t len;
	uint64_t line;
	struct sw_span text = { data, size, 0, false };
	if (data)
		sw_esp_b64_decode(text, out, sizeof out, &len, &line);
	close(fd);
	return 0;
}
