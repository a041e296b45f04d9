/* The pipeline (pipeline/pipeline.h) as cmd/ and the API call it: the
 * example minidump opened, walked with its symbols on the CPU its system
 * info names, and signed; a snapshot whose store cannot use a symbol path
 * still walks; a capture folder told from a folder of snapshots. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"

static char example_dump[4096], example_symbols[4096];

static void paths(void)
{
	const char *td = getenv("SW_TESTDATA");
	ck_assert_ptr_nonnull(td);
	snprintf(example_dump, sizeof example_dump, "%s/example/test.dmp", td);
	snprintf(example_symbols, sizeof example_symbols, "%s/example/symbols", td);
}

static void open_example(struct sw_snapshot *snap)
{
	paths();
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_pipeline_open(example_dump, NULL, NULL, snap, &err), SW_OK);
}

START_TEST(test_pipeline_walks_and_signs_the_example_on_its_cpu)
{
	struct sw_snapshot snap;
	open_example(&snap);
	struct sw_sig_rules rules;
	sw_sig_rules_init(&rules);
	ck_assert(sw_sig_rules_add_defaults(&rules));
	const char *const sym[] = { example_symbols };
	struct sw_pipeline_options po = {
		.name = example_dump,
		.symbols = { .paths = sym, .npaths = 1, .local_modules = -1 },
		.rules = &rules,
	};
	struct sw_pipeline_result res;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_pipeline_walk(&snap, &po, &res, &err), SW_OK);
	ck_assert_ptr_nonnull(res.arch);
	ck_assert_str_eq(res.arch->name, "x86");
	ck_assert_ptr_nonnull(res.store);
	ck_assert_int_eq(res.store_err.code, SW_OK);
	ck_assert_int_ge(res.walk.crashing, 0);
	ck_assert_ptr_eq(res.signed_stack, &res.walk.stacks[res.walk.crashing]);
	ck_assert_str_eq(res.sig.text, "`anonymous namespace'::CrashFunction");
	ck_assert_uint_ge(res.signed_stack->nframes, 3);
	sw_pipeline_result_free(&res);
	sw_sig_rules_free(&rules);
	sw_snapshot_free(&snap);
}
END_TEST

START_TEST(test_pipeline_without_rules_walks_but_does_not_sign)
{
	struct sw_snapshot snap;
	open_example(&snap);
	struct sw_pipeline_options po = { .name = example_dump, .symbols = { .local_modules = -1 } };
	struct sw_pipeline_result res;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_pipeline_walk(&snap, &po, &res, &err), SW_OK);
	ck_assert_uint_gt(res.walk.nstacks, 0);
	ck_assert_ptr_null(res.signed_stack);
	sw_pipeline_result_free(&res);
	sw_snapshot_free(&snap);
}
END_TEST

START_TEST(test_pipeline_names_a_missing_symbol_path)
{
	paths();
	ck_assert_ptr_null(sw_pipeline_symbol_path_missing(example_symbols));
	const char *why = sw_pipeline_symbol_path_missing("/nonexistent/stackwalk-symbols");
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, strerror(ENOENT));
}
END_TEST

START_TEST(test_pipeline_tells_a_capture_folder_from_a_folder_of_snapshots)
{
	const char *td = getenv("SW_TESTDATA");
	char capture[4096], example[4096];
	snprintf(capture, sizeof capture, "%s/cores/riscv64-O2nofp/recurse", td);
	snprintf(example, sizeof example, "%s/example", td);
	ck_assert(sw_pipeline_is_snapshot_folder(capture));
	ck_assert(!sw_pipeline_is_snapshot_folder(example));
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("pipeline");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_pipeline_walks_and_signs_the_example_on_its_cpu);
	tcase_add_test(tc, test_pipeline_without_rules_walks_but_does_not_sign);
	tcase_add_test(tc, test_pipeline_names_a_missing_symbol_path);
	tcase_add_test(tc, test_pipeline_tells_a_capture_folder_from_a_folder_of_snapshots);
	suite_add_tcase(s, tc);
	return s;
}
