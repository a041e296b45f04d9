/* A growable list of malloc'd string copies (strlist.h). */
#include "strlist.h"

#include <stdlib.h>
#include <string.h>

bool sw_strlist_add(struct sw_strlist *l, const char *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		char **grown = realloc(l->v, cap * sizeof *grown);
		if (!grown)
			return false;
		l->v = grown;
		l->cap = cap;
	}
	char *copy = strdup(s);
	if (!copy)
		return false;
	l->v[l->n++] = copy;
	return true;
}

void sw_strlist_drop_last(struct sw_strlist *l)
{
	if (l->n > 0)
		free(l->v[--l->n]);
}

bool sw_strlist_has(const struct sw_strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

bool sw_strlist_copy(const struct sw_strlist *l, struct sw_strlist *copy)
{
	*copy = (struct sw_strlist){ 0 };
	for (size_t i = 0; i < l->n; i++)
		if (!sw_strlist_add(copy, l->v[i])) {
			sw_strlist_free(copy);
			return false;
		}
	return true;
}

void sw_strlist_free(struct sw_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct sw_strlist){ 0 };
}
