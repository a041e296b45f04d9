/* libFuzzer: arbitrary bytes as a .sym file, then lookups and unwinds
 * (amd64 STACK CFI, x86 STACK WIN + CFI) over a small fake stack. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "symbols/breakpad_sym.h"
#include "symbols/postfix.h"

static struct sw_bsym *g_bsym;
static struct sw_module_symbols g_ms;

static const struct sw_module_symbols *fuzz_for_module(void *self, uint32_t m,
                                                       enum sw_symbols_status *st)
{
	(void)self;
	*st = m == 0 ? SW_SYMS_LOADED : SW_SYMS_MISSING;
	return m == 0 ? &g_ms : NULL;
}

static void unwind_with(const struct sw_arch *arch, const uint8_t *data, size_t size)
{
	static uint8_t stack[512];
	for (size_t i = 0; i < sizeof stack; i++)
		stack[i] = size ? data[i % size] : 0;
	struct sw_snapshot snap;
	sw_snapshot_init(&snap, "fuzz");
	snap.sys.cpu = arch->cpu;
	snap.sys.word_size = arch->word_size;
	struct sw_mem_region region = {0x10000, sizeof stack, stack};
	struct sw_module module = {.base = 0x400000, .size = 0x100000, .code_file = "m"};
	snap.mem = &region;
	snap.nmem = 1;
	snap.modules = &module;
	snap.nmodules = 1;
	sw_snapshot_finish(&snap);
	struct sw_symbol_source src = { .self = NULL, .for_module = fuzz_for_module };
	struct sw_arena arena;
	sw_arena_init(&arena);
	struct sw_walk walk = {.snap = &snap, .arch = arch, .symbols = &src, .arena = &arena,
	                       .stack_lo = 0x10000, .stack_hi = 0x10000 + sizeof stack};
	struct sw_frame callee, callee_callee;
	memset(&callee, 0, sizeof callee);
	memset(&callee_callee, 0, sizeof callee_callee);
	callee.trust = SW_TRUST_CONTEXT;
	for (unsigned r = 0; r < arch->nregs; r++)
		sw_reg_set(&callee.regs, r, 0x10000 + 8 * r);
	callee_callee.lookup_pc = 0x401000;
	struct sw_unwind_env env = {.arch = arch, .walk = &walk, .callee = &callee,
	                            .module_base = 0x400000, .callee_callee = &callee_callee};
	static const uint64_t offs[] = {0, 1, 0x1000, 0x1004, 0x2000, 0x10000, UINT64_MAX};
	for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
		struct sw_caller caller;
		enum sw_trust trust;
		sw_bsym_ops.unwind(g_bsym, offs[i], &env, &caller, &trust);
	}
	sw_arena_free(&arena);
	snap.mem = NULL;
	snap.modules = NULL;
	sw_snapshot_free(&snap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly `size` bytes: reads past it are caught by ASan. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	struct sw_err err = {0};
	g_bsym = sw_bsym_parse(text, size, "fuzz", &err);
	if (g_bsym) {
		g_ms = (struct sw_module_symbols){&sw_bsym_ops, g_bsym};
		struct sw_arena a;
		sw_arena_init(&a);
		static const uint64_t offs[] = {0, 1, 0x10, 0x1000, 0x1004, 0x2000,
		                                0xffffffff, UINT64_MAX};
		for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
			struct sw_sym_info info;
			sw_bsym_ops.lookup(g_bsym, offs[i], &a, &info);
			sw_bsym_ops.has_function(g_bsym, offs[i]);
		}
		struct sw_bsym_module m;
		sw_bsym_module(g_bsym, &m);
		sw_arena_free(&a);
		unwind_with(&sw_arch_amd64, data, size);
		unwind_with(&sw_arch_x86, data, size);
		sw_bsym_free(g_bsym);
	}
	/* The postfix evaluator on the raw bytes too. */
	struct sw_pf_dict d;
	sw_pf_dict_init(&d);
	sw_pf_dict_set(&d, "$esp", 0x1000);
	struct sw_postfix pf = {.dict = &d, .word_size = 4};
	uint64_t v;
	sw_postfix_eval(&pf, text, size, &v);
	sw_postfix_run(&pf, text, size);
	free(text);
	return 0;
}
