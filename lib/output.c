/* The outputs' entry (output.h): a report in the format asked for, with
 * its options or the defaults. */
#include "output.h"

#include "output_internal.h"

void sw_output(FILE *f, enum sw_output_format fmt, const struct sw_snapshot *s,
               const struct sw_arch *arch, const struct sw_walk_result *w,
               const struct sw_output_options *o)
{
	static const struct sw_output_options defaults = { 0 };
	if (!o)
		o = &defaults;
	switch (fmt) {
	case SW_OUTPUT_TEXT: sw_out_text(f, s, arch, w, o); break;
	case SW_OUTPUT_MACHINE: sw_out_machine(f, s, arch, w, o); break;
	case SW_OUTPUT_JSON: sw_out_json(f, s, arch, w, o); break;
	}
}

void sw_output_text(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w)
{
	sw_output(f, SW_OUTPUT_TEXT, s, arch, w, NULL);
}

void sw_output_machine(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                       const struct sw_walk_result *w)
{
	sw_output(f, SW_OUTPUT_MACHINE, s, arch, w, NULL);
}

void sw_output_json(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                    const struct sw_walk_result *w, bool pretty)
{
	struct sw_output_options o = { .pretty = pretty };
	sw_output(f, SW_OUTPUT_JSON, s, arch, w, &o);
}
