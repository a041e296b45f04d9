/* The .snap reader, the file: the header, then the records found one after
 * another by their lengths and checked by their CRCs (docs/snap-format.md).
 * A record that fails is dropped and the next one looked for: first where
 * its length points, then at every later offset, within a budget of CRC
 * work proportional to the file's size (a byte dropped by a UART shifts
 * every record after it). What the records say is read afterwards, by
 * snap_records.c, from the list this file builds. */
#include "snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "arch/registry.h"
#include "lib/mapped_file.h"
#include "open.h"
#include "snap_internal.h"

/* A record's head and CRC around its payload. */
enum { RECORD_OVERHEAD = SNAP_RECORD_HEAD + SNAP_RECORD_CRC };

/* ---- Messages ------------------------------------------------------------ */

const char *sr_type_name(uint16_t type, char *buf, size_t cap)
{
	static const char *const names[] = {
		[SNAP_REC_SYSTEM] = "SYSTEM", [SNAP_REC_THREAD] = "THREAD",
		[SNAP_REC_MEMORY] = "MEMORY", [SNAP_REC_MEMORY_ZLIB] = "MEMORY_ZLIB",
		[SNAP_REC_MODULE] = "MODULE", [SNAP_REC_CRASH] = "CRASH",
		[SNAP_REC_ANNOTATION] = "ANNOTATION", [SNAP_REC_END] = "END",
	};
	if (type < sizeof names / sizeof names[0] && names[type])
		return names[type];
	snprintf(buf, cap, "type 0x%x", type);
	return buf;
}

/* ---- Detection and the header ---------------------------------------- */

bool sw_snap_is(const uint8_t *data, size_t size)
{
	return data && size >= SNAP_MAGIC_SIZE && memcmp(data, SNAP_MAGIC, SNAP_MAGIC_SIZE) == 0;
}

/* zlib's crc32 over a span of any size (its length argument is a uInt). */
static uint32_t crc_of(struct sw_span s)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	for (uint64_t at = 0; at < s.size;) {
		uInt chunk = s.size - at > 1u << 30 ? 1u << 30 : (uInt)(s.size - at);
		crc = crc32(crc, s.data + at, chunk);
		at += chunk;
	}
	return (uint32_t)crc;
}

/* The header's fields into r; the offset of the first record, or 0 with
 * *err set when the file cannot be read as a .snap. */
static uint64_t read_header(struct sr_reader *r, struct sw_err *err)
{
	struct sw_span f = r->file;
	if (!sw_span_has(f, 0, SNAP_HEADER_SIZE)) {
		sw_err_set(err, SW_ERR_FORMAT,
		           "%s: a .snap file of %llu bytes, shorter than its 32-byte header", r->path,
		           (unsigned long long)f.size);
		return 0;
	}
	uint16_t version = sw_u16(f, 8), size = sw_u16(f, 10);
	if (version != SNAP_VERSION) {
		sw_err_set(err, SW_ERR_UNSUPPORTED,
		           "%s: .snap version %u, which this stackwalk does not read (it reads %u)",
		           r->path, version, SNAP_VERSION);
		return 0;
	}
	r->cpu_id = sw_u16(f, 12);
	r->word_size = sw_u8(f, 14);
	r->big_endian = (sw_u8(f, 15) & SNAP_HEADER_BIG_ENDIAN) != 0;
	r->cpu_variant = sw_u32(f, 16);
	r->time = sw_u64(f, 20);
	uint8_t cpu_word;
	r->cpu = sr_cpu(r->cpu_id, &cpu_word);
	/* Without a valid size the CRC cannot be found; without a CPU and
	 * word size no register can be read. */
	if (size < SNAP_HEADER_SIZE || size > SR_MAX_HEADER || size > f.size) {
		sw_err_set(err, SW_ERR_FORMAT,
		           "%s: damaged .snap header: its size is %u bytes (32 to 4096, within the "
		           "file's %llu)",
		           r->path, size, (unsigned long long)f.size);
		return 0;
	}
	uint32_t want = sw_u32(f, size - 4u);
	uint32_t got = crc_of(sw_span_clip(f, 0, size - 4u));
	const char *damaged = got != want ? "damaged " : "";
	if (r->cpu == SW_CPU_UNKNOWN) {
		sw_err_set(err, SW_ERR_FORMAT, "%s: %s.snap header: CPU id %u is none of the format's",
		           r->path, damaged, r->cpu_id);
		return 0;
	}
	if (r->word_size != cpu_word) {
		sw_err_set(err, SW_ERR_FORMAT,
		           "%s: %s.snap header: word size %u for a %u-byte CPU (id %u)", r->path,
		           damaged, r->word_size, cpu_word, r->cpu_id);
		return 0;
	}
	if (got != want)
		problem(r, false, "header: bad CRC (0x%08x, the header says 0x%08x): its "
		                    "fields are used as they are",
		          got, want);
	return size;
}

/* ---- Finding the records ------------------------------------------------ */

/* Does a record with an intact CRC start at pos? Its payload length in
 * *len. Types 0 and 0xffff are never written: zeroed or erased storage. */
static bool record_at(const struct sr_reader *r, uint64_t pos, uint64_t *len,
                      uint64_t *budget)
{
	struct sw_span f = r->file;
	if (!sw_span_has(f, pos, RECORD_OVERHEAD))
		return false;
	uint16_t type = sw_u16(f, pos);
	*len = sw_u32(f, pos + 4);
	if (type == 0 || type == 0xffff || *len > f.size - pos - RECORD_OVERHEAD)
		return false;
	if (budget) {
		if (*budget < *len + SNAP_RECORD_HEAD)
			return false;
		*budget -= *len + SNAP_RECORD_HEAD;
	}
	struct sw_span covered = sw_span_clip(f, pos, SNAP_RECORD_HEAD + *len);
	return crc_of(covered) == sw_u32(f, pos + SNAP_RECORD_HEAD + *len);
}

/* Are all bytes of f from pos on `b`? */
static bool all_bytes_are(struct sw_span f, uint64_t pos, uint8_t b)
{
	for (uint64_t i = pos; i < f.size; i++)
		if (f.data[i] != b)
			return false;
	return true;
}

static bool is_erased(struct sw_span f, uint64_t pos)
{
	return all_bytes_are(f, pos, 0xff) || all_bytes_are(f, pos, 0x00);
}

static bool add_record(struct sr_reader *r, uint16_t type, uint64_t pos,
                       struct sw_span payload, bool cut)
{
	if (r->nrecords == SR_MAX_RECORDS) {
		problem(r, false, "offset %llu: more than %d records: the rest ignored",
		          (unsigned long long)pos, SR_MAX_RECORDS);
		return false;
	}
	if (r->nrecords == r->records_cap) {
		uint32_t cap = r->records_cap ? r->records_cap * 2 : 64;
		struct sr_record *n = realloc(r->records, cap * sizeof *n);
		if (!n) {
			problem(r, false, "offset %llu: out of memory for the record list",
			          (unsigned long long)pos);
			return false;
		}
		r->records = n;
		r->records_cap = cap;
	}
	r->records[r->nrecords++] = (struct sr_record){ type, cut, pos, payload };
	return true;
}

/* The next offset after the bad record at pos where an intact record
 * starts: where its length leads, else the first later offset; f.size
 * when the bad record ends the file; UINT64_MAX when there is none. */
static uint64_t next_record(struct sr_reader *r, uint64_t pos, uint64_t *budget)
{
	struct sw_span f = r->file;
	uint64_t len = sw_u32(f, pos + 4), l;
	if (len <= f.size - pos - RECORD_OVERHEAD) {
		uint64_t after = pos + RECORD_OVERHEAD + len;
		if (after == f.size || record_at(r, after, &l, NULL) || is_erased(f, after))
			return after;
	}
	for (uint64_t q = pos + 1; q + RECORD_OVERHEAD <= f.size; q++)
		if (record_at(r, q, &l, budget))
			return q;
	return UINT64_MAX;
}

/* The bad record at pos, the last one, cut by the end of the file: when
 * it is MEMORY, the bytes that are there (the device died while writing
 * its stack) are kept. True when they were. */
static bool keep_cut_memory(struct sr_reader *r, uint64_t pos)
{
	struct sw_span f = r->file;
	uint64_t len = sw_u32(f, pos + 4);
	uint64_t have = f.size - pos - SNAP_RECORD_HEAD;
	if (sw_u16(f, pos) != SNAP_REC_MEMORY || len <= have || have <= 8 ||
	    !add_record(r, SNAP_REC_MEMORY, pos, sw_span_clip(f, pos + SNAP_RECORD_HEAD, have), true))
		return false;
	problem(r, false, "offset %llu: MEMORY record of %llu bytes cut by the end of the "
	                    "file: the %llu bytes there are kept, unverified (no CRC)",
	          (unsigned long long)pos, (unsigned long long)len,
	          (unsigned long long)have);
	return true;
}

/* Says what was lost between pos, where a bad record starts, and next. */
static void report_gap(struct sr_reader *r, uint64_t pos, uint64_t next)
{
	struct sw_span f = r->file;
	char tb[24];
	const char *type = sr_type_name(sw_u16(f, pos), tb, sizeof tb);
	uint64_t len = sw_u32(f, pos + 4);
	bool fits = len <= f.size - pos - RECORD_OVERHEAD;
	uint16_t t = sw_u16(f, pos);
	if ((t == 0 || t == 0xffff) && next != UINT64_MAX)
		problem(r, false, "offset %llu: %llu bytes that are no record (type 0x%x is "
		                    "never written): skipped to the record at %llu",
		          (unsigned long long)pos, (unsigned long long)(next - pos), t,
		          (unsigned long long)next);
	else if ((t == 0 || t == 0xffff))
		problem(r, false, "offset %llu: the last %llu bytes are no record (type 0x%x is "
		                    "never written)",
		          (unsigned long long)pos, (unsigned long long)(f.size - pos), t);
	else if (next == UINT64_MAX && !fits)
		problem(r, false, "offset %llu: %s record of %llu bytes cut by the end of the "
		                    "file (%llu bytes there)",
		          (unsigned long long)pos, type, (unsigned long long)len,
		          (unsigned long long)(f.size - pos));
	else if (next == UINT64_MAX)
		problem(r, false, "offset %llu: %s record of %llu bytes: bad CRC, and no intact "
		                    "record after it: the last %llu bytes are lost",
		          (unsigned long long)pos, type, (unsigned long long)len,
		          (unsigned long long)(f.size - pos));
	else if (fits && next == pos + RECORD_OVERHEAD + len)
		problem(r, false, "offset %llu: %s record of %llu bytes: bad CRC: skipped",
		          (unsigned long long)pos, type, (unsigned long long)len);
	else
		problem(r, false, "offset %llu: %llu bytes that are no intact record (a damaged "
		                    "length, or bytes lost or added): skipped to the record at %llu",
		          (unsigned long long)pos, (unsigned long long)(next - pos),
		          (unsigned long long)next);
}

/* The END record at pos: the records before it are all, and what follows
 * it is not the snapshot's. */
static void check_end(struct sr_reader *r, const struct sr_record *end, uint32_t before)
{
	struct sw_span f = r->file;
	uint64_t after = end->off + RECORD_OVERHEAD + end->payload.size;
	if (end->payload.size < 4)
		problem(r, false, "offset %llu: END record of %llu bytes, fewer than its 4",
		          (unsigned long long)end->off, (unsigned long long)end->payload.size);
	else if (sw_u32(end->payload, 0) != before && r->damage == 0)
		problem(r, false, "offset %llu: the END record counts %u records before it, "
		                    "%u were found",
		          (unsigned long long)end->off, sw_u32(end->payload, 0), before);
	if (after < f.size && !is_erased(f, after))
		problem(r, true, "%llu bytes after the END record (offset %llu) ignored",
		          (unsigned long long)(f.size - after), (unsigned long long)after);
}

static void find_records(struct sr_reader *r, uint64_t pos)
{
	struct sw_span f = r->file;
	/* Resynchronising may CRC any offset's claimed record: four passes
	 * over the file's bytes at most. */
	uint64_t budget = f.size * 4;
	while (pos < f.size) {
		uint64_t len;
		if (record_at(r, pos, &len, NULL)) {
			uint16_t type = sw_u16(f, pos);
			struct sw_span payload = sw_span_clip(f, pos + SNAP_RECORD_HEAD, len);
			if (!add_record(r, type, pos, payload, false))
				return;
			if (type == SNAP_REC_END) {
				check_end(r, &r->records[r->nrecords - 1], r->nrecords - 1);
				return;
			}
			pos += RECORD_OVERHEAD + len;
			continue;
		}
		if (is_erased(f, pos)) {
			problem(r, false, "no END record: the file ends in %llu bytes of erased "
			                    "storage at offset %llu, where the writer stopped",
			          (unsigned long long)(f.size - pos), (unsigned long long)pos);
			return;
		}
		if (!sw_span_has(f, pos, RECORD_OVERHEAD)) {
			problem(r, false, "offset %llu: the file ends %llu bytes into a record's "
			                    "head: no END record",
			          (unsigned long long)pos, (unsigned long long)(f.size - pos));
			return;
		}
		uint64_t next = next_record(r, pos, &budget);
		if (next == UINT64_MAX && keep_cut_memory(r, pos))
			break;
		report_gap(r, pos, next);
		if (next == UINT64_MAX)
			break;
		pos = next;
	}
	problem(r, false, "no END record: the file was cut short (%u records read)",
	          r->nrecords);
}

/* ---- The verdict ------------------------------------------------------- */

static enum sw_err_code verdict(struct sr_reader *r, struct sw_err *err)
{
	return sw_snapshot_verdict(r->snap, r->path, ".snap", r->damage, err);
}

enum sw_err_code sw_snap_read(const char *path, const struct sw_open_options *opts,
                              struct sw_snapshot *out, struct sw_err *err)
{
	static const struct sw_reader_entry entry = {
		.format = "snap",
		/* Firmware stacks are full of stale code addresses: a scanned
		 * one must be proven by the call before it, read from the
		 * firmware ELF or the captured memory. */
		.scans_need_code = true,
		.is = sw_snap_is,
		.not_it = "not a .snap file (no magic)",
	};
	struct sr_reader r = { .snap = out, .path = path, .opts = opts };
	enum sw_err_code rc = sw_reader_begin(path, opts, &entry, out, &r.file, err);
	if (rc != SW_OK)
		return rc;
	uint64_t first = read_header(&r, err);
	if (first == 0)
		return err->code;
	find_records(&r, first);
	sr_read_records(&r);
	free(r.records);
	return verdict(&r, err);
}
