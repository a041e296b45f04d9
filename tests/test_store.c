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

/* A firmware the device calls fw.elf whose .sym dump_syms wrote from
 * mps2.elf: a single file is matched by its debug id; only an id of zeros,
 * which names no build, needs the name too. */
START_TEST(test_store_matches_single_file_by_debug_id_whatever_the_name)
{
	char zero[512];
	snprintf(zero, sizeof zero, "%s/zero.sym", root);
	write_file(zero, "MODULE Linux x86_64 000000000 other.so\nPUBLIC 5000 0 zero_func\n", false);
	struct sw_module renamed[] = {
		{.base = 0x700000, .size = 0x10000, .code_file = "/flash/fw.elf",
		 .debug_file = "fw.elf", .debug_id = "DDDD0"},
		{.base = 0x800000, .size = 0x10000, .code_file = "/lib/noname.so",
		 .debug_file = "noname.so", .debug_id = "000000000"},
	};
	struct sw_snapshot s = {0};
	s.modules = renamed;
	s.nmodules = 2;
	char single[512];
	snprintf(single, sizeof single, "%s/single.sym.gz", root);
	const char *paths[] = {single, zero};
	struct sw_err err = {0};
	struct sw_sym_store *st = sw_sym_store_create(paths, 2, &s, &err);
	ck_assert_ptr_nonnull(st);
	const struct sw_symbol_source *src = sw_sym_store_source(st);
	struct sw_arena a;
	sw_arena_init(&a);
	enum sw_symbols_status status;
	const struct sw_module_symbols *ms = src->for_module(src->self, 0, &status);
	ck_assert_int_eq(status, SW_SYMS_LOADED);
	ck_assert_str_eq(name_at(ms, 0x4000, &a), "single_func");
	ck_assert_ptr_null(src->for_module(src->self, 1, &status));
	ck_assert_int_eq(status, SW_SYMS_MISSING);
	sw_arena_free(&a);
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

/* A store of its own under root/NAME: one module's file with the given
 * MODULE id, filed under the module's id. */
static void write_store_file(const char *store, const char *file, const char *dir_id,
                             const char *module_id)
{
	char p[512], text[256];
	snprintf(p, sizeof p, "%s/%s", root, store);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/%s", root, store, file);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/%s/%s", root, store, file, dir_id);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/%s/%s/%s.sym", root, store, file, dir_id, file);
	snprintf(text, sizeof text, "MODULE Linux x86_64 %s %s\nPUBLIC 100 0 from_%s\n", module_id,
	         file, store);
	write_file(p, text, false);
}

static struct sw_module id_modules[] = {
	{.base = 0x400000, .size = 0x1000, .code_file = "/lib/w.so", .debug_file = "w.so",
	 .debug_id = "FFFF0"},
	{.base = 0x500000, .size = 0x1000, .code_file = "/lib/w.so", .debug_file = "w.so",
	 .debug_id = "FFFF0"},
	{.base = 0x600000, .size = 0x1000, .code_file = "/lib/w.so", .debug_file = "w.so",
	 .debug_id = "EEEE0"},
};

static struct sw_sym_store *open_id_store(const char *const *stores, size_t n)
{
	memset(&snap, 0, sizeof snap);
	snap.modules = id_modules;
	snap.nmodules = sizeof id_modules / sizeof id_modules[0];
	char paths[4][512];
	const char *p[4];
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof paths[i], "%s/%s", root, stores[i]);
		p[i] = paths[i];
	}
	struct sw_err err = {0};
	struct sw_sym_store *st = sw_sym_store_create(p, n, &snap, &err);
	ck_assert_ptr_nonnull(st);
	return st;
}

START_TEST(test_store_refuses_a_file_whose_module_id_is_not_the_modules_once)
{
	write_store_file("s1", "w.so", "FFFF0", "123456");
	struct sw_sym_store *st = open_id_store((const char *[]){"s1"}, 1);
	const struct sw_symbol_source *src = sw_sym_store_source(st);
	enum sw_symbols_status status;
	ck_assert_ptr_null(src->for_module(src->self, 0, &status));
	ck_assert_int_eq(status, SW_SYMS_MISSING);
	/* The second module of the same id: refused again, warned once. */
	ck_assert_ptr_null(src->for_module(src->self, 1, &status));
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 1);
	const char *w = sw_sym_store_warning(st, 0);
	ck_assert_ptr_nonnull(strstr(w, "/s1/w.so/FFFF0/w.so.sym: symbol file not used"));
	ck_assert_ptr_nonnull(strstr(w, "debug id 123456"));
	ck_assert_ptr_nonnull(strstr(w, "the module's is FFFF0"));
	ck_assert_ptr_null(strchr(w, '\n'));
	sw_sym_store_free(st);
}
END_TEST

/* A prefetch (the walker loading a module it will likely need, on a
 * concurrent store) finds the symbols once, for the walk that asks later,
 * but leaves no trace of its own: the refused file's warning shows only
 * once a walk asks for the module. */
START_TEST(test_store_prefetch_shows_nothing_until_a_walk_asks)
{
	write_store_file("s1", "w.so", "FFFF0", "123456");
	write_store_file("s1", "w.so", "EEEE0", "EEEE0");
	struct sw_sym_store *st = open_id_store((const char *[]){"s1"}, 1);
	const struct sw_symbol_source *src = sw_sym_store_source(st);
	ck_assert_ptr_null(src->prefetch);
	sw_sym_store_set_concurrent(st);
	ck_assert_ptr_nonnull(src->prefetch);
	src->prefetch(src->self, 0);
	src->prefetch(src->self, 2);
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 0);
	enum sw_symbols_status status;
	ck_assert_ptr_nonnull(src->for_module(src->self, 2, &status));
	ck_assert_int_eq(status, SW_SYMS_LOADED);
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 0);
	ck_assert_ptr_null(src->for_module(src->self, 0, &status));
	ck_assert_int_eq(status, SW_SYMS_MISSING);
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 1);
	ck_assert_ptr_nonnull(strstr(sw_sym_store_warning(st, 0), "symbol file not used"));
	sw_sym_store_free(st);
}
END_TEST

/* An ELF module's provider, on a concurrent store too (several walking
 * threads: each provider behind its lock), answers what its file says of
 * its layout: code or data, and where an executable section starts. The
 * lock's wrapper once dropped these, and a walk's rules changed with the
 * number of walking threads. */
START_TEST(test_store_elf_layout_questions_pass_through_the_concurrent_lock)
{
	char dir[512], cmd[1200];
	snprintf(dir, sizeof dir, "%s/elf", root);
	mkdir(dir, 0755);
	const char *td = getenv("SW_TESTDATA");
	snprintf(cmd, sizeof cmd, "cp '%s/elf/tiny_minidebuginfo_x86_64' '%s/tiny'", td ? td : "testdata",
	         dir);
	ck_assert_int_eq(system(cmd), 0);
	static struct sw_module mods[] = {
		{.base = 0x10000, .size = 0x3000, .code_file = "/lib/tiny", .debug_file = "tiny",
		 .code_id = "ac45086d41fa45f80e4322ba9da15ae824704f21"},
	};
	for (int concurrent = 0; concurrent < 2; concurrent++) {
		memset(&snap, 0, sizeof snap);
		snap.sys.os = SW_OS_LINUX;
		snap.sys.cpu = SW_CPU_AMD64;
		snap.modules = mods;
		snap.nmodules = 1;
		const char *p[1] = { dir };
		struct sw_err err = {0};
		struct sw_sym_store *st = sw_sym_store_create(p, 1, &snap, &err);
		ck_assert_ptr_nonnull(st);
		if (concurrent)
			sw_sym_store_set_concurrent(st);
		const struct sw_symbol_source *src = sw_sym_store_source(st);
		enum sw_symbols_status status;
		const struct sw_module_symbols *ms = src->for_module(src->self, 0, &status);
		ck_assert_msg(ms != NULL, "status %d: %s", (int)status,
		              sw_sym_store_nwarnings(st) ? sw_sym_store_warning(st, 0) : "");
		uint64_t start;
		ck_assert_ptr_nonnull(ms->ops->in_code);
		ck_assert(ms->ops->in_code(ms->self, 0x650));
		ck_assert(!ms->ops->in_code(ms->self, 0x1dd0));
		ck_assert_ptr_nonnull(ms->ops->code_section_start);
		ck_assert(ms->ops->code_section_start(ms->self, 0x650, &start));
		ck_assert_uint_eq(start, 0x5f0);
		sw_sym_store_free(st);
	}
}
END_TEST

START_TEST(test_store_accepts_a_module_id_in_other_case)
{
	write_store_file("s1", "w.so", "FFFF0", "ffff0");
	struct sw_sym_store *st = open_id_store((const char *[]){"s1"}, 1);
	const struct sw_symbol_source *src = sw_sym_store_source(st);
	enum sw_symbols_status status;
	ck_assert_ptr_nonnull(src->for_module(src->self, 0, &status));
	ck_assert_int_eq(status, SW_SYMS_LOADED);
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 0);
	sw_sym_store_free(st);
}
END_TEST

START_TEST(test_store_looks_on_past_a_refused_file)
{
	write_store_file("s1", "w.so", "FFFF0", "123456");
	write_store_file("s2", "w.so", "FFFF0", "FFFF0");
	struct sw_sym_store *st = open_id_store((const char *[]){"s1", "s2"}, 2);
	const struct sw_symbol_source *src = sw_sym_store_source(st);
	struct sw_arena a;
	sw_arena_init(&a);
	enum sw_symbols_status status;
	const struct sw_module_symbols *ms = src->for_module(src->self, 0, &status);
	ck_assert_int_eq(status, SW_SYMS_LOADED);
	ck_assert_str_eq(name_at(ms, 0x100, &a), "from_s2");
	ck_assert_ptr_nonnull(strstr(sw_sym_store_file(st, 0), "/s2/"));
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 1);
	sw_arena_free(&a);
	sw_sym_store_free(st);
}
END_TEST

START_TEST(test_store_warns_about_a_symbol_path_that_is_not_symbols)
{
	char notes[512];
	snprintf(notes, sizeof notes, "%s/notes.txt", root);
	write_file(notes, "not symbols\n", false);
	const char *paths[] = {notes, "/nonexistent", root};
	memset(&snap, 0, sizeof snap);
	struct sw_err err = {0};
	struct sw_sym_store *st = sw_sym_store_create(paths, 3, &snap, &err);
	ck_assert_ptr_nonnull(st);
	/* A missing path is the CLI's to report (before the store exists). */
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 1);
	ck_assert_ptr_nonnull(strstr(sw_sym_store_warning(st, 0),
	                             "notes.txt: symbol path ignored: not a .sym, .sym.gz, ELF or Mach-O file"));
	ck_assert_ptr_null(sw_sym_store_warning(st, 1));
	sw_sym_store_free(st);
}
END_TEST

START_TEST(test_store_refuses_a_sym_gz_past_its_inflation_limit_with_a_warning)
{
	/* A .sym.gz of ~80 KiB that inflates to 80 MiB (MODULE line, then
	 * zeros): past sw_gz_limit (64 MiB for a file this small). */
	char p[512];
	mkdirs("bomb.so", "BBBB0");
	snprintf(p, sizeof p, "%s/bomb.so/BBBB0/bomb.so.sym.gz", root);
	gzFile g = gzopen(p, "wb9");
	ck_assert_ptr_nonnull(g);
	gzputs(g, "MODULE Linux x86_64 BBBB0 bomb.so\n");
	static char zeros[1 << 20];
	for (int i = 0; i < 80; i++)
		ck_assert_int_eq(gzwrite(g, zeros, sizeof zeros), (int)sizeof zeros);
	gzclose(g);
	static struct sw_module bomb = {.base = 0x400000, .size = 0x1000, .code_file = "bomb.so",
	                                .debug_file = "bomb.so", .debug_id = "BBBB0"};
	memset(&snap, 0, sizeof snap);
	snap.modules = &bomb;
	snap.nmodules = 1;
	const char *paths[] = {root};
	struct sw_err err = {0};
	struct sw_sym_store *st = sw_sym_store_create(paths, 1, &snap, &err);
	const struct sw_symbol_source *src = sw_sym_store_source(st);
	enum sw_symbols_status status;
	ck_assert_ptr_null(src->for_module(src->self, 0, &status));
	ck_assert_int_eq(status, SW_SYMS_CORRUPT);
	ck_assert_int_eq(sw_sym_store_error(st, 0)->code, SW_ERR_UNSUPPORTED);
	ck_assert_uint_eq(sw_sym_store_nwarnings(st), 1);
	ck_assert_ptr_nonnull(strstr(sw_sym_store_warning(st, 0), "bomb.so.sym.gz: inflates to more than"));
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
	tcase_add_test(tc, test_store_matches_single_file_by_debug_id_whatever_the_name);
	tcase_add_test(tc, test_store_reports_missing);
	tcase_add_test(tc, test_store_refuses_a_file_whose_module_id_is_not_the_modules_once);
	tcase_add_test(tc, test_store_prefetch_shows_nothing_until_a_walk_asks);
	tcase_add_test(tc, test_store_elf_layout_questions_pass_through_the_concurrent_lock);
	tcase_add_test(tc, test_store_accepts_a_module_id_in_other_case);
	tcase_add_test(tc, test_store_looks_on_past_a_refused_file);
	tcase_add_test(tc, test_store_warns_about_a_symbol_path_that_is_not_symbols);
	tcase_add_test(tc, test_store_refuses_a_sym_gz_past_its_inflation_limit_with_a_warning);
	suite_add_tcase(s, tc);
	return s;
}
