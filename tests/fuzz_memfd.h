/* The fuzz targets' input as a file: written to a memfd whose path,
 * /proc/self/fd/N, the readers open through the ordinary path (mmap
 * included), as they open a file on disk. */
#ifndef STACKWALK_TESTS_FUZZ_MEMFD_H
#define STACKWALK_TESTS_FUZZ_MEMFD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

enum { FUZZ_PATH_MAX = 64 };

/* The memfd holding data (closed by the caller), its path in path; -1
 * where it could not be made or written. */
static inline int fuzz_memfd(const char *name, const uint8_t *data, size_t size,
                             char path[FUZZ_PATH_MAX])
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, FUZZ_PATH_MAX, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
