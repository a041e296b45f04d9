/* Shared by dwarf_cfi.c (CIE/FDE parsing and the FDE index),
 * dwarf_cfi_program.c (the CFA instruction interpreter and the rules'
 * evaluation) and dwarf_expr.c (the DW_OP stack machine), and by their
 * tests: a cursor over a span with DWARF's variable-length readers, the
 * parsed CIE and FDE, and the rule set a CFI program leaves at a pc. */
#ifndef SW_SYMBOLS_DWARF_CFI_INTERNAL_H
#define SW_SYMBOLS_DWARF_CFI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf_cfi.h"
#include "dwarf_cursor.h"
#include "dwarf_expr.h"
#include "lib/span.h"

/* ---- DW_EH_PE_* pointer encodings (LSB, "DWARF Extensions": .eh_frame). */

enum {
	SW_PE_ABSPTR = 0x00, SW_PE_ULEB128 = 0x01, SW_PE_UDATA2 = 0x02,
	SW_PE_UDATA4 = 0x03, SW_PE_UDATA8 = 0x04, SW_PE_SIGNED = 0x08,
	SW_PE_SLEB128 = 0x09, SW_PE_SDATA2 = 0x0a, SW_PE_SDATA4 = 0x0b,
	SW_PE_SDATA8 = 0x0c,
	SW_PE_PCREL = 0x10, SW_PE_TEXTREL = 0x20, SW_PE_DATAREL = 0x30,
	SW_PE_FUNCREL = 0x40, SW_PE_ALIGNED = 0x50,
	SW_PE_INDIRECT = 0x80, SW_PE_OMIT = 0xff,
};

/* The bases an encoded pointer may be relative to. `section_vaddr` is the
 * address of the span's first byte (pcrel = section_vaddr + position);
 * has_* false makes that application unusable. */
struct sw_pe_bases {
	uint64_t section_vaddr;
	uint64_t datarel;
	uint64_t funcrel;
	bool has_datarel, has_funcrel;
	uint8_t address_size;
};

/* Reads one pointer in `enc` at the cursor. False (cursor moved past the
 * field when its size is known) when the encoding is unknown, needs a base
 * we do not have (textrel; datarel outside .eh_frame_hdr), or is indirect
 * (the pointer lives in target memory: only the personality uses it, and
 * that is skipped with sw_pe_skip). The value is wrapped to
 * address_size. */
bool sw_pe_read(struct sw_dcur *c, uint8_t enc, const struct sw_pe_bases *b, uint64_t *out);
/* Steps over a pointer in `enc` without resolving it; DW_EH_PE_aligned
 * counts from the section's start, at span_offset before the span's. */
bool sw_pe_skip(struct sw_dcur *c, uint8_t enc, uint8_t address_size, uint64_t span_offset);
/* Byte size of a fixed-size encoding's value (0 for LEB128 or unknown). */
unsigned sw_pe_size(uint8_t enc, uint8_t address_size);

static inline uint64_t sw_addr_mask(uint8_t address_size)
{
	return address_size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * address_size)) - 1;
}

/* ---- Parsed entries. */

struct sw_cfi_cie {
	uint64_t offset;            /* of its length field in the section */
	uint8_t version;
	uint8_t address_size;       /* v4's field, else the ELF class's */
	uint8_t segment_size;
	uint8_t fde_enc;            /* 'R', DW_EH_PE_absptr without it */
	uint8_t lsda_enc;           /* 'L', DW_EH_PE_omit without it */
	bool has_z;                 /* 'z': FDEs carry augmentation data */
	bool signal_frame;          /* 'S' */
	bool b_key;                 /* 'B': arm64 return addresses signed with the B key */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_column;
	uint64_t insns, insns_end;  /* initial instructions: section offsets */
};

struct sw_cfi_fde {
	uint64_t offset;
	uint64_t cie_offset;
	uint64_t pc_begin, pc_end;  /* [pc_begin, pc_end) */
	uint64_t insns, insns_end;
};

/* One index record (the FDE list built when .eh_frame_hdr is missing or
 * unusable, and always for .debug_frame). */
struct sw_cfi_range {
	uint64_t begin, end, fde;
};

/* Bytes [base, base + s.size) of the section: the whole of it in place
 * (the passes of sw_cfi_create), or one entry copied out by a lookup.
 * Cursors over a window count from its first byte; parsed offsets
 * (sw_cfi_cie.insns, ...) are section offsets, base + position. */
struct sw_cfi_window {
	struct sw_span s;
	uint64_t base;
};

/* What lookups copied out of the section (dwarf_cfi.c). */
struct sw_cfi_copies;

/* .eh_frame_hdr's entries kept in memory (dwarf_cfi.c). */
struct sw_cfi_hdr_index;

struct sw_cfi {
	struct sw_span frame;       /* the section, in the ELF's byte order */
	uint64_t frame_vaddr;
	bool is_eh;
	struct sw_cfi_params p;
	/* .eh_frame_hdr's binary-search table, when usable. */
	struct sw_span hdr;
	uint64_t hdr_vaddr;
	uint64_t hdr_table;         /* offset of the first entry in hdr */
	uint64_t hdr_count;
	uint8_t hdr_enc;
	unsigned hdr_entry_size;    /* one value; an entry is two */
	bool use_hdr;
	/* Its entries, compactly, for lookups (dwarf_cfi.c). */
	struct sw_cfi_hdr_index *hdr_index;
	/* Otherwise: sorted by begin. */
	struct sw_cfi_range *ranges;
	size_t nranges;
	/* The entries the last lookup copied: rules hold pointers into them
	 * (expression operands), valid until the next lookup. */
	struct sw_cfi_copies *copies;
};

/* A window holding the whole entry at `off` (a CIE or an FDE), copied
 * out of the section (or the copy a parse just made). False when the
 * entry is malformed or memory is short. */
bool sw_cfi_entry_window(const struct sw_cfi *c, uint64_t off, bool is_cie,
                         struct sw_cfi_window *out);
/* A cursor over w at section offset `at` that reads no further than
 * section offset `end`; false when [at, end) is not all in w. */
bool sw_cfi_window_cursor(const struct sw_cfi_window *w, uint64_t at, uint64_t end,
                          struct sw_dcur *d);

/* Parses the CIE at `off`. */
bool sw_cfi_parse_cie(const struct sw_cfi *c, uint64_t off, struct sw_cfi_cie *cie);
/* Parses the entry at `off` as an FDE (with its CIE). False for a CIE, a
 * terminator or a malformed entry. */
bool sw_cfi_parse_fde(const struct sw_cfi *c, uint64_t off, struct sw_cfi_fde *fde,
                      struct sw_cfi_cie *cie);
/* The FDE covering vaddr (through the hdr table or the built index). */
bool sw_cfi_find_fde(const struct sw_cfi *c, uint64_t vaddr, struct sw_cfi_fde *fde,
                     struct sw_cfi_cie *cie);
/* Whether sw_cfi_create accepted .eh_frame_hdr's table. */
bool sw_cfi_uses_hdr(const struct sw_cfi *c);

/* ---- Rules (DWARF 5 §6.4.1). */

enum sw_cfi_rule_kind {
	SW_RULE_UNSET = 0,      /* no rule: the ABI's default applies */
	SW_RULE_UNDEFINED,
	SW_RULE_SAME_VALUE,
	SW_RULE_OFFSET,         /* saved at CFA + n */
	SW_RULE_VAL_OFFSET,     /* the value is CFA + n */
	SW_RULE_REGISTER,       /* in register n */
	SW_RULE_EXPRESSION,     /* saved at the expression's result */
	SW_RULE_VAL_EXPRESSION, /* the value is the expression's result */
};

struct sw_cfi_rule {
	uint8_t kind;
	uint32_t expr_len;
	union {
		int64_t offset;
		uint64_t reg;
		const uint8_t *expr;
	} u;
};

enum sw_cfa_kind { SW_CFA_UNSET = 0, SW_CFA_REG_OFFSET, SW_CFA_EXPRESSION };

struct sw_cfa_rule {
	uint8_t kind;
	uint32_t expr_len;
	uint64_t reg;
	int64_t offset;
	const uint8_t *expr;
};

/* One row of the table: what a CFI program leaves at a pc. */
struct sw_cfi_row {
	struct sw_cfa_rule cfa;
	struct sw_cfi_rule col[SW_CFI_MAX_COLUMNS];
	bool ra_signed;             /* DW_CFA_AARCH64_negate_ra_state parity */
	uint64_t args_size;         /* DW_CFA_GNU_args_size */
};

struct sw_cfi_rules {
	struct sw_cfi_row row;
	uint64_t ra_column;
	bool signal_frame;
	struct sw_cfi_fde fde;
	struct sw_cfi_cie cie;
};

/* Step budget of one CFI program run (CIE and FDE instructions). */
enum { SW_CFI_STEP_BUDGET = 1000000, SW_CFI_STATE_DEPTH = 64 };

/* Runs the CIE's and the FDE's instructions up to vaddr. SW_CFI_NO_RULE
 * when no FDE covers vaddr, SW_CFI_FAILED for a malformed program or one
 * over budget. Expression rules point into c's copies of the entries:
 * valid until the next lookup in c. */
enum sw_cfi_status sw_cfi_rules_at(const struct sw_cfi *c, uint64_t vaddr,
                                   struct sw_cfi_rules *out);
/* The same for a known FDE. */
enum sw_cfi_status sw_cfi_run_program(const struct sw_cfi *c, const struct sw_cfi_fde *fde,
                                      const struct sw_cfi_cie *cie, uint64_t vaddr,
                                      struct sw_cfi_rules *out);

/* sw_dwarf_expr_eval with the load bias DW_OP_addr operands need. */
enum sw_expr_status sw_dwarf_expr_eval_biased(const uint8_t *expr, size_t len,
                                              const struct sw_unwind_io *io, uint64_t load_bias,
                                              bool has_push, uint64_t push, uint64_t *result);

enum { SW_EXPR_STEP_BUDGET = 10000, SW_EXPR_STACK = 64 };

#endif
