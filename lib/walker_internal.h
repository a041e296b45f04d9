/* What the three parts of the walker share: lib/walker.c walks one thread,
 * lib/walk_memory.c reads memory, code and symbols for it, and
 * lib/walk_schedule.c decides which threads are walked, how and on how
 * many workers. Nothing outside lib/walk*.c includes this. */
#ifndef SW_WALKER_INTERNAL_H
#define SW_WALKER_INTERNAL_H

#include "walker.h"

/* The evidence of the thread being walked (--explain): one per physical
 * frame, and every method's answer, in the order asked. */
struct sw_explain {
	struct sw_evidence *ev;
	uint32_t nev, ev_cap;
	struct sw_attempt *att;
	uint32_t natt, att_cap;
	uint32_t step_first;          /* the first attempt of the step in progress */
	char rule[256];               /* the CFI rules the last unwind applied */
	bool anchored;                /* rules_anchored_on_record chose the sp */
	uint64_t exc_return, exc_frame; /* the exception frame unstacked */
	bool failed;                  /* out of memory while recording */
};

/* The frames of the thread being walked (reused from thread to thread),
 * and their evidence when explain is set. */
struct sw_frame_list {
	struct sw_frame *v;
	uint32_t n, cap;
	struct sw_explain x;
};

/* Frees what l holds (not l). */
void sw_frame_list_free(struct sw_frame_list *l);

/* The symbols of module m, loaded on first use; `record`: the module holds
 * a frame, so its status goes into the walk's module_status. */
const struct sw_module_symbols *sw_walk_module_symbols(const struct sw_walk *w, int32_t module,
                                                       bool record);
/* addr relative to module m, as its symbols count. */
static inline uint64_t sw_walk_module_offset(const struct sw_walk *w, int32_t m, uint64_t addr)
{
	const struct sw_module *mod = &w->snap->modules[m];
	return addr - mod->base - mod->load_bias;
}

/* The symbols of the module covering addr (sw_walk_symbols_at), inline
 * for the walker's own questions. */
static inline const struct sw_module_symbols *sw_walk_symbols_in(const struct sw_walk *w,
                                                                 uint64_t addr, int32_t *m)
{
	*m = sw_module_at(w->snap, addr);
	return sw_walk_module_symbols(w, *m, false);
}

/* Walks thread `index` of w->snap with w->arch (from the crash context
 * when `crashed`) into out, using l as scratch. False: out of memory. */
bool sw_walk_thread(struct sw_walk *w, uint32_t index, bool crashed, struct sw_frame_list *l,
                    struct sw_stack *out);

#endif
