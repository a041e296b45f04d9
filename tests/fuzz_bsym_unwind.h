/* The Breakpad-symbol fuzz targets' unwinds (fuzz_breakpad_sym.c,
 * fuzz_sym_index.c): a provider's STACK CFI / STACK WIN rules run at given
 * module offsets over a small stack made of the input's bytes, as the
 * walker runs them for a frame, with every register of the frame below
 * pointing into that stack. */
#ifndef STACKWALK_TESTS_FUZZ_BSYM_UNWIND_H
#define STACKWALK_TESTS_FUZZ_BSYM_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/walker.h"
#include "symbols/breakpad_sym.h"

/* Module 0's symbols, as the walker's symbol source serves them. */
static struct sw_module_symbols fuzz_module_symbols;

static const struct sw_module_symbols *fuzz_for_module(void *self, uint32_t m,
                                                       enum sw_symbols_status *st)
{
	(void)self;
	*st = m == 0 ? SW_SYMS_LOADED : SW_SYMS_MISSING;
	return m == 0 ? &fuzz_module_symbols : NULL;
}

/* Unwinds with b's rules for arch at each of offs (offsets in a module at
 * 0x400000) over a 512-byte stack at 0x10000 filled from data. */
static void fuzz_bsym_unwind(struct sw_bsym *b, const struct sw_arch *arch, const uint64_t *offs,
                             size_t noffs, const uint8_t *data, size_t size)
{
	static uint8_t stack[512];
	for (size_t i = 0; i < sizeof stack; i++)
		stack[i] = size ? data[i % size] : 0;
	struct sw_snapshot snap;
	sw_snapshot_init(&snap, "fuzz");
	snap.sys.cpu = arch->cpu;
	snap.sys.word_size = arch->word_size;
	struct sw_mem_region region = { 0x10000, sizeof stack, stack };
	struct sw_module module = { .base = 0x400000, .size = 0x100000, .code_file = "m" };
	snap.mem = &region;
	snap.nmem = 1;
	snap.modules = &module;
	snap.nmodules = 1;
	sw_snapshot_finish(&snap);
	fuzz_module_symbols = (struct sw_module_symbols){ &sw_bsym_ops, b };
	struct sw_symbol_source src = { .self = NULL, .for_module = fuzz_for_module };
	struct sw_arena arena;
	sw_arena_init(&arena);
	struct sw_walk walk = { .snap = &snap, .arch = arch, .symbols = &src, .arena = &arena,
	                        .stack_lo = 0x10000, .stack_hi = 0x10000 + sizeof stack };
	struct sw_frame callee, callee_callee;
	memset(&callee, 0, sizeof callee);
	memset(&callee_callee, 0, sizeof callee_callee);
	callee.trust = SW_TRUST_CONTEXT;
	for (unsigned r = 0; r < arch->nregs; r++)
		sw_reg_set(&callee.regs, r, 0x10000 + 8 * r);
	callee_callee.lookup_pc = 0x401000;
	struct sw_unwind_env env = { .arch = arch, .walk = &walk, .callee = &callee,
	                             .module_base = 0x400000, .callee_callee = &callee_callee };
	for (size_t i = 0; i < noffs; i++) {
		struct sw_caller caller;
		enum sw_trust trust;
		sw_bsym_ops.unwind(b, offs[i], &env, &caller, &trust);
	}
	sw_arena_free(&arena);
	snap.mem = NULL;
	snap.modules = NULL;
	sw_snapshot_free(&snap);
}

#endif
