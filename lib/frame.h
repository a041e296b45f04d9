/* A frame of a walked stack, and how far it can be trusted. */
#ifndef SW_FRAME_H
#define SW_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "regs.h"

/* How a frame was found, from least to most trustworthy (Breakpad's
 * StackFrame::FrameTrust order, plus prologue analysis). */
enum sw_trust {
	SW_TRUST_NONE = 0,
	SW_TRUST_SCAN,          /* a stack word that points after a call */
	SW_TRUST_CFI_SCAN,      /* CFI gave the stack pointer, scanning the pc */
	SW_TRUST_LEAF,          /* the context frame's return address at [sp] */
	SW_TRUST_FRAME_POINTER, /* the frame-pointer chain */
	SW_TRUST_PROLOGUE,      /* decoded the function's prologue */
	SW_TRUST_CFI,           /* call frame information */
	SW_TRUST_PREWALKED,     /* the snapshot carried the frame */
	SW_TRUST_CONTEXT,       /* the thread's or exception's register context */
	SW_TRUST_INLINE,        /* an inlined call inside a physical frame */
	/* The Java method an ART interpreter frame (the physical frame before
	 * it) was executing, at the DEX pc its CFI gave: pc is the DEX pc (an
	 * address in the mapped .dex file), no registers. */
	SW_TRUST_DEX,
};

/* "context", "cfi", ... as rust-minidump's JSON spells them. */
const char *sw_trust_name(enum sw_trust t);
/* "given as instruction pointer in context", ... as Breakpad prints them. */
const char *sw_trust_description(enum sw_trust t);

struct sw_frame {
	uint64_t pc;            /* instruction pointer; in callers the return address */
	uint64_t lookup_pc;     /* the address symbolized: the call site in callers */
	struct sw_regs regs;    /* known registers (none in inline frames) */
	enum sw_trust trust;
	int32_t module;         /* snapshot module index, -1: none */
	int32_t unloaded_module;/* unloaded module index holding pc, -1: none */

	/* Symbolization; NULL / 0 when unknown. Addresses are absolute. */
	const char *function;
	uint64_t function_base;
	const char *file;
	uint32_t line;
	uint64_t line_base;
	bool function_is_public;/* from a PUBLIC record (no extent, no lines) */
	/* Registers restored whole from a saved context (signal or exception
	 * frame): pc is the interrupted instruction, symbolized as is. */
	bool restored_context;
	/* sp is exact where its method would only bound it (arch/arm64.c: a
	 * record step whose frame's code placed the record below its CFA). */
	bool sp_exact;
	/* Inline frames precede their physical frame in the stack; a physical
	 * frame knows how many precede it. */
	uint16_t ninlines;
};

/* Registers as a walked stack keeps them: the values of the known ones
 * only, in register order. A struct sw_regs is 528 bytes and a frame found
 * by CFI knows a handful of them: the 4,542 frames of a deep core held
 * 2.8 MB of unknown registers. */
struct sw_packed_regs {
	const uint64_t *v;        /* popcount(valid) values */
	uint64_t valid;           /* bit i: register i is known */
	uint32_t context_flags;
};

/* A frame as struct sw_stack keeps it: struct sw_frame with its
 * registers packed (the walk works on struct sw_frame). */
struct sw_stack_frame {
	uint64_t pc;
	uint64_t lookup_pc;
	struct sw_packed_regs regs;
	enum sw_trust trust;
	int32_t module;
	int32_t unloaded_module;
	const char *function;
	uint64_t function_base;
	const char *file;
	uint32_t line;
	uint64_t line_base;
	bool function_is_public;
	bool restored_context;
	uint16_t ninlines;
};

/* f as a stack keeps it, its register values copied to a; false when out
 * of memory. */
bool sw_stack_frame_store(const struct sw_frame *f, struct sw_arena *a,
                          struct sw_stack_frame *out);
/* The frame's registers, unpacked. */
void sw_stack_frame_regs(const struct sw_stack_frame *f, struct sw_regs *out);
/* Register i of the frame, 0 when unknown. */
uint64_t sw_stack_frame_reg(const struct sw_stack_frame *f, unsigned i);
static inline bool sw_stack_frame_reg_valid(const struct sw_stack_frame *f, unsigned i)
{
	return i < SW_MAX_REGS && (f->regs.valid >> i) & 1;
}

#endif
