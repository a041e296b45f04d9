/* What the three output formats share (output_internal.h): the order
 * modules are listed in, their symbol warnings, frame addresses, number
 * formatting. */
#include "output_internal.h"

#include <stdlib.h>
#include <string.h>

#include "crash_reason.h"
#include "disasm.h"

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
	if (fr->trust == SW_TRUST_INLINE)
		return fr->lookup_pc;
	if (st && st->arch && st->arch->printed_address)
		return st->arch->printed_address(fr);
	return fr->pc;
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

/* The crashing thread's stack and its frame 0 (the physical one: inline
 * frames come first), when it crashed and its code was at hand. */
static const struct sw_stack *crashing_frame(const struct sw_snapshot *s,
                                             const struct sw_walk_result *w,
                                             const struct sw_stack_frame **frame)
{
	if (!s->crash.present || !w || w->crashing < 0)
		return NULL;
	const struct sw_stack *st = sw_out_stack(w, (uint32_t)w->crashing);
	if (!st || !st->arch || st->crash_code_len == 0)
		return NULL;
	const struct sw_stack_frame *f = NULL;
	for (uint32_t i = 0; i < st->nframes && !f; i++)
		if (st->frames[i].trust != SW_TRUST_INLINE)
			f = &st->frames[i];
	if (!f || f->trust != SW_TRUST_CONTEXT)
		return NULL;
	*frame = f;
	return st;
}

/* Is the frame's code in the CPU's second instruction set (ARM's Thumb:
 * CPSR.T, struct sw_arch isa_state_reg)? */
static bool in_second_isa(const struct sw_arch *a, const struct sw_stack_frame *f)
{
	return a->isa_state_mask && sw_stack_frame_reg_valid(f, a->isa_state_reg) &&
	       (sw_stack_frame_reg(f, a->isa_state_reg) & a->isa_state_mask);
}

/* The crashing frame's registers, by the arch's index or by the name
 * Capstone gives them (the arch's reg_names), and the snapshot's memory:
 * what the analyses of its instruction read. */
struct crash_frame {
	const struct sw_arch *arch;
	const struct sw_stack_frame *frame;
	const struct sw_snapshot *snap;
	const struct sw_stack *stack;
	bool second_isa;
};

static int reg_index(const struct sw_arch *a, const char *name)
{
	for (unsigned i = 0; i < a->nregs; i++)
		if (a->reg_names[i] && strcmp(a->reg_names[i], name) == 0)
			return (int)i;
	return -1;
}

/* The register's name in the JSON (rust-minidump's), else the arch's. */
static const char *json_name(const struct sw_arch *a, unsigned i)
{
	return a->json_names && a->json_names[i] ? a->json_names[i] : a->reg_names[i];
}

static bool frame_reg_by_name(void *ctx, const char *name, uint64_t *value)
{
	const struct crash_frame *c = ctx;
	int i = reg_index(c->arch, name);
	if (i < 0 || !sw_stack_frame_reg_valid(c->frame, (unsigned)i))
		return false;
	*value = sw_stack_frame_reg(c->frame, (unsigned)i);
	return true;
}

static bool frame_reg_by_index(const void *ctx, unsigned i, uint64_t *value, const char **name)
{
	const struct crash_frame *c = ctx;
	if (!sw_stack_frame_reg_valid(c->frame, i))
		return false;
	*value = sw_stack_frame_reg(c->frame, i);
	*name = json_name(c->arch, i);
	return *name != NULL;
}

/* A little-endian word of the snapshot's memory (amd64 and x86 only ask). */
static bool snapshot_word(void *ctx, uint64_t addr, unsigned size, uint64_t *value)
{
	const struct crash_frame *c = ctx;
	uint8_t b[8];
	if (size > sizeof b || !sw_mem_peek(c->snap, addr, b, size))
		return false;
	*value = 0;
	for (unsigned i = size; i-- > 0;)
		*value = *value << 8 | b[i];
	return true;
}

/* amd64: the crash reported no address (a general-protection fault) and
 * the instruction used a non-canonical one, by a memory access or by
 * where it sends the pc (a call, jump or return to a non-canonical
 * address faults at the instruction itself). */
static bool non_canonical_address(const struct sw_snapshot *s, const struct sw_crash_analysis *a,
                                  uint64_t *address)
{
	/* Linux reports 0, Windows all ones (rust-minidump's reading). */
	uint64_t reported = sw_crash_address(s, SW_REASON_RUST);
	if (reported != 0 && reported != UINT64_MAX)
		return false;
	uint64_t used[SW_CRASH_MAX_ACCESSES + 1];
	unsigned n = 0;
	for (int i = 0; i < a->naccesses; i++)
		used[n++] = a->accesses[i].address;
	if (a->has_ip_update)
		used[n++] = a->ip_update;
	for (unsigned i = 0; i < n; i++) {
		/* Canonical: bits 63..47 all equal (Intel SDM vol. 1, 3.3.7.1). */
		uint64_t top = used[i] >> 47;
		if (top != 0 && top != 0x1ffff) {
			*address = used[i];
			return true;
		}
	}
	return false;
}

/* The possible bit flips of the crash address (or the adjusted one),
 * only where the instruction is known to have used it: one of its memory
 * accesses, where it sends the pc, or its own address (a jump there). */
static unsigned bit_flips(const struct crash_frame *c, const struct sw_crash_analysis *a,
                          struct sw_bit_flip *out, unsigned max)
{
	const struct sw_snapshot *s = c->snap;
	uint64_t address = a->non_canonical ? a->adjusted_address
	                                    : sw_crash_address(s, SW_REASON_RUST);
	bool used = c->frame->pc == address || (a->has_ip_update && a->ip_update == address);
	for (int i = 0; i < a->naccesses && !used; i++)
		used = a->accesses[i].address == address;
	if (!used)
		return 0;
	struct sw_bit_flip_regs regs = { c->arch->nregs, frame_reg_by_index, c,
		                         sw_out_word_size(s, c->arch) };
	/* The registers the instruction computed the address from, named as
	 * the JSON names them where the frame has them under that name. */
	struct sw_reg_use uses[4];
	struct sw_bit_flip_source sources[4];
	const struct sw_stack *st = c->stack;
	unsigned nuses = sw_address_registers(c->arch->cpu, s->sys.big_endian, c->second_isa,
	                                      c->frame->pc, st->crash_code, st->crash_code_len,
	                                      frame_reg_by_name, (void *)c, uses, 4);
	for (unsigned i = 0; i < nuses; i++) {
		int k = reg_index(c->arch, uses[i].name);
		sources[i] = (struct sw_bit_flip_source){
			k >= 0 && json_name(c->arch, (unsigned)k) ? json_name(c->arch, (unsigned)k)
			                                          : uses[i].name,
			uses[i].value
		};
	}
	return sw_bit_flips(s, address, a->non_canonical, sources, nuses, &regs, out, max);
}

void sw_out_crash_analysis(const struct sw_snapshot *s, const struct sw_walk_result *w,
                           struct sw_crash_analysis *a)
{
	memset(a, 0, sizeof *a);
	a->naccesses = -1;
	const struct sw_stack_frame *f;
	const struct sw_stack *st = crashing_frame(s, w, &f);
	if (!st)
		return;
	struct crash_frame c = { st->arch, f, s, st, in_second_isa(st->arch, f) };
	enum sw_cpu cpu = st->arch->cpu;
	a->has_instruction = sw_disassemble(cpu, s->sys.big_endian, c.second_isa, f->pc,
	                                    st->crash_code, st->crash_code_len, a->instruction,
	                                    sizeof a->instruction);
	a->naccesses = sw_memory_accesses_in(cpu, s->sys.big_endian, c.second_isa, f->pc,
	                                     st->crash_code, st->crash_code_len, frame_reg_by_name,
	                                     &c, a->accesses, SW_CRASH_MAX_ACCESSES);
	a->has_ip_update = sw_instruction_pointer_update(cpu, f->pc, st->crash_code,
	                                                 st->crash_code_len, frame_reg_by_name,
	                                                 snapshot_word, &c, &a->ip_update);
	a->non_canonical = cpu == SW_CPU_AMD64 && non_canonical_address(s, a, &a->adjusted_address);
	a->nflips = bit_flips(&c, a, a->flips, SW_CRASH_MAX_FLIPS);
}
