/* The .snap reader: a device's crash snapshot (docs/snap-format.md),
 * written by formats/snap_writer.c in a fault handler: a header, then
 * records (system, threads with registers, memory, modules, crash,
 * annotations, END), each with its own CRC-32, so that a file cut short or
 * partly corrupt keeps every record that is intact. */
#ifndef SW_FORMATS_SNAP_H
#define SW_FORMATS_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"

struct sw_open_options;

/* Does the file start with the .snap magic? */
bool sw_snap_is(const uint8_t *data, size_t size);

/* Reads the .snap file at path into *out (initialised by the reader;
 * out->format "snap"). opts (may be NULL) gives the symbol paths, where the
 * modules' ELF files tell how their run-time addresses relate to their
 * link addresses. Returns SW_OK (warnings, if any, in out->problems);
 * SW_ERR_CORRUPT (what is intact is in *out, the problems in
 * out->problems, each naming a record's offset; *err names the file and
 * the first); SW_ERR_IO; SW_ERR_FORMAT (no readable header) or
 * SW_ERR_UNSUPPORTED (a version other than 1). */
enum sw_err_code sw_snap_read(const char *path, const struct sw_open_options *opts,
                              struct sw_snapshot *out, struct sw_err *err);

#endif
