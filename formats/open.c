/* Opening a snapshot: the file's first bytes choose the reader. A file no
 * reader takes is refused with what it is (a symbol file, an ELF core, a
 * zip archive...), so that the user learns what they gave, not only that
 * it was wrong. A compressed file is judged by the first bytes it
 * decompresses to, and read from a temporary copy (formats/input.h). */
#include "open.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfcore.h"
#include "espcore.h"
#include "microdump.h"
#include "minidump.h"
#include "offline.h"
#include "snap.h"
#include "lib/decompress.h"
#include "lib/span.h"

enum {
	/* The bytes read to choose a reader: enough to find a microdump's
	 * BEGIN line behind logcat prefixes and a few module lines. Of a
	 * compressed file, as many are decompressed. */
	OPEN_HEAD_SIZE = 4096,
};

/* Files that are not regular, by stat(): each is refused without being
 * opened, since opening a FIFO blocks until a writer comes and opening a
 * device can act on it. */
static const struct {
	mode_t type;
	const char *what;
} special_files[] = {
	{ S_IFIFO, "a FIFO" },
	{ S_IFCHR, "a character device" },
	{ S_IFBLK, "a block device" },
	{ S_IFSOCK, "a socket" },
};

static enum sw_err_code refuse_special_file(const char *path, mode_t mode, struct sw_err *err)
{
	if (S_ISDIR(mode))
		return sw_err_set(err, SW_ERR_IO, "%s: is a directory, not a snapshot file", path);
	const char *what = "a special file";
	for (size_t i = 0; i < sizeof special_files / sizeof *special_files; i++)
		if ((mode & S_IFMT) == special_files[i].type)
			what = special_files[i].what;
	/* The readers map the file whole, which a stream cannot be. */
	return sw_err_set(err, SW_ERR_IO,
	                  "%s: is %s, not a regular file: save the snapshot to a file first", path,
	                  what);
}

/* A kind of file that is not a snapshot, or not one this version reads,
 * told by its first bytes. The first row that matches names it. */
struct refused_kind {
	const char *magic; /* at offset 0 ... */
	size_t len;
	bool anywhere;     /* ... or anywhere in the head: text behind log prefixes */
	uint16_t elf_type; /* nonzero: also ELF's e_type, in the file's byte order */
	enum sw_err_code code;
	const char *what;  /* the message, after "PATH: " */
};

#define MAGIC(s) .magic = (s), .len = sizeof(s) - 1

static const struct refused_kind refused_kinds[] = {
	{ MAGIC("MODULE "), .code = SW_ERR_FORMAT,
	  .what = "a Breakpad symbol file, not a snapshot: give it as a SYMBOL_PATH" },
	{ MAGIC("BREAKPAD MICRODUMP"), .anywhere = true, .code = SW_ERR_UNSUPPORTED,
	  .what = "a Breakpad microdump of a kind this version of stackwalk does not read" },
	{ MAGIC(ELFMAG), .elf_type = ET_EXEC, .code = SW_ERR_FORMAT,
	  .what = "an ELF executable, not a snapshot: give it as a SYMBOL_PATH" },
	/* ET_DYN is a shared library or a position-independent executable. */
	{ MAGIC(ELFMAG), .elf_type = ET_DYN, .code = SW_ERR_FORMAT,
	  .what = "an ELF shared object or executable, not a snapshot: give it as a SYMBOL_PATH" },
	{ MAGIC(ELFMAG), .elf_type = ET_REL, .code = SW_ERR_FORMAT,
	  .what = "an ELF object file, not a snapshot" },
	{ MAGIC(ELFMAG), .code = SW_ERR_FORMAT, .what = "an ELF file, not a snapshot" },
	/* Compressed files are decompressed before this table is asked
	 * (sw_snapshot_open_with): these rows name what one holds, a second
	 * compression inside the first. */
	{ MAGIC("\x1f\x8b"), .code = SW_ERR_FORMAT,
	  .what = "a gzip file, not a snapshot (decompress it first if it holds one)" },
	{ MAGIC("\xfd" "7zXZ"), .code = SW_ERR_FORMAT,
	  .what = "an xz-compressed file: decompress it first" },
	{ MAGIC("\x28\xb5\x2f\xfd"), .code = SW_ERR_FORMAT,
	  .what = "a zstd-compressed file: decompress it first" },
	{ MAGIC("\x04\x22\x4d\x18"), .code = SW_ERR_FORMAT,
	  .what = "an lz4-compressed file: decompress it first" },
	{ MAGIC("BZh"), .code = SW_ERR_FORMAT,
	  .what = "a bzip2-compressed file: decompress it first (bunzip2)" },
	{ MAGIC("PK\x03\x04"), .code = SW_ERR_FORMAT,
	  .what = "a zip archive: extract the snapshot from it first" },
	{ MAGIC("PAGEDU64"), .code = SW_ERR_UNSUPPORTED,
	  .what = "a Windows kernel memory dump, not a user-mode minidump" },
	{ MAGIC("PAGEDUMP"), .code = SW_ERR_UNSUPPORTED,
	  .what = "a Windows kernel memory dump, not a user-mode minidump" },
	/* An ESP32's core dump partition read from flash when no dump was
	 * written to it: erased flash reads as 0xFF. */
	{ MAGIC("\xff\xff\xff\xff\xff\xff\xff\xff"), .code = SW_ERR_FORMAT,
	  .what = "erased flash (0xFF bytes): an empty core dump partition, no core dump" },
};

#undef MAGIC

static bool refused_kind_matches(const struct refused_kind *k, struct sw_span s)
{
	if (k->anywhere ? memmem(s.data, (size_t)s.size, k->magic, k->len) == NULL
	                : !sw_span_has(s, 0, k->len) || memcmp(s.data, k->magic, k->len) != 0)
		return false;
	if (k->elf_type == 0)
		return true;
	/* Elf32_Ehdr and Elf64_Ehdr share e_ident and e_type; e_ident's
	 * EI_DATA byte says the byte order (System V gABI, "ELF Header"). */
	const uint64_t at = offsetof(Elf64_Ehdr, e_type);
	uint16_t type = sw_u8(s, EI_DATA) == ELFDATA2MSB
	                        ? (uint16_t)(sw_u8(s, at) << 8 | sw_u8(s, at + 1))
	                        : sw_u16(s, at);
	return sw_span_has(s, at, 2) && type == k->elf_type;
}

/* The first row of the table that names what head is, or NULL. */
static const struct refused_kind *refused_kind_of(struct sw_span head)
{
	for (size_t i = 0; i < sizeof refused_kinds / sizeof *refused_kinds; i++)
		if (refused_kind_matches(&refused_kinds[i], head))
			return &refused_kinds[i];
	return NULL;
}

/* The one-line refusal of a file no reader takes: what it is, by the table;
 * else its first bytes. head is what the file decompressed to when c says
 * it was compressed. */
static enum sw_err_code refuse_unread_file(const char *path, enum sw_compression c,
                                           struct sw_span head, struct sw_snapshot *out,
                                           struct sw_err *err)
{
	out->not_a_snapshot = true;
	char who[sizeof err->msg];
	if (c == SW_COMPRESSION_NONE)
		snprintf(who, sizeof who, "%s", path);
	else
		snprintf(who, sizeof who, "%s: %s-compressed", path, sw_compression_name(c));
	if (head.size == 0 && c != SW_COMPRESSION_NONE)
		return sw_err_set(err, SW_ERR_FORMAT, "%s, decompresses to nothing: not a snapshot",
		                  who);
	if (head.size == 0)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: empty file, not a snapshot", who);
	const struct refused_kind *k = refused_kind_of(head);
	if (k)
		return sw_err_set(err, k->code, "%s: %s", who, k->what);
	char hex[4 * 3 + 1] = "";
	size_t len = 0;
	for (unsigned i = 0; i < 4 && i < head.size; i++)
		len += (size_t)snprintf(hex + len, sizeof hex - len, "%s%02x", i ? " " : "",
		                        head.data[i]);
	return sw_err_set(err, SW_ERR_FORMAT,
	                  "%s: not a snapshot stackwalk reads (starts with %s; expected a "
	                  "minidump, a microdump log, an ELF core, an ESP-IDF core dump, a .snap "
	                  "file or an offline capture folder)",
	                  who, hex);
}

/* Reads the first bytes of path (up to cap; *n of them) after making sure
 * it is a regular file; *fd is left open after them. */
static enum sw_err_code read_head(const char *path, uint8_t *buf, size_t cap, size_t *n,
                                  int *fd_out, struct sw_err *err)
{
	*fd_out = -1;
	*n = 0;
	unsigned mode;
	int fd = sw_open_regular_file(path, &mode);
	if (fd < 0 && mode)
		return refuse_special_file(path, mode, err);
	if (fd < 0)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	while (*n < cap) {
		ssize_t got = read(fd, buf + *n, cap - *n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			close(fd);
			return sw_err_set(err, SW_ERR_IO, "%s: cannot read: %s", path, strerror(e));
		}
		if (got == 0)
			break;
		*n += (size_t)got;
	}
	*fd_out = fd;
	return SW_OK;
}

/* Does head start a snapshot some reader takes by its magic? */
static bool head_is_snapshot(const uint8_t *head, size_t n)
{
	return sw_snap_is(head, n) || sw_minidump_is(head, n) || sw_microdump_is(head, n) ||
	       sw_elfcore_is(head, n) || sw_espcore_is(head, n);
}

/* Text that holds no other snapshot and is no known other kind (a .sym
 * file) may be an ESP32's console log, which prints its core dump after
 * kilobytes of boot messages: the whole text is searched. */
static bool may_be_console_log(struct sw_span head)
{
	return head.size > 0 && !memchr(head.data, '\0', (size_t)head.size) &&
	       !refused_kind_of(head);
}

/* The reader head calls for, on path's bytes (opts->input's when given);
 * c: the compression they came out of, for the refusal. */
static enum sw_err_code open_by_head(const char *path, const struct sw_open_options *opts,
                                     const uint8_t *head, size_t n, enum sw_compression c,
                                     struct sw_snapshot *out, struct sw_err *err)
{
	/* Each reader's magic check, in turn; then what no reader takes. */
	if (sw_snap_is(head, n))
		return sw_snap_read(path, opts, out, err);
	if (sw_minidump_is(head, n))
		return sw_minidump_read_with(path, opts, out, err);
	if (sw_microdump_is(head, n))
		return sw_microdump_read_with(path, opts, NULL, out, err);
	if (sw_elfcore_is(head, n))
		return sw_elfcore_read(path, opts, out, err);
	if (sw_espcore_is(head, n))
		return sw_espcore_read(path, opts, out, err);
	struct sw_span h = { head, n, 0, false };
	if (may_be_console_log(h) && sw_espcore_text_holds_dump(path, opts))
		return sw_espcore_read(path, opts, out, err);
	return refuse_unread_file(path, c, h, out, err);
}

/* Up to cap bytes of fd from its byte 0 (pread: fd's offset is kept). */
static enum sw_err_code pread_head(const char *path, int fd, uint8_t *buf, size_t cap,
                                   size_t *n, struct sw_err *err)
{
	*n = 0;
	while (*n < cap) {
		ssize_t got = pread(fd, buf + *n, cap - *n, (off_t)*n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return sw_err_set(err, SW_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
		if (got == 0)
			break;
		*n += (size_t)got;
	}
	return SW_OK;
}

/* The first bytes dec decompresses to, up to cap (*n of them). */
static enum sw_err_code decode_head(struct sw_decoder *dec, uint8_t *buf, size_t cap,
                                    size_t *n, struct sw_err *err)
{
	*n = 0;
	while (*n < cap) {
		size_t got;
		enum sw_err_code rc = sw_decoder_read(dec, buf + *n, cap - *n, &got, err);
		if (rc != SW_OK)
			return rc;
		if (got == 0)
			break;
		*n += got;
	}
	return SW_OK;
}

/* The compressed file path, open as fd after its first n bytes at head,
 * decompressed into a temporary input (*in) when what it holds starts like
 * a snapshot (inner: its first *ninner bytes); else refused with what it
 * holds, without decompressing the rest (a 300 MB .sym.gz given as the
 * snapshot). */
static enum sw_err_code decompress_input(const char *path, const struct sw_open_options *opts,
                                         int fd, enum sw_compression c, const uint8_t *head,
                                         size_t n, uint8_t *inner, size_t *ninner,
                                         struct sw_input *in, struct sw_snapshot *out,
                                         struct sw_err *err)
{
	*in = (struct sw_input){ .fd = -1 };
	struct sw_decoder *dec = sw_decoder_new(c, fd, head, n, path, err);
	if (!dec)
		return SW_ERR_NOMEM;
	enum sw_err_code rc = decode_head(dec, inner, OPEN_HEAD_SIZE, ninner, err);
	struct sw_span h = { inner, *ninner, 0, false };
	if (rc == SW_OK && !head_is_snapshot(inner, *ninner) && !may_be_console_log(h))
		rc = refuse_unread_file(path, c, h, out, err);
	if (rc == SW_OK)
		rc = sw_input_spill(dec, c, path, inner, *ninner, opts ? opts->max_decompressed : 0,
		                    in, err);
	sw_decoder_free(dec);
	return rc;
}

/* path's file, or its decompressed copy when it is compressed, for opts'
 * readers: *in is the copy (fd -1 for a file read as it is). head: the
 * first bytes of what is read. */
static enum sw_err_code open_input(const char *path, const struct sw_open_options *opts,
                                   uint8_t *head, size_t *n, struct sw_input *in,
                                   struct sw_snapshot *out, struct sw_err *err)
{
	*in = (struct sw_input){ .fd = -1 };
	int fd;
	uint8_t raw[OPEN_HEAD_SIZE];
	size_t nraw;
	enum sw_err_code rc = read_head(path, raw, sizeof raw, &nraw, &fd, err);
	if (rc != SW_OK)
		return rc;
	enum sw_compression c = sw_compression_of(raw, nraw);
	if (c == SW_COMPRESSION_NONE) {
		memcpy(head, raw, nraw);
		*n = nraw;
	} else {
		rc = decompress_input(path, opts, fd, c, raw, nraw, head, n, in, out, err);
	}
	close(fd);
	return rc;
}

enum sw_err_code sw_snapshot_open(const char *path, struct sw_snapshot *out,
                                  struct sw_err *err)
{
	return sw_snapshot_open_with(path, NULL, out, err);
}

enum sw_err_code sw_snapshot_open_with(const char *path, const struct sw_open_options *opts,
                                       struct sw_snapshot *out, struct sw_err *err)
{
	sw_snapshot_init(out, path);
	uint8_t head[OPEN_HEAD_SIZE];
	size_t n;
	enum sw_err_code rc;
	/* Bytes given (standard input): read as they are. */
	if (opts && opts->input) {
		rc = pread_head(path, opts->input->fd, head, sizeof head, &n, err);
		return rc != SW_OK ? rc
		                   : open_by_head(path, opts, head, n, opts->input->compression, out,
		                                  err);
	}
	/* A folder holding regs.txt and maps.txt is an offline capture, one
	 * holding regs.txt and mem-*.bin files a debug probe's; other folders
	 * are refused below. */
	if (sw_offline_is_folder(path))
		return sw_offline_read_with(path, opts, out, err);
	struct sw_input in;
	if ((rc = open_input(path, opts, head, &n, &in, out, err)) != SW_OK)
		return rc;
	if (in.fd < 0)
		return open_by_head(path, opts, head, n, SW_COMPRESSION_NONE, out, err);
	/* The reader maps the temporary (and keeps it alive that way). */
	struct sw_open_options with_input = opts ? *opts : (struct sw_open_options){ 0 };
	with_input.input = &in;
	rc = open_by_head(path, &with_input, head, n, in.compression, out, err);
	sw_input_close(&in);
	return rc;
}

enum sw_err_code sw_snapshot_open_part(const char *path, const struct sw_open_options *opts,
                                       const struct sw_part *part, struct sw_snapshot *out,
                                       struct sw_err *err)
{
	/* Only microdump logs hold several snapshots (sw_snapshot.has_next). */
	if (opts && opts->input)
		return sw_microdump_read_with(path, opts, part, out, err);
	sw_snapshot_init(out, path);
	uint8_t head[OPEN_HEAD_SIZE];
	size_t n;
	struct sw_input in;
	enum sw_err_code rc = open_input(path, opts, head, &n, &in, out, err);
	if (rc != SW_OK)
		return rc;
	struct sw_open_options with_input = opts ? *opts : (struct sw_open_options){ 0 };
	with_input.input = in.fd >= 0 ? &in : NULL;
	rc = sw_microdump_read_with(path, &with_input, part, out, err);
	sw_input_close(&in);
	return rc;
}

enum sw_err_code sw_snapshot_map_input(const char *path, const struct sw_open_options *opts,
                                       struct sw_mapped_file *out, struct sw_err *err)
{
	return sw_input_map(path, opts ? opts->input : NULL, out, err);
}
