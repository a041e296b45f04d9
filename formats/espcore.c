/* ESP-IDF core dump images (see espcore.h): the container around the ELF
 * core. Everything here follows esp-coredump's corefile/loader.py: the
 * header layouts per dump version (EspCoreDumpV1Header, V2, V2_1, and
 * the 12-byte header of version 1.4), the checksum over header and data,
 * the console's base64 text decoded line by line (ESPCoreDumpFileLoader
 * decodes each line on its own: lines end with '=' padding mid-text). */
#include "espcore.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "elfcore.h"
#include "espcore_internal.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"
#include "lib/sha256.h"
#include "open.h"

enum {
	/* An image larger than any core dump partition (the largest flash
	 * chips hold 128 MiB): a header claiming more is not one. */
	ESP_MAX_IMAGE = 128u << 20,
	/* Bytes decoded to decide whether text is an image: its header. */
	ESP_PEEK = 32,
};

/* ---- The header ------------------------------------------------------ */

/* loader.py's CORE_VERSIONS: the header's u32 words and the checksum. */
static const struct esp_version {
	uint16_t version;
	uint8_t words;            /* tot_len, ver, ... */
	uint8_t checksum;         /* bytes */
	bool elf, segs_num, chip_rev;
} esp_versions[] = {
	{ SW_ESP_BIN_V1, 4, 4, false, false, false },
	{ SW_ESP_BIN_V2, 5, 4, false, true, false },
	{ SW_ESP_BIN_V2_1, 6, 4, false, true, true },
	{ SW_ESP_ELF_CRC32_V2, 5, 4, true, true, false },
	{ SW_ESP_ELF_SHA256_V2, 5, 32, true, true, false },
	{ SW_ESP_ELF_CRC32_V2_1, 6, 4, true, true, true },
	{ SW_ESP_ELF_SHA256_V2_1, 6, 32, true, true, true },
	/* ELF_SHA256_V2_2: task_num, tcbsz and segs_num dropped. */
	{ SW_ESP_ELF_SHA256_V2_2, 3, 32, true, false, true },
};

enum sw_esp_header_status sw_esp_header_parse(struct sw_span s, struct sw_esp_header *h)
{
	memset(h, 0, sizeof *h);
	if (!sw_span_has(s, 0, 8))
		return SW_ESP_HEADER_NONE;
	s.big_endian = false;
	h->tot_len = sw_u32(s, 0);
	h->ver = sw_u32(s, 4);
	h->chip = (uint16_t)(h->ver >> 16);
	h->dump_version = (uint16_t)h->ver;
	const struct esp_version *v = NULL;
	for (size_t i = 0; i < sizeof esp_versions / sizeof esp_versions[0]; i++)
		if (esp_versions[i].version == h->dump_version)
			v = &esp_versions[i];
	if (!v) {
		/* Another minor of a known major, from a known chip: a newer
		 * image, to be refused by name rather than as "not a snapshot". */
		bool esp = sw_esp_chip_name(h->chip) && (h->dump_version >> 8) <= 1 &&
		           h->tot_len >= 12 && h->tot_len <= ESP_MAX_IMAGE;
		return esp ? SW_ESP_HEADER_UNKNOWN_VERSION : SW_ESP_HEADER_NONE;
	}
	/* A known chip too: an ELF64 file's e_ident reads as version 1.2 of
	 * chip 1 (EI_CLASS 2, EI_DATA 1, EI_VERSION 1). tot_len is left to the
	 * reader to judge (a damaged image's is still an image's: refused
	 * with what is wrong with it). */
	if (!sw_esp_chip_name(h->chip))
		return SW_ESP_HEADER_NONE;
	h->header_size = 4u * v->words;
	h->checksum_size = v->checksum;
	h->elf = v->elf;
	if (!sw_span_has(s, 0, h->header_size))
		return SW_ESP_HEADER_NONE;
	if (v->words >= 4) {
		h->task_num = sw_u32(s, 8);
		h->tcbsz = sw_u32(s, 12);
	}
	h->has_segs_num = v->segs_num;
	if (v->segs_num)
		h->segs_num = sw_u32(s, 16);
	h->has_chip_rev = v->chip_rev;
	if (v->chip_rev)
		h->chip_rev = sw_u32(s, h->header_size - 4);
	return SW_ESP_HEADER_OK;
}

/* ---- Base64 console text --------------------------------------------- */

/* RFC 4648 §4: each base64 character's value plus one; 0 for others ('='
 * too). A table: every line of a text file is tested, byte by byte. */
static const uint8_t b64_value1[256] = {
	['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7,
	['H'] = 8, ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14,
	['O'] = 15, ['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21,
	['V'] = 22, ['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28,
	['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35,
	['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
	['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49,
	['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
	['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63,
	['/'] = 64,
};

/* The value of a base64 character, -1 for others. */
static int b64_value(uint8_t c)
{
	return (int)b64_value1[c] - 1;
}

/* A line of base64: alphabet characters, then at most two '=' ending it. */
static bool is_b64_line(const uint8_t *l, size_t n)
{
	size_t i = 0;
	while (i < n && b64_value(l[i]) >= 0)
		i++;
	size_t pad = 0;
	while (i < n && l[i] == '=' && pad < 2) {
		i++;
		pad++;
	}
	return n > 0 && i == n && (pad == 0 || i > pad);
}

static bool contains(const uint8_t *l, size_t n, const char *what)
{
	size_t k = strlen(what);
	return l && n >= k && memmem(l, n, what, k) != NULL;
}

/* The decoder of one run of lines: a quantum may straddle lines. */
struct b64_run {
	uint8_t *out;
	size_t cap, len;
	uint32_t acc;
	unsigned chars;           /* of the quantum being read */
	bool ok;                  /* the decoded start may still be an image */
};

static void run_put(struct b64_run *b, uint8_t byte)
{
	if (b->len < b->cap)
		b->out[b->len] = byte;
	b->len++;
}

static void run_line(struct b64_run *b, const uint8_t *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int v = b64_value(l[i]);
		if (v < 0) {
			/* '=': the quantum ends with what it holds (2 or 3 chars). */
			if (b->chars >= 2)
				run_put(b, (uint8_t)(b->acc >> (b->chars == 2 ? 4 : 10)));
			if (b->chars == 3)
				run_put(b, (uint8_t)(b->acc >> 2));
			b->chars = 0;
			b->acc = 0;
			continue;
		}
		b->acc = b->acc << 6 | (uint32_t)v;
		if (++b->chars == 4) {
			run_put(b, (uint8_t)(b->acc >> 16));
			run_put(b, (uint8_t)(b->acc >> 8));
			run_put(b, (uint8_t)b->acc);
			b->chars = 0;
			b->acc = 0;
		}
	}
}

/* Does what the run decoded so far start an image? Undecided (true)
 * until 8 bytes are there; checked again at the run's end. */
static bool run_starts_image(const struct b64_run *b, bool at_end)
{
	size_t have = b->len < b->cap ? b->len : b->cap;
	if (have < 8 && !at_end)
		return true;
	struct sw_esp_header h;
	struct sw_span s = { b->out, have, 0, false };
	/* A header is at most 24 bytes: mid-run, what is there of it is
	 * parsed with zeros for the rest. */
	uint8_t tmp[24] = { 0 };
	if (have < sizeof tmp && !at_end) {
		memcpy(tmp, b->out, have);
		s = (struct sw_span){ tmp, sizeof tmp, 0, false };
	}
	return sw_esp_header_parse(s, &h) != SW_ESP_HEADER_NONE;
}

bool sw_esp_b64_decode(struct sw_span text, uint8_t *out, size_t cap, size_t *len,
                       uint64_t *first_line)
{
	struct b64_run b = { .out = out, .cap = cap };
	bool in_run = false, explicit = false;
	uint64_t line_no = 0, start_line = 0;
	/* Where the line after an implicit run's first one starts: a run
	 * that turns out to be no image (console text that happens to be
	 * base64, "abort" before the dump) is tried again from there. Each
	 * try gives up within the header's first bytes: a line or two. */
	uint64_t retry_pos = 0, retry_line = 0;
	*len = 0;
	*first_line = 0;
	if (!text.data)
		return false;
	for (uint64_t pos = 0; pos <= text.size;) {
		if (pos == text.size && text.size > 0 && text.data[text.size - 1] == '\n')
			break;
		const uint8_t *l = text.data + pos;
		const uint8_t *nl = pos < text.size ? memchr(l, '\n', (size_t)(text.size - pos)) : NULL;
		size_t n = nl ? (size_t)(nl - l) : (size_t)(text.size - pos);
		pos += n + 1;
		line_no++;
		while (n > 0 && (l[n - 1] == '\r' || l[n - 1] == ' ' || l[n - 1] == '\t'))
			n--;
		while (n > 0 && (l[0] == ' ' || l[0] == '\t')) {
			l++;
			n--;
		}
		/* ESP-IDF's panic handler frames the text with
		 * "================= CORE DUMP START =================" and
		 * "... CORE DUMP END ..." (esp_core_dump_uart.c). */
		bool start = contains(l, n, "CORE DUMP START");
		bool end = contains(l, n, "CORE DUMP END");
		bool data = !start && !end && is_b64_line(l, n);
		if (start || (!in_run && data)) {
			b = (struct b64_run){ .out = out, .cap = cap, .ok = true };
			in_run = true;
			explicit = start;
			start_line = start ? line_no + 1 : line_no;
			retry_pos = pos;
			retry_line = line_no;
			if (start)
				continue;
		}
		if (!in_run || n == 0)
			continue;
		if (data && b.ok) {
			run_line(&b, l, n);
			b.ok = run_starts_image(&b, false);
			if (!b.ok && !explicit) {
				in_run = false;
				pos = retry_pos;
				line_no = retry_line;
			}
			continue;
		}
		if (data || (explicit && !end))
			continue; /* a run that is no image; noise between the markers */
		/* The run's end: a marker, or a line of other text. */
		if (b.ok && run_starts_image(&b, true)) {
			*len = b.len < cap ? b.len : cap;
			*first_line = start_line;
			return true;
		}
		in_run = false;
	}
	if (in_run && b.ok && run_starts_image(&b, true)) {
		*len = b.len < cap ? b.len : cap;
		*first_line = start_line;
		return true;
	}
	return false;
}

/* ---- Detection ------------------------------------------------------- */

bool sw_espcore_is(const uint8_t *data, size_t size)
{
	if (!data || size == 0)
		return false;
	struct sw_span head = { data, size, 0, false };
	struct sw_esp_header h;
	if (sw_esp_header_parse(head, &h) == SW_ESP_HEADER_OK)
		return true;
	uint8_t peek[ESP_PEEK];
	size_t n;
	uint64_t line;
	return sw_esp_b64_decode(head, peek, sizeof peek, &n, &line);
}

bool sw_espcore_text_holds_dump(const char *path, const struct sw_open_options *opts)
{
	struct sw_mapped_file m = { 0 };
	struct sw_err err = { 0 };
	if (sw_snapshot_map_input(path, opts, &m, &err) != SW_OK || !m.data)
		return false;
	uint8_t peek[ESP_PEEK];
	size_t n;
	uint64_t line;
	bool found = sw_esp_b64_decode((struct sw_span){ m.data, m.size, 0, false }, peek,
	                               sizeof peek, &n, &line);
	sw_unmap_file(&m);
	return found;
}

/* ---- The image ------------------------------------------------------- */

/* The checksum over header | data (loader.py _crc_validate,
 * _sha256_validate): the last 4 or 32 bytes of the image. */
static void check_checksum(struct esp_reader *r, struct sw_span image,
                           const struct sw_esp_header *h)
{
	uint64_t covered = h->tot_len - h->checksum_size;
	struct sw_span stored;
	if (!sw_span_sub(image, covered, h->checksum_size, &stored))
		return;
	if (h->checksum_size == 4) {
		uLong crc = crc32(0L, Z_NULL, 0);
		for (uint64_t at = 0; at < covered;) {
			uInt chunk = covered - at > 1u << 30 ? 1u << 30 : (uInt)(covered - at);
			crc = crc32(crc, image.data + at, chunk);
			at += chunk;
		}
		uint32_t want = sw_u32(stored, 0);
		if ((uint32_t)crc != want)
			problem(r, false, "bad checksum: the CRC-32 of its %llu bytes is 0x%08x, "
			                  "the image says 0x%08x",
			        (unsigned long long)covered, (unsigned)crc, want);
		return;
	}
	uint8_t got[SW_SHA256_SIZE];
	sw_sha256(image.data, (size_t)covered, got);
	if (memcmp(got, stored.data, SW_SHA256_SIZE) != 0) {
		char a[2 * SW_SHA256_SIZE + 1], b[2 * SW_SHA256_SIZE + 1];
		sw_hex_encode(got, SW_SHA256_SIZE, a);
		sw_hex_encode(stored.data, SW_SHA256_SIZE, b);
		problem(r, false, "bad checksum: the SHA-256 of its %llu bytes is %.16s..., "
		                  "the image says %.16s...",
		        (unsigned long long)covered, a, b);
	}
}

/* The file's image: the file itself (raw), or its base64 text decoded
 * into the snapshot's arena. */
static enum sw_err_code image_of(struct esp_reader *r, struct sw_span file,
                                 struct sw_span *image, struct sw_err *err)
{
	struct sw_esp_header h;
	if (sw_esp_header_parse(file, &h) == SW_ESP_HEADER_OK) {
		*image = file;
		return SW_OK;
	}
	/* Four characters give three bytes: 3/4 of the text is room enough. */
	size_t cap = (size_t)(file.size / 4 * 3 + 3);
	uint8_t *buf = sw_arena_alloc(&r->snap->arena, cap);
	if (!buf)
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory for the decoded core dump",
		                  r->path);
	size_t len;
	uint64_t line;
	if (!sw_esp_b64_decode(file, buf, cap, &len, &line))
		return sw_err_set(err, SW_ERR_FORMAT, "%s: not an ESP-IDF core dump (neither an image "
		                                      "nor base64 text of one)",
		                  r->path);
	*image = (struct sw_span){ buf, len, 0, false };
	return SW_OK;
}

/* The verdict when the ELF core reader is not reached (nothing read). */
static enum sw_err_code fail(struct esp_reader *r, enum sw_err_code code, const char *what,
                             struct sw_err *err)
{
	const char *first = NULL;
	for (uint32_t i = 0; i < r->snap->nproblems && !first; i++)
		if (strncmp(r->snap->problems[i], "warning: ", 9) != 0)
			first = r->snap->problems[i];
	if (first)
		return sw_err_set(err, code, "%s: damaged ESP-IDF core dump: %s; %s", r->path, first,
		                  what);
	return sw_err_set(err, code, "%s: ESP-IDF core dump: %s", r->path, what);
}

enum sw_err_code sw_espcore_read(const char *path, const struct sw_open_options *opts,
                                 struct sw_snapshot *out, struct sw_err *err)
{
	static const struct sw_reader_entry entry = {
		.format = "espcore",
		/* As for any ELF core: scanned frames must be proven by the
		 * code bytes, which come from the firmware ELF
		 * (sw_elfcore_read_image sets it again). */
		.scans_need_code = true,
		/* The magic: its header's, read below (base64 text or not). */
	};
	struct sw_span file;
	enum sw_err_code rc = sw_reader_begin(path, opts, &entry, out, &file, err);
	if (rc != SW_OK)
		return rc;
	struct esp_reader r = { .snap = out, .path = path };
	struct sw_span image;
	rc = image_of(&r, file, &image, err);
	if (rc != SW_OK)
		return rc;
	struct sw_esp_header h;
	enum sw_esp_header_status hs = sw_esp_header_parse(image, &h);
	if (hs == SW_ESP_HEADER_UNKNOWN_VERSION)
		return sw_err_set(err, SW_ERR_UNSUPPORTED,
		                  "%s: ESP-IDF core dump of version %u.%u (%s), which this stackwalk "
		                  "does not read (it reads 0.1-0.3 and 1.0-1.4)",
		                  path, h.dump_version >> 8, h.dump_version & 0xff,
		                  sw_esp_chip_name(h.chip));
	if (hs != SW_ESP_HEADER_OK)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: not an ESP-IDF core dump", path);
	if (h.tot_len < h.header_size + h.checksum_size)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: ESP-IDF core dump: its length (tot_len) "
		                                      "is %u bytes, less than its header and checksum "
		                                      "(%u)",
		                  path, h.tot_len, h.header_size + h.checksum_size);

	/* The data: up to the checksum; a truncated image (a partition read
	 * short, text cut) up to what is there, unchecked. A partition read
	 * whole goes on after tot_len with its erased (0xFF) bytes: ignored. */
	uint64_t data_end = h.tot_len - h.checksum_size;
	if (h.tot_len > image.size) {
		problem(&r, false, "truncated: the image is %u bytes (tot_len), the %s holds "
		                   "%llu: the checksum is not checked",
		        h.tot_len, image.data == file.data ? "file" : "decoded text",
		        (unsigned long long)image.size);
		data_end = image.size;
	} else {
		check_checksum(&r, image, &h);
	}
	struct sw_span data = sw_span_clip(image, h.header_size, data_end - h.header_size);
	struct sw_elfcore_outer outer = {
		.what = "ESP-IDF core dump",
		.has_esp_version = true,
		.esp_version = h.ver,
		.has_chip_rev = h.has_chip_rev,
		.chip_rev = h.chip_rev,
	};
	/* 0.x: the task list, converted into the ELF core it stands for. */
	if (!h.elf && !esp_bin_to_elf(&r, data, &h, &data))
		return fail(&r, SW_ERR_FORMAT, "its task list holds no readable task", err);
	outer.damage = r.damage;
	if (!sw_elfcore_is(data.data, (size_t)data.size))
		return fail(&r, SW_ERR_FORMAT,
		            h.elf ? "its data is not an ELF core" : "its task list is unreadable", err);
	return sw_elfcore_read_image(path, opts, data, &outer, out, err);
}
