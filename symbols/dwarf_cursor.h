/* A read position in a span with DWARF's variable-length integers: shared
 * by the CFI parser (dwarf_cfi*.c, dwarf_expr.c) and the debugging
 * information reader (dwarf_info.c, dwarf_line_program.c). */
#ifndef SW_SYMBOLS_DWARF_CURSOR_H
#define SW_SYMBOLS_DWARF_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/span.h"

/* ---- Reading: a position in a span; any read past its end sets `bad`
 * and yields 0, so a parser reads a whole record and checks once. */

struct sw_dcur {
	struct sw_span s;
	uint64_t pos;
	bool bad;
};

static inline uint64_t sw_dcur_uint(struct sw_dcur *c, unsigned n)
{
	if (!sw_span_has(c->s, c->pos, n)) {
		c->bad = true;
		c->pos = c->s.size;
		return 0;
	}
	uint64_t v = sw_uint(c->s, c->pos, n);
	c->pos += n;
	return v;
}

static inline uint8_t sw_dcur_u8(struct sw_dcur *c)
{
	return (uint8_t)sw_dcur_uint(c, 1);
}

/* Sign-extends the low `bytes` bytes of v. */
static inline int64_t sw_sext(uint64_t v, unsigned bytes)
{
	if (bytes >= 8)
		return (int64_t)v;
	unsigned shift = 64 - 8 * bytes;
	return (int64_t)(v << shift) >> shift;
}

/* DWARF 5 §7.6: unsigned and signed LEB128. Bits past 64 are dropped. */
static inline uint64_t sw_dcur_uleb(struct sw_dcur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (c->pos >= c->s.size) {
			c->bad = true;
			return 0;
		}
		uint8_t b = c->s.data[c->pos++];
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
}

static inline int64_t sw_dcur_sleb(struct sw_dcur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (c->pos >= c->s.size) {
			c->bad = true;
			return 0;
		}
		uint8_t b = c->s.data[c->pos++];
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
}

/* Skips n bytes (false and `bad` when they are not there). */
static inline bool sw_dcur_skip(struct sw_dcur *c, uint64_t n)
{
	if (!sw_span_has(c->s, c->pos, n)) {
		c->bad = true;
		c->pos = c->s.size;
		return false;
	}
	c->pos += n;
	return true;
}

#endif
