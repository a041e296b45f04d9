/* libFuzzer target for the symbol index reader (symbols/sym_index.c, and
 * the .sym provider over an index, breakpad_sym_index.c and breakpad_sym.c:
 * docs/symbol-cache.md). The input is an index file; it is written where the cache looks for the
 * index of one of four small .sym sources this harness carries (plain or
 * gzipped), then opened, validated and asked what a walk asks: lookups,
 * has_function, STACK WIN parameter sizes and unwinds (amd64 and arm64
 * STACK CFI, x86 STACK WIN then CFI) at every record's start, middle and
 * end. Any byte pattern must be rejected at open, or answer safely (from
 * the index, or from the source parsed again once a check fails).
 *
 * Input: one flag byte, then the index file.
 *   bit 0     fix the checksums the fuzzer cannot forge: every record's
 *             CRC-32 of its text or decoded bytes, the MODULE line's and
 *             the CFI name table's, every 64 KiB block's, the block
 *             table's, the whole text's and decoded section's, and the
 *             header's (else the bytes are written as they are)
 *   bits 1-2  which source (sources[] below)
 *   bit 3     its .sym.gz (the index then holds the inflated text)
 *   bit 4     keep the key as the input has it (else: the source's
 *             identity and the module names the harness asks for)
 *   bit 5     keep the records' text CRCs as they are (with bit 0)
 * With bit 0, a mutated index passes every checksum and reaches the
 * record arrays and text with the values the fuzzer chose; without it,
 * the paths that reject or fall back run.
 *
 * The fixing mirrors the file layout of sym_index.c (struct fz_header
 * below). At start the harness checks that mirror: the index the cache
 * writes for each source must open, and fixing it must change no byte; a
 * format change aborts here, loudly, instead of fuzzing blind.
 *
 * Seeds (testdata/sym_index/, make_seeds.sh): SW_FUZZ_SYM_INDEX_SEEDS=DIR
 * writes the flag byte 1 (+ source, gzip bits) and each source's genuine
 * index into DIR, one file per source and form, and exits. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "symbols/breakpad_sym.h"
#include "symbols/breakpad_sym_internal.h"
#include "symbols/sym_index.h"

#include "fuzz_bsym_unwind.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FZ_FIX_CRCS = 1,
	FZ_SOURCE_SHIFT = 1,
	FZ_GZIP = 8,
	FZ_KEEP_KEY = 16,
	FZ_KEEP_RECORD_CRCS = 32,
	FZ_NSOURCES = 4,
	FZ_BLOCK_SHIFT = 16,
	FZ_MAX_ADDRS = 160,          /* lookups per input: a few per record, bounded */
	FZ_RECORDS_PER_SECTION = 24,
	FZ_MAX_FIXED_RECORDS = 1 << 16,
};

/* sym_index.c's struct file_header, field for field (checked at start). */
struct fz_section {
	uint64_t off, count, elem;
};

struct fz_header {
	char magic[8];
	uint32_t version, header_size;
	uint32_t byte_order, block_shift;
	uint64_t file_size;
	uint64_t src_size, src_mtime_ns, src_ctime_ns, src_ino, src_dev;
	char debug_file[256];
	char debug_id[64];
	uint64_t data_off, checked_len, nblocks, crc_off;
	uint64_t text_len, text_in_file;
	struct fz_section sec[SYM_SEC_COUNT];
	uint64_t meta[SYM_INDEX_NMETA];
	uint32_t text_crc, tables_crc, header_crc, decoded_crc;
};

/* The record sizes breakpad_sym_index.c asks sym_index_open for. */
static const uint32_t fz_elem[SYM_SEC_COUNT] = {
	[SYM_SEC_TEXT] = 1,
	[SYM_SEC_FUNCS] = sizeof(struct bsym_func),
	[SYM_SEC_PUBLICS] = sizeof(struct bsym_public),
	[SYM_SEC_CFI] = sizeof(struct bsym_range),
	[SYM_SEC_WIN] = sizeof(struct bsym_range),
	[SYM_SEC_FILES] = sizeof(struct bsym_named),
	[SYM_SEC_ORIGINS] = sizeof(struct bsym_named),
	[SYM_SEC_FUNC_FENCES] = sizeof(uint64_t),
	[SYM_SEC_PUBLIC_FENCES] = sizeof(uint64_t),
	[SYM_SEC_CFI_FENCES] = sizeof(uint64_t),
	[SYM_SEC_DECODED] = 1,
};

/* breakpad_sym_index.c's provider fields (struct sym_index_content.meta) that
 * point into the index: the MODULE line (text) and the decoded CFI
 * rules' name table (decoded section; length << 32 | CRC-32). */
enum {
	FZ_META_MODULE_LINE = 3,
	FZ_META_MODULE_LINE_LEN = 4,
	FZ_META_MODULE_LINE_CRC = 13,
	FZ_META_CFI_NAMES = 14,
	FZ_META_CFI_NAMES_LEN_CRC = 15,
};

/* ---- the sources ---------------------------------------------------------- */

/* amd64 Linux: FILE, INLINE_ORIGIN, FUNC m with line and INLINE records
 * (the layout with a call file), PUBLIC, STACK CFI with deltas. */
static const char source_amd64[] =
	"MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libfuzz.so\n"
	"INFO CODE_ID 0123456789ABCDEF0123456789ABCDEF\n"
	"FILE 0 /src/a.c\n"
	"FILE 1 /src/b.h\n"
	"FILE 2 /src/c.c\n"
	"INLINE_ORIGIN 0 inlined_one\n"
	"INLINE_ORIGIN 1 inlined_two\n"
	"FUNC m 1000 40 0 outer\n"
	"INLINE 0 12 1 0 1008 10\n"
	"INLINE 1 30 1 1 1010 8\n"
	"1000 8 10 0\n"
	"1008 10 31 1\n"
	"1018 28 12 0\n"
	"FUNC 1040 30 8 second\n"
	"1040 30 20 2\n"
	"PUBLIC 1100 0 public_one\n"
	"PUBLIC 1200 10 public_two\n"
	"STACK CFI INIT 1000 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
	"STACK CFI 1001 .cfa: $rsp 16 + $rbp: .cfa -16 + ^\n"
	"STACK CFI 1004 .cfa: $rbp 16 +\n"
	"STACK CFI INIT 1040 30 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n";

/* x86 Windows: STACK WIN of both frame types (one nested in another),
 * CRLF line ends, a CFI record for a PUBLIC. */
static const char source_x86[] =
	"MODULE windows x86 5A9832E5287241C1838ED98914E9B7FF1 test_app.pdb\r\n"
	"INFO CODE_ID 45E35F3B2D000 test_app.exe\r\n"
	"FILE 0 c:\\test_app.cc\r\n"
	"FUNC 1000 30 4 CrashFunction\r\n"
	"1000 10 58 0\r\n"
	"1010 20 59 0\r\n"
	"FUNC 1030 20 0 main\r\n"
	"1030 20 65 0\r\n"
	"PUBLIC 1100 4 _purecall\r\n"
	"STACK WIN 4 1000 30 6 0 4 0 0 0 1 $T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = "
	"$esp $T0 8 + =\r\n"
	"STACK WIN 4 1010 8 2 0 4 0 0 0 1 $T0 .raSearch = $eip $T0 ^ = $esp $T0 4 + =\r\n"
	"STACK WIN 0 1030 20 3 0 0 0 0 0 0 1\r\n"
	"STACK CFI INIT 1100 10 .cfa: $esp 4 + .ra: .cfa -4 + ^\r\n";

/* arm64 macOS: INLINE records of the layout without a call file. */
static const char source_arm64[] =
	"MODULE mac arm64 ABCDEF0123456789ABCDEF01234567890 crash\n"
	"FILE 0 main.c\n"
	"INLINE_ORIGIN 0 helper\n"
	"FUNC 2000 40 0 main\n"
	"INLINE 0 7 0 2008 8 2018 4\n"
	"2000 10 3 0\n"
	"2010 30 8 0\n"
	"STACK CFI INIT 2000 40 .cfa: sp 0 + .ra: x30\n"
	"STACK CFI 2004 .cfa: sp 16 + x29: .cfa -16 + ^ .ra: .cfa -8 + ^\n";

/* Made at start (make_many): enough FUNC, PUBLIC and CFI records for
 * three fence entries each. */
static char source_many[8192];

static void make_many(void)
{
	size_t at = 0;
	at += (size_t)snprintf(source_many + at, sizeof source_many - at,
	                       "MODULE Linux x86 00112233445566778899AABBCCDDEEFF0 many.so\n"
	                       "FILE 0 many.c\n");
	for (unsigned i = 0; i < 40; i++)
		at += (size_t)snprintf(source_many + at, sizeof source_many - at,
		                       "FUNC %x 20 0 f%u\n%x 10 %u 0\n%x 10 %u 0\n",
		                       0x10000 + i * 0x20, i, 0x10000 + i * 0x20, i + 1,
		                       0x10010 + i * 0x20, i + 2);
	for (unsigned i = 0; i < 36; i++)
		at += (size_t)snprintf(source_many + at, sizeof source_many - at,
		                       "PUBLIC %x 0 p%u\n", 0x20000 + i * 0x10, i);
	for (unsigned i = 0; i < 36; i++)
		at += (size_t)snprintf(source_many + at, sizeof source_many - at,
		                       "STACK CFI INIT %x 20 .cfa: $esp 4 + .ra: .cfa -4 + ^\n"
		                       "STACK CFI %x .cfa: $esp 8 +\n",
		                       0x10000 + i * 0x20, 0x10004 + i * 0x20);
}

struct fz_source {
	const char *name, *text;
	size_t len;
	/* per form (plain, gzip): */
	char path[2][256];          /* the source file */
	char index[2][512];         /* where the cache looks for its index */
	uint8_t *bytes[2];          /* the source file's bytes */
	size_t nbytes[2];
	struct stat st[2];
	uint8_t *genuine[2];        /* the index the cache wrote */
	size_t ngenuine[2];
};

static struct fz_source sources[FZ_NSOURCES] = {
	{ .name = "amd64", .text = source_amd64 },
	{ .name = "x86", .text = source_x86 },
	{ .name = "arm64", .text = source_arm64 },
	{ .name = "many", .text = source_many },
};

static char root[96];
static struct sw_sym_cache *cache;

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_sym_index: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static void write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot write", path);
	const uint8_t *q = p;
	while (n > 0) {
		ssize_t w = write(fd, q, n);
		if (w <= 0)
			die("cannot write", path);
		q += w;
		n -= (size_t)w;
	}
	close(fd);
}

static uint8_t *read_file(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		die("cannot read", path);
	uint8_t *p = malloc((size_t)st.st_size + 1);
	if (!p || read(fd, p, (size_t)st.st_size) != st.st_size)
		die("cannot read", path);
	close(fd);
	*n = (size_t)st.st_size;
	return p;
}

static void debug_names(unsigned s, unsigned gz, char file[32], char id[40])
{
	snprintf(file, 32, "fuzz%u%s.pdb", s, gz ? "gz" : "");
	snprintf(id, 40, "F0221D%02u00000000000000000000000001", s * 2 + gz);
}

/* The one *.swidx file of dir into out. */
static void find_index(const char *dir, char *out, size_t n)
{
	DIR *d = opendir(dir);
	if (!d)
		die("no index directory", dir);
	struct dirent *de;
	out[0] = '\0';
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		if (len > 6 && strcmp(de->d_name + len - 6, ".swidx") == 0)
			snprintf(out, n, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (!out[0])
		die("the cache wrote no index in", dir);
}

static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			char sub[1024];
			snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
			remove_tree(sub);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static void cleanup(void)
{
	if (root[0])
		remove_tree(root);
}

/* ---- fixing what the fuzzer cannot forge --------------------------------- */

static uint32_t crc32_of(const void *p, size_t n)
{
	return libdeflate_crc32(0, p, n);
}

/* Is [off, off + len) inside n bytes? */
static bool inside(uint64_t off, uint64_t len, uint64_t n)
{
	return off <= n && len <= n - off;
}

/* A stretch a record's CRC covers: text[off, off + len) as
 * sym_index_read_text reads it (the index's text section, or the source),
 * or the decoded section's bytes (sym_index_read_decoded). */
struct fz_region {
	const uint8_t *p;
	uint64_t len;
};

static struct fz_region text_of(const struct fz_header *h, const uint8_t *buf, size_t n,
                                const struct fz_source *src, unsigned gz)
{
	if (h->text_in_file)
		return inside(h->sec[SYM_SEC_TEXT].off, h->text_len, n) ?
		       (struct fz_region){ buf + h->sec[SYM_SEC_TEXT].off, h->text_len } :
		       (struct fz_region){ NULL, 0 };
	return h->text_len == src->nbytes[gz] ? (struct fz_region){ src->bytes[gz], h->text_len } :
	                                         (struct fz_region){ NULL, 0 };
}

static struct fz_region decoded_of(const struct fz_header *h, const uint8_t *buf, size_t n)
{
	const struct fz_section *d = &h->sec[SYM_SEC_DECODED];
	return inside(d->off, d->count, n) ? (struct fz_region){ buf + d->off, d->count } :
	                                     (struct fz_region){ NULL, 0 };
}

/* The CRC-32 of region[off, off + len) into *crc; false when outside. */
static bool region_crc(struct fz_region r, uint64_t off, uint64_t len, uint32_t *crc)
{
	if (!r.p || !inside(off, len, r.len))
		return false;
	*crc = crc32_of(r.p + off, (size_t)len);
	return true;
}

/* Sets the crc field of each record of section s whose stretch lies in
 * its region: the text, or the decoded section for a FUNC or CFI record
 * marked BSYM_DECODED. */
static void fix_record_crcs(const struct fz_header *h, uint8_t *buf, size_t n,
                            struct fz_region text, struct fz_region decoded, int s)
{
	const struct fz_section *sec = &h->sec[s];
	if (sec->elem != fz_elem[s] || !inside(sec->off, 0, n) ||
	    sec->count > (n - sec->off) / sec->elem)
		return;
	for (uint64_t i = 0; i < sec->count && i < FZ_MAX_FIXED_RECORDS; i++) {
		uint8_t *rec = buf + sec->off + i * sec->elem;
		uint64_t off, len;
		size_t crc_at;
		struct fz_region in = text;
		if (s == SYM_SEC_FUNCS) {
			struct bsym_func f;
			memcpy(&f, rec, sizeof f);
			if (f.end < f.off)
				continue;
			off = f.off, len = f.end - f.off, crc_at = offsetof(struct bsym_func, crc);
			if (f.flags & BSYM_DECODED)
				in = decoded;
		} else if (s == SYM_SEC_PUBLICS) {
			struct bsym_public p;
			memcpy(&p, rec, sizeof p);
			off = p.off, len = p.len, crc_at = offsetof(struct bsym_public, crc);
		} else if (s == SYM_SEC_CFI || s == SYM_SEC_WIN) {
			struct bsym_range r;
			memcpy(&r, rec, sizeof r);
			off = r.off, len = r.len, crc_at = offsetof(struct bsym_range, crc);
			if (s == SYM_SEC_CFI && (r.aux & BSYM_DECODED))
				in = decoded;
		} else {
			struct bsym_named m;
			memcpy(&m, rec, sizeof m);
			off = m.off, len = m.len, crc_at = offsetof(struct bsym_named, crc);
		}
		uint32_t crc;
		if (region_crc(in, off, len, &crc))
			memcpy(rec + crc_at, &crc, sizeof crc);
	}
}

/* The header's key, text CRC, block CRCs, block table CRC and own CRC made
 * right for what the header says, where it says something in bounds. */
static void fix_index(uint8_t *buf, size_t n, const struct fz_source *src, unsigned gz,
                      unsigned s, unsigned flags)
{
	struct fz_header h;
	if (n < sizeof h)
		return;
	memcpy(&h, buf, sizeof h);
	if (!(flags & FZ_KEEP_KEY)) {
		const struct stat *st = &src->st[gz];
		h.src_size = (uint64_t)st->st_size;
		h.src_mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u +
		                 (uint64_t)st->st_mtim.tv_nsec;
		h.src_ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000u +
		                 (uint64_t)st->st_ctim.tv_nsec;
		h.src_ino = (uint64_t)st->st_ino;
		h.src_dev = (uint64_t)st->st_dev;
		char file[32], id[40];
		debug_names(s, gz, file, id);
		memset(h.debug_file, 0, sizeof h.debug_file);
		memset(h.debug_id, 0, sizeof h.debug_id);
		snprintf(h.debug_file, sizeof h.debug_file, "%s", file);
		snprintf(h.debug_id, sizeof h.debug_id, "%s", id);
	}
	if (!(flags & FZ_FIX_CRCS)) {
		memcpy(buf, &h, sizeof h);
		return;
	}
	struct fz_region text = text_of(&h, buf, n, src, gz), decoded = decoded_of(&h, buf, n);
	if (!(flags & FZ_KEEP_RECORD_CRCS)) {
		for (int k = SYM_SEC_FUNCS; k <= SYM_SEC_ORIGINS; k++)
			fix_record_crcs(&h, buf, n, text, decoded, k);
		uint32_t crc;
		if (region_crc(text, h.meta[FZ_META_MODULE_LINE], h.meta[FZ_META_MODULE_LINE_LEN], &crc))
			h.meta[FZ_META_MODULE_LINE_CRC] = crc;
		uint64_t names_len = h.meta[FZ_META_CFI_NAMES_LEN_CRC] >> 32;
		if (region_crc(decoded, h.meta[FZ_META_CFI_NAMES], names_len, &crc))
			h.meta[FZ_META_CFI_NAMES_LEN_CRC] = names_len << 32 | crc;
	}
	if (text.p)
		h.text_crc = crc32_of(text.p, (size_t)text.len);
	if (decoded.p)
		h.decoded_crc = crc32_of(decoded.p, (size_t)decoded.len);
	const uint64_t block = (uint64_t)1 << FZ_BLOCK_SHIFT;
	if (inside(h.data_off, h.checked_len, n) && h.nblocks <= n / 4 &&
	    inside(h.crc_off, h.nblocks * 4, n)) {
		for (uint64_t b = 0; b < h.nblocks; b++) {
			uint64_t off = b * block;
			if (off >= h.checked_len)
				break;
			uint64_t len = h.checked_len - off < block ? h.checked_len - off : block;
			uint32_t crc = crc32_of(buf + h.data_off + off, (size_t)len);
			memcpy(buf + h.crc_off + b * 4, &crc, 4);
		}
		h.tables_crc = crc32_of(buf + h.crc_off, (size_t)h.nblocks * 4);
	}
	h.header_crc = 0;
	h.header_crc = crc32_of(&h, sizeof h);
	memcpy(buf, &h, sizeof h);
}

/* ---- the questions --------------------------------------------------------- */

static struct sw_bsym *g_bsym;
static volatile uint64_t sink;

struct fz_addrs {
	uint64_t a[FZ_MAX_ADDRS];
	size_t n;
};

static void add(struct fz_addrs *x, uint64_t a)
{
	if (x->n < FZ_MAX_ADDRS)
		x->a[x->n++] = a;
}

/* The start, middle, last byte and end of (up to) the first records of
 * each address-keyed array of an open index, as it lies in the file. */
static void addresses_of(struct sym_index *ix, struct fz_addrs *x)
{
	static const int secs[] = { SYM_SEC_FUNCS, SYM_SEC_PUBLICS, SYM_SEC_CFI, SYM_SEC_WIN };
	for (size_t k = 0; k < sizeof secs / sizeof secs[0]; k++) {
		uint64_t count;
		const uint8_t *p = sym_index_section(ix, secs[k], &count);
		for (uint64_t i = 0; p && i < count && i < FZ_RECORDS_PER_SECTION; i++) {
			const uint8_t *rec = p + i * fz_elem[secs[k]];
			uint64_t addr, size = 1;
			memcpy(&addr, rec, sizeof addr);
			if (secs[k] == SYM_SEC_FUNCS) {
				memcpy(&size, rec + offsetof(struct bsym_func, size), sizeof size);
			} else if (secs[k] != SYM_SEC_PUBLICS) {
				uint32_t s32;
				memcpy(&s32, rec + offsetof(struct bsym_range, size), sizeof s32);
				size = s32;
			}
			add(x, addr);
			add(x, addr + size / 2);
			add(x, addr + size - 1);
			add(x, addr + size);
		}
	}
}

/* The raw reader: open, every section's bounds through the block check,
 * the MODULE line's text, the full check. */
static void exercise_index(const struct fz_source *src, unsigned gz, unsigned s,
                           struct fz_addrs *x)
{
	char file[32], id[40];
	debug_names(s, gz, file, id);
	struct sym_index *ix;
	uint64_t meta[SYM_INDEX_NMETA];
	struct sw_err warn = { 0 };
	if (sym_index_open(cache, src->path[gz], file, id, fz_elem, &ix, meta, &warn) !=
	    SYM_INDEX_OPENED)
		return;
	addresses_of(ix, x);
	for (int k = 0; k < SYM_SEC_COUNT; k++) {
		uint64_t count;
		const uint8_t *p = sym_index_section(ix, (enum sym_index_section_id)k, &count);
		if (!p || sym_index_section_is_read((enum sym_index_section_id)k))
			continue;
		sym_index_check(ix, p, fz_elem[k]);
		sym_index_check(ix, p + (count - 1) * fz_elem[k], fz_elem[k]);
	}
	char line[256];
	if (meta[FZ_META_MODULE_LINE_LEN] < sizeof line)
		sym_index_read_text(ix, meta[FZ_META_MODULE_LINE], (size_t)meta[FZ_META_MODULE_LINE_LEN],
		                    (uint32_t)meta[FZ_META_MODULE_LINE_CRC], line);
	if (meta[FZ_META_CFI_NAMES_LEN_CRC] >> 32 < sizeof line)
		sym_index_read_decoded(ix, meta[FZ_META_CFI_NAMES],
		                       (size_t)(meta[FZ_META_CFI_NAMES_LEN_CRC] >> 32),
		                       (uint32_t)meta[FZ_META_CFI_NAMES_LEN_CRC], line);
	sink += sym_index_text_len(ix) + sym_index_failed(ix);
	sym_index_check_all(ix);
	sink += sym_index_failed(ix) + strlen(sym_index_path(ix));
	sym_index_close(ix);
}

/* The provider over the index, as the store loads it. */
static void exercise_provider(const struct fz_source *src, unsigned gz, unsigned s,
                              struct fz_addrs *x, const uint8_t *data, size_t size)
{
	char file[32], id[40];
	debug_names(s, gz, file, id);
	struct sw_err err = { 0 }, warn = { 0 };
	g_bsym = sw_bsym_load_cached(src->path[gz], cache, file, id, &err, &warn);
	if (!g_bsym)
		die("the source did not load", src->path[gz]);
	static const uint64_t fixed[] = { 0, 1, 0x1000, 0x1008, 0x1100, 0x2004, 0x10004,
	                                  0x20000, 0xffffffff, UINT64_MAX };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		add(x, fixed[i]);
	struct sw_arena a;
	sw_arena_init(&a);
	for (size_t i = 0; i < x->n; i++) {
		struct sw_sym_info info;
		if (sw_bsym_ops.lookup(g_bsym, x->a[i], &a, &info)) {
			sink += (uint8_t)info.function[0];
			if (info.file)
				sink += (uint8_t)info.file[0];
			for (uint32_t k = 0; k < info.ninlines; k++)
				sink += (uint8_t)info.inlines[k].function[0] +
				        (uint8_t)(info.inlines[k].call_file ? info.inlines[k].call_file[0] : 0);
		}
		sink += sw_bsym_ops.has_function(g_bsym, x->a[i]);
		uint32_t param;
		if (sw_bsym_frame_param_size(g_bsym, x->a[i], &param))
			sink += param;
	}
	sw_arena_free(&a);
	struct sw_bsym_module m;
	if (sw_bsym_module(g_bsym, &m))
		sink += m.os_len + m.arch_len + m.id_len + m.name_len +
		        (m.name_len ? (uint8_t)m.name[m.name_len - 1] : 0);
	fuzz_bsym_unwind(g_bsym, &sw_arch_amd64, x->a, x->n, data, size);
	fuzz_bsym_unwind(g_bsym, &sw_arch_x86, x->a, x->n, data, size);
	fuzz_bsym_unwind(g_bsym, &sw_arch_arm64, x->a, x->n, data, size);
	const char *w = sw_bsym_warning(g_bsym);
	sink += (w ? strlen(w) : 0) + sw_bsym_is_indexed(g_bsym) + sw_bsym_error_count(g_bsym);
	sw_bsym_free(g_bsym);
	g_bsym = NULL;
}

/* ---- start ----------------------------------------------------------------- */

static void make_source_files(struct fz_source *src, unsigned s)
{
	src->len = strlen(src->text);
	for (unsigned gz = 0; gz < 2; gz++) {
		snprintf(src->path[gz], sizeof src->path[gz], "%s/src/%s.sym%s", root, src->name,
		         gz ? ".gz" : "");
		if (!gz) {
			write_file(src->path[gz], src->text, src->len);
		} else {
			struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
			size_t cap = libdeflate_gzip_compress_bound(c, src->len);
			uint8_t *out = malloc(cap);
			size_t n = c && out ? libdeflate_gzip_compress(c, src->text, src->len, out, cap) : 0;
			if (!n)
				die("cannot gzip", src->name);
			write_file(src->path[gz], out, n);
			free(out);
			libdeflate_free_compressor(c);
		}
		src->bytes[gz] = read_file(src->path[gz], &src->nbytes[gz]);
		if (stat(src->path[gz], &src->st[gz]) != 0)
			die("cannot stat", src->path[gz]);
		/* The cache writes the index (cold load), found where it put it. */
		char file[32], id[40];
		debug_names(s, gz, file, id);
		struct sw_err err = { 0 }, warn = { 0 };
		struct sw_bsym *b = sw_bsym_load_cached(src->path[gz], cache, file, id, &err, &warn);
		if (!b || err.code != SW_OK)
			die("a source did not parse cleanly", src->path[gz]);
		sw_bsym_free(b); /* joins the writer */
		char dir[512];
		snprintf(dir, sizeof dir, "%s/cache/%s/%s", root, file, id);
		find_index(dir, src->index[gz], sizeof src->index[gz]);
		src->genuine[gz] = read_file(src->index[gz], &src->ngenuine[gz]);

		/* The mirror of the format: the genuine index opens, and fixing
		 * it changes nothing. */
		struct fz_header h;
		if (src->ngenuine[gz] < sizeof h)
			die("index shorter than struct fz_header: update the harness", src->index[gz]);
		memcpy(&h, src->genuine[gz], sizeof h);
		if (h.header_size != sizeof h || h.block_shift != FZ_BLOCK_SHIFT)
			die("the index header changed: update struct fz_header", src->index[gz]);
		uint8_t *copy = malloc(src->ngenuine[gz]);
		memcpy(copy, src->genuine[gz], src->ngenuine[gz]);
		fix_index(copy, src->ngenuine[gz], src, gz, s, FZ_FIX_CRCS);
		if (memcmp(copy, src->genuine[gz], src->ngenuine[gz]) != 0)
			die("fixing a genuine index changed it: update fix_index", src->index[gz]);
		free(copy);
		struct sym_index *ix;
		uint64_t meta[SYM_INDEX_NMETA];
		if (sym_index_open(cache, src->path[gz], file, id, fz_elem, &ix, meta, &warn) !=
		    SYM_INDEX_OPENED || !sym_index_check_all(ix))
			die("a genuine index does not open: update fz_elem", src->index[gz]);
		sym_index_close(ix);
	}
}

static void write_seeds(const char *dir)
{
	for (unsigned s = 0; s < FZ_NSOURCES; s++)
		for (unsigned gz = 0; gz < 2; gz++) {
			const struct fz_source *src = &sources[s];
			char path[512];
			snprintf(path, sizeof path, "%s/%s%s.seed", dir, src->name, gz ? "-gz" : "");
			size_t n = src->ngenuine[gz] + 1;
			uint8_t *p = malloc(n);
			p[0] = (uint8_t)(FZ_FIX_CRCS | s << FZ_SOURCE_SHIFT | (gz ? FZ_GZIP : 0));
			memcpy(p + 1, src->genuine[gz], n - 1);
			write_file(path, p, n);
			free(p);
		}
}

/* The folders of earlier runs that died without cleaning up (a finding
 * aborts past atexit): fuzz_sym_index_PID_* whose process is gone. */
static void remove_orphans(const char *tmp)
{
	DIR *d = opendir(tmp);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		long pid;
		char path[512];
		if (sscanf(de->d_name, "fuzz_sym_index_%ld_", &pid) == 1 && pid > 0 &&
		    kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			snprintf(path, sizeof path, "%s/%s", tmp, de->d_name);
			remove_tree(path);
		}
	}
	closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* tmpfs when there is one: every input is a file written and mapped. */
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	remove_orphans(tmp);
	snprintf(root, sizeof root, "%s/fuzz_sym_index_%ld_XXXXXX", tmp, (long)getpid());
	if (!mkdtemp(root))
		die("cannot make a temporary directory", root);
	atexit(cleanup);
	char path[256];
	snprintf(path, sizeof path, "%s/src", root);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/cache", root);
	struct sw_err err = { 0 };
	cache = sw_sym_cache_create(path, &err);
	if (!cache)
		die("no cache", err.msg);
	make_many();
	for (unsigned s = 0; s < FZ_NSOURCES; s++)
		make_source_files(&sources[s], s);
	/* The genuine indexes are written: from here the cache is only read.
	 * An input the provider rejects is parsed from its source, as always,
	 * but not written again (the next input overwrites it anyway). */
	sym_index_cache_stop_writing(cache);
	const char *seeds = getenv("SW_FUZZ_SYM_INDEX_SEEDS");
	if (seeds) {
		write_seeds(seeds);
		exit(0);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	unsigned s = (flags >> FZ_SOURCE_SHIFT) % FZ_NSOURCES, gz = (flags & FZ_GZIP) != 0;
	const struct fz_source *src = &sources[s];
	size_t n = size - 1;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	fix_index(buf, n, src, gz, s, flags);
	/* Over the last input's file (the cache writes no rebuilt index). */
	write_file(src->index[gz], buf, n);
	free(buf);
	struct fz_addrs x = { .n = 0 };
	exercise_index(src, gz, s, &x);
	exercise_provider(src, gz, s, &x, data, size);
	return 0;
}
