/* The symbol index cache (symbols/sym_index.h, docs/symbol-cache.md): an
 * indexed .sym answers every lookup as the parsed one does; a truncated,
 * flipped or stale index is noticed, answered around and rebuilt. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/breakpad_sym_internal.h"
#include "symbols/sym_index.h"

enum { NFUNCS = 3000, LINES_PER_FUNC = 4 };

static const char *debug_file = "synth.so";
static const char *debug_id = "0123456789ABCDEF0123456789ABCDEF0";

/* A .sym of a few hundred KiB (several 64 KiB blocks): FUNCs with line
 * records, PUBLICs between them, a CFI INIT and deltas per FUNC. */
static char *make_sym(size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	n += (size_t)sprintf(t + n, "MODULE Linux x86_64 %s %s\nFILE 0 a.c\nFILE 1 dir/b.c\n",
	                     debug_id, debug_file);
	for (int i = 0; i < NFUNCS; i++) {
		unsigned a = 0x1000 + (unsigned)i * 0x100;
		if (n + 512 > cap) {
			cap *= 2;
			t = realloc(t, cap);
			ck_assert_ptr_nonnull(t);
		}
		n += (size_t)sprintf(t + n, "FUNC %x 80 0 function_number_%d(int, char const*)\n", a, i);
		for (int l = 0; l < LINES_PER_FUNC; l++)
			n += (size_t)sprintf(t + n, "%x 20 %d %d\n", a + (unsigned)l * 0x20, 10 + l, l & 1);
		n += (size_t)sprintf(t + n, "PUBLIC %x 0 public_gap_%d\n", a + 0xc0, i);
	}
	for (int i = 0; i < NFUNCS; i++) {
		unsigned a = 0x1000 + (unsigned)i * 0x100;
		if (n + 512 > cap) {
			cap *= 2;
			t = realloc(t, cap);
			ck_assert_ptr_nonnull(t);
		}
		n += (size_t)sprintf(t + n,
		                     "STACK CFI INIT %x 80 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
		                     "STACK CFI %x .cfa: $rsp 16 + $rbx: .cfa -16 + ^\n",
		                     a, a + 1);
	}
	*len = n;
	return t;
}

struct fixture {
	char dir[64];               /* the test's folder: source and cache */
	char src[128], cache_dir[128];
	struct sw_sym_cache *cache;
	struct sw_bsym *parsed;     /* the reference */
};

static void write_file(const char *path, const char *text, size_t n, bool gz)
{
	if (gz) {
		gzFile g = gzopen(path, "wb9");
		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(gzwrite(g, text, (unsigned)n), (int)n);
		gzclose(g);
		return;
	}
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, n, f), n);
	fclose(f);
}

static void setup(struct fixture *fx, bool gz)
{
	snprintf(fx->dir, sizeof fx->dir, "/tmp/sw_symidx_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx->dir));
	snprintf(fx->src, sizeof fx->src, "%s/synth.so.sym%s", fx->dir, gz ? ".gz" : "");
	snprintf(fx->cache_dir, sizeof fx->cache_dir, "%s/cache", fx->dir);
	size_t n;
	char *text = make_sym(&n);
	write_file(fx->src, text, n, gz);
	free(text);
	struct sw_err err = {0};
	fx->cache = sw_sym_cache_create(fx->cache_dir, &err);
	ck_assert_ptr_nonnull(fx->cache);
	fx->parsed = sw_bsym_load_file(fx->src, &err);
	ck_assert_ptr_nonnull(fx->parsed);
	ck_assert(!sw_bsym_is_corrupt(fx->parsed));
}

static void teardown(struct fixture *fx)
{
	sw_bsym_free(fx->parsed);
	sw_sym_cache_free(fx->cache);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	ck_assert_int_eq(system(cmd), 0);
}

static struct sw_bsym *load(struct fixture *fx, struct sw_err *warn)
{
	struct sw_err err = {0};
	struct sw_bsym *b = sw_bsym_load_cached(fx->src, fx->cache, debug_file, debug_id, &err, warn);
	ck_assert_ptr_nonnull(b);
	return b;
}

/* The index file's path (the only .swidx in the cache; beside it its
 * .swidx.lock). */
static void index_file(const struct fixture *fx, char *out, size_t n)
{
	char d[256];
	snprintf(d, sizeof d, "%s/%s/%s", fx->cache_dir, debug_file, debug_id);
	DIR *dir = opendir(d);
	ck_assert_ptr_nonnull(dir);
	struct dirent *e;
	int found = 0;
	while ((e = readdir(dir))) {
		if (strstr(e->d_name, ".tmp."))
			ck_abort_msg("temporary file left: %s", e->d_name);
		size_t len = strlen(e->d_name);
		if (len > 6 && strcmp(e->d_name + len - 6, ".swidx") == 0) {
			snprintf(out, n, "%s/%s", d, e->d_name);
			found++;
		}
	}
	closedir(dir);
	ck_assert_int_eq(found, 1);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_lookup(struct sw_bsym *x, struct sw_bsym *y, uint64_t off, struct sw_arena *a)
{
	struct sw_sym_info p, q;
	bool fp = sw_bsym_ops.lookup(x, off, a, &p), fq = sw_bsym_ops.lookup(y, off, a, &q);
	if (fp != fq || sw_bsym_ops.has_function(x, off) != sw_bsym_ops.has_function(y, off))
		return false;
	if (!fp)
		return true;
	return same_str(p.function, q.function) && same_str(p.file, q.file) && p.line == q.line &&
	       p.function_offset == q.function_offset && p.function_size == q.function_size &&
	       p.is_public == q.is_public && p.param_size == q.param_size;
}

/* Every FUNC start, every line record, every gap (PUBLIC), and the CFI
 * record with its text at every INIT: the same through both. */
static void assert_same_answers(struct sw_bsym *ref, struct sw_bsym *b)
{
	struct sw_arena a;
	sw_arena_init(&a);
	for (int i = 0; i < NFUNCS; i++) {
		uint64_t base = 0x1000 + (uint64_t)i * 0x100;
		for (uint64_t off = base; off < base + 0x100; off += 0x10)
			ck_assert_msg(same_lookup(ref, b, off, &a), "lookup at %#llx differs",
			              (unsigned long long)off);
		/* CFI records: compared while the index is intact (once it
		 * failed, the unwinder answers from the parsed source). */
		ptrdiff_t r1 = bsym_find_cfi(ref, base + 2);
		ck_assert_int_ge(r1, 0);
		if (!b->idx || !sym_index_failed(b->idx)) {
			ptrdiff_t r2 = bsym_find_cfi(b, base + 2);
			if (!b->idx || !sym_index_failed(b->idx)) {
				ck_assert_int_eq(r1, r2);
				ck_assert_uint_eq(ref->cfi[r1].addr, b->cfi[r2].addr);
				ck_assert_uint_eq(ref->cfi[r1].size, b->cfi[r2].size);
				/* An index decodes these records: no text to read. */
				if (b->idx)
					ck_assert(b->cfi[r2].aux & BSYM_DECODED);
				else
					ck_assert_uint_eq(ref->cfi[r1].off, b->cfi[r2].off);
			}
		}
	}
	sw_arena_free(&a);
}

static void round_trip(bool gz)
{
	struct fixture fx;
	setup(&fx, gz);
	struct sw_err warn = {0};
	struct sw_bsym *cold = load(&fx, &warn);
	ck_assert_int_eq(warn.code, SW_OK);
	ck_assert(!sw_bsym_is_indexed(cold)); /* parsed, index being written */
	assert_same_answers(fx.parsed, cold);
	sw_bsym_free(cold); /* waits for the index */
	struct sw_bsym *warm = load(&fx, &warn);
	ck_assert_int_eq(warn.code, SW_OK);
	ck_assert(sw_bsym_is_indexed(warm));
	struct sw_bsym_module m1, m2;
	ck_assert(sw_bsym_module(fx.parsed, &m1) && sw_bsym_module(warm, &m2));
	ck_assert_int_eq(m1.id_len, m2.id_len);
	ck_assert(memcmp(m1.id, m2.id, m1.id_len) == 0 && m1.name_len == m2.name_len);
	assert_same_answers(fx.parsed, warm);
	ck_assert(sym_index_check_all(warm->idx));
	ck_assert_ptr_null(sw_bsym_warning(warm));
	sw_bsym_free(warm);
	teardown(&fx);
}

START_TEST(test_index_answers_like_parsed_plain_sym)
{
	round_trip(false);
}
END_TEST

START_TEST(test_index_answers_like_parsed_sym_gz)
{
	round_trip(true);
}
END_TEST

/* A .sym.gz's index keeps only the text read as text: the MODULE line,
 * PUBLIC lines and FILE names here (every FUNC and CFI record of
 * make_sym decodes), not the 300 KiB the FUNC and CFI lines take. */
START_TEST(test_sym_gz_index_keeps_only_the_text_read_as_text)
{
	struct fixture fx;
	setup(&fx, true);
	struct sw_err warn = {0};
	sw_bsym_free(load(&fx, &warn));
	struct sw_bsym *warm = load(&fx, &warn);
	ck_assert(sw_bsym_is_indexed(warm));
	const struct sw_bsym *p = fx.parsed;
	uint64_t want = strlen("MODULE Linux x86_64 ") + strlen(debug_id) + 1 + strlen(debug_file);
	for (size_t i = 0; i < p->npubs; i++)
		want += p->pubs[i].len;
	for (size_t i = 0; i < p->nfiles; i++)
		want += p->files[i].len;
	ck_assert_uint_eq(sym_index_text_len(warm->idx), want);
	ck_assert_uint_lt(want * 4, p->len);
	for (size_t i = 0; i < warm->nfuncs; i++)
		ck_assert(warm->funcs[i].flags & BSYM_DECODED);
	assert_same_answers(fx.parsed, warm);
	ck_assert(sym_index_check_all(warm->idx));
	sw_bsym_free(warm);
	teardown(&fx);
}
END_TEST

/* A record whose range lies outside the text or the decoded section can
 * only come from a forged or miswritten index (the blocks passed their
 * CRCs): it marks the index failed, so the question goes to the source,
 * instead of answering "nothing" from the index. */
START_TEST(test_record_outside_its_section_fails_the_index)
{
	struct fixture fx;
	setup(&fx, true);
	struct sw_err warn = {0};
	sw_bsym_free(load(&fx, &warn));
	for (int decoded = 0; decoded < 2; decoded++) {
		struct sw_bsym *warm = load(&fx, &warn);
		ck_assert(sw_bsym_is_indexed(warm) && !sym_index_failed(warm->idx));
		struct bsym_span sp;
		uint64_t size = warm->len;
		if (decoded)
			(void)sym_index_section(warm->idx, SYM_SEC_DECODED, &size);
		ck_assert(!(decoded ? bsym_blob_get : bsym_span_get)(warm, size - 1, 2, 0, &sp));
		ck_assert(sym_index_failed(warm->idx));
		sw_bsym_free(warm);
	}
	teardown(&fx);
}
END_TEST

static size_t file_size(const char *path)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	return (size_t)st.st_size;
}

static char *read_all(const char *path, size_t *n)
{
	*n = file_size(path);
	char *d = malloc(*n);
	FILE *f = fopen(path, "rb");
	ck_assert(d && f);
	ck_assert_uint_eq(fread(d, 1, *n, f), *n);
	fclose(f);
	return d;
}

START_TEST(test_truncated_index_is_rejected_and_rebuilt)
{
	struct fixture fx;
	setup(&fx, _i == 1);
	struct sw_err warn = {0};
	sw_bsym_free(load(&fx, &warn));
	char idx[512];
	index_file(&fx, idx, sizeof idx);
	size_t n;
	char *good = read_all(idx, &n);
	size_t cuts[] = {0, 1, 7, 100, 1000, 4095, 4096, 4097, 8192, n / 3, n / 2, n - 4097,
	                 n - 65536, n - 100, n - 1};
	for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
		if (cuts[k] >= n)
			continue;
		write_file(idx, good, cuts[k], false);
		struct sw_bsym *b = load(&fx, &warn);
		ck_assert_msg(warn.code != SW_OK, "cut at %zu not noticed", cuts[k]);
		ck_assert_msg(strstr(warn.msg, idx) != NULL, "warning does not name the index: %s",
		              warn.msg);
		ck_assert(!sw_bsym_is_indexed(b));
		assert_same_answers(fx.parsed, b);
		sw_bsym_free(b);
		ck_assert_uint_eq(file_size(idx), n); /* rebuilt whole */
	}
	free(good);
	teardown(&fx);
}
END_TEST

/* A byte flipped in each 64 KiB block of the index (and in the header):
 * noticed at open, or by the lookups that use the block (which then give
 * the parsed answers), or at the latest by a check of every block. */
START_TEST(test_flipped_byte_in_every_block_is_detected)
{
	struct fixture fx;
	setup(&fx, _i == 1);
	struct sw_err warn = {0};
	sw_bsym_free(load(&fx, &warn));
	char idx[512];
	index_file(&fx, idx, sizeof idx);
	size_t n;
	char *good = read_all(idx, &n);
	char *bad = malloc(n);
	ck_assert_ptr_nonnull(bad);
	for (size_t pos = 40; pos < n; pos += (pos < 65536 ? 4096 : 65536)) {
		memcpy(bad, good, n);
		bad[pos] ^= 0x10;
		write_file(idx, bad, n, false);
		struct sw_bsym *b = load(&fx, &warn);
		bool noticed = warn.code != SW_OK;
		assert_same_answers(fx.parsed, b);
		if (!noticed && sw_bsym_warning(b))
			noticed = strstr(sw_bsym_warning(b), idx) != NULL;
		if (!noticed && sw_bsym_is_indexed(b))
			noticed = !sym_index_check_all(b->idx);
		ck_assert_msg(noticed, "flip at %zu of %zu not noticed", pos, n);
		sw_bsym_free(b);
	}
	free(bad);
	free(good);
	teardown(&fx);
}
END_TEST

/* The key holds the source's identity: a source rewritten (same bytes,
 * another mtime and inode) makes its index stale, and it is rebuilt. */
START_TEST(test_key_changes_when_source_changes)
{
	struct fixture fx;
	setup(&fx, false);
	struct sw_err warn = {0};
	sw_bsym_free(load(&fx, &warn));
	struct sw_bsym *b = load(&fx, &warn);
	ck_assert(sw_bsym_is_indexed(b));
	sw_bsym_free(b);
	size_t n;
	char *text = read_all(fx.src, &n);
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s.new", fx.src);
	write_file(tmp, text, n, false);
	ck_assert_int_eq(rename(tmp, fx.src), 0);
	free(text);
	b = load(&fx, &warn);
	ck_assert(!sw_bsym_is_indexed(b));
	ck_assert(strstr(warn.msg, "stale") != NULL);
	sw_bsym_free(b);
	b = load(&fx, &warn); /* the rebuilt index */
	ck_assert_int_eq(warn.code, SW_OK);
	ck_assert(sw_bsym_is_indexed(b));
	assert_same_answers(fx.parsed, b);
	sw_bsym_free(b);
	teardown(&fx);
}
END_TEST

/* A cache that cannot be created: one warning, and the file is parsed. */
START_TEST(test_unwritable_cache_warns_and_parses)
{
	struct fixture fx;
	setup(&fx, false);
	struct sw_err err = {0}, warn = {0};
	char blocker[256];
	snprintf(blocker, sizeof blocker, "%s/file", fx.dir);
	write_file(blocker, "x", 1, false);
	char dir[300];
	snprintf(dir, sizeof dir, "%s/sub", blocker);
	struct sw_sym_cache *c = sw_sym_cache_create(dir, &err);
	struct sw_bsym *b = sw_bsym_load_cached(fx.src, c, debug_file, debug_id, &err, &warn);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_ne(warn.code, SW_OK);
	sw_bsym_free(b);
	b = sw_bsym_load_cached(fx.src, c, debug_file, debug_id, &err, &warn);
	ck_assert_int_eq(warn.code, SW_OK); /* said once */
	sw_bsym_free(b);
	sw_sym_cache_free(c);
	teardown(&fx);
}
END_TEST

/* A CFI INIT record's text is its line and the delta lines right after
 * it: it ends before the next INIT, a blank line, a line of another kind,
 * or "STACK  CFI" spelled otherwise (which the unwinder stops at too). */
START_TEST(test_cfi_record_text_ends_at_first_non_delta)
{
	static const char text[] =
		"MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 synth.so\n"
		"STACK CFI INIT 100 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"        /* 0: + 2 deltas */
		"STACK CFI 101 .cfa: $rsp 16 +\r\n"
		"STACK CFI 102 .cfa: $rsp 24 +\n"
		"STACK CFI INIT 200 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"        /* 1: + 1, blank */
		"STACK CFI 201 .cfa: $rsp 16 +\n"
		"\n"
		"STACK CFI 202 .cfa: $rsp 24 +\n"
		"STACK CFI INIT 300 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"        /* 2: other spelling */
		"STACK  CFI 301 .cfa: $rsp 16 +\n"
		"STACK CFI INIT 400 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"        /* 3: to the end */
		"STACK CFI 401 .cfa: $rsp 16 +";
	struct sw_err err = {0};
	struct sw_bsym *b = sw_bsym_parse(text, sizeof text - 1, "t.sym", &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->ncfi, 4);
	const char *ends[4] = {"$rsp 24 +\n", "$rsp 16 +\n\n", "+ ^\nSTACK  CFI", "$rsp 16 +"};
	for (size_t i = 0; i < 4; i++) {
		const char *want = strstr(text + b->cfi[i].off, ends[i]);
		ck_assert_ptr_nonnull(want);
		size_t tail = strcspn(ends[i], "\n"); /* the record ends before that newline */
		ck_assert_uint_eq(b->cfi[i].len, (size_t)(want + tail - (text + b->cfi[i].off)));
	}
	sw_bsym_free(b);
}
END_TEST

/* Line records of the usual shape are read by a one-pass path, the others
 * by the general one; both judge them as Breakpad does (a CR, more than 16
 * digits, two spaces, text after the file id: valid; a negative line: bad). */
START_TEST(test_line_records_of_every_shape_are_read_alike)
{
	static const char text[] =
		"MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 synth.so\n"
		"FILE 0 a.c\n"
		"FUNC 1000 70 0 f\n"
		"1000 10 5 0\n"
		"1010 10 6 0\r\n"
		"0000000000000000001020 10 7 0\n"
		"1030 10 -1 0\n"
		"1040 10 8 0 more\n"
		"1050  10 9 0\n"
		"1060 10 10 0";
	const int want[] = {5, 6, 7, 0, 8, 9, 10};
	struct sw_err err = {0};
	struct sw_bsym *b = sw_bsym_parse(text, sizeof text - 1, "t.sym", &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(sw_bsym_error_count(b), 1);
	ck_assert_uint_eq(b->nfuncs, 1);
	ck_assert_uint_eq(b->funcs[0].end, sizeof text - 1);
	struct sw_arena a;
	sw_arena_init(&a);
	for (int i = 0; i < 7; i++) {
		struct sw_sym_info info;
		ck_assert(sw_bsym_ops.lookup(b, 0x1000 + 0x10 * (uint64_t)i, &a, &info));
		ck_assert_int_eq((int)info.line, want[i]);
	}
	sw_arena_free(&a);
	sw_bsym_free(b);
}
END_TEST

/* Line records whose fields have every length from 1 digit to the most
 * (16 hex, 9 decimal; leading zeros keep the values), upper- and lower-case
 * hex: the index decodes them (plain_line_fields) to the line and file the
 * parsed text gives (parse_line_fields). */
START_TEST(test_line_fields_of_every_length_decode_alike)
{
	size_t cap = 1 << 20, n = 0;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	n += (size_t)sprintf(t + n, "MODULE Linux x86_64 %s %s\nFILE 1 a.c\nFILE 12 b.c\n",
	                     debug_id, debug_file);
	unsigned nf = 0;
	for (int h = 1; h <= 16; h++) {
		for (int d = 1; d <= 9; d++, nf++) {
			unsigned base = 0x10000 + nf * 0x100;
			n += (size_t)sprintf(t + n, "FUNC %x 100 0 f%u\n", base, nf);
			for (unsigned l = 0; l < 4; l++) {
				unsigned addr = base + l * 0x40;
				/* addr in h digits (at least its own 5), size 0x40 in
				 * h digits, upper case every other line */
				int ha = h < 5 ? 5 : h;
				unsigned line = d >= 7 ? 1234567u + l : (unsigned)(l + 1) * 3u;
				n += (size_t)sprintf(t + n, l & 1 ? "%0*X %0*X %0*u %0*u\n" : "%0*x %0*x %0*u %0*u\n",
				                     ha, addr, h < 2 ? 2 : h, 0x40u, d, line % (d >= 7 ? 100000000u : 1000u),
				                     d < 2 ? 2 : d, l & 1 ? 12u : 1u);
			}
		}
	}
	ck_assert_uint_lt(n, cap);
	char dir[] = "/tmp/sw_linefields_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char src[128], cdir[128];
	snprintf(src, sizeof src, "%s/synth.so.sym.gz", dir);
	snprintf(cdir, sizeof cdir, "%s/cache", dir);
	write_file(src, t, n, true);
	struct sw_err err = {0}, warn = {0};
	struct sw_sym_cache *cache = sw_sym_cache_create(cdir, &err);
	ck_assert_ptr_nonnull(cache);
	struct sw_bsym *ref = sw_bsym_parse(t, n, "t.sym", &err);
	ck_assert_ptr_nonnull(ref);
	ck_assert_uint_eq(sw_bsym_error_count(ref), 0);
	sw_bsym_free(sw_bsym_load_cached(src, cache, debug_file, debug_id, &err, &warn));
	struct sw_bsym *warm = sw_bsym_load_cached(src, cache, debug_file, debug_id, &err, &warn);
	ck_assert(sw_bsym_is_indexed(warm));
	for (size_t i = 0; i < warm->nfuncs; i++)
		ck_assert(warm->funcs[i].flags & BSYM_DECODED);
	struct sw_arena a;
	sw_arena_init(&a);
	for (unsigned f = 0; f < nf; f++)
		for (unsigned off = 0; off < 0x100; off += 0x20) {
			uint64_t x = 0x10000 + f * 0x100 + off;
			struct sw_sym_info i1, i2;
			ck_assert(sw_bsym_ops.lookup(ref, x, &a, &i1));
			ck_assert(sw_bsym_ops.lookup(warm, x, &a, &i2));
			ck_assert_uint_eq(i1.line, i2.line);
			ck_assert_str_eq(i1.file, i2.file);
			ck_assert_uint_gt(i1.line, 0);
		}
	ck_assert(!sym_index_failed(warm->idx));
	sw_arena_free(&a);
	sw_bsym_free(warm);
	sw_bsym_free(ref);
	sw_sym_cache_free(cache);
	free(t);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Writing an index removes the temporary files killed writers left in its
 * directory (older than an hour), and only those. */
START_TEST(test_stale_temporary_files_are_removed)
{
	struct fixture fx;
	setup(&fx, false);
	struct sw_err warn = {0};
	sw_bsym_free(load(&fx, &warn));
	char idx[512], old_tmp[600], new_tmp[600];
	index_file(&fx, idx, sizeof idx);
	snprintf(old_tmp, sizeof old_tmp, "%s.tmp.1.0.0", idx);
	snprintf(new_tmp, sizeof new_tmp, "%s.tmp.2.0.0", idx);
	write_file(old_tmp, "x", 1, false);
	write_file(new_tmp, "x", 1, false);
	struct timespec two_hours_ago[2] = {{.tv_sec = time(NULL) - 7200},
	                                    {.tv_sec = time(NULL) - 7200}};
	ck_assert_int_eq(utimensat(AT_FDCWD, old_tmp, two_hours_ago, 0), 0);
	ck_assert_int_eq(unlink(idx), 0);
	sw_bsym_free(load(&fx, &warn)); /* writes the index again */
	ck_assert_int_eq(access(idx, F_OK), 0);
	ck_assert_int_ne(access(old_tmp, F_OK), 0);
	ck_assert_int_eq(access(new_tmp, F_OK), 0);
	teardown(&fx);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("sym_index");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_index_answers_like_parsed_plain_sym);
	tcase_add_test(tc, test_index_answers_like_parsed_sym_gz);
	tcase_add_test(tc, test_sym_gz_index_keeps_only_the_text_read_as_text);
	tcase_add_test(tc, test_record_outside_its_section_fails_the_index);
	tcase_add_test(tc, test_line_fields_of_every_length_decode_alike);
	tcase_add_loop_test(tc, test_truncated_index_is_rejected_and_rebuilt, 0, 2);
	tcase_add_loop_test(tc, test_flipped_byte_in_every_block_is_detected, 0, 2);
	tcase_add_test(tc, test_key_changes_when_source_changes);
	tcase_add_test(tc, test_unwritable_cache_warns_and_parses);
	tcase_add_test(tc, test_cfi_record_text_ends_at_first_non_delta);
	tcase_add_test(tc, test_stale_temporary_files_are_removed);
	tcase_add_test(tc, test_line_records_of_every_shape_are_read_alike);
	suite_add_tcase(s, tc);
	return s;
}
