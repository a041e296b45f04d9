/* The snapshot's problem list (lib/snapshot.c): every problem in the order
 * found, but for the fourth and later of a kind and those past
 * SW_MAX_PROBLEMS, which one last line counts; on synthetic problems and
 * on damaged dumps the fuzzer made. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/open.h"
#include "lib/snapshot.h"
#include "testutil.h"

/* A reader's warning (as formats/minidump.c's md_problem gives one). */
static void warning(struct sw_snapshot *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sw_snapshot_vproblem(s, true, fmt, ap);
	va_end(ap);
}

static const char *const summary_of_one =
	"1 more problems not listed: more of the kinds above (3 of each are), or past the first 100";

START_TEST(test_problems_of_different_kinds_are_all_listed)
{
	struct sw_snapshot s;
	sw_snapshot_init(&s, "x.dmp");
	const char *kinds[] = { "bad name", "bad size", "bad base", "bad time", "bad id" };
	for (int i = 0; i < 5; i++)
		sw_snapshot_problem(&s, "module %d: %s", i, kinds[i]);
	ck_assert_uint_eq(s.nproblems, 5);
	ck_assert_str_eq(s.problems[4], "module 4: bad id");
	ck_assert_uint_eq(sw_snapshot_problems_found(&s), 5);
	sw_snapshot_free(&s);
}
END_TEST

/* The same text but for its numbers (decimal, hex) is one kind: three are
 * listed, the rest counted in the last line, which later lines of other
 * kinds go before. */
START_TEST(test_fourth_of_a_kind_is_counted)
{
	struct sw_snapshot s;
	sw_snapshot_init(&s, "x.dmp");
	for (int i = 0; i < 4; i++)
		sw_snapshot_problem(&s, "module %d name at 0x%x extends past the end", i, 0x34d0c + 40 * i);
	ck_assert_uint_eq(s.nproblems, 4);
	ck_assert_str_eq(s.problems[2], "module 2 name at 0x34d5c extends past the end");
	ck_assert_str_eq(s.problems[3], summary_of_one);
	sw_snapshot_problem(&s, "the strings decode to more text than 281864 bytes");
	ck_assert_uint_eq(s.nproblems, 5);
	ck_assert_str_eq(s.problems[3], "the strings decode to more text than 281864 bytes");
	ck_assert_str_eq(s.problems[4], summary_of_one);
	ck_assert_uint_eq(sw_snapshot_problems_found(&s), 5);
	/* Not a kind: a name in the text makes another. */
	sw_snapshot_problem(&s, "module 9 name at 0x1 extends past the end of libc.so");
	ck_assert_uint_eq(s.nproblems, 6);
	sw_snapshot_free(&s);
}
END_TEST

/* The kind comes from the format and its arguments, not the printed
 * text: a number conversion is a number whatever digits it prints (hex
 * that starts with a letter too), a string argument is its text with its
 * numbers folded, and what is listed is printed as the format says. */
START_TEST(test_kind_of_formatted_arguments)
{
	struct sw_snapshot s;
	sw_snapshot_init(&s, "x.dmp");
	const unsigned long long values[] = { 0xdeadbeef, 0x1234, 0xabc, 7 };
	for (int i = 0; i < 4; i++)
		sw_snapshot_problem(&s, "entry at %llx is bad", values[i]);
	ck_assert_uint_eq(s.nproblems, 4);
	ck_assert_str_eq(s.problems[0], "entry at deadbeef is bad");
	ck_assert_str_eq(s.problems[2], "entry at abc is bad");
	ck_assert_ptr_eq(s.problems[3], s.problems_summary);
	const char *labels[] = { "thread 5 (0x1f) stack", "thread 6 (0xa0) stack",
		                 "thread 7 (0x21) stack", "thread 8 (0x22) stack" };
	for (int i = 0; i < 4; i++)
		sw_snapshot_problem(&s, "%s at 0x%x: %.*s", labels[i], 16 * i, 3, "cut short");
	ck_assert_uint_eq(s.nproblems, 7);
	ck_assert_str_eq(s.problems[4], "thread 6 (0xa0) stack at 0x10: cut");
	ck_assert_uint_eq(sw_snapshot_problems_found(&s), 8);
	/* Another string argument is another kind. */
	sw_snapshot_problem(&s, "%s at 0x%x: %.*s", "module 1 name", 0, 3, "cut short");
	ck_assert_uint_eq(s.nproblems, 8);
	ck_assert_str_eq(s.problems[6], "module 1 name at 0x0: cut");
	/* A conversion the shape does not read (the ' flag, POSIX): the
	 * printed text's shape, numbers left out all the same. */
	for (int i = 0; i < 4; i++)
		sw_snapshot_problem(&s, "%'d items", 1000 * (i + 1));
	ck_assert_uint_eq(sw_snapshot_problems_found(&s), 13);
	ck_assert_uint_eq(s.nproblems, 11);
	/* A warning is another kind than the same problem. */
	warning(&s, "entry at %llx is bad", 1ull);
	ck_assert_str_eq(s.problems[10], "warning: entry at 1 is bad");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_problems_past_the_cap_are_counted)
{
	struct sw_snapshot s;
	sw_snapshot_init(&s, "x.dmp");
	char text[32];
	for (int i = 0; i < 250; i++) {
		/* 250 kinds: the letters differ, not the numbers. */
		snprintf(text, sizeof text, "problem %c%c", 'a' + i / 26, 'a' + i % 26);
		sw_snapshot_problem(&s, "%s", text);
	}
	ck_assert_uint_eq(s.nproblems, SW_MAX_PROBLEMS + 1);
	ck_assert_str_eq(s.problems[0], "problem aa");
	ck_assert_str_eq(s.problems[SW_MAX_PROBLEMS - 1], "problem dv");
	ck_assert_str_eq(s.problems[SW_MAX_PROBLEMS], "150 more problems not listed: more of the "
	                                             "kinds above (3 of each are), or past the "
	                                             "first 100");
	ck_assert_uint_eq(sw_snapshot_problems_found(&s), 250);
	sw_snapshot_free(&s);
}
END_TEST

/* A file's verdict names its first damage, not a warning nor the count. */
START_TEST(test_verdict_names_the_first_damage)
{
	struct sw_snapshot s;
	sw_snapshot_init(&s, "x.dmp");
	for (int i = 0; i < 10; i++)
		sw_snapshot_problem(&s, "warning: name %d cut", i);
	sw_snapshot_problem(&s, "the budget ran out");
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snapshot_verdict(&s, "x.dmp", "minidump", 1, &err), SW_ERR_CORRUPT);
	ck_assert_str_eq(err.msg, "x.dmp: damaged minidump: the budget ran out");
	sw_snapshot_free(&s);
}
END_TEST

/* Real hostile dumps of ../shared/corpus/fuzz-found: thousands of problems
 * of a few kinds. */
static void open_hostile(const char *rel, struct sw_snapshot *s)
{
	char path[512];
	corpus_path(path, sizeof path, rel);
	struct sw_err err = { 0 };
	enum sw_err_code rc = sw_snapshot_open(path, s, &err);
	ck_assert_msg(rc == SW_OK || rc == SW_ERR_CORRUPT, "%s: %s", path, err.msg);
}

static bool corpus_has(const char *rel)
{
	char path[512];
	FILE *f = fopen(corpus_path(path, sizeof path, rel), "rb");
	if (f)
		fclose(f);
	else
		printf("skipped: %s is not here\n", path);
	return f != NULL;
}

START_TEST(test_hostile_dumps_list_a_few_lines)
{
	const char *dumps[] = { "fuzz-found/huge-module-count.dmp",
		                "fuzz-found/module-name-amplification.dmp",
		                "fuzz-found/dso-debug-name-amplification.dmp" };
	for (size_t i = 0; i < sizeof dumps / sizeof *dumps; i++) {
		if (!corpus_has(dumps[i]))
			continue;
		struct sw_snapshot s;
		open_hostile(dumps[i], &s);
		ck_assert_uint_le(s.nproblems, 40);
		ck_assert_uint_gt(sw_snapshot_problems_found(&s), 2000);
		ck_assert_ptr_eq(s.problems[s.nproblems - 1], s.problems_summary);
		sw_snapshot_free(&s);
	}
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("problems");
	tcase_add_test(tc, test_problems_of_different_kinds_are_all_listed);
	tcase_add_test(tc, test_fourth_of_a_kind_is_counted);
	tcase_add_test(tc, test_kind_of_formatted_arguments);
	tcase_add_test(tc, test_problems_past_the_cap_are_counted);
	tcase_add_test(tc, test_verdict_names_the_first_damage);
	tcase_add_test(tc, test_hostile_dumps_list_a_few_lines);
	suite_add_tcase(s, tc);
	return s;
}
