/* STACK CFI: the rules at an address are the INIT record covering it plus the
 * delta records that follow it in the file, up to and including the address
 * (dump_syms writes each INIT's deltas right after it, in address order).
 * Rules are "name: postfix-expression" pairs; later ones replace earlier
 * ones of the same name. Evaluation follows Breakpad's CFIFrameInfo:
 * .cfa first, then .ra with .cfa known, then every register rule against the
 * callee's registers; a register rule that fails to evaluate is ignored. */
#include "breakpad_sym_internal.h"

#include "lib/arch.h"
#include "lib/walker.h"
#include "postfix.h"

struct cfi_expr {
	const char *e;
	size_t len;
};

struct cfi_rules {
	struct cfi_expr cfa, ra;
	struct cfi_expr reg[SW_MAX_REGS];
};

/* Parses "name: expr name: expr ..." into *r. False on a malformed set
 * (rules before the damage stay applied, as in Breakpad). */
static bool parse_rule_set(const struct sw_arch *arch, const char *p, const char *e,
                           struct cfi_rules *r)
{
	const char *name = NULL, *expr = NULL, *expr_end = NULL;
	size_t name_len = 0;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		const char *t = p;
		while (p < e && *p != ' ' && *p != '\t')
			p++;
		bool at_end = t == p;
		bool is_name = !at_end && p[-1] == ':';
		if (at_end || is_name) {
			if (name || expr) {
				if (!name || !expr)
					return false;
				struct cfi_expr x = {expr, (size_t)(expr_end - expr)};
				if (name_len == 4 && memcmp(name, ".cfa", 4) == 0) {
					r->cfa = x;
				} else if (name_len == 3 && memcmp(name, ".ra", 3) == 0) {
					r->ra = x;
				} else {
					int i = sw_arch_reg_index(arch, name, name_len);
					if (i >= 0 && i < SW_MAX_REGS)
						r->reg[i] = x;
				}
			}
			if (at_end)
				return true;
			if (p - t < 2)
				return false;
			name = t;
			name_len = (size_t)(p - t - 1);
			expr = NULL;
		} else {
			if (!expr)
				expr = t;
			expr_end = p;
		}
	}
}

struct cfi_eval_ctx {
	const struct sw_unwind_env *env;
	uint64_t cfa;
	bool have_cfa;
};

static bool cfi_resolve(void *vctx, const char *name, size_t len, uint64_t *out)
{
	const struct cfi_eval_ctx *c = vctx;
	if (len == 4 && memcmp(name, ".cfa", 4) == 0) {
		*out = c->cfa;
		return c->have_cfa;
	}
	int i = sw_arch_reg_index(c->env->arch, name, len);
	if (i < 0 || !sw_reg_valid(&c->env->callee->regs, (unsigned)i))
		return false;
	*out = c->env->callee->regs.v[i];
	return true;
}

static bool cfi_read(void *vctx, uint64_t addr, uint64_t *out)
{
	const struct cfi_eval_ctx *c = vctx;
	return sw_walk_read_word(c->env->walk, addr, out);
}

/* The rules at offset from the INIT record's text, p .. end (the INIT
 * line and its deltas: struct bsym_range.len). */
static enum sw_unwind_status collect_rules(const struct sw_arch *arch,
                                           const struct bsym_range *init, uint64_t offset,
                                           const char *p, const char *end,
                                           struct cfi_rules *rules)
{
	memset(rules, 0, sizeof *rules);
	/* STACK CFI INIT <addr> <size> <rules> */
	const char *nl = bsym_line_end(p, end);
	const char *e = bsym_trim_cr(p, nl);
	if (e - p < 15)
		return SW_UNWIND_FAILED;
	p = bsym_skip_spaces(p + 6, e);
	p = bsym_skip_spaces(p + 4, e);
	p = bsym_skip_spaces(p + 5, e);
	uint64_t v;
	if (!bsym_hex(&p, e, &v) || !bsym_hex(&p, e, &v) ||
	    !parse_rule_set(arch, p, e, rules))
		return SW_UNWIND_FAILED;

	/* STACK CFI <addr> <rules>, until the next record of another kind
	 * (which the record's text ends before: the test stays, for text
	 * read whole). */
	for (p = nl + 1; p < end; p = nl + 1) {
		nl = bsym_line_end(p, end);
		e = bsym_trim_cr(p, nl);
		if (e - p < 10 || memcmp(p, "STACK CFI ", 10) != 0)
			break;
		const char *q = bsym_skip_spaces(p + 10, e);
		if (e - q >= 5 && memcmp(q, "INIT ", 5) == 0)
			break;
		uint64_t addr;
		if (!bsym_hex(&q, e, &addr))
			continue;
		if (addr < init->addr || addr > offset)
			continue;
		parse_rule_set(arch, q, e, rules);
	}
	return SW_UNWIND_OK;
}

static enum sw_unwind_status eval_rules(const struct sw_arch *arch,
                                        const struct cfi_rules *rules,
                                        const struct sw_unwind_env *env,
                                        struct sw_regs *caller, enum sw_trust *trust);

enum sw_unwind_status bsym_cfi_unwind(const struct sw_bsym *b, uint64_t offset,
                                      const struct sw_unwind_env *env,
                                      struct sw_regs *caller, enum sw_trust *trust)
{
	ptrdiff_t ri = bsym_find_cfi(b, offset);
	if (ri < 0)
		return SW_UNWIND_NO_RULE;
	const struct bsym_range *init = &b->cfi[ri];
	const struct sw_arch *arch = env->arch;

	/* The INIT line and the deltas after it: the record's text. */
	struct cfi_rules rules;
	struct bsym_span sp;
	if (!bsym_span_get(b, init->off, init->len, init->crc, &sp))
		return SW_UNWIND_FAILED;
	enum sw_unwind_status st = collect_rules(arch, init, offset, sp.p, sp.p + sp.n, &rules);
	if (st == SW_UNWIND_OK)
		st = eval_rules(arch, &rules, env, caller, trust); /* its expressions are in sp */
	bsym_span_free(&sp);
	return st;
}

/* The caller's registers by the rules: .cfa, then .ra, then each register. */
static enum sw_unwind_status eval_rules(const struct sw_arch *arch,
                                        const struct cfi_rules *rules,
                                        const struct sw_unwind_env *env,
                                        struct sw_regs *caller, enum sw_trust *trust)
{
	if (!rules->cfa.e || !rules->ra.e)
		return SW_UNWIND_FAILED;

	struct cfi_eval_ctx ctx = {.env = env};
	struct sw_postfix pf = {
		.resolve = cfi_resolve, .resolve_ctx = &ctx,
		.read = cfi_read, .read_ctx = &ctx,
		.word_size = arch->word_size,
	};
	enum sw_pf_status s = sw_postfix_eval(&pf, rules->cfa.e, rules->cfa.len, &ctx.cfa);
	if (s != SW_PF_OK)
		return SW_UNWIND_FAILED;
	ctx.have_cfa = true;
	uint64_t ra;
	s = sw_postfix_eval(&pf, rules->ra.e, rules->ra.len, &ra);
	if (s == SW_PF_UNDEF)
		return SW_UNWIND_END;
	if (s != SW_PF_OK)
		return SW_UNWIND_FAILED;

	caller->valid = 0;
	caller->context_flags = 0;
	const struct sw_regs *callee = &env->callee->regs;
	uint64_t by_rule = 0;
	for (unsigned i = 0; i < arch->nregs && i < SW_MAX_REGS; i++) {
		if (rules->reg[i].e) {
			uint64_t val;
			s = sw_postfix_eval(&pf, rules->reg[i].e, rules->reg[i].len, &val);
			if (s == SW_PF_OK) {
				sw_reg_set(caller, i, val);
				by_rule |= (uint64_t)1 << i;
				continue;
			}
			if (s == SW_PF_UNDEF) {
				if (i == arch->pc)
					return SW_UNWIND_END;
				continue; /* explicitly not recoverable */
			}
			/* Failed: as if there were no rule (Breakpad skips it). */
		}
		if ((arch->callee_saved >> i & 1) && sw_reg_valid(callee, i))
			sw_reg_set(caller, i, callee->v[i]);
	}
	/* A rule for the pc register itself wins over .ra; the sp is the CFA
	 * unless a rule recovered it. */
	if (!(by_rule >> arch->pc & 1))
		sw_reg_set(caller, arch->pc, ra);
	if (!(by_rule >> arch->sp & 1))
		sw_reg_set(caller, arch->sp, ctx.cfa);
	*trust = SW_TRUST_CFI;
	return SW_UNWIND_OK;
}
