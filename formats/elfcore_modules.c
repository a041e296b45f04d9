/* ELF core reader, the modules.
 *
 * 1. NT_FILE (or, for a core without it, the /proc/PID/maps file the user
 *    gives; both land in snap->maps): one module per mapped file whose
 *    ELF header is in the core's memory or which is mapped executable,
 *    its consecutive mappings merged. The ELF header page in memory (the
 *    kernel dumps the first page of every ELF mapping: coredump_filter
 *    bit 4) gives the build-id (NT_GNU_BUILD_ID in its PT_NOTE).
 *
 * 2. No module map (qemu-user cores, some gdb cores): the dynamic
 *    loader's own list, as a debugger finds it (System V ABI, "Dynamic
 *    Linking"; glibc's <link.h>):
 *      - the executable's load bias is AT_ENTRY - e_entry; its ELF header
 *        and program headers are read from the core's memory at AT_PHDR's
 *        page when there, else from a file in the search paths (checked:
 *        same machine, AT_PHNUM program headers, a page-aligned bias);
 *      - its PT_DYNAMIC (bias + p_vaddr, in the core's memory, where
 *        ld.so wrote it) holds DT_DEBUG = &_r_debug (MIPS, whose dynamic
 *        section is read-only: DT_MIPS_RLD_MAP / DT_MIPS_RLD_MAP_REL name
 *        a word holding it);
 *      - struct r_debug {int r_version; struct link_map *r_map; ...};
 *        struct link_map {l_addr, l_name, l_ld, l_next, l_prev}, all
 *        words: one module per entry with a name, its load bias l_addr,
 *        its extent from its program headers (memory or a search-path
 *        file whose PT_DYNAMIC lands at l_ld), else from the core's
 *        PT_LOAD segment holding l_ld. The name is read from the core,
 *        else from the executable's file when l_name points into its
 *        image (the dynamic loader's own entry: its PT_INTERP string).
 *        At most EC_MAX_LINK_MAP entries; a chain that comes back to an
 *        entry ends there.
 *    A static executable (no PT_DYNAMIC) is the only module.
 *
 * 3. The vDSO (AT_SYSINFO_EHDR): a module "[vdso]" whose image is the
 *    core's memory (image_addr), so that its symbols and CFI are read
 *    from there.
 *
 * A module's base is the address of its ELF file's byte 0 and its
 * load_bias 0: the ELF virtual address of A is then A - base +
 * file_vaddr, as the symbol providers compute it. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elfcore_internal.h"
#include "lib/build_id.h"
#include "lib/mapped_file.h"
#include "proc_maps.h"
#include "symbols/elf_image.h"

#ifndef DT_MIPS_RLD_MAP
#define DT_MIPS_RLD_MAP 0x70000016
#endif
#ifndef DT_MIPS_RLD_MAP_REL
#define DT_MIPS_RLD_MAP_REL 0x70000035
#endif

enum {
	EC_MAX_NOTE_BYTES = 1 << 16,  /* of an image's PT_NOTE read for the build-id */
	EC_MAX_DYN = 4096,            /* dynamic entries read */
	EC_PAGE = 4096,               /* when AT_PAGESZ is not known */
	EC_MAX_IMAGE_NOTES = 8,
};

/* What the reader needs of an ELF image (an executable, a library, the
 * vDSO), read from its header and program headers. */
struct ec_elf {
	uint8_t word;
	uint16_t machine, type;
	uint64_t entry;
	uint32_t phnum;
	bool has_load;
	uint64_t file_vaddr;      /* first PT_LOAD's p_vaddr - p_offset */
	uint64_t lo, hi;          /* the PT_LOAD segments' extent (vaddrs) */
	bool has_dynamic;
	uint64_t dyn_vaddr, dyn_size;
	uint32_t nnotes;
	struct { uint64_t vaddr, offset, size; } notes[EC_MAX_IMAGE_NOTES];
	uint8_t build_id[SW_BUILD_ID_MAX];
	size_t build_id_len;
};

/* A path of len bytes (no NUL among them) into the arena, its control
 * characters made '?': names end up in every output. */
static const char *arena_path(struct ec_reader *r, const char *bytes, size_t len)
{
	char *out = sw_arena_strndup(&r->snap->arena, bytes, len);
	for (char *p = out; p && *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = '?';
	return out;
}

const char *ec_mem_string(struct ec_reader *r, uint64_t addr, size_t cap)
{
	const struct sw_mem_region *m = sw_mem_find(r->snap, addr);
	if (!m)
		return NULL;
	struct sw_span s = sw_span_clip((struct sw_span){ m->data, m->size, 0, false },
	                                addr - m->base, cap);
	const uint8_t *nul = s.size ? memchr(s.data, '\0', (size_t)s.size) : NULL;
	if (!nul || nul == s.data)
		return NULL;
	return arena_path(r, (const char *)s.data, (size_t)(nul - s.data));
}

/* The same from the read-only bytes of an ELF file, at its virtual
 * address vaddr: what the process had mapped there, unchanged. */
static const char *file_string(struct ec_reader *r, struct sw_elf *file, uint64_t vaddr,
                               size_t cap)
{
	enum { CHUNK = 64 };
	char buf[EC_MAX_PATH];
	if (cap > sizeof buf)
		cap = sizeof buf;
	for (size_t n = 0; n < cap && vaddr + n >= vaddr;) {
		size_t chunk = cap - n < CHUNK ? cap - n : CHUNK;
		/* A read that would pass the end of the segment fails as a
		 * whole: there, byte by byte. */
		if (!sw_elf_read(file, vaddr + n, &buf[n], chunk)) {
			chunk = 1;
			if (!sw_elf_read(file, vaddr + n, &buf[n], chunk))
				return NULL;
		}
		const char *nul = memchr(&buf[n], '\0', chunk);
		if (nul)
			return nul > buf ? arena_path(r, buf, (size_t)(nul - buf)) : NULL;
		n += chunk;
	}
	return NULL;
}

/* The bytes of the core's memory from addr to the end of its region. */
static struct sw_span mem_span(const struct ec_reader *r, uint64_t addr)
{
	const struct sw_mem_region *m = sw_mem_find(r->snap, addr);
	if (!m)
		return (struct sw_span){ (const uint8_t *)"", 0, 0, r->file.big_endian };
	uint64_t skip = addr - m->base;
	return (struct sw_span){ m->data + skip, m->size - skip, addr, r->file.big_endian };
}

static bool mem_word(const struct ec_reader *r, uint64_t addr, uint64_t *out)
{
	uint8_t b[8];
	if (!sw_mem_read(r->snap, addr, b, r->word))
		return false;
	*out = sw_uint((struct sw_span){ b, r->word, 0, r->file.big_endian }, 0, r->word);
	return true;
}

/* ---- ELF images ------------------------------------------------------ */

/* Parses the ELF header and program headers at the start of h (both
 * must be inside h); false when h does not start with an ELF header of
 * the core's class and byte order. */
static bool elf_parse(const struct ec_reader *r, struct sw_span h, struct ec_elf *e)
{
	memset(e, 0, sizeof *e);
	if (!sw_span_has(h, 0, EI_NIDENT) || memcmp(h.data, ELFMAG, SELFMAG) != 0)
		return false;
	uint8_t cls = sw_u8(h, EI_CLASS), order = sw_u8(h, EI_DATA);
	if (cls != (r->word == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    order != (r->file.big_endian ? ELFDATA2MSB : ELFDATA2LSB))
		return false;
	h.big_endian = r->file.big_endian;
	bool is64 = cls == ELFCLASS64;
	e->word = is64 ? 8 : 4;
	if (!sw_span_has(h, 0, is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return false;
	e->type = sw_u16(h, offsetof(Elf64_Ehdr, e_type));
	e->machine = sw_u16(h, offsetof(Elf64_Ehdr, e_machine));
	uint64_t phoff;
	uint16_t phentsize;
	if (is64) {
		e->entry = sw_u64(h, offsetof(Elf64_Ehdr, e_entry));
		phoff = sw_u64(h, offsetof(Elf64_Ehdr, e_phoff));
		phentsize = sw_u16(h, offsetof(Elf64_Ehdr, e_phentsize));
		e->phnum = sw_u16(h, offsetof(Elf64_Ehdr, e_phnum));
	} else {
		e->entry = sw_u32(h, offsetof(Elf32_Ehdr, e_entry));
		phoff = sw_u32(h, offsetof(Elf32_Ehdr, e_phoff));
		phentsize = sw_u16(h, offsetof(Elf32_Ehdr, e_phentsize));
		e->phnum = sw_u16(h, offsetof(Elf32_Ehdr, e_phnum));
	}
	if (phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ||
	    !sw_span_has(h, phoff, (uint64_t)phentsize * e->phnum))
		return false;
	for (uint32_t i = 0; i < e->phnum; i++) {
		struct sw_span ph;
		if (!sw_span_sub(h, phoff + (uint64_t)i * phentsize, phentsize, &ph))
			return false;
		uint32_t type = sw_u32(ph, 0);
		uint64_t off, vaddr, filesz, memsz;
		if (is64) {
			off = sw_u64(ph, offsetof(Elf64_Phdr, p_offset));
			vaddr = sw_u64(ph, offsetof(Elf64_Phdr, p_vaddr));
			filesz = sw_u64(ph, offsetof(Elf64_Phdr, p_filesz));
			memsz = sw_u64(ph, offsetof(Elf64_Phdr, p_memsz));
		} else {
			off = sw_u32(ph, offsetof(Elf32_Phdr, p_offset));
			vaddr = sw_u32(ph, offsetof(Elf32_Phdr, p_vaddr));
			filesz = sw_u32(ph, offsetof(Elf32_Phdr, p_filesz));
			memsz = sw_u32(ph, offsetof(Elf32_Phdr, p_memsz));
		}
		if (type == PT_LOAD) {
			if (!e->has_load) {
				e->file_vaddr = vaddr - off;
				e->lo = vaddr;
				e->hi = vaddr + memsz;
			}
			if (vaddr < e->lo)
				e->lo = vaddr;
			if (vaddr + memsz > e->hi && memsz <= UINT64_MAX - vaddr)
				e->hi = vaddr + memsz;
			e->has_load = true;
		} else if (type == PT_DYNAMIC) {
			e->has_dynamic = true;
			e->dyn_vaddr = vaddr;
			e->dyn_size = memsz;
		} else if (type == PT_NOTE && e->nnotes < EC_MAX_IMAGE_NOTES) {
			e->notes[e->nnotes].vaddr = vaddr;
			e->notes[e->nnotes].offset = off;
			e->notes[e->nnotes].size = filesz;
			e->nnotes++;
		}
	}
	return e->has_load;
}

/* NT_GNU_BUILD_ID in one note segment's bytes. */
static void build_id_in(struct ec_elf *e, struct sw_span seg)
{
	uint64_t pos = 0;
	while (e->build_id_len == 0 && sw_span_has(seg, pos, 12)) {
		uint64_t namesz = sw_u32(seg, pos), descsz = sw_u32(seg, pos + 4);
		uint32_t type = sw_u32(seg, pos + 8);
		uint64_t desc_at = pos + 12 + ((namesz + 3) & ~(uint64_t)3);
		struct sw_span name, desc;
		if (!sw_span_sub(seg, pos + 12, namesz, &name) || !sw_span_sub(seg, desc_at, descsz, &desc))
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(name.data, "GNU", 4) == 0 &&
		    desc.size > 0) {
			e->build_id_len = desc.size > SW_BUILD_ID_MAX ? SW_BUILD_ID_MAX : (size_t)desc.size;
			memcpy(e->build_id, desc.data, e->build_id_len);
		}
		pos = desc_at + ((descsz + 3) & ~(uint64_t)3);
	}
}

/* The build-id of an image in the core's memory with its byte 0 at hdr. */
static void build_id_in_memory(const struct ec_reader *r, struct ec_elf *e, uint64_t hdr)
{
	for (uint32_t i = 0; i < e->nnotes && e->build_id_len == 0; i++) {
		uint64_t addr = hdr + (e->notes[i].vaddr - e->file_vaddr);
		struct sw_span s = mem_span(r, addr);
		build_id_in(e, sw_span_clip(s, 0, e->notes[i].size < EC_MAX_NOTE_BYTES
		                                      ? e->notes[i].size : EC_MAX_NOTE_BYTES));
	}
}

static void build_id_in_file(struct ec_elf *e, struct sw_span file)
{
	for (uint32_t i = 0; i < e->nnotes && e->build_id_len == 0; i++)
		build_id_in(e, sw_span_clip(file, e->notes[i].offset, e->notes[i].size));
}

/* The image whose byte 0 is at hdr in the core's memory. */
static bool elf_in_memory(const struct ec_reader *r, uint64_t hdr, struct ec_elf *e)
{
	if (!elf_parse(r, mem_span(r, hdr), e))
		return false;
	build_id_in_memory(r, e, hdr);
	return true;
}

/* ---- Files in the search paths --------------------------------------- */

/* Checks a candidate file for a module: true to take it. */
typedef bool (*accept_fn)(const struct ec_reader *r, const struct ec_elf *e, const void *ctx);

static bool try_file(struct ec_reader *r, const char *path, accept_fn ok, const void *ctx,
                     struct ec_elf *e)
{
	if (!sw_is_regular_file(path))
		return false;
	struct sw_mapped_file m = { 0 };
	struct sw_err err = { 0 };
	if (sw_map_file(path, &m, &err) != SW_OK)
		return false;
	struct sw_span s = { m.data ? m.data : (const uint8_t *)"", m.data ? m.size : 0, 0,
	                     r->file.big_endian };
	bool taken = elf_parse(r, s, e) && e->type != ET_CORE && e->machine == r->machine &&
	             ok(r, e, ctx);
	if (taken)
		build_id_in_file(e, s);
	sw_unmap_file(&m);
	return taken;
}

/* A file for module `name` (a path as the process knew it, or NULL) in
 * the search paths: a path that is a file is a candidate itself; in a
 * folder, DIR/NAME (a sysroot) and DIR/BASENAME. The path found (arena),
 * or NULL. */
static const char *find_file(struct ec_reader *r, const char *name, accept_fn ok,
                             const void *ctx, struct ec_elf *e)
{
	const struct sw_open_options *o = r->opts;
	struct sw_arena *a = &r->snap->arena;
	if (!o)
		return NULL;
	for (size_t i = 0; i < o->nsearch_paths; i++) {
		const char *p = o->search_paths[i];
		if (!p)
			continue;
		if (sw_is_directory(p)) {
			if (!name)
				continue;
			const char *in_root = name[0] == '/' ? sw_arena_printf(a, "%s%s", p, name) : NULL;
			const char *flat = sw_arena_printf(a, "%s/%s", p, sw_basename(name));
			if (in_root && try_file(r, in_root, ok, ctx, e))
				return in_root;
			if (flat && try_file(r, flat, ok, ctx, e))
				return flat;
		} else if (try_file(r, p, ok, ctx, e)) {
			return p;
		}
	}
	return NULL;
}

/* ---- Modules --------------------------------------------------------- */

static struct sw_module *add_module(struct ec_reader *r, uint32_t cap, uint64_t base,
                                    uint64_t size, const char *path)
{
	struct sw_snapshot *s = r->snap;
	if (s->nmodules >= cap)
		return NULL;
	struct sw_module *m = &s->modules[s->nmodules++];
	memset(m, 0, sizeof *m);
	m->base = base;
	m->size = size ? size : 1;
	m->code_file = path ? path : "";
	m->debug_file = sw_basename(m->code_file);
	return m;
}

static void set_identity(struct ec_reader *r, struct sw_module *m, const struct ec_elf *e)
{
	if (!e || e->build_id_len == 0)
		return;
	struct sw_span id = { e->build_id, e->build_id_len, 0, false };
	m->code_id = sw_build_id_code_id(&r->snap->arena, id);
	m->debug_id = sw_build_id_debug_id(&r->snap->arena, id);
}

static uint64_t page_size(const struct ec_reader *r)
{
	uint64_t p = r->auxv.pagesz;
	return p >= 512 && (p & (p - 1)) == 0 && p <= (1u << 30) ? p : EC_PAGE;
}

/* A module for an image whose byte 0 is at hdr: base hdr, up to its last
 * segment's end. */
static struct sw_module *add_image(struct ec_reader *r, uint32_t cap, uint64_t hdr,
                                   const struct ec_elf *e, const char *path)
{
	uint64_t pg = page_size(r);
	uint64_t end = hdr + (e->hi - e->file_vaddr);
	end = (end + pg - 1) & ~(pg - 1);
	uint64_t size = end > hdr && end - hdr < ((uint64_t)1 << 40) ? end - hdr : pg;
	struct sw_module *m = add_module(r, cap, hdr, size, path);
	if (m)
		set_identity(r, m, e);
	return m;
}

static int32_t module_holding(const struct sw_snapshot *s, uint64_t addr)
{
	for (uint32_t i = 0; i < s->nmodules; i++)
		if (addr - s->modules[i].base < s->modules[i].size)
			return (int32_t)i;
	return -1;
}

/* ---- 1. From a module map -------------------------------------------- */

static bool is_pseudo(const char *path)
{
	return !path || !path[0] || path[0] == '[';
}

struct map_ctx {
	uint64_t hdr, size;       /* where the file's byte 0 is mapped; how far */
};

/* A file fits a map when an executable is linked where it is mapped and
 * its segments fit in the mapped extent (a page of slack for the last). */
static bool accept_mapped(const struct ec_reader *r, const struct ec_elf *e, const void *ctx)
{
	const struct map_ctx *c = ctx;
	if (e->type == ET_EXEC && e->file_vaddr != c->hdr)
		return false;
	return (e->type == ET_EXEC || e->type == ET_DYN) &&
	       e->hi - e->file_vaddr <= c->size + page_size(r);
}

static void modules_from_maps(struct ec_reader *r, uint32_t cap)
{
	struct sw_snapshot *s = r->snap;
	for (uint32_t i = 0; i < s->nmaps;) {
		const struct sw_mapping *first = &s->maps[i];
		if (is_pseudo(first->path)) {
			i++;
			continue;
		}
		uint32_t last = i;
		bool exec = first->perms[2] == 'x';
		/* Consecutive mappings of one file; anonymous gaps between them
		 * (the .bss, ---p guards) do not end it. */
		for (uint32_t j = i + 1; j < s->nmaps; j++) {
			const struct sw_mapping *m = &s->maps[j];
			/* A small executable maps its page 0 twice (code, then
			 * data): offset 0 again is still the same module. */
			if (m->path && strcmp(m->path, first->path) == 0) {
				last = j;
				exec |= m->perms[2] == 'x';
			} else if (m->path) {
				break;
			}
		}
		uint64_t hdr = first->start - first->offset;
		struct ec_elf e;
		bool elf = first->offset <= first->start && elf_in_memory(r, hdr, &e);
		/* Not in the core (qemu-user's cores, a maps file): the file of
		 * that name in the search paths whose segments fit the map. */
		const char *file = NULL;
		if (!elf && exec) {
			struct map_ctx c = { hdr, s->maps[last].end - hdr };
			file = find_file(r, first->path, accept_mapped, &c, &e);
		}
		if (elf || exec) {
			struct sw_module *m =
				add_module(r, cap, first->start, s->maps[last].end - first->start, first->path);
			if (m) {
				m->load_bias = hdr - first->start;
				if (elf || file)
					set_identity(r, m, &e);
				m->image_path = file;
			}
		}
		i = last + 1;
	}
}

/* ---- 2. From the dynamic loader -------------------------------------- */

struct exe_ctx {
	uint64_t entry, phnum, page;
};

static bool accept_exe(const struct ec_reader *r, const struct ec_elf *e, const void *ctx)
{
	(void)r;
	const struct exe_ctx *c = ctx;
	uint64_t bias = c->entry - e->entry;
	if (e->type != ET_EXEC && e->type != ET_DYN)
		return false;
	if (c->phnum && e->phnum != c->phnum)
		return false;
	return e->type == ET_EXEC ? bias == 0 : (bias & (c->page - 1)) == 0;
}

struct lib_ctx {
	uint64_t l_addr, l_ld;
};

static bool accept_lib(const struct ec_reader *r, const struct ec_elf *e, const void *ctx)
{
	(void)r;
	const struct lib_ctx *c = ctx;
	return e->type == ET_DYN && e->has_dynamic && c->l_addr + e->dyn_vaddr == c->l_ld;
}

/* The executable: *e and its load bias; its module added. */
static bool find_executable(struct ec_reader *r, uint32_t cap, struct ec_elf *e, uint64_t *bias,
                            const char **exe_file)
{
	const struct ec_auxv *a = &r->auxv;
	if (!a->has_entry) {
		problem(r, true, "no NT_FILE and no AT_ENTRY in NT_AUXV: the executable "
		                 "cannot be placed: no module");
		return false;
	}
	const char *name = a->has_execfn ? ec_mem_string(r, a->execfn, EC_MAX_PATH) : NULL;
	if (!name)
		name = r->fname;
	uint64_t pg = page_size(r);
	/* The header page in memory: AT_PHDR's page, holding an ELF header
	 * whose program headers are at AT_PHDR. */
	bool found = false;
	uint64_t hdr = 0;
	if (a->has_phdr) {
		hdr = a->phdr & ~(pg - 1);
		found = elf_in_memory(r, hdr, e) && (e->type == ET_EXEC || e->type == ET_DYN);
	}
	const char *file = NULL;
	if (!found) {
		struct exe_ctx c = { a->entry, a->phnum, pg };
		file = find_file(r, name, accept_exe, &c, e);
		if (!file) {
			problem(r, true, "no NT_FILE, and the executable's ELF header is neither "
			                 "in the core nor in the search paths (%s): no module; give "
			                 "the executable as a symbol path, or --maps",
			        name ? name : "name unknown");
			return false;
		}
	}
	*bias = a->entry - e->entry;
	if (found && hdr != *bias + e->file_vaddr)
		problem(r, true, "the executable's header at 0x%llx does not match AT_ENTRY "
		                 "0x%llx (entry 0x%llx)",
		        (unsigned long long)hdr, (unsigned long long)a->entry,
		        (unsigned long long)e->entry);
	struct sw_module *m = add_image(r, cap, *bias + e->file_vaddr, e, name ? name : file);
	if (m && file)
		m->image_path = file;
	*exe_file = file;
	return true;
}

/* A word of the executable's dynamic section: from the core, else from
 * its file. qemu-user leaves out every mapping that starts with an ELF
 * header, and on MIPS the dynamic section lies in that first, read-only
 * segment. */
static bool dyn_word(const struct ec_reader *r, struct sw_elf *file, uint64_t bias, uint64_t at,
                     uint64_t *out)
{
	if (mem_word(r, at, out))
		return true;
	uint8_t b[8];
	if (!file || !sw_elf_read(file, at - bias, b, r->word))
		return false;
	*out = sw_uint((struct sw_span){ b, r->word, 0, r->file.big_endian }, 0, r->word);
	return true;
}

/* The address of struct r_debug: DT_DEBUG, or MIPS's RLD_MAP word. file:
 * the executable's file, when it came from the search paths, or NULL. */
static bool find_r_debug(struct ec_reader *r, const struct ec_elf *e, uint64_t bias,
                         struct sw_elf *file, uint64_t *out)
{
	uint64_t dyn = bias + e->dyn_vaddr, w = r->word;
	uint64_t n = e->dyn_size / (2 * w);
	if (n > EC_MAX_DYN)
		n = EC_MAX_DYN;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t at = dyn + i * 2 * w, tag, val;
		if (!dyn_word(r, file, bias, at, &tag) || !dyn_word(r, file, bias, at + w, &val)) {
			problem(r, true, "the executable's dynamic section (0x%llx) is not in the "
			                 "core: no shared library found",
			        (unsigned long long)at);
			return false;
		}
		if (tag == DT_NULL)
			break;
		if (tag == DT_DEBUG && val != 0) {
			*out = val;
			return true;
		}
		if (r->machine == EM_MIPS && (tag == DT_MIPS_RLD_MAP || tag == DT_MIPS_RLD_MAP_REL)) {
			uint64_t slot = tag == DT_MIPS_RLD_MAP ? val : at + val;
			if (w == 4)
				slot &= UINT32_MAX;
			if (mem_word(r, slot, out) && *out != 0)
				return true;
		}
	}
	problem(r, true, "the executable's dynamic section holds no r_debug address "
	                 "(DT_DEBUG is 0 before ld.so runs): no shared library found");
	return false;
}

/* The core's PT_LOAD holding addr, or NULL. */
static const struct ec_load *load_holding(const struct ec_reader *r, uint64_t addr)
{
	for (uint32_t i = 0; i < r->nloads; i++)
		if (addr - r->loads[i].vaddr < r->loads[i].memsz)
			return &r->loads[i];
	return NULL;
}

static void add_library(struct ec_reader *r, uint32_t cap, uint64_t l_addr, uint64_t l_ld,
                        const char *name)
{
	struct ec_elf e;
	/* A library's first segment is at vaddr 0 as a rule: its header at
	 * l_addr; a prelinked one's elsewhere, known only from a file. */
	if (elf_in_memory(r, l_addr, &e) && e.has_dynamic && l_addr + e.dyn_vaddr == l_ld) {
		add_image(r, cap, l_addr + e.file_vaddr, &e, name);
		return;
	}
	struct lib_ctx c = { l_addr, l_ld };
	const char *file = find_file(r, name, accept_lib, &c, &e);
	if (file) {
		struct sw_module *m = add_image(r, cap, l_addr + e.file_vaddr, &e, name);
		if (m)
			m->image_path = file;
		return;
	}
	/* Neither: from l_addr to the end of the segment holding l_ld (the
	 * dynamic section is in the library's last, writable segment). */
	const struct ec_load *l = load_holding(r, l_ld);
	uint64_t end = l ? l->vaddr + l->memsz : l_ld + page_size(r);
	uint64_t size = end > l_addr && end - l_addr < ((uint64_t)1 << 32) ? end - l_addr
	                                                                   : page_size(r);
	add_module(r, cap, l_addr, size, name);
	problem(r, true, "%s: its ELF header is neither in the core nor in the search "
	                 "paths: its extent is guessed and it has no build-id",
	        name);
}

static bool seen_before(const uint64_t *seen, uint32_t n, uint64_t addr)
{
	for (uint32_t i = 0; i < n; i++)
		if (seen[i] == addr)
			return true;
	return false;
}

/* The executable as the link_map walk needs it: its image, load bias,
 * and its file when the core lacks its read-only pages. */
struct ec_exe {
	struct ec_elf elf;
	uint64_t bias;
	struct sw_elf *file;      /* NULL: its header was in the core, or unreadable */
};

/* The name a link_map entry's l_name points at: in the core's memory, else
 * in the executable's read-only bytes, read from its file. The dynamic
 * loader's own entry needs the latter: glibc's rtld (dl_main, PT_INTERP)
 * names it by the executable's PT_INTERP string where the executable is
 * mapped (l_addr + p_vaddr of .interp), in its first segment, which qemu-
 * user leaves out of its cores as it starts with an ELF header. */
static const char *link_map_name(struct ec_reader *r, const struct ec_exe *exe, uint64_t l_name)
{
	const char *name = ec_mem_string(r, l_name, EC_MAX_PATH);
	uint64_t lo = exe->bias + exe->elf.lo, hi = exe->bias + exe->elf.hi;
	if (name || !exe->file || l_name < lo || l_name >= hi)
		return name;
	return file_string(r, exe->file, l_name - exe->bias, EC_MAX_PATH);
}

static void follow_link_map(struct ec_reader *r, uint32_t cap, const struct ec_exe *exe,
                            uint64_t lm);

static void modules_from_link_map(struct ec_reader *r, uint32_t cap)
{
	struct sw_snapshot *s = r->snap;
	struct ec_exe exe = { .file = NULL };
	const char *exe_file = NULL;
	if (!find_executable(r, cap, &exe.elf, &exe.bias, &exe_file))
		return;
	s->main_module = 0;
	if (!exe.elf.has_dynamic)
		return; /* a static executable */
	struct sw_err err = { 0 };
	exe.file = exe_file ? sw_elf_open_file(exe_file, 0, &err) : NULL;
	uint64_t rdebug, lm;
	if (!find_r_debug(r, &exe.elf, exe.bias, exe.file, &rdebug)) {
		sw_elf_free(exe.file);
		return;
	}
	if (mem_word(r, rdebug + r->word, &lm))
		follow_link_map(r, cap, &exe, lm);
	else
		problem(r, true, "r_debug at 0x%llx is not in the core: no shared library found",
		        (unsigned long long)rdebug);
	sw_elf_free(exe.file);
}

/* One module per named entry of the chain that starts at lm. */
static void follow_link_map(struct ec_reader *r, uint32_t cap, const struct ec_exe *exe,
                            uint64_t lm)
{
	struct sw_snapshot *s = r->snap;
	uint64_t w = r->word, exe_ld = exe->bias + exe->elf.dyn_vaddr;
	uint64_t *seen = malloc(EC_MAX_LINK_MAP * sizeof *seen);
	s->link_map = sw_arena_array(&s->arena, EC_MAX_LINK_MAP, sizeof *s->link_map);
	if (!seen || !s->link_map) {
		free(seen);
		s->link_map = NULL;
		return;
	}
	uint32_t n = 0;
	uint64_t vdso = r->auxv.has_sysinfo_ehdr ? r->auxv.sysinfo_ehdr : 0;
	while (lm != 0) {
		if (seen_before(seen, n, lm)) {
			problem(r, false, "the link_map chain comes back to 0x%llx: it loops; "
			                  "cut there",
			        (unsigned long long)lm);
			break;
		}
		if (n >= EC_MAX_LINK_MAP) {
			problem(r, false, "the link_map chain is longer than %d entries: cut there",
			        EC_MAX_LINK_MAP);
			break;
		}
		seen[n] = lm;
		uint64_t l_addr, l_name, l_ld, next;
		if (!mem_word(r, lm, &l_addr) || !mem_word(r, lm + w, &l_name) ||
		    !mem_word(r, lm + 2 * w, &l_ld) || !mem_word(r, lm + 3 * w, &next)) {
			problem(r, false, "link_map entry 0x%llx is not in the core: the chain is "
			                  "cut there",
			        (unsigned long long)lm);
			break;
		}
		const char *name = link_map_name(r, exe, l_name);
		s->link_map[n] = (struct sw_link_map_entry){ l_addr, l_ld, name ? name : "" };
		n++;
		s->nlink_map = n;
		lm = next;
		/* The executable (no name on Linux; NetBSD's ld.elf_so names it
		 * as it was run, a better name than the 16-byte p_comm when no
		 * AT_EXECFN gave one) and the vDSO (its dynamic section inside
		 * the vDSO's page) are found otherwise. */
		if (name && l_ld == exe_ld && !r->auxv.has_execfn) {
			s->modules[0].code_file = name;
			s->modules[0].debug_file = sw_basename(name);
		}
		if (!name || l_ld == exe_ld || (vdso && l_ld - vdso < 0x10000))
			continue;
		add_library(r, cap, l_addr, l_ld, name);
	}
	free(seen);
}

/* ---- 3. The vDSO ----------------------------------------------------- */

static void add_vdso(struct ec_reader *r, uint32_t cap)
{
	struct sw_snapshot *s = r->snap;
	if (!r->auxv.has_sysinfo_ehdr || r->auxv.sysinfo_ehdr == 0)
		return;
	uint64_t at = r->auxv.sysinfo_ehdr;
	struct ec_elf e;
	if (!elf_in_memory(r, at, &e)) {
		problem(r, true, "the vDSO at 0x%llx (AT_SYSINFO_EHDR) is not in the core",
		        (unsigned long long)at);
		return;
	}
	if (module_holding(s, at) >= 0)
		return;
	struct sw_module *m = add_image(r, cap, at, &e, "[vdso]");
	if (!m)
		return;
	/* The kernel's image, mapped whole: its symbols and CFI are read
	 * from the core. Its soname is linux-vdso.so.1 (linux-gate.so.1 on
	 * i386), the name its symbol files go by. */
	m->debug_file = r->machine == EM_386 ? "linux-gate.so.1" : "linux-vdso.so.1";
	m->image_addr = at;
}

/* ---- All together ---------------------------------------------------- */

static void read_maps_file(struct ec_reader *r)
{
	const char *path = r->opts->maps_file;
	struct sw_mapped_file m = { 0 };
	struct sw_err err = { 0 };
	if (sw_map_file(path, &m, &err) != SW_OK) {
		problem(r, false, "%s", err.msg);
		return;
	}
	static const uint8_t empty[1];
	struct sw_span text = { m.data ? m.data : empty, m.data ? m.size : 0, 0, false };
	r->damage += sw_proc_maps_read(r->snap, text, path);
	sw_unmap_file(&m);
}

void ec_find_modules(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	bool use_maps = r->has_nt_file;
	if (!use_maps && r->opts && r->opts->maps_file) {
		s->maps = NULL;
		s->nmaps = 0;
		read_maps_file(r);
		use_maps = true;
	}
	uint32_t cap = (use_maps ? s->nmaps : EC_MAX_LINK_MAP + 1) + 1;
	s->modules = sw_arena_array(&s->arena, cap, sizeof *s->modules);
	if (!s->modules) {
		problem(r, false, "out of memory for %u modules", cap);
		return;
	}
	s->main_module = -1;
	if (use_maps)
		modules_from_maps(r, cap);
	else
		modules_from_link_map(r, cap);
	add_vdso(r, cap);
	if (s->main_module < 0 && s->nmodules > 0) {
		/* The module holding the entry point; else the first, unless it
		 * is the vDSO (the executable was not found). */
		int32_t m = r->auxv.has_entry ? module_holding(s, r->auxv.entry) : -1;
		if (m < 0 && s->modules[0].image_addr == 0)
			m = 0;
		s->main_module = m;
	}
}
