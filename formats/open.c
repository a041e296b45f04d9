#include "open.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "minidump.h"

enum sw_err_code sw_snapshot_open(const char *path, struct sw_snapshot *out,
                                  struct sw_err *err)
{
	sw_snapshot_init(out, path);
	uint8_t magic[8] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	size_t n = fread(magic, 1, sizeof magic, f);
	fclose(f);
	if (sw_minidump_is(magic, n))
		return sw_minidump_read(path, out, err);
	if (n == 0)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: empty file, not a snapshot", path);
	return sw_err_set(err, SW_ERR_FORMAT,
	                  "%s: not a snapshot stackwalk reads (starts with %02x %02x %02x %02x; "
	                  "expected a minidump, 'MDMP')",
	                  path, magic[0], magic[1], magic[2], magic[3]);
}
