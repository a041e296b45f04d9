/* Finding a module's ELF files: the binary the process mapped and its
 * separate debug file, in the ways elfutils' libdwfl and gdb look for
 * them, each checked against the module's identity before use.
 *
 * For each module, in this order:
 *   1. the image the snapshot names (an offline capture's file next to
 *      maps.txt, or the ELF in the snapshot's memory);
 *   2. in each symbol path, in the order given:
 *      - a directory D: D/.build-id/xx/rest.debug (debug file) and
 *        D/.build-id/xx/rest (binary), by the module's GNU build-id;
 *        D/NAME and D/NAME.debug; D/NAME/BUILDID/NAME (a symbol server's
 *        layout, BUILDID in lower-case hex); each also with ".gz";
 *      - a single ELF file: used for the module whose build-id it has;
 *   3. the module's own path on this machine, when asked for (the same
 *      build must be installed here: the default for an ELF core, as gdb
 *      and eu-stack read a core where it was written);
 *   4. in each debug directory (/usr/lib/debug by default, as gdb's
 *      debug-file-directory): DIR/.build-id/xx/rest.debug;
 *   5. the binary's .gnu_debuglink: its file name next to the binary, in
 *      the binary's .debug/ folder, in each symbol directory, and under
 *      each debug directory + the binary's folder; its CRC32 must match.
 * A file whose build-id is not the module's is refused (and said so once,
 * by the caller's warning callback); so is a debuglink target whose CRC
 * differs. A module without a build-id takes a file by name only if the
 * file has no build-id either, or its Breakpad debug id is the module's. */
#ifndef SW_SYMBOLS_ELF_LOCATE_H
#define SW_SYMBOLS_ELF_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "elf_image.h"
#include "lib/snapshot.h"
#include "lib/strlist.h"

struct sw_elf_locator {
	const struct sw_snapshot *snap;
	const char *const *paths;   /* symbol paths: directories or ELF files */
	size_t npaths;
	bool local_modules;         /* also try the module's own path */
	/* A local file of another build refused without a word: reading
	 * local modules is the default, and a core from another machine
	 * names files of other builds at every path. */
	bool local_quiet;
	const char *const *debug_dirs; /* gdb's debug-file-directory */
	size_t ndebug_dirs;
	/* Called once per refused file, with a line naming it and why. */
	void (*warn)(void *self, const char *line);
	void *warn_self;
	/* Paths already refused (so each is said once): owned by the
	 * locator's user, grown by sw_elf_locate. */
	struct sw_strlist refused;
};

/* Opens module m's binary (*image) and debug file (*debug); either may be
 * NULL. *image_path / *debug_path receive malloc'd copies of the paths
 * used (NULL when none). True when anything was found. */
bool sw_elf_locate(struct sw_elf_locator *l, const struct sw_module *m, struct sw_elf **image,
                   struct sw_elf **debug, char **image_path, char **debug_path);
void sw_elf_locator_free(struct sw_elf_locator *l);

#endif
