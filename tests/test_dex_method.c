/* The Java method at a DEX offset (lib/dex_method.h), over the DEX file
 * tests/dex_fixture.h builds, whose layout the test knows. */
#include <check.h>
#include <string.h>

#include "dex_fixture.h"
#include "lib/dex_method.h"

static bool method_at(const struct dex_view *v, uint64_t off, struct sw_arena *a,
                      struct sw_dex_method *m)
{
	return sw_dex_method_at(dex_read_view, (void *)v, off, a, m);
}

START_TEST(test_the_method_whose_code_holds_the_offset)
{
	struct dex_fixture f = dex_fixture_build(0);
	struct dex_view v = { f.b, f.size };
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_dex_method m;
	ck_assert(method_at(&v, f.main_insns, &a, &m));
	ck_assert_str_eq(m.name, "com.example.Crash.main");
	ck_assert_uint_eq(m.code_offset, f.main_insns);
	ck_assert(method_at(&v, f.main_insns + 7, &a, &m));        /* main's last byte */
	ck_assert_str_eq(m.name, "com.example.Crash.main");
	ck_assert(method_at(&v, f.run_insns + 4, &a, &m));         /* a virtual method */
	ck_assert_str_eq(m.name, "com.example.Crash.run");
	ck_assert_uint_eq(m.code_offset, f.run_insns);
	/* Not in any method's instructions: the header, a code_item's own
	 * header, past main's 4 units, past the file. */
	ck_assert(!method_at(&v, 0x10, &a, &m));
	ck_assert(!method_at(&v, f.run_insns - 4, &a, &m));
	ck_assert(!method_at(&v, f.main_insns + 8, &a, &m));
	ck_assert(!method_at(&v, f.size + 100, &a, &m));
	sw_arena_free(&a);
	free(f.b);
}
END_TEST

START_TEST(test_not_a_dex_file_or_missing_bytes)
{
	struct dex_fixture f = dex_fixture_build(0);
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_dex_method m;
	/* Bytes missing from the snapshot: a view cut anywhere before the
	 * last method's entry (`later`, 4 bytes, read after run's) fails. */
	for (size_t n = 0; n + 4 < f.size; n++) {
		struct dex_view v = { f.b, n };
		ck_assert(!method_at(&v, f.run_insns, &a, &m));
	}
	struct dex_view v = { f.b, f.size };
	f.b[3] = 'x'; /* magic */
	ck_assert(!method_at(&v, f.main_insns, &a, &m));
	f.b[3] = '\n';
	dex_put32(f.b, 0x28, 0x78563412); /* a big-endian file: not read */
	ck_assert(!method_at(&v, f.main_insns, &a, &m));
	dex_put32(f.b, 0x28, 0x12345678);
	dex_put32(f.b, 0x60, 0x10000000); /* class_defs past the file */
	ck_assert(!method_at(&v, f.main_insns, &a, &m));
	dex_put32(f.b, 0x60, 1);
	ck_assert(method_at(&v, f.main_insns, &a, &m));
	sw_arena_free(&a);
	free(f.b);
}
END_TEST

/* Every class_def naming one class_data item of 32,767 methods would
 * cost classes x methods (half a billion reads) without the budget. And every byte
 * changed in turn: no read outside the file (ASan), an answer or none. */
START_TEST(test_bounded_on_hostile_files)
{
	enum { SIZE = 1 << 20 };
	uint8_t *b = calloc(1, SIZE);
	ck_assert_ptr_nonnull(b);
	memcpy(b, "dex\n035", 8);
	dex_put32(b, 0x20, SIZE);
	dex_put32(b, 0x28, 0x12345678);
	dex_put32(b, 0x58, 1);       /* one method_id */
	dex_put32(b, 0x5c, 0x70);
	uint32_t ndefs = 0x4000;     /* class_defs at 0x80, all naming 0x90000 */
	dex_put32(b, 0x60, ndefs);
	dex_put32(b, 0x64, 0x80);
	for (uint32_t i = 0; i < ndefs; i++)
		dex_put32(b, 0x80 + 32 * i + 24, 0x90000);
	/* class_data: 0, 0, 0, 0x7fff virtual methods of diff 0 (method 0),
	 * no code: each is 3 bytes, read again by every class. */
	size_t at = 0x90000;
	b[at++] = 0, b[at++] = 0, b[at++] = 0, b[at++] = 0xff, b[at++] = 0xff, b[at++] = 0x01;
	struct dex_view v = { b, SIZE };
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_dex_method m;
	ck_assert(!method_at(&v, 0x200, &a, &m));
	free(b);

	struct dex_fixture f = dex_fixture_build(0);
	struct dex_view fv = { f.b, f.size };
	for (size_t i = 0; i < f.size; i++)
		for (unsigned bit = 0; bit < 8; bit += 3) {
			f.b[i] ^= (uint8_t)(1u << bit);
			(void)method_at(&fv, f.main_insns, &a, &m);
			f.b[i] ^= (uint8_t)(1u << bit);
		}
	sw_arena_free(&a);
	free(f.b);
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("dex_method");
	TCase *tc = tcase_create("dex_method");
	tcase_add_test(tc, test_the_method_whose_code_holds_the_offset);
	tcase_add_test(tc, test_not_a_dex_file_or_missing_bytes);
	tcase_add_test(tc, test_bounded_on_hostile_files);
	suite_add_tcase(s, tc);
	return s;
}
