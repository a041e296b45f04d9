/* The minidump reader: synthetic dumps built in memory for each stream,
 * CodeView form, context layout and kind of damage; exact values from the
 * real corpus checked against Breakpad's and rust-minidump's references;
 * and every prefix of real dumps read without a crash. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/registry.h"
#include "formats/minidump.h"
#include "lib/span.h"
#include "testutil.h"

/* ---- A small minidump builder ------------------------------------------ */

enum { MDB_MAX_STREAMS = 24, MDB_DIR_RVA = 32 };

struct mdb {
	uint8_t *buf;
	size_t len, cap;
	uint32_t nstreams;
	uint32_t version;
	struct {
		uint32_t type, size, rva;
	} dir[MDB_MAX_STREAMS];
};

/* The byte order put16/put32/put64 write, for the dump being built: a
 * big-endian writer (Breakpad's on a PowerPC Mac) stores every integer,
 * the header's signature and its process's memory in big-endian order.
 * mdb_init resets it to little-endian; mdb_init_big_endian sets it. */
static bool put_big_endian;

static void put_uint(uint8_t *p, size_t off, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[off + (put_big_endian ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, size_t off, uint16_t v)
{
	put_uint(p, off, v, 2);
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
	put_uint(p, off, v, 4);
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	put_uint(p, off, v, 8);
}

static void mdb_init(struct mdb *b)
{
	put_big_endian = false;
	memset(b, 0, sizeof *b);
	b->version = 0xa793;
	b->cap = 4096;
	b->buf = calloc(1, b->cap);
	/* Header and a directory of MDB_MAX_STREAMS entries come first. */
	b->len = MDB_DIR_RVA + 12 * MDB_MAX_STREAMS;
}

/* mdb_init for a dump written by a big-endian host. */
static void mdb_init_big_endian(struct mdb *b, bool big_endian)
{
	mdb_init(b);
	put_big_endian = big_endian;
}

/* Appends n bytes (4-aligned) and returns their RVA. */
static uint32_t mdb_add(struct mdb *b, const void *data, size_t n)
{
	b->len = (b->len + 3) & ~(size_t)3;
	while (b->len + n > b->cap) {
		b->buf = realloc(b->buf, b->cap * 2);
		memset(b->buf + b->cap, 0, b->cap);
		b->cap *= 2;
	}
	uint32_t rva = (uint32_t)b->len;
	if (data)
		memcpy(b->buf + b->len, data, n);
	else
		memset(b->buf + b->len, 0, n);
	b->len += n;
	return rva;
}

static void mdb_stream_at(struct mdb *b, uint32_t type, uint32_t rva, uint32_t size)
{
	ck_assert_uint_lt(b->nstreams, MDB_MAX_STREAMS);
	b->dir[b->nstreams].type = type;
	b->dir[b->nstreams].rva = rva;
	b->dir[b->nstreams].size = size;
	b->nstreams++;
}

static void mdb_stream(struct mdb *b, uint32_t type, const void *data, size_t n)
{
	mdb_stream_at(b, type, mdb_add(b, data, n), (uint32_t)n);
}

/* MINIDUMP_STRING from ASCII or UTF-8 given as UTF-16 units. */
static uint32_t mdb_string16(struct mdb *b, const uint16_t *units, size_t n)
{
	uint8_t *tmp = calloc(1, 4 + 2 * n + 2);
	put32(tmp, 0, (uint32_t)(2 * n));
	for (size_t i = 0; i < n; i++)
		put16(tmp, 4 + 2 * i, units[i]);
	uint32_t rva = mdb_add(b, tmp, 4 + 2 * n + 2);
	free(tmp);
	return rva;
}

static uint32_t mdb_string(struct mdb *b, const char *s)
{
	uint16_t units[256];
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		units[i] = (uint8_t)s[i];
	return mdb_string16(b, units, n);
}

/* Crashpad's MinidumpUTF8String. */
static uint32_t mdb_utf8(struct mdb *b, const char *s)
{
	uint8_t tmp[256] = { 0 };
	size_t n = strlen(s);
	put32(tmp, 0, (uint32_t)n);
	memcpy(tmp + 4, s, n);
	return mdb_add(b, tmp, 4 + n + 1);
}

static void mdb_finish(struct mdb *b)
{
	put32(b->buf, 0, 0x504d444d);
	put32(b->buf, 4, b->version);
	put32(b->buf, 8, b->nstreams);
	put32(b->buf, 12, MDB_DIR_RVA);
	put32(b->buf, 20, 0x5f000000);
	for (uint32_t i = 0; i < b->nstreams; i++) {
		put32(b->buf, MDB_DIR_RVA + 12 * i, b->dir[i].type);
		put32(b->buf, MDB_DIR_RVA + 12 * i + 4, b->dir[i].size);
		put32(b->buf, MDB_DIR_RVA + 12 * i + 8, b->dir[i].rva);
	}
}

static char tmp_path[64];

static void write_file(const uint8_t *data, size_t n)
{
	snprintf(tmp_path, sizeof tmp_path, "/tmp/sw_md_test_XXXXXX");
	int fd = mkstemp(tmp_path);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, data, n) == (ssize_t)n);
	close(fd);
}

/* Writes the bytes to a temp file and reads it; the file is unlinked at
 * once (the mapping keeps it alive). */
static enum sw_err_code read_bytes(const uint8_t *data, size_t n, struct sw_snapshot *s,
                                   struct sw_err *err)
{
	write_file(data, n);
	sw_err_clear(err);
	enum sw_err_code rc = sw_minidump_read(tmp_path, s, err);
	unlink(tmp_path);
	return rc;
}

static enum sw_err_code mdb_read(struct mdb *b, struct sw_snapshot *s, struct sw_err *err)
{
	mdb_finish(b);
	enum sw_err_code rc = read_bytes(b->buf, b->len, s, err);
	free(b->buf);
	b->buf = NULL;
	return rc;
}

static bool has_problem(const struct sw_snapshot *s, const char *needle)
{
	for (uint32_t i = 0; i < s->nproblems; i++)
		if (strstr(s->problems[i], needle))
			return true;
	return false;
}

static int reg(enum sw_cpu cpu, const char *name)
{
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	ck_assert_ptr_nonnull(a);
	int i = sw_arch_reg_index(a, name, strlen(name));
	ck_assert_int_ge(i, 0);
	return i;
}

/* SystemInfo for a CPU/OS pair, with an optional CSD string. */
static void add_system_info(struct mdb *b, uint16_t arch, uint32_t platform, const char *csd)
{
	uint8_t si[56] = { 0 };
	put16(si, 0, arch);
	put16(si, 2, 6);         /* level */
	put16(si, 4, 0x0d08);    /* model 13 stepping 8 */
	si[6] = 2;               /* processors */
	put32(si, 8, 5);
	put32(si, 12, 1);
	put32(si, 16, 2600);
	put32(si, 20, platform);
	if (csd)
		put32(si, 24, mdb_string(b, csd));
	memcpy(si + 32, "GenuineIntel", 12);
	mdb_stream(b, 7, si, sizeof si);
}

/* ---- Header and directory ---------------------------------------------- */

START_TEST(test_rejects_file_without_signature)
{
	uint8_t junk[64] = "ELF and friends";
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_bytes(junk, sizeof junk, &s, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a minidump (bad signature)"));
	ck_assert_ptr_nonnull(strstr(err.msg, "/tmp/sw_md_test_"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_rejects_truncated_header)
{
	uint8_t head[16] = { 'M', 'D', 'M', 'P', 0x93, 0xa7 };
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_bytes(head, sizeof head, &s, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "header truncated"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_rejects_unknown_version)
{
	struct mdb b;
	mdb_init(&b);
	b.version = 0x1234;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown version 0x1234"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_missing_file_is_io_error)
{
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_minidump_read("/nonexistent/crash.dmp", &s, &err), SW_ERR_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/crash.dmp"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_magic_check)
{
	ck_assert(sw_minidump_is((const uint8_t *)"MDMP\x93\xa7", 6));
	/* The same signature written by a big-endian host. */
	ck_assert(sw_minidump_is((const uint8_t *)"PMDM\0\0\xa7\x93", 8));
	ck_assert(!sw_minidump_is((const uint8_t *)"PMDX", 4));
	ck_assert(!sw_minidump_is((const uint8_t *)"MDM", 3));
	ck_assert(!sw_minidump_is((const uint8_t *)"\x7f" "ELF", 4));
	ck_assert(!sw_minidump_is(NULL, 0));
}
END_TEST

START_TEST(test_header_time_and_empty_dump_without_threads_is_a_problem)
{
	struct mdb b;
	mdb_init(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.dump_time, 0x5f000000);
	ck_assert(has_problem(&s, "no thread list"));
	ck_assert_str_eq(s.format, "minidump");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_stream_outside_file_is_a_problem_and_the_rest_is_read)
{
	struct mdb b;
	mdb_init(&b);
	mdb_stream_at(&b, 4, 0x7fffff00, 400);  /* module list far away */
	add_system_info(&b, 0, 2, NULL);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "module list stream at 0x7fffff00"));
	ck_assert_ptr_nonnull(strstr(err.msg, "module list stream"));
	ck_assert_int_eq(s.sys.cpu, SW_CPU_X86);
	ck_assert_uint_eq(s.nmodules, 0);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_directory_past_end_reads_the_entries_that_fit)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 9, 0x8201, "x");
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	mdb_finish(&b);
	put32(b.buf, 8, 0x10000000);  /* stream count far beyond the file */
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_bytes(b.buf, b.len, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "stream directory"));
	ck_assert_int_eq(s.sys.cpu, SW_CPU_AMD64);
	free(b.buf);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_duplicate_stream_uses_the_first)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	add_system_info(&b, 9, 0x8201, NULL);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_X86);
	ck_assert_str_eq(s.sys.os_name, "Windows NT");
	sw_snapshot_free(&s);
}
END_TEST

/* ---- SystemInfo, MiscInfo --------------------------------------------- */

START_TEST(test_system_info_windows_x86_strings_match_breakpad)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, "Service Pack 2");
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.os, SW_OS_WINDOWS);
	ck_assert_str_eq(s.sys.os_name, "Windows NT");
	ck_assert_str_eq(s.sys.os_version, "5.1.2600 Service Pack 2");
	ck_assert_str_eq(s.sys.cpu_name, "x86");
	ck_assert_str_eq(s.sys.cpu_info, "GenuineIntel family 6 model 13 stepping 8");
	ck_assert_str_eq(s.sys.cpu_vendor, "GenuineIntel");
	ck_assert_uint_eq(s.sys.cpu_count, 2);
	ck_assert_uint_eq(s.sys.word_size, 4);
	ck_assert(!s.sys.big_endian);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_system_info_amd64_prints_no_vendor_and_empty_csd_keeps_the_space)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 9, 2, "");
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.cpu_name, "amd64");
	ck_assert_str_eq(s.sys.cpu_info, "family 6 model 13 stepping 8");
	ck_assert_str_eq(s.sys.os_version, "5.1.2600 ");  /* as Breakpad prints */
	ck_assert_uint_eq(s.sys.word_size, 8);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_system_info_arm_cpu_info_names_vendor_part_and_features)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t si[56] = { 0 };
	put16(si, 0, 5);
	put16(si, 2, 7);
	si[6] = 4;
	put32(si, 20, 0x8203);
	put32(si, 32, 0x413fc090);  /* ARM Cortex-A9 r3p0 */
	put32(si, 36, 0x3 | 0x1000); /* swp, half, neon */
	mdb_stream(&b, 7, si, sizeof si);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.os, SW_OS_ANDROID);
	ck_assert_str_eq(s.sys.os_name, "Android");
	ck_assert_str_eq(s.sys.os_version, "0.0.0");
	ck_assert_str_eq(s.sys.cpu_info, "ARMv7 ARM Cortex-A9 features: swp,half,neon");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_system_info_platform_and_cpu_ids)
{
	static const struct {
		uint32_t platform;
		enum sw_os os;
		const char *os_name;
		uint16_t arch;
		enum sw_cpu cpu;
		const char *cpu_name;
		uint8_t word;
	} cases[] = {
		{ 0x8101, SW_OS_MACOS, "Mac OS X", 12, SW_CPU_ARM64, "arm64", 8 },
		{ 0x8102, SW_OS_IOS, "iOS", 0x8003, SW_CPU_ARM64, "arm64", 8 },
		{ 0x8201, SW_OS_LINUX, "Linux", 1, SW_CPU_MIPS, "mips", 4 },
		{ 0x8202, SW_OS_SOLARIS, "Solaris", 0x8001, SW_CPU_SPARC, "sparc", 8 },
		{ 0x8204, SW_OS_PS3, "PS3", 3, SW_CPU_PPC, "ppc", 4 },
		{ 0x8205, SW_OS_NACL, "NaCl", 0x8002, SW_CPU_PPC64, "ppc64", 8 },
		{ 0x8206, SW_OS_FUCHSIA, "Fuchsia", 0x8004, SW_CPU_MIPS64, "mips64", 8 },
		{ 0x8201, SW_OS_LINUX, "Linux", 0x8005, SW_CPU_RISCV32, "riscv32", 4 },
		{ 0x8201, SW_OS_LINUX, "Linux", 0x8006, SW_CPU_RISCV64, "riscv64", 8 },
		{ 0x9999, SW_OS_UNKNOWN, "0x00009999", 0x7777, SW_CPU_UNKNOWN, "0x7777", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct mdb b;
		mdb_init(&b);
		add_system_info(&b, cases[i].arch, cases[i].platform, NULL);
		uint8_t tl[4] = { 0 };
		mdb_stream(&b, 3, tl, sizeof tl);
		struct sw_snapshot s;
		struct sw_err err;
		ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
		ck_assert_int_eq(s.sys.os, cases[i].os);
		ck_assert_str_eq(s.sys.os_name, cases[i].os_name);
		ck_assert_int_eq(s.sys.cpu, cases[i].cpu);
		ck_assert_str_eq(s.sys.cpu_name, cases[i].cpu_name);
		ck_assert_uint_eq(s.sys.word_size, cases[i].word);
		sw_snapshot_free(&s);
	}
}
END_TEST

START_TEST(test_misc_info_flags_decide_pid_and_create_time)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t mi[24] = { 0 };
	put32(mi, 0, 24);
	put32(mi, 4, 0x1);          /* process id only */
	put32(mi, 8, 4242);
	put32(mi, 12, 1234567);
	mdb_stream(&b, 15, mi, sizeof mi);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert(s.has_pid);
	ck_assert_uint_eq(s.pid, 4242);
	ck_assert(!s.has_process_create_time);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_breakpad_info_gives_dump_and_requesting_threads)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t bi[12] = { 0 };
	put32(bi, 0, 3);
	put32(bi, 4, 0x11c0);
	put32(bi, 8, 0xbf4);
	mdb_stream(&b, 0x47670001, bi, sizeof bi);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert(s.has_dump_thread_id && s.has_requesting_thread_id);
	ck_assert_uint_eq(s.dump_thread_id, 0x11c0);
	ck_assert_uint_eq(s.requesting_thread_id, 0xbf4);
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Threads and contexts --------------------------------------------- */

/* An x86 CONTEXT with distinct register values. */
static uint32_t add_x86_context(struct mdb *b, uint32_t flags)
{
	uint8_t c[716] = { 0 };
	put32(c, 0, flags);
	put32(c, 156, 0xd1);  /* edi */
	put32(c, 160, 0x51);  /* esi */
	put32(c, 164, 0xb1);  /* ebx */
	put32(c, 168, 0xd2);  /* edx */
	put32(c, 172, 0xc1);  /* ecx */
	put32(c, 176, 0xa1);  /* eax */
	put32(c, 180, 0x1000f0);  /* ebp */
	put32(c, 184, 0x401000);  /* eip */
	put32(c, 192, 0x246);     /* eflags */
	put32(c, 196, 0x100000);  /* esp */
	return mdb_add(b, c, sizeof c);
}

static void add_thread_list(struct mdb *b, uint32_t n, const uint32_t *ids,
                            const uint64_t *stack_base, const uint32_t *stack_rva,
                            const uint32_t *stack_size, const uint32_t *ctx_rva,
                            const uint32_t *ctx_size)
{
	size_t size = 4 + 48 * (size_t)n;
	uint8_t *tl = calloc(1, size);
	put32(tl, 0, n);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *t = tl + 4 + 48 * i;
		put32(t, 0, ids[i]);
		put32(t, 4, 1);
		put32(t, 8, 0x20);
		put32(t, 12, 2);
		put64(t, 16, 0x7ffdf000 + i);
		put64(t, 24, stack_base[i]);
		put32(t, 32, stack_size[i]);
		put32(t, 36, stack_rva[i]);
		put32(t, 40, ctx_size[i]);
		put32(t, 44, ctx_rva[i]);
	}
	mdb_stream(b, 3, tl, size);
	free(tl);
}

START_TEST(test_thread_list_gives_ids_stack_region_and_x86_context)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint8_t stack[64];
	for (int i = 0; i < 64; i++)
		stack[i] = (uint8_t)i;
	uint32_t ids[] = { 0xbf4 };
	uint64_t base[] = { 0x100000 };
	uint32_t srva[] = { mdb_add(&b, stack, sizeof stack) }, ssize[] = { 64 };
	uint32_t crva[] = { add_x86_context(&b, 0x1003f) }, csize[] = { 716 };
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nthreads, 1);
	const struct sw_thread *t = &s.threads[0];
	ck_assert_uint_eq(t->id, 0xbf4);
	ck_assert_uint_eq(t->suspend_count, 1);
	ck_assert_uint_eq(t->priority_class, 0x20);
	ck_assert_uint_eq(t->priority, 2);
	ck_assert_uint_eq(t->teb, 0x7ffdf000);
	ck_assert_uint_eq(t->stack_base, 0x100000);
	ck_assert_uint_eq(t->stack_size, 64);
	ck_assert_uint_eq(t->ctx.context_flags, 0x1003f);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_X86, "eip")], 0x401000);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_X86, "esp")], 0x100000);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_X86, "ebp")], 0x1000f0);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_X86, "eax")], 0xa1);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_X86, "eflags")], 0x246);
	ck_assert_uint_eq(t->ctx.valid, 0x3ff);
	/* The stack is readable memory, pointing into the file. */
	uint32_t word;
	ck_assert(sw_mem_read_u32(&s, 0x100004, &word));
	ck_assert_uint_eq(word, 0x07060504);
	ck_assert_uint_eq(s.nmem, 1);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_x86_context_integer_only_leaves_control_registers_unknown)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint32_t ids[] = { 1 }, srva[] = { 0 }, ssize[] = { 0 };
	uint64_t base[] = { 0 };
	uint32_t crva[] = { add_x86_context(&b, 0x10002) }, csize[] = { 716 };
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	const struct sw_regs *r = &s.threads[0].ctx;
	ck_assert(sw_reg_valid(r, (unsigned)reg(SW_CPU_X86, "eax")));
	ck_assert(sw_reg_valid(r, (unsigned)reg(SW_CPU_X86, "edi")));
	ck_assert(!sw_reg_valid(r, (unsigned)reg(SW_CPU_X86, "eip")));
	ck_assert(!sw_reg_valid(r, (unsigned)reg(SW_CPU_X86, "esp")));
	ck_assert(!sw_reg_valid(r, (unsigned)reg(SW_CPU_X86, "ebp")));
	ck_assert_uint_eq(s.nmem, 0);
	sw_snapshot_free(&s);
}
END_TEST

/* One context layout: record size, where the flags go, the flags, and
 * three registers (offset, size, name) to plant and read back. */
struct layout_case {
	const char *what;
	uint16_t arch;
	enum sw_cpu cpu;
	uint32_t size, flags_offset, flags;
	struct {
		uint32_t offset, size;
		const char *name;
		uint64_t value;
	} regs[3];
};

static const struct layout_case layout_cases[] = {
	{ "amd64", 9, SW_CPU_AMD64, 1232, 48, 0x10000b,
	  { { 248, 8, "rip", 0x7f0000401234 }, { 152, 8, "rsp", 0x7ffd00001000 },
	    { 240, 8, "r15", 0xf15 } } },
	{ "arm", 5, SW_CPU_ARM, 368, 0, 0x40000002,
	  { { 4 + 15 * 4, 4, "pc", 0x8001 }, { 4 + 13 * 4, 4, "sp", 0xbe000000 },
	    { 68, 4, "cpsr", 0x60000010 } } },
	{ "arm64", 12, SW_CPU_ARM64, 912, 0, 0x00400003,
	  { { 264, 8, "pc", 0x5500001234 }, { 256, 8, "sp", 0x7fc0000000 },
	    { 8 + 29 * 8, 8, "x29", 0x7fc0000040 } } },
	{ "arm64 old", 0x8003, SW_CPU_ARM64, 796, 0, 0x80000002,
	  { { 264, 8, "pc", 0x5500004321 }, { 256, 8, "sp", 0x7fc0001000 },
	    { 272, 4, "cpsr", 0x80000000 } } },
	{ "mips", 1, SW_CPU_MIPS, 600, 0, 0x00040002,
	  { { 312, 8, "pc", 0x400100 }, { 8 + 29 * 8, 8, "sp", 0x7fff0000 },
	    { 8 + 31 * 8, 8, "ra", 0x400200 } } },
	{ "mips64", 0x8004, SW_CPU_MIPS64, 600, 0, 0x00080002,
	  { { 312, 8, "pc", 0x120000100 }, { 8 + 29 * 8, 8, "sp", 0xffff0000 },
	    { 264, 8, "hi", 0x1111 } } },
	{ "ppc", 3, SW_CPU_PPC, 1004, 0, 0x20000001,
	  { { 4, 4, "srr0", 0x1800 }, { 12 + 4, 4, "r1", 0xbfff0000 },
	    { 148, 4, "lr", 0x1900 } } },
	{ "ppc64", 0x8002, SW_CPU_PPC64, 1160, 0, 0x01000001,
	  { { 8, 8, "srr0", 0x100001800 }, { 24 + 8, 8, "r1", 0xfffff0000 },
	    { 296, 8, "lr", 0x100001900 } } },
	{ "riscv32", 0x8005, SW_CPU_RISCV32, 268, 0, 0x00800001,
	  { { 8, 4, "pc", 0x42000100 }, { 16, 4, "sp", 0x3fc80000 },
	    { 12, 4, "ra", 0x42000200 } } },
	{ "riscv64", 0x8006, SW_CPU_RISCV64, 528, 0, 0x08000001,
	  { { 8, 8, "pc", 0x10100 }, { 24, 8, "sp", 0x3ffffff000 },
	    { 8 + 8 * 8, 8, "s0", 0x3ffffff100 } } },
};

START_TEST(test_context_layouts_decode_pc_sp_and_a_third_register)
{
	const struct layout_case *c = &layout_cases[_i];
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, c->arch, 0x8201, NULL);
	uint8_t *ctx = calloc(1, c->size);
	put32(ctx, c->flags_offset, c->flags);
	for (int k = 0; k < 3; k++) {
		if (c->regs[k].size == 4)
			put32(ctx, c->regs[k].offset, (uint32_t)c->regs[k].value);
		else
			put64(ctx, c->regs[k].offset, c->regs[k].value);
	}
	uint32_t ids[] = { 7 }, srva[] = { 0 }, ssize[] = { 0 };
	uint64_t base[] = { 0 };
	uint32_t crva[] = { mdb_add(&b, ctx, c->size) }, csize[] = { c->size };
	free(ctx);
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_msg(mdb_read(&b, &s, &err) == SW_OK, "%s: %s", c->what, err.msg);
	const struct sw_regs *r = &s.threads[0].ctx;
	ck_assert_uint_eq(r->context_flags, c->flags);
	for (int k = 0; k < 3; k++) {
		int i = reg(c->cpu, c->regs[k].name);
		ck_assert_msg(sw_reg_valid(r, (unsigned)i), "%s: %s not valid", c->what,
		              c->regs[k].name);
		ck_assert_msg(r->v[i] == c->regs[k].value, "%s: %s = 0x%llx", c->what,
		              c->regs[k].name, (unsigned long long)r->v[i]);
	}
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_context_without_cpu_bits_is_read_by_system_info_cpu_with_a_problem)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint32_t ids[] = { 1 }, srva[] = { 0 }, ssize[] = { 0 };
	uint64_t base[] = { 0 };
	uint32_t crva[] = { add_x86_context(&b, 0x3f) }, csize[] = { 716 };
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "name no CPU"));
	ck_assert_uint_eq(s.threads[0].ctx.v[reg(SW_CPU_X86, "eip")], 0x401000);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_unrecognised_context_is_a_problem_and_leaves_no_registers)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t junk[40] = { 0 };
	uint32_t ids[] = { 1 }, srva[] = { 0 }, ssize[] = { 0 };
	uint64_t base[] = { 0 };
	uint32_t crva[] = { mdb_add(&b, junk, sizeof junk) }, csize[] = { sizeof junk };
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "unrecognised register context"));
	ck_assert_uint_eq(s.threads[0].ctx.valid, 0);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_thread_names_are_utf16_converted_to_utf8)
{
	struct mdb b;
	mdb_init(&b);
	uint32_t ids[] = { 10, 20 }, srva[] = { 0, 0 }, ssize[] = { 0, 0 };
	uint64_t base[] = { 0, 0 };
	uint32_t crva[] = { 0, 0 }, csize[] = { 0, 0 };
	add_thread_list(&b, 2, ids, base, srva, ssize, crva, csize);
	/* "Mü" + U+1F600 (a surrogate pair) */
	static const uint16_t name[] = { 'M', 0xfc, 0xd83d, 0xde00 };
	uint32_t nrva = mdb_string16(&b, name, 4);
	uint8_t nl[4 + 12] = { 0 };
	put32(nl, 0, 1);
	put32(nl, 4, 20);
	put64(nl, 8, nrva);
	mdb_stream(&b, 24, nl, sizeof nl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_ptr_null(s.threads[0].name);
	ck_assert_str_eq(s.threads[1].name, "M\xc3\xbc\xf0\x9f\x98\x80");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_huge_thread_count_is_clamped_to_the_stream)
{
	struct mdb b;
	mdb_init(&b);
	uint32_t ids[] = { 1, 2 }, srva[] = { 0, 0 }, ssize[] = { 0, 0 };
	uint64_t base[] = { 0, 0 };
	uint32_t crva[] = { 0, 0 }, csize[] = { 0, 0 };
	add_thread_list(&b, 2, ids, base, srva, ssize, crva, csize);
	put32(b.buf, b.dir[0].rva, 0xffffffff);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nthreads, 2);
	ck_assert(has_problem(&s, "thread list: count 4294967295"));
	ck_assert_ptr_nonnull(strstr(err.msg, "thread list: count"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_thread_stack_past_end_keeps_the_intact_part)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t stack[32] = { 1, 2, 3, 4 };
	uint32_t rva = mdb_add(&b, stack, sizeof stack);
	uint32_t ids[] = { 1 }, srva[] = { rva }, ssize[] = { 0x10000 };
	uint64_t base[] = { 0x5000 };
	uint32_t crva[] = { 0 }, csize[] = { 0 };
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "thread 0 (0x1) stack"));
	ck_assert_uint_gt(s.threads[0].stack_size, 0);
	ck_assert_uint_lt(s.threads[0].stack_size, 0x10000);
	uint32_t w;
	ck_assert(sw_mem_read_u32(&s, 0x5000, &w));
	ck_assert_uint_eq(w, 0x04030201);
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Modules ----------------------------------------------------------- */

static void add_module_list(struct mdb *b, uint32_t n, const uint8_t (*mods)[108])
{
	size_t size = 4 + 108 * (size_t)n;
	uint8_t *ml = calloc(1, size);
	put32(ml, 0, n);
	memcpy(ml + 4, mods, 108 * (size_t)n);
	mdb_stream(b, 4, ml, size);
	free(ml);
}

static void module_record(uint8_t *m, uint64_t base, uint32_t size, uint32_t stamp,
                          uint32_t name_rva, uint32_t cv_rva, uint32_t cv_size)
{
	memset(m, 0, 108);
	put64(m, 0, base);
	put32(m, 8, size);
	put32(m, 12, 0xc5c5);
	put32(m, 16, stamp);
	put32(m, 20, name_rva);
	put32(m, 76, cv_size);
	put32(m, 80, cv_rva);
}

START_TEST(test_module_pdb70_gives_guid_age_debug_id_and_pdb_basename)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint8_t cv[24 + 16] = { 0 };
	memcpy(cv, "RSDS", 4);
	put32(cv, 4, 0x5a9832e5);
	put16(cv, 8, 0x2872);
	put16(cv, 10, 0x41c1);
	static const uint8_t d4[8] = { 0x83, 0x8e, 0xd9, 0x89, 0x14, 0xe9, 0xb7, 0xff };
	memcpy(cv + 12, d4, 8);
	put32(cv, 20, 1);
	memcpy(cv + 24, "c:\\test_app.pdb", 15);
	uint32_t cv_rva = mdb_add(&b, cv, sizeof cv);
	uint8_t mods[1][108];
	module_record(mods[0], 0x400000, 0x2d000, 0x45d35f6c, mdb_string(&b, "c:\\test_app.exe"),
	              cv_rva, sizeof cv);
	/* VS_FIXEDFILEINFO: signature, struct version, file version 5.1.2600.2180 */
	put32(mods[0], 24, 0xfeef04bd);
	put32(mods[0], 28, 0x10000);
	put32(mods[0], 32, 0x00050001);
	put32(mods[0], 36, 0x0a280884);
	add_module_list(&b, 1, mods);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 1);
	const struct sw_module *m = &s.modules[0];
	ck_assert_str_eq(m->code_file, "c:\\test_app.exe");
	ck_assert_str_eq(m->debug_file, "test_app.pdb");
	ck_assert_str_eq(m->debug_id, "5A9832E5287241C1838ED98914E9B7FF1");
	ck_assert_str_eq(m->code_id, "45D35F6C2d000");
	ck_assert_str_eq(m->version, "5.1.2600.2180");
	ck_assert_uint_eq(m->base, 0x400000);
	ck_assert_uint_eq(m->size, 0x2d000);
	ck_assert_uint_eq(m->checksum, 0xc5c5);
	ck_assert_int_eq(s.main_module, 0);
	ck_assert_int_eq(sw_module_at(&s, 0x401000), 0);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_module_pdb20_gives_signature_age_debug_id)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint8_t cv[16 + 8] = { 0 };
	memcpy(cv, "NB10", 4);
	put32(cv, 8, 0x3a8b5c1d);
	put32(cv, 12, 0x2a);
	memcpy(cv + 16, "old.pdb", 7);
	uint32_t cv_rva = mdb_add(&b, cv, sizeof cv);
	uint8_t mods[1][108];
	module_record(mods[0], 0x10000000, 0x1000, 1, mdb_string(&b, "old.dll"), cv_rva, sizeof cv);
	add_module_list(&b, 1, mods);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_str_eq(s.modules[0].debug_id, "3A8B5C1D2a");
	ck_assert_str_eq(s.modules[0].debug_file, "old.pdb");
	ck_assert_ptr_null(s.modules[0].version);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_module_elf_build_id_gives_swapped_guid_debug_id_and_hex_code_id)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 9, 0x8201, "Linux 5.0");
	/* linux-mini.dmp's libm build id */
	static const uint8_t id[20] = { 0xdf, 0xb8, 0x5d, 0xe4, 0x2d, 0xaf, 0xfd, 0x09, 0x64, 0x0c,
		                        0x8f, 0xe3, 0x77, 0xd5, 0x72, 0xde, 0x3e, 0x16, 0x89, 0x20 };
	uint8_t cv[24];
	memcpy(cv, "LEpB", 4);
	memcpy(cv + 4, id, sizeof id);
	uint32_t cv_rva = mdb_add(&b, cv, sizeof cv);
	uint8_t mods[2][108];
	module_record(mods[0], 0x7f513fe54000, 0x108000, 0,
	              mdb_string(&b, "/lib/x86_64-linux-gnu/libm-2.23.so"), cv_rva, sizeof cv);
	/* A short build id is zero-padded into the GUID. */
	uint8_t cv2[8] = { 'L', 'E', 'p', 'B', 0x10, 0xfa, 0xa6, 0xbb };
	uint32_t cv2_rva = mdb_add(&b, cv2, sizeof cv2);
	module_record(mods[1], 0x200000, 0x1000, 0, mdb_string(&b, "/bin/short"), cv2_rva,
	              sizeof cv2);
	add_module_list(&b, 2, mods);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_str_eq(s.modules[0].debug_id, "E45DB8DFAF2D09FD640C8FE377D572DE0");
	ck_assert_str_eq(s.modules[0].code_id, "dfb85de42daffd09640c8fe377d572de3e168920");
	ck_assert_str_eq(s.modules[0].debug_file, "libm-2.23.so");
	ck_assert_str_eq(s.modules[1].debug_id, "BBA6FA10000000000000000000000000" "0");
	ck_assert_str_eq(s.modules[1].code_id, "10faa6bb");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_module_version_needs_the_fixed_file_info_signature)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t mods[2][108];
	module_record(mods[0], 0x1000, 0x1000, 0, mdb_string(&b, "a"), 0, 0);
	put32(mods[0], 28, 0x10000);
	put32(mods[0], 32, 0x00010002);
	module_record(mods[1], 0x3000, 0x1000, 0, mdb_string(&b, "b"), 0, 0);
	put32(mods[1], 24, 0xfeef04bd);
	put32(mods[1], 28, 0x10000);
	add_module_list(&b, 2, mods);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_ptr_null(s.modules[0].version);
	ck_assert_str_eq(s.modules[1].version, "0.0.0.0");  /* Breakpad prints it */
	ck_assert_ptr_null(s.modules[0].debug_id);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_module_cv_record_past_end_is_a_problem)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t mods[1][108];
	module_record(mods[0], 0x1000, 0x1000, 0, mdb_string(&b, "a.dll"), 0x7ffffff0, 40);
	add_module_list(&b, 1, mods);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "module 0 CodeView record"));
	ck_assert_str_eq(s.modules[0].code_file, "a.dll");
	ck_assert_ptr_null(s.modules[0].debug_id);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_unloaded_module_list_uses_its_header_and_entry_sizes)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint32_t name = mdb_string(&b, "gone.dll");
	uint8_t ul[12 + 2 * 28] = { 0 };  /* entries 28 bytes: newer writers may grow them */
	put32(ul, 0, 12);
	put32(ul, 4, 28);
	put32(ul, 8, 2);
	put64(ul, 12, 0x6000000);
	put32(ul, 20, 0x2000);
	put32(ul, 28, 0x11223344);
	put32(ul, 32, name);
	put64(ul, 40, 0x7000000);
	put32(ul, 48, 0x1000);
	put32(ul, 60, name);
	mdb_stream(&b, 14, ul, sizeof ul);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nunloaded, 2);
	ck_assert_uint_eq(s.unloaded[0].base, 0x6000000);
	ck_assert_uint_eq(s.unloaded[0].size, 0x2000);
	ck_assert_str_eq(s.unloaded[0].code_file, "gone.dll");
	ck_assert_str_eq(s.unloaded[0].code_id, "112233442000");
	ck_assert_uint_eq(s.unloaded[1].base, 0x7000000);
	ck_assert_int_eq(sw_unloaded_module_at(&s, 0x7000800), 1);
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Memory ------------------------------------------------------------ */

START_TEST(test_memory_list_and_memory64_list_become_regions)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t a[16], c[8], d[8];
	memset(a, 0xaa, sizeof a);
	memset(c, 0xcc, sizeof c);
	memset(d, 0xdd, sizeof d);
	uint32_t arva = mdb_add(&b, a, sizeof a);
	uint8_t ml[4 + 16] = { 0 };
	put32(ml, 0, 1);
	put64(ml, 4, 0x20000);
	put32(ml, 12, sizeof a);
	put32(ml, 16, arva);
	mdb_stream(&b, 5, ml, sizeof ml);
	uint32_t crva = mdb_add(&b, c, sizeof c);
	mdb_add(&b, d, sizeof d);
	uint8_t m64[16 + 32] = { 0 };
	put64(m64, 0, 2);
	put64(m64, 8, crva);
	put64(m64, 16, 0x90000);
	put64(m64, 24, 8);
	put64(m64, 32, 0x10000);
	put64(m64, 40, 8);
	mdb_stream(&b, 9, m64, sizeof m64);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 3);
	/* finish sorted them by base */
	ck_assert_uint_eq(s.mem[0].base, 0x10000);
	ck_assert_uint_eq(s.mem[0].data[0], 0xdd);
	ck_assert_uint_eq(s.mem[1].base, 0x20000);
	ck_assert_uint_eq(s.mem[1].data[15], 0xaa);
	ck_assert_uint_eq(s.mem[2].base, 0x90000);
	ck_assert_uint_eq(s.mem[2].data[0], 0xcc);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_memory_list_padded_after_count_is_accepted)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t a[8] = { 9 };
	uint32_t arva = mdb_add(&b, a, sizeof a);
	uint8_t ml[8 + 16] = { 0 };
	put32(ml, 0, 1);
	put64(ml, 8, 0x30000);
	put32(ml, 16, sizeof a);
	put32(ml, 20, arva);
	mdb_stream(&b, 5, ml, sizeof ml);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].base, 0x30000);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_memory_range_outside_file_is_a_problem_and_dropped)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t ml[4 + 16] = { 0 };
	put32(ml, 0, 1);
	put64(ml, 4, 0x20000);
	put32(ml, 12, 0x100);
	put32(ml, 16, 0xfffffff0);
	mdb_stream(&b, 5, ml, sizeof ml);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "memory range 0 (0x20000)"));
	ck_assert_uint_eq(s.nmem, 0);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_stack_listed_twice_is_one_region_without_a_problem)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t stack[64] = { 0 };
	uint32_t rva = mdb_add(&b, stack, sizeof stack);
	uint32_t ids[] = { 1 }, srva[] = { rva }, ssize[] = { 64 };
	uint64_t base[] = { 0x8000 };
	uint32_t crva[] = { 0 }, csize[] = { 0 };
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);
	uint8_t ml[4 + 32] = { 0 };
	put32(ml, 0, 2);
	put64(ml, 4, 0x8000);
	put32(ml, 12, 64);
	put32(ml, 16, rva);
	put64(ml, 20, 0x8010);  /* inside the stack, like the bytes around a pc */
	put32(ml, 28, 16);
	put32(ml, 32, rva + 16);
	mdb_stream(&b, 5, ml, sizeof ml);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.nproblems, 0);
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Exception ---------------------------------------------------------- */

START_TEST(test_exception_gives_thread_code_address_params_and_context)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint8_t ex[168] = { 0 };
	put32(ex, 0, 0xbf4);
	put32(ex, 8, 0xc0000005);
	put32(ex, 12, 1);
	put64(ex, 24, 0x40429e);
	put32(ex, 32, 2);
	put64(ex, 40, 1);
	put64(ex, 48, 0x45);
	put32(ex, 160, 716);
	put32(ex, 164, add_x86_context(&b, 0x1003f));
	mdb_stream(&b, 6, ex, sizeof ex);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert(s.crash.present);
	ck_assert_uint_eq(s.crash.thread_id, 0xbf4);
	ck_assert_uint_eq(s.crash.code, 0xc0000005);
	ck_assert_uint_eq(s.crash.flags, 1);
	ck_assert_uint_eq(s.crash.address, 0x40429e);
	ck_assert_uint_eq(s.crash.nparams, 2);
	ck_assert_uint_eq(s.crash.params[1], 0x45);
	ck_assert_uint_eq(s.crash.ctx.v[reg(SW_CPU_X86, "eip")], 0x401000);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_exception_with_too_many_parameters_is_clamped)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t ex[168] = { 0 };
	put32(ex, 32, 1000);
	mdb_stream(&b, 6, ex, sizeof ex);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.crash.nparams, 15);
	ck_assert(has_problem(&s, "1000 parameters"));
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Breakpad Linux streams and Crashpad ------------------------------ */

START_TEST(test_linux_text_streams_maps_lsb_cmdline_environ_microcode)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 9, 0x8201, "Linux");
	const char *cpuinfo = "processor\t: 0\nmicrocode\t: 0x2b\n";
	mdb_stream(&b, 0x47670003, cpuinfo, strlen(cpuinfo));
	const char *lsb = "DISTRIB_ID=Ubuntu\nDISTRIB_DESCRIPTION=\"Ubuntu 16.04.3 LTS\"\n";
	mdb_stream(&b, 0x47670005, lsb, strlen(lsb));
	static const char cmd[] = "./crash\0--flag\0";
	mdb_stream(&b, 0x47670006, cmd, sizeof cmd - 1);
	static const char env[] = "A=1\0B=2\0";
	mdb_stream(&b, 0x47670007, env, sizeof env - 1);
	const char *status = "Name:\tcrash\n";
	mdb_stream(&b, 0x47670004, status, strlen(status));
	const char *maps = "00400000-0041a000 r-xp 00000000 08:01 1234   /work/my crash\n"
	                   "7fff5ae4a000-7fff5ae6b000 rw-p 00000000 00:00 0                          [stack]\n"
	                   "7f0000000000-7f0000001000 ---p 00001000 00:00 0 \n";
	mdb_stream(&b, 0x47670009, maps, strlen(maps));
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert(s.sys.has_cpu_microcode);
	ck_assert_uint_eq(s.sys.cpu_microcode, 0x2b);
	ck_assert_str_eq(s.cpuinfo, cpuinfo);
	ck_assert_str_eq(s.proc_status, status);
	ck_assert_uint_eq(s.nlsb_release, 2);
	ck_assert_str_eq(s.lsb_release[1].key, "DISTRIB_DESCRIPTION");
	ck_assert_str_eq(s.lsb_release[1].value, "Ubuntu 16.04.3 LTS");
	ck_assert_uint_eq(s.cmdline_len, 15);
	ck_assert_str_eq(s.cmdline + 8, "--flag");
	ck_assert_uint_eq(s.environ_len, 8);
	ck_assert_uint_eq(s.nmaps, 3);
	ck_assert_uint_eq(s.maps[0].start, 0x400000);
	ck_assert_uint_eq(s.maps[0].end, 0x41a000);
	ck_assert_str_eq(s.maps[0].perms, "r-xp");
	ck_assert_str_eq(s.maps[0].path, "/work/my crash");
	ck_assert_str_eq(s.maps[1].path, "[stack]");
	ck_assert_uint_eq(s.maps[2].offset, 0x1000);
	ck_assert_ptr_null(s.maps[2].path);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_dso_debug_gives_link_map_entries)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 9, 0x8201, "Linux");
	uint32_t n1 = mdb_string(&b, "/lib/libc.so.6");
	uint8_t lm[2 * 24] = { 0 };
	put64(lm, 0, 0x7f0000000000);
	put32(lm, 8, n1);
	put64(lm, 16, 0x7f0000201000);
	put64(lm, 24, 0x7f1000000000);
	uint32_t lm_rva = mdb_add(&b, lm, sizeof lm);
	uint8_t dbg[40] = { 0 };
	put32(dbg, 0, 1);
	put32(dbg, 4, lm_rva);
	put32(dbg, 8, 2);
	mdb_stream(&b, 0x4767000a, dbg, sizeof dbg);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nlink_map, 2);
	ck_assert_uint_eq(s.link_map[0].addr, 0x7f0000000000);
	ck_assert_uint_eq(s.link_map[0].ld, 0x7f0000201000);
	ck_assert_str_eq(s.link_map[0].name, "/lib/libc.so.6");
	ck_assert_ptr_null(s.link_map[1].name);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_assertion_text_is_breakpads)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t as[776] = { 0 };
	const char *e = "x != 0", *f = "main", *fl = "a.c";
	for (size_t i = 0; e[i]; i++)
		put16(as, 2 * i, (uint8_t)e[i]);
	for (size_t i = 0; f[i]; i++)
		put16(as, 256 + 2 * i, (uint8_t)f[i]);
	for (size_t i = 0; fl[i]; i++)
		put16(as, 512 + 2 * i, (uint8_t)fl[i]);
	put32(as, 768, 12);
	put32(as, 772, 2);
	mdb_stream(&b, 0x47670002, as, sizeof as);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_str_eq(s.assertion,
	                 "Pure virtual function called x != 0 in function main, in file a.c at line 12");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_crashpad_info_gives_process_and_module_annotations)
{
	struct mdb b;
	mdb_init(&b);
	/* process-wide simple dictionary */
	uint8_t dict[4 + 8];
	put32(dict, 0, 1);
	put32(dict, 4, mdb_utf8(&b, "hello"));
	put32(dict, 8, mdb_utf8(&b, "world"));
	uint32_t dict_rva = mdb_add(&b, dict, sizeof dict);
	/* module 16: a list annotation and a string object */
	uint8_t list[4 + 4];
	put32(list, 0, 1);
	put32(list, 4, mdb_utf8(&b, "abort() called"));
	uint32_t list_rva = mdb_add(&b, list, sizeof list);
	uint8_t objs[4 + 24] = { 0 };
	put32(objs, 0, 2);
	put32(objs, 4, mdb_utf8(&b, "exceptionName"));
	put16(objs, 8, 1);
	put32(objs, 12, mdb_utf8(&b, "NSRangeException"));
	put32(objs, 16, mdb_utf8(&b, "Counter"));
	put16(objs, 20, 0x802a);  /* user type: not a string */
	put32(objs, 24, mdb_utf8(&b, "x"));
	uint32_t objs_rva = mdb_add(&b, objs, sizeof objs);
	uint8_t minfo[28] = { 0 };
	put32(minfo, 0, 1);
	put32(minfo, 4, sizeof list);
	put32(minfo, 8, list_rva);
	put32(minfo, 20, sizeof objs);
	put32(minfo, 24, objs_rva);
	uint32_t minfo_rva = mdb_add(&b, minfo, sizeof minfo);
	uint8_t links[4 + 12];
	put32(links, 0, 1);
	put32(links, 4, 16);
	put32(links, 8, sizeof minfo);
	put32(links, 12, minfo_rva);
	uint32_t links_rva = mdb_add(&b, links, sizeof links);
	uint8_t info[64] = { 0 };
	put32(info, 0, 1);
	put32(info, 36, sizeof dict);
	put32(info, 40, dict_rva);
	put32(info, 44, sizeof links);
	put32(info, 48, links_rva);
	mdb_stream(&b, 0x43500001, info, sizeof info);
	uint8_t tl[4] = { 0 };
	mdb_stream(&b, 3, tl, sizeof tl);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nannotations, 3);
	ck_assert_int_eq(s.annotations[0].module, -1);
	ck_assert_int_eq(s.annotations[0].kind, SW_ANNOT_SIMPLE);
	ck_assert_str_eq(s.annotations[0].key, "hello");
	ck_assert_str_eq(s.annotations[0].value, "world");
	ck_assert_int_eq(s.annotations[1].module, 16);
	ck_assert_int_eq(s.annotations[1].kind, SW_ANNOT_LIST);
	ck_assert_ptr_null(s.annotations[1].key);
	ck_assert_str_eq(s.annotations[1].value, "abort() called");
	ck_assert_int_eq(s.annotations[2].kind, SW_ANNOT_OBJECT);
	ck_assert_str_eq(s.annotations[2].key, "exceptionName");
	ck_assert_str_eq(s.annotations[2].value, "NSRangeException");
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Bounds on hostile input ------------------------------------------- */

/* A MINIDUMP_STRING of n copies of unit. */
static uint32_t mdb_repeated16(struct mdb *b, uint16_t unit, size_t n)
{
	uint16_t *units = malloc(n * sizeof *units);
	for (size_t i = 0; i < n; i++)
		units[i] = unit;
	uint32_t rva = mdb_string16(b, units, n);
	free(units);
	return rva;
}

/* A module list of n modules 0x1000 apart, each named name_rva, each with
 * the CodeView record cv_rva (0: none). */
static void add_modules_named(struct mdb *b, uint32_t n, uint32_t name_rva, uint32_t cv_rva,
                              uint32_t cv_size)
{
	uint8_t (*mods)[108] = calloc(n, 108);
	for (uint32_t i = 0; i < n; i++)
		module_record(mods[i], 0x10000000 + (uint64_t)i * 0x1000, 0x1000, 0, name_rva, cv_rva,
		              cv_size);
	add_module_list(b, n, (const uint8_t (*)[108])mods);
	free(mods);
}

static void add_empty_thread_list(struct mdb *b)
{
	uint8_t tl[4] = { 0 };
	mdb_stream(b, 3, tl, sizeof tl);
}

START_TEST(test_module_count_is_clamped_to_the_stream_before_allocating)
{
	struct mdb b;
	mdb_init(&b);
	uint8_t ml[4 + 2 * 108] = { 0 };
	put32(ml, 0, 0xffffffff);
	module_record(ml + 4, 0x400000, 0x1000, 0, mdb_string(&b, "a"), 0, 0);
	module_record(ml + 4 + 108, 0x500000, 0x1000, 0, mdb_string(&b, "b"), 0, 0);
	mdb_stream(&b, 4, ml, sizeof ml);
	add_empty_thread_list(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nmodules, 2);
	ck_assert(has_problem(&s, "module list: count 4294967295"));
	/* Nothing was sized by the count: the arena holds a block or two. */
	ck_assert_uint_lt(s.arena.total, 1 << 20);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_modules_naming_one_string_share_one_decoded_copy)
{
	/* 2,000 modules naming one 4,000-unit name: decoded once, not 2,000
	 * times (8 MB of arena before). */
	struct mdb b;
	mdb_init(&b);
	uint32_t name = mdb_repeated16(&b, 'n', 4000);
	add_modules_named(&b, 2000, name, 0, 0);
	add_empty_thread_list(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 2000);
	for (uint32_t i = 1; i < s.nmodules; i++)
		ck_assert_ptr_eq(s.modules[i].code_file, s.modules[0].code_file);
	ck_assert_uint_lt(s.arena.total, 2 << 20);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_codeview_record_shared_by_modules_is_decoded_once)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint8_t cv[24 + 3001] = { 0 };
	memcpy(cv, "RSDS", 4);
	memset(cv + 24, 'p', 3000);
	uint32_t cv_rva = mdb_add(&b, cv, sizeof cv);
	add_modules_named(&b, 2000, mdb_string(&b, "app.exe"), cv_rva, sizeof cv);
	add_empty_thread_list(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	for (uint32_t i = 1; i < s.nmodules; i++)
		ck_assert_ptr_eq(s.modules[i].debug_file, s.modules[0].debug_file);
	/* A 3,000-byte file name is no file name: cut to NAME_MAX. */
	ck_assert_uint_eq(strlen(s.modules[0].debug_file), 255);
	ck_assert(has_problem(&s, "warning: CodeView PDB name: file name of 3000 bytes, cut to 255"));
	ck_assert_uint_lt(s.arena.total, 2 << 20);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_dso_debug_entries_naming_one_string_share_one_decoded_copy)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 9, 0x8201, "Linux");
	uint32_t name = mdb_repeated16(&b, 'd', 4000);
	enum { N = 5000 };
	uint8_t *lm = calloc(N, 24);
	for (uint32_t i = 0; i < N; i++) {
		put64(lm, 24 * i, 0x7f0000000000 + (uint64_t)i * 0x1000);
		put32(lm, 24 * i + 8, name);
	}
	uint32_t lm_rva = mdb_add(&b, lm, 24 * (size_t)N);
	free(lm);
	uint8_t dbg[40] = { 0 };
	put32(dbg, 0, 1);
	put32(dbg, 4, lm_rva);
	put32(dbg, 8, N);
	mdb_stream(&b, 0x4767000a, dbg, sizeof dbg);
	add_empty_thread_list(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nlink_map, N);
	for (uint32_t i = 1; i < N; i++)
		ck_assert_ptr_eq(s.link_map[i].name, s.link_map[0].name);
	ck_assert_uint_lt(s.arena.total, 2 << 20);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_string_longer_than_4096_bytes_is_cut_at_a_character_with_a_warning)
{
	/* A thread name of 3,000 'é' (6,000 UTF-8 bytes). */
	struct mdb b;
	mdb_init(&b);
	uint32_t ids[] = { 7 };
	uint64_t base[] = { 0 };
	uint32_t zero[] = { 0 };
	add_thread_list(&b, 1, ids, base, zero, zero, zero, zero);
	uint8_t names[4 + 12] = { 0 };
	put32(names, 0, 1);
	put32(names, 4, 7);
	put64(names, 8, mdb_repeated16(&b, 0xe9, 3000));
	mdb_stream(&b, 24, names, sizeof names);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	const char *name = s.threads[0].name;
	ck_assert_uint_eq(strlen(name), 4096);
	ck_assert_int_eq((unsigned char)name[4094], 0xc3);
	ck_assert_int_eq((unsigned char)name[4095], 0xa9);
	ck_assert(has_problem(&s, "warning: thread 0x7 name: 3000 UTF-16 units, cut to 4096 bytes"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_module_file_name_longer_than_255_bytes_is_cut)
{
	struct mdb b;
	mdb_init(&b);
	uint16_t units[5 + 300];
	memcpy(units, (const uint16_t[]){ '/', 'l', 'i', 'b', '/' }, sizeof(uint16_t[5]));
	for (int i = 0; i < 300; i++)
		units[5 + i] = 'b';
	add_modules_named(&b, 1, mdb_string16(&b, units, 305), 0, 0);
	add_empty_thread_list(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(strlen(s.modules[0].code_file), 5 + 255);
	ck_assert(strncmp(s.modules[0].code_file, "/lib/bbb", 8) == 0);
	ck_assert(has_problem(&s, "warning: module 0 name: file name of 300 bytes, cut to 255"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_string_length_past_the_end_of_the_file_keeps_what_the_file_holds)
{
	/* The name's length says 0xfffffff0 bytes; the file ends after 100
	 * units: one name of 100 characters, one problem. */
	struct mdb b;
	mdb_init(&b);
	add_empty_thread_list(&b);
	uint8_t ml[4 + 108];
	uint32_t list = mdb_add(&b, NULL, sizeof ml);
	mdb_stream_at(&b, 4, list, sizeof ml);
	uint32_t name = mdb_repeated16(&b, 'x', 100);
	b.len -= 2; /* no terminating unit: the name runs to the end of the file */
	put32(b.buf, name, 0xfffffff0);
	put32(ml, 0, 1);
	module_record(ml + 4, 0x400000, 0x1000, 0, name, 0, 0);
	memcpy(b.buf + list, ml, sizeof ml);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(strlen(s.modules[0].code_file), 100);
	ck_assert(has_problem(&s, "(4294967280 bytes) extends past the end of the file"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_strings_laid_over_each_other_stop_at_the_text_budget)
{
	/* 64 KiB whose every 4-byte word reads as a string running to the end
	 * of the file, of characters U+2020 (3 UTF-8 bytes each); 2,000
	 * modules each naming another word. Every name alone is cut at 4,096
	 * bytes, but together they would be 8 MB from a 280 KB file: the text
	 * budget (twice the file, plus 64 KiB) stops them. */
	struct mdb b;
	mdb_init(&b);
	add_empty_thread_list(&b);
	enum { N = 2000, REGION = 64 * 1024 };
	uint32_t list = mdb_add(&b, NULL, 4 + 108 * (size_t)N);
	uint8_t *fill = malloc(REGION);
	memset(fill, 0x20, REGION);
	uint32_t region = mdb_add(&b, fill, REGION);
	free(fill);
	put32(b.buf, list, N);
	for (uint32_t i = 0; i < N; i++)
		module_record(b.buf + list + 4 + 108 * i, 0x10000000 + (uint64_t)i * 0x1000, 0x1000, 0,
		              region + 4 * (i % (REGION / 8)), 0, 0);
	mdb_stream_at(&b, 4, list, 4 + 108 * N);
	size_t file_size = b.len;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "decode to more text than its"));
	ck_assert_str_eq(s.modules[N - 1].code_file, "");
	uint64_t decoded = 0;
	for (uint32_t i = 0; i < N; i++)
		decoded += strlen(s.modules[i].code_file);
	ck_assert_uint_le(decoded, 2 * file_size + 64 * 1024);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_stream_directory_of_more_than_4096_entries_reads_4096)
{
	/* A sparse 1 GiB file whose header claims 2^32 - 1 streams: 4,096
	 * entries are looked at, nothing is sized by the count. */
	snprintf(tmp_path, sizeof tmp_path, "/tmp/sw_md_test_XXXXXX");
	int fd = mkstemp(tmp_path);
	ck_assert_int_ge(fd, 0);
	uint8_t h[32] = { 0 };
	put32(h, 0, 0x504d444d);
	put32(h, 4, 0xa793);
	put32(h, 8, 0xffffffff);
	put32(h, 12, 32);
	ck_assert(write(fd, h, sizeof h) == (ssize_t)sizeof h);
	ck_assert_int_eq(ftruncate(fd, (off_t)1 << 30), 0);
	close(fd);
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_minidump_read(tmp_path, &s, &err), SW_ERR_CORRUPT);
	unlink(tmp_path);
	ck_assert(has_problem(&s, "stream directory: 4294967295 entries, more than a minidump has"));
	ck_assert_uint_lt(s.arena.total, 1 << 20);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_threads_sharing_one_stack_are_walked_once)
{
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint8_t stack[64] = { 0 };
	uint32_t srva = mdb_add(&b, stack, sizeof stack);
	uint32_t crva = add_x86_context(&b, 0x1003f);
	uint32_t other = mdb_add(&b, stack, sizeof stack);
	uint32_t ids[] = { 1, 2, 3, 4 };
	uint64_t base[] = { 0x100000, 0x100000, 0x200000, 0x300000 };
	/* Threads 1 and 2 share bytes; thread 3's stack starts inside them;
	 * thread 4 has its own. */
	uint32_t rvas[] = { srva, srva, srva + 8, other };
	uint32_t sizes[] = { 64, 64, 32, 64 };
	uint32_t crvas[] = { crva, crva, crva, crva }, csizes[] = { 716, 716, 716, 716 };
	add_thread_list(&b, 4, ids, base, rvas, sizes, crvas, csizes);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nthreads, 4);
	ck_assert_uint_eq(s.threads[0].stack_size, 64);
	ck_assert_uint_ne(s.threads[0].ctx.valid, 0);
	ck_assert_uint_eq(s.threads[1].stack_size, 0);
	ck_assert_uint_eq(s.threads[1].ctx.valid, 0);
	ck_assert_uint_eq(s.threads[2].ctx.valid, 0);
	ck_assert_uint_ne(s.threads[3].ctx.valid, 0);
	ck_assert(has_problem(&s, "thread list: 2 thread stacks are bytes of the file that another "
	                          "thread's stack also uses; those threads are not walked (the "
	                          "first: thread 1 (0x2))"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_stackless_threads_on_one_memory_region_are_walked_once)
{
	/* No thread has a stack of its own; all their stack pointers are in
	 * one region of the memory list, which the walker would read for each. */
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 0, 2, NULL);
	uint32_t crva = add_x86_context(&b, 0x1003f); /* esp 0x100000 */
	uint8_t mem[4096] = { 0 };
	uint32_t mrva = mdb_add(&b, mem, sizeof mem);
	uint32_t ids[] = { 1, 2, 3 };
	uint64_t base[] = { 0, 0, 0 };
	uint32_t zero[] = { 0, 0, 0 };
	uint32_t crvas[] = { crva, crva, crva }, csizes[] = { 716, 716, 716 };
	add_thread_list(&b, 3, ids, base, zero, zero, crvas, csizes);
	uint8_t ml[4 + 16];
	put32(ml, 0, 1);
	put64(ml, 4, 0xff800); /* to 0x100800 */
	put32(ml, 12, sizeof mem);
	put32(ml, 16, mrva);
	mdb_stream(&b, 5, ml, sizeof ml);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_ne(s.threads[0].ctx.valid, 0);
	ck_assert_uint_eq(s.threads[1].ctx.valid, 0);
	ck_assert_uint_eq(s.threads[2].ctx.valid, 0);
	ck_assert(has_problem(&s, "thread list: 2 thread stacks"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_split_modules_link_to_the_first_earlier_entry_with_a_lower_base)
{
	/* Four entries of one ELF file (one build id, one name), another
	 * file's entry among them: C links to B (A's base is above C's), D to
	 * A (the first earlier entry below it), A and B to nothing. */
	struct mdb b;
	mdb_init(&b);
	add_system_info(&b, 9, 0x8201, "Linux");
	uint8_t cv[24], cv2[24];
	memcpy(cv, "LEpB", 4);
	memset(cv + 4, 0x11, 20);
	memcpy(cv2, "LEpB", 4);
	memset(cv2 + 4, 0x22, 20);
	uint32_t cv_rva = mdb_add(&b, cv, sizeof cv), cv2_rva = mdb_add(&b, cv2, sizeof cv2);
	uint32_t lib = mdb_string(&b, "/lib/libx.so"), other = mdb_string(&b, "/lib/liby.so");
	static const uint64_t bases[] = { 0x200000, 0x100000, 0x900000, 0x150000, 0x250000 };
	uint8_t mods[5][108];
	for (int i = 0; i < 5; i++)
		module_record(mods[i], bases[i], 0x1000, 0, i == 2 ? other : lib,
		              i == 2 ? cv2_rva : cv_rva, 24);
	add_module_list(&b, 5, (const uint8_t (*)[108])mods);
	add_empty_thread_list(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert_uint_eq(s.modules[0].load_bias, 0);
	ck_assert_uint_eq(s.modules[1].load_bias, 0);
	ck_assert_uint_eq(s.modules[2].load_bias, 0);
	ck_assert_uint_eq(s.modules[3].load_bias, (uint64_t)0x100000 - 0x150000);
	ck_assert_uint_eq(s.modules[4].load_bias, (uint64_t)0x200000 - 0x250000);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_crashpad_annotations_shared_by_many_module_links_stop_at_the_budget)
{
	/* 20,000 module links to one module info whose list has 50 strings:
	 * a million annotations from a 300 KB file, each printed. The
	 * annotation budget (twice the file) stops them, and the reading. */
	struct mdb b;
	mdb_init(&b);
	enum { LINKS = 20000, STRINGS = 50 };
	uint8_t list[4 + 4 * STRINGS];
	put32(list, 0, STRINGS);
	for (int i = 0; i < STRINGS; i++)
		put32(list, 4 + 4 * (size_t)i, mdb_utf8(&b, "a list annotation of some length"));
	uint32_t list_rva = mdb_add(&b, list, sizeof list);
	uint8_t minfo[28] = { 0 };
	put32(minfo, 4, sizeof list);
	put32(minfo, 8, list_rva);
	uint32_t minfo_rva = mdb_add(&b, minfo, sizeof minfo);
	uint8_t *links = calloc(1, 4 + 12 * (size_t)LINKS);
	put32(links, 0, LINKS);
	for (uint32_t i = 0; i < LINKS; i++) {
		put32(links, 4 + 12 * i, i);
		put32(links, 8 + 12 * i, sizeof minfo);
		put32(links, 12 + 12 * i, minfo_rva);
	}
	uint32_t links_rva = mdb_add(&b, links, 4 + 12 * (size_t)LINKS);
	free(links);
	uint8_t info[64] = { 0 };
	put32(info, 44, 4 + 12 * LINKS);
	put32(info, 48, links_rva);
	mdb_stream(&b, 0x43500001, info, sizeof info);
	add_empty_thread_list(&b);
	size_t file_size = b.len;
	struct sw_snapshot s;
	struct sw_err err;
	/* The stream is optional: a warning, not damage. */
	ck_assert_int_eq(mdb_read(&b, &s, &err), SW_OK);
	ck_assert(has_problem(&s, "warning: Crashpad annotations: more annotation text than a file"));
	ck_assert_uint_gt(s.nannotations, 0);
	ck_assert_uint_lt((uint64_t)s.nannotations * 32, 2 * file_size + 64 * 1024);
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Byte-swapped (big-endian) dumps ----------------------------------- */

/* A PowerPC Mac dump, built in either byte order: system info with a CSD
 * string, misc info, one thread with a context and a stack, a memory list,
 * and two modules (PDB 7.0 and ELF build id CodeView records). Every
 * integer goes through put16/32/64, so the two files differ in each
 * integer's byte order and nowhere else. */
static enum sw_err_code read_ppc_dump(bool big_endian, struct sw_snapshot *s,
                                      struct sw_err *err)
{
	struct mdb b;
	mdb_init_big_endian(&b, big_endian);
	add_system_info(&b, 3, 0x8101, "Darwin 8.11.0");
	uint8_t misc[24] = { 0 };
	put32(misc, 0, sizeof misc);
	put32(misc, 4, 1);
	put32(misc, 8, 0x1c2d);
	mdb_stream(&b, 15, misc, sizeof misc);

	/* The stack: bytes 0..63, then a return address stored as the
	 * process stores a word (in its own byte order). */
	uint8_t stack[64];
	for (int i = 0; i < 64; i++)
		stack[i] = (uint8_t)i;
	put32(stack, 32, 0x1900);
	uint8_t ctx[1004] = { 0 };
	put32(ctx, 0, 0x20000001);   /* MD_CONTEXT_PPC | CONTROL */
	put32(ctx, 4, 0x1800);       /* srr0 */
	put32(ctx, 12 + 4, 0xbfff0000);  /* r1 */
	put32(ctx, 148, 0x1904);     /* lr */
	uint32_t ids[] = { 0x1d03 };
	uint64_t base[] = { 0xbfff0000 };
	uint32_t srva[] = { mdb_add(&b, stack, sizeof stack) }, ssize[] = { sizeof stack };
	uint32_t crva[] = { mdb_add(&b, ctx, sizeof ctx) }, csize[] = { sizeof ctx };
	add_thread_list(&b, 1, ids, base, srva, ssize, crva, csize);

	uint8_t heap[16] = { 0xca, 0xfe, 0xba, 0xbe };
	uint8_t ml[4 + 16];
	put32(ml, 0, 1);
	put64(ml, 4, 0x500000);
	put32(ml, 12, sizeof heap);
	put32(ml, 16, mdb_add(&b, heap, sizeof heap));
	mdb_stream(&b, 5, ml, sizeof ml);

	/* CV_INFO_PDB70: the signature is a uint32 (Breakpad swaps it), the
	 * GUID's Data1-3 are integers, Data4 and the name are bytes. */
	uint8_t cv[24 + 12] = { 0 };
	put32(cv, 0, 0x53445352);
	put32(cv, 4, 0x5a9832e5);
	put16(cv, 8, 0x2872);
	put16(cv, 10, 0x41c1);
	static const uint8_t d4[8] = { 0x83, 0x8e, 0xd9, 0x89, 0x14, 0xe9, 0xb7, 0xff };
	memcpy(cv + 12, d4, sizeof d4);
	put32(cv, 20, 3);
	memcpy(cv + 24, "/b/foo.pdb", 10);
	/* Breakpad's MDCVInfoELF: a uint32 signature, then build id bytes. */
	uint8_t elf[4 + 8] = { 0, 0, 0, 0, 0x10, 0xfa, 0xa6, 0xbb, 0x01, 0x02, 0x03, 0x04 };
	put32(elf, 0, 0x4270454c);
	uint8_t mods[2][108];
	module_record(mods[0], 0x1000, 0x4000, 0x45d35f6c, mdb_string(&b, "/usr/bin/foo"),
	              mdb_add(&b, cv, sizeof cv), sizeof cv);
	put32(mods[0], 24, 0xfeef04bd);
	put32(mods[0], 28, 0x10000);
	put32(mods[0], 32, 0x00050001);
	put32(mods[0], 36, 0x0a280884);
	module_record(mods[1], 0x90000000, 0x2000, 0, mdb_string(&b, "/usr/lib/libbar.so"),
	              mdb_add(&b, elf, sizeof elf), sizeof elf);
	add_module_list(&b, 2, mods);
	return mdb_read(&b, s, err);
}

/* _i: 0 little-endian, 1 big-endian; every decoded value is the same. */
START_TEST(test_big_endian_dump_reads_as_the_little_endian_one)
{
	const bool be = _i == 1;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_msg(read_ppc_dump(be, &s, &err) == SW_OK, "%s", err.msg);
	ck_assert_int_eq(s.sys.big_endian, be);
	ck_assert_uint_eq(s.dump_time, 0x5f000000);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_PPC);
	ck_assert_str_eq(s.sys.cpu_name, "ppc");
	ck_assert_uint_eq(s.sys.word_size, 4);
	ck_assert_uint_eq(s.sys.processor_level, 6);
	ck_assert_uint_eq(s.sys.processor_revision, 0x0d08);
	ck_assert_uint_eq(s.sys.cpu_count, 2);
	ck_assert_int_eq(s.sys.os, SW_OS_MACOS);
	ck_assert_str_eq(s.sys.os_name, "Mac OS X");
	ck_assert_str_eq(s.sys.os_version, "5.1.2600 Darwin 8.11.0");
	ck_assert(s.has_pid);
	ck_assert_uint_eq(s.pid, 0x1c2d);

	ck_assert_uint_eq(s.nthreads, 1);
	const struct sw_thread *t = &s.threads[0];
	ck_assert_uint_eq(t->id, 0x1d03);
	ck_assert_uint_eq(t->teb, 0x7ffdf000);
	ck_assert_uint_eq(t->stack_base, 0xbfff0000);
	ck_assert_uint_eq(t->stack_size, 64);
	ck_assert_uint_eq(t->ctx.context_flags, 0x20000001);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_PPC, "srr0")], 0x1800);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_PPC, "r1")], 0xbfff0000);
	ck_assert_uint_eq(t->ctx.v[reg(SW_CPU_PPC, "lr")], 0x1904);
	/* Memory is in the process's byte order: raw bytes 4..7 make a
	 * big-endian word in the big-endian dump, and a word the process
	 * stored reads back the same in either. */
	uint64_t word;
	ck_assert(sw_mem_read_word(&s, 0xbfff0004, &word));
	ck_assert_uint_eq(word, be ? 0x04050607 : 0x07060504);
	ck_assert(sw_mem_read_word(&s, 0xbfff0020, &word));
	ck_assert_uint_eq(word, 0x1900);
	ck_assert(sw_mem_read_word(&s, 0x500000, &word));
	ck_assert_uint_eq(word, be ? 0xcafebabe : 0xbebafeca);

	ck_assert_uint_eq(s.nmodules, 2);
	const struct sw_module *m = &s.modules[0];
	ck_assert_str_eq(m->code_file, "/usr/bin/foo");
	ck_assert_uint_eq(m->base, 0x1000);
	ck_assert_uint_eq(m->size, 0x4000);
	ck_assert_uint_eq(m->checksum, 0xc5c5);
	ck_assert_uint_eq(m->time_date_stamp, 0x45d35f6c);
	ck_assert_str_eq(m->version, "5.1.2600.2180");
	ck_assert_str_eq(m->debug_id, "5A9832E5287241C1838ED98914E9B7FF3");
	ck_assert_str_eq(m->debug_file, "foo.pdb");
	/* macOS: the code id is the GUID (rust-minidump). */
	ck_assert_str_eq(m->code_id, "5a9832e5287241c1838ed98914e9b7ff");
	/* A build id is bytes: the same debug id in either order. */
	m = &s.modules[1];
	ck_assert_str_eq(m->code_file, "/usr/lib/libbar.so");
	ck_assert_uint_eq(m->base, 0x90000000);
	ck_assert_str_eq(m->debug_id, "BBA6FA1002010403" "0000000000000000" "0");
	ck_assert_str_eq(m->code_id, "10faa6bb01020304");
	ck_assert_str_eq(m->debug_file, "libbar.so");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_span_windows_keep_the_byte_order_and_a_failed_sub_is_empty)
{
	static const uint8_t bytes[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct sw_span file = { bytes, sizeof bytes, 0, true };
	struct sw_span sub = { bytes + 7, 99, 99, false };
	ck_assert(sw_span_sub(file, 2, 4, &sub));
	ck_assert(sub.big_endian);
	ck_assert_uint_eq(sw_u32(sub, 0), 0x03040506);
	ck_assert_uint_eq(sw_u16(sw_span_clip(file, 6, 10), 0), 0x0708);
	/* A window that does not fit leaves no stale bytes to read. */
	ck_assert(!sw_span_sub(file, 6, 4, &sub));
	ck_assert_uint_eq(sub.size, 0);
	ck_assert_ptr_eq(sub.data, bytes);
	ck_assert_uint_eq(sw_u8(sub, 0), 0);
	file.big_endian = false;
	ck_assert_uint_eq(sw_u32(file, 0), 0x04030201);
}
END_TEST

/* err's message without its path (the temporary file's name differs). */
static const char *message_after_path(const struct sw_err *err)
{
	const char *colon = strstr(err->msg, ": ");
	return colon ? colon + 2 : err->msg;
}

START_TEST(test_big_endian_header_damage_is_refused_as_little_endian)
{
	struct sw_snapshot s;
	struct sw_err err;
	char le[sizeof err.msg];
	/* 16 bytes: signature and version, no room for the rest. */
	uint8_t le_head[16] = { 'M', 'D', 'M', 'P', 0x93, 0xa7 };
	uint8_t be_head[16] = { 'P', 'M', 'D', 'M', 0, 0, 0xa7, 0x93 };
	ck_assert(sw_minidump_is(be_head, sizeof be_head));
	ck_assert_int_eq(read_bytes(le_head, sizeof le_head, &s, &err), SW_ERR_FORMAT);
	snprintf(le, sizeof le, "%s", message_after_path(&err));
	sw_snapshot_free(&s);
	ck_assert_int_eq(read_bytes(be_head, sizeof be_head, &s, &err), SW_ERR_FORMAT);
	ck_assert_str_eq(message_after_path(&err), le);
	ck_assert_str_eq(le, "not a minidump (header truncated: 16 of 32 bytes)");
	sw_snapshot_free(&s);
	/* Three bytes of either signature are no minidump. */
	ck_assert_int_eq(read_bytes(be_head, 3, &s, &err), SW_ERR_FORMAT);
	ck_assert_str_eq(message_after_path(&err), "not a minidump (bad signature)");
	sw_snapshot_free(&s);
	/* The version is read in the file's order too. */
	for (int order = 0; order < 2; order++) {
		struct mdb b;
		mdb_init_big_endian(&b, order == 1);
		b.version = 0x1234;
		ck_assert_int_eq(mdb_read(&b, &s, &err), SW_ERR_FORMAT);
		ck_assert_str_eq(message_after_path(&err), "not a minidump (unknown version 0x1234)");
		sw_snapshot_free(&s);
	}
}
END_TEST

/* ---- The real corpus ---------------------------------------------------- */

static enum sw_err_code read_corpus(const char *rel, struct sw_snapshot *s, struct sw_err *err)
{
	char path[512];
	corpus_path(path, sizeof path, rel);
	sw_err_clear(err);
	return sw_minidump_read(path, s, err);
}

static const struct sw_thread *thread_by_id(const struct sw_snapshot *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].id == id)
			return &s->threads[i];
	return NULL;
}

/* rust-minidump/test.dmp (= Breakpad's minidump2.dmp): Windows XP x86. */
START_TEST(test_corpus_windows_x86_test_dmp)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("rust-minidump/test.dmp", &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.os_name, "Windows NT");
	ck_assert_str_eq(s.sys.os_version, "5.1.2600 Service Pack 2");
	ck_assert_str_eq(s.sys.cpu_name, "x86");
	ck_assert_str_eq(s.sys.cpu_info, "GenuineIntel family 6 model 13 stepping 8");
	ck_assert_uint_eq(s.sys.cpu_count, 1);
	ck_assert_uint_eq(s.dump_time, 0x45d35f73);
	ck_assert_uint_eq(s.nthreads, 2);
	ck_assert_uint_eq(s.threads[0].id, 0xbf4);
	ck_assert_uint_eq(s.threads[1].id, 0x11c0);
	ck_assert_uint_eq(s.threads[0].stack_base, 0x12f31c);
	ck_assert_uint_eq(s.threads[0].stack_size, 0xce4);
	ck_assert_uint_eq(s.threads[0].teb, 0x7ffdf000);
	ck_assert_uint_eq(s.threads[0].ctx.v[reg(SW_CPU_X86, "eip")], 0x7c90eb94);
	ck_assert_uint_eq(s.threads[0].ctx.v[reg(SW_CPU_X86, "esp")], 0x12f320);
	ck_assert(s.has_dump_thread_id);
	ck_assert_uint_eq(s.dump_thread_id, 0x11c0);
	ck_assert_uint_eq(s.nmodules, 13);
	ck_assert_int_eq(s.main_module, 0);
	ck_assert_str_eq(s.modules[0].code_file, "c:\\test_app.exe");
	ck_assert_str_eq(s.modules[0].debug_file, "test_app.pdb");
	ck_assert_str_eq(s.modules[0].debug_id, "5A9832E5287241C1838ED98914E9B7FF1");
	ck_assert_str_eq(s.modules[0].code_id, "45D35F6C2d000");
	ck_assert_ptr_null(s.modules[0].version);
	ck_assert_str_eq(s.modules[1].debug_id, "36515FB5D04345E491F672FA2E2878C02");
	ck_assert_str_eq(s.modules[1].version, "5.1.2600.2180");
	/* Crash: EXCEPTION_ACCESS_VIOLATION_WRITE at 0x45 in CrashFunction. */
	ck_assert(s.crash.present);
	ck_assert_uint_eq(s.crash.thread_id, 0xbf4);
	ck_assert_uint_eq(s.crash.code, 0xc0000005);
	ck_assert_uint_eq(s.crash.address, 0x40429e);
	ck_assert_uint_eq(s.crash.nparams, 2);
	ck_assert_uint_eq(s.crash.params[0], 1);
	ck_assert_uint_eq(s.crash.params[1], 0x45);
	const struct sw_regs *c = &s.crash.ctx;
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "eip")], 0x0040429e);
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "esp")], 0x0012fe84);
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "ebp")], 0x0012fe88);
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "ebx")], 0x7c80abc1);
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "edx")], 0x0042bc58);
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "eflags")], 0x00010246);
	ck_assert(s.has_pid);
	ck_assert_uint_eq(s.pid, 3932);
	ck_assert_uint_eq(s.nproblems, 0);
	uint32_t w;
	ck_assert(sw_mem_read_u32(&s, 0x12fe84, &w));  /* the crashing stack */
	sw_snapshot_free(&s);
}
END_TEST

/* breakpad/linux_inline.dmp: Linux amd64, ELF build ids. */
START_TEST(test_corpus_linux_amd64_linux_inline)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("breakpad/linux_inline.dmp", &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.os_name, "Linux");
	ck_assert_str_eq(s.sys.os_version, "5.10.28 -1rodete2-amd64 #1 SMP Debian 5.10.28-1rodete2 "
	                                   "(2021-05-12) x86_64");
	ck_assert_str_eq(s.sys.cpu_name, "amd64");
	ck_assert_str_eq(s.sys.cpu_info, "family 6 model 85 stepping 4");
	ck_assert_uint_eq(s.sys.cpu_count, 72);
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.threads[0].id, 0x20bed2);
	ck_assert_uint_eq(s.nmodules, 8);
	ck_assert_str_eq(s.modules[0].debug_file, "linux_inline");
	ck_assert_str_eq(s.modules[0].debug_id, "BBA6FA10B8AAB33D00000000000000000");
	ck_assert_str_eq(s.modules[0].version, "0.0.0.0");
	ck_assert_str_eq(s.modules[1].debug_file, "linux-vdso.so.1");
	ck_assert_uint_eq(s.modules[0].base, 0x200000);
	ck_assert_uint_eq(s.modules[0].base + s.modules[0].size - 1, 0x2442cf);
	/* SIGILL / ILL_ILLOPN at 0x2161b6 */
	ck_assert_uint_eq(s.crash.code, 4);
	ck_assert_uint_eq(s.crash.flags, 2);
	ck_assert_uint_eq(s.crash.address, 0x2161b6);
	const struct sw_regs *c = &s.crash.ctx;
	ck_assert_uint_eq(c->context_flags, 0x10001f);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "rip")], 0x2161b6);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "rsp")], 0x7fff1669d1a0);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "rbp")], 0x7fff1669e480);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "rax")], 0xabbf3091917e4e00);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "r12")], 0x214640);
	ck_assert(s.has_pid);
	sw_snapshot_free(&s);
}
END_TEST

/* rust-minidump/linux-mini.dmp: Linux streams, checked against
 * rust-minidump's JSON (code ids) and Breakpad's machine output. */
START_TEST(test_corpus_linux_mini_streams_and_code_ids)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("rust-minidump/linux-mini.dmp", &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.os_version, "0.0.0 Linux 4.9.60-linuxkit-aufs #1 SMP Mon Nov 6 "
	                                   "16:00:12 UTC 2017 x86_64");
	ck_assert_uint_eq(s.sys.cpu_count, 4);
	ck_assert_uint_eq(s.nmodules, 8);
	ck_assert_str_eq(s.modules[0].debug_file, "crash");
	ck_assert_str_eq(s.modules[0].debug_id, "C0BCC3F19827FE653058404B2831D9E60");
	ck_assert_str_eq(s.modules[1].code_id, "dfb85de42daffd09640c8fe377d572de3e168920");
	ck_assert_str_eq(s.modules[2].code_id, "b5381a457906d279073822a5ceb24c4bfef94ddb");
	ck_assert_ptr_null(s.modules[0].version);
	ck_assert_uint_eq(s.crash.code, 11);
	ck_assert_uint_eq(s.crash.address, 0x45);
	ck_assert_uint_eq(s.nmaps, 35);
	ck_assert_str_eq(s.maps[0].path, "/work/linux/build/crash");
	ck_assert_uint_eq(s.nlink_map, 8);
	ck_assert_uint_eq(s.nlsb_release, 4);
	ck_assert_str_eq(s.lsb_release[3].value, "Ubuntu 16.04.3 LTS");
	ck_assert_ptr_nonnull(s.cpuinfo);
	ck_assert_ptr_nonnull(s.cmdline);
	sw_snapshot_free(&s);
}
END_TEST

/* rust-minidump/pipeline-inlines-macos-segv.dmp: macOS, contexts whose
 * flags carry only the CPU bit. */
START_TEST(test_corpus_macos_segv)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("rust-minidump/pipeline-inlines-macos-segv.dmp", &s, &err),
	                 SW_OK);
	ck_assert_int_eq(s.sys.os, SW_OS_MACOS);
	ck_assert_str_eq(s.sys.os_name, "Mac OS X");
	ck_assert_str_eq(s.sys.os_version, "11.6.7 20G630");
	ck_assert_str_eq(s.sys.cpu_info, "family 6 model 70 stepping 1");
	ck_assert_uint_eq(s.sys.cpu_count, 8);
	ck_assert_uint_eq(s.nthreads, 11);
	ck_assert_str_eq(s.threads[0].name, "main");
	ck_assert_uint_eq(s.nmodules, 47);
	ck_assert_str_eq(s.modules[0].debug_file, "crash-client");
	ck_assert_str_eq(s.modules[0].debug_id, "509C0610949836F7B70BD88BCF03E5400");
	ck_assert_str_eq(s.modules[0].code_id, "509c0610949836f7b70bd88bcf03e540");
	ck_assert_str_eq(s.modules[1].version, "0.79.0.0");
	ck_assert_uint_eq(s.crash.thread_id, s.threads[0].id);
	ck_assert_uint_eq(s.crash.address, 0xffffffff80000042);
	ck_assert_uint_eq(s.crash.nparams, 3);
	const struct sw_regs *c = &s.crash.ctx;
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "rip")], 0x102a68cd4);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "rsp")], 0x7ffeed1aa9b0);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "r15")], 0x200000000);
	ck_assert_uint_eq(c->v[reg(SW_CPU_AMD64, "rdx")], 0x700008e8b000);
	sw_snapshot_free(&s);
}
END_TEST

/* breakpad/thread_name_list.dmp: Windows x86 with a thread name list. */
START_TEST(test_corpus_thread_name_list)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("breakpad/thread_name_list.dmp", &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.os_version, "10.0.17763 ");
	ck_assert_str_eq(s.sys.cpu_info, "GenuineIntel family 6 model 158 stepping 9");
	ck_assert_uint_eq(s.sys.cpu_count, 8);
	ck_assert_uint_eq(s.nthreads, 6);
	ck_assert_str_eq(thread_by_id(&s, 0x19a4)->name, "main thread");
	ck_assert_str_eq(thread_by_id(&s, 0x2274)->name, "sleep thread");
	ck_assert_str_eq(thread_by_id(&s, 0x2ae0)->name, "overflow thread");
	ck_assert_ptr_null(thread_by_id(&s, 0xce0)->name);
	ck_assert_uint_eq(s.nmodules, 17);
	ck_assert_ptr_null(s.modules[0].debug_id);
	ck_assert_uint_eq(s.nmem, 10);
	ck_assert_uint_eq(s.crash.thread_id, 0x2ae0);
	const struct sw_regs *c = &s.crash.ctx;
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "eip")], 0x004015fd);
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "esp")], 0x01ccff58);
	ck_assert_uint_eq(c->v[reg(SW_CPU_X86, "ecx")], 0x6590004c);
	sw_snapshot_free(&s);
}
END_TEST

/* breakpad/minidump_crashpad_annotation.dmp: iOS simulator (amd64). */
START_TEST(test_corpus_crashpad_annotations_ios)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("breakpad/minidump_crashpad_annotation.dmp", &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.os_name, "iOS");
	ck_assert_str_eq(s.sys.os_version, "16.2.0 22C65");
	ck_assert_str_eq(s.sys.cpu_info, "family 0 model 0 stepping 0");
	ck_assert_uint_eq(s.sys.cpu_count, 12);
	ck_assert_uint_eq(s.nthreads, 7);
	ck_assert_uint_eq(s.crash.code, 0x43506e78);
	ck_assert_uint_eq(s.crash.address, 0x1030e9c34);
	ck_assert_uint_eq(s.crash.ctx.v[reg(SW_CPU_AMD64, "rbx")], 0x600001159c20);
	ck_assert_uint_eq(s.nannotations, 9);
	ck_assert_str_eq(s.annotations[0].key, "crashpad");
	ck_assert_str_eq(s.annotations[0].value, "yes");
	ck_assert_int_eq(s.annotations[4].module, 1);
	ck_assert_str_eq(s.annotations[4].key, "exceptionReason");
	ck_assert_str_eq(s.annotations[4].value,
	                 "*** -[__NSArray0 objectAtIndex:]: index 42 beyond bounds for empty NSArray");
	ck_assert_str_eq(s.annotations[5].value, "NSRangeException");
	ck_assert_int_eq(s.annotations[8].module, 100);
	ck_assert_int_eq(s.annotations[8].kind, SW_ANNOT_LIST);
	ck_assert(s.process_create_time == 1674502631 && s.dump_time == 1674502685);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_corpus_simple_crashpad)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("rust-minidump/simple-crashpad.dmp", &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.os_version, "10.15.7 19H114");
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.nannotations, 3);
	ck_assert_str_eq(s.annotations[0].key, "hello");
	ck_assert_str_eq(s.annotations[0].value, "world");
	ck_assert_int_eq(s.annotations[1].module, 16);
	ck_assert_str_eq(s.annotations[1].value, "abort() called");
	ck_assert_int_eq(s.annotations[2].module, 39);
	ck_assert_str_eq(s.annotations[2].value, "dyld2 mode");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_corpus_invalid_parameter_assertion)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("rust-minidump/invalid-parameter.dmp", &s, &err), SW_OK);
	ck_assert_str_eq(s.assertion,
	                 "Invalid parameter passed to library function format != nullptr in "
	                 "function common_vfprintf, in file "
	                 "minkernel\\crts\\ucrt\\src\\appcrt\\stdio\\output.cpp at line 32");
	ck_assert_uint_eq(s.crash.code, 0xc000000d);
	sw_snapshot_free(&s);
}
END_TEST

/* Breakpad refuses both ("has no thread list"); we say what is broken. */
START_TEST(test_corpus_invalid_range_is_corrupt_with_a_clear_message)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("rust-minidump/invalid-range.dmp", &s, &err), SW_ERR_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "invalid-range.dmp: damaged minidump: "));
	ck_assert_ptr_null(strchr(err.msg, '\n'));
	ck_assert(has_problem(&s, "extends past the end of the file (276 bytes)"));
	ck_assert(has_problem(&s, "no thread list stream"));
	ck_assert_uint_eq(s.nthreads, 0);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_corpus_invalid_record_count_is_corrupt_with_a_clear_message)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_corpus("rust-minidump/invalid-record-count.dmp", &s, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "invalid-record-count.dmp: damaged minidump: "));
	ck_assert(has_problem(&s, "no thread list stream"));
	sw_snapshot_free(&s);
}
END_TEST

/* Every minidump of the corpus reads (the manifest's minidump rows). */
START_TEST(test_corpus_every_minidump_reads)
{
	char path[512];
	FILE *f = fopen(corpus_path(path, sizeof path, "manifest.tsv"), "r");
	ck_assert_ptr_nonnull(f);
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		char folder[64], dump[256], variant[64], kind[32];
		if (line[0] == '#' ||
		    sscanf(line, "%63s %255s %63s %31s", folder, dump, variant, kind) != 4 ||
		    strcmp(kind, "minidump") != 0 || strcmp(variant, "-") != 0)
			continue;
		char rel[400];
		snprintf(rel, sizeof rel, "%s/%s", folder, dump);
		struct sw_snapshot s;
		struct sw_err err;
		enum sw_err_code rc = read_corpus(rel, &s, &err);
		bool invalid = strstr(dump, "invalid-r") != NULL;
		ck_assert_msg(rc == (invalid ? SW_ERR_CORRUPT : SW_OK), "%s: rc %d %s", rel, rc,
		              err.msg);
		/* linux_executable_stack.dmp's DSO debug stream points at text: a
		 * real defect in that file, reported as a warning since the walk
		 * does not depend on that stream. */
		if (strcmp(dump, "linux_executable_stack.dmp") == 0)
			ck_assert(has_problem(&s, "warning: Linux DSO debug"));
		if (!invalid)
			ck_assert_msg(s.nthreads > 0 && s.nmodules > 0 && s.sys.cpu != SW_CPU_UNKNOWN,
			              "%s", rel);
		sw_snapshot_free(&s);
		n++;
	}
	fclose(f);
	ck_assert_int_ge(n, 50);
}
END_TEST

/* ---- Truncation ---------------------------------------------------------- */

static uint8_t *slurp(const char *rel, size_t *n)
{
	char path[512];
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

static const char *const truncation_dumps[] = {
	"rust-minidump/test.dmp",
	"rust-minidump/linux-mini.dmp",
	"rust-minidump/simple-crashpad.dmp",
	"breakpad/thread_name_list.dmp",
	"rust-minidump/invalid-record-count.dmp",
};

/* Every length for the first 4 KB, then steps through the rest: each read
 * returns FORMAT (header cut) or OK/CORRUPT, and never reads out of bounds
 * (the sanitizer build checks that). */
START_TEST(test_truncated_dumps_never_crash)
{
	size_t n;
	uint8_t *d = slurp(truncation_dumps[_i], &n);
	size_t step = n > 40000 ? 97 : 13;
	for (size_t len = 0; len <= n; len += len < 4096 ? 1 : step) {
		struct sw_snapshot s;
		struct sw_err err;
		enum sw_err_code rc = read_bytes(d, len, &s, &err);
		if (len < 32)
			ck_assert_int_eq(rc, SW_ERR_FORMAT);
		else
			ck_assert_msg(rc == SW_OK || rc == SW_ERR_CORRUPT, "len %zu: rc %d %s", len, rc,
			              err.msg);
		if (rc == SW_ERR_CORRUPT)
			ck_assert_uint_gt(s.nproblems, 0);
		for (uint32_t i = 0; i < s.nmem; i++)  /* every region lies in the file */
			ck_assert(s.mem[i].data >= s.file.data &&
			          s.mem[i].data + s.mem[i].size <= s.file.data + s.file.size);
		sw_snapshot_free(&s);
	}
	free(d);
}
END_TEST

/* Flipping bytes of a real dump: never a crash, always a sensible code. */
START_TEST(test_corrupted_bytes_never_crash)
{
	size_t n;
	uint8_t *d = slurp("rust-minidump/test.dmp", &n);
	uint32_t seed = 12345;
	for (int round = 0; round < 600; round++) {
		uint8_t *c = malloc(n);
		memcpy(c, d, n);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245 + 12345;
			size_t pos = 32 + (seed >> 8) % (n - 32);
			seed = seed * 1103515245 + 12345;
			c[pos] = (uint8_t)(seed >> 16);
		}
		struct sw_snapshot s;
		struct sw_err err;
		enum sw_err_code rc = read_bytes(c, n, &s, &err);
		ck_assert(rc == SW_OK || rc == SW_ERR_CORRUPT);
		sw_snapshot_free(&s);
		free(c);
	}
	free(d);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("minidump");
	TCase *t = tcase_create("header");
	tcase_add_test(t, test_rejects_file_without_signature);
	tcase_add_test(t, test_rejects_truncated_header);
	tcase_add_test(t, test_rejects_unknown_version);
	tcase_add_test(t, test_missing_file_is_io_error);
	tcase_add_test(t, test_magic_check);
	tcase_add_test(t, test_header_time_and_empty_dump_without_threads_is_a_problem);
	tcase_add_test(t, test_stream_outside_file_is_a_problem_and_the_rest_is_read);
	tcase_add_test(t, test_directory_past_end_reads_the_entries_that_fit);
	tcase_add_test(t, test_duplicate_stream_uses_the_first);
	suite_add_tcase(s, t);

	t = tcase_create("streams");
	tcase_add_test(t, test_system_info_windows_x86_strings_match_breakpad);
	tcase_add_test(t, test_system_info_amd64_prints_no_vendor_and_empty_csd_keeps_the_space);
	tcase_add_test(t, test_system_info_arm_cpu_info_names_vendor_part_and_features);
	tcase_add_test(t, test_system_info_platform_and_cpu_ids);
	tcase_add_test(t, test_misc_info_flags_decide_pid_and_create_time);
	tcase_add_test(t, test_breakpad_info_gives_dump_and_requesting_threads);
	tcase_add_test(t, test_thread_list_gives_ids_stack_region_and_x86_context);
	tcase_add_test(t, test_x86_context_integer_only_leaves_control_registers_unknown);
	tcase_add_loop_test(t, test_context_layouts_decode_pc_sp_and_a_third_register, 0,
	                    (int)(sizeof layout_cases / sizeof layout_cases[0]));
	tcase_add_test(t, test_context_without_cpu_bits_is_read_by_system_info_cpu_with_a_problem);
	tcase_add_test(t, test_unrecognised_context_is_a_problem_and_leaves_no_registers);
	tcase_add_test(t, test_thread_names_are_utf16_converted_to_utf8);
	tcase_add_test(t, test_huge_thread_count_is_clamped_to_the_stream);
	tcase_add_test(t, test_thread_stack_past_end_keeps_the_intact_part);
	tcase_add_test(t, test_module_pdb70_gives_guid_age_debug_id_and_pdb_basename);
	tcase_add_test(t, test_module_pdb20_gives_signature_age_debug_id);
	tcase_add_test(t, test_module_elf_build_id_gives_swapped_guid_debug_id_and_hex_code_id);
	tcase_add_test(t, test_module_version_needs_the_fixed_file_info_signature);
	tcase_add_test(t, test_module_cv_record_past_end_is_a_problem);
	tcase_add_test(t, test_unloaded_module_list_uses_its_header_and_entry_sizes);
	tcase_add_test(t, test_memory_list_and_memory64_list_become_regions);
	tcase_add_test(t, test_memory_list_padded_after_count_is_accepted);
	tcase_add_test(t, test_memory_range_outside_file_is_a_problem_and_dropped);
	tcase_add_test(t, test_stack_listed_twice_is_one_region_without_a_problem);
	tcase_add_test(t, test_exception_gives_thread_code_address_params_and_context);
	tcase_add_test(t, test_exception_with_too_many_parameters_is_clamped);
	tcase_add_test(t, test_linux_text_streams_maps_lsb_cmdline_environ_microcode);
	tcase_add_test(t, test_dso_debug_gives_link_map_entries);
	tcase_add_test(t, test_assertion_text_is_breakpads);
	tcase_add_test(t, test_crashpad_info_gives_process_and_module_annotations);
	suite_add_tcase(s, t);

	t = tcase_create("bounds");
	tcase_add_test(t, test_module_count_is_clamped_to_the_stream_before_allocating);
	tcase_add_test(t, test_modules_naming_one_string_share_one_decoded_copy);
	tcase_add_test(t, test_codeview_record_shared_by_modules_is_decoded_once);
	tcase_add_test(t, test_dso_debug_entries_naming_one_string_share_one_decoded_copy);
	tcase_add_test(t, test_string_longer_than_4096_bytes_is_cut_at_a_character_with_a_warning);
	tcase_add_test(t, test_module_file_name_longer_than_255_bytes_is_cut);
	tcase_add_test(t, test_string_length_past_the_end_of_the_file_keeps_what_the_file_holds);
	tcase_add_test(t, test_strings_laid_over_each_other_stop_at_the_text_budget);
	tcase_add_test(t, test_stream_directory_of_more_than_4096_entries_reads_4096);
	tcase_add_test(t, test_threads_sharing_one_stack_are_walked_once);
	tcase_add_test(t, test_stackless_threads_on_one_memory_region_are_walked_once);
	tcase_add_test(t, test_split_modules_link_to_the_first_earlier_entry_with_a_lower_base);
	tcase_add_test(t, test_crashpad_annotations_shared_by_many_module_links_stop_at_the_budget);
	suite_add_tcase(s, t);

	t = tcase_create("byte order");
	tcase_add_loop_test(t, test_big_endian_dump_reads_as_the_little_endian_one, 0, 2);
	tcase_add_test(t, test_big_endian_header_damage_is_refused_as_little_endian);
	tcase_add_test(t, test_span_windows_keep_the_byte_order_and_a_failed_sub_is_empty);
	suite_add_tcase(s, t);

	t = tcase_create("corpus");
	tcase_add_test(t, test_corpus_windows_x86_test_dmp);
	tcase_add_test(t, test_corpus_linux_amd64_linux_inline);
	tcase_add_test(t, test_corpus_linux_mini_streams_and_code_ids);
	tcase_add_test(t, test_corpus_macos_segv);
	tcase_add_test(t, test_corpus_thread_name_list);
	tcase_add_test(t, test_corpus_crashpad_annotations_ios);
	tcase_add_test(t, test_corpus_simple_crashpad);
	tcase_add_test(t, test_corpus_invalid_parameter_assertion);
	tcase_add_test(t, test_corpus_invalid_range_is_corrupt_with_a_clear_message);
	tcase_add_test(t, test_corpus_invalid_record_count_is_corrupt_with_a_clear_message);
	tcase_add_test(t, test_corpus_every_minidump_reads);
	suite_add_tcase(s, t);

	t = tcase_create("robustness");
	tcase_set_timeout(t, 600);
	tcase_add_loop_test(t, test_truncated_dumps_never_crash, 0,
	                    (int)(sizeof truncation_dumps / sizeof truncation_dumps[0]));
	tcase_add_test(t, test_corrupted_bytes_never_crash);
	suite_add_tcase(s, t);
	return s;
}
