/* What every reader shares (reader.h). */
#include "reader.h"

#include <stdarg.h>

enum sw_err_code sw_reader_begin(const char *path, const struct sw_open_options *opts,
                                 const struct sw_reader_entry *e, struct sw_snapshot *out,
                                 struct sw_span *file, struct sw_err *err)
{
	sw_snapshot_init(out, path);
	out->format = e->format;
	out->scans_need_code = e->scans_need_code;
	enum sw_err_code rc = sw_snapshot_map_input(path, opts, &out->file, err);
	if (rc != SW_OK)
		return rc;
	static const uint8_t empty[1];
	*file = (struct sw_span){ out->file.data ? out->file.data : empty, out->file.size, 0,
	                          false };
	if (e->is && !e->is(file->data, (size_t)file->size))
		return sw_err_set(err, SW_ERR_FORMAT, "%s: %s", path, e->not_it);
	return SW_OK;
}

void sw_reader_problem(struct sw_snapshot *s, uint32_t *damage, bool warning, const char *fmt,
                       ...)
{
	va_list ap;
	va_start(ap, fmt);
	sw_snapshot_vproblem(s, warning, fmt, ap);
	va_end(ap);
	if (!warning)
		(*damage)++;
}
