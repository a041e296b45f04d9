/* libstackwalk's public API (include/stackwalk.h): thin handles around the
 * pipeline (pipeline.h: open, walk, sign, the one wiring cmd/stackwalk.c
 * uses too) and the outputs. Nothing here walks or reads: it owns memory,
 * maps codes and hands out views of the walk. */
#include "include/stackwalk.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/crash_reason.h"
#include "lib/output.h"
#include "lib/strlist.h"
#include "pipeline.h"

struct stackwalk_snapshot {
	struct sw_snapshot snap;
	char *path;               /* ours: the snapshot keeps the pointer */
	/* Copies of the options' symbol paths it was opened with: a reader
	 * may keep a module's file name pointing into them. */
	struct sw_strlist search_paths;
	bool damaged;             /* opened with STACKWALK_DAMAGED */
	/* The options' decompression limit, for the microdumps after the
	 * first of a compressed log (0: the default). */
	uint64_t max_decompressed;
};

/* An object that options and the results walked with them hold on to: a
 * symbol cache or the symbol servers, which the store of a result uses
 * until the result is freed, and which are thread-safe (several results
 * in several threads may use one). Freed with its last reference. */
struct shared {
	atomic_uint refs;
	void *obj;
	void (*release)(void *obj);
};

/* What the symbol servers are made of (stackwalk(1)'s --symbols-url,
 * --symbols-header, --debuginfod, --symbols-timeout). */
struct server_settings {
	struct sw_strlist urls;    /* in order */
	struct sw_strlist headers; /* "Name: value" */
	bool debuginfod;
	unsigned timeout_s;       /* each download's time limit; 0: the default */
};

struct stackwalk_options {
	struct sw_strlist paths;  /* symbol paths */
	char *maps_file;
	struct sw_walk_options walk;
	int local_modules;        /* 1, 0; -1: the store's default (on for an ELF core) */
	struct shared *cache;     /* a struct sw_sym_cache; NULL: none */
	struct server_settings srv;
	/* A struct sw_symbol_server made of srv and the cache's directory,
	 * remade by each setter of one of them (which so checks its argument
	 * at once); NULL: neither URLs nor debuginfod. */
	struct shared *servers;
	struct sw_sig_rules rules; /* the built-in crash-signature rules, then the skip files' */
	uint64_t max_decompressed; /* a compressed snapshot's limit; 0: the default */
};

struct stackwalk_frame {
	const struct sw_stack_frame *f;
	const struct stackwalk_thread *thread;
	const char *evidence;             /* STACKWALK_WALK_EXPLAIN: JSON */
};

struct stackwalk_thread {
	const struct stackwalk_result *res;
	const struct sw_stack *stack;
	const struct sw_thread *thread;
	struct stackwalk_frame *frames;
	const char *end_evidence;         /* STACKWALK_WALK_EXPLAIN: JSON */
};

struct stackwalk_module {
	const struct sw_module *m;
	const struct stackwalk_result *res;
	int32_t index;                    /* in the snapshot's modules */
};

struct stackwalk_result {
	const struct stackwalk_snapshot *snap;
	/* The walk, its CPU table (NULL: unknown), its store (frames' names
	 * may point into its files) and the arena the views below are in. */
	struct sw_pipeline_result pl;
	struct shared *cache, *servers;   /* the store's, held until it is freed */
	struct stackwalk_thread *threads; /* one per pl.walk.stacks */
	const char **warnings;
	size_t nwarnings;
	const char *signature;            /* of the crashing thread; NULL: none */
	/* The crash reason in each enum stackwalk_wording; NULL: no crash. */
	const char *crash_reason[2];
	struct stackwalk_module *modules; /* one per snapshot module */
};

/* The one error channel, per thread (as elfutils' dwfl_errmsg): the handles
 * are the caller's to share out, the message of a failed call is not. */
static _Thread_local char last_error[512];

static enum stackwalk_status fail(enum stackwalk_status status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static enum stackwalk_status fail(enum stackwalk_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return status;
}

static enum stackwalk_status status_of(enum sw_err_code code)
{
	switch (code) {
	case SW_OK: return STACKWALK_OK;
	case SW_ERR_CORRUPT: return STACKWALK_DAMAGED;
	case SW_ERR_USAGE: return STACKWALK_EINVAL;
	case SW_ERR_IO: return STACKWALK_EIO;
	case SW_ERR_FORMAT: return STACKWALK_EFORMAT;
	case SW_ERR_UNSUPPORTED: return STACKWALK_EUNSUPPORTED;
	case SW_ERR_NOMEM: break;
	}
	return STACKWALK_ENOMEM;
}

const char *stackwalk_status_name(enum stackwalk_status status)
{
	switch (status) {
	case STACKWALK_OK: return "ok";
	case STACKWALK_DAMAGED: return "damaged input";
	case STACKWALK_EINVAL: return "invalid argument";
	case STACKWALK_EIO: return "cannot read the file";
	case STACKWALK_EFORMAT: return "not a snapshot";
	case STACKWALK_EUNSUPPORTED: return "unsupported";
	case STACKWALK_ENOMEM: return "out of memory";
	case STACKWALK_ENOENT: return "no such part";
	}
	return "unknown status";
}

const char *stackwalk_errmsg(void)
{
	return last_error;
}

const char *stackwalk_version(void)
{
	return STACKWALK_VERSION;
}

/* ---- snapshots ---- */

/* Opens part (NULL: the first) of path into a new handle; opt lends its
 * symbol paths and maps file to the first part; max_decompressed is the
 * limit of a compressed file (opt's when opt is given). */
static enum stackwalk_status open_snapshot(const char *path, const stackwalk_options *opt,
                                           uint64_t max_decompressed, const struct sw_part *part,
                                           stackwalk_snapshot **out)
{
	if (!out)
		return fail(STACKWALK_EINVAL, "stackwalk_snapshot_open: no place for the handle");
	*out = NULL;
	if (!path)
		return fail(STACKWALK_EINVAL, "stackwalk_snapshot_open: no path");
	struct stackwalk_snapshot *h = calloc(1, sizeof *h);
	if (!h || !(h->path = strdup(path)) ||
	    (opt && !sw_strlist_copy(&opt->paths, &h->search_paths))) {
		if (h)
			free(h->path);
		free(h);
		return fail(STACKWALK_ENOMEM, "%s: out of memory", path);
	}
	struct sw_open_options oo = {
		.search_paths = (const char *const *)h->search_paths.v,
		.nsearch_paths = h->search_paths.n,
		.maps_file = opt ? opt->maps_file : NULL, /* read while opening */
		.max_decompressed = opt ? opt->max_decompressed : max_decompressed,
	};
	h->max_decompressed = oo.max_decompressed;
	struct sw_err err = { 0 };
	enum sw_err_code rc = sw_pipeline_open(h->path, &oo, part, &h->snap, &err);
	if (rc != SW_OK && rc != SW_ERR_CORRUPT) {
		enum stackwalk_status st = fail(status_of(rc), "%s", err.msg);
		stackwalk_snapshot_close(h);
		return st;
	}
	*out = h;
	h->damaged = rc == SW_ERR_CORRUPT;
	if (rc == SW_ERR_CORRUPT)
		return fail(STACKWALK_DAMAGED, "%s", err.msg);
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_snapshot_open(const char *path, const stackwalk_options *opt,
                                              stackwalk_snapshot **out)
{
	return open_snapshot(path, opt, 0, NULL, out);
}

enum stackwalk_status stackwalk_snapshot_open_next(const stackwalk_snapshot *snap,
                                                   stackwalk_snapshot **out)
{
	if (!snap || !out)
		return fail(STACKWALK_EINVAL, "stackwalk_snapshot_open_next: no snapshot");
	*out = NULL;
	if (!snap->snap.has_next)
		return fail(STACKWALK_ENOENT, "%s: no further snapshot in the file", snap->path);
	return open_snapshot(snap->path, NULL, snap->max_decompressed, &snap->snap.next, out);
}

void stackwalk_snapshot_close(stackwalk_snapshot *snap)
{
	if (!snap)
		return;
	sw_snapshot_free(&snap->snap);
	sw_strlist_free(&snap->search_paths);
	free(snap->path);
	free(snap);
}

const char *stackwalk_snapshot_format(const stackwalk_snapshot *snap)
{
	return snap && snap->snap.format ? snap->snap.format : "";
}

const char *stackwalk_snapshot_cpu(const stackwalk_snapshot *snap)
{
	return snap && snap->snap.sys.cpu_name ? snap->snap.sys.cpu_name : "unknown";
}

size_t stackwalk_snapshot_problem_count(const stackwalk_snapshot *snap)
{
	return snap ? snap->snap.nproblems : 0;
}

const char *stackwalk_snapshot_problem(const stackwalk_snapshot *snap, size_t i)
{
	return snap && i < snap->snap.nproblems ? snap->snap.problems[i] : NULL;
}

/* ---- shared objects ---- */

static struct shared *shared_new(void *obj, void (*release)(void *obj))
{
	struct shared *sh = malloc(sizeof *sh);
	if (!sh) {
		release(obj);
		return NULL;
	}
	atomic_init(&sh->refs, 1);
	sh->obj = obj;
	sh->release = release;
	return sh;
}

static struct shared *shared_ref(struct shared *sh)
{
	if (sh)
		atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
	return sh;
}

static void shared_unref(struct shared *sh)
{
	if (!sh || atomic_fetch_sub_explicit(&sh->refs, 1, memory_order_acq_rel) != 1)
		return;
	sh->release(sh->obj);
	free(sh);
}

static void release_cache(void *cache)
{
	sw_sym_cache_free(cache);
}

static void release_servers(void *servers)
{
	sw_symbol_server_free(servers);
}

/* ---- options ---- */

stackwalk_options *stackwalk_options_new(void)
{
	struct stackwalk_options *opt = calloc(1, sizeof *opt);
	if (!opt)
		return NULL;
	opt->local_modules = -1;
	sw_sig_rules_init(&opt->rules);
	if (!sw_sig_rules_add_defaults(&opt->rules)) {
		stackwalk_options_free(opt);
		return NULL;
	}
	return opt;
}

void stackwalk_options_free(stackwalk_options *opt)
{
	if (!opt)
		return;
	sw_strlist_free(&opt->paths);
	free(opt->maps_file);
	shared_unref(opt->cache);
	sw_strlist_free(&opt->srv.urls);
	sw_strlist_free(&opt->srv.headers);
	shared_unref(opt->servers);
	sw_sig_rules_free(&opt->rules);
	free(opt);
}

enum stackwalk_status stackwalk_options_add_symbol_path(stackwalk_options *opt, const char *path)
{
	if (!opt || !path)
		return fail(STACKWALK_EINVAL, "stackwalk_options_add_symbol_path: no %s",
		            opt ? "path" : "options");
	if (!sw_strlist_add(&opt->paths, path))
		return fail(STACKWALK_ENOMEM, "%s: out of memory", path);
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_options_set_max_frames(stackwalk_options *opt, uint32_t max_frames)
{
	if (!opt || max_frames == 0 || max_frames > SW_DEFAULT_MAX_FRAMES)
		return fail(STACKWALK_EINVAL, "max_frames wants a number from 1 to %u, not %u",
		            (unsigned)SW_DEFAULT_MAX_FRAMES, max_frames);
	opt->walk.max_frames = max_frames;
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_options_set_scan(stackwalk_options *opt, int on)
{
	if (!opt)
		return fail(STACKWALK_EINVAL, "stackwalk_options_set_scan: no options");
	opt->walk.no_scan = !on;
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_options_set_local_modules(stackwalk_options *opt, int on)
{
	if (!opt)
		return fail(STACKWALK_EINVAL, "stackwalk_options_set_local_modules: no options");
	opt->local_modules = on != 0;
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_options_set_max_decompressed(stackwalk_options *opt,
                                                             uint64_t bytes)
{
	if (!opt || bytes == 0)
		return fail(STACKWALK_EINVAL, "stackwalk_options_set_max_decompressed: %s",
		            !opt ? "no options" : "a limit of 0 bytes");
	opt->max_decompressed = bytes;
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_options_set_maps_file(stackwalk_options *opt, const char *path)
{
	if (!opt)
		return fail(STACKWALK_EINVAL, "stackwalk_options_set_maps_file: no options");
	char *copy = NULL;
	if (path && !(copy = strdup(path)))
		return fail(STACKWALK_ENOMEM, "%s: out of memory", path);
	free(opt->maps_file);
	opt->maps_file = copy;
	return STACKWALK_OK;
}

/* The symbol servers of ss and cache (its directory receives the
 * downloads; NULL: a temporary directory, removed with the servers), as
 * cmd/stackwalk.c makes them, into *out (NULL: no server asked for). On
 * failure *out is untouched and the message says who failed. */
static enum stackwalk_status make_servers(const char *who, const struct server_settings *ss,
                                          const struct shared *cache, struct shared **out)
{
	if (!ss->urls.n && !ss->debuginfod) {
		*out = NULL;
		return STACKWALK_OK;
	}
	/* Headers wait for a URL to go to. */
	struct sw_symbol_server_options so = {
		.urls = (const char *const *)ss->urls.v,
		.nurls = ss->urls.n,
		.headers = (const char *const *)ss->headers.v,
		.nheaders = ss->urls.n ? ss->headers.n : 0,
		.debuginfod = ss->debuginfod,
		.timeout_s = ss->timeout_s,
	};
	struct sw_err err = { 0 };
	struct sw_symbol_server *srv =
		sw_pipeline_servers_create(&so, cache ? cache->obj : NULL, &err);
	if (!srv)
		return fail(status_of(err.code ? err.code : SW_ERR_NOMEM), "%s: %s", who,
		            err.code ? err.msg : "out of memory");
	struct shared *sh = shared_new(srv, release_servers);
	if (!sh)
		return fail(STACKWALK_ENOMEM, "%s: out of memory", who);
	*out = sh;
	return STACKWALK_OK;
}

/* opt's servers remade of ss (then opt's settings): unchanged on failure. */
static enum stackwalk_status use_servers(stackwalk_options *opt, const char *who,
                                         const struct server_settings *ss)
{
	struct shared *servers = NULL;
	enum stackwalk_status st = make_servers(who, ss, opt->cache, &servers);
	if (st != STACKWALK_OK)
		return st;
	opt->srv = *ss;
	shared_unref(opt->servers);
	opt->servers = servers;
	return STACKWALK_OK;
}

/* Makes opt's cache `cache` (taken over), its servers remade to download
 * into it; on failure opt is unchanged and cache released. */
static enum stackwalk_status replace_cache(stackwalk_options *opt, const char *who,
                                           struct shared *cache)
{
	struct shared *servers = NULL;
	enum stackwalk_status st = make_servers(who, &opt->srv, cache, &servers);
	if (st != STACKWALK_OK) {
		shared_unref(cache);
		return st;
	}
	shared_unref(opt->cache);
	opt->cache = cache;
	shared_unref(opt->servers);
	opt->servers = servers;
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_options_set_symbol_cache(stackwalk_options *opt, const char *dir)
{
	static const char who[] = "stackwalk_options_set_symbol_cache";
	if (!opt)
		return fail(STACKWALK_EINVAL, "%s: no options", who);
	if (dir && !*dir)
		return fail(STACKWALK_EINVAL, "%s: an empty directory name", who);
	struct sw_err err = { 0 };
	struct sw_sym_cache *c = sw_sym_cache_create(dir, &err);
	if (!c && err.code == SW_ERR_USAGE) /* no default directory */
		return fail(STACKWALK_ENOENT, "%s: %s", who, err.msg);
	struct shared *cache = c ? shared_new(c, release_cache) : NULL;
	if (!cache)
		return fail(STACKWALK_ENOMEM, "%s: out of memory", who);
	return replace_cache(opt, who, cache);
}

enum stackwalk_status stackwalk_options_disable_symbol_cache(stackwalk_options *opt)
{
	if (!opt)
		return fail(STACKWALK_EINVAL, "stackwalk_options_disable_symbol_cache: no options");
	return replace_cache(opt, "stackwalk_options_disable_symbol_cache", NULL);
}

/* str added at the end of opt's headers (header) or URLs, the servers
 * remade: opt unchanged on failure. */
static enum stackwalk_status add_server_string(stackwalk_options *opt, const char *who,
                                               bool header, const char *str)
{
	struct sw_strlist *list = header ? &opt->srv.headers : &opt->srv.urls;
	if (!sw_strlist_add(list, str))
		return fail(STACKWALK_ENOMEM, "%s: out of memory", who);
	enum stackwalk_status st = use_servers(opt, who, &opt->srv);
	if (st != STACKWALK_OK)
		sw_strlist_drop_last(list);
	return st;
}

enum stackwalk_status stackwalk_options_add_symbol_url(stackwalk_options *opt, const char *url)
{
	static const char who[] = "stackwalk_options_add_symbol_url";
	if (!opt || !url)
		return fail(STACKWALK_EINVAL, "%s: no %s", who, opt ? "URL" : "options");
	return add_server_string(opt, who, false, url);
}

enum stackwalk_status stackwalk_options_add_symbol_header(stackwalk_options *opt,
                                                          const char *header)
{
	static const char who[] = "stackwalk_options_add_symbol_header";
	if (!opt || !header)
		return fail(STACKWALK_EINVAL, "%s: no %s", who, opt ? "header" : "options");
	const char *why = sw_symbol_server_header_problem(header);
	if (why) {
		char name[64];
		sw_symbol_server_header_name(header, name, sizeof name);
		return fail(STACKWALK_EINVAL, "%s: '%s': %s", who, name, why);
	}
	return add_server_string(opt, who, true, header);
}

enum stackwalk_status stackwalk_options_set_symbols_timeout(stackwalk_options *opt,
                                                            unsigned seconds)
{
	static const char who[] = "stackwalk_options_set_symbols_timeout";
	if (!opt || seconds == 0 || seconds > 3600)
		return fail(STACKWALK_EINVAL, "%s: %s", who,
		            !opt ? "no options" : "seconds must be 1 to 3600");
	struct server_settings ss = opt->srv;
	ss.timeout_s = seconds;
	return use_servers(opt, who, &ss);
}

enum stackwalk_status stackwalk_options_set_debuginfod(stackwalk_options *opt, int on)
{
	static const char who[] = "stackwalk_options_set_debuginfod";
	if (!opt)
		return fail(STACKWALK_EINVAL, "%s: no options", who);
	struct server_settings ss = opt->srv;
	ss.debuginfod = on != 0;
	return use_servers(opt, who, &ss);
}

enum stackwalk_status stackwalk_options_add_signature_skip(stackwalk_options *opt,
                                                           const char *path)
{
	if (!opt || !path)
		return fail(STACKWALK_EINVAL, "stackwalk_options_add_signature_skip: no %s",
		            opt ? "path" : "options");
	struct sw_err err = { 0 };
	if (!sw_sig_rules_load(&opt->rules, path, &err))
		return fail(status_of(err.code ? err.code : SW_ERR_NOMEM), "%s",
		            err.code ? err.msg : "out of memory");
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_options_set_threads(stackwalk_options *opt, uint32_t threads)
{
	if (!opt || threads == 0 || threads > 1024)
		return fail(STACKWALK_EINVAL,
		            "stackwalk_options_set_threads: %s", !opt ? "no options"
		            : "the number of threads must be 1 to 1024");
	opt->walk.threads = threads;
	return STACKWALK_OK;
}

/* ---- walking ---- */

/* The warnings of a walk, in the CLI's order: symbol paths that do not
 * exist, the store's own complaint, then the files it refused. */
static bool collect_warnings(struct stackwalk_result *res, const struct stackwalk_options *opt)
{
	struct sw_pipeline_result *pl = &res->pl;
	uint32_t nstore = sw_sym_store_nwarnings(pl->store);
	size_t cap = opt->paths.n + 1 + nstore;
	res->warnings = sw_arena_array(&pl->arena, cap, sizeof *res->warnings);
	if (!res->warnings)
		return false;
	for (size_t i = 0; i < opt->paths.n; i++) {
		const char *why = sw_pipeline_symbol_path_missing(opt->paths.v[i]);
		if (!why)
			continue;
		const char *w = sw_arena_printf(&pl->arena, "%s: symbol path ignored: %s",
		                                opt->paths.v[i], why);
		if (!w)
			return false;
		res->warnings[res->nwarnings++] = w;
	}
	if (pl->store_err.code != SW_OK) {
		if (!(res->warnings[res->nwarnings] = sw_arena_strdup(&pl->arena, pl->store_err.msg)))
			return false;
		res->nwarnings++;
	}
	for (uint32_t i = 0; i < nstore; i++)
		res->warnings[res->nwarnings++] = sw_sym_store_warning(pl->store, i);
	return true;
}

/* The crash reason as each wording's output prints it. */
static bool make_crash_reasons(struct stackwalk_result *res)
{
	const struct sw_snapshot *s = &res->snap->snap;
	if (!s->crash.present)
		return true;
	static const enum sw_reason_style styles[] = {
		[STACKWALK_WORDING_TEXT] = SW_REASON_BREAKPAD,
		[STACKWALK_WORDING_JSON] = SW_REASON_RUST,
	};
	for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++) {
		char reason[256]; /* as the outputs' own buffers */
		sw_crash_reason(s, styles[i], reason, sizeof reason);
		if (!(res->crash_reason[i] = sw_arena_strdup(&res->pl.arena, reason)))
			return false;
	}
	return true;
}

/* The handles of modules, threads and frames over the finished walk. */
/* Frame `frame`'s evidence (-1: the walk's end) as the JSON output
 * writes it, in the result's arena; NULL: out of memory. */
static const char *evidence_json(struct stackwalk_result *res, const struct sw_stack *st,
                                 int64_t frame)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	sw_output_evidence_json(f, &res->snap->snap, st, frame);
	bool ok = fclose(f) == 0;
	const char *copy = ok && buf ? sw_arena_strndup(&res->pl.arena, buf, len) : NULL;
	free(buf);
	return copy;
}

static bool make_views(struct stackwalk_result *res)
{
	const struct sw_snapshot *s = &res->snap->snap;
	if (s->nmodules) {
		res->modules = sw_arena_array(&res->pl.arena, s->nmodules, sizeof *res->modules);
		if (!res->modules)
			return false;
		for (uint32_t i = 0; i < s->nmodules; i++)
			res->modules[i] = (struct stackwalk_module){ &s->modules[i], res, (int32_t)i };
	}
	const struct sw_walk_result *w = &res->pl.walk;
	if (w->nstacks == 0)
		return true;
	res->threads = sw_arena_array(&res->pl.arena, w->nstacks, sizeof *res->threads);
	if (!res->threads)
		return false;
	for (uint32_t i = 0; i < w->nstacks; i++) {
		struct stackwalk_thread *t = &res->threads[i];
		t->res = res;
		t->stack = &w->stacks[i];
		t->thread = &res->snap->snap.threads[t->stack->thread];
		if (t->stack->nframes == 0)
			continue;
		t->frames = sw_arena_array(&res->pl.arena, t->stack->nframes, sizeof *t->frames);
		if (!t->frames)
			return false;
		for (uint32_t j = 0; j < t->stack->nframes; j++)
			t->frames[j] = (struct stackwalk_frame){ &t->stack->frames[j], t, NULL };
		if (t->stack->evidence) {
			for (uint32_t j = 0; j < t->stack->nframes; j++)
				if (!(t->frames[j].evidence = evidence_json(res, t->stack, j)))
					return false;
			if (!(t->end_evidence = evidence_json(res, t->stack, -1)))
				return false;
		}
	}
	return true;
}

static enum stackwalk_status walk_with(const stackwalk_snapshot *snap,
                                       const stackwalk_options *opt, unsigned flags,
                                       stackwalk_result **out);

enum stackwalk_status stackwalk_walk(const stackwalk_snapshot *snap, const stackwalk_options *opt,
                                     unsigned flags, stackwalk_result **out)
{
	if (!snap || !out)
		return fail(STACKWALK_EINVAL, "stackwalk_walk: no %s", snap ? "result pointer" : "snapshot");
	*out = NULL;
	if (flags & ~(unsigned)(STACKWALK_WALK_CRASHING_ONLY | STACKWALK_WALK_EXPLAIN))
		return fail(STACKWALK_EINVAL, "stackwalk_walk: unknown flags 0x%x", flags);
	if (opt)
		return walk_with(snap, opt, flags, out);
	/* The defaults are a new handle's (the built-in signature rules). */
	stackwalk_options *defaults = stackwalk_options_new();
	if (!defaults)
		return fail(STACKWALK_ENOMEM, "%s: out of memory", snap->path);
	enum stackwalk_status st = walk_with(snap, defaults, flags, out);
	stackwalk_options_free(defaults);
	return st;
}

static enum stackwalk_status walk_with(const stackwalk_snapshot *snap,
                                       const stackwalk_options *opt, unsigned flags,
                                       stackwalk_result **out)
{
	struct stackwalk_result *res = calloc(1, sizeof *res);
	if (!res)
		return fail(STACKWALK_ENOMEM, "%s: out of memory", snap->path);
	res->snap = snap;
	res->cache = shared_ref(opt->cache);
	res->servers = shared_ref(opt->servers);
	struct sw_pipeline_options po = {
		.name = snap->path,
		.symbols = {
			.paths = (const char *const *)opt->paths.v,
			.npaths = opt->paths.n,
			.local_modules = opt->local_modules,
			.cache = res->cache ? res->cache->obj : NULL,
			.servers = res->servers ? res->servers->obj : NULL,
		},
		.walk = opt->walk,
		.rules = &opt->rules,
	};
	po.walk.crashing_only = (flags & STACKWALK_WALK_CRASHING_ONLY) != 0;
	po.walk.explain = (flags & STACKWALK_WALK_EXPLAIN) != 0;
	struct sw_err err = { 0 };
	enum sw_err_code rc = sw_pipeline_walk(&snap->snap, &po, &res->pl, &err);
	if (rc == SW_OK && (!collect_warnings(res, opt) || !make_views(res) ||
	                    !make_crash_reasons(res)))
		rc = sw_err_set(&err, SW_ERR_NOMEM, "%s: out of memory while walking", snap->path);
	if (rc != SW_OK) {
		stackwalk_result_free(res);
		return fail(status_of(rc), "%s", err.msg);
	}
	/* The crash signature of the crashing thread's stack, if any (as the
	 * CLI's JSON "signature"). */
	res->signature = res->pl.signed_stack ? res->pl.sig.text : NULL;
	*out = res;
	if (!res->pl.arch && snap->snap.nthreads)
		return fail(STACKWALK_DAMAGED, "%s: CPU '%s' is not supported; threads are not walked",
		            snap->path, stackwalk_snapshot_cpu(snap));
	return STACKWALK_OK;
}

void stackwalk_result_free(stackwalk_result *res)
{
	if (!res)
		return;
	sw_pipeline_result_free(&res->pl);
	shared_unref(res->cache);
	shared_unref(res->servers);
	free(res);
}

size_t stackwalk_result_warning_count(const stackwalk_result *res)
{
	return res ? res->nwarnings : 0;
}

const char *stackwalk_result_warning(const stackwalk_result *res, size_t i)
{
	return res && i < res->nwarnings ? res->warnings[i] : NULL;
}

const char *stackwalk_result_signature(const stackwalk_result *res)
{
	return res ? res->signature : NULL;
}

/* ---- threads ---- */

size_t stackwalk_result_thread_count(const stackwalk_result *res)
{
	return res ? res->pl.walk.nstacks : 0;
}

const stackwalk_thread *stackwalk_result_thread(const stackwalk_result *res, size_t i)
{
	return res && i < res->pl.walk.nstacks ? &res->threads[i] : NULL;
}

const stackwalk_thread *stackwalk_result_crashing_thread(const stackwalk_result *res)
{
	if (!res || res->pl.walk.crashing < 0)
		return NULL;
	return &res->threads[res->pl.walk.crashing];
}

uint64_t stackwalk_thread_id(const stackwalk_thread *t)
{
	return t ? t->thread->id : 0;
}

const char *stackwalk_thread_name(const stackwalk_thread *t)
{
	return t ? t->thread->name : NULL;
}

int stackwalk_thread_is_crashing(const stackwalk_thread *t)
{
	return t && t->res->pl.walk.crashing >= 0 && t == &t->res->threads[t->res->pl.walk.crashing];
}

const char *stackwalk_thread_end(const stackwalk_thread *t)
{
	return sw_walk_end_name(t ? t->stack->end : SW_END_NOT_WALKED);
}

size_t stackwalk_thread_frame_count(const stackwalk_thread *t)
{
	return t ? t->stack->nframes : 0;
}

const stackwalk_frame *stackwalk_thread_frame(const stackwalk_thread *t, size_t i)
{
	return t && i < t->stack->nframes ? &t->frames[i] : NULL;
}

/* ---- frames ---- */

const char *stackwalk_frame_evidence(const stackwalk_frame *f)
{
	return f ? f->evidence : NULL;
}

const char *stackwalk_thread_end_evidence(const stackwalk_thread *t)
{
	return t ? t->end_evidence : NULL;
}

enum stackwalk_trust stackwalk_frame_trust(const stackwalk_frame *f)
{
	/* The public values are the internal ones, by construction; a trust
	 * added inside is "none" outside until the header names it. */
	_Static_assert((int)STACKWALK_TRUST_DEX == (int)SW_TRUST_DEX &&
	               (int)STACKWALK_TRUST_INLINE == (int)SW_TRUST_INLINE &&
	               (int)STACKWALK_TRUST_SCAN == (int)SW_TRUST_SCAN &&
	               (int)STACKWALK_TRUST_CFI == (int)SW_TRUST_CFI,
	               "enum stackwalk_trust follows enum sw_trust");
	if (!f || f->f->trust > SW_TRUST_DEX)
		return STACKWALK_TRUST_NONE;
	return (enum stackwalk_trust)f->f->trust;
}

const char *stackwalk_trust_name(enum stackwalk_trust trust)
{
	if ((unsigned)trust > STACKWALK_TRUST_DEX)
		return "none";
	return sw_trust_name((enum sw_trust)trust);
}

int stackwalk_frame_is_inline(const stackwalk_frame *f)
{
	return f && f->f->trust == SW_TRUST_INLINE;
}

uint64_t stackwalk_frame_pc(const stackwalk_frame *f)
{
	return f ? f->f->pc : 0;
}

int stackwalk_frame_has_sp(const stackwalk_frame *f)
{
	const struct sw_arch *arch = f ? f->thread->stack->arch : NULL;
	return arch && sw_stack_frame_reg_valid(f->f, arch->sp);
}

uint64_t stackwalk_frame_sp(const stackwalk_frame *f)
{
	return stackwalk_frame_has_sp(f) ? sw_stack_frame_reg(f->f, f->thread->stack->arch->sp) : 0;
}

/* The outputs' name for the frame's code: its module, or an ART Java
 * frame's .dex mapping. */
static bool frame_place(const stackwalk_frame *f, const char **name, uint64_t *base)
{
	return f && sw_out_frame_place(&f->thread->res->snap->snap, f->f, name, base) && *name;
}

const char *stackwalk_frame_module(const stackwalk_frame *f)
{
	const char *name;
	uint64_t base;
	return frame_place(f, &name, &base) ? name : NULL;
}

uint64_t stackwalk_frame_module_offset(const stackwalk_frame *f)
{
	const char *name;
	uint64_t base;
	return frame_place(f, &name, &base) ? f->f->pc - base : 0;
}

const char *stackwalk_frame_function(const stackwalk_frame *f)
{
	return f ? f->f->function : NULL;
}

uint64_t stackwalk_frame_function_offset(const stackwalk_frame *f)
{
	if (!f || !f->f->function || f->f->function_base > f->f->pc)
		return 0;
	return f->f->pc - f->f->function_base;
}

const char *stackwalk_frame_file(const stackwalk_frame *f)
{
	return f ? f->f->file : NULL;
}

uint32_t stackwalk_frame_line(const stackwalk_frame *f)
{
	return f && f->f->file ? f->f->line : 0;
}

/* ---- the crash ---- */

int stackwalk_result_has_crash(const stackwalk_result *res)
{
	return res && res->snap->snap.crash.present;
}

const char *stackwalk_result_crash_reason(const stackwalk_result *res,
                                          enum stackwalk_wording wording)
{
	if (!res || (unsigned)wording > STACKWALK_WORDING_JSON)
		return NULL;
	return res->crash_reason[wording];
}

int stackwalk_result_crash_address(const stackwalk_result *res, enum stackwalk_wording wording,
                                   uint64_t *address)
{
	if (address)
		*address = 0;
	if (!stackwalk_result_has_crash(res) || (unsigned)wording > STACKWALK_WORDING_JSON)
		return 0;
	if (address)
		*address = sw_crash_address(&res->snap->snap, wording == STACKWALK_WORDING_JSON
		                                              ? SW_REASON_RUST : SW_REASON_BREAKPAD);
	return 1;
}

uint32_t stackwalk_result_crash_code(const stackwalk_result *res)
{
	return stackwalk_result_has_crash(res) ? res->snap->snap.crash.code : 0;
}

uint32_t stackwalk_result_crash_flags(const stackwalk_result *res)
{
	return stackwalk_result_has_crash(res) ? res->snap->snap.crash.flags : 0;
}

ptrdiff_t stackwalk_result_crashing_thread_index(const stackwalk_result *res)
{
	if (!res || res->pl.walk.crashing < 0 || (uint32_t)res->pl.walk.crashing >= res->pl.walk.nstacks)
		return -1;
	return res->pl.walk.crashing;
}

/* ---- modules ---- */

size_t stackwalk_result_module_count(const stackwalk_result *res)
{
	return res ? res->snap->snap.nmodules : 0;
}

const stackwalk_module *stackwalk_result_module(const stackwalk_result *res, size_t i)
{
	return res && i < res->snap->snap.nmodules ? &res->modules[i] : NULL;
}

const stackwalk_module *stackwalk_frame_module_handle(const stackwalk_frame *f)
{
	if (!f || f->f->module < 0 || (uint32_t)f->f->module >= f->thread->res->snap->snap.nmodules)
		return NULL;
	return &f->thread->res->modules[f->f->module];
}

const char *stackwalk_module_name(const stackwalk_module *m)
{
	return m && m->m->code_file ? sw_basename(m->m->code_file) : NULL;
}

const char *stackwalk_module_path(const stackwalk_module *m)
{
	return m ? m->m->code_file : NULL;
}

uint64_t stackwalk_module_base(const stackwalk_module *m)
{
	return m ? m->m->base : 0;
}

uint64_t stackwalk_module_size(const stackwalk_module *m)
{
	return m ? m->m->size : 0;
}

const char *stackwalk_module_debug_file(const stackwalk_module *m)
{
	return m && m->m->debug_file ? sw_basename(m->m->debug_file) : NULL;
}

const char *stackwalk_module_debug_id(const stackwalk_module *m)
{
	return m ? m->m->debug_id : NULL;
}

const char *stackwalk_module_code_id(const stackwalk_module *m)
{
	return m ? m->m->code_id : NULL;
}

const char *stackwalk_module_version(const stackwalk_module *m)
{
	return m ? m->m->version : NULL;
}

enum stackwalk_symbols stackwalk_module_symbols(const stackwalk_module *m)
{
	/* The public values are the internal ones, as the trusts'. */
	_Static_assert((int)STACKWALK_SYMBOLS_NOT_LOOKED_FOR == (int)SW_SYMS_NOT_LOOKED &&
	               (int)STACKWALK_SYMBOLS_LOADED == (int)SW_SYMS_LOADED &&
	               (int)STACKWALK_SYMBOLS_MISSING == (int)SW_SYMS_MISSING &&
	               (int)STACKWALK_SYMBOLS_CORRUPT == (int)SW_SYMS_CORRUPT,
	               "enum stackwalk_symbols follows enum sw_symbols_status");
	if (!m || !m->res->pl.walk.module_status)
		return STACKWALK_SYMBOLS_NOT_LOOKED_FOR;
	enum sw_symbols_status st = m->res->pl.walk.module_status[m->index];
	return st > SW_SYMS_CORRUPT ? STACKWALK_SYMBOLS_NOT_LOOKED_FOR : (enum stackwalk_symbols)st;
}

const char *stackwalk_symbols_name(enum stackwalk_symbols symbols)
{
	switch (symbols) {
	case STACKWALK_SYMBOLS_NOT_LOOKED_FOR: return "not_looked_for";
	case STACKWALK_SYMBOLS_LOADED: return "loaded";
	case STACKWALK_SYMBOLS_MISSING: return "missing";
	case STACKWALK_SYMBOLS_CORRUPT: return "corrupt";
	}
	return "not_looked_for";
}

/* ---- rendering ---- */

enum stackwalk_status stackwalk_render(const stackwalk_result *res, enum stackwalk_format format,
                                       unsigned flags, FILE *out)
{
	if (!res || !out)
		return fail(STACKWALK_EINVAL, "stackwalk_render: no %s", res ? "FILE" : "result");
	if (flags & ~(unsigned)STACKWALK_RENDER_PRETTY)
		return fail(STACKWALK_EINVAL, "stackwalk_render: unknown flags 0x%x", flags);
	enum sw_output_format fmt;
	switch (format) {
	case STACKWALK_FORMAT_TEXT: fmt = SW_OUTPUT_TEXT; break;
	case STACKWALK_FORMAT_MACHINE: fmt = SW_OUTPUT_MACHINE; break;
	case STACKWALK_FORMAT_JSON: fmt = SW_OUTPUT_JSON; break;
	default: return fail(STACKWALK_EINVAL, "stackwalk_render: unknown format %d", (int)format);
	}
	/* The signature as the CLI prints it (text "Signature:", JSON
	 * "signature"). */
	/* The JSON "status" as stackwalk(1) gives it (docs/json.md): a CPU it
	 * cannot walk, else a damaged input, else OK. */
	const char *status = !res->pl.arch && res->snap->snap.nthreads ? "UNSUPPORTED_CPU"
	                     : res->snap->damaged                    ? "DAMAGED"
	                                                              : NULL;
	struct sw_output_options oo = {
		.pretty = (flags & STACKWALK_RENDER_PRETTY) != 0,
		.signature = res->signature,
		.status = status,
	};
	sw_output(out, fmt, &res->snap->snap, res->pl.arch, &res->pl.walk, &oo);
	if (fflush(out) != 0 || ferror(out))
		return fail(STACKWALK_EIO, "cannot write the output: %s", strerror(errno));
	return STACKWALK_OK;
}

enum stackwalk_status stackwalk_render_buffer(const stackwalk_result *res,
                                              enum stackwalk_format format, unsigned flags,
                                              char **buf, size_t *len)
{
	if (!buf || !len)
		return fail(STACKWALK_EINVAL, "stackwalk_render_buffer: no buffer pointer");
	*buf = NULL;
	*len = 0;
	char *b = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&b, &n);
	if (!f)
		return fail(STACKWALK_ENOMEM, "stackwalk_render_buffer: out of memory");
	enum stackwalk_status st = stackwalk_render(res, format, flags, f);
	if (fclose(f) != 0 && st == STACKWALK_OK)
		st = fail(STACKWALK_ENOMEM, "stackwalk_render_buffer: out of memory");
	if (st != STACKWALK_OK) {
		free(b);
		return st;
	}
	*buf = b;
	*len = n;
	return STACKWALK_OK;
}

void stackwalk_buffer_free(char *buf)
{
	free(buf);
}
