/* Binary search over a sequence sorted by a 64-bit key. The key of element
 * i is read through key_at(set, i), so one loop serves arrays of records
 * (symbol, CFI and memory indexes) and arrays of indices into records (the
 * snapshot's module-by-base order) alike. Keys must not decrease. */
#ifndef SW_BSEARCH_H
#define SW_BSEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t sw_key_at_fn(const void *set, size_t i);

/* The number of leading elements whose key is below x, or at most x when
 * past_equal. */
static inline size_t sw_bsearch_bound(const void *set, size_t n, sw_key_at_fn *key_at,
                                      uint64_t x, bool past_equal)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = key_at(set, mid);
		if (k < x || (past_equal && k == x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The number of elements with key <= x: the last of them, the one whose
 * range may cover x, is at the result minus one (none when 0). */
static inline size_t sw_upper_bound(const void *set, size_t n, sw_key_at_fn *key_at,
                                    uint64_t x)
{
	return sw_bsearch_bound(set, n, key_at, x, true);
}

/* The first element with key >= x, or n: the first of equal keys. */
static inline size_t sw_lower_bound(const void *set, size_t n, sw_key_at_fn *key_at,
                                    uint64_t x)
{
	return sw_bsearch_bound(set, n, key_at, x, false);
}

#endif
