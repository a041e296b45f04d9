/* libFuzzer target for the .snap reader: the input is written to a memfd
 * and read through the ordinary path (mmap included); then what a consumer
 * touches is touched (every region's bytes, every string, the extra
 * registers, the crash reason), and the snapshot is walked with no symbols
 * and rendered as text, so that a hostile register set or module map
 * reaches the walker as the CLI would hand it over. Seeds: testdata/snap/
 * (testdata/snap/make_seeds.py). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "formats/snap.h"
#include "fuzz_memfd.h"
#include "fuzz_walk.h"
#include "lib/crash_reason.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t touch_string(const char *s)
{
	uint8_t x = 0;
	for (; s && *s; s++)
		x ^= (uint8_t)*s;
	return x;
}

/* No symbols, a few frames each, the text only: the reader is under test,
 * not the scan. */
static const struct fuzz_walk no_symbols = { .max_frames = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *sink = fuzz_sink();
	if (!sink)
		return 0;
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz_snap", data, size, path);
	if (fd < 0)
		return 0;
	struct sw_snapshot snap;
	struct sw_err err = { 0 };
	enum sw_err_code rc = sw_snap_read(path, NULL, &snap, &err);
	volatile uint8_t sink_byte = 0;
	for (uint32_t i = 0; i < snap.nmem; i++)
		if (snap.mem[i].size)
			sink_byte ^= snap.mem[i].data[0] ^ snap.mem[i].data[snap.mem[i].size - 1];
	for (uint32_t i = 0; i < snap.nmodules; i++)
		sink_byte ^= touch_string(snap.modules[i].code_file) ^
		             touch_string(snap.modules[i].debug_id) ^
		             touch_string(snap.modules[i].version);
	for (uint32_t i = 0; i < snap.nthreads; i++) {
		const struct sw_thread *t = &snap.threads[i];
		sink_byte ^= touch_string(t->name);
		for (uint32_t k = 0; k < t->nextra_regs; k++)
			sink_byte ^= touch_string(t->extra_regs[k].name) ^ (uint8_t)t->extra_regs[k].value;
	}
	for (uint32_t i = 0; i < snap.nannotations; i++)
		sink_byte ^= touch_string(snap.annotations[i].key) ^
		             touch_string(snap.annotations[i].value);
	sink_byte ^= touch_string(snap.sys.os_name) ^ touch_string(snap.sys.cpu_info);
	char reason[256];
	sink_byte ^= touch_string(sw_crash_reason(&snap, SW_REASON_BREAKPAD, reason, sizeof reason));
	(void)sink_byte;
	if (rc == SW_OK || rc == SW_ERR_CORRUPT)
		fuzz_walk_and_print(&snap, &no_symbols, sink, size);
	sw_snapshot_free(&snap);
	close(fd);
	return 0;
}
