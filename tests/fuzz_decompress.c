/* libFuzzer: a compressed snapshot (lib/decompress*.c, formats/input.c,
 * formats/open.c). The first input byte picks the format (bits 0-2: none,
 * gzip, xz, zstd, lz4) and the limit (bits 3-4: 0, 4 KiB, 64 KiB, 1 MiB);
 * the rest is the file, given to the decoder from a descriptor.
 *
 * The oracle is the decoder itself read two ways: in 7-byte pieces with
 * the first bytes handed over as already read (as formats/open.c hands
 * the magic), and in 64 KiB pieces from byte 0. The loop over buffers and
 * members must not depend on where reads fall: the bytes agree as far as
 * both go, and a stream one way reads whole within the limit reads so the
 * other way too. The identity format must
 * give the file back unchanged. Every error's message names the file.
 * Then the file is opened as a snapshot (bit 5), within the limit,
 * through the temporary file as the CLI reads it. Seeds:
 * testdata/compressed (testdata/compressed/make_seeds.py). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/open.h"
#include "fuzz_memfd.h"
#include "lib/decompress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t limits[4] = { 0, 4096, 65536, 1 << 20 };

/* Everything fd decodes to as c, at most max + 1 bytes into out (*len),
 * read in pieces of `piece` bytes, the first `pre` bytes of file given. */
static enum sw_err_code decode(enum sw_compression c, int fd, const uint8_t *file, size_t pre,
                               size_t piece, uint8_t *out, size_t max, size_t *len,
                               struct sw_err *err)
{
	if (lseek(fd, (off_t)pre, SEEK_SET) != (off_t)pre)
		abort();
	struct sw_decoder *d = sw_decoder_new(c, fd, file, pre, "fuzz", err);
	if (!d)
		return SW_ERR_NOMEM;
	*len = 0;
	enum sw_err_code rc = SW_OK;
	while (*len <= max) {
		size_t want = max + 1 - *len < piece ? max + 1 - *len : piece;
		size_t got;
		rc = sw_decoder_read(d, out + *len, want, &got, err);
		if (got > want || (rc != SW_OK && got != 0))
			abort();
		if (rc != SW_OK || got == 0)
			break;
		*len += got;
	}
	sw_decoder_free(d);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum sw_compression c = (enum sw_compression)((data[0] & 7) % 5);
	uint64_t max = limits[(data[0] >> 3) & 3];
	bool open_it = data[0] & 0x20;
	const uint8_t *file = data + 1;
	size_t n = size - 1;
	char path[FUZZ_PATH_MAX];
	int fd = fuzz_memfd("fuzz", file, n, path);
	if (fd < 0)
		return 0;

	uint8_t *a = malloc(max + 1), *b = malloc(max + 1);
	if (!a || !b)
		abort();
	size_t alen, blen;
	struct sw_err ea = { 0 }, eb = { 0 };
	size_t pre = n < 6 ? n : 6;
	enum sw_err_code ra = decode(c, fd, file, pre, 7, a, (size_t)max, &alen, &ea);
	enum sw_err_code rb = decode(c, fd, file, 0, 65536, b, (size_t)max, &blen, &eb);
	/* The bytes agree as far as both go (an error drops what its own read
	 * had decoded, so the two may stop apart); a stream read to its end
	 * within the limit one way is read so the other way too. */
	if (memcmp(a, b, alen < blen ? alen : blen) != 0)
		abort();
	bool a_whole = ra == SW_OK && alen <= max, b_whole = rb == SW_OK && blen <= max;
	if ((a_whole || b_whole) && (ra != rb || alen != blen))
		abort();
	if (ra != SW_OK && ra != SW_ERR_FORMAT && ra != SW_ERR_UNSUPPORTED && ra != SW_ERR_NOMEM)
		abort();
	if (ra != SW_OK && strncmp(ea.msg, "fuzz: ", 6) != 0)
		abort();
	if (c == SW_COMPRESSION_NONE &&
	    (ra != SW_OK || alen != (n < max + 1 ? n : max + 1) || memcmp(a, file, alen) != 0))
		abort();
	free(a);
	free(b);

	if (open_it) {
		struct sw_open_options o = { .max_decompressed = max ? max : 1 };
		struct sw_snapshot snap;
		struct sw_err err = { 0 };
		enum sw_err_code rc = sw_snapshot_open_with(path, &o, &snap, &err);
		if (rc != SW_OK && strncmp(err.msg, path, strlen(path)) != 0)
			abort();
		sw_snapshot_free(&snap);
	}
	close(fd);
	return 0;
}
