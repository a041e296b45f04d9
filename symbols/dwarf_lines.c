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

#include "lib/bsearch.h"

/* How many DW_AT_specification / DW_AT_abstract_origin links a name is
 * followed through (GCC uses at most two: concrete -> abstract ->
 * declaration); a cycle in a hostile file stops here. */
enum { MAX_NAME_HOPS = 8 };
/* Deepest inline chain reported (Breakpad's processor keeps 64 too). */
enum { MAX_INLINE_DEPTH = 64 };

/* libdwarf's (exported, undeclared) hook; see sw_dwarf_open_fd. */
extern void *_dwarf_get_elf_flags_func_ptr;

static void drop_error(Dwarf_Debug dbg, Dwarf_Error e)
{
	if (e)
		dwarf_dealloc_error(dbg, e);
}

static enum sw_err_code libdwarf_error(struct sw_err *err, Dwarf_Debug dbg, Dwarf_Error e,
                                       const char *name, const char *what)
{
	enum sw_err_code c = sw_err_set(err, SW_ERR_CORRUPT, "%s: %s: libdwarf: %s", name, what,
	                                e ? dwarf_errmsg(e) : "error");
	drop_error(dbg, e);
	return c;
}

/* ---- the unit index ----------------------------------------------------- */

struct arange {
	uint64_t unit_die, lo, hi;
};

static int cmp_arange(const void *a, const void *b)
{
	const struct arange *x = a, *y = b;
	if (x->unit_die != y->unit_die)
		return x->unit_die < y->unit_die ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_range(const void *a, const void *b)
{
	const struct dw_unit_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* .debug_aranges (DWARF 5 §6.1.2), sorted by unit; *n 0 when absent. */
static struct arange *read_aranges(Dwarf_Debug dbg, size_t *n)
{
	Dwarf_Arange *ar = NULL;
	Dwarf_Signed count = 0;
	Dwarf_Error e = NULL;
	*n = 0;
	if (dwarf_get_aranges(dbg, &ar, &count, &e) != DW_DLV_OK) {
		drop_error(dbg, e);
		return NULL;
	}
	struct arange *out = calloc(count > 0 ? (size_t)count : 1, sizeof *out);
	size_t k = 0;
	for (Dwarf_Signed i = 0; i < count; i++) {
		Dwarf_Unsigned seg = 0, seg_size = 0, len = 0;
		Dwarf_Addr start = 0;
		Dwarf_Off die = 0;
		if (out && dwarf_get_arange_info_b(ar[i], &seg, &seg_size, &start, &len, &die,
		                                   &e) == DW_DLV_OK) {
			if (len > 0 && start + len > start)
				out[k++] = (struct arange){.unit_die = die, .lo = start, .hi = start + len};
		} else {
			drop_error(dbg, e);
			e = NULL;
		}
		dwarf_dealloc(dbg, ar[i], DW_DLA_ARANGE);
	}
	dwarf_dealloc(dbg, ar, DW_DLA_LIST);
	if (out)
		qsort(out, k, sizeof *out, cmp_arange);
	*n = k;
	return out;
}

static uint64_t arange_unit_at(const void *set, size_t i)
{
	return ((const struct arange *)set)[i].unit_die;
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
static bool index_unit(struct sw_dwarf *d, Dwarf_Die cu, size_t unit,
                       const struct arange *ar, size_t nar, size_t *cap,
                       struct dw_pairs *pairs)
{
	uint64_t off = d->units[unit].die_off;
	size_t i = sw_lower_bound(ar, nar, arange_unit_at, off);
	if (i < nar && ar[i].unit_die == off) {
		for (; i < nar && ar[i].unit_die == off; i++)
			if (!push_range(d, cap, ar[i].lo, ar[i].hi, unit))
				return false;
		return true;
	}
	Dwarf_Error e = NULL;
	Dwarf_Addr base = 0;
	if (dwarf_lowpc(cu, &base, &e) != DW_DLV_OK) {
		drop_error(d->dbg, e);
		base = 0;
	}
	pairs->n = 0;
	if (!dw_die_ranges(d->dbg, cu, d->units[unit].version, base, pairs))
		return false;
	for (size_t k = 0; k < pairs->n; k++)
		if (!push_range(d, cap, pairs->v[2 * k], pairs->v[2 * k + 1], unit))
			return false;
	return true;
}

/* Walks the unit headers (each unit DIE, none of its children). */
static enum sw_err_code index_units(struct sw_dwarf *d, struct sw_err *err)
{
	size_t nar = 0, cap_units = 0, cap_ranges = 0;
	struct arange *ar = read_aranges(d->dbg, &nar);
	struct dw_pairs pairs = {0};
	enum sw_err_code rc = SW_OK;
	for (;;) {
		Dwarf_Unsigned len = 0, type_off = 0, next = 0;
		Dwarf_Half version = 0, addr_size = 0, off_size = 0, ext_size = 0, ut = 0;
		Dwarf_Off abbrev = 0;
		Dwarf_Sig8 sig;
		Dwarf_Error e = NULL;
		int r = dwarf_next_cu_header_d(d->dbg, 1, &len, &version, &abbrev, &addr_size,
		                               &off_size, &ext_size, &sig, &type_off, &next, &ut,
		                               &e);
		if (r == DW_DLV_NO_ENTRY)
			break;
		if (r == DW_DLV_ERROR) {
			/* Units before the damage stay usable; none at all is an
			 * error. */
			if (d->nunits == 0)
				rc = libdwarf_error(err, d->dbg, e, d->name, "reading .debug_info");
			else
				drop_error(d->dbg, e);
			break;
		}
		Dwarf_Die cu = NULL;
		if (dwarf_siblingof_b(d->dbg, NULL, 1, &cu, &e) != DW_DLV_OK) {
			if (d->nunits == 0)
				rc = libdwarf_error(err, d->dbg, e, d->name, "reading a unit DIE");
			else
				drop_error(d->dbg, e);
			break;
		}
		Dwarf_Off die_off = 0;
		Dwarf_Half tag = 0;
		if (dwarf_dieoffset(cu, &die_off, &e) != DW_DLV_OK ||
		    dwarf_tag(cu, &tag, &e) != DW_DLV_OK) {
			drop_error(d->dbg, e);
			dwarf_dealloc_die(cu);
			continue;
		}
		if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit &&
		    tag != DW_TAG_skeleton_unit) {
			dwarf_dealloc_die(cu); /* type units hold no code */
			continue;
		}
		if (d->nunits == cap_units) {
			size_t ncap = cap_units ? cap_units * 2 : 32;
			void *p = realloc(d->units, ncap * sizeof *d->units);
			if (!p) {
				dwarf_dealloc_die(cu);
				rc = sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
				break;
			}
			d->units = p;
			cap_units = ncap;
		}
		d->units[d->nunits] = (struct dw_unit){.die_off = die_off, .version = version};
		bool ok = index_unit(d, cu, d->nunits, ar, nar, &cap_ranges, &pairs);
		d->nunits++;
		dwarf_dealloc_die(cu);
		if (!ok) {
			rc = sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
			break;
		}
	}
	free(ar);
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

static struct sw_dwarf *open_debug(Dwarf_Debug dbg, const char *name, struct sw_err *err)
{
	struct sw_dwarf *d = calloc(1, sizeof *d);
	char *n = strdup(name ? name : "?");
	if (!d || !n) {
		free(d);
		free(n);
		Dwarf_Error e = NULL;
		dwarf_finish(dbg, &e);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	d->dbg = dbg;
	d->name = n;
	if (index_units(d, err) != SW_OK) {
		sw_dwarf_free(d);
		return NULL;
	}
	return d;
}

static struct sw_dwarf *init_result(int rc, Dwarf_Debug dbg, Dwarf_Error e, const char *name,
                                    struct sw_err *err)
{
	if (rc == DW_DLV_NO_ENTRY) {
		sw_err_set(err, SW_ERR_FORMAT, "%s: no DWARF debug information", name);
		return NULL;
	}
	if (rc != DW_DLV_OK) {
		/* No Dwarf_Debug exists to own the error: freed with NULL. */
		libdwarf_error(err, NULL, e, name, "opening");
		return NULL;
	}
	return open_debug(dbg, name, err);
}

struct sw_dwarf *sw_dwarf_open(Elf *elf, const char *name, struct sw_err *err)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error e = NULL;
	if (!elf) {
		sw_err_set(err, SW_ERR_FORMAT, "%s: not an ELF file", name);
		return NULL;
	}
	/* No error handler: libdwarf's default one abort()s. */
	int rc = dwarf_elf_init_b(elf, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &e);
	return init_result(rc, dbg, e, name, err);
}

struct sw_dwarf *sw_dwarf_open_fd(int fd, const char *name, struct sw_err *err)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error e = NULL;
	/* libdwarf 20210528: dwarf_elf_init_b leaves a global hook
	 * (_dwarf_get_elf_flags_func_ptr, libelf's section flags) set, and a
	 * later dwarf_init_b calls it on its own non-libelf object while
	 * setting up sections: a Mach-O file then crashes in elf_getscn. The
	 * hook is only used during that setup, so it is cleared around it
	 * (not thread-safe, like the rest of libdwarf's initialisation). */
	void *elf_hook = _dwarf_get_elf_flags_func_ptr;
	_dwarf_get_elf_flags_func_ptr = NULL;
	int rc = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &e);
	_dwarf_get_elf_flags_func_ptr = elf_hook;
	return init_result(rc, dbg, e, name, err);
}

void sw_dwarf_free(struct sw_dwarf *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nunits; i++)
		dw_unit_data_free(d->units[i].data);
	free(d->units);
	free(d->ranges);
	free(d->ranges_maxhi);
	Dwarf_Error e = NULL;
	if (d->dbg && dwarf_finish(d->dbg, &e) != DW_DLV_OK)
		drop_error(NULL, e);
	free(d->name);
	free(d);
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

static uint64_t decl_off_at(const void *set, size_t i)
{
	return ((const struct dw_decl *)set)[i].off;
}

static uint32_t ref_name(struct sw_dwarf *d, struct dw_unit_data *ud, uint64_t off, int hops);

/* The qualified name of a function DIE, in the order dump_syms takes it
 * (Breakpad's DwarfCUToModule: its own demangled linkage name, else its
 * specification's name, else its abstract origin's, else DW_AT_name in its
 * enclosing namespaces and classes). Cached in dc->name. */
static uint32_t decl_name(struct sw_dwarf *d, struct dw_unit_data *ud, struct dw_decl *dc,
                          int hops)
{
	if (dc->name != DW_NONE)
		return dc->name;
	uint32_t name = 0;
	if (dc->linkage)
		name = demangled(&ud->pool, ud->pool.buf + dc->linkage);
	if (!name && dc->spec && hops > 0)
		name = ref_name(d, ud, dc->spec, hops - 1);
	if (!name && dc->origin && hops > 0)
		name = ref_name(d, ud, dc->origin, hops - 1);
	if (!name && dc->dname) {
		/* Copied out first: the join may move the pool. */
		char *own = strdup(ud->pool.buf + dc->dname);
		name = own ? dw_pool_join(&ud->pool, dc->scope, own) : 0;
		free(own);
	}
	if (!name && dc->linkage)
		name = dc->linkage; /* not demangled: shown as it is */
	dc->name = name;
	return name;
}

/* A DIE of another unit (DW_FORM_ref_addr): its linkage or plain name,
 * without the scopes this unit's walk did not see. */
static uint32_t foreign_name(struct sw_dwarf *d, struct dw_unit_data *ud, uint64_t off,
                             int hops)
{
	Dwarf_Die die = NULL;
	Dwarf_Error e = NULL;
	if (dwarf_offdie_b(d->dbg, off, 1, &die, &e) != DW_DLV_OK) {
		drop_error(d->dbg, e);
		return 0;
	}
	uint32_t name = 0;
	const char *s = dw_attr_string(d->dbg, die, DW_AT_linkage_name);
	if (!s)
		s = dw_attr_string(d->dbg, die, DW_AT_MIPS_linkage_name);
	if (s)
		name = demangled(&ud->pool, s);
	uint64_t spec = dw_attr_ref(d->dbg, die, DW_AT_specification);
	uint64_t origin = dw_attr_ref(d->dbg, die, DW_AT_abstract_origin);
	const char *plain = dw_attr_string(d->dbg, die, DW_AT_name);
	if (!name && spec && hops > 0)
		name = ref_name(d, ud, spec, hops - 1);
	if (!name && origin && hops > 0)
		name = ref_name(d, ud, origin, hops - 1);
	if (!name && plain)
		name = dw_pool_add(&ud->pool, plain, strlen(plain));
	dwarf_dealloc_die(die);
	return name;
}

static uint32_t ref_name(struct sw_dwarf *d, struct dw_unit_data *ud, uint64_t off, int hops)
{
	size_t i = sw_lower_bound(ud->decls, ud->ndecls, decl_off_at, off);
	if (i < ud->ndecls && ud->decls[i].off == off)
		return decl_name(d, ud, &ud->decls[i], hops);
	return foreign_name(d, ud, off, hops);
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

static uint64_t line_addr_at(const void *set, size_t i)
{
	return ((const struct dw_line *)set)[i].addr;
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
	while (i-- > 0 && ud->funcs_maxhi[i] > vaddr) {
		const struct dw_func *f = &ud->funcs[i];
		if (f->hi > vaddr && (!best || f->hi - f->lo < best->hi - best->lo))
			best = f;
	}
	return best;
}

/* The line-table row covering vaddr: the last row at or below it, unless
 * that row ends a sequence. */
static const struct dw_line *covering_line(const struct dw_unit_data *ud, uint64_t vaddr)
{
	size_t i = sw_upper_bound(ud->lines, ud->nlines, line_addr_at, vaddr);
	if (i == 0 || ud->lines[i - 1].file == DW_NONE)
		return NULL;
	return &ud->lines[i - 1];
}

/* The inline chain at vaddr the way Breakpad's processor builds it from
 * INLINE records: walking the function's inlined calls in DIE order, one
 * covering vaddr at depth k becomes level k when levels 0..k-1 are set. */
static void fill_inlines(struct sw_dwarf *d, struct dw_unit_data *ud, const struct dw_func *f,
                         uint64_t vaddr, struct sw_arena *a, struct sw_sym_info *out)
{
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
		uint32_t name = chain[k]->origin ? ref_name(d, ud, chain[k]->origin, MAX_NAME_HOPS)
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

static bool lookup_in_unit(struct sw_dwarf *d, struct dw_unit_data *ud, uint64_t vaddr,
                           struct sw_arena *a, struct sw_sym_info *out)
{
	const struct dw_func *f = covering_func(ud, vaddr);
	const struct dw_line *l = covering_line(ud, vaddr);
	if (!f && !l)
		return false;
	if (f) {
		uint32_t name = decl_name(d, ud, &ud->decls[f->decl], MAX_NAME_HOPS);
		out->function = pool_str(ud, name, a);
		out->function_offset = f->lo;
		out->function_size = f->hi - f->lo;
		fill_inlines(d, ud, f, vaddr, a, out);
	}
	if (l) {
		out->file = l->file ? sw_arena_strdup(a, ud->pool.buf + l->file) : NULL;
		out->line = l->line;
		/* dump_syms cuts line records at function starts. */
		out->line_offset = f && l->addr < f->lo ? f->lo : l->addr;
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
		if (lookup_in_unit(d, u->data, vaddr, a, out))
			return true;
		memset(out, 0, sizeof *out);
	}
	return false;
}
