/* A RV32 firmware that traps the way firmware traps: a load from an
 * address no device answers, in a function called from main. The trap
 * handler saves the interrupted registers, captures a .snap with the
 * shipped writer (formats/snap_writer.c) and sends it to the host by
 * semihosting (crash.snap in qemu's working directory), then ends the
 * emulation.
 *
 * The expected walk, by construction (tests/firmware.py checks it):
 *   read_sensor      mepc: the faulting load
 *   poll_sensors
 *   app_step  (x2: app_step, app_step)
 *   main
 *   _start
 */
#include "rv32.h"

int main(void)
{
	for (;;)
		sink += app_step(1);
}

/* ---- the capture ---- */

/* The interrupted registers, as trap_entry saved them: x[0] holds mepc
 * (x0 reads as zero and is not saved), x[1..31] the registers. */
struct trap_frame {
	uint32_t x[32];
	uint32_t mcause, mtval, mstatus;
};
struct trap_frame trap;

/* The interrupted context as trap_entry saved it: x1-x31, pc = mepc and the
 * trap CSRs; the stack from the interrupted sp up; the image. */
static void capture(struct snap_writer *w)
{
	struct snap_header h = {
		.cpu = SNAP_CPU_RISCV32, .word_size = 4,
		.cpu_variant = SNAP_RISCV_EXT('I') | SNAP_RISCV_EXT('M') | SNAP_RISCV_EXT('A') |
		               SNAP_RISCV_EXT('C'),
	};
	snap_begin(w, &h);
	struct snap_system sys = { .os = SNAP_OS_NONE, .device = "qemu virt",
	                           .firmware_version = "fw-test 1" };
	snap_system(w, &sys);
	uint32_t v[SNAP_RV_NREGS] = { 0 };
	for (int i = 1; i < 32; i++)
		v[i] = trap.x[i];
	v[SNAP_RV_PC] = trap.x[0];
	v[SNAP_RV_MEPC] = trap.x[0];
	v[SNAP_RV_MCAUSE] = trap.mcause;
	v[SNAP_RV_MTVAL] = trap.mtval;
	v[SNAP_RV_MSTATUS] = trap.mstatus;
	struct snap_thread t = {
		.id = 1, .regset = SNAP_REGSET_RISCV, .name = "main",
		.valid = SNAP_MASK(SNAP_RV_MSTATUS + 1) & ~(uint64_t)1, .values = v,
		.stack_lo = (uint32_t)__stack_limit, .stack_hi = (uint32_t)__stack_top,
	};
	snap_thread(w, &t);
	struct snap_crash c = { .thread_id = 1, .kind = SNAP_CRASH_CPU_EXCEPTION,
	                        .code = trap.mcause, .flags = SNAP_CRASH_HAS_ADDRESS,
	                        .address = trap.mtval };
	snap_crash(w, &c);
	size_t idlen;
	const uint8_t *id = build_id(&idlen);
	snap_module(w, "fw.elf", 0x80000000u, 0x10000, 0, id, idlen);
	uint32_t sp = trap.x[2];
	snap_memory(w, sp, (const void *)sp, (uint32_t)__stack_top - sp);
	snap_end(w);
}

void trap_capture(void);
void trap_capture(void)
{
	send_capture(capture);
}

/* mtvec: saves every register into `trap` (through mscratch-free code:
 * t0 is saved first through the stack), then runs the capture on the
 * same stack below the interrupted code's frame. */
__attribute__((naked, aligned(4))) void trap_entry(void)
{
	__asm__ volatile(
		"addi sp, sp, -16\n\t"
		"sw t0, 0(sp)\n\t"
		"la t0, trap\n\t"
		"sw x1, 4(t0)\n\t"
		"addi x1, sp, 16\n\t"   /* the interrupted sp */
		"sw x1, 8(t0)\n\t"
		"sw x3, 12(t0)\n\t"
		"sw x4, 16(t0)\n\t"
		"lw x1, 0(sp)\n\t"      /* the interrupted t0 */
		"sw x1, 20(t0)\n\t"
		"sw x6, 24(t0)\n\t"   "sw x7, 28(t0)\n\t"   "sw x8, 32(t0)\n\t"
		"sw x9, 36(t0)\n\t"   "sw x10, 40(t0)\n\t"  "sw x11, 44(t0)\n\t"
		"sw x12, 48(t0)\n\t"  "sw x13, 52(t0)\n\t"  "sw x14, 56(t0)\n\t"
		"sw x15, 60(t0)\n\t"  "sw x16, 64(t0)\n\t"  "sw x17, 68(t0)\n\t"
		"sw x18, 72(t0)\n\t"  "sw x19, 76(t0)\n\t"  "sw x20, 80(t0)\n\t"
		"sw x21, 84(t0)\n\t"  "sw x22, 88(t0)\n\t"  "sw x23, 92(t0)\n\t"
		"sw x24, 96(t0)\n\t"  "sw x25, 100(t0)\n\t" "sw x26, 104(t0)\n\t"
		"sw x27, 108(t0)\n\t" "sw x28, 112(t0)\n\t" "sw x29, 116(t0)\n\t"
		"sw x30, 120(t0)\n\t" "sw x31, 124(t0)\n\t"
		"csrr x1, mepc\n\t"    "sw x1, 0(t0)\n\t"
		"csrr x1, mcause\n\t"  "sw x1, 128(t0)\n\t"
		"csrr x1, mtval\n\t"   "sw x1, 132(t0)\n\t"
		"csrr x1, mstatus\n\t" "sw x1, 136(t0)\n\t"
		"call trap_capture\n\t"
		"j .\n\t");
}

RV32_START("trap_entry")
