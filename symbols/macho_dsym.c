/* A dSYM's DWARF as a symbol provider (see macho_dsym.h). */
#include "macho_dsym.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dwarf_lines.h"
#include "lib/mapped_file.h"
#include "lib/span.h"

/* <mach-o/loader.h>: the values the identity needs. */
enum {
	MH_MAGIC_64 = 0xfeedfacf,
	LC_SEGMENT_64 = 0x19,
	LC_UUID = 0x1b,
	MACH_HEADER_64_SIZE = 32,
};

struct sw_dsym {
	struct sw_mapped_file file;
	bool mapped;
	struct sw_dwarf *dwarf;
	/* __TEXT's vmaddr: the DWARF's address of the module's offset 0
	 * (0x100000000 for a 64-bit executable). */
	uint64_t text_vmaddr;
};

bool sw_macho_identity(const uint8_t *data, size_t size, uint8_t uuid[16], uint64_t *text_vmaddr)
{
	struct sw_span s = { data, size, 0, false };
	if (sw_u32(s, 0) != MH_MAGIC_64)
		return false;
	uint32_t ncmds = sw_u32(s, 16), sizeofcmds = sw_u32(s, 20);
	struct sw_span cmds;
	if (!sw_span_sub(s, MACH_HEADER_64_SIZE, sizeofcmds, &cmds))
		return false;
	bool has_uuid = false, has_text = false;
	uint64_t off = 0;
	/* Each command says its own size; one smaller than its 8-byte head
	 * would loop, one past the table ends the walk. */
	for (uint32_t i = 0; i < ncmds && sw_span_has(cmds, off, 8); i++) {
		uint32_t cmd = sw_u32(cmds, off), cmdsize = sw_u32(cmds, off + 4);
		if (cmdsize < 8 || !sw_span_has(cmds, off, cmdsize))
			break;
		if (cmd == LC_UUID && cmdsize >= 24) {
			for (unsigned k = 0; k < 16; k++)
				uuid[k] = sw_u8(cmds, off + 8 + k);
			has_uuid = true;
		} else if (cmd == LC_SEGMENT_64 && cmdsize >= 72 &&
		           memcmp(cmds.data + off + 8, "__TEXT\0", 7) == 0) {
			/* segment_command_64: segname[16] at 8, vmaddr at 24. */
			*text_vmaddr = sw_u64(cmds, off + 24);
			has_text = true;
		}
		off += cmdsize;
	}
	return has_uuid && has_text;
}

/* section_64 records follow the segment_command_64: sectname[16],
 * segname[16], addr, size (u64), offset (u32) ...; 80 bytes each. */
void sw_macho_dwarf_sections(const uint8_t *data, size_t size,
                                 struct sw_dwarf_sections *out)
{
	static const struct {
		const char *name;
		size_t field;
	} wanted[] = {
		{ "__debug_info", offsetof(struct sw_dwarf_sections, info) },
		{ "__debug_abbrev", offsetof(struct sw_dwarf_sections, abbrev) },
		{ "__debug_str", offsetof(struct sw_dwarf_sections, str) },
		{ "__debug_line_str", offsetof(struct sw_dwarf_sections, line_str) },
		{ "__debug_str_offs", offsetof(struct sw_dwarf_sections, str_offsets) },
		{ "__debug_addr", offsetof(struct sw_dwarf_sections, addr) },
		{ "__debug_ranges", offsetof(struct sw_dwarf_sections, ranges) },
		{ "__debug_rnglists", offsetof(struct sw_dwarf_sections, rnglists) },
		{ "__debug_line", offsetof(struct sw_dwarf_sections, line) },
		{ "__debug_aranges", offsetof(struct sw_dwarf_sections, aranges) },
	};
	memset(out, 0, sizeof *out);
	struct sw_span s = { data, size, 0, false };
	uint32_t ncmds = sw_u32(s, 16), sizeofcmds = sw_u32(s, 20);
	struct sw_span cmds;
	if (sw_u32(s, 0) != MH_MAGIC_64 || !sw_span_sub(s, MACH_HEADER_64_SIZE, sizeofcmds, &cmds))
		return;
	uint64_t off = 0;
	for (uint32_t i = 0; i < ncmds && sw_span_has(cmds, off, 8); i++) {
		uint32_t cmd = sw_u32(cmds, off), cmdsize = sw_u32(cmds, off + 4);
		if (cmdsize < 8 || !sw_span_has(cmds, off, cmdsize))
			break;
		if (cmd == LC_SEGMENT_64 && cmdsize >= 72 &&
		    memcmp(cmds.data + off + 8, "__DWARF\0", 8) == 0) {
			uint32_t nsects = sw_u32(cmds, off + 64);
			for (uint32_t k = 0; k < nsects && 72 + 80 * (uint64_t)(k + 1) <= cmdsize; k++) {
				uint64_t sec = off + 72 + 80 * (uint64_t)k;
				char name[17] = {0};
				memcpy(name, cmds.data + sec, 16);
				uint64_t sz = sw_u64(cmds, sec + 40);
				uint32_t foff = sw_u32(cmds, sec + 48);
				struct sw_span data_span;
				if (!sw_span_sub(s, foff, sz, &data_span))
					continue;
				for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++)
					if (strcmp(name, wanted[w].name) == 0)
						*(struct sw_span *)((char *)out + wanted[w].field) = data_span;
			}
		}
		off += cmdsize;
	}
}

void sw_macho_debug_id(const uint8_t uuid[16], char out[34])
{
	for (unsigned i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02X", uuid[i]);
	out[32] = '0';
	out[33] = '\0';
}

struct sw_dsym *sw_dsym_open(const char *path, const char *debug_id, struct sw_err *err)
{
	struct sw_mapped_file m;
	if (sw_map_file(path, &m, err) != SW_OK)
		return NULL;
	uint8_t uuid[16];
	uint64_t text = 0;
	if (!sw_macho_identity(m.data, m.size, uuid, &text)) {
		sw_unmap_file(&m);
		sw_err_set(err, SW_ERR_FORMAT, "%s: not a 64-bit Mach-O file with a UUID", path);
		return NULL;
	}
	char id[34];
	sw_macho_debug_id(uuid, id);
	if (!debug_id || strcasecmp(id, debug_id) != 0) {
		sw_err_set(err, SW_ERR_FORMAT, "%s: dSYM not used: its UUID gives debug id %s, the module's is %s",
		           path, id, debug_id ? debug_id : "unknown");
		sw_unmap_file(&m);
		return NULL;
	}
	struct sw_dsym *d = calloc(1, sizeof *d);
	if (!d) {
		sw_unmap_file(&m);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", path);
		return NULL;
	}
	d->text_vmaddr = text;
	d->file = m;
	d->mapped = true;
	struct sw_dwarf_sections sections;
	sw_macho_dwarf_sections(m.data, m.size, &sections);
	d->dwarf = sw_dwarf_open_sections(&sections, path, err);
	if (!d->dwarf) {
		sw_dsym_free(d);
		return NULL;
	}
	return d;
}

void sw_dsym_free(struct sw_dsym *d)
{
	if (!d)
		return;
	sw_dwarf_free(d->dwarf);
	if (d->mapped)
		sw_unmap_file(&d->file);
	free(d);
}

const struct sw_dwarf *sw_dsym_dwarf(const struct sw_dsym *d)
{
	return d->dwarf;
}

static bool dsym_lookup(void *self, uint64_t offset, struct sw_arena *a, struct sw_sym_info *out)
{
	struct sw_dsym *d = self;
	memset(out, 0, sizeof *out);
	if (!sw_dwarf_lookup(d->dwarf, offset + d->text_vmaddr, a, out) || !out->function)
		return false;
	out->function_offset -= d->text_vmaddr;
	if (out->file)
		out->line_offset -= d->text_vmaddr;
	return true;
}

static bool dsym_has_function(void *self, uint64_t offset)
{
	struct sw_dsym *d = self;
	struct sw_arena scratch;
	sw_arena_init(&scratch);
	struct sw_sym_info info;
	bool found = dsym_lookup(d, offset, &scratch, &info);
	sw_arena_free(&scratch);
	return found;
}

const struct sw_symbols_ops sw_dsym_ops = {
	.lookup = dsym_lookup,
	.has_function = dsym_has_function,
};
