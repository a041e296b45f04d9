/* Opens a snapshot of any format stackwalk reads, chosen by its magic. */
#ifndef SW_FORMATS_OPEN_H
#define SW_FORMATS_OPEN_H

#include "lib/snapshot.h"
#include "lib/sw_err.h"

/* Always initialises *out (sw_snapshot_free is safe afterwards). Returns
 * SW_OK; SW_ERR_CORRUPT with what was intact in *out; or SW_ERR_IO /
 * SW_ERR_FORMAT when nothing could be read. */
enum sw_err_code sw_snapshot_open(const char *path, struct sw_snapshot *out,
                                  struct sw_err *err);

/* Opens the snapshot `part` describes in an input that holds several (a
 * log with several microdumps): part is an earlier snapshot's `next`, when
 * its has_next is set. Returns as sw_snapshot_open. */
enum sw_err_code sw_snapshot_open_part(const char *path, const struct sw_part *part,
                                       struct sw_snapshot *out, struct sw_err *err);

#endif
