/* Cortex-M (ARMv6-M, ARMv7-M, ARMv8-M): the caller of an exception
 * handler is the code the exception interrupted.
 *
 * On exception entry the processor pushes a frame onto the stack the
 * interrupted code was using and puts an EXC_RETURN value in lr (ARMv7-M
 * ARM B1.5.6 "Exception entry behavior", B1.5.8 "Exception return
 * behavior"; ARMv8-M ARM B3.19-B3.21):
 *
 *   bits 31:24  0xff: "return from exception", not an address
 *   bit 4       FType: 1 basic frame, 0 extended frame (FP state stacked)
 *   bit 3       Mode: 1 return to Thread mode, 0 to Handler mode
 *   bit 2       SPSEL: 1 the frame is on the process stack (PSP), 0 main (MSP)
 *
 * The frame, from its lowest address: r0, r1, r2, r3, r12, lr, the
 * interrupted pc (ReturnAddress), xPSR; an extended frame then has
 * s0-s15, FPSCR and a reserved word (0x68 bytes in all, against 0x20).
 * xPSR bit 9 says the entry aligned the stack to 8 bytes with a pad word
 * above the frame. r4-r11 are not stacked: the handler preserves them as
 * any AAPCS function does, so the handler's unwound caller has them.
 *
 * So a caller whose return address (found by any rule: CFI's saved lr,
 * the context's live lr) is an EXC_RETURN value is not a frame: the frame
 * the exception interrupted is read from MSP (the handler's own stack,
 * where its CFA is) or from PSP (the thread's captured "psp"), and trusted
 * as a restored context, as Breakpad names a signal's interrupted frame.
 * ARMv8-M's Security Extension frames (secure state, bit 6; additional
 * state context, bit 5 clear) are not unstacked: the walk ends there. */
#include "cortex_m.h"

#include "lib/walker.h"

enum {
	CM_R0 = 0, CM_R12 = 12, CM_SP = 13, CM_LR = 14, CM_PC = 15, CM_CPSR = 16,
	EXC_RETURN_PREFIX = 0xff000000u,
	EXC_RETURN_FTYPE = 1u << 4,
	EXC_RETURN_MODE = 1u << 3,
	EXC_RETURN_SPSEL = 1u << 2,
	EXC_RETURN_DCRS = 1u << 5,
	EXC_RETURN_S = 1u << 6,
	BASIC_FRAME = 0x20,
	EXTENDED_FRAME = 0x68,
	XPSR_STACK_ALIGN = 1u << 9,
	CPSR_T = 1u << 5,
};

bool sw_cortex_m_is_exc_return(uint64_t v)
{
	return v <= 0xffffffffu && (v & EXC_RETURN_PREFIX) == EXC_RETURN_PREFIX;
}

/* The ARMv8-M Security Extension's frames hold more than this reads. */
static bool frame_is_readable(uint32_t exc_return)
{
	return !(exc_return & EXC_RETURN_S) || (exc_return & EXC_RETURN_DCRS);
}

static bool read_u32(const struct sw_walk *w, uint64_t addr, uint32_t *v)
{
	/* The frame may be on the other stack than the one being walked:
	 * read from the snapshot, not through the thread's stack bounds. */
	return sw_mem_read_u32(w->snap, addr, v);
}

enum sw_unwind_status sw_cortex_m_caller_of_exception(const struct sw_step *s,
                                                      struct sw_caller *c)
{
	const struct sw_walk *w = s->walk;
	if (w->snap->sys.arm_profile != 'M' || !sw_reg_valid(&c->regs, CM_PC) ||
	    !sw_cortex_m_is_exc_return(c->regs.v[CM_PC]))
		return SW_UNWIND_NO_RULE;
	uint32_t exc_return = (uint32_t)c->regs.v[CM_PC];
	if (!frame_is_readable(exc_return))
		return SW_UNWIND_FAILED;

	/* Where the frame is: the handler's CFA is the main stack at entry;
	 * the process stack is the thread's, which no handler moves. */
	uint64_t frame;
	if ((exc_return & EXC_RETURN_SPSEL) && (exc_return & EXC_RETURN_MODE)) {
		if (!w->thread || !sw_thread_extra_reg(w->thread, "psp", &frame))
			return SW_UNWIND_FAILED;
	} else {
		if (!sw_reg_valid(&c->regs, CM_SP))
			return SW_UNWIND_FAILED;
		frame = c->regs.v[CM_SP];
	}

	uint32_t v[8];
	for (unsigned i = 0; i < 8; i++)
		if (!read_u32(w, frame + 4 * i, &v[i]))
			return SW_UNWIND_FAILED;
	uint32_t xpsr = v[7];
	uint64_t size = (exc_return & EXC_RETURN_FTYPE) ? BASIC_FRAME : EXTENDED_FRAME;
	if (xpsr & XPSR_STACK_ALIGN)
		size += 4;

	/* r4-r11 as the rule restored them; the rest from the frame. */
	struct sw_regs r = c->regs;
	for (unsigned i = 0; i < 4; i++)
		sw_reg_set(&r, CM_R0 + i, v[i]);
	sw_reg_set(&r, CM_R12, v[4]);
	sw_reg_set(&r, CM_LR, v[5]);
	sw_reg_set(&r, CM_PC, v[6] & ~1u);
	sw_reg_set(&r, CM_SP, frame + size);
	/* Cortex-M executes Thumb code only: T is set in every context. */
	sw_reg_set(&r, CM_CPSR, (xpsr & 0xf80f0000u) | CPSR_T);
	c->regs = r;
	c->restored_context = true;
	return SW_UNWIND_OK;
}
