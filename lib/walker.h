/* The stack walker: for each thread, frame 0 from the context, then callers
 * by CFI, frame pointer, prologue analysis and validated scanning, in that
 * order, until a termination rule holds. */
#ifndef SW_WALKER_H
#define SW_WALKER_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "arena.h"
#include "evidence.h"
#include "frame.h"
#include "snapshot.h"
#include "symbols.h"

struct sw_walk_options {
	uint32_t max_frames;       /* per thread; 0: the default (SW_DEFAULT_MAX_FRAMES) */
	bool no_scan;              /* never fall back to stack scanning */
	uint32_t max_scanned;      /* scanned frames per thread; 0: SW_MAX_SCANNED_FRAMES */
	/* Walk only the thread sw_walk_chosen_thread names (the crashing
	 * one, else a stand-in); the others get a stack without frames
	 * (SW_END_NOT_WALKED). */
	bool crashing_only;
	/* The hook table for a thread whose context names another CPU than
	 * the snapshot's (Breakpad picks the walker per context); NULL: every
	 * thread is walked with the snapshot's arch. */
	const struct sw_arch *(*arch_for_cpu)(enum sw_cpu cpu);
	/* Threads of the snapshot walked at once, when the symbol source is
	 * concurrent; 0 or 1: one after the other. The result is the same
	 * (sw_walk_snapshot). */
	uint32_t threads;
	/* Physical frames for all threads together; 0: the default (a base
	 * plus one per 16 bytes of input). The decoders' reads of code are
	 * bounded in proportion (struct sw_walk_budget). */
	uint64_t frame_budget;
	/* Keep each frame's evidence (struct sw_stack.evidence): --explain. */
	bool explain;
};

/* Breakpad's limits (Stackwalker::max_frames_, max_frames_scanned_): a
 * thread's walk stops after this many frames, and stops scanning after
 * this many scanned ones. Across threads the walk also keeps to a budget
 * proportional to the input's size (struct sw_walk_budget). */
enum {
	SW_DEFAULT_MAX_FRAMES = 1 << 20,
	SW_MAX_SCANNED_FRAMES = 1 << 14,
};

/* Why a thread's walk ended. */
enum sw_walk_end {
	SW_END_NOT_WALKED = 0,     /* no context to start from (or dump thread) */
	SW_END_OUTERMOST,          /* the rules say there is no caller (CFI's
	                              undefined return address, a known
	                              outermost function) */
	SW_END_NULL_RETURN,        /* an intact chain reached a NULL return address */
	SW_END_NO_CALLER,          /* no method found a caller it could vouch for */
	SW_END_FRAME_LIMIT,        /* truncated at max_frames */
	SW_END_SCAN_LIMIT,         /* truncated: only a scan could go on, and the
	                              thread had its share of scanned frames */
	SW_END_FRAME_BUDGET,       /* truncated: the budget across threads ran out */
	SW_END_ERROR,              /* out of memory */
};

/* "outermost", "null_return", ... as the JSON output spells them, and
 * a sentence for the text output. */
const char *sw_walk_end_name(enum sw_walk_end e);
const char *sw_walk_end_description(enum sw_walk_end e);

/* The frames of one thread. */
struct sw_stack {
	uint32_t thread;           /* index into snapshot threads */
	struct sw_stack_frame *frames; /* inline frames precede their physical frame */
	uint32_t nframes;
	bool truncated;            /* stopped at a frame limit or budget */
	enum sw_walk_end end;      /* why the walk ended */
	uint32_t scanned;          /* physical frames found by scanning */
	/* The CPU the thread was walked as (its context's; NULL: not walked). */
	const struct sw_arch *arch;
	bool used_crash_context;   /* frame 0 came from the exception context */
	bool dump_thread;          /* wrote the dump: not walked (its context and
	                              stack were in flux), no frames */
	/* The crashing thread (walked from the crash): the code at frame 0's
	 * pc, as many bytes as one source holds up to 16 (the snapshot's
	 * memory, else the module's file); 0 when neither has them. */
	uint8_t crash_code[16];
	uint8_t crash_code_len;
	/* With sw_walk_options.explain (else NULL and 0): one evidence per
	 * frame, the attempts they name, and the attempts of the step that
	 * found no caller (why the walk ended where it did). */
	const struct sw_evidence *evidence;
	const struct sw_attempt *attempts;
	uint32_t nattempts;
	uint32_t end_first_attempt, end_nattempts;
};

struct sw_walk_result {
	struct sw_stack *stacks;   /* one per snapshot thread, same order */
	uint32_t nstacks;
	/* The crashing thread's stack (the exception's thread), or when there
	 * was no exception the thread that asked for the dump; -1: neither. */
	int32_t crashing;
	/* Per snapshot module: whether its symbols were asked for and found. */
	enum sw_symbols_status *module_status;
};

/* What a walk may spend across its threads, so that a hostile input's
 * walk ends in bounded time (the bounds are in lib/walker.c): physical
 * frames, and reads of code by the decoders (sw_code_read in
 * arch/prologue.h), which a frame can need thousands of when no symbols
 * say where its function starts. A read refused for want of budget marks
 * the step that asked for it as void (code_ran_out): what the decoders
 * concluded without the bytes proves nothing, so the thread's walk ends
 * there, truncated. */
struct sw_walk_budget {
	uint64_t frames;           /* physical frames left */
	uint64_t code_reads;       /* code reads left */
	bool code_ran_out;         /* a read was refused during this step */
};

/* The walk in progress; arch hooks and unwinders read memory through it. */
/* One answer an arch hook computed from code, kept for the next frame
 * that asks the same (x86's function start without symbols: a recursion
 * asks it of every frame). Per walker thread; the snapshot's code does
 * not change during a walk. */
struct sw_walk_memo {
	bool valid, answer;
	uint64_t key, value;
};

struct sw_walk {
	const struct sw_snapshot *snap;
	const struct sw_arch *arch;    /* the thread's */
	const struct sw_thread *thread; /* the thread being walked */
	const struct sw_symbol_source *symbols;
	struct sw_walk_options opt;
	struct sw_arena *arena;    /* where frames and symbol strings go */
	enum sw_symbols_status *module_status;
	uint64_t stack_lo, stack_hi;  /* captured stack memory of the thread */
	/* Every address the snapshot knows fits under this mask (all ones up
	 * to the highest bit any module or memory region uses, at least 2^47
	 * - 1): bits above it in a code pointer are a signature (arm64 PAC). */
	uint64_t address_mask;
	uint32_t scanned;             /* frames of this thread found by scanning */
	/* What the walk may still spend for all threads; NULL: no bound (a
	 * hook called outside a walk, a unit test). */
	struct sw_walk_budget *budget;
	/* Where hooks keep an answer (NULL: no memo, outside a walk). */
	struct sw_walk_memo *memo;
};

/* The one thread a walk with crashing_only walks, and the one the CLI's
 * --brief and the API's STACKWALK_WALK_CRASHING_ONLY show: the crashing
 * thread (sw_walk_result.crashing: the exception's, else the one that
 * requested the dump), else the first thread that did not write the dump
 * (a dump taken without a crash still has a stack to show). -1: none. */
int32_t sw_walk_chosen_thread(const struct sw_snapshot *snap);

/* Walks every thread of snap. Frames and strings are allocated in arena. */
bool sw_walk_snapshot(const struct sw_snapshot *snap, const struct sw_arch *arch,
                      const struct sw_symbol_source *symbols,
                      const struct sw_walk_options *opt, struct sw_arena *arena,
                      struct sw_walk_result *out);

/* Memory and module access for hooks and unwinders. sw_walk_read_word reads
 * a word of the thread's stack (false outside it); sw_walk_read any bytes
 * the snapshot captured. */
bool sw_walk_read_word(const struct sw_walk *w, uint64_t addr, uint64_t *out);
bool sw_walk_read(const struct sw_walk *w, uint64_t addr, void *out, size_t n);
/* For decoders that read code a little at a time (struct sw_code): up to
 * cap bytes around addr, as many as one source holds (a captured region,
 * else the module's file), centred on addr where it can be, into buf;
 * [*base, *base + *len) says which. False when the n bytes at addr
 * themselves cannot be read. */
bool sw_walk_read_window(const struct sw_walk *w, uint64_t addr, unsigned n, uint8_t *buf,
                         uint32_t cap, uint64_t *base, uint32_t *len);
/* The module symbols covering addr (loaded on demand), or NULL; *module
 * receives the module index or -1. */
const struct sw_module_symbols *sw_walk_symbols_at(const struct sw_walk *w,
                                                   uint64_t addr, int32_t *module);
/* The absolute start of the function (FUNC or PUBLIC) covering addr, if
 * the module's symbols say; its name is not kept. */
bool sw_walk_function_start(const struct sw_walk *w, uint64_t addr, uint64_t *start);
/* The start of the executable section holding addr, by the module file's
 * section headers (symbols or not): a function begins there. */
bool sw_walk_code_section_start(const struct sw_walk *w, uint64_t addr, uint64_t *start);
/* Is `word` a signal handler's return address, with the signal frame the
 * kernel wrote at sp: a sigreturn trampoline by its code, or where the
 * snapshot lacks the code (*code_known false), an address in a module;
 * the frame known by its own fields (arch hook signal_frame_written_at;
 * sigaction leaves the restorer's address in its caller's frame too). */
bool sw_walk_handler_returns_to(const struct sw_walk *w, uint64_t word, uint64_t sp,
                                bool *code_known);
/* Is addr plausibly a return address: inside a module, inside a function
 * when the module has symbols, and after a call instruction? */
bool sw_walk_is_return_address(const struct sw_walk *w, uint64_t addr);
/* Is pc in a module's code, as far as the snapshot and the module's file
 * tell: in a module, in no segment its file says is data, and in no
 * mapping the snapshot lists without execute permission? (A pc that
 * jumped into data runs no code worth reading ahead.) */
bool sw_walk_pc_in_module_code(const struct sw_walk *w, uint64_t pc);
/* Is addr a plausible pc inside a module whose code bytes (the snapshot's
 * or the module file's) show a call instruction just before it? Unlike
 * sw_walk_is_return_address, the module's symbols are not asked whether a
 * function covers the call: for a return address read from a slot that
 * decoding proved (prologue analysis), code outside every symbol and FDE
 * (a static function of a stripped library with partial unwind tables) is
 * still code, and the call bytes are the proof. */
bool sw_walk_follows_proven_call(const struct sw_walk *w, uint64_t addr);
/* Does caller c (pc and sp known) sit at a sigreturn trampoline, by the
 * arch's signal-frame rule? A handler returns there, to code outside every
 * module when the trampoline lives in a page of its own (qemu-user) or on
 * the stack (older kernels), so the return-address checks cannot vouch
 * for it. */
bool sw_walk_is_signal_trampoline(const struct sw_step *st, const struct sw_caller *c);
/* Looks for a return address in the words from *slot upwards (at most
 * `words` of them); on success *slot is the word's address and *ra its
 * value. */
bool sw_walk_scan_for_return_address(const struct sw_walk *w, uint64_t *slot,
                                     uint64_t *ra, uint32_t words);
/* May the call that ends before return address ra, found by a scan above
 * frame callee, have led to callee? False when the call names a target (a
 * direct call) in another module than callee's, and when ra returns into
 * the function callee is running (a scanned callee's own return address
 * again, where no symbols name functions) without a direct call to that
 * function's start (recursion). */
bool sw_walk_call_may_reach(const struct sw_walk *w, uint64_t ra, const struct sw_frame *callee);
/* Is ra, a return address that would make a caller of frame callee, left
 * over from an earlier call of the function callee is running? By the
 * symbols: ra returns into that function; without them: the code runs
 * straight from ra on to callee's pc, or ra is a found (scanned, frame-
 * pointer) callee's own return address again. Recursion is the exception,
 * proven only by a direct call to the function's start that the arch's
 * call_target hook names (an arch without one proves it itself). The
 * stack and the link register keep returns of calls that have returned;
 * sw_walk_call_may_reach refuses them, and an arch whose frame records
 * may hold such a word (PowerPC's LR save slot, written by the frame's
 * callees) asks it of its records. */
bool sw_walk_own_earlier_call(const struct sw_walk *w, uint64_t ra,
                              const struct sw_frame *callee);
/* The generic scan: from the callee's sp, the first word that is a return
 * address; the caller's sp is just above it. An arch's own scan rule may
 * call it with a different start (*from: NULL means the callee's sp). */
enum sw_unwind_status sw_walk_caller_by_scan(const struct sw_step *s, const uint64_t *from,
                                             struct sw_caller *out);
/* Link-register CPUs: the caller of a frame whose context is live (frame 0,
 * a signal frame) when its function has not stored the return address yet
 * (a leaf): pc = the link register, sp and the callee-saved registers
 * unchanged. OK only when the link register passes the scan's checks. */
enum sw_unwind_status sw_walk_caller_by_link_register(const struct sw_step *s,
                                                      struct sw_caller *out);

#endif
