/* Breakpad .sym: one pass over the text builds sorted arrays of fixed-size
 * records (address, offset of the record's line); lookups binary-search them
 * and parse the few lines they need. The reference semantics are those of
 * Breakpad's BasicSourceLineResolver: the first of two overlapping FUNC (or
 * CFI INIT) ranges wins, PUBLIC symbols at address 0 are ignored, a PUBLIC
 * symbol covers an address unless a FUNC starts between them, and a file
 * with bad records is "corrupt" but still used. */
#include "breakpad_sym_internal.h"

#include <errno.h>
#include <stddef.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gz.h"
#include "lib/arch.h"
#include "lib/bsearch.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"
#include "lib/thread.h"

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
	ptrdiff_t cur_cfi;      /* the CFI INIT whose deltas may follow, -1 none */
	bool cfi_line;          /* this line was a CFI INIT or delta */
	/* The second half of a split parse (build_index) does not know
	 * whether a FUNC is open where it starts, until its first FUNC or
	 * PUBLIC line: a line or INLINE record before that needs the first
	 * half's state (needs_serial: the file is parsed again in one pass). */
	bool unsure_func, needs_serial;
};

/* A record's text length in its 32-bit len field; a longer record (a
 * line of 4 GiB) is kept short and its file never indexed. */
static uint32_t rec_len(struct indexer *ix, uint64_t n)
{
	if (n <= UINT32_MAX)
		return (uint32_t)n;
	ix->b->unindexable = true;
	return UINT32_MAX;
}

static void bad(struct indexer *ix)
{
	ix->b->errors++;
}

static bool index_func(struct indexer *ix, const char *line, const char *p,
                       const char *e)
{
	struct func_fields f;
	ix->unsure_func = false;
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
	ix->unsure_func = false;
	struct func_fields f;
	if (!parse_func_fields(p, e, false, &f)) {
		bad(ix);
		return true;
	}
	if (f.addr == 0)
		return true; /* Breakpad: bogus PUBLICs at 0 are accepted, not stored */
	struct bsym_public rec = {.addr = f.addr, .off = (uint64_t)(line - ix->b->text),
	                          .len = rec_len(ix, (uint64_t)(e - line))};
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
		.len = rec_len(ix, len),
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
			                         .size = (uint32_t)size,
			                         .len = rec_len(ix, (uint64_t)(e - line))};
			if (!vec_push(&ix->cfi, &rec, addr))
				return false;
			ix->cur_cfi = (ptrdiff_t)ix->cfi.n - 1;
			ix->cfi_line = true;
			return true;
		}
		/* A delta: read with its INIT at unwind time, which reads the
		 * lines spelled "STACK CFI <addr> ..." after it. */
		uint64_t addr;
		if (!bsym_hex(&p, e, &addr) || p >= e)
			bad(ix);
		if (ix->cur_cfi >= 0 && starts(line, e, "STACK CFI ", 10)) {
			struct bsym_range *init = (struct bsym_range *)ix->cfi.data + ix->cur_cfi;
			init->len = rec_len(ix, (uint64_t)(e - ix->b->text) - init->off);
			ix->cfi_line = true;
		}
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
		                         .size = (uint32_t)v[2], .aux = (uint32_t)v[0],
		                         .len = rec_len(ix, (uint64_t)(e - line))};
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
			ix->needs_serial |= ix->unsure_func;
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
		ix->needs_serial |= ix->unsure_func;
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

/* The common shape of a line record, "<hex> <hex> <dec> <dec>" with single
 * spaces, at most 16 hex and 9 decimal digits, ended by a newline (no CR)
 * or the text's end: a record parse_line_fields accepts, read in one pass
 * that also finds the line's end (*eol). False: not that shape (maybe
 * valid all the same), for the general path to judge. */
static bool plain_line_record(const char *p, const char *end, const char **eol)
{
	for (int field = 0; field < 4; field++) {
		const char *start = p;
		if (field < 2)
			while (p < end && sw_hex_digit1[(unsigned char)*p])
				p++;
		else
			while (p < end && *p >= '0' && *p <= '9')
				p++;
		size_t n = (size_t)(p - start);
		if (n == 0 || n > (field < 2 ? 16u : 9u))
			return false;
		if (field < 3) {
			if (p >= end || *p != ' ')
				return false;
			p++;
		}
	}
	if (p < end && *p != '\n')
		return false;
	*eol = p;
	return true;
}

static void indexer_init(struct indexer *ix, struct sw_bsym *b)
{
	*ix = (struct indexer){.b = b, .cur_func = -1, .cur_cfi = -1};
	ix->funcs = (struct vec){.elem = sizeof(struct bsym_func), .sorted = true};
	ix->pubs = (struct vec){.elem = sizeof(struct bsym_public), .sorted = true};
	ix->cfi = (struct vec){.elem = sizeof(struct bsym_range), .sorted = true};
	ix->win = (struct vec){.elem = sizeof(struct bsym_range), .sorted = true};
	ix->files = (struct vec){.elem = sizeof(struct bsym_named), .sorted = true};
	ix->origins = (struct vec){.elem = sizeof(struct bsym_named), .sorted = true};
}

/* The lines of [p, end), a part of ix->b->text that starts a line. */
static bool index_lines(struct indexer *ix, const char *p, const char *end)
{
	bool ok = true;
	while (p < end && ok) {
		/* Most lines are line records of an open FUNC: what index_line
		 * does with them (extend the FUNC; no CFI deltas follow), in one
		 * pass. Its first field is all hex, so it is no FUNC or FILE. */
		const char *eol;
		if (ix->in_func && plain_line_record(p, end, &eol)) {
			extend_func(ix, eol);
			ix->cur_cfi = -1;
			p = eol + 1;
			continue;
		}
		const char *nl = bsym_line_end(p, end);
		const char *e = bsym_trim_cr(p, nl);
		ix->cfi_line = false;
		if (e > p)
			ok = index_line(ix, p, e);
		if (!ix->cfi_line)
			ix->cur_cfi = -1; /* any other line (an empty one too) ends the deltas */
		p = nl + 1;
	}
	return ok;
}

/* Sorts and compacts each array of ix into b. */
static void finish_index(struct indexer *ix, struct sw_bsym *b)
{
	/* Sort only what is out of order (dump_syms writes sorted files). */
	if (!ix->funcs.sorted)
		qsort(ix->funcs.data, ix->funcs.n, ix->funcs.elem, cmp_func);
	vec_drop_clashes(&ix->funcs, func_overlaps);
	if (!ix->pubs.sorted)
		qsort(ix->pubs.data, ix->pubs.n, ix->pubs.elem, cmp_public);
	vec_drop_clashes(&ix->pubs, public_same_addr);
	if (!ix->cfi.sorted)
		qsort(ix->cfi.data, ix->cfi.n, ix->cfi.elem, cmp_range);
	vec_drop_clashes(&ix->cfi, range_overlaps);
	if (!ix->win.sorted)
		qsort(ix->win.data, ix->win.n, ix->win.elem, cmp_range);
	if (!ix->files.sorted)
		qsort(ix->files.data, ix->files.n, ix->files.elem, cmp_named);
	if (!ix->origins.sorted)
		qsort(ix->origins.data, ix->origins.n, ix->origins.elem, cmp_named);

	b->funcs = vec_finish(&ix->funcs, &b->nfuncs);
	b->pubs = vec_finish(&ix->pubs, &b->npubs);
	b->cfi = vec_finish(&ix->cfi, &b->ncfi);
	b->win = vec_finish(&ix->win, &b->nwin);
	b->files = vec_finish(&ix->files, &b->nfiles);
	b->origins = vec_finish(&ix->origins, &b->norigins);
}

static void indexer_free(struct indexer *ix)
{
	struct vec *v[6] = {&ix->funcs, &ix->pubs, &ix->cfi, &ix->win, &ix->files, &ix->origins};
	for (int i = 0; i < 6; i++)
		free(v[i]->data);
}

/* Appends w's records to v's, as one pass over both halves would have;
 * key_at gives a record's sort key. */
static bool vec_append(struct vec *v, struct vec *w, uint64_t (*key_at)(const void *rec))
{
	if (w->n == 0)
		return true;
	if (v->n + w->n > v->cap) {
		void *nd = realloc(v->data, (v->n + w->n) * v->elem);
		if (!nd)
			return false;
		v->data = nd;
		v->cap = v->n + w->n;
	}
	memcpy((char *)v->data + v->n * v->elem, w->data, w->n * w->elem);
	if (v->n > 0 && key_at(w->data) < v->last)
		v->sorted = false;
	v->sorted &= w->sorted;
	v->last = w->last;
	v->n += w->n;
	return true;
}

static uint64_t addr_key(const void *rec)
{
	uint64_t k;
	memcpy(&k, rec, sizeof k); /* FUNC, PUBLIC, CFI, WIN: the address leads */
	return k;
}

static uint64_t id_key(const void *rec)
{
	return ((const struct bsym_named *)rec)->id;
}

/* Parsing in two halves on two threads, for a large file: the second
 * half starts at a FUNC or PUBLIC line (after which nothing depends on
 * earlier lines), or failing that a STACK CFI INIT line. Its own
 * indexer keeps its own errors and module line (a shadow of b), merged
 * after; the arrays are appended in file order, so the result is what
 * one pass gives (gen48k: 8.8 MB per module, parsed in ~4.5 ms instead
 * of ~8). Below SPLIT_MIN a thread costs more than it saves. */
enum { SPLIT_MIN = 2u << 20 };

struct half {
	struct indexer ix;
	struct sw_bsym shadow;
	const char *p, *end;
	bool ok;
};

static void *index_half(void *arg)
{
	struct half *h = arg;
	h->ok = index_lines(&h->ix, h->p, h->end);
	return NULL;
}

static bool starts_record(const char *p, const char *end)
{
	return starts(p, end, "FUNC ", 5) || starts(p, end, "PUBLIC ", 7) ||
	       starts(p, end, "STACK CFI INIT ", 15);
}

/* A line start in [mid, end) that starts_record, else one in the first
 * half, else NULL. */
static const char *split_point(const char *text, const char *end)
{
	const char *mid = text + (end - text) / 2;
	for (const char *p = mid; p < end; p++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p || p + 1 >= end)
			break;
		if (starts_record(p + 1, end))
			return p + 1;
	}
	for (const char *p = mid; p > text + 1; ) {
		const char *nl = memrchr(text, '\n', (size_t)(p - text));
		if (!nl)
			break;
		if (starts_record(nl + 1, end) && nl + 1 > text)
			return nl + 1;
		p = nl;
	}
	return NULL;
}

static bool build_index_split(struct sw_bsym *b, const char *cut, bool *done)
{
	const char *end = b->text + b->len;
	struct indexer first;
	struct half *h = calloc(1, sizeof *h);
	pthread_t t;
	*done = false;
	if (!h)
		return false;
	h->shadow.text = b->text;
	h->shadow.len = b->len;
	indexer_init(&h->ix, &h->shadow);
	h->ix.unsure_func = true;
	h->p = cut;
	h->end = end;
	if (!sw_thread_create(&t, index_half, h)) {
		free(h);
		return false;
	}
	indexer_init(&first, b);
	bool ok = index_lines(&first, b->text, cut);
	pthread_join(t, NULL);
	if (h->ix.needs_serial) {
		indexer_free(&first);
		indexer_free(&h->ix);
		b->errors = 0;
		b->unindexable = false;
		b->win_max_size = 0;
		b->has_module = false;
		memset(&b->module, 0, sizeof b->module);
		free(h);
		return false; /* parse in one pass */
	}
	*done = true;
	struct vec *v[6] = {&first.funcs, &first.pubs, &first.cfi, &first.win, &first.files,
	                    &first.origins};
	struct vec *w[6] = {&h->ix.funcs, &h->ix.pubs, &h->ix.cfi, &h->ix.win, &h->ix.files,
	                    &h->ix.origins};
	ok = ok && h->ok;
	for (int i = 0; i < 6; i++)
		ok = ok && vec_append(v[i], w[i], i < 4 ? addr_key : id_key);
	const struct sw_bsym *sh = &h->shadow;
	b->errors += sh->errors;
	b->unindexable |= sh->unindexable;
	if (sh->win_max_size > b->win_max_size)
		b->win_max_size = sh->win_max_size;
	/* A MODULE line in the second half: its fields as the one pass
	 * would have left them (each MODULE line sets them). */
	if (sh->module.os) {
		b->module = sh->module;
		b->has_module |= sh->has_module;
	}
	indexer_free(&h->ix);
	free(h);
	finish_index(&first, b);
	return ok;
}

static bool build_index(struct sw_bsym *b, bool allow_split)
{
	if (allow_split && b->len >= SPLIT_MIN) {
		const char *cut = split_point(b->text, b->text + b->len);
		bool done;
		if (cut) {
			bool ok = build_index_split(b, cut, &done);
			if (done)
				return ok;
		}
	}
	struct indexer ix;
	indexer_init(&ix, b);
	bool ok = index_lines(&ix, b->text, b->text + b->len);
	finish_index(&ix, b);
	return ok;
}

/* ---- loading ------------------------------------------------------------ */

struct sw_bsym *sw_bsym_parse(const char *text, size_t len, const char *name,
                              struct sw_err *err)
{
	return bsym_parse_with(text, len, name, err, true);
}

struct sw_bsym *bsym_parse_with(const char *text, size_t len, const char *name,
                                struct sw_err *err, bool allow_split)
{
	struct sw_bsym *b = calloc(1, sizeof *b);
	if (!b) {
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	b->text = text;
	b->len = len;
	if (!build_index(b, allow_split)) {
		sw_bsym_free(b);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	if (b->errors)
		sw_err_set(err, SW_ERR_CORRUPT, "%s: %u bad record%s", name, b->errors,
		           b->errors == 1 ? "" : "s");
	return b;
}

/* The descriptor a source was read from, kept open until its index is
 * written, and its identity (fstat) from before it was read: the index's
 * key is what was read, and a source that changed while it was read is
 * not indexed (source_unchanged). */
struct source_id {
	int fd;
	struct stat st;
};

static bool source_unchanged(const struct source_id *id)
{
	struct stat now;
	const struct stat *was = &id->st;
	return fstat(id->fd, &now) == 0 && now.st_size == was->st_size &&
	       now.st_ino == was->st_ino && now.st_dev == was->st_dev &&
	       now.st_mtim.tv_sec == was->st_mtim.tv_sec &&
	       now.st_mtim.tv_nsec == was->st_mtim.tv_nsec &&
	       now.st_ctim.tv_sec == was->st_ctim.tv_sec &&
	       now.st_ctim.tv_nsec == was->st_ctim.tv_nsec;
}

/* Maps (and inflates) path and parses it; with id, the descriptor stays
 * open in id->fd (else it is closed). */
static struct sw_bsym *load_source(const char *path, struct source_id *id, struct sw_err *err)
{
	unsigned mode;
	int fd = sw_open_regular_file(path, &mode);
	if (fd < 0) {
		if (S_ISDIR(mode))
			sw_err_set(err, SW_ERR_IO, "%s: is a directory, not a file", path);
		else if (mode)
			sw_err_set(err, SW_ERR_IO, "%s: not a regular file", path);
		else
			sw_err_set(err, SW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		sw_err_set(err, SW_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	const uint8_t *data = NULL;
	size_t size = (size_t)st.st_size;
	if (size > 0) {
		void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			sw_err_set(err, SW_ERR_IO, "%s: cannot map: %s", path, strerror(errno));
			close(fd);
			return NULL;
		}
		data = p;
	}
	if (id) {
		id->fd = fd;
		id->st = st;
	} else {
		close(fd);
	}
	struct sw_bsym *b = NULL;
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		uint8_t *text;
		size_t len;
		struct sw_err gzerr = {0};
		enum sw_err_code rc = sw_gz_inflate(data, size, sw_gz_limit(size), path, &text,
		                                    &len, &gzerr);
		munmap((void *)data, size);
		if (!text) {
			sw_err_set(err, gzerr.code, "%s", gzerr.msg);
			goto fail;
		}
		b = sw_bsym_parse((const char *)text, len, path, err);
		if (!b) {
			free(text);
			goto fail;
		}
		b->heap = text;
		if (rc != SW_OK) {
			/* Truncated or damaged gzip: what inflated is still used. */
			b->errors++;
			sw_err_set(err, SW_ERR_CORRUPT, "%s", gzerr.msg);
		}
		return b;
	}
	b = sw_bsym_parse((const char *)data, size, path, err);
	if (!b) {
		if (data)
			munmap((void *)data, size);
		goto fail;
	}
	b->map = (void *)data;
	b->map_len = size;
	return b;
fail:
	if (id) {
		close(id->fd);
		id->fd = -1;
	}
	return NULL;
}

struct sw_bsym *sw_bsym_load_file(const char *path, struct sw_err *err)
{
	return load_source(path, NULL, err);
}

/* ---- the index (symbols/sym_index.h) ----------------------------------- */

/* The provider fields of an index header (struct sym_index_content.meta). */
enum {
	META_ERRORS,
	META_HAS_MODULE,
	META_WIN_MAX_SIZE,
	META_MODULE_LINE,           /* offset and length of the MODULE line */
	META_MODULE_LINE_LEN,
	META_MODULE_FIELDS,         /* os, arch, id, name: offset and length each */
	META_MODULE_LINE_CRC = META_MODULE_FIELDS + 8,
	META_CFI_NAMES,             /* the decoded CFI rules' name table: offset in */
	META_CFI_NAMES_LEN_CRC,     /* the decoded section; length << 32 | CRC-32 */
};

static const uint32_t index_elem[SYM_SEC_COUNT] = {
	[SYM_SEC_TEXT] = 1,
	[SYM_SEC_FUNCS] = sizeof(struct bsym_func),
	[SYM_SEC_PUBLICS] = sizeof(struct bsym_public),
	[SYM_SEC_CFI] = sizeof(struct bsym_range),
	[SYM_SEC_WIN] = sizeof(struct bsym_range),
	[SYM_SEC_FILES] = sizeof(struct bsym_named),
	[SYM_SEC_ORIGINS] = sizeof(struct bsym_named),
	[SYM_SEC_FUNC_FENCES] = sizeof(uint64_t),
	[SYM_SEC_PUBLIC_FENCES] = sizeof(uint64_t),
	[SYM_SEC_CFI_FENCES] = sizeof(uint64_t),
	[SYM_SEC_DECODED] = 1,
};

static size_t nfences(size_t n)
{
	return (n + BSYM_FENCE - 1) / BSYM_FENCE;
}

/* How an indexed file falls back to its source; shared by threads. */
struct bsym_fallback {
	pthread_mutex_t lock;
	struct sw_sym_cache *cache;
	char *source, *debug_file, *debug_id;
	bool tried;                 /* under lock */
	struct sw_bsym *_Atomic parsed;
	struct sw_err warn;         /* why it fell back (set once, under lock) */
};

static void fallback_free(struct bsym_fallback *fb)
{
	if (!fb)
		return;
	pthread_mutex_destroy(&fb->lock);
	sw_bsym_free(atomic_load(&fb->parsed));
	free(fb->source);
	free(fb->debug_file);
	free(fb->debug_id);
	free(fb);
}

/* The top level over a fence of nf entries (struct sw_bsym.func_top):
 * none for a short fence or without memory (the searches then use the
 * fence alone); false when the fence is damaged. */
static bool make_top(const struct sw_bsym *b, const uint64_t *fence, size_t nf, uint64_t **top)
{
	*top = NULL;
	if (nf <= 4 * BSYM_FENCE)
		return true;
	if (!bsym_rec_ok(b, fence, nf * sizeof *fence))
		return false;
	size_t nt = nfences(nf);
	*top = malloc(nt * sizeof **top);
	for (size_t i = 0; *top && i < nt; i++)
		(*top)[i] = fence[i * BSYM_FENCE];
	return true;
}

/* A struct sw_bsym over an open index: arrays in its mapping, the MODULE
 * line copied out. NULL when that line's bytes are damaged or memory ran
 * out (ix is closed then). */
static struct sw_bsym *from_index(struct sym_index *ix, const uint64_t *meta)
{
	struct sw_bsym *b = calloc(1, sizeof *b);
	if (!b) {
		sym_index_close(ix);
		return NULL;
	}
	b->idx = ix;
	b->len = (size_t)sym_index_text_len(ix);
	b->errors = (uint32_t)meta[META_ERRORS];
	b->win_max_size = (uint32_t)meta[META_WIN_MAX_SIZE];
	uint64_t n;
	b->funcs = (struct bsym_func *)sym_index_section(ix, SYM_SEC_FUNCS, &n);
	b->nfuncs = (size_t)n;
	b->pubs = (struct bsym_public *)sym_index_section(ix, SYM_SEC_PUBLICS, &n);
	b->npubs = (size_t)n;
	b->cfi = (struct bsym_range *)sym_index_section(ix, SYM_SEC_CFI, &n);
	b->ncfi = (size_t)n;
	b->win = (struct bsym_range *)sym_index_section(ix, SYM_SEC_WIN, &n);
	b->nwin = (size_t)n;
	b->files = (struct bsym_named *)sym_index_section(ix, SYM_SEC_FILES, &n);
	b->nfiles = (size_t)n;
	b->origins = (struct bsym_named *)sym_index_section(ix, SYM_SEC_ORIGINS, &n);
	b->norigins = (size_t)n;
	b->func_fence = sym_index_section(ix, SYM_SEC_FUNC_FENCES, &n);
	if (n != nfences(b->nfuncs))
		goto bad;
	b->pub_fence = sym_index_section(ix, SYM_SEC_PUBLIC_FENCES, &n);
	if (n != nfences(b->npubs))
		goto bad;
	b->cfi_fence = sym_index_section(ix, SYM_SEC_CFI_FENCES, &n);
	if (n != nfences(b->ncfi))
		goto bad;
	if (!make_top(b, b->func_fence, nfences(b->nfuncs), &b->func_top) ||
	    !make_top(b, b->pub_fence, nfences(b->npubs), &b->pub_top) ||
	    !make_top(b, b->cfi_fence, nfences(b->ncfi), &b->cfi_top))
		goto bad;
	/* The decoded CFI rules' register names, read once. */
	uint64_t names_len = meta[META_CFI_NAMES_LEN_CRC] >> 32;
	if (names_len > 0) {
		size_t n_names = (size_t)(names_len / sizeof *b->cfi_names);
		/* Sizes from the header are checked before they size anything:
		 * its CRC says the header is the one written, not that the
		 * writer was sane (a length of 4 GiB was allocated, then
		 * refused: fuzz_sym_index). */
		if (names_len % sizeof *b->cfi_names != 0 || n_names > BSYM_CFI_NAMES_MAX)
			goto bad;
		b->cfi_names = malloc((size_t)names_len);
		b->cfi_regs = calloc(n_names, sizeof *b->cfi_regs);
		if (!b->cfi_names || !b->cfi_regs ||
		    !sym_index_read_decoded(ix, meta[META_CFI_NAMES], (size_t)names_len,
		                            (uint32_t)meta[META_CFI_NAMES_LEN_CRC],
		                            (char *)b->cfi_names))
			goto bad;
		b->ncfi_names = n_names;
		for (size_t k = 0; k < n_names; k++) {
			if (b->cfi_names[k].len > BSYM_CFI_NAME_MAX)
				goto bad;
			atomic_init(&b->cfi_regs[k], BSYM_REG_UNRESOLVED);
		}
	}
	/* Name slots (copy_named); none when out of memory: names are read
	 * each time then. */
	b->file_names = b->nfiles ? calloc(b->nfiles, sizeof *b->file_names) : NULL;
	b->origin_names = b->norigins ? calloc(b->norigins, sizeof *b->origin_names) : NULL;
	if (meta[META_HAS_MODULE]) {
		uint64_t off = meta[META_MODULE_LINE], len = meta[META_MODULE_LINE_LEN];
		if (len > 4096 || !(b->module_line = malloc(len + 1)) ||
		    !sym_index_read_text(ix, off, (size_t)len, (uint32_t)meta[META_MODULE_LINE_CRC],
		                         b->module_line))
			goto bad;
		struct sw_bsym_module *m = &b->module;
		const char **f[4] = {&m->os, &m->arch, &m->id, &m->name};
		size_t *l[4] = {&m->os_len, &m->arch_len, &m->id_len, &m->name_len};
		for (int i = 0; i < 4; i++) {
			uint64_t fo = meta[META_MODULE_FIELDS + 2 * i];
			uint64_t fl = meta[META_MODULE_FIELDS + 2 * i + 1];
			if (fo > len || fl > len - fo)
				goto bad;
			*f[i] = b->module_line + fo;
			*l[i] = (size_t)fl;
		}
		b->has_module = true;
	}
	return b;
bad:
	sw_bsym_free(b);
	return NULL;
}

/* ---- decoded records ----------------------------------------------------
 *
 * A FUNC decodes when it has no INLINE records (their chains stay text):
 *     uleb param size, uleb name length, the name; then to the end, per
 *     line record lookup_func could pick (it parses, size > 0), in file
 *     order: sleb addr - the previous record's end (the first: the FUNC's
 *     address), uleb size, sleb line - the previous line, uleb file
 * A line record of a few bytes instead of a dozen or two of text, read
 * without parsing. */

/* The usual line record, "<hex> <hex> <dec> <dec>" with single spaces,
 * at most 16 hex and 9 decimal digits, ended by a newline (no CR) or e:
 * the values parse_line_fields gives it and where the line ends (*eol),
 * in one pass. False: another shape, for the general path to judge. */
static bool plain_line_fields(const char *p, const char *e, struct line_fields *lf,
                              const char **eol)
{
	uint64_t v[4];
	for (int field = 0; field < 4; field++) {
		const char *start = p;
		uint64_t x = 0;
		unsigned d;
		if (field < 2) {
			while (p < e && (d = sw_hex_digit1[(unsigned char)*p]) != 0) {
				x = x << 4 | (d - 1);
				p++;
			}
		} else {
			while (p < e && *p >= '0' && *p <= '9')
				x = x * 10 + (uint64_t)(*p++ - '0');
		}
		size_t n = (size_t)(p - start);
		if (n == 0 || n > (field < 2 ? 16u : 9u))
			return false;
		if (field < 3) {
			if (p >= e || *p != ' ')
				return false;
			p++;
		}
		v[field] = x;
	}
	if (p < e && *p != '\n')
		return false;
	/* Field by field: a struct copy here is two 16-byte loads of four
	 * 8-byte stores just made, which store forwarding cannot serve. */
	lf->addr = v[0];
	lf->size = v[1];
	lf->line = (int64_t)v[2];
	lf->file = (int64_t)v[3];
	*eol = p;
	return true;
}

static bool encode_func(const struct sw_bsym *b, const struct bsym_func *f,
                        struct bsym_bytes *o)
{
	if (f->end < f->off || f->end > b->len)
		return false;
	const char *line = b->text + f->off, *end = b->text + f->end;
	const char *nl = bsym_line_end(line, end);
	struct func_fields ff;
	if (nl - line < 5 || !parse_func_fields(line + 5, bsym_trim_cr(line, nl), true, &ff))
		return false;
	size_t start = o->n;
	bsym_put_uleb(o, ff.param);
	bsym_put_uleb(o, ff.name_len);
	bsym_bytes_put(o, ff.name, ff.name_len);
	uint64_t prev_end = f->addr;
	int64_t prev_line = 0;
	for (const char *p = nl + 1; p < end; p = nl + 1) {
		struct line_fields lf;
		bool ok = plain_line_fields(p, end, &lf, &nl);
		if (!ok) {
			nl = bsym_line_end(p, end);
			const char *e = bsym_trim_cr(p, nl);
			if (e == p)
				continue;
			if (*p == 'I' && starts(p, e, "INLINE ", 7)) {
				o->n = start;
				return false;
			}
			ok = sw_hex_digit(*p) >= 0 && parse_line_fields(p, e, &lf);
		}
		if (ok && lf.size > 0) {
			if (!bsym_bytes_room(o, 40))
				return false;
			bsym_put_sleb(o, (int64_t)(lf.addr - prev_end));
			bsym_put_uleb(o, lf.size);
			bsym_put_sleb(o, lf.line - prev_line);
			bsym_put_uleb(o, (uint64_t)lf.file);
			prev_end = lf.addr + lf.size;
			prev_line = lf.line;
		}
	}
	return !o->oom;
}

/* ---- writing the index --------------------------------------------------
 *
 * The records go to the writer CHUNK at a time, each patched on its way:
 * a record that decodes names its bytes in the decoded section; any other
 * names its text, which for a .sym.gz the index holds compacted (only the
 * text of records that did not decode, and the MODULE line first: gen48k's
 * 8.8 MB of text per module leave ~0.1 MB), and for a plain .sym is read
 * from the source at the offset it has there. The writer holds a few
 * chunks and a record's decoded bytes, never a copy of an array (rustc's
 * CFI array is 96 MB). Two passes: the first hands over the records and
 * decoded bytes and gives each kept text its place, the second (text kept
 * only) copies those texts, in the same order. */
enum { CHUNK_RECORDS = 256, CHUNK_BYTES = CHUNK_RECORDS * sizeof(struct bsym_func) };

struct chunk {
	enum sym_index_section_id sec;
	size_t elem, n;
	uint64_t first;             /* the first buffered record's index */
	_Alignas(8) unsigned char buf[CHUNK_BYTES];
};

struct index_out {
	struct sym_index_writer *w;
	const struct sw_bsym *b;
	bool store_text;
	uint64_t text_pos;          /* where the next kept text goes */
	uint64_t module_off, module_len; /* the MODULE line in the source */
	uint8_t *decoded;           /* a bit per FUNC, then per CFI record: it decoded */
	struct bsym_bytes scratch;  /* one record's decoded bytes */
	struct bsym_cfi_names names;
};

static void chunk_flush(struct index_out *o, struct chunk *c)
{
	sym_index_put_records(o->w, c->sec, c->first, c->buf, c->n);
	c->first += c->n;
	c->n = 0;
}

/* Room for the next record of c's section, to be filled in place. */
static void *chunk_slot(struct index_out *o, struct chunk *c)
{
	if ((c->n + 1) * c->elem > CHUNK_BYTES)
		chunk_flush(o, c);
	return c->buf + c->n++ * c->elem;
}

static void chunk_init(struct chunk *c, enum sym_index_section_id sec)
{
	c->sec = sec;
	c->elem = index_elem[sec];
	c->n = 0;
	c->first = 0;
}

/* The offset of a record's text [off, off + len) in the index's text. */
static uint64_t text_slot(struct index_out *o, uint64_t off, uint64_t len)
{
	if (!o->store_text)
		return off;
	uint64_t at = o->text_pos;
	o->text_pos += len;
	return at;
}

/* Text [off, off + len) of the source, into the index's text (pass 2). */
static void text_copy(struct index_out *o, uint64_t off, uint64_t len)
{
	sym_index_put_text(o->w, o->b->text + off, (size_t)len);
}

static bool bit(const uint8_t *bits, size_t i)
{
	return bits[i / 8] >> (i % 8) & 1;
}

/* The decoded bytes in o->scratch into the index: their offset. */
static uint64_t put_scratch(struct index_out *o, uint32_t *crc)
{
	*crc = libdeflate_crc32(0, o->scratch.p, o->scratch.n);
	return sym_index_put_decoded(o->w, o->scratch.p, o->scratch.n);
}

static void put_func(struct index_out *o, struct chunk *c, size_t i)
{
	const struct sw_bsym *b = o->b;
	struct bsym_func *f = chunk_slot(o, c);
	*f = b->funcs[i];
	o->scratch.n = 0;
	if (encode_func(b, f, &o->scratch) && !o->scratch.oom) {
		f->off = put_scratch(o, &f->crc);
		f->end = f->off + o->scratch.n;
		f->flags |= BSYM_DECODED;
		o->decoded[i / 8] |= (uint8_t)(1u << (i % 8));
	} else {
		uint64_t len = f->end - f->off;
		f->crc = libdeflate_crc32(0, b->text + f->off, (size_t)len);
		f->off = text_slot(o, f->off, len);
		f->end = f->off + len;
	}
}

static void put_cfi(struct index_out *o, struct chunk *c, size_t j)
{
	const struct sw_bsym *b = o->b;
	struct bsym_range *r = chunk_slot(o, c);
	*r = b->cfi[j];
	o->scratch.n = 0;
	if (bsym_cfi_encode(b, r, &o->names, &o->scratch) && !o->scratch.oom &&
	    o->scratch.n <= UINT32_MAX) {
		r->off = put_scratch(o, &r->crc);
		r->len = (uint32_t)o->scratch.n;
		r->aux |= BSYM_DECODED;
		size_t k = b->nfuncs + j;
		o->decoded[k / 8] |= (uint8_t)(1u << (k % 8));
	} else {
		r->crc = libdeflate_crc32(0, b->text + r->off, r->len);
		r->off = text_slot(o, r->off, r->len);
	}
}

/* FUNC and CFI records by address, a FUNC before the CFI record at its
 * address: a walk looks a frame's function up and then unwinds it, and
 * the second read finds its decoded bytes in the cache lines the first
 * one fetched. Pass 1 (copy false) hands them over; pass 2 copies the
 * texts of those that did not decode, in the same order. */
static void put_funcs_and_cfi(struct index_out *o, bool copy)
{
	const struct sw_bsym *b = o->b;
	struct chunk fc, cc;
	chunk_init(&fc, SYM_SEC_FUNCS);
	chunk_init(&cc, SYM_SEC_CFI);
	size_t i = 0, j = 0;
	while (i < b->nfuncs || j < b->ncfi) {
		if (j >= b->ncfi || (i < b->nfuncs && b->funcs[i].addr <= b->cfi[j].addr)) {
			if (!copy)
				put_func(o, &fc, i);
			else if (!bit(o->decoded, i))
				text_copy(o, b->funcs[i].off, b->funcs[i].end - b->funcs[i].off);
			i++;
		} else {
			if (!copy)
				put_cfi(o, &cc, j);
			else if (!bit(o->decoded, b->nfuncs + j))
				text_copy(o, b->cfi[j].off, b->cfi[j].len);
			j++;
		}
	}
	if (!copy) {
		chunk_flush(o, &fc);
		chunk_flush(o, &cc);
	}
}

/* An array of records read as text: where each one's text offset and
 * length lie in it. */
struct text_array {
	enum sym_index_section_id sec;
	const void *recs;
	size_t n, elem, off_at, len_at, crc_at;
};

/* The records that are read as text: PUBLIC, STACK WIN, FILE and
 * INLINE_ORIGIN, each (off, len) moved into the index's text (pass 1) or
 * its text copied there (pass 2). */
static void put_text_records(struct index_out *o, bool copy)
{
	const struct sw_bsym *b = o->b;
	const struct text_array arrays[] = {
		{SYM_SEC_PUBLICS, b->pubs, b->npubs, sizeof *b->pubs,
		 offsetof(struct bsym_public, off), offsetof(struct bsym_public, len),
		 offsetof(struct bsym_public, crc)},
		{SYM_SEC_WIN, b->win, b->nwin, sizeof *b->win,
		 offsetof(struct bsym_range, off), offsetof(struct bsym_range, len),
		 offsetof(struct bsym_range, crc)},
		{SYM_SEC_FILES, b->files, b->nfiles, sizeof *b->files,
		 offsetof(struct bsym_named, off), offsetof(struct bsym_named, len),
		 offsetof(struct bsym_named, crc)},
		{SYM_SEC_ORIGINS, b->origins, b->norigins, sizeof *b->origins,
		 offsetof(struct bsym_named, off), offsetof(struct bsym_named, len),
		 offsetof(struct bsym_named, crc)},
	};
	for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
		const struct text_array *t = &arrays[k];
		struct chunk c;
		chunk_init(&c, t->sec);
		for (size_t i = 0; i < t->n; i++) {
			const char *rec = (const char *)t->recs + i * t->elem;
			uint64_t off;
			uint32_t len;
			memcpy(&off, rec + t->off_at, sizeof off);
			memcpy(&len, rec + t->len_at, sizeof len);
			if (copy) {
				text_copy(o, off, len);
				continue;
			}
			char *slot = chunk_slot(o, &c);
			memcpy(slot, rec, t->elem);
			uint32_t crc = libdeflate_crc32(0, o->b->text + off, len);
			memcpy(slot + t->crc_at, &crc, sizeof crc);
			off = text_slot(o, off, len);
			memcpy(slot + t->off_at, &off, sizeof off);
		}
		if (!copy)
			chunk_flush(o, &c);
	}
}

/* The fences: the address of every BSYM_FENCE-th FUNC, PUBLIC and CFI
 * record (the first field of each). */
static void put_fences(struct index_out *o)
{
	const struct sw_bsym *b = o->b;
	const void *arrays[3] = {b->funcs, b->pubs, b->cfi};
	const size_t n[3] = {b->nfuncs, b->npubs, b->ncfi};
	const size_t elem[3] = {sizeof *b->funcs, sizeof *b->pubs, sizeof *b->cfi};
	struct chunk c;
	for (int k = 0; k < 3; k++) {
		chunk_init(&c, (enum sym_index_section_id)(SYM_SEC_FUNC_FENCES + k));
		for (size_t i = 0; i < nfences(n[k]); i++)
			memcpy(chunk_slot(o, &c), (const char *)arrays[k] + i * BSYM_FENCE * elem[k],
			       sizeof(uint64_t));
		chunk_flush(o, &c);
	}
}

/* The MODULE line: its place in the text (the first of the kept texts),
 * its fields' offsets in it. */
static void module_meta(struct index_out *o, struct sym_index_tail *t)
{
	const struct sw_bsym *b = o->b;
	const struct sw_bsym_module *m = &b->module;
	const char *line = m->os - strlen("MODULE ");
	while (line > b->text && line[-1] != '\n')
		line--;
	const char *e = bsym_trim_cr(line, bsym_line_end(line, b->text + b->len));
	o->module_off = (uint64_t)(line - b->text);
	o->module_len = (uint64_t)(e - line);
	t->meta[META_MODULE_LINE] = text_slot(o, (uint64_t)(line - b->text), (uint64_t)(e - line));
	t->meta[META_MODULE_LINE_LEN] = (uint64_t)(e - line);
	t->meta[META_MODULE_LINE_CRC] = libdeflate_crc32(0, line, (size_t)(e - line));
	const char *f[4] = {m->os, m->arch, m->id, m->name};
	const size_t l[4] = {m->os_len, m->arch_len, m->id_len, m->name_len};
	for (int i = 0; i < 4; i++) {
		t->meta[META_MODULE_FIELDS + 2 * i] = (uint64_t)(f[i] - line);
		t->meta[META_MODULE_FIELDS + 2 * i + 1] = l[i];
	}
}

/* Writes b's index through w (sym_index_write_start .. finish). */
static void write_records(struct sym_index_writer *w, const struct sw_bsym *b,
                          const struct stat *source, struct sw_err *warn)
{
	struct index_out o = {.w = w, .b = b, .store_text = b->heap != NULL};
	size_t nbits = b->nfuncs + b->ncfi;
	o.decoded = calloc(nbits / 8 + 1, 1);
	if (!o.decoded) {
		sym_index_write_abandon(w);
		return;
	}
	struct sym_index_layout l = {.source = source, .store_text = o.store_text};
	memcpy(l.elem, index_elem, sizeof index_elem);
	l.count[SYM_SEC_FUNCS] = b->nfuncs;
	l.count[SYM_SEC_PUBLICS] = b->npubs;
	l.count[SYM_SEC_CFI] = b->ncfi;
	l.count[SYM_SEC_WIN] = b->nwin;
	l.count[SYM_SEC_FILES] = b->nfiles;
	l.count[SYM_SEC_ORIGINS] = b->norigins;
	l.count[SYM_SEC_FUNC_FENCES] = nfences(b->nfuncs);
	l.count[SYM_SEC_PUBLIC_FENCES] = nfences(b->npubs);
	l.count[SYM_SEC_CFI_FENCES] = nfences(b->ncfi);
	struct sym_index_tail t = {0};
	t.meta[META_ERRORS] = b->errors;
	t.meta[META_HAS_MODULE] = b->has_module;
	t.meta[META_WIN_MAX_SIZE] = b->win_max_size;
	sym_index_write_start(w, &l);
	/* Pass 1: records and decoded bytes; each kept text gets its place. */
	if (b->has_module)
		module_meta(&o, &t);
	put_funcs_and_cfi(&o, false);
	put_text_records(&o, false);
	put_fences(&o);
	uint64_t names_len = o.names.n * sizeof o.names.v[0];
	t.meta[META_CFI_NAMES] = sym_index_put_decoded(w, o.names.v, (size_t)names_len);
	t.meta[META_CFI_NAMES_LEN_CRC] =
		names_len << 32 | libdeflate_crc32(0, o.names.v, (size_t)names_len);
	/* Pass 2: the kept texts, in the order pass 1 placed them. */
	if (o.store_text) {
		if (b->has_module)
			text_copy(&o, o.module_off, o.module_len);
		put_funcs_and_cfi(&o, true);
		put_text_records(&o, true);
	} else {
		t.text_len = b->len;
		t.text_crc = libdeflate_crc32(0, b->text, b->len);
	}
	sym_index_write_finish(w, &t, warn);
	bsym_cfi_names_free(&o.names);
	bsym_bytes_free(&o.scratch);
	free(o.decoded);
}

/* The second half of writing b's index (write_records), which runs beside
 * the walk: b's text and arrays are read-only (the index's records get
 * their CRCs in the writer's copies; a parsed file's own are never read). */
struct bsym_writer {
	pthread_t thread;
	struct sw_bsym *b;
	struct sym_index_writer *w;
	struct source_id id;
	struct sym_index_build *claim; /* ended once the index is written */
};

static void *write_index(void *arg)
{
	struct bsym_writer *bw = arg;
	struct sw_sym_cache *cache = sym_index_writer_cache(bw->w);
	sym_index_cache_turn(cache, true);
	/* The source changed while it was read: no index (the next run
	 * makes one). */
	if (!source_unchanged(&bw->id)) {
		sym_index_write_abandon(bw->w);
	} else {
		struct sw_err werr = {0};
		write_records(bw->w, bw->b, &bw->id.st, &werr); /* a late failure: just no index */
	}
	sym_index_cache_turn(cache, false);
	close(bw->id.fd);
	sym_index_build_done(cache, bw->claim);
	return NULL;
}

/* Writes the index of b, parsed from the source id was read from, unless
 * the file had bad records (its load messages, a damaged gzip's for one,
 * are the source's to give, every time). The directories and temporary
 * file are made here (their failures are the warnings a user gets, in
 * *warn); the rest on a thread of its own when one can be started,
 * joined by sw_bsym_free. */
static void index_source(struct sw_sym_cache *cache, const char *path, const char *debug_file,
                         const char *debug_id, struct sw_bsym *b, struct source_id *id,
                         struct sym_index_build *claim, struct sw_err *warn)
{
	struct sw_err werr = {0};
	struct sym_index_writer *w = NULL;
	struct bsym_writer *bw = NULL;
	if (b->errors == 0 && !b->unindexable)
		w = sym_index_write_begin(cache, path, debug_file, debug_id, &werr);
	if (werr.code != SW_OK && warn && warn->code == SW_OK)
		*warn = werr;
	if (w && (bw = malloc(sizeof *bw)) != NULL) {
		*bw = (struct bsym_writer){.b = b, .w = w, .id = *id, .claim = claim};
		if (sw_thread_create(&bw->thread, write_index, bw)) {
			b->writer = bw;
			return;
		}
	}
	if (w) {
		struct bsym_writer now = {.b = b, .w = w, .id = *id, .claim = claim};
		write_index(&now);
	} else {
		close(id->fd);
		sym_index_build_done(cache, claim);
	}
	free(bw);
}

/* Waits for b's index to be written (if it is being written). */
static void join_writer(struct sw_bsym *b)
{
	if (b->writer) {
		pthread_join(b->writer->thread, NULL);
		free(b->writer);
		b->writer = NULL;
	}
}

struct sw_bsym *sw_bsym_load_cached(const char *path, struct sw_sym_cache *cache,
                                    const char *debug_file, const char *debug_id,
                                    struct sw_err *err, struct sw_err *warn)
{
	sw_err_clear(warn);
	if (!cache)
		return sw_bsym_load_file(path, err);
	struct bsym_fallback *fb = calloc(1, sizeof *fb);
	if (!fb || pthread_mutex_init(&fb->lock, NULL) != 0) {
		free(fb);
		return sw_bsym_load_file(path, err);
	}
	fb->cache = cache;
	fb->source = strdup(path);
	fb->debug_file = strdup(debug_file);
	fb->debug_id = strdup(debug_id);
	if (!fb->source || !fb->debug_file || !fb->debug_id) {
		fallback_free(fb);
		return sw_bsym_load_file(path, err);
	}
	struct sym_index *ix;
	uint64_t meta[SYM_INDEX_NMETA];
	enum sym_index_open_status st =
		sym_index_open(cache, path, debug_file, debug_id, index_elem, &ix, meta, warn);
	/* Another thread of this process parsing the same file for its index:
	 * wait for it and map what it wrote, rather than parse it too. */
	struct sym_index_build *claim = NULL;
	if (st == SYM_INDEX_ABSENT && !sym_index_build_claim(cache, path, debug_file, debug_id, &claim))
		st = sym_index_open(cache, path, debug_file, debug_id, index_elem, &ix, meta, warn);
	if (st == SYM_INDEX_OPENED) {
		char ipath[4096];
		snprintf(ipath, sizeof ipath, "%s", sym_index_path(ix));
		struct sw_bsym *b = from_index(ix, meta);
		if (b) {
			b->fb = fb;
			if (b->errors)
				sw_err_set(err, SW_ERR_CORRUPT, "%s: %u bad record%s", path, b->errors,
				           b->errors == 1 ? "" : "s");
			return b;
		}
		sw_err_set(warn, SW_ERR_CORRUPT,
		           "%s: symbol index ignored (damaged block); rebuilt from the source", ipath);
	} else if (st == SYM_INDEX_SOURCE_GONE) {
		sw_err_clear(warn); /* sw_bsym_load_file says why */
	}
	fallback_free(fb);
	struct source_id id;
	struct sw_bsym *b = load_source(path, &id, err);
	if (b)
		index_source(cache, path, debug_file, debug_id, b, &id, claim, warn);
	else
		sym_index_build_done(cache, claim);
	return b;
}

/* b, or once b's index failed a check, its source parsed again (and the
 * index rewritten from it): NULL when the source cannot be loaded. */
static const struct sw_bsym *bsym_current(const struct sw_bsym *b)
{
	if (!b->idx || !sym_index_failed(b->idx))
		return b;
	struct bsym_fallback *fb = b->fb;
	struct sw_bsym *parsed = atomic_load(&fb->parsed);
	if (parsed)
		return parsed;
	pthread_mutex_lock(&fb->lock);
	if (!fb->tried) {
		fb->tried = true;
		struct sw_err err = {0};
		struct source_id id;
		parsed = load_source(fb->source, &id, &err);
		sw_err_set(&fb->warn, SW_ERR_CORRUPT,
		           "%s: symbol index damaged; symbols read from %s%s",
		           sym_index_path(b->idx), fb->source,
		           parsed ? " and the index rebuilt" : "");
		if (parsed)
			index_source(fb->cache, fb->source, fb->debug_file, fb->debug_id, parsed, &id,
			             NULL, NULL);
		atomic_store(&fb->parsed, parsed);
	}
	parsed = atomic_load(&fb->parsed);
	pthread_mutex_unlock(&fb->lock);
	return parsed;
}

const char *sw_bsym_warning(const struct sw_bsym *b)
{
	if (!b->fb)
		return NULL;
	pthread_mutex_lock(&b->fb->lock);
	const char *w = b->fb->warn.code != SW_OK ? b->fb->warn.msg : NULL;
	pthread_mutex_unlock(&b->fb->lock);
	return w;
}

bool sw_bsym_is_indexed(const struct sw_bsym *b)
{
	return b->idx != NULL;
}

void sw_bsym_free(struct sw_bsym *b)
{
	if (!b)
		return;
	join_writer(b);
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
	fallback_free(b->fb);
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
	size_t nf = nfences(n), k;
	if (top) {
		/* The same search one level up: the answer's fence entry lies
		 * in the stretch of the fence that top picks (checked whole at
		 * open). */
		size_t t = upper_bound_checked((const char *)top, nfences(nf), sizeof *top, x);
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
	struct func_fields ff;
	bool data = e - sp.p >= 7 && parse_func_fields(sp.p + 7, e, false, &ff) &&
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
	struct func_fields ff;
	bool ok = e - sp.p >= 7 && parse_func_fields(sp.p + 7, e, false, &ff);
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
		return true; /* malformed: parse_line_fields says so */
	return offset >= addr && offset - addr < size;
}

static bool lookup_func(const struct sw_bsym *b, const struct bsym_func *f, uint64_t offset,
                        const char *line, const char *end, struct sw_arena *a,
                        struct sw_sym_info *out)
{
	const char *nl = bsym_line_end(line, end);
	struct func_fields ff;
	if (nl - line < 5 || !parse_func_fields(line + 5, bsym_trim_cr(line, nl), true, &ff))
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
		if (!have_line && sw_hex_digit(*p) >= 0 && line_may_cover(p, e, offset) &&
		    parse_line_fields(p, e, &lf) && lf.size > 0 && offset >= lf.addr &&
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
	struct func_fields ff;
	bool ok = e - sp.p >= 5 && parse_func_fields(sp.p + 5, e, true, &ff);
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

static const struct sw_bsym *bsym_current(const struct sw_bsym *b);

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
