/* Rendering a finished walk: Breakpad's text (`minidump_stackwalk`),
 * Breakpad's pipe-delimited machine format (`minidump_stackwalk -m`) and
 * rust-minidump's JSON (`minidump-stackwalk --json`). See docs/output.md
 * and docs/json.md. The outputs only read the snapshot and the walk. */
#ifndef SW_OUTPUT_H
#define SW_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "arch.h"
#include "snapshot.h"
#include "walker.h"

/* arch may be NULL when the CPU is unknown: registers are then not printed
 * (text) or not listed (JSON). */
void sw_output_text(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w);
void sw_output_machine(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                       const struct sw_walk_result *w);
/* pretty: 2-space indented like serde_json's pretty printer; else one line. */
void sw_output_json(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w, bool pretty);

#endif
