/* One error channel: a code that the CLI maps to an exit status, and a
 * one-line message that names the file and the problem. */
#ifndef SW_ERR_H
#define SW_ERR_H

#include <stdarg.h>

enum sw_err_code {
	SW_OK = 0,
	SW_ERR_USAGE,       /* bad command line */
	SW_ERR_IO,          /* cannot open / read / map a file */
	SW_ERR_FORMAT,      /* not a file of the expected format */
	SW_ERR_CORRUPT,     /* recognised, but damaged: partial results */
	SW_ERR_NOMEM,       /* allocation failed */
	SW_ERR_UNSUPPORTED, /* a valid input we cannot handle (yet) */
};

struct sw_err {
	enum sw_err_code code;
	char msg[512];
};

/* Sets *e (when e is non-NULL and holds no error yet: the first error wins,
 * since it is usually the cause of the later ones). Returns code. */
enum sw_err_code sw_err_set(struct sw_err *e, enum sw_err_code code,
                            const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
enum sw_err_code sw_err_vset(struct sw_err *e, enum sw_err_code code,
                             const char *fmt, va_list ap);
void sw_err_clear(struct sw_err *e);

#endif
