/* The stack walker: for each thread, frame 0 from the context, then callers
 * by CFI, frame pointer, prologue analysis and validated scanning, in that
 * order, until a termination rule holds. */
#ifndef SW_WALKER_H
#define SW_WALKER_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "arena.h"
#include "frame.h"
#include "snapshot.h"
#include "symbols.h"

struct sw_walk_options {
	uint32_t max_frames;       /* per thread; 0: the default (1024) */
	bool no_scan;              /* never fall back to stack scanning */
};

/* The frames of one thread. */
struct sw_stack {
	uint32_t thread;           /* index into snapshot threads */
	struct sw_frame *frames;   /* inline frames precede their physical frame */
	uint32_t nframes;
	bool truncated;            /* stopped at max_frames */
	bool used_crash_context;   /* frame 0 came from the exception context */
	bool dump_thread;          /* wrote the dump: not walked (its context and
	                              stack were in flux), no frames */
};

struct sw_walk_result {
	struct sw_stack *stacks;   /* one per snapshot thread, same order */
	uint32_t nstacks;
	/* The crashing thread's stack (the exception's thread), or when there
	 * was no exception the thread that asked for the dump; -1: neither. */
	int32_t crashing;
	/* Per snapshot module: whether its symbols were asked for and found. */
	enum sw_symbols_status *module_status;
};

/* The walk in progress; arch hooks and unwinders read memory through it. */
struct sw_walk {
	const struct sw_snapshot *snap;
	const struct sw_arch *arch;
	const struct sw_symbol_source *symbols;
	struct sw_walk_options opt;
	struct sw_arena *arena;    /* where frames and symbol strings go */
	enum sw_symbols_status *module_status;
	uint64_t stack_lo, stack_hi;  /* captured stack memory of the thread */
};

/* Walks every thread of snap. Frames and strings are allocated in arena. */
bool sw_walk_snapshot(const struct sw_snapshot *snap, const struct sw_arch *arch,
                      const struct sw_symbol_source *symbols,
                      const struct sw_walk_options *opt, struct sw_arena *arena,
                      struct sw_walk_result *out);

/* Memory and module access for hooks and unwinders. sw_walk_read_word reads
 * a word of the thread's stack (false outside it); sw_walk_read any bytes
 * the snapshot captured. */
bool sw_walk_read_word(const struct sw_walk *w, uint64_t addr, uint64_t *out);
bool sw_walk_read(const struct sw_walk *w, uint64_t addr, void *out, size_t n);
/* The module symbols covering addr (loaded on demand), or NULL; *module
 * receives the module index or -1. */
const struct sw_module_symbols *sw_walk_symbols_at(const struct sw_walk *w,
                                                   uint64_t addr, int32_t *module);
/* Is addr plausibly a return address: inside a module, inside a function
 * when the module has symbols, and after a call instruction? */
bool sw_walk_is_return_address(const struct sw_walk *w, uint64_t addr);
/* Looks for a return address in the words from *slot upwards (at most
 * `words` of them); on success *slot is the word's address and *ra its
 * value. */
bool sw_walk_scan_for_return_address(const struct sw_walk *w, uint64_t *slot,
                                     uint64_t *ra, uint32_t words);

#endif
