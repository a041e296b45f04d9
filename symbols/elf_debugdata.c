/* The compressed debug data of an image, inflated on first use and kept
 * by it:
 * - SHF_COMPRESSED sections (gABI "Section Compression"), zlib or zstd,
 *   and the older .zdebug_* form, zlib;
 * - MiniDebugInfo (GDB manual, "MiniDebugInfo"): .gnu_debugdata holds an
 *   xz stream (possibly several blocks) that inflates to a small ELF with
 *   .symtab and often .debug_frame: the symbols a stripped Android or
 *   Fedora binary keeps. liblzma; opened as an image the outer one owns. */
#include "symbols/elf_image_internal.h"

#include <libdeflate.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* ---- compressed sections ---------------------------------------------- */

enum {
	/* Deflate cannot expand by more than about 1032:1 (RFC 1951's longest
	 * match per 258 bytes); a section header claiming more is lying. zstd
	 * can (an RLE block repeats one byte 128 Ki times), but DWARF
	 * compresses 3 to 10 times either way, and a section claiming a
	 * thousand times its bytes is a bomb: refused for both. */
	DEFLATE_MAX_RATIO = 1032,
	ELFCOMPRESS_ZSTD_TYPE = 2,  /* gABI; <elf.h> has it only from glibc 2.38 */
};
/* No section of a real module inflates past this. */
#define SECTION_INFLATE_MAX ((uint64_t)1 << 30)

static bool keep_inflated(struct sw_elf *e, uint8_t *buf)
{
	uint8_t **list = realloc(e->inflated, (e->n_inflated + 1) * sizeof *list);
	if (!list)
		return false;
	e->inflated = list;
	e->inflated[e->n_inflated++] = buf;
	return true;
}

/* libdeflate's whole-buffer inflate of a zlib stream into exactly size
 * bytes: about three times zlib's speed, and a walk with Debian's debug
 * files (zlib-compressed DWARF) spent two thirds of its time inflating
 * (libc6-dbg's libc: 40 of 60 ms). False on anything it does not take. */
static bool inflate_whole(struct sw_span in, uint8_t *buf, uint64_t size)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		return false;
	enum libdeflate_result r =
		libdeflate_zlib_decompress(d, in.data, (size_t)in.size, buf, (size_t)size, NULL);
	libdeflate_free_decompressor(d);
	return r == LIBDEFLATE_SUCCESS;
}

/* zlib's streaming inflate of in into exactly size bytes: what libdeflate
 * refused, zlib decides (the two differ on a few odd streams). */
static bool zlib_inflate(struct sw_span in, uint8_t *buf, uint64_t size)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		return false;
	/* size <= 1 GiB fits in a uInt; the input may not, so it is fed in
	 * pieces. */
	z.next_out = buf;
	z.avail_out = (uInt)size;
	uint64_t fed = 0;
	int rc = Z_OK;
	while (rc == Z_OK) {
		if (z.avail_in == 0 && fed < in.size) {
			uint64_t piece = in.size - fed < (1u << 30) ? in.size - fed : (1u << 30);
			z.next_in = (Bytef *)in.data + fed;
			z.avail_in = (uInt)piece;
			fed += piece;
		}
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed < in.size)
			rc = Z_OK;
	}
	bool ok = rc == Z_STREAM_END && z.total_out == size;
	inflateEnd(&z);
	return ok;
}

/* Every zstd frame of in, one after the other, into exactly size bytes:
 * a result other than the size the header claims is damage. */
static bool zstd_decompress(struct sw_span in, uint8_t *buf, uint64_t size)
{
	size_t got = ZSTD_decompress(buf, (size_t)size, in.data, (size_t)in.size);
	return !ZSTD_isError(got) && got == size;
}

enum method { ZLIB, ZSTD };

/* in (a zlib stream, or zstd frames) into exactly `size` fresh bytes,
 * kept by e; NULL when the size is absurd for the input, the data is
 * damaged, or memory is short. */
static const uint8_t *decompress_exactly(struct sw_elf *e, struct sw_span in, uint64_t size,
                                         enum method m)
{
	if (size > SECTION_INFLATE_MAX || size / DEFLATE_MAX_RATIO > in.size)
		return NULL;
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return NULL;
	bool ok = m == ZSTD ? zstd_decompress(in, buf, size)
	                    : inflate_whole(in, buf, size) || zlib_inflate(in, buf, size);
	if (!ok || !keep_inflated(e, buf)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* SHF_COMPRESSED (gABI "Section Compression"): an Elf32_Chdr (12 bytes:
 * ch_type, ch_size, ch_addralign) or Elf64_Chdr (24: ch_type, reserved,
 * ch_size, ch_addralign) before the compressed bytes: a zlib stream
 * (ELFCOMPRESS_ZLIB) or zstd frames (ELFCOMPRESS_ZSTD). */
bool elf_inflate_compressed(struct sw_elf *e, struct sw_span raw, struct sw_elf_section *out)
{
	bool wide = e->info.word_size == 8;
	uint64_t hdr = wide ? 24 : 12;
	struct sw_span body;
	uint32_t type = sw_u32(raw, 0);
	if (raw.size < hdr || (type != ELFCOMPRESS_ZLIB && type != ELFCOMPRESS_ZSTD_TYPE) ||
	    !sw_span_sub(raw, hdr, raw.size - hdr, &body))
		return false;
	uint64_t size = wide ? sw_u64(raw, 8) : sw_u32(raw, 4);
	const uint8_t *data =
		decompress_exactly(e, body, size, type == ELFCOMPRESS_ZLIB ? ZLIB : ZSTD);
	if (!data)
		return false;
	out->data = data;
	out->size = size;
	out->flags &= ~(uint64_t)SHF_COMPRESSED;
	return true;
}

/* The older GNU form (.zdebug_*): "ZLIB", the size as 8 big-endian bytes,
 * then a zlib stream. */
bool elf_inflate_zdebug(struct sw_elf *e, struct sw_span raw, struct sw_elf_section *out)
{
	struct sw_span body;
	if (raw.size < 12 || memcmp(raw.data, "ZLIB", 4) != 0 ||
	    !sw_span_sub(raw, 12, raw.size - 12, &body))
		return false;
	struct sw_span be = raw;
	be.big_endian = true;
	uint64_t size = sw_u64(be, 4);
	const uint8_t *data = decompress_exactly(e, body, size, ZLIB);
	if (!data)
		return false;
	out->data = data;
	out->size = size;
	return true;
}

/* ---- MiniDebugInfo ------------------------------------------------------ */

enum {
	/* Symbols compress 4 to 8 times in the real files (boot.oat: 132 KiB
	 * -> 879 KiB); xz reaches thousands on zeros, which a bomb uses. */
	DEBUGDATA_MAX_RATIO = 64,
	DEBUGDATA_MIN_LIMIT = 1 << 20,
	/* xz -9's 64 MiB dictionary decodes within this. */
	DEBUGDATA_MEMLIMIT = 128 << 20,
	DEBUGDATA_FIRST_ALLOC = 64 << 10,
};
#define DEBUGDATA_MAX_OUT ((uint64_t)1 << 30)

static uint64_t inflate_limit(uint64_t compressed)
{
	uint64_t limit = compressed > DEBUGDATA_MAX_OUT / DEBUGDATA_MAX_RATIO
	                 ? DEBUGDATA_MAX_OUT : compressed * DEBUGDATA_MAX_RATIO;
	return limit < DEBUGDATA_MIN_LIMIT ? DEBUGDATA_MIN_LIMIT : limit;
}

/* Inflates the whole xz stream of in; NULL when it is not xz, is damaged,
 * or grows past the limit (refused, not cut: half a symbol table would
 * pass for a whole one). */
static uint8_t *inflate_xz(struct sw_span in, size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&z, DEBUGDATA_MEMLIMIT, 0) != LZMA_OK)
		return NULL;
	uint64_t limit = inflate_limit(in.size);
	size_t cap = DEBUGDATA_FIRST_ALLOC;
	uint8_t *buf = malloc(cap);
	z.next_in = in.data;
	z.avail_in = in.size;
	lzma_ret rc = LZMA_OK;
	while (buf && rc == LZMA_OK) {
		if (z.total_out == cap) {
			if (cap >= limit)
				break;
			size_t ncap = (uint64_t)cap * 2 > limit ? (size_t)limit : cap * 2;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb)
				break;
			buf = nb;
			cap = ncap;
		}
		z.next_out = buf + z.total_out;
		z.avail_out = cap - z.total_out;
		/* LZMA_FINISH: the input is all there is, so a cut stream ends
		 * in LZMA_BUF_ERROR instead of waiting for more. */
		rc = lzma_code(&z, LZMA_FINISH);
	}
	size_t len = z.total_out;
	lzma_end(&z);
	if (rc != LZMA_STREAM_END) {
		free(buf);
		return NULL;
	}
	*out_len = len;
	return buf;
}

struct sw_elf *sw_elf_debugdata(struct sw_elf *e)
{
	if (e->debugdata_tried)
		return e->debugdata;
	e->debugdata_tried = true;
	struct sw_elf_section sec;
	if (!sw_elf_section(e, ".gnu_debugdata", &sec))
		return NULL;
	size_t len = 0;
	uint8_t *elf = inflate_xz((struct sw_span){ sec.data, sec.size, 0, false }, &len);
	if (!elf)
		return NULL;
	size_t n = strlen(e->name) + sizeof "!.gnu_debugdata";
	char *name = malloc(n);
	if (!name) {
		free(elf);
		return NULL;
	}
	snprintf(name, n, "%s!.gnu_debugdata", e->name);
	struct sw_err err = { 0 };
	e->debugdata = sw_elf_open_bytes(elf, len, true, name, &err);
	free(name);
	return e->debugdata;
}

void elf_debugdata_free(struct sw_elf *e)
{
	sw_elf_free(e->debugdata);
	e->debugdata = NULL;
}
