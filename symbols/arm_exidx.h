/* ARM EHABI unwinding: .ARM.exidx (a sorted table of prel31 function
 * starts) and .ARM.extab (personality data), as armhf's libc and Android's
 * arm libraries carry them instead of .eh_frame. Spec: "Exception Handling
 * ABI for the Arm Architecture" (EHABI, IHI 0038), §6 (the index table),
 * §7 (the generic model), §9 (the ARM-defined personality routines' unwind
 * instructions, Su16 / Lu16 / Lu32), §10.3 (the instruction encodings). */
#ifndef SW_SYMBOLS_ARM_EXIDX_H
#define SW_SYMBOLS_ARM_EXIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_io.h"

struct sw_exidx_sections {
	const uint8_t *exidx;       /* .ARM.exidx bytes */
	uint64_t exidx_size;
	uint64_t exidx_vaddr;       /* its sh_addr */
	const uint8_t *extab;       /* .ARM.extab bytes, or NULL */
	uint64_t extab_size;
	uint64_t extab_vaddr;
	/* The end of the code the table describes (the end of .text or of
	 * the executable PT_LOAD): the last entry covers up to it. 0 when
	 * unknown: the last entry then covers everything above its start, as
	 * in libunwindstack (linkers close the table with an EXIDX_CANTUNWIND
	 * sentinel at the end of .text, so this rarely matters). */
	uint64_t text_end;
	bool big_endian;
};

/* Is there an index entry covering vaddr? (vaddr: ELF address, Thumb bit
 * clear.) */
bool sw_exidx_covers(const struct sw_exidx_sections *s, uint64_t vaddr);

/* The start of the index entry covering vaddr (the function it was made
 * for begins there) and whether it is EXIDX_CANTUNWIND; false when no
 * entry covers vaddr. An entry reaches up to the next one: GNU ld merges
 * adjacent EXIDX_CANTUNWIND entries and gives code without unwind
 * information one (elf32-arm.c, elf32_arm_fix_exidx_coverage), so one
 * entry may cover many functions that are not its own; the caller bounds
 * it by what else it knows (symbols). */
bool sw_exidx_entry_start(const struct sw_exidx_sections *s, uint64_t vaddr, uint64_t *start,
                          bool *cantunwind);

/* Unwinds the frame at ELF address vaddr: finds the index entry (binary
 * search), decodes its inline or .ARM.extab instructions (compact models
 * Su16, Lu16, Lu32; for a generic personality routine such as
 * __gxx_personality_v0 / __gcc_personality_v0, the ARM-defined
 * instructions libgcc's routines read after the personality word) and
 * executes them from the callee's registers (read through io as DWARF
 * registers 0-15 = r0-r15): vsp starts at sp, pops read memory, "finish"
 * ends. The result holds r0-r15 (DWARF columns 0-15) as recovered, sp (13)
 * = the final vsp (also the cfa), and pc (15) = the popped pc, else the
 * recovered (or the callee's) lr: the caller's pc, Thumb bit as stored.
 * ra_column is 15: column 15 always holds the caller's pc on SW_CFI_OK.
 * Registers the instructions do not pop are left untouched (the callee's
 * values stand). vaddr is the callee's exact pc for the innermost frame,
 * a call-site address (return address - 2 or - 4) for callers, so that a
 * call that ends a function finds that function's entry. EXIDX_CANTUNWIND
 * and "refuse to unwind" answer SW_CFI_END: no unwinding through here,
 * which says nothing about a caller (what it means for a walk is the
 * caller's to decide). The instructions run under a step budget. */
enum sw_cfi_status sw_exidx_unwind(const struct sw_exidx_sections *s, uint64_t vaddr,
                                   const struct sw_unwind_io *io,
                                   struct sw_unwind_result *out);

#endif
