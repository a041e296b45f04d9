/* FNV-1a, 64 bits (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325,
 * prime 0x100000001b3): the names of cache files made from a path or a
 * URL, and the keys of texts said once. Not for anything an attacker
 * must not collide. */
#ifndef SW_FNV_H
#define SW_FNV_H

#include <stdint.h>

static inline uint64_t sw_fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

#endif
