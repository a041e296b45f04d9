/* RISC-V: the call check, prologue analysis and the s0 frame-pointer chain
 * on real compiler output (testdata/code/riscv*.txt: RV32 and RV64, with
 * and without the C extension, checked against objdump and the compiler's
 * own CFI), and the walker on synthetic stacks for every trust path and
 * termination rule. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "prologue_fixture.h"
#include "synthetic_snapshot.h"
#include "symbols/breakpad_sym.h"

enum { RA = 1, SP = 2, S0 = 8, S1 = 9, PC = 32 };

static const char *const fixtures[] = {
	"riscv64-O0-fp.txt", "riscv64-O0-nofp.txt", "riscv64-O2-fp.txt", "riscv64-O2-nofp.txt",
	"riscv64-O2-nofp-nouw.txt", "riscv64-noc-O2-fp.txt", "riscv32-O0-fp.txt",
	"riscv32-O0-nofp.txt", "riscv32-O2-fp.txt", "riscv32-O2-nofp.txt",
};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])

/* ---- the call check against objdump ---- */

static bool is_boundary(const struct pro_fixture *f, uint64_t x)
{
	if (x == f->text_addr || pf_is_return_address(f, x))
		return true;
	for (size_t i = 0; i < f->ninsns; i++)
		if (f->insns[i] == x)
			return true;
	return false;
}

/* With the functions' starts from symbols the check follows instruction
 * lengths from there: at every 2-byte position of the text (from the
 * second word on: before it, 4 bytes cannot be read) it says "a call ends
 * here" exactly where objdump put a call's return address. */
START_TEST(test_call_check_matches_objdump_with_symbols)
{
	struct pro_fixture f;
	pro_fixture_load(fixtures[_i], &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, true);
	pf_assert_call_check_matches(&f, &pm, f.text_addr + 4, f.text_addr + f.text_size, 2);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* Without symbols every real return address is accepted; an instruction
 * boundary that is none is rejected unless the four bytes before it
 * straddle an instruction start (the upper half of a 32-bit instruction
 * and a 16-bit one can look like a jal or jalr): counted, and shown to be
 * that case. */
START_TEST(test_call_check_without_symbols)
{
	struct pro_fixture f;
	pro_fixture_load(fixtures[_i], &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, false);
	for (size_t i = 0; i < f.ncalls; i++) {
		bool known = false;
		ck_assert_msg(f.arch->call_precedes(&pm.walk, f.calls[i], &known) && known,
		              "%s: the call returning to 0x%" PRIx64 " was not seen", f.name, f.calls[i]);
	}
	size_t straddling = 0, boundaries = 0;
	for (size_t i = 0; i < f.ninsns; i++) {
		uint64_t x = f.insns[i];
		if (x - f.text_addr < 4 || pf_is_return_address(&f, x))
			continue;
		boundaries++;
		bool known = false;
		bool call = f.arch->call_precedes(&pm.walk, x, &known);
		ck_assert(known);
		if (call) {
			ck_assert_msg(!is_boundary(&f, x - 4), "%s: 0x%" PRIx64 " taken for a return address",
			              f.name, x);
			straddling++;
		}
	}
	ck_assert_uint_lt(straddling * 50, boundaries); /* rare: under 2% */
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* ---- prologue analysis against the compiler's CFI ---- */

START_TEST(test_prologue_matches_cfi_with_symbols)
{
	ck_assert_uint_gt(pf_assert_prologue_matches_cfi(fixtures[_i], true), 100);
}
END_TEST

/* Without symbols the start is found among candidates decoded forwards:
 * each must land exactly on pc through 16- and 32-bit instructions. */
START_TEST(test_prologue_matches_cfi_without_symbols)
{
	pf_assert_prologue_matches_cfi(fixtures[_i], false);
}
END_TEST

/* ---- the frame-pointer chain on real code ---- */

/* At every return address of every fixture: the frame record at s0 is
 * followed exactly where the compiler's CFI says s0 is the CFA with ra and
 * the caller's s0 saved below it (psABI frame pointer convention), and
 * refused everywhere else, even with a plausible record at s0. */
START_TEST(test_frame_pointer_follows_records_the_code_sets_up)
{
	struct pro_fixture f;
	pro_fixture_load(fixtures[_i % NFIXTURES], &f);
	bool with_symbols = _i < (int)NFIXTURES;
	struct pf_machine pm;
	pf_machine_init(&pm, &f, with_symbols);
	const uint64_t ws = f.arch->word_size, cfa = PF_CFA;
	const uint64_t caller_fp = cfa + 0x100;
	uint64_t marker = 0;
	size_t followed = 0;
	for (size_t i = 0; i < f.ncalls && !marker; i++)
		if (pf_func_at(&f, f.calls[i]) && strcmp(pf_func_at(&f, f.calls[i])->name, "entry") == 0)
			marker = f.calls[i];
	ck_assert(marker != 0);
	for (size_t i = 0; i < f.ncalls; i++) {
		uint64_t ra = f.calls[i];
		const struct pf_func *fn = pf_func_at(&f, f.arch->call_site(ra));
		const struct pf_fde *fde = pf_fde_at(&f, ra - 1);
		int64_t earlier[SW_MAX_REGS];
		const struct pf_row *row = pf_row_at(&f, fde, ra, earlier);
		bool ra_slot = false, s0_slot = false;
		for (unsigned k = 0; k < row->nsaved; k++) {
			ra_slot |= row->saved_reg[k] == RA && row->saved_off[k] == -(int64_t)ws;
			s0_slot |= row->saved_reg[k] == S0 && row->saved_off[k] == -2 * (int64_t)ws;
		}
		bool record = row->cfa_reg == S0 && row->cfa_off == 0 && ra_slot && s0_slot;
		memset(pm.stack, 0, PF_STACK_SIZE);
		pf_put(&pm, cfa - ws, marker, (unsigned)ws);
		pf_put(&pm, cfa - 2 * ws, caller_fp, (unsigned)ws);
		struct sw_frame callee;
		memset(&callee, 0, sizeof callee);
		callee.pc = ra;
		callee.lookup_pc = f.arch->call_site(ra);
		callee.trust = SW_TRUST_FRAME_POINTER;
		if (with_symbols) {
			callee.function = fn->name;
			callee.function_base = fn->addr;
		}
		sw_reg_set(&callee.regs, PC, ra);
		sw_reg_set(&callee.regs, S0, cfa);
		sw_reg_set(&callee.regs, SP, cfa - 0x1000);
		struct sw_step step = { .walk = &pm.walk, .callee = &callee };
		struct sw_caller out;
		enum sw_unwind_status st = f.arch->caller_by_frame_pointer(&step, &out);
		if (!record) {
			ck_assert_msg(st == SW_UNWIND_NO_RULE, "%s: %s at 0x%" PRIx64 ": record taken", f.name,
			              fn->name, ra);
			continue;
		}
		ck_assert_msg(st == SW_UNWIND_OK, "%s: %s at 0x%" PRIx64 ": status %d", f.name, fn->name,
		              ra, st);
		ck_assert_uint_eq(out.regs.v[PC], marker);
		ck_assert_uint_eq(out.regs.v[SP], cfa);
		ck_assert_uint_eq(out.regs.v[S0], caller_fp);
		followed++;
	}
	/* Built with frame pointers most calls are in records; without, only
	 * those of functions that need one anyway (alloca, VLAs). */
	if (strstr(f.name, "-fp"))
		ck_assert_uint_gt(followed, f.ncalls / 2);
	else
		ck_assert_uint_lt(followed, f.ncalls / 2);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* ---- the walker on synthetic stacks ---- */

/* Real RV64 code built with frame pointers: the leaf ext (no record of its
 * own) returns through the live ra (prologue analysis: the code shows no
 * frame); nonleaf and entry are found through their s0 records, which the
 * code vouches for; entry's record holds a NULL return address: the end. */
START_TEST(test_walk_frame_pointer_chain_on_real_code)
{
	struct pro_fixture f;
	pro_fixture_load("riscv64-O2-fp.txt", &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, true);
	const struct pf_func *ext = pf_func_named(&f, "ext"), *nonleaf = pf_func_named(&f, "nonleaf"),
	                     *entry = pf_func_named(&f, "entry");
	uint64_t ra1 = pf_call_in(&f, nonleaf), ra2 = pf_call_in(&f, entry);
	uint64_t fp1 = PF_CFA - 0x200, fp2 = PF_CFA - 0x100;
	pf_put(&pm, fp1 - 8, ra2, 8);
	pf_put(&pm, fp1 - 16, fp2, 8);
	pf_put(&pm, fp2 - 8, 0, 8);
	pf_put(&pm, fp2 - 16, 0, 8);
	sw_reg_set(&pm.thread.ctx, PC, ext->addr);
	sw_reg_set(&pm.thread.ctx, SP, fp1 - 32);
	sw_reg_set(&pm.thread.ctx, S0, fp1);
	sw_reg_set(&pm.thread.ctx, RA, ra1);
	const struct sw_stack *st = pf_walk(&pm, &pm.source);
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, ra1);
	ck_assert_uint_eq(st->frames[1].lookup_pc, ra1 - 2); /* inside the call */
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp1 - 32);
	ck_assert_str_eq(st->frames[1].function, "nonleaf");
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[2].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], S0), fp2);
	ck_assert_str_eq(st->frames[2].function, "entry");
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* Real code without frame pointers: the callers come from prologue
 * analysis, with s0 and s1 restored from their slots. */
START_TEST(test_walk_prologue_on_real_code)
{
	struct pro_fixture f;
	pro_fixture_load(_i ? "riscv32-O2-nofp.txt" : "riscv64-O2-nofp.txt", &f);
	const unsigned ws = f.arch->word_size;
	struct pf_machine pm;
	pf_machine_init(&pm, &f, true);
	const struct pf_func *nonleaf = pf_func_named(&f, "nonleaf"), *entry = pf_func_named(&f, "entry");
	uint64_t ra1 = pf_call_in(&f, nonleaf), ra2 = pf_call_in(&f, entry);
	int64_t earlier[SW_MAX_REGS];
	const struct pf_row *row = pf_row_at(&f, pf_fde_at(&f, ra1), ra1, earlier);
	ck_assert_int_eq(row->cfa_reg, SP);
	uint64_t sp0 = PF_CFA - 0x400, cfa = sp0 + (uint64_t)row->cfa_off;
	ck_assert(earlier[RA] && earlier[S0]);
	pf_put(&pm, cfa + (uint64_t)earlier[RA], ra2, ws);
	pf_put(&pm, cfa + (uint64_t)earlier[S0], 0x5000, ws);
	sw_reg_set(&pm.thread.ctx, PC, ra1);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, 0x1234);
	sw_reg_set(&pm.thread.ctx, RA, 0x2000); /* after the call: stale */
	struct sw_walk_options opt = { .no_scan = true };
	ck_assert(sw_walk_snapshot(&pm.snap, f.arch, &pm.source, &opt, &pm.arena, &pm.result));
	const struct sw_stack *st = &pm.result.stacks[0];
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(st->frames[1].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), cfa);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], S0), 0x5000);
	ck_assert_str_eq(st->frames[1].function, "entry");
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* Code the snapshot does not hold (a library): the chain's checks alone
 * decide. A record above sp with a return address in a module is
 * followed; the next one, misaligned, is refused, and the scan takes
 * over; a NULL return address in an intact record met on the chain ends
 * the walk. */
#define LIB 0x40000000u

static void lib_machine(struct pf_machine *pm, struct pro_fixture *f, bool rv64)
{
	pf_machine_init_without_code(pm, f, "lib", rv64 ? &sw_arch_riscv64 : &sw_arch_riscv32, LIB);
}

START_TEST(test_frame_pointer_chain_without_code)
{
	struct pro_fixture f;
	struct pf_machine pm;
	lib_machine(&pm, &f, _i == 0);
	const unsigned ws = f.arch->word_size;
	uint64_t sp0 = PF_CFA - 0x1000, fp1 = sp0 + 0x40, fp2 = fp1 + 0x80;
	pf_put(&pm, fp1 - ws, LIB + 0x100, ws);
	pf_put(&pm, fp1 - 2 * ws, fp2, ws);
	pf_put(&pm, fp2 - ws, 0, ws);
	pf_put(&pm, fp2 - 2 * ws, 0, ws);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, fp1);
	sw_reg_set(&pm.thread.ctx, RA, LIB + 0x100); /* the record holds it: not a leaf */
	const struct sw_stack *st = pf_walk(&pm, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[1].pc, LIB + 0x100);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp1);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], S0), fp2);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	pf_machine_free(&pm);
}
END_TEST

/* Zoo riscv64 1021, the capture alone: f6 and f5, built without frame
 * pointers, lie between f7's records and f4's, so f6's s0 is f4's and
 * its record skipped f5 and f4. Frame 1 (found by a record, no code) made
 * a call, so it saved its return address in its own frame, between its sp
 * and the record at its s0: where a word there may be a return address,
 * the record is not proven the frame's own (no rule; here the scan takes
 * that word). Where none may be, the record is believed. */
START_TEST(test_record_above_a_frame_holding_a_return_address_is_not_its_own)
{
	for (int saved = 0; saved < 2; saved++) {
		struct pro_fixture f;
		struct pf_machine pm;
		lib_machine(&pm, &f, true);
		const unsigned ws = f.arch->word_size;
		uint64_t sp0 = PF_CFA - 0x1000, fp1 = sp0 + 0x40, fp2 = fp1 + 0x80, fp3 = fp2 + 0x40;
		pf_put(&pm, fp1 - ws, LIB + 0x100, ws);
		pf_put(&pm, fp1 - 2 * ws, fp2, ws);
		pf_put(&pm, fp1 + 0x18, saved ? LIB + 0x180 : 0x1234, ws);
		pf_put(&pm, fp2 - ws, LIB + 0x200, ws);
		pf_put(&pm, fp2 - 2 * ws, fp3, ws);
		pf_put(&pm, fp3 - ws, 0, ws);
		pf_put(&pm, fp3 - 2 * ws, 0, ws);
		sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
		sw_reg_set(&pm.thread.ctx, SP, sp0);
		sw_reg_set(&pm.thread.ctx, S0, fp1);
		sw_reg_set(&pm.thread.ctx, RA, LIB + 0x100);
		const struct sw_stack *st = pf_walk(&pm, NULL);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, LIB + 0x100);
		if (!saved) {
			ck_assert_uint_eq(st->nframes, 3);
			ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
			ck_assert_uint_eq(st->frames[2].pc, LIB + 0x200);
		} else {
			/* Not the record's caller right above frame 1: the
			 * scan's word first, if anything. */
			if (st->nframes > 2)
				ck_assert_uint_eq(st->frames[2].pc, LIB + 0x180);
		}
		pf_machine_free(&pm);
	}
}
END_TEST

/* A recursion's frames: frame 2 stopped at the same return address as
 * frame 1, whose record found it, is the same function at the same call
 * site, which kept a record there: its record is its own, whatever its
 * body holds (a word that may be a return address: stale, or a saved
 * register holding a function's address). Zoo riscv64 178, the capture
 * alone: without it the walk ended after 3,446 of its 7,827 frames, at
 * the first recursive frame whose body held such a word. */
START_TEST(test_record_of_a_recursion_at_one_call_site_is_its_own)
{
	struct pro_fixture f;
	struct pf_machine pm;
	lib_machine(&pm, &f, true);
	const unsigned ws = f.arch->word_size;
	uint64_t sp0 = PF_CFA - 0x1000, fp1 = sp0 + 0x40, fp2 = fp1 + 0x80, fp3 = fp2 + 0x80;
	uint64_t fp4 = fp3 + 0x40;
	pf_put(&pm, fp1 - ws, LIB + 0x100, ws);
	pf_put(&pm, fp1 - 2 * ws, fp2, ws);
	pf_put(&pm, fp2 - ws, LIB + 0x100, ws);
	pf_put(&pm, fp2 - 2 * ws, fp3, ws);
	pf_put(&pm, fp2 + 0x18, LIB + 0x180, ws);   /* in frame 2's body */
	pf_put(&pm, fp3 - ws, LIB + 0x200, ws);
	pf_put(&pm, fp3 - 2 * ws, fp4, ws);
	pf_put(&pm, fp4 - ws, 0, ws);
	pf_put(&pm, fp4 - 2 * ws, 0, ws);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, fp1);
	sw_reg_set(&pm.thread.ctx, RA, LIB + 0x100);
	const struct sw_stack *st = pf_walk(&pm, NULL);
	ck_assert_uint_eq(st->nframes, 4);
	ck_assert_uint_eq(st->frames[1].pc, LIB + 0x100);
	ck_assert_uint_eq(st->frames[2].pc, LIB + 0x100);
	ck_assert_int_eq(st->frames[3].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(st->frames[3].pc, LIB + 0x200);
	ck_assert_int_eq(st->end, SW_END_NULL_RETURN);
	pf_machine_free(&pm);
}
END_TEST

START_TEST(test_misaligned_or_low_frame_pointer_falls_through_to_scan)
{
	struct pro_fixture f;
	struct pf_machine pm;
	lib_machine(&pm, &f, true);
	uint64_t sp0 = PF_CFA - 0x1000;
	/* A record below sp (s0 used as a scratch register): refused. */
	pf_put(&pm, sp0 - 0x40 - 8, LIB + 0x100, 8);
	pf_put(&pm, sp0 + 0x18, LIB + 0x300, 8); /* what a scan finds */
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, sp0 - 0x40);
	const struct sw_stack *st = pf_walk(&pm, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, LIB + 0x300);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp0 + 0x20);
	/* Misaligned s0: refused too. */
	pf_machine_free(&pm);
	lib_machine(&pm, &f, true);
	pf_put(&pm, sp0 + 0x40 - 8 + 3, LIB + 0x100, 8);
	pf_put(&pm, sp0 + 0x18, LIB + 0x300, 8);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, sp0 + 0x43);
	st = pf_walk(&pm, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	pf_machine_free(&pm);
}
END_TEST

/* FUNC records (no STACK CFI) for the library of lib_machine: symbols
 * that bound functions, no rules. */
static void lib_funcs(struct pf_bsym_source *bs, const char *text)
{
	struct sw_err err;
	bs->b = sw_bsym_parse(text, strlen(text), "libc.so.sym", &err);
	ck_assert_ptr_nonnull(bs->b);
	bs->syms = (struct sw_module_symbols){ &sw_bsym_ops, bs->b };
	bs->source = (struct sw_symbol_source){ .self = bs, .for_module = pf_bsym_for_module };
}

/* A context frame whose record at s0 does not hold its ra (a leaf that
 * set up none): without its code, ra is its return address when the
 * symbols put ra's call in another function; sp and s0 stay, and the
 * caller's record continues the chain. */
START_TEST(test_context_leaf_without_code_returns_through_ra)
{
	struct pro_fixture f;
	struct pf_machine pm;
	lib_machine(&pm, &f, true);
	struct pf_bsym_source bs;
	lib_funcs(&bs, "MODULE Linux riscv64 000000000000000000000000000000000 libc.so\n"
	               "FUNC 0 100 0 leaf\n"
	               "FUNC 100 200 0 caller\n"
	               "FUNC 300 200 0 outer\n");
	uint64_t sp0 = PF_CFA - 0x1000, fp = sp0 + 0x40;
	pf_put(&pm, fp - 8, LIB + 0x400, 8);
	pf_put(&pm, fp - 16, 0, 8);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, fp);
	sw_reg_set(&pm.thread.ctx, RA, LIB + 0x200);
	struct sw_walk_options opt = { .no_scan = true };
	ck_assert(sw_walk_snapshot(&pm.snap, f.arch, &bs.source, &opt, &pm.arena, &pm.result));
	const struct sw_stack *st = &pm.result.stacks[0];
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, LIB + 0x200);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp0);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], S0), fp);
	ck_assert_uint_eq(st->frames[2].pc, LIB + 0x400);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), fp);
	sw_bsym_free(bs.b);
	pf_machine_free(&pm);
}
END_TEST

/* The zoo's riscv64 seeds 5801, 5803, 5804 walked from the capture alone:
 * pc a few bytes past the return of the frame's own earlier call, ra still
 * holding that return, the record at s0 the frame's own. Without code and
 * without symbols nothing says whether ra is a leaf's return address or
 * left over, nor whether the record is the frame's or its caller's: the
 * walk ends at frame 0 rather than repeat it (ra) or perhaps skip its
 * caller (the record). Symbols that put ra's call in pc's function prove
 * it left over and the record the frame's own. */
START_TEST(test_context_ra_without_code_or_bounds_proves_no_caller)
{
	struct pro_fixture f;
	struct pf_machine pm;
	lib_machine(&pm, &f, true);
	uint64_t sp0 = PF_CFA - 0x1000, fp = sp0 + 0x40;
	pf_put(&pm, fp - 8, LIB + 0x400, 8);
	pf_put(&pm, fp - 16, 0, 8);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10a);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	sw_reg_set(&pm.thread.ctx, S0, fp);
	sw_reg_set(&pm.thread.ctx, RA, LIB + 0x104);
	struct sw_walk_options opt = { .no_scan = true };
	ck_assert(sw_walk_snapshot(&pm.snap, f.arch, NULL, &opt, &pm.arena, &pm.result));
	const struct sw_stack *st = &pm.result.stacks[0];
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);

	struct pf_bsym_source bs;
	lib_funcs(&bs, "MODULE Linux riscv64 000000000000000000000000000000000 libc.so\n"
	               "FUNC 100 100 0 crashing\n"
	               "FUNC 300 200 0 caller\n");
	ck_assert(sw_walk_snapshot(&pm.snap, f.arch, &bs.source, &opt, &pm.arena, &pm.result));
	st = &pm.result.stacks[0];
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, LIB + 0x400);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), fp);
	sw_bsym_free(bs.b);
	pf_machine_free(&pm);
}
END_TEST

/* STACK CFI from a .sym (dump_syms names RISC-V registers without '$'). */
START_TEST(test_walk_cfi_from_breakpad_symbols)
{
	struct pro_fixture f;
	pro_fixture_load("riscv64-O2-nofp.txt", &f);
	struct pf_machine pm;
	pf_machine_init(&pm, &f, false);
	const struct pf_func *nonleaf = pf_func_named(&f, "nonleaf"), *entry = pf_func_named(&f, "entry");
	uint64_t ra1 = pf_call_in(&f, nonleaf), ra2 = pf_call_in(&f, entry);
	char text[1024];
	snprintf(text, sizeof text,
	         "MODULE Linux riscv64 000000000000000000000000000000000 prog\n"
	         "FUNC %" PRIx64 " %" PRIx64 " 0 nonleaf\n"
	         "FUNC %" PRIx64 " %" PRIx64 " 0 entry\n"
	         "STACK CFI INIT %" PRIx64 " %" PRIx64 " .cfa: sp 32 + .ra: .cfa -8 + ^ s1: .cfa -16 + ^\n"
	         "STACK CFI INIT %" PRIx64 " %" PRIx64 " .cfa: sp 48 + .ra: .undef\n",
	         nonleaf->addr - f.text_addr, nonleaf->size, entry->addr - f.text_addr, entry->size,
	         nonleaf->addr - f.text_addr, nonleaf->size, entry->addr - f.text_addr, entry->size);
	struct sw_err err;
	struct pf_bsym_source bs;
	bs.b = sw_bsym_parse(text, strlen(text), "prog.sym", &err);
	ck_assert_ptr_nonnull(bs.b);
	bs.syms = (struct sw_module_symbols){ &sw_bsym_ops, bs.b };
	bs.source = (struct sw_symbol_source){ .self = &bs, .for_module = pf_bsym_for_module };
	uint64_t sp0 = PF_CFA - 0x100;
	pf_put(&pm, sp0 + 24, ra2, 8);
	pf_put(&pm, sp0 + 16, 0x5000, 8);
	sw_reg_set(&pm.thread.ctx, PC, ra1);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	const struct sw_stack *st = pf_walk(&pm, &bs.source);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CFI);
	ck_assert_uint_eq(st->frames[1].pc, ra2);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp0 + 32);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], S1), 0x5000);
	ck_assert_int_eq(st->end, SW_END_OUTERMOST);
	sw_bsym_free(bs.b);
	pf_machine_free(&pm);
	pro_fixture_free(&f);
}
END_TEST

/* Without code or records, the walker's validated scan. */
START_TEST(test_scan_when_nothing_else_applies)
{
	struct pro_fixture f;
	struct pf_machine pm;
	lib_machine(&pm, &f, false);
	uint64_t sp0 = PF_CFA - 0x1000;
	pf_put(&pm, sp0 + 8, 0x1234, 4);
	pf_put(&pm, sp0 + 12, LIB + 0x300, 4);
	sw_reg_set(&pm.thread.ctx, PC, LIB + 0x10);
	sw_reg_set(&pm.thread.ctx, SP, sp0);
	const struct sw_stack *st = pf_walk(&pm, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp0 + 16);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	pf_machine_free(&pm);
}
END_TEST

/* A walk keeps to its budget of code reads: 4 KiB of nops before pc hold
 * nothing that looks like a function's start, and the search without
 * symbols reads at every halfword of them. A step whose reads ran out is
 * void: no frame from it, not even the one the scan finds with the whole
 * budget, and the walk ends truncated by the budget. */
START_TEST(test_spent_code_budget_voids_the_step_and_truncates)
{
	static uint8_t code[0x2000];
	for (size_t i = 0; i < sizeof code; i += 4)
		memcpy(code + i, (const uint8_t[]){ 0x13, 0, 0, 0 }, 4); /* addi x0, x0, 0 */
	struct pro_fixture f;
	struct pf_machine pm;
	for (int budget = 0; budget < 2; budget++) {
		lib_machine(&pm, &f, true);
		/* The code is captured; where the scan's candidate returns to is not. */
		pm.regions[1] = (struct sw_mem_region){ LIB, sizeof code, code };
		pm.snap.nmem = 2;
		sw_snapshot_finish(&pm.snap);
		uint64_t sp0 = PF_CFA - 0x1000;
		pf_put(&pm, sp0 + 0x18, LIB + 0x8000, 8);
		sw_reg_set(&pm.thread.ctx, PC, LIB + 0x1800);
		sw_reg_set(&pm.thread.ctx, SP, sp0);
		/* 4 frames of budget: 128 reads, against ~10,000 for the search. */
		struct sw_walk_options opt = { .frame_budget = budget ? 0 : 4 };
		ck_assert(sw_walk_snapshot(&pm.snap, f.arch, NULL, &opt, &pm.arena, &pm.result));
		const struct sw_stack *st = &pm.result.stacks[0];
		if (budget) {
			ck_assert_uint_eq(st->nframes, 2);
			ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
			ck_assert_uint_eq(st->frames[1].pc, LIB + 0x8000);
			ck_assert(!st->truncated);
		} else {
			ck_assert_uint_eq(st->nframes, 1);
			ck_assert_int_eq(st->end, SW_END_FRAME_BUDGET);
			ck_assert(st->truncated);
		}
		pf_machine_free(&pm);
	}
}
END_TEST

/* ---- hand-encoded calls, tables ---- */

/* C.JAL exists on RV32 only: RV64 gives its encoding to C.ADDIW. */
START_TEST(test_c_jal_is_a_call_on_rv32_only)
{
	struct pro_fixture f;
	struct pf_machine pm;
	uint8_t code[16] = { 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x05, 0x20 }; /* c.nop x3, c.jal */
	for (int rv64 = 0; rv64 < 2; rv64++) {
		lib_machine(&pm, &f, rv64);
		pm.regions[1] = pm.regions[0];
		pm.regions[0] = (struct sw_mem_region){ LIB, sizeof code, code };
		pm.snap.nmem = 2;
		sw_snapshot_finish(&pm.snap);
		bool known;
		ck_assert_int_eq(f.arch->call_precedes(&pm.walk, LIB + 8, &known), !rv64);
		ck_assert(known);
		pf_machine_free(&pm);
	}
}
END_TEST

START_TEST(test_dwarf_register_map_and_names)
{
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_riscv64, 1), RA);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_riscv64, 2), SP);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_riscv32, 8), S0);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_riscv32, 31), 31);
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_riscv64, 32), -1); /* f0 */
	ck_assert_int_eq(sw_arch_reg_index(&sw_arch_riscv64, "pc", 2), PC);
	ck_assert_int_eq(sw_arch_reg_index(&sw_arch_riscv64, "s11", 3), 27);
	ck_assert_int_eq(sw_arch_reg_index(&sw_arch_riscv64, "t6", 2), 31);
}
END_TEST

/* ---- scanning up from code outside every module ---- */

/* Module 0's functions (module-relative): A [0x100, 0x180), B [0x200,
 * 0x280), C [0x300, 0x380). */
static bool abc_lookup(void *self, uint64_t off, struct sw_arena *a, struct sw_sym_info *out)
{
	(void)self;
	(void)a;
	static const char *const names[] = { "A", "B", "C" };
	if (off < 0x100 || off >= 0x380 || (off & 0xff) >= 0x80)
		return false;
	memset(out, 0, sizeof *out);
	out->function = names[off / 0x100 - 1];
	out->function_offset = off & ~(uint64_t)0xff;
	out->function_size = 0x80;
	return true;
}

static bool abc_has_function(void *self, uint64_t off)
{
	struct sw_sym_info info;
	return abc_lookup(self, off, NULL, &info);
}

static const struct sw_symbols_ops abc_ops = {
	.lookup = abc_lookup,
	.has_function = abc_has_function,
};

/* An ESP32's mask ROM calls back into the firmware and the firmware
 * called the ROM: scanning up from a ROM frame (no module), the first word
 * after a call, 0x42000214, follows `jal ra, A`, a direct call into a
 * function of the module: stale (A's frame, had it led to the ROM, would
 * lie nearer). The next, 0x42000318, follows `auipc ra; jalr ra` to the
 * ROM's 0x40000040: the caller. */
START_TEST(test_scan_from_rom_refuses_a_call_into_the_module)
{
	struct fixture fx;
	syn_fixture_init(&fx, &(struct syn_config){
		.name = "rom.dmp", .cpu = SW_CPU_RISCV32, .os = SW_OS_NONE, .word_size = 4,
		.code = { 0x42000000, 0x1000 }, .stack = { 0x3fc80000, 0x100 },
		.fill = 0x0001, .fill_size = 2, /* c.nop */
		.thread_id = 0x3fc8ec30, .nmodules = 1,
		.modules = { { .base = 0x42000000, .size = 0x1000, .code_file = "fw.elf" } },
	});
	syn_put_code(&fx, 0x42000210, 0xef1ff0ef, 4);      /* jal ra, A (0x42000100) */
	syn_put_code(&fx, 0x42000310, 0xfe000097, 4);      /* auipc ra, -0x20000 */
	syn_put_code(&fx, 0x42000314, 0xd30080e7, 4);      /* jalr ra, -0x2d0(ra): 0x40000040 */
	put_u32(&fx, 0x3fc80000, 0x42000214);
	put_u32(&fx, 0x3fc80004, 0x42000318);
	sw_reg_set(&fx.thread.ctx, PC, 0x40048000);
	sw_reg_set(&fx.thread.ctx, SP, 0x3fc80000);
	sw_reg_set(&fx.thread.ctx, RA, 0);
	fx.snap.scans_need_code = true;
	struct sw_module_symbols ms = { &abc_ops, NULL };
	struct sw_symbol_source src = { .self = &ms, .for_module = syn_module0_symbols };
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_riscv32, &src, NULL);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, 0x42000318);
	ck_assert_str_eq(st->frames[1].function, "C");
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), 0x3fc80008);
	fixture_free(&fx);
}
END_TEST

/* A J-type jal ra to `to` placed at `at` (ISA manual, "JAL"). */
static uint32_t jal_ra(uint64_t at, uint64_t to)
{
	uint32_t off = (uint32_t)(to - at);
	return (off >> 20 & 1) << 31 | (off >> 1 & 0x3ff) << 21 | (off >> 11 & 1) << 20 |
	       (off >> 12 & 0xff) << 12 | RA << 7 | 0x6f;
}

/* GCC places a block after the epilogue, reached by a branch before it
 * (f5 of zoo riscv64 25, stripped: a recursive call after `ret`; a ret
 * that no branch seen leads past ends the function: riscv64 1034). Without
 * symbols the start nearest the
 * call, right after that ret, is no function's: the call there would have
 * lost ra, which nothing saved. The prologue before it is, and its frame
 * holds on through the epilogue: ra from its slot, sp + 32. */
START_TEST(test_prologue_without_symbols_decodes_past_its_own_epilogue)
{
	struct fixture fx;
	syn_fixture_init(&fx, &(struct syn_config){
		.name = "after-epilogue", .cpu = SW_CPU_RISCV64, .os = SW_OS_LINUX, .word_size = 8,
		.code = { 0x10000, 0x1000 }, .stack = { 0x7ff00000, 0x100 },
		.fill = 0x00000013, .fill_size = 4, .thread_id = 1, .nmodules = 1,
		.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "app" } },
	});
	static const struct { uint64_t at; uint32_t insn; } code[] = {
		{ 0x10100, 0xfe010113u },   /* addi sp, sp, -32 */
		{ 0x10104, 0x00113c23u },   /* sd ra, 24(sp) */
		{ 0x10108, 0x00050863u },   /* beqz a0, 0x10118: to the block after ret */
		{ 0x1010c, 0x01813083u },   /* ld ra, 24(sp) */
		{ 0x10110, 0x02010113u },   /* addi sp, sp, 32 */
		{ 0x10114, 0x00008067u },   /* ret */
		{ 0x103fc, 0x00008067u },   /* ret: the leaf at 0x10400 starts after it */
	};
	for (size_t i = 0; i < sizeof code / sizeof code[0]; i++)
		syn_put_code(&fx, code[i].at, code[i].insn, 4);
	syn_put_code(&fx, 0x10118, jal_ra(0x10118, 0x10400), 4);  /* the block after ret */
	syn_put_code(&fx, 0x107fc, jal_ra(0x107fc, 0x10100), 4);  /* the caller's call */
	uint64_t sp = 0x7ff00040;
	put_u64(&fx, sp + 24, 0x10800);
	sw_reg_set(&fx.thread.ctx, PC, 0x10404);
	sw_reg_set(&fx.thread.ctx, SP, sp);
	sw_reg_set(&fx.thread.ctx, RA, 0x1011c);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_riscv64, NULL, NULL);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, 0x1011c);
	ck_assert_uint_eq(st->frames[2].pc, 0x10800);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_PROLOGUE);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp + 32);
	fixture_free(&fx);
}
END_TEST

/* Zoo riscv64 1100 stripped: f2 ends in a call that does not return to
 * the leaf f3 laid out right after it (`jal f3`, f3 at the call's own
 * return address), where the crash is. Decoded from f2's allocation, the
 * code runs on to pc with ra saved, and f2's frame was taken for pc's:
 * f2 was skipped. A call to an address from its own return up to pc
 * enters another function there (a function never calls into its own
 * body past the call): pc's function begins at the target, a leaf, ra
 * live; f2's prologue then gives f2's caller. */
START_TEST(test_prologue_without_symbols_starts_at_a_called_entry)
{
	struct fixture fx;
	syn_fixture_init(&fx, &(struct syn_config){
		.name = "noreturn-call", .cpu = SW_CPU_RISCV64, .os = SW_OS_LINUX, .word_size = 8,
		.code = { 0x10000, 0x1000 }, .stack = { 0x7ff00000, 0x100 },
		.fill = 0x00000013, .fill_size = 4, .thread_id = 1, .nmodules = 1,
		.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "app" } },
	});
	syn_put_code(&fx, 0x100fc, 0x00008067u, 4);                /* ret */
	syn_put_code(&fx, 0x10100, 0xfe010113u, 4);                /* f2: addi sp, sp, -32 */
	syn_put_code(&fx, 0x10104, 0x00113c23u, 4);                /* sd ra, 24(sp) */
	syn_put_code(&fx, 0x1011c, jal_ra(0x1011c, 0x10120), 4);   /* jal f3 */
	syn_put_code(&fx, 0x107fc, jal_ra(0x107fc, 0x10100), 4);   /* main: call f2 */
	uint64_t sp = 0x7ff00040;
	put_u64(&fx, sp + 24, 0x10800);
	sw_reg_set(&fx.thread.ctx, PC, 0x10130);
	sw_reg_set(&fx.thread.ctx, SP, sp);
	sw_reg_set(&fx.thread.ctx, RA, 0x10120);
	sw_reg_set(&fx.thread.ctx, S0, 0x2);
	struct sw_walk_options opt = { .no_scan = true };
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_riscv64, NULL, &opt);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, 0x10120);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
	ck_assert_uint_eq(st->frames[2].pc, 0x10800);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp + 32);
	fixture_free(&fx);
}
END_TEST

/* Zoo riscv64 1034 stripped: main calls f2, which tail-jumps down to the
 * leaf f3 (`j f3`), where the crash is. Before f3 lies frame_dummy, whose
 * allocation decoded on past its tail jump made a wrong start for f3: a
 * candidate's function ends at a jump below its start past which no
 * branch leads, and pc's function begins right after it (prologue
 * analysis: a leaf, ra live). With no candidate at all, the live ra is
 * still the leaf's return address: its call entered pc's function
 * through f2's tail jump. */
START_TEST(test_live_ra_whose_call_tail_jumps_into_pc_function_is_taken)
{
	for (int dummy = 0; dummy < 2; dummy++) {
		struct fixture fx;
		syn_fixture_init(&fx, &(struct syn_config){
			.name = "tail-jump", .cpu = SW_CPU_RISCV64, .os = SW_OS_LINUX, .word_size = 8,
			.code = { 0x10000, 0x1000 }, .stack = { 0x7ff00000, 0x100 },
			.fill = 0x00000013, .fill_size = 4, .thread_id = 1, .nmodules = 1,
			.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "app" } },
		});
		static const struct { uint64_t at; uint32_t insn; } code[] = {
			{ 0x100fc, 0x00008067u },   /* ret */
			{ 0x10100, 0xff010113u },   /* frame_dummy: addi sp, sp, -16 */
			{ 0x10104, 0x00113423u },   /* sd ra, 8(sp) */
			{ 0x10108, 0x00813083u },   /* ld ra, 8(sp) */
			{ 0x1010c, 0x01010113u },   /* addi sp, sp, 16 */
			{ 0x10110, 0xef1ff06fu },   /* j 0x10000 (a tail call) */
		};
		for (size_t i = 0; dummy && i < sizeof code / sizeof code[0]; i++)
			syn_put_code(&fx, code[i].at, code[i].insn, 4);
		syn_put_code(&fx, 0x10200, 0xf15ff06fu, 4);               /* f2: j 0x10114 (f3) */
		syn_put_code(&fx, 0x10300, jal_ra(0x10300, 0x10200), 4); /* main: call f2 */
		uint64_t sp = 0x7ff00040;
		sw_reg_set(&fx.thread.ctx, PC, 0x10124);
		sw_reg_set(&fx.thread.ctx, SP, sp);
		sw_reg_set(&fx.thread.ctx, RA, 0x10304);
		sw_reg_set(&fx.thread.ctx, S0, 0x2);
		struct sw_walk_options opt = { .no_scan = true };
		const struct sw_stack *st = syn_walk(&fx, &sw_arch_riscv64, NULL, &opt);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, 0x10304);
		ck_assert_int_eq(st->frames[1].trust, dummy ? SW_TRUST_PROLOGUE : SW_TRUST_FRAME_POINTER);
		ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], SP), sp);
		fixture_free(&fx);
	}
}
END_TEST

/* Calls and a PLT as GNU as and ld 2.40 (riscv64-linux-gnu, no
 * relaxation) lay them out linked at 0x10000; each comment is objdump's
 * reading. The app is module 0 (0x10000, 4 KiB), libc module 1. */
static void put_plt_calls(struct fixture *fx)
{
	static const struct { uint64_t at; uint32_t insn; } code[] = {
		{ 0x10100, 0x100000efu },   /* jal 10200 <plt> */
		{ 0x10104, 0x00000097u },   /* auipc ra, 0x0 */
		{ 0x10108, 0x11c080e7u },   /* jalr 284(ra): 10220 <plt2> */
		{ 0x1010c, 0x1f4000efu },   /* jal 10300 <fn> */
		{ 0x10200, 0x00001e17u },   /* plt: auipc t3, 0x1 */
		{ 0x10204, 0xd00e3e03u },   /* ld t3, -768(t3): slot 10f00 */
		{ 0x10208, 0x000e0367u },   /* jalr t1, t3 */
		{ 0x1020c, 0x00000013u },   /* nop */
		{ 0x10220, 0x00001e17u },   /* plt2: auipc t3, 0x1 */
		{ 0x10224, 0x0e0e3e03u },   /* ld t3, 224(t3): slot 11300, not captured */
		{ 0x10228, 0x000e0367u },   /* jalr t1, t3 */
		{ 0x1022c, 0x00000013u },   /* nop */
	};
	for (size_t i = 0; i < sizeof code / sizeof code[0]; i++)
		syn_put_code(fx, code[i].at, code[i].insn, 4);
}

/* A call through a PLT entry leads where the entry's GOT slot points when
 * the snapshot holds the slot and it is bound to another module; else it
 * names no target (an unbound slot points back at the PLT's head). */
START_TEST(test_call_target_follows_plt_entries)
{
	struct fixture fx;
	syn_fixture_init(&fx, &(struct syn_config){
		.name = "plt", .cpu = SW_CPU_RISCV64, .os = SW_OS_LINUX, .word_size = 8,
		.code = { 0x10000, 0x1000 }, .lib = { 0x40000, 0x1000 },
		.stack = { 0x7ff00000, 0x100 }, .fill = 0x00000013, .fill_size = 4,
		.thread_id = 1, .nmodules = 2,
		.modules = { { .base = 0x10000, .size = 0x1000, .code_file = "app" },
		             { .base = 0x40000, .size = 0x1000, .code_file = "libc.so.6" } },
	});
	put_plt_calls(&fx);
	syn_put_code(&fx, 0x10f00, 0x40100, 8);
	sw_snapshot_finish(&fx.snap);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_riscv64, .address_mask = ~0ull };
	uint64_t target;
	ck_assert(sw_arch_riscv64.call_target(&w, 0x10104, &target));
	ck_assert_uint_eq(target, 0x40100);
	ck_assert(!sw_arch_riscv64.call_target(&w, 0x1010c, &target));  /* slot not captured */
	ck_assert(sw_arch_riscv64.call_target(&w, 0x10110, &target));   /* not a stub */
	ck_assert_uint_eq(target, 0x10300);
	syn_put_code(&fx, 0x10f00, 0x10000, 8);                          /* unbound */
	ck_assert(!sw_arch_riscv64.call_target(&w, 0x10104, &target));
	fixture_free(&fx);
}
END_TEST


/* ---- firmware trap frames (arch/riscv_trap.c) ----
 *
 * A firmware image at 0x80000000 with symbols from a .sym: the C hook
 * (CFI: its frame is 16 bytes, ra at cfa - w) called from a trap-entry
 * routine, which interrupted read_sensor. The stack area holds the ISR
 * stack low, the interrupted task's stack higher, and the kernel's words
 * at its top. */
enum {
	FW = 0x80000000u, RAM = 0x20000000u,
	INTERRUPTED = FW + 0x110,          /* the trapping instruction */
	CALLER_RA = FW + 0x54,             /* read_sensor's caller, after a call */
	HOOK_RA = FW + 0x244,              /* in the entry routine, after the call */
	ISR_SP = RAM + 0x100,              /* frame 0's sp: the C hook on the ISR stack */
	TASK_TOP = RAM + 0x800,            /* pxTopOfStack: the saved context */
	CURRENT_TCB = RAM + 0xf00,         /* &pxCurrentTCB */
	TCB = RAM + 0xf10,
	GP = RAM + 0xf10,                  /* the routine loads pxCurrentTCB at -16(gp) */
};

struct trap_fixture {
	struct fixture fx;
	struct sw_bsym *b;
	struct pf_bsym_source bs;
	struct sw_named_reg extra[1];
	char text[1024];             /* the .sym: the parse indexes it in place */
};

/* The image, frame 0 in the C hook and the .sym naming `entry`. */
static void trap_fixture_init(struct trap_fixture *t, bool rv64, const char *entry)
{
	const unsigned ws = rv64 ? 8 : 4;
	syn_fixture_init(&t->fx, &(struct syn_config){
		.name = "trap.snap", .cpu = rv64 ? SW_CPU_RISCV64 : SW_CPU_RISCV32, .os = SW_OS_NONE,
		.word_size = ws, .code = { FW, 0x1000 }, .stack = { RAM, 0x1000 },
		.fill = 0x0001, .fill_size = 2, /* c.nop */
		.thread_id = 1, .nmodules = 1,
		.modules = { { .base = FW, .size = 0x1000, .code_file = "fw.elf" } },
	});
	syn_put_code(&t->fx, FW + 0x50, 0x0c0000ef, 4); /* jal ra, read_sensor */
	char *text = t->text;
	snprintf(text, sizeof t->text,
	         "MODULE Linux %s 000000000000000000000000000000000 fw.elf\n"
	         "FUNC 0 100 0 main\n"
	         "FUNC 100 40 0 read_sensor\n"
	         "FUNC 200 100 0 %s\n"
	         "FUNC 300 40 0 freertos_risc_v_application_exception_handler\n"
	         "STACK CFI INIT 300 40 .cfa: sp 16 + .ra: .cfa -%u + ^\n",
	         rv64 ? "riscv64" : "riscv32", entry, ws);
	struct sw_err err;
	t->b = sw_bsym_parse(text, strlen(text), "fw.sym", &err);
	ck_assert_ptr_nonnull(t->b);
	t->bs.syms = (struct sw_module_symbols){ &sw_bsym_ops, t->b };
	t->bs.source = (struct sw_symbol_source){ .self = &t->bs, .for_module = pf_bsym_for_module };
	put_word(&t->fx, ISR_SP + 16 - ws, HOOK_RA);
	sw_reg_set(&t->fx.thread.ctx, PC, FW + 0x310);
	sw_reg_set(&t->fx.thread.ctx, SP, ISR_SP);
	sw_reg_set(&t->fx.thread.ctx, 3, GP);
	sw_reg_set(&t->fx.thread.ctx, S0, 0x5a5a);
}

static void trap_fixture_free(struct trap_fixture *t)
{
	sw_bsym_free(t->b);
	fixture_free(&t->fx);
}

/* FreeRTOS's port (portContext.h): the routine's code, `s{w,d} ra, 2w(sp);
 * [fsd f0, 16(sp);] l{w,d} t0, -16(gp); s{w,d} sp, 0(t0)`, and the context
 * at pxTopOfStack:
 * mepc + 4, mstatus, [the FPU area], x1, x5-x31, the critical nesting. */
static uint64_t put_freertos_frame(struct trap_fixture *t, bool rv64, bool fpu, uint64_t saved_pc)
{
	const unsigned ws = rv64 ? 8 : 4;
	uint64_t at = FW + 0x200;
	syn_put_code(&t->fx, at, rv64 ? 0x00113823 : 0x00112423, 4); /* s{d,w} ra, 2w(sp) */
	at += 4;
	if (fpu) {
		syn_put_code(&t->fx, at, 0x00013827, 4); /* fsd f0, 16(sp) */
		at += 4;
	}
	syn_put_code(&t->fx, at, rv64 ? 0xff01b283 : 0xff01a283, 4); /* l{d,w} t0, -16(gp) */
	syn_put_code(&t->fx, at + 4, rv64 ? 0x0022b023 : 0x0022a023, 4); /* s{d,w} sp, 0(t0) */
	put_word(&t->fx, CURRENT_TCB, TCB);
	put_word(&t->fx, TCB, TASK_TOP);
	put_word(&t->fx, TASK_TOP, saved_pc);
	put_word(&t->fx, TASK_TOP + ws, fpu ? 0x1800 | 3u << 13 : 0x1800); /* mstatus: FS Dirty */
	uint64_t base = TASK_TOP + (fpu ? 33 * 8 : 0);
	put_word(&t->fx, base + 2 * ws, CALLER_RA);            /* x1 */
	for (unsigned i = 5; i < 32; i++)
		put_word(&t->fx, base + (3 + i - 5) * ws, 0x1000 + i); /* x5-x31 */
	return base + 31 * ws;
}

START_TEST(test_freertos_trap_frame_restores_the_interrupted_task)
{
	const bool rv64 = _i == 1;
	struct trap_fixture t;
	trap_fixture_init(&t, rv64, "freertos_risc_v_trap_handler");
	uint64_t sp = put_freertos_frame(&t, rv64, rv64, INTERRUPTED + 4);
	/* The thread's CSRs hold this trap's mepc: the pc is the trapping
	 * instruction, not the one after it the frame holds. */
	t.extra[0] = (struct sw_named_reg){ "mepc", INTERRUPTED };
	t.fx.thread.extra_regs = t.extra;
	t.fx.thread.nextra_regs = 1;
	const struct sw_stack *st =
		syn_walk(&t.fx, rv64 ? &sw_arch_riscv64 : &sw_arch_riscv32, &t.bs.source, NULL);
	ck_assert_uint_ge(st->nframes, 4);
	ck_assert_str_eq(st->frames[1].function, "freertos_risc_v_trap_handler");
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_CFI);
	ck_assert_str_eq(st->frames[2].function, "read_sensor");
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_CONTEXT);
	ck_assert(st->frames[2].restored_context);
	ck_assert_uint_eq(st->frames[2].pc, INTERRUPTED);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), sp);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], RA), CALLER_RA);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], S0), 0x1008);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], 31), 0x101f);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], 3), GP); /* gp: not saved, kept */
	ck_assert_str_eq(st->frames[3].function, "main");
	ck_assert_uint_eq(st->frames[3].pc, CALLER_RA);
	trap_fixture_free(&t);
}
END_TEST

/* Without the thread's mepc the frame's word is the pc: for an exception
 * the instruction after the trapping one, still in its function. */
START_TEST(test_freertos_trap_frame_without_mepc_takes_the_saved_word)
{
	struct trap_fixture t;
	trap_fixture_init(&t, false, "freertos_risc_v_exception_handler");
	put_freertos_frame(&t, false, false, INTERRUPTED + 4);
	const struct sw_stack *st = syn_walk(&t.fx, &sw_arch_riscv32, &t.bs.source, NULL);
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[2].pc, INTERRUPTED + 4);
	ck_assert_str_eq(st->frames[2].function, "read_sensor");
	trap_fixture_free(&t);
}
END_TEST

/* V10.3.0-V10.4.x's 30-word context ([0] mepc, [1] x1, [2..28] x5-x31,
 * [29] mstatus), told by the routine's `c.swsp ra, 4(sp)`. */
START_TEST(test_freertos_v10_4_trap_frame_is_told_by_its_code)
{
	struct trap_fixture t;
	trap_fixture_init(&t, false, "freertos_risc_v_trap_handler");
	syn_put_code(&t.fx, FW + 0x200, 0xc206, 2);         /* c.swsp ra, 4(sp) */
	syn_put_code(&t.fx, FW + 0x202, 0xff01a283, 4);     /* lw t0, -16(gp) */
	syn_put_code(&t.fx, FW + 0x206, 0x0022a023, 4);     /* sw sp, 0(t0) */
	put_word(&t.fx, CURRENT_TCB, TCB);
	put_word(&t.fx, TCB, TASK_TOP);
	put_word(&t.fx, TASK_TOP, INTERRUPTED);
	put_word(&t.fx, TASK_TOP + 4, CALLER_RA);
	for (unsigned i = 5; i < 32; i++)
		put_word(&t.fx, TASK_TOP + (2 + i - 5) * 4, 0x3000 + i);
	put_word(&t.fx, TASK_TOP + 29 * 4, 0x1880);
	const struct sw_stack *st = syn_walk(&t.fx, &sw_arch_riscv32, &t.bs.source, NULL);
	ck_assert_uint_ge(st->nframes, 4);
	ck_assert_uint_eq(st->frames[2].pc, INTERRUPTED);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_CONTEXT);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), TASK_TOP + 30 * 4);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], S0), 0x3008);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], 31), 0x301f);
	ck_assert_str_eq(st->frames[3].function, "main");
	trap_fixture_free(&t);
}
END_TEST

/* What ends the walk at a FreeRTOS entry instead of inventing a frame:
 * 0 a garbage mepc, 1 pxCurrentTCB not captured, 2 an entry whose code
 * shows no store of sp through a loaded pointer, 3 a pxTopOfStack outside
 * captured memory, 4 an entry that stores ra where no known layout does. Each time a scan would have found
 * a return address on the ISR stack above the hook. */
START_TEST(test_freertos_trap_frame_that_fails_a_check_ends_the_walk)
{
	struct trap_fixture t;
	trap_fixture_init(&t, false, "freertos_risc_v_trap_handler");
	put_freertos_frame(&t, false, false, _i == 0 ? 0x12345678 : INTERRUPTED + 4);
	if (_i == 1)
		sw_reg_set(&t.fx.thread.ctx, 3, 0x90000010); /* -16(gp): nothing there */
	if (_i == 2)
		syn_put_code(&t.fx, FW + 0x208, 0x0012a023, 4); /* sw ra, 0(t0) */
	if (_i == 3)
		put_word(&t.fx, TCB, 0x30000000);
	if (_i == 4)
		syn_put_code(&t.fx, FW + 0x200, 0x00112623, 4); /* sw ra, 12(sp): no known layout */
	syn_put_code(&t.fx, FW + 0x100, 0x000000ef, 4);    /* jal ra, 0x80000100 */
	put_word(&t.fx, ISR_SP + 16, FW + 0x104);           /* what a scan would take */
	const struct sw_stack *st = syn_walk(&t.fx, &sw_arch_riscv32, &t.bs.source, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_str_eq(st->frames[1].function, "freertos_risc_v_trap_handler");
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	trap_fixture_free(&t);
}
END_TEST

/* ESP-IDF's RvExcFrame at the routine's sp: mepc, x1-x31 (x2 the
 * interrupted sp, the frame's end: 160 bytes for _panic_handler, 128 for
 * _interrupt_handler). */
static void put_esp_frame(struct trap_fixture *t, uint64_t frame, uint64_t size, uint64_t mepc)
{
	put_u32(&t->fx, frame, (uint32_t)mepc);
	put_u32(&t->fx, frame + 4, CALLER_RA);
	put_u32(&t->fx, frame + 8, (uint32_t)(frame + size));
	for (unsigned i = 3; i < 32; i++)
		put_u32(&t->fx, frame + 4 * i, 0x2000 + i);
}

START_TEST(test_espidf_frame_restores_the_interrupted_code)
{
	const char *entry = _i == 0 ? "_panic_handler" : "_interrupt_handler";
	uint64_t size = _i == 0 ? 160 : 128;
	struct trap_fixture t;
	trap_fixture_init(&t, false, entry);
	put_esp_frame(&t, ISR_SP + 16, size, INTERRUPTED);
	const struct sw_stack *st = syn_walk(&t.fx, &sw_arch_riscv32, &t.bs.source, NULL);
	ck_assert_uint_ge(st->nframes, 4);
	ck_assert_str_eq(st->frames[1].function, entry);
	ck_assert_str_eq(st->frames[2].function, "read_sensor");
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_CONTEXT);
	ck_assert_uint_eq(st->frames[2].pc, INTERRUPTED);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], SP), ISR_SP + 16 + size);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], S0), 0x2008);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], 3), 0x2003);
	ck_assert_str_eq(st->frames[3].function, "main");
	trap_fixture_free(&t);
}
END_TEST

/* 0 a garbage mepc; 1 a saved sp that is not the frame's end (an
 * _interrupt_handler that moved to the ISR stack: the words at its sp are
 * no frame); 2 an RV64 image (ESP-IDF's frames are RV32's). */
START_TEST(test_espidf_frame_that_fails_a_check_ends_the_walk)
{
	struct trap_fixture t;
	trap_fixture_init(&t, _i == 2, "_panic_handler");
	put_esp_frame(&t, ISR_SP + 16, _i == 1 ? 200 : 160, _i == 0 ? 0x12345678 : INTERRUPTED);
	syn_put_code(&t.fx, FW + 0x100, 0x000000ef, 4);     /* jal ra, 0x80000100 */
	put_word(&t.fx, ISR_SP + 16 + 0x100, FW + 0x104);   /* what a scan would take */
	const struct sw_stack *st =
		syn_walk(&t.fx, _i == 2 ? &sw_arch_riscv64 : &sw_arch_riscv32, &t.bs.source, NULL);
	ck_assert_uint_eq(st->nframes, 2);
	ck_assert_str_eq(st->frames[1].function, "_panic_handler");
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	trap_fixture_free(&t);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("riscv");
	TCase *tc = tcase_create("code");
	tcase_add_loop_test(tc, test_call_check_matches_objdump_with_symbols, 0, NFIXTURES);
	tcase_add_loop_test(tc, test_call_check_without_symbols, 0, NFIXTURES);
	tcase_add_loop_test(tc, test_prologue_matches_cfi_with_symbols, 0, NFIXTURES);
	tcase_add_loop_test(tc, test_prologue_matches_cfi_without_symbols, 0, NFIXTURES);
	tcase_add_loop_test(tc, test_frame_pointer_follows_records_the_code_sets_up, 0, 2 * NFIXTURES);
	suite_add_tcase(s, tc);
	TCase *walk = tcase_create("walk");
	tcase_add_test(walk, test_walk_frame_pointer_chain_on_real_code);
	tcase_add_loop_test(walk, test_walk_prologue_on_real_code, 0, 2);
	tcase_add_loop_test(walk, test_frame_pointer_chain_without_code, 0, 2);
	tcase_add_test(walk, test_record_above_a_frame_holding_a_return_address_is_not_its_own);
	tcase_add_test(walk, test_record_of_a_recursion_at_one_call_site_is_its_own);
	tcase_add_test(walk, test_misaligned_or_low_frame_pointer_falls_through_to_scan);
	tcase_add_test(walk, test_context_leaf_without_code_returns_through_ra);
	tcase_add_test(walk, test_context_ra_without_code_or_bounds_proves_no_caller);
	tcase_add_test(walk, test_walk_cfi_from_breakpad_symbols);
	tcase_add_test(walk, test_scan_when_nothing_else_applies);
	tcase_add_test(walk, test_spent_code_budget_voids_the_step_and_truncates);
	tcase_add_test(walk, test_c_jal_is_a_call_on_rv32_only);
	tcase_add_test(walk, test_dwarf_register_map_and_names);
	tcase_add_test(walk, test_scan_from_rom_refuses_a_call_into_the_module);
	tcase_add_test(walk, test_call_target_follows_plt_entries);
	tcase_add_test(walk, test_prologue_without_symbols_decodes_past_its_own_epilogue);
	tcase_add_test(walk, test_live_ra_whose_call_tail_jumps_into_pc_function_is_taken);
	tcase_add_test(walk, test_prologue_without_symbols_starts_at_a_called_entry);
	tcase_add_loop_test(walk, test_freertos_trap_frame_restores_the_interrupted_task, 0, 2);
	tcase_add_test(walk, test_freertos_trap_frame_without_mepc_takes_the_saved_word);
	tcase_add_test(walk, test_freertos_v10_4_trap_frame_is_told_by_its_code);
	tcase_add_loop_test(walk, test_freertos_trap_frame_that_fails_a_check_ends_the_walk, 0, 5);
	tcase_add_loop_test(walk, test_espidf_frame_restores_the_interrupted_code, 0, 2);
	tcase_add_loop_test(walk, test_espidf_frame_that_fails_a_check_ends_the_walk, 0, 3);
	suite_add_tcase(s, walk);
	return s;
}
