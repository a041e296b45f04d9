/* Output sinks: stdout, or a file named on the command line, written so
 * that the report appears only complete and nothing the name points at is
 * harmed (output_sink.h has the rules). As root, a rename over /dev/null
 * would replace the device with a regular file for the whole system: only
 * regular files are ever renamed over. */
#include "output_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Links followed before giving up, as the kernel's own limit (ELOOP). */
enum { MAX_LINKS = 40 };

static bool say(const struct sink *k, const char *what, int err)
{
	fprintf(stderr, "stackwalk: %s: %s: %s\n", k->path, what, strerror(err));
	return false;
}

/* The link's target read as a path: relative to the link's folder. */
static char *link_target(const char *link)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(link, buf, sizeof buf - 1);
	if (n < 0)
		return NULL;
	if (n == (ssize_t)sizeof buf - 1) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	buf[n] = '\0';
	const char *slash = strrchr(link, '/');
	size_t dir = buf[0] == '/' || !slash ? 0 : (size_t)(slash - link) + 1;
	char *p = malloc(dir + (size_t)n + 1);
	if (!p)
		return NULL;
	memcpy(p, link, dir);
	memcpy(p + dir, buf, (size_t)n + 1);
	return p;
}

/* Follows path's symbolic links to the name at the end of the chain, which
 * may not exist yet (a dangling link: the report is created there). NULL
 * with errno on failure; *st is that name's lstat, st_mode 0 if absent. */
static char *follow_links(const char *path, struct stat *st)
{
	char *cur = strdup(path);
	for (int i = 0; cur && i <= MAX_LINKS; i++) {
		if (lstat(cur, st) != 0) {
			if (errno != ENOENT)
				break;
			st->st_mode = 0;
			return cur;
		}
		if (!S_ISLNK(st->st_mode))
			return cur;
		char *next = i < MAX_LINKS ? link_target(cur) : (errno = ELOOP, NULL);
		free(cur);
		cur = next;
	}
	int err = errno;
	free(cur);
	errno = err;
	return NULL;
}

/* Writes through what path names, in place (a device, a FIFO, a file
 * reached through /proc's fd links). */
static bool open_in_place(struct sink *k)
{
	int fd = open(k->path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return say(k, "cannot open", errno);
	if (!(k->f = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		return say(k, "cannot open", err);
	}
	return true;
}

/* A temporary beside final_path, with mode (an existing file's, else a new
 * file's usual one: mkstemp makes it 0600). */
static bool open_temporary(struct sink *k, mode_t mode)
{
	size_t n = strlen(k->final_path) + sizeof ".tmp-XXXXXX";
	if (!(k->tmp_path = malloc(n)))
		return say(k, "cannot create", ENOMEM);
	snprintf(k->tmp_path, n, "%s.tmp-XXXXXX", k->final_path);
	int fd = mkstemp(k->tmp_path);
	int err = errno;
	if (fd >= 0 && (fchmod(fd, mode) != 0 || !(k->f = fdopen(fd, "w")))) {
		err = errno;
		close(fd);
		unlink(k->tmp_path);
		fd = -1;
	}
	if (fd < 0) {
		free(k->tmp_path);
		k->tmp_path = NULL;
		return say(k, "cannot create", err);
	}
	return true;
}

bool sink_open(struct sink *k, const char *path)
{
	memset(k, 0, sizeof *k);
	k->path = path;
	if (!path) {
		k->f = stdout;
		return true;
	}
	/* What the name finally is, links followed by the kernel: what is
	 * not a regular file is written in place. */
	struct stat target;
	bool exists = stat(path, &target) == 0;
	if (!exists && errno != ENOENT)
		return say(k, "cannot create", errno);
	if (exists && S_ISDIR(target.st_mode))
		return say(k, "cannot create", EISDIR);
	if (exists && !S_ISREG(target.st_mode))
		return open_in_place(k);
	/* A regular file, or none yet: the name to rename over is where the
	 * links end, so a link stays a link. A link the kernel resolves but
	 * no path reaches (/dev/stdout -> /proc/self/fd/1 -> a shell's
	 * redirection) is written in place. */
	struct stat end;
	if (!(k->final_path = follow_links(path, &end)))
		return say(k, "cannot create", errno);
	if (exists && (end.st_dev != target.st_dev || end.st_ino != target.st_ino)) {
		free(k->final_path);
		k->final_path = NULL;
		return open_in_place(k);
	}
	mode_t mask = umask(0);
	umask(mask);
	if (open_temporary(k, exists ? target.st_mode & 07777 : 0666 & ~mask))
		return true;
	free(k->final_path);
	k->final_path = NULL;
	return false;
}

/* Has stdout's reader closed the pipe? A write then fails with EPIPE
 * (SIGPIPE is ignored), and poll reports POLLERR on the write end, which
 * stays true when stdio's errno was overwritten since. */
static bool pipe_reader_gone(int fd, int err)
{
	if (err == EPIPE)
		return true;
	struct pollfd p = { .fd = fd, .events = 0 };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

void sink_write_failed(struct sink *k, int err)
{
	if (!k->path && pipe_reader_gone(fileno(k->f), err))
		k->reader_gone = true;
	if (k->reader_gone || k->failed)
		return;
	if (k->path)
		say(k, "cannot write", err ? err : EIO);
	else
		fprintf(stderr, "stackwalk: cannot write the output: %s\n", strerror(err ? err : EIO));
	k->failed = true;
}

bool sink_check(struct sink *k)
{
	if (k->reader_gone)
		return true;
	if (k->failed)
		return false;
	/* A write that already failed (a large one that bypassed the
	 * buffer, leaving nothing for fflush to retry) left its reason in
	 * errno: no stdio call has come since. */
	int err = ferror(k->f) ? errno : 0;
	if (!ferror(k->f)) {
		errno = 0;
		if (fflush(k->f) == 0 && !ferror(k->f))
			return true;
		err = errno;
	}
	sink_write_failed(k, err);
	return k->reader_gone;
}

/* Renames k's temporary over its final name, unless that name became
 * something other than a regular file while the report was written. */
static bool rename_into_place(struct sink *k)
{
	struct stat st;
	if (lstat(k->final_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "stackwalk: %s: not replaced: no longer a regular file\n", k->path);
		return false;
	}
	if (rename(k->tmp_path, k->final_path) != 0)
		return say(k, "cannot create", errno);
	return true;
}

bool sink_close(struct sink *k, bool keep)
{
	if (!k->f)
		return true;
	if (!k->path) {
		bool ok = sink_check(k);
		k->f = NULL;
		return ok;
	}
	bool ok = !keep || sink_check(k);
	if (fclose(k->f) != 0 && ok && keep)
		ok = say(k, "cannot write", errno);
	k->f = NULL;
	if (k->tmp_path) {
		if (ok && keep)
			ok = rename_into_place(k);
		if (!ok || !keep)
			unlink(k->tmp_path);
	}
	free(k->tmp_path);
	free(k->final_path);
	k->tmp_path = k->final_path = NULL;
	return ok;
}
