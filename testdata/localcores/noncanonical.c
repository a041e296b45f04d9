/* A read through a pointer whose high bits are not the sign extension of
 * bit 47 (a non-canonical address on amd64): the CPU raises a general
 * protection fault, and Linux reports SIGSEGV with address 0, not the
 * pointer. The instruction's memory access names the address really
 * used (crash_info.adjusted_address, issue 33). Built and crashed by
 * tests/localcores.py. */
#include <stdint.h>

__attribute__((noinline)) static long load(volatile long *p)
{
	return *p;
}

__attribute__((noinline)) static long crash(uintptr_t bits)
{
	return load((volatile long *)(0x4141414141410000u | bits));
}

int main(int argc, char **argv)
{
	(void)argv;
	return (int)crash((uintptr_t)argc);
}
