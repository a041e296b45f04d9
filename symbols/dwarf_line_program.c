/* A unit's line table (DWARF 5 §6.2): the program header with its
 * directory and file tables, and the line number program run once to find
 * its sequences and to leave a checkpoint every DW_CKPT_EVERY rows; a
 * lookup restarts the program at the checkpoint below its address (see
 * dwarf_info.h). */
#include "dwarf_info.h"

#include <stdlib.h>
#include <string.h>

#include "dwarf_consts.h"
#include "dwarf_lines_internal.h"
#include "lib/bsearch.h"
#include "lib/mapped_file.h"

/* Opcodes one lookup may run from a checkpoint (DW_CKPT_EVERY rows and
 * whatever non-row opcodes lie between them, in a sane program). */
enum { MAX_LOOKUP_OPS = 4096 };
/* The bytes between two checkpoints a lookup copies onto its stack
 * (DW_CKPT_EVERY = 64 rows: 150-200 bytes on average, at most 410, in the
 * GCC and clang programs of tests/test_dwarf_lines.c and the gen48k
 * bench); more go to the heap. */
enum { LOOKUP_WINDOW = 1024 };

/* ---- the header (§6.2.4) ------------------------------------------------ */

/* A directory or file entry. path points into the line program's header,
 * or to `copy`, a path read from .debug_line_str or .debug_str (freed with
 * the table). */
struct entry {
	const char *path;
	uint64_t dir;
	char *copy;
};

struct table {
	struct entry *v;
	size_t n;
};

static void table_free(struct table *t)
{
	for (size_t i = 0; t->v && i < t->n; i++)
		free(t->v[i].copy);
	free(t->v);
}

/* A path of a string section, read from the file m when given (see
 * dw_section_string_dup), kept in e. */
static void copy_path(struct sw_span sec, const struct sw_mapped_file *m, uint64_t off,
                      struct entry *e)
{
	free(e->copy);
	e->path = e->copy = dw_section_string_dup(sec, m, off);
}

/* One field of a DWARF 5 directory or file entry (§6.2.4.1 lists the forms
 * each content type may use). False on an unknown form. */
static bool entry_field(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                        struct sw_dcur *c, uint8_t offset_size, uint64_t type, uint64_t form,
                        struct entry *e)
{
	bool path = type == SW_DW_LNCT_path;
	uint64_t u = 0;
	switch (form) {
	case SW_DW_FORM_string: {
		const char *str = dw_inline_string(c);
		if (path && str) {
			free(e->copy);
			e->copy = NULL;
			e->path = str;
		}
		break;
	}
	case SW_DW_FORM_line_strp:
		u = sw_dcur_uint(c, offset_size);
		if (path && !c->bad)
			copy_path(s->line_str, m, u, e);
		break;
	case SW_DW_FORM_strp:
		u = sw_dcur_uint(c, offset_size);
		if (path && !c->bad)
			copy_path(s->str, m, u, e);
		break;
	case SW_DW_FORM_strp_sup:
		sw_dcur_uint(c, offset_size);
		break;
	case SW_DW_FORM_udata:
		u = sw_dcur_uleb(c);
		break;
	case SW_DW_FORM_data1:
		u = sw_dcur_u8(c);
		break;
	case SW_DW_FORM_data2:
		u = sw_dcur_uint(c, 2);
		break;
	case SW_DW_FORM_data4:
		u = sw_dcur_uint(c, 4);
		break;
	case SW_DW_FORM_data8:
		u = sw_dcur_uint(c, 8);
		break;
	case SW_DW_FORM_data16:
		sw_dcur_skip(c, 16);
		break;
	case SW_DW_FORM_block:
		sw_dcur_skip(c, sw_dcur_uleb(c));
		break;
	default:
		return false;
	}
	if (type == SW_DW_LNCT_directory_index)
		e->dir = u;
	return !c->bad;
}

/* A DWARF 5 entry table: its format, its count, its entries. */
static bool read_table_v5(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                          struct sw_dcur *c, uint8_t offset_size, struct table *t)
{
	uint8_t nformat = sw_dcur_u8(c);
	uint64_t format[2 * 255];
	for (unsigned i = 0; i < nformat; i++) {
		format[2 * i] = sw_dcur_uleb(c);
		format[2 * i + 1] = sw_dcur_uleb(c);
	}
	uint64_t count = sw_dcur_uleb(c);
	/* Every entry takes at least one byte when it has a field. */
	if (c->bad || (nformat > 0 && count > c->s.size - c->pos) || (nformat == 0 && count > 0))
		return false;
	t->v = calloc(count ? count : 1, sizeof *t->v);
	if (!t->v)
		return false;
	for (uint64_t k = 0; k < count; k++) {
		t->n++; /* freed with the table from its first field on */
		for (unsigned i = 0; i < nformat; i++)
			if (!entry_field(s, m, c, offset_size, format[2 * i], format[2 * i + 1],
			                 &t->v[k]))
				return false;
	}
	return true;
}

static bool push_entry(struct table *t, size_t *cap, struct entry e)
{
	if (t->n == *cap) {
		struct entry *nv = realloc(t->v, 2 * *cap * sizeof *nv);
		if (!nv)
			return false;
		t->v = nv;
		*cap *= 2;
	}
	t->v[t->n++] = e;
	return true;
}

/* DWARF 2-4: NUL-terminated lists; directories are numbered from 1 and
 * files' directory 0 is the compilation directory, so entry i of the
 * directory table is stored at i + 1 with slot 0 left for it. */
static bool read_dirs_v4(struct sw_dcur *c, struct table *t)
{
	size_t cap = 8;
	t->v = calloc(cap, sizeof *t->v);
	if (!t->v)
		return false;
	t->n = 1;
	for (;;) {
		const char *p = dw_inline_string(c);
		if (!p)
			return false;
		if (!*p)
			return true;
		if (!push_entry(t, &cap, (struct entry){ .path = p }))
			return false;
	}
}

static bool read_files_v4(struct sw_dcur *c, struct table *t)
{
	size_t cap = 16;
	t->v = calloc(cap, sizeof *t->v);
	if (!t->v)
		return false;
	for (;;) {
		const char *p = dw_inline_string(c);
		if (!p)
			return false;
		if (!*p)
			return true;
		uint64_t dir = sw_dcur_uleb(c);
		sw_dcur_uleb(c); /* modification time */
		sw_dcur_uleb(c); /* length */
		if (c->bad)
			return false;
		if (!push_entry(t, &cap, (struct entry){ .path = p, .dir = dir }))
			return false;
	}
}

/* dir/name, as dump_syms joins them: an absolute name stands alone, and a
 * relative directory is taken from the compilation directory. */
static uint32_t full_path(struct dw_pool *pool, const char *comp_dir, const char *dir,
                          const char *name)
{
	if (!name || !*name)
		return 0;
	if (name[0] == '/' || !dir || !*dir)
		return dw_pool_add(pool, name, strlen(name));
	size_t nc = 0;
	if (dir[0] != '/' && comp_dir && *comp_dir)
		nc = strlen(comp_dir);
	size_t nd = strlen(dir), nn = strlen(name);
	char *buf = malloc(nc + 1 + nd + 1 + nn + 1);
	if (!buf)
		return 0;
	size_t k = 0;
	if (nc) {
		memcpy(buf, comp_dir, nc);
		k = nc;
		if (buf[k - 1] != '/')
			buf[k++] = '/';
	}
	memcpy(buf + k, dir, nd);
	k += nd;
	if (buf[k - 1] != '/')
		buf[k++] = '/';
	memcpy(buf + k, name, nn);
	k += nn;
	uint32_t off = dw_pool_add(pool, buf, k);
	free(buf);
	return off;
}

static bool read_header(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                        uint64_t off, const char *comp_dir, struct dw_pool *pool,
                        struct dw_lines *out)
{
	struct dw_line_header *h = &out->h;
	struct sw_dcur c = { s->line, off, false };
	uint8_t offset_size;
	uint64_t len = dw_initial_length(&c, &offset_size);
	if (len == 0 || !sw_span_has(s->line, c.pos, len))
		return false;
	h->end = c.pos + len;
	c.s = sw_span_clip(s->line, 0, h->end);
	h->version = (uint16_t)sw_dcur_uint(&c, 2);
	if (h->version < 2 || h->version > 5)
		return false;
	h->addr_size = 0; /* from DW_LNE_set_address's length before DWARF 5 */
	if (h->version >= 5) {
		h->addr_size = sw_dcur_u8(&c);
		sw_dcur_u8(&c); /* segment selector size */
	}
	uint64_t header_length = sw_dcur_uint(&c, offset_size);
	if (c.bad || header_length > h->end - c.pos)
		return false;
	h->program = c.pos + header_length;
	h->min_inst_length = sw_dcur_u8(&c);
	if (h->version >= 4)
		sw_dcur_u8(&c); /* maximum_operations_per_instruction: VLIW only */
	h->default_is_stmt = sw_dcur_u8(&c);
	h->line_base = (int8_t)sw_dcur_u8(&c);
	h->line_range = sw_dcur_u8(&c);
	h->opcode_base = sw_dcur_u8(&c);
	uint64_t lengths = c.pos;
	if (c.bad || h->line_range == 0 || h->opcode_base == 0 ||
	    !sw_dcur_skip(&c, h->opcode_base - 1u))
		return false;
	/* Kept (a dozen bytes), so that lookups need not read the header. */
	h->std_lengths = malloc(h->opcode_base);
	if (!h->std_lengths)
		return false;
	memcpy(h->std_lengths, c.s.data + lengths, h->opcode_base - 1u);

	struct table dirs = {0}, files = {0};
	bool ok;
	if (h->version >= 5) {
		ok = read_table_v5(s, m, &c, offset_size, &dirs) &&
		     read_table_v5(s, m, &c, offset_size, &files);
	} else {
		ok = read_dirs_v4(&c, &dirs) && read_files_v4(&c, &files);
		if (ok) /* directory 0: the compilation directory */
			dirs.v[0].path = comp_dir;
	}
	out->files_from_zero = h->version >= 5;
	if (ok && files.n > 0) {
		out->files = calloc(files.n, sizeof *out->files);
		ok = out->files != NULL;
		for (size_t i = 0; ok && i < files.n; i++) {
			const struct entry *f = &files.v[i];
			const char *dir = f->dir < dirs.n ? dirs.v[f->dir].path : NULL;
			/* Directory 0 is the compilation directory itself (DWARF 5
			 * §6.2.4.1; before, dirs.v[0] was set to it above): joined to
			 * it once, a relative one (-ffile-prefix-map=DIR=., Debian's
			 * "./nptl") would come twice ("././inl.c"). The others are
			 * relative to it. */
			out->files[i] = full_path(pool, f->dir == 0 ? NULL : comp_dir, dir, f->path);
		}
		out->nfiles = ok ? files.n : 0;
	}
	table_free(&dirs);
	table_free(&files);
	return ok;
}

/* ---- the program (§6.2.5) ----------------------------------------------- */

/* The state machine's registers that rows are made of. */
struct state {
	uint64_t addr;
	uint32_t file, line;
};

/* Runs opcodes from c until one emits a row (true, *end_seq set for
 * DW_LNE_end_sequence, st holding the row, c after the opcode) or the
 * program ends or is damaged (false). The state is reset after an end of
 * sequence by the caller. */
static bool next_row(const struct dw_line_header *h, struct sw_dcur *c, struct state *st,
                     bool *end_seq)
{
	*end_seq = false;
	while (c->pos < c->s.size && !c->bad) {
		uint8_t op = sw_dcur_u8(c);
		if (op >= h->opcode_base) {
			/* Special opcode (§6.2.5.1). */
			unsigned adj = op - h->opcode_base;
			st->addr += (uint64_t)h->min_inst_length * (adj / h->line_range);
			st->line += (uint32_t)(h->line_base + (int)(adj % h->line_range));
			return true;
		}
		switch (op) {
		case 0: { /* extended (§6.2.5.3) */
			uint64_t len = sw_dcur_uleb(c);
			if (c->bad || len == 0 || len > c->s.size - c->pos)
				return false;
			uint64_t next = c->pos + len;
			uint8_t sub = sw_dcur_u8(c);
			if (sub == SW_DW_LNE_end_sequence) {
				c->pos = next;
				*end_seq = true;
				return true;
			}
			if (sub == SW_DW_LNE_set_address && len - 1 >= 1 && len - 1 <= 8)
				st->addr = sw_dcur_uint(c, (unsigned)(len - 1));
			c->pos = next;
			break;
		}
		case SW_DW_LNS_copy:
			return true;
		case SW_DW_LNS_advance_pc:
			st->addr += sw_dcur_uleb(c) * h->min_inst_length;
			break;
		case SW_DW_LNS_advance_line:
			st->line += (uint32_t)sw_dcur_sleb(c);
			break;
		case SW_DW_LNS_set_file:
			st->file = (uint32_t)sw_dcur_uleb(c);
			break;
		case SW_DW_LNS_const_add_pc:
			st->addr += (uint64_t)h->min_inst_length *
			            ((255u - h->opcode_base) / h->line_range);
			break;
		case SW_DW_LNS_fixed_advance_pc:
			st->addr += sw_dcur_uint(c, 2);
			break;
		default: {
			/* Any other standard opcode: skip the number of ULEB128
			 * operands the header gives it. */
			uint8_t n = h->std_lengths[op - 1u]; /* 1 <= op < opcode_base */
			for (uint8_t i = 0; i < n; i++)
				sw_dcur_uleb(c);
			break;
		}
		}
	}
	return false;
}

static void initial_state(struct state *st)
{
	*st = (struct state){ .addr = 0, .file = 1, .line = 1 };
}

static bool push_ckpt(struct dw_lines *l, size_t *cap, const struct state *st, uint64_t pos)
{
	if (l->nckpts == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct dw_ckpt *n = realloc(l->ckpts, ncap * sizeof *n);
		if (!n)
			return false;
		l->ckpts = n;
		*cap = ncap;
	}
	l->ckpts[l->nckpts++] = (struct dw_ckpt){ .addr = st->addr, .pos = pos,
	                                          .file = st->file, .line = st->line };
	return true;
}

static bool push_seq(struct dw_lines *l, size_t *cap, const struct dw_seq *q)
{
	if (l->nseqs == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct dw_seq *n = realloc(l->seqs, ncap * sizeof *n);
		if (!n)
			return false;
		l->seqs = n;
		*cap = ncap;
	}
	l->seqs[l->nseqs++] = *q;
	return true;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct dw_seq *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Runs the whole program once. Rows of a sequence must not go backwards
 * (§6.2.5); a sequence that does is cut there, as its rows could not be
 * searched. */
static bool index_program(const struct sw_dwarf_sections *s, struct dw_lines *l)
{
	const struct dw_line_header *h = &l->h;
	struct sw_dcur c = { sw_span_clip(s->line, 0, h->end), h->program, false };
	size_t cap_ckpts = 0, cap_seqs = 0;
	struct state st;
	initial_state(&st);
	bool in_seq = false, broken = false;
	struct dw_seq q = {0};
	uint64_t last = 0, rows = 0;
	bool end_seq;
	while (next_row(h, &c, &st, &end_seq)) {
		if (end_seq) {
			if (in_seq && !broken && st.addr >= last) {
				q.hi = st.addr;
				q.end = c.pos;
				q.count = (uint32_t)(l->nckpts - q.first);
				/* Code at 0: discarded by the linker (dump_syms drops
				 * it too). */
				if (q.lo != 0 && q.hi > q.lo && !push_seq(l, &cap_seqs, &q))
					return false;
			} else if (in_seq) {
				l->nckpts = q.first;
			}
			in_seq = broken = false;
			initial_state(&st);
			continue;
		}
		if (broken)
			continue;
		if (!in_seq) {
			in_seq = true;
			rows = 0;
			q = (struct dw_seq){ .lo = st.addr, .first = (uint32_t)l->nckpts };
		} else if (st.addr < last) {
			broken = true;
			continue;
		}
		last = st.addr;
		if (rows++ % DW_CKPT_EVERY == 0 && !push_ckpt(l, &cap_ckpts, &st, c.pos))
			return false;
		if (l->nckpts > UINT32_MAX)
			return false;
	}
	if (in_seq)
		l->nckpts = q.first; /* a sequence the program never ended */
	if (l->nseqs > 1)
		qsort(l->seqs, l->nseqs, sizeof *l->seqs, cmp_seq);
	return true;
}

void dw_lines_free(struct dw_lines *l)
{
	free(l->h.std_lengths);
	free(l->files);
	free(l->seqs);
	free(l->ckpts);
	memset(l, 0, sizeof *l);
}

bool dw_lines_read(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m, uint64_t off,
                   const char *comp_dir, struct dw_pool *pool, struct dw_lines *out)
{
	memset(out, 0, sizeof *out);
	if (!read_header(s, m, off, comp_dir, pool, out)) {
		/* A damaged header: no line table, not a failed unit. */
		dw_lines_free(out);
		return true;
	}
	if (!index_program(s, out)) {
		dw_lines_free(out);
		return false;
	}
	return true;
}

uint32_t dw_lines_file(const struct dw_lines *l, uint64_t raw)
{
	if (!l->files_from_zero) {
		if (raw == 0)
			return 0;
		raw--;
	}
	return raw < l->nfiles ? l->files[raw] : 0;
}

static uint64_t seq_lo_at(const void *set, size_t i)
{
	return ((const struct dw_seq *)set)[i].lo;
}

static uint64_t ckpt_addr_at(const void *set, size_t i)
{
	return ((const struct dw_ckpt *)set)[i].addr;
}

/* A copy of the bytes of `part` (a part of sec), read from the file m when
 * given: into buf when they fit its `cap` bytes, else onto the heap
 * (*owned, for the caller to free); the mapped bytes themselves when out
 * of memory. */
static struct sw_span copy_of(const struct sw_mapped_file *m, struct sw_span part, uint8_t *buf,
                              size_t cap, uint8_t **owned)
{
	*owned = NULL;
	uint8_t *dst = buf;
	if (part.size > cap && !(dst = *owned = malloc((size_t)part.size)))
		return part;
	sw_mapped_peek(m, part.data, (size_t)part.size, dst);
	part.data = dst;
	return part;
}

bool dw_lines_find(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                   const struct dw_lines *l, uint64_t vaddr, struct dw_row *out)
{
	/* The sequence starting nearest below vaddr that holds it. */
	size_t i = sw_upper_bound(l->seqs, l->nseqs, seq_lo_at, vaddr);
	const struct dw_seq *q = NULL;
	while (i-- > 0) {
		if (l->seqs[i].hi > vaddr) {
			q = &l->seqs[i];
			break;
		}
	}
	if (!q)
		return false;
	const struct dw_ckpt *ck = l->ckpts + q->first;
	size_t k = sw_upper_bound(ck, q->count, ckpt_addr_at, vaddr);
	if (k == 0)
		return false;
	const struct dw_ckpt *from = &ck[k - 1];
	struct state st = { .addr = from->addr, .file = from->file, .line = from->line };
	*out = (struct dw_row){ .addr = st.addr, .file = st.file, .line = st.line };
	/* The rows after `from` that can lie at or below vaddr: those up to
	 * the next checkpoint (which lies above it), or to the sequence's
	 * end. */
	uint64_t to = k < q->count ? ck[k].pos : q->end;
	struct sw_span part = sw_span_clip(s->line, from->pos, to > from->pos ? to - from->pos : 0);
	uint8_t window[LOOKUP_WINDOW], *owned;
	struct sw_dcur c = { copy_of(m, part, window, sizeof window, &owned), 0, false };
	bool end_seq;
	for (int n = 0; n < MAX_LOOKUP_OPS && next_row(&l->h, &c, &st, &end_seq); n++) {
		if (end_seq || st.addr > vaddr)
			break;
		*out = (struct dw_row){ .addr = st.addr, .file = st.file, .line = st.line };
	}
	free(owned);
	return true;
}
