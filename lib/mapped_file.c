#include "mapped_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int sw_open_regular_file(const char *path, unsigned *mode)
{
	struct stat st;
	*mode = 0;
	if (stat(path, &st) != 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		*mode = st.st_mode & S_IFMT;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*mode = st.st_mode & S_IFMT;
		return -1;
	}
	return fd;
}

/* Descriptors kept open for sw_mapped_peek: a bound well under the usual
 * limit of 1,024 open files, which a dump of hundreds of modules with
 * their debug files would otherwise reach. Past it files are mapped
 * without one (peeks then read through the mapping). The bound is the
 * process's: threads walking snapshots at once (stackwalk --batch) share
 * it, so the count is atomic. */
enum { MAX_KEPT_DESCRIPTORS = 256 };
static atomic_uint kept_descriptors;

/* Takes one of the descriptors kept, if any is left. */
static bool keep_descriptor(void)
{
	unsigned n = atomic_load_explicit(&kept_descriptors, memory_order_relaxed);
	while (n < MAX_KEPT_DESCRIPTORS)
		if (atomic_compare_exchange_weak_explicit(&kept_descriptors, &n, n + 1,
		                                          memory_order_relaxed, memory_order_relaxed))
			return true;
	return false;
}

/* Maps the regular file fd (named path in messages). The mapping keeps
 * fd when a descriptor may be kept (own: fd is ours to keep or close;
 * else a duplicate is kept and fd left to the caller). */
static enum sw_err_code map_descriptor(int fd, bool own, const char *path,
                                       struct sw_mapped_file *out, struct sw_err *err)
{
	*out = (struct sw_mapped_file){ .fd = -1 };
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		if (own)
			close(fd);
		return sw_err_set(err, SW_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		if (own)
			close(fd);
		return sw_err_set(err, SW_ERR_IO, "%s: not a regular file", path);
	}
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			if (own)
				close(fd);
			return sw_err_set(err, SW_ERR_IO, "%s: cannot map: %s", path, strerror(e));
		}
		out->data = p;
		out->size = (size_t)st.st_size;
		if (keep_descriptor()) {
			int kept = own ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
			if (kept >= 0) {
				out->fd = kept;
				out->has_fd = true;
				return SW_OK;
			}
			atomic_fetch_sub_explicit(&kept_descriptors, 1, memory_order_relaxed);
		}
	}
	if (own)
		close(fd);
	return SW_OK;
}

enum sw_err_code sw_map_file(const char *path, struct sw_mapped_file *out,
                             struct sw_err *err)
{
	*out = (struct sw_mapped_file){ .fd = -1 };
	unsigned mode;
	int fd = sw_open_regular_file(path, &mode);
	if (fd < 0 && S_ISDIR(mode))
		return sw_err_set(err, SW_ERR_IO, "%s: is a directory, not a file", path);
	if (fd < 0 && mode)
		return sw_err_set(err, SW_ERR_IO, "%s: not a regular file", path);
	if (fd < 0)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	return map_descriptor(fd, true, path, out, err);
}

enum sw_err_code sw_map_fd(int fd, const char *name, struct sw_mapped_file *out,
                           struct sw_err *err)
{
	return map_descriptor(fd, false, name, out, err);
}

void sw_unmap_file(struct sw_mapped_file *m)
{
	if (m->data)
		munmap((void *)m->data, m->size);
	if (m->has_fd) {
		close(m->fd);
		atomic_fetch_sub_explicit(&kept_descriptors, 1, memory_order_relaxed);
	}
	*m = (struct sw_mapped_file){ .fd = -1 };
}

bool sw_is_regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool sw_is_directory(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool sw_make_dirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return false;
		*p = c;
		if (c == '\0')
			return true;
	}
}

/* A transfer of at most 1 GiB: a count past SSIZE_MAX is not portable. */
static size_t chunk(uint64_t n)
{
	return n < (1u << 30) ? (size_t)n : (1u << 30);
}

bool sw_pread_all(int fd, void *out, uint64_t n, uint64_t off)
{
	uint8_t *p = out;
	while (n > 0) {
		ssize_t r = pread(fd, p, chunk(n), (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (uint64_t)r;
		off += (uint64_t)r;
	}
	return true;
}

bool sw_pwrite_all(int fd, const void *p, uint64_t n, uint64_t off)
{
	const uint8_t *q = p;
	while (n > 0) {
		ssize_t r = pwrite(fd, q, chunk(n), (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		q += r;
		n -= (uint64_t)r;
		off += (uint64_t)r;
	}
	return true;
}

void sw_remove_stale_files(const char *dir, const char *marker, long max_age_s)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	int dfd = dirfd(d);
	time_t now = time(NULL);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (strstr(de->d_name, marker) &&
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    now - st.st_mtime > max_age_s)
			unlinkat(dfd, de->d_name, 0);
	}
	closedir(d);
}

void sw_mapped_release(const struct sw_mapped_file *m, const void *p, uint64_t n)
{
	const uint8_t *b = p;
	if (!m || !m->data || !b || b < m->data || n > m->size ||
	    (size_t)(b - m->data) > m->size - n)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)b + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)b + (uintptr_t)n) & ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void sw_mapped_peek(const struct sw_mapped_file *m, const void *p, size_t n, void *out)
{
	const uint8_t *b = p;
	if (m && m->has_fd && b >= m->data && n <= m->size &&
	    (size_t)(b - m->data) <= m->size - n) {
		ssize_t got = pread(m->fd, out, n, (off_t)(b - m->data));
		if (got == (ssize_t)n)
			return;
	}
	memcpy(out, p, n);
}

size_t sw_mapped_strnlen(const struct sw_mapped_file *m, const char *p, size_t max)
{
	const uint8_t *b = (const uint8_t *)p;
	if (!m || !m->has_fd || b < m->data || max > m->size ||
	    (size_t)(b - m->data) > m->size - max)
		return strnlen(p, max);
	/* Names are mostly short: one read of a chunk finds most ends. */
	char chunk[256];
	size_t len = 0;
	while (len < max) {
		size_t n = max - len < sizeof chunk ? max - len : sizeof chunk;
		sw_mapped_peek(m, p + len, n, chunk);
		const char *nul = memchr(chunk, '\0', n);
		if (nul)
			return len + (size_t)(nul - chunk);
		len += n;
	}
	return max;
}
