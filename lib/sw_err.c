#include "sw_err.h"

#include <stdio.h>

enum sw_err_code sw_err_vset(struct sw_err *e, enum sw_err_code code,
                             const char *fmt, va_list ap)
{
	if (e && e->code == SW_OK) {
		e->code = code;
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	}
	return code;
}

enum sw_err_code sw_err_set(struct sw_err *e, enum sw_err_code code,
                            const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sw_err_vset(e, code, fmt, ap);
	va_end(ap);
	return code;
}

void sw_err_clear(struct sw_err *e)
{
	e->code = SW_OK;
	e->msg[0] = '\0';
}
