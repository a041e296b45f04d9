/* Functions, source lines and inline chains from DWARF debug information
 * (.debug_info, .debug_line, .debug_ranges / .debug_rnglists, .debug_str /
 * .debug_line_str / .debug_str_offsets: DWARF 2 to 5), read with libdwarf.
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

#include <libelf.h>

#include "lib/arena.h"
#include "lib/sw_err.h"
#include "lib/symbols.h"

struct sw_dwarf;

/* Opens the DWARF of an ELF (libdwarf's dwarf_elf_init_b over libelf's
 * handle; SHF_COMPRESSED sections are inflated). NULL with *err set when
 * the ELF has no usable .debug_info, or libdwarf refuses it (its error
 * message, naming `name`, goes into err); never aborts (libdwarf's error
 * handler is not used: every call takes an error pointer). */
struct sw_dwarf *sw_dwarf_open(Elf *elf, const char *name, struct sw_err *err);
/* The same over an open file descriptor, with libdwarf's own object
 * reader (dwarf_init_b): ELF, and Mach-O (a .dSYM's DWARF file). The
 * caller keeps fd open until sw_dwarf_free and closes it after. */
struct sw_dwarf *sw_dwarf_open_fd(int fd, const char *name, struct sw_err *err);
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
