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

#include <string.h>

#include "lib/walker.h"
#include "prologue.h"

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

/* ---- a handler that still holds EXC_RETURN in lr ----
 *
 * Exception entry puts EXC_RETURN in lr and leaves the frame at the stack
 * pointer the handler starts with (ARMv7-M ARM B1.5.6, "Exception entry
 * behavior"; ARMv8-M ARM, "Exception entry, context stacking"). A handler
 * is an AAPCS function: it saves lr before it makes a call, so a live
 * frame (the capture's context, or a context unstacked from a frame) whose
 * lr still holds EXC_RETURN is a handler's own code (or code it branched
 * to without linking, after undoing its frame) that has called nothing
 * yet: a leaf handler, or one stopped at its first instructions. Its
 * caller is the exception's: pc = EXC_RETURN, the rest from the frame
 * (sw_cortex_m_caller_of_exception), which lies at the handler's entry sp.
 *
 * CFI gives that sp as the CFA. Without CFI (a stripped firmware) the code
 * says it, read from the handler's entry to pc: the entry is the start of
 * the function holding pc when symbols say, else the nearest entry at or
 * below pc of the vector table (ARMv7-M ARM B1.5.3, "The vector table":
 * word 0 the reset value of SP_main, then one handler address per
 * exception, bit 0 set, the Thumb state; at VTOR, which resets to the
 * table at the image's start, where linkers put it). The code from there
 * to pc must run straight (no branch, no call, nothing that writes lr or
 * pc), and change sp only by pushing (PUSH, STMDB sp!, STR Rt, [sp,
 * #-4]!, VPUSH) and allocating (SUB sp, sp, #imm): then the entry sp is
 * sp plus what they took, and r4-r11 pushed on the way are read back from
 * their slots (AAPCS §5.1.1: a function saves a callee-saved register
 * before it changes it; those it did not save are still the caller's).
 * Code that does anything else to sp, or cannot be read, proves nothing:
 * the caller then has no sp and no r4-r11, a frame on the process stack
 * (at the captured psp) is still unstacked, and one on the handler's own
 * main stack ends the walk (no scan takes its stacked lr for a caller). */

enum {
	MAX_VECTORS = 512,        /* 16 system exceptions, up to 496 interrupts */
	MAX_HANDLER_CODE = 1024,  /* how far from its entry a handler is decoded */
	MAX_HANDLER_FRAME = 1 << 16, /* no handler pushes and allocates more */
};

/* Reads go through the walk's code window (arch/prologue.h), which counts
 * them against the walk's budget of code reads. */

/* A data word of the image (the vector table), in the snapshot's byte
 * order, from captured memory or the module's file. */
static bool read_image_u32(struct sw_code *c, uint64_t addr, uint32_t *v)
{
	uint8_t b[4];
	if (!sw_code_read(c, addr, b, 4))
		return false;
	*v = c->w->snap->sys.big_endian
	     ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
	     : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return true;
}

/* A Thumb halfword: instructions are little-endian on every M profile
 * (ARMv7-M ARM A3.3.1). */
static bool read_code16(struct sw_code *c, uint64_t addr, uint32_t *hw)
{
	uint8_t b[2];
	if (!sw_code_read(c, addr, b, 2))
		return false;
	*hw = (uint32_t)b[1] << 8 | b[0];
	return true;
}

/* The nearest handler address at or below pc in the vector table at the
 * start of pc's module. The table ends at the first word that is neither
 * 0 (a reserved vector) nor an odd address inside the module. */
static bool vector_below(struct sw_code *c, uint64_t pc, uint64_t *entry)
{
	const struct sw_walk *w = c->w;
	int32_t m = sw_module_at(w->snap, pc);
	if (m < 0)
		return false;
	const struct sw_module *mod = &w->snap->modules[m];
	uint32_t v;
	if (mod->size < 8 || !read_image_u32(c, mod->base, &v) || v == 0 || (v & 3) != 0)
		return false;
	bool found = false;
	for (uint64_t i = 1; i < MAX_VECTORS && 4 * i + 4 <= mod->size; i++) {
		if (!read_image_u32(c, mod->base + 4 * i, &v))
			break;
		if (v == 0)
			continue;
		uint64_t at = v & ~1u;
		if (!(v & 1) || at < mod->base || at - mod->base >= mod->size) {
			if (i == 1)
				return false; /* no reset vector: no table */
			break;
		}
		if (at <= pc && (!found || at > *entry)) {
			*entry = at;
			found = true;
		}
	}
	return found;
}

/* What the handler's code from its entry to pc did to the stack. */
struct handler_frame {
	uint64_t taken;            /* bytes pushed and allocated */
	uint32_t saved;            /* r4-r11 pushed, bit per register */
	uint64_t below[12];        /* each at entry sp - below[r] */
	unsigned it_left;          /* instructions left in an IT block */
};

/* Pushes the registers of list (a bit each; ascending registers at
 * ascending addresses), `bytes` in all, or allocates bytes (list 0). */
static bool take(struct handler_frame *hf, uint32_t list, uint64_t bytes)
{
	/* A conditional push or allocation: the straight line forks. */
	if (hf->it_left)
		return false;
	hf->taken += bytes;
	uint64_t at = hf->taken;
	for (unsigned r = 0; r < 16; r++) {
		if (!(list >> r & 1))
			continue;
		if (r >= 4 && r <= 11 && !(hf->saved >> r & 1)) {
			hf->saved |= 1u << r;
			hf->below[r] = at;
		}
		at -= 4;
	}
	return hf->taken <= MAX_HANDLER_FRAME;
}

static unsigned bit_count(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static uint32_t thumb_expand_imm(uint32_t imm12)
{
	uint32_t b = imm12 & 0xff;
	if ((imm12 >> 10) == 0) {
		switch (imm12 >> 8 & 3) {
		case 0: return b;
		case 1: return b << 16 | b;
		case 2: return b << 24 | b << 8;
		default: return b << 24 | b << 16 | b << 8 | b;
		}
	}
	uint32_t v = 0x80 | (imm12 & 0x7f), rot = imm12 >> 7 & 0x1f; /* rot >= 8 */
	return v >> rot | v << (32 - rot);
}

/* One 16-bit instruction (ARMv7-M ARM A5.2): false when it branches,
 * writes lr or pc, or changes sp otherwise than by PUSH and SUB sp. */
static bool thumb16_step(uint32_t hw, struct handler_frame *hf)
{
	unsigned r;
	switch (hw >> 12) {
	case 0x4:
		if ((hw & 0xfc00) == 0x4000 || (hw & 0xff00) == 0x4500 || (hw & 0xf800) == 0x4800)
			return true; /* data processing, CMP (high), LDR (literal) */
		r = (hw >> 4 & 8) | (hw & 7);
		/* ADD (register), MOV (register) to a high register; BX, BLX */
		return ((hw & 0xff00) == 0x4400 || (hw & 0xff00) == 0x4600) && r < 13;
	case 0xb:
		if ((hw & 0xff80) == 0xb080)
			return take(hf, 0, (hw & 0x7f) * 4);                   /* SUB sp, sp, #imm */
		if ((hw & 0xfe00) == 0xb400)
			return take(hf, (hw & 0xff) | (hw & 0x100) << 6, 4 * bit_count(hw & 0x1ff)); /* PUSH */
		if ((hw & 0xff00) == 0xbf00) {                              /* IT, hints */
			/* IT's mask: the block's length is 4 less its trailing zeros */
			for (unsigned n = 4, m = hw & 0xf; m; n--, m >>= 1)
				if (m & 1) {
					hf->it_left = n;
					break;
				}
			return true;
		}
		/* extend, CPS, REV; not ADD sp (a release), CBZ/CBNZ, POP, BKPT */
		return (hw & 0xff00) == 0xb200 || (hw & 0xffe8) == 0xb660 || (hw & 0xff00) == 0xba00;
	case 0xd: /* B<c>, UDF, SVC */
	case 0xe: /* B */
		return false;
	default: /* shifts, immediates, loads and stores of low registers */
		return true;
	}
}

/* One 32-bit instruction (ARMv7-M ARM A5.3), the same rules. */
static bool thumb32_step(uint32_t hw1, uint32_t hw2, struct handler_frame *hf)
{
	unsigned rn = hw1 & 0xf, rd = hw2 >> 8 & 0xf, rt = hw2 >> 12;
	bool w = hw1 >> 5 & 1, load = hw1 >> 4 & 1;
	if ((hw1 & 0xfe40) == 0xe800) {             /* load/store multiple */
		if (hw1 == 0xe92d && !(hw2 & 0xa000))
			return take(hf, hw2, 4 * bit_count(hw2)); /* PUSH.W */
		if ((hw1 & 0xff80) == 0xe800 || (hw1 & 0xff80) == 0xe980)
			return false;                       /* SRS, RFE */
		return !(w && rn == 13) && !(load && (hw2 & 0xe000));
	}
	if ((hw1 & 0xfe40) == 0xe840) {             /* dual, exclusive, TBB/TBH */
		if ((hw1 & 0xfff0) == 0xe8d0)
			return false;
		if ((hw1 & 0xfff0) == 0xe840)
			return rd < 13;                     /* STREX: its status register */
		return !(w && rn == 13) && !(load && (rt >= 13 || rd >= 13));
	}
	if ((hw1 & 0xfe00) == 0xea00)               /* data processing, shifted register */
		return rd < 13 || (rd == 15 && (hw1 & 0x10)); /* Rd 15 with S: TST, CMP, ... */
	if ((hw1 & 0xec00) == 0xec00) {             /* coprocessor, floating point */
		if ((hw1 & 0xffbf) == 0xed2d && (hw2 & 0x0e00) == 0x0a00)
			return take(hf, 0, (hw2 & 0xff) * 4); /* VPUSH */
		if ((hw1 & 0xffe0) == 0xec40)           /* MCRR, MRRC, VMOV (two registers) */
			return !load || (rt < 13 && rn < 13);
		if ((hw1 & 0xee00) == 0xec00)           /* extension register loads and stores */
			return !(w && rn == 13);
		/* MRC, VMOV to a core register, VMRS (Rt 15: the flags) */
		return !((hw1 & 0xef10) == 0xee10 && (hw2 & 0x10)) || (rt != 13 && rt != 14);
	}
	if ((hw1 & 0xf800) == 0xf000) {
		if (hw2 & 0x8000) {                     /* branches, miscellaneous control */
			if ((hw2 & 0x5000) != 0 || (hw1 & 0x0380) != 0x0380)
				return false;               /* B, BL, BLX, B<c> */
			if (hw1 == 0xf3af || hw1 == 0xf3bf)
				return true;                /* hints, barriers */
			return (hw1 & 0xffe0) == 0xf3e0 && rd < 13; /* MRS; not MSR */
		}
		/* data processing, (modified or plain) immediate */
		if (rd == 13 && ((hw1 & 0xfbef) == 0xf1ad || (hw1 & 0xfbff) == 0xf2ad)) {
			uint32_t imm12 = (hw1 >> 10 & 1) << 11 | (hw2 >> 12 & 7) << 8 | (hw2 & 0xff);
			return take(hf, 0, hw1 & 0x200 ? imm12 : thumb_expand_imm(imm12)); /* SUB sp */
		}
		return rd < 13 || (rd == 15 && !(hw1 & 0x200) && (hw1 & 0x10));
	}
	if ((hw1 & 0xfe10) == 0xf800) {             /* stores */
		if (hw1 == 0xf84d && (hw2 & 0x0fff) == 0x0d04 && rt != 13 && rt != 15)
			return take(hf, 1u << rt, 4);   /* STR Rt, [sp, #-4]! */
		return !(rn == 13 && !(hw1 & 0x80) && (hw2 & 0x0900) == 0x0900);
	}
	if ((hw1 & 0xfe10) == 0xf810) {             /* loads (Rt 15 of a byte or halfword: PLD) */
		if (rt == 13 || rt == 14 || (rt == 15 && (hw1 & 0x60) == 0x40))
			return false;
		return !(rn == 13 && !(hw1 & 0x80) && (hw2 & 0x0900) == 0x0900);
	}
	if ((hw1 & 0xfe00) == 0xfa00) {             /* register data processing, multiplies */
		bool long_mul = (hw1 & 0xff80) == 0xfb80 && (hw1 & 0xffd0) != 0xfb90;
		return rd < 13 && !(long_mul && rt >= 13);
	}
	return false;
}

/* Decodes [entry, pc) into hf; false when it does not prove the frame. */
static bool handler_code(struct sw_code *c, uint64_t entry, uint64_t pc,
                         struct handler_frame *hf)
{
	memset(hf, 0, sizeof *hf);
	if (pc < entry || pc - entry > MAX_HANDLER_CODE)
		return false;
	for (uint64_t a = entry; a < pc;) {
		uint32_t hw1, hw2;
		if (!read_code16(c, a, &hw1))
			return false;
		unsigned it = hf->it_left;
		bool ok;
		if ((hw1 >> 11) >= 0x1d) {
			if (a + 2 >= pc || !read_code16(c, a + 2, &hw2))
				return false;
			ok = thumb32_step(hw1, hw2, hf);
			a += 4;
		} else {
			ok = thumb16_step(hw1, hf);
			a += 2;
		}
		if (!ok)
			return false;
		if (it && hf->it_left == it)
			hf->it_left--;
	}
	return true;
}

/* An EXC_RETURN value an exception entry can write: bits 31:7 ones (the
 * prefix, then RES1), bit 1 zero (reserved; ARMv7-M's values 0xffffffe1
 * to 0xfffffffd have it clear too). Reset leaves lr 0xffffffff in the
 * thread code it starts (ARMv7-M ARM B1.5.5, TakeReset(): "Preset to an
 * illegal exception return value"), which is none. */
static bool exc_return_from_entry(uint64_t v)
{
	return v <= 0xffffffffu && (v & 0xffffff80u) == 0xffffff80u && !(v & 2);
}

enum sw_unwind_status sw_cortex_m_caller_of_handler(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const struct sw_regs *r = &callee->regs;
	if (w->snap->sys.arm_profile != 'M' || !sw_frame_has_live_context(callee) ||
	    !sw_reg_valid(r, CM_LR) || !exc_return_from_entry(r->v[CM_LR]) ||
	    !sw_reg_valid(r, CM_SP))
		return SW_UNWIND_NO_RULE;
	uint64_t pc = callee->pc & ~(uint64_t)1, entry;
	struct handler_frame hf;
	struct sw_code c;
	sw_code_init(&c, w);
	bool proven = (sw_walk_function_start(w, pc, &entry) || vector_below(&c, pc, &entry)) &&
	              handler_code(&c, entry, pc, &hf);
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, CM_PC, r->v[CM_LR]);
	if (!proven)
		return SW_UNWIND_OK; /* no sp: only a frame on the process stack is found */
	uint64_t sp = (r->v[CM_SP] + hf.taken) & 0xffffffffu;
	for (unsigned i = CM_R4; i <= 11; i++) {
		uint32_t v;
		if (hf.saved >> i & 1) {
			if (!read_u32(w, sp - hf.below[i], &v))
				return SW_UNWIND_FAILED;
			sw_reg_set(&out->regs, i, v);
		} else if (sw_reg_valid(r, i)) {
			sw_reg_set(&out->regs, i, r->v[i]);
		}
	}
	sw_reg_set(&out->regs, CM_SP, sp);
	return SW_UNWIND_OK;
}
