/* Keeping the symbol cache directory to a size (--symbols-cache-max,
 * docs/symbol-cache.md, "Housekeeping"): what was used least recently
 * goes first.
 *
 * The cache holds module folders (DIR/DEBUG_FILE/DEBUG_ID/: indexes,
 * downloads, miss markers) and inflated ELF sections
 * (DIR/elf-sections/NAME.swsec). A module folder goes as a whole, its last
 * use being the newest mtime of the folder and its files; a section file
 * goes alone. Uses are stamped on the mtime (sw_cache_touch): indexes are
 * read with O_NOATIME, and a source file's own mtime is part of its
 * index's key, so a downloaded .sym is never touched, its folder is. */
#ifndef SW_SYMBOLS_CACHE_PRUNE_H
#define SW_SYMBOLS_CACHE_PRUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

/* The default cap: far above what a product's symbols take indexed
 * (rustc_abrt's store: 94 MB of indexes), low enough that a CI runner's
 * home does not fill up with inflated debug sections over months. */
#define SW_CACHE_MAX_DEFAULT ((uint64_t)4 << 30)
/* What was used this recently is never removed: another process may be
 * about to open it (a walk running now, a download being checked). */
enum { SW_CACHE_KEEP_RECENT_S = 600 };
/* A use is stamped at most this often per file: a warm walk must not
 * write an inode for every index it maps. */
enum { SW_CACHE_TOUCH_EVERY_S = 3600 };

/* Stamps a use of the open cache file fd (st: its fstat) when its mtime is
 * older than SW_CACHE_TOUCH_EVERY_S. Failures are ignored: a cache other
 * users share may be read-only to us. */
void sw_cache_touch(int fd, const struct stat *st);
/* The same for a path (a module folder). */
void sw_cache_touch_path(const char *path);

struct sw_cache_prune_result {
	uint64_t bytes_before;     /* what the cache held */
	uint64_t bytes_after;
	unsigned removed;          /* files removed */
	bool ran;                  /* false: another process was pruning */
};

/* Removes the least recently used module folders' files and section files
 * of cache directory dir until it holds at most max_bytes less an eighth
 * (so that the next runs do not prune again at once), never what was used
 * after now - keep_recent_s. One process at a time (DIR/.prune.lock; a
 * process that finds it taken leaves the pruning to its holder). Lock
 * files and temporary files are left. False when out of memory. */
bool sw_cache_prune(const char *dir, uint64_t max_bytes, time_t now, long keep_recent_s,
                    struct sw_cache_prune_result *res);

#endif
