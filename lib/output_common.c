#include "output_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_base(const void *a, const void *b, void *ctx)
{
	const struct sw_module *m = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (m[x].base != m[y].base)
		return m[x].base < m[y].base ? -1 : 1;
	return x < y ? -1 : x > y;
}

uint32_t *sw_out_modules_by_base(const struct sw_snapshot *s)
{
	if (s->nmodules == 0)
		return NULL;
	uint32_t *idx = malloc(s->nmodules * sizeof *idx);
	if (!idx)
		return NULL;
	if (s->module_by_base) {
		memcpy(idx, s->module_by_base, s->nmodules * sizeof *idx);
		return idx;
	}
	for (uint32_t i = 0; i < s->nmodules; i++)
		idx[i] = i;
	qsort_r(idx, s->nmodules, sizeof *idx, cmp_base, (void *)s->modules);
	return idx;
}

enum sw_symbols_status sw_out_module_status(const struct sw_walk_result *w,
                                            const struct sw_snapshot *s, int32_t i)
{
	if (!w || !w->module_status || i < 0 || (uint32_t)i >= s->nmodules)
		return SW_SYMS_NOT_LOOKED;
	return w->module_status[i];
}

static bool same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

bool sw_out_module_has_status(const struct sw_walk_result *w, const struct sw_snapshot *s,
                              uint32_t i, enum sw_symbols_status st)
{
	if (!w || !w->module_status)
		return false;
	if (w->module_status[i] == st)
		return true;
	const struct sw_module *m = &s->modules[i];
	for (uint32_t j = 0; j < s->nmodules; j++)
		if (w->module_status[j] == st &&
		    same_str(s->modules[j].debug_file, m->debug_file) &&
		    same_str(s->modules[j].debug_id, m->debug_id))
			return true;
	return false;
}

const struct sw_stack *sw_out_stack(const struct sw_walk_result *w, uint32_t i)
{
	if (!w || !w->stacks || i >= w->nstacks)
		return NULL;
	return &w->stacks[i];
}

unsigned sw_out_word_size(const struct sw_snapshot *s, const struct sw_arch *arch)
{
	if (s->sys.word_size == 4 || s->sys.word_size == 8)
		return s->sys.word_size;
	if (arch && (arch->word_size == 4 || arch->word_size == 8))
		return arch->word_size;
	return 8;
}

int32_t sw_out_breakpad_thread_number(const struct sw_walk_result *w, uint32_t i)
{
	if (!w || i >= w->nstacks || w->stacks[i].dump_thread)
		return -1;
	int32_t n = 0;
	for (uint32_t k = 0; k < i; k++)
		n += !w->stacks[k].dump_thread;
	return n;
}

uint64_t sw_out_frame_address(const struct sw_stack *st, const struct sw_frame *fr)
{
	if (fr->trust == SW_TRUST_INLINE)
		return fr->lookup_pc;
	if (st && st->arch && st->arch->printed_address)
		return st->arch->printed_address(fr);
	return fr->pc;
}
