#include "synthetic_snapshot.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void put_bytes(const struct fixture *fx, uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[fx->snap.sys.big_endian ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *area_bytes(uint64_t size)
{
	uint8_t *p = calloc(size ? size : 1, 1);
	ck_assert_ptr_nonnull(p);
	return p;
}

void syn_fixture_init(struct fixture *fx, const struct syn_config *cfg)
{
	memset(fx, 0, sizeof *fx);
	fx->cfg = *cfg;
	sw_snapshot_init(&fx->snap, cfg->name);
	fx->snap.sys.os = cfg->os;
	fx->snap.sys.cpu = cfg->cpu;
	fx->snap.sys.word_size = cfg->word_size;
	fx->snap.sys.big_endian = cfg->big_endian;
	fx->snap.sys.processor_level = cfg->processor_level;
	fx->code = area_bytes(cfg->code.size);
	fx->lib = area_bytes(cfg->lib.size);
	fx->stack = area_bytes(cfg->stack.size);
	for (uint64_t a = 0; a < cfg->code.size; a += cfg->fill_size)
		syn_put_code(fx, cfg->code.base + a, cfg->fill, cfg->fill_size);
	for (uint64_t a = 0; a < cfg->lib.size; a += cfg->fill_size)
		syn_put_code(fx, cfg->lib.base + a, cfg->fill, cfg->fill_size);
	uint32_t n = 0;
	fx->regions[n++] = (struct sw_mem_region){ cfg->code.base, cfg->code.size, fx->code };
	if (cfg->lib.size)
		fx->regions[n++] = (struct sw_mem_region){ cfg->lib.base, cfg->lib.size, fx->lib };
	fx->regions[n++] = (struct sw_mem_region){ cfg->stack.base, cfg->stack.size, fx->stack };
	fx->snap.mem = fx->regions;
	fx->snap.nmem = n;
	ck_assert_uint_le(cfg->nmodules, SYN_MAX_MODULES);
	memcpy(fx->modules, cfg->modules, sizeof fx->modules);
	fx->snap.modules = fx->modules;
	fx->snap.nmodules = cfg->nmodules;
	fx->thread.id = cfg->thread_id;
	fx->thread.stack_base = cfg->stack.base;
	fx->thread.stack_size = cfg->stack.size;
	fx->snap.threads = &fx->thread;
	fx->snap.nthreads = 1;
	sw_arena_init(&fx->arena);
}

void fixture_free(struct fixture *fx)
{
	sw_arena_free(&fx->arena);
	fx->snap.mem = NULL;
	fx->snap.modules = NULL;
	fx->snap.threads = NULL;
	sw_snapshot_free(&fx->snap);
	free(fx->code);
	free(fx->lib);
	free(fx->stack);
	fx->code = fx->lib = fx->stack = NULL;
}

static bool in_area(const struct syn_area *a, uint64_t addr, size_t n)
{
	return a->size && addr >= a->base && addr + n <= a->base + a->size;
}

uint8_t *syn_code_at(struct fixture *fx, uint64_t addr, size_t n)
{
	if (in_area(&fx->cfg.lib, addr, n))
		return &fx->lib[addr - fx->cfg.lib.base];
	ck_assert(in_area(&fx->cfg.code, addr, n));
	return &fx->code[addr - fx->cfg.code.base];
}

void syn_put_code(struct fixture *fx, uint64_t addr, uint64_t v, unsigned n)
{
	put_bytes(fx, syn_code_at(fx, addr, n), v, n);
}

static void put_stack(struct fixture *fx, uint64_t addr, uint64_t v, unsigned n)
{
	ck_assert(in_area(&fx->cfg.stack, addr, n));
	put_bytes(fx, &fx->stack[addr - fx->cfg.stack.base], v, n);
}

void put_u8(struct fixture *fx, uint64_t addr, uint8_t v)
{
	put_stack(fx, addr, v, 1);
}

void put_u32(struct fixture *fx, uint64_t addr, uint32_t v)
{
	put_stack(fx, addr, v, 4);
}

void put_u64(struct fixture *fx, uint64_t addr, uint64_t v)
{
	put_stack(fx, addr, v, 8);
}

void put_word(struct fixture *fx, uint64_t addr, uint64_t v)
{
	put_stack(fx, addr, v, fx->snap.sys.word_size);
}

const struct sw_module_symbols *syn_module0_symbols(void *self, uint32_t m,
                                                    enum sw_symbols_status *st)
{
	*st = m == 0 ? SW_SYMS_LOADED : SW_SYMS_MISSING;
	return m == 0 ? self : NULL;
}

const struct sw_stack *syn_walk(struct fixture *fx, const struct sw_arch *arch,
                                const struct sw_symbol_source *src,
                                const struct sw_walk_options *opt)
{
	sw_snapshot_finish(&fx->snap);
	ck_assert(sw_walk_snapshot(&fx->snap, arch, src, opt, &fx->arena, &fx->result));
	return &fx->result.stacks[0];
}
