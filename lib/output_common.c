/* What the three output formats share (output_internal.h): the order
 * modules are listed in, their symbol warnings, frame addresses, number
 * formatting. */
#include "output_internal.h"

#include <stdlib.h>
#include <string.h>

#include "crash_reason.h"

static int cmp_base(const void *a, const void *b, void *ctx)
{
	const struct sw_module *m = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (m[x].base != m[y].base)
		return m[x].base < m[y].base ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* By last address, then base, then index: Breakpad's RangeMap order. */
static int cmp_end(const void *a, const void *b, void *ctx)
{
	const struct sw_module *m = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t ex = m[x].base + m[x].size - 1, ey = m[y].base + m[y].size - 1;
	if (ex != ey)
		return ex < ey ? -1 : 1;
	return cmp_base(a, b, ctx);
}

uint32_t *sw_out_module_order(const struct sw_snapshot *s)
{
	if (s->nmodules == 0)
		return NULL;
	uint32_t *idx = malloc(s->nmodules * sizeof *idx);
	if (!idx)
		return NULL;
	if (s->modules_by_end) {
		for (uint32_t i = 0; i < s->nmodules; i++)
			idx[i] = i;
		qsort_r(idx, s->nmodules, sizeof *idx, cmp_end, (void *)s->modules);
		return idx;
	}
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

static int cmp_opt_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_identity(const void *pa, const void *pb, void *ctx)
{
	const struct sw_module *m = ctx;
	const struct sw_module *a = &m[*(const uint32_t *)pa], *b = &m[*(const uint32_t *)pb];
	int c = cmp_opt_str(a->debug_file, b->debug_file);
	return c ? c : cmp_opt_str(a->debug_id, b->debug_id);
}

/* Sorting the modules by identity groups equal ones together: each group's
 * statuses are then merged in one pass, n log n for any module count. */
uint8_t *sw_out_module_warnings(const struct sw_walk_result *w, const struct sw_snapshot *s)
{
	if (!w || !w->module_status || s->nmodules == 0)
		return NULL;
	uint8_t *flags = calloc(s->nmodules, 1);
	uint32_t *idx = malloc(s->nmodules * sizeof *idx);
	if (!flags || !idx) {
		free(flags);
		free(idx);
		return NULL;
	}
	for (uint32_t i = 0; i < s->nmodules; i++)
		idx[i] = i;
	qsort_r(idx, s->nmodules, sizeof *idx, cmp_identity, (void *)s->modules);
	for (uint32_t lo = 0, hi; lo < s->nmodules; lo = hi) {
		uint8_t group = 0;
		for (hi = lo; hi < s->nmodules && cmp_identity(&idx[lo], &idx[hi], (void *)s->modules) == 0;
		     hi++) {
			enum sw_symbols_status st = w->module_status[idx[hi]];
			group |= st == SW_SYMS_MISSING ? SW_OUT_NO_SYMBOLS
			         : st == SW_SYMS_CORRUPT ? SW_OUT_CORRUPT_SYMBOLS : 0;
		}
		for (uint32_t k = lo; k < hi; k++)
			flags[idx[k]] = group;
	}
	free(idx);
	return flags;
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

uint64_t sw_out_frame_address(const struct sw_stack *st, const struct sw_stack_frame *fr)
{
	if (fr->trust == SW_TRUST_INLINE || fr->trust == SW_TRUST_DEX)
		return fr->lookup_pc;
	if (st && st->arch && st->arch->printed_address)
		return st->arch->printed_address(fr);
	return fr->pc;
}

bool sw_out_frame_place(const struct sw_snapshot *s, const struct sw_stack_frame *fr,
                        const char **name, uint64_t *base)
{
	if (fr->module >= 0 && (uint32_t)fr->module < s->nmodules) {
		const struct sw_module *m = &s->modules[fr->module];
		*name = sw_basename(m->code_file);
		*base = m->base;
		return true;
	}
	const struct sw_mapping *m = fr->trust == SW_TRUST_DEX ? sw_mapping_at(s, fr->pc) : NULL;
	if (!m || !m->path)
		return false;
	*name = sw_basename(m->path);
	*base = m->start;
	return true;
}

/* "%" PRIx64, or "%0<width>" PRIx64 when width > 0, into out (>= 16 bytes
 * past width); returns the length. */
/* Every byte's two hex digits: a report prints tens of thousands of
 * register values, two digits a step (a digit a step was 9 % of a warm
 * walk's instructions, this is 6 %; spreading the nibbles of 32 bits over
 * a word and making them digits at once was 8 %: it converts all 16). */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

size_t sw_out_fmt_hex(char *out, uint64_t v, unsigned width)
{
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1;
	if (n < width)
		n = width;
	size_t i = n;
	for (; i >= 2; i -= 2, v >>= 8)
		memcpy(out + i - 2, hex_pairs + 2 * (v & 0xff), 2);
	if (i)
		out[0] = hex_pairs[2 * (v & 15) + 1];
	return n;
}

/* "%" PRIu64 into out (>= 20 bytes); returns the length. */
size_t sw_out_fmt_dec(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

