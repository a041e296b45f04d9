/* Reading one compilation unit, the first time a lookup lands in it: its
 * DIE tree (functions with their address ranges, inlined calls, the
 * declarations their names come from) and its line table, into compact
 * arrays sorted by address. libdwarf's DIEs are released as the walk
 * leaves them; nothing of libdwarf's is kept. */
#include "dwarf_lines_internal.h"

#include <stdlib.h>
#include <string.h>

/* Deeper DIE nesting than this is not walked (a hostile file could nest
 * without end; real code nests namespaces, classes, blocks and inlined
 * calls a few dozen levels at most). */
enum { MAX_DIE_NESTING = 200 };

static void drop_error(Dwarf_Debug dbg, Dwarf_Error e)
{
	if (e)
		dwarf_dealloc_error(dbg, e);
}

/* ---- growing arrays and the string pool --------------------------------- */

static bool grow(void **p, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 64;
	if (ncap > SIZE_MAX / elem)
		return false;
	void *np = realloc(*p, ncap * elem);
	if (!np)
		return false;
	*p = np;
	*cap = ncap;
	return true;
}

static bool pool_reserve(struct dw_pool *p, size_t more)
{
	if (p->len + more <= p->cap)
		return true;
	if (p->len + more > UINT32_MAX)
		return false; /* offsets are 32-bit */
	size_t ncap = p->cap ? p->cap : 1024;
	while (ncap < p->len + more)
		ncap *= 2;
	char *nb = realloc(p->buf, ncap);
	if (!nb)
		return false;
	p->buf = nb;
	p->cap = ncap;
	return true;
}

uint32_t dw_pool_add(struct dw_pool *p, const char *s, size_t n)
{
	if (p->len == 0) {
		if (!pool_reserve(p, 1))
			return 0;
		p->buf[p->len++] = '\0';
	}
	if (n == 0 || !pool_reserve(p, n + 1))
		return 0;
	uint32_t off = (uint32_t)p->len;
	memcpy(p->buf + p->len, s, n);
	p->buf[p->len + n] = '\0';
	p->len += n + 1;
	return off;
}

uint32_t dw_pool_join(struct dw_pool *p, uint32_t scope, const char *name)
{
	size_t nl = strlen(name);
	if (scope == 0)
		return dw_pool_add(p, name, nl);
	size_t sl = strlen(p->buf + scope);
	if (!pool_reserve(p, sl + 2 + nl + 1))
		return 0;
	uint32_t off = (uint32_t)p->len;
	char *dst = p->buf + p->len;
	memcpy(dst, p->buf + scope, sl); /* reserve may move buf: copy after it */
	memcpy(dst + sl, "::", 2);
	memcpy(dst + sl + 2, name, nl + 1);
	p->len += sl + 2 + nl + 1;
	return off;
}

/* ---- attributes --------------------------------------------------------- */

bool dw_attr_udata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, uint64_t *out)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	int rc = dwarf_attr(die, at, &a, &e);
	if (rc != DW_DLV_OK) {
		drop_error(dbg, e);
		return false;
	}
	Dwarf_Half form = 0;
	bool ok = false;
	if (dwarf_whatform(a, &form, &e) == DW_DLV_OK) {
		Dwarf_Unsigned v = 0;
		Dwarf_Off o = 0;
		if (form == DW_FORM_sec_offset) {
			ok = dwarf_global_formref(a, &o, &e) == DW_DLV_OK;
			v = o;
		} else {
			ok = dwarf_formudata(a, &v, &e) == DW_DLV_OK;
		}
		if (ok)
			*out = v;
	}
	drop_error(dbg, e);
	dwarf_dealloc_attribute(a);
	return ok;
}

uint64_t dw_attr_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		return 0;
	}
	Dwarf_Off o = 0;
	if (dwarf_global_formref(a, &o, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		o = 0;
	}
	dwarf_dealloc_attribute(a);
	return o;
}

const char *dw_attr_string(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		return NULL;
	}
	char *s = NULL;
	if (dwarf_formstring(a, &s, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		s = NULL;
	}
	dwarf_dealloc_attribute(a);
	return s && *s ? s : NULL;
}

static bool flag_set(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Bool has = 0;
	Dwarf_Error e = NULL;
	if (dwarf_hasattr(die, at, &has, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		return false;
	}
	return has != 0;
}

/* ---- address ranges (DWARF 5 §2.17) ------------------------------------- */

static bool push_pair(struct dw_pairs *out, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return true; /* empty (or reversed): covers nothing */
	if (!grow((void **)&out->v, &out->cap, out->n, 2 * sizeof *out->v))
		return false;
	out->v[2 * out->n] = lo;
	out->v[2 * out->n + 1] = hi;
	out->n++;
	return true;
}

/* DWARF <= 4 (§2.17.3): .debug_ranges pairs relative to a base address,
 * the unit's low pc until a base-address-selection entry changes it. */
static bool ranges_v4(Dwarf_Debug dbg, Dwarf_Die die, uint64_t off, uint64_t base,
                      struct dw_pairs *out)
{
	Dwarf_Ranges *r = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Unsigned bytes = 0;
	Dwarf_Off real = 0;
	Dwarf_Error e = NULL;
	if (dwarf_get_ranges_b(dbg, off, die, &real, &r, &n, &bytes, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		return true;
	}
	bool ok = true;
	for (Dwarf_Signed i = 0; i < n && ok; i++) {
		switch (r[i].dwr_type) {
		case DW_RANGES_ENTRY:
			ok = push_pair(out, base + r[i].dwr_addr1, base + r[i].dwr_addr2);
			break;
		case DW_RANGES_ADDRESS_SELECTION:
			base = r[i].dwr_addr2;
			break;
		default:
			i = n; /* DW_RANGES_END */
			break;
		}
	}
	dwarf_ranges_dealloc(dbg, r, n);
	return ok;
}

/* DWARF 5 (§2.17.3): .debug_rnglists, by offset or DW_FORM_rnglistx index;
 * libdwarf "cooks" every entry kind into final addresses. */
static bool ranges_v5(Dwarf_Debug dbg, Dwarf_Attribute a, Dwarf_Half form, uint64_t value,
                      struct dw_pairs *out)
{
	Dwarf_Rnglists_Head head = NULL;
	Dwarf_Unsigned n = 0, global = 0;
	Dwarf_Error e = NULL;
	if (dwarf_rnglists_get_rle_head(a, form, value, &head, &n, &global, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		return true;
	}
	bool ok = true;
	for (Dwarf_Unsigned i = 0; i < n && ok; i++) {
		unsigned len = 0, code = 0;
		Dwarf_Unsigned raw1 = 0, raw2 = 0, lo = 0, hi = 0;
		Dwarf_Bool no_addr = 0;
		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2, &no_addr,
		                                      &lo, &hi, &e) != DW_DLV_OK) {
			drop_error(dbg, e);
			e = NULL;
			break;
		}
		if (no_addr)
			continue;
		switch (code) {
		case DW_RLE_offset_pair:
		case DW_RLE_startx_endx:
		case DW_RLE_startx_length:
		case DW_RLE_start_end:
		case DW_RLE_start_length:
			ok = push_pair(out, lo, hi);
			break;
		default:
			break; /* base address, end of list */
		}
	}
	dwarf_dealloc_rnglists_head(head);
	return ok;
}

bool dw_die_ranges(Dwarf_Debug dbg, Dwarf_Die die, uint16_t version, uint64_t base,
                   struct dw_pairs *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Half form = 0;
	enum Dwarf_Form_Class cls = DW_FORM_CLASS_UNKNOWN;
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK) {
		if (dwarf_highpc_b(die, &hi, &form, &cls, &e) == DW_DLV_OK) {
			/* DWARF 4 §2.17.2: a constant high pc is the length. */
			if (cls == DW_FORM_CLASS_CONSTANT)
				hi += lo;
			return push_pair(out, lo, hi);
		}
	}
	drop_error(dbg, e);
	e = NULL;

	Dwarf_Attribute a = NULL;
	if (dwarf_attr(die, DW_AT_ranges, &a, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		return true;
	}
	bool ok = true;
	Dwarf_Off off = 0;
	Dwarf_Unsigned idx = 0;
	if (dwarf_whatform(a, &form, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
	} else if (form == DW_FORM_rnglistx) {
		if (dwarf_formudata(a, &idx, &e) == DW_DLV_OK)
			ok = ranges_v5(dbg, a, form, idx, out);
		else
			drop_error(dbg, e);
	} else if (form == DW_FORM_sec_offset ? dwarf_global_formref(a, &off, &e) == DW_DLV_OK
	                                      : dwarf_formudata(a, &idx, &e) == DW_DLV_OK) {
		if (form != DW_FORM_sec_offset)
			off = idx;
		ok = version >= 5 ? ranges_v5(dbg, a, form, off, out)
		                  : ranges_v4(dbg, die, off, base, out);
	} else {
		drop_error(dbg, e);
	}
	dwarf_dealloc_attribute(a);
	return ok;
}

/* ---- the DIE walk ------------------------------------------------------- */

struct unit_reader {
	Dwarf_Debug dbg;
	struct dw_unit *u;
	struct dw_unit_data *ud;
	uint64_t base;               /* the unit's low pc */
	uint32_t *files;             /* pool offsets, by line-table file index */
	size_t nfiles;
	bool files_from_zero;        /* DWARF 5 §6.2.4: file 0 is the primary file */
	size_t cap_decls, cap_funcs, cap_inlines;
	struct dw_pairs pairs;       /* scratch */
	bool oom;
};

static uint32_t file_of(const struct unit_reader *r, uint64_t raw)
{
	/* DWARF <= 4 numbers files from 1 (0: none); 5 from 0. libdwarf's
	 * dwarf_srcfiles list follows the same numbering, shifted to 0. */
	if (!r->files_from_zero) {
		if (raw == 0)
			return 0;
		raw--;
	}
	return raw < r->nfiles ? r->files[raw] : 0;
}

static void walk_children(struct unit_reader *r, Dwarf_Die parent, uint32_t scope,
                          bool in_func, uint32_t depth, int level);

static uint32_t add_decl(struct unit_reader *r, Dwarf_Die die, uint32_t scope)
{
	struct dw_unit_data *ud = r->ud;
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;
	if (dwarf_dieoffset(die, &off, &e) != DW_DLV_OK) {
		drop_error(r->dbg, e);
		return DW_NONE;
	}
	if (!grow((void **)&ud->decls, &r->cap_decls, ud->ndecls, sizeof *ud->decls)) {
		r->oom = true;
		return DW_NONE;
	}
	struct dw_decl *dc = &ud->decls[ud->ndecls];
	memset(dc, 0, sizeof *dc);
	dc->off = off;
	dc->scope = scope;
	dc->name = DW_NONE;
	dc->spec = dw_attr_ref(r->dbg, die, DW_AT_specification);
	dc->origin = dw_attr_ref(r->dbg, die, DW_AT_abstract_origin);
	const char *s = dw_attr_string(r->dbg, die, DW_AT_name);
	if (s)
		dc->dname = dw_pool_add(&ud->pool, s, strlen(s));
	s = dw_attr_string(r->dbg, die, DW_AT_linkage_name);
	if (!s)
		s = dw_attr_string(r->dbg, die, DW_AT_MIPS_linkage_name);
	if (s)
		dc->linkage = dw_pool_add(&ud->pool, s, strlen(s));
	return (uint32_t)ud->ndecls++;
}

static void visit_subprogram(struct unit_reader *r, Dwarf_Die die, uint32_t scope,
                             int level)
{
	struct dw_unit_data *ud = r->ud;
	uint32_t decl = add_decl(r, die, scope);
	if (decl == DW_NONE || flag_set(r->dbg, die, DW_AT_declaration))
		return;
	r->pairs.n = 0;
	if (!dw_die_ranges(r->dbg, die, r->u->version, r->base, &r->pairs)) {
		r->oom = true;
		return;
	}
	if (r->pairs.n == 0)
		return; /* an abstract instance (DW_AT_inline) or unused */
	/* One record per range (dump_syms writes one FUNC per range); their
	 * inlined calls are those the walk below appends. */
	size_t first = ud->nfuncs;
	for (size_t i = 0; i < r->pairs.n; i++) {
		if (!grow((void **)&ud->funcs, &r->cap_funcs, ud->nfuncs, sizeof *ud->funcs)) {
			r->oom = true;
			return;
		}
		ud->funcs[ud->nfuncs++] = (struct dw_func){
			.lo = r->pairs.v[2 * i], .hi = r->pairs.v[2 * i + 1], .decl = decl,
			.inl_begin = (uint32_t)ud->ninlines,
		};
	}
	size_t last = ud->nfuncs;
	walk_children(r, die, scope, true, 0, level + 1);
	for (size_t i = first; i < last; i++)
		ud->funcs[i].inl_end = (uint32_t)ud->ninlines;
}

static void visit_inline(struct unit_reader *r, Dwarf_Die die, uint32_t scope,
                         uint32_t depth, int level)
{
	struct dw_unit_data *ud = r->ud;
	uint64_t origin = dw_attr_ref(r->dbg, die, DW_AT_abstract_origin);
	uint64_t file = 0, line = 0;
	uint32_t call_file = 0;
	if (dw_attr_udata(r->dbg, die, DW_AT_call_file, &file))
		call_file = file_of(r, file);
	if (!dw_attr_udata(r->dbg, die, DW_AT_call_line, &line) || line > UINT32_MAX)
		line = 0;
	r->pairs.n = 0;
	if (!dw_die_ranges(r->dbg, die, r->u->version, r->base, &r->pairs)) {
		r->oom = true;
		return;
	}
	for (size_t i = 0; i < r->pairs.n; i++) {
		if (!grow((void **)&ud->inlines, &r->cap_inlines, ud->ninlines,
		          sizeof *ud->inlines)) {
			r->oom = true;
			return;
		}
		ud->inlines[ud->ninlines++] = (struct dw_inline){
			.lo = r->pairs.v[2 * i], .hi = r->pairs.v[2 * i + 1], .origin = origin,
			.call_file = call_file, .call_line = (uint32_t)line, .depth = depth,
		};
	}
	walk_children(r, die, scope, true, depth + 1, level + 1);
}

static void visit(struct unit_reader *r, Dwarf_Die die, uint32_t scope, bool in_func,
                  uint32_t depth, int level)
{
	Dwarf_Half tag = 0;
	Dwarf_Error e = NULL;
	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
		drop_error(r->dbg, e);
		return;
	}
	switch (tag) {
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type: {
		/* Scopes that qualify the names of the functions declared in
		 * them. An unnamed one qualifies as the empty name, as in
		 * dump_syms (DwarfCUToModule::ComputeQualifiedName gives a DIE
		 * without DW_AT_name an empty qualified name, which its children
		 * then extend): a function in `namespace a { namespace { ... } }`
		 * without a linkage name is printed unqualified ("callback", not
		 * "a::(anonymous namespace)::callback"); checked against
		 * crash_linux.sym in tests/test_dwarf_lines.c. */
		const char *n = dw_attr_string(r->dbg, die, DW_AT_name);
		uint32_t inner = n ? dw_pool_join(&r->ud->pool, scope, n) : 0;
		walk_children(r, die, inner, in_func, depth, level + 1);
		break;
	}
	case DW_TAG_subprogram:
		visit_subprogram(r, die, scope, level);
		break;
	case DW_TAG_inlined_subroutine:
		if (in_func)
			visit_inline(r, die, scope, depth, level);
		break;
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		if (in_func)
			walk_children(r, die, scope, in_func, depth, level + 1);
		break;
	default:
		break;
	}
}

static void walk_children(struct unit_reader *r, Dwarf_Die parent, uint32_t scope,
                          bool in_func, uint32_t depth, int level)
{
	if (level > MAX_DIE_NESTING || r->oom)
		return;
	Dwarf_Error e = NULL;
	Dwarf_Die child = NULL;
	int rc = dwarf_child(parent, &child, &e);
	while (rc == DW_DLV_OK && !r->oom) {
		visit(r, child, scope, in_func, depth, level);
		Dwarf_Die next = NULL;
		rc = dwarf_siblingof_b(r->dbg, child, 1, &next, &e);
		dwarf_dealloc_die(child);
		child = next;
	}
	if (rc == DW_DLV_OK)
		dwarf_dealloc_die(child);
	drop_error(r->dbg, e);
}

/* ---- the line table (DWARF 5 §6.2) -------------------------------------- */

struct raw_row {
	uint64_t addr;
	uint32_t file, line;
	size_t pos;
};

struct seq {
	uint64_t start;
	size_t begin, end, order;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_row(const void *a, const void *b)
{
	const struct raw_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Rows, sequence by sequence in address order, so that the row covering an
 * address is the last one at or below it (an end-of-sequence row at the
 * start of the next sequence sorts before it). Sequences at address 0 are
 * code the linker discarded (dump_syms drops them too). */
static bool read_rows(struct unit_reader *r, Dwarf_Line *lines, Dwarf_Signed n)
{
	struct raw_row *rows = calloc((size_t)n, sizeof *rows);
	struct seq *seqs = calloc((size_t)n, sizeof *seqs);
	struct dw_unit_data *ud = r->ud;
	bool ok = rows && seqs;
	size_t nrows = 0, nseqs = 0, seq_begin = 0;
	Dwarf_Error e = NULL;
	for (Dwarf_Signed i = 0; ok && i < n; i++) {
		Dwarf_Addr addr = 0;
		Dwarf_Unsigned line = 0, file = 0;
		Dwarf_Bool end = 0;
		if (dwarf_lineaddr(lines[i], &addr, &e) != DW_DLV_OK ||
		    dwarf_lineendsequence(lines[i], &end, &e) != DW_DLV_OK) {
			drop_error(r->dbg, e);
			e = NULL;
			continue;
		}
		if (dwarf_lineno(lines[i], &line, &e) != DW_DLV_OK || line > UINT32_MAX) {
			drop_error(r->dbg, e);
			e = NULL;
			line = 0;
		}
		if (dwarf_line_srcfileno(lines[i], &file, &e) != DW_DLV_OK) {
			drop_error(r->dbg, e);
			e = NULL;
			file = 0;
		}
		rows[nrows] = (struct raw_row){
			.addr = addr, .line = (uint32_t)line,
			.file = end ? DW_NONE : file_of(r, file),
		};
		nrows++;
		if (end) {
			seqs[nseqs] = (struct seq){.start = rows[seq_begin].addr, .begin = seq_begin,
			                           .end = nrows, .order = nseqs};
			nseqs++;
			seq_begin = nrows;
		}
	}
	if (ok) {
		qsort(seqs, nseqs, sizeof *seqs, cmp_seq);
		ud->lines = malloc((nrows ? nrows : 1) * sizeof *ud->lines);
		ok = ud->lines != NULL;
	}
	struct raw_row *sorted_rows = ok ? calloc(nrows ? nrows : 1, sizeof *sorted_rows) : NULL;
	ok = ok && sorted_rows;
	if (ok) {
		size_t k = 0;
		bool sorted = true;
		for (size_t s = 0; s < nseqs; s++) {
			if (seqs[s].start == 0)
				continue;
			for (size_t i = seqs[s].begin; i < seqs[s].end; i++) {
				struct raw_row row = rows[i];
				row.pos = k;
				if (k > 0 && row.addr < sorted_rows[k - 1].addr)
					sorted = false;
				sorted_rows[k++] = row;
			}
		}
		/* Overlapping sequences (malformed, or sections not relocated):
		 * still give the binary search a sorted array. */
		if (!sorted)
			qsort(sorted_rows, k, sizeof *sorted_rows, cmp_row);
		for (size_t i = 0; i < k; i++)
			ud->lines[i] = (struct dw_line){.addr = sorted_rows[i].addr,
			                                .file = sorted_rows[i].file,
			                                .line = sorted_rows[i].line};
		ud->nlines = k;
	}
	free(sorted_rows);
	free(rows);
	free(seqs);
	return ok;
}

/* The unit's file list (full paths, as libdwarf joins DW_AT_comp_dir, the
 * include directory and the name) and its line table. */
static bool read_line_table(struct unit_reader *r, Dwarf_Die cu)
{
	Dwarf_Error e = NULL;
	char **names = NULL;
	Dwarf_Signed nnames = 0;
	bool ok = true;
	Dwarf_Unsigned lversion = 0;
	Dwarf_Small tables = 0;
	Dwarf_Line_Context ctx = NULL;
	int rc = dwarf_srclines_b(cu, &lversion, &tables, &ctx, &e);
	if (rc != DW_DLV_OK) {
		drop_error(r->dbg, e);
		return true; /* no line table */
	}
	r->files_from_zero = lversion >= 5;
	if (dwarf_srcfiles(cu, &names, &nnames, &e) == DW_DLV_OK) {
		r->files = calloc(nnames > 0 ? (size_t)nnames : 1, sizeof *r->files);
		ok = r->files != NULL;
		for (Dwarf_Signed i = 0; i < nnames; i++) {
			if (ok)
				r->files[i] = dw_pool_add(&r->ud->pool, names[i], strlen(names[i]));
			dwarf_dealloc(r->dbg, names[i], DW_DLA_STRING);
		}
		dwarf_dealloc(r->dbg, names, DW_DLA_LIST);
		r->nfiles = ok ? (size_t)nnames : 0;
	} else {
		drop_error(r->dbg, e);
		e = NULL;
	}
	Dwarf_Line *lines = NULL;
	Dwarf_Signed nlines = 0;
	if (ok && tables > 0 &&
	    dwarf_srclines_from_linecontext(ctx, &lines, &nlines, &e) == DW_DLV_OK) {
		if (nlines > 0)
			ok = read_rows(r, lines, nlines);
	} else {
		drop_error(r->dbg, e);
	}
	dwarf_srclines_dealloc_b(ctx);
	return ok;
}

/* ---- the unit ----------------------------------------------------------- */

static int cmp_func(const void *a, const void *b)
{
	const struct dw_func *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

void dw_unit_data_free(struct dw_unit_data *ud)
{
	if (!ud)
		return;
	free(ud->pool.buf);
	free(ud->decls);
	free(ud->funcs);
	free(ud->funcs_maxhi);
	free(ud->inlines);
	free(ud->lines);
	free(ud);
}

bool dw_unit_read(struct sw_dwarf *d, struct dw_unit *u)
{
	struct unit_reader r = {.dbg = d->dbg, .u = u};
	Dwarf_Error e = NULL;
	Dwarf_Die cu = NULL;
	u->state = DW_UNIT_FAILED;
	if (dwarf_offdie_b(d->dbg, u->die_off, 1, &cu, &e) != DW_DLV_OK) {
		drop_error(d->dbg, e);
		return false;
	}
	r.ud = calloc(1, sizeof *r.ud);
	if (!r.ud) {
		dwarf_dealloc_die(cu);
		return false;
	}
	Dwarf_Addr base = 0;
	if (dwarf_lowpc(cu, &base, &e) == DW_DLV_OK)
		r.base = base;
	drop_error(d->dbg, e);
	dw_pool_add(&r.ud->pool, "", 0);

	bool ok = read_line_table(&r, cu);
	if (ok) {
		walk_children(&r, cu, 0, false, 0, 0);
		ok = !r.oom;
	}
	dwarf_dealloc_die(cu);
	free(r.files);
	free(r.pairs.v);

	struct dw_unit_data *ud = r.ud;
	if (ok && ud->nfuncs > 0) {
		qsort(ud->funcs, ud->nfuncs, sizeof *ud->funcs, cmp_func);
		ud->funcs_maxhi = malloc(ud->nfuncs * sizeof *ud->funcs_maxhi);
		ok = ud->funcs_maxhi != NULL;
		uint64_t m = 0;
		for (size_t i = 0; ok && i < ud->nfuncs; i++) {
			m = ud->funcs[i].hi > m ? ud->funcs[i].hi : m;
			ud->funcs_maxhi[i] = m;
		}
	}
	if (!ok) {
		dw_unit_data_free(ud);
		return false;
	}
	u->data = ud;
	u->state = DW_UNIT_READ;
	d->units_read++;
	return true;
}
