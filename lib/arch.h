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
struct sw_explain;

/* What a caller hook sees of the step in progress (Breakpad's frames
 * vector, rust-minidump's GetCallerFrameArgs): the walk, the frame whose
 * caller is sought, and the frame below it (NULL for the context frame). */
struct sw_step {
	const struct sw_walk *walk;
	const struct sw_frame *callee;
	const struct sw_frame *callee_callee;
	/* Set by the walker once this step met a broken frame chain: a scan
	 * must then prove its candidate by code bytes. */
	bool scan_needs_code;
	/* Where the walker records what each method answered (--explain);
	 * NULL when nobody asked. Hooks leave it alone. */
	struct sw_explain *explain;
};


/* One DWARF register number outside sw_arch.dwarf_regs, and ours. */
struct sw_dwarf_reg_pair {
	uint16_t dwarf;
	uint8_t reg;
};

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
	/* A second instruction set the pc's code may be in, told by a flag
	 * of the frame's state register (ARM's Thumb: CPSR.T): the register
	 * and the flag's mask (0: no second one). The disassembler asks it
	 * (lib/disasm.h). */
	uint8_t isa_state_reg;
	uint32_t isa_state_mask;
	/* Registers a callee must preserve: in caller frames they keep the
	 * callee's value unless a rule says otherwise (and CFI says so). */
	uint64_t callee_saved;
	/* Registers of a frame in the order Breakpad's text output prints them
	 * (frame 0 prints all valid ones; callers those recovered). */
	const uint8_t *print_order;
	uint8_t nprint;
	/* Name overrides for text output (e.g. x86 "efl"); NULL: reg_names. */
	const char *const *text_names;
	/* Name overrides for JSON registers, as rust-minidump spells them
	 * (arm64 "fp"/"lr"); NULL: reg_names. */
	const char *const *json_names;

	/* DWARF register number -> our register number (-1: not tracked).
	 * Our numbers are the DWARF ones below 32 on most CPUs, not above. */
	const int8_t *dwarf_regs;
	uint16_t ndwarf_regs;
	/* DWARF registers numbered far beyond the dense table (RISC-V's
	 * control and status registers at 4096 + CSR number, psABI "DWARF
	 * Register Numbers"): a short list of pairs; NULL when none. */
	const struct sw_dwarf_reg_pair *dwarf_extra;
	uint8_t ndwarf_extra;

	/* The address of the call instruction that pushed return address ra,
	 * used for symbolization of callers (usually ra - 1). */
	uint64_t (*call_site)(uint64_t ra);
	/* The address outputs print for a physical frame and measure function
	 * and line offsets from (Breakpad's StackFrame::instruction, rust-
	 * minidump's `instruction`): NULL prints the pc (x86 and amd64, whose
	 * Breakpad frames print their return address); link-register CPUs print
	 * a caller's call site (sw_frame_call_site_address). */
	uint64_t (*printed_address)(const struct sw_stack_frame *f);
	/* Removes pointer-authentication bits from a code address (ARM keeps
	 * its Thumb bit: Breakpad prints and symbolizes the raw pc). The
	 * walk gives the snapshot's pointer-authentication mask and the highest
	 * address any module or memory region uses (sw_walk.address_mask). */
	uint64_t (*strip_code_pointer)(const struct sw_walk *w, uint64_t addr);
	/* Plausibility of an instruction pointer: canonical form, alignment. */
	bool (*pc_is_plausible)(uint64_t pc);

	/* Every caller hook answers SW_UNWIND_OK (*out filled), SW_UNWIND_END
	 * (a definite end: an intact chain reaching NULL, a rule saying "no
	 * caller"), or SW_UNWIND_NO_RULE / SW_UNWIND_FAILED (does not apply,
	 * or its evidence is broken: the walker tries the next method). The
	 * walker checks every OK result itself (plausible pc, a stack that
	 * grows and stays on the thread's stack) and falls through when the
	 * check fails; a hook checks what only it can (the chain's shape, a
	 * return address that must follow a call). */

	/* Caller of a frame whose pc is in a sigreturn trampoline (the code
	 * bytes at pc, read through sw_walk_read, are the C library's or the
	 * vDSO's restorer: `mov r7,#0xad; svc 0`, `mov x8,#0x8b; svc 0`, ...):
	 * every register restored from the signal frame the kernel pushed on
	 * the stack (struct rt_sigframe / sigframe of the CPU's Linux ABI), and
	 * out->restored_context set. Tried before the module's unwind rules, as
	 * libunwindstack does: few trampolines carry CFI, and what they carry
	 * restores less. Found frames get trust SW_TRUST_CONTEXT (a restored
	 * context, Breakpad's name for it). Also a frame whose function is a
	 * firmware trap-entry routine of a known layout (RISC-V: FreeRTOS,
	 * ESP-IDF; the callee's symbolized name says so). SW_UNWIND_END: the
	 * frame is such a frame but its saved context cannot be found or
	 * fails its checks: the walk ends (no other method is asked). NULL:
	 * the arch has none. */
	enum sw_unwind_status (*caller_of_signal_frame)(const struct sw_step *s,
	                                                struct sw_caller *out);
	/* Given the caller a rule found, when its pc is no address but an
	 * exception-return value (Cortex-M's EXC_RETURN in lr): makes it the
	 * context the exception interrupted (restored_context) and returns
	 * OK; NO_RULE for an ordinary caller; END when the value says a frame
	 * is there that cannot be unstacked (its stack not captured, its
	 * checks failed): the walk ends, as a scan past it would take the
	 * frame's words for return addresses. NULL: no such values. */
	enum sw_unwind_status (*caller_of_exception)(const struct sw_step *s,
	                                             struct sw_caller *c);
	/* Caller of the context frame when it may be a leaf that has not set
	 * up a frame (Windows x64: the return address is at [rsp]); NULL if the
	 * arch has no such rule. Found frames get trust SW_TRUST_LEAF. */
	enum sw_unwind_status (*caller_of_leaf)(const struct sw_step *s, struct sw_caller *out);
	/* Caller by the frame-pointer chain (and, on link-register CPUs, the
	 * live link register of a context frame). SW_UNWIND_FAILED: a frame
	 * record is there but its return address names no code (a broken
	 * chain: a scan from this frame must then be validated by code). */
	enum sw_unwind_status (*caller_by_frame_pointer)(const struct sw_step *s,
	                                                 struct sw_caller *out);
	/* Caller by prologue analysis (code without unwind tables); NULL if the
	 * arch has none. */
	enum sw_unwind_status (*caller_by_prologue)(const struct sw_step *s, struct sw_caller *out);
	/* Caller by stack scanning when the arch has its own rule (MIPS); NULL:
	 * the walker's generic scan (sw_walk_caller_by_scan). */
	enum sw_unwind_status (*caller_by_scan)(const struct sw_step *s, struct sw_caller *out);
	/* Does the instruction that ends just before return address ra decode
	 * as a call? The scan's validation. ra is the value as found (ARM keeps
	 * its Thumb bit, arm64 its signature): the hook strips what it must.
	 * *known is false when the code bytes are not in the snapshot (the
	 * answer is then true: Breakpad's rule without the call check). */
	bool (*call_precedes)(const struct sw_walk *w, uint64_t ra, bool *known);
	/* After a scan found return address ra in stack slot `slot`, fill in
	 * what else the arch can tell (x86: the frame pointer). May be NULL. */
	void (*after_scan)(const struct sw_step *s, uint64_t slot, struct sw_caller *out);
	/* Where the call that ends just before return address ra jumps, when
	 * the instruction names it (a direct call): true and *target. A
	 * target that is a stub the arch knows (a PLT entry, a linker's
	 * veneer) is followed to where the stub jumps: through a PLT entry's
	 * GOT slot only when the snapshot holds the slot and it is bound to
	 * another module. False for an indirect call, code that cannot be
	 * read, or a stub whose destination is not known. Lets a scan refuse
	 * a stale return address whose call went elsewhere than the code it
	 * scans from (lib/walker.c, sw_walk_call_may_reach): a stub it does
	 * not follow would look like such a call. May be NULL. */
	bool (*call_target)(const struct sw_walk *w, uint64_t ra, uint64_t *target);
	/* Does the code of the function at fn (a call's target) hold a jump
	 * into module `to` (a tail call through a PLT entry or GOT slot)?
	 * Then a call into fn may have led into `to` without a return
	 * address of its own, and the call's module is no reason to refuse
	 * it. False when the code cannot be read. May be NULL. */
	bool (*jumps_into_module)(const struct sw_walk *w, uint64_t fn, int32_t to);
	/* Is addr the first instruction of a sigreturn trampoline? A signal
	 * handler returns there, though no call precedes it: a frame record
	 * or a scanned word naming it is a return address all the same, and
	 * the next step restores the interrupted context
	 * (caller_of_signal_frame). May be NULL. */
	bool (*is_signal_trampoline)(const struct sw_walk *w, uint64_t addr);
	/* Is there, at sp, a signal frame the kernel wrote, known by its own
	 * fields without the restorer's code (a Linux core holds no code of
	 * the files it mapped)? A scan that must prove its candidates by code
	 * takes a handler's return address with such a frame above it. May be
	 * NULL. */
	bool (*signal_frame_written_at)(const struct sw_walk *w, uint64_t sp);
	/* Could a direct call to `target` lead to `pc` at all? False only when
	 * the code at target shows it cannot (a closed function, left only by
	 * its returns, that does not hold pc); true when it cannot tell. A
	 * frame record's return address is checked by it. May be NULL. */
	bool (*call_reaches)(const struct sw_walk *w, uint64_t target, uint64_t pc);
	/* A scan found a word in `slot` whose call went to `target`: could the
	 * function at target, stopped where the callee frame is (its pc and
	 * sp), keep its return address in that slot? The prologue of target,
	 * decoded up to the callee's pc, says where its return address is;
	 * false only when it says somewhere else (the word is then left over
	 * from a call of another frame), true when it cannot tell (no code, a
	 * frame pointer, target past pc). May be NULL. */
	bool (*slot_fits_call)(const struct sw_walk *w, const struct sw_frame *callee,
	                       uint64_t target, uint64_t slot);
	/* Does every instruction in [from, to) go on to the next one (a
	 * conditional branch or a call may, a return or an unconditional jump
	 * does not)? Then from and to lie in one function, whatever symbols
	 * say or do not. False when it cannot tell (the code cannot be read,
	 * or to is not an instruction boundary from `from`). May be NULL. */
	bool (*falls_through)(const struct sw_walk *w, uint64_t from, uint64_t to);
	/* Does the call before ra go through a PLT entry whose GOT slot the
	 * dynamic linker has not bound yet (it still points back into the
	 * PLT)? Lazy binding binds a slot on its first call, so that call
	 * never ran, and ra is no return address of a live frame. May be
	 * NULL. */
	bool (*call_never_made)(const struct sw_walk *w, uint64_t ra);
	/* Could the call before ra, an indirect one whose form alone says
	 * where it goes, have led to pc? i386 glibc makes its system calls
	 * through the TCB's sysinfo slot (`call *%gs:0x10`): that call enters
	 * the kernel's entry code, and a frame whose pc is anywhere else was
	 * not called by it. True when the form says nothing. May be NULL. */
	bool (*indirect_call_reaches)(const struct sw_walk *w, uint64_t ra, uint64_t pc);
	/* The text output prints every register 64 bits wide, whatever the
	 * word size: Breakpad's MIPS context is 64-bit on 32-bit MIPS too,
	 * and its minidump_stackwalk prints it so. */
	bool text_registers_wide;
};

/* Register number for a name ("$rip", "rip", ".cfa" is not a register), or
 * -1. Accepts an optional leading '$'. (lib/arch_regs.c) */
int sw_arch_reg_index(const struct sw_arch *a, const char *name, size_t len);
/* Our register number for DWARF register n, or -1. (lib/arch_regs.c) */
int sw_arch_dwarf_reg(const struct sw_arch *a, unsigned n);
/* A caller's call site, the context frame's (or a restored context's) pc:
 * what Breakpad prints on every CPU but x86 and amd64. */
static inline uint64_t sw_frame_call_site_address(const struct sw_stack_frame *f)
{
	return f->trust == SW_TRUST_CONTEXT || f->restored_context ? f->pc : f->lookup_pc;
}

/* Is the frame's context restored whole (frame 0, a signal or exception
 * frame), so that link registers still hold what they held then? */
static inline bool sw_frame_has_live_context(const struct sw_frame *f)
{
	return f->trust == SW_TRUST_CONTEXT || f->restored_context;
}

/* The instruction a frame is in: a live context's pc, a caller's call. */
static inline uint64_t sw_frame_code_pc(const struct sw_frame *f)
{
	return sw_frame_has_live_context(f) ? f->pc : f->lookup_pc;
}

#endif
