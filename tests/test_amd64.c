/* The amd64 walker on synthetic stacks: the rbp chain (not followed on
 * Windows), a live rbp whose record may be a caller's, a signal frame known
 * by the rt_sigframe's data, prologue analysis without unwind tables
 * (SysV AMD64 ABI 3.2.2), and the x86-64 code decoder: each call form,
 * the targets of calls through the PLT, where a closed function ends,
 * where a function starts when no symbol says. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "arch/x86_call.h"
#include "arch/x86_prologue.h"
#include "lib/walker.h"
#include "synthetic_snapshot.h"
#include "x86_fixture.h"

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

/* A frame a record found, in a core without its files (no code, no
 * symbols, scans need code): its rbp is the record's saved one, which a
 * function keeping no record passes on from an older frame. With this
 * function's return address below it, the record is an ancestor's and
 * following it would skip frames (zoo x86_64 5033 `nofp -O2`, the core
 * alone: f6's rbp was f5's record, and f5 was skipped); the walk ends
 * there instead. A minidump's walk follows the record: refused, it would
 * go on by a scan by Breakpad's rule. */
START_TEST(test_record_found_frame_without_code_needs_no_return_address_below_its_rbp)
{
	for (int ra_below = 0; ra_below < 3; ra_below++) {
		bool core = ra_below < 2;
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		fx.snap.scans_need_code = core;
		uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x140, fp2 = STACK_BASE + 0x200;
		set_context(&fx, LIB_BASE + 0x10, sp, fp1);
		put_u64(&fx, fp1, fp2);                  /* frame 0's own record */
		put_u64(&fx, fp1 + 8, LIB_BASE + 0x500);
		if (ra_below)                            /* frame 1's return address */
			put_u64(&fx, fp1 + 0x40, LIB_BASE + 0x340);
		put_call_before(&fx, CODE_BASE + 0x300);
		put_u64(&fx, fp2, 0);
		put_u64(&fx, fp2 + 8, CODE_BASE + 0x300);
		static const struct sw_walk_options opt = { .no_scan = true };
		const struct sw_stack *st = walk(&fx, NULL, &opt);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, LIB_BASE + 0x500);
		ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
		if (ra_below && core) {
			ck_assert_uint_eq(st->nframes, 2);
		} else {
			ck_assert_uint_eq(st->nframes, 3);
			ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x300);
		}
		fixture_free(&fx);
	}
}
END_TEST

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

/* A signal handler that keeps no record, found by its callee's record,
 * in code the snapshot lacks: its rbp is still the interrupted frame's
 * record (the kernel leaves rbp as the signal found it), above the
 * signal frame the kernel wrote. Following it would skip the signal frame
 * and the interrupted frame; the scan takes the handler's return into the
 * restorer instead, proven by the frame above it (zoo x86_64 5002 `nofp
 * -O0`, the core alone: the record skipped the signal frame,
 * pthread_kill and f6). */
START_TEST(test_record_above_a_signal_frame_is_not_the_handlers)
{
	for (int kernel_wrote_it = 0; kernel_wrote_it < 2; kernel_wrote_it++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x140;
		uint64_t slot = fp1 + 0x30, uc = slot + 8, mc = uc + 40;
		uint64_t fp2 = STACK_BASE + 0x600, interrupted_sp = fp2 - 0x40;
		set_context(&fx, LIB_BASE + 0x10, sp, fp1);
		put_u64(&fx, fp1, fp2);                       /* frame 0's record */
		put_u64(&fx, fp1 + 8, LIB_BASE + 0x500);      /* into the handler */
		put_u64(&fx, slot, LIB_BASE + 0x2050);        /* the handler's return */
		put_u64(&fx, uc, 7);                          /* uc_flags */
		put_u64(&fx, mc + 10 * 8, fp2);               /* rbp */
		put_u64(&fx, mc + 15 * 8, interrupted_sp);    /* rsp */
		put_u64(&fx, mc + 16 * 8, LIB_BASE + 0x3000); /* rip */
		put_u64(&fx, mc + 18 * 8, kernel_wrote_it ? 0x002b000000000033ull : 0);
		put_u64(&fx, mc + 23 * 8, uc + 0x200);        /* fpstate */
		put_call_before(&fx, CODE_BASE + 0x300);
		put_u64(&fx, fp2, 0);                         /* the interrupted record */
		put_u64(&fx, fp2 + 8, CODE_BASE + 0x300);
		const struct sw_stack *st = walk(&fx, NULL, NULL);
		ck_assert_uint_ge(st->nframes, 3);
		ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
		ck_assert_uint_eq(st->frames[1].pc, LIB_BASE + 0x500);
		if (!kernel_wrote_it) {
			/* Stale words: no context is restored from them. */
			for (uint32_t i = 0; i < st->nframes; i++)
				ck_assert(!st->frames[i].restored_context);
			fixture_free(&fx);
			continue;
		}
		ck_assert_uint_eq(st->nframes, 5);
		ck_assert_int_eq(st->frames[2].trust, SW_TRUST_SCAN);
		ck_assert_uint_eq(st->frames[2].pc, LIB_BASE + 0x2050);
		ck_assert(st->frames[3].restored_context);
		ck_assert_uint_eq(st->frames[3].pc, LIB_BASE + 0x3000);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[3], RSP), interrupted_sp);
		ck_assert_uint_eq(st->frames[4].pc, CODE_BASE + 0x300);
		fixture_free(&fx);
	}
}
END_TEST

/* x86-64 code without unwind tables: push %rbx; sub $0x20, %rsp put the
 * return address 0x28 bytes above rsp (SysV AMD64 ABI 3.2.2), past a
 * return address a scan would take first; rbx comes back from its slot.
 * The same in a stripped program (zoo x86_64 1011: f2's frame was found
 * by a scan, whose next scan took a stale return address): the function's
 * start is sought in the code (after padding, a push). */
START_TEST(test_amd64_prologue_finds_the_return_address_past_pushes_and_sub)
{
	for (int symbols = 0; symbols < 2; symbols++) {
		struct fixture fx;
		struct fake_symbols fs;
		fixture_init(&fx, SW_OS_LINUX);
		fake_init(&fs, RULE_NONE);
		if (!symbols)
			fs.func_hi = 0; /* no function anywhere */
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
}
END_TEST

/* A stripped program's first function of .text, right after the PLT's
 * last `jmp` and opening with a lone push: no start search takes the jump
 * for an end before it, but the section headers say a function begins
 * there (zoo x86_64 5032 `nofp -Os`, stripped: main's frame was scanned,
 * and the sigaction handler's address in it, after a noreturn call, was
 * taken for a return). */
START_TEST(test_amd64_function_starts_at_its_section_start)
{
	for (int sections = 0; sections < 2; sections++) {
		struct fixture fx;
		struct fake_symbols fs;
		fixture_init(&fx, SW_OS_LINUX);
		fake_init(&fs, RULE_NONE);
		fs.func_hi = 0; /* stripped: no function anywhere */
		fs.has_section = sections;
		fs.section_start = 0x100;
		uint64_t fn = CODE_BASE + 0x100, sp = STACK_BASE + 0x100;
		/* the PLT's last entry: jmp rel32 */
		memcpy(syn_code_at(&fx, fn - 5, 5), "\xe9\xa0\xff\xff\xff", 5);
		/* push %rbx; sub $0xa0,%rsp */
		memcpy(syn_code_at(&fx, fn, 8), "\x53\x48\x81\xec\xa0\x00\x00\x00", 8);
		set_context(&fx, fn + 0x40, sp, 0);
		put_call_to(&fx, CODE_BASE + 0x500, fn);
		put_u64(&fx, sp + 0xa0, 0x1234);            /* the caller's rbx */
		put_u64(&fx, sp + 0xa8, CODE_BASE + 0x500); /* the return address */
		const struct sw_stack *st = walk(&fx, &fs.source, NULL);
		if (!sections) {
			/* No start, so no opening: prologue analysis finds nothing
			 * (the fake's "no function anywhere" refuses the scan). */
			ck_assert(st->nframes < 2 || st->frames[1].trust != SW_TRUST_PROLOGUE);
		} else {
			ck_assert_uint_ge(st->nframes, 2);
			ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
			ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x500);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RSP), sp + 0xb0);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RBX), 0x1234);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* A function that ends in a tail call through a pointer may lead into
 * any module (zoo x86_64 142: a library's f6 tail-called the program's
 * f7 through a table, and f5's return address, whose call went into the
 * library, was refused). A switch's jump through a table is none. */
START_TEST(test_tail_call_through_pointer_is_told_from_a_switch)
{
	static const struct {
		const char *code;
		size_t len;
		bool tail;
	} cases[] = {
		/* push %rbp; mov %rsp,%rbp; pop %rbp; jmp *%rax */
		{ "\x55\x48\x89\xe5\x5d\xff\xe0", 7, true },
		/* mov 0x38(%rax),%rax; jmp *%rax */
		{ "\x48\x8b\x40\x38\xff\xe0", 6, true },
		/* jmp *0x10(%rdi) */
		{ "\xff\x67\x10", 3, true },
		/* add $8,%rsp; jmp *%r11 */
		{ "\x48\x83\xc4\x08\x41\xff\xe3", 7, true },
		/* add %rdx,%rax; jmp *%rax: a switch */
		{ "\x48\x01\xd0\xff\xe0", 5, false },
		/* pop %rbp; notrack jmp *%rax: a switch (CET) */
		{ "\x5d\x3e\xff\xe0", 4, false },
		/* jmp *(%rdx,%rax,8): a table */
		{ "\xff\x24\xc2", 3, false },
		/* mov 0x38(%rax),%rcx; jmp *%rax: another register's load */
		{ "\x48\x8b\x48\x38\xff\xe0", 6, false },
		/* ret; then pop %rbp; jmp *%rax in the next function */
		{ "\xc3\x5d\xff\xe0", 4, false },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		memset(syn_code_at(&fx, CODE_BASE + 0x100, 0x20), 0xcc, 0x20);
		memcpy(syn_code_at(&fx, CODE_BASE + 0x100, cases[k].len), cases[k].code, cases[k].len);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
		ck_assert_msg(sw_x86_tail_calls_through_pointer(&w, CODE_BASE + 0x100, true) == cases[k].tail,
		              "case %zu", k);
		fixture_free(&fx);
	}
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
/* A function may end in a call that does not return, the next one right
 * after it: after a call, a start is found where the code sets up a frame
 * (`push %rbp; mov %rsp,%rbp`), which no block inside a function does
 * (zoo x86_64 6018 `nofp -O1`, stripped: f5 ends `call abort`, f4
 * follows; with no start, f4's record was refused and f3 skipped). A lone
 * push after a call is no start: it may be a block's. */
START_TEST(test_x86_start_after_a_call_that_does_not_return)
{
	/* call abort; push %rbp; mov %rsp,%rbp; push %rbx; mov %eax,%ecx; call *%rax; mov %eax,%edx */
	static const char frame[] = "\xe8\x10\x20\x30\x00\x55\x48\x89\xe5\x53\x89\xc1\xff\xd0\x89\xc2";
	/* call f; push %rbx; mov %eax,%ecx; mov %eax,%ecx; ... */
	static const char lone[] = "\xe8\x10\x20\x30\x00\x53\x89\xc1\x89\xc1\x89\xc1\xff\xd0\x89\xc2";
	const char *codes[] = { frame, lone };
	for (int k = 0; k < 2; k++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		memcpy(syn_code_at(&fx, CODE_BASE + 0x10b, sizeof frame - 1), codes[k], sizeof frame - 1);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
		uint64_t start = 0;
		bool found = sw_x86_start_without_symbols(&w, CODE_BASE + 0x119, true, &start);
		if (k == 0) {
			ck_assert(found);
			ck_assert_uint_eq(start, CODE_BASE + 0x110);
		} else {
			ck_assert(!found || start != CODE_BASE + 0x110);
		}
		fixture_free(&fx);
	}
}
END_TEST

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

/* A function that ends in a tail jump (frame_dummy: endbr64; jmp
 * register_tm_clones), or in an endless loop, followed right away by a
 * function: a leaf with no opening
 * instruction (zoo x86_64 1041, static musl: f6 begins `mov %esi,%eax`):
 * the leaf starts where the function before it ends. A function there
 * that calls would have moved the stack pointer first (the psABI's
 * alignment): no start then, unless its first instruction opens it. */
START_TEST(test_x86_start_without_symbols_follows_a_tail_jump)
{
	/* endbr64; jmp 0x400010 | mov %esi,%eax; mov %eax,%ecx (pc) */
	static const char leaf[] = "\xf3\x0f\x1e\xfa\xe9\xf7\xfe\xff\xff\x89\xf0\x89\xc1\x89\xc2";
	/* the same with call *%rax before pc */
	static const char calls[] = "\xf3\x0f\x1e\xfa\xe9\xf7\xfe\xff\xff\x89\xf0\xff\xd0\x89\xc2";
	const char *codes[] = { leaf, calls };
	for (int k = 0; k < 2; k++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		memcpy(syn_code_at(&fx, CODE_BASE + 0x110, sizeof leaf - 1), codes[k], sizeof leaf - 1);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
		uint64_t start = 0;
		bool found = sw_x86_start_without_symbols(&w, CODE_BASE + 0x11d, true, &start);
		if (k == 0) {
			ck_assert(found);
			ck_assert_uint_eq(start, CODE_BASE + 0x119);
		} else {
			ck_assert(!found || start != CODE_BASE + 0x119);
		}
		fixture_free(&fx);
	}
	/* A function that opens (push %rbx) may have called on the way to
	 * pc (zoo x86_64 1077, musl -Os: f6 right after frame_dummy's
	 * jmp; with no start, a record two frames up skipped f5 and f4):
	 * endbr64; jmp | push %rbx; call *%rax | mov %eax,%edx. */
	{
		struct fixture fo;
		fixture_init(&fo, SW_OS_LINUX);
		memcpy(syn_code_at(&fo, CODE_BASE + 0x110, 14),
		       "\xf3\x0f\x1e\xfa\xe9\xf7\xfe\xff\xff\x53\xff\xd0\x89\xc2", 14);
		fixture_finish(&fo);
		struct sw_walk wo = { .snap = &fo.snap, .arch = &sw_arch_amd64 };
		uint64_t so = 0;
		ck_assert(sw_x86_start_without_symbols(&wo, CODE_BASE + 0x11c, true, &so));
		ck_assert_uint_eq(so, CODE_BASE + 0x119);
		fixture_free(&fo);
	}
	/* A noreturn function ending in `jmp .` (zoo x86_64 1045, musl
	 * static: f8's endless loop, then f7's sub $0x10, %rsp). */
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x110, 10), "\xeb\xfe\x48\x83\xec\x10\x89\xf0\x89\xc1", 10);
	fixture_finish(&fx);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
	uint64_t start = 0;
	ck_assert(sw_x86_start_without_symbols(&w, CODE_BASE + 0x118, true, &start));
	ck_assert_uint_eq(start, CODE_BASE + 0x112);
	fixture_free(&fx);
}
END_TEST

/* A direct call names a function's entry: code that runs into an address
 * a call between the candidate and pc names has left the candidate's
 * function, whose last instruction was a call that does not return (zoo
 * x86_64 195, -O0 static musl: f6 ends `call f7` and f7 `call abort`,
 * each followed right away by the next function; f6's start was taken
 * for f4's, and f7's push %rbp; mov %rsp,%rbp with it, so the thread
 * start's record skipped f3). The i386 idiom `call 1f; 1: pop %ebx`
 * names the next byte inside its own function. */
START_TEST(test_x86_start_without_symbols_stops_at_a_called_entry)
{
	/* ret; nop x15 | 110 sub $8,%rsp; call 119 | 119 push %rbp;
	 * mov %rsp,%rbp; call CODE_BASE + 0x10 | 122 sub $8,%rsp;
	 * call *%rax | 128 mov %eax,%edx */
	static const char chain[] = "\xc3\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90"
	                            "\x48\x83\xec\x08\xe8\x00\x00\x00\x00"
	                            "\x55\x48\x89\xe5\xe8\xee\xfe\xff\xff"
	                            "\x48\x83\xec\x08\xff\xd0\x89\xc2";
	/* ret; nop x15 | 310 push %ebp; mov %esp,%ebp; call 318 | 318 pop %ebx;
	 * call *%eax | 31b mov %eax,%edx (at 0x300) */
	static const char thunk[] = "\xc3\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90"
	                            "\x55\x89\xe5\xe8\x00\x00\x00\x00\x5b\xff\xd0\x89\xc2";
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x100, sizeof chain - 1), chain, sizeof chain - 1);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x300, sizeof thunk - 1), thunk, sizeof thunk - 1);
	fixture_finish(&fx);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
	uint64_t start = 0, ra = CODE_BASE + 0x128;
	ck_assert(!sw_x86_start_without_symbols(&w, ra, true, &start) || start >= CODE_BASE + 0x122);
	struct sw_frame f;
	memset(&f, 0, sizeof f);
	f.pc = ra;
	f.lookup_pc = ra - 1;
	f.trust = SW_TRUST_SCAN;
	ck_assert_int_ne(sw_x86_frame_of(&w, &f, true), SW_X86_FRAME_SET_UP);
	/* The idiom's pop keeps its function's start. */
	start = 0;
	ck_assert(sw_x86_start_without_symbols(&w, CODE_BASE + 0x31b, false, &start));
	ck_assert_uint_eq(start, CODE_BASE + 0x310);
	fixture_free(&fx);
}
END_TEST

/* A block after an early return and padding that begins with a sub from
 * esp looks like a function's start; an earlier start whose code jumps
 * into it on a condition owns it (zoo i386 210, the core alone: f3's
 * recursive call's block was taken for a frameless function, f3's record
 * was not followed, and a scan took a stale return address). An
 * unconditional jump may be a tail call to the next function: the nearer
 * start stays. */
START_TEST(test_x86_start_without_symbols_keeps_a_block_in_its_function)
{
	/* 300 ret; nop x15 | 310 push %ebp; mov %esp,%ebp; test %esi,%esi;
	 * jg 320 (or jmp 320); call *%edx; pop %ebp; ret; lea 0(%esi,%eiz),
	 * %esi; nop | 320 sub $8,%esp; call 310 | 328 mov (%ebx),%edx */
	static const char jcc[] = "\xc3\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90"
	                          "\x55\x89\xe5\x85\xf6\x7f\x09\xff\xd2\x5d\xc3"
	                          "\x8d\x74\x26\x00\x90"
	                          "\x83\xec\x08\xe8\xe8\xff\xff\xff\x8b\x13";
	static const char jmp[] = "\xc3\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90"
	                          "\x55\x89\xe5\x85\xf6\xeb\x09\xff\xd2\x5d\xc3"
	                          "\x8d\x74\x26\x00\x90"
	                          "\x83\xec\x08\xe8\xe8\xff\xff\xff\x8b\x13";
	const char *codes[] = { jcc, jmp };
	const uint64_t want[] = { CODE_BASE + 0x310, CODE_BASE + 0x320 };
	const enum sw_x86_frame shape[] = { SW_X86_FRAME_SET_UP, SW_X86_FRAME_NONE };
	for (int k = 0; k < 2; k++) {
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		memcpy(syn_code_at(&fx, CODE_BASE + 0x300, sizeof jcc - 1), codes[k], sizeof jcc - 1);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_amd64 };
		uint64_t start = 0, ra = CODE_BASE + 0x328;
		ck_assert(sw_x86_start_without_symbols(&w, ra, false, &start));
		ck_assert_uint_eq(start, want[k]);
		struct sw_frame f;
		memset(&f, 0, sizeof f);
		f.pc = ra;
		f.lookup_pc = ra - 1;
		f.trust = SW_TRUST_SCAN;
		ck_assert_int_eq(sw_x86_frame_of(&w, &f, false), shape[k]);
		fixture_free(&fx);
	}
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("amd64");
	TCase *tc = tcase_create("walk");
	tcase_add_test(tc, test_walk_frame_pointer_chain);
	tcase_add_test(tc, test_frame_pointer_chain_not_followed_on_windows);
	tcase_add_test(tc, test_live_rbp_in_uncaptured_code_needs_no_return_address_below_it);
	tcase_add_test(tc, test_record_found_frame_without_code_needs_no_return_address_below_its_rbp);
	tcase_add_test(tc, test_live_rbp_in_a_cold_part_below_its_function_needs_no_return_address_below_it);
	tcase_add_test(tc, test_signal_frame_known_by_its_data_without_restorer_code);
	tcase_add_test(tc, test_record_above_a_signal_frame_is_not_the_handlers);
	tcase_add_test(tc, test_amd64_prologue_finds_the_return_address_past_pushes_and_sub);
	tcase_add_test(tc, test_amd64_function_starts_at_its_section_start);
	tcase_add_test(tc, test_tail_call_through_pointer_is_told_from_a_switch);
	tcase_add_test(tc, test_x86_call_target_follows_a_plt_entry_to_an_odd_address);
	tcase_add_test(tc, test_call_check_decodes_each_call_form);
	tcase_add_test(tc, test_call_check_rejects_jumps_and_data);
	tcase_add_test(tc, test_closed_function_ends_past_its_last_jump_target);
	tcase_add_test(tc, test_closed_function_decodes_string_atomic_and_system_instructions);
	tcase_add_test(tc, test_x86_start_without_symbols_tells_whose_record_rbp_is);
	tcase_add_test(tc, test_x86_start_after_a_call_that_does_not_return);
	tcase_add_test(tc, test_x86_start_without_symbols_follows_a_tail_jump);
	tcase_add_test(tc, test_x86_start_without_symbols_stops_at_a_called_entry);
	tcase_add_test(tc, test_x86_start_without_symbols_keeps_a_block_in_its_function);
	suite_add_tcase(s, tc);
	return s;
}
