/* The fuzz targets' last stage, as cmd/stackwalk.c runs it: an opened
 * snapshot walked with a symbol store and rendered to /dev/null, so that
 * what a reader let through reaches the walker and the output as a user's
 * input would. What is checked is that nothing crashes, leaks or hangs. */
#ifndef STACKWALK_TESTS_FUZZ_WALK_H
#define STACKWALK_TESTS_FUZZ_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arch/registry.h"
#include "lib/output.h"
#include "lib/walker.h"
#include "symbols/store.h"

/* How a target walks: the store's paths (none: no symbols), the frames per
 * thread (0: the walker's default), and whether every output format is
 * rendered or the text alone. */
struct fuzz_walk {
	const char *const *symbol_paths;
	size_t npaths;
	uint32_t max_frames;
	bool every_format;
};

/* /dev/null, opened once for the process; NULL when it cannot be. */
static inline FILE *fuzz_sink(void)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	return sink;
}

/* The frame budget of a fuzzed walk: the walker's own is 131,072 frames
 * plus one per 16 bytes of input (lib/walker.c), which a mutated dump of
 * thousands of threads on shared stacks reaches. Under the fuzz build's
 * instrumentation each frame, walked and rendered in three formats, costs ~47
 * microseconds (0.46 s for such an input in a release build, 6.5 s here):
 * within libFuzzer's 10 s alone, over it beside other work (two such
 * timeouts on 29 Nov, neither a hang). The 16,384th frame reaches all the
 * code the 131,072nd does, the budget's end included. */
#define FUZZ_FRAME_BUDGET_BASE 16384u
#define FUZZ_BYTES_PER_FRAME 16u

/* Walks snap as how says and renders it to sink (no store, no walk).
 * With every format, the JSON is written in one of its two layouts,
 * compact or pretty by the parity of the input's size: they differ only
 * in whitespace, mutations flip the parity all the time, and writing both
 * for every input was a fifth of fuzz_walk_minidump's time. */
static inline void fuzz_walk_and_print(const struct sw_snapshot *snap,
                                       const struct fuzz_walk *how, FILE *sink,
                                       size_t input_size)
{
	struct sw_err err = { 0 };
	struct sw_sym_store *store = sw_sym_store_create(how->symbol_paths, how->npaths, snap, &err);
	if (!store)
		return;
	const struct sw_arch *arch = sw_arch_for_cpu(snap->sys.cpu);
	struct sw_walk_options opt = {
		.max_frames = how->max_frames,
		.arch_for_cpu = sw_arch_for_cpu,
		.frame_budget = FUZZ_FRAME_BUDGET_BASE + input_size / FUZZ_BYTES_PER_FRAME,
		/* --explain for half the inputs (by the size's second bit, not
		 * the JSON layout's first): its recording and its output lines
		 * see every walk's paths, at the cost of half the walks. */
		.explain = (input_size >> 1) & 1,
	};
	struct sw_arena arena;
	sw_arena_init(&arena);
	struct sw_walk_result walk;
	if (sw_walk_snapshot(snap, arch, sw_sym_store_source(store), &opt, &arena, &walk)) {
		sw_output_text(sink, snap, arch, &walk);
		if (how->every_format) {
			sw_output_machine(sink, snap, arch, &walk);
			sw_output_json(sink, snap, arch, &walk, input_size % 2 == 1);
		}
	}
	sw_arena_free(&arena);
	sw_sym_store_free(store);
}

#endif
