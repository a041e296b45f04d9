/* The arm64 walker on synthetic stacks: the live link register of the
 * context frame, frame records (AAPCS64 §6.4.6), pointer-authentication
 * stripping, the BL/BLR call check, the chain's end, and where BL and the
 * PLT stubs it calls lead; prologue analysis on real compiler output
 * (testdata/code/aarch64-*.txt, checked against the compiler's own CFI). */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "prologue_fixture.h"
#include "synthetic_snapshot.h"

enum { FP = 29, LR = 30, SP = 31, PC = 32 };

#define CODE_BASE 0x100000000ull
#define CODE_SIZE 0x1000ull
#define STACK_BASE 0x16f000000ull
#define STACK_SIZE 0x1000ull

/* Instruction words (Arm ARM C6.2). */
enum {
	INSN_NOP = 0xd503201fu,
	INSN_BL = 0x94000010u,      /* bl .+0x40 */
	INSN_BLR_X8 = 0xd63f0100u,  /* blr x8 */
	INSN_BLRAA = 0xd73f0911u,   /* blraa x8, x17 */
	INSN_BLRAB = 0xd73f0d11u,   /* blrab x8, x17 */
	INSN_BLRAAZ = 0xd63f091fu,  /* blraaz x8 */
	INSN_BLRABZ = 0xd63f0d1fu,  /* blrabz x8 */
	INSN_B = 0x14000010u,       /* b .+0x40: no link */
	INSN_BR_X8 = 0xd61f0100u,   /* br x8: no link */
	INSN_RET = 0xd65f03c0u,
	INSN_STP_FP_LR_PRE = 0xa9bf7bfdu,  /* stp x29, x30, [sp, #-16]! */
	INSN_LDP_FP_LR_POST = 0xa8c17bfdu, /* ldp x29, x30, [sp], #16 */
	INSN_MOV_FP_SP = 0x910003fdu,      /* mov x29, sp */
};

/* One module of NOPs (/bin/app) and a stack, on `os`. */
static void fixture_init_os(struct fixture *fx, enum sw_os os)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "synthetic-arm64", .cpu = SW_CPU_ARM64, .os = os, .word_size = 8,
		.code = { CODE_BASE, CODE_SIZE }, .stack = { STACK_BASE, STACK_SIZE },
		.fill = INSN_NOP, .fill_size = 4,
		.thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/bin/app" } },
		.nmodules = 1 });
}

static void fixture_init(struct fixture *fx)
{
	fixture_init_os(fx, SW_OS_MACOS);
}

static void put_insn(struct fixture *fx, uint64_t addr, uint32_t insn)
{
	syn_put_code(fx, addr, insn, 4);
}

/* A call whose return address is ra. */
static uint64_t call_returning_to(struct fixture *fx, uint64_t ra)
{
	put_insn(fx, ra - 4, INSN_BL);
	return ra;
}

static void set_context(struct fixture *fx, uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr)
{
	sw_reg_set(&fx->thread.ctx, PC, pc);
	sw_reg_set(&fx->thread.ctx, SP, sp);
	sw_reg_set(&fx->thread.ctx, FP, fp);
	sw_reg_set(&fx->thread.ctx, LR, lr);
}

static const struct sw_stack *walk_with(struct fixture *fx, const struct sw_walk_options *opt)
{
	return syn_walk(fx, &sw_arch_arm64, NULL, opt);
}

static const struct sw_stack *walk(struct fixture *fx)
{
	return walk_with(fx, NULL);
}

/* A leaf (no record of its own) returns through x30; its caller keeps sp
 * and x29, and the record at x29 (the caller's) gives the next frame. */
START_TEST(test_context_leaf_returns_through_link_register)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t ra1 = call_returning_to(&fx, CODE_BASE + 0x200);
	uint64_t ra2 = call_returning_to(&fx, CODE_BASE + 0x400);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x180;
	put_u64(&fx, fp, 0);       /* the outermost record: {0, ra2} */
	put_u64(&fx, fp + 8, ra2);
	set_context(&fx, CODE_BASE + 0x10, sp, fp, ra1);
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(st->frames[1].lookup_pc, ra1 - 4);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp + 16);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], FP), 0);
	/* The record's saved x29 of 0 marks the chain's end. */
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* A function that already stored its record holds x30 there too: the
 * record, not the register, gives the caller (no duplicate frame). */
START_TEST(test_context_with_own_record_uses_the_record)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t ra1 = call_returning_to(&fx, CODE_BASE + 0x200);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x120;
	put_u64(&fx, fp, 0);
	put_u64(&fx, fp + 8, ra1);
	set_context(&fx, CODE_BASE + 0x10, sp, fp, ra1);
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp + 16);
	fixture_free(&fx);
}
END_TEST

/* Symbols for module 0: a function every 0x100 bytes. */
static bool block_lookup(void *self, uint64_t off, struct sw_arena *a, struct sw_sym_info *out)
{
	(void)self;
	(void)a;
	memset(out, 0, sizeof *out);
	out->function = "func";
	out->function_offset = off - off % 0x100;
	out->function_size = 0x100;
	return true;
}

static bool block_has_function(void *self, uint64_t off)
{
	(void)self;
	(void)off;
	return true;
}

static const struct sw_symbols_ops block_ops = {
	.lookup = block_lookup,
	.has_function = block_has_function,
};

/* x30 returning into the very function the pc is in was left there by
 * that function's own earlier call (the bl before it goes elsewhere): the
 * caller is not there, and the frame record gives it. */
START_TEST(test_link_register_into_the_own_function_is_left_over)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t stale = call_returning_to(&fx, CODE_BASE + 0x40); /* bl .+0x40: to 0x7c */
	uint64_t ra = call_returning_to(&fx, CODE_BASE + 0x400);
	put_insn(&fx, CODE_BASE, INSN_STP_FP_LR_PRE);   /* its own record */
	put_insn(&fx, CODE_BASE + 4, INSN_MOV_FP_SP);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x180;
	put_u64(&fx, fp, 0);
	put_u64(&fx, fp + 8, ra);
	set_context(&fx, CODE_BASE + 0x10, sp, fp, stale);
	struct sw_module_symbols syms = { &block_ops, NULL };
	struct sw_symbol_source src = { .self = &syms, .for_module = syn_module0_symbols };
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm64, &src, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp + 16);
	fixture_free(&fx);
}
END_TEST

/* The same without symbols (a stripped program): the code runs straight
 * from x30 on to the pc, no return or branch between, so x30 returns into
 * the pc's own function, and its bl goes to a function whose code ends in
 * a return before the bl: no recursion. The record gives the caller (zoo
 * aarch64 fp 25, stripped: a duplicate frame before). A return between
 * the two, with x30's bl going to the function that holds the pc: x30 is
 * the caller. So is it where the bl goes to the code right after it, on
 * the way to pc: a noreturn call to the function laid out next (zoo
 * aarch64 206 and 1100 stripped: f2 ends `bl f3`, f3 follows after a
 * nop, and the record skipped f2); a function never calls into its own
 * body past the call. */
START_TEST(test_link_register_into_straight_code_before_the_pc_is_left_over)
{
	enum { LEFT_OVER, RETURNS_BETWEEN, CALLS_NEXT_FUNCTION };
	for (unsigned v = LEFT_OVER; v <= CALLS_NEXT_FUNCTION; v++) {
		struct fixture fx;
		fixture_init(&fx);
		uint64_t lr = CODE_BASE + 0xd0;
		put_insn(&fx, CODE_BASE + 0x90, INSN_RET); /* a function ends */
		if (v == RETURNS_BETWEEN) {
			put_insn(&fx, lr - 4, 0x94000004u); /* bl .+0x10: to 0xdc */
			put_insn(&fx, lr + 8, INSN_RET);    /* the bl's function ends */
		} else if (v == CALLS_NEXT_FUNCTION) {
			put_insn(&fx, lr - 4, 0x94000002u); /* bl .+8: to 0xd4, past a nop */
		} else {
			put_insn(&fx, lr - 4, 0x97fffff0u); /* bl .-0x40: to 0x8c, before the ret */
		}
		uint64_t ra = call_returning_to(&fx, CODE_BASE + 0x400);
		uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x180;
		put_u64(&fx, fp, 0);
		put_u64(&fx, fp + 8, ra);
		set_context(&fx, CODE_BASE + 0x100, sp, fp, lr);
		const struct sw_stack *st = walk(&fx);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, v == LEFT_OVER ? ra : lr);
		fixture_free(&fx);
	}
}
END_TEST

/* A function built without frame pointers (-fomit-frame-pointer) never
 * writes x29: frame 1, recursing into itself, still has the x29 of a
 * caller far up that made a record (alloca), and that record would skip
 * every frame in between. Without symbols, the code back from the call to
 * the previous function's return shows no `mov x29, sp`: the record is
 * not this frame's, and nothing else proves a caller (zoo aarch64 5202,
 * an -O0 stack overflow: f7's frames above f6's record). */
/* fn (sub sp, sp, #0x430; str x30, [sp]; a recursive bl) after a tail
 * jump that follows a popped record (tail_jump), or at the start of the
 * readable code: a frame in fn, stopped after the prologue with x29 a far
 * caller's record, must not take that record. A frame past 4 KiB opens
 * `mov x12, #N; sub sp, sp, x12` (big; zoo aarch64 1110 stripped:
 * f4 after frame_dummy's `b register_tm_clones`, whose x29 was f3's
 * record: f3 was skipped). */
static void no_record_after(uint64_t fn, bool tail_jump, bool big)
{
	struct fixture fx;
	fixture_init(&fx);
	if (tail_jump) {
		put_insn(&fx, fn - 0x10, INSN_LDP_FP_LR_POST);
		put_insn(&fx, fn - 0xc, INSN_RET);
		put_insn(&fx, fn - 0x8, INSN_B);
	}
	if (big) {
		put_insn(&fx, fn, 0xd280460cu);         /* mov x12, #0x230 */
		put_insn(&fx, fn + 4, 0xcb2c63ffu);     /* sub sp, sp, x12 */
		put_insn(&fx, fn + 8, 0xf9000bfeu);     /* str x30, [sp, #16] */
	} else {
		put_insn(&fx, fn, 0xd110c3ffu);
		put_insn(&fx, fn + 4, 0xf90003feu);
	}
	put_insn(&fx, fn + 0x38, 0x97fffff2u);
	/* The far caller called through a pointer (blr x2): its call
	 * names no target to check against fn. */
	uint64_t ra_far = CODE_BASE + 0x800;
	put_insn(&fx, ra_far - 4, 0xd63f0040u);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0xf00;
	put_u64(&fx, fp, 0);
	put_u64(&fx, fp + 8, ra_far);
	set_context(&fx, fn + 0x20, sp, fp, fn + 0x3c);
	/* The recursion's frame (frame 1, through x30) has its caller in
	 * the slot fn's prologue saved x30 to, above its own allocation. */
	uint64_t ra_up = call_returning_to(&fx, CODE_BASE + 0x900);
	if (big)
		put_u64(&fx, sp + 0x230 + 16, ra_up);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_with(&fx, &opt);
	for (size_t i = 1; i < st->nframes; i++)
		ck_assert_uint_ne(st->frames[i].pc, ra_far);
	if (big) {
		ck_assert_uint_ge(st->nframes, 3);
		ck_assert_uint_eq(st->frames[2].pc, ra_up);
	}
	fixture_free(&fx);
}

START_TEST(test_record_of_a_function_that_makes_none_is_a_callers)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t fn = CODE_BASE + 0x108;
	put_insn(&fx, fn - 8, INSN_LDP_FP_LR_POST);     /* the previous function's end */
	put_insn(&fx, fn - 4, INSN_RET);
	put_insn(&fx, fn, 0xd110c3ffu);                 /* sub sp, sp, #0x430 */
	put_insn(&fx, fn + 4, 0xf90003feu);             /* str x30, [sp] */
	put_insn(&fx, fn + 0x38, 0x97fffff2u);          /* bl fn: recursion */
	uint64_t ra_self = fn + 0x3c;
	uint64_t ra_far = call_returning_to(&fx, CODE_BASE + 0x800);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0xf00;
	put_u64(&fx, fp, 0);                            /* the far caller's record */
	put_u64(&fx, fp + 8, ra_far);
	set_context(&fx, fn + 4, sp, fp, ra_self);      /* stopped storing x30 */
	/* Frame 1, the caller through x30, has sp at frame 0's CFA (sp +
	 * 0x430, what fn's code allocated by pc), from which fn's prologue
	 * reads its own saved x30 (zoo aarch64 98: the walk went on with
	 * frame 0's sp and ended). */
	uint64_t ra_up = call_returning_to(&fx, CODE_BASE + 0x900);
	put_u64(&fx, sp + 0x430, ra_up);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_with(&fx, &opt);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra_self);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp + 0x430);
	ck_assert_uint_eq(st->frames[2].pc, ra_up);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp + 0x860);
	fixture_free(&fx);

	/* The previous function ends in a tail jump (b, as crtstuff's
	 * frame_dummy does) after an epilogue that popped a record: fn,
	 * which makes no record, follows it, so x29 is a caller's. */
	no_record_after(CODE_BASE + 0x108, true, false);
	no_record_after(CODE_BASE + 0x108, true, true);
	/* fn right after code that cannot be read (the start of the code
	 * area here; the zeros between a static program's .plt and .text
	 * read as unknown): fn is the frame's function (zoo aarch64 nofp 24,
	 * stripped: the record skipped five frames). */
	no_record_after(CODE_BASE, false, false);
}
END_TEST

/* A live frame whose code runs straight from pc to its ret leaving x29
 * alone has no record of its own: x29 is a caller's, whatever the code
 * before pc shows (zoo aarch64 1218 nofp stripped: f7, shrink-wrapped,
 * saves x30 after a test and a branch, right after an earlier function's
 * epilogue that popped a record; x29 was start_thread's, and its record
 * skipped f6). The prologue gives the caller from the saved x30. Where
 * the way to ret reloads x29, the record may be the frame's own. */
START_TEST(test_live_frame_returning_without_touching_x29_has_no_record)
{
	for (int reloads = 0; reloads < 2; reloads++) {
		struct fixture fx;
		fixture_init(&fx);
		uint64_t fn = CODE_BASE + 0x108;
		put_insn(&fx, fn - 8, 0xa8c27bfdu);  /* ldp x29, x30, [sp], #32 */
		put_insn(&fx, fn - 4, INSN_RET);
		put_insn(&fx, fn, 0x7100001fu);      /* cmp w0, #0 */
		put_insn(&fx, fn + 4, 0x5400020du);  /* b.le .+0x40 */
		put_insn(&fx, fn + 8, 0xf81e0ffeu);  /* str x30, [sp, #-32]! */
		put_insn(&fx, fn + 12, INSN_BL);
		put_insn(&fx, fn + 16, 0xd2800201u); /* mov x1, #16 */
		put_insn(&fx, fn + 20, 0xb9000022u); /* str w2, [x1]: pc */
		put_insn(&fx, fn + 24, reloads ? 0xa8c27bfdu  /* ldp x29, x30, [sp], #32 */
		                               : 0xf84207feu); /* ldr x30, [sp], #32 */
		put_insn(&fx, fn + 28, INSN_RET);
		uint64_t ra_far = CODE_BASE + 0x800;
		put_insn(&fx, ra_far - 4, 0xd63f0020u); /* blr x1: start_thread's */
		uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0xf00;
		put_u64(&fx, fp, 0);
		put_u64(&fx, fp + 8, ra_far);
		uint64_t ra_up = CODE_BASE + 0x900;
		put_insn(&fx, ra_up - 4, 0xd63f0040u);  /* blr x2: f6's */
		put_u64(&fx, sp, ra_up);                /* f7's saved x30 */
		set_context(&fx, fn + 20, sp, fp, fn + 16);
		struct sw_walk_options opt = { .no_scan = true };
		const struct sw_stack *st = walk_with(&fx, &opt);
		ck_assert_uint_ge(st->nframes, 2);
		if (!reloads) {
			ck_assert_uint_eq(st->frames[1].pc, ra_up);
			ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
		} else {
			ck_assert_uint_eq(st->frames[1].pc, ra_far);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* Block symbols (above) over code and CFI for the function at 0x300 as
 * glibc's __libc_start_main has it: CFA = sp + 0x60, x29 at CFA - 0x60,
 * x30 at CFA - 0x58. */
static enum sw_unwind_status start_main_unwind(void *self, uint64_t off,
                                               const struct sw_unwind_env *env,
                                               struct sw_caller *out, enum sw_trust *trust)
{
	(void)self;
	*trust = SW_TRUST_CFI;
	if (off < 0x300 || off >= 0x400 || !sw_reg_valid(&env->callee->regs, SP))
		return SW_UNWIND_NO_RULE;
	uint64_t cfa = env->callee->regs.v[SP] + 0x60, fp, ra;
	if (!sw_walk_read_word(env->walk, cfa - 0x60, &fp) ||
	    !sw_walk_read_word(env->walk, cfa - 0x58, &ra))
		return SW_UNWIND_FAILED;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, SP, cfa);
	sw_reg_set(&out->regs, FP, fp);
	sw_reg_set(&out->regs, PC, ra);
	return SW_UNWIND_OK;
}

static const struct sw_symbols_ops block_cfi_ops = {
	.lookup = block_lookup,
	.has_function = block_has_function,
	.unwind = start_main_unwind,
};

/* The fixture of the tests below: frame 0 keeps its record at
 * STACK_BASE + 0x110 and has called the function at 0x300, whose own
 * record, at `record` above the stack's base, holds the last caller; CFI
 * applied from frame 1's bounded sp reads CODE_BASE + 0x600, after the
 * instruction `bl` (none if 0). */
static const struct sw_stack *walk_record_bounded_cfi(struct fixture *fx, uint32_t bl,
                                                      uint64_t record)
{
	fixture_init(fx);
	uint64_t ra1 = call_returning_to(fx, CODE_BASE + 0x380);   /* into 0x300's */
	uint64_t ra2 = call_returning_to(fx, CODE_BASE + 0x480);
	put_insn(fx, CODE_BASE, INSN_STP_FP_LR_PRE);
	put_insn(fx, CODE_BASE + 4, INSN_MOV_FP_SP);
	put_insn(fx, CODE_BASE + 0x300, 0xa9ba7bfdu);              /* stp x29, x30, [sp, #-96]! */
	put_insn(fx, CODE_BASE + 0x304, INSN_MOV_FP_SP);
	if (bl)
		put_insn(fx, CODE_BASE + 0x5fc, bl);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x110, fp2 = STACK_BASE + record;
	put_u64(fx, fp1, fp2);                  /* frame 0's record */
	put_u64(fx, fp1 + 8, ra1);
	put_u64(fx, fp1 + 0x18, CODE_BASE + 0x600); /* what CFI reads from fp1 + 16 */
	put_u64(fx, fp2, 0);                    /* frame 1's record, the last */
	put_u64(fx, fp2 + 8, ra2);
	set_context(fx, CODE_BASE + 0x20, sp, fp1, ra1);
	static struct sw_module_symbols syms = { &block_cfi_ops, NULL };
	static struct sw_symbol_source src = { .self = &syms, .for_module = syn_module0_symbols };
	return syn_walk(fx, &sw_arch_arm64, &src, NULL);
}

/* Frame 1's own record near its bound, or farther above it than an sp
 * is sought (ANCHOR_REACH, lib/walker.c): the rules cannot be anchored on
 * it. */
enum { far_record = 0x600, near_record = 0x200 };

/* A frame found through a frame record has its x29 exactly, its sp only
 * as a bound (fp + 16: GCC puts the record at the bottom of a frame of
 * 0x60 bytes). Rules applied from that sp read the wrong slots, here a
 * word after no call (main's address, an argument): refused, and the
 * frame's own record gives the caller (zoo aarch64 5201, stripped). */
START_TEST(test_cfi_from_a_record_bounded_sp_needs_a_call)
{
	struct fixture fx;
	const struct sw_stack *st = walk_record_bounded_cfi(&fx, 0, far_record);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x380);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x480);
	fixture_free(&fx);
}
END_TEST

/* The same frame with its own record near: its rules from the sp where
 * the record sits (the bottom of its frame) restore exactly the record's
 * caller, so that sp is the frame's own, and the rules give the caller
 * with its sp (CFA = sp + 0x60), which the next frame's rules need (zoo
 * aarch64 fp 7, stripped: glibc's msort reached through a stripped
 * program's record, its CFI from the bound read a stale ld.so word). */
START_TEST(test_cfi_from_a_record_bounded_sp_is_anchored_on_the_frames_own_record)
{
	struct fixture fx;
	const struct sw_stack *st = walk_record_bounded_cfi(&fx, 0, near_record);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x480);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), STACK_BASE + near_record + 0x60);
	fixture_free(&fx);
}
END_TEST

/* The same frame, where what CFI reads from the bounded sp does follow a
 * call: a `bl` that ends another function (a noreturn call), whose return
 * address is the next function's entry. The call went elsewhere than the
 * callee's function: refused, the record gives the caller (zoo aarch64
 * fp 17: __libc_start_main's CFI read main's address after f7's `bl
 * abort`). A `bl` to the callee's own function is believed. */
START_TEST(test_cfi_from_a_record_bounded_sp_needs_a_call_to_the_callee)
{
	struct fixture fx;
	const struct sw_stack *st = walk_record_bounded_cfi(&fx, 0x94000041u, far_record); /* bl 0x700 */
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x480);
	fixture_free(&fx);

	st = walk_record_bounded_cfi(&fx, 0x97ffff41u, far_record);                        /* bl 0x300 */
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(st->frames[2].pc, CODE_BASE + 0x600);
	fixture_free(&fx);
}
END_TEST

/* Signed return addresses and frame pointers (arm64e): the bits above the
 * highest address the snapshot uses are a signature, stripped. */
START_TEST(test_pointer_authentication_bits_are_stripped)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t ra1 = call_returning_to(&fx, CODE_BASE + 0x200);
	uint64_t ra2 = call_returning_to(&fx, CODE_BASE + 0x300);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x120, fp2 = STACK_BASE + 0x200;
	const uint64_t sig = 0x002d000000000000ull;
	put_u64(&fx, fp, fp2 | sig);
	put_u64(&fx, fp + 8, ra1 | sig);
	put_u64(&fx, fp2, 0);
	put_u64(&fx, fp2 + 8, ra2 | 0x7f00000000000000ull);
	set_context(&fx, CODE_BASE + 0x10, sp, fp, ra1 | sig);
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], FP), fp2);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	fixture_free(&fx);
}
END_TEST

/* The Linux PAC mask from the snapshot wins over the guessed one. */
START_TEST(test_snapshot_pac_mask_is_used)
{
	struct fixture fx;
	fixture_init(&fx);
	fx.snap.sys.pointer_auth_mask = 0xff7f000000000000ull;
	uint64_t ra1 = call_returning_to(&fx, CODE_BASE + 0x200);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x120;
	put_u64(&fx, fp, 0);
	put_u64(&fx, fp + 8, ra1 | 0x0040000000000000ull);
	set_context(&fx, CODE_BASE + 0x10, sp, fp, 0);
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	fixture_free(&fx);
}
END_TEST

/* A record whose return address follows no call is no record: the walk
 * falls through to the scan, which needs a call before its word too. */
START_TEST(test_record_without_call_before_its_return_address_is_refused)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x120;
	put_u64(&fx, fp, STACK_BASE + 0x200);
	put_u64(&fx, fp + 8, CODE_BASE + 0x200); /* nop before it */
	set_context(&fx, CODE_BASE + 0x10, sp, fp, 0);
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* A record pointing downwards (into the callee's frame) is broken. */
START_TEST(test_record_chain_must_grow)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t ra1 = call_returning_to(&fx, CODE_BASE + 0x200);
	uint64_t ra2 = call_returning_to(&fx, CODE_BASE + 0x300);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x180;
	put_u64(&fx, fp, fp - 0x40); /* below itself */
	put_u64(&fx, fp + 8, ra1);
	put_u64(&fx, fp - 0x40, fp);
	put_u64(&fx, fp - 0x38, ra2);
	set_context(&fx, CODE_BASE + 0x10, sp, fp, 0);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_with(&fx, &opt);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

/* The scan takes a word only when a linking branch precedes it. */
START_TEST(test_scan_takes_only_words_after_a_call)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t ra = call_returning_to(&fx, CODE_BASE + 0x600);
	uint64_t sp = STACK_BASE + 0x100;
	put_u64(&fx, sp + 0x08, CODE_BASE + 0x500); /* nop before: refused */
	put_u64(&fx, sp + 0x18, ra);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, 0);
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, ra);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp + 0x20);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_call_check_decodes_every_linking_branch)
{
	static const uint32_t calls[] = { INSN_BL, INSN_BLR_X8, INSN_BLRAA, INSN_BLRAB,
	                                  INSN_BLRAAZ, INSN_BLRABZ };
	static const uint32_t others[] = { INSN_NOP, INSN_B, INSN_BR_X8, INSN_RET };
	struct fixture fx;
	fixture_init(&fx);
	sw_snapshot_finish(&fx.snap);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_arm64, .address_mask = ~0ull };
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		put_insn(&fx, CODE_BASE + 0x100, calls[i]);
		bool known = false;
		ck_assert_msg(sw_arch_arm64.call_precedes(&w, CODE_BASE + 0x104, &known),
		              "0x%08x is a call", calls[i]);
		ck_assert(known);
	}
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		put_insn(&fx, CODE_BASE + 0x100, others[i]);
		bool known = false;
		ck_assert_msg(!sw_arch_arm64.call_precedes(&w, CODE_BASE + 0x104, &known),
		              "0x%08x is no call", others[i]);
	}
	/* Code that is not captured cannot be checked: Breakpad's rule. */
	bool known = true;
	ck_assert(sw_arch_arm64.call_precedes(&w, 0x200000000ull, &known));
	ck_assert(!known);
	fixture_free(&fx);
}
END_TEST

/* ---- where a call goes ---- */

#define LIB_BASE 0x200000000ull
#define LIB_SIZE 0x1000ull

/* An app at CODE_BASE and a library at LIB_BASE, on Linux. */
static void fixture_init_with_lib(struct fixture *fx)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "synthetic-arm64-lib", .cpu = SW_CPU_ARM64, .os = SW_OS_LINUX, .word_size = 8,
		.code = { CODE_BASE, CODE_SIZE }, .lib = { LIB_BASE, LIB_SIZE },
		.stack = { STACK_BASE, STACK_SIZE },
		.fill = INSN_NOP, .fill_size = 4,
		.thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/bin/app" },
		             { .base = LIB_BASE, .size = LIB_SIZE, .code_file = "/lib/libc.so.6" } },
		.nmodules = 2 });
}

/* Calls and stubs as GNU as and ld 2.40 (aarch64-linux-gnu) lay them out
 * linked at CODE_BASE; each comment is objdump's reading. */
static void put_calls(struct fixture *fx)
{
	static const struct { uint64_t at; uint32_t insn; } code[] = {
		{ 0x100, 0x97ffffc0u },   /* bl 100000000 */
		{ 0x104, 0x940001bfu },   /* bl 100000800 */
		{ 0x108, 0x9400003eu },   /* bl 100000200 <plt> */
		{ 0x10c, 0x94000045u },   /* bl 100000220 <plt_bti_pac> */
		{ 0x110, 0x9400004cu },   /* bl 100000240 <adrp_veneer> */
		{ 0x114, 0x94000053u },   /* bl 100000260 <lit_veneer> */
		{ 0x118, INSN_BLR_X8 },
		{ 0x11c, 0x94000059u },   /* bl 100000280 <plt_far> */
		{ 0x200, 0x90000010u },   /* plt: adrp x16, 100000000 */
		{ 0x204, 0xf9478211u },   /* ldr x17, [x16, #3840]: slot f00 */
		{ 0x208, 0x913c0210u },   /* add x16, x16, #0xf00 */
		{ 0x20c, 0xd61f0220u },   /* br x17 */
		{ 0x220, 0xd503245fu },   /* plt_bti_pac: bti c */
		{ 0x224, 0x90000010u },   /* adrp x16, 100000000 */
		{ 0x228, 0xf9478611u },   /* ldr x17, [x16, #3848]: slot f08 */
		{ 0x22c, 0x913c2210u },   /* add x16, x16, #0xf08 */
		{ 0x230, 0xd503219fu },   /* autia1716 */
		{ 0x234, 0xd61f0220u },   /* br x17 */
		{ 0x240, 0x90000010u },   /* adrp_veneer: adrp x16, 100000000 */
		{ 0x244, 0x91080210u },   /* add x16, x16, #0x200: plt */
		{ 0x248, 0xd61f0200u },   /* br x16 */
		{ 0x260, 0x58000050u },   /* lit_veneer: ldr x16, 100000268 */
		{ 0x264, 0xd61f0200u },   /* br x16 */
		{ 0x268, 0x00000220u },   /* .xword 0x100000220: plt_bti_pac */
		{ 0x26c, 0x00000001u },
		{ 0x280, 0xf0000010u },   /* plt_far: adrp x16, 100003000 */
		{ 0x284, 0xf9400a11u },   /* ldr x17, [x16, #16]: slot 100003010, not captured */
		{ 0x288, 0x91004210u },   /* add x16, x16, #0x10 */
		{ 0x28c, 0xd61f0220u },   /* br x17 */
	};
	for (size_t i = 0; i < sizeof code / sizeof code[0]; i++)
		put_insn(fx, CODE_BASE + code[i].at, code[i].insn);
	syn_put_code(fx, CODE_BASE + 0xf00, LIB_BASE + 0x100, 8);  /* GOT: bound */
	syn_put_code(fx, CODE_BASE + 0xf08, LIB_BASE + 0x200, 8);
}

/* BL names its target, back and forth; BLR does not. A PLT entry (with
 * BTI and pointer authentication too), reached directly or through
 * either kind of veneer, leads where its GOT slot points, when the slot
 * is captured. */
START_TEST(test_call_target_decodes_bl_and_follows_stubs)
{
	struct fixture fx;
	fixture_init_with_lib(&fx);
	put_calls(&fx);
	sw_snapshot_finish(&fx.snap);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_arm64, .address_mask = ~0ull };
	static const uint64_t calls[][2] = {
		{ CODE_BASE + 0x104, CODE_BASE },         { CODE_BASE + 0x108, CODE_BASE + 0x800 },
		{ CODE_BASE + 0x10c, LIB_BASE + 0x100 },  { CODE_BASE + 0x110, LIB_BASE + 0x200 },
		{ CODE_BASE + 0x114, LIB_BASE + 0x100 },  { CODE_BASE + 0x118, LIB_BASE + 0x200 },
	};
	uint64_t target;
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		ck_assert_msg(sw_arch_arm64.call_target(&w, calls[i][0], &target), "ra 0x%llx",
		              (unsigned long long)calls[i][0]);
		ck_assert_uint_eq(target, calls[i][1]);
	}
	ck_assert(!sw_arch_arm64.call_target(&w, CODE_BASE + 0x11c, &target)); /* blr */
	ck_assert(!sw_arch_arm64.call_target(&w, CODE_BASE + 0x120, &target)); /* slot */
	ck_assert(!sw_arch_arm64.call_target(&w, CODE_BASE + 0x204, &target)); /* no call */
	fixture_free(&fx);
}
END_TEST

/* A frame record sits at its frame's bottom (AArch64): alone it only
 * bounds the caller's sp (record + 16). Where the frame's code shows it
 * (`stp x29, x30, [sp, #-272]!; mov x29, sp` from the function's start),
 * the caller's sp is the CFA, 272 bytes above the record (zoo aarch64
 * 5092 `nofp -O2`, stripped: from f4's record + 16, f2's prologue could
 * not be read, and a scan in f4's frame took a stale return into f2). */
START_TEST(test_record_step_takes_the_callers_sp_from_the_frames_code)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t fn = CODE_BASE + 0x100, leaf = CODE_BASE + 0x200;
	put_insn(&fx, fn, 0xa9af7bfdu);          /* stp x29, x30, [sp, #-272]! */
	put_insn(&fx, fn + 4, INSN_MOV_FP_SP);   /* mov x29, sp */
	put_insn(&fx, fn + 0x3c, 0x94000000u | (uint32_t)((leaf - (fn + 0x3c)) / 4)); /* bl leaf */
	uint64_t ra_up = call_returning_to(&fx, CODE_BASE + 0x404);
	uint64_t sp = STACK_BASE + 0x100, fp = STACK_BASE + 0x180;
	put_u64(&fx, fp, 0);
	put_u64(&fx, fp + 8, ra_up);
	set_context(&fx, leaf + 0x10, sp, fp, fn + 0x40);
	struct sw_module_symbols syms = { &block_ops, NULL };
	struct sw_symbol_source src = { .self = &syms, .for_module = syn_module0_symbols };
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm64, &src, &opt);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, fn + 0x40);
	ck_assert_uint_eq(st->frames[2].pc, ra_up);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp + 272);
	fixture_free(&fx);
}
END_TEST

/* A function that ends in a BL to the code right after it (a call that
 * does not return, then the next function, no padding) does not reach
 * that next function's code: a function never calls into its own body
 * past the call (zoo aarch64 5070 `nofp -O0`, stripped: f4 ends `bl f5`;
 * in f5, x29 was still f4's record, whose return into f3, after a call
 * to f4, was taken for f5's caller). */
START_TEST(test_call_reaches_stops_at_a_call_into_the_next_function)
{
	struct fixture fx;
	fixture_init(&fx);
	uint64_t f4 = CODE_BASE + 0x100, f5 = CODE_BASE + 0x140;
	put_insn(&fx, f5 - 4, 0x94000001u); /* bl f5 (the next instruction) */
	put_insn(&fx, f5 + 0x40, 0x14000000u); /* b . */
	sw_snapshot_finish(&fx.snap);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_arm64, .address_mask = ~0ull };
	ck_assert(sw_arch_arm64.call_reaches(&w, f4, f5 - 8));
	ck_assert(!sw_arch_arm64.call_reaches(&w, f4, f5));
	ck_assert(!sw_arch_arm64.call_reaches(&w, f4, f5 + 0x20));
	ck_assert(sw_arch_arm64.call_reaches(&w, f5, f5 + 0x20));
	fixture_free(&fx);
}
END_TEST

/* Scanning above a frame in libc, a word after a BL to the app's own code
 * is stale and passed over; the call through the PLT is libc's caller. */
START_TEST(test_scan_refuses_a_call_into_another_module)
{
	struct fixture fx;
	fixture_init_with_lib(&fx);
	put_calls(&fx);
	uint64_t sp = STACK_BASE + 0x100;
	put_u64(&fx, sp, CODE_BASE + 0x104);        /* bl 100000000 */
	put_u64(&fx, sp + 8, CODE_BASE + 0x10c);    /* bl plt: libc */
	set_context(&fx, LIB_BASE + 0x120, sp, 0, 0);
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x10c);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp + 16);
	fixture_free(&fx);
}
END_TEST

/* Symbols of both modules, sized: the app's code is one function at
 * 0x100; the library's are A at 0x100 and A2 at 0x200 (0x20 bytes each)
 * and B at 0x400 (0x100 bytes). */
static bool two_module_lookup(void *self, uint64_t off, struct sw_arena *a,
                              struct sw_sym_info *out)
{
	(void)a;
	bool lib = self != NULL;
	memset(out, 0, sizeof *out);
	uint64_t start = !lib ? 0x100 : off >= 0x400 ? 0x400 : off >= 0x200 ? 0x200 : 0x100;
	uint64_t size = !lib ? 0x200 : start == 0x400 ? 0x100 : 0x20;
	if (off < start || off >= start + size)
		return false;
	out->function = "f";
	out->function_offset = start;
	out->function_size = size;
	return true;
}

static bool two_module_has_function(void *self, uint64_t off)
{
	struct sw_sym_info info;
	return two_module_lookup(self, off, NULL, &info);
}

static const struct sw_symbols_ops two_module_ops = {
	.lookup = two_module_lookup,
	.has_function = two_module_has_function,
};

static const struct sw_module_symbols *two_module_symbols(void *self, uint32_t m,
                                                         enum sw_symbols_status *st)
{
	static const int lib_tag = 1;
	static struct sw_module_symbols app = { &two_module_ops, NULL };
	static struct sw_module_symbols lib = { &two_module_ops, (void *)&lib_tag };
	(void)self;
	*st = m < 2 ? SW_SYMS_LOADED : SW_SYMS_MISSING;
	return m == 0 ? &app : m == 1 ? &lib : NULL;
}

/* Above a frame in the library's B, a word whose BL went through the PLT
 * to the library's A (which returns, and branches nowhere) is left over
 * from an earlier call: the call did not lead to B. One whose target A2
 * tail-branches to B did (zoo aarch64 5204, stripped: main's
 * sigaction@plt return address above glibc's msort frames). */
START_TEST(test_scan_refuses_a_plt_call_to_a_function_that_leads_elsewhere)
{
	for (int tail = 0; tail < 2; tail++) {
		struct fixture fx;
		fixture_init_with_lib(&fx);
		put_calls(&fx);
		put_insn(&fx, LIB_BASE + 0x100, INSN_RET);          /* A */
		put_insn(&fx, LIB_BASE + 0x200, 0x14000080u);       /* A2: b B */
		uint64_t sp = STACK_BASE + 0x100;
		uint64_t stale = tail ? CODE_BASE + 0x110 : CODE_BASE + 0x10c;
		put_u64(&fx, sp, stale);                            /* bl plt: A or A2 */
		put_u64(&fx, sp + 8, CODE_BASE + 0x11c);            /* blr x8 */
		set_context(&fx, LIB_BASE + 0x420, sp, 0, 0);
		struct sw_symbol_source src = { .self = NULL, .for_module = two_module_symbols };
		const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm64, &src, NULL);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
		ck_assert_uint_eq(st->frames[1].pc, tail ? stale : CODE_BASE + 0x11c);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), tail ? sp + 8 : sp + 16);
		fixture_free(&fx);
	}
}
END_TEST

/* Above a frame in the app, a word whose BL went into the library's A2
 * is refused (a call into another module leads there only by a tail call
 * out of it), unless A2's code may lead into the app: a BR through a
 * register right after its epilogue reloaded x30 is a tail call through a
 * pointer (zoo aarch64 1120 stripped: libzoo's f6 ends `ldp x21, x30,
 * [sp, #16]; ...; br x16` into the program's f7). A BR with no reload of
 * x30 before it (a switch's table jump) proves nothing, nor does a return. */
static uint32_t bl_to(uint64_t at, uint64_t target);

START_TEST(test_scan_takes_a_call_into_a_function_that_tail_calls_through_a_pointer)
{
	enum { RETURNS, TAIL_CALL, SWITCH };
	for (int v = RETURNS; v <= SWITCH; v++) {
		struct fixture fx;
		fixture_init_with_lib(&fx);
		uint64_t a2 = LIB_BASE + 0x200, ra = LIB_BASE + 0x304;
		put_insn(&fx, ra - 4, bl_to(ra - 4, a2));
		if (v == RETURNS)
			put_insn(&fx, a2, INSN_RET);
		if (v == TAIL_CALL)
			put_insn(&fx, a2, 0xa8c17bfdu);        /* ldp x29, x30, [sp], #16 */
		if (v != RETURNS)
			put_insn(&fx, a2 + 4, 0xd61f0200u);    /* br x16 */
		uint64_t sp = STACK_BASE + 0x100;
		put_u64(&fx, sp, ra);
		set_context(&fx, CODE_BASE + 0x180, sp, 0, 0);
		const struct sw_stack *st = walk(&fx);
		if (v == TAIL_CALL) {
			ck_assert_uint_ge(st->nframes, 2);
			ck_assert_uint_eq(st->frames[1].pc, ra);
		} else {
			ck_assert(st->nframes < 2 || st->frames[1].pc != ra);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* A call through a PLT entry whose GOT slot still points at the PLT's
 * head (binutils' PLT0: stp x16, x30, [sp, #-16]!) was never made: lazy
 * binding binds the slot on the first call. A word after it is no return
 * address (zoo aarch64 36, stripped: `bl abort@plt` ends _start, and the
 * word after it, __wrap_main's entry, is what __libc_start_main keeps of
 * main). Bound, the slot names the call's target as before. */
START_TEST(test_scan_refuses_a_call_through_an_unbound_plt_slot)
{
	for (int bound = 0; bound < 2; bound++) {
		struct fixture fx;
		fixture_init_with_lib(&fx);
		put_calls(&fx);
		put_insn(&fx, CODE_BASE + 0x1e0, 0xa9bf7bf0u);      /* PLT0: stp x16, x30, [sp, #-16]! */
		syn_put_code(&fx, CODE_BASE + 0xf00, bound ? LIB_BASE + 0x400 : CODE_BASE + 0x1e0, 8);
		uint64_t sp = STACK_BASE + 0x100;
		put_u64(&fx, sp, CODE_BASE + 0x10c);                /* after bl plt */
		put_u64(&fx, sp + 8, CODE_BASE + 0x11c);            /* after blr x8 */
		set_context(&fx, LIB_BASE + 0x420, sp, 0, 0);
		const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm64, NULL, NULL);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, bound ? CODE_BASE + 0x10c : CODE_BASE + 0x11c);
		fixture_free(&fx);
	}
}
END_TEST

/* ---- prologue analysis against the compiler's CFI ---- */

static const char *const fixtures[] = {
	"aarch64-O0-fp.txt", "aarch64-O0-nofp.txt", "aarch64-O2-fp.txt", "aarch64-O2-nofp.txt",
	"aarch64-pac-O2-nofp.txt",
};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])

START_TEST(test_prologue_matches_cfi_with_symbols)
{
	ck_assert_uint_gt(pf_assert_prologue_matches_cfi(fixtures[_i], true), 100);
}
END_TEST

/* Without symbols the start is found among candidates decoded forwards:
 * after a return or a tail jump past padding, or at an allocation. */
START_TEST(test_prologue_matches_cfi_without_symbols)
{
	ck_assert_uint_gt(pf_assert_prologue_matches_cfi(fixtures[_i], false), 100);
}
END_TEST

/* A stripped program without CFI or frame records (GCC -O2
 * -fomit-frame-pointer): the leaf ext returns through the live x30; its
 * caller nonleaf (stp x19, x30, [sp, #-16]!) is walked by prologue
 * analysis to entry with x19 from its slot and sp at the CFA; entry's
 * saved x30 is NULL: the end. */
START_TEST(test_walk_stripped_code_without_cfi_by_prologue)
{
	struct pro_fixture f;
	pro_fixture_load("aarch64-O2-nofp.txt", &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, false);
	const struct pf_func *ext = pf_func_named(&f, "ext"), *nonleaf = pf_func_named(&f, "nonleaf"),
	                     *entry = pf_func_named(&f, "entry");
	uint64_t ra1 = pf_call_in(&f, nonleaf), ra2 = pf_call_in(&f, entry);
	uint64_t sp1 = PF_CFA - 0x400, cfa1 = sp1 + 16, cfa2 = cfa1 + 48;
	pf_put(&pm, cfa1 - 16, 0x7719, 8);  /* nonleaf: stp x19, x30, [sp, #-16]! */
	pf_put(&pm, cfa1 - 8, ra2, 8);
	pf_put(&pm, cfa2 - 48 + 16, 0, 8);  /* entry: str x30, [sp, #16] after a 48-byte push */
	sw_reg_set(&pm.thread.ctx, PC, ext->addr + 4);
	sw_reg_set(&pm.thread.ctx, SP, sp1);
	sw_reg_set(&pm.thread.ctx, FP, 0x5000); /* no record: a register like any other */
	sw_reg_set(&pm.thread.ctx, LR, ra1);
	sw_reg_set(&pm.thread.ctx, 19, 0x1919);
	struct sw_walk_options opt = { .no_scan = true };
	ck_assert(sw_walk_snapshot(&pm.snap, f.arch, NULL, &opt, &pm.arena, &pm.result));
	const struct sw_stack *st = &pm.result.stacks[0];
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp1);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), cfa1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], 19), 0x7719);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* bl from `at` to `target` (Arm ARM C6.2.33: imm26 words). */
static uint32_t bl_to(uint64_t at, uint64_t target)
{
	return 0x94000000u | (uint32_t)((uint64_t)((int64_t)(target - at) >> 2) & 0x3ffffffu);
}

/* A function ending in a call that does not return (bl abort) is followed
 * right away by the next function (zoo aarch64 1024: f3's `bl abort`, then
 * _fini's nop; stp x29, x30, [sp, #-16]!). Code that allocates after pc
 * is that function's, no epilogue of this frame's: the start found (sub
 * sp, sp, #0x110; str x30, [sp]) stands, and the return address comes
 * from its slot (it was refused, and the search went on to the caller's
 * start, skipping a frame). */
START_TEST(test_prologue_start_stands_before_a_noreturn_call_ending_the_function)
{
	struct fixture fx;
	fixture_init_os(&fx, SW_OS_LINUX);
	uint64_t fn = CODE_BASE + 0x104, leaf = CODE_BASE + 0x400, ra1 = fn + 0x20;
	uint64_t ra2 = CODE_BASE + 0x604;
	put_insn(&fx, fn - 4, INSN_RET);
	put_insn(&fx, fn, 0xd10443ffu);     /* sub sp, sp, #0x110 */
	put_insn(&fx, fn + 4, 0xf90003feu); /* str x30, [sp] */
	put_insn(&fx, ra1 - 4, bl_to(ra1 - 4, leaf));
	put_insn(&fx, ra1 + 4, INSN_STP_FP_LR_PRE); /* the next function */
	put_insn(&fx, ra1 + 8, INSN_MOV_FP_SP);
	put_insn(&fx, ra1 + 12, INSN_LDP_FP_LR_POST);
	put_insn(&fx, ra1 + 16, INSN_RET);
	put_insn(&fx, leaf - 4, INSN_RET);
	put_insn(&fx, ra2 - 4, bl_to(ra2 - 4, fn));
	uint64_t sp = STACK_BASE + 0x100;
	put_u64(&fx, sp, ra2);
	set_context(&fx, leaf + 8, sp, 0x5000, ra1); /* x29: no record, any value */
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_with(&fx, &opt);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp + 0x110);
	fixture_free(&fx);
}
END_TEST

/* A scan found a frame's return address in the slot its code stores x30
 * in (main: stp x19, x20, [sp, #-32]!; str x30, [sp, #16]): the CFA, the
 * caller's sp, is that slot + 16, not the slot + 8 a pushed return
 * address would give, and x19 comes from its slot. Frame 1 (main, found
 * through the leaf's live x30) has only a bound for its sp: the leaf
 * after two jumps has no start to prove its CFA (zoo aarch64 1034
 * stripped: __libc_start_call_main's CFI, CFA = sp + 272, read from 8
 * bytes low, and the next scan took a stale word in main's frame). main
 * calls through a register: a bl naming the leaf would prove the leaf's
 * start (test_prologue_candidate_ends_at_a_call_into_the_next_function). */
START_TEST(test_scan_caller_sp_from_the_callees_save_of_x30)
{
	struct fixture fx;
	fixture_init_os(&fx, SW_OS_LINUX);
	uint64_t fn = CODE_BASE + 0x104, leaf = CODE_BASE + 0x400, ra1 = fn + 0x20;
	put_insn(&fx, fn - 4, INSN_RET);
	put_insn(&fx, fn, 0xa9be53f3u);     /* stp x19, x20, [sp, #-32]! */
	put_insn(&fx, fn + 4, 0xf9000bfeu); /* str x30, [sp, #16] */
	put_insn(&fx, ra1 - 4, 0xd63f0020u); /* blr x1: no call names the leaf's start */
	put_insn(&fx, ra1, 0xf9400bfeu);     /* ldr x30, [sp, #16] */
	put_insn(&fx, ra1 + 4, 0xa8c253f3u); /* ldp x19, x20, [sp], #32 */
	put_insn(&fx, ra1 + 8, INSN_RET);
	put_insn(&fx, leaf - 12, INSN_LDP_FP_LR_POST); /* frame_dummy's end */
	put_insn(&fx, leaf - 8, INSN_B);
	put_insn(&fx, leaf - 4, INSN_B);
	put_insn(&fx, leaf + 12, INSN_RET);
	uint64_t ra2 = call_returning_to(&fx, CODE_BASE + 0x604);
	uint64_t sp = STACK_BASE + 0x100;
	put_u64(&fx, sp, 0x1919);       /* main's x19, x20, x30 */
	put_u64(&fx, sp + 8, 0x2020);
	put_u64(&fx, sp + 16, ra2);
	set_context(&fx, leaf + 8, sp, 0x5000, ra1); /* x29: no record */
	const struct sw_stack *st = walk(&fx);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp + 32);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], 19), 0x1919);
	fixture_free(&fx);
}
END_TEST

/* b from `at` to `target` (Arm ARM C6.2.26). */
static uint32_t b_to(uint64_t at, uint64_t target)
{
	return 0x14000000u | (uint32_t)((uint64_t)((int64_t)(target - at) >> 2) & 0x3ffffffu);
}

/* crtstuff's frame_dummy (cbz x0, 1f; stp x29, x30, [sp, #-16]!; ...;
 * ldp x29, x30, [sp], #16; b register_tm_clones; 1: b register_tm_clones)
 * right before a leaf that ends `b .` after the crash: the candidate start
 * at frame_dummy's stp decodes down to pc, no return refuting it, but its
 * function ends at the tail jumps, past which no branch it made leads:
 * the leaf begins there with no frame, and its caller through x30 has
 * the leaf's sp (zoo aarch64 183 stripped: sp + 16, so the scan from f2
 * began above f2's saved x30, and main was skipped). */
START_TEST(test_prologue_candidate_ends_at_a_tail_jump_no_branch_passes)
{
	struct fixture fx;
	fixture_init_os(&fx, SW_OS_LINUX);
	uint64_t fd = CODE_BASE + 0x200, tm_clones = CODE_BASE + 0x100, leaf = fd + 0x20;
	put_insn(&fx, fd - 8, INSN_RET);
	put_insn(&fx, fd, 0xaa0103e0u);      /* mov x0, x1 */
	put_insn(&fx, fd + 4, 0xb40000c0u);  /* cbz x0, fd + 0x1c */
	put_insn(&fx, fd + 8, INSN_STP_FP_LR_PRE);
	put_insn(&fx, fd + 12, INSN_MOV_FP_SP);
	put_insn(&fx, fd + 16, bl_to(fd + 16, CODE_BASE + 0x600));
	put_insn(&fx, fd + 20, INSN_LDP_FP_LR_POST);
	put_insn(&fx, fd + 24, b_to(fd + 24, tm_clones));
	put_insn(&fx, fd + 28, b_to(fd + 28, tm_clones));
	put_insn(&fx, leaf, 0xaa0103e0u);     /* mov x0, x1 */
	put_insn(&fx, leaf + 4, 0xb9000001u); /* str w1, [x0]: pc */
	put_insn(&fx, leaf + 8, b_to(leaf + 8, leaf + 8));
	uint64_t ra1 = call_returning_to(&fx, CODE_BASE + 0x804);
	uint64_t sp = STACK_BASE + 0x100;
	set_context(&fx, leaf + 4, sp, 0x5000, ra1); /* x29: no record */
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_with(&fx, &opt);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	fixture_free(&fx);
}
END_TEST

/* f2 makes a record and ends `bl f3` (f3 does not return), the leaf f3
 * right after it with no padding: x30 is f3's own entry. Decoded from
 * f2's stp, the code runs on to pc, and f3's CFA came out 16 high with
 * f2's allocation (zoo aarch64 206 stripped, 48 bytes: the scan from
 * there skipped an f2). A BL to an address from its own return up to pc
 * enters another function: the decode starts afresh at it, and the leaf's
 * caller through x30 has the leaf's sp. */
START_TEST(test_prologue_candidate_ends_at_a_call_into_the_next_function)
{
	struct fixture fx;
	fixture_init_os(&fx, SW_OS_LINUX);
	uint64_t f2 = CODE_BASE + 0x200, f3 = f2 + 0x14;
	put_insn(&fx, f2 - 8, INSN_RET);
	put_insn(&fx, f2, INSN_STP_FP_LR_PRE);
	put_insn(&fx, f2 + 4, INSN_MOV_FP_SP);
	put_insn(&fx, f2 + 16, bl_to(f2 + 16, f3));
	put_insn(&fx, f3, 0xaa0103e0u);     /* mov x0, x1 */
	put_insn(&fx, f3 + 4, 0xb9000001u); /* str w1, [x0]: pc */
	uint64_t ra_main = call_returning_to(&fx, CODE_BASE + 0x804);
	uint64_t sp = STACK_BASE + 0x100;
	put_u64(&fx, sp, 0);
	put_u64(&fx, sp + 8, ra_main);
	set_context(&fx, f3 + 4, sp, sp, f3);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_with(&fx, &opt);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, f3);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	ck_assert_uint_eq(st->frames[2].pc, ra_main);
	fixture_free(&fx);
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("arm64");
	TCase *tc = tcase_create("walk");
	tcase_add_test(tc, test_context_leaf_returns_through_link_register);
	tcase_add_test(tc, test_context_with_own_record_uses_the_record);
	tcase_add_test(tc, test_link_register_into_the_own_function_is_left_over);
	tcase_add_test(tc, test_link_register_into_straight_code_before_the_pc_is_left_over);
	tcase_add_test(tc, test_record_of_a_function_that_makes_none_is_a_callers);
	tcase_add_test(tc, test_live_frame_returning_without_touching_x29_has_no_record);
	tcase_add_test(tc, test_cfi_from_a_record_bounded_sp_needs_a_call);
	tcase_add_test(tc, test_cfi_from_a_record_bounded_sp_is_anchored_on_the_frames_own_record);
	tcase_add_test(tc, test_cfi_from_a_record_bounded_sp_needs_a_call_to_the_callee);
	tcase_add_test(tc, test_pointer_authentication_bits_are_stripped);
	tcase_add_test(tc, test_snapshot_pac_mask_is_used);
	tcase_add_test(tc, test_record_without_call_before_its_return_address_is_refused);
	tcase_add_test(tc, test_record_chain_must_grow);
	tcase_add_test(tc, test_scan_takes_only_words_after_a_call);
	tcase_add_test(tc, test_call_check_decodes_every_linking_branch);
	tcase_add_test(tc, test_call_target_decodes_bl_and_follows_stubs);
	tcase_add_test(tc, test_call_reaches_stops_at_a_call_into_the_next_function);
	tcase_add_test(tc, test_record_step_takes_the_callers_sp_from_the_frames_code);
	tcase_add_test(tc, test_scan_refuses_a_call_into_another_module);
	tcase_add_test(tc, test_scan_refuses_a_plt_call_to_a_function_that_leads_elsewhere);
	tcase_add_test(tc, test_scan_refuses_a_call_through_an_unbound_plt_slot);
	tcase_add_test(tc, test_scan_takes_a_call_into_a_function_that_tail_calls_through_a_pointer);
	suite_add_tcase(s, tc);
	TCase *pro = tcase_create("prologue");
	tcase_add_loop_test(pro, test_prologue_matches_cfi_with_symbols, 0, NFIXTURES);
	tcase_add_loop_test(pro, test_prologue_matches_cfi_without_symbols, 0, NFIXTURES);
	tcase_add_test(pro, test_walk_stripped_code_without_cfi_by_prologue);
	tcase_add_test(pro, test_prologue_candidate_ends_at_a_call_into_the_next_function);
	tcase_add_test(pro, test_prologue_start_stands_before_a_noreturn_call_ending_the_function);
	tcase_add_test(pro, test_scan_caller_sp_from_the_callees_save_of_x30);
	tcase_add_test(pro, test_prologue_candidate_ends_at_a_tail_jump_no_branch_passes);
	suite_add_tcase(s, pro);
	return s;
}
