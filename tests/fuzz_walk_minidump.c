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

#include "formats/open.h"
#include "fuzz_memfd.h"
#include "fuzz_walk.h"

#ifndef SW_FUZZ_SYMBOLS
#define SW_FUZZ_SYMBOLS "testdata/example/symbols"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const symbol_paths[] = { SW_FUZZ_SYMBOLS };
/* The CLI's walk: the committed store, every frame, every format. */
static const struct fuzz_walk as_the_cli = { .symbol_paths = symbol_paths, .npaths = 1,
	                                     .every_format = true };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *sink = fuzz_sink();
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
		fuzz_walk_and_print(&snap, &as_the_cli, sink, size);
	sw_snapshot_free(&snap);
	close(fd);
	return 0;
}
