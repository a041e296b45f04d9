/* The DWARF expression stack machine (DWARF 5 §2.5.1): each operation
 * with hand-built bytes, wrapping at the address size, and the ways an
 * expression fails (underflow, truncation, division by zero, a loop). */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "symbols/dwarf_cfi_internal.h"
#include "symbols/dwarf_expr.h"

struct regs {
	uint64_t mem_base;
	uint8_t mem[64];
};

static bool reg_read(void *self, uint32_t n, uint64_t *v)
{
	(void)self;
	if (n == 99)
		return false;
	*v = n == 0x1c22 ? 16 : 0x1000 + n;  /* register n holds 0x1000 + n */
	return true;
}

static bool mem_read(void *self, uint64_t addr, void *out, size_t n)
{
	struct regs *r = self;
	if (addr < r->mem_base || addr - r->mem_base + n > sizeof r->mem)
		return false;
	memcpy(out, r->mem + (addr - r->mem_base), n);
	return true;
}

static struct regs R;

static enum sw_expr_status run(uint8_t word, const uint8_t *e, size_t n, uint64_t *out)
{
	struct sw_unwind_io io = { &R, reg_read, mem_read, word, false };
	return sw_dwarf_expr_eval(e, n, &io, false, 0, out);
}

#define EVAL64(want, ...) do { \
	const uint8_t e_[] = { __VA_ARGS__ }; uint64_t v_ = 0; \
	ck_assert_int_eq(run(8, e_, sizeof e_, &v_), SW_EXPR_OK); \
	ck_assert_msg(v_ == (uint64_t)(want), "got %llx", (unsigned long long)v_); \
} while (0)
#define EVAL32(want, ...) do { \
	const uint8_t e_[] = { __VA_ARGS__ }; uint64_t v_ = 0; \
	ck_assert_int_eq(run(4, e_, sizeof e_, &v_), SW_EXPR_OK); \
	ck_assert_msg(v_ == (uint64_t)(want), "got %llx", (unsigned long long)v_); \
} while (0)
#define FAILS(status, ...) do { \
	const uint8_t e_[] = { __VA_ARGS__ }; uint64_t v_ = 0; \
	ck_assert_int_eq(run(8, e_, sizeof e_, &v_), status); \
} while (0)

START_TEST(test_expr_literals_and_constants)
{
	EVAL64(0, 0x30);
	EVAL64(31, 0x4f);
	EVAL64(0xff, 0x08, 0xff);
	EVAL64(-1, 0x09, 0xff);
	EVAL64(0x8001, 0x0a, 0x01, 0x80);
	EVAL64(-32767, 0x0b, 0x01, 0x80);
	EVAL64(0x80000001, 0x0c, 0x01, 0, 0, 0x80);
	EVAL64(-2147483647, 0x0d, 0x01, 0, 0, 0x80);
	EVAL64(0x8000000000000001, 0x0e, 1, 0, 0, 0, 0, 0, 0, 0x80);
	EVAL64(0x8000000000000001, 0x0f, 1, 0, 0, 0, 0, 0, 0, 0x80);
	EVAL64(624485, 0x10, 0xe5, 0x8e, 0x26);
	EVAL64(-123456, 0x11, 0xc0, 0xbb, 0x78);
	EVAL64(0x401000, 0x03, 0x00, 0x10, 0x40, 0, 0, 0, 0, 0);
	/* DW_OP_addr gets the load bias through the internal entry. */
	const uint8_t addr[] = { 0x03, 0x00, 0x10, 0, 0, 0, 0, 0, 0 };
	struct sw_unwind_io io = { &R, reg_read, mem_read, 8, false };
	uint64_t v;
	ck_assert_int_eq(sw_dwarf_expr_eval_biased(addr, sizeof addr, &io, 0x5000, false, 0, &v),
	                 SW_EXPR_OK);
	ck_assert_uint_eq(v, 0x6000);
	/* 32-bit: const4s -1 is 0xffffffff, consts wraps. */
	EVAL32(0xffffffff, 0x0d, 0xff, 0xff, 0xff, 0xff);
	EVAL32(0xffffffff, 0x11, 0x7f);
}
END_TEST

START_TEST(test_expr_stack_operations)
{
	EVAL64(5, 0x35, 0x12, 0x22, 0x35, 0x1c);      /* 5 dup plus 5 minus */
	EVAL64(1, 0x31, 0x32, 0x13);                   /* drop */
	EVAL64(1, 0x31, 0x32, 0x14);                   /* over */
	EVAL64(1, 0x31, 0x32, 0x33, 0x15, 2);          /* pick 2 */
	EVAL64(3, 0x31, 0x32, 0x33, 0x15, 0);          /* pick 0 */
	EVAL64(1, 0x31, 0x32, 0x16);                   /* swap */
	EVAL64(2, 0x31, 0x32, 0x33, 0x17);             /* rot: 1 2 3 -> 3 1 2 */
	EVAL64(3, 0x31, 0x32, 0x33, 0x17, 0x13, 0x13);
	EVAL64(1, 0x31, 0x32, 0x33, 0x17, 0x13);
	FAILS(SW_EXPR_MALFORMED, 0x13);
	FAILS(SW_EXPR_MALFORMED, 0x31, 0x14);
	FAILS(SW_EXPR_MALFORMED, 0x31, 0x15, 1);
	FAILS(SW_EXPR_MALFORMED, 0x31, 0x32, 0x17);
	FAILS(SW_EXPR_MALFORMED);                     /* empty: no result */
	/* 65 pushes overflow the 64-entry stack. */
	uint8_t deep[65];
	memset(deep, 0x30, sizeof deep);
	uint64_t v;
	ck_assert_int_eq(run(8, deep, sizeof deep, &v), SW_EXPR_MALFORMED);
	ck_assert_int_eq(run(8, deep, 64, &v), SW_EXPR_OK);
}
END_TEST

START_TEST(test_expr_arithmetic)
{
	EVAL64(5, 0x09, 0xfb, 0x19);                   /* abs -5 */
	EVAL64(0x0c, 0x3e, 0x3c, 0x1a);                /* 14 & 12 */
	EVAL64(-3, 0x09, 0xfa, 0x32, 0x1b);            /* -6 / 2 (signed) */
	EVAL64(INT64_MIN, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x09, 0xff, 0x1b); /* MIN / -1 wraps */
	FAILS(SW_EXPR_MALFORMED, 0x31, 0x30, 0x1b);    /* div by 0 */
	FAILS(SW_EXPR_MALFORMED, 0x31, 0x30, 0x1d);    /* mod by 0 */
	EVAL64(-1, 0x31, 0x32, 0x1c);                  /* 1 - 2 */
	EVAL64(1, 0x37, 0x33, 0x1d);                   /* 7 mod 3 */
	EVAL64(42, 0x36, 0x37, 0x1e);                  /* 6 * 7 */
	EVAL64(-7, 0x37, 0x1f);
	EVAL64(~(uint64_t)0, 0x30, 0x20);
	EVAL64(0x0e, 0x3c, 0x36, 0x21);                /* 12 | 6 */
	EVAL64(0x107, 0x10, 0x80, 0x02, 0x37, 0x22);   /* 256 + 7 */
	EVAL64(0x1010, 0x4f, 0x23, 0xf1, 0x1f);        /* 31 + 0xff1 */
	EVAL64(0x40, 0x31, 0x36, 0x24);                /* 1 << 6 */
	EVAL64(0, 0x31, 0x08, 64, 0x24);               /* shift >= 64 */
	EVAL64(0x3, 0x08, 0xc0, 0x36, 0x25);           /* 0xc0 >> 6 */
	EVAL64(-2, 0x09, 0xf8, 0x32, 0x26);            /* -8 >>a 2 */
	EVAL64(-1, 0x09, 0xf8, 0x08, 80, 0x26);
	EVAL64(6, 0x33, 0x35, 0x27);                   /* 3 ^ 5 */
	/* 32-bit wrapping. */
	EVAL32(0, 0x0c, 0xff, 0xff, 0xff, 0xff, 0x31, 0x22);
	EVAL32(0x7fffffff, 0x0c, 0xfe, 0xff, 0xff, 0xff, 0x31, 0x26 /* -2 >>a 1 = -1 */, 0x31, 0x25);
	EVAL32(0xfffffffe, 0x0c, 0xfc, 0xff, 0xff, 0xff, 0x32, 0x1b); /* -4 / 2 */
	EVAL32(1, 0x0c, 0xff, 0xff, 0xff, 0xff, 0x30, 0x2d);          /* -1 < 0 */
}
END_TEST

START_TEST(test_expr_comparisons_and_branches)
{
	EVAL64(1, 0x32, 0x32, 0x29);
	EVAL64(0, 0x32, 0x33, 0x29);
	EVAL64(1, 0x33, 0x32, 0x2a);
	EVAL64(1, 0x32, 0x32, 0x2a);
	EVAL64(1, 0x33, 0x32, 0x2b);
	EVAL64(1, 0x32, 0x32, 0x2c);
	EVAL64(1, 0x09, 0xff, 0x30, 0x2d);             /* -1 < 0: signed */
	EVAL64(1, 0x32, 0x33, 0x2e);
	/* skip over a lit: 1 skip(+1) lit5 -> 1 */
	EVAL64(1, 0x31, 0x2f, 0x01, 0x00, 0x35);
	/* bra taken / not taken */
	EVAL64(7, 0x31, 0x28, 0x01, 0x00, 0x35, 0x37);
	EVAL64(5, 0x30, 0x28, 0x01, 0x00, 0x35);
	/* skip to the very end is fine; past it is not */
	EVAL64(1, 0x31, 0x2f, 0x00, 0x00);
	FAILS(SW_EXPR_MALFORMED, 0x31, 0x2f, 0x05, 0x00);
	FAILS(SW_EXPR_MALFORMED, 0x31, 0x2f, 0xf0, 0xff);
	/* A backward skip loops until the budget ends it. */
	FAILS(SW_EXPR_BUDGET, 0x31, 0x2f, 0xfd, 0xff);
	/* A counting loop that ends within budget: 10 down to 0. */
	EVAL64(0, 0x3a, 0x12, 0x28, 0x03, 0x00, 0x2f, 0x05, 0x00, 0x31, 0x1c, 0x2f, 0xf4, 0xff);
}
END_TEST

START_TEST(test_expr_registers_and_memory)
{
	EVAL64(0x1005, 0x55);                          /* reg5 */
	EVAL64(0x101f, 0x6f);                          /* reg31 */
	EVAL64(0x1000 + 200, 0x90, 0xc8, 0x01);        /* regx 200 */
	EVAL64(0x1007 - 8, 0x77, 0x78);                /* breg7 -8 */
	EVAL64(16 + 4, 0x92, 0xa2, 0x38, 0x04);        /* bregx vlenb +4 */
	FAILS(SW_EXPR_UNAVAILABLE, 0x90, 99);
	FAILS(SW_EXPR_UNAVAILABLE, 0x92, 99, 0);
	R.mem_base = 0x2000;
	for (int i = 0; i < 64; i++)
		R.mem[i] = (uint8_t)(i + 1);
	EVAL64(0x0807060504030201, 0x0a, 0x00, 0x20, 0x06);
	EVAL32(0x04030201, 0x0a, 0x00, 0x20, 0x06);
	EVAL64(0x0302, 0x0a, 0x01, 0x20, 0x94, 2);
	EVAL64(0x05, 0x0a, 0x04, 0x20, 0x94, 1);
	FAILS(SW_EXPR_MALFORMED, 0x0a, 0x04, 0x20, 0x94, 9);
	FAILS(SW_EXPR_MALFORMED, 0x0a, 0x04, 0x20, 0x94, 0);
	FAILS(SW_EXPR_UNAVAILABLE, 0x0a, 0x00, 0x10, 0x06);
	/* The pushed CFA is the bottom entry. */
	struct sw_unwind_io io = { &R, reg_read, mem_read, 8, false };
	const uint8_t e[] = { 0x08, 0x10, 0x22 };
	uint64_t v;
	ck_assert_int_eq(sw_dwarf_expr_eval(e, sizeof e, &io, true, 0x7000, &v), SW_EXPR_OK);
	ck_assert_uint_eq(v, 0x7010);
	/* Big-endian: operands and memory. */
	io.big_endian = true;
	const uint8_t d[] = { 0x0a, 0x20, 0x00, 0x94, 4 };
	ck_assert_int_eq(sw_dwarf_expr_eval(d, sizeof d, &io, false, 0, &v), SW_EXPR_OK);
	ck_assert_uint_eq(v, 0x01020304);
}
END_TEST

START_TEST(test_expr_nop_stack_value_and_unsupported)
{
	EVAL64(3, 0x96, 0x33, 0x96);
	EVAL64(3, 0x33, 0x9f, 0x35);                   /* stack_value ends it */
	/* ART's dex pc marker: const4u 'DEX1', drop, then the value. */
	EVAL64(0x1003, 0x0c, 0x31, 0x58, 0x45, 0x44, 0x13, 0x73, 0x00);
	FAILS(SW_EXPR_UNSUPPORTED, 0x31, 0x18);        /* xderef */
	FAILS(SW_EXPR_UNSUPPORTED, 0x9c);              /* call_frame_cfa */
	FAILS(SW_EXPR_UNSUPPORTED, 0x98, 0, 0);        /* call2 */
	FAILS(SW_EXPR_UNSUPPORTED, 0x9b);
	FAILS(SW_EXPR_UNSUPPORTED, 0x91, 0);           /* fbreg */
	FAILS(SW_EXPR_UNSUPPORTED, 0xe0);              /* GNU_push_tls_address */
	FAILS(SW_EXPR_MALFORMED, 0x01);                /* not an operation */
	FAILS(SW_EXPR_MALFORMED, 0x0c, 1, 2);          /* truncated operand */
	FAILS(SW_EXPR_MALFORMED, 0x10, 0x80);          /* truncated LEB128 */
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("dwarf_expr");
	TCase *tc = tcase_create("ops");
	tcase_add_test(tc, test_expr_literals_and_constants);
	tcase_add_test(tc, test_expr_stack_operations);
	tcase_add_test(tc, test_expr_arithmetic);
	tcase_add_test(tc, test_expr_comparisons_and_branches);
	tcase_add_test(tc, test_expr_registers_and_memory);
	tcase_add_test(tc, test_expr_nop_stack_value_and_unsupported);
	suite_add_tcase(s, tc);
	return s;
}
