/* Shared between the minidump reader's files: the reader state, the stream
 * directory, and the helpers every stream reader uses. Not a public API. */
#ifndef SW_FORMATS_MINIDUMP_INTERNAL_H
#define SW_FORMATS_MINIDUMP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"
#include "reader.h"

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
	struct sw_span data;
};

/* Strings already decoded, by where they lie in the file: a string that
 * many records name (every module of a hostile file may name one long
 * name) is decoded once and shared. Open addressing; a slot whose `where`
 * is 0 is free. */
struct md_string_cache {
	struct md_cached_string {
		uint64_t where;       /* file offset << 2 | kind, with the top bit set */
		uint64_t len;         /* the span's size, for 8-bit names; else 0 */
		const char *text;     /* NULL: it could not be read */
	} *slots;
	uint32_t cap;             /* a power of two, or 0 */
	uint32_t n;
};

struct md_reader {
	struct sw_span file;
	struct sw_snapshot *snap;
	struct md_stream *streams;
	uint32_t nstreams;
	uint32_t mem_cap;         /* capacity of snap->mem */
	struct md_string_cache strings;
	/* Bytes of decoded text the file may still cost (md_text_budget):
	 * proportional to its size, so that strings overlapping in the file
	 * cannot multiply it. Annotations, which the output prints once per
	 * reference, are charged per reference to their own budget. */
	uint64_t text_budget;
	uint64_t annotation_budget;
	bool text_budget_spent;   /* its problem was recorded */
	bool annotation_budget_spent;
	/* Reading a stream the walk does not depend on: its problems are
	 * recorded as warnings, not as damage to the dump. */
	bool optional;
	uint32_t damage;          /* problems outside optional streams */
	enum sw_cpu context_cpu;  /* the CPU of the last context md_read_context read */
};

/* A short name for a stream type in messages ("thread list"). */
const char *md_stream_name(uint32_t type);

/* A fixed-size stream: false (and a problem naming `what`) when s is
 * shorter than size bytes. */
bool md_stream_holds(struct md_reader *r, struct sw_span s, uint64_t size, const char *what);

/* MINIDUMP_LOCATION_DESCRIPTOR (size, rva): the part that lies in the file.
 * False (and a problem naming `what`) when any of it lies outside; *out
 * then holds the intact part. */
bool md_location(struct md_reader *r, uint64_t size, uint64_t rva, const char *what,
                 struct sw_span *out);

/* A list stream: `count` records of rec_size bytes after a header of
 * header_size bytes. Accepts the 4 bytes of padding some 64-bit writers put
 * after a 4-byte count (as Breakpad does). Returns how many whole records
 * the stream holds, at most count, with a problem when fewer; *entries
 * starts at the first record. */
uint32_t md_list(struct md_reader *r, struct sw_span stream, uint64_t header_size,
                 uint64_t count, uint64_t rec_size, const char *what,
                 struct sw_span *entries);

/* The most a decoded string may hold, in bytes without its NUL; a longer
 * one is cut (with a warning). MINIDUMP_STRINGs and CodeView names are
 * names and paths: Linux's PATH_MAX, so that a module name printed on every
 * frame costs little. Crashpad's UTF-8 strings are annotation values,
 * which Crashpad itself limits to 20 KiB. */
enum {
	MD_MAX_NAME_BYTES = 4096,
	MD_MAX_UTF8_BYTES = 64 * 1024,
	/* A path's last component: NAME_MAX on Linux, macOS and Windows (255
	 * UTF-16 units there). Outputs print a module's file name on every
	 * frame, so a longer one, which no file system holds, is cut too. */
	MD_MAX_FILE_NAME = 255,
};

/* The budget of decoded text for a file of file_size bytes (and, as much
 * again, for annotations): twice the file (UTF-16 becomes at most 1.5
 * times as many UTF-8 bytes) plus 64 KiB for small files. */
uint64_t md_text_budget(uint64_t file_size);

/* Frees what the reader holds besides the snapshot (the string cache). */
void md_reader_release(struct md_reader *r);

/* UTF-16 code units (in s's byte order: Breakpad swaps an MDString's
 * units with the rest of a byte-swapped dump) → NUL-terminated UTF-8 in the
 * snapshot's arena
 * (unpaired surrogates become U+FFFD; stops at the first NUL unit; cut at
 * MD_MAX_NAME_BYTES, at a character boundary). Not cached, not charged:
 * for fixed-size fields. */
char *md_utf16_to_utf8(struct md_reader *r, struct sw_span s, uint64_t nunits);
/* MINIDUMP_STRING at rva (uint32 byte length, UTF-16), or NULL with a
 * problem naming `what`. Decoded once per rva (later calls return the same
 * pointer) and charged to the text budget: once it is spent, strings read
 * as "" (one problem says so). */
const char *md_string(struct md_reader *r, uint64_t rva, const char *what);
/* md_string for a file path (a module's name, a DSO's): its last
 * component cut to MD_MAX_FILE_NAME bytes, with a warning. Cached. */
const char *md_path(struct md_reader *r, uint64_t rva, const char *what);
/* Crashpad's MinidumpUTF8String at rva (uint32 length, bytes), or NULL;
 * cached and charged as md_string. */
const char *md_utf8_string(struct md_reader *r, uint64_t rva, const char *what);
/* The NUL-terminated 8-bit path at the start of s (a CodeView record's PDB
 * name), cut at MD_MAX_NAME_BYTES and its last component as md_path's;
 * cached by its place in the file and charged as md_string. */
const char *md_cstring(struct md_reader *r, struct sw_span s, const char *what);
/* Charges `bytes` of annotation text, printed once per annotation: false
 * (with one problem) once the annotation budget is spent. */
bool md_charge_annotation(struct md_reader *r, uint64_t bytes);
/* Appends a region to the snapshot's memory list (data points into the
 * file). */
void md_add_memory(struct md_reader *r, uint64_t base, struct sw_span data);

/* Decodes a register context record into *out; false (with a problem) when
 * its layout is not recognised or it is too short. */
bool md_read_context(struct md_reader *r, struct sw_span ctx, const char *what,
                     struct sw_regs *out);

/* Stream readers, one per stream type. */
void md_read_system_info(struct md_reader *r, struct sw_span s);
void md_read_misc_info(struct md_reader *r, struct sw_span s);
void md_read_breakpad_info(struct md_reader *r, struct sw_span s);
void md_read_thread_list(struct md_reader *r, struct sw_span s);
void md_read_thread_names(struct md_reader *r, struct sw_span s);
/* After every stream is read and the snapshot finished: a thread whose
 * stack is the same bytes of the file as another thread's is forged (a
 * writer copies each stack once); it loses its stack and context, so it is
 * not walked, with one problem for all such threads. Of overlapping
 * stacks, the one that starts first in the file (then the earlier thread)
 * keeps its bytes. A thread without a stack of its own counts with the
 * bytes the walker would read: from its stack pointer to the end of the
 * region holding it. Bounds the walk of a file whose thousands of threads
 * share one stack (4,000 threads, 64 KiB: 17.8 MB of output without it). */
void md_drop_shared_stacks(struct md_reader *r);
void md_read_module_list(struct md_reader *r, struct sw_span s);
void md_read_unloaded_modules(struct md_reader *r, struct sw_span s);
/* Points second entries of one ELF file at the first's base (BOLT). */
void md_link_split_modules(struct md_reader *r);
void md_read_memory_list(struct md_reader *r, struct sw_span s);
void md_read_memory64_list(struct md_reader *r, struct sw_span s);
void md_read_exception(struct md_reader *r, struct sw_span s);
void md_read_assertion(struct md_reader *r, struct sw_span s);
void md_read_linux_text(struct md_reader *r, uint32_t type, struct sw_span s);
void md_read_linux_maps(struct md_reader *r, struct sw_span s);
void md_read_linux_dso_debug(struct md_reader *r, struct sw_span s);
void md_read_crashpad_info(struct md_reader *r, struct sw_span s);

#endif
