/* stackwalk convert (formats/snap_convert.c): a snapshot built in a few
 * lines, converted into memory and read back by the .snap reader; what a
 * walk uses must come back as it was (registers in the arch's numbering,
 * module identity and load bias, crash, the stacks of the threads written). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/registry.h"
#include "formats/snap.h"
#include "formats/snap_convert.h"
#include "fuzz_memfd.h"

/* ---- Helpers ----------------------------------------------------------- */

struct sink {
	uint8_t *data;
	size_t len, cap;
};

static int sink_write(void *ctx, const void *bytes, size_t n)
{
	struct sink *s = ctx;
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->data = realloc(s->data, s->cap);
		ck_assert_ptr_nonnull(s->data);
	}
	memcpy(s->data + s->len, bytes, n);
	s->len += n;
	return 0;
}

/* A converted snapshot, read back. */
struct back {
	struct sink out;
	int fd;
	char path[FUZZ_PATH_MAX];
	struct sw_snapshot snap;
};

static void convert_and_read(const struct sw_snapshot *in, bool all_threads, struct back *b)
{
	memset(b, 0, sizeof *b);
	struct sw_err err = { 0 };
	struct sw_snap_convert_options o = { .all_threads = all_threads };
	ck_assert_int_eq(sw_snap_convert(in, &o, sink_write, &b->out, &err), SW_OK);
	b->fd = fuzz_memfd("test_convert", b->out.data, b->out.len, b->path);
	ck_assert_int_ge(b->fd, 0);
	ck_assert_int_eq(sw_snap_read(b->path, NULL, &b->snap, &err), SW_OK);
	ck_assert_uint_eq(b->snap.nproblems, 0);
}

static void back_free(struct back *b)
{
	sw_snapshot_free(&b->snap);
	close(b->fd);
	free(b->out.data);
}

static uint8_t stack_a[256], stack_b[256], code[64];

/* A Windows x86 crash: thread 7 crashed (the exception's context differs
 * from the thread's, as in a minidump), thread 9 waits; each has its
 * stack, and the dump holds code bytes around the pc. */
static void windows_crash(struct sw_snapshot *s)
{
	sw_snapshot_init(s, "crash.dmp");
	s->format = "minidump";
	s->sys = (struct sw_system_info){ .os = SW_OS_WINDOWS, .os_name = "Windows NT",
	                                  .os_version = "10.0.19041", .cpu = SW_CPU_X86,
	                                  .cpu_name = "x86", .word_size = 4 };
	const struct sw_arch *a = sw_arch_for_cpu(SW_CPU_X86);
	ck_assert_ptr_nonnull(a);
	s->threads = sw_arena_array(&s->arena, 2, sizeof *s->threads);
	s->threads[0] = (struct sw_thread){ .id = 7, .stack_base = 0x1000, .stack_size = 256 };
	s->threads[1] = (struct sw_thread){ .id = 9, .name = "worker", .stack_base = 0x8000,
	                                    .stack_size = 256 };
	sw_reg_set(&s->threads[0].ctx, a->sp, 0x1080); /* a stale one: the exception's wins */
	sw_reg_set(&s->threads[1].ctx, a->sp, 0x8010);
	sw_reg_set(&s->threads[1].ctx, a->pc, 0x401010);
	s->nthreads = 2;
	s->crash.present = true;
	s->crash.thread_id = 7;
	s->crash.code = 0xc0000005;
	s->crash.address = 0x10;
	sw_reg_set(&s->crash.ctx, a->sp, 0x1020);
	sw_reg_set(&s->crash.ctx, a->pc, 0x401005);
	sw_reg_set(&s->crash.ctx, 5 /* ebp */, 0x1040);
	s->mem = sw_arena_array(&s->arena, 3, sizeof *s->mem);
	s->mem[0] = (struct sw_mem_region){ 0x1000, sizeof stack_a, stack_a };
	s->mem[1] = (struct sw_mem_region){ 0x8000, sizeof stack_b, stack_b };
	s->mem[2] = (struct sw_mem_region){ 0x401000, sizeof code, code };
	s->nmem = 3;
	s->modules = sw_arena_array(&s->arena, 1, sizeof *s->modules);
	s->modules[0] = (struct sw_module){ .base = 0x400000, .size = 0x10000,
	                                    .code_file = "C:\\app\\app.exe",
	                                    .code_id = "5A2B3C4D10000", .debug_file = "app.pdb",
	                                    .debug_id = "0123456789ABCDEF0123456789ABCDEF1",
	                                    .version = "1.2.3.4", .load_bias = 0x20 };
	s->nmodules = 1;
	for (size_t i = 0; i < sizeof stack_a; i++) {
		stack_a[i] = (uint8_t)i;
		stack_b[i] = (uint8_t)~i;
	}
	memset(code, 0x90, sizeof code);
	sw_snapshot_finish(s);
}

/* ---- Tests ------------------------------------------------------------- */

START_TEST(test_the_crashing_thread_starts_from_the_exceptions_context)
{
	struct sw_snapshot in;
	windows_crash(&in);
	struct back b;
	convert_and_read(&in, false, &b);
	const struct sw_snapshot *s = &b.snap;
	const struct sw_arch *a = sw_arch_for_cpu(SW_CPU_X86);
	ck_assert_uint_eq(s->nthreads, 1);
	ck_assert_uint_eq(s->threads[0].id, 7);
	ck_assert_uint_eq(s->threads[0].ctx.valid, in.crash.ctx.valid);
	ck_assert_uint_eq(sw_reg_get(&s->threads[0].ctx, a->pc), 0x401005);
	ck_assert_uint_eq(sw_reg_get(&s->threads[0].ctx, a->sp), 0x1020);
	ck_assert_uint_eq(sw_reg_get(&s->threads[0].ctx, 5), 0x1040);
	ck_assert_uint_eq(s->threads[0].stack_base, 0x1000);
	ck_assert_uint_eq(s->threads[0].stack_size, 256);
	ck_assert(s->crash.present);
	ck_assert_uint_eq(s->crash.thread_id, 7);
	ck_assert_uint_eq(s->crash.code, 0xc0000005);
	ck_assert_uint_eq(s->crash.address, 0x10);
	ck_assert_int_eq(s->sys.os, SW_OS_WINDOWS);
	ck_assert_str_eq(s->sys.os_version, "10.0.19041");
	back_free(&b);
	sw_snapshot_free(&in);
}
END_TEST

START_TEST(test_another_threads_stack_stays_out_unless_all_threads)
{
	struct sw_snapshot in;
	windows_crash(&in);
	struct back b;
	uint8_t byte;
	convert_and_read(&in, false, &b);
	ck_assert(sw_mem_read(&b.snap, 0x1000 + 200, &byte, 1) && byte == 200);
	ck_assert(sw_mem_read(&b.snap, 0x401000, &byte, 1) && byte == 0x90); /* code bytes go along */
	ck_assert(!sw_mem_read(&b.snap, 0x8000, &byte, 1));
	back_free(&b);
	convert_and_read(&in, true, &b);
	ck_assert_uint_eq(b.snap.nthreads, 2);
	ck_assert_uint_eq(b.snap.threads[1].id, 9);
	ck_assert_str_eq(b.snap.threads[1].name, "worker");
	ck_assert(sw_mem_read(&b.snap, 0x8000 + 3, &byte, 1) && byte == (uint8_t)~3);
	back_free(&b);
	sw_snapshot_free(&in);
}
END_TEST

/* A Windows module is found by its PDB name and GUID, not a build-id; its
 * load bias is the input's, and a minidump's scanned frames need no proof
 * from code bytes (Breakpad's rule), unlike a device's .snap. */
START_TEST(test_a_windows_module_keeps_its_pdb_identity_and_load_bias)
{
	struct sw_snapshot in;
	windows_crash(&in);
	struct back b;
	convert_and_read(&in, false, &b);
	const struct sw_module *m = &b.snap.modules[0];
	ck_assert_uint_eq(b.snap.nmodules, 1);
	ck_assert_uint_eq(m->base, 0x400000);
	ck_assert_uint_eq(m->size, 0x10000);
	ck_assert_str_eq(m->code_file, "C:\\app\\app.exe");
	ck_assert_str_eq(m->code_id, "5A2B3C4D10000");
	ck_assert_str_eq(m->debug_file, "app.pdb");
	ck_assert_str_eq(m->debug_id, "0123456789ABCDEF0123456789ABCDEF1");
	ck_assert_str_eq(m->version, "1.2.3.4");
	ck_assert_uint_eq(m->load_bias, 0x20);
	ck_assert(!b.snap.scans_need_code);
	back_free(&b);
	sw_snapshot_free(&in);
}
END_TEST

/* An ELF module's code id is its build-id: it goes in the version-1 field,
 * so a reader without the converter's fields finds the same symbols. */
START_TEST(test_an_elf_modules_build_id_is_written_as_one)
{
	struct sw_snapshot in;
	windows_crash(&in);
	in.sys.os = SW_OS_LINUX;
	in.scans_need_code = true;
	in.modules[0] = (struct sw_module){ .base = 0x400000, .size = 0x1000, .code_file = "/bin/app",
	                                    .code_id = "00112233445566778899aabbccddeeff01020304",
	                                    .debug_file = "app",
	                                    .debug_id = "33221100554477668899AABBCCDDEEFF0" };
	struct back b;
	convert_and_read(&in, false, &b);
	/* The build-id blob: after base, size and bias, its u16 length. */
	const uint8_t *p = memmem(b.out.data, b.out.len, "\x14\0\x00\x11\x22\x33", 6);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(b.snap.modules[0].code_id, in.modules[0].code_id);
	ck_assert_str_eq(b.snap.modules[0].debug_id, in.modules[0].debug_id);
	ck_assert(b.snap.scans_need_code);
	ck_assert_int_eq(b.snap.crash.code, 0xc0000005);
	back_free(&b);
	sw_snapshot_free(&in);
}
END_TEST

/* A Cortex-M thread's exception and fault registers are the Cortex-M
 * set's; the reader gives back the same extra registers and cpsr. */
START_TEST(test_a_cortex_m_threads_registers_go_in_the_cortex_m_set)
{
	struct sw_snapshot in;
	sw_snapshot_init(&in, "fw.core");
	in.sys = (struct sw_system_info){ .os = SW_OS_NONE, .cpu = SW_CPU_ARM, .cpu_name = "arm",
	                                  .word_size = 4, .arm_profile = 'M',
	                                  .processor_level = 7 };
	static const struct sw_named_reg extra[] = {
		{ "xpsr", 0x21000003 }, { "msp", 0x20001000 }, { "exc_return", 0xfffffff9 },
		{ "cfsr", 0x100 },
	};
	in.threads = sw_arena_array(&in.arena, 1, sizeof *in.threads);
	in.threads[0] = (struct sw_thread){ .id = 1, .extra_regs = extra, .nextra_regs = 4 };
	for (unsigned i = 0; i < 16; i++)
		sw_reg_set(&in.threads[0].ctx, i, 0x1000 + i);
	in.nthreads = 1;
	in.crash = (struct sw_crash){ .present = true, .thread_id = 1, .code = 3, .flags = 0x100 };
	sw_snapshot_finish(&in);
	struct back b;
	convert_and_read(&in, false, &b);
	const struct sw_thread *t = &b.snap.threads[0];
	uint64_t v;
	ck_assert_int_eq(b.snap.sys.arm_profile, 'M');
	ck_assert_uint_eq(b.snap.sys.processor_level, 7);
	for (unsigned i = 0; i < 16; i++)
		ck_assert_uint_eq(sw_reg_get(&t->ctx, i), 0x1000 + i);
	ck_assert_uint_eq(t->nextra_regs, 4);
	ck_assert(sw_thread_extra_reg(t, "msp", &v) && v == 0x20001000);
	ck_assert(sw_thread_extra_reg(t, "exc_return", &v) && v == 0xfffffff9);
	ck_assert(sw_thread_extra_reg(t, "cfsr", &v) && v == 0x100);
	ck_assert(sw_thread_extra_reg(t, "xpsr", &v) && v == 0x21000003);
	ck_assert_uint_eq(b.snap.crash.flags, 0x100);
	back_free(&b);
	sw_snapshot_free(&in);
}
END_TEST

START_TEST(test_large_memory_is_compressed)
{
	struct sw_snapshot in;
	windows_crash(&in);
	static uint8_t zeros[1 << 20];
	in.mem[1] = (struct sw_mem_region){ 0x100000, sizeof zeros, zeros };
	sw_snapshot_finish(&in);
	struct back b;
	convert_and_read(&in, true, &b);
	ck_assert_uint_lt(b.out.len, sizeof zeros / 64);
	uint8_t byte = 1;
	ck_assert(sw_mem_read(&b.snap, 0x100000 + sizeof zeros - 1, &byte, 1) && byte == 0);
	back_free(&b);
	sw_snapshot_free(&in);
}
END_TEST

START_TEST(test_a_cpu_without_a_snap_id_is_refused_naming_the_file)
{
	struct sw_snapshot in;
	sw_snapshot_init(&in, "sparc.core");
	in.sys.cpu = SW_CPU_SPARC;
	in.sys.cpu_name = "sparc64";
	struct sink out = { 0 };
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snap_convert(&in, NULL, sink_write, &out, &err), SW_ERR_UNSUPPORTED);
	ck_assert_str_eq(err.msg, "sparc.core: CPU 'sparc64' has no .snap CPU id");
	ck_assert_uint_eq(out.len, 0);
	free(out.data);
	sw_snapshot_free(&in);
}
END_TEST

Suite *test_suite(void);

Suite *test_suite(void)
{
	Suite *s = suite_create("convert");
	TCase *t = tcase_create("round_trip");
	tcase_add_test(t, test_the_crashing_thread_starts_from_the_exceptions_context);
	tcase_add_test(t, test_another_threads_stack_stays_out_unless_all_threads);
	tcase_add_test(t, test_a_windows_module_keeps_its_pdb_identity_and_load_bias);
	tcase_add_test(t, test_an_elf_modules_build_id_is_written_as_one);
	tcase_add_test(t, test_a_cortex_m_threads_registers_go_in_the_cortex_m_set);
	tcase_add_test(t, test_large_memory_is_compressed);
	tcase_add_test(t, test_a_cpu_without_a_snap_id_is_refused_naming_the_file);
	suite_add_tcase(s, t);
	return s;
}
