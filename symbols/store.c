/* Locating symbol files (see store.h). Loading is lazy: the walker asks for
 * a module's symbols when a frame lands in it. A file is loaded once even if
 * several modules resolve to it (BOLTed libraries appear twice in Breakpad
 * dumps, with the same debug id). */
#include "store.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "breakpad_sym.h"
#include "elf_locate.h"
#include "lib/mapped_file.h"
#include "lib/strlist.h"
#include "elf_symbols.h"
#include "macho_dsym.h"
#include "store_layout.h"
#include "sym_index.h"
#include "symbol_server.h"

struct store_path {
	char *path;
	bool is_dir;
	bool is_file;               /* a .sym or .sym.gz file */
	bool is_elf;                /* an ELF file (or a gzipped one) */
	bool is_macho;              /* a Mach-O file (a dSYM's DWARF file) */
	/* Single files: the MODULE line's id and name, read on first need. */
	bool header_read;
	char *mod_id, *mod_name;
};

struct loaded_file {
	char *path;
	struct sw_bsym *bsym;
	enum sw_symbols_status status;
	struct sw_err err;
	/* Its MODULE line names another debug id than the one it was filed
	 * under: not used for any module (its bsym is freed). */
	bool refused;
};

/* A module with both a .sym file and ELF files or a dSYM: names and lines
 * from DWARF when the other file has it, else from the .sym, else from the
 * ELF symbol tables; unwind rules from the ELF's CFI first (complete,
 * where dump_syms may have dropped some), then the .sym's. */
struct combined {
	struct sw_bsym *bsym;
	struct sw_module_symbols other;
	bool other_has_lines;
	/* The module offset of the .sym's address 0: its addresses count from
	 * the ELF's first loadable segment (dump_syms), module offsets from
	 * the ELF's file byte 0 (sw_elf_symbols_sym_base). */
	uint64_t sym_base;
};

/* A provider that is not known to take concurrent calls (ELF/DWARF,
 * dSYM, a .sym combined with either), behind a lock of its own when the
 * store is concurrent: its calls from several walking threads take turns.
 * ops has the inner provider's NULL entries. */
struct locked_symbols {
	pthread_mutex_t lock;
	bool init;
	struct sw_module_symbols inner;
	struct sw_symbols_ops ops;
};

struct store_module {
	atomic_bool ready;          /* looked, and ms final (a concurrent store's fast path) */
	atomic_bool requested;      /* a walk asked for it (not only a prefetch) */
	bool resolving;             /* a thread is finding its symbols (under the store's lock) */
	struct locked_symbols locked;
	bool looked;
	enum sw_symbols_status status;
	int32_t file;               /* index into loaded, -1 none */
	struct sw_elf_symbols *elf; /* its ELF/DWARF provider, or NULL */
	struct sw_dsym *dsym;       /* its dSYM provider, or NULL */
	char *elf_path;             /* the ELF or dSYM file it came from (debug file first) */
	struct combined both;
	struct sw_module_symbols ms;
	bool shared;                /* ms is another module's (not freed here) */
};

struct sw_sym_store {
	const struct sw_snapshot *snap;
	struct store_path *paths;
	size_t npaths;
	struct store_module *mods;
	uint32_t nmods;
	struct loaded_file *loaded;
	size_t nloaded, loaded_cap;
	struct sw_symbol_source source;
	struct sw_elf_locator locator;
	const char **elf_paths;     /* the directories and ELF files */
	struct sw_strlist debug_dirs; /* the locator's debug directories */
	bool local_asked;           /* local modules asked for, not the default */
	const char *local_name;     /* how messages name asking for them */
	char **warnings;
	uint32_t *warning_key;      /* 0: the store's own; module + 1: while finding its symbols */
	uint32_t nwarnings, warnings_cap;
	/* sw_sym_store_set_concurrent: for_module under lock, once per module. */
	bool concurrent;
	pthread_mutex_t lock;
	pthread_cond_t resolved;    /* a module's symbols were found */
	struct sw_sym_cache *cache;   /* the symbol index cache, or NULL (not owned) */
	struct sw_symbol_server *server; /* symbol servers, or NULL (not owned) */
};

void sw_sym_store_set_cache(struct sw_sym_store *s, struct sw_sym_cache *cache)
{
	s->cache = cache;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const struct sw_module_symbols *store_for_module(void *self, uint32_t module,
                                                        enum sw_symbols_status *status);

/* Records a one-line warning (dropped when memory is short: a warning
 * must not turn into a failure). */
static void store_warn(struct sw_sym_store *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Warnings are kept in module order (the store's own first), each
 * module's in the order given: the same list whichever order the walk
 * (or parallel walks) first needed the modules in. The key of the
 * warnings this thread gives now: 0, or module + 1 while it finds that
 * module's symbols. */
static _Thread_local uint32_t warn_key;

static void store_warn(struct sw_sym_store *s, const char *fmt, ...)
{
	if (s->nwarnings == s->warnings_cap) {
		uint32_t cap = s->warnings_cap ? s->warnings_cap * 2 : 4;
		char **w = realloc(s->warnings, cap * sizeof *w);
		if (!w)
			return;
		s->warnings = w;
		uint32_t *k = realloc(s->warning_key, cap * sizeof *k);
		if (!k)
			return;
		s->warning_key = k;
		s->warnings_cap = cap;
	}
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	char *copy = strdup(buf);
	if (!copy)
		return;
	uint32_t at = s->nwarnings;
	while (at > 0 && s->warning_key[at - 1] > warn_key)
		at--;
	memmove(&s->warnings[at + 1], &s->warnings[at], (s->nwarnings - at) * sizeof *s->warnings);
	memmove(&s->warning_key[at + 1], &s->warning_key[at],
	        (s->nwarnings - at) * sizeof *s->warning_key);
	s->warnings[at] = copy;
	s->warning_key[at] = warn_key;
	s->nwarnings++;
}

static void locator_warn(void *self, const char *line)
{
	store_warn(self, "%s", line);
}

/* An ELF file, plain or gzipped (as Android's test data keeps them)? */
static bool is_elf_file(const char *path)
{
	uint8_t head[4] = { 0 };
	gzFile g = gzopen(path, "rb");
	if (!g)
		return false;
	int n = gzread(g, head, sizeof head);
	gzclose(g);
	return n == 4 && memcmp(head, "\177ELF", 4) == 0;
}

/* A 64-bit Mach-O file (what a dSYM bundle holds)? */
static bool is_macho_file(const char *path)
{
	uint8_t head[4] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == 4 && head[0] == 0xcf && head[1] == 0xfa && head[2] == 0xed && head[3] == 0xfe;
}

void sw_sym_store_set_symbol_server(struct sw_sym_store *s, struct sw_symbol_server *srv)
{
	s->server = srv;
}

void sw_sym_store_set_local_modules_name(struct sw_sym_store *s, const char *name)
{
	s->local_name = name;
}

void sw_sym_store_set_local_modules(struct sw_sym_store *s, bool on)
{
	s->locator.local_modules = on;
	s->locator.local_quiet = false;
	s->local_asked = on;
}

bool sw_sym_store_set_debug_dirs(struct sw_sym_store *s, const char *const *dirs, size_t n)
{
	struct sw_strlist l = { 0 };
	for (size_t i = 0; i < n; i++)
		if (dirs[i] && *dirs[i] && !sw_strlist_add(&l, dirs[i])) {
			sw_strlist_free(&l);
			return false;
		}
	sw_strlist_free(&s->debug_dirs);
	s->debug_dirs = l;
	s->locator.debug_dirs = (const char *const *)s->debug_dirs.v;
	s->locator.ndebug_dirs = s->debug_dirs.n;
	return true;
}

/* A Linux core is most often walked where it was written, with its
 * files at the paths it records: read them by default when their
 * build-ids match, as gdb and eu-stack do. A minidump's modules are
 * another machine's as a rule (docs/cli.md, --local-modules). */
static bool local_by_default(const struct sw_snapshot *snap)
{
	return snap && snap->format && strcmp(snap->format, "elfcore") == 0;
}

struct sw_sym_store *sw_sym_store_create(const char *const *paths, size_t npaths,
                                         const struct sw_snapshot *snap,
                                         struct sw_err *err)
{
	struct sw_sym_store *s = calloc(1, sizeof *s);
	if (!s)
		goto nomem;
	s->snap = snap;
	s->nmods = snap ? snap->nmodules : 0;
	s->paths = calloc(npaths ? npaths : 1, sizeof *s->paths);
	s->mods = calloc(s->nmods ? s->nmods : 1, sizeof *s->mods);
	if (!s->paths || !s->mods)
		goto nomem;
	for (size_t i = 0; i < npaths; i++) {
		struct stat st;
		struct store_path *p = &s->paths[s->npaths];
		if (!paths[i] || stat(paths[i], &st) != 0)
			continue;
		p->is_dir = S_ISDIR(st.st_mode);
		p->is_file = S_ISREG(st.st_mode) &&
		             (ends_with(paths[i], ".sym") || ends_with(paths[i], ".sym.gz"));
		p->is_elf = S_ISREG(st.st_mode) && !p->is_file && is_elf_file(paths[i]);
		p->is_macho = S_ISREG(st.st_mode) && !p->is_file && !p->is_elf &&
		              is_macho_file(paths[i]);
		if (!p->is_dir && !p->is_file && !p->is_elf && !p->is_macho) {
			/* It exists, so it is no typo the CLI's existence check
			 * would catch; most likely a dump given in the wrong place. */
			store_warn(s, "%s: symbol path ignored: %s", paths[i],
			           S_ISREG(st.st_mode) ? "not a .sym, .sym.gz, ELF or Mach-O file"
			                               : "not a directory or a regular file");
			continue;
		}
		p->path = strdup(paths[i]);
		if (!p->path)
			goto nomem;
		s->npaths++;
	}
	for (uint32_t i = 0; i < s->nmods; i++)
		s->mods[i].file = -1;
	s->elf_paths = calloc(s->npaths ? s->npaths : 1, sizeof *s->elf_paths);
	if (!s->elf_paths)
		goto nomem;
	size_t nelf = 0;
	for (size_t i = 0; i < s->npaths; i++)
		if (s->paths[i].is_dir || s->paths[i].is_elf)
			s->elf_paths[nelf++] = s->paths[i].path;
	s->locator.snap = snap;
	s->locator.paths = s->elf_paths;
	s->locator.npaths = nelf;
	s->locator.warn = locator_warn;
	s->locator.warn_self = s;
	s->locator.local_modules = local_by_default(snap);
	s->locator.local_quiet = true;
	static const char *const default_debug_dir[] = { SW_DEFAULT_DEBUG_DIR };
	if (!sw_sym_store_set_debug_dirs(s, default_debug_dir, 1))
		goto nomem;
	s->source.self = s;
	s->source.for_module = store_for_module;
	return s;
nomem:
	sw_sym_store_free(s);
	sw_err_set(err, SW_ERR_NOMEM, "symbol store: out of memory");
	return NULL;
}

void sw_sym_store_free(struct sw_sym_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->npaths; i++) {
		free(s->paths[i].path);
		free(s->paths[i].mod_id);
		free(s->paths[i].mod_name);
	}
	for (size_t i = 0; i < s->nloaded; i++) {
		free(s->loaded[i].path);
		sw_bsym_free(s->loaded[i].bsym);
	}
	for (uint32_t i = 0; i < s->nmods; i++) {
		if (s->mods[i].locked.init)
			pthread_mutex_destroy(&s->mods[i].locked.lock);
		sw_elf_symbols_free(s->mods[i].elf);
		sw_dsym_free(s->mods[i].dsym);
		free(s->mods[i].elf_path);
	}
	sw_elf_locator_free(&s->locator);
	sw_strlist_free(&s->debug_dirs);
	free(s->elf_paths);
	for (uint32_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->warning_key);
	if (s->concurrent) {
		pthread_cond_destroy(&s->resolved);
		pthread_mutex_destroy(&s->lock);
	}
	free(s->paths);
	free(s->mods);
	free(s->loaded);
	free(s);
}

const struct sw_symbol_source *sw_sym_store_source(struct sw_sym_store *s)
{
	return &s->source;
}

/* Reads the first line of a .sym or .sym.gz: "MODULE os arch id name". */
static void read_header(struct store_path *p)
{
	p->header_read = true;
	char line[2048];
	line[0] = '\0';
	if (ends_with(p->path, ".gz")) {
		gzFile g = gzopen(p->path, "rb");
		if (!g)
			return;
		if (!gzgets(g, line, sizeof line))
			line[0] = '\0';
		gzclose(g);
	} else {
		FILE *f = fopen(p->path, "rb");
		if (!f)
			return;
		if (!fgets(line, sizeof line, f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\r\n")] = '\0';
	if (strncmp(line, "MODULE ", 7) != 0)
		return;
	char *tok[4] = {0};
	char *save = NULL, *t = strtok_r(line + 7, " ", &save);
	for (int i = 0; i < 3 && t; i++) {
		tok[i] = t;
		t = i < 2 ? strtok_r(NULL, " ", &save) : strtok_r(NULL, "", &save);
	}
	tok[3] = t;
	if (!tok[2] || !tok[3])
		return;
	p->mod_id = strdup(tok[2]);
	p->mod_name = strdup(tok[3]);
}

static int32_t loaded_index(const struct sw_sym_store *s, const char *path)
{
	for (size_t i = 0; i < s->nloaded; i++)
		if (strcmp(s->loaded[i].path, path) == 0)
			return (int32_t)i;
	return -1;
}

static int32_t load(struct sw_sym_store *s, const char *path, const char *debug_file,
                    const char *debug_id)
{
	int32_t have = loaded_index(s, path);
	if (have >= 0)
		return have;
	struct loaded_file lf = {0};
	lf.path = strdup(path);
	if (!lf.path)
		return -1;
	struct sw_err cache_warn = {0};
	/* The costly part (inflating and parsing, or mapping an index)
	 * without a concurrent store's lock: other walking threads go on
	 * finding other modules' symbols (this module's are found here alone:
	 * store_for_module), two files load at once. */
	if (s->concurrent)
		pthread_mutex_unlock(&s->lock);
	lf.bsym = sw_bsym_load_cached(path, s->cache, debug_file, debug_id, &lf.err, &cache_warn);
	if (s->concurrent)
		pthread_mutex_lock(&s->lock);
	/* Another module's thread loaded the same file meanwhile (a BOLTed
	 * library's two mappings): theirs is kept. */
	if (s->concurrent && (have = loaded_index(s, path)) >= 0) {
		sw_bsym_free(lf.bsym);
		free(lf.path);
		return have;
	}
	if (s->nloaded == s->loaded_cap) {
		size_t ncap = s->loaded_cap ? s->loaded_cap * 2 : 16;
		struct loaded_file *nl = realloc(s->loaded, ncap * sizeof *nl);
		if (!nl) {
			sw_bsym_free(lf.bsym);
			free(lf.path);
			return -1;
		}
		s->loaded = nl;
		s->loaded_cap = ncap;
	}
	if (cache_warn.code != SW_OK)
		store_warn(s, "%s", cache_warn.msg);
	if (!lf.bsym) {
		/* It exists, but could not be read (unreadable, a .sym.gz past
		 * the inflation limit, out of memory): the module list only says
		 * "corrupt", so say why here. The message names the file. */
		lf.status = SW_SYMS_CORRUPT;
		store_warn(s, "%s", lf.err.msg);
	} else if (sw_bsym_is_corrupt(lf.bsym))
		lf.status = SW_SYMS_CORRUPT;
	else
		lf.status = SW_SYMS_LOADED;
	s->loaded[s->nloaded] = lf;
	return (int32_t)s->nloaded++;
}

/* Loads the candidate file at path for module m (once per file) and checks
 * that its MODULE line names m's debug id. A Breakpad store files symbols
 * under the id, so a file whose own id differs was put in the wrong place
 * (or its module rebuilt): its addresses belong to another build, and
 * using them would print wrong functions with confidence. It is refused,
 * with one warning naming the file and both ids, and the search goes on.
 * Returns the loaded file's index, or -1 (refused, out of memory). */
static int32_t load_candidate(struct sw_sym_store *s, const struct sw_module *m,
                              const char *path)
{
	const char *name = sw_store_debug_name(m);
	int32_t f = load(s, path, name ? name : "", m->debug_id ? m->debug_id : "");
	if (f < 0)
		return -1;
	struct loaded_file *lf = &s->loaded[f];
	if (lf->refused)
		return -1;
	struct sw_bsym_module mod;
	if (!lf->bsym || !sw_bsym_module(lf->bsym, &mod))
		return f; /* nothing to check: unreadable, or no MODULE line */
	if (strlen(m->debug_id) == mod.id_len && strncasecmp(m->debug_id, mod.id, mod.id_len) == 0)
		return f;
	lf->refused = true;
	store_warn(s, "%s: symbol file not used: its MODULE line has debug id %.*s, the module's is %s",
	           path, (int)(mod.id_len < 64 ? mod.id_len : 64), mod.id, m->debug_id);
	sw_bsym_free(lf->bsym);
	lf->bsym = NULL;
	return -1;
}

/* The loaded file of module m's symbols: the first candidate, in the order
 * of the paths, that loads and is not refused; -1 if none. */

/* A debug id of zeros only (a module without one, as some writers record
 * it) identifies no build. */
static bool id_is_zero(const char *id)
{
	for (; *id; id++)
		if (*id != '0')
			return false;
	return true;
}
static int32_t find_symbols(struct sw_sym_store *s, const struct sw_module *m)
{
	const char *name = sw_store_debug_name(m);
	const char *id = m->debug_id;
	if (!name || !id || !*id)
		return -1;
	char buf[4096];
	for (size_t i = 0; i < s->npaths; i++) {
		struct store_path *p = &s->paths[i];
		if (p->is_dir) {
			if (!sw_store_sym_path(buf, sizeof buf, p->path, name, id, false))
				continue;
			/* The module's folder first: a store holds few of the
			 * modules asked for, and one stat of a missing folder
			 * answers for both names (a warm batch of small dumps
			 * spent 17 % of its time in stat). */
			char *file = strrchr(buf, '/');
			*file = '\0';
			bool there = sw_is_directory(buf);
			*file = '/';
			if (!there)
				continue;
			for (int gz = 0; gz < 2; gz++) {
				if (sw_store_sym_path(buf, sizeof buf, p->path, name, id, gz) &&
				    sw_is_regular_file(buf)) {
					int32_t f = load_candidate(s, m, buf);
					if (f >= 0)
						return f;
				}
			}
		} else {
			if (!p->header_read)
				read_header(p);
			/* A file given by itself is for the module its debug id
			 * names, whatever the module is called: a device may name
			 * its firmware otherwise than the ELF file dump_syms read.
			 * An id of zeros names no build: then the name must match. */
			if (p->mod_id && p->mod_name && strcasecmp(p->mod_id, id) == 0 &&
			    (!id_is_zero(id) || strcmp(p->mod_name, name) == 0)) {
				int32_t f = load_candidate(s, m, p->path);
				if (f >= 0)
					return f;
			}
		}
	}
	return -1;
}

/* ---- a module with both a .sym and ELF files ---- */

static bool both_lookup(void *self, uint64_t offset, struct sw_arena *a, struct sw_sym_info *out)
{
	struct combined *c = self;
	if (c->other_has_lines)
		return c->other.ops->lookup(c->other.self, offset, a, out);
	if (sw_bsym_ops.lookup(c->bsym, offset - c->sym_base, a, out)) {
		out->function_offset += c->sym_base;
		if (out->file)
			out->line_offset += c->sym_base;
		return true;
	}
	return c->other.ops->lookup(c->other.self, offset, a, out);
}

static enum sw_unwind_status both_unwind(void *self, uint64_t offset,
                                         const struct sw_unwind_env *env,
                                         struct sw_caller *caller, enum sw_trust *trust)
{
	struct combined *c = self;
	if (c->other.ops->unwind) {
		enum sw_unwind_status st =
			c->other.ops->unwind(c->other.self, offset, env, caller, trust);
		if (st == SW_UNWIND_OK || st == SW_UNWIND_END)
			return st;
	}
	struct sw_unwind_env sym_env = *env;
	sym_env.module_base += c->sym_base;
	return sw_bsym_ops.unwind(c->bsym, offset - c->sym_base, &sym_env, caller, trust);
}

static bool both_has_function(void *self, uint64_t offset)
{
	struct combined *c = self;
	return sw_bsym_ops.has_function(c->bsym, offset - c->sym_base) ||
	       c->other.ops->has_function(c->other.self, offset);
}

static bool both_read_code(void *self, uint64_t offset, void *out, size_t n)
{
	struct combined *c = self;
	return c->other.ops->read_code && c->other.ops->read_code(c->other.self, offset, out, n);
}

/* What the module's file says of its layout is the ELF provider's. */
static bool both_in_code(void *self, uint64_t offset)
{
	struct combined *c = self;
	return !c->other.ops->in_code || c->other.ops->in_code(c->other.self, offset);
}

static bool both_code_section_start(void *self, uint64_t offset, uint64_t *start)
{
	struct combined *c = self;
	return c->other.ops->code_section_start &&
	       c->other.ops->code_section_start(c->other.self, offset, start);
}

static const struct sw_symbols_ops both_ops = {
	.lookup = both_lookup,
	.unwind = both_unwind,
	.has_function = both_has_function,
	.read_code = both_read_code,
	.in_code = both_in_code,
	.code_section_start = both_code_section_start,
};

/* Modules of Windows and Apple processes have no ELF files to look for. */
static bool may_have_elf(const struct sw_snapshot *snap)
{
	enum sw_os os = snap->sys.os;
	return os != SW_OS_WINDOWS && os != SW_OS_MACOS && os != SW_OS_IOS;
}

static void find_elf(struct sw_sym_store *s, struct sw_elf_locator *l, struct store_module *sm,
                     const struct sw_module *m)
{
	if (!may_have_elf(s->snap) && !m->image_path && !m->image_addr)
		return;
	struct sw_elf *image = NULL, *debug = NULL;
	char *image_path = NULL, *debug_path = NULL;
	if (!sw_elf_locate(l, m, &image, &debug, &image_path, &debug_path))
		return;
	/* Their compressed debug sections are inflated once, then mapped
	 * from the cache (docs/symbol-cache.md, "ELF files"). */
	if (s->cache) {
		sw_elf_set_section_cache(image, sw_sym_cache_dir(s->cache));
		sw_elf_set_section_cache(debug, sw_sym_cache_dir(s->cache));
	}
	sm->elf = sw_elf_symbols_create(image, debug);
	if (sm->elf && !image && sm->file < 0 && !sw_elf_symbols_has_cfi(sm->elf))
		store_warn(s, "%s: names from %s, but no unwind tables: its binary was not found "
		           "(give its folder as a symbol path, or %s)",
		           m->code_file ? sw_basename(m->code_file) : "module", debug_path,
		           s->local_name ? s->local_name : "read modules at their own paths");
	if (sm->elf) {
		sm->elf_path = debug_path ? debug_path : image_path;
		if (sm->elf_path == debug_path)
			free(image_path);
		else
			free(debug_path);
	} else {
		free(image_path);
		free(debug_path);
	}
}

/* An Apple module's dSYM: DIR/NAME.dSYM/Contents/Resources/DWARF/NAME in
 * a symbol directory, the DWARF file of a symbol path that is a .dSYM
 * bundle itself, or a Mach-O file given as a symbol path; its UUID must
 * give the module's debug id. */
static void find_dsym(struct sw_sym_store *s, struct store_module *sm, const struct sw_module *m)
{
	enum sw_os os = s->snap->sys.os;
	if ((os != SW_OS_MACOS && os != SW_OS_IOS) || !m->debug_id)
		return;
	const char *name = sw_store_debug_name(m);
	if (!name)
		return;
	char p[4096];
	for (size_t i = 0; i < s->npaths && !sm->dsym; i++) {
		const struct store_path *sp = &s->paths[i];
		int w;
		if (sp->is_macho)
			w = snprintf(p, sizeof p, "%s", sp->path);
		else if (sp->is_dir && ends_with(sp->path, ".dSYM"))
			w = snprintf(p, sizeof p, "%s/Contents/Resources/DWARF/%s", sp->path, name);
		else if (sp->is_dir)
			w = snprintf(p, sizeof p, "%s/%s.dSYM/Contents/Resources/DWARF/%s", sp->path,
			             name, name);
		else
			continue;
		if (w <= 0 || (size_t)w >= sizeof p || !sw_is_regular_file(p))
			continue;
		struct sw_err err = { 0 };
		sm->dsym = sw_dsym_open(p, m->debug_id, &err);
		if (sm->dsym)
			sm->elf_path = strdup(p);
		else if (!sp->is_macho || strstr(err.msg, "debug id") == NULL)
			store_warn(s, "%s", err.msg);
	}
}

/* Module sm's symbols from loaded file f: its status, and its Breakpad
 * symbols when it has them. */
static void use_file(struct sw_sym_store *s, struct store_module *sm, int32_t f)
{
	sm->file = f;
	sm->status = s->loaded[f].status;
	if (s->loaded[f].bsym) {
		sm->ms.ops = &sw_bsym_ops;
		sm->ms.self = s->loaded[f].bsym;
	}
}

/* A fetch's warnings, kept while the store's lock is let go. */
static void hold_warning(void *self, const char *line)
{
	(void)sw_strlist_add(self, line);
}

/* A module no local path served (no .sym, no ELF or dSYM file; an ELF
 * image from the snapshot's memory does not count): its files from the
 * symbol servers, read as local ones. A .sym is checked and loaded as one
 * found in a store; ELF files are located as single files given as
 * symbol paths, beside the snapshot's own image. */
static void fetch_from_servers(struct sw_sym_store *s, struct store_module *sm,
                               const struct sw_module *m)
{
	unsigned kinds = SW_FETCH_BREAKPAD | (may_have_elf(s->snap) ? SW_FETCH_ELF : 0);
	struct sw_fetched got;
	/* The download without a concurrent store's lock, as load() reads:
	 * threads walking other modules fetch theirs at once (this module's
	 * are fetched here alone: store_for_module). Its warnings wait for
	 * the lock. */
	struct sw_strlist held = { 0 };
	if (s->concurrent)
		pthread_mutex_unlock(&s->lock);
	bool fetched = sw_symbol_server_fetch(s->server, m, kinds, &got, hold_warning, &held);
	if (s->concurrent)
		pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < held.n; i++)
		store_warn(s, "%s", held.v[i]);
	sw_strlist_free(&held);
	if (!fetched)
		return;
	int32_t f = got.sym ? load_candidate(s, m, got.sym) : -1;
	if (f >= 0)
		use_file(s, sm, f);
	const char *files[2];
	size_t nfiles = 0;
	for (int i = 0; i < 2; i++)
		if (got.elf[i])
			files[nfiles++] = got.elf[i];
	if (nfiles) {
		struct sw_elf_locator fetched = {
			.snap = s->snap, .paths = files, .npaths = nfiles,
			.warn = locator_warn, .warn_self = s,
		};
		sw_elf_symbols_free(sm->elf);
		free(sm->elf_path);
		sm->elf = NULL;
		sm->elf_path = NULL;
		find_elf(s, &fetched, sm, m);
		sw_elf_locator_free(&fetched);
	}
	sw_fetched_free(&got);
}

/* Another module already loaded from the same image at the same place:
 * a firmware's segments are modules of their own (formats/elfcore_esp.c)
 * whose offsets all map to the file's addresses alike, so one provider
 * serves them all. -1: none. */
static int32_t image_twin(const struct sw_sym_store *s, uint32_t module)
{
	const struct sw_module *m = &s->snap->modules[module];
	if (!m->image_path)
		return -1;
	for (uint32_t j = 0; j < s->nmods; j++) {
		const struct sw_module *o = &s->snap->modules[j];
		if (j != module && s->mods[j].looked && !s->mods[j].shared && s->mods[j].ms.ops &&
		    o->image_path && strcmp(o->image_path, m->image_path) == 0 &&
		    o->image_offset == m->image_offset &&
		    o->base + o->load_bias == m->base + m->load_bias)
			return (int32_t)j;
	}
	return -1;
}

static bool locked_lookup(void *self, uint64_t offset, struct sw_arena *a,
                          struct sw_sym_info *out)
{
	struct locked_symbols *l = self;
	pthread_mutex_lock(&l->lock);
	bool r = l->inner.ops->lookup(l->inner.self, offset, a, out);
	pthread_mutex_unlock(&l->lock);
	return r;
}

static enum sw_unwind_status locked_unwind(void *self, uint64_t offset,
                                           const struct sw_unwind_env *env,
                                           struct sw_caller *caller, enum sw_trust *trust)
{
	struct locked_symbols *l = self;
	pthread_mutex_lock(&l->lock);
	enum sw_unwind_status r = l->inner.ops->unwind(l->inner.self, offset, env, caller, trust);
	pthread_mutex_unlock(&l->lock);
	return r;
}

static bool locked_read_code(void *self, uint64_t offset, void *out, size_t n)
{
	struct locked_symbols *l = self;
	pthread_mutex_lock(&l->lock);
	bool r = l->inner.ops->read_code(l->inner.self, offset, out, n);
	pthread_mutex_unlock(&l->lock);
	return r;
}

static bool locked_has_function(void *self, uint64_t offset)
{
	struct locked_symbols *l = self;
	pthread_mutex_lock(&l->lock);
	bool r = l->inner.ops->has_function(l->inner.self, offset);
	pthread_mutex_unlock(&l->lock);
	return r;
}

static bool locked_in_code(void *self, uint64_t offset)
{
	struct locked_symbols *l = self;
	pthread_mutex_lock(&l->lock);
	bool r = l->inner.ops->in_code(l->inner.self, offset);
	pthread_mutex_unlock(&l->lock);
	return r;
}

static bool locked_code_section_start(void *self, uint64_t offset, uint64_t *start)
{
	struct locked_symbols *l = self;
	pthread_mutex_lock(&l->lock);
	bool r = l->inner.ops->code_section_start(l->inner.self, offset, start);
	pthread_mutex_unlock(&l->lock);
	return r;
}

/* sm's provider behind its own lock (sw_bsym takes concurrent calls as
 * it is: docs/symbol-cache.md, "Threads and batches"). */
static void lock_provider(struct store_module *sm)
{
	if (!sm->ms.ops || sm->ms.ops == &sw_bsym_ops || sm->shared ||
	    pthread_mutex_init(&sm->locked.lock, NULL) != 0)
		return;
	struct locked_symbols *l = &sm->locked;
	l->init = true;
	l->inner = sm->ms;
	const struct sw_symbols_ops *in = sm->ms.ops;
	l->ops = (struct sw_symbols_ops){
		.lookup = in->lookup ? locked_lookup : NULL,
		.unwind = in->unwind ? locked_unwind : NULL,
		.read_code = in->read_code ? locked_read_code : NULL,
		.has_function = in->has_function ? locked_has_function : NULL,
		.in_code = in->in_code ? locked_in_code : NULL,
		.code_section_start = in->code_section_start ? locked_code_section_start : NULL,
	};
	sm->ms = (struct sw_module_symbols){&l->ops, l};
}

static const struct sw_module_symbols *resolve_module(struct sw_sym_store *s, uint32_t module,
                                                      enum sw_symbols_status *status);

/* A concurrent store finds a module's symbols once, whoever asks first.
 * The others that need them meanwhile wait (load lets go of the lock
 * while it reads); a prefetch (!wait) goes on to other work instead. */
static void resolve_once(struct sw_sym_store *s, uint32_t module, bool wait)
{
	struct store_module *sm = &s->mods[module];
	if (!atomic_load_explicit(&sm->ready, memory_order_acquire)) {
		pthread_mutex_lock(&s->lock);
		while (wait && !atomic_load_explicit(&sm->ready, memory_order_relaxed) && sm->resolving)
			pthread_cond_wait(&s->resolved, &s->lock);
		if (!atomic_load_explicit(&sm->ready, memory_order_relaxed) && !sm->resolving) {
			sm->resolving = true;
			enum sw_symbols_status st;
			warn_key = module + 1;
			resolve_module(s, module, &st);
			warn_key = 0;
			lock_provider(sm);
			sm->resolving = false;
			atomic_store_explicit(&sm->ready, true, memory_order_release);
			pthread_cond_broadcast(&s->resolved);
		}
		pthread_mutex_unlock(&s->lock);
	}
}

static const struct sw_module_symbols *store_for_module(void *self, uint32_t module,
                                                        enum sw_symbols_status *status)
{
	struct sw_sym_store *s = self;
	if (module < s->nmods && !atomic_load_explicit(&s->mods[module].requested,
	                                               memory_order_relaxed))
		atomic_store_explicit(&s->mods[module].requested, true, memory_order_relaxed);
	if (!s->concurrent || module >= s->nmods) {
		warn_key = module + 1;
		const struct sw_module_symbols *ms = resolve_module(s, module, status);
		warn_key = 0;
		return ms;
	}
	struct store_module *sm = &s->mods[module];
	resolve_once(s, module, true);
	*status = sm->status;
	return sm->ms.ops ? &sm->ms : NULL;
}

/* sw_symbol_source.prefetch: local files and the index cache only; with
 * symbol servers a prefetch could download what no walk needs. */
static void store_prefetch(void *self, uint32_t module)
{
	struct sw_sym_store *s = self;
	if (s->concurrent && !s->server && module < s->nmods)
		resolve_once(s, module, false);
}

void sw_sym_store_set_concurrent(struct sw_sym_store *s)
{
	if (s->concurrent || pthread_mutex_init(&s->lock, NULL) != 0)
		return;
	if (pthread_cond_init(&s->resolved, NULL) != 0) {
		pthread_mutex_destroy(&s->lock);
		return;
	}
	s->concurrent = true;
	s->source.concurrent = true;
	s->source.prefetch = store_prefetch;
}

static const struct sw_module_symbols *resolve_module(struct sw_sym_store *s, uint32_t module,
                                                      enum sw_symbols_status *status)
{
	const struct sw_module *m = module < s->nmods ? &s->snap->modules[module] : NULL;
	bool has_image = m && (m->image_path || m->image_addr);
	/* No symbol path given: nothing was looked for, so nothing is
	 * "missing" (Breakpad prints no warning, rust-minidump's JSON says
	 * missing_symbols: false) — unless a default place (the module's own
	 * path, a debug directory) had its files. */
	bool asked = s->npaths || has_image || s->server || s->local_asked;
	bool by_default = m && may_have_elf(s->snap) &&
	                  (s->locator.local_modules || s->locator.ndebug_dirs);
	if (!asked && !by_default) {
		*status = SW_SYMS_NOT_LOOKED;
		return NULL;
	}
	if (module >= s->nmods) {
		*status = SW_SYMS_MISSING;
		return NULL;
	}
	struct store_module *sm = &s->mods[module];
	int32_t twin = sm->looked ? -1 : image_twin(s, module);
	if (twin >= 0) {
		const struct store_module *t = &s->mods[twin];
		sm->looked = true;
		sm->shared = true;
		sm->status = t->status;
		sm->file = t->file;
		sm->ms = t->ms;
		sm->elf_path = t->elf_path ? strdup(t->elf_path) : NULL;
	}
	if (!sm->looked) {
		sm->looked = true;
		sm->status = SW_SYMS_MISSING;
		int32_t f = find_symbols(s, m);
		if (f >= 0)
			use_file(s, sm, f);
		find_elf(s, &s->locator, sm, m);
		if (!sm->elf)
			find_dsym(s, sm, m);
		if (s->server && sm->file < 0 && !sm->elf_path)
			fetch_from_servers(s, sm, m);
		struct sw_module_symbols other = { 0 };
		if (sm->elf)
			other = (struct sw_module_symbols){ &sw_elf_symbols_ops, sm->elf };
		else if (sm->dsym)
			other = (struct sw_module_symbols){ &sw_dsym_ops, sm->dsym };
		if (other.ops && sm->ms.ops) {
			sm->both.bsym = s->loaded[sm->file].bsym;
			sm->both.other = other;
			sm->both.other_has_lines = sm->dsym || sw_elf_symbols_has_lines(sm->elf);
			sm->both.sym_base = sm->elf ? sw_elf_symbols_sym_base(sm->elf) : 0;
			sm->ms.ops = &both_ops;
			sm->ms.self = &sm->both;
		} else if (other.ops) {
			sm->ms = other;
			sm->status = SW_SYMS_LOADED;
		}
		if (!asked && sm->status == SW_SYMS_MISSING)
			sm->status = SW_SYMS_NOT_LOOKED;
	}
	*status = sm->status;
	return sm->ms.ops ? &sm->ms : NULL;
}

const char *sw_sym_store_file(const struct sw_sym_store *s, uint32_t module)
{
	if (module < s->nmods && s->mods[module].file < 0 && s->mods[module].elf_path)
		return s->mods[module].elf_path;
	if (module >= s->nmods || s->mods[module].file < 0)
		return NULL;
	return s->loaded[s->mods[module].file].path;
}

const struct sw_err *sw_sym_store_error(const struct sw_sym_store *s, uint32_t module)
{
	static const struct sw_err none = {SW_OK, ""};
	if (module >= s->nmods || s->mods[module].file < 0)
		return &none;
	return &s->loaded[s->mods[module].file].err;
}

/* After the load warnings: those of indexes found damaged mid-walk, in
 * module order (a file serving several modules: at the first). */
static const char *late_warning(const struct sw_sym_store *s, uint32_t i)
{
	for (uint32_t m = 0; m < s->nmods; m++) {
		int32_t f = s->mods[m].file;
		bool first = f >= 0;
		for (uint32_t e = 0; first && e < m; e++)
			first = s->mods[e].file != f;
		const char *w = first && s->loaded[f].bsym ? sw_bsym_warning(s->loaded[f].bsym) : NULL;
		if (w && i-- == 0)
			return w;
	}
	return NULL;
}

/* The i-th warning given while finding the symbols of the store itself or
 * of a module a walk asked for (not one only prefetched), or NULL. */
static const char *load_warning(const struct sw_sym_store *s, uint32_t i)
{
	for (uint32_t k = 0; k < s->nwarnings; k++) {
		uint32_t key = s->warning_key[k];
		bool shown = key == 0 || key > s->nmods ||
		             atomic_load_explicit(&s->mods[key - 1].requested, memory_order_relaxed);
		if (shown && i-- == 0)
			return s->warnings[k];
	}
	return NULL;
}

static uint32_t nload_warnings(const struct sw_sym_store *s)
{
	uint32_t n = 0;
	while (load_warning(s, n))
		n++;
	return n;
}

uint32_t sw_sym_store_nwarnings(const struct sw_sym_store *s)
{
	uint32_t nload = nload_warnings(s), n = nload;
	while (late_warning(s, n - nload))
		n++;
	return n;
}

const char *sw_sym_store_warning(const struct sw_sym_store *s, uint32_t i)
{
	uint32_t nload = nload_warnings(s);
	return i < nload ? load_warning(s, i) : late_warning(s, i - nload);
}
