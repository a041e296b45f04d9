/* 32-bit ARM: the AAPCS (Linux, Android, bare metal) and Apple's ARMv7 ABI
 * (iOS).
 *
 * Register numbers are the DWARF ones (AADWARF32 §4.1): r0-r15 = 0-15, with
 * r13 = sp, r14 = lr, r15 = pc; cpsr follows.
 *
 * Code runs in one of two instruction sets, and a code address says which
 * in bit 0 (ARM ARM A2.3.2, interworking): BL and BLX leave lr odd when
 * they are executed in Thumb code, even in ARM code; the context frame's
 * set is the CPSR T bit. The walker keeps that bit in every caller's pc
 * (strip_code_pointer leaves it), as Breakpad and rust-minidump do: it is
 * the caller's instruction set, which decides the caller's frame pointer
 * and call check, and they print a caller at pc - 2 of the value with it.
 *
 * Callers: by CFI (the walker), by the frame-pointer chain of the frame's
 * ABI and the context frame's live link register, and by a scan validated
 * by BL/BLX decoding. */
#include "registry.h"

#include <string.h>

#include "cortex_m.h"
#include "lib/walker.h"
#include "prologue.h"
#include "same_function.h"
#include "signal_frame.h"
#include "stub.h"

enum {
	ARM_R7 = 7, ARM_R11 = 11, ARM_SP = 13, ARM_LR = 14, ARM_PC = 15, ARM_CPSR = 16,
	ARM_NREGS,
	ARM_NCORE = 16 /* r0-r15 */
};
enum { CPSR_T = 1u << 5 }; /* ARM ARM B1.3.3: Thumb execution state */

/* As Breakpad's dump_syms writes them in STACK CFI (DwarfCFIToModule::
 * RegisterNames::ARM); the VFP registers it may also name are not kept. */
static const char *const arm_reg_names[ARM_NREGS] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
	"r11", "r12", "sp", "lr", "pc", "cpsr",
};

/* Breakpad's and rust-minidump's text outputs call r11 fp, and print it
 * after r12. */
static const char *const arm_text_names[ARM_NREGS] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
	"fp", "r12", "sp", "lr", "pc", "cpsr",
};

static const uint8_t arm_print_order[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, ARM_R11, ARM_SP, ARM_LR, ARM_PC,
};

/* AADWARF32 §4.1: r0-r15 are DWARF registers 0-15. */
static const int8_t arm_dwarf_regs[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ARM_SP, ARM_LR, ARM_PC,
};

/* Breakpad and rust-minidump symbolize a caller at its return address - 2,
 * Thumb bit included. That lies inside the call in every form: the 4-byte
 * BL/BLX of ARM and Thumb-2 code end at the return address, the 2-byte
 * Thumb BLX Rm too (the odd address is one byte into the instruction). */
static uint64_t arm_call_site(uint64_t ra)
{
	return ra - 2;
}

/* The Thumb bit stays (see the top of the file); only the 32-bit address
 * space is enforced. */
static uint64_t arm_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr & 0xffffffffu;
}

static bool arm_pc_plausible(uint64_t pc)
{
	return pc >= 0x1000 && pc <= 0xffffffffu;
}

/* ---- the call check ---------------------------------------------------- */

/* Instructions are little-endian on every ARM since ARMv6, also in a
 * big-endian system: BE-8 swaps data accesses only (ARM ARM A3.3.1). Only
 * the BE-32 systems of ARMv5 and before store code big-endian; the
 * snapshot's processor level (the architecture version) says which. */
static bool arm_code_big_endian(const struct sw_walk *w)
{
	const struct sw_system_info *sys = &w->snap->sys;
	return sys->big_endian && sys->processor_level >= 1 && sys->processor_level <= 5;
}

/* A halfword (n = 2) or word (n = 4) of code at addr. */
static bool arm_read_code(const struct sw_walk *w, uint64_t addr, unsigned n, uint32_t *out)
{
	uint8_t b[4];
	if (addr < n || !sw_walk_read(w, addr, b, n))
		return false;
	bool be = arm_code_big_endian(w);
	uint32_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint32_t)b[be ? n - 1 - i : i] << (8 * i);
	*out = v;
	return true;
}

/* ARM-state calls that leave the next instruction's address in lr (ARM ARM
 * A8.8.25, A8.8.26):
 *   BL <imm24>    cond 1011 imm24                         (cond != 1111)
 *   BLX <imm24>   1111 101H imm24                         (to Thumb code)
 *   BLX Rm        cond 0001 0010 1111 1111 1111 0011 Rm   (cond != 1111) */
static bool arm_insn_is_call(uint32_t insn)
{
	uint32_t cond = insn >> 28;
	return (cond != 0xf && (insn & 0x0f000000u) == 0x0b000000u) ||
	       (insn & 0xfe000000u) == 0xfa000000u ||
	       (cond != 0xf && (insn & 0x0ffffff0u) == 0x012fff30u);
}

/* Before BLX (ARMv5T) a call through a register was two instructions:
 * `mov lr, pc` (reading pc gives its own address + 8, ARM ARM A2.3) then
 * one that writes pc: BX Rm, MOV pc, Rm, LDR pc, [..] or LDM {.., pc}. */
static bool arm_insn_is_mov_lr_pc(uint32_t insn)
{
	return insn >> 28 != 0xf && (insn & 0x0fffffffu) == 0x01a0e00fu;
}

static bool arm_insn_writes_pc(uint32_t insn)
{
	return insn >> 28 != 0xf &&
	       ((insn & 0x0ffffff0u) == 0x012fff10u ||   /* BX Rm */
	        (insn & 0x0ffffff0u) == 0x01a0f000u ||   /* MOV pc, Rm */
	        (insn & 0x0c50f000u) == 0x0410f000u ||   /* LDR pc, [...] */
	        (insn & 0x0e108000u) == 0x08108000u);    /* LDM Rn, {..., pc} */
}

/* Thumb calls (ARM ARM A8.8.25-26, encodings T1, T2 and T1 of BLX Rm):
 *   BL <imm>      11110 S imm10 : 11 J1 1 J2 imm11     32-bit
 *   BLX <imm>     11110 S imm10H : 11 J1 0 J2 imm10L 0 32-bit, to ARM code
 *   BLX Rm        0100 0111 1 Rm 000                   16-bit
 * Thumb-1's BL and BLX pairs (ARMv4T-v6) have the same bit patterns. */
static bool thumb_is_call32(uint32_t hw1, uint32_t hw2)
{
	return (hw1 & 0xf800u) == 0xf000u &&
	       ((hw2 & 0xd000u) == 0xd000u || (hw2 & 0xd001u) == 0xc000u);
}

static bool thumb_is_blx_register(uint32_t hw)
{
	return (hw & 0xff87u) == 0x4780u;
}

/* Does a call end at return address ra? ra as found on the stack or in lr
 * says its instruction set: odd is Thumb, a multiple of 4 is ARM. Anything
 * else (2 mod 4) no call leaves, whatever the code bytes. */
static bool arm_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	ra &= 0xffffffffu;
	*known = true;
	if (ra & 1) {
		uint64_t at = ra & ~(uint64_t)1;
		uint32_t hw1, hw2;
		if (!arm_read_code(w, at - 2, 2, &hw2)) {
			*known = false;
			return true;
		}
		if (thumb_is_blx_register(hw2))
			return true;
		if ((hw2 & 0xc000u) != 0xc000u)
			return false; /* not the second half of a BL or BLX */
		if (!arm_read_code(w, at - 4, 2, &hw1)) {
			*known = false;
			return true;
		}
		return thumb_is_call32(hw1, hw2);
	}
	if (ra & 3)
		return false;
	uint32_t insn, before;
	if (!arm_read_code(w, ra - 4, 4, &insn)) {
		*known = false;
		return true;
	}
	if (arm_insn_is_call(insn))
		return true;
	if (!arm_insn_writes_pc(insn))
		return false;
	if (!arm_read_code(w, ra - 8, 4, &before)) {
		*known = false;
		return true;
	}
	return arm_insn_is_mov_lr_pc(before);
}

/* ---- where a call goes ------------------------------------------------- */

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)(v ^ m) - (int64_t)m;
}

/* The direct call that ends at ra (ARM ARM A8.8.25, A8.8.26), *to its
 * target's address and *thumb the target's instruction set:
 *   Thumb BL     T1: imm32 = S:I1:I2:imm10:imm11:0, Ii = NOT(Ji XOR S),
 *                    target = ra + imm32 (the pc of a Thumb instruction
 *                    is its address + 4: ra), Thumb;
 *   Thumb BLX    T2: imm32 = S:I1:I2:imm10H:imm10L:00, target =
 *                    Align(ra, 4) + imm32, ARM;
 *   ARM BL       A1: imm32 = imm24:00, target = ra + 4 + imm32 (the pc
 *                    of an ARM instruction is its address + 8), ARM;
 *   ARM BLX      A2: imm32 = imm24:H:0, the same, Thumb.
 * Thumb-1's BL pairs are T1 with J1 = J2 = 1. BLX Rm and `mov lr, pc`
 * before a branch through a register name no target. */
static bool arm_direct_call(const struct sw_walk *w, uint64_t ra, uint64_t *to, bool *thumb)
{
	if (ra & 1) {
		uint64_t at = ra & ~(uint64_t)1;
		uint32_t hw1, hw2;
		if (!arm_read_code(w, at - 2, 2, &hw2) || !arm_read_code(w, at - 4, 2, &hw1) ||
		    !thumb_is_call32(hw1, hw2))
			return false;
		uint32_t s = hw1 >> 10 & 1, i1 = !((hw2 >> 13 & 1) ^ s), i2 = !((hw2 >> 11 & 1) ^ s);
		uint64_t high = (uint64_t)(s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3ffu) << 12);
		*thumb = (hw2 & 0x1000u) != 0;
		if (*thumb)
			*to = at + (uint64_t)sext(high | (hw2 & 0x7ffu) << 1, 25);
		else
			*to = (at & ~(uint64_t)3) + (uint64_t)sext(high | (hw2 & 0x7feu) << 1, 25);
		*to &= 0xffffffffu;
		return true;
	}
	uint32_t insn;
	if ((ra & 3) || !arm_read_code(w, ra - 4, 4, &insn))
		return false;
	bool bl = insn >> 28 != 0xf && (insn & 0x0f000000u) == 0x0b000000u;
	bool blx = (insn & 0xfe000000u) == 0xfa000000u;
	if (!bl && !blx)
		return false;
	uint64_t imm = (uint64_t)(insn & 0xffffffu) << 2 | (blx ? (insn >> 24 & 1) << 1 : 0);
	*thumb = blx;
	*to = (ra + 4 + (uint64_t)sext(imm, 26)) & 0xffffffffu;
	return true;
}

/* The value of an ARM modified immediate (ARM ARM A5.2.4): imm8 rotated
 * right by twice the rotation field. */
static uint32_t arm_expand_imm(uint32_t insn)
{
	uint32_t imm8 = insn & 0xffu, rot = 2 * (insn >> 8 & 0xfu);
	return rot ? (imm8 >> rot | imm8 << (32 - rot)) : imm8;
}

enum { ARM_STUB_HOPS = 4 };

enum arm_stub {
	STUB_NONE,   /* ordinary code */
	STUB_SLOT,   /* a PLT entry: jumps through the GOT slot *next */
	STUB_CODE,   /* a veneer: goes on to code at *next, Thumb if it is odd */
};

/* PLT entries and veneers in ARM code at `at` (binutils' elf32-arm.c,
 * lld's ARM.cpp):
 *   PLT     add ip, pc, #A; [add ip, ip, #B;] add ip, ip, #C;
 *           ldr pc, [ip, #D]!           slot at + 8 + A + B + C + D
 *   lld's long PLT  ldr ip, [pc, #4]; add ip, ip, pc; ldr pc, [ip];
 *           .word W                     slot at + 12 + W
 *   veneer  ldr pc, [pc, #-4]; .word X  code at X */
static enum arm_stub arm_stub_at(const struct sw_walk *w, uint64_t at, uint64_t *next)
{
	uint32_t i[4];
	if (!arm_read_code(w, at, 4, &i[0]) || !arm_read_code(w, at + 4, 4, &i[1]))
		return STUB_NONE;
	if (i[0] == 0xe51ff004u) {
		*next = i[1];
		return STUB_CODE;
	}
	if (!arm_read_code(w, at + 8, 4, &i[2]))
		return STUB_NONE;
	if (i[0] == 0xe59fc004u && i[1] == 0xe08cc00fu && i[2] == 0xe59cf000u) {
		if (!arm_read_code(w, at + 12, 4, &i[3]))
			return STUB_NONE;
		*next = (at + 12 + i[3]) & 0xffffffffu;
		return STUB_SLOT;
	}
	if ((i[0] & 0xfffff000u) != 0xe28fc000u)
		return STUB_NONE;
	uint64_t slot = at + 8 + arm_expand_imm(i[0]);
	for (unsigned k = 1; k < 4; k++) {
		if (k == 3 && !arm_read_code(w, at + 12, 4, &i[3]))
			return STUB_NONE;
		if ((i[k] & 0xfffff000u) == 0xe28cc000u) {
			slot += arm_expand_imm(i[k]);
		} else if ((i[k] & 0xfffff000u) == 0xe5bcf000u) {
			*next = (slot + (i[k] & 0xfffu)) & 0xffffffffu;
			return STUB_SLOT;
		} else {
			return STUB_NONE;
		}
	}
	return STUB_NONE;
}

/* The ARM ARM's T3 and T4 moves of a 16-bit immediate into ip (A8.8.102,
 * A8.8.106): imm16 = imm4:i:imm3:imm8. */
static bool thumb_mov_ip(uint32_t hw1, uint32_t hw2, uint32_t op, uint32_t *imm)
{
	if ((hw1 & 0xfbf0u) != op || (hw2 & 0x8f00u) != 0x0c00u)
		return false;
	*imm = (hw1 & 0xfu) << 12 | (hw1 >> 10 & 1) << 11 | (hw2 >> 12 & 7) << 8 | (hw2 & 0xffu);
	return true;
}

/* The same in Thumb code at `at`:
 *   bx pc; nop                  the ARM code at at + 4 (binutils' Thumb
 *                               entry to an ARM PLT entry or veneer)
 *   Thumb-only PLT  movw ip, #L; movt ip, #H; add ip, pc; ldr.w pc, [ip]
 *                               slot at + 12 + (H << 16 | L)
 *   veneer  ldr.w pc, [pc, #+-0]; .word X   code at X (the word at
 *                               Align(at + 4, 4)) */
static enum arm_stub thumb_stub_at(const struct sw_walk *w, uint64_t at, uint64_t *next)
{
	uint32_t h[6];
	for (unsigned k = 0; k < 2; k++)
		if (!arm_read_code(w, at + 2 * k, 2, &h[k]))
			return STUB_NONE;
	if (h[0] == 0x4778u && h[1] == 0x46c0u) {
		*next = at + 4;
		return STUB_CODE;
	}
	if ((h[0] == 0xf8dfu || h[0] == 0xf85fu) && h[1] == 0xf000u) {
		uint32_t word;
		if (!arm_read_code(w, (at + 4) & ~(uint64_t)3, 4, &word))
			return STUB_NONE;
		*next = word;
		return STUB_CODE;
	}
	uint32_t lo, hi;
	if (!thumb_mov_ip(h[0], h[1], 0xf240u, &lo))
		return STUB_NONE;
	for (unsigned k = 2; k < 6; k++)
		if (!arm_read_code(w, at + 2 * k, 2, &h[k]))
			return STUB_NONE;
	if (thumb_mov_ip(h[2], h[3], 0xf2c0u, &hi) && h[4] == 0x44fcu && h[5] == 0xf8dcu) {
		*next = (at + 12 + (hi << 16 | lo)) & 0xffffffffu;
		return STUB_SLOT;
	}
	return STUB_NONE;
}

/* Follows the stubs from code at `at` (Thumb or not) to where they lead. */
static bool arm_follow_stubs(const struct sw_walk *w, uint64_t at, bool thumb, uint64_t *target)
{
	uint64_t next;
	for (unsigned hop = 0; hop < ARM_STUB_HOPS; hop++) {
		switch (thumb ? thumb_stub_at(w, at, &next) : arm_stub_at(w, at, &next)) {
		case STUB_NONE:
			*target = at;
			return true;
		case STUB_SLOT:
			return sw_stub_through_slot(w, at, next, 4, target);
		case STUB_CODE:
			/* Bit 0 says the instruction set, as for BX (interworking). */
			thumb = (next & 1) != 0;
			at = next & ~(uint64_t)1;
			break;
		}
	}
	return false;
}

/* The call_target hook: the direct call's target, followed through the
 * stubs above to where they lead (arch.h). Thumb code calls an ARM PLT
 * entry with BLX, or, on cores without it (ARMv4T), with BL to a
 * `bx pc; nop` in front of it. */
static bool arm_call_target(const struct sw_walk *w, uint64_t ra, uint64_t *target)
{
	uint64_t at;
	bool thumb;
	return arm_direct_call(w, ra & 0xffffffffu, &at, &thumb) &&
	       arm_follow_stubs(w, at, thumb, target);
}

/* How far into a function its tail jumps are sought. */
enum { ARM_TAIL_REACH = 1024 };

/* Where a branch (no link) at `at` goes: ARM B<c> (A8.8.18, A1:
 * imm32 = imm24:00 from at + 8); Thumb B T1 (imm8:0, conditional), T2
 * (imm11:0), T3 (S:J2:J1:imm6:imm11:0, conditional) and T4
 * (S:I1:I2:imm10:imm11:0) from at + 4. */
static bool arm_branch_at(const struct sw_walk *w, uint64_t at, bool thumb, uint64_t *to)
{
	uint32_t h, h2;
	if (!thumb) {
		if ((at & 3) || !arm_read_code(w, at, 4, &h) || h >> 28 == 15 ||
		    (h & 0x0f000000u) != 0x0a000000u)
			return false;
		*to = (at + 8 + (uint64_t)sext((uint64_t)(h & 0xffffffu) << 2, 26)) & 0xffffffffu;
		return true;
	}
	if (!arm_read_code(w, at, 2, &h))
		return false;
	if ((h & 0xf000u) == 0xd000u && (h & 0x0e00u) != 0x0e00u) {
		*to = at + 4 + (uint64_t)sext((uint64_t)(h & 0xffu) << 1, 9);
	} else if ((h & 0xf800u) == 0xe000u) {
		*to = at + 4 + (uint64_t)sext((uint64_t)(h & 0x7ffu) << 1, 12);
	} else if ((h & 0xf800u) == 0xf000u && arm_read_code(w, at + 2, 2, &h2) &&
	           (h2 & 0xd000u) == 0x9000u) {
		uint64_t s = h >> 10 & 1, i1 = !((h2 >> 13 & 1) ^ s), i2 = !((h2 >> 11 & 1) ^ s);
		*to = at + 4 + (uint64_t)sext(s << 24 | i1 << 23 | i2 << 22 | (uint64_t)(h & 0x3ffu) << 12 |
		                              (uint64_t)(h2 & 0x7ffu) << 1, 25);
	} else if ((h & 0xf800u) == 0xf000u && arm_read_code(w, at + 2, 2, &h2) &&
	           (h2 & 0xd000u) == 0x8000u && (h & 0x0380u) != 0x0380u) {
		uint64_t s = h >> 10 & 1;
		*to = at + 4 + (uint64_t)sext(s << 20 | (uint64_t)(h2 >> 11 & 1) << 19 |
		                              (uint64_t)(h2 >> 13 & 1) << 18 | (uint64_t)(h & 0x3fu) << 12 |
		                              (uint64_t)(h2 & 0x7ffu) << 1, 21);
	} else {
		return false;
	}
	*to &= 0xffffffffu;
	return true;
}

/* How far before an indirect branch an epilogue's reload of lr is sought. */
enum { ARM_TAIL_EPILOGUE = 12 };

/* An epilogue's reload of lr without a return at `at`: ARM pop {..., lr};
 * Thumb pop.w {..., lr} or ldr.w lr, [sp], #4. */
static bool arm_reloads_lr_at(const struct sw_walk *w, uint64_t at, bool thumb)
{
	uint32_t a, b;
	if (!thumb)
		return (at & 3) == 0 && arm_read_code(w, at, 4, &a) && (a & 0xffffc000u) == 0xe8bd4000u;
	return arm_read_code(w, at, 2, &a) && arm_read_code(w, at + 2, 2, &b) &&
	       ((a == 0xe8bdu && (b & 0xc000u) == 0x4000u) || (a == 0xf85du && b == 0xeb04u));
}

/* A pop that does not return at `at` (Thumb pop {rlist} without pc,
 * A8.8.131; pop.w and ARM pop {rlist}, without pc): the epilogue of a
 * function that saved registers but not lr (it made no call of its own). */
static bool arm_pops_at(const struct sw_walk *w, uint64_t at, bool thumb)
{
	uint32_t a, b;
	if (!thumb)
		return (at & 3) == 0 && arm_read_code(w, at, 4, &a) && (a & 0xffff8000u) == 0xe8bd0000u &&
		       (a & 0x7fffu) != 0;
	if (!arm_read_code(w, at, 2, &a))
		return false;
	if ((a & 0xff00u) == 0xbc00u && (a & 0xffu) != 0)
		return true;
	return a == 0xe8bdu && arm_read_code(w, at + 2, 2, &b) && (b & 0x8000u) == 0 && b != 0;
}

/* An indirect tail call at `at`: a branch through a register other than
 * lr (bx rM, A8.8.27) a few instructions after an epilogue's reload of lr,
 * or right after a pop that restores registers but not lr, which may lead
 * anywhere (GCC's call through a function pointer in tail position:
 * pop {r4, lr}; ldr r3, [r3, #32]; bx r3, or in a function that makes no
 * call: pop {r4, r5, r7}; bx r3). */
static bool arm_indirect_tail_at(const struct sw_walk *w, uint64_t at, bool thumb)
{
	uint32_t b;
	unsigned rm;
	if (!thumb) {
		if ((at & 3) || !arm_read_code(w, at, 4, &b) || (b & 0xfffffff0u) != 0xe12fff10u)
			return false;
		rm = b & 15;
	} else {
		if (!arm_read_code(w, at, 2, &b) || (b & 0xff87u) != 0x4700u)
			return false;
		rm = b >> 3 & 15;
	}
	if (rm == ARM_LR || rm == ARM_PC)
		return false;
	const unsigned step = thumb ? 2 : 4;
	if (at >= step && arm_pops_at(w, at - step, thumb))
		return true;
	if (thumb && at >= 4 && arm_pops_at(w, at - 4, thumb))
		return true; /* pop.w */
	for (uint64_t back = step; back <= ARM_TAIL_EPILOGUE && back <= at; back += step)
		if (arm_reloads_lr_at(w, at - back, thumb))
			return true;
	return false;
}

/* The jumps_into_module hook: does the code of the function at fn hold a
 * branch that leads, through its stubs (a PLT entry bound in the
 * snapshot's GOT, a Thumb-to-ARM `bx pc` stub), into module `to`, or an
 * indirect tail call, which may? GCC's tail call from a library to its
 * program: `b f4(PLT)`, or through a pointer `pop {fp, lr}; bx r3`. The
 * instruction set of fn is not known here (a PLT slot holds it in bit 0,
 * which the stub reader drops): both are tried, a false match needing a
 * branch to a stub bound into that very module or that epilogue shape. */
static bool arm_jumps_into_module(const struct sw_walk *w, uint64_t fn, int32_t to)
{
	if (to < 0)
		return false;
	uint64_t start = fn & ~(uint64_t)1;
	for (uint64_t at = start; at - start < ARM_TAIL_REACH; at += 2) {
		for (int thumb = 1; thumb >= 0; thumb--) {
			uint64_t dest, target;
			if (arm_indirect_tail_at(w, at, thumb))
				return true;
			if (arm_branch_at(w, at, thumb, &dest) && dest != at &&
			    sw_module_at(w->snap, dest) != to &&
			    arm_follow_stubs(w, dest, thumb, &target) &&
			    sw_module_at(w->snap, target) == to)
				return true;
		}
	}
	return false;
}

/* ---- the frame's ABI and instruction set -------------------------------- */

/* Apple's ARMv7 ABI (iOS ABI Function Call Guide): r7 is the frame pointer
 * in ARM and Thumb code alike, and every function that makes a frame
 * pushes {r7, lr} and points r7 at the pair. */
static bool arm_is_apple(const struct sw_walk *w)
{
	return w->snap->sys.os == SW_OS_IOS || w->snap->sys.os == SW_OS_MACOS;
}

/* The frame's instruction set: the CPSR T bit where its registers are a
 * saved context (frame 0, a signal frame), else bit 0 of its pc, the
 * return address that led to it. */
static bool arm_frame_is_thumb(const struct sw_frame *f)
{
	if (sw_frame_has_live_context(f) && sw_reg_valid(&f->regs, ARM_CPSR))
		return (f->regs.v[ARM_CPSR] & CPSR_T) != 0;
	return (f->pc & 1) != 0;
}

/* ---- prologue analysis ----
 *
 * The AAPCS (Arm IHI 0042) §5.1.1 has a function preserve r4-r11 and sp
 * for its caller, §5.2.1 keeps the stack full-descending, and a call (BL,
 * BLX: §5.3.1) leaves the return address in lr, replacing it. So a
 * function that changes one of r4-r11, or makes a call, first stores it in
 * its own frame, and GCC and clang do it the same way in ARM and Thumb-2
 * code: one store-multiple at (or, shrink-wrapped, soon after) the start,
 *   push {r4-r7, lr}            ARM STMDB sp!, list; Thumb PUSH, PUSH.W
 *   str lr, [sp, #-4]!          a single register (PUSH encodings A2/T3)
 * then any VFP registers (vpush {d8-d15}), then the locals
 *   sub sp, sp, #N              (beyond an immediate's reach: two subs, or
 *                               a constant from movw/movt or the literal
 *                               pool, then sub sp, sp, rN)
 * and, with a frame pointer, r11 in ARM code (GCC: add fp, sp, #4, fp at
 * the saved lr; clang: add fp, sp, #N, fp at the saved fp; APCS frames:
 * mov ip, sp; push {fp, ip, lr, pc}; sub fp, ip, #4) or r7 in Thumb code
 * and on Apple systems (add r7, sp, #N; mov r7, sp): the register alloca
 * and variable-length arrays leave as the only way back to the frame,
 * unwinding by `mov sp, r7` / `sub sp, fp, #N`. Epilogues undo it in
 * reverse and return with pop {..., pc}, ldr pc, [sp], #4 or bx lr.
 *
 * The decoders below read the instructions from the function's start up
 * to pc and feed the frame state of arch/prologue.c with what each does to
 * sp, the frame pointer, the callee-saved registers and lr; instructions
 * that only compute write their destination register. The encodings are
 * the ARM Architecture Reference Manual's (DDI 0406C): ARM code A5 (data
 * processing A5.2, with ARMExpandImm A5.2.4; loads and stores A5.3, A5.5;
 * media A5.4; branches and block transfers A5.5; coprocessor and VFP
 * A7), 16-bit Thumb A6.2, 32-bit Thumb A6.3 (with ThumbExpandImm A6.3.2).
 * Where one matters to the frame, its page is named at the code: PUSH
 * A8.8.133, POP A8.8.131-132, SUB (SP minus immediate / register)
 * A8.8.225-226, ADD (SP plus immediate / register) A8.8.9-10, LDR
 * (literal) A8.8.64, STR (immediate) A8.8.204-205, STRD A8.8.210, VPUSH
 * A8.8.368, VPOP A8.8.367, IT A8.8.54, TBB/TBH A8.8.237, BL/BLX A8.8.25-26,
 * BX A8.8.27. Conditional instructions (ARM's condition field, Thumb's IT
 * blocks) may not run: one that would leave the path (a conditional
 * return) leaves the frame as it was, one that would change sp or the
 * frame pointer makes it unknown. Data in the code (literal pools after
 * the words LDR (literal) reads, the byte and halfword tables after
 * TBB/TBH, the address table after ARM's `ldr pc, [pc, rN, lsl #2]`) is
 * skipped, not decoded. */

enum {
	PRO_MAX_BACKWARD = 4096,  /* how far back a function's start is sought */
	PRO_MAX_FORWARD = 16384,  /* how much of a function is decoded */
	/* Instructions one analysis may decode over all its candidate
	 * starts: the search must stay cheap on code built to defeat it. */
	PRO_DECODE_BUDGET = 8192,
	PRO_DATA = 32,            /* data words remembered per decode */
	PRO_TABLE_MAX = 1024,     /* entries a jump table may have */
	/* A searched start's decode follows which halfwords branches reach,
	 * this far from the start. */
	PRO_REACH = PRO_MAX_BACKWARD + 64,
	PRO_PENDING = 32,         /* blocks after path ends awaiting a branch */
	PRO_LOOKAHEAD = 1024,     /* how far past pc such a branch is sought */
};

/* What a conditional instruction may change of the frame, kept from before
 * it. */
struct pro_snapshot {
	struct sw_prologue p;
	uint32_t sp_copy;
	int64_t sp_copy_off[ARM_NCORE];
};

struct arm_pro {
	struct sw_prologue p;
	struct sw_code *code;
	bool thumb;
	bool cond;                /* the instruction being decoded may not run */
	uint8_t itstate;          /* Thumb: ITSTATE (A8.8.54: firstcond:mask) */
	/* The frame before the current run of instructions of one condition
	 * (an IT block's, or ARM code's `addeq sp, sp, #8; popeq {r4, pc}`):
	 * a conditional return ends the run's path, none of which ran on the
	 * path that goes on. run_cc: its condition, -1 outside one. */
	int run_cc;
	struct pro_snapshot run;
	/* Registers that hold CFA + sp_copy_off[r]: copies of sp taken by
	 * `mov rN, sp` (a VLA's saved sp, APCS's ip), to restore sp from. */
	uint32_t sp_copy;
	int64_t sp_copy_off[ARM_NCORE];
	/* Data the code reads (literal pools, jump tables): [data[i], data_end[i]). */
	uint64_t data[PRO_DATA], data_end[PRO_DATA];
	unsigned ndata;
	uint64_t resume;          /* past a jump table: decoding goes on here */
	uint64_t start;           /* where the decode began */
	/* A start found by search, not named by a symbol: the code after
	 * each path's end must be reached by a branch from the decoded code
	 * (else it is another function's). reach: one bit per halfword from
	 * start, set at each direct branch's (and jump table's) target;
	 * pending: such blocks no branch has reached yet (a loop's body after
	 * the jump to its test is reached by the branch at its end). */
	bool search;
	bool lookahead;           /* decoding past pc for branches alone */
	bool after_end;
	uint64_t pending[PRO_PENDING];
	unsigned npending;
	bool branch_table;        /* ARM: in a table of B instructions */
	unsigned branches;        /* direct branches and tables met (pro_target) */
	uint8_t reach[PRO_REACH / 16 + 1];
};

static uint32_t rbit(unsigned r)
{
	return r < ARM_NCORE ? 1u << r : 0;
}

/* n (2 or 4) bytes of code at addr as the CPU reads them (a Thumb
 * instruction is read halfword by halfword). */
static bool pro_read(struct arm_pro *d, uint64_t addr, unsigned n, uint32_t *out)
{
	uint8_t b[4];
	if (!sw_code_read(d->code, addr, b, n))
		return false;
	bool be = arm_code_big_endian(d->code->w);
	uint32_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint32_t)b[be ? n - 1 - i : i] << (8 * i);
	*out = v;
	return true;
}

/* rN = something the frame state does not follow. */
static void pro_write(struct arm_pro *d, unsigned r)
{
	if (r >= ARM_PC)
		return;
	d->sp_copy &= ~rbit(r);
	sw_pro_write(&d->p, r);
}

static void pro_const(struct arm_pro *d, unsigned r, uint32_t v)
{
	if (r == ARM_SP || r == d->p.fp || r >= ARM_PC) {
		pro_write(d, r);
		return;
	}
	d->sp_copy &= ~rbit(r);
	sw_pro_const(&d->p, r, v);
}

/* Constants are kept for r1-r12 (prologue.c keeps none in register 0,
 * the zero register of MIPS and RISC-V: r0 never holds one here). */
static bool pro_const_get(const struct arm_pro *d, unsigned r, int64_t *v)
{
	return r != 0 && r < ARM_SP && sw_pro_const_get(&d->p, r, v);
}

/* The CFA-relative value of r, when it is sp, the frame pointer or a copy
 * of either. */
static bool pro_frame_value(const struct arm_pro *d, unsigned r, int64_t *off)
{
	const struct sw_pro_frame *f = &d->p.cur;
	if (r == ARM_SP && f->sp_known)
		*off = f->sp_off;
	else if (r == d->p.fp && f->fp_known)
		*off = f->fp_off;
	else if (d->sp_copy & rbit(r))
		*off = d->sp_copy_off[r];
	else
		return false;
	return true;
}

/* rd = rn + delta (ADD, SUB, MOV of registers and immediates). */
static void pro_add(struct arm_pro *d, unsigned rd, unsigned rn, int64_t delta)
{
	struct sw_prologue *p = &d->p;
	int64_t off, v;
	if (rd >= ARM_PC)
		return;
	if (rd == ARM_SP && rn == ARM_SP) {
		sw_pro_sp_add(p, delta);
	} else if (rd == ARM_SP && rn == p->fp && p->cur.fp_known) {
		sw_pro_sp_from_fp(p, delta);           /* mov sp, r7; sub sp, fp, #N */
	} else if (rd == p->fp && rn == p->fp && p->cur.fp_known) {
		sw_pro_fp_add(p, delta);               /* adds r7, #N before mov sp, r7 */
	} else if (pro_frame_value(d, rn, &off)) {
		off = sw_pro_add(off, delta);
		if (rd == ARM_SP) {
			sw_pro_sp_set(p, off);             /* mov sp, rN: a saved sp */
		} else if (rd == p->fp) {
			if (p->cur.sp_known)               /* add r7, sp, #N; sub fp, ip, #4 */
				sw_pro_fp_from_sp(p, sw_pro_sub(off, p->cur.sp_off));
			else
				pro_write(d, rd);
		} else {
			pro_write(d, rd);
			d->sp_copy |= rbit(rd);
			d->sp_copy_off[rd] = off;
		}
	} else if (rd != ARM_SP && rd != p->fp && pro_const_get(d, rn, &v)) {
		pro_const(d, rd, (uint32_t)sw_pro_add(v, delta));
	} else {
		pro_write(d, rd);
	}
}

/* rd = rn + rm (or rn - rm): a register holding a constant adds it. */
static void pro_add_reg(struct arm_pro *d, unsigned rd, unsigned rn, unsigned rm, bool sub)
{
	int64_t v;
	if (pro_const_get(d, rm, &v))
		pro_add(d, rd, rn, sub ? sw_pro_sub(0, v) : v);
	else if (!sub && pro_const_get(d, rn, &v))
		pro_add(d, rd, rm, v);
	else
		pro_write(d, rd);
}

/* A branch (or a jump table) goes to `to`; not a jump after an epilogue,
 * which is a tail call to another function. */
static void pro_target(struct arm_pro *d, uint64_t to)
{
	d->branches++;
	to &= ~(uint64_t)1;
	if (d->search && !d->p.in_epilogue && to >= d->start && to - d->start < PRO_REACH)
		d->reach[(to - d->start) / 16] |= (uint8_t)(1u << ((to - d->start) / 2 % 8));
}

static bool pro_reached(const struct arm_pro *d, uint64_t a)
{
	return a >= d->start && a - d->start < PRO_REACH &&
	       (d->reach[(a - d->start) / 16] >> ((a - d->start) / 2 % 8) & 1);
}

static int64_t pro_sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)(v ^ m) - (int64_t)m;
}

/* [addr, addr + len) is data the code reads: decoding skips it. */
static void pro_data(struct arm_pro *d, uint64_t addr, uint64_t len)
{
	if (d->ndata < PRO_DATA && len) {
		d->data[d->ndata] = addr;
		d->data_end[d->ndata++] = addr + len;
	}
}

/* A load through a register holding an address just past the dispatch
 * (`adr r2, table; ldr.w r3, [r2, r3, lsl #2]; add r2, r3; bx r2`, GCC's
 * Thumb -O0 switch): a table of words, each the offset of a case from the
 * table (or, in code that is not position-independent, its address); the
 * cases begin where the table ends. */
static void pro_table_through(struct arm_pro *d, uint64_t addr, unsigned rn)
{
	int64_t v;
	if (!pro_const_get(d, rn, &v) || (uint64_t)v <= addr || (uint64_t)v - addr > 64)
		return;
	uint64_t table = (uint64_t)v, end = table + 4 * (uint64_t)PRO_TABLE_MAX;
	for (unsigned k = 0; table + 4 * (uint64_t)k < end; k++) {
		uint32_t e;
		if (!pro_read(d, table + 4 * (uint64_t)k, 4, &e))
			return;
		uint64_t to = e < 4u * PRO_TABLE_MAX * 4 ? table + e : e;
		to &= ~(uint64_t)1;
		if (to < table + 4 * (uint64_t)(k + 1) || to - table > 16u * PRO_TABLE_MAX)
			return;                                /* not a table after all */
		if (to < end)
			end = to;
		pro_target(d, to);
	}
	pro_data(d, table, end - table);
}

/* rt = the word at addr (LDR (literal), A8.8.64): a constant (a large
 * frame's size), and data. */
static void pro_literal(struct arm_pro *d, unsigned rt, uint64_t addr, unsigned len)
{
	uint32_t v;
	pro_data(d, addr, len);
	if (len == 4 && rt < ARM_PC && pro_read(d, addr, 4, &v))
		pro_const(d, rt, v);
	else
		pro_write(d, rt);
}

/* The stack pointer moves by delta (a write-back): where sp's value is
 * not followed, it is lost. */
static void pro_base_writeback(struct arm_pro *d, unsigned rn, int64_t delta, bool known)
{
	if (rn == ARM_SP && known)
		sw_pro_sp_add(&d->p, delta);
	else
		pro_write(d, rn);
}

/* STR rt, [rn, #off] with P (index), W (write-back): A8.8.204-205; a
 * save when rn is sp or the frame pointer. */
static void pro_store(struct arm_pro *d, unsigned rt, unsigned rn, int64_t off, bool index,
                      bool wback, unsigned width)
{
	int64_t at = index ? off : 0;
	if (index && wback && rn == ARM_SP) {
		/* push (str rt, [sp, #-4]!): sp moves first, the word is the
		 * new frame's */
		sw_pro_sp_add(&d->p, off);
		at = 0;
		wback = false;
	}
	if (width == 4 && !d->cond)
		sw_pro_store(&d->p, rt, rn, at, 4);
	if (wback)
		pro_base_writeback(d, rn, off, true);
}

/* LDR rt, [rn, #off]: a reload when it reads a save's slot. */
static void pro_load(struct arm_pro *d, unsigned rt, unsigned rn, int64_t off, bool index,
                     bool wback, unsigned width, bool *ends)
{
	if (rt == ARM_PC) {
		*ends = true;                          /* ldr pc, [sp], #4: a return */
	} else if (width == 4 && rt != ARM_SP && rt != rn) {
		d->sp_copy &= ~rbit(rt);
		sw_pro_load(&d->p, rt, rn, index ? off : 0);
	} else {
		pro_write(d, rt);
	}
	if (wback && rt != rn)
		pro_base_writeback(d, rn, off, true);
}

/* LDRD, STRD rt, rt2, [rn, #off] (A8.8.70, A8.8.210): `strd r4, r5,
 * [sp, #-8]!` saves like a push, `ldrd r4, r5, [sp], #8` reloads like a
 * pop. known: off is an immediate (else a register offset). */
static void pro_pair(struct arm_pro *d, bool load, unsigned rt, unsigned rt2, unsigned rn,
                     int64_t off, bool index, bool wback, bool known, bool *ends)
{
	int64_t at = index ? off : 0;
	if (!known) {
		if (load) {
			pro_write(d, rt);
			pro_write(d, rt2);
		}
		if (wback)
			pro_write(d, rn);
		return;
	}
	if (index && wback && rn == ARM_SP && !load) {
		sw_pro_sp_add(&d->p, off);
		at = 0;
		wback = false;
	}
	if (load) {
		pro_load(d, rt, rn, at, true, false, 4, ends);
		pro_load(d, rt2, rn, at + 4, true, false, 4, ends);
	} else {
		pro_store(d, rt, rn, at, true, false, 4);
		pro_store(d, rt2, rn, at + 4, true, false, 4);
	}
	if (wback)
		pro_base_writeback(d, rn, off, true);
}

/* PUSH list (STMDB sp!, A8.8.133): the lowest register at the lowest
 * address, sp lowered by 4 per register. */
static void pro_push(struct arm_pro *d, uint32_t list)
{
	unsigned n = (unsigned)__builtin_popcount(list);
	if (list & rbit(ARM_SP)) {
		sw_pro_sp_unknown(&d->p);
		return;
	}
	sw_pro_sp_add(&d->p, -4 * (int64_t)n);
	for (unsigned r = 0, k = 0; r < ARM_NCORE; r++)
		if (list & rbit(r))
			sw_pro_store(&d->p, r, ARM_SP, 4 * (int64_t)k++, 4);
}

/* POP list (LDMIA sp!, A8.8.131-132): a pop into pc returns. */
static void pro_pop(struct arm_pro *d, uint32_t list, bool *ends)
{
	unsigned n = (unsigned)__builtin_popcount(list);
	for (unsigned r = 0, k = 0; r < ARM_PC; r++) {
		if (!(list & rbit(r)))
			continue;
		if (r == ARM_SP) {
			sw_pro_sp_unknown(&d->p);
			return;
		}
		d->sp_copy &= ~rbit(r);
		sw_pro_load(&d->p, r, ARM_SP, 4 * (int64_t)k++);
	}
	sw_pro_sp_add(&d->p, 4 * (int64_t)n);
	if (list & rbit(ARM_PC))
		*ends = true;
}

/* LDM/STM on another base, or without the push/pop form: what they load
 * is not followed; the base may move. */
static void pro_block(struct arm_pro *d, unsigned rn, uint32_t list, bool load, bool wback,
                      bool *ends)
{
	if (load) {
		for (unsigned r = 0; r < ARM_PC; r++)
			if (list & rbit(r))
				pro_write(d, r);
		if (list & rbit(ARM_PC))
			*ends = true;
	}
	if (wback && !(load && (list & rbit(rn))))
		pro_write(d, rn);
}

static void pro_call(struct arm_pro *d)
{
	/* r0-r3, ip and lr are the callee's to change (AAPCS §5.1.1). */
	d->sp_copy &= 0xff0u | rbit(ARM_SP);
	sw_pro_call(&d->p, ARM_LR);
}

/* ---- ARM code (A5) ---- */

/* A data-processing instruction (A5.2): op is bits 24..21. */
static void arm_data_processing(struct arm_pro *d, uint32_t i, uint64_t addr, bool *ends)
{
	unsigned op = i >> 21 & 15, rn = i >> 16 & 15, rd = i >> 12 & 15, rm = i & 15;
	bool imm = (i >> 25 & 1) != 0, s = (i >> 20 & 1) != 0;
	if (op >= 8 && op <= 11 && s)
		return;                                /* TST, TEQ, CMP, CMN */
	if (rd == ARM_PC) {
		/* mov pc, lr; add pc, pc, rN, lsl #2 (a table of B instructions
		 * follows the next one, each a path of its own) */
		if (op == 4 && rn == ARM_PC && !imm && (i & 0xff0u) == 0x100u) {
			pro_target(d, addr + 8);
			d->branch_table = true;
		}
		*ends = true;
		return;
	}
	/* A register operand without a shift, else nothing we follow. */
	bool plain = !imm && (i & 0xff0u) == 0;
	uint32_t v = imm ? arm_expand_imm(i) : 0;
	switch (op) {
	case 2: /* SUB */
	case 4: /* ADD */
		if (rn == ARM_PC && imm)           /* ADR */
			pro_const(d, rd, (uint32_t)(addr + 8 + (op == 4 ? v : -(uint64_t)v)));
		else if (imm)
			pro_add(d, rd, rn, op == 4 ? (int64_t)v : -(int64_t)v);
		else if (plain)
			pro_add_reg(d, rd, rn, rm, op == 2);
		else
			pro_write(d, rd);
		return;
	case 13: /* MOV */
		if (imm)
			pro_const(d, rd, v);
		else if (plain && rm == ARM_PC)
			pro_const(d, rd, (uint32_t)(addr + 8));
		else if (plain)
			pro_add(d, rd, rm, 0);
		else
			pro_write(d, rd);
		return;
	case 15: /* MVN */
		if (imm)
			pro_const(d, rd, ~v);
		else
			pro_write(d, rd);
		return;
	default:
		pro_write(d, rd);
		return;
	}
}

/* The ARM-code table after `ldr pc, [pc, rN, lsl #2]` (and its `b` to
 * the default case): absolute addresses of the cases, which begin where
 * the table ends. */
static void arm_skip_address_table(struct arm_pro *d, uint64_t addr)
{
	uint64_t table = addr + 8, end = UINT64_MAX;
	for (unsigned k = 0; k < PRO_TABLE_MAX && table + 4 * (uint64_t)k < end; k++) {
		uint32_t v;
		if (!pro_read(d, table + 4 * (uint64_t)k, 4, &v) || v <= table || v - table > 4 * PRO_TABLE_MAX)
			return;
		if ((v & ~3u) < end)
			end = v & ~3u;
		pro_target(d, v);
	}
	if (end != UINT64_MAX)
		d->resume = end;
}

static void arm_decode(struct arm_pro *d, uint32_t i, uint64_t addr, bool *ends)
{
	unsigned cond = i >> 28, rn = i >> 16 & 15, rt = i >> 12 & 15;
	d->cond = cond != 14 && cond != 15;
	if (cond == 15) {
		if ((i & 0xfe000000u) == 0xfa000000u)  /* BLX <imm> */
			pro_call(d);
		return;                                /* PLD, CPS, barriers, ... */
	}
	switch (i >> 25 & 7) {
	case 0:
		if ((i & 0x90u) == 0x90u && (i & 0x60u) == 0) {
			if ((i & 0x0f000000u) == 0) {          /* multiplies */
				pro_write(d, rn);
				if (i & (1u << 23))
					pro_write(d, rt);      /* long: RdLo */
			} else {
				pro_write(d, rt);              /* SWP, LDREX, STREX's status */
			}
		} else if ((i & 0x90u) == 0x90u) {             /* extra loads and stores */
			bool l = (i >> 20 & 1) != 0, p = (i >> 24 & 1) != 0, w = (i >> 21 & 1) != 0;
			bool immf = (i >> 22 & 1) != 0;
			int64_t off = (int64_t)((i >> 4 & 0xf0u) | (i & 15));
			if (!(i >> 23 & 1))
				off = -off;
			unsigned op2 = i >> 5 & 3;
			if (!immf)
				off = 0;
			if (!l && op2 >= 2) {                  /* LDRD, STRD rt, rt+1 (A8.8.210) */
				if (op2 == 2 && rn == ARM_PC && immf)
					pro_data(d, ((addr + 8) & ~(uint64_t)3) + (uint64_t)off, 8);
				pro_pair(d, op2 == 2, rt, rt + 1, rn, off, p, !p || w, immf, ends);
			} else {
				if (l)
					pro_write(d, rt);
				if (!p || w)
					pro_base_writeback(d, rn, off, immf);
			}
		} else if ((i & 0x0f900000u) == 0x01000000u) { /* miscellaneous (A5.2.12) */
			if ((i & 0x0ffffff0u) == 0x012fff10u)
				*ends = true;                      /* BX Rm */
			else if ((i & 0x0ffffff0u) == 0x012fff30u)
				pro_call(d);                       /* BLX Rm */
			else if ((i & 0x0fb000f0u) == 0x01000000u ||  /* MRS */
			         (i & 0x0ff000f0u) == 0x01600010u ||  /* CLZ */
			         (i & 0x0f9000f0u) == 0x01000050u)    /* QADD, ... */
				pro_write(d, rt);
			else if ((i & 0x90u) == 0x80u)
				pro_write(d, rn);                  /* SMLA<x><y>, SMUL<x><y>, ... */
		} else {
			arm_data_processing(d, i, addr, ends);
		}
		return;
	case 1:
		if ((i & 0x0ff00000u) == 0x03000000u) {        /* MOVW */
			pro_const(d, rt, (i >> 4 & 0xf000u) | (i & 0xfffu));
		} else if ((i & 0x0ff00000u) == 0x03400000u) { /* MOVT */
			int64_t v;
			if (pro_const_get(d, rt, &v))
				pro_const(d, rt, ((uint32_t)v & 0xffffu) | (i & 0xf0000u) << 12 |
				                     (i & 0xfffu) << 16);
			else
				pro_write(d, rt);
		} else if ((i & 0x0fb00000u) == 0x03200000u) { /* MSR, hints */
			return;
		} else {
			arm_data_processing(d, i, addr, ends);
		}
		return;
	case 2:
	case 3: {
		if ((i >> 25 & 1) && (i >> 4 & 1)) {           /* media (A5.4) */
			unsigned op1 = i >> 20 & 31;
			if ((op1 & 0x18) == 0x10 || op1 == 0x18)
				pro_write(d, rn);
			else if (op1 == 0x1f && (i & 0xe0u) == 0xe0u)
				*ends = true;                  /* UDF: a trap */
			else
				pro_write(d, rt);
			return;
		}
		bool l = (i >> 20 & 1) != 0, byte = (i >> 22 & 1) != 0, p = (i >> 24 & 1) != 0;
		bool w = (i >> 21 & 1) != 0, reg = (i >> 25 & 1) != 0;
		int64_t off = (int64_t)(i & 0xfffu);
		if (!(i >> 23 & 1))
			off = -off;
		bool wback = !p || w;
		if (reg) {
			/* ldr pc, [pc, rN, lsl #2]: a table of case addresses */
			if (l && rt == ARM_PC && rn == ARM_PC && p && !w && !byte)
				arm_skip_address_table(d, addr);
			else if (l && !byte)
				pro_table_through(d, addr, rn);
			if (l)
				pro_load(d, rt, rn, 0, false, false, 0, ends);
			if (wback)
				pro_write(d, rn);
		} else if (l && rn == ARM_PC && !byte) {
			pro_literal(d, rt, addr + 8 + (uint64_t)off, 4);
			if (rt == ARM_PC)
				*ends = true;
		} else if (l) {
			pro_load(d, rt, rn, off, p, wback, byte ? 1 : 4, ends);
		} else {
			pro_store(d, rt, rn, off, p, wback, byte ? 1 : 4);
		}
		return;
	}
	case 4: {                                              /* LDM, STM */
		bool l = (i >> 20 & 1) != 0, w = (i >> 21 & 1) != 0;
		uint32_t list = i & 0xffffu;
		unsigned pu = i >> 23 & 3;
		if (rn == ARM_SP && w && !l && pu == 2)            /* STMDB sp! = PUSH */
			pro_push(d, list);
		else if (rn == ARM_SP && w && l && pu == 1)        /* LDMIA sp! = POP */
			pro_pop(d, list, ends);
		else
			pro_block(d, rn, list, l, w, ends);
		return;
	}
	case 5:
		if (i >> 24 & 1) {
			pro_call(d);                               /* BL */
		} else {
			pro_target(d, addr + 8 + (uint64_t)pro_sext((uint64_t)(i & 0xffffffu) << 2, 26));
			*ends = true;                              /* B */
		}
		return;
	default: {                                             /* coprocessor, VFP, SVC */
		uint32_t words = i & 0xffu;
		if ((i & 0x0fbf0e00u) == 0x0d2d0a00u) {                /* VPUSH */
			sw_pro_sp_add(&d->p, -4 * (int64_t)words);
		} else if ((i & 0x0fbf0e00u) == 0x0cbd0a00u) {         /* VPOP */
			sw_pro_sp_add(&d->p, 4 * (int64_t)words);
		} else if ((i & 0x0f3f0e00u) == 0x0d1f0a00u) {         /* VLDR (literal) */
			uint64_t at = ((addr + 8) & ~(uint64_t)3) + 4 * (uint64_t)words;
			if (!(i >> 23 & 1))
				at = ((addr + 8) & ~(uint64_t)3) - 4 * (uint64_t)words;
			pro_data(d, at, (i >> 8 & 1) ? 8 : 4);
		} else if ((i & 0x0f100010u) == 0x0e100010u) {         /* MRC, VMOV to core */
			pro_write(d, rt);
		} else if ((i & 0x0ff00000u) == 0x0c500000u) {         /* MRRC, VMOV rt, rt2 */
			pro_write(d, rt);
			pro_write(d, rn);
		} else if ((i & 0x0e200000u) == 0x0c200000u) {         /* LDC/STC, VLDM/VSTM with write-back */
			pro_write(d, rn);
		}
		return;
	}
	}
}

/* ---- Thumb code (A6.2, A6.3) ---- */

/* ThumbExpandImm (A6.3.2) of i:imm3:imm8. */
static uint32_t thumb_expand_imm(uint32_t hw1, uint32_t hw2)
{
	uint32_t imm12 = (hw1 >> 10 & 1) << 11 | (hw2 >> 12 & 7) << 8 | (hw2 & 0xffu);
	uint32_t b = imm12 & 0xffu;
	switch (imm12 >> 8) {
	case 0: return b;
	case 1: return b << 16 | b;
	case 2: return b << 24 | b << 8;
	case 3: return b << 24 | b << 16 | b << 8 | b;
	default: {
		uint32_t v = 0x80u | (imm12 & 0x7fu), rot = imm12 >> 7;
		return v >> rot | v << (32 - rot);
	}
	}
}

/* The byte or halfword table after TBB/TBH [pc, rN]: offsets (in
 * halfwords) from the table's start to the cases, which follow it. */
static void thumb_skip_branch_table(struct arm_pro *d, uint64_t addr, bool halfwords)
{
	uint64_t table = addr + 4, end = UINT64_MAX;
	unsigned size = halfwords ? 2 : 1;
	for (unsigned k = 0; k < PRO_TABLE_MAX && table + (uint64_t)k * size < end; k++) {
		uint8_t b[2];
		if (!sw_code_read(d->code, table + (uint64_t)k * size, b, size))
			return;
		uint32_t v = halfwords ? (uint32_t)(b[0] | b[1] << 8) : b[0];
		if (v == 0)
			continue;                              /* padding before the cases */
		if (table + 2 * (uint64_t)v < end)
			end = table + 2 * (uint64_t)v;
		pro_target(d, table + 2 * (uint64_t)v);
	}
	if (end != UINT64_MAX)
		d->resume = end;
}

static void thumb_decode16(struct arm_pro *d, uint32_t h, uint64_t addr, bool *ends)
{
	unsigned lo = h & 7, mid = h >> 3 & 7, hi = h >> 8 & 7;
	int64_t v;
	switch (h >> 12) {
	case 0: case 1:
		if ((h >> 11) == 3) {                          /* ADD, SUB (register, imm3) */
			bool sub = (h >> 9 & 1) != 0;
			if (h >> 10 & 1)
				pro_add(d, lo, mid, sub ? -(int64_t)(h >> 6 & 7) : (int64_t)(h >> 6 & 7));
			else
				pro_add_reg(d, lo, mid, h >> 6 & 7, sub);
		} else {
			pro_write(d, lo);                      /* LSL, LSR, ASR (immediate) */
		}
		return;
	case 2: case 3:
		switch (h >> 11 & 3) {
		case 0: pro_const(d, hi, h & 0xffu); return;            /* MOVS #imm8 */
		case 1: return;                                         /* CMP */
		case 2: pro_add(d, hi, hi, h & 0xffu); return;          /* ADDS #imm8 */
		default: pro_add(d, hi, hi, -(int64_t)(h & 0xffu)); return; /* SUBS */
		}
	case 4:
		if ((h & 0xfc00u) == 0x4000u) {                /* data processing */
			unsigned op = h >> 6 & 15;
			if (op != 8 && op != 10 && op != 11)   /* not TST, CMP, CMN */
				pro_write(d, lo);
		} else if ((h & 0xfc00u) == 0x4400u) {         /* special data, BX, BLX */
			unsigned rd = (h >> 4 & 8) | lo, rm = h >> 3 & 15;
			switch (h >> 8 & 3) {
			case 0:                                /* ADD rd, rm */
				if (rd == ARM_PC)
					*ends = true;
				else if (pro_const_get(d, rm, &v))
					pro_add(d, rd, rd, v);
				else if (rm == ARM_SP && pro_const_get(d, rd, &v))
					pro_add(d, rd, ARM_SP, v);
				else
					pro_write(d, rd);
				return;
			case 1:
				return;                        /* CMP */
			case 2:                                /* MOV rd, rm */
				if (rd == ARM_PC)
					*ends = true;
				else if (rm == ARM_PC)
					pro_const(d, rd, (uint32_t)(addr + 4));
				else
					pro_add(d, rd, rm, 0);
				return;
			default:
				if (h & 0x80u)
					pro_call(d);           /* BLX Rm */
				else
					*ends = true;          /* BX Rm */
				return;
			}
		} else {                                       /* LDR (literal) */
			pro_literal(d, hi, ((addr + 4) & ~(uint64_t)3) + 4 * (uint64_t)(h & 0xffu), 4);
		}
		return;
	case 5:                                                /* register offset */
		if ((h >> 9 & 7) >= 3)
			pro_write(d, lo);
		return;
	case 6:                                                /* STR, LDR #imm5 */
		if (h & 0x800u)
			pro_load(d, lo, mid, 4 * (int64_t)(h >> 6 & 31), true, false, 4, ends);
		else
			pro_store(d, lo, mid, 4 * (int64_t)(h >> 6 & 31), true, false, 4);
		return;
	case 7: case 8:                                        /* byte, halfword */
		if (h & 0x800u)
			pro_write(d, lo);
		return;
	case 9:                                                /* STR, LDR [sp, #imm8] */
		if (h & 0x800u)
			pro_load(d, hi, ARM_SP, 4 * (int64_t)(h & 0xffu), true, false, 4, ends);
		else
			pro_store(d, hi, ARM_SP, 4 * (int64_t)(h & 0xffu), true, false, 4);
		return;
	case 10:
		if (h & 0x800u)                                /* ADD rd, sp, #imm8 */
			pro_add(d, hi, ARM_SP, 4 * (int64_t)(h & 0xffu));
		else                                           /* ADR */
			pro_const(d, hi, (uint32_t)(((addr + 4) & ~(uint64_t)3) + 4 * (h & 0xffu)));
		return;
	case 11:                                               /* miscellaneous (A6.2.5) */
		if ((h & 0xff00u) == 0xb000u) {                /* ADD/SUB sp, sp, #imm7 */
			int64_t n = 4 * (int64_t)(h & 0x7fu);
			sw_pro_sp_add(&d->p, (h & 0x80u) ? -n : n);
		} else if ((h & 0xfe00u) == 0xb400u) {         /* PUSH */
			pro_push(d, (h & 0xffu) | ((h & 0x100u) ? rbit(ARM_LR) : 0));
		} else if ((h & 0xfe00u) == 0xbc00u) {         /* POP */
			pro_pop(d, (h & 0xffu) | ((h & 0x100u) ? rbit(ARM_PC) : 0), ends);
		} else if ((h & 0xff00u) == 0xbf00u) {         /* IT, hints */
			if (h & 15u)                           /* 1-4 instructions */
				d->itstate = (uint8_t)(h & 0xffu);
		} else if ((h & 0xff00u) == 0xb200u || (h & 0xff00u) == 0xba00u) {
			pro_write(d, lo);                      /* extend, reverse */
		}
		if ((h & 0xf500u) == 0xb100u)                  /* CBZ, CBNZ */
			pro_target(d, addr + 4 + ((h >> 3 & 0x40u) | (h >> 2 & 0x3eu)));
		return;                                        /* BKPT, CPS */
	case 12:                                               /* STM, LDM rn! */
		pro_block(d, hi, h & 0xffu, (h & 0x800u) != 0, true, ends);
		return;
	case 13:
		if ((h >> 8 & 15) == 14)
			*ends = true;                          /* UDF: a trap (__builtin_trap) */
		else if ((h >> 8 & 15) != 15)                  /* B<c> */
			pro_target(d, addr + 4 + (uint64_t)pro_sext((uint64_t)(h & 0xffu) << 1, 9));
		return;                                        /* SVC */
	default:
		pro_target(d, addr + 4 + (uint64_t)pro_sext((uint64_t)(h & 0x7ffu) << 1, 12));
		*ends = true;                                  /* B */
		return;
	}
}

static void thumb_decode32(struct arm_pro *d, uint32_t hw1, uint32_t hw2, uint64_t addr,
                           bool *ends)
{
	unsigned rn = hw1 & 15, rt = hw2 >> 12 & 15, rd = hw2 >> 8 & 15, rm = hw2 & 15;
	int64_t v;
	if ((hw1 & 0xec00u) == 0xec00u) {                      /* coprocessor, VFP */
		uint32_t words = hw2 & 0xffu;
		if ((hw1 & 0xffbfu) == 0xed2du && (hw2 & 0x0e00u) == 0x0a00u) {       /* VPUSH */
			sw_pro_sp_add(&d->p, -4 * (int64_t)words);
		} else if ((hw1 & 0xffbfu) == 0xecbdu && (hw2 & 0x0e00u) == 0x0a00u) { /* VPOP */
			sw_pro_sp_add(&d->p, 4 * (int64_t)words);
		} else if ((hw1 & 0xff3fu) == 0xed1fu && (hw2 & 0x0e00u) == 0x0a00u) { /* VLDR (literal) */
			uint64_t base = (addr + 4) & ~(uint64_t)3;
			pro_data(d, (hw1 & 0x80u) ? base + 4 * (uint64_t)words : base - 4 * (uint64_t)words,
			         (hw2 & 0x100u) ? 8 : 4);
		} else if ((hw1 & 0xef10u) == 0xee10u && (hw2 & 0x10u)) {             /* MRC, VMOV to core */
			pro_write(d, rt);
		} else if ((hw1 & 0xeff0u) == 0xec50u) {                               /* MRRC, VMOV rt, rt2 */
			pro_write(d, rt);
			pro_write(d, rn);
		} else if ((hw1 & 0xee20u) == 0xec20u) {                               /* write-back */
			pro_write(d, rn);
		}
		return;
	}
	switch (hw1 >> 11 & 3) {
	case 1:
		if ((hw1 & 0xfe40u) == 0xe800u) {                  /* LDM, STM (A6.3.5) */
			uint32_t list = hw2;
			bool l = (hw1 & 0x10u) != 0, w = (hw1 & 0x20u) != 0;
			if (hw1 == 0xe92du)
				pro_push(d, list & 0x5fffu);       /* PUSH.W */
			else if (hw1 == 0xe8bdu)
				pro_pop(d, list & 0xdfffu, ends);  /* POP.W */
			else if ((hw1 >> 7 & 3) == 1 || (hw1 >> 7 & 3) == 2)
				pro_block(d, rn, list, l, w, ends);
		} else if ((hw1 & 0xfe40u) == 0xe840u) {           /* dual, exclusive, TBB/TBH */
			bool p = (hw1 & 0x100u) != 0, w = (hw1 & 0x20u) != 0, l = (hw1 & 0x10u) != 0;
			if ((hw1 & 0xfff0u) == 0xe8d0u && (hw2 & 0xffe0u) == 0xf000u) {
				if (rn == ARM_PC)
					thumb_skip_branch_table(d, addr, (hw2 & 0x10u) != 0);
				*ends = true;                      /* TBB, TBH */
			} else if (!p && !w) {                     /* exclusives */
				if ((hw1 & 0xfff0u) == 0xe840u)
					pro_write(d, rd);          /* STREX's status */
				else if ((hw1 & 0xfff0u) == 0xe8c0u)
					pro_write(d, rm);
				else if (l) {
					pro_write(d, rt);
					if ((hw1 & 0xfff0u) == 0xe8d0u && (hw2 >> 4 & 15) == 7)
						pro_write(d, rd);  /* LDREXD */
				}
			} else {                                   /* LDRD, STRD (A8.8.210) */
				int64_t off = 4 * (int64_t)(hw2 & 0xffu);
				if (!(hw1 & 0x80u))
					off = -off;
				if (l && rn == ARM_PC)
					pro_data(d, ((addr + 4) & ~(uint64_t)3) + (uint64_t)off, 8);
				pro_pair(d, l, rt, rd, rn, off, p, w, true, ends);
			}
		} else if ((hw1 & 0xfe00u) == 0xea00u) {           /* data processing (shifted register) */
			unsigned op = hw1 >> 5 & 15;
			bool s = (hw1 & 0x10u) != 0, plain = (hw2 & 0x70f0u) == 0;
			if (s && rd == 15 && (op == 0 || op == 4 || op == 8 || op == 13))
				return;                            /* TST, TEQ, CMN, CMP */
			if (op == 2 && rn == 15 && plain)
				pro_add(d, rd, rm, 0);             /* MOV.W */
			else if ((op == 8 || op == 13) && plain)
				pro_add_reg(d, rd, rn, rm, op == 13);
			else
				pro_write(d, rd);
		}
		return;
	case 2:
		if (hw2 & 0x8000u) {                               /* branches, misc control */
			uint64_t s = hw1 >> 10 & 1, j1 = hw2 >> 13 & 1, j2 = hw2 >> 11 & 1;
			if ((hw2 & 0x4000u)) {
				pro_call(d);                       /* BL, BLX <imm> */
			} else if (hw2 & 0x1000u) {                /* B.W (T4) */
				uint64_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
				pro_target(d, addr + 4 + (uint64_t)pro_sext(s << 24 | i1 << 23 | i2 << 22 |
				                                             (hw1 & 0x3ffu) << 12 |
				                                             (hw2 & 0x7ffu) << 1, 25));
				*ends = true;
			} else if ((hw1 & 0x0380u) != 0x0380u) {   /* B<c>.W (T3) */
				pro_target(d, addr + 4 + (uint64_t)pro_sext(s << 20 | j2 << 19 | j1 << 18 |
				                                             (hw1 & 0x3fu) << 12 |
				                                             (hw2 & 0x7ffu) << 1, 21));
			} else if ((hw1 & 0xffe0u) == 0xf3e0u) {
				pro_write(d, rd);                  /* MRS */
			} else if (hw1 == 0xf3deu && (hw2 & 0xff00u) == 0x8f00u) {
				*ends = true;                      /* SUBS pc, lr, #imm */
			}
			return;
		}
		if (!(hw1 & 0x200u)) {                             /* modified immediate (A6.3.1) */
			unsigned op = hw1 >> 5 & 15;
			bool s = (hw1 & 0x10u) != 0;
			uint32_t imm = thumb_expand_imm(hw1, hw2);
			if (s && rd == 15 && (op == 0 || op == 4 || op == 8 || op == 13))
				return;                            /* TST, TEQ, CMN, CMP */
			if (op == 8)
				pro_add(d, rd, rn, imm);           /* ADD.W */
			else if (op == 13)
				pro_add(d, rd, rn, -(int64_t)imm); /* SUB.W */
			else if (op == 2 && rn == 15)
				pro_const(d, rd, imm);             /* MOV.W */
			else if (op == 3 && rn == 15)
				pro_const(d, rd, ~imm);            /* MVN */
			else
				pro_write(d, rd);
			return;
		}
		{                                                  /* plain binary immediate (A6.3.3) */
			unsigned op = hw1 >> 4 & 31;
			uint32_t imm12 = (hw1 >> 10 & 1) << 11 | (hw2 >> 12 & 7) << 8 | (hw2 & 0xffu);
			uint32_t imm16 = (hw1 & 15u) << 12 | imm12;
			if ((op == 0 || op == 10) && rn == ARM_PC) {        /* ADR */
				uint64_t base = (addr + 4) & ~(uint64_t)3;
				pro_const(d, rd, (uint32_t)(op == 0 ? base + imm12 : base - imm12));
			} else if (op == 0 || op == 10) {                   /* ADDW, SUBW */
				pro_add(d, rd, rn, op == 0 ? (int64_t)imm12 : -(int64_t)imm12);
			} else if (op == 4) {                               /* MOVW */
				pro_const(d, rd, imm16);
			} else if (op == 12 && pro_const_get(d, rd, &v)) {  /* MOVT */
				pro_const(d, rd, ((uint32_t)v & 0xffffu) | imm16 << 16);
			} else {
				pro_write(d, rd);
			}
		}
		return;
	default:
		if ((hw1 & 0xff10u) == 0xf800u) {                  /* store single (A6.3.10) */
			bool word = (hw1 & 0x60u) == 0x40u;
			if (hw1 & 0x80u) {                         /* #imm12 */
				pro_store(d, rt, rn, (int64_t)(hw2 & 0xfffu), true, false, word ? 4 : 1);
			} else if (hw2 & 0x800u) {                 /* #+-imm8, index, write-back */
				int64_t off = (hw2 & 0x200u) ? (int64_t)(hw2 & 0xffu) : -(int64_t)(hw2 & 0xffu);
				pro_store(d, rt, rn, off, (hw2 & 0x400u) != 0, (hw2 & 0x100u) != 0 || !(hw2 & 0x400u),
				          word ? 4 : 1);
			}
		} else if ((hw1 & 0xfe10u) == 0xf810u) {           /* loads (A6.3.7-9) */
			bool word = (hw1 & 0x60u) == 0x40u;
			if (rt == ARM_PC && !word)
				return;                            /* PLD, PLI */
			if (rn == ARM_PC) {                        /* literal */
				uint64_t base = (addr + 4) & ~(uint64_t)3;
				uint64_t at = (hw1 & 0x80u) ? base + (hw2 & 0xfffu) : base - (hw2 & 0xfffu);
				if (!word)
					pro_write(d, rt);
				else if (rt == ARM_PC)
					*ends = true;
				else
					pro_literal(d, rt, at, 4);
			} else if (hw1 & 0x80u) {                  /* #imm12 */
				pro_load(d, rt, rn, (int64_t)(hw2 & 0xfffu), true, false, word ? 4 : 1, ends);
			} else if (hw2 & 0x800u) {                 /* #+-imm8, index, write-back */
				int64_t off = (hw2 & 0x200u) ? (int64_t)(hw2 & 0xffu) : -(int64_t)(hw2 & 0xffu);
				pro_load(d, rt, rn, off, (hw2 & 0x400u) != 0,
				         (hw2 & 0x100u) != 0 || !(hw2 & 0x400u), word ? 4 : 1, ends);
			} else {                                   /* register offset */
				if (word)
					pro_table_through(d, addr, rn);
				pro_load(d, rt, rn, 0, false, false, 0, ends);
			}
		} else if ((hw1 & 0xff80u) == 0xfb80u) {           /* long multiply, divide */
			if (rt != 15)
				pro_write(d, rt);
			pro_write(d, rd);
		} else if ((hw1 & 0xff00u) == 0xfa00u || (hw1 & 0xff80u) == 0xfb00u) {
			pro_write(d, rd);                          /* register data processing, multiply */
		}
		return;
	}
}

/* Conditional execution: an instruction that may not run changes the
 * frame only in ways that hold on both paths. */
static void pro_save(const struct arm_pro *d, struct pro_snapshot *s)
{
	s->p = d->p;
	s->sp_copy = d->sp_copy;
	memcpy(s->sp_copy_off, d->sp_copy_off, sizeof s->sp_copy_off);
}

static void pro_restore(struct arm_pro *d, const struct pro_snapshot *s)
{
	d->p = s->p;
	d->sp_copy = s->sp_copy;
	memcpy(d->sp_copy_off, s->sp_copy_off, sizeof d->sp_copy_off);
}

static void pro_merge_conditional(struct arm_pro *d, const struct pro_snapshot *before,
                                  bool *ends)
{
	if (*ends) {
		/* A conditional return or branch: the path goes on as before
		 * its run of the same condition (where it may lead and what it
		 * reads stay known). */
		pro_restore(d, &d->run);
		*ends = false;
		return;
	}
	struct sw_pro_frame *f = &d->p.cur;
	const struct sw_pro_frame *b = &before->p.cur;
	if (f->sp_known != b->sp_known || f->sp_off != b->sp_off)
		sw_pro_sp_unknown(&d->p);
	if (f->fp_known && (!b->fp_known || f->fp_off != b->fp_off))
		sw_pro_write(&d->p, d->p.fp);
	/* A conditional store saves nothing; a conditional reload restores
	 * nothing for sure. */
	f->saved = b->saved;
	memcpy(f->slot, b->slot, sizeof f->slot);
	memcpy(f->width, b->width, sizeof f->width);
	f->restored = b->restored;
	uint32_t changed = 0;
	for (unsigned r = 0; r < ARM_NCORE; r++)
		if ((d->p.const_known ^ before->p.const_known) & rbit(r) ||
		    ((d->p.const_known & rbit(r)) && d->p.const_val[r] != before->p.const_val[r]))
			changed |= rbit(r);
	d->p.const_known &= ~changed;
	for (unsigned r = 0; r < ARM_NCORE; r++)
		if ((d->sp_copy ^ before->sp_copy) & rbit(r) ||
		    ((d->sp_copy & rbit(r)) && d->sp_copy_off[r] != before->sp_copy_off[r]))
			d->sp_copy &= ~rbit(r);
}

/* The instruction about to be decoded runs under condition cc (14 and 15:
 * always). A new run of one condition keeps the frame from before it. */
static void pro_condition(struct arm_pro *d, unsigned cc)
{
	d->cond = cc < 14;
	if (!d->cond) {
		d->run_cc = -1;
		return;
	}
	if ((int)cc != d->run_cc) {
		d->run_cc = (int)cc;
		pro_save(d, &d->run);
	}
}

/* Is there data at a (a literal or table the decode met a load of)?
 * Where it ends, else 0. */
static uint64_t pro_data_at(const struct arm_pro *d, uint64_t a)
{
	for (unsigned k = 0; k < d->ndata; k++)
		if (d->data[k] == a)
			return d->data_end[k];
	return 0;
}

static void pro_init(struct arm_pro *d, const struct sw_walk *w, struct sw_code *c, bool thumb)
{
	memset(d, 0, sizeof *d);
	sw_pro_init(&d->p, w->arch);
	d->code = c;
	d->thumb = thumb;
	d->run_cc = -1;
	/* The frame pointer: r7 in Thumb code and on Apple systems, r11 in
	 * ARM code elsewhere (arm_frame_pointer_register). */
	d->p.fp = thumb || arm_is_apple(w) ? ARM_R7 : ARM_R11;
}

/* The no-operation instructions that pad code: ARM `mov r0, r0` and NOP,
 * Thumb `mov r8, r8` and NOP, and the zero halfword (`movs r0, r0`). */
static bool pro_is_padding(bool thumb, uint32_t i)
{
	return thumb ? i == 0xbf00u || i == 0x46c0u || i == 0
	             : i == 0xe1a00000u || i == 0xe320f000u;
}

/* The decode of a searched start goes on at a (instruction i): after a
 * path ended, the block that begins there must be a branch's target, now
 * or by the end of the decode (pro_all_reached). False when too many
 * blocks wait. Padding between is skipped over. */
static bool pro_reachable(struct arm_pro *d, uint64_t a, uint32_t i)
{
	if (!d->search || !d->after_end)
		return true;
	/* The B instructions of a branch table after `add pc, pc, rN, lsl #2`. */
	bool table_entry = d->branch_table && !d->thumb && (i & 0xff000000u) == 0xea000000u;
	d->branch_table = table_entry;
	if (table_entry || pro_is_padding(d->thumb, i))
		return true;
	d->after_end = false;
	if (pro_reached(d, a))
		return true;
	if (d->lookahead || d->npending == PRO_PENDING)
		return false;
	d->pending[d->npending++] = a;
	return true;
}

/* Has a branch of the decode reached every block that waited? */
static bool pro_all_reached(const struct arm_pro *d)
{
	for (unsigned k = 0; k < d->npending; k++)
		if (!pro_reached(d, d->pending[k]))
			return false;
	return true;
}

/* Decodes from *at up to stop (*at: where it got to). False when code
 * cannot be read or is no frame's, or the budget is spent; with
 * d->lookahead, also at the first block after a path's end that no branch
 * has reached (where another function may begin), and done (true) as soon
 * as every waiting block is reached. */
static bool pro_run(struct arm_pro *d, uint64_t *at, uint64_t stop, unsigned *budget)
{
	struct pro_snapshot before;
	memset(&before, 0, sizeof before);
	uint64_t a = *at;
	bool ok = true;
	while (a < stop && !(d->lookahead && pro_all_reached(d))) {
		uint64_t skip = pro_data_at(d, a);
		if (skip) {
			a = skip;
			continue;
		}
		if (*budget == 0) {
			ok = false;
			break;
		}
		--*budget;
		bool ends = false;
		uint32_t i, hw2 = 0;
		unsigned len = 4;
		d->resume = 0;
		if (!d->thumb) {
			if (!pro_read(d, a, 4, &i) || !pro_reachable(d, a, i)) {
				ok = false;
				break;
			}
			pro_condition(d, i >> 28);
			if (d->cond)
				pro_save(d, &before);
			arm_decode(d, i, a, &ends);
		} else {
			if (!pro_read(d, a, 2, &i)) {
				ok = false;
				break;
			}
			bool wide = (i & 0xe000u) == 0xe000u && (i & 0x1800u) != 0;
			if ((wide && !pro_read(d, a + 2, 2, &hw2)) || !pro_reachable(d, a, i)) {
				ok = false;
				break;
			}
			len = wide ? 4 : 2;
			/* In an IT block the condition is ITSTATE[7:4]; the block
			 * advances after each instruction (ITAdvance). */
			bool in_it = (d->itstate & 15u) != 0;
			pro_condition(d, in_it ? d->itstate >> 4 : 14);
			if (in_it)
				d->itstate = (d->itstate & 7u) ? (uint8_t)((d->itstate & 0xe0u) |
				                                           ((d->itstate << 1) & 0x1fu))
				                               : 0;
			if (d->cond)
				pro_save(d, &before);
			if (wide)
				thumb_decode32(d, i, hw2, a, &ends);
			else
				thumb_decode16(d, i, a, &ends);
		}
		if (d->cond)
			pro_merge_conditional(d, &before, &ends);
		if (d->p.failed) {
			ok = false;
			break;
		}
		if (ends) {
			sw_pro_path_end(&d->p);
			d->after_end = true;
		}
		a += len;
		if (d->resume > a && d->resume <= stop)
			a = d->resume;
	}
	*at = a;
	return ok;
}

/* Decodes [start, pc) into d; true if an instruction ends exactly at pc.
 * A start found by search (not a symbol's) must reach pc: the code after
 * each return, branch or tail call must be a target of a branch decoded
 * before or after it (padding aside: pro_reachable), or it is where
 * another function begins. Branches past pc are sought for up to
 * PRO_LOOKAHEAD bytes, on a copy: they say nothing of the frame at pc.
 * Each instruction costs one unit of *budget. A function larger than
 * PRO_MAX_FORWARD has its first part decoded and the rest taken for body
 * code that has made calls. */
static bool pro_decode(struct arm_pro *d, uint64_t start, uint64_t pc, bool search,
                       unsigned *budget)
{
	uint64_t a = start, stop = pc;
	d->start = start;
	d->p.decoded_from = start;
	d->search = search;
	d->lookahead = false;
	d->after_end = false;
	d->npending = 0;
	bool truncated = pc - start > PRO_MAX_FORWARD;
	if (truncated)
		stop = start + PRO_MAX_FORWARD;
	if (!pro_run(d, &a, stop, budget))
		return false;
	if (truncated) {
		pro_call(d);
		return true;
	}
	uint32_t at_pc;
	if (a != pc || (d->after_end && !(pro_read(d, pc, d->thumb ? 2 : 4, &at_pc) &&
	                                  pro_reachable(d, pc, at_pc))))
		return false;
	if (pro_all_reached(d))
		return true;
	/* A loop's body after the jump to its test is reached by the branch
	 * at its end, which may lie past pc. */
	struct arm_pro ahead = *d;
	ahead.lookahead = true;
	pro_run(&ahead, &a, pc + PRO_LOOKAHEAD, budget);
	return pro_all_reached(&ahead);
}

/* Does the instruction at a open a frame by saving lr: push {..., lr}
 * (ARM STMDB sp!, Thumb PUSH and PUSH.W) or str lr, [sp, #-4]!? */
static bool pro_saves_lr_at(struct arm_pro *d, uint64_t a)
{
	uint32_t i, hw2;
	if (!d->thumb)
		return pro_read(d, a, 4, &i) && ((i & 0xffff4000u) == 0xe92d4000u || i == 0xe52de004u);
	if (!pro_read(d, a, 2, &i))
		return false;
	if ((i & 0xff00u) == 0xb500u)
		return true;
	return (i == 0xe92du || i == 0xf84du) && pro_read(d, a + 2, 2, &hw2) &&
	       (i == 0xe92du ? (hw2 & 0x4000u) != 0 : hw2 == 0xed04u);
}

/* Does the instruction at a push only argument registers (r0-r3)? A
 * variadic function spills them first (push {r0-r3}), a few instructions
 * before its save of lr. */
static bool pro_pushes_args_at(struct arm_pro *d, uint64_t a)
{
	uint32_t i, hw2;
	if (!d->thumb)
		return pro_read(d, a, 4, &i) && (i & 0xfffffff0u) == 0xe92d0000u && (i & 15);
	if (!pro_read(d, a, 2, &i))
		return false;
	if ((i & 0xfff0u) == 0xb400u && (i & 15))
		return true;
	return i == 0xe92du && pro_read(d, a + 2, 2, &hw2) && (hw2 & 0xfff0u) == 0 && (hw2 & 15);
}

/* Does the instruction at a push callee-saved registers (r4-r11) but
 * not lr: push {r4, r7} (Thumb b4xx, push.w e92d), stmdb sp!, str rX,
 * [sp, #-4]!? A leaf that needs registers of its own opens its frame so
 * (GCC's -fno-omit-frame-pointer Thumb leaf: push {r4, r7}; add r7, sp,
 * #0), keeping its return address in lr. */
static bool pro_pushes_without_lr_at(struct arm_pro *d, uint64_t a)
{
	uint32_t i, hw2;
	if (!d->thumb)
		return pro_read(d, a, 4, &i) &&
		       (((i & 0xffff4000u) == 0xe92d0000u && (i & 0x0ff0u)) ||
		        ((i & 0xffff0fffu) == 0xe52d0004u && ((i >> 12) & 15) >= 4 &&
		         ((i >> 12) & 15) <= 11));
	if (!pro_read(d, a, 2, &i))
		return false;
	if ((i & 0xff00u) == 0xb400u)
		return (i & 0xf0u) != 0;
	return (i == 0xe92du || i == 0xf84du) && pro_read(d, a + 2, 2, &hw2) &&
	       (i == 0xe92du ? (hw2 & 0x4000u) == 0 && (hw2 & 0x0ff0u) != 0
	                     : (hw2 & 0x0fffu) == 0x0d04u && (hw2 >> 12) >= 4 && (hw2 >> 12) <= 11);
}

/* How far before a save of lr a variadic function's push of its argument
 * registers is sought. */
enum { PRO_ARGS_REACH = 16 };

/* Without a symbol to say where the function begins: the nearest save of
 * lr before origin (a frame that has made calls has saved lr; a leaf
 * keeps it live, and the frame-pointer hook takes a live lr) from which
 * the decode reaches pc (pro_decode: past a return only through a branch
 * to what follows it), keeps track of the CFA and has lr saved at pc.
 * For a live frame (`leaf`), also the nearest push of registers without
 * lr from which the decode reaches pc with the CFA known and lr neither
 * saved nor replaced by a call: a leaf that saved registers, its caller
 * in lr (the caller checks lr as a scanned word). A
 * live frame stopped on such a save has saved nothing yet: its function
 * begins there (or, shrink-wrapped, saves nothing before it). A push of
 * the argument registers just before the save is the function's too (a
 * variadic one's start). Never before the module holding origin, more
 * than PRO_MAX_BACKWARD bytes back, or past code that cannot be read. */
static bool pro_search(struct arm_pro *d, const struct sw_walk *w, struct sw_code *c, bool thumb,
                       uint64_t origin, uint64_t pc, bool leaf, unsigned *budget)
{
	uint64_t lo = sw_pro_search_floor(w, origin, PRO_MAX_BACKWARD);
	unsigned step = thumb ? 2 : 4;
	pro_init(d, w, c, thumb);
	for (uint64_t x = origin & ~(uint64_t)(step - 1); x >= lo && x >= step; x -= step) {
		uint32_t probe;
		if (!pro_read(d, x, step, &probe))
			return false;
		bool saves_lr = pro_saves_lr_at(d, x);
		if (!saves_lr && !(leaf && x != pc && pro_pushes_without_lr_at(d, x)))
			continue;
		pro_init(d, w, c, thumb);
		if (x == pc)
			return pro_decode(d, x, pc, true, budget);
		uint64_t from = x;
		for (uint64_t y = x - step; y >= lo && y < x && x - y <= PRO_ARGS_REACH; y -= step)
			if (pro_pushes_args_at(d, y)) {
				from = y;
				break;
			}
		if (pro_decode(d, from, pc, true, budget) && (d->p.cur.sp_known || d->p.cur.fp_known) &&
		    (saves_lr ? (d->p.cur.saved & rbit(ARM_LR)) != 0
		              : !(d->p.cur.saved & rbit(ARM_LR)) && !d->p.cur.ra_clobbered))
			return true;
		if (*budget == 0)
			return false;
		pro_init(d, w, c, thumb);
	}
	return false;
}

/* The frame state at the callee's pc, decoded from its function's start:
 * the symbols' (a sized ELF symbol, a .sym FUNC record), else one
 * pro_search finds. *searched: the start came from the search. */
static bool arm_analyze(const struct sw_step *s, struct sw_code *c, struct arm_pro *d,
                        bool *searched)
{
	const struct sw_frame *callee = s->callee;
	const struct sw_walk *w = s->walk;
	bool thumb = arm_frame_is_thumb(callee);
	uint64_t pc = callee->pc & 0xfffffffeu;
	*searched = false;
	if (!thumb && (pc & 3))
		return false;
	sw_code_init(c, w);
	uint64_t start = sw_pro_symbol_start(s) & ~(uint64_t)1;
	unsigned budget = PRO_DECODE_BUDGET;
	if (start && start <= pc && !callee->function_is_public) {
		pro_init(d, w, c, thumb);
		return pro_decode(d, start, pc, false, &budget);
	}
	/* A live frame's lr, when a direct call left it, names where that
	 * call went: if the code from there reaches pc, that is this
	 * function's start (a leaf's, whose lr is its return address; a
	 * function whose lr is left over from a call of its own has called
	 * some other function). */
	bool live = sw_frame_has_live_context(callee);
	uint64_t target;
	if (live && sw_reg_valid(&callee->regs, ARM_LR) &&
	    arm_call_target(w, callee->regs.v[ARM_LR], &target) && target <= pc &&
	    pc - target < PRO_MAX_BACKWARD && sw_module_at(w->snap, target) == sw_module_at(w->snap, pc)) {
		pro_init(d, w, c, thumb);
		if (pro_decode(d, target & ~(uint64_t)1, pc, true, &budget)) {
			*searched = true;
			return true;
		}
	}
	/* A symbol without a size may name an exported function far below
	 * the static one pc is in: the code's own evidence first. A
	 * suspended frame's function is its call's, which may end it. */
	uint64_t origin = live ? pc : callee->lookup_pc & ~(uint64_t)1;
	if (pro_search(d, w, c, thumb, origin, pc, live, &budget)) {
		*searched = true;
		return true;
	}
	if (!start || start > pc)
		return false;
	pro_init(d, w, c, thumb);
	budget = PRO_DECODE_BUDGET;
	return pro_decode(d, start, pc, false, &budget);
}

/* The caller by the frame state at pc (arch/prologue.c: sp = the CFA, pc
 * = the saved or live lr, r4-r11 from their slots or as the callee left
 * them). A live lr the decode saw no call replace is checked as the
 * walker checks a scanned word: a return address into the callee's own
 * function is left over from a call the decode could not see (code not
 * what the symbols say), unless a direct call proves recursion. A start
 * the search found is refused when the caller's call is a direct one to
 * a function that begins between that start and pc: the save of lr
 * belonged to an earlier function (one that ended in a call that does not
 * return, without a return to stop the search). */
static enum sw_unwind_status arm_caller_by_prologue(const struct sw_step *s,
                                                    struct sw_caller *out)
{
	const struct sw_frame *callee = s->callee;
	if (!sw_reg_valid(&callee->regs, ARM_SP))
		return SW_UNWIND_NO_RULE;
	struct sw_code c;
	struct arm_pro d;
	bool searched;
	if (!arm_analyze(s, &c, &d, &searched))
		return SW_UNWIND_NO_RULE;
	enum sw_unwind_status st = sw_pro_caller(&d.p, s, out);
	/* A searched start proves too little for a NULL saved lr to end the
	 * walk (the decode may have run in from an earlier function that
	 * ended in a call that does not return). */
	if (st == SW_UNWIND_END && searched)
		return SW_UNWIND_NO_RULE;
	uint64_t target;
	if (st == SW_UNWIND_OK && !(d.p.cur.saved & rbit(ARM_LR)) &&
	    !sw_walk_call_may_reach(s->walk, out->regs.v[ARM_PC], callee))
		return SW_UNWIND_NO_RULE;
	if (st == SW_UNWIND_OK && searched &&
	    arm_call_target(s->walk, out->regs.v[ARM_PC], &target) &&
	    sw_module_at(s->walk->snap, target) == sw_module_at(s->walk->snap, callee->lookup_pc) &&
	    target > d.start && target <= (callee->pc & 0xfffffffeu))
		return SW_UNWIND_NO_RULE;
	return st;
}

/* ---- a leaf's return, read ahead ------------------------------------------ */

/* How many instructions from pc the leaf rule reads, and how much stack
 * the code on the way to its return may release (`add sp, sp, #N`, a pop
 * of registers other than lr: the frame a leaf allocated below its
 * caller's sp). */
enum { ARM_LEAF_REACH = 32, ARM_LEAF_MAX_RELEASE = 1 << 20 };

/* Does the instruction at a leave the straight path, or trap: any branch
 * (direct, through a register, a write of pc: a return too), a call, SVC,
 * BKPT, UDF? Decoded as if it ran (its condition aside) on a copy. *len:
 * its size; *ret: it is `bx lr` (ARM `bx<c> lr`; Thumb `bx lr`, which may
 * sit in an IT block). */
static bool arm_leaf_leaves_path(const struct arm_pro *d, uint64_t a, unsigned *len, bool *ret)
{
	struct arm_pro t = *d;
	uint32_t i, hw2 = 0;
	bool ends = false;
	*ret = false;
	t.cond = false;
	t.run_cc = -1;
	if (!d->thumb) {
		*len = 4;
		if (!pro_read(&t, a, 4, &i) || i >> 28 == 15)
			return true; /* unconditional space: BLX <imm>, ... */
		if ((i & 0x0fffffffu) == 0x012fff1eu) {
			*ret = true;
			return true;
		}
		if ((i & 0x0f000000u) == 0x0f000000u || (i & 0x0ff000f0u) == 0x01200070u)
			return true; /* SVC, BKPT */
		arm_decode(&t, (i & 0x0fffffffu) | 0xe0000000u, a, &ends);
	} else {
		if (!pro_read(&t, a, 2, &i))
			return true;
		bool wide = (i & 0xe000u) == 0xe000u && (i & 0x1800u) != 0;
		*len = wide ? 4 : 2;
		if (wide && !pro_read(&t, a + 2, 2, &hw2))
			return true;
		if (i == 0x4770u) {
			*ret = true;
			return true;
		}
		if ((i & 0xff00u) == 0xdf00u || (i & 0xff00u) == 0xbe00u ||
		    (wide && (i & 0xfff0u) == 0xf7f0u && (hw2 & 0xf000u) == 0xa000u))
			return true; /* SVC, BKPT, UDF.W */
		t.itstate = 0;
		if (wide)
			thumb_decode32(&t, i, hw2, a, &ends);
		else
			thumb_decode16(&t, i, a, &ends);
	}
	return ends || t.branches != d->branches || t.p.cur.ra_clobbered != d->p.cur.ra_clobbered ||
	       t.p.failed;
}

/* The caller_of_leaf hook: a live frame whose code from pc on runs
 * straight to `bx lr`, never lowering sp (by what it decodes to: pushes,
 * pops, sp arithmetic) nor writing lr, and calling nothing, returns to lr
 * with sp as it is then: lr is its return address, sp raised by what the
 * path releases (`add sp, sp, #N`, a pop of other registers: zoo armhf
 * 1143 stripped, f8's 1 KiB frame) its caller's. No start,
 * no symbol needed: a leaf reached through a pointer (zoo armhf 1041 and
 * 1052 stripped: f6 and f4, `blx r3` in their callers, no symbols; the
 * scan took a return address two or three frames up) is what the code
 * ahead of pc shows it to be. A conditional `bx lr` on the way must see
 * the same. Any branch, call, trap or a path that runs out of reach or
 * readable code: nothing proven. The registers the code writes before
 * its return are not passed on. */
static enum sw_unwind_status arm_caller_of_leaf(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	if (!sw_reg_valid(&callee->regs, ARM_SP) || !sw_reg_valid(&callee->regs, ARM_LR))
		return SW_UNWIND_NO_RULE;
	bool thumb = arm_frame_is_thumb(callee);
	uint64_t a = callee->pc & 0xfffffffeu;
	if (!thumb && (a & 3))
		return SW_UNWIND_NO_RULE;
	struct sw_code c;
	struct arm_pro d;
	sw_code_init(&c, w);
	pro_init(&d, w, &c, thumb);
	d.p.cur.sp_off = -ARM_LEAF_MAX_RELEASE;
	unsigned budget = ARM_LEAF_REACH;
	for (unsigned k = 0; k < ARM_LEAF_REACH; k++) {
		unsigned len;
		bool ret;
		if (!arm_leaf_leaves_path(&d, a, &len, &ret)) {
			uint64_t next = a;
			if (!pro_run(&d, &next, a + 1, &budget) || next != a + len || d.after_end)
				return SW_UNWIND_NO_RULE;
			a = next;
			continue;
		}
		const struct sw_pro_frame *f = &d.p.cur;
		int64_t released = f->sp_off + ARM_LEAF_MAX_RELEASE;
		if (!ret || !f->sp_known || released < 0 || released % 4 != 0 ||
		    f->ra_clobbered || (f->written & rbit(ARM_LR)))
			return SW_UNWIND_NO_RULE;
		uint32_t i = 0;
		bool conditional = thumb ? (d.itstate & 15u) != 0
		                         : !pro_read(&d, a, 4, &i) || i >> 28 != 14;
		if (!conditional) {
			if (sw_walk_caller_by_link_register(s, out) != SW_UNWIND_OK)
				return SW_UNWIND_NO_RULE;
			sw_reg_set(&out->regs, ARM_SP, callee->regs.v[ARM_SP] + (uint64_t)released);
			for (unsigned r = 0; r < ARM_NCORE; r++)
				if ((f->written | f->saved) & rbit(r))
					sw_reg_clear(&out->regs, r);
			return SW_UNWIND_OK;
		}
		/* Not taken, it changes nothing: the path goes on. */
		uint64_t next = a;
		if (!pro_run(&d, &next, a + 1, &budget) || next != a + len)
			return SW_UNWIND_NO_RULE;
		a = next;
	}
	return SW_UNWIND_NO_RULE;
}

/* ---- frame-pointer chains ---------------------------------------------- */

/* The register that holds the frame's frame pointer, or -1:
 *  - Apple: r7, in both instruction sets;
 *  - elsewhere, ARM code: r11 (GCC's and clang's -fno-omit-frame-pointer,
 *    APCS frames);
 *  - elsewhere, Thumb code: none. GCC points r7 at the bottom of the
 *    locals, not at a saved pair, and r11 is an ordinary register there
 *    that may still hold an ARM-code ancestor's frame pointer (following
 *    it would skip frames). Breakpad follows no chain off Apple at all. */
static int arm_frame_pointer_register(const struct sw_walk *w, const struct sw_frame *f)
{
	if (arm_is_apple(w))
		return ARM_R7;
	return arm_frame_is_thumb(f) ? -1 : ARM_R11;
}

enum record_kind {
	RECORD_NONE,   /* no record we can vouch for */
	RECORD_FOUND,  /* the caller's pc, frame pointer and sp */
	RECORD_LEAF,   /* a live frame that saved only the caller's frame
	                  pointer (GCC's leaf): the caller is in lr; fp, sp */
	RECORD_END,    /* an intact record with a NULL return address */
};

/* What a record at the frame pointer gives for the caller. */
struct arm_record {
	uint64_t ra, fp, sp;
};

static bool read_word(const struct sw_walk *w, uint64_t addr, uint64_t *v)
{
	return addr >= 4 && addr <= 0xfffffffcu && sw_walk_read_word(w, addr, v);
}

/* A saved frame pointer that can continue the chain: NULL (the chain
 * ends), or an aligned stack address above the record that holds it. */
static bool saved_fp_ok(const struct sw_walk *w, uint64_t saved, uint64_t fp)
{
	uint64_t unused;
	return saved == 0 || (saved > fp && saved % 4 == 0 && read_word(w, saved, &unused));
}

/* Apple's record: [r7] = the caller's r7, [r7 + 4] = lr; the caller's sp
 * is r7 + 8. A record of two zeros, or a NULL lr under a valid saved r7,
 * ends the chain (thread entry points start with r7 = lr = 0). */
static enum record_kind apple_record(const struct sw_walk *w, uint64_t fp, uint64_t sp,
                                     struct arm_record *rec)
{
	uint64_t saved_fp, saved_lr;
	if (fp % 4 != 0 || fp < sp || !read_word(w, fp, &saved_fp) ||
	    !read_word(w, fp + 4, &saved_lr))
		return RECORD_NONE;
	if (saved_lr == 0 && (saved_fp == 0 || saved_fp_ok(w, saved_fp, fp)))
		return RECORD_END;
	if (!saved_fp_ok(w, saved_fp, fp) || !sw_walk_is_return_address(w, saved_lr))
		return RECORD_NONE;
	*rec = (struct arm_record){ saved_lr, saved_fp, fp + 8 };
	return RECORD_FOUND;
}

/* The r11 records of ARM code elsewhere. Compilers lay them out three ways,
 * told apart by what each slot must hold:
 *   APCS (-mapcs-frame): `mov ip, sp; push {fp, ip, lr, pc}; sub fp, ip, #4`
 *       [fp] = pc, [fp-4] = lr, [fp-8] = the caller's sp = fp + 4,
 *       [fp-12] = the caller's fp;
 *   GCC: `push {..., fp, lr}; add fp, sp, #N`, fp at the saved lr:
 *       [fp] = lr, [fp-4] = the caller's fp, the caller's sp = fp + 4;
 *   clang and the AAPCS frame chain (-mframe-chain=aapcs): `push {..., fp,
 *       lr}; add fp, sp, #N`, fp at the saved fp: [fp] = the caller's fp,
 *       [fp+4] = lr, the caller's sp = fp + 8.
 * A live frame (frame 0, a signal frame) may also be a GCC leaf, which
 * pushes only fp (`push {fp}; add fp, sp, #0`): [fp] = the caller's fp,
 * itself a GCC record, and the return address still in lr.
 * Each saved lr must pass the scan's return-address checks and each saved
 * fp lie above the record, so a value of r11 that is no frame pointer
 * (code built without one uses r11 freely) rarely passes. For the same
 * reason a NULL lr ends the chain only where r11 is known to be a frame
 * pointer: in an APCS record (its saved sp vouches for it), or when the
 * frame's r11 itself came from a record (`chained`); there a record of
 * zeros, or a NULL lr under a valid saved fp, is the outermost one (the
 * startup code zeroed fp and lr). */
static enum record_kind aapcs_record(const struct sw_walk *w, uint64_t fp, uint64_t sp,
                                     bool live, bool chained, struct arm_record *rec)
{
	uint64_t at0 = 0, at4 = 0, m4 = 0, m8 = 0, m12 = 0;
	if (fp % 4 != 0 || fp < sp || !read_word(w, fp, &at0))
		return RECORD_NONE;
	bool has_m4 = read_word(w, fp - 4, &m4), has_at4 = read_word(w, fp + 4, &at4);

	/* APCS: the saved ip is exactly fp + 4. */
	if (has_m4 && read_word(w, fp - 8, &m8) && read_word(w, fp - 12, &m12) &&
	    m8 == fp + 4 && saved_fp_ok(w, m12, fp)) {
		if (m4 == 0)
			return RECORD_END;
		if (sw_walk_is_return_address(w, m4)) {
			*rec = (struct arm_record){ m4, m12, m8 };
			return RECORD_FOUND;
		}
	}
	/* GCC: lr at fp, the caller's fp below it. */
	if (has_m4 && saved_fp_ok(w, m4, fp) && sw_walk_is_return_address(w, at0)) {
		*rec = (struct arm_record){ at0, m4, fp + 4 };
		return RECORD_FOUND;
	}
	/* GCC's leaf: the caller's GCC record at [fp]. */
	uint64_t caller_ra, caller_fp;
	if (live && at0 != 0 && saved_fp_ok(w, at0, fp) && read_word(w, at0, &caller_ra) &&
	    read_word(w, at0 - 4, &caller_fp) && saved_fp_ok(w, caller_fp, at0) &&
	    sw_walk_is_return_address(w, caller_ra)) {
		*rec = (struct arm_record){ 0, at0, fp + 4 };
		return RECORD_LEAF;
	}
	/* AAPCS frame chain: the caller's fp at fp, lr above it. */
	if (has_at4 && saved_fp_ok(w, at0, fp) && sw_walk_is_return_address(w, at4)) {
		*rec = (struct arm_record){ at4, at0, fp + 8 };
		return RECORD_FOUND;
	}
	/* A NULL return address in an intact record of either layout. */
	if (chained && ((has_m4 && at0 == 0 && saved_fp_ok(w, m4, fp)) ||
	                (has_at4 && at4 == 0 && saved_fp_ok(w, at0, fp))))
		return RECORD_END;
	return RECORD_NONE;
}

/* May the live link register of a frame whose own record does not hold it
 * be its return address? In a function that has made calls of its own, lr
 * points back into that function (or holds scratch: the AAPCS lets a
 * function that saved lr use it as it likes), so:
 *  - lr's call site in the frame's own function: left over, no;
 *  - in another function (by the symbols, or another module): yes;
 *  - unknown: on Apple systems yes, as Breakpad takes it there; after a
 *    GCC leaf record yes (the leaf saved fp but not lr); otherwise no, as
 *    neither Breakpad nor rust-minidump takes lr elsewhere (on Android
 *    crashes inside large functions, lr is mostly left over). */
static bool arm_lr_may_return(const struct sw_step *s, uint64_t lr, enum record_kind kind)
{
	const struct sw_walk *w = s->walk;
	switch (sw_arch_same_function(w, arm_call_site(lr), s->callee->lookup_pc)) {
	case SW_FUNCTION_SAME: return false;
	case SW_FUNCTION_DIFFERENT: return true;
	case SW_FUNCTION_UNKNOWN: break;
	}
	return arm_is_apple(w) || kind == RECORD_LEAF;
}

/* Does the code from `from` (a function's start) reach `to` (pro_decode
 * of a searched start: through branches past each return)? */
static bool arm_code_reaches(const struct sw_walk *w, uint64_t from, uint64_t to, bool thumb)
{
	struct sw_code c;
	struct arm_pro d;
	unsigned budget = PRO_DECODE_BUDGET;
	sw_code_init(&c, w);
	pro_init(&d, w, &c, thumb);
	return from <= to && to - from < PRO_MAX_BACKWARD && pro_decode(&d, from, to, true, &budget);
}

/* How many candidates the ARM scan refuses before it gives up. */
enum { ARM_SCAN_REFUSALS = 8 };

/* Would a caller with return address ra skip the live lr of a frame
 * whose code cannot be placed (no symbols, no save of lr reaching pc: a
 * leaf keeping its return address in lr, perhaps with a frame of its own,
 * called through a pointer so that no direct call names it)? When ra's
 * call is a direct one, within pc's module, to a function whose code does
 * not reach pc: that call went to lr's function (or an ancestor's), not
 * to pc's. (Only a tail call from there to pc's function would make ra
 * right, which nothing shows.) An r11 record holding ra is then an
 * ancestor's, and a scanned ra a frame further up. */
static bool arm_skips_live_lr(const struct sw_step *s, uint64_t ra)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const struct sw_regs *r = &callee->regs;
	uint64_t fn, pc = callee->pc & 0xfffffffeu;
	if (!sw_frame_has_live_context(callee) || arm_is_apple(w) || !sw_reg_valid(r, ARM_LR) ||
	    (r->v[ARM_LR] & 0xffffffffu) == (ra & 0xffffffffu) ||
	    !sw_walk_is_return_address(w, r->v[ARM_LR] & 0xffffffffu) ||
	    !arm_call_target(w, ra, &fn) || sw_module_at(w->snap, fn) != sw_module_at(w->snap, pc))
		return false;
	struct sw_code c;
	struct arm_pro d;
	bool searched, thumb = arm_frame_is_thumb(callee);
	if (arm_analyze(s, &c, &d, &searched))
		return false;
	return !arm_code_reaches(w, fn & ~(uint64_t)1, pc, thumb);
}

/* The caller by the frame's chain (Apple: r7, elsewhere in ARM code: r11),
 * and for a live frame by its link register when its function has not
 * stored it (a leaf, or a function interrupted in its prologue): then sp
 * and the callee-saved registers are the caller's, except what a GCC leaf
 * record says. A frame found through an Apple record whose saved r7 was
 * NULL is the thread's outermost. */
static enum sw_unwind_status arm_caller_by_frame_pointer(const struct sw_step *s,
                                                         struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const struct sw_regs *r = &callee->regs;
	if (!sw_reg_valid(r, ARM_SP))
		return SW_UNWIND_NO_RULE;
	/* A Cortex-M handler that still holds EXC_RETURN in lr: its caller
	 * is the exception's frame, not a frame record or lr (cortex_m.c). */
	enum sw_unwind_status handler = sw_cortex_m_caller_of_handler(s, out);
	if (handler != SW_UNWIND_NO_RULE)
		return handler;
	/* Off Apple systems, where nothing makes code keep a frame pointer,
	 * a record is believed only where the function's code, if it can be
	 * decoded, set the frame pointer up: elsewhere r11 is an ordinary
	 * register (perhaps still an ancestor's frame pointer, whose record
	 * would skip frames). A live lr is taken here only where the code
	 * shows a leaf at pc (nothing pushed, no call made); a frame that has
	 * changed sp or saved registers is the prologue's to undo. */
	struct sw_code c;
	struct arm_pro d;
	bool searched;
	bool analyzed = !arm_is_apple(w) && arm_analyze(s, &c, &d, &searched);
	const struct sw_pro_frame *at_pc = &d.p.cur;
	bool leaf = analyzed && at_pc->sp_known && at_pc->sp_off == 0 && at_pc->saved == 0 &&
	            !at_pc->ra_clobbered;
	if (analyzed && !at_pc->fp_known && !leaf)
		return SW_UNWIND_NO_RULE;
	bool live = sw_frame_has_live_context(callee);
	int fpr = arm_frame_pointer_register(w, callee);
	struct arm_record rec = { 0, 0, 0 };
	enum record_kind kind = RECORD_NONE;
	if (fpr >= 0 && sw_reg_valid(r, (unsigned)fpr) && !(analyzed && !at_pc->fp_known)) {
		uint64_t fp = r->v[fpr], sp = r->v[ARM_SP];
		if (arm_is_apple(w)) {
			if (fp == 0 && !live && callee->trust == SW_TRUST_FRAME_POINTER)
				return SW_UNWIND_END;
			kind = apple_record(w, fp, sp, &rec);
		} else {
			/* r11 came from a record if the step that found this frame
			 * changed it (a step through lr keeps it). */
			const struct sw_frame *below = s->callee_callee;
			bool chained = callee->trust == SW_TRUST_FRAME_POINTER && below &&
			               sw_reg_valid(&below->regs, ARM_R11) &&
			               below->regs.v[ARM_R11] != fp;
			kind = aapcs_record(w, fp, sp, live, chained, &rec);
		}
	}

	if (live && sw_reg_valid(r, ARM_LR)) {
		uint64_t lr = r->v[ARM_LR] & 0xffffffffu;
		bool own_record = kind == RECORD_FOUND && rec.ra == lr;
		bool may_return = analyzed ? leaf && sw_arch_same_function(w, arm_call_site(lr),
		                                                           callee->lookup_pc) !=
		                                         SW_FUNCTION_SAME
		                           : arm_lr_may_return(s, lr, kind);
		if (!own_record && may_return &&
		    sw_walk_caller_by_link_register(s, out) == SW_UNWIND_OK) {
			if (kind == RECORD_LEAF) {
				sw_reg_set(&out->regs, (unsigned)fpr, rec.fp);
				sw_reg_set(&out->regs, ARM_SP, rec.sp);
			}
			return SW_UNWIND_OK;
		}
	}
	if (kind == RECORD_END)
		return SW_UNWIND_END;
	if (kind != RECORD_FOUND || arm_skips_live_lr(s, rec.ra))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, ARM_PC, rec.ra);
	sw_reg_set(&out->regs, ARM_SP, rec.sp);
	sw_reg_set(&out->regs, (unsigned)fpr, rec.fp);
	return SW_UNWIND_OK;
}

/* ---- scanning ------------------------------------------------------------ */

/* The walker's scan (sw_walk_caller_by_scan), refusing candidates that
 * would skip a live lr (arm_skips_live_lr); with none left the walk ends
 * there, short and true. */
static enum sw_unwind_status arm_caller_by_scan(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_regs *r = &s->callee->regs;
	if (!sw_reg_valid(r, ARM_SP))
		return SW_UNWIND_NO_RULE;
	uint64_t from = r->v[ARM_SP];
	enum sw_unwind_status st = sw_walk_caller_by_scan(s, &from, out);
	for (unsigned k = 0; st == SW_UNWIND_OK; k++) {
		if (!arm_skips_live_lr(s, out->regs.v[ARM_PC]))
			return st;
		if (k == ARM_SCAN_REFUSALS)
			break;
		from = out->regs.v[ARM_SP];
		st = sw_walk_caller_by_scan(s, &from, out);
	}
	return SW_UNWIND_NO_RULE;
}

/* ---- signal frames ----------------------------------------------------- */

/* Linux signal frames (arch/arm/kernel/signal.c). The C library's
 * restorers, to which a handler returns with sp at the frame it was given:
 *   __restore     ARM  mov r7, #0x77 (__NR_sigreturn); svc 0   e3a07077 ef000000
 *                 ARM  svc 0x900077 (OABI)                      ef900077
 *                 Thumb movs r7, #0x77; svc 0                   2777 df00
 *                 Thumb-2 mov.w r7, #0x77; svc 0 (glibc 2.36's
 *                 __default_sa_restorer, as armhf builds it)    f04f 0777 df00
 *   __restore_rt  the same with 0xad (__NR_rt_sigreturn)        e3a070ad ef9000ad 27ad
 * Their frames (offsets from the arm-linux-gnueabihf toolchain's
 * asm/sigcontext.h and sys/ucontext.h, which has the kernel's layout):
 *   sigframe    { struct ucontext uc; ... }
 *   rt_sigframe { siginfo info (128 bytes); struct sigframe sig; }
 *   ucontext    { uc_flags 4, uc_link 4, uc_stack 12, uc_mcontext at +20 }
 *   sigcontext  { trap_no, error_code, oldmask, arm_r0 at +12 .. arm_r10,
 *                 arm_fp, arm_ip, arm_sp, arm_lr, arm_pc +72, arm_cpsr +76 }
 * so r0 is at sp + 0x20 (non-RT) or sp + 0xa0 (RT), followed by r1-r15 and
 * cpsr, 4 bytes each. Kernels before 2.6.18 laid both out differently:
 * the non-RT frame began with the sigcontext itself (r0 at sp + 12; the
 * current frame marks itself by writing 0x5ac3c35a, a value trap_no never
 * has, into uc_flags, where qemu-user 7.2 writes 0: its frame is current
 * when the cpsr it holds is a user-mode one, mode bits 0x10, ARM ARM
 * B1.3.1, which the old layout's word there, arm_fp, is not), and the RT
 * frame began with two pointers, pinfo (to sp + 8) and puc, before the
 * siginfo. Restored pc and cpsr are the
 * interrupted ones: the T bit of cpsr says the instruction set, as in a
 * context frame. */
enum {
	ARM_SIGFRAME_R0 = 20 + 12,
	ARM_RT_SIGFRAME_R0 = 128 + ARM_SIGFRAME_R0,
	ARM_SIGFRAME_MAGIC = 0x5ac3c35a,
	ARM_OLD_SIGFRAME_R0 = 12,
	ARM_OLD_RT_SIGFRAME_R0 = 8 + ARM_RT_SIGFRAME_R0,
};

static const struct sw_sigframe_slot arm_sigcontext_slots[] = {
	{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 },
	{ 8, 8 }, { 9, 9 }, { 10, 10 }, { ARM_R11, 11 }, { 12, 12 }, { ARM_SP, 13 },
	{ ARM_LR, 14 }, { ARM_PC, 15 }, { ARM_CPSR, 16 },
};

enum arm_restorer { RESTORER_NONE, RESTORER_SIGRETURN, RESTORER_RT_SIGRETURN };

/* Which restorer, if any, begins at the frame's pc. */
static enum arm_restorer arm_restorer_at(const struct sw_walk *w, const struct sw_frame *f)
{
	uint64_t at = f->pc & 0xfffffffeu;
	uint32_t a, b;
	if (arm_frame_is_thumb(f)) {
		if (!arm_read_code(w, at, 2, &a) || !arm_read_code(w, at + 2, 2, &b))
			return RESTORER_NONE;
		if (a == 0xf04fu) {                    /* mov.w r7, #imm: svc 0 after it */
			uint32_t svc;
			if (!arm_read_code(w, at + 4, 2, &svc) || svc != 0xdf00u)
				return RESTORER_NONE;
			return b == 0x0777u ? RESTORER_SIGRETURN
			       : b == 0x07adu ? RESTORER_RT_SIGRETURN : RESTORER_NONE;
		}
		if (b != 0xdf00u)
			return RESTORER_NONE;
		return a == 0x2777u ? RESTORER_SIGRETURN
		       : a == 0x27adu ? RESTORER_RT_SIGRETURN : RESTORER_NONE;
	}
	if (!arm_read_code(w, at, 4, &a))
		return RESTORER_NONE;
	if (a == 0xef900077u)
		return RESTORER_SIGRETURN;
	if (a == 0xef9000adu)
		return RESTORER_RT_SIGRETURN;
	if ((a != 0xe3a07077u && a != 0xe3a070adu) || !arm_read_code(w, at + 4, 4, &b) ||
	    b != 0xef000000u)
		return RESTORER_NONE;
	return a == 0xe3a07077u ? RESTORER_SIGRETURN : RESTORER_RT_SIGRETURN;
}

static enum sw_unwind_status arm_caller_of_signal_frame(const struct sw_step *s,
                                                        struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	if (!sw_reg_valid(r, ARM_SP))
		return SW_UNWIND_NO_RULE;
	enum arm_restorer kind = arm_restorer_at(w, s->callee);
	if (kind == RESTORER_NONE)
		return SW_UNWIND_NO_RULE;
	uint64_t sp = r->v[ARM_SP] & 0xffffffffu, first;
	if (!sw_sigframe_read_fields(w, sp, 4, w->snap->sys.big_endian, 1, &first))
		return SW_UNWIND_FAILED;
	uint64_t r0, cpsr;
	if (kind == RESTORER_SIGRETURN)
		r0 = sp + (first == ARM_SIGFRAME_MAGIC ||
		                   (sw_sigframe_read_fields(w, sp + ARM_SIGFRAME_R0 + 16 * 4, 4,
		                                            w->snap->sys.big_endian, 1, &cpsr) &&
		                    (cpsr & 0x1f) == 0x10)
		                   ? ARM_SIGFRAME_R0
		                   : ARM_OLD_SIGFRAME_R0);
	else
		r0 = sp + (first == sp + 8 ? ARM_OLD_RT_SIGFRAME_R0 : ARM_RT_SIGFRAME_R0);
	return sw_sigframe_restore(w, r0, 4, arm_sigcontext_slots,
	                           sizeof arm_sigcontext_slots / sizeof arm_sigcontext_slots[0], out);
}

const struct sw_arch sw_arch_arm = {
	.name = "arm",
	.cpu = SW_CPU_ARM,
	.word_size = 4,
	.nregs = ARM_NREGS,
	.reg_names = arm_reg_names,
	.text_names = arm_text_names,
	.json_names = arm_text_names, /* rust-minidump spells them so too */
	.pc = ARM_PC,
	.sp = ARM_SP,
	.fp = ARM_R11,
	.ra = ARM_LR,
	.isa_state_reg = ARM_CPSR,
	.isa_state_mask = CPSR_T,
	/* AAPCS §5.1.1: r4-r11 and sp are callee-saved. */
	.callee_saved = 0xff0u | (1u << ARM_SP),
	.print_order = arm_print_order,
	.nprint = sizeof arm_print_order,
	.dwarf_regs = arm_dwarf_regs,
	.ndwarf_regs = sizeof arm_dwarf_regs,
	.call_site = arm_call_site,
	.printed_address = sw_frame_call_site_address,
	.strip_code_pointer = arm_strip,
	.pc_is_plausible = arm_pc_plausible,
	.caller_of_signal_frame = arm_caller_of_signal_frame,
	.caller_of_exception = sw_cortex_m_caller_of_exception,
	.caller_of_leaf = arm_caller_of_leaf,
	.caller_by_frame_pointer = arm_caller_by_frame_pointer,
	.caller_by_prologue = arm_caller_by_prologue,
	.caller_by_scan = arm_caller_by_scan,
	.call_precedes = arm_call_precedes,
	.call_target = arm_call_target,
	.jumps_into_module = arm_jumps_into_module,
};
