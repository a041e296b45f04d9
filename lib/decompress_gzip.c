/* gzip (RFC 1952) through zlib's streaming inflate: each member's header,
 * deflate data and CRC-32/ISIZE trailer checked by zlib; after a member's
 * end the next starts where it stopped (`gzip -c a b > ab`). */
#include <stdlib.h>
#include <zlib.h>

#include "decompress_codec.h"

static enum sw_err_code gzip_init(struct sw_decoder *d, struct sw_err *err)
{
	z_stream *z = calloc(1, sizeof *z);
	/* 16 + MAX_WBITS: a gzip wrapper, not zlib's (zlib.h, inflateInit2). */
	if (!z || inflateInit2(z, 16 + MAX_WBITS) != Z_OK) {
		free(z);
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
	}
	d->state = z;
	return SW_OK;
}

static enum sw_err_code gzip_step(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                  bool *ended, bool last, struct sw_err *err)
{
	(void)last;
	z_stream *z = d->state;
	z->next_in = d->in + d->in_pos;
	z->avail_in = (uInt)(d->in_len - d->in_pos);
	z->next_out = out;
	z->avail_out = (uInt)cap;
	int r = inflate(z, Z_NO_FLUSH);
	d->in_pos = d->in_len - z->avail_in;
	*n = cap - z->avail_out;
	switch (r) {
	case Z_STREAM_END: *ended = true; return SW_OK;
	/* Z_BUF_ERROR: no progress was possible, which the loop judges. */
	case Z_OK:
	case Z_BUF_ERROR: return SW_OK;
	case Z_MEM_ERROR: return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
	case Z_NEED_DICT: return sw_decoder_damaged(d, "a preset dictionary is needed", err);
	}
	return sw_decoder_damaged(d, z->msg ? z->msg : "invalid data", err);
}

static enum sw_err_code gzip_restart(struct sw_decoder *d, struct sw_err *err)
{
	if (inflateReset(d->state) != Z_OK)
		return sw_decoder_damaged(d, "cannot start the next member", err);
	return SW_OK;
}

static void gzip_end(struct sw_decoder *d)
{
	if (!d->state)
		return;
	inflateEnd(d->state);
	free(d->state);
}

const struct sw_codec sw_codec_gzip = {
	.name = "gzip",
	.init = gzip_init,
	.step = gzip_step,
	.restart = gzip_restart,
	.end = gzip_end,
};
