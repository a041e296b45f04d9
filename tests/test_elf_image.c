/* The ELF image: what it says about itself (checked against readelf on the
 * real libunwindstack files), its sections and symbols, MiniDebugInfo,
 * demangling, hostile inputs, and the names libunwindstack prints for every
 * frame of its 30 offline cases. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <zlib.h>
#include <zstd.h>

#include "symbols/dwarf_lines.h"
#include "symbols/elf_image.h"
#include "symbols/elf_locate.h"
#include "symbols/elf_symbols.h"
#include "tests/testutil.h"

static struct sw_elf *open_corpus(const char *rel, uint64_t offset)
{
	char path[1024];
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(corpus_path(path, sizeof path, rel), offset, &err);
	ck_assert_msg(e != NULL, "%s: %s", rel, err.msg);
	return e;
}

static void assert_build_id(const struct sw_elf_info *in, const char *hex)
{
	char got[2 * 64 + 1] = "";
	for (size_t i = 0; i < in->build_id_len && i < 64; i++)
		snprintf(got + 2 * i, 3, "%02x", in->build_id[i]);
	ck_assert_str_eq(got, hex);
}

/* ---- what an image says about itself (readelf -h -n -l -d -S) --------- */

START_TEST(test_elf_info_of_arm_library_with_load_bias)
{
	struct sw_elf *e = open_corpus("libunwindstack/gnu_debugdata_arm/libandroid_runtime.so.gz", 0);
	const struct sw_elf_info *in = sw_elf_info(e);
	ck_assert_uint_eq(in->word_size, 4);
	ck_assert(!in->big_endian);
	ck_assert_uint_eq(in->machine, EM_ARM);
	ck_assert_uint_eq(in->type, ET_DYN);
	assert_build_id(in, "d75bc4c9ec2b53085c418234f8cd717c");
	ck_assert_str_eq(in->soname, "libandroid_runtime.so");
	/* LOAD 0x000000 0x00010000 ... R E */
	ck_assert_uint_eq(in->file_vaddr, 0x10000);
	ck_assert_uint_eq(in->exec_load_bias, 0x10000);
	ck_assert(in->has_exec_segment);
	ck_assert(!in->has_symtab);
	ck_assert(!in->has_debug_info);
	ck_assert_ptr_null(in->debuglink);
	sw_elf_free(e);
}
END_TEST

/* Breakpad's dump_syms counts a .sym's addresses from the first PT_LOAD's
 * p_vaddr, whatever its file offset (dump_symbols.cc GetLoadingAddress);
 * module offsets count from where file byte 0 is linked. A firmware's
 * first segment lies at file offset 0x1000 (readelf -l: LOAD 0x001000
 * 0x10000000), so a .sym is looked up 0x1000 lower, also when that segment
 * is not the lowest (the Non-secure code at 0x00040000 comes second). */
START_TEST(test_elf_sym_base_is_the_first_segments_file_offset)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/firmware/fixtures/mps2-an505-ns.elf", getenv("SW_TESTDATA"));
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	const struct sw_elf_info *in = sw_elf_info(e);
	ck_assert_uint_eq(in->first_load_vaddr, 0x10000000);
	ck_assert_uint_eq(in->file_vaddr, 0x0ffff000);
	struct sw_elf_symbols *s = sw_elf_symbols_create(e, NULL);
	ck_assert_uint_eq(sw_elf_symbols_sym_base(s), 0x1000);
	sw_elf_symbols_free(s);

	/* A shared library's first segment holds its headers: the same base. */
	e = open_corpus("libunwindstack/gnu_debugdata_arm/libandroid_runtime.so.gz", 0);
	ck_assert_uint_eq(sw_elf_info(e)->first_load_vaddr, 0x10000);
	s = sw_elf_symbols_create(e, NULL);
	ck_assert_uint_eq(sw_elf_symbols_sym_base(s), 0);
	sw_elf_symbols_free(s);
}
END_TEST

START_TEST(test_elf_info_of_arm64_libc_with_debuglink)
{
	struct sw_elf *e = open_corpus("libunwindstack/common/libc.so_f3791c53da47e6e72151dcc8088b9048.gz", 0);
	const struct sw_elf_info *in = sw_elf_info(e);
	ck_assert_uint_eq(in->word_size, 8);
	ck_assert_uint_eq(in->machine, EM_AARCH64);
	assert_build_id(in, "f3791c53da47e6e72151dcc8088b9048");
	ck_assert_str_eq(in->soname, "libc.so");
	ck_assert_uint_eq(in->file_vaddr, 0);
	ck_assert_uint_eq(in->exec_load_bias, 0);
	ck_assert(in->has_symtab);
	/* .gnu_debuglink: "libc.so\0" then 8d 34 19 e1. */
	ck_assert_str_eq(in->debuglink, "libc.so");
	ck_assert_uint_eq(in->debuglink_crc, 0xe119348d);
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_info_of_x86_vdso_loaded_high)
{
	struct sw_elf *e = open_corpus("libunwindstack/eh_frame_bias_x86/vdso.so.gz", 0);
	const struct sw_elf_info *in = sw_elf_info(e);
	ck_assert_uint_eq(in->word_size, 4);
	ck_assert_uint_eq(in->machine, EM_386);
	ck_assert_ptr_null(in->build_id);
	ck_assert_str_eq(in->soname, "linux-gate.so.1");
	/* LOAD 0x000000 0xffffe000 0x00000000 (p_paddr differs: unused) */
	ck_assert_uint_eq(in->file_vaddr, 0xffffe000);
	ck_assert_uint_eq(in->exec_load_bias, 0xffffe000);
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_info_exec_bias_differs_from_file_vaddr)
{
	struct sw_elf *e = open_corpus("libunwindstack/load_bias_different_section_bias_arm64/test.gz", 0);
	const struct sw_elf_info *in = sw_elf_info(e);
	assert_build_id(in, "c02e7c3479b85bd235ce11cc916e7721");
	ck_assert_ptr_null(in->soname);
	/* LOAD 0x000000 0x0 R; LOAD 0x044818 0x45818 R E */
	ck_assert_uint_eq(in->file_vaddr, 0);
	ck_assert_uint_eq(in->exec_load_bias, 0x1000);
	ck_assert(in->has_debug_info);
	ck_assert(in->has_symtab);
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_info_of_riscv_libc)
{
	struct sw_elf *e = open_corpus("libunwindstack/vlenb_riscv64/libc.so.gz", 0);
	const struct sw_elf_info *in = sw_elf_info(e);
	ck_assert_uint_eq(in->machine, EM_RISCV);
	assert_build_id(in, "166ddd6fd37d7ddd9b04828275ed948c");
	ck_assert_str_eq(in->soname, "libc.so");
	ck_assert_uint_eq(in->exec_load_bias, 0x1000);
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_soname_past_the_section_headers_of_an_embedded_library)
{
	/* unwinder.apk at 0xa000: .dynstr at 0x3000 lies past the section
	 * header table (0x2358 + 19 * 64); the last PT_LOAD (0x3000 + 0x60)
	 * reaches it. */
	struct sw_elf *e = open_corpus("libunwindstack/apk_soname_at_end_arm64/unwinder.apk.gz", 0xa000);
	const struct sw_elf_info *in = sw_elf_info(e);
	ck_assert_str_eq(in->soname, "libunwindstack_local.so");
	ck_assert_uint_eq(in->image_size, 0x3060);
	struct sw_elf_symbol sym;
	ck_assert(sw_elf_symbol_at(e, 0x113c, &sym));
	ck_assert_str_eq(sym.name, "WaitForever");
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_open_names_the_file_in_errors)
{
	char path[1024];
	struct sw_err err = { 0 };
	corpus_path(path, sizeof path, "libunwindstack/cases.tsv");
	ck_assert_ptr_null(sw_elf_open_file(path, 0, &err));
	ck_assert_int_eq(err.code, SW_ERR_FORMAT);
	char want[1100];
	snprintf(want, sizeof want, "%s: not an ELF file", path);
	ck_assert_str_eq(err.msg, want);

	struct sw_err err2 = { 0 };
	corpus_path(path, sizeof path, "libunwindstack/common/libc.so_f3791c53da47e6e72151dcc8088b9048.gz");
	ck_assert_ptr_null(sw_elf_open_file(path, 1ull << 40, &err2));
	ck_assert_ptr_nonnull(strstr(err2.msg, path));
}
END_TEST

START_TEST(test_elf_read_returns_code_bytes_only)
{
	/* libbinder: LOAD 0x000000 vaddr 0x5000 R E (0x551da bytes); LOAD
	 * 0x0558f0 vaddr 0x5b8f0 RW. */
	struct sw_elf *e = open_corpus("libunwindstack/debug_frame_load_bias_arm/libbinder.so.gz", 0);
	uint8_t b[4];
	ck_assert(sw_elf_read(e, 0x5000, b, 4));
	ck_assert(memcmp(b, "\x7f" "ELF", 4) == 0);
	ck_assert(sw_elf_read(e, 0x5000 + 0x551da - 4, b, 4));
	ck_assert(!sw_elf_read(e, 0x5000 + 0x551da - 2, b, 4));
	ck_assert(!sw_elf_read(e, 0x5b8f0, b, 4));
	ck_assert(!sw_elf_read(e, 0x4fff, b, 1));
	ck_assert(!sw_elf_read(e, UINT64_MAX, b, 4));
	sw_elf_free(e);
}
END_TEST

/* A file of testdata/, from SW_TESTDATA. */
static struct sw_elf *open_testdata(const char *rel)
{
	char path[1024];
	const char *root = getenv("SW_TESTDATA");
	snprintf(path, sizeof path, "%s/%s", root ? root : "testdata", rel);
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	ck_assert_msg(e != NULL, "%s: %s", rel, err.msg);
	return e;
}

START_TEST(test_elf_has_function_trusts_only_unwind_tables_that_cover_the_code)
{
	/* The x86 vDSO has no .symtab; its FDEs cover 37 of its 52 code
	 * bytes: between __kernel_rt_sigreturn (0xffffe410, 8 bytes, FDE
	 * 0xffffe40f..0xffffe417) and __kernel_vsyscall (0xffffe420) lies
	 * padding, in no function. */
	struct sw_elf *e = open_testdata("elf/vdso_x86.so");
	uint64_t base = sw_elf_info(e)->file_vaddr;
	struct sw_elf_symbols *s = sw_elf_symbols_create(e, NULL);
	ck_assert(sw_elf_symbols_ops.has_function(s, 0xffffe412 - base));
	ck_assert(!sw_elf_symbols_ops.has_function(s, 0xffffe41a - base));
	sw_elf_symbols_free(s);

	/* riscv64, built without unwind tables and stripped: one FDE, crt1.o's
	 * _start (0xcc8..0xcea); it says nothing of alloca_frame (0xec0, in
	 * symbols/crash only), which is code all the same. */
	e = open_testdata("cores/riscv64-nounwind/crash");
	ck_assert(!sw_elf_info(e)->has_symtab);
	base = sw_elf_info(e)->file_vaddr;
	s = sw_elf_symbols_create(e, NULL);
	ck_assert(sw_elf_symbols_has_cfi(s));
	ck_assert(sw_elf_symbols_ops.has_function(s, 0xcd0 - base));
	ck_assert(sw_elf_symbols_ops.has_function(s, 0xed0 - base));
	sw_elf_symbols_free(s);
}
END_TEST

/* The executable section holding an address, by the section headers,
 * through the provider's op (module offsets): .text of tiny starts at
 * 0x5f0, right after .plt.got (readelf -S); .data holds no code. */
START_TEST(test_elf_code_section_start_from_the_section_headers)
{
	struct sw_elf *e = open_testdata("elf/tiny_minidebuginfo_x86_64");
	uint64_t base = sw_elf_info(e)->file_vaddr, start;
	ck_assert(sw_elf_code_section_start(e, 0x650, &start));
	ck_assert_uint_eq(start, 0x5f0);
	ck_assert(sw_elf_code_section_start(e, 0x5c8, &start));
	ck_assert_uint_eq(start, 0x5c0);
	ck_assert(!sw_elf_code_section_start(e, 0x1dd0, &start));
	struct sw_elf_symbols *s = sw_elf_symbols_create(e, NULL);
	ck_assert(sw_elf_symbols_ops.code_section_start(s, 0x6ff - base, &start));
	ck_assert_uint_eq(start, 0x5f0 - base);
	ck_assert(!sw_elf_symbols_ops.code_section_start(s, 0x1dd0 - base, &start));
	sw_elf_symbols_free(s);
}
END_TEST

START_TEST(test_elf_locate_takes_symbols_of_a_stripped_image_from_its_unstripped_copy)
{
	/* An offline capture keeps the program as it ran (stripped); the
	 * symbol path holds the unstripped build of it (same build-id), code
	 * and .symtab: where the image's function names are. */
	char image[1024], syms[1024];
	const char *root = getenv("SW_TESTDATA");
	snprintf(image, sizeof image, "%s/cores/riscv64-nounwind/crash", root ? root : "testdata");
	snprintf(syms, sizeof syms, "%s/cores/riscv64-nounwind/symbols", root ? root : "testdata");
	struct sw_module m = {
		.code_file = "crash",
		.code_id = "0620e021ece8777ea8c6059a9e12d908b6de66bf",
		.image_path = image,
	};
	const char *paths[] = { syms };
	struct sw_elf_locator l = { .paths = paths, .npaths = 1 };
	struct sw_elf *img = NULL, *dbg = NULL;
	char *img_path = NULL, *dbg_path = NULL;
	ck_assert(sw_elf_locate(&l, &m, &img, &dbg, &img_path, &dbg_path));
	ck_assert_ptr_nonnull(img);
	ck_assert(!sw_elf_info(img)->has_symtab);
	ck_assert_str_eq(img_path, image);
	ck_assert_ptr_nonnull(dbg);
	ck_assert(sw_elf_info(dbg)->has_symtab);
	ck_assert_ptr_nonnull(strstr(dbg_path, "/symbols/crash"));
	struct sw_elf_symbol sym;
	ck_assert(sw_elf_symbol_at(dbg, 0xed0, &sym));
	ck_assert_str_eq(sym.name, "alloca_frame");
	sw_elf_free(img);
	sw_elf_free(dbg);
	free(img_path);
	free(dbg_path);
	sw_elf_locator_free(&l);
}
END_TEST

/* ---- sections --------------------------------------------------------- */

START_TEST(test_elf_compressed_debug_frame_is_inflated)
{
	/* readelf -S: .debug_frame 0x53de bytes, flag C; after objcopy
	 * --decompress-debug-sections: 0x11ccc bytes, crc32 0x2ce721b9. */
	struct sw_elf *e = open_corpus("libunwindstack/zlib_compress_arm/libc.so.gz", 0);
	struct sw_elf_section s;
	ck_assert(sw_elf_section(e, ".debug_frame", &s));
	ck_assert_uint_eq(s.size, 0x11ccc);
	ck_assert_uint_eq(s.flags & SHF_COMPRESSED, 0);
	ck_assert(memcmp(s.data, "\x10\0\0\0\xff\xff\xff\xff\x04\0\x04\0\x01\x7c\x0e\x0c", 16) == 0);
	ck_assert_uint_eq(crc32(0, s.data, (uInt)s.size), 0x2ce721b9);
	const uint8_t *first = s.data;
	ck_assert(sw_elf_section(e, ".debug_frame", &s));
	ck_assert_ptr_eq(s.data, first);  /* inflated once, cached */
	sw_elf_free(e);

	e = open_corpus("libunwindstack/zlib_compress_arm/linker.gz", 0);
	ck_assert(sw_elf_section(e, ".debug_frame", &s));
	ck_assert_uint_eq(s.size, 0x38b64);
	ck_assert_uint_eq(crc32(0, s.data, (uInt)s.size), 0x598da739);
	assert_build_id(sw_elf_info(e), "0c387fd8aadc5f15fbf70993cdb0af8e");
	ck_assert_uint_eq(sw_elf_info(e)->exec_load_bias, 0x1000);
	ck_assert(!sw_elf_section(e, ".no_such_section", &s));
	ck_assert(!sw_elf_section(e, ".bss", &s));  /* SHT_NOBITS */
	sw_elf_free(e);
}
END_TEST

/* ---- symbols and MiniDebugInfo ---------------------------------------- */

START_TEST(test_elf_symbols_of_gnu_debugdata)
{
	/* The frames' functions are exported (.dynsym); MiniDebugInfo adds
	 * the rest (3733 functions), such as the local
	 * android::runtime_exit(int) at 0x6d5ad (Thumb), size 20. */
	struct sw_elf *e = open_corpus("libunwindstack/gnu_debugdata_arm/libandroid_runtime.so.gz", 0);
	struct sw_elf_symbol sym;
	ck_assert(sw_elf_symbol_at(e, 0x6dc49, &sym));
	ck_assert_str_eq(sym.name, "_ZN7android14AndroidRuntime15javaThreadShellEPv");
	ck_assert_uint_eq(sym.addr, 0x6dbf8);   /* st_value 0x6dbf9: Thumb bit cleared */
	ck_assert_uint_eq(sw_elf_symbol_offset(e, &sym, 0x6dc49), 80);  /* output.txt: +80 */
	ck_assert(!sw_elf_symbol_at(e, 0x6d5b0, &sym));

	struct sw_elf *dd = sw_elf_debugdata(e);
	ck_assert_ptr_nonnull(dd);
	ck_assert_ptr_eq(sw_elf_debugdata(e), dd);
	ck_assert_uint_eq(sw_elf_info(dd)->machine, EM_ARM);
	ck_assert(sw_elf_info(dd)->has_symtab);
	ck_assert(sw_elf_symbol_at(dd, 0x6d5b0, &sym));
	ck_assert_str_eq(sym.name, "_ZN7androidL12runtime_exitEi");
	ck_assert_uint_eq(sym.addr, 0x6d5ac);
	ck_assert_uint_eq(sym.size, 20);
	struct sw_arena a;
	sw_arena_init(&a);
	ck_assert_str_eq(sw_demangle(sym.name, &a), "android::runtime_exit(int)");
	sw_arena_free(&a);
	struct sw_elf_section s;
	ck_assert(sw_elf_section(dd, ".debug_frame", &s));
	ck_assert_ptr_null(sw_elf_debugdata(dd));
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_java_method_names_of_boot_oat)
{
	/* boot.oat's .gnu_debugdata (55 xz blocks) names Java methods as
	 * plain STT_FUNC symbols. */
	struct sw_elf *e = open_corpus("libunwindstack/common/boot.oat_c3e0e6503935c4103ec839d45f3a2183bd910e3c.gz", 0);
	struct sw_elf *dd = sw_elf_debugdata(e);
	ck_assert_ptr_nonnull(dd);
	struct sw_elf_symbol sym;
	ck_assert(sw_elf_symbol_at(dd, 0x1bf0bc, &sym));
	ck_assert_str_eq(sym.name, "java.lang.Thread.run");
	ck_assert_uint_eq(0x1bf0bc - sym.addr, 76);
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_demangles_cxx_and_rust)
{
	struct sw_arena a;
	sw_arena_init(&a);
	ck_assert_str_eq(sw_demangle("_ZN7android14AndroidRuntime15javaThreadShellEPv", &a),
	                 "android::AndroidRuntime::javaThreadShell(void*)");
	ck_assert_str_eq(sw_demangle("_ZNSt3__16vectorIiNS_9allocatorIiEEE9push_backEOi", &a),
	                 "std::__1::vector<int, std::__1::allocator<int> >::push_back(int&&)");
	/* Rust legacy: the trailing h<16 hex> element is dropped, as rustc's
	 * demangler prints it. */
	ck_assert_str_eq(sw_demangle("_ZN3foo3bar17h05af221e174051e9E", &a), "foo::bar");
	ck_assert_str_eq(sw_demangle("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$"
	                             "$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h2ba3c5d6a8a2b1c4E", &a),
	                 "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
	/* Rust v0. */
	ck_assert_str_eq(sw_demangle("_RNvNtCs1234_7mycrate3foo3bar", &a), "mycrate::foo::bar");
	/* Not mangled: as it is. */
	ck_assert_str_eq(sw_demangle("java.lang.Thread.run", &a), "java.lang.Thread.run");
	ck_assert_str_eq(sw_demangle("main", &a), "main");
	ck_assert_str_eq(sw_demangle("_GLOBAL__sub_I_main.cpp", &a), "_GLOBAL__sub_I_main.cpp");
	ck_assert_str_eq(sw_demangle("_Znot_valid", &a), "_Znot_valid");
	/* Android's linker: "__dl_" before a mangled name. */
	ck_assert_str_eq(sw_demangle("__dl__ZL24debuggerd_signal_handleriP7siginfoPv", &a),
	                 "__dl_debuggerd_signal_handler(int, siginfo*, void*)");
	ck_assert_str_eq(sw_demangle("__dl_strlen", &a), "__dl_strlen");
	sw_arena_free(&a);
}
END_TEST

START_TEST(test_elf_file_crc32_streams_the_file)
{
	char path[1024];
	corpus_path(path, sizeof path, "libunwindstack/cases.tsv");
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	uint32_t crc = 0;
	ck_assert(sw_elf_file_crc32(path, &crc));
	ck_assert_uint_eq(crc, crc32(0, buf, (uInt)n));
	ck_assert(!sw_elf_file_crc32("/nonexistent/file", &crc));
}
END_TEST

static const char *testdata_path(char *buf, size_t n, const char *rel)
{
	const char *root = getenv("SW_TESTDATA");
	snprintf(buf, n, "%s/%s", root ? root : "testdata", rel);
	return buf;
}

START_TEST(test_elf_big_endian_object_with_compressed_dwarf)
{
	/* powerpc-linux-gnu-gcc -Os -g -gz=zlib -c tiny.c: ELF32 MSB, ET_REL;
	 * readelf: exported (.text, 12 bytes) and main (.text.startup, 76)
	 * both at 0; .debug_info 0xcd bytes compressed, 0x173 inflated. */
	char path[1024];
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(testdata_path(path, sizeof path, "elf/tiny_ppc32_be.rel"),
	                                    0, &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	const struct sw_elf_info *in = sw_elf_info(e);
	ck_assert(in->big_endian);
	ck_assert_uint_eq(in->word_size, 4);
	ck_assert_uint_eq(in->machine, EM_PPC);
	ck_assert_uint_eq(in->type, ET_REL);
	ck_assert(in->has_debug_info);
	struct sw_elf_section s;
	ck_assert(sw_elf_section(e, ".debug_info", &s));
	ck_assert_uint_eq(s.size, 0x173);
	struct sw_elf_symbol sym;
	ck_assert(sw_elf_symbol_at(e, 0x4, &sym));
	ck_assert_str_eq(sym.name, "exported");
	ck_assert(sw_elf_symbol_at(e, 0x20, &sym));
	ck_assert_str_eq(sym.name, "main");
	ck_assert_uint_eq(sym.size, 76);
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_zstd_compressed_dwarf_is_read)
{
	/* tiny.c built with -g, then objcopy --compress-debug-sections=zstd
	 * (ELFCOMPRESS_ZSTD: .debug_info, _abbrev, _str, _aranges); readelf:
	 * .debug_info 276 bytes compressed, 383 decompressed; exported() at
	 * 0x6f9 on line 3, main() at 0x5f0 on line 4. */
	char path[1024];
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(
		testdata_path(path, sizeof path, "elf/tiny_zstd_debug_x86_64"), 0, &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	struct sw_elf_section s;
	ck_assert(sw_elf_section(e, ".debug_info", &s));
	ck_assert_uint_eq(s.size, 383);
	ck_assert(sw_elf_section(e, ".debug_str", &s));
	ck_assert_uint_eq(s.size, 188);
	ck_assert_ptr_nonnull(memmem(s.data, s.size, "exported", 9));
	struct sw_dwarf *d = sw_dwarf_open(e, "tiny_zstd_debug_x86_64", &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info info;
	ck_assert(sw_dwarf_lookup(d, 0x6fc, &a, &info));
	ck_assert_str_eq(info.function, "exported");
	ck_assert_uint_eq(info.line, 3);
	ck_assert(sw_dwarf_lookup(d, 0x5f0, &a, &info));
	ck_assert_str_eq(info.function, "main");
	sw_arena_free(&a);
	sw_dwarf_free(d);
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_libelf_reads_a_read_only_mapping)
{
	/* Not gzipped: the image is the PROT_READ mapping itself, and libelf
	 * must read it in place without writing. */
	char path[1024];
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(testdata_path(path, sizeof path, "elf/mediaserver_arm"),
	                                    0, &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	Elf *elf = sw_elf_libelf(e);
	ck_assert_ptr_nonnull(elf);
	ck_assert_ptr_eq(sw_elf_libelf(e), elf);
	size_t n = 0;
	ck_assert_int_eq(elf_getshdrnum(elf, &n), 0);
	ck_assert_uint_gt(n, 10);
	size_t bytes = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d)
			bytes += d->d_size;
	}
	ck_assert_uint_gt(bytes, 0);
	sw_elf_free(e);
}
END_TEST

/* ---- hostile inputs ----------------------------------------------------- */

/* A small ELF64 little-endian image built field by field: the header,
 * the sections' contents, .shstrtab, then the section header table. */
struct test_section {
	const char *name;
	uint32_t type;
	uint64_t flags;
	const void *data;
	size_t size;
	uint32_t link;
	uint64_t entsize;
	uint64_t addr;
};

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

enum { SHDR_OFF_FIELD = 40, SHNUM_FIELD = 60, SHSTRNDX_FIELD = 62 };

/* Returns the image's size; section i (1-based, after the null one) has
 * its header at shoff + 64 * i. */
static size_t build_elf64(uint8_t *out, size_t cap, const struct test_section *secs, size_t n,
                          uint64_t *shoff_out)
{
	memset(out, 0, cap);
	memcpy(out, "\x7f" "ELF\x02\x01\x01", 7);
	put(out + 16, ET_DYN, 2);
	put(out + 18, EM_X86_64, 2);
	put(out + 20, 1, 4);
	put(out + 52, 64, 2);   /* e_ehsize */
	put(out + 58, 64, 2);   /* e_shentsize */
	size_t off = 64;
	uint64_t offsets[16];
	char shstr[256] = "";
	size_t shstr_len = 1;
	uint32_t name_off[16];
	for (size_t i = 0; i < n; i++) {
		off = (off + 7) & ~(size_t)7;
		offsets[i] = off;
		/* A NOBITS section has a size and no bytes in the file. */
		if (secs[i].type != SHT_NOBITS) {
			memcpy(out + off, secs[i].data, secs[i].size);
			off += secs[i].size;
		}
		name_off[i] = (uint32_t)shstr_len;
		strcpy(shstr + shstr_len, secs[i].name);
		shstr_len += strlen(secs[i].name) + 1;
	}
	const char *own = ".shstrtab";
	uint32_t own_name = (uint32_t)shstr_len;
	strcpy(shstr + shstr_len, own);
	shstr_len += strlen(own) + 1;
	uint64_t shstr_off = off;
	memcpy(out + off, shstr, shstr_len);
	off += shstr_len;
	off = (off + 7) & ~(size_t)7;
	uint64_t shoff = off;
	off += 64;   /* null section */
	for (size_t i = 0; i < n; i++, off += 64) {
		uint8_t *h = out + off;
		put(h, name_off[i], 4);
		put(h + 4, secs[i].type, 4);
		put(h + 8, secs[i].flags, 8);
		put(h + 16, secs[i].addr, 8);
		put(h + 24, offsets[i], 8);
		put(h + 32, secs[i].size, 8);
		put(h + 40, secs[i].link, 4);
		put(h + 56, secs[i].entsize, 8);
	}
	put(out + off, own_name, 4);
	put(out + off + 4, SHT_STRTAB, 4);
	put(out + off + 24, shstr_off, 8);
	put(out + off + 32, shstr_len, 8);
	off += 64;
	ck_assert_uint_le(off, cap);
	put(out + SHDR_OFF_FIELD, shoff, 8);
	put(out + SHNUM_FIELD, n + 2, 2);
	put(out + SHSTRNDX_FIELD, n + 1, 2);
	if (shoff_out)
		*shoff_out = shoff;
	return off;
}

/* .symtab with f at 0x1000 (size 0x10), g at 0x2000 (size 0), and a
 * nested inner at 0x1004 (size 4), + its .strtab, and the .text (section
 * 3, NOBITS as in a debug file) that holds them. */
static size_t build_symbol_image(uint8_t *out, size_t cap, uint64_t *shoff)
{
	static uint8_t syms[5 * 24];
	static const char strtab[] = "\0f\0g\0inner\0undef";
	memset(syms, 0, sizeof syms);
	struct { uint32_t name; uint64_t value, size; uint8_t type; uint16_t shndx; } s[] = {
		{ 1, 0x1000, 0x10, STT_FUNC, 3 },
		{ 3, 0x2000, 0, STT_FUNC, 3 },
		{ 5, 0x1004, 4, STT_FUNC, 3 },
		{ 11, 0x3000, 0x10, STT_FUNC, SHN_UNDEF },
	};
	for (size_t i = 0; i < 4; i++) {
		uint8_t *p = syms + 24 * (i + 1);
		put(p, s[i].name, 4);
		p[4] = (uint8_t)(STB_GLOBAL << 4 | s[i].type);
		put(p + 6, s[i].shndx, 2);
		put(p + 8, s[i].value, 8);
		put(p + 16, s[i].size, 8);
	}
	struct test_section secs[] = {
		{ ".symtab", SHT_SYMTAB, 0, syms, sizeof syms, 2, 24, 0 },
		{ ".strtab", SHT_STRTAB, 0, strtab, sizeof strtab, 0, 0, 0 },
		{ ".text", SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, NULL, 0x3000, 0, 0, 0x1000 },
	};
	return build_elf64(out, cap, secs, 3, shoff);
}

START_TEST(test_elf_symbol_lookup_prefers_the_innermost_then_size_zero)
{
	static uint8_t img[4096];
	size_t n = build_symbol_image(img, sizeof img, NULL);
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_bytes(img, n, false, "syms", &err);
	ck_assert_ptr_nonnull(e);
	struct sw_elf_symbol sym;
	ck_assert(sw_elf_symbol_at(e, 0x1000, &sym));
	ck_assert_str_eq(sym.name, "f");
	ck_assert(sw_elf_symbol_at(e, 0x1005, &sym));
	ck_assert_str_eq(sym.name, "inner");
	ck_assert(sw_elf_symbol_at(e, 0x1009, &sym));
	ck_assert_str_eq(sym.name, "f");
	ck_assert(!sw_elf_symbol_at(e, 0x1010, &sym));
	ck_assert(!sw_elf_symbol_at(e, 0xfff, &sym));
	ck_assert(sw_elf_symbol_at(e, 0x2abc, &sym));
	ck_assert_str_eq(sym.name, "g");
	ck_assert_uint_eq(sym.size, 0);
	/* undef is SHN_UNDEF: not a definition. */
	ck_assert(sw_elf_symbol_at(e, 0x3004, &sym));
	ck_assert_str_eq(sym.name, "g");
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_symbol_count_larger_than_the_file_gives_no_symbols)
{
	static uint8_t img[4096];
	uint64_t shoff;
	size_t n = build_symbol_image(img, sizeof img, &shoff);
	/* .symtab's sh_size: 2^40 bytes, then just past the file. */
	uint64_t sizes[] = { 1ull << 40, n, UINT64_MAX };
	for (size_t i = 0; i < 3; i++) {
		put(img + shoff + 64 + 32, sizes[i], 8);
		struct sw_err err = { 0 };
		struct sw_elf *e = sw_elf_open_bytes(img, n, false, "bigsym", &err);
		ck_assert_ptr_nonnull(e);
		struct sw_elf_symbol sym;
		ck_assert(!sw_elf_symbol_at(e, 0x1000, &sym));
		sw_elf_free(e);
	}
}
END_TEST

/* ---- names as debuggers print them ------------------------------------ */

/* One symbol of a test .symtab. */
struct test_sym {
	const char *name;
	uint64_t value, size;
	uint8_t bind, type;
	uint16_t shndx;
};

/* An image with .text (1: AX at 0x1000, 0x100 bytes), .data (2: WA at
 * 0x2000), .symtab (3) and .strtab (4) holding syms, in that order. */
static size_t build_named_image(uint8_t *out, size_t cap, const struct test_sym *syms, size_t n)
{
	static uint8_t table[16 * 24];
	static char strtab[512];
	static const uint8_t text[0x100], data[0x40];
	ck_assert_uint_le(n + 1, 16);
	memset(table, 0, sizeof table);
	memset(strtab, 0, sizeof strtab);
	size_t str_len = 1;
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = table + 24 * (i + 1);
		put(p, str_len, 4);
		p[4] = (uint8_t)(syms[i].bind << 4 | syms[i].type);
		put(p + 6, syms[i].shndx, 2);
		put(p + 8, syms[i].value, 8);
		put(p + 16, syms[i].size, 8);
		strcpy(strtab + str_len, syms[i].name);
		str_len += strlen(syms[i].name) + 1;
	}
	struct test_section secs[] = {
		{ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text, sizeof text, 0, 0, 0x1000 },
		{ ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, data, sizeof data, 0, 0, 0x2000 },
		{ ".symtab", SHT_SYMTAB, 0, table, 24 * (n + 1), 4, 24, 0 },
		{ ".strtab", SHT_STRTAB, 0, strtab, str_len, 0, 0, 0 },
	};
	return build_elf64(out, cap, secs, 4, NULL);
}

static const char *name_at(const uint8_t *img, size_t n, uint64_t vaddr)
{
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_bytes(img, n, false, "names", &err);
	ck_assert_ptr_nonnull(e);
	static char name[64];
	struct sw_elf_symbol sym;
	if (sw_elf_symbol_at(e, vaddr, &sym))
		snprintf(name, sizeof name, "%s", sym.name);
	else
		strcpy(name, "(none)");
	sw_elf_free(e);
	return name;
}

START_TEST(test_elf_symbol_alias_prefers_global_over_weak_over_local)
{
	/* glibc's libc.so.6 lists gsignal (WEAK) before raise (GLOBAL) at one
	 * address: gdb and eu-stack print raise. A LOCAL alias listed first
	 * (__GI_raise in a .symtab) loses to both. */
	static uint8_t img[8192];
	const struct test_sym syms[] = {
		{ "__GI_raise", 0x1000, 0x31, STB_LOCAL, STT_FUNC, 1 },
		{ "gsignal", 0x1000, 0x31, STB_WEAK, STT_FUNC, 1 },
		{ "raise", 0x1000, 0x31, STB_GLOBAL, STT_FUNC, 1 },
		{ "local_only", 0x1040, 0x10, STB_LOCAL, STT_FUNC, 1 },
		{ "weak_b", 0x1060, 0x10, STB_WEAK, STT_FUNC, 1 },
		{ "local_a", 0x1060, 0x10, STB_LOCAL, STT_FUNC, 1 },
	};
	size_t n = build_named_image(img, sizeof img, syms, 6);
	ck_assert_str_eq(name_at(img, n, 0x1012), "raise");
	ck_assert_str_eq(name_at(img, n, 0x1044), "local_only");
	ck_assert_str_eq(name_at(img, n, 0x1061), "weak_b");
}
END_TEST

START_TEST(test_elf_symbol_alias_of_equal_binding_prefers_fewer_underscores)
{
	static uint8_t img[8192];
	const struct test_sym syms[] = {
		{ "__libc_foo", 0x1000, 0x20, STB_GLOBAL, STT_FUNC, 1 },
		{ "_foo", 0x1000, 0x20, STB_GLOBAL, STT_FUNC, 1 },
		{ "foo", 0x1000, 0x20, STB_GLOBAL, STT_FUNC, 1 },
		/* Equal in both: the first listed. */
		{ "first", 0x1040, 0x20, STB_GLOBAL, STT_FUNC, 1 },
		{ "second", 0x1040, 0x20, STB_GLOBAL, STT_FUNC, 1 },
		/* Binding first: a GLOBAL _IO_puts over a WEAK puts. */
		{ "puts", 0x1080, 0x20, STB_WEAK, STT_FUNC, 1 },
		{ "_IO_puts", 0x1080, 0x20, STB_GLOBAL, STT_FUNC, 1 },
	};
	size_t n = build_named_image(img, sizeof img, syms, 7);
	ck_assert_str_eq(name_at(img, n, 0x1004), "foo");
	ck_assert_str_eq(name_at(img, n, 0x1050), "first");
	ck_assert_str_eq(name_at(img, n, 0x1090), "_IO_puts");
}
END_TEST

START_TEST(test_elf_symbol_notype_global_in_code_names_up_to_the_next_symbol)
{
	/* musl's static x86_64 programs: exit (FUNC, 0x1b bytes) ends where
	 * _start (NOTYPE GLOBAL, size 0, in .text) begins; _start calls
	 * _start_c, whose return address lies in _start. */
	static uint8_t img[8192];
	const struct test_sym syms[] = {
		{ "exit", 0x1010, 0x1b, STB_GLOBAL, STT_FUNC, 1 },
		{ "_start", 0x102b, 0, STB_GLOBAL, STT_NOTYPE, 1 },
		{ "_start_c", 0x1050, 0x23, STB_GLOBAL, STT_FUNC, 1 },
		{ "_init", 0x10a0, 0, STB_WEAK, STT_NOTYPE, 1 },
		/* Not code: a NOTYPE global of a data section, a local label
		 * (ARM's mapping symbols are these), an absolute one. */
		{ "_edata", 0x2000, 0, STB_GLOBAL, STT_NOTYPE, 2 },
		{ "$x", 0x10c0, 0, STB_LOCAL, STT_NOTYPE, 1 },
		{ "abs_label", 0x10e0, 0, STB_GLOBAL, STT_NOTYPE, SHN_ABS },
	};
	size_t n = build_named_image(img, sizeof img, syms, 7);
	ck_assert_str_eq(name_at(img, n, 0x1041), "_start");
	ck_assert_str_eq(name_at(img, n, 0x102b), "_start");
	ck_assert_str_eq(name_at(img, n, 0x1020), "exit");
	ck_assert_str_eq(name_at(img, n, 0x1060), "_start_c");
	/* Up to the next symbol: past _start_c's end, _start_c is no name;
	 * _init (WEAK) is. */
	ck_assert_str_eq(name_at(img, n, 0x1080), "(none)");
	ck_assert_str_eq(name_at(img, n, 0x10a8), "_init");
	/* The local label is no name: _init's extent runs on past it. */
	ck_assert_str_eq(name_at(img, n, 0x10c4), "_init");
	ck_assert_str_eq(name_at(img, n, 0x10e4), "_init");
	ck_assert_str_eq(name_at(img, n, 0x2004), "(none)");
}
END_TEST

START_TEST(test_elf_truncated_header_is_an_error)
{
	static uint8_t img[4096];
	size_t n = build_symbol_image(img, sizeof img, NULL);
	ck_assert_uint_gt(n, 64);
	size_t cuts[] = { 63, 40, 16, 8, 4 };
	for (size_t i = 0; i < 5; i++) {
		struct sw_err err = { 0 };
		ck_assert_ptr_null(sw_elf_open_bytes(img, cuts[i], false, "cut.so", &err));
		ck_assert_int_eq(err.code, SW_ERR_CORRUPT);
		ck_assert_str_eq(err.msg, "cut.so: truncated ELF header");
	}
	struct sw_err err = { 0 };
	ck_assert_ptr_null(sw_elf_open_bytes(img, 3, false, "tiny", &err));
	ck_assert_str_eq(err.msg, "tiny: not an ELF file");
	struct sw_err err2 = { 0 };
	ck_assert_ptr_null(sw_elf_open_bytes(NULL, 0, false, "empty", &err2));
	ck_assert_str_eq(err2.msg, "empty: not an ELF file");
}
END_TEST

START_TEST(test_elf_section_table_past_the_end_gives_no_sections)
{
	static uint8_t img[4096];
	size_t n = build_symbol_image(img, sizeof img, NULL);
	put(img + SHDR_OFF_FIELD, n + 0x1000, 8);
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_bytes(img, n, false, "noshdr", &err);
	ck_assert_ptr_nonnull(e);
	struct sw_elf_section s;
	ck_assert(!sw_elf_section(e, ".symtab", &s));
	struct sw_elf_symbol sym;
	ck_assert(!sw_elf_symbol_at(e, 0x1000, &sym));
	ck_assert_uint_le(sw_elf_info(e)->image_size, n);
	sw_elf_free(e);

	/* The table's last header cut off: dropped whole. */
	build_symbol_image(img, sizeof img, NULL);
	e = sw_elf_open_bytes(img, n - 1, false, "cut", &err);
	ck_assert_ptr_nonnull(e);
	ck_assert(!sw_elf_section(e, ".symtab", &s));
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_shstrndx_out_of_range_or_extended)
{
	static uint8_t img[4096];
	uint64_t shoff;
	size_t n = build_symbol_image(img, sizeof img, &shoff);
	struct sw_elf_section s;
	struct sw_err err = { 0 };
	put(img + SHSTRNDX_FIELD, 0x7000, 2);
	struct sw_elf *e = sw_elf_open_bytes(img, n, false, "badstr", &err);
	ck_assert_ptr_nonnull(e);
	ck_assert(!sw_elf_section(e, ".symtab", &s));  /* no names */
	struct sw_elf_symbol sym;
	ck_assert(sw_elf_symbol_at(e, 0x1000, &sym));   /* found by type */
	sw_elf_free(e);

	/* gABI extended numbering: SHN_XINDEX, the index in sh_link of
	 * section 0; e_shnum 0, the count in its sh_size. */
	put(img + SHSTRNDX_FIELD, SHN_XINDEX, 2);
	put(img + shoff + 40, 4, 4);
	put(img + SHNUM_FIELD, 0, 2);
	put(img + shoff + 32, 5, 8);
	e = sw_elf_open_bytes(img, n, false, "xindex", &err);
	ck_assert_ptr_nonnull(e);
	ck_assert(sw_elf_section(e, ".symtab", &s));
	sw_elf_free(e);

	/* A count in sh_size far past the file: no sections. */
	put(img + shoff + 32, 1ull << 60, 8);
	e = sw_elf_open_bytes(img, n, false, "xhuge", &err);
	ck_assert_ptr_nonnull(e);
	ck_assert(!sw_elf_section(e, ".symtab", &s));
	sw_elf_free(e);
}
END_TEST

START_TEST(test_elf_debugdata_that_is_not_xz_gives_null)
{
	static uint8_t img[4096];
	static const char junk[] = "\xfd" "7zXZ but not really an xz stream at all";
	struct test_section secs[] = {
		{ ".gnu_debugdata", SHT_PROGBITS, 0, junk, sizeof junk, 0, 0, 0 },
	};
	size_t n = build_elf64(img, sizeof img, secs, 1, NULL);
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_bytes(img, n, false, "junk", &err);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(sw_elf_debugdata(e));
	ck_assert_ptr_null(sw_elf_debugdata(e));
	sw_elf_free(e);
}
END_TEST

/* SHF_COMPRESSED: an Elf64_Chdr then the zlib stream of `text`. */
static size_t compressed_section(uint8_t *out, size_t cap, const char *text, uint64_t claimed)
{
	memset(out, 0, 24);
	put(out, ELFCOMPRESS_ZLIB, 4);
	put(out + 8, claimed, 8);
	put(out + 16, 1, 8);
	uLongf len = cap - 24;
	ck_assert_int_eq(compress(out + 24, &len, (const Bytef *)text, strlen(text)), Z_OK);
	return 24 + len;
}

/* The same with ELFCOMPRESS_ZSTD: one zstd frame of `text`. */
static size_t zstd_section(uint8_t *out, size_t cap, const char *text, uint64_t claimed)
{
	memset(out, 0, 24);
	put(out, 2 /* ELFCOMPRESS_ZSTD */, 4);
	put(out + 8, claimed, 8);
	put(out + 16, 1, 8);
	size_t len = ZSTD_compress(out + 24, cap - 24, text, strlen(text), 3);
	ck_assert(!ZSTD_isError(len));
	return 24 + len;
}

START_TEST(test_elf_compressed_section_with_absurd_size_is_refused)
{
	static const char text[] = "the contents of a small debug section, inflated";
	static uint8_t sec[512], img[4096];
	uint64_t claims[] = { strlen(text), 1ull << 40, strlen(text) + 1, 3 };
	for (size_t i = 0; i < 4; i++) {
		bool zstd = _i == 1;
		size_t len = zstd ? zstd_section(sec, sizeof sec, text, claims[i])
		                  : compressed_section(sec, sizeof sec, text, claims[i]);
		struct test_section secs[] = {
			{ ".debug_frame", SHT_PROGBITS, SHF_COMPRESSED, sec, len, 0, 0, 0 },
		};
		size_t n = build_elf64(img, sizeof img, secs, 1, NULL);
		struct sw_err err = { 0 };
		struct sw_elf *e = sw_elf_open_bytes(img, n, false, "z", &err);
		ck_assert_ptr_nonnull(e);
		struct sw_elf_section s;
		bool ok = sw_elf_section(e, ".debug_frame", &s);
		ck_assert_int_eq(ok, i == 0);   /* only the true size inflates */
		if (ok) {
			ck_assert_uint_eq(s.size, strlen(text));
			ck_assert(memcmp(s.data, text, s.size) == 0);
		}
		sw_elf_free(e);
	}
}
END_TEST

/* ---- the cache of inflated sections ----------------------------------- */

/* An ELF file in dir holding a SHF_COMPRESSED .debug_str of `text` (big
 * enough for a cache file), its path in path. */
static void write_compressed_elf(const char *dir, const char *text, char *path, size_t n)
{
	static uint8_t sec[64 * 1024], img[80 * 1024];
	size_t len = compressed_section(sec, sizeof sec, text, strlen(text));
	struct test_section secs[] = {
		{ ".debug_str", SHT_PROGBITS, SHF_COMPRESSED, sec, len, 0, 0, 0 },
	};
	size_t size = build_elf64(img, sizeof img, secs, 1, NULL);
	snprintf(path, n, "%s/lib.so", dir);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(img, 1, size, f), size);
	fclose(f);
}

/* Opens path with the cache at cache_dir and reads .debug_str: whether it
 * came from the cache; its contents must be text either way. */
static bool debug_str_cached(const char *path, const char *cache_dir, const char *text)
{
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	ck_assert(sw_elf_set_section_cache(e, cache_dir));
	struct sw_elf_section s;
	ck_assert(sw_elf_section(e, ".debug_str", &s));
	ck_assert_uint_eq(s.size, strlen(text));
	ck_assert(memcmp(s.data, text, s.size) == 0);
	bool cached = s.cached;
	sw_elf_free(e);
	return cached;
}

/* The one cache file in cache_dir/elf-sections, its path in out. */
static void cache_file(const char *cache_dir, char *out, size_t n)
{
	char d[512];
	snprintf(d, sizeof d, "%s/elf-sections", cache_dir);
	DIR *dir = opendir(d);
	ck_assert_ptr_nonnull(dir);
	struct dirent *de;
	int found = 0;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.') {
			ck_assert_ptr_null(strstr(de->d_name, ".tmp."));
			snprintf(out, n, "%s/%s", d, de->d_name);
			found++;
		}
	closedir(dir);
	ck_assert_int_eq(found, 1);
}

START_TEST(test_elf_inflated_section_is_cached_checked_and_rebuilt)
{
	char dir[] = "/tmp/sw_seccache_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char cache[256], path[256], file[1024];
	/* Two levels that do not exist yet: made as $HOME/.cache/stackwalk
	 * is on a fresh machine. */
	snprintf(cache, sizeof cache, "%s/deep/cache", dir);
	static char text[100 * 1024];
	size_t at = 0;
	for (int i = 0; at + 32 < sizeof text; i++)
		at += (size_t)snprintf(text + at, sizeof text - at, "debug string number %d\n", i);
	write_compressed_elf(dir, text, path, sizeof path);

	/* Inflated and written, then read from the cache. */
	ck_assert(!debug_str_cached(path, cache, text));
	ck_assert(debug_str_cached(path, cache, text));
	cache_file(cache, file, sizeof file);

	/* A flipped byte of the inflated copy: noticed (its CRC), inflated
	 * again and rewritten; then read from the cache again. */
	FILE *f = fopen(file, "r+b");
	ck_assert_ptr_nonnull(f);
	fseek(f, 4096 + 5000, SEEK_SET);
	int c = fgetc(f);
	fseek(f, 4096 + 5000, SEEK_SET);
	fputc(c ^ 0x20, f);
	fclose(f);
	ck_assert(!debug_str_cached(path, cache, text));
	ck_assert(debug_str_cached(path, cache, text));

	/* Cut short: not used. */
	ck_assert_int_eq(truncate(file, 4096 + 100), 0);
	ck_assert(!debug_str_cached(path, cache, text));
	ck_assert(debug_str_cached(path, cache, text));

	/* The ELF file changed (another mtime): its copy is stale. */
	struct timespec times[2] = { { 1, 0 }, { 1, 0 } };
	ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
	ck_assert(!debug_str_cached(path, cache, text));
	ck_assert(debug_str_cached(path, cache, text));

	/* Images not opened by path take no cache. */
	static uint8_t img[16];
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_bytes(img, sizeof img, false, "bytes", &err);
	ck_assert(e == NULL || !sw_elf_set_section_cache(e, cache));
	sw_elf_free(e);

	cache_file(cache, file, sizeof file);
	unlink(file);
	char sub[512];
	snprintf(sub, sizeof sub, "%s/elf-sections", cache);
	rmdir(sub);
	rmdir(cache);
	snprintf(sub, sizeof sub, "%s/deep", dir);
	rmdir(sub);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- libunwindstack's frames: the acceptance test --------------------- */

/* One case's links.txt: "TARGET LINKNAME" lines. */
struct links {
	char target[32][256];
	char name[32][256];
	size_t n;
};

static void read_links(const char *dir, struct links *l)
{
	char path[1200], line[600];
	l->n = 0;
	snprintf(path, sizeof path, "%s/links.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (l->n < 32 && fgets(line, sizeof line, f))
		if (sscanf(line, "%255s %255s", l->target[l->n], l->name[l->n]) == 2)
			l->n++;
	fclose(f);
}

/* The stored file for map name `map` of the case: through links.txt, with
 * ".gz" appended when that is how it is stored. */
static bool map_file(const char *dir, const struct links *l, const char *map, char *out, size_t n)
{
	const char *rel = map;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->name[i], map) == 0)
			rel = l->target[i];
	if ((size_t)snprintf(out, n, "%s/%s.gz", dir, rel) < n && access(out, R_OK) == 0)
		return true;
	return (size_t)snprintf(out, n, "%s/%s", dir, rel) < n && access(out, R_OK) == 0;
}

static void replace_angle_spaces(char *s)
{
	char *p;
	while ((p = strstr(s, "> >")))
		memmove(p + 1, p + 2, strlen(p + 2) + 1);
}

/* An output.txt line: `  #NN pc REL_PC  MAP[ (offset 0x..)][ (FUNC[+OFF])]`. */
struct frame_line {
	uint64_t rel_pc;
	char map[512];
	uint64_t offset;
	bool has_func;
	char func[4096];
	uint64_t func_off;
};

static bool parse_frame_line(const char *line, struct frame_line *f)
{
	memset(f, 0, sizeof *f);
	const char *p = strstr(line, " pc ");
	if (!p)
		return false;
	char *end;
	f->rel_pc = strtoull(p + 4, &end, 16);
	if (strncmp(end, "  ", 2) != 0)
		return false;
	p = end + 2;
	size_t mlen = strcspn(p, " \n");
	snprintf(f->map, sizeof f->map, "%.*s", (int)mlen, p);
	p += mlen;
	if (strncmp(p, " (offset 0x", 11) == 0) {
		f->offset = strtoull(p + 11, &end, 16);
		p = end + 1;
	}
	if (strncmp(p, " (", 2) != 0)
		return true;
	snprintf(f->func, sizeof f->func, "%s", p + 2);
	f->func[strcspn(f->func, "\n")] = 0;
	size_t len = strlen(f->func);
	if (len == 0 || f->func[len - 1] != ')')
		return false;
	f->func[--len] = 0;
	char *plus = strrchr(f->func, '+');
	if (plus && plus[1] && strspn(plus + 1, "0123456789") == strlen(plus + 1)) {
		f->func_off = strtoull(plus + 1, NULL, 10);
		*plus = 0;
	}
	f->has_func = true;
	return true;
}

/* The images a case opened, by file and offset: the profiler cases name
 * the same large library in many frames. */
struct open_images {
	char path[16][1200];
	uint64_t offset[16];
	struct sw_elf *e[16];
	size_t n;
};

static struct sw_elf *open_cached(struct open_images *c, const char *path, uint64_t offset)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->offset[i] == offset && strcmp(c->path[i], path) == 0)
			return c->e[i];
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, offset, &err);
	ck_assert_msg(e != NULL, "%s: %s", path, err.msg);
	ck_assert_uint_lt(c->n, 16);
	snprintf(c->path[c->n], sizeof c->path[c->n], "%s", path);
	c->offset[c->n] = offset;
	c->e[c->n++] = e;
	return e;
}

/* Frames where stackwalk's name differs from libunwindstack's on
 * purpose. Identical code folding put four 8-byte functions at 0x459f8 of
 * load_bias_different_section_bias_arm64's `test`: three LOCAL
 * (std::__ndk1::__throw_bad_cast, listed first, which libunwindstack
 * prints; testing::internal::posix::Abort; __throw_bad_function_call) and
 * the GLOBAL Linker_Test_Test::TestBody. Among names at one address
 * stackwalk takes the GLOBAL one, as elfutils does (eu-addr2line -S:
 * _ZN16Linker_Test_Test8TestBodyEv+0x4); gdb 13 takes the last in
 * strcmp order of the mangled names (info symbol:
 * std::__ndk1::__throw_bad_function_call() + 4). */
static const struct named_difference {
	const char *case_name;
	uint64_t rel_pc;
	const char *ours;
} NAMED_DIFFERENCES[] = {
	{ "load_bias_different_section_bias_arm64", 0x459fc, "Linker_Test_Test::TestBody()" },
};
enum { N_NAMED_DIFFERENCES = sizeof NAMED_DIFFERENCES / sizeof NAMED_DIFFERENCES[0] };

static bool named_difference(const char *name, uint64_t rel_pc, const char *got, bool *seen)
{
	for (size_t i = 0; i < N_NAMED_DIFFERENCES; i++)
		if (strcmp(NAMED_DIFFERENCES[i].case_name, name) == 0 &&
		    NAMED_DIFFERENCES[i].rel_pc == rel_pc && strcmp(NAMED_DIFFERENCES[i].ours, got) == 0)
			return seen[i] = true;
	return false;
}

/* Checks every named frame of one case; returns how many it checked and
 * appends mismatches to report (a NAMED_DIFFERENCES entry is marked
 * seen instead). */
static size_t check_case(const char *root, const char *name, char *report, size_t cap,
                         size_t *mismatches, bool *seen)
{
	char dir[1024], path[1200], line[8192];
	snprintf(dir, sizeof dir, "%s/%s", root, name);
	struct links links;
	read_links(dir, &links);
	snprintf(path, sizeof path, "%s/output.txt", dir);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	struct open_images cache = { .n = 0 };
	struct sw_arena a;
	sw_arena_init(&a);
	size_t checked = 0;
	static struct frame_line fl;
	while (fgets(line, sizeof line, f)) {
		ck_assert_msg(parse_frame_line(line, &fl), "%s: %s", path, line);
		if (!fl.has_func)
			continue;
		char file[512];
		snprintf(file, sizeof file, "%s", fl.map);
		char *bang = strchr(file, '!');
		if (bang)
			*bang = 0;
		char elf_path[1200];
		if (file[0] == '/' || file[0] == '<' || file[0] == '[' ||
		    !map_file(dir, &links, file, elf_path, sizeof elf_path))
			continue;   /* the map has no file */
		struct sw_elf *e = open_cached(&cache, elf_path, fl.offset);
		struct sw_elf_symbol sym;
		struct sw_elf *owner = e;
		bool found = sw_elf_symbol_at(e, fl.rel_pc, &sym);
		if (!found && (owner = sw_elf_debugdata(e)))
			found = sw_elf_symbol_at(owner, fl.rel_pc, &sym);
		char got[4096] = "(no symbol)";
		uint64_t got_off = 0;
		if (found) {
			snprintf(got, sizeof got, "%s", sw_demangle(sym.name, &a));
			got_off = sw_elf_symbol_offset(owner, &sym, fl.rel_pc);
		}
		replace_angle_spaces(got);
		replace_angle_spaces(fl.func);
		checked++;
		if ((strcmp(got, fl.func) != 0 || got_off != fl.func_off) &&
		    !(got_off == fl.func_off && named_difference(name, fl.rel_pc, got, seen))) {
			(*mismatches)++;
			size_t used = strlen(report);
			snprintf(report + used, cap - used, "%s: pc %" PRIx64 " %s: want %s+%" PRIu64
			         ", got %s+%" PRIu64 "\n", name, fl.rel_pc, fl.map, fl.func,
			         fl.func_off, got, got_off);
		}
	}
	fclose(f);
	for (size_t i = 0; i < cache.n; i++)
		sw_elf_free(cache.e[i]);
	sw_arena_free(&a);
	return checked;
}

START_TEST(test_elf_names_every_frame_libunwindstack_names)
{
	char root[1024], path[1200], line[512];
	corpus_path(root, sizeof root, "libunwindstack");
	snprintf(path, sizeof path, "%s/cases.tsv", root);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	static char report[1 << 16];
	report[0] = 0;
	size_t cases = 0, checked = 0, mismatches = 0;
	bool seen[N_NAMED_DIFFERENCES] = { false };
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));  /* header */
	while (fgets(line, sizeof line, f)) {
		char name[256];
		if (sscanf(line, "%255s", name) != 1)
			continue;
		checked += check_case(root, name, report, sizeof report, &mismatches, seen);
		cases++;
	}
	fclose(f);
	printf("elf_image: %zu cases, %zu named frames checked, %zu mismatches\n%s", cases,
	       checked, mismatches, report);
	fflush(stdout);
	ck_assert_uint_eq(cases, 30);
	ck_assert_uint_eq(mismatches, 0);
	ck_assert_uint_ge(checked, 200);
	/* The list stays true: every named difference still happens. */
	for (size_t i = 0; i < N_NAMED_DIFFERENCES; i++)
		ck_assert_msg(seen[i], "named difference %s pc %" PRIx64 " no longer happens",
		              NAMED_DIFFERENCES[i].case_name, NAMED_DIFFERENCES[i].rel_pc);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("elf_image");
	TCase *info = tcase_create("info");
	tcase_add_test(info, test_elf_info_of_arm_library_with_load_bias);
	tcase_add_test(info, test_elf_sym_base_is_the_first_segments_file_offset);
	tcase_add_test(info, test_elf_code_section_start_from_the_section_headers);
	tcase_add_test(info, test_elf_info_of_arm64_libc_with_debuglink);
	tcase_add_test(info, test_elf_info_of_x86_vdso_loaded_high);
	tcase_add_test(info, test_elf_info_exec_bias_differs_from_file_vaddr);
	tcase_add_test(info, test_elf_info_of_riscv_libc);
	tcase_add_test(info, test_elf_soname_past_the_section_headers_of_an_embedded_library);
	tcase_add_test(info, test_elf_open_names_the_file_in_errors);
	tcase_add_test(info, test_elf_read_returns_code_bytes_only);
	tcase_add_test(info, test_elf_has_function_trusts_only_unwind_tables_that_cover_the_code);
	tcase_add_test(info, test_elf_locate_takes_symbols_of_a_stripped_image_from_its_unstripped_copy);
	suite_add_tcase(s, info);

	TCase *content = tcase_create("content");
	tcase_add_test(content, test_elf_compressed_debug_frame_is_inflated);
	tcase_add_test(content, test_elf_symbols_of_gnu_debugdata);
	tcase_add_test(content, test_elf_java_method_names_of_boot_oat);
	tcase_add_test(content, test_elf_demangles_cxx_and_rust);
	tcase_add_test(content, test_elf_file_crc32_streams_the_file);
	tcase_add_test(content, test_elf_big_endian_object_with_compressed_dwarf);
	tcase_add_test(content, test_elf_zstd_compressed_dwarf_is_read);
	tcase_add_test(content, test_elf_inflated_section_is_cached_checked_and_rebuilt);
	tcase_add_test(content, test_elf_libelf_reads_a_read_only_mapping);
	suite_add_tcase(s, content);

	TCase *hostile = tcase_create("hostile");
	tcase_add_test(hostile, test_elf_symbol_lookup_prefers_the_innermost_then_size_zero);
	tcase_add_test(hostile, test_elf_symbol_count_larger_than_the_file_gives_no_symbols);
	tcase_add_test(hostile, test_elf_symbol_alias_prefers_global_over_weak_over_local);
	tcase_add_test(hostile, test_elf_symbol_alias_of_equal_binding_prefers_fewer_underscores);
	tcase_add_test(hostile, test_elf_symbol_notype_global_in_code_names_up_to_the_next_symbol);
	tcase_add_test(hostile, test_elf_truncated_header_is_an_error);
	tcase_add_test(hostile, test_elf_section_table_past_the_end_gives_no_sections);
	tcase_add_test(hostile, test_elf_shstrndx_out_of_range_or_extended);
	tcase_add_test(hostile, test_elf_debugdata_that_is_not_xz_gives_null);
	tcase_add_loop_test(hostile, test_elf_compressed_section_with_absurd_size_is_refused, 0, 2);
	suite_add_tcase(s, hostile);

	TCase *acceptance = tcase_create("libunwindstack");
	tcase_set_timeout(acceptance, 240);
	tcase_add_test(acceptance, test_elf_names_every_frame_libunwindstack_names);
	suite_add_tcase(s, acceptance);
	return s;
}
