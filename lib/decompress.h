/* Streaming decompression of a whole file: gzip, xz, zstd and lz4 (frame
 * format), read from a descriptor a buffer at a time, for snapshots that
 * come compressed (systemd-coredump keeps cores as core.*.zst). The memory
 * it takes does not grow with the file: one input buffer, the caller's
 * output buffer and the codec's state, whose window is bounded (gzip:
 * 32 KiB; lz4: a 4 MiB block; zstd: at most 128 MiB, libzstd's default
 * ZSTD_d_windowLogMax; xz: at most SW_DECODER_XZ_MEMLIMIT).
 *
 * Every format is read whole, as its own tool reads it: concatenated
 * members (`gzip -c a b`, `zstd` frames, `xz` streams with their padding,
 * lz4 frames) decompress to one byte stream; skippable zstd and lz4 frames
 * are skipped. */
#ifndef SW_DECOMPRESS_H
#define SW_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "sw_err.h"

enum sw_compression {
	SW_COMPRESSION_NONE, /* the bytes as they are (standard input copied) */
	SW_COMPRESSION_GZIP,
	SW_COMPRESSION_XZ,
	SW_COMPRESSION_ZSTD,
	SW_COMPRESSION_LZ4,
};

/* The most memory liblzma may take for one xz stream: `xz -9` needs
 * 65 MiB; a stream that needs more is refused, not decoded. */
#define SW_DECODER_XZ_MEMLIMIT ((uint64_t)256 << 20)

/* The compression a file's first n bytes say by their magic number
 * (RFC 1952 §2.3.1, the .xz file format §2.1.1.1, RFC 8878 §3.1.1, lz4's
 * frame format §"General Structure"); SW_COMPRESSION_NONE for any other. */
enum sw_compression sw_compression_of(const uint8_t *head, size_t n);

/* "gzip", "xz", "zstd", "lz4"; "" for SW_COMPRESSION_NONE. */
const char *sw_compression_name(enum sw_compression c);

struct sw_decoder;

/* A decoder of c's format reading fd from its current offset, after the
 * npre bytes at pre, which the caller read from fd already (at most
 * SW_DECODER_BUFFER; they are copied). name: the file, for messages.
 * NULL when out of memory (err set). */
struct sw_decoder *sw_decoder_new(enum sw_compression c, int fd, const uint8_t *pre,
                                  size_t npre, const char *name, struct sw_err *err);

/* The input buffer's size: what is read from fd at a time. */
enum { SW_DECODER_BUFFER = 128 * 1024 };

/* Up to cap decompressed bytes into out, *n of them. SW_OK with *n == 0:
 * the end, every member having ended where the input ends. Errors (the
 * decoder then stays failed): SW_ERR_FORMAT when the data is damaged, is
 * not the format's, or ends in the middle of a member (the message names
 * the file, the format and the compressed byte); SW_ERR_UNSUPPORTED when
 * a stream needs more memory than its bound; SW_ERR_IO when fd cannot be
 * read; SW_ERR_NOMEM. */
enum sw_err_code sw_decoder_read(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                 struct sw_err *err);

/* The compressed bytes decoded so far (pre included). */
uint64_t sw_decoder_consumed(const struct sw_decoder *d);

void sw_decoder_free(struct sw_decoder *d);

#endif
