/* Breakpad's machine-readable output (`minidump_stackwalk -m`,
 * PrintProcessStateMachineReadable in stackwalk_common.cc):
 *
 *   OS|{name}|{version}
 *   CPU|{arch}|{info}|{count}
 *   GPU|{gl version}|{gl vendor}|{gl renderer}
 *   Crash|{reason}|{address}|{crashing thread}     (or "No crash"/assertion)
 *   Module|{file}|{version}|{debug file}|{debug id}|{base}|{last byte}|{main}
 *   (blank line)
 *   {thread}|{frame}|{module}|{function}|{source file}|{line}|{offset}
 *
 * '|' and newlines are removed from every string field; the module and
 * debug file are basenames, the source file is the full path. */
#include <inttypes.h>
#include <stdlib.h>

#include "crash_reason.h"
#include "output_internal.h"

/* Writes s with '|' and '\n' dropped (Breakpad's StripSeparator). */
static void put_field(FILE *f, const char *s)
{
	if (!s)
		return;
	for (; *s; s++)
		if (*s != '|' && *s != '\n')
			fputc(*s, f);
}

static void print_stack(FILE *f, const struct sw_snapshot *s, uint32_t thread,
                        const struct sw_stack *st)
{
	if (!st)
		return;
	for (uint32_t i = 0; i < st->nframes; i++) {
		const struct sw_stack_frame *fr = &st->frames[i];
		fprintf(f, "%" PRIu32 "|%" PRIu32 "|", thread, i);
		uint64_t pc = sw_out_frame_address(st, fr);
		const char *name;
		uint64_t base;
		if (sw_out_frame_place(s, fr, &name, &base)) {
			put_field(f, name);
			if (fr->function) {
				fputc('|', f);
				put_field(f, fr->function);
				if (fr->file) {
					fputc('|', f);
					put_field(f, fr->file);
					fprintf(f, "|%" PRIu32 "|0x%" PRIx64, fr->line, pc - fr->line_base);
				} else {
					fprintf(f, "|||0x%" PRIx64, pc - fr->function_base);
				}
			} else {
				fprintf(f, "||||0x%" PRIx64, pc - base);
			}
		} else {
			fprintf(f, "||||0x%" PRIx64, pc);
		}
		fputc('\n', f);
	}
}

void sw_out_machine(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w, const struct sw_output_options *o)
{
	(void)arch;
	fputs("OS|", f);
	put_field(f, s->sys.os_name);
	fputc('|', f);
	put_field(f, s->sys.os_version);
	fputs("\nCPU|", f);
	put_field(f, s->sys.cpu_name);
	fputc('|', f);
	put_field(f, s->sys.cpu_info);
	fprintf(f, "|%" PRIu32 "\n", s->sys.cpu_count);
	fputs("GPU|", f);
	put_field(f, s->sys.gl_version);
	fputc('|', f);
	put_field(f, s->sys.gl_vendor);
	fputc('|', f);
	put_field(f, s->sys.gl_renderer);
	fputc('\n', f);

	int32_t req = w ? w->crashing : -1;
	uint32_t nstacks = w ? w->nstacks : 0;
	if (req >= 0 && (uint32_t)req >= nstacks)
		req = -1;
	fputs("Crash|", f);
	if (s->crash.present) {
		char reason[256];
		put_field(f, sw_crash_reason(s, SW_REASON_BREAKPAD, reason, sizeof reason));
		fprintf(f, "|0x%" PRIx64 "|", sw_crash_address(s, SW_REASON_BREAKPAD));
	} else if (s->assertion && *s->assertion) {
		put_field(f, s->assertion);
		fputs("||", f);
	} else {
		fputs("No crash||", f);
	}
	if (req >= 0)
		fprintf(f, "%" PRId32, sw_out_breakpad_thread_number(w, (uint32_t)req));
	fputc('\n', f);

	uint32_t *order = sw_out_module_order(s);
	bool has_main = s->main_module >= 0 && (uint32_t)s->main_module < s->nmodules;
	uint64_t main_base = has_main ? s->modules[s->main_module].base : 0;
	for (uint32_t k = 0; order && k < s->nmodules; k++) {
		const struct sw_module *m = &s->modules[order[k]];
		fputs("Module|", f);
		put_field(f, sw_basename(m->code_file));
		fputc('|', f);
		put_field(f, m->version);
		fputc('|', f);
		put_field(f, sw_basename(m->debug_file));
		fputc('|', f);
		put_field(f, m->debug_id);
		fprintf(f, "|0x%08" PRIx64 "|0x%08" PRIx64 "|%d\n", m->base,
		        m->base + m->size - 1, has_main && m->base == main_base ? 1 : 0);
	}
	free(order);

	fputc('\n', f);
	if (req >= 0 && (!o->one_thread || o->thread == (uint32_t)req))
		print_stack(f, s, (uint32_t)sw_out_breakpad_thread_number(w, (uint32_t)req),
		            sw_out_stack(w, (uint32_t)req));
	/* Breakpad's numbers counted along: sw_out_breakpad_thread_number per
	 * thread would be quadratic in the threads, and a dump may list
	 * thousands; an output's time stays linear in what it prints. */
	uint32_t number = 0;
	for (uint32_t i = 0; i < nstacks; i++) {
		if (w->stacks[i].dump_thread)
			continue;
		if ((int32_t)i != req && (!o->one_thread || i == o->thread))
			print_stack(f, s, number, sw_out_stack(w, i));
		number++;
	}
}
