/* Shared by breakpad_sym.c (parse, index, lookup), breakpad_cfi.c (STACK
 * CFI) and breakpad_win.c (STACK WIN). Not for other directories. */
#ifndef SW_BREAKPAD_SYM_INTERNAL_H
#define SW_BREAKPAD_SYM_INTERNAL_H

#include <string.h>

#include "breakpad_sym.h"

/* A FUNC record: [addr, addr+size); the record's line starts at text+off,
 * its line and INLINE records lie in [off, end). */
struct bsym_func {
	uint64_t addr, size, off, end;
};

/* A PUBLIC record. */
struct bsym_public {
	uint64_t addr, off;
};

/* A STACK CFI INIT or STACK WIN record: [addr, addr+size) at text+off;
 * aux is the STACK WIN frame type. */
struct bsym_range {
	uint64_t addr, off;
	uint32_t size, aux;
};

/* FILE / INLINE_ORIGIN: id → name (text+off, len); file is the old
 * INLINE_ORIGIN layout's file id (-1: none). */
struct bsym_named {
	uint64_t off;
	uint32_t id, len;
};

struct sw_bsym {
	const char *text;
	size_t len;
	void *heap;                 /* inflated text, free()d */
	void *map;                  /* mapped text, munmap()ed */
	size_t map_len;

	struct sw_bsym_module module;
	bool has_module;
	uint32_t errors;

	struct bsym_func *funcs;    size_t nfuncs;
	struct bsym_public *pubs;   size_t npubs;
	struct bsym_range *cfi;     size_t ncfi;
	struct bsym_range *win;     size_t nwin;   /* both frame types */
	uint32_t win_max_size;
	struct bsym_named *files;   size_t nfiles;
	struct bsym_named *origins; size_t norigins;
};

/* Line scanning. */
static inline const char *bsym_line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

static inline const char *bsym_trim_cr(const char *p, const char *e)
{
	while (e > p && e[-1] == '\r')
		e--;
	return e;
}

static inline const char *bsym_skip_spaces(const char *p, const char *e)
{
	while (p < e && *p == ' ')
		p++;
	return p;
}

/* Hex number followed by a space or the end of the line. */
bool bsym_hex(const char **pp, const char *e, uint64_t *out);
/* Decimal (optionally negative) followed by a space or the end. */
bool bsym_dec(const char **pp, const char *e, int64_t *out);

/* Index searches: the last element with addr <= x, or -1. */
ptrdiff_t bsym_find_func(const struct sw_bsym *b, uint64_t x);
ptrdiff_t bsym_find_cfi(const struct sw_bsym *b, uint64_t x);

/* The STACK WIN record covering offset (FRAME_DATA preferred over FPO, the
 * innermost one of each), or NULL. */
const struct bsym_range *bsym_find_win(const struct sw_bsym *b, uint64_t offset);

enum sw_unwind_status bsym_cfi_unwind(const struct sw_bsym *b, uint64_t offset,
                                      const struct sw_unwind_env *env,
                                      struct sw_regs *caller, enum sw_trust *trust);
enum sw_unwind_status bsym_win_unwind(const struct sw_bsym *b,
                                      const struct bsym_range *rec,
                                      const struct sw_unwind_env *env,
                                      struct sw_regs *caller, enum sw_trust *trust);

#endif
