/* Where a report goes (--output-file, --cyborg, or stdout), and how it gets
 * there without harming what the path names (docs/cli.md, "Output files"). */
#ifndef SW_CMD_OUTPUT_SINK_H
#define SW_CMD_OUTPUT_SINK_H

#include <stdbool.h>
#include <stdio.h>

/* A regular file (or a name that does not exist yet) is written as
 * NAME.tmp-XXXXXX beside it and renamed over NAME once the run has a
 * report: a pipeline watching NAME never reads half of one, and a run
 * without a report leaves NAME as it was. Anything else a path can name
 * is written *through*, in place: a device node (/dev/null, /dev/stderr),
 * a FIFO, a socket's peer; a symbolic link is followed to what it names
 * and that is treated by these rules, so the link stays a link. A
 * directory is refused. */
struct sink {
	FILE *f;
	const char *path;          /* as the user gave it; NULL: stdout */
	char *final_path;          /* malloc'd: path with its links followed; NULL: in place */
	char *tmp_path;            /* malloc'd: renamed over final_path; NULL: in place */
	bool reader_gone;          /* stdout's reader stopped reading (EPIPE) */
	bool failed;               /* a write failed, and was said */
};

/* Opens path (NULL: stdout) for writing; on failure one line on stderr
 * naming path, and false. */
bool sink_open(struct sink *k, const char *path);

/* After a report: flushes k and checks it. False on a write error, said in
 * one line naming the file; a stdout whose reader is gone is no error
 * (k->reader_gone: nothing more is written). */
bool sink_check(struct sink *k);

/* A write to k failed with err (0: unknown): said once in one line naming
 * the file, unless it is stdout's reader that is gone (k->reader_gone). */
void sink_write_failed(struct sink *k, int err);

/* Ends k: a temporary is renamed into place when keep (the run has a
 * report), else removed. Returns false (one line said) when it cannot
 * be. */
bool sink_close(struct sink *k, bool keep);

#endif
