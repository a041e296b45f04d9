/* xz through liblzma's stream decoder. LZMA_CONCATENATED makes liblzma
 * read every stream of the file and the Stream Padding between them (the
 * .xz file format §2.2: null bytes, a multiple of four), so the file is
 * one "member" to lib/decompress.c, which ends only when told that no
 * input follows (LZMA_FINISH). Each stream's integrity check is verified.
 * Memory is bounded by SW_DECODER_XZ_MEMLIMIT. */
#include <lzma.h>
#include <stdlib.h>

#include "decompress_codec.h"

static enum sw_err_code xz_init(struct sw_decoder *d, struct sw_err *err)
{
	lzma_stream *z = malloc(sizeof *z);
	if (z)
		*z = (lzma_stream)LZMA_STREAM_INIT;
	if (!z || lzma_stream_decoder(z, SW_DECODER_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
		free(z);
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
	}
	d->state = z;
	return SW_OK;
}

static enum sw_err_code xz_step(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                bool *ended, bool last, struct sw_err *err)
{
	lzma_stream *z = d->state;
	z->next_in = d->in + d->in_pos;
	z->avail_in = d->in_len - d->in_pos;
	z->next_out = out;
	z->avail_out = cap;
	lzma_ret r = lzma_code(z, last ? LZMA_FINISH : LZMA_RUN);
	d->in_pos = d->in_len - z->avail_in;
	*n = cap - z->avail_out;
	switch (r) {
	case LZMA_STREAM_END: *ended = true; return SW_OK;
	/* LZMA_BUF_ERROR: no progress was possible, which the loop judges. */
	case LZMA_OK:
	case LZMA_BUF_ERROR: return SW_OK;
	case LZMA_MEM_ERROR: return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
	case LZMA_MEMLIMIT_ERROR:
		return sw_err_set(err, SW_ERR_UNSUPPORTED,
		                  "%s: an xz stream that needs more than %llu MiB of memory to "
		                  "decompress: decompress it first (xz -d)",
		                  d->name, (unsigned long long)(SW_DECODER_XZ_MEMLIMIT >> 20));
	case LZMA_FORMAT_ERROR: return sw_decoder_damaged(d, "not xz data", err);
	case LZMA_OPTIONS_ERROR: return sw_decoder_damaged(d, "unsupported options", err);
	case LZMA_DATA_ERROR: return sw_decoder_damaged(d, "corrupt data", err);
	default: break;
	}
	return sw_decoder_damaged(d, "liblzma cannot decode it", err);
}

static void xz_end(struct sw_decoder *d)
{
	if (!d->state)
		return;
	lzma_end(d->state);
	free(d->state);
}

const struct sw_codec sw_codec_xz = {
	.name = "xz",
	.init = xz_init,
	.step = xz_step,
	.end = xz_end,
};
