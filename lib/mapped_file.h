/* A read-only memory mapping of a whole file. */
#ifndef SW_MAPPED_FILE_H
#define SW_MAPPED_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sw_err.h"

struct sw_mapped_file {
	const uint8_t *data;
	size_t size;
	/* The open file, kept for sw_mapped_peek while few are (has_fd). */
	int fd;
	bool has_fd;
};

/* Opens path read-only, but only if it is a regular file: the type is
 * checked by stat() first (opening a FIFO blocks until a writer comes, for
 * ever in a pipeline; opening a device may act on it), and again by
 * fstat() after an O_NONBLOCK open (a path that turned into one between).
 * Returns the descriptor, or -1 with *mode the type of a file that is not
 * regular (S_IFDIR, S_IFIFO, ...), or *mode 0 and errno saying why stat or
 * open failed. */
int sw_open_regular_file(const char *path, unsigned *mode);

/* Does path name a regular file / a directory (stat follows links)? */
bool sw_is_regular_file(const char *path);
bool sw_is_directory(const char *path);
/* mkdir -p of path (the directories of the symbol cache): false when one
 * of them cannot be made, or path is longer than 4 KiB. */
bool sw_make_dirs(const char *path);
/* All n bytes at offset off of fd, read or written (EINTR and short
 * transfers retried, at most 1 GiB a call); false on an error or an
 * early end of file. */
bool sw_pread_all(int fd, void *out, uint64_t n, uint64_t off);
bool sw_pwrite_all(int fd, const void *p, uint64_t n, uint64_t off);
/* Removes the regular files of dir whose names hold marker and that are
 * older than max_age_s seconds: the temporary files of writers killed
 * mid-write (a live writer's file is younger; one removed under a writer
 * makes its rename fail, which it survives). */
void sw_remove_stale_files(const char *dir, const char *marker, long max_age_s);

/* Maps path. An empty file maps to data == NULL, size == 0. On failure sets
 * *err to a message naming the file and returns SW_ERR_IO. */
enum sw_err_code sw_map_file(const char *path, struct sw_mapped_file *out,
                             struct sw_err *err);
/* Maps the regular file open as fd from its byte 0, as sw_map_file maps
 * a path (name: for messages). fd stays the caller's: the mapping keeps a
 * duplicate of it when it keeps a descriptor. */
enum sw_err_code sw_map_fd(int fd, const char *name, struct sw_mapped_file *out,
                           struct sw_err *err);
void sw_unmap_file(struct sw_mapped_file *m);

/* Gives the whole pages of [p, p + n) that lie inside m back to the kernel
 * (madvise MADV_DONTNEED): a reader done with a stretch of a big file
 * (a DWARF unit once indexed) stops counting it in its resident memory.
 * The mapping is private and never written, so a later read of those
 * bytes finds the file's contents again (from the page cache). Nothing
 * happens for bytes outside m. */
void sw_mapped_release(const struct sw_mapped_file *m, const void *p, uint64_t n);

/* Copies the n bytes at p, which the caller may read, to out. When they
 * lie in m's mapping and m kept its descriptor, they are read from the
 * file (pread) instead of through the mapping: a read through a file
 * mapping maps the kernel's whole fault-around window (64 KiB on Linux)
 * around the page it needs, and a few thousand small reads at random
 * places of a big file (code bytes before return addresses, a line table
 * from a checkpoint) would keep most of the file resident. */
void sw_mapped_peek(const struct sw_mapped_file *m, const void *p, size_t n, void *out);

/* strnlen(p, max) read the way sw_mapped_peek reads (max: the bytes that
 * may be read at p); then sw_mapped_peek(m, p, len, buf) copies the
 * string. */
size_t sw_mapped_strnlen(const struct sw_mapped_file *m, const char *p, size_t max);

#endif
