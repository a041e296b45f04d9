/* Shared between the minidump reader's files: the reader state, the stream
 * directory, and the helpers every stream reader uses. Not a public API. */
#ifndef SW_FORMATS_MINIDUMP_INTERNAL_H
#define SW_FORMATS_MINIDUMP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "minidump_bytes.h"

/* MINIDUMP_STREAM_TYPE values (MS minidumpapiset.h; Breakpad's
 * minidump_format.h for the 0x4767.... and Crashpad's 0x4350.... ones). */
enum md_stream_type {
	MD_STREAM_THREAD_LIST = 3,
	MD_STREAM_MODULE_LIST = 4,
	MD_STREAM_MEMORY_LIST = 5,
	MD_STREAM_EXCEPTION = 6,
	MD_STREAM_SYSTEM_INFO = 7,
	MD_STREAM_MEMORY64_LIST = 9,
	MD_STREAM_UNLOADED_MODULE_LIST = 14,
	MD_STREAM_MISC_INFO = 15,
	MD_STREAM_THREAD_NAME_LIST = 24,
	MD_STREAM_BREAKPAD_INFO = 0x47670001,
	MD_STREAM_ASSERTION_INFO = 0x47670002,
	MD_STREAM_LINUX_CPU_INFO = 0x47670003,
	MD_STREAM_LINUX_PROC_STATUS = 0x47670004,
	MD_STREAM_LINUX_LSB_RELEASE = 0x47670005,
	MD_STREAM_LINUX_CMD_LINE = 0x47670006,
	MD_STREAM_LINUX_ENVIRON = 0x47670007,
	MD_STREAM_LINUX_AUXV = 0x47670008,
	MD_STREAM_LINUX_MAPS = 0x47670009,
	MD_STREAM_LINUX_DSO_DEBUG = 0x4767000a,
	MD_STREAM_CRASHPAD_INFO = 0x43500001,
};

/* One MINIDUMP_DIRECTORY entry; data is the part of the stream that lies
 * inside the file (the whole stream unless the file is damaged). */
struct md_stream {
	uint32_t type;
	struct md_span data;
};

struct md_reader {
	struct md_span file;
	struct sw_snapshot *snap;
	struct md_stream *streams;
	uint32_t nstreams;
	uint32_t mem_cap;         /* capacity of snap->mem */
	/* Reading a stream the walk does not depend on: its problems are
	 * recorded as warnings, not as damage to the dump. */
	bool optional;
	uint32_t damage;          /* problems outside optional streams */
	enum sw_cpu context_cpu;  /* the CPU of the last context md_read_context read */
};

/* A short name for a stream type in messages ("thread list"). */
const char *md_stream_name(uint32_t type);

/* Records a problem in the snapshot (printf-style). */
void md_problem(struct md_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A fixed-size stream: false (and a problem naming `what`) when s is
 * shorter than size bytes. */
bool md_stream_holds(struct md_reader *r, struct md_span s, uint64_t size, const char *what);

/* MINIDUMP_LOCATION_DESCRIPTOR (size, rva): the part that lies in the file.
 * False (and a problem naming `what`) when any of it lies outside; *out
 * then holds the intact part. */
bool md_location(struct md_reader *r, uint64_t size, uint64_t rva, const char *what,
                 struct md_span *out);

/* A list stream: `count` records of rec_size bytes after a header of
 * header_size bytes. Accepts the 4 bytes of padding some 64-bit writers put
 * after a 4-byte count (as Breakpad does). Returns how many whole records
 * the stream holds, at most count, with a problem when fewer; *entries
 * starts at the first record. */
uint32_t md_list(struct md_reader *r, struct md_span stream, uint64_t header_size,
                 uint64_t count, uint64_t rec_size, const char *what,
                 struct md_span *entries);

/* UTF-16LE code units → NUL-terminated UTF-8 in the snapshot's arena
 * (unpaired surrogates become U+FFFD; stops at the first NUL unit). */
char *md_utf16_to_utf8(struct md_reader *r, struct md_span s, uint64_t nunits);
/* MINIDUMP_STRING at rva (uint32 byte length, UTF-16LE), or NULL with a
 * problem naming `what`. */
const char *md_string(struct md_reader *r, uint64_t rva, const char *what);
/* Crashpad's MinidumpUTF8String at rva (uint32 length, bytes), or NULL. */
const char *md_utf8_string(struct md_reader *r, uint64_t rva, const char *what);
/* Appends a region to the snapshot's memory list (data points into the
 * file). */
void md_add_memory(struct md_reader *r, uint64_t base, struct md_span data);

/* Decodes a register context record into *out; false (with a problem) when
 * its layout is not recognised or it is too short. */
bool md_read_context(struct md_reader *r, struct md_span ctx, const char *what,
                     struct sw_regs *out);

/* Stream readers, one per stream type. */
void md_read_system_info(struct md_reader *r, struct md_span s);
void md_read_misc_info(struct md_reader *r, struct md_span s);
void md_read_breakpad_info(struct md_reader *r, struct md_span s);
void md_read_thread_list(struct md_reader *r, struct md_span s);
void md_read_thread_names(struct md_reader *r, struct md_span s);
void md_read_module_list(struct md_reader *r, struct md_span s);
void md_read_unloaded_modules(struct md_reader *r, struct md_span s);
/* Points second entries of one ELF file at the first's base (BOLT). */
void md_link_split_modules(struct md_reader *r);
void md_read_memory_list(struct md_reader *r, struct md_span s);
void md_read_memory64_list(struct md_reader *r, struct md_span s);
void md_read_exception(struct md_reader *r, struct md_span s);
void md_read_assertion(struct md_reader *r, struct md_span s);
void md_read_linux_text(struct md_reader *r, uint32_t type, struct md_span s);
void md_read_linux_maps(struct md_reader *r, struct md_span s);
void md_read_linux_dso_debug(struct md_reader *r, struct md_span s);
void md_read_crashpad_info(struct md_reader *r, struct md_span s);

#endif
