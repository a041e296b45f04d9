/* The functions of <string.h> the writer and the firmware use. Debian's riscv64 cross
 * compiler has no RV32 C library headers, and arm-none-eabi-gcc's come
 * with newlib (libnewlib-arm-none-eabi, 370 MB, a recommends that
 * scripts/setup.sh does not install): the firmware is built with
 * -nostdinc, GCC's own freestanding headers and this one. */
#ifndef FW_STRING_H
#define FW_STRING_H
#include <stddef.h>
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
#endif
