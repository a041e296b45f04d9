/* What the crashing instruction did (lib/crash_analysis.c): crash_info's
 * instruction, memory_accesses, instruction_pointer_update,
 * adjusted_address, possible_bit_flips and crash_inconsistencies, found
 * once per report for the outputs. */
#ifndef SW_CRASH_ANALYSIS_H
#define SW_CRASH_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "bit_flips.h"
#include "disasm.h"
#include "snapshot.h"

struct sw_walk_result;

enum { SW_CRASH_MAX_ACCESSES = 8, SW_CRASH_MAX_FLIPS = 16 };

/* How crash_info.adjusted_address corrects the reported address
 * (rust-minidump's AdjustedAddress). */
enum sw_adjusted_kind {
	SW_ADJUSTED_NONE,
	/* The access's base register held 0: adjusted_address is the
	 * offset from it (kind "null-pointer"). */
	SW_ADJUSTED_NULL_POINTER,
	/* amd64: the crash reported no address (a general-protection fault:
	 * 0 on Linux, all ones on Windows) and the instruction used a
	 * non-canonical one, by an access or by where it sends the pc. */
	SW_ADJUSTED_NON_CANONICAL,
};

/* The reason the crash reports disagrees with its instruction
 * (rust-minidump's CrashInconsistency; the JSON names, in this order). */
enum sw_crash_inconsistency {
	SW_INCONSISTENT_INT_DIV_BY_ZERO = 1u << 0,    /* int_div_by_zero_not_possible */
	SW_INCONSISTENT_PRIVILEGED = 1u << 1,         /* priv_instruction_crash_without_priv_instruction */
	SW_INCONSISTENT_NON_CANONICAL = 1u << 2,      /* non_canonical_address_falsely_reported */
	SW_INCONSISTENT_ACCESS_NOT_FOUND = 1u << 3,   /* crashing_access_not_found_in_memory_accesses */
};
/* The JSON name of one inconsistency bit. */
const char *sw_crash_inconsistency_name(unsigned bit);

struct sw_crash_analysis {
	bool has_instruction;
	char instruction[160];
	int naccesses;                  /* -1: not known */
	struct sw_mem_access accesses[SW_CRASH_MAX_ACCESSES];
	bool has_ip_update;             /* where it sends the pc */
	uint64_t ip_update;
	/* The address lies in a likely guard page (rust-minidump's
	 * is_likely_guard_page): a mapping the snapshot lists without any
	 * permission, smaller than 32 KiB, next to one with some. */
	bool access_in_guard_page[SW_CRASH_MAX_ACCESSES];
	bool ip_update_in_guard_page;
	enum sw_adjusted_kind adjusted;
	uint64_t adjusted_address;      /* the address, or the null pointer's offset */
	/* Only for an address the instruction is known to have used (an
	 * access, the pc's update, its own address), never for one a crash
	 * reports without use, nor for a null pointer plus an offset. */
	unsigned nflips;
	struct sw_bit_flip flips[SW_CRASH_MAX_FLIPS];
	unsigned inconsistencies;       /* enum sw_crash_inconsistency bits */
};

/* Fills a from the crashing thread's frame 0 when the snapshot says a
 * thread crashed and the code at its pc was at hand; else a says nothing
 * (naccesses -1, the rest empty). */
void sw_crash_analyze(const struct sw_snapshot *s, const struct sw_walk_result *w,
                      struct sw_crash_analysis *a);

#endif
