/* From a snapshot path and options to a walked, signed result: the one
 * wiring of reader, symbol store (with its cache and servers), CPU tables
 * and walker, which stackwalk(1) (cmd/) and libstackwalk's API
 * (pipeline/api.c) both call. The layer above formats/, symbols/ and
 * arch/ (docs/design.md): the only code that knows them all, so that lib/
 * knows none of them. */
#ifndef SW_PIPELINE_H
#define SW_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "formats/open.h"
#include "lib/arena.h"
#include "lib/signature.h"
#include "lib/walker.h"
#include "symbols/store.h"
#include "symbols/sym_index.h"
#include "symbols/symbol_server.h"

/* Opens the snapshot at path with the reader its content calls for: its
 * first part, or the microdump `part` names (NULL: the first). Returns as
 * sw_snapshot_open_with (formats/open.h); *snap is to be freed either way. */
enum sw_err_code sw_pipeline_open(const char *path, const struct sw_open_options *opts,
                                  const struct sw_part *part, struct sw_snapshot *snap,
                                  struct sw_err *err);

/* Is dir itself one snapshot (an offline capture folder: regs.txt and
 * maps.txt or a stack copy), rather than a folder of snapshots? */
bool sw_pipeline_is_snapshot_folder(const char *dir);

/* Where a walk finds its symbols. The cache and servers are borrowed (and
 * thread-safe: walks on several threads may share them). */
struct sw_pipeline_symbols {
	const char *const *paths;          /* symbol paths, in order (the store copies them) */
	size_t npaths;
	int local_modules;                 /* 1, 0; -1: the store's default */
	/* How messages name local_modules (the CLI: its flag; a string that
	 * outlives the walk); NULL: the store's words. */
	const char *local_modules_name;
	/* The debug directories; not given: the store's default. */
	bool debug_dirs_given;
	const char *const *debug_dirs;
	size_t ndebug_dirs;
	struct sw_sym_cache *cache;        /* NULL: none */
	struct sw_symbol_server *servers;  /* NULL: none */
};

struct sw_pipeline_options {
	const char *name;                  /* the snapshot, as messages name it */
	struct sw_pipeline_symbols symbols;
	/* The walker's settings; its arch_for_cpu is the pipeline's. */
	struct sw_walk_options walk;
	/* The crash-signature rules the crashing thread is signed with; NULL:
	 * not signed. */
	const struct sw_sig_rules *rules;
};

/* A walked, signed snapshot. Frames' names point into the store's files,
 * the walk into the arena: both live until sw_pipeline_result_free. */
struct sw_pipeline_result {
	const struct sw_arch *arch;        /* the snapshot's CPU; NULL: not supported */
	struct sw_sym_store *store;        /* NULL: it could not be made */
	/* The store's complaint when it was made (a symbol path it cannot
	 * use); code SW_OK: none. The walk goes on without that path. */
	struct sw_err store_err;
	struct sw_arena arena;
	struct sw_walk_result walk;
	/* The crashing (else requesting) thread's stack and its signature;
	 * NULL: no such thread, or no rules. */
	const struct sw_stack *signed_stack;
	struct sw_signature sig;
};

/* Builds the store for snap, picks its CPU's table (and each thread's, for
 * a context naming another CPU), walks and signs, into *res. Returns SW_OK,
 * else why (err says it: the store's failure, or out of memory while
 * walking); res is to be freed with sw_pipeline_result_free either way. */
enum sw_err_code sw_pipeline_walk(const struct sw_snapshot *snap,
                                  const struct sw_pipeline_options *opt,
                                  struct sw_pipeline_result *res, struct sw_err *err);
void sw_pipeline_result_free(struct sw_pipeline_result *res);

/* The symbol servers `so` describes, downloading into cache's directory
 * (cache NULL: a temporary one, removed with the servers). NULL with err
 * set on failure (its code may be SW_OK: out of memory). */
struct sw_symbol_server *sw_pipeline_servers_create(const struct sw_symbol_server_options *so,
                                                    const struct sw_sym_cache *cache,
                                                    struct sw_err *err);

/* After a run that added files to the cache (an index, an inflated ELF
 * section, a download; started: when the run began), the least recently
 * used go until it holds at most max_bytes (symbols/cache_prune.h; 0: no
 * limit). A run that added nothing leaves it alone: pruning lists every
 * folder of the cache, which a warm walk of a few milliseconds must not
 * pay. False when out of memory while pruning. */
bool sw_pipeline_prune_cache(struct sw_sym_cache *cache, struct sw_symbol_server *servers,
                             uint64_t max_bytes, time_t started);

/* A symbol path that is not there is no error (the walk goes on without
 * it) but most likely a typo, which both callers warn of as "PATH: symbol
 * path ignored: REASON": the reason (strerror's), or NULL when path is
 * there. */
const char *sw_pipeline_symbol_path_missing(const char *path);

#endif
