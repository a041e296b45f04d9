/* The symbol store: finds, loads (once, on first use) and caches each
 * module's Breakpad symbols, and serves them to the walker as a
 * struct sw_symbol_source.
 *
 * Where a module's file is looked for, in the order of the paths given:
 *   - a directory: Breakpad's simple symbol supplier layout,
 *       <dir>/<debug_file>/<debug_id>/<debug_file minus .pdb>.sym
 *     then the same name + ".gz";
 *   - a single .sym or .sym.gz file: used for the module whose debug id
 *     its MODULE line has (and name, for an id of zeros).
 * A file found in a store is used only if its own MODULE line has the
 * module's debug id (else it is refused with a warning, and the search
 * goes on).
 * debug_file is the base name of the module's debug file, else of its code
 * file. A module without a debug id has no symbols. */
#ifndef SW_SYM_STORE_H
#define SW_SYM_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"
#include "lib/symbols.h"

struct sw_sym_store;

/* NULL only when out of memory. Paths that do not exist are skipped
 * (the CLI warns about them before); a path that exists but is neither a
 * directory nor a .sym/.sym.gz file is skipped with a warning. */
struct sw_sym_store *sw_sym_store_create(const char *const *paths, size_t npaths,
                                         const struct sw_snapshot *snap,
                                         struct sw_err *err);
void sw_sym_store_free(struct sw_sym_store *s);

/* Also look for a module's ELF file at its own path on this machine (the
 * same build installed here; a file of another build is refused by its
 * build-id, with a warning). Without a call: on, quietly, for an ELF
 * core (most are walked where they were written, as gdb reads them),
 * off for other snapshots (a minidump's paths are another machine's). */
void sw_sym_store_set_local_modules(struct sw_sym_store *s, bool on);
/* How messages name asking for that (a front end's words, the CLI's flag;
 * a string that outlives the store); not set: the library's. */
void sw_sym_store_set_local_modules_name(struct sw_sym_store *s, const char *name);

/* The debug directories searched for an ELF module's debug file by its
 * build-id (DIR/.build-id/xx/rest.debug) and its binary's debuglink
 * (DIR/BINARY_FOLDER/NAME), as gdb's debug-file-directory: by default
 * SW_DEFAULT_DEBUG_DIR; these replace it (none: n = 0). False: out of
 * memory (the list is unchanged). */
#define SW_DEFAULT_DEBUG_DIR "/usr/lib/debug"
bool sw_sym_store_set_debug_dirs(struct sw_sym_store *s, const char *const *dirs, size_t n);

/* Load Breakpad symbol files through a symbol index cache (symbols/sym_index.h,
 * docs/symbol-cache.md); NULL (the default): parse every file. The cache
 * is not owned and must outlive the store; several stores (threads) may
 * share one. */
struct sw_sym_cache;
void sw_sym_store_set_cache(struct sw_sym_store *s, struct sw_sym_cache *cache);

/* Fetch the files of a module that holds a frame and that no symbol path
 * served from symbol servers and debuginfod (symbols/symbol_server.h,
 * docs/symbol-servers.md), when the walk first asks for its symbols; they
 * are then read as local files. NULL (the default): local paths only. The
 * servers are not owned and must outlive the store. */
struct sw_symbol_server;
void sw_sym_store_set_symbol_server(struct sw_sym_store *s, struct sw_symbol_server *srv);

/* Makes the store (its for_module and the providers it returns) safe to
 * call from several threads at once, so that the walker may walk threads
 * in parallel (sw_walk_options.threads): each module's symbols are found
 * once, under the store's lock; providers other than Breakpad text
 * symbols (whose lookups are read-only) get a lock each. Call before the
 * walk. */
void sw_sym_store_set_concurrent(struct sw_sym_store *s);

/* The walker's view; valid until sw_sym_store_free. */
const struct sw_symbol_source *sw_sym_store_source(struct sw_sym_store *s);

/* The file module i's symbols were loaded from (NULL: none), and the first
 * load problem seen for it (code SW_OK if none). */
const char *sw_sym_store_file(const struct sw_sym_store *s, uint32_t module);
const struct sw_err *sw_sym_store_error(const struct sw_sym_store *s, uint32_t module);

/* Warnings, one line each naming the file, each given once, in the order
 * met: symbol paths skipped at creation; symbol files refused while the
 * walk loads them (a MODULE line whose debug id is not the module's, a
 * .sym.gz that inflates past its limit, a file that cannot be read).
 * Print them after the walk. */
uint32_t sw_sym_store_nwarnings(const struct sw_sym_store *s);
const char *sw_sym_store_warning(const struct sw_sym_store *s, uint32_t i);

#endif
