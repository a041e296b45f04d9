/* Strings in a minidump: MINIDUMP_STRING (UTF-16 with a byte length, MS
 * minidumpapiset.h; its length and units are in the file's byte
 * order), Crashpad's MinidumpUTF8String and the 8-bit names in CodeView
 * records.
 *
 * What a string may cost: records name strings by file offset, and nothing
 * stops a hostile file from naming one long string from every record (a
 * module list of thousands of modules sharing one name), or from laying
 * strings over each other so that each offset reads a different long one.
 * So each string is decoded once per offset (the cache), every decoded
 * byte is charged to a budget proportional to the file's size, and no
 * string is longer than its kind's limit. A reference then costs a
 * pointer, and all strings together a small multiple of the file. */
#include <stdlib.h>
#include <string.h>

#include "minidump_internal.h"

enum {
	/* Cache keys: a string's kind in the low bits of its file offset. */
	KIND_UTF16 = 0,
	KIND_UTF8 = 1,
	KIND_CSTRING = 2,
	KIND_PATH = 3,
	/* Budget = BUDGET_FILE_MULTIPLE * file size + BUDGET_BASE. */
	BUDGET_FILE_MULTIPLE = 2,
	BUDGET_BASE = 64 * 1024,
};

uint64_t md_text_budget(uint64_t file_size)
{
	return file_size * BUDGET_FILE_MULTIPLE + BUDGET_BASE;
}

void md_reader_release(struct md_reader *r)
{
	free(r->strings.slots);
	memset(&r->strings, 0, sizeof r->strings);
}

/* ---- the cache ---------------------------------------------------------- */

static uint64_t cache_where(uint64_t off, unsigned kind)
{
	return off << 2 | kind | (uint64_t)1 << 63;
}

static uint32_t cache_hash(uint64_t where, uint64_t len, uint32_t mask)
{
	/* Fibonacci hashing: offsets are often multiples of 4. */
	uint64_t h = (where ^ len * 0x9e3779b97f4a7c15u) * 0x9e3779b97f4a7c15u;
	return (uint32_t)(h >> 32) & mask;
}

/* The slot for (where, len): the one holding it, or the free one where it
 * goes. NULL when the table is empty. */
static struct md_cached_string *cache_slot(const struct md_string_cache *c, uint64_t where,
                                           uint64_t len)
{
	if (c->cap == 0)
		return NULL;
	uint32_t mask = c->cap - 1;
	for (uint32_t i = cache_hash(where, len, mask);; i = (i + 1) & mask) {
		struct md_cached_string *s = &c->slots[i];
		if (s->where == 0 || (s->where == where && s->len == len))
			return s;
	}
}

/* Makes room for one more entry (load at most 1/2); false when memory is
 * short (the string is then decoded without being cached). */
static bool cache_reserve(struct md_string_cache *c)
{
	if (c->cap && c->n < c->cap / 2)
		return true;
	if (c->cap > UINT32_MAX / 4)
		return false;
	uint32_t cap = c->cap ? c->cap * 2 : 64;
	struct md_string_cache grown = { calloc(cap, sizeof *grown.slots), cap, c->n };
	if (!grown.slots)
		return false;
	for (uint32_t i = 0; i < c->cap; i++)
		if (c->slots[i].where)
			*cache_slot(&grown, c->slots[i].where, c->slots[i].len) = c->slots[i];
	free(c->slots);
	*c = grown;
	return true;
}

static void cache_put(struct md_string_cache *c, uint64_t where, uint64_t len,
                      const char *text)
{
	if (!cache_reserve(c))
		return;
	struct md_cached_string *s = cache_slot(c, where, len);
	if (s->where == 0)
		c->n++;
	*s = (struct md_cached_string){ where, len, text };
}

/* ---- the budget --------------------------------------------------------- */

/* How many bytes a string of up to `limit` bytes may have now: the limit,
 * or what is left of the budget. Records one problem when it runs out. */
static uint64_t budget_allows(struct md_reader *r, uint64_t limit, const char *what)
{
	if (r->text_budget >= limit)
		return limit;
	if (!r->text_budget_spent) {
		r->text_budget_spent = true;
		problem(r, r->optional,
		        "%s: the strings of this file decode to more text than its %llu bytes "
		        "can hold (strings laid over each other); this and later strings are cut",
		        what, (unsigned long long)r->file.size);
	}
	return r->text_budget;
}

static void budget_charge(struct md_reader *r, uint64_t bytes)
{
	r->text_budget -= bytes < r->text_budget ? bytes : r->text_budget;
}

bool md_charge_annotation(struct md_reader *r, uint64_t bytes)
{
	if (bytes <= r->annotation_budget) {
		r->annotation_budget -= bytes;
		return true;
	}
	if (!r->annotation_budget_spent) {
		r->annotation_budget_spent = true;
		problem(r, r->optional,
		        "Crashpad annotations: more annotation text than a file of %llu bytes "
		        "holds (annotations shared between modules); the rest are not read",
		        (unsigned long long)r->file.size);
	}
	return false;
}

/* A UTF-16 string cut at `limit` bytes of UTF-8 gets one warning (it is
 * cached, so one per string, not per reference). */
static void warn_cut(struct md_reader *r, const char *what, uint64_t units, uint64_t limit)
{
	sw_snapshot_problem(r->snap, "warning: %s: %llu UTF-16 units, cut to %llu bytes", what,
	                    (unsigned long long)units, (unsigned long long)limit);
}

/* ---- decoding ----------------------------------------------------------- */

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* UTF-16 → UTF-8 into at most max_bytes (+ NUL); *cut tells whether units
 * were left over. */
static char *utf16_to_utf8(struct md_reader *r, struct sw_span s, uint64_t nunits,
                           uint64_t max_bytes, bool *cut)
{
	*cut = false;
	if (nunits > s.size / 2)
		nunits = s.size / 2;
	/* A UTF-16 unit becomes at most 3 UTF-8 bytes (a pair: 4 for 2): no
	 * more than max_bytes are needed, nor more than the units can make. */
	uint64_t room = nunits * 3 < max_bytes ? nunits * 3 : max_bytes;
	char *out = sw_arena_alloc(&r->snap->arena, (size_t)room + 1);
	if (!out)
		return NULL;
	size_t n = 0;
	for (uint64_t i = 0; i < nunits; i++) {
		uint32_t u = sw_u16(s, 2 * i);
		if (u == 0)
			break;
		uint32_t cp = u;
		uint64_t used = 1;
		if (u >= 0xd800 && u < 0xdc00) {
			uint32_t lo = i + 1 < nunits ? sw_u16(s, 2 * (i + 1)) : 0;
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				used = 2;
			} else {
				cp = 0xfffd;
			}
		} else if (u >= 0xdc00 && u < 0xe000) {
			cp = 0xfffd;
		}
		char enc[4];
		size_t len = put_utf8(enc, cp);
		if (len > room - n) {
			*cut = true;
			break;
		}
		memcpy(out + n, enc, len);
		n += len;
		i += used - 1;
	}
	out[n] = '\0';
	return out;
}

char *md_utf16_to_utf8(struct md_reader *r, struct sw_span s, uint64_t nunits)
{
	bool cut;
	return utf16_to_utf8(r, s, nunits, MD_MAX_NAME_BYTES, &cut);
}

/* The body of a length-prefixed string at rva (uint32 byte length, then
 * the bytes), shared by MINIDUMP_STRING and Crashpad's MinidumpUTF8String:
 * false, with a problem naming `what`, when the length field or the whole
 * of a non-empty body lies outside the file; a body cut by the end of the
 * file is kept (with a problem). */
static bool string_body(struct md_reader *r, uint64_t rva, const char *what,
                        struct sw_span *body)
{
	struct sw_span len_span;
	if (!sw_span_sub(r->file, rva, 4, &len_span)) {
		problem(r, r->optional, "%s: string at 0x%llx lies outside the file", what,
		        (unsigned long long)rva);
		return false;
	}
	uint32_t len = sw_u32(len_span, 0);
	return md_location(r, len, rva + 4, what, body) || body->size != 0;
}

/* The cached string of kind at (off, len), if any: true and *text. */
static bool cached(struct md_reader *r, uint64_t off, unsigned kind, uint64_t len,
                   const char **text)
{
	const struct md_cached_string *s = cache_slot(&r->strings, cache_where(off, kind), len);
	if (!s || s->where == 0)
		return false;
	*text = s->text;
	return true;
}

const char *md_string(struct md_reader *r, uint64_t rva, const char *what)
{
	const char *text;
	if (cached(r, rva, KIND_UTF16, 0, &text))
		return text;
	struct sw_span body;
	text = NULL;
	if (string_body(r, rva, what, &body)) {
		bool cut;
		uint64_t limit = budget_allows(r, MD_MAX_NAME_BYTES, what);
		char *s = utf16_to_utf8(r, body, body.size / 2, limit, &cut);
		if (s) {
			budget_charge(r, strlen(s));
			if (cut && limit == MD_MAX_NAME_BYTES)
				warn_cut(r, what, body.size / 2, limit);
		}
		text = s;
	}
	cache_put(&r->strings, cache_where(rva, KIND_UTF16), 0, text);
	return text;
}

/* 8-bit text up to its first NUL, at most `limit` bytes and what the
 * budget allows; a longer one is cut with a warning. */
static const char *decode_8bit(struct md_reader *r, struct sw_span body, uint64_t limit,
                               const char *what)
{
	const uint8_t *p = sw_span_ptr(body, 0);
	if (!p)
		return sw_arena_strdup(&r->snap->arena, "");
	/* Stop at an embedded NUL, as a C string would; look no further than
	 * one byte past the limit (a CodeView "name" may be the rest of the
	 * file, and many records may name it). */
	uint64_t scan = body.size < limit + 1 ? body.size : limit + 1;
	const void *nul = memchr(p, 0, (size_t)scan);
	uint64_t len = nul ? (uint64_t)((const uint8_t *)nul - p) : scan;
	uint64_t allowed = budget_allows(r, limit, what);
	uint64_t n = len < allowed ? len : allowed;
	if (len > limit && allowed == limit)
		sw_snapshot_problem(r->snap, "warning: %s: longer than %llu bytes, cut there", what,
		                    (unsigned long long)limit);
	budget_charge(r, n);
	return sw_arena_strndup(&r->snap->arena, (const char *)p, (size_t)n);
}

const char *md_utf8_string(struct md_reader *r, uint64_t rva, const char *what)
{
	const char *text;
	if (cached(r, rva, KIND_UTF8, 0, &text))
		return text;
	struct sw_span body;
	text = string_body(r, rva, what, &body) ? decode_8bit(r, body, MD_MAX_UTF8_BYTES, what)
	                                        : NULL;
	cache_put(&r->strings, cache_where(rva, KIND_UTF8), 0, text);
	return text;
}

/* The length of a UTF-8 prefix of text of at most max bytes that does not
 * end inside a character. */
static size_t utf8_prefix(const char *text, size_t max)
{
	while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* path with its last component cut to MD_MAX_FILE_NAME bytes: path itself
 * when it is not longer, else a charged arena copy. */
static const char *cut_file_name(struct md_reader *r, const char *path, const char *what)
{
	if (!path)
		return NULL;
	const char *base = sw_basename(path);
	size_t len = strlen(base);
	if (len <= MD_MAX_FILE_NAME)
		return path;
	size_t keep = (size_t)(base - path) + utf8_prefix(base, MD_MAX_FILE_NAME);
	sw_snapshot_problem(r->snap, "warning: %s: file name of %zu bytes, cut to %d", what, len,
	                    MD_MAX_FILE_NAME);
	budget_charge(r, keep);
	return sw_arena_strndup(&r->snap->arena, path, keep);
}

const char *md_path(struct md_reader *r, uint64_t rva, const char *what)
{
	const char *text;
	if (cached(r, rva, KIND_PATH, 0, &text))
		return text;
	text = cut_file_name(r, md_string(r, rva, what), what);
	cache_put(&r->strings, cache_where(rva, KIND_PATH), 0, text);
	return text;
}

const char *md_cstring(struct md_reader *r, struct sw_span s, const char *what)
{
	const char *text;
	if (cached(r, s.off, KIND_CSTRING, s.size, &text))
		return text;
	text = cut_file_name(r, decode_8bit(r, s, MD_MAX_NAME_BYTES, what), what);
	cache_put(&r->strings, cache_where(s.off, KIND_CSTRING), s.size, text);
	return text;
}
