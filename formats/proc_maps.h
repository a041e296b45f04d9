/* A process's memory map as /proc/PID/maps (proc(5)) lists it, read into
 * a snapshot: the offline folder's maps.txt, and the --maps file of an
 * ELF core that names no files. Not a public API. */
#ifndef SW_FORMATS_PROC_MAPS_H
#define SW_FORMATS_PROC_MAPS_H

#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"

/* Lines kept: a large Android app has ~10,000 maps. */
enum { SW_PROC_MAPS_MAX = 1 << 20 };

/* text's maps into s->maps (s's arena), in the file's order; path names
 * the file in the problems recorded in s. Returns how many of those
 * problems are damage (not warnings), for the reader's verdict. */
uint32_t sw_proc_maps_read(struct sw_snapshot *s, struct sw_span text, const char *path);

#endif
