/* Symbol servers and debuginfod (see symbol_server.h and
 * docs/symbol-servers.md): what to ask for and of whom, the checks a
 * download passes, where it is kept in the cache, the misses remembered.
 * The requests themselves go through server_transport.h (libcurl,
 * libdebuginfod). The store only calls sw_symbol_server_fetch for a
 * module no local path served, and reads what it returns as local files. */
#include "symbol_server.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cache_prune.h"
#include "elf_image.h"
#include "gz.h"
#include "server_transport.h"
#include "store_layout.h"
#include "lib/build_id.h"
#include "lib/file_lock.h"
#include "lib/fnv.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"
#include "lib/path.h"


enum { MAX_BUILD_ID_HEX = 128 };

struct server {
	char *url;                  /* without trailing '/' */
	char origin[SW_URL_ORIGIN_MAX]; /* "scheme://host:port" of url, lower case */
	char marker[32];            /* ".missing-" + FNV-1a 64 of url, in hex */
	time_t down_until;          /* timed out or unreachable: not asked before then */
};

/* A batch's threads share one sw_symbol_server and download different
 * modules at once (each with a connection of the pool); a module one
 * thread is fetching, another waits for, and then finds in the cache. */
enum { MAX_IN_FLIGHT = 64 };

/* How long a process waits for another that is fetching the same module
 * into the same cache before it asks the servers itself. */
enum { FETCH_WAIT_MS = 120 * 1000 };

struct sw_symbol_server {
	/* Guards the modules in flight, the handle pool, the down flags and
	 * the sweep; held only between requests. Cache hits do not take it. */
	pthread_mutex_t lock;
	pthread_cond_t landed;      /* a module in flight was fetched (or not) */
	const struct wanted *in_flight[MAX_IN_FLIGHT];
	unsigned nin_flight;
	struct server *servers;
	size_t nservers;
	bool debuginfod;
	char *dir;                  /* the cache directory downloads go to */
	bool dir_is_temp;           /* made for --no-cache: removed at the end */
	unsigned timeout_s;
	long miss_ttl_s;            /* a miss is remembered this long; 0: not at all */
	/* A new file's mode (0666 minus the umask, read once: umask() is the
	 * process's, and a batch's other threads create files meanwhile). */
	mode_t file_mode;
	bool swept;                 /* stale downloads removed (once a run) */
	atomic_uint kept;           /* downloads kept in the cache (sw_symbol_server_kept) */
	struct sw_http *http;       /* the servers' connections; NULL: no servers */
	/* The debuginfod client is one thread's at a time. */
	pthread_mutex_t dbgd_lock;
	struct sw_debuginfod *dbgd; /* NULL: debuginfod not asked */
};

bool sw_symbol_server_has_http(void)
{
	return sw_http_available();
}

bool sw_symbol_server_has_debuginfod(void)
{
	return sw_debuginfod_available();
}

/* ---- paths and names ---- */

/* mkdir -p of the directory part of path (everything before the last '/'). */
static bool make_parent_dirs(const char *path)
{
	char buf[4096];
	if (!sw_path_printf(buf, sizeof buf, "%s", path))
		return false;
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return true;
	*slash = '\0';
	return sw_make_dirs(buf);
}


/* A name that is safe as one path component (and one URL segment after
 * escaping): not ".", "..", and without '/'. */
static bool safe_component(const char *s)
{
	return s && *s && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 && !strchr(s, '/');
}

/* An ELF module's GNU build-id (its code id), in lower-case hex. */
static bool module_build_id(const struct sw_module *m, char out[MAX_BUILD_ID_HEX + 1])
{
	uint8_t id[MAX_BUILD_ID_HEX / 2];
	size_t n;
	if (!sw_build_id_from_code_id(m->code_id, id, sizeof id, &n))
		return false;
	sw_hex_encode(id, n, out);
	return true;
}

/* What one module is asked for by, and where its files go. */
struct wanted {
	const char *name;           /* debug name (the .sym's directory) */
	const char *id;             /* debug id, or NULL */
	const char *code_name;      /* the code file's base name (the ELF layout) */
	char build_id[MAX_BUILD_ID_HEX + 1]; /* "" when none */
	char miss_dir[4096];        /* where miss markers go */
};

static bool wanted_init(struct wanted *w, const struct sw_module *m, const char *dir)
{
	memset(w, 0, sizeof *w);
	w->name = sw_store_debug_name(m);
	w->id = m->debug_id && *m->debug_id ? m->debug_id : NULL;
	w->code_name = m->code_file && *m->code_file ? sw_basename(m->code_file) : NULL;
	if (!safe_component(w->name))
		w->name = NULL;
	if (w->id && !safe_component(w->id))
		w->id = NULL;
	if (!safe_component(w->code_name))
		w->code_name = NULL;
	if (!module_build_id(m, w->build_id))
		w->build_id[0] = '\0';
	if (w->name && w->id)
		return sw_path_printf(w->miss_dir, sizeof w->miss_dir, "%s/%s/%s", dir, w->name, w->id);
	if (w->code_name && w->build_id[0])
		return sw_path_printf(w->miss_dir, sizeof w->miss_dir, "%s/%s/%s", dir, w->code_name,
		                      w->build_id);
	return false;
}

/* The layouts asked for, in order; each a path relative to the server URL
 * and to the cache directory. */
enum layout { LAYOUT_SYM, LAYOUT_SYM_GZ, LAYOUT_ELF, NLAYOUTS };

static bool layout_path(const struct wanted *w, enum layout l, char *out, size_t cap)
{
	switch (l) {
	case LAYOUT_SYM:
	case LAYOUT_SYM_GZ:
		return w->name && w->id &&
		       sw_store_sym_path(out, cap, NULL, w->name, w->id, l == LAYOUT_SYM_GZ);
	case LAYOUT_ELF:
		return w->code_name && w->build_id[0] &&
		       sw_store_elf_path(out, cap, NULL, w->code_name, w->build_id);
	case NLAYOUTS:
		break;
	}
	return false;
}

static bool layout_wanted(enum layout l, unsigned kinds)
{
	return l == LAYOUT_ELF ? (kinds & SW_FETCH_ELF) : (kinds & SW_FETCH_BREAKPAD);
}

/* ---- the negative cache ---- */

/* Has server s missed this module less than ttl seconds ago? The
 * marker's mtime is when. */
static bool miss_remembered(const struct wanted *w, const struct server *s, long ttl)
{
	char p[4096];
	struct stat st;
	if (ttl <= 0 || !sw_path_printf(p, sizeof p, "%s/%s", w->miss_dir, s->marker) || stat(p, &st) != 0)
		return false;
	time_t now = time(NULL);
	return st.st_mtime <= now && now - st.st_mtime < ttl;
}

/* Writes path's content through a temporary file renamed over it. */
static bool write_atomically(const char *path, const char *text, mode_t mode)
{
	char tmp[4096];
	if (!make_parent_dirs(path) || !sw_path_printf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path))
		return false;
	int fd = mkstemp(tmp);
	if (fd < 0)
		return false;
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n;
	ok = close(fd) == 0 && ok;
	ok = ok && chmod(tmp, mode) == 0 && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	return ok;
}

static void remember_miss(const struct wanted *w, const struct server *s, mode_t mode)
{
	char p[4096], text[SW_SERVER_LINE_MAX + 64];
	time_t now = time(NULL);
	struct tm tm;
	char when[32] = "";
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(text, sizeof text, "%s missed at %s\n", s->url, when);
	if (sw_path_printf(p, sizeof p, "%s/%s", w->miss_dir, s->marker))
		write_atomically(p, text, mode);
}

/* ---- checking a download ---- */

/* The debug id of a "MODULE os arch id name" line; false if line is not one. */
static bool module_line_id(const char *line, size_t n, char *id, size_t cap)
{
	if (n < 7 || memcmp(line, "MODULE ", 7) != 0)
		return false;
	const char *p = line + 7, *end = line + n;
	for (int field = 0; field < 2; field++) { /* os, arch */
		while (p < end && *p != ' ')
			p++;
		if (p == end)
			return false;
		p++;
	}
	const char *q = p;
	while (q < end && *q != ' ' && *q != '\n' && *q != '\r')
		q++;
	if (q == p || (size_t)(q - p) >= cap)
		return false;
	memcpy(id, p, (size_t)(q - p));
	id[q - p] = '\0';
	return true;
}

enum check { CHECK_OK, CHECK_REFUSED, CHECK_IO };

/* A downloaded .sym (plain, or gzip: inflated whole, within the store's
 * limit for its size): its MODULE line must carry the module's debug id. */
static enum check check_sym(const char *path, bool gz, const struct wanted *w, const char *url,
                            const struct sw_server_reporter *r)
{
	char head[SW_SERVER_LINE_MAX];
	size_t nhead = 0;
	if (!gz) {
		FILE *f = fopen(path, "rb");
		if (!f)
			return CHECK_IO;
		nhead = fread(head, 1, sizeof head - 1, f);
		fclose(f);
	} else {
		struct stat st;
		gzFile g = gzopen(path, "rb");
		if (!g || stat(path, &st) != 0) {
			if (g)
				gzclose(g);
			return CHECK_IO;
		}
		uint64_t limit = sw_gz_limit((size_t)st.st_size), total = 0;
		enum { CHUNK = 1 << 16 };
		char *buf = malloc(CHUNK);
		if (!buf) {
			gzclose(g);
			return CHECK_IO;
		}
		int n;
		while ((n = gzread(g, buf, CHUNK)) > 0) {
			if (nhead < sizeof head - 1) {
				size_t take = sizeof head - 1 - nhead < (size_t)n ? sizeof head - 1 - nhead
				                                                    : (size_t)n;
				memcpy(head + nhead, buf, take);
				nhead += take;
			}
			total += (uint64_t)n;
			if (total > limit) {
				free(buf);
				gzclose(g);
				sw_server_report(r, "%s: inflates to more than %llu bytes, over the limit "
				                 "for its compressed size (%lld bytes): refused", url,
				                 (unsigned long long)limit, (long long)st.st_size);
				return CHECK_REFUSED;
			}
		}
		free(buf);
		if (n == 0 && gzdirect(g)) {
			gzclose(g);
			sw_server_report(r, "%s: not a gzip file: refused", url);
			return CHECK_REFUSED;
		}
		int errnum = Z_OK;
		const char *msg = n < 0 ? gzerror(g, &errnum) : NULL;
		if (n < 0) {
			sw_server_report(r, "%s: not a gzip file, or a damaged one (%s): refused", url,
			                 msg ? msg : "inflate error");
			gzclose(g);
			return CHECK_REFUSED;
		}
		gzclose(g);
	}
	head[nhead] = '\0';
	size_t line_len = strcspn(head, "\n");
	char id[128];
	if (!module_line_id(head, line_len, id, sizeof id)) {
		sw_server_report(r, "%s: not a Breakpad symbol file (no MODULE line): refused", url);
		return CHECK_REFUSED;
	}
	if (strcasecmp(id, w->id) != 0) {
		sw_server_report(r, "%s: symbol file not used: its MODULE line has debug id %s, the "
		                 "module's is %s", url, id, w->id);
		return CHECK_REFUSED;
	}
	return CHECK_OK;
}

/* A downloaded ELF file: the module's build-id. */
static enum check check_elf(const char *path, const struct wanted *w, const char *url,
                            const struct sw_server_reporter *r)
{
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	if (!e) {
		sw_server_report(r, "%s: not an ELF file: refused", url);
		return CHECK_REFUSED;
	}
	const struct sw_elf_info *info = sw_elf_info(e);
	char got[MAX_BUILD_ID_HEX + 1] = "missing";
	if (info->build_id && info->build_id_len && info->build_id_len * 2 <= MAX_BUILD_ID_HEX)
		sw_hex_encode(info->build_id, info->build_id_len, got);
	sw_elf_free(e);
	if (strcmp(got, w->build_id) != 0) {
		sw_server_report(r, "%s: ELF file not used: its build-id is %s, the module's is %s",
		                 url, got, w->build_id);
		return CHECK_REFUSED;
	}
	return CHECK_OK;
}

static bool starts_with_gzip_magic(const char *path)
{
	uint8_t b[2] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(b, 1, 2, f);
	fclose(f);
	return n == 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* ---- one layout from one server ---- */

/* The temporary files of downloads older than an hour in the cache's top
 * directory: left by a process killed mid-download (a live one's are
 * younger than its timeout). Once a run, before its first download (the
 * caller holds srv->lock). */
static void remove_stale_downloads(struct sw_symbol_server *srv)
{
	srv->swept = true;
	sw_remove_stale_files(srv->dir, ".download.tmp-", 3600);
}

/* Downloads layout l of w from server s into the cache: to a temporary
 * file in the cache's top directory, checked, then renamed to its place
 * (a reader never sees half a file; eight processes fetching the same
 * file each rename a whole one, the last wins). *found: the cached file's
 * path. */
static enum sw_transfer try_layout(struct sw_symbol_server *srv, struct sw_http_conn *conn,
                                   struct server *s, const struct wanted *w, enum layout l,
                                   char **found, const struct sw_server_reporter *r)
{
	char rel[4096], url[8192], dest[4096], tmp[4200];
	/* The temporary file is in the cache's top directory: a module's
	 * directories are made only for a file that is kept. */
	if (!layout_path(w, l, rel, sizeof rel) ||
	    !sw_http_url(srv->http, conn, s->url, rel, url, sizeof url) ||
	    !sw_path_printf(dest, sizeof dest, "%s/%s", srv->dir, rel) ||
	    !sw_path_printf(tmp, sizeof tmp, "%s/.download.tmp-XXXXXX", srv->dir))
		return SW_TRANSFER_MISS;
	if (!make_parent_dirs(tmp)) {
		sw_server_report(r, "%s: cannot create the symbol cache: %s", srv->dir, strerror(errno));
		return SW_TRANSFER_FAILED;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		sw_server_report(r, "%s: cannot create a file in the symbol cache: %s", dest,
		                 strerror(errno));
		return SW_TRANSFER_FAILED;
	}
	enum sw_transfer got = sw_http_get(srv->http, conn, s->origin, url, fd, srv->dir, r);
	bool closed = close(fd) == 0;
	enum sw_transfer result = got == SW_TRANSFER_OK ? SW_TRANSFER_FAILED : got;
	if (got == SW_TRANSFER_OK && !closed) {
		sw_server_report(r, "%s: cannot write the download into %s: %s", url, srv->dir,
		                 strerror(errno));
		got = SW_TRANSFER_FAILED;
	}
	if (got == SW_TRANSFER_OK) {
		/* A server may answer NAME.sym with gzip bytes (stored
		 * compressed, sent without Content-Encoding): kept as .sym.gz,
		 * which is what the store reads gzip from. */
		bool gz = l == LAYOUT_SYM_GZ || (l == LAYOUT_SYM && starts_with_gzip_magic(tmp));
		size_t n = strlen(dest);
		if (gz && l == LAYOUT_SYM && !sw_path_printf(dest + n, sizeof dest - n, ".gz"))
			got = SW_TRANSFER_FAILED;
		enum check c = got != SW_TRANSFER_OK ? CHECK_REFUSED
		               : l == LAYOUT_ELF     ? check_elf(tmp, w, url, r)
		                                     : check_sym(tmp, gz, w, url, r);
		if (c == CHECK_OK && chmod(tmp, srv->file_mode) == 0 && make_parent_dirs(dest) &&
		    rename(tmp, dest) == 0) {
			*found = strdup(dest);
			atomic_fetch_add(&srv->kept, 1);
			if (*found)
				return SW_TRANSFER_OK;
		} else if (c != CHECK_REFUSED) {
			sw_server_report(r, "%s: cannot keep the download in the symbol cache: %s", dest,
			                 strerror(errno));
		}
		result = SW_TRANSFER_FAILED;
	}
	unlink(tmp);
	return result;
}

/* ---- the servers ---- */

/* Why h is no "Name: value" request header, or NULL: a name of RFC 9110
 * token characters, then ':', then a value without control characters
 * (a CR or LF would start another header: header injection). */
const char *sw_symbol_server_header_problem(const char *h)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~";
	const char *p = h;
	while (*p && (isalnum((unsigned char)*p) || strchr(tchar, *p)))
		p++;
	if (p == h)
		return "no header name before ':'";
	if (*p != ':')
		return "the name is not followed by ':' (a name is letters, digits and !#$%&'*+-.^_`|~)";
	for (p++; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return "a control character (CR, LF) in the value";
		else if ((unsigned char)*p == 0x7f)
			return "a control character (DEL) in the value";
	return NULL;
}

/* h's name as a message shows it: the bytes before ':' (at most 40),
 * control characters as '?', never the value (a token in a CI log). */
void sw_symbol_server_header_name(const char *h, char *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = h; *p && *p != ':' && n + 4 < cap && p - h < 40; p++)
		out[n++] = (unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f ? '?' : *p;
	if (n + 4 < cap && h[n] && h[n] != ':') {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

static bool is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0 ||
	       strncmp(s, "file://", 7) == 0;
}

/* The names messages give the settings: the caller's, else the
 * library's. */
static struct sw_symbol_server_names names_of(const struct sw_symbol_server_names *given)
{
	struct sw_symbol_server_names n = {
		.url = "symbol server URL",
		.header = "request header",
		.debuginfod = "debuginfod",
		.timeout = "the download time limit",
		.symbol_path = "symbol path",
	};
	if (given) {
		n.url = given->url ? given->url : n.url;
		n.header = given->header ? given->header : n.header;
		n.debuginfod = given->debuginfod ? given->debuginfod : n.debuginfod;
		n.timeout = given->timeout ? given->timeout : n.timeout;
		n.symbol_path = given->symbol_path ? given->symbol_path : n.symbol_path;
	}
	return n;
}

struct sw_symbol_server *sw_symbol_server_create(const struct sw_symbol_server_options *o,
                                                 struct sw_err *err)
{
	const struct sw_symbol_server_names names = names_of(o->names);
	for (size_t i = 0; i < o->nurls; i++) {
		if (!is_url(o->urls[i])) {
			sw_err_set(err, SW_ERR_USAGE, "%s wants an http://, https:// or file:// URL, "
			           "not '%s' (a local store is a %s)", names.url, o->urls[i],
			           names.symbol_path);
			return NULL;
		}
	}
	if (o->nurls && !sw_symbol_server_has_http()) {
		sw_err_set(err, SW_ERR_USAGE, "%s: this stackwalk was built without libcurl "
		           "(meson -Dsymbol_servers), so it cannot fetch symbols", names.url);
		return NULL;
	}
	for (size_t i = 0; i < o->nheaders; i++) {
		const char *why = sw_symbol_server_header_problem(o->headers[i]);
		if (why) {
			char name[64];
			sw_symbol_server_header_name(o->headers[i], name, sizeof name);
			sw_err_set(err, SW_ERR_USAGE, "%s '%s': %s", names.header, name, why);
			return NULL;
		}
	}
	if (o->nheaders && !o->nurls) {
		sw_err_set(err, SW_ERR_USAGE, "%s: no %s to send it to", names.header, names.url);
		return NULL;
	}
	if (o->debuginfod && !sw_symbol_server_has_debuginfod()) {
		sw_err_set(err, SW_ERR_USAGE, "%s: this stackwalk was built without libdebuginfod "
		           "(meson -Dsymbol_servers)", names.debuginfod);
		return NULL;
	}
	const char *dbgd_urls = getenv("DEBUGINFOD_URLS");
	if (o->debuginfod && (!dbgd_urls || !*dbgd_urls)) {
		sw_err_set(err, SW_ERR_USAGE, "%s: DEBUGINFOD_URLS is not set (the debuginfod "
		           "servers to ask, separated by spaces)", names.debuginfod);
		return NULL;
	}
	struct sw_symbol_server *srv = calloc(1, sizeof *srv);
	if (!srv)
		goto nomem;
	pthread_mutex_init(&srv->lock, NULL);
	pthread_cond_init(&srv->landed, NULL);
	pthread_mutex_init(&srv->dbgd_lock, NULL);
	mode_t mask = umask(0);
	umask(mask);
	srv->file_mode = 0666 & ~mask;
	srv->timeout_s = o->timeout_s ? o->timeout_s : SW_SERVER_DEFAULT_TIMEOUT;
	srv->miss_ttl_s = o->miss_ttl_s < 0 ? 0 : o->miss_ttl_s ? o->miss_ttl_s : SW_SERVER_MISS_TTL;
	srv->debuginfod = o->debuginfod;
	srv->servers = calloc(o->nurls ? o->nurls : 1, sizeof *srv->servers);
	if (!srv->servers)
		goto nomem;
	for (size_t i = 0; i < o->nurls; i++) {
		struct server *s = &srv->servers[srv->nservers++];
		s->url = strdup(o->urls[i]);
		if (!s->url)
			goto nomem;
		size_t n = strlen(s->url);
		while (n > 8 && s->url[n - 1] == '/')
			s->url[--n] = '\0';
		snprintf(s->marker, sizeof s->marker, ".missing-%016llx",
		         (unsigned long long)sw_fnv1a64(s->url));
		sw_url_origin(s->url, s->origin, sizeof s->origin);
	}
	if (o->cache_dir) {
		srv->dir = strdup(o->cache_dir);
		if (!srv->dir)
			goto nomem;
	} else if (o->nurls) {
		/* --no-cache: downloads live as long as the run. */
		const char *tmpdir = getenv("TMPDIR");
		char t[4096];
		if (!sw_path_printf(t, sizeof t, "%s/stackwalk-symbols-XXXXXX",
		                    tmpdir && *tmpdir ? tmpdir : "/tmp") || !mkdtemp(t)) {
			sw_err_set(err, SW_ERR_IO, "cannot create a temporary directory for downloaded "
			           "symbols in %s: %s", tmpdir && *tmpdir ? tmpdir : "/tmp",
			           strerror(errno));
			sw_symbol_server_free(srv);
			return NULL;
		}
		srv->dir = strdup(t);
		srv->dir_is_temp = true;
		if (!srv->dir) {
			rmdir(t);
			goto nomem;
		}
	}
	if (srv->nservers) {
		const char *why;
		srv->http = sw_http_open(o->headers, o->nheaders, srv->timeout_s, names.timeout, &why);
		if (!srv->http && why) {
			sw_err_set(err, SW_ERR_IO, "%s: cannot load libcurl: %s", names.url, why);
			sw_symbol_server_free(srv);
			return NULL;
		}
		if (!srv->http)
			goto nomem;
	}
	if (o->debuginfod && !(srv->dbgd = sw_debuginfod_new()))
		goto nomem;
	return srv;
nomem:
	sw_symbol_server_free(srv);
	sw_err_set(err, SW_ERR_NOMEM, "symbol servers: out of memory");
	return NULL;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void sw_symbol_server_free(struct sw_symbol_server *srv)
{
	if (!srv)
		return;
	sw_http_close(srv->http);
	sw_debuginfod_free(srv->dbgd);
	if (srv->dir_is_temp)
		nftw(srv->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (size_t i = 0; i < srv->nservers; i++)
		free(srv->servers[i].url);
	free(srv->servers);
	free(srv->dir);
	pthread_mutex_destroy(&srv->lock);
	pthread_cond_destroy(&srv->landed);
	pthread_mutex_destroy(&srv->dbgd_lock);
	free(srv);
}

unsigned sw_symbol_server_kept(struct sw_symbol_server *srv)
{
	return srv ? atomic_load(&srv->kept) : 0;
}

void sw_fetched_free(struct sw_fetched *f)
{
	free(f->sym);
	free(f->elf[0]);
	free(f->elf[1]);
	memset(f, 0, sizeof *f);
}

/* A file an earlier run fetched, in the cache: used without a request. */
static bool cached(const struct sw_symbol_server *srv, const struct wanted *w, unsigned kinds,
                   struct sw_fetched *out)
{
	char rel[4096], p[4096];
	for (enum layout l = 0; l < NLAYOUTS && srv->dir; l++) {
		if (!layout_wanted(l, kinds) || !layout_path(w, l, rel, sizeof rel) ||
		    !sw_path_printf(p, sizeof p, "%s/%s", srv->dir, rel) || !sw_is_regular_file(p))
			continue;
		char **slot = l == LAYOUT_ELF ? &out->elf[0] : &out->sym;
		*slot = strdup(p);
		/* A use, stamped on the module's folder for the pruner
		 * (cache_prune.h): the file's own mtime is in its index's key. */
		char *slash = strrchr(p, '/');
		if (slash) {
			*slash = '\0';
			sw_cache_touch_path(p);
		}
		return *slot != NULL;
	}
	/* A .sym.gz fetched as NAME.sym (gzip bytes) is filed as .sym.gz: found above. */
	return false;
}

/* Is server s down (timed out or unreachable lately)? */
static bool server_down(struct sw_symbol_server *srv, const struct server *s)
{
	pthread_mutex_lock(&srv->lock);
	bool down = s->down_until > time(NULL);
	pthread_mutex_unlock(&srv->lock);
	return down;
}

static void mark_down(struct sw_symbol_server *srv, struct server *s)
{
	pthread_mutex_lock(&srv->lock);
	s->down_until = time(NULL) + SW_SERVER_DOWN_S;
	pthread_mutex_unlock(&srv->lock);
}

/* debuginfod for w's debug file (executable: its executable); one that
 * failed to start or cannot be reached is not asked again in this run.
 * (srv->dbgd_lock) */
static enum sw_transfer ask_debuginfod(struct sw_symbol_server *srv, const struct wanted *w,
                                       bool executable, char **found,
                                       const struct sw_server_reporter *r)
{
	bool stop;
	enum sw_transfer t = sw_debuginfod_find(srv->dbgd, w->build_id, executable, srv->timeout_s,
	                                        found, &stop, r);
	if (stop)
		srv->debuginfod = false;
	return t;
}

/* The servers in order, then debuginfod; conn is the connection lent to
 * this fetch (NULL when there are no HTTP servers). */
static bool ask_servers(struct sw_symbol_server *srv, struct sw_http_conn *conn,
                        const struct wanted *w,
                        unsigned kinds, struct sw_fetched *out,
                        const struct sw_server_reporter *r)
{
	bool asked = false, all_missed = true, remembered = false;
	for (size_t i = 0; i < srv->nservers && conn; i++) {
		struct server *s = &srv->servers[i];
		if (server_down(srv, s)) {
			all_missed = false;
			continue;
		}
		if (miss_remembered(w, s, srv->miss_ttl_s)) {
			remembered = true;
			continue;
		}
		bool server_missed = true;
		for (enum layout l = 0; l < NLAYOUTS; l++) {
			if (!layout_wanted(l, kinds))
				continue;
			char **slot = l == LAYOUT_ELF ? &out->elf[0] : &out->sym;
			asked = true;
			enum sw_transfer t = try_layout(srv, conn, s, w, l, slot, r);
			if (t == SW_TRANSFER_OK)
				return true;
			if (t == SW_TRANSFER_DOWN)
				mark_down(srv, s);
			if (t != SW_TRANSFER_MISS) {
				server_missed = all_missed = false;
				break;
			}
		}
		if (server_missed && srv->miss_ttl_s > 0)
			remember_miss(w, s, srv->file_mode);
	}
	if (srv->debuginfod && (kinds & SW_FETCH_ELF)) {
		asked = true;
		pthread_mutex_lock(&srv->dbgd_lock);
		enum sw_transfer a = ask_debuginfod(srv, w, false, &out->elf[0], r);
		enum sw_transfer b = a == SW_TRANSFER_DOWN ? SW_TRANSFER_DOWN
		                                           : ask_debuginfod(srv, w, true, &out->elf[1], r);
		pthread_mutex_unlock(&srv->dbgd_lock);
		if (a == SW_TRANSFER_OK || b == SW_TRANSFER_OK) {
			if (!out->elf[0]) {
				out->elf[0] = out->elf[1];
				out->elf[1] = NULL;
			}
			return true;
		}
		if (a != SW_TRANSFER_MISS || b != SW_TRANSFER_MISS)
			all_missed = false;
	}
	if ((asked || remembered) && all_missed) {
		const char *id = w->id ? w->id : w->build_id;
		const char *name = w->name ? w->name : w->code_name;
		if (remembered && !asked)
			sw_server_report(r, "%s (%s): not on the symbol servers (a miss of the last %ld "
			                 "seconds, remembered in %s)", name, id, srv->miss_ttl_s,
			                 w->miss_dir);
		else
			sw_server_report(r, "%s (%s): not on the symbol servers", name, id);
	}
	return false;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Is the module w names being fetched by another thread? (srv->lock) */
static bool in_flight(const struct sw_symbol_server *srv, const struct wanted *w)
{
	for (unsigned i = 0; i < srv->nin_flight; i++) {
		const struct wanted *f = srv->in_flight[i];
		if (same_text(f->name, w->name) && same_text(f->id, w->id) &&
		    same_text(f->code_name, w->code_name) && strcmp(f->build_id, w->build_id) == 0)
			return true;
	}
	return false;
}

/* Processes sharing the cache take turns on a module as a batch's threads
 * do: the fetcher holds the lock of MODULE_DIR/.fetch.lock (lib/file_lock.h)
 * while it asks the servers; another process waits, then finds the files
 * it fetched, or the misses it remembered. True when another process held
 * it; *fd: the lock this one holds (-1: none). */
static bool another_process_fetched(const struct sw_symbol_server *srv, const struct wanted *w,
                                    int *fd)
{
	char path[4096 + 16];
	*fd = -1;
	if (!srv->dir || srv->dir_is_temp ||
	    !sw_path_printf(path, sizeof path, "%s/.fetch.lock", w->miss_dir) ||
	    !make_parent_dirs(path))
		return false;
	return sw_file_lock_take(path, FETCH_WAIT_MS, fd) == SW_LOCK_WAITED;
}

bool sw_symbol_server_fetch(struct sw_symbol_server *srv, const struct sw_module *m,
                            unsigned kinds, struct sw_fetched *out,
                            void (*warn)(void *self, const char *line), void *warn_self)
{
	memset(out, 0, sizeof *out);
	const struct sw_server_reporter r = { warn, warn_self };
	struct wanted w;
	if (!srv || !wanted_init(&w, m, srv->dir ? srv->dir : ""))
		return false;
	if (!w.build_id[0])
		kinds &= ~(unsigned)SW_FETCH_ELF;
	if (!w.id)
		kinds &= ~(unsigned)SW_FETCH_BREAKPAD;
	if (!kinds)
		return false;
	if (cached(srv, &w, kinds, out))
		return true;
	pthread_mutex_lock(&srv->lock);
	while (in_flight(srv, &w) || srv->nin_flight == MAX_IN_FLIGHT)
		pthread_cond_wait(&srv->landed, &srv->lock);
	/* Another thread may have fetched it while this one waited. */
	if (cached(srv, &w, kinds, out)) {
		pthread_mutex_unlock(&srv->lock);
		return true;
	}
	srv->in_flight[srv->nin_flight++] = &w;
	if (!srv->swept && srv->dir && srv->nservers)
		remove_stale_downloads(srv);
	struct sw_http_conn *conn = sw_http_lend(srv->http);
	pthread_mutex_unlock(&srv->lock);
	if (!conn && srv->nservers)
		sw_server_report(&r, "symbol servers: out of memory for a connection");

	/* Looked for in the cache again once the lock is had, waited for or
	 * not: another process may have fetched the module since the first
	 * look and let go before this one asked. */
	int lock_fd;
	another_process_fetched(srv, &w, &lock_fd);
	bool found = cached(srv, &w, kinds, out) || ask_servers(srv, conn, &w, kinds, out, &r);
	if (lock_fd >= 0)
		close(lock_fd);

	pthread_mutex_lock(&srv->lock);
	sw_http_give_back(srv->http, conn);
	for (unsigned i = 0; i < srv->nin_flight; i++)
		if (srv->in_flight[i] == &w) {
			srv->in_flight[i] = srv->in_flight[--srv->nin_flight];
			break;
		}
	pthread_cond_broadcast(&srv->landed);
	pthread_mutex_unlock(&srv->lock);
	return found;
}
