/* The microdump reader: every microdump of the real corpus read with exact
 * values (checked against Breakpad's reference outputs); synthetic
 * microdumps behind each kind of logcat prefix, with foreign and garbage
 * lines, damaged records, several microdumps in one log; and logs cut at
 * every byte read without a crash, keeping what is intact. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/registry.h"
#include "formats/microdump.h"
#include "formats/open.h"
#include "lib/crash_reason.h"
#include "lib/output.h"
#include "testutil.h"

/* ---- Helpers --------------------------------------------------------------- */

static char tmp_path[64];

/* Writes the bytes to a temp file (kept until unlink_tmp: a part after the
 * first is read from the same file). */
static void write_tmp(const void *data, size_t n)
{
	snprintf(tmp_path, sizeof tmp_path, "/tmp/sw_mc_test_XXXXXX");
	int fd = mkstemp(tmp_path);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, data, n) == (ssize_t)n);
	close(fd);
}

static enum sw_err_code read_text(const char *text, size_t n, struct sw_snapshot *s,
                                  struct sw_err *err)
{
	write_tmp(text, n);
	sw_err_clear(err);
	enum sw_err_code rc = sw_microdump_read(tmp_path, NULL, s, err);
	unlink(tmp_path);
	return rc;
}

static enum sw_err_code read_str(const char *text, struct sw_snapshot *s, struct sw_err *err)
{
	return read_text(text, strlen(text), s, err);
}

static enum sw_err_code read_corpus(const char *name, struct sw_snapshot *s, struct sw_err *err)
{
	char rel[128], path[512];
	snprintf(rel, sizeof rel, "breakpad/%s", name);
	corpus_path(path, sizeof path, rel);
	sw_err_clear(err);
	return sw_microdump_read(path, NULL, s, err);
}

static bool has_problem(const struct sw_snapshot *s, const char *needle)
{
	for (uint32_t i = 0; i < s->nproblems; i++)
		if (strstr(s->problems[i], needle))
			return true;
	return false;
}

static uint32_t damage_count(const struct sw_snapshot *s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->nproblems; i++)
		n += strncmp(s->problems[i], "warning: ", 9) != 0;
	return n;
}

static uint64_t reg(const struct sw_regs *r, enum sw_cpu cpu, const char *name)
{
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	ck_assert_ptr_nonnull(a);
	int i = sw_arch_reg_index(a, name, strlen(name));
	ck_assert_int_ge(i, 0);
	ck_assert_msg(sw_reg_valid(r, (unsigned)i), "register %s not valid", name);
	return r->v[i];
}

static const char *annotation(const struct sw_snapshot *s, const char *key)
{
	for (uint32_t i = 0; i < s->nannotations; i++)
		if (strcmp(s->annotations[i].key, key) == 0)
			return s->annotations[i].value;
	return NULL;
}

/* ---- A small microdump writer ---------------------------------------------- */

/* How each line is prefixed, as logcat formats differ. */
enum prefix_style {
	PREFIX_NONE,              /* Linux: straight to stderr */
	PREFIX_BRIEF,             /* "W/google-breakpad( 3745): " */
	PREFIX_THREADTIME,        /* "02-23 15:49:14.700  1740  1739 F google-breakpad: " */
	PREFIX_BRIEF_CRLF,        /* brief, saved by adb on Windows */
};

struct mtext {
	char *buf;
	size_t len, cap;
	enum prefix_style style;
	unsigned lines;
};

static void mt_init(struct mtext *t, enum prefix_style style)
{
	memset(t, 0, sizeof *t);
	t->style = style;
	t->cap = 1 << 16;
	t->buf = calloc(1, t->cap);
}

static void mt_raw(struct mtext *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(n, 0);
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		t->cap *= 2;
		t->buf = realloc(t->buf, t->cap);
	}
}

/* One line of the microdump, behind the style's prefix. */
static void mt_line(struct mtext *t, const char *fmt, ...)
{
	char body[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	t->lines++;
	switch (t->style) {
	case PREFIX_NONE: mt_raw(t, "%s\n", body); break;
	case PREFIX_BRIEF: mt_raw(t, "W/google-breakpad( 3745): %s\n", body); break;
	case PREFIX_BRIEF_CRLF: mt_raw(t, "W/google-breakpad( 3745): %s\r\n", body); break;
	case PREFIX_THREADTIME:
		/* The timestamp moves on with every line. */
		mt_raw(t, "02-23 15:49:%02u.%03u  1740  1739 F google-breakpad: %s\n",
		       t->lines / 7 % 60, t->lines * 37 % 1000, body);
		break;
	}
}

static void hex_of(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02X", b[i]);
	out[2 * n] = '\0';
}

enum {
	T_STACK = 0x7f000000,
	T_SP = 0x7f000040,
	T_PC = 0x40001234,
	T_LR = 0x40002001,
	ARM_CONTEXT_SIZE = 368,   /* sizeof(MDRawContextARM) */
};

/* An MDRawContextARM (flags ARM | INTEGER | FLOATING_POINT) with sp, lr,
 * pc and r4 set, in hex. */
static void arm_context_hex(char *out, size_t nbytes)
{
	uint8_t c[ARM_CONTEXT_SIZE] = { 0 };
	uint32_t words[][2] = { { 0, 0x40000006 }, { 4 + 4 * 4, 0x44444444 },
		                { 4 + 4 * 13, T_SP }, { 4 + 4 * 14, T_LR },
		                { 4 + 4 * 15, T_PC }, { 68, 0x60000010 } };
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		for (int i = 0; i < 4; i++)
			c[words[k][0] + i] = (uint8_t)(words[k][1] >> (8 * i));
	hex_of(out, c, nbytes);
}

/* A stack chunk of n bytes at addr whose byte at address a is (a & 0xff). */
static void stack_chunk(struct mtext *t, uint32_t addr, size_t n)
{
	uint8_t b[384];
	char hex[2 * 384 + 1];
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(addr + i);
	hex_of(hex, b, n);
	mt_line(t, "S %08X %s", addr, hex);
}

/* Everything between BEGIN and END of a 32-bit ARM microdump as Breakpad's
 * writer lays it out; `extra` (may be NULL) is written after the G line. */
static void mt_body(struct mtext *t, const char *extra)
{
	char ctx[2 * ARM_CONTEXT_SIZE + 1];
	mt_line(t, "V TestApp:1.2.3");
	mt_line(t, "O A arm 04 armv8l test/device:7.1/NMF26F/1:user/release-keys");
	mt_line(t, "P browser");
	mt_line(t, "R 0000000B SIGSEGV 00000010");
	mt_line(t, "G OpenGL ES 3.2|ACME|Renderer 9");
	if (extra)
		mt_line(t, "%s", extra);
	mt_line(t, "S 0 %08X %08X %08X", T_SP, T_STACK, 0x200);
	stack_chunk(t, T_STACK, 0x180);
	stack_chunk(t, T_STACK + 0x180, 0x80);
	arm_context_hex(ctx, ARM_CONTEXT_SIZE);
	mt_line(t, "C %s", ctx);
	mt_line(t, "M 40000000 00000000 00010000 0123456789ABCDEF0123456789ABCDEF0 libfoo.so");
	mt_line(t, "M 50000000 00001000 00002000 FEDCBA9876543210FEDCBA98765432100 libbar.so");
}

static void mt_microdump(struct mtext *t, const char *extra)
{
	mt_line(t, "-----BEGIN BREAKPAD MICRODUMP-----");
	mt_body(t, extra);
	mt_line(t, "-----END BREAKPAD MICRODUMP-----");
}

/* The values mt_microdump writes, as the reader must give them. */
static void check_synthetic(const struct sw_snapshot *s)
{
	ck_assert_str_eq(s->format, "microdump");
	ck_assert_int_eq(s->sys.os, SW_OS_ANDROID);
	ck_assert_str_eq(s->sys.os_name, "Android");
	ck_assert_str_eq(s->sys.os_version, "test/device:7.1/NMF26F/1:user/release-keys");
	ck_assert_int_eq(s->sys.cpu, SW_CPU_ARM);
	ck_assert_str_eq(s->sys.cpu_name, "arm");
	ck_assert_uint_eq(s->sys.cpu_count, 4);
	ck_assert_uint_eq(s->sys.word_size, 4);
	ck_assert(!s->sys.big_endian);
	ck_assert_ptr_null(s->sys.cpu_info);
	ck_assert_str_eq(s->sys.gl_version, "OpenGL ES 3.2");
	ck_assert_str_eq(s->sys.gl_vendor, "ACME");
	ck_assert_str_eq(s->sys.gl_renderer, "Renderer 9");
	ck_assert_str_eq(annotation(s, "product_info"), "TestApp:1.2.3");
	ck_assert_str_eq(annotation(s, "process_type"), "browser");

	ck_assert_uint_eq(s->nthreads, 1);
	const struct sw_thread *t = &s->threads[0];
	ck_assert_uint_eq(t->id, 0);
	ck_assert_int_eq(t->cpu, SW_CPU_ARM);
	ck_assert_uint_eq(reg(&t->ctx, SW_CPU_ARM, "pc"), T_PC);
	ck_assert_uint_eq(reg(&t->ctx, SW_CPU_ARM, "sp"), T_SP);
	ck_assert_uint_eq(reg(&t->ctx, SW_CPU_ARM, "lr"), T_LR);
	ck_assert_uint_eq(reg(&t->ctx, SW_CPU_ARM, "r4"), 0x44444444);
	ck_assert_uint_eq(t->stack_base, T_STACK);
	ck_assert_uint_eq(t->stack_size, 0x200);
	ck_assert_uint_eq(s->nmem, 1);
	ck_assert_uint_eq(s->mem[0].base, T_STACK);
	ck_assert_uint_eq(s->mem[0].size, 0x200);
	uint32_t word;
	ck_assert(sw_mem_read_u32(s, T_STACK + 0x17e, &word)); /* across the chunk boundary */
	ck_assert_uint_eq(word, 0x81807f7e);

	ck_assert(s->crash.present);
	ck_assert_uint_eq(s->crash.thread_id, 0);
	ck_assert_uint_eq(s->crash.code, 11);
	ck_assert_uint_eq(s->crash.address, 0x10);
	ck_assert_uint_eq(reg(&s->crash.ctx, SW_CPU_ARM, "pc"), T_PC);

	ck_assert_uint_eq(s->nmodules, 2);
	ck_assert_str_eq(s->modules[0].code_file, "libfoo.so");
	ck_assert_str_eq(s->modules[0].debug_file, "libfoo.so");
	ck_assert_str_eq(s->modules[0].debug_id, "0123456789ABCDEF0123456789ABCDEF0");
	ck_assert_ptr_null(s->modules[0].code_id);
	ck_assert_uint_eq(s->modules[0].base, 0x40000000);
	ck_assert_uint_eq(s->modules[0].size, 0x10000);
	ck_assert_str_eq(s->modules[1].code_file, "libbar.so");
	ck_assert_uint_eq(s->modules[1].base, 0x50000000);
	ck_assert_uint_eq(s->modules[1].size, 0x2000);
	ck_assert_int_eq(s->main_module, -1);
	ck_assert_int_eq(sw_module_at(s, T_PC), 0);
}

/* ---- The real corpus (values from Breakpad's reference outputs) ------------- */

START_TEST(test_corpus_arm_brief_prefix)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("microdump-arm.dmp", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	ck_assert_str_eq(s.format, "microdump");
	ck_assert_str_eq(s.sys.os_name, "Android");
	ck_assert_str_eq(s.sys.os_version, "OS VERSION INFO");
	ck_assert_str_eq(s.sys.cpu_name, "arm");
	ck_assert_uint_eq(s.sys.cpu_count, 2);
	ck_assert_str_eq(s.sys.gl_version, "OpenGL ES 3.0 V@104.0 AU@  (GIT@Id3510ff6dc)");
	ck_assert_str_eq(s.sys.gl_vendor, "Qualcomm");
	ck_assert_str_eq(s.sys.gl_renderer, "Adreno (TM) 330");
	ck_assert_uint_eq(s.nmodules, 6);
	ck_assert_str_eq(s.modules[0].code_file, "breakpad_unittests");
	ck_assert_str_eq(s.modules[0].debug_id, "DA7778FB66018A4E9B4110ED06E730D00");
	ck_assert_uint_eq(s.modules[0].base, 0xaaacd000);
	ck_assert_uint_eq(s.modules[0].size, 0x7c000);
	ck_assert_str_eq(s.modules[5].code_file, "libc.so");
	ck_assert_str_eq(s.modules[5].debug_id, "167F187B09A27F7444EF989603AAFD3D0");
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].base, 0xffea6000);
	ck_assert_uint_eq(s.mem[0].size, 0x2000);
	ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "pc"), 0xaaaeb307);
	ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "sp"), 0xffea68c0);
	ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "r10"), 0xffea6930);
	ck_assert(s.crash.present);
	ck_assert_uint_eq(s.crash.code, 0);
	char reason[64];
	ck_assert_str_eq(sw_crash_reason(&s, SW_REASON_BREAKPAD, reason, sizeof reason), "");
	ck_assert_uint_eq(s.part.count, 1);
	ck_assert(!s.has_next);
	sw_snapshot_free(&s);
}
END_TEST

/* The old 796-byte MDRawContextARM64_Old layout, and an empty GPU. */
START_TEST(test_corpus_arm64_old_context_layout)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("microdump-arm64.dmp", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	ck_assert_str_eq(s.sys.os_version, "OS 64 VERSION INFO");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM64);
	ck_assert_str_eq(s.sys.cpu_name, "arm64");
	ck_assert_uint_eq(s.sys.word_size, 8);
	ck_assert_uint_eq(s.sys.cpu_count, 2);
	ck_assert_ptr_null(s.sys.gl_version);
	ck_assert_uint_eq(s.nmodules, 8);
	ck_assert_str_eq(s.modules[0].code_file, "breakpad_unittests");
	ck_assert_str_eq(s.modules[0].debug_id, "D6D1FEC9A15DE7F38A236898871A2E770");
	ck_assert_uint_eq(s.modules[0].base, 0x555f608000);
	ck_assert_str_eq(s.modules[7].code_file, "linux-gate.so");
	ck_assert_uint_eq(s.mem[0].base, 0x7fe2ba6000);
	ck_assert_uint_eq(s.mem[0].size, 0x3000);
	const struct sw_regs *c = &s.threads[0].ctx;
	ck_assert_uint_eq(reg(c, SW_CPU_ARM64, "pc"), 0x555f636f6c);
	ck_assert_uint_eq(reg(c, SW_CPU_ARM64, "sp"), 0x7fe2ba6120);
	ck_assert_uint_eq(reg(c, SW_CPU_ARM64, "x19"), 0x7fe2ba6a50);
	ck_assert_uint_eq(reg(c, SW_CPU_ARM64, "x29"), 0x7fe2ba6120);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_corpus_mips32)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("microdump-mips32.dmp", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	ck_assert_str_eq(s.sys.os_version, "3.0.8-g893bf16 #7 SMP PREEMPT Fri Jul 10 15:20:59 PDT 2015");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_MIPS);
	ck_assert_str_eq(s.sys.cpu_name, "mips");
	ck_assert_uint_eq(s.sys.word_size, 4);
	ck_assert_ptr_null(s.sys.gl_version); /* "G UNKNOWN" */
	ck_assert_str_eq(annotation(&s, "product_info"), "UNKNOWN:0.0.0.0");
	ck_assert_uint_eq(s.nmodules, 7);
	ck_assert_str_eq(s.modules[0].code_file, "crash_example");
	ck_assert_str_eq(s.modules[0].debug_id, "8F36148CC4647A8116CAF2A25F591F570");
	ck_assert_uint_eq(s.mem[0].base, 0x7f92f000);
	ck_assert_uint_eq(s.mem[0].size, 0x2000);
	const struct sw_regs *c = &s.threads[0].ctx;
	ck_assert_uint_eq(reg(c, SW_CPU_MIPS, "pc"), 0x77c1107c);
	ck_assert_uint_eq(reg(c, SW_CPU_MIPS, "sp"), 0x7f92fc38);
	ck_assert_uint_eq(reg(c, SW_CPU_MIPS, "ra"), 0x77c110ec);
	ck_assert_uint_eq(reg(c, SW_CPU_MIPS, "gp"), 0x77c89020);
	sw_snapshot_free(&s);
}
END_TEST

/* logcat's threadtime prefix, whose timestamp changes from line to line. */
START_TEST(test_corpus_mips64_threadtime_prefix)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("microdump-mips64.dmp", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_MIPS64);
	ck_assert_str_eq(s.sys.cpu_name, "mips64");
	ck_assert_uint_eq(s.sys.word_size, 8);
	ck_assert_uint_eq(s.sys.cpu_count, 1);
	ck_assert_uint_eq(s.nmodules, 8);
	ck_assert_str_eq(s.modules[0].code_file, "crash_example");
	ck_assert_str_eq(s.modules[0].debug_id, "6E72E2F1A5F59AB3D51356FDFE394D490");
	ck_assert_uint_eq(s.modules[0].base, 0xfff1382000);
	ck_assert_uint_eq(s.modules[0].size, 0x81000);
	ck_assert_str_eq(s.modules[7].code_file, "linker64");
	ck_assert_uint_eq(s.mem[0].base, 0xffffccf000);
	ck_assert_uint_eq(s.mem[0].size, 0x1000);
	const struct sw_regs *c = &s.threads[0].ctx;
	ck_assert_uint_eq(reg(c, SW_CPU_MIPS64, "pc"), 0xfff138a24c);
	ck_assert_uint_eq(reg(c, SW_CPU_MIPS64, "sp"), 0xffffccf650);
	ck_assert_uint_eq(reg(c, SW_CPU_MIPS64, "s4"), 0x100000);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_corpus_x86)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("microdump-x86.dmp", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	ck_assert_str_eq(s.sys.os_version,
	                 "asus/WW_Z00A/Z00A:5.0/LRX21V/2.19.40.22_20150627_5104_user:user/release-keys");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_X86);
	ck_assert_uint_eq(s.sys.cpu_count, 4);
	ck_assert_str_eq(annotation(&s, "product_info"), "Chrome_Android:49.0.2623.15");
	ck_assert_uint_eq(s.nmodules, 124);
	ck_assert_str_eq(s.modules[0].code_file, "app_process32_xposed");
	ck_assert_str_eq(s.modules[1].code_file, "libchrome.so");
	ck_assert_str_eq(s.modules[1].debug_id, "7AEFEEE07C050930D779F813A65B7FE60");
	ck_assert_uint_eq(s.modules[1].base, 0xc4a68000);
	ck_assert_uint_eq(s.modules[1].size, 0x4eb7000);
	ck_assert_uint_eq(s.mem[0].base, 0xffb44000);
	ck_assert_uint_eq(s.mem[0].size, 0x4000);
	const struct sw_regs *c = &s.threads[0].ctx;
	ck_assert_uint_eq(reg(c, SW_CPU_X86, "eip"), 0xf7394b86);
	ck_assert_uint_eq(reg(c, SW_CPU_X86, "esp"), 0xffb44bd0);
	ck_assert_uint_eq(reg(c, SW_CPU_X86, "ebp"), 0x2029);
	/* libsigchain.so lies inside libLLVM.so's range (a load-biased
	 * start): the module that ends first owns it, as in Breakpad. */
	int32_t m = sw_module_at(&s, 0xf40aa000);
	ck_assert_int_ge(m, 0);
	ck_assert_str_eq(s.modules[m].code_file, "libsigchain.so");
	sw_snapshot_free(&s);
}
END_TEST

/* Six microdumps, each with an R line and a P line. */
START_TEST(test_corpus_withcrashreason_every_part)
{
	static const struct {
		uint64_t line, address, sp;
	} parts[] = {
		{ 1, 0x4a7cb000, 0xc9379c60 }, { 236, 0x22f73000, 0xc9472c60 },
		{ 471, 0x29627000, 0xc94f5c60 }, { 706, 0, 0xc92ffc60 },
		{ 941, 0x4ed50008, 0xc94f5c60 }, { 1183, 0, 0xc96f4c60 },
	};
	char path[512];
	corpus_path(path, sizeof path, "breakpad/microdump-withcrashreason.dmp");
	struct sw_part next;
	for (uint32_t i = 0; i < 6; i++) {
		struct sw_snapshot s;
		struct sw_err err = { 0 };
		ck_assert_int_eq(sw_microdump_read(path, i ? &next : NULL, &s, &err), SW_OK);
		ck_assert_uint_eq(s.nproblems, 0);
		ck_assert_uint_eq(s.part.index, i);
		ck_assert_uint_eq(s.part.count, 6);
		ck_assert_uint_eq(s.part.line, parts[i].line);
		ck_assert_uint_eq(s.crash.code, 5);
		ck_assert_uint_eq(s.crash.address, parts[i].address);
		char reason[64];
		ck_assert_str_eq(sw_crash_reason(&s, SW_REASON_BREAKPAD, reason, sizeof reason),
		                 "SIGTRAP");
		ck_assert_str_eq(annotation(&s, "process_type"), "webview");
		ck_assert_str_eq(annotation(&s, "product_info"), "AndroidWebView:62.0.3188.0");
		ck_assert_ptr_null(s.sys.gl_version); /* "G" alone */
		ck_assert_str_eq(s.sys.os_version,
		                 "Nokia/TA-1025_00WW/PLE:7.1.1/NMF26F/00WW_3_32C:user/release-keys");
		ck_assert_uint_eq(s.sys.cpu_count, 8);
		ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "pc"), 0xd2b38486);
		ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "sp"), parts[i].sp);
		if (i == 0) {
			ck_assert_uint_eq(s.nmodules, 203);
			/* libqdutils.so inside libllvm-glnext.so's range */
			int32_t m = sw_module_at(&s, 0xd9277000);
			ck_assert_int_ge(m, 0);
			ck_assert_str_eq(s.modules[m].code_file, "libqdutils.so");
		}
		ck_assert(s.has_next == (i < 5));
		next = s.next;
		sw_snapshot_free(&s);
	}
}
END_TEST

/* A log that starts with the tail of a microdump, then a whole one, then
 * one cut after its S 0 line by the end of the log. */
START_TEST(test_corpus_multiple_reads_each_and_reports_the_cut_one)
{
	char path[512];
	corpus_path(path, sizeof path, "breakpad/microdump-multiple.dmp");
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_microdump_read(path, NULL, &s, &err), SW_OK);
	ck_assert_uint_eq(s.part.index, 0);
	ck_assert_uint_eq(s.part.count, 2);
	ck_assert_uint_eq(s.part.line, 7);
	ck_assert_uint_eq(s.nproblems, 1);
	ck_assert_str_eq(s.problems[0], "warning: line 6: the end of a microdump whose BEGIN line "
	                                "is not in the log: skipped");
	ck_assert_uint_eq(s.sys.cpu_count, 6);
	ck_assert_uint_eq(s.nmodules, 156);
	ck_assert_str_eq(s.modules[0].code_file, "app_process32");
	ck_assert_uint_eq(s.mem[0].base, 0xc3a39000);
	ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "pc"), 0xe4f270f8);
	ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "sp"), 0xc3a397e8);
	ck_assert(s.has_next);
	struct sw_part next = s.next;
	ck_assert_uint_eq(next.index, 1);
	ck_assert_uint_eq(next.line, 192);
	sw_snapshot_free(&s);

	sw_err_clear(&err);
	ck_assert_int_eq(sw_microdump_read(path, &next, &s, &err), SW_ERR_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "microdump-multiple.dmp: damaged microdump: line 197: "
	                                      "the log ends inside the microdump begun on line 192"));
	ck_assert(has_problem(&s, "microdump of line 192: no C line"));
	ck_assert(has_problem(&s, "the S 0 line announced 0x2000 bytes of stack from 0xc44ff000; "
	                          "the S lines hold 0x0"));
	ck_assert_uint_eq(s.part.index, 1);
	ck_assert_uint_eq(s.sys.cpu_count, 6);      /* what was read is kept */
	ck_assert_str_eq(s.sys.gl_vendor, "Qualcomm");
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.threads[0].ctx.valid, 0);
	ck_assert(!s.has_next);
	sw_snapshot_free(&s);
}
END_TEST

/* The open path recognises microdumps by content: the first line of
 * microdump-multiple.dmp is an M line behind a logcat prefix. */
START_TEST(test_open_recognises_microdump_logs_by_content)
{
	static const char *const names[] = { "microdump-arm.dmp", "microdump-multiple.dmp",
		                             "microdump-mips64.dmp" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char rel[128], path[512];
		snprintf(rel, sizeof rel, "breakpad/%s", names[i]);
		struct sw_snapshot s;
		struct sw_err err = { 0 };
		ck_assert_int_eq(sw_snapshot_open(corpus_path(path, sizeof path, rel), &s, &err), SW_OK);
		ck_assert_str_eq(s.format, "microdump");
		sw_snapshot_free(&s);
	}
	ck_assert(sw_microdump_is((const uint8_t *)"x: -----END BREAKPAD MICRODUMP-----", 35));
	ck_assert(sw_microdump_is((const uint8_t *)"-----BEGIN BREAKPAD MICRODUMP-----\n", 35));
	ck_assert(!sw_microdump_is((const uint8_t *)"-----BEGIN BREAKPAD MICRODUM", 28));
	ck_assert(!sw_microdump_is((const uint8_t *)"MDMP", 4));
	ck_assert(!sw_microdump_is(NULL, 0));
}
END_TEST

/* ---- Prefixes and foreign lines --------------------------------------------- */

START_TEST(test_reads_the_same_behind_every_logcat_prefix)
{
	struct mtext t;
	mt_init(&t, (enum prefix_style)_i);
	mt_microdump(&t, NULL);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_text(t.buf, t.len, &s, &err), SW_OK);
	ck_assert_msg(s.nproblems == 0, "%s", s.nproblems ? s.problems[0] : "");
	check_synthetic(&s);
	ck_assert_uint_eq(s.part.count, 1);
	ck_assert_uint_eq(s.part.line, 1);
	sw_snapshot_free(&s);
	free(t.buf);
}
END_TEST

/* Other processes' log lines come between the microdump's: skipped without
 * a word, as is logcat's own "--------- beginning of crash". */
START_TEST(test_other_log_lines_between_records_are_skipped)
{
	struct mtext t;
	mt_init(&t, PREFIX_BRIEF);
	mt_raw(&t, "--------- beginning of crash\n");
	mt_raw(&t, "I/ActivityManager(  812): Start proc 3745:com.example/u0a123\n");
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----");
	mt_raw(&t, "D/OpenGLRenderer( 3760): Use EGL_SWAP_BEHAVIOR_PRESERVED: true\n");
	mt_raw(&t, "W/google-breakpad(13745): O A x86 01 i686 another process\n");
	mt_body(&t, NULL);
	mt_raw(&t, "E/AndroidRuntime( 3745): FATAL EXCEPTION: main\n");
	mt_line(&t, "-----END BREAKPAD MICRODUMP-----");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_text(t.buf, t.len, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	check_synthetic(&s);
	ck_assert_uint_eq(s.part.line, 3);
	sw_snapshot_free(&s);
	free(t.buf);
}
END_TEST

/* `logcat -v long`: a header line of its own and a blank line around each
 * message, no prefix. */
START_TEST(test_logcat_long_format_headers_are_skipped)
{
	struct mtext t;
	mt_init(&t, PREFIX_NONE);
	mt_raw(&t, "[ 08-17 19:45:06.579 25655:25655 F/google-breakpad ]\n");
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----");
	mt_raw(&t, "\n[ 08-17 19:45:06.580 25655:25655 F/google-breakpad ]\n");
	mt_body(&t, NULL);
	mt_raw(&t, "\n[ 08-17 19:45:06.638 25655:25655 F/google-breakpad ]\n");
	mt_line(&t, "-----END BREAKPAD MICRODUMP-----");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_text(t.buf, t.len, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	check_synthetic(&s);
	sw_snapshot_free(&s);
	free(t.buf);
}
END_TEST

/* A line with the microdump's own prefix that is no record, and a record of
 * a letter the writer never writes: warnings, the rest is read. */
START_TEST(test_garbage_lines_are_warnings_and_the_rest_is_read)
{
	struct mtext t;
	mt_init(&t, PREFIX_BRIEF);
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----");
	mt_line(&t, "Microdump skipped (uninteresting)");
	mt_line(&t, "Z 1 2 3");
	mt_line(&t, "\x01\x02\xff garbage");
	mt_body(&t, "H 12C00000 FFF73000 00D9 31E89000 975F4000 0C:18 0D:0B");
	mt_line(&t, "-----END BREAKPAD MICRODUMP-----");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_text(t.buf, t.len, &s, &err), SW_OK);
	check_synthetic(&s);
	ck_assert_uint_eq(s.nproblems, 3);
	ck_assert_str_eq(s.problems[0], "warning: line 2: not a microdump record: "
	                                "'Microdump skipped (uninteresting)': ignored");
	ck_assert_str_eq(s.problems[1], "warning: line 3: unknown record 'Z': ignored");
	ck_assert_str_eq(s.problems[2], "warning: line 4: not a microdump record: '??? garbage': "
	                                "ignored");
	sw_snapshot_free(&s);
	free(t.buf);
}
END_TEST

START_TEST(test_repeated_records_keep_the_first_with_a_warning)
{
	struct mtext t;
	mt_init(&t, PREFIX_NONE);
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----");
	mt_body(&t, NULL);
	mt_line(&t, "O L x86 01 i686 second");
	mt_line(&t, "G second|GPU|line");
	mt_line(&t, "R 00000006 SIGABRT 00000000");
	mt_line(&t, "-----END BREAKPAD MICRODUMP-----");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_text(t.buf, t.len, &s, &err), SW_OK);
	check_synthetic(&s);
	ck_assert(has_problem(&s, "warning: line 13: a second O line: ignored"));
	ck_assert(has_problem(&s, "warning: line 14: a second G line: ignored"));
	ck_assert(has_problem(&s, "warning: line 15: a second R line: ignored"));
	sw_snapshot_free(&s);
	free(t.buf);
}
END_TEST

/* ---- Several microdumps ---------------------------------------------------------- */

/* Three microdumps; the second is cut short by the third's BEGIN line. */
START_TEST(test_several_microdumps_are_read_one_after_another)
{
	struct mtext t;
	mt_init(&t, PREFIX_THREADTIME);
	mt_microdump(&t, NULL);                       /* lines 1-13 */
	mt_raw(&t, "02-23 15:50:00.000  1740  1739 I chatty  : uid=0 expire 3 lines\n");
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----"); /* line 15 */
	mt_line(&t, "O A arm 02 armv7l cut");
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----"); /* line 17 */
	mt_body(&t, NULL);
	mt_line(&t, "-----END BREAKPAD MICRODUMP-----");
	write_tmp(t.buf, t.len);

	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_microdump_read(tmp_path, NULL, &s, &err), SW_OK);
	check_synthetic(&s);
	ck_assert_uint_eq(s.part.count, 3);
	ck_assert(s.has_next);
	struct sw_part next = s.next;
	ck_assert_uint_eq(next.index, 1);
	ck_assert_uint_eq(next.count, 3);
	ck_assert_uint_eq(next.line, 15);
	sw_snapshot_free(&s);

	sw_err_clear(&err);
	ck_assert_int_eq(sw_microdump_read(tmp_path, &next, &s, &err), SW_ERR_CORRUPT);
	ck_assert_str_eq(s.sys.os_version, "cut");
	ck_assert_uint_eq(s.sys.cpu_count, 2);
	ck_assert_str_eq(s.problems[0], "line 17: a new microdump begins before the END line of the "
	                                "one begun on line 15: that one was cut");
	ck_assert(s.has_next);
	next = s.next;
	ck_assert_uint_eq(next.index, 2);
	ck_assert_uint_eq(next.line, 17);
	sw_snapshot_free(&s);

	sw_err_clear(&err);
	ck_assert_int_eq(sw_microdump_read(tmp_path, &next, &s, &err), SW_OK);
	check_synthetic(&s);
	ck_assert_uint_eq(s.part.index, 2);
	ck_assert(!s.has_next);
	sw_snapshot_free(&s);

	/* A part that no longer begins where it did: the log changed. */
	next.offset += 3;
	sw_err_clear(&err);
	ck_assert_int_eq(sw_microdump_read(tmp_path, &next, &s, &err), SW_ERR_FORMAT);
	ck_assert_msg(strstr(err.msg, "no microdump begins on line 17 (has the log changed?)"), "%s", err.msg);
	sw_snapshot_free(&s);
	unlink(tmp_path);
	free(t.buf);
}
END_TEST

START_TEST(test_log_without_a_microdump_is_refused)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("I/foo( 1): hello\nI/foo( 1): world\n", &s, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, ": no microdump in this log (no line "
	                                      "'-----BEGIN BREAKPAD MICRODUMP-----')"));
	sw_snapshot_free(&s);
	ck_assert_int_eq(read_str("F/google-breakpad( 1): M 1000 0 1000 00 a.so\n"
	                          "F/google-breakpad( 1): -----END BREAKPAD MICRODUMP-----\n",
	                          &s, &err),
	                 SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, ": no microdump begins in this log: it holds only the "
	                                      "end of one (line 2), whose BEGIN line is not in the file"));
	sw_snapshot_free(&s);
	ck_assert_int_eq(read_str("", &s, &err), SW_ERR_FORMAT);
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Damaged records --------------------------------------------------------------- */

/* A lost S line: two regions, and the gap is named. */
START_TEST(test_stack_gap_gives_two_regions_and_is_damage)
{
	struct mtext t;
	mt_init(&t, PREFIX_BRIEF);
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----");
	mt_line(&t, "O A arm 01 armv7l x");
	mt_line(&t, "S 0 %08X %08X %08X", T_SP, T_STACK, 0x300);
	stack_chunk(&t, T_STACK, 0x100);
	stack_chunk(&t, T_STACK + 0x200, 0x100);
	stack_chunk(&t, T_STACK + 0x280, 0x80); /* overlaps the one before */
	mt_line(&t, "-----END BREAKPAD MICRODUMP-----");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_text(t.buf, t.len, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nmem, 2);
	ck_assert_uint_eq(s.mem[0].base, T_STACK);
	ck_assert_uint_eq(s.mem[0].size, 0x100);
	ck_assert_uint_eq(s.mem[1].base, T_STACK + 0x200);
	ck_assert_uint_eq(s.mem[1].size, 0x100);
	ck_assert_uint_eq(s.threads[0].stack_base, T_STACK);
	ck_assert_uint_eq(s.threads[0].stack_size, 0x300);
	uint8_t b;
	ck_assert(!sw_mem_read(&s, T_STACK + 0x150, &b, 1));
	ck_assert(sw_mem_read(&s, T_STACK + 0x2ff, &b, 1));
	ck_assert_uint_eq(b, 0xff);
	ck_assert(has_problem(&s, "line 5: S line at 0x7f000200: the 0x100 bytes of stack before it "
	                          "are missing"));
	ck_assert(has_problem(&s, "line 6: S line at 0x7f000280: overlaps the chunk before it, which "
	                          "ends at 0x7f000300: ignored"));
	ck_assert(has_problem(&s, "the S 0 line announced 0x300 bytes of stack from 0x7f000000; the "
	                          "S lines hold 0x200"));
	ck_assert(has_problem(&s, "no C line"));
	sw_snapshot_free(&s);
	free(t.buf);
}
END_TEST

START_TEST(test_stack_chunk_with_non_hex_keeps_the_bytes_before_it)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\n"
	                          "O L arm 01 armv7l x\n"
	                          "S 1000 0102030405X60708\n"
	                          "S 1005 0A0B0\n"
	                          "S zz 0102\n"
	                          "S 2000 0102 0304\n"
	                          "S 0 1 2\n"
	                          "-----END BREAKPAD MICRODUMP-----\n",
	                          &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_str_eq(s.sys.os_name, "Linux");
	ck_assert_uint_eq(s.nmem, 2);
	ck_assert_uint_eq(s.mem[0].base, 0x1000);
	ck_assert_uint_eq(s.mem[0].size, 7);
	ck_assert_uint_eq(s.mem[0].data[4], 0x05);
	ck_assert_uint_eq(s.mem[0].data[6], 0x0b);
	ck_assert_uint_eq(s.mem[1].base, 0x2000);
	ck_assert_uint_eq(s.mem[1].size, 2); /* the second word of the line is not read */
	ck_assert(has_problem(&s, "line 3: S line at 0x1000: not hex after 5 bytes: the chunk is cut "
	                          "there"));
	ck_assert(has_problem(&s, "line 4: S line at 0x1005: not hex after 2 bytes"));
	ck_assert(has_problem(&s, "line 5: S line: address 'zz' is not hex: chunk ignored"));
	ck_assert(has_problem(&s, "line 7: S 0 line: the stack pointer, start and length must be hex "
	                          "numbers, the stack inside the address space: ignored"));
	sw_snapshot_free(&s);
}
END_TEST

/* Numbers far beyond the file's size allocate nothing: arrays are sized by
 * what the lines hold. */
START_TEST(test_huge_numbers_allocate_nothing_and_are_reported)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\n"
	                          "O A arm 1FF armv7l x\n"
	                          "S 0 FFFFFFFFFFFFFFF0 FFFFFFFFFFFFFFF0 FFFFFFFFFFFFFFFF\n"
	                          "S 0 0 0 FFFFFFFFFFFFFFFF\n"
	                          "S FFFFFFFFFFFFFFFF 0102\n"
	                          "S FFFFFFFFFFFFFFFF0 01\n"
	                          "M FFFFFFFFFFFFF000 0 2000 00 huge.so\n"
	                          "M 1000 0 0 00 empty.so\n"
	                          "M 1000 0 1000 00\n"
	                          "M 1000 0 10000000000000000 00 big.so\n"
	                          "R FFFFFFFFF SIGSEGV 0\n"
	                          "-----END BREAKPAD MICRODUMP-----\n",
	                          &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.sys.cpu_count, 0);
	ck_assert(has_problem(&s, "warning: line 2: O line: CPU count '1FF' is not a hex byte"));
	ck_assert(has_problem(&s, "line 3: S 0 line: the stack pointer, start and length must be "
	                          "hex numbers, the stack inside the address space: ignored"));
	ck_assert(has_problem(&s, "line 5: S line at 0xffffffffffffffff: 2 bytes run past the end of "
	                          "the address space: ignored"));
	ck_assert(has_problem(&s, "line 6: S line: address 'FFFFFFFFFFFFFFFF0' is not hex"));
	ck_assert(has_problem(&s, "line 7: M line: huge.so at 0xfffffffffffff000: size 0x2000 runs "
	                          "past the end of the address space: module ignored"));
	ck_assert(has_problem(&s, "line 8: M line: empty.so at 0x1000: size 0x0 is empty"));
	ck_assert(has_problem(&s, "line 9: M line at 0x1000: no name: module ignored"));
	ck_assert(has_problem(&s, "line 10: M line: start, file offset and size must be hex numbers"));
	ck_assert(has_problem(&s, "line 11: R line: signal number 'FFFFFFFFF' is not a 32-bit hex "
	                          "number"));
	ck_assert_uint_eq(s.nmodules, 0);
	ck_assert_uint_eq(s.nmem, 0);
	ck_assert_uint_lt(s.arena.total, 1 << 20);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_module_debug_ids_are_checked)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\n"
	                          "O A arm 01 armv7l x\n"
	                          "M 1000 0 1000 0123456789ABCDEF0123456789ABCDEF a.so\n"
	                          "M 3000 0 1000 XYZ b.so\n"
	                          "M 5000 0 1000 0123456789ABCDEF0123456789ABCDEF0 c d.so\n"
	                          "-----END BREAKPAD MICRODUMP-----\n",
	                          &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nmodules, 3);
	ck_assert_str_eq(s.modules[0].debug_id, "0123456789ABCDEF0123456789ABCDEF");
	ck_assert(has_problem(&s, "warning: line 3: M line: a.so: debug id of 32 digits (Breakpad's "
	                          "have 33)"));
	ck_assert_ptr_null(s.modules[1].debug_id);
	ck_assert(has_problem(&s, "line 4: M line: b.so: debug id 'XYZ' is not hex: its symbols "
	                          "cannot be found"));
	/* Breakpad's reader takes the name's first word; so do we. */
	ck_assert_str_eq(s.modules[2].code_file, "c");
	sw_snapshot_free(&s);
}
END_TEST

/* Android's writer moves a module's start back to its load bias: starts
 * may reach into the module below, ends are exact. */
START_TEST(test_overlapping_modules_belong_to_the_one_that_ends_first)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\n"
	                          "O A arm 01 armv7l x\n"
	                          "C 06000040\n"
	                          "M 1000 0 2000 00 low.so\n"
	                          "M 2000 0 3000 00 high.so\n"
	                          "M 10000 0 10000 00 outer.so\n"
	                          "M 12000 0 1000 00 inner.so\n"
	                          "-----END BREAKPAD MICRODUMP-----\n",
	                          &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert(s.modules_by_end);
	ck_assert_int_eq(sw_module_at(&s, 0x1800), 0);
	ck_assert_int_eq(sw_module_at(&s, 0x2800), 0); /* low.so's last page */
	ck_assert_int_eq(sw_module_at(&s, 0x3000), 1);
	ck_assert_int_eq(sw_module_at(&s, 0x11000), 2);
	ck_assert_int_eq(sw_module_at(&s, 0x12800), 3);
	ck_assert_int_eq(sw_module_at(&s, 0x13000), 2);
	ck_assert_int_eq(sw_module_at(&s, 0x20000), -1);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_context_checks)
{
	char ctx[2 * ARM_CONTEXT_SIZE + 1], line[900];
	arm_context_hex(ctx, ARM_CONTEXT_SIZE);
	struct sw_snapshot s;
	struct sw_err err;

	/* An ARM context where the O line says arm64. */
	snprintf(line, sizeof line, "-----BEGIN BREAKPAD MICRODUMP-----\nO A arm64 01 x x\nC %s\n"
	                            "-----END BREAKPAD MICRODUMP-----\n", ctx);
	ck_assert_int_eq(read_str(line, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "line 3: C line: an MDRawContextARM, but the O line says arm64"));
	ck_assert_int_eq(s.threads[0].cpu, SW_CPU_ARM); /* walked as what it is */
	ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "pc"), T_PC);
	sw_snapshot_free(&s);

	/* Cut to 80 bytes: every register is still there. */
	arm_context_hex(ctx, 80);
	snprintf(line, sizeof line, "-----BEGIN BREAKPAD MICRODUMP-----\nO A arm 01 x x\nC %s\n"
	                            "-----END BREAKPAD MICRODUMP-----\n", ctx);
	ck_assert_int_eq(read_str(line, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "line 3: C line: 80 bytes, shorter than MDRawContextARM (368): the "
	                          "registers it holds are read"));
	ck_assert_uint_eq(reg(&s.threads[0].ctx, SW_CPU_ARM, "sp"), T_SP);
	sw_snapshot_free(&s);

	/* No O line: the context tells the CPU. */
	snprintf(line, sizeof line, "-----BEGIN BREAKPAD MICRODUMP-----\nC %s\n"
	                            "-----END BREAKPAD MICRODUMP-----\n", ctx);
	ck_assert_int_eq(read_str(line, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "no O line"));
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM);
	ck_assert_str_eq(s.sys.cpu_name, "arm");
	sw_snapshot_free(&s);

	/* Too short for any register, and not hex. */
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\nO A arm 01 x x\nC 0600004000Q\n"
	                          "-----END BREAKPAD MICRODUMP-----\n", &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "line 3: C line: not hex after 5 bytes: the context is cut there"));
	ck_assert(has_problem(&s, "line 3: C line: 5 bytes with flags 0x40000006 are no register "
	                          "context stackwalk knows"));
	ck_assert_uint_eq(s.threads[0].ctx.valid, 0);
	ck_assert(s.crash.present);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_os_line_cpus_and_oses)
{
	static const struct {
		const char *line;
		enum sw_cpu cpu;
		const char *name;
		unsigned word;
	} cases[] = {
		{ "O L x86_64 10 x86_64 5.15.0 #1 SMP", SW_CPU_AMD64, "amd64", 8 },
		{ "O L riscv64 02 riscv64 6.1", SW_CPU_RISCV64, "riscv64", 8 },
		{ "O A riscv32 02 riscv32 6.1", SW_CPU_RISCV32, "riscv32", 4 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, "-----BEGIN BREAKPAD MICRODUMP-----\n%s\n"
		                            "-----END BREAKPAD MICRODUMP-----\n", cases[i].line);
		struct sw_snapshot s;
		struct sw_err err;
		ck_assert_int_eq(read_str(text, &s, &err), SW_ERR_CORRUPT); /* no C line */
		ck_assert_int_eq(s.sys.cpu, cases[i].cpu);
		ck_assert_str_eq(s.sys.cpu_name, cases[i].name);
		ck_assert_uint_eq(s.sys.word_size, cases[i].word);
		sw_snapshot_free(&s);
	}
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\nO Q sparc 01\n"
	                          "-----END BREAKPAD MICRODUMP-----\n", &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_str_eq(s.sys.os_name, "Q");
	ck_assert_str_eq(s.sys.cpu_name, "sparc");
	ck_assert_str_eq(s.sys.os_version, "");
	ck_assert(has_problem(&s, "warning: line 2: O line: unknown OS 'Q' (A is Android, L Linux)"));
	ck_assert(has_problem(&s, "line 2: O line: unknown CPU architecture 'sparc'"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_gpu_and_crash_reason_lines)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\n"
	                          "G OpenGL ES 2.0 only\n"
	                          "R 0000000B SIGBUS DEADBEEF\n"
	                          "-----END BREAKPAD MICRODUMP-----\n",
	                          &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_str_eq(s.sys.gl_version, "OpenGL ES 2.0 only");
	ck_assert_str_eq(s.sys.gl_vendor, "");
	ck_assert_str_eq(s.sys.gl_renderer, "");
	ck_assert_uint_eq(s.crash.code, 11);
	ck_assert_uint_eq(s.crash.address, 0xdeadbeef);
	ck_assert(has_problem(&s, "warning: line 3: R line: signal 11 is SIGSEGV, not 'SIGBUS'"));
	sw_snapshot_free(&s);

	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\n"
	                          "G a|b|c|d\n"
	                          "R 00000006 SIGABRT nothex\n"
	                          "-----END BREAKPAD MICRODUMP-----\n",
	                          &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_str_eq(s.sys.gl_renderer, "c");
	ck_assert_uint_eq(s.crash.code, 6);
	ck_assert_uint_eq(s.crash.address, 0);
	ck_assert(has_problem(&s, "line 3: R line: crash address 'nothex' is not hex"));
	sw_snapshot_free(&s);
}
END_TEST

/* ---- As the outputs print it ---------------------------------------------------- */

static char *render(const struct sw_snapshot *s, bool machine)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	ck_assert_ptr_nonnull(f);
	if (machine)
		sw_output_machine(f, s, sw_arch_for_cpu(s->sys.cpu), NULL);
	else
		sw_output_text(f, s, sw_arch_for_cpu(s->sys.cpu), NULL);
	fclose(f);
	return text;
}

/* Breakpad's layout: the GL strings one per line, modules by their end. */
START_TEST(test_outputs_print_the_gpu_and_list_modules_by_end)
{
	struct mtext t;
	mt_init(&t, PREFIX_BRIEF);
	mt_line(&t, "-----BEGIN BREAKPAD MICRODUMP-----");
	mt_body(&t, NULL);
	mt_line(&t, "M 40001000 00000000 00001000 00112233445566778899AABBCCDDEEFF0 libin.so");
	mt_line(&t, "-----END BREAKPAD MICRODUMP-----");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_text(t.buf, t.len, &s, &err), SW_OK);
	char *text = render(&s, false);
	ck_assert_ptr_nonnull(strstr(text, "\nCPU: arm\n     4 CPUs\n\nGPU: OpenGL ES 3.2\n     ACME\n"
	                                   "     Renderer 9\n\nCrash reason:  SIGSEGV\n"
	                                   "Crash address: 0x10\n"));
	ck_assert_ptr_nonnull(strstr(text, "Loaded modules:\n"
	                                   "0x40001000 - 0x40001fff  libin.so  ???\n"
	                                   "0x40000000 - 0x4000ffff  libfoo.so  ???\n"
	                                   "0x50000000 - 0x50001fff  libbar.so  ???\n"));
	free(text);
	text = render(&s, true);
	ck_assert_ptr_nonnull(strstr(text, "\nGPU|OpenGL ES 3.2|ACME|Renderer 9\nCrash|SIGSEGV|0x10|"));
	ck_assert_ptr_nonnull(strstr(text, "\nModule|libin.so||libin.so|00112233445566778899AABBCCDDEEFF0|"
	                                   "0x40001000|0x40001fff|0\nModule|libfoo.so|"));
	free(text);
	sw_snapshot_free(&s);
	free(t.buf);
}
END_TEST

/* ---- Cut logs ------------------------------------------------------------------- */

/* Complete lines of `letter` records in text[0, n) (each ends in '\n'). */
static unsigned whole_lines(const char *text, size_t n, const char *record)
{
	unsigned count = 0;
	size_t rl = strlen(record);
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(text + i, '\n', n - i);
		if (!nl)
			break;
		const char *rec = strstr(text + i, "): ");
		if (rec && rec < nl && strncmp(rec + 3, record, rl) == 0)
			count++;
		i = (size_t)(nl - text) + 1;
	}
	return count;
}

/* The synthetic microdump cut at every byte: a cut BEGIN line is no
 * microdump; else damage is reported unless the END line is whole, every
 * whole M line gave its module, the stack holds each chunk's bytes up to
 * the cut, and the context is there once its registers are. */
START_TEST(test_cut_at_every_byte_keeps_what_is_intact)
{
	struct mtext t;
	mt_init(&t, PREFIX_BRIEF);
	mt_microdump(&t, NULL);
	const char *begin_end = strstr(t.buf, "-----\n") + 5;
	const char *end_marker = strstr(t.buf, "-----END BREAKPAD MICRODUMP-----");
	const char *c_line = strstr(t.buf, "): C ") + 5;
	for (size_t len = 0; len <= t.len; len++) {
		struct sw_snapshot s;
		struct sw_err err;
		enum sw_err_code rc = read_text(t.buf, len, &s, &err);
		if (len < (size_t)(begin_end - t.buf)) {
			ck_assert_int_eq(rc, SW_ERR_FORMAT);
			sw_snapshot_free(&s);
			continue;
		}
		bool whole = len >= (size_t)(end_marker - t.buf) + 32;
		ck_assert_msg(rc == (whole ? SW_OK : SW_ERR_CORRUPT), "len %zu: rc %d", len, rc);
		ck_assert_uint_eq(damage_count(&s) > 0, !whole);
		ck_assert_uint_eq(s.nmodules, whole_lines(t.buf, len, "M "));
		uint64_t stack = 0;
		bool pattern = true; /* the writer's bytes, where they were written */
		for (uint32_t i = 0; i < s.nmem; i++) {
			stack += s.mem[i].size;
			for (uint64_t k = 0; k < s.mem[i].size; k++)
				pattern &= s.mem[i].data[k] == (uint8_t)(s.mem[i].base + k);
		}
		ck_assert_msg(pattern, "len %zu", len);
		ck_assert_uint_le(stack, 0x200);
		if (len > (size_t)(c_line - t.buf))
			ck_assert_uint_eq(stack, 0x200);
		bool registers = len >= (size_t)(c_line - t.buf) + 2 * 72;
		ck_assert_msg(sw_reg_valid(&s.threads[0].ctx, sw_arch_for_cpu(SW_CPU_ARM)->pc) ==
		                      registers,
		              "len %zu", len);
		sw_snapshot_free(&s);
	}
	free(t.buf);
}
END_TEST

/* A module line the file ends inside is not read: its name or debug id may
 * have lost characters. */
START_TEST(test_module_line_cut_by_the_end_of_the_file_is_not_read)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_str("-----BEGIN BREAKPAD MICRODUMP-----\n"
	                          "M 1000 0 1000 0123456789ABCDEF0123456789ABCDEF0 libfo",
	                          &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nmodules, 0);
	ck_assert_str_eq(s.problems[0], "line 2: the file ends inside this M line: not read");
	ck_assert_str_eq(s.problems[1], "line 2: the log ends inside the microdump begun on line 1 "
	                                "(no END line): it was cut");
	sw_snapshot_free(&s);
}
END_TEST

static const char *const corpus_microdumps[] = {
	"microdump-arm.dmp", "microdump-arm64.dmp", "microdump-mips32.dmp",
	"microdump-mips64.dmp", "microdump-multiple.dmp", "microdump-withcrashreason.dmp",
	"microdump-x86.dmp",
};

static uint8_t *slurp(const char *name, size_t *n)
{
	char rel[128], path[512];
	snprintf(rel, sizeof rel, "breakpad/%s", name);
	FILE *f = fopen(corpus_path(path, sizeof path, rel), "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *d = malloc(*n);
	ck_assert(fread(d, 1, *n, f) == *n);
	fclose(f);
	return d;
}

/* Every real microdump cut at many points, every part of it read: never a
 * crash (the sanitizer build checks the reads), a sensible code, and never
 * more stack than the text can hold. */
START_TEST(test_cut_real_logs_never_crash)
{
	size_t n;
	uint8_t *d = slurp(corpus_microdumps[_i], &n);
	/* Every length through the first lines (BEGIN, V, O), then about 600
	 * cuts spread over the rest. */
	size_t step = n / 600 > 17 ? n / 600 : 17;
	for (size_t len = 0; len <= n; len += len < 1024 ? 1 : step) {
		write_tmp(d, len);
		struct sw_part next;
		bool more = true;
		for (uint32_t part = 0; more && part < 8; part++) {
			struct sw_snapshot s;
			struct sw_err err = { 0 };
			enum sw_err_code rc = sw_microdump_read(tmp_path, part ? &next : NULL, &s, &err);
			ck_assert_msg(rc == SW_OK || rc == SW_ERR_CORRUPT || rc == SW_ERR_FORMAT,
			              "len %zu: rc %d", len, rc);
			if (rc == SW_ERR_CORRUPT)
				ck_assert_uint_gt(damage_count(&s), 0);
			uint64_t stack = 0;
			for (uint32_t i = 0; i < s.nmem; i++)
				stack += s.mem[i].size;
			ck_assert_uint_le(stack, len / 2);
			more = s.has_next;
			next = s.next;
			sw_snapshot_free(&s);
		}
		unlink(tmp_path);
	}
	free(d);
}
END_TEST

/* Bytes of a real microdump overwritten at random: never a crash. */
START_TEST(test_corrupted_bytes_never_crash)
{
	size_t n;
	uint8_t *d = slurp("microdump-arm.dmp", &n);
	uint32_t seed = 4242;
	static const char alphabet[] = "0123456789ABCDEFSMCOGR \n:-|Zz\x00\xff";
	for (int round = 0; round < 400; round++) {
		uint8_t *c = malloc(n);
		memcpy(c, d, n);
		for (int k = 0; k < 12; k++) {
			seed = seed * 1103515245 + 12345;
			size_t pos = (seed >> 8) % n;
			seed = seed * 1103515245 + 12345;
			c[pos] = (uint8_t)alphabet[(seed >> 16) % (sizeof alphabet - 1)];
		}
		struct sw_snapshot s;
		struct sw_err err;
		enum sw_err_code rc = read_text((const char *)c, n, &s, &err);
		ck_assert(rc == SW_OK || rc == SW_ERR_CORRUPT || rc == SW_ERR_FORMAT);
		sw_snapshot_free(&s);
		free(c);
	}
	free(d);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("microdump");
	TCase *t = tcase_create("corpus");
	tcase_add_test(t, test_corpus_arm_brief_prefix);
	tcase_add_test(t, test_corpus_arm64_old_context_layout);
	tcase_add_test(t, test_corpus_mips32);
	tcase_add_test(t, test_corpus_mips64_threadtime_prefix);
	tcase_add_test(t, test_corpus_x86);
	tcase_add_test(t, test_corpus_withcrashreason_every_part);
	tcase_add_test(t, test_corpus_multiple_reads_each_and_reports_the_cut_one);
	tcase_add_test(t, test_open_recognises_microdump_logs_by_content);
	suite_add_tcase(s, t);

	t = tcase_create("lines");
	tcase_add_loop_test(t, test_reads_the_same_behind_every_logcat_prefix, PREFIX_NONE,
	                    PREFIX_BRIEF_CRLF + 1);
	tcase_add_test(t, test_other_log_lines_between_records_are_skipped);
	tcase_add_test(t, test_logcat_long_format_headers_are_skipped);
	tcase_add_test(t, test_garbage_lines_are_warnings_and_the_rest_is_read);
	tcase_add_test(t, test_repeated_records_keep_the_first_with_a_warning);
	tcase_add_test(t, test_several_microdumps_are_read_one_after_another);
	tcase_add_test(t, test_log_without_a_microdump_is_refused);
	suite_add_tcase(s, t);

	t = tcase_create("records");
	tcase_add_test(t, test_stack_gap_gives_two_regions_and_is_damage);
	tcase_add_test(t, test_stack_chunk_with_non_hex_keeps_the_bytes_before_it);
	tcase_add_test(t, test_huge_numbers_allocate_nothing_and_are_reported);
	tcase_add_test(t, test_module_debug_ids_are_checked);
	tcase_add_test(t, test_overlapping_modules_belong_to_the_one_that_ends_first);
	tcase_add_test(t, test_context_checks);
	tcase_add_test(t, test_os_line_cpus_and_oses);
	tcase_add_test(t, test_gpu_and_crash_reason_lines);
	tcase_add_test(t, test_outputs_print_the_gpu_and_list_modules_by_end);
	suite_add_tcase(s, t);

	t = tcase_create("robustness");
	tcase_set_timeout(t, 600);
	tcase_add_test(t, test_cut_at_every_byte_keeps_what_is_intact);
	tcase_add_test(t, test_module_line_cut_by_the_end_of_the_file_is_not_read);
	tcase_add_loop_test(t, test_cut_real_logs_never_crash, 0,
	                    (int)(sizeof corpus_microdumps / sizeof corpus_microdumps[0]));
	tcase_add_test(t, test_corrupted_bytes_never_crash);
	suite_add_tcase(s, t);
	return s;
}
