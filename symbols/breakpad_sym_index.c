/* Breakpad .sym, the on-disk index (symbols/sym_index.h does the file,
 * docs/symbol-cache.md the format): a parsed file's records written beside
 * the walk, FUNC and STACK CFI records of the common shapes decoded into
 * binary; an index read back as a struct sw_bsym over its mapping; and the
 * fallback to the source, parsed again, when a check of the index fails.
 * The parse is breakpad_sym_parse.c's, lookups breakpad_sym.c's. */
#include "breakpad_sym_internal.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/hex.h"
#include "lib/thread.h"

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

/* How an indexed file falls back to its source; shared by threads. */
struct bsym_fallback {
	pthread_mutex_t lock;
	struct sw_sym_cache *cache;
	char *source, *debug_file, *debug_id;
	bool tried;                 /* under lock */
	struct sw_bsym *_Atomic parsed;
	struct sw_err warn;         /* why it fell back (set once, under lock) */
};

void bsym_fallback_free(struct bsym_fallback *fb)
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
	size_t nt = bsym_nfences(nf);
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
	if (n != bsym_nfences(b->nfuncs))
		goto bad;
	b->pub_fence = sym_index_section(ix, SYM_SEC_PUBLIC_FENCES, &n);
	if (n != bsym_nfences(b->npubs))
		goto bad;
	b->cfi_fence = sym_index_section(ix, SYM_SEC_CFI_FENCES, &n);
	if (n != bsym_nfences(b->ncfi))
		goto bad;
	if (!make_top(b, b->func_fence, bsym_nfences(b->nfuncs), &b->func_top) ||
	    !make_top(b, b->pub_fence, bsym_nfences(b->npubs), &b->pub_top) ||
	    !make_top(b, b->cfi_fence, bsym_nfences(b->ncfi), &b->cfi_top))
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
 * the values bsym_parse_line_fields gives it and where the line ends (*eol),
 * in one pass. False: another shape, for the general path to judge. */
static bool plain_line_fields(const char *p, const char *e, struct bsym_line_fields *lf,
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
	struct bsym_func_fields ff;
	if (nl - line < 5 || !bsym_parse_func_fields(line + 5, bsym_trim_cr(line, nl), true, &ff))
		return false;
	size_t start = o->n;
	bsym_put_uleb(o, ff.param);
	bsym_put_uleb(o, ff.name_len);
	bsym_bytes_put(o, ff.name, ff.name_len);
	uint64_t prev_end = f->addr;
	int64_t prev_line = 0;
	for (const char *p = nl + 1; p < end; p = nl + 1) {
		struct bsym_line_fields lf;
		bool ok = plain_line_fields(p, end, &lf, &nl);
		if (!ok) {
			nl = bsym_line_end(p, end);
			const char *e = bsym_trim_cr(p, nl);
			if (e == p)
				continue;
			if (*p == 'I' && bsym_starts(p, e, "INLINE ", 7)) {
				o->n = start;
				return false;
			}
			ok = sw_hex_digit(*p) >= 0 && bsym_parse_line_fields(p, e, &lf);
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
		for (size_t i = 0; i < bsym_nfences(n[k]); i++)
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
	l.count[SYM_SEC_FUNC_FENCES] = bsym_nfences(b->nfuncs);
	l.count[SYM_SEC_PUBLIC_FENCES] = bsym_nfences(b->npubs);
	l.count[SYM_SEC_CFI_FENCES] = bsym_nfences(b->ncfi);
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

/* Is the source id was read from still what was read? */
static bool source_unchanged(const struct bsym_source *id)
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

/* The second half of writing b's index (write_records), which runs beside
 * the walk: b's text and arrays are read-only (the index's records get
 * their CRCs in the writer's copies; a parsed file's own are never read). */
struct bsym_writer {
	pthread_t thread;
	struct sw_bsym *b;
	struct sym_index_writer *w;
	struct bsym_source id;
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
                         const char *debug_id, struct sw_bsym *b, struct bsym_source *id,
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

void bsym_writer_join(struct sw_bsym *b)
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
		bsym_fallback_free(fb);
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
	bsym_fallback_free(fb);
	struct bsym_source id;
	struct sw_bsym *b = bsym_load_source(path, &id, err);
	if (b)
		index_source(cache, path, debug_file, debug_id, b, &id, claim, warn);
	else
		sym_index_build_done(cache, claim);
	return b;
}

const struct sw_bsym *bsym_current(const struct sw_bsym *b)
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
		struct bsym_source id;
		parsed = bsym_load_source(fb->source, &id, &err);
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
