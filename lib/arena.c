#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sw_arena_block {
	struct sw_arena_block *next;
	max_align_t data[];
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };

void sw_arena_init(struct sw_arena *a)
{
	memset(a, 0, sizeof *a);
}

void sw_arena_free(struct sw_arena *a)
{
	struct sw_arena_block *b = a->head;
	while (b) {
		struct sw_arena_block *next = b->next;
		free(b);
		b = next;
	}
	sw_arena_init(a);
}

void sw_arena_adopt(struct sw_arena *a, struct sw_arena *src)
{
	if (!src->head)
		return;
	if (!a->head) {
		*a = *src;
	} else {
		/* Behind a's head, which stays the block a allocates from. */
		struct sw_arena_block *tail = src->head;
		while (tail->next)
			tail = tail->next;
		tail->next = a->head->next;
		a->head->next = src->head;
		a->total += src->total;
	}
	sw_arena_init(src);
}

void *sw_arena_alloc(struct sw_arena *a, size_t size)
{
	const size_t align = _Alignof(max_align_t);
	size_t need = (size + align - 1) & ~(align - 1);
	if (need < size)
		return NULL;
	if (!a->head || a->cap - a->used < need) {
		size_t cap = need > ARENA_MIN_BLOCK ? need : ARENA_MIN_BLOCK;
		if (a->total / 4 > cap && a->total / 4 < (size_t)1 << 26)
			cap = a->total / 4; /* grow geometrically, bounded */
		struct sw_arena_block *b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
		a->cap = cap;
		a->used = 0;
		a->total += cap;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += need;
	memset(p, 0, size);
	return p;
}

void *sw_arena_array(struct sw_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return sw_arena_alloc(a, n * size);
}

char *sw_arena_strndup(struct sw_arena *a, const char *s, size_t n)
{
	char *p = sw_arena_alloc(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *sw_arena_strdup(struct sw_arena *a, const char *s)
{
	return sw_arena_strndup(a, s, strlen(s));
}

char *sw_arena_printf(struct sw_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *p = sw_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
