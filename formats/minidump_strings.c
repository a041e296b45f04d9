/* Strings in a minidump: MINIDUMP_STRING (UTF-16LE with a byte length,
 * MS minidumpapiset.h) and Crashpad's MinidumpUTF8String. */
#include <string.h>

#include "minidump_internal.h"

/* Upper bound on a string we copy; longer ones are cut (names and paths
 * are short, a hostile length must not cost much memory). */
enum { MD_MAX_STRING_BYTES = 1 << 20 };

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

char *md_utf16_to_utf8(struct md_reader *r, struct md_span s, uint64_t nunits)
{
	if (nunits > s.size / 2)
		nunits = s.size / 2;
	if (nunits > MD_MAX_STRING_BYTES / 2)
		nunits = MD_MAX_STRING_BYTES / 2;
	/* A UTF-16 unit becomes at most 3 UTF-8 bytes (a pair: 4 for 2). */
	char *out = sw_arena_alloc(&r->snap->arena, (size_t)nunits * 3 + 1);
	if (!out)
		return NULL;
	size_t n = 0;
	for (uint64_t i = 0; i < nunits; i++) {
		uint32_t u = md_u16(s, 2 * i);
		if (u == 0)
			break;
		uint32_t cp = u;
		if (u >= 0xd800 && u < 0xdc00) {
			uint32_t lo = i + 1 < nunits ? md_u16(s, 2 * (i + 1)) : 0;
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			} else {
				cp = 0xfffd;
			}
		} else if (u >= 0xdc00 && u < 0xe000) {
			cp = 0xfffd;
		}
		n += put_utf8(out + n, cp);
	}
	out[n] = '\0';
	return out;
}

/* The body of a length-prefixed string at rva (uint32 byte length, then
 * the bytes), shared by MINIDUMP_STRING and Crashpad's MinidumpUTF8String:
 * false, with a problem naming `what`, when the length field or the whole
 * of a non-empty body lies outside the file; a body cut by the end of the
 * file is kept (with a problem). */
static bool string_body(struct md_reader *r, uint64_t rva, const char *what,
                        struct md_span *body)
{
	struct md_span len_span;
	if (!md_span_sub(r->file, rva, 4, &len_span)) {
		md_problem(r, "%s: string at 0x%llx lies outside the file", what,
		           (unsigned long long)rva);
		return false;
	}
	uint32_t len = md_u32(len_span, 0);
	return md_location(r, len, rva + 4, what, body) || body->size != 0;
}

const char *md_string(struct md_reader *r, uint64_t rva, const char *what)
{
	struct md_span body;
	if (!string_body(r, rva, what, &body))
		return NULL;
	return md_utf16_to_utf8(r, body, body.size / 2);
}

const char *md_utf8_string(struct md_reader *r, uint64_t rva, const char *what)
{
	struct md_span body;
	if (!string_body(r, rva, what, &body))
		return NULL;
	size_t n = body.size > MD_MAX_STRING_BYTES ? MD_MAX_STRING_BYTES : (size_t)body.size;
	const uint8_t *p = md_ptr(body, 0);
	if (!p)
		return sw_arena_strdup(&r->snap->arena, "");
	/* Stop at an embedded NUL, as a C string would. */
	const void *nul = memchr(p, 0, n);
	if (nul)
		n = (size_t)((const uint8_t *)nul - p);
	return sw_arena_strndup(&r->snap->arena, (const char *)p, n);
}
