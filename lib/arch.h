/* The per-CPU hook table. Everything the walker needs to know about a CPU is
 * here; lib/ never tests which CPU it walks. arch/<cpu>.c fills one table
 * each, arch/registry.c maps a snapshot's CPU to it. */
#ifndef SW_ARCH_H
#define SW_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "regs.h"
#include "snapshot.h"
#include "symbols.h"

struct sw_walk;

struct sw_arch {
	const char *name;              /* "amd64": as outputs print the CPU */
	enum sw_cpu cpu;
	uint8_t word_size;             /* 4 or 8 */
	uint8_t nregs;
	/* Register names by register number, as Breakpad's STACK CFI rules
	 * spell them without the '$' ("rip", "esp", "x29", "pc", "lr"). */
	const char *const *reg_names;
	uint8_t pc, sp, fp;            /* register numbers */
	int8_t ra;                     /* link register, -1: return address on stack */
	/* Registers a callee must preserve: in caller frames they keep the
	 * callee's value unless a rule says otherwise (and CFI says so). */
	uint64_t callee_saved;
	/* Registers of a frame in the order Breakpad's text output prints them
	 * (frame 0 prints all valid ones; callers those recovered). */
	const uint8_t *print_order;
	uint8_t nprint;
	/* Name overrides for text output (e.g. x86 "efl"); NULL: reg_names. */
	const char *const *text_names;

	/* The address of the call instruction that pushed return address ra,
	 * used for symbolization of callers (usually ra - 1). */
	uint64_t (*call_site)(uint64_t ra);
	/* Removes pointer-authentication or mode bits from a code address. */
	uint64_t (*strip_code_pointer)(uint64_t addr);
	/* Plausibility of an instruction pointer: canonical form, alignment. */
	bool (*pc_is_plausible)(uint64_t pc);

	/* Caller of the context frame when it may be a leaf that has not set
	 * up a frame (Windows x64: the return address is at [rsp]); NULL if the
	 * arch has no such rule. Found frames get trust SW_TRUST_LEAF. */
	enum sw_unwind_status (*caller_of_leaf)(const struct sw_walk *w,
	                                        const struct sw_frame *callee,
	                                        struct sw_regs *caller);
	/* Caller by the frame-pointer chain: SW_UNWIND_OK, SW_UNWIND_END when
	 * the chain is intact and ends (a NULL return address), or
	 * SW_UNWIND_NO_RULE when it does not apply or is broken. */
	enum sw_unwind_status (*caller_by_frame_pointer)(const struct sw_walk *w,
	                                                 const struct sw_frame *callee,
	                                                 struct sw_regs *caller);
	/* Caller by prologue analysis (code without unwind tables); NULL if the
	 * arch has none. */
	enum sw_unwind_status (*caller_by_prologue)(const struct sw_walk *w,
	                                            const struct sw_frame *callee,
	                                            struct sw_regs *caller);
	/* Does the instruction that ends just before return address ra decode
	 * as a call? The scan's validation. */
	bool (*call_precedes)(const struct sw_walk *w, uint64_t ra);
	/* After a scan found return address ra in stack slot `slot`, fill in
	 * what else the arch can tell (x86: the frame pointer). May be NULL. */
	void (*after_scan)(const struct sw_walk *w, const struct sw_frame *callee,
	                   uint64_t slot, struct sw_regs *caller);
};

/* Register number for a name ("$rip", "rip", ".cfa" is not a register), or
 * -1. Accepts an optional leading '$'. */
int sw_arch_reg_index(const struct sw_arch *a, const char *name, size_t len);

#endif
