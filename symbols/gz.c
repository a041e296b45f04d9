/* gzip → memory, straight into the final buffer. libdeflate inflates whole
 * members about three times as fast as zlib's streaming inflate (27 MB of
 * .sym.gz: 24 ms against 61 ms), and decompression is the largest single
 * cost of a walk over gzipped symbols; zlib's streaming inflate remains for
 * damaged data, where it salvages what precedes the damage. */
#include "gz.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <libdeflate.h>
#include <zlib.h>

#include "lib/mapped_file.h"

enum {
	GZ_MIN_ALLOC = 64 * 1024,
	/* Deflate cannot expand by more than about 1032:1; a larger ISIZE is a
	 * lie and must not decide the allocation. */
	GZ_MAX_RATIO = 1032,
};

size_t sw_gz_limit(size_t compressed)
{
	size_t limit = compressed > SIZE_MAX / SW_GZ_LIMIT_RATIO ? SIZE_MAX
	                                                          : compressed * SW_GZ_LIMIT_RATIO;
	if (limit < SW_GZ_LIMIT_MIN)
		limit = SW_GZ_LIMIT_MIN;
	if (limit > SW_GZ_LIMIT_MAX)
		limit = SW_GZ_LIMIT_MAX;
	return limit;
}

static bool is_gzip_member(const uint8_t *p, size_t n)
{
	return n >= 18 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8;
}

/* Every path below allocates at most max_out + 1 bytes (the "hard" size):
 * output that fills that one byte past the limit is refused, output of
 * max_out bytes exactly is not. */
static size_t initial_size(const uint8_t *in, size_t n, size_t hard)
{
	/* ISIZE: the last member's uncompressed length mod 2^32, little-endian. */
	size_t hint = (size_t)in[n - 4] | (size_t)in[n - 3] << 8 |
	              (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24;
	size_t bound = n > SIZE_MAX / GZ_MAX_RATIO ? SIZE_MAX : n * GZ_MAX_RATIO;
	if (hint > bound)
		hint = bound;
	if (hint < GZ_MIN_ALLOC)
		hint = GZ_MIN_ALLOC;
	/* One spare byte: the end of input is seen without a grow. Never more
	 * than the hard size, though. */
	return hint < hard ? hint + 1 : hard;
}

/* Doubles the output buffer, to at most `hard` bytes; false (the buffer
 * kept) when memory runs out. */
static bool grow_output(uint8_t **buf, size_t *cap, size_t hard)
{
	size_t ncap = *cap > hard / 2 ? hard : *cap * 2;
	uint8_t *nb = realloc(*buf, ncap);
	if (!nb)
		return false;
	*buf = nb;
	*cap = ncap;
	return true;
}

/* Hands the inflated bytes to the caller, giving back a large
 * overestimate (a lying ISIZE) first. */
static void hand_over_output(uint8_t *buf, size_t cap, size_t used, uint8_t **out,
                             size_t *out_len)
{
	if (cap - used > (1u << 20)) {
		uint8_t *nb = realloc(buf, used ? used : 1);
		if (nb)
			buf = nb;
	}
	*out = buf;
	*out_len = used;
}

static enum sw_err_code refuse_too_big(const char *name, size_t max_out, struct sw_err *err)
{
	return sw_err_set(err, SW_ERR_UNSUPPORTED,
	                  "%s: inflates to more than %zu bytes, over the limit for its compressed "
	                  "size: refused",
	                  name, max_out);
}

/* zlib's streaming inflate: slower, but keeps what precedes damage and
 * reports where it stopped. */
static enum sw_err_code gz_inflate_streaming(const uint8_t *in, size_t n, size_t max_out,
                                             const char *name, uint8_t **out,
                                             size_t *out_len, struct sw_err *err)
{
	*out = NULL;
	*out_len = 0;
	if (!is_gzip_member(in, n))
		return sw_err_set(err, SW_ERR_FORMAT, "%s: not a gzip file", name);

	size_t hard = max_out < SIZE_MAX ? max_out + 1 : max_out;
	size_t cap = initial_size(in, n, hard);
	uint8_t *buf = malloc(cap);
	if (!buf)
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);

	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		free(buf);
		return sw_err_set(err, SW_ERR_NOMEM, "%s: cannot start zlib", name);
	}
	size_t used = 0, in_off = 0;
	enum sw_err_code rc = SW_OK;
	for (;;) {
		/* zlib counts in uInt: feed and drain at most 1 GiB at a time. */
		size_t in_chunk = n - in_off < (1u << 30) ? n - in_off : (1u << 30);
		size_t out_chunk = cap - used < (1u << 30) ? cap - used : (1u << 30);
		zs.next_in = (Bytef *)(in + in_off);
		zs.avail_in = (uInt)in_chunk;
		zs.next_out = buf + used;
		zs.avail_out = (uInt)out_chunk;
		int z = inflate(&zs, Z_NO_FLUSH);
		in_off += in_chunk - zs.avail_in;
		used += out_chunk - zs.avail_out;
		if (used > max_out) {
			rc = refuse_too_big(name, max_out, err);
			break;
		}
		if (z == Z_STREAM_END) {
			/* Another member follows? (gzip -c a b > ab) */
			if (!is_gzip_member(in + in_off, n - in_off))
				break;
			if (inflateReset(&zs) != Z_OK) {
				rc = sw_err_set(err, SW_ERR_CORRUPT, "%s: zlib reset failed", name);
				break;
			}
			continue;
		}
		if (z == Z_BUF_ERROR && zs.avail_out != 0) {
			/* Out of input in the middle of a member. */
			rc = sw_err_set(err, SW_ERR_CORRUPT, "%s: truncated gzip data", name);
			break;
		}
		if (z != Z_OK && z != Z_BUF_ERROR) {
			rc = sw_err_set(err, SW_ERR_CORRUPT, "%s: corrupt gzip data (%s)", name,
			                zs.msg ? zs.msg : "zlib error");
			break;
		}
		if (used == cap) {
			if (!grow_output(&buf, &cap, hard)) {
				rc = sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
				break;
			}
		} else if (in_off == n && z == Z_OK && zs.avail_out != 0) {
			/* All input consumed, member not finished. */
			rc = sw_err_set(err, SW_ERR_CORRUPT, "%s: truncated gzip data", name);
			break;
		}
	}
	inflateEnd(&zs);
	if (rc == SW_ERR_NOMEM || rc == SW_ERR_UNSUPPORTED) {
		free(buf);
		return rc;
	}
	hand_over_output(buf, cap, used, out, out_len);
	return rc;
}

enum fast_result { FAST_OK, FAST_DAMAGED, FAST_NOMEM, FAST_TOO_BIG };

enum { GZ_LARGE = 4u << 20 }; /* compressed bytes: see sw_gz_inflate */

/* Faults the pages of a large output buffer in with one call, before the
 * inflater writes them: a page fault per 4 KiB page was 8 % of a cold
 * gen48k walk (27 MB of text). Every page is written anyway, so nothing
 * more becomes resident. Best effort (MADV_POPULATE_WRITE: Linux 5.14). */
static void prefault(uint8_t *buf, size_t cap)
{
#ifdef MADV_POPULATE_WRITE
	if (cap < (1u << 20))
		return;
	uintptr_t lo = ((uintptr_t)buf + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = ((uintptr_t)buf + cap) & ~(uintptr_t)4095;
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)buf;
	(void)cap;
#endif
}

/* The fast path: libdeflate, member by member, growing the buffer (and
 * inflating the member again) when ISIZE understated the size. Damaged data
 * is left to the streaming path. */
static enum fast_result gz_inflate_fast(const uint8_t *in, size_t n, size_t max_out,
                                        uint8_t **out, size_t *out_len)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t hard = max_out < SIZE_MAX ? max_out + 1 : max_out;
	size_t cap = initial_size(in, n, hard), used = 0, in_off = 0;
	uint8_t *buf = d ? malloc(cap) : NULL;
	if (!buf) {
		libdeflate_free_decompressor(d);
		return FAST_NOMEM;
	}
	prefault(buf, cap);
	enum fast_result rc = FAST_OK;
	while (in_off < n && is_gzip_member(in + in_off, n - in_off)) {
		size_t in_used = 0, got = 0;
		enum libdeflate_result r = libdeflate_gzip_decompress_ex(
			d, in + in_off, n - in_off, buf + used, cap - used, &in_used, &got);
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE && cap < hard) {
			if (!grow_output(&buf, &cap, hard)) {
				rc = FAST_NOMEM;
				break;
			}
			continue;
		}
		/* A member that does not fit in the hard size is too big (whole
		 * members are inflated, so damage after the limit is not seen). */
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
			rc = FAST_TOO_BIG;
			break;
		}
		if (r != LIBDEFLATE_SUCCESS) {
			rc = FAST_DAMAGED;
			break;
		}
		used += got;
		in_off += in_used;
		if (used > max_out) {
			rc = FAST_TOO_BIG;
			break;
		}
	}
	libdeflate_free_decompressor(d);
	if (rc != FAST_OK) {
		free(buf);
		return rc;
	}
	hand_over_output(buf, cap, used, out, out_len);
	return FAST_OK;
}

enum sw_err_code sw_gz_inflate(const uint8_t *in, size_t n, size_t max_out,
                               const char *name, uint8_t **out, size_t *out_len,
                               struct sw_err *err)
{
	*out = NULL;
	*out_len = 0;
	if (!is_gzip_member(in, n))
		return sw_err_set(err, SW_ERR_FORMAT, "%s: not a gzip file", name);
	/* One large inflation at a time in a process: while a file inflates,
	 * its compressed bytes are resident beside its output, and two at once
	 * (walking threads loading libLLVM's 8.6 MB and librustc_driver's
	 * 6.7 MB .sym.gz) raised rustc_abrt's peak RSS by up to 3 MB, past a
	 * quarter of Breakpad's; serial, they cost ~40 ms of its ~0.2 s. */
	static pthread_mutex_t large = PTHREAD_MUTEX_INITIALIZER;
	bool one_at_a_time = n >= GZ_LARGE;
	if (one_at_a_time)
		pthread_mutex_lock(&large);
	enum fast_result fast = gz_inflate_fast(in, n, max_out, out, out_len);
	if (one_at_a_time)
		pthread_mutex_unlock(&large);
	switch (fast) {
	case FAST_OK: return SW_OK;
	case FAST_NOMEM: return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
	case FAST_TOO_BIG: return refuse_too_big(name, max_out, err);
	case FAST_DAMAGED: break;
	}
	return gz_inflate_streaming(in, n, max_out, name, out, out_len, err);
}

enum sw_err_code sw_gz_read_file(const char *path, uint8_t **out, size_t *out_len,
                                 struct sw_err *err)
{
	struct sw_mapped_file m;
	*out = NULL;
	*out_len = 0;
	enum sw_err_code rc = sw_map_file(path, &m, err);
	if (rc != SW_OK)
		return rc;
	rc = sw_gz_inflate(m.data, m.size, sw_gz_limit(m.size), path, out, out_len, err);
	sw_unmap_file(&m);
	return rc;
}
