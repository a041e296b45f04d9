/* The function symbols of an image: .symtab and .dynsym (gABI "Symbol
 * Table") merged into one array of fixed-size records sorted by address,
 * built on first lookup, searched by bisection.
 *
 * The tables are read once, in order and in place, and their pages given
 * back: a big program's .symtab and .strtab are hundreds of KiB to
 * megabytes, and a walk names a few frames from them. A record keeps where its symbol is listed
 * rather than its name (16 bytes); a lookup reads the one entry and name
 * it answers with from the file (sw_mapped_peek), not through the
 * mapping, whose fault-around window would bring back 64 KiB each. */
#include "symbols/elf_image_internal.h"

#include <stdlib.h>
#include <string.h>

enum {
	SYM_SIZE_32 = 16, SYM_SIZE_64 = 24,
	/* How many earlier records a lookup inspects for one that encloses
	 * the address from further down: real symbols nest a level or two
	 * (aliases, outlined parts); a hostile table must not make every
	 * lookup linear. */
	ENCLOSING_WALK_MAX = 4096,
	/* Records per entry of the largest-end summary (elf_symbol_index):
	 * one per record would cost 8 bytes each; per block, a lookup that
	 * finds no enclosing symbol walks at most a block further down. */
	END_BLOCK = 64,
};

/* One symbol table section and the string table its sh_link names. */
struct symbol_table {
	struct sw_span syms;
	uint64_t stride;
	uint64_t count;
	struct sw_span strings;
	uint64_t terminated;   /* names starting below this end inside strings */
	uint64_t first;        /* the index of its first entry over all tables */
};

/* One function symbol: 16 bytes. */
struct elf_sym {
	uint64_t addr;
	uint32_t sym;          /* its index over the tables, in listing order */
	uint32_t size;         /* st_size, or SIZE_IN_TABLE */
};

/* A size too large for a record: read again from the table (a hostile
 * file's; no function is 4 GiB). */
#define SIZE_IN_TABLE UINT32_MAX

struct elf_symbol_index {
	struct symbol_table *tables;
	size_t ntables;
	struct elf_sym *syms;
	size_t nsyms;
	/* For each END_BLOCK records, the largest addr + size over them and
	 * every record before: the backward walk of a lookup stops once
	 * nothing earlier can reach the address (symbols nest: an alias
	 * inside a larger one). */
	uint64_t *max_end;
	char *name;            /* the name the last lookup read */
	size_t name_cap;
};

/* The fields of a symbol table entry the index needs. */
struct symbol_fields {
	uint32_t name;
	uint64_t addr;
	uint64_t size;
	uint8_t bind;          /* STB_* */
	uint16_t shndx;
};

static bool open_symbol_table(struct sw_elf *e, const struct elf_shdr *sh,
                              struct symbol_table *t)
{
	uint64_t entsize = e->info.word_size == 8 ? SYM_SIZE_64 : SYM_SIZE_32;
	t->stride = sh->entsize ? sh->entsize : entsize;
	if (t->stride < entsize || sh->link >= e->shnum ||
	    !elf_image_window(e, sh->offset, sh->size, &t->syms))
		return false;
	/* The count comes from the bytes that exist, never from a header. */
	t->count = t->syms.size / t->stride;
	const struct elf_shdr *st = &e->shdrs[sh->link];
	if (st->type == SHT_NOBITS || !elf_image_window(e, st->offset, st->size, &t->strings) ||
	    t->strings.size == 0)
		return false;
	const uint8_t *last_nul = memrchr(t->strings.data, 0, t->strings.size);
	t->terminated = last_nul ? (uint64_t)(last_nul - t->strings.data) + 1 : 0;
	return true;
}

/* Does section shndx hold code (SHF_EXECINSTR)? A reserved index
 * (SHN_ABS, SHN_COMMON...) or one past the table names no section. */
static bool in_code_section(const struct sw_elf *e, uint16_t shndx)
{
	return shndx != SHN_UNDEF && shndx < SHN_LORESERVE && shndx < e->shnum &&
	       (e->shdrs[shndx].flags & SHF_EXECINSTR);
}

/* The entry `s` of t when it names code: a defined STT_FUNC or
 * STT_GNU_IFUNC (the resolver, which is code too), or a global or weak
 * STT_NOTYPE symbol in an executable section. Hand-written assembly
 * labels its entry points without .type: musl's _start and _init on
 * x86_64 are NOTYPE GLOBAL in .text/.init, and naming the code after
 * _start is what ends a walk there (nothing calls it). Local NOTYPE
 * symbols are left out: they are the assembler's own labels and ARM's
 * mapping symbols ($a, $t, $d, $x: AAELF "Mapping symbols"), which name
 * no function. On ARM bit 0 of a function's value marks Thumb code
 * (AAELF "Symbol Values"), not part of its address. */
static bool function_symbol(const struct sw_elf *e, const struct symbol_table *t,
                            struct sw_span s, struct symbol_fields *out)
{
	bool wide = e->info.word_size == 8;
	uint32_t name = sw_u32(s, 0);
	uint8_t info = sw_u8(s, wide ? 4 : 12);
	uint16_t shndx = sw_u16(s, wide ? 6 : 14);
	uint8_t type = ELF64_ST_TYPE(info), bind = ELF64_ST_BIND(info);
	bool code = type == STT_FUNC || type == STT_GNU_IFUNC ||
	            (type == STT_NOTYPE && (bind == STB_GLOBAL || bind == STB_WEAK) &&
	             in_code_section(e, shndx));
	if (!code || shndx == SHN_UNDEF || name == 0 || name >= t->terminated)
		return false;
	out->name = name;
	out->addr = wide ? sw_u64(s, 8) : sw_u32(s, 4);
	out->size = wide ? sw_u64(s, 16) : sw_u32(s, 8);
	out->bind = bind;
	out->shndx = shndx;
	if (e->info.machine == EM_ARM)
		out->addr &= ~(uint64_t)1;
	return true;
}

/* Entry i of t, read in place (the index's one pass). */
static bool function_symbol_in_place(const struct sw_elf *e, const struct symbol_table *t,
                                     uint64_t i, struct symbol_fields *out)
{
	struct sw_span s;
	return sw_span_sub(t->syms, i * t->stride, t->stride, &s) && function_symbol(e, t, s, out);
}

/* The table that lists symbol `sym`, and its index there. */
static const struct symbol_table *table_of(const struct elf_symbol_index *x, uint32_t sym,
                                           uint64_t *i)
{
	for (size_t k = 0; k < x->ntables; k++) {
		const struct symbol_table *t = &x->tables[k];
		if (sym >= t->first && sym - t->first < t->count) {
			*i = sym - t->first;
			return t;
		}
	}
	return NULL;
}

/* The entry of record r, read from the file (a lookup's read). */
static const struct symbol_table *symbol_of(const struct sw_elf *e,
                                            const struct elf_symbol_index *x,
                                            const struct elf_sym *r, struct symbol_fields *out)
{
	uint64_t i;
	const struct symbol_table *t = table_of(x, r->sym, &i);
	if (!t)
		return NULL;
	uint8_t entry[SYM_SIZE_64];
	size_t n = e->info.word_size == 8 ? SYM_SIZE_64 : SYM_SIZE_32;
	sw_mapped_peek(&e->map, t->syms.data + i * t->stride, n, entry);
	struct sw_span s = { entry, n, 0, e->info.big_endian };
	return function_symbol(e, t, s, out) ? t : NULL;
}

static uint64_t symbol_size(const struct sw_elf *e, const struct elf_symbol_index *x,
                            const struct elf_sym *r)
{
	struct symbol_fields f;
	if (r->size != SIZE_IN_TABLE)
		return r->size;
	return symbol_of(e, x, r, &f) ? f.size : SIZE_IN_TABLE;
}

/* Address order; among equal addresses the order the tables list them
 * (section order, then index), which decides between aliases. */
static int by_address(const void *pa, const void *pb)
{
	const struct elf_sym *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->sym < b->sym ? -1 : a->sym > b->sym;
}

/* The name of record r, in place (the index's one pass). */
static const char *name_in_place(const struct sw_elf *e, const struct elf_symbol_index *x,
                                 const struct elf_sym *r)
{
	uint64_t i;
	const struct symbol_table *t = table_of(x, r->sym, &i);
	struct symbol_fields f;
	if (!t || !function_symbol_in_place(e, t, i, &f))
		return "";
	return (const char *)t->strings.data + f.name;
}

static bool same_symbol(const struct sw_elf *e, const struct elf_symbol_index *x,
                        const struct elf_sym *a, const struct elf_sym *b)
{
	return a->addr == b->addr && symbol_size(e, x, a) == symbol_size(e, x, b) &&
	       strcmp(name_in_place(e, x, a), name_in_place(e, x, b)) == 0;
}

/* ---- which of several names at one address ---- */

/* How a name is preferred among aliases at one address, lower first
 * (0-15): its binding, GLOBAL (and GNU_UNIQUE) over WEAK over LOCAL, as
 * elfutils' libdwfl ranks them (dwfl_module_addrsym.c, binding_value);
 * then fewer leading underscores, the public name over the internal one
 * (glibc's raise is GLOBAL, its alias gsignal WEAK: gdb and eu-stack
 * print raise; _IO_puts and puts are ranked by binding first). Equal
 * ranks keep the order the tables list them. */
enum { ALIAS_RANKS = 16, UNDERSCORES_COUNTED = 3 };

static uint8_t alias_rank(uint8_t bind, const char *name)
{
	uint8_t by_bind = bind == STB_GLOBAL || bind == STB_GNU_UNIQUE ? 0
	                  : bind == STB_WEAK                         ? 1
	                  : bind == STB_LOCAL                        ? 2
	                                                             : 3;
	uint8_t underscores = 0;
	while (underscores < UNDERSCORES_COUNTED && name[underscores] == '_')
		underscores++;
	return (uint8_t)(by_bind * (UNDERSCORES_COUNTED + 1) + underscores);
}

static uint8_t rank_in_place(const struct sw_elf *e, const struct elf_symbol_index *x,
                             const struct elf_sym *r)
{
	uint64_t i;
	const struct symbol_table *t = table_of(x, r->sym, &i);
	struct symbol_fields f;
	if (!t || !function_symbol_in_place(e, t, i, &f))
		return ALIAS_RANKS - 1;
	return alias_rank(f.bind, (const char *)t->strings.data + f.name);
}

/* Each run of records at one address put in preference order (stable:
 * a counting sort on the rank), so that the first record of a run that
 * fits a lookup is the name to print. Runs are aliases, a few records;
 * the scratch room grows to the longest. */
static bool order_aliases(const struct sw_elf *e, struct elf_symbol_index *x)
{
	struct elf_sym *scratch = NULL;
	uint8_t *ranks = NULL;
	size_t cap = 0;
	for (size_t lo = 0, hi; lo < x->nsyms; lo = hi) {
		hi = lo + 1;
		while (hi < x->nsyms && x->syms[hi].addr == x->syms[lo].addr)
			hi++;
		size_t n = hi - lo;
		if (n < 2)
			continue;
		if (n > cap) {
			struct elf_sym *ns = realloc(scratch, n * sizeof *ns);
			if (ns)
				scratch = ns;
			uint8_t *nr = ns ? realloc(ranks, n) : NULL;
			if (!nr) {
				free(scratch);
				free(ranks);
				return false;
			}
			ranks = nr;
			cap = n;
		}
		size_t count[ALIAS_RANKS + 1] = { 0 };
		for (size_t k = 0; k < n; k++) {
			ranks[k] = rank_in_place(e, x, &x->syms[lo + k]);
			count[ranks[k] + 1]++;
		}
		for (size_t r = 1; r <= ALIAS_RANKS; r++)
			count[r] += count[r - 1];
		for (size_t k = 0; k < n; k++)
			scratch[count[ranks[k]]++] = x->syms[lo + k];
		memcpy(&x->syms[lo], scratch, n * sizeof *scratch);
	}
	free(scratch);
	free(ranks);
	return true;
}

/* Every symbol table of e, numbered over all in listing order (as far as
 * 32 bits count: a table past that is left out). */
static bool open_symbol_tables(struct sw_elf *e, struct elf_symbol_index *x)
{
	uint64_t total = 0;
	for (size_t i = 0; i < e->shnum; i++) {
		if (e->shdrs[i].type != SHT_SYMTAB && e->shdrs[i].type != SHT_DYNSYM)
			continue;
		struct symbol_table t;
		if (!open_symbol_table(e, &e->shdrs[i], &t) || t.count > UINT32_MAX - total)
			continue;
		struct symbol_table *nt = realloc(x->tables, (x->ntables + 1) * sizeof *nt);
		if (!nt)
			return false;
		x->tables = nt;
		t.first = total;
		x->tables[x->ntables++] = t;
		total += t.count;
	}
	return true;
}

/* The records of every function symbol, in listing order (room for
 * every symbol at first: merge_aliases gives back what is not used). */
static bool list_functions(const struct sw_elf *e, struct elf_symbol_index *x)
{
	const struct symbol_table *last = x->ntables ? &x->tables[x->ntables - 1] : NULL;
	size_t total = last ? (size_t)(last->first + last->count) : 0;
	if (total == 0)
		return true;
	x->syms = malloc(total * sizeof *x->syms);
	x->max_end = malloc((total + END_BLOCK - 1) / END_BLOCK * sizeof *x->max_end);
	if (!x->syms || !x->max_end)
		return false;
	for (size_t k = 0; k < x->ntables; k++) {
		const struct symbol_table *t = &x->tables[k];
		struct symbol_fields f;
		for (uint64_t i = 0; i < t->count; i++)
			if (function_symbol_in_place(e, t, i, &f))
				x->syms[x->nsyms++] = (struct elf_sym){
					f.addr, (uint32_t)(t->first + i),
					f.size < SIZE_IN_TABLE ? (uint32_t)f.size : SIZE_IN_TABLE };
	}
	return true;
}

/* How many kept records of one address merge_aliases compares a record
 * with: a function listed in .symtab and .dynsym has the same rank in
 * both, but other aliases of that rank may sit between its two records. */
enum { MERGE_LOOK_BACK = 8 };

static bool already_kept(const struct sw_elf *e, const struct elf_symbol_index *x, size_t kept,
                         const struct elf_sym *r)
{
	for (size_t k = kept, n = 0; k > 0 && n < MERGE_LOOK_BACK; k--, n++) {
		if (x->syms[k - 1].addr != r->addr)
			return false;
		if (same_symbol(e, x, &x->syms[k - 1], r))
			return true;
	}
	return false;
}

/* The same function in .symtab and .dynsym once, and the largest ends;
 * the room of the records not kept is given back. */
static void merge_aliases(const struct sw_elf *e, struct elf_symbol_index *x)
{
	size_t kept = 0;
	uint64_t max_end = 0;
	for (size_t i = 0; i < x->nsyms; i++) {
		if (already_kept(e, x, kept, &x->syms[i]))
			continue;
		x->syms[kept] = x->syms[i];
		uint64_t end = x->syms[i].addr + symbol_size(e, x, &x->syms[i]);
		if (end < x->syms[i].addr)
			end = UINT64_MAX;
		if (end > max_end)
			max_end = end;
		x->max_end[kept / END_BLOCK] = max_end;
		kept++;
	}
	x->nsyms = kept;
	struct elf_sym *fit = kept ? realloc(x->syms, kept * sizeof *x->syms) : NULL;
	if (fit)
		x->syms = fit;
}

void elf_symbol_index_free(struct elf_symbol_index *x)
{
	if (!x)
		return;
	free(x->tables);
	free(x->syms);
	free(x->max_end);
	free(x->name);
	free(x);
}

static void build_symbol_index(struct sw_elf *e)
{
	e->symbols_built = true;
	struct elf_symbol_index *x = calloc(1, sizeof *x);
	if (!x)
		return;
	if (!open_symbol_tables(e, x) || !list_functions(e, x)) {
		elf_symbol_index_free(x);
		return;
	}
	if (x->nsyms > 1)
		qsort(x->syms, x->nsyms, sizeof *x->syms, by_address);
	if (!order_aliases(e, x)) {
		elf_symbol_index_free(x);
		return;
	}
	merge_aliases(e, x);
	/* Lookups read from the file: what this pass read is not needed
	 * again. */
	for (size_t k = 0; k < x->ntables; k++) {
		sw_mapped_release(&e->map, x->tables[k].syms.data, x->tables[k].syms.size);
		sw_mapped_release(&e->map, x->tables[k].strings.data, x->tables[k].strings.size);
	}
	e->symbols = x;
}

/* Index of the last record with addr <= vaddr, or nsyms when none. */
static size_t last_at_or_below(const struct elf_symbol_index *x, uint64_t vaddr)
{
	size_t lo = 0, hi = x->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? x->nsyms : lo - 1;
}

static bool encloses(const struct sw_elf *e, const struct elf_symbol_index *x,
                     const struct elf_sym *s, uint64_t vaddr)
{
	return vaddr >= s->addr && vaddr - s->addr < symbol_size(e, x, s);
}

/* The first record of address addr (one is at or below `at`). */
static size_t run_start(const struct elf_symbol_index *x, size_t at)
{
	uint64_t addr = x->syms[at].addr;
	size_t below = addr ? last_at_or_below(x, addr - 1) : x->nsyms;
	return below == x->nsyms ? 0 : below + 1;
}

/* The first record of the run of `at`'s address, up to `last`, that
 * encloses vaddr (sized) or has no size: order_aliases put each
 * address's records in preference order. At most ENCLOSING_WALK_MAX of
 * the run are looked at (a hostile table's run of one address may be the
 * whole table); none: `none`. */
static size_t preferred_alias(const struct sw_elf *e, const struct elf_symbol_index *x,
                              size_t at, size_t last, uint64_t vaddr, bool sized, size_t none)
{
	size_t k = run_start(x, at);
	for (size_t steps = 0; k <= last && steps < ENCLOSING_WALK_MAX; k++, steps++)
		if (sized ? encloses(e, x, &x->syms[k], vaddr) : x->syms[k].size == 0)
			return k;
	return none;
}

/* Does vaddr lie in the section that defines record r's symbol (a
 * reserved index, SHN_ABS or beyond the table: no bound known)? */
static bool in_own_section(const struct sw_elf *e, const struct elf_symbol_index *x,
                           const struct elf_sym *r, uint64_t vaddr)
{
	struct symbol_fields f;
	if (!symbol_of(e, x, r, &f))
		return false;
	if (f.shndx >= SHN_LORESERVE || f.shndx >= e->shnum)
		return true;
	const struct elf_shdr *sh = &e->shdrs[f.shndx];
	return vaddr >= sh->addr && vaddr - sh->addr < sh->size;
}

/* Can no record at or below j reach vaddr? Known at the last record of
 * each END_BLOCK (elsewhere the walk goes on: at most a block further). */
static bool nothing_reaches(const struct elf_symbol_index *x, size_t j, uint64_t vaddr)
{
	bool block_end = j % END_BLOCK == END_BLOCK - 1 || j == x->nsyms - 1;
	return block_end && x->max_end[j / END_BLOCK] <= vaddr;
}

/* The record sw_elf_symbol_at answers with, or NULL. */
static const struct elf_sym *symbol_record_at(struct sw_elf *e, uint64_t vaddr)
{
	if (!e->symbols_built)
		build_symbol_index(e);
	const struct elf_symbol_index *x = e->symbols;
	if (!x)
		return NULL;
	size_t i = last_at_or_below(x, vaddr);
	if (i == x->nsyms)
		return NULL;
	/* The enclosing symbol with the highest address: walk down from the
	 * nearest lower record while anything at or below can still reach
	 * vaddr. */
	for (size_t j = i, steps = 0; steps < ENCLOSING_WALK_MAX; j--, steps++) {
		if (nothing_reaches(x, j, vaddr))
			break;
		if (encloses(e, x, &x->syms[j], vaddr))
			return &x->syms[preferred_alias(e, x, j, j, vaddr, true, j)];
		if (j == 0)
			break;
	}
	/* Else a size-0 symbol at the nearest address below: its extent is
	 * unknown, up to the next symbol and within its own section (as
	 * libdwfl takes a sizeless symbol only in the section of the address),
	 * so it is the best name there is. */
	size_t j = preferred_alias(e, x, i, i, vaddr, false, x->nsyms);
	if (j == x->nsyms || !in_own_section(e, x, &x->syms[j], vaddr))
		return NULL;
	return &x->syms[j];
}

bool sw_elf_has_symbol_at(struct sw_elf *e, uint64_t vaddr)
{
	return symbol_record_at(e, vaddr) != NULL;
}

/* The name at offset off of t's strings, into the index's buffer. */
static const char *read_name(const struct sw_elf *e, struct elf_symbol_index *x,
                             const struct symbol_table *t, uint32_t off)
{
	const char *p = (const char *)t->strings.data + off;
	/* off < terminated: a NUL ends the name inside the table. */
	size_t len = sw_mapped_strnlen(&e->map, p, t->terminated - off);
	if (len >= x->name_cap) {
		char *b = realloc(x->name, len + 1);
		if (!b)
			return NULL;
		x->name = b;
		x->name_cap = len + 1;
	}
	sw_mapped_peek(&e->map, p, len, x->name);
	x->name[len] = '\0';
	return x->name;
}

bool sw_elf_symbol_at(struct sw_elf *e, uint64_t vaddr, struct sw_elf_symbol *out)
{
	const struct elf_sym *hit = symbol_record_at(e, vaddr);
	struct symbol_fields f;
	const struct symbol_table *t = hit ? symbol_of(e, e->symbols, hit, &f) : NULL;
	const char *name = t ? read_name(e, e->symbols, t, f.name) : NULL;
	if (!name)
		return false;
	out->name = name;
	out->addr = hit->addr;
	out->size = f.size;
	return true;
}

uint64_t sw_elf_symbol_offset(const struct sw_elf *e, const struct sw_elf_symbol *s,
                              uint64_t vaddr)
{
	if (e->info.machine == EM_ARM)
		vaddr &= ~(uint64_t)1;
	return vaddr - s->addr;
}
