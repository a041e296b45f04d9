/* The offline reader: real libunwindstack captures read straight from the
 * corpus (registers, memory files, modules and their ELF images, the
 * addresses libunwindstack prints), and synthetic folders for each kind of
 * damage: a missing file, bad numbers, bad map lines, short memory files,
 * names no CPU has, a CPU the registers and the ELF disagree on. */
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/registry.h"
#include "formats/offline.h"
#include "formats/open.h"
#include "lib/crash_reason.h"
#include "symbols/elf_image.h"
#include "symbols/gz.h"
#include "testutil.h"

/* ---- Helpers --------------------------------------------------------------- */

static const char *case_path(char *buf, size_t n, const char *name)
{
	char rel[512];
	snprintf(rel, sizeof rel, "libunwindstack/%s", name);
	return corpus_path(buf, n, rel);
}

static enum sw_err_code read_case(const char *name, struct sw_snapshot *s, struct sw_err *err)
{
	static char path[1024];
	case_path(path, sizeof path, name);
	sw_err_clear(err);
	return sw_offline_read(path, s, err);
}

static bool has_problem(const struct sw_snapshot *s, const char *needle)
{
	for (uint32_t i = 0; i < s->nproblems; i++)
		if (strstr(s->problems[i], needle))
			return true;
	return false;
}

static const struct sw_module *module_named(const struct sw_snapshot *s, const char *code_file)
{
	for (uint32_t i = 0; i < s->nmodules; i++)
		if (strcmp(s->modules[i].code_file, code_file) == 0)
			return &s->modules[i];
	return NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

static uint64_t reg(const struct sw_snapshot *s, const char *name)
{
	const struct sw_arch *a = sw_arch_for_cpu(s->sys.cpu);
	ck_assert_ptr_nonnull(a);
	int i = sw_arch_reg_index(a, name, strlen(name));
	ck_assert_int_ge(i, 0);
	ck_assert_msg(sw_reg_valid(&s->threads[0].ctx, (unsigned)i), "%s not valid", name);
	return s->threads[0].ctx.v[i];
}

static bool reg_valid(const struct sw_snapshot *s, const char *name)
{
	const struct sw_arch *a = sw_arch_for_cpu(s->sys.cpu);
	int i = sw_arch_reg_index(a, name, strlen(name));
	return i >= 0 && sw_reg_valid(&s->threads[0].ctx, (unsigned)i);
}

/* The ELF file_vaddr of a module's image (0 without one), the image read
 * as the symbol provider will (a .gz inflated). */
static uint64_t image_file_vaddr(const struct sw_module *m)
{
	if (!m->image_path)
		return 0;
	struct sw_err err = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	struct sw_elf *e;
	if (ends_with(m->image_path, ".gz")) {
		ck_assert_int_eq(sw_gz_read_file(m->image_path, &buf, &len, &err), SW_OK);
		ck_assert_uint_lt(m->image_offset, len);
		e = sw_elf_open_bytes(buf + m->image_offset, len - m->image_offset, false,
		                      m->image_path, &err);
	} else {
		e = sw_elf_open_file(m->image_path, m->image_offset, &err);
	}
	ck_assert_msg(e != NULL, "%s: %s", m->image_path, err.msg);
	uint64_t v = sw_elf_info(e)->file_vaddr;
	sw_elf_free(e);
	free(buf);
	return v;
}

/* libunwindstack's REL_PC of address pc: the ELF virtual address. */
static uint64_t rel_pc(const struct sw_snapshot *s, uint64_t pc)
{
	int32_t i = sw_module_at(s, pc);
	ck_assert_msg(i >= 0, "0x%llx in no module", (unsigned long long)pc);
	const struct sw_module *m = &s->modules[i];
	return pc - m->base - m->load_bias + image_file_vaddr(m);
}

/* Scratch folders. */
static char tmp_dir[64];

static void make_tmp_dir(void)
{
	snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sw_offline_test_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tmp_dir(void)
{
	nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *name, const void *data, size_t n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void write_str(const char *name, const char *text)
{
	write_file(name, text, strlen(text));
}

/* A memory file: the start address, little-endian, then the bytes. */
static void write_memory(const char *name, uint64_t addr, const void *data, size_t n)
{
	uint8_t *buf = malloc(8 + n);
	ck_assert_ptr_nonnull(buf);
	for (unsigned i = 0; i < 8; i++)
		buf[i] = (uint8_t)(addr >> (8 * i));
	if (n)
		memcpy(buf + 8, data, n);
	write_file(name, buf, 8 + n);
	free(buf);
}

static void copy_from_case(const char *c, const char *name, const char *as)
{
	char rel[256], path[1024];
	snprintf(rel, sizeof rel, "%s/%s", c, name);
	case_path(path, sizeof path, rel);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	static uint8_t buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	ck_assert_uint_lt(n, sizeof buf);
	write_file(as, buf, n);
}

static enum sw_err_code read_tmp(struct sw_snapshot *s, struct sw_err *err)
{
	sw_err_clear(err);
	return sw_offline_read(tmp_dir, s, err);
}

static const char arm_regs[] = "pc: 1000\nsp: 2000\nlr: 1004\n";
static const char one_map[] = "1000-2000 r-xp 0 00:00 0   app\n";

/* ---- Real captures --------------------------------------------------------- */

START_TEST(test_straddle_arm_registers_memory_and_modules)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case("straddle_arm", &s, &err), SW_OK);
	ck_assert_str_eq(s.format, "offline");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM);
	ck_assert_str_eq(s.sys.cpu_name, "arm");
	ck_assert_uint_eq(s.sys.word_size, 4);
	ck_assert_int_eq(s.sys.os, SW_OS_LINUX);
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.threads[0].id, 0);
	ck_assert_uint_eq(s.threads[0].stack_size, 0);
	ck_assert_uint_eq(reg(&s, "pc"), 0xf31ea9f8);
	ck_assert_uint_eq(reg(&s, "sp"), 0xe9c866f8);
	ck_assert_uint_eq(reg(&s, "lr"), 0xf31f179f);
	ck_assert(!reg_valid(&s, "r0")); /* not in regs.txt: unknown, not 0 */
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].base, 0xe9c866f8);
	ck_assert_uint_eq(s.mem[0].base + s.mem[0].size, 0xe9c867d8);
	ck_assert_uint_eq(s.nmaps, 4);
	ck_assert_str_eq(s.maps[1].path, "[stack:25941]");
	ck_assert_str_eq(s.maps[1].perms, "rw-p");
	ck_assert_uint_eq(s.nmodules, 3);
	const struct sw_module *base = module_named(&s, "libbase.so");
	const struct sw_module *libc = module_named(&s, "libc.so");
	const struct sw_module *hidl = module_named(&s, "/does/not/exist/libhidlbase.so");
	ck_assert_ptr_nonnull(base);
	ck_assert_ptr_nonnull(libc);
	ck_assert_ptr_nonnull(hidl);
	/* maps.txt writes ends as ...fff: taken literally. */
	ck_assert_uint_eq(base->base, 0xf2d9a000);
	ck_assert_uint_eq(base->size, 0xf2da7fff - 0xf2d9a000);
	ck_assert_uint_eq(libc->base, 0xf31d0000);
	ck_assert_uint_eq(libc->size, 0xf326bfff - 0xf31d0000);
	ck_assert(ends_with(libc->image_path, "/libc.so.gz"));
	ck_assert_uint_eq(libc->image_offset, 0);
	ck_assert_str_eq(libc->debug_file, "libc.so");
	/* output_build_id.txt: libc.so (BuildId: 2dd0d4ba881322a0edabeed94808048c). */
	ck_assert_str_eq(libc->code_id, "2dd0d4ba881322a0edabeed94808048c");
	ck_assert_str_eq(libc->debug_id, "BAD4D02D1388A022EDABEED94808048C0");
	/* An absent file: a module by its name, without image. */
	ck_assert_ptr_null(hidl->image_path);
	ck_assert_uint_eq(hidl->image_addr, 0);
	ck_assert_str_eq(hidl->debug_file, "libhidlbase.so");
	ck_assert_ptr_null(hidl->debug_id);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_offset_arm_two_memory_files_and_lld_split_maps)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case("offset_arm", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 2);
	ck_assert_uint_eq(s.mem[0].base, 0xf43d2ccc);
	ck_assert_uint_eq(s.mem[0].base + s.mem[0].size, 0xf43d3000);
	ck_assert_uint_eq(s.mem[1].base, 0xffcc0ee0);
	ck_assert_uint_eq(s.mem[1].base + s.mem[1].size, 0xffcc2000);
	ck_assert_uint_eq(reg(&s, "r12"), 0x2ea0807); /* ip */
	ck_assert_uint_eq(reg(&s, "r11"), 0xf3c94048);
	/* r--p offset 0 and r-xp offset 0x42000 of one file: one module. */
	ck_assert_uint_eq(s.nmodules, 2);
	const struct sw_module *m = module_named(&s, "libunwindstack_test");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->base, 0x2b2a000);
	ck_assert_uint_eq(m->size, 0x2e92000 - 0x2b2a000);
	ck_assert_uint_eq(m->image_offset, 0);
	const struct sw_module *libc = module_named(&s, "libc.so");
	ck_assert_uint_eq(libc->base, 0xf4110000);
	ck_assert_uint_eq(libc->size, 0xf41a9000 - 0xf4110000);
	sw_snapshot_free(&s);
}
END_TEST

/* A library stored in an APK, mapped at its offset in the file. */
static void check_apk_case(const char *name, uint64_t base, uint64_t size)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case(name, &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM64);
	ck_assert_int_eq(s.sys.os, SW_OS_ANDROID); /* a name with ".apk" */
	ck_assert_uint_eq(reg(&s, "x30"), s.threads[0].ctx.v[30]);
	ck_assert_uint_eq(reg(&s, "cpsr"), 0x80001000); /* pst */
	const struct sw_module *m = module_named(&s, "fake.apk!libunwindstack_local.so");
	ck_assert_msg(m != NULL, "no fake.apk!libunwindstack_local.so");
	ck_assert_uint_eq(m->base, base);
	ck_assert_uint_eq(m->size, size);
	ck_assert(ends_with(m->image_path, "/fake.apk"));
	ck_assert_uint_eq(m->image_offset, 0x4000);
	ck_assert_str_eq(m->debug_file, "libunwindstack_local.so");
	ck_assert_ptr_nonnull(m->code_id);
	ck_assert_uint_eq(strlen(m->debug_id), 33);
	/* libc.so is kept in the corpus's common/ folder, gzipped: links.txt
	 * says so. */
	const struct sw_module *libc = module_named(&s, "libc.so");
	ck_assert_ptr_nonnull(libc);
	ck_assert_ptr_nonnull(libc->image_path);
	ck_assert(strstr(libc->image_path, "/../common/libc.so_") != NULL);
	ck_assert(ends_with(libc->image_path, ".gz"));
	sw_snapshot_free(&s);
}

START_TEST(test_apk_rx_arm64_embedded_elf)
{
	check_apk_case("apk_rx_arm64", 0x7cb0e62000, 0x1000);
}
END_TEST

START_TEST(test_apk_rorx_arm64_embedded_elf_over_two_maps)
{
	check_apk_case("apk_rorx_arm64", 0x7426d2d000, 0x2000);
}
END_TEST

START_TEST(test_empty_arm64_blank_gap_does_not_split_a_module)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case("empty_arm64", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmaps, 9);
	ck_assert_ptr_null(s.maps[1].path);
	ck_assert_str_eq(s.maps[1].perms, "---p");
	ck_assert_uint_eq(s.nmodules, 3);
	const struct sw_module *netd = module_named(&s, "netd");
	ck_assert_ptr_nonnull(netd);
	ck_assert_uint_eq(netd->base, 0x5d4786b000);
	ck_assert_uint_eq(netd->size, 0x5d47901000 - 0x5d4786b000);
	ck_assert_uint_eq(rel_pc(&s, reg(&s, "pc")), 0x963a4);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_eh_frame_bias_x86_registers_and_vdso)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case("eh_frame_bias_x86", &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_X86);
	ck_assert_uint_eq(reg(&s, "eip"), 0xffffe430);
	ck_assert_uint_eq(reg(&s, "esp"), 0xfffe1a30);
	ck_assert_uint_eq(reg(&s, "esi"), 0xffffffff);
	const struct sw_module *vdso = module_named(&s, "vdso.so");
	ck_assert_ptr_nonnull(vdso);
	ck_assert_str_eq(vdso->debug_file, "linux-gate.so.1"); /* its DT_SONAME */
	/* p_vaddr 0xffffe000: REL_PC is the address itself. */
	ck_assert_uint_eq(rel_pc(&s, 0xffffe430), 0xffffe430);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_vlenb_riscv64_is_told_by_its_register_names)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case("vlenb_riscv64", &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_RISCV64);
	ck_assert_uint_eq(s.sys.word_size, 8);
	ck_assert_uint_eq(reg(&s, "pc"), 0x555c440735dc);
	ck_assert_uint_eq(reg(&s, "s11"), 1);
	ck_assert_uint_eq(reg(&s, "a7"), 0x2e8ba2e8ba2e8ba3);
	const struct sw_arch *a = sw_arch_for_cpu(SW_CPU_RISCV64);
	if (sw_arch_reg_index(a, "vlenb", 5) >= 0)
		ck_assert_uint_eq(reg(&s, "vlenb"), 0x10);
	else
		ck_assert(has_problem(&s, "vlenb is not tracked"));
	ck_assert_uint_eq(rel_pc(&s, reg(&s, "pc")), 0x5915dc);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_invalid_elf_offset_arm_no_memory_and_no_image)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case("invalid_elf_offset_arm", &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 0);
	ck_assert(has_problem(&s, "warning: "));
	ck_assert(has_problem(&s, "no stack.data"));
	ck_assert_uint_eq(s.nmodules, 1);
	ck_assert_str_eq(s.modules[0].code_file, "invalid.apk");
	ck_assert_ptr_null(s.modules[0].image_path);
	ck_assert_uint_eq(s.modules[0].image_addr, 0);
	ck_assert_uint_eq(reg(&s, "r2"), 0); /* "00000000" */
	/* output.txt: #00 pc 00aa7508  invalid.apk (offset 0x12e4000) */
	ck_assert_uint_eq(rel_pc(&s, reg(&s, "pc")), 0xaa7508);
	sw_snapshot_free(&s);
}
END_TEST

/* Every frame of output.txt whose absolute pc expected_pc_sp.txt gives,
 * and frame #00 of every case: pc - base - load_bias + file_vaddr is the
 * REL_PC libunwindstack printed. */
static const char *const rel_pc_cases[] = {
	"straddle_arm", "gnu_debugdata_arm", "debug_frame_load_bias_arm", "offset_arm",
	"signal_load_bias_arm", "invalid_elf_offset_arm", "zlib_compress_arm", "straddle_arm64",
	"bad_eh_frame_hdr_arm64", "empty_arm64", "load_bias_different_section_bias_arm64",
	"apk_rorx_arm64", "apk_rx_arm64", "apk_rorx_unreadable_arm64", "apk_rx_unreadable_arm64",
	"apk_soname_at_end_arm64", "bluetooth_arm64/pc_1", "youtube_compiled_arm64",
	"photos_reset_arm64", "maps_compiled_arm64/28667", "debug_frame_first_x86",
	"eh_frame_bias_x86", "signal_fde_x86", "eh_frame_hdr_begin_x86_64", "signal_fde_x86_64",
	"vlenb_riscv64",
};

/* REL_PC of frame n in output.txt; false when absent or "<unknown>". */
static bool output_rel_pc(const char *c, unsigned n, uint64_t *out)
{
	char rel[256], path[1024], line[4096];
	snprintf(rel, sizeof rel, "%s/output.txt", c);
	FILE *f = fopen(case_path(path, sizeof path, rel), "r");
	ck_assert_ptr_nonnull(f);
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned k;
		unsigned long long v;
		char map[256];
		if (sscanf(line, "  #%u pc %llx %255s", &k, &v, map) == 3 && k == n &&
		    strcmp(map, "<unknown>") != 0) {
			*out = v;
			found = true;
		}
	}
	fclose(f);
	return found;
}

START_TEST(test_rel_pc_of_frames_matches_libunwindstack)
{
	const char *c = rel_pc_cases[_i];
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_case(c, &s, &err), SW_OK);
	const struct sw_arch *a = sw_arch_for_cpu(s.sys.cpu);
	uint64_t want;
	if (output_rel_pc(c, 0, &want)) {
		uint64_t pc = s.threads[0].ctx.v[a->pc];
		ck_assert_msg(rel_pc(&s, pc) == want, "%s #00: 0x%llx, want 0x%llx", c,
		              (unsigned long long)rel_pc(&s, pc), (unsigned long long)want);
	}
	char rel[256], path[1024], line[256];
	snprintf(rel, sizeof rel, "%s/expected_pc_sp.txt", c);
	FILE *f = fopen(case_path(path, sizeof path, rel), "r");
	unsigned checked = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned n;
		unsigned long long pc;
		if (line[0] == '#' || sscanf(line, "%u 0x%llx", &n, &pc) != 2 || pc == 0)
			continue;
		if (!output_rel_pc(c, n, &want) || sw_module_at(&s, pc) < 0)
			continue;
		ck_assert_msg(rel_pc(&s, pc) == want, "%s #%02u: 0x%llx, want 0x%llx", c, n,
		              (unsigned long long)rel_pc(&s, pc), (unsigned long long)want);
		checked++;
	}
	if (f)
		fclose(f);
	if (strcmp(c, "offset_arm") == 0)
		ck_assert_uint_ge(checked, 15);
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_apk_unreadable_elf_is_read_from_memory)
{
	/* apk_rorx_unreadable_arm64 with the memory upstream's test adds:
	 * fake.apk from offset 0x4000 at 0x7426d2d000, 0x2000 bytes. */
	make_tmp_dir();
	const char *c = "apk_rorx_unreadable_arm64";
	copy_from_case(c, "regs.txt", "regs.txt");
	copy_from_case(c, "maps.txt", "maps.txt");
	copy_from_case(c, "stack.data", "stack.data");
	char path[1024];
	case_path(path, sizeof path, "apk_rorx_unreadable_arm64/fake.apk");
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	static uint8_t apk[0x2000];
	ck_assert_int_eq(fseek(f, 0x4000, SEEK_SET), 0);
	ck_assert_uint_eq(fread(apk, 1, sizeof apk, f), sizeof apk);
	fclose(f);
	write_memory("stack1.data", 0x7426d2d000, apk, sizeof apk);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 2);
	const struct sw_module *m = module_named(&s, "unreadable.apk");
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_null(m->image_path);
	ck_assert_uint_eq(m->image_addr, 0x7426d2d000);
	ck_assert_ptr_nonnull(m->code_id);
	/* Its DT_SONAME lies past the mapped pages: no "!soname" (as
	 * libunwindstack prints it). */
	ck_assert_str_eq(m->code_file, "unreadable.apk");
	ck_assert_uint_eq(m->size, 0x2000);
	ck_assert_uint_eq(rel_pc(&s, reg(&s, "pc")), 0x1030);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_open_routes_folders_by_content)
{
	char path[1024];
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snapshot_open(case_path(path, sizeof path, "straddle_arm"), &s, &err),
	                 SW_OK);
	ck_assert_str_eq(s.format, "offline");
	sw_snapshot_free(&s);
	/* A folder without regs.txt is not a snapshot. */
	sw_err_clear(&err);
	ck_assert(!sw_offline_is_folder(case_path(path, sizeof path, "common")));
	ck_assert_int_eq(sw_snapshot_open(path, &s, &err), SW_ERR_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
	sw_snapshot_free(&s);
}
END_TEST

/* ---- Synthetic folders ----------------------------------------------------- */

START_TEST(test_missing_regs_txt_is_not_an_offline_folder)
{
	make_tmp_dir();
	write_str("maps.txt", one_map);
	ck_assert(!sw_offline_is_folder(tmp_dir));
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "no regs.txt"));
	ck_assert_ptr_nonnull(strstr(err.msg, tmp_dir));
	sw_snapshot_free(&s);
	write_str("regs.txt", arm_regs);
	ck_assert(sw_offline_is_folder(tmp_dir));
	remove_tmp_dir();
}
END_TEST

START_TEST(test_bad_hex_is_a_problem_naming_file_and_line)
{
	make_tmp_dir();
	write_str("regs.txt", "pc: 0000000000001000\nsp: zz12\nlr: 1234567890abcdef0\n"
	                      "r0 12\nr1: 0x10\n");
	write_str("maps.txt", one_map);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	char want[128];
	snprintf(want, sizeof want, "%s/regs.txt:2: sp: 'zz12' is not a 64-bit hex number", tmp_dir);
	ck_assert_msg(has_problem(&s, want), "no '%s'", want);
	ck_assert(has_problem(&s, "regs.txt:3: lr: '1234567890abcdef0'"));
	ck_assert(has_problem(&s, "regs.txt:4: 'r0 12' is not 'NAME: HEX'"));
	ck_assert_ptr_nonnull(strstr(err.msg, "regs.txt:2"));
	ck_assert_ptr_nonnull(strstr(err.msg, "and 2 more problems"));
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM);
	ck_assert_uint_eq(reg(&s, "pc"), 0x1000);
	ck_assert_uint_eq(reg(&s, "r1"), 0x10);
	ck_assert(!reg_valid(&s, "sp"));
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_maps_lines_with_bad_fields_are_skipped)
{
	make_tmp_dir();
	write_str("regs.txt", arm_regs);
	write_str("maps.txt", "1000-2000 r-xp 0 00:00 0   app\n"
	                      "3000-2000 r-xp 0 00:00 0   backwards\n"
	                      "30g0-4000 r-xp 0 00:00 0   nothex\n"
	                      "5000-6000 rwxpp 0 00:00 0   perms\n"
	                      "7000-8000 r-xp zz 00:00 0   offset\n"
	                      "9000-a000 r-xp 0 0000 0   dev\n"
	                      "b000-c000\n"
	                      "\n"
	                      "d000-e000 rw-p 0 00:00 0\n"
	                      "f000-10000 r--p 0 00:00 0   [vdso]\n");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	char want[128];
	snprintf(want, sizeof want, "%s/maps.txt:2: bad address range '3000-2000'", tmp_dir);
	ck_assert_msg(has_problem(&s, want), "no '%s'", want);
	ck_assert(has_problem(&s, "maps.txt:3: bad address range '30g0-4000'"));
	ck_assert(has_problem(&s, "maps.txt:4: bad permissions 'rwxpp'"));
	ck_assert(has_problem(&s, "maps.txt:5: bad file offset 'zz'"));
	ck_assert(has_problem(&s, "maps.txt:6: bad device or inode"));
	ck_assert(has_problem(&s, "maps.txt:7: bad permissions ''"));
	ck_assert_uint_eq(s.nmaps, 3);
	ck_assert_ptr_null(s.maps[1].path);
	ck_assert_str_eq(s.maps[2].path, "[vdso]");
	/* An executable map whose file is absent is still a module. */
	ck_assert_uint_eq(s.nmodules, 1);
	ck_assert_str_eq(s.modules[0].code_file, "app");
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_short_memory_file_is_a_problem)
{
	make_tmp_dir();
	write_str("regs.txt", arm_regs);
	write_str("maps.txt", one_map);
	write_file("stack.data", "\x00\x20\x00\x00\x00", 5);
	write_memory("stack1.data", 0x3000, "abcd", 4);
	write_memory("stack2.data", 0x5000, NULL, 0);
	write_str("stack.txt", "not a memory file");
	write_str("jit3.data.bak", "not a memory file");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "stack.data: 5 bytes: shorter than the 8-byte start address"));
	ck_assert(has_problem(&s, "warning: "));
	ck_assert(has_problem(&s, "stack2.data: no bytes"));
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].base, 0x3000);
	ck_assert_uint_eq(s.mem[0].size, 4);
	uint32_t v;
	ck_assert(sw_mem_read_u32(&s, 0x3000, &v));
	ck_assert_uint_eq(v, 0x64636261);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_unknown_register_name_is_a_problem_not_a_failure)
{
	make_tmp_dir();
	write_str("regs.txt", "r0: 1\nr1: 2\nfoo: 3\nsp: 2000\npc: 1000\n");
	write_str("maps.txt", one_map);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "regs.txt:3: unknown register name 'foo' for arm"));
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM);
	ck_assert_uint_eq(reg(&s, "r1"), 2);
	ck_assert_uint_eq(reg(&s, "pc"), 0x1000);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_cpu_is_told_by_register_names)
{
	static const struct {
		const char *regs;
		enum sw_cpu cpu;
	} cases[] = {
		{ "rax: 1\nrip: 1000\nrsp: 2000\nr8: 3\n", SW_CPU_AMD64 },
		{ "eax: 1\neip: 1000\nesp: 2000\n", SW_CPU_X86 },
		{ "x0: 1\nx29: 2\nlr: 3\nsp: 4\npc: 5\n", SW_CPU_ARM64 },
		{ "r0: 1\nr8: 2\nip: 3\nsp: 4\npc: 5\n", SW_CPU_ARM },
		{ "pc: 5\nsp: 4\n", SW_CPU_ARM },                 /* 32-bit values */
		{ "pc: 7f00000005\nsp: 7f00000004\n", SW_CPU_ARM64 }, /* wider */
		{ "pc: 5\nra: 4\na0: 1\ns0: 2\nt0: 3\n", SW_CPU_RISCV64 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		make_tmp_dir();
		write_str("regs.txt", cases[i].regs);
		write_str("maps.txt", one_map);
		struct sw_snapshot s;
		struct sw_err err;
		ck_assert_int_eq(read_tmp(&s, &err), SW_OK);
		ck_assert_msg(s.sys.cpu == cases[i].cpu, "case %zu: cpu %d", i, (int)s.sys.cpu);
		sw_snapshot_free(&s);
		remove_tmp_dir();
	}
}
END_TEST

START_TEST(test_elf_holding_the_pc_overrides_the_register_names)
{
	/* pc and sp alone, 32-bit values: arm by the names; the pc is in an
	 * AArch64 executable. */
	make_tmp_dir();
	write_str("regs.txt", "pc: 10550\nsp: 4000\n");
	write_str("maps.txt", "10000-11000 r-xp 0 00:00 0   waiter64\n");
	copy_from_case("bad_eh_frame_hdr_arm64", "waiter64.gz", "waiter64.gz");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM64);
	ck_assert_uint_eq(s.sys.word_size, 8);
	ck_assert(has_problem(&s, "the register names say arm but waiter64, which holds the pc, "
	                          "is arm64 code"));
	ck_assert_uint_eq(reg(&s, "pc"), 0x10550);
	ck_assert(ends_with(s.modules[0].image_path, "/waiter64.gz"));
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_garbage_and_long_lines_never_crash)
{
	make_tmp_dir();
	size_t n = 1 << 20;
	char *junk = malloc(n);
	ck_assert_ptr_nonnull(junk);
	for (size_t i = 0; i < n; i++)
		junk[i] = (char)(i * 7919 % 251);
	write_file("regs.txt", junk, n);
	memset(junk, 'a', n); /* one line of a MiB */
	write_file("maps.txt", junk, n);
	write_memory("stack.data", UINT64_MAX - 3, "12345678", 8); /* runs past 2^64 */
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "maps.txt:1: bad address range"));
	ck_assert(has_problem(&s, "run past the end of the address space"));
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].size, 4);
	sw_snapshot_free(&s);
	free(junk);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_absolute_kernel_paths_are_not_opened)
{
	make_tmp_dir();
	write_str("regs.txt", arm_regs);
	write_str("maps.txt", "1000-2000 r-xp 0 00:00 0   /proc/self/exe\n"
	                      "3000-4000 r-xp 0 00:00 0   ../../proc/self/exe\n");
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 2);
	ck_assert_ptr_null(s.modules[0].image_path);
	ck_assert_ptr_null(s.modules[1].image_path);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

/* ---- Debug-probe folders (regs.txt, mem-HEX.bin) -------------------------- */

/* A file of testdata/, from SW_TESTDATA. */
static const char *testdata_path(char *buf, size_t n, const char *rel)
{
	const char *root = getenv("SW_TESTDATA");
	snprintf(buf, n, "%s/%s", root ? root : "testdata", rel);
	return buf;
}

static bool extra_reg(const struct sw_snapshot *s, const char *name, uint64_t *v)
{
	return sw_thread_extra_reg(&s->threads[0], name, v);
}

START_TEST(test_probe_cortex_m_registers_and_memory)
{
	make_tmp_dir();
	/* OpenOCD's `reg` lines, as it spells them ("xPSR"), among plain
	 * ones; its DWT comparators are no registers stackwalk uses. */
	write_str("regs.txt", "===== arm v7m registers\n(0) r0 (/32): 0x00000001\n"
	                      "sp: 0x20000810\nlr: 0xfffffff1\npc: 0x40\n"
	                      "(16) xPSR (/32): 0x01000003\nmsp: 0x20000810\npsp: 0x200017f0\n"
	                      "control: 0\ncfsr: 0x00010000\n(24) dwt_0_comp (/32): 0x0\n");
	write_file("mem-20000800.bin", "abcdefgh", 8);
	write_file("mem-0x20001000.bin", "ijkl", 4);
	ck_assert(sw_offline_is_folder(tmp_dir));
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_OK);
	ck_assert_str_eq(s.format, "probe");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM);
	ck_assert_int_eq(s.sys.arm_profile, 'M');
	ck_assert_int_eq(s.sys.os, SW_OS_NONE);
	ck_assert_uint_eq(s.sys.word_size, 4);
	ck_assert_uint_eq(reg(&s, "r0"), 1);
	ck_assert_uint_eq(reg(&s, "pc"), 0x40);
	ck_assert_uint_eq(reg(&s, "sp"), 0x20000810);
	ck_assert(has_problem(&s, "warning: "));
	ck_assert(has_problem(&s, "1 registers stackwalk does not use (dwt_0_comp)"));
	/* EPSR.T (bit 24) is CPSR.T (bit 5); IPSR's 3 is no flag. */
	ck_assert_uint_eq(reg(&s, "cpsr"), 0x20);
	uint64_t v;
	ck_assert(extra_reg(&s, "psp", &v));
	ck_assert_uint_eq(v, 0x200017f0);
	ck_assert(extra_reg(&s, "xpsr", &v));
	ck_assert(extra_reg(&s, "cfsr", &v));
	ck_assert_uint_eq(v, 0x10000);
	ck_assert_uint_eq(s.nmem, 2);
	ck_assert_uint_eq(s.mem[0].base, 0x20000800);
	ck_assert_uint_eq(s.mem[1].base, 0x20001000);
	ck_assert_uint_eq(s.mem[1].size, 4);
	uint32_t w;
	ck_assert(sw_mem_read_u32(&s, 0x20000804, &w));
	ck_assert_uint_eq(w, 0x68676665);
	/* No ELF: a warning, not damage. */
	ck_assert(has_problem(&s, "warning: "));
	ck_assert_uint_eq(s.nmodules, 0);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_probe_riscv32_x_names_and_mepc_for_pc)
{
	make_tmp_dir();
	write_str("regs.txt", "x0: 0\nx1: 0x800000ca\nx2: 0x80001e40\nfp: 0x80001e50\n"
	                      "mcause: 5\nmepc: 0x800000a4\nmtval: 0x100\n");
	write_file("mem-80001e40.bin", "abcdefgh", 8);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_RISCV32);
	ck_assert_uint_eq(s.sys.word_size, 4);
	ck_assert_uint_eq(reg(&s, "ra"), 0x800000ca);
	ck_assert_uint_eq(reg(&s, "sp"), 0x80001e40);
	ck_assert_uint_eq(reg(&s, "s0"), 0x80001e50);
	ck_assert_uint_eq(reg(&s, "pc"), 0x800000a4);
	uint64_t v;
	ck_assert(extra_reg(&s, "mcause", &v));
	ck_assert_uint_eq(v, 5);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

/* The crash a probe's registers tell, as a .snap's CRASH record gives it:
 * Cortex-M halted in a handler: IPSR's exception, CFSR's fault bits and
 * the address the valid one of MMFAR and BFAR holds (0: BFAR, 1: MMFAR,
 * 2: neither valid: no address); Thread mode (IPSR 0): no crash. */
static const struct {
	const char *regs;
	bool crash;
	uint32_t code, flags;
	uint64_t address;
	const char *reason;
} probe_crashes[] = {
	{ "sp: 20000800\npc: 40\nmsp: 20000800\nxpsr: 01000003\ncfsr: 8200\n"
	  "bfar: 40001000\nmmfar: 1234\n",
	  true, 3, 0x8200, 0x40001000, "HardFault / PRECISERR" },
	{ "sp: 20000800\npc: 40\nmsp: 20000800\nxpsr: 01000004\ncfsr: 82\n"
	  "bfar: 40001000\nmmfar: 1234\n",
	  true, 4, 0x82, 0x1234, "MemManage / DACCVIOL" },
	{ "sp: 20000800\npc: 40\nmsp: 20000800\nxpsr: 01000006\ncfsr: 10000\nbfar: 5\n",
	  true, 6, 0x10000, 0, "UsageFault / UNDEFINSTR" },
	{ "sp: 20000800\npc: 40\nmsp: 20000800\nxpsr: 01000000\ncfsr: 10000\n",
	  false, 0, 0, 0, "" },
	/* RISC-V: mcause and mtval; an RV64 interrupt's bit 63 read as bit 31. */
	{ "ra: 80000010\nsp: 80001e40\npc: 800000a4\nmcause: 5\nmtval: 100\n",
	  true, 5, 0, 0x100, "Load access fault" },
	{ "ra: 80000010\nsp: 80001e4000\npc: 800000a400\nmcause: 8000000000000007\nmtval: 0\n",
	  true, 0x80000007, 0, 0, "Interrupt 7" },
	{ "ra: 80000010\nsp: 80001e40\npc: 800000a4\nmepc: 800000a4\n", false, 0, 0, 0, "" },
};

START_TEST(test_probe_crash_is_derived_from_the_registers)
{
	make_tmp_dir();
	write_str("regs.txt", probe_crashes[_i].regs);
	write_file("mem-20000800.bin", "abcdefgh", 8);
	struct sw_snapshot s;
	struct sw_err err;
	read_tmp(&s, &err);
	ck_assert_int_eq(s.crash.present, probe_crashes[_i].crash);
	char buf[128];
	ck_assert_str_eq(sw_crash_reason(&s, SW_REASON_RUST, buf, sizeof buf),
	                 probe_crashes[_i].reason);
	if (probe_crashes[_i].crash) {
		ck_assert_uint_eq(s.crash.thread_id, 0);
		ck_assert_uint_eq(s.crash.code, probe_crashes[_i].code);
		ck_assert_uint_eq(s.crash.flags, probe_crashes[_i].flags);
		ck_assert_uint_eq(s.crash.address, probe_crashes[_i].address);
	}
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_probe_bad_memory_file_names_are_problems)
{
	make_tmp_dir();
	write_str("regs.txt", "sp: 1000\npc: 40\nmsp: 1000\n");
	write_file("mem-1000.bin", "abcd", 4);
	write_file("mem-zz.bin", "abcd", 4);
	write_file("mem-.bin", "abcd", 4);
	write_file("mem-12345678901234567.bin", "abcd", 4);
	write_file("mem-2000.bin", "", 0);
	write_file("mem-3000.bin.bak", "abcd", 4);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "mem-zz.bin: not mem-HEX.bin"));
	ck_assert(has_problem(&s, "mem-.bin: not mem-HEX.bin"));
	ck_assert(has_problem(&s, "mem-12345678901234567.bin: not mem-HEX.bin"));
	ck_assert(has_problem(&s, "warning: "));
	ck_assert(has_problem(&s, "mem-2000.bin: empty"));
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].base, 0x1000);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_probe_overlapping_memory_files_are_refused)
{
	make_tmp_dir();
	write_str("regs.txt", "sp: 1000\npc: 40\nmsp: 1000\n");
	write_file("mem-1000.bin", "abcdefgh", 8);
	write_file("mem-1004.bin", "ABCD", 4);
	write_file("mem-1008.bin", "ijkl", 4);
	/* Past the end of a Cortex-M's 32-bit address space. */
	write_file("mem-fffffffe.bin", "abcd", 4);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "mem-1004.bin: overlaps"));
	ck_assert(has_problem(&s, "mem-fffffffe.bin: 0x4 bytes from 0xfffffffe run past the end"));
	ck_assert_uint_eq(s.nmem, 2);
	ck_assert_uint_eq(s.mem[0].base, 0x1000);
	ck_assert_uint_eq(s.mem[1].base, 0x1008);
	uint32_t w;
	ck_assert(sw_mem_read_u32(&s, 0x1004, &w));
	ck_assert_uint_eq(w, 0x68676665);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_folder_without_maps_or_memory_files_is_refused)
{
	make_tmp_dir();
	write_str("regs.txt", arm_regs);
	write_file("memory.bin", "abcd", 4);
	write_file("mem-1000.txt", "abcd", 4);
	ck_assert(!sw_offline_is_folder(tmp_dir));
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(read_tmp(&s, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "no maps.txt"));
	sw_snapshot_free(&s);
	sw_err_clear(&err);
	ck_assert_int_eq(sw_snapshot_open(tmp_dir, &s, &err), SW_ERR_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

START_TEST(test_probe_firmware_elf_is_a_module_at_its_link_addresses)
{
	char elf[1024];
	testdata_path(elf, sizeof elf, "firmware/fixtures/mps2-an385.elf");
	make_tmp_dir();
	write_str("regs.txt", "sp: 0x20000810\npc: 0x40\nmsp: 0x20000810\n");
	write_file("mem-20000800.bin", "abcdefgh", 8);
	/* Given as a symbol path, holding the pc: the module. */
	const char *paths[] = { "/nonexistent", tmp_dir, elf };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 3 };
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snapshot_open_with(tmp_dir, &o, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 1);
	ck_assert_str_eq(s.modules[0].code_file, elf);
	ck_assert_str_eq(s.modules[0].image_path, elf);
	/* The flash image (a few KiB, rebuilt with the fixtures), not the
	 * RAM segment at 0x20000000. */
	ck_assert_uint_eq(s.modules[0].base, 0);
	ck_assert_uint_gt(s.modules[0].size, 0x40);
	ck_assert_uint_lt(s.modules[0].size, 0x10000);
	ck_assert_ptr_nonnull(s.modules[0].code_id);
	ck_assert_uint_eq(rel_pc(&s, 0x40), 0x40);
	sw_snapshot_free(&s);
	/* A pc it does not hold: no module from the symbol path. */
	write_str("regs.txt", "sp: 0x20000810\npc: 0x10000\nmsp: 0x20000810\n");
	sw_err_clear(&err);
	ck_assert_int_eq(sw_snapshot_open_with(tmp_dir, &o, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 0);
	sw_snapshot_free(&s);
	/* In the folder itself: a module whatever the pc. */
	FILE *in = fopen(elf, "rb");
	ck_assert_ptr_nonnull(in);
	static uint8_t buf[1 << 18];
	size_t n = fread(buf, 1, sizeof buf, in);
	fclose(in);
	ck_assert_uint_lt(n, sizeof buf);
	write_file("firmware.elf", buf, n);
	ck_assert_int_eq(read_tmp(&s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 1);
	ck_assert(ends_with(s.modules[0].code_file, "/firmware.elf"));
	ck_assert_uint_eq(s.modules[0].base, 0);
	sw_snapshot_free(&s);
	/* In both, the same build: one module, the named file's (what the
	 * command line names wins), and nothing said. */
	write_str("regs.txt", "sp: 0x20000810\npc: 0x40\nmsp: 0x20000810\n");
	ck_assert_int_eq(sw_snapshot_open_with(tmp_dir, &o, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 1);
	ck_assert_str_eq(s.modules[0].code_file, elf);
	ck_assert_uint_eq(s.nproblems, 0);
	sw_snapshot_free(&s);
	remove_tmp_dir();
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("offline");
	TCase *t = tcase_create("corpus");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, test_straddle_arm_registers_memory_and_modules);
	tcase_add_test(t, test_offset_arm_two_memory_files_and_lld_split_maps);
	tcase_add_test(t, test_apk_rx_arm64_embedded_elf);
	tcase_add_test(t, test_apk_rorx_arm64_embedded_elf_over_two_maps);
	tcase_add_test(t, test_empty_arm64_blank_gap_does_not_split_a_module);
	tcase_add_test(t, test_eh_frame_bias_x86_registers_and_vdso);
	tcase_add_test(t, test_vlenb_riscv64_is_told_by_its_register_names);
	tcase_add_test(t, test_invalid_elf_offset_arm_no_memory_and_no_image);
	tcase_add_loop_test(t, test_rel_pc_of_frames_matches_libunwindstack, 0,
	                    (int)(sizeof rel_pc_cases / sizeof *rel_pc_cases));
	tcase_add_test(t, test_apk_unreadable_elf_is_read_from_memory);
	tcase_add_test(t, test_open_routes_folders_by_content);
	suite_add_tcase(s, t);

	t = tcase_create("synthetic");
	tcase_add_test(t, test_missing_regs_txt_is_not_an_offline_folder);
	tcase_add_test(t, test_bad_hex_is_a_problem_naming_file_and_line);
	tcase_add_test(t, test_maps_lines_with_bad_fields_are_skipped);
	tcase_add_test(t, test_short_memory_file_is_a_problem);
	tcase_add_test(t, test_unknown_register_name_is_a_problem_not_a_failure);
	tcase_add_test(t, test_cpu_is_told_by_register_names);
	tcase_add_test(t, test_elf_holding_the_pc_overrides_the_register_names);
	tcase_add_test(t, test_garbage_and_long_lines_never_crash);
	tcase_add_test(t, test_absolute_kernel_paths_are_not_opened);
	tcase_add_test(t, test_probe_cortex_m_registers_and_memory);
	tcase_add_test(t, test_probe_riscv32_x_names_and_mepc_for_pc);
	tcase_add_loop_test(t, test_probe_crash_is_derived_from_the_registers, 0,
	                    (int)(sizeof probe_crashes / sizeof *probe_crashes));
	tcase_add_test(t, test_probe_bad_memory_file_names_are_problems);
	tcase_add_test(t, test_probe_overlapping_memory_files_are_refused);
	tcase_add_test(t, test_folder_without_maps_or_memory_files_is_refused);
	tcase_add_test(t, test_probe_firmware_elf_is_a_module_at_its_link_addresses);
	suite_add_tcase(s, t);
	return s;
}
