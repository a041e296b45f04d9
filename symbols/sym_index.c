/* The symbol index file (sym_index.h, docs/symbol-cache.md): where it
 * lives, how it is written atomically, and how every byte read from it is
 * checked before use. */
#include "sym_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_prune.h"
#include "lib/file_lock.h"
#include "lib/fnv.h"
#include "lib/mapped_file.h"

/* ---- the file format ---------------------------------------------------- */

#define SYM_INDEX_MAGIC "SWSYMIX\n"
enum {
	SYM_INDEX_VERSION = 4,
	BYTE_ORDER_TAG = 0x01020304,  /* written in host order: another order reads as stale */
	BLOCK_SHIFT = 16,             /* 64 KiB checksum blocks */
	BLOCK = 1 << BLOCK_SHIFT,
	PAGE = 4096,
	SECTION_ALIGN = 64,
	DEBUG_FILE_MAX = 256,
	DEBUG_ID_MAX = 64,
	STALE_TEMP_SECONDS = 3600,    /* a .tmp. file this old is a killed writer's */
	/* How long a process waits for another's build of the same index
	 * before it parses the source itself (a builder stopped in a
	 * debugger must not stop every shard). */
	BUILD_WAIT_MS = 60 * 1000,
};

struct file_section {
	uint64_t off, count, elem;
};

/* All fields host-endian (byte_order tells); header_crc is the CRC-32 of
 * the header with header_crc zero, tables_crc that of the CRC table. The
 * record arrays, [data_off, data_off + checked_len), are checked per BLOCK
 * by the table at crc_off (nblocks entries). The decoded section and the
 * text (after them in the file; the text may be the plain source) are
 * checked per record, by the CRC each record carries, and whole by
 * decoded_crc and text_crc (sym_index_check_all). */
struct file_header {
	char magic[8];
	uint32_t version, header_size;
	uint32_t byte_order, block_shift;
	uint64_t file_size;
	/* the key */
	uint64_t src_size, src_mtime_ns, src_ctime_ns, src_ino, src_dev;
	char debug_file[DEBUG_FILE_MAX];
	char debug_id[DEBUG_ID_MAX];
	/* the layout */
	uint64_t data_off, checked_len, nblocks, crc_off;
	uint64_t text_len, text_in_file;
	struct file_section sec[SYM_SEC_COUNT];
	uint64_t meta[SYM_INDEX_NMETA];
	uint32_t text_crc, tables_crc, header_crc, decoded_crc;
};

enum block_state { BLOCK_UNCHECKED, BLOCK_GOOD, BLOCK_BAD };

/* The source's identity: what the key pins. */
struct src_id {
	uint64_t size, mtime_ns, ctime_ns, ino, dev;
};

static struct src_id src_id_of(const struct stat *st)
{
	return (struct src_id){
		.size = (uint64_t)st->st_size,
		.mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec,
		.ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec,
		.ino = (uint64_t)st->st_ino,
		.dev = (uint64_t)st->st_dev,
	};
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

static uint64_t nblocks_of(uint64_t len)
{
	return (len + BLOCK - 1) >> BLOCK_SHIFT;
}

static uint32_t header_crc(const struct file_header *h)
{
	struct file_header copy = *h;
	copy.header_crc = 0;
	return libdeflate_crc32(0, &copy, sizeof copy);
}

/* ---- the cache directory ------------------------------------------------ */

struct sw_sym_cache {
	char *dir;
	atomic_bool write_off;      /* a write failed: warned once, no more tries */
	atomic_bool added;          /* an index was written (sw_sym_cache_added) */
	atomic_uint serial;         /* temporary names made by this process */
	/* Indexes this process's threads are building (sym_index_build_claim),
	 * under builds_lock; build_ended is signalled when one ends. */
	pthread_mutex_t builds_lock;
	pthread_cond_t build_ended;
	struct sym_index_build *builds;
	/* sym_index_cache_turn: writers at their heavy part, and how many may
	 * be (one per CPU), under builds_lock; build_ended also signals a
	 * turn's end. */
	unsigned writing, max_writing;
};

/* One index being built: the module and source it is for, and the lock
 * that tells other processes (-1: none). */
struct sym_index_build {
	struct sym_index_build *next;
	char *src, *debug_file, *debug_id;
	int lock_fd;
};

struct sw_sym_cache *sw_sym_cache_create(const char *dir, struct sw_err *err)
{
	char buf[4096];
	if (!dir) {
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		int n;
		/* XDG Base Directory spec: a relative $XDG_CACHE_HOME is invalid
		 * and is ignored. */
		if (xdg && xdg[0] == '/')
			n = snprintf(buf, sizeof buf, "%s/stackwalk", xdg);
		else if (home && *home)
			n = snprintf(buf, sizeof buf, "%s/.cache/stackwalk", home);
		else {
			sw_err_set(err, SW_ERR_USAGE,
			           "symbol cache off: neither XDG_CACHE_HOME nor HOME is set");
			return NULL;
		}
		if (n < 0 || (size_t)n >= sizeof buf) {
			sw_err_set(err, SW_ERR_USAGE, "symbol cache off: its path is too long");
			return NULL;
		}
		dir = buf;
	}
	struct sw_sym_cache *c = calloc(1, sizeof *c);
	if (c)
		c->dir = strdup(dir);
	if (c && c->dir && pthread_mutex_init(&c->builds_lock, NULL) != 0) {
		free(c->dir);
		c->dir = NULL;
	}
	if (c && c->dir && pthread_cond_init(&c->build_ended, NULL) != 0) {
		pthread_mutex_destroy(&c->builds_lock);
		free(c->dir);
		c->dir = NULL;
	}
	if (!c || !c->dir) {
		free(c);
		sw_err_set(err, SW_ERR_NOMEM, "symbol cache: out of memory");
		return NULL;
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->max_writing = cpus < 1 ? 1 : cpus > 8 ? 8 : (unsigned)cpus;
	return c;
}

bool sw_sym_cache_added(struct sw_sym_cache *c)
{
	return c && atomic_load(&c->added);
}

void sw_sym_cache_free(struct sw_sym_cache *c)
{
	if (!c)
		return;
	while (c->builds) { /* claims never ended: none when every walk ended */
		struct sym_index_build *b = c->builds;
		c->builds = b->next;
		if (b->lock_fd >= 0)
			close(b->lock_fd);
		free(b);
	}
	pthread_cond_destroy(&c->build_ended);
	pthread_mutex_destroy(&c->builds_lock);
	free(c->dir);
	free(c);
}

static bool same_build(const struct sym_index_build *b, const char *src, const char *debug_file,
                       const char *debug_id)
{
	return strcmp(b->src, src) == 0 && strcmp(b->debug_file, debug_file) == 0 &&
	       strcmp(b->debug_id, debug_id) == 0;
}

static bool index_path(const struct sw_sym_cache *c, const char *src, const char *debug_file,
                       const char *debug_id, bool file, char *out, size_t n);

/* Processes sharing the cache directory (a pipeline's shards, each a
 * --batch) share builds as the threads of one do: the builder holds the
 * lock of the index's name + ".lock" (lib/file_lock.h) from its claim
 * until its index is written or given up; a process that finds it held
 * waits for it, then opens the index instead of parsing the source. True
 * when another process held it: open the index. False: this process
 * builds, holding the lock when it could be taken (a cache it cannot
 * write, or a wait past BUILD_WAIT_MS, builds without). */
static bool another_process_built(struct sw_sym_cache *c, struct sym_index_build *b)
{
	char dir[4096], path[4096 + 8];
	if (atomic_load(&c->write_off) ||
	    !index_path(c, b->src, b->debug_file, b->debug_id, false, dir, sizeof dir) ||
	    !index_path(c, b->src, b->debug_file, b->debug_id, true, path, sizeof path - 8) ||
	    !sw_make_dirs(dir))
		return false;
	char index[sizeof path];
	snprintf(index, sizeof index, "%s", path);
	strcat(path, ".lock");
	enum sw_file_lock got = sw_file_lock_take(path, BUILD_WAIT_MS, &b->lock_fd);
	/* Taken, but another process may have written the index since this
	 * one looked, and let go before it asked: open that instead. */
	if (got == SW_LOCK_TAKEN && access(index, F_OK) == 0) {
		close(b->lock_fd);
		b->lock_fd = -1;
		return true;
	}
	return got == SW_LOCK_WAITED;
}

bool sym_index_build_claim(struct sw_sym_cache *c, const char *src, const char *debug_file,
                           const char *debug_id, struct sym_index_build **claim)
{
	*claim = NULL;
	size_t ls = strlen(src) + 1, lf = strlen(debug_file) + 1, li = strlen(debug_id) + 1;
	struct sym_index_build *mine = malloc(sizeof *mine + ls + lf + li);
	if (mine) {
		mine->src = (char *)(mine + 1);
		mine->debug_file = mine->src + ls;
		mine->debug_id = mine->debug_file + lf;
		memcpy(mine->src, src, ls);
		memcpy(mine->debug_file, debug_file, lf);
		memcpy(mine->debug_id, debug_id, li);
		mine->lock_fd = -1;
	}
	bool waited = false;
	pthread_mutex_lock(&c->builds_lock);
	for (;;) {
		const struct sym_index_build *b = c->builds;
		while (b && !same_build(b, src, debug_file, debug_id))
			b = b->next;
		if (!b)
			break;
		waited = true;
		pthread_cond_wait(&c->build_ended, &c->builds_lock);
	}
	if (!waited && mine) {
		mine->next = c->builds;
		c->builds = mine;
		*claim = mine;
		mine = NULL;
	}
	pthread_mutex_unlock(&c->builds_lock);
	free(mine);
	if (waited || !*claim || !another_process_built(c, *claim))
		return !waited;
	/* This process's other threads wait on the claim: they open the
	 * index too. */
	sym_index_build_done(c, *claim);
	*claim = NULL;
	return false;
}

void sym_index_build_done(struct sw_sym_cache *c, struct sym_index_build *claim)
{
	if (!c || !claim)
		return;
	pthread_mutex_lock(&c->builds_lock);
	for (struct sym_index_build **p = &c->builds; *p; p = &(*p)->next)
		if (*p == claim) {
			*p = claim->next;
			break;
		}
	pthread_cond_broadcast(&c->build_ended);
	pthread_mutex_unlock(&c->builds_lock);
	if (claim->lock_fd >= 0)
		close(claim->lock_fd);
	free(claim);
}

void sym_index_cache_turn(struct sw_sym_cache *c, bool take)
{
	pthread_mutex_lock(&c->builds_lock);
	if (take) {
		while (c->writing >= c->max_writing)
			pthread_cond_wait(&c->build_ended, &c->builds_lock);
		c->writing++;
	} else {
		c->writing--;
		pthread_cond_broadcast(&c->build_ended);
	}
	pthread_mutex_unlock(&c->builds_lock);
}

const char *sw_sym_cache_dir(const struct sw_sym_cache *c)
{
	return c->dir;
}

/* A path component taken from a module (its debug file's base name, its
 * debug id) is used only when it cannot leave its directory. */
static bool safe_component(const char *s, size_t max, bool hex_only)
{
	size_t n = strlen(s);
	if (n == 0 || n >= max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p == '/')
			return false;
		if (hex_only && !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		                  (*p >= 'A' && *p <= 'Z')))
			return false;
	}
	return true;
}

/* dir/debug_file/debug_id into out; and, when file, the index's name:
 * the FNV-1a 64 of the source's real path, so that two stores holding the
 * same module keep two indexes. */
static bool index_path(const struct sw_sym_cache *c, const char *src, const char *debug_file,
                       const char *debug_id, bool file, char *out, size_t n)
{
	if (!safe_component(debug_file, DEBUG_FILE_MAX, false) ||
	    !safe_component(debug_id, DEBUG_ID_MAX, true))
		return false;
	int w;
	if (!file) {
		w = snprintf(out, n, "%s/%s/%s", c->dir, debug_file, debug_id);
	} else {
		char *abs = realpath(src, NULL);
		w = snprintf(out, n, "%s/%s/%s/%016llx.swidx", c->dir, debug_file, debug_id,
		             (unsigned long long)sw_fnv1a64(abs ? abs : src));
		free(abs);
	}
	return w > 0 && (size_t)w < n;
}

/* ---- an open index ------------------------------------------------------ */

struct sym_index {
	char *path;
	int fd;                     /* the index file */
	int text_fd;                /* where the text is read: fd, or the plain source */
	uint64_t text_base;         /* offset of the text in text_fd */
	const uint8_t *map;
	size_t map_len;
	struct file_header h;       /* a checked copy */
	const uint32_t *crcs;
	_Atomic uint8_t *state;
	atomic_bool failed;
	uint64_t serial;            /* this open's number in the process (the read window's key) */
};

static atomic_uint_fast64_t open_serial;

/* Opened for reading without access-time updates when the file is ours
 * (O_NOATIME: a warm walk reads thousands of records; each read would
 * otherwise ask whether atime is due). */
static int open_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	return fd;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void sym_index_close(struct sym_index *ix)
{
	if (!ix)
		return;
	if (ix->text_fd != ix->fd)
		close_fd(ix->text_fd);
	close_fd(ix->fd);
	if (ix->map)
		munmap((void *)ix->map, ix->map_len);
	free((void *)ix->state);
	free(ix->path);
	free(ix);
}

static enum sym_index_open_status reject(struct sym_index *ix, struct sw_err *warn,
                                         const char *why)
{
	sw_err_set(warn, SW_ERR_CORRUPT, "%s: symbol index ignored (%s); rebuilt from the source",
	           ix->path, why);
	return SYM_INDEX_REJECTED;
}

/* The header's promises, against the file's real size: every table and
 * section lies inside the file, in its region, records of the sizes this
 * build writes. Returns NULL or what is wrong. */
static const char *check_layout(const struct file_header *h, uint64_t size,
                                const uint32_t elem[SYM_SEC_COUNT])
{
	if (h->file_size != size)
		return size < h->file_size ? "truncated" : "longer than written";
	/* crc_off aligned: the table is read as uint32_t in the mapping (a
	 * misaligned one was UB: fuzz_sym_index). */
	if (h->crc_off < sizeof *h || h->crc_off % 4 != 0 || h->data_off > size ||
	    h->data_off % PAGE != 0 || h->checked_len > size - h->data_off)
		return "bad layout";
	if (h->nblocks != nblocks_of(h->checked_len))
		return "bad block count";
	if (h->crc_off > h->data_off || (h->data_off - h->crc_off) / 4 < h->nblocks)
		return "bad checksum tables";
	uint64_t checked_end = h->data_off + h->checked_len;
	for (int s = 0; s < SYM_SEC_COUNT; s++) {
		const struct file_section *sec = &h->sec[s];
		bool read = sym_index_section_is_read((enum sym_index_section_id)s);
		uint64_t want = read ? 1 : elem[s];
		if (sec->elem != want)
			return "records of another layout";
		if (sec->count == 0)
			continue;
		/* The arrays lie in the checked blocks, the decoded records and
		 * the text after them. */
		uint64_t lo = read ? checked_end : h->data_off;
		uint64_t hi = read ? size : checked_end;
		if (sec->off < lo || sec->off > hi || sec->off % 8 != 0 ||
		    sec->count > (hi - sec->off) / sec->elem)
			return "a section past the end";
	}
	if (h->sec[SYM_SEC_TEXT].count != (h->text_in_file ? h->text_len : 0))
		return "bad text section";
	return NULL;
}

enum sym_index_open_status sym_index_open(struct sw_sym_cache *c, const char *src,
                                          const char *debug_file, const char *debug_id,
                                          const uint32_t elem[SYM_SEC_COUNT],
                                          struct sym_index **out,
                                          uint64_t meta[SYM_INDEX_NMETA],
                                          struct sw_err *warn)
{
	*out = NULL;
	char path[4096];
	if (!index_path(c, src, debug_file, debug_id, true, path, sizeof path))
		return SYM_INDEX_ABSENT;
	struct stat sst, st;
	int sfd = open_read(src);
	if (sfd < 0 || fstat(sfd, &sst) != 0 || !S_ISREG(sst.st_mode)) {
		sw_err_set(warn, SW_ERR_IO, "%s: %s", src, strerror(sfd < 0 ? errno : EINVAL));
		close_fd(sfd);
		return SYM_INDEX_SOURCE_GONE;
	}
	int fd = open_read(path);
	if (fd < 0) {
		close(sfd);
		return SYM_INDEX_ABSENT;
	}
	struct sym_index *ix = calloc(1, sizeof *ix);
	if (!ix || !(ix->path = strdup(path))) {
		free(ix);
		close(fd);
		close(sfd);
		return SYM_INDEX_ABSENT;
	}
	ix->fd = fd;
	ix->text_fd = sfd;
	ix->serial = atomic_fetch_add(&open_serial, 1) + 1;
	enum sym_index_open_status rc = SYM_INDEX_REJECTED;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = reject(ix, warn, "not a regular file");
		goto fail;
	}
	if ((uint64_t)st.st_size < sizeof(struct file_header)) {
		rc = reject(ix, warn, "truncated");
		goto fail;
	}
	ix->map_len = (size_t)st.st_size;
	void *m = mmap(NULL, ix->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		rc = reject(ix, warn, strerror(errno));
		goto fail;
	}
	ix->map = m;
	/* The header: fixed size, read (a copy) before any field is used. */
	struct file_header *h = &ix->h;
	memcpy(h, ix->map, sizeof *h);
	if (memcmp(h->magic, SYM_INDEX_MAGIC, 8) != 0) {
		rc = reject(ix, warn, "not a stackwalk symbol index");
		goto fail;
	}
	/* Another build's format (an upgrade, a cache shared by two
	 * versions) is no damage: replaced without a word. */
	if (h->version != SYM_INDEX_VERSION || h->header_size != sizeof *h ||
	    h->byte_order != BYTE_ORDER_TAG || h->block_shift != BLOCK_SHIFT) {
		rc = SYM_INDEX_ABSENT;
		goto fail;
	}
	if (header_crc(h) != h->header_crc) {
		rc = reject(ix, warn, "header checksum mismatch");
		goto fail;
	}
	const char *bad = check_layout(h, (uint64_t)st.st_size, elem);
	if (bad) {
		rc = reject(ix, warn, bad);
		goto fail;
	}
	ix->crcs = (const uint32_t *)(ix->map + h->crc_off);
	if (libdeflate_crc32(0, ix->crcs, h->nblocks * 4) != h->tables_crc) {
		rc = reject(ix, warn, "checksum table damaged");
		goto fail;
	}
	/* The key. */
	struct src_id id = src_id_of(&sst);
	if (strncmp(h->debug_file, debug_file, DEBUG_FILE_MAX) != 0 ||
	    strncmp(h->debug_id, debug_id, DEBUG_ID_MAX) != 0) {
		rc = reject(ix, warn, "stale: another module's");
		goto fail;
	}
	if (h->src_size != id.size || h->src_mtime_ns != id.mtime_ns ||
	    h->src_ctime_ns != id.ctime_ns || h->src_ino != id.ino || h->src_dev != id.dev) {
		rc = reject(ix, warn, "stale: the source changed");
		goto fail;
	}
	if (!h->text_in_file && h->text_len != id.size) {
		rc = reject(ix, warn, "bad text section");
		goto fail;
	}
	ix->state = calloc(h->nblocks ? h->nblocks : 1, 1);
	if (!ix->state) {
		rc = SYM_INDEX_ABSENT;
		goto fail;
	}
	if (h->text_in_file) {
		close(sfd);
		ix->text_fd = fd;
		ix->text_base = h->sec[SYM_SEC_TEXT].off;
	}
	/* The arrays are read where binary searches land, far apart; the text
	 * is never read through the mapping. */
	madvise((void *)ix->map, ix->map_len, MADV_RANDOM);
	/* A use, for the pruner's least-recently-used order (cache_prune.h):
	 * the index's own mtime is in no key. */
	sw_cache_touch(fd, &st);
	memcpy(meta, h->meta, sizeof h->meta);
	*out = ix;
	return SYM_INDEX_OPENED;
fail:
	sym_index_close(ix);
	return rc;
}

const void *sym_index_section(const struct sym_index *ix, enum sym_index_section_id s,
                              uint64_t *count)
{
	*count = ix->h.sec[s].count;
	return *count ? ix->map + ix->h.sec[s].off : NULL;
}

uint64_t sym_index_text_len(const struct sym_index *ix)
{
	return ix->h.text_len;
}

bool sym_index_failed(const struct sym_index *ix)
{
	return atomic_load_explicit(&ix->failed, memory_order_relaxed);
}

const char *sym_index_path(const struct sym_index *ix)
{
	return ix->path;
}

static bool mark_failed(struct sym_index *ix)
{
	atomic_store_explicit(&ix->failed, true, memory_order_relaxed);
	return false;
}

bool sym_index_fail(struct sym_index *ix)
{
	return mark_failed(ix);
}

/* Block b of a region, its bytes at hand (mapped, or read with pread).
 * Two threads may check the same block at once: both get the same answer. */
static bool check_block(struct sym_index *ix, _Atomic uint8_t *state, const uint32_t *crcs,
                        uint64_t b, const uint8_t *bytes, size_t n)
{
	uint8_t s = atomic_load_explicit(&state[b], memory_order_acquire);
	if (s == BLOCK_UNCHECKED) {
		s = libdeflate_crc32(0, bytes, n) == crcs[b] ? BLOCK_GOOD : BLOCK_BAD;
		atomic_store_explicit(&state[b], s, memory_order_release);
	}
	return s == BLOCK_GOOD || mark_failed(ix);
}

bool sym_index_check(struct sym_index *ix, const void *p, size_t n)
{
	const uint8_t *start = ix->map + ix->h.data_off, *end = start + ix->h.checked_len;
	const uint8_t *q = p;
	if (q < start || q > end || n > (size_t)(end - q))
		return mark_failed(ix);
	if (n == 0)
		return true;
	uint64_t first = (uint64_t)(q - start) >> BLOCK_SHIFT;
	uint64_t last = (uint64_t)(q + n - 1 - start) >> BLOCK_SHIFT;
	for (uint64_t b = first; b <= last; b++) {
		uint64_t off = b << BLOCK_SHIFT;
		uint64_t len = (uint64_t)(end - start) - off;
		if (atomic_load_explicit(&ix->state[b], memory_order_acquire) == BLOCK_GOOD)
			continue;
		if (!check_block(ix, ix->state, ix->crcs, b, start + off, len < BLOCK ? len : BLOCK))
			return false;
	}
	return true;
}


/* [off, off + n) of a region of len bytes at base in fd, checked by crc. */
static bool read_checked(struct sym_index *ix, int fd, uint64_t base, uint64_t len,
                         uint64_t off, size_t n, uint32_t crc, char *out)
{
	if (off > len || n > len - off)
		return mark_failed(ix);
	if (!sw_pread_all(fd, out, n, base + off) || libdeflate_crc32(0, out, n) != crc)
		return mark_failed(ix);
	return true;
}

bool sym_index_read_text(struct sym_index *ix, uint64_t off, size_t n, uint32_t crc,
                         char *out)
{
	return read_checked(ix, ix->text_fd, ix->text_base, ix->h.text_len, off, n, crc, out);
}

/* The decoded bytes this thread read last, around the record asked for:
 * a walk reads a frame's FUNC record and then its CFI record, whose
 * decoded bytes the writer put next to each other (either may come
 * first), so one pread serves both (9,100 reads for gen48k's 4,544 frames
 * became ~4,600). Keyed by the index's open serial, not its address,
 * which a later index may reuse. */
enum { WINDOW = 1024, WINDOW_BEFORE = 256 };
static _Thread_local struct {
	uint64_t serial, off, n;
	char buf[WINDOW];
} window;

bool sym_index_read_decoded(struct sym_index *ix, uint64_t off, size_t n, uint32_t crc,
                            char *out)
{
	const struct file_section *d = &ix->h.sec[SYM_SEC_DECODED];
	if (off > d->count || n > d->count - off)
		return mark_failed(ix);
	if (n > WINDOW - WINDOW_BEFORE)
		return read_checked(ix, ix->fd, d->off, d->count, off, n, crc, out);
	if (window.serial != ix->serial || off < window.off || off + n > window.off + window.n) {
		uint64_t start = off > WINDOW_BEFORE ? off - WINDOW_BEFORE : 0;
		uint64_t len = d->count - start < WINDOW ? d->count - start : WINDOW;
		window.serial = 0;
		if (!sw_pread_all(ix->fd, window.buf, (size_t)len, d->off + start))
			return mark_failed(ix);
		window.serial = ix->serial;
		window.off = start;
		window.n = len;
	}
	memcpy(out, window.buf + (off - window.off), n);
	return libdeflate_crc32(0, out, n) == crc || mark_failed(ix);
}

/* The CRC-32 of len bytes at base in fd, read in chunks into buf. */
static bool crc_of_region(int fd, uint64_t base, uint64_t len, char *buf, size_t chunk,
                          uint32_t *crc)
{
	*crc = 0;
	for (uint64_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? (size_t)(len - off) : chunk;
		if (!sw_pread_all(fd, buf, n, base + off))
			return false;
		*crc = libdeflate_crc32(*crc, buf, n);
	}
	return true;
}

bool sym_index_check_all(struct sym_index *ix)
{
	if (!sym_index_check(ix, ix->map + ix->h.data_off, (size_t)ix->h.checked_len))
		return false;
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	if (!buf)
		return false;
	uint32_t crc, dcrc;
	const struct file_section *d = &ix->h.sec[SYM_SEC_DECODED];
	bool ok = crc_of_region(ix->text_fd, ix->text_base, ix->h.text_len, buf, CHUNK, &crc) &&
	          crc == ix->h.text_crc &&
	          crc_of_region(ix->fd, d->off, d->count, buf, CHUNK, &dcrc) &&
	          dcrc == ix->h.decoded_crc;
	free(buf);
	return ok || mark_failed(ix);
}

/* ---- writing ------------------------------------------------------------ */

static bool cache_fail(struct sw_sym_cache *c, struct sw_err *warn, const char *what,
                       const char *path, int e)
{
	if (!atomic_exchange(&c->write_off, true))
		sw_err_set(warn, SW_ERR_IO, "%s: cannot %s the symbol cache: %s; walking uncached",
		           path, what, strerror(e));
	return false;
}

void sym_index_cache_stop_writing(struct sw_sym_cache *c)
{
	atomic_store(&c->write_off, true);
}



/* Bytes appended to a section (the decoded records, the text) through a
 * buffer: one pwrite per SINK_BUF bytes, the CRC-32 of all of them kept. */
enum { SINK_BUF = 64 * 1024 };
struct sink {
	uint64_t base, len;         /* where the section starts; bytes put so far */
	uint32_t crc;
	size_t n;                   /* buffered, not yet written */
	uint8_t buf[SINK_BUF];
};

/* An index being written: its temporary file is open; after
 * sym_index_write_start, the layout of its arrays is fixed in h and the
 * sections are written as the provider hands them over. ok is false
 * after a failed write (errno in err): finish then removes the file. */
struct sym_index_writer {
	struct sw_sym_cache *cache;
	int fd;
	char debug_file[DEBUG_FILE_MAX], debug_id[DEBUG_ID_MAX];
	char path[4096], tmp[4096 + 64];
	struct file_header h;
	bool ok, text_started;
	int err;
	struct sink decoded, text;
};

struct sym_index_writer *sym_index_write_begin(struct sw_sym_cache *c, const char *src,
                                               const char *debug_file, const char *debug_id,
                                               struct sw_err *warn)
{
	if (atomic_load(&c->write_off))
		return NULL;
	char dir[4096];
	struct sym_index_writer *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->cache = c;
	if (!index_path(c, src, debug_file, debug_id, false, dir, sizeof dir) ||
	    !index_path(c, src, debug_file, debug_id, true, w->path, sizeof w->path)) {
		free(w);
		return NULL; /* a module name no index can be filed under */
	}
	snprintf(w->debug_file, sizeof w->debug_file, "%s", debug_file);
	snprintf(w->debug_id, sizeof w->debug_id, "%s", debug_id);
	if (!sw_make_dirs(dir)) {
		cache_fail(c, warn, "create", dir, errno);
		free(w);
		return NULL;
	}
	/* Writers killed mid-write leave NAME.swidx.tmp.* files. */
	sw_remove_stale_files(dir, ".swidx.tmp.", STALE_TEMP_SECONDS);
	snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld.%u.%llx", w->path, (long)getpid(),
	         atomic_fetch_add(&c->serial, 1), (unsigned long long)time(NULL));
	/* Read and written: the block CRCs are taken from what was written. */
	w->fd = open(w->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		cache_fail(c, warn, "write", w->tmp, errno);
		free(w);
		return NULL;
	}
	return w;
}

struct sw_sym_cache *sym_index_writer_cache(const struct sym_index_writer *w)
{
	return w->cache;
}

void sym_index_write_abandon(struct sym_index_writer *w)
{
	if (!w)
		return;
	close(w->fd);
	unlink(w->tmp);
	free(w);
}

static bool write_failed(struct sym_index_writer *w)
{
	if (w->ok) {
		w->ok = false;
		w->err = errno ? errno : EIO;
	}
	return false;
}

static bool write_at(struct sym_index_writer *w, const void *p, uint64_t n, uint64_t off)
{
	return w->ok && (sw_pwrite_all(w->fd, p, n, off) || write_failed(w));
}

bool sym_index_write_start(struct sym_index_writer *w, const struct sym_index_layout *l)
{
	struct file_header *h = &w->h;
	memset(h, 0, sizeof *h);
	w->ok = true;
	memcpy(h->magic, SYM_INDEX_MAGIC, 8);
	h->version = SYM_INDEX_VERSION;
	h->header_size = sizeof *h;
	h->byte_order = BYTE_ORDER_TAG;
	h->block_shift = BLOCK_SHIFT;
	struct src_id id = src_id_of(l->source);
	h->src_size = id.size;
	h->src_mtime_ns = id.mtime_ns;
	h->src_ctime_ns = id.ctime_ns;
	h->src_ino = id.ino;
	h->src_dev = id.dev;
	snprintf(h->debug_file, sizeof h->debug_file, "%s", w->debug_file);
	snprintf(h->debug_id, sizeof h->debug_id, "%s", w->debug_id);
	h->text_in_file = l->store_text;
	/* The arrays' size fixes the block count, which fixes where the data
	 * starts: lay out once to count, then again with that count. */
	uint64_t off = 0;
	for (int pass = 0; pass < 2; pass++) {
		h->crc_off = round_up(sizeof *h, 8);
		h->data_off = round_up(h->crc_off + h->nblocks * 4, PAGE);
		off = h->data_off;
		for (int s = 1; s < SYM_SEC_COUNT; s++) {
			if (sym_index_section_is_read((enum sym_index_section_id)s))
				continue;
			h->sec[s].elem = l->elem[s];
			h->sec[s].count = l->count[s];
			h->sec[s].off = h->sec[s].count ? round_up(off, SECTION_ALIGN) : 0;
			if (h->sec[s].count)
				off = h->sec[s].off + h->sec[s].count * h->sec[s].elem;
		}
		h->checked_len = off - h->data_off;
		h->nblocks = nblocks_of(h->checked_len);
	}
	h->sec[SYM_SEC_DECODED].elem = 1;
	h->sec[SYM_SEC_TEXT].elem = 1;
	memset(&w->decoded, 0, offsetof(struct sink, buf));
	memset(&w->text, 0, offsetof(struct sink, buf));
	w->decoded.base = round_up(off, SECTION_ALIGN);
	return true;
}

bool sym_index_put_records(struct sym_index_writer *w, enum sym_index_section_id s,
                           uint64_t first, const void *recs, uint64_t n)
{
	const struct file_section *sec = &w->h.sec[s];
	if (sym_index_section_is_read(s) || first > sec->count || n > sec->count - first) {
		errno = EINVAL;
		return write_failed(w);
	}
	return n == 0 || write_at(w, recs, n * sec->elem, sec->off + first * sec->elem);
}

static void sink_flush(struct sym_index_writer *w, struct sink *k)
{
	if (k->n)
		write_at(w, k->buf, k->n, k->base + k->len - k->n);
	k->n = 0;
}

static void sink_put(struct sym_index_writer *w, struct sink *k, const void *p, size_t n)
{
	k->crc = libdeflate_crc32(k->crc, p, n);
	if (k->n + n > SINK_BUF)
		sink_flush(w, k);
	if (n >= SINK_BUF) {
		write_at(w, p, n, k->base + k->len);
	} else {
		memcpy(k->buf + k->n, p, n);
		k->n += n;
	}
	k->len += n;
}

uint64_t sym_index_put_decoded(struct sym_index_writer *w, const void *p, size_t n)
{
	uint64_t at = w->decoded.len;
	if (w->text_started) {
		errno = EINVAL;
		write_failed(w);
	}
	sink_put(w, &w->decoded, p, n);
	return at;
}

void sym_index_put_text(struct sym_index_writer *w, const void *p, size_t n)
{
	if (!w->text_started) {
		sink_flush(w, &w->decoded);
		w->text.base = round_up(w->decoded.base + w->decoded.len, SECTION_ALIGN);
		w->text_started = true;
	}
	sink_put(w, &w->text, p, n);
}

/* Each BLOCK's CRC, over the arrays region as written (zeros where no
 * section lies): read back from the page cache, since the provider hands
 * two arrays over interleaved. */
static bool block_crcs_of_file(struct sym_index_writer *w, uint32_t *crcs)
{
	uint8_t *buf = malloc(BLOCK);
	if (!buf) {
		errno = ENOMEM;
		return write_failed(w);
	}
	const struct file_header *h = &w->h;
	for (uint64_t b = 0; b < h->nblocks && w->ok; b++) {
		uint64_t off = b << BLOCK_SHIFT, n = h->checked_len - off;
		if (n > BLOCK)
			n = BLOCK;
		/* A hole (padding never written) past the end reads short: zeros. */
		memset(buf, 0, (size_t)n);
		ssize_t r = pread(w->fd, buf, (size_t)n, (off_t)(h->data_off + off));
		if (r < 0)
			write_failed(w);
		crcs[b] = libdeflate_crc32(0, buf, (size_t)n);
	}
	free(buf);
	return w->ok;
}

bool sym_index_write_finish(struct sym_index_writer *w, const struct sym_index_tail *tail,
                            struct sw_err *warn)
{
	struct sw_sym_cache *c = w->cache;
	const char *tmp = w->tmp, *path = w->path;
	struct file_header *h = &w->h;
	sink_flush(w, &w->decoded);
	sink_flush(w, &w->text);
	struct file_section *dec = &h->sec[SYM_SEC_DECODED], *text = &h->sec[SYM_SEC_TEXT];
	dec->count = w->decoded.len;
	dec->off = dec->count ? w->decoded.base : 0;
	h->decoded_crc = w->decoded.crc;
	uint64_t end = w->decoded.base + w->decoded.len;
	if (h->text_in_file) {
		h->text_len = w->text.len;
		h->text_crc = w->text.crc;
		text->count = w->text.len;
		text->off = w->text_started ? w->text.base : round_up(end, SECTION_ALIGN);
		end = text->off + text->count;
	} else {
		h->text_len = tail->text_len;
		h->text_crc = tail->text_crc;
	}
	h->file_size = end > h->data_off + h->checked_len ? end : h->data_off + h->checked_len;
	memcpy(h->meta, tail->meta, sizeof h->meta);
	uint32_t *crcs = calloc(h->nblocks + 1, 4);
	if (!crcs) {
		errno = ENOMEM;
		write_failed(w);
	}
	/* The size first: padding at the end of the arrays reads as zeros. */
	if (w->ok && ftruncate(w->fd, (off_t)h->file_size) != 0)
		write_failed(w);
	if (crcs && block_crcs_of_file(w, crcs)) {
		h->tables_crc = libdeflate_crc32(0, crcs, h->nblocks * 4);
		h->header_crc = header_crc(h);
		write_at(w, crcs, h->nblocks * 4, h->crc_off);
		write_at(w, h, sizeof *h, 0);
	}
	free(crcs);
	int e = w->ok ? 0 : w->err;
	if (close(w->fd) != 0 && !e)
		e = errno;
	/* Renamed whole over any older index: a reader has either file, never
	 * half of one; a run killed before this leaves only a .tmp name,
	 * which no reader opens (and a later writer removes). */
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (!e)
		atomic_store(&c->added, true);
	bool done = !e || cache_fail(c, warn, "write", tmp, e);
	if (e)
		unlink(tmp);
	free(w);
	return done;
}
