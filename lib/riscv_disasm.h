/* RISC-V instructions as text, with what they touch (lib/riscv_disasm.c):
 * the crashing instruction's decoder for the CPU Capstone 4 lacks
 * (lib/disasm.c). */
#ifndef SW_ARCH_RISCV_DISASM_H
#define SW_ARCH_RISCV_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One decoded instruction. Registers are x numbers (0-31). */
struct sw_rv_insn {
	unsigned len;             /* 2 (compressed) or 4 bytes */
	char text[64];            /* "sd ra, 8(sp)", GNU's mnemonics and aliases */
	/* A load, store or atomic: at x[base] + offset, size bytes. */
	bool loads, stores;
	unsigned size, base;
	int64_t offset;
	/* A jump through a register (jalr, c.jr, c.jalr): to
	 * (x[jump_reg] + jump_offset) & ~1. */
	bool jumps_through;
	unsigned jump_reg;
	int64_t jump_offset;
};

/* The instruction at code[0] (len bytes, little-endian: RISC-V's
 * instruction parcels are), at address pc, for RV64 (rv64) or RV32: the
 * base integer set, M, A, the F and D loads and stores, Zicsr, Zifencei
 * and C. False for anything else (F/D arithmetic, vector, reserved
 * encodings) or too few bytes: nothing is said, never a guess. */
bool sw_riscv_decode(const uint8_t *code, size_t len, uint64_t pc, bool rv64,
                     struct sw_rv_insn *out);

/* The ABI name of integer register r (0-31): "zero", "ra", "sp", ... */
const char *sw_riscv_reg_name(unsigned r);

#endif
