/* A growable list of malloc'd string copies: the refused paths of the ELF
 * locator, a download's held warnings, the library's symbol paths, URLs
 * and headers. */
#ifndef SW_STRLIST_H
#define SW_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

struct sw_strlist {
	char **v;
	size_t n, cap;
};

/* A copy of s appended. False (the list unchanged): out of memory. */
bool sw_strlist_add(struct sw_strlist *l, const char *s);

/* Undoes the last sw_strlist_add (an operation that needed it failed). */
void sw_strlist_drop_last(struct sw_strlist *l);

/* Whether the list holds a string equal to s. */
bool sw_strlist_has(const struct sw_strlist *l, const char *s);

/* A list of copies of l's strings into *copy. False (*copy empty): out of
 * memory. */
bool sw_strlist_copy(const struct sw_strlist *l, struct sw_strlist *copy);

/* Frees every string and the array; the list is empty again. */
void sw_strlist_free(struct sw_strlist *l);

#endif
