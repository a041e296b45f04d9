/* The ELF/DWARF provider (see elf_symbols.h). Every part is built on first
 * use: a walk that only names frames never indexes CFI, one that only
 * unwinds never opens the DWARF. */
#include "elf_symbols.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm_exidx.h"
#include "dwarf_cfi.h"
#include "dwarf_lines.h"
#include "lib/arch.h"
#include "lib/walker.h"

/* .debug_frame of the binary, its .eh_frame, the debug file's
 * .debug_frame, MiniDebugInfo's .debug_frame and .eh_frame. */
enum { MAX_CFI_TABLES = 5 };

struct sw_elf_symbols {
	struct sw_elf *image;       /* the mapped binary: code, CFI, symbols */
	struct sw_elf *debug;       /* its separate debug file */
	/* ELF address of the module's offset 0 (struct sw_elf_info). */
	uint64_t file_vaddr;
	uint64_t first_load_vaddr;  /* a .sym's address 0 (Breakpad's base) */
	uint16_t machine;
	bool big_endian;
	uint8_t word_size;

	bool dwarf_tried;
	struct sw_dwarf *dwarf;

	bool cfi_built;
	struct sw_cfi *cfi[MAX_CFI_TABLES];
	const char *cfi_source[MAX_CFI_TABLES]; /* "eh_frame", ... for --explain */
	unsigned ncfi;
	bool has_exidx;
	struct sw_exidx_sections exidx;
	bool cfi_complete_known, cfi_complete; /* cfi_is_complete's answer */
};

/* The images whose symbol tables name functions, richest first. */
static unsigned symbol_images(struct sw_elf_symbols *s, struct sw_elf *out[4])
{
	unsigned n = 0;
	if (s->debug)
		out[n++] = s->debug;
	if (s->image)
		out[n++] = s->image;
	if (s->image && sw_elf_debugdata(s->image))
		out[n++] = sw_elf_debugdata(s->image);
	return n;
}

struct sw_elf_symbols *sw_elf_symbols_create(struct sw_elf *image, struct sw_elf *debug)
{
	if (!image && !debug)
		return NULL;
	struct sw_elf_symbols *s = calloc(1, sizeof *s);
	if (!s) {
		sw_elf_free(image);
		sw_elf_free(debug);
		return NULL;
	}
	s->image = image;
	s->debug = debug;
	/* The binary's headers say where it was loaded; a debug file made by
	 * objcopy --only-keep-debug keeps the same program headers. */
	const struct sw_elf_info *info = sw_elf_info(image ? image : debug);
	s->file_vaddr = info->file_vaddr;
	s->first_load_vaddr = info->first_load_vaddr;
	s->machine = info->machine;
	s->big_endian = info->big_endian;
	s->word_size = info->word_size;
	return s;
}

void sw_elf_symbols_free(struct sw_elf_symbols *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ncfi; i++)
		sw_cfi_free(s->cfi[i]);
	sw_dwarf_free(s->dwarf);
	sw_elf_free(s->image);
	sw_elf_free(s->debug);
	free(s);
}

/* The DWARF of the debug file, else of the binary when it is not
 * stripped. */
static struct sw_dwarf *dwarf(struct sw_elf_symbols *s)
{
	if (s->dwarf_tried)
		return s->dwarf;
	s->dwarf_tried = true;
	struct sw_elf *candidates[] = { s->debug, s->image };
	for (size_t i = 0; i < 2 && !s->dwarf; i++) {
		struct sw_elf *e = candidates[i];
		if (!e || !sw_elf_info(e)->has_debug_info)
			continue;
		struct sw_err err = { 0 };
		s->dwarf = sw_dwarf_open(e, sw_elf_name(e), &err);
	}
	return s->dwarf;
}

bool sw_elf_symbols_has_lines(struct sw_elf_symbols *s)
{
	return dwarf(s) != NULL;
}

uint64_t sw_elf_symbols_sym_base(const struct sw_elf_symbols *s)
{
	return s->first_load_vaddr - s->file_vaddr;
}

static void add_cfi(struct sw_elf_symbols *s, struct sw_elf *e, const char *name,
                    const char *source)
{
	struct sw_elf_section sec, hdr;
	if (!e || s->ncfi == MAX_CFI_TABLES || !sw_elf_section(e, name, &sec) ||
	    sec.type == SHT_NOBITS || sec.size == 0)
		return;
	bool eh = strcmp(name, ".eh_frame") == 0;
	bool has_hdr = eh && sw_elf_section(e, ".eh_frame_hdr", &hdr) && hdr.type != SHT_NOBITS;
	const struct sw_elf_info *info = sw_elf_info(e);
	struct sw_cfi_section frame = { sec.data, sec.size, sec.addr };
	struct sw_cfi_section table = has_hdr ? (struct sw_cfi_section){ hdr.data, hdr.size, hdr.addr }
	                                      : (struct sw_cfi_section){ 0 };
	struct sw_cfi_params p = {
		.address_size = info->word_size,
		.big_endian = info->big_endian,
		.machine = info->machine,
		.file = sw_elf_mapped_file(e),
	};
	struct sw_cfi *c = sw_cfi_create(&frame, eh, has_hdr ? &table : NULL, &p);
	if (c) {
		s->cfi_source[s->ncfi] = source;
		s->cfi[s->ncfi++] = c;
	}
}

/* In libunwindstack's order: .debug_frame (complete, where a build keeps
 * it) before .eh_frame, then the debug file's and MiniDebugInfo's tables,
 * then ARM's index, which describes only what exceptions need. */
static void build_cfi(struct sw_elf_symbols *s)
{
	if (s->cfi_built)
		return;
	s->cfi_built = true;
	struct sw_elf *mini = s->image ? sw_elf_debugdata(s->image) : NULL;
	add_cfi(s, s->image, ".debug_frame", ".debug_frame");
	add_cfi(s, s->image, ".eh_frame", ".eh_frame");
	add_cfi(s, s->debug, ".debug_frame", ".debug_frame of the debug file");
	add_cfi(s, mini, ".debug_frame", ".debug_frame of .gnu_debugdata");
	add_cfi(s, mini, ".eh_frame", ".eh_frame of .gnu_debugdata");
	struct sw_elf_section idx, tab;
	if (s->machine == EM_ARM && s->image && sw_elf_section(s->image, ".ARM.exidx", &idx) &&
	    idx.type != SHT_NOBITS) {
		s->has_exidx = true;
		s->exidx.exidx = idx.data;
		s->exidx.exidx_size = idx.size;
		s->exidx.exidx_vaddr = idx.addr;
		s->exidx.big_endian = s->big_endian;
		if (sw_elf_section(s->image, ".ARM.extab", &tab) && tab.type != SHT_NOBITS) {
			s->exidx.extab = tab.data;
			s->exidx.extab_size = tab.size;
			s->exidx.extab_vaddr = tab.addr;
		}
	}
}

bool sw_elf_symbols_has_cfi(struct sw_elf_symbols *s)
{
	build_cfi(s);
	return s->ncfi > 0 || s->has_exidx;
}

/* ---- what is here ---- */

static bool lookup_symbol(struct sw_elf_symbols *s, uint64_t vaddr, struct sw_elf_symbol *out)
{
	struct sw_elf *images[4];
	unsigned n = symbol_images(s, images);
	for (unsigned i = 0; i < n; i++)
		if (sw_elf_symbol_at(images[i], vaddr, out))
			return true;
	return false;
}

static bool has_symbol(struct sw_elf_symbols *s, uint64_t vaddr)
{
	struct sw_elf *images[4];
	unsigned n = symbol_images(s, images);
	for (unsigned i = 0; i < n; i++)
		if (sw_elf_has_symbol_at(images[i], vaddr))
			return true;
	return false;
}

static bool elf_lookup(void *self, uint64_t offset, struct sw_arena *a, struct sw_sym_info *out)
{
	struct sw_elf_symbols *s = self;
	uint64_t vaddr = offset + s->file_vaddr;
	memset(out, 0, sizeof *out);
	struct sw_dwarf *d = dwarf(s);
	if (d && sw_dwarf_lookup(d, vaddr, a, out) && out->function) {
		/* DWARF speaks in ELF addresses, the walker in module offsets. */
		out->function_offset -= s->file_vaddr;
		if (out->file)
			out->line_offset -= s->file_vaddr;
		return true;
	}
	memset(out, 0, sizeof *out);
	struct sw_elf_symbol sym;
	if (!lookup_symbol(s, vaddr, &sym))
		return false;
	out->function = sw_demangle(sym.name, a);
	/* The raw name is the image's until its next lookup; the frame keeps
	 * it until the output. */
	if (out->function == sym.name)
		out->function = sw_arena_strdup(a, sym.name);
	if (!out->function)
		return false;
	out->function_offset = sym.addr - s->file_vaddr;
	out->function_size = sym.size;
	/* A symbol without a size is a bare address, as a PUBLIC record. */
	out->is_public = sym.size == 0;
	return true;
}

/* How many evenly spaced addresses of .text cfi_is_complete probes. */
enum { CFI_COVERAGE_PROBES = 64 };

/* Do the unwind tables describe (nearly) every function, so that an
 * address outside every FDE is outside every compiled function? Only when
 * the compiler emitted an FDE for each. A program built with
 * -fno-asynchronous-unwind-tables keeps just crt1.o's FDE for _start
 * (riscv64: 34 of its 1,842 code bytes), and Debian's riscv64 and MIPS
 * glibc have FDEs for 21% and 25% of their code, against 98% in its
 * aarch64, x86-64 and ppc64le builds: there, code outside every FDE is
 * mostly code. Measured at evenly spaced addresses of the binary's
 * .text: complete when at least half lie in an FDE; without a .text to
 * measure, as complete (the tables are all there is to go by). */
static bool cfi_is_complete(struct sw_elf_symbols *s)
{
	if (s->cfi_complete_known)
		return s->cfi_complete;
	s->cfi_complete_known = true;
	s->cfi_complete = true;
	build_cfi(s);
	struct sw_elf_section text;
	/* The binary's .text (a debug file's is SHT_NOBITS: nothing to measure). */
	if (s->ncfi == 0 || !s->image || !sw_elf_section(s->image, ".text", &text) ||
	    text.size == 0)
		return s->cfi_complete;
	unsigned covered = 0;
	for (unsigned k = 0; k < CFI_COVERAGE_PROBES; k++) {
		/* The middle of the k-th of CFI_COVERAGE_PROBES equal parts. */
		uint64_t step = text.size / (2 * CFI_COVERAGE_PROBES);
		uint64_t at = step ? step * (2 * k + 1)
		                   : text.size * (2 * k + 1) / (2 * CFI_COVERAGE_PROBES);
		for (unsigned i = 0; i < s->ncfi; i++)
			if (sw_cfi_covers(s->cfi[i], text.addr + at)) {
				covered++;
				break;
			}
	}
	s->cfi_complete = 2 * covered >= CFI_COVERAGE_PROBES;
	return s->cfi_complete;
}

/* How close two functions' unwind entries lie across the padding that
 * aligns the second (x86 aligns functions to 16 bytes; no ABI we walk to
 * more than 64, and GCC's -falign-functions defaults stay below). */
enum { FDE_PADDING = 16 };

static bool cfi_covers_any(struct sw_elf_symbols *s, uint64_t vaddr)
{
	for (unsigned i = 0; i < s->ncfi; i++)
		if (sw_cfi_covers(s->cfi[i], vaddr))
			return true;
	return false;
}

/* Is vaddr, which no FDE covers, the padding between two functions that
 * have FDEs? Complete unwind tables (the measure of cfi_is_complete) are
 * complete for the code their compiler built, not for all of the file: a
 * static program built without unwind tables links its own code between
 * the C library's FDEs, and a file's hand-written assembly may have none.
 * An address with FDEs on both sides within the padding is no code; one
 * in a larger gap may well be. */
static bool between_fdes(struct sw_elf_symbols *s, uint64_t vaddr)
{
	unsigned below = 1, above = 1;
	while (below <= FDE_PADDING && (vaddr < below || !cfi_covers_any(s, vaddr - below)))
		below++;
	while (below <= FDE_PADDING && above <= FDE_PADDING && !cfi_covers_any(s, vaddr + above))
		above++;
	return below <= FDE_PADDING && above <= FDE_PADDING;
}

/* Code lies in executable segments (gABI "Program Header", PF_X): an
 * address in .data, .bss or .data.rel.ro is no code, whatever a symbol,
 * a stale word or a rule read from the wrong place says. */
static bool elf_in_code(void *self, uint64_t offset)
{
	struct sw_elf_symbols *s = self;
	uint64_t vaddr = offset + s->file_vaddr;
	struct sw_elf *images[4];
	unsigned n = symbol_images(s, images);
	for (unsigned i = 0; i < n; i++) {
		bool known;
		bool code = sw_elf_in_code_segment(images[i], vaddr, &known);
		if (known)
			return code;
	}
	return true;
}

static bool elf_code_section_start(void *self, uint64_t offset, uint64_t *start)
{
	struct sw_elf_symbols *s = self;
	uint64_t vaddr = offset + s->file_vaddr, at;
	struct sw_elf *images[4];
	unsigned n = symbol_images(s, images);
	for (unsigned i = 0; i < n; i++)
		if (sw_elf_code_section_start(images[i], vaddr, &at) && at >= s->file_vaddr) {
			*start = at - s->file_vaddr;
			return true;
		}
	return false;
}

static bool elf_has_function(void *self, uint64_t offset)
{
	struct sw_elf_symbols *s = self;
	uint64_t vaddr = offset + s->file_vaddr;
	if (!elf_in_code(self, offset))
		return false;
	struct sw_elf *images[4];
	unsigned n = symbol_images(s, images);
	if (has_symbol(s, vaddr))
		return true;
	build_cfi(s);
	if (cfi_covers_any(s, vaddr))
		return true;
	if (s->has_exidx && sw_exidx_covers(&s->exidx, vaddr))
		return true;
	/* A stripped file without (complete) unwind tables cannot say:
	 * Breakpad's rule (inside the module) stands alone. */
	for (unsigned i = 0; i < n; i++)
		if (sw_elf_info(images[i])->has_symtab)
			return false;
	/* ARM's index covers from its first entry on (GNU ld gives code
	 * without unwind information a CANTUNWIND entry, merged with the one
	 * before): an address below it is code only inside .text (main, which
	 * GCC puts in .text.startup before crt1.o's _start, in a program built
	 * without unwind tables), not in the PLT or crt code before. */
	if (s->has_exidx) {
		struct sw_elf_section text;
		return s->image && sw_elf_section(s->image, ".text", &text) &&
		       vaddr >= text.addr && vaddr - text.addr < text.size;
	}
	if (s->ncfi == 0 || !cfi_is_complete(s))
		return true;
	return !between_fdes(s, vaddr);
}

static bool elf_read_code(void *self, uint64_t offset, void *out, size_t n)
{
	struct sw_elf_symbols *s = self;
	/* Only the binary holds code: a debug file's code sections are
	 * SHT_NOBITS, and what lies at their file offsets is something else. */
	if (!s->image || !sw_elf_read(s->image, offset + s->file_vaddr, out, n))
		return false;
	/* Code that reads as zeros is not code: a file whose .text was
	 * blanked to save space (test and profiling corpora keep only the
	 * unwind tables), or a zero-filled tail. Say "unknown", not "no call
	 * here". */
	const uint8_t *b = out;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return true;
	return false;
}

/* ---- how to reach the caller ---- */

struct unwind_io_ctx {
	const struct sw_unwind_env *env;
};

static bool io_read_reg(void *self, uint32_t dwarf_reg, uint64_t *value)
{
	const struct unwind_io_ctx *c = self;
	int r = sw_arch_dwarf_reg(c->env->arch, dwarf_reg);
	if (r < 0 || !sw_reg_valid(&c->env->callee->regs, (unsigned)r))
		return false;
	*value = c->env->callee->regs.v[r];
	return true;
}

static bool io_read_mem(void *self, uint64_t addr, void *out, size_t n)
{
	const struct unwind_io_ctx *c = self;
	return sw_walk_read(c->env->walk, addr, out, n);
}

/* The caller's registers in the arch's numbering: what the rules
 * recovered, the callee's value of every callee-saved register the rules
 * leave alone (the ABI's rule, DWARF 5 §6.4.1 leaves them to it), sp =
 * the CFA unless a rule says otherwise, pc = the return-address column. */
static enum sw_unwind_status to_caller(const struct sw_unwind_env *env,
                                       const struct sw_unwind_result *r, bool from_exidx,
                                       struct sw_caller *out)
{
	const struct sw_arch *arch = env->arch;
	const struct sw_regs *callee = &env->callee->regs;
	memset(out, 0, sizeof *out);
	for (unsigned r_ours = 0; r_ours < arch->nregs; r_ours++)
		if ((arch->callee_saved >> r_ours & 1) && sw_reg_valid(callee, r_ours))
			sw_reg_set(&out->regs, r_ours, callee->v[r_ours]);
	for (uint32_t col = 0; col < SW_CFI_MAX_COLUMNS; col++) {
		int ours = sw_arch_dwarf_reg(arch, col);
		if (ours < 0)
			continue;
		if (sw_unwind_known(r, col))
			sw_reg_set(&out->regs, (unsigned)ours, r->v[col]);
		else if (sw_unwind_undefined(r, col))
			sw_reg_clear(&out->regs, (unsigned)ours);
	}
	/* EHABI's result holds the caller's pc itself (r15); DWARF's the
	 * return address in its column. */
	uint64_t pc;
	if (from_exidx ? sw_unwind_known(r, 15) : sw_unwind_known(r, r->ra_column)) {
		pc = r->v[from_exidx ? 15 : r->ra_column];
	} else {
		/* No rule for the return address: it is still where the callee
		 * had it (a leaf's link register, DWARF's "same value"). */
		int ra = sw_arch_dwarf_reg(arch, r->ra_column);
		if (ra < 0 || !sw_reg_valid(callee, (unsigned)ra))
			return SW_UNWIND_FAILED;
		pc = callee->v[ra];
	}
	if (!from_exidx && sw_unwind_known(r, r->ra_column) && r->ra_signed)
		pc = arch->strip_code_pointer(env->walk, pc);
	sw_reg_set(&out->regs, arch->pc, pc);
	int sp_col = -1;
	for (uint32_t col = 0; col < SW_CFI_MAX_COLUMNS && sp_col < 0; col++)
		if (sw_arch_dwarf_reg(arch, col) == arch->sp)
			sp_col = (int)col;
	if (from_exidx || sp_col < 0 || !sw_unwind_known(r, (uint32_t)sp_col))
		sw_reg_set(&out->regs, arch->sp, from_exidx ? r->v[13] : r->cfa);
	out->restored_context = r->signal_frame;
	out->dex_pc = r->dex_pc;
	return SW_UNWIND_OK;
}

/* ---- ARM's index: whose entry, and where a walk ends ----
 *
 * An .ARM.exidx entry covers up to the next entry's start, and GNU ld
 * gives code without unwind information (C built without -funwind-tables,
 * crtbegin.o's functions) no entry of its own: it lies under the entry
 * before it, usually the EXIDX_CANTUNWIND of crt1.o's _start, which ld
 * merges with every adjacent one (elf32-arm.c, elf32_arm_fix_exidx_coverage).
 * So an entry speaks for the code at vaddr only when the symbols do not
 * say that a function begins between the entry's start and vaddr, or that
 * the function the entry begins in ends before vaddr. Without symbols
 * nothing bounds it. */
static bool exidx_entry_reaches(struct sw_elf_symbols *s, uint64_t start, uint64_t vaddr)
{
	struct sw_elf_symbol sym;
	if (lookup_symbol(s, vaddr, &sym) && sym.addr > start)
		return false;
	return !(lookup_symbol(s, start, &sym) && sym.size && vaddr - sym.addr >= sym.size);
}

/* How far past the program's entry point its EXIDX_CANTUNWIND speaks for
 * the entry function when no symbol gives that function's size (a
 * stripped program; crt1.o's _start has none anyway): glibc's _start
 * (sysdeps/arm/start.S; Debian's armhf crt1.o and Scrt1.o, Thumb-2) calls
 * __libc_start_main at +0x24 and abort at +0x28, its literal pool ends at
 * +0x34, where call_weak_fn, crtbegin.o's functions and the program's
 * own follow. */
enum { PROGRAM_ENTRY_SPAN = 0x30 };

/* EXIDX_CANTUNWIND says only "no unwinding through here" (EHABI §6:
 * exception propagation stops), whether the function has a caller or not.
 * The one frame it ends a walk at is the program's entry point, which the
 * kernel or the dynamic loader jumped to: the entry of an executable
 * (e_entry), whose entry starts there. */
static bool exidx_program_entry(struct sw_elf_symbols *s, uint64_t start, uint64_t vaddr)
{
	const struct sw_elf_info *info = s->image ? sw_elf_info(s->image) : NULL;
	if (!info || info->entry == 0 || (info->type != ET_EXEC && info->type != ET_DYN) ||
	    (info->entry & ~(uint64_t)1) != start)
		return false;
	struct sw_elf_symbol sym;
	if (lookup_symbol(s, start, &sym) && sym.addr == start && sym.size)
		return vaddr - start < sym.size;
	return vaddr - start < PROGRAM_ENTRY_SPAN;
}

/* The caller by .ARM.exidx: NO_RULE where no entry of the code at vaddr's
 * function covers it, or where its entry says EXIDX_CANTUNWIND or "refuse
 * to unwind" anywhere but at the program's entry point (END there). */
static enum sw_cfi_status exidx_unwind(struct sw_elf_symbols *s, uint64_t vaddr,
                                       const struct sw_unwind_io *io, struct sw_unwind_result *r)
{
	uint64_t start, at = vaddr & ~(uint64_t)1;
	bool cantunwind;
	if (!sw_exidx_entry_start(&s->exidx, at, &start, &cantunwind) ||
	    !exidx_entry_reaches(s, start, at))
		return SW_CFI_NO_RULE;
	enum sw_cfi_status st = cantunwind ? SW_CFI_END : sw_exidx_unwind(&s->exidx, vaddr, io, r);
	if (st == SW_CFI_END && !exidx_program_entry(s, start, at))
		return SW_CFI_NO_RULE;
	return st;
}

/* --explain: DWARF register n by the CPU's name for it, else its number. */
static void dwarf_reg_name(const struct sw_arch *arch, uint64_t n, char *buf, size_t cap)
{
	int r = n < 4096 ? sw_arch_dwarf_reg(arch, (unsigned)n) : -1;
	if (r >= 0 && arch->reg_names && arch->reg_names[r])
		snprintf(buf, cap, "%s", arch->reg_names[r]);
	else
		snprintf(buf, cap, "DWARF register %" PRIu64, n);
}

/* --explain: the rules that gave the caller, from `source`: the FDE's
 * range (file addresses), the CFA rule and the return address's rule, as
 * readelf --debug-dump=frames spells such a row. */
static void describe_row(const struct sw_unwind_env *env, const char *source,
                         const struct sw_unwind_result *r)
{
	char cfa[64] = "an expression", ra[64] = "the ABI's default";
	char reg[40];
	if (r->row.cfa == SW_ROW_CFA_REG) {
		dwarf_reg_name(env->arch, r->row.cfa_reg, reg, sizeof reg);
		snprintf(cfa, sizeof cfa, "%s%+" PRId64, reg, r->row.cfa_offset);
	}
	switch (r->row.ra) {
	case SW_ROW_RA_AT_CFA:
		snprintf(ra, sizeof ra, "[CFA%+" PRId64 "]", r->row.ra_value);
		break;
	case SW_ROW_RA_CFA_PLUS:
		snprintf(ra, sizeof ra, "CFA%+" PRId64, r->row.ra_value);
		break;
	case SW_ROW_RA_REGISTER:
		dwarf_reg_name(env->arch, (uint64_t)r->row.ra_value, ra, sizeof ra);
		break;
	case SW_ROW_RA_SAME:
		snprintf(ra, sizeof ra, "unchanged");
		break;
	case SW_ROW_RA_EXPR:
		snprintf(ra, sizeof ra, "an expression");
		break;
	case SW_ROW_RA_DEFAULT:
		break;
	}
	if (r->row.cfa == SW_ROW_CFA_NONE)
		snprintf(env->rule, env->rule_cap, "%s", source);
	else
		snprintf(env->rule, env->rule_cap,
		         "%s, FDE [0x%" PRIx64 ", 0x%" PRIx64 "): CFA=%s ra=%s%s", source,
		         r->row.pc_begin, r->row.pc_end, cfa, ra,
		         r->signal_frame ? " (signal frame)" : "");
}

static enum sw_unwind_status elf_unwind(void *self, uint64_t offset,
                                        const struct sw_unwind_env *env,
                                        struct sw_caller *caller, enum sw_trust *trust)
{
	struct sw_elf_symbols *s = self;
	uint64_t vaddr = offset + s->file_vaddr;
	build_cfi(s);
	struct unwind_io_ctx ctx = { env };
	struct sw_unwind_io io = {
		.self = &ctx,
		.read_reg = io_read_reg,
		.read_mem = io_read_mem,
		.word_size = s->word_size,
		.big_endian = s->big_endian,
	};
	struct sw_unwind_result r;
	enum sw_unwind_status failed = SW_UNWIND_NO_RULE;
	for (unsigned i = 0; i <= s->ncfi; i++) {
		bool exidx = i == s->ncfi;
		if (exidx && !s->has_exidx)
			break;
		memset(&r, 0, sizeof r);
		enum sw_cfi_status st = exidx ? exidx_unwind(s, vaddr, &io, &r)
		                              : sw_cfi_unwind(s->cfi[i], vaddr, &io, &r);
		if (st == SW_CFI_END)
			return SW_UNWIND_END;
		if (st == SW_CFI_FAILED)
			failed = SW_UNWIND_FAILED;
		if (st != SW_CFI_OK)
			continue;
		if (to_caller(env, &r, exidx, caller) == SW_UNWIND_OK) {
			*trust = SW_TRUST_CFI;
			if (env->rule)
				describe_row(env, exidx ? ".ARM.exidx" : s->cfi_source[i], &r);
			return SW_UNWIND_OK;
		}
		failed = SW_UNWIND_FAILED;
	}
	return failed;
}

const struct sw_symbols_ops sw_elf_symbols_ops = {
	.lookup = elf_lookup,
	.unwind = elf_unwind,
	.has_function = elf_has_function,
	.in_code = elf_in_code,
	.code_section_start = elf_code_section_start,
	.read_code = elf_read_code,
};
