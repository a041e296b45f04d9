/* Crash signatures (lib/signature.h, docs/signature.md). The rules are data
 * in the format --signature-skip reads, parsed by the same code, so the
 * built-in list and a user's file cannot disagree on what a line means. */
#include "signature.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The built-in rules. Names are matched after sw_sig_normalize, so no
 * argument lists; `*` covers a family (glibc's per-CPU memcpy variants).
 * Keep docs/signature.md's copy of this list in step. */
static const char default_rules[] =
	"# Signal delivery, exceptions and the kernel's entry stubs\n"
	"irrelevant __kernel_vsyscall\n"
	"irrelevant __kernel_rt_sigreturn\n"
	"irrelevant __restore_rt\n"
	"irrelevant _sigtramp\n"
	"irrelevant KiUserExceptionDispatcher\n"
	"irrelevant KiFastSystemCallRet\n"
	"irrelevant RtlRaiseException\n"
	"irrelevant RaiseException\n"
	"irrelevant RaiseFailFastException\n"
	"irrelevant NtTerminateProcess\n"
	"irrelevant ZwTerminateProcess\n"
	"# raise, kill, abort: glibc, musl, bionic, macOS\n"
	"irrelevant raise\n"
	"irrelevant __GI_raise\n"
	"irrelevant gsignal\n"
	"irrelevant abort\n"
	"irrelevant __abort\n"
	"irrelevant __GI_abort\n"
	"irrelevant pthread_kill\n"
	"irrelevant __pthread_kill\n"
	"irrelevant __GI___pthread_kill\n"
	"irrelevant __pthread_kill_implementation\n"
	"irrelevant __pthread_kill_internal\n"
	"irrelevant tgkill\n"
	"irrelevant __tgkill\n"
	"irrelevant kill\n"
	"irrelevant __kill\n"
	"# Fatal-error reporting and assertions: glibc, bionic, macOS, MSVC\n"
	"irrelevant __libc_message\n"
	"irrelevant __libc_message_impl\n"
	"irrelevant __libc_fatal\n"
	"irrelevant __fortify_fail\n"
	"irrelevant __fortify_fail_abort\n"
	"irrelevant __fortify_fatal\n"
	"irrelevant __chk_fail\n"
	"irrelevant __stack_chk_fail\n"
	"irrelevant malloc_printerr\n"
	"irrelevant async_safe_fatal*\n"
	"irrelevant __assert_fail\n"
	"irrelevant __assert_fail_base\n"
	"irrelevant __assert_perror_fail\n"
	"irrelevant __assert\n"
	"irrelevant __assert2\n"
	"irrelevant __assert_rtn\n"
	"irrelevant _assert\n"
	"irrelevant _wassert\n"
	"# Android: LOG(FATAL), CHECK and __android_log_assert\n"
	"irrelevant android::base::DefaultAborter\n"
	"irrelevant android::base::LogMessage::~LogMessage\n"
	"irrelevant __android_log_assert\n"
	"irrelevant __android_log_call_aborter\n"
	"irrelevant __android_log_default_aborter\n"
	"# ESP-IDF and newlib: panics, aborts, assertions\n"
	"irrelevant panic_abort\n"
	"irrelevant esp_system_abort\n"
	"irrelevant esp_panic_handler\n"
	"irrelevant panic_handler\n"
	"irrelevant xt_unhandled_exception\n"
	"irrelevant __assert_func\n"
	"irrelevant _abort_r\n"
	"# MSVC CRT: invalid parameters, /GS failures, pure calls, fast fail\n"
	"irrelevant _invoke_watson\n"
	"irrelevant _invalid_parameter\n"
	"irrelevant _invalid_parameter_noinfo\n"
	"irrelevant _invalid_parameter_noinfo_noreturn\n"
	"irrelevant _call_reportfault\n"
	"irrelevant __report_gsfailure\n"
	"irrelevant __report_rangecheckfailure\n"
	"irrelevant __report_securityfailure\n"
	"irrelevant __fastfail\n"
	"irrelevant _purecall\n"
	"irrelevant _CxxThrowException\n"
	"irrelevant terminate\n"
	"# C++ runtimes: libstdc++, libc++, libc++abi\n"
	"irrelevant std::terminate\n"
	"irrelevant std::__terminate\n"
	"irrelevant __cxxabiv1::__terminate\n"
	"irrelevant __cxxabiv1::__unexpected\n"
	"irrelevant __cxa_throw\n"
	"irrelevant __cxa_rethrow\n"
	"irrelevant __cxa_pure_virtual\n"
	"irrelevant __cxa_deleted_virtual\n"
	"irrelevant __gnu_cxx::__verbose_terminate_handler\n"
	"irrelevant __cxa_call_terminate\n"
	"irrelevant __cxa_call_unexpected\n"
	"irrelevant __cxa_bad_cast\n"
	"irrelevant __cxa_bad_typeid\n"
	"irrelevant __cxa_throw_bad_array_new_length\n"
	"irrelevant __cxxabiv1::failed_throw\n"
	"irrelevant __gxx_personality_v0\n"
	"irrelevant __gcc_personality_v0\n"
	"irrelevant _Unwind_RaiseException\n"
	"irrelevant _Unwind_RaiseException_Phase2\n"
	"irrelevant _Unwind_Resume\n"
	"irrelevant _Unwind_Resume_or_Rethrow\n"
	"irrelevant std::rethrow_exception\n"
	"irrelevant std::__throw_*\n"
	"irrelevant std::__1::__throw_*\n"
	"irrelevant std::__glibcxx_assert_fail\n"
	"irrelevant std::__replacement_assert\n"
	"irrelevant std::__libcpp_verbose_abort\n"
	"irrelevant std::__1::__libcpp_verbose_abort\n"
	"irrelevant abort_message\n"
	"irrelevant demangling_terminate_handler*\n"
	"# Rust: the panic machinery and abort\n"
	"irrelevant std::panicking::*\n"
	"irrelevant core::panicking::*\n"
	"irrelevant std::panic::panic_any*\n"
	"irrelevant std::process::abort\n"
	"irrelevant std::sys::*abort*\n"
	"irrelevant std::sys_common::backtrace::*\n"
	"irrelevant std::sys::backtrace::*\n"
	"irrelevant std::alloc::rust_oom\n"
	"irrelevant std::alloc::default_alloc_error_hook\n"
	"irrelevant __rust_start_panic\n"
	"irrelevant __rust_abort\n"
	"irrelevant __rust_alloc_error_handler\n"
	"irrelevant __rg_oom\n"
	"irrelevant __rdl_oom\n"
	"irrelevant rust_panic\n"
	"irrelevant rust_begin_unwind\n"
	"irrelevant panic_abort::*\n"
	"# Crash reporters' own frames\n"
	"irrelevant google_breakpad::*\n"
	"irrelevant crashpad::*\n"
	"# Frames that name no code, a call through a NULL or near-NULL pointer\n"
	"# (@0x0) or a jump outside every module: the caller made the call\n"
	"prefix @0x*\n"
	"prefix \\?\\?\\?\n"
	"# Allocators: the heap is where it broke, the caller whose bug it is\n"
	"prefix malloc\n"
	"prefix calloc\n"
	"prefix realloc\n"
	"prefix free\n"
	"prefix cfree\n"
	"prefix posix_memalign\n"
	"prefix aligned_alloc\n"
	"prefix memalign\n"
	"prefix valloc\n"
	"prefix pvalloc\n"
	"prefix __libc_malloc\n"
	"prefix __libc_calloc\n"
	"prefix __libc_realloc\n"
	"prefix __libc_free\n"
	"prefix __GI___libc_malloc\n"
	"prefix __GI___libc_free\n"
	"prefix __GI___libc_realloc\n"
	"prefix _int_malloc\n"
	"prefix _int_free*\n"
	"prefix _int_realloc\n"
	"prefix _int_memalign\n"
	"prefix tcache_*\n"
	"prefix unlink_chunk*\n"
	"prefix je_*\n"
	"prefix tc_malloc\n"
	"prefix tc_free\n"
	"prefix mi_malloc\n"
	"prefix mi_free\n"
	"prefix moz_xmalloc\n"
	"prefix moz_xcalloc\n"
	"prefix moz_xrealloc\n"
	"prefix operator new\n"
	"prefix operator new[]\n"
	"prefix operator delete\n"
	"prefix operator delete[]\n"
	"prefix _malloc_base\n"
	"prefix _calloc_base\n"
	"prefix _realloc_base\n"
	"prefix _free_base\n"
	"prefix HeapAlloc\n"
	"prefix HeapFree\n"
	"prefix HeapReAlloc\n"
	"prefix RtlAllocateHeap\n"
	"prefix RtlFreeHeap\n"
	"prefix RtlReAllocateHeap\n"
	"prefix RtlpAllocateHeap*\n"
	"prefix RtlpFreeHeap*\n"
	"prefix __rust_alloc\n"
	"prefix __rust_alloc_zeroed\n"
	"prefix __rust_dealloc\n"
	"prefix __rust_realloc\n"
	"prefix __rdl_alloc\n"
	"prefix __rdl_dealloc\n"
	"prefix __rdl_realloc\n"
	"prefix alloc::alloc::*\n"
	"# Rust's named failures: what failed, the caller where\n"
	"prefix core::result::unwrap_failed\n"
	"prefix core::option::unwrap_failed\n"
	"prefix core::option::expect_failed\n"
	"prefix core::cell::panic_already_*\n"
	"prefix core::slice::index::*_fail\n"
	"prefix core::ptr::*\n"
	"# Memory and string functions: the caller passed the bad pointer\n"
	"prefix memcpy\n"
	"prefix memmove\n"
	"prefix memset\n"
	"prefix memcmp\n"
	"prefix memchr\n"
	"prefix bcmp\n"
	"prefix bzero\n"
	"prefix strlen\n"
	"prefix strnlen\n"
	"prefix strcmp\n"
	"prefix strncmp\n"
	"prefix strcpy\n"
	"prefix strncpy\n"
	"prefix strchr\n"
	"prefix strrchr\n"
	"prefix strstr\n"
	"prefix strdup\n"
	"prefix wcslen\n"
	"prefix wcscpy\n"
	"prefix wmemcpy\n"
	"prefix __mem*_*\n"
	"prefix __str*_*\n"
	"prefix __wmem*_*\n"
	"prefix __wcs*_*\n"
	"prefix __rawmemchr*\n"
	"prefix __stpcpy*\n"
	"prefix __GI_mem*\n"
	"prefix __GI_str*\n"
	"prefix _platform_mem*\n"
	"prefix _platform_str*\n";

void sw_sig_rules_init(struct sw_sig_rules *r)
{
	memset(r, 0, sizeof *r);
	sw_arena_init(&r->arena);
}

void sw_sig_rules_free(struct sw_sig_rules *r)
{
	free(r->v);
	sw_arena_free(&r->arena);
	memset(r, 0, sizeof *r);
}

/* An anonymous namespace as MSVC's undecorator writes it, and as the
 * Itanium C++ ABI demanglers (GCC, Clang, c++filt) do. Socorro keeps each
 * as the platform's tools wrote it (siggen keeps "(anonymous namespace)"
 * whole where it drops argument lists), so the same code crashing on
 * Windows and on Linux makes two signatures there. Here both are written
 * the first way: the one Socorro shows for Windows, its main platform, and
 * the one this project has always written for MSVC's ?A0x<hash>. Both are
 * 21 bytes, so a rule's pattern is rewritten in place. */
static const char anonymous_namespace[] = "`anonymous namespace'";
static const char itanium_anonymous_namespace[] = "(anonymous namespace)";
enum { ANONYMOUS_NAMESPACE_LEN = sizeof anonymous_namespace - 1 };
_Static_assert(sizeof anonymous_namespace == sizeof itanium_anonymous_namespace,
               "the two spellings of an anonymous namespace have one length");

/* A rule names an anonymous namespace either way: it is written as names
 * are (sw_sig_normalize), in place. */
static void canonical_anonymous_namespace(char *pattern)
{
	for (char *p = strstr(pattern, itanium_anonymous_namespace); p;
	     p = strstr(p + ANONYMOUS_NAMESPACE_LEN, itanium_anonymous_namespace))
		memcpy(p, anonymous_namespace, ANONYMOUS_NAMESPACE_LEN);
}

static bool add_rule(struct sw_sig_rules *r, enum sw_sig_action action, const char *pattern,
                     size_t len)
{
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 64;
		struct sw_sig_rule *v = realloc(r->v, cap * sizeof *v);
		if (!v)
			return false;
		r->v = v;
		r->cap = cap;
	}
	char *p = sw_arena_strndup(&r->arena, pattern, len);
	if (!p)
		return false;
	canonical_anonymous_namespace(p);
	r->v[r->n++] = (struct sw_sig_rule){ .action = action, .pattern = p };
	return true;
}

/* One line of a rules text, split: the action word and the pattern. */
struct rule_line {
	const char *word, *pattern;
	size_t word_len, pattern_len;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Splits line [p, end): false for a blank or comment line. */
static bool split_line(const char *p, const char *end, struct rule_line *l)
{
	while (p < end && is_space(*p))
		p++;
	while (end > p && is_space(end[-1]))
		end--;
	if (p == end || *p == '#')
		return false;
	l->word = p;
	while (p < end && !is_space(*p))
		p++;
	l->word_len = (size_t)(p - l->word);
	while (p < end && is_space(*p))
		p++;
	l->pattern = p;
	l->pattern_len = (size_t)(end - p);
	return true;
}

static bool word_is(const struct rule_line *l, const char *w)
{
	return l->word_len == strlen(w) && memcmp(l->word, w, l->word_len) == 0;
}

/* Pass 0 checks every line, pass 1 applies them: a bad line adds nothing. */
bool sw_sig_rules_parse(struct sw_sig_rules *r, const char *text, const char *name,
                        struct sw_err *err)
{
	for (int pass = 0; pass < 2; pass++) {
		unsigned lineno = 0;
		for (const char *p = text; *p;) {
			const char *end = strchr(p, '\n');
			if (!end)
				end = p + strlen(p);
			lineno++;
			struct rule_line l;
			bool has_rule = split_line(p, end, &l);
			p = *end ? end + 1 : end;
			if (!has_rule)
				continue;
			enum sw_sig_action action = SW_SIG_KEEP;
			if (word_is(&l, "reset")) {
				if (l.pattern_len) {
					sw_err_set(err, SW_ERR_USAGE, "%s:%u: 'reset' takes no pattern", name, lineno);
					return false;
				}
				if (pass == 1)
					r->n = 0;
				continue;
			} else if (word_is(&l, "irrelevant")) {
				action = SW_SIG_IRRELEVANT;
			} else if (word_is(&l, "prefix")) {
				action = SW_SIG_PREFIX;
			} else if (!word_is(&l, "keep")) {
				sw_err_set(err, SW_ERR_USAGE,
				           "%s:%u: '%.*s' is not a rule (irrelevant, prefix, keep or reset)",
				           name, lineno, (int)(l.word_len > 40 ? 40 : l.word_len), l.word);
				return false;
			}
			if (l.pattern_len == 0) {
				sw_err_set(err, SW_ERR_USAGE, "%s:%u: '%.*s' without a pattern", name,
				           lineno, (int)l.word_len, l.word);
				return false;
			}
			if (pass == 1 && !add_rule(r, action, l.pattern, l.pattern_len)) {
				sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name);
				return false;
			}
		}
	}
	return true;
}

bool sw_sig_rules_add_defaults(struct sw_sig_rules *r)
{
	struct sw_err err = { 0 };
	return sw_sig_rules_parse(r, default_rules, "built-in rules", &err);
}

/* Rules files are small: anything past this is not one. */
enum { MAX_RULES_FILE = 1 << 20 };

bool sw_sig_rules_load(struct sw_sig_rules *r, const char *path, struct sw_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		sw_err_set(err, SW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return false;
	}
	char *text = malloc(MAX_RULES_FILE + 1);
	if (!text) {
		fclose(f);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", path);
		return false;
	}
	size_t n = fread(text, 1, MAX_RULES_FILE + 1, f);
	bool bad = ferror(f) != 0;
	int saved = errno;
	fclose(f);
	bool ok = false;
	if (bad)
		sw_err_set(err, SW_ERR_IO, "%s: cannot read: %s", path, strerror(saved));
	else if (n > MAX_RULES_FILE)
		sw_err_set(err, SW_ERR_USAGE, "%s: over %d bytes: not a rules file", path,
		           MAX_RULES_FILE);
	else if (memchr(text, '\0', n))
		sw_err_set(err, SW_ERR_USAGE, "%s: holds a NUL byte: not a rules file", path);
	else {
		text[n] = '\0';
		ok = sw_sig_rules_parse(r, text, path, err);
	}
	free(text);
	return ok;
}

static enum sw_sig_action classify(const struct sw_sig_rules *r, const char *name, int flags)
{
	for (uint32_t i = r->n; i-- > 0;)
		if (fnmatch(r->v[i].pattern, name, flags) == 0)
			return r->v[i].action;
	return SW_SIG_KEEP;
}

enum sw_sig_action sw_sig_classify(const struct sw_sig_rules *r, const char *name)
{
	return classify(r, name, 0);
}

/* ---- normalizing a function name ---------------------------------------- */

/* An output buffer that keeps room for the NUL and drops what overflows. */
struct sbuf {
	char *p;
	size_t cap, n;
};

static void put_c(struct sbuf *b, char c)
{
	if (b->n + 1 < b->cap)
		b->p[b->n++] = c;
}

static void put_s(struct sbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_c(b, s[i]);
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* The index one past the bracket that closes the one at in[i] (open/close
 * nest; parentheses inside angle brackets are skipped whole, so a '>' in
 * "decltype(a->b)" does not close). strlen(in) when unbalanced. */
static size_t skip_group(const char *in, size_t i, char open, char close)
{
	int depth = 0;
	for (; in[i]; i++) {
		if (in[i] == '(' && open != '(') {
			i = skip_group(in, i, '(', ')') - 1;
			if (!in[i])
				return i;
			continue;
		}
		if (in[i] == open)
			depth++;
		else if (in[i] == close && --depth == 0)
			return i + 1;
	}
	return i;
}

/* Compiler clone suffixes: the same function, optimized apart (GCC's
 * .cold, .part.N, .isra.N, .constprop.N, .lto_priv.N; LLVM's .llvm.HASH,
 * whose hash changes from build to build). */
static bool clone_suffix(const char *s)
{
	static const char *const suffixes[] = { ".cold", ".part.", ".isra.", ".constprop.",
	                                        ".lto_priv.", ".llvm.", ".localalias" };
	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
		if (starts(s, suffixes[i]))
			return true;
	return false;
}

/* "operator" at in[i] as the keyword: writes it and its operator symbol,
 * returns the index after them. */
static size_t put_operator(struct sbuf *b, const char *in, size_t i)
{
	put_s(b, "operator", 8);
	i += 8;
	size_t j = i;
	while (in[j] == ' ')
		j++;
	if ((in[j] == '(' && in[j + 1] == ')') || (in[j] == '[' && in[j + 1] == ']')) {
		put_s(b, in + j, 2);
		return j + 2;
	}
	if (in[j] && strchr("+-*/%^&|~!=<>,", in[j])) {
		size_t k = j;
		while (k - j < 3 && in[k] && strchr("+-*/%^&|~!=<>,", in[k]))
			k++;
		put_s(b, in + j, k - j);
		return k;
	}
	if (j > i && ident_char(in[j])) /* operator new, operator bool */
		put_c(b, ' ');
	return j;
}

/* Does the output end where a name component starts (nothing yet, "::",
 * a space or an opening bracket)? */
static bool at_component_start(const struct sbuf *b)
{
	if (b->n == 0)
		return true;
	char last = b->p[b->n - 1];
	return last == ':' || last == ' ' || last == '<' || last == '(' || last == ',';
}

/* Does the output end in "::" after a name (Rust's turbofish f::<u8>)? */
static bool turbofish(const struct sbuf *b)
{
	return b->n >= 3 && b->p[b->n - 1] == ':' && b->p[b->n - 2] == ':' &&
	       ident_char(b->p[b->n - 3]);
}

size_t sw_sig_normalize(const char *in, char *out, size_t cap)
{
	struct sbuf b = { .p = out, .cap = cap };
	size_t i = 0;
	while (in[i]) {
		char c = in[i];
		if (isspace((unsigned char)c)) {
			if (b.n && b.p[b.n - 1] != ' ')
				put_c(&b, ' ');
			i++;
		} else if (c == 'o' && starts(in + i, "operator") && (i == 0 || !ident_char(in[i - 1])) &&
		           !ident_char(in[i + 8])) {
			i = put_operator(&b, in, i);
		} else if (c == '{') {
			/* GCC's {lambda(int)#1}: its own name, kept whole. */
			size_t end = skip_group(in, i, '{', '}');
			put_s(&b, in + i, end - i);
			i = end;
		} else if (c == '?' && starts(in + i, "?A0x") && all_hex(in + i + 4, 8)) {
			/* MSVC names an anonymous namespace by a hash of its file. */
			put_s(&b, anonymous_namespace, ANONYMOUS_NAMESPACE_LEN);
			i += 12;
		} else if (c == '(') {
			if (starts(in + i, itanium_anonymous_namespace)) {
				put_s(&b, anonymous_namespace, ANONYMOUS_NAMESPACE_LEN);
				i += ANONYMOUS_NAMESPACE_LEN;
				continue;
			}
			/* The argument list: dropped, and what follows it (" const",
			 * "&&") unless a name goes on ("f(int)::Local::g"). */
			i = skip_group(in, i, '(', ')');
			if (!starts(in + i, "::"))
				break;
		} else if (c == '<') {
			if (starts(in + i, "<lambda_")) {
				/* MSVC's <lambda_HASH>: the hash is per build. */
				put_s(&b, "<lambda>", 8);
				i = skip_group(in, i, '<', '>');
			} else if (at_component_start(&b) &&
			           (!turbofish(&b) || starts(in + i, "<impl "))) {
				put_c(&b, c); /* Rust's <T as Trait>::f, ::<impl T>::f */
				i++;
			} else { /* template arguments, Rust's f::<u8> */
				put_s(&b, "<T>", 3);
				i = skip_group(in, i, '<', '>');
			}
		} else if (c == '[' && starts(in + i, "[abi:")) {
			i = skip_group(in, i, '[', ']');
		} else if (c == '[' && starts(in + i, "[clone ")) {
			break;
		} else if (c == '.' && i > 0 && ident_char(in[i - 1]) && clone_suffix(in + i)) {
			break;
		} else if (c == ':' && starts(in + i, "::h") && all_hex(in + i + 3, 16) &&
		           !ident_char(in[i + 19])) {
			i += 19; /* Rust's legacy symbol hash */
		} else {
			put_c(&b, c);
			i++;
		}
	}
	while (b.n && b.p[b.n - 1] == ' ')
		b.n--;
	if (cap)
		out[b.n] = '\0';
	return b.n;
}

/* ---- the signature ------------------------------------------------------ */

/* What a frame's name in a signature is made of. */
enum frame_kind {
	FRAME_FUNCTION, /* its function name, normalized */
	FRAME_MODULE,   /* no function name: its module's file name */
	FRAME_NO_CODE,  /* outside every module: @0x<pc> or ??? */
};

/* An ELF library's file is named for its soname and a version:
 * libstdc++.so.6.0.30 is the file of libstdc++.so.6, the name programs
 * link against. The numbers after the first change with each update of
 * the distribution, the crash does not: name cut after that first number
 * when all that follows ".so." is numbers and dots (libc.so.6 and
 * ld-linux-x86-64.so.2 stay as they are; Windows' and macOS' names have
 * no ".so."). */
static void drop_soname_minor_version(char *name)
{
	for (char *so = strstr(name, ".so."); so; so = strstr(so + 1, ".so.")) {
		char *v = so + 4;
		if (!isdigit((unsigned char)*v) || v[strspn(v, "0123456789.")] != '\0')
			continue;
		char *dot = strchr(v, '.');
		if (dot)
			*dot = '\0';
		return;
	}
}

static void to_lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Module m's name in a signature, into buf. Windows does not tell
 * KERNELBASE.dll from kernelbase.dll, and a module's spelling varies with
 * how it was loaded: lowercased there, as Socorro's siggen does for
 * Windows crashes, so both spellings make one signature. */
static void module_name(const struct sw_snapshot *s, const struct sw_module *m, char *buf,
                        size_t cap)
{
	const char *file = sw_basename(m->code_file);
	snprintf(buf, cap, "%s", file && *file ? file : "???");
	drop_soname_minor_version(buf);
	if (s->sys.os == SW_OS_WINDOWS)
		to_lower(buf);
}

/* Frame fr's name in a signature, into buf, and what it is made of. */
static enum frame_kind frame_name(const struct sw_snapshot *s, const struct sw_stack_frame *fr,
                                  char *buf, size_t cap)
{
	if (fr->function && sw_sig_normalize(fr->function, buf, cap) > 0)
		return FRAME_FUNCTION;
	if (fr->module >= 0 && (uint32_t)fr->module < s->nmodules) {
		module_name(s, &s->modules[fr->module], buf, cap);
		return FRAME_MODULE;
	}
	if (fr->pc < 0x10000) {
		/* A call through NULL or a small bad pointer: the address is
		 * the same in every build, and says what happened. */
		snprintf(buf, cap, "@0x%" PRIx64, fr->pc);
	} else {
		/* Elsewhere the address moves with every run (ASLR). */
		snprintf(buf, cap, "???");
	}
	return FRAME_NO_CODE;
}

/* fnmatch's flags for a frame of this kind: module names are matched
 * without case on Windows, whatever case a rule writes them in. */
static int match_flags(const struct sw_snapshot *s, enum frame_kind kind)
{
	return kind == FRAME_MODULE && s->sys.os == SW_OS_WINDOWS ? FNM_CASEFOLD : 0;
}

static void append(struct sw_signature *out, size_t *len, const char *name, uint32_t frame)
{
	size_t nlen = strlen(name), sep = *len ? 3 : 0;
	if (*len + sep + nlen >= sizeof out->text) {
		if (*len)
			return; /* does not fit: the signature ends before it */
		nlen = sizeof out->text - 1;
	}
	if (sep)
		memcpy(out->text + *len, " | ", 3);
	memcpy(out->text + *len + sep, name, nlen);
	*len += sep + nlen;
	out->text[*len] = '\0';
	out->frames[out->nframes++] = frame;
}

void sw_signature_make(const struct sw_sig_rules *r, const struct sw_snapshot *s,
                       const struct sw_stack *st, struct sw_signature *out)
{
	memset(out, 0, sizeof *out);
	if (!st || st->nframes == 0) {
		snprintf(out->text, sizeof out->text, "EMPTY: no frames");
		return;
	}
	char name[SW_SIG_MAX_TEXT], prev[SW_SIG_MAX_TEXT] = "";
	size_t len = 0;
	enum sw_sig_action action = SW_SIG_IRRELEVANT;
	for (uint32_t i = 0; i < st->nframes && out->nframes < SW_SIG_MAX_FRAMES; i++) {
		enum frame_kind kind = frame_name(s, &st->frames[i], name, sizeof name);
		/* A recursion through an irrelevant function (or unsymbolized
		 * frames of one skipped module) repeats a name for up to a
		 * million frames: classified once, not by every rule each time. */
		if (i == 0 || strcmp(name, prev) != 0) {
			action = classify(r, name, match_flags(s, kind));
			memcpy(prev, name, strlen(name) + 1);
		}
		if (action == SW_SIG_IRRELEVANT)
			continue;
		uint32_t before = out->nframes;
		append(out, &len, name, i);
		if (action != SW_SIG_PREFIX || out->nframes == before)
			break;
	}
	if (out->nframes == 0) {
		frame_name(s, &st->frames[0], name, sizeof name);
		append(out, &len, name, 0);
	}
}
