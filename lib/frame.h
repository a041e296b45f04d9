/* A frame of a walked stack, and how far it can be trusted. */
#ifndef SW_FRAME_H
#define SW_FRAME_H

#include <stdbool.h>
#include <stdint.h>

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
	/* Inline frames precede their physical frame in the stack; a physical
	 * frame knows how many precede it. */
	uint16_t ninlines;
};

#endif
