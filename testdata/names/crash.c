/* The crash program of testdata/names (README.md): `crash` writes
 * through NULL, `crash abort` calls abort(). inner and outer are kept
 * out of line so that each is a frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void inner(volatile int *p, int how)
{
	if (how)
		abort();
	*p = 1;
}

__attribute__((noinline)) void outer(volatile int *p, int how)
{
	inner(p, how);
	printf("not reached\n");
}

int main(int argc, char **argv)
{
	outer(argc > 5 ? (volatile int *)argv : NULL, argc > 1 && strcmp(argv[1], "abort") == 0);
	return 0;
}
