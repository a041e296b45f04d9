/* DWARF functions, lines and inline chains, checked against Breakpad's
 * dump_syms output for the same binaries (every line record's address),
 * plus older DWARF, damaged input and laziness. Set SW_DWARF_VERBOSE=1 to
 * print each mismatch. */
#include <check.h>
#include <fcntl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/mapped_file.h"
#include "symbols/dwarf_lines.h"
#include "symbols/elf_image.h"
#include "symbols/macho_dsym.h"
#include "testutil.h"

/* ---- inputs ------------------------------------------------------------- */

static void *read_whole(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "%s", path);
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	char *buf = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		ck_assert_int_gt(r, 0);
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	*n = got;
	return buf;
}

static void *gunzip(const char *path, size_t *n)
{
	size_t zn;
	void *z = read_whole(path, &zn);
	size_t cap = zn * 8, len = 0;
	unsigned char *out = malloc(cap);
	z_stream s;
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(inflateInit2(&s, 16 + MAX_WBITS), Z_OK);
	s.next_in = z;
	s.avail_in = (uInt)zn;
	int rc;
	do {
		if (len == cap) {
			cap *= 2;
			out = realloc(out, cap);
		}
		s.next_out = out + len;
		s.avail_out = (uInt)(cap - len);
		rc = inflate(&s, Z_NO_FLUSH);
		len = cap - s.avail_out;
	} while (rc == Z_OK);
	ck_assert_int_eq(rc, Z_STREAM_END);
	inflateEnd(&s);
	free(z);
	*n = len;
	return out;
}

/* An ELF image as the provider opens it, and its libelf handle. */
struct elf_file {
	struct sw_elf *img;
	Elf *elf;
};

static void elf_file_open(struct elf_file *f, const char *rel)
{
	char path[4096];
	struct sw_err err = {0};
	f->img = sw_elf_open_file(corpus_path(path, sizeof path, rel), 0, &err);
	ck_assert_msg(f->img != NULL, "%s", err.msg);
	f->elf = sw_elf_libelf(f->img);
	ck_assert_ptr_nonnull(f->elf);
}

/* Takes mem (malloc'd), which the image frees. */
static void elf_file_memory(struct elf_file *f, void *mem, size_t n)
{
	struct sw_err err = {0};
	f->img = sw_elf_open_bytes(mem, n, true, "memory", &err);
	ck_assert_msg(f->img != NULL, "%s", err.msg);
	f->elf = sw_elf_libelf(f->img);
	ck_assert_ptr_nonnull(f->elf);
}

static void elf_file_close(struct elf_file *f)
{
	sw_elf_free(f->img);
}

/* dump_syms's module base: the lowest PT_LOAD address. */
static uint64_t load_base(Elf *elf)
{
	size_t n = 0;
	ck_assert_int_eq(elf_getphdrnum(elf, &n), 0);
	uint64_t base = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < base)
			base = ph.p_vaddr;
	}
	return base == UINT64_MAX ? 0 : base;
}

/* ---- a small .sym reader (FILE, FUNC, line, INLINE_ORIGIN, INLINE) ----- */

struct sym_func {
	uint64_t addr, size;
	const char *name;
	size_t first_line, end_line;     /* into lines[] */
	size_t first_inline, end_inline; /* into inlines[] */
};
struct sym_line {
	uint64_t addr, size;
	uint32_t line, file;
};
struct sym_inline {
	uint32_t depth, call_line, call_file, origin;
	uint64_t ranges[16][2];
	size_t nranges;
};
struct sym {
	char *text;
	const char **files, **origins;
	size_t nfiles, norigins;
	struct sym_func *funcs;
	struct sym_line *lines;
	struct sym_inline *inlines;
	size_t nfuncs, nlines, ninlines;
};

static void put_named(const char ***v, size_t *n, unsigned long id, const char *name)
{
	if (id >= *n) {
		*v = realloc(*v, (id + 1) * sizeof **v);
		for (size_t i = *n; i <= id; i++)
			(*v)[i] = NULL;
		*n = id + 1;
	}
	(*v)[id] = name;
}

static void sym_load(struct sym *s, const char *rel)
{
	char path[4096];
	size_t n;
	memset(s, 0, sizeof *s);
	s->text = read_whole(corpus_path(path, sizeof path, rel), &n);
	size_t cap_f = 0, cap_l = 0, cap_i = 0;
	for (char *p = s->text, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		char *end = nl;
		if (end > p && end[-1] == '\r')
			end--;
		bool last = *nl == '\0';
		*end = '\0';
		char *q;
		if (!strncmp(p, "FILE ", 5)) {
			unsigned long id = strtoul(p + 5, &q, 10);
			put_named(&s->files, &s->nfiles, id, q + 1);
		} else if (!strncmp(p, "INLINE_ORIGIN ", 14)) {
			unsigned long id = strtoul(p + 14, &q, 10);
			put_named(&s->origins, &s->norigins, id, q + 1);
		} else if (!strncmp(p, "FUNC ", 5)) {
			q = p + 5;
			if (!strncmp(q, "m ", 2))
				q += 2;
			if (s->nfuncs == cap_f)
				s->funcs = realloc(s->funcs, (cap_f = cap_f * 2 + 64) * sizeof *s->funcs);
			struct sym_func *f = &s->funcs[s->nfuncs++];
			f->addr = strtoull(q, &q, 16);
			f->size = strtoull(q, &q, 16);
			strtoull(q, &q, 16);
			f->name = q + 1;
			f->first_line = f->end_line = s->nlines;
			f->first_inline = f->end_inline = s->ninlines;
		} else if (!strncmp(p, "INLINE ", 7) && s->nfuncs) {
			if (s->ninlines == cap_i)
				s->inlines = realloc(s->inlines,
				                     (cap_i = cap_i * 2 + 64) * sizeof *s->inlines);
			struct sym_inline *in = &s->inlines[s->ninlines++];
			memset(in, 0, sizeof *in);
			in->depth = (uint32_t)strtoul(p + 7, &q, 10);
			in->call_line = (uint32_t)strtoul(q, &q, 10);
			in->call_file = (uint32_t)strtoul(q, &q, 10);
			in->origin = (uint32_t)strtoul(q, &q, 10);
			while (*q == ' ' && in->nranges < 16) {
				in->ranges[in->nranges][0] = strtoull(q, &q, 16);
				in->ranges[in->nranges][1] = strtoull(q, &q, 16);
				in->nranges++;
			}
			s->funcs[s->nfuncs - 1].end_inline = s->ninlines;
		} else if (s->nfuncs && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) {
			if (s->nlines == cap_l)
				s->lines = realloc(s->lines, (cap_l = cap_l * 2 + 256) * sizeof *s->lines);
			struct sym_line *l = &s->lines[s->nlines++];
			l->addr = strtoull(p, &q, 16);
			l->size = strtoull(q, &q, 16);
			l->line = (uint32_t)strtoul(q, &q, 10);
			l->file = (uint32_t)strtoul(q, &q, 10);
			s->funcs[s->nfuncs - 1].end_line = s->nlines;
		}
		if (last)
			break;
	}
}

static void sym_free(struct sym *s)
{
	free(s->text);
	free(s->files);
	free(s->origins);
	free(s->funcs);
	free(s->lines);
	free(s->inlines);
}

static const char *sym_file(const struct sym *s, uint32_t id)
{
	return id < s->nfiles && s->files[id] ? s->files[id] : "?";
}

/* ---- comparing every line record ---------------------------------------- */

struct tally {
	size_t compared, func_ok, line_ok, inline_ok, inline_compared;
	size_t omitted, old_demangler; /* function names dump_syms got wrong */
};

/* Where dump_syms is the one that is wrong (macOS crash.sym), both seen in
 * `llvm-dwarfdump --lookup=ADDR crash.dSYM/.../crash`:
 * - "<name omitted>": the out-of-line copy (e.g. at 0xd800, DIE 0x3036d)
 *   names itself only through DW_AT_abstract_origin to a DIE later in the
 *   unit (0x303b7, linkage name _ZN15google_breakpad11ReceivePortC2EPKc);
 *   dump_syms resolves only references to DIEs it has already seen.
 * - "T const&&&": its demangler predates reference collapsing; c++filt and
 *   llvm-cxxfilt print "T const&" for the same linkage name
 *   (_ZNSt3__16vectorI18MDMemoryDescriptor...__push_back_slow_pathIRKS1_EEvOT_). */
static bool omitted_by_dump_syms(const char *sym, const char *ours)
{
	return !strcmp(sym, "<name omitted>") && ours && strcmp(ours, sym) != 0;
}

static bool old_demangler(const char *sym, const char *ours)
{
	char fixed[4096];
	size_t k = 0;
	for (const char *p = sym; *p && k + 1 < sizeof fixed; p++) {
		if (!strncmp(p, "&&&", 3)) {
			fixed[k++] = '&';
			p += 2;
		} else {
			fixed[k++] = *p;
		}
	}
	fixed[k] = '\0';
	return strstr(sym, "&&&") && ours && !strcmp(fixed, ours);
}

static bool verbose(void)
{
	const char *v = getenv("SW_DWARF_VERBOSE");
	return v && *v && *v != '0';
}

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Breakpad's processor: INLINE records covering the offset, in file
 * order, level `depth` set when the levels above it are. */
static size_t sym_chain(const struct sym *s, const struct sym_func *f, uint64_t off,
                        const struct sym_inline **chain, size_t max)
{
	size_t n = 0;
	for (size_t i = f->first_inline; i < f->end_inline; i++) {
		const struct sym_inline *in = &s->inlines[i];
		bool covers = false;
		for (size_t r = 0; r < in->nranges; r++)
			covers |= off >= in->ranges[r][0] && off - in->ranges[r][0] < in->ranges[r][1];
		if (covers && in->depth <= n && in->depth < max) {
			chain[in->depth] = in;
			n = in->depth + 1;
		}
	}
	return n;
}

static void compare_at(struct sw_dwarf *d, const struct sym *s, const struct sym_func *f,
                       const struct sym_line *l, uint64_t off, uint64_t base,
                       struct tally *t)
{
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info info;
	bool found = sw_dwarf_lookup(d, base + off, &a, &info);
	t->compared++;
	bool fok = found && streq(info.function, f->name) && info.function_offset == base + f->addr;
	bool lok = found && streq(info.file, sym_file(s, l->file)) && info.line == l->line &&
	           info.line_offset == base + l->addr;
	t->func_ok += fok;
	t->line_ok += lok;
	if (!fok && found && info.function_offset == base + f->addr) {
		if (omitted_by_dump_syms(f->name, info.function)) {
			t->omitted++;
			fok = true;
		} else if (old_demangler(f->name, info.function)) {
			t->old_demangler++;
			fok = true;
		}
	}
	if (verbose() && !fok)
		fprintf(stderr, "FUNC %llx: sym \"%s\" @%llx, dwarf \"%s\" @%llx\n",
		        (unsigned long long)off, f->name, (unsigned long long)f->addr,
		        found && info.function ? info.function : "-",
		        (unsigned long long)(info.function_offset - base));
	if (verbose() && !lok)
		fprintf(stderr, "LINE %llx: sym %s:%u @%llx, dwarf %s:%u @%llx\n",
		        (unsigned long long)off, sym_file(s, l->file), l->line,
		        (unsigned long long)l->addr, found && info.file ? info.file : "-", info.line,
		        (unsigned long long)(info.line_offset - base));
	if (f->end_inline > f->first_inline) {
		const struct sym_inline *chain[64];
		size_t n = sym_chain(s, f, off, chain, 64);
		bool iok = found && n == info.ninlines;
		for (size_t k = 0; iok && k < n; k++) {
			const char *origin = chain[k]->origin < s->norigins ? s->origins[chain[k]->origin]
			                                                    : "?";
			iok = streq(info.inlines[k].function, origin) &&
			      streq(info.inlines[k].call_file, sym_file(s, chain[k]->call_file)) &&
			      info.inlines[k].call_line == chain[k]->call_line;
		}
		t->inline_compared++;
		t->inline_ok += iok;
		if (verbose() && !iok)
			fprintf(stderr, "INLINE %llx: sym depth %zu, dwarf %u\n",
			        (unsigned long long)off, n, found ? info.ninlines : 0);
	}
	sw_arena_free(&a);
}

static void compare_all(struct sw_dwarf *d, const struct sym *s, uint64_t base,
                        struct tally *t)
{
	memset(t, 0, sizeof *t);
	for (size_t fi = 0; fi < s->nfuncs; fi++) {
		const struct sym_func *f = &s->funcs[fi];
		for (size_t li = f->first_line; li < f->end_line; li++) {
			const struct sym_line *l = &s->lines[li];
			compare_at(d, s, f, l, l->addr, base, t);
			/* and inside the record, where the row search matters */
			if (l->size > 2)
				compare_at(d, s, f, l, l->addr + l->size / 2, base, t);
		}
	}
	fprintf(stderr,
	        "compared %zu addresses: function %zu (+%zu \"<name omitted>\" and %zu \"&&&\" "
	        "in the .sym), line %zu, inline %zu/%zu\n",
	        t->compared, t->func_ok, t->omitted, t->old_demangler, t->line_ok, t->inline_ok,
	        t->inline_compared);
}

/* ---- the oracle comparisons --------------------------------------------- */

/* py-tests/crash_linux (GCC, DWARF 4, .debug_ranges) against
 * symbols-derived/.../crash_linux.sym, Breakpad dump_syms's output for it
 * (no INLINE records: that dump_syms was run without inline output). */
START_TEST(test_dwarf_matches_dump_syms_for_crash_linux)
{
	struct elf_file ef;
	elf_file_open(&ef, "symbolic/py-tests/crash_linux");
	struct sw_err err = {0};
	struct sw_dwarf *d = sw_dwarf_open(ef.img, "crash_linux", &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	struct sym s;
	sym_load(&s, "symbolic/symbols-derived/crash_linux/D2554CDB926136C4B9766A086583B9B50/"
	             "crash_linux.sym");
	ck_assert_uint_gt(s.nlines, 1000);
	struct tally t;
	compare_all(d, &s, load_base(ef.elf), &t);
	ck_assert_uint_eq(t.func_ok, t.compared);
	ck_assert_uint_eq(t.line_ok, t.compared);
	sym_free(&s);
	sw_dwarf_free(d);
	elf_file_close(&ef);
}
END_TEST

/* The macOS fixture's dSYM (Apple clang, DWARF 2/4 in Mach-O), its
 * __DWARF sections read in place, against dump_syms's .sym for it (its
 * addresses are relative to __TEXT at 0x100000000). */
START_TEST(test_dwarf_matches_dump_syms_for_macos_dsym)
{
	char path[4096];
	struct sw_mapped_file m;
	struct sw_err err = {0};
	ck_assert_int_eq(sw_map_file(corpus_path(path, sizeof path,
	                                         "symbolic/macos/crash.dSYM/Contents/Resources/DWARF/crash"),
	                             &m, &err), SW_OK);
	/* An ELF opened first: the two readers share nothing. */
	struct elf_file ef;
	elf_file_open(&ef, "symbolic/linux/crash.debug");
	struct sw_dwarf *elf_d = sw_dwarf_open(ef.img, "crash.debug", &err);
	ck_assert_msg(elf_d != NULL, "%s", err.msg);
	struct sw_dwarf_sections sections;
	sw_macho_dwarf_sections(m.data, m.size, &sections);
	struct sw_dwarf *d = sw_dwarf_open_sections(&sections, "crash.dSYM", &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	struct sym s;
	sym_load(&s, "symbolic/symbols/crash/67E9247C814E392BA027DBDE6748FCBF0/crash.sym");
	struct tally t;
	compare_all(d, &s, 0x100000000, &t);
	ck_assert_uint_gt(t.compared, 1000);
	ck_assert_uint_eq(t.func_ok + t.omitted + t.old_demangler, t.compared);
	ck_assert_uint_eq(t.line_ok, t.compared);
	sym_free(&s);
	sw_dwarf_free(d);
	sw_unmap_file(&m);
	sw_dwarf_free(elf_d);
	elf_file_close(&ef);
}
END_TEST

static void print_info(uint64_t vaddr, const struct sw_sym_info *in)
{
	if (!verbose())
		return;
	fprintf(stderr, "%llx: %s @%llx+%llx %s:%u @%llx\n", (unsigned long long)vaddr,
	        in->function ? in->function : "-", (unsigned long long)in->function_offset,
	        (unsigned long long)in->function_size, in->file ? in->file : "-", in->line,
	        (unsigned long long)in->line_offset);
	for (uint32_t k = 0; k < in->ninlines; k++)
		fprintf(stderr, "  [%u] %s called at %s:%u\n", k, in->inlines[k].function,
		        in->inlines[k].call_file ? in->inlines[k].call_file : "-",
		        in->inlines[k].call_line);
}

/* libunwindstack's unwind_test64 (clang, DWARF 4, gzipped in the corpus):
 * a four-deep inline chain, as `addr2line -f -i -C -e unwind_test64
 * 0xc00` prints it (innermost first there): forward() at
 * type_traits:2299, inlined in __compressed_pair() from memory:2235, in
 * __vector_base() from vector:423, in vector() from vector:473, in
 * calling2 from micro_bench.cpp:869. */
START_TEST(test_dwarf_inline_chain_in_unwind_test64)
{
	char path[4096];
	size_t n;
	void *mem = gunzip(corpus_path(path, sizeof path,
	                               "libunwindstack/eh_frame_hdr_begin_x86_64/unwind_test64.gz"),
	                   &n);
	struct elf_file ef;
	elf_file_memory(&ef, mem, n);
	struct sw_err err = {0};
	struct sw_dwarf *d = sw_dwarf_open(ef.img, "unwind_test64", &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info in;
	ck_assert(sw_dwarf_lookup(d, 0xc00, &a, &in));
	print_info(0xc00, &in);
	ck_assert_str_eq(in.function, "calling2");
	ck_assert_str_eq(in.file, "external/libcxx/include/type_traits");
	ck_assert_uint_eq(in.line, 2299);
	ck_assert_uint_eq(in.ninlines, 4);
	ck_assert_str_eq(in.inlines[0].function,
	                 "std::__1::vector<int, std::__1::allocator<int> >::vector()");
	ck_assert_str_eq(in.inlines[0].call_file, "system/extras/micro_bench/micro_bench.cpp");
	ck_assert_uint_eq(in.inlines[0].call_line, 869);
	ck_assert_str_eq(in.inlines[1].function,
	                 "std::__1::__vector_base<int, std::__1::allocator<int> >::__vector_base()");
	ck_assert_str_eq(in.inlines[1].call_file, "external/libcxx/include/vector");
	ck_assert_uint_eq(in.inlines[1].call_line, 473);
	ck_assert_str_eq(in.inlines[2].call_file, "external/libcxx/include/vector");
	ck_assert_uint_eq(in.inlines[2].call_line, 423);
	ck_assert_str_eq(in.inlines[3].function,
	                 "decltype(nullptr)&& std::__1::forward<decltype(nullptr)>("
	                 "std::__1::remove_reference<decltype(nullptr)>::type&)");
	ck_assert_str_eq(in.inlines[3].call_file, "external/libcxx/include/memory");
	ck_assert_uint_eq(in.inlines[3].call_line, 2235);
	/* Outside every unit: nothing. */
	ck_assert(!sw_dwarf_lookup(d, 0x10, &a, &in));
	ck_assert(!sw_dwarf_lookup(d, UINT64_MAX - 1, &a, &in));
	sw_arena_free(&a);
	sw_dwarf_free(d);
	elf_file_close(&ef);
}
END_TEST

/* waiter (32-bit x86, clang, DWARF 4): `llvm-dwarfdump --lookup=0x655`
 * says call_level3, micro_bench.cpp line 33. */
START_TEST(test_dwarf_reads_32_bit_waiter)
{
	char path[4096];
	size_t n;
	void *mem = gunzip(corpus_path(path, sizeof path,
	                               "libunwindstack/debug_frame_first_x86/waiter.gz"),
	                   &n);
	struct elf_file ef;
	elf_file_memory(&ef, mem, n);
	struct sw_err err = {0};
	struct sw_dwarf *d = sw_dwarf_open(ef.img, "waiter", &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info in;
	ck_assert(sw_dwarf_lookup(d, 0x655, &a, &in));
	print_info(0x655, &in);
	ck_assert_str_eq(in.function, "call_level3");
	ck_assert_uint_eq(in.function_offset, 0x650);
	ck_assert_str_eq(in.file, "system/extras/micro_bench/micro_bench.cpp");
	ck_assert_uint_eq(in.line, 33);
	ck_assert_uint_eq(in.line_offset, 0x653);
	ck_assert_uint_eq(in.ninlines, 0);
	ck_assert(!sw_dwarf_lookup(d, 0x400, &a, &in));
	sw_arena_free(&a);
	sw_dwarf_free(d);
	elf_file_close(&ef);
}
END_TEST

START_TEST(test_dwarf_open_refuses_elf_without_debug_info)
{
	struct elf_file ef;
	elf_file_open(&ef, "symbolic/linux/crash");
	struct sw_err err = {0};
	ck_assert_ptr_null(sw_dwarf_open(ef.img, "crash", &err));
	ck_assert_int_eq(err.code, SW_ERR_FORMAT);
	ck_assert_msg(strstr(err.msg, "crash") != NULL, "%s", err.msg);
	elf_file_close(&ef);
	struct sw_err err2 = {0};
	ck_assert_ptr_null(sw_dwarf_open(NULL, "none", &err2));
	ck_assert_int_ne(err2.code, SW_OK);
}
END_TEST

/* crash.debug with .debug_info cut to `keep` bytes (its section header's
 * sh_size patched in the file image). */
static struct sw_dwarf *open_cut(size_t keep, struct elf_file *ef, struct sw_err *err)
{
	char path[4096];
	size_t n;
	unsigned char *mem = read_whole(corpus_path(path, sizeof path, "symbolic/linux/crash.debug"),
	                                &n);
	elf_version(EV_CURRENT);
	Elf *probe = elf_memory((char *)mem, n);
	size_t shstrndx;
	ck_assert_int_eq(elf_getshdrstrndx(probe, &shstrndx), 0);
	Elf_Scn *scn = NULL;
	size_t idx = 0;
	while ((scn = elf_nextscn(probe, scn))) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (!strcmp(elf_strptr(probe, shstrndx, sh.sh_name), ".debug_info"))
			idx = elf_ndxscn(scn);
	}
	elf_end(probe);
	ck_assert_uint_ne(idx, 0);
	Elf64_Ehdr eh;
	memcpy(&eh, mem, sizeof eh);
	uint64_t size = keep;
	memcpy(mem + eh.e_shoff + idx * eh.e_shentsize + offsetof(Elf64_Shdr, sh_size), &size,
	       sizeof size);
	elf_file_memory(ef, mem, n);
	return sw_dwarf_open(ef->img, "crash.debug (cut)", err);
}

START_TEST(test_dwarf_truncated_debug_info_is_an_error_not_a_crash)
{
	static const size_t cuts[] = {0, 3, 11, 40, 200, 0x919c, 0x91a0 + 100};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		struct elf_file ef;
		struct sw_err err = {0};
		struct sw_dwarf *d = open_cut(cuts[i], &ef, &err);
		if (!d) {
			ck_assert_int_ne(err.code, SW_OK);
		} else {
			/* A cut after whole units keeps those; lookups anywhere
			 * answer without crashing. */
			struct sw_arena a;
			sw_arena_init(&a);
			struct sw_sym_info in;
			for (uint64_t pc = 0x401900; pc < 0x414ca4; pc += 0x301)
				(void)sw_dwarf_lookup(d, pc, &a, &in);
			sw_arena_free(&a);
			sw_dwarf_free(d);
		}
		elf_file_close(&ef);
	}
}
END_TEST

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* symbolic/linux/crash.debug (GCC 5, DWARF 4) against the PUBLIC records
 * of crash.sym, which dump_syms made from the stripped binary (no FUNC or
 * line records): every PUBLIC in .text that DWARF describes must be found
 * as a function starting there. The names differ in documented ways only:
 * PUBLIC names come from ELF symbols (so clones carry " [clone .isra.N]",
 * and functions without DW_AT_linkage_name print without parameters in
 * DWARF, as dump_syms prints them too). Also the laziness: one lookup
 * reads one unit. */
START_TEST(test_dwarf_crash_debug_publics_and_laziness)
{
	struct elf_file ef;
	elf_file_open(&ef, "symbolic/linux/crash.debug");
	struct sw_err err = {0};
	double t0 = now();
	struct sw_dwarf *d = sw_dwarf_open(ef.img, "crash.debug", &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	double t1 = now();
	struct sw_arena a;
	sw_arena_init(&a);
	struct sw_sym_info in;
	ck_assert(sw_dwarf_lookup(d, 0x401c70, &a, &in)); /* main */
	double t2 = now();
	ck_assert_str_eq(in.function, "main");
	size_t nunits = 0;
	ck_assert_uint_eq(sw_dwarf_units_read(d, &nunits), 1);
	ck_assert_uint_gt(nunits, 1);

	char path[4096];
	size_t len_text;
	char *text = read_whole(corpus_path(path, sizeof path, "symbolic/linux/crash.sym"),
	                        &len_text);
	size_t publics = 0, found = 0, exact = 0, clone = 0, no_params = 0;
	for (char *p = text; (p = strstr(p, "\nPUBLIC ")) != NULL;) {
		char *q, name[4096];
		uint64_t addr = strtoull(p + 8, &q, 16);
		strtoull(q, &q, 16);
		p = strchr(q, '\n');
		snprintf(name, sizeof name, "%.*s", (int)(p ? p - q - 1 : (ptrdiff_t)strlen(q + 1)),
		         q + 1);
		if (!p)
			break;
		if (addr < 0x1900 || addr >= 0x1900 + 0x133a2)
			continue; /* .init, .plt: no DWARF */
		publics++;
		if (!sw_dwarf_lookup(d, 0x400000 + addr, &a, &in) || !in.function) {
			if (verbose())
				fprintf(stderr, "PUBLIC %llx %s: no DWARF function\n",
				        (unsigned long long)addr, name);
			continue;
		}
		size_t len = strlen(in.function);
		if (in.function_offset == 0x400000 + addr)
			found++;
		else if (verbose())
			fprintf(stderr, "PUBLIC %llx %s: inside dwarf %s @%llx\n",
			        (unsigned long long)addr, name, in.function,
			        (unsigned long long)in.function_offset);
		if (!strcmp(in.function, name))
			exact++;
		else if (!strncmp(in.function, name, len) && !strncmp(name + len, " [clone ", 8))
			clone++;
		else if (!strncmp(in.function, name, len) && name[len] == '(')
			no_params++;
		else if (verbose())
			fprintf(stderr, "PUBLIC %llx %s / dwarf %s\n", (unsigned long long)addr, name,
			        in.function);
	}
	double t3 = now();
	sw_dwarf_units_read(d, &nunits);
	fprintf(stderr,
	        "crash.debug: open %.2f ms, first lookup %.2f ms (1 of %zu units read); "
	        "%zu publics: %zu start a DWARF function, names %zu exact, %zu clone suffix, "
	        "%zu without parameters; all lookups %.2f ms, %zu units read\n",
	        (t1 - t0) * 1e3, (t2 - t1) * 1e3, nunits, publics, found, exact, clone, no_params,
	        (t3 - t0) * 1e3, sw_dwarf_units_read(d, NULL));
	/* The 7 without DWARF are the C runtime's (_start,
	 * deregister_tm_clones, register_tm_clones, __do_global_dtors_aux,
	 * frame_dummy, __libc_csu_init, __libc_csu_fini): no unit covers them. */
	ck_assert_uint_eq(found, publics - 7);
	ck_assert_uint_eq(exact + clone + no_params, found - 12);
	free(text);
	sw_arena_free(&a);
	sw_dwarf_free(d);
	elf_file_close(&ef);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("dwarf_lines");
	TCase *tc = tcase_create("oracle");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_dwarf_matches_dump_syms_for_crash_linux);
	tcase_add_test(tc, test_dwarf_matches_dump_syms_for_macos_dsym);
	tcase_add_test(tc, test_dwarf_inline_chain_in_unwind_test64);
	tcase_add_test(tc, test_dwarf_reads_32_bit_waiter);
	tcase_add_test(tc, test_dwarf_open_refuses_elf_without_debug_info);
	tcase_add_test(tc, test_dwarf_truncated_debug_info_is_an_error_not_a_crash);
	tcase_add_test(tc, test_dwarf_crash_debug_publics_and_laziness);
	suite_add_tcase(s, tc);
	return s;
}
