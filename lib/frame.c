#include "frame.h"

#include <string.h>

const char *sw_trust_name(enum sw_trust t)
{
	switch (t) {
	case SW_TRUST_SCAN: return "scan";
	case SW_TRUST_CFI_SCAN: return "cfi_scan";
	/* rust-minidump's JSON has no such trust: the frame was found by
	 * reading the return address at [sp] and validating it like any
	 * scanned one, so JSON readers are told "scan". */
	case SW_TRUST_LEAF: return "scan";
	case SW_TRUST_FRAME_POINTER: return "frame_pointer";
	case SW_TRUST_PROLOGUE: return "prologue";
	case SW_TRUST_CFI: return "cfi";
	case SW_TRUST_PREWALKED: return "prewalked";
	case SW_TRUST_CONTEXT: return "context";
	case SW_TRUST_INLINE: return "inline";
	/* Not rust-minidump's: it has no Java frames (docs/json.md). */
	case SW_TRUST_DEX: return "dex_pc";
	case SW_TRUST_NONE: break;
	}
	return "none";
}

/* Breakpad's StackFrame::trust_description() wording. */
const char *sw_trust_description(enum sw_trust t)
{
	switch (t) {
	case SW_TRUST_SCAN: return "stack scanning";
	case SW_TRUST_CFI_SCAN: return "call frame info with scanning";
	case SW_TRUST_LEAF: return "simulating a return from leaf function";
	case SW_TRUST_FRAME_POINTER: return "previous frame's frame pointer";
	case SW_TRUST_PROLOGUE: return "prologue analysis";
	case SW_TRUST_CFI: return "call frame info";
	case SW_TRUST_PREWALKED: return "recovered by external stack walker";
	case SW_TRUST_CONTEXT: return "given as instruction pointer in context";
	case SW_TRUST_INLINE: return "inline record";
	case SW_TRUST_DEX: return "the interpreter's dex pc";
	case SW_TRUST_NONE: break;
	}
	return "unknown";
}

bool sw_stack_frame_store(const struct sw_frame *f, struct sw_arena *a,
                          struct sw_stack_frame *out)
{
	*out = (struct sw_stack_frame){
		.pc = f->pc, .lookup_pc = f->lookup_pc,
		.regs = { .valid = f->regs.valid, .context_flags = f->regs.context_flags },
		.trust = f->trust, .module = f->module, .unloaded_module = f->unloaded_module,
		.function = f->function, .function_base = f->function_base,
		.file = f->file, .line = f->line, .line_base = f->line_base,
		.function_is_public = f->function_is_public,
		.restored_context = f->restored_context, .ninlines = f->ninlines,
	};
	unsigned n = (unsigned)__builtin_popcountll(f->regs.valid);
	if (n == 0)
		return true;
	uint64_t *v = sw_arena_array(a, n, sizeof *v);
	if (!v)
		return false;
	unsigned k = 0;
	for (unsigned i = 0; i < SW_MAX_REGS; i++)
		if (sw_reg_valid(&f->regs, i))
			v[k++] = f->regs.v[i];
	out->regs.v = v;
	return true;
}

/* Where register i's value is in the packed values: the known registers
 * below it come first. */
static unsigned packed_index(uint64_t valid, unsigned i)
{
	uint64_t below = i ? valid & (~(uint64_t)0 >> (64 - i)) : 0;
	return (unsigned)__builtin_popcountll(below);
}

void sw_stack_frame_regs(const struct sw_stack_frame *f, struct sw_regs *out)
{
	memset(out, 0, sizeof *out);
	out->context_flags = f->regs.context_flags;
	for (unsigned i = 0; i < SW_MAX_REGS; i++)
		if (sw_stack_frame_reg_valid(f, i))
			sw_reg_set(out, i, f->regs.v[packed_index(f->regs.valid, i)]);
}

uint64_t sw_stack_frame_reg(const struct sw_stack_frame *f, unsigned i)
{
	return sw_stack_frame_reg_valid(f, i) ? f->regs.v[packed_index(f->regs.valid, i)] : 0;
}
