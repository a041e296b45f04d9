/* Names and lines of an Apple module from its dSYM bundle's DWARF
 * (crash.dSYM/Contents/Resources/DWARF/crash: a Mach-O file holding only
 * debug sections): its __DWARF segment's sections go to the DWARF reader
 * (symbols/dwarf_lines.h sw_dwarf_open_sections). No unwind rules: a dSYM has
 * none (they live in the binary's __eh_frame / __unwind_info). */
#ifndef SW_SYMBOLS_MACHO_DSYM_H
#define SW_SYMBOLS_MACHO_DSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/symbols.h"
#include "lib/sw_err.h"

struct sw_dsym;

/* The LC_UUID and the __TEXT segment's vmaddr of a 64-bit little-endian
 * Mach-O image (MH_MAGIC_64); false for anything else (fat files, 32-bit
 * images, a truncated header). */
bool sw_macho_identity(const uint8_t *data, size_t size, uint8_t uuid[16], uint64_t *text_vmaddr);

/* Breakpad's debug id of a Mach-O UUID: its 16 bytes in order, upper-case
 * hex, then age 0 (dump_syms' form on macOS). */
void sw_macho_debug_id(const uint8_t uuid[16], char out[34]);

/* The DWARF sections of a 64-bit Mach-O image: its __DWARF segment's
 * __debug_* sections (names are cut at 16 bytes: .debug_str_offsets is
 * __debug_str_offs). Absent ones are left empty. */
struct sw_dwarf_sections;
void sw_macho_dwarf_sections(const uint8_t *data, size_t size, struct sw_dwarf_sections *out);

/* Opens the DWARF file at path when its UUID gives debug_id; NULL with
 * *err set otherwise (not Mach-O, another build, no DWARF). */
struct sw_dsym *sw_dsym_open(const char *path, const char *debug_id, struct sw_err *err);
void sw_dsym_free(struct sw_dsym *d);

/* The DWARF reader behind d (tests/fuzz_macho_dsym.c asks at its units'
 * ranges). */
const struct sw_dwarf *sw_dsym_dwarf(const struct sw_dsym *d);

extern const struct sw_symbols_ops sw_dsym_ops;

#endif
