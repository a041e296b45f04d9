/* Reads the real-code fixtures of testdata/code/ (gen_arm_ppc.sh; format in
 * testdata/code/README.md) and checks an arch's call decoder against them. */
#ifndef SW_TEST_CODE_FIXTURE_H
#define SW_TEST_CODE_FIXTURE_H

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/walker.h"

struct code_fixture {
	char arch[16];
	bool big_endian;
	uint64_t text_addr;
	uint8_t *text;
	size_t text_size, text_filled;
	uint64_t *calls, *insns;   /* return addresses; other instruction ends */
	size_t ncalls, ninsns;
	size_t nfuncs;
};

static inline void code_fixture_push(uint64_t **v, size_t *n, uint64_t x)
{
	uint64_t *p = realloc(*v, (*n + 1) * sizeof *p);
	ck_assert_ptr_nonnull(p);
	p[(*n)++] = x;
	*v = p;
}

/* Loads testdata/code/<name>; fails the test on any malformed line. */
static inline void code_fixture_load(const char *name, struct code_fixture *f)
{
	memset(f, 0, sizeof *f);
	const char *root = getenv("SW_TESTDATA");
	char path[1024];
	snprintf(path, sizeof path, "%s/code/%s", root ? root : "testdata", name);
	FILE *fp = fopen(path, "r");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	char line[512];
	while (fgets(line, sizeof line, fp)) {
		uint64_t a, b;
		char word[64];
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "arch %15s", f->arch) == 1)
			continue;
		if (sscanf(line, "endian %63s", word) == 1) {
			f->big_endian = strcmp(word, "big") == 0;
			continue;
		}
		if (sscanf(line, "text %" SCNx64 " %" SCNu64, &a, &b) == 2) {
			ck_assert(b > 0 && b < (1u << 20));
			f->text_addr = a;
			f->text_size = (size_t)b;
			f->text = calloc(1, f->text_size);
			ck_assert_ptr_nonnull(f->text);
			continue;
		}
		if (strncmp(line, "bytes ", 6) == 0) {
			for (const char *p = line + 6; p[0] && p[1] && p[0] != '\n'; p += 2) {
				unsigned byte;
				ck_assert(sscanf(p, "%2x", &byte) == 1);
				ck_assert(f->text_filled < f->text_size);
				f->text[f->text_filled++] = (uint8_t)byte;
			}
			continue;
		}
		if (sscanf(line, "func %" SCNx64 " %" SCNx64, &a, &b) == 2) {
			f->nfuncs++;
			continue;
		}
		if (sscanf(line, "call %" SCNx64, &a) == 1) {
			code_fixture_push(&f->calls, &f->ncalls, a);
			continue;
		}
		if (sscanf(line, "insn %" SCNx64, &a) == 1) {
			code_fixture_push(&f->insns, &f->ninsns, a);
			continue;
		}
		ck_abort_msg("%s: unexpected line: %s", path, line);
	}
	fclose(fp);
	ck_assert_uint_eq(f->text_filled, f->text_size);
	ck_assert_uint_gt(f->ncalls, 0);
	ck_assert_uint_gt(f->ninsns, 0);
	ck_assert_uint_gt(f->nfuncs, 0);
}

static inline void code_fixture_free(struct code_fixture *f)
{
	free(f->text);
	free(f->calls);
	free(f->insns);
	memset(f, 0, sizeof *f);
}

/* A snapshot holding the fixture's code as one module, for arch. */
struct code_snapshot {
	struct sw_snapshot snap;
	struct sw_mem_region region;
	struct sw_module module;
	struct sw_walk walk;
};

static inline void code_snapshot_init(struct code_snapshot *cs, const struct code_fixture *f,
                                      const struct sw_arch *arch, bool big_endian,
                                      uint16_t processor_level)
{
	memset(cs, 0, sizeof *cs);
	sw_snapshot_init(&cs->snap, "code-fixture");
	cs->snap.sys.cpu = arch->cpu;
	cs->snap.sys.os = SW_OS_LINUX;
	cs->snap.sys.word_size = arch->word_size;
	cs->snap.sys.big_endian = big_endian;
	cs->snap.sys.processor_level = processor_level;
	cs->region = (struct sw_mem_region){ f->text_addr, f->text_size, f->text };
	cs->snap.mem = &cs->region;
	cs->snap.nmem = 1;
	cs->module = (struct sw_module){ .base = f->text_addr, .size = f->text_size,
	                                 .code_file = "prog" };
	cs->snap.modules = &cs->module;
	cs->snap.nmodules = 1;
	sw_snapshot_finish(&cs->snap);
	cs->walk = (struct sw_walk){ .snap = &cs->snap, .arch = arch,
	                             .address_mask = 0xffffffffffffffffull };
}

static inline void code_snapshot_free(struct code_snapshot *cs)
{
	cs->snap.mem = NULL;
	cs->snap.modules = NULL;
	sw_snapshot_free(&cs->snap);
}

/* Checks the decoder against objdump on every instruction of the fixture:
 * each call's return address is accepted from the code bytes, each other
 * instruction end rejected. (The first instruction has no bytes before it
 * and is left out.) Returns how many answers were checked. */
static inline size_t code_fixture_check(const struct code_snapshot *cs,
                                        const struct code_fixture *f, const char *name)
{
	size_t checked = 0;
	for (size_t i = 0; i < f->ncalls; i++) {
		bool known = false;
		bool call = cs->walk.arch->call_precedes(&cs->walk, f->calls[i], &known);
		ck_assert_msg(call && known, "%s: the call returning to 0x%" PRIx64 " was not seen",
		              name, f->calls[i]);
		checked++;
	}
	for (size_t i = 0; i < f->ninsns; i++) {
		uint64_t end = f->insns[i] & ~(uint64_t)1;
		if (end - f->text_addr < 4)
			continue;
		bool known = false;
		bool call = cs->walk.arch->call_precedes(&cs->walk, f->insns[i], &known);
		ck_assert_msg(!call && known, "%s: 0x%" PRIx64 " taken for a return address", name,
		              f->insns[i]);
		checked++;
	}
	return checked;
}

/* How many of the fixture's real return addresses the decoder accepts. */
static inline size_t code_fixture_calls_accepted(const struct code_snapshot *cs,
                                                 const struct code_fixture *f)
{
	size_t yes = 0;
	for (size_t i = 0; i < f->ncalls; i++) {
		bool known;
		yes += cs->walk.arch->call_precedes(&cs->walk, f->calls[i], &known);
	}
	return yes;
}

#endif
