/* What the crashing instruction did (lib/crash_analysis.h): decoded once
 * per report from the crashing thread's frame 0 and the code bytes the
 * walk kept (struct sw_stack crash_code), by lib/disasm.c and
 * lib/insn_facts.c; bit flips by lib/bit_flips.c. The fields and their
 * rules are rust-minidump's (minidump-processor: op_analysis.rs,
 * processor.rs), where docs/json.md does not say otherwise. */
#include "crash_analysis.h"

#include <string.h>

#include "crash_reason.h"
#include "output_internal.h"

/* The signals and codes the checks read (Linux's asm-generic/siginfo.h;
 * these numbers are the same on every CPU checked here). */
enum {
	LINUX_SIGFPE = 8,
	LINUX_SIGBUS = 7,
	LINUX_SIGSEGV = 11,
	LINUX_FPE_INTDIV = 1,
	LINUX_SEGV_MAPERR = 1,
	LINUX_SEGV_ACCERR = 2,
	LINUX_SEGV_PKUERR = 4,
	LINUX_SI_KERNEL = 0x80,
};

/* Windows's exception codes and EXCEPTION_ACCESS_VIOLATION's access kinds
 * (ExceptionInformation[0]). */
enum {
	WIN_ACCESS_VIOLATION = 0xc0000005u,
	WIN_INT_DIVIDE_BY_ZERO = 0xc0000094u,
	WIN_PRIV_INSTRUCTION = 0xc0000096u,
	WIN_STACK_OVERFLOW = 0xc00000fdu,
	WIN_ACCESS_READ = 0,
	WIN_ACCESS_WRITE = 1,
	WIN_ACCESS_EXEC = 8,
};

/* The crashing thread's stack and its frame 0 (the physical one: inline
 * frames come first), when it crashed and its code was at hand. */
static const struct sw_stack *crashing_frame(const struct sw_snapshot *s,
                                             const struct sw_walk_result *w,
                                             const struct sw_stack_frame **frame)
{
	if (!s->crash.present || !w || w->crashing < 0)
		return NULL;
	const struct sw_stack *st = sw_out_stack(w, (uint32_t)w->crashing);
	if (!st || !st->arch || st->crash_code_len == 0)
		return NULL;
	const struct sw_stack_frame *f = NULL;
	for (uint32_t i = 0; i < st->nframes && !f; i++)
		if (st->frames[i].trust != SW_TRUST_INLINE)
			f = &st->frames[i];
	if (!f || f->trust != SW_TRUST_CONTEXT)
		return NULL;
	*frame = f;
	return st;
}

/* Is the frame's code in the CPU's second instruction set (ARM's Thumb:
 * CPSR.T, struct sw_arch isa_state_reg)? */
static bool in_second_isa(const struct sw_arch *a, const struct sw_stack_frame *f)
{
	return a->isa_state_mask && sw_stack_frame_reg_valid(f, a->isa_state_reg) &&
	       (sw_stack_frame_reg(f, a->isa_state_reg) & a->isa_state_mask);
}

/* The crashing frame's registers, by the arch's index or by the name
 * Capstone gives them (the arch's reg_names), and the snapshot's memory:
 * what the analyses of its instruction read. */
struct crash_frame {
	const struct sw_arch *arch;
	const struct sw_stack_frame *frame;
	const struct sw_snapshot *snap;
	const struct sw_stack *stack;
	bool second_isa;
	uint64_t reported;   /* the crash address, as rust-minidump reads it */
};

static int reg_index(const struct sw_arch *a, const char *name)
{
	for (unsigned i = 0; i < a->nregs; i++)
		if (a->reg_names[i] && strcmp(a->reg_names[i], name) == 0)
			return (int)i;
	return -1;
}

/* The register's name in the JSON (rust-minidump's), else the arch's. */
static const char *json_name(const struct sw_arch *a, unsigned i)
{
	return a->json_names && a->json_names[i] ? a->json_names[i] : a->reg_names[i];
}

static bool frame_reg_by_name(void *ctx, const char *name, uint64_t *value)
{
	const struct crash_frame *c = ctx;
	int i = reg_index(c->arch, name);
	if (i < 0 || !sw_stack_frame_reg_valid(c->frame, (unsigned)i))
		return false;
	*value = sw_stack_frame_reg(c->frame, (unsigned)i);
	return true;
}

static bool frame_reg_by_index(const void *ctx, unsigned i, uint64_t *value, const char **name)
{
	const struct crash_frame *c = ctx;
	if (!sw_stack_frame_reg_valid(c->frame, i))
		return false;
	*value = sw_stack_frame_reg(c->frame, i);
	*name = json_name(c->arch, i);
	return *name != NULL;
}

/* A word of the snapshot's memory, in its byte order. */
static bool snapshot_word(void *ctx, uint64_t addr, unsigned size, uint64_t *value)
{
	const struct crash_frame *c = ctx;
	uint8_t b[8];
	if (size > sizeof b || !sw_mem_peek(c->snap, addr, b, size))
		return false;
	*value = 0;
	for (unsigned i = 0; i < size; i++)
		*value = *value << 8 | b[c->snap->sys.big_endian ? i : size - 1 - i];
	return true;
}

/* Canonical: bits 63..47 all equal (Intel SDM vol. 1, 3.3.7.1). */
static bool is_canonical(uint64_t a)
{
	uint64_t top = a >> 47;
	return top == 0 || top == 0x1ffff;
}

static bool is_linux(const struct sw_snapshot *s)
{
	return s->sys.os == SW_OS_LINUX || s->sys.os == SW_OS_ANDROID;
}

/* A general-protection fault, which names no address: Linux reports a
 * SIGSEGV or SIGBUS from the kernel (SI_KERNEL) at 0, Windows a read
 * access violation at all ones (rust-minidump's
 * represents_general_protection_fault). */
static bool general_protection_fault(const struct sw_snapshot *s, uint64_t reported)
{
	const struct sw_crash *c = &s->crash;
	if (s->sys.os == SW_OS_WINDOWS)
		return c->code == WIN_ACCESS_VIOLATION && c->nparams >= 2 &&
		       c->params[0] == WIN_ACCESS_READ && reported == UINT64_MAX;
	return reported == 0 && (!is_linux(s) || ((c->code == LINUX_SIGSEGV ||
	                                           c->code == LINUX_SIGBUS) &&
	                                          c->flags == LINUX_SI_KERNEL));
}

/* Every address the instruction used: its accesses, and where it sends
 * the pc (a call, jump or return to a non-canonical address faults at
 * the instruction itself). */
static unsigned used_addresses(const struct sw_crash_analysis *a, uint64_t *out)
{
	unsigned n = 0;
	for (int i = 0; i < a->naccesses; i++)
		out[n++] = a->accesses[i].address;
	if (a->has_ip_update)
		out[n++] = a->ip_update;
	return n;
}

/* The first non-canonical address the instruction used. */
static bool used_non_canonical(const struct sw_crash_analysis *a, uint64_t *address)
{
	uint64_t used[SW_CRASH_MAX_ACCESSES + 1];
	unsigned n = used_addresses(a, used);
	for (unsigned i = 0; i < n; i++)
		if (!is_canonical(used[i])) {
			*address = used[i];
			return true;
		}
	return false;
}

/* amd64, a general-protection fault: the non-canonical address the
 * instruction used. Linux's reading of a core without siginfo aside,
 * rust-minidump's: 0 or all ones reported. */
static bool non_canonical_address(uint64_t reported, const struct sw_crash_analysis *a,
                                  uint64_t *address)
{
	return (reported == 0 || reported == UINT64_MAX) && used_non_canonical(a, address);
}

/* Does the access take in addr? Its bytes [address, address + size); on
 * arm64 without the pointer's top byte, which the CPU ignores (TBI) and
 * Linux clears in the fault address it reports (Android tags heap
 * pointers there). */
static bool access_holds(const struct sw_mem_access *m, uint64_t addr, enum sw_cpu cpu)
{
	uint64_t at = m->address;
	if (cpu == SW_CPU_ARM64) {
		at &= 0x00ffffffffffffffu;
		addr &= 0x00ffffffffffffffu;
	}
	return addr - at < (m->size ? m->size : 1u);
}

/* A null pointer plus an offset: an access whose base register held 0,
 * taking in the crash address (rust-minidump takes the first such access
 * whatever the crash reports; here it must be the one that faulted). */
static bool null_pointer_offset(uint64_t reported, const struct sw_crash_analysis *a,
                                enum sw_cpu cpu, uint64_t *offset)
{
	for (int i = 0; i < a->naccesses; i++)
		if (a->accesses[i].null_base && access_holds(&a->accesses[i], reported, cpu)) {
			*offset = a->accesses[i].address;
			return true;
		}
	return false;
}

/* The possible bit flips of the crash address (or the adjusted one),
 * only where the instruction is known to have used it: one of its memory
 * accesses, where it sends the pc, or its own address (a jump there). */
static unsigned bit_flips(const struct crash_frame *c, const struct sw_crash_analysis *a,
                          struct sw_bit_flip *out, unsigned max)
{
	const struct sw_snapshot *s = c->snap;
	bool non_canonical = a->adjusted == SW_ADJUSTED_NON_CANONICAL;
	uint64_t address = non_canonical ? a->adjusted_address : c->reported;
	bool used = c->frame->pc == address || (a->has_ip_update && a->ip_update == address);
	for (int i = 0; i < a->naccesses && !used; i++)
		used = a->accesses[i].address == address;
	if (!used)
		return 0;
	struct sw_bit_flip_regs regs = { c->arch->nregs, frame_reg_by_index, c,
		                         sw_out_word_size(s, c->arch) };
	/* The registers the instruction computed the address from, named as
	 * the JSON names them where the frame has them under that name. */
	struct sw_reg_use uses[4];
	struct sw_bit_flip_source sources[4];
	const struct sw_stack *st = c->stack;
	unsigned nuses = sw_address_registers(c->arch->cpu, s->sys.big_endian, c->second_isa,
	                                      c->frame->pc, st->crash_code, st->crash_code_len,
	                                      frame_reg_by_name, (void *)c, uses, 4);
	for (unsigned i = 0; i < nuses; i++) {
		int k = reg_index(c->arch, uses[i].name);
		sources[i] = (struct sw_bit_flip_source){
			k >= 0 && json_name(c->arch, (unsigned)k) ? json_name(c->arch, (unsigned)k)
			                                          : uses[i].name,
			uses[i].value
		};
	}
	return sw_bit_flips(s, address, non_canonical, sources, nuses, &regs, out, max);
}

/* Is the faulting data access (of the reported address; on Windows, of
 * the kind it names) not among the instruction's accesses, all of which
 * are known? */
static bool crashing_access_missing(uint64_t reported, const struct sw_crash_analysis *a,
                                    const struct sw_insn_facts *f, enum sw_cpu cpu, int kind)
{
	if (!f->accesses_complete || a->naccesses < 0)
		return false;
	for (int i = 0; i < a->naccesses; i++)
		if ((kind < 0 || a->accesses[i].write == (kind == WIN_ACCESS_WRITE)) &&
		    access_holds(&a->accesses[i], reported, cpu))
			return false;
	return true;
}

/* What the crash reports against what its instruction is (rust-minidump's
 * check_for_crash_inconsistencies, on Linux as well as Windows):
 *  - an integer division by zero (x86 #DE) at an instruction that does
 *    not divide;
 *  - a privileged-instruction fault at one that cannot raise it;
 *  - a general-protection fault at an instruction that raises one only
 *    for a non-canonical address, every address of which is canonical;
 *  - a data access fault whose address none of the instruction's
 *    accesses take in (all of them known), or, Windows, an execute fault
 *    away from the pc, a stack overflow at one that touches no memory.
 * Linux's fault at the pc itself (a fetch, after a jump there) is not a
 * data access. */
static unsigned inconsistencies(const struct sw_snapshot *s, const struct crash_frame *c,
                                const struct sw_crash_analysis *a)
{
	const struct sw_crash *cr = &s->crash;
	enum sw_cpu cpu = c->arch->cpu;
	const struct sw_stack *st = c->stack;
	struct sw_insn_facts f;
	if (!sw_instruction_facts(cpu, s->sys.big_endian, c->second_isa, c->frame->pc, st->crash_code,
	                          st->crash_code_len, &f))
		return 0;
	bool x86 = cpu == SW_CPU_X86 || cpu == SW_CPU_AMD64;
	bool windows = s->sys.os == SW_OS_WINDOWS, linux_ = is_linux(s);
	unsigned out = 0;
	bool divide_error = windows ? cr->code == WIN_INT_DIVIDE_BY_ZERO
	                            : linux_ && cr->code == LINUX_SIGFPE &&
	                                      cr->flags == LINUX_FPE_INTDIV;
	if (x86 && divide_error && !f.division)
		out |= SW_INCONSISTENT_INT_DIV_BY_ZERO;
	if (windows && cr->code == WIN_PRIV_INSTRUCTION && !f.maybe_privileged)
		out |= SW_INCONSISTENT_PRIVILEGED;
	uint64_t reported = c->reported, unused;
	if (cpu == SW_CPU_AMD64 && general_protection_fault(s, reported)) {
		if (f.gp_only_when_non_canonical && a->naccesses >= 0 && !used_non_canonical(a, &unused))
			out |= SW_INCONSISTENT_NON_CANONICAL;
		return out;
	}
	if (windows && cr->code == WIN_ACCESS_VIOLATION && cr->nparams >= 2) {
		uint64_t kind = cr->params[0];
		if (kind == WIN_ACCESS_EXEC ? c->frame->pc != reported
		    : (kind == WIN_ACCESS_READ || kind == WIN_ACCESS_WRITE) &&
		              crashing_access_missing(reported, a, &f, cpu, (int)kind))
			out |= SW_INCONSISTENT_ACCESS_NOT_FOUND;
	} else if (windows && cr->code == WIN_STACK_OVERFLOW) {
		if (f.accesses_complete && a->naccesses == 0)
			out |= SW_INCONSISTENT_ACCESS_NOT_FOUND;
	} else if (linux_ && cr->code == LINUX_SIGSEGV &&
	           (cr->flags == LINUX_SEGV_MAPERR || cr->flags == LINUX_SEGV_ACCERR ||
	            cr->flags == LINUX_SEGV_PKUERR) &&
	           (c->frame->pc & ~(uint64_t)1) != reported &&
	           crashing_access_missing(reported, a, &f, cpu, -1)) {
		out |= SW_INCONSISTENT_ACCESS_NOT_FOUND;
	}
	return out;
}

/* rust-minidump's guard page (check_for_guard_pages): a region with no
 * permission, smaller than 2 << 14 bytes, with an accessible region right
 * below or above it. The regions are the snapshot's listed mappings
 * (Linux's /proc/PID/maps in a minidump; a core's NT_FILE lists only
 * files, not the anonymous PROT_NONE pages a guard is). */
static bool likely_guard_page(const struct sw_snapshot *s, uint64_t addr)
{
	enum { GUARD_MAX = 2 << 14 };
	const struct sw_mapping *m = sw_mapping_at(s, addr);
	if (!m || m->end - m->start >= GUARD_MAX || memcmp(m->perms, "---", 3) != 0)
		return false;
	for (uint32_t i = 0; i < s->nmaps; i++) {
		const struct sw_mapping *n = &s->maps[i];
		bool adjacent = n->end == m->start || n->start == m->end;
		if (adjacent && memcmp(n->perms, "---", 3) != 0)
			return true;
	}
	return false;
}

const char *sw_crash_inconsistency_name(unsigned bit)
{
	switch (bit) {
	case SW_INCONSISTENT_INT_DIV_BY_ZERO: return "int_div_by_zero_not_possible";
	case SW_INCONSISTENT_PRIVILEGED: return "priv_instruction_crash_without_priv_instruction";
	case SW_INCONSISTENT_NON_CANONICAL: return "non_canonical_address_falsely_reported";
	case SW_INCONSISTENT_ACCESS_NOT_FOUND: return "crashing_access_not_found_in_memory_accesses";
	default: return NULL;
	}
}

void sw_crash_analyze(const struct sw_snapshot *s, const struct sw_walk_result *w,
                      struct sw_crash_analysis *a)
{
	memset(a, 0, sizeof *a);
	a->naccesses = -1;
	const struct sw_stack_frame *f;
	const struct sw_stack *st = crashing_frame(s, w, &f);
	if (!st)
		return;
	struct crash_frame c = { st->arch, f, s, st, in_second_isa(st->arch, f),
		                 sw_crash_address(s, SW_REASON_RUST) };
	enum sw_cpu cpu = st->arch->cpu;
	a->has_instruction = sw_disassemble(cpu, s->sys.big_endian, c.second_isa, f->pc,
	                                    st->crash_code, st->crash_code_len, a->instruction,
	                                    sizeof a->instruction);
	a->naccesses = sw_memory_accesses_in(cpu, s->sys.big_endian, c.second_isa, f->pc,
	                                     st->crash_code, st->crash_code_len, frame_reg_by_name,
	                                     &c, a->accesses, SW_CRASH_MAX_ACCESSES);
	a->has_ip_update = sw_instruction_pointer_update_in(cpu, s->sys.big_endian, c.second_isa,
	                                                    f->pc, st->crash_code,
	                                                    st->crash_code_len, frame_reg_by_name,
	                                                    snapshot_word, &c, &a->ip_update);
	for (int i = 0; i < a->naccesses; i++)
		a->access_in_guard_page[i] = likely_guard_page(s, a->accesses[i].address);
	a->ip_update_in_guard_page = a->has_ip_update && likely_guard_page(s, a->ip_update);
	/* rust-minidump's order: a null pointer first, then a non-canonical
	 * address. */
	if (null_pointer_offset(c.reported, a, cpu, &a->adjusted_address))
		a->adjusted = SW_ADJUSTED_NULL_POINTER;
	else if (cpu == SW_CPU_AMD64 && non_canonical_address(c.reported, a, &a->adjusted_address))
		a->adjusted = SW_ADJUSTED_NON_CANONICAL;
	if (a->adjusted != SW_ADJUSTED_NULL_POINTER)
		a->nflips = bit_flips(&c, a, a->flips, SW_CRASH_MAX_FLIPS);
	a->inconsistencies = inconsistencies(s, &c, a);
}
