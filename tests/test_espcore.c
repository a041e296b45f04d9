/* ESP-IDF core dumps (formats/espcore.c, espcore_bin.c, elfcore_esp.c):
 * the corpus's ESP32-C3 and ESP32-C6 dumps in their three forms (console
 * base64, raw image, bare ELF core) with exact values (the registers,
 * TCBs and panic reason of ../shared/corpus/esp-coredump/README.md), the
 * base64 text as a console prints it (CRLF, blank lines, other lines,
 * markers), and hostile images built here: bad checksums, truncation,
 * unknown versions, absurd lengths and counts, a 0.x binary image with
 * its task list, a firmware ELF of another build. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "arch/registry.h"
#include "formats/espcore.h"
#include "formats/open.h"
#include "lib/walker.h"
#include "symbols/store.h"
#include "lib/sha256.h"
#include "open_answer.h"
#include "testutil.h"

/* ---- Helpers --------------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(b, x, 4);
}

static void set32(struct buf *b, size_t at, uint32_t v)
{
	ck_assert_uint_le(at + 4, b->len);
	for (int i = 0; i < 4; i++)
		b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void read_file(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	uint8_t chunk[4096];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		put(b, chunk, got);
	fclose(f);
}

static void read_corpus(const char *rel, struct buf *b)
{
	char path[512];
	read_file(corpus_path(path, sizeof path, rel), b);
}

static void write_temp(const struct buf *b, const char *tag, char *path, size_t n)
{
	snprintf(path, n, "/tmp/sw_esp_%d_%s", (int)getpid(), tag);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b->p, 1, b->len, f), b->len);
	fclose(f);
}

static enum sw_err_code open_buf(const struct buf *b, const char *firmware,
                                 struct sw_snapshot *s, struct sw_err *err)
{
	char path[256];
	write_temp(b, "image", path, sizeof path);
	const char *paths[] = { firmware };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = firmware ? 1 : 0 };
	sw_err_clear(err);
	enum sw_err_code rc = sw_snapshot_open_with(path, &o, s, err);
	unlink(path);
	return rc;
}

static enum sw_err_code open_corpus(const char *rel, const char *firmware,
                                    struct sw_snapshot *s, struct sw_err *err)
{
	char path[512];
	corpus_path(path, sizeof path, rel);
	const char *paths[] = { firmware };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = firmware ? 1 : 0 };
	sw_err_clear(err);
	return sw_snapshot_open_with(path, &o, s, err);
}

static bool has_problem(const struct sw_snapshot *s, const char *needle)
{
	for (uint32_t i = 0; i < s->nproblems; i++)
		if (strstr(s->problems[i], needle))
			return true;
	return false;
}

static uint64_t reg(const struct sw_snapshot *s, uint32_t thread, const char *name)
{
	const struct sw_arch *a = sw_arch_for_cpu(s->sys.cpu);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_lt(thread, s->nthreads);
	int i = sw_arch_reg_index(a, name, strlen(name));
	ck_assert_int_ge(i, 0);
	ck_assert_msg(sw_reg_valid(&s->threads[thread].ctx, (unsigned)i), "%s not valid", name);
	return sw_reg_get(&s->threads[thread].ctx, (unsigned)i);
}

static const char *firmware_c3(char *buf, size_t n)
{
	return corpus_path(buf, n, "esp-coredump/esp32c3/esp32c3.elf");
}

/* The CRC-32 of an image's header and data written into its last 4
 * bytes (loader.py _crc_validate). */
static void seal_crc(struct buf *b)
{
	uLong crc = crc32(0L, b->p, (uInt)(b->len - 4));
	set32(b, b->len - 4, (uint32_t)crc);
}

/* ---- The corpus: ESP32-C3 -------------------------------------------- */

/* The README's table: main (crashed), IDLE, esp_timer, their TCBs and
 * registers; the panic reason; the chip; the exception frame's mcause 7
 * (store access fault: panic_abort's store to address 0) and mtval 0. */
static void check_c3(const struct sw_snapshot *s, bool container)
{
	ck_assert_int_eq(s->sys.cpu, SW_CPU_RISCV32);
	ck_assert_int_eq(s->sys.os, SW_OS_NONE);
	ck_assert_str_eq(s->sys.os_name, "ESP-IDF");
	/* The ESP-IDF release from the firmware's application descriptor. */
	ck_assert_str_eq(s->sys.os_version, "v5.3-dev-458-g8c0f8b041e, core dump 1.2");
	ck_assert_str_eq(s->sys.cpu_info, container ? "ESP32-C3, chip revision 3" : "ESP32-C3");
	ck_assert_uint_eq(s->nthreads, 3);
	static const struct {
		uint32_t tcb;
		const char *name;
		uint32_t pc, ra, sp;
	} want[] = {
		{ 0x3fc8ec30, "main", 0x40380698, 0x4038368e, 0x3fc8ea70 },
		{ 0x3fc8f38c, "IDLE", 0x4038407c, 0, 0 },
		{ 0x3fc8da94, "esp_timer", 0x4038424e, 0x403842b4, 0x3fc8da20 },
	};
	for (uint32_t i = 0; i < 3; i++) {
		ck_assert_uint_eq(s->threads[i].id, want[i].tcb);
		ck_assert_str_eq(s->threads[i].name, want[i].name);
		ck_assert_uint_eq(reg(s, i, "pc"), want[i].pc);
		ck_assert_uint_eq(reg(s, i, "ra"), want[i].ra);
		ck_assert_uint_eq(reg(s, i, "sp"), want[i].sp);
	}
	ck_assert_uint_eq(reg(s, 1, "a0"), 0x403849a6); /* prvIdleTask */
	ck_assert(s->crash.present);
	ck_assert_uint_eq(s->crash.thread_id, 0x3fc8ec30);
	ck_assert_str_eq(s->crash.reason, "abort() was called at PC 0x42009351 on core 0");
	ck_assert_uint_eq(s->crash.code, 7);
	ck_assert_uint_eq(s->crash.address, 0);
	ck_assert_uint_eq(s->nmem, 6);
}

START_TEST(test_c3_three_forms_read_alike)
{
	char fw[512];
	firmware_c3(fw, sizeof fw);
	static const char *const forms[] = { "esp-coredump/esp32c3/coredump.b64",
		                             "esp-coredump/esp32c3/coredump.bin",
		                             "esp-coredump/esp32c3/coredump.elf" };
	for (int i = 0; i < 3; i++) {
		struct sw_snapshot s;
		struct sw_err err;
		ck_assert_int_eq(open_corpus(forms[i], fw, &s, &err), SW_OK);
		ck_assert_str_eq(s.format, i < 2 ? "espcore" : "elfcore");
		check_c3(&s, i < 2);
		ck_assert_uint_eq(s.nproblems, 0);
		sw_snapshot_free(&s);
	}
}
END_TEST

/* The firmware is a module per executable segment, at its link address:
 * IRAM 0x40380000 (0x9e00) and flash 0x42000020 (0x1809e); module offsets
 * plus the file's first segment's p_vaddr - p_offset (0x3bfff000) are the
 * link addresses. */
START_TEST(test_c3_firmware_modules_at_link_addresses)
{
	char fw[512];
	firmware_c3(fw, sizeof fw);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_corpus("esp-coredump/esp32c3/coredump.bin", fw, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 2);
	ck_assert_int_eq(s.main_module, 0);
	ck_assert_uint_eq(s.modules[0].base, 0x40380000);
	ck_assert_uint_eq(s.modules[0].size, 0x9e00);
	ck_assert_uint_eq(s.modules[1].base, 0x42000020);
	ck_assert_uint_eq(s.modules[1].size, 0x1809e);
	for (int i = 0; i < 2; i++) {
		ck_assert_str_eq(s.modules[i].image_path, fw);
		ck_assert_str_eq(s.modules[i].debug_file, "esp32c3.elf");
		ck_assert_str_eq(s.modules[i].version, "v1.0-56-g30082bf-dirty");
		ck_assert_uint_eq(s.modules[i].base + s.modules[i].load_bias, 0x3bfff000);
	}
	/* ROM (0x400xxxxx) and the stacks belong to no module. */
	ck_assert_int_lt(sw_module_at(&s, 0x400485e4), 0);
	ck_assert_int_lt(sw_module_at(&s, 0x3fc8ea70), 0);
	sw_snapshot_free(&s);
}
END_TEST

/* A firmware ELF whose SHA-256 does not start with the core's record is
 * another build: refused with one warning naming it, no module. */
START_TEST(test_firmware_of_another_build_is_refused)
{
	char fw[512], other[256];
	struct buf b = { 0 };
	read_file(firmware_c3(fw, sizeof fw), &b);
	b.p[b.len - 1] ^= 1;
	write_temp(&b, "other.elf", other, sizeof other);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_corpus("esp-coredump/esp32c3/coredump.b64", other, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 0);
	ck_assert(has_problem(&s, "firmware ELF not used"));
	ck_assert(has_problem(&s, "another build"));
	ck_assert(has_problem(&s, "7d946a8e8"));
	ck_assert_uint_eq(s.nproblems, 1);
	sw_snapshot_free(&s);
	unlink(other);
	free(b.p);
}
END_TEST

/* A directory of the symbol paths: its NAME.elf files, the one whose
 * SHA-256 the core records taken. */
START_TEST(test_firmware_found_in_a_build_directory)
{
	char fw[512], dir[256], cmd[2048];
	firmware_c3(fw, sizeof fw);
	snprintf(dir, sizeof dir, "/tmp/sw_esp_%d_build", (int)getpid());
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && ln -sf '%s' '%s/app.elf' && "
	                          "printf 'x' > '%s/bootloader.elf'", dir, fw, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_corpus("esp-coredump/esp32c3/coredump.elf", dir, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 2);
	ck_assert(strstr(s.modules[0].image_path, "/app.elf") != NULL);
	sw_snapshot_free(&s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- The corpus: ESP32-C6 (no firmware ELF) -------------------------- */

START_TEST(test_c6_container_registers_tasks_panic)
{
	static const char *const forms[] = { "esp-coredump/esp32c6/coredump.b64",
		                             "esp-coredump/esp32c6/coredump.bin",
		                             "esp-coredump/esp32c6/coredump.elf" };
	for (int i = 0; i < 3; i++) {
		struct sw_snapshot s;
		struct sw_err err;
		ck_assert_int_eq(open_corpus(forms[i], NULL, &s, &err), SW_OK);
		ck_assert_int_eq(s.sys.cpu, SW_CPU_RISCV32);
		ck_assert_str_eq(s.sys.os_version, "core dump 1.4");
		ck_assert_str_eq(s.sys.cpu_info, i < 2 ? "ESP32-C6, chip revision 1" : "ESP32-C6");
		ck_assert_uint_eq(s.nthreads, 3);
		ck_assert_uint_eq(s.threads[0].id, 0x4080fe20);
		ck_assert_str_eq(s.threads[0].name, "main");
		ck_assert_uint_eq(reg(&s, 0, "pc"), 0x40804796);
		ck_assert_uint_eq(reg(&s, 0, "ra"), 0x40804754);
		ck_assert_uint_eq(reg(&s, 0, "sp"), 0x4080fc50);
		ck_assert_uint_eq(s.threads[1].id, 0x40810578);
		ck_assert_str_eq(s.threads[1].name, "IDLE");
		ck_assert_uint_eq(reg(&s, 1, "pc"), 0x408054b2);
		ck_assert_uint_eq(reg(&s, 1, "sp"), 0);
		ck_assert_uint_eq(s.threads[2].id, 0x4080ea48);
		ck_assert_str_eq(s.threads[2].name, "esp_timer");
		ck_assert_uint_eq(reg(&s, 2, "pc"), 0x40805676);
		ck_assert_uint_eq(reg(&s, 2, "ra"), 0x408056f4);
		ck_assert_uint_eq(reg(&s, 2, "sp"), 0x4080e9e0);
		ck_assert_uint_eq(s.crash.thread_id, 0x4080fe20);
		ck_assert_str_eq(s.crash.reason, "abort() was called at PC 0x4200c3d5 on core 0");
		/* mcause 2 (illegal instruction): the crash address is mepc. */
		ck_assert_uint_eq(s.crash.code, 2);
		ck_assert_uint_eq(s.crash.address, 0x40804796);
		ck_assert_uint_eq(s.nmodules, 0);
		ck_assert(has_problem(&s, "no firmware ELF among the symbol paths"));
		ck_assert(has_problem(&s, "64d3738c1"));
		sw_snapshot_free(&s);
	}
}
END_TEST

/* ---- Base64 as the console prints it --------------------------------- */

START_TEST(test_b64_lines_decoded_each_on_its_own)
{
	/* A 12-byte version 1.4 header (tot_len 44, ver 0x000d0104, chip_rev
	 * 1), then 4 bytes, each line padded as ESP-IDF prints them. */
	const uint8_t want[] = { 44, 0, 0, 0, 0x04, 0x01, 0x0d, 0, 1, 0, 0, 0, 0xde, 0xad };
	const char *text = "LAAAAAQBDQABAAAA\r\n3q0=\r\n";
	uint8_t out[64];
	size_t len;
	uint64_t line;
	struct sw_span t = { (const uint8_t *)text, strlen(text), 0, false };
	ck_assert(sw_esp_b64_decode(t, out, sizeof out, &len, &line));
	ck_assert_uint_eq(len, sizeof want);
	ck_assert_mem_eq(out, want, sizeof want);
	ck_assert_uint_eq(line, 1);
}
END_TEST

START_TEST(test_b64_quantum_straddles_lines)
{
	const uint8_t want[] = { 44, 0, 0, 0, 0x04, 0x01, 0x0d, 0, 1, 0, 0, 0, 0xde, 0xad };
	const char *text = "LAAAAA\nQBDQA\n\nBAAAA3q\n0=\n";
	uint8_t out[64];
	size_t len;
	uint64_t line;
	struct sw_span t = { (const uint8_t *)text, strlen(text), 0, false };
	ck_assert(sw_esp_b64_decode(t, out, sizeof out, &len, &line));
	ck_assert_uint_eq(len, sizeof want);
	ck_assert_mem_eq(out, want, sizeof want);
}
END_TEST

/* Console lines around the dump, some of which look like base64 ("abort",
 * "Rebooting" does not): the run that decodes to a header is the image. */
START_TEST(test_b64_amid_console_lines)
{
	const char *texts[] = {
		"I (312) cpu_start: Starting scheduler.\nabort\nLAAAAAQBDQABAAAA\n3q0=\nRebooting...\n",
		"abort() was called\n================= CORE DUMP START =================\r\n"
		"LAAAAAQBDQABAAAA\r\n\r\n3q0=\r\n================= CORE DUMP END =================\r\n"
		"QUJDREVGR0g=\n",
	};
	for (int i = 0; i < 2; i++) {
		uint8_t out[64];
		size_t len;
		uint64_t line;
		struct sw_span t = { (const uint8_t *)texts[i], strlen(texts[i]), 0, false };
		ck_assert(sw_esp_b64_decode(t, out, sizeof out, &len, &line));
		ck_assert_uint_eq(len, 14);
		ck_assert_uint_eq(out[12], 0xde);
		ck_assert_uint_eq(line, 3);
	}
	const char *none = "just a log\nabort\nQUJDREVGR0g=\n";
	uint8_t out[64];
	size_t len;
	uint64_t line;
	struct sw_span t = { (const uint8_t *)none, strlen(none), 0, false };
	ck_assert(!sw_esp_b64_decode(t, out, sizeof out, &len, &line));
}
END_TEST

/* The corpus's text with CRLF line ends, blank lines, markers and log
 * lines around it reads as the text itself. */
START_TEST(test_c3_console_text_with_noise)
{
	struct buf src = { 0 }, b = { 0 };
	read_corpus("esp-coredump/esp32c3/coredump.b64", &src);
	const char *head = "I (290) main_task: Calling app_main()\r\nabort\r\n"
	                   "================= CORE DUMP START =================\r\n";
	put(&b, head, strlen(head));
	for (size_t i = 0; i < src.len; i++) {
		if (src.p[i] == '\n')
			put(&b, "\r\n\r\n", 4);
		else
			put(&b, &src.p[i], 1);
	}
	const char *tail = "================= CORE DUMP END =================\r\nRebooting...\r\n";
	put(&b, tail, strlen(tail));
	char fw[512];
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, firmware_c3(fw, sizeof fw), &s, &err), SW_OK);
	check_c3(&s, true);
	sw_snapshot_free(&s);
	free(src.p);
	free(b.p);
}
END_TEST

/* An ELF file's first bytes read as an image header of version 1.2 of
 * chip 1 (ELF64: EI_CLASS 2, EI_DATA 1, EI_VERSION 1): no ESP chip. */
START_TEST(test_elf_files_are_no_images)
{
	uint8_t elf64[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0 };
	uint8_t elf32[64] = { 0x7f, 'E', 'L', 'F', 1, 1, 1, 0 };
	ck_assert(!sw_espcore_is(elf64, sizeof elf64));
	ck_assert(!sw_espcore_is(elf32, sizeof elf32));
	/* The same bytes with an ESP32-C3's chip id would be one. */
	elf64[6] = 5;
	ck_assert(sw_espcore_is(elf64, sizeof elf64));
}
END_TEST

/* A whole console log: kilobytes of boot messages before the dump, past
 * the first bytes the content check reads. */
START_TEST(test_c3_dump_deep_in_a_console_log)
{
	struct buf src = { 0 }, b = { 0 };
	read_corpus("esp-coredump/esp32c3/coredump.b64", &src);
	char line[128];
	for (int i = 0; i < 300; i++) {
		int n = snprintf(line, sizeof line, "I (%d) boot: a line of the boot log, number %d\n",
		                 10 * i, i);
		put(&b, line, (size_t)n);
	}
	put(&b, src.p, src.len);
	put(&b, "Rebooting...\n", 13);
	ck_assert_uint_gt(b.len, 3 * src.len);
	char fw[512];
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, firmware_c3(fw, sizeof fw), &s, &err), SW_OK);
	check_c3(&s, true);
	sw_snapshot_free(&s);
	free(src.p);
	free(b.p);
}
END_TEST

/* ---- Hostile images -------------------------------------------------- */

START_TEST(test_bad_crc_is_damage_naming_the_checksum)
{
	struct buf b = { 0 };
	read_corpus("esp-coredump/esp32c3/coredump.bin", &b);
	b.p[0x400] ^= 0x10; /* inside a TCB: the walk still has its threads */
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(strstr(err.msg, "damaged ESP-IDF core dump: bad checksum: the CRC-32") != NULL);
	ck_assert(strstr(err.msg, "0xfc694695") != NULL);
	ck_assert_uint_eq(s.nthreads, 3);
	sw_snapshot_free(&s);
	free(b.p);
}
END_TEST

START_TEST(test_bad_sha256_is_damage)
{
	struct buf b = { 0 };
	read_corpus("esp-coredump/esp32c6/coredump.bin", &b);
	b.p[b.len - 1] ^= 1; /* the stored digest */
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(strstr(err.msg, "bad checksum: the SHA-256") != NULL);
	ck_assert_uint_eq(s.nthreads, 3);
	sw_snapshot_free(&s);
	free(b.p);
}
END_TEST

/* A partition read whole: the erased tail after tot_len is no part of the
 * image; a partition never written is refused as such. */
START_TEST(test_partition_padding_and_erased_partition)
{
	struct buf b = { 0 };
	read_corpus("esp-coredump/esp32c3/coredump.bin", &b);
	uint8_t ff[4096];
	memset(ff, 0xff, sizeof ff);
	for (int i = 0; i < 16; i++)
		put(&b, ff, sizeof ff);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nthreads, 3);
	sw_snapshot_free(&s);
	b.len = 0;
	put(&b, ff, sizeof ff);
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_FORMAT);
	ck_assert(strstr(err.msg, "erased flash") != NULL);
	sw_snapshot_free(&s);
	free(b.p);
}
END_TEST

/* Cut short, raw or as text: what is there is read, exit 1. */
START_TEST(test_truncated_image_reads_what_is_there)
{
	struct buf b = { 0 };
	read_corpus("esp-coredump/esp32c3/coredump.bin", &b);
	b.len = 2000;
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(strstr(err.msg, "truncated: the image is 3224 bytes (tot_len), the file holds "
	                          "2000") != NULL);
	ck_assert_uint_eq(s.nthreads, 3);
	ck_assert_str_eq(s.sys.os_name, "ESP-IDF");
	sw_snapshot_free(&s);
	free(b.p);
}
END_TEST

START_TEST(test_unknown_version_and_bad_lengths_refused)
{
	struct buf b = { 0 };
	read_corpus("esp-coredump/esp32c3/coredump.bin", &b);
	struct sw_snapshot s;
	struct sw_err err;
	/* Version 1.5 of an ESP32-C3, as text: refused by name. */
	b.p[4] = 5;
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct buf t = { 0 };
	for (size_t i = 0; i + 3 <= 24; i += 3) {
		uint32_t v = (uint32_t)b.p[i] << 16 | (uint32_t)b.p[i + 1] << 8 | b.p[i + 2];
		char q[4] = { alphabet[v >> 18], alphabet[v >> 12 & 63], alphabet[v >> 6 & 63],
			      alphabet[v & 63] };
		put(&t, q, 4);
	}
	put(&t, "\n", 1);
	ck_assert_int_eq(open_buf(&t, NULL, &s, &err), SW_ERR_UNSUPPORTED);
	ck_assert(strstr(err.msg, "version 1.5 (ESP32-C3)") != NULL);
	sw_snapshot_free(&s);
	/* tot_len smaller than the header and checksum. */
	b.p[4] = 2;
	set32(&b, 0, 10);
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_FORMAT);
	ck_assert(strstr(err.msg, "less than its header and checksum") != NULL);
	sw_snapshot_free(&s);
	/* An absurd tot_len: truncated, read as far as it goes. */
	set32(&b, 0, 0xfffffff0u);
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(strstr(err.msg, "4294967280 bytes (tot_len)") != NULL);
	sw_snapshot_free(&s);
	free(t.p);
	free(b.p);
}
END_TEST

/* Every cut of the image and bytes flipped all over it: an answer that
 * check_open_answer accepts, never a crash (the sanitizer build checks the
 * reads). */
START_TEST(test_cut_and_flipped_images_never_crash)
{
	static const char *const files[] = { "esp-coredump/esp32c3/coredump.bin",
		                             "esp-coredump/esp32c6/coredump.b64" };
	char c3[512];
	/* The C3's firmware gives its walks code to go on with. */
	const char *firmware[] = { firmware_c3(c3, sizeof c3), NULL };
	for (int k = 0; k < 2; k++) {
		struct buf b = { 0 };
		read_corpus(files[k], &b);
		size_t full = b.len;
		for (size_t cut = 0; cut < full; cut += 61) {
			b.len = cut;
			struct sw_snapshot s;
			struct sw_err err;
			check_open_answer(open_buf(&b, firmware[k], &s, &err), &s, &err, b.len, "sw_esp_",
			                  firmware[k]);
			sw_snapshot_free(&s);
		}
		b.len = full;
		srand(7);
		for (int round = 0; round < 150; round++) {
			size_t at = (size_t)rand() % full;
			uint8_t old = b.p[at];
			b.p[at] ^= (uint8_t)(1 + rand() % 255);
			struct sw_snapshot s;
			struct sw_err err;
			check_open_answer(open_buf(&b, firmware[k], &s, &err), &s, &err, b.len, "sw_esp_",
			                  firmware[k]);
			sw_snapshot_free(&s);
			b.p[at] = old;
		}
		free(b.p);
	}
}
END_TEST

/* ---- The binary format (0.x) ----------------------------------------- */

enum { BIN_TCBSZ = 0x60 };

/* A TCB whose list items point back at it, named `name`. */
static void put_tcb(struct buf *b, uint32_t tcb, const char *name)
{
	uint8_t t[BIN_TCBSZ] = { 0 };
	struct buf w = { 0 };
	put(&w, t, sizeof t);
	set32(&w, 16, tcb);
	set32(&w, 36, tcb);
	memcpy(w.p + 52, name, strlen(name));
	put(b, w.p, w.len);
	free(w.p);
}

/* A stack from its saved registers up: pc, x1-x31, then mstatus, mtvec,
 * mcause, mtval, mhartid (ESP-IDF's RvExcFrame), then zeros. */
static void put_stack(struct buf *b, uint32_t len, uint32_t pc, uint32_t ra, uint32_t sp,
                      uint32_t mcause)
{
	for (uint32_t i = 0; i < len / 4; i++) {
		uint32_t v = i == 0 ? pc : i == 1 ? ra : i == 2 ? sp : i == 34 ? mcause
		           : i < 32 ? 0x1000 + i : 0;
		put32(b, v);
	}
}

/* Version 0.3 (BIN_V2_1): two tasks and one memory segment, CRC-32. */
static void build_bin(struct buf *b, uint32_t task_num)
{
	b->len = 0;
	put32(b, 0);                       /* tot_len, set below */
	put32(b, 5u << 16 | 0x0003);       /* ESP32-C3, 0.3 */
	put32(b, task_num);
	put32(b, BIN_TCBSZ);
	put32(b, 1);                       /* segs_num */
	put32(b, 3);                       /* chip_rev */
	put32(b, 0x3fc80100);              /* task 1: TCB, stack top, stack end */
	put32(b, 0x3fc80400);
	put32(b, 0x3fc80600);
	put_tcb(b, 0x3fc80100, "main");
	put_stack(b, 0x200, 0x42000100, 0x42000200, 0x3fc804a0, 2);
	put32(b, 0x3fc80800);
	put32(b, 0x3fc80a00);
	put32(b, 0x3fc80b00);
	put_tcb(b, 0x3fc80800, "worker");
	put_stack(b, 0x100, 0x40380010, 0x40380020, 0x3fc80a80, 0);
	put32(b, 0x3fc90000);              /* the segment */
	put32(b, 8);
	put32(b, 0x44332211);
	put32(b, 0x88776655);
	put32(b, 0);                       /* the CRC-32 */
	set32(b, 0, (uint32_t)b->len);
	seal_crc(b);
}

START_TEST(test_binary_format_becomes_an_elf_core)
{
	struct buf b = { 0 };
	build_bin(&b, 2);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_OK);
	ck_assert_str_eq(s.format, "espcore");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_RISCV32);
	ck_assert_str_eq(s.sys.os_version, "core dump 0.3");
	ck_assert_str_eq(s.sys.cpu_info, "ESP32-C3, chip revision 3");
	ck_assert_uint_eq(s.nthreads, 2);
	ck_assert_uint_eq(s.threads[0].id, 0x3fc80100);
	ck_assert_str_eq(s.threads[0].name, "main");
	ck_assert_uint_eq(reg(&s, 0, "pc"), 0x42000100);
	ck_assert_uint_eq(reg(&s, 0, "ra"), 0x42000200);
	ck_assert_uint_eq(reg(&s, 0, "sp"), 0x3fc804a0);
	ck_assert_uint_eq(reg(&s, 0, "s0"), 0x1008);
	ck_assert_uint_eq(s.threads[1].id, 0x3fc80800);
	ck_assert_str_eq(s.threads[1].name, "worker");
	ck_assert_uint_eq(reg(&s, 1, "pc"), 0x40380010);
	/* The first task crashed; its exception frame says mcause 2. */
	ck_assert(s.crash.present);
	ck_assert_uint_eq(s.crash.thread_id, 0x3fc80100);
	ck_assert_uint_eq(s.crash.code, 2);
	ck_assert_ptr_null(s.crash.reason);
	uint32_t v;
	ck_assert(sw_mem_read_u32(&s, 0x3fc90004, &v));
	ck_assert_uint_eq(v, 0x88776655);
	ck_assert(sw_mem_read_u32(&s, 0x3fc80a00, &v));
	ck_assert_uint_eq(v, 0x40380010);
	sw_snapshot_free(&s);
	free(b.p);
}
END_TEST

/* A task count no data could hold allocates nothing for it; a record that
 * runs past the data ends the list; no task at all is no snapshot. */
START_TEST(test_binary_format_hostile_counts)
{
	struct buf b = { 0 };
	struct sw_snapshot s;
	struct sw_err err;
	build_bin(&b, 0xffffffffu);
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "the header counts 4294967295 tasks"));
	ck_assert_uint_ge(s.nthreads, 2);
	sw_snapshot_free(&s);

	build_bin(&b, 0);
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_FORMAT);
	ck_assert(strstr(err.msg, "holds no readable task") != NULL);
	sw_snapshot_free(&s);

	build_bin(&b, 2);
	set32(&b, 32, 0x3fd00000); /* task 1's stack end: 1 MiB of stack */
	seal_crc(&b);
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_FORMAT);
	ck_assert(strstr(err.msg, "runs past the data") != NULL);
	sw_snapshot_free(&s);
	free(b.p);
}
END_TEST

/* The last task's stack ends unpadded at the end of the data: its padded
 * end lies past it, and the bytes "left" for the segments were counted as
 * 2^64 - 1, so a segment count of 2^31 was believed and 16 GiB asked for
 * (fuzz_espcore and fuzz_elfcore, 24 Nov 2026). */
START_TEST(test_binary_format_segment_count_after_an_unpadded_stack)
{
	struct buf b = { 0 };
	put32(&b, 0);                      /* tot_len, set below */
	put32(&b, 5u << 16 | 0x0003);      /* ESP32-C3, 0.3 */
	put32(&b, 1);                      /* task_num */
	put32(&b, BIN_TCBSZ);
	put32(&b, 0x80000000u);            /* segs_num */
	put32(&b, 3);                      /* chip_rev */
	put32(&b, 0x3fc80100);             /* the task: TCB, stack top, stack end */
	put32(&b, 0x3fc80400);
	put32(&b, 0x3fc80483);             /* 0x83 bytes: not a multiple of 4 */
	put_tcb(&b, 0x3fc80100, "main");
	put_stack(&b, 0x80, 0x42000100, 0x42000200, 0x3fc80440, 2);
	put(&b, "\0\0\0", 3);
	put32(&b, 0);                      /* the CRC-32 */
	set32(&b, 0, (uint32_t)b.len);
	seal_crc(&b);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "counts 2147483648 memory segments, but 0 bytes are left"));
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(reg(&s, 0, "pc"), 0x42000100);
	sw_snapshot_free(&s);
	free(b.p);
}
END_TEST

Suite *test_suite(void);

Suite *test_suite(void)
{
	Suite *s = suite_create("espcore");
	TCase *t = tcase_create("corpus");
	tcase_add_test(t, test_c3_three_forms_read_alike);
	tcase_add_test(t, test_c3_firmware_modules_at_link_addresses);
	tcase_add_test(t, test_firmware_of_another_build_is_refused);
	tcase_add_test(t, test_firmware_found_in_a_build_directory);
	tcase_add_test(t, test_c6_container_registers_tasks_panic);
	tcase_add_test(t, test_c3_console_text_with_noise);
	tcase_add_test(t, test_c3_dump_deep_in_a_console_log);
	suite_add_tcase(s, t);
	t = tcase_create("text");
	tcase_add_test(t, test_b64_lines_decoded_each_on_its_own);
	tcase_add_test(t, test_b64_quantum_straddles_lines);
	tcase_add_test(t, test_b64_amid_console_lines);
	tcase_add_test(t, test_elf_files_are_no_images);
	suite_add_tcase(s, t);
	t = tcase_create("hostile");
	tcase_add_test(t, test_bad_crc_is_damage_naming_the_checksum);
	tcase_add_test(t, test_bad_sha256_is_damage);
	tcase_add_test(t, test_partition_padding_and_erased_partition);
	tcase_add_test(t, test_truncated_image_reads_what_is_there);
	tcase_add_test(t, test_unknown_version_and_bad_lengths_refused);
	tcase_add_test(t, test_cut_and_flipped_images_never_crash);
	tcase_add_test(t, test_binary_format_becomes_an_elf_core);
	tcase_add_test(t, test_binary_format_hostile_counts);
	tcase_add_test(t, test_binary_format_segment_count_after_an_unpadded_stack);
	suite_add_tcase(s, t);
	return s;
}
