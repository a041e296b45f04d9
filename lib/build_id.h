/* An ELF module's identifiers from its GNU build-id (NT_GNU_BUILD_ID), as
 * Breakpad names them: shared by the readers that meet build-ids (a
 * minidump's 'BpEL' CodeView record, an offline capture's ELF files). */
#ifndef SW_BUILD_ID_H
#define SW_BUILD_ID_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "span.h"

enum { SW_BUILD_ID_MAX = 256 }; /* bytes of a build-id kept in a code id */

/* The code id: the whole build-id in lower-case hex (at most
 * SW_BUILD_ID_MAX bytes of it), in arena a; NULL when out of memory. */
static inline const char *sw_build_id_code_id(struct sw_arena *a, struct sw_span id)
{
	uint64_t n = id.size > SW_BUILD_ID_MAX ? SW_BUILD_ID_MAX : id.size;
	char *out = sw_arena_alloc(a, (size_t)n * 2 + 1);
	if (!out)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", sw_u8(id, i));
	out[2 * n] = '\0';
	return out;
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
