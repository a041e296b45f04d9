/* A register set: values indexed by the architecture's register numbers
 * (struct sw_arch.reg_names), with a mask of the ones that are known. */
#ifndef SW_REGS_H
#define SW_REGS_H

#include <stdbool.h>
#include <stdint.h>

enum { SW_MAX_REGS = 64 };

struct sw_regs {
	uint64_t v[SW_MAX_REGS];
	uint64_t valid;           /* bit i: v[i] is known */
	uint32_t context_flags;   /* raw flags of the format's context record */
};

static inline bool sw_reg_valid(const struct sw_regs *r, unsigned i)
{
	return i < SW_MAX_REGS && (r->valid >> i) & 1;
}

static inline void sw_reg_set(struct sw_regs *r, unsigned i, uint64_t v)
{
	if (i < SW_MAX_REGS) {
		r->v[i] = v;
		r->valid |= (uint64_t)1 << i;
	}
}

/* Forgets register i: the caller has no known value for it. */
static inline void sw_reg_clear(struct sw_regs *r, unsigned i)
{
	if (i < SW_MAX_REGS) {
		r->v[i] = 0;
		r->valid &= ~((uint64_t)1 << i);
	}
}

static inline uint64_t sw_reg_get(const struct sw_regs *r, unsigned i)
{
	return i < SW_MAX_REGS ? r->v[i] : 0;
}

#endif
