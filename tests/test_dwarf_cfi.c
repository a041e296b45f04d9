/* DWARF CFI: CIE/FDE parsing, pointer encodings, .eh_frame_hdr and the
 * built index, the CFA instruction interpreter and the rules' evaluation;
 * and, on the corpus's real ELF files, every row of binutils' readelf
 * --debug-dump=frames-interp table against our rules at that pc. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfi_oracle.h"
#include "symbols/dwarf_cfi.h"
#include "symbols/dwarf_cfi_internal.h"
#include "testutil.h"

/* ---- Real data: readelf's table, row by row. */

static const char *const oracle_files[] = {
	"libunwindstack/apk_soname_at_end_arm64/libc.so.gz",
	"libunwindstack/apk_soname_at_end_arm64/unwinder.gz",
	"libunwindstack/bad_eh_frame_hdr_arm64/libc.so.gz",
	"libunwindstack/bad_eh_frame_hdr_arm64/waiter64.gz",
	"libunwindstack/common/libandroid_runtime.so_7d88088666db374aecde2fbe51bff2f4.gz",
	"libunwindstack/common/libart.so_82c0556f4b66528e4a608c100a63b712.gz",
	"libunwindstack/common/libbluetooth.so_41de80f38623dac3c221b849566fb858.gz",
	"libunwindstack/common/libc.so_3106fb6eab1b2dc6704157e908a50eba.gz",
	"libunwindstack/common/libc.so_f3791c53da47e6e72151dcc8088b9048.gz",
	"libunwindstack/common/libutils.so_b8aa8db7e6895d0ba92398ca5d3ed2d4.gz",
	"libunwindstack/debug_frame_first_x86/waiter.gz",
	"libunwindstack/debug_frame_load_bias_arm/libbinder.so.gz",
	"libunwindstack/debug_frame_load_bias_arm/libc.so.gz",
	"libunwindstack/eh_frame_bias_x86/libc.so.gz",
	"libunwindstack/eh_frame_bias_x86/tombstoned.gz",
	"libunwindstack/eh_frame_bias_x86/vdso.so.gz",
	"libunwindstack/eh_frame_hdr_begin_x86_64/unwind_test64.gz",
	"libunwindstack/empty_arm64/libbinder.so.gz",
	"libunwindstack/empty_arm64/libc.so.gz",
	"libunwindstack/empty_arm64/netd.gz",
	"libunwindstack/load_bias_different_section_bias_arm64/libc.so.gz",
	"libunwindstack/load_bias_different_section_bias_arm64/linker64.gz",
	"libunwindstack/load_bias_different_section_bias_arm64/test.gz",
	"libunwindstack/load_bias_different_section_bias_arm64/vdso.gz",
	"libunwindstack/offset_arm/libc.so.gz",
	"libunwindstack/pauth_pc_arm64/libc.so.gz",
	"libunwindstack/pauth_pc_arm64/toybox.gz",
	"libunwindstack/signal_fde_x86/libc.so.gz",
	"libunwindstack/signal_fde_x86/libunwindstack_test.gz",
	"libunwindstack/signal_fde_x86_64/libc.so.gz",
	"libunwindstack/signal_fde_x86_64/libunwindstack_test.gz",
	"libunwindstack/signal_load_bias_arm/libc.so.gz",
	"libunwindstack/straddle_arm/libc.so.gz",
	"libunwindstack/straddle_arm64/libunwindstack_test.gz",
	"libunwindstack/vlenb_riscv64/libc.so.gz",
	"libunwindstack/vlenb_riscv64/libunwindstack_unit_test.gz",
	"libunwindstack/youtube_compiled_arm64/libbinder.so.gz",
	"libunwindstack/youtube_compiled_arm64/libcodec2_client.so.gz",
	"libunwindstack/youtube_compiled_arm64/libgui.so.gz",
	"libunwindstack/youtube_compiled_arm64/libsfplugin_ccodec.so.gz",
	"libunwindstack/youtube_compiled_arm64/libstagefright.so.gz",
	"libunwindstack/youtube_compiled_arm64/libstagefright_foundation.so.gz",
	"libunwindstack/zlib_compress_arm/crasher.gz",
	"libunwindstack/zlib_compress_arm/libc.so.gz",
	"libunwindstack/zlib_compress_arm/linker.gz",
	"symbolic/linux/crash",
};

/* Check's ck_assert records its location on every call (a write per
 * assertion in fork mode): at a million comparisons that dominates the
 * run. These only call into Check on failure. */
#define EXPECT(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

enum { ORACLE_ROWS = 25000 };

struct oracle_counts {
	size_t rows, fde_mismatch, cie_rows, lookups;
};

/* Compares our rules with one readelf row. */
static void check_row(const struct oracle_elf *o, const char *file, const struct oracle_table *t,
                      const struct oracle_fde *f, const struct oracle_row *row,
                      const struct sw_cfi_rules *r)
{
	long ra = (long)r->ra_column;
	EXPECT(f->ra < 0 || f->ra == ra, "%s fde %llx: ra %ld, readelf %ld", file,
	              (unsigned long long)f->offset, ra, f->ra);
	EXPECT(oracle_cfa_matches(o->machine, ra, row->cfa, &r->row.cfa),
	              "%s fde %llx loc %llx: CFA %s, ours kind %d reg %llu off %lld", file,
	              (unsigned long long)f->offset, (unsigned long long)row->loc, row->cfa,
	              r->row.cfa.kind, (unsigned long long)r->row.cfa.reg,
	              (long long)r->row.cfa.offset);
	bool listed[SW_CFI_MAX_COLUMNS] = { false };
	for (int i = 0; i < row->ncols; i++) {
		const struct oracle_cell *cell = &t->cells[row->first_cell + (size_t)i];
		long col = cell->col;
		if (col < 0 || col >= SW_CFI_MAX_COLUMNS)
			continue;
		listed[col] = true;
		const struct sw_cfi_rule *rule = &r->row.col[col];
		EXPECT(oracle_rule_matches(o->machine, ra, cell->val, rule),
		              "%s fde %llx loc %llx col %ld: readelf %s, ours kind %d val %lld", file,
		              (unsigned long long)f->offset, (unsigned long long)row->loc, col,
		              cell->val, rule->kind, (long long)rule->u.offset);
	}
	for (int col = 0; col < SW_CFI_MAX_COLUMNS; col++)
		EXPECT(listed[col] || r->row.col[col].kind == SW_RULE_UNSET ||
		                  r->row.col[col].kind == SW_RULE_UNDEFINED,
		              "%s fde %llx loc %llx: col %d has a rule readelf does not list", file,
		              (unsigned long long)f->offset, (unsigned long long)row->loc, col);
}

/* Which FDEs share addresses with another FDE of the section (readelf
 * lists them all; a lookup answers one). .debug_frame in shared objects
 * may hold FDEs never relocated, all starting at 0. */
static const struct oracle_table *sort_table;

static int fde_index_cmp(const void *a, const void *b)
{
	const struct oracle_fde *x = &sort_table->fdes[*(const size_t *)a];
	const struct oracle_fde *y = &sort_table->fdes[*(const size_t *)b];
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static bool *oracle_overlaps(const struct oracle_table *t, bool is_eh)
{
	bool *ov = calloc(t->nfdes + 1, sizeof *ov);
	size_t *ix = malloc((t->nfdes + 1) * sizeof *ix);
	size_t n = 0;
	for (size_t i = 0; i < t->nfdes; i++)
		if (t->fdes[i].is_eh == is_eh && t->fdes[i].end > t->fdes[i].begin)
			ix[n++] = i;
	sort_table = t;
	qsort(ix, n, sizeof *ix, fde_index_cmp);
	size_t widest = 0;
	for (size_t k = 0; k < n; k++) {
		const struct oracle_fde *f = &t->fdes[ix[k]];
		if (k > 0 && f->begin < t->fdes[ix[widest]].end) {
			ov[ix[k]] = true;
			ov[ix[widest]] = true;
		}
		if (k == 0 || f->end > t->fdes[ix[widest]].end)
			widest = k;
	}
	free(ix);
	return ov;
}

static void check_section(const struct oracle_elf *o, const char *file, const struct oracle_table *t,
                          bool is_eh, const struct oracle_sec *sec, const struct oracle_sec *hdr,
                          struct oracle_counts *n)
{
	struct sw_cfi_params p = { .address_size = o->address_size, .big_endian = o->big_endian,
	                           .machine = o->machine };
	struct sw_cfi_section s = { sec->data, sec->size, sec->vaddr };
	struct sw_cfi_section h = { hdr ? hdr->data : NULL, hdr ? hdr->size : 0,
	                            hdr ? hdr->vaddr : 0 };
	struct sw_cfi *c = sw_cfi_create(&s, is_eh, hdr ? &h : NULL, &p);
	ck_assert_ptr_nonnull(c);
	/* The same section without its hdr: the built index. */
	struct sw_cfi *idx = hdr && sw_cfi_uses_hdr(c) ? sw_cfi_create(&s, is_eh, NULL, &p) : NULL;
	struct sw_cfi_rules *r = malloc(sizeof *r);
	bool *overlaps = oracle_overlaps(t, is_eh);
	/* A deterministic sample of the biggest files (140,000 rows in
	 * signal_fde_x86's test binary): about ORACLE_ROWS rows each, so
	 * that the suite stays fast under sanitizers. */
	size_t stride = t->nrows / ORACLE_ROWS + 1, seen = 0;
	for (size_t fi = 0; fi < t->nfdes; fi++) {
		const struct oracle_fde *f = &t->fdes[fi];
		if (f->is_eh != is_eh || f->end <= f->begin)
			continue;
		const struct oracle_row *cie_row = NULL;
		size_t nrows = f->nrows;
		if (nrows == 0) {
			/* No instructions: the CIE's row holds over the range. */
			cie_row = oracle_cie_row(t, f);
			if (!cie_row)
				continue;
			nrows = 1;
		}
		for (size_t k = 0; k < nrows; k++) {
			struct oracle_row row = cie_row ? *cie_row : t->rows[f->first_row + k];
			if (cie_row) {
				row.loc = f->begin;
				n->cie_rows++;
			}
			if (row.loc < f->begin || row.loc >= f->end)
				continue;
			/* An advance by zero prints a row for an empty range. */
			if (!cie_row && k + 1 < nrows && t->rows[f->first_row + k + 1].loc == row.loc)
				continue;
			if (seen++ % stride != 0)
				continue;
			enum sw_cfi_status st = sw_cfi_rules_at(c, row.loc, r);
			EXPECT(st == SW_CFI_OK || (st == SW_CFI_NO_RULE && overlaps[fi]),
			       "%s fde %llx loc %llx: status %d", file,
			       (unsigned long long)f->offset, (unsigned long long)row.loc, st);
			if (st != SW_CFI_OK || r->fde.offset != f->offset) {
				/* Overlapping FDEs: the one readelf lists here is
				 * not the one a lookup answers; compare its rules. */
				n->fde_mismatch++;
				struct sw_cfi_fde fde;
				struct sw_cfi_cie cie;
				EXPECT(sw_cfi_parse_fde(c, f->offset, &fde, &cie), "%s", "sw_cfi_parse_fde(c, f->offset, &fde, &cie)");
				EXPECT(sw_cfi_run_program(c, &fde, &cie, row.loc, r) == SW_CFI_OK, "run");
			}
			check_row(o, file, t, f, &row, r);
			n->rows++;
			if (idx) {
				struct sw_cfi_fde a, b;
				struct sw_cfi_cie ca, cb;
				EXPECT(sw_cfi_find_fde(c, row.loc, &a, &ca), "%s", "sw_cfi_find_fde(c, row.loc, &a, &ca)");
				EXPECT(sw_cfi_find_fde(idx, row.loc, &b, &cb), "%s", "sw_cfi_find_fde(idx, row.loc, &b, &cb)");
				EXPECT(a.offset == b.offset, "%s loc %llx: hdr fde %llx, index %llx",
				              file, (unsigned long long)row.loc,
				              (unsigned long long)a.offset, (unsigned long long)b.offset);
				n->lookups++;
			}
		}
	}
	free(r);
	free(overlaps);
	sw_cfi_free(idx);
	sw_cfi_free(c);
}

START_TEST(test_cfi_rules_match_readelf_on_real_files)
{
	const char *rel = oracle_files[_i];
	char path[1024];
	corpus_path(path, sizeof path, rel);
	size_t len;
	size_t rl = strlen(rel);
	uint8_t *bytes = rl > 3 && strcmp(rel + rl - 3, ".gz") == 0 ? oracle_inflate(path, &len)
	                                                            : oracle_read_file(path, &len);
	ck_assert_msg(bytes != NULL, "cannot read %s", path);
	/* readelf first: libelf may rewrite the image in place (inflating
	 * a compressed section updates its header). */
	GElf_Ehdr eh;
	elf_version(EV_CURRENT);
	Elf *pre = elf_memory((char *)bytes, len);
	ck_assert(pre && gelf_getehdr(pre, &eh));
	elf_end(pre);
	struct oracle_table t;
	ck_assert(oracle_readelf(bytes, len, eh.e_machine, &t));
	struct oracle_elf o;
	ck_assert_msg(oracle_open(&o, bytes, len), "%s: not an ELF", rel);
	struct oracle_counts n = { 0 };
	if (o.eh_frame.present)
		check_section(&o, rel, &t, true, &o.eh_frame,
		              o.eh_frame_hdr.present ? &o.eh_frame_hdr : NULL, &n);
	if (o.debug_frame.present)
		check_section(&o, rel, &t, false, &o.debug_frame, NULL, &n);
	fprintf(stderr, "%s: %zu readelf rows compared (%zu from CIEs), %zu hdr/index lookups, "
	        "%zu overlapping\n", rel, n.rows, n.cie_rows, n.lookups, n.fde_mismatch);
	ck_assert_uint_gt(n.rows, 0);
	oracle_table_free(&t);
	oracle_close(&o);
}
END_TEST

/* ---- Hand-built sections. */

struct buf {
	uint8_t b[8192];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	ck_assert_uint_le(b->n + n, sizeof b->b);
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put_u8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put_le(struct buf *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put_u8(b, (uint8_t)(v >> (8 * i)));
}

static void put_uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t x = v & 0x7f;
		v >>= 7;
		put_u8(b, x | (v ? 0x80 : 0));
	} while (v);
}

static void put_sleb(struct buf *b, int64_t v)
{
	for (;;) {
		uint8_t x = v & 0x7f;
		v >>= 7;
		bool done = (v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40));
		put_u8(b, x | (done ? 0 : 0x80));
		if (done)
			break;
	}
}

static void patch_u32(struct buf *b, size_t at, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * i));
}

#define BYTES(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

/* An .eh_frame CIE: version 1, augmentation `aug` with its data, code
 * alignment 1, data alignment -8, return address column ra. */
static size_t eh_cie(struct buf *b, const char *aug, const uint8_t *augdata, size_t alen,
                     uint8_t ra, const uint8_t *ins, size_t n)
{
	size_t at = b->n;
	put_le(b, 0, 4);
	put_le(b, 0, 4); /* CIE id */
	put_u8(b, 1);
	put(b, aug, strlen(aug) + 1);
	put_uleb(b, 1);
	put_sleb(b, -8);
	put_u8(b, ra);
	if (aug[0] == 'z') {
		put_uleb(b, alen);
		put(b, augdata, alen);
	}
	put(b, ins, n);
	while ((b->n - at) % 4)
		put_u8(b, 0);
	patch_u32(b, at, (uint32_t)(b->n - at - 4));
	return at;
}

/* An FDE of a "zR" CIE with DW_EH_PE_pcrel|sdata4 in a section at vaddr. */
static size_t eh_fde(struct buf *b, size_t cie, uint64_t vaddr, uint64_t begin, uint32_t range,
                     const uint8_t *ins, size_t n)
{
	size_t at = b->n;
	put_le(b, 0, 4);
	put_le(b, b->n - cie, 4);
	put_le(b, (uint32_t)(begin - (vaddr + b->n)), 4);
	put_le(b, range, 4);
	put_uleb(b, 0);
	put(b, ins, n);
	while ((b->n - at) % 4)
		put_u8(b, 0);
	patch_u32(b, at, (uint32_t)(b->n - at - 4));
	return at;
}

static const struct sw_cfi_params x86_64_params = { .address_size = 8, .machine = 62 };

static struct sw_cfi *create_eh(const struct buf *b, uint64_t vaddr,
                                const struct sw_cfi_params *p)
{
	struct sw_cfi_section s = { b->b, b->n, vaddr };
	return sw_cfi_create(&s, true, NULL, p);
}

/* A typical x86-64 CIE: CFA = rsp+8, ra at CFA-8. */
static size_t x86_64_cie(struct buf *b)
{
	return eh_cie(b, "zR", BYTES(0x1b), 16, BYTES(0x0c, 7, 8, 0x90, 1));
}

START_TEST(test_cfi_runs_cie_then_fde_up_to_the_pc)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	/* push rbp; mov rbp, rsp; ...: advance 1, cfa+16, rbp at cfa-16,
	 * advance 3, cfa = rbp. */
	eh_fde(&b, cie, 0x2000, 0x1000, 0x40,
	       BYTES(0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6));
	struct sw_cfi *c = create_eh(&b, 0x2000, &x86_64_params);
	ck_assert_ptr_nonnull(c);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.kind, SW_CFA_REG_OFFSET);
	ck_assert_uint_eq(r.row.cfa.reg, 7);
	ck_assert_int_eq(r.row.cfa.offset, 8);
	ck_assert_int_eq(r.row.col[16].kind, SW_RULE_OFFSET);
	ck_assert_int_eq(r.row.col[16].u.offset, -8);
	ck_assert_int_eq(r.row.col[6].kind, SW_RULE_UNSET);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1001, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 16);
	ck_assert_int_eq(r.row.col[6].kind, SW_RULE_OFFSET);
	ck_assert_int_eq(r.row.col[6].u.offset, -16);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1003, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.row.cfa.reg, 7);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1004, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.row.cfa.reg, 6);
	ck_assert_int_eq(r.row.cfa.offset, 16);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x103f, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.ra_column, 16);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_fde_covers_its_start_but_not_its_end)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	eh_fde(&b, cie, 0, 0x1000, 0x10, BYTES(0));
	eh_fde(&b, cie, 0, 0x1020, 0x10, BYTES(0));
	put_le(&b, 0, 4); /* terminator */
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	ck_assert(!sw_cfi_covers(c, 0xfff));
	ck_assert(sw_cfi_covers(c, 0x1000));
	ck_assert(sw_cfi_covers(c, 0x100f));
	ck_assert(!sw_cfi_covers(c, 0x1010));
	ck_assert(!sw_cfi_covers(c, 0x101f));
	ck_assert(sw_cfi_covers(c, 0x1020));
	ck_assert(!sw_cfi_covers(c, 0x1030));
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1010, NULL, &out), SW_CFI_NO_RULE);
	sw_cfi_free(c);
}
END_TEST

/* The pointer encodings, one value each, read through sw_pe_read. */
START_TEST(test_cfi_pointer_encodings)
{
	struct sw_pe_bases bases = { .section_vaddr = 0x1000, .datarel = 0x5000, .has_datarel = true,
	                             .funcrel = 0x7000, .has_funcrel = true, .address_size = 8 };
	struct {
		uint8_t enc;
		uint8_t bytes[12];
		size_t n;
		uint64_t want;
		bool ok;
	} cases[] = {
		{ 0x00, { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, 0x0807060504030201, true },
		{ 0x01, { 0xe5, 0x8e, 0x26 }, 3, 624485, true },
		{ 0x02, { 0x34, 0x12 }, 2, 0x1234, true },
		{ 0x03, { 0x78, 0x56, 0x34, 0x12 }, 4, 0x12345678, true },
		{ 0x04, { 1, 0, 0, 0, 0, 0, 0, 0x80 }, 8, 0x8000000000000001, true },
		{ 0x09, { 0x7f }, 1, UINT64_MAX, true },
		{ 0x0a, { 0xfe, 0xff }, 2, (uint64_t)-2, true },
		{ 0x0b, { 0xfc, 0xff, 0xff, 0xff }, 4, (uint64_t)-4, true },
		{ 0x0c, { 0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 8, (uint64_t)-8, true },
		/* pcrel: the field's own address (0x1000) plus the value */
		{ 0x1b, { 0x10, 0, 0, 0 }, 4, 0x1010, true },
		{ 0x1b, { 0xf0, 0xff, 0xff, 0xff }, 4, 0xff0, true },
		{ 0x3b, { 0x10, 0, 0, 0 }, 4, 0x5010, true },
		{ 0x42, { 0x10, 0 }, 2, 0x7010, true },
		{ 0x23, { 0, 0, 0, 0 }, 4, 0, false },    /* textrel: no base */
		{ 0x9b, { 0, 0, 0, 0 }, 4, 0, false },    /* indirect */
		{ 0x05, { 0 }, 1, 0, false },             /* unknown format */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sw_span s = { cases[i].bytes, cases[i].n, 0, false };
		struct sw_dcur d = { s, 0, false };
		uint64_t v = 0;
		bool ok = sw_pe_read(&d, cases[i].enc, &bases, &v);
		ck_assert_msg(ok == cases[i].ok, "case %zu", i);
		if (ok) {
			ck_assert_msg(v == cases[i].want, "case %zu: %llx", i, (unsigned long long)v);
			ck_assert_uint_eq(d.pos, cases[i].n);
		}
	}
	/* aligned: skips to the next 8-byte address, then an absolute pointer. */
	uint8_t al[16] = { 0xaa, 0, 0, 0, 0, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0 };
	struct sw_dcur d = { { al, sizeof al, 0, false }, 1, false };
	uint64_t v;
	bases.section_vaddr = 0x2000;
	ck_assert(sw_pe_read(&d, 0x50, &bases, &v));
	ck_assert_uint_eq(v, 0x11223344);
	ck_assert_uint_eq(d.pos, 16);
	/* 32-bit targets wrap. */
	bases.address_size = 4;
	uint8_t neg[4] = { 0xf0, 0xff, 0xff, 0xff };
	struct sw_dcur d4 = { { neg, 4, 0, false }, 0, false };
	bases.section_vaddr = 0x1000;
	ck_assert(sw_pe_read(&d4, 0x1b, &bases, &v));
	ck_assert_uint_eq(v, 0xff0);
	/* Truncated values fail. */
	struct sw_dcur dt = { { neg, 3, 0, false }, 0, false };
	ck_assert(!sw_pe_read(&dt, 0x03, &bases, &v));
}
END_TEST

START_TEST(test_cfi_fde_encodings_udata8_and_absptr)
{
	/* "zR" with DW_EH_PE_udata8 (absolute, 8 bytes each). */
	struct buf b = { .n = 0 };
	size_t cie = eh_cie(&b, "zR", BYTES(0x04), 16, BYTES(0x0c, 7, 8));
	size_t at = b.n;
	put_le(&b, 0, 4);
	put_le(&b, b.n - cie, 4);
	put_le(&b, 0x400000, 8);
	put_le(&b, 0x100, 8);
	put_uleb(&b, 0);
	patch_u32(&b, at, (uint32_t)(b.n - at - 4));
	/* A CIE without augmentation: absptr FDE pointers. */
	size_t cie2 = eh_cie(&b, "", NULL, 0, 16, BYTES(0x0c, 7, 16));
	at = b.n;
	put_le(&b, 0, 4);
	put_le(&b, b.n - cie2, 4);
	put_le(&b, 0x500000, 8);
	put_le(&b, 0x10, 8);
	patch_u32(&b, at, (uint32_t)(b.n - at - 4));
	struct sw_cfi *c = create_eh(&b, 0x9000, &x86_64_params);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x4000ff, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 8);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x500000, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 16);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x400100, &r), SW_CFI_NO_RULE);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_augmentation_personality_lsda_signal)
{
	/* "zPLRS": personality pcrel|sdata4|indirect (skipped), LSDA
	 * encoding, FDE encoding, signal frame. */
	struct buf b = { .n = 0 };
	size_t cie = eh_cie(&b, "zPLRS", BYTES(0x9b, 0x11, 0x22, 0x33, 0x44, 0x1b, 0x1b), 16,
	                    BYTES(0x0c, 7, 8, 0x90, 1));
	size_t at = b.n;
	put_le(&b, 0, 4);
	put_le(&b, b.n - cie, 4);
	put_le(&b, (uint32_t)(0x1000 - b.n), 4);
	put_le(&b, 0x20, 4);
	put_uleb(&b, 4);
	put_le(&b, 0, 4); /* LSDA pointer */
	put(&b, BYTES(0x41, 0x0e, 32));
	patch_u32(&b, at, (uint32_t)(b.n - at - 4));
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1001, &r), SW_CFI_OK);
	ck_assert(r.signal_frame);
	ck_assert(r.cie.has_z);
	ck_assert_uint_eq(r.cie.lsda_enc, 0x1b);
	ck_assert_int_eq(r.row.cfa.offset, 32);
	sw_cfi_free(c);
}
END_TEST

/* .debug_frame: CIE id 0xffffffff, the CIE pointer a section offset. */
static size_t df_cie(struct buf *b, uint8_t version, bool is64, uint8_t ra, const uint8_t *ins,
                     size_t n)
{
	size_t at = b->n;
	if (is64) {
		put_le(b, 0xffffffff, 4);
		put_le(b, 0, 8);
		put_le(b, UINT64_MAX, 8);
	} else {
		put_le(b, 0, 4);
		put_le(b, 0xffffffff, 4);
	}
	put_u8(b, version);
	put_u8(b, 0); /* augmentation "" */
	if (version == 4) {
		put_u8(b, 8);
		put_u8(b, 0);
	}
	put_uleb(b, 4);  /* code alignment 4 (arm64) */
	put_sleb(b, -8);
	if (version == 1)
		put_u8(b, ra);
	else
		put_uleb(b, ra);
	put(b, ins, n);
	if (is64) {
		uint64_t len = b->n - at - 12;
		for (unsigned i = 0; i < 8; i++)
			b->b[at + 4 + i] = (uint8_t)(len >> (8 * i));
	} else {
		patch_u32(b, at, (uint32_t)(b->n - at - 4));
	}
	return at;
}

static void df_fde(struct buf *b, size_t cie, bool is64, uint64_t begin, uint64_t range,
                   const uint8_t *ins, size_t n)
{
	size_t at = b->n;
	if (is64) {
		put_le(b, 0xffffffff, 4);
		put_le(b, 0, 8);
		put_le(b, cie, 8);
	} else {
		put_le(b, 0, 4);
		put_le(b, cie, 4);
	}
	put_le(b, begin, 8);
	put_le(b, range, 8);
	put(b, ins, n);
	if (is64) {
		uint64_t len = b->n - at - 12;
		for (unsigned i = 0; i < 8; i++)
			b->b[at + 4 + i] = (uint8_t)(len >> (8 * i));
	} else {
		patch_u32(b, at, (uint32_t)(b->n - at - 4));
	}
}

START_TEST(test_cfi_debug_frame_versions_and_64_bit_format)
{
	static const struct sw_cfi_params arm64 = { .address_size = 8, .machine = 183 };
	struct buf b = { .n = 0 };
	size_t c1 = df_cie(&b, 1, false, 30, BYTES(0x0c, 31, 0));
	size_t c3 = df_cie(&b, 3, false, 30, BYTES(0x0c, 31, 16));
	size_t c4 = df_cie(&b, 4, false, 30, BYTES(0x0c, 31, 32));
	size_t c64 = df_cie(&b, 4, true, 30, BYTES(0x0c, 31, 48));
	/* Listed out of order: the index sorts. advance_loc 1 = 4 bytes. */
	df_fde(&b, c4, false, 0x3000, 0x100, BYTES(0x41, 0x0e, 64));
	df_fde(&b, c1, false, 0x1000, 0x100, BYTES(0));
	df_fde(&b, c64, true, 0x4000, 0x100, BYTES(0x9d, 2));
	df_fde(&b, c3, false, 0x2000, 0x100, BYTES(0));
	struct sw_cfi_section s = { b.b, b.n, 0 };
	struct sw_cfi *c = sw_cfi_create(&s, false, NULL, &arm64);
	ck_assert_ptr_nonnull(c);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 0);
	ck_assert_uint_eq(r.ra_column, 30);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x20ff, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 16);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x3003, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 32);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x3004, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 64);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x4000, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.offset, 48);
	ck_assert(!r.row.ra_signed);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x5000, &r), SW_CFI_NO_RULE);
	sw_cfi_free(c);
}
END_TEST

/* An .eh_frame_hdr over `b`'s FDEs: version 1, eh_frame_ptr pcrel|sdata4,
 * count udata4, table datarel|sdata4. */
static void make_hdr(struct buf *h, uint64_t hdr_vaddr, uint64_t frame_vaddr,
                     const uint64_t *locs, const uint64_t *fdes, size_t n)
{
	h->n = 0;
	put(h, BYTES(1, 0x1b, 0x03, 0x3b));
	put_le(h, (uint32_t)(frame_vaddr - (hdr_vaddr + 4)), 4);
	put_le(h, n, 4);
	for (size_t i = 0; i < n; i++) {
		put_le(h, (uint32_t)(locs[i] - hdr_vaddr), 4);
		put_le(h, (uint32_t)(frame_vaddr + fdes[i] - hdr_vaddr), 4);
	}
}

START_TEST(test_cfi_hdr_table_and_its_fallbacks)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	uint64_t fdes[3], locs[3] = { 0x1000, 0x2000, 0x3000 };
	for (int i = 0; i < 3; i++)
		fdes[i] = eh_fde(&b, cie, 0x8000, locs[i], 0x100, BYTES(0x41, 0x0e, (uint8_t)(16 + 8 * i)));
	struct buf h;
	make_hdr(&h, 0x7000, 0x8000, locs, fdes, 3);
	struct sw_cfi_section s = { b.b, b.n, 0x8000 };
	struct sw_cfi_section hs = { h.b, h.n, 0x7000 };
	struct sw_cfi *c = sw_cfi_create(&s, true, &hs, &x86_64_params);
	ck_assert(sw_cfi_uses_hdr(c));
	struct sw_cfi_rules r;
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(sw_cfi_rules_at(c, locs[i], &r), SW_CFI_OK);
		ck_assert_uint_eq(r.fde.offset, fdes[i]);
		ck_assert_int_eq(sw_cfi_rules_at(c, locs[i] + 1, &r), SW_CFI_OK);
		ck_assert_int_eq(r.row.cfa.offset, 16 + 8 * i);
	}
	ck_assert(!sw_cfi_covers(c, 0x1100));
	ck_assert(!sw_cfi_covers(c, 0xfff));
	sw_cfi_free(c);

	/* Zero entries (bad_eh_frame_hdr_arm64): the index is built. */
	make_hdr(&h, 0x7000, 0x8000, locs, fdes, 0);
	hs.size = h.n;
	c = sw_cfi_create(&s, true, &hs, &x86_64_params);
	ck_assert(!sw_cfi_uses_hdr(c));
	ck_assert(sw_cfi_covers(c, 0x2000));
	sw_cfi_free(c);

	/* An entry pointing outside .eh_frame. */
	uint64_t bad[3] = { fdes[0], 0x100000, fdes[2] };
	make_hdr(&h, 0x7000, 0x8000, locs, bad, 3);
	hs.size = h.n;
	c = sw_cfi_create(&s, true, &hs, &x86_64_params);
	ck_assert(!sw_cfi_uses_hdr(c));
	ck_assert(sw_cfi_covers(c, 0x2000));
	sw_cfi_free(c);

	/* An unsorted table. */
	uint64_t unsorted[3] = { 0x2000, 0x1000, 0x3000 };
	uint64_t ufdes[3] = { fdes[1], fdes[0], fdes[2] };
	make_hdr(&h, 0x7000, 0x8000, unsorted, ufdes, 3);
	c = sw_cfi_create(&s, true, &hs, &x86_64_params);
	ck_assert(!sw_cfi_uses_hdr(c));
	ck_assert(sw_cfi_covers(c, 0x1000));
	sw_cfi_free(c);

	/* A table claiming more entries than it holds. */
	make_hdr(&h, 0x7000, 0x8000, locs, fdes, 3);
	h.b[8] = 200;
	c = sw_cfi_create(&s, true, &hs, &x86_64_params);
	ck_assert(!sw_cfi_uses_hdr(c));
	ck_assert(sw_cfi_covers(c, 0x3000));
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_instruction_coverage)
{
	/* Every opcode once; the rule set after it is checked. Data
	 * alignment -8, code alignment 1. */
	struct buf b = { .n = 0 };
	size_t cie = eh_cie(&b, "zR", BYTES(0x1b), 16,
	                    BYTES(0x0c, 7, 8, 0x90, 1, 0x08, 3 /* same_value rbx */));
	eh_fde(&b, cie, 0, 0x1000, 0x1000,
	       BYTES(0x05, 3, 2,               /* offset_extended rbx, cfa-16 */
	             0x11, 12, 0x7e,           /* offset_extended_sf r12, 2*-8 = -16 -> +16 */
	             0x14, 13, 1,              /* val_offset r13, -8 */
	             0x15, 14, 0x7f,           /* val_offset_sf r14, +8 */
	             0x09, 15, 0,              /* register r15 in rax */
	             0x07, 5,                  /* undefined rdi */
	             0x2f, 4, 1,               /* GNU_negative_offset_extended rsi, +8 */
	             0x2e, 32,                 /* GNU_args_size */
	             0x02, 0x10,               /* advance_loc1 -> 0x1010 */
	             0x0a,                     /* remember_state */
	             0x12, 6, 0x7e,            /* def_cfa_sf rbp, 16 */
	             0xc3,                     /* restore rbx -> same_value */
	             0x06, 12,                 /* restore_extended r12 -> unset */
	             0x03, 0x00, 0x01,         /* advance_loc2 -> 0x1110 */
	             0x0b,                     /* restore_state */
	             0x13, 0x7c,               /* def_cfa_offset_sf 32 */
	             0x10, 6, 2, 0x30 + 1, 0x22,     /* expression rbp: cfa+1 */
	             0x16, 2, 2, 0x30 + 2, 0x22,     /* val_expression rcx: cfa+2 */
	             0x04, 0x00, 0x01, 0x00, 0x00,   /* advance_loc4 -> 0x1210 */
	             0x0f, 2, 0x77, 0x20,            /* def_cfa_expression: rsp+32 */
	             0x00,
	             0x01, 0xf0, 0x0f, 0, 0,         /* set_loc pcrel: patched below */
	             0x0c, 7, 48));
	/* set_loc's operand is pcrel|sdata4: make it mean 0x1300. */
	size_t setloc = b.n - 2;
	while (b.b[setloc] != 0x01 || b.b[setloc + 1] != 0xf0)
		setloc--;
	uint32_t rel = (uint32_t)(0x1300 - (setloc + 1));
	patch_u32(&b, setloc + 1, rel);
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.col[3].kind, SW_RULE_OFFSET);
	ck_assert_int_eq(r.row.col[3].u.offset, -16);
	ck_assert_int_eq(r.row.col[12].u.offset, 16);
	ck_assert_int_eq(r.row.col[13].kind, SW_RULE_VAL_OFFSET);
	ck_assert_int_eq(r.row.col[13].u.offset, -8);
	ck_assert_int_eq(r.row.col[14].u.offset, 8);
	ck_assert_int_eq(r.row.col[15].kind, SW_RULE_REGISTER);
	ck_assert_uint_eq(r.row.col[15].u.reg, 0);
	ck_assert_int_eq(r.row.col[5].kind, SW_RULE_UNDEFINED);
	ck_assert_int_eq(r.row.col[4].kind, SW_RULE_OFFSET);
	ck_assert_int_eq(r.row.col[4].u.offset, 8);
	ck_assert_uint_eq(r.row.args_size, 32);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1010, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.row.cfa.reg, 6);
	ck_assert_int_eq(r.row.cfa.offset, 16);
	ck_assert_int_eq(r.row.col[3].kind, SW_RULE_SAME_VALUE);
	ck_assert_int_eq(r.row.col[12].kind, SW_RULE_UNSET);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1110, &r), SW_CFI_OK);
	ck_assert_uint_eq(r.row.cfa.reg, 7);
	ck_assert_int_eq(r.row.cfa.offset, 32);
	ck_assert_int_eq(r.row.col[3].kind, SW_RULE_OFFSET);
	ck_assert_int_eq(r.row.col[12].kind, SW_RULE_OFFSET);
	ck_assert_int_eq(r.row.col[6].kind, SW_RULE_EXPRESSION);
	ck_assert_int_eq(r.row.col[2].kind, SW_RULE_VAL_EXPRESSION);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1210, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.kind, SW_CFA_EXPRESSION);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x12ff, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.kind, SW_CFA_EXPRESSION);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1300, &r), SW_CFI_OK);
	ck_assert_int_eq(r.row.cfa.kind, SW_CFA_REG_OFFSET);
	ck_assert_int_eq(r.row.cfa.offset, 48);
	sw_cfi_free(c);
}
END_TEST

/* ---- Evaluation against registers and memory. */

struct fake {
	uint64_t regs[64];
	uint64_t have;        /* bit per register */
	uint64_t mem_base;
	uint8_t mem[256];
	uint64_t big_reg;     /* value of register 0x1c22 */
};

static bool fake_reg(void *self, uint32_t n, uint64_t *v)
{
	struct fake *f = self;
	if (n == 0x1c22) {
		*v = f->big_reg;
		return true;
	}
	if (n >= 64 || !(f->have >> n & 1))
		return false;
	*v = f->regs[n];
	return true;
}

static bool fake_mem(void *self, uint64_t addr, void *out, size_t n)
{
	struct fake *f = self;
	if (addr < f->mem_base || addr - f->mem_base > sizeof f->mem ||
	    n > sizeof f->mem - (addr - f->mem_base))
		return false;
	memcpy(out, f->mem + (addr - f->mem_base), n);
	return true;
}

static void fake_set(struct fake *f, uint32_t n, uint64_t v)
{
	f->regs[n] = v;
	f->have |= (uint64_t)1 << n;
}

static void fake_word(struct fake *f, uint64_t addr, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		f->mem[addr - f->mem_base + i] = (uint8_t)(v >> (8 * i));
}

static struct sw_unwind_io fake_io(struct fake *f)
{
	return (struct sw_unwind_io){ f, fake_reg, fake_mem, 8, false };
}

START_TEST(test_cfi_unwind_evaluates_every_rule_kind)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	eh_fde(&b, cie, 0, 0x1000, 0x100,
	       BYTES(0x0e, 32,                       /* CFA = rsp+32 */
	             0x86, 2,                        /* rbp at CFA-16 */
	             0x14, 3, 3,                     /* rbx = CFA-24 (val_offset) */
	             0x09, 12, 0,                    /* r12 = rax */
	             0x08, 13,                       /* r13 same */
	             0x07, 14,                       /* r14 undefined */
	             0x10, 15, 2, 0x08, 0xe0,        /* r15 at [CFA + const1s -32] -> CFA-32 */
	             0x10, 15, 3, 0x09, 0xe0, 0x22,
	             0x16, 2, 3, 0x09, 0xf8, 0x22,   /* rcx = CFA-8 (val_expression) */
	             0x85, 9));                      /* rdi at CFA-72: not captured */
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct fake f = { .mem_base = 0x7000 };
	fake_set(&f, 7, 0x7020);       /* rsp: CFA = 0x7040 */
	fake_set(&f, 0, 0xaaaa);
	fake_set(&f, 13, 0x1313);
	fake_word(&f, 0x7038, 0x401234);  /* ra at CFA-8 */
	fake_word(&f, 0x7030, 0x7ff0);    /* rbp at CFA-16 */
	fake_word(&f, 0x7020, 0x1515);    /* r15 at CFA-32 */
	struct sw_unwind_io io = fake_io(&f);
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_OK);
	ck_assert_uint_eq(out.cfa, 0x7040);
	ck_assert_uint_eq(out.ra_column, 16);
	ck_assert(sw_unwind_known(&out, 16));
	ck_assert_uint_eq(out.v[16], 0x401234);
	ck_assert_uint_eq(out.v[6], 0x7ff0);
	ck_assert_uint_eq(out.v[3], 0x7040 - 24);
	ck_assert_uint_eq(out.v[12], 0xaaaa);
	ck_assert_uint_eq(out.v[13], 0x1313);
	ck_assert(sw_unwind_undefined(&out, 14));
	ck_assert_uint_eq(out.v[15], 0x1515);
	ck_assert_uint_eq(out.v[2], 0x7040 - 8);
	ck_assert(sw_unwind_undefined(&out, 5));
	ck_assert(!sw_unwind_known(&out, 7) && !sw_unwind_undefined(&out, 7));
	ck_assert(!out.signal_frame);
	/* Without rsp there is no CFA. */
	f.have &= ~((uint64_t)1 << 7);
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_FAILED);
	sw_cfi_free(c);
}
END_TEST

/* ART's nterp: `DW_CFA_val_expression x0 (DW_OP_const4u "DEX1";
 * DW_OP_drop; DW_OP_bregx x22 0)` (libart.so's FDE of ExecuteNterpImpl)
 * gives the DEX pc; an expression without the marker gives none. */
START_TEST(test_cfi_art_dex_pc_rule)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	eh_fde(&b, cie, 0, 0x1000, 0x100,
	       BYTES(0x0e, 16,                                   /* CFA = rsp+16 */
	             0x16, 0, 9, 0x0c, 'D', 'E', 'X', '1', 0x13, 0x92, 3, 0,
	             0x16, 1, 1, 0x31));                         /* lit1: no marker */
	eh_fde(&b, cie, 0, 0x2000, 0x100,
	       BYTES(0x0e, 16, 0x16, 0, 9, 0x0c, 'D', 'E', 'X', '2', 0x13, 0x92, 3, 0));
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct fake f = { .mem_base = 0x7000 };
	fake_set(&f, 7, 0x7000);
	fake_set(&f, 3, 0x7b66004264);  /* rbx stands for x22 */
	fake_word(&f, 0x7008, 0x401234);
	struct sw_unwind_io io = fake_io(&f);
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_OK);
	ck_assert_uint_eq(out.dex_pc, 0x7b66004264);
	ck_assert_uint_eq(out.v[0], 0x7b66004264);
	ck_assert_int_eq(sw_cfi_unwind(c, 0x2000, &io, &out), SW_CFI_OK);
	ck_assert_uint_eq(out.dex_pc, 0);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_undefined_return_address_ends_the_walk)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	eh_fde(&b, cie, 0, 0x1000, 0x100, BYTES(0x07, 16));
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct fake f = { .mem_base = 0x7000 };
	fake_set(&f, 7, 0x7020);
	struct sw_unwind_io io = fake_io(&f);
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_END);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_signal_frame_cie)
{
	struct buf b = { .n = 0 };
	size_t cie = eh_cie(&b, "zRS", BYTES(0x1b), 16, BYTES(0x0c, 7, 8, 0x90, 1));
	eh_fde(&b, cie, 0, 0x1000, 0x100, BYTES(0));
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct fake f = { .mem_base = 0x7000 };
	fake_set(&f, 7, 0x7000);
	fake_word(&f, 0x7000, 0x4242);
	struct sw_unwind_io io = fake_io(&f);
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_OK);
	ck_assert(out.signal_frame);
	ck_assert_uint_eq(out.v[16], 0x4242);
	sw_cfi_free(c);
}
END_TEST

/* A .debug_frame CIE (id 0xffffffff) of version 3, 32-bit format, with
 * augmentation `aug`, code alignment 1, data alignment -4 and return
 * address column ra (ULEB128): as GNU as 2.40 writes RV32's. */
static size_t df_cie_aug(struct buf *b, const char *aug, uint64_t ra, const uint8_t *ins,
                         size_t n)
{
	size_t at = b->n;
	put_le(b, 0, 4);
	put_le(b, 0xffffffff, 4);
	put_u8(b, 3);
	put(b, aug, strlen(aug) + 1);
	put_uleb(b, 1);
	put_sleb(b, -4);
	put_uleb(b, ra);
	put(b, ins, n);
	patch_u32(b, at, (uint32_t)(b->n - at - 4));
	return at;
}

/* Its FDE: 4-byte addresses. */
static void df_fde32(struct buf *b, size_t cie, uint32_t begin, uint32_t range,
                     const uint8_t *ins, size_t n)
{
	size_t at = b->n;
	put_le(b, 0, 4);
	put_le(b, cie, 4);
	put_le(b, begin, 4);
	put_le(b, range, 4);
	put(b, ins, n);
	patch_u32(b, at, (uint32_t)(b->n - at - 4));
}

/* A trap entry's CFI as `riscv64-linux-gnu-gcc -march=rv32imac_zicsr -g
 * -fno-asynchronous-unwind-tables` puts it in .debug_frame (readelf
 * --debug-dump=frames of testdata/firmware's riscv32-cfi.elf): a CIE of
 * version 3 with augmentation "S" and no 'z' (.cfi_signal_frame), return
 * address column 64 (.cfi_return_column 64: the RISC-V psABI's Alternate
 * Frame Return Column), CFA = sp; its FDE allocates 128 bytes, saves ra
 * at CFA-124 and column 64 (the trap's mepc) at CFA-128. The rules hold
 * the signal-frame mark and give column 64 as the return address, as
 * .eh_frame's "zRS" would. A CIE whose augmentation has a letter with
 * data it cannot skip without 'z' stays unusable. */
START_TEST(test_cfi_debug_frame_signal_cie_without_z_and_return_column_64)
{
	static const struct sw_cfi_params rv32 = { .address_size = 4, .machine = 243 };
	struct buf b = { .n = 0 };
	size_t plain = df_cie_aug(&b, "", 1, BYTES(0x0d, 2));
	size_t sig = df_cie_aug(&b, "S", 64, BYTES(0x0d, 2));
	size_t bad = df_cie_aug(&b, "SR", 64, BYTES(0x0d, 2));
	df_fde32(&b, plain, 0x80000100, 0x10, BYTES(0));
	df_fde32(&b, sig, 0x800003e8, 0x4a,
	         BYTES(0x42, 0x0e, 0x80, 0x01, /* advance 2; CFA = sp + 128 */
	               0x42, 0x81, 31,         /* advance 2; ra at CFA - 124 */
	               0x46, 0x05, 64, 32));   /* advance 6; r64 at CFA - 128 */
	df_fde32(&b, bad, 0x80000500, 0x10, BYTES(0));
	struct sw_cfi_section s = { b.b, b.n, 0 };
	struct sw_cfi *c = sw_cfi_create(&s, false, NULL, &rv32);
	ck_assert_ptr_nonnull(c);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x80000100, &r), SW_CFI_OK);
	ck_assert(!r.signal_frame);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x80000430, &r), SW_CFI_OK);
	ck_assert(r.signal_frame);
	ck_assert_uint_eq(r.ra_column, 64);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x80000500, &r), SW_CFI_NO_RULE);

	/* The interrupted context: sp = CFA, pc = the saved mepc. */
	struct fake f = { .mem_base = 0x7000 };
	fake_set(&f, 2, 0x7000);
	uint8_t frame[128] = { 0 };
	uint32_t mepc = 0x80000086, ra = 0x800000b2;
	memcpy(frame, &mepc, 4);
	memcpy(frame + 4, &ra, 4);
	memcpy(f.mem, frame, sizeof frame);
	struct sw_unwind_io io = { &f, fake_reg, fake_mem, 4, false };
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x80000430, &io, &out), SW_CFI_OK);
	ck_assert(out.signal_frame);
	ck_assert_uint_eq(out.ra_column, 64);
	ck_assert_uint_eq(out.cfa, 0x7080);
	ck_assert(sw_unwind_known(&out, 64));
	ck_assert_uint_eq(out.v[64], mepc);
	ck_assert_uint_eq(out.v[1], ra);
	/* Before mepc is stored (advance to 0x800003f2) column 64 has no
	 * rule: not a frame to unwind by (the provider then finds no
	 * register 64 to keep, and fails). */
	ck_assert_int_eq(sw_cfi_unwind(c, 0x800003ec, &io, &out), SW_CFI_OK);
	ck_assert(!sw_unwind_known(&out, 64));
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_negate_ra_state_on_arm64)
{
	static const struct sw_cfi_params arm64 = { .address_size = 8, .machine = 183 };
	struct buf b = { .n = 0 };
	/* paciasp; stp x29, x30, [sp, #-16]!; ...; ldp; autiasp; ret */
	size_t cie = eh_cie(&b, "zR", BYTES(0x1b), 30, BYTES(0x0c, 31, 0));
	eh_fde(&b, cie, 0, 0x1000, 0x100,
	       BYTES(0x2d, 0x41, 0x0e, 16, 0x9e, 1, 0x9d, 2, 0x41, 0x2d));
	struct sw_cfi *c = create_eh(&b, 0, &arm64);
	struct fake f = { .mem_base = 0x7000 };
	fake_set(&f, 31, 0x7000);
	fake_set(&f, 30, 0x5555);
	fake_word(&f, 0x7008, 0x400100);
	fake_word(&f, 0x7000, 0x7100);
	struct sw_unwind_io io = fake_io(&f);
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_OK);
	ck_assert(out.ra_signed);
	ck_assert(!sw_unwind_known(&out, 30));
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1001, &io, &out), SW_CFI_OK);
	ck_assert(out.ra_signed);
	ck_assert_uint_eq(out.cfa, 0x7010);
	ck_assert_uint_eq(out.v[30], 0x400100);
	ck_assert_uint_eq(out.v[29], 0x7100);
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1002, &io, &out), SW_CFI_OK);
	ck_assert(!out.ra_signed); /* toggled twice */
	sw_cfi_free(c);
	/* The same opcode elsewhere is SPARC's window save: refused. */
	c = create_eh(&b, 0, &x86_64_params);
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_FAILED);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_expression_cfa_with_large_register_number)
{
	/* vlenb_riscv64: CFA = sp + 16 + 2 * vlenb (DW_OP_bregx 0x1c22). */
	static const struct sw_cfi_params rv = { .address_size = 8, .machine = 243 };
	struct buf b = { .n = 0 };
	size_t cie = eh_cie(&b, "zR", BYTES(0x1b), 1, BYTES(0x0c, 2, 0));
	eh_fde(&b, cie, 0, 0x1000, 0x100,
	       BYTES(0x0f, 9, 0x72, 16, 0x92, 0xa2, 0x38, 0, 0x32, 0x1e, 0x22, 0x81, 1));
	struct sw_cfi *c = create_eh(&b, 0, &rv);
	struct fake f = { .mem_base = 0x7000, .big_reg = 16 };
	fake_set(&f, 2, 0x7000);
	fake_word(&f, 0x7030 - 8, 0x400000);
	struct sw_unwind_io io = fake_io(&f);
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_OK);
	ck_assert_uint_eq(out.cfa, 0x7000 + 16 + 32);
	ck_assert_uint_eq(out.v[1], 0x400000);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_remember_state_bomb_fails)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	uint8_t bomb[200];
	memset(bomb, 0x0a, sizeof bomb);
	eh_fde(&b, cie, 0, 0x1000, 0x100, bomb, sizeof bomb);
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, &r), SW_CFI_FAILED);
	sw_cfi_free(c);
	/* restore_state with nothing remembered. */
	b.n = 0;
	cie = x86_64_cie(&b);
	eh_fde(&b, cie, 0, 0x1000, 0x100, BYTES(0x0b));
	c = create_eh(&b, 0, &x86_64_params);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, &r), SW_CFI_FAILED);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_huge_programs_end_within_budget)
{
	/* A program past the step budget: 1.1 million remember/restore pairs
	 * in one FDE (built by hand: too big for struct buf). */
	size_t n = 2200000;
	size_t total = 24 + 24 + n + 8;
	uint8_t *sec = calloc(1, total);
	struct buf cb = { .n = 0 };
	x86_64_cie(&cb);
	memcpy(sec, cb.b, cb.n);
	size_t at = cb.n;
	uint8_t *p = sec + at;
	size_t len = 4 + 4 + 4 + 1 + n;
	p[0] = (uint8_t)len; p[1] = (uint8_t)(len >> 8); p[2] = (uint8_t)(len >> 16);
	uint32_t cieptr = (uint32_t)(at + 4);
	memcpy(p + 4, &cieptr, 4);
	uint32_t begin = (uint32_t)(0x1000 - (at + 8));
	memcpy(p + 8, &begin, 4);
	uint32_t range = 0x100;
	memcpy(p + 12, &range, 4);
	p[16] = 0;
	for (size_t i = 0; i < n; i += 2) {
		p[17 + i] = 0x0a;
		p[17 + i + 1] = 0x0b;
	}
	struct sw_cfi_section s = { sec, at + 4 + len, 0 };
	struct sw_cfi *c = sw_cfi_create(&s, true, NULL, &x86_64_params);
	ck_assert_ptr_nonnull(c);
	struct sw_cfi_rules *r = malloc(sizeof *r);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, r), SW_CFI_FAILED);
	/* A huge advance just ends the program: the row before it holds. */
	memset(p + 17, 0, n);
	p[17] = 0x04;
	p[18] = p[19] = p[20] = p[21] = 0xff;
	p[22] = 0x0e;
	p[23] = 64;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x10ff, r), SW_CFI_OK);
	ck_assert_int_eq(r->row.cfa.offset, 8);
	free(r);
	sw_cfi_free(c);
	free(sec);
}
END_TEST

START_TEST(test_cfi_expression_with_backward_skip_fails)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	/* def_cfa_expression: DW_OP_skip -3 (to itself). */
	eh_fde(&b, cie, 0, 0x1000, 0x100, BYTES(0x0f, 3, 0x2f, 0xfd, 0xff));
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	struct fake f = { .mem_base = 0x7000 };
	struct sw_unwind_io io = fake_io(&f);
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x1000, &io, &out), SW_CFI_FAILED);
	sw_cfi_free(c);
}
END_TEST

START_TEST(test_cfi_malformed_sections_are_bounded)
{
	struct buf b = { .n = 0 };
	size_t cie = x86_64_cie(&b);
	eh_fde(&b, cie, 0, 0x1000, 0x100, BYTES(0));
	/* A length past the end: the walk stops there. */
	put_le(&b, 0x7fffffff, 4);
	put_le(&b, 0, 4);
	struct sw_cfi *c = create_eh(&b, 0, &x86_64_params);
	ck_assert(sw_cfi_covers(c, 0x1000));
	sw_cfi_free(c);
	/* An FDE whose CIE pointer points at itself or outside. */
	b.n = 0;
	x86_64_cie(&b);
	size_t fde = eh_fde(&b, 0, 0, 0x1000, 0x100, BYTES(0));
	patch_u32(&b, fde + 4, 0x1000);
	c = create_eh(&b, 0, &x86_64_params);
	ck_assert(!sw_cfi_covers(c, 0x1000));
	sw_cfi_free(c);
	/* Truncated instructions fail, not read past. */
	b.n = 0;
	cie = x86_64_cie(&b);
	fde = eh_fde(&b, cie, 0, 0x1000, 0x100, BYTES(0x0c, 0x87));
	c = create_eh(&b, 0, &x86_64_params);
	struct sw_cfi_rules r;
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, &r), SW_CFI_FAILED);
	sw_cfi_free(c);
	/* An unknown opcode. */
	b.n = 0;
	cie = x86_64_cie(&b);
	eh_fde(&b, cie, 0, 0x1000, 0x100, BYTES(0x3f));
	c = create_eh(&b, 0, &x86_64_params);
	ck_assert_int_eq(sw_cfi_rules_at(c, 0x1000, &r), SW_CFI_FAILED);
	sw_cfi_free(c);
	/* An empty section is refused. */
	struct sw_cfi_section s = { b.b, 0, 0 };
	ck_assert_ptr_null(sw_cfi_create(&s, true, NULL, &x86_64_params));
}
END_TEST

START_TEST(test_cfi_32_bit_big_endian)
{
	/* A big-endian 32-bit .debug_frame (MIPS-like): CFA = r29+16, ra
	 * (r31) at CFA-4. */
	static const struct sw_cfi_params be = { .address_size = 4, .big_endian = true,
	                                         .machine = 8 };
	uint8_t sec[] = {
		/* CIE: length 16, id ffffffff, v1, "", caf 1, daf -4, ra 31 */
		0, 0, 0, 16, 0xff, 0xff, 0xff, 0xff, 1, 0, 1, 0x7c, 31, 0x0c, 29, 16,
		0x9f, 1, 0, 0,
		/* FDE: length 12, cie 0, begin 0x00401000, range 0x40 */
		0, 0, 0, 12, 0, 0, 0, 0, 0, 0x40, 0x10, 0, 0, 0, 0, 0x40,
	};
	struct sw_cfi_section s = { sec, sizeof sec, 0 };
	struct sw_cfi *c = sw_cfi_create(&s, false, NULL, &be);
	ck_assert_ptr_nonnull(c);
	uint8_t mem[16] = { 0 };
	mem[12] = 0x00; mem[13] = 0x40; mem[14] = 0x20; mem[15] = 0x08;
	struct fake f = { .mem_base = 0x7000 };
	memcpy(f.mem, mem, sizeof mem);
	fake_set(&f, 29, 0x7000);
	struct sw_unwind_io io = { &f, fake_reg, fake_mem, 4, true };
	struct sw_unwind_result out;
	ck_assert_int_eq(sw_cfi_unwind(c, 0x401000, &io, &out), SW_CFI_OK);
	ck_assert_uint_eq(out.cfa, 0x7010);
	ck_assert_uint_eq(out.v[31], 0x402008);
	sw_cfi_free(c);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("dwarf_cfi");
	TCase *tc = tcase_create("units");
	tcase_add_test(tc, test_cfi_runs_cie_then_fde_up_to_the_pc);
	tcase_add_test(tc, test_cfi_fde_covers_its_start_but_not_its_end);
	tcase_add_test(tc, test_cfi_pointer_encodings);
	tcase_add_test(tc, test_cfi_fde_encodings_udata8_and_absptr);
	tcase_add_test(tc, test_cfi_augmentation_personality_lsda_signal);
	tcase_add_test(tc, test_cfi_debug_frame_versions_and_64_bit_format);
	tcase_add_test(tc, test_cfi_hdr_table_and_its_fallbacks);
	tcase_add_test(tc, test_cfi_instruction_coverage);
	tcase_add_test(tc, test_cfi_unwind_evaluates_every_rule_kind);
	tcase_add_test(tc, test_cfi_art_dex_pc_rule);
	tcase_add_test(tc, test_cfi_undefined_return_address_ends_the_walk);
	tcase_add_test(tc, test_cfi_signal_frame_cie);
	tcase_add_test(tc, test_cfi_debug_frame_signal_cie_without_z_and_return_column_64);
	tcase_add_test(tc, test_cfi_negate_ra_state_on_arm64);
	tcase_add_test(tc, test_cfi_expression_cfa_with_large_register_number);
	tcase_add_test(tc, test_cfi_remember_state_bomb_fails);
	tcase_add_test(tc, test_cfi_huge_programs_end_within_budget);
	tcase_add_test(tc, test_cfi_expression_with_backward_skip_fails);
	tcase_add_test(tc, test_cfi_malformed_sections_are_bounded);
	tcase_add_test(tc, test_cfi_32_bit_big_endian);
	suite_add_tcase(s, tc);
	TCase *oracle = tcase_create("readelf");
	tcase_add_loop_test(oracle, test_cfi_rules_match_readelf_on_real_files, 0,
	                    (int)(sizeof oracle_files / sizeof oracle_files[0]));
	suite_add_tcase(s, oracle);
	return s;
}
