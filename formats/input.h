/* A snapshot whose bytes are not a file to map as it is: a compressed
 * file (systemd-coredump's core.*.zst) or standard input. Its bytes are
 * written, decompressed, into an unlinked temporary file under $TMPDIR
 * (else /tmp), at most a limit of them, which the readers then map like
 * any snapshot file; the temporary disappears with its last descriptor
 * and mapping (sw_snapshot_free). */
#ifndef SW_FORMATS_INPUT_H
#define SW_FORMATS_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/decompress.h"
#include "lib/mapped_file.h"
#include "lib/sw_err.h"

/* The most bytes a snapshot may decompress to (or stdin copy to) by
 * default: 32 GiB, what systemd-coredump keeps of a process at most on a
 * 64-bit system (coredump.conf(5), ProcessSizeMax and ExternalSizeMax),
 * so that no core it stored is refused. --max-decompressed changes it. */
#define SW_INPUT_MAX_DEFAULT ((uint64_t)32 << 30)

/* The name messages give standard input ("-" on the command line). */
#define SW_INPUT_STDIN_NAME "standard input"

struct sw_input {
	int fd;                          /* the bytes, from offset 0; -1: none */
	bool owned;                      /* fd is a temporary, closed by sw_input_close */
	enum sw_compression compression; /* what they were decompressed from */
};

/* Writes what dec (a decoder of c) decodes into a new temporary file:
 * first the nhead bytes at head, which dec gave already, then the rest of
 * its output, at most max bytes in all (0: SW_INPUT_MAX_DEFAULT). On success in holds the
 * temporary; on failure it holds none and err names the file (name) and
 * why: SW_ERR_FORMAT over the limit or for damaged data, SW_ERR_IO when
 * the temporary cannot be made or written (a full disk), SW_ERR_NOMEM. */
enum sw_err_code sw_input_spill(struct sw_decoder *dec, enum sw_compression c, const char *name,
                                const uint8_t *head, size_t nhead, uint64_t max,
                                struct sw_input *in, struct sw_err *err);

/* Standard input as a snapshot: a regular file (`stackwalk - < core`)
 * that is not compressed is used as it is, from its byte 0; anything else
 * (a pipe, a compressed file) is decompressed or copied into a temporary,
 * at most max bytes (0: the default). */
enum sw_err_code sw_input_stdin(uint64_t max, struct sw_input *in, struct sw_err *err);

/* Maps the snapshot path names: in's bytes when in holds some, else the
 * file at path (path names it in messages either way). */
enum sw_err_code sw_input_map(const char *path, const struct sw_input *in,
                              struct sw_mapped_file *out, struct sw_err *err);

void sw_input_close(struct sw_input *in);

/* "32 GiB", "1.5 MiB", "100 bytes": a limit as messages give it. */
void sw_input_size_text(uint64_t n, char *buf, size_t size);

#endif
