/* The .snap writer and reader (docs/snap-format.md): every record written
 * by formats/snap_writer.c, into a buffer and through a callback, read back
 * field for field; files cut at every byte and with every bit flipped;
 * bytes lost in transit; a buffer that fills; calls out of order; hostile
 * counts and sizes; then walks of small firmware snapshots. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "arch/registry.h"
#include "formats/open.h"
#include "formats/snap.h"
#include "formats/snap_writer.h"
#include "fuzz_memfd.h"
#include "lib/crash_reason.h"
#include "lib/walker.h"
#include "symbols/elf_image.h"
#include "symbols/store.h"

/* ---- Helpers ---------------------------------------------------------------- */

enum { BIG = 1 << 16 };

/* A stream writer's output: the bytes, and a failure after `fail_at`
 * bytes (0: never). */
struct sink {
	uint8_t data[BIG];
	size_t len, fail_at, calls;
};

static int sink_write(void *ctx, const void *bytes, size_t n)
{
	struct sink *s = ctx;
	s->calls++;
	if (s->fail_at && s->len + n > s->fail_at)
		return -1;
	ck_assert_uint_le(s->len + n, sizeof s->data);
	memcpy(s->data + s->len, bytes, n);
	s->len += n;
	return 0;
}

/* A .snap in memory as a file the reader opens (a memfd). */
struct file {
	int fd;
	char path[FUZZ_PATH_MAX];
};

static enum sw_err_code read_snap(const void *data, size_t n, const struct sw_open_options *o,
                                  struct file *f, struct sw_snapshot *s, struct sw_err *err)
{
	f->fd = fuzz_memfd("test_snap", data, n, f->path);
	ck_assert_int_ge(f->fd, 0);
	sw_err_clear(err);
	return sw_snap_read(f->path, o, s, err);
}

/* The same bytes opened as the CLI opens any file: by their magic
 * (sw_snapshot_open), not by the .snap reader directly. */
static enum sw_err_code open_snap(const void *data, size_t n, struct file *f,
                                  struct sw_snapshot *s, struct sw_err *err)
{
	f->fd = fuzz_memfd("test_snap", data, n, f->path);
	ck_assert_int_ge(f->fd, 0);
	sw_err_clear(err);
	return sw_snapshot_open(f->path, s, err);
}

static void done(struct file *f, struct sw_snapshot *s)
{
	sw_snapshot_free(s);
	close(f->fd);
}

static bool has_problem(const struct sw_snapshot *s, const char *needle)
{
	for (uint32_t i = 0; i < s->nproblems; i++)
		if (strstr(s->problems[i], needle))
			return true;
	return false;
}

static const struct sw_thread *thread_with_id(const struct sw_snapshot *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].id == id)
			return &s->threads[i];
	return NULL;
}

static uint64_t reg(const struct sw_snapshot *s, const struct sw_thread *t, const char *name)
{
	const struct sw_arch *a = sw_arch_for_cpu(s->sys.cpu);
	int i = sw_arch_reg_index(a, name, strlen(name));
	ck_assert_msg(i >= 0 && sw_reg_valid(&t->ctx, (unsigned)i), "%s not valid", name);
	return t->ctx.v[i];
}

static uint64_t extra(const struct sw_thread *t, const char *name)
{
	uint64_t v = 0;
	ck_assert_msg(sw_thread_extra_reg(t, name, &v), "no extra register %s", name);
	return v;
}

static uint32_t crc_of(const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

/* ---- The snapshot every round trip writes --------------------------------- */

#define FW_BASE 0x08000000u
#define STACK 0x20001f00u
#define ZBASE 0x20000000u

static const uint8_t build_id[20] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
                                      0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3 };

static uint8_t stack_bytes[64];
static uint8_t zplain[4096];

static uint32_t cortex_m_regs[SNAP_CM_NREGS];

static void fill_inputs(void)
{
	for (unsigned i = 0; i < sizeof stack_bytes; i++)
		stack_bytes[i] = (uint8_t)(i * 7 + 1);
	for (unsigned i = 0; i < sizeof zplain; i++)
		zplain[i] = (uint8_t)(i % 61);
	for (unsigned i = 0; i < SNAP_CM_NREGS; i++)
		cortex_m_regs[i] = 0x1000 + i;
	cortex_m_regs[SNAP_CM_SP] = STACK;
	cortex_m_regs[SNAP_CM_PC] = FW_BASE + 0xc8;
	/* EPSR.T and exception number 35 (IRQ 19): bit 5 is IPSR's. */
	cortex_m_regs[SNAP_CM_XPSR] = 0x81000023u;
	cortex_m_regs[SNAP_CM_PSP] = STACK;
	cortex_m_regs[SNAP_CM_EXC_RETURN] = 0xfffffffdu;
	cortex_m_regs[SNAP_CM_CFSR] = 1u << 16;
}

/* Every record type, as a firmware crash writes them; returns the first
 * status that was not SNAP_OK. */
static int write_everything(struct snap_writer *w)
{
	static uint8_t z[8192];
	uLongf zlen = sizeof z;
	ck_assert_int_eq(compress2(z, &zlen, zplain, sizeof zplain, 9), Z_OK);
	int rc;
	if ((rc = snap_begin(w, &(struct snap_header){
		                        .cpu = SNAP_CPU_ARM, .word_size = 4, .time = 1700000000,
		                        .cpu_variant = SNAP_ARM_VARIANT('M', 7, 0,
		                                                        SNAP_ARM_FPU | SNAP_ARM_DSP) })))
		return rc;
	if ((rc = snap_system(w, &(struct snap_system){ .os = SNAP_OS_NONE, .os_name = "FreeRTOS",
	                                                .os_version = "10.5.1",
	                                                .cpu_model = "Cortex-M4F",
	                                                .device = "board B",
	                                                .firmware_version = "1.2.3" })))
		return rc;
	if ((rc = snap_module(w, "build/firmware.elf", FW_BASE, 0x1000, 0, build_id,
	                      sizeof build_id)))
		return rc;
	if ((rc = snap_crash(w, &(struct snap_crash){ .thread_id = 1,
	                                              .kind = SNAP_CRASH_CPU_EXCEPTION,
	                                              .flags = SNAP_CRASH_HAS_ADDRESS, .code = 3,
	                                              .subcode = 1u << 16, .address = 0xdead0 })))
		return rc;
	if ((rc = snap_thread(w, &(struct snap_thread){ .id = 1, .regset = SNAP_REGSET_CORTEX_M,
	                                                .flags = SNAP_THREAD_RUNNING,
	                                                .name = "main_task",
	                                                .valid = SNAP_MASK(SNAP_CM_NREGS),
	                                                .values = cortex_m_regs,
	                                                .stack_lo = 0x20001000,
	                                                .stack_hi = 0x20002000 })))
		return rc;
	if ((rc = snap_memory(w, STACK, stack_bytes, sizeof stack_bytes)))
		return rc;
	if ((rc = snap_thread(w, &(struct snap_thread){ .id = 2, .regset = SNAP_REGSET_CORTEX_M })))
		return rc;
	if ((rc = snap_memory_zlib(w, ZBASE, sizeof zplain, z, zlen)))
		return rc;
	if ((rc = snap_annotation(w, "boot_count", "17")))
		return rc;
	return snap_end(w);
}

/* Where write_everything()'s stack record starts: its head is the
 * MEMORY type and a length of base + the 64 stack bytes. */
static size_t stack_record_at(const uint8_t *buf, size_t n)
{
	const uint8_t head[8] = { SNAP_REC_MEMORY, 0, 0, 0, 8 + sizeof stack_bytes, 0, 0, 0 };
	const uint8_t *at = memmem(buf, n, head, sizeof head);
	ck_assert_ptr_nonnull(at);
	return (size_t)(at - buf);
}

static size_t write_everything_to(uint8_t *buf, size_t cap)
{
	struct snap_writer w;
	snap_init_buffer(&w, buf, cap);
	ck_assert_int_eq(write_everything(&w), SNAP_OK);
	return snap_size(&w);
}

/* ---- Round trips ------------------------------------------------------------ */

START_TEST(test_every_field_written_is_read_back)
{
	fill_inputs();
	static uint8_t buf[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, n, NULL, &f, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	ck_assert_str_eq(s.format, "snap");

	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM);
	ck_assert_str_eq(s.sys.cpu_name, "arm");
	ck_assert_uint_eq(s.sys.word_size, 4);
	ck_assert(!s.sys.big_endian);
	ck_assert_int_eq(s.sys.arm_profile, 'M');
	ck_assert_uint_eq(s.sys.processor_level, 7);
	ck_assert_int_eq(s.sys.os, SW_OS_NONE);
	ck_assert_str_eq(s.sys.os_name, "FreeRTOS");
	ck_assert_str_eq(s.sys.os_version, "10.5.1");
	ck_assert_str_eq(s.sys.cpu_info, "Cortex-M4F, board B");
	ck_assert_uint_eq(s.dump_time, 1700000000);

	ck_assert_uint_eq(s.nmodules, 1);
	const struct sw_module *m = &s.modules[0];
	ck_assert_uint_eq(m->base, FW_BASE);
	ck_assert_uint_eq(m->size, 0x1000);
	ck_assert_uint_eq(m->load_bias, 0);
	ck_assert_str_eq(m->code_file, "build/firmware.elf");
	ck_assert_str_eq(m->debug_file, "firmware.elf");
	ck_assert_str_eq(m->code_id, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
	ck_assert_str_eq(m->debug_id, "A3A2A1A0A5A4A7A6A8A9AAABACADAEAF0");
	ck_assert_str_eq(m->version, "1.2.3");
	ck_assert_int_eq(s.main_module, 0);

	ck_assert(s.crash.present);
	ck_assert_uint_eq(s.crash.thread_id, 1);
	ck_assert_uint_eq(s.crash.code, 3);
	ck_assert_uint_eq(s.crash.flags, 1u << 16);
	ck_assert_uint_eq(s.crash.address, 0xdead0);
	ck_assert_ptr_null(s.crash.reason);
	char why[128];
	ck_assert_str_eq(sw_crash_reason(&s, SW_REASON_BREAKPAD, why, sizeof why),
	                 "HardFault / UNDEFINSTR");

	ck_assert_uint_eq(s.nthreads, 2);
	const struct sw_thread *t = thread_with_id(&s, 1);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->name, "main_task");
	ck_assert_int_eq(t->cpu, SW_CPU_ARM);
	for (unsigned i = 0; i <= 12; i++) {
		char name[8];
		snprintf(name, sizeof name, "r%u", i);
		ck_assert_uint_eq(reg(&s, t, name), 0x1000 + i);
	}
	ck_assert_uint_eq(reg(&s, t, "sp"), STACK);
	ck_assert_uint_eq(reg(&s, t, "lr"), 0x1000 + SNAP_CM_LR);
	ck_assert_uint_eq(reg(&s, t, "pc"), FW_BASE + 0xc8);
	/* cpsr: N from xPSR, T (bit 24) moved to bit 5, IPSR's 35 gone. */
	ck_assert_uint_eq(reg(&s, t, "cpsr"), 0x80000020u);
	ck_assert_uint_eq(extra(t, "xpsr"), 0x81000023u);
	ck_assert_uint_eq(extra(t, "msp"), 0x1000 + SNAP_CM_MSP);
	ck_assert_uint_eq(extra(t, "psp"), STACK);
	ck_assert_uint_eq(extra(t, "control"), 0x1000 + SNAP_CM_CONTROL);
	ck_assert_uint_eq(extra(t, "exc_return"), 0xfffffffdu);
	ck_assert_uint_eq(extra(t, "cfsr"), 1u << 16);
	ck_assert_uint_eq(extra(t, "sfar"), 0x1000 + SNAP_CM_SFAR);
	ck_assert_uint_eq(extra(t, "psp_ns"), 0x1000 + SNAP_CM_PSP_NS);
	ck_assert_uint_eq(extra(t, "fpccr"), 0x1000 + SNAP_CM_FPCCR);
	ck_assert_uint_eq(t->nextra_regs, 23);
	ck_assert_uint_eq(t->stack_base, 0x20001000);
	ck_assert_uint_eq(t->stack_size, 0x1000);
	const struct sw_thread *idle = thread_with_id(&s, 2);
	ck_assert_ptr_nonnull(idle);
	ck_assert_ptr_null(idle->name);
	ck_assert_uint_eq(idle->ctx.valid, 0);
	ck_assert_uint_eq(idle->nextra_regs, 0);

	ck_assert_uint_eq(s.nmem, 2);
	uint8_t got[sizeof zplain];
	ck_assert(sw_mem_read(&s, STACK, got, sizeof stack_bytes));
	ck_assert_mem_eq(got, stack_bytes, sizeof stack_bytes);
	ck_assert(!sw_mem_read(&s, STACK, got, sizeof stack_bytes + 1));
	ck_assert(sw_mem_read(&s, ZBASE, got, sizeof zplain));
	ck_assert_mem_eq(got, zplain, sizeof zplain);

	ck_assert_uint_eq(s.nannotations, 3);
	ck_assert_str_eq(s.annotations[0].key, "boot_count");
	ck_assert_str_eq(s.annotations[0].value, "17");
	ck_assert_str_eq(s.annotations[1].key, "device");
	ck_assert_str_eq(s.annotations[2].value, "1.2.3");
	done(&f, &s);
}
END_TEST

START_TEST(test_stream_writes_the_buffers_bytes)
{
	fill_inputs();
	static uint8_t buf[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	static struct sink out;
	memset(&out, 0, sizeof out);
	struct snap_writer w;
	snap_init_stream(&w, sink_write, &out);
	ck_assert_int_eq(write_everything(&w), SNAP_OK);
	ck_assert_uint_eq(out.len, n);
	ck_assert_uint_eq(snap_size(&w), n);
	ck_assert_mem_eq(out.data, buf, n);
	ck_assert_uint_eq(snap_room(&w), 0); /* ended */
}
END_TEST

/* The CRCs are zlib's: the header's over its first 28 bytes, a record's
 * over its head and payload. */
START_TEST(test_crcs_are_zlibs_crc32)
{
	ck_assert_uint_eq(crc_of((const uint8_t *)"123456789", 9), 0xcbf43926u);
	uint8_t buf[256];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_RISCV64,
	                                                       .word_size = 8 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_annotation(&w, "k", "value"), SNAP_OK);
	ck_assert_mem_eq(buf, SNAP_MAGIC, SNAP_MAGIC_SIZE);
	uint32_t stored;
	memcpy(&stored, buf + 28, 4); /* little-endian host: the tests run on one */
	ck_assert_uint_eq(stored, crc_of(buf, 28));
	ck_assert_uint_eq(snap_size(&w), 32 + 8 + 10 + 4);
	memcpy(&stored, buf + 32 + 8 + 10, 4);
	ck_assert_uint_eq(stored, crc_of(buf + 32, 8 + 10));
}
END_TEST

START_TEST(test_riscv_trap_registers)
{
	uint8_t buf[1024];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	uint32_t v[SNAP_RV_NREGS] = { 0 };
	v[SNAP_RV_SP] = 0x3fc80010;
	v[SNAP_RV_MCAUSE] = 2;
	v[SNAP_RV_MEPC] = 0x42000088;
	v[SNAP_RV_MTVAL] = 0xffff;
	v[SNAP_RV_MSTATUS] = 0x1880;
	v[SNAP_RV_VLENB] = 16;
	/* No pc: the trap handler gives the interrupted code's registers. */
	uint64_t mask = ((uint64_t)1 << SNAP_RV_SP) | ((uint64_t)1 << SNAP_RV_MCAUSE) |
	                ((uint64_t)1 << SNAP_RV_MEPC) | ((uint64_t)1 << SNAP_RV_MTVAL) |
	                ((uint64_t)1 << SNAP_RV_MSTATUS) | ((uint64_t)1 << SNAP_RV_VLENB);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){
		                                .cpu = SNAP_CPU_RISCV32, .word_size = 4,
		                                .cpu_variant = SNAP_RISCV_EXT('I') | SNAP_RISCV_EXT('M') |
		                                               SNAP_RISCV_EXT('A') | SNAP_RISCV_EXT('C') }),
	                 SNAP_OK);
	ck_assert_uint_eq(SNAP_RISCV_EXT('I') | SNAP_RISCV_EXT('M') | SNAP_RISCV_EXT('A') |
	                          SNAP_RISCV_EXT('C'),
	                  0x1105);
	ck_assert_int_eq(snap_system(&w, &(struct snap_system){ .os = SNAP_OS_NONE }), SNAP_OK);
	ck_assert_int_eq(snap_crash(&w, &(struct snap_crash){ .thread_id = 7,
	                                                      .kind = SNAP_CRASH_CPU_EXCEPTION,
	                                                      .code = 2 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .id = 7, .regset = SNAP_REGSET_RISCV,
	                                                        .valid = mask, .values = v }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_RISCV32);
	ck_assert_str_eq(s.sys.os_name, "Bare metal");
	const struct sw_thread *t = &s.threads[0];
	ck_assert_uint_eq(reg(&s, t, "pc"), 0x42000088);
	ck_assert_uint_eq(reg(&s, t, "sp"), 0x3fc80010);
	ck_assert_uint_eq(reg(&s, t, "vlenb"), 16);
	ck_assert_uint_eq(extra(t, "mcause"), 2);
	ck_assert_uint_eq(extra(t, "mepc"), 0x42000088);
	ck_assert_uint_eq(extra(t, "mtval"), 0xffff);
	ck_assert_uint_eq(extra(t, "mstatus"), 0x1880);
	char why[64];
	ck_assert_str_eq(sw_crash_reason(&s, SW_REASON_RUST, why, sizeof why), "Illegal instruction");
	done(&f, &s);
}
END_TEST

/* A fault handler that leaves CFSR out of the CRASH record but has it among
 * the registers: the crash is named by it all the same. */
START_TEST(test_a_cortex_m_crash_without_fault_status_takes_the_threads_cfsr)
{
	uint8_t buf[1024];
	uint32_t v[SNAP_CM_NREGS] = { 0 };
	v[SNAP_CM_CFSR] = 1u << 9 | 1u << 15; /* PRECISERR, BFARVALID */
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4,
	                                                       .cpu_variant = SNAP_ARM_VARIANT('M', 7, 0, 0) }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_system(&w, &(struct snap_system){ .os = SNAP_OS_NONE }), SNAP_OK);
	ck_assert_int_eq(snap_crash(&w, &(struct snap_crash){ .thread_id = 1,
	                                                      .kind = SNAP_CRASH_CPU_EXCEPTION,
	                                                      .code = 5 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .id = 1, .regset = SNAP_REGSET_CORTEX_M,
	                                                        .valid = (uint64_t)1 << SNAP_CM_CFSR,
	                                                        .values = v }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	char why[64];
	ck_assert_str_eq(sw_crash_reason(&s, SW_REASON_RUST, why, sizeof why),
	                 "BusFault / PRECISERR");
	done(&f, &s);
}
END_TEST

/* The target's byte order is its memory's; the format's integers stay
 * little-endian. */
START_TEST(test_a_big_endian_targets_memory_reads_big_endian)
{
	uint8_t buf[512];
	static const uint8_t word[4] = { 0x12, 0x34, 0x56, 0x78 };
	uint32_t v[37] = { 0 };
	v[1] = 0x7fff0000;
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_PPC, .word_size = 4,
	                                                       .big_endian = 1 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .regset = SNAP_REGSET_PPC,
	                                                        .valid = 2, .values = v }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_memory(&w, 0x7fff0000, word, sizeof word), SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	ck_assert(s.sys.big_endian);
	ck_assert_uint_eq(reg(&s, &s.threads[0], "r1"), 0x7fff0000);
	uint64_t got;
	ck_assert(sw_mem_read_word(&s, 0x7fff0000, &got));
	ck_assert_uint_eq(got, 0x12345678);
	done(&f, &s);
}
END_TEST

/* Sets 1-6 are the arch tables' registers, number for number: a thread
 * with every register of its set has every register of its arch. */
static const struct {
	uint16_t cpu, regset;
	uint8_t word_size, nregs;
} identity_sets[] = {
	{ SNAP_CPU_X86, SNAP_REGSET_X86, 4, 10 },     { SNAP_CPU_AMD64, SNAP_REGSET_AMD64, 8, 18 },
	{ SNAP_CPU_ARM, SNAP_REGSET_ARM, 4, 17 },     { SNAP_CPU_ARM64, SNAP_REGSET_ARM64, 8, 34 },
	{ SNAP_CPU_MIPS, SNAP_REGSET_MIPS, 4, 35 },   { SNAP_CPU_MIPS64, SNAP_REGSET_MIPS, 8, 35 },
	{ SNAP_CPU_PPC, SNAP_REGSET_PPC, 4, 37 },     { SNAP_CPU_PPC64, SNAP_REGSET_PPC, 8, 37 },
};

START_TEST(test_register_sets_are_the_arch_tables)
{
	uint8_t buf[2048];
	uint64_t v64[64];
	uint32_t v32[64];
	for (unsigned i = 0; i < 64; i++) {
		v64[i] = 0x1111000000000000ull + i;
		v32[i] = 0x11110000u + i;
	}
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	uint8_t ws = identity_sets[_i].word_size;
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = identity_sets[_i].cpu,
	                                                       .word_size = ws }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){
		                                 .regset = identity_sets[_i].regset,
		                                 .valid = SNAP_MASK(identity_sets[_i].nregs),
		                                 .values = ws == 4 ? (const void *)v32 : (const void *)v64 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	const struct sw_arch *a = sw_arch_for_cpu(s.sys.cpu);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->nregs, identity_sets[_i].nregs);
	ck_assert_uint_eq(a->word_size, ws);
	for (unsigned i = 0; i < a->nregs; i++)
		ck_assert_uint_eq(s.threads[0].ctx.v[i], ws == 4 ? v32[i] : v64[i]);
	ck_assert_uint_eq(s.threads[0].ctx.valid, SNAP_MASK(a->nregs));
	done(&f, &s);
}
END_TEST

/* ---- Damage ------------------------------------------------------------------ */

/* No newline: the CLI prints the message as one line. */
static void assert_one_line(const struct sw_err *err)
{
	ck_assert_msg(strchr(err->msg, '\n') == NULL, "message over lines: %s", err->msg);
	ck_assert_msg(err->msg[0] != '\0', "no message");
}

START_TEST(test_a_file_cut_at_every_byte_keeps_what_is_intact)
{
	fill_inputs();
	static uint8_t buf[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	uint32_t prev_threads = 0, prev_mem = 0;
	for (size_t len = 0; len <= n; len++) {
		struct file f;
		struct sw_snapshot s;
		struct sw_err err;
		enum sw_err_code rc = open_snap(buf, len, &f, &s, &err);
		if (len < SNAP_MAGIC_SIZE) {
			ck_assert_int_eq(rc, SW_ERR_FORMAT); /* not a snapshot at all */
		} else if (len < SNAP_HEADER_SIZE) {
			ck_assert_int_eq(rc, SW_ERR_FORMAT);
			ck_assert_msg(strstr(err.msg, "shorter than its 32-byte header"), "%s", err.msg);
		} else if (len < n) {
			ck_assert_msg(rc == SW_ERR_CORRUPT, "cut at %zu: %d %s", len, rc, err.msg);
			ck_assert(has_problem(&s, "no END record") || has_problem(&s, "cut by the end"));
			/* What was read before stays read. */
			ck_assert_uint_ge(s.nthreads, prev_threads);
			ck_assert_uint_ge(s.nmem + 1, prev_mem);
			prev_threads = s.nthreads;
			prev_mem = s.nmem;
		} else {
			ck_assert_int_eq(rc, SW_OK);
			ck_assert_uint_eq(s.nthreads, 2);
		}
		if (rc != SW_OK)
			assert_one_line(&err);
		done(&f, &s);
	}
}
END_TEST

/* A device that dies while writing its stack: the record's first bytes
 * are kept (unverified), the stack near sp first. */
START_TEST(test_a_memory_record_cut_by_the_end_keeps_its_bytes)
{
	fill_inputs();
	static uint8_t buf[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	/* The stack's record: its head, base, then 20 of its 64 bytes. */
	size_t cut = stack_record_at(buf, n) + 8 + 8 + 20;
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, cut, NULL, &f, &s, &err), SW_ERR_CORRUPT);
	assert_one_line(&err);
	ck_assert_msg(strstr(err.msg, "MEMORY record of 72 bytes cut by the end of the file: the "
	                              "28 bytes there are kept, unverified"),
	              "%s", err.msg);
	uint8_t got[20];
	ck_assert(sw_mem_read(&s, STACK, got, sizeof got));
	ck_assert_mem_eq(got, stack_bytes, sizeof got);
	ck_assert(!sw_mem_read(&s, STACK + 20, got, 1));
	ck_assert_uint_eq(s.nthreads, 1);
	done(&f, &s);
}
END_TEST

/* CRC-32 catches every error of one bit: a flip anywhere is reported, and
 * never crashes the reader. One bit of each byte, a different one from
 * byte to byte (all 8 of every byte take 8 times as long, and find
 * nothing more: the CRC's guarantee does not depend on the bit). */
START_TEST(test_every_single_bit_flip_is_reported)
{
	fill_inputs();
	static uint8_t buf[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	for (size_t byte = 0; byte < n; byte++) {
		size_t bit = byte * 8 + byte % 8;
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		struct file f;
		struct sw_snapshot s;
		struct sw_err err;
		enum sw_err_code rc = open_snap(buf, n, &f, &s, &err);
		ck_assert_msg(rc == SW_ERR_CORRUPT || rc == SW_ERR_FORMAT || rc == SW_ERR_UNSUPPORTED,
		              "bit %zu flipped: %d, %u problems", bit, rc, s.nproblems);
		assert_one_line(&err);
		if (bit >= SNAP_HEADER_SIZE * 8) {
			/* A damaged record is dropped alone. */
			ck_assert_int_eq(rc, SW_ERR_CORRUPT);
			ck_assert_uint_ge(s.nthreads, 1);
		}
		done(&f, &s);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}
END_TEST

/* A UART that drops a byte (or adds one): the records after it are found
 * again by their CRCs. */
START_TEST(test_records_after_a_lost_or_added_byte_are_found_again)
{
	fill_inputs();
	static uint8_t buf[BIG], bad[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	size_t at = stack_record_at(buf, n) + 30;
	for (int added = 0; added < 2; added++) {
		memcpy(bad, buf, at);
		size_t m;
		if (added) {
			bad[at] = 0x55;
			memcpy(bad + at + 1, buf + at, n - at);
			m = n + 1;
		} else {
			memcpy(bad + at, buf + at + 1, n - at - 1);
			m = n - 1;
		}
		struct file f;
		struct sw_snapshot s;
		struct sw_err err;
		ck_assert_int_eq(read_snap(bad, m, NULL, &f, &s, &err), SW_ERR_CORRUPT);
		ck_assert_msg(strstr(err.msg, "that are no intact record"), "%s", err.msg);
		ck_assert_msg(strstr(err.msg, "and 1 more") == NULL, "%s", err.msg);
		/* Everything but the stack. */
		ck_assert_uint_eq(s.nthreads, 2);
		ck_assert_uint_eq(s.nmem, 1);
		ck_assert_uint_eq(s.mem[0].base, ZBASE);
		ck_assert_uint_eq(s.nannotations, 3);
		done(&f, &s);
	}
}
END_TEST

/* A record lost whole (a transfer that drops packets at record
 * boundaries): only END's count tells. */
START_TEST(test_end_counts_the_records_before_it)
{
	uint8_t buf[512];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_X86, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_annotation(&w, "a", "1"), SNAP_OK);
	size_t first = snap_size(&w);
	ck_assert_int_eq(snap_annotation(&w, "b", "2"), SNAP_OK);
	size_t second = snap_size(&w);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	size_t n = snap_size(&w);
	memmove(buf + first, buf + second, n - second);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, n - (second - first), NULL, &f, &s, &err), SW_ERR_CORRUPT);
	ck_assert_msg(strstr(err.msg, "the END record counts 2 records before it, 1 were found"),
	              "%s", err.msg);
	done(&f, &s);
}
END_TEST

/* Flash a partition was read from: erased (0xff) after the snapshot. */
START_TEST(test_erased_flash_after_or_instead_of_end)
{
	static uint8_t buf[4096];
	memset(buf, 0xff, sizeof buf);
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_annotation(&w, "a", "1"), SNAP_OK);
	size_t before_end = snap_size(&w);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	size_t n = snap_size(&w);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	/* After END: not the snapshot's, and no problem. */
	ck_assert_int_eq(read_snap(buf, sizeof buf, NULL, &f, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	done(&f, &s);
	/* Other bytes after END: a warning. */
	memcpy(buf + n, "junk", 4);
	ck_assert_int_eq(read_snap(buf, sizeof buf, NULL, &f, &s, &err), SW_OK);
	char want[64];
	snprintf(want, sizeof want, "warning: %zu bytes after the END record", sizeof buf - n);
	ck_assert_msg(has_problem(&s, want), "%s", s.nproblems ? s.problems[0] : "no problem");
	done(&f, &s);
	/* The writer stopped before END: erased flash where it would be. */
	memset(buf + before_end, 0xff, sizeof buf - before_end);
	ck_assert_int_eq(read_snap(buf, sizeof buf, NULL, &f, &s, &err), SW_ERR_CORRUPT);
	ck_assert_msg(strstr(err.msg, "no END record: the file ends in"), "%s", err.msg);
	ck_assert_uint_eq(s.nannotations, 1);
	done(&f, &s);
}
END_TEST

static size_t small_file(uint8_t *buf, size_t cap, uint16_t cpu, uint8_t ws)
{
	struct snap_writer w;
	snap_init_buffer(&w, buf, cap);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = cpu, .word_size = ws }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_annotation(&w, "a", "1"), SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	return snap_size(&w);
}

static void fix_header_crc(uint8_t *buf)
{
	uint32_t crc = crc_of(buf, 28);
	for (int i = 0; i < 4; i++)
		buf[28 + i] = (uint8_t)(crc >> (8 * i));
}

START_TEST(test_headers_that_cannot_be_read)
{
	uint8_t buf[256];
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	size_t n = small_file(buf, sizeof buf, SNAP_CPU_ARM, 4);
	buf[8] = 2;
	fix_header_crc(buf);
	ck_assert_int_eq(read_snap(buf, n, NULL, &f, &s, &err), SW_ERR_UNSUPPORTED);
	ck_assert_msg(strstr(err.msg, ".snap version 2, which this stackwalk does not read"), "%s",
	              err.msg);
	done(&f, &s);
	n = small_file(buf, sizeof buf, 77, 4);
	ck_assert_int_eq(read_snap(buf, n, NULL, &f, &s, &err), SW_ERR_FORMAT);
	ck_assert_msg(strstr(err.msg, "CPU id 77 is none of the format's"), "%s", err.msg);
	done(&f, &s);
	n = small_file(buf, sizeof buf, SNAP_CPU_ARM64, 4);
	ck_assert_int_eq(read_snap(buf, n, NULL, &f, &s, &err), SW_ERR_FORMAT);
	ck_assert_msg(strstr(err.msg, "word size 4 for a 8-byte CPU"), "%s", err.msg);
	done(&f, &s);
	/* A bad CRC over readable fields: a problem, the records read. */
	n = small_file(buf, sizeof buf, SNAP_CPU_ARM, 4);
	buf[20] ^= 1;
	ck_assert_int_eq(read_snap(buf, n, NULL, &f, &s, &err), SW_ERR_CORRUPT);
	ck_assert_msg(strstr(err.msg, "header: bad CRC"), "%s", err.msg);
	ck_assert_uint_eq(s.nannotations, 1);
	done(&f, &s);
}
END_TEST

/* A later revision's header is larger: its CRC is at its end, the records
 * after it. */
START_TEST(test_a_larger_header_is_read_up_to_what_is_known)
{
	uint8_t buf[256], big[300];
	size_t n = small_file(buf, sizeof buf, SNAP_CPU_ARM, 4);
	memcpy(big, buf, 28);
	big[10] = 40;
	memset(big + 28, 0xaa, 8);
	uint32_t crc = crc_of(big, 36);
	for (int i = 0; i < 4; i++)
		big[36 + i] = (uint8_t)(crc >> (8 * i));
	memcpy(big + 40, buf + 32, n - 32);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(big, n + 8, NULL, &f, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nannotations, 1);
	done(&f, &s);
}
END_TEST

/* A later revision's records and fields, and a project's own records. */
START_TEST(test_unknown_records_and_trailing_fields_are_skipped)
{
	uint8_t buf[512];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	/* A project's record, in pieces. */
	ck_assert_int_eq(snap_record_begin(&w, 0x8001, 6), SNAP_OK);
	ck_assert_int_eq(snap_record_write(&w, "abc", 3), SNAP_OK);
	ck_assert_int_eq(snap_record_write(&w, "def", 3), SNAP_OK);
	ck_assert_int_eq(snap_record_end(&w), SNAP_OK);
	/* An ANNOTATION with a trailing field of a later revision. */
	ck_assert_int_eq(snap_record_begin(&w, SNAP_REC_ANNOTATION, 3 + 3 + 4), SNAP_OK);
	ck_assert_int_eq(snap_record_write(&w, "\1\0k\1\0v" "more", 10), SNAP_OK);
	ck_assert_int_eq(snap_record_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nproblems, 0);
	ck_assert_uint_eq(s.nannotations, 1);
	ck_assert_str_eq(s.annotations[0].key, "k");
	ck_assert_str_eq(s.annotations[0].value, "v");
	done(&f, &s);
	/* A later revision's record type: a warning. */
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_record_begin(&w, 9, 0), SNAP_OK);
	ck_assert_int_eq(snap_record_end(&w), SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	ck_assert(has_problem(&s, "warning: offset 32: record type 0x9 is not one this stackwalk "
	                          "knows"));
	done(&f, &s);
}
END_TEST

/* Counts and sizes a hostile file claims are checked before they cost
 * memory: a MEMORY_ZLIB record that says 200 MiB from a few bytes. */
START_TEST(test_a_compressed_size_claim_beyond_deflates_ratio_is_dropped)
{
	uint8_t buf[512];
	static const uint8_t zeros[16];
	uint8_t z[64];
	uLongf zlen = sizeof z;
	ck_assert_int_eq(compress2(z, &zlen, zeros, sizeof zeros, 9), Z_OK);
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_memory_zlib(&w, 0x1000, 200u << 20, z, zlen), SNAP_OK);
	ck_assert_int_eq(snap_memory_zlib(&w, 0x2000, 32, z, zlen), SNAP_OK); /* a short stream */
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "claims 209715200 bytes from"));
	ck_assert(has_problem(&s, "inflates to 16 of its 32 bytes (the stream ends early)"));
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].size, 16);
	ck_assert_uint_le(s.arena.total, 1u << 20);
	done(&f, &s);
}
END_TEST

START_TEST(test_fields_that_do_not_fit_drop_their_record)
{
	uint8_t buf[512];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	/* A thread whose mask claims 64 registers and holds 1. */
	uint8_t t[34 + 4] = { 1, 0, 0, 0, SNAP_REGSET_ARM, 0 };
	memset(t + 8, 0xff, 8);
	ck_assert_int_eq(snap_record_begin(&w, SNAP_REC_THREAD, sizeof t), SNAP_OK);
	ck_assert_int_eq(snap_record_write(&w, t, sizeof t), SNAP_OK);
	ck_assert_int_eq(snap_record_end(&w), SNAP_OK);
	/* An annotation whose key claims 60000 bytes. */
	ck_assert_int_eq(snap_record_begin(&w, SNAP_REC_ANNOTATION, 4), SNAP_OK);
	ck_assert_int_eq(snap_record_write(&w, "\x60\xea" "ab", 4), SNAP_OK);
	ck_assert_int_eq(snap_record_end(&w), SNAP_OK);
	/* A Cortex-M set for an arm64. */
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_ERR_CORRUPT);
	ck_assert_msg(strstr(err.msg, "offset 32: THREAD record of 38 bytes is shorter than its "
	                              "fields: dropped (and 1 more problems)"),
	              "%s", err.msg);
	ck_assert_uint_eq(s.nthreads, 0);
	ck_assert_uint_eq(s.nannotations, 0);
	done(&f, &s);
}
END_TEST

START_TEST(test_a_register_set_of_another_cpu_leaves_the_thread_without_registers)
{
	uint8_t buf[512];
	uint64_t v[SNAP_CM_NREGS] = { 0 };
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM64, .word_size = 8 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .id = 3, .regset = SNAP_REGSET_CORTEX_M,
	                                                        .valid = 0xffff, .values = v }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .id = 4, .regset = 99,
	                                                        .valid = 1, .values = v }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_ERR_CORRUPT);
	ck_assert_msg(strstr(err.msg, "thread 3: register set 8 is not one of CPU id 4's"), "%s",
	              err.msg);
	ck_assert(has_problem(&s, "thread 4: register set 99 is unknown to this stackwalk"));
	ck_assert_uint_eq(s.nthreads, 2);
	ck_assert_uint_eq(s.threads[0].ctx.valid, 0);
	ck_assert_uint_eq(s.threads[1].ctx.valid, 0);
	done(&f, &s);
}
END_TEST

/* ---- The writer's contract ---------------------------------------------- */

/* Buffer mode: a record that does not fit is not written, what was written
 * is a complete file (END always fits), and a smaller record still fits. */
START_TEST(test_a_full_buffer_stops_at_a_record_boundary)
{
	static uint8_t buf[200], big[300];
	memset(buf, 0xee, sizeof buf);
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_uint_eq(snap_room(&w), 200 - 32 - 12 - 16);
	ck_assert_int_eq(snap_memory(&w, 0x1000, big, 100), SNAP_OK);
	size_t before = snap_size(&w);
	ck_assert_int_eq(snap_memory(&w, 0x2000, big, snap_room(&w)), SNAP_FULL); /* + base */
	ck_assert_uint_eq(snap_size(&w), before);
	ck_assert_int_eq(buf[before], 0xee);
	ck_assert_int_eq(snap_memory(&w, 0x2000, big, snap_room(&w) - 8), SNAP_OK);
	ck_assert_uint_eq(snap_room(&w), 0);
	ck_assert_int_eq(snap_annotation(&w, "", ""), SNAP_FULL);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	ck_assert_uint_eq(snap_size(&w), sizeof buf);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 2);
	done(&f, &s);
	/* Not even the header fits. */
	snap_init_buffer(&w, buf, 47);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_FULL);
	snap_init_buffer(&w, NULL, 100);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_FULL);
}
END_TEST

/* Stream mode: a failing callback stops the writer; what went out before
 * the record it failed in is readable. */
START_TEST(test_a_failing_stream_stops_the_writer)
{
	fill_inputs();
	static uint8_t buf[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	static struct sink out;
	memset(&out, 0, sizeof out);
	out.fail_at = n / 2;
	struct snap_writer w;
	snap_init_stream(&w, sink_write, &out);
	ck_assert_int_eq(write_everything(&w), SNAP_IO);
	ck_assert_int_eq(snap_annotation(&w, "a", "b"), SNAP_IO);
	ck_assert_int_eq(snap_end(&w), SNAP_IO);
	size_t calls = out.calls;
	ck_assert_int_eq(snap_memory(&w, 0, buf, 10), SNAP_IO);
	ck_assert_uint_eq(out.calls, calls);
	ck_assert_mem_eq(out.data, buf, out.len);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(out.data, out.len, NULL, &f, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nmodules, 1);
	ck_assert(s.crash.present);
	done(&f, &s);
}
END_TEST

START_TEST(test_calls_out_of_order_or_with_bad_arguments_are_refused)
{
	uint8_t buf[256];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_annotation(&w, "a", "b"), SNAP_INVALID); /* before the header */
	ck_assert_int_eq(snap_end(&w), SNAP_INVALID);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 3 }),
	                 SNAP_INVALID);
	ck_assert_uint_eq(snap_size(&w), 0);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_INVALID);
	size_t size = snap_size(&w);
	/* Too many bytes for the record: taken back. */
	ck_assert_int_eq(snap_record_begin(&w, 0x8000, 2), SNAP_OK);
	ck_assert_int_eq(snap_annotation(&w, "a", "b"), SNAP_INVALID); /* a record is open */
	ck_assert_int_eq(snap_record_write(&w, "abc", 3), SNAP_INVALID);
	ck_assert_uint_eq(snap_size(&w), size);
	/* Too few: taken back. */
	ck_assert_int_eq(snap_record_begin(&w, 0x8000, 2), SNAP_OK);
	ck_assert_int_eq(snap_record_write(&w, "a", 1), SNAP_OK);
	ck_assert_int_eq(snap_record_end(&w), SNAP_INVALID);
	ck_assert_uint_eq(snap_size(&w), size);
	ck_assert_int_eq(snap_record_end(&w), SNAP_INVALID);
	static const uint8_t long_id[65];
	ck_assert_int_eq(snap_module(&w, "m", 0, 1, 0, long_id, sizeof long_id), SNAP_INVALID);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .valid = 1 }), SNAP_INVALID);
	ck_assert_int_eq(snap_memory(&w, 0, NULL, 4), SNAP_INVALID);
	ck_assert_uint_eq(snap_size(&w), size);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	ck_assert_int_eq(snap_annotation(&w, "a", "b"), SNAP_INVALID); /* after END */
	ck_assert_int_eq(snap_end(&w), SNAP_INVALID);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	done(&f, &s);
}
END_TEST

/* A string is read up to 65,535 bytes: a pointer to bytes without a NUL
 * costs no more. */
START_TEST(test_strings_are_cut_at_the_formats_limit)
{
	static char longs[70000];
	static uint8_t buf[BIG + 1024];
	memset(longs, 'x', sizeof longs - 1);
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_annotation(&w, "k", longs), SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	ck_assert_uint_eq(strlen(s.annotations[0].value), 65535);
	done(&f, &s);
}
END_TEST

/* ---- Modules and ELF files ---------------------------------------------- */

/* A module's ELF among the symbol paths relates its addresses to the
 * ELF's link addresses: base + load_bias = the ELF's file_vaddr + bias. */
START_TEST(test_a_modules_elf_file_gives_its_load_bias)
{
	char path[1024];
	const char *root = getenv("SW_TESTDATA");
	snprintf(path, sizeof path, "%s/elf/mediaserver_arm", root ? root : "testdata");
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	const struct sw_elf_info *info = sw_elf_info(e);
	ck_assert_ptr_nonnull(info->build_id);
	uint8_t id[64];
	size_t idlen = info->build_id_len;
	memcpy(id, info->build_id, idlen);
	uint64_t file_vaddr = info->file_vaddr;
	sw_elf_free(e);

	uint8_t buf[512];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_module(&w, "mediaserver", 0x10000, 0x8000, 0xf000, id, idlen), SNAP_OK);
	ck_assert_int_eq(snap_module(&w, "other", 0x90000, 0x1000, 0, NULL, 0), SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	const char *paths[] = { path };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 1 };
	struct file f;
	struct sw_snapshot s;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), &o, &f, &s, &err), SW_OK);
	ck_assert_uint_eq(s.modules[0].base + s.modules[0].load_bias, file_vaddr + 0xf000);
	ck_assert_str_eq(s.modules[0].image_path, path);
	ck_assert_uint_eq(s.modules[1].load_bias, 0);
	ck_assert_ptr_null(s.modules[1].image_path);
	done(&f, &s);
}
END_TEST

/* ---- Walks ------------------------------------------------------------------ */

/* The 32-bit Thumb BL at `at` that calls `target` (ARMv7-M ARM A7.7.18). */
static void thumb_bl(uint8_t *code, uint32_t at, uint32_t target)
{
	uint32_t off = (target - (at + 4)) & 0x1ffffff;
	uint32_t s = off >> 24 & 1, i1 = off >> 23 & 1, i2 = off >> 22 & 1;
	uint32_t j1 = (1 - i1) ^ s, j2 = (1 - i2) ^ s;
	uint16_t hw1 = (uint16_t)(0xf000 | s << 10 | (off >> 12 & 0x3ff));
	uint16_t hw2 = (uint16_t)(0xd000 | j1 << 13 | j2 << 11 | (off >> 1 & 0x7ff));
	uint8_t *p = code + (at - FW_BASE);
	p[0] = (uint8_t)hw1;
	p[1] = (uint8_t)(hw1 >> 8);
	p[2] = (uint8_t)hw2;
	p[3] = (uint8_t)(hw2 >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static const char *const fw_funcs[] = { "main", "func_a", "func_b", "func_c" };

/* A Cortex-M HardFault written the way a fault handler writes it, streamed
 * through a callback: main -> func_a -> func_b -> func_c, which faults; the
 * code (each function calls the next 0x10 bytes in) and the stack are
 * captured. Walked with a .sym file: the live lr, then two return
 * addresses that the scan proves by the BL before them, past a stale code
 * address that follows no call. */
START_TEST(test_a_cortex_m_hardfault_walks_to_main)
{
	static uint8_t code[0x100], stack[0x40];
	for (unsigned i = 0; i < sizeof code; i += 2) {
		code[i] = 0x00;
		code[i + 1] = 0xbf; /* nop */
	}
	for (unsigned k = 0; k < 3; k++)
		thumb_bl(code, FW_BASE + 0x40 * k + 0x10, FW_BASE + 0x40 * (k + 1));
	code[0xc8] = 0x00;
	code[0xc9] = 0xde; /* udf #0 */
	memset(stack, 0, sizeof stack);
	put32(stack + 0x00, 0x12345678);
	put32(stack + 0x04, FW_BASE + 0x40 + 0x15);   /* into func_a */
	put32(stack + 0x0c, FW_BASE + 0x31);          /* into main, after no call */
	put32(stack + 0x10, FW_BASE + 0x15);          /* into main */
	uint32_t regs[SNAP_CM_NREGS] = { 0 };
	regs[SNAP_CM_SP] = STACK;
	regs[SNAP_CM_LR] = FW_BASE + 0x80 + 0x15;     /* into func_b */
	regs[SNAP_CM_PC] = FW_BASE + 0xc8;
	regs[SNAP_CM_XPSR] = 0x01000000;
	static struct sink out;
	memset(&out, 0, sizeof out);
	struct snap_writer w;
	snap_init_stream(&w, sink_write, &out);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_ARM, .word_size = 4,
	                                                       .cpu_variant = SNAP_ARM_VARIANT('M', 6, 0, 0) }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_system(&w, &(struct snap_system){ .os = SNAP_OS_NONE }), SNAP_OK);
	ck_assert_int_eq(snap_module(&w, "firmware.elf", FW_BASE, 0x1000, 0, build_id,
	                             sizeof build_id),
	                 SNAP_OK);
	ck_assert_int_eq(snap_crash(&w, &(struct snap_crash){ .thread_id = 1,
	                                                      .kind = SNAP_CRASH_CPU_EXCEPTION,
	                                                      .code = 3 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .id = 1,
	                                                        .regset = SNAP_REGSET_CORTEX_M,
	                                                        .valid = SNAP_MASK(17),
	                                                        .values = regs }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_memory(&w, STACK, stack, sizeof stack), SNAP_OK);
	ck_assert_int_eq(snap_memory(&w, FW_BASE, code, sizeof code), SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);

	/* Its symbols: a .sym file. */
	char sym[] = "/tmp/test_snap_XXXXXX.sym";
	int fd = mkstemps(sym, 4);
	ck_assert_int_ge(fd, 0);
	FILE *sf = fdopen(fd, "w");
	fprintf(sf, "MODULE Linux arm A3A2A1A0A5A4A7A6A8A9AAABACADAEAF0 firmware.elf\n");
	for (unsigned k = 0; k < 4; k++)
		fprintf(sf, "FUNC %x 40 0 %s\n", 0x40 * k, fw_funcs[k]);
	fclose(sf);

	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(out.data, out.len, NULL, &f, &s, &err), SW_OK);
	const char *paths[] = { sym };
	struct sw_sym_store *store = sw_sym_store_create(paths, 1, &s, &err);
	ck_assert_ptr_nonnull(store);
	struct sw_arena arena;
	sw_arena_init(&arena);
	struct sw_walk_result result;
	struct sw_walk_options opt = { 0 };
	ck_assert(sw_walk_snapshot(&s, sw_arch_for_cpu(s.sys.cpu), sw_sym_store_source(store), &opt,
	                           &arena, &result));
	ck_assert_int_eq(result.crashing, 0);
	const struct sw_stack *st = &result.stacks[0];
	ck_assert_uint_eq(st->nframes, 4);
	static const enum sw_trust trust[] = { SW_TRUST_CONTEXT, SW_TRUST_FRAME_POINTER,
	                                       SW_TRUST_SCAN, SW_TRUST_SCAN };
	for (unsigned k = 0; k < 4; k++) {
		ck_assert_str_eq(st->frames[k].function, fw_funcs[3 - k]);
		ck_assert_int_eq(st->frames[k].trust, trust[k]);
	}
	ck_assert_uint_eq(st->frames[3].pc, FW_BASE + 0x15);
	sw_arena_free(&arena);
	sw_sym_store_free(store);
	unlink(sym);
	done(&f, &s);
}
END_TEST

/* A RISC-V trap with the s0 frame chain: the interrupted pc from mepc,
 * the callers from the frame records (ra at s0-4, the caller's s0 at
 * s0-8). */
START_TEST(test_a_riscv32_trap_walks_the_frame_chain)
{
	const uint32_t base = 0x42000000, sb = 0x3fc80000;
	static uint8_t code[0x100], stack[0x40];
	memset(code, 0, sizeof code);
	for (unsigned i = 0; i < sizeof code; i += 2)
		code[i] = 0x01; /* c.nop */
	put32(code + 0x10, 0x000000ef); /* jal ra, . */
	put32(code + 0x50, 0x000000ef);
	memset(stack, 0, sizeof stack);
	put32(stack + 0x18, sb + 0x40);
	put32(stack + 0x1c, base + 0x54);
	put32(stack + 0x3c, base + 0x14);
	uint32_t regs[SNAP_RV_NREGS] = { 0 };
	regs[SNAP_RV_RA] = base + 0x54;
	regs[SNAP_RV_SP] = sb + 0x10;
	regs[SNAP_RV_S0] = sb + 0x20;
	regs[SNAP_RV_MEPC] = base + 0x88;
	regs[SNAP_RV_MCAUSE] = 2;
	uint64_t mask = ((uint64_t)1 << SNAP_RV_RA) | ((uint64_t)1 << SNAP_RV_SP) |
	                ((uint64_t)1 << SNAP_RV_S0) | ((uint64_t)1 << SNAP_RV_MEPC) |
	                ((uint64_t)1 << SNAP_RV_MCAUSE);
	static uint8_t buf[2048];
	struct snap_writer w;
	snap_init_buffer(&w, buf, sizeof buf);
	ck_assert_int_eq(snap_begin(&w, &(struct snap_header){ .cpu = SNAP_CPU_RISCV32,
	                                                       .word_size = 4 }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_module(&w, "app.elf", base, 0x1000, 0, NULL, 0), SNAP_OK);
	ck_assert_int_eq(snap_thread(&w, &(struct snap_thread){ .id = 7, .regset = SNAP_REGSET_RISCV,
	                                                        .flags = SNAP_THREAD_RUNNING,
	                                                        .valid = mask, .values = regs }),
	                 SNAP_OK);
	ck_assert_int_eq(snap_memory(&w, sb, stack, sizeof stack), SNAP_OK);
	ck_assert_int_eq(snap_memory(&w, base, code, sizeof code), SNAP_OK);
	ck_assert_int_eq(snap_end(&w), SNAP_OK);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_snap(buf, snap_size(&w), NULL, &f, &s, &err), SW_OK);
	ck_assert(s.has_requesting_thread_id);
	ck_assert_uint_eq(s.requesting_thread_id, 7);
	struct sw_sym_store *store = sw_sym_store_create(NULL, 0, &s, &err);
	struct sw_arena arena;
	sw_arena_init(&arena);
	struct sw_walk_result result;
	struct sw_walk_options opt = { 0 };
	ck_assert(sw_walk_snapshot(&s, sw_arch_for_cpu(s.sys.cpu), sw_sym_store_source(store), &opt,
	                           &arena, &result));
	const struct sw_stack *st = &result.stacks[0];
	ck_assert_uint_eq(st->nframes, 3);
	ck_assert_uint_eq(st->frames[0].pc, base + 0x88);
	ck_assert_uint_eq(st->frames[1].pc, base + 0x54);
	ck_assert_uint_eq(st->frames[2].pc, base + 0x14);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_int_eq(st->frames[2].trust, SW_TRUST_FRAME_POINTER);
	sw_arena_free(&arena);
	sw_sym_store_free(store);
	done(&f, &s);
}
END_TEST

START_TEST(test_open_reads_a_snap_by_its_magic)
{
	fill_inputs();
	static uint8_t buf[BIG];
	size_t n = write_everything_to(buf, sizeof buf);
	struct file f;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_snap(buf, n, &f, &s, &err), SW_OK);
	ck_assert_str_eq(s.format, "snap");
	ck_assert(sw_snap_is(buf, 8));
	ck_assert(!sw_snap_is(buf, 7));
	ck_assert(!sw_snap_is((const uint8_t *)"MDMP\x93\xa7\0\0", 8));
	done(&f, &s);
}
END_TEST

Suite *test_suite(void);

Suite *test_suite(void)
{
	Suite *s = suite_create("snap");
	TCase *t = tcase_create("round_trip");
	tcase_add_test(t, test_every_field_written_is_read_back);
	tcase_add_test(t, test_stream_writes_the_buffers_bytes);
	tcase_add_test(t, test_crcs_are_zlibs_crc32);
	tcase_add_test(t, test_riscv_trap_registers);
	tcase_add_test(t, test_a_cortex_m_crash_without_fault_status_takes_the_threads_cfsr);
	tcase_add_test(t, test_a_big_endian_targets_memory_reads_big_endian);
	tcase_add_loop_test(t, test_register_sets_are_the_arch_tables, 0,
	                    sizeof identity_sets / sizeof identity_sets[0]);
	tcase_add_test(t, test_open_reads_a_snap_by_its_magic);
	tcase_add_test(t, test_a_modules_elf_file_gives_its_load_bias);
	suite_add_tcase(s, t);

	t = tcase_create("damage");
	tcase_add_test(t, test_a_file_cut_at_every_byte_keeps_what_is_intact);
	tcase_add_test(t, test_a_memory_record_cut_by_the_end_keeps_its_bytes);
	tcase_add_test(t, test_every_single_bit_flip_is_reported);
	tcase_add_test(t, test_records_after_a_lost_or_added_byte_are_found_again);
	tcase_add_test(t, test_end_counts_the_records_before_it);
	tcase_add_test(t, test_erased_flash_after_or_instead_of_end);
	tcase_add_test(t, test_headers_that_cannot_be_read);
	tcase_add_test(t, test_a_larger_header_is_read_up_to_what_is_known);
	tcase_add_test(t, test_unknown_records_and_trailing_fields_are_skipped);
	tcase_add_test(t, test_a_compressed_size_claim_beyond_deflates_ratio_is_dropped);
	tcase_add_test(t, test_fields_that_do_not_fit_drop_their_record);
	tcase_add_test(t, test_a_register_set_of_another_cpu_leaves_the_thread_without_registers);
	suite_add_tcase(s, t);

	t = tcase_create("writer");
	tcase_add_test(t, test_a_full_buffer_stops_at_a_record_boundary);
	tcase_add_test(t, test_a_failing_stream_stops_the_writer);
	tcase_add_test(t, test_calls_out_of_order_or_with_bad_arguments_are_refused);
	tcase_add_test(t, test_strings_are_cut_at_the_formats_limit);
	suite_add_tcase(s, t);

	t = tcase_create("walk");
	tcase_add_test(t, test_a_cortex_m_hardfault_walks_to_main);
	tcase_add_test(t, test_a_riscv32_trap_walks_the_frame_chain);
	suite_add_tcase(s, t);
	return s;
}
