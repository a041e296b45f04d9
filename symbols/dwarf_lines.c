/* DWARF functions, lines and inline chains: opening (the index of unit
 * address ranges), lookups, and function names as dump_syms prints them.
 * Reading a unit's DIEs and line table is dwarf_lines_unit.c's job.
 *
 * A lookup may read a unit and caches names, so one struct sw_dwarf must
 * not be used by two threads at once. */
#include "dwarf_lines_internal.h"

#include <demangle.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_consts.h"
#include "elf_image.h"
#include "lib/bsearch.h"

/* How many DW_AT_specification / DW_AT_abstract_origin links a name is
 * followed through (GCC uses at most two: concrete -> abstract ->
 * declaration); a cycle in a hostile file stops here. */
enum { MAX_NAME_HOPS = 8 };
/* Deepest inline chain reported (Breakpad's processor keeps 64 too). */
enum { MAX_INLINE_DEPTH = 64 };

/* ---- the unit index ----------------------------------------------------- */

struct arange {
	uint64_t unit_off, lo, hi;
};

struct aranges {
	struct arange *v;
	size_t n, cap;
	bool oom;
};

static void add_arange(void *ctx, uint64_t unit_off, uint64_t lo, uint64_t hi)
{
	struct aranges *ar = ctx;
	if (ar->oom)
		return;
	if (ar->n == ar->cap) {
		size_t ncap = ar->cap ? ar->cap * 2 : 64;
		struct arange *nv = realloc(ar->v, ncap * sizeof *nv);
		if (!nv) {
			ar->oom = true;
			return;
		}
		ar->v = nv;
		ar->cap = ncap;
	}
	ar->v[ar->n++] = (struct arange){ .unit_off = unit_off, .lo = lo, .hi = hi };
}

static int cmp_arange(const void *a, const void *b)
{
	const struct arange *x = a, *y = b;
	if (x->unit_off != y->unit_off)
		return x->unit_off < y->unit_off ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_range(const void *a, const void *b)
{
	const struct dw_unit_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

static uint64_t arange_unit_at(const void *set, size_t i)
{
	return ((const struct arange *)set)[i].unit_off;
}

static bool push_range(struct sw_dwarf *d, size_t *cap, uint64_t lo, uint64_t hi,
                       size_t unit)
{
	if (d->nranges == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void *p = realloc(d->ranges, ncap * sizeof *d->ranges);
		if (!p)
			return false;
		d->ranges = p;
		*cap = ncap;
	}
	d->ranges[d->nranges++] = (struct dw_unit_range){.lo = lo, .hi = hi,
	                                                 .unit = (uint32_t)unit};
	return true;
}

/* One unit's ranges: its .debug_aranges entries when it has some, else its
 * unit DIE's low/high pc or DW_AT_ranges. Reads nothing below the unit
 * DIE. */
static bool index_unit(struct sw_dwarf *d, size_t unit, const struct dw_die *cu_die,
                       const struct aranges *ar, size_t *cap, struct dw_pairs *pairs)
{
	uint64_t off = d->units[unit].cu.off;
	size_t i = sw_lower_bound(ar->v, ar->n, arange_unit_at, off);
	if (i < ar->n && ar->v[i].unit_off == off) {
		for (; i < ar->n && ar->v[i].unit_off == off; i++)
			if (!push_range(d, cap, ar->v[i].lo, ar->v[i].hi, unit))
				return false;
		return true;
	}
	pairs->n = 0;
	if (!dw_die_ranges(&d->s, &d->units[unit].cu, cu_die, pairs))
		return false;
	for (size_t k = 0; k < pairs->n; k++)
		if (!push_range(d, cap, pairs->v[2 * k], pairs->v[2 * k + 1], unit))
			return false;
	return true;
}

static bool is_code_unit(const struct dw_cu *cu, uint16_t tag)
{
	/* Type units hold no code; split units live in .dwo files. */
	return (cu->unit_type == SW_DW_UT_compile || cu->unit_type == SW_DW_UT_partial ||
	        cu->unit_type == SW_DW_UT_skeleton) &&
	       (tag == SW_DW_TAG_compile_unit || tag == SW_DW_TAG_partial_unit ||
	        tag == SW_DW_TAG_skeleton_unit);
}

/* Walks the unit headers (each unit DIE, none of its children). Units
 * before a damaged header stay usable; none at all is an error. */
static enum sw_err_code index_units(struct sw_dwarf *d, struct sw_err *err)
{
	struct aranges ar = {0};
	dw_aranges_each(&d->s, add_arange, &ar);
	if (ar.oom)
		ar.n = 0;
	else if (ar.n > 0)
		qsort(ar.v, ar.n, sizeof *ar.v, cmp_arange);
	size_t cap_units = 0, cap_ranges = 0;
	struct dw_pairs pairs = {0};
	enum sw_err_code rc = SW_OK;
	struct dw_cu cu;
	for (uint64_t off = 0; off < d->s.info.size && dw_cu_read(&d->s, off, &cu); off = cu.end) {
		if (d->nunits == cap_units) {
			size_t ncap = cap_units ? cap_units * 2 : 32;
			void *p = realloc(d->units, ncap * sizeof *d->units);
			if (!p) {
				rc = sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
				break;
			}
			d->units = p;
			cap_units = ncap;
		}
		struct dw_unit *u = &d->units[d->nunits];
		*u = (struct dw_unit){ .cu = cu };
		const struct dw_abbrevs *ab = dw_unit_abbrevs(d, u);
		struct dw_die die;
		if (!ab || !dw_die_read(&d->s, &u->cu, ab, u->cu.die_off, &die) ||
		    !is_code_unit(&u->cu, die.tag)) {
			dw_abbrevs_free(&u->abbrevs);
			continue;
		}
		/* The unit's table is read again with the unit (most are never
		 * read: kept, the tables of a big program would add up). */
		dw_abbrevs_free(&u->abbrevs);
		u->abbrevs_read = false;
		bool ok = index_unit(d, d->nunits, &die, &ar, &cap_ranges, &pairs);
		d->nunits++;
		if (!ok) {
			rc = sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
			break;
		}
	}
	free(ar.v);
	free(pairs.v);
	if (rc != SW_OK)
		return rc;
	if (d->nunits == 0)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: no compilation units in .debug_info",
		                  d->name);
	if (d->nranges > 0) {
		qsort(d->ranges, d->nranges, sizeof *d->ranges, cmp_range);
		d->ranges_maxhi = malloc(d->nranges * sizeof *d->ranges_maxhi);
		if (!d->ranges_maxhi)
			return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
		uint64_t m = 0;
		for (size_t i = 0; i < d->nranges; i++) {
			m = d->ranges[i].hi > m ? d->ranges[i].hi : m;
			d->ranges_maxhi[i] = m;
		}
	}
	return SW_OK;
}

struct sw_dwarf *sw_dwarf_open_sections(const struct sw_dwarf_sections *sections,
                                        const char *name, struct sw_err *err)
{
	if (!sections->info.size) {
		sw_err_set(err, SW_ERR_FORMAT, "%s: no DWARF debug information", name);
		return NULL;
	}
	struct sw_dwarf *d = calloc(1, sizeof *d);
	char *n = strdup(name ? name : "?");
	if (!d || !n) {
		free(d);
		free(n);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	d->s = *sections;
	d->name = n;
	if (index_units(d, err) != SW_OK) {
		sw_dwarf_free(d);
		return NULL;
	}
	return d;
}

/* An ELF section as the DWARF reader takes it (inflated by the image when
 * compressed); empty when absent. */
static struct sw_span elf_section(struct sw_elf *e, const char *name)
{
	struct sw_elf_section sec;
	struct sw_span out = { NULL, 0, 0, sw_elf_info(e)->big_endian };
	if (sw_elf_section(e, name, &sec)) {
		out.data = sec.data;
		out.size = sec.size;
	}
	return out;
}

struct sw_dwarf *sw_dwarf_open(struct sw_elf *e, const char *name, struct sw_err *err)
{
	if (!e) {
		sw_err_set(err, SW_ERR_FORMAT, "%s: not an ELF file", name);
		return NULL;
	}
	struct sw_dwarf_sections s = {
		.info = elf_section(e, ".debug_info"),
		.abbrev = elf_section(e, ".debug_abbrev"),
		.str = elf_section(e, ".debug_str"),
		.line_str = elf_section(e, ".debug_line_str"),
		.str_offsets = elf_section(e, ".debug_str_offsets"),
		.addr = elf_section(e, ".debug_addr"),
		.ranges = elf_section(e, ".debug_ranges"),
		.rnglists = elf_section(e, ".debug_rnglists"),
		.line = elf_section(e, ".debug_line"),
		.aranges = elf_section(e, ".debug_aranges"),
	};
	struct sw_dwarf *d = sw_dwarf_open_sections(&s, name, err);
	if (d)
		sw_dwarf_release_read_pages(d, sw_elf_mapped_file(e));
	return d;
}

void sw_dwarf_free(struct sw_dwarf *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nunits; i++) {
		dw_unit_data_free(d->units[i].data);
		dw_abbrevs_free(&d->units[i].abbrevs);
	}
	free(d->units);
	free(d->ranges);
	free(d->ranges_maxhi);
	free(d->name);
	free(d);
}

void sw_dwarf_release_read_pages(struct sw_dwarf *d, const struct sw_mapped_file *m)
{
	d->map = m;
}

size_t sw_dwarf_units_read(const struct sw_dwarf *d, size_t *nunits)
{
	if (nunits)
		*nunits = d->nunits;
	return d->units_read;
}

/* ---- names -------------------------------------------------------------- */

/* dump_syms demangles DW_AT_linkage_name with the parameter list (libiberty
 * and __cxa_demangle print the same: "ns::f(int, char const*)"). */
static uint32_t demangled(struct dw_pool *p, const char *mangled)
{
	char *s = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI);
	if (!s)
		return 0;
	uint32_t off = dw_pool_add(p, s, strlen(s));
	free(s);
	return off;
}

static uint32_t ref_name(struct sw_dwarf *d, struct dw_unit *u, uint64_t off, int hops);

/* The qualified name of a function DIE, in the order dump_syms takes it
 * (Breakpad's DwarfCUToModule: its own demangled linkage name, else its
 * specification's name, else its abstract origin's, else DW_AT_name in its
 * enclosing namespaces and classes `scope`, else its linkage name as it
 * is). Strings are read from the file (dw_string_dup): see dwarf_info.h. */
static uint32_t die_name(struct sw_dwarf *d, struct dw_unit *u, const struct dw_die *die,
                         uint32_t scope, int hops)
{
	struct dw_pool *pool = &u->data->pool;
	char *linkage = dw_string_dup(&d->s, d->map, die->linkage);
	uint32_t name = linkage ? demangled(pool, linkage) : 0;
	if (!name && die->spec && hops > 0)
		name = ref_name(d, u, die->spec, hops - 1);
	if (!name && die->origin && hops > 0)
		name = ref_name(d, u, die->origin, hops - 1);
	if (!name) {
		char *plain = dw_string_dup(&d->s, d->map, die->name);
		if (plain)
			name = dw_pool_join(pool, scope, plain);
		free(plain);
	}
	if (!name && linkage) /* not demangled: shown as it is */
		name = dw_pool_add(pool, linkage, strlen(linkage));
	free(linkage);
	return name;
}

static uint64_t unit_off_at(const void *set, size_t i)
{
	return ((const struct dw_unit *)set)[i].cu.off;
}

/* Reads the DIE at global offset off again, from the file (its unit's
 * pages were given back); false when no unit holds it or it is damaged. */
static bool reread_die(struct sw_dwarf *d, uint64_t off, struct dw_die *die)
{
	size_t i = sw_upper_bound(d->units, d->nunits, unit_off_at, off);
	if (i == 0)
		return false;
	struct dw_unit *u = &d->units[i - 1];
	const struct dw_abbrevs *ab = off >= u->cu.die_off && off < u->cu.end
	                                      ? dw_unit_abbrevs(d, u) : NULL;
	return ab && dw_die_peek(&d->s, d->map, &u->cu, ab, off, die) && die->tag != 0;
}

/* A function of u's table, named once (cached in dc->name; its DIE read
 * well when u was read, so only running out of memory can fail it, and
 * that is not cached). */
static uint32_t decl_name(struct sw_dwarf *d, struct dw_unit *u, struct dw_decl *dc, int hops)
{
	if (dc->name != DW_NONE)
		return dc->name;
	struct dw_die die;
	if (!reread_die(d, u->cu.off + dc->off, &die))
		return 0;
	dc->name = die_name(d, u, &die, dc->scope, hops);
	return dc->name;
}

static uint64_t decl_off_at(const void *set, size_t i)
{
	return ((const struct dw_decl *)set)[i].off;
}

static uint64_t named_off_at(const void *set, size_t i)
{
	return ((const struct dw_named *)set)[i].off;
}

/* Caches the name of the DIE at off (when the cache cannot grow, the
 * name is just not remembered). A name found again (a reference cycle
 * named it on the way) is replaced, as decl_name's cache is. */
static void remember_name(struct dw_unit_data *ud, uint64_t off, uint32_t name)
{
	size_t i = sw_lower_bound(ud->named, ud->nnamed, named_off_at, off);
	if (i < ud->nnamed && ud->named[i].off == off) {
		ud->named[i].name = name;
		return;
	}
	if (ud->nnamed == ud->cap_named) {
		size_t ncap = ud->cap_named ? ud->cap_named * 2 : 16;
		struct dw_named *nv = realloc(ud->named, ncap * sizeof *nv);
		if (!nv)
			return;
		ud->named = nv;
		ud->cap_named = ncap;
	}
	memmove(&ud->named[i + 1], &ud->named[i], (ud->nnamed - i) * sizeof *ud->named);
	ud->named[i] = (struct dw_named){ .off = off, .name = name };
	ud->nnamed++;
}

/* The name of the DIE a DW_AT_specification or DW_AT_abstract_origin
 * refers to: a function of u's table, else the DIE read again and named
 * without scopes. Such a DIE is a top-level one (whose scope is empty),
 * or one of another unit (DW_FORM_ref_addr) or of a subtree u's walk
 * skipped, whose scopes the walk did not see. */
static uint32_t ref_name(struct sw_dwarf *d, struct dw_unit *u, uint64_t off, int hops)
{
	struct dw_unit_data *ud = u->data;
	if (off >= u->cu.off && off - u->cu.off <= UINT32_MAX) {
		uint64_t rel = off - u->cu.off;
		size_t i = sw_lower_bound(ud->decls, ud->ndecls, decl_off_at, rel);
		if (i < ud->ndecls && ud->decls[i].off == rel)
			return decl_name(d, u, &ud->decls[i], hops);
	}
	size_t i = sw_lower_bound(ud->named, ud->nnamed, named_off_at, off);
	if (i < ud->nnamed && ud->named[i].off == off)
		return ud->named[i].name;
	struct dw_die die;
	uint32_t name = reread_die(d, off, &die) ? die_name(d, u, &die, 0, hops) : 0;
	remember_name(ud, off, name);
	return name;
}

static const char *pool_str(struct dw_unit_data *ud, uint32_t off, struct sw_arena *a)
{
	return sw_arena_strdup(a, off ? ud->pool.buf + off : "<name omitted>");
}

/* ---- lookups ------------------------------------------------------------ */

static uint64_t func_lo_at(const void *set, size_t i)
{
	return ((const struct dw_func *)set)[i].lo;
}

static uint64_t range_lo_at(const void *set, size_t i)
{
	return ((const struct dw_unit_range *)set)[i].lo;
}

/* The innermost function range covering vaddr (nested functions lie
 * inside their parent's ranges only in hostile files, but the narrowest
 * is the right answer either way). */
static const struct dw_func *covering_func(const struct dw_unit_data *ud, uint64_t vaddr)
{
	const struct dw_func *best = NULL;
	size_t i = sw_upper_bound(ud->funcs, ud->nfuncs, func_lo_at, vaddr);
	/* Below a block whose running maximum is at or below vaddr, none
	 * covers it. */
	while (i-- > 0 && ud->funcs_maxhi[i / DW_FUNC_BLOCK] > vaddr) {
		const struct dw_func *f = &ud->funcs[i];
		if (f->hi > vaddr && (!best || f->hi - f->lo < best->hi - best->lo))
			best = f;
	}
	return best;
}

/* The inline chain at vaddr the way Breakpad's processor builds it from
 * INLINE records: walking the function's inlined calls in DIE order, one
 * covering vaddr at depth k becomes level k when levels 0..k-1 are set. */
static void fill_inlines(struct sw_dwarf *d, struct dw_unit *u, const struct dw_func *f,
                         uint64_t vaddr, struct sw_arena *a, struct sw_sym_info *out)
{
	struct dw_unit_data *ud = u->data;
	const struct dw_inline *chain[MAX_INLINE_DEPTH];
	size_t n = 0;
	for (uint32_t i = f->inl_begin; i < f->inl_end; i++) {
		const struct dw_inline *in = &ud->inlines[i];
		if (in->lo <= vaddr && vaddr < in->hi && in->depth <= n &&
		    in->depth < MAX_INLINE_DEPTH) {
			chain[in->depth] = in;
			n = in->depth + 1;
		}
	}
	if (n == 0)
		return;
	struct sw_sym_inline *levels = sw_arena_array(a, n, sizeof *levels);
	if (!levels)
		return;
	for (size_t k = 0; k < n; k++) {
		uint32_t name = chain[k]->origin ? ref_name(d, u, chain[k]->origin, MAX_NAME_HOPS)
		                                 : 0;
		levels[k].function = pool_str(ud, name, a);
		levels[k].call_file =
			chain[k]->call_file ? sw_arena_strdup(a, ud->pool.buf + chain[k]->call_file)
			                    : NULL;
		levels[k].call_line = chain[k]->call_line;
	}
	out->inlines = levels;
	out->ninlines = (uint32_t)n;
}

static bool lookup_in_unit(struct sw_dwarf *d, struct dw_unit *u, uint64_t vaddr,
                           struct sw_arena *a, struct sw_sym_info *out)
{
	struct dw_unit_data *ud = u->data;
	const struct dw_func *f = covering_func(ud, vaddr);
	struct dw_row row;
	bool has_row = dw_lines_find(&d->s, d->map, &ud->lines, vaddr, &row);
	if (!f && !has_row)
		return false;
	if (f) {
		uint32_t name = decl_name(d, u, &ud->decls[f->decl], MAX_NAME_HOPS);
		out->function = pool_str(ud, name, a);
		out->function_offset = f->lo;
		out->function_size = f->hi - f->lo;
		fill_inlines(d, u, f, vaddr, a, out);
	}
	if (has_row) {
		uint32_t file = dw_lines_file(&ud->lines, row.file);
		out->file = file ? sw_arena_strdup(a, ud->pool.buf + file) : NULL;
		out->line = row.line;
		/* dump_syms cuts line records at function starts. */
		out->line_offset = f && row.addr < f->lo ? f->lo : row.addr;
	}
	return true;
}

bool sw_dwarf_lookup(struct sw_dwarf *d, uint64_t vaddr, struct sw_arena *a,
                     struct sw_sym_info *out)
{
	memset(out, 0, sizeof *out);
	/* Unit ranges may overlap (a partial unit, a hostile file): every
	 * unit covering vaddr is tried, nearest start first. */
	size_t i = sw_upper_bound(d->ranges, d->nranges, range_lo_at, vaddr);
	while (i-- > 0 && d->ranges_maxhi[i] > vaddr) {
		if (d->ranges[i].hi <= vaddr)
			continue;
		struct dw_unit *u = &d->units[d->ranges[i].unit];
		if (u->state == DW_UNIT_UNREAD)
			dw_unit_read(d, u);
		if (u->state != DW_UNIT_READ)
			continue;
		if (lookup_in_unit(d, u, vaddr, a, out))
			return true;
		memset(out, 0, sizeof *out);
	}
	return false;
}
