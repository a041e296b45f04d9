/* Prologue analysis, shared by the CPUs whose code often has no unwind
 * tables and no fixed frame layout (MIPS, RISC-V): a per-CPU decoder turns
 * each instruction from the function's start up to pc into the events
 * below; the frame state they build says, at pc, where the CFA (the stack
 * pointer at the function's entry, the caller's sp) is and where the
 * caller's return address and callee-saved registers are. The decoders
 * know the instruction sets; this file knows frames. */
#ifndef SW_ARCH_PROLOGUE_H
#define SW_ARCH_PROLOGUE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/arch.h"

struct sw_walk;

enum { SW_PRO_NREGS = 32 };

/* The frame at one instruction, relative to the CFA. */
struct sw_pro_frame {
	bool sp_known, fp_known;
	int64_t sp_off, fp_off;    /* sp = CFA + sp_off, fp = CFA + fp_off */
	/* The CFA is found from fp rather than sp: fp was defined from sp
	 * more recently than sp from fp (the register a compiler's own CFI
	 * would name; both agree while both are known). */
	bool cfa_from_fp;
	uint32_t saved;            /* registers whose caller value is in a slot */
	int64_t slot[SW_PRO_NREGS];/* CFA-relative slot address */
	uint8_t width[SW_PRO_NREGS];
	uint32_t written;          /* changed without being saved first */
	uint32_t restored;         /* reloaded from their slot since */
	bool ra_clobbered;         /* a call (or other write) replaced ra */
};

struct sw_prologue {
	uint8_t sp, fp, ra;        /* register numbers (< 32) */
	uint32_t tracked;          /* callee-saved registers, and ra */
	struct sw_pro_frame cur;
	/* An epilogue restores registers and releases the frame on one path;
	 * the code after its return or tail jump is reached from elsewhere
	 * with the frame as it was before the epilogue began. */
	bool in_epilogue;
	struct sw_pro_frame body;
	/* Constants built in registers (lui/ori, li) for large frame sizes. */
	uint32_t const_known;
	int64_t const_val[SW_PRO_NREGS];
	bool failed;               /* an instruction the frame cannot survive */
	/* Where decoding began: the function start the analysis settled on
	 * (--explain's evidence, through sw_pro_caller). */
	uint64_t decoded_from;
};

void sw_pro_init(struct sw_prologue *p, const struct sw_arch *arch);

/* Register arithmetic as the CPU does it: wrapping, never overflowing
 * (code from a hostile file may add anything to anything). */
static inline int64_t sw_pro_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t sw_pro_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* sp += delta. */
void sw_pro_sp_add(struct sw_prologue *p, int64_t delta);
/* sp changed by an amount not known here (alloca, realignment). */
void sw_pro_sp_unknown(struct sw_prologue *p);
/* sp = fp + off, and fp = sp + off. */
void sw_pro_sp_from_fp(struct sw_prologue *p, int64_t off);
void sw_pro_fp_from_sp(struct sw_prologue *p, int64_t off);
/* sp = CFA + off: restored from a copy another register kept (ARM's
 * `mov r5, sp` ... `mov sp, r5` around a variable-length array). */
void sw_pro_sp_set(struct sw_prologue *p, int64_t off);
/* fp += delta (ARM Thumb's `adds r7, #N` before `mov sp, r7`). */
void sw_pro_fp_add(struct sw_prologue *p, int64_t delta);
/* [base + off] = reg, width bytes (base: sp or fp). */
void sw_pro_store(struct sw_prologue *p, unsigned reg, unsigned base, int64_t off,
                  unsigned width);
/* reg = [base + off]. */
void sw_pro_load(struct sw_prologue *p, unsigned reg, unsigned base, int64_t off);
/* reg = a value not known here / the constant v. */
void sw_pro_write(struct sw_prologue *p, unsigned reg);
void sw_pro_const(struct sw_prologue *p, unsigned reg, int64_t v);
bool sw_pro_const_get(const struct sw_prologue *p, unsigned reg, int64_t *v);
/* A call: the link register now holds a return address into this
 * function; `link` is the register it wrote. */
void sw_pro_call(struct sw_prologue *p, unsigned link);
/* A return or an unconditional jump: no path falls through it. */
void sw_pro_path_end(struct sw_prologue *p);

/* The caller by the frame state at the callee's pc: sp = CFA, pc = the
 * return address, and every tracked register from its slot, or the
 * callee's own value when this function left it alone. The return address
 * comes from its slot, or, for a frame with a live context (the only kind
 * that can be stopped before storing it), from the link register when no
 * call replaced it. SW_UNWIND_END for a NULL return address read from an
 * intact slot (a thread's or process's outermost frame); NO_RULE when the
 * CFA or the return address is unknown or the latter fails the scan's
 * checks. */
enum sw_unwind_status sw_pro_caller(const struct sw_prologue *p, const struct sw_step *s,
                                    struct sw_caller *out);

/* A window on the code the decoders read, through the walk's checked
 * accessor (sw_walk_read), a chunk at a time. */
struct sw_code {
	const struct sw_walk *w;
	uint64_t base;
	uint32_t n;
	uint8_t buf[256];
};

void sw_code_init(struct sw_code *c, const struct sw_walk *w);
/* Copies n (<= 8) bytes at addr; false if any is not captured, or if
 * the walk's budget of code reads is spent (it then marks the step void:
 * struct sw_walk_budget). */
bool sw_code_read(struct sw_code *c, uint64_t addr, void *out, unsigned n);

/* Where a function's code begins: from the symbols covering pc (a FUNC or
 * PUBLIC record's start), or 0 when they say nothing. */
uint64_t sw_pro_symbol_start(const struct sw_step *s);
/* For any other code address: sw_walk_function_start (lib/walker.h). */

/* Without symbols a function's start is sought back through the code from
 * `origin`: never more than `reach` bytes back, nor below the module
 * holding origin. The lowest address the search may look at. */
uint64_t sw_pro_search_floor(const struct sw_walk *w, uint64_t origin, uint64_t reach);

/* Checking a candidate start by decoding forwards from it to pc (the
 * RISC-V and AArch64 decoders). What a return met on the way says: */
enum sw_pro_returns {
	SW_PRO_RETURNS_END_PATHS, /* a start whose function is known: paths end there */
	SW_PRO_RETURNS_REFUTE,    /* any return: the candidate is in an earlier function */
	/* A candidate that allocates a frame: a return that ends an epilogue
	 * of that frame is its function's (GCC places blocks after the
	 * epilogue), one from a frame-less state or a new allocation after
	 * it belongs to another function. */
	SW_PRO_RETURNS_EPILOGUE_ONLY,
};

struct sw_pro_candidate {
	enum sw_pro_returns returns;
	bool returned;    /* an epilogue's return was met */
	int64_t floor;    /* sp's offset at it */
};

/* After one instruction was decoded into p (ret: it is a return; ends: no
 * path falls through it): false when it refutes the candidate. */
bool sw_pro_candidate_step(struct sw_prologue *p, struct sw_pro_candidate *k, bool ret, bool ends);

/* A call replaced the return address, which no slot holds: a function
 * that calls before saving it could never return, so a candidate whose
 * decode ends so is a block after an epilogue, not a start. */
bool sw_pro_ra_lost(const struct sw_prologue *p);

#endif
