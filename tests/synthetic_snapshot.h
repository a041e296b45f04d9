/* A synthetic snapshot for the walker tests: module code whose bytes are
 * in the snapshot (one or two areas), one stack, one thread, an arena and
 * a walk result. Each test file sets the CPU, OS, word size, byte order
 * and layout once; words go in in the snapshot's byte order. */
#ifndef STACKWALK_TESTS_SYNTHETIC_SNAPSHOT_H
#define STACKWALK_TESTS_SYNTHETIC_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/walker.h"

enum { SYN_MAX_MODULES = 2 };

/* An address range; size 0: absent. */
struct syn_area {
	uint64_t base, size;
};

struct syn_config {
	const char *name;            /* the snapshot's */
	enum sw_cpu cpu;
	enum sw_os os;
	unsigned word_size;
	bool big_endian;
	uint16_t processor_level;
	struct syn_area code;        /* module 0's bytes */
	struct syn_area lib;         /* a second area of code, or none */
	struct syn_area stack;       /* the thread's stack */
	uint32_t fill;               /* what the code areas hold to begin with: */
	unsigned fill_size;          /* a 1- or 4-byte unit in the snapshot's order */
	uint32_t thread_id;
	struct sw_module modules[SYN_MAX_MODULES];
	uint32_t nmodules;
};

struct fixture {
	struct sw_snapshot snap;
	struct syn_config cfg;
	uint8_t *code, *lib, *stack;
	struct sw_mem_region regions[3];
	struct sw_module modules[SYN_MAX_MODULES];
	struct sw_thread thread;
	struct sw_arena arena;
	struct sw_walk_result result;
};

void syn_fixture_init(struct fixture *fx, const struct syn_config *cfg);
void fixture_free(struct fixture *fx);

/* The n bytes at addr in a code area (module code or lib). */
uint8_t *syn_code_at(struct fixture *fx, uint64_t addr, size_t n);
/* An n-byte value at addr in a code area, in the snapshot's byte order. */
void syn_put_code(struct fixture *fx, uint64_t addr, uint64_t v, unsigned n);

/* Stack words, in the snapshot's byte order. */
void put_u8(struct fixture *fx, uint64_t addr, uint8_t v);
void put_u32(struct fixture *fx, uint64_t addr, uint32_t v);
void put_u64(struct fixture *fx, uint64_t addr, uint64_t v);
/* A word of the snapshot's word size. */
void put_word(struct fixture *fx, uint64_t addr, uint64_t v);

/* A symbol source's for_module for symbols of module 0 alone: self is
 * module 0's sw_module_symbols; the other modules have none. */
const struct sw_module_symbols *syn_module0_symbols(void *self, uint32_t m,
                                                    enum sw_symbols_status *st);

/* Finishes the snapshot and walks it; the first thread's stack. */
const struct sw_stack *syn_walk(struct fixture *fx, const struct sw_arch *arch,
                                const struct sw_symbol_source *src,
                                const struct sw_walk_options *opt);

#endif
