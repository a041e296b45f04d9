/* Reading one compilation unit, the first time a lookup lands in it: its
 * DIE tree (functions with their address ranges, inlined calls, the
 * declarations their names come from) into compact arrays sorted by
 * address, and its line table's sequences and checkpoints. */
#include "dwarf_lines_internal.h"

#include <stdlib.h>
#include <string.h>

#include "dwarf_consts.h"
#include "lib/mapped_file.h"

/* Deeper DIE nesting than this is not walked (a hostile file could nest
 * without end; real code nests namespaces, classes, blocks and inlined
 * calls a few dozen levels at most). */
enum { MAX_DIE_NESTING = 200 };

/* ---- growing arrays ------------------------------------------------------ */

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

/* ---- the DIE walk ------------------------------------------------------- */

struct unit_reader {
	struct sw_dwarf *d;
	struct dw_unit *u;
	const struct dw_abbrevs *ab;
	struct dw_unit_data *ud;
	size_t cap_decls, cap_funcs, cap_inlines;
	struct dw_pairs pairs;       /* scratch */
	bool oom, damaged;
};

static uint64_t walk_children(struct unit_reader *r, uint64_t off, uint32_t scope,
                              bool in_func, uint32_t depth, int level);

static uint32_t add_decl(struct unit_reader *r, const struct dw_die *die, uint32_t scope)
{
	struct dw_unit_data *ud = r->ud;
	if (!grow((void **)&ud->decls, &r->cap_decls, ud->ndecls, sizeof *ud->decls)) {
		r->oom = true;
		return DW_NONE;
	}
	ud->decls[ud->ndecls] = (struct dw_decl){
		.off = (uint32_t)(die->off - r->u->cu.off), .scope = scope, .name = DW_NONE,
	};
	return (uint32_t)ud->ndecls++;
}

/* Walks (or skips) the children of `die`; the offset after them. */
static uint64_t after_children(struct unit_reader *r, const struct dw_die *die, bool visit,
                               uint32_t scope, bool in_func, uint32_t depth, int level)
{
	if (!die->children)
		return die->next;
	if (visit)
		return walk_children(r, die->next, scope, in_func, depth, level + 1);
	/* A sibling link past the subtree saves reading it. */
	if (die->sibling > die->off && die->sibling < r->u->cu.end)
		return die->sibling;
	return dw_skip_children(&r->d->s, &r->u->cu, r->ab, die->next,
	                        MAX_DIE_NESTING - level);
}

static uint64_t visit_subprogram(struct unit_reader *r, const struct dw_die *die,
                                 uint32_t scope, int level)
{
	struct dw_unit_data *ud = r->ud;
	r->pairs.n = 0;
	if (!(die->has & DW_HAS_DECLARATION) &&
	    !dw_die_ranges(&r->d->s, &r->u->cu, die, &r->pairs)) {
		r->oom = true;
		return 0;
	}
	bool has_code = r->pairs.n > 0;
	/* Without code at the top level: read again if ever named (see
	 * struct dw_decl). */
	uint32_t decl = has_code || scope != 0 ? add_decl(r, die, scope) : DW_NONE;
	if (r->oom)
		return 0;
	if (!has_code)
		return after_children(r, die, false, scope, false, 0, level);
	/* One record per range (dump_syms writes one FUNC per range); their
	 * inlined calls are those the walk below appends. */
	size_t first = ud->nfuncs;
	for (size_t i = 0; i < r->pairs.n; i++) {
		if (!grow((void **)&ud->funcs, &r->cap_funcs, ud->nfuncs, sizeof *ud->funcs)) {
			r->oom = true;
			return 0;
		}
		ud->funcs[ud->nfuncs++] = (struct dw_func){
			.lo = r->pairs.v[2 * i], .hi = r->pairs.v[2 * i + 1], .decl = decl,
			.inl_begin = (uint32_t)ud->ninlines,
		};
	}
	size_t last = ud->nfuncs;
	uint64_t next = after_children(r, die, true, scope, true, 0, level);
	for (size_t i = first; i < last; i++)
		ud->funcs[i].inl_end = (uint32_t)ud->ninlines;
	return next;
}

static uint64_t visit_inline(struct unit_reader *r, const struct dw_die *die, uint32_t scope,
                             uint32_t depth, int level)
{
	struct dw_unit_data *ud = r->ud;
	uint32_t call_file = (die->has & DW_HAS_CALL_FILE) ? dw_lines_file(&r->ud->lines, die->call_file) : 0;
	uint64_t line = (die->has & DW_HAS_CALL_LINE) && die->call_line <= UINT32_MAX
	                        ? die->call_line : 0;
	r->pairs.n = 0;
	if (!dw_die_ranges(&r->d->s, &r->u->cu, die, &r->pairs)) {
		r->oom = true;
		return 0;
	}
	for (size_t i = 0; i < r->pairs.n; i++) {
		if (!grow((void **)&ud->inlines, &r->cap_inlines, ud->ninlines,
		          sizeof *ud->inlines)) {
			r->oom = true;
			return 0;
		}
		ud->inlines[ud->ninlines++] = (struct dw_inline){
			.lo = r->pairs.v[2 * i], .hi = r->pairs.v[2 * i + 1], .origin = die->origin,
			.call_file = call_file, .call_line = (uint32_t)line, .depth = depth,
		};
	}
	return after_children(r, die, true, scope, true, depth + 1, level);
}

static uint64_t visit(struct unit_reader *r, const struct dw_die *die, uint32_t scope,
                      bool in_func, uint32_t depth, int level)
{
	switch (die->tag) {
	case SW_DW_TAG_namespace:
	case SW_DW_TAG_class_type:
	case SW_DW_TAG_structure_type:
	case SW_DW_TAG_union_type:
	case SW_DW_TAG_interface_type: {
		/* Scopes that qualify the names of the functions declared in
		 * them. An unnamed one qualifies as the empty name, as in
		 * dump_syms (DwarfCUToModule::ComputeQualifiedName gives a DIE
		 * without DW_AT_name an empty qualified name, which its children
		 * then extend): a function in `namespace a { namespace { ... } }`
		 * without a linkage name is printed unqualified ("callback", not
		 * "a::(anonymous namespace)::callback"); checked against
		 * crash_linux.sym in tests/test_dwarf_lines.c. */
		char *name = dw_string_dup(&r->d->s, r->d->map, die->name);
		uint32_t inner = name ? dw_pool_join(&r->ud->pool, scope, name) : 0;
		free(name);
		return after_children(r, die, true, inner, in_func, depth, level);
	}
	case SW_DW_TAG_subprogram:
		return visit_subprogram(r, die, scope, level);
	case SW_DW_TAG_inlined_subroutine:
		if (in_func)
			return visit_inline(r, die, scope, depth, level);
		return after_children(r, die, false, scope, in_func, depth, level);
	case SW_DW_TAG_lexical_block:
	case SW_DW_TAG_try_block:
	case SW_DW_TAG_catch_block:
		return after_children(r, die, in_func, scope, in_func, depth, level);
	default:
		return after_children(r, die, false, scope, in_func, depth, level);
	}
}

/* Visits the DIEs from `off` to their null entry; the offset after it, 0
 * when the unit is damaged there or out of memory (what was read stays). */
static uint64_t walk_children(struct unit_reader *r, uint64_t off, uint32_t scope,
                              bool in_func, uint32_t depth, int level)
{
	if (level > MAX_DIE_NESTING) {
		r->damaged = true;
		return 0;
	}
	while (!r->oom && off) {
		struct dw_die die;
		if (!dw_die_read(&r->d->s, &r->u->cu, r->ab, off, &die)) {
			r->damaged = true;
			return 0;
		}
		if (die.tag == 0)
			return die.next;
		off = visit(r, &die, scope, in_func, depth, level);
	}
	return 0;
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
	free(ud->named);
	free(ud->funcs);
	free(ud->funcs_maxhi);
	free(ud->inlines);
	dw_lines_free(&ud->lines);
	free(ud);
}

/* A unit's arrays grew by doubling; kept for the whole walk, they are cut
 * to their size. */
static void *fit(void *p, size_t n, size_t elem)
{
	void *q = n ? realloc(p, n * elem) : NULL;
	return q ? q : p;
}

static void shrink_to_fit(struct dw_unit_data *ud)
{
	ud->decls = fit(ud->decls, ud->ndecls, sizeof *ud->decls);
	ud->funcs = fit(ud->funcs, ud->nfuncs, sizeof *ud->funcs);
	ud->inlines = fit(ud->inlines, ud->ninlines, sizeof *ud->inlines);
	ud->pool.buf = fit(ud->pool.buf, ud->pool.len, 1);
	ud->pool.cap = ud->pool.buf ? ud->pool.len : 0;
	ud->lines.ckpts = fit(ud->lines.ckpts, ud->lines.nckpts, sizeof *ud->lines.ckpts);
	ud->lines.seqs = fit(ud->lines.seqs, ud->lines.nseqs, sizeof *ud->lines.seqs);
}

const struct dw_abbrevs *dw_unit_abbrevs(struct sw_dwarf *d, struct dw_unit *u)
{
	if (!u->abbrevs_read) {
		u->abbrevs_read = true;
		if (!dw_abbrevs_read(&d->s, u->cu.abbrev_off, &u->abbrevs))
			memset(&u->abbrevs, 0, sizeof u->abbrevs);
	}
	return u->abbrevs.decls ? &u->abbrevs : NULL;
}

bool dw_unit_read(struct sw_dwarf *d, struct dw_unit *u)
{
	struct unit_reader r = { .d = d, .u = u };
	u->state = DW_UNIT_FAILED;
	if (u->cu.end - u->cu.off > UINT32_MAX)
		return false;
	r.ab = dw_unit_abbrevs(d, u);
	struct dw_die cu;
	if (!r.ab || !dw_die_read(&d->s, &u->cu, r.ab, u->cu.die_off, &cu) || cu.tag == 0)
		return false;
	r.ud = calloc(1, sizeof *r.ud);
	if (!r.ud)
		return false;
	dw_pool_add(&r.ud->pool, "", 0);

	bool ok = true;
	if (cu.has & DW_HAS_STMT_LIST) {
		char *comp_dir = dw_string_dup(&d->s, d->map, cu.comp_dir);
		ok = dw_lines_read(&d->s, d->map, cu.stmt_list, comp_dir, &r.ud->pool,
		                   &r.ud->lines);
		free(comp_dir);
	}
	if (ok && cu.children) {
		walk_children(&r, cu.next, 0, false, 0, 0);
		ok = !r.oom; /* a damaged unit keeps what was read before the damage */
	}
	free(r.pairs.v);

	struct dw_unit_data *ud = r.ud;
	if (ok && ud->nfuncs > 0) {
		qsort(ud->funcs, ud->nfuncs, sizeof *ud->funcs, cmp_func);
		size_t nblocks = (ud->nfuncs + DW_FUNC_BLOCK - 1) / DW_FUNC_BLOCK;
		ud->funcs_maxhi = malloc(nblocks * sizeof *ud->funcs_maxhi);
		ok = ud->funcs_maxhi != NULL;
		uint64_t m = 0;
		for (size_t i = 0; ok && i < ud->nfuncs; i++) {
			m = ud->funcs[i].hi > m ? ud->funcs[i].hi : m;
			ud->funcs_maxhi[i / DW_FUNC_BLOCK] = m;
		}
	}
	if (!ok) {
		dw_unit_data_free(ud);
		return false;
	}
	shrink_to_fit(ud);
	if (d->map) {
		sw_mapped_release(d->map, d->s.info.data + u->cu.off, u->cu.end - u->cu.off);
		if (ud->lines.h.end > cu.stmt_list)
			sw_mapped_release(d->map, d->s.line.data + cu.stmt_list,
			                  ud->lines.h.end - cu.stmt_list);
	}
	u->data = ud;
	u->state = DW_UNIT_READ;
	d->units_read++;
	return true;
}
