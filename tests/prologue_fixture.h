/* Reads the real-code fixtures of testdata/code/ made by gen_mips_riscv.sh
 * and gen_arm_prologue.sh (format in testdata/code/README.md: the
 * gen_arm_ppc.sh lines plus `abi` or `isa`, `store`, `fde` and `cfi`) and
 * checks an arch's prologue analysis against the
 * compiler's own call frame information, at every instruction of every
 * function and at every return address. */
#ifndef SW_TEST_PROLOGUE_FIXTURE_H
#define SW_TEST_PROLOGUE_FIXTURE_H

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/walker.h"

struct pf_func {
	uint64_t addr, size;
	char name[32];
};

/* A row of the interpreted CFI: from loc on, CFA = cfa_reg + cfa_off and
 * each saved register is at CFA + off. unknown: a rule this test does not
 * model (the row is skipped). */
struct pf_row {
	uint64_t loc;
	int cfa_reg;
	int64_t cfa_off;
	bool unknown;
	unsigned nsaved;
	int saved_reg[16];
	int64_t saved_off[16];
};

/* An instruction storing register reg at [base + off]. */
struct pf_store {
	uint64_t addr;
	int reg, base;
	int64_t off;
};

/* The instruction at addr changes register reg. */
struct pf_move {
	uint64_t addr;
	int reg;
};

struct pf_fde {
	uint64_t lo, hi;
	size_t first, n;      /* its rows */
};

struct pro_fixture {
	const char *name;
	const struct sw_arch *arch;
	bool big_endian;
	bool thumb;           /* ARM: the text is Thumb code (`isa thumb`) */
	unsigned fp;          /* the frame pointer the code uses */
	unsigned reg_width;   /* bytes a register save stores (n32: 8) */
	uint64_t text_addr;
	size_t text_size, filled;
	uint8_t *text;
	struct pf_func *funcs;
	size_t nfuncs;
	uint64_t *calls, *insns;   /* return addresses; other instruction ends */
	size_t ncalls, ninsns;
	struct pf_store *stores;   /* saves, as objdump reads them */
	size_t nstores;
	struct pf_fde *fdes;
	size_t nfdes;
	struct pf_row *rows;
	size_t nrows;
	struct pf_move *moves; /* instructions that change a CFA base (`move`, ARM) */
	size_t nmoves;
	uint64_t *data;       /* data in the text (`data`, ARM): no instruction starts there */
	size_t ndata;
};

#define PF_PUSH(v, n, x)                                                        \
	do {                                                                    \
		void *p_ = realloc((v), ((n) + 1) * sizeof *(v));               \
		ck_assert_ptr_nonnull(p_);                                      \
		(v) = p_;                                                       \
		(v)[(n)++] = (x);                                               \
	} while (0)

static inline void pf_parse_row(struct pro_fixture *f, const char *line, struct pf_row *row)
{
	char reg[16], rest[400];
	uint64_t loc;
	long long off;
	memset(row, 0, sizeof *row);
	int n = sscanf(line, "cfi %" SCNx64 " %15s %lld %399[^\n]", &loc, reg, &off, rest);
	ck_assert_msg(n >= 3, "%s: bad cfi line %s", f->name, line);
	row->loc = loc;
	row->cfa_off = off;
	row->cfa_reg = sw_arch_reg_index(f->arch, reg, strlen(reg));
	row->unknown = row->cfa_reg < 0;
	if (n < 4)
		return;
	for (char *tok = strtok(rest, " "); tok; tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		ck_assert_ptr_nonnull(eq);
		int r = sw_arch_reg_index(f->arch, tok, (size_t)(eq - tok));
		if (r < 0 || eq[1] == '?' || row->nsaved == 16) {
			row->unknown = true;
			continue;
		}
		row->saved_reg[row->nsaved] = r;
		row->saved_off[row->nsaved++] = strtoll(eq + 1, NULL, 10);
	}
}

/* Loads testdata/code/<name>; fails the test on any malformed line. */
static inline void pro_fixture_load(const char *name, struct pro_fixture *f)
{
	memset(f, 0, sizeof *f);
	f->name = name;
	const char *root = getenv("SW_TESTDATA");
	char path[1024];
	snprintf(path, sizeof path, "%s/code/%s", root ? root : "testdata", name);
	FILE *fp = fopen(path, "r");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	char line[1024], word[64];
	uint64_t a, b;
	while (fgets(line, sizeof line, fp)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "arch %63s", word) == 1) {
			f->arch = !strcmp(word, "mips") ? &sw_arch_mips
			        : !strcmp(word, "mips64") ? &sw_arch_mips64
			        : !strcmp(word, "riscv32") ? &sw_arch_riscv32
			        : !strcmp(word, "riscv64") ? &sw_arch_riscv64
			        : !strcmp(word, "arm") ? &sw_arch_arm
			        : !strcmp(word, "arm64") ? &sw_arch_arm64 : NULL;
			ck_assert_msg(f->arch != NULL, "%s: arch %s", name, word);
			f->reg_width = f->arch->word_size;
			f->fp = f->arch->fp;
		} else if (sscanf(line, "isa %63s", word) == 1) {
			/* GCC's Thumb frame pointer is r7 (arch/arm.c). */
			f->thumb = strcmp(word, "thumb") == 0;
			if (f->thumb)
				f->fp = 7;
		} else if (sscanf(line, "endian %63s", word) == 1) {
			f->big_endian = strcmp(word, "big") == 0;
		} else if (sscanf(line, "abi %63s", word) == 1) {
			if (!strcmp(word, "n32"))
				f->reg_width = 8;
		} else if (sscanf(line, "text %" SCNx64 " %" SCNu64, &a, &b) == 2) {
			ck_assert(b > 0 && b < (1u << 20));
			f->text_addr = a;
			f->text_size = (size_t)b;
			f->text = calloc(1, f->text_size);
			ck_assert_ptr_nonnull(f->text);
		} else if (strncmp(line, "bytes ", 6) == 0) {
			for (const char *p = line + 6; p[0] && p[1] && p[0] != '\n'; p += 2) {
				unsigned byte;
				ck_assert(sscanf(p, "%2x", &byte) == 1);
				ck_assert(f->filled < f->text_size);
				f->text[f->filled++] = (uint8_t)byte;
			}
		} else if (strncmp(line, "func ", 5) == 0) {
			struct pf_func fn;
			memset(&fn, 0, sizeof fn);
			ck_assert(sscanf(line, "func %" SCNx64 " %" SCNx64 " %31s", &fn.addr, &fn.size,
			                 fn.name) == 3);
			PF_PUSH(f->funcs, f->nfuncs, fn);
		} else if (sscanf(line, "call %" SCNx64, &a) == 1) {
			PF_PUSH(f->calls, f->ncalls, a);
		} else if (sscanf(line, "insn %" SCNx64, &a) == 1) {
			PF_PUSH(f->insns, f->ninsns, a);
		} else if (strncmp(line, "store ", 6) == 0) {
			struct pf_store st;
			char reg[16], base[16];
			long long off;
			ck_assert(sscanf(line, "store %" SCNx64 " %15s %15s %lld", &st.addr, reg, base,
			                 &off) == 4);
			st.reg = sw_arch_reg_index(f->arch, reg, strlen(reg));
			st.base = sw_arch_reg_index(f->arch, base, strlen(base));
			st.off = off;
			ck_assert(st.reg >= 0 && st.base >= 0);
			PF_PUSH(f->stores, f->nstores, st);
		} else if (sscanf(line, "data %" SCNx64, &a) == 1) {
			PF_PUSH(f->data, f->ndata, a);
		} else if (sscanf(line, "move %" SCNx64 " %63s", &a, word) == 2) {
			struct pf_move mv = { a, sw_arch_reg_index(f->arch, word, strlen(word)) };
			ck_assert(mv.reg >= 0);
			PF_PUSH(f->moves, f->nmoves, mv);
		} else if (sscanf(line, "fde %" SCNx64 " %" SCNx64, &a, &b) == 2) {
			struct pf_fde fde = { a, b, f->nrows, 0 };
			PF_PUSH(f->fdes, f->nfdes, fde);
		} else if (strncmp(line, "cfi ", 4) == 0) {
			ck_assert(f->nfdes > 0);
			struct pf_row row;
			pf_parse_row(f, line, &row);
			PF_PUSH(f->rows, f->nrows, row);
			f->fdes[f->nfdes - 1].n++;
		} else {
			ck_abort_msg("%s: unexpected line: %s", path, line);
		}
	}
	fclose(fp);
	ck_assert(f->arch != NULL);
	ck_assert_uint_eq(f->filled, f->text_size);
	ck_assert_uint_gt(f->ncalls, 0);
	ck_assert_uint_gt(f->nfuncs, 0);
	ck_assert_uint_gt(f->nfdes, 0);
}

static inline void pro_fixture_free(struct pro_fixture *f)
{
	free(f->text);
	free(f->funcs);
	free(f->calls);
	free(f->insns);
	free(f->stores);
	free(f->fdes);
	free(f->rows);
	free(f->moves);
	free(f->data);
	memset(f, 0, sizeof *f);
}

static inline const struct pf_func *pf_func_at(const struct pro_fixture *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nfuncs; i++)
		if (addr - f->funcs[i].addr < f->funcs[i].size)
			return &f->funcs[i];
	return NULL;
}

static inline const struct pf_fde *pf_fde_at(const struct pro_fixture *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nfdes; i++)
		if (addr >= f->fdes[i].lo && addr < f->fdes[i].hi)
			return &f->fdes[i];
	return NULL;
}

/* The row in force at addr, and through *earlier the offset at which each
 * register was last saved by any row before it (0: never). */
static inline const struct pf_row *pf_row_at(const struct pro_fixture *f, const struct pf_fde *fde,
                                             uint64_t addr, int64_t earlier[SW_MAX_REGS])
{
	const struct pf_row *row = NULL;
	memset(earlier, 0, SW_MAX_REGS * sizeof earlier[0]);
	for (size_t i = fde->first; i < fde->first + fde->n && f->rows[i].loc <= addr; i++) {
		row = &f->rows[i];
		for (unsigned k = 0; k < row->nsaved; k++)
			earlier[row->saved_reg[k]] = row->saved_off[k];
	}
	return row;
}

/* Did an instruction of fn before pc save register r (objdump's reading
 * of the stores, for a register the FDE's CFI names saved somewhere: o32's
 * .cprestore stores the function's own gp)? *slot: the CFA-relative
 * address, by the last row at or before the store that locates the CFA
 * from the store's base register (prologue stores precede any alloca). */
static inline bool pf_stored(const struct pro_fixture *f, const struct pf_fde *fde,
                             const struct pf_func *fn, uint64_t pc, int r, int64_t *slot)
{
	bool named = false;
	for (size_t i = fde->first; i < fde->first + fde->n; i++)
		for (unsigned k = 0; k < f->rows[i].nsaved; k++)
			named |= f->rows[i].saved_reg[k] == r;
	if (!named)
		return false;
	for (size_t i = 0; i < f->nstores; i++) {
		const struct pf_store *st = &f->stores[i];
		if (st->reg != r || st->addr < fn->addr || st->addr >= pc)
			continue;
		const struct pf_row *base = NULL;
		for (size_t k = fde->first; k < fde->first + fde->n && f->rows[k].loc <= st->addr; k++)
			if (!f->rows[k].unknown && f->rows[k].cfa_reg == st->base)
				base = &f->rows[k];
		if (!base)
			continue;
		*slot = st->off - base->cfa_off;
		return true;
	}
	return false;
}

/* ---- a snapshot: the fixture's code as a module, and a stack ---- */

#define PF_STACK_SIZE 0x30000u
#define PF_STACK_BASE 0x7f000000u
#define PF_CFA (PF_STACK_BASE + 0x28000u)

struct pf_machine {
	const struct pro_fixture *f;
	struct sw_snapshot snap;
	struct sw_mem_region regions[2];
	struct sw_module module;
	struct sw_thread thread;
	uint8_t *stack;
	struct sw_arena arena;
	struct sw_module_symbols syms;
	struct sw_symbol_source source;
	struct sw_walk walk;
	struct sw_walk_result result;
};

static inline bool pf_lookup(void *self, uint64_t off, struct sw_arena *a, struct sw_sym_info *out)
{
	(void)a;
	const struct pro_fixture *f = self;
	const struct pf_func *fn = pf_func_at(f, f->text_addr + off);
	if (!fn)
		return false;
	memset(out, 0, sizeof *out);
	out->function = fn->name;
	out->function_offset = fn->addr - f->text_addr;
	out->function_size = fn->size;
	return true;
}

static inline bool pf_has_function(void *self, uint64_t off)
{
	const struct pro_fixture *f = self;
	return pf_func_at(f, f->text_addr + off) != NULL;
}

static const struct sw_symbols_ops pf_ops = {
	.lookup = pf_lookup,
	.has_function = pf_has_function,
};

static inline const struct sw_module_symbols *pf_for_module(void *self, uint32_t m,
                                                            enum sw_symbols_status *st)
{
	struct pf_machine *pm = self;
	(void)m;
	*st = SW_SYMS_LOADED;
	return &pm->syms;
}

/* with_symbols: the module's functions are known (FUNC records). */
static inline void pf_machine_init(struct pf_machine *pm, const struct pro_fixture *f,
                                   bool with_symbols)
{
	memset(pm, 0, sizeof *pm);
	pm->f = f;
	pm->stack = calloc(1, PF_STACK_SIZE);
	ck_assert_ptr_nonnull(pm->stack);
	sw_snapshot_init(&pm->snap, f->name);
	pm->snap.sys.cpu = f->arch->cpu;
	pm->snap.sys.os = SW_OS_LINUX;
	pm->snap.sys.word_size = f->arch->word_size;
	pm->snap.sys.big_endian = f->big_endian;
	pm->regions[0] = (struct sw_mem_region){ f->text_addr, f->text_size, f->text };
	pm->regions[1] = (struct sw_mem_region){ PF_STACK_BASE, PF_STACK_SIZE, pm->stack };
	pm->snap.mem = pm->regions;
	pm->snap.nmem = 2;
	pm->module = (struct sw_module){ .base = f->text_addr, .size = f->text_size,
	                                 .code_file = "prog" };
	pm->snap.modules = &pm->module;
	pm->snap.nmodules = 1;
	pm->thread.id = 1;
	pm->thread.stack_base = PF_STACK_BASE;
	pm->thread.stack_size = PF_STACK_SIZE;
	pm->snap.threads = &pm->thread;
	pm->snap.nthreads = 1;
	sw_snapshot_finish(&pm->snap);
	sw_arena_init(&pm->arena);
	pm->syms = (struct sw_module_symbols){ &pf_ops, (void *)f };
	pm->source = (struct sw_symbol_source){ .self = pm, .for_module = pf_for_module };
	pm->walk = (struct sw_walk){
		.snap = &pm->snap, .arch = f->arch, .symbols = with_symbols ? &pm->source : NULL,
		.arena = &pm->arena, .stack_lo = PF_STACK_BASE,
		.stack_hi = PF_STACK_BASE + PF_STACK_SIZE, .address_mask = UINT64_MAX,
	};
}

/* A machine for arch without any code: f is emptied and named `name`, the
 * snapshot holds only the stack, and its one module (libc.so at lib_base,
 * 64 KiB) has no bytes: the checks that read code cannot. */
static inline void pf_machine_init_without_code(struct pf_machine *pm, struct pro_fixture *f,
                                                const char *name, const struct sw_arch *arch,
                                                uint64_t lib_base)
{
	memset(f, 0, sizeof *f);
	f->name = name;
	f->arch = arch;
	f->reg_width = arch->word_size;
	pf_machine_init(pm, f, false);
	pm->module = (struct sw_module){ .base = lib_base, .size = 0x10000, .code_file = "libc.so" };
	pm->regions[0] = pm->regions[1];
	pm->snap.nmem = 1;
	sw_snapshot_finish(&pm->snap);
}

static inline void pf_machine_free(struct pf_machine *pm)
{
	sw_arena_free(&pm->arena);
	pm->snap.mem = NULL;
	pm->snap.modules = NULL;
	pm->snap.threads = NULL;
	sw_snapshot_free(&pm->snap);
	free(pm->stack);
}

/* Stores a value of n bytes at addr in the fixture's byte order. */
static inline void pf_put(struct pf_machine *pm, uint64_t addr, uint64_t v, unsigned n)
{
	ck_assert(addr >= PF_STACK_BASE && addr + n <= PF_STACK_BASE + PF_STACK_SIZE);
	for (unsigned i = 0; i < n; i++) {
		unsigned shift = 8 * (pm->f->big_endian ? n - 1 - i : i);
		pm->stack[addr - PF_STACK_BASE + i] = (uint8_t)(v >> shift);
	}
}

/* Walks the machine's snapshot (finished by pf_machine_init): its one stack. */
static inline const struct sw_stack *pf_walk(struct pf_machine *pm,
                                             const struct sw_symbol_source *src)
{
	ck_assert(sw_walk_snapshot(&pm->snap, pm->f->arch, src, NULL, &pm->arena, &pm->result));
	ck_assert_uint_eq(pm->result.nstacks, 1);
	return &pm->result.stacks[0];
}

/* The fixture's function of that name (it must have one). */
static inline const struct pf_func *pf_func_named(const struct pro_fixture *f, const char *name)
{
	for (size_t i = 0; i < f->nfuncs; i++)
		if (!strcmp(f->funcs[i].name, name))
			return &f->funcs[i];
	ck_abort_msg("%s: no function %s", f->name, name);
	return NULL;
}

/* The first return address of a call inside fn. */
static inline uint64_t pf_call_in(const struct pro_fixture *f, const struct pf_func *fn)
{
	for (size_t i = 0; i < f->ncalls; i++)
		if (f->calls[i] > fn->addr && f->calls[i] < fn->addr + fn->size)
			return f->calls[i];
	ck_abort_msg("%s: no call in %s", f->name, fn->name);
	return 0;
}

/* Symbols from a parsed .sym (symbols/breakpad_sym.h), for every module. */
struct sw_bsym;
struct pf_bsym_source {
	struct sw_bsym *b;
	struct sw_module_symbols syms;
	struct sw_symbol_source source;
};

static inline const struct sw_module_symbols *pf_bsym_for_module(void *self, uint32_t m,
                                                                 enum sw_symbols_status *st)
{
	struct pf_bsym_source *bs = self;
	(void)m;
	*st = SW_SYMS_LOADED;
	return &bs->syms;
}

/* The value the caller had in register r (a recognizable marker). */
static inline uint64_t pf_marker(unsigned r)
{
	return 0x10000000u + 0x1100u * r;
}

/* ---- the check ---- */

struct pf_result {
	size_t checked, agreed;
	char first_miss[200];
};

/* Sets the machine up as the code at pc would have it, per the CFI row
 * (the CFA at PF_CFA, every register the caller had at its marker, in its
 * slot when the row says so, the caller's return address ra_marker), and
 * asks the hook for the caller. live: pc is a context frame's (executing
 * at pc), else a return address of a suspended frame. Returns whether the
 * hook's answer matches the CFI's. */
static inline bool pf_check_pc(struct pf_machine *pm, const struct pf_func *fn, uint64_t pc,
                               bool live, uint64_t ra_marker,
                               enum sw_unwind_status (*hook)(const struct sw_step *,
                                                             struct sw_caller *),
                               bool *skipped, char *why, size_t whylen)
{
	const struct pro_fixture *f = pm->f;
	const struct sw_arch *arch = f->arch;
	*skipped = false;
	const struct pf_fde *fde = pf_fde_at(f, pc);
	if (!live && (!fde || fde->lo > fn->addr || pc >= fn->addr + fn->size)) {
		/* A call that ends its function: its own FDE, whose last row may
		 * start at its end (after a delay slot that changed the frame).
		 * (A Thumb return address is that end + 1.) */
		fde = pf_fde_at(f, (pc & ~(uint64_t)f->thumb) - 1);
	}
	int64_t earlier[SW_MAX_REGS];
	const struct pf_row *row = fde ? pf_row_at(f, fde, pc & ~(uint64_t)(f->thumb), earlier) : NULL;
	if (!row || row->unknown) {
		*skipped = true;
		return true;
	}
	/* GCC's ARM CFI names no row between the instructions of a multi-step
	 * epilogue (add sp, sp, #8192; add sp, sp, #12; pop {pc}, or add.w r7,
	 * r7, #8192; adds r7, #8; mov sp, r7): a row on a register that an
	 * instruction since the row's start has changed is stale. */
	for (size_t i = 0; i < f->nmoves; i++)
		if (f->moves[i].reg == row->cfa_reg && f->moves[i].addr >= row->loc &&
		    f->moves[i].addr < (pc & ~(uint64_t)f->thumb)) {
			*skipped = true;
			return true;
		}
	memset(pm->stack, 0, PF_STACK_SIZE);
	const uint64_t cfa = PF_CFA;
	struct sw_frame callee;
	memset(&callee, 0, sizeof callee);
	callee.pc = pc;
	callee.lookup_pc = live ? pc : arch->call_site(pc);
	/* A suspended frame whose sp is exact (the CFA of the frame below, as
	 * CFI gives it): a scan or a frame record would give only a bound for
	 * it (lib/walker.c, sp_only_bounded), which arm64 refuses to read
	 * slots from. */
	callee.trust = live ? SW_TRUST_CONTEXT : SW_TRUST_CFI;
	callee.module = 0;
	if (pm->walk.symbols) {
		callee.function = fn->name;
		callee.function_base = fn->addr;
	}
	/* Every callee-saved register and ra hold what the caller had (the
	 * marker), or junk once the function saved and may have changed them;
	 * each slot a store wrote before pc holds the marker. The CFI and the
	 * stores (objdump's reading) say when: GCC may name a group of saves
	 * after its last store, or a save in a delay slot before it runs. A
	 * register a row no longer lists after an earlier one saved it was
	 * reloaded: it and its slot hold the marker. */
	bool saved_now[SW_MAX_REGS] = { false }, stored[SW_MAX_REGS] = { false };
	for (unsigned k = 0; k < row->nsaved; k++)
		saved_now[row->saved_reg[k]] = true;
	bool called = false; /* has a call replaced ra since the function began? */
	for (size_t i = 0; i < f->ncalls; i++) {
		uint64_t site = arch->call_site(f->calls[i]);
		if (site >= fn->addr && site < pc && (f->calls[i] & ~(uint64_t)f->thumb) <= pc)
			called = true;
	}
	for (unsigned r = 0; r < 32; r++) {
		bool tracked = (arch->callee_saved >> r & 1) || (int)r == arch->ra;
		if (!tracked || r == arch->sp)
			continue;
		bool is_ra = (int)r == arch->ra;
		uint64_t marker = is_ra ? ra_marker : pf_marker(r);
		int64_t slot;
		stored[r] = pf_stored(f, fde, fn, pc, (int)r, &slot);
		if (stored[r])
			pf_put(pm, cfa + (uint64_t)slot, marker, f->reg_width);
		if (earlier[r])
			pf_put(pm, cfa + (uint64_t)earlier[r], marker, f->reg_width);
		bool reloaded = earlier[r] && !saved_now[r];
		uint64_t value = marker;
		if (is_ra)
			value = live && (!called || reloaded) ? marker : pc;
		else if (stored[r] && saved_now[r])
			value = 0xbad00000u + r;
		sw_reg_set(&callee.regs, r, value);
	}
	/* A frame pointer keeps pointing into the frame until reloaded. */
	for (size_t i = fde->first; i < fde->first + fde->n && f->rows[i].loc <= pc; i++)
		if (f->rows[i].cfa_reg == (int)f->fp && saved_now[f->fp])
			sw_reg_set(&callee.regs, f->fp, cfa - (uint64_t)f->rows[i].cfa_off);
	/* The CFA's register as the row says; sp far below when it is fp. */
	uint64_t base = cfa - (uint64_t)row->cfa_off;
	if (row->cfa_reg == (int)arch->sp) {
		sw_reg_set(&callee.regs, arch->sp, base);
	} else {
		sw_reg_set(&callee.regs, row->cfa_reg, base);
		sw_reg_set(&callee.regs, arch->sp, cfa - 0x20000);
	}
	if (arch->word_size == 4) {
		for (unsigned r = 0; r < 32; r++)
			callee.regs.v[r] &= 0xffffffffu;
	}
	sw_reg_set(&callee.regs, arch->pc, pc);
	/* ARM: the context's instruction set is the CPSR's T bit (ARM ARM
	 * B1.3.3); a suspended frame's is its return address's bit 0. */
	if (arch->cpu == SW_CPU_ARM)
		sw_reg_set(&callee.regs, 16, f->thumb ? 0x30u : 0x10u);

	bool expect_ok = stored[arch->ra] || earlier[arch->ra] || (live && !called);
	/* Without symbols nothing bounds the search for the start of the
	 * text's first function (no code before it says where it begins):
	 * there the hook may find no rule, but must not give a wrong one. */
	bool may_fail = !pm->walk.symbols && fn->addr == f->text_addr;
	struct sw_step step = { .walk = &pm->walk, .callee = &callee, .callee_callee = NULL };
	struct sw_caller out;
	memset(&out, 0, sizeof out);
	enum sw_unwind_status st = hook(&step, &out);
	if (may_fail && st != SW_UNWIND_OK)
		return true;
	/* ARM's prologue analysis without symbols starts at a save of lr:
	 * before it (a leaf, a prologue not yet run) the live lr is the frame
	 * pointer hook's (arch/arm.c), so no rule is an answer there. */
	if (arch->cpu == SW_CPU_ARM && !pm->walk.symbols && !stored[arch->ra] && !earlier[arch->ra] &&
	    st == SW_UNWIND_NO_RULE) {
		*skipped = true;
		return true;
	}
	if (!expect_ok) {
		snprintf(why, whylen, "%s at 0x%" PRIx64 "%s: status %d, expected no rule", fn->name,
		         pc, live ? "" : " (return address)", (int)st);
		return st != SW_UNWIND_OK;
	}
	if (st != SW_UNWIND_OK) {
		snprintf(why, whylen, "%s at 0x%" PRIx64 "%s: status %d", fn->name, pc,
		         live ? "" : " (return address)", (int)st);
		return false;
	}
	if (out.regs.v[arch->sp] != cfa || out.regs.v[arch->pc] != ra_marker) {
		snprintf(why, whylen, "%s at 0x%" PRIx64 "%s: sp 0x%" PRIx64 " (CFI: 0x%" PRIx64
		         "), pc 0x%" PRIx64 " (0x%" PRIx64 ")", fn->name, pc,
		         live ? "" : " (return address)", out.regs.v[arch->sp], cfa,
		         out.regs.v[arch->pc], ra_marker);
		return false;
	}
	for (unsigned r = 0; r < 32; r++) {
		bool tracked = (arch->callee_saved >> r & 1);
		if (!tracked || r == arch->sp || !(stored[r] || earlier[r]))
			continue;
		uint64_t want = pf_marker(r) & (arch->word_size == 4 ? 0xffffffffu : UINT64_MAX);
		if (!sw_reg_valid(&out.regs, r) || out.regs.v[r] != want) {
			snprintf(why, whylen, "%s at 0x%" PRIx64 "%s: %s = 0x%" PRIx64 "%s", fn->name, pc,
			         live ? "" : " (return address)", arch->reg_names[r], out.regs.v[r],
			         sw_reg_valid(&out.regs, r) ? "" : " (not recovered)");
			return false;
		}
	}
	return true;
}

/* Instruction starts of the fixture inside fn: every 4 bytes on MIPS,
 * the ends of the previous instructions on RISC-V and ARM (Thumb ends
 * carry the Thumb bit). */
static inline bool pf_is_insn_start(const struct pro_fixture *f, uint64_t a)
{
	if (f->arch->cpu == SW_CPU_MIPS || f->arch->cpu == SW_CPU_MIPS64)
		return (a & 3) == 0;
	for (size_t i = 0; i < f->ndata; i++)
		if (f->data[i] == a)
			return false;
	for (size_t i = 0; i < f->ninsns; i++)
		if ((f->insns[i] & ~(uint64_t)f->thumb) == a)
			return true;
	for (size_t i = 0; i < f->ncalls; i++)
		if ((f->calls[i] & ~(uint64_t)f->thumb) == a)
			return true;
	return false;
}

/* Runs the check at every instruction of every function (as a context
 * frame) and at every return address (as a suspended frame). With
 * PF_VERBOSE set in the environment every disagreement is printed. */
static inline struct pf_result pf_check_fixture(const struct pro_fixture *f, bool with_symbols,
                                                enum sw_unwind_status (*hook)(const struct sw_step *,
                                                                              struct sw_caller *))
{
	struct pf_result res;
	memset(&res, 0, sizeof res);
	struct pf_machine pm;
	pf_machine_init(&pm, f, with_symbols);
	/* The caller's return address: a real one, inside `entry` (and for
	 * `entry` itself one inside another function: a live lr into the
	 * function it is in would say recursion). */
	uint64_t ra_marker = 0, ra_other = 0;
	const struct pf_func *entry = NULL;
	for (size_t i = 0; i < f->nfuncs; i++)
		if (!strcmp(f->funcs[i].name, "entry"))
			entry = &f->funcs[i];
	ck_assert_ptr_nonnull(entry);
	for (size_t i = 0; i < f->ncalls && !ra_marker; i++)
		if (f->calls[i] > entry->addr + 8 && f->calls[i] < entry->addr + entry->size)
			ra_marker = f->calls[i];
	ck_assert(ra_marker != 0);
	for (size_t i = 0; i < f->ncalls && !ra_other; i++)
		if (pf_func_at(f, f->arch->call_site(f->calls[i])) != entry)
			ra_other = f->calls[i];
	ck_assert(ra_other != 0);
	for (size_t k = 0; k < f->nfuncs; k++) {
		const struct pf_func *fn = &f->funcs[k];
		for (uint64_t pc = fn->addr; pc < fn->addr + fn->size; pc += 2) {
			if (!pf_is_insn_start(f, pc))
				continue;
			bool skipped;
			char why[200];
			bool ok = pf_check_pc(&pm, fn, pc, true, fn == entry ? ra_other : ra_marker, hook,
			                      &skipped, why, sizeof why);
			if (skipped)
				continue;
			res.checked++;
			res.agreed += ok;
			if (!ok && !res.first_miss[0])
				snprintf(res.first_miss, sizeof res.first_miss, "%s", why);
			if (!ok && getenv("PF_VERBOSE"))
				fprintf(stderr, "%s%s: %s\n", with_symbols ? "" : "[no symbols] ", f->name, why);
		}
	}
	for (size_t i = 0; i < f->ncalls; i++) {
		uint64_t ra = f->calls[i];
		const struct pf_func *fn = pf_func_at(f, f->arch->call_site(ra));
		ck_assert_ptr_nonnull(fn);
		bool skipped;
		char why[200];
		bool ok = pf_check_pc(&pm, fn, ra, false, fn == entry ? ra_other : ra_marker, hook,
		                      &skipped, why, sizeof why);
		if (skipped)
			continue;
		res.checked++;
		res.agreed += ok;
		if (!ok && !res.first_miss[0])
			snprintf(res.first_miss, sizeof res.first_miss, "%s", why);
		if (!ok && getenv("PF_VERBOSE"))
			fprintf(stderr, "%s%s: %s\n", with_symbols ? "" : "[no symbols] ", f->name, why);
	}
	pf_machine_free(&pm);
	return res;
}


/* Whether x is a return address a call of the fixture leaves (objdump's
 * reading). */
static inline bool pf_is_return_address(const struct pro_fixture *f, uint64_t x)
{
	for (size_t i = 0; i < f->ncalls; i++)
		if (f->calls[i] == x)
			return true;
	return false;
}

/* The call check at every step bytes from `from` to `to` (both included):
 * it reads the code before each, says "a call ends here" exactly where
 * objdump put a call's return address, and so accepts every call once. */
static inline void pf_assert_call_check_matches(const struct pro_fixture *f,
                                                struct pf_machine *pm, uint64_t from,
                                                uint64_t to, unsigned step)
{
	size_t accepted = 0;
	for (uint64_t x = from; x <= to; x += step) {
		bool is_ra = pf_is_return_address(f, x);
		bool known = false;
		bool call = f->arch->call_precedes(&pm->walk, x, &known);
		ck_assert_msg(known, "%s: code before 0x%" PRIx64 " not read", f->name, x);
		ck_assert_msg(call == is_ra, "%s: 0x%" PRIx64 ": decoder %d, objdump %d", f->name, x,
		              call, is_ra);
		accepted += call;
	}
	ck_assert_uint_eq(accepted, f->ncalls);
}

/* Prologue analysis (the arch's caller_by_prologue) on fixture `name`,
 * with or without symbols, agrees with the compiler's CFI wherever
 * pf_check_fixture checks it. Returns how many places were checked. */
static inline size_t pf_assert_prologue_matches_cfi(const char *name, bool with_symbols)
{
	struct pro_fixture f;
	pro_fixture_load(name, &f);
	struct pf_result r = pf_check_fixture(&f, with_symbols, f.arch->caller_by_prologue);
	ck_assert_msg(r.agreed == r.checked, "%s: %zu of %zu agree; first: %s", f.name, r.agreed,
	              r.checked, r.first_miss);
	pro_fixture_free(&f);
	return r.checked;
}

#endif
