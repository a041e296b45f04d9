/* What the RV32 crash firmware (fw.c, fw_trap.c) share: semihosting and
 * the crashing call chain, main -> app_step -> app_step -> poll_sensors ->
 * read_sensor, whose load no device answers. Included once by each. */
#ifndef FW_RV32_H
#define FW_RV32_H

#include <stddef.h>
#include <stdint.h>

#define NOINLINE __attribute__((noinline, noipa))

extern uint32_t __stack_top[], __stack_limit[];

/* ---- semihosting (RISC-V Semihosting, v0.2: the ARM operations behind
 * slli/ebreak/srai, uncompressed) ---- */

static int semihost(int op, const void *arg)
{
	register int a0 __asm__("a0") = op;
	register const void *a1 __asm__("a1") = arg;
	__asm__ volatile(".option push\n\t"
	                 ".option norvc\n\t"
	                 ".balign 16\n\t"
	                 "slli zero, zero, 0x1f\n\t"
	                 "ebreak\n\t"
	                 "srai zero, zero, 7\n\t"
	                 ".option pop"
	                 : "+r"(a0) : "r"(a1) : "memory");
	return a0;
}

#include "firmware.h"

/* ---- the crash ---- */

volatile uint32_t sink;

NOINLINE uint32_t read_sensor(uint32_t channel)
{
	/* Nothing answers at 0x100 on virt: a load access fault. */
	volatile uint32_t *reg = (volatile uint32_t *)(0x100 + 4 * (channel & 1));
	return *reg + channel;
}

NOINLINE uint32_t poll_sensors(uint32_t n)
{
	uint32_t sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += read_sensor(i + sink);
	return sum;
}

NOINLINE uint32_t app_step(uint32_t depth)
{
	if (depth == 0)
		return poll_sensors(2);
	uint32_t r = app_step(depth - 1);
	sink = r;
	return r + depth;
}

/* The reset entry: gp and sp set, .bss cleared, mtvec = the program's trap
 * routine (entry: its name, a string), then main. */
#define RV32_START(entry)                                                   \
	__attribute__((naked, section(".text.start"))) void _start(void)    \
	{                                                                   \
		__asm__ volatile(".option push\n\t"                           \
		                 ".option norelax\n\t"                         \
		                 "la gp, __global_pointer$\n\t"                \
		                 ".option pop\n\t"                             \
		                 "la sp, __stack_top\n\t"                      \
		                 "la t0, __bss_start\n\t"                      \
		                 "la t1, __bss_end\n"                           \
		                 "1:\n\t"                                      \
		                 "bgeu t0, t1, 2f\n\t"                         \
		                 "sw zero, 0(t0)\n\t"                          \
		                 "addi t0, t0, 4\n\t"                          \
		                 "j 1b\n"                                       \
		                 "2:\n\t"                                      \
		                 "la t0, " entry "\n\t"                        \
		                 "csrw mtvec, t0\n\t"                          \
		                 "call main\n\t"                               \
		                 "j .\n\t");                                   \
	}

#endif
