/* Breakpad text symbol files (.sym, .sym.gz): parsed into sorted indexes of
 * offsets into the text, and served through struct sw_symbols_ops.
 *
 * Record types: MODULE, INFO, FILE, INLINE_ORIGIN (both layouts), FUNC [m],
 * line records, INLINE (both layouts), PUBLIC [m], STACK WIN, STACK CFI INIT
 * and STACK CFI. Line records, INLINE records and CFI rules are only parsed
 * when a lookup or unwind needs them. */
#ifndef SW_BREAKPAD_SYM_H
#define SW_BREAKPAD_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/symbols.h"
#include "lib/sw_err.h"

struct sw_bsym;

/* The MODULE line: each field points into the text (not NUL-terminated). */
struct sw_bsym_module {
	const char *os, *arch, *id, *name;
	size_t os_len, arch_len, id_len, name_len;
};

/* Loads and indexes a file: gzip data (by its magic) is inflated once,
 * plain text is mapped. Returns NULL only when nothing could be read (the
 * file is missing or unreadable, not gzip, or memory ran out) and sets *err.
 * A file with bad records still loads: what parsed is usable,
 * sw_bsym_is_corrupt() is true and *err says SW_ERR_CORRUPT. */
struct sw_bsym *sw_bsym_load_file(const char *path, struct sw_err *err);

/* Indexes text[0..len), which must outlive the result (fuzzing, tests).
 * `name` is used in messages. Returns NULL only when out of memory. */
struct sw_bsym *sw_bsym_parse(const char *text, size_t len, const char *name,
                              struct sw_err *err);

/* sw_bsym_load_file through the symbol index cache (symbols/sym_index.h,
 * docs/symbol-cache.md), cache NULL: none. The index of path for module
 * (debug_file, debug_id) is mapped when it is there and intact; else the
 * file is parsed and (when it has no bad records) its index written. The
 * result answers alike either way. *warn: one line about the cache (an
 * index rejected and rebuilt, a cache that cannot be written), code SW_OK
 * when there is nothing to say. */
struct sw_sym_cache;
struct sw_bsym *sw_bsym_load_cached(const char *path, struct sw_sym_cache *cache,
                                    const char *debug_file, const char *debug_id,
                                    struct sw_err *err, struct sw_err *warn);

/* An indexed file whose index failed a check during the walk answers from
 * its source parsed again: this says so (one line naming the index), or
 * NULL. */
const char *sw_bsym_warning(const struct sw_bsym *b);
/* Loaded from an index (not parsed)? */
bool sw_bsym_is_indexed(const struct sw_bsym *b);

void sw_bsym_free(struct sw_bsym *b);

/* Bad records seen (Breakpad: "is_corrupt" when any). */
bool sw_bsym_is_corrupt(const struct sw_bsym *b);
uint32_t sw_bsym_error_count(const struct sw_bsym *b);
/* False when the file has no MODULE line. */
bool sw_bsym_module(const struct sw_bsym *b, struct sw_bsym_module *out);

/* The provider: lookup, unwind (STACK WIN on x86, STACK CFI) and
 * has_function. self is the struct sw_bsym. */
extern const struct sw_symbols_ops sw_bsym_ops;

/* x86 STACK WIN: the parameter size Breakpad's walker knows for a frame at
 * offset: from its STACK WIN record (FRAME_DATA, then FPO), else from the
 * FUNC covering it. False if neither. */
bool sw_bsym_frame_param_size(const struct sw_bsym *b, uint64_t offset,
                              uint32_t *out);

#endif
