/* Following a PLT entry through its GOT slot (System V ABI, "Procedure
 * Linkage Table": an entry jumps to the address the dynamic loader wrote
 * into the entry's slot of the global offset table). */
#include "stub.h"

#include "lib/walker.h"

bool sw_stub_slot_value(const struct sw_walk *w, uint64_t slot, unsigned size, uint64_t *v)
{
	uint8_t b[8];
	if ((size != 4 && size != 8) || !sw_mem_peek(w->snap, slot, b, size))
		return false;
	*v = 0;
	for (unsigned i = 0; i < size; i++)
		*v |= (uint64_t)b[w->snap->sys.big_endian ? i : size - 1 - i] << (8 * (size - 1 - i));
	return true;
}

bool sw_stub_through_slot(const struct sw_walk *w, uint64_t stub, uint64_t slot, unsigned size,
                          uint64_t *dest)
{
	uint64_t v;
	if (!sw_stub_slot_value(w, slot, size, &v))
		return false;
	/* Bit 0 of an ARM (Thumb) or MIPS (microMIPS, MIPS16) code address
	 * says the instruction set, not the address; x86 code may start at
	 * any byte. */
	bool byte_aligned = w->arch->cpu == SW_CPU_X86 || w->arch->cpu == SW_CPU_AMD64;
	v = w->arch->strip_code_pointer(w, v) & ~(uint64_t)(byte_aligned ? 0 : 1);
	int32_t home = sw_module_at(w->snap, stub);
	if (v == 0 || (home >= 0 && sw_module_at(w->snap, v) == home))
		return false;
	*dest = v;
	return true;
}
