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
	const char *source_register;  /* the register that held the crash
	                                 address, NULL: none did */
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

/* The candidates for a crash at `address` (not mapped; non_canonical: an
 * amd64 address really used that the crash did not report), one bit
 * flipped within the word, that are mapped or null, for each register
 * that held the address (else with no register), in bit order; at most
 * max into out. The count. */
unsigned sw_bit_flips(const struct sw_snapshot *s, uint64_t address, bool non_canonical,
                      const struct sw_bit_flip_regs *regs, struct sw_bit_flip *out,
                      unsigned max);

#endif
