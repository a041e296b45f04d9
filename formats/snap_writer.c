/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the stackwalk authors
 *
 * snap_writer.c: the .snap writer (see snap_writer.h; the format is
 * stackwalk's docs/snap-format.md). May be copied into a device project as
 * it is, with snap_writer.h.
 *
 * Every record goes out in one pass: its head (type, flags, length), its
 * payload, its CRC-32. The length of each record is computed before its
 * first byte is written, so nothing is ever patched afterwards, and the CRC
 * is updated as the bytes go out, so memory streams from where it lives.
 * Buffer mode checks that a whole record (and the END record after it)
 * fits before writing any of it: the buffer always holds complete records.
 *
 * Written for small cores: no 64-bit shifts by a variable amount (they
 * would call the compiler's runtime on a Cortex-M0), no division, locals
 * of a few bytes, no recursion. */
#include "snap_writer.h"

#include <string.h>

enum writer_state {
	STATE_NEW = 0,     /* initialised, no header yet */
	STATE_OPEN,        /* between records */
	STATE_IN_RECORD,   /* inside snap_record_begin ... snap_record_end */
	STATE_ENDED,       /* END written */
	STATE_FAILED,      /* stream mode: the callback failed */
};

/* The END record whole: head, its u32 count, CRC. Buffer mode keeps room
 * for it before every other record. */
enum { END_RECORD_SIZE = SNAP_RECORD_HEAD + 4 + SNAP_RECORD_CRC };

/* ---- CRC-32/ISO-HDLC (zlib's crc32), four bits at a time ------------- */

/* crc_nibble[n]: the reflected polynomial 0xEDB88320 applied to the four
 * bits n. Half a byte per lookup: 64 bytes of table instead of 1 KiB. */
static const uint32_t crc_nibble[16] = {
	0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
	0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
	0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return crc;
}

/* ---- Output ------------------------------------------------------------ */

static int is_buffer(const struct snap_writer *w)
{
	return w->write == NULL;
}

/* Sends bytes out, not counted in the CRC. Buffer mode has checked the
 * room beforehand. */
static int out(struct snap_writer *w, const void *p, size_t n)
{
	if (n == 0)
		return SNAP_OK;
	if (is_buffer(w)) {
		memcpy(w->buf + w->used, p, n);
		w->used += n;
	} else if (w->write(w->ctx, p, n) != 0) {
		w->state = STATE_FAILED;
		return SNAP_IO;
	}
	w->written += n;
	return SNAP_OK;
}

/* Sends bytes out as part of the open record's CRC. In buffer mode the CRC
 * is taken over the copy, so that it is the CRC of what was stored even if
 * the source changes meanwhile. */
static int emit(struct snap_writer *w, const void *p, size_t n)
{
	if (is_buffer(w)) {
		const uint8_t *copy = w->buf + w->used;
		int rc = out(w, p, n);
		w->crc = crc_update(w->crc, copy, n);
		return rc;
	}
	w->crc = crc_update(w->crc, p, n);
	return out(w, p, n);
}

static void le16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

/* A 64-bit value as two 32-bit halves: the constant shift by 32 only
 * picks a register on 32-bit cores. */
static void le64(uint8_t *b, uint64_t v)
{
	le32(b, (uint32_t)v);
	le32(b + 4, (uint32_t)(v >> 32));
}

static int emit16(struct snap_writer *w, uint16_t v)
{
	uint8_t b[2];
	le16(b, v);
	return emit(w, b, sizeof b);
}

static int emit32(struct snap_writer *w, uint32_t v)
{
	uint8_t b[4];
	le32(b, v);
	return emit(w, b, sizeof b);
}

static int emit64(struct snap_writer *w, uint64_t v)
{
	uint8_t b[8];
	le64(b, v);
	return emit(w, b, sizeof b);
}

/* ---- Records ----------------------------------------------------------- */

/* Field by field: a struct assignment may become a call to memset, which
 * a device project need not have. */
static void reset(struct snap_writer *w)
{
	w->buf = NULL;
	w->cap = w->used = 0;
	w->write = NULL;
	w->ctx = NULL;
	w->written = w->record_start = 0;
	w->crc = w->left = w->records = 0;
	w->word_size = 0;
	w->state = STATE_NEW;
}

void snap_init_buffer(struct snap_writer *w, void *buf, size_t cap)
{
	reset(w);
	w->buf = buf;
	w->cap = buf ? cap : 0;
}

void snap_init_stream(struct snap_writer *w, snap_write_fn write, void *ctx)
{
	reset(w);
	w->write = write;
	w->ctx = ctx;
}

/* What a call made in the wrong state returns. */
static int refuse(const struct snap_writer *w)
{
	return w->state == STATE_FAILED ? SNAP_IO : SNAP_INVALID;
}

/* Would `total` more bytes fit, with room kept for the END record after
 * them unless this is END? */
static int fits(const struct snap_writer *w, size_t total, int is_end)
{
	size_t avail = w->cap - w->used;
	size_t reserve = is_end ? 0 : END_RECORD_SIZE;
	return avail >= reserve && total <= avail - reserve;
}

int snap_record_begin(struct snap_writer *w, uint16_t type, uint32_t len)
{
	if (w->state != STATE_OPEN)
		return refuse(w);
	/* The head and CRC first, then the payload: no sum can wrap. */
	if (is_buffer(w) && (!fits(w, SNAP_RECORD_HEAD + SNAP_RECORD_CRC, type == SNAP_REC_END) ||
	                     len > w->cap - w->used - SNAP_RECORD_HEAD - SNAP_RECORD_CRC -
	                                   (type == SNAP_REC_END ? 0 : END_RECORD_SIZE)))
		return SNAP_FULL;
	w->record_start = w->used;
	w->crc = 0xffffffffu;
	w->left = len;
	w->state = STATE_IN_RECORD;
	uint8_t head[SNAP_RECORD_HEAD];
	le16(head, type);
	le16(head + 2, 0);
	le32(head + 4, len);
	return emit(w, head, sizeof head);
}

/* Gives up the open record: buffer mode takes its bytes back; a stream
 * cannot, and stops. */
static int abandon_record(struct snap_writer *w)
{
	if (is_buffer(w)) {
		w->written -= w->used - w->record_start;
		w->used = w->record_start;
		w->state = STATE_OPEN;
	} else {
		w->state = STATE_FAILED;
	}
	return SNAP_INVALID;
}

int snap_record_write(struct snap_writer *w, const void *bytes, size_t n)
{
	if (w->state != STATE_IN_RECORD)
		return refuse(w);
	if (n > w->left)
		return abandon_record(w);
	w->left -= (uint32_t)n;
	return emit(w, bytes, n);
}

int snap_record_end(struct snap_writer *w)
{
	if (w->state != STATE_IN_RECORD)
		return refuse(w);
	if (w->left != 0)
		return abandon_record(w);
	uint8_t crc[SNAP_RECORD_CRC];
	le32(crc, w->crc ^ 0xffffffffu);
	int rc = out(w, crc, sizeof crc);
	if (rc != SNAP_OK)
		return rc;
	w->records++;
	w->state = STATE_OPEN;
	return SNAP_OK;
}

/* Payload pieces of the open record (the high-level calls have counted
 * them into its length). */
static int put(struct snap_writer *w, const void *p, size_t n)
{
	return snap_record_write(w, p, n);
}

static int put16(struct snap_writer *w, uint16_t v)
{
	w->left -= 2;
	return emit16(w, v);
}

static int put32(struct snap_writer *w, uint32_t v)
{
	w->left -= 4;
	return emit32(w, v);
}

static int put64(struct snap_writer *w, uint64_t v)
{
	w->left -= 8;
	return emit64(w, v);
}

/* strlen with a bound: a string is at most SNAP_MAX_STRING bytes, and a
 * corrupt pointer to bytes without a NUL costs no more than that. */
static uint16_t str_len(const char *s)
{
	uint32_t n = 0;
	if (s)
		while (n < SNAP_MAX_STRING && s[n])
			n++;
	return (uint16_t)n;
}

/* A str: u16 length, then the bytes. */
static int put_str(struct snap_writer *w, const char *s, uint16_t n)
{
	int rc = put16(w, n);
	return rc != SNAP_OK ? rc : put(w, s, n);
}

/* Each call below: compute the length, begin, put the fields, end. A
 * failed put leaves the record open; the status says why, and the
 * writer's state is then FAILED (a stream) or the record is abandoned. */
#define TRY(call)                          \
	do {                                   \
		int rc_ = (call);                  \
		if (rc_ != SNAP_OK)                \
			return rc_;                    \
	} while (0)

int snap_begin(struct snap_writer *w, const struct snap_header *h)
{
	if (w->state != STATE_NEW)
		return refuse(w);
	if (h->word_size != 4 && h->word_size != 8)
		return SNAP_INVALID;
	if (is_buffer(w) && !fits(w, SNAP_HEADER_SIZE, 0))
		return SNAP_FULL;
	uint8_t b[SNAP_HEADER_SIZE];
	memcpy(b, SNAP_MAGIC, SNAP_MAGIC_SIZE);
	le16(b + 8, SNAP_VERSION);
	le16(b + 10, SNAP_HEADER_SIZE);
	le16(b + 12, h->cpu);
	b[14] = h->word_size;
	b[15] = h->big_endian ? SNAP_HEADER_BIG_ENDIAN : 0;
	le32(b + 16, h->cpu_variant);
	le64(b + 20, h->time);
	le32(b + 28, crc_update(0xffffffffu, b, SNAP_HEADER_SIZE - 4) ^ 0xffffffffu);
	TRY(out(w, b, sizeof b));
	w->word_size = h->word_size;
	w->state = STATE_OPEN;
	return SNAP_OK;
}

int snap_system(struct snap_writer *w, const struct snap_system *s)
{
	uint16_t name = str_len(s->os_name), version = str_len(s->os_version);
	uint16_t model = str_len(s->cpu_model), device = str_len(s->device);
	uint16_t firmware = str_len(s->firmware_version);
	TRY(snap_record_begin(w, SNAP_REC_SYSTEM,
	                      12u + name + version + model + device + firmware));
	TRY(put16(w, s->os));
	TRY(put_str(w, s->os_name, name));
	TRY(put_str(w, s->os_version, version));
	TRY(put_str(w, s->cpu_model, model));
	TRY(put_str(w, s->device, device));
	TRY(put_str(w, s->firmware_version, firmware));
	return snap_record_end(w);
}

/* Bits set in the mask: the registers stored. */
static unsigned count_registers(uint64_t mask)
{
	unsigned n = 0;
	for (uint32_t half = (uint32_t)mask, i = 0; i < 2; i++, half = (uint32_t)(mask >> 32))
		for (; half; half &= half - 1)
			n++;
	return n;
}

/* Register i of values, a word of the writer's word size in its own byte
 * order, as it goes into the file. */
static uint64_t register_value(const struct snap_writer *w, const void *values, unsigned i)
{
	const uint8_t *p = (const uint8_t *)values + (size_t)i * w->word_size;
	if (w->word_size == 4) {
		uint32_t v;
		memcpy(&v, p, sizeof v);
		return v;
	}
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

int snap_thread(struct snap_writer *w, const struct snap_thread *t)
{
	if (t->valid && !t->values)
		return SNAP_INVALID;
	uint16_t name = str_len(t->name);
	uint32_t len = 34u + name + count_registers(t->valid) * (uint32_t)w->word_size;
	TRY(snap_record_begin(w, SNAP_REC_THREAD, len));
	TRY(put32(w, t->id));
	TRY(put16(w, t->regset));
	TRY(put16(w, t->flags));
	TRY(put64(w, t->valid));
	TRY(put64(w, t->stack_lo));
	TRY(put64(w, t->stack_hi));
	TRY(put_str(w, t->name, name));
	for (unsigned i = 0; i < 64; i++) {
		uint32_t half = i < 32 ? (uint32_t)t->valid : (uint32_t)(t->valid >> 32);
		if (((half >> (i & 31)) & 1) == 0)
			continue;
		uint8_t b[8];
		le64(b, register_value(w, t->values, i));
		TRY(put(w, b, w->word_size));
	}
	return snap_record_end(w);
}

int snap_memory(struct snap_writer *w, uint64_t base, const void *bytes, size_t len)
{
	if (len > SNAP_MAX_PAYLOAD - 8 || (len && !bytes))
		return SNAP_INVALID;
	TRY(snap_record_begin(w, SNAP_REC_MEMORY, 8u + (uint32_t)len));
	TRY(put64(w, base));
	TRY(put(w, bytes, len));
	return snap_record_end(w);
}

int snap_memory_zlib(struct snap_writer *w, uint64_t base, uint64_t size, const void *zbytes,
                     size_t zlen)
{
	if (zlen > SNAP_MAX_PAYLOAD - 16 || (zlen && !zbytes))
		return SNAP_INVALID;
	TRY(snap_record_begin(w, SNAP_REC_MEMORY_ZLIB, 16u + (uint32_t)zlen));
	TRY(put64(w, base));
	TRY(put64(w, size));
	TRY(put(w, zbytes, zlen));
	return snap_record_end(w);
}

int snap_module(struct snap_writer *w, const char *name, uint64_t base, uint64_t size,
                uint64_t bias, const void *build_id, size_t build_id_len)
{
	if (build_id_len > SNAP_MAX_BUILD_ID || (build_id_len && !build_id))
		return SNAP_INVALID;
	uint16_t n = str_len(name);
	TRY(snap_record_begin(w, SNAP_REC_MODULE, 28u + (uint32_t)build_id_len + n));
	TRY(put64(w, base));
	TRY(put64(w, size));
	TRY(put64(w, bias));
	TRY(put16(w, (uint16_t)build_id_len));
	TRY(put(w, build_id, build_id_len));
	TRY(put_str(w, name, n));
	return snap_record_end(w);
}

int snap_crash(struct snap_writer *w, const struct snap_crash *c)
{
	uint16_t n = str_len(c->reason);
	TRY(snap_record_begin(w, SNAP_REC_CRASH, 26u + n));
	TRY(put32(w, c->thread_id));
	TRY(put16(w, c->kind));
	TRY(put16(w, c->flags));
	TRY(put32(w, c->code));
	TRY(put32(w, c->subcode));
	TRY(put64(w, c->address));
	TRY(put_str(w, c->reason, n));
	return snap_record_end(w);
}

int snap_annotation(struct snap_writer *w, const char *key, const char *value)
{
	uint16_t k = str_len(key), v = str_len(value);
	TRY(snap_record_begin(w, SNAP_REC_ANNOTATION, 4u + k + v));
	TRY(put_str(w, key, k));
	TRY(put_str(w, value, v));
	return snap_record_end(w);
}

int snap_end(struct snap_writer *w)
{
	uint32_t before = w->records;
	TRY(snap_record_begin(w, SNAP_REC_END, 4));
	TRY(put32(w, before));
	TRY(snap_record_end(w));
	w->state = STATE_ENDED;
	return SNAP_OK;
}

size_t snap_room(const struct snap_writer *w)
{
	if (w->state != STATE_OPEN)
		return 0;
	if (!is_buffer(w))
		return SIZE_MAX;
	size_t overhead = SNAP_RECORD_HEAD + SNAP_RECORD_CRC + END_RECORD_SIZE;
	size_t avail = w->cap - w->used;
	size_t room = avail > overhead ? avail - overhead : 0;
	return room > SNAP_MAX_PAYLOAD ? SNAP_MAX_PAYLOAD : room;
}

size_t snap_size(const struct snap_writer *w)
{
	return w->written;
}
