/* 32-bit ARM: the BL/BLX call check on real GCC code (testdata/code), and
 * the walker on synthetic stacks for every trust path: context, CFI, the
 * r11 chains of ARM code (GCC, APCS, AAPCS), Apple's r7 chain, the live
 * link register of the context frame, scanning, ARM/Thumb interworking, and
 * each way a walk ends; where direct calls and PLT stubs lead. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "code_fixture.h"
#include "lib/walker.h"
#include "prologue_fixture.h"
#include "synthetic_snapshot.h"

enum { R7 = 7, R11 = 11, SP = 13, LR = 14, PC = 15, CPSR = 16 };
enum { CPSR_THUMB = 0x20 };

#define CODE_BASE 0x10000ull
#define CODE_SIZE 0x2000ull
#define LIB_BASE 0x40000ull
#define LIB_SIZE 0x1000ull
#define STACK_BASE 0x7ff00000ull
#define STACK_SIZE 0x1000ull

/* Instructions (ARM ARM A8.8.25-26), little-endian as ARMv7 stores code. */
enum {
	ARM_NOP = 0xe1a00000u,      /* mov r0, r0 */
	ARM_BL = 0xeb000010u,       /* bl .+0x48 */
	ARM_BLX_R3 = 0xe12fff33u,   /* blx r3 */
	THUMB_BL_HI = 0xf000u,      /* bl .+0x24, first halfword */
	THUMB_BL_LO = 0xf810u,
	THUMB_BLX_R3 = 0x4798u,     /* blx r3 */
};

/* ---- the call check on real code --------------------------------------- */

static const char *const arm_fixtures[] = {
	"arm-arm-O0-fp.txt", "arm-arm-O0-nofp.txt", "arm-arm-O2-fp.txt",
	"arm-arm-O2-nofp.txt", "arm-thumb-O0-fp.txt", "arm-thumb-O0-nofp.txt",
	"arm-thumb-O2-fp.txt", "arm-thumb-O2-nofp.txt", "arm-v4t-O2.txt",
};

/* Every return address GCC's calls leave (BL, BLX imm both ways, BLX Rm,
 * ARMv4T's mov lr, pc + bx) is accepted, every other instruction end of
 * ARM and Thumb-2 code rejected. */
START_TEST(test_call_check_matches_objdump_on_real_code)
{
	const char *name = arm_fixtures[_i];
	struct code_fixture f;
	struct code_snapshot cs;
	code_fixture_load(name, &f);
	ck_assert_str_eq(f.arch, "arm");
	code_snapshot_init(&cs, &f, &sw_arch_arm, false, 7);
	ck_assert_uint_gt(code_fixture_check(&cs, &f, name), 40);
	code_snapshot_free(&cs);
	code_fixture_free(&f);
}
END_TEST

/* A big-endian ARMv7 system is BE-8: data is swapped, code is not (ARM
 * ARM A3.3.1), so the same code bytes decode the same. */
START_TEST(test_call_check_reads_be8_code_little_endian)
{
	struct code_fixture f;
	struct code_snapshot cs;
	code_fixture_load("arm-thumb-O2-fp.txt", &f);
	code_snapshot_init(&cs, &f, &sw_arch_arm, true, 7);
	code_fixture_check(&cs, &f, "arm-thumb-O2-fp.txt (BE-8)");
	code_snapshot_free(&cs);
	code_fixture_free(&f);
}
END_TEST

/* ARMv5 and older big-endian systems (BE-32) store instruction words
 * big-endian; the ARMv4T fixture, its words swapped, still decodes. */
START_TEST(test_call_check_reads_be32_code_big_endian)
{
	struct code_fixture f;
	struct code_snapshot cs;
	code_fixture_load("arm-v4t-O2.txt", &f);
	for (size_t i = 0; i + 4 <= f.text_size; i += 4) {
		uint8_t *p = &f.text[i], t0 = p[0], t1 = p[1];
		p[0] = p[3];
		p[1] = p[2];
		p[2] = t1;
		p[3] = t0;
	}
	code_snapshot_init(&cs, &f, &sw_arch_arm, true, 5);
	code_fixture_check(&cs, &f, "arm-v4t-O2.txt (BE-32)");
	code_snapshot_free(&cs);
	/* Read as BE-8 (little-endian code), the swapped words are no calls. */
	code_snapshot_init(&cs, &f, &sw_arch_arm, true, 7);
	ck_assert_uint_lt(code_fixture_calls_accepted(&cs, &f), f.ncalls);
	code_snapshot_free(&cs);
	code_fixture_free(&f);
}
END_TEST

/* A Thumb return address must be odd and an ARM one a multiple of 4: a
 * real return address with its mode bit flipped, or 2 mod 4, is no
 * return address, whatever the bytes before it. */
START_TEST(test_call_check_needs_the_right_instruction_set)
{
	struct code_fixture f;
	struct code_snapshot cs;
	code_fixture_load("arm-arm-O2-fp.txt", &f);
	code_snapshot_init(&cs, &f, &sw_arch_arm, false, 7);
	size_t flipped_accepted = 0;
	for (size_t i = 0; i < f.ncalls; i++) {
		bool known;
		uint64_t ra = f.calls[i];
		flipped_accepted += sw_arch_arm.call_precedes(&cs.walk, ra ^ 1, &known);
		if ((ra & 1) == 0) {
			ck_assert(!sw_arch_arm.call_precedes(&cs.walk, ra + 2, &known));
			ck_assert(known);
		}
	}
	ck_assert_uint_eq(flipped_accepted, 0);
	code_snapshot_free(&cs);
	code_fixture_free(&f);
}
END_TEST

/* Outside captured code the check cannot be made: Breakpad's rule (inside
 * a module) is all there is; only the instruction-set rule still holds. */
START_TEST(test_call_check_unknown_without_code_bytes)
{
	struct code_fixture f;
	struct code_snapshot cs;
	code_fixture_load("arm-arm-O2-fp.txt", &f);
	code_snapshot_init(&cs, &f, &sw_arch_arm, false, 7);
	bool known = true;
	ck_assert(sw_arch_arm.call_precedes(&cs.walk, 0x500000, &known));
	ck_assert(!known);
	known = true;
	ck_assert(sw_arch_arm.call_precedes(&cs.walk, 0x500001, &known));
	ck_assert(!known);
	/* 2 mod 4 is no return address, with or without the bytes. */
	ck_assert(!sw_arch_arm.call_precedes(&cs.walk, 0x500002, &known));
	ck_assert(known);
	code_snapshot_free(&cs);
	code_fixture_free(&f);
}
END_TEST

/* ---- prologue analysis against the compiler's CFI ------------------------ */

static const char *const pro_fixtures[] = {
	"arm-pro-arm-O0-fp.txt", "arm-pro-arm-O0-nofp.txt", "arm-pro-arm-O2-fp.txt",
	"arm-pro-arm-O2-nofp.txt", "arm-pro-thumb-O0-fp.txt", "arm-pro-thumb-O0-nofp.txt",
	"arm-pro-thumb-O2-fp.txt", "arm-pro-thumb-O2-nofp.txt",
};
#define NPRO_FIXTURES (sizeof pro_fixtures / sizeof pro_fixtures[0])

/* At every instruction of every function (a context frame stopped there)
 * and at every return address (a suspended frame), GCC's ARM and Thumb-2
 * code decoded from the function's start gives the caller's sp, return
 * address and saved r4-r11 that GCC's own .debug_frame gives: pushes,
 * sub sp (8 KiB, 70000 bytes), vpush, the r7/r11 frame pointers, alloca
 * and VLAs through them, conditional returns in IT blocks, jump tables. */
START_TEST(test_prologue_matches_cfi_with_symbols)
{
	ck_assert_uint_gt(pf_assert_prologue_matches_cfi(pro_fixtures[_i], true), 100);
}
END_TEST

/* Without symbols the start is the nearest save of lr from which the
 * decode lands on pc: every frame that has saved lr agrees with the CFI,
 * and none that has not gives a caller (a leaf's live lr is the frame
 * pointer hook's). */
START_TEST(test_prologue_matches_cfi_without_symbols)
{
	pf_assert_prologue_matches_cfi(pro_fixtures[_i], false);
}
END_TEST

/* ---- synthetic stacks -------------------------------------------------- */

static void fixture_init(struct fixture *fx, enum sw_os os)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "synthetic-arm", .cpu = SW_CPU_ARM, .os = os, .word_size = 4,
		.processor_level = 7,
		.code = { CODE_BASE, CODE_SIZE }, .lib = { LIB_BASE, LIB_SIZE },
		.stack = { STACK_BASE, STACK_SIZE },
		.fill = ARM_NOP, .fill_size = 4,
		.thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/system/bin/app" },
		             { .base = LIB_BASE, .size = LIB_SIZE, .code_file = "/system/lib/libc.so" } },
		.nmodules = 2 });
}

/* An ARM-state call returning to ra (a multiple of 4). */
static uint64_t arm_call_to(struct fixture *fx, uint64_t ra)
{
	ck_assert((ra & 3) == 0);
	syn_put_code(fx, ra - 4, ARM_BL, 4);
	return ra;
}

/* A Thumb call returning to ra | 1: the return address as BL leaves it. */
static uint64_t thumb_call_to(struct fixture *fx, uint64_t addr)
{
	ck_assert((addr & 1) == 0);
	syn_put_code(fx, addr - 4, THUMB_BL_HI, 2);
	syn_put_code(fx, addr - 2, THUMB_BL_LO, 2);
	return addr | 1;
}

/* A Thumb-2 BL to `target` returning to ra | 1 (ARM ARM A8.8.25, T1):
 * imm32 = S:I1:I2:imm10:imm11:0 from ra, I1 = !(J1 ^ S), I2 = !(J2 ^ S). */
static uint64_t thumb_bl_to(struct fixture *fx, uint64_t ra, uint64_t target)
{
	uint32_t imm = (uint32_t)(target - ra);
	uint32_t sign = imm >> 31 & 1, i1 = imm >> 23 & 1, i2 = imm >> 22 & 1;
	uint32_t j1 = !(i1 ^ sign), j2 = !(i2 ^ sign);
	uint32_t hi = 0xf000 | sign << 10 | (imm >> 12 & 0x3ff);
	uint32_t lo = 0xd000 | j1 << 13 | j2 << 11 | (imm >> 1 & 0x7ff);
	syn_put_code(fx, ra - 4, hi, 2);
	syn_put_code(fx, ra - 2, lo, 2);
	return ra | 1;
}

static void set_context(struct fixture *fx, uint64_t pc, uint64_t sp, uint64_t lr, bool thumb)
{
	sw_reg_set(&fx->thread.ctx, PC, pc);
	sw_reg_set(&fx->thread.ctx, SP, sp);
	sw_reg_set(&fx->thread.ctx, LR, lr);
	sw_reg_set(&fx->thread.ctx, CPSR, thumb ? 0x60000030u : 0x60000010u);
}

/* A fake symbol provider for module 0: functions at fixed offsets, and an
 * optional CFI rule for all of them. */
enum fake_rule {
	RULE_NONE,
	RULE_PUSH_R7_LR,  /* .cfa: sp 8 + .ra: .cfa -4 + ^ (push {r7, lr}) */
	RULE_SAME_SP,     /* .cfa: sp .ra: [sp]: a caller at the same sp */
	RULE_LEAF_LR,     /* .cfa: sp .ra: lr: a leaf (or a naked handler) */
};

struct fake_func {
	uint64_t lo, hi;
	const char *name;
};

struct fake_symbols {
	struct fake_func funcs[4];
	unsigned nfuncs;
	enum fake_rule rule;
	enum fake_rule func_rule[4];  /* a function's own; RULE_NONE: rule */
	struct sw_module_symbols module;
	struct sw_symbol_source source;
};

static const struct fake_func *fake_find(const struct fake_symbols *fs, uint64_t off)
{
	for (unsigned i = 0; i < fs->nfuncs; i++)
		if (off >= fs->funcs[i].lo && off < fs->funcs[i].hi)
			return &fs->funcs[i];
	return NULL;
}

static bool fake_lookup(void *self, uint64_t off, struct sw_arena *a, struct sw_sym_info *out)
{
	(void)a;
	const struct fake_func *f = fake_find(self, off);
	if (!f)
		return false;
	memset(out, 0, sizeof *out);
	out->function = f->name;
	out->function_offset = f->lo;
	out->function_size = f->hi - f->lo;
	return true;
}

static bool fake_has_function(void *self, uint64_t off)
{
	return fake_find(self, off) != NULL;
}

static enum sw_unwind_status fake_unwind(void *self, uint64_t off, const struct sw_unwind_env *env,
                                         struct sw_caller *out, enum sw_trust *trust)
{
	struct sw_regs *caller = &out->regs;
	const struct fake_symbols *fs = self;
	const struct fake_func *f = fake_find(fs, off);
	enum fake_rule own = f ? fs->func_rule[f - fs->funcs] : RULE_NONE;
	enum fake_rule rule = own != RULE_NONE ? own : fs->rule;
	if (rule == RULE_NONE)
		return SW_UNWIND_NO_RULE;
	uint64_t sp = env->callee->regs.v[SP], ra;
	if (rule == RULE_LEAF_LR) {
		if (!sw_reg_valid(&env->callee->regs, LR))
			return SW_UNWIND_FAILED;
		*caller = env->callee->regs;
		sw_reg_set(caller, PC, env->callee->regs.v[LR]);
		*trust = SW_TRUST_CFI;
		return SW_UNWIND_OK;
	}
	uint64_t cfa = rule == RULE_PUSH_R7_LR ? sp + 8 : sp;
	if (!sw_walk_read_word(env->walk, rule == RULE_PUSH_R7_LR ? cfa - 4 : sp, &ra))
		return SW_UNWIND_FAILED;
	sw_reg_set(caller, PC, ra);
	sw_reg_set(caller, SP, cfa);
	*trust = SW_TRUST_CFI;
	return SW_UNWIND_OK;
}

static const struct sw_symbols_ops fake_ops = {
	.lookup = fake_lookup,
	.unwind = fake_unwind,
	.has_function = fake_has_function,
};

static void fake_init(struct fake_symbols *fs)
{
	memset(fs, 0, sizeof *fs);
	fs->funcs[0] = (struct fake_func){ 0x000, 0x400, "crashing" };
	fs->funcs[1] = (struct fake_func){ 0x400, 0x800, "caller" };
	fs->funcs[2] = (struct fake_func){ 0x800, 0x2000, "main" };
	fs->nfuncs = 3;
	fs->module = (struct sw_module_symbols){ &fake_ops, fs };
	fs->source = (struct sw_symbol_source){ .self = &fs->module, .for_module = syn_module0_symbols };
}

static const struct sw_stack *walk_opt(struct fixture *fx, const struct sw_symbol_source *src,
                                       const struct sw_walk_options *opt)
{
	return syn_walk(fx, &sw_arch_arm, src, opt);
}

static const struct sw_stack *walk(struct fixture *fx, const struct sw_symbol_source *src)
{
	return walk_opt(fx, src, NULL);
}

START_TEST(test_context_frame_alone)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	set_context(&fx, CODE_BASE + 0x10, STACK_BASE + 0x100, 0, false);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->frames[0].trust, SW_TRUST_CONTEXT);
	ck_assert_uint_eq(st->frames[0].lookup_pc, CODE_BASE + 0x10);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* CFI gives a Thumb return address: the caller keeps the Thumb bit in its
 * pc (as Breakpad prints it) and is symbolized and printed at pc - 2,
 * inside the BL. */
START_TEST(test_cfi_caller_keeps_thumb_bit)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_ANDROID);
	fake_init(&fs);
	fs.rule = RULE_PUSH_R7_LR;
	uint64_t sp = STACK_BASE + 0x100;
	uint64_t ra = thumb_call_to(&fx, LIB_BASE + 0x200);
	put_u32(&fx, sp + 4, (uint32_t)ra);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, true);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(st->frames[1].pc, LIB_BASE + 0x201);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], PC), LIB_BASE + 0x201);
	ck_assert_uint_eq(st->frames[1].lookup_pc, LIB_BASE + 0x1ff);
	ck_assert_uint_eq(sw_arch_arm.printed_address(&st->frames[1]), LIB_BASE + 0x1ff);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp + 8);
	ck_assert_str_eq(st->frames[0].function, "crashing");
	fixture_free(&fx);
}
END_TEST

/* GCC's ARM-mode records (push {fp, lr}; add fp, sp, #4): [fp] = lr,
 * [fp - 4] = the caller's fp, the caller's sp = fp + 4. The context frame's
 * own record holds its lr: the record, not lr, gives the caller (with the
 * caller's sp). */
START_TEST(test_r11_chain_gcc_layout)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x14c, fp2 = STACK_BASE + 0x1ac;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);
	uint64_t ra2 = arm_call_to(&fx, CODE_BASE + 0x900);
	put_u32(&fx, fp1, (uint32_t)ra1);
	put_u32(&fx, fp1 - 4, (uint32_t)fp2);
	put_u32(&fx, fp2, (uint32_t)ra2);
	put_u32(&fx, fp2 - 4, 0);
	set_context(&fx, CODE_BASE + 0x10, sp, ra1, false);
	sw_reg_set(&fx.thread.ctx, R11, fp1);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(st->frames[1].lookup_pc, ra1 - 2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp1 + 4);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R11), fp2);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp2 + 4);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R11), 0);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* APCS frames (-mapcs-frame: mov ip, sp; push {fp, ip, lr, pc}; sub fp,
 * ip, #4): [fp - 4] = lr, [fp - 8] = the caller's sp, [fp - 12] = the
 * caller's fp. */
START_TEST(test_r11_chain_apcs_layout)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x13c;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, fp1, (uint32_t)(CODE_BASE + 0x18));   /* the saved pc */
	put_u32(&fx, fp1 - 4, (uint32_t)ra1);
	put_u32(&fx, fp1 - 8, (uint32_t)(fp1 + 4));
	put_u32(&fx, fp1 - 12, 0);
	set_context(&fx, CODE_BASE + 0x20, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, fp1);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp1 + 4);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R11), 0);
	fixture_free(&fx);
}
END_TEST

/* clang's and the AAPCS frame chain's records: [fp] = the caller's fp,
 * [fp + 4] = lr, the caller's sp = fp + 8. */
START_TEST(test_r11_chain_aapcs_layout)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x140, fp2 = STACK_BASE + 0x1a0;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);
	uint64_t ra2 = arm_call_to(&fx, CODE_BASE + 0x900);
	put_u32(&fx, fp1, (uint32_t)fp2);
	put_u32(&fx, fp1 + 4, (uint32_t)ra1);
	put_u32(&fx, fp2, 0);
	put_u32(&fx, fp2 + 4, (uint32_t)ra2);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, fp1);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp1 + 8);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp2 + 8);
	fixture_free(&fx);
}
END_TEST

/* A GCC leaf (push {fp}; add fp, sp, #0) keeps its return address in lr
 * and points fp at the caller's fp, itself a GCC record: lr gives the
 * caller, with fp and sp from the leaf's record. */
START_TEST(test_r11_gcc_leaf_returns_through_lr)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp0 = STACK_BASE + 0x108, fp1 = STACK_BASE + 0x15c;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);
	uint64_t ra2 = arm_call_to(&fx, CODE_BASE + 0x900);
	put_u32(&fx, fp0, (uint32_t)fp1);
	put_u32(&fx, fp1, (uint32_t)ra2);
	put_u32(&fx, fp1 - 4, 0);
	set_context(&fx, CODE_BASE + 0x10, sp, ra1, false);
	sw_reg_set(&fx.thread.ctx, R11, fp0);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp0 + 4);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R11), fp1);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp1 + 4);
	fixture_free(&fx);
}
END_TEST

/* Breakpad's iOS test (GetFramesByFramePointer.OnlyFramePointer): Thumb
 * code, r7 records {r7, lr}; the context frame is a leaf whose caller is
 * in lr; the record of two zeros ends the chain. */
START_TEST(test_r7_chain_on_ios)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_IOS);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x128, fp2 = STACK_BASE + 0x158;
	uint64_t ra1 = thumb_call_to(&fx, CODE_BASE + 0x500);
	uint64_t ra2 = thumb_call_to(&fx, CODE_BASE + 0x900);
	put_u32(&fx, fp1, (uint32_t)fp2);
	put_u32(&fx, fp1 + 4, (uint32_t)ra2);
	put_u32(&fx, fp2, 0);
	put_u32(&fx, fp2 + 4, 0);
	set_context(&fx, CODE_BASE + 0x10, sp, ra1, true);
	sw_reg_set(&fx.thread.ctx, R7, fp1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R7), fp1);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp1 + 8);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R7), fp2);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* On Apple systems r7 is the frame pointer in ARM code too; a frame whose
 * record said its caller's r7 is NULL is the thread's outermost. */
START_TEST(test_r7_chain_ends_after_null_saved_r7)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_IOS);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x140;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, fp1, 0);
	put_u32(&fx, fp1 + 4, (uint32_t)ra1);
	/* A word a scan would take: the walk must not reach it. */
	put_u32(&fx, fp1 + 12, (uint32_t)arm_call_to(&fx, CODE_BASE + 0x900));
	set_context(&fx, CODE_BASE + 0x10, sp, ra1, false);
	sw_reg_set(&fx.thread.ctx, R7, fp1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp1 + 8);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* Off Apple systems Thumb code keeps no chain (GCC's r7 points at its
 * locals): a record-like pair at r7 is found only by scanning. */
START_TEST(test_thumb_r7_not_followed_on_linux)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, r7 = STACK_BASE + 0x120;
	uint64_t ra1 = thumb_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, r7, (uint32_t)(STACK_BASE + 0x180));
	put_u32(&fx, r7 + 4, (uint32_t)ra1);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, true);
	sw_reg_set(&fx.thread.ctx, R7, r7);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), r7 + 8);
	fixture_free(&fx);
}
END_TEST

/* Interworking: ARM code (r11 chain) called from Thumb code, itself
 * called from ARM code. The Thumb frame's r11 still points at an ARM
 * ancestor's record, which would skip a frame: its caller comes from the
 * scan, validated by the ARM BL before the ARM return address. */
START_TEST(test_arm_thumb_interworking)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp0 = STACK_BASE + 0x10c, far = STACK_BASE + 0x3fc;
	uint64_t thumb_ra = thumb_call_to(&fx, CODE_BASE + 0x600);
	uint64_t arm_ra = arm_call_to(&fx, CODE_BASE + 0x900);
	uint64_t skipped_ra = arm_call_to(&fx, CODE_BASE + 0xd00);
	put_u32(&fx, fp0, (uint32_t)thumb_ra);
	put_u32(&fx, fp0 - 4, (uint32_t)far);       /* the ARM ancestor's record */
	put_u32(&fx, far, (uint32_t)skipped_ra);
	put_u32(&fx, far - 4, 0);
	put_u32(&fx, STACK_BASE + 0x120, (uint32_t)arm_ra); /* in the Thumb frame */
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, fp0);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, thumb_ra);
	ck_assert_uint_eq(st->frames[1].lookup_pc, thumb_ra - 2);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[2].pc, arm_ra);
	ck_assert_uint_eq(st->frames[2].lookup_pc, arm_ra - 2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), STACK_BASE + 0x124);
	fixture_free(&fx);
}
END_TEST

/* The scan takes a word only if a call of its instruction set ends there:
 * ARM (a multiple of 4) after BL or BLX Rm, Thumb (odd) after BL or BLX
 * Rm; an even address that is 2 mod 4 is never a return address. */
START_TEST(test_scan_validates_by_instruction_set)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_ANDROID);
	uint64_t sp = STACK_BASE + 0x100;
	uint64_t thumb_blx = CODE_BASE + 0x700;
	syn_put_code(&fx, thumb_blx - 2, THUMB_BLX_R3, 2);
	uint64_t arm_blx = CODE_BASE + 0xa00;
	syn_put_code(&fx, arm_blx - 4, ARM_BLX_R3, 4);
	uint64_t ra = thumb_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, sp, (uint32_t)(ra - 1));          /* Thumb code as if ARM */
	put_u32(&fx, sp + 4, (uint32_t)(ra + 1));      /* 2 mod 4 */
	put_u32(&fx, sp + 8, (uint32_t)(CODE_BASE + 0x301)); /* Thumb, no call */
	put_u32(&fx, sp + 12, (uint32_t)(thumb_blx | 1));
	put_u32(&fx, sp + 40, (uint32_t)arm_blx);
	put_u32(&fx, sp + 80, (uint32_t)ra);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, true);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_ge(st->nframes, 4);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, thumb_blx | 1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp + 16);
	ck_assert_uint_eq(st->frames[2].pc, arm_blx);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp + 44);
	ck_assert_uint_eq(st->frames[3].pc, ra);
	fixture_free(&fx);
}
END_TEST

/* The context frame's lr is its return address when the symbols put lr's
 * call in another function than the frame's pc: a leaf (no CFI here). */
START_TEST(test_context_lr_taken_when_symbols_show_a_leaf)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs);
	uint64_t sp = STACK_BASE + 0x100;
	uint64_t ra1 = thumb_call_to(&fx, CODE_BASE + 0x500);      /* in "caller" */
	put_u32(&fx, sp + 8, (uint32_t)thumb_call_to(&fx, CODE_BASE + 0x900));
	set_context(&fx, CODE_BASE + 0x10, sp, ra1, true);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	ck_assert_str_eq(st->frames[1].function, "caller");
	fixture_free(&fx);
}
END_TEST

/* A function that has called others holds a return address into itself
 * in lr: not its caller. The scan finds the real one. */
START_TEST(test_context_lr_into_own_function_is_left_over)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs);
	uint64_t sp = STACK_BASE + 0x100;
	uint64_t stale = thumb_call_to(&fx, CODE_BASE + 0x200);    /* in "crashing" */
	uint64_t ra1 = thumb_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, sp + 8, (uint32_t)ra1);
	set_context(&fx, CODE_BASE + 0x10, sp, stale, true);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	fixture_free(&fx);
}
END_TEST

/* Without symbols that tell, lr is not taken off Apple systems (as
 * Breakpad and rust-minidump: in Android crashes it is mostly left over),
 * unless it points into another module. */
START_TEST(test_context_lr_without_symbols)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_ANDROID);
	uint64_t sp = STACK_BASE + 0x100;
	uint64_t same_module = thumb_call_to(&fx, CODE_BASE + 0x500);
	set_context(&fx, CODE_BASE + 0x10, sp, same_module, true);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);

	/* (A BL in the library that leads into this module: one to the
	 * library's own code would be a stale return address.) */
	fixture_init(&fx, SW_OS_ANDROID);
	uint64_t other_module = thumb_bl_to(&fx, LIB_BASE + 0x500, CODE_BASE);
	set_context(&fx, CODE_BASE + 0x10, sp, other_module, true);
	st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, other_module);
	fixture_free(&fx);

	fixture_init(&fx, SW_OS_IOS);
	same_module = thumb_call_to(&fx, CODE_BASE + 0x500);
	set_context(&fx, CODE_BASE + 0x10, sp, same_module, true);
	st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, same_module);
	fixture_free(&fx);
}
END_TEST

/* A NULL return address in a record reached through the chain ends the
 * walk; at the context frame, whose r11 may be no frame pointer at all,
 * a record of zeros is not trusted and the scan goes on. */
START_TEST(test_r11_null_return_ends_only_an_intact_chain)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x14c, fp2 = STACK_BASE + 0x1ac;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, fp1, (uint32_t)ra1);
	put_u32(&fx, fp1 - 4, (uint32_t)fp2);
	put_u32(&fx, fp2, 0);
	put_u32(&fx, fp2 - 4, 0);
	put_u32(&fx, fp2 + 8, (uint32_t)arm_call_to(&fx, CODE_BASE + 0x900));
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, fp1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);

	fixture_init(&fx, SW_OS_LINUX);
	uint64_t zeros = STACK_BASE + 0x140;
	uint64_t ra = arm_call_to(&fx, CODE_BASE + 0x900);
	put_u32(&fx, STACK_BASE + 0x180, (uint32_t)ra);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, zeros);
	st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, ra);
	fixture_free(&fx);
}
END_TEST

/* A frame found through lr keeps the context's r11, which nothing has
 * shown to be a frame pointer: zeros there do not end the walk either. */
START_TEST(test_r11_zeros_after_lr_step_are_no_end)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs);
	uint64_t sp = STACK_BASE + 0x100, zeros = STACK_BASE + 0x140;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);   /* in "caller" */
	uint64_t ra2 = arm_call_to(&fx, CODE_BASE + 0x900);   /* in "main" */
	put_u32(&fx, STACK_BASE + 0x180, (uint32_t)ra2);
	set_context(&fx, CODE_BASE + 0x10, sp, ra1, false);
	sw_reg_set(&fx.thread.ctx, R11, zeros);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	fixture_free(&fx);
}
END_TEST

/* A chain that points below sp, or whose saved fp does not climb, is no
 * chain. */
START_TEST(test_r11_chain_checks)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100, fp1 = STACK_BASE + 0x14c;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, fp1, (uint32_t)ra1);
	put_u32(&fx, fp1 - 4, (uint32_t)(fp1 - 0x40));  /* does not climb */
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, fp1);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);

	fixture_init(&fx, SW_OS_LINUX);
	uint64_t below = STACK_BASE + 0x80;
	put_u32(&fx, below, (uint32_t)arm_call_to(&fx, CODE_BASE + 0x500));
	put_u32(&fx, below - 4, 0);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, below);
	st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

/* The stack must grow: a CFI rule that keeps sp may give the context
 * frame's caller (a leaf), not the next one; the walk then falls to the
 * other methods, which find nothing here. */
START_TEST(test_walk_stops_when_stack_does_not_grow)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs);
	fs.rule = RULE_SAME_SP;
	uint64_t sp = STACK_BASE + 0x100;
	put_u32(&fx, sp, (uint32_t)thumb_call_to(&fx, CODE_BASE + 0x500));
	set_context(&fx, CODE_BASE + 0x10, sp, 0, true);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_opt(&fx, &fs.source, &opt);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* The registers a STACK CFI line names resolve: dump_syms writes r0-r12,
 * sp, lr, pc (and VFP registers, which are not kept). */
/* ---- where a call goes ------------------------------------------------ */

/* A walk over the fixture's snapshot, for asking the hooks directly. */
static struct sw_walk hook_walk(struct fixture *fx)
{
	sw_snapshot_finish(&fx->snap);
	return (struct sw_walk){ .snap = &fx->snap, .arch = &sw_arch_arm,
	                         .address_mask = 0xffffffffu };
}

/* The context frame at pc (the fixture's registers) as a step's callee,
 * for calling a hook directly. */
static struct sw_step context_step(struct sw_walk *w, struct sw_frame *callee,
                                   const struct fixture *fx, uint64_t pc)
{
	memset(callee, 0, sizeof *callee);
	callee->pc = callee->lookup_pc = pc;
	callee->regs = fx->thread.ctx;
	callee->trust = SW_TRUST_CONTEXT;
	return (struct sw_step){ .walk = w, .callee = callee };
}

/* ---- prologue analysis on synthetic code --------------------------------- */

/* Thumb halfwords at addr, in order. */
static void put_thumb(struct fixture *fx, uint64_t addr, const uint16_t *hw, size_t n)
{
	for (size_t i = 0; i < n; i++)
		syn_put_code(fx, addr + 2 * i, hw[i], 2);
}

/* Thumb NOPs over [lo, hi). */
static void put_thumb_nops(struct fixture *fx, uint64_t lo, uint64_t hi)
{
	for (uint64_t a = lo; a < hi; a += 2)
		syn_put_code(fx, a, 0xbf00u, 2);
}

/* Debian armhf libc's abort opens `push {r7, lr}; sub sp, #144` and has
 * no unwind entry: its caller is read from the slot its prologue gave lr
 * (sp = CFA = sp + 144 + 8 at pc), whatever lr holds by then. */
START_TEST(test_prologue_unwinds_thumb_push_and_sub_sp)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs);
	static const uint16_t prologue[] = {
		0xb590,         /* push {r4, r7, lr} */
		0xb0a4,         /* sub sp, #144 */
		0xaf00,         /* add r7, sp, #0 */
	};
	put_thumb_nops(&fx, CODE_BASE, CODE_BASE + 0x20);
	put_thumb(&fx, CODE_BASE, prologue, 3);
	uint64_t sp = STACK_BASE + 0x100, cfa = sp + 144 + 12;
	uint64_t ra1 = thumb_call_to(&fx, CODE_BASE + 0x500);      /* in "caller" */
	uint64_t stale = thumb_call_to(&fx, CODE_BASE + 0x180);    /* in "crashing" */
	put_u32(&fx, cfa - 12, 0x4444);
	put_u32(&fx, cfa - 8, (uint32_t)(STACK_BASE + 0x300));
	put_u32(&fx, cfa - 4, (uint32_t)ra1);
	set_context(&fx, CODE_BASE + 0x10, sp, stale, true);
	sw_reg_set(&fx.thread.ctx, R7, sp);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_str_eq(st->frames[1].function, "caller");
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), cfa);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], 4), 0x4444);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R7), STACK_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* A frame found by scanning knows only pc and sp; the prologue of its
 * function (push.w {r4, r7, r11, lr}; sub sp, #8) gives the next frame
 * the r7 and r11 it saved, and the next caller. fs: with symbols, else
 * without (the start is then the save of lr the decode reaches pc from). */
static void scanned_frame_case(const struct sw_symbol_source *src)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	static const uint16_t prologue[] = {
		0xe92d, 0x4890, /* push.w {r4, r7, r11, lr} */
		0xb082,         /* sub sp, #8 */
	};
	put_thumb_nops(&fx, CODE_BASE + 0x400, CODE_BASE + 0x500);
	put_thumb(&fx, CODE_BASE + 0x400, prologue, 3);
	uint64_t sp = STACK_BASE + 0x100;
	uint64_t ra1 = thumb_call_to(&fx, CODE_BASE + 0x500);      /* in "caller" */
	uint64_t ra2 = thumb_call_to(&fx, CODE_BASE + 0x900);      /* in "main" */
	put_u32(&fx, sp + 8, (uint32_t)ra1);
	uint64_t sp1 = sp + 12, cfa1 = sp1 + 8 + 16;
	put_u32(&fx, cfa1 - 16, 0x4444);
	put_u32(&fx, cfa1 - 12, 0x7777);
	put_u32(&fx, cfa1 - 8, 0xbbbb);
	put_u32(&fx, cfa1 - 4, (uint32_t)ra2);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	const struct sw_stack *st = walk(&fx, src);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert(!sw_stack_frame_reg_valid(&st->frames[1], R7));
	ck_assert(!sw_stack_frame_reg_valid(&st->frames[1], R11));
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), cfa1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R7), 0x7777);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R11), 0xbbbb);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], 4), 0x4444);
	fixture_free(&fx);
}

START_TEST(test_prologue_recovers_r7_r11_after_a_scanned_frame)
{
	struct fake_symbols fs;
	fake_init(&fs);
	scanned_frame_case(&fs.source);
}
END_TEST

START_TEST(test_prologue_finds_the_save_of_lr_without_symbols)
{
	scanned_frame_case(NULL);
}
END_TEST

/* Without symbols, a save of lr before a return belongs to an earlier
 * function unless a branch leads past that return: a leaf that follows
 * (pc in it, lr live) gets no caller from the earlier push, which would
 * read the stack's word at sp + 4 as a saved lr. A branch over the return
 * to the same code makes it one function. */
START_TEST(test_prologue_search_needs_a_branch_past_a_return)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	put_thumb_nops(&fx, CODE_BASE + 0x400, CODE_BASE + 0x440);
	static const uint16_t code[] = {
		0xb510,         /* 0x400 push {r4, lr} */
		0xbf00,         /* 0x402 nop */
		0xbd10,         /* 0x404 pop {r4, pc} */
		0x2001,         /* 0x406 movs r0, #1: the leaf */
		0x2002,         /* 0x408 movs r0, #2 */
		0x4770,         /* 0x40a bx lr */
	};
	put_thumb(&fx, CODE_BASE + 0x400, code, 6);
	uint64_t sp = STACK_BASE + 0x100;
	put_u32(&fx, sp + 4, (uint32_t)thumb_call_to(&fx, CODE_BASE + 0x900));
	set_context(&fx, CODE_BASE + 0x408, sp, thumb_call_to(&fx, CODE_BASE + 0x980), true);
	struct sw_walk w = hook_walk(&fx);
	struct sw_frame callee;
	struct sw_step step = context_step(&w, &callee, &fx, CODE_BASE + 0x408);
	struct sw_caller out;
	ck_assert_int_eq(sw_arch_arm.caller_by_prologue(&step, &out), SW_UNWIND_NO_RULE);

	/* 0x402: cbz r0, 0x406 (i:imm5 = 0, target 0x402 + 4): the code
	 * after the return is the same function's. */
	syn_put_code(&fx, CODE_BASE + 0x402, 0xb100u, 2);
	memset(&out, 0, sizeof out);
	ck_assert_int_eq(sw_arch_arm.caller_by_prologue(&step, &out), SW_UNWIND_OK);
	ck_assert_uint_eq(out.regs.v[SP], sp + 8);
	fixture_free(&fx);
}
END_TEST

/* A live leaf that needs registers opens its frame without saving lr
 * (GCC's Thumb frame-pointer leaf: push {r4, r7}; add r7, sp, #0): without
 * symbols the search takes that push as the start where nothing between
 * it and pc replaces lr, and the caller is lr at the CFA (zoo armhf 94,
 * stripped: a scan skipped every program frame). A call between the push
 * and pc makes lr a stale value: no caller from it. */
START_TEST(test_prologue_live_leaf_that_pushed_registers_returns_through_lr)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	put_thumb_nops(&fx, CODE_BASE + 0x400, CODE_BASE + 0x440);
	static const uint16_t code[] = {
		0xb490,         /* 0x400 push {r4, r7} */
		0xaf00,         /* 0x402 add r7, sp, #0 */
		0x2001,         /* 0x404 movs r0, #1 */
		0x2002,         /* 0x406 movs r0, #2: pc */
	};
	put_thumb(&fx, CODE_BASE + 0x400, code, 4);
	uint64_t sp = STACK_BASE + 0x100, lr = thumb_call_to(&fx, CODE_BASE + 0x900);
	put_u32(&fx, sp, 0x4444);
	put_u32(&fx, sp + 4, (uint32_t)(STACK_BASE + 0x300));
	put_u32(&fx, sp + 8, (uint32_t)thumb_call_to(&fx, CODE_BASE + 0x980));
	set_context(&fx, CODE_BASE + 0x406, sp, lr, true);
	sw_reg_set(&fx.thread.ctx, R7, sp);
	struct sw_walk w = hook_walk(&fx);
	struct sw_frame callee;
	struct sw_step step = context_step(&w, &callee, &fx, CODE_BASE + 0x406);
	struct sw_caller out;
	memset(&out, 0, sizeof out);
	ck_assert_int_eq(sw_arch_arm.caller_by_prologue(&step, &out), SW_UNWIND_OK);
	ck_assert_uint_eq(out.regs.v[PC] | 1, lr);
	ck_assert_uint_eq(out.regs.v[SP], sp + 8);
	ck_assert_uint_eq(out.regs.v[R7], STACK_BASE + 0x300);
	ck_assert_uint_eq(out.regs.v[4], 0x4444);

	/* 0x404: bl (lr now the return of that call, not the caller). */
	thumb_call_to(&fx, CODE_BASE + 0x408);
	put_thumb(&fx, CODE_BASE + 0x408, code + 3, 1);
	callee.pc = callee.lookup_pc = CODE_BASE + 0x408;
	sw_reg_set(&callee.regs, PC, CODE_BASE + 0x408);
	memset(&out, 0, sizeof out);
	ck_assert_int_ne(sw_arch_arm.caller_by_prologue(&step, &out), SW_UNWIND_OK);
	fixture_free(&fx);
}
END_TEST

/* A conditional return in an IT block (it eq; popeq {r4, pc}) leaves
 * the frame as it was on the path that goes on. */
START_TEST(test_prologue_conditional_return_keeps_the_frame)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs);
	put_thumb_nops(&fx, CODE_BASE, CODE_BASE + 0x20);
	static const uint16_t code[] = {
		0xb510,         /* push {r4, lr} */
		0xb082,         /* sub sp, #8 */
		0x2800,         /* cmp r0, #0 */
		0xbf04,         /* itt eq */
		0xb002,         /* addeq sp, #8 */
		0xbd10,         /* popeq {r4, pc} */
		0x2001,         /* movs r0, #1 */
	};
	put_thumb(&fx, CODE_BASE, code, 7);
	uint64_t sp = STACK_BASE + 0x100, cfa = sp + 16;
	uint64_t ra1 = thumb_call_to(&fx, CODE_BASE + 0x500);
	put_u32(&fx, cfa - 4, (uint32_t)ra1);
	set_context(&fx, CODE_BASE + 0x10, sp, 0, true);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), cfa);
	fixture_free(&fx);
}
END_TEST

/* A live ARM leaf without symbols whose code from pc runs straight to
 * `bx lr`, never moving sp nor writing lr, returns to lr with sp as it is
 * (zoo armhf 1052 stripped: f4, reached by `blx r3` after f3's literal
 * pool, no start to be found; the scan took __libc_start_call_main's
 * return, three frames up). The leaf at 0x56c, pc at 0x574: */
static const uint32_t straight_leaf[] = {
	0xe8bd8070u, /* 0x558 pop {r4, r5, r6, pc}: the function before */
	0x00058afcu, /* 0x55c its literal pool */
	0x000001c8u,
	0x00000098u,
	0x000000e0u,
	0xe1a00001u, /* 0x56c mov r0, r1 */
	0xe08f3003u, /* 0x570 add r3, pc, r3 */
	0xe5c31000u, /* 0x574 strb r1, [r3]: pc */
	0xe5923000u, /* 0x578 ldr r3, [r2] */
	0xe2433001u, /* 0x57c sub r3, r3, #1 */
	0xe5823000u, /* 0x580 str r3, [r2] */
	0xe12fff1eu, /* 0x584 bx lr */
};

static void put_straight_leaf(struct fixture *fx, uint64_t sp, uint64_t *lr)
{
	for (size_t i = 0; i < sizeof straight_leaf / sizeof straight_leaf[0]; i++)
		syn_put_code(fx, CODE_BASE + 0x558 + 4 * i, straight_leaf[i], 4);
	syn_put_code(fx, CODE_BASE + 0x1544, ARM_BLX_R3, 4); /* lr's call */
	syn_put_code(fx, CODE_BASE + 0x1900, ARM_BLX_R3, 4); /* an older frame's */
	put_u32(fx, sp, 0x1234);
	put_u32(fx, sp + 4, (uint32_t)(CODE_BASE + 0x1904));
	*lr = CODE_BASE + 0x1548;
	set_context(fx, CODE_BASE + 0x574, sp, *lr, false);
}

START_TEST(test_leaf_returning_straight_through_lr)
{
	struct fixture fx;
	uint64_t sp = STACK_BASE + 0x100, lr;
	fixture_init(&fx, SW_OS_LINUX);
	put_straight_leaf(&fx, sp, &lr);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_LEAF);
	ck_assert_uint_eq(st->frames[1].pc, lr);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	fixture_free(&fx);

	/* A conditional return on the way sees the same frame: still a leaf. */
	fixture_init(&fx, SW_OS_LINUX);
	put_straight_leaf(&fx, sp, &lr);
	syn_put_code(&fx, CODE_BASE + 0x57c, 0x012fff1eu, 4); /* bxeq lr */
	struct sw_walk w = hook_walk(&fx);
	struct sw_frame callee;
	struct sw_step step = context_step(&w, &callee, &fx, CODE_BASE + 0x574);
	struct sw_caller out;
	memset(&out, 0, sizeof out);
	ck_assert_int_eq(sw_arch_arm.caller_of_leaf(&step, &out), SW_UNWIND_OK);
	ck_assert_uint_eq(out.regs.v[PC], lr);
	fixture_free(&fx);

	/* A leaf that allocated a frame releases it on the way (zoo armhf
	 * 1143 stripped: f8, tail-called, `sub sp, sp, #1024` ... `add sp,
	 * sp, #1024; bx lr`; the scan took a stale ld.so return), or pops
	 * registers it saved: the caller's sp is above it by as much, and a
	 * popped register's caller value is not known here. */
	static const struct {
		uint32_t insn;
		uint64_t released;
		int popped;
	} releases[] = {
		{ 0xe28ddb01u, 1024, -1 }, /* add sp, sp, #1024 */
		{ 0xe8bd0030u, 8, 4 },     /* pop {r4, r5} */
	};
	for (size_t i = 0; i < sizeof releases / sizeof releases[0]; i++) {
		fixture_init(&fx, SW_OS_LINUX);
		put_straight_leaf(&fx, sp, &lr);
		syn_put_code(&fx, CODE_BASE + 0x57c, releases[i].insn, 4);
		w = hook_walk(&fx);
		step = context_step(&w, &callee, &fx, CODE_BASE + 0x574);
		sw_reg_set(&callee.regs, 4, 0x4444);
		memset(&out, 0, sizeof out);
		ck_assert_int_eq(sw_arch_arm.caller_of_leaf(&step, &out), SW_UNWIND_OK);
		ck_assert_uint_eq(out.regs.v[PC], lr);
		ck_assert_uint_eq(out.regs.v[SP], sp + releases[i].released);
		if (releases[i].popped >= 0)
			ck_assert(!sw_reg_valid(&out.regs, (unsigned)releases[i].popped));
		fixture_free(&fx);
	}

	/* Before the return: a call, a push, a branch, a write of lr, a
	 * trap; or a return by pop: nothing proven. */
	static const struct {
		uint64_t at;
		uint32_t insn;
	} breaks[] = {
		{ 0x578, ARM_BL },
		{ 0x578, 0xe92d0010u }, /* push {r4} */
		{ 0x578, 0x1a000000u }, /* bne .+8 */
		{ 0x578, 0xe1a0e000u }, /* mov lr, r0 */
		{ 0x578, 0xef000000u }, /* svc 0 */
		{ 0x584, 0xe8bd8010u }, /* pop {r4, pc} */
	};
	for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
		fixture_init(&fx, SW_OS_LINUX);
		put_straight_leaf(&fx, sp, &lr);
		syn_put_code(&fx, CODE_BASE + breaks[i].at, breaks[i].insn, 4);
		w = hook_walk(&fx);
		step = context_step(&w, &callee, &fx, CODE_BASE + 0x574);
		memset(&out, 0, sizeof out);
		ck_assert_int_eq(sw_arch_arm.caller_of_leaf(&step, &out), SW_UNWIND_NO_RULE);
		fixture_free(&fx);
	}
}
END_TEST

/* In ARM code whose prologue sets up no frame pointer (push {r4, lr}),
 * r11 is an ordinary register: a record it points at (an ancestor's,
 * which would skip frames) is not followed; the prologue gives the
 * caller. */
START_TEST(test_r11_record_refused_where_the_code_sets_up_none)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs);
	syn_put_code(&fx, CODE_BASE, 0xe92d4010u, 4);          /* push {r4, lr} */
	uint64_t sp = STACK_BASE + 0x100, cfa = sp + 8;
	uint64_t ra1 = arm_call_to(&fx, CODE_BASE + 0x500);     /* in "caller" */
	uint64_t ra2 = arm_call_to(&fx, CODE_BASE + 0x900);     /* in "main" */
	put_u32(&fx, cfa - 4, (uint32_t)ra1);
	/* An ancestor's GCC record: [fp] = lr into "main", [fp - 4] = its fp. */
	uint64_t fp = STACK_BASE + 0x180;
	put_u32(&fx, fp, (uint32_t)ra2);
	put_u32(&fx, fp - 4, (uint32_t)(STACK_BASE + 0x1c0));
	set_context(&fx, CODE_BASE + 0x10, sp, 0, false);
	sw_reg_set(&fx.thread.ctx, R11, fp);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), cfa);
	fixture_free(&fx);
}
END_TEST

/* Calls and stubs as GNU as and ld 2.40 (arm-linux-gnueabihf) lay them out
 * linked at CODE_BASE = 0x10000; each comment is objdump's reading. */
static void put_calls(struct fixture *fx)
{
	syn_put_code(fx, 0x10100, 0xebffffbeu, 4);  /* bl 10000 */
	syn_put_code(fx, 0x10104, 0xfa00003du, 4);  /* blx 10200 (Thumb) */
	syn_put_code(fx, 0x10108, 0xeb0000bdu, 4);  /* bl 10404 */
	syn_put_code(fx, 0x10200, 0xbf00u, 2);      /* Thumb: nop */
	syn_put_code(fx, 0x10202, 0xf7ffu, 2);      /* bl 10200 */
	syn_put_code(fx, 0x10204, 0xfffdu, 2);
	syn_put_code(fx, 0x10206, 0xf7ffu, 2);      /* blx 10000 (ARM), from 2 mod 4 */
	syn_put_code(fx, 0x10208, 0xeefcu, 2);
	syn_put_code(fx, 0x1020a, 0xf000u, 2);      /* bl 11000 */
	syn_put_code(fx, 0x1020c, 0xfef9u, 2);
	syn_put_code(fx, 0x10300, 0xf000u, 2);      /* blx 10800 <plt_arm> */
	syn_put_code(fx, 0x10302, 0xea7eu, 2);
	syn_put_code(fx, 0x10304, 0xf000u, 2);      /* bl 10900 <plt_thumb> */
	syn_put_code(fx, 0x10306, 0xfafcu, 2);
	syn_put_code(fx, 0x10308, 0xf000u, 2);      /* bl 10a00 <bxpc_stub> */
	syn_put_code(fx, 0x1030a, 0xfb7au, 2);
	syn_put_code(fx, 0x1030c, 0xf000u, 2);      /* blx 10b00 <veneer> */
	syn_put_code(fx, 0x1030e, 0xebf8u, 2);
	syn_put_code(fx, 0x10310, THUMB_BLX_R3, 2);
	syn_put_code(fx, 0x10800, 0xe28fc000u, 4);  /* plt_arm: add ip, pc, #0 */
	syn_put_code(fx, 0x10804, 0xe28cc000u, 4);  /* add ip, ip, #0 */
	syn_put_code(fx, 0x10808, 0xe5bcf6f8u, 4);  /* ldr pc, [ip, #0x6f8]!: 10f00 */
	syn_put_code(fx, 0x10900, 0xf240u, 2);      /* plt_thumb: movw ip, #0x5f8 */
	syn_put_code(fx, 0x10902, 0x5cf8u, 2);
	syn_put_code(fx, 0x10904, 0xf2c0u, 2);      /* movt ip, #0 */
	syn_put_code(fx, 0x10906, 0x0c00u, 2);
	syn_put_code(fx, 0x10908, 0x44fcu, 2);      /* add ip, pc */
	syn_put_code(fx, 0x1090a, 0xf8dcu, 2);      /* ldr.w pc, [ip]: 10f04 */
	syn_put_code(fx, 0x1090c, 0xf000u, 2);
	syn_put_code(fx, 0x10a00, 0x4778u, 2);      /* bxpc_stub: bx pc */
	syn_put_code(fx, 0x10a02, 0x46c0u, 2);      /* nop */
	syn_put_code(fx, 0x10a04, 0xe28fc000u, 4);  /* add ip, pc, #0 */
	syn_put_code(fx, 0x10a08, 0xe28cc000u, 4);  /* add ip, ip, #0 */
	syn_put_code(fx, 0x10a0c, 0xe5bcf500u, 4);  /* ldr pc, [ip, #0x500]!: 10f0c */
	syn_put_code(fx, 0x10b00, 0xe51ff004u, 4);  /* veneer: ldr pc, [pc, #-4] */
	syn_put_code(fx, 0x10b04, 0x00010901u, 4);  /* .word plt_thumb + 1 */
	syn_put_code(fx, 0x10c00, 0xe59fc004u, 4);  /* lld's long PLT: ldr ip, [pc, #4] */
	syn_put_code(fx, 0x10c04, 0xe08cc00fu, 4);  /* add ip, ip, pc */
	syn_put_code(fx, 0x10c08, 0xe59cf000u, 4);  /* ldr pc, [ip] */
	syn_put_code(fx, 0x10c0c, 0x000002f4u, 4);  /* .word: 10f00 */
	syn_put_code(fx, 0x10d00, 0xebffffbeu, 4);  /* bl 10c00 */
	syn_put_code(fx, 0x10d10, 0xeb00003au, 4);  /* bl 10e00 */
	syn_put_code(fx, 0x10e00, 0xe28fc000u, 4);  /* add ip, pc, #0 */
	syn_put_code(fx, 0x10e04, 0xe28cca02u, 4);  /* add ip, ip, #0x2000 */
	syn_put_code(fx, 0x10e08, 0xe5bcf000u, 4);  /* ldr pc, [ip]!: 12e08, not captured */
	syn_put_code(fx, 0x10f00, LIB_BASE + 0x101, 4);  /* GOT: bound to Thumb code */
	syn_put_code(fx, 0x10f04, LIB_BASE + 0x200, 4);  /* bound to ARM code */
	syn_put_code(fx, 0x10f0c, 0x107e0, 4);           /* unbound: the PLT's head */
}

/* BL and BLX name their targets in both instruction sets, in both
 * directions, Thumb BLX from an address 2 mod 4 included; BLX Rm does
 * not. Ordinary code at the target is the target. */
START_TEST(test_call_target_decodes_direct_calls)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	put_calls(&fx);
	syn_put_code(&fx, 0x10400, ARM_BLX_R3, 4);
	struct sw_walk w = hook_walk(&fx);
	static const uint64_t calls[][2] = {
		{ 0x10104, 0x10000 }, { 0x10108, 0x10200 }, { 0x1010c, 0x10404 },
		{ 0x10207, 0x10200 }, { 0x1020b, 0x10000 }, { 0x1020f, 0x11000 },
	};
	uint64_t target;
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		ck_assert_msg(sw_arch_arm.call_target(&w, calls[i][0], &target), "ra 0x%llx",
		              (unsigned long long)calls[i][0]);
		ck_assert_uint_eq(target, calls[i][1]);
	}
	ck_assert(!sw_arch_arm.call_target(&w, 0x10313, &target));  /* blx r3 */
	ck_assert(!sw_arch_arm.call_target(&w, 0x10404, &target));  /* blx r3 */
	ck_assert(!sw_arch_arm.call_target(&w, 0x10801, &target));  /* no call */
	fixture_free(&fx);
}
END_TEST

/* A call through a PLT entry (binutils' ARM and Thumb-only forms, lld's
 * long form, reached directly, through `bx pc; nop` or a veneer) goes
 * where the entry's GOT slot points, when the snapshot holds the slot
 * and it is bound to another module; a slot not captured, or pointing
 * back into the caller's module (unbound), names no target. */
START_TEST(test_call_target_follows_plt_entries_through_the_got)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	put_calls(&fx);
	struct sw_walk w = hook_walk(&fx);
	uint64_t target;
	ck_assert(sw_arch_arm.call_target(&w, 0x10305, &target));  /* blx plt_arm */
	ck_assert_uint_eq(target, LIB_BASE + 0x100);
	ck_assert(sw_arch_arm.call_target(&w, 0x10309, &target));  /* bl plt_thumb */
	ck_assert_uint_eq(target, LIB_BASE + 0x200);
	ck_assert(sw_arch_arm.call_target(&w, 0x10311, &target));  /* blx veneer */
	ck_assert_uint_eq(target, LIB_BASE + 0x200);
	ck_assert(sw_arch_arm.call_target(&w, 0x10d04, &target));  /* bl lld's PLT */
	ck_assert_uint_eq(target, LIB_BASE + 0x100);
	ck_assert(!sw_arch_arm.call_target(&w, 0x1030d, &target)); /* unbound */
	ck_assert(!sw_arch_arm.call_target(&w, 0x10d14, &target)); /* slot not captured */
	fixture_free(&fx);
}
END_TEST

/* Scanning above a frame in libc: a word after a direct call into another
 * module (the app's own function, as ld.so's calls of its own functions
 * linger on a qemu-user main thread's stack) cannot be libc's caller and
 * is passed over; the call through the app's PLT to libc is taken. */
START_TEST(test_scan_refuses_a_call_into_another_module)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	put_calls(&fx);
	uint64_t sp = STACK_BASE + 0x100;
	put_u32(&fx, sp, 0x1020f);       /* bl 11000: the app's own code */
	put_u32(&fx, sp + 4, 0x10104);   /* bl 10000: the same */
	put_u32(&fx, sp + 8, 0x10305);   /* blx plt_arm: libc */
	set_context(&fx, LIB_BASE + 0x120, sp, 0, true);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, 0x10305);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp + 12);
	fixture_free(&fx);
}
END_TEST

/* A function that makes no call of its own and ends in a tail call through
 * a pointer (pop {r4, r5, r7}; bx r3: zoo armhf 142, a library's f6
 * tail-calling the program's f7 through a table) may lead into any
 * module: a call to it is not refused as one into another module. */
/* A scan from a frame at pc, with the app's `bl 11000` (put_calls) in the
 * first slot, takes that word as the caller. */
static void assert_scan_takes_the_call_to_11000(struct fixture *fx, uint64_t pc)
{
	uint64_t sp = STACK_BASE + 0x100;
	put_u32(fx, sp, 0x1020f); /* bl 11000 */
	set_context(fx, pc, sp, 0, true);
	const struct sw_stack *st = walk(fx, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, 0x1020f);
}

START_TEST(test_scan_takes_a_call_to_a_function_tail_calling_through_a_pointer)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	put_calls(&fx);
	syn_put_code(&fx, 0x11010, 0xbcb0u, 2); /* pop {r4, r5, r7} */
	syn_put_code(&fx, 0x11012, 0x4718u, 2); /* bx r3 */
	assert_scan_takes_the_call_to_11000(&fx, LIB_BASE + 0x120);
	fixture_free(&fx);
}
END_TEST

/* Within one module a direct call may reach other functions than its
 * target (tail calls, GCC's .cold parts): scanning above the app's own
 * code, its calls of other functions of the app are callers. */
START_TEST(test_scan_takes_a_call_within_the_module)
{
	struct fixture fx;
	fixture_init(&fx, SW_OS_LINUX);
	put_calls(&fx);
	assert_scan_takes_the_call_to_11000(&fx, CODE_BASE + 0x1800);
	fixture_free(&fx);
}
END_TEST

START_TEST(test_cfi_register_names_resolve)
{
	static const char *const names[] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
		"r11", "r12", "sp", "lr", "pc",
	};
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		ck_assert_int_eq(sw_arch_reg_index(&sw_arch_arm, names[i], strlen(names[i])), (int)i);
	ck_assert_int_eq(sw_arch_reg_index(&sw_arch_arm, "s16", 3), -1);
	for (unsigned n = 0; n < 16; n++)
		ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_arm, n), (int)n);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_arm, 16), -1);
}
END_TEST

/* ---- Cortex-M exception frames (arch/cortex_m.c) ----------------------- */

/* EXC_RETURN values (ARMv8-M ARM, EXC_RETURN): prefix 0xff, bits 23:7 RES1,
 * bit 6 S, 5 DCRS, 4 FType, 3 Mode, 2 SPSEL, 0 ES. */
enum {
	EXC_S = 1u << 6, EXC_DCRS = 1u << 5, EXC_FTYPE = 1u << 4, EXC_MODE = 1u << 3,
	EXC_SPSEL = 1u << 2, EXC_ES = 1u << 0,
	EXC_BASE = 0xffffff80u,
	/* A Secure handler's return to Secure thread code on PSP_S: the
	 * ARMv7-M value 0xfffffffd, read as ARMv8-M reads it. */
	EXC_SECURE_THREAD_PSP = EXC_BASE | EXC_S | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_SPSEL |
	                        EXC_ES,
	SIGNATURE = 0xfefa125bu,
	SIGNATURE_FP = 0xfefa125au,
	FPCCR_TS = 1u << 26,
};

/* The handler ("crashing", a naked leaf: its return address is lr) runs
 * on the main stack at MSP; the interrupted code ("caller", a leaf too,
 * returning to "main") was at INTERRUPTED_PC with its frame at FRAME. */
#define MSP (STACK_BASE + 0x100)
#define FRAME (STACK_BASE + 0x800)
#define HANDLER_PC (CODE_BASE + 0x10)
#define INTERRUPTED_PC (CODE_BASE + 0x420)
#define MAIN_RA (CODE_BASE + 0x900)

struct cm_case {
	struct fixture fx;
	struct fake_symbols fs;
	struct sw_named_reg extra[10];
};

static void cm_init(struct cm_case *k, uint32_t exc_return)
{
	fixture_init(&k->fx, SW_OS_NONE);
	k->fx.snap.sys.arm_profile = 'M';
	k->fx.snap.sys.processor_level = 8;
	fake_init(&k->fs);
	k->fs.func_rule[0] = RULE_LEAF_LR;
	k->fs.func_rule[1] = RULE_LEAF_LR;
	set_context(&k->fx, HANDLER_PC, MSP, exc_return, true);
	for (unsigned i = 4; i <= 11; i++)
		sw_reg_set(&k->fx.thread.ctx, i, 0x4400 + i);
	k->fx.thread.extra_regs = k->extra;
	k->fx.thread.nextra_regs = 0;
}

static void cm_reg(struct cm_case *k, const char *name, uint64_t v)
{
	ck_assert_uint_lt(k->fx.thread.nextra_regs, 10);
	k->extra[k->fx.thread.nextra_regs++] = (struct sw_named_reg){ name, v };
}

/* The basic frame at base: r0-r3 = 0xa0-0xa3, r12 = 0xac, lr = MAIN_RA
 * after a Thumb BL, the interrupted pc, xPSR (Thumb, flags N and C). */
static void cm_basic_frame(struct cm_case *k, uint64_t base, uint32_t xpsr_extra)
{
	for (unsigned i = 0; i < 4; i++)
		put_u32(&k->fx, base + 4 * i, 0xa0 + i);
	put_u32(&k->fx, base + 16, 0xac);
	put_u32(&k->fx, base + 20, (uint32_t)thumb_call_to(&k->fx, MAIN_RA));
	put_u32(&k->fx, base + 24, (uint32_t)INTERRUPTED_PC);
	put_u32(&k->fx, base + 28, 0xa1000000u | xpsr_extra);
}

/* The additional state context at base: signature, reserved, r4-r11 =
 * 0x5504-0x550b. */
static void cm_additional_state(struct cm_case *k, uint64_t base, uint32_t signature)
{
	put_u32(&k->fx, base, signature);
	put_u32(&k->fx, base + 4, 0);
	for (unsigned i = 0; i < 8; i++)
		put_u32(&k->fx, base + 8 + 4 * i, 0x5504 + i);
}

static const struct sw_stack *cm_walk(struct cm_case *k)
{
	return walk(&k->fx, &k->fs.source);
}

/* The interrupted frame as restored from a basic frame whose caller's sp
 * is caller_sp, then its caller by lr. */
static void cm_assert_unstacked(const struct sw_stack *st, uint64_t caller_sp)
{
	ck_assert_uint_eq(st->nframes, 3);
	const struct sw_stack_frame *f = &st->frames[1];
	ck_assert_int_eq(f->trust, SW_TRUST_CONTEXT);
	ck_assert(f->restored_context);
	ck_assert_uint_eq(f->pc, INTERRUPTED_PC);
	ck_assert_uint_eq(f->regs.v[SP], caller_sp);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_uint_eq(f->regs.v[i], 0xa0 + i);
	ck_assert_uint_eq(f->regs.v[12], 0xac);
	ck_assert_uint_eq(f->regs.v[LR], MAIN_RA | 1);
	ck_assert_uint_eq(f->regs.v[CPSR], 0xa0000000u | CPSR_THUMB);
	ck_assert_str_eq(st->frames[2].function, "main");
	ck_assert_uint_eq(st->frames[2].pc, MAIN_RA | 1);
}

static void cm_assert_r4_r11(const struct sw_stack *st, uint64_t first)
{
	for (unsigned i = 0; i < 8; i++)
		ck_assert_uint_eq(st->frames[1].regs.v[4 + i], first + i);
}

/* A Secure handler over Secure thread code (S = 1, DCRS = 1, as every
 * ARMv7-M frame reads): the basic frame on PSP_S ("psp" of a Secure
 * capture), r4-r11 the handler's. */
START_TEST(test_cortex_m_secure_basic_frame_on_psp)
{
	struct cm_case k;
	cm_init(&k, EXC_SECURE_THREAD_PSP);
	cm_reg(&k, "exc_return", EXC_SECURE_THREAD_PSP);
	cm_reg(&k, "psp", FRAME);
	cm_basic_frame(&k, FRAME, 0);
	const struct sw_stack *st = cm_walk(&k);
	cm_assert_unstacked(st, FRAME + 0x20);
	cm_assert_r4_r11(st, 0x4404);
	fixture_free(&k.fx);
}
END_TEST

/* The stack-alignment pad word (xPSR bit 9) is above the frame. */
START_TEST(test_cortex_m_frame_pad_word_is_skipped)
{
	struct cm_case k;
	cm_init(&k, EXC_SECURE_THREAD_PSP);
	cm_reg(&k, "psp", FRAME);
	cm_basic_frame(&k, FRAME, 1u << 9);
	cm_assert_unstacked(cm_walk(&k), FRAME + 0x24);
	fixture_free(&k.fx);
}
END_TEST

/* An extended frame (FType 0) on a Secure stack is 0x68 bytes; with
 * FPCCR.TS set in the capture, s16-s31 follow: 0xa8. */
START_TEST(test_cortex_m_secure_extended_frame_size_follows_fpccr_ts)
{
	static const struct {
		bool fpccr;
		uint32_t value;
		uint64_t size;
	} cases[] = { { false, 0, 0x68 }, { true, 0, 0x68 }, { true, FPCCR_TS, 0xa8 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cm_case k;
		uint32_t exc = EXC_SECURE_THREAD_PSP & ~EXC_FTYPE;
		cm_init(&k, exc);
		cm_reg(&k, "psp", FRAME);
		if (cases[i].fpccr)
			cm_reg(&k, "fpccr", cases[i].value);
		cm_basic_frame(&k, FRAME, 0);
		cm_assert_unstacked(cm_walk(&k), FRAME + cases[i].size);
		fixture_free(&k.fx);
	}
}
END_TEST

/* TS hides Secure FP state only: a Non-secure stack's extended frame is
 * 0x68 bytes whatever FPCCR says. */
START_TEST(test_cortex_m_nonsecure_extended_frame_ignores_fpccr_ts)
{
	struct cm_case k;
	uint32_t exc = EXC_BASE | EXC_DCRS | EXC_MODE | EXC_SPSEL; /* S 0, ES 0, FType 0 */
	cm_init(&k, exc);
	cm_reg(&k, "exc_return", exc);
	cm_reg(&k, "psp", FRAME);
	cm_reg(&k, "fpccr", FPCCR_TS);
	cm_basic_frame(&k, FRAME, 0);
	cm_assert_unstacked(cm_walk(&k), FRAME + 0x68);
	fixture_free(&k.fx);
}
END_TEST

/* DCRS = 0 on a Secure stack: the additional state context (integrity
 * signature, reserved word, r4-r11) lies below the basic frame; r4-r11
 * come from it. */
START_TEST(test_cortex_m_additional_state_context_restores_r4_r11)
{
	struct cm_case k;
	uint32_t exc = EXC_SECURE_THREAD_PSP & ~EXC_DCRS;
	cm_init(&k, exc);
	cm_reg(&k, "exc_return", exc);
	cm_reg(&k, "psp", FRAME);
	cm_additional_state(&k, FRAME, SIGNATURE);
	cm_basic_frame(&k, FRAME + 0x28, 0);
	const struct sw_stack *st = cm_walk(&k);
	cm_assert_unstacked(st, FRAME + 0x28 + 0x20);
	cm_assert_r4_r11(st, 0x5504);
	fixture_free(&k.fx);
}
END_TEST

/* With FP state (FType 0): ARMv8.1-M's signature has bit 0 clear,
 * ARMv8.0-M's is ...5b; the extended frame follows the context. A
 * ...5a signature on a frame without FP state is no signature. */
START_TEST(test_cortex_m_additional_state_context_with_fp)
{
	static const uint32_t signatures[] = { SIGNATURE_FP, SIGNATURE };
	for (size_t i = 0; i < 2; i++) {
		struct cm_case k;
		uint32_t exc = EXC_SECURE_THREAD_PSP & ~(EXC_DCRS | EXC_FTYPE);
		cm_init(&k, exc);
		cm_reg(&k, "psp", FRAME);
		cm_additional_state(&k, FRAME, signatures[i]);
		cm_basic_frame(&k, FRAME + 0x28, 0);
		const struct sw_stack *st = cm_walk(&k);
		cm_assert_unstacked(st, FRAME + 0x28 + 0x68);
		cm_assert_r4_r11(st, 0x5504);
		fixture_free(&k.fx);
	}
	struct cm_case k;
	cm_init(&k, EXC_SECURE_THREAD_PSP & ~EXC_DCRS);
	cm_reg(&k, "psp", FRAME);
	cm_additional_state(&k, FRAME, SIGNATURE_FP);
	cm_basic_frame(&k, FRAME + 0x28, 0);
	ck_assert_uint_eq(cm_walk(&k)->nframes, 1);
	fixture_free(&k.fx);
}
END_TEST

/* A Non-secure handler that interrupted Secure code (S = 1, ES = 0): the
 * processor stacked the additional state context even with DCRS = 1. A
 * Non-secure capture holds no Secure stack pointer: the walk ends at the
 * handler; one that has psp_s (a debug probe's) unstacks it. */
START_TEST(test_cortex_m_nonsecure_handler_over_secure_code)
{
	uint32_t exc = EXC_SECURE_THREAD_PSP & ~EXC_ES;
	struct cm_case k;
	cm_init(&k, exc);
	cm_reg(&k, "exc_return", exc);
	cm_reg(&k, "psp", FRAME + 0x400); /* PSP_NS: not the frame's stack */
	cm_reg(&k, "control_s", 2);       /* CONTROL_S.SPSEL: on PSP_S */
	cm_additional_state(&k, FRAME, SIGNATURE);
	cm_basic_frame(&k, FRAME + 0x28, 0);
	const struct sw_stack *st = cm_walk(&k);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&k.fx);

	cm_init(&k, exc);
	cm_reg(&k, "exc_return", exc);
	cm_reg(&k, "psp", FRAME + 0x400);
	cm_reg(&k, "control_s", 2);
	cm_reg(&k, "psp_s", FRAME);
	cm_additional_state(&k, FRAME, SIGNATURE);
	cm_basic_frame(&k, FRAME + 0x28, 0);
	st = cm_walk(&k);
	cm_assert_unstacked(st, FRAME + 0x28 + 0x20);
	cm_assert_r4_r11(st, 0x5504);
	fixture_free(&k.fx);
}
END_TEST

/* A wrong integrity signature is no frame the processor wrote: the walk
 * ends at the handler, and nothing past it is invented (no scan of the
 * words around the frame). */
START_TEST(test_cortex_m_bad_integrity_signature_ends_the_walk)
{
	struct cm_case k;
	uint32_t exc = EXC_SECURE_THREAD_PSP & ~EXC_DCRS;
	cm_init(&k, exc);
	cm_reg(&k, "psp", FRAME);
	cm_additional_state(&k, FRAME, 0xfefa1234u);
	cm_basic_frame(&k, FRAME + 0x28, 0);
	const struct sw_stack *st = cm_walk(&k);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&k.fx);

	/* The same on the handler's own stack (a Secure handler that
	 * returns to a Secure one, DCRS clear): the frame's stacked lr is
	 * right above the handler's sp, where a scan would take it. */
	exc = EXC_BASE | EXC_S | EXC_FTYPE | EXC_ES;
	cm_init(&k, exc);
	cm_additional_state(&k, MSP, 0xfefa1234u);
	cm_basic_frame(&k, MSP + 0x28, 0);
	st = cm_walk(&k);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&k.fx);
}
END_TEST

/* Which of the four stack pointers holds the frame: S picks the security
 * state, Mode and SPSEL the stack; the handler's own main stack is its
 * sp; msp and psp are the capture's security state's (exc_return's ES),
 * the banked names are what they say. */
START_TEST(test_cortex_m_frame_stack_pointer_choice)
{
	/* No register: the handler's own sp. */
#define OWN NULL
	static const struct {
		uint32_t exc_return;  /* the handler's (and the capture's) */
		const char *holder;   /* the register naming FRAME; OWN: the handler's sp */
		const char *alias;    /* the same register by its other name, or NULL */
		const char *control;  /* the frame's state's CONTROL, or NULL */
		uint32_t spsel;       /* its value: CONTROL.SPSEL (bit 1) or 0 */
	} cases[] = {
		/* Secure handler, Secure thread on PSP_S: psp (Secure capture). */
		{ EXC_BASE | EXC_S | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_SPSEL | EXC_ES, "psp", "psp_s", NULL, 0 },
		{ EXC_BASE | EXC_S | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_SPSEL | EXC_ES, "psp_s", "psp",
		  NULL, 0 },
		/* Secure handler over Secure thread on MSP_S, or a Secure handler:
		 * the handler's own stack. */
		{ EXC_BASE | EXC_S | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_ES, OWN, NULL, NULL, 0 },
		{ EXC_BASE | EXC_S | EXC_DCRS | EXC_FTYPE | EXC_ES, OWN, NULL, NULL, 0 },
		/* Secure handler over Non-secure thread code: on PSP_NS or
		 * MSP_NS as CONTROL_NS.SPSEL says (EXC_RETURN.SPSEL is
		 * CONTROL_S's); over a Non-secure handler: MSP_NS. */
		{ EXC_BASE | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_ES, "psp_ns", NULL, "control_ns", 2 },
		{ EXC_BASE | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_SPSEL | EXC_ES, "msp_ns", NULL, "control_ns",
		  0 },
		{ EXC_BASE | EXC_DCRS | EXC_FTYPE | EXC_ES, "msp_ns", NULL, NULL, 0 },
		/* Non-secure handler over Secure thread code (a probe's
		 * capture, which reads both banks): PSP_S by CONTROL_S. */
		{ EXC_BASE | EXC_S | EXC_DCRS | EXC_FTYPE | EXC_MODE, "psp_s", NULL, "control_s", 2 },
		/* Non-secure handler (a Non-secure capture, or ARMv8-M without
		 * the Security Extension) over Non-secure thread code: psp, or
		 * its own main stack. */
		{ EXC_BASE | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_SPSEL, "psp", "psp_ns", NULL, 0 },
		{ EXC_BASE | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_SPSEL, "psp_ns", "psp", NULL, 0 },
		{ EXC_BASE | EXC_DCRS | EXC_FTYPE, OWN, NULL, NULL, 0 },
	};
	static const char *const decoys[] = { "msp", "psp", "msp_s", "psp_s", "msp_ns", "psp_ns" };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cm_case k;
		uint32_t exc = cases[i].exc_return;
		uint64_t frame = cases[i].holder ? FRAME : MSP;
		cm_init(&k, exc);
		cm_reg(&k, "exc_return", exc);
		if (cases[i].control)
			cm_reg(&k, cases[i].control, cases[i].spsel);
		/* Every other stack pointer names another place. */
		for (size_t d = 0; d < 6; d++) {
			bool holder = cases[i].holder && strcmp(decoys[d], cases[i].holder) == 0;
			if (cases[i].alias && strcmp(decoys[d], cases[i].alias) == 0)
				continue;
			cm_reg(&k, decoys[d], holder ? FRAME : FRAME + 0x100 + 0x80 * d);
		}
		/* Secure code under a Non-secure handler: the additional
		 * state context first. */
		if ((exc & EXC_S) && !(exc & EXC_ES)) {
			cm_additional_state(&k, frame, SIGNATURE);
			frame += 0x28;
		}
		cm_basic_frame(&k, frame, 0);
		const struct sw_stack *st = cm_walk(&k);
		ck_assert_msg(st->nframes == 3, "case %zu: %u frames", i, st->nframes);
		ck_assert_msg(st->frames[1].regs.v[SP] == frame + 0x20, "case %zu", i);
		fixture_free(&k.fx);
	}
}
#undef OWN
END_TEST

/* A Secure handler over Non-secure thread code whose capture gave no
 * psp_ns (psp is PSP_S there, not the frame's stack), or no CONTROL_NS
 * to say which Non-secure stack: the walk ends. */
START_TEST(test_cortex_m_frame_on_a_stack_not_captured_ends_the_walk)
{
	for (int control = 0; control < 2; control++) {
		struct cm_case k;
		uint32_t exc = EXC_BASE | EXC_DCRS | EXC_FTYPE | EXC_MODE | EXC_SPSEL | EXC_ES;
		cm_init(&k, exc);
		cm_reg(&k, "exc_return", exc);
		cm_reg(&k, "psp", FRAME);
		if (control)
			cm_reg(&k, "control_ns", 2);
		else
			cm_reg(&k, "psp_ns", FRAME);
		cm_basic_frame(&k, FRAME, 0);
		const struct sw_stack *st = cm_walk(&k);
		ck_assert_uint_eq(st->nframes, 1);
		ck_assert_int_eq(st->end, SW_END_NO_CALLER);
		fixture_free(&k.fx);
	}
}
END_TEST

/* ---- a handler that still holds EXC_RETURN in lr, without CFI ---------- */

/* A stripped firmware: no symbols, no CFI; the image starts with its
 * vector table (ARMv7-M ARM B1.5.3): the initial SP_main, Reset, NMI,
 * HardFault = VEC_HANDLER, reserved and unused vectors 0. The basic frame
 * the exception stacked is on the main stack (EXC_RETURN 0xfffffff1:
 * back to Handler mode, MSP) or the process stack (0xfffffffd). */
#define VEC_HANDLER (CODE_BASE + 0x100)
#define VEC_RESET (CODE_BASE + 0x80)
enum { EXC_HANDLER_MSP = 0xfffffff1u, EXC_THREAD_PSP = 0xfffffffdu };

static void cm_stripped_init(struct cm_case *k, uint32_t exc_return, uint64_t pc)
{
	cm_init(k, exc_return);
	syn_put_code(&k->fx, CODE_BASE, STACK_BASE + STACK_SIZE, 4);
	syn_put_code(&k->fx, CODE_BASE + 4, VEC_RESET | 1, 4);
	syn_put_code(&k->fx, CODE_BASE + 8, VEC_RESET | 1, 4);
	syn_put_code(&k->fx, CODE_BASE + 12, VEC_HANDLER | 1, 4);
	for (unsigned i = 4; i < 16; i++)
		syn_put_code(&k->fx, CODE_BASE + 4 * i, 0, 4);
	sw_reg_set(&k->fx.thread.ctx, PC, pc);
}

/* Thumb code at `at`, halfword by halfword. */
static void cm_code(struct cm_case *k, uint64_t at, const uint16_t *hw, size_t n)
{
	for (size_t i = 0; i < n; i++)
		syn_put_code(&k->fx, at + 2 * i, hw[i], 2);
}

/* Stopped at its first instruction (the vector table's HardFault entry):
 * the frame is at sp; r4-r11 are the interrupted code's. Without this,
 * a scan took the frame's stacked lr for the handler's caller. */
START_TEST(test_cortex_m_stripped_handler_at_its_vector_unstacks)
{
	struct cm_case k;
	cm_stripped_init(&k, EXC_HANDLER_MSP, VEC_HANDLER);
	cm_basic_frame(&k, MSP, 0);
	const struct sw_stack *st = walk(&k.fx, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CONTEXT);
	ck_assert(st->frames[1].restored_context);
	ck_assert_uint_eq(st->frames[1].pc, INTERRUPTED_PC);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), MSP + 0x20);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], LR), MAIN_RA | 1);
	cm_assert_r4_r11(st, 0x4404);
	fixture_free(&k.fx);
}
END_TEST

/* A handler some instructions in that has called nothing (lr still
 * EXC_RETURN): its code from the vector to pc says what it pushed and
 * allocated, 16- and 32-bit forms; the frame is above that, and the
 * pushed r4-r7 are the interrupted code's. */
START_TEST(test_cortex_m_stripped_handler_code_gives_its_pushes)
{
	static const uint16_t narrow[] = {
		0xb430,          /* push {r4, r5} */
		0xb082,          /* sub sp, #8 */
		0x4b01,          /* ldr r3, [pc, #4] */
		0x466f,          /* mov r7, sp */
		0xf3ef, 0x8108,  /* mrs r1, msp */
	};
	static const uint16_t wide[] = {
		0xe92d, 0x4070,  /* push.w {r4, r5, r6, lr} */
		0xf5ad, 0x7d80,  /* sub.w sp, sp, #256 */
		0xf2ad, 0x0d14,  /* subw sp, sp, #20 */
		0xed2d, 0x8b04,  /* vpush {d8, d9} */
		0xf84d, 0x7d04,  /* str.w r7, [sp, #-4]! */
		0xbf08,          /* it eq */
		0x681a,          /* ldreq r2, [r3] */
	};
	for (int w = 0; w < 2; w++) {
		struct cm_case k;
		size_t n = w ? sizeof wide / 2 : sizeof narrow / 2;
		uint64_t taken = w ? 16 + 256 + 20 + 16 + 4 : 16;
		cm_stripped_init(&k, EXC_HANDLER_MSP, VEC_HANDLER + 2 * n);
		cm_code(&k, VEC_HANDLER, w ? wide : narrow, n);
		uint64_t entry_sp = MSP + taken;
		if (w) {
			put_u32(&k.fx, entry_sp - 16, 0x6604);
			put_u32(&k.fx, entry_sp - 12, 0x6605);
			put_u32(&k.fx, entry_sp - 8, 0x6606);
			put_u32(&k.fx, MSP, 0x6607);
		} else {
			put_u32(&k.fx, entry_sp - 8, 0x6604);
			put_u32(&k.fx, entry_sp - 4, 0x6605);
		}
		cm_basic_frame(&k, entry_sp, 0);
		const struct sw_stack *st = walk(&k.fx, NULL);
		ck_assert_msg(st->nframes >= 2, "%s: %u frames", w ? "wide" : "narrow", st->nframes);
		ck_assert_uint_eq(st->frames[1].pc, INTERRUPTED_PC);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), entry_sp + 0x20);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], 4), 0x6604);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], 5), 0x6605);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], 6), w ? 0x6606 : 0x4406);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], 7), w ? 0x6607 : 0x4407);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], 8), 0x4408);
		fixture_free(&k.fx);
	}
}
END_TEST

/* The handler's start from the symbols, where the image has no vector
 * table at its start (VTOR moved, a second image). */
START_TEST(test_cortex_m_handler_start_from_symbols)
{
	static const uint16_t code[] = { 0xb410 /* push {r4} */, 0x2000 /* movs r0, #0 */ };
	struct cm_case k;
	cm_init(&k, EXC_HANDLER_MSP);
	k.fs.funcs[0] = (struct fake_func){ 0x200, 0x240, "handler" };
	k.fs.func_rule[0] = RULE_NONE;
	cm_code(&k, CODE_BASE + 0x200, code, 2);
	sw_reg_set(&k.fx.thread.ctx, PC, CODE_BASE + 0x204);
	put_u32(&k.fx, MSP, 0x7704);
	cm_basic_frame(&k, MSP + 4, 0);
	const struct sw_stack *st = cm_walk(&k);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, INTERRUPTED_PC);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), MSP + 4 + 0x20);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], 4), 0x7704);
	fixture_free(&k.fx);
}
END_TEST

/* Code that does not prove where the frame is (a branch, a release, sp
 * moved by a register, a conditional push, the frame reached by a
 * tail branch from another handler): a frame on the handler's own main
 * stack ends the walk there, with nothing scanned past it; one on the
 * process stack is still unstacked from the captured psp, without r4-r11
 * (the handler may have changed them). */
START_TEST(test_cortex_m_stripped_handler_unproven_code)
{
	static const uint16_t cases[][3] = {
		{ 0xb410, 0xe000, 0x2000 },  /* push {r4}; b .+4 */
		{ 0xb410, 0xb001, 0x2000 },  /* push {r4}; add sp, #4 */
		{ 0x466f, 0x46bd, 0x2000 },  /* mov r7, sp; mov sp, r7 */
		{ 0xbf08, 0xb410, 0x2000 },  /* it eq; pusheq {r4} */
		{ 0x4770, 0x2000, 0x2000 },  /* bx lr: another function follows */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int psp = 0; psp < 2; psp++) {
			struct cm_case k;
			cm_stripped_init(&k, psp ? EXC_THREAD_PSP : EXC_HANDLER_MSP, VEC_HANDLER + 6);
			cm_code(&k, VEC_HANDLER, cases[i], 3);
			cm_reg(&k, "psp", FRAME);
			cm_basic_frame(&k, psp ? FRAME : MSP + 4, 0);
			/* what a scan from the handler's sp would otherwise take */
			put_u32(&k.fx, MSP, (uint32_t)thumb_call_to(&k.fx, MAIN_RA));
			const struct sw_stack *st = walk(&k.fx, NULL);
			if (!psp) {
				ck_assert_msg(st->nframes == 1, "case %zu: %u frames", i, st->nframes);
				ck_assert_int_eq(st->end, SW_END_NO_CALLER);
			} else {
				ck_assert_msg(st->nframes >= 2, "case %zu psp: %u frames", i, st->nframes);
				ck_assert_uint_eq(st->frames[1].pc, INTERRUPTED_PC);
				ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), FRAME + 0x20);
				ck_assert(!sw_stack_frame_reg_valid(&st->frames[1], 4));
			}
			fixture_free(&k.fx);
		}
	}
}
END_TEST

/* Reset leaves lr 0xffffffff in the thread code it starts: no exception
 * return value, whatever a frame on the process stack would say. */
START_TEST(test_cortex_m_reset_lr_is_no_exception_return)
{
	struct cm_case k;
	cm_stripped_init(&k, 0xffffffffu, VEC_RESET);
	cm_reg(&k, "psp", FRAME);
	cm_basic_frame(&k, FRAME, 0);
	const struct sw_stack *st = walk(&k.fx, NULL);
	for (uint32_t i = 1; i < st->nframes; i++)
		ck_assert(!st->frames[i].restored_context);
	fixture_free(&k.fx);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("arm");
	TCase *tc = tcase_create("call-check");
	tcase_add_loop_test(tc, test_call_check_matches_objdump_on_real_code, 0,
	                    sizeof arm_fixtures / sizeof arm_fixtures[0]);
	tcase_add_test(tc, test_call_check_reads_be8_code_little_endian);
	tcase_add_loop_test(tc, test_prologue_matches_cfi_with_symbols, 0, NPRO_FIXTURES);
	tcase_add_loop_test(tc, test_prologue_matches_cfi_without_symbols, 0, NPRO_FIXTURES);
	tcase_add_test(tc, test_call_check_reads_be32_code_big_endian);
	tcase_add_test(tc, test_call_check_needs_the_right_instruction_set);
	tcase_add_test(tc, test_call_check_unknown_without_code_bytes);
	tcase_add_test(tc, test_call_target_decodes_direct_calls);
	tcase_add_test(tc, test_call_target_follows_plt_entries_through_the_got);
	suite_add_tcase(s, tc);
	tc = tcase_create("walk");
	tcase_add_test(tc, test_context_frame_alone);
	tcase_add_test(tc, test_cfi_caller_keeps_thumb_bit);
	tcase_add_test(tc, test_r11_chain_gcc_layout);
	tcase_add_test(tc, test_r11_chain_apcs_layout);
	tcase_add_test(tc, test_r11_chain_aapcs_layout);
	tcase_add_test(tc, test_r11_gcc_leaf_returns_through_lr);
	tcase_add_test(tc, test_r7_chain_on_ios);
	tcase_add_test(tc, test_r7_chain_ends_after_null_saved_r7);
	tcase_add_test(tc, test_thumb_r7_not_followed_on_linux);
	tcase_add_test(tc, test_arm_thumb_interworking);
	tcase_add_test(tc, test_scan_validates_by_instruction_set);
	tcase_add_test(tc, test_scan_refuses_a_call_into_another_module);
	tcase_add_test(tc, test_scan_takes_a_call_within_the_module);
	tcase_add_test(tc, test_scan_takes_a_call_to_a_function_tail_calling_through_a_pointer);
	tcase_add_test(tc, test_context_lr_taken_when_symbols_show_a_leaf);
	tcase_add_test(tc, test_context_lr_into_own_function_is_left_over);
	tcase_add_test(tc, test_context_lr_without_symbols);
	tcase_add_test(tc, test_r11_null_return_ends_only_an_intact_chain);
	tcase_add_test(tc, test_r11_zeros_after_lr_step_are_no_end);
	tcase_add_test(tc, test_r11_chain_checks);
	tcase_add_test(tc, test_walk_stops_when_stack_does_not_grow);
	tcase_add_test(tc, test_prologue_unwinds_thumb_push_and_sub_sp);
	tcase_add_test(tc, test_prologue_recovers_r7_r11_after_a_scanned_frame);
	tcase_add_test(tc, test_prologue_finds_the_save_of_lr_without_symbols);
	tcase_add_test(tc, test_prologue_search_needs_a_branch_past_a_return);
	tcase_add_test(tc, test_prologue_live_leaf_that_pushed_registers_returns_through_lr);
	tcase_add_test(tc, test_prologue_conditional_return_keeps_the_frame);
	tcase_add_test(tc, test_r11_record_refused_where_the_code_sets_up_none);
	tcase_add_test(tc, test_leaf_returning_straight_through_lr);
	tcase_add_test(tc, test_cfi_register_names_resolve);
	suite_add_tcase(s, tc);
	tc = tcase_create("cortex-m");
	tcase_add_test(tc, test_cortex_m_secure_basic_frame_on_psp);
	tcase_add_test(tc, test_cortex_m_frame_pad_word_is_skipped);
	tcase_add_test(tc, test_cortex_m_secure_extended_frame_size_follows_fpccr_ts);
	tcase_add_test(tc, test_cortex_m_nonsecure_extended_frame_ignores_fpccr_ts);
	tcase_add_test(tc, test_cortex_m_additional_state_context_restores_r4_r11);
	tcase_add_test(tc, test_cortex_m_additional_state_context_with_fp);
	tcase_add_test(tc, test_cortex_m_nonsecure_handler_over_secure_code);
	tcase_add_test(tc, test_cortex_m_bad_integrity_signature_ends_the_walk);
	tcase_add_test(tc, test_cortex_m_frame_stack_pointer_choice);
	tcase_add_test(tc, test_cortex_m_frame_on_a_stack_not_captured_ends_the_walk);
	tcase_add_test(tc, test_cortex_m_stripped_handler_at_its_vector_unstacks);
	tcase_add_test(tc, test_cortex_m_stripped_handler_code_gives_its_pushes);
	tcase_add_test(tc, test_cortex_m_handler_start_from_symbols);
	tcase_add_test(tc, test_cortex_m_stripped_handler_unproven_code);
	tcase_add_test(tc, test_cortex_m_reset_lr_is_no_exception_return);
	suite_add_tcase(s, tc);
	return s;
}
