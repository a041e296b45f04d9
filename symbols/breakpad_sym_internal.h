/* Shared by the Breakpad .sym provider's files: breakpad_sym_parse.c (the
 * text parse), breakpad_sym_index.c (the on-disk index, read and written),
 * breakpad_sym.c (lookup and the provider), breakpad_cfi.c (STACK CFI) and
 * breakpad_win.c (STACK WIN). Not for other directories. */
#ifndef SW_BREAKPAD_SYM_INTERNAL_H
#define SW_BREAKPAD_SYM_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "breakpad_sym.h"
#include "lib/hex.h"
#include "sym_index.h"

/* Every record names the stretch of text a lookup reads for it, and, in
 * an index, carries that stretch's CRC-32 (crc; 0 while only parsed): a
 * lookup reads exactly those bytes and checks exactly them.
 *
 * In an index, a FUNC or STACK CFI INIT record whose text has the common
 * shape is marked BSYM_DECODED: its off/end (len) and crc then name a
 * stretch of the index's decoded section instead, the record's lines
 * decoded into binary (bsym_blob_*: LEB128 numbers), which a lookup reads
 * and uses without parsing text. */
enum { BSYM_DECODED = 1 };

/* A FUNC record: [addr, addr+size); the record's line starts at text+off,
 * its line and INLINE records lie in [off, end). flags: BSYM_DECODED. */
struct bsym_func {
	uint64_t addr, size, off, end;
	uint32_t crc, flags;
};

/* A PUBLIC record: its line is text[off, off+len) (CR and newline not
 * included). */
struct bsym_public {
	uint64_t addr, off;
	uint32_t len, crc;
};

/* A STACK CFI INIT or STACK WIN record: [addr, addr+size) at text+off;
 * aux is the STACK WIN frame type, or a CFI record's flags (BSYM_DECODED).
 * text[off, off+len) is the WIN line, or the CFI INIT line and the delta
 * lines after it (up to the first line that is not a delta: what
 * bsym_cfi_unwind reads). */
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
	/* Indexed: every BSYM_FENCE-th entry of each fence (heap; NULL when
	 * the fence is short), searched first: a few hundred bytes that stay
	 * in cache, so a search reads two lines of its fence, not one per
	 * halving. The fences are checked whole when the index is opened. */
	uint64_t *func_top, *pub_top, *cfi_top;
	char *_Atomic *file_names;  /* indexed: names read so far (copy_named) */
	char *_Atomic *origin_names;
	/* Indexed: the register names decoded CFI rules refer to by number,
	 * and their register numbers for the arch that asked first (cfi_arch;
	 * another arch resolves them each time). */
	struct bsym_cfi_name *cfi_names;
	size_t ncfi_names;
	const struct sw_arch *_Atomic cfi_arch;
	_Atomic int16_t *cfi_regs;  /* BSYM_REG_UNRESOLVED until resolved */
};

/* A register name of decoded CFI rules (".cfa" and ".ra" included). */
enum { BSYM_CFI_NAME_MAX = 15, BSYM_CFI_NAMES_MAX = 250, BSYM_REG_UNRESOLVED = INT16_MIN };
struct bsym_cfi_name {
	uint8_t len;
	char s[BSYM_CFI_NAME_MAX];
};

/* ---- decoded records: bytes written by the indexer, read by lookups ---- */

/* A growing byte string (the decoded section while it is written), in
 * pages of its own (mmap, mremap): its megabytes go back to the system
 * when it is freed (bsym_bytes_free), which a malloc'ed block of that size
 * may not, and a cold walk's peak RSS counts them. */
struct bsym_bytes {
	uint8_t *p;
	size_t n, cap;
	bool oom;
};

static inline void bsym_bytes_free(struct bsym_bytes *o)
{
	if (o->cap)
		munmap(o->p, o->cap);
	*o = (struct bsym_bytes){0};
}

/* Room for n more bytes; false (and o->oom) when memory ran out. */
static inline bool bsym_bytes_room(struct bsym_bytes *o, size_t n)
{
	if (o->oom)
		return false;
	if (o->cap - o->n >= n)
		return true;
	size_t cap = o->cap ? o->cap : 1 << 16;
	while (cap - o->n < n)
		cap *= 2;
	void *q = o->cap ? mremap(o->p, o->cap, cap, MREMAP_MAYMOVE)
	                 : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED) {
		o->oom = true;
		return false;
	}
	o->p = q;
	o->cap = cap;
	return true;
}

static inline void bsym_bytes_put(struct bsym_bytes *o, const void *p, size_t n)
{
	/* n == 0: o->p (and p) may be NULL, which memcpy may not be given. */
	if (n == 0 || !bsym_bytes_room(o, n))
		return;
	memcpy(o->p + o->n, p, n);
	o->n += n;
}

/* LEB128: unsigned, and signed by zigzag (the two's complement difference
 * of two addresses, so that any pair round-trips). */
static inline void bsym_put_uleb(struct bsym_bytes *o, uint64_t v)
{
	if (!bsym_bytes_room(o, 10))
		return;
	uint8_t *b = o->p + o->n;
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	o->n += n;
}

static inline void bsym_put_sleb(struct bsym_bytes *o, int64_t v)
{
	bsym_put_uleb(o, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline bool bsym_get_uleb(const uint8_t **pp, const uint8_t *e, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (unsigned shift = 0; p < e && shift < 64; shift += 7) {
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			*pp = p;
			return true;
		}
	}
	return false;
}

static inline bool bsym_get_sleb(const uint8_t **pp, const uint8_t *e, int64_t *out)
{
	uint64_t u;
	if (!bsym_get_uleb(pp, e, &u))
		return false;
	*out = (int64_t)((u >> 1) ^ (0 - (u & 1)));
	return true;
}

/* The distinct register names of a file's decoded CFI rules, while they
 * are written: a rule refers to its names by number. */
struct bsym_cfi_names {
	struct bsym_cfi_name v[BSYM_CFI_NAMES_MAX];
	size_t n;
	uint8_t slot[256];          /* a name's hash -> its entry + 1 (0: look through v) */
	struct bsym_cfi_groups *groups; /* rule sets encoded before, by their text */
};

/* Frees what encoding left in names (not names itself). */
void bsym_cfi_names_free(struct bsym_cfi_names *names);

/* Decodes CFI record r of b (parsed text) into o, its names into names:
 * false (o unchanged) when its text is not of the shapes decoded rules
 * hold (then the unwinder reads the text). */
bool bsym_cfi_encode(const struct sw_bsym *b, const struct bsym_range *r,
                     struct bsym_cfi_names *names, struct bsym_bytes *o);


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

/* sw_bsym_parse, with the two-thread parse of a large file allowed or not
 * (tests compare the two). */
struct sw_bsym *bsym_parse_with(const char *text, size_t len, const char *name,
                                struct sw_err *err, bool allow_split);

/* False when the range is outside the text, damaged, or memory ran out. */
bool bsym_span_get(const struct sw_bsym *b, uint64_t off, uint64_t n, uint32_t crc,
                   struct bsym_span *s);
void bsym_span_free(struct bsym_span *s);
/* The bytes [off, off + n) of an index's decoded section, checked by crc,
 * as bsym_span_get reads text. */
bool bsym_blob_get(const struct sw_bsym *b, uint64_t off, uint64_t n, uint32_t crc,
                   struct bsym_span *s);

/* Numbers, inline: the indexing pass reads a million line records of
 * four numbers each. */

/* Hex number followed by a space or the end of the line; *pp then after
 * the spaces that follow it. */
static inline bool bsym_hex(const char **pp, const char *e, uint64_t *out)
{
	const char *p = *pp, *start = p;
	uint64_t v = 0;
	unsigned d;
	while (p < e && (d = sw_hex_digit1[(unsigned char)*p]) != 0) {
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

/* ---- record fields (parse_*: by the indexing pass, the index's decoder
 * and lookups) ---- */

static inline bool bsym_starts(const char *p, const char *e, const char *lit, size_t n)
{
	return (size_t)(e - p) >= n && memcmp(p, lit, n) == 0;
}

struct bsym_func_fields {
	bool multiple;
	uint64_t addr, size, param;
	const char *name;
	size_t name_len;
};

/* FUNC [m] <addr> <size> <param_size> <name>; p after "FUNC ". PUBLIC is
 * the same without <size> (with_size false). */
static inline bool bsym_parse_func_fields(const char *p, const char *e, bool with_size,
                                          struct bsym_func_fields *f)
{
	p = bsym_skip_spaces(p, e);
	f->multiple = false;
	if (e - p >= 2 && p[0] == 'm' && p[1] == ' ') {
		f->multiple = true;
		p = bsym_skip_spaces(p + 1, e);
	}
	f->size = 0;
	if (!bsym_hex(&p, e, &f->addr))
		return false;
	if (with_size && !bsym_hex(&p, e, &f->size))
		return false;
	if (!bsym_hex(&p, e, &f->param) || f->param > INT32_MAX)
		return false;
	if (p >= e)
		return false; /* Breakpad requires a name */
	f->name = p;
	f->name_len = (size_t)(e - p);
	return true;
}

struct bsym_line_fields {
	uint64_t addr, size;
	int64_t line, file;
};

/* <addr> <size> <line> <file_id> */
static inline bool bsym_parse_line_fields(const char *p, const char *e,
                                          struct bsym_line_fields *l)
{
	if (!bsym_hex(&p, e, &l->addr) || !bsym_hex(&p, e, &l->size) ||
	    !bsym_dec(&p, e, &l->line) || l->line < 0 || l->line > INT32_MAX)
		return false;
	/* The file id is followed by the end of the line (Breakpad ignores
	 * anything after it). */
	const char *q = p;
	while (q < e && *q != ' ')
		q++;
	if (!bsym_dec(&p, q, &l->file) || l->file < 0 || l->file > INT32_MAX)
		return false;
	return true;
}

/* ---- loading (breakpad_sym_parse.c) ---- */

/* The descriptor a source was read from, kept open until its index is
 * written, and its identity (fstat) from before it was read: the index's
 * key is what was read, and a source that changed while it was read is
 * not indexed (breakpad_sym_index.c). */
struct bsym_source {
	int fd;
	struct stat st;
};

/* Maps (and inflates) path and parses it; with id, the descriptor stays
 * open in id->fd (else it is closed). */
struct sw_bsym *bsym_load_source(const char *path, struct bsym_source *id, struct sw_err *err);

/* ---- the index (breakpad_sym_index.c) ---- */

/* The number of fence entries of an array of n records. */
static inline size_t bsym_nfences(size_t n)
{
	return (n + BSYM_FENCE - 1) / BSYM_FENCE;
}

/* b, or once b's index failed a check, its source parsed again (and the
 * index rewritten from it): NULL when the source cannot be loaded. */
const struct sw_bsym *bsym_current(const struct sw_bsym *b);
/* Waits for b's index to be written (if it is being written). */
void bsym_writer_join(struct sw_bsym *b);
/* Frees an indexed file's fallback (NULL: nothing). */
void bsym_fallback_free(struct bsym_fallback *fb);

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
