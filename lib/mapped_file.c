#include "mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum sw_err_code sw_map_file(const char *path, struct sw_mapped_file *out,
                             struct sw_err *err)
{
	out->data = NULL;
	out->size = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return sw_err_set(err, SW_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return sw_err_set(err, SW_ERR_IO, "%s: not a regular file", path);
	}
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(fd);
			return sw_err_set(err, SW_ERR_IO, "%s: cannot map: %s", path, strerror(e));
		}
		out->data = p;
		out->size = (size_t)st.st_size;
	}
	close(fd);
	return SW_OK;
}

void sw_unmap_file(struct sw_mapped_file *m)
{
	if (m->data)
		munmap((void *)m->data, m->size);
	m->data = NULL;
	m->size = 0;
}
