/* Shared between the microdump reader's two files: microdump.c finds the
 * microdumps in a log and their lines; microdump_records.c reads each
 * line's record into the snapshot. Not a public API. */
#ifndef SW_FORMATS_MICRODUMP_INTERNAL_H
#define SW_FORMATS_MICRODUMP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"

/* What a first pass over a microdump's records counted: the arrays the
 * second pass fills are allocated once, at these sizes, so memory stays
 * proportional to the input. */
struct mc_counts {
	uint64_t stack_bytes;     /* bytes the S lines' hex digits can hold */
	uint32_t stack_lines;     /* S lines: at most one memory region each */
	uint32_t modules;         /* M lines */
};

struct mc_reader {
	struct sw_snapshot *snap;
	uint64_t line;            /* the line being read (1-based), for messages; 0: none */
	uint64_t begin_line;      /* the microdump's BEGIN line */
	uint32_t damage;          /* problems that are not warnings */

	/* Records read once; a repeat is a warning. */
	bool seen_os, seen_gpu, seen_reason, seen_context, seen_product, seen_process;

	/* The stack: the S 0 line's announcement, then the chunks. */
	bool has_stack_header;
	uint64_t stack_sp, stack_base, stack_len;
	uint8_t *stack;           /* decoded bytes of every chunk, in order */
	uint64_t stack_used, stack_cap;
	uint32_t mem_cap;
	bool in_run;              /* chunks since the last gap form one region */
	uint64_t run_addr;        /* the run's first address */
	uint64_t run_start;       /* and its offset in stack */
	bool has_chunk;           /* a chunk was read: next_addr is where the next should start */
	uint64_t next_addr;

	uint32_t module_cap;
	struct sw_regs context;
	enum sw_cpu context_cpu;
};

/* Records a problem on the current line, or about the whole microdump when
 * r->line is 0 (printf-style); a warning does not make it damaged. */
void mc_problem(struct mc_reader *r, bool warning, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Counts what a record needs (the first pass). */
void mc_count_record(struct mc_counts *c, struct sw_span record);
/* Allocates the arrays for what the first pass counted. */
bool mc_reader_init(struct mc_reader *r, struct sw_snapshot *snap, const struct mc_counts *c);
/* Reads one record ("O A arm 02 ...") into the snapshot. cut: the file
 * ends inside its line (a log cut short). */
void mc_read_record(struct mc_reader *r, struct sw_span record, bool cut);
/* After the last record: closes the stack, builds the thread and the
 * crash, and reports what the microdump lacked. */
void mc_finish(struct mc_reader *r);

#endif
