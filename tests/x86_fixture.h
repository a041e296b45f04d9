/* The synthetic amd64 (and x86) snapshot that test_walker.c, test_amd64.c
 * and test_x86.c build their stacks in: one module of code whose bytes are
 * in the snapshot, a library without them, one stack, one thread; the
 * call instructions their tests put in it; and a fake symbol provider for
 * module 0 whose unwind rule each test chooses. */
#ifndef SW_TEST_X86_FIXTURE_H
#define SW_TEST_X86_FIXTURE_H

#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "synthetic_snapshot.h"

/* amd64 DWARF register numbers (arch/amd64.c). */
enum { RBX = 3, RBP = 6, RSP = 7, RIP = 16 };
/* x86 (arch/x86.c). */
enum { X86_ESP = 4, X86_EBP = 5, X86_EIP = 8 };

#define CODE_BASE 0x400000ull
#define CODE_SIZE 0x2000ull
#define LIB_BASE 0x7f0000000000ull
#define STACK_BASE 0x7ffd0000ull
#define STACK_SIZE 0x1000ull
/* The fake symbols' functions: one per 256 bytes of code. */
#define FAKE_FUNCTION_SIZE 0x100ull

/* One module of code whose bytes are in the snapshot, a library without
 * them, one stack, one thread. */
static inline void fixture_init(struct fixture *fx, enum sw_os os)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "synthetic", .cpu = SW_CPU_AMD64, .os = os, .word_size = 8,
		.code = { CODE_BASE, CODE_SIZE }, .stack = { STACK_BASE, STACK_SIZE },
		.fill = 0x90, .fill_size = 1, /* nop: no call anywhere */
		.thread_id = 7,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/bin/app" },
		             { .base = LIB_BASE, .size = 0x10000, .code_file = "/lib/libc.so" } },
		.nmodules = 2 });
}

static inline void fixture_finish(struct fixture *fx)
{
	sw_snapshot_finish(&fx->snap);
}

/* Puts a 5-byte `call rel32` so that it ends at return address ra. */
static inline void put_call_before(struct fixture *fx, uint64_t ra)
{
	*syn_code_at(fx, ra - 5, 5) = 0xe8;
}

/* push %rbp; mov %rsp,%rbp at fn: a function that keeps a frame record. */
static inline void put_frame_setup(struct fixture *fx, uint64_t fn)
{
	memcpy(syn_code_at(fx, fn, 4), "\x55\x48\x89\xe5", 4);
}

static inline void set_context(struct fixture *fx, uint64_t rip, uint64_t rsp, uint64_t rbp)
{
	sw_reg_set(&fx->thread.ctx, RIP, rip);
	sw_reg_set(&fx->thread.ctx, RSP, rsp);
	sw_reg_set(&fx->thread.ctx, RBP, rbp);
}

/* ---- a fake symbol provider for module 0 ---- */

enum fake_rule { RULE_NONE, RULE_CFA_RSP_16, RULE_END, RULE_BAD_SP, RULE_LOW_PC, RULE_STACK_PC,
                 RULE_NULL_PC, RULE_NULL_PC_FROM_0x400, RULE_CFA_RSP_16_FROM_0x400 };

struct fake_symbols {
	enum fake_rule rule;
	const char *name;            /* the function's name: "func" */
	bool is_public;              /* PUBLIC records: no prologue analysis */
	/* Module offsets covered by functions named "func": one every
	 * FAKE_FUNCTION_SIZE bytes, each starting at its block's start. */
	uint64_t func_lo, func_hi;
	/* With has_section: the module's executable section starts at
	 * section_start (module offset), as section headers would say. */
	bool has_section;
	uint64_t section_start;
	uint32_t ninlines;
	struct sw_sym_inline inlines[2];
	struct sw_module_symbols module;
	struct sw_symbol_source source;
};

static inline bool fake_lookup(void *self, uint64_t off, struct sw_arena *a,
                               struct sw_sym_info *out)
{
	(void)a;
	struct fake_symbols *fs = self;
	if (off < fs->func_lo || off >= fs->func_hi)
		return false;
	memset(out, 0, sizeof *out);
	out->function = fs->name ? fs->name : "func";
	out->is_public = fs->is_public;
	out->function_offset = off - off % FAKE_FUNCTION_SIZE;
	if (out->function_offset < fs->func_lo)
		out->function_offset = fs->func_lo;
	out->function_size = FAKE_FUNCTION_SIZE;
	out->file = "app.c";
	out->line = 10;
	out->line_offset = off;
	out->inlines = fs->inlines;
	out->ninlines = fs->ninlines;
	return true;
}

static inline bool fake_has_function(void *self, uint64_t off)
{
	struct fake_symbols *fs = self;
	return off >= fs->func_lo && off < fs->func_hi;
}

static inline enum sw_unwind_status fake_unwind(void *self, uint64_t off,
                                                const struct sw_unwind_env *env,
                                                struct sw_caller *out, enum sw_trust *trust)
{
	struct sw_regs *caller = &out->regs;
	struct fake_symbols *fs = self;
	uint64_t rsp = env->callee->regs.v[RSP], ra;
	switch (fs->rule) {
	case RULE_NONE: return SW_UNWIND_NO_RULE;
	case RULE_END: return SW_UNWIND_END;
	case RULE_CFA_RSP_16:
		if (!sw_walk_read_word(env->walk, rsp + 8, &ra))
			return SW_UNWIND_FAILED;
		sw_reg_set(caller, RIP, ra);
		sw_reg_set(caller, RSP, rsp + 16);
		break;
	case RULE_BAD_SP:
		sw_reg_set(caller, RIP, CODE_BASE + 0x100);
		sw_reg_set(caller, RSP, rsp - 16);
		break;
	case RULE_LOW_PC:
		sw_reg_set(caller, RIP, 0x10);
		sw_reg_set(caller, RSP, rsp + 16);
		break;
	case RULE_STACK_PC:
		sw_reg_set(caller, RIP, rsp + 8);
		sw_reg_set(caller, RSP, rsp + 16);
		break;
	case RULE_NULL_PC:
		sw_reg_set(caller, RIP, 0);
		sw_reg_set(caller, RSP, rsp + 16);
		break;
	case RULE_CFA_RSP_16_FROM_0x400: /* no rule below module offset 0x400 */
		if (off < 0x400)
			return SW_UNWIND_NO_RULE;
		if (!sw_walk_read_word(env->walk, rsp + 8, &ra))
			return SW_UNWIND_FAILED;
		sw_reg_set(caller, RIP, ra);
		sw_reg_set(caller, RSP, rsp + 16);
		break;
	case RULE_NULL_PC_FROM_0x400: /* no rule below module offset 0x400 */
		if (off < 0x400)
			return SW_UNWIND_NO_RULE;
		sw_reg_set(caller, RIP, 0);
		sw_reg_set(caller, RSP, rsp + 16);
		break;
	}
	*trust = SW_TRUST_CFI;
	return SW_UNWIND_OK;
}

static inline bool fake_code_section_start(void *self, uint64_t off, uint64_t *start)
{
	struct fake_symbols *fs = self;
	if (!fs->has_section || off < fs->section_start)
		return false;
	*start = fs->section_start;
	return true;
}

static const struct sw_symbols_ops fake_ops = {
	.lookup = fake_lookup,
	.unwind = fake_unwind,
	.has_function = fake_has_function,
	.code_section_start = fake_code_section_start,
};

static inline void fake_init(struct fake_symbols *fs, enum fake_rule rule)
{
	memset(fs, 0, sizeof *fs);
	fs->rule = rule;
	fs->func_lo = 0;
	fs->func_hi = CODE_SIZE;
	fs->module = (struct sw_module_symbols){ &fake_ops, fs };
	fs->source = (struct sw_symbol_source){ .self = &fs->module, .for_module = syn_module0_symbols };
}

static inline const struct sw_stack *walk(struct fixture *fx, const struct sw_symbol_source *src,
                                          const struct sw_walk_options *opt)
{
	const struct sw_stack *st = syn_walk(fx, &sw_arch_amd64, src, opt);
	ck_assert_uint_eq(fx->result.nstacks, 1);
	return st;
}

/* A call rel32 ending at ra whose target is `target`. */
static inline void put_call_to(struct fixture *fx, uint64_t ra, uint64_t target)
{
	uint8_t *c = syn_code_at(fx, ra - 5, 5);
	int32_t rel = (int32_t)(target - ra);
	c[0] = 0xe8;
	memcpy(c + 1, &rel, 4);
}

#endif
