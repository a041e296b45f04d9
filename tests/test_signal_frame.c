/* Linux sigreturn trampolines on every CPU: a frame whose pc is the C
 * library's or the vDSO's restorer has as its caller the interrupted
 * context, restored whole from the signal frame the kernel pushed. Each
 * test builds that frame at the offsets the kernel's structs give (see the
 * arch files), with a distinct value in every register; code that is no
 * restorer and frames that were not captured give no such frame. And the
 * RISC-V vlenb pseudo-register's DWARF number. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/walker.h"
#include "synthetic_snapshot.h"

#define CODE_BASE 0x10000ull
#define CODE_SIZE 0x1000ull
#define STACK_BASE 0x80000ull
#define STACK_SIZE 0x1000ull

/* Where each test's trampoline sits, the stack pointer at it, and the
 * interrupted context's pc and sp. */
#define TRAMPOLINE (CODE_BASE + 0x100)
#define HANDLER_SP (STACK_BASE + 0x200)
#define INTERRUPTED_PC (CODE_BASE + 0x400)
#define INTERRUPTED_SP (STACK_BASE + 0x800)
#define INTERRUPTED_FP (STACK_BASE + 0x900)
#define INTERRUPTED_LR (CODE_BASE + 0x300)

static void fixture_for(struct fixture *fx, enum sw_cpu cpu, unsigned word_size,
                        uint64_t stack_size)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "synthetic-signal", .cpu = cpu, .os = SW_OS_LINUX, .word_size = word_size,
		.code = { CODE_BASE, CODE_SIZE }, .stack = { STACK_BASE, stack_size },
		.fill = 0, .fill_size = 1,
		.thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/lib/libc.so" } },
		.nmodules = 1 });
}

static void put_code_bytes(struct fixture *fx, uint64_t addr, const uint8_t *b, size_t n)
{
	memcpy(syn_code_at(fx, addr, n), b, n);
}

static void put_field(struct fixture *fx, uint64_t addr, uint64_t v, unsigned size)
{
	if (size == 8)
		put_u64(fx, addr, v);
	else
		put_u32(fx, addr, (uint32_t)v);
}

/* Frame 1 is the interrupted context: its pc as found, trusted as a
 * context, symbolized at the pc itself. Its registers, unpacked. */
static struct sw_regs restored_frame(const struct sw_stack *st)
{
	ck_assert_uint_ge(st->nframes, 2);
	const struct sw_stack_frame *f = &st->frames[1];
	ck_assert_int_eq(f->trust, SW_TRUST_CONTEXT);
	ck_assert(f->restored_context);
	ck_assert_uint_eq(f->pc, INTERRUPTED_PC);
	ck_assert_uint_eq(f->lookup_pc, INTERRUPTED_PC);
	struct sw_regs r;
	sw_stack_frame_regs(f, &r);
	return r;
}

/* ---- arm64 ---- */

enum { A64_FP = 29, A64_LR = 30, A64_SP = 31, A64_PC = 32, A64_CPSR = 33 };
enum { INSN_MOV_X8_8B = 0xd2801168u, INSN_SVC_0 = 0xd4000001u, INSN_SVC_1 = 0xd4000021u };

/* rt_sigframe: siginfo (128), ucontext whose uc_mcontext is at +176;
 * sigcontext: fault_address, then x0-x30, sp, pc, pstate. */
static void arm64_signal_frame(struct fixture *fx, uint64_t sp)
{
	uint64_t sc = sp + 128 + 176;
	put_u64(fx, sc, 0xdead0000);  /* fault_address */
	for (unsigned i = 0; i < 29; i++)
		put_u64(fx, sc + 8 + 8 * i, 0x1000 + i);
	put_u64(fx, sc + 8 + 8 * 29, INTERRUPTED_FP);
	put_u64(fx, sc + 8 + 8 * 30, INTERRUPTED_LR);
	put_u64(fx, sc + 256, INTERRUPTED_SP);
	put_u64(fx, sc + 264, INTERRUPTED_PC);
	put_u64(fx, sc + 272, 0x60000000);
}

static void arm64_context(struct fixture *fx, uint64_t sp)
{
	sw_reg_set(&fx->thread.ctx, A64_PC, TRAMPOLINE);
	sw_reg_set(&fx->thread.ctx, A64_SP, sp);
	sw_reg_set(&fx->thread.ctx, A64_FP, STACK_BASE + 0x20);
	sw_reg_set(&fx->thread.ctx, A64_LR, TRAMPOLINE);
}

START_TEST(test_arm64_rt_sigreturn_restores_the_interrupted_context)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_ARM64, 8, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, INSN_MOV_X8_8B, 4);
	syn_put_code(&fx, TRAMPOLINE + 4, INSN_SVC_0, 4);
	arm64_signal_frame(&fx, HANDLER_SP);
	arm64_context(&fx, HANDLER_SP);
	const struct sw_regs regs = restored_frame(syn_walk(&fx, &sw_arch_arm64, NULL, NULL));
	ck_assert_uint_eq(regs.v[A64_SP], INTERRUPTED_SP);
	ck_assert_uint_eq(regs.v[A64_FP], INTERRUPTED_FP);
	ck_assert_uint_eq(regs.v[A64_LR], INTERRUPTED_LR);
	ck_assert_uint_eq(regs.v[0], 0x1000);
	ck_assert_uint_eq(regs.v[19], 0x1000 + 19);
	ck_assert_uint_eq(regs.v[28], 0x1000 + 28);
	ck_assert_uint_eq(regs.v[A64_CPSR], 0x60000000);
	for (unsigned i = 0; i <= A64_CPSR; i++)
		ck_assert_msg(sw_reg_valid(&regs, i), "x%u not restored", i);
	fixture_free(&fx);
}
END_TEST

/* Another system call after `mov x8, #0x8b` is no restorer: the frame
 * pointer's turn (frame 1 is not a restored context). */
START_TEST(test_arm64_other_code_is_no_trampoline)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_ARM64, 8, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, INSN_MOV_X8_8B, 4);
	syn_put_code(&fx, TRAMPOLINE + 4, INSN_SVC_1, 4);
	arm64_signal_frame(&fx, HANDLER_SP);
	arm64_context(&fx, HANDLER_SP);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm64, NULL, NULL);
	for (uint32_t i = 1; i < st->nframes; i++)
		ck_assert(!st->frames[i].restored_context);
	fixture_free(&fx);
}
END_TEST

/* A signal frame read at the wrong place (a handler's sp guessed one
 * slot off) restores a sp inside a module's image and a pc in no module:
 * no frame. A NULL pc with a sp on the stack (a call through NULL, then
 * the signal) stays a frame (zoo riscv64 121, the capture alone: it gave
 * a frame at 0x0). */
START_TEST(test_arm64_signal_frame_read_off_its_place_gives_no_frame)
{
	for (int stack_sp = 0; stack_sp <= 1; stack_sp++) {
		struct fixture fx;
		fixture_for(&fx, SW_CPU_ARM64, 8, STACK_SIZE);
		syn_put_code(&fx, TRAMPOLINE, INSN_MOV_X8_8B, 4);
		syn_put_code(&fx, TRAMPOLINE + 4, INSN_SVC_0, 4);
		arm64_signal_frame(&fx, HANDLER_SP);
		uint64_t sc = HANDLER_SP + 128 + 176;
		put_u64(&fx, sc + 256, stack_sp ? INTERRUPTED_SP : TRAMPOLINE + 0x40);
		put_u64(&fx, sc + 264, 0);
		arm64_context(&fx, HANDLER_SP);
		const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm64, NULL, NULL);
		bool restored = false;
		for (uint32_t i = 1; i < st->nframes; i++)
			restored |= st->frames[i].restored_context && st->frames[i].pc == 0;
		ck_assert(restored == (stack_sp == 1));
		fixture_free(&fx);
	}
}
END_TEST

/* The trampoline's code is there but its frame lies beyond the captured
 * stack: no frame is made up from what is not there. */
START_TEST(test_arm64_uncaptured_signal_frame_gives_no_frame)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_ARM64, 8, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, INSN_MOV_X8_8B, 4);
	syn_put_code(&fx, TRAMPOLINE + 4, INSN_SVC_0, 4);
	/* x0 would be at sp + 0x138, the pc at sp + 0x238: past the end. */
	uint64_t sp = STACK_BASE + STACK_SIZE - 0x200;
	arm64_context(&fx, sp);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm64, NULL, NULL);
	for (uint32_t i = 1; i < st->nframes; i++) {
		ck_assert(!st->frames[i].restored_context);
		ck_assert_uint_ne(st->frames[i].pc, INTERRUPTED_PC);
	}
	fixture_free(&fx);
}
END_TEST

/* ---- arm ---- */

enum { ARM_FP = 11, ARM_SP = 13, ARM_LR = 14, ARM_PC = 15, ARM_CPSR = 16 };
enum { CPSR_T = 1u << 5 };

/* r0-r15 and cpsr, 4 bytes each, from r0's address on. */
static void arm_sigcontext_regs(struct fixture *fx, uint64_t r0, uint32_t cpsr)
{
	for (unsigned i = 0; i < 11; i++)
		put_u32(fx, r0 + 4 * i, 0x2000 + i);
	put_u32(fx, r0 + 4 * 11, INTERRUPTED_FP);
	put_u32(fx, r0 + 4 * 12, 0x200c);
	put_u32(fx, r0 + 4 * 13, INTERRUPTED_SP);
	put_u32(fx, r0 + 4 * 14, INTERRUPTED_LR);
	put_u32(fx, r0 + 4 * 15, INTERRUPTED_PC);
	put_u32(fx, r0 + 4 * 16, cpsr);
}

static void arm_context(struct fixture *fx, uint64_t pc, bool thumb)
{
	sw_reg_set(&fx->thread.ctx, ARM_PC, pc);
	sw_reg_set(&fx->thread.ctx, ARM_SP, HANDLER_SP);
	sw_reg_set(&fx->thread.ctx, ARM_FP, 0);
	sw_reg_set(&fx->thread.ctx, ARM_LR, TRAMPOLINE);
	sw_reg_set(&fx->thread.ctx, ARM_CPSR, thumb ? CPSR_T | 0x10 : 0x10);
}

static void check_arm_restored(const struct sw_stack *st, uint32_t cpsr)
{
	const struct sw_regs regs = restored_frame(st);
	ck_assert_uint_eq(regs.v[ARM_SP], INTERRUPTED_SP);
	ck_assert_uint_eq(regs.v[ARM_FP], INTERRUPTED_FP);
	ck_assert_uint_eq(regs.v[ARM_LR], INTERRUPTED_LR);
	ck_assert_uint_eq(regs.v[0], 0x2000);
	ck_assert_uint_eq(regs.v[7], 0x2007);
	ck_assert_uint_eq(regs.v[12], 0x200c);
	ck_assert_uint_eq(regs.v[ARM_CPSR], cpsr);
	for (unsigned i = 0; i <= ARM_CPSR; i++)
		ck_assert_msg(sw_reg_valid(&regs, i), "r%u not restored", i);
}

/* __restore in ARM code: `mov r7, #0x77; svc 0` with the frame that marks
 * its ucontext (uc_flags 0x5ac3c35a): r0 at sp + 0x20. */
START_TEST(test_arm_sigreturn_restores_the_interrupted_context)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_ARM, 4, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, 0xe3a07077u, 4);
	syn_put_code(&fx, TRAMPOLINE + 4, 0xef000000u, 4);
	put_u32(&fx, HANDLER_SP, 0x5ac3c35a);
	arm_sigcontext_regs(&fx, HANDLER_SP + 0x20, 0x10);
	arm_context(&fx, TRAMPOLINE, false);
	check_arm_restored(syn_walk(&fx, &sw_arch_arm, NULL, NULL), 0x10);
	fixture_free(&fx);
}
END_TEST

/* __restore_rt in Thumb code (the context's cpsr says so):
 * `movs r7, #0xad; svc 0`; the siginfo comes first: r0 at sp + 0xa0. The
 * interrupted code was Thumb too, as the restored cpsr says. */
START_TEST(test_arm_thumb_rt_sigreturn_restores_the_interrupted_context)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_ARM, 4, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, 0x27ad, 2);
	syn_put_code(&fx, TRAMPOLINE + 2, 0xdf00, 2);
	put_u32(&fx, HANDLER_SP, 11); /* si_signo */
	arm_sigcontext_regs(&fx, HANDLER_SP + 0xa0, CPSR_T | 0x10);
	arm_context(&fx, TRAMPOLINE, true);
	check_arm_restored(syn_walk(&fx, &sw_arch_arm, NULL, NULL), CPSR_T | 0x10);
	fixture_free(&fx);
}
END_TEST

/* The OABI's one-instruction forms, and the frames of kernels before
 * 2.6.18: a sigframe that begins with the sigcontext (r0 at sp + 12), an
 * rt_sigframe that begins with pointers to its siginfo (sp + 8) and
 * ucontext (r0 at sp + 0xa8). */
START_TEST(test_arm_oabi_restorers_and_old_frames)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_ARM, 4, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, 0xef900077u, 4);
	put_u32(&fx, HANDLER_SP, 14); /* trap_no */
	arm_sigcontext_regs(&fx, HANDLER_SP + 12, 0x10);
	arm_context(&fx, TRAMPOLINE, false);
	check_arm_restored(syn_walk(&fx, &sw_arch_arm, NULL, NULL), 0x10);
	fixture_free(&fx);

	fixture_for(&fx, SW_CPU_ARM, 4, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, 0xef9000adu, 4);
	put_u32(&fx, HANDLER_SP, (uint32_t)(HANDLER_SP + 8));
	arm_sigcontext_regs(&fx, HANDLER_SP + 0xa8, 0x10);
	arm_context(&fx, TRAMPOLINE, false);
	check_arm_restored(syn_walk(&fx, &sw_arch_arm, NULL, NULL), 0x10);
	fixture_free(&fx);
}
END_TEST

/* `mov r7, #0x77` followed by anything but `svc 0` is no restorer. */
START_TEST(test_arm_other_code_is_no_trampoline)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_ARM, 4, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, 0xe3a07077u, 4);
	syn_put_code(&fx, TRAMPOLINE + 4, 0xe12fff1eu, 4); /* bx lr */
	put_u32(&fx, HANDLER_SP, 0x5ac3c35a);
	arm_sigcontext_regs(&fx, HANDLER_SP + 0x20, 0x10);
	arm_context(&fx, TRAMPOLINE, false);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_arm, NULL, NULL);
	for (uint32_t i = 1; i < st->nframes; i++)
		ck_assert(!st->frames[i].restored_context);
	fixture_free(&fx);
}
END_TEST

/* ---- x86 ---- */

enum { X86_EAX, X86_ECX, X86_EDX, X86_EBX, X86_ESP, X86_EBP, X86_ESI, X86_EDI, X86_EIP,
       X86_EFLAGS };

/* struct sigcontext (i386): gs, fs, es, ds, edi, esi, ebp, esp, ebx, edx,
 * ecx, eax, trapno, err, eip, cs, eflags. */
static void x86_sigcontext(struct fixture *fx, uint64_t sc)
{
	put_u32(fx, sc + 16, 0x3007);              /* edi */
	put_u32(fx, sc + 20, 0x3006);              /* esi */
	put_u32(fx, sc + 24, INTERRUPTED_FP);      /* ebp */
	put_u32(fx, sc + 28, INTERRUPTED_SP);      /* esp */
	put_u32(fx, sc + 32, 0x3003);              /* ebx */
	put_u32(fx, sc + 36, 0x3002);              /* edx */
	put_u32(fx, sc + 40, 0x3001);              /* ecx */
	put_u32(fx, sc + 44, 0x3000);              /* eax */
	put_u32(fx, sc + 56, INTERRUPTED_PC);      /* eip */
	put_u32(fx, sc + 64, 0x246);               /* eflags */
}

static void check_x86_restored(const struct sw_stack *st)
{
	const struct sw_regs regs = restored_frame(st);
	ck_assert_uint_eq(regs.v[X86_ESP], INTERRUPTED_SP);
	ck_assert_uint_eq(regs.v[X86_EBP], INTERRUPTED_FP);
	ck_assert_uint_eq(regs.v[X86_EAX], 0x3000);
	ck_assert_uint_eq(regs.v[X86_ECX], 0x3001);
	ck_assert_uint_eq(regs.v[X86_EDX], 0x3002);
	ck_assert_uint_eq(regs.v[X86_EBX], 0x3003);
	ck_assert_uint_eq(regs.v[X86_ESI], 0x3006);
	ck_assert_uint_eq(regs.v[X86_EDI], 0x3007);
	ck_assert_uint_eq(regs.v[X86_EFLAGS], 0x246);
}

static void x86_context(struct fixture *fx)
{
	sw_reg_set(&fx->thread.ctx, X86_EIP, TRAMPOLINE);
	sw_reg_set(&fx->thread.ctx, X86_ESP, HANDLER_SP);
	sw_reg_set(&fx->thread.ctx, X86_EBP, 0);
}

/* __restore: `pop %eax; mov $0x77, %eax; int $0x80`; sp at `sig`, the
 * sigcontext right above it. */
START_TEST(test_x86_sigreturn_restores_the_interrupted_context)
{
	static const uint8_t restore[] = { 0x58, 0xb8, 0x77, 0, 0, 0, 0xcd, 0x80 };
	struct fixture fx;
	fixture_for(&fx, SW_CPU_X86, 4, STACK_SIZE);
	put_code_bytes(&fx, TRAMPOLINE, restore, sizeof restore);
	put_u32(&fx, HANDLER_SP, 11); /* sig */
	x86_sigcontext(&fx, HANDLER_SP + 4);
	x86_context(&fx);
	check_x86_restored(syn_walk(&fx, &sw_arch_x86, NULL, NULL));
	fixture_free(&fx);
}
END_TEST

/* __restore_rt: `mov $0xad, %eax; int $0x80`; sig, pinfo, puc, siginfo
 * (128), then the ucontext, whose uc_mcontext is at +20. */
START_TEST(test_x86_rt_sigreturn_restores_the_interrupted_context)
{
	static const uint8_t restore_rt[] = { 0xb8, 0xad, 0, 0, 0, 0xcd, 0x80 };
	struct fixture fx;
	fixture_for(&fx, SW_CPU_X86, 4, STACK_SIZE);
	put_code_bytes(&fx, TRAMPOLINE, restore_rt, sizeof restore_rt);
	put_u32(&fx, HANDLER_SP, 11);
	put_u32(&fx, HANDLER_SP + 4, (uint32_t)(HANDLER_SP + 12));
	put_u32(&fx, HANDLER_SP + 8, (uint32_t)(HANDLER_SP + 140));
	x86_sigcontext(&fx, HANDLER_SP + 140 + 20);
	x86_context(&fx);
	check_x86_restored(syn_walk(&fx, &sw_arch_x86, NULL, NULL));
	fixture_free(&fx);
}
END_TEST

/* ---- amd64 ---- */

enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15, RIP,
       RFLAGS };

static const uint8_t amd64_restore_rt[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };

/* sp at the ucontext; uc_mcontext at +40: r8-r15, rdi, rsi, rbp, rbx,
 * rdx, rax, rcx, rsp, rip, eflags. */
static void amd64_signal_frame(struct fixture *fx, uint64_t sp)
{
	uint64_t sc = sp + 40;
	for (unsigned i = 0; i < 8; i++)
		put_u64(fx, sc + 8 * i, 0x4008 + i);       /* r8-r15 */
	put_u64(fx, sc + 64, 0x4005);                  /* rdi */
	put_u64(fx, sc + 72, 0x4004);                  /* rsi */
	put_u64(fx, sc + 80, INTERRUPTED_FP);          /* rbp */
	put_u64(fx, sc + 88, 0x4003);                  /* rbx */
	put_u64(fx, sc + 96, 0x4001);                  /* rdx */
	put_u64(fx, sc + 104, 0x4000);                 /* rax */
	put_u64(fx, sc + 112, 0x4002);                 /* rcx */
	put_u64(fx, sc + 120, INTERRUPTED_SP);         /* rsp */
	put_u64(fx, sc + 128, INTERRUPTED_PC);         /* rip */
	put_u64(fx, sc + 136, 0x202);                  /* eflags */
	put_u64(fx, sc + 144, 0x002b000000000033ull);  /* cs __USER_CS, ss __USER_DS */
}

static void amd64_context(struct fixture *fx)
{
	sw_reg_set(&fx->thread.ctx, RIP, TRAMPOLINE);
	sw_reg_set(&fx->thread.ctx, RSP, HANDLER_SP);
	sw_reg_set(&fx->thread.ctx, RBP, 0);
}

START_TEST(test_amd64_rt_sigreturn_restores_the_interrupted_context)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_AMD64, 8, STACK_SIZE);
	put_code_bytes(&fx, TRAMPOLINE, amd64_restore_rt, sizeof amd64_restore_rt);
	amd64_signal_frame(&fx, HANDLER_SP);
	amd64_context(&fx);
	const struct sw_regs regs = restored_frame(syn_walk(&fx, &sw_arch_amd64, NULL, NULL));
	ck_assert_uint_eq(regs.v[RSP], INTERRUPTED_SP);
	ck_assert_uint_eq(regs.v[RBP], INTERRUPTED_FP);
	ck_assert_uint_eq(regs.v[RAX], 0x4000);
	ck_assert_uint_eq(regs.v[RDX], 0x4001);
	ck_assert_uint_eq(regs.v[RCX], 0x4002);
	ck_assert_uint_eq(regs.v[RBX], 0x4003);
	ck_assert_uint_eq(regs.v[RSI], 0x4004);
	ck_assert_uint_eq(regs.v[RDI], 0x4005);
	ck_assert_uint_eq(regs.v[R8], 0x4008);
	ck_assert_uint_eq(regs.v[R15], 0x400f);
	ck_assert_uint_eq(regs.v[RFLAGS], 0x202);
	for (unsigned i = 0; i <= RFLAGS; i++)
		ck_assert_msg(sw_reg_valid(&regs, i), "register %u not restored", i);
	fixture_free(&fx);
}
END_TEST

/* A walk from `code` at the trampoline, over the signal frame (with or
 * without the selectors the kernel writes), restores no context. */
static void amd64_restores_no_context(const uint8_t *code, bool selectors)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_AMD64, 8, STACK_SIZE);
	put_code_bytes(&fx, TRAMPOLINE, code, sizeof amd64_restore_rt);
	amd64_signal_frame(&fx, HANDLER_SP);
	if (!selectors)
		put_u64(&fx, HANDLER_SP + 40 + 144, 0);
	amd64_context(&fx);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_amd64, NULL, NULL);
	for (uint32_t i = 1; i < st->nframes; i++)
		ck_assert(!st->frames[i].restored_context);
	fixture_free(&fx);
}

/* The restorer's address found where sigaction left it, with words above
 * that the kernel did not write (no user code segment selector): no
 * context is restored from them (zoo x86_64 4134 stripped, musl: a scan
 * took the k_sigaction's restorer, and stray words gave pc 0x9e83fbf8). */
START_TEST(test_amd64_restorer_without_a_kernel_frame_restores_nothing)
{
	amd64_restores_no_context(amd64_restore_rt, false);
}
END_TEST

/* `mov $0xe, %rax; syscall` (rt_sigprocmask) is no restorer. */
START_TEST(test_amd64_other_system_call_is_no_trampoline)
{
	uint8_t code[sizeof amd64_restore_rt];
	memcpy(code, amd64_restore_rt, sizeof code);
	code[3] = 0x0e;
	amd64_restores_no_context(code, true);
}
END_TEST

START_TEST(test_amd64_uncaptured_signal_frame_gives_no_frame)
{
	struct fixture fx;
	fixture_for(&fx, SW_CPU_AMD64, 8, STACK_SIZE);
	put_code_bytes(&fx, TRAMPOLINE, amd64_restore_rt, sizeof amd64_restore_rt);
	/* rip would be at sp + 168: past the stack's end. */
	sw_reg_set(&fx.thread.ctx, RIP, TRAMPOLINE);
	sw_reg_set(&fx.thread.ctx, RSP, STACK_BASE + STACK_SIZE - 0x80);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_amd64, NULL, NULL);
	for (uint32_t i = 1; i < st->nframes; i++)
		ck_assert(!st->frames[i].restored_context);
	fixture_free(&fx);
}
END_TEST

/* ---- MIPS ---- */

enum { MIPS_V0 = 2, MIPS_S0 = 16, MIPS_GP = 28, MIPS_SP = 29, MIPS_FP = 30, MIPS_RA = 31,
       MIPS_HI = 32, MIPS_LO = 33, MIPS_PC = 34 };

/* `li v0, nr; syscall` at the trampoline; the sigcontext's 64-bit fields:
 * pc at sc + pc_off, sc_regs[] from sc + regs_off, hi and lo. */
struct mips_layout {
	enum sw_cpu cpu;
	const struct sw_arch *arch;
	unsigned word_size;
	bool big_endian;
	uint32_t nr;
	uint64_t sc;        /* the sigcontext's offset from sp */
	uint64_t pc_off, regs_off, hi_off, lo_off;
};

static void mips_signal_frame_test(const struct mips_layout *l)
{
	struct fixture fx;
	syn_fixture_init(&fx, &(struct syn_config){
		.name = "synthetic-signal", .cpu = l->cpu, .os = SW_OS_LINUX,
		.word_size = l->word_size, .big_endian = l->big_endian,
		.code = { CODE_BASE, CODE_SIZE }, .stack = { STACK_BASE, STACK_SIZE },
		.fill = 0, .fill_size = 1, .thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/lib/libc.so" } },
		.nmodules = 1 });
	syn_put_code(&fx, TRAMPOLINE, 0x24020000u | l->nr, 4);
	syn_put_code(&fx, TRAMPOLINE + 4, 0x0000000cu, 4);
	uint64_t sc = HANDLER_SP + l->sc;
	/* o32 registers are saved sign-extended by 64-bit kernels. */
	uint64_t ext = l->word_size == 4 ? 0xffffffff00000000ull : 0;
	put_u64(&fx, sc + l->pc_off, INTERRUPTED_PC);
	for (unsigned i = 0; i < 32; i++)
		put_u64(&fx, sc + l->regs_off + 8 * i, i ? ext | (0x80006000u + i) : 0);
	put_u64(&fx, sc + l->regs_off + 8 * MIPS_SP, INTERRUPTED_SP);
	put_u64(&fx, sc + l->regs_off + 8 * MIPS_FP, INTERRUPTED_FP);
	put_u64(&fx, sc + l->regs_off + 8 * MIPS_RA, INTERRUPTED_LR);
	put_u64(&fx, sc + l->hi_off, 0x6100);
	put_u64(&fx, sc + l->lo_off, 0x6200);
	sw_reg_set(&fx.thread.ctx, MIPS_PC, TRAMPOLINE);
	sw_reg_set(&fx.thread.ctx, MIPS_SP, HANDLER_SP);
	sw_reg_set(&fx.thread.ctx, MIPS_RA, TRAMPOLINE);
	const struct sw_regs regs = restored_frame(syn_walk(&fx, l->arch, NULL, NULL));
	ck_assert_uint_eq(regs.v[MIPS_SP], INTERRUPTED_SP);
	ck_assert_uint_eq(regs.v[MIPS_FP], INTERRUPTED_FP);
	ck_assert_uint_eq(regs.v[MIPS_RA], INTERRUPTED_LR);
	uint64_t keep = l->word_size == 4 ? 0xffffffffu : UINT64_MAX;
	ck_assert_uint_eq(regs.v[MIPS_V0], (ext | 0x80006002u) & keep);
	ck_assert_uint_eq(regs.v[MIPS_S0], (ext | 0x80006010u) & keep);
	ck_assert_uint_eq(regs.v[MIPS_GP], (ext | 0x8000601cu) & keep);
	ck_assert_uint_eq(regs.v[MIPS_HI], 0x6100);
	ck_assert_uint_eq(regs.v[MIPS_LO], 0x6200);
	for (unsigned i = 0; i <= MIPS_PC; i++)
		ck_assert_msg(sw_reg_valid(&regs, i), "register %u not restored", i);
	fixture_free(&fx);
}

/* o32 sigreturn (4119), big-endian: sigframe = 24 bytes, then the
 * sigcontext { regmask, status, pc +8, regs +16, ..., hi +552, lo +560 }. */
START_TEST(test_mips_o32_sigreturn_restores_the_interrupted_context)
{
	mips_signal_frame_test(&(struct mips_layout){
		.cpu = SW_CPU_MIPS, .arch = &sw_arch_mips, .word_size = 4, .big_endian = true,
		.nr = 4119, .sc = 24, .pc_off = 8, .regs_off = 16, .hi_off = 552, .lo_off = 560 });
}
END_TEST

/* o32 rt_sigreturn (4193), little-endian: 24 bytes, siginfo (128), the
 * ucontext whose uc_mcontext is at +24. */
START_TEST(test_mips_o32_rt_sigreturn_restores_the_interrupted_context)
{
	mips_signal_frame_test(&(struct mips_layout){
		.cpu = SW_CPU_MIPS, .arch = &sw_arch_mips, .word_size = 4, .big_endian = false,
		.nr = 4193, .sc = 24 + 128 + 24, .pc_off = 8, .regs_off = 16, .hi_off = 552,
		.lo_off = 560 });
}
END_TEST

/* n64 rt_sigreturn (5211): uc_mcontext at +40; sigcontext { regs +0, ...,
 * hi +512, lo +544, pc +576 }. */
START_TEST(test_mips_n64_rt_sigreturn_restores_the_interrupted_context)
{
	mips_signal_frame_test(&(struct mips_layout){
		.cpu = SW_CPU_MIPS64, .arch = &sw_arch_mips64, .word_size = 8, .big_endian = false,
		.nr = 5211, .sc = 24 + 128 + 40, .pc_off = 576, .regs_off = 0, .hi_off = 512,
		.lo_off = 544 });
}
END_TEST

/* A 64-bit process makes no o32 calls: `li v0, 4193; syscall` there is
 * not taken for a restorer. */
START_TEST(test_mips64_o32_call_is_no_trampoline)
{
	struct fixture fx;
	syn_fixture_init(&fx, &(struct syn_config){
		.name = "synthetic-signal", .cpu = SW_CPU_MIPS64, .os = SW_OS_LINUX, .word_size = 8,
		.code = { CODE_BASE, CODE_SIZE }, .stack = { STACK_BASE, STACK_SIZE },
		.fill = 0, .fill_size = 1, .thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/lib/libc.so" } },
		.nmodules = 1 });
	syn_put_code(&fx, TRAMPOLINE, 0x24020000u | 4193, 4);
	syn_put_code(&fx, TRAMPOLINE + 4, 0x0000000cu, 4);
	put_u64(&fx, HANDLER_SP + 24 + 128 + 24 + 8, INTERRUPTED_PC);
	sw_reg_set(&fx.thread.ctx, MIPS_PC, TRAMPOLINE);
	sw_reg_set(&fx.thread.ctx, MIPS_SP, HANDLER_SP);
	const struct sw_stack *st = syn_walk(&fx, &sw_arch_mips64, NULL, NULL);
	for (uint32_t i = 1; i < st->nframes; i++)
		ck_assert(!st->frames[i].restored_context);
	fixture_free(&fx);
}
END_TEST

/* ---- PowerPC ---- */

enum { PPC_R1 = 1, PPC_R2 = 2, PPC_R31 = 31, PPC_SRR0 = 32, PPC_LR = 33, PPC_CTR = 34,
       PPC_CR = 35, PPC_XER = 36 };
enum { INSN_LI_R0 = 0x38000000u, INSN_SC = 0x44000002u, INSN_ADDI_R1_128 = 0x38210080u };

/* A PowerPC signal frame: the pointer the layout names at sp + ptr_off,
 * pointing to sp + regs_off, where a pt_regs (gpr[32], nip, msr,
 * orig_gpr3, ctr, link, xer, ccr; one word each) holds the interrupted
 * context. The trampoline's n code words at TRAMPOLINE, the handler's
 * context at code word `at` with r1 = sp. */
struct ppc_layout {
	enum sw_cpu cpu;
	const struct sw_arch *arch;
	unsigned ws;
	bool big_endian;
	uint32_t code[3];
	unsigned ncode, at;
	uint64_t sp_at, ptr_off, regs_off, ptr_value_off;
};

static const struct sw_stack *ppc_signal_walk(struct fixture *fx, const struct ppc_layout *l)
{
	syn_fixture_init(fx, &(struct syn_config){
		.name = "synthetic-signal", .cpu = l->cpu, .os = SW_OS_LINUX,
		.word_size = l->ws, .big_endian = l->big_endian,
		.code = { CODE_BASE, CODE_SIZE }, .stack = { STACK_BASE, STACK_SIZE },
		.fill = 0, .fill_size = 1, .thread_id = 1,
		.modules = { { .base = CODE_BASE, .size = CODE_SIZE, .code_file = "/lib/libc.so" } },
		.nmodules = 1 });
	for (unsigned i = 0; i < l->ncode; i++)
		syn_put_code(fx, TRAMPOLINE + 4 * i, l->code[i], 4);
	put_field(fx, HANDLER_SP + l->ptr_off, HANDLER_SP + l->ptr_value_off, l->ws);
	uint64_t regs = HANDLER_SP + l->regs_off;
	for (unsigned i = 0; i < 32; i++)
		put_field(fx, regs + l->ws * i, 0x7000 + i, l->ws);
	put_field(fx, regs + l->ws * PPC_R1, INTERRUPTED_SP, l->ws);
	put_field(fx, regs + l->ws * 32, INTERRUPTED_PC, l->ws);  /* nip */
	put_field(fx, regs + l->ws * 33, 0x8000f033, l->ws);      /* msr */
	put_field(fx, regs + l->ws * 35, 0x7123, l->ws);          /* ctr */
	put_field(fx, regs + l->ws * 36, INTERRUPTED_LR, l->ws);  /* link */
	put_field(fx, regs + l->ws * 37, 0x20000000, l->ws);      /* xer */
	put_field(fx, regs + l->ws * 38, 0x42024402, l->ws);      /* ccr */
	sw_reg_set(&fx->thread.ctx, PPC_SRR0, TRAMPOLINE + 4 * l->at);
	sw_reg_set(&fx->thread.ctx, PPC_R1, HANDLER_SP + l->sp_at);
	sw_reg_set(&fx->thread.ctx, PPC_LR, TRAMPOLINE);
	return syn_walk(fx, l->arch, NULL, NULL);
}

static void ppc_signal_frame_test(const struct ppc_layout *l)
{
	struct fixture fx;
	const struct sw_regs regs = restored_frame(ppc_signal_walk(&fx, l));
	ck_assert_uint_eq(regs.v[PPC_R1], INTERRUPTED_SP);
	ck_assert_uint_eq(regs.v[PPC_LR], INTERRUPTED_LR);
	ck_assert_uint_eq(regs.v[0], 0x7000);
	ck_assert_uint_eq(regs.v[PPC_R2], 0x7000 + PPC_R2);
	ck_assert_uint_eq(regs.v[PPC_R31], 0x7000 + PPC_R31);
	ck_assert_uint_eq(regs.v[PPC_CTR], 0x7123);
	ck_assert_uint_eq(regs.v[PPC_XER], 0x20000000);
	ck_assert_uint_eq(regs.v[PPC_CR], 0x42024402);
	for (unsigned i = 0; i <= PPC_XER; i++)
		ck_assert_msg(sw_reg_valid(&regs, i), "register %u not restored", i);
	fixture_free(&fx);
}

/* ppc64 rt_sigreturn (172), as the kernel's stack or older vDSO
 * trampoline runs it: r1 is __SIGNAL_FRAMESIZE (128) below the
 * rt_sigframe, whose ucontext's sigcontext (at +168) holds the regs
 * pointer at +56, pointing at gp_regs right after it. */
START_TEST(test_ppc64_rt_sigreturn_restores_the_interrupted_context)
{
	ppc_signal_frame_test(&(struct ppc_layout){
		.cpu = SW_CPU_PPC64, .arch = &sw_arch_ppc64, .ws = 8, .big_endian = false,
		.code = { INSN_LI_R0 | 172, INSN_SC }, .ncode = 2,
		.ptr_off = 128 + 168 + 56, .regs_off = 128 + 168 + 64,
		.ptr_value_off = 128 + 168 + 64 });
}
END_TEST

/* Linux 5.11's vDSO: the handler returns to `addi r1, r1, 128` before
 * li/sc (r1 still the handler's); a frame stopped on the li after it has
 * r1 at the rt_sigframe already. Big-endian, in ELFv1's byte order. */
START_TEST(test_ppc64_vdso_trampoline_with_addi)
{
	struct ppc_layout l = {
		.cpu = SW_CPU_PPC64, .arch = &sw_arch_ppc64, .ws = 8, .big_endian = true,
		.code = { INSN_ADDI_R1_128, INSN_LI_R0 | 172, INSN_SC }, .ncode = 3,
		.ptr_off = 128 + 168 + 56, .regs_off = 128 + 168 + 64,
		.ptr_value_off = 128 + 168 + 64 };
	ppc_signal_frame_test(&l);
	l.at = 1;
	l.sp_at = 128;
	ppc_signal_frame_test(&l);
}
END_TEST

/* qemu-user 7.2 puts the ppc64 frame 16 bytes higher (its 32-bit
 * layout's gap): the regs pointer at r1 + 368, still pointing at the word
 * after it. */
START_TEST(test_ppc64_qemu_rt_sigframe_16_bytes_higher)
{
	ppc_signal_frame_test(&(struct ppc_layout){
		.cpu = SW_CPU_PPC64, .arch = &sw_arch_ppc64, .ws = 8, .big_endian = false,
		.code = { INSN_LI_R0 | 172, INSN_SC }, .ncode = 2,
		.ptr_off = 16 + 128 + 168 + 56, .regs_off = 16 + 128 + 168 + 64,
		.ptr_value_off = 16 + 128 + 168 + 64 });
}
END_TEST

/* ppc32 rt_sigreturn: r1 + 64 + 16 is the rt_sigframe { siginfo (128);
 * ucontext }, uc_regs (uc + 48) points to uc_mcontext (uc + 192). */
START_TEST(test_ppc32_rt_sigreturn_restores_the_interrupted_context)
{
	ppc_signal_frame_test(&(struct ppc_layout){
		.cpu = SW_CPU_PPC, .arch = &sw_arch_ppc, .ws = 4, .big_endian = true,
		.code = { INSN_LI_R0 | 172, INSN_SC }, .ncode = 2,
		.ptr_off = 64 + 16 + 128 + 48, .regs_off = 64 + 16 + 128 + 192,
		.ptr_value_off = 64 + 16 + 128 + 192 });
}
END_TEST

/* ppc32 sigreturn (119): r1 + 64 is the sigframe { sigcontext (regs at
 * +28); mcontext at +32 }. */
START_TEST(test_ppc32_sigreturn_restores_the_interrupted_context)
{
	ppc_signal_frame_test(&(struct ppc_layout){
		.cpu = SW_CPU_PPC, .arch = &sw_arch_ppc, .ws = 4, .big_endian = true,
		.code = { INSN_LI_R0 | 119, INSN_SC }, .ncode = 2,
		.ptr_off = 64 + 28, .regs_off = 64 + 32, .ptr_value_off = 64 + 32 });
}
END_TEST

/* The trampoline's code, but a regs pointer that does not point where the
 * layout puts the registers (the frame is not the one assumed): no
 * restored context is made up from it. Nor is one from a 32-bit
 * sigreturn in a 64-bit process, which has none. */
START_TEST(test_ppc64_frame_without_its_regs_pointer_is_no_signal_frame)
{
	struct ppc_layout l = {
		.cpu = SW_CPU_PPC64, .arch = &sw_arch_ppc64, .ws = 8, .big_endian = false,
		.code = { INSN_LI_R0 | 172, INSN_SC }, .ncode = 2,
		.ptr_off = 128 + 168 + 56, .regs_off = 128 + 168 + 64,
		.ptr_value_off = 128 + 168 + 72 };
	for (int k = 0; k < 2; k++) {
		struct fixture fx;
		const struct sw_stack *st = ppc_signal_walk(&fx, &l);
		for (uint32_t i = 1; i < st->nframes; i++) {
			ck_assert(!st->frames[i].restored_context);
			ck_assert_uint_ne(st->frames[i].pc, INTERRUPTED_PC);
		}
		fixture_free(&fx);
		l.code[0] = INSN_LI_R0 | 119;
		l.ptr_value_off = l.regs_off;
	}
}
END_TEST

/* ---- RISC-V ---- */

enum { RV_RA = 1, RV_SP = 2, RV_S0 = 8, RV_A0 = 10, RV_T6 = 31, RV_PC = 32 };

/* rt_sigframe: siginfo (128), ucontext whose uc_mcontext is at +176 (RV64)
 * or +160 (RV32); sc_regs: pc, then x1-x31. */
static void riscv_signal_frame_test(enum sw_cpu cpu, const struct sw_arch *arch, unsigned ws,
                                    uint64_t mcontext)
{
	struct fixture fx;
	fixture_for(&fx, cpu, ws, STACK_SIZE);
	syn_put_code(&fx, TRAMPOLINE, 0x08b00893u, 4); /* li a7, 139 */
	syn_put_code(&fx, TRAMPOLINE + 4, 0x00000073u, 4); /* ecall */
	uint64_t sc = HANDLER_SP + 128 + mcontext;
	put_field(&fx, sc, INTERRUPTED_PC, ws);
	for (unsigned i = 1; i < 32; i++)
		put_field(&fx, sc + ws * i, 0x5000 + i, ws);
	put_field(&fx, sc + ws * RV_RA, INTERRUPTED_LR, ws);
	put_field(&fx, sc + ws * RV_SP, INTERRUPTED_SP, ws);
	put_field(&fx, sc + ws * RV_S0, INTERRUPTED_FP, ws);
	sw_reg_set(&fx.thread.ctx, RV_PC, TRAMPOLINE);
	sw_reg_set(&fx.thread.ctx, RV_SP, HANDLER_SP);
	sw_reg_set(&fx.thread.ctx, RV_RA, TRAMPOLINE);
	const struct sw_regs regs = restored_frame(syn_walk(&fx, arch, NULL, NULL));
	ck_assert_uint_eq(regs.v[RV_SP], INTERRUPTED_SP);
	ck_assert_uint_eq(regs.v[RV_S0], INTERRUPTED_FP);
	ck_assert_uint_eq(regs.v[RV_RA], INTERRUPTED_LR);
	ck_assert_uint_eq(regs.v[RV_A0], 0x5000 + RV_A0);
	ck_assert_uint_eq(regs.v[RV_T6], 0x5000 + RV_T6);
	for (unsigned i = 0; i <= RV_PC; i++)
		ck_assert_msg(sw_reg_valid(&regs, i), "x%u not restored", i);
	fixture_free(&fx);
}

START_TEST(test_riscv64_rt_sigreturn_restores_the_interrupted_context)
{
	riscv_signal_frame_test(SW_CPU_RISCV64, &sw_arch_riscv64, 8, 176);
}
END_TEST

START_TEST(test_riscv32_rt_sigreturn_restores_the_interrupted_context)
{
	riscv_signal_frame_test(SW_CPU_RISCV32, &sw_arch_riscv32, 4, 160);
}
END_TEST

/* A restorer whose page the snapshot holds as part of the stack: qemu-user
 * maps its sigreturn page right above a static program's stack, and an
 * offline capture read from sp up takes it in (zoo riscv64 1027, 1032,
 * 1056, static, the crash in a handler). The handler's saved ra names
 * that page: an address in the stack is no return address a rule may
 * give, unless its bytes are the restorer's and a signal frame lies at
 * the handler's caller's sp. Other bytes there: no frame at that address.
 * The handler (pc after `addi sp, sp, -32; sd ra, 24(sp)`) is told by
 * prologue analysis; the kernel's rt_sigframe begins at its caller's sp. */
START_TEST(test_riscv64_restorer_in_the_stack_region_is_taken_by_its_code)
{
	const uint64_t handler = CODE_BASE + 0x200, tramp = STACK_BASE + 0x1000;
	const uint64_t sp = STACK_BASE + 0x100, frame = sp + 32;
	for (int restorer = 0; restorer < 2; restorer++) {
		struct fixture fx;
		syn_fixture_init(&fx, &(struct syn_config){
			.name = "restorer-in-stack", .cpu = SW_CPU_RISCV64, .os = SW_OS_LINUX,
			.word_size = 8, .code = { CODE_BASE, CODE_SIZE },
			.stack = { STACK_BASE, 0x1100 }, .fill = 0x00000013, .fill_size = 4,
			.thread_id = 1, .nmodules = 1,
			.modules = { { .base = CODE_BASE, .size = CODE_SIZE,
			               .code_file = "prog" } } });
		syn_put_code(&fx, handler - 4, 0x00008067u, 4);    /* ret */
		syn_put_code(&fx, handler, 0xfe010113u, 4);        /* addi sp, sp, -32 */
		syn_put_code(&fx, handler + 4, 0x00113c23u, 4);    /* sd ra, 24(sp) */
		put_u32(&fx, tramp, 0x08b00893u);                  /* li a7, 139 */
		put_u32(&fx, tramp + 4, restorer ? 0x00000073u : 0x00100073u); /* ecall/ebreak */
		put_u64(&fx, sp + 24, tramp);
		uint64_t sc = frame + 128 + 176;
		put_u64(&fx, sc, INTERRUPTED_PC);
		for (unsigned i = 1; i < 32; i++)
			put_u64(&fx, sc + 8 * i, 0x5000 + i);
		put_u64(&fx, sc + 8 * RV_RA, INTERRUPTED_LR);
		put_u64(&fx, sc + 8 * RV_SP, INTERRUPTED_SP);
		put_u64(&fx, sc + 8 * RV_S0, INTERRUPTED_FP);
		sw_reg_set(&fx.thread.ctx, RV_PC, handler + 0x10);
		sw_reg_set(&fx.thread.ctx, RV_SP, sp);
		sw_reg_set(&fx.thread.ctx, RV_RA, INTERRUPTED_LR);
		sw_reg_set(&fx.thread.ctx, RV_S0, 0x2);
		const struct sw_stack *st = syn_walk(&fx, &sw_arch_riscv64, NULL, NULL);
		if (restorer) {
			ck_assert_uint_ge(st->nframes, 3);
			ck_assert_uint_eq(st->frames[1].pc, tramp);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], RV_SP), frame);
			ck_assert_int_eq(st->frames[2].trust, SW_TRUST_CONTEXT);
			ck_assert_uint_eq(st->frames[2].pc, INTERRUPTED_PC);
			ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[2], RV_SP), INTERRUPTED_SP);
		} else {
			for (uint32_t i = 1; i < st->nframes; i++) {
				ck_assert_uint_ne(st->frames[i].pc, tramp);
				ck_assert(!st->frames[i].restored_context);
			}
		}
		fixture_free(&fx);
	}
}
END_TEST

/* DWARF register 4096 + 0xc22 is the CSR vlenb (psABI), a register of its
 * own that no output prints and every frame keeps. */
START_TEST(test_riscv_dwarf_csr_vlenb_has_a_register)
{
	const struct sw_arch *arches[] = { &sw_arch_riscv64, &sw_arch_riscv32 };
	for (size_t i = 0; i < 2; i++) {
		const struct sw_arch *a = arches[i];
		int vlenb = sw_arch_reg_index(a, "vlenb", 5);
		ck_assert_int_ge(vlenb, 0);
		ck_assert_int_lt(vlenb, SW_MAX_REGS);
		ck_assert_int_ne(vlenb, a->pc);
		ck_assert_int_eq(sw_arch_dwarf_reg(a, 0x1c22), vlenb);
		ck_assert_int_eq(sw_arch_dwarf_reg(a, 0x1c21), -1);
		ck_assert_int_eq(sw_arch_dwarf_reg(a, 2), RV_SP);
		ck_assert((a->callee_saved >> vlenb) & 1);
		for (unsigned j = 0; j < a->nprint; j++)
			ck_assert_int_ne(a->print_order[j], vlenb);
	}
	/* Other CPUs have no such numbers. */
	ck_assert_int_eq(sw_arch_dwarf_reg(&sw_arch_arm64, 0x1c22), -1);
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("signal_frame");
	TCase *tc = tcase_create("sigreturn");
	tcase_add_test(tc, test_arm64_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_arm64_other_code_is_no_trampoline);
	tcase_add_test(tc, test_arm64_signal_frame_read_off_its_place_gives_no_frame);
	tcase_add_test(tc, test_arm64_uncaptured_signal_frame_gives_no_frame);
	tcase_add_test(tc, test_arm_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_arm_thumb_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_arm_oabi_restorers_and_old_frames);
	tcase_add_test(tc, test_arm_other_code_is_no_trampoline);
	tcase_add_test(tc, test_x86_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_x86_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_amd64_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_amd64_restorer_without_a_kernel_frame_restores_nothing);
	tcase_add_test(tc, test_amd64_other_system_call_is_no_trampoline);
	tcase_add_test(tc, test_amd64_uncaptured_signal_frame_gives_no_frame);
	tcase_add_test(tc, test_mips_o32_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_mips_o32_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_mips_n64_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_mips64_o32_call_is_no_trampoline);
	tcase_add_test(tc, test_ppc64_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_ppc64_vdso_trampoline_with_addi);
	tcase_add_test(tc, test_ppc64_qemu_rt_sigframe_16_bytes_higher);
	tcase_add_test(tc, test_ppc32_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_ppc32_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_ppc64_frame_without_its_regs_pointer_is_no_signal_frame);
	tcase_add_test(tc, test_riscv64_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_riscv32_rt_sigreturn_restores_the_interrupted_context);
	tcase_add_test(tc, test_riscv64_restorer_in_the_stack_region_is_taken_by_its_code);
	tcase_add_test(tc, test_riscv_dwarf_csr_vlenb_has_a_register);
	suite_add_tcase(s, tc);
	return s;
}
