/* libstackwalk's public API (include/stackwalk.h) as a program sees it:
 * linked to the shared library, including only the public header. The
 * example minidump's crashing thread, error codes and messages, options,
 * rendering to a FILE and to a buffer, the symbol cache, symbol servers,
 * the crash signature, the crash and modules' accessors, the version. */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <check.h>
#include <ftw.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include <stackwalk.h>

#include "dex_fixture.h"

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

/* STACKWALK_WALK_EXPLAIN: each frame's evidence is the JSON output's
 * object; without the flag there is none, and the walk is the same. */
START_TEST(test_api_explain_gives_each_frame_its_evidence)
{
	stackwalk_snapshot *snap, *snap2;
	stackwalk_result *plain = walk_example(&snap, 0);
	stackwalk_result *res = walk_example(&snap2, STACKWALK_WALK_EXPLAIN);
	const stackwalk_thread *t = stackwalk_result_crashing_thread(res);
	const stackwalk_thread *tp = stackwalk_result_crashing_thread(plain);
	ck_assert_uint_eq(stackwalk_thread_frame_count(t), stackwalk_thread_frame_count(tp));
	ck_assert_ptr_null(stackwalk_frame_evidence(stackwalk_thread_frame(tp, 1)));
	ck_assert_ptr_null(stackwalk_thread_end_evidence(tp));
	ck_assert_str_eq(stackwalk_frame_evidence(stackwalk_thread_frame(t, 0)),
	                 "{\"method\":\"context\",\"refused\":[]}");
	/* main, by CrashFunction's STACK WIN record, its return address at
	 * the slot the record's $T0 4 + names. */
	const char *e1 = stackwalk_frame_evidence(stackwalk_thread_frame(t, 1));
	ck_assert_ptr_nonnull(e1);
	ck_assert_ptr_nonnull(strstr(e1, "\"method\":\"cfi\",\"rule\":\"STACK WIN 4 4290 18 "));
	ck_assert_ptr_nonnull(strstr(e1, "\"rule_module\":\"test_app.exe\""));
	ck_assert_ptr_nonnull(strstr(e1, "\"return_address_slot\":\"0x0012fe8c\""));
	const char *end = stackwalk_thread_end_evidence(t);
	ck_assert_ptr_nonnull(end);
	ck_assert_ptr_nonnull(strstr(end, "{\"method\":\"frame_pointer\",\"reason\":\"ends_walk\"}"));
	ck_assert_ptr_null(stackwalk_frame_evidence(NULL));
	ck_assert_ptr_null(stackwalk_thread_end_evidence(NULL));
	stackwalk_result *bad;
	ck_assert_int_eq(stackwalk_walk(snap, NULL, 1u << 7, &bad), STACKWALK_EINVAL);
	stackwalk_result_free(res);
	stackwalk_result_free(plain);
	stackwalk_snapshot_close(snap);
	stackwalk_snapshot_close(snap2);
}
END_TEST

/* testdata/snap/cortex_m.snap: a crashed thread of 4 frames (func_c,
 * func_b by the live lr: its call went to func_c, whose code from there to
 * pc is a leaf; func_a, main) and a second thread of 1, walked without
 * symbols. */
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
	ck_assert_uint_eq(stackwalk_thread_frame_count(crashed), 4);
	ck_assert_uint_eq(stackwalk_thread_frame_count(stackwalk_result_thread(all, 0)), 4);

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

/* A gzip-compressed snapshot opens and walks as the file it holds, within
 * stackwalk_options_set_max_decompressed's limit (since 0.4). */
START_TEST(test_api_a_compressed_snapshot_walks_as_its_file)
{
	paths();
	char gz[] = "/tmp/test_api_gz.XXXXXX";
	int fd = mkstemp(gz);
	ck_assert_int_ge(fd, 0);
	close(fd);
	char cmd[9000];
	snprintf(cmd, sizeof cmd, "gzip -c -- '%s' > '%s'", example_dump, gz);
	ck_assert_int_eq(system(cmd), 0);
	char *want[2];
	for (int k = 0; k < 2; k++) {
		stackwalk_options *opt = stackwalk_options_new();
		ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
		stackwalk_snapshot *snap;
		ck_assert_int_eq(stackwalk_snapshot_open(k ? gz : example_dump, opt, &snap),
		                 STACKWALK_OK);
		ck_assert_str_eq(stackwalk_snapshot_format(snap), "minidump");
		stackwalk_result *res;
		ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
		size_t len;
		ck_assert_int_eq(stackwalk_render_buffer(res, STACKWALK_FORMAT_JSON, 0, &want[k], &len),
		                 STACKWALK_OK);
		stackwalk_result_free(res);
		stackwalk_snapshot_close(snap);
		stackwalk_options_free(opt);
	}
	ck_assert_str_eq(want[1], want[0]);
	stackwalk_buffer_free(want[0]);
	stackwalk_buffer_free(want[1]);
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_set_max_decompressed(opt, 0), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_max_decompressed(NULL, 1), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_max_decompressed(opt, 4096), STACKWALK_OK);
	stackwalk_snapshot *snap = (stackwalk_snapshot *)1;
	ck_assert_int_eq(stackwalk_snapshot_open(gz, opt, &snap), STACKWALK_EFORMAT);
	ck_assert_ptr_null(snap);
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), gz));
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), "decompresses to more than 4 KiB"));
	stackwalk_options_free(opt);
	unlink(gz);
}
END_TEST

/* The JSON "status" says what stackwalk(1)'s says: DAMAGED for an input
 * cut short (its intact part walked), OK for the intact one. */
START_TEST(test_api_json_status_says_damaged)
{
	paths();
	FILE *in = fopen(example_dump, "rb");
	ck_assert_ptr_nonnull(in);
	char buf[16384];
	size_t n = fread(buf, 1, sizeof buf, in);
	fclose(in);
	char cut[] = "/tmp/sw_api_cut_XXXXXX";
	int fd = mkstemp(cut);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, n * 7 / 10), (ssize_t)(n * 7 / 10));
	close(fd);
	const char *files[2] = {example_dump, cut};
	const char *want[2] = {"\"status\":\"OK\"", "\"status\":\"DAMAGED\""};
	for (int k = 0; k < 2; k++) {
		stackwalk_options *opt = stackwalk_options_new();
		ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
		stackwalk_snapshot *snap;
		ck_assert_int_eq(stackwalk_snapshot_open(files[k], opt, &snap),
		                 k ? STACKWALK_DAMAGED : STACKWALK_OK);
		stackwalk_result *res;
		ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
		char *json;
		size_t len;
		ck_assert_int_eq(stackwalk_render_buffer(res, STACKWALK_FORMAT_JSON, 0, &json, &len),
		                 STACKWALK_OK);
		ck_assert_msg(strstr(json, want[k]), "no %s in the JSON", want[k]);
		stackwalk_buffer_free(json);
		stackwalk_result_free(res);
		stackwalk_snapshot_close(snap);
		stackwalk_options_free(opt);
	}
	unlink(cut);
}
END_TEST

/* Threads walked at once render what one after the other renders. */
START_TEST(test_api_threads_walk_at_once_and_render_the_same)
{
	char *out[2];
	paths();
	for (int k = 0; k < 2; k++) {
		stackwalk_options *opt = stackwalk_options_new();
		ck_assert_ptr_nonnull(opt);
		ck_assert_int_eq(stackwalk_options_set_threads(opt, 0), STACKWALK_EINVAL);
		ck_assert_int_eq(stackwalk_options_set_threads(opt, k ? 4 : 1), STACKWALK_OK);
		ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
		stackwalk_snapshot *snap;
		ck_assert_int_eq(stackwalk_snapshot_open(example_dump, opt, &snap), STACKWALK_OK);
		stackwalk_result *res;
		ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
		ck_assert_uint_gt(stackwalk_result_thread_count(res), 1);
		size_t len;
		ck_assert_int_eq(stackwalk_render_buffer(res, STACKWALK_FORMAT_JSON, 0, &out[k], &len),
		                 STACKWALK_OK);
		stackwalk_result_free(res);
		stackwalk_snapshot_close(snap);
		stackwalk_options_free(opt);
	}
	ck_assert_str_eq(out[0], out[1]);
	stackwalk_buffer_free(out[0]);
	stackwalk_buffer_free(out[1]);
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

/* ---- added in 0.2: symbol cache, symbol servers, signature ---- */

/* A fresh directory under TMPDIR (removed by rm_tree). */
static void temp_dir(char *out, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(out, cap, "%s/sw_api_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(out));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* An environment variable set (value NULL: unset) for one test, and put
 * back after it (tests may run in one process: CK_FORK=no). */
struct saved_env {
	const char *name;
	char *value;
};

static struct saved_env set_env(const char *name, const char *value)
{
	const char *old = getenv(name);
	struct saved_env saved = { name, old ? strdup(old) : NULL };
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
	return saved;
}

static void restore_env(struct saved_env *saved)
{
	if (saved->value)
		setenv(saved->name, saved->value, 1);
	else
		unsetenv(saved->name);
	free(saved->value);
}

static size_t nfound;
static const char *found_suffix;
static char found_first[4096];

static int count_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	size_t n = strlen(path), k = strlen(found_suffix);
	if (flag == FTW_F && n >= k && strcmp(path + n - k, found_suffix) == 0 && nfound++ == 0)
		snprintf(found_first, sizeof found_first, "%s", path);
	return 0;
}

/* How many files under dir end with suffix. */
static size_t count_files(const char *dir, const char *suffix)
{
	nfound = 0;
	found_suffix = suffix;
	nftw(dir, count_entry, 16, FTW_PHYS);
	return nfound;
}

/* The example walked with opt, rendered as text then JSON (paths() done:
 * threads call it). */
static char *render_example(const stackwalk_options *opt)
{
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(example_dump, opt, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
	ck_assert_uint_eq(stackwalk_result_warning_count(res), 0);
	char *text, *json;
	size_t tlen, jlen;
	ck_assert_int_eq(stackwalk_render_buffer(res, STACKWALK_FORMAT_TEXT, 0, &text, &tlen),
	                 STACKWALK_OK);
	ck_assert_int_eq(stackwalk_render_buffer(res, STACKWALK_FORMAT_JSON, 0, &json, &jlen),
	                 STACKWALK_OK);
	char *both = malloc(tlen + jlen + 1);
	ck_assert_ptr_nonnull(both);
	memcpy(both, text, tlen);
	memcpy(both + tlen, json, jlen + 1);
	stackwalk_buffer_free(text);
	stackwalk_buffer_free(json);
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
	return both;
}

START_TEST(test_api_a_symbol_cache_indexes_each_sym_and_renders_the_same)
{
	paths();
	char dir[4096], cache[4200];
	temp_dir(dir, sizeof dir);
	snprintf(cache, sizeof cache, "%s/not/yet", dir); /* made with the first index */
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
	char *plain = render_example(opt); /* a new handle: no cache */
	ck_assert_uint_eq(count_files(dir, ".swidx"), 0);

	ck_assert_int_eq(stackwalk_options_set_symbol_cache(opt, cache), STACKWALK_OK);
	char *cold = render_example(opt);
	ck_assert_uint_eq(count_files(cache, ".swidx"), 1); /* test_app.sym's */
	struct stat before, after;
	ck_assert_int_eq(stat(found_first, &before), 0);
	char *warm = render_example(opt);
	ck_assert_uint_eq(count_files(cache, ".swidx"), 1);
	ck_assert_int_eq(stat(found_first, &after), 0);
	/* Mapped, not written again. */
	ck_assert(before.st_ino == after.st_ino && before.st_mtime == after.st_mtime);
	ck_assert_str_eq(cold, plain);
	ck_assert_str_eq(warm, plain);

	/* Off again: nothing read or written. */
	rm_tree(cache);
	ck_assert_int_eq(stackwalk_options_disable_symbol_cache(opt), STACKWALK_OK);
	char *off = render_example(opt);
	ck_assert_str_eq(off, plain);
	ck_assert_uint_eq(count_files(dir, ".swidx"), 0);
	free(plain);
	free(cold);
	free(warm);
	free(off);

	/* A directory that cannot be made: a warning, and the walk goes on. */
	ck_assert_int_eq(stackwalk_options_set_symbol_cache(opt, "/proc/no/cache"), STACKWALK_OK);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(example_dump, opt, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
	ck_assert_uint_eq(stackwalk_result_warning_count(res), 1);
	ck_assert_ptr_nonnull(strstr(stackwalk_result_warning(res, 0),
	                             "cannot create the symbol cache"));
	ck_assert_str_eq(stackwalk_frame_function(stackwalk_thread_frame(
	                         stackwalk_result_crashing_thread(res), 1)), "main");
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
	stackwalk_options_free(opt);
	rm_tree(dir);
}
END_TEST

static void *render_in_thread(void *opt)
{
	return render_example(opt);
}

/* One options handle, so one cache, for walks in four threads at once on
 * an empty cache: one index, and every rendering the uncached one. */
START_TEST(test_api_walks_in_several_threads_share_one_cache)
{
	paths();
	char dir[4096];
	temp_dir(dir, sizeof dir);
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
	char *plain = render_example(opt);
	ck_assert_int_eq(stackwalk_options_set_symbol_cache(opt, dir), STACKWALK_OK);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, render_in_thread, opt), 0);
	for (int i = 0; i < 4; i++) {
		void *out;
		ck_assert_int_eq(pthread_join(t[i], &out), 0);
		ck_assert_str_eq(out, plain);
		free(out);
	}
	ck_assert_uint_eq(count_files(dir, ".swidx"), 1);
	free(plain);
	stackwalk_options_free(opt);
	rm_tree(dir);
}
END_TEST

START_TEST(test_api_the_default_symbol_cache_is_the_cli_s)
{
	paths();
	char dir[4096], xdg_cache[4200];
	temp_dir(dir, sizeof dir);
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
	/* Neither variable: no default directory, the cache stays off. */
	struct saved_env xdg = set_env("XDG_CACHE_HOME", NULL), home = set_env("HOME", NULL);
	ck_assert_int_eq(stackwalk_options_set_symbol_cache(opt, NULL), STACKWALK_ENOENT);
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), "XDG_CACHE_HOME"));
	ck_assert_int_eq(stackwalk_options_set_symbol_cache(opt, ""), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_symbol_cache(NULL, dir), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_disable_symbol_cache(NULL), STACKWALK_EINVAL);
	/* $HOME/.cache/stackwalk, unless $XDG_CACHE_HOME (absolute) says. */
	setenv("HOME", dir, 1);
	setenv("XDG_CACHE_HOME", "relative/is/ignored", 1);
	ck_assert_int_eq(stackwalk_options_set_symbol_cache(opt, NULL), STACKWALK_OK);
	free(render_example(opt));
	snprintf(xdg_cache, sizeof xdg_cache, "%s/.cache/stackwalk", dir);
	ck_assert_uint_eq(count_files(xdg_cache, ".swidx"), 1);
	snprintf(xdg_cache, sizeof xdg_cache, "%s/xdg", dir);
	setenv("XDG_CACHE_HOME", xdg_cache, 1);
	ck_assert_int_eq(stackwalk_options_set_symbol_cache(opt, NULL), STACKWALK_OK);
	free(render_example(opt));
	ck_assert_uint_eq(count_files(xdg_cache, ".swidx"), 1);
	stackwalk_options_free(opt);
	rm_tree(dir);
	restore_env(&xdg);
	restore_env(&home);
}
END_TEST

START_TEST(test_api_symbol_urls_and_debuginfod_are_checked)
{
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_url(NULL, "http://x"), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_add_symbol_url(opt, NULL), STACKWALK_EINVAL);
	/* A local store is a symbol path, not a URL. */
	ck_assert_int_eq(stackwalk_options_add_symbol_url(opt, "/srv/symbols"), STACKWALK_EINVAL);
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), "'/srv/symbols'"));
	ck_assert_int_eq(stackwalk_options_add_symbol_url(opt, "ftp://host/symbols"),
	                 STACKWALK_EINVAL);
	/* Without DEBUGINFOD_URLS there is no server to ask. */
	struct saved_env urls = set_env("DEBUGINFOD_URLS", NULL);
	ck_assert_int_eq(stackwalk_options_set_debuginfod(opt, 1), STACKWALK_EINVAL);
	restore_env(&urls);
	ck_assert_int_eq(stackwalk_options_set_debuginfod(NULL, 0), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_debuginfod(opt, 0), STACKWALK_OK);
	/* A file:// store needs no library; refused URLs left nothing behind:
	 * walks as before. */
	ck_assert_int_eq(stackwalk_options_add_symbol_url(opt, "file:///nonexistent/store"),
	                 STACKWALK_OK);
	stackwalk_options_free(opt);
}
END_TEST

/* Request headers are checked when added, wait for a URL, and a bad
 * one's message names it without its value (a token). */
START_TEST(test_api_symbol_headers_are_checked)
{
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_header(NULL, "A: b"), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_add_symbol_header(opt, NULL), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_add_symbol_header(opt, "NoColon"), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_add_symbol_header(opt, "Auth-Token: s3cret\r\nX: y"),
	                 STACKWALK_EINVAL);
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), "'Auth-Token'"));
	ck_assert_ptr_null(strstr(stackwalk_errmsg(), "s3cret"));
	ck_assert_int_eq(stackwalk_options_add_symbol_header(opt, "Auth-Token: s3cret"),
	                 STACKWALK_OK);
	ck_assert_int_eq(stackwalk_options_add_symbol_url(opt, "file:///nonexistent/store"),
	                 STACKWALK_OK);
	ck_assert_int_eq(stackwalk_options_add_symbol_header(opt, "X-Team: crash"), STACKWALK_OK);
	stackwalk_options_free(opt);
}
END_TEST

/* stackwalk_options_set_symbols_timeout bounds a server that accepts the
 * connection and never answers (a loopback socket nobody reads): one
 * warning after 1 s, not the default 30. */
START_TEST(test_api_symbols_timeout_bounds_a_stalled_server)
{
	paths();
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_set_symbols_timeout(opt, 0), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_symbols_timeout(opt, 3601), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_symbols_timeout(NULL, 5), STACKWALK_EINVAL);
	ck_assert_int_eq(stackwalk_options_set_symbols_timeout(opt, 1), STACKWALK_OK);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/symbols", (unsigned)ntohs(sa.sin_port));
	char dir[4096];
	temp_dir(dir, sizeof dir);
	struct saved_env tmpdir = set_env("TMPDIR", dir);
	enum stackwalk_status st = stackwalk_options_add_symbol_url(opt, url);
	if (st != STACKWALK_OK) { /* a build or machine without libcurl */
		ck_assert(st == STACKWALK_EINVAL || st == STACKWALK_EIO);
	} else {
		/* No symbol path: every module with a frame is asked for. */
		stackwalk_snapshot *snap;
		ck_assert_int_eq(stackwalk_snapshot_open(example_dump, opt, &snap), STACKWALK_OK);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		stackwalk_result *res;
		ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 15);
		bool said = false;
		for (size_t i = 0; i < stackwalk_result_warning_count(res); i++)
			said |= strstr(stackwalk_result_warning(res, i), "no answer within 1 s") != NULL;
		ck_assert_msg(said, "no timeout warning");
		stackwalk_result_free(res);
		stackwalk_snapshot_close(snap);
	}
	stackwalk_options_free(opt);
	close(fd);
	rm_tree(dir);
	restore_env(&tmpdir);
}
END_TEST

START_TEST(test_api_an_unreachable_symbol_server_is_a_warning_not_a_failure)
{
	paths();
	char dir[4096];
	temp_dir(dir, sizeof dir);
	/* Where the downloads' temporary directory goes. */
	struct saved_env tmpdir = set_env("TMPDIR", dir);
	stackwalk_options *opt = stackwalk_options_new();
	/* Port 1 of the loopback: nothing listens, the connection is refused
	 * at once. */
	enum stackwalk_status st = stackwalk_options_add_symbol_url(opt, "http://127.0.0.1:1/symbols");
	if ((st == STACKWALK_EINVAL && strstr(stackwalk_errmsg(), "without libcurl")) ||
	    (st == STACKWALK_EIO && strstr(stackwalk_errmsg(), "cannot load libcurl"))) {
		stackwalk_options_free(opt);
		rm_tree(dir);
		restore_env(&tmpdir);
		return; /* a build without symbol servers */
	}
	ck_assert_int_eq(st, STACKWALK_OK);
	/* No cache: one temporary directory for the downloads. */
	ck_assert_uint_eq(count_files(dir, ""), 0);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(example_dump, opt, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, opt, STACKWALK_WALK_CRASHING_ONLY, &res), STACKWALK_OK);
	const stackwalk_thread *t = stackwalk_result_crashing_thread(res);
	ck_assert_uint_ge(stackwalk_thread_frame_count(t), 1);
	ck_assert_ptr_null(stackwalk_frame_function(stackwalk_thread_frame(t, 0)));
	ck_assert_uint_ge(stackwalk_result_warning_count(res), 1);
	int named = 0;
	for (size_t i = 0; i < stackwalk_result_warning_count(res); i++)
		named |= strstr(stackwalk_result_warning(res, i), "127.0.0.1:1") != NULL;
	ck_assert_msg(named, "no warning names the server: %s", stackwalk_result_warning(res, 0));

	/* The temporary directory lives while opt or a result needs it. */
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	size_t entries = 0;
	for (struct dirent *e; (e = readdir(d));)
		entries += strncmp(e->d_name, "stackwalk-symbols-", 18) == 0;
	closedir(d);
	ck_assert_uint_eq(entries, 1);
	stackwalk_options_free(opt);
	ck_assert_int_eq(rmdir(dir), -1); /* still there: res holds it */
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
	ck_assert_int_eq(rmdir(dir), 0); /* removed with the last holder */
	restore_env(&tmpdir);
}
END_TEST

START_TEST(test_api_the_signature_is_the_json_s_and_skip_files_change_it)
{
	/* What `stackwalk --json testdata/example/test.dmp
	 * testdata/example/symbols` prints as "signature". */
	static const char cli_signature[] = "`anonymous namespace'::CrashFunction";
	stackwalk_snapshot *snap;
	stackwalk_result *res = walk_example(&snap, STACKWALK_WALK_CRASHING_ONLY);
	ck_assert_str_eq(stackwalk_result_signature(res), cli_signature);
	char *buf;
	size_t len;
	ck_assert_int_eq(stackwalk_render_buffer(res, STACKWALK_FORMAT_JSON, 0, &buf, &len),
	                 STACKWALK_OK);
	ck_assert_ptr_nonnull(strstr(buf, "\"signature\":\"`anonymous namespace'::CrashFunction\""));
	stackwalk_buffer_free(buf);
	ck_assert_int_eq(stackwalk_render_buffer(res, STACKWALK_FORMAT_TEXT, 0, &buf, &len),
	                 STACKWALK_OK);
	ck_assert_ptr_nonnull(strstr(buf, "\nSignature: `anonymous namespace'::CrashFunction\n"));
	stackwalk_buffer_free(buf);
	stackwalk_result_free(res);
	ck_assert_ptr_null(stackwalk_result_signature(NULL));

	char dir[4096], good[4200], bad[4200];
	temp_dir(dir, sizeof dir);
	snprintf(good, sizeof good, "%s/good.skip", dir);
	snprintf(bad, sizeof bad, "%s/bad.skip", dir);
	FILE *f = fopen(good, "w");
	fputs("# the crash is its caller's fault\nprefix `anonymous namespace'::Crash*\n", f);
	fclose(f);
	f = fopen(bad, "w");
	fputs("irrelevant main\nignore this\n", f);
	fclose(f);
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, example_symbols), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_options_add_signature_skip(opt, good), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_options_add_signature_skip(opt, "/nonexistent/skip"),
	                 STACKWALK_EIO);
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), "/nonexistent/skip"));
	ck_assert_int_eq(stackwalk_options_add_signature_skip(opt, bad), STACKWALK_EINVAL);
	ck_assert_ptr_nonnull(strstr(stackwalk_errmsg(), "bad.skip:2"));
	ck_assert_int_eq(stackwalk_options_add_signature_skip(NULL, good), STACKWALK_EINVAL);
	/* The bad file added no rule: main is not irrelevant. */
	ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
	ck_assert_str_eq(stackwalk_result_signature(res), "`anonymous namespace'::CrashFunction | main");
	stackwalk_result_free(res);
	stackwalk_options_free(opt);
	stackwalk_snapshot_close(snap);
	rm_tree(dir);
}
END_TEST

/* ---- the crash and the modules without JSON (0.5) ---- */

/* The line of the rendered report that starts with prefix, without it. */
static char *rendered_line(const stackwalk_result *res, enum stackwalk_format format,
                           const char *prefix, char *out, size_t cap)
{
	char *buf;
	size_t len;
	ck_assert_int_eq(stackwalk_render_buffer(res, format, STACKWALK_RENDER_PRETTY, &buf, &len),
	                 STACKWALK_OK);
	out[0] = '\0';
	for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		while (*l == ' ')
			l++;
		if (strncmp(l, prefix, strlen(prefix)) != 0)
			continue;
		l += strlen(prefix);
		size_t n = strcspn(l, "\n");
		ck_assert_uint_lt(n, cap);
		memcpy(out, l, n);
		out[n] = '\0';
		break;
	}
	stackwalk_buffer_free(buf);
	return out;
}

START_TEST(test_api_crash_accessors_say_what_the_reports_print)
{
	stackwalk_snapshot *snap;
	stackwalk_result *res = walk_example(&snap, 0);
	ck_assert_int_eq(stackwalk_result_has_crash(res), 1);
	const char *text = stackwalk_result_crash_reason(res, STACKWALK_WORDING_TEXT);
	const char *json = stackwalk_result_crash_reason(res, STACKWALK_WORDING_JSON);
	ck_assert_str_eq(text, "EXCEPTION_ACCESS_VIOLATION_WRITE");
	ck_assert_str_eq(json, "EXCEPTION_ACCESS_VIOLATION_WRITE");
	char line[512], want[512];
	ck_assert_str_eq(rendered_line(res, STACKWALK_FORMAT_TEXT, "Crash reason:  ", line,
	                               sizeof line), text);
	snprintf(want, sizeof want, "\"%s\"", json); /* crash_info's last key */
	ck_assert_str_eq(rendered_line(res, STACKWALK_FORMAT_JSON, "\"type\": ", line, sizeof line),
	                 want);
	/* The faulting data address (ExceptionInformation[1]), not the
	 * instruction's. */
	uint64_t addr = 1;
	ck_assert_int_eq(stackwalk_result_crash_address(res, STACKWALK_WORDING_TEXT, &addr), 1);
	ck_assert_uint_eq(addr, 0x45);
	ck_assert_str_eq(rendered_line(res, STACKWALK_FORMAT_TEXT, "Crash address: ", line,
	                               sizeof line), "0x45");
	ck_assert_int_eq(stackwalk_result_crash_address(res, STACKWALK_WORDING_JSON, &addr), 1);
	ck_assert_uint_eq(addr, 0x45);
	ck_assert_int_eq(stackwalk_result_crash_address(res, STACKWALK_WORDING_JSON, NULL), 1);
	ck_assert_uint_eq(stackwalk_result_crash_code(res), 0xc0000005);
	ck_assert_uint_eq(stackwalk_result_crash_flags(res), 0);
	ck_assert_int_eq(stackwalk_result_crashing_thread_index(res), 0);
	ck_assert_ptr_eq(stackwalk_result_thread(res, 0), stackwalk_result_crashing_thread(res));
	ck_assert_str_eq(stackwalk_result_signature(res), "`anonymous namespace'::CrashFunction");
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

START_TEST(test_api_module_accessors_list_the_json_s_modules)
{
	stackwalk_snapshot *snap;
	stackwalk_result *res = walk_example(&snap, 0);
	ck_assert_uint_eq(stackwalk_result_module_count(res), 13);
	const stackwalk_module *m = stackwalk_result_module(res, 0);
	ck_assert_str_eq(stackwalk_module_name(m), "test_app.exe");
	ck_assert_ptr_nonnull(strstr(stackwalk_module_path(m), "test_app.exe"));
	ck_assert_uint_eq(stackwalk_module_base(m), 0x400000);
	ck_assert_uint_eq(stackwalk_module_size(m), 0x2d000);
	ck_assert_str_eq(stackwalk_module_debug_file(m), "test_app.pdb");
	ck_assert_str_eq(stackwalk_module_debug_id(m), "5A9832E5287241C1838ED98914E9B7FF1");
	ck_assert_int_eq(strcasecmp(stackwalk_module_code_id(m), "45d35f6c2d000"), 0);
	ck_assert_ptr_null(stackwalk_module_version(m));
	ck_assert_int_eq(stackwalk_module_symbols(m), STACKWALK_SYMBOLS_LOADED);
	ck_assert_str_eq(stackwalk_symbols_name(STACKWALK_SYMBOLS_LOADED), "loaded");
	/* The frame's module is the same handle. */
	const stackwalk_frame *f0 = stackwalk_thread_frame(stackwalk_result_crashing_thread(res), 0);
	ck_assert_ptr_eq(stackwalk_frame_module_handle(f0), m);
	ck_assert_str_eq(stackwalk_module_name(m), stackwalk_frame_module(f0));

	/* ntdll.dll held no frame: never looked for; kernel32.dll did, and
	 * has no symbols here (the JSON's loaded/missing_symbols). */
	const stackwalk_module *ntdll = stackwalk_result_module(res, 1);
	ck_assert_str_eq(stackwalk_module_name(ntdll), "ntdll.dll");
	ck_assert_str_eq(stackwalk_module_version(ntdll), "5.1.2600.2180");
	ck_assert_int_eq(stackwalk_module_symbols(ntdll), STACKWALK_SYMBOLS_NOT_LOOKED_FOR);
	ck_assert_str_eq(stackwalk_symbols_name(stackwalk_module_symbols(ntdll)), "not_looked_for");
	const stackwalk_module *k32 = stackwalk_result_module(res, 2);
	ck_assert_str_eq(stackwalk_module_name(k32), "kernel32.dll");
	ck_assert_uint_eq(stackwalk_module_base(k32), 0x7c800000);
	ck_assert_uint_eq(stackwalk_module_size(k32), 0xf4000);
	ck_assert_int_eq(stackwalk_module_symbols(k32), STACKWALK_SYMBOLS_MISSING);
	ck_assert_str_eq(stackwalk_symbols_name(STACKWALK_SYMBOLS_MISSING), "missing");
	ck_assert_str_eq(stackwalk_symbols_name(STACKWALK_SYMBOLS_CORRUPT), "corrupt");
	ck_assert_ptr_null(stackwalk_result_module(res, 13));
	ck_assert_ptr_null(stackwalk_result_module(res, (size_t)-1));
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

/* testdata/cores/x86_64-O2fp/chain: the kernel's core of a write through
 * NULL in libcrashlib.so (NT_SIGINFO: SIGSEGV, SEGV_MAPERR, address 0),
 * walked with the program and library beside it. */
START_TEST(test_api_an_elf_core_s_signal_and_modules)
{
	const char *td = getenv("SW_TESTDATA");
	char dir[4096], core[4200];
	snprintf(dir, sizeof dir, "%s/cores/x86_64-O2fp", td);
	snprintf(core, sizeof core, "%s/chain/core.gz", dir);
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, dir), STACKWALK_OK);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(core, opt, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, opt, 0, &res), STACKWALK_OK);
	stackwalk_options_free(opt);

	ck_assert_int_eq(stackwalk_result_has_crash(res), 1);
	ck_assert_str_eq(stackwalk_result_crash_reason(res, STACKWALK_WORDING_TEXT),
	                 "SIGSEGV /SEGV_MAPERR");
	ck_assert_str_eq(stackwalk_result_crash_reason(res, STACKWALK_WORDING_JSON),
	                 "SIGSEGV / SEGV_MAPERR");
	/* Address 0 is an address: present, and 0. */
	uint64_t addr = 1;
	ck_assert_int_eq(stackwalk_result_crash_address(res, STACKWALK_WORDING_TEXT, &addr), 1);
	ck_assert_uint_eq(addr, 0);
	ck_assert_uint_eq(stackwalk_result_crash_code(res), 11); /* SIGSEGV */
	ck_assert_uint_eq(stackwalk_result_crash_flags(res), 1); /* SEGV_MAPERR */
	ck_assert_int_eq(stackwalk_result_crashing_thread_index(res), 0);
	ck_assert_str_eq(stackwalk_result_signature(res), "lib_write_null");

	ck_assert_uint_eq(stackwalk_result_module_count(res), 5);
	const stackwalk_module *exe = stackwalk_result_module(res, 0);
	ck_assert_str_eq(stackwalk_module_name(exe), "crash");
	ck_assert_uint_eq(stackwalk_module_size(exe), 0x5000);
	ck_assert_str_eq(stackwalk_module_debug_id(exe), "20F70767E12890E4E15A88F17CEC14BC0");
	ck_assert_int_eq(strcasecmp(stackwalk_module_code_id(exe),
	                            "6707f72028e1e490e15a88f17cec14bca3b3325a"), 0);
	ck_assert_int_eq(stackwalk_module_symbols(exe), STACKWALK_SYMBOLS_LOADED);
	const stackwalk_module *lib = stackwalk_result_module(res, 2);
	ck_assert_str_eq(stackwalk_module_name(lib), "libcrashlib.so");
	ck_assert_str_eq(stackwalk_module_debug_file(lib), "libcrashlib.so");
	ck_assert_int_eq(stackwalk_module_symbols(lib), STACKWALK_SYMBOLS_LOADED);
	const stackwalk_frame *f0 = stackwalk_thread_frame(stackwalk_result_crashing_thread(res), 0);
	ck_assert_ptr_eq(stackwalk_frame_module_handle(f0), lib);
	/* The dynamic loader held no frame. */
	const stackwalk_module *ld = stackwalk_result_module(res, 3);
	ck_assert_str_eq(stackwalk_module_name(ld), "ld-linux-x86-64.so.2");
	ck_assert_int_eq(stackwalk_module_symbols(ld), STACKWALK_SYMBOLS_NOT_LOOKED_FOR);
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

/* testdata/snap/flipped.snap: its CRASH record fails its CRC (DAMAGED),
 * so no crash; its one thread requested the dump. */
START_TEST(test_api_no_crash_is_absent_not_zero)
{
	const char *td = getenv("SW_TESTDATA");
	char path[4096];
	snprintf(path, sizeof path, "%s/snap/flipped.snap", td);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(path, NULL, &snap), STACKWALK_DAMAGED);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, NULL, 0, &res), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_result_has_crash(res), 0);
	ck_assert_ptr_null(stackwalk_result_crash_reason(res, STACKWALK_WORDING_TEXT));
	ck_assert_ptr_null(stackwalk_result_crash_reason(res, STACKWALK_WORDING_JSON));
	uint64_t addr = 1;
	ck_assert_int_eq(stackwalk_result_crash_address(res, STACKWALK_WORDING_TEXT, &addr), 0);
	ck_assert_uint_eq(addr, 0);
	ck_assert_uint_eq(stackwalk_result_crash_code(res), 0);
	ck_assert_uint_eq(stackwalk_result_crash_flags(res), 0);
	/* The requesting thread is the crashing one of every output. */
	ck_assert_int_eq(stackwalk_result_crashing_thread_index(res), 0);
	ck_assert_ptr_eq(stackwalk_result_crashing_thread(res), stackwalk_result_thread(res, 0));
	ck_assert_uint_eq(stackwalk_result_module_count(res), 1);
	ck_assert_str_eq(stackwalk_module_name(stackwalk_result_module(res, 0)), "firmware.elf");
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

/* SW_CORPUS/rel into out; false when the corpus or the file is not here. */
static bool corpus_path(char *out, size_t cap, const char *rel)
{
	const char *corpus = getenv("SW_CORPUS");
	snprintf(out, cap, "%s/%s", corpus ? corpus : "", rel);
	return corpus && access(out, R_OK) == 0;
}

/* rust-minidump/invalid-range.dmp: a damaged minidump with no thread, no
 * module and no exception. */
START_TEST(test_api_a_dump_without_threads_or_modules)
{
	char path[4096];
	if (!corpus_path(path, sizeof path, "rust-minidump/invalid-range.dmp"))
		return; /* no corpus here */
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(path, NULL, &snap), STACKWALK_DAMAGED);
	stackwalk_result *res;
	enum stackwalk_status st = stackwalk_walk(snap, NULL, 0, &res);
	ck_assert(st == STACKWALK_OK || st == STACKWALK_DAMAGED);
	ck_assert_int_eq(stackwalk_result_has_crash(res), 0);
	ck_assert_ptr_null(stackwalk_result_crash_reason(res, STACKWALK_WORDING_TEXT));
	ck_assert_int_eq(stackwalk_result_crash_address(res, STACKWALK_WORDING_JSON, NULL), 0);
	ck_assert_int_eq(stackwalk_result_crashing_thread_index(res), -1);
	ck_assert_ptr_null(stackwalk_result_crashing_thread(res));
	ck_assert_ptr_null(stackwalk_result_signature(res));
	ck_assert_uint_eq(stackwalk_result_module_count(res), 0);
	ck_assert_ptr_null(stackwalk_result_module(res, 0));
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

/* libunwindstack's photos_reset_arm64: nterp_helper's CFI names the DEX
 * pc, and the frame after it is the Java method, in classes2.dex's
 * mapping, as libunwindstack's #08 (pc 0x404264 base.apk!classes2.dex). */
START_TEST(test_api_an_art_interpreter_frame_is_followed_by_its_java_frame)
{
	char path[4096];
	if (!corpus_path(path, sizeof path, "libunwindstack/photos_reset_arm64"))
		return; /* no corpus here */
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(path, NULL, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, NULL, 0, &res), STACKWALK_OK);
	const stackwalk_thread *t = stackwalk_result_thread(res, 0);
	ck_assert_uint_eq(stackwalk_thread_frame_count(t), 20);
	const stackwalk_frame *interp = stackwalk_thread_frame(t, 7);
	ck_assert_str_eq(stackwalk_frame_function(interp), "nterp_helper");
	const stackwalk_frame *java = stackwalk_thread_frame(t, 8);
	ck_assert_int_eq(stackwalk_frame_trust(java), STACKWALK_TRUST_DEX);
	ck_assert_str_eq(stackwalk_trust_name(STACKWALK_TRUST_DEX), "dex_pc");
	ck_assert_str_eq(stackwalk_frame_module(java), "base.apk!classes2.dex");
	ck_assert_uint_eq(stackwalk_frame_module_offset(java), 0x404264);
	ck_assert_uint_eq(stackwalk_frame_pc(java), 0x7b66004264);
	ck_assert(!stackwalk_frame_has_sp(java));
	ck_assert_ptr_null(stackwalk_frame_module_handle(java));
	ck_assert_str_eq(stackwalk_frame_module(stackwalk_thread_frame(t, 12)), "base.apk!classes4.dex");
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	ck_assert_msg(in && out, "%s -> %s", from, to);
	char buf[1 << 14];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
}

/* The same capture with the bytes of classes2.dex in its memory (an
 * offline folder's stackN.data: the address, then the bytes): a DEX file
 * whose method com.example.Crash.main has its code at 0x404260, 8 bytes,
 * holding the DEX pc 0x404264. The Java frame is then named by it. */
START_TEST(test_api_a_java_frame_is_named_from_the_dex_bytes_captured)
{
	const char *corpus = getenv("SW_CORPUS");
	char src[4096], from[4200], to[4200];
	snprintf(src, sizeof src, "%s/libunwindstack/photos_reset_arm64", corpus ? corpus : "");
	if (!corpus || access(src, R_OK) != 0)
		return; /* no corpus here */
	char dir[] = "/tmp/sw_api_dex_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	static const char *const files[] = { "regs.txt", "maps.txt", "stack.data" };
	for (unsigned i = 0; i < 3; i++) {
		snprintf(from, sizeof from, "%s/%s", src, files[i]);
		snprintf(to, sizeof to, "%s/%s", dir, files[i]);
		copy_file(from, to);
	}
	snprintf(to, sizeof to, "%s/links.txt", dir);
	FILE *links = fopen(to, "w");
	ck_assert_ptr_nonnull(links);
	static const char *const libs[][2] = {
		{ "boot.oat_c3e0e6503935c4103ec839d45f3a2183bd910e3c", "boot.oat" },
		{ "libart.so_82c0556f4b66528e4a608c100a63b712", "libart.so" },
		{ "libc.so_f3791c53da47e6e72151dcc8088b9048", "libc.so" },
	};
	for (unsigned i = 0; i < 3; i++)
		fprintf(links, "%s/libunwindstack/common/%s %s\n", corpus, libs[i][0], libs[i][1]);
	fclose(links);
	struct dex_fixture dex = dex_fixture_build(0x404250);
	ck_assert_uint_eq(dex.main_insns, 0x404260);
	snprintf(to, sizeof to, "%s/stack1.data", dir);
	FILE *mem = fopen(to, "wb");
	ck_assert_ptr_nonnull(mem);
	uint64_t base = 0x7b65c00000;
	ck_assert_uint_eq(fwrite(&base, 8, 1, mem), 1); /* little-endian host */
	ck_assert_uint_eq(fwrite(dex.b, 1, dex.size, mem), dex.size);
	fclose(mem);
	free(dex.b);

	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(dir, NULL, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, NULL, 0, &res), STACKWALK_OK);
	const stackwalk_thread *t = stackwalk_result_thread(res, 0);
	const stackwalk_frame *java = stackwalk_thread_frame(t, 8);
	ck_assert_int_eq(stackwalk_frame_trust(java), STACKWALK_TRUST_DEX);
	ck_assert_str_eq(stackwalk_frame_function(java), "com.example.Crash.main");
	ck_assert_uint_eq(stackwalk_frame_function_offset(java), 4);
	ck_assert_str_eq(stackwalk_frame_module(java), "base.apk!classes2.dex");
	/* classes4.dex's bytes are not captured: its frame has no name. */
	ck_assert_ptr_null(stackwalk_frame_function(stackwalk_thread_frame(t, 12)));
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
	static const char *const made[] = { "regs.txt", "maps.txt", "stack.data", "links.txt",
		                            "stack1.data" };
	for (unsigned i = 0; i < 5; i++) {
		snprintf(to, sizeof to, "%s/%s", dir, made[i]);
		unlink(to);
	}
	rmdir(dir);
}
END_TEST

START_TEST(test_api_new_accessors_take_null_and_bad_values)
{
	ck_assert_int_eq(stackwalk_result_has_crash(NULL), 0);
	ck_assert_ptr_null(stackwalk_result_crash_reason(NULL, STACKWALK_WORDING_TEXT));
	uint64_t addr = 1;
	ck_assert_int_eq(stackwalk_result_crash_address(NULL, STACKWALK_WORDING_TEXT, &addr), 0);
	ck_assert_uint_eq(addr, 0);
	ck_assert_uint_eq(stackwalk_result_crash_code(NULL), 0);
	ck_assert_uint_eq(stackwalk_result_crash_flags(NULL), 0);
	ck_assert_int_eq(stackwalk_result_crashing_thread_index(NULL), -1);
	ck_assert_uint_eq(stackwalk_result_module_count(NULL), 0);
	ck_assert_ptr_null(stackwalk_result_module(NULL, 0));
	ck_assert_ptr_null(stackwalk_frame_module_handle(NULL));
	ck_assert_ptr_null(stackwalk_module_name(NULL));
	ck_assert_ptr_null(stackwalk_module_path(NULL));
	ck_assert_uint_eq(stackwalk_module_base(NULL), 0);
	ck_assert_uint_eq(stackwalk_module_size(NULL), 0);
	ck_assert_ptr_null(stackwalk_module_debug_file(NULL));
	ck_assert_ptr_null(stackwalk_module_debug_id(NULL));
	ck_assert_ptr_null(stackwalk_module_code_id(NULL));
	ck_assert_ptr_null(stackwalk_module_version(NULL));
	ck_assert_int_eq(stackwalk_module_symbols(NULL), STACKWALK_SYMBOLS_NOT_LOOKED_FOR);
	ck_assert_str_eq(stackwalk_symbols_name((enum stackwalk_symbols)99), "not_looked_for");

	/* A wording the header does not name. */
	stackwalk_snapshot *snap;
	stackwalk_result *res = walk_example(&snap, STACKWALK_WALK_CRASHING_ONLY);
	ck_assert_ptr_null(stackwalk_result_crash_reason(res, (enum stackwalk_wording)2));
	addr = 1;
	ck_assert_int_eq(stackwalk_result_crash_address(res, (enum stackwalk_wording)-1, &addr), 0);
	ck_assert_uint_eq(addr, 0);
	/* A frame outside every module has no module handle. */
	const stackwalk_thread *t = stackwalk_result_crashing_thread(res);
	for (size_t i = 0; i < stackwalk_thread_frame_count(t); i++) {
		const stackwalk_frame *f = stackwalk_thread_frame(t, i);
		ck_assert_int_eq(stackwalk_frame_module_handle(f) == NULL,
		                 stackwalk_frame_module(f) == NULL);
	}
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
}
END_TEST

/* One version: the header's macros are meson.build's project version, and
 * the library says the same. (stackwalk --version and stackwalk.pc:
 * tests/install.py.) */
START_TEST(test_api_the_version_macros_are_the_project_s)
{
	ck_assert_str_eq(STACKWALK_VERSION, PROJECT_VERSION);
	ck_assert_str_eq(stackwalk_version(), STACKWALK_VERSION);
	char parts[64];
	snprintf(parts, sizeof parts, "%d.%d.%d", STACKWALK_VERSION_MAJOR, STACKWALK_VERSION_MINOR,
	         STACKWALK_VERSION_PATCH);
	ck_assert_str_eq(parts, STACKWALK_VERSION);
#if STACKWALK_VERSION_MAJOR == 0 && STACKWALK_VERSION_MINOR < 5
#error "the 0.5 accessors need a version of at least 0.5"
#endif
}
END_TEST

/* breakpad/tiny-exe-with-cet-xsave-x86.dmp: a dump taken without a crash
 * and without a requesting thread; 3 threads, none wrote the dump. */
/* A call through NULL (testdata/cores' nullcall case): the library's
 * signature goes on to the caller, as the CLI's does (docs/signature.md). */
START_TEST(test_api_the_signature_of_a_null_call_names_its_caller)
{
	const char *td = getenv("SW_TESTDATA");
	ck_assert_ptr_nonnull(td);
	char core[4096], program[4096];
	snprintf(core, sizeof core, "%s/cores/x86_64-O2nofp/nullcall/core.gz", td);
	snprintf(program, sizeof program, "%s/cores/x86_64-O2nofp", td);
	stackwalk_options *opt = stackwalk_options_new();
	ck_assert_int_eq(stackwalk_options_add_symbol_path(opt, program), STACKWALK_OK);
	ck_assert_int_eq(stackwalk_options_set_local_modules(opt, 0), STACKWALK_OK);
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(core, opt, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, opt, STACKWALK_WALK_CRASHING_ONLY, &res), STACKWALK_OK);
	ck_assert_str_eq(stackwalk_result_signature(res), "@0x0 | call_null");
	stackwalk_result_free(res);
	stackwalk_options_free(opt);
	stackwalk_snapshot_close(snap);
}
END_TEST

START_TEST(test_api_crashing_only_without_a_crash_walks_the_first_thread)
{
	const char *corpus = getenv("SW_CORPUS");
	char path[4096];
	snprintf(path, sizeof path, "%s/breakpad/tiny-exe-with-cet-xsave-x86.dmp",
	         corpus ? corpus : "");
	if (!corpus || access(path, R_OK) != 0)
		return; /* no corpus here */
	stackwalk_snapshot *snap;
	ck_assert_int_eq(stackwalk_snapshot_open(path, NULL, &snap), STACKWALK_OK);
	stackwalk_result *res;
	ck_assert_int_eq(stackwalk_walk(snap, NULL, STACKWALK_WALK_CRASHING_ONLY, &res), STACKWALK_OK);
	ck_assert_ptr_null(stackwalk_result_crashing_thread(res));
	ck_assert_ptr_null(stackwalk_result_signature(res));
	ck_assert_uint_eq(stackwalk_result_thread_count(res), 3);
	/* The thread stackwalk --brief prints. */
	const stackwalk_thread *t = stackwalk_result_thread(res, 0);
	ck_assert_uint_eq(stackwalk_thread_id(t), 59444);
	ck_assert_uint_eq(stackwalk_thread_frame_count(t), 1);
	ck_assert_str_eq(stackwalk_thread_end(t), "null_return");
	for (size_t i = 1; i < 3; i++) {
		ck_assert_uint_eq(stackwalk_thread_frame_count(stackwalk_result_thread(res, i)), 0);
		ck_assert_str_eq(stackwalk_thread_end(stackwalk_result_thread(res, i)), "not_walked");
	}
	stackwalk_result_free(res);
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
	tcase_add_test(tc, test_api_threads_walk_at_once_and_render_the_same);
	tcase_add_test(tc, test_api_json_status_says_damaged);
	tcase_add_test(tc, test_api_a_minidump_has_no_next_part);
	tcase_add_test(tc, test_api_a_symbol_cache_indexes_each_sym_and_renders_the_same);
	tcase_add_test(tc, test_api_walks_in_several_threads_share_one_cache);
	tcase_add_test(tc, test_api_the_default_symbol_cache_is_the_cli_s);
	tcase_add_test(tc, test_api_symbol_urls_and_debuginfod_are_checked);
	tcase_add_test(tc, test_api_symbol_headers_are_checked);
	tcase_add_test(tc, test_api_an_unreachable_symbol_server_is_a_warning_not_a_failure);
	tcase_add_test(tc, test_api_symbols_timeout_bounds_a_stalled_server);
	tcase_add_test(tc, test_api_the_signature_is_the_json_s_and_skip_files_change_it);
	tcase_add_test(tc, test_api_the_signature_of_a_null_call_names_its_caller);
	tcase_add_test(tc, test_api_crashing_only_without_a_crash_walks_the_first_thread);
	tcase_add_test(tc, test_api_a_compressed_snapshot_walks_as_its_file);
	tcase_add_test(tc, test_api_crash_accessors_say_what_the_reports_print);
	tcase_add_test(tc, test_api_module_accessors_list_the_json_s_modules);
	tcase_add_test(tc, test_api_an_elf_core_s_signal_and_modules);
	tcase_add_test(tc, test_api_no_crash_is_absent_not_zero);
	tcase_add_test(tc, test_api_a_dump_without_threads_or_modules);
	tcase_add_test(tc, test_api_an_art_interpreter_frame_is_followed_by_its_java_frame);
	tcase_add_test(tc, test_api_a_java_frame_is_named_from_the_dex_bytes_captured);
	tcase_add_test(tc, test_api_new_accessors_take_null_and_bad_values);
	tcase_add_test(tc, test_api_the_version_macros_are_the_project_s);
	tcase_add_test(tc, test_api_explain_gives_each_frame_its_evidence);
	suite_add_tcase(s, tc);
	return s;
}
