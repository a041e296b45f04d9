/* ELF core reader, the register sets: each CPU's general registers as
 * its kernel writes them in NT_PRSTATUS (struct elf_prstatus, pr_reg:
 * elf_gregset_t), and NetBSD's PT_GETREGS note (struct reg).
 *
 * struct elf_prstatus (include/uapi/linux/elfcore.h, with
 * elf_prstatus_common): pr_info (3 ints), pr_cursig (short),
 * pr_sigpend and pr_sighold (long), pr_pid, pr_ppid, pr_pgrp, pr_sid
 * (int), four struct timevals (two longs each), then pr_reg. With 4-byte
 * longs pr_reg starts at byte 72, with 8-byte longs at 112 (padding
 * after pr_cursig aligns the longs). The one exception is MIPS n32: a
 * 32-bit class whose kernel (arch/mips/kernel/binfmt_elfn32.c) writes
 * 64-bit registers, elf_greg_t being the 64-bit CPU's: 45 of them from
 * byte 72, a 440-byte note.
 *
 * Each layout below is a table of {register name, slot}: slot i of
 * pr_reg, reg_size bytes each; the names are the arch tables' own
 * (sw_arch_reg_index), so the values land in our register numbers. */
#include <elf.h>
#include <string.h>

#include "arch/registry.h"
#include "elfcore_internal.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

struct ec_reg_slot {
	const char *name;
	uint8_t slot;
};

struct ec_regs_layout {
	const char *what;         /* the kernel struct, for messages */
	enum sw_cpu cpu;
	uint16_t reg_offset;      /* pr_reg's offset in the descriptor */
	uint8_t reg_size;         /* bytes per elf_greg_t */
	uint8_t nslots;           /* ELF_NGREG: the registers the struct holds */
	const struct ec_reg_slot *slots;
	uint8_t nnamed;
};

#define N(a) (uint8_t)(sizeof(a) / sizeof((a)[0]))

/* x86_64: struct user_regs_struct (arch/x86/include/asm/user_64.h):
 * r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip
 * cs eflags rsp ss fs_base gs_base ds es fs gs. */
static const struct ec_reg_slot amd64_slots[] = {
	{ "r15", 0 }, { "r14", 1 }, { "r13", 2 }, { "r12", 3 }, { "rbp", 4 },
	{ "rbx", 5 }, { "r11", 6 }, { "r10", 7 }, { "r9", 8 }, { "r8", 9 },
	{ "rax", 10 }, { "rcx", 11 }, { "rdx", 12 }, { "rsi", 13 }, { "rdi", 14 },
	{ "rip", 16 }, { "rflags", 18 }, { "rsp", 19 },
};

/* i386: struct user_regs_struct (arch/x86/include/asm/user_32.h): ebx
 * ecx edx esi edi ebp eax xds xes xfs xgs orig_eax eip xcs eflags esp xss. */
static const struct ec_reg_slot x86_slots[] = {
	{ "ebx", 0 }, { "ecx", 1 }, { "edx", 2 }, { "esi", 3 }, { "edi", 4 },
	{ "ebp", 5 }, { "eax", 6 }, { "eip", 12 }, { "eflags", 14 }, { "esp", 15 },
};

/* aarch64: struct user_pt_regs (arch/arm64/include/uapi/asm/ptrace.h):
 * regs[31], sp, pc, pstate. NetBSD's struct reg (sys/arch/aarch64/include/
 * reg.h) begins the same way: r_reg[31], r_sp, r_pc, r_spsr, r_tpidr. */
static const struct ec_reg_slot arm64_slots[] = {
	{ "x0", 0 }, { "x1", 1 }, { "x2", 2 }, { "x3", 3 }, { "x4", 4 }, { "x5", 5 },
	{ "x6", 6 }, { "x7", 7 }, { "x8", 8 }, { "x9", 9 }, { "x10", 10 }, { "x11", 11 },
	{ "x12", 12 }, { "x13", 13 }, { "x14", 14 }, { "x15", 15 }, { "x16", 16 },
	{ "x17", 17 }, { "x18", 18 }, { "x19", 19 }, { "x20", 20 }, { "x21", 21 },
	{ "x22", 22 }, { "x23", 23 }, { "x24", 24 }, { "x25", 25 }, { "x26", 26 },
	{ "x27", 27 }, { "x28", 28 }, { "x29", 29 }, { "x30", 30 }, { "sp", 31 },
	{ "pc", 32 }, { "cpsr", 33 },
};

/* arm: elf_gregset_t is struct pt_regs' uregs[18]
 * (arch/arm/include/asm/elf.h, uapi/asm/ptrace.h): r0-r15, cpsr, orig_r0. */
static const struct ec_reg_slot arm_slots[] = {
	{ "r0", 0 }, { "r1", 1 }, { "r2", 2 }, { "r3", 3 }, { "r4", 4 }, { "r5", 5 },
	{ "r6", 6 }, { "r7", 7 }, { "r8", 8 }, { "r9", 9 }, { "r10", 10 }, { "r11", 11 },
	{ "r12", 12 }, { "sp", 13 }, { "lr", 14 }, { "pc", 15 }, { "cpsr", 16 },
};

/* powerpc (32 and 64): struct pt_regs (arch/powerpc/include/uapi/asm/
 * ptrace.h), ELF_NGREG 48: gpr[32], nip, msr, orig_gpr3, ctr, link, xer,
 * ccr, mq/softe, trap, dar, dsisr, result. nip is our srr0 (the pc). */
static const struct ec_reg_slot ppc_slots[] = {
	{ "r0", 0 }, { "r1", 1 }, { "r2", 2 }, { "r3", 3 }, { "r4", 4 }, { "r5", 5 },
	{ "r6", 6 }, { "r7", 7 }, { "r8", 8 }, { "r9", 9 }, { "r10", 10 }, { "r11", 11 },
	{ "r12", 12 }, { "r13", 13 }, { "r14", 14 }, { "r15", 15 }, { "r16", 16 },
	{ "r17", 17 }, { "r18", 18 }, { "r19", 19 }, { "r20", 20 }, { "r21", 21 },
	{ "r22", 22 }, { "r23", 23 }, { "r24", 24 }, { "r25", 25 }, { "r26", 26 },
	{ "r27", 27 }, { "r28", 28 }, { "r29", 29 }, { "r30", 30 }, { "r31", 31 },
	{ "srr0", 32 }, { "ctr", 35 }, { "lr", 36 }, { "xer", 37 }, { "cr", 38 },
};

/* MIPS: elf_gregset_t (arch/mips/include/asm/reg.h, glibc's sys/user.h
 * EF_*): o32 puts six padding words first (MIPS32_EF_R0 = 6), 64-bit
 * kernels' n64 and n32 none (MIPS64_EF_R0 = 0); then r0-r31, lo, hi,
 * cp0_epc, badvaddr, status, cause. Two tables, one per first slot. */
#define MIPS_SLOTS(b) \
	{ "zero", b + 0 }, { "at", b + 1 }, { "v0", b + 2 }, { "v1", b + 3 }, \
	{ "a0", b + 4 }, { "a1", b + 5 }, { "a2", b + 6 }, { "a3", b + 7 }, \
	{ "t0", b + 8 }, { "t1", b + 9 }, { "t2", b + 10 }, { "t3", b + 11 }, \
	{ "t4", b + 12 }, { "t5", b + 13 }, { "t6", b + 14 }, { "t7", b + 15 }, \
	{ "s0", b + 16 }, { "s1", b + 17 }, { "s2", b + 18 }, { "s3", b + 19 }, \
	{ "s4", b + 20 }, { "s5", b + 21 }, { "s6", b + 22 }, { "s7", b + 23 }, \
	{ "t8", b + 24 }, { "t9", b + 25 }, { "k0", b + 26 }, { "k1", b + 27 }, \
	{ "gp", b + 28 }, { "sp", b + 29 }, { "fp", b + 30 }, { "ra", b + 31 }, \
	{ "lo", b + 32 }, { "hi", b + 33 }, { "pc", b + 34 }
static const struct ec_reg_slot mips32_slots[] = { MIPS_SLOTS(6) };
static const struct ec_reg_slot mips64_slots[] = { MIPS_SLOTS(0) };

/* RISC-V: struct user_regs_struct (arch/riscv/include/uapi/asm/ptrace.h):
 * pc, then x1-x31 by their ABI names. */
static const struct ec_reg_slot riscv_slots[] = {
	{ "pc", 0 }, { "ra", 1 }, { "sp", 2 }, { "gp", 3 }, { "tp", 4 }, { "t0", 5 },
	{ "t1", 6 }, { "t2", 7 }, { "s0", 8 }, { "s1", 9 }, { "a0", 10 }, { "a1", 11 },
	{ "a2", 12 }, { "a3", 13 }, { "a4", 14 }, { "a5", 15 }, { "a6", 16 }, { "a7", 17 },
	{ "s2", 18 }, { "s3", 19 }, { "s4", 20 }, { "s5", 21 }, { "s6", 22 }, { "s7", 23 },
	{ "s8", 24 }, { "s9", 25 }, { "s10", 26 }, { "s11", 27 }, { "t3", 28 }, { "t4", 29 },
	{ "t5", 30 }, { "t6", 31 },
};

#define LAYOUT(what, cpu, off, sz, ngreg, slots) { what, cpu, off, sz, ngreg, slots, N(slots) }

static const struct ec_regs_layout l_amd64 =
	LAYOUT("x86_64 user_regs_struct", SW_CPU_AMD64, 112, 8, 27, amd64_slots);
static const struct ec_regs_layout l_x86 =
	LAYOUT("i386 user_regs_struct", SW_CPU_X86, 72, 4, 17, x86_slots);
static const struct ec_regs_layout l_arm64 =
	LAYOUT("arm64 user_pt_regs", SW_CPU_ARM64, 112, 8, 34, arm64_slots);
static const struct ec_regs_layout l_arm =
	LAYOUT("arm pt_regs uregs[18]", SW_CPU_ARM, 72, 4, 18, arm_slots);
static const struct ec_regs_layout l_ppc =
	LAYOUT("powerpc pt_regs", SW_CPU_PPC, 72, 4, 48, ppc_slots);
static const struct ec_regs_layout l_ppc64 =
	LAYOUT("powerpc64 pt_regs", SW_CPU_PPC64, 112, 8, 48, ppc_slots);
static const struct ec_regs_layout l_mips_o32 =
	LAYOUT("mips o32 elf_gregset_t", SW_CPU_MIPS, 72, 4, 45, mips32_slots);
static const struct ec_regs_layout l_mips_n32 =
	LAYOUT("mips n32 elf_gregset_t (64-bit registers)", SW_CPU_MIPS, 72, 8, 45, mips64_slots);
static const struct ec_regs_layout l_mips_n64 =
	LAYOUT("mips n64 elf_gregset_t", SW_CPU_MIPS64, 112, 8, 45, mips64_slots);
static const struct ec_regs_layout l_riscv32 =
	LAYOUT("riscv32 user_regs_struct", SW_CPU_RISCV32, 72, 4, 32, riscv_slots);
static const struct ec_regs_layout l_riscv64 =
	LAYOUT("riscv64 user_regs_struct", SW_CPU_RISCV64, 112, 8, 32, riscv_slots);
/* NetBSD aarch64 struct reg: x[31], sp, pc, spsr, tpidr, from byte 0. */
static const struct ec_regs_layout l_netbsd_arm64 =
	LAYOUT("NetBSD aarch64 struct reg", SW_CPU_ARM64, 0, 8, 35, arm64_slots);

/* NetBSD amd64: struct reg is `long regs[_NGREG]` (sys/arch/amd64/include/
 * reg.h), _NGREG 26 (mcontext.h), indexed by the _REG_* numbers of
 * sys/arch/amd64/include/frame_regs.h: RDI 0, RSI 1, RDX 2, RCX 3, R8 4,
 * R9 5, R10 6, R11 7, R12 8, R13 9, R14 10, R15 11, RBP 12, RBX 13, RAX 14,
 * GS 15, FS 16, ES 17, DS 18, TRAPNO 19, ERR 20, RIP 21, CS 22, RFLAGS 23,
 * RSP 24, SS 25. */
static const struct ec_reg_slot netbsd_amd64_slots[] = {
	{ "rdi", 0 }, { "rsi", 1 }, { "rdx", 2 }, { "rcx", 3 }, { "r8", 4 }, { "r9", 5 },
	{ "r10", 6 }, { "r11", 7 }, { "r12", 8 }, { "r13", 9 }, { "r14", 10 }, { "r15", 11 },
	{ "rbp", 12 }, { "rbx", 13 }, { "rax", 14 }, { "rip", 21 }, { "rflags", 23 },
	{ "rsp", 24 },
};
static const struct ec_regs_layout l_netbsd_amd64 =
	LAYOUT("NetBSD amd64 struct reg", SW_CPU_AMD64, 0, 8, 26, netbsd_amd64_slots);

/* Each LWP's registers are the note "NetBSD-CORE@LWPID" whose type is the
 * CPU's PT_GETREGS ptrace request (sys/kern/core_elf32.c writes them with
 * the request as the note type): PT_FIRSTMACH (32) + 0 on aarch64
 * (sys/arch/aarch64/include/ptrace.h), + 1 on amd64
 * (sys/arch/amd64/include/ptrace.h: PT_STEP is + 0). */
static const struct {
	enum sw_cpu cpu;
	uint32_t type;
	const struct ec_regs_layout *layout;
} netbsd_regs[] = {
	{ SW_CPU_ARM64, 32, &l_netbsd_arm64 },
	{ SW_CPU_AMD64, 33, &l_netbsd_amd64 },
};

enum sw_cpu ec_cpu_of(uint16_t machine, uint8_t word, const char **name)
{
	enum sw_cpu cpu = SW_CPU_UNKNOWN;
	switch (machine) {
	case EM_X86_64: cpu = SW_CPU_AMD64; break;
	case EM_386: cpu = SW_CPU_X86; break;
	case EM_AARCH64: cpu = SW_CPU_ARM64; break;
	case EM_ARM: cpu = SW_CPU_ARM; break;
	case EM_PPC: cpu = SW_CPU_PPC; break;
	case EM_PPC64: cpu = SW_CPU_PPC64; break;
	case EM_MIPS: cpu = word == 8 ? SW_CPU_MIPS64 : SW_CPU_MIPS; break;
	case EM_RISCV: cpu = word == 8 ? SW_CPU_RISCV64 : SW_CPU_RISCV32; break;
	default: break;
	}
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	if (a) {
		*name = a->name;
		return cpu;
	}
	switch (machine) {
	case EM_S390: *name = word == 8 ? "s390x" : "s390"; break;
	case EM_SPARC: case EM_SPARC32PLUS: *name = "sparc"; break;
	case EM_SPARCV9: *name = "sparc64"; break;
	default: *name = "unknown CPU"; break;
	}
	return SW_CPU_UNKNOWN;
}

/* The layout of this core's NT_PRSTATUS, or NULL. MIPS with a 32-bit
 * class is o32 or n32: the n32 note is 440 bytes (64-bit registers),
 * the o32 one 256; EF_MIPS_ABI2 in e_flags says n32 too. */
static const struct ec_regs_layout *prstatus_layout(const struct ec_reader *r, uint64_t size)
{
	switch (r->cpu) {
	case SW_CPU_AMD64: return &l_amd64;
	case SW_CPU_X86: return &l_x86;
	case SW_CPU_ARM64: return &l_arm64;
	case SW_CPU_ARM: return &l_arm;
	case SW_CPU_PPC: return &l_ppc;
	case SW_CPU_PPC64: return &l_ppc64;
	case SW_CPU_MIPS64: return &l_mips_n64;
	case SW_CPU_MIPS:
		return size >= 72 + 45 * 8 || (r->e_flags & EF_MIPS_ABI2) ? &l_mips_n32 : &l_mips_o32;
	case SW_CPU_RISCV32: return &l_riscv32;
	case SW_CPU_RISCV64: return &l_riscv64;
	default: return NULL;
	}
}

static bool decode(struct ec_reader *r, const struct ec_regs_layout *l, struct sw_span desc,
                   struct sw_regs *out)
{
	memset(out, 0, sizeof *out);
	const struct sw_arch *a = sw_arch_for_cpu(l->cpu);
	if (!a)
		return false;
	uint64_t need = (uint64_t)l->reg_offset + (uint64_t)l->nslots * l->reg_size;
	if (!sw_span_has(desc, 0, need)) {
		problem(r, false, "a %llu-byte register note: %s needs %llu bytes: no context",
		        (unsigned long long)desc.size, l->what, (unsigned long long)need);
		return false;
	}
	/* n32's 64-bit registers hold sign-extended 32-bit values. */
	uint64_t mask = a->word_size == 4 ? UINT32_MAX : UINT64_MAX;
	for (uint8_t i = 0; i < l->nnamed; i++) {
		int reg = sw_arch_reg_index(a, l->slots[i].name, strlen(l->slots[i].name));
		if (reg < 0)
			continue;
		uint64_t at = l->reg_offset + (uint64_t)l->slots[i].slot * l->reg_size;
		sw_reg_set(out, (unsigned)reg, sw_uint(desc, at, l->reg_size) & mask);
	}
	return true;
}

bool ec_prstatus_regs(struct ec_reader *r, struct sw_span desc, struct sw_regs *out)
{
	const struct ec_regs_layout *l = prstatus_layout(r, desc.size);
	if (!l) {
		memset(out, 0, sizeof *out);
		return false;
	}
	return decode(r, l, desc, out);
}

uint32_t ec_netbsd_regs_type(const struct ec_reader *r)
{
	for (size_t i = 0; i < N(netbsd_regs); i++)
		if (netbsd_regs[i].cpu == r->cpu)
			return netbsd_regs[i].type;
	return 0;
}

bool ec_netbsd_regs(struct ec_reader *r, struct sw_span desc, struct sw_regs *out)
{
	for (size_t i = 0; i < N(netbsd_regs); i++)
		if (netbsd_regs[i].cpu == r->cpu)
			return decode(r, netbsd_regs[i].layout, desc, out);
	memset(out, 0, sizeof *out);
	return false;
}
