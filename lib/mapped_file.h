/* A read-only memory mapping of a whole file. */
#ifndef SW_MAPPED_FILE_H
#define SW_MAPPED_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "sw_err.h"

struct sw_mapped_file {
	const uint8_t *data;
	size_t size;
};

/* Maps path. An empty file maps to data == NULL, size == 0. On failure sets
 * *err to a message naming the file and returns SW_ERR_IO. */
enum sw_err_code sw_map_file(const char *path, struct sw_mapped_file *out,
                             struct sw_err *err);
void sw_unmap_file(struct sw_mapped_file *m);

#endif
