/* Microdump reader, the framing: where each microdump of a log begins and
 * ends, and which of the log's lines are its records.
 *
 * Breakpad's writer (microdump_writer.cc, MicrodumpWriter::Dump) logs one
 * record per line, between a BEGIN and an END line. On Android each line
 * goes through logcat, which puts its own prefix before it:
 * "W/google-breakpad( 3745): " in the brief format, "02-23 15:49:14.700
 * 1740  1739 F google-breakpad: " in threadtime; Linux builds write the
 * same lines to stderr with no prefix. Breakpad's processor
 * (microdump.cc) looks for each record's key inside the line. Here the
 * BEGIN line tells the prefix: whatever precedes its marker. Every later
 * line of the microdump has a prefix of the same length and shape (only
 * the timestamp's digits change) and its record follows that prefix;
 * lines of another shape are other log lines, skipped.
 *
 * A log may hold several microdumps: each BEGIN line starts one, which
 * ends at its END line, or is cut where the next BEGIN line or the file
 * ends. Each is read as its own snapshot (sw_snapshot.part / next). */
#include "microdump.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/mapped_file.h"
#include "microdump_internal.h"
#include "open.h"
#include "reader.h"

#define MC_BEGIN "-----BEGIN BREAKPAD MICRODUMP-----"
#define MC_END "-----END BREAKPAD MICRODUMP-----"

enum { MC_BEGIN_LEN = sizeof MC_BEGIN - 1, MC_END_LEN = sizeof MC_END - 1 };

/* The first occurrence of needle in s at or after from (offset in s). */
static bool span_find(struct sw_span s, uint64_t from, const char *needle, size_t n,
                      uint64_t *at)
{
	struct sw_span rest = sw_span_clip(s, from, s.size);
	const uint8_t *p = sw_span_ptr(rest, 0);
	const uint8_t *hit = p ? memmem(p, (size_t)rest.size, needle, n) : NULL;
	if (!hit)
		return false;
	*at = from + (uint64_t)(hit - p);
	return true;
}

bool sw_microdump_is(const uint8_t *data, size_t size)
{
	if (!data || size == 0)
		return false;
	struct sw_span s = { data, size, 0, false };
	uint64_t at;
	return span_find(s, 0, MC_BEGIN, MC_BEGIN_LEN, &at) ||
	       span_find(s, 0, MC_END, MC_END_LEN, &at);
}

/* One line of the file: its text without the "\n" and without a "\r"
 * before it (adb run on Windows saves logs with CRLF), where it starts
 * and where the next one does; cut: the file ends inside it. */
struct mc_line {
	struct sw_span text;
	uint64_t start, next;
	bool cut;
};

static bool line_at(struct sw_span file, uint64_t pos, struct mc_line *l)
{
	struct sw_span rest = sw_span_clip(file, pos, file.size);
	const uint8_t *p = sw_span_ptr(rest, 0);
	if (!p)
		return false;
	const uint8_t *nl = memchr(p, '\n', (size_t)rest.size);
	uint64_t len = nl ? (uint64_t)(nl - p) : rest.size;
	l->start = pos;
	l->next = pos + len + (nl != NULL);
	l->cut = nl == NULL;
	if (len > 0 && sw_u8(rest, len - 1) == '\r')
		len--;
	l->text = sw_span_clip(rest, 0, len);
	return true;
}

/* Newlines in [from, to) of file. */
static uint64_t count_newlines(struct sw_span file, uint64_t from, uint64_t to)
{
	struct sw_span s = sw_span_clip(file, from, to > from ? to - from : 0);
	uint64_t n = 0, off = 0;
	const uint8_t *p;
	while ((p = sw_span_ptr(s, off)) && (p = memchr(p, '\n', (size_t)(s.size - off)))) {
		n++;
		off = (uint64_t)(p - s.data) + 1;
	}
	return n;
}

/* Where the line holding byte `at` starts, no earlier than from. */
static uint64_t line_start(struct sw_span file, uint64_t from, uint64_t at)
{
	struct sw_span s = sw_span_clip(file, from, at > from ? at - from : 0);
	const uint8_t *p = sw_span_ptr(s, 0);
	const uint8_t *nl = p ? memrchr(p, '\n', (size_t)s.size) : NULL;
	return nl ? from + (uint64_t)(nl - p) + 1 : from;
}

/* The first BEGIN line at or after byte from, which is the start of line
 * number `line`: its offset and line number in *out. */
static bool find_part(struct sw_span file, uint64_t from, uint64_t line, struct sw_part *out)
{
	uint64_t at;
	if (!span_find(file, from, MC_BEGIN, MC_BEGIN_LEN, &at))
		return false;
	out->offset = line_start(file, from, at);
	out->line = line + count_newlines(file, from, out->offset);
	return true;
}

/* How many microdumps the log holds: its lines with a BEGIN marker. */
static uint32_t count_parts(struct sw_span file)
{
	uint32_t n = 0;
	uint64_t pos = 0, at;
	struct mc_line l;
	while (n < UINT32_MAX && span_find(file, pos, MC_BEGIN, MC_BEGIN_LEN, &at) &&
	       line_at(file, at, &l)) {
		n++;
		pos = l.next;
	}
	return n;
}

/* Walking one microdump's lines. */
struct mc_iter {
	struct sw_span file;
	struct sw_span prefix;    /* the BEGIN line's text before its marker */
	uint64_t pos;             /* where the next line starts */
	uint64_t line;            /* the number of the last line read */
	struct mc_line cur;
};

enum mc_stop {
	MC_RECORD,                /* *record is the next record */
	MC_END_LINE,              /* the END line: the microdump is whole */
	MC_NEXT_BEGIN,            /* another microdump's BEGIN line: this one was cut */
	MC_EOF,                   /* the file ended: this one was cut */
};

/* Is text one of this microdump's lines? It has the BEGIN line's prefix:
 * the same bytes, except that a digit may stand for a digit (logcat's
 * timestamps). */
static bool has_prefix(struct sw_span prefix, struct sw_span text)
{
	if (!sw_span_has(text, 0, prefix.size))
		return false;
	for (uint64_t i = 0; i < prefix.size; i++) {
		uint8_t a = sw_u8(prefix, i), b = sw_u8(text, i);
		bool digits = a >= '0' && a <= '9' && b >= '0' && b <= '9';
		if (a != b && !digits)
			return false;
	}
	return true;
}

static enum mc_stop next_record(struct mc_iter *it, struct sw_span *record)
{
	while (line_at(it->file, it->pos, &it->cur)) {
		it->pos = it->cur.next;
		it->line++;
		uint64_t at;
		if (span_find(it->cur.text, 0, MC_BEGIN, MC_BEGIN_LEN, &at))
			return MC_NEXT_BEGIN;
		if (!has_prefix(it->prefix, it->cur.text))
			continue;
		*record = sw_span_clip(it->cur.text, it->prefix.size, it->cur.text.size);
		if (span_find(*record, 0, MC_END, MC_END_LEN, &at))
			return MC_END_LINE;
		return MC_RECORD;
	}
	return MC_EOF;
}

void mc_problem(struct mc_reader *r, bool warning, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (r->line)
		sw_snapshot_problem(r->snap, "%sline %llu: %s", warning ? "warning: " : "",
		                    (unsigned long long)r->line, buf);
	else
		sw_snapshot_problem(r->snap, "%smicrodump of line %llu: %s",
		                    warning ? "warning: " : "", (unsigned long long)r->begin_line, buf);
	if (!warning)
		r->damage++;
}

/* A log that starts inside a microdump (logcat's buffer had dropped its
 * beginning): its END line before the first BEGIN line. Nothing of it
 * can be read; the microdumps after it are whole. */
static void note_headless_tail(struct sw_snapshot *s, struct sw_span file, uint64_t first_begin)
{
	uint64_t at;
	if (span_find(sw_span_clip(file, 0, first_begin), 0, MC_END, MC_END_LEN, &at))
		sw_snapshot_problem(s,
		                    "warning: line %llu: the end of a microdump whose BEGIN line is "
		                    "not in the log: skipped",
		                    (unsigned long long)(1 + count_newlines(file, 0, at)));
}

static enum sw_err_code no_microdump(const char *path, struct sw_span file, struct sw_err *err)
{
	uint64_t at;
	if (span_find(file, 0, MC_END, MC_END_LEN, &at))
		return sw_err_set(err, SW_ERR_FORMAT,
		                  "%s: no microdump begins in this log: it holds only the end of one "
		                  "(line %llu), whose BEGIN line is not in the file",
		                  path, (unsigned long long)(1 + count_newlines(file, 0, at)));
	return sw_err_set(err, SW_ERR_FORMAT, "%s: no microdump in this log (no line '%s')", path,
	                  MC_BEGIN);
}

static enum sw_err_code verdict(const char *path, const struct sw_snapshot *s, uint32_t damage,
                                struct sw_err *err)
{
	return sw_snapshot_verdict(s, path, "microdump", damage, err);
}

enum sw_err_code sw_microdump_read(const char *path, const struct sw_part *part,
                                   struct sw_snapshot *out, struct sw_err *err)
{
	return sw_microdump_read_with(path, NULL, part, out, err);
}

enum sw_err_code sw_microdump_read_with(const char *path, const struct sw_open_options *opts,
                                        const struct sw_part *part, struct sw_snapshot *out,
                                        struct sw_err *err)
{
	static const struct sw_reader_entry entry = { .format = "microdump" };
	struct sw_span file;
	enum sw_err_code rc = sw_reader_begin(path, opts, &entry, out, &file, err);
	if (rc != SW_OK)
		return rc;
	if (file.size == 0)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: empty file, not a microdump log", path);

	struct sw_part where = { 0 };
	if (part) {
		/* It must still begin a line, and a BEGIN line. */
		where = *part;
		bool line_starts = part->offset == 0 || sw_u8(file, part->offset - 1) == '\n';
		if (!line_starts || !find_part(file, part->offset, part->line, &where) ||
		    where.offset != part->offset)
			return sw_err_set(err, SW_ERR_FORMAT,
			                  "%s: no microdump begins on line %llu (has the log changed?)",
			                  path, (unsigned long long)part->line);
	} else {
		where.count = count_parts(file);
		if (!find_part(file, 0, 1, &where))
			return no_microdump(path, file, err);
		note_headless_tail(out, file, where.offset);
	}
	out->part = where;

	struct mc_line begin;
	uint64_t marker = 0;
	line_at(file, where.offset, &begin);
	span_find(begin.text, 0, MC_BEGIN, MC_BEGIN_LEN, &marker);
	const struct mc_iter start = {
		.file = file,
		.prefix = sw_span_clip(begin.text, 0, marker),
		.pos = begin.next,
		.line = where.line,
	};

	/* First pass: what the records need, so that each array is
	 * allocated once at its final size. */
	struct mc_iter it = start;
	struct mc_counts counts = { 0 };
	struct sw_span record;
	while (next_record(&it, &record) == MC_RECORD)
		mc_count_record(&counts, record);

	struct mc_reader r;
	if (!mc_reader_init(&r, out, &counts))
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory reading the microdump", path);
	r.begin_line = where.line;
	it = start;
	enum mc_stop stop;
	while ((stop = next_record(&it, &record)) == MC_RECORD) {
		r.line = it.line;
		mc_read_record(&r, record, it.cur.cut);
	}
	r.line = it.line;
	if (stop == MC_NEXT_BEGIN)
		mc_problem(&r, false, "a new microdump begins before the END line of the one begun on "
		                      "line %llu: that one was cut",
		           (unsigned long long)where.line);
	else if (stop == MC_EOF)
		mc_problem(&r, false, "the log ends inside the microdump begun on line %llu "
		                      "(no END line): it was cut",
		           (unsigned long long)where.line);
	mc_finish(&r);

	/* The next microdump, if any: the BEGIN line that cut this one, or
	 * the first after its END line. */
	struct sw_part next = { .index = where.index + 1, .count = where.count };
	if (stop == MC_NEXT_BEGIN) {
		next.offset = it.cur.start;
		next.line = it.line;
		out->has_next = true;
	} else if (stop == MC_END_LINE) {
		out->has_next = find_part(file, it.pos, it.line + 1, &next);
	}
	if (out->has_next) {
		if (next.count <= next.index) /* the log grew since it was counted */
			next.count = next.index + 1;
		out->next = next;
	}

	sw_snapshot_finish(out);
	return verdict(path, out, r.damage, err);
}
