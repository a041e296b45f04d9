/* Breakpad .sym: one pass over the text builds sorted arrays of fixed-size
 * records (address, offset of the record's line); lookups binary-search them
 * and parse the few lines they need. The reference semantics are those of
 * Breakpad's BasicSourceLineResolver: the first of two overlapping FUNC (or
 * CFI INIT) ranges wins, PUBLIC symbols at address 0 are ignored, a PUBLIC
 * symbol covers an address unless a FUNC starts between them, and a file
 * with bad records is "corrupt" but still used. */
#include "breakpad_sym_internal.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "gz.h"
#include "lib/arch.h"
#include "lib/bsearch.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"

/* ---- numbers ------------------------------------------------------------ */

bool bsym_hex(const char **pp, const char *e, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	const char *start = p;
	int d;
	while (p < e && (d = sw_hex_digit(*p)) >= 0) {
		if (v >> 60)
			return false; /* overflow */
		v = v << 4 | (uint64_t)d;
		p++;
	}
	if (p == start || (p < e && *p != ' '))
		return false;
	*out = v;
	*pp = bsym_skip_spaces(p, e);
	return true;
}

bool bsym_dec(const char **pp, const char *e, int64_t *out)
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

static bool starts(const char *p, const char *e, const char *lit, size_t n)
{
	return (size_t)(e - p) >= n && memcmp(p, lit, n) == 0;
}

/* ---- record parsers (shared by indexing and lookup) --------------------- */

struct func_fields {
	bool multiple;
	uint64_t addr, size, param;
	const char *name;
	size_t name_len;
};

/* FUNC [m] <addr> <size> <param_size> <name>; p after "FUNC ". PUBLIC is
 * the same without <size> (with_size false). */
static bool parse_func_fields(const char *p, const char *e, bool with_size,
                              struct func_fields *f)
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

struct line_fields {
	uint64_t addr, size;
	int64_t line, file;
};

/* <addr> <size> <line> <file_id> */
static bool parse_line_fields(const char *p, const char *e, struct line_fields *l)
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

/* ---- growing arrays while indexing -------------------------------------- */

struct vec {
	void *data;
	size_t n, cap, elem;
	bool sorted;
	uint64_t last;
};

static bool vec_push(struct vec *v, const void *rec, uint64_t key)
{
	if (v->n == v->cap) {
		size_t ncap = v->cap ? v->cap * 2 : 256;
		void *nd = realloc(v->data, ncap * v->elem);
		if (!nd)
			return false;
		v->data = nd;
		v->cap = ncap;
	}
	memcpy((char *)v->data + v->n * v->elem, rec, v->elem);
	if (v->n > 0 && key < v->last)
		v->sorted = false;
	v->last = key;
	v->n++;
	return true;
}

static void *vec_finish(struct vec *v, size_t *n)
{
	*n = v->n;
	if (v->n == 0) {
		free(v->data);
		return NULL;
	}
	if (v->cap > v->n + v->n / 8) {
		void *nd = realloc(v->data, v->n * v->elem);
		if (nd)
			v->data = nd;
	}
	return v->data;
}

/* Sorted by key (address, or FILE / INLINE_ORIGIN id); records of equal key
 * keep their file order (off increases with it). */
static int cmp_key_then_off(uint64_t xkey, uint64_t xoff, uint64_t ykey, uint64_t yoff)
{
	if (xkey != ykey)
		return xkey < ykey ? -1 : 1;
	return xoff < yoff ? -1 : xoff > yoff;
}

static int cmp_func(const void *a, const void *b)
{
	const struct bsym_func *x = a, *y = b;
	return cmp_key_then_off(x->addr, x->off, y->addr, y->off);
}

static int cmp_public(const void *a, const void *b)
{
	const struct bsym_public *x = a, *y = b;
	return cmp_key_then_off(x->addr, x->off, y->addr, y->off);
}

static int cmp_range(const void *a, const void *b)
{
	const struct bsym_range *x = a, *y = b;
	return cmp_key_then_off(x->addr, x->off, y->addr, y->off);
}

static int cmp_named(const void *a, const void *b)
{
	const struct bsym_named *x = a, *y = b;
	return cmp_key_then_off(x->id, x->off, y->id, y->off);
}

/* ---- the indexing pass -------------------------------------------------- */

struct indexer {
	struct sw_bsym *b;
	struct vec funcs, pubs, cfi, win, files, origins;
	ptrdiff_t cur_func;     /* index into funcs.data, -1 none */
	bool in_func;           /* a FUNC is open (maybe not stored: bad range) */
};

static void bad(struct indexer *ix)
{
	ix->b->errors++;
}

static bool index_func(struct indexer *ix, const char *line, const char *p,
                       const char *e)
{
	struct func_fields f;
	if (!parse_func_fields(p, e, true, &f)) {
		bad(ix);
		ix->cur_func = -1;
		ix->in_func = false;
		return true;
	}
	ix->in_func = true;
	ix->cur_func = -1;
	/* Breakpad's RangeMap refuses empty and wrapping ranges, silently. */
	if (f.size == 0 || f.addr + f.size < f.addr)
		return true;
	struct bsym_func rec = {
		.addr = f.addr, .size = f.size,
		.off = (uint64_t)(line - ix->b->text), .end = (uint64_t)(e - ix->b->text),
	};
	if (!vec_push(&ix->funcs, &rec, rec.addr))
		return false;
	ix->cur_func = (ptrdiff_t)ix->funcs.n - 1;
	return true;
}

static void extend_func(struct indexer *ix, const char *e)
{
	if (ix->cur_func >= 0) {
		struct bsym_func *f = (struct bsym_func *)ix->funcs.data + ix->cur_func;
		f->end = (uint64_t)(e - ix->b->text);
	}
}

static bool index_public(struct indexer *ix, const char *line, const char *p,
                         const char *e)
{
	ix->cur_func = -1;
	ix->in_func = false;
	struct func_fields f;
	if (!parse_func_fields(p, e, false, &f)) {
		bad(ix);
		return true;
	}
	if (f.addr == 0)
		return true; /* Breakpad: bogus PUBLICs at 0 are accepted, not stored */
	struct bsym_public rec = {.addr = f.addr, .off = (uint64_t)(line - ix->b->text)};
	return vec_push(&ix->pubs, &rec, rec.addr);
}

static bool index_named(struct indexer *ix, struct vec *v, const char *p,
                        const char *e, bool origin)
{
	int64_t id;
	if (!bsym_dec(&p, e, &id) || id < 0 || id > UINT32_MAX - 1) {
		bad(ix);
		return true;
	}
	if (origin) {
		/* Old layout: INLINE_ORIGIN <id> <file_id> <name>; new: <id> <name>.
		 * Breakpad's test: the next token is all digits (or -digits). */
		const char *q = p, *t = p;
		while (t < e && *t != ' ')
			t++;
		bool digits = t > q;
		for (const char *c = q; c < t && digits; c++)
			digits = (*c >= '0' && *c <= '9') || (c == q && *c == '-');
		if (digits && t < e) {
			int64_t file;
			if (!bsym_dec(&p, e, &file) || file < -1) {
				bad(ix);
				return true;
			}
		}
	}
	if (p >= e) {
		bad(ix);
		return true;
	}
	uint64_t len = (uint64_t)(e - p);
	struct bsym_named rec = {
		.off = (uint64_t)(p - ix->b->text), .id = (uint32_t)id,
		.len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len,
	};
	return vec_push(v, &rec, rec.id);
}

static bool index_stack(struct indexer *ix, const char *line, const char *p,
                        const char *e)
{
	if (starts(p, e, "CFI ", 4)) {
		p = bsym_skip_spaces(p + 4, e);
		if (starts(p, e, "INIT ", 5)) {
			uint64_t addr, size;
			p = bsym_skip_spaces(p + 5, e);
			if (!bsym_hex(&p, e, &addr) || !bsym_hex(&p, e, &size) || p >= e) {
				bad(ix);
				return true;
			}
			if (size == 0 || size > UINT32_MAX || addr + size < addr)
				return true; /* a range Breakpad's map would refuse */
			struct bsym_range rec = {.addr = addr, .off = (uint64_t)(line - ix->b->text),
			                         .size = (uint32_t)size};
			return vec_push(&ix->cfi, &rec, addr);
		}
		/* A delta: found from its INIT by scanning forward at unwind time. */
		uint64_t addr;
		if (!bsym_hex(&p, e, &addr) || p >= e)
			bad(ix);
		return true;
	}
	if (starts(p, e, "WIN ", 4)) {
		/* STACK WIN <type> <rva> <code_size> <prolog> <epilog> <params>
		 *   <saved_regs> <locals> <max_stack> <has_program> <program|abp> */
		p = bsym_skip_spaces(p + 4, e);
		uint64_t v[10];
		for (int i = 0; i < 10; i++) {
			if (!bsym_hex(&p, e, &v[i])) {
				bad(ix);
				return true;
			}
		}
		if (p >= e || v[0] > 4) {
			bad(ix);
			return true;
		}
		if (v[0] != 0 && v[0] != 4)
			return true; /* TRAP, TSS, STANDARD: stored by Breakpad, never used */
		if (v[2] == 0 || v[2] > UINT32_MAX || v[1] + v[2] < v[1])
			return true;
		struct bsym_range rec = {.addr = v[1], .off = (uint64_t)(line - ix->b->text),
		                         .size = (uint32_t)v[2], .aux = (uint32_t)v[0]};
		if (rec.size > ix->b->win_max_size)
			ix->b->win_max_size = rec.size;
		return vec_push(&ix->win, &rec, rec.addr);
	}
	bad(ix);
	return true;
}

static bool index_line(struct indexer *ix, const char *line, const char *e)
{
	const char *p = line;
	switch (*p) {
	case 'F':
		if (starts(p, e, "FUNC ", 5))
			return index_func(ix, line, p + 5, e);
		if (starts(p, e, "FILE ", 5))
			return index_named(ix, &ix->files, bsym_skip_spaces(p + 5, e), e, false);
		break;
	case 'P':
		if (starts(p, e, "PUBLIC ", 7))
			return index_public(ix, line, p + 7, e);
		break;
	case 'S':
		if (starts(p, e, "STACK ", 6))
			return index_stack(ix, line, bsym_skip_spaces(p + 6, e), e);
		break;
	case 'I':
		if (starts(p, e, "INLINE_ORIGIN ", 14))
			return index_named(ix, &ix->origins, bsym_skip_spaces(p + 14, e), e, true);
		if (starts(p, e, "INLINE ", 7)) {
			/* Parsed at lookup; Breakpad does not count bad INLINEs as
			 * corruption, but one outside a FUNC is. */
			if (!ix->in_func)
				bad(ix);
			extend_func(ix, e);
			return true;
		}
		if (starts(p, e, "INFO ", 5))
			return true;
		break;
	case 'M':
		if (starts(p, e, "MODULE ", 7)) {
			struct sw_bsym_module *m = &ix->b->module;
			const char **f[4] = {&m->os, &m->arch, &m->id, &m->name};
			size_t *l[4] = {&m->os_len, &m->arch_len, &m->id_len, &m->name_len};
			p = bsym_skip_spaces(p + 7, e);
			for (int i = 0; i < 4; i++) {
				const char *t = p;
				if (i < 3)
					while (t < e && *t != ' ')
						t++;
				else
					t = e;
				*f[i] = p;
				*l[i] = (size_t)(t - p);
				p = bsym_skip_spaces(t, e);
			}
			if (!ix->b->has_module)
				ix->b->has_module = m->name_len > 0;
			return true;
		}
		break;
	default:
		break;
	}
	if (sw_hex_digit(*p) >= 0) {
		struct line_fields lf;
		if (!ix->in_func || !parse_line_fields(p, e, &lf))
			bad(ix);
		else
			extend_func(ix, e);
		return true;
	}
	bad(ix);
	return true;
}

/* Compacts a sorted vec, dropping each record that clashes with the last
 * one kept (a FUNC or CFI range overlapping it, a PUBLIC at its address):
 * Breakpad's RangeMap refuses to store overlapping ranges (the first stored
 * wins; here, the lower). */
static void vec_drop_clashes(struct vec *v,
                             bool (*clashes)(const void *kept, const void *rec))
{
	char *d = v->data;
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (k > 0 && clashes(d + (k - 1) * v->elem, d + i * v->elem))
			continue;
		if (k != i)
			memcpy(d + k * v->elem, d + i * v->elem, v->elem);
		k++;
	}
	v->n = k;
}

static bool func_overlaps(const void *kept, const void *rec)
{
	const struct bsym_func *a = kept, *b = rec;
	return b->addr - a->addr < a->size;
}

static bool range_overlaps(const void *kept, const void *rec)
{
	const struct bsym_range *a = kept, *b = rec;
	return b->addr - a->addr < a->size;
}

static bool public_same_addr(const void *kept, const void *rec)
{
	const struct bsym_public *a = kept, *b = rec;
	return b->addr == a->addr;
}

static bool build_index(struct sw_bsym *b)
{
	struct indexer ix = {.b = b, .cur_func = -1};
	ix.funcs = (struct vec){.elem = sizeof(struct bsym_func), .sorted = true};
	ix.pubs = (struct vec){.elem = sizeof(struct bsym_public), .sorted = true};
	ix.cfi = (struct vec){.elem = sizeof(struct bsym_range), .sorted = true};
	ix.win = (struct vec){.elem = sizeof(struct bsym_range), .sorted = true};
	ix.files = (struct vec){.elem = sizeof(struct bsym_named), .sorted = true};
	ix.origins = (struct vec){.elem = sizeof(struct bsym_named), .sorted = true};

	const char *p = b->text, *end = b->text + b->len;
	bool ok = true;
	while (p < end && ok) {
		const char *nl = bsym_line_end(p, end);
		const char *e = bsym_trim_cr(p, nl);
		if (e > p)
			ok = index_line(&ix, p, e);
		p = nl + 1;
	}

	/* Sort only what is out of order (dump_syms writes sorted files). */
	if (!ix.funcs.sorted)
		qsort(ix.funcs.data, ix.funcs.n, ix.funcs.elem, cmp_func);
	vec_drop_clashes(&ix.funcs, func_overlaps);
	if (!ix.pubs.sorted)
		qsort(ix.pubs.data, ix.pubs.n, ix.pubs.elem, cmp_public);
	vec_drop_clashes(&ix.pubs, public_same_addr);
	if (!ix.cfi.sorted)
		qsort(ix.cfi.data, ix.cfi.n, ix.cfi.elem, cmp_range);
	vec_drop_clashes(&ix.cfi, range_overlaps);
	if (!ix.win.sorted)
		qsort(ix.win.data, ix.win.n, ix.win.elem, cmp_range);
	if (!ix.files.sorted)
		qsort(ix.files.data, ix.files.n, ix.files.elem, cmp_named);
	if (!ix.origins.sorted)
		qsort(ix.origins.data, ix.origins.n, ix.origins.elem, cmp_named);

	b->funcs = vec_finish(&ix.funcs, &b->nfuncs);
	b->pubs = vec_finish(&ix.pubs, &b->npubs);
	b->cfi = vec_finish(&ix.cfi, &b->ncfi);
	b->win = vec_finish(&ix.win, &b->nwin);
	b->files = vec_finish(&ix.files, &b->nfiles);
	b->origins = vec_finish(&ix.origins, &b->norigins);
	return ok;
}

/* ---- loading ------------------------------------------------------------ */

struct sw_bsym *sw_bsym_parse(const char *text, size_t len, const char *name,
                              struct sw_err *err)
{
	struct sw_bsym *b = calloc(1, sizeof *b);
	if (!b) {
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	b->text = text;
	b->len = len;
	if (!build_index(b)) {
		sw_bsym_free(b);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	if (b->errors)
		sw_err_set(err, SW_ERR_CORRUPT, "%s: %u bad record%s", name, b->errors,
		           b->errors == 1 ? "" : "s");
	return b;
}

struct sw_bsym *sw_bsym_load_file(const char *path, struct sw_err *err)
{
	struct sw_mapped_file m;
	if (sw_map_file(path, &m, err) != SW_OK)
		return NULL;
	if (m.size >= 2 && m.data[0] == 0x1f && m.data[1] == 0x8b) {
		uint8_t *text;
		size_t len;
		struct sw_err gzerr = {0};
		enum sw_err_code rc = sw_gz_inflate(m.data, m.size, sw_gz_limit(m.size), path,
		                                    &text, &len, &gzerr);
		sw_unmap_file(&m);
		if (!text) {
			sw_err_set(err, gzerr.code, "%s", gzerr.msg);
			return NULL;
		}
		struct sw_bsym *b = sw_bsym_parse((const char *)text, len, path, err);
		if (!b) {
			free(text);
			return NULL;
		}
		b->heap = text;
		if (rc != SW_OK) {
			/* Truncated or damaged gzip: what inflated is still used. */
			b->errors++;
			sw_err_set(err, SW_ERR_CORRUPT, "%s", gzerr.msg);
		}
		return b;
	}
	struct sw_bsym *b = sw_bsym_parse((const char *)m.data, m.size, path, err);
	if (!b) {
		sw_unmap_file(&m);
		return NULL;
	}
	b->map = (void *)m.data;
	b->map_len = m.size;
	return b;
}

void sw_bsym_free(struct sw_bsym *b)
{
	if (!b)
		return;
	free(b->funcs);
	free(b->pubs);
	free(b->cfi);
	free(b->win);
	free(b->files);
	free(b->origins);
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

/* ---- searches ----------------------------------------------------------- */

static uint64_t func_addr(const void *set, size_t i)
{
	return ((const struct bsym_func *)set)[i].addr;
}

static uint64_t public_addr(const void *set, size_t i)
{
	return ((const struct bsym_public *)set)[i].addr;
}

static uint64_t range_addr(const void *set, size_t i)
{
	return ((const struct bsym_range *)set)[i].addr;
}

static uint64_t named_id(const void *set, size_t i)
{
	return ((const struct bsym_named *)set)[i].id;
}

ptrdiff_t bsym_find_func(const struct sw_bsym *b, uint64_t x)
{
	return (ptrdiff_t)sw_upper_bound(b->funcs, b->nfuncs, func_addr, x) - 1;
}

static ptrdiff_t find_public(const struct sw_bsym *b, uint64_t x)
{
	return (ptrdiff_t)sw_upper_bound(b->pubs, b->npubs, public_addr, x) - 1;
}

static ptrdiff_t find_range(const struct bsym_range *a, size_t n, uint64_t x)
{
	return (ptrdiff_t)sw_upper_bound(a, n, range_addr, x) - 1;
}

ptrdiff_t bsym_find_cfi(const struct sw_bsym *b, uint64_t x)
{
	ptrdiff_t i = find_range(b->cfi, b->ncfi, x);
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
	ptrdiff_t i = find_range(b->win, b->nwin, offset);
	for (; i >= 0 && nc < MAX_CANDIDATES; i--) {
		const struct bsym_range *r = &b->win[i];
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

static const struct bsym_named *find_named(const struct bsym_named *a, size_t n,
                                           int64_t id)
{
	if (id < 0 || id > UINT32_MAX)
		return NULL;
	/* The first with a[].id >= id: the first FILE wins. */
	size_t lo = sw_lower_bound(a, n, named_id, (uint64_t)id);
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

static bool bsym_has_function(void *self, uint64_t offset)
{
	const struct sw_bsym *b = self;
	const struct bsym_func *nearest;
	if (covering_func(b, offset, &nearest))
		return true;
	return covering_public(b, offset, nearest) != NULL;
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

static const char *copy_named(const struct sw_bsym *b, const struct bsym_named *n,
                              struct sw_arena *a)
{
	return n ? sw_arena_strndup(a, b->text + n->off, n->len) : NULL;
}

static bool bsym_lookup(void *self, uint64_t offset, struct sw_arena *a,
                        struct sw_sym_info *out)
{
	const struct sw_bsym *b = self;
	memset(out, 0, sizeof *out);
	const struct bsym_func *nearest;
	const struct bsym_func *f = covering_func(b, offset, &nearest);
	if (!f) {
		const struct bsym_public *pub = covering_public(b, offset, nearest);
		if (!pub)
			return false;
		const char *line = b->text + pub->off;
		const char *e = bsym_trim_cr(line, bsym_line_end(line, b->text + b->len));
		struct func_fields ff;
		if (!parse_func_fields(line + 7, e, false, &ff))
			return false;
		out->function = sw_arena_strndup(a, ff.name, ff.name_len);
		out->function_offset = ff.addr;
		out->is_public = true;
		out->param_size = (uint32_t)ff.param;
		return out->function != NULL;
	}

	const char *end = b->text + f->end;
	const char *line = b->text + f->off;
	const char *nl = bsym_line_end(line, end);
	struct func_fields ff;
	if (!parse_func_fields(line + 5, bsym_trim_cr(line, nl), true, &ff))
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
	struct line_fields best = {0};
	for (const char *p = nl + 1; p < end; p = nl + 1) {
		nl = bsym_line_end(p, end);
		const char *e = bsym_trim_cr(p, nl);
		if (e == p)
			continue;
		if (starts(p, e, "INLINE ", 7)) {
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
		struct line_fields lf;
		if (!have_line && sw_hex_digit(*p) >= 0 && parse_line_fields(p, e, &lf) &&
		    lf.size > 0 && offset >= lf.addr && offset - lf.addr < lf.size) {
			best = lf;
			have_line = true;
		}
	}
	if (have_line) {
		out->file = copy_named(b, find_named(b->files, b->nfiles, best.file), a);
		out->line = (uint32_t)best.line;
		out->line_offset = best.addr;
	}
	if (depth_n > 0) {
		struct sw_sym_inline *in = sw_arena_array(a, depth_n, sizeof *in);
		if (!in)
			return out->function != NULL;
		for (size_t i = 0; i < depth_n; i++) {
			const struct bsym_named *o = find_named(b->origins, b->norigins,
			                                        chain[i].origin);
			in[i].function = o ? copy_named(b, o, a) : "<name omitted>";
			in[i].call_line = (uint32_t)chain[i].call_line;
			/* New layout: the call site's own file. Old layout: Breakpad
			 * shows the file of the line record at the address. */
			if (chain[i].has_file)
				in[i].call_file = copy_named(
					b, find_named(b->files, b->nfiles, chain[i].call_file), a);
			else
				in[i].call_file = out->file;
		}
		out->inlines = in;
		out->ninlines = (uint32_t)depth_n;
	}
	return out->function != NULL;
}

bool sw_bsym_frame_param_size(const struct sw_bsym *b, uint64_t offset, uint32_t *out)
{
	const struct bsym_range *w = bsym_find_win(b, offset);
	if (w) {
		const char *p = b->text + w->off;
		const char *e = bsym_trim_cr(p, bsym_line_end(p, b->text + b->len));
		p = bsym_skip_spaces(p + 6, e);
		p = bsym_skip_spaces(p + 4, e); /* "STACK " "WIN " */
		uint64_t v[6];
		for (int i = 0; i < 6; i++)
			if (!bsym_hex(&p, e, &v[i]))
				return false;
		*out = (uint32_t)v[5];
		return true;
	}
	const struct bsym_func *nearest;
	const struct bsym_func *f = covering_func(b, offset, &nearest);
	if (!f)
		return false;
	const char *line = b->text + f->off;
	struct func_fields ff;
	if (!parse_func_fields(line + 5,
	                       bsym_trim_cr(line, bsym_line_end(line, b->text + b->len)),
	                       true, &ff))
		return false;
	*out = (uint32_t)ff.param;
	return true;
}

static enum sw_unwind_status bsym_unwind(void *self, uint64_t offset,
                                         const struct sw_unwind_env *env,
                                         struct sw_caller *out, enum sw_trust *trust)
{
	const struct sw_bsym *b = self;
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

const struct sw_symbols_ops sw_bsym_ops = {
	.lookup = bsym_lookup,
	.unwind = bsym_unwind,
	.has_function = bsym_has_function,
};
