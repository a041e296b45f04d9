/* /proc/PID/maps (proc(5)) into a snapshot's map list (proc_maps.h).
 *
 * Each line is "START-END PERMS OFFSET DEV INODE [NAME]": hex numbers of
 * any width, fields separated by one or more blanks, the name the rest of
 * the line. Every line is kept in snap->maps. */
#include "proc_maps.h"

#include <string.h>

#include "reader.h"
#include "text_lines.h"

/* Where the problems of one reading are counted (reader.h's problem()). */
struct maps_reader {
	struct sw_snapshot *snap;
	uint32_t damage;
};

static bool is_perms(struct sw_span p)
{
	static const char allowed[4][3] = { "r-", "w-", "x-", "ps" };
	if (p.size != 4)
		return false;
	for (unsigned i = 0; i < 4; i++)
		if (!memchr(allowed[i], sw_u8(p, i), 2))
			return false;
	return true;
}

/* DEV is "MAJOR:MINOR" in hex; INODE decimal. */
static bool is_dev(struct sw_span d)
{
	const uint8_t *colon = d.size ? memchr(d.data, ':', (size_t)d.size) : NULL;
	if (!colon)
		return false;
	uint64_t at = (uint64_t)(colon - d.data), v;
	return text_hex(sw_span_clip(d, 0, at), &v) && text_hex(sw_span_clip(d, at + 1, d.size), &v);
}

static bool is_decimal(struct sw_span s)
{
	if (s.size == 0)
		return false;
	for (uint64_t i = 0; i < s.size; i++)
		if (sw_u8(s, i) < '0' || sw_u8(s, i) > '9')
			return false;
	return true;
}

/* One line into *m; false (and a problem) when it is not a maps line. */
static bool read_map_line(struct maps_reader *r, struct sw_span line, const char *path,
                          uint64_t lineno, struct sw_mapping *m)
{
	char buf[64];
	struct sw_span rest = line;
	struct sw_span range = text_next_word(&rest), perms = text_next_word(&rest);
	struct sw_span offset = text_next_word(&rest), dev = text_next_word(&rest);
	struct sw_span inode = text_next_word(&rest);
	const uint8_t *dash = range.size ? memchr(range.data, '-', (size_t)range.size) : NULL;
	uint64_t at = dash ? (uint64_t)(dash - range.data) : 0;
	if (!dash || !text_hex(sw_span_clip(range, 0, at), &m->start) ||
	    !text_hex(sw_span_clip(range, at + 1, range.size), &m->end) || m->end <= m->start) {
		problem(r, false, "%s:%llu: bad address range '%s' (START-END, hex, START < END): "
		                  "line ignored",
		        path, (unsigned long long)lineno, text_shown(range, buf, sizeof buf));
		return false;
	}
	if (!is_perms(perms)) {
		problem(r, false, "%s:%llu: bad permissions '%s' (4 characters, as r-xp): "
		                  "line ignored",
		        path, (unsigned long long)lineno, text_shown(perms, buf, sizeof buf));
		return false;
	}
	if (!text_hex(offset, &m->offset)) {
		problem(r, false, "%s:%llu: bad file offset '%s' (hex): line ignored", path,
		        (unsigned long long)lineno, text_shown(offset, buf, sizeof buf));
		return false;
	}
	if (!is_dev(dev) || !is_decimal(inode)) {
		problem(r, false, "%s:%llu: bad device or inode '%s %s' (as 00:00 0): line ignored",
		        path, (unsigned long long)lineno, text_shown(dev, buf, sizeof buf),
		        text_shown(inode, buf + 32, sizeof buf - 32));
		return false;
	}
	memcpy(m->perms, perms.data, 4);
	m->perms[4] = '\0';
	struct sw_span name = text_trim(rest);
	m->path = NULL;
	if (name.size > 0) {
		if (memchr(name.data, '\0', (size_t)name.size)) {
			problem(r, false, "%s:%llu: a NUL byte in the map's name: line ignored", path,
			        (unsigned long long)lineno);
			return false;
		}
		m->path = sw_arena_strndup(&r->snap->arena, (const char *)name.data, (size_t)name.size);
		if (!m->path)
			return false;
	}
	return true;
}

uint32_t sw_proc_maps_read(struct sw_snapshot *s, struct sw_span text, const char *path)
{
	struct maps_reader r = { .snap = s };
	uint64_t n = text_count_lines(text, SW_PROC_MAPS_MAX);
	if (n > SW_PROC_MAPS_MAX)
		n = SW_PROC_MAPS_MAX;
	s->maps = sw_arena_array(&s->arena, (size_t)n ? (size_t)n : 1, sizeof *s->maps);
	if (!s->maps) {
		problem(&r, false, "%s: out of memory", path);
		return r.damage;
	}
	uint64_t pos = 0, lineno = 0;
	struct sw_span line;
	while (text_next_line(text, &pos, &line)) {
		lineno++;
		if (text_trim(line).size == 0)
			continue;
		if (s->nmaps >= n) {
			problem(&r, false, "%s:%llu: more than %d maps: the rest ignored", path,
			         (unsigned long long)lineno, SW_PROC_MAPS_MAX);
			return r.damage;
		}
		struct sw_mapping *m = &s->maps[s->nmaps];
		if (!read_map_line(&r, line, path, lineno, m))
			continue;
		if (s->nmaps > 0 && m->start < s->maps[s->nmaps - 1].end)
			problem(&r, true, "%s:%llu: map 0x%llx-0x%llx starts below the end of the one "
			                  "before: maps are not in ascending order, or overlap",
			         path, (unsigned long long)lineno, (unsigned long long)m->start,
			         (unsigned long long)m->end);
		s->nmaps++;
	}
	return r.damage;
}
