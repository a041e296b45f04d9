/* Locating symbol files (see store.h). Loading is lazy: the walker asks for
 * a module's symbols when a frame lands in it. A file is loaded once even if
 * several modules resolve to it (BOLTed libraries appear twice in Breakpad
 * dumps, with the same debug id). */
#include "store.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "breakpad_sym.h"

struct store_path {
	char *path;
	bool is_dir;
	bool is_file;
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

struct store_module {
	bool looked;
	enum sw_symbols_status status;
	int32_t file;               /* index into loaded, -1 none */
	struct sw_module_symbols ms;
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
	char **warnings;
	uint32_t nwarnings, warnings_cap;
};

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

static void store_warn(struct sw_sym_store *s, const char *fmt, ...)
{
	if (s->nwarnings == s->warnings_cap) {
		uint32_t cap = s->warnings_cap ? s->warnings_cap * 2 : 4;
		char **w = realloc(s->warnings, cap * sizeof *w);
		if (!w)
			return;
		s->warnings = w;
		s->warnings_cap = cap;
	}
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	char *copy = strdup(buf);
	if (copy)
		s->warnings[s->nwarnings++] = copy;
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
		if (!p->is_dir && !p->is_file) {
			/* It exists, so it is no typo the CLI's existence check
			 * would catch; most likely a dump or a binary given in the
			 * wrong place. */
			store_warn(s, "%s: symbol path ignored: %s", paths[i],
			           S_ISREG(st.st_mode) ? "not a .sym or .sym.gz file"
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
	for (uint32_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->paths);
	free(s->mods);
	free(s->loaded);
	free(s);
}

const struct sw_symbol_source *sw_sym_store_source(struct sw_sym_store *s)
{
	return &s->source;
}

/* The name symbol files are filed under: the debug file's base name, else
 * the code file's. */
static const char *module_debug_name(const struct sw_module *m)
{
	const char *n = m->debug_file && *m->debug_file ? sw_basename(m->debug_file) : NULL;
	if (!n || !*n)
		n = m->code_file && *m->code_file ? sw_basename(m->code_file) : NULL;
	return n && *n ? n : NULL;
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
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

static int32_t load(struct sw_sym_store *s, const char *path)
{
	for (size_t i = 0; i < s->nloaded; i++)
		if (strcmp(s->loaded[i].path, path) == 0)
			return (int32_t)i;
	if (s->nloaded == s->loaded_cap) {
		size_t ncap = s->loaded_cap ? s->loaded_cap * 2 : 16;
		struct loaded_file *nl = realloc(s->loaded, ncap * sizeof *nl);
		if (!nl)
			return -1;
		s->loaded = nl;
		s->loaded_cap = ncap;
	}
	struct loaded_file *lf = &s->loaded[s->nloaded];
	memset(lf, 0, sizeof *lf);
	lf->path = strdup(path);
	if (!lf->path)
		return -1;
	lf->bsym = sw_bsym_load_file(path, &lf->err);
	if (!lf->bsym) {
		/* It exists, but could not be read (unreadable, a .sym.gz past
		 * the inflation limit, out of memory): the module list only says
		 * "corrupt", so say why here. The message names the file. */
		lf->status = SW_SYMS_CORRUPT;
		store_warn(s, "%s", lf->err.msg);
	} else if (sw_bsym_is_corrupt(lf->bsym))
		lf->status = SW_SYMS_CORRUPT;
	else
		lf->status = SW_SYMS_LOADED;
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
	int32_t f = load(s, path);
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
static int32_t find_symbols(struct sw_sym_store *s, const struct sw_module *m)
{
	const char *name = module_debug_name(m);
	const char *id = m->debug_id;
	if (!name || !id || !*id)
		return -1;
	size_t name_len = strlen(name);
	size_t stem_len = name_len;
	if (name_len > 4 && strcasecmp(name + name_len - 4, ".pdb") == 0)
		stem_len -= 4;
	char buf[4096];
	for (size_t i = 0; i < s->npaths; i++) {
		struct store_path *p = &s->paths[i];
		if (p->is_dir) {
			static const char *const suffixes[] = {".sym", ".sym.gz"};
			for (int k = 0; k < 2; k++) {
				int w = snprintf(buf, sizeof buf, "%s/%s/%s/%.*s%s", p->path, name, id,
				                 (int)stem_len, name, suffixes[k]);
				if (w > 0 && (size_t)w < sizeof buf && file_exists(buf)) {
					int32_t f = load_candidate(s, m, buf);
					if (f >= 0)
						return f;
				}
			}
		} else {
			if (!p->header_read)
				read_header(p);
			if (p->mod_id && p->mod_name && strcasecmp(p->mod_id, id) == 0 &&
			    strcmp(p->mod_name, name) == 0) {
				int32_t f = load_candidate(s, m, p->path);
				if (f >= 0)
					return f;
			}
		}
	}
	return -1;
}

static const struct sw_module_symbols *store_for_module(void *self, uint32_t module,
                                                        enum sw_symbols_status *status)
{
	struct sw_sym_store *s = self;
	if (s->npaths == 0) {
		/* No symbol path given: nothing was looked for, so nothing is
		 * "missing" (Breakpad prints no warning, rust-minidump's JSON says
		 * missing_symbols: false). */
		*status = SW_SYMS_NOT_LOOKED;
		return NULL;
	}
	if (module >= s->nmods) {
		*status = SW_SYMS_MISSING;
		return NULL;
	}
	struct store_module *sm = &s->mods[module];
	if (!sm->looked) {
		sm->looked = true;
		sm->status = SW_SYMS_MISSING;
		int32_t f = find_symbols(s, &s->snap->modules[module]);
		if (f >= 0) {
			sm->file = f;
			sm->status = s->loaded[f].status;
			if (s->loaded[f].bsym) {
				sm->ms.ops = &sw_bsym_ops;
				sm->ms.self = s->loaded[f].bsym;
			}
		}
	}
	*status = sm->status;
	return sm->ms.ops ? &sm->ms : NULL;
}

const char *sw_sym_store_file(const struct sw_sym_store *s, uint32_t module)
{
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

uint32_t sw_sym_store_nwarnings(const struct sw_sym_store *s)
{
	return s->nwarnings;
}

const char *sw_sym_store_warning(const struct sw_sym_store *s, uint32_t i)
{
	return i < s->nwarnings ? s->warnings[i] : NULL;
}
