/* The minidump reader: Microsoft's MINIDUMP format as written by Windows,
 * Breakpad and Crashpad, with Breakpad's and Crashpad's extension streams. */
#ifndef SW_FORMATS_MINIDUMP_H
#define SW_FORMATS_MINIDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"

/* Reads the minidump at path into *out (initialised by the reader with
 * sw_snapshot_init(out, path)). Returns SW_OK, or SW_ERR_IO / SW_ERR_FORMAT
 * (nothing usable: not a minidump, cannot open), or SW_ERR_CORRUPT
 * (something was damaged: what is intact is in *out, problems listed in
 * out->problems, and *err holds a one-line message naming the file and the
 * first problem). The file stays mapped until sw_snapshot_free(out). */
enum sw_err_code sw_minidump_read(const char *path, struct sw_snapshot *out,
                                  struct sw_err *err);
/* The same with the open options (formats/open.h): the bytes may be
 * opts->input's (a decompressed file, standard input). */
struct sw_open_options;
enum sw_err_code sw_minidump_read_with(const char *path, const struct sw_open_options *opts,
                                       struct sw_snapshot *out, struct sw_err *err);

/* The magic check: does data start with a minidump header signature? */
bool sw_minidump_is(const uint8_t *data, size_t size);

#endif
