/* Lines and words of the text formats (text_lines.h). */
#include "text_lines.h"

#include <string.h>

#include "lib/hex.h"

bool text_next_line(struct sw_span text, uint64_t *pos, struct sw_span *line)
{
	struct sw_span rest = sw_span_clip(text, *pos, text.size);
	if (rest.size == 0)
		return false;
	const uint8_t *nl = memchr(rest.data, '\n', (size_t)rest.size);
	uint64_t len = nl ? (uint64_t)(nl - rest.data) : rest.size;
	*pos += len + (nl != NULL);
	if (len > 0 && sw_u8(rest, len - 1) == '\r')
		len--;
	*line = sw_span_clip(rest, 0, len);
	return true;
}

uint64_t text_count_lines(struct sw_span text, uint64_t max)
{
	uint64_t n = 0, pos = 0;
	struct sw_span line;
	while (n <= max && text_next_line(text, &pos, &line))
		n++;
	return n;
}

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

struct sw_span text_trim(struct sw_span s)
{
	uint64_t a = 0, b = s.size;
	while (a < b && is_blank(sw_u8(s, a)))
		a++;
	while (b > a && is_blank(sw_u8(s, b - 1)))
		b--;
	return sw_span_clip(s, a, b - a);
}

struct sw_span text_next_word(struct sw_span *rest)
{
	uint64_t a = 0;
	while (a < rest->size && is_blank(sw_u8(*rest, a)))
		a++;
	uint64_t b = a;
	while (b < rest->size && !is_blank(sw_u8(*rest, b)))
		b++;
	struct sw_span w = sw_span_clip(*rest, a, b - a);
	*rest = sw_span_clip(*rest, b, rest->size);
	return w;
}

bool text_hex(struct sw_span s, uint64_t *out)
{
	uint64_t i = 0;
	if (s.size > 2 && sw_u8(s, 0) == '0' && (sw_u8(s, 1) == 'x' || sw_u8(s, 1) == 'X'))
		i = 2;
	if (i >= s.size)
		return false;
	uint64_t v = 0;
	for (; i < s.size; i++) {
		int d = sw_hex_digit((char)sw_u8(s, i));
		if (d < 0 || v >> 60 != 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

const char *text_shown(struct sw_span s, char *buf, size_t cap)
{
	size_t n = 0;
	for (uint64_t i = 0; i < s.size && n + 1 < cap; i++) {
		uint8_t c = sw_u8(s, i);
		buf[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (cap)
		buf[n < cap ? n : cap - 1] = '\0';
	return buf;
}
