/* Paths built from parts. */
#ifndef SW_PATH_H
#define SW_PATH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* printf into out (cap bytes); false when the path would not fit: a cut
 * path names another file, so it is never used. */
static inline bool sw_path_printf(char *out, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline bool sw_path_printf(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, cap, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < cap;
}

#endif
