/* The walker on synthetic amd64 and x86 stacks: one test per trust path and
 * per termination rule, as Breakpad's stackwalker unit tests do. What only
 * one CPU's hooks decide is tested in test_amd64.c and test_x86.c. */
#include <check.h>
#include <stdatomic.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "synthetic_snapshot.h"
#include "x86_fixture.h"

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

Suite *test_suite(void)
{
	Suite *s = suite_create("walker");
	TCase *tc = tcase_create("walk");
	tcase_add_test(tc, test_walk_context_frame_alone_when_nothing_follows);
	tcase_add_test(tc, test_walk_cfi_caller);
	tcase_add_test(tc, test_walk_ends_where_cfi_says_no_caller);
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
	tcase_add_test(tc, test_null_return_from_a_scanned_frame_is_a_failed_rule);
	tcase_add_test(tc, test_scan_refuses_a_return_into_the_callees_own_function);
	tcase_add_test(tc, test_scan_takes_a_repeated_return_address_once);
	tcase_add_test(tc, test_scan_refuses_a_function_entry_after_an_indirect_call);
	tcase_add_test(tc, test_scan_keeps_a_call_to_uncaptured_code_of_another_module);
	tcase_add_test(tc, test_scan_refuses_a_call_to_a_closed_function_elsewhere);
	tcase_add_test(tc, test_frame_record_callee_cfi_and_scan_are_checked);
	tcase_add_test(tc, test_frame_record_after_a_call_that_cannot_reach_the_callee_is_refused);
	tcase_add_test(tc, test_scan_passes_over_a_restorer_without_a_signal_frame);
	suite_add_tcase(s, tc);
	return s;
}
