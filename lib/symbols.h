/* The symbol-provider interface: what the walker asks of a module's symbols.
 * lib/ owns it; symbols/ implements it (Breakpad .sym, ELF, DWARF, ...) and
 * cmd/ wires providers to the walker through a struct sw_symbol_source. */
#ifndef SW_SYMBOLS_H
#define SW_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "frame.h"
#include "regs.h"

struct sw_arch;
struct sw_walk;

/* A caller found by one method: its registers, and whether they were
 * restored whole from a saved context (a signal or exception frame) rather
 * than recovered across a call: its pc is then the interrupted instruction,
 * not a return address, and its sp may equal the callee's. */
struct sw_caller {
	struct sw_regs regs;
	bool restored_context;
	/* The method knows sp exactly where it would only bound it (struct
	 * sw_frame sp_exact). */
	bool sp_exact;
	/* Prologue analysis: the first instruction decoded, pc's function's
	 * start as the analysis found it (--explain); 0: not said. */
	uint64_t decoded_from;
	/* ART: the DEX pc the callee, an interpreter frame, was executing
	 * (its CFI said so); 0: none. The walk lists it as a frame of its
	 * own between the callee and the caller. */
	uint64_t dex_pc;
};

/* One level of inlining at an address: `function` was inlined, called from
 * call_file:call_line of its parent. */
struct sw_sym_inline {
	const char *function;
	const char *call_file;
	uint32_t call_line;
};

/* What is at a module offset. Strings are NUL-terminated, in the arena the
 * caller passed. */
struct sw_sym_info {
	const char *function;         /* NULL: no function covers the offset */
	uint64_t function_offset;     /* module-relative start of the function */
	uint64_t function_size;       /* 0 for PUBLIC symbols */
	bool is_public;               /* a PUBLIC record: extent unknown */
	uint32_t param_size;          /* bytes of stack parameters (x86) */
	const char *file;             /* NULL: no line information */
	uint32_t line;
	uint64_t line_offset;         /* module-relative start of the line record */
	/* Inline chain at the offset, outermost first: inlines[0] was inlined
	 * into `function`, inlines[i] into inlines[i-1]. */
	const struct sw_sym_inline *inlines;
	uint32_t ninlines;
};

enum sw_unwind_status {
	SW_UNWIND_NO_RULE = 0, /* nothing covers the address: try the next method */
	SW_UNWIND_OK,          /* *caller filled */
	SW_UNWIND_END,         /* the rules say there is no caller (.undef ra) */
	SW_UNWIND_FAILED,      /* a rule covers it but could not be evaluated */
};

/* What an unwinder may use: the arch (register names), the walk (memory via
 * sw_walk_read_word, scanning helpers) and the callee frame. */
struct sw_unwind_env {
	const struct sw_arch *arch;
	const struct sw_walk *walk;
	const struct sw_frame *callee;
	uint64_t module_base;
	/* For x86 STACK WIN: the callee of `callee` (NULL for frame 0) and
	 * whether `callee` is the context frame. */
	const struct sw_frame *callee_callee;
	/* --explain: where the provider writes the rules it applied, as text
	 * (NUL-terminated, cut to rule_cap), when it finds a caller; NULL:
	 * nobody asked (the walk's usual case: no text is made). */
	char *rule;
	size_t rule_cap;
};

struct sw_symbols_ops {
	/* Fills *out for the module-relative offset; false if nothing is known. */
	bool (*lookup)(void *self, uint64_t offset, struct sw_arena *a,
	               struct sw_sym_info *out);
	/* Recovers the caller's registers from the callee's by the rules at
	 * `offset` (the callee's lookup_pc, module-relative) into
	 * caller->regs, and sets caller->restored_context when the rules
	 * describe a signal frame (DWARF CIE augmentation 'S'). Sets *trust to
	 * how (SW_TRUST_CFI, or SW_TRUST_CFI_SCAN when the return address had
	 * to be found by scanning). NULL: the provider has no unwind rules. */
	enum sw_unwind_status (*unwind)(void *self, uint64_t offset,
	                                const struct sw_unwind_env *env,
	                                struct sw_caller *caller,
	                                enum sw_trust *trust);
	/* Copies n bytes at `offset` (module-relative) from the module's
	 * file, when the provider has it and the bytes are code or read-only
	 * data: the walker's code-bytes fallback when the snapshot did not
	 * capture them. NULL: the provider has no file image. */
	bool (*read_code)(void *self, uint64_t offset, void *out, size_t n);
	/* True if a function (FUNC or PUBLIC record) covers the offset; used to
	 * validate scanned return addresses without building a sw_sym_info. */
	bool (*has_function)(void *self, uint64_t offset);
	/* False when the module's file says the offset lies outside its code
	 * (an ELF address in no executable segment: .data, .bss); true when
	 * it is code or the provider cannot tell. NULL: cannot tell. */
	bool (*in_code)(void *self, uint64_t offset);
	/* The start (module-relative) of the executable section holding
	 * offset, where the module's file has section headers: the first
	 * function of a section begins there, whatever precedes it (the
	 * PLT's last jump before .text). NULL: cannot tell. */
	bool (*code_section_start)(void *self, uint64_t offset, uint64_t *start);
};

struct sw_module_symbols {
	const struct sw_symbols_ops *ops;
	void *self;
};

enum sw_symbols_status {
	SW_SYMS_NOT_LOOKED = 0, /* the walk never needed this module */
	SW_SYMS_LOADED,
	SW_SYMS_MISSING,
	SW_SYMS_CORRUPT,
};

/* How the walker gets a module's symbols: loads on first use, then caches.
 * Returns NULL when the module has none; *status says why. */
struct sw_symbol_source {
	void *self;
	const struct sw_module_symbols *(*for_module)(void *self, uint32_t module,
	                                              enum sw_symbols_status *status);
	/* for_module, and every provider it returns, may be called from
	 * several threads at once (the walker then walks threads in
	 * parallel). */
	bool concurrent;
	/* Optional, for a concurrent source: load a module's symbols now,
	 * because a walk will likely ask for them soon. Nothing of a module
	 * only prefetched (its status, its load's warnings) shows in what the
	 * walk reports; a source that fetches over the network does not
	 * prefetch. NULL: none. */
	void (*prefetch)(void *self, uint32_t module);
};

#endif
