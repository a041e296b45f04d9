/* A RV32 firmware whose trap entry saves the interrupted context in the
 * frame layout of a real one, so that the walk must cross it: built with
 * -DLAYOUT_FREERTOS (riscv32-freertos.elf), -DLAYOUT_ESPIDF
 * (riscv32-espidf.elf) or -DLAYOUT_CFI (riscv32-cfi.elf). The entry
 * routines are this project's own code, written to the documented
 * layouts and named as the real ones:
 *
 *   FreeRTOS: FreeRTOS-Kernel portable/GCC/RISC-V, portContext.h
 *     (portcontextSAVE_CONTEXT_INTERNAL) and portASM.S
 *     (freertos_risc_v_trap_handler, V10.5.0 and later): the context on
 *     the task's stack, its address in pxCurrentTCB->pxTopOfStack, mepc + 4
 *     for an exception, then the ISR stack (xISRStackTop); the C hook is
 *     freertos_risc_v_application_exception_handler(mcause, mepc).
 *   ESP-IDF: components/riscv/vectors.S (_panic_handler) and
 *     include/riscv/rvruntime-frames.h (RvExcFrame, RV_STK_FRMSZ = 160):
 *     the frame at the handler's sp, then panic_from_exception, which
 *     vectors.S defines as xt_unhandled_exception(frame, mcause).
 *   CFI: no known layout, a name no walker knows (trap_vector), but call
 *     frame information for its frame, as hand-written assembly gives it
 *     (.cfi_signal_frame, .cfi_return_column 64, .cfi_offset): built with
 *     -g -fno-asynchronous-unwind-tables, GNU as puts it in .debug_frame
 *     under a CIE of version 3 with augmentation "S" and return address
 *     column 64 (RISC-V psABI, "DWARF Register Numbers": the Alternate
 *     Frame Return Column), whose rule is the saved mepc; the C hook is
 *     trap_handler(frame).
 *
 * A load from an address no device answers traps in read_sensor; the C
 * hook calls crash_capture, which records its own registers and writes a
 * .snap with the shipped writer (formats/snap_writer.c), sent to the host
 * by semihosting. The expected walk, by construction (tests/firmware.py):
 *   crash_capture                                       context
 *   freertos_risc_v_application_exception_handler | xt_unhandled_exception
 *     | trap_handler
 *   freertos_risc_v_trap_handler | _panic_handler | trap_vector
 *   read_sensor      the restored context: pc = the trapping load
 *   poll_sensors
 *   app_step  (x2)
 *   main
 *   _start
 */
#if !defined(LAYOUT_FREERTOS) && !defined(LAYOUT_ESPIDF) && !defined(LAYOUT_CFI)
#error "build with -DLAYOUT_FREERTOS, -DLAYOUT_ESPIDF or -DLAYOUT_CFI"
#endif

#include "rv32.h"

/* ---- what the capture records ---- */

/* crash_capture's own registers: x[0] its pc, x[1..31] the registers. */
struct regs {
	uint32_t x[32];
};
static struct regs here;
static uint32_t trap_mcause, trap_mepc, trap_mtval, trap_mstatus;
static uint32_t isr_sp_low; /* the lowest sp the capture ran on */

#ifdef LAYOUT_FREERTOS
/* The kernel's variables the port's assembly names (tasks.c, port.c). */
struct tcb {
	volatile uint32_t *pxTopOfStack; /* the first member: portContext.h stores sp here */
	char pcTaskName[8];
};
static struct tcb main_tcb;
struct tcb *volatile pxCurrentTCB;
uint32_t xCriticalNesting;
uint32_t xISRStackTop;
static uint32_t isr_stack[256] __attribute__((aligned(16)));
#endif

static void capture(struct snap_writer *w)
{
	struct snap_header h = {
		.cpu = SNAP_CPU_RISCV32, .word_size = 4,
		.cpu_variant = SNAP_RISCV_EXT('I') | SNAP_RISCV_EXT('M') | SNAP_RISCV_EXT('A') |
		               SNAP_RISCV_EXT('C'),
	};
	snap_begin(w, &h);
#ifdef LAYOUT_FREERTOS
	struct snap_system sys = { .os = SNAP_OS_NONE, .os_name = "FreeRTOS",
	                           .device = "qemu virt", .firmware_version = "fw-trap 1" };
#elif defined(LAYOUT_ESPIDF)
	struct snap_system sys = { .os = SNAP_OS_NONE, .os_name = "ESP-IDF",
	                           .device = "qemu virt", .firmware_version = "fw-trap 1" };
#else
	struct snap_system sys = { .os = SNAP_OS_NONE, .device = "qemu virt",
	                           .firmware_version = "fw-trap 1" };
#endif
	snap_system(w, &sys);
	uint32_t v[SNAP_RV_NREGS] = { 0 };
	for (int i = 1; i < 32; i++)
		v[i] = here.x[i];
	v[SNAP_RV_PC] = here.x[0];
	v[SNAP_RV_MEPC] = trap_mepc;
	v[SNAP_RV_MCAUSE] = trap_mcause;
	v[SNAP_RV_MTVAL] = trap_mtval;
	v[SNAP_RV_MSTATUS] = trap_mstatus;
	struct snap_thread t = {
		.id = 1, .regset = SNAP_REGSET_RISCV, .name = "main",
		.valid = SNAP_MASK(SNAP_RV_MSTATUS + 1) & ~(uint64_t)1, .values = v,
		.stack_lo = (uint32_t)__stack_limit, .stack_hi = (uint32_t)__stack_top,
	};
	snap_thread(w, &t);
	struct snap_crash c = { .thread_id = 1, .kind = SNAP_CRASH_CPU_EXCEPTION,
	                        .code = trap_mcause, .flags = SNAP_CRASH_HAS_ADDRESS,
	                        .address = trap_mtval };
	snap_crash(w, &c);
	size_t idlen;
	const uint8_t *id = build_id(&idlen);
	snap_module(w, "fw.elf", 0x80000000u, 0x10000, 0, id, idlen);
	uint32_t sp = here.x[2];
#ifdef LAYOUT_FREERTOS
	/* The ISR stack the hook ran on, the task's stack from its saved
	 * context up, and the two words that lead to it. */
	uint32_t task_sp = (uint32_t)main_tcb.pxTopOfStack;
	snap_memory(w, isr_sp_low, (const void *)isr_sp_low, xISRStackTop - isr_sp_low);
	snap_memory(w, task_sp, (const void *)task_sp, (uint32_t)__stack_top - task_sp);
	snap_memory(w, (uint32_t)&pxCurrentTCB, (const void *)&pxCurrentTCB, 4);
	snap_memory(w, (uint32_t)&main_tcb, &main_tcb, 4);
#else
	snap_memory(w, sp, (const void *)sp, (uint32_t)__stack_top - sp);
#endif
	(void)sp;
	snap_end(w);
}

/* The writer's state lives in this function's frame, below the captured
 * stack, which the writer streams with a CRC and must not change. */
NOINLINE static void send_crash(void)
{
	send_capture(capture);
}

/* Records this function's registers at the auipc (its pc), then sends
 * the capture. x0 is not stored: its slot takes the pc. */
NOINLINE void crash_capture(void)
{
	__asm__ volatile(
		"sw x1, 4(%0)\n\t"   "sw x2, 8(%0)\n\t"   "sw x3, 12(%0)\n\t"  "sw x4, 16(%0)\n\t"
		"sw x5, 20(%0)\n\t"  "sw x6, 24(%0)\n\t"  "sw x7, 28(%0)\n\t"  "sw x8, 32(%0)\n\t"
		"sw x9, 36(%0)\n\t"  "sw x10, 40(%0)\n\t" "sw x11, 44(%0)\n\t" "sw x12, 48(%0)\n\t"
		"sw x13, 52(%0)\n\t" "sw x14, 56(%0)\n\t" "sw x15, 60(%0)\n\t" "sw x16, 64(%0)\n\t"
		"sw x17, 68(%0)\n\t" "sw x18, 72(%0)\n\t" "sw x19, 76(%0)\n\t" "sw x20, 80(%0)\n\t"
		"sw x21, 84(%0)\n\t" "sw x22, 88(%0)\n\t" "sw x23, 92(%0)\n\t" "sw x24, 96(%0)\n\t"
		"sw x25, 100(%0)\n\t" "sw x26, 104(%0)\n\t" "sw x27, 108(%0)\n\t"
		"sw x28, 112(%0)\n\t" "sw x29, 116(%0)\n\t" "sw x30, 120(%0)\n\t"
		"sw x31, 124(%0)\n\t"
		"auipc t0, 0\n\t"
		"sw t0, 0(%0)\n\t"
		: : "r"(&here) : "t0", "memory");
	isr_sp_low = here.x[2];
	send_crash();
	/* No tail call: send_crash's frame must stay below the captured stack. */
	__asm__ volatile("" ::: "memory");
}

static void note_trap(void)
{
	__asm__ volatile("csrr %0, mcause\n\t"
	                 "csrr %1, mepc\n\t"
	                 "csrr %2, mtval\n\t"
	                 "csrr %3, mstatus"
	                 : "=r"(trap_mcause), "=r"(trap_mepc), "=r"(trap_mtval),
	                   "=r"(trap_mstatus));
}

#ifdef LAYOUT_FREERTOS

/* The application's exception hook the port calls (portASM.S: a weak
 * symbol the application overrides), on the ISR stack. */
NOINLINE void freertos_risc_v_application_exception_handler(uint32_t mcause, uint32_t mepc)
{
	(void)mcause;
	(void)mepc;
	note_trap();
	crash_capture();
}

NOINLINE void freertos_risc_v_application_interrupt_handler(uint32_t mcause, uint32_t mepc)
{
	(void)mcause;
	(void)mepc;
	for (;;)
		;
}

/* portcontextSAVE_CONTEXT_INTERNAL for RV32I without FPU or vector
 * registers (portCONTEXT_SIZE = 31 words: [0] mepc, [1] mstatus, [2] x1,
 * [3..29] x5-x31, [30] the critical nesting), then the trap handler's
 * dispatch. Restoring is left out: the capture ends the emulation. */
__attribute__((naked, aligned(8))) void freertos_risc_v_trap_handler(void)
{
	__asm__ volatile(
		"addi sp, sp, -124\n\t"
		"sw x1, 8(sp)\n\t"    "sw x5, 12(sp)\n\t"   "sw x6, 16(sp)\n\t"   "sw x7, 20(sp)\n\t"
		"sw x8, 24(sp)\n\t"   "sw x9, 28(sp)\n\t"   "sw x10, 32(sp)\n\t"  "sw x11, 36(sp)\n\t"
		"sw x12, 40(sp)\n\t"  "sw x13, 44(sp)\n\t"  "sw x14, 48(sp)\n\t"  "sw x15, 52(sp)\n\t"
		"sw x16, 56(sp)\n\t"  "sw x17, 60(sp)\n\t"  "sw x18, 64(sp)\n\t"  "sw x19, 68(sp)\n\t"
		"sw x20, 72(sp)\n\t"  "sw x21, 76(sp)\n\t"  "sw x22, 80(sp)\n\t"  "sw x23, 84(sp)\n\t"
		"sw x24, 88(sp)\n\t"  "sw x25, 92(sp)\n\t"  "sw x26, 96(sp)\n\t"  "sw x27, 100(sp)\n\t"
		"sw x28, 104(sp)\n\t" "sw x29, 108(sp)\n\t" "sw x30, 112(sp)\n\t" "sw x31, 116(sp)\n\t"
		"lw t0, xCriticalNesting\n\t"
		"sw t0, 120(sp)\n\t"
		"csrr t0, mstatus\n\t"
		"sw t0, 4(sp)\n\t"
		"lw t0, pxCurrentTCB\n\t"
		"sw sp, 0(t0)\n\t"
		"csrr a0, mcause\n\t"
		"csrr a1, mepc\n\t"
		"bge a0, x0, 1f\n\t"
		"sw a1, 0(sp)\n\t"            /* an interrupt: mepc as it is */
		"lw sp, xISRStackTop\n\t"
		"call freertos_risc_v_application_interrupt_handler\n\t"
		"j 2f\n"
		"1:\n\t"
		"addi a1, a1, 4\n\t"          /* an exception: resume after it */
		"sw a1, 0(sp)\n\t"
		"lw sp, xISRStackTop\n\t"
		"call freertos_risc_v_application_exception_handler\n"
		"2:\n\t"
		"j 2b\n\t");
}
#define TRAP_ENTRY "freertos_risc_v_trap_handler"

#elif defined(LAYOUT_ESPIDF)

/* panic_from_exception (vectors.S: .equ panic_from_exception,
 * xt_unhandled_exception), called with the RvExcFrame and mcause. */
NOINLINE void xt_unhandled_exception(void *frame, uint32_t mcause)
{
	(void)frame;
	(void)mcause;
	note_trap();
	crash_capture();
}

NOINLINE void panicHandler(void *frame, uint32_t mcause)
{
	(void)frame;
	(void)mcause;
	for (;;)
		;
}

/* RvExcFrame (x_i at 4 * i, mepc at 0, then mstatus 128, mtvec 132,
 * mcause 136, mtval 140, mhartid 144) in RV_STK_FRMSZ = 160 bytes, as
 * vectors.S's save_general_regs, save_xepc and save_xcsr fill it. */
__attribute__((naked, aligned(8))) void _panic_handler(void)
{
	__asm__ volatile(
		"addi sp, sp, -160\n\t"
		"sw ra, 4(sp)\n\t"    "sw tp, 16(sp)\n\t"   "sw t0, 20(sp)\n\t"   "sw t1, 24(sp)\n\t"
		"sw t2, 28(sp)\n\t"   "sw s0, 32(sp)\n\t"   "sw s1, 36(sp)\n\t"   "sw a0, 40(sp)\n\t"
		"sw a1, 44(sp)\n\t"   "sw a2, 48(sp)\n\t"   "sw a3, 52(sp)\n\t"   "sw a4, 56(sp)\n\t"
		"sw a5, 60(sp)\n\t"   "sw a6, 64(sp)\n\t"   "sw a7, 68(sp)\n\t"   "sw s2, 72(sp)\n\t"
		"sw s3, 76(sp)\n\t"   "sw s4, 80(sp)\n\t"   "sw s5, 84(sp)\n\t"   "sw s6, 88(sp)\n\t"
		"sw s7, 92(sp)\n\t"   "sw s8, 96(sp)\n\t"   "sw s9, 100(sp)\n\t"  "sw s10, 104(sp)\n\t"
		"sw s11, 108(sp)\n\t" "sw t3, 112(sp)\n\t"  "sw t4, 116(sp)\n\t"  "sw t5, 120(sp)\n\t"
		"sw t6, 124(sp)\n\t"
		"sw gp, 12(sp)\n\t"
		"addi t0, sp, 160\n\t"
		"sw t0, 8(sp)\n\t"
		"csrr t0, mepc\n\t"    "sw t0, 0(sp)\n\t"
		"csrr t0, mstatus\n\t" "sw t0, 128(sp)\n\t"
		"csrr t0, mtvec\n\t"   "sw t0, 132(sp)\n\t"
		"csrr t0, mhartid\n\t" "sw t0, 144(sp)\n\t"
		"csrr t0, mtval\n\t"   "sw t0, 140(sp)\n\t"
		"csrr s0, mcause\n\t"
		"li t1, 0x8000001f\n\t"
		"and s0, s0, t1\n\t"
		"mv a0, sp\n\t"
		"mv a1, s0\n\t"
		"li t0, 0x80000000\n\t"
		"bgeu a1, t0, 1f\n\t"
		"sw a1, 136(sp)\n\t"
		"call xt_unhandled_exception\n\t"
		"j 2f\n"
		"1:\n\t"
		"sw a1, 136(sp)\n\t"
		"call panicHandler\n"
		"2:\n\t"
		"j 2b\n\t");
}
#define TRAP_ENTRY "_panic_handler"

#else /* LAYOUT_CFI */

/* The trap entry's C hook, called with the frame. */
NOINLINE void trap_handler(uint32_t *frame)
{
	(void)frame;
	note_trap();
	crash_capture();
}

/* Saves x_i at 4 * i(sp) and says so in the CFI. */
#define SAVE(i, at, cfa_off) "sw x" #i ", " #at "(sp)\n\t.cfi_offset x" #i ", " #cfa_off "\n\t"

/* The frame, 32 words: [0] mepc, [i] x_i (x2 not stored: the interrupted
 * sp is the CFA, the frame's end), described by CFI at every instruction:
 * the CFA is sp + 128 once the frame is allocated, x_i at CFA - 128 + 4i,
 * and the return address column is 64 (the psABI's alternate frame return
 * column), saved at CFA - 128 once mepc is stored; `.cfi_signal_frame`
 * makes the caller an interrupted context whose pc is exact. */
__attribute__((naked, aligned(8))) void trap_vector(void)
{
	__asm__ volatile(
		".cfi_signal_frame\n\t"
		".cfi_return_column 64\n\t"
		"addi sp, sp, -128\n\t"
		".cfi_def_cfa_offset 128\n\t"
		SAVE(1, 4, -124) SAVE(3, 12, -116) SAVE(4, 16, -112) SAVE(5, 20, -108)
		SAVE(6, 24, -104) SAVE(7, 28, -100) SAVE(8, 32, -96) SAVE(9, 36, -92)
		SAVE(10, 40, -88) SAVE(11, 44, -84) SAVE(12, 48, -80) SAVE(13, 52, -76)
		SAVE(14, 56, -72) SAVE(15, 60, -68) SAVE(16, 64, -64) SAVE(17, 68, -60)
		SAVE(18, 72, -56) SAVE(19, 76, -52) SAVE(20, 80, -48) SAVE(21, 84, -44)
		SAVE(22, 88, -40) SAVE(23, 92, -36) SAVE(24, 96, -32) SAVE(25, 100, -28)
		SAVE(26, 104, -24) SAVE(27, 108, -20) SAVE(28, 112, -16) SAVE(29, 116, -12)
		SAVE(30, 120, -8) SAVE(31, 124, -4)
		"csrr t0, mepc\n\t"
		"sw t0, 0(sp)\n\t"
		".cfi_offset 64, -128\n\t"
		"mv a0, sp\n\t"
		"call trap_handler\n"
		"1:\n\t"
		"j 1b\n\t");
}
#define TRAP_ENTRY "trap_vector"

#endif

int main(void)
{
#ifdef LAYOUT_FREERTOS
	main_tcb.pcTaskName[0] = 'm';
	pxCurrentTCB = &main_tcb;
	xISRStackTop = (uint32_t)&isr_stack[sizeof isr_stack / sizeof isr_stack[0]];
#endif
	for (;;)
		sink += app_step(1);
}

RV32_START(TRAP_ENTRY)
