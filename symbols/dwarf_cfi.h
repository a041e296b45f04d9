/* DWARF call frame information: .eh_frame (with .eh_frame_hdr) and
 * .debug_frame. Our own parser rather than libdwarf's frame interface: an
 * unwind needs one FDE, found by binary search in .eh_frame_hdr's table
 * without parsing the section (libdwarf's dwarf_get_fde_list_eh parses
 * and allocates every CIE and FDE up front), and its rules must be
 * evaluated against the snapshot's registers and memory, which libdwarf
 * cannot reach.
 *
 * Spec: DWARF 5 §6.4 (Call Frame Information), the LSB's .eh_frame and
 * .eh_frame_hdr chapters (pointer encodings DW_EH_PE_*, augmentation
 * strings "zR", "zPLR", "S", "B"), and the GNU/AArch64 extensions
 * (DW_CFA_GNU_args_size, DW_CFA_GNU_negative_offset_extended,
 * DW_CFA_GNU_window_save = DW_CFA_AARCH64_negate_ra_state on arm64). */
#ifndef SW_SYMBOLS_DWARF_CFI_H
#define SW_SYMBOLS_DWARF_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_io.h"

struct sw_mapped_file;

/* One CFI section as loaded: its bytes and the virtual address of its
 * first byte (sh_addr; for .debug_frame, which is not loaded, sh_addr is
 * usually 0 and FDE addresses are absolute). */
struct sw_cfi_section {
	const uint8_t *data;
	uint64_t size;
	uint64_t vaddr;
};

struct sw_cfi_params {
	uint8_t address_size;        /* 4 or 8 (the ELF class) */
	bool big_endian;
	/* The ELF machine (EM_*): selects what DW_CFA_GNU_window_save means
	 * (negate_ra_state on EM_AARCH64) and the default return-address
	 * register for CIEs of version 1. */
	uint16_t machine;
	/* Added to DW_OP_addr operands in expressions: where the module was
	 * loaded relative to its link-time addresses. */
	uint64_t load_bias;
	/* The mapped file the sections lie in, or NULL (bytes in memory). A
	 * lookup then copies the few entries it needs out of the file
	 * (sw_mapped_peek) instead of reading them through the mapping, and
	 * the pages sw_cfi_create read are given back: a walk looks up
	 * thousands of FDEs at random places, and each read through a file
	 * mapping maps the kernel's 64 KiB fault-around window, which would
	 * keep nearly the whole section resident. */
	const struct sw_mapped_file *file;
};

struct sw_cfi;

/* Indexes .eh_frame (is_eh_frame, with `hdr` = .eh_frame_hdr when present
 * and usable: sorted table, a supported encoding, entries that point
 * inside .eh_frame) or .debug_frame (hdr NULL). With no usable table the
 * FDEs are listed once into a sorted array of (start, end, offset). NULL
 * when out of memory or the section is unusable. The section bytes must
 * outlive the index. The index keeps copies of the entries its last
 * lookup read: it is not to be used by two threads at once. */
struct sw_cfi *sw_cfi_create(const struct sw_cfi_section *frame, bool is_eh_frame,
                             const struct sw_cfi_section *hdr,
                             const struct sw_cfi_params *p);
void sw_cfi_free(struct sw_cfi *c);

/* Is there an FDE covering vaddr? */
bool sw_cfi_covers(const struct sw_cfi *c, uint64_t vaddr);

/* Finds the FDE covering `vaddr` (an ELF virtual address: the callee's pc,
 * or its call site for callers), runs its CIE's initial instructions and
 * its own up to vaddr, and evaluates the rules: the CFA (register+offset
 * or DW_CFA_def_cfa_expression), then each register (offset, val_offset,
 * register, expression, val_expression, same_value, undefined). Registers
 * and memory come through io in the process's addresses; only vaddr (and
 * the FDE ranges it is compared with) are ELF addresses. CFI programs and
 * expressions run under step budgets. */
enum sw_cfi_status sw_cfi_unwind(const struct sw_cfi *c, uint64_t vaddr,
                                 const struct sw_unwind_io *io,
                                 struct sw_unwind_result *out);

#endif
