/* Which threads of a snapshot are walked, from which context, with which
 * CPU's rules, within what budget, and on how many workers: the walk of
 * each thread is lib/walker.c's. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "thread.h"
#include "walker_internal.h"

enum {
	/* The frame budget across threads: this many physical frames, plus
	 * one per 16 bytes of input (a frame needs stack bytes of its own, so
	 * a real input cannot justify more; shared or hostile stacks can). */
	BUDGET_BASE_FRAMES = 1 << 17,
	BUDGET_BYTES_PER_FRAME = 16,
	/* And this many reads of code (sw_code_read) per frame of that budget:
	 * 4 Mi for a small input. Prologue analysis without symbols may try
	 * every halfword of 4 KiB before pc, thousands of reads for one frame,
	 * while a real walk's frames need a few hundred each. Without this
	 * bound a small input could walk undecodable code for seconds: with
	 * it, the reads a walk makes stay proportional to the input's size. */
	BUDGET_CODE_READS_PER_FRAME = 32,
};

/* All ones up to the highest bit any module or captured region uses (at
 * least 32): what a code pointer can be once a pointer-authentication
 * signature is removed. The signature starts at the process's virtual
 * address size (39 bits on Android, 47 or 48 on desktop Linux, less on
 * Apple), which the snapshot does not record; but every pointer the walk
 * can use points into a module or a captured region, all below this mask,
 * so stripping down to it loses nothing usable. */
static uint64_t address_mask(const struct sw_snapshot *s)
{
	uint64_t top = 0xffffffffu;
	for (uint32_t i = 0; i < s->nmodules; i++) {
		uint64_t end = s->modules[i].base + s->modules[i].size;
		if (end > s->modules[i].base && end - 1 > top)
			top = end - 1;
	}
	for (uint32_t i = 0; i < s->nmem; i++) {
		uint64_t end = s->mem[i].base + s->mem[i].size;
		if (end > s->mem[i].base && end - 1 > top)
			top = end - 1;
	}
	uint64_t mask = top;
	for (unsigned shift = 1; shift < 64; shift <<= 1)
		mask |= mask >> shift;
	return mask;
}

/* Breakpad's rules (MinidumpProcessor::Process): the exception names the
 * crashing thread, else the Breakpad info stream the thread that requested
 * the dump. */
static bool requesting_thread_id(const struct sw_snapshot *s, uint32_t *id)
{
	*id = s->crash.present ? s->crash.thread_id : s->requesting_thread_id;
	return s->crash.present || s->has_requesting_thread_id;
}

int32_t sw_walk_chosen_thread(const struct sw_snapshot *snap)
{
	uint32_t req;
	if (requesting_thread_id(snap, &req))
		for (uint32_t i = 0; i < snap->nthreads; i++)
			if (snap->threads[i].id == req)
				return (int32_t)i;
	for (uint32_t i = 0; i < snap->nthreads; i++)
		if (!(snap->has_dump_thread_id && snap->threads[i].id == snap->dump_thread_id))
			return (int32_t)i;
	return -1;
}

/* One thread's part of a walk, fixed before any is walked. */
struct thread_plan {
	uint32_t index;
	bool crashed;                 /* walked from the crash context */
	const struct sw_arch *arch;
};

static bool walk_serial(struct sw_walk *w, const struct thread_plan *plan, uint32_t n,
                        struct sw_walk_result *out)
{
	struct sw_frame_list scratch = { 0 };
	bool ok = true;
	for (uint32_t k = 0; k < n && ok; k++) {
		w->arch = plan[k].arch;
		ok = sw_walk_thread(w, plan[k].index, plan[k].crashed, &scratch,
		                 &out->stacks[plan[k].index]);
	}
	sw_frame_list_free(&scratch);
	return ok;
}

/* ---- walking threads in parallel ----------------------------------------
 *
 * The threads of a snapshot are independent walks over read-only memory;
 * what they share is the symbol source (concurrent: it loads each module
 * once, under its own lock, and its providers take concurrent lookups).
 * Each worker has its own struct sw_walk, arena (adopted by the caller's
 * afterwards), scratch frames and module status, and takes the planned
 * threads one by one. The result is the one walk_serial gives: each
 * thread's frames depend only on its own walk, a module's status is the
 * same whoever asks, and the one thing threads share in a serial walk,
 * the budget, is checked after: when the threads used more than it
 * (an input with hundreds of thousands of frames, where a serial walk cuts
 * a late thread short), the snapshot is walked again one thread after the
 * other. */
struct walk_shared {
	const struct thread_plan *plan;
	uint32_t n;
	const struct sw_symbol_source *symbols;
	const uint32_t *prefetch;     /* modules to load before walking */
	uint32_t nprefetch;
	atomic_uint next_prefetch;
	atomic_uint next;
	atomic_bool failed;
	struct sw_walk_result *out;
};

struct walk_worker {
	pthread_t thread;
	bool started;
	struct walk_shared *sh;
	struct sw_walk w;
	struct sw_arena arena;
	struct sw_walk_budget budget; /* the walk's whole budget, for this worker */
	struct sw_walk_memo memo;
};

static void *walk_worker_main(void *arg)
{
	struct walk_worker *k = arg;
	struct walk_shared *sh = k->sh;
	struct sw_frame_list scratch = { 0 };
	for (;;) {
		uint32_t j = atomic_fetch_add(&sh->next_prefetch, 1);
		if (j >= sh->nprefetch)
			break;
		sh->symbols->prefetch(sh->symbols->self, sh->prefetch[j]);
	}
	for (;;) {
		uint32_t j = atomic_fetch_add(&sh->next, 1);
		if (j >= sh->n || atomic_load(&sh->failed))
			break;
		const struct thread_plan *p = &sh->plan[j];
		k->w.arch = p->arch;
		if (!sw_walk_thread(&k->w, p->index, p->crashed, &scratch, &sh->out->stacks[p->index]))
			atomic_store(&sh->failed, true);
	}
	sw_frame_list_free(&scratch);
	return NULL;
}

/* The modules the walks will most likely need, in the order they will
 * need them: each thread's context pc, then the words of the first
 * PREFETCH_STACK_BYTES of its stack that point into a module (return
 * addresses, mostly). Loading these first, one per worker, keeps every
 * worker busy: walked as they come, the threads of a snapshot tend to
 * need the same module at the same moment, and all but one worker would
 * wait while it loads (gen48k_depth500 with an empty symbol cache: three
 * 9 MB symbol files loaded one after the other). A module named here that
 * no walk needs costs its load and nothing else: the walks' results, the
 * modules' statuses and the store's warnings are those of the modules the
 * walks asked for. NULL (and *n 0) when nothing is worth loading early. */
enum { PREFETCH_STACK_BYTES = 4096 };

/* Whether a module of list has m's symbol file (the same debug file and
 * id: one library mapped twice, as a BOLTed one is). Two workers loading
 * it at once would both wait for the one parse. */
static bool same_symbols_listed(const struct sw_snapshot *snap, const uint32_t *list,
                                uint32_t n, uint32_t m)
{
	const struct sw_module *a = &snap->modules[m];
	for (uint32_t i = 0; i < n; i++) {
		const struct sw_module *b = &snap->modules[list[i]];
		if (a->debug_id && b->debug_id && a->debug_file && b->debug_file &&
		    strcmp(a->debug_id, b->debug_id) == 0 && strcmp(a->debug_file, b->debug_file) == 0)
			return true;
	}
	return false;
}

static uint32_t *modules_to_prefetch(const struct sw_snapshot *snap,
                                     const struct thread_plan *plan, uint32_t n, uint32_t *count)
{
	*count = 0;
	uint8_t *seen = snap->nmodules ? calloc(snap->nmodules, 1) : NULL;
	uint32_t *list = seen ? malloc(snap->nmodules * sizeof *list) : NULL;
	if (!list) {
		free(seen);
		return NULL;
	}
	for (uint32_t j = 0; j < n && *count < snap->nmodules; j++) {
		const struct sw_regs *ctx = &snap->threads[plan[j].index].ctx;
		if (plan[j].crashed && snap->crash.ctx.valid)
			ctx = &snap->crash.ctx;
		const struct sw_arch *arch = plan[j].arch;
		if (!arch || !sw_reg_valid(ctx, arch->pc))
			continue;
		uint64_t sp = sw_reg_valid(ctx, arch->sp) ? sw_reg_get(ctx, arch->sp) : 0;
		uint64_t addr = ctx->v[arch->pc];
		for (uint64_t off = 0; off <= PREFETCH_STACK_BYTES; off += arch->word_size) {
			if (off > 0 && (!sp || !sw_mem_read_word(snap, sp + off - arch->word_size, &addr)))
				break;
			int32_t m = sw_module_at(snap, addr);
			if (m >= 0 && !seen[m]) {
				seen[m] = 1;
				if (!same_symbols_listed(snap, list, *count, (uint32_t)m))
					list[(*count)++] = (uint32_t)m;
			}
		}
	}
	free(seen);
	return list;
}

/* Walks plan on up to nworkers threads (this one included). False: out
 * of memory during a walk; *serial: walk again one thread after the
 * other (the frame budget ran out, or there was no memory for workers). */
static bool walk_parallel(const struct sw_walk *proto, const struct thread_plan *plan,
                          uint32_t n, uint32_t nworkers, struct sw_walk_result *out,
                          bool *serial)
{
	const struct sw_snapshot *snap = proto->snap;
	struct walk_shared sh = {.plan = plan, .n = n, .out = out, .symbols = proto->symbols};
	if (proto->symbols->prefetch)
		sh.prefetch = modules_to_prefetch(snap, plan, n, &sh.nprefetch);
	atomic_init(&sh.next_prefetch, 0);
	atomic_init(&sh.next, 0);
	atomic_init(&sh.failed, false);
	struct walk_worker *k = calloc(nworkers, sizeof *k);
	*serial = true;
	if (!k) {
		free((void *)sh.prefetch);
		return true;
	}
	bool ok = true;
	for (uint32_t i = 0; i < nworkers; i++) {
		k[i].sh = &sh;
		k[i].w = *proto;
		k[i].budget = *proto->budget;
		k[i].w.budget = &k[i].budget;
		k[i].w.memo = &k[i].memo;
		sw_arena_init(&k[i].arena);
		k[i].w.arena = &k[i].arena;
		k[i].w.module_status = NULL;
		if (snap->nmodules &&
		    !(k[i].w.module_status = calloc(snap->nmodules, sizeof *k[i].w.module_status)))
			ok = false;
	}
	for (uint32_t i = 1; ok && i < nworkers; i++)
		k[i].started = sw_thread_create(&k[i].thread, walk_worker_main, &k[i]);
	if (ok)
		walk_worker_main(&k[0]);
	/* What the workers spent: each started from the whole budget. */
	uint64_t used_frames = 0, used_reads = 0;
	for (uint32_t i = 0; i < nworkers; i++) {
		if (k[i].started)
			pthread_join(k[i].thread, NULL);
		used_frames += proto->budget->frames - k[i].budget.frames;
		used_reads += proto->budget->code_reads - k[i].budget.code_reads;
	}
	bool walked = ok;
	ok = !atomic_load(&sh.failed);
	bool cut = used_frames > proto->budget->frames || used_reads > proto->budget->code_reads;
	for (uint32_t j = 0; walked && ok && j < n; j++)
		cut |= out->stacks[plan[j].index].end == SW_END_FRAME_BUDGET;
	for (uint32_t i = 0; i < nworkers; i++) {
		for (uint32_t m = 0; walked && k[i].w.module_status && m < snap->nmodules; m++)
			if (k[i].w.module_status[m] != SW_SYMS_NOT_LOOKED)
				proto->module_status[m] = k[i].w.module_status[m];
		free(k[i].w.module_status);
		sw_arena_adopt(proto->arena, &k[i].arena);
	}
	free(k);
	free((void *)sh.prefetch);
	*serial = ok && (!walked || cut);
	return ok;
}

bool sw_walk_snapshot(const struct sw_snapshot *snap, const struct sw_arch *arch,
                      const struct sw_symbol_source *symbols,
                      const struct sw_walk_options *opt, struct sw_arena *arena,
                      struct sw_walk_result *out)
{
	memset(out, 0, sizeof *out);
	out->crashing = -1;
	struct sw_walk w = {
		.snap = snap,
		.arch = arch,
		.symbols = symbols,
		.arena = arena,
		.address_mask = address_mask(snap),
	};
	if (opt)
		w.opt = *opt;
	struct sw_walk_budget budget = {
		.frames = w.opt.frame_budget ? w.opt.frame_budget
		                             : BUDGET_BASE_FRAMES + snap->file.size / BUDGET_BYTES_PER_FRAME,
	};
	budget.code_reads = budget.frames > UINT64_MAX / BUDGET_CODE_READS_PER_FRAME
	                            ? UINT64_MAX
	                            : budget.frames * BUDGET_CODE_READS_PER_FRAME;
	w.budget = &budget;
	struct sw_walk_memo memo = { 0 };
	w.memo = &memo;
	if (snap->nmodules) {
		w.module_status = sw_arena_array(arena, snap->nmodules, sizeof *w.module_status);
		if (!w.module_status)
			return false;
	}
	out->module_status = w.module_status;
	if (snap->nthreads) {
		out->stacks = sw_arena_array(arena, snap->nthreads, sizeof *out->stacks);
		if (!out->stacks)
			return false;
	}
	out->nstacks = snap->nthreads;
	struct thread_plan *plan = snap->nthreads ? malloc(snap->nthreads * sizeof *plan) : NULL;
	if (snap->nthreads && !plan)
		return false;
	uint32_t n = 0;
	/* The thread that wrote the dump is not walked (unless it is the
	 * crashing one). */
	uint32_t requesting;
	bool has_requesting = requesting_thread_id(snap, &requesting);
	int32_t chosen = w.opt.crashing_only ? sw_walk_chosen_thread(snap) : -1;
	for (uint32_t i = 0; i < snap->nthreads; i++) {
		const struct sw_thread *t = &snap->threads[i];
		out->stacks[i].thread = i;
		if (snap->has_dump_thread_id && t->id == snap->dump_thread_id &&
		    !(has_requesting && t->id == requesting)) {
			out->stacks[i].dump_thread = true;
			continue;
		}
		bool is_requesting = has_requesting && t->id == requesting && out->crashing < 0;
		if (is_requesting)
			out->crashing = (int32_t)i;
		if (w.opt.crashing_only && (int32_t)i != chosen)
			continue;
		/* Breakpad picks the walker by the context's CPU, not the system
		 * info's: a 32-bit process on a 64-bit kernel, a mixed dump. */
		const struct sw_arch *a = arch;
		if (t->cpu != SW_CPU_UNKNOWN && w.opt.arch_for_cpu && (!arch || t->cpu != arch->cpu))
			a = w.opt.arch_for_cpu(t->cpu);
		plan[n++] = (struct thread_plan){i, is_requesting && snap->crash.present, a};
	}
	bool ok = true, serial = true;
	uint32_t workers = w.opt.threads < n ? w.opt.threads : n;
	if (workers > 1 && symbols && symbols->concurrent) {
		ok = walk_parallel(&w, plan, n, workers, out, &serial);
		if (ok && serial) {
			for (uint32_t j = 0; j < n; j++) {
				memset(&out->stacks[plan[j].index], 0, sizeof out->stacks[0]);
				out->stacks[plan[j].index].thread = plan[j].index;
			}
			if (w.module_status)
				memset(w.module_status, 0, snap->nmodules * sizeof *w.module_status);
		}
	}
	if (serial)
		ok = walk_serial(&w, plan, n, out);
	free(plan);
	return ok;
}
