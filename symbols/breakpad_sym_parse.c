/* Breakpad .sym, the text parse: one pass over the text builds sorted
 * arrays of fixed-size records (address, offset of the record's line), on
 * two threads for a large file; and loading a file (mapped, or a .sym.gz
 * inflated) to parse it. The reference semantics are those of Breakpad's
 * BasicSourceLineResolver: the first of two overlapping FUNC (or CFI INIT)
 * ranges wins, PUBLIC symbols at address 0 are ignored, and a file with bad
 * records is "corrupt" but still used. The index on disk is
 * breakpad_sym_index.c's, lookups breakpad_sym.c's. */
#include "breakpad_sym_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gz.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"
#include "lib/thread.h"

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
	struct bsym_func_fields f;
	ix->unsure_func = false;
	if (!bsym_parse_func_fields(p, e, true, &f)) {
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
	struct bsym_func_fields f;
	if (!bsym_parse_func_fields(p, e, false, &f)) {
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
	if (bsym_starts(p, e, "CFI ", 4)) {
		p = bsym_skip_spaces(p + 4, e);
		if (bsym_starts(p, e, "INIT ", 5)) {
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
		if (ix->cur_cfi >= 0 && bsym_starts(line, e, "STACK CFI ", 10)) {
			struct bsym_range *init = (struct bsym_range *)ix->cfi.data + ix->cur_cfi;
			init->len = rec_len(ix, (uint64_t)(e - ix->b->text) - init->off);
			ix->cfi_line = true;
		}
		return true;
	}
	if (bsym_starts(p, e, "WIN ", 4)) {
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
		if (bsym_starts(p, e, "FUNC ", 5))
			return index_func(ix, line, p + 5, e);
		if (bsym_starts(p, e, "FILE ", 5))
			return index_named(ix, &ix->files, bsym_skip_spaces(p + 5, e), e, false);
		break;
	case 'P':
		if (bsym_starts(p, e, "PUBLIC ", 7))
			return index_public(ix, line, p + 7, e);
		break;
	case 'S':
		if (bsym_starts(p, e, "STACK ", 6))
			return index_stack(ix, line, bsym_skip_spaces(p + 6, e), e);
		break;
	case 'I':
		if (bsym_starts(p, e, "INLINE_ORIGIN ", 14))
			return index_named(ix, &ix->origins, bsym_skip_spaces(p + 14, e), e, true);
		if (bsym_starts(p, e, "INLINE ", 7)) {
			/* Parsed at lookup; Breakpad does not count bad INLINEs as
			 * corruption, but one outside a FUNC is. */
			ix->needs_serial |= ix->unsure_func;
			if (!ix->in_func)
				bad(ix);
			extend_func(ix, e);
			return true;
		}
		if (bsym_starts(p, e, "INFO ", 5))
			return true;
		break;
	case 'M':
		if (bsym_starts(p, e, "MODULE ", 7)) {
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
		struct bsym_line_fields lf;
		ix->needs_serial |= ix->unsure_func;
		if (!ix->in_func || !bsym_parse_line_fields(p, e, &lf))
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
 * or the text's end: a record bsym_parse_line_fields accepts, read in one pass
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
	return bsym_starts(p, end, "FUNC ", 5) || bsym_starts(p, end, "PUBLIC ", 7) ||
	       bsym_starts(p, end, "STACK CFI INIT ", 15);
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

struct sw_bsym *bsym_load_source(const char *path, struct bsym_source *id, struct sw_err *err)
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
	return bsym_load_source(path, NULL, err);
}
