/* STACK CFI: the rules at an address are the INIT record covering it plus the
 * delta records that follow it in the file, up to and including the address
 * (dump_syms writes each INIT's deltas right after it, in address order).
 * Rules are "name: postfix-expression" pairs; later ones replace earlier
 * ones of the same name. Evaluation follows Breakpad's CFIFrameInfo:
 * .cfa first, then .ra with .cfa known, then every register rule against the
 * callee's registers; a register rule that fails to evaluate is ignored. */
#include "breakpad_sym_internal.h"

#include <inttypes.h>
#include <stdio.h>

#include "lib/arch.h"
#include "lib/walker.h"
#include "postfix.h"

/* A rule's expression: its text, or (decoded from an index) one of the
 * three shapes nearly every rule dump_syms writes has, which evaluate as
 * their text does without reading it:
 *   ADD    "NAME N +"      the value of NAME plus N
 *   DEREF  "NAME N + ^"    the word at that address
 *   NAME   "NAME"          the value of NAME
 * (NAME a register or .cfa, by number in the file's name table.) */
enum cfi_expr_kind { EXPR_NONE, EXPR_TEXT, EXPR_ADD, EXPR_DEREF, EXPR_NAME };

struct cfi_expr {
	uint8_t kind;
	uint8_t name;               /* ADD, DEREF, NAME: the name table's entry */
	const char *e;              /* TEXT */
	size_t len;
	uint64_t n;                 /* ADD, DEREF: N */
};

struct cfi_rules {
	struct cfi_expr cfa, ra;
	struct cfi_expr reg[SW_MAX_REGS];
};

/* Calls each(ctx, name, name_len, expr, expr_len) for every "name: expr"
 * of a rule set, in order. False on a malformed set (after the calls for
 * the rules before the damage: they stay applied, as in Breakpad). */
static bool rule_set_each(const char *p, const char *e,
                          void (*each)(void *ctx, const char *name, size_t name_len,
                                       const char *expr, size_t expr_len),
                          void *ctx)
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
				each(ctx, name, name_len, expr, (size_t)(expr_end - expr));
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

/* Where the rule named name goes in r: .cfa, .ra, or the register of
 * that name (NULL: none of this CPU's, the rule is ignored). */
static struct cfi_expr *rule_slot(const struct sw_arch *arch, struct cfi_rules *r,
                                  const char *name, size_t name_len)
{
	if (name_len == 4 && memcmp(name, ".cfa", 4) == 0)
		return &r->cfa;
	if (name_len == 3 && memcmp(name, ".ra", 3) == 0)
		return &r->ra;
	int i = sw_arch_reg_index(arch, name, name_len);
	return i >= 0 && i < SW_MAX_REGS ? &r->reg[i] : NULL;
}

struct text_rules {
	const struct sw_arch *arch;
	struct cfi_rules *r;
};

static void apply_text_rule(void *vctx, const char *name, size_t name_len, const char *expr,
                            size_t expr_len)
{
	struct text_rules *t = vctx;
	struct cfi_expr *slot = rule_slot(t->arch, t->r, name, name_len);
	if (slot)
		*slot = (struct cfi_expr){.kind = EXPR_TEXT, .e = expr, .len = expr_len};
}

/* Parses "name: expr name: expr ..." into *r. False on a malformed set
 * (rules before the damage stay applied, as in Breakpad). */
static bool parse_rule_set(const struct sw_arch *arch, const char *p, const char *e,
                           struct cfi_rules *r)
{
	struct text_rules t = {arch, r};
	return rule_set_each(p, e, apply_text_rule, &t);
}

struct cfi_eval_ctx {
	const struct sw_bsym *b;
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

/* The register number of entry k of b's name table for arch (-1: none of
 * its registers), remembered for the first arch that asks. */
static int cfi_name_reg(const struct sw_bsym *b, const struct sw_arch *arch, size_t k)
{
	const struct bsym_cfi_name *nm = &b->cfi_names[k];
	struct sw_bsym *mb = (struct sw_bsym *)b; /* the atomic cache only */
	const struct sw_arch *known = atomic_load_explicit(&mb->cfi_arch, memory_order_acquire);
	if (!known) {
		const struct sw_arch *none = NULL;
		atomic_compare_exchange_strong(&mb->cfi_arch, &none, arch);
		known = atomic_load_explicit(&mb->cfi_arch, memory_order_acquire);
	}
	if (known != arch || !b->cfi_regs)
		return sw_arch_reg_index(arch, nm->s, nm->len);
	int16_t r = atomic_load_explicit(&b->cfi_regs[k], memory_order_relaxed);
	if (r == BSYM_REG_UNRESOLVED) {
		r = (int16_t)sw_arch_reg_index(arch, nm->s, nm->len);
		atomic_store_explicit(&b->cfi_regs[k], r, memory_order_relaxed);
	}
	return r;
}

/* The value of name-table entry k as cfi_resolve gives the name's value. */
static bool cfi_resolve_entry(const struct cfi_eval_ctx *c, size_t k, uint64_t *out)
{
	const struct bsym_cfi_name *nm = &c->b->cfi_names[k];
	if (nm->len == 4 && memcmp(nm->s, ".cfa", 4) == 0) {
		*out = c->cfa;
		return c->have_cfa;
	}
	int i = cfi_name_reg(c->b, c->env->arch, k);
	if (i < 0 || !sw_reg_valid(&c->env->callee->regs, (unsigned)i))
		return false;
	*out = c->env->callee->regs.v[i];
	return true;
}

/* One rule's value: its text by the postfix evaluator, or a decoded
 * shape with the evaluator's arithmetic (values wrap at the word size,
 * a name it cannot resolve or a word it cannot read is an error). */
static enum sw_pf_status eval_expr(const struct sw_postfix *pf, const struct cfi_eval_ctx *c,
                                   const struct cfi_expr *x, uint64_t *out)
{
	if (x->kind == EXPR_TEXT)
		return sw_postfix_eval(pf, x->e, x->len, out);
	uint64_t mask = pf->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	uint64_t v;
	if (x->name >= c->b->ncfi_names || !cfi_resolve_entry(c, x->name, &v))
		return SW_PF_ERR_UNKNOWN_VAR;
	v &= mask;
	if (x->kind == EXPR_NAME) {
		*out = v;
		return SW_PF_OK;
	}
	v = (v + (x->n & mask)) & mask;
	if (x->kind == EXPR_ADD) {
		*out = v;
		return SW_PF_OK;
	}
	uint64_t w;
	if (!cfi_read((void *)c, v, &w))
		return SW_PF_ERR_MEMORY;
	*out = w & mask;
	return SW_PF_OK;
}

/* The lines of a STACK CFI INIT record's text (struct bsym_range.off and
 * .len: the INIT line, then its delta lines), as the unwinder and the
 * index's encoder both read them. */
struct cfi_lines {
	const char *p, *end;        /* the lines not read yet */
};

/* The INIT line, "STACK CFI INIT <addr> <size> <rules>": its rules' text
 * in [*rules, *rules_end). False when the line does not parse. */
static bool cfi_init_line(struct cfi_lines *it, const char **rules, const char **rules_end)
{
	const char *p = it->p;
	const char *nl = bsym_line_end(p, it->end);
	const char *e = bsym_trim_cr(p, nl);
	it->p = nl + 1;
	if (e - p < 15)
		return false;
	p = bsym_skip_spaces(p + 6, e);
	p = bsym_skip_spaces(p + 4, e);
	p = bsym_skip_spaces(p + 5, e);
	uint64_t v;
	if (!bsym_hex(&p, e, &v) || !bsym_hex(&p, e, &v))
		return false;
	*rules = p;
	*rules_end = e;
	return true;
}

/* The next delta line, "STACK CFI <addr> <rules>": its address and rules'
 * text. False at the end of the record: the end of its text, or a line of
 * another kind (which the record's text ends before; the test stays, for
 * text read whole). A line whose address does not parse is skipped. */
static bool cfi_delta_line(struct cfi_lines *it, uint64_t *addr, const char **rules,
                           const char **rules_end)
{
	while (it->p < it->end) {
		const char *p = it->p;
		const char *nl = bsym_line_end(p, it->end);
		const char *e = bsym_trim_cr(p, nl);
		if (e - p < 10 || memcmp(p, "STACK CFI ", 10) != 0)
			return false;
		const char *q = bsym_skip_spaces(p + 10, e);
		if (e - q >= 5 && memcmp(q, "INIT ", 5) == 0)
			return false;
		it->p = nl + 1;
		if (!bsym_hex(&q, e, addr))
			continue;
		*rules = q;
		*rules_end = e;
		return true;
	}
	return false;
}

/* The rules at offset from the INIT record's text, p .. end: the INIT
 * line's, then those of each delta line from init's address to offset. */
static enum sw_unwind_status collect_rules(const struct sw_arch *arch,
                                           const struct bsym_range *init, uint64_t offset,
                                           const char *p, const char *end,
                                           struct cfi_rules *rules)
{
	memset(rules, 0, sizeof *rules);
	struct cfi_lines it = {p, end};
	const char *q, *qe;
	if (!cfi_init_line(&it, &q, &qe) || !parse_rule_set(arch, q, qe, rules))
		return SW_UNWIND_FAILED;
	uint64_t addr;
	while (cfi_delta_line(&it, &addr, &q, &qe))
		if (addr >= init->addr && addr <= offset)
			parse_rule_set(arch, q, qe, rules);
	return SW_UNWIND_OK;
}

/* ---- decoded rules (the index's decoded section) ------------------------
 *
 * A record decodes when every line collect_rules would read parses whole
 * and every rule has one of the decoded shapes. Its bytes, to the end:
 *     the INIT line's group, then per delta line: sleb addr - INIT addr,
 *     and its group
 *     group: per rule u8 target name, u8 shape (EXPR_*), u8 operand name,
 *            [ADD, DEREF: uleb N]; then GROUP_END
 * names being entries of the file's name table (struct bsym_cfi_name,
 * fewer than GROUP_END). */
enum { GROUP_END = 0xff };

struct rule_encoder {
	struct bsym_cfi_names *names;
	struct bsym_bytes *o;
	bool ok;
};

/* A name's slot in names->slot: rules name the same few registers. */
static unsigned name_hash(const char *s, size_t n)
{
	return (unsigned)(n * 31 + (unsigned char)s[0] * 7 + (unsigned char)s[n - 1] * 3 +
	                  (unsigned char)s[n / 2]) & 0xff;
}

static bool name_entry(struct bsym_cfi_names *names, const char *s, size_t n, uint8_t *out)
{
	if (n == 0 || n > BSYM_CFI_NAME_MAX)
		return false;
	unsigned h = name_hash(s, n);
	unsigned k = names->slot[h];
	if (k && k <= names->n && names->v[k - 1].len == n && memcmp(names->v[k - 1].s, s, n) == 0) {
		*out = (uint8_t)(k - 1);
		return true;
	}
	for (size_t i = 0; i < names->n; i++)
		if (names->v[i].len == n && memcmp(names->v[i].s, s, n) == 0) {
			names->slot[h] = (uint8_t)(i + 1);
			*out = (uint8_t)i;
			return true;
		}
	if (names->n >= BSYM_CFI_NAMES_MAX)
		return false;
	struct bsym_cfi_name *nm = &names->v[names->n];
	memset(nm, 0, sizeof *nm);
	nm->len = (uint8_t)n;
	memcpy(nm->s, s, n);
	names->slot[h] = (uint8_t)(names->n + 1);
	*out = (uint8_t)names->n++;
	return true;
}

static void encode_rule(void *vctx, const char *name, size_t name_len, const char *expr,
                        size_t expr_len)
{
	struct rule_encoder *enc = vctx;
	if (!enc->ok)
		return;
	/* The expression's tokens, split as the evaluator splits them. */
	const char *tok[5];
	size_t len[5], nt = 0;
	for (size_t i = 0; i < expr_len;) {
		while (i < expr_len && sw_postfix_is_space(expr[i]))
			i++;
		size_t start = i;
		while (i < expr_len && !sw_postfix_is_space(expr[i]))
			i++;
		if (i > start) {
			if (nt == 5) {
				enc->ok = false;
				return;
			}
			tok[nt] = expr + start;
			len[nt++] = i - start;
		}
	}
	uint8_t shape, target, operand;
	uint64_t n = 0;
	if (nt == 1)
		shape = EXPR_NAME;
	else if (nt == 3 && len[2] == 1 && tok[2][0] == '+')
		shape = EXPR_ADD;
	else if (nt == 4 && len[2] == 1 && tok[2][0] == '+' && len[3] == 1 && tok[3][0] == '^')
		shape = EXPR_DEREF;
	else
		shape = EXPR_NONE;
	/* `.undef` alone is no name: the evaluator reports it undefined. */
	if (shape == EXPR_NONE || !sw_postfix_is_name(tok[0], len[0]) ||
	    (nt == 1 && len[0] == 6 && memcmp(tok[0], ".undef", 6) == 0) ||
	    (nt > 1 && !sw_postfix_number(tok[1], len[1], &n)) ||
	    !name_entry(enc->names, name, name_len, &target) ||
	    !name_entry(enc->names, tok[0], len[0], &operand)) {
		enc->ok = false;
		return;
	}
	uint8_t head[3] = {target, shape, operand};
	bsym_bytes_put(enc->o, head, 3);
	if (shape != EXPR_NAME)
		bsym_put_uleb(enc->o, n);
}

/* A rule set's text and its encoding: a file repeats a few thousand rule
 * sets (".cfa: $rsp 16 +" a hundred thousand times in gen48k; libLLVM's
 * 1.3 M rule lines are 1,786 texts), encoded once each. An open-addressed
 * table of GROUP_SLOTS 16-bit entries over up to GROUP_MAX remembered sets
 * (a direct-mapped table of 4,096 sets missed on every pair that shared
 * a slot). Names are never dropped from the table, so a remembered
 * encoding's names stay valid. */
enum {
	GROUP_MAX = 8192, GROUP_SLOTS = 4 * GROUP_MAX, GROUP_TEXT = 160, GROUP_CODE = 64,
	GROUP_FAILS = 0xff,         /* code_len of a set that does not encode */
};
struct bsym_cfi_group {
	uint8_t text_len, code_len;
	char text[GROUP_TEXT];
	uint8_t code[GROUP_CODE];
};

struct bsym_cfi_groups {
	size_t n;
	uint16_t slot[GROUP_SLOTS];       /* 0: empty; else the set's index + 1 */
	struct bsym_cfi_group v[GROUP_MAX]; /* pages touched as they fill */
};

void bsym_cfi_names_free(struct bsym_cfi_names *names)
{
	if (names->groups)
		munmap(names->groups, sizeof *names->groups);
	names->groups = NULL;
}

/* Eight bytes at a time (a byte at a time was a fifth of writing
 * rustc_abrt's index: 10 M rule lines). */
static unsigned group_hash(const char *p, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15u, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 29;
	}
	/* The last bytes: the 8 that end the text (overlapping the loop's;
	 * a load of n - i bytes stalled on its own stores), or byte by byte
	 * when shorter. */
	if (i < n && n >= 8) {
		memcpy(&w, p + n - 8, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
	} else if (i < n) {
		for (w = 0; i < n; i++)
			w = w << 8 | (unsigned char)p[i];
		h = (h ^ w) * 0xff51afd7ed558ccdu;
	}
	h ^= h >> 32;
	return (unsigned)(h * 0xc4ceb9fe1a85ec53u >> 32) & (GROUP_SLOTS - 1);
}

/* One line's rules as a group. */
static bool encode_group(struct rule_encoder *enc, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);
	struct bsym_cfi_names *names = enc->names;
	/* Pages of its own, zero until touched: calloc from a heap whose
	 * mmap threshold earlier frees had raised cleared all 1.9 MB, on each
	 * writer's thread (+2.5 MB of gen48k's cold peak RSS). */
	if (!names->groups) {
		void *m = mmap(NULL, sizeof *names->groups, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		names->groups = m == MAP_FAILED ? NULL : m;
	}
	struct bsym_cfi_groups *gs = names->groups;
	uint16_t *slot = NULL;
	if (gs && n <= GROUP_TEXT) {
		for (unsigned h = group_hash(p, n);; h = (h + 1) & (GROUP_SLOTS - 1)) {
			slot = &gs->slot[h];
			if (*slot == 0)
				break;
			const struct bsym_cfi_group *g = &gs->v[*slot - 1];
			if (g->text_len == n && memcmp(g->text, p, n) == 0) {
				if (g->code_len == GROUP_FAILS)
					return false;
				bsym_bytes_put(enc->o, g->code, g->code_len);
				return !enc->o->oom;
			}
		}
	}
	size_t start = enc->o->n;
	bool ok = rule_set_each(p, e, encode_rule, enc) && enc->ok;
	uint8_t end = GROUP_END;
	if (ok)
		bsym_bytes_put(enc->o, &end, 1);
	if (enc->o->oom)
		return false;
	size_t code = ok ? enc->o->n - start : GROUP_FAILS;
	/* Remembered while the table is under a quarter full (probes stay
	 * short), a set that does not encode too (a shape the decoded form
	 * lacks: libLLVM repeats a few of them 100,000 times); later sets are
	 * encoded each time. */
	if (slot && (code <= GROUP_CODE || !ok) && gs->n < GROUP_MAX) {
		struct bsym_cfi_group *g = &gs->v[gs->n++];
		g->text_len = (uint8_t)n;
		memcpy(g->text, p, n);
		g->code_len = (uint8_t)code;
		if (ok)
			memcpy(g->code, enc->o->p + start, code);
		*slot = (uint16_t)gs->n;
	}
	return ok;
}

bool bsym_cfi_encode(const struct sw_bsym *b, const struct bsym_range *r,
                     struct bsym_cfi_names *names, struct bsym_bytes *o)
{
	if (!b->text || r->off > b->len || r->len > b->len - r->off)
		return false;
	size_t start = o->n;
	struct rule_encoder enc = {names, o, true};
	/* As collect_rules reads it: the INIT line must parse whole. */
	struct cfi_lines it = {b->text + r->off, b->text + r->off + r->len};
	const char *q, *qe;
	bool ok = cfi_init_line(&it, &q, &qe) && encode_group(&enc, q, qe);
	uint64_t addr;
	while (ok && cfi_delta_line(&it, &addr, &q, &qe)) {
		bsym_put_sleb(o, (int64_t)(addr - r->addr));
		ok = encode_group(&enc, q, qe);
	}
	if (!ok || o->oom) {
		o->n = start; /* its names stay: a remembered group may use them */
		return false;
	}
	return true;
}

/* Reads one group's rules into rules (apply) or past them. */
static bool decode_group(const struct sw_bsym *b, const struct sw_arch *arch,
                         const uint8_t **pp, const uint8_t *e, bool apply,
                         struct cfi_rules *rules)
{
	for (;;) {
		if (*pp < e && **pp == GROUP_END) {
			++*pp;
			return true;
		}
		if (e - *pp < 3)
			return false;
		uint8_t target = (*pp)[0], shape = (*pp)[1], operand = (*pp)[2];
		*pp += 3;
		uint64_t n = 0;
		if (shape != EXPR_NAME && !bsym_get_uleb(pp, e, &n))
			return false;
		if (target >= b->ncfi_names || operand >= b->ncfi_names ||
		    (shape != EXPR_NAME && shape != EXPR_ADD && shape != EXPR_DEREF))
			return false;
		if (!apply)
			continue;
		const struct bsym_cfi_name *t = &b->cfi_names[target];
		struct cfi_expr *slot;
		if (t->len == 4 && memcmp(t->s, ".cfa", 4) == 0) {
			slot = &rules->cfa;
		} else if (t->len == 3 && memcmp(t->s, ".ra", 3) == 0) {
			slot = &rules->ra;
		} else {
			int i = cfi_name_reg(b, arch, target);
			slot = i >= 0 && i < SW_MAX_REGS ? &rules->reg[i] : NULL;
		}
		if (slot)
			*slot = (struct cfi_expr){.kind = shape, .name = operand, .n = n};
	}
}

/* The rules at offset from a decoded record (bsym_cfi_encode). */
static enum sw_unwind_status collect_decoded(const struct sw_bsym *b, const struct sw_arch *arch,
                                             const struct bsym_range *init, uint64_t offset,
                                             const uint8_t *p, const uint8_t *e,
                                             struct cfi_rules *rules)
{
	memset(rules, 0, sizeof *rules);
	if (!decode_group(b, arch, &p, e, true, rules))
		return SW_UNWIND_FAILED;
	while (p < e) {
		int64_t delta;
		if (!bsym_get_sleb(&p, e, &delta))
			return SW_UNWIND_FAILED;
		uint64_t addr = init->addr + (uint64_t)delta;
		if (!decode_group(b, arch, &p, e, addr >= init->addr && addr <= offset, rules))
			return SW_UNWIND_FAILED;
	}
	return SW_UNWIND_OK;
}

static enum sw_unwind_status eval_rules(const struct sw_bsym *b, const struct sw_arch *arch,
                                        const struct cfi_rules *rules,
                                        const struct sw_unwind_env *env,
                                        struct sw_regs *caller, enum sw_trust *trust);

/* --explain: expression x as the .sym file spells it. */
static size_t describe_expr(const struct sw_bsym *b, const struct cfi_expr *x, char *out,
                            size_t cap)
{
	const struct bsym_cfi_name *nm = x->kind == EXPR_TEXT || x->kind == EXPR_NONE
	                                         ? NULL
	                                         : &b->cfi_names[x->name];
	int n = 0;
	switch (x->kind) {
	case EXPR_TEXT:
		n = snprintf(out, cap, "%.*s", (int)x->len, x->e);
		break;
	case EXPR_ADD:
		n = snprintf(out, cap, "%.*s %" PRId64 " +", (int)nm->len, nm->s, (int64_t)x->n);
		break;
	case EXPR_DEREF:
		n = snprintf(out, cap, "%.*s %" PRId64 " + ^", (int)nm->len, nm->s, (int64_t)x->n);
		break;
	case EXPR_NAME:
		n = snprintf(out, cap, "%.*s", (int)nm->len, nm->s);
		break;
	default:
		break;
	}
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

/* --explain: the rules that gave the caller, ".cfa: EXPR .ra: EXPR" as a
 * STACK CFI line spells them (a decoded index's rules in the text they
 * were decoded from). */
static void describe_rules(const struct sw_bsym *b, const struct cfi_rules *r, char *out,
                           size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "STACK CFI .cfa: ");
	if (n >= cap)
		return;
	n += describe_expr(b, &r->cfa, out + n, cap - n);
	int k = snprintf(out + n, cap - n, " .ra: ");
	if (k < 0 || (size_t)k >= cap - n)
		return;
	n += (size_t)k;
	describe_expr(b, &r->ra, out + n, cap - n);
}

enum sw_unwind_status bsym_cfi_unwind(const struct sw_bsym *b, uint64_t offset,
                                      const struct sw_unwind_env *env,
                                      struct sw_regs *caller, enum sw_trust *trust)
{
	ptrdiff_t ri = bsym_find_cfi(b, offset);
	if (ri < 0)
		return SW_UNWIND_NO_RULE;
	const struct bsym_range *init = &b->cfi[ri];
	const struct sw_arch *arch = env->arch;

	/* The INIT line and the deltas after it: the record's text, or its
	 * decoded rules. */
	struct cfi_rules rules;
	struct bsym_span sp;
	bool decoded = b->idx && (init->aux & BSYM_DECODED);
	if (decoded ? !bsym_blob_get(b, init->off, init->len, init->crc, &sp)
	            : !bsym_span_get(b, init->off, init->len, init->crc, &sp))
		return SW_UNWIND_FAILED;
	enum sw_unwind_status st =
		decoded ? collect_decoded(b, arch, init, offset, (const uint8_t *)sp.p,
		                          (const uint8_t *)sp.p + sp.n, &rules)
		        : collect_rules(arch, init, offset, sp.p, sp.p + sp.n, &rules);
	if (st == SW_UNWIND_OK)
		st = eval_rules(b, arch, &rules, env, caller, trust); /* text expressions are in sp */
	if (st == SW_UNWIND_OK && env->rule)
		describe_rules(b, &rules, env->rule, env->rule_cap);
	bsym_span_free(&sp);
	return st;
}

/* The caller's registers by the rules: .cfa, then .ra, then each register. */
static enum sw_unwind_status eval_rules(const struct sw_bsym *b, const struct sw_arch *arch,
                                        const struct cfi_rules *rules,
                                        const struct sw_unwind_env *env,
                                        struct sw_regs *caller, enum sw_trust *trust)
{
	if (!rules->cfa.kind || !rules->ra.kind)
		return SW_UNWIND_FAILED;

	struct cfi_eval_ctx ctx = {.b = b, .env = env};
	struct sw_postfix pf = {
		.resolve = cfi_resolve, .resolve_ctx = &ctx,
		.read = cfi_read, .read_ctx = &ctx,
		.word_size = arch->word_size,
	};
	enum sw_pf_status s = eval_expr(&pf, &ctx, &rules->cfa, &ctx.cfa);
	if (s != SW_PF_OK)
		return SW_UNWIND_FAILED;
	ctx.have_cfa = true;
	uint64_t ra;
	s = eval_expr(&pf, &ctx, &rules->ra, &ra);
	if (s == SW_PF_UNDEF)
		return SW_UNWIND_END;
	if (s != SW_PF_OK)
		return SW_UNWIND_FAILED;

	caller->valid = 0;
	caller->context_flags = 0;
	const struct sw_regs *callee = &env->callee->regs;
	uint64_t by_rule = 0;
	for (unsigned i = 0; i < arch->nregs && i < SW_MAX_REGS; i++) {
		if (rules->reg[i].kind) {
			uint64_t val;
			s = eval_expr(&pf, &ctx, &rules->reg[i], &val);
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
