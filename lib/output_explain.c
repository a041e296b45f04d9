/* The text output's --explain lines (docs/cli.md, "Explain"): apart from
 * output_text.c, whose frame lines are the hot path of every report. */
#include "output_internal.h"

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

/* --explain: the attempts [first, first + n) of st, one line each. */
static void print_attempts(struct sw_out_buf *t, const struct sw_stack *st, uint32_t first,
                           uint32_t n)
{
	for (uint32_t i = first; i < first + n && i < st->nattempts; i++) {
		tb_str(t, "    Evidence: ");
		tb_str(t, sw_method_name((enum sw_method)st->attempts[i].method));
		tb_str(t, st->attempts[i].refusal == SW_REFUSED_ENDS_WALK ? ": " : " refused: ");
		tb_str(t, sw_refusal_description((enum sw_refusal)st->attempts[i].refusal));
		sw_out_put(t, "\n", 1);
	}
}

/* --explain: what found frame i (docs/cli.md, --explain), then the
 * methods refused before it. */
void sw_output_text_evidence(struct sw_out_buf *t, const struct sw_snapshot *s,
                             const struct sw_stack *st, uint32_t i)
{
	const struct sw_evidence *e = &st->evidence[i];
	tb_str(t, "    Evidence: ");
	tb_str(t, sw_method_name(e->method));
	switch (e->method) {
	case SW_METHOD_FRAME_POINTER:
		if (e->where) {
			tb_str(t, ", frame record at ");
			tb_hex(t, e->where);
		}
		break;
	case SW_METHOD_SIGNAL_FRAME:
		tb_str(t, ", saved context above sp ");
		tb_hex(t, e->where);
		break;
	case SW_METHOD_EXCEPTION_FRAME:
		tb_str(t, ", exception frame at ");
		tb_hex(t, e->where);
		tb_str(t, ", EXC_RETURN ");
		tb_hex(t, e->exc_return);
		break;
	case SW_METHOD_PROLOGUE:
		if (e->function_start) {
			tb_str(t, ", decoded from the function's start ");
			tb_hex(t, e->function_start);
			tb_str(t, " to pc");
		}
		break;
	case SW_METHOD_CFI:
		if (e->anchored)
			tb_str(t, ", from the sp its frame record anchors");
		if (e->cfi_scan)
			tb_str(t, ", return address scanned");
		if (e->restores_context)
			tb_str(t, ", restoring the interrupted context");
		if (e->rule) {
			tb_str(t, ", by the callee's rules in ");
			tb_str(t, e->rule_module >= 0 && (uint32_t)e->rule_module < s->nmodules
			                  ? sw_basename(s->modules[e->rule_module].code_file)
			                  : "?");
			tb_str(t, ": ");
			tb_str(t, e->rule);
		}
		break;
	default:
		break;
	}
	if (e->ra_in_register) {
		tb_str(t, ", return address from the link register");
	} else if (e->ra_slot) {
		tb_str(t, ", return address at ");
		tb_hex(t, e->ra_slot);
	}
	if (sw_method_reads_call(e->method)) {
		tb_str(t, !e->call_known    ? ", no code bytes before it"
		          : e->call_decoded ? ", after a call"
		                            : ", after no call");
		if (e->call_direct) {
			tb_str(t, " to ");
			tb_hex(t, e->call_target);
		}
	}
	sw_out_put(t, "\n", 1);
	if (e->method != SW_METHOD_INLINE && e->method != SW_METHOD_DEX_PC)
		print_attempts(t, st, e->first_attempt, e->nattempts);
}

void sw_output_text_walk_end(struct sw_out_buf *t, const struct sw_stack *st)
{
	tb_str(t, "    Walk ended: ");
	tb_str(t, sw_walk_end_description(st->end));
	sw_out_put(t, "\n", 1);
	print_attempts(t, st, st->end_first_attempt, st->end_nattempts);
}
