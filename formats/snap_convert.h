/* Converts a snapshot of any format stackwalk reads into a .snap file
 * (docs/snap-format.md): what a walk of the crashing thread (or of every
 * thread) needs, so that walking the .snap gives the same frames as walking
 * the input, with the same symbol paths. */
#ifndef SW_FORMATS_SNAP_CONVERT_H
#define SW_FORMATS_SNAP_CONVERT_H

#include <stdbool.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"
#include "snap_writer.h"

struct sw_snap_convert_options {
	/* Every thread and its stack; else the crashing (or requesting)
	 * thread only, and no other thread's stack memory. */
	bool all_threads;
};

/* Writes s as a .snap through write(ctx, ...), streamed (snap_writer's
 * stream mode). Returns SW_OK; SW_ERR_UNSUPPORTED when the snapshot's CPU
 * has no .snap CPU id; SW_ERR_IO when write failed; SW_ERR_NOMEM. *err
 * names s->path. */
enum sw_err_code sw_snap_convert(const struct sw_snapshot *s,
                                 const struct sw_snap_convert_options *o, snap_write_fn write,
                                 void *ctx, struct sw_err *err);

/* The same into the file at out_path (created or truncated; removed
 * again when the conversion fails). */
enum sw_err_code sw_snap_convert_file(const struct sw_snapshot *s,
                                      const struct sw_snap_convert_options *o,
                                      const char *out_path, struct sw_err *err);

#endif
