/* A persistent index of a Breakpad symbol file (docs/symbol-cache.md): the
 * sorted record arrays struct sw_bsym builds, written once into a cache
 * directory, then mapped by later runs instead of parsing (and inflating)
 * the source again.
 *
 * One index file per (module, source file):
 *     <cache>/<debug_file>/<debug_id>/<fnv1a64 of the source's path>.swidx
 * holding a header (magic, format version, the key, the section table),
 * a CRC-32 per 64 KiB block of the record arrays, the arrays, the
 * records decoded for lookups (binary, no text to parse), and (for a
 * .sym.gz) the text of the records read as text. The key is the module's identity (debug
 * file + debug id, as the store asked for it) and the source file's
 * identity (size, mtime and ctime in ns, inode, device); a source that
 * changed gets a new index.
 *
 * Nothing is trusted before it is checked: the header by its own CRC, the
 * block CRC table by a CRC in the header, every section against the file's
 * size at open; each array block by its CRC the first time a search uses
 * it; each stretch of text by the CRC its record carries, every time it is
 * read. A check that fails marks the whole index failed
 * (sym_index_failed): the user of the index then falls back to parsing the
 * source.
 *
 * The record text (the FUNC, PUBLIC, STACK lines the records point into)
 * is not mapped: sym_index_read_text() copies exactly the bytes of one
 * record with pread(), so a walk's resident memory is the pages of the
 * arrays its binary searches visit, not the text of every function it
 * names, and what it checksums is what it reads. For a .sym.gz the text is
 * a section of the index (what is read as text, compacted); for a plain
 * .sym it is read from the source itself, whose identity the key pins.
 *
 * An index is read-only once open and may be shared by threads: the
 * per-block "verified" marks and the failed flag are atomic. */
#ifndef SW_SYM_INDEX_H
#define SW_SYM_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/stat.h>

#include "lib/sw_err.h"

/* The sections of an index: the text and the record arrays. */
enum sym_index_section_id {
	SYM_SEC_TEXT,               /* elem 1; empty when the source is plain text */
	SYM_SEC_FUNCS,
	SYM_SEC_PUBLICS,
	SYM_SEC_CFI,
	SYM_SEC_WIN,
	SYM_SEC_FILES,
	SYM_SEC_ORIGINS,
	SYM_SEC_FUNC_FENCES,        /* the key of every BSYM_FENCE-th record (breakpad_sym.c) */
	SYM_SEC_PUBLIC_FENCES,
	SYM_SEC_CFI_FENCES,
	SYM_SEC_DECODED,            /* elem 1: records decoded for lookups (read, not mapped) */
	SYM_SEC_COUNT
};

/* Provider fields kept verbatim in the header (errors, flags, offsets of
 * the MODULE line's fields): the index does not interpret them. */
enum { SYM_INDEX_NMETA = 16 };

/* Sections outside the checked blocks: read with pread, each stretch
 * checked by the CRC its record carries. */
static inline bool sym_index_section_is_read(enum sym_index_section_id s)
{
	return s == SYM_SEC_TEXT || s == SYM_SEC_DECODED;
}

/* What a provider tells the writer before handing it the records: the
 * identity of the source (fstat of the descriptor the text was read
 * from, before reading: the key), whether the index holds the records'
 * text (a .sym.gz: the inflated text would be costly to make again) or
 * they are read from the source file later (a plain .sym), and the
 * record count and size of each array section. */
struct sym_index_layout {
	const struct stat *source;
	bool store_text;
	uint64_t count[SYM_SEC_COUNT];
	uint32_t elem[SYM_SEC_COUNT];
};

/* What is known once every record is handed over: the provider fields,
 * and for an index without the text (store_text false) the source's
 * length and CRC-32 (sym_index_check_all compares them). */
struct sym_index_tail {
	uint64_t meta[SYM_INDEX_NMETA];
	uint64_t text_len;
	uint32_t text_crc;
};

/* A cache directory. Warnings about it (cannot be created, cannot be
 * written) are given once: after the first, writing is off. */
struct sw_sym_cache;

/* dir NULL: the default ($XDG_CACHE_HOME/stackwalk, else
 * $HOME/.cache/stackwalk). NULL only when out of memory, or when dir is
 * NULL and neither variable is set (*err then says so). The directory is
 * created when the first index is written. */
struct sw_sym_cache *sw_sym_cache_create(const char *dir, struct sw_err *err);
void sw_sym_cache_free(struct sw_sym_cache *c);
const char *sw_sym_cache_dir(const struct sw_sym_cache *c);
/* Has this process written an index into c (a reason to prune it:
 * cache_prune.h)? */
bool sw_sym_cache_added(struct sw_sym_cache *c);

struct sym_index;

/* Threads of one process that find no index of the same source at once
 * (stackwalk --batch, docs/batch.md), and processes sharing the cache
 * directory (a file lock beside the index): the first claims the build and
 * parses the source; the others wait until its index is written (or will
 * not be) and open it. True: this thread builds (*claim is the claim, to
 * end with sym_index_build_done once the index is written, abandoned or
 * not to be written; NULL when out of memory: nobody waits); false:
 * another thread's build ended meanwhile (open the index again). */
struct sym_index_build;
bool sym_index_build_claim(struct sw_sym_cache *c, const char *src, const char *debug_file,
                           const char *debug_id, struct sym_index_build **claim);
/* Ends a claim (NULL: nothing) and wakes the threads waiting for it. */
void sym_index_build_done(struct sw_sym_cache *c, struct sym_index_build *claim);

enum sym_index_open_status {
	SYM_INDEX_OPENED,
	SYM_INDEX_ABSENT,           /* no index yet, another format's, or no usable key: build one */
	SYM_INDEX_REJECTED,         /* truncated, damaged or stale: *warn says which */
	SYM_INDEX_SOURCE_GONE,      /* the source cannot be read: *warn says why */
};

/* Opens the index of source path src for module (debug_file, debug_id),
 * whose sections must hold records of the sizes in elem (those of this
 * build: an index written by another layout is stale). On
 * SYM_INDEX_OPENED *out is the index and *meta its provider fields.
 * REJECTED sets *warn to one line naming the index file. */
enum sym_index_open_status sym_index_open(struct sw_sym_cache *c, const char *src,
                                          const char *debug_file, const char *debug_id,
                                          const uint32_t elem[SYM_SEC_COUNT],
                                          struct sym_index **out,
                                          uint64_t meta[SYM_INDEX_NMETA],
                                          struct sw_err *warn);

/* Writing the index of src for (debug_file, debug_id). begin (on the
 * caller's thread) creates the directories, removes the temporary files of
 * killed writers (older than an hour) there, and opens a new temporary
 * file in the index's directory: the failures a user is warned about
 * (NULL and *warn set, once per cache; NULL without a warning when there
 * is nothing to write). The rest may run on another thread while the
 * caller goes on, streamed, so that the writer holds buffers of a few
 * KiB, not copies of the arrays:
 *   start      fixes the layout of the arrays (l's counts and sizes);
 *   put_records writes n records of section s from index first on, in
 *              any order of sections and chunks;
 *   put_decoded appends bytes to the decoded section: their offset in it;
 *   put_text   appends to the text section (after every put_decoded);
 *   finish     writes the block CRCs and the header, renames the file over
 *              the index's name, and frees w; a failed write anywhere
 *              before sets *warn here (once per cache) and leaves no file.
 * abandon removes the temporary file and frees w. */
struct sym_index_writer;
struct sym_index_writer *sym_index_write_begin(struct sw_sym_cache *c, const char *src,
                                               const char *debug_file, const char *debug_id,
                                               struct sw_err *warn);
bool sym_index_write_start(struct sym_index_writer *w, const struct sym_index_layout *l);
bool sym_index_put_records(struct sym_index_writer *w, enum sym_index_section_id s,
                           uint64_t first, const void *recs, uint64_t n);
uint64_t sym_index_put_decoded(struct sym_index_writer *w, const void *p, size_t n);
void sym_index_put_text(struct sym_index_writer *w, const void *p, size_t n);
bool sym_index_write_finish(struct sym_index_writer *w, const struct sym_index_tail *tail,
                            struct sw_err *warn);
void sym_index_write_abandon(struct sym_index_writer *w);
/* The cache w writes into. Its writers take turns at their heavy part
 * (sym_index_cache_turn: decoding and writing), as many at once as there
 * are CPUs: a walk that loads twenty modules at once does not run twenty
 * writers beside it (each holds ~1 MB of buffers). */
struct sw_sym_cache *sym_index_writer_cache(const struct sym_index_writer *w);
/* Writes no more indexes into c, as after a failed write but without a
 * warning: for a user that only reads the cache (the index fuzzer, which
 * puts each input where a rebuilt index would go: rebuilding it from the
 * same source every time tells nothing new). */
void sym_index_cache_stop_writing(struct sw_sym_cache *c);
void sym_index_cache_turn(struct sw_sym_cache *c, bool take);

void sym_index_close(struct sym_index *ix);

/* Section s: its records in the mapping (NULL when empty) and count. */
const void *sym_index_section(const struct sym_index *ix, enum sym_index_section_id s,
                              uint64_t *count);
uint64_t sym_index_text_len(const struct sym_index *ix);

/* Are the bytes [p, p + n) of a mapped section intact? Checks (once per
 * block) the CRCs of the blocks they lie in. False, and the index marked
 * failed, when a block is damaged or p is not in a section. */
bool sym_index_check(struct sym_index *ix, const void *p, size_t n);

/* Copies text[off, off + n) to out and checks it against crc, the CRC-32
 * its record carries. False, and the index marked failed, when the range
 * passes the text's end, the bytes do not match or the read fails. */
bool sym_index_read_text(struct sym_index *ix, uint64_t off, size_t n, uint32_t crc,
                         char *out);
/* The same for bytes [off, off + n) of the decoded section. */
bool sym_index_read_decoded(struct sym_index *ix, uint64_t off, size_t n, uint32_t crc,
                            char *out);

/* Checks every block and the whole text against its CRC (a test, a cache
 * verifier): what no walk does. */
bool sym_index_check_all(struct sym_index *ix);

/* Marks the index failed (its user found a record that cannot be right):
 * false, for the caller to return. */
bool sym_index_fail(struct sym_index *ix);

/* Did a check fail? Then nothing read from the index may be trusted. */
bool sym_index_failed(const struct sym_index *ix);
/* The index file's path (for messages). */
const char *sym_index_path(const struct sym_index *ix);

#endif
