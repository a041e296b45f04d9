/* A read through a pointer to a global with one bit flipped (bit 40):
 * the address names no memory, and flipping that bit back gives the
 * global's, in the program's image (crash_info.possible_bit_flips, issue
 * 33). Built non-PIE, so the global's address is its symbol's. Built and
 * crashed by tests/localcores.py. */
#include <stdint.h>

long target = 42;

__attribute__((noinline)) static long load(volatile long *p)
{
	return *p;
}

__attribute__((noinline)) static long crash(uintptr_t bit)
{
	return load((volatile long *)((uintptr_t)&target ^ bit));
}

int main(int argc, char **argv)
{
	(void)argv;
	return (int)crash((uintptr_t)argc << 40);
}
