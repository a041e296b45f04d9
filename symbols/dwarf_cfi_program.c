/* The CFA instruction interpreter (DWARF 5 §6.4.2) and the evaluation of
 * the row it leaves (§6.4.1's register rules) against the callee's
 * registers and the snapshot's memory.
 *
 * The CIE's initial instructions run first: they make the row
 * DW_CFA_restore returns to. Then the FDE's run from its pc_begin; each
 * advance moves the location, and the run stops at the first advance past
 * the pc asked for (the row in effect there is the one left). */
#include <stdlib.h>
#include <string.h>

#include "dwarf_cfi_internal.h"

enum {
	EM_SPARC_ = 2, EM_SPARC32PLUS_ = 18, EM_SPARCV9_ = 43, EM_AARCH64_ = 183,
};

/* Opcodes (DWARF 5 §7.24, Table 7.29, and the GNU extensions). */
enum {
	CFA_advance_loc = 0x40, CFA_offset = 0x80, CFA_restore = 0xc0,
	CFA_nop = 0x00, CFA_set_loc = 0x01, CFA_advance_loc1 = 0x02,
	CFA_advance_loc2 = 0x03, CFA_advance_loc4 = 0x04, CFA_offset_extended = 0x05,
	CFA_restore_extended = 0x06, CFA_undefined = 0x07, CFA_same_value = 0x08,
	CFA_register = 0x09, CFA_remember_state = 0x0a, CFA_restore_state = 0x0b,
	CFA_def_cfa = 0x0c, CFA_def_cfa_register = 0x0d, CFA_def_cfa_offset = 0x0e,
	CFA_def_cfa_expression = 0x0f, CFA_expression = 0x10,
	CFA_offset_extended_sf = 0x11, CFA_def_cfa_sf = 0x12,
	CFA_def_cfa_offset_sf = 0x13, CFA_val_offset = 0x14,
	CFA_val_offset_sf = 0x15, CFA_val_expression = 0x16,
	CFA_MIPS_advance_loc8 = 0x1d,
	CFA_GNU_window_save = 0x2d, CFA_GNU_args_size = 0x2e,
	CFA_GNU_negative_offset_extended = 0x2f,
};

struct program {
	const struct sw_cfi *c;
	const struct sw_cfi_window *w;      /* the entry whose instructions run */
	const struct sw_cfi_cie *cie;
	const struct sw_cfi_fde *fde;
	struct sw_cfi_row *row;
	const struct sw_cfi_row *initial;   /* NULL while the CIE's instructions run */
	struct sw_cfi_row *stack;           /* remember_state, allocated on first use */
	unsigned depth;
	uint64_t steps;
	uint64_t loc;
	uint64_t target;
};

static struct sw_cfi_rule *column(struct program *pr, uint64_t reg)
{
	/* Columns past the table are parsed and ignored (unwind_io.h). */
	return reg < SW_CFI_MAX_COLUMNS ? &pr->row->col[reg] : NULL;
}

static void set_rule(struct program *pr, uint64_t reg, uint8_t kind, int64_t n)
{
	struct sw_cfi_rule *r = column(pr, reg);
	if (!r)
		return;
	memset(r, 0, sizeof *r);
	r->kind = kind;
	if (kind == SW_RULE_REGISTER)
		r->u.reg = (uint64_t)n;
	else
		r->u.offset = n;
}

/* An operand times the data alignment factor, wrapping (two's
 * complement) instead of overflowing: a hostile factor yields a useless
 * offset, not undefined behaviour. */
static uint64_t factored(uint64_t v, int64_t daf)
{
	return v * (uint64_t)daf;
}

/* A DW_FORM_block operand: its ULEB128 length and bytes. */
static bool read_block(struct sw_dcur *d, const uint8_t **p, uint32_t *len)
{
	uint64_t n = sw_dcur_uleb(d);
	if (d->bad || n > UINT32_MAX || !sw_span_has(d->s, d->pos, n))
		return false;
	*p = d->s.data + d->pos;
	*len = (uint32_t)n;
	d->pos += n;
	return true;
}

/* Advances the location; true when it has passed the target (the run
 * stops: the row so far is the answer). */
static bool advance(struct program *pr, uint64_t delta)
{
	if (!pr->initial)
		return false; /* locations mean nothing in the CIE */
	uint64_t step = delta * pr->cie->code_align;
	if ((pr->cie->code_align != 0 && step / pr->cie->code_align != delta) ||
	    pr->loc + step < pr->loc) {
		pr->loc = UINT64_MAX;
		return true;
	}
	pr->loc += step;
	return pr->loc > pr->target;
}

enum run_result { RUN_DONE, RUN_STOPPED, RUN_FAILED };

static enum run_result run(struct program *pr, uint64_t start, uint64_t end)
{
	struct sw_dcur d;
	if (!sw_cfi_window_cursor(pr->w, start, end, &d))
		return RUN_FAILED;
	const struct sw_cfi_cie *cie = pr->cie;
	int64_t daf = cie->data_align;
	while (d.pos < d.s.size) {
		if (++pr->steps > SW_CFI_STEP_BUDGET)
			return RUN_FAILED;
		uint8_t op = sw_dcur_u8(&d);
		uint64_t reg, u;
		int64_t sv;
		const uint8_t *expr;
		uint32_t elen;
		switch (op & 0xc0) {
		case CFA_advance_loc:
			if (advance(pr, op & 0x3f))
				return RUN_STOPPED;
			continue;
		case CFA_offset:
			u = sw_dcur_uleb(&d);
			set_rule(pr, op & 0x3f, SW_RULE_OFFSET, (int64_t)factored(u, daf));
			goto check;
		case CFA_restore:
			reg = op & 0x3f;
			goto restore;
		default:
			break;
		}
		switch (op) {
		case CFA_nop:
			break;
		case CFA_set_loc: {
			uint64_t loc;
			if (pr->c->is_eh) {
				struct sw_pe_bases b = { .section_vaddr = pr->c->frame_vaddr + pr->w->base,
				                         .funcrel = pr->fde ? pr->fde->pc_begin : 0,
				                         .has_funcrel = pr->fde != NULL,
				                         .address_size = cie->address_size };
				if (!sw_pe_read(&d, cie->fde_enc, &b, &loc))
					return RUN_FAILED;
			} else {
				sw_dcur_skip(&d, cie->segment_size);
				loc = sw_dcur_uint(&d, cie->address_size);
			}
			if (d.bad)
				return RUN_FAILED;
			if (pr->initial) {
				pr->loc = loc;
				if (loc > pr->target)
					return RUN_STOPPED;
			}
			break;
		}
		case CFA_advance_loc1:
			u = sw_dcur_uint(&d, 1);
			goto adv;
		case CFA_advance_loc2:
			u = sw_dcur_uint(&d, 2);
			goto adv;
		case CFA_advance_loc4:
			u = sw_dcur_uint(&d, 4);
			goto adv;
		case CFA_MIPS_advance_loc8:
			u = sw_dcur_uint(&d, 8);
		adv:
			if (d.bad)
				return RUN_FAILED;
			if (advance(pr, u))
				return RUN_STOPPED;
			break;
		case CFA_offset_extended:
			reg = sw_dcur_uleb(&d);
			u = sw_dcur_uleb(&d);
			set_rule(pr, reg, SW_RULE_OFFSET, (int64_t)factored(u, daf));
			break;
		case CFA_offset_extended_sf:
			reg = sw_dcur_uleb(&d);
			sv = sw_dcur_sleb(&d);
			set_rule(pr, reg, SW_RULE_OFFSET, (int64_t)factored((uint64_t)sv, daf));
			break;
		case CFA_GNU_negative_offset_extended:
			reg = sw_dcur_uleb(&d);
			u = sw_dcur_uleb(&d);
			set_rule(pr, reg, SW_RULE_OFFSET, (int64_t)(0 - factored(u, daf)));
			break;
		case CFA_val_offset:
			reg = sw_dcur_uleb(&d);
			u = sw_dcur_uleb(&d);
			set_rule(pr, reg, SW_RULE_VAL_OFFSET, (int64_t)factored(u, daf));
			break;
		case CFA_val_offset_sf:
			reg = sw_dcur_uleb(&d);
			sv = sw_dcur_sleb(&d);
			set_rule(pr, reg, SW_RULE_VAL_OFFSET, (int64_t)factored((uint64_t)sv, daf));
			break;
		case CFA_restore_extended:
			reg = sw_dcur_uleb(&d);
		restore:
			if (d.bad)
				return RUN_FAILED;
			if (column(pr, reg)) {
				/* In the CIE itself there is no initial row yet:
				 * restore then means "no rule". */
				if (pr->initial)
					pr->row->col[reg] = pr->initial->col[reg];
				else
					memset(&pr->row->col[reg], 0, sizeof pr->row->col[reg]);
			}
			break;
		case CFA_undefined:
			reg = sw_dcur_uleb(&d);
			set_rule(pr, reg, SW_RULE_UNDEFINED, 0);
			break;
		case CFA_same_value:
			reg = sw_dcur_uleb(&d);
			set_rule(pr, reg, SW_RULE_SAME_VALUE, 0);
			break;
		case CFA_register:
			reg = sw_dcur_uleb(&d);
			u = sw_dcur_uleb(&d);
			if (u > INT64_MAX)
				return RUN_FAILED;
			set_rule(pr, reg, SW_RULE_REGISTER, (int64_t)u);
			break;
		case CFA_remember_state:
			if (pr->depth == SW_CFI_STATE_DEPTH)
				return RUN_FAILED;
			if (!pr->stack) {
				pr->stack = malloc(SW_CFI_STATE_DEPTH * sizeof *pr->stack);
				if (!pr->stack)
					return RUN_FAILED;
			}
			pr->stack[pr->depth++] = *pr->row;
			break;
		case CFA_restore_state:
			if (pr->depth == 0)
				return RUN_FAILED;
			*pr->row = pr->stack[--pr->depth];
			break;
		case CFA_def_cfa:
			reg = sw_dcur_uleb(&d);
			u = sw_dcur_uleb(&d);
			pr->row->cfa = (struct sw_cfa_rule){ .kind = SW_CFA_REG_OFFSET, .reg = reg,
			                                     .offset = (int64_t)u };
			break;
		case CFA_def_cfa_sf:
			reg = sw_dcur_uleb(&d);
			sv = sw_dcur_sleb(&d);
			pr->row->cfa = (struct sw_cfa_rule){ .kind = SW_CFA_REG_OFFSET, .reg = reg,
			                                     .offset = (int64_t)factored((uint64_t)sv, daf) };
			break;
		case CFA_def_cfa_register:
			/* Valid only over a register+offset rule (§6.4.2.2);
			 * over an expression the offset starts at 0. */
			reg = sw_dcur_uleb(&d);
			if (pr->row->cfa.kind != SW_CFA_REG_OFFSET)
				pr->row->cfa = (struct sw_cfa_rule){ .kind = SW_CFA_REG_OFFSET };
			pr->row->cfa.reg = reg;
			break;
		case CFA_def_cfa_offset:
			u = sw_dcur_uleb(&d);
			sv = (int64_t)u;
			goto cfa_offset;
		case CFA_def_cfa_offset_sf:
			sv = (int64_t)factored((uint64_t)sw_dcur_sleb(&d), daf);
		cfa_offset:
			if (pr->row->cfa.kind == SW_CFA_EXPRESSION)
				return RUN_FAILED;
			pr->row->cfa.kind = SW_CFA_REG_OFFSET;
			pr->row->cfa.offset = sv;
			break;
		case CFA_def_cfa_expression:
			if (!read_block(&d, &expr, &elen))
				return RUN_FAILED;
			pr->row->cfa = (struct sw_cfa_rule){ .kind = SW_CFA_EXPRESSION,
			                                     .expr = expr, .expr_len = elen };
			break;
		case CFA_expression:
		case CFA_val_expression: {
			reg = sw_dcur_uleb(&d);
			if (!read_block(&d, &expr, &elen))
				return RUN_FAILED;
			struct sw_cfi_rule *r = column(pr, reg);
			if (r) {
				r->kind = op == CFA_expression ? SW_RULE_EXPRESSION
				                               : SW_RULE_VAL_EXPRESSION;
				r->expr_len = elen;
				r->u.expr = expr;
			}
			break;
		}
		case CFA_GNU_args_size:
			pr->row->args_size = sw_dcur_uleb(&d);
			break;
		case CFA_GNU_window_save:
			/* On arm64 the same opcode is DW_CFA_AARCH64_negate_ra_state
			 * (AAPCS64 DWARF supplement §4.4.7); SPARC's register
			 * window save we do not model. */
			if (pr->c->p.machine != EM_AARCH64_)
				return RUN_FAILED;
			pr->row->ra_signed = !pr->row->ra_signed;
			break;
		default:
			return RUN_FAILED;
		}
	check:
		if (d.bad)
			return RUN_FAILED;
	}
	return RUN_DONE;
}

enum sw_cfi_status sw_cfi_run_program(const struct sw_cfi *c, const struct sw_cfi_fde *fde,
                                      const struct sw_cfi_cie *cie, uint64_t vaddr,
                                      struct sw_cfi_rules *out)
{
	memset(out, 0, sizeof *out);
	out->fde = *fde;
	out->cie = *cie;
	out->ra_column = cie->ra_column;
	out->signal_frame = cie->signal_frame;
	/* Both entries as the lookup copied them (the CIE and the FDE have
	 * copies of their own): rules point into these bytes. */
	struct sw_cfi_window cie_bytes, fde_bytes;
	if (!sw_cfi_entry_window(c, cie->offset, true, &cie_bytes) ||
	    !sw_cfi_entry_window(c, fde->offset, false, &fde_bytes))
		return SW_CFI_FAILED;
	struct sw_cfi_row *initial = malloc(sizeof *initial);
	if (!initial)
		return SW_CFI_FAILED;
	struct program pr = { .c = c, .w = &cie_bytes, .cie = cie, .fde = NULL, .row = &out->row,
	                      .loc = fde->pc_begin, .target = vaddr };
	enum sw_cfi_status st = SW_CFI_OK;
	if (run(&pr, cie->insns, cie->insns_end) == RUN_FAILED) {
		st = SW_CFI_FAILED;
		goto done;
	}
	/* remember_state in a CIE does not carry into its FDEs. */
	pr.depth = 0;
	*initial = out->row;
	pr.initial = initial;
	pr.w = &fde_bytes;
	pr.fde = fde;
	if (run(&pr, fde->insns, fde->insns_end) == RUN_FAILED)
		st = SW_CFI_FAILED;
done:
	free(pr.stack);
	free(initial);
	if (st == SW_CFI_OK && out->row.cfa.kind == SW_CFA_UNSET)
		st = SW_CFI_FAILED;
	return st;
}

enum sw_cfi_status sw_cfi_rules_at(const struct sw_cfi *c, uint64_t vaddr,
                                   struct sw_cfi_rules *out)
{
	struct sw_cfi_fde fde;
	struct sw_cfi_cie cie;
	if (!sw_cfi_find_fde(c, vaddr, &fde, &cie))
		return SW_CFI_NO_RULE;
	return sw_cfi_run_program(c, &fde, &cie, vaddr, out);
}

/* ---- Evaluation. */

static bool read_word(const struct sw_unwind_io *io, uint64_t addr, uint64_t *out)
{
	uint8_t b[8];
	unsigned n = io->word_size == 4 ? 4 : 8;
	if (!io->read_mem(io->self, addr, b, n))
		return false;
	struct sw_span s = { b, n, 0, io->big_endian };
	*out = sw_uint(s, 0, n);
	return true;
}

/* Evaluates one column's rule. False when it cannot be (unavailable
 * register or memory, a failing expression); *fatal for a malformed
 * expression or one over budget, which fails the whole unwind. */
static bool eval_rule(const struct sw_cfi *c, const struct sw_cfi_rule *r, uint64_t cfa,
                      const struct sw_unwind_io *io, uint64_t *value, bool *fatal)
{
	uint64_t mask = sw_addr_mask(io->word_size == 4 ? 4 : 8);
	uint64_t v;
	enum sw_expr_status es;
	switch (r->kind) {
	case SW_RULE_SAME_VALUE:
	case SW_RULE_REGISTER:
		return io->read_reg(io->self,
		                    (uint32_t)(r->kind == SW_RULE_REGISTER ? r->u.reg : 0), value);
	case SW_RULE_OFFSET:
		return read_word(io, (cfa + (uint64_t)r->u.offset) & mask, value);
	case SW_RULE_VAL_OFFSET:
		*value = (cfa + (uint64_t)r->u.offset) & mask;
		return true;
	case SW_RULE_EXPRESSION:
	case SW_RULE_VAL_EXPRESSION:
		es = sw_dwarf_expr_eval_biased(r->u.expr, r->expr_len, io, c->p.load_bias, true, cfa,
		                               &v);
		if (es != SW_EXPR_OK) {
			*fatal = es == SW_EXPR_MALFORMED || es == SW_EXPR_BUDGET;
			return false;
		}
		if (r->kind == SW_RULE_VAL_EXPRESSION) {
			*value = v & mask;
			return true;
		}
		return read_word(io, v & mask, value);
	default:
		return false;
	}
}

/* Android's ART marks the rule that gives the DEX pc an interpreter
 * frame was executing (nterp's xPC, the switch interpreter's shadow
 * frame) with a val_expression that starts `DW_OP_const4u "DEX1";
 * DW_OP_drop` (ART's CFI_DEFINE_DEX_PC_WITH_OFFSET, read the same way by
 * libunwindstack's DwarfOp): the column it is written on is a scratch
 * register, the value is the DEX pc. */
static bool is_dex_pc_rule(const struct sw_cfi_rule *r)
{
	static const uint8_t marker[] = { 0x0c, 'D', 'E', 'X', '1', 0x13 };
	return r->kind == SW_RULE_VAL_EXPRESSION && r->expr_len > sizeof marker &&
	       memcmp(r->u.expr, marker, sizeof marker) == 0;
}

/* The row's CFA and return-address rules in out->row (--explain). */
static void describe_row(const struct sw_cfi_rules *rules, struct sw_unwind_result *out)
{
	const struct sw_cfi_row *row = &rules->row;
	out->row.cfa = row->cfa.kind == SW_CFA_REG_OFFSET   ? SW_ROW_CFA_REG
	               : row->cfa.kind == SW_CFA_EXPRESSION ? SW_ROW_CFA_EXPR
	                                                    : SW_ROW_CFA_NONE;
	out->row.cfa_reg = row->cfa.reg;
	out->row.cfa_offset = row->cfa.offset;
	out->row.pc_begin = rules->fde.pc_begin;
	out->row.pc_end = rules->fde.pc_end;
	if (rules->ra_column >= SW_CFI_MAX_COLUMNS)
		return;
	const struct sw_cfi_rule *ra = &row->col[rules->ra_column];
	switch (ra->kind) {
	case SW_RULE_OFFSET:
		out->row.ra = SW_ROW_RA_AT_CFA;
		out->row.ra_value = ra->u.offset;
		break;
	case SW_RULE_VAL_OFFSET:
		out->row.ra = SW_ROW_RA_CFA_PLUS;
		out->row.ra_value = ra->u.offset;
		break;
	case SW_RULE_REGISTER:
		out->row.ra = SW_ROW_RA_REGISTER;
		out->row.ra_value = (int64_t)ra->u.reg;
		break;
	case SW_RULE_SAME_VALUE:
		out->row.ra = SW_ROW_RA_SAME;
		break;
	case SW_RULE_EXPRESSION:
	case SW_RULE_VAL_EXPRESSION:
		out->row.ra = SW_ROW_RA_EXPR;
		break;
	default:
		out->row.ra = SW_ROW_RA_DEFAULT;
		break;
	}
}

enum sw_cfi_status sw_cfi_unwind(const struct sw_cfi *c, uint64_t vaddr,
                                 const struct sw_unwind_io *io,
                                 struct sw_unwind_result *out)
{
	memset(out, 0, sizeof *out);
	struct sw_cfi_rules *rules = malloc(sizeof *rules);
	if (!rules)
		return SW_CFI_FAILED;
	enum sw_cfi_status st = sw_cfi_rules_at(c, vaddr, rules);
	if (st != SW_CFI_OK)
		goto done;
	const struct sw_cfi_row *row = &rules->row;
	out->ra_column = (uint32_t)(rules->ra_column > UINT32_MAX ? UINT32_MAX : rules->ra_column);
	out->signal_frame = rules->signal_frame;
	out->ra_signed = row->ra_signed;
	describe_row(rules, out);
	/* DWARF 5 §6.4.4: an undefined return address marks the outermost
	 * frame. */
	if (rules->ra_column < SW_CFI_MAX_COLUMNS &&
	    row->col[rules->ra_column].kind == SW_RULE_UNDEFINED) {
		st = SW_CFI_END;
		goto done;
	}
	uint64_t mask = sw_addr_mask(io->word_size == 4 ? 4 : 8);
	uint64_t cfa;
	if (row->cfa.kind == SW_CFA_REG_OFFSET) {
		if (row->cfa.reg > UINT32_MAX || !io->read_reg(io->self, (uint32_t)row->cfa.reg, &cfa)) {
			st = SW_CFI_FAILED;
			goto done;
		}
		cfa = (cfa + (uint64_t)row->cfa.offset) & mask;
	} else {
		if (sw_dwarf_expr_eval_biased(row->cfa.expr, row->cfa.expr_len, io, c->p.load_bias,
		                              false, 0, &cfa) != SW_EXPR_OK) {
			st = SW_CFI_FAILED;
			goto done;
		}
		cfa &= mask;
	}
	out->cfa = cfa;
	for (uint32_t col = 0; col < SW_CFI_MAX_COLUMNS; col++) {
		const struct sw_cfi_rule *r = &row->col[col];
		if (r->kind == SW_RULE_UNSET)
			continue;
		if (r->kind == SW_RULE_UNDEFINED) {
			sw_unwind_set_undefined(out, col);
			continue;
		}
		struct sw_cfi_rule same = *r;
		if (r->kind == SW_RULE_SAME_VALUE) {
			same.kind = SW_RULE_REGISTER;
			same.u.reg = col;
		}
		uint64_t v;
		bool fatal = false;
		if (eval_rule(c, &same, cfa, io, &v, &fatal)) {
			sw_unwind_set(out, col, v);
			if (is_dex_pc_rule(r))
				out->dex_pc = v;
		} else if (fatal || col == rules->ra_column) {
			/* Without the return address there is no caller; a
			 * malformed expression fails the whole row. */
			st = SW_CFI_FAILED;
			goto done;
		} else if (r->kind != SW_RULE_SAME_VALUE) {
			/* A saved register we cannot read: the caller's
			 * value is unknown, not the callee's. */
			sw_unwind_set_undefined(out, col);
		}
	}
done:
	free(rules);
	return st;
}
