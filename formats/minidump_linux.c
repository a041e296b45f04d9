/* Breakpad's Linux streams (minidump_format.h, MD_LINUX_*): /proc and /etc
 * text captured by the Linux writer, the link_map list (MD_LINUX_DSO_DEBUG)
 * and the assertion stream (MDRawAssertionInfo). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minidump_internal.h"

enum {
	MD_ASSERTION_SIZE = 776,      /* 3 x 128 UTF-16 units, line, type */
	MD_ASSERTION_CHARS = 128,
	MD_DEBUG32_SIZE = 24,         /* MDRawDebug32 */
	MD_DEBUG64_SIZE = 40,         /* MDRawDebug64 */
	MD_LINK_MAP32_SIZE = 12,      /* MDRawLinkMap32 */
	MD_LINK_MAP64_SIZE = 24,      /* MDRawLinkMap64 */
	MD_MAX_TEXT = 64 << 20,       /* text streams larger than this are cut */
};

/* The stream's bytes as a NUL-terminated arena copy (*len without it). */
static const char *stream_text(struct md_reader *r, struct sw_span s, size_t *len)
{
	size_t n = s.size > MD_MAX_TEXT ? MD_MAX_TEXT : (size_t)s.size;
	const uint8_t *p = sw_span_ptr(s, 0);
	*len = p ? n : 0;
	return sw_arena_strndup(&r->snap->arena, p ? (const char *)p : "", *len);
}

/* /proc/cpuinfo's first "microcode : 0x..." line (Linux x86). */
static void parse_microcode(struct sw_system_info *sys, const char *text)
{
	for (const char *line = text; line && *line;) {
		if (strncmp(line, "microcode", 9) == 0) {
			const char *colon = strchr(line, ':');
			const char *eol = strchr(line, '\n');
			if (colon && (!eol || colon < eol)) {
				char *end;
				unsigned long long v = strtoull(colon + 1, &end, 0);
				if (end != colon + 1) {
					sys->cpu_microcode = v;
					sys->has_cpu_microcode = true;
				}
			}
			return;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

/* /etc/lsb-release: KEY=value lines, values maybe in double quotes. */
static void parse_lsb_release(struct md_reader *r, const char *text)
{
	struct sw_snapshot *snap = r->snap;
	uint32_t lines = 1;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	snap->lsb_release = sw_arena_array(&snap->arena, lines, sizeof *snap->lsb_release);
	if (!snap->lsb_release)
		return;
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *eq = memchr(line, '=', len);
		if (eq && eq > line) {
			const char *v = eq + 1;
			size_t vlen = len - (size_t)(v - line);
			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"')
				v++, vlen -= 2;
			struct sw_keyval *kv = &snap->lsb_release[snap->nlsb_release++];
			kv->key = sw_arena_strndup(&snap->arena, line, (size_t)(eq - line));
			kv->value = sw_arena_strndup(&snap->arena, v, vlen);
		}
		if (!eol)
			break;
		line = eol + 1;
	}
}

/* The "Pid:" line of /proc/PID/status (proc(5)): the process id when the
 * dump has no MiscInfo stream, as on Linux. */
static void parse_status_pid(struct sw_snapshot *snap, const char *text)
{
	for (const char *line = text; line && *line;) {
		if (strncmp(line, "Pid:", 4) == 0) {
			char *end;
			unsigned long pid = strtoul(line + 4, &end, 10);
			if (end != line + 4 && pid <= UINT32_MAX) {
				snap->has_pid = true;
				snap->pid = (uint32_t)pid;
			}
			return;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

void md_read_linux_text(struct md_reader *r, uint32_t type, struct sw_span s)
{
	struct sw_snapshot *snap = r->snap;
	size_t len;
	const char *text = stream_text(r, s, &len);
	if (!text)
		return;
	switch (type) {
	case MD_STREAM_LINUX_CPU_INFO:
		snap->cpuinfo = text;
		parse_microcode(&snap->sys, text);
		break;
	case MD_STREAM_LINUX_PROC_STATUS:
		snap->proc_status = text;
		if (!snap->has_pid)
			parse_status_pid(snap, text);
		break;
	case MD_STREAM_LINUX_LSB_RELEASE:
		parse_lsb_release(r, text);
		break;
	case MD_STREAM_LINUX_CMD_LINE:
		snap->cmdline = text;
		snap->cmdline_len = len;
		snap->cmdline_is_argv = true; /* /proc/PID/cmdline's bytes */
		break;
	case MD_STREAM_LINUX_ENVIRON:
		snap->environ = text;
		snap->environ_len = len;
		break;
	default:
		break;
	}
}

/* One /proc/PID/maps line: "start-end perms offset dev inode   path". */
static bool parse_maps_line(struct md_reader *r, const char *line, size_t len,
                            struct sw_mapping *m)
{
	char buf[64];
	size_t head = len < sizeof buf - 1 ? len : sizeof buf - 1;
	memcpy(buf, line, head);
	buf[head] = '\0';
	unsigned long long start, end, offset;
	char perms[5];
	int used = 0;
	if (sscanf(buf, "%llx-%llx %4s %llx %*s %*s%n", &start, &end, perms, &offset, &used) < 4)
		return false;
	m->start = start;
	m->end = end;
	m->offset = offset;
	memcpy(m->perms, perms, sizeof m->perms);
	m->path = NULL;
	/* The path starts after the inode and its padding; it may hold
	 * spaces. Find the inode field end in the full line. */
	size_t i = 0, fields = 0;
	while (i < len && fields < 5) {
		while (i < len && line[i] == ' ')
			i++;
		while (i < len && line[i] != ' ')
			i++;
		fields++;
	}
	while (i < len && line[i] == ' ')
		i++;
	if (i < len)
		m->path = sw_arena_strndup(&r->snap->arena, line + i, len - i);
	return true;
}

void md_read_linux_maps(struct md_reader *r, struct sw_span s)
{
	struct sw_snapshot *snap = r->snap;
	size_t len;
	const char *text = stream_text(r, s, &len);
	if (!text)
		return;
	uint32_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	snap->maps = sw_arena_array(&snap->arena, lines, sizeof *snap->maps);
	if (!snap->maps)
		return;
	uint32_t bad = 0;
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		if (n > 0 && snap->nmaps < lines) {
			if (parse_maps_line(r, line, n, &snap->maps[snap->nmaps]))
				snap->nmaps++;
			else
				bad++;
		}
		if (!eol)
			break;
		line = eol + 1;
	}
	if (bad)
		problem(r, r->optional, "Linux maps: %u lines are not /proc/PID/maps lines", bad);
}

void md_read_linux_dso_debug(struct md_reader *r, struct sw_span s)
{
	struct sw_snapshot *snap = r->snap;
	/* MDRawDebug64 on 64-bit CPUs, MDRawDebug32 otherwise; without system
	 * info, the stream size decides. */
	bool wide = snap->sys.word_size ? snap->sys.word_size == 8 : s.size >= MD_DEBUG64_SIZE;
	uint64_t header = wide ? MD_DEBUG64_SIZE : MD_DEBUG32_SIZE;
	uint64_t rec = wide ? MD_LINK_MAP64_SIZE : MD_LINK_MAP32_SIZE;
	if (!md_stream_holds(r, s, header, "Linux DSO debug"))
		return;
	uint32_t map_rva = sw_u32(s, 4), count = sw_u32(s, 8);
	struct sw_span map;
	md_location(r, (uint64_t)count * rec, map_rva, "Linux DSO debug link_map", &map);
	uint32_t n = (uint32_t)(map.size / rec);
	snap->link_map = sw_arena_array(&snap->arena, n ? n : 1, sizeof *snap->link_map);
	if (!snap->link_map)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct sw_span e;
		/* n is how many whole records `map` holds: this cannot fail;
		 * stopping if it ever does adds no entry of zeros. */
		if (!sw_span_sub(map, i * rec, rec, &e))
			break;
		struct sw_link_map_entry *lm = &snap->link_map[snap->nlink_map++];
		lm->addr = wide ? sw_u64(e, 0) : sw_u32(e, 0);
		uint32_t name_rva = wide ? sw_u32(e, 8) : sw_u32(e, 4);
		lm->ld = wide ? sw_u64(e, 16) : sw_u32(e, 8);
		lm->name = name_rva ? md_path(r, name_rva, "Linux DSO debug name") : NULL;
	}
}

void md_read_assertion(struct md_reader *r, struct sw_span s)
{
	if (!md_stream_holds(r, s, MD_ASSERTION_SIZE, "assertion info"))
		return;
	struct sw_span expr, func, file;
	/* MDRawAssertionInfo's three UTF-16 arrays lie inside the
	 * MD_ASSERTION_SIZE bytes checked above, so these cannot fail. */
	if (!sw_span_sub(s, 0, 2 * MD_ASSERTION_CHARS, &expr) ||
	    !sw_span_sub(s, 2 * MD_ASSERTION_CHARS, 2 * MD_ASSERTION_CHARS, &func) ||
	    !sw_span_sub(s, 4 * MD_ASSERTION_CHARS, 2 * MD_ASSERTION_CHARS, &file))
		return;
	const char *e = md_utf16_to_utf8(r, expr, MD_ASSERTION_CHARS);
	const char *f = md_utf16_to_utf8(r, func, MD_ASSERTION_CHARS);
	const char *fl = md_utf16_to_utf8(r, file, MD_ASSERTION_CHARS);
	uint32_t line = sw_u32(s, 768), type = sw_u32(s, 772);
	/* Breakpad's MinidumpProcessor::GetAssertion wording. */
	char head[64];
	if (type == 1)
		snprintf(head, sizeof head, "Invalid parameter passed to library function");
	else if (type == 2)
		snprintf(head, sizeof head, "Pure virtual function called");
	else
		snprintf(head, sizeof head, "Unknown assertion type 0x%08x", type);
	char lines[32] = "";
	if (line)
		snprintf(lines, sizeof lines, " at line %u", line);
	r->snap->assertion = sw_arena_printf(
		&r->snap->arena, "%s%s%s%s%s%s%s%s", head, e && *e ? " " : "", e && *e ? e : "",
		f && *f ? " in function " : "", f && *f ? f : "", fl && *fl ? ", in file " : "",
		fl && *fl ? fl : "", lines);
}
