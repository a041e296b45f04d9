#include "signal_frame.h"

#include <string.h>

#include "lib/walker.h"

bool sw_sigframe_read_fields(const struct sw_walk *w, uint64_t addr, unsigned size,
                             bool big_endian, unsigned n, uint64_t *out)
{
	uint8_t buf[SW_SIGFRAME_MAX_FIELDS * 8];
	if ((size != 2 && size != 4 && size != 8) || n > SW_SIGFRAME_MAX_FIELDS || n == 0)
		return false;
	size_t len = (size_t)size * n;
	/* A block that would wrap around the address space is not there. */
	if (addr > UINT64_MAX - len || !sw_walk_read(w, addr, buf, len))
		return false;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *b = buf + (size_t)i * size;
		uint64_t v = 0;
		for (unsigned j = 0; j < size; j++)
			v |= (uint64_t)b[big_endian ? size - 1 - j : j] << (8 * j);
		out[i] = v;
	}
	return true;
}

enum sw_unwind_status sw_sigframe_restore(const struct sw_walk *w, uint64_t addr, unsigned size,
                                          const struct sw_sigframe_slot *slots, size_t nslots,
                                          struct sw_caller *out)
{
	unsigned n = 0;
	for (size_t i = 0; i < nslots; i++)
		if (slots[i].field + 1u > n)
			n = slots[i].field + 1u;
	uint64_t fields[SW_SIGFRAME_MAX_FIELDS];
	if (!sw_sigframe_read_fields(w, addr, size, w->snap->sys.big_endian, n, fields))
		return SW_UNWIND_FAILED;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < nslots; i++)
		sw_reg_set(&out->regs, slots[i].reg, fields[slots[i].field]);
	out->restored_context = true;
	return SW_UNWIND_OK;
}
