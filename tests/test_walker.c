/* The walker on synthetic amd64 and x86 stacks: one test per trust path and
 * per termination rule, as Breakpad's stackwalker unit tests do. */
#include <check.h>
#include <stdatomic.h>
#include <string.h>

#include "arch/registry.h"
#include "arch/x86_call.h"
#include "arch/x86_prologue.h"
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
static void fixture_init(struct fixture *fx, enum sw_os os)
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

static void fixture_finish(struct fixture *fx)
{
	sw_snapshot_finish(&fx->snap);
}

/* Puts a 5-byte `call rel32` so that it ends at return address ra. */
static void put_call_before(struct fixture *fx, uint64_t ra)
{
	*syn_code_at(fx, ra - 5, 5) = 0xe8;
}

/* push %rbp; mov %rsp,%rbp at fn: a function that keeps a frame record. */
static void put_frame_setup(struct fixture *fx, uint64_t fn)
{
	memcpy(syn_code_at(fx, fn, 4), "\x55\x48\x89\xe5", 4);
}

static void set_context(struct fixture *fx, uint64_t rip, uint64_t rsp, uint64_t rbp)
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
	uint32_t ninlines;
	struct sw_sym_inline inlines[2];
	struct sw_module_symbols module;
	struct sw_symbol_source source;
};

static bool fake_lookup(void *self, uint64_t off, struct sw_arena *a, struct sw_sym_info *out)
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

static bool fake_has_function(void *self, uint64_t off)
{
	struct fake_symbols *fs = self;
	return off >= fs->func_lo && off < fs->func_hi;
}

static enum sw_unwind_status fake_unwind(void *self, uint64_t off, const struct sw_unwind_env *env,
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

static const struct sw_symbols_ops fake_ops = {
	.lookup = fake_lookup,
	.unwind = fake_unwind,
	.has_function = fake_has_function,
};

static void fake_init(struct fake_symbols *fs, enum fake_rule rule)
{
	memset(fs, 0, sizeof *fs);
	fs->rule = rule;
	fs->func_lo = 0;
	fs->func_hi = CODE_SIZE;
	fs->module = (struct sw_module_symbols){ &fake_ops, fs };
	fs->source = (struct sw_symbol_source){ .self = &fs->module, .for_module = syn_module0_symbols };
}

static const struct sw_stack *walk(struct fixture *fx, const struct sw_symbol_source *src,
                                   const struct sw_walk_options *opt)
{
	const struct sw_stack *st = syn_walk(fx, &sw_arch_amd64, src, opt);
	ck_assert_uint_eq(fx->result.nstacks, 1);
	return st;
}

/* ---- tests ---- */

START_TEST(test_walk_context_frame_alone_when_nothing_follows)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x100, 0);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->frames[0].trust, SW_TRUST_CONTEXT);
	ck_assert_uint_eq(st->frames[0].pc, CODE_BASE + 0x10);
	ck_assert_uint_eq(st->frames[0].lookup_pc, CODE_BASE + 0x10);
	ck_assert_int_eq(st->frames[0].module, 0);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_walk_cfi_caller)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_CFA_RSP_16);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_u64(&fx, sp + 8, LIB_BASE + 0x1234); /* library: no symbols, no rules */
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(st->frames[1].pc, LIB_BASE + 0x1234);
	ck_assert_uint_eq(st->frames[1].lookup_pc, LIB_BASE + 0x1233);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), sp + 16);
	ck_assert_int_eq(st->frames[1].module, 1);
	ck_assert_str_eq(st->frames[0].function, "func");
	ck_assert_int_eq(fx.result.module_status[0], SW_SYMS_LOADED);
	ck_assert_int_eq(fx.result.module_status[1], SW_SYMS_MISSING);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_walk_ends_where_cfi_says_no_caller)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_END);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	/* A word a scan would accept: the walk must not reach it. */
	put_call_before(&fx, CODE_BASE + 0x200);
	put_u64(&fx, sp, CODE_BASE + 0x200);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_OUTERMOST);
	ck_assert(!st->truncated);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_walk_frame_pointer_chain)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x180, fp2 = STACK_BASE + 0x200;
	set_context(&fx, CODE_BASE + 0x10, sp, fp1);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_call_before(&fx, CODE_BASE + 0x400);
	put_u64(&fx, fp1, fp2);
	put_u64(&fx, fp1 + 8, CODE_BASE + 0x300);
	put_u64(&fx, fp2, 0);
	put_u64(&fx, fp2 + 8, CODE_BASE + 0x400);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), fp1 + 16);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RBP), fp2);
	/* The record whose saved rbp is 0 (main's: _start cleared rbp) still
	 * names a caller: the last frame of the chain. */
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x400);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], RBP), 0);
	/* fp2's saved rbp is 0 < fp2: the chain ends there (stack must grow). */
	fixture_free(&fx);
}
END_TEST

START_TEST(test_frame_pointer_chain_not_followed_on_windows)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_WINDOWS);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x180;
	set_context(&fx, CODE_BASE + 0x10, sp, fp1);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_u64(&fx, fp1, STACK_BASE + 0x400);
	put_u64(&fx, fp1 + 8, CODE_BASE + 0x300);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	/* Found anyway, but by scanning: the slot at fp1 + 8 is the only one. */
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), fp1 + 16);
	fixture_free(&fx);
}
END_TEST

/* A crash in code the snapshot lacks (a Linux core holds no code of the
 * files it mapped): rbp may be a caller's record, and below a caller's
 * record lies this function's own return address. */
/* A crash in LIB (no code captured) with rbp at a record naming a caller
 * in CODE; with ra_below, a return address lies between sp and it. */
static const struct sw_stack *walk_live_rbp(struct fixture *fx, bool ra_below)
{
	fixture_init(fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x180;
	set_context(fx, LIB_BASE + 0x10, sp, fp1);
	put_call_before(fx, CODE_BASE + 0x300);
	if (ra_below)
		put_u64(fx, sp + 0x20, LIB_BASE + 0x340); /* no code: any call may have led here */
	put_u64(fx, fp1, 0);
	put_u64(fx, fp1 + 8, CODE_BASE + 0x300);
	static const struct sw_walk_options opt = { .no_scan = true };
	return walk(fx, NULL, &opt);
}

START_TEST(test_live_rbp_in_uncaptured_code_needs_no_return_address_below_it)
{
	struct fixture fx;
	/* Only locals below the record: it is the frame's own. */
	const struct sw_stack *st = walk_live_rbp(&fx, false);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	fixture_free(&fx);

	/* The function's return address below it: the record is its caller's,
	 * and following it would skip that caller. */
	st = walk_live_rbp(&fx, true);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

static void put_call_to(struct fixture *fx, uint64_t ra, uint64_t target);

/* GCC moves a function's unlikely code to a cold part placed before it
 * (f7.cold below f7). A live rbp in the cold part, below which lies the
 * return address of a direct call to the function (its start above the
 * pc, but its code jumps down to the part holding the pc): that is the
 * frame's own return address, so the record is a caller's (zoo x86_64
 * nofp 24, stripped: four frames skipped). */
START_TEST(test_live_rbp_in_a_cold_part_below_its_function_needs_no_return_address_below_it)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t fn = CODE_BASE + 0x400, cold = CODE_BASE + 0x100;
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x180;
	uint8_t *je = syn_code_at(&fx, fn, 7);                   /* je cold; ret */
	int32_t rel = (int32_t)(cold - (fn + 6));
	je[0] = 0x0f;
	je[1] = 0x84;
	memcpy(je + 2, &rel, 4);
	je[6] = 0xc3;
	set_context(&fx, cold + 0x20, sp, fp1);
	put_call_to(&fx, CODE_BASE + 0x605, fn);                 /* the caller's call */
	put_u64(&fx, sp + 0x20, CODE_BASE + 0x605);
	put_call_before(&fx, CODE_BASE + 0x900);
	put_u64(&fx, fp1, 0);
	put_u64(&fx, fp1 + 8, CODE_BASE + 0x900);
	static const struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

/* A handler's return into a restorer whose code the snapshot lacks: the
 * rt_sigframe the kernel wrote proves the signal frame (uc_flags, the
 * user code and stack selectors, fpstate above the frame). */
START_TEST(test_signal_frame_known_by_its_data_without_restorer_code)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, uc = sp + 8;
	struct fake_symbols fs;
	fake_init(&fs, RULE_CFA_RSP_16);
	/* frame 0 (CFI: CFA = rsp + 16) returns into the restorer at [sp + 8] */
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_u64(&fx, sp + 8, LIB_BASE + 0x2050);
	uc = sp + 16;
	uint64_t mc = uc + 40;
	put_u64(&fx, uc, 7);                         /* uc_flags */
	put_u64(&fx, mc + 10 * 8, 0);                /* rbp */
	put_u64(&fx, mc + 15 * 8, STACK_BASE + 0x800); /* rsp */
	put_u64(&fx, mc + 16 * 8, LIB_BASE + 0x3000);  /* rip */
	put_u64(&fx, mc + 18 * 8, 0x002b000000000033ull); /* cs, gs, fs, ss */
	put_u64(&fx, mc + 23 * 8, uc + 0x200);         /* fpstate */
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk(&fx, &fs.source, &opt);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[2].pc, LIB_BASE + 0x3000);
	ck_assert(st->frames[2].restored_context);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], RSP), STACK_BASE + 0x800);
	fixture_free(&fx);

	/* The same words with a kernel data selector where cs belongs: no
	 * signal frame. */
	fixture_init(&fx, SW_OS_LINUX);
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_u64(&fx, sp + 8, LIB_BASE + 0x2050);
	put_u64(&fx, uc, 7);
	put_u64(&fx, mc + 15 * 8, STACK_BASE + 0x800);
	put_u64(&fx, mc + 16 * 8, LIB_BASE + 0x3000);
	put_u64(&fx, mc + 18 * 8, 0x002b000000000018ull);
	st = walk(&fx, &fs.source, &opt);
	ck_assert_uint_eq(st->nframes, 2);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_scan_accepts_address_after_call)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_u64(&fx, sp, 0x1234);               /* not code */
	put_u64(&fx, sp + 8, STACK_BASE + 0x10); /* a stack pointer */
	put_call_before(&fx, CODE_BASE + 0x500);
	put_u64(&fx, sp + 16, CODE_BASE + 0x500);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x500);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), sp + 24);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_scan_rejects_address_without_call)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_u64(&fx, sp + 8, CODE_BASE + 0x500); /* code bytes before it: nops */
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_scan_rejects_address_outside_any_function)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fs.func_hi = 0x400; /* module offsets 0x400.. are in no function */
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x500);
	put_u64(&fx, sp + 8, CODE_BASE + 0x500);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_scan_accepts_unverifiable_code_in_module)
{
	/* The library's code is not in the snapshot and it has no symbols:
	 * as Breakpad, the module range is all there is to check. */
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_u64(&fx, sp + 8, LIB_BASE + 0x777);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_scan_reaches_further_for_context_frame_only)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x500);
	put_call_before(&fx, CODE_BASE + 0x600);
	put_u64(&fx, sp + 100 * 8, CODE_BASE + 0x500);     /* within 160 words */
	put_u64(&fx, sp + 101 * 8 + 50 * 8, CODE_BASE + 0x600); /* 50 > 40 words on */
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x500);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_walk_stops_when_stack_does_not_grow)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_BAD_SP);
	set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x100, 0);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk(&fx, &fs.source, &opt);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_walk_stops_at_pc_below_first_page)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_LOW_PC);
	set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x100, 0);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_walk_stops_at_cfi_pc_on_the_stack)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_STACK_PC);
	set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x100, 0);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* Item 9 of the step contract: a CFI rule whose return address is a stack
 * address is a failed rule for that step, not the end of the walk: a
 * validated scan from the callee's frame still gets its turn (Windows x64
 * thread-start chains that Breakpad reaches by scanning). */
START_TEST(test_cfi_pc_on_the_stack_falls_through_to_scan)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_WINDOWS);
	fake_init(&fs, RULE_STACK_PC);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x800);
	put_u64(&fx, sp + 0x20, CODE_BASE + 0x800);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x800);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), sp + 0x28);
	fixture_free(&fx);
}
END_TEST

/* ... unless the callee is a function nothing calls: then the walk ends. */
START_TEST(test_failed_cfi_at_an_entry_point_ends_the_walk)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_STACK_PC);
	fs.name = "_start";
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x800);
	put_u64(&fx, sp + 0x20, CODE_BASE + 0x800); /* junk a scan would take */
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_OUTERMOST);
	fixture_free(&fx);
}
END_TEST

/* A CFI result whose sp does not grow falls through to the frame pointer. */
START_TEST(test_cfi_sp_not_growing_falls_through_to_frame_pointer)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_BAD_SP);
	uint64_t sp = STACK_BASE + 0x100, rbp = STACK_BASE + 0x200;
	set_context(&fx, CODE_BASE + 0x10, sp, rbp);
	put_frame_setup(&fx, CODE_BASE);
	put_call_before(&fx, CODE_BASE + 0x900);
	put_u64(&fx, rbp, STACK_BASE + 0x300);
	put_u64(&fx, rbp + 8, CODE_BASE + 0x900);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x900);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), rbp + 16);
	fixture_free(&fx);
}
END_TEST

/* CFI that yields a NULL return address with a stack that grows is an
 * intact chain's end (thread entries push 0): no scan past it. */
START_TEST(test_cfi_null_return_address_ends_the_walk)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NULL_PC);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x800);
	put_u64(&fx, sp + 0x20, CODE_BASE + 0x800);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* Nothing proves a caller: the walk ends and says so, no guess. */
START_TEST(test_walk_without_evidence_ends_with_no_caller_found)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_u64(&fx, sp + 8, CODE_BASE + 0x300); /* in a module, but no call before it */
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	ck_assert(!st->truncated);
	ck_assert_ptr_eq(st->arch, &sw_arch_amd64);
	fixture_free(&fx);
}
END_TEST

/* Breakpad's per-context CPU choice: a thread whose context names another
 * CPU is walked with that CPU's table. */
static const struct sw_arch *only_x86(enum sw_cpu cpu)
{
	return cpu == SW_CPU_X86 ? &sw_arch_x86 : NULL;
}

START_TEST(test_thread_walked_with_its_context_cpu)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	fx.thread.cpu = SW_CPU_X86;
	sw_reg_set(&fx.thread.ctx, X86_EIP, 0x401000);
	sw_reg_set(&fx.thread.ctx, X86_ESP, STACK_BASE + 0x100);
	struct sw_walk_options opt = { .arch_for_cpu = only_x86 };
	const struct sw_stack *st = walk(&fx, NULL, &opt);
	ck_assert_ptr_eq(st->arch, &sw_arch_x86);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_uint_eq(st->frames[0].pc, 0x401000);
	fixture_free(&fx);
}
END_TEST

/* Hostile arithmetic: a stack region whose end wraps past 2^64 and a frame
 * pointer at the top of the address space neither crash nor loop. */
START_TEST(test_wrapping_stack_bounds_and_frame_pointer_are_refused)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	fx.thread.stack_base = 0xfffffffffffff000ull;
	fx.thread.stack_size = 0x10000;
	set_context(&fx, CODE_BASE + 0x10, 0xfffffffffffffff0ull, 0xfffffffffffffff8ull);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* DWARF register numbers map to ours, which differ above 31. */
START_TEST(test_dwarf_register_numbers_map_to_ours)
{
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_amd64, 16), RIP);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_amd64, 49), 17); /* rflags */
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_amd64, 33), -1);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_amd64, 500), -1);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_x86, 8), X86_EIP);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_arm64, 31), 31);  /* sp */
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_arm64, 30), 30);  /* x30 */
}
END_TEST

START_TEST(test_inline_frames_precede_their_physical_frame)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_END);
	fs.ninlines = 2;
	fs.inlines[0] = (struct sw_sym_inline){ "outer_inline", "a.c", 42 };
	fs.inlines[1] = (struct sw_sym_inline){ "inner_inline", "b.c", 7 };
	set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x100, 0);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[0].trust, SW_TRUST_INLINE);
	ck_assert_str_eq(st->frames[0].function, "inner_inline");
	ck_assert_str_eq(st->frames[0].file, "app.c"); /* the line record */
	ck_assert_uint_eq(st->frames[0].line, 10);
	ck_assert_str_eq(st->frames[1].function, "outer_inline");
	ck_assert_str_eq(st->frames[1].file, "b.c");   /* where inner was inlined */
	ck_assert_uint_eq(st->frames[1].line, 7);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_CONTEXT);
	ck_assert_str_eq(st->frames[2].function, "func");
	ck_assert_str_eq(st->frames[2].file, "a.c");   /* where outer was inlined */
	ck_assert_uint_eq(st->frames[2].line, 42);
	ck_assert_uint_eq(st->frames[2].ninlines, 2);
	fixture_free(&fx);
}
END_TEST

/* The context at the stack's bottom, and every word above it a return
 * address after a call: a scan finds a frame in each (~500). */
/* Every stack word a return address after a call (two alternating ones:
 * a return address repeated in adjacent scanned frames is one frame). */
static void fill_stack_with_return_addresses(struct fixture *fx)
{
	uint64_t sp = STACK_BASE + 0x10;
	set_context(fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(fx, CODE_BASE + 0x500);
	put_call_before(fx, CODE_BASE + 0x600);
	for (uint64_t a = sp; a + 8 <= STACK_BASE + STACK_SIZE; a += 8)
		put_u64(fx, a, CODE_BASE + ((a / 8) % 2 ? 0x500 : 0x600));
}

START_TEST(test_max_frames_caps_the_walk)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	fill_stack_with_return_addresses(&fx);
	struct sw_walk_options opt = { .max_frames = 5 };
	const struct sw_stack *st = walk(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 5);
	ck_assert(st->truncated);
	ck_assert_int_eq(st->end, SW_END_FRAME_LIMIT);
	fixture_free(&fx);
}
END_TEST

/* Breakpad's cap on scanned frames: when only a scan could go on and the
 * thread had its share, the walk is cut and says so. */
START_TEST(test_scan_limit_truncates_and_says_so)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	fill_stack_with_return_addresses(&fx);
	struct sw_walk_options opt = { .max_scanned = 3 };
	const struct sw_stack *st = walk(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 4);
	ck_assert_uint_eq(st->scanned, 3);
	ck_assert(st->truncated);
	ck_assert_int_eq(st->end, SW_END_SCAN_LIMIT);
	fixture_free(&fx);
}
END_TEST

static const struct sw_module_symbols *no_symbols(void *self, uint32_t m,
                                                  enum sw_symbols_status *st)
{
	(void)self;
	(void)m;
	*st = SW_SYMS_MISSING;
	return NULL;
}

/* Six threads walked at once (a concurrent symbol source, threads = 4)
 * give what one after the other gives, also when the frame budget cuts
 * the later threads short (a serial walk spends it in thread order: the
 * parallel walk is then done again serially). */
START_TEST(test_parallel_walk_gives_the_serial_result)
{
	enum { NT = 6 };
	const uint64_t budgets[2] = {0, 1200};
	for (int b = 0; b < 2; b++) {
		uint32_t nframes[2][NT], ends[2][NT];
		uint64_t last_pc[2][NT];
		for (int par = 0; par < 2; par++) {
			struct fixture fx;
			fixture_init(&fx, SW_OS_LINUX);
			fill_stack_with_return_addresses(&fx);
			struct sw_thread threads[NT];
			for (int i = 0; i < NT; i++) {
				threads[i] = fx.thread;
				threads[i].id = 100 + (uint32_t)i;
			}
			fx.snap.threads = threads;
			fx.snap.nthreads = NT;
			struct sw_symbol_source src = {.for_module = no_symbols, .concurrent = true};
			struct sw_walk_options opt = {.threads = par ? 4 : 1, .frame_budget = budgets[b]};
			sw_snapshot_finish(&fx.snap);
			ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_amd64, &src, &opt, &fx.arena,
			                           &fx.result));
			ck_assert_uint_eq(fx.result.nstacks, NT);
			for (int i = 0; i < NT; i++) {
				const struct sw_stack *st = &fx.result.stacks[i];
				nframes[par][i] = st->nframes;
				ends[par][i] = st->end;
				last_pc[par][i] = st->nframes ? st->frames[st->nframes - 1].pc : 0;
			}
			fixture_free(&fx);
		}
		for (int i = 0; i < NT; i++) {
			ck_assert_uint_eq(nframes[0][i], nframes[1][i]);
			ck_assert_uint_eq(ends[0][i], ends[1][i]);
			ck_assert_uint_eq(last_pc[0][i], last_pc[1][i]);
		}
		/* The budget did cut: the last thread got only its first frame. */
		if (budgets[b]) {
			ck_assert_uint_eq(ends[0][NT - 1], SW_END_FRAME_BUDGET);
			ck_assert_uint_eq(nframes[0][NT - 1], 1);
		} else {
			ck_assert_uint_gt(nframes[0][NT - 1], 100);
		}
	}
}
END_TEST

/* What a parallel walk asks a concurrent source to load before walking:
 * each thread's context pc's module, then the modules its first 4 KiB of
 * stack point into, each once, in that order; and nothing for a walk on
 * one thread. */
struct prefetch_log {
	atomic_uint n;
	uint32_t module[8];
};

static void log_prefetch(void *self, uint32_t module)
{
	struct prefetch_log *log = self;
	uint32_t i = atomic_fetch_add(&log->n, 1);
	if (i < 8)
		log->module[i] = module;
}

START_TEST(test_parallel_walk_loads_the_modules_its_stacks_name_first)
{
	for (int par = 0; par < 2; par++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		/* Thread 1's pc is in the library; both stacks hold a word
		 * into the program past a word into no module. */
		set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x10, 0);
		put_u64(&fx, STACK_BASE + 0x10, 0x1234);
		put_u64(&fx, STACK_BASE + 0x18, CODE_BASE + 0x500);
		put_u64(&fx, STACK_BASE + 0x20, LIB_BASE + 0x40);
		struct sw_thread threads[2] = {fx.thread, fx.thread};
		threads[1].id = 8;
		sw_reg_set(&threads[1].ctx, RIP, LIB_BASE + 0x10);
		fx.snap.threads = threads;
		fx.snap.nthreads = 2;
		struct prefetch_log log = {0};
		struct sw_symbol_source src = {.self = &log, .for_module = no_symbols,
		                               .concurrent = true, .prefetch = log_prefetch};
		struct sw_walk_options opt = {.threads = par ? 2 : 1};
		sw_snapshot_finish(&fx.snap);
		ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_amd64, &src, &opt, &fx.arena,
		                           &fx.result));
		if (!par) {
			ck_assert_uint_eq(atomic_load(&log.n), 0);
		} else {
			ck_assert_uint_eq(atomic_load(&log.n), 2);
			ck_assert_uint_eq(log.module[0], 0); /* thread 0's pc: the program */
			ck_assert_uint_eq(log.module[1], 1); /* its stack: the library */
		}
		fixture_free(&fx);
	}
}
END_TEST

START_TEST(test_crashing_thread_starts_from_exception_context)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x100, 0);
	fx.snap.crash.present = true;
	fx.snap.crash.thread_id = 7;
	sw_reg_set(&fx.snap.crash.ctx, RIP, CODE_BASE + 0x20);
	sw_reg_set(&fx.snap.crash.ctx, RSP, STACK_BASE + 0x100);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_int_eq(fx.result.crashing, 0);
	ck_assert(st->used_crash_context);
	ck_assert_uint_eq(st->frames[0].pc, CODE_BASE + 0x20);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_thread_without_context_has_no_frames)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_eq(st->nframes, 0);
	fixture_free(&fx);
}
END_TEST

/* x86: the ebp chain and the scan's ebp recovery. */
START_TEST(test_x86_frame_pointer_then_scan)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_WINDOWS);
	fx.snap.sys.cpu = SW_CPU_X86;
	fx.snap.sys.word_size = 4;
	fx.modules[1].base = 0x7c800000; /* 32-bit addresses */
	uint64_t esp = STACK_BASE + 0x100, ebp = STACK_BASE + 0x140;
	sw_reg_set(&fx.thread.ctx, X86_EIP, CODE_BASE + 0x10);
	sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
	sw_reg_set(&fx.thread.ctx, X86_EBP, ebp);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_u32(&fx, ebp, 0);                      /* saved ebp: end of chain */
	put_u32(&fx, ebp + 4, CODE_BASE + 0x300);
	fixture_finish(&fx);
	ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, NULL, NULL, &fx.arena, &fx.result));
	const struct sw_stack *st = &fx.result.stacks[0];
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_ESP), ebp + 8);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_EIP), CODE_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* GCC's i386 main realigns its stack: it keeps the CFA in ecx, copies its
 * return address above the realigned sp, makes its record there and
 * saves ecx after three pushes. The caller's esp is that saved CFA, not
 * ebp + 8, which lies in the realigned area where the caller's rules
 * would read stale words (zoo i386 70, static -Os: a `.cold` word of
 * libc became a frame). */
START_TEST(test_x86_realigned_main_gives_its_caller_the_saved_cfa)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fx.snap.sys.cpu = SW_CPU_X86;
	fx.snap.sys.word_size = 4;
	fx.modules[1].base = 0x7c800000;
	static const uint8_t main_code[] = {
		0x8d, 0x4c, 0x24, 0x04,       /* lea 0x4(%esp),%ecx */
		0x83, 0xe4, 0xf0,             /* and $-16,%esp */
		0xff, 0x71, 0xfc,             /* push -0x4(%ecx) */
		0x55, 0x89, 0xe5,             /* push %ebp; mov %esp,%ebp */
		0x57, 0x56, 0x53,             /* push %edi, %esi, %ebx */
		0xe8, 0, 0, 0, 0,             /* call the pc thunk */
		0x81, 0xc3, 0, 0x10, 0, 0,    /* add $0x1000,%ebx */
		0x51,                         /* push %ecx */
	};
	memcpy(syn_code_at(&fx, CODE_BASE + 0x100, sizeof main_code), main_code, sizeof main_code);
	uint64_t esp = STACK_BASE + 0x100, ebp = STACK_BASE + 0x140, cfa = STACK_BASE + 0x168;
	sw_reg_set(&fx.thread.ctx, X86_EIP, CODE_BASE + 0x140);
	sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
	sw_reg_set(&fx.thread.ctx, X86_EBP, ebp);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_u32(&fx, ebp, 0);
	put_u32(&fx, ebp + 4, CODE_BASE + 0x300);  /* the copy */
	put_u32(&fx, ebp - 16, (uint32_t)cfa);     /* the saved ecx */
	put_u32(&fx, cfa - 4, CODE_BASE + 0x300);  /* the return address itself */
	fixture_finish(&fx);
	ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, &fs.source, NULL, &fx.arena,
	                           &fx.result));
	const struct sw_stack *st = &fx.result.stacks[0];
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_EIP), CODE_BASE + 0x300);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_ESP), cfa);
	fixture_free(&fx);
}
END_TEST

/* A broken frame chain (a record at a plausible ebp whose return address
 * names no code) lets a scan go on only with a word the code bytes prove:
 * a word in a module whose code is not captured is Breakpad's rule alone. */
static const struct sw_stack *walk_x86_broken_chain(struct fixture *fx, bool code_captured)
{
	fixture_init(fx, SW_OS_LINUX);
	fx->snap.sys.cpu = SW_CPU_X86;
	fx->snap.sys.word_size = 4;
	fx->modules[1].base = 0x7c800000; /* 32-bit addresses, no code captured */
	uint64_t esp = STACK_BASE + 0x100, ebp = STACK_BASE + 0x140;
	sw_reg_set(&fx->thread.ctx, X86_EIP, CODE_BASE + 0x10);
	sw_reg_set(&fx->thread.ctx, X86_ESP, esp);
	sw_reg_set(&fx->thread.ctx, X86_EBP, ebp);
	put_u32(fx, ebp, STACK_BASE + 0x200);
	put_u32(fx, ebp + 4, 0x00b0b0b0);          /* no module: the chain is broken */
	uint64_t ra = code_captured ? CODE_BASE + 0x300 : 0x7c801234;
	if (code_captured)
		put_call_before(fx, ra);
	put_u32(fx, esp + 8, (uint32_t)ra);
	fixture_finish(fx);
	ck_assert(sw_walk_snapshot(&fx->snap, &sw_arch_x86, NULL, NULL, &fx->arena, &fx->result));
	return &fx->result.stacks[0];
}

START_TEST(test_scan_after_broken_chain_needs_code_bytes)
{
	struct fixture fx;
	const struct sw_stack *st = walk_x86_broken_chain(&fx, false);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);

	st = walk_x86_broken_chain(&fx, true);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* The call check, on every encoding of a near call (Intel SDM "CALL"). */
static bool call_check(const uint8_t *bytes, size_t n)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t ra = CODE_BASE + 0x100;
	memcpy(&fx.code[ra - CODE_BASE - n], bytes, n);
	fixture_finish(&fx);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
	bool known;
	bool r = sw_x86_call_precedes(&w, ra, &known);
	ck_assert(known);
	fixture_free(&fx);
	return r;
}


/* A frame found by scanning may be a stale return address: its rules read
 * the wrong slots, and a NULL return address there is a failed rule, not
 * the chain's end; the scan goes on from its frame. */
START_TEST(test_null_return_from_a_scanned_frame_is_a_failed_rule)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NULL_PC_FROM_0x400);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x500);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_u64(&fx, sp + 8, CODE_BASE + 0x500);
	put_u64(&fx, sp + 0x18, CODE_BASE + 0x300);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x500);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* A call rel32 ending at ra whose target is `target`. */
static void put_call_to(struct fixture *fx, uint64_t ra, uint64_t target)
{
	uint8_t *c = syn_code_at(fx, ra - 5, 5);
	int32_t rel = (int32_t)(target - ra);
	c[0] = 0xe8;
	memcpy(c + 1, &rel, 4);
}

/* The stack keeps the return addresses of calls that returned: one into
 * the function the callee is running is left over from that function's
 * own earlier call, unless the call went to the function's own start. */
START_TEST(test_scan_refuses_a_return_into_the_callees_own_function)
{
	/* Function 0 allocates 16 bytes (sub $0x10, %rsp): its return
	 * address is at rsp + 0x10. PUBLIC records name it, so no prologue
	 * analysis runs and the scan decides. */
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fs.is_public = true;
	uint64_t sp = STACK_BASE + 0x100;
	memcpy(syn_code_at(&fx, CODE_BASE, 4), "\x48\x83\xec\x10", 4);
	set_context(&fx, CODE_BASE + 0x40, sp, 0);
	put_call_to(&fx, CODE_BASE + 0x20, CODE_BASE + 0x800); /* func 0's earlier call */
	memcpy(syn_code_at(&fx, CODE_BASE + 0x20, 2), "\x89\xc2", 2); /* it returns */
	put_call_to(&fx, CODE_BASE + 0x310, CODE_BASE);        /* func 0x300 calls func 0 */
	put_u64(&fx, sp + 8, CODE_BASE + 0x20);
	put_u64(&fx, sp + 0x10, CODE_BASE + 0x310);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x310);
	fixture_free(&fx);

	/* A direct call to the function's own start is recursion. */
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fs.is_public = true;
	memcpy(syn_code_at(&fx, CODE_BASE, 4), "\x48\x83\xec\x10", 4);
	set_context(&fx, CODE_BASE + 0x40, sp, 0);
	put_call_to(&fx, CODE_BASE + 0x20, CODE_BASE);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x20, 2), "\x89\xc2", 2); /* not padding: it returns */
	put_u64(&fx, sp + 0x10, CODE_BASE + 0x20);
	st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x20);
	fixture_free(&fx);
}
END_TEST

/* Without symbols to name functions, a scan that finds the return address
 * of the frame it scans from again has found a stale copy: one frame. */
START_TEST(test_scan_takes_a_repeated_return_address_once)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x500);
	put_call_before(&fx, CODE_BASE + 0x600);
	put_u64(&fx, sp + 8, CODE_BASE + 0x500);
	put_u64(&fx, sp + 0x10, CODE_BASE + 0x500);
	put_u64(&fx, sp + 0x18, CODE_BASE + 0x600);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x500);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x600);
	fixture_free(&fx);
}
END_TEST

/* A word equal to a function's entry is a function pointer (a callback
 * passed on the stack), unless a direct call ends right before it (a call
 * to a noreturn function closing the function before). */
START_TEST(test_scan_refuses_a_function_entry_after_an_indirect_call)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fs.is_public = true;
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	/* call *%rax (ff d0) ends at 0x300, the entry of function 0x300. */
	memcpy(syn_code_at(&fx, CODE_BASE + 0x2fe, 2), "\xff\xd0", 2);
	put_call_before(&fx, CODE_BASE + 0x520);
	put_u64(&fx, sp + 8, CODE_BASE + 0x300);
	put_u64(&fx, sp + 0x10, CODE_BASE + 0x520);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
	fixture_free(&fx);

	/* A direct call before the entry: a noreturn call's return address. */
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fs.is_public = true;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	put_call_to(&fx, CODE_BASE + 0x300, CODE_BASE + 0x700);
	put_u64(&fx, sp + 8, CODE_BASE + 0x300);
	st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* A direct call into the executable cannot have led into libc, unless its
 * target is a stub (PLT entry) into libc: when the snapshot lacks the
 * target's code, which of the two it is is not known, and the word is
 * kept (a minidump's _start calls __libc_start_main@plt). */
static const struct sw_stack *walk_from_libc_past_call_to(struct fixture *fx, uint64_t target)
{
	fixture_init(fx, SW_OS_LINUX);
	fx->modules[0].size = 2 * CODE_SIZE; /* the second half not captured */
	uint64_t sp = STACK_BASE + 0x100;
	set_context(fx, LIB_BASE + 0x10, sp, 0);
	put_call_to(fx, CODE_BASE + 0x300, target);
	put_call_before(fx, CODE_BASE + 0x520);
	put_u64(fx, sp + 8, CODE_BASE + 0x300);
	put_u64(fx, sp + 0x10, CODE_BASE + 0x520);
	return walk(fx, NULL, NULL);
}

START_TEST(test_scan_keeps_a_call_to_uncaptured_code_of_another_module)
{
	struct fixture fx;
	const struct sw_stack *st = walk_from_libc_past_call_to(&fx, CODE_BASE + 0x700);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
	fixture_free(&fx);

	st = walk_from_libc_past_call_to(&fx, CODE_BASE + CODE_SIZE + 0x100);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* A scanned word whose direct call went to a closed function (its code
 * leaves only by its returns: i386's PIC thunk, a syscall wrapper) that
 * does not hold the callee's pc is that function's stale return address;
 * a target whose code jumps out (below its start: a .cold part, a tail
 * call) may reach anything, and the word stands. */
static const struct sw_stack *walk_past_call_to_code(struct fixture *fx, bool x86,
                                                      const char *code, size_t n)
{
	fixture_init(fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	const unsigned ws = x86 ? 4 : 8;
	if (x86) {
		fx->snap.sys.cpu = SW_CPU_X86;
		fx->snap.sys.word_size = 4;
		fx->modules[1].base = 0x7c800000;
		sw_reg_set(&fx->thread.ctx, X86_EIP, CODE_BASE + 0x10);
		sw_reg_set(&fx->thread.ctx, X86_ESP, sp);
		sw_reg_set(&fx->thread.ctx, X86_EBP, 0x1234);
	} else {
		set_context(fx, CODE_BASE + 0x10, sp, 0x1234);
	}
	memcpy(syn_code_at(fx, CODE_BASE + 0x700, n), code, n);
	put_call_to(fx, CODE_BASE + 0x300, CODE_BASE + 0x700);
	put_call_before(fx, CODE_BASE + 0x520);
	if (x86) {
		put_u32(fx, sp + ws, CODE_BASE + 0x300);
		put_u32(fx, sp + 2 * ws, CODE_BASE + 0x520);
	} else {
		put_u64(fx, sp + ws, CODE_BASE + 0x300);
		put_u64(fx, sp + 2 * ws, CODE_BASE + 0x520);
	}
	fixture_finish(fx);
	ck_assert(sw_walk_snapshot(&fx->snap, x86 ? &sw_arch_x86 : &sw_arch_amd64, NULL, NULL,
	                           &fx->arena, &fx->result));
	return &fx->result.stacks[0];
}

START_TEST(test_scan_refuses_a_call_to_a_closed_function_elsewhere)
{
	/* mov (%rsp),%rbx; ret  |  mov $0x83,%eax; syscall; cmp $-4095,%rax;
	 * jae +1; ret; or $-1,%rax; ret */
	static const char thunk[] = "\x48\x8b\x1c\x24\xc3";
	static const char wrapper[] = "\xb8\x83\x00\x00\x00\x0f\x05\x48\x3d\x01\xf0\xff\xff"
	                              "\x73\x01\xc3\x48\x83\xc8\xff\xc3";
	/* jae rel32 to 0x100, below the target (a .cold part); ret: not closed */
	static const char out[] = "\x0f\x83\xfa\xf9\xff\xff\xc3";
	for (int x86 = 0; x86 <= 1; x86++) {
		struct fixture fx;
		const struct sw_stack *st = walk_past_call_to_code(&fx, x86, thunk + (x86 ? 1 : 0),
		                                                   x86 ? 4 : 5);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
		fixture_free(&fx);

		st = walk_past_call_to_code(&fx, x86, wrapper, sizeof wrapper - 1);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
		fixture_free(&fx);

		st = walk_past_call_to_code(&fx, x86, out, sizeof out - 1);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
		fixture_free(&fx);
	}
}
END_TEST

/* A frame found by its record has a guessed stack pointer (i386 main
 * realigns its stack below the record): its CFI's caller must be a return
 * address, and a scan from it must not take its own return address again
 * (the copy realignment left) unless a direct call shows recursion. */
START_TEST(test_frame_record_callee_cfi_and_scan_are_checked)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_CFA_RSP_16_FROM_0x400);
	uint64_t sp = STACK_BASE + 0x100, rbp = STACK_BASE + 0x200;
	set_context(&fx, CODE_BASE + 0x10, sp, rbp);
	put_frame_setup(&fx, CODE_BASE);
	put_call_before(&fx, CODE_BASE + 0x900);
	put_call_before(&fx, CODE_BASE + 0xa00);
	put_u64(&fx, rbp, STACK_BASE + 0x800);         /* a broken record above */
	put_u64(&fx, STACK_BASE + 0x800, STACK_BASE + 0x900);
	put_u64(&fx, STACK_BASE + 0x808, 0x5000000); /* no code */
	put_u64(&fx, rbp + 8, CODE_BASE + 0x900);
	put_u64(&fx, rbp + 16, CODE_BASE + 0x1000);    /* no call before it */
	put_u64(&fx, rbp + 24, CODE_BASE + 0x1000);    /* CFI's [rsp + 8] */
	put_u64(&fx, rbp + 32, CODE_BASE + 0xa00);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0xa00);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_SCAN);
	fixture_free(&fx);

	/* No symbols: the record's return address again, after call *%rax. */
	fixture_init(&fx, SW_OS_LINUX);
	set_context(&fx, CODE_BASE + 0x10, sp, rbp);
	put_frame_setup(&fx, CODE_BASE);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x8fe, 2), "\xff\xd0", 2);
	put_call_before(&fx, CODE_BASE + 0xa00);
	put_u64(&fx, rbp, STACK_BASE + 0x800);
	put_u64(&fx, STACK_BASE + 0x800, STACK_BASE + 0x900);
	put_u64(&fx, STACK_BASE + 0x808, 0x5000000); /* no code */
	put_u64(&fx, rbp + 8, CODE_BASE + 0x900);
	put_u64(&fx, rbp + 16, CODE_BASE + 0x900);
	put_u64(&fx, rbp + 24, CODE_BASE + 0xa00);
	st = walk(&fx, NULL, NULL);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0xa00);
	fixture_free(&fx);
}
END_TEST

/* A closed function ends at a return past which no jump of its own
 * leads: a jump to the byte right after a return continues it. */
START_TEST(test_closed_function_ends_past_its_last_jump_target)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	/* jg +1; ret; ret */
	memcpy(syn_code_at(&fx, CODE_BASE + 0x700, 4), "\x7f\x01\xc3\xc3", 4);
	fixture_finish(&fx);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
	ck_assert(sw_x86_call_reaches(&w, CODE_BASE + 0x700, CODE_BASE + 0x703, true));
	ck_assert(!sw_x86_call_reaches(&w, CODE_BASE + 0x700, CODE_BASE + 0x704, true));
	ck_assert(!sw_x86_call_reaches(&w, CODE_BASE + 0x700, CODE_BASE + 0x10, false));
	fixture_free(&fx);
}
END_TEST

/* The decoder sizes what library code holds between a function's start
 * and its end: lock and rep prefixes, string instructions, cpuid,
 * xchg with eax, bswap, x87, the 0f 38 / 0f 3a maps; ud2 ends a path
 * (glibc's _int_malloc, mempcpy and __libc_start_main stopped it, so a
 * scanned return from them looked able to reach anything: zoo i386 78). */
START_TEST(test_closed_function_decodes_string_atomic_and_system_instructions)
{
	/* lock cmpxchg %edx,(%edi); rep movsl; movsb; cpuid; xchg %eax,%edi;
	 * bswap %eax; fnstsw %ax; pextrd $1,%xmm0,%eax; movbe %eax,(%edi);
	 * ud2; ret */
	static const char code[] = "\xf0\x0f\xb1\x17\xf3\xa5\xa4\x0f\xa2\x97\x0f\xc8\xdf\xe0"
	                           "\x66\x0f\x3a\x16\xc0\x01\x0f\x38\xf1\x07\x0f\x0b\xc3";
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x700, sizeof code - 1), code, sizeof code - 1);
	fixture_finish(&fx);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
	for (int is64 = 0; is64 <= 1; is64++) {
		ck_assert(sw_x86_call_reaches(&w, CODE_BASE + 0x700, CODE_BASE + 0x719, is64));
		ck_assert(!sw_x86_call_reaches(&w, CODE_BASE + 0x700, CODE_BASE + 0x71a, is64));
		ck_assert(!sw_x86_call_reaches(&w, CODE_BASE + 0x700, CODE_BASE + 0x10, is64));
	}
	fixture_free(&fx);

	/* A call followed by padding ends its function (a call that does not
	 * return: __stack_chk_fail ends glibc's __libc_sigaction, zoo i386
	 * 23); a single nop before more code does not (MSVC's nop between a
	 * call and an epilogue). */
	static const char noreturn[] = "\xe8\x00\x00\x00\x00\x66\x90\xc3";
	static const char msvc[] = "\xe8\x00\x00\x00\x00\x90\x48\x83\xc4\x28\xc3";
	fixture_init(&fx, SW_OS_LINUX);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x700, sizeof noreturn - 1), noreturn, sizeof noreturn - 1);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x800, sizeof msvc - 1), msvc, sizeof msvc - 1);
	fixture_finish(&fx);
	w.snap = &fx.snap;
	ck_assert(!sw_x86_call_reaches(&w, CODE_BASE + 0x700, CODE_BASE + 0x706, true));
	ck_assert(sw_x86_call_reaches(&w, CODE_BASE + 0x800, CODE_BASE + 0x806, true));
	fixture_free(&fx);
}
END_TEST

/* Without symbols a function's start is the nearest address after a
 * return or padding where a function's first instruction begins and from
 * which the code decodes to pc without ending first; the frame's code
 * from there says whether rbp holds its own record (zoo x86_64 nofp 27
 * musl and i386 65, 69, 70, 77 stripped or alone: a caller's record
 * skipped frames). */
START_TEST(test_x86_start_without_symbols_tells_whose_record_rbp_is)
{
	/* ret; nop x15 | sub $8,%rsp; mov %eax,%ecx; call *%rax; mov %eax,%edx */
	static const char sub[] = "\xc3\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90"
	                          "\x48\x83\xec\x08\x89\xc1\xff\xd0\x89\xc2";
	/* the same with push %rbp; mov %rsp,%rbp first */
	static const char rec[] = "\xc3\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90"
	                          "\x55\x48\x89\xe5\x89\xc1\xff\xd0\x89\xc2";
	/* a return between the candidate and pc: the function ended there */
	static const char ended[] = "\xc3\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90"
	                            "\x48\x83\xec\x08\xc3\x90\xff\xd0\x89\xc2";
	const char *codes[] = { sub, rec, ended };
	const enum sw_x86_frame want[] = { SW_X86_FRAME_NONE, SW_X86_FRAME_SET_UP,
		                           SW_X86_FRAME_UNKNOWN };
	for (int k = 0; k < 3; k++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		memcpy(syn_code_at(&fx, CODE_BASE + 0x100, sizeof sub - 1), codes[k], sizeof sub - 1);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
		uint64_t start = 0, ra = CODE_BASE + 0x118;
		bool found = sw_x86_start_without_symbols(&w, ra, true, &start);
		ck_assert(found == (k < 2));
		if (found)
			ck_assert_uint_eq(start, CODE_BASE + 0x110);
		struct sw_frame f;
		memset(&f, 0, sizeof f);
		f.pc = ra;
		f.lookup_pc = ra - 1;
		f.trust = SW_TRUST_SCAN;
		ck_assert_int_eq(sw_x86_frame_of(&w, &f, true), want[k]);
		fixture_free(&fx);
	}
}
END_TEST

/* i386 glibc enters the kernel by `call *%gs:0x10`: a word after such a
 * call is the return address of a frame in the kernel's entry code only
 * (right after int $0x80 here); above any other frame it is left over
 * from an earlier system call (zoo i386 78: under f4, from malloc's
 * brk). And a live ebp below which such a word lies is a caller's record
 * when the frame is in the entry code: the wrapper keeps none (zoo i386
 * 95, the core alone: it skipped raise and main). */
static const struct sw_stack *walk_i386_above_syscall(struct fixture *fx, bool in_entry,
                                                     bool record)
{
	fixture_init(fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	fx->snap.sys.cpu = SW_CPU_X86;
	fx->snap.sys.word_size = 4;
	fx->modules[1].base = 0x7c800000;
	sw_reg_set(&fx->thread.ctx, X86_EIP, CODE_BASE + 0x10);
	sw_reg_set(&fx->thread.ctx, X86_ESP, sp);
	sw_reg_set(&fx->thread.ctx, X86_EBP, record ? sp + 0x20 : 0x1234);
	if (in_entry)
		memcpy(syn_code_at(fx, CODE_BASE + 0xe, 2), "\xcd\x80", 2);
	memcpy(syn_code_at(fx, CODE_BASE + 0x300 - 7, 7), "\x65\xff\x15\x10\x00\x00\x00", 7);
	put_call_before(fx, CODE_BASE + 0x520);
	put_call_before(fx, CODE_BASE + 0x600);
	put_u32(fx, sp, CODE_BASE + 0x300);
	put_u32(fx, sp + 4, CODE_BASE + 0x520);
	put_u32(fx, sp + 0x20, sp + 0x40); /* a record: ebp, return address */
	put_u32(fx, sp + 0x24, CODE_BASE + 0x600);
	fixture_finish(fx);
	ck_assert(sw_walk_snapshot(&fx->snap, &sw_arch_x86, NULL, NULL, &fx->arena, &fx->result));
	return &fx->result.stacks[0];
}

START_TEST(test_i386_call_through_sysinfo_returns_only_from_the_kernel_entry)
{
	struct fixture fx;
	for (int record = 0; record <= 1; record++) {
		const struct sw_stack *st = walk_i386_above_syscall(&fx, true, record);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
		ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
		fixture_free(&fx);
	}
	const struct sw_stack *st = walk_i386_above_syscall(&fx, false, false);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
	fixture_free(&fx);
}
END_TEST

/* A frame record whose return address follows a direct call to a closed
 * function elsewhere (a record rbp still holds from an older frame, in code
 * without frame pointers) is not the callee's caller: the scan decides. */
START_TEST(test_frame_record_after_a_call_that_cannot_reach_the_callee_is_refused)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, rbp = STACK_BASE + 0x200;
	set_context(&fx, CODE_BASE + 0x10, sp, rbp);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x700, 5), "\x48\x8b\x1c\x24\xc3", 5);
	put_call_to(&fx, CODE_BASE + 0x900, CODE_BASE + 0x700);
	put_call_before(&fx, CODE_BASE + 0x520);
	put_u64(&fx, rbp, STACK_BASE + 0x300);
	put_u64(&fx, rbp + 8, CODE_BASE + 0x900);
	put_u64(&fx, sp + 8, CODE_BASE + 0x520);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
	fixture_free(&fx);
}
END_TEST

/* sigaction leaves the restorer's address in its caller's frame: a word
 * naming __restore_rt with no signal frame above it is passed over, and
 * the scan goes on to the real return address. */
START_TEST(test_scan_passes_over_a_restorer_without_a_signal_frame)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, CODE_BASE + 0x10, sp, 0);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x800, 9), "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05", 9);
	put_call_before(&fx, CODE_BASE + 0x520);
	put_u64(&fx, sp + 8, CODE_BASE + 0x800);
	put_u64(&fx, sp + 0x200, CODE_BASE + 0x520);
	const struct sw_stack *st = walk(&fx, NULL, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
	fixture_free(&fx);
}
END_TEST

/* A PLT entry (jmp *slot(%rip)) leads where its GOT slot says, to the
 * byte: x86 functions may start at odd addresses (bit 0 is ARM's Thumb
 * bit, not x86's). */
START_TEST(test_x86_call_target_follows_a_plt_entry_to_an_odd_address)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t stub = CODE_BASE + 0x700, slot = STACK_BASE + 0x800;
	put_call_to(&fx, CODE_BASE + 0x300, stub);
	uint8_t *c = syn_code_at(&fx, stub, 6);
	int32_t d = (int32_t)(slot - (stub + 6));
	c[0] = 0xff;
	c[1] = 0x25;
	memcpy(c + 2, &d, 4);
	put_u64(&fx, slot, LIB_BASE + 0x11b9);
	fixture_finish(&fx);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
	uint64_t target = 0;
	ck_assert(sw_x86_call_target(&w, CODE_BASE + 0x300, true, &target));
	ck_assert_uint_eq(target, LIB_BASE + 0x11b9);
	fixture_free(&fx);
}
END_TEST

/* i386 PIC code: a function whose prologue puts the GOT base in ebx (call
 * to a pc thunk, add $GOT-., %ebx) and, at ra, has called a PLT entry
 * jmp *12(%ebx) whose GOT slot holds `slot_value`. */
static void put_i386_pic_call(struct fixture *fx, uint64_t fn, uint64_t ra, uint64_t stub,
                              uint64_t got, uint32_t slot_value)
{
	uint64_t thunk = CODE_BASE + 0x100;
	memcpy(syn_code_at(fx, thunk, 4), "\x8b\x1c\x24\xc3", 4); /* mov (%esp),%ebx; ret */
	put_call_to(fx, fn + 6, thunk);
	uint8_t *add = syn_code_at(fx, fn + 6, 6);
	int32_t delta = (int32_t)(got - (fn + 6));
	add[0] = 0x81;
	add[1] = 0xc3;
	memcpy(add + 2, &delta, 4);
	put_call_to(fx, ra, stub);
	/* jmp *12(%ebx); push $0 (where an unbound slot points) */
	memcpy(syn_code_at(fx, stub, 11), "\xff\xa3\x0c\x00\x00\x00\x68\x00\x00\x00\x00", 11);
	put_u32(fx, got + 12, slot_value);
}

/* The PLT entry's slot is d32 from the GOT base the caller holds (i386
 * ABI §5): followed, to a function of the stub's own module too (a DSO
 * calling its own exported function); a slot not yet bound points back
 * at the entry's push $index and names no target. */
START_TEST(test_i386_call_target_follows_a_pic_plt_entry_through_the_callers_got)
{
	uint64_t fn = CODE_BASE + 0x200, ra = fn + 0x40, stub = CODE_BASE + 0x700;
	uint64_t got = STACK_BASE + 0x800;
	const uint32_t slots[2] = { (uint32_t)(CODE_BASE + 0x900), (uint32_t)(stub + 6) };
	for (unsigned i = 0; i < 2; i++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		put_i386_pic_call(&fx, fn, ra, stub, got, slots[i]);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86 };
		uint64_t target = 0;
		bool found = sw_x86_call_target(&w, ra, false, &target);
		ck_assert_int_eq(found, i == 0);
		if (found)
			ck_assert_uint_eq(target, CODE_BASE + 0x900);
		fixture_free(&fx);
	}
}
END_TEST

/* x86-64 code without unwind tables: push %rbx; sub $0x20, %rsp put the
 * return address 0x28 bytes above rsp (SysV AMD64 ABI 3.2.2), past a
 * return address a scan would take first; rbx comes back from its slot. */
START_TEST(test_amd64_prologue_finds_the_return_address_past_pushes_and_sub)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	uint64_t fn = CODE_BASE + 0x100, sp = STACK_BASE + 0x100;
	memcpy(syn_code_at(&fx, fn, 5), "\x53\x48\x83\xec\x20", 5);
	set_context(&fx, fn + 0x20, sp, 0);
	put_call_before(&fx, CODE_BASE + 0x500);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_u64(&fx, sp + 8, CODE_BASE + 0x500);  /* stale, in the frame */
	put_u64(&fx, sp + 0x20, 0x1234);           /* the caller's rbx */
	put_u64(&fx, sp + 0x28, CODE_BASE + 0x300);
	const struct sw_stack *st = walk(&fx, &fs.source, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), sp + 0x30);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RBX), 0x1234);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_call_check_decodes_each_call_form)
{
	static const uint8_t rel32[] = { 0xe8, 1, 2, 3, 4 };
	static const uint8_t reg[] = { 0xff, 0xd0 };                   /* call *%rax */
	static const uint8_t rex_reg[] = { 0x41, 0xff, 0xd3 };         /* call *%r11 */
	static const uint8_t mem[] = { 0xff, 0x10 };                   /* call *(%rax) */
	static const uint8_t disp8[] = { 0xff, 0x55, 0x08 };           /* call *8(%rbp) */
	static const uint8_t sib_disp8[] = { 0xff, 0x54, 0x24, 0x08 }; /* call *8(%rsp) */
	static const uint8_t riprel[] = { 0xff, 0x15, 1, 2, 3, 4 };    /* call *x(%rip) */
	static const uint8_t disp32[] = { 0xff, 0x90, 1, 2, 3, 4 };    /* call *x(%rax) */
	static const uint8_t sib_abs[] = { 0xff, 0x14, 0x85, 1, 2, 3, 4 }; /* call *x(,%rax,4) */
	ck_assert(call_check(rel32, sizeof rel32));
	ck_assert(call_check(reg, sizeof reg));
	ck_assert(call_check(rex_reg, sizeof rex_reg));
	ck_assert(call_check(mem, sizeof mem));
	ck_assert(call_check(disp8, sizeof disp8));
	ck_assert(call_check(sib_disp8, sizeof sib_disp8));
	ck_assert(call_check(riprel, sizeof riprel));
	ck_assert(call_check(disp32, sizeof disp32));
	ck_assert(call_check(sib_abs, sizeof sib_abs));
}
END_TEST

START_TEST(test_call_check_rejects_jumps_and_data)
{
	static const uint8_t jmp_mem[] = { 0xff, 0x25, 1, 2, 3, 4 }; /* jmp *x(%rip): /4 */
	static const uint8_t jmp_reg[] = { 0xff, 0xe0 };             /* jmp *%rax */
	static const uint8_t ret[] = { 0xc3 };
	ck_assert(!call_check(jmp_mem, sizeof jmp_mem));
	ck_assert(!call_check(jmp_reg, sizeof jmp_reg));
	ck_assert(!call_check(ret, sizeof ret));
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("walker");
	TCase *tc = tcase_create("walk");
	tcase_add_test(tc, test_walk_context_frame_alone_when_nothing_follows);
	tcase_add_test(tc, test_walk_cfi_caller);
	tcase_add_test(tc, test_walk_ends_where_cfi_says_no_caller);
	tcase_add_test(tc, test_walk_frame_pointer_chain);
	tcase_add_test(tc, test_frame_pointer_chain_not_followed_on_windows);
	tcase_add_test(tc, test_live_rbp_in_uncaptured_code_needs_no_return_address_below_it);
	tcase_add_test(tc, test_live_rbp_in_a_cold_part_below_its_function_needs_no_return_address_below_it);
	tcase_add_test(tc, test_signal_frame_known_by_its_data_without_restorer_code);
	tcase_add_test(tc, test_scan_accepts_address_after_call);
	tcase_add_test(tc, test_scan_rejects_address_without_call);
	tcase_add_test(tc, test_scan_rejects_address_outside_any_function);
	tcase_add_test(tc, test_scan_accepts_unverifiable_code_in_module);
	tcase_add_test(tc, test_scan_reaches_further_for_context_frame_only);
	tcase_add_test(tc, test_walk_stops_when_stack_does_not_grow);
	tcase_add_test(tc, test_walk_stops_at_pc_below_first_page);
	tcase_add_test(tc, test_walk_stops_at_cfi_pc_on_the_stack);
	tcase_add_test(tc, test_cfi_pc_on_the_stack_falls_through_to_scan);
	tcase_add_test(tc, test_failed_cfi_at_an_entry_point_ends_the_walk);
	tcase_add_test(tc, test_cfi_sp_not_growing_falls_through_to_frame_pointer);
	tcase_add_test(tc, test_cfi_null_return_address_ends_the_walk);
	tcase_add_test(tc, test_walk_without_evidence_ends_with_no_caller_found);
	tcase_add_test(tc, test_thread_walked_with_its_context_cpu);
	tcase_add_test(tc, test_wrapping_stack_bounds_and_frame_pointer_are_refused);
	tcase_add_test(tc, test_dwarf_register_numbers_map_to_ours);
	tcase_add_test(tc, test_inline_frames_precede_their_physical_frame);
	tcase_add_test(tc, test_max_frames_caps_the_walk);
	tcase_add_test(tc, test_scan_limit_truncates_and_says_so);
	tcase_add_test(tc, test_crashing_thread_starts_from_exception_context);
	tcase_add_test(tc, test_parallel_walk_gives_the_serial_result);
	tcase_add_test(tc, test_parallel_walk_loads_the_modules_its_stacks_name_first);
	tcase_add_test(tc, test_thread_without_context_has_no_frames);
	tcase_add_test(tc, test_x86_frame_pointer_then_scan);
	tcase_add_test(tc, test_x86_realigned_main_gives_its_caller_the_saved_cfa);
	tcase_add_test(tc, test_scan_after_broken_chain_needs_code_bytes);
	tcase_add_test(tc, test_call_check_decodes_each_call_form);
	tcase_add_test(tc, test_null_return_from_a_scanned_frame_is_a_failed_rule);
	tcase_add_test(tc, test_scan_refuses_a_return_into_the_callees_own_function);
	tcase_add_test(tc, test_scan_takes_a_repeated_return_address_once);
	tcase_add_test(tc, test_scan_refuses_a_function_entry_after_an_indirect_call);
	tcase_add_test(tc, test_scan_keeps_a_call_to_uncaptured_code_of_another_module);
	tcase_add_test(tc, test_scan_refuses_a_call_to_a_closed_function_elsewhere);
	tcase_add_test(tc, test_frame_record_callee_cfi_and_scan_are_checked);
	tcase_add_test(tc, test_frame_record_after_a_call_that_cannot_reach_the_callee_is_refused);
	tcase_add_test(tc, test_scan_passes_over_a_restorer_without_a_signal_frame);
	tcase_add_test(tc, test_closed_function_ends_past_its_last_jump_target);
	tcase_add_test(tc, test_closed_function_decodes_string_atomic_and_system_instructions);
	tcase_add_test(tc, test_i386_call_through_sysinfo_returns_only_from_the_kernel_entry);
	tcase_add_test(tc, test_x86_start_without_symbols_tells_whose_record_rbp_is);
	tcase_add_test(tc, test_x86_call_target_follows_a_plt_entry_to_an_odd_address);
	tcase_add_test(tc, test_i386_call_target_follows_a_pic_plt_entry_through_the_callers_got);
	tcase_add_test(tc, test_amd64_prologue_finds_the_return_address_past_pushes_and_sub);
	tcase_add_test(tc, test_call_check_rejects_jumps_and_data);
	suite_add_tcase(s, tc);
	return s;
}
