/* The crash analysis of one crashing frame (lib/crash_analysis.c): the
 * adjusted address (a null pointer plus an offset, a non-canonical
 * address), and the crash inconsistencies, each where the reason a crash
 * reports and its instruction disagree, and where they agree. Hand-built
 * snapshots: a crashing thread whose frame 0 holds the registers and the
 * code bytes at its pc. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/crash_analysis.h"
#include "lib/output_internal.h"

enum { PC = 0x401000 };

struct fixture {
	struct sw_snapshot s;
	struct sw_walk_result w;
	struct sw_stack stack;
	struct sw_frame frame;
	struct sw_stack_frame stored;
	struct sw_arena arena;
	struct sw_thread thread;
	const struct sw_arch *arch;
};

static struct fixture fx;

static unsigned reg(const char *name)
{
	for (unsigned i = 0; i < fx.arch->nregs; i++)
		if (fx.arch->reg_names[i] && strcmp(fx.arch->reg_names[i], name) == 0)
			return i;
	ck_abort_msg("no register %s", name);
	return 0;
}

/* A crash of the one thread at PC, on os and cpu, the instruction's bytes
 * `code`; registers as the test sets them (set_reg) before analyze(). */
static void build(enum sw_os os, enum sw_cpu cpu, const uint8_t *code, size_t len)
{
	memset(&fx, 0, sizeof fx);
	sw_snapshot_init(&fx.s, "test");
	fx.arch = sw_arch_for_cpu(cpu);
	fx.s.sys = (struct sw_system_info){ .os = os, .cpu = cpu, .word_size = fx.arch->word_size };
	fx.thread = (struct sw_thread){ .id = 7 };
	fx.s.threads = &fx.thread;
	fx.s.nthreads = 1;
	fx.frame = (struct sw_frame){ .pc = PC, .lookup_pc = PC, .trust = SW_TRUST_CONTEXT,
		                      .module = -1, .unloaded_module = -1 };
	sw_reg_set(&fx.frame.regs, (unsigned)fx.arch->pc, PC);
	memcpy(fx.stack.crash_code, code, len);
	fx.stack.crash_code_len = (uint8_t)len;
	fx.stack.arch = fx.arch;
	fx.w = (struct sw_walk_result){ .stacks = &fx.stack, .nstacks = 1, .crashing = 0 };
}

static void set_reg(const char *name, uint64_t v)
{
	sw_reg_set(&fx.frame.regs, reg(name), v);
}

static void crash(uint32_t code, uint32_t flags, uint64_t address)
{
	fx.s.crash = (struct sw_crash){ .present = true, .thread_id = 7, .code = code,
		                        .flags = flags, .address = address };
}

static void windows_access(uint64_t kind, uint64_t address)
{
	crash(0xc0000005u, 0, address);
	fx.s.crash.nparams = 2;
	fx.s.crash.params[0] = kind;
	fx.s.crash.params[1] = address;
}

static struct sw_crash_analysis analyze(void)
{
	sw_arena_init(&fx.arena);
	ck_assert(sw_stack_frame_store(&fx.frame, &fx.arena, &fx.stored));
	fx.stack.frames = &fx.stored;
	fx.stack.nframes = 1;
	struct sw_crash_analysis a;
	sw_crash_analyze(&fx.s, &fx.w, &a);
	sw_arena_free(&fx.arena);
	fx.s.threads = NULL;
	fx.s.maps = NULL;
	fx.s.nmaps = 0;
	sw_snapshot_free(&fx.s);
	return a;
}

enum { SIGFPE_ = 8, SIGSEGV_ = 11, FPE_INTDIV_ = 1, SEGV_MAPERR_ = 1, SI_KERNEL_ = 0x80 };

static const uint8_t MOV_EAX_RAX_0X10[] = { 0x8b, 0x40, 0x10 };  /* mov eax, [rax+0x10] */
static const uint8_t MOV_EAX_RAX[] = { 0x8b, 0x00 };             /* mov eax, [rax] */
static const uint8_t MOV_RAX_EAX[] = { 0x89, 0x00 };             /* mov [rax], eax */
static const uint8_t IDIV_ECX[] = { 0xf7, 0xf9 };                /* idiv ecx */
static const uint8_t MOVAPS[] = { 0x0f, 0x28, 0x00 };            /* movaps xmm0, [rax] */
static const uint8_t HLT[] = { 0xf4 };
static const uint8_t SYSCALL[] = { 0x0f, 0x05 };

/* A read through NULL + 0x10: a null pointer with its offset (no bit
 * flips for it); through a valid base, none. */
START_TEST(test_null_pointer_plus_offset)
{
	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX_0X10, sizeof MOV_EAX_RAX_0X10);
	set_reg("rax", 0);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x10);
	struct sw_crash_analysis a = analyze();
	ck_assert_int_eq(a.adjusted, SW_ADJUSTED_NULL_POINTER);
	ck_assert_uint_eq(a.adjusted_address, 0x10);
	ck_assert_uint_eq(a.nflips, 0);
	ck_assert_uint_eq(a.inconsistencies, 0);

	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX_0X10, sizeof MOV_EAX_RAX_0X10);
	set_reg("rax", 0x10000000);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x10000010);
	a = analyze();
	ck_assert_int_eq(a.adjusted, SW_ADJUSTED_NONE);
	ck_assert_uint_eq(a.inconsistencies, 0);
}
END_TEST

/* A segmentation fault at an address the instruction did not access. */
START_TEST(test_crashing_access_not_among_the_accesses)
{
	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x5000);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x9990);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_ACCESS_NOT_FOUND);
	/* The fault inside the access (a read crossing into the next page). */
	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x4ffe);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x5000);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	/* An instruction whose accesses are not all known claims nothing. */
	build(SW_OS_LINUX, SW_CPU_AMD64, SYSCALL, sizeof SYSCALL);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x9990);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	/* A signal sent (si_code 0, SI_USER) names no faulting access. */
	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x5000);
	crash(SIGSEGV_, 0, 0x9990);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	/* Windows names the access's kind: a write reported at a read. */
	build(SW_OS_WINDOWS, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x5000);
	windows_access(1, 0x5000);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_ACCESS_NOT_FOUND);
	build(SW_OS_WINDOWS, SW_CPU_AMD64, MOV_RAX_EAX, sizeof MOV_RAX_EAX);
	set_reg("rax", 0x5000);
	windows_access(1, 0x5000);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	/* An execute fault is at the pc. */
	build(SW_OS_WINDOWS, SW_CPU_AMD64, MOV_RAX_EAX, sizeof MOV_RAX_EAX);
	set_reg("rax", 0x5000);
	windows_access(8, 0x7000);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_ACCESS_NOT_FOUND);
}
END_TEST

/* arm64: the CPU ignores a pointer's top byte and Linux reports the
 * fault address without it (Android's tagged heap pointers). */
START_TEST(test_arm64_tagged_pointer_is_its_access)
{
	static const uint8_t LDR_X0_X1[] = { 0x20, 0x00, 0x40, 0xf9 }; /* ldr x0, [x1] */
	build(SW_OS_ANDROID, SW_CPU_ARM64, LDR_X0_X1, sizeof LDR_X0_X1);
	set_reg("x1", 0xb400007000001000u);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x7000001000u);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	build(SW_OS_ANDROID, SW_CPU_ARM64, LDR_X0_X1, sizeof LDR_X0_X1);
	set_reg("x1", 0xb400007000001000u);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x7000002000u);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_ACCESS_NOT_FOUND);
}
END_TEST

/* An integer division by zero where nothing divides. */
START_TEST(test_divide_error_needs_a_division)
{
	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x5000);
	crash(SIGFPE_, FPE_INTDIV_, PC);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_INT_DIV_BY_ZERO);
	build(SW_OS_LINUX, SW_CPU_AMD64, IDIV_ECX, sizeof IDIV_ECX);
	crash(SIGFPE_, FPE_INTDIV_, PC);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	build(SW_OS_WINDOWS, SW_CPU_X86, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("eax", 0x5000);
	crash(0xc0000094u, 0, PC);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_INT_DIV_BY_ZERO);
}
END_TEST

/* A privileged-instruction fault where the instruction is not one. */
START_TEST(test_privileged_fault_needs_a_privileged_instruction)
{
	build(SW_OS_WINDOWS, SW_CPU_AMD64, HLT, sizeof HLT);
	crash(0xc0000096u, 0, PC);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	static const uint8_t IN_AL_DX[] = { 0xec };
	build(SW_OS_WINDOWS, SW_CPU_AMD64, IN_AL_DX, sizeof IN_AL_DX);
	crash(0xc0000096u, 0, PC);
	ck_assert_uint_eq(analyze().inconsistencies, 0);
	build(SW_OS_WINDOWS, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x5000);
	crash(0xc0000096u, 0, PC);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_PRIVILEGED);
}
END_TEST

/* A general-protection fault (Linux: SI_KERNEL at 0) at an instruction
 * that raises one only for a non-canonical address: the address it used
 * (adjusted), or, every address canonical, an inconsistency. An aligned
 * SSE move also faults when misaligned: nothing claimed. */
START_TEST(test_general_protection_fault_and_canonical_addresses)
{
	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x4141414141410001u);
	crash(SIGSEGV_, SI_KERNEL_, 0);
	struct sw_crash_analysis a = analyze();
	ck_assert_int_eq(a.adjusted, SW_ADJUSTED_NON_CANONICAL);
	ck_assert_uint_eq(a.adjusted_address, 0x4141414141410001u);
	ck_assert_uint_eq(a.inconsistencies, 0);

	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x5000);
	crash(SIGSEGV_, SI_KERNEL_, 0);
	a = analyze();
	ck_assert_int_eq(a.adjusted, SW_ADJUSTED_NONE);
	ck_assert_uint_eq(a.inconsistencies, SW_INCONSISTENT_NON_CANONICAL);

	build(SW_OS_LINUX, SW_CPU_AMD64, MOVAPS, sizeof MOVAPS);
	set_reg("rax", 0x5008);
	crash(SIGSEGV_, SI_KERNEL_, 0);
	ck_assert_uint_eq(analyze().inconsistencies, 0);

	build(SW_OS_WINDOWS, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
	set_reg("rax", 0x5000);
	windows_access(0, UINT64_MAX);
	ck_assert_uint_eq(analyze().inconsistencies, SW_INCONSISTENT_NON_CANONICAL);
}
END_TEST

/* A read in a small region the maps list without permissions, next to
 * an accessible one: a likely guard page (a thread's stack overflowing
 * into it). A larger region, or one with no accessible neighbour: not. */
START_TEST(test_access_in_a_guard_page)
{
	static struct sw_mapping maps[] = {
		{ .start = 0x10000, .end = 0x11000, .perms = "---p" },
		{ .start = 0x11000, .end = 0x20000, .perms = "rw-p" },
		{ .start = 0x30000, .end = 0x31000, .perms = "---p" },
		{ .start = 0x40000, .end = 0x50000, .perms = "---p" },
		{ .start = 0x50000, .end = 0x51000, .perms = "r--p" },
	};
	static const struct { uint64_t rax; bool guard; } cases[] = {
		{ 0x10ff0, true }, { 0x30010, false }, { 0x40010, false }, { 0x11010, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, sizeof MOV_EAX_RAX);
		fx.s.maps = maps;
		fx.s.nmaps = sizeof maps / sizeof maps[0];
		set_reg("rax", cases[i].rax);
		crash(SIGSEGV_, SEGV_MAPERR_, cases[i].rax);
		struct sw_crash_analysis a = analyze();
		ck_assert_int_eq(a.naccesses, 1);
		ck_assert_int_eq(a.access_in_guard_page[0], cases[i].guard);
	}
}
END_TEST

/* No code bytes: nothing is said. */
START_TEST(test_nothing_without_code)
{
	build(SW_OS_LINUX, SW_CPU_AMD64, MOV_EAX_RAX, 0);
	set_reg("rax", 0x5000);
	crash(SIGSEGV_, SEGV_MAPERR_, 0x9990);
	struct sw_crash_analysis a = analyze();
	ck_assert(!a.has_instruction);
	ck_assert_int_eq(a.naccesses, -1);
	ck_assert_uint_eq(a.inconsistencies, 0);
	ck_assert_int_eq(a.adjusted, SW_ADJUSTED_NONE);
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("crash_analysis");
	TCase *tc = tcase_create("crash_analysis");
	tcase_add_test(tc, test_null_pointer_plus_offset);
	tcase_add_test(tc, test_crashing_access_not_among_the_accesses);
	tcase_add_test(tc, test_arm64_tagged_pointer_is_its_access);
	tcase_add_test(tc, test_divide_error_needs_a_division);
	tcase_add_test(tc, test_privileged_fault_needs_a_privileged_instruction);
	tcase_add_test(tc, test_general_protection_fault_and_canonical_addresses);
	tcase_add_test(tc, test_access_in_a_guard_page);
	tcase_add_test(tc, test_nothing_without_code);
	suite_add_tcase(s, tc);
	return s;
}
