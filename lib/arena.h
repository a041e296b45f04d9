/* Bump allocator: many small allocations, freed all at once. Every
 * structure built from a snapshot or a walk lives in one arena. */
#ifndef SW_ARENA_H
#define SW_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct sw_arena_block;

struct sw_arena {
	struct sw_arena_block *head;
	size_t used;          /* bytes used in head */
	size_t cap;           /* capacity of head */
	size_t total;         /* bytes reserved over all blocks */
};

void sw_arena_init(struct sw_arena *a);
void sw_arena_free(struct sw_arena *a);
/* Moves every block of src into a (freed with it); src is left empty.
 * What was allocated from src stays where it is. */
void sw_arena_adopt(struct sw_arena *a, struct sw_arena *src);

/* Returns zeroed memory aligned for any type, or NULL when out of memory. */
void *sw_arena_alloc(struct sw_arena *a, size_t size);
/* n * size with an overflow check. */
void *sw_arena_array(struct sw_arena *a, size_t n, size_t size);
/* NUL-terminated copy of s[0..n). */
char *sw_arena_strndup(struct sw_arena *a, const char *s, size_t n);
char *sw_arena_strdup(struct sw_arena *a, const char *s);
char *sw_arena_printf(struct sw_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
