/* Symbol servers and debuginfod (see symbol_server.h and
 * docs/symbol-servers.md). Everything that talks to the network is here;
 * the store only calls sw_symbol_server_fetch for a module no local path
 * served, and reads what it returns as local files. */
#include "symbol_server.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
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
#include "store_layout.h"
#include "lib/build_id.h"
#include "lib/file_lock.h"
#include "lib/fnv.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"
#include "lib/path.h"

#include "dynlib.h"

enum { MAX_BUILD_ID_HEX = 128, LINE_MAX_LEN = 1024 };

struct server {
	char *url;                  /* without trailing '/' */
	char origin[512];           /* "scheme://host:port" of url, lower case (url_origin) */
	char marker[32];            /* ".missing-" + FNV-1a 64 of url, in hex */
	time_t down_until;          /* timed out or unreachable: not asked before then */
};

/* A batch's threads share one sw_symbol_server and download different
 * modules at once (each with a curl handle of the pool); a module one
 * thread is fetching, another waits for, and then finds in the cache. */
enum { MAX_IN_FLIGHT = 64, MAX_IDLE_HANDLES = 16 };

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
#ifdef SW_HAVE_CURL
	const struct sw_curl_api *cu; /* libcurl, loaded (symbols/dynlib.h) */
	/* Idle handles: one is lent to each fetch, and given back, so that
	 * its connections are kept alive for the next. */
	CURL *idle[MAX_IDLE_HANDLES];
	unsigned nidle;
	struct curl_slist *headers; /* --symbols-header lines, or NULL */
#endif
#ifdef SW_HAVE_DEBUGINFOD
	/* The debuginfod client is one thread's at a time. */
	pthread_mutex_t dbgd_lock;
	const struct sw_debuginfod_api *di; /* loaded on first use, or NULL */
	debuginfod_client *dbgd;
	time_t dbgd_deadline;
#endif
};

/* One problem, one line, through the caller's callback. */
struct reporter {
	void (*warn)(void *self, const char *line);
	void *self;
};

static void report(const struct reporter *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(const struct reporter *r, const char *fmt, ...)
{
	if (!r->warn)
		return;
	char line[LINE_MAX_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	r->warn(r->self, line);
}

bool sw_symbol_server_has_http(void)
{
#ifdef SW_HAVE_CURL
	return true;
#else
	return false;
#endif
}

bool sw_symbol_server_has_debuginfod(void)
{
#ifdef SW_HAVE_DEBUGINFOD
	return true;
#else
	return false;
#endif
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
	char p[4096], text[LINE_MAX_LEN + 64];
	time_t now = time(NULL);
	struct tm tm;
	char when[32] = "";
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(text, sizeof text, "%s missed at %s\n", s->url, when);
	if (sw_path_printf(p, sizeof p, "%s/%s", w->miss_dir, s->marker))
		write_atomically(p, text, mode);
}

/* ---- checking a download (HTTP builds only) ---- */

#ifdef SW_HAVE_CURL

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
                            const struct reporter *r)
{
	char head[LINE_MAX_LEN];
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
				report(r, "%s: inflates to more than %llu bytes, over the limit for its "
				       "compressed size (%lld bytes): refused", url,
				       (unsigned long long)limit, (long long)st.st_size);
				return CHECK_REFUSED;
			}
		}
		free(buf);
		if (n == 0 && gzdirect(g)) {
			gzclose(g);
			report(r, "%s: not a gzip file: refused", url);
			return CHECK_REFUSED;
		}
		int errnum = Z_OK;
		const char *msg = n < 0 ? gzerror(g, &errnum) : NULL;
		if (n < 0) {
			report(r, "%s: not a gzip file, or a damaged one (%s): refused", url,
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
		report(r, "%s: not a Breakpad symbol file (no MODULE line): refused", url);
		return CHECK_REFUSED;
	}
	if (strcasecmp(id, w->id) != 0) {
		report(r, "%s: symbol file not used: its MODULE line has debug id %s, the module's "
		       "is %s", url, id, w->id);
		return CHECK_REFUSED;
	}
	return CHECK_OK;
}

/* A downloaded ELF file: the module's build-id. */
static enum check check_elf(const char *path, const struct wanted *w, const char *url,
                            const struct reporter *r)
{
	struct sw_err err = { 0 };
	struct sw_elf *e = sw_elf_open_file(path, 0, &err);
	if (!e) {
		report(r, "%s: not an ELF file: refused", url);
		return CHECK_REFUSED;
	}
	const struct sw_elf_info *info = sw_elf_info(e);
	char got[MAX_BUILD_ID_HEX + 1] = "missing";
	if (info->build_id && info->build_id_len && info->build_id_len * 2 <= MAX_BUILD_ID_HEX)
		sw_hex_encode(info->build_id, info->build_id_len, got);
	sw_elf_free(e);
	if (strcmp(got, w->build_id) != 0) {
		report(r, "%s: ELF file not used: its build-id is %s, the module's is %s", url, got,
		       w->build_id);
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

/* ---- HTTP ---- */

enum get_result {
	GET_OK,                     /* 200: the body is in the file */
	GET_MISS,                   /* 404, 410, or file:// without the file */
	GET_FAILED,                 /* said: another HTTP status, a refused size */
	GET_DOWN,                   /* said: timeout, cannot connect: skip the server */
};

struct download {
	int fd;
	long long size;
	bool too_big;
	bool write_failed;
};

static size_t on_data(char *p, size_t size, size_t n, void *self)
{
	struct download *d = self;
	size_t len = size * n;
	if (d->size + (long long)len > SW_SERVER_MAX_FILE) {
		d->too_big = true;
		return 0; /* stops the transfer */
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(d->fd, p + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			d->write_failed = true;
			return 0;
		}
		off += (size_t)w;
	}
	d->size += (long long)len;
	return len;
}

/* "scheme://host:port" of url, lower case, the default port written out
 * (80, 443): what a redirect must keep for the request headers to go with
 * it (RFC 6454's origin). "" when url has no host. */
static void url_origin(const char *url, char *out, size_t cap)
{
	out[0] = '\0';
	const char *sep = strstr(url, "://");
	if (!sep)
		return;
	size_t scheme_len = (size_t)(sep - url);
	const char *auth = sep + 3, *auth_end = auth + strcspn(auth, "/?#");
	const char *at = memchr(auth, '@', (size_t)(auth_end - auth));
	const char *host = at ? at + 1 : auth;
	/* The port follows the last ':' outside an IPv6 literal's brackets. */
	const char *colon = NULL;
	for (const char *p = host; p < auth_end; p++)
		if (*p == ']')
			colon = NULL;
		else if (*p == ':')
			colon = p;
	const char *host_end = colon ? colon : auth_end;
	char port[16];
	if (colon && colon + 1 < auth_end)
		snprintf(port, sizeof port, "%.*s", (int)(auth_end - colon - 1), colon + 1);
	else
		snprintf(port, sizeof port, "%s", scheme_len == 5 && strncasecmp(url, "https", 5) == 0
		                                  ? "443" : "80");
	int n = snprintf(out, cap, "%.*s://%.*s:%s", (int)scheme_len, url,
	                 (int)(host_end - host), host, port);
	if (n < 0 || (size_t)n >= cap) {
		out[0] = '\0';
		return;
	}
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

/* Answers worth asking again after a pause: a server overloaded or
 * restarting (429, 500, 502-504), a connection dropped mid-answer. A
 * timeout is not: it already cost the whole time limit. */
static bool transient_status(long status)
{
	return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

static bool transient_error(CURLcode rc)
{
	return rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING ||
	       rc == CURLE_PARTIAL_FILE;
}

static bool redirect_status(long status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

enum { MAX_REDIRECTS = 5, RETRIES = 2, RETRY_AFTER_MAX_S = 10 };

/* What one request (its redirects followed) came to. */
struct answer {
	CURLcode rc;
	long status;
	long retry_after;           /* the server's Retry-After, seconds; 0: none */
	bool too_many_redirects;
	struct download d;
	char errbuf[CURL_ERROR_SIZE];
};

/* GETs url of server s into fd (emptied first), following redirects
 * itself: curl would send the request headers (an Auth-Token) to any host
 * a redirect names, and Tecken answers with a redirect to its storage, a
 * pre-signed URL of a cloud bucket. The headers go only to the server's
 * own origin; the redirects share one time limit. */
static void get_once(struct sw_symbol_server *srv, CURL *c, const struct server *s,
                     const char *url, int fd, struct answer *a)
{
	const struct sw_curl_api *cu = srv->cu;
	memset(a, 0, sizeof *a);
	char where[8192], origin[sizeof s->origin];
	snprintf(where, sizeof where, "%s", url);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long limit_ms = (long)srv->timeout_s * 1000;
	for (int hop = 0;; hop++) {
		if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
			a->d.write_failed = true;
			a->rc = CURLE_WRITE_ERROR;
			return;
		}
		a->d = (struct download){ .fd = fd };
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long spent_ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		long left_ms = limit_ms - spent_ms > 1 ? limit_ms - spent_ms : 1;
		url_origin(where, origin, sizeof origin);
		cu->easy_reset(c);
		cu->easy_setopt(c, CURLOPT_URL, where);
		cu->easy_setopt(c, CURLOPT_PROTOCOLS_STR, hop == 0 ? "http,https,file" : "http,https");
		cu->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
		cu->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, left_ms);
		cu->easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms);
		cu->easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)SW_SERVER_MAX_FILE);
		cu->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		cu->easy_setopt(c, CURLOPT_USERAGENT, "stackwalk/" SW_VERSION);
		cu->easy_setopt(c, CURLOPT_ERRORBUFFER, a->errbuf);
		cu->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
		cu->easy_setopt(c, CURLOPT_WRITEDATA, &a->d);
		if (srv->headers && s->origin[0] && strcmp(origin, s->origin) == 0)
			cu->easy_setopt(c, CURLOPT_HTTPHEADER, srv->headers);
		a->errbuf[0] = '\0';
		a->rc = cu->easy_perform(c);
		a->status = 0;
		cu->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
		curl_off_t retry_after = 0;
		if (cu->easy_getinfo(c, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK &&
		    retry_after > 0)
			a->retry_after = retry_after > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S
			                                                 : (long)retry_after;
		if (a->rc != CURLE_OK || !redirect_status(a->status))
			return;
		const char *next = NULL;
		cu->easy_getinfo(c, CURLINFO_REDIRECT_URL, &next);
		if (!next || hop == MAX_REDIRECTS ||
		    (strncasecmp(next, "http://", 7) != 0 && strncasecmp(next, "https://", 8) != 0)) {
			a->too_many_redirects = next && hop == MAX_REDIRECTS;
			return;
		}
		snprintf(where, sizeof where, "%s", next);
	}
}

static void pause_s(long s)
{
	struct timespec t = { .tv_sec = s };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* GETs url of server s into fd, asking again after 1 s, then 2 s (or the
 * server's Retry-After, when longer) when the answer was transient. One
 * line for every outcome but OK and MISS, once the last attempt is in. */
static enum get_result http_get(struct sw_symbol_server *srv, CURL *c, const struct server *s,
                                const char *url, int fd, const struct reporter *r)
{
	const struct sw_curl_api *cu = srv->cu;
	struct answer a;
	for (int attempt = 0;; attempt++) {
		get_once(srv, c, s, url, fd, &a);
		bool transient = a.rc == CURLE_OK ? transient_status(a.status) : transient_error(a.rc);
		if (!transient || attempt == RETRIES)
			break;
		long wait = 1L << attempt;
		pause_s(a.retry_after > wait ? a.retry_after : wait);
	}
	bool is_file = strncmp(url, "file:", 5) == 0;
	if (a.rc == CURLE_OK) {
		if (a.status == 200 || (is_file && a.status == 0))
			return GET_OK;
		if (a.status == 404 || a.status == 410)
			return GET_MISS;
		if (a.too_many_redirects)
			report(r, "%s: more than %d redirects", url, MAX_REDIRECTS);
		else if (redirect_status(a.status))
			report(r, "%s: HTTP status %ld, redirecting to no http:// or https:// URL", url,
			       a.status);
		else if (transient_status(a.status))
			report(r, "%s: HTTP status %ld, %d times", url, a.status, RETRIES + 1);
		else
			report(r, "%s: HTTP status %ld", url, a.status);
		return GET_FAILED;
	}
	if (is_file && a.rc == CURLE_FILE_COULDNT_READ_FILE)
		return GET_MISS;
	if (a.d.too_big || a.rc == CURLE_FILESIZE_EXCEEDED) {
		report(r, "%s: larger than %lld bytes: refused", url, SW_SERVER_MAX_FILE);
		return GET_FAILED;
	}
	if (a.d.write_failed) {
		report(r, "%s: cannot write the download into %s: %s", url, srv->dir, strerror(errno));
		return GET_FAILED;
	}
	if (a.rc == CURLE_OPERATION_TIMEDOUT) {
		report(r, "%s: no answer within %u s (--symbols-timeout): server not asked again "
		       "for %d minutes", url, srv->timeout_s, SW_SERVER_DOWN_S / 60);
		return GET_DOWN;
	}
	if (transient_error(a.rc))
		report(r, "%s: %s (%d times): server not asked again for %d minutes", url,
		       *a.errbuf ? a.errbuf : cu->easy_strerror(a.rc), RETRIES + 1,
		       SW_SERVER_DOWN_S / 60);
	else
		report(r, "%s: %s: server not asked again for %d minutes", url,
		       *a.errbuf ? a.errbuf : cu->easy_strerror(a.rc), SW_SERVER_DOWN_S / 60);
	return GET_DOWN;
}

/* A path segment of a URL: percent-escaped (a Windows module's name may
 * hold spaces). */
static bool url_of(struct sw_symbol_server *srv, CURL *c, const struct server *s,
                   const char *rel, char *out, size_t cap)
{
	size_t w = 0;
	int n = snprintf(out, cap, "%s", s->url);
	if (n < 0 || (size_t)n >= cap)
		return false;
	w = (size_t)n;
	char seg[4096];
	while (*rel) {
		size_t len = strcspn(rel, "/");
		if (len >= sizeof seg)
			return false;
		memcpy(seg, rel, len);
		seg[len] = '\0';
		char *esc = srv->cu->easy_escape(c, seg, (int)len);
		if (!esc)
			return false;
		n = snprintf(out + w, cap - w, "/%s", esc);
		srv->cu->free(esc);
		if (n < 0 || (size_t)n >= cap - w)
			return false;
		w += (size_t)n;
		rel += len;
		if (*rel == '/')
			rel++;
	}
	return true;
}
#endif

/* ---- one layout from one server ---- */

#ifdef SW_HAVE_CURL
/* The temporary files of downloads older than an hour in the cache's top
 * directory: left by a process killed mid-download (a live one's are
 * younger than its timeout). Once a run, before its first download (the
 * caller holds srv->lock). */
static void remove_stale_downloads(struct sw_symbol_server *srv)
{
	srv->swept = true;
	sw_remove_stale_files(srv->dir, ".download.tmp-", 3600);
}
#endif

enum try_result { TRY_FOUND, TRY_MISS, TRY_FAILED, TRY_DOWN };

/* Downloads layout l of w from server s into the cache: to a temporary
 * file in the cache's top directory, checked, then renamed to its place
 * (a reader never sees half a file; eight processes fetching the same
 * file each rename a whole one, the last wins). *found: the cached file's
 * path. */
static enum try_result try_layout(struct sw_symbol_server *srv, void *curl, struct server *s,
                                  const struct wanted *w, enum layout l, char **found,
                                  const struct reporter *r)
{
#ifdef SW_HAVE_CURL
	CURL *c = curl;
	char rel[4096], url[8192], dest[4096], tmp[4200];
	/* The temporary file is in the cache's top directory: a module's
	 * directories are made only for a file that is kept. */
	if (!layout_path(w, l, rel, sizeof rel) || !url_of(srv, c, s, rel, url, sizeof url) ||
	    !sw_path_printf(dest, sizeof dest, "%s/%s", srv->dir, rel) ||
	    !sw_path_printf(tmp, sizeof tmp, "%s/.download.tmp-XXXXXX", srv->dir))
		return TRY_MISS;
	if (!make_parent_dirs(tmp)) {
		report(r, "%s: cannot create the symbol cache: %s", srv->dir, strerror(errno));
		return TRY_FAILED;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		report(r, "%s: cannot create a file in the symbol cache: %s", dest, strerror(errno));
		return TRY_FAILED;
	}
	enum get_result got = http_get(srv, c, s, url, fd, r);
	bool closed = close(fd) == 0;
	enum try_result result = got == GET_MISS ? TRY_MISS : got == GET_DOWN ? TRY_DOWN : TRY_FAILED;
	if (got == GET_OK && !closed) {
		report(r, "%s: cannot write the download into %s: %s", url, srv->dir, strerror(errno));
		got = GET_FAILED;
	}
	if (got == GET_OK) {
		/* A server may answer NAME.sym with gzip bytes (stored
		 * compressed, sent without Content-Encoding): kept as .sym.gz,
		 * which is what the store reads gzip from. */
		bool gz = l == LAYOUT_SYM_GZ || (l == LAYOUT_SYM && starts_with_gzip_magic(tmp));
		size_t n = strlen(dest);
		if (gz && l == LAYOUT_SYM && !sw_path_printf(dest + n, sizeof dest - n, ".gz"))
			got = GET_FAILED;
		enum check c = got != GET_OK       ? CHECK_REFUSED
		               : l == LAYOUT_ELF ? check_elf(tmp, w, url, r)
		                                 : check_sym(tmp, gz, w, url, r);
		if (c == CHECK_OK && chmod(tmp, srv->file_mode) == 0 && make_parent_dirs(dest) &&
		    rename(tmp, dest) == 0) {
			*found = strdup(dest);
			atomic_fetch_add(&srv->kept, 1);
			if (*found)
				return TRY_FOUND;
		} else if (c != CHECK_REFUSED) {
			report(r, "%s: cannot keep the download in the symbol cache: %s", dest,
			       strerror(errno));
		}
		result = TRY_FAILED;
	}
	unlink(tmp);
	return result;
#else
	(void)srv, (void)curl, (void)s, (void)w, (void)l, (void)found, (void)r;
	return TRY_MISS;
#endif
}

/* ---- debuginfod ---- */

#ifdef SW_HAVE_DEBUGINFOD
/* libdebuginfod calls this while it waits (about once a second): past the
 * deadline a nonzero answer cancels the request. DEBUGINFOD_TIMEOUT, the
 * library's own limit, still applies when shorter. */
static int debuginfod_progress(debuginfod_client *c, long done, long total)
{
	(void)done, (void)total;
	const char *why;
	const struct sw_symbol_server *srv = sw_debuginfod_api(&why)->get_user_data(c);
	return time(NULL) > srv->dbgd_deadline;
}

/* The debug file (or executable) of build_id from debuginfod; the path is
 * in debuginfod's own cache. */
static enum try_result try_debuginfod(struct sw_symbol_server *srv, const struct wanted *w,
                                      bool executable, char **found, const struct reporter *r)
{
	if (!srv->dbgd) {
		const char *why = NULL;
		srv->di = sw_debuginfod_api(&why);
		if (!srv->di) {
			report(r, "debuginfod: cannot load libdebuginfod: %s: debuginfod not asked in "
			       "this run", why ? why : "unknown error");
			srv->debuginfod = false;
			return TRY_FAILED;
		}
		srv->dbgd = srv->di->begin();
		if (!srv->dbgd) {
			report(r, "debuginfod: cannot start its client: debuginfod not asked in this run");
			srv->debuginfod = false;
			return TRY_FAILED;
		}
		srv->di->set_user_data(srv->dbgd, srv);
		srv->di->set_progressfn(srv->dbgd, debuginfod_progress);
	}
	srv->dbgd_deadline = time(NULL) + (time_t)srv->timeout_s;
	char *path = NULL;
	const unsigned char *id = (const unsigned char *)w->build_id;
	int fd = executable ? srv->di->find_executable(srv->dbgd, id, 0, &path)
	                    : srv->di->find_debuginfo(srv->dbgd, id, 0, &path);
	if (fd >= 0) {
		close(fd);
		*found = path;
		return path ? TRY_FOUND : TRY_FAILED;
	}
	free(path);
	/* A request cancelled by debuginfod_progress ends as -ENOENT, like a
	 * miss (and libdebuginfod remembers it as one, for cache_miss_s): the
	 * clock tells them apart. */
	const char *url = getenv("DEBUGINFOD_URLS");
	if (time(NULL) > srv->dbgd_deadline || fd == -ETIME || fd == -ETIMEDOUT) {
		report(r, "debuginfod (%s): no answer for build-id %s within %u s: debuginfod not "
		       "asked again in this run", url ? url : "", w->build_id, srv->timeout_s);
		srv->debuginfod = false;
		return TRY_DOWN;
	}
	if (fd == -ENOENT)
		return TRY_MISS;
	report(r, "debuginfod (%s): build-id %s: %s", url ? url : "", w->build_id, strerror(-fd));
	if (fd == -ECONNREFUSED || fd == -EHOSTUNREACH || fd == -ENETUNREACH || fd == -ENOSYS) {
		srv->debuginfod = false;
		return TRY_DOWN;
	}
	return TRY_FAILED;
}
#endif

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

struct sw_symbol_server *sw_symbol_server_create(const struct sw_symbol_server_options *o,
                                                 struct sw_err *err)
{
	for (size_t i = 0; i < o->nurls; i++) {
		if (!is_url(o->urls[i])) {
			sw_err_set(err, SW_ERR_USAGE, "--symbols-url wants an http://, https:// or "
			           "file:// URL, not '%s' (a local store is a SYMBOL_PATH)", o->urls[i]);
			return NULL;
		}
	}
	if (o->nurls && !sw_symbol_server_has_http()) {
		sw_err_set(err, SW_ERR_USAGE, "--symbols-url: this stackwalk was built without "
		           "libcurl (meson -Dsymbol_servers), so it cannot fetch symbols");
		return NULL;
	}
	for (size_t i = 0; i < o->nheaders; i++) {
		const char *why = sw_symbol_server_header_problem(o->headers[i]);
		if (why) {
			char name[64];
			sw_symbol_server_header_name(o->headers[i], name, sizeof name);
			sw_err_set(err, SW_ERR_USAGE, "--symbols-header '%s': %s", name, why);
			return NULL;
		}
	}
	if (o->nheaders && !o->nurls) {
		sw_err_set(err, SW_ERR_USAGE, "--symbols-header: no --symbols-url to send it to");
		return NULL;
	}
	if (o->debuginfod && !sw_symbol_server_has_debuginfod()) {
		sw_err_set(err, SW_ERR_USAGE, "--debuginfod: this stackwalk was built without "
		           "libdebuginfod (meson -Dsymbol_servers)");
		return NULL;
	}
	const char *dbgd_urls = getenv("DEBUGINFOD_URLS");
	if (o->debuginfod && (!dbgd_urls || !*dbgd_urls)) {
		sw_err_set(err, SW_ERR_USAGE, "--debuginfod: DEBUGINFOD_URLS is not set (the "
		           "debuginfod servers to ask, separated by spaces)");
		return NULL;
	}
	struct sw_symbol_server *srv = calloc(1, sizeof *srv);
	if (!srv)
		goto nomem;
	pthread_mutex_init(&srv->lock, NULL);
	pthread_cond_init(&srv->landed, NULL);
#ifdef SW_HAVE_DEBUGINFOD
	pthread_mutex_init(&srv->dbgd_lock, NULL);
#endif
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
#ifdef SW_HAVE_CURL
		url_origin(s->url, s->origin, sizeof s->origin);
#endif
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
#ifdef SW_HAVE_CURL
	if (srv->nservers) {
		const char *why = NULL;
		srv->cu = sw_curl_api(&why);
		if (!srv->cu) {
			sw_err_set(err, SW_ERR_IO, "--symbols-url: cannot load libcurl: %s",
			           why ? why : "unknown error");
			sw_symbol_server_free(srv);
			return NULL;
		}
		/* One handle now: a libcurl that cannot make one fails here. */
		srv->idle[0] = srv->cu->easy_init();
		if (!srv->idle[0])
			goto nomem;
		srv->nidle = 1;
		for (size_t i = 0; i < o->nheaders; i++) {
			struct curl_slist *l = srv->cu->slist_append(srv->headers, o->headers[i]);
			if (!l)
				goto nomem;
			srv->headers = l;
		}
	}
#endif
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
#ifdef SW_HAVE_CURL
	for (unsigned i = 0; i < srv->nidle; i++)
		srv->cu->easy_cleanup(srv->idle[i]);
	if (srv->headers)
		srv->cu->slist_free_all(srv->headers);
#endif
#ifdef SW_HAVE_DEBUGINFOD
	if (srv->dbgd)
		srv->di->end(srv->dbgd);
#endif
	if (srv->dir_is_temp)
		nftw(srv->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (size_t i = 0; i < srv->nservers; i++)
		free(srv->servers[i].url);
	free(srv->servers);
	free(srv->dir);
	pthread_mutex_destroy(&srv->lock);
	pthread_cond_destroy(&srv->landed);
#ifdef SW_HAVE_DEBUGINFOD
	pthread_mutex_destroy(&srv->dbgd_lock);
#endif
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

/* The servers in order, then debuginfod; curl is the handle lent to this
 * fetch (NULL when there are no HTTP servers). */
static bool ask_servers(struct sw_symbol_server *srv, void *curl, const struct wanted *w,
                        unsigned kinds, struct sw_fetched *out, const struct reporter *r)
{
	bool asked = false, all_missed = true, remembered = false;
	for (size_t i = 0; i < srv->nservers && curl; i++) {
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
			enum try_result t = try_layout(srv, curl, s, w, l, slot, r);
			if (t == TRY_FOUND)
				return true;
			if (t == TRY_DOWN)
				mark_down(srv, s);
			if (t != TRY_MISS) {
				server_missed = all_missed = false;
				break;
			}
		}
		if (server_missed && srv->miss_ttl_s > 0)
			remember_miss(w, s, srv->file_mode);
	}
#ifdef SW_HAVE_DEBUGINFOD
	if (srv->debuginfod && (kinds & SW_FETCH_ELF)) {
		asked = true;
		pthread_mutex_lock(&srv->dbgd_lock);
		enum try_result a = try_debuginfod(srv, w, false, &out->elf[0], r);
		enum try_result b = a == TRY_DOWN ? TRY_DOWN
		                                  : try_debuginfod(srv, w, true, &out->elf[1], r);
		pthread_mutex_unlock(&srv->dbgd_lock);
		if (a == TRY_FOUND || b == TRY_FOUND) {
			if (!out->elf[0]) {
				out->elf[0] = out->elf[1];
				out->elf[1] = NULL;
			}
			return true;
		}
		if (a != TRY_MISS || b != TRY_MISS)
			all_missed = false;
	}
#endif
	if ((asked || remembered) && all_missed) {
		const char *id = w->id ? w->id : w->build_id;
		const char *name = w->name ? w->name : w->code_name;
		if (remembered && !asked)
			report(r, "%s (%s): not on the symbol servers (a miss of the last %ld seconds, "
			       "remembered in %s)", name, id, srv->miss_ttl_s, w->miss_dir);
		else
			report(r, "%s (%s): not on the symbol servers", name, id);
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

/* A curl handle for one fetch: an idle one, or a new one; NULL without
 * HTTP servers or memory. (srv->lock) */
static void *lend_handle(struct sw_symbol_server *srv)
{
#ifdef SW_HAVE_CURL
	if (!srv->cu)
		return NULL;
	if (srv->nidle)
		return srv->idle[--srv->nidle];
	return srv->cu->easy_init();
#else
	(void)srv;
	return NULL;
#endif
}

static void give_back_handle(struct sw_symbol_server *srv, void *curl)
{
#ifdef SW_HAVE_CURL
	if (!curl)
		return;
	if (srv->nidle < MAX_IDLE_HANDLES)
		srv->idle[srv->nidle++] = curl;
	else
		srv->cu->easy_cleanup(curl);
#else
	(void)srv, (void)curl;
#endif
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
	const struct reporter r = { warn, warn_self };
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
#ifdef SW_HAVE_CURL
	if (!srv->swept && srv->dir && srv->nservers)
		remove_stale_downloads(srv);
#endif
	void *curl = lend_handle(srv);
	pthread_mutex_unlock(&srv->lock);
	if (!curl && srv->nservers)
		report(&r, "symbol servers: out of memory for a connection");

	/* Looked for in the cache again once the lock is had, waited for or
	 * not: another process may have fetched the module since the first
	 * look and let go before this one asked. */
	int lock_fd;
	another_process_fetched(srv, &w, &lock_fd);
	bool found = cached(srv, &w, kinds, out) || ask_servers(srv, curl, &w, kinds, out, &r);
	if (lock_fd >= 0)
		close(lock_fd);

	pthread_mutex_lock(&srv->lock);
	give_back_handle(srv, curl);
	for (unsigned i = 0; i < srv->nin_flight; i++)
		if (srv->in_flight[i] == &w) {
			srv->in_flight[i] = srv->in_flight[--srv->nin_flight];
			break;
		}
	pthread_cond_broadcast(&srv->landed);
	pthread_mutex_unlock(&srv->lock);
	return found;
}
