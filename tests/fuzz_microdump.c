/* libFuzzer target for the microdump reader: the input is written to a
 * memfd and read through the ordinary path (mmap included), every
 * microdump of the log in turn, then freed. Seeds: the corpus's
 * microdump-*.dmp logs (tests/meson.build, fuzz_seeds). */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "formats/microdump.h"
#include "fuzz_memfd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parts read per input: enough to cover a log of several microdumps, few
 * enough that one input of thousands of BEGIN lines stays quick. */
enum { FUZZ_MAX_PARTS = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz_microdump", data, size, path);
	if (fd < 0)
		return 0;
	struct sw_part next;
	bool more = true;
	for (unsigned part = 0; more && part < FUZZ_MAX_PARTS; part++) {
		struct sw_snapshot snap;
		struct sw_err err = { 0 };
		sw_microdump_read(path, part ? &next : NULL, &snap, &err);
		/* Touch what a consumer touches: every region's bytes, every
		 * module's strings. */
		volatile uint8_t sink = 0;
		for (uint32_t i = 0; i < snap.nmem; i++)
			if (snap.mem[i].size)
				sink ^= snap.mem[i].data[0] ^ snap.mem[i].data[snap.mem[i].size - 1];
		for (uint32_t i = 0; i < snap.nmodules; i++)
			sink ^= (uint8_t)snap.modules[i].code_file[0] ^
			        (uint8_t)(snap.modules[i].debug_id ? snap.modules[i].debug_id[0] : 0);
		(void)sink;
		more = snap.has_next;
		next = snap.next;
		sw_snapshot_free(&snap);
	}
	close(fd);
	return 0;
}
