/* Cortex-M (ARMv6-M, ARMv7-M, ARMv8-M): the caller of an exception
 * handler is the code the exception interrupted.
 *
 * On exception entry the processor pushes a frame onto the stack the
 * interrupted code was using and puts an EXC_RETURN value in lr (ARMv7-M
 * ARM B1.5.6 "Exception entry behavior", B1.5.8 "Exception return
 * behavior"; ARMv8-M ARM, DDI 0553: "Exception entry, context stacking",
 * "Exception return", the EXC_RETURN payload, pseudocode PushStack(),
 * PushCalleeStack(), ExceptionReturn()):
 *
 *   bits 31:24  0xff: "return from exception", not an address
 *   bit 6       S: the frame is on a Secure stack (1) or a Non-secure one
 *   bit 5       DCRS: 1 the default rules for the callee registers apply
 *               (stacked on an entry from Secure to Non-secure state),
 *               0 they are stacked already (the additional state context)
 *   bit 4       FType: 1 basic frame, 0 extended frame (FP state stacked)
 *   bit 3       Mode: 1 return to Thread mode, 0 to Handler mode
 *   bit 2       SPSEL: CONTROL.SPSEL of the handler's security state at
 *               entry: 1 its thread code used the process stack (PSP)
 *   bit 0       ES: the handler runs in Secure (1) or Non-secure state
 *
 * ARMv6-M and ARMv7-M values have bits 6, 5 and 0 set, and ARMv8-M
 * without the Security Extension clears 6 and 0 and sets 5: read as the
 * Security Extension reads them, both say "the frame is on the handler's
 * own security state's stacks, with no additional state context", so one
 * decoding serves every Cortex-M.
 *
 * Which of the four stack pointers (MSP_S, PSP_S, MSP_NS, PSP_NS) holds
 * the frame: S picks the security state, Mode the stack in Handler mode
 * (the main one), and in Thread mode CONTROL.SPSEL of state S as the
 * return finds it (ExceptionReturn(): the return
 * writes EXC_RETURN.SPSEL to the ES state's CONTROL, then takes the
 * frame from the S state's). For a frame of the handler's own state that
 * is EXC_RETURN.SPSEL. For one of the other state (a Non-secure thread
 * interrupted by a Secure handler, S 0 and ES 1) it is that state's own
 * CONTROL.SPSEL, which no handler of this one changed: the snapshot's
 * control_ns or control_s, or when the capture ran in state S, the
 * capturing handler's EXC_RETURN.SPSEL (its entry saved that state's
 * SPSEL there; a handler of state S nesting between the two would have
 * changed it, and the integrity signature is then what catches a wrong
 * stack).
 *
 * When that is the handler's own main stack (S == ES, not the process
 * stack), the frame is at the handler's unwound sp, where its CFA is.
 * Otherwise it is the stack pointer the snapshot captured for that stack:
 * msp and psp are the capture's own security state's, known from the
 * capturing handler's EXC_RETURN.ES (the thread's exc_return), or, when
 * the snapshot does not say, taken only for a frame that crossed no
 * security state; the banked names (msp_s, psp_s, msp_ns, psp_ns) say
 * which they are. A captured value is right for a stack no frame nearer the
 * capture has pushed to since (a thread's process stack, which no handler
 * moves); a frame on a stack the snapshot holds no pointer for ends the
 * walk there (END, "no caller found": nothing is guessed, and no scan
 * takes the frame's stacked lr for a caller).
 *
 * The frame, from its lowest address:
 *
 *   additional state context (0x28 bytes), when a Secure stack's frame
 *   was entered by an exception to Non-secure state (S = 1 and ES = 0)
 *   or is marked as already holding it (S = 1 and DCRS = 0): the
 *   integrity signature 0xfefa125b (0xfefa125a: bit 0 clear for a frame
 *   with FP state, ARMv8.1-M; ARMv8.0-M writes ...5b always), a reserved
 *   word, r4-r11. The walk restores r4-r11 from it; a wrong signature is
 *   no frame the processor wrote, and the walk ends there.
 *
 *   r0, r1, r2, r3, r12, lr, the interrupted pc (ReturnAddress), xPSR;
 *   an extended frame then has s0-s15, FPSCR and a reserved word (0x68
 *   bytes in all, against 0x20), and on a Secure stack with FPCCR.TS set
 *   (Secure FP state treated as secret) s16-s31 after them (0xa8). TS is
 *   state the frame does not record: it is the snapshot's fpccr when the
 *   capture has it, else 0, its reset value (only Secure software that
 *   hides its FP registers sets it).
 *
 * xPSR bit 9 says the entry aligned the stack to 8 bytes with a pad word
 * above the frame. Without an additional state context r4-r11 are not
 * stacked: the handler preserves them as any AAPCS function does, so the
 * handler's unwound caller has them.
 *
 * So a caller whose return address (found by any rule: CFI's saved lr,
 * the context's live lr) is an EXC_RETURN value is not a frame: it is the
 * context the exception interrupted, read from the frame, and trusted as
 * a restored context, as Breakpad names a signal's interrupted frame. */
#include "cortex_m.h"

#include "lib/walker.h"

enum {
	CM_R0 = 0, CM_R4 = 4, CM_R12 = 12, CM_SP = 13, CM_LR = 14, CM_PC = 15, CM_CPSR = 16,
	EXC_RETURN_PREFIX = 0xff000000u,
	EXC_RETURN_S = 1u << 6,
	EXC_RETURN_DCRS = 1u << 5,
	EXC_RETURN_FTYPE = 1u << 4,
	EXC_RETURN_MODE = 1u << 3,
	EXC_RETURN_SPSEL = 1u << 2,
	EXC_RETURN_ES = 1u << 0,
	ADDITIONAL_STATE = 0x28,
	INTEGRITY_SIGNATURE = 0xfefa125bu,
	INTEGRITY_SIGNATURE_NO_FP = 1u << 0,
	BASIC_FRAME = 0x20,
	EXTENDED_FRAME = 0x68,
	EXTENDED_FRAME_S16_S31 = 0xa8,
	FPCCR_TS = 1u << 26,       /* ARMv8-M ARM, FPCCR: Treat as Secure */
	CONTROL_SPSEL = 1u << 1,
	XPSR_STACK_ALIGN = 1u << 9,
	CPSR_T = 1u << 5,
};

bool sw_cortex_m_is_exc_return(uint64_t v)
{
	return v <= 0xffffffffu && (v & EXC_RETURN_PREFIX) == EXC_RETURN_PREFIX;
}

static bool read_u32(const struct sw_walk *w, uint64_t addr, uint32_t *v)
{
	/* The frame may be on the other stack than the one being walked:
	 * read from the snapshot, not through the thread's stack bounds. */
	return sw_mem_read_u32(w->snap, addr, v);
}

static bool thread_reg(const struct sw_walk *w, const char *name, uint64_t *v)
{
	return w->thread && sw_thread_extra_reg(w->thread, name, v);
}

/* The security state the capture ran in, whose stack pointers MRS MSP and
 * MRS PSP read there: the capturing handler's EXC_RETURN.ES (the thread's
 * exc_return; its lr may be the faulting code's). -1: not said. */
static int capture_security_state(const struct sw_walk *w)
{
	uint64_t v;
	if (!thread_reg(w, "exc_return", &v) || !sw_cortex_m_is_exc_return(v))
		return -1;
	return (v & EXC_RETURN_ES) != 0;
}

/* The captured value of one of the four stack pointers. */
static bool captured_sp(const struct sw_walk *w, uint32_t exc_return, bool secure,
                        bool process, uint64_t *v)
{
	static const char *const banked[2][2] = { { "msp_ns", "psp_ns" }, { "msp_s", "psp_s" } };
	int state = capture_security_state(w);
	bool crossed = !(exc_return & EXC_RETURN_S) != !(exc_return & EXC_RETURN_ES);
	bool own = state < 0 ? !crossed : state == secure;
	if (own && thread_reg(w, process ? "psp" : "msp", v))
		return true;
	return thread_reg(w, banked[secure][process], v);
}

/* Does the frame's thread code of the other security state than the
 * handler's (secure: the frame's) use its process stack? */
static bool other_state_uses_psp(const struct sw_walk *w, bool secure, bool *process)
{
	uint64_t v;
	if (thread_reg(w, secure ? "control_s" : "control_ns", &v)) {
		*process = v & CONTROL_SPSEL;
		return true;
	}
	if (capture_security_state(w) == secure && thread_reg(w, "exc_return", &v)) {
		*process = v & EXC_RETURN_SPSEL;
		return true;
	}
	return false;
}

/* Where the frame is (its lowest address, the additional state context's
 * when there is one). */
static bool frame_address(const struct sw_walk *w, const struct sw_caller *c,
                          uint32_t exc_return, uint64_t *frame)
{
	bool secure = exc_return & EXC_RETURN_S;
	bool handler_secure = exc_return & EXC_RETURN_ES;
	bool process;
	if (!(exc_return & EXC_RETURN_MODE))
		process = false;
	else if (secure == handler_secure)
		process = exc_return & EXC_RETURN_SPSEL;
	else if (!other_state_uses_psp(w, secure, &process))
		return false;
	if (!process && secure == handler_secure) {
		if (!sw_reg_valid(&c->regs, CM_SP))
			return false;
		*frame = c->regs.v[CM_SP];
		return true;
	}
	return captured_sp(w, exc_return, secure, process, frame);
}

static bool has_additional_state(uint32_t exc_return)
{
	return (exc_return & EXC_RETURN_S) &&
	       (!(exc_return & EXC_RETURN_ES) || !(exc_return & EXC_RETURN_DCRS));
}

static bool signature_is_valid(uint32_t sig, uint32_t exc_return)
{
	if (sig == INTEGRITY_SIGNATURE)
		return true;
	/* ARMv8.1-M clears bit 0 for a frame with FP state (FType 0). */
	return !(exc_return & EXC_RETURN_FTYPE) &&
	       sig == (INTEGRITY_SIGNATURE & ~(uint32_t)INTEGRITY_SIGNATURE_NO_FP);
}

/* The additional state context at frame: r4-r11 into r, once its
 * integrity signature shows the processor wrote it. */
static bool read_additional_state(const struct sw_walk *w, uint64_t frame, uint32_t exc_return,
                                  struct sw_regs *r)
{
	uint32_t sig, v;
	if (!read_u32(w, frame, &sig) || !signature_is_valid(sig, exc_return))
		return false;
	for (unsigned i = 0; i < 8; i++) {
		if (!read_u32(w, frame + 8 + 4 * i, &v))
			return false;
		sw_reg_set(r, CM_R4 + i, v);
	}
	return true;
}

static uint64_t frame_size(const struct sw_walk *w, uint32_t exc_return)
{
	if (exc_return & EXC_RETURN_FTYPE)
		return BASIC_FRAME;
	uint64_t fpccr;
	if ((exc_return & EXC_RETURN_S) && thread_reg(w, "fpccr", &fpccr) && (fpccr & FPCCR_TS))
		return EXTENDED_FRAME_S16_S31;
	return EXTENDED_FRAME;
}

enum sw_unwind_status sw_cortex_m_caller_of_exception(const struct sw_step *s,
                                                      struct sw_caller *c)
{
	const struct sw_walk *w = s->walk;
	if (w->snap->sys.arm_profile != 'M' || !sw_reg_valid(&c->regs, CM_PC) ||
	    !sw_cortex_m_is_exc_return(c->regs.v[CM_PC]))
		return SW_UNWIND_NO_RULE;
	uint32_t exc_return = (uint32_t)c->regs.v[CM_PC];
	uint64_t frame;
	if (!frame_address(w, c, exc_return, &frame))
		return SW_UNWIND_END;

	/* r4-r11 as the rule restored them, or from the additional state
	 * context; the rest from the frame. */
	struct sw_regs r = c->regs;
	if (has_additional_state(exc_return)) {
		if (!read_additional_state(w, frame, exc_return, &r))
			return SW_UNWIND_END;
		frame += ADDITIONAL_STATE;
	}
	uint32_t v[8];
	for (unsigned i = 0; i < 8; i++)
		if (!read_u32(w, frame + 4 * i, &v[i]))
			return SW_UNWIND_END;
	uint32_t xpsr = v[7];
	uint64_t size = frame_size(w, exc_return);
	if (xpsr & XPSR_STACK_ALIGN)
		size += 4;

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
