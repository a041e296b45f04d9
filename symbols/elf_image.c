/* Opening an ELF image: the file header, the program and section header
 * tables (System V gABI, "ELF Header", "Program Header", "Sections"), and
 * what names the image: the GNU build-id note, DT_SONAME, .gnu_debuglink.
 *
 * Every header is read through lib/span.h in the file's own class and byte
 * order and decoded once into struct elf_phdr / elf_shdr; a table that does
 * not fit in the bytes is dropped (less information), never read past. */
#include "symbols/elf_image_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/gz.h"

/* gABI record sizes, ELFCLASS32 / ELFCLASS64. */
enum {
	EHDR_SIZE_32 = 52, EHDR_SIZE_64 = 64,
	PHDR_SIZE_32 = 32, PHDR_SIZE_64 = 56,
	SHDR_SIZE_32 = 40, SHDR_SIZE_64 = 64,
};

/* The fields of the file header that locate the tables. */
struct elf_header {
	uint64_t phoff;
	uint64_t shoff;
	uint32_t phentsize;
	uint32_t shentsize;
	uint64_t phnum;
	uint64_t shnum;
	uint64_t shstrndx;
	uint32_t ehsize;
};

static bool is_wide(const struct sw_elf *e)
{
	return e->info.word_size == 8;
}

/* An Elf32_Addr/Off or Elf64_Addr/Off/Xword at off, by the image's class. */
static uint64_t read_word(const struct sw_elf *e, struct sw_span s, uint64_t off)
{
	return is_wide(e) ? sw_u64(s, off) : sw_u32(s, off);
}

static uint64_t add_saturated(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

bool elf_image_window(const struct sw_elf *e, uint64_t off, uint64_t size,
                      struct sw_span *out)
{
	return sw_span_sub(e->img, off, size, out);
}

/* e_ident, then the class-dependent fields (gABI "ELF Header"). */
static enum sw_err_code read_file_header(struct sw_elf *e, struct elf_header *h,
                                         struct sw_err *err)
{
	struct sw_span s = e->img;
	static const uint8_t magic[4] = { 0x7f, 'E', 'L', 'F' };
	if (s.size < 4 || memcmp(s.data, magic, 4) != 0)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: not an ELF file", e->name);
	if (s.size < EI_NIDENT)
		return sw_err_set(err, SW_ERR_CORRUPT, "%s: truncated ELF header", e->name);
	uint8_t cls = s.data[EI_CLASS], data = s.data[EI_DATA];
	if (cls != ELFCLASS32 && cls != ELFCLASS64)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: unknown ELF class %u", e->name, cls);
	if (data != ELFDATA2LSB && data != ELFDATA2MSB)
		return sw_err_set(err, SW_ERR_FORMAT, "%s: unknown ELF byte order %u", e->name, data);
	bool wide = cls == ELFCLASS64;
	e->info.word_size = wide ? 8 : 4;
	e->info.big_endian = data == ELFDATA2MSB;
	e->img.big_endian = e->info.big_endian;
	s.big_endian = e->info.big_endian;
	if (s.size < (wide ? EHDR_SIZE_64 : EHDR_SIZE_32))
		return sw_err_set(err, SW_ERR_CORRUPT, "%s: truncated ELF header", e->name);

	e->info.type = sw_u16(s, 16);
	e->info.machine = sw_u16(s, 18);
	e->info.entry = read_word(e, s, 24);
	unsigned w = wide ? 8 : 4;
	h->phoff = read_word(e, s, 24 + w);
	h->shoff = read_word(e, s, 24 + 2 * w);
	unsigned rest = 24 + 3 * w + 4;   /* past e_flags */
	h->ehsize = sw_u16(s, rest);
	h->phentsize = sw_u16(s, rest + 2);
	h->phnum = sw_u16(s, rest + 4);
	h->shentsize = sw_u16(s, rest + 6);
	h->shnum = sw_u16(s, rest + 8);
	h->shstrndx = sw_u16(s, rest + 10);
	return SW_OK;
}

/* Extended numbering (gABI "Sections", Figure "ELF Extended Section
 * Header Table Entry 0"): when the real counts do not fit in the file
 * header, section header 0 holds them: e_shnum 0 -> sh_size,
 * e_shstrndx SHN_XINDEX -> sh_link, e_phnum PN_XNUM -> sh_info. */
static void apply_extended_numbering(struct sw_elf *e, struct elf_header *h)
{
	size_t shsize = is_wide(e) ? SHDR_SIZE_64 : SHDR_SIZE_32;
	struct sw_span sh0;
	if (h->shoff == 0 || h->shentsize < shsize || !elf_image_window(e, h->shoff, shsize, &sh0))
		return;
	bool wide = is_wide(e);
	if (h->shnum == 0)
		h->shnum = wide ? sw_u64(sh0, 32) : sw_u32(sh0, 20);
	if (h->shstrndx == SHN_XINDEX)
		h->shstrndx = sw_u32(sh0, wide ? 40 : 24);
	if (h->phnum == PN_XNUM)
		h->phnum = sw_u32(sh0, wide ? 44 : 28);
}

/* The table of count records of entsize bytes (at least min_entsize) at
 * off, or false when any of it lies outside the image. Checked before
 * anything is allocated for count. */
static bool table_window(const struct sw_elf *e, uint64_t off, uint64_t count,
                         uint64_t entsize, uint64_t min_entsize, struct sw_span *out)
{
	if (count == 0 || entsize < min_entsize)
		return false;
	if (off > e->img.size || count > (e->img.size - off) / entsize)
		return false;
	return elf_image_window(e, off, count * entsize, out);
}

static void read_program_headers(struct sw_elf *e, const struct elf_header *h)
{
	bool wide = is_wide(e);
	struct sw_span t;
	if (!table_window(e, h->phoff, h->phnum, h->phentsize,
	                  wide ? PHDR_SIZE_64 : PHDR_SIZE_32, &t))
		return;
	e->phdrs = sw_arena_array(&e->arena, h->phnum, sizeof *e->phdrs);
	if (!e->phdrs)
		return;
	e->phnum = h->phnum;
	for (size_t i = 0; i < e->phnum; i++) {
		struct sw_span p;
		if (!sw_span_sub(t, i * h->phentsize, h->phentsize, &p))
			break;
		struct elf_phdr *ph = &e->phdrs[i];
		ph->type = sw_u32(p, 0);
		if (wide) {
			ph->flags = sw_u32(p, 4);
			ph->offset = sw_u64(p, 8);
			ph->vaddr = sw_u64(p, 16);
			ph->filesz = sw_u64(p, 32);
			ph->memsz = sw_u64(p, 40);
			ph->align = sw_u64(p, 48);
		} else {
			ph->offset = sw_u32(p, 4);
			ph->vaddr = sw_u32(p, 8);
			ph->filesz = sw_u32(p, 16);
			ph->memsz = sw_u32(p, 20);
			ph->flags = sw_u32(p, 24);
			ph->align = sw_u32(p, 28);
		}
	}
}

static void read_section_headers(struct sw_elf *e, const struct elf_header *h)
{
	bool wide = is_wide(e);
	struct sw_span t;
	if (!table_window(e, h->shoff, h->shnum, h->shentsize,
	                  wide ? SHDR_SIZE_64 : SHDR_SIZE_32, &t))
		return;
	e->shdrs = sw_arena_array(&e->arena, h->shnum, sizeof *e->shdrs);
	uint32_t *name_offsets = malloc(h->shnum * sizeof *name_offsets);
	if (!e->shdrs || !name_offsets) {
		e->shdrs = NULL;
		free(name_offsets);
		return;
	}
	e->shnum = h->shnum;
	for (size_t i = 0; i < e->shnum; i++) {
		struct sw_span s;
		if (!sw_span_sub(t, i * h->shentsize, h->shentsize, &s))
			break;
		struct elf_shdr *sh = &e->shdrs[i];
		name_offsets[i] = sw_u32(s, 0);
		sh->type = sw_u32(s, 4);
		if (wide) {
			sh->flags = sw_u64(s, 8);
			sh->addr = sw_u64(s, 16);
			sh->offset = sw_u64(s, 24);
			sh->size = sw_u64(s, 32);
			sh->link = sw_u32(s, 40);
			sh->info = sw_u32(s, 44);
			sh->addralign = sw_u64(s, 48);
			sh->entsize = sw_u64(s, 56);
		} else {
			sh->flags = sw_u32(s, 8);
			sh->addr = sw_u32(s, 12);
			sh->offset = sw_u32(s, 16);
			sh->size = sw_u32(s, 20);
			sh->link = sw_u32(s, 24);
			sh->info = sw_u32(s, 28);
			sh->addralign = sw_u32(s, 32);
			sh->entsize = sw_u32(s, 36);
		}
	}

	for (size_t i = 0; i < e->shnum; i++)
		e->shdrs[i].name = "";
	struct sw_span strtab;
	if (h->shstrndx < e->shnum && e->shdrs[h->shstrndx].type != SHT_NOBITS &&
	    elf_image_window(e, e->shdrs[h->shstrndx].offset, e->shdrs[h->shstrndx].size, &strtab) &&
	    strtab.size > 0) {
		/* A name is used only when its NUL lies inside .shstrtab: every
		 * name that starts before the table's last NUL ends there. */
		const uint8_t *last_nul = memrchr(strtab.data, 0, strtab.size);
		uint64_t terminated = last_nul ? (uint64_t)(last_nul - strtab.data) + 1 : 0;
		for (size_t i = 0; i < e->shnum; i++)
			if (name_offsets[i] < terminated)
				e->shdrs[i].name = (const char *)strtab.data + name_offsets[i];
	}
	free(name_offsets);
}

/* end, moved out to cover [off, off + len) where that starts inside the
 * avail bytes (and never past them). */
static uint64_t extend_to(uint64_t end, uint64_t avail, uint64_t off, uint64_t len)
{
	if (off >= avail)
		return end;
	uint64_t reach = add_saturated(off, len);
	if (reach > avail)
		reach = avail;
	return reach > end ? reach : end;
}

/* How far the image reaches: the end of the furthest header table,
 * section contents and loadable segment that lie inside the bytes. The
 * PT_LOAD extents count too: Android's linker may place the dynamic string
 * table after everything the section headers describe (libunwindstack's
 * apk_soname_at_end case), and the image must keep it. */
static uint64_t image_extent(const struct sw_elf *e, const struct elf_header *h)
{
	uint64_t avail = e->img.size;
	uint64_t end = h->ehsize < avail ? h->ehsize : avail;
	if (e->phnum)
		end = extend_to(end, avail, h->phoff, e->phnum * h->phentsize);
	if (e->shnum)
		end = extend_to(end, avail, h->shoff, e->shnum * h->shentsize);
	for (size_t i = 0; i < e->shnum; i++)
		if (e->shdrs[i].type != SHT_NOBITS)
			end = extend_to(end, avail, e->shdrs[i].offset, e->shdrs[i].size);
	for (size_t i = 0; i < e->phnum; i++)
		if (e->phdrs[i].type == PT_LOAD)
			end = extend_to(end, avail, e->phdrs[i].offset, e->phdrs[i].filesz);
	return end;
}

/* ---- what names the image -------------------------------------------- */

static const struct elf_shdr *section_named(const struct sw_elf *e, const char *name)
{
	for (size_t i = 0; i < e->shnum; i++)
		if (strcmp(e->shdrs[i].name, name) == 0)
			return &e->shdrs[i];
	return NULL;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return add_saturated(v, a - 1) & ~(a - 1);
}

/* Notes (gABI "Note Section"): namesz, descsz, type, then the name and
 * the descriptor, each padded to 4 bytes (to 8 in a note segment aligned
 * to 8, as GNU property notes are). NT_GNU_BUILD_ID has the name "GNU". */
static bool find_build_id(struct sw_elf *e, struct sw_span notes, uint64_t align)
{
	uint64_t pad = align == 8 ? 8 : 4;
	uint64_t off = 0;
	while (sw_span_has(notes, off, 12)) {
		uint32_t namesz = sw_u32(notes, off);
		uint32_t descsz = sw_u32(notes, off + 4);
		uint32_t type = sw_u32(notes, off + 8);
		uint64_t name_off = off + 12;
		uint64_t desc_off = add_saturated(name_off, align_up(namesz, pad));
		if (!sw_span_has(notes, desc_off, descsz))
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && descsz > 0 &&
		    memcmp(notes.data + name_off, "GNU", 4) == 0) {
			e->info.build_id = notes.data + desc_off;
			e->info.build_id_len = descsz;
			return true;
		}
		off = add_saturated(desc_off, align_up(descsz, pad));
	}
	return false;
}

static void read_build_id(struct sw_elf *e)
{
	struct sw_span s;
	for (size_t i = 0; i < e->phnum; i++)
		if (e->phdrs[i].type == PT_NOTE &&
		    elf_image_window(e, e->phdrs[i].offset, e->phdrs[i].filesz, &s) &&
		    find_build_id(e, s, e->phdrs[i].align))
			return;
	for (size_t i = 0; i < e->shnum; i++)
		if (e->shdrs[i].type == SHT_NOTE &&
		    elf_image_window(e, e->shdrs[i].offset, e->shdrs[i].size, &s) &&
		    find_build_id(e, s, e->shdrs[i].addralign))
			return;
}

/* The file offset of virtual address vaddr inside a loadable segment's
 * file-backed part, or false. */
static bool vaddr_to_offset(const struct sw_elf *e, uint64_t vaddr, uint64_t *off,
                            uint64_t *avail)
{
	for (size_t i = 0; i < e->phnum; i++) {
		const struct elf_phdr *p = &e->phdrs[i];
		if (p->type != PT_LOAD || vaddr < p->vaddr || vaddr - p->vaddr >= p->filesz)
			continue;
		*off = p->offset + (vaddr - p->vaddr);
		*avail = p->filesz - (vaddr - p->vaddr);
		return *off >= p->offset;
	}
	return false;
}

/* The NUL-terminated string at off in strings, or NULL. */
static const char *string_at(struct sw_span strings, uint64_t off)
{
	if (off >= strings.size)
		return NULL;
	const char *p = (const char *)strings.data + off;
	return memchr(p, 0, strings.size - off) ? p : NULL;
}

/* DT_SONAME (gABI "Dynamic Section"): an offset into the DT_STRTAB
 * string table. The dynamic array is found as the loader finds it, by
 * PT_DYNAMIC, and its string table by address through the PT_LOAD
 * segments (that is where Android's apk_soname_at_end libraries keep it);
 * an image without program headers falls back to .dynamic and its sh_link. */
static void read_soname(struct sw_elf *e)
{
	struct sw_span dyn = { 0 };
	bool found = false;
	for (size_t i = 0; i < e->phnum && !found; i++)
		if (e->phdrs[i].type == PT_DYNAMIC)
			found = elf_image_window(e, e->phdrs[i].offset, e->phdrs[i].filesz, &dyn);
	const struct elf_shdr *dynsec = NULL;
	for (size_t i = 0; i < e->shnum && !dynsec; i++)
		if (e->shdrs[i].type == SHT_DYNAMIC)
			dynsec = &e->shdrs[i];
	if (!found && (!dynsec || !elf_image_window(e, dynsec->offset, dynsec->size, &dyn)))
		return;

	uint64_t entsize = is_wide(e) ? 16 : 8, half = entsize / 2;
	uint64_t strtab = 0, strsz = 0, soname = 0;
	bool has_strtab = false, has_soname = false;
	for (uint64_t off = 0; sw_span_has(dyn, off, entsize); off += entsize) {
		uint64_t tag = read_word(e, dyn, off), val = read_word(e, dyn, off + half);
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB) {
			strtab = val;
			has_strtab = true;
		} else if (tag == DT_STRSZ) {
			strsz = val;
		} else if (tag == DT_SONAME) {
			soname = val;
			has_soname = true;
		}
	}
	if (!has_soname)
		return;

	struct sw_span strings;
	uint64_t off, avail;
	if (has_strtab && vaddr_to_offset(e, strtab, &off, &avail)) {
		if (strsz == 0 || strsz > avail)
			strsz = avail;
		strings = sw_span_clip(e->img, off, strsz);
		if ((e->info.soname = string_at(strings, soname)))
			return;
	}
	if (dynsec && dynsec->link < e->shnum &&
	    elf_image_window(e, e->shdrs[dynsec->link].offset, e->shdrs[dynsec->link].size, &strings))
		e->info.soname = string_at(strings, soname);
}

/* .gnu_debuglink (GDB manual, "Debugging Information in Separate Files"):
 * the debug file's name, NUL, padding to 4 bytes, then its CRC32 in the
 * file's byte order. */
static void read_debuglink(struct sw_elf *e)
{
	const struct elf_shdr *sh = section_named(e, ".gnu_debuglink");
	struct sw_span s;
	if (!sh || sh->type == SHT_NOBITS || !elf_image_window(e, sh->offset, sh->size, &s))
		return;
	const char *name = string_at(s, 0);
	if (!name)
		return;
	uint64_t crc_off = align_up(strlen(name) + 1, 4);
	if (!sw_span_has(s, crc_off, 4))
		return;
	e->info.debuglink = name;
	e->info.debuglink_crc = sw_u32(s, crc_off);
}

/* p_vaddr - p_offset of the first PT_LOAD (and its p_vaddr, Breakpad's
 * base), and of the first executable one (libunwindstack's load bias;
 * gABI "Base Address"). */
static void read_load_biases(struct sw_elf *e)
{
	bool first = true;
	for (size_t i = 0; i < e->phnum; i++) {
		const struct elf_phdr *p = &e->phdrs[i];
		if (p->type != PT_LOAD)
			continue;
		if (first) {
			e->info.file_vaddr = p->vaddr - p->offset;
			e->info.first_load_vaddr = p->vaddr;
		}
		first = false;
		if ((p->flags & PF_X) && !e->info.has_exec_segment) {
			e->info.exec_load_bias = p->vaddr - p->offset;
			e->info.has_exec_segment = true;
		}
	}
}

static void read_section_flags(struct sw_elf *e)
{
	for (size_t i = 0; i < e->shnum; i++) {
		const struct elf_shdr *sh = &e->shdrs[i];
		if (sh->type == SHT_SYMTAB)
			e->info.has_symtab = true;
		if (strcmp(sh->name, ".debug_info") == 0 || strcmp(sh->name, ".zdebug_info") == 0)
			e->info.has_debug_info = true;
	}
}

/* ---- opening ---------------------------------------------------------- */

static enum sw_err_code parse_image(struct sw_elf *e, struct sw_err *err)
{
	struct elf_header h = { 0 };
	enum sw_err_code rc = read_file_header(e, &h, err);
	if (rc != SW_OK)
		return rc;
	apply_extended_numbering(e, &h);
	read_program_headers(e, &h);
	read_section_headers(e, &h);
	/* The ELF may be followed by unrelated bytes (the rest of an APK):
	 * nothing beyond its extent belongs to it. */
	e->info.image_size = image_extent(e, &h);
	e->img.size = e->info.image_size;
	read_load_biases(e);
	read_build_id(e);
	read_soname(e);
	read_debuglink(e);
	read_section_flags(e);
	return SW_OK;
}

static struct sw_elf *new_image(const char *name, struct sw_err *err)
{
	struct sw_elf *e = calloc(1, sizeof *e);
	if (e)
		e->name = strdup(name ? name : "(ELF image)");
	if (!e || !e->name) {
		free(e);
		sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", name ? name : "(ELF image)");
		return NULL;
	}
	sw_arena_init(&e->arena);
	return e;
}

static struct sw_elf *finish_open(struct sw_elf *e, struct sw_err *err)
{
	if (parse_image(e, err) != SW_OK) {
		sw_elf_free(e);
		return NULL;
	}
	return e;
}

struct sw_elf *sw_elf_open_bytes(const uint8_t *data, size_t size, bool owned,
                                 const char *name, struct sw_err *err)
{
	struct sw_elf *e = new_image(name, err);
	if (!e) {
		if (owned)
			free((void *)data);
		return NULL;
	}
	if (owned)
		e->owned = (uint8_t *)data;
	e->img = (struct sw_span){ data, data ? size : 0, 0, false };
	return finish_open(e, err);
}

static bool is_gzip(const struct sw_mapped_file *m)
{
	return m->size >= 2 && m->data[0] == 0x1f && m->data[1] == 0x8b;
}

struct sw_elf *sw_elf_open_file(const char *path, uint64_t offset, struct sw_err *err)
{
	struct sw_elf *e = new_image(path, err);
	if (!e)
		return NULL;
	if (sw_map_file(path, &e->map, err) != SW_OK) {
		sw_elf_free(e);
		return NULL;
	}
	/* Who the file is, for a cache of its inflated sections
	 * (sw_elf_set_section_cache). */
	e->src_path = realpath(path, NULL);
	if (e->src_path && stat(path, &e->src_st) != 0) {
		free(e->src_path);
		e->src_path = NULL;
	}
	const uint8_t *data = e->map.data;
	size_t size = e->map.size;
	/* A gzip-compressed ELF (how test corpora store them) is inflated
	 * whole first; the offset then counts in the inflated bytes. */
	if (is_gzip(&e->map)) {
		size_t len = 0;
		if (sw_gz_read_file(path, &e->owned, &len, err) != SW_OK) {
			sw_elf_free(e);
			return NULL;
		}
		sw_unmap_file(&e->map);
		data = e->owned;
		size = len;
	}
	if (offset > size) {
		sw_err_set(err, SW_ERR_FORMAT, "%s: offset 0x%llx is past the end of the file",
		           path, (unsigned long long)offset);
		sw_elf_free(e);
		return NULL;
	}
	e->img = (struct sw_span){ data ? data + offset : NULL, size - offset, offset, false };
	return finish_open(e, err);
}

void sw_elf_free(struct sw_elf *e)
{
	if (!e)
		return;
	if (e->libelf)
		elf_end(e->libelf);
	elf_debugdata_free(e);
	elf_symbol_index_free(e->symbols);
	for (size_t i = 0; i < e->n_inflated; i++)
		free(e->inflated[i]);
	free(e->inflated);
	elf_section_cache_free(e);
	sw_arena_free(&e->arena);
	sw_unmap_file(&e->map);
	free(e->owned);
	free(e->name);
	free(e);
}

const struct sw_elf_info *sw_elf_info(const struct sw_elf *e)
{
	return &e->info;
}

const char *sw_elf_name(const struct sw_elf *e)
{
	return e->name;
}

const struct sw_mapped_file *sw_elf_mapped_file(const struct sw_elf *e)
{
	return e->map.data ? &e->map : NULL;
}

/* libelf reads the same bytes in place (ELF_C_READ_MMAP semantics of
 * elf_memory): callers must only read through it. It never writes unless
 * asked to (elf_compress, elf_update); SHF_COMPRESSED sections are
 * inflated by sw_elf_section, not by libelf. */
Elf *sw_elf_libelf(struct sw_elf *e)
{
	if (!e->libelf && e->img.size > 0) {
		elf_version(EV_CURRENT);
		e->libelf = elf_memory((char *)e->img.data, e->img.size);
	}
	return e->libelf;
}

/* ---- code bytes ------------------------------------------------------- */

/* The part of a non-writable PT_LOAD's file-backed bytes holding vaddr:
 * what the process held unchanged (a writable segment may differ, and the
 * bytes past p_filesz are zero-fill that the file does not hold). A
 * segment both writable and executable is code too: firmware links its
 * RAM-resident code so (ESP-IDF's IRAM segment is RWX), and code is not
 * rewritten as it runs. */
static bool readonly_bytes_at(const struct sw_elf *e, uint64_t vaddr, struct sw_span *out)
{
	for (size_t i = 0; i < e->phnum; i++) {
		const struct elf_phdr *p = &e->phdrs[i];
		bool code = !(p->flags & PF_W) || (p->flags & PF_X);
		if (p->type != PT_LOAD || !code || vaddr < p->vaddr ||
		    vaddr - p->vaddr >= p->filesz)
			continue;
		uint64_t into = vaddr - p->vaddr;
		if (add_saturated(p->offset, into) >= e->img.size)
			continue;
		*out = sw_span_clip(e->img, p->offset + into, p->filesz - into);
		return out->size > 0;
	}
	return false;
}

bool sw_elf_in_code_segment(const struct sw_elf *e, uint64_t vaddr, bool *known)
{
	*known = e->info.has_exec_segment;
	for (size_t i = 0; i < e->phnum; i++) {
		const struct elf_phdr *p = &e->phdrs[i];
		if (p->type == PT_LOAD && (p->flags & PF_X) && vaddr >= p->vaddr &&
		    vaddr - p->vaddr < p->memsz)
			return true;
	}
	return false;
}

bool sw_elf_code_section_start(const struct sw_elf *e, uint64_t vaddr, uint64_t *start)
{
	const uint64_t code = SHF_ALLOC | SHF_EXECINSTR;
	for (size_t i = 0; e->shdrs && i < e->shnum; i++) {
		const struct elf_shdr *sh = &e->shdrs[i];
		if ((sh->flags & code) == code && vaddr >= sh->addr && vaddr - sh->addr < sh->size) {
			*start = sh->addr;
			return true;
		}
	}
	return false;
}

bool sw_elf_read(struct sw_elf *e, uint64_t vaddr, void *out, size_t n)
{
	uint8_t *dst = out;
	while (n > 0) {
		struct sw_span s;
		if (!readonly_bytes_at(e, vaddr, &s))
			return false;
		size_t chunk = s.size < n ? (size_t)s.size : n;
		sw_mapped_peek(&e->map, s.data, chunk, dst);
		dst += chunk;
		n -= chunk;
		if (vaddr > UINT64_MAX - chunk && n > 0)
			return false;
		vaddr += chunk;
	}
	return true;
}

/* ---- sections --------------------------------------------------------- */

static bool load_section(struct sw_elf *e, const struct elf_shdr *sh, struct sw_elf_section *out)
{
	struct sw_span raw;
	if (sh->type == SHT_NOBITS || sh->type == SHT_NULL ||
	    !elf_image_window(e, sh->offset, sh->size, &raw))
		return false;
	*out = (struct sw_elf_section){ raw.data, raw.size, sh->addr, sh->offset, sh->type,
	                                sh->flags, false };
	bool zdebug = strncmp(sh->name, ".zdebug", 7) == 0;
	if (!(sh->flags & SHF_COMPRESSED) && !zdebug)
		return true;
	if (elf_section_from_cache(e, sh, out))
		return true;
	bool ok = zdebug ? elf_inflate_zdebug(e, raw, out) : elf_inflate_compressed(e, raw, out);
	if (ok)
		elf_section_to_cache(e, sh, out);
	return ok;
}

bool elf_section_at(struct sw_elf *e, size_t i, struct sw_elf_section *out)
{
	if (i >= e->shnum)
		return false;
	if (!e->sections) {
		e->sections = sw_arena_array(&e->arena, e->shnum, sizeof *e->sections);
		if (!e->sections)
			return false;
	}
	struct elf_section_cache *c = &e->sections[i];
	if (!c->done) {
		c->done = true;
		c->ok = load_section(e, &e->shdrs[i], &c->sec);
	}
	if (c->ok)
		*out = c->sec;
	return c->ok;
}

bool sw_elf_section(struct sw_elf *e, const char *name, struct sw_elf_section *out)
{
	for (size_t i = 0; i < e->shnum; i++)
		if (strcmp(e->shdrs[i].name, name) == 0)
			return elf_section_at(e, i, out);
	return false;
}

/* ---- the debug link's checksum ---------------------------------------- */

bool sw_elf_file_crc32(const char *path, uint32_t *crc)
{
	unsigned mode;
	int fd = sw_open_regular_file(path, &mode);
	if (fd < 0)
		return false;
	uLong c = crc32(0, NULL, 0);
	static const size_t chunk = 64 * 1024;
	uint8_t *buf = malloc(chunk);
	ssize_t n = -1;
	while (buf && (n = read(fd, buf, chunk)) > 0)
		c = crc32(c, buf, (uInt)n);
	free(buf);
	close(fd);
	if (n != 0)
		return false;
	*crc = (uint32_t)c;
	return true;
}
