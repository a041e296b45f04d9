/* Breakpad's human-readable output, byte for byte: the layout of
 * minidump_stackwalk's PrintProcessState (src/processor/stackwalk_common.cc).
 * Rules it encodes, checked against the corpus references:
 *  - "Crash parameters:" is printed when the exception record has at least
 *    one ExceptionInformation word (NumberParameters > 0), one line each with
 *    an empty description;
 *  - the crashing (or dump-requesting) thread comes first, then the others
 *    in dump order; thread names are not printed;
 *  - frames print the pc (the return address in callers, the call site in
 *    inline frames), offsets
 *    relative to the line, the function or the module;
 *  - registers wrap at 80 columns; inline frames print a line holding one
 *    space instead of registers;
 *  - modules are listed by base address; a module whose symbols the walk
 *    needed but could not load gets "(WARNING: No symbols, ...)" or
 *    "(WARNING: Corrupt symbols, ...)"; unloaded modules are not listed. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "crash_reason.h"
#include "output_internal.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

enum { MAX_WIDTH = 80 };

/* A frame's lines go through a struct sw_out_buf; the bytes are those of
 * the printf formats each helper names. */
static void tb_str(struct sw_out_buf *t, const char *s)
{
	sw_out_put(t, s, strlen(s));
}

/* "0x%" PRIx64 */
static void tb_hex(struct sw_out_buf *t, uint64_t v)
{
	char buf[18] = "0x";
	sw_out_put(t, buf, 2 + sw_out_fmt_hex(buf + 2, v, 0));
}

/* Breakpad's PrintRegister / PrintRegister64: " %5s = 0x%016" PRIx64 (or
 * 0x%08x), cut at 63 bytes as its 64-byte buffer cuts it; returns the new
 * column. */
static int print_register(struct sw_out_buf *t, const char *name, uint64_t v, bool wide, int col)
{
	char buf[64];
	size_t nl = strlen(name), n = 0;
	buf[n++] = ' ';
	for (; nl + n < 6; n++)
		buf[n] = ' ';
	size_t room = sizeof buf - 1 - n;
	size_t k = nl < room ? nl : room;
	memcpy(buf + n, name, k);
	n += k;
	char tail[24] = " = 0x";
	size_t tn = 5 + (wide ? sw_out_fmt_hex(tail + 5, v, 16)
	                      : sw_out_fmt_hex(tail + 5, (uint32_t)v, 8));
	k = tn < sizeof buf - 1 - n ? tn : sizeof buf - 1 - n;
	memcpy(buf + n, tail, k);
	n += k;
	int len = (int)n;
	if (col + len > MAX_WIDTH) {
		col = 0;
		sw_out_put(t, "\n ", 2);
	}
	sw_out_put(t, buf, n);
	return col + len;
}

/* 64-bit CPUs, and those whose table asks for it (Breakpad prints MIPS
 * registers 64 bits wide even for 32-bit MIPS). */
static bool registers_are_wide(const struct sw_arch *arch)
{
	return arch->word_size == 8 || arch->text_registers_wide;
}

/* The part of print_register's text before the digits, " %5s = 0x", for
 * each register a stack prints, made once per stack (a walk prints a dozen
 * registers in each of thousands of frames). len 0: a name too long for
 * label, printed by print_register. */
enum { LABEL_MAX = 24 };
struct reg_labels {
	const struct sw_arch *arch;
	bool wide;
	uint8_t len[256];
	char label[256][LABEL_MAX];
};

static void reg_labels_init(struct reg_labels *l, const struct sw_arch *arch)
{
	l->arch = arch;
	if (!arch || !arch->print_order)
		return;
	l->wide = registers_are_wide(arch);
	for (unsigned i = 0; i < arch->nprint; i++) {
		unsigned reg = arch->print_order[i];
		const char *name = str(arch->text_names ? arch->text_names[reg] : arch->reg_names[reg]);
		size_t nl = strlen(name), n = 0;
		l->len[i] = 0;
		if (nl > LABEL_MAX - 7)
			continue;
		char *b = l->label[i];
		memset(b, ' ', LABEL_MAX); /* copied whole: see print_registers */
		b[n++] = ' ';
		for (; nl + n < 6; n++)
			b[n] = ' ';
		memcpy(b + n, name, nl);
		n += nl;
		memcpy(b + n, " = 0x", 5);
		l->len[i] = (uint8_t)(n + 5);
	}
}

static void print_registers(struct sw_out_buf *t, const struct reg_labels *l,
                            const struct sw_stack_frame *fr)
{
	const struct sw_arch *arch = l->arch;
	if (!arch || !arch->print_order)
		return;
	unsigned digits = l->wide ? 16 : 8;
	int col = 0;
	for (unsigned i = 0; i < arch->nprint; i++) {
		unsigned reg = arch->print_order[i];
		if (!sw_stack_frame_reg_valid(fr, reg))
			continue;
		uint64_t v = sw_stack_frame_reg(fr, reg);
		if (l->len[i] == 0) {
			const char *name = arch->text_names ? arch->text_names[reg] : arch->reg_names[reg];
			col = print_register(t, str(name), v, l->wide, col);
			continue;
		}
		/* At most 23 + 16 bytes: never cut at 63 as print_register's are. */
		int len = l->len[i] + (int)digits;
		if (col + len > MAX_WIDTH) {
			col = 0;
			sw_out_put(t, "\n ", 2);
		}
		if (sizeof t->b - t->n < LABEL_MAX + digits)
			sw_out_flush(t);
		/* The whole slot, a fixed-size copy (three moves), then the
		 * digits from the label's end on; what the slot holds past
		 * them lies beyond t->n. Copying len bytes compiled to a rep
		 * movs, whose start-up made it 5 % of a warm gen48k walk
		 * (perf annotate). */
		char *out = t->b + t->n;
		memcpy(out, l->label[i], LABEL_MAX);
		sw_out_fmt_hex(out + l->len[i], l->wide ? v : (uint32_t)v, digits);
		t->n += (size_t)len;
		col += len;
	}
}

/* " 0  module!function [file : line + 0xoff]" without the newline:
 * "%2u  " then the rest. */
static void print_frame_header(struct sw_out_buf *t, const struct sw_snapshot *s,
                               const struct sw_stack *st, const struct sw_stack_frame *fr,
                               unsigned index)
{
	char num[24];
	size_t n = sw_out_fmt_dec(num + 1, index);
	if (n < 2) {
		num[0] = ' ';
		sw_out_put(t, num, n + 1);
	} else {
		sw_out_put(t, num + 1, n);
	}
	sw_out_put(t, "  ", 2);
	uint64_t pc = sw_out_frame_address(st, fr);
	const char *name;
	uint64_t base;
	if (sw_out_frame_place(s, fr, &name, &base)) {
		tb_str(t, str(name));
		if (fr->function) {
			sw_out_put(t, "!", 1);
			tb_str(t, fr->function);
			if (fr->file) {
				sw_out_put(t, " [", 2);
				tb_str(t, sw_basename(fr->file));
				sw_out_put(t, " : ", 3);
				sw_out_put(t, num, sw_out_fmt_dec(num, fr->line));
				sw_out_put(t, " + ", 3);
				tb_hex(t, pc - fr->line_base);
				sw_out_put(t, "]", 1);
			} else {
				sw_out_put(t, " + ", 3);
				tb_hex(t, pc - fr->function_base);
			}
		} else {
			sw_out_put(t, " + ", 3);
			tb_hex(t, pc - base);
		}
	} else {
		tb_hex(t, pc);
	}
}

/* registers: print each frame's register lines (--registers). */
static void print_stack(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                        const struct sw_stack *st, bool registers)
{
	if (!st || st->nframes == 0) {
		fputs(" <no frames>\n", f);
		return;
	}
	struct sw_out_buf t;
	t.f = f;
	t.n = 0;
	struct reg_labels labels;
	reg_labels_init(&labels, st->arch ? st->arch : arch);
	for (uint32_t i = 0; i < st->nframes; i++) {
		const struct sw_stack_frame *fr = &st->frames[i];
		print_frame_header(&t, s, st, fr, i);
		if (registers) {
			sw_out_put(&t, "\n ", 2);
			if (fr->trust != SW_TRUST_INLINE)
				print_registers(&t, &labels, fr);
		}
		tb_str(&t, "\n    Found by: ");
		tb_str(&t, sw_trust_description(fr->trust));
		sw_out_put(&t, "\n", 1);
		if (st->evidence)
			sw_output_text_evidence(&t, s, st, i);
	}
	if (st->evidence)
		sw_output_text_walk_end(&t, st);
	sw_out_flush(&t);
	/* Breakpad cuts long walks without a word; a reader must know. */
	if (st->truncated)
		fprintf(f, "    Stack walk %s\n", sw_walk_end_description(st->end));
}

static void print_modules(FILE *f, const struct sw_snapshot *s, const struct sw_walk_result *w)
{
	fputs("\nLoaded modules:\n", f);
	uint32_t *order = sw_out_module_order(s);
	if (!order)
		return;
	bool has_main = s->main_module >= 0 && (uint32_t)s->main_module < s->nmodules;
	uint64_t main_base = has_main ? s->modules[s->main_module].base : 0;
	uint8_t *warn = sw_out_module_warnings(w, s);
	for (uint32_t k = 0; k < s->nmodules; k++) {
		uint32_t i = order[k];
		const struct sw_module *m = &s->modules[i];
		fprintf(f, "0x%08" PRIx64 " - 0x%08" PRIx64 "  %s  %s%s",
		        m->base, m->base + m->size - 1, str(sw_basename(m->code_file)),
		        m->version && *m->version ? m->version : "???",
		        main_base != 0 && m->base == main_base ? "  (main)" : "");
		uint8_t wi = warn ? warn[i] : 0;
		if (wi & SW_OUT_NO_SYMBOLS)
			fprintf(f, "  (WARNING: No symbols, %s, %s)",
			        str(sw_basename(m->debug_file)), str(m->debug_id));
		else if (wi & SW_OUT_CORRUPT_SYMBOLS)
			fprintf(f, "  (WARNING: Corrupt symbols, %s, %s)",
			        str(sw_basename(m->debug_file)), str(m->debug_id));
		fputc('\n', f);
	}
	free(warn);
	free(order);
}

void sw_out_text(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                 const struct sw_walk_result *w, const struct sw_output_options *o)
{
	const struct sw_system_info *sys = &s->sys;
	fprintf(f, "Operating system: %s\n", str(sys->os_name));
	fprintf(f, "                  %s\n", str(sys->os_version));
	fprintf(f, "CPU: %s\n", str(sys->cpu_name));
	if (sys->cpu_info && *sys->cpu_info)
		fprintf(f, "     %s\n", sys->cpu_info);
	/* Breakpad prints the count the minidump records. An input that
	 * records none (an ELF core: no note holds it) leaves 0, which is no
	 * count: the line is left out, as the optional cpu_info line is. */
	if (sys->cpu_count > 0)
		fprintf(f, "     %" PRIu32 " CPU%s\n", sys->cpu_count,
		        sys->cpu_count != 1 ? "s" : "");
	fputs("\n", f);
	/* Breakpad prints the three GL strings (a microdump's G line) one per
	 * line, or UNKNOWN when all are empty. */
	if ((sys->gl_version && *sys->gl_version) || (sys->gl_vendor && *sys->gl_vendor) ||
	    (sys->gl_renderer && *sys->gl_renderer))
		fprintf(f, "GPU: %s\n     %s\n     %s\n\n", str(sys->gl_version), str(sys->gl_vendor),
		        str(sys->gl_renderer));
	else
		fputs("GPU: UNKNOWN\n\n", f);

	bool crashed = s->crash.present;
	if (crashed) {
		char reason[256];
		sw_crash_reason(s, SW_REASON_BREAKPAD, reason, sizeof reason);
		fprintf(f, "Crash reason:  %s\n", reason);
		fprintf(f, "Crash address: 0x%" PRIx64 "\n", sw_crash_address(s, SW_REASON_BREAKPAD));
		/* Not Breakpad's either: the instruction that crashed. */
		struct sw_crash_analysis a;
		sw_crash_analyze(s, w, &a);
		if (a.has_instruction)
			fprintf(f, "Crash instruction: %s\n", a.instruction);
		uint32_t np = s->crash.nparams < 15 ? s->crash.nparams : 15;
		if (np > 0) {
			fputs("Crash parameters:\n", f);
			for (uint32_t i = 0; i < np; i++)
				fprintf(f, "    value: 0x%016" PRIx64 "  description: \n",
				        s->crash.params[i]);
		}
	} else {
		fputs("No crash\n", f);
	}
	/* Not Breakpad's: the one line its layout lacks (docs/output.md). */
	if (o->signature)
		fprintf(f, "Signature: %s\n", o->signature);
	if (s->assertion && *s->assertion)
		fprintf(f, "Assertion: %s\n", s->assertion);
	if (s->dump_time != 0 && s->has_process_create_time && s->process_create_time != 0 &&
	    s->dump_time >= s->process_create_time)
		fprintf(f, "Process uptime: %" PRIu32 " seconds\n",
		        s->dump_time - s->process_create_time);
	else
		fputs("Process uptime: not available\n", f);

	int32_t req = w ? w->crashing : -1;
	uint32_t nstacks = w ? w->nstacks : 0;
	if (req >= 0 && (uint32_t)req < nstacks && (!o->one_thread || o->thread == (uint32_t)req)) {
		fprintf(f, "\nThread %d (%s)\n", sw_out_breakpad_thread_number(w, (uint32_t)req),
		        crashed ? "crashed" : "requested dump, did not crash");
		print_stack(f, s, arch, sw_out_stack(w, (uint32_t)req),
		            o->registers != SW_REGISTERS_NONE);
	}
	/* Breakpad's numbers counted along, not per thread (quadratic). */
	uint32_t number = 0;
	for (uint32_t i = 0; i < nstacks; i++) {
		if (w->stacks[i].dump_thread)
			continue;
		uint32_t its_number = number++;
		if ((int32_t)i == req || (o->one_thread && i != o->thread))
			continue;
		fprintf(f, "\nThread %" PRIu32 "\n", its_number);
		print_stack(f, s, arch, sw_out_stack(w, i), o->registers == SW_REGISTERS_ALL);
	}
	print_modules(f, s, w);
}
