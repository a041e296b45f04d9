/* The strings one unit's lookups answer with (function names, qualified
 * names, source file paths), kept in one growing buffer and named by
 * their 32-bit offsets in it: a unit's arrays hold offsets, not pointers
 * that a realloc would move. Used by the DWARF line reader's files
 * (dwarf_lines_internal.h). Not for other directories. */
#ifndef SW_DWARF_POOL_H
#define SW_DWARF_POOL_H

#include <stddef.h>
#include <stdint.h>

/* A string in a unit's pool: offset; 0 is the empty string. */
struct dw_pool {
	char *buf;
	size_t len, cap;
};

/* Appends s[0..n) and a NUL to the pool; returns its offset, 0 when out of
 * memory (the empty string). */
uint32_t dw_pool_add(struct dw_pool *p, const char *s, size_t n);
/* scope "::" name, scope being a pool offset (0: none, then name alone). */
uint32_t dw_pool_join(struct dw_pool *p, uint32_t scope, const char *name);

#endif
