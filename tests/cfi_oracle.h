/* The real-data oracle of test_dwarf_cfi.c: the corpus's ELF files, their
 * CFI sections through libelf, and binutils' `readelf
 * --debug-dump=frames-interp` table parsed into rows to compare our rules
 * with. */
#ifndef SW_TESTS_CFI_ORACLE_H
#define SW_TESTS_CFI_ORACLE_H

#include <check.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/dwarf_cfi_internal.h"

/* The inflated bytes of a corpus .gz file; NULL when it cannot be read. */
static uint8_t *oracle_inflate(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	uint8_t *b = malloc(cap);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap);
		}
		int r = gzread(f, b + n, (unsigned)(cap - n));
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	gzclose(f);
	*len = n;
	return b;
}

static uint8_t *oracle_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
	*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

struct oracle_sec {
	const uint8_t *data;
	uint64_t size, vaddr;
	bool present;
};

struct oracle_elf {
	Elf *elf;
	uint8_t *bytes;
	size_t len;
	uint16_t machine;
	uint8_t address_size;
	bool big_endian;
	struct oracle_sec eh_frame, eh_frame_hdr, debug_frame;
};

/* Sections by name; SHF_COMPRESSED ones (zlib_compress_arm's .debug_frame)
 * inflated by libelf. */
static bool oracle_open(struct oracle_elf *o, uint8_t *bytes, size_t len)
{
	memset(o, 0, sizeof *o);
	o->bytes = bytes;
	o->len = len;
	elf_version(EV_CURRENT);
	o->elf = elf_memory((char *)bytes, len);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF)
		return false;
	GElf_Ehdr eh;
	if (!gelf_getehdr(o->elf, &eh))
		return false;
	o->machine = eh.e_machine;
	o->address_size = gelf_getclass(o->elf) == ELFCLASS64 ? 8 : 4;
	o->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	size_t shstrndx;
	if (elf_getshdrstrndx(o->elf, &shstrndx) != 0)
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(o->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		struct oracle_sec *s = NULL;
		if (strcmp(name, ".eh_frame") == 0)
			s = &o->eh_frame;
		else if (strcmp(name, ".eh_frame_hdr") == 0)
			s = &o->eh_frame_hdr;
		else if (strcmp(name, ".debug_frame") == 0)
			s = &o->debug_frame;
		if (!s)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size == 0)
			continue;
		s->data = d->d_buf;
		s->size = d->d_size;
		s->vaddr = sh.sh_addr;
		s->present = true;
	}
	return true;
}

static void oracle_close(struct oracle_elf *o)
{
	if (o->elf)
		elf_end(o->elf);
	free(o->bytes);
}

/* ---- readelf's register names (binutils dwarf.c's tables, as far as
 * the corpus uses them); anything else is printed "r<n>". */

static const char *const names_x86_64[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
	"r12", "r13", "r14", "r15", "rip",
};
static const char *const names_i386[] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags",
};
static const char *const names_riscv[] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3",
	"a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
	"t3", "t4", "t5", "t6",
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1",
	"fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7",
	"fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
};

/* DWARF number of a readelf register name, or -1. */
static long oracle_regno(uint16_t machine, const char *name, long ra)
{
	if (strcmp(name, "ra") == 0)
		return ra;
	const char *const *t = NULL;
	size_t n = 0;
	switch (machine) {
	case EM_X86_64: t = names_x86_64; n = sizeof names_x86_64 / sizeof *t; break;
	case EM_386: t = names_i386; n = sizeof names_i386 / sizeof *t; break;
	case EM_RISCV: t = names_riscv; n = sizeof names_riscv / sizeof *t; break;
	default: break;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i], name) == 0)
			return (long)i;
	char *end;
	if (machine == EM_AARCH64) {
		if (strcmp(name, "sp") == 0)
			return 31;
		if (name[0] == 'x' || name[0] == 'v') {
			long k = strtol(name + 1, &end, 10);
			if (*end == 0 && end != name + 1 && k >= 0 && k <= 31)
				return name[0] == 'x' ? k : 64 + k;
		}
	}
	if (name[0] == 'r') {
		long k = strtol(name + 1, &end, 10);
		if (*end == 0 && end != name + 1)
			return k;
	}
	return -1;
}

/* ---- The table. */

enum { ORACLE_MAX_COLS = 160 };

struct oracle_cell {
	long col;                        /* DWARF number, from the header */
	char val[16];
};

struct oracle_row {
	uint64_t loc;
	char cfa[40];
	int ncols;
	size_t first_cell;               /* in oracle_table.cells */
};

struct oracle_fde {
	bool is_eh;
	uint64_t offset, cie, begin, end;
	long ra;
	size_t first_row, nrows;
};

struct oracle_table {
	struct oracle_fde *fdes;
	size_t nfdes, cap_fdes;
	struct oracle_row *rows;
	size_t nrows, cap_rows;
	struct oracle_cell *cells;
	size_t ncells, cap_cells;
	/* CIEs: the row their initial instructions leave, for FDEs without
	 * instructions (readelf prints no table for those). */
	struct { bool is_eh; uint64_t offset; long ra; bool has_row; struct oracle_row row; } *cies;
	size_t ncies, cap_cies;
};

static void oracle_table_free(struct oracle_table *t)
{
	free(t->fdes);
	free(t->rows);
	free(t->cells);
	free(t->cies);
}

static int split_words(char *line, char **w, int max)
{
	int n = 0;
	for (char *tok = strtok(line, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n"))
		w[n++] = tok;
	return n;
}

/* Runs readelf on the file and collects every FDE with its rows. */
static bool oracle_readelf(const uint8_t *bytes, size_t len, uint16_t machine,
                           struct oracle_table *t)
{
	memset(t, 0, sizeof *t);
	char path[] = "/tmp/sw_cfi_oracle_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return false;
	bool ok = write(fd, bytes, len) == (ssize_t)len;
	close(fd);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "readelf --debug-dump=frames-interp %s 2>/dev/null", path);
	FILE *p = ok ? popen(cmd, "r") : NULL;
	if (!p) {
		unlink(path);
		return false;
	}
	static char line[8192];
	bool in_eh = false;
	long header_cols[ORACLE_MAX_COLS];
	int nheader = -1;
	long cur_ra = -1;
	int cur_cie = -1;         /* index in cies of the CIE whose table this is */
	bool cur_is_fde = false;
	while (fgets(line, sizeof line, p)) {
		if (strstr(line, "Contents of the .eh_frame section"))
			in_eh = true;
		else if (strstr(line, "Contents of the .debug_frame section"))
			in_eh = false;
		char *w[ORACLE_MAX_COLS + 4];
		char copy[8192];
		snprintf(copy, sizeof copy, "%s", line);
		int nw = split_words(copy, w, ORACLE_MAX_COLS + 4);
		if (nw == 0)
			continue;
		if (nw >= 4 && strcmp(w[3], "CIE") == 0) {
			if (t->ncies == t->cap_cies) {
				t->cap_cies = t->cap_cies ? 2 * t->cap_cies : 16;
				t->cies = realloc(t->cies, t->cap_cies * sizeof *t->cies);
			}
			cur_ra = -1;
			for (int i = 4; i < nw; i++)
				if (strncmp(w[i], "ra=", 3) == 0)
					cur_ra = strtol(w[i] + 3, NULL, 10);
			memset(&t->cies[t->ncies], 0, sizeof t->cies[0]);
			t->cies[t->ncies].is_eh = in_eh;
			t->cies[t->ncies].offset = strtoull(w[0], NULL, 16);
			t->cies[t->ncies].ra = cur_ra;
			cur_cie = (int)t->ncies++;
			cur_is_fde = false;
			nheader = -1;
			continue;
		}
		if (nw >= 6 && strcmp(w[3], "FDE") == 0 && strncmp(w[4], "cie=", 4) == 0 &&
		    strncmp(w[5], "pc=", 3) == 0 &&
		    strspn(w[4] + 4, "0123456789abcdef") == strlen(w[4] + 4)) {
			if (t->nfdes == t->cap_fdes) {
				t->cap_fdes = t->cap_fdes ? 2 * t->cap_fdes : 256;
				t->fdes = realloc(t->fdes, t->cap_fdes * sizeof *t->fdes);
			}
			struct oracle_fde *f = &t->fdes[t->nfdes++];
			memset(f, 0, sizeof *f);
			f->is_eh = in_eh;
			f->offset = strtoull(w[0], NULL, 16);
			f->cie = strtoull(w[4] + 4, NULL, 16);
			char *dots;
			f->begin = strtoull(w[5] + 3, &dots, 16);
			f->end = strtoull(dots + 2, NULL, 16);
			f->first_row = t->nrows;
			f->ra = -1;
			for (size_t i = 0; i < t->ncies; i++)
				if (t->cies[i].is_eh == in_eh && t->cies[i].offset == f->cie)
					f->ra = t->cies[i].ra;
			cur_ra = f->ra;
			cur_is_fde = true;
			nheader = -1;
			continue;
		}
		if (nw >= 2 && strcmp(w[0], "LOC") == 0 && strcmp(w[1], "CFA") == 0) {
			nheader = 0;
			for (int i = 2; i < nw && nheader < ORACLE_MAX_COLS; i++) {
				long r = oracle_regno(machine, w[i], cur_ra);
				ck_assert_msg(r >= 0, "unknown register name %s", w[i]);
				header_cols[nheader++] = r;
			}
			continue;
		}
		if (nheader >= 0 && nw == nheader + 2 && strlen(w[0]) >= 8 &&
		    strspn(w[0], "0123456789abcdef") == strlen(w[0])) {
			struct oracle_row row;
			row.loc = strtoull(w[0], NULL, 16);
			snprintf(row.cfa, sizeof row.cfa, "%s", w[1]);
			row.ncols = nheader;
			row.first_cell = t->ncells;
			if (t->ncells + (size_t)nheader > t->cap_cells) {
				t->cap_cells = 2 * (t->ncells + (size_t)nheader) + 1024;
				t->cells = realloc(t->cells, t->cap_cells * sizeof *t->cells);
			}
			for (int i = 0; i < nheader; i++) {
				t->cells[t->ncells].col = header_cols[i];
				snprintf(t->cells[t->ncells].val, sizeof t->cells[0].val, "%s", w[i + 2]);
				t->ncells++;
			}
			if (cur_is_fde) {
				if (t->nrows == t->cap_rows) {
					t->cap_rows = t->cap_rows ? 2 * t->cap_rows : 4096;
					t->rows = realloc(t->rows, t->cap_rows * sizeof *t->rows);
				}
				t->rows[t->nrows++] = row;
				t->fdes[t->nfdes - 1].nrows++;
			} else if (cur_cie >= 0) {
				t->cies[cur_cie].row = row;
				t->cies[cur_cie].has_row = true;
			}
			continue;
		}
		nheader = nheader >= 0 && nw > 0 && strspn(w[0], "0123456789abcdef") == strlen(w[0])
		              ? nheader : -1;
	}
	pclose(p);
	unlink(path);
	return true;
}

/* The CIE row readelf printed for an FDE's CIE, or NULL. */
static const struct oracle_row *oracle_cie_row(const struct oracle_table *t,
                                               const struct oracle_fde *f)
{
	for (size_t i = 0; i < t->ncies; i++)
		if (t->cies[i].is_eh == f->is_eh && t->cies[i].offset == f->cie)
			return t->cies[i].has_row ? &t->cies[i].row : NULL;
	return NULL;
}

/* Does our rule match readelf's notation? */
static bool oracle_rule_matches(uint16_t machine, long ra, const char *v,
                                const struct sw_cfi_rule *r)
{
	if (strcmp(v, "u") == 0)
		return r->kind == SW_RULE_UNSET || r->kind == SW_RULE_UNDEFINED;
	if (strcmp(v, "s") == 0)
		return r->kind == SW_RULE_SAME_VALUE;
	if (strcmp(v, "exp") == 0)
		return r->kind == SW_RULE_EXPRESSION;
	if (strcmp(v, "vexp") == 0)
		return r->kind == SW_RULE_VAL_EXPRESSION;
	if ((v[0] == 'c' || v[0] == 'v') && (v[1] == '+' || v[1] == '-'))
		return r->kind == (v[0] == 'c' ? SW_RULE_OFFSET : SW_RULE_VAL_OFFSET) &&
		       r->u.offset == strtoll(v + 1, NULL, 10);
	long reg = oracle_regno(machine, v, ra);
	return r->kind == SW_RULE_REGISTER && reg >= 0 && r->u.reg == (uint64_t)reg;
}

static bool oracle_cfa_matches(uint16_t machine, long ra, const char *v,
                               const struct sw_cfa_rule *cfa)
{
	if (strcmp(v, "exp") == 0)
		return cfa->kind == SW_CFA_EXPRESSION;
	const char *sign = strpbrk(v + 1, "+-");
	if (!sign)
		return false;
	char name[32];
	snprintf(name, sizeof name, "%.*s", (int)(sign - v), v);
	long reg = oracle_regno(machine, name, ra);
	return cfa->kind == SW_CFA_REG_OFFSET && reg >= 0 && cfa->reg == (uint64_t)reg &&
	       cfa->offset == strtoll(sign, NULL, 10);
}

#endif
