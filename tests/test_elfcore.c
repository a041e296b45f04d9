/* The ELF core reader: the real cores of ../shared/corpus/elf-cores read
 * with exact values (the registers as eu-readelf --notes decodes them in
 * reference/NAME.notes.txt; where it does not decode them, the MIPS and
 * NetBSD cores, the values each struct's layout gives, which the walk to
 * bar/foo/_start confirms), and synthetic cores built here for what real
 * cores rarely show: segments cut short, notes running past their
 * segment, absurd counts, a link_map chain that loops, a core without
 * NT_FILE whose executable is found in the search paths, a big-endian
 * 32-bit core. */
#include <check.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/registry.h"
#include "formats/elfcore.h"
#include "formats/open.h"
#include "open_answer.h"
#include "testutil.h"

/* ---- Helpers --------------------------------------------------------- */

static enum sw_err_code open_corpus(const char *rel, const struct sw_open_options *o,
                                    struct sw_snapshot *s, struct sw_err *err)
{
	char path[512];
	corpus_path(path, sizeof path, rel);
	sw_err_clear(err);
	return sw_snapshot_open_with(path, o, s, err);
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

static bool ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);
	return s && a >= b && strcmp(s + a - b, tail) == 0;
}

/* An elfutils core (bzip2-compressed in the corpus) decompressed into a
 * temp file; false (the test then skips its checks) without bzip2. */
static bool unpack_elfutils(const char *name, char *out, size_t n)
{
	char src[512], cmd[1200];
	corpus_path(src, sizeof src, "elf-cores/elfutils/");
	if (system("command -v bzip2 >/dev/null 2>&1") != 0) {
		fprintf(stderr, "note: no bzip2 here: %s not checked\n", name);
		return false;
	}
	snprintf(out, n, "/tmp/sw_ec_%d_%s", (int)getpid(), name);
	snprintf(cmd, sizeof cmd, "bzip2 -dc '%s%s.bz2'", src, name);
	FILE *in = popen(cmd, "r");
	FILE *o = fopen(out, "wb");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(o);
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, got, o), got);
	fclose(o);
	ck_assert_int_eq(pclose(in), 0);
	return true;
}

/* ---- Real cores ------------------------------------------------------ */

/* lldb's mipsel o32 core: one thread, SIGSEGV / SEGV_MAPERR at 0 (MIPS's
 * siginfo has si_code second), NT_FILE written with 64-bit words by a
 * 64-bit kernel. lldb counts 5 memory regions: its PT_LOADs, one of which
 * has no file bytes (absent here, so 4 regions). */
START_TEST(test_lldb_mipsel_o32)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_corpus("elf-cores/lldb/elf-core/linux-mipsel-gnuabio32.core", NULL,
	                             &s, &err), SW_OK);
	ck_assert_str_eq(s.format, "elfcore");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_MIPS);
	ck_assert(!s.sys.big_endian);
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.threads[0].id, 3532);
	ck_assert(s.has_pid);
	ck_assert_uint_eq(s.pid, 3532);
	ck_assert_str_eq(s.threads[0].name, "linux-mipsel-gn");
	ck_assert_uint_eq(reg(&s, 0, "pc"), 0x400130);
	ck_assert_uint_eq(reg(&s, 0, "sp"), 0x7fdd4e60);
	ck_assert_uint_eq(reg(&s, 0, "ra"), 0x40017c);
	ck_assert(s.crash.present);
	ck_assert_uint_eq(s.crash.thread_id, 3532);
	ck_assert_uint_eq(s.crash.code, 11);
	ck_assert_uint_eq(s.crash.flags, 1);
	ck_assert_uint_eq(s.crash.address, 0);
	ck_assert_uint_eq(s.nmem, 4);
	ck_assert_uint_eq(s.nmaps, 1);
	ck_assert_uint_ge(s.nmodules, 1);
	ck_assert(ends_with(s.modules[0].code_file, "/linux-mipsel-gnuabio32.out"));
	ck_assert_uint_eq(s.modules[0].base, 0x400000);
	ck_assert_uint_eq(s.modules[0].size, 0x1000);
	ck_assert_str_eq(s.modules[0].code_id, "c217e157e68fcb23e15e80ee5982c99e8c2ea34d");
	ck_assert_int_eq(s.main_module, 0);
	/* The vDSO, read from the core. */
	ck_assert_uint_eq(s.nmodules, 2);
	ck_assert_str_eq(s.modules[1].code_file, "[vdso]");
	ck_assert_uint_eq(s.modules[1].image_addr, 0x77639000);
	sw_snapshot_free(&s);
}
END_TEST

/* n32: a 32-bit class with the 440-byte NT_PRSTATUS of 64-bit registers
 * (gdb crashes on it). */
START_TEST(test_lldb_mips64el_n32)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_corpus("elf-cores/lldb/elf-core/linux-mips64el-gnuabin32.core", NULL,
	                             &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_MIPS);
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.threads[0].id, 3670);
	ck_assert_uint_eq(reg(&s, 0, "pc"), 0x10000130);
	ck_assert_uint_eq(reg(&s, 0, "sp"), 0x7f8cf670);
	ck_assert_uint_eq(reg(&s, 0, "ra"), 0x1000017c);
	ck_assert_uint_eq(s.crash.code, 11);
	ck_assert_uint_eq(s.nmem, 4);
	ck_assert(ends_with(s.modules[0].code_file, "/linux-mips64el-gnuabin32.out"));
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_lldb_mips64el_n64)
{
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_corpus("elf-cores/lldb/elf-core/linux-mips64el-gnuabi64.core", NULL,
	                             &s, &err), SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_MIPS64);
	ck_assert_uint_eq(s.threads[0].id, 25619);
	ck_assert_uint_eq(reg(&s, 0, "pc"), 0x120000170);
	ck_assert_uint_eq(reg(&s, 0, "sp"), 0xffffc02110);
	ck_assert_uint_eq(reg(&s, 0, "ra"), 0x1200001bc);
	ck_assert_uint_eq(s.nmem, 4);
	ck_assert_uint_eq(s.modules[0].base, 0x120000000);
	sw_snapshot_free(&s);
}
END_TEST

/* ppc64le: NT_SIGINFO but no NT_FILE, and no page of the executable in
 * the core: the executable is the search path's file that fits the
 * auxiliary vector (a static program: the only module but the vDSO). */
START_TEST(test_lldb_ppc64le_without_nt_file)
{
	struct sw_snapshot s;
	struct sw_err err;
	char exe[512];
	corpus_path(exe, sizeof exe, "elf-cores/lldb/elf-core/linux-ppc64le.out");
	const char *paths[] = { exe };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 1 };
	ck_assert_int_eq(open_corpus("elf-cores/lldb/elf-core/linux-ppc64le.core", NULL, &s, &err),
	                 SW_OK);
	ck_assert_uint_eq(s.nmodules, 1); /* the vDSO only */
	ck_assert_int_eq(s.main_module, -1);
	ck_assert(has_problem(&s, "search paths"));
	sw_snapshot_free(&s);
	ck_assert_int_eq(open_corpus("elf-cores/lldb/elf-core/linux-ppc64le.core", &o, &s, &err),
	                 SW_OK);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_PPC64);
	ck_assert_uint_eq(s.threads[0].id, 28147);
	ck_assert_str_eq(s.threads[0].name, "linux-ppc64le.ou");
	ck_assert_uint_eq(reg(&s, 0, "srr0"), 0x10000130);
	ck_assert_uint_eq(reg(&s, 0, "r1"), 70368744173648ull);
	ck_assert_uint_eq(reg(&s, 0, "lr"), 0x10000194);
	ck_assert_uint_eq(reg(&s, 0, "ctr"), 0x10000110);
	ck_assert_uint_eq(s.nmem, 2);
	ck_assert_uint_eq(s.nmaps, 0);
	ck_assert_uint_ge(s.nmodules, 1);
	ck_assert(ends_with(s.modules[0].code_file, "/linux-ppc64le.out"));
	ck_assert_str_eq(s.modules[0].image_path, exe);
	ck_assert_uint_eq(s.modules[0].base, 0x10000000);
	ck_assert_int_eq(s.main_module, 0);
	sw_snapshot_free(&s);
}
END_TEST

/* The same core with a /proc/PID/maps file (--maps): the modules are its
 * mapped files; the executable, absent from the core, is the search
 * path's file that fits its map. */
START_TEST(test_maps_file_gives_the_modules)
{
	char exe[512], maps[64];
	corpus_path(exe, sizeof exe, "elf-cores/lldb/elf-core/linux-ppc64le.out");
	snprintf(maps, sizeof maps, "/tmp/sw_ec_maps_XXXXXX");
	int fd = mkstemp(maps);
	ck_assert_int_ge(fd, 0);
	const char *text = "10000000-10010000 r-xp 00000000 08:01 12 /x/linux-ppc64le.out\n"
	                   "10010000-10020000 rw-p 00000000 08:01 12 /x/linux-ppc64le.out\n"
	                   "3fffb7fe0000-3fffb7ff0000 r-xp 00000000 00:00 0 [vdso]\n";
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	const char *paths[] = { exe };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 1, .maps_file = maps };
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_corpus("elf-cores/lldb/elf-core/linux-ppc64le.core", &o, &s, &err),
	                 SW_OK);
	unlink(maps);
	ck_assert_uint_eq(s.nmaps, 3);
	ck_assert_uint_eq(s.nmodules, 2);
	ck_assert_str_eq(s.modules[0].code_file, "/x/linux-ppc64le.out");
	ck_assert_uint_eq(s.modules[0].base, 0x10000000);
	ck_assert_uint_eq(s.modules[0].size, 0x20000);
	ck_assert_str_eq(s.modules[0].image_path, exe);
	ck_assert_ptr_nonnull(s.modules[0].code_id);
	ck_assert_int_eq(s.main_module, 0);
	ck_assert_str_eq(s.modules[1].code_file, "[vdso]");
	sw_snapshot_free(&s);
}
END_TEST

START_TEST(test_lldb_s390x_threads_without_context)
{
	struct sw_snapshot s;
	struct sw_err err;
	enum sw_err_code rc =
		open_corpus("elf-cores/lldb/elf-core/linux-s390x.core", NULL, &s, &err);
	ck_assert(rc == SW_OK || rc == SW_ERR_CORRUPT);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_UNKNOWN);
	ck_assert_str_eq(s.sys.cpu_name, "s390x");
	ck_assert(s.sys.big_endian);
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.threads[0].id, 1045);
	ck_assert_uint_eq(s.threads[0].ctx.valid, 0);
	ck_assert(has_problem(&s, "CPU not supported"));
	ck_assert_uint_eq(s.crash.code, 11);
	ck_assert_uint_eq(s.nmem, 2);
	sw_snapshot_free(&s);
}
END_TEST

/* NetBSD: the signal on LWP 2 (cpi_siglwp), LWP 1 listed too. */
START_TEST(test_netbsd_aarch64_two_lwps)
{
	struct sw_snapshot s;
	struct sw_err err;
	char exe[512];
	corpus_path(exe, sizeof exe, "elf-cores/lldb/netbsd-core/2lwp_t2_SIGSEGV.aarch64");
	const char *paths[] = { exe };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 1 };
	ck_assert_int_eq(open_corpus("elf-cores/lldb/netbsd-core/2lwp_t2_SIGSEGV.aarch64.core", &o,
	                             &s, &err), SW_OK);
	ck_assert_str_eq(s.sys.os_name, "NetBSD");
	ck_assert_int_eq(s.sys.cpu, SW_CPU_ARM64);
	ck_assert_uint_eq(s.pid, 14142);
	ck_assert_uint_eq(s.nthreads, 2);
	ck_assert_uint_eq(s.threads[0].id, 2);
	ck_assert_uint_eq(s.threads[1].id, 1);
	ck_assert_uint_eq(reg(&s, 0, "pc"), 0x2001009b0);
	ck_assert_uint_eq(reg(&s, 0, "sp"), 0xfbeecfbff100);
	ck_assert_uint_eq(reg(&s, 0, "x29"), 0xfbeecfbff120);
	ck_assert_uint_eq(reg(&s, 0, "x30"), 0x2001009e4);
	ck_assert_uint_eq(reg(&s, 1, "pc"), 0xfbeed02487f8);
	ck_assert(s.crash.present);
	ck_assert_uint_eq(s.crash.thread_id, 2);
	ck_assert_uint_eq(s.crash.code, 11);
	ck_assert_uint_eq(s.nmem, 18);
	/* Modules from the link_map chain: the executable, libc, ld.elf_so. */
	ck_assert_uint_ge(s.nmodules, 3);
	ck_assert_uint_eq(s.modules[0].base, 0x200100000);
	ck_assert_ptr_eq(s.modules[0].image_path, exe);
	bool libc = false;
	for (uint32_t i = 0; i < s.nmodules; i++)
		libc |= ends_with(s.modules[i].code_file, "/libc.so.12");
	ck_assert(libc);
	sw_snapshot_free(&s);
}
END_TEST

/* elfutils' aarch64 core (bzip2 in the corpus): two threads, both with
 * pr_cursig 6; the first is the crashing one. */
START_TEST(test_elfutils_aarch64)
{
	char path[256];
	if (!unpack_elfutils("backtrace.aarch64.core", path, sizeof path))
		return;
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snapshot_open(path, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nthreads, 2);
	ck_assert_uint_eq(s.threads[0].id, 24044);
	ck_assert_uint_eq(s.threads[1].id, 24043);
	ck_assert_uint_eq(reg(&s, 0, "pc"), 0x40c6d0);
	ck_assert_uint_eq(reg(&s, 0, "sp"), 0x7f818df760);
	ck_assert_uint_eq(reg(&s, 0, "x29"), 547634411376ull);
	ck_assert_uint_eq(reg(&s, 0, "x30"), 4202208);
	ck_assert_uint_eq(reg(&s, 1, "pc"), 0x4048bc);
	ck_assert_uint_eq(reg(&s, 1, "sp"), 0x7fcddc43e0);
	ck_assert_uint_eq(s.crash.thread_id, 24044);
	ck_assert_uint_eq(s.crash.code, 6);
	ck_assert_uint_eq(s.pid, 24043);
	ck_assert(ends_with(s.modules[0].code_file, "/backtrace-child"));
	sw_snapshot_free(&s);
	unlink(path);
}
END_TEST

/* elfutils' ppc core: big-endian, 32-bit. */
START_TEST(test_elfutils_ppc_big_endian)
{
	char path[256];
	if (!unpack_elfutils("backtrace.ppc.core", path, sizeof path))
		return;
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snapshot_open(path, &s, &err), SW_OK);
	ck_assert(s.sys.big_endian);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_PPC);
	ck_assert_uint_eq(s.nthreads, 2);
	ck_assert_uint_eq(s.threads[0].id, 17198);
	ck_assert_uint_eq(reg(&s, 0, "srr0"), 0x1000e1f0);
	ck_assert_uint_eq(reg(&s, 0, "r1"), 0xf77feb80);
	ck_assert_uint_eq(reg(&s, 0, "lr"), 0x10001f78);
	ck_assert_uint_eq(s.nmaps, 2);
	ck_assert_uint_eq(s.modules[0].base, 0x10000000);
	ck_assert_uint_eq(s.modules[0].size, 0xe0000);
	sw_snapshot_free(&s);
	unlink(path);
}
END_TEST

/* ---- Synthetic cores ------------------------------------------------- */

/* A growing byte buffer written in one byte order. */
struct buf {
	uint8_t *p;
	size_t len, cap;
	bool be;
};

static void put(struct buf *b, size_t at, uint64_t v, unsigned n)
{
	if (at + n > b->cap) {
		size_t cap = (at + n) * 2 + 4096;
		b->p = realloc(b->p, cap);
		ck_assert_ptr_nonnull(b->p);
		memset(b->p + b->cap, 0, cap - b->cap);
		b->cap = cap;
	}
	for (unsigned i = 0; i < n; i++)
		b->p[at + i] = (uint8_t)(v >> (8 * (b->be ? n - 1 - i : i)));
	if (at + n > b->len)
		b->len = at + n;
}

static void put_bytes(struct buf *b, size_t at, const void *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(b, at + i, ((const uint8_t *)d)[i], 1);
}

/* A note record appended to b (4-byte padding). */
static void note(struct buf *b, const char *name, uint32_t type, const struct buf *desc)
{
	size_t at = b->len, nl = strlen(name) + 1;
	put(b, at, nl, 4);
	put(b, at + 4, desc ? desc->len : 0, 4);
	put(b, at + 8, type, 4);
	put_bytes(b, at + 12, name, nl);
	size_t d = at + 12 + ((nl + 3) & ~(size_t)3);
	if (desc && desc->len)
		put_bytes(b, d, desc->p, desc->len);
	size_t end = d + ((desc ? desc->len + 3 : 3) & ~(size_t)3);
	if (end > b->len)
		put(b, end - 1, 0, 1);
}

struct seg {
	uint64_t vaddr, memsz;
	const struct buf *data;   /* file bytes (p_filesz = its length) */
	uint32_t flags;
};

/* An ET_CORE file: header, program headers (one PT_NOTE, then the
 * segments), notes, then each segment's bytes, page-aligned. */
static struct buf core(bool be, unsigned word, uint16_t machine, const struct buf *notes,
                       const struct seg *segs, unsigned nsegs)
{
	struct buf b = { .be = be };
	bool w8 = word == 8;
	size_t ehsize = w8 ? 64 : 52, phsize = w8 ? 56 : 32;
	put_bytes(&b, 0, ELFMAG, 4);
	put(&b, EI_CLASS, w8 ? ELFCLASS64 : ELFCLASS32, 1);
	put(&b, EI_DATA, be ? ELFDATA2MSB : ELFDATA2LSB, 1);
	put(&b, EI_VERSION, EV_CURRENT, 1);
	put(&b, 16, ET_CORE, 2);
	put(&b, 18, machine, 2);
	put(&b, 20, EV_CURRENT, 4);
	put(&b, w8 ? 32 : 28, ehsize, word);                 /* e_phoff */
	put(&b, w8 ? 52 : 40, ehsize, 2);                     /* e_ehsize */
	put(&b, w8 ? 54 : 42, phsize, 2);                     /* e_phentsize */
	put(&b, w8 ? 56 : 44, 1 + nsegs, 2);                  /* e_phnum */
	size_t notes_at = ehsize + phsize * (1 + nsegs);
	size_t data_at = (notes_at + (notes ? notes->len : 0) + 4095) & ~(size_t)4095;
	for (unsigned i = 0; i <= nsegs; i++) {
		size_t ph = ehsize + phsize * i;
		uint32_t type = i ? PT_LOAD : PT_NOTE, flags = i ? segs[i - 1].flags : 0;
		uint64_t off = i ? data_at : notes_at;
		uint64_t vaddr = i ? segs[i - 1].vaddr : 0;
		uint64_t filesz = i ? (segs[i - 1].data ? segs[i - 1].data->len : 0)
		                    : (notes ? notes->len : 0);
		uint64_t memsz = i ? segs[i - 1].memsz : 0;
		put(&b, ph, type, 4);
		if (w8) {
			put(&b, ph + 4, flags, 4);
			put(&b, ph + 8, off, 8);
			put(&b, ph + 16, vaddr, 8);
			put(&b, ph + 32, filesz, 8);
			put(&b, ph + 40, memsz, 8);
		} else {
			put(&b, ph + 4, off, 4);
			put(&b, ph + 8, vaddr, 4);
			put(&b, ph + 16, filesz, 4);
			put(&b, ph + 20, memsz, 4);
			put(&b, ph + 24, flags, 4);
		}
		if (i && segs[i - 1].data) {
			put_bytes(&b, data_at, segs[i - 1].data->p, segs[i - 1].data->len);
			data_at = (data_at + filesz + 4095) & ~(size_t)4095;
		}
	}
	if (notes)
		put_bytes(&b, notes_at, notes->p, notes->len);
	return b;
}

static char tmp_path[64];

static enum sw_err_code open_buf(const struct buf *b, const struct sw_open_options *o,
                                 struct sw_snapshot *s, struct sw_err *err)
{
	snprintf(tmp_path, sizeof tmp_path, "/tmp/sw_ec_test_XXXXXX");
	int fd = mkstemp(tmp_path);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, b->p, b->len) == (ssize_t)b->len);
	close(fd);
	sw_err_clear(err);
	enum sw_err_code rc = sw_snapshot_open_with(tmp_path, o, s, err);
	unlink(tmp_path);
	return rc;
}

/* An x86_64 NT_PRSTATUS (336 bytes): pid, cursig, rip, rsp. */
static struct buf prstatus_amd64(uint32_t pid, uint16_t cursig, uint64_t rip, uint64_t rsp)
{
	struct buf d = { 0 };
	put(&d, 335, 0, 1);
	put(&d, 12, cursig, 2);
	put(&d, 32, pid, 4);
	put(&d, 112 + 16 * 8, rip, 8);
	put(&d, 112 + 19 * 8, rsp, 8);
	return d;
}

START_TEST(test_segment_shorter_in_file_than_in_memory)
{
	struct buf pr = prstatus_amd64(7, 11, 0x1000, 0x10ff0);
	struct buf notes = { 0 };
	note(&notes, "CORE", NT_PRSTATUS, &pr);
	struct buf mem = { 0 };
	put(&mem, 0xfff, 0xab, 1);
	struct seg segs[] = { { 0x10000, 0x3000, &mem, PF_R | PF_W } };
	struct buf b = core(false, 8, EM_X86_64, &notes, segs, 1);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmem, 1);
	ck_assert_uint_eq(s.mem[0].size, 0x1000);
	uint8_t v[8];
	ck_assert(sw_mem_read(&s, 0x10ff8, v, 8));
	ck_assert_uint_eq(v[7], 0xab);
	ck_assert(!sw_mem_read(&s, 0x10ffc, v, 8)); /* the rest is absent */
	ck_assert(!sw_mem_read(&s, 0x11000, v, 1));
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(reg(&s, 0, "rip"), 0x1000);
	ck_assert_uint_eq(reg(&s, 0, "rsp"), 0x10ff0);
	ck_assert_uint_eq(s.crash.code, 11);
	sw_snapshot_free(&s);
	free(pr.p), free(notes.p), free(mem.p), free(b.p);
}
END_TEST

START_TEST(test_note_running_past_its_segment_keeps_the_notes_before_it)
{
	struct buf pr = prstatus_amd64(7, 0, 0x1000, 0x2000);
	struct buf notes = { 0 };
	note(&notes, "CORE", NT_PRSTATUS, &pr);
	note(&notes, "CORE", NT_PRSTATUS, &pr);
	/* The second note's descsz now claims 64 KiB. */
	put(&notes, 12 + 8 + 336 + 4, 0x10000, 4);
	struct buf b = core(false, 8, EM_X86_64, &notes, NULL, 0);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert(has_problem(&s, "runs past its segment"));
	sw_snapshot_free(&s);
	free(pr.p), free(notes.p), free(b.p);
}
END_TEST

/* Counts that claim 2^32 things: program headers through PN_XNUM
 * (section 0's sh_info), NT_FILE entries. Nothing is allocated for them;
 * the reader says so and goes on. */
START_TEST(test_huge_counts_allocate_nothing)
{
	struct buf pr = prstatus_amd64(7, 0, 0x1000, 0x2000);
	struct buf file = { 0 };
	put(&file, 0, 0xffffffffull, 8);  /* count */
	put(&file, 8, 4096, 8);           /* page size */
	put(&file, 16, 0x1000, 8);
	put(&file, 24, 0x2000, 8);
	put(&file, 32, 0, 8);
	put_bytes(&file, 40, "/x", 3);
	struct buf notes = { 0 };
	note(&notes, "CORE", NT_PRSTATUS, &pr);
	note(&notes, "CORE", NT_FILE, &file);
	struct buf b = core(false, 8, EM_X86_64, &notes, NULL, 0);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "NT_FILE"));
	ck_assert_uint_eq(s.nmaps, 0);
	ck_assert_uint_eq(s.nthreads, 1);
	sw_snapshot_free(&s);
	/* e_phnum = PN_XNUM, section 0's sh_info = 2^32 - 1. */
	put(&b, 56, PN_XNUM, 2);
	size_t sh = b.len;
	put(&b, 40, sh, 8);               /* e_shoff */
	put(&b, sh + 44, 0xffffffffu, 4); /* sh_info */
	put(&b, sh + 63, 0, 1);
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "program headers"));
	ck_assert_uint_eq(s.nthreads, 1);
	sw_snapshot_free(&s);
	free(pr.p), free(file.p), free(notes.p), free(b.p);
}
END_TEST

/* A little-endian 64-bit process with no NT_FILE: an executable at
 * 0x400000 (ET_EXEC, entry 0x401000) whose PT_DYNAMIC at 0x600000 holds
 * DT_DEBUG = 0x601000, r_debug's r_map = 0x602000, a link_map chain
 * naming two libraries whose dynamic sections are at 0x7f0000100000 and
 * 0x7f0000200000. */
enum { EXE = 0x400000, DYN = 0x600000, RDEBUG = 0x601000, LM = 0x602000 };

static struct buf exe_image(void)
{
	struct buf e = { 0 };
	put_bytes(&e, 0, ELFMAG, 4);
	put(&e, EI_CLASS, ELFCLASS64, 1);
	put(&e, EI_DATA, ELFDATA2LSB, 1);
	put(&e, EI_VERSION, EV_CURRENT, 1);
	put(&e, 16, ET_EXEC, 2);
	put(&e, 18, EM_X86_64, 2);
	put(&e, 20, EV_CURRENT, 4);
	put(&e, 24, EXE + 0x1000, 8);  /* e_entry */
	put(&e, 32, 64, 8);            /* e_phoff */
	put(&e, 52, 64, 2);
	put(&e, 54, 56, 2);
	put(&e, 56, 2, 2);             /* e_phnum */
	put(&e, 64, PT_LOAD, 4);
	put(&e, 64 + 4, PF_R | PF_X, 4);
	put(&e, 64 + 16, EXE, 8);
	put(&e, 64 + 32, 0x2000, 8);
	put(&e, 64 + 40, 0x2000, 8);
	put(&e, 120, PT_DYNAMIC, 4);
	put(&e, 120 + 16, DYN, 8);
	put(&e, 120 + 32, 0x40, 8);
	put(&e, 120 + 40, 0x40, 8);
	put(&e, 0x1fff, 0, 1);
	return e;
}

/* The process's writable data: dynamic section, r_debug, link_map
 * entries (0x28 bytes each) and their names. next2: where the second
 * entry's l_next points (0: the chain ends; LM: it loops). */
static struct buf process_data(uint64_t next2)
{
	struct buf d = { 0 };
	put(&d, 0, DT_DEBUG, 8);
	put(&d, 8, RDEBUG, 8);
	put(&d, 16, DT_NULL, 8);
	put(&d, 0x1000, 1, 4);                 /* r_version */
	put(&d, 0x1008, LM, 8);                /* r_map */
	uint64_t e0 = LM, e1 = LM + 0x40, e2 = LM + 0x80;
	put(&d, e0 - DYN + 8, LM + 0x200, 8);  /* the executable: name "" */
	put(&d, e0 - DYN + 16, DYN, 8);
	put(&d, e0 - DYN + 24, e1, 8);
	put(&d, e1 - DYN, 0x7f0000000000, 8);
	put(&d, e1 - DYN + 8, LM + 0x210, 8);
	put(&d, e1 - DYN + 16, 0x7f0000100000, 8);
	put(&d, e1 - DYN + 24, e2, 8);
	put(&d, e2 - DYN, 0x7f0000180000, 8);
	put(&d, e2 - DYN + 8, LM + 0x230, 8);
	put(&d, e2 - DYN + 16, 0x7f0000200000, 8);
	put(&d, e2 - DYN + 24, next2, 8);
	put_bytes(&d, LM + 0x200 - DYN, "", 1);
	put_bytes(&d, LM + 0x210 - DYN, "/lib/libone.so", 15);
	put_bytes(&d, LM + 0x230 - DYN, "/lib/libtwo.so", 15);
	put(&d, 0x2fff, 0, 1);
	return d;
}

static struct buf auxv_notes(void)
{
	struct buf pr = prstatus_amd64(9, 11, EXE + 0x1100, 0x7ffff000);
	struct buf av = { 0 };
	uint64_t pairs[][2] = { { AT_PHDR, EXE + 64 }, { AT_PHNUM, 2 }, { AT_PHENT, 56 },
	                        { AT_PAGESZ, 4096 }, { AT_ENTRY, EXE + 0x1000 }, { AT_NULL, 0 } };
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		put(&av, 16 * i, pairs[i][0], 8);
		put(&av, 16 * i + 8, pairs[i][1], 8);
	}
	struct buf notes = { 0 };
	note(&notes, "CORE", NT_PRSTATUS, &pr);
	note(&notes, "CORE", NT_AUXV, &av);
	free(pr.p), free(av.p);
	return notes;
}

START_TEST(test_link_map_chain_that_loops_is_cut)
{
	struct buf exe = exe_image(), data = process_data(LM + 0x40), notes = auxv_notes();
	struct seg segs[] = { { EXE, 0x2000, &exe, PF_R | PF_X },
	                      { DYN, 0x3000, &data, PF_R | PF_W } };
	struct buf b = core(false, 8, EM_X86_64, &notes, segs, 2);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_ERR_CORRUPT);
	ck_assert(has_problem(&s, "loops"));
	ck_assert_uint_eq(s.nmodules, 3);
	ck_assert_uint_eq(s.modules[0].base, EXE);
	ck_assert_uint_eq(s.modules[0].size, 0x2000);
	ck_assert_str_eq(s.modules[1].code_file, "/lib/libone.so");
	ck_assert_uint_eq(s.modules[1].base, 0x7f0000000000);
	ck_assert_str_eq(s.modules[2].code_file, "/lib/libtwo.so");
	ck_assert_uint_eq(s.nlink_map, 3);
	sw_snapshot_free(&s);
	free(exe.p), free(data.p), free(notes.p), free(b.p);
}
END_TEST

/* qemu-user leaves the executable's header page out: the executable is
 * the search path's file that fits AT_ENTRY and AT_PHNUM. */
START_TEST(test_executable_from_the_search_paths_without_nt_file)
{
	struct buf exe = exe_image(), data = process_data(0), notes = auxv_notes();
	struct seg segs[] = { { EXE, 0x2000, NULL, PF_R | PF_X },
	                      { DYN, 0x3000, &data, PF_R | PF_W } };
	struct buf b = core(false, 8, EM_X86_64, &notes, segs, 2);
	char exe_path[64];
	snprintf(exe_path, sizeof exe_path, "/tmp/sw_ec_exe_XXXXXX");
	int fd = mkstemp(exe_path);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, exe.p, exe.len) == (ssize_t)exe.len);
	close(fd);
	struct sw_snapshot s;
	struct sw_err err;
	/* Without it: no module, a warning naming what to do. */
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_OK);
	ck_assert_uint_eq(s.nmodules, 0);
	ck_assert(has_problem(&s, "search paths"));
	sw_snapshot_free(&s);
	const char *paths[] = { "/nonexistent", exe_path };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 2 };
	open_buf(&b, &o, &s, &err);
	ck_assert_uint_eq(s.nmodules, 3);
	ck_assert_uint_eq(s.modules[0].base, EXE);
	ck_assert_str_eq(s.modules[0].image_path, exe_path);
	ck_assert_int_eq(s.main_module, 0);
	ck_assert_str_eq(s.modules[2].code_file, "/lib/libtwo.so");
	/* libtwo: no header in the core, no file: up to the end of the
	 * segment holding its l_ld (none here: one page). */
	ck_assert_uint_eq(s.modules[2].base, 0x7f0000180000);
	sw_snapshot_free(&s);
	unlink(exe_path);
	free(exe.p), free(data.p), free(notes.p), free(b.p);
}
END_TEST

/* The dynamic loader's own link_map entry names it by the executable's
 * PT_INTERP string, in the executable's first page, which qemu-user
 * leaves out of its cores: the name is read from the executable's file. */
START_TEST(test_link_map_name_in_the_executable_read_from_its_file)
{
	struct buf exe = exe_image(), data = process_data(0), notes = auxv_notes();
	put_bytes(&exe, 0x300, "/lib/ld-test.so.1", 18);
	put(&data, LM + 0x80 - DYN + 8, EXE + 0x300, 8);  /* the last entry's l_name */
	put_bytes(&exe, 0x1ff0, "/lib/end.so", 12);       /* 4 bytes before the segment's end */
	put(&data, LM + 0x40 - DYN + 8, EXE + 0x1ff0, 8);
	struct seg segs[] = { { EXE, 0x2000, NULL, PF_R | PF_X },
	                      { DYN, 0x3000, &data, PF_R | PF_W } };
	struct buf b = core(false, 8, EM_X86_64, &notes, segs, 2);
	char exe_path[64];
	snprintf(exe_path, sizeof exe_path, "/tmp/sw_ec_exe_XXXXXX");
	int fd = mkstemp(exe_path);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, exe.p, exe.len) == (ssize_t)exe.len);
	close(fd);
	const char *paths[] = { exe_path };
	struct sw_open_options o = { .search_paths = paths, .nsearch_paths = 1 };
	struct sw_snapshot s;
	struct sw_err err;
	open_buf(&b, &o, &s, &err);
	ck_assert_uint_eq(s.nmodules, 3);
	ck_assert_str_eq(s.modules[1].code_file, "/lib/end.so");
	ck_assert_str_eq(s.modules[2].code_file, "/lib/ld-test.so.1");
	ck_assert_uint_eq(s.modules[2].base, 0x7f0000180000);
	ck_assert_str_eq(s.link_map[2].name, "/lib/ld-test.so.1");
	sw_snapshot_free(&s);
	unlink(exe_path);
	free(exe.p), free(data.p), free(notes.p), free(b.p);
}
END_TEST

/* A big-endian 32-bit core (powerpc): struct elf_prstatus with 4-byte
 * longs (pr_pid at 24, pr_reg at 72), every integer big-endian. */
START_TEST(test_big_endian_32_bit_core)
{
	struct buf pr = { .be = true };
	put(&pr, 267, 0, 1);
	put(&pr, 12, 6, 2);             /* pr_cursig */
	put(&pr, 24, 4242, 4);          /* pr_pid */
	put(&pr, 72 + 1 * 4, 0xbffff000, 4);   /* r1 */
	put(&pr, 72 + 32 * 4, 0x10000abc, 4);  /* nip */
	put(&pr, 72 + 36 * 4, 0x10000def, 4);  /* link */
	struct buf ps = { .be = true };
	put(&ps, 127, 0, 1);
	put(&ps, 128 - 112, 4241, 4);   /* pr_pid */
	put_bytes(&ps, 128 - 96, "prog", 5);
	struct buf notes = { .be = true };
	note(&notes, "CORE", NT_PRSTATUS, &pr);
	note(&notes, "CORE", NT_PRPSINFO, &ps);
	struct buf mem = { .be = true };
	put(&mem, 0, 0x01020304, 4);
	struct seg segs[] = { { 0xbffff000, 0x1000, &mem, PF_R | PF_W } };
	struct buf b = core(true, 4, EM_PPC, &notes, segs, 1);
	struct sw_snapshot s;
	struct sw_err err;
	ck_assert_int_eq(open_buf(&b, NULL, &s, &err), SW_OK);
	ck_assert(s.sys.big_endian);
	ck_assert_int_eq(s.sys.cpu, SW_CPU_PPC);
	ck_assert_uint_eq(s.nthreads, 1);
	ck_assert_uint_eq(s.threads[0].id, 4242);
	ck_assert_str_eq(s.threads[0].name, "prog");
	ck_assert_uint_eq(s.pid, 4241);
	ck_assert_uint_eq(reg(&s, 0, "srr0"), 0x10000abc);
	ck_assert_uint_eq(reg(&s, 0, "r1"), 0xbffff000);
	ck_assert_uint_eq(reg(&s, 0, "lr"), 0x10000def);
	uint32_t v;
	ck_assert(sw_mem_read_u32(&s, 0xbffff000, &v));
	ck_assert_uint_eq(v, 0x01020304);
	ck_assert_uint_eq(s.crash.code, 6);
	ck_assert_uint_eq(s.crash.thread_id, 4242);
	sw_snapshot_free(&s);
	free(pr.p), free(ps.p), free(notes.p), free(mem.p), free(b.p);
}
END_TEST

/* A real core cut every 7 bytes through its headers and notes (the first
 * 2 KiB), and with a byte of the first 1.5 KiB flipped at a time: an
 * answer check_open_answer accepts, never a crash (the sanitizer build
 * checks the reads). */
START_TEST(test_cut_and_flipped_cores_never_crash)
{
	char path[512];
	corpus_path(path, sizeof path, "elf-cores/lldb/elf-core/linux-mipsel-gnuabio32.core");
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	struct buf b = { 0 };
	uint8_t chunk[4096];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		put_bytes(&b, b.len, chunk, got);
	fclose(f);
	size_t full = b.len;
	for (size_t cut = 0; cut < 0x800; cut += 7) {
		b.len = cut;
		struct sw_snapshot s;
		struct sw_err err;
		check_open_answer(open_buf(&b, NULL, &s, &err), &s, &err, b.len, "sw_ec_test_", NULL);
		sw_snapshot_free(&s);
	}
	b.len = full;
	srand(1);
	for (int round = 0; round < 200; round++) {
		size_t at = (size_t)rand() % 0x600;
		uint8_t old = b.p[at];
		b.p[at] ^= (uint8_t)(1 + rand() % 255);
		struct sw_snapshot s;
		struct sw_err err;
		check_open_answer(open_buf(&b, NULL, &s, &err), &s, &err, b.len, "sw_ec_test_", NULL);
		sw_snapshot_free(&s);
		b.p[at] = old;
	}
	free(b.p);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("elfcore");
	TCase *t = tcase_create("corpus");
	tcase_add_test(t, test_lldb_mipsel_o32);
	tcase_add_test(t, test_lldb_mips64el_n32);
	tcase_add_test(t, test_lldb_mips64el_n64);
	tcase_add_test(t, test_lldb_ppc64le_without_nt_file);
	tcase_add_test(t, test_maps_file_gives_the_modules);
	tcase_add_test(t, test_lldb_s390x_threads_without_context);
	tcase_add_test(t, test_netbsd_aarch64_two_lwps);
	tcase_add_test(t, test_elfutils_aarch64);
	tcase_add_test(t, test_elfutils_ppc_big_endian);
	suite_add_tcase(s, t);
	t = tcase_create("synthetic");
	tcase_add_test(t, test_segment_shorter_in_file_than_in_memory);
	tcase_add_test(t, test_note_running_past_its_segment_keeps_the_notes_before_it);
	tcase_add_test(t, test_huge_counts_allocate_nothing);
	tcase_add_test(t, test_link_map_chain_that_loops_is_cut);
	tcase_add_test(t, test_link_map_name_in_the_executable_read_from_its_file);
	tcase_add_test(t, test_executable_from_the_search_paths_without_nt_file);
	tcase_add_test(t, test_big_endian_32_bit_core);
	tcase_add_test(t, test_cut_and_flipped_cores_never_crash);
	suite_add_tcase(s, t);
	return s;
}
