/* Hex digits, shared by the text parsers (Breakpad .sym records, postfix
 * expressions, microdump records), and the one encoder of bytes as hex
 * (build-ids, checksums in messages). */
#ifndef SW_HEX_H
#define SW_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Hex digit values plus one, either case; 0 for every other byte. One
 * load per byte where a chain of range tests would branch on every digit:
 * the .sym indexing pass reads a million line records of four numbers
 * each, and a microdump's stack is megabytes of hex. */
extern const uint8_t sw_hex_digit1[256];

/* The value of hex digit c (either case), or -1. */
static inline int sw_hex_digit(char c)
{
	return (int)sw_hex_digit1[(unsigned char)c] - 1;
}

/* b[0..n) in lower-case hex into out: 2 * n characters and a NUL. */
void sw_hex_encode(const uint8_t *b, size_t n, char *out);

#endif
