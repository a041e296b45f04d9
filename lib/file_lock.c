/* Lock files processes take turns on (file_lock.h). */
#include "file_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

enum sw_file_lock sw_file_lock_take(const char *path, unsigned max_ms, int *fd)
{
	*fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return SW_LOCK_NONE;
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return SW_LOCK_TAKEN;
	if (errno == EWOULDBLOCK) {
		/* Polled rather than a blocking flock, to bound the wait: 1 ms
		 * at first (a small file's build), up to 50 ms apart. */
		for (unsigned waited = 0, step = 1; waited < max_ms;) {
			nanosleep(&(struct timespec){ .tv_nsec = (long)step * 1000000 }, NULL);
			waited += step;
			if (flock(*fd, LOCK_EX | LOCK_NB) == 0) {
				close(*fd);
				*fd = -1;
				return SW_LOCK_WAITED;
			}
			step = step * 2 > 50 ? 50 : step * 2;
		}
	}
	close(*fd);
	*fd = -1;
	return SW_LOCK_NONE;
}
