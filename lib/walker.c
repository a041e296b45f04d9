/* The walk loop. Breakpad's order and termination rules (stackwalker.cc):
 * frame 0 from the context; each caller by the module's unwind rules (CFI,
 * STACK WIN), else the frame-pointer chain, else prologue analysis, else a
 * validated stack scan; stop when the caller's pc is below 0x1000, when the
 * stack does not grow, when the rules say there is no caller, or at the
 * frame cap. Every physical frame is symbolized and its inline frames put
 * before it. */
#include "walker.h"

#include <stdlib.h>
#include <string.h>

#include "dex_method.h"
#include "walker_internal.h"

enum {
	/* Breakpad's kRASearchWords: how far a scan looks for a return address,
	 * four times as far for the caller of the context frame. */
	SCAN_WORDS = 40,
	SCAN_WORDS_CONTEXT = 4 * SCAN_WORDS,
	/* Breakpad's rule: addresses below one page are NULL-ish, no code. */
	MIN_CODE_ADDRESS = 0x1000,
};

const char *sw_walk_end_name(enum sw_walk_end e)
{
	switch (e) {
	case SW_END_OUTERMOST: return "outermost";
	case SW_END_NULL_RETURN: return "null_return";
	case SW_END_NO_CALLER: return "no_caller_found";
	case SW_END_FRAME_LIMIT: return "frame_limit";
	case SW_END_SCAN_LIMIT: return "scan_limit";
	case SW_END_FRAME_BUDGET: return "frame_budget";
	case SW_END_ERROR: return "error";
	case SW_END_NOT_WALKED: break;
	}
	return "not_walked";
}

const char *sw_walk_end_description(enum sw_walk_end e)
{
	switch (e) {
	case SW_END_OUTERMOST: return "the outermost frame (no caller by its unwind rules)";
	case SW_END_NULL_RETURN: return "the frame chain ends in a NULL return address";
	case SW_END_NO_CALLER: return "no method found a caller it could prove";
	case SW_END_FRAME_LIMIT: return "truncated at the frame limit (--max-frames)";
	case SW_END_SCAN_LIMIT: return "truncated: the limit of scanned frames per thread was reached";
	case SW_END_FRAME_BUDGET: return "truncated: the frame budget for this input ran out";
	case SW_END_ERROR: return "out of memory";
	case SW_END_NOT_WALKED: break;
	}
	return "not walked";
}


static bool return_address_checked(const struct sw_walk *w, uint64_t raw, bool require_code);
static bool call_site_checked(const struct sw_walk *w, uint64_t raw, bool require_code,
                              bool require_function);

bool sw_walk_is_return_address(const struct sw_walk *w, uint64_t raw)
{
	return return_address_checked(w, raw, false);
}

bool sw_walk_follows_proven_call(const struct sw_walk *w, uint64_t raw)
{
	return call_site_checked(w, raw, true, false);
}

/* require_code: only a candidate whose call instruction the snapshot's
 * code bytes show counts (Breakpad's rule alone is not enough). */
static bool return_address_checked(const struct sw_walk *w, uint64_t raw, bool require_code)
{
	return call_site_checked(w, raw, require_code, true);
}

/* require_function: the module's symbols, when they can say, must place
 * the call inside a function (Breakpad's InstructionAddressSeemsValid). */
static bool call_site_checked(const struct sw_walk *w, uint64_t raw, bool require_code,
                              bool require_function)
{
	const struct sw_arch *arch = w->arch;
	uint64_t addr = arch->strip_code_pointer(w, raw);
	if (!arch->pc_is_plausible(addr) && sw_module_at(w->snap, addr) < 0)
		return false;
	/* The call instruction, not the address after it, must be in a module
	 * and a function: a call to a function that never returns may be the
	 * last instruction of its caller. */
	uint64_t call = arch->call_site(addr);
	int32_t m;
	const struct sw_module_symbols *syms = sw_walk_symbols_in(w, call, &m);
	if (m < 0)
		return false;
	/* A sigreturn trampoline's address follows no call, and the byte
	 * before it may lie in no function (glibc i386's __restore_rt has no
	 * size): it is judged as a trampoline below. */
	if (require_function && syms && syms->ops->has_function &&
	    !syms->ops->has_function(syms->self, sw_walk_module_offset(w, m, call)) &&
	    !(arch->is_signal_trampoline && arch->is_signal_trampoline(w, addr)))
		return false;
	bool known = false;
	if (arch->call_precedes && !arch->call_precedes(w, raw, &known))
		return arch->is_signal_trampoline && arch->is_signal_trampoline(w, addr);
	return known || !require_code;
}

bool sw_walk_handler_returns_to(const struct sw_walk *w, uint64_t word, uint64_t sp,
                                bool *code_known)
{
	const struct sw_arch *arch = w->arch;
	uint8_t byte;
	uint64_t addr = arch->strip_code_pointer(w, word);
	*code_known = sw_walk_read(w, addr, &byte, 1);
	bool restorer = *code_known ? arch->is_signal_trampoline && arch->is_signal_trampoline(w, addr)
	                            : sw_module_at(w->snap, addr) >= 0;
	return restorer && arch->signal_frame_written_at && arch->signal_frame_written_at(w, sp);
}

/* A handler's return address whose restorer's code the snapshot lacks,
 * proven by the signal frame the kernel wrote right above it: a scan that
 * needs code takes it all the same, unless it passed a word that
 * Breakpad's rule alone would take (a return address that may be a
 * frame's, its call unproven: taking the handler's would skip that
 * frame); the next step restores the interrupted context. */
static bool handler_return_by_frame(const struct sw_walk *w, uint64_t word, uint64_t slot)
{
	bool code_known;
	return sw_walk_handler_returns_to(w, word, slot + w->arch->word_size, &code_known) &&
	       !code_known;
}

static bool scan_for_return_address(const struct sw_walk *w, uint64_t *slot, uint64_t *ra,
                                    uint32_t words, bool require_code,
                                    const struct sw_frame *callee);

bool sw_walk_scan_for_return_address(const struct sw_walk *w, uint64_t *slot,
                                     uint64_t *ra, uint32_t words)
{
	return scan_for_return_address(w, slot, ra, words, false, NULL);
}

/* A return address into the function the callee is running (or, where
 * no symbols say which function that is, a scanned callee's own return
 * address again) is left over from that function's own earlier call: the
 * stack and the link register keep return addresses of calls that have
 * returned. Only recursion puts a function's frame right above itself,
 * and only a direct call to the function's own start proves it (a call
 * through a pointer, or to another function that calls back, proves
 * nothing the walk could check). */
bool sw_walk_own_earlier_call(const struct sw_walk *w, uint64_t ra,
                              const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	uint64_t addr = arch->strip_code_pointer(w, ra), call = arch->call_site(addr);
	uint64_t start, callee_start, target;
	bool symbols = sw_walk_function_start(w, call, &start) &&
	               sw_walk_function_start(w, callee->lookup_pc, &callee_start);
	if (symbols)
		return start == callee_start &&
		       !(arch->call_target && arch->call_target(w, addr, &target) && target == start);
	/* No symbols: the code says it, where it runs straight from ra on to
	 * the callee's pc (ra then returns into pc's function: a live link
	 * register, or a word in a frame, left from its earlier call), unless
	 * the call before ra may be recursion: a direct call back to a start
	 * whose function may hold the call (arch hook call_reaches; else code
	 * running straight from the start to the call). The callee's own pc
	 * again is judged below. */
	if (arch->falls_through && addr != callee->pc && arch->falls_through(w, addr, callee->pc)) {
		bool direct = arch->call_target && arch->call_target(w, addr, &target);
		/* A call to code between its own return and pc entered that
		 * code: a noreturn call to the function laid out right after
		 * the caller (zoo aarch64 206 and 1100, mips64el and riscv64
		 * 1100: f2 ends `bl f3`, f3 follows). A function never calls
		 * into its own body past the call. */
		if (direct && target >= addr && target <= callee->pc)
			return false;
		return !(direct && target <= call &&
		         (arch->call_reaches ? arch->call_reaches(w, target, call)
		                             : arch->falls_through(w, target, call)));
	}
	/* No symbols: the callee's own return address again, above a frame
	 * whose place on the stack was found, not computed (a scanned slot; a
	 * frame record, which i386 main's realigned stack keeps apart from
	 * the return address it copied). Recursion calls directly, to a start
	 * at or below its call; anything else is the same frame twice. */
	bool found = callee->trust == SW_TRUST_SCAN || callee->trust == SW_TRUST_CFI_SCAN ||
	             callee->trust == SW_TRUST_FRAME_POINTER;
	if (addr != callee->pc || !found)
		return false;
	return !(arch->call_target && arch->call_target(w, addr, &target) && target <= call);
}

/* A direct call names its target (the arch's call_target follows the
 * stubs it knows, PLT entries, to where they jump). A call only leaves its
 * module through such a stub, so a return address whose call went into
 * another module than the callee's (or, for a callee outside every module:
 * a chip's mask ROM, JIT code, into any module's function) is stale: that
 * call entered the other module, and the callee could only be reached from
 * there by a call, which would have left its own return address nearer the
 * callee (an ESP32's ROM printf frames hold a heap_caps_malloc return from
 * long before above them; a qemu-user arm main thread holds, above libc's
 * abort, one of ld.so's calls to its own functions from before main). Only
 * a tail call out of that module would make it true, which nothing shows:
 * refused, unless the target's code shows such a jump (arch hook
 * jumps_into_module). Within a module no such rule holds: tail calls and functions
 * the compiler split (GCC's .cold parts) reach other functions than the
 * call's target. An indirect call names no target: nothing to check. */
static bool call_may_enter_module(const struct sw_walk *w, uint64_t ra,
                                  const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	uint64_t target, start;
	if (!arch->call_target || !arch->call_target(w, arch->strip_code_pointer(w, ra), &target))
		return true;
	int32_t from = sw_module_at(w->snap, callee->lookup_pc);
	if (from < 0)
		return !sw_walk_function_start(w, target, &start);
	/* A target whose code the snapshot lacks may be a stub into the
	 * callee's module: not known, not refused. */
	uint8_t code;
	int32_t to = sw_module_at(w->snap, target);
	return to < 0 || to == from || !sw_walk_read(w, target, &code, 1) ||
	       (arch->jumps_into_module && arch->jumps_into_module(w, target, from));
}

/* Where the call before ra is direct, can its target lead to the
 * callee's pc (arch hook call_reaches)? A frame record left in rbp by
 * code that keeps none names a real return address of an older frame:
 * its call went to a function that returns without passing through the
 * callee (a stripped program's f3 called f4, which called f5: f5's rbp
 * still holds f3's record). */
static bool call_reaches_callee(const struct sw_walk *w, uint64_t ra,
                                const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	uint64_t target;
	uint64_t pc = sw_frame_code_pc(callee);
	return !arch->call_reaches || !arch->call_target ||
	       !arch->call_target(w, arch->strip_code_pointer(w, ra), &target) ||
	       arch->call_reaches(w, target, pc);
}

/* The dynamic linker's module (ld-linux-*.so.*, ld.so.1, ld64.so.*,
 * ld-musl-*.so.1), by the file name its path ends in. */
static bool is_dynamic_linker(const struct sw_module *m)
{
	const char *name = sw_basename(m->code_file ? m->code_file : "");
	return strncmp(name, "ld-", 3) == 0 || strncmp(name, "ld.so", 5) == 0 ||
	       strncmp(name, "ld64.so", 7) == 0;
}

/* A call through a PLT slot not yet bound never ran (arch hook
 * call_never_made), unless it is running now: the dynamic linker,
 * resolving it, is the callee (_dl_runtime_resolve, _dl_fixup). The
 * stack keeps the return addresses of such calls' neighbours: a `bl
 * abort@plt` ending _start is followed by the entry of __wrap_main, whose
 * address __libc_start_main keeps. */
static bool call_may_have_run(const struct sw_walk *w, uint64_t ra, const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	if (!arch->call_never_made || !arch->call_never_made(w, arch->strip_code_pointer(w, ra)))
		return true;
	int32_t m = sw_module_at(w->snap, callee->lookup_pc);
	return m >= 0 && is_dynamic_linker(&w->snap->modules[m]);
}

/* Could the call before ra have led to the callee? Neither an earlier call
 * of the callee's own function (above), nor a call into another module,
 * nor one to a closed function that holds no callee's pc (a `bl abort`
 * ending _start, before the entry of the next function, whose address a
 * static program passes to __libc_start_main), nor an indirect call whose
 * form names code elsewhere (i386's system calls through %gs:0x10). */
bool sw_walk_call_may_reach(const struct sw_walk *w, uint64_t ra, const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	return !callee || (!sw_walk_own_earlier_call(w, ra, callee) &&
	                   call_may_enter_module(w, ra, callee) &&
	                   call_reaches_callee(w, ra, callee) && call_may_have_run(w, ra, callee) &&
	                   (!arch->indirect_call_reaches ||
	                    arch->indirect_call_reaches(w, arch->strip_code_pointer(w, ra),
	                                                sw_frame_code_pc(callee))));
}

/* A word equal to a function's first instruction is a function pointer
 * (a callback, a vtable entry copied to the stack), unless a direct call
 * ends right before it: a call to a function that never returns, the last
 * instruction of its caller, returns (in the stack's eyes) to the next
 * function's entry. A sigreturn trampoline is a handler's return address
 * at its first instruction (glibc i386's __restore, a symbol of its own):
 * restorer_without_frame judges it. */
static bool function_pointer(const struct sw_walk *w, uint64_t word)
{
	const struct sw_arch *arch = w->arch;
	uint64_t addr = arch->strip_code_pointer(w, word) & ~(uint64_t)1, start, target;
	return sw_walk_function_start(w, addr, &start) && start == addr &&
	       !(arch->call_target && arch->call_target(w, word, &target)) &&
	       !(arch->is_signal_trampoline && arch->is_signal_trampoline(w, word));
}

/* Does the frame layout of the function the call before ra went to put
 * its return address in `slot`, where the scan found ra (arch hook
 * slot_fits_call)? A direct call names the function; where its code shows
 * its return address elsewhere, ra is left over from another frame. */
static bool slot_fits_call(const struct sw_walk *w, uint64_t ra, uint64_t slot,
                           const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	uint64_t target;
	return !callee || !arch->slot_fits_call || !arch->call_target ||
	       !arch->call_target(w, arch->strip_code_pointer(w, ra), &target) ||
	       arch->slot_fits_call(w, callee, target, slot);
}

/* A word naming a sigreturn trampoline is a handler's return address
 * only where a real signal frame lies above it: sigaction leaves the
 * restorer's address in its caller's frame too, and the scan goes on past
 * such a word (a step refusing it later would end the walk there). */
static bool restorer_without_frame(const struct sw_walk *w, uint64_t word, uint64_t slot,
                                   const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	if (!callee || !arch->is_signal_trampoline || !arch->is_signal_trampoline(w, word))
		return false;
	struct sw_step probe = { .walk = w, .callee = callee };
	struct sw_caller c;
	memset(&c, 0, sizeof c);
	sw_reg_set(&c.regs, arch->pc, word);
	sw_reg_set(&c.regs, arch->sp, slot + arch->word_size);
	return !sw_walk_is_signal_trampoline(&probe, &c);
}

/* Does a return address the scan found in `slot` fit the callee: its
 * call may lead there, the callee's frame puts it there, and it is no
 * function pointer or restorer's address left without a signal frame? */
static bool fits_callee(const struct sw_walk *w, uint64_t value, uint64_t slot,
                        const struct sw_frame *callee)
{
	return sw_walk_call_may_reach(w, value, callee) && slot_fits_call(w, value, slot, callee) &&
	       !function_pointer(w, value) && !restorer_without_frame(w, value, slot, callee);
}

static bool scan_for_return_address(const struct sw_walk *w, uint64_t *slot, uint64_t *ra,
                                    uint32_t words, bool require_code,
                                    const struct sw_frame *callee)
{
	const unsigned ws = w->arch->word_size;
	uint64_t at = *slot;
	/* Breakpad scans words+1 slots: [start, start + words * size]. */
	/* Only a scan that needs code, on a CPU whose signal frames are
	 * known by their data, asks what it passed. */
	bool by_frame = require_code && w->arch->signal_frame_written_at, passed_unproven = false;
	for (uint32_t i = 0; i <= words; i++, at += ws) {
		uint64_t value;
		if (!sw_walk_read_word(w, at, &value))
			return false;
		bool found = (return_address_checked(w, value, require_code) &&
		              fits_callee(w, value, at, callee)) ||
		             (by_frame && !passed_unproven && handler_return_by_frame(w, value, at));
		if (found) {
			*slot = at;
			*ra = value;
			return true;
		}
		passed_unproven = passed_unproven ||
		                  (by_frame && return_address_checked(w, value, false) &&
		                   fits_callee(w, value, at, callee));
	}
	return false;
}

/* The frames of the stack being walked: a heap array reused from thread
 * to thread (grown by doubling), copied into the arena at its final size
 * when the thread is done, so the arena holds no outgrown copies. */
static struct sw_frame *push_frame(struct sw_frame_list *l)
{
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 64;
		struct sw_frame *v = realloc(l->v, (size_t)cap * sizeof *v);
		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	struct sw_frame *f = &l->v[l->n++];
	memset(f, 0, sizeof *f);
	f->module = -1;
	f->unloaded_module = -1;
	return f;
}

/* Symbolizes the physical frame `phys` (already filled with pc, registers
 * and trust) and appends it to l, preceded by its inline frames (innermost
 * first), as Breakpad's and rust-minidump's outputs list them:
 *   inline k (innermost) at the line record of the address,
 *   each outer inline at the call site recorded in the one inside it,
 *   the physical function at the call site of the outermost inline. */
static bool append_symbolized(const struct sw_walk *w, struct sw_frame_list *l,
                              const struct sw_frame *phys)
{
	struct sw_frame f = *phys;
	f.module = sw_module_at(w->snap, f.lookup_pc);
	f.unloaded_module = f.module < 0 ? sw_unloaded_module_at(w->snap, f.lookup_pc) : -1;
	struct sw_sym_info info;
	memset(&info, 0, sizeof info);
	const struct sw_module_symbols *syms = sw_walk_module_symbols(w, f.module, true);
	bool found = syms && syms->ops->lookup &&
	             syms->ops->lookup(syms->self, sw_walk_module_offset(w, f.module, f.lookup_pc),
	                               w->arena, &info) &&
	             info.function;
	if (found) {
		uint64_t base = w->snap->modules[f.module].base + w->snap->modules[f.module].load_bias;
		f.function = info.function;
		f.function_base = base + info.function_offset;
		f.function_is_public = info.is_public;
		f.line_base = base + info.line_offset;
		for (uint32_t k = info.ninlines; k-- > 0;) {
			struct sw_frame *in = push_frame(l);
			if (!in)
				return false;
			in->pc = f.pc;
			in->lookup_pc = f.lookup_pc;
			in->trust = SW_TRUST_INLINE;
			in->module = f.module;
			in->unloaded_module = -1;
			in->function = info.inlines[k].function;
			in->function_base = f.function_base;
			in->line_base = f.line_base;
			if (k + 1 == info.ninlines) {
				in->file = info.file;
				in->line = info.line;
			} else {
				in->file = info.inlines[k + 1].call_file;
				in->line = info.inlines[k + 1].call_line;
			}
		}
		if (info.ninlines) {
			f.file = info.inlines[0].call_file;
			f.line = info.inlines[0].call_line;
		} else {
			f.file = info.file;
			f.line = info.line;
		}
		f.ninlines = (uint16_t)(info.ninlines > UINT16_MAX ? UINT16_MAX : info.ninlines);
	}
	struct sw_frame *out = push_frame(l);
	if (!out)
		return false;
	*out = f;
	return true;
}

/* The caller by the module's own rules (CFI, STACK WIN). */
static enum sw_unwind_status caller_by_rules(const struct sw_step *st, struct sw_caller *out,
                                             enum sw_trust *trust)
{
	const struct sw_walk *w = st->walk;
	int32_t m;
	const struct sw_module_symbols *syms = sw_walk_symbols_in(w, st->callee->lookup_pc, &m);
	if (!syms || !syms->ops->unwind)
		return SW_UNWIND_NO_RULE;
	struct sw_unwind_env env = {
		.arch = w->arch,
		.walk = w,
		.callee = st->callee,
		.module_base = w->snap->modules[m].base + w->snap->modules[m].load_bias,
		.callee_callee = st->callee_callee,
	};
	if (st->explain) {
		st->explain->rule[0] = 0;
		env.rule = st->explain->rule;
		env.rule_cap = sizeof st->explain->rule;
	}
	memset(out, 0, sizeof *out);
	*trust = SW_TRUST_CFI;
	return syms->ops->unwind(syms->self, sw_walk_module_offset(w, m, st->callee->lookup_pc), &env,
	                         out, trust);
}

enum sw_unwind_status sw_walk_caller_by_scan(const struct sw_step *st, const uint64_t *from,
                                             struct sw_caller *out)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	const struct sw_frame *callee = st->callee;
	if (!sw_reg_valid(&callee->regs, arch->sp))
		return SW_UNWIND_NO_RULE;
	uint64_t slot = from ? *from : callee->regs.v[arch->sp], ra;
	/* Breakpad looks four times as far from the context frame, whose
	 * function may keep a large frame of its own (rust-minidump also from
	 * CFI frames; Breakpad's shorter reach invents fewer frames where no
	 * code bytes can validate a candidate). */
	uint32_t words = callee->trust == SW_TRUST_CONTEXT ? SCAN_WORDS_CONTEXT : SCAN_WORDS;
	bool require_code = st->scan_needs_code || w->snap->scans_need_code;
	if (!scan_for_return_address(w, &slot, &ra, words, require_code, callee))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	sw_reg_set(&out->regs, arch->pc, ra);
	/* The caller's stack pointer is just above the slot that held the
	 * return address. */
	sw_reg_set(&out->regs, arch->sp, slot + arch->word_size);
	if (arch->after_scan)
		arch->after_scan(st, slot, out);
	return SW_UNWIND_OK;
}

enum sw_unwind_status sw_walk_caller_by_link_register(const struct sw_step *st,
                                                      struct sw_caller *out)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	const struct sw_frame *callee = st->callee;
	if (arch->ra < 0 || !sw_frame_has_live_context(callee) ||
	    !sw_reg_valid(&callee->regs, (unsigned)arch->ra) ||
	    !sw_reg_valid(&callee->regs, arch->sp))
		return SW_UNWIND_NO_RULE;
	/* A link register into the function the callee runs is left over
	 * from that function's own earlier call (unless the call before it
	 * is recursion), and one whose call went into another module than
	 * the callee's did not lead here: both would duplicate or skip a
	 * frame. */
	uint64_t lr = callee->regs.v[arch->ra];
	if (!sw_walk_is_return_address(w, lr) || !sw_walk_call_may_reach(w, lr, callee))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	for (unsigned i = 0; i < arch->nregs && i < SW_MAX_REGS; i++)
		if ((arch->callee_saved >> i & 1) && sw_reg_valid(&callee->regs, i))
			sw_reg_set(&out->regs, i, callee->regs.v[i]);
	sw_reg_set(&out->regs, arch->pc, lr);
	sw_reg_set(&out->regs, arch->sp, callee->regs.v[arch->sp]);
	return SW_UNWIND_OK;
}

/* A code address that is really a stack address: CFI rules that do not
 * know the outermost frame (Breakpad .sym cannot say "no return address")
 * compute one past _start. No module holds it, so it is not code we can
 * vouch for. */
static bool pc_in_stack(const struct sw_walk *w, uint64_t pc)
{
	return w->stack_hi > w->stack_lo && pc >= w->stack_lo && pc < w->stack_hi &&
	       sw_module_at(w->snap, pc) < 0;
}

/* Is pc in a module whose file says it is no code (lib/symbols.h,
 * in_code)? The module's symbols are loaded for the question. */
static bool pc_in_module_data(const struct sw_walk *w, uint64_t pc)
{
	int32_t m;
	const struct sw_module_symbols *syms = sw_walk_symbols_in(w, pc, &m);
	return syms && syms->ops->in_code && !syms->ops->in_code(syms->self, sw_walk_module_offset(w, m, pc));
}

bool sw_walk_pc_in_module_code(const struct sw_walk *w, uint64_t pc)
{
	if (sw_module_at(w->snap, pc) < 0 || pc_in_module_data(w, pc))
		return false;
	const struct sw_mapping *m = sw_mapping_at(w->snap, pc);
	return !m || m->perms[2] == 'x';
}

/* A process's entry point: the kernel jumps there, nothing calls it, so
 * whatever its frame holds above (a stale link register the dynamic
 * loader left, argc and the auxiliary vector) is no caller, whatever rule
 * or scan would say. The walk ends there. */
static bool is_program_entry(const char *name)
{
	static const char *const names[] = { "_start", "__start", "___start", "_start_c" };
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Functions that nothing calls: process and thread entry points. When
 * their unwind rules give no usable caller, the walk ends there instead of
 * scanning past them into whatever the stack holds above. (clone is not a
 * program entry: in the thread that calls it, it has a caller.) */
static bool is_outermost_function(const char *name)
{
	static const char *const names[] = {
		"_start", "__start", "___start", "_start_c", "clone", "__clone", "__clone2", "clone3",
		"__clone3", "thread_start", "_pthread_start", "RtlUserThreadStart",
		"_RtlUserThreadStart",
	};
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* A signal delivered on an alternate stack (sigaltstack) returns to the
 * thread's own stack, which may lie anywhere: a restored context whose sp
 * is in another captured region than the callee's may go down. */
static bool returns_to_another_stack(const struct sw_step *st, const struct sw_caller *c)
{
	const struct sw_arch *arch = st->walk->arch;
	if (!c->restored_context)
		return false;
	const struct sw_mem_region *from = sw_mem_find(st->walk->snap, st->callee->regs.v[arch->sp]);
	const struct sw_mem_region *to = sw_mem_find(st->walk->snap, c->regs.v[arch->sp]);
	return from && to && from != to;
}

/* A context read from a signal frame is the interrupted thread's only if
 * its stack pointer points at memory the snapshot holds (the thread's
 * stack, or the one it ran on before an alternate stack): a frame read at
 * the wrong place yields zeros or stray words there. */
static bool saved_context_is_real(const struct sw_walk *w, const struct sw_caller *c)
{
	const struct sw_arch *arch = w->arch;
	if (!sw_reg_valid(&c->regs, arch->pc) || !sw_reg_valid(&c->regs, arch->sp))
		return false;
	uint64_t sp = c->regs.v[arch->sp];
	return sp != 0 && sw_mem_find(w->snap, sp) != NULL;
}

bool sw_walk_is_signal_trampoline(const struct sw_step *st, const struct sw_caller *c)
{
	const struct sw_arch *arch = st->walk->arch;
	if (!arch->caller_of_signal_frame || !sw_reg_valid(&c->regs, arch->pc) ||
	    !sw_reg_valid(&c->regs, arch->sp))
		return false;
	struct sw_frame tramp;
	memset(&tramp, 0, sizeof tramp);
	tramp.pc = tramp.lookup_pc = c->regs.v[arch->pc];
	tramp.regs = c->regs;
	tramp.trust = SW_TRUST_PROLOGUE;
	tramp.module = tramp.unloaded_module = -1;
	struct sw_step probe = { .walk = st->walk, .callee = &tramp, .callee_callee = st->callee };
	struct sw_caller restored;
	memset(&restored, 0, sizeof restored);
	return arch->caller_of_signal_frame(&probe, &restored) == SW_UNWIND_OK &&
	       saved_context_is_real(st->walk, &restored);
}

/* The step contract: what the walker checks of every method's result
 * before it believes it (SW_REFUSED_NONE), else the first check it fails.
 * A failed check sends the walk to the next method; it never ends the
 * walk by itself. */
static enum sw_refusal implausibility(const struct sw_step *st, const struct sw_caller *c,
                                      enum sw_trust trust, bool first_unwind)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	if (!sw_reg_valid(&c->regs, arch->pc) || !sw_reg_valid(&c->regs, arch->sp))
		return SW_REFUSED_LOST_PC_SP; /* rules that lose pc or sp are no rules */
	uint64_t pc = arch->strip_code_pointer(w, c->regs.v[arch->pc]);
	uint64_t sp = c->regs.v[arch->sp];
	uint64_t callee_sp = st->callee->regs.v[arch->sp];
	/* The CPU's rule (no code in the first page, ...) is for addresses
	 * no module vouches for: firmware runs from address 0. */
	if (!arch->pc_is_plausible(pc) && sw_module_at(w->snap, pc) < 0)
		return SW_REFUSED_PC_NOT_CODE;
	/* The stack grows down on every CPU we walk: a caller's frame lies
	 * above its callee's. The first unwind may keep the same sp (a leaf
	 * that has not touched the stack), and so may a context restored from
	 * a signal frame; later ones must progress, or the walk could loop. */
	bool may_stay = first_unwind || c->restored_context || st->callee->restored_context;
	if ((may_stay ? sp < callee_sp : sp <= callee_sp) && !returns_to_another_stack(st, c))
		return SW_REFUSED_SP_NOT_GROWING;
	/* A return address on the stack itself: not code anything vouches for,
	 * unless its bytes are a sigreturn restorer's with a real signal frame
	 * at the caller's sp (qemu-user maps its restorer page right above a
	 * static program's stack, and a capture read from sp up holds it as
	 * stack; kernels without SA_RESTORER wrote the restorer on the stack). */
	if (trust != SW_TRUST_SCAN && pc_in_stack(w, pc) && !sw_walk_is_signal_trampoline(st, c))
		return SW_REFUSED_PC_ON_STACK;
	/* Nor one in a module's data, whatever found it (CFI read from a
	 * misplaced stack pointer, a stale word). */
	return pc_in_module_data(w, pc) ? SW_REFUSED_PC_IN_DATA : SW_REFUSED_NONE;
}


/* For a caller the CFI of a frame with a guessed sp gave: where the call
 * before its return address is direct and symbols name both the function
 * the call went to and the callee's, they are one function. A call that
 * ended a function (a noreturn abort) leaves the next function's entry
 * as its return address: aarch64 __libc_start_main's CFI, applied from a
 * frame record's sp, read main's address, after f7's `bl abort`. A tail
 * call between the two would make the walk shorter, never wrong. */
static bool call_names_another_function(const struct sw_walk *w, uint64_t ra,
                                        const struct sw_frame *callee)
{
	const struct sw_arch *arch = w->arch;
	uint64_t target, target_start, callee_start;
	return arch->call_target && arch->call_target(w, arch->strip_code_pointer(w, ra), &target) &&
	       sw_walk_function_start(w, target, &target_start) &&
	       sw_walk_function_start(w, callee->lookup_pc, &callee_start) &&
	       target_start != callee_start;
}

/* A caller that a frame record, a link register, a prologue's saved
 * slot or a scan gave is checked as a scanned word is: the call before
 * its return address must be able to reach the callee (another module's
 * stub, the callee's own function without recursion: no). A frame record
 * left over in x29 or rbp by code built without frame pointers, or a link
 * register kept from an earlier call, names a return address that is
 * real but not this frame's caller. CFI and signal frames say where the
 * return address is; they are not second-guessed here. */
static bool call_may_return_to(const struct sw_step *st, const struct sw_caller *c,
                               enum sw_trust trust)
{
	const struct sw_arch *arch = st->walk->arch;
	uint64_t ra = c->regs.v[arch->pc];
	/* The slot a prologue saved the return address in is read from the
	 * callee's own code, as CFI would say it: the word there is this
	 * frame's return address, whatever tail jump led into the callee. A
	 * chain of frame records is evidence of its own: each record is
	 * another pair of saved words, further up, and recursion through a
	 * pointer keeps its frames; but a record may be a caller's left in
	 * rbp or x29. A word a scan or a link register gave is only a value. */
	/* A word naming a sigreturn trampoline (no call precedes it; the
	 * handler's return address) counts only where a signal frame is
	 * really there: sigaction leaves the restorer's address on the stack
	 * too. */
	if (arch->is_signal_trampoline && arch->is_signal_trampoline(st->walk, ra))
		return sw_walk_is_signal_trampoline(st, c);
	if (trust == SW_TRUST_PROLOGUE)
		return true;
	if (trust == SW_TRUST_FRAME_POINTER)
		return call_may_enter_module(st->walk, ra, st->callee) &&
		       call_reaches_callee(st->walk, ra, st->callee) &&
		       call_may_have_run(st->walk, ra, st->callee);
	return sw_walk_call_may_reach(st->walk, ra, st->callee);
}

/* A context restored from a signal frame: its pc and sp are known, and its
 * frame lies at or above the callee's (a signal on an alternate stack
 * restores a sp on the thread's own stack, anywhere). A sp inside a
 * module's image, with a pc in no module, is a signal frame read at the
 * wrong place (a sp guessed one slot off: riscv64's live ra kept the
 * handler's sp, and the "context" had pc 0 and sp = a saved pc). A pc in
 * no module alone is a call through a bad pointer, and a sp the snapshot
 * did not capture is common (libunwindstack's signal cases). */
static bool restored_context_is_plausible(const struct sw_step *st, const struct sw_caller *c)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	if (!sw_reg_valid(&c->regs, arch->pc) || !sw_reg_valid(&c->regs, arch->sp))
		return false;
	uint64_t sp = c->regs.v[arch->sp], pc = c->regs.v[arch->pc];
	if (sw_module_at(w->snap, sp) >= 0 && sw_module_at(w->snap, pc) < 0)
		return false;
	return sp != st->callee->regs.v[arch->sp] || pc != st->callee->pc;
}

/* A frame whose stack pointer its method gave as a bound, not a value:
 * one found by a scan or a frame record on a CPU whose calls leave the
 * return address in a register (the function stores it, and its record,
 * wherever its frame layout says: AAPCS64 §6.4.6 fixes no place). Where
 * calls push it, the slot a scan or a record names is right below the
 * caller's stack pointer. */
static bool sp_only_bounded(const struct sw_arch *arch, const struct sw_frame *f)
{
	return arch->ra >= 0 && (f->trust == SW_TRUST_SCAN || f->trust == SW_TRUST_FRAME_POINTER);
}

/* How far below a frame's record its sp is sought (rules_anchored_on_record). */
enum { ANCHOR_REACH = 1024 };

/* A frame a record or a scan found has only a lower bound for its sp, and
 * rules that name sp (CFA = sp + N) read the wrong slots from it: glibc's
 * msort, reached from a stripped program's frame record 0x20 below its
 * real sp, read a stale ld.so return address for its caller. When the
 * frame keeps a record of its own (at its fp, which the record that found
 * it restored), its rules from the right sp restore exactly that record's
 * caller: the sp from which they do, sought from the record down to the
 * bound, is the frame's own, and the rules from it give every register
 * the record does not (the caller's sp among them, which the next rules
 * need). No such sp: nothing anchored, the rules are judged as they are. */
static bool rules_anchored_on_record(const struct sw_step *st, struct sw_caller *c,
                                     enum sw_trust *trust)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	const struct sw_frame *callee = st->callee;
	struct sw_caller rec;
	memset(&rec, 0, sizeof rec);
	if (!arch->caller_by_frame_pointer || !sw_reg_valid(&callee->regs, arch->sp) ||
	    !sw_reg_valid(&callee->regs, arch->fp) ||
	    arch->caller_by_frame_pointer(st, &rec) != SW_UNWIND_OK ||
	    !sw_reg_valid(&rec.regs, arch->pc) || !sw_reg_valid(&rec.regs, arch->fp))
		return false;
	uint64_t bound = callee->regs.v[arch->sp], fp = callee->regs.v[arch->fp];
	uint64_t step = 2u * arch->word_size; /* AAPCS64 §6.4.5.1: sp stays 16-aligned */
	if (fp < bound || fp - bound > ANCHOR_REACH || fp % step != 0)
		return false;
	uint64_t want_pc = arch->strip_code_pointer(w, rec.regs.v[arch->pc]);
	struct sw_frame probe = *callee;
	/* The probes leave --explain's rule text alone: the one that
	 * anchors gives it again. */
	struct sw_step at = *st;
	at.callee = &probe;
	at.explain = NULL;
	for (uint64_t sp = fp;; sp -= step) {
		struct sw_caller t;
		enum sw_trust tt;
		probe.regs.v[arch->sp] = sp;
		if (caller_by_rules(&at, &t, &tt) == SW_UNWIND_OK && !t.restored_context &&
		    sw_reg_valid(&t.regs, arch->pc) && sw_reg_valid(&t.regs, arch->fp) &&
		    arch->strip_code_pointer(w, t.regs.v[arch->pc]) == want_pc &&
		    t.regs.v[arch->fp] == rec.regs.v[arch->fp]) {
			*c = t;
			*trust = tt;
			at.explain = st->explain;
			if (at.explain)
				caller_by_rules(&at, &t, &tt);
			return true;
		}
		if (sp < bound + step)
			return false;
	}
}

enum step_result { STEP_CALLER, STEP_END };

/* What one way of finding a caller concluded: a caller it vouches for
 * (FOUND), nothing it can prove, so the next way is tried (NEXT), or a
 * definite end of the walk for the reason in end (END). find_caller alone
 * turns a result into the walk's end. */
struct caller_result {
	enum { CALLER_FOUND, CALLER_NEXT, CALLER_END } kind;
	enum sw_walk_end end; /* CALLER_END only */
	/* The method that found the caller or ended the walk (--explain). */
	enum sw_method method;
};

static struct caller_result caller_next(void)
{
	return (struct caller_result){ .kind = CALLER_NEXT };
}

static struct caller_result caller_found(enum sw_method m)
{
	return (struct caller_result){ .kind = CALLER_FOUND, .method = m };
}

static struct caller_result caller_ends(enum sw_walk_end why, enum sw_method m)
{
	return (struct caller_result){ .kind = CALLER_END, .end = why, .method = m };
}

/* --explain: method m answered `why` for this step. Out of the walk's
 * way (cold): a walk without --explain only tests the pointer. */
/* v (n used of *cap elements of `size`) with room for one more, doubled
 * when full; NULL (x->failed set, v left as it was) without memory. */
static void *explain_room(struct sw_explain *x, void *v, uint32_t n, uint32_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	uint32_t want = *cap ? *cap * 2 : 64;
	void *grown = realloc(v, (size_t)want * size);
	if (!grown) {
		x->failed = true;
		return NULL;
	}
	*cap = want;
	return grown;
}

__attribute__((cold)) static void record_attempt(struct sw_explain *x, enum sw_method m,
                                                 enum sw_refusal why)
{
	struct sw_attempt *att = explain_room(x, x->att, x->natt, &x->att_cap, sizeof *att);
	if (att) {
		x->att = att;
		att[x->natt++] = (struct sw_attempt){ (uint8_t)m, (uint8_t)why };
	}
}

static inline void tried(const struct sw_step *st, enum sw_method m, enum sw_refusal why)
{
	if (st->explain)
		record_attempt(st->explain, m, why);
}

/* A method whose answer was no caller the walk believes: the next tries. */
static struct caller_result refused(const struct sw_step *st, enum sw_method m,
                                    enum sw_refusal why)
{
	tried(st, m, why);
	return caller_next();
}

/* A method that says the walk ends here, for reason `why`. */
static struct caller_result ended_by(const struct sw_step *st, enum sw_method m,
                                     enum sw_walk_end why)
{
	tried(st, m, SW_REFUSED_ENDS_WALK);
	return caller_ends(why, m);
}

/* What a hook's status says when it gave no caller. */
static enum sw_refusal refusal_of(enum sw_unwind_status s)
{
	return s == SW_UNWIND_FAILED ? SW_REFUSED_FAILED : SW_REFUSED_NO_RULE;
}

/* A caller whose pc a rule found to be an exception's return (Cortex-M's
 * EXC_RETURN in lr) is the context the exception interrupted, trusted as
 * a restored context (FOUND by SW_METHOD_EXCEPTION_FRAME); a frame of it
 * that cannot be read leaves no caller from that rule (NEXT), or ends the
 * walk (END: the hook knows the frame is there but not where, or that it
 * fails its checks). An ordinary caller is FOUND with SW_METHOD_NONE: the
 * rule's own method vouches for it. */
static struct caller_result unstack_exception(const struct sw_step *st, struct sw_caller *c,
                                             enum sw_trust *trust);

static inline struct caller_result caller_of_exception(const struct sw_step *st,
                                                       struct sw_caller *c, enum sw_trust *trust)
{
	return st->walk->arch->caller_of_exception ? unstack_exception(st, c, trust)
	                                           : caller_found(SW_METHOD_NONE);
}

static struct caller_result unstack_exception(const struct sw_step *st, struct sw_caller *c,
                                             enum sw_trust *trust)
{
	const struct sw_arch *arch = st->walk->arch;
	uint64_t exc_return = c->regs.v[arch->pc], frame = c->regs.v[arch->sp];
	enum sw_unwind_status s = arch->caller_of_exception(st, c);
	if (s == SW_UNWIND_NO_RULE)
		return caller_found(SW_METHOD_NONE);
	/* An exception frame that cannot be unstacked ends the walk: past
	 * it a scan would take its stacked lr for a caller of the handler. */
	if (s == SW_UNWIND_END)
		return ended_by(st, SW_METHOD_EXCEPTION_FRAME, SW_END_NO_CALLER);
	if (s != SW_UNWIND_OK)
		return refused(st, SW_METHOD_EXCEPTION_FRAME, SW_REFUSED_FAILED);
	*trust = SW_TRUST_CONTEXT;
	if (st->explain) {
		st->explain->exc_return = exc_return;
		st->explain->exc_frame = frame;
	}
	return caller_found(SW_METHOD_EXCEPTION_FRAME);
}

static bool scan_limit_reached(const struct sw_walk *w)
{
	uint32_t cap = w->opt.max_scanned ? w->opt.max_scanned : SW_MAX_SCANNED_FRAMES;
	return w->scanned >= cap;
}

typedef enum sw_unwind_status (*caller_method)(const struct sw_step *s, struct sw_caller *out);

/* --no-scan, or the thread had its share of scanned frames. */
static bool scan_disabled(const struct sw_step *st)
{
	return st->walk->opt.no_scan || scan_limit_reached(st->walk);
}

static enum sw_unwind_status scan_method(const struct sw_step *st, struct sw_caller *out)
{
	const struct sw_walk *w = st->walk;
	if (w->arch->caller_by_scan)
		return w->arch->caller_by_scan(st, out);
	return sw_walk_caller_by_scan(st, NULL, out);
}

/* A live context (frame 0, a restored signal context) whose pc is in no
 * module called through a bad pointer (NULL, freed code): nothing ran at
 * pc, so the call's return address is still where the call left it, at
 * [sp] on CPUs whose calls push it, in the link register on the others.
 * The caller has every register but pc (and sp, which the call moved on
 * CPUs that push). */
static enum sw_unwind_status caller_of_bad_pc(const struct sw_step *st, struct sw_caller *out)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	const struct sw_frame *callee = st->callee;
	if (sw_module_at(w->snap, callee->pc) >= 0 || !sw_reg_valid(&callee->regs, arch->sp))
		return SW_UNWIND_NO_RULE;
	/* Control may also have reached pc by a jump or a return through a
	 * smashed stack, which leave no return address: the candidate counts
	 * only when the code before it is a call. Except at pc 0, which only a
	 * call through a NULL function pointer reaches in practice (a return
	 * to 0 needs a 0 where a return address should be): there the
	 * candidate needs the scan's checks alone, as code files are not
	 * always at hand. */
	uint64_t sp = callee->regs.v[arch->sp], ra;
	bool pushed = arch->ra < 0;
	if (pushed ? !sw_walk_read_word(w, sp, &ra)
	           : !sw_reg_valid(&callee->regs, (unsigned)arch->ra))
		return SW_UNWIND_NO_RULE;
	if (!pushed)
		ra = callee->regs.v[arch->ra];
	if (!return_address_checked(w, ra, callee->pc != 0))
		return SW_UNWIND_NO_RULE;
	memset(out, 0, sizeof *out);
	out->regs = callee->regs;
	sw_reg_set(&out->regs, arch->pc, ra);
	sw_reg_set(&out->regs, arch->sp, pushed ? sp + arch->word_size : sp);
	return SW_UNWIND_OK;
}

/* Was the callee's frame found by a rule that guesses its stack pointer
 * (a scanned slot, a frame record: i386 main realigns its stack below the
 * record) rather than computing it (context, CFI, decoded prologue)? Its
 * own CFI then reads slots that may be wrong: a caller it gives must also
 * be a return address, after a call in a module's code, or the rule
 * failed and the next methods go on. */
static bool registers_inferred(const struct sw_frame *callee)
{
	return !callee->restored_context &&
	       (callee->trust == SW_TRUST_SCAN || callee->trust == SW_TRUST_CFI_SCAN ||
	        callee->trust == SW_TRUST_FRAME_POINTER);
}

/* A sigreturn trampoline's caller is the interrupted context itself;
 * when its code says so, no other rule is asked. Its pc is whatever
 * the thread was executing, 0 included (a call through a NULL
 * pointer), so only the stack is checked; a signal frame that is not
 * above the callee falls through to the rules. A frame the hook knows
 * to hold a saved context it cannot read (END: a firmware trap entry
 * whose frame fails its checks) ends the walk: past it a scan would
 * read a saved context's words as return addresses. */
static struct caller_result caller_from_signal_frame(const struct sw_step *st,
                                                     struct sw_caller *c, enum sw_trust *trust)
{
	const struct sw_arch *arch = st->walk->arch;
	if (!arch->caller_of_signal_frame)
		return caller_next();
	enum sw_unwind_status s = arch->caller_of_signal_frame(st, c);
	if (s == SW_UNWIND_END)
		return ended_by(st, SW_METHOD_SIGNAL_FRAME, SW_END_NO_CALLER);
	/* Every frame is asked whether it is a trampoline: a "no" is no
	 * evidence worth listing. */
	if (s == SW_UNWIND_NO_RULE)
		return caller_next();
	if (s != SW_UNWIND_OK)
		return refused(st, SW_METHOD_SIGNAL_FRAME, SW_REFUSED_FAILED);
	if (!restored_context_is_plausible(st, c))
		return refused(st, SW_METHOD_SIGNAL_FRAME, SW_REFUSED_CONTEXT_IMPLAUSIBLE);
	c->restored_context = true;
	*trust = SW_TRUST_CONTEXT;
	return caller_found(SW_METHOD_SIGNAL_FRAME);
}

/* A CFI rule giving a NULL return address with a sane stack is an
 * intact chain's end (thread entries push 0; the first unwind may
 * keep sp: a thread stopped at its entry with ra 0, as a FreeRTOS
 * task that never ran is saved). */
static bool rules_reach_null_return(const struct sw_step *st, const struct sw_caller *c,
                                    bool first_unwind)
{
	const struct sw_arch *arch = st->walk->arch;
	/* Only for a frame the walk trusts: a scanned frame's pc may be a
	 * stale return address, whose rules read the wrong slots, where a
	 * zero proves nothing (a failed rule: the next methods go on). */
	uint64_t csp = c->regs.v[arch->sp], sp0 = st->callee->regs.v[arch->sp];
	bool scanned = st->callee->trust == SW_TRUST_SCAN || st->callee->trust == SW_TRUST_CFI_SCAN;
	return sw_reg_valid(&c->regs, arch->pc) && sw_reg_valid(&c->regs, arch->sp) && !scanned &&
	       c->regs.v[arch->pc] == 0 && (csp > sp0 || (first_unwind && csp == sp0));
}

/* An ordinary caller the rules gave (no restored context). A NULL return
 * address ends the walk (rules_reach_null_return); an implausible caller
 * is a failed rule for this step: the frame pointer, prologue and a
 * validated scan still get their turn from the callee's frame (a rule
 * computing a stack address past _start, JIT code, a wrong .sym), unless
 * the callee is a known outermost function, where the walk ends. */
static struct caller_result judge_rules_caller(const struct sw_step *st, bool first_unwind,
                                               const struct sw_caller *c, enum sw_trust trust,
                                               bool anchored)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	if (rules_reach_null_return(st, c, first_unwind))
		return ended_by(st, SW_METHOD_CFI, SW_END_NULL_RETURN);
	enum sw_refusal why = implausibility(st, c, trust, first_unwind);
	/* From a guessed sp the rules may read any word: one naming a
	 * sigreturn trampoline counts only above a real signal frame, as a
	 * scanned one does (sigaction leaves the restorer on the stack). */
	uint64_t pc = c->regs.v[arch->pc];
	if (!why && registers_inferred(st->callee) &&
	    (!sw_walk_is_return_address(w, pc) ||
	     (arch->is_signal_trampoline && arch->is_signal_trampoline(w, pc) &&
	      !sw_walk_is_signal_trampoline(st, c))))
		why = SW_REFUSED_NOT_RETURN_ADDRESS;
	/* On CPUs with a link register the sp of a frame found by a scan
	 * or a record is only a lower bound, and rules applied from it
	 * read whatever lies at the offsets they name (glibc's
	 * __libc_start_main, CFA = sp + 96, read main's address there):
	 * where the callee's code is at hand, code bytes must show a
	 * call right before the return address. */
	uint8_t code;
	if (!why && sp_only_bounded(arch, st->callee) && !anchored) {
		if (sw_walk_read(w, st->callee->lookup_pc, &code, 1) &&
		    !sw_walk_follows_proven_call(w, c->regs.v[arch->pc]))
			why = SW_REFUSED_NO_CALL_BEFORE;
		else if (call_names_another_function(w, c->regs.v[arch->pc], st->callee))
			why = SW_REFUSED_CALL_ELSEWHERE;
	}
	if (!why) {
		if (st->explain)
			st->explain->anchored = anchored;
		return caller_found(SW_METHOD_CFI);
	}
	/* Implausible: at a function nothing calls the walk ends (a scan
	 * would read what lies above it); elsewhere the next methods try. */
	tried(st, SW_METHOD_CFI, why);
	return is_outermost_function(st->callee->function)
	               ? caller_ends(SW_END_OUTERMOST, SW_METHOD_PROGRAM_ENTRY)
	               : caller_next();
}

/* The caller by the callee's own rules (CFI, STACK WIN), anchored on its
 * frame record where its sp is only a lower bound. */
static struct caller_result caller_from_rules(const struct sw_step *st, bool first_unwind,
                                              struct sw_caller *c, enum sw_trust *trust)
{
	enum sw_unwind_status s = caller_by_rules(st, c, trust);
	/* Only rules that answered (a function without any has none to
	 * anchor, and the search would cost a record step per frame). */
	bool anchored = (s == SW_UNWIND_FAILED || (s == SW_UNWIND_OK && !c->restored_context)) &&
	                sp_only_bounded(st->walk->arch, st->callee) &&
	                rules_anchored_on_record(st, c, trust);
	if (anchored)
		s = SW_UNWIND_OK;
	/* Rules that say "no caller" (an undefined return address): the
	 * outermost frame. */
	if (s == SW_UNWIND_END)
		return ended_by(st, SW_METHOD_CFI, SW_END_OUTERMOST);
	if (s != SW_UNWIND_OK)
		return refused(st, SW_METHOD_CFI, refusal_of(s));
	struct caller_result r = caller_of_exception(st, c, trust);
	if (r.kind != CALLER_FOUND || r.method == SW_METHOD_EXCEPTION_FRAME)
		return r;
	/* Rules that describe a signal frame (CIE augmentation 'S')
	 * restore an interrupted context, judged as the trampoline's. */
	if (c->restored_context)
		return restored_context_is_plausible(st, c)
		               ? caller_found(SW_METHOD_CFI)
		               : refused(st, SW_METHOD_CFI, SW_REFUSED_CONTEXT_IMPLAUSIBLE);
	return judge_rules_caller(st, first_unwind, c, *trust, anchored);
}

/* A row of the table of methods that need no unwind rules. */
struct caller_method_row {
	caller_method method;
	enum sw_trust trust;
	bool context_only; /* only for a frame with a live context */
	enum sw_method name;
	bool (*disabled)(const struct sw_step *st); /* NULL: never */
};

/* One method of the table. Its END is an intact chain ending in NULL;
 * an exception return it leads to that cannot be unstacked ends the walk
 * as after the rules; a caller that fails the checks leaves the next
 * method its turn. */
static struct caller_result caller_by_method(struct sw_step *st,
                                             const struct caller_method_row *m,
                                             bool first_unwind, struct sw_caller *c,
                                             enum sw_trust *trust)
{
	memset(c, 0, sizeof *c);
	if (m->disabled && m->disabled(st))
		return refused(st, m->name, SW_REFUSED_DISABLED);
	enum sw_unwind_status s = m->method(st, c);
	if (s == SW_UNWIND_END)
		return ended_by(st, m->name, SW_END_NULL_RETURN);
	/* A frame record that is there but names no code is a broken
	 * chain: a scan from it must prove its candidate by the code
	 * bytes, not by Breakpad's rule alone, or it would walk on
	 * through whatever the stack holds (microdumps hold no code). */
	if (s == SW_UNWIND_FAILED && m->trust == SW_TRUST_FRAME_POINTER)
		st->scan_needs_code = true;
	if (s != SW_UNWIND_OK)
		return refused(st, m->name, refusal_of(s));
	*trust = m->trust;
	struct caller_result r = caller_of_exception(st, c, trust);
	if (r.kind != CALLER_FOUND || r.method == SW_METHOD_EXCEPTION_FRAME)
		return r;
	/* A caller that fails the checks: the next method tries. */
	enum sw_refusal why = c->restored_context
	                              ? (restored_context_is_plausible(st, c)
	                                         ? SW_REFUSED_NONE
	                                         : SW_REFUSED_CONTEXT_IMPLAUSIBLE)
	                              : implausibility(st, c, *trust, first_unwind);
	if (!why && !c->restored_context && !call_may_return_to(st, c, *trust))
		why = SW_REFUSED_CALL_ELSEWHERE;
	return why ? refused(st, m->name, why) : caller_found(m->name);
}

/* The methods that need no unwind rules, in the order they are tried;
 * the first that vouches for a caller or ends the walk decides. */
static struct caller_result caller_from_methods(struct sw_step *st, bool first_unwind,
                                                struct sw_caller *c, enum sw_trust *trust)
{
	const struct sw_arch *arch = st->walk->arch;
	const struct caller_method_row methods[] = {
		{ caller_of_bad_pc, SW_TRUST_LEAF, true, SW_METHOD_BAD_PC, NULL },
		{ arch->caller_of_leaf, SW_TRUST_LEAF, true, SW_METHOD_LEAF, NULL },
		{ arch->caller_by_frame_pointer, SW_TRUST_FRAME_POINTER, false,
		  SW_METHOD_FRAME_POINTER, NULL },
		{ arch->caller_by_prologue, SW_TRUST_PROLOGUE, false, SW_METHOD_PROLOGUE, NULL },
		{ scan_method, SW_TRUST_SCAN, false, SW_METHOD_SCAN, scan_disabled },
	};
	struct caller_result r = caller_next();
	for (size_t i = 0; r.kind == CALLER_NEXT && i < sizeof methods / sizeof methods[0]; i++)
		if (methods[i].method &&
		    (!methods[i].context_only || sw_frame_has_live_context(st->callee)))
			r = caller_by_method(st, &methods[i], first_unwind, c, trust);
	return r;
}

/* How far below a caller's sp --explain looks for the slot its return
 * address was read from. */
enum { EXPLAIN_SLOT_REACH = 64 * 1024 };

/* --explain: where the caller's return address came from, the link
 * register or a stack slot of the callee's frame (the highest holding
 * it, below the caller's sp), for the methods that read one. */
static void locate_return_address(const struct sw_step *st, const struct sw_caller *c,
                                  struct sw_evidence *e)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	const struct sw_frame *callee = st->callee;
	uint64_t raw = c->regs.v[arch->pc], word;
	if (arch->ra >= 0 && sw_frame_has_live_context(callee) &&
	    sw_reg_valid(&callee->regs, (unsigned)arch->ra) && callee->regs.v[arch->ra] == raw) {
		e->ra_in_register = true;
		return;
	}
	if (!sw_reg_valid(&callee->regs, arch->sp))
		return;
	uint64_t top = c->regs.v[arch->sp], bottom = callee->regs.v[arch->sp];
	for (uint64_t off = arch->word_size; off <= EXPLAIN_SLOT_REACH && off <= top - bottom &&
	                                     top >= bottom;
	     off += arch->word_size)
		if (sw_walk_read_word(w, top - off, &word) && word == raw) {
			e->ra_slot = top - off;
			return;
		}
}

/* --explain: the call before the caller's return address, as decoded. */
static void describe_call(const struct sw_walk *w, uint64_t raw, struct sw_evidence *e)
{
	const struct sw_arch *arch = w->arch;
	bool known = false;
	if (arch->call_precedes) {
		bool decoded = arch->call_precedes(w, raw, &known);
		e->call_known = known;
		e->call_decoded = known && decoded;
	}
	uint64_t target;
	if (arch->call_target && arch->call_target(w, raw, &target)) {
		e->call_direct = true;
		e->call_target = target;
	}
}

/* --explain: what the method that found caller c read, and the methods
 * refused before it, kept as the caller's evidence. Describing reads code
 * and asks symbols: it must leave the walk as it found it (the budget of
 * code reads, the hooks' memo), or explaining would change what it
 * explains. */
__attribute__((cold)) static void describe_caller(const struct sw_step *st,
                                                  const struct sw_caller *c,
                                                  const struct caller_result *r,
                                                  enum sw_trust trust)
{
	struct sw_explain *x = st->explain;
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	const struct sw_frame *callee = st->callee;
	struct sw_evidence e = {
		.method = r->method,
		.anchored = r->method == SW_METHOD_CFI && x->anchored,
		.cfi_scan = trust == SW_TRUST_CFI_SCAN,
		.restores_context = c && c->restored_context,
		.first_attempt = x->step_first,
		.nattempts = x->natt - x->step_first,
	};
	struct sw_walk_budget budget = { 0 };
	struct sw_walk_memo memo = { 0 };
	if (w->budget)
		budget = *w->budget;
	if (w->memo)
		memo = *w->memo;
	if (sw_method_reads_call(r->method)) {
		locate_return_address(st, c, &e);
		describe_call(w, c->regs.v[arch->pc], &e);
		if (r->method == SW_METHOD_FRAME_POINTER && sw_reg_valid(&callee->regs, arch->fp) &&
		    !e.ra_in_register)
			e.where = callee->regs.v[arch->fp];
		if (r->method == SW_METHOD_SCAN)
			e.where = e.ra_slot;
		e.function_start = c->decoded_from;
		if (r->method == SW_METHOD_PROLOGUE && !e.function_start &&
		    !sw_walk_function_start(w, sw_frame_code_pc(callee), &e.function_start))
			e.function_start = 0;
	} else if (r->method == SW_METHOD_EXCEPTION_FRAME) {
		e.where = x->exc_frame;
		e.exc_return = x->exc_return;
	} else if (r->method == SW_METHOD_SIGNAL_FRAME) {
		e.where = callee->regs.v[arch->sp];
	} else if (r->method == SW_METHOD_CFI) {
		if (!c->restored_context)
			locate_return_address(st, c, &e);
		if (x->rule[0]) {
			e.rule = sw_arena_strdup(w->arena, x->rule);
			e.rule_module = sw_module_at(w->snap, callee->lookup_pc);
		}
	}
	if (w->budget)
		*w->budget = budget;
	if (w->memo)
		*w->memo = memo;
	struct sw_evidence *ev = explain_room(x, x->ev, x->nev, &x->ev_cap, sizeof *ev);
	if (ev) {
		x->ev = ev;
		ev[x->nev++] = e;
	}
}

/* Finds the caller of the last physical frame: the signal frame, then the
 * callee's rules, then the methods that need none; the first that vouches
 * for a caller wins. Each one says itself when the walk ends there and
 * why (caller_result); here, the one place, that becomes the walk's end. */
/* *dex_pc: the DEX pc the callee's CFI named (an ART interpreter frame's
 * Java method), 0 when none. */
static enum step_result find_caller(struct sw_step *st, bool first_unwind,
                                    struct sw_frame *caller, uint64_t *dex_pc,
                                    enum sw_walk_end *end)
{
	const struct sw_walk *w = st->walk;
	const struct sw_arch *arch = w->arch;
	struct sw_caller c;
	enum sw_trust trust = SW_TRUST_NONE;
	struct caller_result r = caller_next();

	memset(caller, 0, sizeof *caller);
	*dex_pc = 0;
	/* Nothing calls a program's entry: the walk ends there. */
	if (is_program_entry(st->callee->function))
		r = ended_by(st, SW_METHOD_PROGRAM_ENTRY, SW_END_OUTERMOST);
	if (r.kind == CALLER_NEXT)
		r = caller_from_signal_frame(st, &c, &trust);
	if (r.kind == CALLER_NEXT)
		r = caller_from_rules(st, first_unwind, &c, &trust);
	if (r.kind == CALLER_NEXT)
		r = caller_from_methods(st, first_unwind, &c, &trust);
	/* No method vouched for a caller: say so when the cap, not the
	 * evidence, stopped the walk. */
	if (r.kind == CALLER_NEXT)
		r = caller_ends(!w->opt.no_scan && scan_limit_reached(w) ? SW_END_SCAN_LIMIT
		                                                         : SW_END_NO_CALLER,
		                SW_METHOD_NONE);
	if (r.kind == CALLER_END) {
		*end = r.end;
		return STEP_END;
	}
	if (st->explain)
		describe_caller(st, &c, &r, trust);

	uint64_t pc = arch->strip_code_pointer(w, c.regs.v[arch->pc]);
	c.regs.v[arch->pc] = pc;
	caller->pc = pc;
	/* A restored context was executing at pc, not returning to it. */
	caller->lookup_pc = c.restored_context ? pc : arch->call_site(pc);
	caller->regs = c.regs;
	caller->trust = trust;
	caller->restored_context = c.restored_context;
	caller->sp_exact = c.sp_exact;
	caller->module = -1;
	caller->unloaded_module = -1;
	if (r.method == SW_METHOD_CFI)
		*dex_pc = c.dex_pc;
	return STEP_CALLER;
}

/* A .dex file's bytes from the snapshot's memory: its mapping's. */
struct dex_bytes {
	const struct sw_snapshot *snap;
	uint64_t start, size;
};

static bool read_dex(void *ctx, uint64_t off, void *out, size_t n)
{
	const struct dex_bytes *d = ctx;
	return off <= d->size && n <= d->size - off && sw_mem_peek(d->snap, d->start + off, out, n);
}

/* Appends the Java frame an ART interpreter frame was running: its pc is
 * the DEX pc, in the .dex file's mapping (outputs name it by the mapping,
 * as libunwindstack's FillInDexFrame does; the .dex is no module). Where
 * the snapshot holds the file's bytes, the method is named. */
static bool append_dex_frame(const struct sw_walk *w, struct sw_frame_list *l, uint64_t dex_pc)
{
	struct sw_frame *f = push_frame(l);
	if (!f)
		return false;
	f->pc = dex_pc;
	f->lookup_pc = dex_pc;
	f->trust = SW_TRUST_DEX;
	const struct sw_mapping *m = sw_mapping_at(w->snap, dex_pc);
	struct sw_dex_method method;
	struct dex_bytes bytes = { w->snap, m ? m->start : 0, m ? m->end - m->start : 0 };
	if (m && sw_dex_method_at(read_dex, &bytes, dex_pc - m->start, w->arena, &method)) {
		f->function = method.name;
		f->function_base = m->start + method.code_offset;
	}
	return true;
}

static void stack_bounds(struct sw_walk *w, const struct sw_thread *t, uint64_t sp)
{
	w->stack_lo = w->stack_hi = 0;
	/* A hostile size must not wrap the end around to below the base. */
	uint64_t end = t->stack_size > UINT64_MAX - t->stack_base ? UINT64_MAX
	                                                         : t->stack_base + t->stack_size;
	/* The thread's stack, unless it was stopped on another one: a
	 * Cortex-M exception handler runs on the main stack while the thread's
	 * is the process stack (the walk follows the switch back). */
	if (t->stack_size && (sp - t->stack_base < t->stack_size || !sw_mem_find(w->snap, sp))) {
		w->stack_lo = t->stack_base;
		w->stack_hi = end;
		return;
	}
	const struct sw_mem_region *r = sw_mem_find(w->snap, sp);
	if (r) {
		w->stack_lo = r->base;
		w->stack_hi = r->base + r->size;
	}
}

/* After a signal frame restored a sp outside the stack walked so far (the
 * handler ran on an alternate stack), the walk reads the stack it returned
 * to: the captured region holding the new sp. */
static void follow_stack_switch(struct sw_walk *w, uint64_t sp)
{
	if (sp >= w->stack_lo && sp < w->stack_hi)
		return;
	const struct sw_mem_region *r = sw_mem_find(w->snap, sp);
	if (!r)
		return;
	w->stack_lo = r->base;
	w->stack_hi = r->base + r->size;
}

void sw_frame_list_free(struct sw_frame_list *l)
{
	free(l->v);
	free(l->x.ev);
	free(l->x.att);
}

/* --explain: the evidence kept during the walk, one per frame of out
 * (inline frames: SW_METHOD_INLINE), and the attempts, into the arena. */
static bool store_evidence(struct sw_walk *w, const struct sw_frame_list *l,
                           struct sw_stack *out)
{
	const struct sw_explain *x = &l->x;
	if (x->failed)
		return false;
	struct sw_evidence *ev = l->n ? sw_arena_array(w->arena, l->n, sizeof *ev) : NULL;
	struct sw_attempt *att = x->natt ? sw_arena_array(w->arena, x->natt, sizeof *att) : NULL;
	if ((l->n && !ev) || (x->natt && !att))
		return false;
	if (x->natt)
		memcpy(att, x->att, x->natt * sizeof *att);
	for (uint32_t i = 0, p = 0; i < l->n; i++) {
		memset(&ev[i], 0, sizeof ev[i]);
		if (l->v[i].trust == SW_TRUST_INLINE)
			ev[i].method = SW_METHOD_INLINE;
		else if (l->v[i].trust == SW_TRUST_DEX)
			ev[i].method = SW_METHOD_DEX_PC;
		else if (p < x->nev)
			ev[i] = x->ev[p++];
	}
	out->evidence = ev;
	out->attempts = att;
	out->nattempts = x->natt;
	out->end_first_attempt = x->step_first;
	out->end_nattempts = x->natt - x->step_first;
	return true;
}

/* The crashing instruction's bytes and the code after it (struct
 * sw_stack.crash_code), from the one source that holds pc. */
static void read_crash_code(const struct sw_walk *w, uint64_t pc, struct sw_stack *out)
{
	uint8_t buf[2 * sizeof out->crash_code];
	uint64_t base;
	uint32_t len;
	if (!sw_walk_read_window(w, pc, 1, buf, sizeof buf, &base, &len) || pc < base ||
	    pc - base >= len)
		return;
	size_t n = len - (size_t)(pc - base);
	if (n > sizeof out->crash_code)
		n = sizeof out->crash_code;
	memcpy(out->crash_code, buf + (pc - base), n);
	out->crash_code_len = (uint8_t)n;
}

bool sw_walk_thread(struct sw_walk *w, uint32_t index, bool crashed, struct sw_frame_list *l,
                        struct sw_stack *out)
{
	const struct sw_snapshot *s = w->snap;
	const struct sw_thread *t = &s->threads[index];
	const struct sw_arch *arch = w->arch;
	w->thread = t;
	l->n = 0;
	w->scanned = 0;
	struct sw_explain *explain = w->opt.explain ? &l->x : NULL;
	l->x.nev = l->x.natt = l->x.step_first = 0;
	l->x.failed = false;

	memset(out, 0, sizeof *out);
	out->thread = index;

	const struct sw_regs *ctx = &t->ctx;
	if (crashed && s->crash.ctx.valid) {
		ctx = &s->crash.ctx;
		out->used_crash_context = true;
	}
	if (!arch || !sw_reg_valid(ctx, arch->pc))
		return true;
	out->arch = arch;

	struct sw_frame frame;
	memset(&frame, 0, sizeof frame);
	frame.pc = ctx->v[arch->pc];
	/* A context pc that carries a pointer-authentication signature (a
	 * signed pointer branched to, as libunwindstack's pauth test shows)
	 * names no code as it is; without the signature it may. */
	if (sw_module_at(s, frame.pc) < 0 &&
	    sw_module_at(s, arch->strip_code_pointer(w, frame.pc)) >= 0)
		frame.pc = arch->strip_code_pointer(w, frame.pc);
	/* Frame 0 was executing at pc, not returning to it. */
	frame.lookup_pc = frame.pc;
	frame.regs = *ctx;
	frame.trust = SW_TRUST_CONTEXT;
	stack_bounds(w, t, sw_reg_get(ctx, arch->sp));
	if (crashed)
		read_crash_code(w, frame.pc, out);
	if (explain) {
		struct sw_step first = { .walk = w, .callee = &frame, .explain = explain };
		struct caller_result context = caller_found(SW_METHOD_CONTEXT);
		describe_caller(&first, NULL, &context, SW_TRUST_CONTEXT);
	}

	uint32_t max = w->opt.max_frames ? w->opt.max_frames : SW_DEFAULT_MAX_FRAMES;
	uint32_t physical = 0;
	int32_t prev_index = -1; /* the previous physical frame in l */
	for (;;) {
		if (!append_symbolized(w, l, &frame)) {
			out->end = SW_END_ERROR;
			return false;
		}
		int32_t cur_index = (int32_t)l->n - 1;
		physical++;
		if (frame.trust == SW_TRUST_SCAN)
			w->scanned++;
		if (physical >= max) {
			out->end = SW_END_FRAME_LIMIT;
			break;
		}
		if (w->budget->frames == 0) {
			out->end = SW_END_FRAME_BUDGET;
			break;
		}
		w->budget->frames--;
		if (!sw_reg_valid(&l->v[cur_index].regs, arch->sp)) {
			out->end = SW_END_NO_CALLER;
			break;
		}
		struct sw_frame caller;
		struct sw_step step = {
			.walk = w,
			.callee = &l->v[cur_index],
			.callee_callee = prev_index >= 0 ? &l->v[prev_index] : NULL,
			.explain = explain,
		};
		if (explain) {
			explain->step_first = explain->natt;
			explain->anchored = false;
		}
		w->budget->code_ran_out = false;
		uint64_t dex_pc;
		enum step_result found =
		        find_caller(&step, physical == 1, &caller, &dex_pc, &out->end);
		if (w->budget->code_ran_out) {
			out->end = SW_END_FRAME_BUDGET;
			break;
		}
		if (found == STEP_END)
			break;
		if (caller.restored_context && !sw_frame_has_live_context(&l->v[cur_index]) &&
		    l->v[cur_index].lookup_pc != l->v[cur_index].pc) {
			/* The frame whose caller is a restored signal context is
			 * the sigreturn trampoline: its pc is where the handler
			 * returned to, the trampoline's first instruction, not the
			 * address after a call. Named again at the pc itself. */
			struct sw_frame tramp = l->v[cur_index];
			l->n = (uint32_t)cur_index - tramp.ninlines;
			tramp.lookup_pc = tramp.pc;
			tramp.function = NULL;
			tramp.file = NULL;
			tramp.line = 0;
			tramp.ninlines = 0;
			if (!append_symbolized(w, l, &tramp)) {
				out->end = SW_END_ERROR;
				return false;
			}
			cur_index = (int32_t)l->n - 1;
		}
		if (dex_pc && !append_dex_frame(w, l, dex_pc)) {
			out->end = SW_END_ERROR;
			return false;
		}
		prev_index = cur_index;
		frame = caller;
		if (explain) {
			explain->step_first = explain->natt;
			explain->anchored = false;
		}
		if (caller.restored_context)
			follow_stack_switch(w, caller.regs.v[arch->sp]);
	}
	out->truncated = out->end == SW_END_FRAME_LIMIT || out->end == SW_END_FRAME_BUDGET ||
	                 out->end == SW_END_SCAN_LIMIT;
	out->scanned = w->scanned;
	if (l->n) {
		out->frames = sw_arena_array(w->arena, l->n, sizeof *out->frames);
		bool stored = out->frames != NULL;
		for (uint32_t i = 0; stored && i < l->n; i++)
			stored = sw_stack_frame_store(&l->v[i], w->arena, &out->frames[i]);
		if (!stored) {
			out->frames = NULL;
			out->end = SW_END_ERROR;
			return false;
		}
	}
	out->nframes = l->n;
	if (explain && !store_evidence(w, l, out)) {
		out->end = SW_END_ERROR;
		return false;
	}
	return true;
}
