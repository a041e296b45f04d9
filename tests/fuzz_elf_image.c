/* libFuzzer: arbitrary bytes as an ELF image, then everything it can be
 * asked: its info, sections by the names the unwinder uses (inflating the
 * compressed ones), symbols at addresses taken from the image itself,
 * MiniDebugInfo (and the same questions of it), code bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_image.h"

static const char *const section_names[] = {
	".eh_frame", ".eh_frame_hdr", ".debug_frame", ".ARM.exidx", ".symtab",
	".dynsym", ".gnu_debugdata", ".gnu_debuglink", ".note.gnu.build-id", ".debug_info",
	".zdebug_frame", ".dynamic", ".text",
};

static volatile uint64_t sink;

static void touch(const uint8_t *p, uint64_t n)
{
	/* The first and last bytes: ASan reports a section that lies. */
	if (n)
		sink += p[0] + p[n - 1];
}

static void exercise(struct sw_elf *e, const uint8_t *data, size_t size, int depth)
{
	const struct sw_elf_info *in = sw_elf_info(e);
	touch(in->build_id, in->build_id_len);
	if (in->soname)
		sink += strlen(in->soname);
	if (in->debuglink)
		sink += strlen(in->debuglink);

	uint64_t addrs[12] = { 0, 1, in->entry, in->file_vaddr, in->exec_load_bias,
	                       in->exec_load_bias + 0x1000, UINT64_MAX, UINT64_MAX / 2 };
	for (size_t i = 8; i < 12; i++) {
		uint64_t v = 0;
		if (size >= 8)
			memcpy(&v, data + (i * 37) % (size - 7), 8);
		addrs[i] = v & 0xffffffffu;
	}

	for (size_t i = 0; i < sizeof section_names / sizeof *section_names; i++) {
		struct sw_elf_section s;
		if (sw_elf_section(e, section_names[i], &s))
			touch(s.data, s.size);
	}

	struct sw_arena a;
	sw_arena_init(&a);
	for (size_t i = 0; i < 12; i++) {
		struct sw_elf_symbol sym;
		if (sw_elf_symbol_at(e, addrs[i], &sym)) {
			sink += strlen(sw_demangle(sym.name, &a));
			sink += sw_elf_symbol_offset(e, &sym, addrs[i]);
		}
		uint8_t code[16];
		if (sw_elf_read(e, addrs[i], code, sizeof code))
			touch(code, sizeof code);
	}
	sw_arena_free(&a);

	struct sw_elf *dd = depth == 0 ? sw_elf_debugdata(e) : NULL;
	if (dd)
		exercise(dd, data, size, depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy the image owns: reads past the input are then reads past a
	 * heap block, which ASan sees. */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_bytes(copy, size, true, "fuzz", &err);
	if (!e)
		return 0;
	exercise(e, data, size, 0);
	sw_elf_free(e);
	return 0;
}
