/* What every reader shares: how it begins reading a file, and how it
 * records a problem. Not a public API. */
#ifndef SW_FORMATS_READER_H
#define SW_FORMATS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"
#include "lib/sw_err.h"
#include "open.h"

/* What a reader of one file says of its format (sw_reader_begin). */
struct sw_reader_entry {
	const char *format;       /* sw_snapshot.format: "minidump" */
	bool scans_need_code;     /* sw_snapshot.scans_need_code */
	/* The format's magic: false refuses the file ("PATH: not_it",
	 * SW_ERR_FORMAT). NULL: the reader checks its bytes itself. */
	bool (*is)(const uint8_t *data, size_t size);
	const char *not_it;
};

/* The way every reader of a file begins: *out initialised for path as
 * e describes it, the snapshot's bytes (sw_snapshot_map_input) mapped
 * into out->file, *file spanning them (little-endian; an empty file an
 * empty span whose data is not NULL), and e's magic checked. Returns
 * SW_OK, or the error (in err) that ends the reading. */
enum sw_err_code sw_reader_begin(const char *path, const struct sw_open_options *opts,
                                 const struct sw_reader_entry *e, struct sw_snapshot *out,
                                 struct sw_span *file, struct sw_err *err);

/* Records a problem in s (printf-style, without the "warning: " prefix,
 * which a warning is given); a problem that is not a warning counts in
 * *damage, which sw_snapshot_verdict turns into "damaged". */
void sw_reader_problem(struct sw_snapshot *s, uint32_t *damage, bool warning, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));

/* The same for a reader r: any struct with the snapshot it fills in
 * r->snap and its count of damage in r->damage. */
#define problem(r, warning, ...) \
	sw_reader_problem((r)->snap, &(r)->damage, (warning), __VA_ARGS__)

#endif
