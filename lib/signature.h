/* Crash signatures: a short, stable name for a crash, made of the crashing
 * thread's first meaningful function names joined with " | ", as Mozilla
 * Socorro's signature generation makes them (docs/signature.md).
 *
 * A frame's name is its function name normalized (no argument list, no
 * template arguments, no compiler clone suffix, no Rust hash), or the
 * module's file name for a frame without symbols (an ELF library's without
 * its minor versions, lowercased on Windows), or @0x<pc> or ??? for a
 * frame outside every module (a prefix by the built-in rules). Rules,
 * matched in order against that name (the last rule that matches wins),
 * say what a frame is:
 *   irrelevant  dropped (raise, abort, a crash handler, panic machinery);
 *   prefix      kept, and the signature goes on to the next frame (an
 *               allocator, memcpy: the caller says whose bug it is);
 *   keep        an ordinary frame: kept, and the signature ends with it
 *               (overrides an earlier rule for the same name).
 * A frame no rule matches is kept and ends the signature. */
#ifndef SW_SIGNATURE_H
#define SW_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "snapshot.h"
#include "sw_err.h"
#include "walker.h"

enum sw_sig_action {
	SW_SIG_KEEP = 0,
	SW_SIG_PREFIX,
	SW_SIG_IRRELEVANT,
};

struct sw_sig_rule {
	enum sw_sig_action action;
	const char *pattern;       /* a glob (fnmatch): '*', '?', '[...]' */
};

/* An ordered list of rules; patterns live in the arena. */
struct sw_sig_rules {
	struct sw_arena arena;
	struct sw_sig_rule *v;     /* malloc'd */
	uint32_t n, cap;
};

/* A signature is made of at most this many frames (prefix frames and the
 * one that ends it), and at most SW_SIG_MAX_TEXT - 1 bytes: a frame that
 * would not fit ends it before itself. */
enum { SW_SIG_MAX_FRAMES = 10, SW_SIG_MAX_TEXT = 1024 };

struct sw_signature {
	char text[SW_SIG_MAX_TEXT];
	/* The stack's frame indexes the text is made of, in order. */
	uint32_t frames[SW_SIG_MAX_FRAMES];
	uint32_t nframes;
};

/* Empty rules; sw_sig_rules_free releases them. */
void sw_sig_rules_init(struct sw_sig_rules *r);
void sw_sig_rules_free(struct sw_sig_rules *r);

/* Appends the built-in rules (docs/signature.md lists them). False when
 * out of memory. */
bool sw_sig_rules_add_defaults(struct sw_sig_rules *r);

/* Appends the rules of `text` (`name` names it in messages: a file name).
 * One rule a line: "irrelevant GLOB", "prefix GLOB" or "keep GLOB" (a GLOB's
 * "(anonymous namespace)" read as names are written, see sw_sig_normalize);
 * "reset" drops every rule before it (the built-in ones too); blank lines
 * and lines starting with '#' are skipped. On a bad line: false and err
 * set to "NAME:LINE: ..." (SW_ERR_USAGE), no rule of text added. */
bool sw_sig_rules_parse(struct sw_sig_rules *r, const char *text, const char *name,
                        struct sw_err *err);

/* sw_sig_rules_parse of a file's content; SW_ERR_IO when it cannot be read. */
bool sw_sig_rules_load(struct sw_sig_rules *r, const char *path, struct sw_err *err);

/* What the rules say of a frame named `name` (SW_SIG_KEEP when none
 * matches), matched with case (sw_signature_make matches a Windows
 * snapshot's module names without). */
enum sw_sig_action sw_sig_classify(const struct sw_sig_rules *r, const char *name);

/* `function` as a signature names it, into out (cap bytes, cut at cap - 1):
 * whitespace runs made single spaces; the argument list and what follows
 * it (" const") dropped unless "::" follows (a local class); template
 * arguments written <T>, Rust's turbofish f::<u8> too (not a name component
 * that starts with '<': Rust's <T as Trait>::f and ::<impl T>::f keep their
 * types); "operator<<" and the like
 * kept whole; compiler clone suffixes (.cold, .part.N, .isra.N,
 * .constprop.N, .lto_priv.N, .llvm.N, " [clone ...]") and ABI tags
 * ([abi:cxx11]) dropped; a Rust legacy hash (::h + 16 hex digits) dropped;
 * MSVC's per-file anonymous namespace ?A0x<hex> and the Itanium
 * demanglers' "(anonymous namespace)" made "`anonymous namespace'".
 * Returns the length written. */
size_t sw_sig_normalize(const char *function, char *out, size_t cap);

/* The signature of stack st (the crashing thread's) of snapshot s. No
 * frames: "EMPTY: no frames". Every frame irrelevant: the first frame's
 * name, whatever the rules say. */
void sw_signature_make(const struct sw_sig_rules *r, const struct sw_snapshot *s,
                       const struct sw_stack *st, struct sw_signature *out);

#endif
