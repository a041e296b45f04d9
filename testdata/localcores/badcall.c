/* A call through a function pointer with bit 47 flipped: a non-canonical
 * target, so the CPU faults on the call itself (a general-protection
 * fault, reported as address 0). Where the call would have gone is its
 * instruction pointer update, the adjusted address, and one bit from the
 * function it was meant to call (crash_info.instruction_pointer_update,
 * adjusted_address, possible_bit_flips; issue 33). Built non-PIE, so the
 * function's address is its symbol's. Built and crashed by
 * tests/localcores.py. */
#include <stdint.h>

__attribute__((noinline)) int callee(int x)
{
	return x + 1;
}

__attribute__((noinline)) static int crash(uintptr_t bit)
{
	int (*volatile f)(int) = (int (*)(int))((uintptr_t)&callee ^ bit);
	return f(1);
}

int main(int argc, char **argv)
{
	(void)argv;
	return crash((uintptr_t)argc << 47);
}
