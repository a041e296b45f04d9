/* PowerPC: the bl/bctrl/blrl call check on real GCC code (ppc32, ppc64le
 * ELFv2, ppc64 ELFv1 big-endian; testdata/code), and the walker on
 * synthetic stacks: the back chain with each ABI's LR save word, the
 * context frame's live link register (leaf with and without a frame, left
 * over), CFI, the scan, byte order, and each way a walk ends. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "code_fixture.h"
#include "lib/walker.h"
#include "synthetic_snapshot.h"

enum { R1 = 1, SRR0 = 32, LR = 33 };

#define CODE_BASE 0x10000000ull
#define CODE_SIZE 0x2000ull
#define LIB_BASE 0x20000000ull
#define LIB_SIZE 0x1000ull
#define STACK_BASE 0x7ff00000ull
#define STACK_SIZE 0x1000ull

/* Power ISA Book I §2.4 encodings. */
enum {
	PPC_NOP = 0x60000000u,       /* ori r0,r0,0 */
	PPC_BL = 0x48000011u,        /* bl .+0x10 */
	PPC_BCTRL = 0x4e800421u,
	PPC_BLRL = 0x4e800021u,
	PPC_BLR = 0x4e800020u,       /* return: no link */
	PPC_B = 0x48000010u,         /* b .+0x10: no link */
	PPC_BCL_NEXT = 0x429f0005u,  /* bcl 20,31,.+4: reads the pc */
	PPC_BEQL = 0x41820011u,      /* beql .+0x10: a conditional call */
};

/* ---- the call check on real code --------------------------------------- */

static const char *const ppc_fixtures[] = {
	"ppc32-O0-fp.txt", "ppc32-O0-nofp.txt", "ppc32-O2-fp.txt", "ppc32-O2-nofp.txt",
	"ppc64le-O0-fp.txt", "ppc64le-O0-nofp.txt", "ppc64le-O2-fp.txt", "ppc64le-O2-nofp.txt",
	"ppc64-elfv1-O0-fp.txt", "ppc64-elfv1-O0-nofp.txt", "ppc64-elfv1-O2-fp.txt",
	"ppc64-elfv1-O2-nofp.txt",
};

static const struct sw_arch *fixture_arch(const struct code_fixture *f)
{
	if (strcmp(f->arch, "ppc") == 0)
		return &sw_arch_ppc;
	ck_assert_str_eq(f->arch, "ppc64");
	return &sw_arch_ppc64;
}

/* Every return address GCC's calls leave (bl, bl + TOC restore, bctrl) is
 * accepted, every other instruction end rejected, among them the PIC
 * `bcl 20,31,.+4` of ppc32 code and the traceback tables of ELFv1. */
START_TEST(test_call_check_matches_objdump_on_real_code)
{
	const char *name = ppc_fixtures[_i];
	struct code_fixture f;
	struct code_snapshot cs;
	code_fixture_load(name, &f);
	code_snapshot_init(&cs, &f, fixture_arch(&f), f.big_endian, 0);
	ck_assert_uint_gt(code_fixture_check(&cs, &f, name), 100);
	code_snapshot_free(&cs);
	code_fixture_free(&f);
}
END_TEST

/* Code is read in the snapshot's byte order: ppc64le code read as
 * big-endian is no longer recognized. */
START_TEST(test_call_check_follows_snapshot_byte_order)
{
	struct code_fixture f;
	struct code_snapshot cs;
	code_fixture_load("ppc64le-O2-fp.txt", &f);
	ck_assert(!f.big_endian);
	code_snapshot_init(&cs, &f, &sw_arch_ppc64, true, 0);
	ck_assert_uint_eq(code_fixture_calls_accepted(&cs, &f), 0);
	code_snapshot_free(&cs);
	code_fixture_free(&f);
}
END_TEST

/* ---- synthetic stacks -------------------------------------------------- */

static void fixture_init(struct fixture *fx, const struct sw_arch *arch, bool big_endian,
                         enum sw_os os)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "synthetic-ppc", .cpu = arch->cpu, .os = os, .word_size = arch->word_size,
		.big_endian = big_endian,
		.code = { CODE_BASE, CODE_SIZE }, .lib = { LIB_BASE, LIB_SIZE },
		.stack = { STACK_BASE, STACK_SIZE },
		.fill = PPC_NOP, .fill_size = 4,
		.thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "app" },
		             { .base = LIB_BASE, .size = LIB_SIZE, .code_file = "libc.so" } },
		.nmodules = 2 });
	ck_assert_ptr_eq(sw_arch_for_cpu(arch->cpu), arch);
}

static void put_insn(struct fixture *fx, uint64_t addr, uint32_t insn)
{
	syn_put_code(fx, addr, insn, 4);
}

/* A call returning to ra. */
static uint64_t call_to(struct fixture *fx, uint64_t ra)
{
	put_insn(fx, ra - 4, PPC_BL);
	return ra;
}

static void set_context(struct fixture *fx, uint64_t pc, uint64_t sp, uint64_t lr)
{
	sw_reg_set(&fx->thread.ctx, SRR0, pc);
	sw_reg_set(&fx->thread.ctx, R1, sp);
	sw_reg_set(&fx->thread.ctx, LR, lr);
}

/* Fake symbols for module 0, and optionally a CFI rule that reads the
 * back chain itself (.cfa: [r1], .ra: [.cfa + LR save offset]). */
struct fake_symbols {
	bool cfi;
	unsigned lr_offset;
	struct sw_module_symbols module;
	struct sw_symbol_source source;
};

static const char *fake_name(uint64_t off)
{
	return off < 0x400 ? "crashing" : off < 0x800 ? "caller" : "main";
}

static bool fake_lookup(void *self, uint64_t off, struct sw_arena *a, struct sw_sym_info *out)
{
	(void)self;
	(void)a;
	if (off >= CODE_SIZE)
		return false;
	memset(out, 0, sizeof *out);
	out->function = fake_name(off);
	out->function_offset = off < 0x400 ? 0 : off < 0x800 ? 0x400 : 0x800;
	return true;
}

static bool fake_has_function(void *self, uint64_t off)
{
	(void)self;
	return off < CODE_SIZE;
}

static enum sw_unwind_status fake_unwind(void *self, uint64_t off, const struct sw_unwind_env *env,
                                         struct sw_caller *out, enum sw_trust *trust)
{
	struct sw_regs *caller = &out->regs;
	const struct fake_symbols *fs = self;
	(void)off;
	if (!fs->cfi)
		return SW_UNWIND_NO_RULE;
	uint64_t cfa, ra;
	if (!sw_walk_read_word(env->walk, env->callee->regs.v[R1], &cfa) ||
	    !sw_walk_read_word(env->walk, cfa + fs->lr_offset, &ra))
		return SW_UNWIND_FAILED;
	sw_reg_set(caller, SRR0, ra);
	sw_reg_set(caller, R1, cfa);
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
	fs->module = (struct sw_module_symbols){ &fake_ops, fs };
	fs->source = (struct sw_symbol_source){ .self = &fs->module, .for_module = syn_module0_symbols };
}

static const struct sw_stack *walk_opt(struct fixture *fx, const struct sw_symbol_source *src,
                                       const struct sw_walk_options *opt)
{
	return syn_walk(fx, sw_arch_for_cpu(fx->snap.sys.cpu), src, opt);
}

static const struct sw_stack *walk(struct fixture *fx, const struct sw_symbol_source *src)
{
	return walk_opt(fx, src, NULL);
}

/* The calls, and what only looks like one. */
START_TEST(test_call_check_forms)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc, true, SW_OS_LINUX);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_ppc };
	static const struct {
		uint32_t insn;
		bool call;
	} cases[] = {
		{ PPC_BL, true }, { PPC_BCTRL, true }, { PPC_BLRL, true }, { PPC_BEQL, true },
		{ 0x4e800461u, true },  /* bctarl */
		{ 0x48000013u, true },  /* bla */
		{ PPC_BCL_NEXT, false }, { PPC_BLR, false }, { PPC_B, false }, { PPC_NOP, false },
		{ 0x4e800420u, false }, /* bctr */
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t ra = CODE_BASE + 0x100 + 0x10 * i;
		put_insn(&fx, ra - 4, cases[i].insn);
		bool known = false;
		ck_assert_msg(sw_arch_ppc.call_precedes(&w, ra, &known) == cases[i].call,
		              "0x%08x", cases[i].insn);
		ck_assert(known);
	}
	bool known = false;
	ck_assert(!sw_arch_ppc.call_precedes(&w, CODE_BASE + 0x102, &known)); /* misaligned */
	ck_assert(known);
	fixture_free(&fx);
}
END_TEST

/* ppc32 System V: [r1] = the caller's r1, the LR save word at 4 in the
 * caller's frame. The context frame saved its lr already (its slot holds
 * it): the chain gives the caller, with the caller's sp. A NULL back chain
 * ends the walk (the initial frame's). Words are big-endian. */
START_TEST(test_back_chain_ppc32)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc, true, SW_OS_LINUX);
	uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x140, s2 = STACK_BASE + 0x1a0;
	uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500), ra2 = call_to(&fx, CODE_BASE + 0x900);
	put_word(&fx, s0, s1);
	put_word(&fx, s1, s2);
	put_word(&fx, s1 + 4, ra1);
	put_word(&fx, s2, 0);
	put_word(&fx, s2 + 4, ra2);
	set_context(&fx, CODE_BASE + 0x10, s0, ra1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(st->frames[1].lookup_pc, ra1 - 4);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R1), s2);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* ppc64 (ELFv2, little-endian here): the LR save doubleword at 16. */
START_TEST(test_back_chain_ppc64le)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc64, false, SW_OS_LINUX);
	uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x180, s2 = STACK_BASE + 0x200;
	uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500), ra2 = call_to(&fx, CODE_BASE + 0x900);
	put_word(&fx, s0, s1);
	put_word(&fx, s0 + 16, ra2);    /* the frame's own slot: its callees' */
	put_word(&fx, s1, s2);
	put_word(&fx, s1 + 16, ra1);
	put_word(&fx, s2, 0);
	put_word(&fx, s2 + 16, ra2);
	set_context(&fx, CODE_BASE + 0x10, s0, ra1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R1), s2);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* Darwin's ppc32 linkage area keeps LR at 8, and its outermost frame's
 * slot holds 1 (Breakpad's rule): the chain ends there. */
START_TEST(test_back_chain_darwin_ppc32)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc, true, SW_OS_MACOS);
	uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x140, s2 = STACK_BASE + 0x1a0;
	uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500);
	put_word(&fx, s0, s1);
	put_word(&fx, s1, s2);
	put_word(&fx, s1 + 8, ra1);
	put_word(&fx, s2, STACK_BASE + 0x300);
	put_word(&fx, s2 + 8, 1);
	set_context(&fx, CODE_BASE + 0x10, s0, ra1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* The same back chain through CFI (a rule that reads it): trust cfi. */
START_TEST(test_cfi_caller)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, &sw_arch_ppc64, true, SW_OS_LINUX);
	fake_init(&fs);
	fs.cfi = true;
	fs.lr_offset = 16;
	uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x180;
	uint64_t ra1 = call_to(&fx, LIB_BASE + 0x500);
	put_word(&fx, s0, s1);
	put_word(&fx, s1 + 16, ra1);
	set_context(&fx, CODE_BASE + 0x10, s0, 0);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
	ck_assert_str_eq(st->frames[0].function, "crashing");
	fixture_free(&fx);
}
END_TEST

/* A leaf that made no frame: r1 is still its caller's, whose slot above
 * holds the caller's own return address. lr (in another function, by the
 * symbols) gives the caller at the same sp; the chain then goes on. */
START_TEST(test_context_lr_of_leaf_without_frame)
{
	struct fixture fx;
	struct fake_symbols fs;
	fixture_init(&fx, &sw_arch_ppc64, false, SW_OS_LINUX);
	fake_init(&fs);
	uint64_t s1 = STACK_BASE + 0x100, s2 = STACK_BASE + 0x180;
	uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500);   /* in "caller" */
	uint64_t ra2 = call_to(&fx, CODE_BASE + 0x900);   /* in "main" */
	put_word(&fx, s1, s2);
	put_word(&fx, s2, 0);
	put_word(&fx, s2 + 16, ra2);
	set_context(&fx, CODE_BASE + 0x10, s1, ra1);
	const struct sw_stack *st = walk(&fx, &fs.source);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
	ck_assert_str_eq(st->frames[1].function, "caller");
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R1), s2);
	fixture_free(&fx);
}
END_TEST

/* A leaf with a frame of its own has not written its return address (the
 * slot holds no return address): lr gives the caller, whose sp is the
 * back chain. No symbols are needed. */
START_TEST(test_context_lr_of_leaf_with_frame)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc, true, SW_OS_LINUX);
	uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x120, s2 = STACK_BASE + 0x180;
	uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500), ra2 = call_to(&fx, CODE_BASE + 0x900);
	put_word(&fx, s0, s1);
	put_word(&fx, s1, s2);
	put_word(&fx, s1 + 4, 0);
	put_word(&fx, s2, 0);
	put_word(&fx, s2 + 4, ra2);
	set_context(&fx, CODE_BASE + 0x10, s0, ra1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R1), s2);
	fixture_free(&fx);
}
END_TEST

/* lr pointing back into the frame's own function is left over from a call
 * it made: the chain, not lr, gives the caller. Without symbols, a return
 * address in the frame's slot also wins over lr (Breakpad's rule). */
START_TEST(test_context_lr_left_over_is_not_taken)
{
	for (int with_symbols = 0; with_symbols < 2; with_symbols++) {
		struct fixture fx;
		struct fake_symbols fs;
		fixture_init(&fx, &sw_arch_ppc, true, SW_OS_LINUX);
		fake_init(&fs);
		uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x140;
		uint64_t stale = call_to(&fx, CODE_BASE + 0x200);  /* in "crashing" */
		uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500);
		put_word(&fx, s0, s1);
		put_word(&fx, s1, 0);
		put_word(&fx, s1 + 4, ra1);
		set_context(&fx, CODE_BASE + 0x10, s0, stale);
		const struct sw_stack *st = walk(&fx, with_symbols ? &fs.source : NULL);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, ra1);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
		fixture_free(&fx);
	}
}
END_TEST

/* A signal handler's frame: its caller's LR slot holds the restorer's
 * address (li r0, 172; sc), which no call precedes. It is a return
 * address all the same, so a live lr left over from the handler's own
 * call is not taken in its place (zoo ppc64le 102, stripped: the walk
 * took f4's return from side2 and ended). */
static const struct sw_stack *walk_handler_frame(struct fixture *fx, bool return_between,
                                                  uint64_t *restorer, uint64_t *interrupted)
{
	fixture_init(fx, &sw_arch_ppc64, false, SW_OS_LINUX);
	/* The restorer in a page of code no module holds (qemu-user's). */
	fx->cfg.nmodules = fx->snap.nmodules = 1;
	uint64_t s1 = STACK_BASE + 0x100, s2 = STACK_BASE + 0x180;
	*restorer = LIB_BASE + 0x800;
	uint64_t lr = call_to(fx, CODE_BASE + 0x200);
	if (return_between)
		put_insn(fx, CODE_BASE + 0x280, PPC_BLR);
	put_insn(fx, *restorer, 0x380000acu);
	put_insn(fx, *restorer + 4, 0x44000002u);
	put_word(fx, s1, s2);
	put_word(fx, s2, 0);
	put_word(fx, s2 + 16, *restorer);
	/* The rt_sigframe at s2: sigcontext.regs (r1 + 128 + 168 + 56)
	 * points at gp_regs right after it; r1 and nip restored from there. */
	uint64_t regs_ptr = s2 + 128 + 168 + 56, regs = regs_ptr + 8;
	*interrupted = call_to(fx, CODE_BASE + 0x900);
	put_word(fx, regs_ptr, regs);
	put_word(fx, regs + 1 * 8, STACK_BASE + 0x800);
	put_word(fx, regs + 32 * 8, *interrupted);
	set_context(fx, CODE_BASE + 0x300, s1, lr);
	return walk(fx, NULL);
}

START_TEST(test_restorer_in_the_lr_slot_is_the_callers_return)
{
	struct fixture fx;
	uint64_t restorer, interrupted;
	const struct sw_stack *st = walk_handler_frame(&fx, false, &restorer, &interrupted);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, restorer);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), STACK_BASE + 0x180);
	ck_assert_uint_eq(st->frames[2].pc, interrupted);
	fixture_free(&fx);

	/* A blr between lr and pc: lr may be the return of a leaf that made
	 * no frame, the slot then its caller's (the handler's): lr is the
	 * caller, and the restorer the next (zoo ppc64le 6, the core alone:
	 * lr in no module could not be taken, and the restorer skipped the
	 * handler). */
	st = walk_handler_frame(&fx, true, &restorer, &interrupted);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x200);
	ck_assert_uint_eq(st->frames[2].pc, restorer);
	fixture_free(&fx);
}
END_TEST

/* The zoo's ppc64le seed 5700 walked stripped (no symbols): the leaf
 * made no frame, so r1 is its caller's frame, whose back chain and slot
 * name the caller's caller. lr is the leaf's return address: the code
 * shows its call going to the leaf's entry, below pc with no return in
 * between, so lr is taken and the caller not skipped. A call left over
 * from the frame's own earlier call went to a function that returned: its
 * blr lies between the call's target and pc, and the chain decides. */
static uint32_t bl_from_to(uint64_t from, uint64_t to)
{
	return 0x48000001u | (uint32_t)((to - from) & 0x03fffffcu);
}

/* The layout these tests share: a leaf at CODE_BASE + 0x100 that made no
 * frame, stopped at pc = leaf + 0x40 with lr = ra1 (CODE_BASE + 0x600,
 * whose call each test writes); r1 is its caller's frame s1, whose back
 * chain s2 ends the chain and names ra2 (after a call at CODE_BASE +
 * 0x900), the caller's caller. */
struct leaf_layout {
	uint64_t leaf, pc, s1, s2, ra1, ra2;
};

static struct leaf_layout leaf_layout_init(struct fixture *fx)
{
	fixture_init(fx, &sw_arch_ppc64, false, SW_OS_LINUX);
	struct leaf_layout l = { .leaf = CODE_BASE + 0x100, .pc = CODE_BASE + 0x140,
		                 .s1 = STACK_BASE + 0x100, .s2 = STACK_BASE + 0x180,
		                 .ra1 = CODE_BASE + 0x600 };
	l.ra2 = call_to(fx, CODE_BASE + 0x900);
	put_word(fx, l.s1, l.s2);
	put_word(fx, l.s2, 0);
	put_word(fx, l.s2 + 16, l.ra2);
	set_context(fx, l.pc, l.s1, l.ra1);
	return l;
}

START_TEST(test_context_lr_whose_call_entered_pc_function_is_taken)
{
	for (int stale = 0; stale < 2; stale++) {
		struct fixture fx;
		struct leaf_layout l = leaf_layout_init(&fx);
		if (stale) {
			/* A function below pc's, called and returned from. */
			put_insn(&fx, l.leaf + 0x20, PPC_BLR);
		}
		put_insn(&fx, l.leaf + 0x10, 0x41820010u); /* beq .+0x10: no end */
		put_insn(&fx, l.ra1 - 4, bl_from_to(l.ra1 - 4, l.leaf));
		const struct sw_stack *st = walk(&fx, NULL);
		ck_assert_uint_ge(st->nframes, 2);
		if (stale) {
			ck_assert_uint_eq(st->frames[1].pc, l.ra2);
		} else {
			ck_assert_uint_eq(st->nframes, 3);
			ck_assert_uint_eq(st->frames[1].pc, l.ra1);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), l.s1);
			ck_assert_uint_eq(st->frames[2].pc, l.ra2);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R1), l.s2);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* The same through a pointer (bctrl, zoo ppc64le 67 stripped: f2 calls
 * the leaf f3 through ctr): the live ctr still holds the call's target,
 * the leaf's entry, so lr is taken; without ctr the chain decides (and
 * skips the leaf's caller, as nothing else tells). */
START_TEST(test_context_lr_after_bctrl_into_pc_function_is_taken)
{
	for (int known = 0; known < 2; known++) {
		struct fixture fx;
		struct leaf_layout l = leaf_layout_init(&fx);
		put_insn(&fx, l.ra1 - 4, PPC_BCTRL);
		if (known)
			sw_reg_set(&fx.thread.ctx, 34, l.leaf); /* ctr */
		const struct sw_stack *st = walk(&fx, NULL);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, known ? l.ra1 : l.ra2);
		fixture_free(&fx);
	}
}
END_TEST

/* The call may enter a function above pc that tail-branches below itself
 * into pc's function (zoo ppc64le 1034 stripped: main's bl f2, f2's b f3,
 * the crash in the leaf f3; the chain skipped main). A forward b out of
 * the target proves nothing: it may stay inside its function. */
START_TEST(test_context_lr_whose_call_tail_branches_into_pc_function_is_taken)
{
	for (int forward = 0; forward < 2; forward++) {
		struct fixture fx;
		struct leaf_layout l = leaf_layout_init(&fx);
		uint64_t f2 = CODE_BASE + 0x300, to = forward ? CODE_BASE + 0x380 : l.leaf;
		put_insn(&fx, f2 + 8, 0x48000000u | (uint32_t)((to - (f2 + 8)) & 0x03fffffcu));
		put_insn(&fx, l.ra1 - 4, bl_from_to(l.ra1 - 4, f2));
		const struct sw_stack *st = walk(&fx, NULL);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, forward ? l.ra2 : l.ra1);
		fixture_free(&fx);
	}
}
END_TEST

/* Zoo ppc64le 1065 stripped: the leaf f8, called through ctr (bctrl),
 * made a frame of its own (`stdu r1, -64(r1)` at its entry) and saved no
 * return address: its caller's slot holds a stale return from side5,
 * which the caller called before. Nothing names the functions; the code
 * does: the call entered pc's function, whose code from there runs
 * straight to the allocation and writes r1 no more before pc, and the
 * word at r1 is r1 + 64. The caller's sp is then the back chain, and the
 * stale slot is no frame. A branch before the allocation (a path may skip
 * it), or r1 written again before pc (`addi r1, r1, 64`), proves nothing:
 * r1 stays the caller's sp, as before (the caller's code from the stale
 * return does not run on to lr here: it proves nothing either). */
START_TEST(test_context_lr_of_leaf_whose_code_made_a_frame)
{
	for (int variant = 0; variant < 3; variant++) {
		struct fixture fx;
		fixture_init(&fx, &sw_arch_ppc64, false, SW_OS_LINUX);
		uint64_t leaf = CODE_BASE + 0x100, pc = leaf + 0x40;
		uint64_t s0 = STACK_BASE + 0x100, s1 = s0 + 64, s2 = STACK_BASE + 0x1c0;
		uint64_t ra1 = CODE_BASE + 0x600, stale = CODE_BASE + 0x5e0;
		uint64_t ra2 = call_to(&fx, CODE_BASE + 0x900);
		put_insn(&fx, leaf + 4, 0xf821ffc1u);              /* stdu r1, -64(r1) */
		if (variant == 1)
			put_insn(&fx, leaf, 0x41820010u);          /* beq .+0x10 */
		if (variant == 2)
			put_insn(&fx, leaf + 0x20, 0x38210040u);   /* addi r1, r1, 64 */
		put_insn(&fx, ra1 - 4, PPC_BCTRL);
		put_insn(&fx, stale - 4, bl_from_to(stale - 4, CODE_BASE + 0x800));
		put_insn(&fx, stale + 8, PPC_B);
		put_insn(&fx, CODE_BASE + 0x810, PPC_BLR);         /* side5 returns */
		put_word(&fx, s0, s1);
		put_word(&fx, s1, s2);
		put_word(&fx, s1 + 16, stale);
		put_word(&fx, s2, 0);
		put_word(&fx, s2 + 16, ra2);
		set_context(&fx, pc, s0, ra1);
		sw_reg_set(&fx.thread.ctx, 34, leaf); /* ctr */
		const struct sw_stack *st = walk(&fx, NULL);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, ra1);
		if (variant == 0) {
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
			ck_assert_uint_eq(st->nframes, 3);
			ck_assert_uint_eq(st->frames[2].pc, ra2);
		} else {
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s0);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* Zoo ppc64le 3508 stripped: f3 calls f4 (above the crash), which tears
 * down its frame and tail-branches below itself into f5, whose `stdu r1,
 * -64(r1)` made a frame before the crash. Where f5 starts is where f4's
 * branch leads, and its code shows the frame: f3's sp is the back chain.
 * Kept as r1 it read f3's own slot, where an earlier callee
 * (zoo_thread_init) had saved its return into f3, and f3 came twice. The
 * stale return's code runs on to lr or not: the code of f5 decides. */
START_TEST(test_context_lr_via_tail_branch_gets_sp_from_the_leaf_code)
{
	for (int falls = 0; falls < 2; falls++) {
		struct fixture fx;
		fixture_init(&fx, &sw_arch_ppc64, false, SW_OS_LINUX);
		uint64_t f5 = CODE_BASE + 0x100, pc = f5 + 0x40, f4 = CODE_BASE + 0x300;
		uint64_t stale = CODE_BASE + 0x5f0, ra1 = CODE_BASE + 0x600;
		uint64_t s0 = STACK_BASE + 0x100, s1 = s0 + 64, s2 = STACK_BASE + 0x1c0;
		uint64_t ra2 = call_to(&fx, CODE_BASE + 0x900);
		put_insn(&fx, f5 + 4, 0xf821ffc1u);                /* stdu r1, -64(r1) */
		put_insn(&fx, pc + 8, 0x38210040u);                /* addi r1, r1, 64 */
		put_insn(&fx, pc + 12, PPC_BLR);
		put_insn(&fx, f4 + 4, 0xf821ffd1u);                /* stdu r1, -48(r1) */
		put_insn(&fx, f4 + 8, 0x38210030u);                /* addi r1, r1, 48 */
		put_insn(&fx, f4 + 12, 0x48000000u | (uint32_t)((f5 - (f4 + 12)) & 0x03fffffcu));
		put_insn(&fx, ra1 - 4, bl_from_to(ra1 - 4, f4));
		put_insn(&fx, stale - 4, bl_from_to(stale - 4, CODE_BASE + 0x800));
		put_insn(&fx, CODE_BASE + 0x810, PPC_BLR);
		if (!falls)
			put_insn(&fx, stale + 4, PPC_B);
		put_word(&fx, s0, s1);
		put_word(&fx, s1, s2);
		put_word(&fx, s1 + 16, stale);
		put_word(&fx, s2, 0);
		put_word(&fx, s2 + 16, ra2);
		set_context(&fx, pc, s0, ra1);
		const struct sw_stack *st = walk(&fx, NULL);
		ck_assert_uint_eq(st->nframes, 3);
		ck_assert_uint_eq(st->frames[1].pc, ra1);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
		ck_assert_uint_eq(st->frames[2].pc, ra2);
		ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], R1), s2);
		ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
		fixture_free(&fx);
	}
}
END_TEST

/* The class of zoo ppc64le 3508: a frame whose r1 lies one frame low
 * reads, in its back chain's LR save slot, a return into its own function
 * that one of its earlier callees saved there (the code runs straight
 * from that return on to the frame's pc). It is no caller, as a live lr
 * or a scanned word would not be (lib/walker.c own_earlier_call): the
 * scan, which skips it too, finds the true caller above. Recursion, a
 * direct bl to the function's entry (a path of direct branches from there
 * reaches the call, past an early return: zoo ppc64le 5700), is a caller:
 * with symbols too, whose start is not the bl's target (ELFv2's local
 * entry, 8 bytes in). */
START_TEST(test_back_chain_slot_of_own_earlier_call_is_no_caller)
{
	for (int v = 0; v < 4; v++) {
		bool recursion = v > 0, symbols = v == 2;
		struct fixture fx;
		struct fake_symbols fs;
		fake_init(&fs);
		fixture_init(&fx, &sw_arch_ppc64, false, SW_OS_LINUX);
		uint64_t pc = CODE_BASE + 0x600, earlier = CODE_BASE + 0x5e0;
		uint64_t s0 = STACK_BASE + 0x100, s1 = s0 + 64, s2 = STACK_BASE + 0x1c0;
		uint64_t ra2 = call_to(&fx, CODE_BASE + 0x900);
		uint64_t to = recursion ? CODE_BASE + 0x408 : CODE_BASE + 0x800;
		put_insn(&fx, earlier - 4, bl_from_to(earlier - 4, to));
		put_insn(&fx, CODE_BASE + 0x810, PPC_BLR);
		if (v == 3) {
			put_insn(&fx, CODE_BASE + 0x410, 0x41820010u); /* beq .+0x10 */
			put_insn(&fx, CODE_BASE + 0x41c, PPC_BLR);     /* an early return */
		}
		put_word(&fx, s0, s1);
		put_word(&fx, s1, s2);
		put_word(&fx, s1 + 16, earlier);
		put_word(&fx, s2, 0);
		put_word(&fx, s2 + 16, ra2);
		set_context(&fx, pc, s0, 0);
		const struct sw_stack *st = walk(&fx, symbols ? &fs.source : NULL);
		ck_assert_uint_ge(st->nframes, 2);
		if (recursion) {
			ck_assert_uint_eq(st->frames[1].pc, earlier);
			ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
		} else {
			ck_assert_uint_eq(st->nframes, 2);
			ck_assert_uint_eq(st->frames[1].pc, ra2);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s2);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* Which sp goes with a live lr, where the symbols give the function's
 * entry: its code, every path from the entry to pc, says whether it made a
 * frame. The chain: r1 -> s1 (lr's caller, "caller") -> s2 -> s3, where
 * s2's slot returns into "caller" again (a recursion), s3's into main,
 * and s1's slot holds a stale return into main.
 *  - a leaf that made no frame (zoo ppc64le 1099: f6 under three f5
 *    frames): r1 is the caller's sp. The slot above a frame of its own
 *    would have held a return into the caller's function too, and that
 *    was taken for proof of one: the recursion was skipped;
 *  - the allocation, then an early return (`addi r1, r1, 64; blr`) that
 *    the path to pc branches past (zoo ppc64le 1077: f8): its own frame;
 *  - the allocation, then an alloca's `stdux r6, r1, r9` (zoo ppc64le
 *    1073: f5), whose back chain lies above the fixed frame: its own;
 *  - a branch that skips the allocation: the paths disagree, nothing
 *    proven, r1 stays the caller's sp (the stale slot then decides);
 *  - no symbols, and the function jumps past pc to its epilogue (zoo
 *    ppc64le 1136 stripped, an -O0 comparator): the call's target is
 *    where the paths start, and the one reaching pc holds the frame. */
START_TEST(test_context_lr_sp_from_every_path_to_pc)
{
	enum { FRAMELESS, EARLY_RETURN, ALLOCA, SKIPPED, EPILOGUE_PAST_PC };
	for (int v = FRAMELESS; v <= EPILOGUE_PAST_PC; v++) {
		struct fixture fx;
		struct fake_symbols fs;
		fake_init(&fs);
		fixture_init(&fx, &sw_arch_ppc64, false, SW_OS_LINUX);
		uint64_t entry = CODE_BASE, pc = entry + 0x40, ra1 = CODE_BASE + 0x600;
		if (v == EPILOGUE_PAST_PC)
			ra1 = LIB_BASE + 0x100; /* bsearch calling its comparator */
		uint64_t ra_rec = CODE_BASE + 0x640, ra2 = CODE_BASE + 0x900, stale = CODE_BASE + 0x980;
		uint64_t s1 = STACK_BASE + 0x200, s2 = s1 + 0x100, s3 = s2 + 0x100;
		uint64_t s0 = v == FRAMELESS ? s1 : v == ALLOCA ? s1 - 0x90 : s1 - 64;
		put_insn(&fx, ra1 - 4, v == EPILOGUE_PAST_PC ? PPC_BCTRL : bl_from_to(ra1 - 4, entry));
		put_insn(&fx, ra_rec - 4, bl_from_to(ra_rec - 4, CODE_BASE + 0x400));
		put_insn(&fx, ra2 - 4, bl_from_to(ra2 - 4, CODE_BASE + 0x400));
		put_insn(&fx, stale - 4, bl_from_to(stale - 4, CODE_BASE + 0xa00));
		if (v != FRAMELESS)
			put_insn(&fx, entry + 4, 0xf821ffc1u);      /* stdu r1, -64(r1) */
		if (v == EARLY_RETURN) {
			put_insn(&fx, entry + 0x10, 0x41820020u);   /* beq .+0x20 */
			put_insn(&fx, entry + 0x20, 0x38210040u);   /* addi r1, r1, 64 */
			put_insn(&fx, entry + 0x24, PPC_BLR);
		}
		if (v == ALLOCA)
			put_insn(&fx, entry + 0x30, 0x7cc1496au);   /* stdux r6, r1, r9 */
		if (v == SKIPPED)
			put_insn(&fx, entry, 0x41820010u);          /* beq .+0x10 */
		if (v == EPILOGUE_PAST_PC) {
			put_insn(&fx, entry + 0x10, 0x41820028u);   /* beq .+0x28: the crash's block */
			put_insn(&fx, entry + 0x20, 0x48000040u);   /* b .+0x40: past pc */
			put_insn(&fx, entry + 0x60, 0x38210040u);   /* addi r1, r1, 64 */
			put_insn(&fx, entry + 0x64, PPC_BLR);
		}
		if (s0 != s1)
			put_word(&fx, s0, s1);
		put_word(&fx, s1, s2);
		put_word(&fx, s1 + 16, stale);
		put_word(&fx, s2, s3);
		put_word(&fx, s2 + 16, ra_rec);
		put_word(&fx, s3, 0);
		put_word(&fx, s3 + 16, ra2);
		set_context(&fx, pc, s0, ra1);
		if (v == EPILOGUE_PAST_PC)
			sw_reg_set(&fx.thread.ctx, 34, entry); /* ctr: the comparator */
		/* Without symbols the entry is the call's target. */
		const struct sw_stack *st = walk(&fx, v == EPILOGUE_PAST_PC ? NULL : &fs.source);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, ra1);
		if (v == SKIPPED) {
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s0);
		} else {
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s1);
			ck_assert_uint_eq(st->nframes, 4);
			ck_assert_uint_eq(st->frames[2].pc, ra_rec);
			ck_assert_uint_eq(st->frames[3].pc, ra2);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* A broken back chain (pointing below r1) falls to the scan. It starts
 * above the frame's own header, whose LR slot holds a leftover of the
 * frame's calls, and puts the caller's sp at the slot minus the LR save
 * offset: where the caller's back chain word is. */
START_TEST(test_scan_above_header_sets_sp_from_the_slot)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc64, true, SW_OS_LINUX);
	uint64_t s0 = STACK_BASE + 0x100;
	uint64_t stale = call_to(&fx, CODE_BASE + 0x200), ra1 = call_to(&fx, CODE_BASE + 0x500);
	put_word(&fx, s0, STACK_BASE + 0x80);   /* not above r1 */
	put_word(&fx, s0 + 16, stale);
	put_word(&fx, s0 + 0x70, ra1);
	set_context(&fx, CODE_BASE + 0x10, s0, 0);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s0 + 0x70 - 16);
	fixture_free(&fx);
}
END_TEST

/* A scanned frame's sp is a guess: a NULL back chain there does not end
 * the walk as a definite end (the walk ends for want of a caller). */
START_TEST(test_null_back_chain_after_scan_is_no_definite_end)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc, true, SW_OS_LINUX);
	uint64_t s0 = STACK_BASE + 0x100;
	uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500);
	put_word(&fx, s0, STACK_BASE + 0x80);
	put_word(&fx, s0 + 0x44, ra1);           /* the caller's sp: s0 + 0x40 */
	put_word(&fx, s0 + 0x40, 0);
	set_context(&fx, CODE_BASE + 0x10, s0, 0);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], R1), s0 + 0x40);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* Chain checks: a back chain that does not climb, or a saved return
 * address that no call precedes, is no caller. */
START_TEST(test_back_chain_checks)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc, true, SW_OS_LINUX);
	uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x140;
	put_word(&fx, s0, s1);
	put_word(&fx, s1 + 4, CODE_BASE + 0x500);  /* no call before it */
	set_context(&fx, CODE_BASE + 0x10, s0, 0);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);

	fixture_init(&fx, &sw_arch_ppc, true, SW_OS_LINUX);
	put_word(&fx, s0, s0);                      /* a loop */
	put_word(&fx, s0 + 4, call_to(&fx, CODE_BASE + 0x500));
	set_context(&fx, CODE_BASE + 0x10, s0, 0);
	st = walk_opt(&fx, NULL, &opt);
	ck_assert_uint_eq(st->nframes, 1);
	fixture_free(&fx);
}
END_TEST

/* Stack words are read in the snapshot's byte order: the same chain
 * written little-endian walks on a little-endian ppc32 snapshot. */
START_TEST(test_back_chain_little_endian_ppc32)
{
	struct fixture fx;
	fixture_init(&fx, &sw_arch_ppc, false, SW_OS_LINUX);
	uint64_t s0 = STACK_BASE + 0x100, s1 = STACK_BASE + 0x140;
	uint64_t ra1 = call_to(&fx, CODE_BASE + 0x500);
	put_word(&fx, s0, s1);
	put_word(&fx, s1, 0);
	put_word(&fx, s1 + 4, ra1);
	set_context(&fx, CODE_BASE + 0x10, s0, ra1);
	const struct sw_stack *st = walk(&fx, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	fixture_free(&fx);
}
END_TEST

/* DWARF registers: r0-r31 = 0-31, lr = 65, ctr = 66; no pc column. */
START_TEST(test_dwarf_register_map)
{
	for (unsigned n = 0; n < 32; n++) {
		ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc, n), (int)n);
		ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc64, n), (int)n);
	}
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc64, 65), LR);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc64, 66), 34);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc, 65), LR);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc, 32), -1);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc, 64), -1);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_ppc, 67), -1);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("ppc");
	TCase *tc = tcase_create("call-check");
	tcase_add_loop_test(tc, test_call_check_matches_objdump_on_real_code, 0,
	                    sizeof ppc_fixtures / sizeof ppc_fixtures[0]);
	tcase_add_test(tc, test_call_check_follows_snapshot_byte_order);
	tcase_add_test(tc, test_call_check_forms);
	suite_add_tcase(s, tc);
	tc = tcase_create("walk");
	tcase_add_test(tc, test_back_chain_ppc32);
	tcase_add_test(tc, test_back_chain_ppc64le);
	tcase_add_test(tc, test_back_chain_darwin_ppc32);
	tcase_add_test(tc, test_cfi_caller);
	tcase_add_test(tc, test_context_lr_of_leaf_without_frame);
	tcase_add_test(tc, test_context_lr_of_leaf_with_frame);
	tcase_add_test(tc, test_context_lr_left_over_is_not_taken);
	tcase_add_test(tc, test_restorer_in_the_lr_slot_is_the_callers_return);
	tcase_add_test(tc, test_context_lr_whose_call_entered_pc_function_is_taken);
	tcase_add_test(tc, test_context_lr_whose_call_tail_branches_into_pc_function_is_taken);
	tcase_add_test(tc, test_context_lr_of_leaf_whose_code_made_a_frame);
	tcase_add_test(tc, test_context_lr_after_bctrl_into_pc_function_is_taken);
	tcase_add_test(tc, test_context_lr_sp_from_every_path_to_pc);
	tcase_add_test(tc, test_context_lr_via_tail_branch_gets_sp_from_the_leaf_code);
	tcase_add_test(tc, test_back_chain_slot_of_own_earlier_call_is_no_caller);
	tcase_add_test(tc, test_scan_above_header_sets_sp_from_the_slot);
	tcase_add_test(tc, test_null_back_chain_after_scan_is_no_definite_end);
	tcase_add_test(tc, test_back_chain_checks);
	tcase_add_test(tc, test_back_chain_little_endian_ppc32);
	tcase_add_test(tc, test_dwarf_register_map);
	suite_add_tcase(s, tc);
	return s;
}
