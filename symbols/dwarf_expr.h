/* The DWARF expression stack machine (DWARF 5 §2.5) as CFI uses it:
 * DW_CFA_def_cfa_expression, DW_CFA_expression, DW_CFA_val_expression.
 * Registers and memory are read through struct sw_unwind_io; every
 * expression runs under a step budget, so one that loops (a backward
 * DW_OP_skip) ends as a failure, not a hang. */
#ifndef SW_SYMBOLS_DWARF_EXPR_H
#define SW_SYMBOLS_DWARF_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_io.h"

enum sw_expr_status {
	SW_EXPR_OK = 0,
	SW_EXPR_MALFORMED,     /* an unknown or truncated operation, a stack underflow */
	SW_EXPR_UNAVAILABLE,   /* a register or memory it reads is not known */
	SW_EXPR_BUDGET,        /* too many steps */
	SW_EXPR_UNSUPPORTED,   /* a valid operation CFI cannot use (DW_OP_call*, TLS) */
};

/* Evaluates expr[0..len) with `push` pushed first (the CFA for
 * DW_CFA_expression and DW_CFA_val_expression; nothing when has_push is
 * false, for DW_CFA_def_cfa_expression) and leaves the top of the stack in
 * *result. Values are address_size wide (io->word_size): arithmetic wraps
 * there. */
enum sw_expr_status sw_dwarf_expr_eval(const uint8_t *expr, size_t len,
                                       const struct sw_unwind_io *io,
                                       bool has_push, uint64_t push, uint64_t *result);

#endif
