/* Opens a snapshot of any format stackwalk reads, chosen by its magic. */
#ifndef SW_FORMATS_OPEN_H
#define SW_FORMATS_OPEN_H

#include <stddef.h>

#include "input.h"
#include "lib/mapped_file.h"
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
	/* The snapshot's bytes when they are not the file at path (standard
	 * input, formats/input.h): path then only names them. NULL: the file
	 * at path, decompressed first when it is compressed. */
	const struct sw_input *input;
	/* The most bytes a compressed snapshot may decompress to; 0:
	 * SW_INPUT_MAX_DEFAULT. */
	uint64_t max_decompressed;
};

/* Always initialises *out (sw_snapshot_free is safe afterwards). Returns
 * SW_OK; SW_ERR_CORRUPT with what was intact in *out; or SW_ERR_IO /
 * SW_ERR_FORMAT when nothing could be read.
 *
 * A file compressed with gzip, xz, zstd or lz4 (told by its magic bytes,
 * not its name) is read as what it holds: the start is decompressed to
 * choose the reader (a compressed file that holds no snapshot is refused
 * with what it holds, without decompressing the rest), then the whole
 * into an unlinked temporary file (formats/input.h) that the reader maps.
 * Every message names path, never the temporary. */
enum sw_err_code sw_snapshot_open(const char *path, struct sw_snapshot *out,
                                  struct sw_err *err);
/* The same with options (NULL: none, as sw_snapshot_open). */
enum sw_err_code sw_snapshot_open_with(const char *path, const struct sw_open_options *opts,
                                       struct sw_snapshot *out, struct sw_err *err);

/* Opens the snapshot `part` describes in an input that holds several (a
 * log with several microdumps): part is an earlier snapshot's `next`, when
 * its has_next is set. opts (may be NULL) as for sw_snapshot_open_with:
 * standard input is read from opts->input; a compressed log without it is
 * decompressed again (logs are small). Returns as
 * sw_snapshot_open. */
enum sw_err_code sw_snapshot_open_part(const char *path, const struct sw_open_options *opts,
                                       const struct sw_part *part, struct sw_snapshot *out,
                                       struct sw_err *err);

/* For the readers: maps the snapshot they read, opts->input's bytes when
 * opts gives them, else the file at path (named path in messages). */
enum sw_err_code sw_snapshot_map_input(const char *path, const struct sw_open_options *opts,
                                       struct sw_mapped_file *out, struct sw_err *err);

#endif
