/* stackwalk --batch: many snapshots in one process (docs/batch.md). The
 * inputs are listed (a folder becomes its files, "-" the paths read from
 * stdin, as they come), walked by N threads, one snapshot per thread at a time, and
 * their reports written as NDJSON in the order of the inputs, whatever
 * order the walks end in. What one walk does is the command line's
 * (cmd/stackwalk.c, through a callback); this file lists, schedules,
 * orders, counts and writes. */
#ifndef SW_CMD_BATCH_H
#define SW_CMD_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The command's exit statuses (docs/cli.md), a single run's and a
 * batch's. */
enum sw_exit_status {
	SW_EXIT_WALKED = 0,
	SW_EXIT_DAMAGED = 1,
	SW_EXIT_USAGE = 2,
	SW_EXIT_UNREADABLE = 3,
	SW_EXIT_INTERNAL = 4,
	SW_EXIT_NO_SYMBOLS = 5,
};

/* Which of two statuses a run ends with: the more severe. A missing
 * symbol (5) only matters when the walk was otherwise clean; damage (1)
 * is worse; no report at all (3, 4) worse still. */
int sw_worse_status(int a, int b);

/* One input's walk: writes its lines (sw_batch_put_report, one per
 * snapshot the input holds; sw_batch_put_error when there is no report)
 * to out and its messages, whole lines, to msgs. Returns the status a
 * single run of the input would exit with. Called by several threads at
 * once, each with its own out and msgs; ctx is shared. in_folder: the
 * path was found in a folder INPUT, so a file that is no snapshot is
 * skipped (sw_batch_put_skipped, status 0) rather than an error: a folder
 * of dumps holds a README or a .sym beside them (docs/batch.md). */
typedef int sw_batch_walk_fn(void *ctx, const char *path, bool in_folder, FILE *out,
                             FILE *msgs);

struct sw_batch {
	const char *const *inputs;  /* SNAPSHOT, DIR or "-", as given */
	size_t ninputs;
	bool null_separated;        /* "-": paths end with a NUL byte (--null), not a newline */
	unsigned jobs;              /* threads; 0: one per online CPU */
	sw_batch_walk_fn *walk;
	void *ctx;
	FILE *out;                  /* where the lines go */
	/* Called after each input's lines went to out, with the errno of a
	 * write that failed (0: none): false ends the batch (out's reader is
	 * gone: *status unchanged; or out cannot be written: *status set to
	 * SW_EXIT_INTERNAL, the message said). */
	bool (*out_ok)(void *ctx, int write_errno, int *status);
};

/* Walks every input; returns the batch's exit status (docs/batch.md):
 * the worst of the inputs', an unreadable input (3) counting as a damaged
 * one (1): it is one line, and the batch goes on. */
int sw_batch_run(const struct sw_batch *b);

/* The line of one report: doc is a compact JSON document (what --json
 * prints, "{...}\n"), written with "file": path as its first key. */
void sw_batch_put_report(FILE *out, const char *path, const char *doc, size_t len);
/* The line of a file in a folder that is no snapshot: {"file", "status":
 * "SKIPPED", "reason"}. */
void sw_batch_put_skipped(FILE *out, const char *path, const char *reason);
/* The line of an input without a report: {"file", "status", "error"};
 * keys, when not NULL or "", are more keys to put after "file"
 * ("\"k\":v", no comma at either end). */
void sw_batch_put_error(FILE *out, const char *path, const char *keys, const char *status,
                        const char *msg);

#endif
