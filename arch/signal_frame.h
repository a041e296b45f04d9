/* Shared by every CPU's caller_of_signal_frame: reading the signal frame
 * the kernel pushed, one bounds-checked read per frame. Each arch file
 * knows its trampoline's code and its frame's layout; this file knows
 * neither. */
#ifndef SW_ARCH_SIGNAL_FRAME_H
#define SW_ARCH_SIGNAL_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/arch.h"

struct sw_walk;

/* The most fields a restore reads (MIPS n64's sigcontext, from its
 * general registers to sc_pc past the floating-point ones, is the
 * longest). */
enum { SW_SIGFRAME_MAX_FIELDS = 80 };

/* Reads n consecutive unsigned fields of `size` bytes (2, 4 or 8) at addr
 * through sw_walk_read (snapshot memory, else the module's file bytes),
 * in the given byte order. False when any byte cannot be read. */
bool sw_sigframe_read_fields(const struct sw_walk *w, uint64_t addr, unsigned size,
                             bool big_endian, unsigned n, uint64_t *out);

/* Where a register was saved: field `field` of the register block. */
struct sw_sigframe_slot {
	uint8_t reg;       /* our register number */
	uint8_t field;     /* index of the field from the block's start */
};

/* Fills out->regs from the register block at addr (fields of `size` bytes
 * in the snapshot's byte order): one read of the fields up to the highest
 * slot, then every slot. SW_UNWIND_OK, or SW_UNWIND_FAILED when the block
 * cannot be read. out->restored_context is set. */
enum sw_unwind_status sw_sigframe_restore(const struct sw_walk *w, uint64_t addr, unsigned size,
                                          const struct sw_sigframe_slot *slots, size_t nslots,
                                          struct sw_caller *out);

#endif
