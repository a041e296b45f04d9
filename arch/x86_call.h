/* Shared by x86 and amd64: does a call instruction end right before a
 * return address? */
#ifndef SW_ARCH_X86_CALL_H
#define SW_ARCH_X86_CALL_H

#include <stdbool.h>
#include <stdint.h>

struct sw_walk;

/* True if the bytes before ra decode as a near call (E8 rel32, or FF /2 in
 * any ModRM form). When the code bytes are not in the snapshot the check
 * cannot be made: *known is set false and the result is true. */
bool sw_x86_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known);

/* The call_target hook of x86 and amd64 (lib/arch.h): a call rel32's
 * target, followed through PLT entries and jumps. */
bool sw_x86_call_target(const struct sw_walk *w, uint64_t ra, bool is64, uint64_t *target);

/* The indirect_call_reaches hook of i386 (lib/arch.h): a `call
 * *%gs:0x10` (glibc's system calls through the TCB's sysinfo slot)
 * reaches only the kernel's entry code: a pc right after a system-call
 * instruction, or in the vDSO. */
bool sw_x86_syscall_call_reaches(const struct sw_walk *w, uint64_t ra, uint64_t pc);

/* Has the function starting at fn set up its frame record by pc: does
 * `push %rbp; mov %rsp,%rbp` (or %ebp, %esp) appear between fn and pc? A
 * function without it (built without frame pointers) leaves rbp to its
 * callers, and a frame-pointer step from it would skip its caller.
 * *known: the code could be read. */
bool sw_x86_frame_is_set_up(const struct sw_walk *w, uint64_t fn, uint64_t pc, bool is64,
                            bool *known);

/* Does the callee frame's rbp (ebp) hold its own frame record? SET_UP:
 * its function's code, read from the function's known start, shows the
 * record set up before the frame's pc; NONE: it shows no such code (the
 * rbp is a caller's); UNKNOWN: no start or no code to tell. */
struct sw_frame;
enum sw_x86_frame { SW_X86_FRAME_UNKNOWN, SW_X86_FRAME_NONE, SW_X86_FRAME_SET_UP };
enum sw_x86_frame sw_x86_frame_of(const struct sw_walk *w, const struct sw_frame *callee, bool is64);

/* For a frame whose code cannot tell (sw_x86_frame_of: UNKNOWN):
 * is its rbp (ebp), live from the crash's or a signal's context, not
 * shown by the stack to be its own record? See x86_call.c. */
bool sw_x86_live_record_unproven(const struct sw_walk *w, const struct sw_frame *callee,
                                 bool is64);

/* The frame record the callee's rbp (ebp) points at, as both frame-
 * pointer steps read it: the saved frame pointer at [fp], the return
 * address at [fp + word]. False when the callee has no frame pointer,
 * when its code shows it keeps no record (sw_x86_frame_of: NONE), or when
 * the two words are not on the stack. *own: what the code says. */
struct sw_x86_record {
	uint64_t fp, saved_fp, ra;
	enum sw_x86_frame own;
};
bool sw_x86_record_of(const struct sw_walk *w, const struct sw_frame *callee, bool is64,
                      struct sw_x86_record *r);

/* Signal frames known by what the kernel wrote at sp (arch/x86.c,
 * arch/amd64.c): i386's where the sigcontext lies from sp, or 0. */
uint64_t sw_x86_sigcontext_written_at(const struct sw_walk *w, uint64_t sp);
bool sw_amd64_sigframe_written_at(const struct sw_walk *w, uint64_t rsp);

/* Does the code of the function at fn hold a jump into module `to`, a tail
 * call through a PLT entry (e9 to a stub) or a GOT slot (ff 25), or a tail
 * call through a pointer (sw_x86_tail_calls_through_pointer), which may
 * lead anywhere? For the first two the first X86_TAIL_REACH bytes are
 * looked at, byte by byte: a false match needs a jump's bytes whose
 * destination is a stub into `to`. */
bool sw_x86_jumps_into_module(const struct sw_walk *w, uint64_t fn, bool is64, int32_t to);

#endif
