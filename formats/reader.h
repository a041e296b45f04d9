/* What every reader shares: how it records a problem. Not a public API. */
#ifndef SW_FORMATS_READER_H
#define SW_FORMATS_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/snapshot.h"

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
