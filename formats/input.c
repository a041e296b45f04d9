/* A snapshot decompressed or copied into a bounded, unlinked temporary
 * file (formats/input.h). The bytes go through one fixed buffer on their
 * way to the file: a 30 GB core takes no more memory than a small one. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	/* The buffer between decoder and temporary file. */
	SPILL_BUFFER = 256 * 1024,
	/* The bytes of stdin read to tell whether it is compressed. */
	STDIN_MAGIC = 8,
};

void sw_input_size_text(uint64_t n, char *buf, size_t size)
{
	static const struct {
		unsigned shift;
		const char *unit;
	} units[] = { { 40, "TiB" }, { 30, "GiB" }, { 20, "MiB" }, { 10, "KiB" } };
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (n >= (uint64_t)1 << units[i].shift && n % ((uint64_t)1 << units[i].shift) == 0) {
			snprintf(buf, size, "%llu %s", (unsigned long long)(n >> units[i].shift),
			         units[i].unit);
			return;
		}
	snprintf(buf, size, "%llu bytes", (unsigned long long)n);
}

static const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");
	return dir && *dir ? dir : "/tmp";
}

/* A new temporary file in dir that has no name: O_TMPFILE where the file
 * system has it, else a name removed at once. Nothing is left behind
 * whatever happens to the process. -1 with errno. */
static int make_temporary(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof path, "%s/stackwalk-XXXXXX", dir) >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static enum sw_err_code over_limit(const char *name, enum sw_compression c, uint64_t max,
                                   struct sw_err *err)
{
	char limit[32];
	sw_input_size_text(max, limit, sizeof limit);
	return sw_err_set(err, SW_ERR_FORMAT,
	                  "%s: %s%s more than %s, the limit for a snapshot read this way "
	                  "(--max-decompressed=SIZE raises it)",
	                  name, sw_compression_name(c),
	                  c == SW_COMPRESSION_NONE ? "holds" : "-compressed, decompresses to", limit);
}

static enum sw_err_code write_failed(const char *name, struct sw_err *err)
{
	/* pwrite of 0 bytes sets no errno: a full file system. */
	int e = errno ? errno : ENOSPC;
	return sw_err_set(err, SW_ERR_IO, "%s: cannot write a temporary file in %s: %s%s", name,
	                  temp_dir(), strerror(e),
	                  e == ENOSPC || e == EFBIG || e == EDQUOT
	                          ? " (TMPDIR chooses another folder)" : "");
}

/* Copies head and the rest of dec into fd, at most max bytes. */
static enum sw_err_code pump(struct sw_decoder *dec, enum sw_compression c, const char *name,
                             const uint8_t *head, size_t nhead, uint64_t max, int fd,
                             struct sw_err *err)
{
	if (nhead > max)
		return over_limit(name, c, max, err);
	errno = 0;
	if (nhead && !sw_pwrite_all(fd, head, nhead, 0))
		return write_failed(name, err);
	uint8_t *buf = malloc(SPILL_BUFFER);
	if (!buf)
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
	uint64_t total = nhead;
	enum sw_err_code rc = SW_OK;
	for (;;) {
		/* One byte past the limit is enough to know it is passed. */
		size_t want = max - total < SPILL_BUFFER ? (size_t)(max - total) + 1 : SPILL_BUFFER;
		size_t n;
		if ((rc = sw_decoder_read(dec, buf, want, &n, err)) != SW_OK || n == 0)
			break;
		if (n > max - total) {
			rc = over_limit(name, c, max, err);
			break;
		}
		errno = 0;
		if (!sw_pwrite_all(fd, buf, n, total)) {
			rc = write_failed(name, err);
			break;
		}
		total += n;
	}
	free(buf);
	return rc;
}

enum sw_err_code sw_input_spill(struct sw_decoder *dec, enum sw_compression c, const char *name,
                                const uint8_t *head, size_t nhead, uint64_t max,
                                struct sw_input *in, struct sw_err *err)
{
	*in = (struct sw_input){ .fd = -1 };
	if (!max)
		max = SW_INPUT_MAX_DEFAULT;
	int fd = make_temporary(temp_dir());
	if (fd < 0)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot make a temporary file in %s: %s", name,
		                  temp_dir(), strerror(errno));
	enum sw_err_code rc = pump(dec, c, name, head, nhead, max, fd, err);
	if (rc != SW_OK) {
		close(fd);
		return rc;
	}
	*in = (struct sw_input){ .fd = fd, .owned = true, .compression = c };
	return SW_OK;
}

/* Bytes of fd read until n or its end; false on a read error. */
static bool read_full(int fd, uint8_t *buf, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		ssize_t r = read(fd, buf + *got, n - *got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return true;
}

enum sw_err_code sw_input_stdin(uint64_t max, struct sw_input *in, struct sw_err *err)
{
	*in = (struct sw_input){ .fd = -1 };
	const char *name = SW_INPUT_STDIN_NAME;
	struct stat st;
	if (fstat(STDIN_FILENO, &st) != 0)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot read: %s", name, strerror(errno));
	/* A regular file is the snapshot from its byte 0, whatever offset the
	 * shell left it at; it is read again from there. */
	bool regular = S_ISREG(st.st_mode);
	if (regular && lseek(STDIN_FILENO, 0, SEEK_SET) != 0)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot seek: %s", name, strerror(errno));
	uint8_t magic[STDIN_MAGIC];
	size_t n;
	if (!read_full(STDIN_FILENO, magic, sizeof magic, &n))
		return sw_err_set(err, SW_ERR_IO, "%s: cannot read: %s", name, strerror(errno));
	enum sw_compression c = sw_compression_of(magic, n);
	if (regular && c == SW_COMPRESSION_NONE) {
		*in = (struct sw_input){ .fd = STDIN_FILENO };
		return SW_OK;
	}
	struct sw_decoder *dec = sw_decoder_new(c, STDIN_FILENO, magic, n, name, err);
	if (!dec)
		return SW_ERR_NOMEM;
	enum sw_err_code rc = sw_input_spill(dec, c, name, NULL, 0, max, in, err);
	sw_decoder_free(dec);
	return rc;
}

enum sw_err_code sw_input_map(const char *path, const struct sw_input *in,
                              struct sw_mapped_file *out, struct sw_err *err)
{
	if (in && in->fd >= 0)
		return sw_map_fd(in->fd, path, out, err);
	return sw_map_file(path, out, err);
}

void sw_input_close(struct sw_input *in)
{
	if (in->owned && in->fd >= 0)
		close(in->fd);
	*in = (struct sw_input){ .fd = -1 };
}
