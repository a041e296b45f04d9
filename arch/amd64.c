/* x86-64 (System V AMD64 ABI, and the Windows x64 convention).
 *
 * Register numbers are the DWARF ones (SysV AMD64 ABI §3.6.2, figure 3.36):
 * rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, rip; rflags follows. */
#include "registry.h"

#include <string.h>

#include "lib/walker.h"
#include "signal_frame.h"
#include "x86_call.h"
#include "x86_prologue.h"

enum {
	AMD64_RAX, AMD64_RDX, AMD64_RCX, AMD64_RBX, AMD64_RSI, AMD64_RDI,
	AMD64_RBP, AMD64_RSP, AMD64_R8, AMD64_R9, AMD64_R10, AMD64_R11,
	AMD64_R12, AMD64_R13, AMD64_R14, AMD64_R15, AMD64_RIP, AMD64_RFLAGS,
	AMD64_NREGS
};

static const char *const amd64_reg_names[AMD64_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "rip", "rflags",
};

/* Breakpad prints frame registers in DWARF order, without rflags. */
static const uint8_t amd64_print_order[] = {
	AMD64_RAX, AMD64_RDX, AMD64_RCX, AMD64_RBX, AMD64_RSI, AMD64_RDI,
	AMD64_RBP, AMD64_RSP, AMD64_R8, AMD64_R9, AMD64_R10, AMD64_R11,
	AMD64_R12, AMD64_R13, AMD64_R14, AMD64_R15, AMD64_RIP,
};

/* DWARF numbers (SysV AMD64 ABI figure 3.36): 0-16 are ours; 49 is
 * rflags. */
static const int8_t amd64_dwarf_regs[50] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, AMD64_RFLAGS,
};

static uint64_t amd64_call_site(uint64_t ra)
{
	return ra - 1;
}

static uint64_t amd64_strip(const struct sw_walk *w, uint64_t addr)
{
	(void)w;
	return addr;
}

/* Canonical addresses (AMD64 APM vol. 2 §5.3.1): bits 63..47 all equal. */
static bool amd64_pc_plausible(uint64_t pc)
{
	uint64_t top = pc >> 47;
	return pc >= 0x1000 && (top == 0 || top == 0x1ffff);
}

/* Windows x64 (Breakpad's "simulating a return"): a context frame without
 * unwind data is most likely a leaf function, which leaves the return
 * address at [rsp]; the caller then has every register of the callee but
 * rip and rsp. Only the words at rsp and rsp + 8 are considered. */
static enum sw_unwind_status amd64_caller_of_leaf(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	struct sw_regs *caller = &out->regs;
	if (w->snap->sys.os != SW_OS_WINDOWS || !sw_reg_valid(&callee->regs, AMD64_RSP))
		return SW_UNWIND_NO_RULE;
	uint64_t slot = callee->regs.v[AMD64_RSP], ra;
	if (!sw_walk_scan_for_return_address(w, &slot, &ra, 1))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	*caller = callee->regs;
	sw_reg_set(caller, AMD64_RIP, ra);
	sw_reg_set(caller, AMD64_RSP, slot + 8);
	return SW_UNWIND_OK;
}

/* The rbp chain of code built with frame pointers:
 *   push %rbp; mov %rsp, %rbp
 * leaves the caller's rbp at [rbp] and the return address at [rbp + 8], so
 *   %rip_caller = *(%rbp + 8),  %rbp_caller = *(%rbp),  %rsp_caller = %rbp + 16.
 * Windows x64 code keeps no such chain (MSVC uses rbp freely), so it is not
 * followed there. The caller's rbp must lie above its rsp and point at
 * captured memory, as Breakpad requires, or be 0: _start clears rbp
 * (SysV AMD64 ABI §3.4.1: "the deepest stack frame" has rbp 0), so main's
 * record holds 0 and a real return address, into the C library's start
 * code. A NULL return address ends the chain; any other must pass the
 * scan's return-address checks. A function whose code shows no
 * `push %rbp; mov %rsp,%rbp` before pc has no record of its own: its rbp
 * is a caller's, and following it would skip frames; one whose code shows
 * it has, whatever the record's saved rbp looks like. */
static enum sw_unwind_status amd64_caller_by_frame_pointer(const struct sw_step *s,
                                                      struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	struct sw_regs *caller = &out->regs;
	struct sw_x86_record rec;
	if (w->snap->sys.os == SW_OS_WINDOWS || !sw_x86_record_of(w, callee, true, &rec) ||
	    (rec.own == SW_X86_FRAME_UNKNOWN && sw_x86_live_record_unproven(w, callee, true)) ||
	    rec.fp % 8 != 0)
		return SW_UNWIND_NO_RULE;
	enum sw_x86_frame own = rec.own;
	uint64_t rbp = rec.fp, caller_rip = rec.ra, caller_rbp = rec.saved_fp, unused;
	uint64_t caller_rsp = rbp + 16;
	if (!amd64_pc_plausible(caller_rip) && caller_rip >= 0x1000)
		return SW_UNWIND_NO_RULE; /* non-canonical */
	/* Where the code shows the record is this frame's own, the saved rbp
	 * is just the caller's value (a caller built without frame pointers
	 * uses rbp as it likes); otherwise it must look like a frame pointer
	 * for the record to be believed. */
	if (caller_rsp <= rbp ||
	    (own != SW_X86_FRAME_SET_UP && caller_rbp != 0 &&
	     (caller_rbp < caller_rsp || !sw_walk_read_word(w, caller_rbp, &unused))))
		return SW_UNWIND_NO_RULE;
	/* A record of zeros is the outermost frame's (a thread start, dyld's
	 * start): the end of the chain, when this frame's own record led to it.
	 * The context frame's live rbp may not be its own (a frameless
	 * function): other rules get their turn. */
	if (caller_rip < 0x1000)
		return caller_rbp == 0 && sw_frame_has_live_context(callee) ? SW_UNWIND_NO_RULE
		                                                            : SW_UNWIND_END;
	if (!sw_walk_is_return_address(w, caller_rip))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	sw_reg_set(caller, AMD64_RIP, caller_rip);
	sw_reg_set(caller, AMD64_RSP, caller_rsp);
	sw_reg_set(caller, AMD64_RBP, caller_rbp);
	return SW_UNWIND_OK;
}

static bool amd64_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	return sw_x86_call_precedes(w, ra, known);
}

static bool amd64_call_target(const struct sw_walk *w, uint64_t ra, uint64_t *target)
{
	return sw_x86_call_target(w, ra, true, target);
}

static bool amd64_jumps_into_module(const struct sw_walk *w, uint64_t fn, int32_t to)
{
	return sw_x86_jumps_into_module(w, fn, true, to);
}

/* A scan found the return address in `slot`. Functions usually push the
 * caller's rbp right below the return address and point rbp at it; so when
 * the callee's rbp points at slot - 8, the word there is the caller's rbp.
 * Otherwise a callee rbp above the caller's stack pointer may still be the
 * caller's own (it did not set up a frame), and is passed on. */
static void amd64_after_scan(const struct sw_step *s, uint64_t slot, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	struct sw_regs *caller = &out->regs;
	if (!sw_reg_valid(&callee->regs, AMD64_RBP))
		return;
	uint64_t rbp = callee->regs.v[AMD64_RBP], saved;
	if (rbp == slot - 8) {
		if (sw_walk_read_word(w, rbp, &saved) && saved > slot)
			sw_reg_set(caller, AMD64_RBP, saved);
	} else if (rbp >= slot + 8) {
		sw_reg_set(caller, AMD64_RBP, rbp);
	}
}

/* Linux signal frames. The C library's restorer __restore_rt is
 *   mov $0xf (__NR_rt_sigreturn), %rax; syscall    48 c7 c0 0f 00 00 00 0f 05
 * and the handler's `ret` into it pops rt_sigframe.pretcode, so at its
 * first instruction sp points at the frame's ucontext
 * (arch/x86/include/asm/sigframe.h, struct rt_sigframe { char *pretcode;
 * struct ucontext uc; struct siginfo info; }). Offsets computed from the
 * host's asm/ucontext.h and asm/sigcontext.h (struct sigcontext_64):
 *   ucontext   { uc_flags 8, uc_link 8, uc_stack 24, uc_mcontext at +40 }
 *   sigcontext { r8 +0 .. r15 +56, rdi +64, rsi +72, rbp +80, rbx +88,
 *                rdx +96, rax +104, rcx +112, rsp +120, rip +128,
 *                eflags +136, ... } */
enum { AMD64_UCONTEXT_MCONTEXT = 40 };

static const uint8_t amd64_restore_rt[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

static const struct sw_sigframe_slot amd64_sigcontext_slots[] = {
	{ AMD64_R8, 0 }, { AMD64_R9, 1 }, { AMD64_R10, 2 }, { AMD64_R11, 3 },
	{ AMD64_R12, 4 }, { AMD64_R13, 5 }, { AMD64_R14, 6 }, { AMD64_R15, 7 },
	{ AMD64_RDI, 8 }, { AMD64_RSI, 9 }, { AMD64_RBP, 10 }, { AMD64_RBX, 11 },
	{ AMD64_RDX, 12 }, { AMD64_RAX, 13 }, { AMD64_RCX, 14 }, { AMD64_RSP, 15 },
	{ AMD64_RIP, 16 }, { AMD64_RFLAGS, 17 },
};

static bool amd64_is_signal_trampoline(const struct sw_walk *w, uint64_t addr)
{
	uint8_t code[sizeof amd64_restore_rt];
	return sw_walk_read(w, addr, code, sizeof code) &&
	       memcmp(code, amd64_restore_rt, sizeof code) == 0;
}

/* A signal frame known by what the kernel wrote, for a restorer whose code
 * the snapshot lacks (a Linux core holds no code of the files it mapped):
 * at sp, a ucontext whose flags are the kernel's (UC_FP_XSTATE,
 * UC_SIGCONTEXT_SS, UC_STRICT_RESTORE_SS: at most 7) and whose sigcontext
 * holds the user code segment selector (__USER_CS, 0x33) with the user
 * stack's (__USER_DS, 0x2b; 0 from kernels before 4.8), an fpstate
 * pointer of 0 or into the frame above, an interrupted rsp and a pc that
 * may be code. Stale words do not line up like that by chance. (The
 * siginfo after the ucontext is written only for an SA_SIGINFO handler:
 * arch/x86/kernel/signal_64.c, x64_setup_rt_frame.) */
enum { AMD64_SIGFRAME_WORDS = AMD64_UCONTEXT_MCONTEXT / 8 + 24, AMD64_USER_CS = 0x33,
       AMD64_USER_DS = 0x2b };

bool sw_amd64_sigframe_written_at(const struct sw_walk *w, uint64_t rsp)
{
	uint64_t f[AMD64_SIGFRAME_WORDS];
	if (rsp > UINT64_MAX - sizeof f || !sw_sigframe_read_fields(w, rsp, 8, false,
	                                                           AMD64_SIGFRAME_WORDS, f))
		return false;
	const uint64_t *sc = f + AMD64_UCONTEXT_MCONTEXT / 8;
	uint64_t selectors = sc[18], fpstate = sc[23];
	uint16_t cs = (uint16_t)selectors, ss = (uint16_t)(selectors >> 48);
	return f[0] <= 7 && cs == AMD64_USER_CS && (ss == AMD64_USER_DS || ss == 0) &&
	       (fpstate == 0 || (fpstate > rsp && fpstate - rsp < (1u << 16))) && sc[15] != 0 &&
	       amd64_pc_plausible(sc[16]);
}

static enum sw_unwind_status amd64_caller_of_signal_frame(const struct sw_step *s,
                                                          struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	if (!sw_reg_valid(r, AMD64_RSP))
		return SW_UNWIND_NO_RULE;
	uint64_t rsp = r->v[AMD64_RSP];
	uint8_t code;
	/* The restorer's code, where the snapshot has it, and the frame the
	 * kernel wrote: a scan may come on the restorer's address that
	 * sigaction left on the stack (musl's k_sigaction), with stale words
	 * above it (zoo x86_64 4134 stripped: they gave pc 0x9e83fbf8). */
	bool restorer = (!sw_walk_read(w, s->callee->pc, &code, 1) ||
	                 amd64_is_signal_trampoline(w, s->callee->pc)) &&
	                sw_amd64_sigframe_written_at(w, rsp);
	if (!restorer)
		return SW_UNWIND_NO_RULE;
	if (rsp > UINT64_MAX - AMD64_UCONTEXT_MCONTEXT)
		return SW_UNWIND_FAILED;
	return sw_sigframe_restore(w, rsp + AMD64_UCONTEXT_MCONTEXT, 8, amd64_sigcontext_slots,
	                           sizeof amd64_sigcontext_slots / sizeof amd64_sigcontext_slots[0],
	                           out);
}

const struct sw_arch sw_arch_amd64 = {
	.name = "amd64",
	.cpu = SW_CPU_AMD64,
	.word_size = 8,
	.nregs = AMD64_NREGS,
	.reg_names = amd64_reg_names,
	.pc = AMD64_RIP,
	.sp = AMD64_RSP,
	.fp = AMD64_RBP,
	.ra = -1,
	/* SysV AMD64 ABI §3.2.1: rbx, rbp, rsp, r12-r15 belong to the caller.
	 * (Windows x64 adds rsi and rdi; Breakpad treats both ABIs alike.) */
	.callee_saved = (1ull << AMD64_RBX) | (1ull << AMD64_RBP) | (1ull << AMD64_RSP) |
	                (1ull << AMD64_R12) | (1ull << AMD64_R13) | (1ull << AMD64_R14) |
	                (1ull << AMD64_R15),
	.print_order = amd64_print_order,
	.nprint = sizeof amd64_print_order,
	.dwarf_regs = amd64_dwarf_regs,
	.ndwarf_regs = sizeof amd64_dwarf_regs,
	.call_site = amd64_call_site,
	.strip_code_pointer = amd64_strip,
	.pc_is_plausible = amd64_pc_plausible,
	.caller_of_signal_frame = amd64_caller_of_signal_frame,
	.is_signal_trampoline = amd64_is_signal_trampoline,
	.signal_frame_written_at = sw_amd64_sigframe_written_at,
	.caller_of_leaf = amd64_caller_of_leaf,
	.caller_by_frame_pointer = amd64_caller_by_frame_pointer,
	.caller_by_prologue = sw_amd64_caller_by_prologue,
	.slot_fits_call = sw_amd64_slot_fits_call,
	.call_reaches = sw_amd64_call_reaches,
	.call_precedes = amd64_call_precedes,
	.call_target = amd64_call_target,
	.jumps_into_module = amd64_jumps_into_module,
	.after_scan = amd64_after_scan,
};
