/* Minidump reader: the header, the stream directory, and dispatch to the
 * stream readers (MS MINIDUMP_HEADER / MINIDUMP_DIRECTORY; Breakpad's
 * minidump_format.h names the same structs MDRawHeader / MDRawDirectory). */
#include "minidump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mapped_file.h"
#include "minidump_internal.h"
#include "open.h"

enum {
	MD_HEADER_SIGNATURE = 0x504d444d, /* "MDMP" little-endian, "PMDM" big */
	MD_HEADER_VERSION = 0xa793,       /* low 16 bits of Version */
	MD_HEADER_SIZE = 32,
	MD_DIRECTORY_ENTRY_SIZE = 12,
	/* Writers put one directory entry per stream: a dozen or two from
	 * Breakpad, Crashpad and Windows, each stream type read once. A count
	 * past this is not a minidump's: a hostile header claiming 2^32 - 1
	 * entries in a sparse 1 GiB file would otherwise cost a 2.8 GB
	 * directory before any entry is read. */
	MD_MAX_STREAMS = 4096,
};

/* The file's byte order, told by its signature (MINIDUMP_HEADER.Signature,
 * MD_HEADER_SIGNATURE in Breakpad's minidump_format.h): "MDMP" is
 * little-endian, "PMDM" the same value written by a big-endian host. False
 * when the signature is neither. */
static bool header_byte_order(struct sw_span s, bool *big_endian)
{
	if (!sw_span_has(s, 0, 4))
		return false;
	s.big_endian = false;
	if (sw_u32(s, 0) == MD_HEADER_SIGNATURE) {
		*big_endian = false;
		return true;
	}
	s.big_endian = true;
	if (sw_u32(s, 0) == MD_HEADER_SIGNATURE) {
		*big_endian = true;
		return true;
	}
	return false;
}

bool sw_minidump_is(const uint8_t *data, size_t size)
{
	struct sw_span s = { data, data ? size : 0, 0, false };
	bool big_endian;
	return header_byte_order(s, &big_endian);
}

const char *md_stream_name(uint32_t type)
{
	static const struct {
		uint32_t type;
		const char *name;
	} names[] = {
		{ MD_STREAM_THREAD_LIST, "thread list" },
		{ MD_STREAM_MODULE_LIST, "module list" },
		{ MD_STREAM_MEMORY_LIST, "memory list" },
		{ MD_STREAM_EXCEPTION, "exception" },
		{ MD_STREAM_SYSTEM_INFO, "system info" },
		{ MD_STREAM_MEMORY64_LIST, "memory64 list" },
		{ MD_STREAM_UNLOADED_MODULE_LIST, "unloaded module list" },
		{ MD_STREAM_MISC_INFO, "misc info" },
		{ MD_STREAM_THREAD_NAME_LIST, "thread name list" },
		{ MD_STREAM_BREAKPAD_INFO, "Breakpad info" },
		{ MD_STREAM_ASSERTION_INFO, "assertion info" },
		{ MD_STREAM_LINUX_CPU_INFO, "Linux cpuinfo" },
		{ MD_STREAM_LINUX_PROC_STATUS, "Linux proc status" },
		{ MD_STREAM_LINUX_LSB_RELEASE, "Linux lsb-release" },
		{ MD_STREAM_LINUX_CMD_LINE, "Linux cmdline" },
		{ MD_STREAM_LINUX_ENVIRON, "Linux environ" },
		{ MD_STREAM_LINUX_AUXV, "Linux auxv" },
		{ MD_STREAM_LINUX_MAPS, "Linux maps" },
		{ MD_STREAM_LINUX_DSO_DEBUG, "Linux DSO debug" },
		{ MD_STREAM_CRASHPAD_INFO, "Crashpad info" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].type == type)
			return names[i].name;
	return NULL;
}

bool md_stream_holds(struct md_reader *r, struct sw_span s, uint64_t size, const char *what)
{
	if (sw_span_has(s, 0, size))
		return true;
	problem(r, r->optional, "%s: stream of %llu bytes is shorter than %llu", what,
	        (unsigned long long)s.size, (unsigned long long)size);
	return false;
}

bool md_location(struct md_reader *r, uint64_t size, uint64_t rva, const char *what,
                 struct sw_span *out)
{
	if (sw_span_sub(r->file, rva, size, out))
		return true;
	*out = sw_span_clip(r->file, rva, size);
	problem(r, r->optional,
	        "%s at 0x%llx (%llu bytes) extends past the end of the file (%llu bytes)", what,
	        (unsigned long long)rva, (unsigned long long)size, (unsigned long long)r->file.size);
	return false;
}

uint32_t md_list(struct md_reader *r, struct sw_span stream, uint64_t header_size,
                 uint64_t count, uint64_t rec_size, const char *what,
                 struct sw_span *entries)
{
	*entries = sw_span_clip(stream, 0, 0);
	if (!sw_span_has(stream, 0, header_size)) {
		problem(r, r->optional, "%s: stream of %llu bytes is too short for its header",
		        what, (unsigned long long)stream.size);
		return 0;
	}
	uint64_t avail = stream.size - header_size;
	/* Breakpad's rule: a 4-byte count may be followed by 4 bytes of
	 * padding that aligns the 64-bit records. */
	if (header_size == 4 && count <= UINT32_MAX && avail == count * rec_size + 4)
		header_size = 8, avail -= 4;
	uint64_t fits = avail / rec_size;
	uint64_t n = count;
	if (count > fits) {
		problem(r, r->optional,
		        "%s: count %llu needs %llu bytes but the stream holds %llu; read %llu",
		        what, (unsigned long long)count,
		        (unsigned long long)(count > UINT64_MAX / rec_size ? UINT64_MAX : count * rec_size),
		        (unsigned long long)avail, (unsigned long long)fits);
		n = fits;
	}
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	/* n records fit after the header by the arithmetic above; should
	 * that ever be wrong, no record is read rather than a short one. */
	if (!sw_span_sub(stream, header_size, n * rec_size, entries))
		return 0;
	return (uint32_t)n;
}

void md_add_memory(struct md_reader *r, uint64_t base, struct sw_span data)
{
	struct sw_snapshot *s = r->snap;
	if (data.size == 0)
		return;
	if (s->nmem == r->mem_cap) {
		/* Grow in the arena by doubling; the old block is dropped with
		 * the arena (at most as much again). */
		if (r->mem_cap > UINT32_MAX / 2)
			return;
		uint32_t cap = r->mem_cap ? r->mem_cap * 2 : 64;
		struct sw_mem_region *m = sw_arena_array(&s->arena, cap, sizeof *m);
		if (!m)
			return;
		if (s->nmem)
			memcpy(m, s->mem, s->nmem * sizeof *m);
		s->mem = m;
		r->mem_cap = cap;
	}
	s->mem[s->nmem].base = base;
	s->mem[s->nmem].size = data.size;
	s->mem[s->nmem].data = data.data;
	s->nmem++;
}

/* Reads the directory; stream locations are checked here once. */
static void read_directory(struct md_reader *r, uint32_t count, uint32_t rva)
{
	struct sw_span dir;
	if (count > MD_MAX_STREAMS) {
		problem(r, r->optional,
		        "stream directory: %u entries, more than a minidump has (at most %d "
		        "are read)", count, MD_MAX_STREAMS);
		count = MD_MAX_STREAMS;
	}
	uint64_t want = (uint64_t)count * MD_DIRECTORY_ENTRY_SIZE;
	if (!sw_span_sub(r->file, rva, want, &dir)) {
		dir = sw_span_clip(r->file, rva, want);
		problem(r, r->optional,
		        "stream directory at 0x%x: %u entries need %llu bytes, the file holds %llu; read %llu",
		        rva, count, (unsigned long long)want, (unsigned long long)dir.size,
		        (unsigned long long)(dir.size / MD_DIRECTORY_ENTRY_SIZE));
		count = (uint32_t)(dir.size / MD_DIRECTORY_ENTRY_SIZE);
	}
	r->streams = sw_arena_array(&r->snap->arena, count ? count : 1, sizeof *r->streams);
	if (!r->streams)
		return;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t e = (uint64_t)i * MD_DIRECTORY_ENTRY_SIZE;
		uint32_t type = sw_u32(dir, e);
		uint32_t size = sw_u32(dir, e + 4);
		uint32_t srva = sw_u32(dir, e + 8);
		if (type == 0) /* MD_UNUSED_STREAM */
			continue;
		struct md_stream *st = &r->streams[r->nstreams++];
		st->type = type;
		if (!sw_span_sub(r->file, srva, size, &st->data)) {
			const char *name = md_stream_name(type);
			char label[64];
			if (name)
				snprintf(label, sizeof label, "%s stream", name);
			else
				snprintf(label, sizeof label, "stream 0x%x", type);
			md_location(r, size, srva, label, &st->data);
		}
	}
}

/* The first stream of a type (Breakpad and rust-minidump also use the
 * first of duplicates). */
static bool find_stream(const struct md_reader *r, uint32_t type, struct sw_span *out)
{
	for (uint32_t i = 0; i < r->nstreams; i++)
		if (r->streams[i].type == type) {
			*out = r->streams[i].data;
			return true;
		}
	return false;
}

static int compare_regions(const void *a, const void *b)
{
	const struct sw_mem_region *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return 0;
}

/* Windows and Breakpad dumps list each thread's stack both in the thread
 * list and in the memory list, and the bytes around the crash address may
 * lie inside a stack: a region contained in another one is the same memory
 * captured twice, not damage, so it is dropped here silently. */
static void drop_contained_regions(struct sw_snapshot *s)
{
	if (s->nmem < 2)
		return;
	qsort(s->mem, s->nmem, sizeof *s->mem, compare_regions);
	uint32_t kept = 1;
	for (uint32_t i = 1; i < s->nmem; i++) {
		const struct sw_mem_region *prev = &s->mem[kept - 1];
		const struct sw_mem_region *cur = &s->mem[i];
		if (cur->base - prev->base < prev->size &&
		    cur->size <= prev->size - (cur->base - prev->base))
			continue;
		s->mem[kept++] = *cur;
	}
	s->nmem = kept;
}

/* Streams the walk does not depend on: damage there is a warning, the
 * dump still counts as intact. */
static void read_optional_stream(struct md_reader *r, uint32_t type)
{
	struct sw_span s;
	r->optional = true;
	if (find_stream(r, type, &s)) {
		switch (type) {
		case MD_STREAM_MISC_INFO: md_read_misc_info(r, s); break;
		case MD_STREAM_BREAKPAD_INFO: md_read_breakpad_info(r, s); break;
		case MD_STREAM_UNLOADED_MODULE_LIST: md_read_unloaded_modules(r, s); break;
		case MD_STREAM_THREAD_NAME_LIST: md_read_thread_names(r, s); break;
		case MD_STREAM_ASSERTION_INFO: md_read_assertion(r, s); break;
		case MD_STREAM_LINUX_MAPS: md_read_linux_maps(r, s); break;
		case MD_STREAM_LINUX_DSO_DEBUG: md_read_linux_dso_debug(r, s); break;
		case MD_STREAM_CRASHPAD_INFO: md_read_crashpad_info(r, s); break;
		default: md_read_linux_text(r, type, s); break;
		}
	}
	r->optional = false;
}

static void read_streams(struct md_reader *r)
{
	struct sw_span s;
	/* System info first: the CPU, OS and word size decide how contexts,
	 * code ids and the DSO list are read. */
	if (find_stream(r, MD_STREAM_SYSTEM_INFO, &s))
		md_read_system_info(r, s);
	read_optional_stream(r, MD_STREAM_MISC_INFO);
	read_optional_stream(r, MD_STREAM_BREAKPAD_INFO);
	read_optional_stream(r, MD_STREAM_LINUX_CPU_INFO);
	if (find_stream(r, MD_STREAM_MODULE_LIST, &s)) {
		md_read_module_list(r, s);
		md_link_split_modules(r);
	}
	read_optional_stream(r, MD_STREAM_UNLOADED_MODULE_LIST);
	if (find_stream(r, MD_STREAM_THREAD_LIST, &s))
		md_read_thread_list(r, s);
	else
		problem(r, r->optional, "no thread list stream");
	read_optional_stream(r, MD_STREAM_THREAD_NAME_LIST);
	if (find_stream(r, MD_STREAM_MEMORY_LIST, &s))
		md_read_memory_list(r, s);
	if (find_stream(r, MD_STREAM_MEMORY64_LIST, &s))
		md_read_memory64_list(r, s);
	if (find_stream(r, MD_STREAM_EXCEPTION, &s))
		md_read_exception(r, s);
	static const uint32_t optional_streams[] = {
		MD_STREAM_ASSERTION_INFO, MD_STREAM_LINUX_PROC_STATUS,
		MD_STREAM_LINUX_LSB_RELEASE, MD_STREAM_LINUX_CMD_LINE,
		MD_STREAM_LINUX_ENVIRON, MD_STREAM_LINUX_MAPS,
		MD_STREAM_LINUX_DSO_DEBUG, MD_STREAM_CRASHPAD_INFO,
	};
	for (size_t i = 0; i < sizeof optional_streams / sizeof optional_streams[0]; i++)
		read_optional_stream(r, optional_streams[i]);
}

enum sw_err_code sw_minidump_read(const char *path, struct sw_snapshot *out,
                                  struct sw_err *err)
{
	return sw_minidump_read_with(path, NULL, out, err);
}

enum sw_err_code sw_minidump_read_with(const char *path, const struct sw_open_options *opts,
                                       struct sw_snapshot *out, struct sw_err *err)
{
	static const struct sw_reader_entry entry = {
		.format = "minidump",
		.is = sw_minidump_is,
		.not_it = "not a minidump (bad signature)",
	};
	struct sw_span file;
	enum sw_err_code rc = sw_reader_begin(path, opts, &entry, out, &file, err);
	if (rc != SW_OK)
		return rc;
	struct md_reader r = {
		.file = file,
		.snap = out,
		.text_budget = md_text_budget(out->file.size),
		.annotation_budget = md_text_budget(out->file.size),
	};
	if (!sw_span_has(r.file, 0, MD_HEADER_SIZE))
		return sw_err_set(err, SW_ERR_FORMAT,
		                  "%s: not a minidump (header truncated: %zu of %d bytes)", path,
		                  out->file.size, MD_HEADER_SIZE);
	header_byte_order(r.file, &r.file.big_endian); /* sw_minidump_is found the signature */
	/* One source for the byte order: the file's. Process memory in a
	 * byte-swapped dump is in the process's order too, so the walker
	 * reads stack words in it (md_read_system_info keeps this). */
	out->sys.big_endian = r.file.big_endian;
	/* The high 16 bits of Version are implementation-specific (MS docs). */
	uint32_t version = sw_u32(r.file, 4);
	if ((version & 0xffff) != MD_HEADER_VERSION)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: not a minidump (unknown version 0x%x)",
		                  path, version);
	out->dump_time = sw_u32(r.file, 20);
	read_directory(&r, sw_u32(r.file, 8), sw_u32(r.file, 12));

	read_streams(&r);
	md_reader_release(&r);
	drop_contained_regions(out);
	sw_snapshot_finish(out);
	md_drop_shared_stacks(&r);
	return sw_snapshot_verdict(out, path, "minidump", r.damage, err);
}
