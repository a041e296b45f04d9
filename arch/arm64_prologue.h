/* Prologue analysis for AArch64 (arm64_prologue.c): the caller of a frame
 * whose function has no unwind tables, from the frame its code builds
 * between its start and the frame's pc (arch/prologue.h's frame state). */
#ifndef SW_ARCH_ARM64_PROLOGUE_H
#define SW_ARCH_ARM64_PROLOGUE_H

#include "lib/arch.h"

/* The caller_by_prologue hook of arm64: the function's start from its
 * symbols, else sought back from pc among candidates (the code after a
 * return, a frame allocation), each accepted only if its decode lands on
 * pc with the CFA known. */
enum sw_unwind_status sw_arm64_caller_by_prologue(const struct sw_step *s, struct sw_caller *out);

/* The CFA of a frame with a live context (the crash's, a signal's), from
 * the frame its code has built by pc: the caller's sp when the caller is
 * found through x30 (a function stopped in its prologue, or a leaf that
 * moved sp, has sp below it). False when the code does not tell. */
bool sw_arm64_live_cfa(const struct sw_step *s, uint64_t *cfa);
/* The CFA of the frame whose frame record lies at fp, where the code of
 * its function (from its symbol's start to pc) stores x29 and x30 at fp
 * and fp + 8 and points x29 there, at a known distance below the CFA
 * (`stp x29, x30, [sp, #-N]!; mov x29, sp`): the caller's sp, exactly,
 * where the record alone only bounds it. */
bool sw_arm64_record_cfa(const struct sw_step *s, uint64_t fp, uint64_t *cfa);

/* The caller of a frame whose return address ra a scan found in `slot`,
 * where the frame's code shows x30 saved at a known place in its frame:
 * the CFA (the caller's sp) is then known from the slot, and the
 * registers the code saved from their slots. False when the code does
 * not tell, or disagrees with the frame's sp. */
bool sw_arm64_scanned_caller(const struct sw_step *s, uint64_t slot, uint64_t ra,
                             struct sw_caller *out);

#endif
