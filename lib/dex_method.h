/* The Java method at an offset of a DEX file (Android's Dalvik
 * executable), for the Java frame an ART interpreter frame was running
 * (lib/walker.c): the method whose code holds the DEX pc, named as
 * libunwindstack prints it ("java.lang.Thread.run").
 *
 * Format: the Dalvik Executable format of the Android source
 * (source.android.com/docs/core/runtime/dex-format): header_item,
 * string_ids, type_ids, method_ids, class_defs, class_data_item with its
 * encoded_method lists, code_item. Standard DEX only (versions 035 to
 * 041); ART's compact DEX ("cdex") is not read. */
#ifndef SW_DEX_METHOD_H
#define SW_DEX_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* Reads n bytes at the DEX file's offset off; false when they are not
 * there (not captured, past the mapping). */
typedef bool (*sw_dex_read_fn)(void *ctx, uint64_t off, void *out, size_t n);

struct sw_dex_method {
	const char *name;        /* "pkg.Class.method", in the arena */
	uint64_t code_offset;    /* the file offset of its first instruction */
};

/* The method whose instructions hold the file offset `offset`. False when
 * the bytes are no standard DEX file, a count does not fit the file, a
 * byte needed is missing, or no method's code holds the offset. Every
 * count is checked against the file's size before it is walked. */
bool sw_dex_method_at(sw_dex_read_fn read, void *ctx, uint64_t offset, struct sw_arena *a,
                      struct sw_dex_method *out);

#endif
