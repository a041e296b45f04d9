/* What each decompressor (lib/decompress_<format>.c) implements for
 * lib/decompress.c, which owns the input buffer and the loop over
 * members. One table per format; every file has the same shape: state,
 * init, step, restart, end. */
#ifndef SW_DECOMPRESS_CODEC_H
#define SW_DECOMPRESS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decompress.h"
#include "sw_err.h"

struct sw_decoder {
	const struct sw_codec *codec;
	const char *name;
	int fd;
	uint8_t *in;               /* SW_DECODER_BUFFER bytes */
	size_t in_pos, in_len;     /* in[in_pos, in_len) not decoded yet */
	uint64_t in_base;          /* the compressed offset of in[0] */
	bool eof;                  /* fd has nothing after in_len */
	bool started;              /* a member was begun */
	bool in_member;            /* ... and has not ended */
	bool done;                 /* the end was reached */
	enum sw_err_code failed;   /* the first error, kept */
	void *state;               /* the codec's */
};

struct sw_codec {
	const char *name;
	/* Sets up d->state for the first member. */
	enum sw_err_code (*init)(struct sw_decoder *d, struct sw_err *err);
	/* Decodes from d->in[in_pos, in_len) into out[0, cap), advancing
	 * in_pos: *n bytes written, *ended when the member ended (the input
	 * then goes on with the next member, or ends). last: no input follows
	 * what is in the buffer. A step that neither reads nor writes wants
	 * more input; at the end of the input that is a truncated member, as
	 * lib/decompress.c says. Errors through sw_decoder_damaged. */
	enum sw_err_code (*step)(struct sw_decoder *d, uint8_t *out, size_t cap, size_t *n,
	                         bool *ended, bool last, struct sw_err *err);
	/* Ready for the next member (NULL: the codec goes on by itself). */
	enum sw_err_code (*restart)(struct sw_decoder *d, struct sw_err *err);
	void (*end)(struct sw_decoder *d);
};

extern const struct sw_codec sw_codec_gzip, sw_codec_xz, sw_codec_zstd, sw_codec_lz4;

/* "NAME: damaged FORMAT data at compressed byte N: why" as err, and
 * SW_ERR_FORMAT. */
enum sw_err_code sw_decoder_damaged(const struct sw_decoder *d, const char *why,
                                    struct sw_err *err);

/* The most a single call to a codec library takes: their counts are
 * unsigned int (zlib) or size_t. */
static inline size_t sw_codec_clamp(size_t n)
{
	return n < (1u << 30) ? n : (1u << 30);
}

#endif
