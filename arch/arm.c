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
#include "same_function.h"
#include "signal_frame.h"
#include "stub.h"

enum {
	ARM_R7 = 7, ARM_R11 = 11, ARM_SP = 13, ARM_LR = 14, ARM_PC = 15, ARM_CPSR = 16,
	ARM_NREGS
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

/* The call_target hook: the direct call's target, followed through the
 * stubs above to where they lead (arch.h). Thumb code calls an ARM PLT
 * entry with BLX, or, on cores without it (ARMv4T), with BL to a
 * `bx pc; nop` in front of it. */
static bool arm_call_target(const struct sw_walk *w, uint64_t ra, uint64_t *target)
{
	uint64_t at, next;
	bool thumb;
	if (!arm_direct_call(w, ra & 0xffffffffu, &at, &thumb))
		return false;
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

/* ---- frame-pointer chains ---------------------------------------------- */

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
	bool live = sw_frame_has_live_context(callee);
	int fpr = arm_frame_pointer_register(w, callee);
	struct arm_record rec = { 0, 0, 0 };
	enum record_kind kind = RECORD_NONE;
	if (fpr >= 0 && sw_reg_valid(r, (unsigned)fpr)) {
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
		if (!own_record && arm_lr_may_return(s, lr, kind) &&
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
	if (kind != RECORD_FOUND)
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, ARM_PC, rec.ra);
	sw_reg_set(&out->regs, ARM_SP, rec.sp);
	sw_reg_set(&out->regs, (unsigned)fpr, rec.fp);
	return SW_UNWIND_OK;
}

/* ---- signal frames ----------------------------------------------------- */

/* Linux signal frames (arch/arm/kernel/signal.c). The C library's
 * restorers, to which a handler returns with sp at the frame it was given:
 *   __restore     ARM  mov r7, #0x77 (__NR_sigreturn); svc 0   e3a07077 ef000000
 *                 ARM  svc 0x900077 (OABI)                      ef900077
 *                 Thumb movs r7, #0x77; svc 0                   2777 df00
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
 * has, into uc_flags), and the RT frame began with two pointers, pinfo (to
 * sp + 8) and puc, before the siginfo. Restored pc and cpsr are the
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
		if (!arm_read_code(w, at, 2, &a) || !arm_read_code(w, at + 2, 2, &b) || b != 0xdf00u)
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
	uint64_t r0;
	if (kind == RESTORER_SIGRETURN)
		r0 = sp + (first == ARM_SIGFRAME_MAGIC ? ARM_SIGFRAME_R0 : ARM_OLD_SIGFRAME_R0);
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
	.caller_by_frame_pointer = arm_caller_by_frame_pointer,
	.call_precedes = arm_call_precedes,
	.call_target = arm_call_target,
};
