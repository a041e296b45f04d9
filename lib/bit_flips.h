/* Bit flips: where a crash address that names no memory is one bit away
 * from an address that does (crash_info.possible_bit_flips). Bad memory
 * and cosmic rays flip bits; triage sets such crashes apart from bugs. */
#ifndef SW_BIT_FLIPS_H
#define SW_BIT_FLIPS_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot.h"

/* One candidate, with rust-minidump's heuristics (minidump-processor's
 * PossibleBitFlip and BitFlipDetails) and its confidence. */
struct sw_bit_flip {
	uint64_t address;             /* the address one bit away */
	const char *source_register;  /* the register whose value it corrects,
	                                 NULL: the crash address itself */
	bool was_non_canonical;       /* the crash address was non-canonical */
	bool is_null;                 /* the address one bit away is 0 */
	bool was_low;                 /* ... and the crash address was low */
	uint32_t nearby_registers;    /* registers within 4 KiB of it */
	bool poison_registers;        /* a register holds an allocator's poison */
	float confidence;
};

/* The frame's registers, for the heuristics: count of them, and value and
 * name of each valid one by index (false: not valid). */
struct sw_bit_flip_regs {
	unsigned count;
	bool (*get)(const void *ctx, unsigned i, uint64_t *value, const char **name);
	const void *ctx;
	unsigned word_size;           /* 4 or 8 */
};

/* Is addr backed by something in the snapshot: a module's image, a
 * captured memory region (a stack), a mapping the snapshot lists? */
bool sw_address_is_mapped(const struct sw_snapshot *s, uint64_t addr);

/* A register the crashing instruction computed its address from, or
 * jumped through, with its value (lib/disasm.h sw_address_registers). */
struct sw_bit_flip_source {
	const char *name;
	uint64_t value;
};

/* The candidates for a crash at `address` (not mapped, else none;
 * non_canonical: an amd64 address really used that the crash did not
 * report), as rust-minidump finds them: each source register's value
 * with one bit flipped (within the word) that is mapped or null, the
 * register named; with no source register (an absolute address), the
 * crash address's own. In bit order, at most max into out; the count. */
unsigned sw_bit_flips(const struct sw_snapshot *s, uint64_t address, bool non_canonical,
                      const struct sw_bit_flip_source *sources, unsigned nsources,
                      const struct sw_bit_flip_regs *regs, struct sw_bit_flip *out,
                      unsigned max);

#endif
