/* Breakpad's postfix evaluator (see postfix.h), without heap or strings:
 * tokens are slices of the expression, the operand stack is fixed. An
 * identifier is pushed unresolved, as Breakpad does, so that `=` can see the
 * name on its left; it is looked up when an operator pops it. */
#include "postfix.h"

#include <string.h>

#include "lib/hex.h"

struct pf_operand {
	bool is_name;
	uint64_t value;
	const char *name;
	size_t len;
};

struct pf_machine {
	const struct sw_postfix *pf;
	struct pf_operand stack[SW_PF_STACK];
	uint32_t depth;
	uint64_t mask;
};

void sw_pf_dict_init(struct sw_pf_dict *d)
{
	memset(d, 0, sizeof *d);
}

static struct sw_pf_var *dict_find(const struct sw_pf_dict *d, const char *name,
                                   size_t len)
{
	if (!d)
		return NULL;
	for (uint32_t i = 0; i < d->n; i++)
		if (d->v[i].len == len && memcmp(d->v[i].name, name, len) == 0)
			return (struct sw_pf_var *)&d->v[i];
	return NULL;
}

static struct sw_pf_var *dict_put(struct sw_pf_dict *d, const char *name,
                                  size_t len, uint64_t value)
{
	struct sw_pf_var *v = dict_find(d, name, len);
	if (!v) {
		if (!d || d->n >= SW_PF_MAX_VARS || len > SW_PF_NAME_MAX || len == 0)
			return NULL;
		v = &d->v[d->n++];
		memcpy(v->name, name, len);
		v->name[len] = '\0';
		v->len = (uint8_t)len;
		v->assigned = false;
	}
	v->value = value;
	return v;
}

bool sw_pf_dict_set(struct sw_pf_dict *d, const char *name, uint64_t value)
{
	return dict_put(d, name, strlen(name), value) != NULL;
}

bool sw_pf_dict_get(const struct sw_pf_dict *d, const char *name, uint64_t *out)
{
	const struct sw_pf_var *v = dict_find(d, name, strlen(name));
	if (v)
		*out = v->value;
	return v != NULL;
}

bool sw_pf_dict_assigned(const struct sw_pf_dict *d, const char *name)
{
	const struct sw_pf_var *v = dict_find(d, name, strlen(name));
	return v && v->assigned;
}

static bool is_ident_start(char c)
{
	return c == '$' || c == '.' || c == '_' || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Decimal, -decimal, 0xhex, -0xhex; the whole token or nothing. */
static bool parse_number(const char *t, size_t n, uint64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (n > 0 && t[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i >= n)
		return false;
	uint64_t v = 0;
	if (n - i > 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
		i += 2;
		for (; i < n; i++) {
			int d = sw_hex_digit(t[i]);
			if (d < 0 || v >> 60)
				return false;
			v = v << 4 | (uint64_t)d;
		}
	} else {
		for (; i < n; i++) {
			if (t[i] < '0' || t[i] > '9')
				return false;
			uint64_t d = (uint64_t)(t[i] - '0');
			if (v > (UINT64_MAX - d) / 10)
				return false;
			v = v * 10 + d;
		}
	}
	*out = neg ? (uint64_t)0 - v : v;
	return true;
}

static enum sw_pf_status push_value(struct pf_machine *m, uint64_t v)
{
	if (m->depth >= SW_PF_STACK)
		return SW_PF_ERR_OVERFLOW;
	m->stack[m->depth++] = (struct pf_operand){.value = v & m->mask};
	return SW_PF_OK;
}

static enum sw_pf_status resolve(const struct pf_machine *m, const char *name,
                                 size_t len, uint64_t *out)
{
	const struct sw_pf_var *v = dict_find(m->pf->dict, name, len);
	if (v) {
		*out = v->value;
		return SW_PF_OK;
	}
	if (m->pf->resolve && m->pf->resolve(m->pf->resolve_ctx, name, len, out)) {
		*out &= m->mask;
		return SW_PF_OK;
	}
	return SW_PF_ERR_UNKNOWN_VAR;
}

static enum sw_pf_status pop_value(struct pf_machine *m, uint64_t *out)
{
	if (m->depth == 0)
		return SW_PF_ERR_UNDERFLOW;
	const struct pf_operand *o = &m->stack[--m->depth];
	if (!o->is_name) {
		*out = o->value;
		return SW_PF_OK;
	}
	return resolve(m, o->name, o->len, out);
}

static enum sw_pf_status binary(struct pf_machine *m, char op)
{
	if (m->depth < 2)
		return SW_PF_ERR_UNDERFLOW;
	uint64_t a, b;
	enum sw_pf_status s = pop_value(m, &b);
	if (s == SW_PF_OK)
		s = pop_value(m, &a);
	if (s != SW_PF_OK)
		return s;
	uint64_t r;
	switch (op) {
	case '+': r = a + b; break;
	case '-': r = a - b; break;
	case '*': r = a * b; break;
	case '/':
		if (b == 0)
			return SW_PF_ERR_DIV_ZERO;
		r = a / b;
		break;
	case '%':
		if (b == 0)
			return SW_PF_ERR_DIV_ZERO;
		r = a % b;
		break;
	default: /* '@': align a down to a multiple of b (a power of two) */
		if (b == 0)
			return SW_PF_ERR_DIV_ZERO;
		r = a & ~(b - 1);
		break;
	}
	return push_value(m, r);
}

static enum sw_pf_status deref(struct pf_machine *m)
{
	uint64_t addr, v;
	enum sw_pf_status s = pop_value(m, &addr);
	if (s != SW_PF_OK)
		return s;
	if (!m->pf->read || !m->pf->read(m->pf->read_ctx, addr, &v))
		return SW_PF_ERR_MEMORY;
	return push_value(m, v);
}

static enum sw_pf_status assign(struct pf_machine *m)
{
	uint64_t v;
	enum sw_pf_status s = pop_value(m, &v);
	if (s != SW_PF_OK)
		return s;
	if (m->depth == 0)
		return SW_PF_ERR_UNDERFLOW;
	const struct pf_operand *o = &m->stack[--m->depth];
	if (!o->is_name || o->name[0] != '$')
		return SW_PF_ERR_ASSIGN;
	struct sw_pf_var *var = dict_put(m->pf->dict, o->name, o->len, v);
	if (!var)
		return SW_PF_ERR_DICT_FULL;
	var->assigned = true;
	return SW_PF_OK;
}

static enum sw_pf_status token(struct pf_machine *m, const char *t, size_t n)
{
	if (n == 1) {
		switch (t[0]) {
		case '+': case '-': case '*': case '/': case '%': case '@':
			return binary(m, t[0]);
		case '^':
			return deref(m);
		case '=':
			return assign(m);
		default:
			break;
		}
	}
	/* Breakpad accepts "=$x" glued: an assignment, then the rest. */
	if (n > 1 && t[0] == '=') {
		enum sw_pf_status s = assign(m);
		return s != SW_PF_OK ? s : token(m, t + 1, n - 1);
	}
	uint64_t v;
	if (parse_number(t, n, &v))
		return push_value(m, v);
	if (!is_ident_start(t[0]))
		return SW_PF_ERR_TOKEN;
	for (size_t i = 1; i < n; i++)
		if (!is_ident_char(t[i]))
			return SW_PF_ERR_TOKEN;
	if (m->depth >= SW_PF_STACK)
		return SW_PF_ERR_OVERFLOW;
	m->stack[m->depth++] = (struct pf_operand){.is_name = true, .name = t, .len = n};
	return SW_PF_OK;
}

static bool is_space(char c)
{
	return sw_postfix_is_space(c);
}

static enum sw_pf_status execute(struct pf_machine *m, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && is_space(s[i]))
			i++;
		size_t start = i;
		while (i < len && !is_space(s[i]))
			i++;
		if (i > start) {
			enum sw_pf_status st = token(m, s + start, i - start);
			if (st != SW_PF_OK)
				return st;
		}
	}
	return SW_PF_OK;
}

static void machine_init(struct pf_machine *m, const struct sw_postfix *pf)
{
	m->pf = pf;
	m->depth = 0;
	m->mask = pf->word_size == 4 ? 0xffffffffu : UINT64_MAX;
}

enum sw_pf_status sw_postfix_eval(const struct sw_postfix *pf, const char *expr,
                                  size_t len, uint64_t *out)
{
	/* `.undef` alone: the value is not recoverable (the outermost frame). */
	size_t a = 0, b = len;
	while (a < b && is_space(expr[a]))
		a++;
	while (b > a && is_space(expr[b - 1]))
		b--;
	if (b - a == 6 && memcmp(expr + a, ".undef", 6) == 0)
		return SW_PF_UNDEF;

	struct pf_machine m;
	machine_init(&m, pf);
	enum sw_pf_status s = execute(&m, expr, len);
	if (s != SW_PF_OK)
		return s;
	if (m.depth != 1)
		return m.depth == 0 ? SW_PF_ERR_UNDERFLOW : SW_PF_ERR_RESULT;
	return pop_value(&m, out);
}

enum sw_pf_status sw_postfix_run(const struct sw_postfix *pf, const char *prog,
                                 size_t len)
{
	if (pf->dict)
		for (uint32_t i = 0; i < pf->dict->n; i++)
			pf->dict->v[i].assigned = false;
	struct pf_machine m;
	machine_init(&m, pf);
	enum sw_pf_status s = execute(&m, prog, len);
	if (s != SW_PF_OK)
		return s;
	return m.depth == 0 ? SW_PF_OK : SW_PF_ERR_RESULT;
}

const char *sw_pf_status_name(enum sw_pf_status s)
{
	switch (s) {
	case SW_PF_OK: return "ok";
	case SW_PF_UNDEF: return "undefined";
	case SW_PF_ERR_UNDERFLOW: return "stack underflow";
	case SW_PF_ERR_OVERFLOW: return "stack overflow";
	case SW_PF_ERR_DIV_ZERO: return "division by zero";
	case SW_PF_ERR_UNKNOWN_VAR: return "unknown variable";
	case SW_PF_ERR_TOKEN: return "bad token";
	case SW_PF_ERR_MEMORY: return "unreadable memory";
	case SW_PF_ERR_ASSIGN: return "assignment to a non-variable";
	case SW_PF_ERR_DICT_FULL: return "too many variables";
	case SW_PF_ERR_RESULT: return "wrong number of results";
	}
	return "?";
}

bool sw_postfix_number(const char *t, size_t n, uint64_t *out)
{
	return parse_number(t, n, out);
}

/* What token() pushes as a name: not an operator (none is an identifier
 * character), not "=..." (an assignment), not a number. */
bool sw_postfix_is_name(const char *t, size_t n)
{
	uint64_t v;
	if (n == 0 || !is_ident_start(t[0]) || parse_number(t, n, &v))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!is_ident_char(t[i]))
			return false;
	return true;
}
