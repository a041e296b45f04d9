/* Bit flips (lib/bit_flips.h). The heuristics and their weights are
 * rust-minidump's (minidump-processor, process_state.rs: BitFlipDetails,
 * confidence), so that its JSON's possible_bit_flips and ours agree. */
#include "bit_flips.h"

#include <string.h>

bool sw_address_is_mapped(const struct sw_snapshot *s, uint64_t addr)
{
	for (uint32_t i = 0; i < s->nmodules; i++) {
		const struct sw_module *m = &s->modules[i];
		if (addr >= m->base && addr - m->base < m->size)
			return true;
	}
	return sw_mapping_at(s, addr) != NULL || sw_mem_find(s, addr) != NULL;
}

/* How close a register must be to count as nearby, and below what a
 * crash address is low (rust-minidump: NEARBY_REGISTER_DISTANCE, 1 << 12,
 * and twice that). */
enum { NEARBY = 1u << 12, LOW = 2 * NEARBY };

/* The confidence weights (rust-minidump's `confidence` module). */
static const float BASELINE = 0.25f, NON_CANONICAL = 0.90f, NULL_ADDRESS = 0.50f,
                   ORIGINAL_LOW = 0.50f, POISON = 0.50f;
static const float NEARBY_REGISTER[4] = { 0.50f, 0.55f, 0.60f, 0.65f };

/* A word of one byte repeated whose byte is an allocator's or a
 * runtime's poison (jemalloc's 0xa5 and 0xe5, Firefox's JS poison
 * values, MSVC's 0xcc/0xcd/0xdd-like fills, as rust-minidump lists them). */
static bool is_poison(uint64_t v, unsigned word_size)
{
	uint64_t b = v & 0xff, rep = word_size == 4 ? b * 0x01010101u : b * 0x0101010101010101u;
	if (v != rep)
		return false;
	static const uint8_t poison[] = { 0x2b, 0x2d, 0x2f, 0x49, 0x4b, 0x4d, 0x4f, 0x6b, 0x8b,
		                          0x9b, 0x9f, 0xa5, 0xbb, 0xcc, 0xcd, 0xce, 0xdb, 0xe5 };
	return memchr(poison, (int)b, sizeof poison) != NULL;
}

/* 1 - product(1 - v): the chance that at least one reason holds. */
static float combine(const float *v, unsigned n)
{
	float p = 1.0f;
	for (unsigned i = 0; i < n; i++)
		p *= 1.0f - v[i];
	return 1.0f - p;
}

static void score(struct sw_bit_flip *f, uint64_t original, const struct sw_bit_flip_regs *regs)
{
	f->is_null = f->address == 0;
	f->was_low = f->is_null && original <= LOW;
	for (unsigned i = 0; regs && i < regs->count; i++) {
		uint64_t v;
		const char *name;
		if (!regs->get(regs->ctx, i, &v, &name))
			continue;
		uint64_t d = v > f->address ? v - f->address : f->address - v;
		if (f->address > LOW && d <= NEARBY)
			f->nearby_registers++;
		f->poison_registers |= is_poison(v, regs->word_size);
	}
	float v[4];
	unsigned n = 0;
	v[n++] = BASELINE;
	if (f->was_non_canonical)
		v[n++] = NON_CANONICAL;
	if (f->is_null)
		v[n++] = f->was_low ? NULL_ADDRESS * ORIGINAL_LOW : NULL_ADDRESS;
	if (f->nearby_registers > 0)
		v[n++] = NEARBY_REGISTER[(f->nearby_registers < 4 ? f->nearby_registers : 4) - 1];
	f->confidence = combine(v, n);
	if (f->poison_registers)
		f->confidence *= POISON;
}

unsigned sw_bit_flips(const struct sw_snapshot *s, uint64_t address, bool non_canonical,
                      const struct sw_bit_flip_source *sources, unsigned nsources,
                      const struct sw_bit_flip_regs *regs, struct sw_bit_flip *out,
                      unsigned max)
{
	unsigned bits = regs && regs->word_size == 4 ? 32 : 64, n = 0;
	if (sw_address_is_mapped(s, address))
		return 0;
	struct sw_bit_flip_source self = { NULL, address };
	if (nsources == 0) {
		sources = &self;
		nsources = 1;
	}
	for (unsigned k = 0; k < nsources && n < max; k++) {
		uint64_t original = sources[k].value;
		for (unsigned b = 0; b < bits && n < max; b++) {
			uint64_t a = original ^ (UINT64_C(1) << b);
			if (a != 0 && !sw_address_is_mapped(s, a))
				continue;
			out[n] = (struct sw_bit_flip){ .address = a, .source_register = sources[k].name,
			                               .was_non_canonical = non_canonical };
			score(&out[n], original, regs);
			n++;
		}
	}
	return n;
}
