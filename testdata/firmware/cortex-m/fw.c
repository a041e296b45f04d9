/* A Cortex-M firmware that crashes the way firmware crashes: thread code
 * on the process stack (PSP) is interrupted by an exception (PendSV)
 * whose handler, on the main stack (MSP), executes an undefined
 * instruction. The HardFault handler captures a .snap with the shipped
 * writer (formats/snap_writer.c) and sends it to the host by semihosting
 * (crash.snap in qemu's working directory), then ends the emulation.
 *
 * The expected walk, by construction (tests/firmware.py checks it):
 *   HardFault_Handler                  the capture's context
 *   faulty_driver                      the udf, from HardFault's exception frame (MSP)
 *   handle_event
 *   PendSV_Handler
 *   trigger_interrupt                  the interrupted pc, exception frame on PSP
 *   compute  (recursion depth 3: compute, compute, compute)
 *   task_loop
 *   main
 *   Reset_Handler
 *
 * Built with -O1 -g (frames with CFI in .debug_frame); FPU=1 (Cortex-M4F,
 * Cortex-M33) also does floating-point work in the thread, so that PendSV's
 * entry stacks the extended frame (EXC_RETURN bit 4 clear). SECURE=1
 * (mps2-an505's Cortex-M33, ARMv8-M with the Security Extension, which
 * qemu starts in Secure state) runs it all in Secure state on the Secure
 * stacks (EXC_RETURN bit 6 set) with FPCCR.TS set, so that the extended
 * frame also holds s16-s31 (0xa8 bytes), and captures FPCCR and the
 * Non-secure stack pointers and CONTROL with the rest.
 *
 * LEAF_HANDLER=1 (mps2-an385-leaf) makes PendSV_Handler a leaf that
 * executes the udf itself: its frame on MSP is unstacked to the handler
 * with EXC_RETURN still in its lr, the only place that says where its own
 * exception frame is (on PSP). The chain is then HardFault_Handler,
 * PendSV_Handler, trigger_interrupt, compute x3, task_loop, main,
 * Reset_Handler. build.sh also writes a stripped copy of it (no symbols,
 * no .debug_frame): tests/firmware.py walks both.
 *
 * NS_IRQ=1 (mps2-an505 too) makes the interrupt a Non-secure one: the
 * Secure thread code pends an interrupt that targets Non-secure state,
 * whose handler (NonSecure_IRQ_Handler) and the two functions it calls
 * are Non-secure code; the processor stacks the Secure thread's frame
 * with the additional state context (integrity signature, r4-r11; ARMv8-M
 * ARM, "Exception entry, context stacking") on PSP_S, and the handler
 * runs on MSP_NS. Its udf escalates to the Secure HardFault
 * (AIRCR.BFHFNMINS 0), whose frame is on MSP_NS. The chain is then the
 * same with NonSecure_IRQ_Handler for PendSV_Handler. */
#include <stddef.h>
#include <stdint.h>


#define NOINLINE __attribute__((noinline, noipa))

extern uint32_t __msp_top[], __psp_top[], __msp_limit[], __psp_limit[];
extern uint32_t __bss_start[], __bss_end[];
extern const uint8_t __flash_start[], __flash_size[];
#ifdef IMAGE_START
/* netduino2 (memory-stm32.ld): the image starts at its vector table, in
 * a flash sector before FLASH, the code's region. */
extern const uint8_t __image_start[];
#endif
#if NS_IRQ
extern uint32_t __ns_text_start[], __ns_msp_top[], __ns_ssram1_offset[], __ns_ssram2_offset[];
#define NS_IRQ_NUMBER 10
#endif

typedef void (*vector)(void);

/* ---- semihosting (ARM "Semihosting for AArch32 and AArch64", v2) ---- */

static int semihost(int op, const void *arg)
{
	register int r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

#include "firmware.h"

/* ---- the crash ---- */

#if NS_IRQ
/* Non-secure code and data (memory-an505-ns.ld): the Non-secure handler
 * touches no Secure memory. */
#define NS_CODE __attribute__((section(".ns_text")))
#define NS_DATA __attribute__((section(".ns_bss")))
#else
#define NS_CODE
#define NS_DATA
#endif

NS_DATA volatile uint32_t sink;
NS_DATA volatile float fsink;

NS_CODE NOINLINE void faulty_driver(uint32_t v)
{
	sink = v;
	__asm__ volatile("udf #0");
	sink = v + 1;
}

NS_CODE NOINLINE void handle_event(uint32_t v)
{
	faulty_driver(v * 3);
	sink = v;
}

#if NS_IRQ
NS_CODE void NonSecure_IRQ_Handler(void);
NS_CODE void NonSecure_IRQ_Handler(void)
#else
void PendSV_Handler(void)
#endif
{
#if LEAF_HANDLER
	sink += 7;
	__asm__ volatile("udf #1");
#else
	handle_event(sink + 7);
#endif
	sink++;
}

NOINLINE void trigger_interrupt(uint32_t v)
{
	sink = v;
#if NS_IRQ
	/* NVIC_ISPR0: the Non-secure interrupt is taken after the barrier. */
	*(volatile uint32_t *)0xE000E200 = 1u << NS_IRQ_NUMBER;
#else
	/* ICSR.PENDSVSET: PendSV is taken right after the barrier. */
	*(volatile uint32_t *)0xE000ED04 = 1u << 28;
#endif
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	sink = v + 2;
}

NOINLINE uint32_t compute(uint32_t depth)
{
#if FPU
	fsink = fsink * 1.5f + (float)depth;
#endif
	if (depth == 0) {
		trigger_interrupt(sink);
		return 1;
	}
	uint32_t r = compute(depth - 1);
	sink = r;
	return r + depth;
}

NOINLINE void task_loop(void)
{
	for (;;)
		sink += compute(2);
}

int main(void)
{
	task_loop();
	return 0;
}

/* ---- the capture ---- */

void HardFault_Handler(void);

/* Registers as the HardFault handler found them on entry (fault_entry). */
struct entry_regs {
	uint32_t r4_r11[8];
	uint32_t msp, psp, exc_return, control, xpsr;
	uint32_t msp_ns, psp_ns;   /* SECURE: the Non-secure stack pointers */
	uint32_t control_ns;       /* SECURE: the Non-secure CONTROL */
};
struct entry_regs fault_entry;

#if ARCH_MAJOR >= 7
/* The fault status registers (ARMv7-M ARM, B3.2.2: System Control Block);
 * ARMv6-M has none. */
#define SCB_CFSR 0xE000ED28
#define SCB_HFSR 0xE000ED2C
#define SCB_MMFAR 0xE000ED34
#define SCB_BFAR 0xE000ED38
/* ARMv8-M ARM: FPCCR, SFSR, SFAR. */
#define SCB_FPCCR 0xE000EF34
#define SAU_SFSR 0xE000EDE4
#define SAU_SFAR 0xE000EDE8

static uint32_t reg32(uint32_t addr)
{
	return *(volatile uint32_t *)addr;
}
#endif

/* The HardFault handler as it was entered: its own pc, lr = EXC_RETURN and
 * sp = MSP below the exception frame, r4-r11 still the faulting code's;
 * both stacks whole; the firmware image. The walk finds the rest. */
static void capture(struct snap_writer *w)
{
	struct snap_header h = {
		.cpu = SNAP_CPU_ARM, .word_size = 4,
		.cpu_variant = SNAP_ARM_VARIANT('M', ARCH_MAJOR, 0,
		                                (FPU ? SNAP_ARM_FPU : 0) |
		                                (SECURE ? SNAP_ARM_MAINLINE | SNAP_ARM_SECURITY : 0)),
	};
	snap_begin(w, &h);
	struct snap_system sys = { .os = SNAP_OS_NONE, .device = BOARD,
	                           .firmware_version = "fw-test 1" };
	snap_system(w, &sys);

	uint32_t v[SNAP_CM_NREGS] = { 0 };
	uint64_t valid = 0;
#define SET(i, x) (v[(i)] = (x), valid |= (uint64_t)1 << (i))
	for (int i = 0; i < 8; i++)
		SET(4 + i, fault_entry.r4_r11[i]);
	SET(SNAP_CM_SP, fault_entry.msp);
	SET(SNAP_CM_LR, fault_entry.exc_return);
	SET(SNAP_CM_PC, (uint32_t)HardFault_Handler & ~1u);
	SET(SNAP_CM_XPSR, fault_entry.xpsr);
	SET(SNAP_CM_MSP, fault_entry.msp);
	SET(SNAP_CM_PSP, fault_entry.psp);
	SET(SNAP_CM_CONTROL, fault_entry.control);
	SET(SNAP_CM_EXC_RETURN, fault_entry.exc_return);
#if ARCH_MAJOR >= 7
	SET(SNAP_CM_CFSR, reg32(SCB_CFSR));
	SET(SNAP_CM_HFSR, reg32(SCB_HFSR));
	SET(SNAP_CM_MMFAR, reg32(SCB_MMFAR));
	SET(SNAP_CM_BFAR, reg32(SCB_BFAR));
#endif
#if SECURE
	SET(SNAP_CM_SFSR, reg32(SAU_SFSR));
	SET(SNAP_CM_SFAR, reg32(SAU_SFAR));
	SET(SNAP_CM_FPCCR, reg32(SCB_FPCCR));
	SET(SNAP_CM_MSP_NS, fault_entry.msp_ns);
	SET(SNAP_CM_PSP_NS, fault_entry.psp_ns);
	SET(SNAP_CM_CONTROL_NS, fault_entry.control_ns);
#endif
#undef SET
	struct snap_thread t = {
		.id = 1, .regset = SNAP_REGSET_CORTEX_M, .name = "main", .valid = valid,
		.values = v, .stack_lo = (uint32_t)__psp_limit, .stack_hi = (uint32_t)__psp_top,
	};
	snap_thread(w, &t);
	struct snap_crash c = { .thread_id = 1, .kind = SNAP_CRASH_CPU_EXCEPTION,
	                        .code = fault_entry.xpsr & 0x1ff };
	snap_crash(w, &c);

	size_t idlen;
	const uint8_t *id = build_id(&idlen);
#if NS_IRQ
	/* One image from the Non-secure code up to the end of the Secure. */
	uintptr_t image = (uintptr_t)__ns_text_start;
#elif defined(IMAGE_START)
	uintptr_t image = (uintptr_t)__image_start;
#else
	uintptr_t image = (uintptr_t)__flash_start;
#endif
	snap_module(w, "fw.elf", image, (uintptr_t)__flash_start + (uintptr_t)__flash_size - image,
	            0, id, idlen);
	snap_memory(w, fault_entry.msp, (const void *)fault_entry.msp,
	            (uint32_t)__msp_top - fault_entry.msp);
#if NS_IRQ
	snap_memory(w, fault_entry.msp_ns, (const void *)fault_entry.msp_ns,
	            (uint32_t)__ns_msp_top - fault_entry.msp_ns);
#endif
	snap_memory(w, fault_entry.psp, (const void *)fault_entry.psp,
	            (uint32_t)__psp_top - fault_entry.psp);
	snap_end(w);
}

void hardfault_capture(void);
void hardfault_capture(void)
{
	send_capture(capture);
}

/* On entry: lr is EXC_RETURN, r0-r3, r12, lr, pc and xPSR of the faulting
 * code are on the stack EXC_RETURN names; r4-r11 are still the faulting
 * code's. Saved as they are (ARMv6-M Thumb: high registers through r1),
 * then the capture runs on the main stack below the exception frame. */
__attribute__((naked)) void HardFault_Handler(void)
{
	__asm__ volatile(
		".syntax unified\n\t"
		"ldr r0, =fault_entry\n\t"
		"str r4, [r0, #0]\n\t"
		"str r5, [r0, #4]\n\t"
		"str r6, [r0, #8]\n\t"
		"str r7, [r0, #12]\n\t"
		"mov r1, r8\n\t"  "str r1, [r0, #16]\n\t"
		"mov r1, r9\n\t"  "str r1, [r0, #20]\n\t"
		"mov r1, r10\n\t" "str r1, [r0, #24]\n\t"
		"mov r1, r11\n\t" "str r1, [r0, #28]\n\t"
		"mrs r1, msp\n\t" "str r1, [r0, #32]\n\t"
		"mrs r1, psp\n\t" "str r1, [r0, #36]\n\t"
		"mov r1, lr\n\t"  "str r1, [r0, #40]\n\t"
		"mrs r1, control\n\t" "str r1, [r0, #44]\n\t"
		"mrs r1, xpsr\n\t" "str r1, [r0, #48]\n\t"
#if SECURE
		"mrs r1, msp_ns\n\t" "str r1, [r0, #52]\n\t"
		"mrs r1, psp_ns\n\t" "str r1, [r0, #56]\n\t"
		"mrs r1, control_ns\n\t" "str r1, [r0, #60]\n\t"
#endif
		"bl hardfault_capture\n\t"
		"b .\n\t"
		".ltorg\n\t");
}

#if NS_IRQ
/* ---- the Non-secure side (NS_IRQ) ---- */

/* The Non-secure vector table: the interrupt NS_IRQ_NUMBER is the
 * Non-secure handler; nothing else is taken in Non-secure state. */
__attribute__((section(".ns_vectors"), used)) const vector ns_vectors[16 + NS_IRQ_NUMBER + 1] = {
	[0] = (vector)__ns_msp_top,
	[16 + NS_IRQ_NUMBER] = NonSecure_IRQ_Handler,
};

/* Marks the 256 KiB from byte `offset` of an SSRAM Non-secure in the
 * memory protection controller in front of it (Arm CoreLink SIE-200 TZ
 * MPC: BLK_CFG gives the block size as 1 << (BLK_CFG + 5) bytes, BLK_IDX
 * selects a word of BLK_LUT, one bit per block, 1 = Non-secure; CTRL bit 8
 * would step BLK_IDX on every BLK_LUT access). */
static void mpc_make_nonsecure(uint32_t mpc, uint32_t offset)
{
	volatile uint32_t *r = (volatile uint32_t *)mpc;
	r[0] &= ~(1u << 8);
	uint32_t shift = r[0x14 / 4] + 5;
	for (uint32_t b = offset >> shift; b < (offset + 0x40000) >> shift; b++) {
		r[0x18 / 4] = b / 32;
		r[0x1c / 4] |= 1u << (b % 32);
	}
}

/* The Secure side's setup of the Non-secure one: the SAU leaves address
 * attribution to the AN505's IDAU (addresses with bit 28 clear are
 * Non-secure: SAU_CTRL.ALLNS, ARMv8-M ARM), the MPCs open the
 * Non-secure code and stack blocks, VTOR_NS and MSP_NS point at them, and
 * the interrupt targets Non-secure state (NVIC_ITNS) and is enabled. */
void ns_setup(void);
void ns_setup(void)
{
	*(volatile uint32_t *)0xE000EDD0 = 2;                        /* SAU_CTRL */
	mpc_make_nonsecure(0x58007000, (uint32_t)__ns_ssram1_offset);  /* SSRAM1 */
	mpc_make_nonsecure(0x58008000, (uint32_t)__ns_ssram2_offset);  /* SSRAM2 */
	*(volatile uint32_t *)0xE002ED08 = (uint32_t)ns_vectors;      /* VTOR_NS */
	__asm__ volatile("msr msp_ns, %0" : : "r"(__ns_msp_top));
	*(volatile uint32_t *)0xE000E380 = 1u << NS_IRQ_NUMBER;       /* NVIC_ITNS0 */
	*(volatile uint32_t *)0xE000E100 = 1u << NS_IRQ_NUMBER;       /* NVIC_ISER0 */
	__asm__ volatile("dsb\n\tisb" ::: "memory");
}
#endif

/* ---- reset ---- */

/* Starts on the main stack at the top of the process-stack region (the
 * vector table's initial sp); moves thread code to the process stack
 * (CONTROL.SPSEL) and handlers to their own main stack, then runs main. */
__attribute__((naked, noreturn)) void Reset_Handler(void)
{
	__asm__ volatile(
		".syntax unified\n\t"
		"ldr r0, =__bss_start\n\t"
		"ldr r1, =__bss_end\n\t"
		"movs r2, #0\n"
		"1:\n\t"
		"cmp r0, r1\n\t"
		"bhs 2f\n\t"
		"str r2, [r0]\n\t"
		"adds r0, #4\n\t"
		"b 1b\n"
		"2:\n\t"
#if FPU
		/* CPACR: full access to CP10 and CP11 (the FPU). */
		"ldr r0, =0xE000ED88\n\t"
		"ldr r1, [r0]\n\t"
		"ldr r2, =0x00F00000\n\t"
		"orrs r1, r2\n\t"
		"str r1, [r0]\n\t"
		"dsb\n\t"
		"isb\n\t"
#endif
#if SECURE && FPU
		/* FPCCR.TS: Secure FP state is stacked whole, s16-s31 too. */
		"ldr r0, =0xE000EF34\n\t"
		"ldr r1, [r0]\n\t"
		"ldr r2, =0x04000000\n\t"
		"orrs r1, r2\n\t"
		"str r1, [r0]\n\t"
#endif
		"mov r0, sp\n\t"
		"msr psp, r0\n\t"
		"ldr r0, =__msp_top\n\t"
		"msr msp, r0\n\t"
		"movs r0, #2\n\t"
		"msr control, r0\n\t"
		"isb\n\t"
#if NS_IRQ
		"bl ns_setup\n\t"
#endif
		"bl main\n\t"
		"b .\n\t"
		".ltorg\n\t");
}

static void Default_Handler(void)
{
	semihost_exit();
}


__attribute__((section(".vectors"), used)) const vector vectors[16] = {
	(vector)__psp_top,
	Reset_Handler,
	Default_Handler,   /* NMI */
	HardFault_Handler,
	Default_Handler,   /* MemManage */
	Default_Handler,   /* BusFault */
	Default_Handler,   /* UsageFault */
	Default_Handler,   /* SecureFault (ARMv8-M Security Extension) */
	0, 0, 0,
	Default_Handler,   /* SVCall */
	Default_Handler,   /* DebugMonitor */
	0,
#if NS_IRQ
	Default_Handler,   /* PendSV */
#else
	PendSV_Handler,
#endif
	Default_Handler,   /* SysTick */
};
