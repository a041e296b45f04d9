/* A lock that processes sharing a cache directory take turns on: an
 * exclusive flock(2) on a file beside what one of them is building (a
 * symbol index, a download), so that the others wait and use what it
 * built instead of building it too. The kernel lets go of a dead
 * process's locks; a wait is bounded, so a process stopped in a debugger
 * holds the others up only that long. */
#ifndef SW_FILE_LOCK_H
#define SW_FILE_LOCK_H

enum sw_file_lock {
	SW_LOCK_NONE,    /* no lock: the file cannot be made, or the wait ran out */
	SW_LOCK_TAKEN,   /* *fd holds the lock: build, then close(*fd) */
	SW_LOCK_WAITED,  /* another process held it and let go: use what it built */
};

/* Takes the lock of path (created empty, opened read-only: a cache other
 * users share may hold a lock file they cannot write), or waits up to
 * max_ms for its holder to let go. Lock files are left in place: removing
 * one while another process opens it would let two lock two files. */
enum sw_file_lock sw_file_lock_take(const char *path, unsigned max_ms, int *fd);

#endif
