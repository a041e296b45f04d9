/* libFuzzer target for the offline reader. A folder is several files, so
 * the input is a small container, in one of two layouts; bytes a length
 * claims past the input's end are simply not there (the file is
 * shorter). The files are written to a fresh folder (mkdtemp) under
 * /dev/shm (tmpfs: on a disk, creating and removing the files was a
 * quarter of the time) or /tmp, read with sw_offline_read, the snapshot
 * is walked, and all is removed.
 *
 * libunwindstack / simpleperf folder: three little-endian u16 lengths,
 * then regs.txt, maps.txt and stack.data of those lengths, and the rest
 * of the input as lib.so (an ELF file maps.txt may name).
 *
 * Debug-probe folder (docs/offline-format.md, "Debug-probe captures"):
 * the bytes "PR", a u8 count of memory files (at most FUZZ_MAX_MEM), a
 * u16 length and regs.txt; per memory file a u8 name form (0 mem-HEX.bin,
 * 1 mem-0xHEX.bin, 2 a name that is not mem-HEX.bin), a u32 address, a
 * u16 length and the bytes; the rest of the input is firmware.elf (none
 * when empty). An input of the first layout never starts with "PR" in
 * practice (a regs.txt of 21,072 bytes).
 *
 * Seeds: testdata/offline/ (make_seeds.py; probe_*.seed from the firmware
 * fixtures by make_probe_seeds.py). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/registry.h"
#include "formats/offline.h"
#include "lib/crash_reason.h"
#include "lib/walker.h"
#include "symbols/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_HEADER = 6, FUZZ_MAX_MEM = 8, FUZZ_MAX_FILES = FUZZ_MAX_MEM + 4 };

struct fuzz_dir {
	char path[64];
	char files[FUZZ_MAX_FILES][96];
	unsigned nfiles;
};

/* Up to n bytes of the input at *pos (fewer at its end); *pos moves on. */
static size_t take(size_t size, size_t *pos, size_t n)
{
	size_t left = size - *pos;
	size_t got = n < left ? n : left;
	*pos += got;
	return got;
}

static void write_part(struct fuzz_dir *d, const char *name, const uint8_t *p, size_t n)
{
	if (d->nfiles == FUZZ_MAX_FILES)
		return;
	char path[128];
	snprintf(path, sizeof path, "%s/%s", d->path, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	if (n)
		fwrite(p, 1, n, f);
	fclose(f);
	snprintf(d->files[d->nfiles++], sizeof d->files[0], "%s", name);
}

static void unwinder_layout(struct fuzz_dir *d, const uint8_t *data, size_t size)
{
	static const char *const names[] = { "regs.txt", "maps.txt", "stack.data", "lib.so" };
	size_t pos = FUZZ_HEADER;
	for (unsigned i = 0; i < 4; i++) {
		size_t want = i < 3 ? (size_t)(data[2 * i] | data[2 * i + 1] << 8) : size - pos;
		size_t at = pos, n = take(size, &pos, want);
		write_part(d, names[i], data + at, n);
	}
}

static uint32_t le(const uint8_t *p, unsigned n)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static void probe_layout(struct fuzz_dir *d, const uint8_t *data, size_t size)
{
	size_t pos = 2;
	if (size < 5)
		return;
	unsigned nmem = data[pos++];
	if (nmem > FUZZ_MAX_MEM)
		nmem = FUZZ_MAX_MEM;
	size_t want = le(data + pos, 2);
	pos += 2;
	size_t at = pos, n = take(size, &pos, want);
	write_part(d, "regs.txt", data + at, n);
	for (unsigned i = 0; i < nmem && size - pos >= 7; i++) {
		unsigned form = data[pos] % 3;
		uint32_t base = le(data + pos + 1, 4);
		want = le(data + pos + 5, 2);
		pos += 7;
		char name[40];
		if (form == 0)
			snprintf(name, sizeof name, "mem-%x.bin", base);
		else if (form == 1)
			snprintf(name, sizeof name, "mem-0x%08X.bin", base);
		else
			snprintf(name, sizeof name, "mem-%xz.bin", base);
		at = pos;
		n = take(size, &pos, want);
		write_part(d, name, data + at, n);
	}
	if (pos < size)
		write_part(d, "firmware.elf", data + pos, size - pos);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < FUZZ_HEADER)
		return 0;
	static const char *tmp;
	if (!tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	struct fuzz_dir d = { .nfiles = 0 };
	snprintf(d.path, sizeof d.path, "%s/fuzz_offline_XXXXXX", tmp);
	if (!mkdtemp(d.path))
		return 0;
	if (data[0] == 'P' && data[1] == 'R')
		probe_layout(&d, data, size);
	else
		unwinder_layout(&d, data, size);

	struct sw_snapshot snap;
	struct sw_err err = { 0 };
	sw_offline_read(d.path, &snap, &err);
	/* Touch what a consumer touches: every region's bytes, every
	 * module's strings, the crash reason; and walk it (a probe folder's
	 * firmware.elf is its module: the walk reads its code and CFI). */
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
	char reason[128];
	sink ^= (uint8_t)sw_crash_reason(&snap, SW_REASON_BREAKPAD, reason, sizeof reason)[0];
	struct sw_err serr = { 0 };
	struct sw_sym_store *store = sw_sym_store_create(NULL, 0, &snap, &serr);
	if (store) {
		struct sw_arena arena;
		sw_arena_init(&arena);
		struct sw_walk_result result;
		struct sw_walk_options opt = { .max_frames = 64, .arch_for_cpu = sw_arch_for_cpu };
		sw_walk_snapshot(&snap, sw_arch_for_cpu(snap.sys.cpu), sw_sym_store_source(store), &opt,
		                 &arena, &result);
		sw_arena_free(&arena);
		sw_sym_store_free(store);
	}
	(void)sink;
	sw_snapshot_free(&snap);

	for (unsigned i = 0; i < d.nfiles; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/%s", d.path, d.files[i]);
		unlink(path);
	}
	rmdir(d.path);
	return 0;
}
