/* Where a symbol store files a module's files: the one definition of the
 * layout for the local store (store.c, elf_locate.c) and the symbol
 * servers (symbol_server.c), which fetch into a cache of the same shape.
 *
 *     NAME/DEBUG_ID/STEM.sym[.gz]        Breakpad (STEM: NAME minus ".pdb")
 *     CODE_NAME/BUILD_ID/CODE_NAME       an ELF file, by its build-id
 *
 * as Breakpad's symbol store, its HTTP symbol supplier and Mozilla's Tecken
 * lay them out. */
#ifndef SW_SYMBOLS_STORE_LAYOUT_H
#define SW_SYMBOLS_STORE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/snapshot.h"

/* The NAME a module's symbols are filed under: the debug file's base name,
 * else the code file's; NULL when it has neither. */
const char *sw_store_debug_name(const struct sw_module *m);

/* TOP/NAME/DEBUG_ID/STEM.sym (gz: .sym.gz) into out; top NULL: the path
 * relative to the store's top. False when it does not fit in cap. */
bool sw_store_sym_path(char *out, size_t cap, const char *top, const char *name,
                       const char *debug_id, bool gz);

/* TOP/CODE_NAME/BUILD_ID/CODE_NAME into out (build_id in lower-case hex);
 * top NULL: relative. False when it does not fit in cap. */
bool sw_store_elf_path(char *out, size_t cap, const char *top, const char *code_name,
                       const char *build_id);

#endif
