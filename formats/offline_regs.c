/* Offline reader, regs.txt: one register per line, "NAME: HEX", as
 * libunwindstack's offline tests read it (fscanf "%[^:]: %" SCNx64). The
 * file does not say the CPU: the names do. Each CPU's names are
 * libunwindstack's (RegsArm::... in its Regs*.cpp tables) plus ours
 * (arch/<cpu>.c reg_names, what a gdb capture writes); libunwindstack's
 * names that differ from ours are aliases. */
#include <stdio.h>
#include <string.h>

#include "arch/registry.h"
#include "offline_internal.h"

/* One libunwindstack register name of a CPU, and ours (NULL: a register
 * stackwalk does not track on that CPU). */
struct ol_name {
	const char *theirs;
	const char *ours;
};

static const struct ol_name arm_names[] = {
	{ "r0", "r0" }, { "r1", "r1" }, { "r2", "r2" }, { "r3", "r3" }, { "r4", "r4" },
	{ "r5", "r5" }, { "r6", "r6" }, { "r7", "r7" }, { "r8", "r8" }, { "r9", "r9" },
	{ "r10", "r10" }, { "r11", "r11" }, { "ip", "r12" }, { "sp", "sp" }, { "lr", "lr" },
	{ "pc", "pc" }, { NULL, NULL },
};

static const struct ol_name arm64_names[] = {
	{ "x0", "x0" }, { "x1", "x1" }, { "x2", "x2" }, { "x3", "x3" }, { "x4", "x4" },
	{ "x5", "x5" }, { "x6", "x6" }, { "x7", "x7" }, { "x8", "x8" }, { "x9", "x9" },
	{ "x10", "x10" }, { "x11", "x11" }, { "x12", "x12" }, { "x13", "x13" },
	{ "x14", "x14" }, { "x15", "x15" }, { "x16", "x16" }, { "x17", "x17" },
	{ "x18", "x18" }, { "x19", "x19" }, { "x20", "x20" }, { "x21", "x21" },
	{ "x22", "x22" }, { "x23", "x23" }, { "x24", "x24" }, { "x25", "x25" },
	{ "x26", "x26" }, { "x27", "x27" }, { "x28", "x28" }, { "x29", "x29" },
	{ "lr", "x30" }, { "sp", "sp" }, { "pc", "pc" },
	/* PSTATE: our arm64 context keeps it as cpsr (the minidump name). */
	{ "pst", "cpsr" }, { NULL, NULL },
};

static const struct ol_name x86_names[] = {
	{ "eax", "eax" }, { "ebx", "ebx" }, { "ecx", "ecx" }, { "edx", "edx" },
	{ "ebp", "ebp" }, { "edi", "edi" }, { "esi", "esi" }, { "esp", "esp" },
	{ "eip", "eip" }, { NULL, NULL },
};

static const struct ol_name amd64_names[] = {
	{ "rax", "rax" }, { "rbx", "rbx" }, { "rcx", "rcx" }, { "rdx", "rdx" },
	{ "r8", "r8" }, { "r9", "r9" }, { "r10", "r10" }, { "r11", "r11" },
	{ "r12", "r12" }, { "r13", "r13" }, { "r14", "r14" }, { "r15", "r15" },
	{ "rdi", "rdi" }, { "rsi", "rsi" }, { "rbp", "rbp" }, { "rsp", "rsp" },
	{ "rip", "rip" }, { NULL, NULL },
};

static const struct ol_name riscv64_names[] = {
	{ "pc", "pc" }, { "ra", "ra" }, { "sp", "sp" }, { "gp", "gp" }, { "tp", "tp" },
	{ "t0", "t0" }, { "t1", "t1" }, { "t2", "t2" }, { "t3", "t3" }, { "t4", "t4" },
	{ "t5", "t5" }, { "t6", "t6" }, { "s0", "s0" }, { "s1", "s1" }, { "s2", "s2" },
	{ "s3", "s3" }, { "s4", "s4" }, { "s5", "s5" }, { "s6", "s6" }, { "s7", "s7" },
	{ "s8", "s8" }, { "s9", "s9" }, { "s10", "s10" }, { "s11", "s11" },
	{ "a0", "a0" }, { "a1", "a1" }, { "a2", "a2" }, { "a3", "a3" }, { "a4", "a4" },
	{ "a5", "a5" }, { "a6", "a6" }, { "a7", "a7" },
	/* The vector length in bytes (CSR 0xc22, DWARF register 0x1c22),
	 * which CFA expressions of RVV code read. */
	{ "vlenb", "vlenb" }, { NULL, NULL },
};

/* The CPUs regs.txt can hold, in the order a tie is given to (among those
 * whose word size fits the values). */
static const struct {
	enum sw_cpu cpu;
	const struct ol_name *names;
} ol_cpus[] = {
	{ SW_CPU_ARM, arm_names },
	{ SW_CPU_ARM64, arm64_names },
	{ SW_CPU_AMD64, amd64_names },
	{ SW_CPU_X86, x86_names },
	{ SW_CPU_RISCV64, riscv64_names },
};

enum { OL_NCPUS = sizeof ol_cpus / sizeof ol_cpus[0] };

static const struct ol_name *cpu_names(enum sw_cpu cpu)
{
	for (size_t i = 0; i < OL_NCPUS; i++)
		if (ol_cpus[i].cpu == cpu)
			return ol_cpus[i].names;
	return NULL;
}

/* Our name for a regs.txt name on cpu: the alias, else the name itself
 * when the arch knows it; NULL when neither. *listed: libunwindstack
 * names it for cpu (so an arch that does not know it merely does not
 * track it). */
static const char *our_name(enum sw_cpu cpu, const char *name, bool *listed)
{
	*listed = false;
	const struct ol_name *n = cpu_names(cpu);
	for (; n && n->theirs; n++)
		if (strcmp(n->theirs, name) == 0) {
			*listed = true;
			return n->ours;
		}
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	if (a && sw_arch_reg_index(a, name, strlen(name)) >= 0)
		return name;
	return NULL;
}

bool ol_reg_known(enum sw_cpu cpu, const char *name)
{
	bool listed;
	return our_name(cpu, name, &listed) != NULL || listed;
}

void ol_read_regs(struct ol_reader *r, struct sw_span text, const char *path)
{
	uint64_t n = text_count_lines(text, OL_MAX_REGS);
	if (n > OL_MAX_REGS)
		n = OL_MAX_REGS;
	r->regs = sw_arena_array(&r->snap->arena, (size_t)n ? (size_t)n : 1, sizeof *r->regs);
	if (!r->regs) {
		problem(r, false, "%s: out of memory", path);
		return;
	}
	uint64_t pos = 0, lineno = 0;
	struct sw_span line;
	char buf[64];
	while (text_next_line(text, &pos, &line)) {
		lineno++;
		line = text_trim(line);
		/* OpenOCD's `reg` heads each group of registers with a line
		 * "===== arm v7m registers". */
		if (line.size == 0 || sw_u8(line, 0) == '=')
			continue;
		const uint8_t *colon = memchr(line.data, ':', (size_t)line.size);
		if (!colon) {
			problem(r, false, "%s:%llu: '%s' is not 'NAME: HEX': ignored", path,
			        (unsigned long long)lineno, text_shown(line, buf, sizeof buf));
			continue;
		}
		uint64_t at = (uint64_t)(colon - line.data);
		struct sw_span name = text_trim(sw_span_clip(line, 0, at));
		struct sw_span hex = text_trim(sw_span_clip(line, at + 1, line.size));
		uint64_t value;
		if (name.size == 0) {
			problem(r, false, "%s:%llu: no register name before ':': ignored", path,
			        (unsigned long long)lineno);
			continue;
		}
		if (!text_hex(hex, &value)) {
			char vbuf[48];
			problem(r, false, "%s:%llu: %s: '%s' is not a 64-bit hex number: ignored",
			        path, (unsigned long long)lineno, text_shown(name, buf, sizeof buf),
			        text_shown(hex, vbuf, sizeof vbuf));
			continue;
		}
		if (r->nregs >= n) {
			problem(r, false, "%s:%llu: more than %d registers: the rest ignored", path,
			        (unsigned long long)lineno, OL_MAX_REGS);
			return;
		}
		const char *copy = sw_arena_strndup(&r->snap->arena, (const char *)name.data,
		                                    (size_t)name.size);
		if (!copy)
			return;
		for (uint32_t i = 0; i < r->nregs; i++)
			if (strcmp(r->regs[i].name, copy) == 0)
				problem(r, true, "%s:%llu: %s given again (line %llu): the last one kept",
				        path, (unsigned long long)lineno, copy,
				        (unsigned long long)r->regs[i].line);
		r->regs[r->nregs++] = (struct ol_reg){ copy, value, lineno };
	}
}

enum sw_cpu ol_regs_cpu(const struct ol_reader *r)
{
	/* Each CPU scores the names it knows; values wider than 32 bits rule
	 * out the 32-bit CPUs on a tie (pc, sp and lr alone are arm's, arm64's
	 * and, but lr, riscv64's). */
	bool wide = false;
	for (uint32_t i = 0; i < r->nregs; i++)
		wide |= r->regs[i].value > UINT32_MAX;
	enum sw_cpu best = SW_CPU_UNKNOWN;
	uint32_t best_score = 0;
	bool best_fits = false;
	for (size_t c = 0; c < OL_NCPUS; c++) {
		uint32_t score = 0;
		for (uint32_t i = 0; i < r->nregs; i++) {
			bool listed;
			score += our_name(ol_cpus[c].cpu, r->regs[i].name, &listed) != NULL || listed;
		}
		const struct sw_arch *a = sw_arch_for_cpu(ol_cpus[c].cpu);
		bool fits = !wide || (a && a->word_size == 8);
		if (score > best_score || (score == best_score && score > 0 && fits && !best_fits)) {
			best = ol_cpus[c].cpu;
			best_score = score;
			best_fits = fits;
		}
	}
	return best;
}

bool ol_regs_pc(const struct ol_reader *r, enum sw_cpu cpu, uint64_t *pc)
{
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	if (!a)
		return false;
	bool found = false;
	for (uint32_t i = 0; i < r->nregs; i++) {
		bool listed;
		const char *ours = our_name(cpu, r->regs[i].name, &listed);
		if (ours && sw_arch_reg_index(a, ours, strlen(ours)) == a->pc) {
			*pc = r->regs[i].value;
			found = true; /* the last one, as ol_regs_context keeps */
		}
	}
	return found;
}

void ol_regs_context(struct ol_reader *r, enum sw_cpu cpu, const char *path, struct sw_regs *ctx)
{
	memset(ctx, 0, sizeof *ctx);
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	if (!a)
		return;
	for (uint32_t i = 0; i < r->nregs; i++) {
		const struct ol_reg *g = &r->regs[i];
		bool listed;
		const char *ours = our_name(cpu, g->name, &listed);
		int idx = ours ? sw_arch_reg_index(a, ours, strlen(ours)) : -1;
		if (idx < 0 && listed) {
			/* libunwindstack's name for a register our arch table does
			 * not have (yet): nothing is wrong with the file. */
			problem(r, true, "%s:%llu: register %s is not tracked by stackwalk's %s "
			                 "context: ignored",
			        path, (unsigned long long)g->line, g->name, a->name);
			continue;
		}
		if (idx < 0) {
			problem(r, false, "%s:%llu: unknown register name '%s' for %s: ignored", path,
			        (unsigned long long)g->line, g->name, a->name);
			continue;
		}
		uint64_t v = g->value;
		if (a->word_size == 4 && v > UINT32_MAX) {
			problem(r, false, "%s:%llu: %s: 0x%llx is wider than %s's 32-bit registers: "
			                  "cut to 32 bits",
			        path, (unsigned long long)g->line, g->name, (unsigned long long)v,
			        a->name);
			v &= UINT32_MAX;
		}
		sw_reg_set(ctx, (unsigned)idx, v);
	}
}
