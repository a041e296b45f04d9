#include "walker.h"
/* placeholder: the walker is being written */
bool sw_walk_read_word(const struct sw_walk *w, uint64_t addr, uint64_t *out) { return sw_mem_read_word(w->snap, addr, out); }
bool sw_walk_read(const struct sw_walk *w, uint64_t addr, void *out, size_t n) { return sw_mem_read(w->snap, addr, out, n); }
bool sw_walk_is_return_address(const struct sw_walk *w, uint64_t addr) { (void)w; (void)addr; return false; }
