/* lz4's frame format through liblz4's LZ4F decoder, which checks the
 * optional content and block checksums and, after a frame's end mark, is
 * ready for the next frame (skippable frames are skipped). The legacy
 * format (`lz4 -l`, magic 0x184C2102) has another magic number and is not
 * taken for lz4 (lib/decompress.c). */
#include <lz4frame.h>

#include "decompress_codec.h"

static enum sw_err_code lz4_init(struct sw_decoder *d, struct sw_err *err)
{
	LZ4F_dctx *z = NULL;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&z, LZ4F_VERSION))) {
		LZ4F_freeDecompressionContext(z);
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
	}
	d->state = z;
	return SW_OK;
}

static enum sw_err_code lz4_step(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                 bool *ended, bool last, struct sw_err *err)
{
	(void)last;
	size_t dst = cap, src = d->in_len - d->in_pos;
	size_t r = LZ4F_decompress(d->state, out, &dst, d->in + d->in_pos, &src, NULL);
	d->in_pos += src;
	*n = dst;
	/* Its error codes are not public (LZ4F_STATIC_LINKING_ONLY): an
	 * allocation that failed is told by its name only. */
	if (LZ4F_isError(r))
		return sw_decoder_damaged(d, LZ4F_getErrorName(r), err);
	/* 0: the frame is decoded and flushed whole (lz4frame.h). */
	*ended = r == 0;
	return SW_OK;
}

static void lz4_end(struct sw_decoder *d)
{
	LZ4F_freeDecompressionContext(d->state);
}

const struct sw_codec sw_codec_lz4 = {
	.name = "lz4",
	.init = lz4_init,
	.step = lz4_step,
	.end = lz4_end,
};
