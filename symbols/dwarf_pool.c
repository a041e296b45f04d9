/* A unit's string pool (dwarf_pool.h). */
#include "dwarf_pool.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool pool_reserve(struct dw_pool *p, size_t more)
{
	if (p->len + more <= p->cap)
		return true;
	if (p->len + more > UINT32_MAX)
		return false; /* offsets are 32-bit */
	size_t ncap = p->cap ? p->cap : 1024;
	while (ncap < p->len + more)
		ncap *= 2;
	char *nb = realloc(p->buf, ncap);
	if (!nb)
		return false;
	p->buf = nb;
	p->cap = ncap;
	return true;
}

uint32_t dw_pool_add(struct dw_pool *p, const char *s, size_t n)
{
	if (p->len == 0) {
		if (!pool_reserve(p, 1))
			return 0;
		p->buf[p->len++] = '\0';
	}
	if (n == 0 || !pool_reserve(p, n + 1))
		return 0;
	uint32_t off = (uint32_t)p->len;
	memcpy(p->buf + p->len, s, n);
	p->buf[p->len + n] = '\0';
	p->len += n + 1;
	return off;
}

uint32_t dw_pool_join(struct dw_pool *p, uint32_t scope, const char *name)
{
	size_t nl = strlen(name);
	if (scope == 0)
		return dw_pool_add(p, name, nl);
	size_t sl = strlen(p->buf + scope);
	if (!pool_reserve(p, sl + 2 + nl + 1))
		return 0;
	uint32_t off = (uint32_t)p->len;
	char *dst = p->buf + p->len;
	memcpy(dst, p->buf + scope, sl); /* reserve may move buf: copy after it */
	memcpy(dst + sl, "::", 2);
	memcpy(dst + sl + 2, name, nl + 1);
	p->len += sl + 2 + nl + 1;
	return off;
}
