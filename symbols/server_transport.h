/* How the symbol servers reach the network: HTTP(S) through libcurl and
 * elfutils' debuginfod client, each loaded at run time (dynlib.h) and
 * compiled in only when its headers were there at build time
 * (-Dsymbol_servers). Every #ifdef of the two is in server_transport.c;
 * without a library its calls below fail as if the server were absent
 * (no pool, no connection, no URL). symbol_server.c decides what to ask
 * for, where files go and whether to keep them; this moves the bytes. */
#ifndef SW_SYMBOLS_SERVER_TRANSPORT_H
#define SW_SYMBOLS_SERVER_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

enum { SW_SERVER_LINE_MAX = 1024, SW_URL_ORIGIN_MAX = 512 };

/* One problem, one line, through the caller's callback. */
struct sw_server_reporter {
	void (*warn)(void *self, const char *line);
	void *self;
};

void sw_server_report(const struct sw_server_reporter *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What asking for one file came to. */
enum sw_transfer {
	SW_TRANSFER_OK,             /* the file is there */
	SW_TRANSFER_MISS,           /* the server has no such file (404, 410, ENOENT) */
	SW_TRANSFER_FAILED,         /* said: another error, a refused size */
	SW_TRANSFER_DOWN,           /* said: timeout, cannot connect: ask it no more */
};

/* "scheme://host:port" of url, lower case, the default port written out
 * (80, 443): what a redirect must keep for the request headers to go with
 * it (RFC 6454's origin). "" when url has no host. */
void sw_url_origin(const char *url, char *out, size_t cap);

/* ---- HTTP(S) and file:// through libcurl ---- */

bool sw_http_available(void);

/* A pool of connections, sending headers ("Name: value", checked by the
 * caller) to the origins they are for, each request within timeout_s
 * seconds, connecting and redirects included (a message names that limit
 * timeout_name). NULL when libcurl cannot be loaded (*why: why) or memory
 * ran out (*why NULL). */
struct sw_http;
struct sw_http_conn;
struct sw_http *sw_http_open(const char *const *headers, size_t nheaders, unsigned timeout_s,
                             const char *timeout_name, const char **why);
void sw_http_close(struct sw_http *h);

/* A connection for one fetch (an idle one, kept alive, or a new one) and
 * its return to the pool; NULL without a pool or memory. The caller
 * serialises these two (symbol_server.c: under its lock). */
struct sw_http_conn *sw_http_lend(struct sw_http *h);
void sw_http_give_back(struct sw_http *h, struct sw_http_conn *c);

/* base/rel with each path segment of rel percent-escaped (a Windows
 * module's name may hold spaces); false when it does not fit. */
bool sw_http_url(struct sw_http *h, struct sw_http_conn *c, const char *base, const char *rel,
                 char *out, size_t cap);

/* GETs url into fd (emptied first), following redirects itself: the
 * headers go only to origin, the server's own (a token must not follow a
 * redirect to a cloud bucket's pre-signed URL). A transient answer (429,
 * 500, 502-504, a connection dropped) is asked again after 1 s, then 2 s
 * (or the server's Retry-After, up to 10 s). One line for every outcome
 * but OK and MISS, once the last attempt is in; dir names where the
 * download was being written. */
enum sw_transfer sw_http_get(struct sw_http *h, struct sw_http_conn *c, const char *origin,
                             const char *url, int fd, const char *dir,
                             const struct sw_server_reporter *r);

/* ---- debuginfod (DEBUGINFOD_URLS) ---- */

bool sw_debuginfod_available(void);

/* The client, started on first use; one thread's at a time. */
struct sw_debuginfod;
struct sw_debuginfod *sw_debuginfod_new(void);
void sw_debuginfod_free(struct sw_debuginfod *d);

/* The debug file (executable: the executable) of build_id, lower-case hex,
 * within timeout_s seconds: *found a path in debuginfod's own cache.
 * *stop: debuginfod is not to be asked again in this run (it could not be
 * started, timed out or could not be reached; said). */
enum sw_transfer sw_debuginfod_find(struct sw_debuginfod *d, const char *build_id,
                                    bool executable, unsigned timeout_s, char **found,
                                    bool *stop, const struct sw_server_reporter *r);

#endif
