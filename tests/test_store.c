/* Locating symbol files: Breakpad's layout, .sym.gz, single files, misses. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/arena.h"
#include "symbols/store.h"

static char root[64];

static void write_file(const char *path, const char *text, bool gz)
{
	if (gz) {
		gzFile g = gzopen(path, "wb");
		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(gzputs(g, text), (int)strlen(text));
		gzclose(g);
	} else {
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(text, f);
		fclose(f);
	}
}

static void mkdirs(const char *a, const char *b)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, a);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/%s", root, a, b);
	mkdir(p, 0755);
}

static void setup(void)
{
	strcpy(root, "/tmp/sw_store_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	char p[512];
	mkdirs("app.pdb", "AAAA1");
	snprintf(p, sizeof p, "%s/app.pdb/AAAA1/app.sym", root);
	write_file(p, "MODULE windows x86 AAAA1 app.pdb\nFUNC 1000 10 0 app_func\n", false);
	mkdirs("libz.so", "BBBB0");
	snprintf(p, sizeof p, "%s/libz.so/BBBB0/libz.so.sym.gz", root);
	write_file(p, "MODULE Linux x86_64 BBBB0 libz.so\nPUBLIC 2000 0 inflate\n", true);
	mkdirs("bad.so", "CCCC0");
	snprintf(p, sizeof p, "%s/bad.so/CCCC0/bad.so.sym", root);
	write_file(p, "MODULE Linux x86_64 CCCC0 bad.so\nFUNC 3000 10 0 ok\nJUNK\n", false);
	snprintf(p, sizeof p, "%s/single.sym.gz", root);
	write_file(p, "MODULE Linux x86_64 DDDD0 single.so\nPUBLIC 4000 0 single_func\n", true);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

static struct sw_module modules[] = {
	{.base = 0x400000, .size = 0x10000, .code_file = "C:\\app.exe",
	 .debug_file = "C:\\build\\app.pdb", .debug_id = "AAAA1"},
	{.base = 0x500000, .size = 0x10000, .code_file = "/lib/libz.so",
	 .debug_file = "libz.so", .debug_id = "BBBB0"},
	{.base = 0x600000, .size = 0x10000, .code_file = "/lib/bad.so",
	 .debug_id = "CCCC0"}, /* no debug_file: the code file's name */
	{.base = 0x700000, .size = 0x10000, .code_file = "/lib/single.so",
	 .debug_file = "single.so", .debug_id = "dddd0"},
	{.base = 0x800000, .size = 0x10000, .code_file = "/lib/none.so",
	 .debug_file = "none.so", .debug_id = "EEEE0"},
	{.base = 0x900000, .size = 0x10000, .code_file = "/lib/noid.so"},
};

static struct sw_snapshot snap;

static const struct sw_symbol_source *open_store(struct sw_sym_store **st, bool with_single)
{
	memset(&snap, 0, sizeof snap);
	snap.modules = modules;
	snap.nmodules = sizeof modules / sizeof modules[0];
	char single[512];
	snprintf(single, sizeof single, "%s/single.sym.gz", root);
	const char *paths[] = {"/nonexistent", root, single};
	struct sw_err err = {0};
	*st = sw_sym_store_create(paths, with_single ? 3 : 2, &snap, &err);
	ck_assert_ptr_nonnull(*st);
	return sw_sym_store_source(*st);
}

static const char *name_at(const struct sw_module_symbols *ms, uint64_t off,
                           struct sw_arena *a)
{
	struct sw_sym_info info;
	if (!ms || !ms->ops->lookup(ms->self, off, a, &info))
		return NULL;
	return info.function;
}

START_TEST(test_store_finds_breakpad_layout_stripping_pdb)
{
	struct sw_sym_store *st;
	const struct sw_symbol_source *src = open_store(&st, false);
	struct sw_arena a;
	sw_arena_init(&a);
	enum sw_symbols_status status;
	const struct sw_module_symbols *ms = src->for_module(src->self, 0, &status);
	ck_assert_int_eq(status, SW_SYMS_LOADED);
	ck_assert_str_eq(name_at(ms, 0x1004, &a), "app_func");
	/* Cached: the same object the second time. */
	ck_assert_ptr_eq(src->for_module(src->self, 0, &status), ms);
	sw_arena_free(&a);
	sw_sym_store_free(st);
}
END_TEST

START_TEST(test_store_reads_sym_gz)
{
	struct sw_sym_store *st;
	const struct sw_symbol_source *src = open_store(&st, false);
	struct sw_arena a;
	sw_arena_init(&a);
	enum sw_symbols_status status;
	const struct sw_module_symbols *ms = src->for_module(src->self, 1, &status);
	ck_assert_int_eq(status, SW_SYMS_LOADED);
	ck_assert_str_eq(name_at(ms, 0x2100, &a), "inflate");
	sw_arena_free(&a);
	sw_sym_store_free(st);
}
END_TEST

START_TEST(test_store_reports_corrupt_but_serves_what_parsed)
{
	struct sw_sym_store *st;
	const struct sw_symbol_source *src = open_store(&st, false);
	struct sw_arena a;
	sw_arena_init(&a);
	enum sw_symbols_status status;
	const struct sw_module_symbols *ms = src->for_module(src->self, 2, &status);
	ck_assert_int_eq(status, SW_SYMS_CORRUPT);
	ck_assert_str_eq(name_at(ms, 0x3000, &a), "ok");
	ck_assert_int_eq(sw_sym_store_error(st, 2)->code, SW_ERR_CORRUPT);
	sw_arena_free(&a);
	sw_sym_store_free(st);
}
END_TEST

START_TEST(test_store_matches_single_file_by_module_line)
{
	struct sw_sym_store *st;
	const struct sw_symbol_source *src = open_store(&st, true);
	struct sw_arena a;
	sw_arena_init(&a);
	enum sw_symbols_status status;
	const struct sw_module_symbols *ms = src->for_module(src->self, 3, &status);
	ck_assert_int_eq(status, SW_SYMS_LOADED);
	ck_assert_str_eq(name_at(ms, 0x4000, &a), "single_func");
	ck_assert_ptr_nonnull(strstr(sw_sym_store_file(st, 3), "single.sym.gz"));
	sw_arena_free(&a);
	sw_sym_store_free(st);
	/* Without the single file on the path, nothing. */
	src = open_store(&st, false);
	ck_assert_ptr_null(src->for_module(src->self, 3, &status));
	ck_assert_int_eq(status, SW_SYMS_MISSING);
	sw_sym_store_free(st);
}
END_TEST

START_TEST(test_store_reports_missing)
{
	struct sw_sym_store *st;
	const struct sw_symbol_source *src = open_store(&st, true);
	enum sw_symbols_status status;
	ck_assert_ptr_null(src->for_module(src->self, 4, &status));
	ck_assert_int_eq(status, SW_SYMS_MISSING);
	ck_assert_ptr_null(src->for_module(src->self, 5, &status));
	ck_assert_int_eq(status, SW_SYMS_MISSING);
	ck_assert_ptr_null(src->for_module(src->self, 99, &status));
	ck_assert_int_eq(status, SW_SYMS_MISSING);
	ck_assert_ptr_null(sw_sym_store_file(st, 4));
	sw_sym_store_free(st);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_store_finds_breakpad_layout_stripping_pdb);
	tcase_add_test(tc, test_store_reads_sym_gz);
	tcase_add_test(tc, test_store_reports_corrupt_but_serves_what_parsed);
	tcase_add_test(tc, test_store_matches_single_file_by_module_line);
	tcase_add_test(tc, test_store_reports_missing);
	suite_add_tcase(s, tc);
	return s;
}
