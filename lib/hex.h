/* One hex digit's value, shared by the text parsers (Breakpad .sym records,
 * postfix expressions). */
#ifndef SW_HEX_H
#define SW_HEX_H

/* The value of hex digit c (either case), or -1. */
static inline int sw_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
