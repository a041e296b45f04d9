/* The frame state of prologue analysis (see prologue.h). The rules it
 * encodes are the ones both ABIs share (MIPS psABI "Function Prologue",
 * RISC-V psABI "Frame Pointer Convention"): a function allocates its frame
 * by lowering sp, stores the callee-saved registers it will change and
 * its return address inside that frame before changing them, may point a
 * frame pointer at a fixed place in it, and undoes all of that in reverse
 * in its epilogues. Nothing here depends on the instruction set. */
#include "prologue.h"

#include <string.h>

#include "lib/walker.h"

/* No frame is larger: an adjustment beyond it means the decoder lost
 * track (or the code is not what it seems), and keeps offsets far from
 * overflowing. */
enum { MAX_FRAME = 1 << 30 };

void sw_pro_init(struct sw_prologue *p, const struct sw_arch *arch)
{
	memset(p, 0, sizeof *p);
	p->sp = arch->sp;
	p->fp = arch->fp;
	p->ra = (uint8_t)(arch->ra >= 0 ? arch->ra : 0);
	p->tracked = (uint32_t)(arch->callee_saved & 0xffffffffu);
	if (arch->ra >= 0 && arch->ra < SW_PRO_NREGS)
		p->tracked |= 1u << arch->ra;
	if (p->sp < SW_PRO_NREGS)
		p->tracked &= ~(1u << p->sp);
	p->cur.sp_known = true;
}

static bool frame_sized(int64_t off)
{
	return off >= -(int64_t)MAX_FRAME && off <= (int64_t)MAX_FRAME;
}

static uint32_t bit(unsigned reg)
{
	return reg < SW_PRO_NREGS ? 1u << reg : 0;
}

/* The first event that undoes the frame (a release, a reload of a saved
 * register, sp recomputed from fp) may start an epilogue: remember the
 * frame of the body it leaves. */
static void epilogue_event(struct sw_prologue *p)
{
	if (!p->in_epilogue) {
		p->in_epilogue = true;
		p->body = p->cur;
	}
}

/* Anything that builds the frame or makes a call is body code: an
 * epilogue-looking event before it did not end the function. */
static void body_event(struct sw_prologue *p)
{
	p->in_epilogue = false;
}

void sw_pro_sp_add(struct sw_prologue *p, int64_t delta)
{
	struct sw_pro_frame *f = &p->cur;
	if (delta > 0)
		epilogue_event(p);
	else if (delta < 0)
		body_event(p);
	if (!f->sp_known)
		return;
	if (!frame_sized(delta)) {
		sw_pro_sp_unknown(p);
		return;
	}
	f->sp_off += delta;
	if (f->sp_off > 0 || !frame_sized(f->sp_off)) /* released more than was allocated */
		sw_pro_sp_unknown(p);
}

void sw_pro_sp_unknown(struct sw_prologue *p)
{
	p->cur.sp_known = false;
	p->cur.cfa_from_fp = p->cur.fp_known;
}

void sw_pro_sp_from_fp(struct sw_prologue *p, int64_t off)
{
	struct sw_pro_frame *f = &p->cur;
	if (!f->fp_known || !frame_sized(off) || f->fp_off + off > 0) {
		sw_pro_sp_unknown(p);
		return;
	}
	epilogue_event(p);
	f->sp_known = true;
	f->sp_off = f->fp_off + off;
	f->cfa_from_fp = false;
}

void sw_pro_fp_from_sp(struct sw_prologue *p, int64_t off)
{
	struct sw_pro_frame *f = &p->cur;
	p->const_known &= ~bit(p->fp);
	if (!f->sp_known || !frame_sized(off)) {
		sw_pro_write(p, p->fp);
		return;
	}
	body_event(p);
	f->fp_known = true;
	f->fp_off = f->sp_off + off;
	f->cfa_from_fp = true;
	if (!(f->saved & bit(p->fp)))
		f->written |= bit(p->fp);
	f->restored &= ~bit(p->fp);
}

void sw_pro_sp_set(struct sw_prologue *p, int64_t off)
{
	struct sw_pro_frame *f = &p->cur;
	if (off > 0 || !frame_sized(off)) {
		sw_pro_sp_unknown(p);
		return;
	}
	if (!f->sp_known || off > f->sp_off)
		epilogue_event(p);
	else if (off < f->sp_off)
		body_event(p);
	/* The CFA's register stays the one that defined it last: a copy of
	 * sp put back is no new definition of the frame. */
	f->sp_known = true;
	f->sp_off = off;
}

void sw_pro_fp_add(struct sw_prologue *p, int64_t delta)
{
	struct sw_pro_frame *f = &p->cur;
	p->const_known &= ~bit(p->fp);
	if (!f->fp_known || !frame_sized(delta) || !frame_sized(sw_pro_add(f->fp_off, delta))) {
		sw_pro_write(p, p->fp);
		return;
	}
	/* Moving the frame pointer up is how an epilogue that releases the
	 * frame through it begins (adds r7, #N; mov sp, r7). */
	if (delta > 0)
		epilogue_event(p);
	f->fp_off += delta;
	if (!(f->saved & bit(p->fp)))
		f->written |= bit(p->fp);
	f->restored &= ~bit(p->fp);
}

/* The CFA-relative address of [base + off], if base is known. */
static bool frame_address(const struct sw_prologue *p, unsigned base, int64_t off, int64_t *at)
{
	const struct sw_pro_frame *f = &p->cur;
	if (base == p->sp && f->sp_known)
		*at = f->sp_off + off;
	else if (base == p->fp && f->fp_known)
		*at = f->fp_off + off;
	else
		return false;
	return true;
}

void sw_pro_store(struct sw_prologue *p, unsigned reg, unsigned base, int64_t off, unsigned width)
{
	struct sw_pro_frame *f = &p->cur;
	int64_t at;
	uint32_t b = bit(reg);
	if (!(p->tracked & b) || (f->saved & b) || !frame_address(p, base, off, &at))
		return;
	/* A save holds the caller's value: stored before this function
	 * changed the register, inside the frame allocated so far. */
	if ((f->written & b) || (reg == p->ra && f->ra_clobbered))
		return;
	if (at >= 0 || (f->sp_known && at < f->sp_off))
		return;
	body_event(p);
	f->saved |= b;
	f->slot[reg] = at;
	f->width[reg] = (uint8_t)width;
}

void sw_pro_load(struct sw_prologue *p, unsigned reg, unsigned base, int64_t off)
{
	struct sw_pro_frame *f = &p->cur;
	int64_t at;
	uint32_t b = bit(reg);
	if ((f->saved & b) && frame_address(p, base, off, &at) && at == f->slot[reg]) {
		/* The caller's value again (an epilogue, or o32's gp reload). */
		epilogue_event(p);
		p->const_known &= ~b;
		f->restored |= b;
		if (reg == p->ra)
			f->ra_clobbered = false;
		if (reg == p->fp) {
			f->fp_known = false;
			f->cfa_from_fp = false;
		}
		return;
	}
	sw_pro_write(p, reg);
}

void sw_pro_write(struct sw_prologue *p, unsigned reg)
{
	struct sw_pro_frame *f = &p->cur;
	uint32_t b = bit(reg);
	if (!b)
		return;
	p->const_known &= ~b;
	if (reg == p->sp) {
		sw_pro_sp_unknown(p);
		return;
	}
	if (reg == p->fp && f->fp_known) {
		f->fp_known = false;
		f->cfa_from_fp = false;
	}
	if (reg == p->ra)
		f->ra_clobbered = true;
	if (!(f->saved & b))
		f->written |= b;
	f->restored &= ~b;
}

void sw_pro_const(struct sw_prologue *p, unsigned reg, int64_t v)
{
	if (reg == 0 || reg >= SW_PRO_NREGS)
		return;
	sw_pro_write(p, reg);
	if (reg == p->sp || reg == p->fp)
		return;
	p->const_known |= bit(reg);
	p->const_val[reg] = v;
}

bool sw_pro_const_get(const struct sw_prologue *p, unsigned reg, int64_t *v)
{
	if (reg == 0) { /* the zero register */
		*v = 0;
		return true;
	}
	if (reg >= SW_PRO_NREGS || !(p->const_known & bit(reg)))
		return false;
	*v = p->const_val[reg];
	return true;
}

void sw_pro_call(struct sw_prologue *p, unsigned link)
{
	body_event(p);
	sw_pro_write(p, link);
	/* The callee may change every register the ABI lets it: constants
	 * kept in them are gone (callee-saved ones survive). */
	p->const_known &= p->tracked;
}

void sw_pro_path_end(struct sw_prologue *p)
{
	if (p->in_epilogue)
		p->cur = p->body;
	p->in_epilogue = false;
	p->const_known = 0;
}

/* Reads a saved register of `width` bytes at addr as the walk's word:
 * n32 saves 64-bit registers (sd) with 32-bit pointers, and a 32-bit store
 * on a 64-bit CPU is sign-extended when loaded back (MIPS64 lw, RV64 lw). */
static bool read_slot(const struct sw_walk *w, uint64_t addr, unsigned width, uint64_t *out)
{
	const unsigned ws = w->arch->word_size;
	const bool be = w->snap->sys.big_endian;
	if (width == ws)
		return sw_walk_read_word(w, addr, out);
	uint64_t a, b;
	if (width == 8 && ws == 4) {
		if (!sw_walk_read_word(w, addr, &a) || !sw_walk_read_word(w, addr + 4, &b))
			return false;
		*out = be ? b : a; /* the low half holds the pointer */
		return true;
	}
	if (width == 4 && ws == 8) {
		uint64_t word_at = addr & ~(uint64_t)7;
		if (!sw_walk_read_word(w, word_at, &a))
			return false;
		bool low_half = (addr == word_at) != be;
		uint32_t v = (uint32_t)(low_half ? a : a >> 32);
		*out = (uint64_t)(int64_t)(int32_t)v;
		return true;
	}
	return false;
}

uint64_t sw_pro_symbol_start(const struct sw_step *s)
{
	const struct sw_frame *f = s->callee;
	if (!f->function || f->function_base > f->lookup_pc)
		return 0;
	return f->function_base;
}

uint64_t sw_pro_search_floor(const struct sw_walk *w, uint64_t origin, uint64_t reach)
{
	uint64_t lo = origin > reach ? origin - reach : 0;
	int32_t m = sw_module_at(w->snap, origin);
	if (m >= 0 && w->snap->modules[m].base > lo)
		lo = w->snap->modules[m].base;
	return lo;
}

bool sw_pro_candidate_step(struct sw_prologue *p, struct sw_pro_candidate *k, bool ret, bool ends)
{
	if (ret && (k->returns == SW_PRO_RETURNS_REFUTE ||
	            (k->returns == SW_PRO_RETURNS_EPILOGUE_ONLY && !p->in_epilogue)))
		return false;
	if (p->failed)
		return false;
	if (ends)
		sw_pro_path_end(p);
	if (ret && k->returns == SW_PRO_RETURNS_EPILOGUE_ONLY && !k->returned) {
		k->returned = true;
		k->floor = p->cur.sp_off;
	}
	/* Below the sp of the first epilogue's return: a new allocation,
	 * another function's. */
	return !(k->returned && p->cur.sp_known && p->cur.sp_off < k->floor);
}

bool sw_pro_ra_lost(const struct sw_prologue *p)
{
	return p->cur.ra_clobbered && !(p->cur.saved & 1u << p->ra);
}

enum sw_unwind_status sw_pro_caller(const struct sw_prologue *p, const struct sw_step *s,
                                    struct sw_caller *out)
{
	const struct sw_walk *w = s->walk;
	const struct sw_frame *callee = s->callee;
	const struct sw_regs *r = &callee->regs;
	const struct sw_pro_frame *f = &p->cur;
	const bool live = sw_frame_has_live_context(callee);
	if (p->failed || !sw_reg_valid(r, p->sp))
		return SW_UNWIND_NO_RULE;

	/* The CFA from the register that last defined it, else the other. */
	bool from_fp = f->fp_known && sw_reg_valid(r, p->fp) && (f->cfa_from_fp || !f->sp_known);
	if (!from_fp && !f->sp_known)
		return SW_UNWIND_NO_RULE;
	uint64_t cfa = from_fp ? r->v[p->fp] - (uint64_t)f->fp_off : r->v[p->sp] - (uint64_t)f->sp_off;
	if (w->arch->word_size == 4)
		cfa &= 0xffffffffu;

	memset(out, 0, sizeof *out);
	bool have_ra = false, ra_from_slot = false;
	uint64_t ra = 0;
	for (unsigned i = 0; i < SW_PRO_NREGS; i++) {
		uint32_t b = 1u << i;
		if (!(p->tracked & b))
			continue;
		/* A slot holds the caller's value while it lies inside the frame
		 * (an epilogue's reload copies it back before the release). */
		bool in_frame = !f->sp_known || f->slot[i] >= f->sp_off;
		uint64_t v;
		if ((f->saved & b) && in_frame) {
			if (!read_slot(w, cfa + (uint64_t)f->slot[i], f->width[i], &v))
				return SW_UNWIND_NO_RULE;
		} else if (i == p->ra) {
			/* The return address in the link register: only a live
			 * context holds it, and only until a call replaced it. */
			if (!live || f->ra_clobbered || !sw_reg_valid(r, i))
				return SW_UNWIND_NO_RULE;
			v = r->v[i];
		} else if (((f->written & b) && !(f->restored & b)) || !sw_reg_valid(r, i)) {
			continue; /* changed here, not saved: unknown */
		} else {
			v = r->v[i];
		}
		if (i == p->ra) {
			ra = v;
			have_ra = true;
			ra_from_slot = (f->saved & b) && in_frame;
		} else {
			sw_reg_set(&out->regs, i, v);
		}
	}
	if (!have_ra)
		return SW_UNWIND_NO_RULE;
	/* A saved return address of 0 in an intact frame: the outermost
	 * function of a thread (its creator cleared ra before the call). */
	if (ra == 0 && (f->saved & (1u << p->ra)))
		return SW_UNWIND_END;
	sw_reg_set(&out->regs, w->arch->pc, ra);
	sw_reg_set(&out->regs, p->sp, cfa);
	/* The return address must follow a call. Read from the slot the
	 * prologue stored it in, the slot itself is proven; then the call's
	 * code bytes suffice, wherever the module's symbols and unwind tables
	 * leave gaps (Debian's MIPS libc: start_thread has neither a symbol
	 * nor an FDE, yet thread_main's saved ra returns into it). */
	if (!sw_walk_is_return_address(w, ra) &&
	    !(ra_from_slot && sw_walk_follows_proven_call(w, ra)) &&
	    !sw_walk_is_signal_trampoline(s, out))
		return SW_UNWIND_NO_RULE;
	out->decoded_from = p->decoded_from;
	return SW_UNWIND_OK;
}

void sw_code_init(struct sw_code *c, const struct sw_walk *w)
{
	c->w = w;
	c->base = 0;
	c->n = 0;
}

bool sw_code_read(struct sw_code *c, uint64_t addr, void *out, unsigned n)
{
	if (n > 8)
		return false;
	struct sw_walk_budget *b = c->w->budget;
	if (b) {
		if (b->code_reads == 0) {
			b->code_ran_out = true;
			return false;
		}
		b->code_reads--;
	}
	if (addr < c->base || addr - c->base > c->n || c->n - (addr - c->base) < n) {
		c->n = 0;
		if (!sw_walk_read_window(c->w, addr, n, c->buf, sizeof c->buf, &c->base, &c->n))
			return false;
	}
	memcpy(out, c->buf + (addr - c->base), n);
	return true;
}
