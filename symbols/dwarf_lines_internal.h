/* Shared by the DWARF line reader's files: dwarf_lines.c (the unit index,
 * lookups, names), dwarf_lines_unit.c (reading one compilation unit),
 * dwarf_line_program.c (its line table) and dwarf_pool.c (its strings);
 * the fuzz targets fuzz_dwarf_info.c and fuzz_macho_dsym.c look inside
 * too. Not for other directories. */
#ifndef SW_DWARF_LINES_INTERNAL_H
#define SW_DWARF_LINES_INTERNAL_H

#include "dwarf_info.h"
#include "dwarf_lines.h"
#include "dwarf_pool.h"

#define DW_NONE UINT32_MAX
enum { DW_FUNC_BLOCK = 16 };

/* A DW_TAG_subprogram of the unit that has code, or that lies in a named
 * scope: its DIE's offset from the unit's start (what names it is read
 * again from there when a lookup needs it), scope the qualified name of
 * its enclosing namespaces and classes (which reading the DIE alone
 * cannot give), `name` the resolved qualified name (DW_NONE: not resolved
 * yet). A subprogram without code at the top level (a declaration of a
 * function of another unit, an abstract instance root) is not kept: most
 * are never named, and one that a lookup names is read again (see
 * dw_named). */
struct dw_decl {
	uint32_t off;
	uint32_t scope;
	uint32_t name;
};

/* A DIE not in the decls that a lookup named (a DW_AT_specification or
 * DW_AT_abstract_origin target read again): its global offset and its
 * name, cached so that naming it again reads nothing and adds nothing to
 * the pool. */
struct dw_named {
	uint64_t off;
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

/* Everything read from one unit, arrays sorted by address (decls and
 * named by offset). */
struct dw_unit_data {
	struct dw_pool pool;
	struct dw_decl *decls;
	size_t ndecls;
	struct dw_named *named;    /* grows as lookups name DIEs */
	size_t nnamed, cap_named;
	struct dw_func *funcs;     /* sorted by lo */
	/* A coarse index for finding the functions that cover an address:
	 * entry b is the highest hi of funcs[0 .. end of block b], blocks
	 * being DW_FUNC_BLOCK functions (a running maximum per function
	 * would cost as much as a quarter of funcs). */
	uint64_t *funcs_maxhi;
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
	/* The file the sections lie in, or NULL: the pages of units once read
	 * are given back, and lookups read from it (sw_mapped_peek). */
	const struct sw_mapped_file *map;
	char *name;
	struct dw_unit *units;     /* sorted by offset */
	size_t nunits;
	size_t units_read;
	struct dw_unit_range *ranges; /* sorted by lo */
	uint64_t *ranges_maxhi;    /* running max of hi over ranges[0..i] */
	size_t nranges;
};

/* ---- helpers shared by both files --------------------------------------- */

/* The unit's abbreviation table, read on first use; NULL when damaged. */
const struct dw_abbrevs *dw_unit_abbrevs(struct sw_dwarf *d, struct dw_unit *u);

/* Reads the unit at u (its DIE tree and line table) into u->data; false
 * (u->state DW_UNIT_FAILED) when it is damaged before its first DIE, out
 * of memory, or 4 GiB or more long (decls hold 32-bit offsets in it). */
bool dw_unit_read(struct sw_dwarf *d, struct dw_unit *u);
void dw_unit_data_free(struct dw_unit_data *ud);

#endif
