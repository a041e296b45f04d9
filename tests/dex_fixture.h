/* A small DEX file built by the tests (no DEX compiler is packaged in
 * Debian): one class, com.example.Crash, with an instance field, a direct
 * method `main` (4 code units), a virtual method `run` (3 code units) and
 * an abstract one, `later`, without code. The code of `main` may be put at
 * a chosen offset (the file is then as large as that needs). The layout
 * follows the Dalvik Executable format's header_item, string_ids,
 * type_ids, method_ids, class_defs, class_data_item and code_item; the
 * parts a method lookup does not read (proto_ids, map_list, checksum) are
 * left empty. */
#ifndef SW_TESTS_DEX_FIXTURE_H
#define SW_TESTS_DEX_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dex_fixture {
	uint8_t *b;
	size_t size;
	uint32_t main_insns, run_insns; /* the file offsets of their first instruction */
};

static inline void dex_put32(uint8_t *b, size_t at, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		b[at + i] = (uint8_t)(v >> (8 * i));
}

static inline void dex_put16(uint8_t *b, size_t at, uint16_t v)
{
	b[at] = (uint8_t)v;
	b[at + 1] = (uint8_t)(v >> 8);
}

/* main_code: where main's code_item goes (0: right after run's). */
static inline struct dex_fixture dex_fixture_build(uint32_t main_code)
{
	static const char *const strings[] = { "Lcom/example/Crash;", "Ljava/lang/Object;", "main",
		                               "run", "later" };
	enum { NSTR = 5, STRING_IDS = 0x70, TYPE_IDS = STRING_IDS + 4 * NSTR,
	       METHOD_IDS = TYPE_IDS + 8, CLASS_DEFS = METHOD_IDS + 3 * 8,
	       DATA = CLASS_DEFS + 32 };
	size_t cap = 0x400 + (size_t)main_code + 64;
	struct dex_fixture f = { calloc(1, cap), 0, 0, 0 };
	uint8_t *b = f.b;
	memcpy(b, "dex\n035", 8);
	dex_put32(b, 0x24, 0x70);
	dex_put32(b, 0x28, 0x12345678);
	size_t at = DATA;
	/* string_data_item: uleb128 length, MUTF-8 bytes, NUL. */
	for (unsigned i = 0; i < NSTR; i++) {
		dex_put32(b, STRING_IDS + 4 * i, (uint32_t)at);
		size_t n = strlen(strings[i]);
		b[at++] = (uint8_t)n;
		memcpy(b + at, strings[i], n + 1);
		at += n + 1;
	}
	dex_put32(b, 0x38, NSTR);
	dex_put32(b, 0x3c, STRING_IDS);
	dex_put32(b, TYPE_IDS, 0);
	dex_put32(b, TYPE_IDS + 4, 1);
	dex_put32(b, 0x40, 2);
	dex_put32(b, 0x44, TYPE_IDS);
	/* method_id_item: class 0, proto 0, names "main", "run", "later". */
	for (unsigned i = 0; i < 3; i++) {
		dex_put16(b, METHOD_IDS + 8 * i, 0);
		dex_put32(b, METHOD_IDS + 8 * i + 4, 2 + i);
	}
	dex_put32(b, 0x58, 3);
	dex_put32(b, 0x5c, METHOD_IDS);
	at = (at + 3) & ~(size_t)3;
	size_t run_code = at;
	dex_put32(b, run_code + 12, 3); /* insns_size */
	at = run_code + 16 + 6;
	at = (at + 3) & ~(size_t)3;
	if (!main_code)
		main_code = (uint32_t)at;
	dex_put32(b, main_code + 12, 4);
	if (main_code >= at)
		at = main_code + 16 + 8;
	size_t class_data = at;
	/* class_data_item: 0 static fields, 1 instance field, 1 direct and 2
	 * virtual methods; encoded_method: idx diff, access flags, code_off. */
	const uint8_t cd[] = { 0, 1, 1, 2, /* field */ 0, 1,
		               /* main */ 0, 9, 0, 0, 0, 0,
		               /* run */ 1, 1, 0, 0, 0, 0,
		               /* later */ 1, 0x81, 0x08, 0 };
	memcpy(b + at, cd, sizeof cd);
	/* code_off as 4-byte uleb128s (values below 2^28). */
	uint32_t offs[2] = { main_code, (uint32_t)run_code };
	size_t where[2] = { at + 8, at + 14 };
	for (unsigned i = 0; i < 2; i++)
		for (unsigned k = 0; k < 4; k++)
			b[where[i] + k] = (uint8_t)((k < 3 ? 0x80 : 0) | ((offs[i] >> (7 * k)) & 0x7f));
	at += sizeof cd;
	dex_put32(b, CLASS_DEFS, 0);              /* class_idx */
	dex_put32(b, CLASS_DEFS + 8, 1);          /* superclass */
	dex_put32(b, CLASS_DEFS + 24, (uint32_t)class_data);
	dex_put32(b, 0x60, 1);
	dex_put32(b, 0x64, CLASS_DEFS);
	f.size = at;
	dex_put32(b, 0x20, (uint32_t)f.size);
	f.main_insns = main_code + 16;
	f.run_insns = (uint32_t)run_code + 16;
	return f;
}

/* A DEX file's bytes as a snapshot holds them: the first n bytes of b,
 * and none past them (sw_dex_read_fn's contract). */
struct dex_view {
	const uint8_t *b;
	size_t n;
};

static inline bool dex_read_view(void *ctx, uint64_t off, void *out, size_t n)
{
	const struct dex_view *v = ctx;
	if (off > v->n || n > v->n - off)
		return false;
	memcpy(out, v->b + off, n);
	return true;
}

#endif
