/* zstd (RFC 8878) through libzstd's streaming decoder, which reads one
 * frame after another by itself and skips skippable frames (§3.1.2). Its
 * window is bounded by ZSTD_d_windowLogMax's default (2^27 bytes): a frame
 * that asks for more (`zstd --long=31`) is refused with libzstd's reason,
 * not decoded with gigabytes of memory. */
#include <zstd.h>
#include <zstd_errors.h>

#include "decompress_codec.h"

static enum sw_err_code zstd_init(struct sw_decoder *d, struct sw_err *err)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	if (!z || ZSTD_isError(ZSTD_initDStream(z))) {
		ZSTD_freeDStream(z);
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
	}
	d->state = z;
	return SW_OK;
}

static enum sw_err_code zstd_step(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
                                  bool *ended, bool last, struct sw_err *err)
{
	(void)last;
	ZSTD_inBuffer in = { d->in + d->in_pos, d->in_len - d->in_pos, 0 };
	ZSTD_outBuffer o = { out, cap, 0 };
	size_t r = ZSTD_decompressStream(d->state, &o, &in);
	d->in_pos += in.pos;
	*n = o.pos;
	if (ZSTD_isError(r)) {
		if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
			return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", d->name);
		if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
			return sw_err_set(err, SW_ERR_UNSUPPORTED,
			                  "%s: a zstd frame whose window is larger than 128 MiB: "
			                  "decompress it first (zstd -d --memory=...)",
			                  d->name);
		return sw_decoder_damaged(d, ZSTD_getErrorName(r), err);
	}
	/* 0: a frame decoded and flushed whole (zstd.h, ZSTD_decompressStream). */
	*ended = r == 0;
	return SW_OK;
}

static void zstd_end(struct sw_decoder *d)
{
	ZSTD_freeDStream(d->state);
}

const struct sw_codec sw_codec_zstd = {
	.name = "zstd",
	.init = zstd_init,
	.step = zstd_step,
	.end = zstd_end,
};
