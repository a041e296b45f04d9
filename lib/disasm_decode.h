/* Capstone's side of lib/disasm.c, shared with the files that read more
 * of a decoded instruction (lib/insn_facts.c). Internal: libstackwalk's
 * own files only. */
#ifndef SW_DISASM_DECODE_H
#define SW_DISASM_DECODE_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "disasm.h"

/* Capstone's architecture and mode for a CPU; false where it has none. */
bool sw_cs_mode(enum sw_cpu cpu, bool big_endian, bool thumb, cs_arch *arch, cs_mode *mode);

/* One instruction decoded with Capstone's detail (the operands): hand it
 * to sw_cs_done after use. */
struct sw_cs_decoded {
	csh h;
	cs_insn *insn;
	cs_arch arch;
};
bool sw_cs_decode(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc, const uint8_t *code,
                  size_t len, struct sw_cs_decoded *d);
void sw_cs_done(struct sw_cs_decoded *d);

/* A register's value as an operand names it (x86's 32-bit names in
 * 64-bit code and arm64's w registers: the low half of the wide one;
 * ARM's sb, sl, fp, ip; xzr and wzr: 0). */
bool sw_cs_reg_value(csh h, unsigned r, sw_reg_by_name reg, void *ctx, uint64_t *v);

#endif
