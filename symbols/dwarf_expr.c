/* The DWARF expression stack machine (DWARF 5 §2.5.1) for CFI: literal
 * and register-based pushes, stack operations, arithmetic and logic,
 * control flow, and memory reads through the unwind io. Values are
 * address-size wide (the "generic type", §2.5.1): every result is
 * wrapped there, and the signed operations (div, shra, abs, the
 * comparisons) read their operands sign-extended from it. */
#include <string.h>

#include "dwarf_cfi_internal.h"

enum {
	OP_addr = 0x03, OP_deref = 0x06, OP_const1u = 0x08, OP_const1s = 0x09,
	OP_const2u = 0x0a, OP_const2s = 0x0b, OP_const4u = 0x0c, OP_const4s = 0x0d,
	OP_const8u = 0x0e, OP_const8s = 0x0f, OP_constu = 0x10, OP_consts = 0x11,
	OP_dup = 0x12, OP_drop = 0x13, OP_over = 0x14, OP_pick = 0x15, OP_swap = 0x16,
	OP_rot = 0x17, OP_xderef = 0x18, OP_abs = 0x19, OP_and = 0x1a, OP_div = 0x1b,
	OP_minus = 0x1c, OP_mod = 0x1d, OP_mul = 0x1e, OP_neg = 0x1f, OP_not = 0x20,
	OP_or = 0x21, OP_plus = 0x22, OP_plus_uconst = 0x23, OP_shl = 0x24,
	OP_shr = 0x25, OP_shra = 0x26, OP_xor = 0x27, OP_bra = 0x28, OP_eq = 0x29,
	OP_ge = 0x2a, OP_gt = 0x2b, OP_le = 0x2c, OP_lt = 0x2d, OP_ne = 0x2e,
	OP_skip = 0x2f, OP_lit0 = 0x30, OP_lit31 = 0x4f, OP_reg0 = 0x50,
	OP_reg31 = 0x6f, OP_breg0 = 0x70, OP_breg31 = 0x8f, OP_regx = 0x90,
	OP_fbreg = 0x91, OP_bregx = 0x92, OP_piece = 0x93, OP_deref_size = 0x94,
	OP_xderef_size = 0x95, OP_nop = 0x96, OP_push_object_address = 0x97,
	OP_call2 = 0x98, OP_call4 = 0x99, OP_call_ref = 0x9a,
	OP_form_tls_address = 0x9b, OP_call_frame_cfa = 0x9c, OP_bit_piece = 0x9d,
	OP_implicit_value = 0x9e, OP_stack_value = 0x9f,
	/* DWARF 5 additions, all about types, objects or other units. */
	OP_implicit_pointer = 0xa0, OP_reinterpret = 0xa9,
	OP_lo_user = 0xe0, OP_hi_user = 0xff,
};

struct machine {
	uint64_t st[SW_EXPR_STACK];
	unsigned n;
	uint64_t mask;
	unsigned bytes;
};

#define NEED(k) do { if (m.n < (k)) return SW_EXPR_MALFORMED; } while (0)
#define PUSH(v) do { uint64_t pushed_ = (uint64_t)(v); \
                     if (m.n == SW_EXPR_STACK) return SW_EXPR_MALFORMED; \
                     m.st[m.n++] = pushed_ & m.mask; } while (0)
#define TOP m.st[m.n - 1]
#define SECOND m.st[m.n - 2]

enum sw_expr_status sw_dwarf_expr_eval_biased(const uint8_t *expr, size_t len,
                                              const struct sw_unwind_io *io, uint64_t load_bias,
                                              bool has_push, uint64_t push, uint64_t *result)
{
	struct machine m = { .n = 0 };
	m.bytes = io->word_size == 4 ? 4 : 8;
	m.mask = sw_addr_mask((uint8_t)m.bytes);
	if (!expr && len)
		return SW_EXPR_MALFORMED;
	struct sw_span s = { expr, len, 0, io->big_endian };
	/* Operands are in the module's byte order; so far every target's
	 * modules share the target's. */
	struct sw_dcur d = { s, 0, false };
	if (has_push)
		PUSH(push);
	unsigned steps = 0;
	while (d.pos < len) {
		if (++steps > SW_EXPR_STEP_BUDGET)
			return SW_EXPR_BUDGET;
		uint8_t op = sw_dcur_u8(&d);
		uint64_t a, b, v;
		int64_t sa, sb;
		if (op >= OP_lit0 && op <= OP_lit31) {
			PUSH(op - OP_lit0);
			continue;
		}
		if ((op >= OP_reg0 && op <= OP_reg31) || (op >= OP_breg0 && op <= OP_breg31) ||
		    op == OP_regx || op == OP_bregx) {
			uint64_t reg;
			if (op == OP_regx || op == OP_bregx)
				reg = sw_dcur_uleb(&d);
			else
				reg = op >= OP_breg0 ? (uint64_t)(op - OP_breg0) : (uint64_t)(op - OP_reg0);
			int64_t off = (op >= OP_breg0 && op != OP_regx) ? sw_dcur_sleb(&d) : 0;
			if (d.bad)
				return SW_EXPR_MALFORMED;
			if (reg > UINT32_MAX)
				return SW_EXPR_UNAVAILABLE;
			/* DW_OP_reg* names a location, not a value; in a CFI
			 * expression it can only mean the register's contents. */
			if (!io->read_reg(io->self, (uint32_t)reg, &v))
				return SW_EXPR_UNAVAILABLE;
			PUSH(v + (uint64_t)off);
			continue;
		}
		switch (op) {
		case OP_addr:
			v = sw_dcur_uint(&d, m.bytes);
			if (d.bad)
				return SW_EXPR_MALFORMED;
			PUSH(v + load_bias);
			break;
		case OP_const1u: case OP_const2u: case OP_const4u: case OP_const8u:
		case OP_const1s: case OP_const2s: case OP_const4s: case OP_const8s: {
			unsigned k = (op - OP_const1u) / 2;
			unsigned n = 1u << k;
			v = sw_dcur_uint(&d, n);
			if (d.bad)
				return SW_EXPR_MALFORMED;
			if ((op - OP_const1u) & 1)
				v = (uint64_t)sw_sext(v, n);
			PUSH(v);
			break;
		}
		case OP_constu:
			v = sw_dcur_uleb(&d);
			if (d.bad)
				return SW_EXPR_MALFORMED;
			PUSH(v);
			break;
		case OP_consts:
			v = (uint64_t)sw_dcur_sleb(&d);
			if (d.bad)
				return SW_EXPR_MALFORMED;
			PUSH(v);
			break;
		case OP_dup:
			NEED(1);
			PUSH(TOP);
			break;
		case OP_drop:
			NEED(1);
			m.n--;
			break;
		case OP_over:
			NEED(2);
			PUSH(SECOND);
			break;
		case OP_pick:
			a = sw_dcur_u8(&d);
			if (d.bad)
				return SW_EXPR_MALFORMED;
			NEED(a + 1);
			PUSH(m.st[m.n - 1 - a]);
			break;
		case OP_swap:
			NEED(2);
			v = TOP;
			TOP = SECOND;
			SECOND = v;
			break;
		case OP_rot:
			/* The top three entries rotate: the top moves to third. */
			NEED(3);
			v = TOP;
			TOP = SECOND;
			SECOND = m.st[m.n - 3];
			m.st[m.n - 3] = v;
			break;
		case OP_deref:
		case OP_deref_size: {
			unsigned n = m.bytes;
			if (op == OP_deref_size) {
				n = sw_dcur_u8(&d);
				if (d.bad || n == 0 || n > m.bytes)
					return SW_EXPR_MALFORMED;
			}
			NEED(1);
			uint8_t buf[8];
			if (!io->read_mem(io->self, TOP, buf, n))
				return SW_EXPR_UNAVAILABLE;
			struct sw_span w = { buf, n, 0, io->big_endian };
			TOP = sw_uint(w, 0, n) & m.mask;
			break;
		}
		case OP_abs:
			NEED(1);
			sa = sw_sext(TOP, m.bytes);
			if (sa < 0)
				TOP = (0 - TOP) & m.mask;
			break;
		case OP_neg:
			NEED(1);
			TOP = (0 - TOP) & m.mask;
			break;
		case OP_not:
			NEED(1);
			TOP = ~TOP & m.mask;
			break;
		case OP_plus_uconst:
			NEED(1);
			v = sw_dcur_uleb(&d);
			if (d.bad)
				return SW_EXPR_MALFORMED;
			TOP = (TOP + v) & m.mask;
			break;
		case OP_and: case OP_div: case OP_minus: case OP_mod: case OP_mul:
		case OP_or: case OP_plus: case OP_shl: case OP_shr: case OP_shra:
		case OP_xor: case OP_eq: case OP_ge: case OP_gt: case OP_le:
		case OP_lt: case OP_ne:
			/* Binary: b is the top, a the entry below; the result is
			 * "a op b" (§2.5.1.4). */
			NEED(2);
			b = TOP;
			a = SECOND;
			m.n -= 2;
			sa = sw_sext(a, m.bytes);
			sb = sw_sext(b, m.bytes);
			switch (op) {
			case OP_and: v = a & b; break;
			case OP_or: v = a | b; break;
			case OP_xor: v = a ^ b; break;
			case OP_plus: v = a + b; break;
			case OP_minus: v = a - b; break;
			case OP_mul: v = a * b; break;
			case OP_div:
				if (b == 0)
					return SW_EXPR_MALFORMED;
				/* -1 would overflow INT64_MIN: division by -1 is negation. */
				v = sb == -1 ? 0 - a : (uint64_t)(sa / sb);
				break;
			case OP_mod:
				if (b == 0)
					return SW_EXPR_MALFORMED;
				v = a % b;
				break;
			case OP_shl: v = b >= 64 ? 0 : a << b; break;
			case OP_shr: v = b >= 64 ? 0 : a >> b; break;
			case OP_shra:
				v = b >= 64 ? (sa < 0 ? UINT64_MAX : 0) : (uint64_t)(sa >> b);
				break;
			case OP_eq: v = sa == sb; break;
			case OP_ne: v = sa != sb; break;
			case OP_ge: v = sa >= sb; break;
			case OP_gt: v = sa > sb; break;
			case OP_le: v = sa <= sb; break;
			default: v = sa < sb; break; /* OP_lt */
			}
			PUSH(v);
			break;
		case OP_skip:
		case OP_bra: {
			int64_t delta = sw_sext(sw_dcur_uint(&d, 2), 2);
			if (d.bad)
				return SW_EXPR_MALFORMED;
			if (op == OP_bra) {
				NEED(1);
				if (m.st[--m.n] == 0)
					break;
			}
			int64_t to = (int64_t)d.pos + delta;
			if (to < 0 || (uint64_t)to > len)
				return SW_EXPR_MALFORMED;
			d.pos = (uint64_t)to;
			break;
		}
		case OP_nop:
			break;
		case OP_stack_value:
			/* The value is the result: in CFI, where the result is
			 * always a value or an address, the expression ends. */
			d.pos = len;
			break;
		case OP_xderef: case OP_xderef_size: case OP_fbreg: case OP_piece:
		case OP_push_object_address: case OP_call2: case OP_call4: case OP_call_ref:
		case OP_form_tls_address: case OP_call_frame_cfa: case OP_bit_piece:
		case OP_implicit_value:
			return SW_EXPR_UNSUPPORTED;
		default:
			if ((op >= OP_implicit_pointer && op <= OP_reinterpret) || op >= OP_lo_user)
				return SW_EXPR_UNSUPPORTED;
			return SW_EXPR_MALFORMED;
		}
	}
	if (m.n == 0)
		return SW_EXPR_MALFORMED;
	*result = TOP;
	return SW_EXPR_OK;
}

enum sw_expr_status sw_dwarf_expr_eval(const uint8_t *expr, size_t len,
                                       const struct sw_unwind_io *io,
                                       bool has_push, uint64_t push, uint64_t *result)
{
	return sw_dwarf_expr_eval_biased(expr, len, io, 0, has_push, push, result);
}
