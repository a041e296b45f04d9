/* libstackwalk's public API (include/stackwalk.h) as a program sees it:
 * linked to the shared library, including only the public header. The
 * example minidump's crashing thread, error codes and messages, options,
 * rendering to a FILE and to a buffer. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stackwalk.h>

static char example_dump[4096], example_symbols[4096];

static void paths(void)
{
	const char *td = getenv("SW_TESTDATA");
	ck_assert_ptr_nonnull(td);
	snprintf(example_dump, sizeof example_dump, "%s/example/test.dmp", td);
	snprintf(example_symbols, sizeof example_symbols, "%s/example/symbols", td);
}

/* The example walked with its symbols; flags as stackwalk_walk's. */
static stackwalk_result *walk_example(stackwalk_snapshot **snap, unsigned flags)
{
	paths();
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_ptr_nonnull(opt);
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_snapshot_open(example_dump, opt, snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(*snap, opt, flags, &res), STACKWALK_OK);
	stackwalk_options_free(opt); /* the result keeps what it needs */
	return res;
}

START_TEST(test_api_names_the_crashing_frames_of_the_example)
{
	stackwalk_snapshot *snap;
	stackwalk_result *res = walk_example(&snap, 0);
	ck_assert_str_eq(stackwalk_snapshot_format(snap), "minidump");
	ck_assert_str_eq(stackwalk_snapshot_cpu(snap), "x86");
	const stackwalk_thread *t = stackwalk_result_crashing_thread(res);
	ck_assert_ptr_nonnull(t);
	ck_assert(stackwalk_thread_is_crashing(t));
	ck_assert_uint_ge(stackwalk_thread_frame_count(t), 3);

	const stackwalk_frame *f0 = stackwalk_thread_frame(t, 0);
	ck_assert_str_eq(stackwalk_frame_module(f0), "test_app.exe");
	ck_assert_str_eq(stackwalk_frame_function(f0), "`anonymous namespace'::CrashFunction");
	ck_assert_str_eq(stackwalk_frame_file(f0), "c:\\test_app.cc");
	ck_assert_uint_eq(stackwalk_frame_line(f0), 58);
	ck_assert_int_eq(stackwalk_frame_trust(f0), STACKWALK_TRUST_CONTEXT);
	ck_assert_str_eq(stackwalk_trust_name(stackwalk_frame_trust(f0)), "context");
	ck_assert_uint_eq(stackwalk_frame_pc(f0), 0x0040429e);
	ck_assert_uint_eq(stackwalk_frame_module_offset(f0), 0x429e);
	ck_assert(stackwalk_frame_has_sp(f0));
	ck_assert_uint_eq(stackwalk_frame_sp(f0), 0x0012fe84);
	ck_assert(!stackwalk_frame_is_inline(f0));

	const stackwalk_frame *f1 = stackwalk_thread_frame(t, 1);
	ck_assert_str_eq(stackwalk_frame_function(f1), "main");
	ck_assert_uint_eq(stackwalk_frame_line(f1), 65);
	ck_assert_int_eq(stackwalk_frame_trust(f1), STACKWALK_TRUST_CFI);
	ck_assert_uint_eq(stackwalk_frame_sp(f1), 0x0012fe90);
	ck_assert_ptr_null(stackwalk_thread_frame(t, stackwalk_thread_frame_count(t)));
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

/* testdata/snap/cortex_m.snap: a crashed thread of 3 frames and a second
 * thread of 1, walked without symbols. */
START_TEST(test_api_crashing_only_leaves_the_other_threads_unwalked)
{
	const char *td = getenv("SW_TESTDATA");
	char snap_path[4096];
	snprintf(snap_path, sizeof snap_path, "%s/snap/cortex_m.snap", td);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(snap_path, NULL, &snap), STACKWALK_OK);
	stackwalk_result *all, *one;
	ck_assert_int_eq(stackwalk_walk(snap, NULL, 0, &all), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_walk(snap, NULL, STACKWALK_WALK_CRASHING_ONLY, &one), STACKWALK_OK);
	ck_assert_uint_eq(stackwalk_result_thread_count(all), 2);
	ck_assert_uint_eq(stackwalk_result_thread_count(one), 2);

	const stackwalk_thread *crashed = stackwalk_result_thread(one, 0);
	ck_assert(stackwalk_thread_is_crashing(crashed));
	ck_assert_ptr_eq(stackwalk_result_crashing_thread(one), crashed);
	ck_assert_uint_eq(stackwalk_thread_frame_count(crashed), 3);
	ck_assert_uint_eq(stackwalk_thread_frame_count(stackwalk_result_thread(all, 0)), 3);

	const stackwalk_thread *other = stackwalk_result_thread(one, 1);
	ck_assert(!stackwalk_thread_is_crashing(other));
	ck_assert_uint_eq(stackwalk_thread_frame_count(other), 0);
	ck_assert_str_eq(stackwalk_thread_end(other), "not_walked");
	ck_assert_uint_eq(stackwalk_thread_frame_count(stackwalk_result_thread(all, 1)), 1);
	ck_assert_uint_eq(stackwalk_thread_id(other),
	                  stackwalk_thread_id(stackwalk_result_thread(all, 1)));
	/* Two results of one snapshot at once, freed in any order. */
	stackwalk_result_free(all);
	stackwalk_result_free(one);
	stackwalk_snapshot_close(snap);
}
END_TEST

START_TEST(test_api_a_missing_file_is_eio_and_its_message_names_it)
{
	stackwalk_snapshot *snap = (stackwalk_snapshot *)1;
	ck_assert_int_eq(stackwalk_snapshot_open("/nonexistent/crash.dmp", NULL, &snap),
	                 STACKWALK_EIO);
	ck_assert_ptr_null(snap);
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), "/nonexistent/crash.dmp"));
}
END_TEST

START_TEST(test_api_a_symbol_file_is_not_a_snapshot)
{
	paths();
	char sym[4200];
	snprintf(sym, sizeof sym, "%s/test_app.pdb/5A9832E5287241C1838ED98914E9B7FF1/test_app.sym",
	         example_symbols);
	stackwalk_snapshot *snap;
	enum stackwalk_status st = stackwalk_snapshot_open(sym, NULL, &snap);
	ck_assert_int_eq(st, STACKWALK_EFORMAT);
	ck_assert_ptr_null(snap);
	ck_assert_str_ne(stackwalk_errmsg(), "");
	ck_assert_str_eq(stackwalk_status_name(st), "not a snapshot");
}
END_TEST

START_TEST(test_api_null_handles_are_einval)
{
	stackwalk_result *res = NULL;
	ck_assert_int_eq(stackwalk_walk(NULL, NULL, 0, &res), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_snapshot_open(NULL, NULL, NULL), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_add_symbol_path(NULL, "x"), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_render(NULL, STACKWALK_FORMAT_TEXT, 0, stdout), STACKWALK_EINVAL);
	ck_assert_uint_eq(stackwalk_result_thread_count(NULL), 0);
	ck_assert_ptr_null(stackwalk_result_crashing_thread(NULL));
	stackwalk_result_free(NULL);
	stackwalk_snapshot_close(NULL);
	stackwalk_options_free(NULL);
}
END_TEST

START_TEST(test_api_max_frames_is_checked_and_applied)
{
	paths();
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_set_max_frames(opt, 0), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_max_frames(opt, (1u << 20) + 1), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_max_frames(opt, 1), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_options_set_scan(opt, 0), STACKWALK_OK);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(example_dump, NULL, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
	const stackwalk_thread *t = stackwalk_result_crashing_thread(res);
	ck_assert_uint_eq(stackwalk_thread_frame_count(t), 1);
	ck_assert_str_eq(stackwalk_thread_end(t), "frame_limit");
	/* Without symbols: no function name. */
	ck_assert_ptr_null(stackwalk_frame_function(stackwalk_thread_frame(t, 0)));
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
	stackwalk_options_free(opt);
}
END_TEST

START_TEST(test_api_a_missing_symbol_path_is_a_warning)
{
	paths();
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, "/nonexistent/symbols"), STACKWALK_OK);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(example_dump, opt, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
	ck_assert_uint_eq(stackwalk_result_warning_count(res), 1);
	ck_assert_str_eq(stackwalk_result_warning(res, 0),
	                 "/nonexistent/symbols: symbol path ignored: No such file or directory");
	ck_assert_ptr_null(stackwalk_result_warning(res, 1));
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
	stackwalk_options_free(opt);
}
END_TEST

START_TEST(test_api_render_buffer_equals_render_to_a_file)
{
	stackwalk_snapshot *snap;
	stackwalk_result *res = walk_example(&snap, 0);
	for (int fmt = STACKWALK_FORMAT_TEXT; fmt <= STACKWALK_FORMAT_JSON; fmt++) {
		char *buf;
		size_t len;
		ck_assert_int_eq(stackwalk_render_buffer(res, fmt, 0, &buf, &len), STACKWALK_OK);
		ck_assert_uint_eq(strlen(buf), len);
		FILE *f = tmpfile();
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(stackwalk_render(res, fmt, 0, f), STACKWALK_OK);
		ck_assert_int_eq(ftell(f), (long)len);
		rewind(f);
		char *back = malloc(len + 1);
		ck_assert_uint_eq(fread(back, 1, len + 1, f), len);
		ck_assert(memcmp(back, buf, len) == 0);
		free(back);
		fclose(f);
		if (fmt == STACKWALK_FORMAT_TEXT)
			ck_assert_ptr_nonnull(strstr(buf, "Thread 0 (crashed)"));
		stackwalk_buffer_free(buf);
	}
	char *buf = (char *)1;
	size_t len = 1;
	ck_assert_int_eq(stackwalk_render_buffer(res, (enum stackwalk_format)7, 0, &buf, &len),
	                 STACKWALK_EINVAL);
	ck_assert_ptr_null(buf);
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

START_TEST(test_api_a_minidump_has_no_next_part)
{
	paths();
	stackwalk_snapshot *snap, *next = (stackwalk_snapshot *)1;
	ck_assert_int_eq(stackwalk_snapshot_open(example_dump, NULL, &snap), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_snapshot_open_next(snap, &next), STACKWALK_ENOENT);
	ck_assert_ptr_null(next);
	stackwalk_snapshot_close(snap);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");
	tcase_add_test(tc, test_api_names_the_crashing_frames_of_the_example);
	tcase_add_test(tc, test_api_crashing_only_leaves_the_other_threads_unwalked);
	tcase_add_test(tc, test_api_a_missing_file_is_eio_and_its_message_names_it);
	tcase_add_test(tc, test_api_a_symbol_file_is_not_a_snapshot);
	tcase_add_test(tc, test_api_null_handles_are_einval);
	tcase_add_test(tc, test_api_max_frames_is_checked_and_applied);
	tcase_add_test(tc, test_api_a_missing_symbol_path_is_a_warning);
	tcase_add_test(tc, test_api_render_buffer_equals_render_to_a_file);
	tcase_add_test(tc, test_api_a_minidump_has_no_next_part);
	suite_add_tcase(s, tc);
	return s;
}
