/* What opening a damaged input (a cut or bit-flipped ELF core, ESP core
 * image, ...) must answer, and that its walks stay in bounds: the check
 * the readers' cut-and-flipped tests share. */
#ifndef SW_TEST_OPEN_ANSWER_H
#define SW_TEST_OPEN_ANSWER_H

#include <check.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/snapshot.h"
#include "lib/walker.h"
#include "symbols/store.h"

/* The frame cap the walks of check_open_answer run with. */
enum { OPEN_ANSWER_MAX_FRAMES = 2048 };

/* An answer to opening a file of file_len bytes whose path contains
 * file_tag (search_path: the symbol search path given to the open, or
 * NULL): a documented code, the same in err; an error is one non-empty
 * line naming the file, SW_ERR_CORRUPT a damage report ("damaged") with
 * the damage in the snapshot's problems, SW_OK warnings only (at most
 * SW_MAX_PROBLEMS problems and the line counting the rest), and any other
 * error no threads. An opened snapshot has at most one thread per 12 bytes of
 * the file (a note header or a task record each), memory regions in
 * order without overlap, and walks that end within their frame cap
 * (OPEN_ANSWER_MAX_FRAMES), for a documented reason, by the step contract (lib/walker.c, caller_is_plausible):
 * a caller's pc plausible for the CPU or in a module; its sp above its
 * callee's, or equal for the first caller and around a restored context. */
static inline void check_open_answer(enum sw_err_code rc, const struct sw_snapshot *s,
                                     const struct sw_err *err, size_t file_len,
                                     const char *file_tag, const char *search_path)
{
	ck_assert_msg(rc == SW_OK || rc == SW_ERR_CORRUPT || rc == SW_ERR_FORMAT ||
	              rc == SW_ERR_UNSUPPORTED || rc == SW_ERR_IO,
	              "undocumented code %d: %s", rc, err->msg);
	ck_assert_int_eq(err->code, rc);
	if (rc != SW_OK) {
		ck_assert_msg(err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL &&
		              strstr(err->msg, file_tag) != NULL,
		              "not one line naming %s: \"%s\"", file_tag, err->msg);
	}
	bool damage = false;
	for (uint32_t i = 0; i < s->nproblems; i++)
		damage |= strncmp(s->problems[i], "warning: ", 9) != 0;
	ck_assert_uint_le(s->nproblems, SW_MAX_PROBLEMS + 1);
	if (rc == SW_OK)
		ck_assert_msg(!damage, "SW_OK with damage: %s", s->problems[0]);
	if (rc == SW_ERR_CORRUPT)
		ck_assert(damage && strstr(err->msg, "damaged") != NULL);
	if (rc != SW_OK && rc != SW_ERR_CORRUPT) {
		ck_assert_uint_eq(s->nthreads, 0);
		return;
	}
	ck_assert_msg(s->nthreads <= file_len / 12, "%u threads from %zu bytes", s->nthreads,
	              file_len);
	for (uint32_t i = 1; i < s->nmem; i++)
		ck_assert_uint_le(s->mem[i - 1].base + s->mem[i - 1].size, s->mem[i].base);
	const struct sw_arch *arch = sw_arch_for_cpu(s->sys.cpu);
	if (!arch)
		return;
	struct sw_err store_err;
	struct sw_sym_store *store = sw_sym_store_create(&search_path, search_path ? 1 : 0, s,
	                                                 &store_err);
	ck_assert_ptr_nonnull(store);
	struct sw_arena arena;
	sw_arena_init(&arena);
	struct sw_walk_result result;
	struct sw_walk_options opt = { .max_frames = OPEN_ANSWER_MAX_FRAMES };
	ck_assert(sw_walk_snapshot(s, arch, sw_sym_store_source(store), &opt, &arena, &result));
	ck_assert_uint_le(result.nstacks, s->nthreads);
	for (uint32_t t = 0; t < result.nstacks; t++) {
		const struct sw_stack *st = &result.stacks[t];
		ck_assert_uint_le(st->nframes, OPEN_ANSWER_MAX_FRAMES);
		ck_assert_int_le(st->end, SW_END_ERROR);
		if (st->nframes == OPEN_ANSWER_MAX_FRAMES)
			ck_assert_int_eq(st->end, SW_END_FRAME_LIMIT);
		const struct sw_stack_frame *callee = NULL;
		bool first = true;
		for (uint32_t f = 0; f < st->nframes; f++) {
			const struct sw_stack_frame *fr = &st->frames[f];
			if (fr->trust == SW_TRUST_INLINE)
				continue; /* its physical frame's pc and sp follow it */
			if (callee) {
				ck_assert(arch->pc_is_plausible(fr->pc) || sw_module_at(s, fr->pc) >= 0);
				uint64_t sp = sw_stack_frame_reg(fr, arch->sp);
				uint64_t callee_sp = sw_stack_frame_reg(callee, arch->sp);
				/* A signal frame may return to another stack. */
				bool other_stack = fr->restored_context &&
				                   sw_mem_find(s, sp) != sw_mem_find(s, callee_sp);
				bool may_stay = first || fr->restored_context || callee->restored_context;
				if (!other_stack)
					ck_assert_msg(may_stay ? sp >= callee_sp : sp > callee_sp,
					              "frame %u: sp 0x%llx below its callee's 0x%llx", f,
					              (unsigned long long)sp, (unsigned long long)callee_sp);
				first = false;
			}
			callee = fr;
		}
	}
	sw_arena_free(&arena);
	sw_sym_store_free(store);
}

#endif
