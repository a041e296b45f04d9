/* Breakpad .sym parsing, lookup, STACK CFI and STACK WIN unwinding. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "symbols/breakpad_sym.h"
#include "symbols/breakpad_sym_internal.h"
#include "symbols/sym_index.h"
#include "testutil.h"

static struct sw_bsym *parse_text(const char *text)
{
	struct sw_err err = {0};
	struct sw_bsym *b = sw_bsym_parse(text, strlen(text), "test.sym", &err);
	ck_assert_ptr_nonnull(b);
	return b;
}

/* Writes text to a temporary file and loads it the way the store does. */
static struct sw_bsym *load_text(const char *text, struct sw_err *err)
{
	char path[] = "/tmp/sw_bsym_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct sw_bsym *b = sw_bsym_load_file(path, err);
	unlink(path);
	return b;
}

static const char synthetic[] =
	"MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 synth\n"
	"INFO CODE_ID 0123\n"
	"FILE 0 a.c\n"
	"FILE 1 dir/b.c\n"
	"FUNC 1000 100 0 func_a\n"
	"1000 10 10 0\n"
	"1010 20 11 1\n"
	"1040 10 12 0\n"
	"FUNC m 1200 20 8 func_b(int, char)\n"
	"1200 20 30 1\n"
	"PUBLIC 1100 0 pub_gap\n"
	"PUBLIC m 2000 4 pub_tail\n"
	"PUBLIC 0 0 ignored_at_zero\n"
	"STACK CFI INIT 1000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
	"STACK CFI 1001 .cfa: $rsp 16 + $rbx: .cfa -16 + ^\n"
	"STACK CFI 1004 .cfa: $rsp 24 +\n"
	"STACK CFI INIT 1200 20 .cfa: $rsp 8 + .ra: .undef\n"
	"STACK CFI INIT 1300 10 .cfa: $rsp 8 +\n"
	"STACK CFI INIT 1400 10 .cfa: $rsp 8 + .ra: .cfa 0x100000 - ^\n";

static struct sw_sym_info look(struct sw_bsym *b, uint64_t off, struct sw_arena *a)
{
	struct sw_sym_info info;
	memset(&info, 0xff, sizeof info);
	if (!sw_bsym_ops.lookup(b, off, a, &info))
		info.function = NULL;
	return info;
}

START_TEST(test_lookup_finds_func_and_line_records)
{
	struct sw_bsym *b = parse_text(synthetic);
	struct sw_arena a;
	sw_arena_init(&a);
	ck_assert(!sw_bsym_is_corrupt(b));
	struct sw_sym_info i = look(b, 0x1000, &a);
	ck_assert_str_eq(i.function, "func_a");
	ck_assert_uint_eq(i.function_offset, 0x1000);
	ck_assert_uint_eq(i.function_size, 0x100);
	ck_assert(!i.is_public);
	ck_assert_str_eq(i.file, "a.c");
	ck_assert_uint_eq(i.line, 10);
	ck_assert_uint_eq(i.line_offset, 0x1000);
	ck_assert_uint_eq(i.ninlines, 0);

	i = look(b, 0x102f, &a);
	ck_assert_str_eq(i.file, "dir/b.c");
	ck_assert_uint_eq(i.line, 11);
	ck_assert_uint_eq(i.line_offset, 0x1010);

	/* In the FUNC, between line records: a function, no line. */
	i = look(b, 0x1030, &a);
	ck_assert_str_eq(i.function, "func_a");
	ck_assert_ptr_null(i.file);
	ck_assert_uint_eq(i.line, 0);

	i = look(b, 0x10ff, &a);
	ck_assert_str_eq(i.function, "func_a");

	i = look(b, 0x1210, &a);
	ck_assert_str_eq(i.function, "func_b(int, char)");
	ck_assert_uint_eq(i.param_size, 8);
	ck_assert_uint_eq(i.line, 30);
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

START_TEST(test_lookup_bounds_public_by_next_func)
{
	struct sw_bsym *b = parse_text(synthetic);
	struct sw_arena a;
	sw_arena_init(&a);
	/* Just after func_a ends: the PUBLIC at 0x1100. */
	struct sw_sym_info i = look(b, 0x1100, &a);
	ck_assert_str_eq(i.function, "pub_gap");
	ck_assert(i.is_public);
	ck_assert_uint_eq(i.function_offset, 0x1100);
	ck_assert_uint_eq(i.function_size, 0);
	ck_assert_ptr_null(i.file);
	ck_assert(sw_bsym_ops.has_function(b, 0x11ff));
	/* After func_b: the nearest PUBLIC (0x1100) lies below func_b, so it
	 * does not reach here (Breakpad's rule). */
	ck_assert_ptr_null(look(b, 0x1220, &a).function);
	ck_assert(!sw_bsym_ops.has_function(b, 0x1fff));
	i = look(b, 0x123456, &a);
	ck_assert_str_eq(i.function, "pub_tail");
	ck_assert_uint_eq(i.param_size, 4);
	/* Below everything; the PUBLIC at 0 is not stored. */
	ck_assert_ptr_null(look(b, 0xfff, &a).function);
	ck_assert(!sw_bsym_ops.has_function(b, 0x10));
	ck_assert(sw_bsym_ops.has_function(b, 0x1000));
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

START_TEST(test_lookup_in_public_only_module)
{
	struct sw_bsym *b = parse_text("MODULE windows x86 11 k.pdb\n"
	                               "PUBLIC 3000 c Sleep\n"
	                               "PUBLIC 1000 0 Start\n");
	struct sw_arena a;
	sw_arena_init(&a);
	ck_assert_str_eq(look(b, 0x1000, &a).function, "Start");
	ck_assert_str_eq(look(b, 0x2fff, &a).function, "Start");
	struct sw_sym_info i = look(b, 0x3001, &a);
	ck_assert_str_eq(i.function, "Sleep");
	ck_assert_uint_eq(i.param_size, 12);
	ck_assert_ptr_null(look(b, 0x999, &a).function);
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

/* dump_syms writes a PDB's data publics as PUBLIC records too: a string
 * literal's, a vftable's. Addresses after them are in .rdata, no function:
 * a scanned word pointing there is no return address. */
START_TEST(test_public_records_of_data_cover_no_function)
{
	struct sw_bsym *b = parse_text("MODULE windows x86_64 11 app.pdb\n"
	                               "PUBLIC 1000 0 CrashNow\n"
	                               "PUBLIC 5000 0 ??_C@_0BA@HNLDKHLP@hello?5world?$AA@\n"
	                               "PUBLIC 5100 0 ??_7Widget@@6B@\n"
	                               "PUBLIC 6000 0 _ZTV6Widget\n"
	                               "PUBLIC 7000 0 __real@3ff0000000000000\n");
	ck_assert(sw_bsym_ops.has_function(b, 0x1010));
	ck_assert(sw_bsym_ops.has_function(b, 0x4fff));
	ck_assert(!sw_bsym_ops.has_function(b, 0x5008));
	ck_assert(!sw_bsym_ops.has_function(b, 0x5108));
	ck_assert(!sw_bsym_ops.has_function(b, 0x6010));
	ck_assert(!sw_bsym_ops.has_function(b, 0x7008));
	sw_bsym_free(b);
}
END_TEST

START_TEST(test_lookup_sorts_unsorted_records_and_first_overlap_wins)
{
	struct sw_bsym *b = parse_text("FUNC 2000 10 0 second\n"
	                               "2000 10 2 0\n"
	                               "FUNC 1000 10 0 first\n"
	                               "1000 8 1 0\n"
	                               "FUNC 1008 10 0 overlapping\n"
	                               "FILE 0 x.c\n");
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info i = look(b, 0x1004, &a);
	ck_assert_str_eq(i.function, "first");
	ck_assert_str_eq(i.file, "x.c");
	ck_assert_uint_eq(i.line, 1);
	ck_assert_str_eq(look(b, 0x100c, &a).function, "first");
	ck_assert_ptr_null(look(b, 0x1014, &a).function);
	i = look(b, 0x2004, &a);
	ck_assert_str_eq(i.function, "second");
	ck_assert_uint_eq(i.line, 2);
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

static const char inline_new[] =
	"FILE 0 main.c\nFILE 1 a.h\nFILE 2 b.h\n"
	"INLINE_ORIGIN 0 outer_inl\nINLINE_ORIGIN 1 inner_inl\n"
	"FUNC 100 100 0 physical\n"
	"INLINE 0 7 0 0 110 40 180 10\n"
	"INLINE 1 21 1 1 118 8\n"
	"INLINE 1 22 1 1 130 8\n"
	"100 100 99 2\n";

static const char inline_old[] =
	"FILE 0 main.c\nFILE 1 a.h\nFILE 2 b.h\n"
	"INLINE_ORIGIN 0 1 outer_inl\nINLINE_ORIGIN 1 2 inner_inl\n"
	"FUNC 100 100 0 physical\n"
	"INLINE 0 7 0 110 40 180 10\n"
	"INLINE 1 21 1 118 8\n"
	"INLINE 1 22 1 130 8\n"
	"100 100 99 2\n";

START_TEST(test_inline_new_layout_gives_exact_chain)
{
	struct sw_bsym *b = parse_text(inline_new);
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info i = look(b, 0x11a, &a);
	ck_assert_str_eq(i.function, "physical");
	ck_assert_str_eq(i.file, "b.h");
	ck_assert_uint_eq(i.line, 99);
	ck_assert_uint_eq(i.ninlines, 2);
	ck_assert_str_eq(i.inlines[0].function, "outer_inl");
	ck_assert_str_eq(i.inlines[0].call_file, "main.c");
	ck_assert_uint_eq(i.inlines[0].call_line, 7);
	ck_assert_str_eq(i.inlines[1].function, "inner_inl");
	ck_assert_str_eq(i.inlines[1].call_file, "a.h");
	ck_assert_uint_eq(i.inlines[1].call_line, 21);
	/* The second range of the outer inline, no inner one there. */
	i = look(b, 0x185, &a);
	ck_assert_uint_eq(i.ninlines, 1);
	ck_assert_str_eq(i.inlines[0].function, "outer_inl");
	i = look(b, 0x132, &a);
	ck_assert_uint_eq(i.ninlines, 2);
	ck_assert_uint_eq(i.inlines[1].call_line, 22);
	/* Outside every INLINE range. */
	ck_assert_uint_eq(look(b, 0x150, &a).ninlines, 0);
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

START_TEST(test_inline_old_layout_uses_line_record_file)
{
	struct sw_bsym *b = parse_text(inline_old);
	struct sw_arena a;
	sw_arena_init(&a);
	ck_assert(!sw_bsym_is_corrupt(b));
	struct sw_sym_info i = look(b, 0x11a, &a);
	ck_assert_uint_eq(i.ninlines, 2);
	ck_assert_str_eq(i.inlines[0].function, "outer_inl");
	ck_assert_uint_eq(i.inlines[0].call_line, 7);
	ck_assert_str_eq(i.inlines[1].function, "inner_inl");
	ck_assert_uint_eq(i.inlines[1].call_line, 21);
	/* Breakpad has no call file in this layout: it shows the file of the
	 * line record at the address. */
	ck_assert_str_eq(i.inlines[0].call_file, "b.h");
	ck_assert_str_eq(i.inlines[1].call_file, "b.h");
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

/* linux_inline.dmp: Breakpad's frames 0-3 are func() linux_inline.cpp:27,
 * bar() c.cpp:32, foo() b.cpp:39, main a.cpp:42 (new layout) and all in
 * linux_inline.cpp for the old layout. */
START_TEST(test_inline_real_linux_inline_variants)
{
	char path[1024];
	struct sw_err err = {0};
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_bsym *b = sw_bsym_load_file(
		corpus_path(path, sizeof path,
		            "breakpad/symbols-variants/linux_inline-new/linux_inline/"
		            "BBA6FA10B8AAB33D00000000000000000/linux_inline.sym"),
		&err);
	ck_assert_ptr_nonnull(b);
	struct sw_sym_info i = look(b, 0x161b6, &a);
	ck_assert_str_eq(i.function, "main");
	ck_assert_str_eq(i.file, "linux_inline.cpp");
	ck_assert_uint_eq(i.line, 27);
	ck_assert_uint_eq(i.ninlines, 3);
	const char *fn[3] = {"foo()", "bar()", "func()"};
	const char *cf[3] = {"a.cpp", "b.cpp", "c.cpp"};
	const uint32_t cl[3] = {42, 39, 32};
	for (int k = 0; k < 3; k++) {
		ck_assert_str_eq(i.inlines[k].function, fn[k]);
		ck_assert_str_eq(i.inlines[k].call_file, cf[k]);
		ck_assert_uint_eq(i.inlines[k].call_line, cl[k]);
	}
	sw_bsym_free(b);

	b = sw_bsym_load_file(
		corpus_path(path, sizeof path,
		            "breakpad/symbols-variants/linux_inline-old/linux_inline/"
		            "BBA6FA10B8AAB33D00000000000000000/linux_inline.sym"),
		&err);
	ck_assert_ptr_nonnull(b);
	i = look(b, 0x161b6, &a);
	ck_assert_uint_eq(i.line, 27);
	ck_assert_uint_eq(i.ninlines, 3);
	for (int k = 0; k < 3; k++) {
		ck_assert_str_eq(i.inlines[k].function, fn[k]);
		ck_assert_str_eq(i.inlines[k].call_file, "linux_inline.cpp");
		ck_assert_uint_eq(i.inlines[k].call_line, cl[k]);
	}
	sw_bsym_free(b);
	sw_arena_free(&a);
}
END_TEST

/* test.dmp (rust-minidump): frame 0 CrashFunction test_app.cc:58 at
 * 0x40429e, frame 1 main test_app.cc:65 (return address 0x404200). */
START_TEST(test_lookup_real_test_app_matches_breakpad)
{
	char path[1024];
	struct sw_err err = {0};
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_bsym *b = sw_bsym_load_file(
		corpus_path(path, sizeof path,
		            "rust-minidump/symbols/test_app.pdb/5A9832E5287241C1838ED98914E9B7FF1/"
		            "test_app.sym"),
		&err);
	ck_assert_ptr_nonnull(b);
	ck_assert(!sw_bsym_is_corrupt(b));
	struct sw_bsym_module m;
	ck_assert(sw_bsym_module(b, &m));
	ck_assert_int_eq((int)m.name_len, 12);
	ck_assert(memcmp(m.name, "test_app.pdb", 12) == 0);
	struct sw_sym_info i = look(b, 0x429e, &a);
	ck_assert_str_eq(i.function, "`anonymous namespace'::CrashFunction");
	ck_assert_uint_eq(i.line, 58);
	ck_assert_uint_eq(i.line_offset, 0x429b);
	ck_assert_str_eq(sw_basename(i.file), "test_app.cc");
	i = look(b, 0x41ff, &a);
	ck_assert_str_eq(i.function, "main");
	ck_assert_uint_eq(i.line, 65);
	ck_assert_uint_eq(0x41ff - i.line_offset, 4); /* "+ 0x5" from 0x404200 */
	uint32_t ps;
	ck_assert(sw_bsym_frame_param_size(b, 0x41ff, &ps));
	ck_assert_uint_eq(ps, 8);
	sw_bsym_free(b);
	sw_arena_free(&a);
}
END_TEST

START_TEST(test_corrupt_lines_are_counted_not_fatal)
{
	struct sw_err err = {0};
	struct sw_bsym *b = load_text("MODULE Linux x86_64 01 c\n"
	                              "FUNC 1000 zz 0 bad_size\n"
	                              "FUNC 2000\n"
	                              "FUNC 3000 10 0 good\n"
	                              "30x0 4 1 0\n"
	                              "3000 4 1\n"
	                              "3004 4 2 0\n"
	                              "PUBLIC 4000\n"
	                              "STACK CFI INIT 5000\n"
	                              "STACK WIN 4 1000 10\n"
	                              "GARBAGE\n"
	                              "FILE 0",
	                              &err);
	ck_assert_ptr_nonnull(b);
	ck_assert(sw_bsym_is_corrupt(b));
	ck_assert_int_eq(err.code, SW_ERR_CORRUPT);
	ck_assert_uint_eq(sw_bsym_error_count(b), 9);
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info i = look(b, 0x3005, &a);
	ck_assert_str_eq(i.function, "good");
	ck_assert_uint_eq(i.line, 2);
	ck_assert_ptr_null(look(b, 0x1000, &a).function);
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

/* A text of more than 2 MiB (parsed in two halves on two threads):
 * FUNCs with line and INLINE records, PUBLICs, CFI with deltas, STACK WIN,
 * bad records here and there, and (orphan) a line record among the CFI
 * records past the middle, which one pass judges by whether the last FUNC
 * is open: the second half cannot know, and the file is parsed again in
 * one pass. */
static char *big_text(bool orphan, size_t *len)
{
	size_t cap = 8u << 20, n = 0;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	n += (size_t)sprintf(t + n, "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 big.so\n"
	                            "FILE 0 a.c\nFILE 1 b.c\nINLINE_ORIGIN 0 inl\n");
	for (unsigned i = 0; i < 30000; i++) {
		unsigned a = 0x1000 + i * 0x40;
		n += (size_t)sprintf(t + n, "FUNC %x 40 0 f%u\n", a, i);
		if (i % 7 == 0)
			n += (size_t)sprintf(t + n, "INLINE 0 3 0 0 %x 8\n", a + 8);
		for (unsigned l = 0; l < 4; l++)
			n += (size_t)sprintf(t + n, "%x 10 %u %u\n", a + l * 0x10, 10 + l, l & 1);
		if (i % 1000 == 500)
			n += (size_t)sprintf(t + n, "FUNC zz bad\n");
		if (i % 5 == 0)
			n += (size_t)sprintf(t + n, "PUBLIC %x 0 p%u\n", a + 0x3c, i);
	}
	for (unsigned i = 0; i < 30000; i++) {
		unsigned a = 0x1000 + i * 0x40;
		n += (size_t)sprintf(t + n, "STACK CFI INIT %x 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n", a);
		if (orphan && i == 20000) /* past the middle: the second half's */
			n += (size_t)sprintf(t + n, "%x 4 99 0\n", a);
		n += (size_t)sprintf(t + n, "STACK CFI %x .cfa: $rsp 16 +\n", a + 1);
		if (i % 3000 == 0)
			n += (size_t)sprintf(t + n, "STACK WIN 4 %x 40 0 0 8 0 0 0 1 $eip 4 + ^ =\n", a);
		if (i % 4000 == 1)
			n += (size_t)sprintf(t + n, "STACK BOGUS\n");
	}
	ck_assert_uint_lt(n, cap);
	ck_assert_uint_gt(n, 2u << 20);
	*len = n;
	return t;
}

static void assert_same_index(const struct sw_bsym *x, const struct sw_bsym *y)
{
	ck_assert_uint_eq(x->nfuncs, y->nfuncs);
	ck_assert_uint_eq(x->npubs, y->npubs);
	ck_assert_uint_eq(x->ncfi, y->ncfi);
	ck_assert_uint_eq(x->nwin, y->nwin);
	ck_assert_uint_eq(x->nfiles, y->nfiles);
	ck_assert_uint_eq(x->norigins, y->norigins);
	ck_assert(memcmp(x->funcs, y->funcs, x->nfuncs * sizeof *x->funcs) == 0);
	ck_assert(memcmp(x->pubs, y->pubs, x->npubs * sizeof *x->pubs) == 0);
	ck_assert(memcmp(x->cfi, y->cfi, x->ncfi * sizeof *x->cfi) == 0);
	ck_assert(memcmp(x->win, y->win, x->nwin * sizeof *x->win) == 0);
	ck_assert(memcmp(x->files, y->files, x->nfiles * sizeof *x->files) == 0);
	ck_assert(memcmp(x->origins, y->origins, x->norigins * sizeof *x->origins) == 0);
	ck_assert_uint_eq(x->errors, y->errors);
	ck_assert_uint_eq(x->win_max_size, y->win_max_size);
	ck_assert_int_eq(x->has_module, y->has_module);
	ck_assert_ptr_eq(x->module.name, y->module.name);
}

START_TEST(test_two_thread_parse_gives_the_one_pass_index)
{
	for (int orphan = 0; orphan < 2; orphan++) {
		size_t n;
		char *t = big_text(orphan, &n);
		struct sw_err e1 = {0}, e2 = {0};
		struct sw_bsym *one = bsym_parse_with(t, n, "big.sym", &e1, false);
		struct sw_bsym *two = bsym_parse_with(t, n, "big.sym", &e2, true);
		ck_assert_ptr_nonnull(one);
		ck_assert_ptr_nonnull(two);
		/* The bad FUNCs and STACK lines; the orphan extends the last
		 * FUNC, which is still open. */
		ck_assert_uint_eq(one->errors, 30 + 8);
		ck_assert_uint_gt(one->nwin, 0);
		assert_same_index(one, two);
		ck_assert_str_eq(e1.msg, e2.msg);
		sw_bsym_free(one);
		sw_bsym_free(two);
		free(t);
	}
}
END_TEST

START_TEST(test_load_missing_file_fails)
{
	struct sw_err err = {0};
	ck_assert_ptr_null(sw_bsym_load_file("/nonexistent/x.sym", &err));
	ck_assert_int_eq(err.code, SW_ERR_IO);
}
END_TEST

/* ---- unwinding with a fake walk ------------------------------------------ */

#define STACK_LO 0x7ff000ull
#define STACK_SZ 0x1000ull

struct fake {
	struct sw_snapshot snap;
	uint8_t stack[STACK_SZ];
	struct sw_mem_region region;
	struct sw_module module;
	struct sw_walk walk;
	struct sw_frame callee;
	struct sw_bsym *bsym;
	struct sw_module_symbols ms;
	struct sw_symbol_source src;
};

static const struct sw_module_symbols *fake_for_module(void *self, uint32_t m,
                                                       enum sw_symbols_status *st)
{
	struct fake *f = self;
	*st = m == 0 ? SW_SYMS_LOADED : SW_SYMS_MISSING;
	return m == 0 ? &f->ms : NULL;
}

static void fake_init(struct fake *f, const struct sw_arch *arch, uint64_t mod_base,
                      struct sw_bsym *b)
{
	memset(f, 0, sizeof *f);
	sw_snapshot_init(&f->snap, "fake");
	f->snap.sys.cpu = arch->cpu;
	f->snap.sys.word_size = arch->word_size;
	f->region = (struct sw_mem_region){STACK_LO, STACK_SZ, f->stack};
	f->snap.mem = &f->region;
	f->snap.nmem = 1;
	f->module = (struct sw_module){.base = mod_base, .size = 0x100000, .code_file = "m"};
	f->snap.modules = &f->module;
	f->snap.nmodules = 1;
	sw_snapshot_finish(&f->snap);
	f->bsym = b;
	f->ms = (struct sw_module_symbols){&sw_bsym_ops, b};
	f->src = (struct sw_symbol_source){ .self = f, .for_module = fake_for_module };
	f->walk.snap = &f->snap;
	f->walk.arch = arch;
	f->walk.symbols = &f->src;
	f->walk.stack_lo = STACK_LO;
	f->walk.stack_hi = STACK_LO + STACK_SZ;
	f->callee.trust = SW_TRUST_CONTEXT;
}

static void fake_free(struct fake *f)
{
	sw_bsym_free(f->bsym);
	f->snap.mem = NULL;
	f->snap.modules = NULL;
	sw_snapshot_free(&f->snap);
}

static void put_word(struct fake *f, uint64_t addr, uint64_t v, unsigned size)
{
	ck_assert(addr >= STACK_LO && addr + size <= STACK_LO + STACK_SZ);
	memcpy(&f->stack[addr - STACK_LO], &v, size);
}

static enum sw_unwind_status unwind(struct fake *f, uint64_t off, struct sw_regs *caller,
                                    enum sw_trust *trust)
{
	struct sw_unwind_env env = {
		.arch = f->walk.arch, .walk = &f->walk, .callee = &f->callee,
		.module_base = f->module.base,
	};
	struct sw_caller c;
	memset(&c, 0, sizeof c);
	*trust = SW_TRUST_NONE;
	enum sw_unwind_status s = sw_bsym_ops.unwind(f->bsym, off, &env, &c, trust);
	*caller = c.regs;
	return s;
}

static int reg(const struct sw_arch *a, const char *name)
{
	return sw_arch_reg_index(a, name, strlen(name));
}

START_TEST(test_cfi_applies_init_and_deltas_up_to_offset)
{
	const struct sw_arch *A = &sw_arch_amd64;
	struct fake f;
	fake_init(&f, A, 0x400000, parse_text(synthetic));
	int rsp = reg(A, "rsp"), rip = reg(A, "rip"), rbx = reg(A, "rbx"), rbp = reg(A, "rbp"),
	    rax = reg(A, "rax");
	uint64_t sp = STACK_LO + 0x100;
	sw_reg_set(&f.callee.regs, rsp, sp);
	sw_reg_set(&f.callee.regs, rip, 0x401000);
	sw_reg_set(&f.callee.regs, rbx, 0x1111);
	sw_reg_set(&f.callee.regs, rbp, 0x2222);
	sw_reg_set(&f.callee.regs, rax, 0x3333);
	put_word(&f, sp, 0x400abc, 8);          /* [cfa-8] with cfa = sp+8 */
	put_word(&f, sp + 8, 0x400def, 8);      /* [cfa-8] with cfa = sp+16 */
	put_word(&f, sp, 0x5555, 8);            /* rbx saved at cfa-16 = sp */
	put_word(&f, sp + 16, 0x400f00, 8);     /* [cfa-8] with cfa = sp+24 */

	struct sw_regs c;
	enum sw_trust t;
	/* At the INIT address: only the INIT rules. */
	put_word(&f, sp, 0x400abc, 8);
	ck_assert_int_eq(unwind(&f, 0x1000, &c, &t), SW_UNWIND_OK);
	ck_assert_int_eq(t, SW_TRUST_CFI);
	ck_assert_uint_eq(c.v[rip], 0x400abc);
	ck_assert_uint_eq(c.v[rsp], sp + 8);
	ck_assert_uint_eq(c.v[rbx], 0x1111);  /* callee-saved, no rule */
	ck_assert_uint_eq(c.v[rbp], 0x2222);
	ck_assert(!sw_reg_valid(&c, rax));    /* volatile */

	/* After the first delta: cfa = sp+16, rbx from the stack. */
	put_word(&f, sp, 0x5555, 8);
	ck_assert_int_eq(unwind(&f, 0x1003, &c, &t), SW_UNWIND_OK);
	ck_assert_uint_eq(c.v[rip], 0x400def);
	ck_assert_uint_eq(c.v[rsp], sp + 16);
	ck_assert_uint_eq(c.v[rbx], 0x5555);

	/* After the second: cfa = sp+24, the rbx rule still applies. */
	ck_assert_int_eq(unwind(&f, 0x10f0, &c, &t), SW_UNWIND_OK);
	ck_assert_uint_eq(c.v[rip], 0x400f00);
	ck_assert_uint_eq(c.v[rsp], sp + 24);
	ck_assert_uint_eq(c.v[rbx], 0x400def); /* [cfa-16] = [sp+8] */

	/* No INIT covers the offset. */
	ck_assert_int_eq(unwind(&f, 0x1100, &c, &t), SW_UNWIND_NO_RULE);
	fake_free(&f);
}
END_TEST

START_TEST(test_cfi_undef_ra_ends_the_walk)
{
	struct fake f;
	fake_init(&f, &sw_arch_amd64, 0x400000, parse_text(synthetic));
	sw_reg_set(&f.callee.regs, reg(&sw_arch_amd64, "rsp"), STACK_LO + 0x100);
	struct sw_regs c;
	enum sw_trust t;
	ck_assert_int_eq(unwind(&f, 0x1210, &c, &t), SW_UNWIND_END);
	fake_free(&f);
}
END_TEST

START_TEST(test_cfi_fails_without_ra_or_on_unreadable_memory)
{
	struct fake f;
	fake_init(&f, &sw_arch_amd64, 0x400000, parse_text(synthetic));
	sw_reg_set(&f.callee.regs, reg(&sw_arch_amd64, "rsp"), STACK_LO + 0x100);
	struct sw_regs c;
	enum sw_trust t;
	ck_assert_int_eq(unwind(&f, 0x1300, &c, &t), SW_UNWIND_FAILED);
	ck_assert_int_eq(unwind(&f, 0x1400, &c, &t), SW_UNWIND_FAILED);
	/* The cfa rule needs rsp: unknown register. */
	f.callee.regs.valid = 0;
	ck_assert_int_eq(unwind(&f, 0x1000, &c, &t), SW_UNWIND_FAILED);
	fake_free(&f);
}
END_TEST

/* test.dmp frame 0 -> 1 (Breakpad: eip 0x404200, esp 0x12fe90, ebp 0x12ff70,
 * "call frame info") through STACK WIN 4 4290, FRAME_DATA with a program. */
/* An index decodes the CFI records whose rules have the common shapes
 * (NAME N +, NAME N + ^, NAME) and keeps the others as text: the caller
 * it gives is the parsed file's, at every offset, for rules that read
 * memory it cannot, name registers the CPU lacks or the CFA itself, wrap
 * around, recover the sp or pc, and for deltas outside the record. */
static const char cfi_shapes[] =
	"MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 t.so\n"
	"FILE 0 a.c\n"
	"INLINE_ORIGIN 0 inlined\n"
	"FUNC 1000 100 0 f\n"
	"1000 10 1 0\n"
	"FUNC 2000 40 8 g(int)\n"
	"2000 10 7 0\n"
	"2010 0 8 0\n"
	"2008 10 9 0\r\n"
	"\n"
	"0000000000000000002018 4 11 0\n"
	"201c  4 12 0\n"
	"2020 8 13 0 more\n"
	"FUNC 3000 20 0 h\n"
	"INLINE 0 5 0 0 3004 8\n"
	"3000 20 3 0\n"
	"STACK CFI INIT 1000 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
	"STACK CFI 1001 .cfa: $rsp 16 + $rbx: .cfa -16 + ^\n"
	"STACK CFI 1004 $rbp: $rbp $rbx: $rbx\n"
	"STACK CFI 1008 .cfa: $rbp 0x10 + $r12: .cfa -24 + ^ $foo: .cfa -8 + ^\n"
	"STACK CFI ff0 .cfa: $rax 8 +\n"
	"STACK CFI 100c $r13: .cfa -4096 + ^\n"
	"STACK CFI 1010 $rsp: .cfa 8 +\r\n"
	"STACK CFI 1014 .cfa:\t$rsp  24 +  $rbx: .cfa\n"
	"STACK CFI INIT 1100 20 .cfa: $rsp 8 + .ra: .undef\n"
	"STACK CFI INIT 1200 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^ $rbx: $rsp 8 - ^\n"
	"STACK CFI INIT 1300 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
	"STACK CFI 1304 .cfa: $rsp -8 + $rip: .cfa -8 + ^\n"
	"STACK CFI INIT 1400 20 .cfa: .cfa 8 + .ra: .cfa -8 + ^\n"
	"STACK CFI INIT 1500 20 .cfa: $rsp 18446744073709551615 + .ra: .cfa 9 + ^\n"
	"STACK CFI INIT 1600 20 .cfa: $xmm0 8 + .ra: .cfa -8 + ^\n"
	"STACK CFI INIT 1700 20 .ra: .cfa -8 + ^\n"
	"STACK CFI INIT 1800 20 .cfa: $rsp 8 + .ra: $rbx\n";

START_TEST(test_cfi_decoded_in_an_index_unwinds_as_text)
{
	const struct sw_arch *A = &sw_arch_amd64;
	char dir[] = "/tmp/sw_bsym_cfi_XXXXXX", src[64], cdir[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(src, sizeof src, "%s/t.so.sym", dir);
	snprintf(cdir, sizeof cdir, "%s/cache", dir);
	FILE *fp = fopen(src, "wb");
	ck_assert_ptr_nonnull(fp);
	fputs(cfi_shapes, fp);
	fclose(fp);
	struct sw_err err = {0}, warn = {0};
	struct sw_sym_cache *cache = sw_sym_cache_create(cdir, &err);
	ck_assert_ptr_nonnull(cache);
	const char *id = "0123456789ABCDEF0123456789ABCDEF0";
	sw_bsym_free(sw_bsym_load_cached(src, cache, "t.so", id, &err, &warn)); /* writes it */
	struct sw_bsym *indexed = sw_bsym_load_cached(src, cache, "t.so", id, &err, &warn);
	ck_assert_ptr_nonnull(indexed);
	ck_assert(sw_bsym_is_indexed(indexed));
	ck_assert_int_eq(warn.code, SW_OK);
	ck_assert_uint_eq(indexed->ncfi, 9);
	ck_assert(indexed->cfi[0].aux & BSYM_DECODED);
	ck_assert(!(indexed->cfi[1].aux & BSYM_DECODED)); /* .undef */
	ck_assert(!(indexed->cfi[2].aux & BSYM_DECODED)); /* an operator other than + */
	ck_assert_uint_eq(sw_bsym_error_count(indexed), 0);
	ck_assert(indexed->funcs[0].flags & BSYM_DECODED);
	ck_assert(indexed->funcs[1].flags & BSYM_DECODED);
	ck_assert(!(indexed->funcs[2].flags & BSYM_DECODED)); /* INLINE: text */

	struct fake text, idx;
	fake_init(&text, A, 0x400000, parse_text(cfi_shapes));
	fake_init(&idx, A, 0x400000, indexed);
	struct fake *both[2] = {&text, &idx};
	for (int k = 0; k < 2; k++) {
		struct fake *f = both[k];
		uint64_t sp = STACK_LO + 0x100;
		sw_reg_set(&f->callee.regs, reg(A, "rsp"), sp);
		sw_reg_set(&f->callee.regs, reg(A, "rip"), 0x401000);
		sw_reg_set(&f->callee.regs, reg(A, "rbp"), STACK_LO + 0x200);
		sw_reg_set(&f->callee.regs, reg(A, "rbx"), 0x1111);
		sw_reg_set(&f->callee.regs, reg(A, "rax"), STACK_LO + 0x300);
		for (uint64_t a = 0; a < STACK_SZ; a += 8)
			put_word(f, STACK_LO + a, 0x400000 + a * 3, 8);
	}
	for (uint64_t off = 0xff0; off < 0x1830; off++) {
		struct sw_regs c1, c2;
		enum sw_trust t1, t2;
		enum sw_unwind_status s1 = unwind(&text, off, &c1, &t1);
		enum sw_unwind_status s2 = unwind(&idx, off, &c2, &t2);
		ck_assert_msg(s1 == s2, "status at %#llx: %d vs %d", (unsigned long long)off, s1, s2);
		if (s1 != SW_UNWIND_OK)
			continue;
		ck_assert_int_eq(t1, t2);
		ck_assert_msg(c1.valid == c2.valid, "registers at %#llx", (unsigned long long)off);
		for (unsigned i = 0; i < SW_MAX_REGS; i++)
			if (sw_reg_valid(&c1, i))
				ck_assert_msg(c1.v[i] == c2.v[i], "register %u at %#llx", i,
				              (unsigned long long)off);
	}
	/* Line records of every shape, and a FUNC with INLINE records. */
	struct sw_arena a;
	sw_arena_init(&a);
	for (uint64_t off = 0xff0; off < 0x3030; off++) {
		struct sw_sym_info i1, i2;
		bool f1 = sw_bsym_ops.lookup(text.bsym, off, &a, &i1);
		bool f2 = sw_bsym_ops.lookup(idx.bsym, off, &a, &i2);
		ck_assert_int_eq(f1, f2);
		if (!f1)
			continue;
		ck_assert_str_eq(i1.function, i2.function);
		ck_assert(i1.file ? i2.file && strcmp(i1.file, i2.file) == 0 : !i2.file);
		ck_assert_msg(i1.line == i2.line, "line at %#llx: %u vs %u", (unsigned long long)off,
		              i1.line, i2.line);
		ck_assert_uint_eq(i1.line_offset, i2.line_offset);
		ck_assert_uint_eq(i1.function_offset, i2.function_offset);
		ck_assert_uint_eq(i1.function_size, i2.function_size);
		ck_assert_uint_eq(i1.param_size, i2.param_size);
		ck_assert_uint_eq(i1.ninlines, i2.ninlines);
		uint32_t p1 = 0, p2 = 0;
		ck_assert_int_eq(sw_bsym_frame_param_size(text.bsym, off, &p1),
		                 sw_bsym_frame_param_size(idx.bsym, off, &p2));
		ck_assert_uint_eq(p1, p2);
	}
	sw_arena_free(&a);
	ck_assert(sym_index_check_all(idx.bsym->idx));
	fake_free(&text);
	fake_free(&idx);
	sw_sym_cache_free(cache);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_stack_win_program_recovers_caller)
{
	char path[1024];
	struct sw_err err = {0};
	struct sw_bsym *b = sw_bsym_load_file(
		corpus_path(path, sizeof path,
		            "rust-minidump/symbols/test_app.pdb/5A9832E5287241C1838ED98914E9B7FF1/"
		            "test_app.sym"),
		&err);
	ck_assert_ptr_nonnull(b);
	const struct sw_arch *A = &sw_arch_x86;
	struct fake f;
	fake_init(&f, A, 0x400000, b);
	/* Move the fake stack to where test.dmp's is. */
	f.region.base = 0x12f000;
	f.walk.stack_lo = 0x12f000;
	f.walk.stack_hi = 0x130000;
	f.snap.sys.os = SW_OS_WINDOWS;
	int eip = reg(A, "eip"), esp = reg(A, "esp"), ebp = reg(A, "ebp"), ebx = reg(A, "ebx");
	sw_reg_set(&f.callee.regs, eip, 0x40429e);
	sw_reg_set(&f.callee.regs, esp, 0x12fe84);
	sw_reg_set(&f.callee.regs, ebp, 0x12fe88);
	sw_reg_set(&f.callee.regs, ebx, 0x7c80abc1);
	memcpy(&f.stack[0x12fe88 - 0x12f000], &(uint32_t){0x12ff70}, 4);
	memcpy(&f.stack[0x12fe8c - 0x12f000], &(uint32_t){0x404200}, 4);
	struct sw_regs c;
	enum sw_trust t;
	ck_assert_int_eq(unwind(&f, 0x429e, &c, &t), SW_UNWIND_OK);
	ck_assert_int_eq(t, SW_TRUST_CFI);
	ck_assert_uint_eq(c.v[eip], 0x404200);
	ck_assert_uint_eq(c.v[esp], 0x12fe90);
	ck_assert_uint_eq(c.v[ebp], 0x12ff70);
	ck_assert(!sw_reg_valid(&c, ebx));
	fake_free(&f);
}
END_TEST

/* FPO without a program and without a base pointer:
 *   eip = *(esp + locals + saved), esp = that + 4, ebp and ebx pass through. */
START_TEST(test_stack_win_fpo_without_program)
{
	const struct sw_arch *A = &sw_arch_x86;
	struct fake f;
	fake_init(&f, A, 0x400000,
	          parse_text("FUNC 1000 100 8 fpo_func\n"
	                     "FUNC 2000 100 0 caller\n"
	                     "STACK WIN 0 1000 100 0 0 8 4 10 0 0 0\n"));
	int eip = reg(A, "eip"), esp = reg(A, "esp"), ebp = reg(A, "ebp"), ebx = reg(A, "ebx");
	uint64_t sp = STACK_LO + 0x100;
	sw_reg_set(&f.callee.regs, eip, 0x401010);
	sw_reg_set(&f.callee.regs, esp, sp);
	sw_reg_set(&f.callee.regs, ebp, 0x1234);
	sw_reg_set(&f.callee.regs, ebx, 0x77);
	put_word(&f, sp + 0x14, 0x402010, 4);
	struct sw_regs c;
	enum sw_trust t;
	ck_assert_int_eq(unwind(&f, 0x1010, &c, &t), SW_UNWIND_OK);
	ck_assert_int_eq(t, SW_TRUST_CFI);
	ck_assert_uint_eq(c.v[eip], 0x402010);
	ck_assert_uint_eq(c.v[esp], sp + 0x18);
	ck_assert_uint_eq(c.v[ebp], 0x1234);
	ck_assert(sw_reg_valid(&c, ebx));
	ck_assert_uint_eq(c.v[ebx], 0x77);
	fake_free(&f);
}
END_TEST

/* The program yields an eip in no module: scan above .raSearchStart. */
START_TEST(test_stack_win_scans_when_eip_is_outside_modules)
{
	const struct sw_arch *A = &sw_arch_x86;
	struct fake f;
	fake_init(&f, A, 0x400000,
	          parse_text("FUNC 1000 100 0 fpo_func\n"
	                     "FUNC 2000 100 0 caller\n"
	                     "STACK WIN 0 1000 100 0 0 0 0 0 0 0 0\n"));
	f.callee.trust = SW_TRUST_CFI; /* not the context frame */
	int eip = reg(A, "eip"), esp = reg(A, "esp"), ebp = reg(A, "ebp");
	uint64_t sp = STACK_LO + 0x100;
	sw_reg_set(&f.callee.regs, eip, 0x401010);
	sw_reg_set(&f.callee.regs, esp, sp);
	sw_reg_set(&f.callee.regs, ebp, 0x1234);
	put_word(&f, sp, 0x99999999, 4);        /* not code */
	put_word(&f, sp + 4, 0x123, 4);         /* not code */
	put_word(&f, sp + 0x20, 0x402010, 4);   /* a return address */
	struct sw_regs c;
	enum sw_trust t;
	ck_assert_int_eq(unwind(&f, 0x1010, &c, &t), SW_UNWIND_OK);
	ck_assert_int_eq(t, SW_TRUST_CFI_SCAN);
	ck_assert_uint_eq(c.v[eip], 0x402010);
	ck_assert_uint_eq(c.v[esp], sp + 0x24);
	ck_assert_uint_eq(c.v[ebp], 0x1234);
	fake_free(&f);
}
END_TEST

START_TEST(test_stack_win_is_only_used_for_x86)
{
	struct fake f;
	fake_init(&f, &sw_arch_amd64, 0x400000,
	          parse_text("STACK WIN 0 1000 100 0 0 0 0 0 0 0 0\n"));
	struct sw_regs c;
	enum sw_trust t;
	ck_assert_int_eq(unwind(&f, 0x1010, &c, &t), SW_UNWIND_NO_RULE);
	fake_free(&f);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("breakpad_sym");
	TCase *tc = tcase_create("breakpad_sym");
	tcase_add_test(tc, test_lookup_finds_func_and_line_records);
	tcase_add_test(tc, test_lookup_bounds_public_by_next_func);
	tcase_add_test(tc, test_lookup_in_public_only_module);
	tcase_add_test(tc, test_public_records_of_data_cover_no_function);
	tcase_add_test(tc, test_lookup_sorts_unsorted_records_and_first_overlap_wins);
	tcase_add_test(tc, test_inline_new_layout_gives_exact_chain);
	tcase_add_test(tc, test_inline_old_layout_uses_line_record_file);
	tcase_add_test(tc, test_inline_real_linux_inline_variants);
	tcase_add_test(tc, test_lookup_real_test_app_matches_breakpad);
	tcase_add_test(tc, test_corrupt_lines_are_counted_not_fatal);
	tcase_add_test(tc, test_two_thread_parse_gives_the_one_pass_index);
	tcase_add_test(tc, test_load_missing_file_fails);
	tcase_add_test(tc, test_cfi_applies_init_and_deltas_up_to_offset);
	tcase_add_test(tc, test_cfi_undef_ra_ends_the_walk);
	tcase_add_test(tc, test_cfi_fails_without_ra_or_on_unreadable_memory);
	tcase_add_test(tc, test_cfi_decoded_in_an_index_unwinds_as_text);
	tcase_add_test(tc, test_stack_win_program_recovers_caller);
	tcase_add_test(tc, test_stack_win_fpo_without_program);
	tcase_add_test(tc, test_stack_win_scans_when_eip_is_outside_modules);
	tcase_add_test(tc, test_stack_win_is_only_used_for_x86);
	suite_add_tcase(s, tc);
	return s;
}
