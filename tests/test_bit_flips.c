/* Bit flips (lib/bit_flips.h): which addresses one bit away count, and
 * rust-minidump's heuristics and confidence for each (its JSON's
 * possible_bit_flips of linux-mini.dmp, 0x45 -> 0x400045 at 0.25, is the
 * conformance test's). */
#include <check.h>
#include <string.h>

#include "lib/bit_flips.h"

/* A snapshot with one module, [0x400000, 0x41a000), and no memory. */
static struct sw_module module = { .base = 0x400000, .size = 0x1a000 };

static void snapshot(struct sw_snapshot *s)
{
	memset(s, 0, sizeof *s);
	s->modules = &module;
	s->nmodules = 1;
}

/* Registers for the heuristics: values[i], named "r<i>", all valid. */
struct regs {
	const uint64_t *values;
	const char *const *names;
};

static bool get(const void *ctx, unsigned i, uint64_t *value, const char **name)
{
	const struct regs *r = ctx;
	*value = r->values[i];
	*name = r->names[i];
	return true;
}

static const char *const names[] = { "rax", "rbx", "rcx", "rdx" };

/* With the frame's registers values[0..nvalues) (named by names[]) and,
 * where `source` names one, that register as the instruction's address
 * register. */
static unsigned flips_from(uint64_t address, bool non_canonical, const char *source,
                           const uint64_t *values, unsigned nvalues, struct sw_bit_flip *out)
{
	struct sw_snapshot s;
	snapshot(&s);
	struct regs r = { values, names };
	struct sw_bit_flip_regs regs = { nvalues, get, &r, 8 };
	struct sw_bit_flip_source src = { source, 0 };
	for (unsigned i = 0; source && i < nvalues; i++)
		if (strcmp(names[i], source) == 0)
			src.value = values[i];
	return sw_bit_flips(&s, address, non_canonical, &src, source ? 1 : 0, &regs, out, 16);
}

static unsigned flips(uint64_t address, bool non_canonical, const uint64_t *values,
                      unsigned nvalues, struct sw_bit_flip *out)
{
	return flips_from(address, non_canonical, NULL, values, nvalues, out);
}

START_TEST(test_one_bit_to_a_module_at_the_baseline)
{
	struct sw_bit_flip f[16];
	static const uint64_t none[1] = { 0 };
	ck_assert_uint_eq(flips(0x45, false, none, 0, f), 1);
	ck_assert_uint_eq(f[0].address, 0x400045);
	ck_assert_ptr_null(f[0].source_register);
	ck_assert(!f[0].is_null && !f[0].was_low && !f[0].was_non_canonical);
	ck_assert_uint_eq(f[0].nearby_registers, 0);
	ck_assert_float_eq(f[0].confidence, 0.25f);
	/* A mapped address is no crash of a flipped bit. */
	ck_assert_uint_eq(flips(0x400100, false, none, 0, f), 0);
}
END_TEST

/* The register the address came from is the candidate's source;
 * registers within 4 KiB of the candidate raise the confidence (two:
 * 0.55), an allocator's poison in any register halves it. */
START_TEST(test_sources_nearby_registers_and_poison)
{
	struct sw_bit_flip f[16];
	const uint64_t held[4] = { 0x10000400045ull, 0x400100, 0x401000, 7 };
	ck_assert_uint_eq(flips_from(0x10000400045ull, false, "rax", held, 4, f), 1);
	ck_assert_uint_eq(f[0].address, 0x400045);
	ck_assert_str_eq(f[0].source_register, "rax");
	ck_assert_uint_eq(f[0].nearby_registers, 2);
	ck_assert_float_eq_tol(f[0].confidence, 1.0f - 0.75f * 0.45f, 1e-6f);
	const uint64_t poisoned[4] = { 0x10000400045ull, 0xe5e5e5e5e5e5e5e5ull, 0, 0 };
	ck_assert_uint_eq(flips_from(0x10000400045ull, false, "rax", poisoned, 4, f), 1);
	ck_assert(f[0].poison_registers);
	ck_assert_float_eq_tol(f[0].confidence, 0.25f * 0.5f, 1e-6f);
}
END_TEST

/* One bit from null: a low address halves the null weight; an amd64
 * non-canonical address one bit from a mapped one weighs 0.9. */
START_TEST(test_null_and_non_canonical)
{
	struct sw_bit_flip f[16];
	static const uint64_t none[1] = { 0 };
	ck_assert_uint_eq(flips(0x10, false, none, 0, f), 2); /* bit 4, bit 22: in bit order */
	ck_assert_uint_eq(f[1].address, 0x400010);
	ck_assert_uint_eq(f[0].address, 0);
	ck_assert(f[0].is_null && f[0].was_low);
	ck_assert_float_eq_tol(f[0].confidence, 1.0f - 0.75f * 0.75f, 1e-6f);
	ck_assert_uint_eq(flips(0x8000000000400045ull, true, none, 0, f), 1);
	ck_assert(f[0].was_non_canonical);
	ck_assert_float_eq_tol(f[0].confidence, 1.0f - 0.75f * 0.1f, 1e-6f);
}
END_TEST

/* The flip is of the register, not of the address it made: `mov rax,
 * qword [rax + 0xd0]` faulting at 0x1000000d0 with rax = 0x100000000 is
 * a null pointer one bit away, at 0.625 (a real Socorro report,
 * rust-minidump's answer: address 0, rax, is_null, not was_low). */
START_TEST(test_the_source_register_is_flipped)
{
	struct sw_bit_flip f[16];
	const uint64_t rax[1] = { 0x100000000ull };
	ck_assert_uint_eq(flips_from(0x1000000d0ull, false, "rax", rax, 1, f), 1);
	ck_assert_uint_eq(f[0].address, 0);
	ck_assert_str_eq(f[0].source_register, "rax");
	ck_assert(f[0].is_null && !f[0].was_low);
	ck_assert_float_eq_tol(f[0].confidence, 0.625f, 1e-6f);
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("bit_flips");
	TCase *tc = tcase_create("bit_flips");
	tcase_add_test(tc, test_one_bit_to_a_module_at_the_baseline);
	tcase_add_test(tc, test_sources_nearby_registers_and_poison);
	tcase_add_test(tc, test_null_and_non_canonical);
	tcase_add_test(tc, test_the_source_register_is_flipped);
	suite_add_tcase(s, tc);
	return s;
}
