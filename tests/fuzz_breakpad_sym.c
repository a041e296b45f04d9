/* libFuzzer: arbitrary bytes as a .sym file, then lookups and unwinds
 * (amd64 STACK CFI, x86 STACK WIN + CFI) over a small fake stack. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "symbols/breakpad_sym.h"
#include "symbols/postfix.h"

#include "fuzz_bsym_unwind.h"

static struct sw_bsym *g_bsym;
/* Where the unwinds run: offsets around the records a .sym usually has. */
static const uint64_t unwind_offsets[] = { 0, 1, 0x1000, 0x1004, 0x2000, 0x10000, UINT64_MAX };

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
		size_t n = sizeof unwind_offsets / sizeof unwind_offsets[0];
		fuzz_bsym_unwind(g_bsym, &sw_arch_amd64, unwind_offsets, n, data, size);
		fuzz_bsym_unwind(g_bsym, &sw_arch_x86, unwind_offsets, n, data, size);
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
