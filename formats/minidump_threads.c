/* ThreadList (MINIDUMP_THREAD_LIST) and ThreadNameList
 * (MINIDUMP_THREAD_NAME_LIST). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/bsearch.h"
#include "minidump_internal.h"

enum {
	MD_THREAD_SIZE = 48,       /* MINIDUMP_THREAD */
	MD_THREAD_NAME_SIZE = 12,  /* MINIDUMP_THREAD_NAME: packed to 4 */
};

/* Where a thread's stack lies in the file. */
struct stack_bytes {
	uint64_t off, size;
	uint32_t thread;
};

static int compare_stack_bytes(const void *a, const void *b)
{
	const struct stack_bytes *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* The bytes of the file a thread's walk reads as its stack, as the walker
 * finds them: its own stack, else from its stack pointer to the end of the
 * captured region holding it. False when it has none. */
static bool walked_stack_bytes(const struct md_reader *r, uint32_t i, struct stack_bytes *out)
{
	const struct sw_snapshot *snap = r->snap;
	const struct sw_thread *th = &snap->threads[i];
	uint64_t from = th->stack_base, size = th->stack_size;
	if (size == 0) {
		const struct sw_regs *ctx = &th->ctx;
		if (snap->crash.present && snap->crash.thread_id == th->id && snap->crash.ctx.valid)
			ctx = &snap->crash.ctx;
		const struct sw_arch *arch = sw_arch_for_cpu(th->cpu ? th->cpu : snap->sys.cpu);
		if (!arch || !sw_reg_valid(ctx, arch->sp))
			return false;
		from = sw_reg_get(ctx, arch->sp);
		size = UINT64_MAX;
	}
	const struct sw_mem_region *m = sw_mem_find(snap, from);
	if (!m || !m->data)
		return false;
	uint64_t in = from - m->base;
	if (size > m->size - in)
		size = m->size - in;
	*out = (struct stack_bytes){ (uint64_t)(m->data - r->file.data) + in, size, i };
	return true;
}

void md_drop_shared_stacks(struct md_reader *r)
{
	struct sw_snapshot *snap = r->snap;
	if (snap->nthreads < 2)
		return;
	struct stack_bytes *st = malloc(snap->nthreads * sizeof *st);
	if (!st) {
		problem(r, r->optional, "thread list: out of memory checking the stacks");
		return;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < snap->nthreads; i++)
		n += walked_stack_bytes(r, i, &st[n]);
	qsort(st, n, sizeof *st, compare_stack_bytes);
	uint64_t end = 0;
	uint32_t dropped = 0, first = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i > 0 && st[i].off < end) {
			struct sw_thread *th = &snap->threads[st[i].thread];
			if (dropped++ == 0 || st[i].thread < first)
				first = st[i].thread;
			th->stack_base = th->stack_size = 0;
			memset(&th->ctx, 0, sizeof th->ctx);
			continue;
		}
		end = st[i].off + st[i].size;
	}
	free(st);
	if (dropped)
		problem(r, r->optional,
		        "thread list: %u thread stacks are bytes of the file that another "
		        "thread's stack also uses; those threads are not walked (the first: thread "
		        "%u (0x%x))",
		        dropped, first, snap->threads[first].id);
}

void md_read_thread_list(struct md_reader *r, struct sw_span s)
{
	struct sw_snapshot *snap = r->snap;
	struct sw_span list;
	uint32_t n = md_list(r, s, 4, sw_u32(s, 0), MD_THREAD_SIZE, "thread list", &list);
	snap->threads = sw_arena_array(&snap->arena, n ? n : 1, sizeof *snap->threads);
	if (!snap->threads)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct sw_span t;
		/* md_list sized `list` to hold n whole records, so this cannot
		 * fail; stopping if it ever does adds no thread of zeros. */
		if (!sw_span_sub(list, (uint64_t)i * MD_THREAD_SIZE, MD_THREAD_SIZE, &t))
			break;
		struct sw_thread *th = &snap->threads[snap->nthreads++];
		th->id = sw_u32(t, 0);
		th->suspend_count = sw_u32(t, 4);
		th->priority_class = sw_u32(t, 8);
		th->priority = sw_u32(t, 12);
		th->teb = sw_u64(t, 16);

		/* Stack: MINIDUMP_MEMORY_DESCRIPTOR at 24. */
		char what[64];
		snprintf(what, sizeof what, "thread %u (0x%x) stack", i, th->id);
		uint64_t base = sw_u64(t, 24);
		struct sw_span stack;
		md_location(r, sw_u32(t, 32), sw_u32(t, 36), what, &stack);
		if (stack.size > 0) {
			th->stack_base = base;
			th->stack_size = stack.size;
			md_add_memory(r, base, stack);
		}

		/* Context: MINIDUMP_LOCATION_DESCRIPTOR at 40. */
		snprintf(what, sizeof what, "thread %u (0x%x) context", i, th->id);
		uint32_t ctx_size = sw_u32(t, 40);
		struct sw_span ctx;
		if (ctx_size == 0)
			continue;
		/* Breakpad walks each thread as the CPU its context names. */
		if (md_location(r, ctx_size, sw_u32(t, 44), what, &ctx) &&
		    md_read_context(r, ctx, what, &th->ctx))
			th->cpu = r->context_cpu;
	}
}

/* qsort_r's comparison of two thread indexes by id (ctx: the threads):
 * the context is an argument, not a global, since snapshots may be read
 * by several threads at once (stackwalk --batch). */
static int compare_thread_ids(const void *a, const void *b, void *ctx)
{
	const struct sw_thread *threads = ctx;
	uint32_t x = threads[*(const uint32_t *)a].id;
	uint32_t y = threads[*(const uint32_t *)b].id;
	if (x != y)
		return x < y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Thread indexes in order of thread id. */
struct threads_by_id {
	const struct sw_thread *threads;
	const uint32_t *order;
};

static uint64_t thread_id_in_order(const void *set, size_t i)
{
	const struct threads_by_id *t = set;
	return t->threads[t->order[i]].id;
}

void md_read_thread_names(struct md_reader *r, struct sw_span s)
{
	struct sw_snapshot *snap = r->snap;
	struct sw_span list;
	uint32_t n = md_list(r, s, 4, sw_u32(s, 0), MD_THREAD_NAME_SIZE, "thread name list", &list);
	if (n == 0 || snap->nthreads == 0)
		return;
	/* Thread indexes sorted by id: names are matched by binary search, so
	 * a hostile file with many threads and names stays fast. */
	uint32_t *by_id = sw_arena_array(&snap->arena, snap->nthreads, sizeof *by_id);
	if (!by_id)
		return;
	for (uint32_t i = 0; i < snap->nthreads; i++)
		by_id[i] = i;
	qsort_r(by_id, snap->nthreads, sizeof *by_id, compare_thread_ids, (void *)snap->threads);
	struct threads_by_id sorted = { snap->threads, by_id };
	for (uint32_t i = 0; i < n; i++) {
		struct sw_span e;
		if (!sw_span_sub(list, (uint64_t)i * MD_THREAD_NAME_SIZE, MD_THREAD_NAME_SIZE, &e))
			break;  /* cannot happen: see md_read_thread_list */
		uint32_t id = sw_u32(e, 0);
		uint64_t rva = sw_u64(e, 4);
		uint32_t lo = (uint32_t)sw_lower_bound(&sorted, snap->nthreads, thread_id_in_order, id);
		if (lo == snap->nthreads || snap->threads[by_id[lo]].id != id)
			continue;
		struct sw_thread *th = &snap->threads[by_id[lo]];
		if (th->name)  /* the first name of a thread wins */
			continue;
		char what[48];
		snprintf(what, sizeof what, "thread 0x%x name", id);
		const char *name = md_string(r, rva, what);
		/* An empty name is kept: the writer named the thread "" (JSON shows
		 * "" there and null for threads it did not list). */
		th->name = name;
	}
}
