/* MIPS: the call check and prologue analysis on real compiler output
 * (testdata/code/mips*.txt, checked against objdump and the compiler's
 * own CFI), and the walker on synthetic stacks for every trust path and
 * termination rule, little- and big-endian. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "prologue_fixture.h"
#include "synthetic_snapshot.h"
#include "symbols/breakpad_sym.h"

enum { GP = 28, SP = 29, FP = 30, RA = 31, HI = 32, LO = 33, PC = 34, S0 = 16, S1 = 17 };

static const char *const fixtures[] = {
	"mipsel-o32-O0-fp.txt", "mipsel-o32-O0-nofp.txt", "mipsel-o32-O2-fp.txt",
	"mipsel-o32-O2-nofp.txt", "mipsel-o32-O2-nofp-nouw.txt", "mipsel-o32-nopic-O2-nofp.txt",
	"mipsel-r6-O2-nofp.txt", "mips-o32-O0-fp.txt", "mips-o32-O2-nofp.txt",
	"mips64el-n64-O0-fp.txt", "mips64el-n64-O0-nofp.txt", "mips64el-n64-O2-fp.txt",
	"mips64el-n64-O2-nofp.txt", "mips64el-n32-O2-nofp.txt", "mips64el-n32-O0-fp.txt",
};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])

/* ---- the call check against objdump ---- */

/* Every 4-byte position of every fixture: the decoder says "a call ends
 * here" exactly where objdump put a call's return address (after the
 * delay slot, or right after an R6 compact call). */
START_TEST(test_call_check_matches_objdump_everywhere)
{
	struct pro_fixture f;
	pro_fixture_load(fixtures[_i], &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, false);
	/* Right after the first instruction the word at ra - 8 is not in the
	 * snapshot: the usual call cannot be ruled out (Breakpad's rule). */
	bool known = true;
	ck_assert(f.arch->call_precedes(&pm.walk, f.text_addr + 4, &known));
	ck_assert(!known);
	pf_assert_call_check_matches(&f, &pm, f.text_addr + 8, f.text_addr + f.text_size + 4, 4);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* Breakpad's rule: code that is not in the snapshot cannot be checked. */
START_TEST(test_call_check_without_code_is_unknown_and_true)
{
	struct pro_fixture f;
	pro_fixture_load("mipsel-o32-O2-nofp.txt", &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, false);
	bool known = true;
	ck_assert(f.arch->call_precedes(&pm.walk, 0x10000, &known));
	ck_assert(!known);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* ---- prologue analysis against the compiler's CFI ---- */

/* With the functions' starts from symbols: at every instruction (a
 * context frame stopped there) and every return address (a suspended
 * frame), the CFA, the return address and each saved register the CFI
 * names come out exactly as the CFI says. */
START_TEST(test_prologue_matches_cfi_with_symbols)
{
	ck_assert_uint_gt(pf_assert_prologue_matches_cfi(fixtures[_i], true), 100);
}
END_TEST

/* Without symbols the start is found by searching back from pc. */
START_TEST(test_prologue_matches_cfi_without_symbols)
{
	pf_assert_prologue_matches_cfi(fixtures[_i], false);
}
END_TEST

/* ---- the walker on synthetic stacks ---- */

/* The CFI row in force at pc (the fixture's compiler's: the truth). */
static const struct pf_row *cfi_at(const struct pro_fixture *f, uint64_t pc)
{
	int64_t earlier[SW_MAX_REGS];
	const struct pf_row *row = pf_row_at(f, pf_fde_at(f, pc), pc, earlier);
	ck_assert_ptr_nonnull(row);
	ck_assert_int_eq(row->cfa_reg, SP);
	return row;
}

static int64_t saved_at(const struct pf_row *row, int reg)
{
	for (unsigned k = 0; k < row->nsaved; k++)
		if (row->saved_reg[k] == reg)
			return row->saved_off[k];
	ck_abort_msg("register %d not saved", reg);
	return 0;
}

static const char *const walk_fixtures[] = { "mipsel-o32-O2-nofp.txt", "mips-o32-O2-nofp.txt" };

/* Real code, little- and big-endian: a leaf (ext) stopped at its first
 * instruction returns through the live ra; its caller (nonleaf, at its
 * return address) and that one's caller (entry) are found by decoding
 * their prologues, with s0 restored from its slot; entry's slot holds a
 * NULL return address: the walk ends there. */
START_TEST(test_walk_prologue_leaf_then_frames_then_null_return)
{
	struct pro_fixture f;
	pro_fixture_load(walk_fixtures[_i], &f);
	ck_assert_int_eq(f.big_endian, _i == 1);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, true);
	const struct pf_func *ext = pf_func_named(&f, "ext"), *nonleaf = pf_func_named(&f, "nonleaf"),
	                     *entry = pf_func_named(&f, "entry");
	uint64_t ra1 = pf_call_in(&f, nonleaf), ra2 = pf_call_in(&f, entry);
	const struct pf_row *row1 = cfi_at(&f, ra1), *row2 = cfi_at(&f, ra2);
	uint64_t sp0 = PF_CFA - 0x1000;
	uint64_t cfa1 = sp0 + (uint64_t)row1->cfa_off, cfa2 = cfa1 + (uint64_t)row2->cfa_off;
	pf_put(&pm, cfa1 + (uint64_t)saved_at(row1, RA), ra2, 4);
	pf_put(&pm, cfa1 + (uint64_t)saved_at(row1, S0), 0x5000, 4);
	pf_put(&pm, cfa2 + (uint64_t)saved_at(row2, RA), 0, 4);
	sw_reg_set(&pm.thread.ctx, PC, ext->addr);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, RA, ra1);
	sw_reg_set(&pm.thread.ctx, S0, 0x7777);
	const struct sw_stack *st = pf_walk(&pm, &pm.source);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_str_eq(st->frames[0].function, "ext");
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(st->frames[1].lookup_pc, ra1 - 8); /* the call, before its delay slot */
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp0);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], S0), 0x7777); /* the leaf left it alone */
	ck_assert_str_eq(st->frames[1].function, "nonleaf");
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), cfa1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], S0), 0x5000);
	ck_assert_str_eq(st->frames[2].function, "entry");
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* Symbols of the fixture that know nothing of one function (`hidden`):
 * a static function of a stripped library that has unwind tables for
 * others but no FDE for it (start_thread in Debian's MIPS libc). */
struct hiding_symbols {
	const struct pro_fixture *f;
	const struct pf_func *hidden;
};

static bool hiding_covers(const struct hiding_symbols *h, uint64_t off)
{
	uint64_t a = h->f->text_addr + off;
	return a >= h->hidden->addr && a < h->hidden->addr + h->hidden->size;
}

static bool hiding_lookup(void *self, uint64_t off, struct sw_arena *a, struct sw_sym_info *out)
{
	const struct hiding_symbols *h = self;
	return !hiding_covers(h, off) && pf_lookup((void *)h->f, off, a, out);
}

static bool hiding_has_function(void *self, uint64_t off)
{
	const struct hiding_symbols *h = self;
	return !hiding_covers(h, off) && pf_has_function((void *)h->f, off);
}

static const struct sw_symbols_ops hiding_ops = {
	.lookup = hiding_lookup,
	.has_function = hiding_has_function,
};

static const struct sw_module_symbols *hiding_for_module(void *self, uint32_t m,
                                                         enum sw_symbols_status *st)
{
	(void)m;
	*st = SW_SYMS_LOADED;
	return self;
}

/* A return address read from the slot a decoded prologue stored it in is
 * the caller's even where the module's symbols name no function (the
 * code bytes show the call before it): entry's frame is found, though a
 * scan would refuse the same word. */
START_TEST(test_prologue_slot_return_into_code_no_symbol_covers)
{
	struct pro_fixture f;
	pro_fixture_load("mipsel-o32-O2-nofp.txt", &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, true);
	const struct pf_func *ext = pf_func_named(&f, "ext"), *nonleaf = pf_func_named(&f, "nonleaf"),
	                     *entry = pf_func_named(&f, "entry");
	struct hiding_symbols h = { &f, entry };
	struct sw_module_symbols syms = { &hiding_ops, &h };
	struct sw_symbol_source src = { .self = &syms, .for_module = hiding_for_module };
	uint64_t ra1 = pf_call_in(&f, nonleaf), ra2 = pf_call_in(&f, entry);
	const struct pf_row *row1 = cfi_at(&f, ra1);
	uint64_t sp0 = PF_CFA - 0x1000, cfa1 = sp0 + (uint64_t)row1->cfa_off;
	pf_put(&pm, cfa1 + (uint64_t)saved_at(row1, RA), ra2, 4);
	sw_reg_set(&pm.thread.ctx, PC, ext->addr);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, RA, ra1);
	pm.walk.symbols = &src;
	ck_assert(!sw_walk_is_return_address(&pm.walk, ra2));
	ck_assert(sw_walk_follows_proven_call(&pm.walk, ra2));
	const struct sw_stack *st = pf_walk(&pm, &src);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_str_eq(st->frames[1].function, "nonleaf");
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), cfa1);
	ck_assert_ptr_null(st->frames[2].function);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* A frame suspended at a call (not a live context) in a function that
 * never stores ra cannot be below another frame: no rule. The same code
 * as a context frame (a leaf) returns through ra. */
START_TEST(test_prologue_live_ra_only_for_context_frames)
{
	struct pro_fixture f;
	pro_fixture_load("mipsel-o32-O2-nofp.txt", &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, true);
	const struct pf_func *ext = pf_func_named(&f, "ext");
	uint64_t ra = pf_call_in(&f, pf_func_named(&f, "nonleaf"));
	struct sw_frame callee;
	memset(&callee, 0, sizeof callee);
	callee.pc = callee.lookup_pc = ext->addr + 4;
	callee.function = ext->name;
	callee.function_base = ext->addr;
	sw_reg_set(&callee.regs, PC, callee.pc);
	sw_reg_set(&callee.regs, SP, PF_CFA);
	sw_reg_set(&callee.regs, RA, ra);
	struct sw_step step = { .walk = &pm.walk, .callee = &callee };
	struct sw_caller out;
	callee.trust = SW_TRUST_CONTEXT;
	ck_assert_int_eq(f.arch->caller_by_prologue(&step, &out), SW_UNWIND_OK);
	ck_assert_uint_eq(out.regs.v[PC], ra);
	callee.trust = SW_TRUST_SCAN;
	ck_assert_int_eq(f.arch->caller_by_prologue(&step, &out), SW_UNWIND_NO_RULE);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* STACK CFI as dump_syms writes it for MIPS ($sp, $ra, $s0): the rule
 * resolves our register names, gives the caller (trust cfi) with s0
 * restored, and a `.ra: .undef` rule ends the walk (outermost). */
START_TEST(test_walk_cfi_with_dump_syms_register_names)
{
	struct pro_fixture f;
	pro_fixture_load("mipsel-o32-O2-nofp.txt", &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, false);
	const struct pf_func *nonleaf = pf_func_named(&f, "nonleaf"), *entry = pf_func_named(&f, "entry");
	uint64_t ra1 = pf_call_in(&f, nonleaf), ra2 = pf_call_in(&f, entry);
	char text[1024];
	snprintf(text, sizeof text,
	         "MODULE Linux mips 000000000000000000000000000000000 prog\n"
	         "FUNC %" PRIx64 " %" PRIx64 " 0 nonleaf\n"
	         "FUNC %" PRIx64 " %" PRIx64 " 0 entry\n"
	         "STACK CFI INIT %" PRIx64 " %" PRIx64 " .cfa: $sp 0 + .ra: $ra\n"
	         "STACK CFI %" PRIx64 " .cfa: $sp 32 + .ra: .cfa -4 + ^ $s0: .cfa -8 + ^\n"
	         "STACK CFI INIT %" PRIx64 " %" PRIx64 " .cfa: $sp 40 + .ra: .undef\n",
	         nonleaf->addr - f.text_addr, nonleaf->size, entry->addr - f.text_addr, entry->size,
	         nonleaf->addr - f.text_addr, nonleaf->size, ra1 - 4 - f.text_addr,
	         entry->addr - f.text_addr, entry->size);
	struct sw_err err;
	struct pf_bsym_source bs;
	bs.b = sw_bsym_parse(text, strlen(text), "prog.sym", &err);
	ck_assert_ptr_nonnull(bs.b);
	bs.syms = (struct sw_module_symbols){ &sw_bsym_ops, bs.b };
	bs.source = (struct sw_symbol_source){ .self = &bs, .for_module = pf_bsym_for_module };
	uint64_t sp0 = PF_CFA - 0x100;
	pf_put(&pm, sp0 + 28, ra2, 4);
	pf_put(&pm, sp0 + 24, 0x5000, 4);
	sw_reg_set(&pm.thread.ctx, PC, ra1 - 4);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, 0x1234);
	const struct sw_stack *st = pf_walk(&pm, &bs.source);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(st->frames[1].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp0 + 32);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], S0), 0x5000);
	ck_assert_str_eq(st->frames[1].function, "entry");
	ck_assert_int_eq(st->end, SW_END_OUTERMOST);
	sw_bsym_free(bs.b);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* Breakpad's MIPS scan (stackwalker_mips.cc) where no code is captured
 * (microdumps): a word is a return address only if the word below it is
 * an fp less than 1 KiB above it; on o32 the scan for a frame other than
 * the context one starts past the four argument words; the caller's sp is
 * just above the word and its fp the word below. */
#define LIB 0x70000000u

static void scan_machine(struct pf_machine *pm, struct pro_fixture *f, bool mips64)
{
	pf_machine_init_without_code(pm, f, "scan", mips64 ? &sw_arch_mips64 : &sw_arch_mips, LIB);
}

START_TEST(test_scan_follows_breakpad_mips_rule)
{
	struct pro_fixture f;
	struct pf_machine pm;
	scan_machine(&pm, &f, false);
	uint64_t sp0 = PF_CFA;
	pf_put(&pm, sp0 + 4, 0, 4);              /* fp word: 0 is below: skipped */
	pf_put(&pm, sp0 + 8, LIB + 0x100, 4);
	pf_put(&pm, sp0 + 0x1c, sp0 + 0x40, 4);  /* fp 0x24 bytes above its slot */
	pf_put(&pm, sp0 + 0x20, LIB + 0x200, 4);
	uint64_t sp1 = sp0 + 0x24;
	pf_put(&pm, sp1 + 4, sp1 + 0x40, 4);     /* in the argument words: never seen */
	pf_put(&pm, sp1 + 8, LIB + 0x300, 4);
	pf_put(&pm, sp1 + 0x1c, sp1 + 0x2000, 4);/* fp too far above: skipped */
	pf_put(&pm, sp1 + 0x20, LIB + 0x400, 4);
	pf_put(&pm, sp1 + 0x2c, sp1 + 0x80, 4);
	pf_put(&pm, sp1 + 0x30, LIB + 0x500, 4);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	const struct sw_stack *st = pf_walk(&pm, NULL);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, LIB + 0x200);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], FP), sp0 + 0x40);
	ck_assert_uint_eq(st->frames[1].lookup_pc, LIB + 0x200 - 8);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[2].pc, LIB + 0x500);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp1 + 0x34);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], FP), sp1 + 0x80);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	pf_machine_free(&pm);
}
END_TEST

/* n64 frames have no argument words to skip. */
START_TEST(test_scan_mips64_skips_no_argument_words)
{
	struct pro_fixture f;
	struct pf_machine pm;
	scan_machine(&pm, &f, true);
	uint64_t sp0 = PF_CFA, sp1 = sp0 + 0x20;
	pf_put(&pm, sp0 + 0x10, sp0 + 0x100, 8);
	pf_put(&pm, sp0 + 0x18, LIB + 0x200, 8);
	pf_put(&pm, sp1, sp1 + 0x100, 8);
	pf_put(&pm, sp1 + 8, LIB + 0x300, 8);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	const struct sw_stack *st = pf_walk(&pm, NULL);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, LIB + 0x200);
	ck_assert_uint_eq(st->frames[2].pc, LIB + 0x300);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp1 + 0x10);
	pf_machine_free(&pm);
}
END_TEST

/* Nothing found: the context frame alone, and the walk says why. */
START_TEST(test_walk_without_evidence_ends_with_no_caller_found)
{
	struct pro_fixture f;
	struct pf_machine pm;
	scan_machine(&pm, &f, false);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, PF_CFA);
	sw_reg_set(&pm.thread.ctx, RA, LIB + 0x80); /* unproven: not taken */
	const struct sw_stack *st = pf_walk(&pm, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->frames[0].trust, SW_TRUST_CONTEXT);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	pf_machine_free(&pm);
}
END_TEST

/* ---- where a call goes ---- */

/* Calls and a non-PIC PLT entry as GNU as and ld 2.40 (mipsel-linux-gnu,
 * `.option pic0`; BALC with -mips32r6) lay them out linked at 0x10000;
 * each comment is objdump's reading. The app is module 0 (0x10000,
 * 4 KiB), libc module 1 (0x40000). */
static void call_fixture(struct fixture *fx)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "calls", .cpu = SW_CPU_MIPS, .os = SW_OS_LINUX, .word_size = 4,
		.code = { 0x10000, 0x1000 }, .lib = { 0x40000, 0x1000 },
		.stack = { 0x7ff00000, 0x1000 }, .fill = 0, .fill_size = 4, /* nop */
		.thread_id = 1, .nmodules = 2,
		.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "app" },
		             { .base = 0x40000, .size = 0x1000, .code_file = "libc.so.6" } },
	});
	static const struct { uint64_t at; uint32_t insn; } code[] = {
		{ 0x10100, 0x0c0040c0u },   /* jal 10300 */
		{ 0x10108, 0x0411007du },   /* bal 10300 */
		{ 0x10110, 0x0490009bu },   /* bltzal a0, 10380 */
		{ 0x10118, 0x0320f809u },   /* jalr t9 */
		{ 0x10120, 0x0c004080u },   /* jal 10200 <plt> */
		{ 0x10200, 0x3c0f0001u },   /* plt: lui t7, 0x1 */
		{ 0x10204, 0x8df90f00u },   /* lw t9, 3840(t7): slot 10f00 */
		{ 0x10208, 0x03200008u },   /* jr t9 */
		{ 0x1020c, 0x25f80f00u },   /* addiu t8, t7, 3840 */
		{ 0x10400, 0xe800007fu },   /* R6: balc 10600 */
	};
	for (size_t i = 0; i < sizeof code / sizeof code[0]; i++)
		syn_put_code(fx, code[i].at, code[i].insn, 4);
	syn_put_code(fx, 0x10f00, 0x40100, 4);  /* GOT: bound to libc */
}

/* JAL, BAL and the other REGIMM links, and R6's BALC name their targets;
 * JALR does not; a PLT entry leads where its GOT slot points. */
START_TEST(test_call_target_decodes_direct_calls_and_plt)
{
	struct fixture fx;
	call_fixture(&fx);
	sw_snapshot_finish(&fx.snap);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_mips, .address_mask = ~0ull };
	static const uint64_t calls[][2] = {
		{ 0x10108, 0x10300 }, { 0x10110, 0x10300 }, { 0x10118, 0x10380 },
		{ 0x10128, 0x40100 }, { 0x10404, 0x10600 },
	};
	uint64_t target;
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		ck_assert_msg(sw_arch_mips.call_target(&w, calls[i][0], &target), "ra 0x%llx",
		              (unsigned long long)calls[i][0]);
		ck_assert_uint_eq(target, calls[i][1]);
	}
	ck_assert(!sw_arch_mips.call_target(&w, 0x10120, &target));  /* jalr t9 */
	fixture_free(&fx);
}
END_TEST

/* Breakpad's MIPS scan with our rule on top: above a frame in libc, a
 * word after a direct call into the app's own code (what ld.so's calls of
 * its own functions leave on a qemu-user main thread's stack) is passed
 * over; the call through the app's PLT is libc's caller. */
START_TEST(test_scan_refuses_a_call_into_another_module)
{
	struct fixture fx;
	call_fixture(&fx);
	uint64_t sp = 0x7ff00100;
	put_u32(&fx, sp + 0x4, sp + 0x40);   /* fp word */
	put_u32(&fx, sp + 0x8, 0x10118);     /* bltzal 10380: the app's */
	put_u32(&fx, sp + 0xc, sp + 0x40);
	put_u32(&fx, sp + 0x10, 0x10128);    /* jal plt: libc */
	sw_reg_set(&fx.thread.ctx, PC, 0x40010);
	sw_reg_set(&fx.thread.ctx, SP, sp);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_mips, NULL, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, 0x10128);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp + 0x14);
	fixture_free(&fx);
}
END_TEST

/* ---- a function's start past an early return ---- */

/* Two functions of the zoo's mips64el seed 5600 (n64, -O1, static, PIC),
 * as GCC 12 laid them out: f4 returns early in its middle (`jr ra` with
 * `daddiu sp, sp, 48` in its delay slot) and makes its recursive call
 * after it, then branches back to the epilogue; f7 returns early too, and
 * after it stores to its own frame and calls a function that never
 * returns. Before them, another function's `jr ra; nop`. */
static const uint32_t zoo5600_f4[] = {
	0x67bdffd0u, 0xffbf0028u, 0xffbc0020u, 0xffb10018u, 0xffb00010u, 0x3c1c000cu, 0x0399e02du,
	0x679cb734u, 0x00808825u, 0x00a08025u, 0xdf828068u, 0x8c420000u, 0x00401825u, 0x28420200u,
	0x10400005u, 0x000320b8u, 0xdf828070u, 0x0044102du, 0x24040004u, 0xac440000u, 0x24630001u,
	0xdf828068u, 0xac430000u, 0xafb00000u, 0xdf9980d8u, 0x0411ff5fu, 0x02002025u, 0x02028021u,
	0x8fa30000u, 0x1e200011u, 0x00708021u, 0xdf828080u, 0xdc590028u, 0x26050001u, 0x0320f809u,
	0x00002025u, 0xdf848068u, 0x8c830000u, 0x2463ffffu, 0xac830000u, 0x02021021u, 0xdfbf0028u,
	0xdfbc0020u, 0xdfb10018u, 0xdfb00010u, 0x03e00008u, 0x67bd0030u, 0x26050001u, 0xdf9980a0u,
	0x0411ffceu, 0x2624ffffu, 0xdf848068u, 0x8c830000u, 0x2463ffffu, 0xac830000u, 0x1000fff1u,
	0x24420001u,
};
static const uint32_t zoo5600_f7[] = {
	0x67bdffd0u, 0xffbf0028u, 0xffbc0020u, 0xffb10018u, 0xffb00010u, 0x3c1c000cu, 0x0399e02du,
	0x679cb5e0u, 0xdf828068u, 0x8c420000u, 0x00401825u, 0x28420200u, 0x10400005u, 0x000330b8u,
	0xdf828070u, 0x0046102du, 0x24060007u, 0xac460000u, 0x24630001u, 0xdf828068u, 0xac430000u,
	0x8c900000u, 0x8ca20000u, 0x02028023u, 0xdf828040u, 0x8c439c60u, 0x24630001u, 0x1c60000cu,
	0xac439c60u, 0xdf838068u, 0x8c620000u, 0x2442ffffu, 0xac620000u, 0x02001025u, 0xdfbf0028u,
	0xdfbc0020u, 0xdfb10018u, 0xdfb00010u, 0x03e00008u, 0x67bd0030u, 0xafb00000u, 0xdf9980e8u,
	0x0411ff21u, 0x02002025u, 0x02028821u, 0xdf9980f0u, 0x0411ff33u, 0x02202025u, 0x02228821u,
	0x8fa50000u, 0x00b12821u, 0x24a50001u, 0xdf9980f8u, 0x0411ffaeu, 0x00002025u,
};

/* Seed 24's f7 (n64, -O2): its early return's code after it only calls a
 * function that never returns, reached by a conditional branch before
 * the return (`blez t0`). */
static const uint32_t zoo24_f7[] = {
	0x67bdff90u, 0xffbc0020u, 0x3c1c000cu, 0x0399e02du, 0x679cb630u, 0xffb00018u, 0xdf908068u,
	0xffbf0028u, 0x8e020000u, 0x00806025u, 0x28430200u, 0xffa50038u, 0xffa60040u, 0xffa70048u,
	0xffa80050u, 0xffa90058u, 0xffaa0060u, 0x10600006u, 0xffab0068u, 0xdf838070u, 0x000220b8u,
	0x0064182du, 0x24040007u, 0xac640000u, 0x8fa40038u, 0xdf998098u, 0x24420001u, 0xae020000u,
	0x67a20038u, 0x0411ffd4u, 0xffa20000u, 0x00821021u, 0x1980000du, 0x24450001u, 0xdf9980a0u,
	0x0411ffdcu, 0x2584ffffu, 0x8e030000u, 0xdfbf0028u, 0x2463ffffu, 0xdfbc0020u, 0xae030000u,
	0x24420001u, 0xdfb00018u, 0x03e00008u, 0x67bd0070u, 0xdf9980a8u, 0x0411fe00u, 0x00002025u,
};

enum { F4 = 0x10100, F7 = 0x10200, NORET = 0x10400, F7B = 0x10600 };

static void early_return_fixture(struct fixture *fx)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "early-return", .cpu = SW_CPU_MIPS64, .os = SW_OS_LINUX, .word_size = 8,
		.code = { 0x10000, 0x1000 }, .stack = { 0x7ff00000, 0x1000 }, .fill = 0,
		.fill_size = 4, /* nop */
		.thread_id = 1, .nmodules = 1,
		.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "prog" } },
	});
	syn_put_code(fx, F4 - 8, 0x03e00008u, 4); /* jr ra; nop: the end before f4 */
	for (size_t i = 0; i < sizeof zoo5600_f4 / sizeof zoo5600_f4[0]; i++)
		syn_put_code(fx, F4 + 4 * i, zoo5600_f4[i], 4);
	for (size_t i = 0; i < sizeof zoo5600_f7 / sizeof zoo5600_f7[0]; i++)
		syn_put_code(fx, F7 + 4 * i, zoo5600_f7[i], 4);
	for (size_t i = 0; i < sizeof zoo24_f7 / sizeof zoo24_f7[0]; i++)
		syn_put_code(fx, F7B + 4 * i, zoo24_f7[i], 4);
	/* A function ending `jr ra; daddiu sp, sp, 48`, then one that never
	 * returns: no frame, no ra saved, a call (GCC -O2's noreturn code). */
	syn_put_code(fx, NORET - 8, 0x03e00008u, 4);
	syn_put_code(fx, NORET - 4, 0x67bd0030u, 4);
	syn_put_code(fx, NORET, 0xdf9980f8u, 4);     /* ld t9, -32520(gp) */
	syn_put_code(fx, NORET + 4, 0x0320f809u, 4); /* jalr t9 */
	syn_put_code(fx, 0x10880, 0x0320f809u, 4);   /* the caller's jalr t9 */
	sw_snapshot_finish(&fx->snap);
}

/* The caller of a frame suspended at the call before `ra` (found by an
 * earlier step, not a live context), by prologue analysis, no symbols. */
static enum sw_unwind_status suspended_caller(struct fixture *fx, uint64_t ra, uint64_t sp,
                                              struct sw_caller *out)
{
	struct sw_walk w = { .snap = &fx->snap, .arch = &sw_arch_mips64, .address_mask = ~0ull };
	struct sw_frame callee;
	memset(&callee, 0, sizeof callee);
	callee.pc = ra;
	callee.lookup_pc = ra - 8;
	callee.trust = SW_TRUST_PROLOGUE;
	sw_reg_set(&callee.regs, PC, ra);
	sw_reg_set(&callee.regs, SP, sp);
	struct sw_step step = { .walk = &w, .callee = &callee };
	return sw_arch_mips64.caller_by_prologue(&step, out);
}

/* Without symbols the start is sought back from the call: the early
 * return's `daddiu sp, sp, 48` is met first, but the code after it calls
 * before saving ra and branches back before it (f4), or uses a frame it
 * did not allocate (f7), or is where a conditional branch before the
 * return goes (seed 24's f7): the middle of a function. The start is the
 * allocation of the 48 bytes the early return released, and the frame's
 * caller is read from where that prologue saved ra. A function that
 * never returns, after another's end, is not given that one's frame. */
START_TEST(test_prologue_start_is_not_after_an_early_return)
{
	struct fixture fx;
	early_return_fixture(&fx);
	const uint64_t sp = 0x7ff00100;
	put_u64(&fx, sp + 40, 0x10888);
	struct sw_caller out;
	static const uint64_t ras[][2] = { { F4 + 0xcc, 48 }, { F7 + 0xdc, 48 }, { F7B + 0xc4, 112 } };
	for (size_t i = 0; i < 3; i++) {
		memset(&out, 0, sizeof out);
		ck_assert_msg(suspended_caller(&fx, ras[i][0], sp, &out) == SW_UNWIND_OK, "ra 0x%llx",
		              (unsigned long long)ras[i][0]);
		ck_assert_uint_eq(out.regs.v[PC], 0x10888);
		ck_assert_uint_eq(out.regs.v[SP], sp + ras[i][1]);
	}
	ck_assert_int_eq(suspended_caller(&fx, NORET + 12, sp, &out), SW_UNWIND_NO_RULE);
	fixture_free(&fx);
}
END_TEST

/* Zoo mips64el 1100 stripped: f2 ends in a call that does not return to
 * the leaf f3 laid out right after its delay slot (`jal f3; nop`), where
 * the crash is. Going back from pc, no end of a function came before f2's
 * allocation, and f2's frame was taken for pc's: f2 was skipped. A call
 * to an address past its own delay slot, up to pc, enters another
 * function there: pc's function starts at the target, a leaf, ra live;
 * f2's prologue then gives f2's caller. `bal` to the instruction after
 * its delay slot reads the pc (hand-written PIC code): no entry, and the
 * frame is f2's. */
START_TEST(test_prologue_start_is_a_called_entry)
{
	for (int bal = 0; bal < 2; bal++) {
		struct fixture fx;
		syn_fixture_init(&fx, &(struct syn_config){
			.name = "noreturn-call", .cpu = SW_CPU_MIPS64, .os = SW_OS_LINUX, .word_size = 8,
			.code = { 0x10000, 0x1000 }, .stack = { 0x7ff00000, 0x1000 }, .fill = 0,
			.fill_size = 4, /* nop */
			.thread_id = 1, .nmodules = 1,
			.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "prog" } },
		});
		syn_put_code(&fx, 0x106f8, 0x03e00008u, 4);  /* jr ra; nop: the end before f2 */
		syn_put_code(&fx, 0x10700, 0x67bdffe0u, 4);  /* f2: daddiu sp, sp, -32 */
		syn_put_code(&fx, 0x10704, 0xffbf0018u, 4);  /* sd ra, 24(sp) */
		syn_put_code(&fx, 0x10720, bal ? 0x04110001u   /* bal 0x10728; nop */
		                               : 0x0c0041cau, 4); /* jal 0x10728 (f3); nop */
		syn_put_code(&fx, 0x10878, 0x0c0041c0u, 4);  /* main: jal 0x10700 (f2); nop */
		sw_snapshot_finish(&fx.snap);
		const uint64_t sp = 0x7ff00100;
		put_u64(&fx, sp + 24, 0x10880);
		sw_reg_set(&fx.thread.ctx, PC, 0x10738);
		sw_reg_set(&fx.thread.ctx, SP, sp);
		sw_reg_set(&fx.thread.ctx, RA, 0x10728);
		struct sw_walk_options opt = { .no_scan = true };
		const struct sw_stack *st = syn_walk(&fx, &sw_arch_mips64, NULL, &opt);
		if (bal) {
			ck_assert_uint_ge(st->nframes, 2);
			ck_assert_uint_eq(st->frames[1].pc, 0x10880);
		} else {
			ck_assert_uint_ge(st->nframes, 3);
			ck_assert_uint_eq(st->frames[1].pc, 0x10728);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
			ck_assert_uint_eq(st->frames[2].pc, 0x10880);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp + 32);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* A leaf that never returns (it ends `b .`), called by its caller's last
 * instruction (`bal f6`): ra is the next function's entry, and the
 * function before f6 ends in a `b` back into itself, which no start
 * search takes for an end. The live ra's direct call names f6's start,
 * below pc, from which the code runs on to pc: f6 starts there, a leaf,
 * and its caller is ra (zoo mips64el 1923 stripped: the scan took a stale
 * libc return). A call whose target's code meets a jump on the way to
 * pc entered another function: no start from it. */
START_TEST(test_prologue_start_is_the_live_calls_target_below_pc)
{
	for (int far = 0; far < 2; far++) {
		struct fixture fx;
		syn_fixture_init(&fx, &(struct syn_config){
			.name = "noreturn-leaf", .cpu = SW_CPU_MIPS64, .os = SW_OS_LINUX, .word_size = 8,
			.code = { 0x10000, 0x1000 }, .stack = { 0x7ff00000, 0x1000 }, .fill = 0,
			.fill_size = 4, /* nop */
			.thread_id = 1, .nmodules = 1,
			.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "prog" } },
		});
		syn_put_code(&fx, 0x10600, 0x1000ffdfu, 4);  /* b 0x10580; nop: f2's end */
		syn_put_code(&fx, 0x10608, 0x3c06000cu, 4);  /* f6: lui a2, 0xc */
		syn_put_code(&fx, 0x10610, 0x10400005u, 4);  /* beqz v0, 0x10628 */
		syn_put_code(&fx, 0x10624, 0x1000ffffu, 4);  /* b .: never returns */
		syn_put_code(&fx, 0x10800, 0x67bdffe0u, 4);  /* f5: daddiu sp, sp, -32 */
		syn_put_code(&fx, 0x10804, 0xffbf0018u, 4);  /* sd ra, 24(sp) */
		/* f5's last instruction: bal f6 (or bal 0x105f0, before f2's b) */
		syn_put_code(&fx, 0x10810, far ? 0x0411ff77u : 0x0411ff7du, 4);
		syn_put_code(&fx, 0x108f8, 0x0c004200u, 4);  /* f4: jal 0x10800 (f5) */
		sw_snapshot_finish(&fx.snap);
		const uint64_t sp = 0x7ff00100;
		put_u64(&fx, sp + 24, 0x10900);
		sw_reg_set(&fx.thread.ctx, PC, 0x10620);
		sw_reg_set(&fx.thread.ctx, SP, sp);
		sw_reg_set(&fx.thread.ctx, RA, 0x10818);
		struct sw_walk_options opt = { .no_scan = true };
		const struct sw_stack *st = syn_walk(&fx, &sw_arch_mips64, NULL, &opt);
		if (far) {
			ck_assert_uint_eq(st->nframes, 1);
		} else {
			ck_assert_uint_ge(st->nframes, 3);
			ck_assert_uint_eq(st->frames[1].pc, 0x10818);
			ck_assert_uint_eq(st->frames[1].lookup_pc, 0x10810);
			ck_assert_uint_eq(st->frames[2].pc, 0x10900);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* ---- a frame at the first instruction of the function a call entered ---- */

/* The app (module 0, 0x10000, its code in the snapshot: nops) calls into
 * libc (module 1, 0x40000), whose code the walk does not have (no file,
 * not captured: issue 30's "a library the symbol path lacks"). The
 * context is stopped at ENTRY in libc, ra after the app's call at CALL. */
enum { APP = 0x10000, LIBC = 0x40000, ENTRY = 0x40100, CALL = 0x10118, T9 = 25, T0 = 8 };

static void entry_fixture(struct fixture *fx, bool mips64, uint32_t call)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "entry", .cpu = mips64 ? SW_CPU_MIPS64 : SW_CPU_MIPS, .os = SW_OS_LINUX,
		.word_size = mips64 ? 8 : 4, .code = { APP, 0x1000 },
		.stack = { 0x7ff00000, 0x1000 }, .fill = 0, .fill_size = 4, /* nop */
		.thread_id = 1, .nmodules = 2,
		.modules = { { .base = APP, .size = 0x1000, .code_file = "app" },
		             { .base = LIBC, .size = 0x1000, .code_file = "libc.so.6" } },
	});
	syn_put_code(fx, CALL, call, 4);
	sw_reg_set(&fx->thread.ctx, PC, ENTRY);
	sw_reg_set(&fx->thread.ctx, SP, 0x7ff00100);
	sw_reg_set(&fx->thread.ctx, RA, CALL + 8);
	sw_reg_set(&fx->thread.ctx, S0, 0x5050);
	sw_reg_set(&fx->thread.ctx, T9, ENTRY);
}

static const struct sw_arch *entry_arch(bool mips64)
{
	return mips64 ? &sw_arch_mips64 : &sw_arch_mips;
}

/* `jalr t9` (PIC's call, SYSV ABI MIPS supplement) before ra and t9 still
 * at pc: nothing of the function has run, its caller is ra with sp and the
 * callee-saved registers as they are, though nothing covers pc (o32 and
 * n64: issue 30, "today mips64 stops at frame 0"). */
START_TEST(test_entry_frame_returns_through_ra_after_jalr_t9)
{
	struct fixture fx;
	entry_fixture(&fx, _i == 1, 0x0320f809u);   /* jalr t9 */
	const struct sw_stack *st = syn_walk(&fx, entry_arch(_i == 1), NULL, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, CALL + 8);
	ck_assert_uint_eq(st->frames[1].lookup_pc, CALL);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), 0x7ff00100);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], S0), 0x5050);
	fixture_free(&fx);
}
END_TEST

/* A function that has run an instruction has moved pc past t9: its sp
 * and ra may be anything by now, and without its code nothing says. The
 * walk ends at the context frame (no scan word either). */
START_TEST(test_entry_frame_needs_t9_at_pc)
{
	struct fixture fx;
	entry_fixture(&fx, _i == 1, 0x0320f809u);
	sw_reg_set(&fx.thread.ctx, PC, ENTRY + 4);
	const struct sw_stack *st = syn_walk(&fx, entry_arch(_i == 1), NULL, NULL);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);
}
END_TEST

/* JALR that links another register than ra (`jalr t0, t9`) left no
 * return address in ra; a direct call (JAL) proves the entry by its
 * target, which must be pc. */
START_TEST(test_entry_frame_call_must_link_ra_and_reach_pc)
{
	static const struct {
		uint32_t call;
		bool found;
	} cases[] = {
		{ 0x03204009u, false },                          /* jalr t0, t9 */
		{ 0x0c000000u | (ENTRY >> 2), true },            /* jal ENTRY */
		{ 0x0c000000u | ((ENTRY + 0x10) >> 2), false },  /* jal elsewhere */
		{ 0x0300f809u, false },                          /* jalr t8: t8 is not pc */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct fixture fx;
		entry_fixture(&fx, _i == 1, cases[k].call);
		const struct sw_stack *st = syn_walk(&fx, entry_arch(_i == 1), NULL, NULL);
		ck_assert_msg((st->nframes >= 2) == cases[k].found, "call %08x: %u frames",
		              cases[k].call, st->nframes);
		if (cases[k].found)
			ck_assert_uint_eq(st->frames[1].pc, CALL + 8);
		fixture_free(&fx);
	}
}
END_TEST

/* Only a live frame's registers are those of the moment it was stopped:
 * a frame found by a scan at the same pc proves nothing by its t9. */
START_TEST(test_entry_rule_only_for_live_frames)
{
	struct fixture fx;
	entry_fixture(&fx, false, 0x0320f809u);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_mips, .thread = &fx.thread };
	sw_snapshot_finish(&fx.snap);
	struct sw_frame callee;
	memset(&callee, 0, sizeof callee);
	callee.pc = callee.lookup_pc = ENTRY;
	callee.regs = fx.thread.ctx;
	callee.module = callee.unloaded_module = -1;
	struct sw_step step = { .walk = &w, .callee = &callee };
	struct sw_caller out;
	callee.trust = SW_TRUST_CONTEXT;
	ck_assert_int_eq(sw_arch_mips.caller_by_prologue(&step, &out), SW_UNWIND_OK);
	ck_assert_uint_eq(out.regs.v[PC], CALL + 8);
	callee.trust = SW_TRUST_SCAN;
	ck_assert_int_eq(sw_arch_mips.caller_by_prologue(&step, &out), SW_UNWIND_NO_RULE);
	fixture_free(&fx);
}
END_TEST

/* ---- tables ---- */

/* DWARF numbers (MIPS psABI): 0-31 general registers, 64 hi, 65 lo; the
 * floating-point registers and the pc are not tracked. */
START_TEST(test_dwarf_register_map)
{
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_mips, 29), SP);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_mips, 31), RA);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_mips64, 64), HI);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_mips64, 65), LO);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_mips, 32), -1);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_mips, 66), -1);
}
END_TEST

/* Every register name Breakpad's dump_syms writes for MIPS
 * (DwarfCFIToModule::RegisterNames::MIPS) that we track resolves. */
START_TEST(test_dump_syms_register_names_resolve)
{
	static const char *const names[] = {
		"$zero", "$at", "$v0", "$v1", "$a0", "$a1", "$a2", "$a3", "$t0", "$t1", "$t2", "$t3",
		"$t4", "$t5", "$t6", "$t7", "$s0", "$s1", "$s2", "$s3", "$s4", "$s5", "$s6", "$s7",
		"$t8", "$t9", "$k0", "$k1", "$gp", "$sp", "$fp", "$ra",
	};
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(sw_arch_reg_index(&sw_arch_mips, names[i], strlen(names[i])), i);
	ck_assert_int_eq(sw_arch_reg_index(&sw_arch_mips64, "$pc", 3), PC);
	ck_assert_int_eq(sw_arch_reg_index(&sw_arch_mips64, "$hi", 3), HI);
	ck_assert_int_eq(sw_arch_reg_index(&sw_arch_mips64, "$lo", 3), LO);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("mips");
	TCase *tc = tcase_create("code");
	tcase_add_loop_test(tc, test_call_check_matches_objdump_everywhere, 0, NFIXTURES);
	tcase_add_test(tc, test_call_check_without_code_is_unknown_and_true);
	tcase_add_loop_test(tc, test_prologue_matches_cfi_with_symbols, 0, NFIXTURES);
	tcase_add_loop_test(tc, test_prologue_matches_cfi_without_symbols, 0, NFIXTURES);
	suite_add_tcase(s, tc);
	TCase *walk = tcase_create("walk");
	tcase_add_loop_test(walk, test_walk_prologue_leaf_then_frames_then_null_return, 0, 2);
	tcase_add_test(walk, test_prologue_live_ra_only_for_context_frames);
	tcase_add_test(walk, test_prologue_start_is_not_after_an_early_return);
	tcase_add_test(walk, test_prologue_start_is_a_called_entry);
	tcase_add_test(walk, test_prologue_start_is_the_live_calls_target_below_pc);
	tcase_add_test(walk, test_prologue_slot_return_into_code_no_symbol_covers);
	tcase_add_test(walk, test_walk_cfi_with_dump_syms_register_names);
	tcase_add_test(walk, test_scan_follows_breakpad_mips_rule);
	tcase_add_test(walk, test_scan_mips64_skips_no_argument_words);
	tcase_add_test(walk, test_walk_without_evidence_ends_with_no_caller_found);
	tcase_add_test(walk, test_call_target_decodes_direct_calls_and_plt);
	tcase_add_test(walk, test_scan_refuses_a_call_into_another_module);
	tcase_add_loop_test(walk, test_entry_frame_returns_through_ra_after_jalr_t9, 0, 2);
	tcase_add_loop_test(walk, test_entry_frame_needs_t9_at_pc, 0, 2);
	tcase_add_loop_test(walk, test_entry_frame_call_must_link_ra_and_reach_pc, 0, 2);
	tcase_add_test(walk, test_entry_rule_only_for_live_frames);
	tcase_add_test(walk, test_dwarf_register_map);
	tcase_add_test(walk, test_dump_syms_register_names_resolve);
	suite_add_tcase(s, walk);
	return s;
}
