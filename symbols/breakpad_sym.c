/* Breakpad .sym, lookup and the provider: binary searches over the sorted
 * records (parsed: breakpad_sym_parse.c; or mapped from an index:
 * breakpad_sym_index.c), and the few lines a question needs, parsed then.
 * Breakpad's BasicSourceLineResolver's semantics: a PUBLIC symbol covers
 * an address unless a FUNC starts between them; STACK WIN records nest.
 * STACK CFI is unwound by breakpad_cfi.c, STACK WIN by breakpad_win.c. */
#include "breakpad_sym_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/arch.h"
#include "lib/bsearch.h"
#include "lib/hex.h"

/* ---- the file's life and what it says of itself ------------------------ */

void sw_bsym_free(struct sw_bsym *b)
{
	if (!b)
		return;
	bsym_writer_join(b);
	if (b->idx) {
		sym_index_close(b->idx); /* the arrays were in its mapping */
	} else {
		free(b->funcs);
		free(b->pubs);
		free(b->cfi);
		free(b->win);
		free(b->files);
		free(b->origins);
	}
	for (size_t i = 0; b->file_names && i < b->nfiles; i++)
		free(atomic_load(&b->file_names[i]));
	for (size_t i = 0; b->origin_names && i < b->norigins; i++)
		free(atomic_load(&b->origin_names[i]));
	free((void *)b->file_names);
	free((void *)b->origin_names);
	bsym_fallback_free(b->fb);
	free(b->cfi_names);
	free((void *)b->cfi_regs);
	free(b->func_top);
	free(b->pub_top);
	free(b->cfi_top);
	free(b->module_line);
	free(b->heap);
	if (b->map)
		munmap(b->map, b->map_len);
	free(b);
}

bool sw_bsym_is_corrupt(const struct sw_bsym *b)
{
	return b->errors > 0;
}

uint32_t sw_bsym_error_count(const struct sw_bsym *b)
{
	return b->errors;
}

bool sw_bsym_module(const struct sw_bsym *b, struct sw_bsym_module *out)
{
	if (!b->has_module)
		return false;
	*out = b->module;
	return true;
}

/* ---- text spans --------------------------------------------------------- */

bool bsym_span_get(const struct sw_bsym *b, uint64_t off, uint64_t n, uint32_t crc,
                   struct bsym_span *s)
{
	s->heap = NULL;
	/* A record pointing outside the text: a damaged index (its blocks
	 * passed their CRCs, so a forged or miswritten one); the question
	 * goes to the source, as for any failed check. */
	if (off > b->len || n > b->len - off)
		return b->idx ? sym_index_fail(b->idx) : false;
	s->n = (size_t)n;
	if (b->text) {
		s->p = b->text + off;
		return true;
	}
	char *buf = s->small;
	if (n > sizeof s->small && !(buf = s->heap = malloc((size_t)n)))
		return false;
	if (!sym_index_read_text(b->idx, off, (size_t)n, crc, buf)) {
		bsym_span_free(s);
		return false;
	}
	s->p = buf;
	return true;
}

bool bsym_blob_get(const struct sw_bsym *b, uint64_t off, uint64_t n, uint32_t crc,
                   struct bsym_span *s)
{
	s->heap = NULL;
	/* Bounded by the section before it sizes a buffer, as bsym_span_get
	 * bounds by the text (a record claiming 4 GiB was allocated first:
	 * fuzz_sym_index). */
	if (!b->idx)
		return false;
	uint64_t size;
	(void)sym_index_section(b->idx, SYM_SEC_DECODED, &size);
	if (off > size || n > size - off)
		return sym_index_fail(b->idx);
	s->n = (size_t)n;
	char *buf = s->small;
	if (n > sizeof s->small && !(buf = s->heap = malloc((size_t)n)))
		return false;
	if (!sym_index_read_decoded(b->idx, off, (size_t)n, crc, buf)) {
		bsym_span_free(s);
		return false;
	}
	s->p = buf;
	return true;
}

void bsym_span_free(struct bsym_span *s)
{
	free(s->heap);
	s->heap = NULL;
}

/* ---- searches ----------------------------------------------------------- */

/* A binary search's view of one array: every record it reads is checked
 * first (an indexed file's block CRC), so a damaged block is noticed by
 * the search that meets it. The key is the record's first field (an
 * address), or the uint32 id of FILE / INLINE_ORIGIN records. A record
 * that fails reads as key 0; the caller sees the index failed and answers
 * again from the parsed source. */
struct probe {
	const struct sw_bsym *b;
	const char *base;
	size_t elem;
};

static uint64_t probe_addr(const void *set, size_t i)
{
	const struct probe *p = set;
	const char *rec = p->base + i * p->elem;
	uint64_t k;
	if (!bsym_rec_ok(p->b, rec, p->elem))
		return 0;
	memcpy(&k, rec, sizeof k);
	return k;
}

static uint64_t probe_named_id(const void *set, size_t i)
{
	const struct probe *p = set;
	const struct bsym_named *rec = (const struct bsym_named *)p->base + i;
	return bsym_rec_ok(p->b, rec, sizeof *rec) ? rec->id : 0;
}

static size_t upper_bound(const struct sw_bsym *b, const void *a, size_t n, size_t elem,
                          uint64_t x)
{
	struct probe p = {b, a, elem};
	return sw_upper_bound(&p, n, probe_addr, x);
}

/* The number of the n keys at stride elem from a (the first field of each
 * record, or the fence's words) that are <= x. The caller has checked the
 * bytes: a plain loop, no call per probe. */
static size_t upper_bound_checked(const char *a, size_t n, size_t elem, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, a + mid * elem, sizeof k);
		if (k <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* upper_bound through a fence (the key of every BSYM_FENCE-th record):
 * with fence[k-1] <= x < fence[k], every record before k-1's stretch has
 * a key <= x and every record from k's on a key > x, so the answer lies
 * in stretch k-1. The fence (a few KiB) and then the one stretch are each
 * checked once, whole, before they are searched; a check that fails
 * answers 0 (nothing found) with the index marked failed, and the
 * question is asked again of the parsed source. */
static size_t upper_bound_fenced(const struct sw_bsym *b, const uint64_t *fence,
                                 const uint64_t *top, const void *a, size_t n, size_t elem,
                                 uint64_t x)
{
	if (!fence)
		return upper_bound(b, a, n, elem, x);
	size_t nf = bsym_nfences(n), k;
	if (top) {
		/* The same search one level up: the answer's fence entry lies
		 * in the stretch of the fence that top picks (checked whole at
		 * open). */
		size_t t = upper_bound_checked((const char *)top, bsym_nfences(nf), sizeof *top, x);
		if (t == 0)
			return 0;
		size_t flo = (t - 1) * BSYM_FENCE, flen = nf - flo < BSYM_FENCE ? nf - flo : BSYM_FENCE;
		k = flo + upper_bound_checked((const char *)(fence + flo), flen, sizeof *fence, x);
	} else {
		if (!bsym_rec_ok(b, fence, nf * sizeof *fence))
			return 0;
		k = upper_bound_checked((const char *)fence, nf, sizeof *fence, x);
	}
	if (k == 0)
		return 0;
	size_t lo = (k - 1) * BSYM_FENCE, len = n - lo < BSYM_FENCE ? n - lo : BSYM_FENCE;
	const char *stretch = (const char *)a + lo * elem;
	if (!bsym_rec_ok(b, stretch, len * elem))
		return 0;
	/* A scan, not halving: its loads do not wait on each other, so the
	 * stretch's cache lines (cold: a walk's addresses are far apart) are
	 * fetched together rather than one after another. */
	size_t i = 0;
	for (; i < len; i++) {
		uint64_t k;
		memcpy(&k, stretch + i * elem, sizeof k);
		if (k > x)
			break;
	}
	return lo + i;
}

ptrdiff_t bsym_find_func(const struct sw_bsym *b, uint64_t x)
{
	return (ptrdiff_t)upper_bound_fenced(b, b->func_fence, b->func_top, b->funcs, b->nfuncs,
	                                     sizeof *b->funcs, x) - 1;
}

static ptrdiff_t find_public(const struct sw_bsym *b, uint64_t x)
{
	return (ptrdiff_t)upper_bound_fenced(b, b->pub_fence, b->pub_top, b->pubs, b->npubs,
	                                     sizeof *b->pubs, x) - 1;
}

static ptrdiff_t find_range(const struct sw_bsym *b, const struct bsym_range *a, size_t n,
                            uint64_t x)
{
	return (ptrdiff_t)upper_bound(b, a, n, sizeof *a, x) - 1;
}

ptrdiff_t bsym_find_cfi(const struct sw_bsym *b, uint64_t x)
{
	ptrdiff_t i = (ptrdiff_t)upper_bound_fenced(b, b->cfi_fence, b->cfi_top, b->cfi, b->ncfi,
	                                            sizeof *b->cfi, x) - 1;
	if (i >= 0 && x - b->cfi[i].addr >= b->cfi[i].size)
		return -1;
	return i;
}

static bool range_covers(const struct bsym_range *r, uint64_t x)
{
	return x >= r->addr && x - r->addr < r->size;
}

static bool range_contains(const struct bsym_range *outer, const struct bsym_range *in)
{
	return in->addr >= outer->addr &&
	       in->addr + in->size <= outer->addr + outer->size &&
	       !(in->addr == outer->addr && in->size == outer->size);
}

/* Breakpad keeps STACK WIN records of a type in a ContainedRangeMap: a
 * record that partly overlaps one stored before it is refused, one inside
 * another is its child, and a lookup returns the innermost. Emulated over
 * the records covering the offset: start from the earliest in file order,
 * then descend into later ones it strictly contains. (A record refused for
 * overlapping a record that does not cover the offset is not detected.) */
static const struct bsym_range *find_win_type(const struct sw_bsym *b,
                                              uint64_t offset, uint32_t type)
{
	enum { MAX_CANDIDATES = 64 };
	const struct bsym_range *cand[MAX_CANDIDATES];
	size_t nc = 0;
	ptrdiff_t i = find_range(b, b->win, b->nwin, offset);
	for (; i >= 0 && nc < MAX_CANDIDATES; i--) {
		const struct bsym_range *r = &b->win[i];
		if (!bsym_rec_ok(b, r, sizeof *r))
			return NULL;
		if (offset - r->addr >= b->win_max_size)
			break; /* no earlier record can reach the offset */
		if (r->aux == type && range_covers(r, offset))
			cand[nc++] = r;
	}
	if (nc == 0)
		return NULL;
	const struct bsym_range *best = NULL;
	for (size_t k = 0; k < nc; k++)
		if (!best || cand[k]->off < best->off)
			best = cand[k];
	for (;;) {
		const struct bsym_range *next = NULL;
		for (size_t k = 0; k < nc; k++)
			if (cand[k]->off > best->off && range_contains(best, cand[k]) &&
			    (!next || cand[k]->off < next->off))
				next = cand[k];
		if (!next)
			return best;
		best = next;
	}
}

const struct bsym_range *bsym_find_win(const struct sw_bsym *b, uint64_t offset)
{
	if (b->nwin == 0)
		return NULL;
	const struct bsym_range *r = find_win_type(b, offset, 4);
	return r ? r : find_win_type(b, offset, 0);
}

static const struct bsym_named *find_named(const struct sw_bsym *b,
                                           const struct bsym_named *a, size_t n, int64_t id)
{
	if (id < 0 || id > UINT32_MAX)
		return NULL;
	/* The first with a[].id >= id: the first FILE wins. */
	struct probe p = {b, (const char *)a, sizeof *a};
	size_t lo = sw_lower_bound(&p, n, probe_named_id, (uint64_t)id);
	return lo < n && a[lo].id == id ? &a[lo] : NULL;
}

/* ---- lookup ------------------------------------------------------------- */

static const struct bsym_func *covering_func(const struct sw_bsym *b, uint64_t x,
                                             const struct bsym_func **nearest)
{
	ptrdiff_t i = bsym_find_func(b, x);
	*nearest = i >= 0 ? &b->funcs[i] : NULL;
	if (i >= 0 && x - b->funcs[i].addr < b->funcs[i].size)
		return &b->funcs[i];
	return NULL;
}

/* The PUBLIC symbol for x when no FUNC covers it: the nearest below, unless
 * the nearest FUNC below x starts after it (Breakpad's bound). */
static const struct bsym_public *covering_public(const struct sw_bsym *b, uint64_t x,
                                                 const struct bsym_func *nearest)
{
	ptrdiff_t i = find_public(b, x);
	if (i < 0)
		return NULL;
	if (nearest && b->pubs[i].addr <= nearest->addr)
		return NULL;
	return &b->pubs[i];
}

/* Names of data that dump_syms writes as PUBLIC records from a PDB's
 * publics (MSVC decorated names, "Decorated Names" in Microsoft's C++
 * documentation): string literals (??_C@), virtual function and base
 * tables (??_7, ??_8), RTTI (??_R0-??_R4), floating-point and vector
 * constants (__real@, __xmm@, __ymm@), import slots (__imp_); and the
 * Itanium C++ ABI's vtables and typeinfo (_ZTV, _ZTI, _ZTS, _ZTT). Such a
 * record lies in .rdata or .data: it names no code, and the addresses
 * after it up to the next record are no function. */
static bool names_data(const char *name, size_t n)
{
	static const char *const prefixes[] = {
		"??_C@", "??_7", "??_8", "??_R0", "??_R1", "??_R2", "??_R3", "??_R4", "__real@",
		"__xmm@", "__ymm@", "__imp_", "_ZTV", "_ZTI", "_ZTS", "_ZTT",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t k = strlen(prefixes[i]);
		if (n >= k && memcmp(name, prefixes[i], k) == 0)
			return true;
	}
	return false;
}

static bool public_names_data(const struct sw_bsym *b, const struct bsym_public *pub)
{
	struct bsym_span sp;
	if (!bsym_span_get(b, pub->off, pub->len, pub->crc, &sp))
		return false;
	const char *e = sp.p + sp.n;
	struct bsym_func_fields ff;
	bool data = e - sp.p >= 7 && bsym_parse_func_fields(sp.p + 7, e, false, &ff) &&
	            names_data(ff.name, ff.name_len);
	bsym_span_free(&sp);
	return data;
}

static bool has_function_in(const struct sw_bsym *b, uint64_t offset)
{
	const struct bsym_func *nearest;
	if (covering_func(b, offset, &nearest))
		return true;
	const struct bsym_public *pub = covering_public(b, offset, nearest);
	return pub && !public_names_data(b, pub);
}

enum { MAX_INLINE_DEPTH = 64 };

struct inline_level {
	int64_t origin, call_line, call_file;
	bool has_file;
};

/* INLINE <depth> <call_line> [<call_file>] <origin> (<addr> <size>)+ : the
 * layout is told by the parity of the token count, as Breakpad does. Fills
 * *lv and *covers (a range holds x). */
static bool parse_inline(const char *p, const char *e, uint64_t x, int64_t *depth,
                         struct inline_level *lv, bool *covers)
{
	size_t ntok = 0;
	for (const char *q = p; q < e;) {
		q = bsym_skip_spaces(q, e);
		if (q >= e)
			break;
		ntok++;
		while (q < e && *q != ' ')
			q++;
	}
	if (ntok < 5)
		return false;
	lv->has_file = ntok % 2 == 0;
	if (!bsym_dec(&p, e, depth) || *depth < 0 || !bsym_dec(&p, e, &lv->call_line) ||
	    lv->call_line < 0)
		return false;
	lv->call_file = -1;
	if (lv->has_file && (!bsym_dec(&p, e, &lv->call_file) || lv->call_file < -1))
		return false;
	if (!bsym_dec(&p, e, &lv->origin) || lv->origin < 0)
		return false;
	*covers = false;
	while (p < e) {
		uint64_t a, s;
		if (!bsym_hex(&p, e, &a) || !bsym_hex(&p, e, &s))
			return false;
		if (x >= a && x - a < s)
			*covers = true;
	}
	return true;
}

/* The name of FILE or INLINE_ORIGIN record n. An index reads each name
 * once (a walk names the same few files in every frame) and keeps it in
 * names[], a slot per record, filled by whichever thread reads it first. */
static const char *copy_named(const struct sw_bsym *b, const struct bsym_named *n,
                              bool is_file, struct sw_arena *a)
{
	if (!n)
		return NULL;
	char *_Atomic *slot = NULL;
	if (b->idx && is_file && b->file_names)
		slot = &b->file_names[n - b->files];
	else if (b->idx && !is_file && b->origin_names)
		slot = &b->origin_names[n - b->origins];
	char *known = slot ? atomic_load_explicit(slot, memory_order_acquire) : NULL;
	/* known is what strndup kept of the name: n->len bytes, or fewer
	 * when it holds a NUL (copying n->len read past it: fuzz_sym_index). */
	if (known)
		return sw_arena_strdup(a, known);
	struct bsym_span sp;
	if (!bsym_span_get(b, n->off, n->len, n->crc, &sp))
		return NULL;
	const char *r = sw_arena_strndup(a, sp.p, sp.n);
	char *copy = slot ? strndup(sp.p, sp.n) : NULL;
	bsym_span_free(&sp);
	char *none = NULL;
	if (copy && !atomic_compare_exchange_strong_explicit(slot, &none, copy,
	                                                     memory_order_acq_rel,
	                                                     memory_order_acquire))
		free(copy); /* another thread's copy is there */
	return r;
}

/* PUBLIC <addr> <param_size> <name> */
static bool lookup_public(const struct sw_bsym *b, const struct bsym_public *pub,
                          struct sw_arena *a, struct sw_sym_info *out)
{
	struct bsym_span sp;
	if (!bsym_span_get(b, pub->off, pub->len, pub->crc, &sp))
		return false;
	const char *e = sp.p + sp.n;
	struct bsym_func_fields ff;
	bool ok = e - sp.p >= 7 && bsym_parse_func_fields(sp.p + 7, e, false, &ff);
	if (ok) {
		out->function = sw_arena_strndup(a, ff.name, ff.name_len);
		out->function_offset = ff.addr;
		out->is_public = true;
		out->param_size = (uint32_t)ff.param;
	}
	bsym_span_free(&sp);
	return ok && out->function != NULL;
}

static bool lookup_func(const struct sw_bsym *b, const struct bsym_func *f, uint64_t offset,
                        const char *line, const char *end, struct sw_arena *a,
                        struct sw_sym_info *out);
static bool lookup_decoded(const struct sw_bsym *b, const struct bsym_func *f, uint64_t offset,
                           const uint8_t *p, const uint8_t *e, struct sw_arena *a,
                           struct sw_sym_info *out);

static bool lookup_in(const struct sw_bsym *b, uint64_t offset, struct sw_arena *a,
                      struct sw_sym_info *out)
{
	memset(out, 0, sizeof *out);
	const struct bsym_func *nearest;
	const struct bsym_func *f = covering_func(b, offset, &nearest);
	if (!f) {
		const struct bsym_public *pub = covering_public(b, offset, nearest);
		return pub && lookup_public(b, pub, a, out);
	}
	/* The FUNC line and its line and INLINE records, or their decoded
	 * form. */
	struct bsym_span sp;
	bool decoded = b->idx && (f->flags & BSYM_DECODED);
	if (f->end < f->off ||
	    !(decoded ? bsym_blob_get : bsym_span_get)(b, f->off, f->end - f->off, f->crc, &sp))
		return false;
	bool ok = decoded ? lookup_decoded(b, f, offset, (const uint8_t *)sp.p,
	                                   (const uint8_t *)sp.p + sp.n, a, out)
	                  : lookup_func(b, f, offset, sp.p, sp.p + sp.n, a, out);
	bsym_span_free(&sp);
	return ok;
}

/* lookup_func over a decoded FUNC (encode_func): the same answers. */
static bool lookup_decoded(const struct sw_bsym *b, const struct bsym_func *f, uint64_t offset,
                           const uint8_t *p, const uint8_t *e, struct sw_arena *a,
                           struct sw_sym_info *out)
{
	uint64_t param, name_len;
	if (!bsym_get_uleb(&p, e, &param) || !bsym_get_uleb(&p, e, &name_len) ||
	    name_len > (uint64_t)(e - p))
		return false;
	out->function = sw_arena_strndup(a, (const char *)p, (size_t)name_len);
	out->function_offset = f->addr;
	out->function_size = f->size;
	out->param_size = (uint32_t)param;
	p += name_len;
	uint64_t prev_end = f->addr;
	/* Unsigned: a hostile delta wraps instead of overflowing (UB,
	 * fuzz_sym_index); a real file's deltas sum to its line numbers. */
	uint64_t line = 0;
	while (p < e) {
		int64_t daddr, dline;
		uint64_t size, file;
		if (!bsym_get_sleb(&p, e, &daddr) || !bsym_get_uleb(&p, e, &size) ||
		    !bsym_get_sleb(&p, e, &dline) || !bsym_get_uleb(&p, e, &file))
			return false;
		uint64_t addr = prev_end + (uint64_t)daddr;
		line += (uint64_t)dline;
		prev_end = addr + size;
		if (offset >= addr && offset - addr < size) {
			out->file = copy_named(b, find_named(b, b->files, b->nfiles, (int64_t)file),
			                       true, a);
			out->line = (uint32_t)line;
			out->line_offset = addr;
			break;
		}
	}
	return out->function != NULL;
}

/* Could the line record p .. e cover offset? Its first two fields only
 * (most records of a function do not: the rest is parsed for the one
 * that may). */
static bool line_may_cover(const char *p, const char *e, uint64_t offset)
{
	uint64_t addr, size;
	if (!bsym_hex(&p, e, &addr) || !bsym_hex(&p, e, &size))
		return true; /* malformed: bsym_parse_line_fields says so */
	return offset >= addr && offset - addr < size;
}

static bool lookup_func(const struct sw_bsym *b, const struct bsym_func *f, uint64_t offset,
                        const char *line, const char *end, struct sw_arena *a,
                        struct sw_sym_info *out)
{
	const char *nl = bsym_line_end(line, end);
	struct bsym_func_fields ff;
	if (nl - line < 5 || !bsym_parse_func_fields(line + 5, bsym_trim_cr(line, nl), true, &ff))
		return false;
	out->function = sw_arena_strndup(a, ff.name, ff.name_len);
	out->function_offset = f->addr;
	out->function_size = f->size;
	out->param_size = (uint32_t)ff.param;

	/* The FUNC's own records: the first line record covering the offset,
	 * and the chain of INLINE records covering it, by depth. */
	struct inline_level chain[MAX_INLINE_DEPTH];
	size_t depth_n = 0;
	bool have_line = false;
	struct bsym_line_fields best = {0};
	for (const char *p = nl + 1; p < end; p = nl + 1) {
		nl = bsym_line_end(p, end);
		const char *e = bsym_trim_cr(p, nl);
		if (e == p)
			continue;
		if (bsym_starts(p, e, "INLINE ", 7)) {
			struct inline_level lv;
			int64_t depth;
			bool covers;
			if (parse_inline(bsym_skip_spaces(p + 7, e), e, offset, &depth, &lv,
			                 &covers) &&
			    covers && (size_t)depth <= depth_n && depth < MAX_INLINE_DEPTH) {
				chain[depth] = lv;
				depth_n = (size_t)depth + 1;
			}
			continue;
		}
		struct bsym_line_fields lf;
		if (!have_line && sw_hex_digit(*p) >= 0 && line_may_cover(p, e, offset) &&
		    bsym_parse_line_fields(p, e, &lf) && lf.size > 0 && offset >= lf.addr &&
		    offset - lf.addr < lf.size) {
			best = lf;
			have_line = true;
		}
	}
	if (have_line) {
		out->file = copy_named(b, find_named(b, b->files, b->nfiles, best.file), true, a);
		out->line = (uint32_t)best.line;
		out->line_offset = best.addr;
	}
	if (depth_n > 0) {
		struct sw_sym_inline *in = sw_arena_array(a, depth_n, sizeof *in);
		if (!in)
			return out->function != NULL;
		for (size_t i = 0; i < depth_n; i++) {
			const struct bsym_named *o = find_named(b, b->origins, b->norigins,
			                                        chain[i].origin);
			in[i].function = o ? copy_named(b, o, false, a) : "<name omitted>";
			in[i].call_line = (uint32_t)chain[i].call_line;
			/* New layout: the call site's own file. Old layout: Breakpad
			 * shows the file of the line record at the address. */
			if (chain[i].has_file)
				in[i].call_file = copy_named(
					b, find_named(b, b->files, b->nfiles, chain[i].call_file), true, a);
			else
				in[i].call_file = out->file;
		}
		out->inlines = in;
		out->ninlines = (uint32_t)depth_n;
	}
	return out->function != NULL;
}

static bool frame_param_size_in(const struct sw_bsym *b, uint64_t offset, uint32_t *out)
{
	struct bsym_span sp;
	const char *e;
	const struct bsym_range *w = bsym_find_win(b, offset);
	if (w) {
		if (!bsym_span_get(b, w->off, w->len, w->crc, &sp))
			return false;
		e = sp.p + sp.n;
		const char *p = sp.p;
		p = e - p >= 6 ? bsym_skip_spaces(p + 6, e) : e;
		p = e - p >= 4 ? bsym_skip_spaces(p + 4, e) : e; /* "STACK " "WIN " */
		uint64_t v[6];
		bool ok = true;
		for (int i = 0; i < 6 && ok; i++)
			ok = bsym_hex(&p, e, &v[i]);
		bsym_span_free(&sp);
		if (ok)
			*out = (uint32_t)v[5];
		return ok;
	}
	const struct bsym_func *nearest;
	const struct bsym_func *f = covering_func(b, offset, &nearest);
	if (f && b->idx && (f->flags & BSYM_DECODED)) {
		/* encode_func: the param size comes first */
		if (f->end < f->off || !bsym_blob_get(b, f->off, f->end - f->off, f->crc, &sp))
			return false;
		const uint8_t *q = (const uint8_t *)sp.p;
		uint64_t param;
		bool ok = bsym_get_uleb(&q, q + sp.n, &param);
		bsym_span_free(&sp);
		if (ok)
			*out = (uint32_t)param;
		return ok;
	}
	if (!f || f->end < f->off || !bsym_span_get(b, f->off, f->end - f->off, f->crc, &sp))
		return false;
	e = bsym_trim_cr(sp.p, bsym_line_end(sp.p, sp.p + sp.n));
	struct bsym_func_fields ff;
	bool ok = e - sp.p >= 5 && bsym_parse_func_fields(sp.p + 5, e, true, &ff);
	bsym_span_free(&sp);
	if (ok)
		*out = (uint32_t)ff.param;
	return ok;
}

static enum sw_unwind_status unwind_in(const struct sw_bsym *b, uint64_t offset,
                                       const struct sw_unwind_env *env,
                                       struct sw_caller *out, enum sw_trust *trust)
{
	struct sw_regs *caller = &out->regs;
	/* Breakpad's x86 walker tries STACK WIN first, then STACK CFI. */
	if (env->arch->cpu == SW_CPU_X86) {
		const struct bsym_range *w = bsym_find_win(b, offset);
		if (w) {
			enum sw_unwind_status s = bsym_win_unwind(b, w, env, caller, trust);
			if (s == SW_UNWIND_OK || s == SW_UNWIND_END)
				return s;
		}
	}
	return bsym_cfi_unwind(b, offset, env, caller, trust);
}

/* ---- the provider ------------------------------------------------------- */

/* Each question is answered from b; if b is an index and a check failed
 * while answering (or before), the answer is thrown away and given again
 * from the source, parsed once (bsym_current). */
static bool index_failed(const struct sw_bsym *b)
{
	return b->idx && sym_index_failed(b->idx);
}

static bool bsym_lookup(void *self, uint64_t offset, struct sw_arena *a,
                        struct sw_sym_info *out)
{
	const struct sw_bsym *b = bsym_current(self);
	bool found = b && lookup_in(b, offset, a, out);
	if (b && index_failed(b)) {
		b = bsym_current(b);
		found = b && lookup_in(b, offset, a, out);
	}
	if (!b)
		memset(out, 0, sizeof *out);
	return found;
}

static bool bsym_has_function(void *self, uint64_t offset)
{
	const struct sw_bsym *b = bsym_current(self);
	bool found = b && has_function_in(b, offset);
	if (b && index_failed(b)) {
		b = bsym_current(b);
		found = b && has_function_in(b, offset);
	}
	return found;
}

static enum sw_unwind_status bsym_unwind(void *self, uint64_t offset,
                                         const struct sw_unwind_env *env,
                                         struct sw_caller *out, enum sw_trust *trust)
{
	const struct sw_bsym *b = bsym_current(self);
	if (!b)
		return SW_UNWIND_NO_RULE;
	enum sw_unwind_status st = unwind_in(b, offset, env, out, trust);
	if (index_failed(b)) {
		b = bsym_current(b);
		st = b ? unwind_in(b, offset, env, out, trust) : SW_UNWIND_NO_RULE;
	}
	return st;
}

bool sw_bsym_frame_param_size(const struct sw_bsym *b, uint64_t offset, uint32_t *out)
{
	b = bsym_current(b);
	bool found = b && frame_param_size_in(b, offset, out);
	if (b && index_failed(b)) {
		b = bsym_current(b);
		found = b && frame_param_size_in(b, offset, out);
	}
	return found;
}

const struct sw_symbols_ops sw_bsym_ops = {
	.lookup = bsym_lookup,
	.unwind = bsym_unwind,
	.has_function = bsym_has_function,
};
