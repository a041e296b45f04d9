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

/* A memory access of an instruction (crash_info.memory_accesses). */
struct sw_mem_access {
	uint64_t address;
	uint8_t size;        /* bytes */
	bool write;          /* else a read */
	/* The base register the operand names held 0: a null pointer plus an
	 * offset (rust-minidump's is_likely_null_pointer_dereference; MIPS's
	 * $zero and PowerPC's r0 as a base are absolute addresses, not this). */
	bool null_base;
};

/* A register's value by the name Capstone gives it ("rax", "eax",
 * "esp"), false when the frame does not know it. */
typedef bool (*sw_reg_by_name)(void *ctx, const char *name, uint64_t *value);

/* The memory the instruction at pc reads and writes, each operand's
 * effective address from the frame's registers: explicit operands (base
 * + index * scale + displacement, rip-relative from the next instruction,
 * cut to the address size; string instructions' two), and the stack
 * slots push, call, pop and ret use; arm64's loads, stores, pairs and
 * atomics (base + extended, shifted index + offset; post-index: the base).
 * At most max into out; the count, or -1 when not known: no decoder for
 * the CPU (x86, amd64 and arm64 so far),
 * a register not known, an fs/gs-relative operand (its base is not in the
 * context), or bytes that decode to no instruction. 0: none (lea, a
 * register-only instruction). */
int sw_memory_accesses(enum sw_cpu cpu, uint64_t pc, const uint8_t *code, size_t len,
                       sw_reg_by_name reg, void *ctx, struct sw_mem_access *out, unsigned max);
/* The same for code in either byte order (the snapshot's) and ARM's
 * instruction set (thumb: CPSR.T): MIPS's and PowerPC's loads and stores
 * at offset(base), sized by the mnemonic (an indexed PowerPC form, lwzx,
 * is not known); ARM's and Thumb's loads and stores, LDM/STM and
 * PUSH/POP over their register lists (a pc-relative load is not known);
 * SPARC and RISC-V: -1. */
int sw_memory_accesses_in(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                          const uint8_t *code, size_t len, sw_reg_by_name reg, void *ctx,
                          struct sw_mem_access *out, unsigned max);

/* A register an instruction uses, with the frame's value of it. */
struct sw_reg_use {
	const char *name;       /* Capstone's name ("rax", "x1", "a0") */
	uint64_t value;
};

/* The registers the instruction at pc computes its memory addresses from
 * (each memory operand's base and index) or jumps through (call/jmp/br/
 * blr/ret's register), each once, with their values; those the frame does
 * not know are left out. At most max; the count (0: none, or not known). */
unsigned sw_address_registers(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                              const uint8_t *code, size_t len, sw_reg_by_name reg, void *ctx,
                              struct sw_reg_use *out, unsigned max);

/* Reads a word of `size` bytes at addr from the snapshot's memory, in its
 * byte order; false when not captured. */
typedef bool (*sw_word_at)(void *ctx, uint64_t addr, unsigned size, uint64_t *value);

/* Where the instruction at pc sends the pc (rust-minidump's
 * instruction_pointer_update): a call or jump through a register (its
 * value) or through memory (the word there, when captured), a return
 * (the word at sp); arm64's br, blr and ret; RISC-V's jalr (jr, ret).
 * Direct calls and jumps name their own target and are not reported
 * (rust-minidump's rule). False when not known or not such an
 * instruction. */
bool sw_instruction_pointer_update(enum sw_cpu cpu, uint64_t pc, const uint8_t *code, size_t len,
                                   sw_reg_by_name reg, sw_word_at word, void *ctx,
                                   uint64_t *target);
/* The same for code in either byte order and ARM's instruction set
 * (thumb): also ARM's and Thumb's bx/blx through a register, mov pc,
 * pop/ldm into pc and ldr pc, unconditional ones (the state bit
 * cleared); MIPS's jr and jalr; PowerPC's blr, blrl, bctr and bctrl
 * (lr's or ctr's value). `word` reads in the snapshot's byte order. */
bool sw_instruction_pointer_update_in(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                                      const uint8_t *code, size_t len, sw_reg_by_name reg,
                                      sw_word_at word, void *ctx, uint64_t *target);

/* What an instruction is, for checking the reason a crash reports against
 * the instruction that crashed (crash_info.crash_inconsistencies). */
struct sw_insn_facts {
	/* sw_memory_accesses_in lists every access it makes, so one that
	 * faulted is among them: x86's plain moves, arithmetic, compares,
	 * push/pop/call/ret and the like (not string, system or vector-list
	 * instructions, whose implicit or partial accesses are not
	 * modelled); elsewhere a load or store of a known form. */
	bool accesses_complete;
	bool division;          /* x86 div/idiv: may raise a divide error */
	/* May fault for privilege: Capstone's privileged and interrupt
	 * groups, and those that fault by a setting (in/out, rdmsr, rdtsc). */
	bool maybe_privileged;
	/* x86: faults with #GP for a non-canonical address and nothing else
	 * (not an aligned SSE move, which faults when misaligned too). */
	bool gp_only_when_non_canonical;
};

/* The facts of the instruction at pc (lib/insn_facts.c); false when the
 * bytes decode to nothing or the CPU has no decoder here. */
bool sw_instruction_facts(enum sw_cpu cpu, bool big_endian, bool thumb, uint64_t pc,
                          const uint8_t *code, size_t len, struct sw_insn_facts *out);

#endif
