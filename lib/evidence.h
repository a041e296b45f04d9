/* Why each frame of a walk is there (--explain): the method that found
 * it with what it read, and the methods tried before it with why each was
 * refused; for the walk's end, the methods of the last step. The walker
 * records it only when asked (sw_walk_options.explain): without it no
 * evidence is kept and the walk costs what it did. docs/json.md
 * ("evidence") and docs/cli.md (--explain) say how outputs show it. */
#ifndef SW_EVIDENCE_H
#define SW_EVIDENCE_H

#include <stdbool.h>
#include <stdint.h>

/* The ways a frame is found, in the order the walker tries them for each
 * caller (lib/walker.c find_caller). */
enum sw_method {
	SW_METHOD_NONE = 0,
	SW_METHOD_CONTEXT,         /* frame 0: the thread's or the exception's context */
	SW_METHOD_INLINE,          /* an inlined call: debug info of the physical frame */
	SW_METHOD_PROGRAM_ENTRY,   /* the callee is a program entry: nothing calls it */
	SW_METHOD_SIGNAL_FRAME,    /* the callee is a sigreturn trampoline or a trap entry */
	SW_METHOD_CFI,             /* the module's unwind rules */
	SW_METHOD_EXCEPTION_FRAME, /* the rules' return address is an exception return */
	SW_METHOD_BAD_PC,          /* pc in no module: the call's return address */
	SW_METHOD_LEAF,            /* a leaf's return address at [sp] */
	SW_METHOD_FRAME_POINTER,   /* the frame-record chain (and a live link register) */
	SW_METHOD_PROLOGUE,        /* the function's prologue, decoded */
	SW_METHOD_SCAN,            /* a stack word after a call */
	/* Not a way to a caller: the Java frame an ART interpreter frame was
	 * running, named by its CFI's DEX pc rule. */
	SW_METHOD_DEX_PC,
};

/* What a method answered when it found no caller the walk believed. */
enum sw_refusal {
	SW_REFUSED_NONE = 0,
	SW_REFUSED_NO_RULE,          /* the method does not apply to this frame */
	SW_REFUSED_FAILED,           /* its evidence is there but broken */
	SW_REFUSED_DISABLED,         /* --no-scan, or the thread's scan limit */
	SW_REFUSED_LOST_PC_SP,       /* the caller it gave has no pc or no sp */
	SW_REFUSED_PC_NOT_CODE,      /* pc fails the CPU's rule and no module holds it */
	SW_REFUSED_SP_NOT_GROWING,   /* the caller's sp is not above the callee's */
	SW_REFUSED_PC_ON_STACK,      /* pc lies in the thread's stack */
	SW_REFUSED_PC_IN_DATA,       /* pc lies in a module's data, not its code */
	SW_REFUSED_NOT_RETURN_ADDRESS, /* pc is no return address (no call before it
	                                  in a function) for a frame whose sp was guessed */
	SW_REFUSED_NO_CALL_BEFORE,   /* the code before pc is no call */
	SW_REFUSED_CALL_ELSEWHERE,   /* the call before pc cannot have led to the callee */
	SW_REFUSED_CONTEXT_IMPLAUSIBLE, /* a restored context whose pc and sp do not fit */
	SW_REFUSED_ENDS_WALK,        /* the method ended the walk (the end's reason says why) */
};

/* One method tried for a step, and what it answered. */
struct sw_attempt {
	uint8_t method;              /* enum sw_method */
	uint8_t refusal;             /* enum sw_refusal; NONE: it found the caller */
};

/* The evidence of one frame. Addresses are absolute; 0 means not known or
 * not relevant to the method. */
struct sw_evidence {
	enum sw_method method;
	/* Where the method read the frame: the frame record (frame pointer),
	 * the saved context (signal frame: the trampoline's sp), the exception
	 * frame, the scanned slot; for every method that read a return address
	 * from memory, the slot it was in (ra_slot). */
	uint64_t where;
	uint64_t ra_slot;
	bool ra_in_register;         /* the return address came from the link register */
	/* The call before the return address (every method but the context,
	 * CFI and restored contexts): decoded from code bytes or not, and its
	 * target when the instruction names one. */
	bool call_known, call_decoded, call_direct;
	uint64_t call_target;
	uint64_t exc_return;         /* EXCEPTION_FRAME: the EXC_RETURN value */
	/* PROLOGUE: where the decoded function starts: the first instruction
	 * the analysis decoded (it read [function_start, the callee's pc)),
	 * else the module's symbols' start. */
	uint64_t function_start;
	bool anchored;               /* CFI from the sp the callee's frame record
	                                anchors (lib/walker.c rules_anchored_on_record) */
	bool cfi_scan;               /* CFI gave the sp, a scan the return address */
	bool restores_context;       /* CFI: the rules restore an interrupted context
	                                (a signal frame's, CIE augmentation 'S') */
	/* CFI: the callee's rules that gave this frame, as text (NULL: not
	 * known), from the callee's module (snapshot module index; -1: none). */
	const char *rule;
	int32_t rule_module;
	/* The methods tried before this one for the step that found the
	 * frame, refused: attempts[first_attempt .. + nattempts) of the stack. */
	uint32_t first_attempt, nattempts;
};

/* "cfi", "frame_pointer", "refused: ..." as the JSON spells them, and a
 * phrase for the text output. */
const char *sw_method_name(enum sw_method m);
const char *sw_refusal_name(enum sw_refusal r);
const char *sw_refusal_description(enum sw_refusal r);
/* Does method m read a return address whose call it checks (frame
 * pointer, bad pc, leaf, prologue, scan): the evidence's call fields? */
bool sw_method_reads_call(enum sw_method m);

#endif
