/* Finding a module's ELF files (see elf_locate.h). */
#include "elf_locate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/build_id.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"
#include "lib/path.h"
#include "store_layout.h"

enum { MAX_BUILD_ID = 64 };

struct identity {
	uint8_t build_id[MAX_BUILD_ID];
	size_t build_id_len;        /* 0: the module has none */
	const char *debug_id;       /* Breakpad form, or NULL */
	const char *name;           /* base name of the code file */
};

/* The module's GNU build-id: ELF modules' code id is its hex. */
static void module_identity(const struct sw_module *m, struct identity *id)
{
	memset(id, 0, sizeof *id);
	id->debug_id = m->debug_id && *m->debug_id ? m->debug_id : NULL;
	id->name = m->code_file && *m->code_file ? sw_basename(m->code_file) : NULL;
	if (!sw_build_id_from_code_id(m->code_id, id->build_id, MAX_BUILD_ID, &id->build_id_len))
		id->build_id_len = 0;
}

static bool already_refused(const struct sw_elf_locator *l, const char *path)
{
	return sw_strlist_has(&l->refused, path);
}

static void refuse(struct sw_elf_locator *l, const char *path, const char *fmt, const char *why)
{
	if (already_refused(l, path) || !sw_strlist_add(&l->refused, path))
		return;
	char *line;
	if (l->warn && asprintf(&line, fmt, path, why) >= 0) {
		l->warn(l->warn_self, line);
		free(line);
	}
}

void sw_elf_locator_free(struct sw_elf_locator *l)
{
	sw_strlist_free(&l->refused);
}

/* A build-id in hex, its first MAX_BUILD_ID bytes (out: 2 * MAX_BUILD_ID + 1). */
static void hex_of(const uint8_t *b, size_t n, char *out)
{
	sw_hex_encode(b, n < MAX_BUILD_ID ? n : MAX_BUILD_ID, out);
}

static bool has_build_id(const struct sw_elf_info *info, const struct identity *id)
{
	return info->build_id && info->build_id_len == id->build_id_len &&
	       memcmp(info->build_id, id->build_id, id->build_id_len) == 0;
}

/* Is e the module's build? By build-id when both have one; by Breakpad's
 * debug id when only the module's debug id is known; by name alone when
 * neither side has an id. */
static bool same_build(struct sw_elf_locator *l, const struct identity *id, struct sw_elf *e,
                       const char *path)
{
	const struct sw_elf_info *info = sw_elf_info(e);
	if (id->build_id_len) {
		if (has_build_id(info, id))
			return true;
		char want[2 * MAX_BUILD_ID + 1], got[2 * MAX_BUILD_ID + 1];
		hex_of(id->build_id, id->build_id_len, want);
		if (info->build_id)
			hex_of(info->build_id, info->build_id_len, got);
		char why[400];
		snprintf(why, sizeof why, "its build-id is %s, the module's is %s",
		         info->build_id ? got : "missing", want);
		refuse(l, path, "%s: ELF file not used: %s", why);
		return false;
	}
	if (info->build_id && id->debug_id) {
		struct sw_arena scratch;
		sw_arena_init(&scratch);
		struct sw_span bid = { info->build_id, info->build_id_len, 0, false };
		const char *did = sw_build_id_debug_id(&scratch, bid);
		bool same = did && strcasecmp(did, id->debug_id) == 0;
		if (!same) {
			char why[200];
			snprintf(why, sizeof why, "its debug id is %s, the module's is %s",
			         did ? did : "unknown", id->debug_id);
			refuse(l, path, "%s: ELF file not used: %s", why);
		}
		sw_arena_free(&scratch);
		return same;
	}
	return !info->build_id;
}

/* Opens path (or path.gz) if it exists and is the module's build. */
static struct sw_elf *open_candidate(struct sw_elf_locator *l, const struct identity *id,
                                     const char *path, char **used)
{
	char gz[4096];
	const char *tries[2] = { path, NULL };
	if (sw_path_printf(gz, sizeof gz, "%s.gz", path))
		tries[1] = gz;
	for (int i = 0; i < 2; i++) {
		if (!tries[i] || !sw_is_regular_file(tries[i]) || already_refused(l, tries[i]))
			continue;
		struct sw_err err = { 0 };
		struct sw_elf *e = sw_elf_open_file(tries[i], 0, &err);
		if (!e) {
			refuse(l, tries[i], "%s", err.msg);
			continue;
		}
		if (!same_build(l, id, e, tries[i])) {
			sw_elf_free(e);
			continue;
		}
		*used = strdup(tries[i]);
		return e;
	}
	return NULL;
}

/* Does e hold the code (a binary), or only debug information? */
static bool holds_code(struct sw_elf *e)
{
	struct sw_elf_section text;
	return sw_elf_section(e, ".text", &text) && text.type != 8 /* SHT_NOBITS */;
}

static bool holds_debug(struct sw_elf *e)
{
	const struct sw_elf_info *info = sw_elf_info(e);
	return info->has_debug_info || info->has_symtab;
}

struct found {
	struct sw_elf *image, *debug;
	char *image_path, *debug_path;
};

/* Done when the binary and DWARF are both at hand: a binary stripped
 * with --strip-debug keeps its .symtab (names) but not its lines, which
 * its NAME.debug or debuglink target still has. */
static bool complete(const struct found *f)
{
	return f->image && (f->debug || sw_elf_info(f->image)->has_debug_info);
}

/* Files the candidate fills a gap with; others are closed. */
static void offer(struct found *f, struct sw_elf *e, char *path)
{
	if (!e)
		return;
	if (!f->image && holds_code(e)) {
		f->image = e;
		f->image_path = path;
		return;
	}
	/* A debug file holds no code; but when the image is stripped (the
	 * file an offline capture keeps as the process ran it), an
	 * unstripped copy of the same build is where its symbols are. */
	if (!f->debug && holds_debug(e) && (!holds_code(e) || (f->image && !holds_debug(f->image)))) {
		f->debug = e;
		f->debug_path = path;
		return;
	}
	if (!f->debug && !f->image) {
		/* Neither code nor debug info we know of: still its symbols. */
		f->image = e;
		f->image_path = path;
		return;
	}
	sw_elf_free(e);
	free(path);
}

static void try_path(struct sw_elf_locator *l, const struct identity *id, struct found *f,
                     const char *path)
{
	if (complete(f))
		return;
	char *used = NULL;
	struct sw_elf *e = open_candidate(l, id, path, &used);
	offer(f, e, used);
}

static void search_directory(struct sw_elf_locator *l, const struct identity *id,
                             struct found *f, const char *dir)
{
	char p[4096];
	if (id->build_id_len >= 2) {
		char hex[2 * MAX_BUILD_ID + 1];
		hex_of(id->build_id, id->build_id_len, hex);
		if (sw_path_printf(p, sizeof p, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2))
			try_path(l, id, f, p);
		if (sw_path_printf(p, sizeof p, "%s/.build-id/%.2s/%s", dir, hex, hex + 2))
			try_path(l, id, f, p);
		if (id->name && sw_store_elf_path(p, sizeof p, dir, id->name, hex))
			try_path(l, id, f, p);
	}
	if (id->name) {
		if (sw_path_printf(p, sizeof p, "%s/%s", dir, id->name))
			try_path(l, id, f, p);
		if (sw_path_printf(p, sizeof p, "%s/%s.debug", dir, id->name))
			try_path(l, id, f, p);
	}
}

/* The module's file at the path the snapshot records. Quietly, a file
 * of another build is passed over (local_quiet): read by default, the
 * paths of a core from another machine name other builds, and a warning
 * per library would bury the report. */
static void try_local_path(struct sw_elf_locator *l, const struct identity *id,
                           struct found *f, const char *path)
{
	if (!l->local_quiet) {
		try_path(l, id, f, path);
		return;
	}
	if (complete(f) || !id->build_id_len || !sw_is_regular_file(path) ||
	    already_refused(l, path))
		return;
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	if (!e)
		return;
	if (!has_build_id(sw_elf_info(e), id)) {
		sw_elf_free(e);
		return;
	}
	offer(f, e, strdup(path));
}

/* A debug directory as gdb searches one by build-id: only debug files
 * (DIR/.build-id/xx/rest.debug); a debuglink leads into it too
 * (follow_debuglink). A module without a build-id has nothing to find
 * here by name: /usr/lib/debug's files are named for other builds too. */
static void try_debug_directory(struct sw_elf_locator *l, const struct identity *id,
                                struct found *f, const char *dir)
{
	if (id->build_id_len < 2)
		return;
	char hex[2 * MAX_BUILD_ID + 1], p[4096];
	hex_of(id->build_id, id->build_id_len, hex);
	if (sw_path_printf(p, sizeof p, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2))
		try_path(l, id, f, p);
}

/* A single ELF file given as a symbol path: only for the module whose
 * build it is (a build-id match; by name when the module has none). */
static void try_single_file(struct sw_elf_locator *l, const struct identity *id,
                            struct found *f, const char *path)
{
	if (!id->build_id_len && !id->debug_id &&
	    (!id->name || strcmp(sw_basename(path), id->name) != 0))
		return;
	if (complete(f) || already_refused(l, path))
		return;
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	if (!e)
		return; /* not an ELF file: another provider's (a .sym) */
	bool match = id->build_id_len ? has_build_id(sw_elf_info(e), id) : same_build(l, id, e, path);
	if (!match) {
		sw_elf_free(e);
		return;
	}
	offer(f, e, strdup(path));
}

/* The debug file the binary's .gnu_debuglink names, CRC checked. */
static void follow_debuglink(struct sw_elf_locator *l, struct found *f)
{
	if (!f->image || f->debug || sw_elf_info(f->image)->has_debug_info)
		return;
	const struct sw_elf_info *info = sw_elf_info(f->image);
	if (!info->debuglink || !*info->debuglink || strchr(info->debuglink, '/'))
		return;
	char bindir[4096];
	if (!sw_path_printf(bindir, sizeof bindir, "%s", f->image_path ? f->image_path : "."))
		return;
	char *slash = strrchr(bindir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(bindir, sizeof bindir, ".");
	char p[4096];
	size_t ndirs = l->ndebug_dirs;
	for (size_t i = 0; i < 2 + ndirs + l->npaths && !f->debug; i++) {
		bool ok;
		if (i == 0)
			ok = sw_path_printf(p, sizeof p, "%s/%s", bindir, info->debuglink);
		else if (i == 1)
			ok = sw_path_printf(p, sizeof p, "%s/.debug/%s", bindir, info->debuglink);
		else if (i < 2 + ndirs)
			ok = sw_path_printf(p, sizeof p, "%s/%s/%s", l->debug_dirs[i - 2], bindir,
			                    info->debuglink);
		else
			ok = sw_is_directory(l->paths[i - 2 - ndirs]) &&
			     sw_path_printf(p, sizeof p, "%s/%s", l->paths[i - 2 - ndirs],
			                    info->debuglink);
		if (!ok || !sw_is_regular_file(p) || already_refused(l, p) ||
		    (f->image_path && strcmp(p, f->image_path) == 0))
			continue;
		uint32_t crc;
		if (!sw_elf_file_crc32(p, &crc))
			continue;
		if (crc != info->debuglink_crc) {
			char why[96];
			snprintf(why, sizeof why, "its CRC32 is %08x, the debuglink's %08x", crc,
			         info->debuglink_crc);
			refuse(l, p, "%s: debug file not used: %s", why);
			continue;
		}
		struct sw_err err = { 0 };
		struct sw_elf *e = sw_elf_open_file(p, 0, &err);
		if (e) {
			f->debug = e;
			f->debug_path = strdup(p);
		}
	}
}

/* The ELF the snapshot itself holds or names for the module. */
static void snapshot_image(struct sw_elf_locator *l, const struct sw_module *m, struct found *f)
{
	struct sw_err err = { 0 };
	if (m->image_path) {
		f->image = sw_elf_open_file(m->image_path, m->image_offset, &err);
		if (f->image)
			f->image_path = strdup(m->image_path);
		return;
	}
	if (!m->image_addr)
		return;
	const struct sw_mem_region *r = sw_mem_find(l->snap, m->image_addr);
	if (!r)
		return;
	uint64_t skip = m->image_addr - r->base;
	f->image = sw_elf_open_bytes(r->data + skip, (size_t)(r->size - skip), false,
	                             m->code_file ? m->code_file : "module in memory", &err);
}

bool sw_elf_locate(struct sw_elf_locator *l, const struct sw_module *m, struct sw_elf **image,
                   struct sw_elf **debug, char **image_path, char **debug_path)
{
	struct identity id;
	module_identity(m, &id);
	struct found f = { 0 };
	snapshot_image(l, m, &f);
	for (size_t i = 0; i < l->npaths && !complete(&f); i++) {
		if (sw_is_directory(l->paths[i]))
			search_directory(l, &id, &f, l->paths[i]);
		else if (sw_is_regular_file(l->paths[i]))
			try_single_file(l, &id, &f, l->paths[i]);
	}
	if (l->local_modules && m->code_file && m->code_file[0] == '/')
		try_local_path(l, &id, &f, m->code_file);
	for (size_t i = 0; i < l->ndebug_dirs && !complete(&f); i++)
		try_debug_directory(l, &id, &f, l->debug_dirs[i]);
	follow_debuglink(l, &f);
	*image = f.image;
	*debug = f.debug;
	*image_path = f.image_path;
	*debug_path = f.debug_path;
	return f.image || f.debug;
}
