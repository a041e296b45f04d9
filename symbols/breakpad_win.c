/* STACK WIN: x86 Windows frame data (MSVC FPO_DATA and FRAME_DATA), with the
 * semantics of Breakpad's StackwalkerX86::GetCallerByWindowsFrameInfo.
 *
 * A record gives sizes (callee-popped parameters, saved registers, locals)
 * and either a program string or, for FPO, whether the function allocates
 * a base pointer. The caller's registers come from running the program over
 * a dictionary that holds the callee's $ebp/$esp/$ebx and the sizes:
 *
 *   .raSearchStart = %esp + callee's callee params + locals + saved regs
 *
 * (where the return address should sit). Since that guess is often a few
 * words off, the stack is scanned for a return address where the program
 * fails or yields an eip outside every module. */
#include "breakpad_sym_internal.h"

#include <stdio.h>

#include "lib/arch.h"
#include "lib/walker.h"
#include "postfix.h"

enum {
	WIN_FPO = 0,
	WIN_FRAME_DATA = 4,
	/* Breakpad's kRASearchWords; four times as many for the context frame.
	 * (sw_walk_scan_for_return_address looks at one word more, as Breakpad.) */
	RA_SEARCH_WORDS = 40,
};

struct win_info {
	uint32_t type;
	uint32_t params, saved_regs, locals;
	bool has_program;
	bool allocates_base_pointer;
	const char *program;
	size_t program_len;
};

/* The record's line is p .. e. */
static bool parse_win(const char *p, const char *e, struct win_info *w)
{
	if (e - p < 10)
		return false;
	p = bsym_skip_spaces(p + 6, e); /* "STACK " */
	p = bsym_skip_spaces(p + 4, e); /* "WIN " */
	uint64_t v[10];
	for (int i = 0; i < 10; i++)
		if (!bsym_hex(&p, e, &v[i]))
			return false;
	if (p >= e)
		return false;
	w->type = (uint32_t)v[0];
	w->params = (uint32_t)v[5];
	w->saved_regs = (uint32_t)v[6];
	w->locals = (uint32_t)v[7];
	w->has_program = v[9] != 0;
	w->program = NULL;
	w->program_len = 0;
	w->allocates_base_pointer = false;
	if (w->has_program) {
		w->program = p;
		w->program_len = (size_t)(e - p);
	} else {
		uint64_t abp;
		const char *q = p;
		while (q < e && *q != ' ')
			q++;
		if (!bsym_hex(&p, q, &abp))
			return false;
		w->allocates_base_pointer = abp != 0;
	}
	return true;
}

/* The parameter size of the callee's callee, which is still on the stack
 * under the callee's frame (stdcall callees pop theirs only on return). */
static uint32_t callee_callee_params(const struct sw_unwind_env *env)
{
	const struct sw_frame *cc = env->callee_callee;
	if (!cc)
		return 0;
	int32_t mod;
	const struct sw_module_symbols *ms = sw_walk_symbols_at(env->walk, cc->lookup_pc, &mod);
	if (!ms || ms->ops != &sw_bsym_ops || mod < 0 ||
	    (uint32_t)mod >= env->walk->snap->nmodules)
		return 0;
	const struct sw_module *m = &env->walk->snap->modules[mod];
	uint32_t size;
	if (!sw_bsym_frame_param_size(ms->self, cc->lookup_pc - m->base - m->load_bias, &size))
		return 0;
	return size;
}

static bool win_read(void *ctx, uint64_t addr, uint64_t *out)
{
	return sw_walk_read_word(ctx, addr & 0xffffffffu, out);
}

static bool scan(const struct sw_walk *w, uint64_t start, uint32_t words,
                 uint64_t *slot, uint64_t *ra)
{
	if (w->opt.no_scan)
		return false;
	*slot = start & 0xffffffffu;
	return sw_walk_scan_for_return_address(w, slot, ra, words);
}

/* Breakpad reads through the thread's stack memory only: "ebp points into
 * readable memory" means into the captured stack. */
static bool stack_word(const struct sw_walk *w, uint64_t addr, uint64_t *out)
{
	if (w->stack_hi > w->stack_lo && (addr < w->stack_lo || addr + 4 > w->stack_hi))
		return false;
	return sw_walk_read_word(w, addr, out);
}

static uint64_t dict_value(const struct sw_pf_dict *d, const char *name)
{
	uint64_t v = 0;
	sw_pf_dict_get(d, name, &v);
	return v;
}

static enum sw_unwind_status win_unwind(const char *line, const char *line_end,
                                        const struct sw_unwind_env *env,
                                        struct sw_regs *caller, enum sw_trust *trust);

enum sw_unwind_status bsym_win_unwind(const struct sw_bsym *b,
                                      const struct bsym_range *rec,
                                      const struct sw_unwind_env *env,
                                      struct sw_regs *caller, enum sw_trust *trust)
{
	struct bsym_span sp;
	if (!bsym_span_get(b, rec->off, rec->len, rec->crc, &sp))
		return SW_UNWIND_FAILED;
	/* the program is in sp */
	enum sw_unwind_status st = win_unwind(sp.p, sp.p + sp.n, env, caller, trust);
	/* --explain: the record as the .sym file has it (its first line). */
	if (st == SW_UNWIND_OK && env->rule) {
		size_t n = 0;
		while (n < sp.n && sp.p[n] != '\n' && sp.p[n] != '\r')
			n++;
		snprintf(env->rule, env->rule_cap, "%.*s", (int)n, sp.p);
	}
	bsym_span_free(&sp);
	return st;
}

/* The caller by the STACK WIN record on line .. line_end. */
static enum sw_unwind_status win_unwind(const char *line, const char *line_end,
                                        const struct sw_unwind_env *env,
                                        struct sw_regs *caller, enum sw_trust *trust)
{
	const struct sw_arch *arch = env->arch;
	const struct sw_walk *walk = env->walk;
	const struct sw_regs *cr = &env->callee->regs;
	int eip_r = sw_arch_reg_index(arch, "eip", 3), esp_r = sw_arch_reg_index(arch, "esp", 3),
	    ebp_r = sw_arch_reg_index(arch, "ebp", 3), ebx_r = sw_arch_reg_index(arch, "ebx", 3),
	    esi_r = sw_arch_reg_index(arch, "esi", 3), edi_r = sw_arch_reg_index(arch, "edi", 3);
	if (eip_r < 0 || esp_r < 0 || ebp_r < 0 || ebx_r < 0 || esi_r < 0 || edi_r < 0)
		return SW_UNWIND_NO_RULE;
	struct win_info w;
	if (!parse_win(line, line_end, &w))
		return SW_UNWIND_FAILED;

	bool context_frame = env->callee->trust == SW_TRUST_CONTEXT;
	uint32_t esp = (uint32_t)cr->v[esp_r], ebp = (uint32_t)cr->v[ebp_r];
	uint32_t callee_params = callee_callee_params(env);

	struct sw_pf_dict dict;
	sw_pf_dict_init(&dict);
	sw_pf_dict_set(&dict, "$ebp", ebp);
	sw_pf_dict_set(&dict, "$esp", esp);
	if (sw_reg_valid(cr, (unsigned)ebx_r))
		sw_pf_dict_set(&dict, "$ebx", (uint32_t)cr->v[ebx_r]);
	sw_pf_dict_set(&dict, ".cbCalleeParams", callee_params);
	sw_pf_dict_set(&dict, ".cbSavedRegs", w.saved_regs);
	sw_pf_dict_set(&dict, ".cbLocals", w.locals);
	sw_pf_dict_set(&dict, ".cbParams", w.params);

	uint32_t ra_search_start = esp + callee_params + w.locals + w.saved_regs;
	/* Up to three words above, in case the stack was aligned to 16 bytes. */
	uint64_t slot, found;
	if (scan(walk, ra_search_start, 3, &slot, &found)) {
		if (context_frame && w.type == WIN_FPO && slot == ra_search_start &&
		    found == (uint32_t)cr->v[eip_r]) {
			/* An FPO system call in the context frame: the word on top of
			 * the stack is the current eip (the callee already returned).
			 * Skip it. */
			ra_search_start += 4;
			if (scan(walk, ra_search_start, 3, &slot, &found))
				ra_search_start = (uint32_t)slot;
		} else {
			ra_search_start = (uint32_t)slot;
		}
	}

	const char *program;
	size_t program_len;
	bool recover_ebp = true;
	if (w.has_program) {
		program = w.program;
		program_len = w.program_len;
	} else if (w.allocates_base_pointer) {
		/* %eip_new = *(%esp_old + callee_params + saved_regs + locals)
		 * %ebp_new = *(%esp_old + callee_params + saved_regs - 8)
		 * %esp_new = %esp_old + callee_params + saved_regs + locals + 4 */
		static const char abp[] =
			"$eip .raSearchStart ^ = "
			"$ebp $esp .cbCalleeParams + .cbSavedRegs + 8 - ^ = "
			"$esp .raSearchStart 4 + =";
		program = abp;
		program_len = sizeof abp - 1;
	} else {
		/* No frame pointer use: ebp (and ebx) pass through unchanged. */
		static const char plain[] = "$eip .raSearchStart ^ = $esp .raSearchStart 4 + =";
		static const char plain_ebx[] =
			"$eip .raSearchStart ^ = $esp .raSearchStart 4 + = $ebx $ebx =";
		bool ebx = sw_reg_valid(cr, (unsigned)ebx_r);
		program = ebx ? plain_ebx : plain;
		program_len = ebx ? sizeof plain_ebx - 1 : sizeof plain - 1;
		recover_ebp = false;
	}
	/* An aligning program (`@`) moved esp by an unknown amount: only ebp
	 * still says where the return address is. */
	if (sw_reg_valid(cr, (unsigned)ebp_r) && memchr(program, '@', program_len))
		ra_search_start = ebp + 4;
	sw_pf_dict_set(&dict, ".raSearchStart", ra_search_start);
	sw_pf_dict_set(&dict, ".raSearch", ra_search_start);

	struct sw_postfix pf = {
		.dict = &dict, .read = win_read, .read_ctx = (void *)walk, .word_size = 4,
	};
	enum sw_trust how = SW_TRUST_CFI;
	if (sw_postfix_run(&pf, program, program_len) != SW_PF_OK ||
	    !sw_pf_dict_assigned(&dict, "$eip") || !sw_pf_dict_assigned(&dict, "$esp")) {
		/* The program failed: fall back to a scan from the stack pointer. */
		uint32_t words = context_frame ? RA_SEARCH_WORDS * 4 : RA_SEARCH_WORDS;
		if (!scan(walk, esp, words, &slot, &found))
			return SW_UNWIND_FAILED;
		sw_pf_dict_set(&dict, "$eip", found);
		sw_pf_dict_set(&dict, "$esp", slot + 4);
		how = SW_TRUST_SCAN;
	}

	uint32_t new_eip = (uint32_t)dict_value(&dict, "$eip");
	uint32_t new_ebp = (uint32_t)dict_value(&dict, "$ebp");
	if (new_eip != 0 || new_ebp != 0) {
		uint32_t offset = 0;
		if (sw_module_at(walk->snap, new_eip) < 0) {
			/* The eip at .raSearchStart is in no module: look further up. */
			uint32_t location_start = ra_search_start + 4;
			uint32_t words = context_frame ? RA_SEARCH_WORDS * 4 : RA_SEARCH_WORDS;
			if (scan(walk, location_start, words, &slot, &found)) {
				sw_pf_dict_set(&dict, "$eip", found);
				sw_pf_dict_set(&dict, "$esp", slot + 4);
				offset = (uint32_t)slot - location_start;
				how = SW_TRUST_CFI_SCAN;
			}
		}
		if (recover_ebp) {
			/* A scan may have skipped frames: then, or when ebp does not
			 * point at readable memory, look for a saved ebp in the saved-
			 * register area (highest first: prologs save ebp early). */
			uint64_t probe;
			bool skipped = how != SW_TRUST_CFI && new_ebp <= ra_search_start + offset;
			if (skipped || !stack_word(walk, new_ebp, &probe)) {
				uint64_t location_end = (uint32_t)(esp + callee_params);
				uint64_t location = location_end + w.saved_regs + offset;
				for (; location >= location_end; location -= 4) {
					uint64_t cand;
					if (!stack_word(walk, location, &cand))
						break;
					if (stack_word(walk, cand, &probe)) {
						sw_pf_dict_set(&dict, "$ebp", cand);
						break;
					}
					if (location < 4)
						break;
				}
			}
		}
	}

	caller->valid = 0;
	caller->context_flags = 0;
	sw_reg_set(caller, (unsigned)eip_r, (uint32_t)dict_value(&dict, "$eip"));
	sw_reg_set(caller, (unsigned)esp_r, (uint32_t)dict_value(&dict, "$esp"));
	sw_reg_set(caller, (unsigned)ebp_r, (uint32_t)dict_value(&dict, "$ebp"));
	/* Callee-saved registers the program recovered. */
	if (sw_pf_dict_assigned(&dict, "$ebx"))
		sw_reg_set(caller, (unsigned)ebx_r, (uint32_t)dict_value(&dict, "$ebx"));
	if (sw_pf_dict_assigned(&dict, "$esi"))
		sw_reg_set(caller, (unsigned)esi_r, (uint32_t)dict_value(&dict, "$esi"));
	if (sw_pf_dict_assigned(&dict, "$edi"))
		sw_reg_set(caller, (unsigned)edi_r, (uint32_t)dict_value(&dict, "$edi"));
	*trust = how;
	return SW_UNWIND_OK;
}
