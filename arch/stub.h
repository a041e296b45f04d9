/* Shared by the CPUs whose call_target hook follows PLT entries (arm,
 * arm64, mips, riscv): where a PLT entry jumps, read from its GOT slot. */
#ifndef SW_ARCH_STUB_H
#define SW_ARCH_STUB_H

#include <stdbool.h>
#include <stdint.h>

struct sw_walk;

/* The word in GOT slot `slot` (size 4 or 8 bytes, the snapshot's byte
 * order), as the snapshot holds it. */
bool sw_stub_slot_value(const struct sw_walk *w, uint64_t slot, unsigned size, uint64_t *v);

/* Where the PLT entry at `stub` jumps through its GOT slot at `slot`
 * (size bytes, 4 or 8, in the snapshot's byte order): true and *dest
 * (the code pointer stripped of what the arch's strip_code_pointer
 * removes, and of bit 0, ARM's Thumb bit) when the snapshot captured the
 * slot and it points into another module than the stub's. The slot is
 * read from captured memory only: the file holds it unrelocated. A slot
 * pointing back into the stub's own module is no answer: an unbound lazy
 * slot holds the address of the PLT's first entry, which calls the
 * dynamic loader's resolver, and nothing here tells that from a function
 * of the module itself reached through its own PLT. */
bool sw_stub_through_slot(const struct sw_walk *w, uint64_t stub, uint64_t slot, unsigned size,
                          uint64_t *dest);

#endif
