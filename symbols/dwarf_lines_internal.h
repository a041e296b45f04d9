/* Shared by dwarf_lines.c (the unit index, lookups, names) and
 * dwarf_lines_unit.c (reading one compilation unit). Not for other
 * directories. */
#ifndef SW_DWARF_LINES_INTERNAL_H
#define SW_DWARF_LINES_INTERNAL_H

#include <libdwarf.h>
#include <dwarf.h>

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
	uint32_t scope, dname, linkage;
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

/* A line-table row; file DW_NONE ends a sequence. */
struct dw_line {
	uint64_t addr;
	uint32_t file;             /* pool offset of the path */
	uint32_t line;
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
	struct dw_line *lines;
	size_t nlines;
};

enum dw_unit_state { DW_UNIT_UNREAD = 0, DW_UNIT_READ, DW_UNIT_FAILED };

struct dw_unit {
	uint64_t die_off;          /* global offset of the unit DIE */
	uint16_t version;
	uint8_t state;
	struct dw_unit_data *data;
};

/* One address range of a unit: [lo, hi) in units[unit]. */
struct dw_unit_range {
	uint64_t lo, hi;
	uint32_t unit;
};

struct sw_dwarf {
	Dwarf_Debug dbg;
	char *name;
	struct dw_unit *units;
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

/* Address ranges of a DIE (DW_AT_low_pc/high_pc, or DW_AT_ranges in
 * .debug_ranges (version <= 4) or .debug_rnglists (5)), appended to *out
 * as [lo, hi) pairs (out grows by realloc). base is the unit's base
 * address (its DW_AT_low_pc) for .debug_ranges entries. Empty ranges are
 * dropped. Returns false only when out of memory. */
struct dw_pairs {
	uint64_t *v;               /* lo, hi, lo, hi ... */
	size_t n, cap;             /* in pairs */
};
bool dw_die_ranges(Dwarf_Debug dbg, Dwarf_Die die, uint16_t version, uint64_t base,
                   struct dw_pairs *out);

/* A udata or reference-valued attribute (DW_AT_call_line, DW_AT_ranges'
 * section offset ...). False when absent or of another form. */
bool dw_attr_udata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, uint64_t *out);
/* A reference attribute (DW_AT_abstract_origin, DW_AT_specification) as a
 * global .debug_info offset; 0 when absent. */
uint64_t dw_attr_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at);
/* A string attribute (pointer into the section), NULL when absent. */
const char *dw_attr_string(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at);

/* Reads the unit at u (its DIE tree and line table) into u->data; false
 * (u->state DW_UNIT_FAILED) when libdwarf refuses it. */
bool dw_unit_read(struct sw_dwarf *d, struct dw_unit *u);
void dw_unit_data_free(struct dw_unit_data *ud);

#endif
