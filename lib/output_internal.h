/* Helpers shared by the output formats (not part of the public API). */
#ifndef SW_OUTPUT_INTERNAL_H
#define SW_OUTPUT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "crash_analysis.h"
#include "output.h"

/* The three formats with their options (o never NULL); sw_output picks one. */
void sw_out_text(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                 const struct sw_walk_result *w, const struct sw_output_options *o);
void sw_out_machine(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w, const struct sw_output_options *o);
void sw_out_json(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                 const struct sw_walk_result *w, const struct sw_output_options *o);

/* Module indexes in the order Breakpad lists them: by base address, or by
 * end address when s->modules_by_end (microdumps). Returns a malloc'ed
 * array of s->nmodules entries, or NULL (also when there are no modules). */
uint32_t *sw_out_module_order(const struct sw_snapshot *s);

/* The symbol status of module i, SW_SYMS_NOT_LOOKED when unknown. */
enum sw_symbols_status sw_out_module_status(const struct sw_walk_result *w,
                                            const struct sw_snapshot *s, int32_t i);

/* Breakpad names a module's symbol problem by (debug_file, debug_id): every
 * module sharing them with a module whose symbols were missing (corrupt)
 * gets the warning. A malloc'ed array of SW_OUT_* flags per module, or NULL
 * when there is nothing to warn about or no memory. */
enum { SW_OUT_NO_SYMBOLS = 1, SW_OUT_CORRUPT_SYMBOLS = 2 };
uint8_t *sw_out_module_warnings(const struct sw_walk_result *w, const struct sw_snapshot *s);

/* The stack of snapshot thread position i, NULL if the walk has none. */
const struct sw_stack *sw_out_stack(const struct sw_walk_result *w, uint32_t i);

/* Breakpad's number for stack i: its index among the walked threads, the
 * thread that wrote the dump not counting (Breakpad does not list it); -1
 * for that thread itself. */
int32_t sw_out_breakpad_thread_number(const struct sw_walk_result *w, uint32_t i);

/* The address printed for frame fr of stack st, from which function and
 * line offsets are measured: an inline frame's call site, else what the
 * stack's arch prints (struct sw_arch.printed_address). */
uint64_t sw_out_frame_address(const struct sw_stack *st, const struct sw_stack_frame *fr);

/* "%" PRIx64, or "%0<width>" PRIx64 when width > 0 (at most 16), into out
 * (>= 16 bytes), and "%" PRIu64 into out (>= 20 bytes); each returns the
 * length. printf's format parsing was a fifth of a deep walk's output. */
size_t sw_out_fmt_hex(char *out, uint64_t v, unsigned width);
size_t sw_out_fmt_dec(char *out, uint64_t v);

/* An output's bytes gathered and written with one fwrite when the buffer
 * fills and at the end (sw_out_flush): a deep walk's report is megabytes
 * of short pieces, and a stdio call per piece (printf's format parsing,
 * fputc's lock) was a fifth of a warm walk's time in text and a third in
 * JSON. */
struct sw_out_buf {
	FILE *f;
	size_t n;                   /* bytes in b */
	char b[8192];
};

static inline void sw_out_flush(struct sw_out_buf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

static inline void sw_out_put(struct sw_out_buf *o, const void *s, size_t n)
{
	if (n > sizeof o->b - o->n) {
		sw_out_flush(o);
		if (n > sizeof o->b) {
			fwrite(s, 1, n, o->f);
			return;
		}
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* The snapshot's word size: sys.word_size, else the arch's, else 8. */
unsigned sw_out_word_size(const struct sw_snapshot *s, const struct sw_arch *arch);

/* --explain in the text output (lib/output_explain.c): the Evidence
 * lines of frame i of st, and the Walk ended lines after its last frame. */
void sw_output_text_evidence(struct sw_out_buf *t, const struct sw_snapshot *s,
                             const struct sw_stack *st, uint32_t i);
void sw_output_text_walk_end(struct sw_out_buf *t, const struct sw_stack *st);

#endif
