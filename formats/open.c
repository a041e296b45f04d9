/* Opening a snapshot: the file's first bytes choose the reader. A file no
 * reader takes is refused with what it is (a symbol file, an ELF core, a
 * gzip file...), so that the user learns what they gave, not only that it
 * was wrong. */
#include "open.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "elfcore.h"
#include "espcore.h"
#include "microdump.h"
#include "minidump.h"
#include "offline.h"
#include "snap.h"
#include "lib/span.h"

enum {
	/* The bytes read to choose a reader: enough to find a microdump's
	 * BEGIN line behind logcat prefixes and a few module lines, and to
	 * inflate the start of a gzip file. */
	OPEN_HEAD_SIZE = 4096,
	/* How much of a gzip file's content is inflated to say what it holds. */
	OPEN_GZ_PEEK = 64,
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
	bool in_gzip;      /* matched against the inflated start of a gzip file */
	uint16_t elf_type; /* nonzero: also ELF's e_type, in the file's byte order */
	enum sw_err_code code;
	const char *what;  /* the message, after "PATH: " */
};

#define MAGIC(s) .magic = (s), .len = sizeof(s) - 1

static const struct refused_kind refused_kinds[] = {
	{ MAGIC("MDMP"), .in_gzip = true, .code = SW_ERR_FORMAT,
	  .what = "a gzip-compressed minidump: decompress it first (gunzip)" },
	/* A minidump written by a big-endian host (its signature swapped). */
	{ MAGIC("PMDM"), .in_gzip = true, .code = SW_ERR_FORMAT,
	  .what = "a gzip-compressed minidump: decompress it first (gunzip)" },
	{ MAGIC("MODULE "), .in_gzip = true, .code = SW_ERR_FORMAT,
	  .what = "a gzip-compressed Breakpad symbol file (.sym.gz), not a snapshot: "
	          "give it as a SYMBOL_PATH" },
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
	{ MAGIC("\x1f\x8b"), .code = SW_ERR_FORMAT,
	  .what = "a gzip file, not a snapshot (decompress it first if it holds one)" },
	{ MAGIC("\xfd" "7zXZ"), .code = SW_ERR_FORMAT,
	  .what = "an xz-compressed file: decompress it first" },
	{ MAGIC("\x28\xb5\x2f\xfd"), .code = SW_ERR_FORMAT,
	  .what = "a zstd-compressed file: decompress it first" },
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

/* The first bytes a gzip file inflates to: how many were written to out
 * (0 when head is not gzip, or its start does not inflate). zlib rather
 * than symbols/gz.c, which inflates whole files: only the head is at hand
 * here, and a few bytes of output are all that is wanted. */
static size_t gz_peek(struct sw_span head, uint8_t *out, size_t cap)
{
	if (!sw_span_has(head, 0, 2) || head.data[0] != 0x1f || head.data[1] != 0x8b)
		return 0;
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return 0;
	zs.next_in = (Bytef *)head.data;
	zs.avail_in = (uInt)head.size;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	(void)inflate(&zs, Z_NO_FLUSH); /* what it wrote counts, whatever it says */
	size_t got = cap - zs.avail_out;
	inflateEnd(&zs);
	return got;
}

/* The first row of the table that names what head is, or NULL. */
static const struct refused_kind *refused_kind_of(struct sw_span head)
{
	uint8_t inner[OPEN_GZ_PEEK];
	struct sw_span gz = { inner, gz_peek(head, inner, sizeof inner), 0, false };
	for (size_t i = 0; i < sizeof refused_kinds / sizeof *refused_kinds; i++) {
		const struct refused_kind *k = &refused_kinds[i];
		if (refused_kind_matches(k, k->in_gzip ? gz : head))
			return k;
	}
	return NULL;
}

/* The one-line refusal of a file no reader takes: what it is, by the table;
 * else its first bytes. */
static enum sw_err_code refuse_unread_file(const char *path, struct sw_span head,
                                           struct sw_err *err)
{
	if (head.size == 0)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: empty file, not a snapshot", path);
	const struct refused_kind *k = refused_kind_of(head);
	if (k)
		return sw_err_set(err, k->code, "%s: %s", path, k->what);
	char hex[4 * 3 + 1] = "";
	size_t len = 0;
	for (unsigned i = 0; i < 4 && i < head.size; i++)
		len += (size_t)snprintf(hex + len, sizeof hex - len, "%s%02x", i ? " " : "",
		                        head.data[i]);
	return sw_err_set(err, SW_ERR_FORMAT,
	                  "%s: not a snapshot stackwalk reads (starts with %s; expected a "
	                  "minidump, a microdump log, an ELF core, an ESP-IDF core dump, a .snap "
	                  "file or an offline capture folder)",
	                  path, hex);
}

/* Reads the first bytes of path (up to cap; *n of them) after making sure
 * it is a regular file. */
static enum sw_err_code read_head(const char *path, uint8_t *buf, size_t cap, size_t *n,
                                  struct sw_err *err)
{
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
	close(fd);
	return SW_OK;
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
	/* A folder holding regs.txt and maps.txt is an offline capture, one
	 * holding regs.txt and mem-*.bin files a debug probe's; other folders
	 * are refused below. */
	if (sw_offline_is_folder(path))
		return sw_offline_read_with(path, opts, out, err);
	uint8_t head[OPEN_HEAD_SIZE];
	size_t n;
	enum sw_err_code rc = read_head(path, head, sizeof head, &n, err);
	if (rc != SW_OK)
		return rc;
	/* Each reader's magic check, in turn; then what no reader takes. */
	if (sw_snap_is(head, n))
		return sw_snap_read(path, opts, out, err);
	if (sw_minidump_is(head, n))
		return sw_minidump_read(path, out, err);
	if (sw_microdump_is(head, n))
		return sw_microdump_read(path, NULL, out, err);
	if (sw_elfcore_is(head, n))
		return sw_elfcore_read(path, opts, out, err);
	if (sw_espcore_is(head, n))
		return sw_espcore_read(path, opts, out, err);
	/* Text that holds no other snapshot and is no known other kind (a
	 * .sym file): an ESP32's console log may print its core dump after
	 * kilobytes of boot messages. */
	struct sw_span h = { head, n, 0, false };
	if (n > 0 && !memchr(head, '\0', n) && !refused_kind_of(h) &&
	    sw_espcore_text_holds_dump(path))
		return sw_espcore_read(path, opts, out, err);
	return refuse_unread_file(path, h, err);
}

enum sw_err_code sw_snapshot_open_part(const char *path, const struct sw_part *part,
                                       struct sw_snapshot *out, struct sw_err *err)
{
	/* Only microdump logs hold several snapshots (sw_snapshot.has_next). */
	return sw_microdump_read(path, part, out, err);
}
