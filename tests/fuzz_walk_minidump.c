/* libFuzzer target for the whole pipeline, as cmd/stackwalk.c runs it: a
 * mutated minidump is opened (through a memfd, so the reader maps it as it
 * maps a file), walked with a small committed symbol store
 * (testdata/example/symbols, whose test_app.pdb matches the seed
 * testdata/example/test.dmp) and rendered in every output format. The
 * outputs go to /dev/null: what is checked is that nothing crashes, leaks,
 * hangs or runs out of memory, at every stage a user's input reaches. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "arch/registry.h"
#include "formats/open.h"
#include "fuzz_memfd.h"
#include "lib/output.h"
#include "lib/walker.h"
#include "symbols/store.h"

#ifndef SW_FUZZ_SYMBOLS
#define SW_FUZZ_SYMBOLS "testdata/example/symbols"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_and_print(const struct sw_snapshot *snap, FILE *sink)
{
	const char *paths[] = { SW_FUZZ_SYMBOLS };
	struct sw_err err = { 0 };
	struct sw_sym_store *store = sw_sym_store_create(paths, 1, snap, &err);
	if (!store)
		return;
	const struct sw_arch *arch = sw_arch_for_cpu(snap->sys.cpu);
	struct sw_walk_options opt = { .arch_for_cpu = sw_arch_for_cpu };
	struct sw_arena arena;
	sw_arena_init(&arena);
	struct sw_walk_result walk;
	if (sw_walk_snapshot(snap, arch, sw_sym_store_source(store), &opt, &arena, &walk)) {
		sw_output_text(sink, snap, arch, &walk);
		sw_output_machine(sink, snap, arch, &walk);
		sw_output_json(sink, snap, arch, &walk, false);
		sw_output_json(sink, snap, arch, &walk, true);
	}
	sw_arena_free(&arena);
	sw_sym_store_free(store);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		return 0;
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz_walk_minidump", data, size, path);
	if (fd < 0)
		return 0;
	struct sw_snapshot snap;
	struct sw_err err = { 0 };
	enum sw_err_code rc = sw_snapshot_open(path, &snap, &err);
	/* The CLI walks what was intact in a damaged input too. */
	if (rc == SW_OK || rc == SW_ERR_CORRUPT)
		walk_and_print(&snap, sink);
	sw_snapshot_free(&snap);
	close(fd);
	return 0;
}
