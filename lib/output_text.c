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

/* Breakpad's PrintRegister / PrintRegister64: returns the new column. */
static int print_register(FILE *f, const char *name, uint64_t v, bool wide, int col)
{
	char buf[64];
	if (wide)
		snprintf(buf, sizeof buf, " %5s = 0x%016" PRIx64, name, v);
	else
		snprintf(buf, sizeof buf, " %5s = 0x%08" PRIx32, name, (uint32_t)v);
	int len = (int)strlen(buf);
	if (col + len > MAX_WIDTH) {
		col = 0;
		fputs("\n ", f);
	}
	fputs(buf, f);
	return col + len;
}

/* Breakpad prints MIPS registers 64 bits wide even for 32-bit MIPS. */
static bool registers_are_wide(const struct sw_arch *arch)
{
	return arch->word_size == 8 || arch->cpu == SW_CPU_MIPS;
}

static void print_registers(FILE *f, const struct sw_arch *arch, const struct sw_regs *r)
{
	if (!arch || !arch->print_order)
		return;
	bool wide = registers_are_wide(arch);
	int col = 0;
	for (unsigned i = 0; i < arch->nprint; i++) {
		unsigned reg = arch->print_order[i];
		if (!sw_reg_valid(r, reg))
			continue;
		const char *name = arch->text_names ? arch->text_names[reg] : arch->reg_names[reg];
		col = print_register(f, str(name), r->v[reg], wide, col);
	}
}

/* " 0  module!function [file : line + 0xoff]" without the newline. */
static void print_frame_header(FILE *f, const struct sw_snapshot *s, const struct sw_stack *st,
                               const struct sw_stack_frame *fr, unsigned index)
{
	fprintf(f, "%2u  ", index);
	uint64_t pc = sw_out_frame_address(st, fr);
	if (fr->module >= 0 && (uint32_t)fr->module < s->nmodules) {
		const struct sw_module *m = &s->modules[fr->module];
		fputs(str(sw_basename(m->code_file)), f);
		if (fr->function) {
			fprintf(f, "!%s", fr->function);
			if (fr->file)
				fprintf(f, " [%s : %" PRIu32 " + 0x%" PRIx64 "]",
				        sw_basename(fr->file), fr->line, pc - fr->line_base);
			else
				fprintf(f, " + 0x%" PRIx64, pc - fr->function_base);
		} else {
			fprintf(f, " + 0x%" PRIx64, pc - m->base);
		}
	} else {
		fprintf(f, "0x%" PRIx64, pc);
	}
}

static void print_stack(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                        const struct sw_stack *st)
{
	if (!st || st->nframes == 0) {
		fputs(" <no frames>\n", f);
		return;
	}
	for (uint32_t i = 0; i < st->nframes; i++) {
		const struct sw_stack_frame *fr = &st->frames[i];
		print_frame_header(f, s, st, fr, i);
		fputs("\n ", f);
		if (fr->trust != SW_TRUST_INLINE) {
			struct sw_regs r;
			sw_stack_frame_regs(fr, &r);
			print_registers(f, st->arch ? st->arch : arch, &r);
		}
		fprintf(f, "\n    Found by: %s\n", sw_trust_description(fr->trust));
	}
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
		print_stack(f, s, arch, sw_out_stack(w, (uint32_t)req));
	}
	for (uint32_t i = 0; i < nstacks; i++) {
		int32_t number = sw_out_breakpad_thread_number(w, i);
		if ((int32_t)i == req || number < 0 || (o->one_thread && i != o->thread))
			continue;
		fprintf(f, "\nThread %" PRId32 "\n", number);
		print_stack(f, s, arch, sw_out_stack(w, i));
	}
	print_modules(f, s, w);
}
