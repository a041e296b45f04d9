/* What the CFI evaluators (DWARF CFI, DWARF expressions, ARM EHABI) read and
 * produce. They work in DWARF register numbers and know nothing of the
 * walker: the ELF provider (symbols/elf_symbols.c) hands them the callee's
 * registers and the snapshot's memory through these callbacks and maps the
 * result back to the arch's register numbers. */
#ifndef SW_SYMBOLS_UNWIND_IO_H
#define SW_SYMBOLS_UNWIND_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sw_unwind_io {
	void *self;
	/* The callee's value of DWARF register n; false when unknown. */
	bool (*read_reg)(void *self, uint32_t dwarf_reg, uint64_t *value);
	/* n bytes of target memory at addr (the snapshot's, or read-only
	 * module bytes); false when any byte is not available. */
	bool (*read_mem)(void *self, uint64_t addr, void *out, size_t n);
	uint8_t word_size;   /* the target's address size: 4 or 8 */
	bool big_endian;     /* the target's byte order (for read_mem words) */
};

/* Rules are kept for DWARF columns below this (x86-64 xmm up to 32, arm64
 * v31 is 95, arm's d-registers 256+ are not tracked: callers never need
 * them to find a caller). */
enum { SW_CFI_MAX_COLUMNS = 128 };

/* The caller's registers as the unwind rules recovered them. Columns are
 * DWARF register numbers. A column is either recovered (bit set in
 * `known`, value in v[]), explicitly undefined (bit set in `undefined`:
 * the caller has no value for it), or untouched (neither: the ABI's
 * callee-saved rule applies, the provider keeps the callee's value). */
struct sw_unwind_result {
	uint64_t cfa;                 /* the canonical frame address */
	uint64_t v[SW_CFI_MAX_COLUMNS];
	uint64_t known[SW_CFI_MAX_COLUMNS / 64];
	uint64_t undefined[SW_CFI_MAX_COLUMNS / 64];
	uint32_t ra_column;           /* the return-address column */
	bool signal_frame;            /* CIE augmentation 'S': the caller is an
	                                 interrupted context, its pc is exact */
	bool ra_signed;               /* arm64: the return address carries a
	                                 pointer-authentication signature
	                                 (DW_CFA_AARCH64_negate_ra_state) */
	/* ART: the DEX pc the frame's interpreter was executing, from a
	 * rule tagged "DEX1" (dwarf_cfi_program.c is_dex_pc_rule); 0: none. */
	uint64_t dex_pc;
	/* The row that gave the result, as --explain prints it (DWARF CFI
	 * only; cfa NONE: not known): the CFA rule, the return address's
	 * rule (ra_value: the offset or DWARF register it names) and the
	 * FDE's range in file addresses. */
	struct {
		enum sw_row_cfa { SW_ROW_CFA_NONE, SW_ROW_CFA_REG, SW_ROW_CFA_EXPR } cfa;
		enum sw_row_ra {
			SW_ROW_RA_DEFAULT,   /* no rule: the ABI's */
			SW_ROW_RA_AT_CFA,    /* saved at CFA + ra_value */
			SW_ROW_RA_CFA_PLUS,  /* the value CFA + ra_value */
			SW_ROW_RA_REGISTER,  /* in DWARF register ra_value */
			SW_ROW_RA_SAME,      /* unchanged */
			SW_ROW_RA_EXPR,      /* an expression's */
		} ra;
		uint64_t cfa_reg;
		int64_t cfa_offset;
		int64_t ra_value;
		uint64_t pc_begin, pc_end;
	} row;
};

static inline bool sw_unwind_known(const struct sw_unwind_result *r, uint32_t col)
{
	return col < SW_CFI_MAX_COLUMNS && (r->known[col / 64] >> (col % 64) & 1);
}

static inline bool sw_unwind_undefined(const struct sw_unwind_result *r, uint32_t col)
{
	return col < SW_CFI_MAX_COLUMNS && (r->undefined[col / 64] >> (col % 64) & 1);
}

static inline void sw_unwind_set(struct sw_unwind_result *r, uint32_t col, uint64_t value)
{
	if (col >= SW_CFI_MAX_COLUMNS)
		return;
	r->v[col] = value;
	r->known[col / 64] |= (uint64_t)1 << (col % 64);
	r->undefined[col / 64] &= ~((uint64_t)1 << (col % 64));
}

static inline void sw_unwind_set_undefined(struct sw_unwind_result *r, uint32_t col)
{
	if (col >= SW_CFI_MAX_COLUMNS)
		return;
	r->undefined[col / 64] |= (uint64_t)1 << (col % 64);
	r->known[col / 64] &= ~((uint64_t)1 << (col % 64));
}

/* Every evaluator answers one of these (mapped by the provider onto
 * enum sw_unwind_status). */
enum sw_cfi_status {
	SW_CFI_NO_RULE = 0,  /* nothing covers the pc: try the next source */
	SW_CFI_OK,           /* *result filled */
	SW_CFI_END,          /* the rules say there is no caller: the return
	                        address column is undefined (DWARF 5 §6.4.4),
	                        EXIDX_CANTUNWIND, an EHABI "refuse to unwind" */
	SW_CFI_FAILED,       /* a rule covers the pc but could not be evaluated
	                        (memory not captured, a malformed program, a step
	                        budget exhausted) */
};

#endif
