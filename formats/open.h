/* Opens a snapshot of any format stackwalk reads, chosen by its magic. */
#ifndef SW_FORMATS_OPEN_H
#define SW_FORMATS_OPEN_H

#include <stddef.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"

/* What a reader may need beyond the snapshot file itself: an ELF core
 * without NT_FILE (qemu-user's, some gdb ones) names its executable and
 * libraries only through the dynamic loader's data, which needs the
 * executable's program headers when the core did not keep them. */
struct sw_open_options {
	/* Files and folders where the executable and libraries may be found
	 * (the symbol paths): a file found there is taken for a module by its
	 * build-id where the core has one, else by name, checked against the
	 * core (entry point, dynamic section address). */
	const char *const *search_paths;
	size_t nsearch_paths;
	/* A /proc/PID/maps file of the crashed process: the module map of a
	 * core that has none; NULL: none. */
	const char *maps_file;
};

/* Always initialises *out (sw_snapshot_free is safe afterwards). Returns
 * SW_OK; SW_ERR_CORRUPT with what was intact in *out; or SW_ERR_IO /
 * SW_ERR_FORMAT when nothing could be read. */
enum sw_err_code sw_snapshot_open(const char *path, struct sw_snapshot *out,
                                  struct sw_err *err);
/* The same with options (NULL: none, as sw_snapshot_open). */
enum sw_err_code sw_snapshot_open_with(const char *path, const struct sw_open_options *opts,
                                       struct sw_snapshot *out, struct sw_err *err);

/* Opens the snapshot `part` describes in an input that holds several (a
 * log with several microdumps): part is an earlier snapshot's `next`, when
 * its has_next is set. Returns as sw_snapshot_open. */
enum sw_err_code sw_snapshot_open_part(const char *path, const struct sw_part *part,
                                       struct sw_snapshot *out, struct sw_err *err);

#endif
