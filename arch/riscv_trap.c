/* RISC-V firmware: the caller of a trap-entry routine is the code the trap
 * interrupted.
 *
 * A RISC-V hart saves nothing on a trap: it puts the interrupted pc in
 * mepc, the cause in mcause, and jumps to mtvec (privileged ISA, "Machine
 * Trap Vector Base-Address Register"). The trap-entry routine, written in
 * assembly by the RTOS or SDK, saves the registers in a frame of its own
 * layout, then calls C. A walk that reaches a frame whose pc is inside
 * such a routine (its return address from that call: the walk's symbols
 * name the routine) has the routine's layout to read the interrupted
 * context from: every register, pc = the saved mepc, trusted as a
 * restored context, as arch/cortex_m.c does for the frames a Cortex-M
 * stacks in hardware.
 *
 * Two layouts are known, each recognised by the routine's symbol:
 *
 * FreeRTOS's RISC-V port, V10.5.0 and later (FreeRTOS-Kernel
 *   portable/GCC/RISC-V/portContext.h, portcontextSAVE_CONTEXT_INTERNAL;
 *   portASM.S's freertos_risc_v_trap_handler and, since V11,
 *   freertos_risc_v_exception_handler, _interrupt_handler and
 *   _mtimer_interrupt_handler, which save the same context). The context
 *   goes on the task's stack, its address into pxCurrentTCB->pxTopOfStack
 *   (the TCB's first member), and sp then moves to the ISR stack
 *   (xISRStackTop), so the frame is not at the handler's sp: it is found
 *   by reading pxCurrentTCB, whose address the routine's own code gives
 *   (`load_x t0, pxCurrentTCB; store_x sp, 0(t0)`: auipc, lui or a
 *   gp-relative load, then the store of sp through it). From the address
 *   stored there, in words:
 *     [0] mepc (+4 for a synchronous exception: the instruction after),
 *     [1] mstatus,
 *     the vector context when the routine saves one (vs8r.v in its code)
 *       and mstatus.VS (bits 10:9) was Dirty: 32 * vlenb + 4 words,
 *     the FPU context when the routine saves one (fsw/fsd) and mstatus.FS
 *       (bits 14:13) was Dirty: 33 registers of FLEN bytes,
 *     then portCONTEXT_SIZE = 31 words: [2] x1, [3..29] x5-x31,
 *     [30] the critical nesting count; the interrupted sp is one past it.
 *   gp and tp are not saved (they do not change in firmware): the
 *   callee's are kept. V10.3.0 to V10.4.x (portASM.S with the context
 *   code inline, the same entry name) saved 30 words: [0] mepc, [1] x1,
 *   [2..28] x5-x31, [29] mstatus. The two are told apart by the
 *   routine's code, where it stores x1 (2 words above sp, or 1); code
 *   that matches neither (older ports, chip-specific additions that move
 *   the context) ends the walk. RV32E's 15-word context is not read.
 *
 * ESP-IDF (components/riscv/vectors.S and
 *   include/riscv/rvruntime-frames.h, RvExcFrame; RV32 only): the frame is
 *   at the routine's sp, 32-bit fields: [0] mepc, [1..31] x1-x31 (x2 the
 *   interrupted sp), then mstatus, mtvec, mcause, mtval and, in releases
 *   since mhartid was added, mhartid. _panic_handler allocates
 *   RV_STK_FRMSZ (the frame rounded up to 16 bytes: 144 or 160),
 *   _interrupt_handler CONTEXT_SIZE (32 words) and then may switch to the
 *   ISR stack in rtos_int_enter; a frame is taken only when its saved sp
 *   is its own address plus one of those sizes, so an ISR stack is
 *   never read as a frame.
 *
 * What is read is checked before it is believed: the frame must be in
 * captured memory, the saved pc plausible, inside a module and (when its
 * symbols say) inside a function. A routine that is known but whose
 * frame fails a check ends the walk: past a trap entry, the stack holds
 * the ISR stack or the task's saved words, where a scan would invent. */
#include "riscv_trap.h"

#include <string.h>

#include "lib/walker.h"
#include "signal_frame.h"

enum { RV_RA = 1, RV_SP = 2, RV_GP = 3, RV_TP = 4, RV_T0 = 5, RV_PC = 32, RV_VLENB = 33 };

/* ---- finding the frame by the routine's code ---- */

/* How far into a routine its code is decoded: the save of a context with
 * FPU and vector registers is under 100 instructions. */
enum { MAX_ROUTINE_BYTES = 1024 };

/* What a FreeRTOS trap entry's code says about its frame. */
struct port_code {
	int64_t ra_slot;     /* where the routine stores x1 (ra) from sp; -1: nowhere */
	bool has_tcb_store;  /* `store_x sp, 0(rX)` through a loaded pointer */
	uint64_t current_tcb; /* the address rX was loaded from: &pxCurrentTCB */
	unsigned flen;       /* 4 or 8: the routine saves FPU registers (fsw, fsd) */
	bool saves_vector;   /* it saves vector registers (vs8r.v) */
};

/* What the decoder knows of each register: a constant address (auipc,
 * lui) or a word loaded from a known address. */
struct reg_track {
	uint32_t is_const, is_loaded;
	uint64_t value[32];
};

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	return (int64_t)((v ^ m) - m);
}

static void forget(struct reg_track *t, unsigned r)
{
	t->is_const &= ~(1u << r);
	t->is_loaded &= ~(1u << r);
}

/* One 32-bit instruction at a (ISA manual, "RV32I Base Integer
 * Instruction Set": U-, I- and S-type encodings). */
static void decode_insn(struct reg_track *t, struct port_code *pc, uint64_t a, uint32_t i,
                        unsigned ws, uint64_t gp, bool has_gp, uint64_t mask)
{
	unsigned opcode = i & 0x7f, rd = i >> 7 & 31, f3 = i >> 12 & 7, rs1 = i >> 15 & 31,
	         rs2 = i >> 20 & 31;
	unsigned word_f3 = ws == 8 ? 3 : 2; /* lw/sw, ld/sd */
	switch (opcode) {
	case 0x17: /* auipc */
	case 0x37: /* lui */
		forget(t, rd);
		t->value[rd] = ((opcode == 0x17 ? a : 0) + (uint64_t)sext(i & 0xfffff000u, 32)) & mask;
		t->is_const |= 1u << rd;
		return;
	case 0x03: { /* load */
		int64_t off = sext(i >> 20, 12);
		bool base_known = (t->is_const >> rs1 & 1) || (rs1 == RV_GP && has_gp);
		uint64_t base = rs1 == RV_GP && has_gp ? gp : t->value[rs1];
		forget(t, rd);
		if (f3 == word_f3 && base_known) {
			t->value[rd] = (base + (uint64_t)off) & mask;
			t->is_loaded |= 1u << rd;
		}
		return;
	}
	case 0x23: /* store: ra into the context; sp through a pointer just loaded */
		if (f3 == word_f3 && rs1 == RV_SP && rs2 == RV_RA && pc->ra_slot < 0)
			pc->ra_slot = sext((i >> 25) << 5 | (i >> 7 & 31), 12);
		if (f3 == word_f3 && rs2 == RV_SP && (i >> 25) == 0 && (i >> 7 & 31) == 0 &&
		    (t->is_loaded >> rs1 & 1) && !pc->has_tcb_store) {
			pc->has_tcb_store = true;
			pc->current_tcb = t->value[rs1];
		}
		return;
	case 0x27: /* STORE-FP: fsw, fsd; the V extension's stores (widths 0, 5-7) */
		if (f3 == 2 && pc->flen < 4)
			pc->flen = 4;
		else if (f3 == 3)
			pc->flen = 8;
		else if (f3 == 0 || f3 >= 5)
			pc->saves_vector = true;
		return;
	case 0x63: /* branch */
		return;
	default:
		forget(t, rd);
		return;
	}
}

/* Decodes the routine from its start to the callee's pc. */
static bool read_port_code(const struct sw_walk *w, uint64_t start, uint64_t end,
                           struct port_code *out)
{
	const unsigned ws = w->arch->word_size;
	uint64_t mask = ws == 4 ? 0xffffffffu : UINT64_MAX;
	uint64_t gp = 0;
	bool has_gp = w->thread && sw_reg_valid(&w->thread->ctx, RV_GP);
	if (has_gp)
		gp = w->thread->ctx.v[RV_GP];
	struct reg_track t;
	memset(&t, 0, sizeof t);
	memset(out, 0, sizeof *out);
	out->ra_slot = -1;
	if (end - start > MAX_ROUTINE_BYTES)
		end = start + MAX_ROUTINE_BYTES;
	for (uint64_t a = start; a < end && !out->has_tcb_store;) {
		uint64_t parcel[2];
		/* Instructions are little-endian parcels whatever the data order. */
		if (!sw_sigframe_read_fields(w, a, 2, false, 1, parcel))
			return false;
		if ((parcel[0] & 3) != 3) {
			/* A compressed instruction: c.swsp / c.sdsp of ra (ISA
			 * manual, "Stack-Pointer-Based Loads and Stores"); else
			 * forget every register it may write (rd/rs1 of the CI and
			 * CR forms, rd' and rs1'). */
			unsigned h = (unsigned)parcel[0];
			if (ws == 4 && (h & 0xe003) == 0xc002 && (h >> 2 & 31) == RV_RA && out->ra_slot < 0)
				out->ra_slot = (h >> 9 & 15) << 2 | (h >> 7 & 3) << 6;
			if (ws == 8 && (h & 0xe003) == 0xe002 && (h >> 2 & 31) == RV_RA && out->ra_slot < 0)
				out->ra_slot = (h >> 10 & 7) << 3 | (h >> 7 & 7) << 6;
			forget(&t, h >> 7 & 31);
			forget(&t, 8 + (h >> 2 & 7));
			forget(&t, 8 + (h >> 7 & 7));
			a += 2;
			continue;
		}
		if ((parcel[0] & 0x1c) == 0x1c || !sw_sigframe_read_fields(w, a, 4, false, 1, parcel))
			return false;
		decode_insn(&t, out, a, (uint32_t)parcel[0], ws, gp, has_gp, mask);
		a += 4;
	}
	return out->has_tcb_store;
}

/* ---- checks ---- */

/* A restored pc: plausible, inside a module, inside a function when the
 * module's symbols can say. */
static bool pc_is_code(const struct sw_walk *w, uint64_t pc)
{
	if (!w->arch->pc_is_plausible(pc))
		return false;
	int32_t m;
	const struct sw_module_symbols *syms = sw_walk_symbols_at(w, pc, &m);
	if (m < 0)
		return false;
	const struct sw_module *mod = &w->snap->modules[m];
	return !syms || !syms->ops->has_function ||
	       syms->ops->has_function(syms->self, pc - mod->base - mod->load_bias);
}

/* The frame [lo, hi) lies in one captured region, aligned to words. */
static bool frame_is_captured(const struct sw_walk *w, uint64_t lo, uint64_t hi)
{
	const struct sw_mem_region *r = sw_mem_find(w->snap, lo);
	return lo % w->arch->word_size == 0 && hi > lo && r && hi - r->base <= r->size;
}

/* ---- FreeRTOS ---- */

enum {
	PORT_CONTEXT_WORDS = 31,    /* portCONTEXT_SIZE, RV32I/RV64I */
	PORT_V10_4_WORDS = 30,      /* portCONTEXT_SIZE before V10.5.0 */
	PORT_FPU_REGS = 33,         /* portFPU_REG_COUNT: f0-f31 and fcsr */
	PORT_VPU_CSR_WORDS = 4,     /* vstart, vcsr, vl, vtype */
	MSTATUS_VS_SHIFT = 9,
	MSTATUS_FS_SHIFT = 13,
	STATUS_DIRTY = 3,
};

/* The synchronous exception's mepc + 4 taken back to the trapping
 * instruction when the thread's CSRs hold this trap's mepc. */
static uint64_t trapping_pc(const struct sw_walk *w, uint64_t saved)
{
	uint64_t live_mepc;
	if (w->thread && sw_thread_extra_reg(w->thread, "mepc", &live_mepc) &&
	    live_mepc + 4 == saved)
		return live_mepc;
	return saved;
}

/* V10.3.0 to V10.4.x (portASM.S, the context code inline): 30 words,
 * [0] mepc, [1] x1, [2..28] x5-x31, [29] mstatus; no FPU state. */
static enum sw_unwind_status freertos_v10_4_caller(const struct sw_step *s, uint64_t top,
                                                   uint64_t saved_pc, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const unsigned ws = w->arch->word_size;
	uint64_t x[PORT_V10_4_WORDS];
	uint64_t sp = top + PORT_V10_4_WORDS * ws, pc = trapping_pc(w, saved_pc);
	if (!frame_is_captured(w, top, sp) ||
	    !sw_sigframe_read_fields(w, top, ws, w->snap->sys.big_endian, PORT_V10_4_WORDS, x) ||
	    !pc_is_code(w, pc))
		return SW_UNWIND_END;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, 0, 0);
	sw_reg_set(&out->regs, RV_RA, x[1]);
	for (unsigned i = RV_T0; i < 32; i++)
		sw_reg_set(&out->regs, i, x[2 + i - RV_T0]);
	sw_reg_set(&out->regs, RV_SP, sp);
	sw_reg_set(&out->regs, RV_PC, pc);
	out->restored_context = true;
	return SW_UNWIND_OK;
}

static const char *const freertos_entries[] = {
	"freertos_risc_v_trap_handler", "freertos_risc_v_exception_handler",
	"freertos_risc_v_interrupt_handler", "freertos_risc_v_mtimer_interrupt_handler",
};

static enum sw_unwind_status freertos_caller(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const unsigned ws = w->arch->word_size;
	const bool be = w->snap->sys.big_endian;
	uint64_t start;
	struct port_code code;
	if (!sw_walk_function_start(w, callee->lookup_pc, &start) ||
	    !read_port_code(w, start, callee->pc, &code))
		return SW_UNWIND_END;

	/* pxCurrentTCB, then its first member pxTopOfStack. */
	uint64_t tcb, top, head[2];
	if (!sw_sigframe_read_fields(w, code.current_tcb, ws, be, 1, &tcb) ||
	    !sw_sigframe_read_fields(w, tcb, ws, be, 1, &top) ||
	    !sw_sigframe_read_fields(w, top, ws, be, 2, head))
		return SW_UNWIND_END;
	/* Which layout: where the routine stores x1. */
	bool v10_4 = code.ra_slot == (int64_t)ws;
	if (!v10_4 && code.ra_slot != 2 * (int64_t)ws)
		return SW_UNWIND_END;
	uint64_t mepc = head[0], mstatus = head[1], base = top;
	if (v10_4)
		return freertos_v10_4_caller(s, top, mepc, out);
	if (code.saves_vector && (mstatus >> MSTATUS_VS_SHIFT & 3) == STATUS_DIRTY) {
		const struct sw_regs *r = &callee->regs;
		if (!sw_reg_valid(r, RV_VLENB) || r->v[RV_VLENB] > 0x10000)
			return SW_UNWIND_END; /* the vector area's size is unknown */
		base += 32 * r->v[RV_VLENB] + PORT_VPU_CSR_WORDS * ws;
	}
	if (code.flen && (mstatus >> MSTATUS_FS_SHIFT & 3) == STATUS_DIRTY)
		base += PORT_FPU_REGS * code.flen;

	uint64_t x[PORT_CONTEXT_WORDS];
	uint64_t sp = base + PORT_CONTEXT_WORDS * ws;
	if (base < top || !frame_is_captured(w, top, sp) ||
	    !sw_sigframe_read_fields(w, base, ws, be, PORT_CONTEXT_WORDS, x))
		return SW_UNWIND_END;
	/* A synchronous exception's frame holds mepc + 4 (portASM.S: the task
	 * resumes after the ecall). */
	mepc = trapping_pc(w, mepc);
	if (!pc_is_code(w, mepc))
		return SW_UNWIND_END;

	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, 0, 0);
	sw_reg_set(&out->regs, RV_RA, x[2]);
	for (unsigned i = RV_T0; i < 32; i++)
		sw_reg_set(&out->regs, i, x[3 + i - RV_T0]);
	sw_reg_set(&out->regs, RV_SP, sp);
	sw_reg_set(&out->regs, RV_PC, mepc);
	out->restored_context = true;
	return SW_UNWIND_OK;
}

/* ---- ESP-IDF ---- */

enum {
	RV_EXC_WORDS = 32,          /* RvExcFrame's mepc and x1-x31 */
	ESP_CONTEXT_SIZE = 128,     /* vectors.S CONTEXT_SIZE: _interrupt_handler */
	ESP_FRAME_WITH_HARTID = 160, /* RV_STK_FRMSZ: 37 fields rounded up to 16 */
	ESP_FRAME_WITHOUT_HARTID = 144, /* RV_STK_FRMSZ before mhartid: 36 fields */
};

static enum sw_unwind_status espidf_caller(const struct sw_step *s, struct sw_caller *out,
                                           bool panic)
{
	const struct sw_walk *w = s->walk;
	const struct sw_regs *r = &s->callee->regs;
	if (w->arch->word_size != 4 || !sw_reg_valid(r, RV_SP))
		return SW_UNWIND_END;
	uint64_t frame = r->v[RV_SP], x[RV_EXC_WORDS];
	if (!sw_sigframe_read_fields(w, frame, 4, w->snap->sys.big_endian, RV_EXC_WORDS, x))
		return SW_UNWIND_END;
	/* The saved sp is the frame's end: the check that this is a frame. */
	uint64_t size = x[RV_SP] - frame;
	bool sized = x[RV_SP] > frame &&
	             (panic ? size == ESP_FRAME_WITH_HARTID || size == ESP_FRAME_WITHOUT_HARTID
	                    : size == ESP_CONTEXT_SIZE);
	if (!sized || !frame_is_captured(w, frame, x[RV_SP]) || !pc_is_code(w, x[0]))
		return SW_UNWIND_END;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, 0, 0);
	for (unsigned i = 1; i < 32; i++)
		sw_reg_set(&out->regs, i, x[i]);
	sw_reg_set(&out->regs, RV_PC, x[0]);
	out->restored_context = true;
	return SW_UNWIND_OK;
}

/* ---- the hook ---- */

static bool named(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

enum sw_unwind_status sw_riscv_caller_of_trap(const struct sw_step *s, struct sw_caller *out)
{
	static const char *const esp_interrupt[] = { "_interrupt_handler", "_tee_interrupt_handler" };
	const char *fn = s->callee->function;
	enum sw_unwind_status st;
	if (!fn)
		return SW_UNWIND_NO_RULE;
	if (named(fn, freertos_entries, sizeof freertos_entries / sizeof freertos_entries[0]))
		st = freertos_caller(s, out);
	else if (strcmp(fn, "_panic_handler") == 0)
		st = espidf_caller(s, out, true);
	else if (named(fn, esp_interrupt, sizeof esp_interrupt / sizeof esp_interrupt[0]))
		st = espidf_caller(s, out, false);
	else
		return SW_UNWIND_NO_RULE;
	if (st == SW_UNWIND_OK) {
		/* gp and tp are the firmware's, the same in every frame: the
		 * callee's, else the thread context's. */
		const struct sw_regs *r = &s->callee->regs;
		const struct sw_regs *ctx = s->walk->thread ? &s->walk->thread->ctx : r;
		for (unsigned i = RV_GP; i <= RV_TP; i++) {
			const struct sw_regs *from = sw_reg_valid(r, i) ? r : ctx;
			if (!sw_reg_valid(&out->regs, i) && sw_reg_valid(from, i))
				sw_reg_set(&out->regs, i, from->v[i]);
		}
		if (sw_reg_valid(r, RV_VLENB))
			sw_reg_set(&out->regs, RV_VLENB, r->v[RV_VLENB]);
	}
	return st;
}
