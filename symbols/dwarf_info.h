/* DWARF 2-5 debugging information entries read straight from the
 * sections' bytes: unit headers (DWARF 5 §7.5.1), abbreviation tables
 * (§7.5.3), attribute values by form (§7.5.5), indexed strings and
 * addresses (§7.26, §7.27), range lists (.debug_ranges of DWARF 2-4,
 * .debug_rnglists of 5: §2.17.3, §7.28). Only what naming frames needs:
 * a DIE's tag and place in the tree, its names, the DIEs it refers to, its
 * pcs and ranges, its call file and line. Every other attribute is skipped
 * by its form's size.
 *
 * Our own reader rather than libdwarf's: libdwarf allocates an object for
 * every DIE, attribute and line row (a 165 KB unit cost 20-40 ms and most
 * of a walk's memory), while reading the bytes in place costs ~1 ms per
 * such unit and nothing but the compact arrays kept (see dwarf_lines.h).
 * Internal to dwarf_lines*.c and their tests. */
#ifndef SW_SYMBOLS_DWARF_INFO_H
#define SW_SYMBOLS_DWARF_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf_cursor.h"
#include "dwarf_lines.h"
#include "lib/span.h"

/* A unit header (§7.5.1), plus the bases its unit DIE sets. */
struct dw_cu {
	uint64_t off;              /* the header, in .debug_info */
	uint64_t end;              /* one past the unit */
	uint64_t die_off;          /* its first DIE */
	uint64_t abbrev_off;
	uint16_t version;
	uint8_t unit_type;         /* SW_DW_UT_*; compile before DWARF 5 */
	uint8_t addr_size;         /* 1..8 */
	uint8_t offset_size;       /* 4 or 8 (64-bit DWARF) */
	uint64_t str_offsets_base, addr_base, rnglists_base;
	uint64_t base;             /* the unit's DW_AT_low_pc: base of its ranges */
};

/* The initial length of a unit or table (§7.4): 32-bit, or 0xffffffff
 * then 64-bit. Sets *offset_size; 0 when damaged or a reserved value. */
uint64_t dw_initial_length(struct sw_dcur *c, uint8_t *offset_size);
/* The NUL-terminated string at `off` of sec (possibly empty); NULL when it
 * runs past the section. */
const char *dw_section_string(struct sw_span sec, uint64_t off);
/* The string at the cursor (DW_FORM_string), the cursor moved past its
 * NUL; NULL and `bad` when it runs past the span. */
const char *dw_inline_string(struct sw_dcur *c);
/* A copy (malloc) of the string at `off` of sec; NULL when it is empty,
 * runs past the section, or out of memory. When m (the file the section
 * lies in, or NULL) is given, the string is read from the file
 * (sw_mapped_strnlen, sw_mapped_peek), not through the mapping: strings
 * are read one at a time at places all over .debug_str, and reading them
 * through the mapping would keep most of the section resident (the
 * kernel maps a 64 KiB window around every page read; around a small
 * section such as .debug_line_str, the sections next to it). */
struct sw_mapped_file;
char *dw_section_string_dup(struct sw_span sec, const struct sw_mapped_file *m, uint64_t off);

/* Reads the unit header at `off`; false when it is not a whole, known
 * header (version 2-5, address size 1-8) inside .debug_info. The bases
 * are those DWARF 5 assumes until the unit DIE is read (§7.27: a
 * .debug_str_offsets contribution starts after its 8- or 16-byte header). */
bool dw_cu_read(const struct sw_dwarf_sections *s, uint64_t off, struct dw_cu *cu);

/* An abbreviation table (§7.5.3): declarations in one array, their
 * attribute specifications in another. by_code[c] is the declaration of
 * code c when codes are small (GCC and clang number them 1..n), else the
 * table is searched. */
struct dw_attr_spec {
	uint16_t name, form;
	int64_t implicit_const;
};
struct dw_abbrev {
	uint64_t code;
	uint16_t tag;
	bool children;
	uint32_t first, count;     /* specs[first, first + count) */
};
struct dw_abbrevs {
	struct dw_abbrev *decls;
	size_t ndecls;
	struct dw_attr_spec *specs;
	size_t nspecs;
	uint32_t *by_code;         /* index + 1, 0: none */
	size_t ncodes;
};

/* Parses the table at `off` of .debug_abbrev. False (nothing allocated)
 * when it is damaged or out of memory. */
bool dw_abbrevs_read(const struct sw_dwarf_sections *s, uint64_t off, struct dw_abbrevs *out);
void dw_abbrevs_free(struct dw_abbrevs *ab);

/* One DIE: the attributes naming frames needs (has: which are present). */
enum {
	DW_HAS_LOW_PC = 1u << 0, DW_HAS_HIGH_PC = 1u << 1, DW_HAS_RANGES = 1u << 2,
	DW_HAS_CALL_FILE = 1u << 3, DW_HAS_CALL_LINE = 1u << 4, DW_HAS_STMT_LIST = 1u << 5,
	DW_HAS_DECLARATION = 1u << 6,
};
struct dw_die {
	uint64_t off;              /* global offset in .debug_info */
	uint64_t next;             /* where its children (or next sibling) start */
	uint16_t tag;              /* 0: a null entry (end of siblings) */
	bool children;
	uint32_t has;
	uint64_t low_pc, high_pc;  /* high_pc already low_pc + length when a constant */
	uint16_t ranges_form;
	uint64_t ranges;           /* offset or rnglistx index */
	uint64_t call_file, call_line, stmt_list;
	uint64_t sibling;          /* global offset, 0: none */
	uint64_t spec, origin;     /* global offsets, 0: none */
	/* Strings as references (section and offset), read with
	 * dw_string_dup only when used: most DIEs' names never are. 0: none. */
	uint64_t name, linkage, comp_dir;
};

/* A copy of the string a reference names (dw_section_string_dup); NULL
 * when it is none, empty, runs past its section, or out of memory. */
char *dw_string_dup(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                    uint64_t ref);

/* Reads the DIE at global offset `off` of unit cu. A unit DIE's
 * DW_AT_str_offsets_base, DW_AT_addr_base and DW_AT_rnglists_base are
 * stored into cu first, so that its own indexed forms resolve. False when
 * the DIE is damaged (an unknown form or abbreviation code, bytes past the
 * unit). */
bool dw_die_read(const struct sw_dwarf_sections *s, struct dw_cu *cu, const struct dw_abbrevs *ab,
                 uint64_t off, struct dw_die *die);
/* The same, for one DIE read again at lookup time, long after its unit's
 * pages were given back: its bytes (and indexed strings and addresses)
 * are read from the file m (sw_mapped_peek), which does not map them
 * again; m NULL: copied from the sections. */
bool dw_die_peek(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                 struct dw_cu *cu, const struct dw_abbrevs *ab, uint64_t off, struct dw_die *die);

/* Skips the children of a DIE whose children start at `off`: the offset
 * past their null entry, 0 when damaged. */
uint64_t dw_skip_children(const struct sw_dwarf_sections *s, struct dw_cu *cu,
                          const struct dw_abbrevs *ab, uint64_t off, int depth_left);

/* [lo, hi) pairs, growing by realloc. */
struct dw_pairs {
	uint64_t *v;               /* lo, hi, lo, hi ... */
	size_t n, cap;             /* in pairs */
};
/* A DIE's address ranges (§2.17): low/high pc, or DW_AT_ranges in
 * .debug_ranges (version <= 4) or .debug_rnglists (5), appended to out.
 * Empty ranges are dropped. False only when out of memory. */
bool dw_die_ranges(const struct sw_dwarf_sections *s, const struct dw_cu *cu,
                   const struct dw_die *die, struct dw_pairs *out);

/* .debug_aranges (§6.1.2): each set's unit header offset and ranges,
 * passed to fn; stops at the first damaged set. */
void dw_aranges_each(const struct sw_dwarf_sections *s,
                     void (*fn)(void *ctx, uint64_t unit_off, uint64_t lo, uint64_t hi),
                     void *ctx);

/* ---- the line table (line_program.c) ------------------------------------ */

/* A line program's header (§6.2.4), as a lookup needs it to run the
 * program from a checkpoint. */
struct dw_line_header {
	uint64_t program, end;     /* the opcodes: [program, end) of .debug_line */
	uint8_t min_inst_length;
	uint8_t default_is_stmt;
	int8_t line_base;
	uint8_t line_range;
	uint8_t opcode_base;
	uint8_t *std_lengths;      /* standard_opcode_lengths (opcode_base - 1), a copy */
	uint8_t addr_size;
	uint16_t version;
};

/* A row of the line table: an address and the file (index into the
 * program's file table) and line there. */
struct dw_row {
	uint64_t addr;
	uint32_t file;
	uint32_t line;
};

/* A place to restart the line program: the row it had just emitted and
 * the position of the next opcode. */
struct dw_ckpt {
	uint64_t addr;
	uint64_t pos;
	uint32_t file, line;
};

/* A sequence (§6.2.2): rows at increasing addresses in [lo, hi), its
 * checkpoints ckpts[first, first + count) (the first is its first row),
 * `end` the offset past its DW_LNE_end_sequence. */
struct dw_seq {
	uint64_t lo, hi;
	uint64_t end;
	uint32_t first, count;
};

/* One unit's line table, read once: its header, the full path of every
 * file of its file table (pool offsets of `pool`), its sequences sorted by
 * lo, and a checkpoint every DW_CKPT_EVERY rows, so that a lookup runs at
 * most that many rows instead of keeping all of them (a 1.3 MB
 * .debug_line holds ~420,000 rows: 6.7 MB as an array, 0.16 MB as
 * checkpoints). A lookup decodes a copy of the ~200 bytes between two
 * checkpoints: 64 rows cost it no measurable time, and halve the
 * checkpoints of 32 (gen48k: 0.47 MB less). */
enum { DW_CKPT_EVERY = 64 };
struct dw_lines {
	struct dw_line_header h;
	uint32_t *files;           /* pool offsets, 0: unknown */
	size_t nfiles;
	bool files_from_zero;      /* DWARF 5: file 0 is the primary file */
	struct dw_seq *seqs;
	size_t nseqs;
	struct dw_ckpt *ckpts;
	size_t nckpts;
};

struct dw_pool;
/* Reads the line table at `off` of .debug_line; comp_dir (may be NULL)
 * makes relative directories whole, as dump_syms does. Paths in
 * .debug_line_str or .debug_str are read from the file m when given
 * (dw_section_string_dup). Sequences at address 0 (code the linker
 * discarded) are dropped. False when out of memory; a damaged program
 * keeps the sequences before the damage. */
bool dw_lines_read(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m, uint64_t off,
                   const char *comp_dir, struct dw_pool *pool, struct dw_lines *out);
void dw_lines_free(struct dw_lines *l);
/* The pool offset of the path of file `raw` of the program's file table
 * (DWARF <= 4 numbers files from 1, 0 meaning none; 5 from 0); 0 when
 * unknown. */
uint32_t dw_lines_file(const struct dw_lines *l, uint64_t raw);
/* The row covering vaddr: the last one at or below it in the sequence
 * that holds vaddr. False when no sequence holds it. The program is run
 * from the checkpoint below vaddr over a copy of its bytes up to the next
 * checkpoint, read from the file m when given (sw_mapped_peek): a few
 * thousand lookups at places all over .debug_line would otherwise map
 * most of it again (64 KiB around every page read). */
bool dw_lines_find(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                   const struct dw_lines *l, uint64_t vaddr, struct dw_row *out);

#endif
