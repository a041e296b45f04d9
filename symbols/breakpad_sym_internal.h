/* Shared by breakpad_sym.c (parse, index, lookup), breakpad_cfi.c (STACK
 * CFI) and breakpad_win.c (STACK WIN). Not for other directories. */
#ifndef SW_BREAKPAD_SYM_INTERNAL_H
#define SW_BREAKPAD_SYM_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "breakpad_sym.h"
#include "sym_index.h"

/* Every record names the stretch of text a lookup reads for it, and, in
 * an index, carries that stretch's CRC-32 (crc; 0 while only parsed): a
 * lookup reads exactly those bytes and checks exactly them. */

/* A FUNC record: [addr, addr+size); the record's line starts at text+off,
 * its line and INLINE records lie in [off, end). */
struct bsym_func {
	uint64_t addr, size, off, end;
	uint32_t crc, reserved;
};

/* A PUBLIC record: its line is text[off, off+len) (CR and newline not
 * included). */
struct bsym_public {
	uint64_t addr, off;
	uint32_t len, crc;
};

/* A STACK CFI INIT or STACK WIN record: [addr, addr+size) at text+off;
 * aux is the STACK WIN frame type. text[off, off+len) is the WIN line, or
 * the CFI INIT line and the delta lines after it (up to the first line
 * that is not a delta: what bsym_cfi_unwind reads). */
struct bsym_range {
	uint64_t addr, off;
	uint32_t size, aux;
	uint32_t len, crc;
};

/* FILE / INLINE_ORIGIN: id → name (text+off, len). */
struct bsym_named {
	uint64_t off;
	uint32_t id, len;
	uint32_t crc, reserved;
};

struct bsym_fallback;
struct bsym_writer;

enum { BSYM_FENCE = 16 };

/* Parsed from the text (text set), or loaded from an index (idx set,
 * text NULL): then the arrays point into the index's mapping, every record
 * a search reads is checked first (bsym_rec_ok), and the text is read
 * through bsym_span_*. When a check fails the provider answers from the
 * source parsed again (fb). */
struct sw_bsym {
	const char *text;
	size_t len;
	struct sym_index *idx;
	char *module_line;          /* an indexed file's MODULE line (heap) */
	struct bsym_fallback *fb;   /* indexed: how to fall back, and the result */
	struct bsym_writer *writer; /* parsed: its index being written, joined at free */
	void *heap;                 /* inflated text, free()d */
	void *map;                  /* mapped text, munmap()ed */
	size_t map_len;

	struct sw_bsym_module module;
	bool has_module;
	uint32_t errors;
	bool unindexable;           /* a record's text is too long for its len field */

	struct bsym_func *funcs;    size_t nfuncs;
	struct bsym_public *pubs;   size_t npubs;
	struct bsym_range *cfi;     size_t ncfi;
	struct bsym_range *win;     size_t nwin;   /* both frame types */
	uint32_t win_max_size;
	struct bsym_named *files;   size_t nfiles;
	struct bsym_named *origins; size_t norigins;
	/* Indexed: the address of every BSYM_FENCE-th FUNC, PUBLIC and CFI
	 * record (NULL when parsed), searched before the records: a few KiB
	 * that stay in cache, so a search touches one stretch of its array
	 * instead of a cache line per halving. */
	const uint64_t *func_fence, *pub_fence, *cfi_fence;
	char *_Atomic *file_names;  /* indexed: names read so far (copy_named) */
	char *_Atomic *origin_names;
};

/* Line scanning. */
static inline const char *bsym_line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

static inline const char *bsym_trim_cr(const char *p, const char *e)
{
	while (e > p && e[-1] == '\r')
		e--;
	return e;
}

static inline const char *bsym_skip_spaces(const char *p, const char *e)
{
	while (p < e && *p == ' ')
		p++;
	return p;
}

/* Is the record at p (n bytes) intact? Always for parsed text. */
static inline bool bsym_rec_ok(const struct sw_bsym *b, const void *p, size_t n)
{
	return !b->idx || sym_index_check(b->idx, p, n);
}

/* The bytes text[off, off + n) of one record: in place when the text is in
 * memory, else copied from the index and checked against the record's crc
 * (heap then holds them). */
struct bsym_span {
	const char *p;
	size_t n;
	char *heap;
	char small[512];            /* most records fit: no malloc */
};

/* False when the range is outside the text, damaged, or memory ran out. */
bool bsym_span_get(const struct sw_bsym *b, uint64_t off, uint64_t n, uint32_t crc,
                   struct bsym_span *s);
void bsym_span_free(struct bsym_span *s);

/* Numbers, inline: the indexing pass reads a million line records of
 * four numbers each. */
extern const uint8_t bsym_hex_digit1[256];

/* Hex number followed by a space or the end of the line; *pp then after
 * the spaces that follow it. */
static inline bool bsym_hex(const char **pp, const char *e, uint64_t *out)
{
	const char *p = *pp, *start = p;
	uint64_t v = 0;
	unsigned d;
	while (p < e && (d = bsym_hex_digit1[(unsigned char)*p]) != 0) {
		if (v >> 60)
			return false; /* overflow */
		v = v << 4 | (d - 1);
		p++;
	}
	if (p == start || (p < e && *p != ' '))
		return false;
	*out = v;
	*pp = bsym_skip_spaces(p, e);
	return true;
}

/* Decimal (optionally negative) followed by a space or the end. */
static inline bool bsym_dec(const char **pp, const char *e, int64_t *out)
{
	const char *p = *pp;
	bool neg = p < e && *p == '-';
	if (neg)
		p++;
	const char *start = p;
	int64_t v = 0;
	while (p < e && *p >= '0' && *p <= '9') {
		if (v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*p - '0');
		p++;
	}
	if (p == start || (p < e && *p != ' '))
		return false;
	*out = neg ? -v : v;
	*pp = bsym_skip_spaces(p, e);
	return true;
}

/* Index searches: the last element with addr <= x, or -1. */
ptrdiff_t bsym_find_func(const struct sw_bsym *b, uint64_t x);
ptrdiff_t bsym_find_cfi(const struct sw_bsym *b, uint64_t x);

/* The STACK WIN record covering offset (FRAME_DATA preferred over FPO, the
 * innermost one of each), or NULL. */
const struct bsym_range *bsym_find_win(const struct sw_bsym *b, uint64_t offset);

enum sw_unwind_status bsym_cfi_unwind(const struct sw_bsym *b, uint64_t offset,
                                      const struct sw_unwind_env *env,
                                      struct sw_regs *caller, enum sw_trust *trust);
enum sw_unwind_status bsym_win_unwind(const struct sw_bsym *b,
                                      const struct bsym_range *rec,
                                      const struct sw_unwind_env *env,
                                      struct sw_regs *caller, enum sw_trust *trust);

#endif
