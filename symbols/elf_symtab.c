/* The function symbols of an image: .symtab and .dynsym (gABI "Symbol
 * Table") merged into one array of fixed-size records sorted by address,
 * built on first lookup, searched by bisection. */
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
};

/* One symbol table section and the string table its sh_link names. */
struct symbol_table {
	struct sw_span syms;
	uint64_t stride;
	uint64_t count;
	struct sw_span strings;
	uint64_t terminated;   /* names starting below this end inside strings */
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

/* Symbol i of t when it is a defined function: STT_FUNC or STT_GNU_IFUNC
 * (the resolver, which is code too) with st_shndx != SHN_UNDEF. On ARM
 * bit 0 of a function's value marks Thumb code (AAELF "Symbol Values"),
 * not part of its address. */
static bool function_symbol(const struct sw_elf *e, const struct symbol_table *t, uint64_t i,
                            struct elf_sym *out)
{
	struct sw_span s;
	if (!sw_span_sub(t->syms, i * t->stride, t->stride, &s))
		return false;
	bool wide = e->info.word_size == 8;
	uint32_t name = sw_u32(s, 0);
	uint8_t info = sw_u8(s, wide ? 4 : 12);
	uint16_t shndx = sw_u16(s, wide ? 6 : 14);
	uint8_t type = ELF64_ST_TYPE(info);
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF ||
	    name == 0 || name >= t->terminated)
		return false;
	out->name = (const char *)t->strings.data + name;
	out->addr = wide ? sw_u64(s, 8) : sw_u32(s, 4);
	out->size = wide ? sw_u64(s, 16) : sw_u32(s, 8);
	if (e->info.machine == EM_ARM)
		out->addr &= ~(uint64_t)1;
	return true;
}

/* Address order; among equal addresses the order the tables list them
 * (section order, then index), which decides between aliases. */
static int by_address(const void *pa, const void *pb)
{
	const struct elf_sym *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->max_end < b->max_end ? -1 : a->max_end > b->max_end;
}

static bool same_symbol(const struct elf_sym *a, const struct elf_sym *b)
{
	return a->addr == b->addr && a->size == b->size && strcmp(a->name, b->name) == 0;
}

static void build_symbol_index(struct sw_elf *e)
{
	e->symbols_built = true;
	struct symbol_table *tables = NULL;
	size_t ntables = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < e->shnum; i++) {
		if (e->shdrs[i].type != SHT_SYMTAB && e->shdrs[i].type != SHT_DYNSYM)
			continue;
		struct symbol_table t;
		if (!open_symbol_table(e, &e->shdrs[i], &t))
			continue;
		struct symbol_table *nt = realloc(tables, (ntables + 1) * sizeof *nt);
		if (!nt)
			break;
		tables = nt;
		tables[ntables++] = t;
		total += t.count;
	}
	/* total <= image size / 16: bounded by bytes that exist. */
	struct elf_sym *syms = total ? sw_arena_array(&e->arena, total, sizeof *syms) : NULL;
	size_t n = 0;
	for (size_t k = 0; syms && k < ntables; k++)
		for (uint64_t i = 0; i < tables[k].count; i++)
			if (function_symbol(e, &tables[k], i, &syms[n])) {
				syms[n].max_end = n;  /* the listing order, for the sort */
				n++;
			}
	free(tables);
	if (n == 0)
		return;
	qsort(syms, n, sizeof *syms, by_address);

	/* The same function in .symtab and .dynsym once; then each record's
	 * max_end. */
	size_t kept = 0;
	uint64_t max_end = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept > 0 && same_symbol(&syms[kept - 1], &syms[i]))
			continue;
		syms[kept] = syms[i];
		uint64_t end = syms[i].addr + syms[i].size;
		if (end < syms[i].addr)
			end = UINT64_MAX;
		if (end > max_end)
			max_end = end;
		syms[kept++].max_end = max_end;
	}
	e->syms = syms;
	e->nsyms = kept;
}

/* Index of the last record with addr <= vaddr, or nsyms when none. */
static size_t last_at_or_below(const struct sw_elf *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? e->nsyms : lo - 1;
}

static bool encloses(const struct elf_sym *s, uint64_t vaddr)
{
	return vaddr >= s->addr && vaddr - s->addr < s->size;
}

/* The first record of the run of equal addresses that j belongs to and
 * that satisfies the same test: the first-listed alias wins. */
static size_t first_alias(const struct sw_elf *e, size_t j, uint64_t vaddr, bool sized)
{
	while (j > 0 && e->syms[j - 1].addr == e->syms[j].addr &&
	       (sized ? encloses(&e->syms[j - 1], vaddr) : e->syms[j - 1].size == 0))
		j--;
	return j;
}

bool sw_elf_symbol_at(struct sw_elf *e, uint64_t vaddr, struct sw_elf_symbol *out)
{
	if (!e->symbols_built)
		build_symbol_index(e);
	size_t i = last_at_or_below(e, vaddr);
	if (i == e->nsyms)
		return false;
	/* The enclosing symbol with the highest address: walk down from the
	 * nearest lower record while anything at or below can still reach
	 * vaddr. */
	const struct elf_sym *hit = NULL;
	for (size_t j = i, steps = 0; steps < ENCLOSING_WALK_MAX; j--, steps++) {
		if (e->syms[j].max_end <= vaddr)
			break;
		if (encloses(&e->syms[j], vaddr)) {
			hit = &e->syms[first_alias(e, j, vaddr, true)];
			break;
		}
		if (j == 0)
			break;
	}
	/* Else a size-0 symbol right below: its extent is unknown (up to the
	 * next symbol), so it is the best name there is. */
	if (!hit) {
		size_t j = i;
		while (j > 0 && e->syms[j - 1].addr == e->syms[i].addr && e->syms[j].size != 0)
			j--;
		if (e->syms[j].size != 0)
			return false;
		hit = &e->syms[first_alias(e, j, vaddr, false)];
	}
	out->name = hit->name;
	out->addr = hit->addr;
	out->size = hit->size;
	return true;
}

uint64_t sw_elf_symbol_offset(const struct sw_elf *e, const struct sw_elf_symbol *s,
                              uint64_t vaddr)
{
	if (e->info.machine == EM_ARM)
		vaddr &= ~(uint64_t)1;
	return vaddr - s->addr;
}
