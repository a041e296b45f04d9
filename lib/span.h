/* The one bounds-checked reader every file access goes through (minidumps,
 * microdumps, ELF, DWARF CFI, offline captures). A span
 * is a checked window of the mapped file; reading outside it yields 0 and
 * never touches memory beyond it. Callers check a record's size once
 * (sw_span_sub) and then read its fields by offset. A span carries the
 * byte order of its file, and every window cut from it keeps it, so that
 * the integers of a byte-swapped minidump read the same as a little-endian
 * one's. */
#ifndef SW_SPAN_H
#define SW_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sw_span {
	const uint8_t *data;
	uint64_t size;
	uint64_t off;  /* where data starts in the file, for messages */
	/* Integers are big-endian: a minidump written by a big-endian host
	 * stores every integer field in its own order, and its signature then
	 * reads "PMDM" (Breakpad's Minidump::Read sets swap_ and swaps each
	 * struct's integer fields). Byte arrays are never swapped. */
	bool big_endian;
};

/* True when [off, off + len) lies inside s; overflow-safe. */
static inline bool sw_span_has(struct sw_span s, uint64_t off, uint64_t len)
{
	return off <= s.size && len <= s.size - off;
}

/* The sub-window [off, off + len) of s, or false when it does not fit;
 * *out is then an empty window at s's start, so that a caller that reads
 * it anyway reads zeros, never stale or unset memory. The result must be
 * checked: a record that does not fit is the caller's to report or skip. */
__attribute__((warn_unused_result))
static inline bool sw_span_sub(struct sw_span s, uint64_t off, uint64_t len,
                               struct sw_span *out)
{
	if (!sw_span_has(s, off, len)) {
		*out = (struct sw_span){ s.data, 0, s.off, s.big_endian };
		return false;
	}
	out->data = s.data + off;
	out->size = len;
	out->off = s.off + off;
	out->big_endian = s.big_endian;
	return true;
}

/* The part of [off, off + len) that lies inside s (possibly empty). */
static inline struct sw_span sw_span_clip(struct sw_span s, uint64_t off, uint64_t len)
{
	struct sw_span out = { s.data, 0, s.off, s.big_endian };
	if (off > s.size)
		off = s.size;
	if (len > s.size - off)
		len = s.size - off;
	out.data = s.data + off;
	out.size = len;
	out.off = s.off + off;
	return out;
}

/* Unsigned integer of n (1..8) bytes at off, in s's byte order; 0 when any
 * byte lies outside s. */
static inline uint64_t sw_uint(struct sw_span s, uint64_t off, unsigned n)
{
	if (n == 0 || n > 8 || !sw_span_has(s, off, n))
		return 0;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)s.data[off + i] << (8 * (s.big_endian ? n - 1 - i : i));
	return v;
}

static inline uint8_t sw_u8(struct sw_span s, uint64_t off)
{
	return (uint8_t)sw_uint(s, off, 1);
}

static inline uint16_t sw_u16(struct sw_span s, uint64_t off)
{
	return (uint16_t)sw_uint(s, off, 2);
}

static inline uint32_t sw_u32(struct sw_span s, uint64_t off)
{
	return (uint32_t)sw_uint(s, off, 4);
}

static inline uint64_t sw_u64(struct sw_span s, uint64_t off)
{
	return sw_uint(s, off, 8);
}

/* Pointer to byte off of s, or NULL when off is outside s. Only for
 * handing a checked stretch to the snapshot (memory regions, text). */
static inline const uint8_t *sw_span_ptr(struct sw_span s, uint64_t off)
{
	return off < s.size ? s.data + off : NULL;
}

#endif
