/* Rendering a finished walk: Breakpad's text (`minidump_stackwalk`),
 * Breakpad's pipe-delimited machine format (`minidump_stackwalk -m`) and
 * rust-minidump's JSON (`minidump-stackwalk --json`). See docs/output.md
 * and docs/json.md. The outputs only read the snapshot and the walk. */
#ifndef SW_OUTPUT_H
#define SW_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "snapshot.h"
#include "walker.h"

enum sw_output_format { SW_OUTPUT_TEXT, SW_OUTPUT_MACHINE, SW_OUTPUT_JSON };

/* Which frames' registers a report shows (--registers, docs/cli.md): a
 * deep walk's text is mostly register lines (1,005 frames: 563 KB), which
 * a pipeline that keeps only functions need not store. */
enum sw_output_registers {
	SW_REGISTERS_ALL = 0,    /* text: every frame's; JSON: crashing_thread's frame 0 */
	SW_REGISTERS_CRASHING,   /* only the crashing (requesting) thread's frames */
	SW_REGISTERS_NONE,       /* none */
};

/* How a report is rendered; all zeros is the default (every thread, no
 * signature, status "OK", compact JSON). */
struct sw_output_options {
	bool pretty;             /* JSON: indented like serde_json's pretty printer */
	/* --brief: print the stack of snapshot thread `thread` only (text and
	 * machine; JSON lists every thread, the others as walked, see
	 * docs/json.md). */
	bool one_thread;
	uint32_t thread;
	const char *signature;   /* the crash signature (lib/signature.h); NULL: none */
	const char *status;      /* the JSON "status" (docs/json.md); NULL: "OK" */
	enum sw_output_registers registers;
};

/* One report of snapshot s and its walk w in format fmt. arch may be NULL
 * when the CPU is unknown: registers are then not printed (text) or not
 * listed (JSON). */
/* Where frame fr's code is, as outputs name it: its module's file name
 * and base, or for a DEX frame (trust SW_TRUST_DEX) the name of the .dex
 * file's mapping and its start (libunwindstack's rel_pc is the DEX pc less
 * the mapping's start). False when neither holds it. */
bool sw_out_frame_place(const struct sw_snapshot *s, const struct sw_stack_frame *fr,
                        const char **name, uint64_t *base);

void sw_output(FILE *f, enum sw_output_format fmt, const struct sw_snapshot *s,
               const struct sw_arch *arch, const struct sw_walk_result *w,
               const struct sw_output_options *o);

/* sw_output with the default options. */
void sw_output_text(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w);
void sw_output_machine(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                       const struct sw_walk_result *w);
/* pretty: 2-space indented; else one line. */
void sw_output_json(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w, bool pretty);

/* --explain: the evidence object of frame `frame` of st (-1: the walk's
 * end, walk_end_evidence), as the JSON output writes it, on one line;
 * "null" when st was walked without evidence. */
void sw_output_evidence_json(FILE *f, const struct sw_snapshot *s, const struct sw_stack *st,
                             int64_t frame);

#endif
