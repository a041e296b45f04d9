/* The decoder's loop: the input buffer filled from the descriptor, one
 * member after another handed to the format's codec, and the two ways a
 * stream can end badly that no codec sees alone: input that stops in the
 * middle of a member (truncated), and a codec that stops making progress
 * (which would otherwise loop for ever on a hostile file). */
#include "decompress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decompress_codec.h"

static const struct {
	enum sw_compression c;
	const char *name;
	const char *magic;
	size_t len;
} magics[] = {
	/* RFC 1952 §2.3.1: ID1 ID2. */
	{ SW_COMPRESSION_GZIP, "gzip", "\x1f\x8b", 2 },
	/* The .xz file format §2.1.1.1: Header Magic Bytes. */
	{ SW_COMPRESSION_XZ, "xz", "\xfd" "7zXZ\0", 6 },
	/* RFC 8878 §3.1.1: Magic_Number 0xFD2FB528, little-endian. */
	{ SW_COMPRESSION_ZSTD, "zstd", "\x28\xb5\x2f\xfd", 4 },
	/* lz4's frame format: magic number 0x184D2204, little-endian. */
	{ SW_COMPRESSION_LZ4, "lz4", "\x04\x22\x4d\x18", 4 },
};

enum sw_compression sw_compression_of(const uint8_t *head, size_t n)
{
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (n >= magics[i].len && memcmp(head, magics[i].magic, magics[i].len) == 0)
			return magics[i].c;
	return SW_COMPRESSION_NONE;
}

const char *sw_compression_name(enum sw_compression c)
{
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (magics[i].c == c)
			return magics[i].name;
	return "";
}

/* ---- The identity: standard input copied as it is ------------------- */

static enum sw_err_code copy_init(struct sw_decoder *d, struct sw_err *err)
{
	(void)d, (void)err;
	return SW_OK;
}

static enum sw_err_code copy_step(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                  bool *ended, bool last, struct sw_err *err)
{
	(void)err;
	size_t k = d->in_len - d->in_pos < cap ? d->in_len - d->in_pos : cap;
	memcpy(out, d->in + d->in_pos, k);
	d->in_pos += k;
	*n = k;
	*ended = last && d->in_pos == d->in_len;
	return SW_OK;
}

static void copy_end(struct sw_decoder *d)
{
	(void)d;
}

static const struct sw_codec codec_copy = {
	.name = "", .init = copy_init, .step = copy_step, .end = copy_end,
};

/* ---- The loop ------------------------------------------------------- */

enum sw_err_code sw_decoder_damaged(const struct sw_decoder *d, const char *why,
                                    struct sw_err *err)
{
	return sw_err_set(err, SW_ERR_FORMAT, "%s: damaged %s data at compressed byte %llu: %s",
	                  d->name, d->codec->name, (unsigned long long)sw_decoder_consumed(d), why);
}

struct sw_decoder *sw_decoder_new(enum sw_compression c, int fd, const uint8_t *pre,
                                  size_t npre, const char *name, struct sw_err *err)
{
	const struct sw_codec *codec = c == SW_COMPRESSION_GZIP ? &sw_codec_gzip
	                               : c == SW_COMPRESSION_XZ ? &sw_codec_xz
	                               : c == SW_COMPRESSION_ZSTD ? &sw_codec_zstd
	                               : c == SW_COMPRESSION_LZ4 ? &sw_codec_lz4
	                                                         : &codec_copy;
	struct sw_decoder *d = calloc(1, sizeof *d);
	if (d)
		d->in = malloc(SW_DECODER_BUFFER);
	if (!d || !d->in) {
		if (d)
			free(d->in);
		free(d);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	d->codec = codec;
	d->name = name;
	d->fd = fd;
	d->in_len = npre < SW_DECODER_BUFFER ? npre : SW_DECODER_BUFFER;
	if (d->in_len)
		memcpy(d->in, pre, d->in_len);
	if (codec->init(d, err) != SW_OK) {
		free(d->in);
		free(d);
		return NULL;
	}
	return d;
}

uint64_t sw_decoder_consumed(const struct sw_decoder *d)
{
	return d->in_base + d->in_pos;
}

/* Reads the next buffer from fd, once the last is decoded. */
static enum sw_err_code refill(struct sw_decoder *d, struct sw_err *err)
{
	d->in_base += d->in_len;
	d->in_pos = d->in_len = 0;
	for (;;) {
		ssize_t got = read(d->fd, d->in, SW_DECODER_BUFFER);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return sw_err_set(err, SW_ERR_IO, "%s: cannot read: %s", d->name, strerror(errno));
		d->in_len = (size_t)got;
		d->eof = got == 0;
		return SW_OK;
	}
}

/* The member begun at the input's end: at the start of the input, nothing
 * at all; later, a member cut short. */
static enum sw_err_code truncated(const struct sw_decoder *d, struct sw_err *err)
{
	if (!d->started)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: empty, no %s data", d->name,
		                  d->codec->name);
	return sw_err_set(err, SW_ERR_FORMAT,
	                  "%s: truncated %s data: it ends after %llu bytes, in the middle of a %s",
	                  d->name, d->codec->name, (unsigned long long)sw_decoder_consumed(d),
	                  d->codec == &sw_codec_gzip ? "member"
	                  : d->codec == &sw_codec_xz ? "stream"
	                                             : "frame");
}

static enum sw_err_code read_some(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                  struct sw_err *err)
{
	while (*n == 0 && !d->done) {
		enum sw_err_code rc;
		if (d->in_pos == d->in_len && !d->eof && (rc = refill(d, err)) != SW_OK)
			return rc;
		bool at_end = d->eof && d->in_pos == d->in_len;
		if (!d->in_member) {
			/* A compressed file holds at least one member; the copy of an
			 * empty stdin is empty. */
			if (at_end && (d->started || d->codec == &codec_copy)) {
				d->done = true;
				break;
			}
			if (at_end)
				return truncated(d, err);
			if (d->started && d->codec->restart && (rc = d->codec->restart(d, err)) != SW_OK)
				return rc;
			d->started = d->in_member = true;
		}
		size_t before = d->in_pos;
		bool ended = false;
		if ((rc = d->codec->step(d, out, cap, n, &ended, d->eof, err)) != SW_OK)
			return rc;
		bool progress = *n > 0 || d->in_pos != before;
		if (ended && !progress && !at_end)
			return sw_decoder_damaged(d, "a member ends without taking a byte", err);
		if (ended) {
			d->in_member = false;
			continue;
		}
		if (progress)
			continue;
		/* Neither read nor written: the codec wants input that is not
		 * there, or (input left) is stuck. */
		if (at_end)
			return truncated(d, err);
		if (d->in_pos < d->in_len)
			return sw_decoder_damaged(d, "the decoder makes no progress", err);
	}
	return SW_OK;
}

enum sw_err_code sw_decoder_read(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                 struct sw_err *err)
{
	*n = 0;
	if (d->failed)
		return sw_err_set(err, d->failed, "%s: the %s data could not be decoded", d->name,
		                  d->codec->name);
	if (cap == 0)
		return SW_OK;
	enum sw_err_code rc = read_some(d, out, sw_codec_clamp(cap), n, err);
	if (rc != SW_OK) {
		d->failed = rc;
		*n = 0;
	}
	return rc;
}

void sw_decoder_free(struct sw_decoder *d)
{
	if (!d)
		return;
	d->codec->end(d);
	free(d->in);
	free(d);
}
