/* libFuzzer: gzip data as a .sym.gz or a gzipped ELF file is read
 * (symbols/gz.c): every member inflated into one buffer, the last ISIZE
 * only a hint, bytes after the last member ignored, output past a limit
 * refused, damaged data salvaged by zlib's streaming inflate after
 * libdeflate's fast path gave up. The first input byte picks the limit
 * (0 to 1 MiB, around the boundaries the code treats apart: exactly the
 * limit is kept, one byte more refused); the rest is the file.
 *
 * The oracle is a plain zlib inflate of the same members: when it inflates
 * everything to at most the limit, sw_gz_inflate must say SW_OK with the
 * same bytes; when it passes the limit, SW_ERR_UNSUPPORTED. (The other way
 * round is not checked: libdeflate accepts a few headers zlib refuses, an
 * FHCRC that does not match.) Every result keeps its contract: refused and
 * non-gzip inputs give no buffer, others at most the limit. Seeds:
 * testdata/gz (testdata/gz/make_seeds.py). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "symbols/gz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t limits[8] = { 0, 1, 255, 4096, 65535, 65536, 65537, 1 << 20 };

static bool is_member(const uint8_t *p, size_t n)
{
	return n >= 18 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8;
}

enum ref_result { REF_OK, REF_DAMAGED, REF_TOO_BIG };

/* zlib alone: members one after another while what follows starts one,
 * output counted (into buf, up to cap bytes) until it passes max_out. */
static enum ref_result reference_inflate(const uint8_t *in, size_t n, size_t max_out,
                                         uint8_t *buf, size_t cap, size_t *len)
{
	*len = 0;
	if (!is_member(in, n))
		return REF_DAMAGED;
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		abort();
	enum ref_result r = REF_DAMAGED;
	size_t off = 0;
	uint8_t scratch[4096];
	for (;;) {
		size_t room = cap - *len;
		zs.next_in = (Bytef *)(in + off);
		zs.avail_in = (uInt)(n - off);
		zs.next_out = room ? buf + *len : scratch;
		zs.avail_out = room ? (uInt)room : (uInt)sizeof scratch;
		int z = inflate(&zs, Z_NO_FLUSH);
		size_t got = (room ? room : sizeof scratch) - zs.avail_out;
		off = n - zs.avail_in;
		*len += got;
		if (*len > max_out) {
			r = REF_TOO_BIG;
			break;
		}
		if (z == Z_STREAM_END) {
			if (!is_member(in + off, n - off)) {
				r = REF_OK;
				break;
			}
			inflateReset(&zs);
			continue;
		}
		if (z != Z_OK || (got == 0 && zs.avail_in == 0))
			break; /* damaged, or truncated */
	}
	inflateEnd(&zs);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t max_out = limits[data[0] & 7];
	const uint8_t *in = data + 1;
	size_t n = size - 1;
	uint8_t *out = NULL;
	size_t out_len = 0;
	struct sw_err err = { 0 };
	enum sw_err_code rc = sw_gz_inflate(in, n, max_out, "fuzz", &out, &out_len, &err);
	bool gives_buffer = rc == SW_OK || rc == SW_ERR_CORRUPT;
	if (gives_buffer ? out_len > max_out : out != NULL || out_len != 0)
		abort();
	if (rc != SW_OK && rc != SW_ERR_CORRUPT && rc != SW_ERR_FORMAT &&
	    rc != SW_ERR_UNSUPPORTED && rc != SW_ERR_NOMEM)
		abort();

	size_t cap = max_out + 1, ref_len;
	uint8_t *ref = malloc(cap);
	if (!ref)
		abort();
	enum ref_result want = reference_inflate(in, n, max_out, ref, cap, &ref_len);
	if (want == REF_OK &&
	    (rc != SW_OK || out_len != ref_len || (ref_len && memcmp(out, ref, ref_len) != 0)))
		abort();
	if (want == REF_TOO_BIG && rc != SW_ERR_UNSUPPORTED)
		abort();
	free(ref);
	free(out);
	return 0;
}
