/* Reading a gzip file (RFC 1952) whole into memory, for `.sym.gz`. */
#ifndef SW_GZ_H
#define SW_GZ_H

#include <stddef.h>
#include <stdint.h>

#include "lib/sw_err.h"

/* How far a .sym.gz may inflate: SW_GZ_LIMIT_RATIO times its compressed
 * size, at least SW_GZ_LIMIT_MIN, at most SW_GZ_LIMIT_MAX. Breakpad symbol
 * text compresses 4 to 10 times (the bench stores: 3.5 to 10.7); deflate
 * can reach 1032 times, which a decompression bomb uses (1 MiB of gzip,
 * 1 GiB of zeros). Past the limit a file is refused, not cut. */
enum {
	SW_GZ_LIMIT_RATIO = 64,
	SW_GZ_LIMIT_MIN = 64 << 20,
};
#define SW_GZ_LIMIT_MAX ((size_t)1 << 32)
size_t sw_gz_limit(size_t compressed);

/* Inflates every gzip member of in[0..n) into one malloc'd buffer (*out,
 * *out_len; free() it). The last member's ISIZE trailer sizes the first
 * allocation, but it is only a hint: the buffer grows when the data is
 * longer (multi-member files, ISIZE mod 2^32, lies) and never exceeds
 * max_out bytes. Bytes after the last member that do not start a new one
 * are ignored, as gzip does.
 * Returns SW_OK; SW_ERR_CORRUPT with the data inflated before the damage
 * still in *out; SW_ERR_FORMAT (not gzip, *out NULL); SW_ERR_UNSUPPORTED
 * when it inflates to more than max_out bytes (refused: *out NULL);
 * SW_ERR_NOMEM. `name` names the input in the message. */
enum sw_err_code sw_gz_inflate(const uint8_t *in, size_t n, size_t max_out,
                               const char *name, uint8_t **out, size_t *out_len,
                               struct sw_err *err);

/* Maps path and inflates it (as above, max_out sw_gz_limit(its size)). */
enum sw_err_code sw_gz_read_file(const char *path, uint8_t **out, size_t *out_len,
                                 struct sw_err *err);

#endif
