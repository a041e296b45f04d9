/* Breakpad's postfix language: the expressions of STACK CFI rules and the
 * programs of STACK WIN records.
 *
 *   tokens   numbers (decimal, -decimal, 0xhex), identifiers ($eip, .cfa,
 *            .raSearchStart, $T0), binary + - * / % @ (@: align down),
 *            unary ^ (read a word at the address), = (assign to a $name)
 *   values   words of the walked CPU: arithmetic wraps at the word size
 *
 * Evaluation never allocates: a fixed operand stack and a fixed-size
 * dictionary of variables. Identifiers not in the dictionary are asked of a
 * resolver callback (CFI: the callee's registers), so registers need not be
 * copied into the dictionary for every rule. */
#ifndef SW_POSTFIX_H
#define SW_POSTFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	SW_PF_MAX_VARS = 32,  /* dictionary entries */
	SW_PF_NAME_MAX = 23,  /* longest variable name */
	SW_PF_STACK = 64,     /* operand stack depth */
};

enum sw_pf_status {
	SW_PF_OK = 0,
	SW_PF_UNDEF,            /* the expression is `.undef`: no value */
	SW_PF_ERR_UNDERFLOW,    /* an operator found too few operands */
	SW_PF_ERR_OVERFLOW,     /* more than SW_PF_STACK operands */
	SW_PF_ERR_DIV_ZERO,     /* / or % by zero, @ by zero */
	SW_PF_ERR_UNKNOWN_VAR,  /* identifier with no value */
	SW_PF_ERR_TOKEN,        /* not a number, operator or identifier */
	SW_PF_ERR_MEMORY,       /* ^ on an address that cannot be read */
	SW_PF_ERR_ASSIGN,       /* = without a $name on its left */
	SW_PF_ERR_DICT_FULL,    /* too many variables, or a name too long */
	SW_PF_ERR_RESULT,       /* an expression left != 1 value, a program != 0 */
};

struct sw_pf_var {
	char name[SW_PF_NAME_MAX + 1];
	uint8_t len;
	bool assigned;          /* set by `=` during sw_postfix_run */
	uint64_t value;
};

struct sw_pf_dict {
	struct sw_pf_var v[SW_PF_MAX_VARS];
	uint32_t n;
};

typedef bool (*sw_pf_read_fn)(void *ctx, uint64_t addr, uint64_t *out);
typedef bool (*sw_pf_resolve_fn)(void *ctx, const char *name, size_t len,
                                 uint64_t *out);

struct sw_postfix {
	struct sw_pf_dict *dict;      /* may be NULL: no variables, no `=` */
	sw_pf_resolve_fn resolve;     /* identifiers not in dict; may be NULL */
	void *resolve_ctx;
	sw_pf_read_fn read;           /* for ^; NULL: ^ fails */
	void *read_ctx;
	uint8_t word_size;            /* 4 or 8: values wrap at this width */
};

void sw_pf_dict_init(struct sw_pf_dict *d);
/* Sets (or adds) a variable; false when the dictionary is full. */
bool sw_pf_dict_set(struct sw_pf_dict *d, const char *name, uint64_t value);
bool sw_pf_dict_get(const struct sw_pf_dict *d, const char *name, uint64_t *out);
/* True if `=` assigned name during the last sw_postfix_run. */
bool sw_pf_dict_assigned(const struct sw_pf_dict *d, const char *name);

/* Evaluates expr[0..len) to one value (CFI rules). */
enum sw_pf_status sw_postfix_eval(const struct sw_postfix *pf, const char *expr,
                                  size_t len, uint64_t *out);
/* Runs a program of assignments (STACK WIN); the stack must end empty. */
enum sw_pf_status sw_postfix_run(const struct sw_postfix *pf, const char *prog,
                                 size_t len);

const char *sw_pf_status_name(enum sw_pf_status s);

/* How the evaluator reads one token (for those who pre-decode
 * expressions, as the symbol index does): a separator character; a
 * number (decimal, -decimal, 0xhex, the whole token); a name it would
 * push (an identifier that is no number and no operator). */
static inline bool sw_postfix_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool sw_postfix_number(const char *t, size_t n, uint64_t *out);
bool sw_postfix_is_name(const char *t, size_t n);

#endif
