/* MemoryList (MINIDUMP_MEMORY_LIST) and Memory64List
 * (MINIDUMP_MEMORY64_LIST, full-memory dumps whose ranges' bytes follow one
 * another from BaseRva on). Regions point into the mapped file. */
#include <stdio.h>

#include "minidump_internal.h"

enum {
	MD_MEMORY_DESCRIPTOR_SIZE = 16,   /* MINIDUMP_MEMORY_DESCRIPTOR */
	MD_MEMORY64_DESCRIPTOR_SIZE = 16, /* MINIDUMP_MEMORY_DESCRIPTOR64 */
	MD_MEMORY64_HEADER = 16,
};

void md_read_memory_list(struct md_reader *r, struct sw_span s)
{
	struct sw_span list;
	uint32_t n = md_list(r, s, 4, sw_u32(s, 0), MD_MEMORY_DESCRIPTOR_SIZE, "memory list", &list);
	for (uint32_t i = 0; i < n; i++) {
		struct sw_span d, bytes;
		/* md_list sized `list` to hold n whole records: this cannot
		 * fail, and stopping if it ever does reads no descriptor twice. */
		if (!sw_span_sub(list, (uint64_t)i * MD_MEMORY_DESCRIPTOR_SIZE,
		                 MD_MEMORY_DESCRIPTOR_SIZE, &d))
			break;
		uint64_t base = sw_u64(d, 0);
		char what[64];
		snprintf(what, sizeof what, "memory range %u (0x%llx)", i, (unsigned long long)base);
		/* A range cut by the end of the file keeps its intact start. */
		md_location(r, sw_u32(d, 8), sw_u32(d, 12), what, &bytes);
		md_add_memory(r, base, bytes);
	}
}

void md_read_memory64_list(struct md_reader *r, struct sw_span s)
{
	struct sw_span list;
	uint64_t count = sw_u64(s, 0);
	uint64_t rva = sw_u64(s, 8);
	uint32_t n = md_list(r, s, MD_MEMORY64_HEADER, count, MD_MEMORY64_DESCRIPTOR_SIZE,
	                     "memory64 list", &list);
	for (uint32_t i = 0; i < n; i++) {
		struct sw_span d, bytes;
		if (!sw_span_sub(list, (uint64_t)i * MD_MEMORY64_DESCRIPTOR_SIZE,
		                 MD_MEMORY64_DESCRIPTOR_SIZE, &d))
			break;  /* cannot happen: see md_read_memory_list */
		uint64_t base = sw_u64(d, 0);
		uint64_t size = sw_u64(d, 8);
		char what[64];
		snprintf(what, sizeof what, "memory64 range %u (0x%llx)", i, (unsigned long long)base);
		if (!md_location(r, size, rva, what, &bytes)) {
			md_add_memory(r, base, bytes);
			break;  /* every later range lies beyond this one */
		}
		md_add_memory(r, base, bytes);
		rva += size;
	}
}
