/* Register contexts: Breakpad's MDRawContext<CPU> records (minidump_cpu_*.h
 * in google_breakpad/common; the x86, AMD64, ARM and ARM64 ones are the
 * Windows CONTEXT structures). Each layout is a table of {register name,
 * offset, size, flag group}; one decoder walks it and stores each value
 * under the arch's register number for that name. */
#include <stdio.h>
#include <string.h>

#include "arch/registry.h"
#include "minidump_context.h"
#include "minidump_internal.h"

/* Flag groups: a register is present when context_flags has any of its
 * group's bits. 0: always present once the layout is chosen. The x86 and
 * AMD64 groups are CONTEXT_CONTROL (1) and CONTEXT_INTEGER (2); on ARM and
 * ARM64 the control registers are also accepted under INTEGER, because
 * Breakpad's Linux writers set INTEGER (| FLOATING_POINT) only. */
enum {
	G_ANY = 0,
	G_CONTROL = 1,
	G_INTEGER = 2,
	G_CONTROL_OR_INTEGER = 3,
};

enum { MD_CONTEXT_CPU_MASK = 0xffffff00 };

struct md_reg_field {
	const char *name;
	uint16_t offset;
	uint8_t size;
	uint8_t group;
};

struct md_context_layout {
	const char *name;        /* Breakpad's struct name, for messages */
	enum sw_cpu cpu;
	uint32_t cpu_flag;       /* the CPU bits of context_flags */
	uint16_t flags_offset;   /* where the 32-bit context_flags sits */
	uint16_t full_size;      /* sizeof the whole record */
	const struct md_reg_field *fields;
	uint16_t nfields;
};

#define N(a) (uint16_t)(sizeof(a) / sizeof((a)[0]))

/* MDRawContextX86 (WinNT.h CONTEXT for i386). */
static const struct md_reg_field x86_fields[] = {
	{ "edi", 156, 4, G_INTEGER }, { "esi", 160, 4, G_INTEGER },
	{ "ebx", 164, 4, G_INTEGER }, { "edx", 168, 4, G_INTEGER },
	{ "ecx", 172, 4, G_INTEGER }, { "eax", 176, 4, G_INTEGER },
	{ "ebp", 180, 4, G_CONTROL }, { "eip", 184, 4, G_CONTROL },
	{ "eflags", 192, 4, G_CONTROL }, { "esp", 196, 4, G_CONTROL },
};

/* MDRawContextAMD64 (WinNT.h CONTEXT for x64): context_flags at 48. */
static const struct md_reg_field amd64_fields[] = {
	{ "rflags", 68, 4, G_CONTROL },
	{ "rax", 120, 8, G_INTEGER }, { "rcx", 128, 8, G_INTEGER },
	{ "rdx", 136, 8, G_INTEGER }, { "rbx", 144, 8, G_INTEGER },
	{ "rsp", 152, 8, G_CONTROL }, { "rbp", 160, 8, G_INTEGER },
	{ "rsi", 168, 8, G_INTEGER }, { "rdi", 176, 8, G_INTEGER },
	{ "r8", 184, 8, G_INTEGER }, { "r9", 192, 8, G_INTEGER },
	{ "r10", 200, 8, G_INTEGER }, { "r11", 208, 8, G_INTEGER },
	{ "r12", 216, 8, G_INTEGER }, { "r13", 224, 8, G_INTEGER },
	{ "r14", 232, 8, G_INTEGER }, { "r15", 240, 8, G_INTEGER },
	{ "rip", 248, 8, G_CONTROL },
};

/* MDRawContextARM: iregs[16] at 4, cpsr at 68. */
#define ARM_R(n, name) { name, 4 + 4 * (n), 4, (n) < 13 ? G_INTEGER : G_CONTROL_OR_INTEGER }
static const struct md_reg_field arm_fields[] = {
	ARM_R(0, "r0"), ARM_R(1, "r1"), ARM_R(2, "r2"), ARM_R(3, "r3"),
	ARM_R(4, "r4"), ARM_R(5, "r5"), ARM_R(6, "r6"), ARM_R(7, "r7"),
	ARM_R(8, "r8"), ARM_R(9, "r9"), ARM_R(10, "r10"), ARM_R(11, "r11"),
	ARM_R(12, "r12"), ARM_R(13, "sp"), ARM_R(14, "lr"), ARM_R(15, "pc"),
	{ "cpsr", 68, 4, G_CONTROL_OR_INTEGER },
};

/* ARM64: iregs[33] (x0..x28, fp, lr, sp, pc) at 8 in both the current
 * MDRawContextARM64 (cpsr at 4) and MDRawContextARM64_Old (64-bit
 * context_flags, cpsr at 272). */
#define A64_X(n, name) { name, 8 + 8 * (n), 8, (n) < 29 ? G_INTEGER : G_CONTROL_OR_INTEGER }
#define A64_IREGS \
	A64_X(0, "x0"), A64_X(1, "x1"), A64_X(2, "x2"), A64_X(3, "x3"), \
	A64_X(4, "x4"), A64_X(5, "x5"), A64_X(6, "x6"), A64_X(7, "x7"), \
	A64_X(8, "x8"), A64_X(9, "x9"), A64_X(10, "x10"), A64_X(11, "x11"), \
	A64_X(12, "x12"), A64_X(13, "x13"), A64_X(14, "x14"), A64_X(15, "x15"), \
	A64_X(16, "x16"), A64_X(17, "x17"), A64_X(18, "x18"), A64_X(19, "x19"), \
	A64_X(20, "x20"), A64_X(21, "x21"), A64_X(22, "x22"), A64_X(23, "x23"), \
	A64_X(24, "x24"), A64_X(25, "x25"), A64_X(26, "x26"), A64_X(27, "x27"), \
	A64_X(28, "x28"), A64_X(29, "x29"), A64_X(30, "x30"), A64_X(31, "sp"), \
	A64_X(32, "pc")
static const struct md_reg_field arm64_fields[] = {
	{ "cpsr", 4, 4, G_CONTROL_OR_INTEGER }, A64_IREGS,
};
static const struct md_reg_field arm64_old_fields[] = {
	A64_IREGS, { "cpsr", 272, 4, G_CONTROL_OR_INTEGER },
};

/* MDRawContextMIPS (o32 and n64 share it): iregs[32] as 64-bit at 8,
 * mdhi 264, mdlo 272, epc 312. */
#define MIPS_R(n, name) { name, 8 + 8 * (n), 8, G_ANY }
static const struct md_reg_field mips_fields[] = {
	MIPS_R(0, "zero"), MIPS_R(1, "at"), MIPS_R(2, "v0"), MIPS_R(3, "v1"),
	MIPS_R(4, "a0"), MIPS_R(5, "a1"), MIPS_R(6, "a2"), MIPS_R(7, "a3"),
	MIPS_R(8, "t0"), MIPS_R(9, "t1"), MIPS_R(10, "t2"), MIPS_R(11, "t3"),
	MIPS_R(12, "t4"), MIPS_R(13, "t5"), MIPS_R(14, "t6"), MIPS_R(15, "t7"),
	MIPS_R(16, "s0"), MIPS_R(17, "s1"), MIPS_R(18, "s2"), MIPS_R(19, "s3"),
	MIPS_R(20, "s4"), MIPS_R(21, "s5"), MIPS_R(22, "s6"), MIPS_R(23, "s7"),
	MIPS_R(24, "t8"), MIPS_R(25, "t9"), MIPS_R(26, "k0"), MIPS_R(27, "k1"),
	MIPS_R(28, "gp"), MIPS_R(29, "sp"), MIPS_R(30, "fp"), MIPS_R(31, "ra"),
	{ "hi", 264, 8, G_ANY }, { "lo", 272, 8, G_ANY }, { "pc", 312, 8, G_ANY },
};

/* MDRawContextPPC (packed to 4): srr0 at 4, gpr[32] at 12, cr 140,
 * xer 144, lr 148, ctr 152. MDRawContextPPC64: all 64-bit, srr0 at 8,
 * gpr at 24, cr 280, xer 288, lr 296, ctr 304. */
#define PPC_GPRS(base, sz) \
	{ "r0", base + 0 * sz, sz, G_ANY }, { "r1", base + 1 * sz, sz, G_ANY }, \
	{ "r2", base + 2 * sz, sz, G_ANY }, { "r3", base + 3 * sz, sz, G_ANY }, \
	{ "r4", base + 4 * sz, sz, G_ANY }, { "r5", base + 5 * sz, sz, G_ANY }, \
	{ "r6", base + 6 * sz, sz, G_ANY }, { "r7", base + 7 * sz, sz, G_ANY }, \
	{ "r8", base + 8 * sz, sz, G_ANY }, { "r9", base + 9 * sz, sz, G_ANY }, \
	{ "r10", base + 10 * sz, sz, G_ANY }, { "r11", base + 11 * sz, sz, G_ANY }, \
	{ "r12", base + 12 * sz, sz, G_ANY }, { "r13", base + 13 * sz, sz, G_ANY }, \
	{ "r14", base + 14 * sz, sz, G_ANY }, { "r15", base + 15 * sz, sz, G_ANY }, \
	{ "r16", base + 16 * sz, sz, G_ANY }, { "r17", base + 17 * sz, sz, G_ANY }, \
	{ "r18", base + 18 * sz, sz, G_ANY }, { "r19", base + 19 * sz, sz, G_ANY }, \
	{ "r20", base + 20 * sz, sz, G_ANY }, { "r21", base + 21 * sz, sz, G_ANY }, \
	{ "r22", base + 22 * sz, sz, G_ANY }, { "r23", base + 23 * sz, sz, G_ANY }, \
	{ "r24", base + 24 * sz, sz, G_ANY }, { "r25", base + 25 * sz, sz, G_ANY }, \
	{ "r26", base + 26 * sz, sz, G_ANY }, { "r27", base + 27 * sz, sz, G_ANY }, \
	{ "r28", base + 28 * sz, sz, G_ANY }, { "r29", base + 29 * sz, sz, G_ANY }, \
	{ "r30", base + 30 * sz, sz, G_ANY }, { "r31", base + 31 * sz, sz, G_ANY }
static const struct md_reg_field ppc_fields[] = {
	{ "srr0", 4, 4, G_ANY }, PPC_GPRS(12, 4),
	{ "cr", 140, 4, G_ANY }, { "xer", 144, 4, G_ANY },
	{ "lr", 148, 4, G_ANY }, { "ctr", 152, 4, G_ANY },
};
static const struct md_reg_field ppc64_fields[] = {
	{ "srr0", 8, 8, G_ANY }, PPC_GPRS(24, 8),
	{ "cr", 280, 8, G_ANY }, { "xer", 288, 8, G_ANY },
	{ "lr", 296, 8, G_ANY }, { "ctr", 304, 8, G_ANY },
};

/* MDRawContextRISCV / RISCV64: pc, then x1..x31 in ABI-name order, from
 * offset 8, 4 or 8 bytes each. */
#define RISCV_REGS(sz) \
	{ "pc", 8 + 0 * sz, sz, G_ANY }, { "ra", 8 + 1 * sz, sz, G_ANY }, \
	{ "sp", 8 + 2 * sz, sz, G_ANY }, { "gp", 8 + 3 * sz, sz, G_ANY }, \
	{ "tp", 8 + 4 * sz, sz, G_ANY }, { "t0", 8 + 5 * sz, sz, G_ANY }, \
	{ "t1", 8 + 6 * sz, sz, G_ANY }, { "t2", 8 + 7 * sz, sz, G_ANY }, \
	{ "s0", 8 + 8 * sz, sz, G_ANY }, { "s1", 8 + 9 * sz, sz, G_ANY }, \
	{ "a0", 8 + 10 * sz, sz, G_ANY }, { "a1", 8 + 11 * sz, sz, G_ANY }, \
	{ "a2", 8 + 12 * sz, sz, G_ANY }, { "a3", 8 + 13 * sz, sz, G_ANY }, \
	{ "a4", 8 + 14 * sz, sz, G_ANY }, { "a5", 8 + 15 * sz, sz, G_ANY }, \
	{ "a6", 8 + 16 * sz, sz, G_ANY }, { "a7", 8 + 17 * sz, sz, G_ANY }, \
	{ "s2", 8 + 18 * sz, sz, G_ANY }, { "s3", 8 + 19 * sz, sz, G_ANY }, \
	{ "s4", 8 + 20 * sz, sz, G_ANY }, { "s5", 8 + 21 * sz, sz, G_ANY }, \
	{ "s6", 8 + 22 * sz, sz, G_ANY }, { "s7", 8 + 23 * sz, sz, G_ANY }, \
	{ "s8", 8 + 24 * sz, sz, G_ANY }, { "s9", 8 + 25 * sz, sz, G_ANY }, \
	{ "s10", 8 + 26 * sz, sz, G_ANY }, { "s11", 8 + 27 * sz, sz, G_ANY }, \
	{ "t3", 8 + 28 * sz, sz, G_ANY }, { "t4", 8 + 29 * sz, sz, G_ANY }, \
	{ "t5", 8 + 30 * sz, sz, G_ANY }, { "t6", 8 + 31 * sz, sz, G_ANY }
static const struct md_reg_field riscv32_fields[] = { RISCV_REGS(4) };
static const struct md_reg_field riscv64_fields[] = { RISCV_REGS(8) };

/* Checked in order: the first whose CPU bits match context_flags wins. */
static const struct md_context_layout md_layouts[] = {
	{ "MDRawContextX86", SW_CPU_X86, 0x00010000, 0, 716, x86_fields, N(x86_fields) },
	{ "MDRawContextAMD64", SW_CPU_AMD64, 0x00100000, 48, 1232, amd64_fields, N(amd64_fields) },
	{ "MDRawContextARM", SW_CPU_ARM, 0x40000000, 0, 368, arm_fields, N(arm_fields) },
	{ "MDRawContextARM64", SW_CPU_ARM64, 0x00400000, 0, 912, arm64_fields, N(arm64_fields) },
	{ "MDRawContextARM64_Old", SW_CPU_ARM64, 0x80000000, 0, 796, arm64_old_fields,
	  N(arm64_old_fields) },
	{ "MDRawContextMIPS", SW_CPU_MIPS, 0x00040000, 0, 600, mips_fields, N(mips_fields) },
	{ "MDRawContextMIPS64", SW_CPU_MIPS64, 0x00080000, 0, 600, mips_fields, N(mips_fields) },
	{ "MDRawContextPPC", SW_CPU_PPC, 0x20000000, 0, 1004, ppc_fields, N(ppc_fields) },
	{ "MDRawContextPPC64", SW_CPU_PPC64, 0x01000000, 0, 1160, ppc64_fields, N(ppc64_fields) },
	{ "MDRawContextRISCV", SW_CPU_RISCV32, 0x00800000, 0, 268, riscv32_fields,
	  N(riscv32_fields) },
	{ "MDRawContextRISCV64", SW_CPU_RISCV64, 0x08000000, 0, 528, riscv64_fields,
	  N(riscv64_fields) },
};

/* Bytes up to the end of the last register the layout decodes: a record
 * at least this long is usable even when a writer cut its tail. */
static uint64_t layout_min_size(const struct md_context_layout *l)
{
	uint64_t end = (uint64_t)l->flags_offset + 4;
	for (uint16_t i = 0; i < l->nfields; i++)
		if ((uint64_t)l->fields[i].offset + l->fields[i].size > end)
			end = (uint64_t)l->fields[i].offset + l->fields[i].size;
	return end;
}

static uint32_t layout_flags(const struct md_context_layout *l, struct sw_span ctx)
{
	return sw_u32(ctx, l->flags_offset);
}

static const struct md_context_layout *layout_by_flags(struct sw_span ctx)
{
	for (size_t i = 0; i < sizeof md_layouts / sizeof md_layouts[0]; i++) {
		const struct md_context_layout *l = &md_layouts[i];
		if ((layout_flags(l, ctx) & MD_CONTEXT_CPU_MASK) == l->cpu_flag &&
		    sw_span_has(ctx, 0, layout_min_size(l)))
			return l;
	}
	return NULL;
}

/* No CPU bits: trust the system info's CPU if the record is long enough
 * for its layout, else a record of exactly one layout's size. */
static const struct md_context_layout *layout_by_cpu_or_size(enum sw_cpu cpu,
                                                             struct sw_span ctx)
{
	for (size_t i = 0; i < sizeof md_layouts / sizeof md_layouts[0]; i++) {
		const struct md_context_layout *l = &md_layouts[i];
		if (l->cpu == cpu && (l->cpu != SW_CPU_ARM64 || ctx.size != 796 ||
		                      l->cpu_flag == 0x80000000) &&
		    sw_span_has(ctx, 0, layout_min_size(l)))
			return l;
	}
	const struct md_context_layout *found = NULL;
	for (size_t i = 0; i < sizeof md_layouts / sizeof md_layouts[0]; i++)
		if (md_layouts[i].full_size == ctx.size) {
			if (found && found->cpu != md_layouts[i].cpu)
				return NULL;  /* ambiguous */
			found = &md_layouts[i];
		}
	return found;
}

enum md_context_status md_decode_context(struct sw_span ctx, enum sw_cpu cpu,
                                         struct sw_regs *out, struct md_context_info *info)
{
	bool by_flags = true;
	const struct md_context_layout *l = layout_by_flags(ctx);
	if (!l) {
		by_flags = false;
		l = layout_by_cpu_or_size(cpu, ctx);
	}
	if (!l)
		return MD_CONTEXT_UNRECOGNISED;
	uint32_t flags = layout_flags(l, ctx);
	*info = (struct md_context_info){
		.cpu = l->cpu, .layout = l->name, .full_size = l->full_size,
		.flags = flags, .by_flags = by_flags,
	};
	const struct sw_arch *arch = sw_arch_for_cpu(l->cpu);
	if (!arch)
		return MD_CONTEXT_NO_ARCH;

	/* Some writers (macOS ones among them) set the CPU bit and no group
	 * bit; Breakpad then uses every register, and so do we. */
	bool use_groups = by_flags && (flags & ~MD_CONTEXT_CPU_MASK & G_CONTROL_OR_INTEGER) != 0;
	uint64_t mask = arch->word_size == 4 ? UINT32_MAX : UINT64_MAX;
	out->valid = 0;
	out->context_flags = flags;
	for (uint16_t i = 0; i < l->nfields; i++) {
		const struct md_reg_field *f = &l->fields[i];
		/* Without CPU bits the group bits mean nothing: take all. */
		if (use_groups && f->group != G_ANY && !(flags & f->group))
			continue;
		int reg = sw_arch_reg_index(arch, f->name, strlen(f->name));
		if (reg < 0 || !sw_span_has(ctx, f->offset, f->size))
			continue;
		sw_reg_set(out, (unsigned)reg, sw_uint(ctx, f->offset, f->size) & mask);
	}
	return MD_CONTEXT_OK;
}

bool md_read_context(struct md_reader *r, struct sw_span ctx, const char *what,
                     struct sw_regs *out)
{
	struct sw_system_info *sys = &r->snap->sys;
	struct md_context_info info;
	switch (md_decode_context(ctx, sys->cpu, out, &info)) {
	case MD_CONTEXT_UNRECOGNISED:
		problem(r, r->optional, "%s: unrecognised register context (flags 0x%x, %llu bytes)",
		        what, sw_u32(ctx, 0), (unsigned long long)ctx.size);
		return false;
	case MD_CONTEXT_NO_ARCH:
		problem(r, r->optional, "%s: %s has no register table here", what, info.layout);
		return false;
	case MD_CONTEXT_OK:
		break;
	}
	if (sys->cpu != SW_CPU_UNKNOWN && sys->cpu != info.cpu)
		problem(r, r->optional, "%s: %s in a dump whose system info says %s", what,
		        info.layout, sys->cpu_name ? sys->cpu_name : "?");
	if (!info.by_flags)
		problem(r, r->optional, "%s: context flags 0x%x name no CPU; read as %s", what,
		        info.flags, info.layout);
	r->context_cpu = info.cpu;
	/* A dump without system info: the context tells the CPU. */
	if (sys->cpu == SW_CPU_UNKNOWN) {
		const struct sw_arch *arch = sw_arch_for_cpu(info.cpu);
		sys->cpu = info.cpu;
		sys->cpu_name = arch->name;
		sys->word_size = arch->word_size;
	}
	return true;
}
