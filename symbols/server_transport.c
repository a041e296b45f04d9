/* The symbol servers' transports (see server_transport.h): HTTP(S)
 * through libcurl and debuginfod through libdebuginfod, both loaded with
 * dlopen (dynlib.h). The one file that asks which of them this build has. */
#include "server_transport.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "dynlib.h"
#include "symbol_server.h"

void sw_server_report(const struct sw_server_reporter *r, const char *fmt, ...)
{
	if (!r->warn)
		return;
	char line[SW_SERVER_LINE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	r->warn(r->self, line);
}

void sw_url_origin(const char *url, char *out, size_t cap)
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

/* ---- HTTP ---- */

#ifdef SW_HAVE_CURL

enum { MAX_IDLE_HANDLES = 16 };

struct sw_http {
	const struct sw_curl_api *cu; /* libcurl, loaded (symbols/dynlib.h) */
	/* Idle handles: one is lent to each fetch, and given back, so that
	 * its connections are kept alive for the next. */
	CURL *idle[MAX_IDLE_HANDLES];
	unsigned nidle;
	struct curl_slist *headers; /* the request headers, or NULL */
	unsigned timeout_s;
	char timeout_name[64];      /* how messages call timeout_s */
};

bool sw_http_available(void)
{
	return true;
}

struct sw_http *sw_http_open(const char *const *headers, size_t nheaders, unsigned timeout_s,
                             const char *timeout_name, const char **why)
{
	*why = NULL;
	const struct sw_curl_api *cu = sw_curl_api(why);
	if (!cu) {
		if (!*why)
			*why = "unknown error";
		return NULL;
	}
	struct sw_http *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->cu = cu;
	h->timeout_s = timeout_s;
	snprintf(h->timeout_name, sizeof h->timeout_name, "%s", timeout_name);
	/* One handle now: a libcurl that cannot make one fails here. */
	h->idle[0] = cu->easy_init();
	if (!h->idle[0])
		goto nomem;
	h->nidle = 1;
	for (size_t i = 0; i < nheaders; i++) {
		struct curl_slist *l = cu->slist_append(h->headers, headers[i]);
		if (!l)
			goto nomem;
		h->headers = l;
	}
	return h;
nomem:
	sw_http_close(h);
	return NULL;
}

void sw_http_close(struct sw_http *h)
{
	if (!h)
		return;
	for (unsigned i = 0; i < h->nidle; i++)
		h->cu->easy_cleanup(h->idle[i]);
	if (h->headers)
		h->cu->slist_free_all(h->headers);
	free(h);
}

struct sw_http_conn *sw_http_lend(struct sw_http *h)
{
	if (!h)
		return NULL;
	if (h->nidle)
		return (struct sw_http_conn *)h->idle[--h->nidle];
	return (struct sw_http_conn *)h->cu->easy_init();
}

void sw_http_give_back(struct sw_http *h, struct sw_http_conn *c)
{
	if (!c)
		return;
	if (h->nidle < MAX_IDLE_HANDLES)
		h->idle[h->nidle++] = (CURL *)c;
	else
		h->cu->easy_cleanup((CURL *)c);
}

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

/* GETs url into fd (emptied first), following redirects itself: curl
 * would send the request headers (an Auth-Token) to any host a redirect
 * names, and Tecken answers with a redirect to its storage, a pre-signed
 * URL of a cloud bucket. The headers go only to the server's own origin;
 * the redirects share one time limit. */
static void get_once(struct sw_http *h, CURL *c, const char *server_origin, const char *url,
                     int fd, struct answer *a)
{
	const struct sw_curl_api *cu = h->cu;
	memset(a, 0, sizeof *a);
	char where[8192], origin[SW_URL_ORIGIN_MAX];
	snprintf(where, sizeof where, "%s", url);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long limit_ms = (long)h->timeout_s * 1000;
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
		sw_url_origin(where, origin, sizeof origin);
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
		if (h->headers && server_origin[0] && strcmp(origin, server_origin) == 0)
			cu->easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
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

enum sw_transfer sw_http_get(struct sw_http *h, struct sw_http_conn *conn, const char *origin,
                             const char *url, int fd, const char *dir,
                             const struct sw_server_reporter *r)
{
	const struct sw_curl_api *cu = h->cu;
	CURL *c = (CURL *)conn;
	struct answer a;
	for (int attempt = 0;; attempt++) {
		get_once(h, c, origin, url, fd, &a);
		bool transient = a.rc == CURLE_OK ? transient_status(a.status) : transient_error(a.rc);
		if (!transient || attempt == RETRIES)
			break;
		long wait = 1L << attempt;
		pause_s(a.retry_after > wait ? a.retry_after : wait);
	}
	bool is_file = strncmp(url, "file:", 5) == 0;
	if (a.rc == CURLE_OK) {
		if (a.status == 200 || (is_file && a.status == 0))
			return SW_TRANSFER_OK;
		if (a.status == 404 || a.status == 410)
			return SW_TRANSFER_MISS;
		if (a.too_many_redirects)
			sw_server_report(r, "%s: more than %d redirects", url, MAX_REDIRECTS);
		else if (redirect_status(a.status))
			sw_server_report(r, "%s: HTTP status %ld, redirecting to no http:// or "
			                 "https:// URL", url, a.status);
		else if (transient_status(a.status))
			sw_server_report(r, "%s: HTTP status %ld, %d times", url, a.status, RETRIES + 1);
		else
			sw_server_report(r, "%s: HTTP status %ld", url, a.status);
		return SW_TRANSFER_FAILED;
	}
	if (is_file && a.rc == CURLE_FILE_COULDNT_READ_FILE)
		return SW_TRANSFER_MISS;
	if (a.d.too_big || a.rc == CURLE_FILESIZE_EXCEEDED) {
		sw_server_report(r, "%s: larger than %lld bytes: refused", url, SW_SERVER_MAX_FILE);
		return SW_TRANSFER_FAILED;
	}
	if (a.d.write_failed) {
		sw_server_report(r, "%s: cannot write the download into %s: %s", url, dir,
		                 strerror(errno));
		return SW_TRANSFER_FAILED;
	}
	if (a.rc == CURLE_OPERATION_TIMEDOUT) {
		sw_server_report(r, "%s: no answer within %u s (%s): server not asked again for %d "
		                 "minutes", url, h->timeout_s, h->timeout_name, SW_SERVER_DOWN_S / 60);
		return SW_TRANSFER_DOWN;
	}
	if (transient_error(a.rc))
		sw_server_report(r, "%s: %s (%d times): server not asked again for %d minutes", url,
		                 *a.errbuf ? a.errbuf : cu->easy_strerror(a.rc), RETRIES + 1,
		                 SW_SERVER_DOWN_S / 60);
	else
		sw_server_report(r, "%s: %s: server not asked again for %d minutes", url,
		                 *a.errbuf ? a.errbuf : cu->easy_strerror(a.rc), SW_SERVER_DOWN_S / 60);
	return SW_TRANSFER_DOWN;
}

bool sw_http_url(struct sw_http *h, struct sw_http_conn *c, const char *base, const char *rel,
                 char *out, size_t cap)
{
	size_t w = 0;
	int n = snprintf(out, cap, "%s", base);
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
		char *esc = h->cu->easy_escape((CURL *)c, seg, (int)len);
		if (!esc)
			return false;
		n = snprintf(out + w, cap - w, "/%s", esc);
		h->cu->free(esc);
		if (n < 0 || (size_t)n >= cap - w)
			return false;
		w += (size_t)n;
		rel += len;
		if (*rel == '/')
			rel++;
	}
	return true;
}

#else

bool sw_http_available(void)
{
	return false;
}

struct sw_http *sw_http_open(const char *const *headers, size_t nheaders, unsigned timeout_s,
                             const char *timeout_name, const char **why)
{
	(void)headers, (void)nheaders, (void)timeout_s, (void)timeout_name;
	*why = "built without libcurl";
	return NULL;
}

void sw_http_close(struct sw_http *h)
{
	(void)h;
}

struct sw_http_conn *sw_http_lend(struct sw_http *h)
{
	(void)h;
	return NULL;
}

void sw_http_give_back(struct sw_http *h, struct sw_http_conn *c)
{
	(void)h, (void)c;
}

bool sw_http_url(struct sw_http *h, struct sw_http_conn *c, const char *base, const char *rel,
                 char *out, size_t cap)
{
	(void)h, (void)c, (void)base, (void)rel, (void)out, (void)cap;
	return false;
}

enum sw_transfer sw_http_get(struct sw_http *h, struct sw_http_conn *c, const char *origin,
                             const char *url, int fd, const char *dir,
                             const struct sw_server_reporter *r)
{
	(void)h, (void)c, (void)origin, (void)url, (void)fd, (void)dir, (void)r;
	return SW_TRANSFER_MISS;
}

#endif

/* ---- debuginfod ---- */

#ifdef SW_HAVE_DEBUGINFOD

struct sw_debuginfod {
	const struct sw_debuginfod_api *di; /* loaded on first use, or NULL */
	debuginfod_client *client;
	time_t deadline;
};

bool sw_debuginfod_available(void)
{
	return true;
}

struct sw_debuginfod *sw_debuginfod_new(void)
{
	return calloc(1, sizeof(struct sw_debuginfod));
}

void sw_debuginfod_free(struct sw_debuginfod *d)
{
	if (d && d->client)
		d->di->end(d->client);
	free(d);
}

/* libdebuginfod calls this while it waits (about once a second): past the
 * deadline a nonzero answer cancels the request. DEBUGINFOD_TIMEOUT, the
 * library's own limit, still applies when shorter. */
static int debuginfod_progress(debuginfod_client *c, long done, long total)
{
	(void)done, (void)total;
	const char *why;
	const struct sw_debuginfod *d = sw_debuginfod_api(&why)->get_user_data(c);
	return time(NULL) > d->deadline;
}

enum sw_transfer sw_debuginfod_find(struct sw_debuginfod *d, const char *build_id,
                                    bool executable, unsigned timeout_s, char **found,
                                    bool *stop, const struct sw_server_reporter *r)
{
	*stop = false;
	if (!d->client) {
		const char *why = NULL;
		d->di = sw_debuginfod_api(&why);
		if (!d->di) {
			sw_server_report(r, "debuginfod: cannot load libdebuginfod: %s: debuginfod not "
			                 "asked in this run", why ? why : "unknown error");
			*stop = true;
			return SW_TRANSFER_FAILED;
		}
		d->client = d->di->begin();
		if (!d->client) {
			sw_server_report(r, "debuginfod: cannot start its client: debuginfod not asked "
			                 "in this run");
			*stop = true;
			return SW_TRANSFER_FAILED;
		}
		d->di->set_user_data(d->client, d);
		d->di->set_progressfn(d->client, debuginfod_progress);
	}
	d->deadline = time(NULL) + (time_t)timeout_s;
	char *path = NULL;
	const unsigned char *id = (const unsigned char *)build_id;
	int fd = executable ? d->di->find_executable(d->client, id, 0, &path)
	                    : d->di->find_debuginfo(d->client, id, 0, &path);
	if (fd >= 0) {
		close(fd);
		*found = path;
		return path ? SW_TRANSFER_OK : SW_TRANSFER_FAILED;
	}
	free(path);
	/* A request cancelled by debuginfod_progress ends as -ENOENT, like a
	 * miss (and libdebuginfod remembers it as one, for cache_miss_s): the
	 * clock tells them apart. */
	const char *url = getenv("DEBUGINFOD_URLS");
	if (time(NULL) > d->deadline || fd == -ETIME || fd == -ETIMEDOUT) {
		sw_server_report(r, "debuginfod (%s): no answer for build-id %s within %u s: "
		                 "debuginfod not asked again in this run", url ? url : "", build_id,
		                 timeout_s);
		*stop = true;
		return SW_TRANSFER_DOWN;
	}
	if (fd == -ENOENT)
		return SW_TRANSFER_MISS;
	sw_server_report(r, "debuginfod (%s): build-id %s: %s", url ? url : "", build_id,
	                 strerror(-fd));
	if (fd == -ECONNREFUSED || fd == -EHOSTUNREACH || fd == -ENETUNREACH || fd == -ENOSYS) {
		*stop = true;
		return SW_TRANSFER_DOWN;
	}
	return SW_TRANSFER_FAILED;
}

#else

bool sw_debuginfod_available(void)
{
	return false;
}

struct sw_debuginfod *sw_debuginfod_new(void)
{
	return NULL;
}

void sw_debuginfod_free(struct sw_debuginfod *d)
{
	(void)d;
}

enum sw_transfer sw_debuginfod_find(struct sw_debuginfod *d, const char *build_id,
                                    bool executable, unsigned timeout_s, char **found,
                                    bool *stop, const struct sw_server_reporter *r)
{
	(void)d, (void)build_id, (void)executable, (void)timeout_s, (void)found, (void)r;
	*stop = true;
	return SW_TRANSFER_MISS;
}

#endif
