/* Shared by dwarf_lines.c (the unit index, lookups, names) and
 * dwarf_lines_unit.c (reading one compilation unit). Not for other
 * directories. */
#ifndef SW_DWARF_LINES_INTERNAL_H
#define SW_DWARF_LINES_INTERNAL_H

#include "dwarf_info.h"
#include "dwarf_lines.h"

#define DW_NONE UINT32_MAX

/* A string in a unit's pool: offset; 0 is the empty string. */
struct dw_pool {
	char *buf;
	size_t len, cap;
};

/* A DW_TAG_subprogram of the unit (definition or declaration): what names
 * it, and the DIEs it refers to for its name. scope is the qualified name
 * of its enclosing namespaces and classes. `name` caches the resolved
 * qualified name (DW_NONE: not resolved yet). */
struct dw_decl {
	uint64_t off;
	uint64_t spec, origin;     /* global DIE offsets, 0: none */
	uint64_t dname, linkage;   /* string references (dw_string), 0: none */
	uint32_t scope;
	uint32_t name;
};

/* One address range of a function: [lo, hi). Its inlined calls are
 * inlines[inl_begin, inl_end) (the DIE tree under it, in DIE order). */
struct dw_func {
	uint64_t lo, hi;
	uint32_t decl;
	uint32_t inl_begin, inl_end;
};

/* One address range of a DW_TAG_inlined_subroutine at nesting depth
 * `depth` (0: inlined straight into the function). origin is the global
 * offset of the inlined function's DIE. */
struct dw_inline {
	uint64_t lo, hi;
	uint64_t origin;
	uint32_t call_file;        /* pool offset, 0: unknown */
	uint32_t call_line;
	uint32_t depth;
};

/* Everything read from one unit, arrays sorted by address (decls by
 * offset). */
struct dw_unit_data {
	struct dw_pool pool;
	struct dw_decl *decls;
	size_t ndecls;
	struct dw_func *funcs;     /* sorted by lo */
	uint64_t *funcs_maxhi;     /* running max of hi over funcs[0..i] */
	size_t nfuncs;
	struct dw_inline *inlines;
	size_t ninlines;
	struct dw_lines lines;
};

enum dw_unit_state { DW_UNIT_UNREAD = 0, DW_UNIT_READ, DW_UNIT_FAILED };

struct dw_unit {
	struct dw_cu cu;
	uint8_t state;
	bool abbrevs_read;
	struct dw_abbrevs abbrevs; /* read with the unit, or by a name lookup */
	struct dw_unit_data *data;
};

/* One address range of a unit: [lo, hi) in units[unit]. */
struct dw_unit_range {
	uint64_t lo, hi;
	uint32_t unit;
};

struct sw_dwarf {
	struct sw_dwarf_sections s;
	const struct sw_mapped_file *map; /* pages to give back, or NULL */
	char *name;
	struct dw_unit *units;     /* sorted by offset */
	size_t nunits;
	size_t units_read;
	struct dw_unit_range *ranges; /* sorted by lo */
	uint64_t *ranges_maxhi;    /* running max of hi over ranges[0..i] */
	size_t nranges;
};

/* ---- helpers shared by both files --------------------------------------- */

/* Appends s[0..n) and a NUL to the pool; returns its offset, 0 when out of
 * memory (the empty string). */
uint32_t dw_pool_add(struct dw_pool *p, const char *s, size_t n);
/* scope "::" name, scope being a pool offset (0: none, then name alone). */
uint32_t dw_pool_join(struct dw_pool *p, uint32_t scope, const char *name);

/* The unit's abbreviation table, read on first use; NULL when damaged. */
const struct dw_abbrevs *dw_unit_abbrevs(struct sw_dwarf *d, struct dw_unit *u);

/* Reads the unit at u (its DIE tree and line table) into u->data; false
 * (u->state DW_UNIT_FAILED) when it is damaged before its first DIE or
 * out of memory. */
bool dw_unit_read(struct sw_dwarf *d, struct dw_unit *u);
void dw_unit_data_free(struct dw_unit_data *ud);

#endif
