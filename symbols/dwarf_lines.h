/* Functions, source lines and inline chains from DWARF debug information
 * (.debug_info, .debug_line, .debug_ranges / .debug_rnglists, .debug_str /
 * .debug_line_str / .debug_str_offsets: DWARF 2 to 5), read by our own reader
 * (dwarf_info.c, dwarf_line_program.c: why in dwarf_info.h).
 *
 * Lazy: opening builds only an index of compilation-unit address ranges
 * (from .debug_aranges when it covers the units, else each unit's
 * DW_AT_low_pc/high_pc/ranges); a unit's functions, inlined calls and line
 * table are read the first time a lookup lands in it, and kept. */
#ifndef SW_SYMBOLS_DWARF_LINES_H
#define SW_SYMBOLS_DWARF_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/arena.h"
#include "lib/span.h"
#include "lib/sw_err.h"
#include "lib/symbols.h"

struct sw_dwarf;

/* The DWARF sections of one file, by their ELF names (Mach-O's __debug_*
 * sections are the same). Absent ones are empty. The bytes must outlive
 * the reader. */
struct sw_dwarf_sections {
	struct sw_span info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists, line,
		aranges;
};

/* Opens DWARF over its sections: indexes the units' address ranges (from
 * .debug_aranges where it covers a unit, else the unit DIE's). NULL with
 * *err set, naming `name`, when there is no .debug_info or no unit in it. */
struct sw_dwarf *sw_dwarf_open_sections(const struct sw_dwarf_sections *s, const char *name,
                                        struct sw_err *err);
/* The same over an ELF image's sections (inflated by the image when
 * compressed); when the image is a mapped file, the pages of units once
 * read are given back (sw_dwarf_release_read_pages). */
struct sw_elf;
struct sw_dwarf *sw_dwarf_open(struct sw_elf *e, const char *name, struct sw_err *err);
/* The sections lie in the mapped file m (which outlives d): once a unit's
 * DIEs and line program are read into d's arrays, their pages are given
 * back (sw_mapped_release), so a walk's resident memory holds what it
 * read, not the sections it read it from. */
struct sw_mapped_file;
void sw_dwarf_release_read_pages(struct sw_dwarf *d, const struct sw_mapped_file *m);
void sw_dwarf_free(struct sw_dwarf *d);
/* How many units lookups have read so far; *nunits (when non-NULL) gets
 * the number of units indexed. */
size_t sw_dwarf_units_read(const struct sw_dwarf *d, size_t *nunits);

/* What is at ELF address vaddr, in the form Breakpad's .sym records give
 * it (struct sw_sym_info of lib/symbols.h): the outermost function
 * (DW_TAG_subprogram covering vaddr; its DW_AT_linkage_name demangled,
 * else its name qualified by its namespaces and classes as dump_syms
 * prints it), its start and size (function_offset holds the ELF address of
 * its low pc), the line-table row covering vaddr (file, line, line_offset
 * = the row's address), and the inline chain (DW_TAG_inlined_subroutine
 * nested at vaddr, outermost first, each with the name of the inlined
 * function and DW_AT_call_file / DW_AT_call_line). Strings go to arena a.
 * False when no unit covers vaddr. */
bool sw_dwarf_lookup(struct sw_dwarf *d, uint64_t vaddr, struct sw_arena *a,
                     struct sw_sym_info *out);

#endif
