/* Prologue analysis for x86-64 (x86_prologue.c): the caller of a frame
 * whose function has no unwind tables, from the pushes and stack
 * adjustments its code makes between its start and the frame's pc. */
#ifndef SW_ARCH_X86_PROLOGUE_H
#define SW_ARCH_X86_PROLOGUE_H

#include "lib/arch.h"

/* The caller_by_prologue hook of amd64: needs the function's start from
 * its symbols (a FUNC, not a PUBLIC record far below) and its code. */
enum sw_unwind_status sw_amd64_caller_by_prologue(const struct sw_step *s, struct sw_caller *out);

/* The slot_fits_call hook of amd64 (lib/arch.h). */
bool sw_amd64_slot_fits_call(const struct sw_walk *w, const struct sw_frame *callee,
                             uint64_t target, uint64_t slot);

/* Could a direct call to `target` have led to pc? Not when the function
 * there is closed (its code leaves only by its returns) and pc is outside
 * it; true whenever its code does not say. The slot_fits_call hooks of
 * both x86 CPUs ask it. */
bool sw_x86_call_reaches(const struct sw_walk *w, uint64_t target, uint64_t pc, bool is64);
/* Does the function at target jump below itself to a cold part (GCC's
 * f.cold, placed before f) that holds pc, within reach? */
bool sw_x86_cold_part_holds(const struct sw_walk *w, uint64_t target, uint64_t pc, bool is64);

/* Without symbols: the start of the function holding pc, sought back
 * from pc: the nearest address after a return or padding where a
 * function's first instruction begins (endbr, a push of a callee-saved
 * register, a sub from the stack pointer) from which the code decodes to
 * pc without ending first, nor making a direct call to an address between
 * it and pc (another function's entry); an earlier such start whose code
 * jumps into the nearer one's on a condition is taken instead. False
 * when none is found within reach or the code cannot be read. */
bool sw_x86_start_without_symbols(const struct sw_walk *w, uint64_t pc, bool is64,
                                  uint64_t *start);

/* How many bytes below its return address the opening of the function at
 * `start` allocates before pc: the pushes of registers and the first sub
 * from the stack pointer its straight-line code begins with (an i386
 * PIC function's pc-thunk call and GOT add may come first or between),
 * before any jump, call or other move of the stack pointer; no later
 * push (a call's argument, which the caller releases after it). */
uint64_t sw_x86_opening_size(const struct sw_walk *w, uint64_t start, uint64_t pc, bool is64);

/* Does the function at fn end with a tail call through a pointer, which
 * may lead into any module: `jmp *disp(reg)` (a slot of a structure, as a
 * vtable's), or `jmp *reg` right after an epilogue (a pop, leave, an add
 * to the stack pointer) or right after that register's load from such a
 * slot? A switch's jump through a table (an index register, notrack) is
 * none. Its code is decoded from fn to its end (a return or jump past
 * which no jump of its own leads), at most X86_TAIL_DECODE bytes. */
/* Does the code from pc (a live frame's, or a suspended one's return
 * address) run straight to its `ret` (no branch, call or jump on the way,
 * within a few dozen instructions) without touching rbp (ebp): no pop or
 * write of it, no leave? The function then returns with rbp as it found
 * it: rbp is a caller's, never this frame's record (zoo i386 1214
 * stripped: f5, no start to be found after frame_dummy's tail jump, kept
 * start_thread's ebp, and its record skipped f4 and start_thread; i386
 * 2709: the same for f4, found by a scan). */
bool sw_x86_returns_leaving_fp(const struct sw_walk *w, uint64_t pc, bool is64);

bool sw_x86_tail_calls_through_pointer(const struct sw_walk *w, uint64_t fn, bool is64);

/* The call_reaches hook of amd64. */
bool sw_amd64_call_reaches(const struct sw_walk *w, uint64_t target, uint64_t pc);

/* Where the return address of the frame at pc lies, from its sp, when the
 * code from pc runs straight to its `ret` (no branch, call or jump; sp
 * moved only by push, pop and add/sub of constants): *offset bytes above
 * sp. That code will run so: the word there is what `ret` pops. (i386
 * cdecl: a frame suspended in a call still holds the arguments it pushed
 * for it, which its epilogue releases with the rest: zoo i386 4122.) */
bool sw_x86_return_slot_ahead(const struct sw_walk *w, uint64_t pc, bool is64, uint64_t *offset);

#endif
