/* What every reader shares (reader.h). */
#include "reader.h"

#include <stdarg.h>

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
