/* The crashing instruction as text: Capstone (Debian's libcapstone 4)
 * decodes it for every CPU it knows (crash_info.instruction, the text
 * output's "Crash instruction:" line). */
#ifndef SW_DISASM_H
#define SW_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* The instruction at pc, whose bytes begin code[0] (len of them, in the
 * snapshot's byte order; `thumb`: an ARM thread in Thumb state), as
 * "mnemonic operands" in the CPU's usual assembler syntax (Intel's on
 * x86, as rust-minidump's and Capstone's), into out (n bytes). False
 * when the CPU has no decoder here (RISC-V, SPARC) or the bytes decode to
 * no instruction: then nothing is said, never a guess. */
bool sw_disassemble(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                    const uint8_t *code, size_t len, char *out, size_t n);

#endif
