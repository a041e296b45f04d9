/* ARM EHABI (.ARM.exidx / .ARM.extab): every unwind instruction class on
 * hand-built tables over a small fake stack, the index lookup at its
 * boundaries, the compact and generic models; then the decoder against
 * binutils' `readelf -u` over whole real tables (libunwindstack's arm
 * libraries and two small gcc-built libraries in testdata/exidx), and the
 * first frames of libunwindstack's straddle_arm and gnu_debugdata_arm
 * snapshots unwound by hand against their expected pc/sp. */
#include <check.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/arm_exidx.h"
#include "symbols/arm_exidx_internal.h"
#include "testutil.h"

enum { R4 = 4, R7 = 7, R11 = 11, SP = 13, LR = 14, PC = 15 };

/* ---- a fake callee: registers and a small stack ------------------------- */

#define STACK 0x7000u
#define STACK_LEN 0x400u
#define CALLEE_LR 0x11235u

struct fake {
	uint32_t reg[16];
	uint32_t have;       /* registers io can read */
	uint32_t mem_base;
	uint32_t mem_len;
	uint8_t mem[STACK_LEN];
	bool be;
	unsigned mem_reads;
};

static bool fake_reg(void *self, uint32_t r, uint64_t *v)
{
	struct fake *f = self;
	if (r >= 16 || !(f->have & (1u << r)))
		return false;
	*v = f->reg[r];
	return true;
}

static bool fake_mem(void *self, uint64_t addr, void *out, size_t n)
{
	struct fake *f = self;
	f->mem_reads++;
	if (addr < f->mem_base || addr - f->mem_base > f->mem_len ||
	    n > f->mem_len - (addr - f->mem_base))
		return false;
	memcpy(out, f->mem + (addr - f->mem_base), n);
	return true;
}

static void put32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * (be ? 3 - i : i)));
}

/* The word at STACK + off reads 0xc0de0000 + off: a popped value tells
 * where it came from. */
static uint32_t stack_word(uint32_t addr)
{
	return 0xc0de0000u + (addr - STACK);
}

static void fake_init(struct fake *f, bool be)
{
	memset(f, 0, sizeof *f);
	f->be = be;
	for (uint32_t r = 0; r < 16; r++)
		f->reg[r] = 0x100 + r;
	f->reg[R7] = STACK + 0x40;
	f->reg[R11] = STACK + 0x80;
	f->reg[SP] = STACK;
	f->reg[LR] = CALLEE_LR;
	f->reg[PC] = 0x10010;
	f->have = 0xffff;
	f->mem_base = STACK;
	f->mem_len = STACK_LEN;
	for (uint32_t off = 0; off < STACK_LEN; off += 4)
		put32(f->mem + off, stack_word(STACK + off), be);
}

static struct sw_unwind_io fake_io(struct fake *f)
{
	return (struct sw_unwind_io){ f, fake_reg, fake_mem, 4, f->be };
}

/* ---- hand-built tables -------------------------------------------------- */

/* .ARM.exidx above the code (GNU ld's layout: function prel31s are
 * negative), .ARM.extab below it. */
#define EXIDX_VADDR 0x20000u
#define EXTAB_VADDR 0x1f000u
#define FN0 0x10000u
#define FN1 0x10100u
#define FN_END 0x10200u

struct table {
	uint8_t exidx[8 * 8];
	uint8_t extab[64 * 4];
	unsigned n, nextab;
	struct sw_exidx_sections s;
};

static uint32_t prel31(uint64_t from, uint64_t to)
{
	return (uint32_t)(to - from) & 0x7fffffffu;
}

static void table_init(struct table *t, bool be)
{
	memset(t, 0, sizeof *t);
	t->s.exidx = t->exidx;
	t->s.exidx_vaddr = EXIDX_VADDR;
	t->s.extab = t->extab;
	t->s.extab_vaddr = EXTAB_VADDR;
	t->s.big_endian = be;
}

static void table_add(struct table *t, uint32_t fn, uint32_t word)
{
	uint32_t at = EXIDX_VADDR + 8 * t->n;
	put32(t->exidx + 8 * t->n, prel31(at, fn), t->s.big_endian);
	put32(t->exidx + 8 * t->n + 4, word, t->s.big_endian);
	t->n++;
	t->s.exidx_size = 8 * t->n;
}

/* Appends words to .ARM.extab; returns the exidx word pointing at them
 * from entry `entry`. */
static uint32_t table_extab(struct table *t, unsigned entry, const uint32_t *w, unsigned n)
{
	uint32_t at = EXTAB_VADDR + 4 * t->nextab;
	for (unsigned i = 0; i < n; i++)
		put32(t->extab + 4 * (t->nextab + i), w[i], t->s.big_endian);
	t->nextab += n;
	t->s.extab_size = 4 * t->nextab;
	return prel31(EXIDX_VADDR + 8 * entry + 4, at);
}

/* FN0 with an inline Su16 entry, then a CANTUNWIND sentinel at FN1. */
static void table_inline(struct table *t, uint32_t word)
{
	table_init(t, false);
	table_add(t, FN0, word);
	table_add(t, FN1, 1);
}

/* FN0 with an .ARM.extab entry of n words, then the sentinel. */
static void table_extab_entry(struct table *t, const uint32_t *w, unsigned n)
{
	table_init(t, false);
	uint32_t word = table_extab(t, 0, w, n);
	table_add(t, FN0, word);
	table_add(t, FN1, 1);
}

static enum sw_cfi_status run(const struct table *t, struct fake *f, uint64_t vaddr,
                              struct sw_unwind_result *r)
{
	struct sw_unwind_io io = fake_io(f);
	return sw_exidx_unwind(&t->s, vaddr, &io, r);
}

/* Unwinds FN0 + 0x10 with inline Su16 bytes b0 b1 b2. */
static enum sw_cfi_status run_su16(uint8_t b0, uint8_t b1, uint8_t b2, struct fake *f,
                                   struct sw_unwind_result *r)
{
	struct table t;
	table_inline(&t, 0x80000000u | (uint32_t)b0 << 16 | (uint32_t)b1 << 8 | b2);
	return run(&t, f, FN0 + 0x10, r);
}

/* Unwinds FN0 + 0x10 with Lu16 bytes (any number, padded with finish). */
static enum sw_cfi_status run_lu16(const uint8_t *b, unsigned n, struct fake *f,
                                   struct sw_unwind_result *r)
{
	uint8_t pad[64];
	memset(pad, 0xb0, sizeof pad);
	memcpy(pad, b, n);
	unsigned extra = n <= 2 ? 0 : (n - 2 + 3) / 4;
	uint32_t w[16];
	w[0] = 0x81000000u | extra << 16 | (uint32_t)pad[0] << 8 | pad[1];
	for (unsigned i = 0; i < extra; i++)
		w[1 + i] = (uint32_t)pad[2 + 4 * i] << 24 | (uint32_t)pad[3 + 4 * i] << 16 |
		           (uint32_t)pad[4 + 4 * i] << 8 | pad[5 + 4 * i];
	struct table t;
	table_extab_entry(&t, w, 1 + extra);
	return run(&t, f, FN0 + 0x10, r);
}

static uint32_t known_mask(const struct sw_unwind_result *r)
{
	uint32_t m = 0;
	for (uint32_t c = 0; c < 16; c++)
		if (sw_unwind_known(r, c))
			m |= 1u << c;
	return m;
}

/* ---- instruction classes ------------------------------------------------ */

START_TEST(test_finish_only_is_a_leaf_returning_through_lr)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	ck_assert_int_eq(run_su16(0xb0, 0xb0, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK);
	ck_assert_uint_eq(r.cfa, STACK);
	ck_assert_uint_eq(r.v[PC], CALLEE_LR);
	ck_assert_uint_eq(r.ra_column, PC);
	/* Only sp and pc: lr and the rest stay the callee's. */
	ck_assert_uint_eq(known_mask(&r), (1u << SP) | (1u << PC));
	ck_assert_uint_eq(f.mem_reads, 0);
}
END_TEST

START_TEST(test_vsp_add_and_subtract_short_forms)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* 0x3f: vsp += 256; 0x41: vsp -= 8; 0x00: vsp += 4 */
	ck_assert_int_eq(run_su16(0x3f, 0x41, 0x00, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 256 - 8 + 4);
	/* 01xxxxxx below zero wraps like the 32-bit register. */
	f.reg[SP] = 4;
	ck_assert_int_eq(run_su16(0x41, 0xb0, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], 0xfffffffcu);
}
END_TEST

START_TEST(test_pop_under_mask_reads_lowest_register_first)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* 0x84 0x81: pop {r4, r11, r14} */
	ck_assert_int_eq(run_su16(0x84, 0x81, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(known_mask(&r), (1u << R4) | (1u << R11) | (1u << LR) |
	                                   (1u << SP) | (1u << PC));
	ck_assert_uint_eq(r.v[R4], stack_word(STACK));
	ck_assert_uint_eq(r.v[R11], stack_word(STACK + 4));
	ck_assert_uint_eq(r.v[LR], stack_word(STACK + 8));
	ck_assert_uint_eq(r.v[PC], stack_word(STACK + 8));
	ck_assert_uint_eq(r.v[SP], STACK + 12);
}
END_TEST

START_TEST(test_popped_pc_is_the_callers_pc)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* 0x88 0x01: pop {r4, r15}: lr is not touched. */
	ck_assert_int_eq(run_su16(0x88, 0x01, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[PC], stack_word(STACK + 4));
	ck_assert(!sw_unwind_known(&r, LR));
	ck_assert_uint_eq(r.v[SP], STACK + 8);
}
END_TEST

START_TEST(test_popping_sp_sets_vsp_to_the_loaded_value)
{
	struct fake f;
	fake_init(&f, false);
	put32(f.mem + 4, STACK + 0x200, false);
	struct sw_unwind_result r;
	/* 0x82 0x01: pop {r4, r13} */
	ck_assert_int_eq(run_su16(0x82, 0x01, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 0x200);
	ck_assert_uint_eq(r.v[R4], stack_word(STACK));
	/* Then the next instruction runs from the new vsp. */
	uint8_t b[] = { 0x82, 0x01, 0xa8 };
	ck_assert_int_eq(run_lu16(b, sizeof b, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[R4], stack_word(STACK + 0x200));
	ck_assert_uint_eq(r.v[LR], stack_word(STACK + 0x204));
	ck_assert_uint_eq(r.v[SP], STACK + 0x208);
}
END_TEST

START_TEST(test_vsp_from_register)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* 0x97: vsp = r7; 0xa8: pop {r4, r14} (a frame-pointer prologue) */
	ck_assert_int_eq(run_su16(0x97, 0xa8, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[R4], stack_word(STACK + 0x40));
	ck_assert_uint_eq(r.v[PC], stack_word(STACK + 0x44));
	ck_assert_uint_eq(r.v[SP], STACK + 0x48);
	/* vsp = r4 after r4 was popped uses the popped value. */
	put32(f.mem, STACK + 0x100, false);
	uint8_t b[] = { 0x80, 0x01, 0x94, 0xa8 };
	ck_assert_int_eq(run_lu16(b, sizeof b, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[R4], stack_word(STACK + 0x100));
	ck_assert_uint_eq(r.v[SP], STACK + 0x108);
	/* An unknown register: no answer. */
	f.have &= ~(1u << R11);
	ck_assert_int_eq(run_su16(0x9b, 0xb0, 0xb0, &f, &r), SW_CFI_FAILED);
}
END_TEST

START_TEST(test_pop_r4_to_rn_short_forms)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* 0xa3: pop {r4-r7} */
	ck_assert_int_eq(run_su16(0xa3, 0xb0, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(known_mask(&r), 0xf0u | (1u << SP) | (1u << PC));
	ck_assert_uint_eq(r.v[7], stack_word(STACK + 12));
	ck_assert_uint_eq(r.v[SP], STACK + 16);
	ck_assert_uint_eq(r.v[PC], CALLEE_LR);
	/* 0xaf: pop {r4-r11, r14} */
	ck_assert_int_eq(run_su16(0xaf, 0xb0, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(known_mask(&r), 0xff0u | (1u << LR) | (1u << SP) | (1u << PC));
	ck_assert_uint_eq(r.v[PC], stack_word(STACK + 32));
	ck_assert_uint_eq(r.v[SP], STACK + 36);
}
END_TEST

START_TEST(test_pop_r0_to_r3_under_mask)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* 0xb1 0x09: pop {r0, r3} */
	ck_assert_int_eq(run_su16(0xb1, 0x09, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(known_mask(&r), 0x9u | (1u << SP) | (1u << PC));
	ck_assert_uint_eq(r.v[0], stack_word(STACK));
	ck_assert_uint_eq(r.v[3], stack_word(STACK + 4));
	ck_assert_uint_eq(r.v[SP], STACK + 8);
	/* Mask 0 and masks above r3 are spare. */
	ck_assert_int_eq(run_su16(0xb1, 0x00, 0xb0, &f, &r), SW_CFI_FAILED);
	ck_assert_int_eq(run_su16(0xb1, 0x10, 0xb0, &f, &r), SW_CFI_FAILED);
}
END_TEST

START_TEST(test_long_vsp_add_uleb128)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* 0xb2 0x9b 0x01: readelf's "vsp = vsp + 1136" (0x204 + 0x9b << 2) */
	ck_assert_int_eq(run_su16(0xb2, 0x9b, 0x01, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 1136);
	ck_assert_int_eq(run_su16(0xb2, 0x00, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 0x204);
	/* A uleb128 that runs off the end: malformed. */
	ck_assert_int_eq(run_su16(0xb2, 0x80, 0x80, &f, &r), SW_CFI_FAILED);
}
END_TEST

START_TEST(test_vfp_pops_move_vsp_only)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	static const struct {
		uint8_t b0, b1;
		uint32_t delta;
	} cases[] = {
		{ 0xb3, 0x12, 8 * 3 + 4 },  /* d1-d3, FSTMFDX */
		{ 0xb8, 0xb0, 8 * 1 + 4 },  /* d8, FSTMFDX */
		{ 0xbf, 0xb0, 8 * 8 + 4 },  /* d8-d15, FSTMFDX */
		{ 0xc8, 0x03, 8 * 4 },      /* d16-d19, FSTMFDD */
		{ 0xc9, 0x81, 8 * 2 },      /* d8-d9, FSTMFDD */
		{ 0xd0, 0xb0, 8 * 1 },      /* d8, FSTMFDD */
		{ 0xd7, 0xb0, 8 * 8 },      /* d8-d15, FSTMFDD */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_int_eq(run_su16(cases[i].b0, cases[i].b1, 0xb0, &f, &r), SW_CFI_OK);
		ck_assert_uint_eq(r.v[SP], STACK + cases[i].delta);
		ck_assert_uint_eq(known_mask(&r), (1u << SP) | (1u << PC));
	}
	ck_assert_uint_eq(f.mem_reads, 0);
}
END_TEST

START_TEST(test_iwmmxt_pops_move_vsp_only)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	ck_assert_int_eq(run_su16(0xc0, 0xb0, 0xb0, &f, &r), SW_CFI_OK); /* wR10 */
	ck_assert_uint_eq(r.v[SP], STACK + 8);
	ck_assert_int_eq(run_su16(0xc5, 0xb0, 0xb0, &f, &r), SW_CFI_OK); /* wR10-wR15 */
	ck_assert_uint_eq(r.v[SP], STACK + 48);
	ck_assert_int_eq(run_su16(0xc6, 0x21, 0xb0, &f, &r), SW_CFI_OK); /* wR2-wR3 */
	ck_assert_uint_eq(r.v[SP], STACK + 16);
	ck_assert_int_eq(run_su16(0xc7, 0x0b, 0xb0, &f, &r), SW_CFI_OK); /* wCGR0,1,3 */
	ck_assert_uint_eq(r.v[SP], STACK + 12);
	ck_assert_int_eq(run_su16(0xc7, 0x00, 0xb0, &f, &r), SW_CFI_FAILED);
	ck_assert_int_eq(run_su16(0xc7, 0x10, 0xb0, &f, &r), SW_CFI_FAILED);
}
END_TEST

START_TEST(test_reserved_and_spare_opcodes_fail)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	static const uint8_t bad[] = { 0x9d, 0x9f, 0xb6, 0xb7, 0xca, 0xcf, 0xd8, 0xdf, 0xe0, 0xff };
	for (size_t i = 0; i < sizeof bad; i++)
		ck_assert_msg(run_su16(bad[i], 0xb0, 0xb0, &f, &r) == SW_CFI_FAILED,
		              "opcode 0x%02x", bad[i]);
	/* After a finish nothing more runs. */
	ck_assert_int_eq(run_su16(0xb0, 0xff, 0xff, &f, &r), SW_CFI_OK);
	/* PAC (Armv8.1-M): ra_auth_code is a word on the stack. */
	ck_assert_int_eq(run_su16(0xb4, 0xb5, 0xb0, &f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 4);
}
END_TEST

START_TEST(test_refuse_to_unwind_and_cantunwind_end_the_walk)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	ck_assert_int_eq(run_su16(0x80, 0x00, 0xb0, &f, &r), SW_CFI_END);
	ck_assert_int_eq(run_su16(0x01, 0x80, 0x00, &f, &r), SW_CFI_END);
	struct table t;
	table_inline(&t, 0x80b0b0b0u);
	struct sw_unwind_io io = fake_io(&f);
	ck_assert_int_eq(sw_exidx_unwind(&t.s, FN1 + 4, &io, &r), SW_CFI_END);
	ck_assert(sw_exidx_covers(&t.s, FN1 + 4));
}
END_TEST

START_TEST(test_truncated_operands_fail)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* Two-byte ops as the last byte of an Lu16 list. */
	static const uint8_t ops[] = { 0x84, 0xb1, 0xb3, 0xc6, 0xc7, 0xc8, 0xc9 };
	for (size_t i = 0; i < sizeof ops; i++) {
		uint32_t w = 0x81000000u | 0x00u << 8 | ops[i]; /* vsp += 4, op */
		struct table t;
		table_extab_entry(&t, &w, 1);
		ck_assert_msg(run(&t, &f, FN0, &r) == SW_CFI_FAILED, "op 0x%02x", ops[i]);
	}
}
END_TEST

START_TEST(test_unreadable_stack_fails)
{
	struct fake f;
	fake_init(&f, false);
	f.reg[SP] = STACK + STACK_LEN - 4;
	struct sw_unwind_result r;
	ck_assert_int_eq(run_su16(0xa8, 0xb0, 0xb0, &f, &r), SW_CFI_FAILED);
	/* A leaf without lr or sp has no caller pc. */
	fake_init(&f, false);
	f.have &= ~(1u << LR);
	ck_assert_int_eq(run_su16(0xb0, 0xb0, 0xb0, &f, &r), SW_CFI_FAILED);
	fake_init(&f, false);
	f.have &= ~(1u << SP);
	ck_assert_int_eq(run_su16(0xb0, 0xb0, 0xb0, &f, &r), SW_CFI_FAILED);
}
END_TEST

/* ---- the models and the table ------------------------------------------- */

START_TEST(test_lu16_and_lu32_read_extra_words_and_end_without_finish)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* Lu16, one extra word: 0x02 (vsp += 12) 0xb2 0x01 (vsp += 0x208)
	 * 0x80 0x80 (pop {r11}) 0xab (pop {r4-r7, r14}), no finish. */
	uint32_t w[] = { 0x81010000u | 0x02b2u, 0x018080abu };
	struct table t;
	table_extab_entry(&t, w, 2);
	ck_assert_int_eq(run(&t, &f, FN0 + 4, &r), SW_CFI_OK);
	uint32_t vsp = STACK + 12 + 0x208;
	ck_assert_uint_eq(r.v[R11], stack_word(vsp));
	ck_assert_uint_eq(r.v[4], stack_word(vsp + 4));
	ck_assert_uint_eq(r.v[LR], stack_word(vsp + 20));
	ck_assert_uint_eq(r.v[PC], stack_word(vsp + 20));
	ck_assert_uint_eq(r.v[SP], vsp + 24);
	/* The same as Lu32 (index 2): the unwind bytes are laid out alike. */
	w[0] = (w[0] & ~0x0f000000u) | 0x02000000u;
	table_extab_entry(&t, w, 2);
	ck_assert_int_eq(run(&t, &f, FN0 + 4, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], vsp + 24);
	/* Su16 in .ARM.extab. */
	uint32_t su16 = 0x80a8b0b0u;
	table_extab_entry(&t, &su16, 1);
	ck_assert_int_eq(run(&t, &f, FN0 + 4, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 8);
	/* A count that runs past .ARM.extab. */
	w[0] = 0x81050000u | 0xb0b0u;
	table_extab_entry(&t, w, 2);
	ck_assert_int_eq(run(&t, &f, FN0 + 4, &r), SW_CFI_FAILED);
	/* Personality indexes 3..15 are reserved. */
	w[0] = 0x83000000u | 0xb0b0u;
	table_extab_entry(&t, w, 1);
	ck_assert_int_eq(run(&t, &f, FN0 + 4, &r), SW_CFI_FAILED);
}
END_TEST

START_TEST(test_generic_personality_runs_the_arm_instructions_after_it)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	/* __gcc_personality_v0 at FN1 (a prel31 back from .ARM.extab), then
	 * count 1: 0x02 0xc9 0x81 (vsp += 12; pop {d8-d9}), 0xa9 (pop
	 * {r4, r5, r14}), 0xb0 0xb0 0xb0; then an LSDA word that must not run. */
	struct table t;
	table_init(&t, false);
	uint32_t w[] = { prel31(EXTAB_VADDR, FN1 | 1), 0x0102c981u, 0xa9b0b0b0u, 0xffffffffu };
	uint32_t word = table_extab(&t, 0, w, 4);
	table_add(&t, FN0, word);
	table_add(&t, FN1, 1);
	ck_assert_int_eq(run(&t, &f, FN0 + 0x20, &r), SW_CFI_OK);
	uint32_t vsp = STACK + 12 + 16;
	ck_assert_uint_eq(r.v[4], stack_word(vsp));
	ck_assert_uint_eq(r.v[5], stack_word(vsp + 4));
	ck_assert_uint_eq(r.v[PC], stack_word(vsp + 8));
	ck_assert_uint_eq(r.v[SP], vsp + 12);

	struct sw_exidx_entry e;
	struct sw_exidx_program p;
	ck_assert(sw_exidx_find(&t.s, FN0, &e));
	ck_assert_int_eq(sw_exidx_program_of(&t.s, &e, &p), SW_CFI_OK);
	ck_assert_int_eq(p.personality, -1);
	ck_assert_uint_eq(p.personality_addr, FN1 | 1);
	ck_assert_uint_eq(p.nbytes, 7);
}
END_TEST

START_TEST(test_inline_entry_must_be_su16)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	struct table t;
	table_inline(&t, 0x81b0b0b0u);
	ck_assert_int_eq(run(&t, &f, FN0, &r), SW_CFI_FAILED);
}
END_TEST

START_TEST(test_extab_pointer_outside_the_section_fails)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	struct table t;
	table_init(&t, false);
	table_add(&t, FN0, prel31(EXIDX_VADDR + 4, EXTAB_VADDR - 4));
	table_add(&t, FN1, prel31(EXIDX_VADDR + 12, EXTAB_VADDR + 0x800));
	ck_assert_int_eq(run(&t, &f, FN0, &r), SW_CFI_FAILED);
	ck_assert_int_eq(run(&t, &f, FN1, &r), SW_CFI_FAILED);
	t.s.extab = NULL;
	ck_assert_int_eq(run(&t, &f, FN0, &r), SW_CFI_FAILED);
}
END_TEST

START_TEST(test_lookup_at_the_table_boundaries)
{
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	struct table t;
	table_init(&t, false);
	table_add(&t, FN0, 0x80a8b0b0u);        /* pop {r4, r14} */
	table_add(&t, FN1, 0x8001b0b0u);        /* vsp += 8 */
	table_add(&t, FN_END, 0x80b0b0b0u);     /* a leaf, the last entry */
	/* Before the first entry: nothing covers it. */
	ck_assert_int_eq(run(&t, &f, FN0 - 2, &r), SW_CFI_NO_RULE);
	ck_assert(!sw_exidx_covers(&t.s, FN0 - 2));
	ck_assert(!sw_exidx_covers(&t.s, 0));
	/* Exactly at a start, and the last byte before the next start. */
	ck_assert_int_eq(run(&t, &f, FN0, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 8);
	ck_assert_int_eq(run(&t, &f, FN1 - 1, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 8);
	ck_assert_uint_eq(r.v[PC], stack_word(STACK + 4));
	ck_assert_int_eq(run(&t, &f, FN1, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[PC], CALLEE_LR);
	ck_assert_uint_eq(r.v[SP], STACK + 8);
	/* After the last start: unbounded without text_end, else bounded. */
	ck_assert_int_eq(run(&t, &f, FN_END + 0x5000, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK);
	t.s.text_end = FN_END + 0x100;
	ck_assert_int_eq(run(&t, &f, FN_END + 0xff, &r), SW_CFI_OK);
	ck_assert_int_eq(run(&t, &f, FN_END + 0x100, &r), SW_CFI_NO_RULE);
	/* Beyond 32 bits. */
	ck_assert_int_eq(run(&t, &f, ((uint64_t)1 << 32) + FN0, &r), SW_CFI_NO_RULE);
	/* Every lookup over a bigger table agrees with a linear scan. */
	table_init(&t, false);
	for (unsigned i = 0; i < 8; i++)
		table_add(&t, FN0 + 0x40 * i + (i & 1) * 2, 0x80b0b0b0u | (i << 16));
	for (uint32_t a = FN0 - 4; a < FN0 + 0x240; a++) {
		struct sw_exidx_entry e;
		int want = -1;
		for (unsigned i = 0; i < 8; i++)
			if (FN0 + 0x40 * i + (i & 1) * 2 <= a)
				want = (int)i;
		bool got = sw_exidx_find(&t.s, a, &e);
		ck_assert_int_eq(got, want >= 0);
		if (got)
			ck_assert_uint_eq(e.index, (unsigned)want);
	}
	/* An empty table. */
	t.s.exidx_size = 0;
	ck_assert(!sw_exidx_covers(&t.s, FN0));
	t.s.exidx_size = 7;
	ck_assert(!sw_exidx_covers(&t.s, FN0));
}
END_TEST

START_TEST(test_prel31_offsets_in_both_directions)
{
	/* Code above the index (lld puts .ARM.exidx before .text): positive
	 * prel31s; .ARM.extab above too. */
	struct fake f;
	fake_init(&f, false);
	struct sw_unwind_result r;
	struct table t;
	table_init(&t, false);
	t.s.exidx_vaddr = 0x1000;
	t.s.extab_vaddr = 0x40000;
	uint32_t w = 0x80a8b0b0u;
	put32(t.extab, w, false);
	t.nextab = 1;
	t.s.extab_size = 4;
	put32(t.exidx, prel31(0x1000, FN0), false);
	put32(t.exidx + 4, prel31(0x1004, 0x40000), false);
	t.n = 1;
	t.s.exidx_size = 8;
	struct sw_exidx_entry e;
	ck_assert(sw_exidx_entry_at(&t.s, 0, &e));
	ck_assert_uint_eq(e.fn_start, FN0);
	ck_assert_int_eq(e.kind, SW_EXIDX_EXTAB);
	ck_assert_uint_eq(e.extab_addr, 0x40000);
	ck_assert_int_eq(run(&t, &f, FN0 + 2, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[SP], STACK + 8);
	/* Bit 31 of the function word is not part of the offset. */
	put32(t.exidx, prel31(0x1000, FN0) | 0x80000000u, false);
	ck_assert(sw_exidx_entry_at(&t.s, 0, &e));
	ck_assert_uint_eq(e.fn_start, FN0);
	/* A negative offset that wraps below 0: 32-bit arithmetic. */
	put32(t.exidx, 0x7ffffff0u, false); /* -16 from 0x1000 */
	ck_assert(sw_exidx_entry_at(&t.s, 0, &e));
	ck_assert_uint_eq(e.fn_start, 0xff0);
	t.s.exidx_vaddr = 8;
	ck_assert(sw_exidx_entry_at(&t.s, 0, &e));
	ck_assert_uint_eq(e.fn_start, 0xfffffff8u);
}
END_TEST

START_TEST(test_big_endian_tables_and_stack)
{
	struct fake f;
	fake_init(&f, true);
	struct sw_unwind_result r;
	struct table t;
	table_init(&t, true);
	uint32_t w = 0x8100a8b0u;
	uint32_t word = table_extab(&t, 0, &w, 1);
	table_add(&t, FN0, word);
	table_add(&t, FN1, 0x8001a8b0u);
	ck_assert_int_eq(run(&t, &f, FN0 + 4, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[R4], stack_word(STACK));
	ck_assert_uint_eq(r.v[PC], stack_word(STACK + 4));
	ck_assert_int_eq(run(&t, &f, FN1 + 4, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.v[R4], stack_word(STACK + 8));
	ck_assert_uint_eq(r.v[SP], STACK + 16);
}
END_TEST

START_TEST(test_decode_lists_every_op_with_its_bytes)
{
	static const uint8_t b[] = { 0x3f, 0x80, 0x00, 0x84, 0x81, 0x97, 0xab, 0xb0,
	                             0xb1, 0x03, 0xb2, 0x81, 0x01, 0xb3, 0x12, 0x9d };
	struct sw_exidx_op ops[16];
	size_t n = sw_exidx_decode(b, sizeof b, ops, 16);
	ck_assert_uint_eq(n, 10);
	ck_assert_int_eq(ops[0].kind, SW_EXIDX_OP_VSP_ADD);
	ck_assert_uint_eq(ops[0].arg, 256);
	ck_assert_int_eq(ops[1].kind, SW_EXIDX_OP_REFUSE);
	ck_assert_int_eq(ops[2].kind, SW_EXIDX_OP_POP_CORE);
	ck_assert_uint_eq(ops[2].arg, (1u << 4) | (1u << 11) | (1u << 14));
	ck_assert_int_eq(ops[3].kind, SW_EXIDX_OP_VSP_REG);
	ck_assert_uint_eq(ops[3].arg, 7);
	ck_assert_uint_eq(ops[4].arg, 0xf0u | (1u << 14));
	ck_assert_int_eq(ops[5].kind, SW_EXIDX_OP_FINISH);
	ck_assert_uint_eq(ops[6].arg, 3);
	ck_assert_int_eq(ops[7].kind, SW_EXIDX_OP_VSP_ADD);
	ck_assert_uint_eq(ops[7].arg, 0x204 + (0x81 << 2));
	ck_assert_uint_eq(ops[7].offset, 10);
	ck_assert_uint_eq(ops[7].length, 3);
	ck_assert_int_eq(ops[8].kind, SW_EXIDX_OP_POP_VFP);
	ck_assert_uint_eq(ops[8].first, 1);
	ck_assert_uint_eq(ops[8].count, 3);
	ck_assert(ops[8].fstmfdx);
	ck_assert_int_eq(ops[9].kind, SW_EXIDX_OP_RESERVED);
	/* max_ops bounds the list. */
	ck_assert_uint_eq(sw_exidx_decode(b, sizeof b, ops, 3), 3);
}
END_TEST

/* ---- real tables against readelf -u ------------------------------------- */

/* The whole file, gunzipped when it is gzip (zlib reads plain files too). */
static uint8_t *slurp(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	if (!g)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		int got = gzread(g, buf + n, (unsigned)(cap - n));
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	gzclose(g);
	*len = n;
	return buf;
}

struct elf_info {
	struct sw_exidx_sections s;
	uint64_t load_bias;   /* p_vaddr - p_offset of the first PF_X PT_LOAD */
};

static bool elf_exidx(const uint8_t *buf, size_t len, struct elf_info *info)
{
	memset(info, 0, sizeof *info);
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)buf, len);
	if (!e)
		return false;
	GElf_Ehdr eh;
	size_t shstrndx;
	bool ok = gelf_getehdr(e, &eh) && elf_getshdrstrndx(e, &shstrndx) == 0;
	info->s.big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	size_t nph = 0;
	if (ok && elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				info->load_bias = ph.p_vaddr - ph.p_offset;
				break;
			}
		}
	}
	Elf_Scn *scn = NULL;
	while (ok && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".ARM.exidx") == 0) {
			info->s.exidx = buf + sh.sh_offset;
			info->s.exidx_size = sh.sh_size;
			info->s.exidx_vaddr = sh.sh_addr;
		} else if (name && strcmp(name, ".ARM.extab") == 0) {
			info->s.extab = buf + sh.sh_offset;
			info->s.extab_size = sh.sh_size;
			info->s.extab_vaddr = sh.sh_addr;
		}
	}
	elf_end(e);
	return ok && info->s.exidx != NULL;
}

/* readelf's wording for one op (binutils' decode_arm_unwind_bytecode). */
static void op_text(const struct sw_exidx_op *op, char *buf, size_t n)
{
	size_t at = 0;
#define OUT(...) (at += (size_t)snprintf(buf + at, at < n ? n - at : 0, __VA_ARGS__))
	switch (op->kind) {
	case SW_EXIDX_OP_VSP_ADD:
		OUT("vsp = vsp + %u", op->arg);
		break;
	case SW_EXIDX_OP_VSP_SUB:
		OUT("vsp = vsp - %u", op->arg);
		break;
	case SW_EXIDX_OP_REFUSE:
		OUT("Refuse to unwind");
		break;
	case SW_EXIDX_OP_POP_CORE: {
		OUT("pop {");
		bool first = true;
		for (int r = 0; r < 16; r++)
			if (op->arg & (1u << r)) {
				OUT("%sr%d", first ? "" : ", ", r);
				first = false;
			}
		OUT("}");
		break;
	}
	case SW_EXIDX_OP_VSP_REG:
		OUT("vsp = r%u", op->arg);
		break;
	case SW_EXIDX_OP_FINISH:
		OUT("finish");
		break;
	case SW_EXIDX_OP_POP_VFP:
		OUT("pop {D%u", op->first);
		if (op->count > 1)
			OUT("-D%u", op->first + op->count - 1);
		OUT("}");
		break;
	case SW_EXIDX_OP_POP_WMMX:
		OUT("pop {wR%u", op->first);
		if (op->count > 1)
			OUT("-wR%u", op->first + op->count - 1);
		OUT("}");
		break;
	case SW_EXIDX_OP_POP_WCGR: {
		OUT("pop {");
		bool first = true;
		for (int r = 0; r < 4; r++)
			if (op->arg & (1u << r)) {
				OUT("%swCGR%d", first ? "" : ", ", r);
				first = false;
			}
		OUT("}");
		break;
	}
	case SW_EXIDX_OP_POP_PAC:
		OUT("pop {ra_auth_code}");
		break;
	case SW_EXIDX_OP_PAC_MODIFIER:
		OUT("vsp as modifier for PAC validation");
		break;
	case SW_EXIDX_OP_RESERVED:
		OUT("[Reserved]");
		break;
	case SW_EXIDX_OP_SPARE:
		OUT("[Spare]");
		break;
	case SW_EXIDX_OP_TRUNCATED:
		OUT("[Truncated]");
		break;
	}
#undef OUT
}

/* Collapses runs of blanks, trims the ends. */
static void squeeze(char *s)
{
	char *w = s;
	bool blank = true;
	for (char *r = s; *r; r++) {
		bool b = *r == ' ' || *r == '\t' || *r == '\n';
		if (b && blank)
			continue;
		*w++ = b ? ' ' : *r;
		blank = b;
	}
	if (w > s && w[-1] == ' ')
		w--;
	*w = 0;
}

/* One entry as readelf printed it. */
struct re_entry {
	bool valid;
	uint32_t addr;
	char what[64];         /* "@0x..", "0x1 [cantunwind]", "0x80..." */
	int personality;       /* -2: not printed, -1: routine, else index */
	uint32_t pers_addr;
	unsigned nops;
	uint8_t bytes[64][12];
	unsigned nbytes[64];
	char text[64][80];
};

struct compare_stats {
	unsigned entries, ops, generic, generic_decoded;
};

/* A failing check without Check's per-assert bookkeeping (a pipe write
 * each in fork mode): these run some 200,000 times. */
#define EXPECT(cond, ...)                     \
	do {                                  \
		if (!(cond))                  \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

static void check_entry(const struct sw_exidx_sections *s, uint32_t i,
                        const struct re_entry *re, const char *file, struct compare_stats *st)
{
	struct sw_exidx_entry e;
	EXPECT(sw_exidx_entry_at(s, i, &e), "%s: entry %u missing", file, i);
	EXPECT(e.fn_start == re->addr, "%s: entry %u at 0x%x, readelf 0x%x", file, i,
	              e.fn_start, re->addr);
	st->entries++;
	if (e.kind == SW_EXIDX_CANTUNWIND) {
		EXPECT(strstr(re->what, "[cantunwind]"), "%s 0x%x: %s", file, re->addr, re->what);
		return;
	}
	if (e.kind == SW_EXIDX_EXTAB) {
		EXPECT(re->what[0] == '@' && strtoul(re->what + 1, NULL, 16) == e.extab_addr,
		              "%s 0x%x: extab 0x%x, readelf %s", file, re->addr, e.extab_addr, re->what);
	} else {
		EXPECT(strtoul(re->what, NULL, 16) == e.word, "%s 0x%x: %s", file, re->addr,
		              re->what);
	}
	struct sw_exidx_program p;
	EXPECT(sw_exidx_program_of(s, &e, &p) == SW_CFI_OK, "%s 0x%x: no program", file,
	              re->addr);
	EXPECT(p.personality == re->personality, "%s 0x%x: personality %d, readelf %d", file,
	              re->addr, p.personality, re->personality);
	if (p.personality == -1) {
		st->generic++;
		EXPECT(p.personality_addr == re->pers_addr, "%s 0x%x: personality at 0x%x", file, re->addr, p.personality_addr);
		if (re->nops == 0)
			return; /* readelf decodes only routines it knows by name */
		st->generic_decoded++;
	}
	struct sw_exidx_op ops[SW_EXIDX_MAX_BYTES];
	size_t n = sw_exidx_decode(p.bytes, p.nbytes, ops, SW_EXIDX_MAX_BYTES);
	EXPECT(n == re->nops, "%s 0x%x: %zu ops, readelf %u", file, re->addr, n, re->nops);
	for (size_t k = 0; k < n; k++) {
		char text[96];
		op_text(&ops[k], text, sizeof text);
		EXPECT(strcmp(text, re->text[k]) == 0, "%s 0x%x op %zu: '%s', readelf '%s'", file,
		              re->addr, k, text, re->text[k]);
		EXPECT(ops[k].length == re->nbytes[k] &&
		       memcmp(p.bytes + ops[k].offset, re->bytes[k], re->nbytes[k]) == 0,
		       "%s 0x%x op %zu: bytes differ", file, re->addr, k);
		st->ops++;
	}
}

static bool have_readelf(void)
{
	return system("readelf --version >/dev/null 2>&1") == 0;
}

/* Compares every entry of the file's table with `readelf -u`'s. */
static void compare_with_readelf(const char *path, struct compare_stats *st)
{
	size_t len;
	uint8_t *buf = slurp(path, &len);
	ck_assert_msg(buf != NULL, "%s", path);
	struct elf_info info;
	ck_assert_msg(elf_exidx(buf, len, &info), "%s: no .ARM.exidx", path);

	char tmp[] = "/tmp/test_arm_exidx_XXXXXX";
	int fd = mkstemp(tmp);
	ck_assert(fd >= 0);
	ck_assert(write(fd, buf, len) == (ssize_t)len);
	close(fd);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "LC_ALL=C readelf -u '%s'", tmp);
	FILE *pipe = popen(cmd, "r");
	ck_assert(pipe != NULL);

	struct re_entry *re = calloc(1, sizeof *re);
	uint32_t index = 0;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, pipe) >= 0) {
		if (strncmp(line, "0x", 2) == 0) {
			if (re->valid)
				check_entry(&info.s, index++, re, path, st);
			memset(re, 0, sizeof *re);
			re->valid = true;
			re->personality = -2;
			re->addr = (uint32_t)strtoul(line, NULL, 16);
			char *colon = strstr(line, ": ");
			for (char *c = colon; c && (c = strstr(c + 1, ": ")) != NULL;)
				colon = c;
			ck_assert_msg(colon != NULL, "%s", line);
			snprintf(re->what, sizeof re->what, "%s", colon + 2);
			squeeze(re->what);
		} else if (re->valid && strstr(line, "Compact model index:")) {
			re->personality = atoi(strchr(line, ':') + 1);
		} else if (re->valid && strstr(line, "Personality routine:")) {
			re->personality = -1;
			re->pers_addr = (uint32_t)strtoul(strchr(line, ':') + 1, NULL, 16);
		} else if (re->valid && strncmp(line, "  0x", 4) == 0) {
			ck_assert(re->nops < 64);
			char *p = line;
			unsigned nb = 0;
			for (;;) {
				while (*p == ' ')
					p++;
				if (strncmp(p, "0x", 2) != 0 || (p[4] != ' ' && p[4] != '\n'))
					break;
				ck_assert(nb < 12);
				re->bytes[re->nops][nb++] = (uint8_t)strtoul(p, NULL, 16);
				p += 4;
			}
			re->nbytes[re->nops] = nb;
			snprintf(re->text[re->nops], sizeof re->text[0], "%s", p);
			squeeze(re->text[re->nops]);
			re->nops++;
		}
	}
	if (re->valid)
		check_entry(&info.s, index++, re, path, st);
	ck_assert_uint_eq(index, sw_exidx_count(&info.s));
	free(line);
	free(re);
	pclose(pipe);
	unlink(tmp);
	free(buf);
}

static const char *const readelf_files[] = {
	"libunwindstack/straddle_arm/libc.so.gz",
	"libunwindstack/straddle_arm/libbase.so.gz",
	"libunwindstack/zlib_compress_arm/linker.gz",
	"libunwindstack/zlib_compress_arm/crasher.gz",
	"libunwindstack/signal_load_bias_arm/libc.so.gz",
	"libunwindstack/debug_frame_load_bias_arm/mediaserver.gz",
	"libunwindstack/gnu_debugdata_arm/libandroid_runtime.so.gz",
	"libunwindstack/offset_arm/libunwindstack_test.gz",
};

START_TEST(test_decoder_matches_readelf_on_real_tables)
{
	if (!have_readelf()) {
		fprintf(stderr, "test_arm_exidx: readelf not found, skipping the comparison\n");
		return;
	}
	struct compare_stats st = { 0 };
	char path[1024];
	for (size_t i = 0; i < sizeof readelf_files / sizeof readelf_files[0]; i++)
		compare_with_readelf(corpus_path(path, sizeof path, readelf_files[i]), &st);
	/* gcc -fexceptions C with a hidden __gcc_personality_v0, which
	 * readelf decodes (testdata/exidx/gc.c). */
	const char *td = getenv("SW_TESTDATA");
	static const char *const mine[] = { "exidx/gc_arm.so", "exidx/gc_thumb.so" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", td ? td : "testdata", mine[i]);
		compare_with_readelf(path, &st);
	}
	fprintf(stderr,
	        "test_arm_exidx: %u entries and %u ops agree with readelf -u "
	        "(%u generic-model entries, %u of them decoded by readelf)\n",
	        st.entries, st.ops, st.generic, st.generic_decoded);
	ck_assert_uint_gt(st.entries, 17000);
	ck_assert_uint_ge(st.generic_decoded, 6);
}
END_TEST

/* ---- real snapshots unwound by hand ------------------------------------- */

struct snap_map {
	uint32_t start, end, offset;
	char name[128];
	uint8_t *elf;
	size_t elf_len;
	struct elf_info info;
};

struct snap {
	struct snap_map maps[8];
	unsigned nmaps;
	struct { uint64_t start; uint8_t *bytes; size_t len; } mem[2];
	unsigned nmem;
	uint32_t reg[16];
	uint32_t have;
};

static bool snap_mem(void *self, uint64_t addr, void *out, size_t n)
{
	struct snap *s = self;
	for (unsigned i = 0; i < s->nmem; i++)
		if (addr >= s->mem[i].start && addr - s->mem[i].start <= s->mem[i].len &&
		    n <= s->mem[i].len - (addr - s->mem[i].start)) {
			memcpy(out, s->mem[i].bytes + (addr - s->mem[i].start), n);
			return true;
		}
	return false;
}

static bool snap_reg(void *self, uint32_t r, uint64_t *v)
{
	struct snap *s = self;
	if (r >= 16 || !(s->have & (1u << r)))
		return false;
	*v = s->reg[r];
	return true;
}

static void snap_load(struct snap *s, const char *dir)
{
	memset(s, 0, sizeof *s);
	char path[1024], rel[512];
	snprintf(rel, sizeof rel, "libunwindstack/%s/regs.txt", dir);
	FILE *f = fopen(corpus_path(path, sizeof path, rel), "r");
	ck_assert_msg(f != NULL, "%s", path);
	char name[16];
	uint32_t v;
	while (fscanf(f, " %15[^:]: %" SCNx32, name, &v) == 2) {
		int r = strcmp(name, "sp") == 0 ? 13 : strcmp(name, "lr") == 0 ? 14
		      : strcmp(name, "pc") == 0 ? 15 : strcmp(name, "ip") == 0 ? 12
		      : atoi(name + 1);
		s->reg[r] = v;
		s->have |= 1u << r;
	}
	fclose(f);

	snprintf(rel, sizeof rel, "libunwindstack/%s/maps.txt", dir);
	f = fopen(corpus_path(path, sizeof path, rel), "r");
	ck_assert(f != NULL);
	char line[512];
	while (fgets(line, sizeof line, f) && s->nmaps < 8) {
		struct snap_map *m = &s->maps[s->nmaps];
		char perms[8];
		int used = 0;
		if (sscanf(line, "%" SCNx32 "-%" SCNx32 " %7s %" SCNx32 " %*s %*s %n", &m->start,
		           &m->end, perms, &m->offset, &used) < 4)
			continue;
		snprintf(m->name, sizeof m->name, "%s", line + used);
		squeeze(m->name);
		snprintf(rel, sizeof rel, "libunwindstack/%s/%s.gz", dir, m->name);
		m->elf = slurp(corpus_path(path, sizeof path, rel), &m->elf_len);
		if (m->elf && !elf_exidx(m->elf, m->elf_len, &m->info)) {
			free(m->elf);
			m->elf = NULL;
		}
		s->nmaps++;
	}
	fclose(f);

	static const char *const stacks[] = { "stack.data", "stack0.data", "stack1.data" };
	for (size_t i = 0; i < 3 && s->nmem < 2; i++) {
		snprintf(rel, sizeof rel, "libunwindstack/%s/%s", dir, stacks[i]);
		f = fopen(corpus_path(path, sizeof path, rel), "rb");
		if (!f)
			continue;
		uint8_t hdr[8];
		ck_assert(fread(hdr, 1, 8, f) == 8);
		s->mem[s->nmem].start = 0;
		for (int k = 7; k >= 0; k--)
			s->mem[s->nmem].start = s->mem[s->nmem].start << 8 | hdr[k];
		uint8_t *bytes = malloc(1 << 16);
		s->mem[s->nmem].len = fread(bytes, 1, 1 << 16, f);
		s->mem[s->nmem].bytes = bytes;
		s->nmem++;
		fclose(f);
	}
}

static void snap_free(struct snap *s)
{
	for (unsigned i = 0; i < s->nmaps; i++)
		free(s->maps[i].elf);
	for (unsigned i = 0; i < s->nmem; i++)
		free(s->mem[i].bytes);
}

static struct snap_map *snap_find_map(struct snap *s, uint32_t pc)
{
	for (unsigned i = 0; i < s->nmaps; i++)
		if (pc >= s->maps[i].start && pc < s->maps[i].end)
			return &s->maps[i];
	return NULL;
}

/* libunwindstack's arm pc adjustment for callers (see the corpus README):
 * back into the call, 4 for a 32-bit Thumb-2 BL/BLX and in ARM mode, else 2. */
static uint32_t pc_adjustment(const struct snap_map *m, uint32_t rel_pc)
{
	uint32_t x = rel_pc - (uint32_t)m->info.load_bias;
	if (x < 2)
		return 0;
	if (x < 5)
		return 2;
	if (!(x & 1))
		return 4;
	uint64_t off = x - 5; /* the ELF's file offset, load bias removed */
	if (off + 4 > m->elf_len)
		return 2;
	uint32_t w = (uint32_t)m->elf[off] | (uint32_t)m->elf[off + 1] << 8 |
	             (uint32_t)m->elf[off + 2] << 16 | (uint32_t)m->elf[off + 3] << 24;
	return (w & 0xe000f000u) == 0xe000f000u ? 4 : 2;
}

/* Unwinds the snapshot frame by frame through sw_exidx_unwind and checks
 * each caller's (adjusted pc, sp) against expected_pc_sp.txt. Returns the
 * number of caller frames checked. */
static unsigned walk_snapshot(const char *dir, unsigned max_steps)
{
	struct snap s;
	snap_load(&s, dir);
	char path[1024], rel[512];
	snprintf(rel, sizeof rel, "libunwindstack/%s/expected_pc_sp.txt", dir);
	FILE *f = fopen(corpus_path(path, sizeof path, rel), "r");
	ck_assert(f != NULL);
	uint32_t want_pc[32], want_sp[32];
	unsigned nwant = 0;
	char line[256];
	while (fgets(line, sizeof line, f) && nwant < 32) {
		unsigned idx;
		if (line[0] == '#' ||
		    sscanf(line, "%u %" SCNx32 " %" SCNx32, &idx, &want_pc[nwant], &want_sp[nwant]) != 3)
			continue;
		ck_assert_uint_eq(idx, nwant);
		nwant++;
	}
	fclose(f);
	ck_assert_uint_eq(s.reg[PC], want_pc[0]);
	ck_assert_uint_eq(s.reg[SP], want_sp[0]);

	unsigned checked = 0;
	struct sw_unwind_io io = { &s, snap_reg, snap_mem, 4, false };
	for (unsigned step = 0; step < max_steps && step + 1 < nwant; step++) {
		struct snap_map *m = snap_find_map(&s, s.reg[PC]);
		ck_assert_msg(m && m->elf, "%s frame %u: pc 0x%x in no ELF", dir, step, s.reg[PC]);
		uint32_t rel_pc = s.reg[PC] - m->start + m->offset + (uint32_t)m->info.load_bias;
		struct sw_unwind_result r;
		enum sw_cfi_status st = sw_exidx_unwind(&m->info.s, rel_pc & ~1u, &io, &r);
		ck_assert_msg(st == SW_CFI_OK, "%s frame %u: status %d at 0x%x", dir, step, st, rel_pc);
		for (uint32_t c = 0; c < 16; c++)
			if (sw_unwind_known(&r, c)) {
				s.reg[c] = (uint32_t)r.v[c];
				s.have |= 1u << c;
			}
		uint32_t pc = (uint32_t)r.v[r.ra_column];
		struct snap_map *cm = snap_find_map(&s, pc);
		if (cm && cm->elf)
			pc -= pc_adjustment(cm, pc - cm->start + cm->offset + (uint32_t)cm->info.load_bias);
		else
			pc -= 2;
		s.reg[PC] = pc;
		ck_assert_msg(pc == want_pc[step + 1] && s.reg[SP] == want_sp[step + 1],
		              "%s frame %u: pc 0x%x sp 0x%x, expected 0x%x 0x%x", dir, step + 1, pc,
		              s.reg[SP], want_pc[step + 1], want_sp[step + 1]);
		checked++;
	}
	snap_free(&s);
	return checked;
}

START_TEST(test_straddle_arm_frames_match_libunwindstack)
{
	/* #00 libc abort (its return address sits at a function end), #01
	 * and #02 in libbase, #03 in a library that is not there. */
	unsigned n = walk_snapshot("straddle_arm", 3);
	ck_assert_uint_eq(n, 3);
	fprintf(stderr, "test_arm_exidx: straddle_arm: %u caller frames match\n", n);
}
END_TEST

START_TEST(test_gnu_debugdata_arm_frame_matches_libunwindstack)
{
	/* Load bias 0x10000: the lookup address is pc - map + bias. */
	unsigned n = walk_snapshot("gnu_debugdata_arm", 1);
	ck_assert_uint_eq(n, 1);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("arm_exidx");
	TCase *tc = tcase_create("instructions");
	tcase_add_test(tc, test_finish_only_is_a_leaf_returning_through_lr);
	tcase_add_test(tc, test_vsp_add_and_subtract_short_forms);
	tcase_add_test(tc, test_pop_under_mask_reads_lowest_register_first);
	tcase_add_test(tc, test_popped_pc_is_the_callers_pc);
	tcase_add_test(tc, test_popping_sp_sets_vsp_to_the_loaded_value);
	tcase_add_test(tc, test_vsp_from_register);
	tcase_add_test(tc, test_pop_r4_to_rn_short_forms);
	tcase_add_test(tc, test_pop_r0_to_r3_under_mask);
	tcase_add_test(tc, test_long_vsp_add_uleb128);
	tcase_add_test(tc, test_vfp_pops_move_vsp_only);
	tcase_add_test(tc, test_iwmmxt_pops_move_vsp_only);
	tcase_add_test(tc, test_reserved_and_spare_opcodes_fail);
	tcase_add_test(tc, test_refuse_to_unwind_and_cantunwind_end_the_walk);
	tcase_add_test(tc, test_truncated_operands_fail);
	tcase_add_test(tc, test_unreadable_stack_fails);
	tcase_add_test(tc, test_decode_lists_every_op_with_its_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_test(tc, test_lu16_and_lu32_read_extra_words_and_end_without_finish);
	tcase_add_test(tc, test_generic_personality_runs_the_arm_instructions_after_it);
	tcase_add_test(tc, test_inline_entry_must_be_su16);
	tcase_add_test(tc, test_extab_pointer_outside_the_section_fails);
	tcase_add_test(tc, test_lookup_at_the_table_boundaries);
	tcase_add_test(tc, test_prel31_offsets_in_both_directions);
	tcase_add_test(tc, test_big_endian_tables_and_stack);
	suite_add_tcase(s, tc);

	tc = tcase_create("real");
	tcase_add_test(tc, test_decoder_matches_readelf_on_real_tables);
	tcase_add_test(tc, test_straddle_arm_frames_match_libunwindstack);
	tcase_add_test(tc, test_gnu_debugdata_arm_frame_matches_libunwindstack);
	suite_add_tcase(s, tc);
	return s;
}
