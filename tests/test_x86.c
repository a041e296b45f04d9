/* The x86 (i386) walker on synthetic stacks: the ebp chain and a scan's
 * ebp recovery, GCC's realigned main whose caller's esp is the CFA it
 * saved, a broken chain that a scan passes only with code bytes, a PIC
 * call through the PLT and the caller's GOT (i386 ABI §5), and glibc's
 * system calls through %gs:0x10. */
#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "arch/x86_call.h"
#include "arch/x86_prologue.h"
#include "lib/walker.h"
#include "synthetic_snapshot.h"
#include "x86_fixture.h"

/* The fixture as an i386 process: 32-bit words, and the second module
 * at a 32-bit address. */
static void i386_fixture_init(struct fixture *fx, enum sw_os os)
{
	fixture_init(fx, os);
	fx->snap.sys.cpu = SW_CPU_X86;
	fx->snap.sys.word_size = 4;
	fx->modules[1].base = 0x7c800000;
}

/* x86: the ebp chain and the scan's ebp recovery. */
START_TEST(test_x86_frame_pointer_then_scan)
{
	struct fixture fx;
	i386_fixture_init(&fx, SW_OS_WINDOWS);
	uint64_t esp = STACK_BASE + 0x100, ebp = STACK_BASE + 0x140;
	sw_reg_set(&fx.thread.ctx, X86_EIP, CODE_BASE + 0x10);
	sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
	sw_reg_set(&fx.thread.ctx, X86_EBP, ebp);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_u32(&fx, ebp, 0);                      /* saved ebp: end of chain */
	put_u32(&fx, ebp + 4, CODE_BASE + 0x300);
	fixture_finish(&fx);
	ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, NULL, NULL, &fx.arena, &fx.result));
	const struct sw_stack *st = &fx.result.stacks[0];
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_ESP), ebp + 8);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_EIP), CODE_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* GCC's i386 main realigns its stack: it keeps the CFA in ecx, copies its
 * return address above the realigned sp, makes its record there and
 * saves ecx after three pushes. The caller's esp is that saved CFA, not
 * ebp + 8, which lies in the realigned area where the caller's rules
 * would read stale words (zoo i386 70, static -Os: a `.cold` word of
 * libc became a frame). */
START_TEST(test_x86_realigned_main_gives_its_caller_the_saved_cfa)
{
	struct fixture fx;
	struct fake_symbols fs;
	i386_fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	static const uint8_t main_code[] = {
		0x8d, 0x4c, 0x24, 0x04,       /* lea 0x4(%esp),%ecx */
		0x83, 0xe4, 0xf0,             /* and $-16,%esp */
		0xff, 0x71, 0xfc,             /* push -0x4(%ecx) */
		0x55, 0x89, 0xe5,             /* push %ebp; mov %esp,%ebp */
		0x57, 0x56, 0x53,             /* push %edi, %esi, %ebx */
		0xe8, 0, 0, 0, 0,             /* call the pc thunk */
		0x81, 0xc3, 0, 0x10, 0, 0,    /* add $0x1000,%ebx */
		0x51,                         /* push %ecx */
	};
	memcpy(syn_code_at(&fx, CODE_BASE + 0x100, sizeof main_code), main_code, sizeof main_code);
	uint64_t esp = STACK_BASE + 0x100, ebp = STACK_BASE + 0x140, cfa = STACK_BASE + 0x168;
	sw_reg_set(&fx.thread.ctx, X86_EIP, CODE_BASE + 0x140);
	sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
	sw_reg_set(&fx.thread.ctx, X86_EBP, ebp);
	put_call_before(&fx, CODE_BASE + 0x300);
	put_u32(&fx, ebp, 0);
	put_u32(&fx, ebp + 4, CODE_BASE + 0x300);  /* the copy */
	put_u32(&fx, ebp - 16, (uint32_t)cfa);     /* the saved ecx */
	put_u32(&fx, cfa - 4, CODE_BASE + 0x300);  /* the return address itself */
	fixture_finish(&fx);
	ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, &fs.source, NULL, &fx.arena,
	                           &fx.result));
	const struct sw_stack *st = &fx.result.stacks[0];
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_EIP), CODE_BASE + 0x300);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_ESP), cfa);
	fixture_free(&fx);
}
END_TEST

/* A broken frame chain (a record at a plausible ebp whose return address
 * names no code) lets a scan go on only with a word the code bytes prove:
 * a word in a module whose code is not captured is Breakpad's rule alone. */
static const struct sw_stack *walk_x86_broken_chain(struct fixture *fx, bool code_captured)
{
	i386_fixture_init(fx, SW_OS_LINUX);
	uint64_t esp = STACK_BASE + 0x100, ebp = STACK_BASE + 0x140;
	sw_reg_set(&fx->thread.ctx, X86_EIP, CODE_BASE + 0x10);
	sw_reg_set(&fx->thread.ctx, X86_ESP, esp);
	sw_reg_set(&fx->thread.ctx, X86_EBP, ebp);
	put_u32(fx, ebp, STACK_BASE + 0x200);
	put_u32(fx, ebp + 4, 0x00b0b0b0);          /* no module: the chain is broken */
	uint64_t ra = code_captured ? CODE_BASE + 0x300 : 0x7c801234;
	if (code_captured)
		put_call_before(fx, ra);
	put_u32(fx, esp + 8, (uint32_t)ra);
	fixture_finish(fx);
	ck_assert(sw_walk_snapshot(&fx->snap, &sw_arch_x86, NULL, NULL, &fx->arena, &fx->result));
	return &fx->result.stacks[0];
}

START_TEST(test_scan_after_broken_chain_needs_code_bytes)
{
	struct fixture fx;
	const struct sw_stack *st = walk_x86_broken_chain(&fx, false);
	ck_assert_uint_eq(st->nframes, 1);
	ck_assert_int_eq(st->end, SW_END_NO_CALLER);
	fixture_free(&fx);

	st = walk_x86_broken_chain(&fx, true);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
	fixture_free(&fx);
}
END_TEST

/* The scan starts above what the function's opening allocated: its
 * pushes of callee-saved registers and its sub from esp hold locals, and
 * a return address among them is a leftover (zoo i386 1018 nofp,
 * stripped and alone: a stale libc return in f4's 0xd0 bytes of locals
 * skipped f3's recursion). The function's start is the one its code
 * shows (no symbols). */
START_TEST(test_i386_scan_starts_above_the_opening)
{
	struct fixture fx;
	i386_fixture_init(&fx, SW_OS_LINUX);
	static const uint8_t code[] = {
		0xc3, 0x8d, 0x74, 0x26, 0x00,       /* ret; lea 0(%esi,%eiz),%esi */
		0x57, 0x56, 0x53,                   /* push %edi, %esi, %ebx */
		0x81, 0xec, 0xd0, 0x00, 0x00, 0x00, /* sub $0xd0,%esp */
		0x85, 0xc0,                         /* test %eax,%eax */
		0xff, 0xd0,                         /* call *%eax */
		0x89, 0xc2,                         /* mov %eax,%edx (pc) */
	};
	memcpy(syn_code_at(&fx, CODE_BASE + 0x200, sizeof code), code, sizeof code);
	uint64_t esp = STACK_BASE + 0x100, pc = CODE_BASE + 0x212;
	sw_reg_set(&fx.thread.ctx, X86_EIP, pc);
	sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
	/* Calls to code that runs on to the end of the module: not closed. */
	put_call_to(&fx, CODE_BASE + 0x500, CODE_BASE + 0x1000);
	put_call_to(&fx, CODE_BASE + 0x600, CODE_BASE + 0x1000);
	put_u32(&fx, esp + 0x40, CODE_BASE + 0x500);   /* a stale local */
	put_u32(&fx, esp + 0xdc, CODE_BASE + 0x600);   /* the return address */
	fixture_finish(&fx);
	ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, NULL, NULL, &fx.arena, &fx.result));
	const struct sw_stack *st = &fx.result.stacks[0];
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x600);
	ck_assert_uint_eq(sw_stack_frame_reg(&st->frames[1], X86_ESP), esp + 0xe0);
	fixture_free(&fx);
}
END_TEST

/* i386 PIC code: a function whose prologue puts the GOT base in ebx (call
 * to a pc thunk, add $GOT-., %ebx) or, as GCC -O0 does, in eax (add's
 * short form 05 i32; moved to ebx before the call) and, at ra, has called
 * a PLT entry jmp *12(%ebx) whose GOT slot holds `slot_value`. */
static void put_i386_pic_call(struct fixture *fx, uint64_t fn, uint64_t ra, uint64_t stub,
                              uint64_t got, uint32_t slot_value, bool eax)
{
	uint64_t thunk = CODE_BASE + 0x100;
	/* mov (%esp),%ebx (%eax); ret */
	memcpy(syn_code_at(fx, thunk, 4), eax ? "\x8b\x04\x24\xc3" : "\x8b\x1c\x24\xc3", 4);
	put_call_to(fx, fn + 6, thunk);
	uint8_t *add = syn_code_at(fx, fn + 6, eax ? 5 : 6);
	int32_t delta = (int32_t)(got - (fn + 6));
	if (eax) {
		add[0] = 0x05;
		memcpy(add + 1, &delta, 4);
	} else {
		add[0] = 0x81;
		add[1] = 0xc3;
		memcpy(add + 2, &delta, 4);
	}
	put_call_to(fx, ra, stub);
	/* jmp *12(%ebx); push $0 (where an unbound slot points) */
	memcpy(syn_code_at(fx, stub, 11), "\xff\xa3\x0c\x00\x00\x00\x68\x00\x00\x00\x00", 11);
	put_u32(fx, got + 12, slot_value);
}

/* The PLT entry's slot is d32 from the GOT base the caller holds (i386
 * ABI §5): followed, to a function of the stub's own module too (a DSO
 * calling its own exported function); a slot not yet bound points back
 * at the entry's push $index and names no target. */
START_TEST(test_i386_call_target_follows_a_pic_plt_entry_through_the_callers_got)
{
	uint64_t fn = CODE_BASE + 0x200, ra = fn + 0x40, stub = CODE_BASE + 0x700;
	uint64_t got = STACK_BASE + 0x800;
	const uint32_t slots[2] = { (uint32_t)(CODE_BASE + 0x900), (uint32_t)(stub + 6) };
	for (unsigned k = 0; k < 4; k++) {
		unsigned i = k % 2;
		struct fixture fx;
		fixture_init(&fx, SW_OS_LINUX);
		put_i386_pic_call(&fx, fn, ra, stub, got, slots[i], k >= 2);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86 };
		uint64_t target = 0;
		bool found = sw_x86_call_target(&w, ra, false, &target);
		ck_assert_int_eq(found, i == 0);
		if (found)
			ck_assert_uint_eq(target, CODE_BASE + 0x900);
		fixture_free(&fx);
	}
}
END_TEST

/* i386 glibc enters the kernel by `call *%gs:0x10`: a word after such a
 * call is the return address of a frame in the kernel's entry code only
 * (right after int $0x80 here); above any other frame it is left over
 * from an earlier system call (zoo i386 78: under f4, from malloc's
 * brk). And a live ebp below which such a word lies is a caller's record
 * when the frame is in the entry code: the wrapper keeps none (zoo i386
 * 95, the core alone: it skipped raise and main). */
static const struct sw_stack *walk_i386_above_syscall(struct fixture *fx, bool in_entry,
                                                     bool record)
{
	i386_fixture_init(fx, SW_OS_LINUX);
	uint64_t sp = STACK_BASE + 0x100;
	sw_reg_set(&fx->thread.ctx, X86_EIP, CODE_BASE + 0x10);
	sw_reg_set(&fx->thread.ctx, X86_ESP, sp);
	sw_reg_set(&fx->thread.ctx, X86_EBP, record ? sp + 0x20 : 0x1234);
	if (in_entry)
		memcpy(syn_code_at(fx, CODE_BASE + 0xe, 2), "\xcd\x80", 2);
	memcpy(syn_code_at(fx, CODE_BASE + 0x300 - 7, 7), "\x65\xff\x15\x10\x00\x00\x00", 7);
	put_call_before(fx, CODE_BASE + 0x520);
	put_call_before(fx, CODE_BASE + 0x600);
	put_u32(fx, sp, CODE_BASE + 0x300);
	put_u32(fx, sp + 4, CODE_BASE + 0x520);
	put_u32(fx, sp + 0x20, sp + 0x40); /* a record: ebp, return address */
	put_u32(fx, sp + 0x24, CODE_BASE + 0x600);
	fixture_finish(fx);
	ck_assert(sw_walk_snapshot(&fx->snap, &sw_arch_x86, NULL, NULL, &fx->arena, &fx->result));
	return &fx->result.stacks[0];
}

START_TEST(test_i386_call_through_sysinfo_returns_only_from_the_kernel_entry)
{
	struct fixture fx;
	for (int record = 0; record <= 1; record++) {
		const struct sw_stack *st = walk_i386_above_syscall(&fx, true, record);
		ck_assert_uint_ge(st->nframes, 2);
		ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x300);
		ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
		fixture_free(&fx);
	}
	const struct sw_stack *st = walk_i386_above_syscall(&fx, false, false);
	ck_assert_uint_ge(st->nframes, 2);
	ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x520);
	fixture_free(&fx);
}
END_TEST

/* A signal handler's record holds the restorer (pop %eax; mov $0x77,
 * %eax; int $0x80), which no call precedes: it is the record's caller,
 * not a broken chain (zoo i386 1027: with symbols the handler's record
 * was believed, and the walk ended at it; the walker then takes the
 * restorer only above a real signal frame). */
START_TEST(test_i386_record_returning_to_the_restorer_is_no_broken_chain)
{
	struct fixture fx;
	struct fake_symbols fs;
	i386_fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fs.func_lo = 0x500; /* the restorer starts a function; the byte before is in none */
	uint64_t sp = STACK_BASE + 0x100, ebp = sp + 0x20, restorer = CODE_BASE + 0x500;
	memcpy(syn_code_at(&fx, restorer, 8), "\x58\xb8\x77\x00\x00\x00\xcd\x80", 8);
	put_u32(&fx, ebp, sp + 0x40);
	put_u32(&fx, ebp + 4, restorer);
	fixture_finish(&fx);
	struct sw_frame f;
	memset(&f, 0, sizeof f);
	f.pc = f.lookup_pc = CODE_BASE + 0x10;
	f.trust = SW_TRUST_CONTEXT;
	sw_reg_set(&f.regs, X86_EIP, f.pc);
	sw_reg_set(&f.regs, X86_ESP, sp);
	sw_reg_set(&f.regs, X86_EBP, ebp);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86, .symbols = &fs.source };
	struct sw_step step = { .walk = &w, .callee = &f };
	struct sw_caller out;
	ck_assert_int_eq(sw_arch_x86.caller_by_frame_pointer(&step, &out), SW_UNWIND_OK);
	ck_assert_uint_eq(out.regs.v[X86_EIP], restorer);
	ck_assert_uint_eq(out.regs.v[X86_ESP], ebp + 8);
	fixture_free(&fx);
}
END_TEST

/* A handler's return address on its stack is glibc's __restore, a
 * symbol of its own right after __restore_rt, which has no size: the byte
 * before it lies in no function, and the word equals a function's start.
 * Neither makes it a stale pointer: the scan takes it where a real signal
 * frame lies above it, and the next step restores the interrupted context
 * (zoo i386 218 with every file: both checks refused it, and the walk
 * ended short in the handler). */
START_TEST(test_i386_scan_takes_a_restorer_in_no_sized_function)
{
	struct fixture fx;
	struct fake_symbols fs;
	i386_fixture_init(&fx, SW_OS_LINUX);
	fake_init(&fs, RULE_NONE);
	fs.func_lo = 0x500; /* the restorer starts a function; the byte before is in none */
	uint64_t restorer = CODE_BASE + 0x500, handler = CODE_BASE + 0x610;
	uint64_t interrupted = CODE_BASE + 0x720, esp = STACK_BASE + 0x100;
	memcpy(syn_code_at(&fx, restorer, 8), "\x58\xb8\x77\x00\x00\x00\xcd\x80", 8);
	memcpy(syn_code_at(&fx, handler - 2, 3), "\x89\x10\xc3", 3); /* mov %edx,(%eax); ret */
	sw_reg_set(&fx.thread.ctx, X86_EIP, handler);
	sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
	uint64_t slot = esp + 0x10, sc = slot + 8; /* pretcode, sig, sigcontext */
	put_u32(&fx, slot, restorer);
	put_u32(&fx, slot + 4, 11);                /* SIGSEGV */
	put_u32(&fx, sc + 28, STACK_BASE + 0x400); /* esp */
	put_u32(&fx, sc + 56, interrupted);        /* eip */
	put_u32(&fx, sc + 60, 0x73);               /* cs */
	put_u32(&fx, sc + 72, 0x7b);               /* ss */
	fixture_finish(&fx);
	ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, &fs.source, NULL, &fx.arena,
	                           &fx.result));
	const struct sw_stack *st = &fx.result.stacks[0];
	ck_assert_uint_ge(st->nframes, 3);
	ck_assert_uint_eq(st->frames[1].pc, restorer);
	ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
	ck_assert_uint_eq(st->frames[2].pc, interrupted);
	ck_assert(st->frames[2].restored_context);
	fixture_free(&fx);
}
END_TEST

/* A live frame whose start cannot be found (a tail jump before it, no
 * symbols) and whose code runs straight from pc to its `ret` without
 * touching ebp returns with ebp as it found it: the record at ebp is an
 * ancestor's, and following it would skip frames (zoo i386 1214 nofp
 * stripped: f5 kept start_thread's ebp; the record's return into __clone
 * skipped f4 and start_thread). The scan finds f5's return address, above
 * the two registers its epilogue pops. Where the way to `ret` pops ebp,
 * the record may be the frame's own: it is followed. */
static const uint8_t leaf_after_tail_jump[] = {
	0xe9, 0x00, 0x01, 0x00, 0x00, /* jmp elsewhere: the function before */
	0x56, 0x53,                   /* push %esi; push %ebx: f5 */
	0x88, 0x13,                   /* mov %dl,(%ebx): pc */
	0x8b, 0x01,                   /* mov (%ecx),%eax */
	0x48,                         /* dec %eax */
	0x5b, 0x5e,                   /* pop %ebx; pop %esi */
	0xc3,                         /* ret */
};

START_TEST(test_i386_live_frame_returning_without_touching_ebp_has_no_record)
{
	for (int pops_ebp = 0; pops_ebp < 2; pops_ebp++) {
		struct fixture fx;
		i386_fixture_init(&fx, SW_OS_LINUX);
		uint8_t code[sizeof leaf_after_tail_jump];
		memcpy(code, leaf_after_tail_jump, sizeof code);
		if (pops_ebp)
			code[13] = 0x5d; /* pop %ebp */
		memcpy(syn_code_at(&fx, CODE_BASE + 0x200, sizeof code), code, sizeof code);
		uint64_t esp = STACK_BASE + 0x100, ebp = STACK_BASE + 0x180, pc = CODE_BASE + 0x207;
		sw_reg_set(&fx.thread.ctx, X86_EIP, pc);
		sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
		sw_reg_set(&fx.thread.ctx, X86_EBP, ebp);
		/* f4's call through a pointer, f5's return address above the
		 * two pushes; the ancestor's record: the end of the chain, and a
		 * return after another call through a pointer. */
		memcpy(syn_code_at(&fx, CODE_BASE + 0x500 - 2, 2), "\xff\xd0", 2); /* call *%eax */
		memcpy(syn_code_at(&fx, CODE_BASE + 0x600 - 2, 2), "\xff\xd3", 2); /* call *%ebx */
		put_u32(&fx, esp + 8, (uint32_t)(CODE_BASE + 0x500));
		put_u32(&fx, ebp, 0);
		put_u32(&fx, ebp + 4, (uint32_t)(CODE_BASE + 0x600));
		fixture_finish(&fx);
		ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, NULL, NULL, &fx.arena, &fx.result));
		const struct sw_stack *st = &fx.result.stacks[0];
		ck_assert_uint_ge(st->nframes, 2);
		if (!pops_ebp) {
			ck_assert_int_eq(st->frames[1].trust, SW_TRUST_SCAN);
			ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x500);
		} else {
			ck_assert_int_eq(st->frames[1].trust, SW_TRUST_FRAME_POINTER);
			ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x600);
		}
		fixture_free(&fx);
	}
}
END_TEST

/* Without symbols, a start candidate inside an instruction of an earlier
 * start's code is none (zoo i386 3536 nofp stripped: f3's `add
 * $0xb8756,%ebx` is 81 c3 56 ...: a c3 then a push of esi, which looked
 * like a function's end and the next one's opening; from it the code
 * decodes on to pc out of step, f3 seemed to keep no record, and a scan
 * took a stale return instead of start_thread's). */
START_TEST(test_i386_start_without_symbols_is_an_instruction_boundary)
{
	static const uint8_t code[] = {
		0xc3,                               /* 0x100 ret (the previous function) */
		0x55, 0x89, 0xe5,                   /* 0x101 push %ebp; mov %esp,%ebp */
		0x57, 0x56, 0x53,                   /* push %edi; push %esi; push %ebx */
		0x81, 0xec, 0xac, 0x00, 0x00, 0x00, /* sub $0xac,%esp */
		0x81, 0xc3, 0x56, 0x87, 0x0b, 0x00, /* 0x10d add $0xb8756,%ebx */
		0x39, 0xc0, 0x7f, 0x02,             /* cmp %eax,%eax; jg pc */
		0x90, 0x90,                         /* nop; nop; pc = 0x119 */
	};
	struct fixture fx;
	i386_fixture_init(&fx, SW_OS_LINUX);
	memcpy(syn_code_at(&fx, CODE_BASE + 0x100, sizeof code), code, sizeof code);
	fixture_finish(&fx);
	struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86 };
	uint64_t start = 0, pc = CODE_BASE + 0x119;
	ck_assert(sw_x86_start_without_symbols(&w, pc, false, &start));
	ck_assert_uint_eq(start, CODE_BASE + 0x101);
	struct sw_frame f;
	memset(&f, 0, sizeof f);
	f.pc = pc;
	f.lookup_pc = pc - 1;
	f.trust = SW_TRUST_CFI;
	ck_assert_int_eq(sw_x86_frame_of(&w, &f, false), SW_X86_FRAME_SET_UP);
	fixture_free(&fx);
}
END_TEST

/* Without symbols, a function whose last instruction calls, through its
 * PLT entry, the function right after it (zoo i386 3532, -O0 PIC, the
 * core alone: f6 ends `call f7@plt`, f7 follows at once and keeps no
 * record): f6's code runs into f7's entry, which the call names through
 * the GOT; f6's start is not f7's, whose opening the scan must skip. */
START_TEST(test_i386_start_without_symbols_stops_at_an_entry_called_through_the_plt)
{
	for (int bound = 0; bound < 2; bound++) {
		uint64_t fn = CODE_BASE + 0x200, ra = fn + 0x40, stub = CODE_BASE + 0x700;
		uint64_t got = STACK_BASE + 0x800, pc = ra + 0x11;
		struct fixture fx;
		i386_fixture_init(&fx, SW_OS_LINUX);
		/* A bound slot names f7; an unbound one the entry's push. */
		put_i386_pic_call(&fx, fn, ra, stub, got, (uint32_t)(bound ? ra : stub + 6), true);
		memcpy(syn_code_at(&fx, fn - 1, 2), "\xc3\x53", 2);   /* ret | push %ebx */
		memcpy(syn_code_at(&fx, ra, 3), "\x83\xec\x1c", 3);  /* f7: sub $0x1c,%esp */
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86 };
		uint64_t start = 0;
		bool found = sw_x86_start_without_symbols(&w, pc, false, &start);
		if (bound)
			ck_assert(!found || start == ra);
		else
			ck_assert(found && start == fn);
		fixture_free(&fx);
	}
}
END_TEST

/* Without symbols, a function right after another's tail jump (jmp
 * rel32, no padding: zoo i386 4103 -Os static, f2 after frame_dummy's
 * `jmp register_tm_clones`) starts there when it opens as only a
 * function does (two callee-saved pushes, push %ebp; mov %esp,%ebp,
 * endbr); a block after a jump that pushes once is no start. */
START_TEST(test_i386_start_without_symbols_after_a_tail_jump)
{
	static const uint8_t opens[] = {
		0xe9, 0x2b, 0xff, 0xff, 0xff,       /* 0x100 jmp (a tail call) */
		0x55, 0x57, 0x56, 0x53,             /* 0x105 push %ebp, %edi, %esi, %ebx */
		0x81, 0xec, 0x9c, 0x00, 0x00, 0x00, /* sub $0x9c,%esp */
		0x90, 0x90,                         /* pc = 0x111 */
	};
	for (int pushes_once = 0; pushes_once < 2; pushes_once++) {
		uint8_t code[sizeof opens];
		memcpy(code, opens, sizeof code);
		if (pushes_once)
			code[6] = 0x90; /* push %ebp; nop */
		struct fixture fx;
		i386_fixture_init(&fx, SW_OS_LINUX);
		memcpy(syn_code_at(&fx, CODE_BASE + 0x100, sizeof code), code, sizeof code);
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86 };
		uint64_t start = 0;
		bool found = sw_x86_start_without_symbols(&w, CODE_BASE + 0x111, false, &start);
		if (pushes_once)
			ck_assert(!found || start != CODE_BASE + 0x105);
		else
			ck_assert(found && start == CODE_BASE + 0x105);
		fixture_free(&fx);
	}
}
END_TEST

/* The code from pc runs straight to `ret` and names where the return
 * address lies: i386 cdecl keeps a call's pushed arguments on the stack
 * until the caller's epilogue (zoo i386 4122 -O3: f3's `add $0xbdc,%esp;
 * ret` after the recursive call; the scan, started above f3's `sub
 * $0xbcc`, took f2's saved ebx, an ld.so address, 16 bytes short of
 * f2's return address). */
START_TEST(test_i386_epilogue_names_the_return_slot)
{
	static const uint8_t tail[] = {
		0x0f, 0xbe, 0x54, 0x24, 0x18,       /* movsbl 0x18(%esp),%edx */
		0x81, 0xc4, 0xdc, 0x0b, 0x00, 0x00, /* add $0xbdc,%esp */
		0x5b,                               /* pop %ebx */
		0x01, 0xd0,                         /* add %edx,%eax */
		0xc3,                               /* ret */
	};
	for (int branches = 0; branches < 2; branches++) {
		struct fixture fx;
		i386_fixture_init(&fx, SW_OS_LINUX);
		uint8_t code[sizeof tail];
		memcpy(code, tail, sizeof code);
		if (branches)
			memcpy(code + 12, "\x74\x00", 2); /* je .+2 */
		memcpy(syn_code_at(&fx, CODE_BASE + 0x200, sizeof code), code, sizeof code);
		uint64_t esp = STACK_BASE + 0x100, off = 0;
		sw_reg_set(&fx.thread.ctx, X86_EIP, CODE_BASE + 0x200);
		sw_reg_set(&fx.thread.ctx, X86_ESP, esp);
		memcpy(syn_code_at(&fx, CODE_BASE + 0x500 - 2, 2), "\xff\xd0", 2); /* call *%eax */
		memcpy(syn_code_at(&fx, CODE_BASE + 0x600 - 2, 2), "\xff\xd3", 2); /* call *%ebx */
		put_u32(&fx, esp + 0xbd0, (uint32_t)(CODE_BASE + 0x600)); /* a stale return */
		put_u32(&fx, esp + 0xbe0, (uint32_t)(CODE_BASE + 0x500)); /* the return address */
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86 };
		ck_assert_int_eq(sw_x86_return_slot_ahead(&w, CODE_BASE + 0x200, false, &off), !branches);
		if (!branches)
			ck_assert_uint_eq(off, 0xbe0);
		ck_assert(sw_walk_snapshot(&fx.snap, &sw_arch_x86, NULL, NULL, &fx.arena, &fx.result));
		/* With a branch on the way nothing names the slot: the scan from
		 * sp, which reaches neither word, ends the walk. */
		const struct sw_stack *st = &fx.result.stacks[0];
		ck_assert_uint_eq(st->nframes, branches ? 1 : 2);
		if (!branches)
			ck_assert_uint_eq(st->frames[1].pc, CODE_BASE + 0x500);
		fixture_free(&fx);
	}
}
END_TEST

/* The same for a suspended frame (found by a scan): from its return
 * address its code runs to `ret` without touching ebp, so the function
 * keeps no record and its ebp is an ancestor's (zoo i386 2709 nofp
 * stripped: f4, found by a scan, kept start_thread's ebp, and its record
 * skipped f3, f2 and start_thread); with a `leave` on the way, the code
 * does not say. */
START_TEST(test_i386_suspended_frame_returning_without_touching_ebp_has_no_record)
{
	for (int leave = 0; leave < 2; leave++) {
		struct fixture fx;
		i386_fixture_init(&fx, SW_OS_LINUX);
		static const uint8_t code[] = {
			0xe9, 0x00, 0x01, 0x00, 0x00, /* jmp elsewhere: the function before */
			0x53,                         /* push %ebx: f4 */
			0xff, 0xd0,                   /* call *%eax */
			0x83, 0xc4, 0x10,             /* add $0x10,%esp: the return address */
			0x5b,                         /* pop %ebx */
			0xc3,                         /* ret */
		};
		uint8_t *c = syn_code_at(&fx, CODE_BASE + 0x200, sizeof code);
		memcpy(c, code, sizeof code);
		if (leave)
			c[11] = 0xc9; /* leave */
		fixture_finish(&fx);
		struct sw_walk w = { .snap = &fx.snap, .arch = &sw_arch_x86 };
		struct sw_frame f;
		memset(&f, 0, sizeof f);
		f.pc = CODE_BASE + 0x208;
		f.lookup_pc = f.pc - 1;
		f.trust = SW_TRUST_SCAN;
		f.module = 0;
		f.unloaded_module = -1;
		ck_assert_int_eq(sw_x86_frame_of(&w, &f, false),
		                 leave ? SW_X86_FRAME_UNKNOWN : SW_X86_FRAME_NONE);
		fixture_free(&fx);
	}
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("x86");
	TCase *tc = tcase_create("walk");
	tcase_add_test(tc, test_x86_frame_pointer_then_scan);
	tcase_add_test(tc, test_x86_realigned_main_gives_its_caller_the_saved_cfa);
	tcase_add_test(tc, test_scan_after_broken_chain_needs_code_bytes);
	tcase_add_test(tc, test_i386_scan_starts_above_the_opening);
	tcase_add_test(tc, test_i386_call_target_follows_a_pic_plt_entry_through_the_callers_got);
	tcase_add_test(tc, test_i386_call_through_sysinfo_returns_only_from_the_kernel_entry);
	tcase_add_test(tc, test_i386_record_returning_to_the_restorer_is_no_broken_chain);
	tcase_add_test(tc, test_i386_scan_takes_a_restorer_in_no_sized_function);
	tcase_add_test(tc, test_i386_live_frame_returning_without_touching_ebp_has_no_record);
	tcase_add_test(tc, test_i386_suspended_frame_returning_without_touching_ebp_has_no_record);
	tcase_add_test(tc, test_i386_start_without_symbols_is_an_instruction_boundary);
	tcase_add_test(tc, test_i386_start_without_symbols_stops_at_an_entry_called_through_the_plt);
	tcase_add_test(tc, test_i386_start_without_symbols_after_a_tail_jump);
	tcase_add_test(tc, test_i386_epilogue_names_the_return_slot);
	suite_add_tcase(s, tc);
	return s;
}
