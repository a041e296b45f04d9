/* Offline reader, maps.txt and the modules.
 *
 * maps.txt is /proc/PID/maps, read by proc_maps.c into snap->maps.
 *
 * The modules are the mapped ELF files. Where a map's ELF starts in its
 * file follows libunwindstack (MapInfo::CreateFileMemory):
 *   offset 0           the ELF starts at the file's start;
 *   (a)                an ELF header at the map's offset: a library stored
 *                      in an APK starts there ("fake.apk!libfoo.so");
 *   (b)                the whole file is an ELF: it starts at 0 and the
 *                      map is one of its segments (lld's split maps);
 *   (c)                the previous named map has the same name, is r--p
 *                      and a smaller offset: the ELF starts at that offset
 *                      (a library in an APK mapped r--p then r-xp);
 *   else               no ELF is known (the map's offset is its start).
 * A file that is not in the folder may still be in the captured memory
 * (rule (c) and offset 0 then look there). Consecutive maps of one file
 * whose ELF starts at the same place (blank ---p gaps between them
 * allowed) form one module; so does a writable map that follows them.
 *
 * A module's addresses: libunwindstack's REL_PC, the ELF virtual address
 * of A, is A - map.start + (map.offset - elf_start) + exec_load_bias for
 * the map holding A (its executable one). stackwalk's is
 * A - base - load_bias + file_vaddr, so
 *   load_bias = map.start - map.offset + elf_start - base + file_vaddr
 *               - exec_load_bias     (modulo 2^64). */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/build_id.h"
#include "lib/mapped_file.h"
#include "offline_internal.h"
#include "symbols/elf_image.h"
#include "symbols/gz.h"

enum {
	/* Files opened while finding modules: each distinct name once when
	 * its maps are together (a real capture), more when a hostile
	 * maps.txt alternates names. */
	OL_MAX_FILE_LOADS = 4096,
};

/* ---- The files maps.txt names ---------------------------------------- */

/* The bytes of the file a run of maps names, loaded once for the run: the
 * file in the folder (NAME, else NAME.gz inflated), or an absolute path
 * that exists. */
struct ol_file {
	const char *name;         /* the map name it was loaded for; NULL: none */
	const char *path;         /* where it was found (arena); NULL: absent */
	struct sw_mapped_file map;
	uint8_t *inflated;        /* a .gz file's contents (malloc) */
	const uint8_t *data;
	size_t size;
};

static void file_release(struct ol_file *f)
{
	sw_unmap_file(&f->map);
	free(f->inflated);
	memset(f, 0, sizeof *f);
}

/* Kernel files look regular but are not files to read: /proc/kcore is
 * the machine's memory, /proc/PID/mem a process's. A maps.txt naming them
 * (a hostile one, or a capture of a process that mapped them) does not
 * make the reader open them. */
static bool under_system_dir(const char *real)
{
	static const char *const prefixes[] = { "/proc/", "/sys/", "/dev/" };
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(real, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* The file itself, and the folder it is in before its last link is
 * followed (/proc/self/exe is a link out of /proc). */
static bool is_system_path(const char *path)
{
	char real[PATH_MAX], parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	if (!realpath(path, real) || n >= sizeof parent)
		return true;
	memcpy(parent, slash ? path : ".", slash ? n : 1);
	parent[slash ? n : 1] = '\0';
	if (slash && n == 0)
		strcpy(parent, "/");
	char real_parent[PATH_MAX];
	if (!realpath(parent, real_parent))
		return true;
	size_t len = strlen(real_parent);
	if (len + 1 < sizeof real_parent && real_parent[len - 1] != '/') {
		real_parent[len] = '/';
		real_parent[len + 1] = '\0';
	}
	return under_system_dir(real) || under_system_dir(real_parent);
}

/* Is path a regular file that may be opened? */
static bool usable_file(const char *path)
{
	if (strlen(path) >= PATH_MAX || is_system_path(path))
		return false;
	unsigned mode;
	int fd = sw_open_regular_file(path, &mode);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

enum { OL_MAX_LINKS_BYTES = 1 << 20 };

/* links.txt: "TARGET LINKNAME" lines, each saying that the file maps.txt
 * calls LINKNAME is kept at TARGET (relative to the folder): captures that
 * share files keep one copy of them (Android's libunwindstack test data
 * links its cases to a common folder). The target of name (relative to
 * the folder, or absolute), or name. */
static const char *linked_name(struct ol_reader *r, const char *name)
{
	if (!r->links_read) {
		r->links_read = true;
		const char *path = sw_arena_printf(&r->snap->arena, "%s/links.txt", r->dir);
		struct sw_mapped_file m;
		struct sw_err err = { 0 };
		if (path && usable_file(path) && sw_map_file(path, &m, &err) == SW_OK) {
			if (m.size > OL_MAX_LINKS_BYTES)
				problem(r, true, "%s: over %d bytes: ignored", path, OL_MAX_LINKS_BYTES);
			else if (m.size) {
				char *copy = sw_arena_strndup(&r->snap->arena, (const char *)m.data, m.size);
				if (copy)
					r->links = (struct sw_span){ (const uint8_t *)copy, m.size, 0, false };
			}
			sw_unmap_file(&m);
		}
	}
	if (!r->links.size)
		return name; /* no links.txt (and no span over a NULL to cut) */
	uint64_t pos = 0;
	struct sw_span line;
	size_t n = strlen(name);
	while (text_next_line(r->links, &pos, &line)) {
		struct sw_span rest = line;
		struct sw_span target = text_next_word(&rest);
		struct sw_span link = text_trim(rest);
		if (target.size && link.size == n && memcmp(link.data, name, n) == 0)
			return sw_arena_strndup(&r->snap->arena, (const char *)target.data, target.size);
	}
	return name;
}

static void file_load(struct ol_reader *r, struct ol_file *f, const char *name,
                      uint32_t *loads)
{
	if (f->name && strcmp(f->name, name) == 0)
		return;
	file_release(f);
	f->name = name;
	if (*loads >= OL_MAX_FILE_LOADS) {
		if (*loads == OL_MAX_FILE_LOADS)
			problem(r, true, "%s/maps.txt: more than %d file loads (names that come "
			                 "back after other names): later modules have no image",
			        r->dir, OL_MAX_FILE_LOADS);
		(*loads)++;
		return;
	}
	(*loads)++;
	struct sw_arena *a = &r->snap->arena;
	const char *stored = name[0] == '/' ? name : linked_name(r, name);
	if (!stored)
		return;
	/* A link's target is relative to the folder, or absolute. */
	const char *plain = stored[0] == '/' ? stored : sw_arena_printf(a, "%s/%s", r->dir, stored);
	const char *gz = stored[0] == '/' ? sw_arena_printf(a, "%s.gz", stored)
	                                  : sw_arena_printf(a, "%s/%s.gz", r->dir, stored);
	if (!plain || !gz)
		return;
	/* A relative name is looked up in the folder (the capture's copy of
	 * the file); an absolute one, in the folder first (by its path
	 * under it), then where the capture's process had it. */
	const char *in_folder = name[0] == '/' ? sw_arena_printf(a, "%s%s", r->dir, name) : plain;
	const char *in_folder_gz = name[0] == '/' ? sw_arena_printf(a, "%s%s.gz", r->dir, name) : gz;
	struct sw_err err = { 0 };
	if (in_folder && usable_file(in_folder)) {
		if (sw_map_file(in_folder, &f->map, &err) == SW_OK) {
			f->path = in_folder;
			f->data = f->map.data;
			f->size = f->map.size;
		}
	} else if (in_folder_gz && usable_file(in_folder_gz)) {
		size_t len = 0;
		enum sw_err_code rc = sw_gz_read_file(in_folder_gz, &f->inflated, &len, &err);
		if (rc == SW_OK) {
			f->path = in_folder_gz;
			f->data = f->inflated;
			f->size = len;
		} else {
			free(f->inflated);
			f->inflated = NULL;
			problem(r, true, "%s", err.msg);
		}
	} else if (name[0] == '/' && usable_file(name)) {
		if (sw_map_file(name, &f->map, &err) == SW_OK) {
			f->path = name;
			f->data = f->map.data;
			f->size = f->map.size;
		}
	}
}

/* An ELF file header (System V gABI, "ELF Header"), not just its magic:
 * ld.so carries a bare e_ident in its read-only data, which must not pass
 * for a library stored at that offset. */
static bool elf_header_ok(struct sw_span h)
{
	if (!sw_span_has(h, 0, sizeof(Elf32_Ehdr)) || memcmp(h.data, ELFMAG, SELFMAG) != 0)
		return false;
	uint8_t cls = sw_u8(h, EI_CLASS), data = sw_u8(h, EI_DATA);
	if ((cls != ELFCLASS32 && cls != ELFCLASS64) || (data != ELFDATA2LSB && data != ELFDATA2MSB) ||
	    sw_u8(h, EI_VERSION) != EV_CURRENT)
		return false;
	h.big_endian = data == ELFDATA2MSB;
	/* e_type, e_machine and e_version sit at the same offsets in both
	 * classes; e_ehsize does not. */
	uint16_t type = sw_u16(h, offsetof(Elf32_Ehdr, e_type));
	uint16_t ehsize = cls == ELFCLASS32 ? sw_u16(h, offsetof(Elf32_Ehdr, e_ehsize))
	                                    : sw_u16(h, offsetof(Elf64_Ehdr, e_ehsize));
	return type >= ET_REL && type <= ET_CORE &&
	       sw_u32(h, offsetof(Elf32_Ehdr, e_version)) == EV_CURRENT &&
	       ehsize == (cls == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr));
}

static bool bytes_are_elf(const uint8_t *data, size_t size, uint64_t off)
{
	struct sw_span s = { data, size, 0, false };
	/* An empty file maps to no memory: nothing to cut a span from. */
	return data && sw_span_has(s, off, 0) &&
	       elf_header_ok(sw_span_clip(s, off, sizeof(Elf64_Ehdr)));
}

static bool memory_is_elf(const struct sw_snapshot *s, uint64_t addr)
{
	uint8_t h[sizeof(Elf64_Ehdr)];
	size_t n = sizeof h;
	/* A 32-bit header may end its region. */
	if (!sw_mem_read(s, addr, h, n)) {
		n = sizeof(Elf32_Ehdr);
		if (!sw_mem_read(s, addr, h, n))
			return false;
	}
	return elf_header_ok((struct sw_span){ h, n, 0, false });
}

/* ---- Where each map's ELF starts ------------------------------------- */

enum ol_elf_where { OL_ELF_NONE, OL_ELF_FILE, OL_ELF_MEMORY };

struct ol_start {
	uint64_t offset;          /* file offset where the ELF starts */
	enum ol_elf_where where;
	uint64_t addr;            /* OL_ELF_MEMORY: its address */
};

static bool named(const struct sw_mapping *m)
{
	return m->path && m->path[0] != '\0';
}

/* The previous map with a name (blank gap maps between segments skipped:
 * libunwindstack's prev_real_map), or NULL. */
static const struct sw_mapping *prev_named(const struct sw_snapshot *s, uint32_t i)
{
	while (i-- > 0)
		if (named(&s->maps[i]))
			return &s->maps[i];
	return NULL;
}

static struct ol_start elf_start(const struct ol_reader *r, uint32_t i, const struct ol_file *f)
{
	const struct sw_snapshot *s = r->snap;
	const struct sw_mapping *m = &s->maps[i];
	const struct sw_mapping *prev = prev_named(s, i);
	struct ol_start st = { m->offset, OL_ELF_NONE, 0 };
	bool rule_c = prev && strcmp(prev->path, m->path) == 0 &&
	              memcmp(prev->perms, "r--p", 4) == 0 && prev->offset < m->offset;
	if (f->path) {
		if (bytes_are_elf(f->data, f->size, m->offset)) {
			st.where = OL_ELF_FILE; /* offset 0, or (a) */
		} else if (bytes_are_elf(f->data, f->size, 0)) {
			st.offset = 0;  /* (b) */
			st.where = OL_ELF_FILE;
		} else if (rule_c) {
			st.offset = prev->offset;
			st.where = bytes_are_elf(f->data, f->size, prev->offset) ? OL_ELF_FILE
			                                                          : OL_ELF_NONE;
		}
		return st;
	}
	/* Not in the folder: the memory the capture holds, at the address
	 * where the ELF's first byte is mapped. */
	if (rule_c)
		st.offset = prev->offset;
	uint64_t into = m->offset - st.offset;
	if (into <= m->start && memory_is_elf(s, m->start - into)) {
		st.where = OL_ELF_MEMORY;
		st.addr = m->start - into;
	}
	return st;
}

/* ---- Modules --------------------------------------------------------- */

/* A run of maps that is one module. */
struct ol_group {
	uint32_t first, last;     /* map indexes */
	uint32_t exec;            /* the map whose addresses set the bias */
	bool has_exec;
	struct ol_start start;
};

enum sw_cpu ol_elf_cpu(uint16_t machine, uint8_t word_size)
{
	switch (machine) {
	case EM_386: return SW_CPU_X86;
	case EM_X86_64: return SW_CPU_AMD64;
	case EM_ARM: return SW_CPU_ARM;
	case EM_AARCH64: return SW_CPU_ARM64;
	case EM_MIPS: return word_size == 8 ? SW_CPU_MIPS64 : SW_CPU_MIPS;
	case EM_RISCV: return word_size == 8 ? SW_CPU_RISCV64 : SW_CPU_RISCV32;
	case EM_PPC: return SW_CPU_PPC;
	case EM_PPC64: return SW_CPU_PPC64;
	default: return SW_CPU_UNKNOWN;
	}
}

/* Fills module m from its ELF image (NULL: none found). */
static void module_from_elf(struct ol_reader *r, uint32_t mi, const struct ol_group *g,
                            struct sw_elf *elf, const struct ol_file *f)
{
	struct sw_snapshot *s = r->snap;
	struct sw_module *m = &s->modules[mi];
	const struct sw_mapping *first = &s->maps[g->first], *e = &s->maps[g->exec];
	m->base = first->start;
	m->size = s->maps[g->last].end - first->start;
	m->code_file = first->path;
	m->debug_file = sw_basename(first->path);
	uint64_t file_vaddr = 0, exec_bias = 0;
	if (elf) {
		const struct sw_elf_info *info = sw_elf_info(elf);
		r->module_machine[mi] = info->machine;
		r->module_word_size[mi] = info->word_size;
		file_vaddr = info->file_vaddr;
		exec_bias = info->has_exec_segment ? info->exec_load_bias : info->file_vaddr;
		if (info->soname) {
			const char *soname = sw_arena_strdup(&s->arena, info->soname);
			if (soname)
				m->debug_file = soname;
			/* As Android prints a library stored in an APK. */
			if (soname && g->start.where == OL_ELF_FILE && g->start.offset != 0) {
				const char *both = sw_arena_printf(&s->arena, "%s!%s", first->path, soname);
				if (both)
					m->code_file = both;
			}
		}
		if (info->build_id && info->build_id_len > 0) {
			struct sw_span id = { info->build_id, info->build_id_len, 0, false };
			m->code_id = sw_build_id_code_id(&s->arena, id);
			m->debug_id = sw_build_id_debug_id(&s->arena, id);
		}
		if (g->start.where == OL_ELF_FILE) {
			m->image_path = f->path;
			m->image_offset = g->start.offset;
		} else {
			m->image_addr = g->start.addr;
		}
	}
	m->load_bias = e->start - e->offset + g->start.offset - m->base + file_vaddr - exec_bias;
}

/* Opens the ELF a group's start names; NULL when there is none. */
static struct sw_elf *open_group_elf(struct ol_reader *r, const struct ol_group *g,
                                     const struct ol_file *f)
{
	struct sw_snapshot *s = r->snap;
	const char *name = s->maps[g->first].path;
	struct sw_err err = { 0 };
	struct sw_elf *elf = NULL;
	if (g->start.where == OL_ELF_FILE) {
		elf = sw_elf_open_bytes(f->data + g->start.offset, f->size - (size_t)g->start.offset,
		                        false, f->path, &err);
	} else if (g->start.where == OL_ELF_MEMORY) {
		const struct sw_mem_region *reg = sw_mem_find(s, g->start.addr);
		if (!reg)
			return NULL;
		uint64_t off = g->start.addr - reg->base;
		elf = sw_elf_open_bytes(reg->data + off, (size_t)(reg->size - off), false, name, &err);
	} else {
		return NULL;
	}
	if (!elf)
		problem(r, true, "%s/maps.txt: %s: its ELF image cannot be read (%s): module "
		                 "without image",
		        r->dir, name, err.msg);
	return elf;
}

/* Does map i continue group g (same file, same ELF)? */
static bool continues(const struct sw_snapshot *s, const struct ol_group *g, uint32_t i,
                      const struct ol_start *st)
{
	const struct sw_mapping *m = &s->maps[i];
	if (prev_named(s, i) != &s->maps[g->last] || strcmp(m->path, s->maps[g->first].path) != 0)
		return false;
	if (st->offset == g->start.offset && st->where == g->start.where)
		return true;
	/* A writable segment after the code of a library in an APK: rule (c)
	 * looks only one map back, so it says "no ELF" for it. */
	return st->where == OL_ELF_NONE && m->offset >= g->start.offset;
}

static void emit_group(struct ol_reader *r, const struct ol_group *g, const struct ol_file *f,
                       uint32_t cap)
{
	struct sw_snapshot *s = r->snap;
	if (!g->has_exec && g->start.where == OL_ELF_NONE)
		return; /* data: a font, a dex file, an absent file not holding code */
	if (s->nmodules >= cap)
		return;
	struct sw_elf *elf = open_group_elf(r, g, f);
	uint32_t mi = s->nmodules++;
	module_from_elf(r, mi, g, elf, f);
	sw_elf_free(elf);
}

static bool is_pseudo_name(const char *name)
{
	/* [stack], [heap], [vdso] (a vdso file in the folder is named
	 * without brackets), [anon:...]: the kernel's names, never files. */
	return name[0] == '[';
}

void ol_find_modules(struct ol_reader *r)
{
	struct sw_snapshot *s = r->snap;
	uint32_t cap = s->nmaps;
	if (cap == 0)
		return;
	s->modules = sw_arena_array(&s->arena, cap, sizeof *s->modules);
	r->module_machine = sw_arena_array(&s->arena, cap, sizeof *r->module_machine);
	r->module_word_size = sw_arena_array(&s->arena, cap, sizeof *r->module_word_size);
	if (!s->modules || !r->module_machine || !r->module_word_size) {
		s->modules = NULL;
		problem(r, false, "%s/maps.txt: out of memory for %u modules", r->dir, cap);
		return;
	}
	struct ol_file file = { 0 };
	uint32_t loads = 0;
	struct ol_group g = { 0 };
	bool open = false;
	for (uint32_t i = 0; i < s->nmaps; i++) {
		const struct sw_mapping *m = &s->maps[i];
		if (!named(m))
			continue; /* blank gaps do not end a group */
		/* A group is emitted while its file is still the one loaded. */
		bool pseudo = is_pseudo_name(m->path);
		if (open && (pseudo || strcmp(m->path, s->maps[g.first].path) != 0)) {
			emit_group(r, &g, &file, cap);
			open = false;
		}
		if (pseudo)
			continue;
		file_load(r, &file, m->path, &loads);
		struct ol_start st = elf_start(r, i, &file);
		bool exec = m->perms[2] == 'x';
		if (open && continues(s, &g, i, &st)) {
			g.last = i;
			if (exec && !g.has_exec) {
				g.exec = i;
				g.has_exec = true;
			}
			continue;
		}
		if (open)
			emit_group(r, &g, &file, cap);
		g = (struct ol_group){ .first = i, .last = i, .exec = i, .has_exec = exec, .start = st };
		open = true;
	}
	if (open)
		emit_group(r, &g, &file, cap);
	file_release(&file);
}
