/* An ELF module's identifiers from its GNU build-id (NT_GNU_BUILD_ID), as
 * Breakpad names them: shared by the readers that meet build-ids (a
 * minidump's 'BpEL' CodeView record, an offline capture's ELF files); and
 * the build-id back from the code id, for those who look files up by it
 * (the ELF locator, the symbol servers). */
#ifndef SW_BUILD_ID_H
#define SW_BUILD_ID_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "hex.h"
#include "span.h"

enum { SW_BUILD_ID_MAX = 256 }; /* bytes of a build-id kept in a code id */

/* The code id: the whole build-id in lower-case hex (at most
 * SW_BUILD_ID_MAX bytes of it), in arena a; NULL when out of memory. */
static inline const char *sw_build_id_code_id(struct sw_arena *a, struct sw_span id)
{
	uint64_t n = id.size > SW_BUILD_ID_MAX ? SW_BUILD_ID_MAX : id.size;
	char *out = sw_arena_alloc(a, (size_t)n * 2 + 1);
	if (out)
		sw_hex_encode(id.data, (size_t)n, out);
	return out;
}

/* The build-id an ELF module's code id spells (either case): its bytes
 * into out, their number in *n. False when the code id is not an even
 * number of hex digits, 2 to 2 * cap of them. */
static inline bool sw_build_id_from_code_id(const char *code_id, uint8_t *out, size_t cap,
                                            size_t *n)
{
	size_t len = code_id ? strlen(code_id) : 0;
	if (len < 2 || len % 2 || len / 2 > cap)
		return false;
	for (size_t i = 0; i < len; i += 2) {
		int hi = sw_hex_digit(code_id[i]), lo = sw_hex_digit(code_id[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*n = len / 2;
	return true;
}

/* The debug id, as Breakpad's dump_syms and processor make it
 * (FileID::ConvertIdentifierToUUIDString, then age 0): the first 16 bytes
 * of the build-id (zero-padded when shorter) read as a GUID whose Data1,
 * Data2 and Data3 are little-endian integers, in upper-case hex, then "0".
 * The build-id is bytes: the GUID is read little-endian whatever the byte
 * order of the file that carried it. */
static inline const char *sw_build_id_debug_id(struct sw_arena *a, struct sw_span id)
{
	uint8_t g[16] = { 0 };
	for (unsigned i = 0; i < 16 && i < id.size; i++)
		g[i] = sw_u8(id, i);
	unsigned d1 = (unsigned)g[0] | (unsigned)g[1] << 8 | (unsigned)g[2] << 16 |
	              (unsigned)g[3] << 24;
	unsigned d2 = (unsigned)g[4] | (unsigned)g[5] << 8;
	unsigned d3 = (unsigned)g[6] | (unsigned)g[7] << 8;
	return sw_arena_printf(a, "%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X0", d1, d2, d3,
	                       g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

#endif
