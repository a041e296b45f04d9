/* The ELF/DWARF symbol provider: a module's names, lines and inline frames
 * from DWARF (symbols/dwarf_lines.h), else from the ELF symbol tables
 * (.symtab, .dynsym, MiniDebugInfo's .symtab), its unwind rules from
 * .debug_frame, .eh_frame and ARM EHABI, and its code bytes, all behind
 * the interface of lib/symbols.h, next to the Breakpad .sym provider. */
#ifndef SW_SYMBOLS_ELF_SYMBOLS_H
#define SW_SYMBOLS_ELF_SYMBOLS_H

#include "elf_image.h"
#include "lib/symbols.h"

struct sw_elf_symbols;

/* A provider over a module's binary (`image`: the file the process
 * mapped, for code bytes, CFI and symbols; may be NULL) and its separate
 * debug file (`debug`: DWARF, .symtab, .debug_frame; may be NULL). Takes
 * ownership of both. NULL only when both are NULL or memory is short. */
struct sw_elf_symbols *sw_elf_symbols_create(struct sw_elf *image, struct sw_elf *debug);
void sw_elf_symbols_free(struct sw_elf_symbols *s);

/* Does the provider have DWARF line information? (A module with both a
 * .sym file and ELF files takes names and lines from the richer one.) */
bool sw_elf_symbols_has_lines(struct sw_elf_symbols *s);
/* Does it have unwind rules (CFI or EHABI)? */
bool sw_elf_symbols_has_cfi(struct sw_elf_symbols *s);
/* The module offset of address 0 of a Breakpad .sym made from this ELF
 * by dump_syms: dump_syms subtracts the first loadable segment's p_vaddr
 * from every address, where a module offset counts from file byte 0's
 * (elf_image.h, file_vaddr); they differ by that segment's p_offset, 0
 * for most shared libraries, 0x1000 or 0x10000 for a firmware or an
 * executable whose headers are not loaded. A module with both a .sym and
 * this ELF looks the .sym up at offset - this. */
uint64_t sw_elf_symbols_sym_base(const struct sw_elf_symbols *s);

extern const struct sw_symbols_ops sw_elf_symbols_ops;

#endif
