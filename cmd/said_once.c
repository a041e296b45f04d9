#include "said_once.h"

#include <stdlib.h>

#include "lib/fnv.h"

/* Adds h to the set (lock held). False when it was there already, or
 * when out of memory (then it is said again). */
static bool said_add(struct said_once *s, uint64_t h)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint64_t *slots = calloc(cap, sizeof *slots);
		if (!slots)
			return true;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->slots[i])
				continue;
			size_t j = s->slots[i] & (cap - 1);
			while (slots[j])
				j = (j + 1) & (cap - 1);
			slots[j] = s->slots[i];
		}
		free(s->slots);
		s->slots = slots;
		s->cap = cap;
	}
	size_t j = h & (s->cap - 1);
	while (s->slots[j] && s->slots[j] != h)
		j = (j + 1) & (s->cap - 1);
	if (s->slots[j])
		return false;
	s->slots[j] = h;
	s->n++;
	return true;
}

bool sw_say_first_time(struct said_once *s, const char *warning)
{
	if (!s)
		return true;
	pthread_mutex_lock(&s->lock);
	bool first = said_add(s, sw_fnv1a64(warning) | 1);
	pthread_mutex_unlock(&s->lock);
	return first;
}
