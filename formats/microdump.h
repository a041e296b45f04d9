/* The microdump reader: the text dumps Breakpad's Linux and Android clients
 * write into the system log (logcat) or to stderr, between the lines
 * -----BEGIN BREAKPAD MICRODUMP----- and -----END BREAKPAD MICRODUMP-----
 * (Breakpad's microdump_writer.cc writes them, microdump.cc reads them). A
 * log may hold several microdumps: each is one snapshot, read in turn. */
#ifndef SW_FORMATS_MICRODUMP_H
#define SW_FORMATS_MICRODUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"

/* Reads one microdump of the log at path into *out (initialised by the
 * reader): the first when part is NULL, else the one part describes (a
 * snapshot's `next`). out->part says which it is and how many the log
 * holds; out->has_next and out->next where the following one starts.
 * Returns SW_OK; SW_ERR_CORRUPT (what is intact is in *out, problems in
 * out->problems, *err names the file and the first one); or SW_ERR_IO /
 * SW_ERR_FORMAT (cannot open, or no microdump in the log). */
enum sw_err_code sw_microdump_read(const char *path, const struct sw_part *part,
                                   struct sw_snapshot *out, struct sw_err *err);
/* The same with the open options (formats/open.h): the bytes may be
 * opts->input's (a decompressed log, standard input). */
struct sw_open_options;
enum sw_err_code sw_microdump_read_with(const char *path, const struct sw_open_options *opts,
                                        const struct sw_part *part, struct sw_snapshot *out,
                                        struct sw_err *err);

/* The content check: does data (the head of a file) hold a microdump's
 * BEGIN or END line? Logcat prefixes may come before it. */
bool sw_microdump_is(const uint8_t *data, size_t size);

#endif
