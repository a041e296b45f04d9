/* Keeping the symbol cache to a size (cache_prune.h). */
#include "cache_prune.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/file_lock.h"
#include "lib/path.h"

void sw_cache_touch(int fd, const struct stat *st)
{
	if (fd >= 0 && st && time(NULL) - st->st_mtime >= SW_CACHE_TOUCH_EVERY_S)
		futimens(fd, NULL);
}

void sw_cache_touch_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && time(NULL) - st.st_mtime >= SW_CACHE_TOUCH_EVERY_S)
		utimensat(AT_FDCWD, path, NULL, 0);
}

/* What may be removed as one: a module folder, or a section file. */
struct unit {
	char *path;
	uint64_t bytes;
	time_t used;               /* newest mtime */
	bool folder;
};

struct units {
	struct unit *v;
	size_t n, cap;
	uint64_t bytes;
};

static bool add_unit(struct units *u, const char *path, uint64_t bytes, time_t used, bool folder)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 64;
		struct unit *v = realloc(u->v, cap * sizeof *v);
		if (!v)
			return false;
		u->v = v;
		u->cap = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return false;
	u->v[u->n++] = (struct unit){ copy, bytes, used, folder };
	u->bytes += bytes;
	return true;
}

/* Names a pruner leaves: lock files (removing one while another process
 * opens it would let two processes lock two files: lib/file_lock.h) and
 * files being written (removed by their own rules when stale). */
static bool left_alone(const char *name)
{
	size_t n = strlen(name);
	return (n >= 5 && strcmp(name + n - 5, ".lock") == 0) || strstr(name, ".tmp") != NULL;
}

/* Which entries of a folder each_entry passes on. */
enum entry_kind { ENTRY_FILE, ENTRY_FOLDER };

/* The entries of folder dir of one kind, by lstat (links are neither),
 * each passed to fn with its path and stat, but names starting with a dot
 * (".", "..", and the cache's own: locks, downloads being written) and
 * files a pruner leaves alone; fn false stops, and makes it false. A
 * folder that cannot be read has no entries. */
static bool each_entry(const char *dir, enum entry_kind kind,
                       bool (*fn)(const char *path, const struct stat *st, void *), void *ctx)
{
	DIR *d = opendir(dir);
	if (!d)
		return true;
	bool ok = true;
	struct dirent *e;
	char p[4096];
	while (ok && (e = readdir(d)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.' || (kind == ENTRY_FILE && left_alone(e->d_name)) ||
		    !sw_path_printf(p, sizeof p, "%s/%s", dir, e->d_name) || lstat(p, &st) != 0 ||
		    !(kind == ENTRY_FILE ? S_ISREG(st.st_mode) : S_ISDIR(st.st_mode)))
			continue;
		ok = fn(p, &st, ctx);
	}
	closedir(d);
	return ok;
}

struct folder_sum {
	uint64_t bytes;
	time_t used;
};

static bool sum_file(const char *path, const struct stat *st, void *ctx)
{
	(void)path;
	struct folder_sum *s = ctx;
	s->bytes += (uint64_t)st->st_size;
	if (st->st_mtime > s->used)
		s->used = st->st_mtime;
	return true;
}

/* DIR/elf-sections: one unit per section file. */
static bool add_section(const char *path, const struct stat *st, void *ctx)
{
	return add_unit(ctx, path, (uint64_t)st->st_size, st->st_mtime, false);
}

/* DIR/NAME: one unit per DIR/NAME/ID folder. */
static bool add_module_folder(const char *path, const struct stat *st, void *ctx)
{
	struct folder_sum sum = { 0, st->st_mtime };
	each_entry(path, ENTRY_FILE, sum_file, &sum);
	return sum.bytes == 0 || add_unit(ctx, path, sum.bytes, sum.used, true);
}

static bool add_top_folder(const char *path, const struct stat *st, void *ctx)
{
	(void)st;
	const char *name = strrchr(path, '/') + 1;
	return each_entry(path, strcmp(name, "elf-sections") == 0 ? ENTRY_FILE : ENTRY_FOLDER,
	                  strcmp(name, "elf-sections") == 0 ? add_section : add_module_folder, ctx);
}

static bool list_units(struct units *u, const char *dir)
{
	return each_entry(dir, ENTRY_FOLDER, add_top_folder, u);
}

static int by_last_use(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->path, y->path); /* the same order in every run */
}

struct removal {
	uint64_t bytes;
	unsigned files;
};

static bool remove_file(const char *path, const struct stat *st, void *ctx)
{
	struct removal *r = ctx;
	if (unlink(path) == 0) {
		r->bytes += (uint64_t)st->st_size;
		r->files++;
	}
	return true;
}

/* Removes unit's files: what was removed (a file that vanished meanwhile
 * is not counted). The folder itself stays: a process may be making a
 * file in it right now, and an empty folder costs nothing. */
static struct removal remove_unit(const struct unit *un)
{
	struct removal r = { 0, 0 };
	if (un->folder) {
		each_entry(un->path, ENTRY_FILE, remove_file, &r);
	} else {
		struct stat st;
		if (lstat(un->path, &st) == 0)
			remove_file(un->path, &st, &r);
	}
	return r;
}

bool sw_cache_prune(const char *dir, uint64_t max_bytes, time_t now, long keep_recent_s,
                    struct sw_cache_prune_result *res)
{
	memset(res, 0, sizeof *res);
	char lock_path[4096];
	int lock_fd = -1;
	if (!sw_path_printf(lock_path, sizeof lock_path, "%s/.prune.lock", dir) ||
	    sw_file_lock_take(lock_path, 0, &lock_fd) != SW_LOCK_TAKEN)
		return true;
	res->ran = true;
	struct units u = { 0 };
	bool ok = list_units(&u, dir);
	res->bytes_before = res->bytes_after = u.bytes;
	uint64_t target = max_bytes - max_bytes / 8;
	if (ok && u.bytes > max_bytes) {
		qsort(u.v, u.n, sizeof *u.v, by_last_use);
		for (size_t i = 0; i < u.n && res->bytes_after > target; i++) {
			if (u.v[i].used > now - keep_recent_s)
				break; /* the rest were used more recently still */
			struct removal r = remove_unit(&u.v[i]);
			res->bytes_after -= r.bytes < res->bytes_after ? r.bytes : res->bytes_after;
			res->removed += r.files;
		}
	}
	for (size_t i = 0; i < u.n; i++)
		free(u.v[i].path);
	free(u.v);
	close(lock_fd);
	return ok;
}
