/* Messages said once per batch (a refused symbol file, a symbol path
 * that is neither a folder nor a symbol file), whichever of its threads
 * meets them first. */
#ifndef SW_CMD_SAID_ONCE_H
#define SW_CMD_SAID_ONCE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The symbol warnings a batch gave (a refused file, a symbol path that is
 * neither a folder nor a symbol file): each is said once, for the first
 * input that met it, not for each of thousands of dumps of one product.
 * An open-addressed set of their FNV-1a 64 hashes, the low bit set (0:
 * an empty slot). */
struct said_once {
	pthread_mutex_t lock;
	uint64_t *slots;
	size_t n, cap;             /* cap: a power of two, at most half full */
};

/* Whether warning should be given: always when s is NULL (a single run);
 * in a batch, the first time. */
bool sw_say_first_time(struct said_once *s, const char *warning);

#endif
