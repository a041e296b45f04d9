/* What the walk reads: the snapshot's memory, the thread's stack words,
 * code bytes (captured, else from the module's file, for the decoders'
 * windows), and the symbols of the module covering an address. */
#include <string.h>

#include "walker_internal.h"

/* Up to cap bytes of the range [base, base + size) around addr (which
 * lies in it): centred on addr where the range allows, else shifted to
 * stay inside it. *lo is the window's start; *after how many of its bytes
 * lie at and after addr (lengths, not ends: a hostile range may end at
 * 2^64). */
static void clip_window(uint64_t addr, uint32_t cap, uint64_t base, uint64_t size,
                        uint64_t *lo, uint32_t *len, uint32_t *after)
{
	uint64_t room_before = addr - base, room_after = size - room_before;
	uint64_t b = cap / 2 < room_before ? cap / 2 : room_before;
	uint64_t a = cap - b < room_after ? cap - b : room_after;
	/* Near the range's end, the rest of the window goes before addr. */
	if (a + b < cap)
		b = cap - a < room_before ? cap - a : room_before;
	*lo = addr - b;
	*len = (uint32_t)(a + b);
	*after = (uint32_t)a;
}

/* The symbols of the module whose file can give the n bytes at addr
 * (its provider reads code, and they lie inside the module), or NULL;
 * *m receives the module. */
static const struct sw_module_symbols *code_file_at(const struct sw_walk *w, uint64_t addr,
                                                     size_t n, int32_t *m)
{
	*m = sw_module_at(w->snap, addr);
	if (*m < 0)
		return NULL;
	const struct sw_module *mod = &w->snap->modules[*m];
	if (n > mod->size - (addr - mod->base))
		return NULL;
	const struct sw_module_symbols *syms = sw_walk_module_symbols(w, *m, false);
	return syms && syms->ops->read_code ? syms : NULL;
}

/* Any captured memory: code bytes for the call check, mostly. Bytes the
 * snapshot did not capture come from the module's own file when its
 * provider has one (ELF code and read-only data, unchanged by running):
 * scans and prologue analysis on Linux and Android snapshots, which hold
 * stacks but no code, are then validated by decoding. */
bool sw_walk_read(const struct sw_walk *w, uint64_t addr, void *out, size_t n)
{
	if (sw_mem_peek(w->snap, addr, out, n))
		return true;
	int32_t m;
	const struct sw_module_symbols *syms = code_file_at(w, addr, n, &m);
	return syms && syms->ops->read_code(syms->self, sw_walk_module_offset(w, m, addr), out, n);
}

/* The source of the bytes at addr is either one captured region or the
 * module's file: the window is clipped to it, so one read fills it (a
 * hostile input can make the decoders read at thousands of places, each
 * of which would otherwise try every window size in turn). */
bool sw_walk_read_window(const struct sw_walk *w, uint64_t addr, unsigned n, uint8_t *buf,
                         uint32_t cap, uint64_t *base, uint32_t *len)
{
	if (n == 0 || n > cap)
		return false;
	uint64_t lo;
	uint32_t got, after;
	const struct sw_mem_region *r = sw_mem_find(w->snap, addr);
	if (r && r->data && n <= r->size - (addr - r->base)) {
		clip_window(addr, cap, r->base, r->size, &lo, &got, &after);
		if (!sw_mem_peek(w->snap, lo, buf, got))
			return false;
		*base = lo;
		*len = got;
		return true;
	}
	/* Not captured: from the module's file, when its provider reads code. */
	int32_t m;
	const struct sw_module_symbols *syms = code_file_at(w, addr, n, &m);
	if (!syms)
		return false;
	const struct sw_module *mod = &w->snap->modules[m];
	/* The file may lack part of a window (a section it does not hold):
	 * smaller ones around addr, down to the n bytes themselves. */
	for (uint32_t span = cap; span > n; span /= 2) {
		clip_window(addr, span, mod->base, mod->size, &lo, &got, &after);
		if (after >= n &&
		    syms->ops->read_code(syms->self, sw_walk_module_offset(w, m, lo), buf, got)) {
			*base = lo;
			*len = got;
			return true;
		}
	}
	if (!syms->ops->read_code(syms->self, sw_walk_module_offset(w, m, addr), buf, n))
		return false;
	*base = addr;
	*len = n;
	return true;
}

/* Stack words come from the thread's own stack: a chain of frame pointers
 * or CFI addresses that leaves it has gone wrong, and a scan that ran past
 * its end would read whatever memory the snapshot holds next (Breakpad's
 * walkers read only the thread's stack region too). Threads whose stack
 * region is unknown may read any captured memory. */
bool sw_walk_read_word(const struct sw_walk *w, uint64_t addr, uint64_t *out)
{
	if (w->stack_hi > w->stack_lo &&
	    (addr < w->stack_lo || addr >= w->stack_hi || w->stack_hi - addr < w->arch->word_size))
		return false;
	return sw_mem_read_word(w->snap, addr, out);
}

/* The symbols of a module, loaded on first use. Only modules that hold a
 * frame get their status recorded (`record`): a scan or a frame-chain
 * check that merely probes an address in a module does not make it "a
 * module the walk needed", as in Breakpad's modules_without_symbols. */
const struct sw_module_symbols *sw_walk_module_symbols(const struct sw_walk *w, int32_t module,
                                                      bool record)
{
	if (module < 0 || !w->symbols || !w->symbols->for_module)
		return NULL;
	enum sw_symbols_status status = SW_SYMS_MISSING;
	const struct sw_module_symbols *syms =
		w->symbols->for_module(w->symbols->self, (uint32_t)module, &status);
	if (record && w->module_status)
		w->module_status[module] = status;
	return syms;
}

const struct sw_module_symbols *sw_walk_symbols_at(const struct sw_walk *w,
                                                   uint64_t addr, int32_t *module)
{
	int32_t m = sw_module_at(w->snap, addr);
	if (module)
		*module = m;
	return sw_walk_module_symbols(w, m, false);
}

bool sw_walk_code_section_start(const struct sw_walk *w, uint64_t addr, uint64_t *start)
{
	int32_t m;
	const struct sw_module_symbols *syms = sw_walk_symbols_at(w, addr, &m);
	uint64_t off;
	if (!syms || !syms->ops->code_section_start ||
	    !syms->ops->code_section_start(syms->self, sw_walk_module_offset(w, m, addr), &off))
		return false;
	const struct sw_module *mod = &w->snap->modules[m];
	*start = mod->base + mod->load_bias + off;
	return *start <= addr;
}

bool sw_walk_function_start(const struct sw_walk *w, uint64_t addr, uint64_t *start)
{
	int32_t m;
	const struct sw_module_symbols *syms = sw_walk_symbols_at(w, addr, &m);
	if (!syms || !syms->ops->lookup)
		return false;
	/* The lookup's strings go to a scratch arena: call checks ask this for
	 * every word a scan looks at, and the walk's arena keeps what it gets. */
	struct sw_arena scratch;
	sw_arena_init(&scratch);
	struct sw_sym_info info;
	memset(&info, 0, sizeof info);
	bool found = syms->ops->lookup(syms->self, sw_walk_module_offset(w, m, addr), &scratch, &info) &&
	             info.function;
	sw_arena_free(&scratch);
	if (!found)
		return false;
	const struct sw_module *mod = &w->snap->modules[m];
	*start = mod->base + mod->load_bias + info.function_offset;
	return *start <= addr;
}
