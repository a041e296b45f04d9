/* Crash signatures (lib/signature.h, docs/signature.md): how a function
 * name is normalized, how the rules classify it, what a rules text may
 * say, and which frames a signature is made of. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/signature.h"

static const char *norm(const char *in)
{
	static char buf[256];
	sw_sig_normalize(in, buf, sizeof buf);
	return buf;
}

START_TEST(test_normalize_drops_arguments_and_qualifiers)
{
	ck_assert_str_eq(norm("foo::bar(int, char*) const"), "foo::bar");
	ck_assert_str_eq(norm("Foo::Foo(std::string&&) &&"), "Foo::Foo");
	ck_assert_str_eq(norm("main"), "main");
	ck_assert_str_eq(norm("  spaced   out  "), "spaced out");
}
END_TEST

START_TEST(test_normalize_collapses_template_arguments)
{
	ck_assert_str_eq(norm("std::vector<int, std::allocator<int> >::at(unsigned long)"),
	                 "std::vector<T>::at");
	ck_assert_str_eq(norm("std::_Func_impl<<lambda_3f2a9c>,void>::_Do_call()"),
	                 "std::_Func_impl<T>::_Do_call");
	ck_assert_str_eq(norm("Cb<decltype(a->b)>::run()"), "Cb<T>::run");
}
END_TEST

START_TEST(test_normalize_keeps_operators_whole)
{
	ck_assert_str_eq(norm("std::ostream::operator<<(int)"), "std::ostream::operator<<");
	ck_assert_str_eq(norm("Cmp::operator()(int, int) const"), "Cmp::operator()");
	ck_assert_str_eq(norm("operator new(unsigned long)"), "operator new");
	ck_assert_str_eq(norm("operator delete[](void*)"), "operator delete[]");
	ck_assert_str_eq(norm("Big::operator<=(Big const&)"), "Big::operator<=");
	ck_assert_str_eq(norm("Handle::operator bool() const"), "Handle::operator bool");
}
END_TEST

START_TEST(test_normalize_is_stable_across_builds)
{
	/* Compiler clone suffixes and build hashes. */
	ck_assert_str_eq(norm("parse_header.cold"), "parse_header");
	ck_assert_str_eq(norm("parse_header.part.0"), "parse_header");
	ck_assert_str_eq(norm("parse_header.isra.12.constprop.3"), "parse_header");
	ck_assert_str_eq(norm("parse_header.llvm.1234567890123"), "parse_header");
	ck_assert_str_eq(norm("foo(int) [clone .cold]"), "foo");
	ck_assert_str_eq(norm("std::to_string[abi:cxx11](int)"), "std::to_string");
	ck_assert_str_eq(norm("app::main::h0123456789abcdef"), "app::main");
	ck_assert_str_eq(norm("?A0x1b2c3d4e::helper(void)"), "`anonymous namespace'::helper");
	ck_assert_str_eq(norm("Widget::paint::<lambda_1f2e3d4c5b6a>::operator()() const"),
	                 "Widget::paint::<lambda>::operator()");
}
END_TEST

START_TEST(test_normalize_keeps_names_that_look_like_arguments)
{
	ck_assert_str_eq(norm("outer(int)::Local::run()"), "outer::Local::run");
	ck_assert_str_eq(norm("f()::{lambda(int)#1}::operator()(int) const"),
	                 "f::{lambda(int)#1}::operator()");
	/* Rust's qualified paths keep their types. */
	ck_assert_str_eq(norm("<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop"),
	                 "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
	ck_assert_str_eq(norm("app::Store::<impl app::Db>::open"), "app::Store::<impl app::Db>::open");
	/* ... but a turbofish is template arguments. */
	ck_assert_str_eq(norm("core::ptr::write_volatile::<u8>"), "core::ptr::write_volatile::<T>");
}
END_TEST

/* MSVC's and the Itanium demanglers' spellings, and MSVC's per-file hash,
 * make one name: the same code crashing on Windows and on Linux groups. */
START_TEST(test_normalize_writes_anonymous_namespaces_alike)
{
	const char *msvc = "`anonymous namespace'::Foo::run";
	ck_assert_str_eq(norm("(anonymous namespace)::Foo::run(int)"), msvc);
	ck_assert_str_eq(norm("`anonymous namespace'::Foo::run(int)"), msvc);
	ck_assert_str_eq(norm("?A0x1b2c3d4e::Foo::run(int)"), msvc);
	ck_assert_str_eq(norm("net::(anonymous namespace)::Conn<int>::close() const"),
	                 "net::`anonymous namespace'::Conn<T>::close");
	ck_assert_str_eq(norm("(anonymous namespace)::crash()"), "`anonymous namespace'::crash");
}
END_TEST

START_TEST(test_normalize_cuts_at_the_buffer)
{
	char small[6];
	ck_assert_uint_eq(sw_sig_normalize("abcdefghij", small, sizeof small), 5);
	ck_assert_str_eq(small, "abcde");
}
END_TEST

START_TEST(test_defaults_classify_handlers_and_allocators)
{
	struct sw_sig_rules r;
	sw_sig_rules_init(&r);
	ck_assert(sw_sig_rules_add_defaults(&r));
	ck_assert_int_eq(sw_sig_classify(&r, "abort"), SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, "__pthread_kill_implementation"), SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, "std::panicking::begin_panic_handler"),
	                 SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, "google_breakpad::ExceptionHandler::SignalHandler"),
	                 SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, "_invalid_parameter_noinfo"), SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, "std::__throw_out_of_range_fmt"), SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, "malloc"), SW_SIG_PREFIX);
	ck_assert_int_eq(sw_sig_classify(&r, "operator delete"), SW_SIG_PREFIX);
	ck_assert_int_eq(sw_sig_classify(&r, "__memmove_avx_unaligned_erms"), SW_SIG_PREFIX);
	ck_assert_int_eq(sw_sig_classify(&r, "RtlFreeHeap"), SW_SIG_PREFIX);
	ck_assert_int_eq(sw_sig_classify(&r, "core::result::unwrap_failed"), SW_SIG_PREFIX);
	ck_assert_int_eq(sw_sig_classify(&r, "parse_header"), SW_SIG_KEEP);
	ck_assert_int_eq(sw_sig_classify(&r, "aborted_transfer"), SW_SIG_KEEP);
	sw_sig_rules_free(&r);
}
END_TEST

/* What a crashing C++ program's runtime calls between the throw (or the
 * failed noexcept) and the signal: libstdc++, libc++abi, libgcc's
 * unwinder, glibc's raise and abort. */
START_TEST(test_defaults_skip_cxx_termination_frames)
{
	static const char *const frames[] = {
		"std::terminate()", "std::__terminate(void (*)())", "__cxa_throw", "__cxa_rethrow",
		"__cxa_call_terminate", "__cxa_call_unexpected", "__cxa_bad_cast",
		"__gnu_cxx::__verbose_terminate_handler()", "__cxxabiv1::__terminate(void (*)())",
		"demangling_terminate_handler()", "abort_message", "__gxx_personality_v0",
		"_Unwind_RaiseException", "_Unwind_Resume",
		"std::rethrow_exception(std::__exception_ptr::exception_ptr)",
		"std::__throw_bad_alloc()", "std::__1::__throw_out_of_range(char const*)",
		"raise", "abort", "__GI_raise", "__GI_abort", "__pthread_kill_implementation",
		"__pthread_kill_internal", "pthread_kill", "gsignal",
	};
	struct sw_sig_rules r;
	sw_sig_rules_init(&r);
	ck_assert(sw_sig_rules_add_defaults(&r));
	for (size_t i = 0; i < sizeof frames / sizeof *frames; i++)
		ck_assert_msg(sw_sig_classify(&r, norm(frames[i])) == SW_SIG_IRRELEVANT, "%s", frames[i]);
	ck_assert_int_eq(sw_sig_classify(&r, "terminate_session"), SW_SIG_KEEP);
	ck_assert_int_eq(sw_sig_classify(&r, "_Unwind_GetTextRelBase"), SW_SIG_KEEP);
	sw_sig_rules_free(&r);
}
END_TEST

/* A rule may spell an anonymous namespace either way: it matches names as
 * sw_sig_normalize writes them. */
START_TEST(test_rules_name_an_anonymous_namespace_either_way)
{
	struct sw_sig_rules r;
	struct sw_err err = { 0 };
	sw_sig_rules_init(&r);
	ck_assert(sw_sig_rules_parse(&r, "irrelevant (anonymous namespace)::hook\n"
	                             "prefix *::(anonymous namespace)::check_*\n", "r", &err));
	ck_assert_int_eq(sw_sig_classify(&r, norm("(anonymous namespace)::hook()")), SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, norm("?A0x01234567::hook()")), SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, norm("db::`anonymous namespace'::check_row(int)")),
	                 SW_SIG_PREFIX);
	sw_sig_rules_free(&r);
}
END_TEST

START_TEST(test_later_rules_override_earlier_ones)
{
	struct sw_sig_rules r;
	struct sw_err err = { 0 };
	sw_sig_rules_init(&r);
	ck_assert(sw_sig_rules_add_defaults(&r));
	ck_assert(sw_sig_rules_parse(&r, "# ours\n\nkeep abort\n  prefix   mylib::check_*  \n"
	                             "irrelevant my_crash_hook\n", "rules.txt", &err));
	ck_assert_int_eq(sw_sig_classify(&r, "abort"), SW_SIG_KEEP);
	ck_assert_int_eq(sw_sig_classify(&r, "mylib::check_index"), SW_SIG_PREFIX);
	ck_assert_int_eq(sw_sig_classify(&r, "my_crash_hook"), SW_SIG_IRRELEVANT);
	ck_assert_int_eq(sw_sig_classify(&r, "raise"), SW_SIG_IRRELEVANT);
	sw_sig_rules_free(&r);
}
END_TEST

START_TEST(test_reset_drops_the_builtin_rules)
{
	struct sw_sig_rules r;
	struct sw_err err = { 0 };
	sw_sig_rules_init(&r);
	ck_assert(sw_sig_rules_add_defaults(&r));
	ck_assert(sw_sig_rules_parse(&r, "reset\nirrelevant raise\n", "rules.txt", &err));
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(sw_sig_classify(&r, "abort"), SW_SIG_KEEP);
	ck_assert_int_eq(sw_sig_classify(&r, "raise"), SW_SIG_IRRELEVANT);
	sw_sig_rules_free(&r);
}
END_TEST

START_TEST(test_a_bad_line_adds_nothing_and_names_its_line)
{
	struct sw_sig_rules r;
	struct sw_err err = { 0 };
	sw_sig_rules_init(&r);
	ck_assert(!sw_sig_rules_parse(&r, "irrelevant a\nskip b\n", "rules.txt", &err));
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(err.code, SW_ERR_USAGE);
	ck_assert_str_eq(err.msg, "rules.txt:2: 'skip' is not a rule (irrelevant, prefix, keep or reset)");
	sw_err_clear(&err);
	ck_assert(!sw_sig_rules_parse(&r, "prefix\n", "x", &err));
	ck_assert_str_eq(err.msg, "x:1: 'prefix' without a pattern");
	sw_err_clear(&err);
	ck_assert(!sw_sig_rules_parse(&r, "reset now\n", "x", &err));
	ck_assert_str_eq(err.msg, "x:1: 'reset' takes no pattern");
	sw_sig_rules_free(&r);
}
END_TEST

START_TEST(test_load_reads_a_file)
{
	char path[] = "/tmp/test_signature_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char text[] = "irrelevant my_hook\n";
	ck_assert_int_eq(write(fd, text, sizeof text - 1), (int)(sizeof text - 1));
	close(fd);
	struct sw_sig_rules r;
	struct sw_err err = { 0 };
	sw_sig_rules_init(&r);
	ck_assert(sw_sig_rules_load(&r, path, &err));
	ck_assert_int_eq(sw_sig_classify(&r, "my_hook"), SW_SIG_IRRELEVANT);
	unlink(path);
	ck_assert(!sw_sig_rules_load(&r, path, &err));
	ck_assert_int_eq(err.code, SW_ERR_IO);
	sw_sig_rules_free(&r);
}
END_TEST

/* docs/signature.md lists the built-in rules in its one ``` block: the
 * same rules, in the same order. */
START_TEST(test_docs_list_the_builtin_rules)
{
	const char *testdata = getenv("SW_TESTDATA");
	if (!testdata)
		return; /* run outside meson: nothing to find the docs by */
	char path[4096];
	snprintf(path, sizeof path, "%s/../docs/signature.md", testdata);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	static char doc[1 << 16];
	size_t n = fread(doc, 1, sizeof doc - 1, f);
	fclose(f);
	doc[n] = '\0';
	char *start = strstr(doc, "\n```\n");
	ck_assert_ptr_nonnull(start);
	start += 5;
	char *end = strstr(start, "\n```");
	ck_assert_ptr_nonnull(end);
	end[1] = '\0';
	struct sw_sig_rules documented, builtin;
	struct sw_err err = { 0 };
	sw_sig_rules_init(&documented);
	sw_sig_rules_init(&builtin);
	ck_assert_msg(sw_sig_rules_parse(&documented, start, "docs/signature.md", &err), "%s", err.msg);
	ck_assert(sw_sig_rules_add_defaults(&builtin));
	ck_assert_uint_eq(documented.n, builtin.n);
	for (uint32_t i = 0; i < builtin.n; i++) {
		ck_assert_int_eq(documented.v[i].action, builtin.v[i].action);
		ck_assert_str_eq(documented.v[i].pattern, builtin.v[i].pattern);
	}
	sw_sig_rules_free(&documented);
	sw_sig_rules_free(&builtin);
}
END_TEST

/* ---- signatures of hand-built stacks ------------------------------------ */

struct stack_fixture {
	struct sw_snapshot s;
	struct sw_module modules[2];
	struct sw_stack_frame frames[16];
	struct sw_stack st;
	struct sw_sig_rules rules;
};

static struct stack_fixture sf;

/* A stack of the given function names, innermost first; NULL is a frame
 * without symbols in libfoo.so, "@" a frame outside every module at 0,
 * "@HEX" one at 0xHEX. */
static void make_stack(const char *const *names, uint32_t n)
{
	memset(&sf.s, 0, sizeof sf.s);
	memset(sf.frames, 0, sizeof sf.frames);
	sf.modules[0] = (struct sw_module){ .base = 0x1000, .size = 0x1000, .code_file = "/usr/lib/libfoo.so" };
	sf.s.modules = sf.modules;
	sf.s.nmodules = 1;
	for (uint32_t i = 0; i < n; i++) {
		bool outside = names[i] && names[i][0] == '@';
		sf.frames[i].module = outside ? -1 : 0;
		sf.frames[i].pc = outside ? strtoull(names[i] + 1, NULL, 16) : 0x1100 + i;
		sf.frames[i].function = outside ? NULL : names[i];
		sf.frames[i].trust = i ? SW_TRUST_CFI : SW_TRUST_CONTEXT;
	}
	sf.st = (struct sw_stack){ .frames = sf.frames, .nframes = n };
}

static void rules_setup(void)
{
	sw_sig_rules_init(&sf.rules);
	ck_assert(sw_sig_rules_add_defaults(&sf.rules));
}

static void rules_teardown(void)
{
	sw_sig_rules_free(&sf.rules);
}

static const char *signature_of(const char *const *names, uint32_t n, struct sw_signature *sig)
{
	make_stack(names, n);
	sw_signature_make(&sf.rules, &sf.s, &sf.st, sig);
	return sig->text;
}

START_TEST(test_signature_skips_abort_machinery)
{
	const char *names[] = { "__pthread_kill_implementation", "raise", "abort",
	                        "__assert_fail", "Parser::expect(int)", "main" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(names, 6, &sig), "Parser::expect");
	ck_assert_uint_eq(sig.nframes, 1);
	ck_assert_uint_eq(sig.frames[0], 4);
}
END_TEST

START_TEST(test_signature_goes_past_prefix_frames)
{
	const char *names[] = { "__memmove_avx_unaligned_erms", "malloc",
	                        "Buffer::grow(unsigned long)", "Buffer::append", "main" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(names, 5, &sig),
	                 "__memmove_avx_unaligned_erms | malloc | Buffer::grow");
	ck_assert_uint_eq(sig.nframes, 3);
	ck_assert_uint_eq(sig.frames[2], 2);
}
END_TEST

/* Runs of one name (a recursion) are classified once: each run keeps its
 * own rule's verdict, whatever the run before it was. */
START_TEST(test_signature_classifies_runs_of_one_name_alike)
{
	const char *names[] = { "abort", "abort", "malloc", "malloc", "raise", "raise",
	                        "Parser::expect(int)", "Parser::expect(int)", "main" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(names, 9, &sig), "malloc | malloc | Parser::expect");
	ck_assert_uint_eq(sig.nframes, 3);
	ck_assert_uint_eq(sig.frames[0], 2);
	ck_assert_uint_eq(sig.frames[1], 3);
	ck_assert_uint_eq(sig.frames[2], 6);
}
END_TEST

START_TEST(test_signature_names_frames_without_symbols_by_module)
{
	const char *names[] = { NULL, "main" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(names, 2, &sig), "libfoo.so");
}
END_TEST

/* A frame outside every module names no code: a call through NULL (the
 * pc is 0, or a stale pc left by a jump there) is every NULL call of the
 * program. Its caller made the call, so the signature goes on to it, as
 * Socorro's siggen does with @0x0 (a prefix signature there). */
START_TEST(test_signature_goes_on_past_a_frame_outside_every_module)
{
	const char *null_call[] = { "@", "dispatch(int)", "main" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(null_call, 3, &sig), "@0x0 | dispatch");
	ck_assert_uint_eq(sig.nframes, 2);
	ck_assert_uint_eq(sig.frames[0], 0);
	ck_assert_uint_eq(sig.frames[1], 1); /* --require-symbols checks its module */
	const char *vtable_slot[] = { "@18", "Widget::paint()", "main" };
	ck_assert_str_eq(signature_of(vtable_slot, 3, &sig), "@0x18 | Widget::paint");
	/* Past 64 KiB the address changes with each run (ASLR): not in it. */
	const char *wild_jump[] = { "@7f3a2b1c0040", "dispatch(int)", "main" };
	ck_assert_str_eq(signature_of(wild_jump, 3, &sig), "??? | dispatch");
	/* The next frames follow the rules as ever. */
	const char *through_prefix[] = { "@", "abort", "malloc", "Buffer::grow()", "main" };
	ck_assert_str_eq(signature_of(through_prefix, 5, &sig), "@0x0 | malloc | Buffer::grow");
	const char *unsymbolized_caller[] = { "@", NULL, "main" };
	ck_assert_str_eq(signature_of(unsymbolized_caller, 3, &sig), "@0x0 | libfoo.so");
	const char *alone[] = { "@" };
	ck_assert_str_eq(signature_of(alone, 1, &sig), "@0x0");
}
END_TEST

START_TEST(test_signature_outside_every_module_follows_a_users_rules)
{
	struct sw_err err = { 0 };
	ck_assert(sw_sig_rules_parse(&sf.rules, "keep @0x*\n", "r", &err));
	const char *null_call[] = { "@", "dispatch(int)", "main" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(null_call, 3, &sig), "@0x0");
}
END_TEST

/* The signature of a stack whose frame 0 has no symbols, in a module
 * whose file is code_file, on a snapshot of os. */
static const char *signature_in_module(const char *code_file, enum sw_os os,
                                       struct sw_signature *sig)
{
	const char *names[] = { NULL, "main" };
	make_stack(names, 2);
	sf.modules[0].code_file = code_file;
	sf.s.sys.os = os;
	sw_signature_make(&sf.rules, &sf.s, &sf.st, sig);
	return sig->text;
}

/* A library's file name carries its minor versions, which change with
 * every update of the system; its soname does not. */
START_TEST(test_signature_names_a_library_by_its_soname)
{
	struct sw_signature sig;
	static const char *const cases[][2] = {
		{ "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "libstdc++.so.6" },
		{ "/opt/app/lib/libfoo.so.1.2", "libfoo.so.1" },
		{ "/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6" },
		{ "/lib64/ld-linux-x86-64.so.2", "ld-linux-x86-64.so.2" },
		{ "/system/lib64/libhidlbase.so", "libhidlbase.so" },
		{ "/lib/libc-2.19.so", "libc-2.19.so" },
		{ "/opt/libodd.so.1a.2", "libodd.so.1a.2" },     /* not a version */
		{ "/opt/libgtk.so.x.so.3.24.1", "libgtk.so.x.so.3" },
		{ "/usr/lib/libSystem.B.dylib", "libSystem.B.dylib" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ck_assert_str_eq(signature_in_module(cases[i][0], SW_OS_LINUX, &sig), cases[i][1]);
	ck_assert_str_eq(signature_in_module("C:\\Windows\\System32\\msvcp140.dll", SW_OS_WINDOWS, &sig),
	                 "msvcp140.dll");
	/* A function name is never shortened, whatever it looks like. */
	const char *names[] = { "libfoo.so.1.2", "main" };
	ck_assert_str_eq(signature_of(names, 2, &sig), "libfoo.so.1.2");
	/* Rules match the shortened name. */
	struct sw_err err = { 0 };
	ck_assert(sw_sig_rules_parse(&sf.rules, "irrelevant libstdc++.so.6\n", "r", &err));
	ck_assert_str_eq(signature_in_module("/usr/lib/libstdc++.so.6.0.30", SW_OS_LINUX, &sig), "main");
}
END_TEST

/* Windows does not tell KERNELBASE.dll from kernelbase.dll: on a Windows
 * snapshot module names make one signature, and rules match them without
 * case; elsewhere, and for function names, case counts. */
START_TEST(test_signature_compares_windows_module_names_without_case)
{
	const char *upper = "C:\\Windows\\System32\\KERNELBASE.dll";
	const char *lower = "C:\\WINDOWS\\system32\\kernelbase.dll";
	const char *wine = "/opt/wine/KERNELBASE.dll";
	struct sw_signature sig;
	ck_assert_str_eq(signature_in_module(upper, SW_OS_WINDOWS, &sig), "kernelbase.dll");
	ck_assert_str_eq(signature_in_module(lower, SW_OS_WINDOWS, &sig), "kernelbase.dll");
	ck_assert_str_eq(signature_in_module(wine, SW_OS_LINUX, &sig), "KERNELBASE.dll");
	struct sw_err err = { 0 };
	ck_assert(sw_sig_rules_parse(&sf.rules, "irrelevant KernelBase.DLL\nirrelevant Main\n", "r",
	                             &err));
	ck_assert_str_eq(signature_in_module(upper, SW_OS_WINDOWS, &sig), "main");
	ck_assert_str_eq(signature_in_module(wine, SW_OS_LINUX, &sig), "KERNELBASE.dll");
}
END_TEST

START_TEST(test_signature_stops_at_max_frames)
{
	const char *names[14];
	for (int i = 0; i < 14; i++)
		names[i] = "malloc";
	struct sw_signature sig;
	signature_of(names, 14, &sig);
	ck_assert_uint_eq(sig.nframes, SW_SIG_MAX_FRAMES);
}
END_TEST

START_TEST(test_signature_of_only_irrelevant_frames_is_the_first)
{
	const char *names[] = { "raise", "abort" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(names, 2, &sig), "raise");
	ck_assert_str_eq(signature_of(names, 0, &sig), "EMPTY: no frames");
	sw_signature_make(&sf.rules, &sf.s, NULL, &sig);
	ck_assert_str_eq(sig.text, "EMPTY: no frames");
}
END_TEST

START_TEST(test_signature_follows_a_users_rules)
{
	struct sw_err err = { 0 };
	ck_assert(sw_sig_rules_parse(&sf.rules, "keep abort\nprefix Parser::*\n", "r", &err));
	const char *names[] = { "raise", "abort", "Parser::expect(int)", "main" };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(names, 4, &sig), "abort");
	const char *names2[] = { "Parser::expect(int)", "Parser::run()", "main" };
	ck_assert_str_eq(signature_of(names2, 3, &sig), "Parser::expect | Parser::run | main");
}
END_TEST

START_TEST(test_signature_ends_before_a_frame_that_does_not_fit)
{
	static char long_name[SW_SIG_MAX_TEXT + 100];
	memset(long_name, 'x', sizeof long_name - 1);
	const char *names[] = { "malloc", long_name };
	struct sw_signature sig;
	ck_assert_str_eq(signature_of(names, 2, &sig), "malloc");
	const char *alone[] = { long_name };
	ck_assert_uint_eq(strlen(signature_of(alone, 1, &sig)), SW_SIG_MAX_TEXT - 1);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("signature");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, test_normalize_drops_arguments_and_qualifiers);
	tcase_add_test(tc, test_normalize_collapses_template_arguments);
	tcase_add_test(tc, test_normalize_keeps_operators_whole);
	tcase_add_test(tc, test_normalize_is_stable_across_builds);
	tcase_add_test(tc, test_normalize_keeps_names_that_look_like_arguments);
	tcase_add_test(tc, test_normalize_writes_anonymous_namespaces_alike);
	tcase_add_test(tc, test_normalize_cuts_at_the_buffer);
	tcase_add_test(tc, test_defaults_classify_handlers_and_allocators);
	tcase_add_test(tc, test_defaults_skip_cxx_termination_frames);
	tcase_add_test(tc, test_rules_name_an_anonymous_namespace_either_way);
	tcase_add_test(tc, test_later_rules_override_earlier_ones);
	tcase_add_test(tc, test_reset_drops_the_builtin_rules);
	tcase_add_test(tc, test_a_bad_line_adds_nothing_and_names_its_line);
	tcase_add_test(tc, test_load_reads_a_file);
	tcase_add_test(tc, test_docs_list_the_builtin_rules);
	suite_add_tcase(s, tc);
	TCase *st = tcase_create("signature");
	tcase_add_checked_fixture(st, rules_setup, rules_teardown);
	tcase_add_test(st, test_signature_skips_abort_machinery);
	tcase_add_test(st, test_signature_goes_past_prefix_frames);
	tcase_add_test(st, test_signature_names_frames_without_symbols_by_module);
	tcase_add_test(st, test_signature_goes_on_past_a_frame_outside_every_module);
	tcase_add_test(st, test_signature_outside_every_module_follows_a_users_rules);
	tcase_add_test(st, test_signature_names_a_library_by_its_soname);
	tcase_add_test(st, test_signature_compares_windows_module_names_without_case);
	tcase_add_test(st, test_signature_stops_at_max_frames);
	tcase_add_test(st, test_signature_classifies_runs_of_one_name_alike);
	tcase_add_test(st, test_signature_of_only_irrelevant_frames_is_the_first);
	tcase_add_test(st, test_signature_follows_a_users_rules);
	tcase_add_test(st, test_signature_ends_before_a_frame_that_does_not_fit);
	suite_add_tcase(s, st);
	return s;
}
