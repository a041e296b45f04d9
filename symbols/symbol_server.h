/* Symbol servers: fetching a module's symbol files over HTTP(S) into the
 * symbol cache directory, where the store then reads them as a local store
 * (docs/symbol-servers.md).
 *
 * For a module no local SYMBOL_PATH served, each server URL in the order
 * given is asked for, until one file is found:
 *     URL/NAME/DEBUG_ID/STEM.sym        (STEM: NAME minus a ".pdb")
 *     URL/NAME/DEBUG_ID/STEM.sym.gz
 *     URL/CODE_NAME/BUILD_ID/CODE_NAME  (ELF modules: lower-case build-id)
 * as Breakpad's HTTP symbol supplier and Mozilla's Tecken lay them out.
 * NAME is the debug file's base name (else the code file's), as the store
 * files symbols under it (store_layout.h). Then, for an ELF module with a
 * GNU build-id and when asked for, elfutils' debuginfod client: the debug
 * file and the executable, from the servers DEBUGINFOD_URLS names.
 *
 * A download goes to a temporary file beside its place in the cache and is
 * renamed there only once checked: a .sym's MODULE line must have the
 * module's debug id (a gzipped one is inflated whole to check that it
 * stays within the store's inflation limit), an ELF file must have the
 * module's build-id. Anything else is refused, with one warning naming the
 * URL, and nothing is kept.
 *
 * Bounds: each request has a total time limit (connecting included); a
 * file is at most SW_SERVER_MAX_FILE bytes; a .sym.gz inflates to at most
 * sw_gz_limit(its size). An answer that says the server is busy or
 * restarting (429, 500, 502-504, a connection dropped) is asked again
 * twice, after 1 and 2 s (or its Retry-After, up to 10 s). A server that
 * times out or cannot be reached is not asked again for
 * SW_SERVER_DOWN_S. A miss (HTTP 404 or 410 for every layout)
 * is remembered in the cache for SW_SERVER_MISS_TTL seconds (or the
 * options' miss_ttl_s) by a marker
 * file, so a batch of dumps asks once per module and server, not once per
 * dump.
 *
 * Built without libcurl (meson -Dsymbol_servers=disabled, or libcurl
 * missing) HTTP is compiled out, and without libdebuginfod debuginfod is:
 * sw_symbol_server_create then refuses what it cannot do. */
#ifndef SW_SYMBOLS_SYMBOL_SERVER_H
#define SW_SYMBOLS_SYMBOL_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"

/* A symbol file is a few hundred MB at most (libxul's .sym is ~400 MB
 * inflated); a debug file of a browser a few GB. Past this a download is
 * stopped and refused. */
#define SW_SERVER_MAX_FILE ((long long)4 << 30)
/* How long a miss is remembered: an hour, long enough for a batch of
 * dumps, short enough that symbols uploaded after a release are found the
 * same day. */
enum { SW_SERVER_MISS_TTL = 3600 };
enum { SW_SERVER_DEFAULT_TIMEOUT = 30 };
/* How long a server that timed out or could not be reached is not asked
 * again: long enough that a dead server costs one timeout per five
 * minutes of a batch, not one per module; short enough that a batch of
 * hours outlives a network hiccup. */
enum { SW_SERVER_DOWN_S = 300 };

/* How messages name the settings of struct sw_symbol_server_options: a
 * front end's own words (the CLI's flags); a NULL field: the library's
 * (in parentheses). */
struct sw_symbol_server_names {
	const char *url;            /* a server URL ("symbol server URL") */
	const char *header;         /* a request header ("request header") */
	const char *debuginfod;     /* asking debuginfod ("debuginfod") */
	const char *timeout;        /* timeout_s ("the download time limit") */
	const char *symbol_path;    /* a local store ("symbol path") */
};

struct sw_symbol_server_options {
	const char *const *urls;    /* http://, https:// or file:// base URLs, in order */
	size_t nurls;
	bool debuginfod;            /* also ask debuginfod (DEBUGINFOD_URLS) */
	/* Where downloads go: the symbol cache directory; NULL: a temporary
	 * directory, removed by sw_symbol_server_free (--no-cache). */
	const char *cache_dir;
	unsigned timeout_s;         /* per request, connecting included; 0: the default */
	/* "Name: value" request headers (a private server's Auth-Token), sent
	 * with every request to the urls' servers, and only to their own
	 * origins (scheme, host and port): not to where they redirect. */
	const char *const *headers;
	size_t nheaders;
	/* How long a miss is remembered, in seconds: 0 the default
	 * (SW_SERVER_MISS_TTL), negative not at all (every run asks again). */
	long miss_ttl_s;
	const struct sw_symbol_server_names *names; /* NULL: the library's */
};

/* Why h is no "Name: value" request header, or NULL. */
const char *sw_symbol_server_header_problem(const char *h);
/* h's name for a message (never its value: a token), into out. */
void sw_symbol_server_header_name(const char *h, char *out, size_t cap);

/* Can this build fetch over HTTP / from debuginfod? */
bool sw_symbol_server_has_http(void);
bool sw_symbol_server_has_debuginfod(void);

/* Checks the options (a URL that is not http://, https:// or file://, a
 * server kind this build lacks, debuginfod without DEBUGINFOD_URLS: NULL
 * and *err SW_ERR_USAGE, naming the setting as o->names does) and makes the temporary directory if needed
 * (SW_ERR_IO). Nothing is fetched yet. */
struct sw_symbol_server *sw_symbol_server_create(const struct sw_symbol_server_options *o,
                                                 struct sw_err *err);
void sw_symbol_server_free(struct sw_symbol_server *srv);

/* How many downloads srv kept in its directory (a reason to prune the
 * cache: symbols/cache_prune.h). */
unsigned sw_symbol_server_kept(struct sw_symbol_server *srv);

/* What to fetch for a module. */
enum sw_fetch_kind {
	SW_FETCH_BREAKPAD = 1 << 0, /* its .sym / .sym.gz */
	SW_FETCH_ELF = 1 << 1,      /* its ELF binary or debug file, by build-id */
};

/* The files fetched (or found in the cache from an earlier fetch) for one
 * module: malloc'd paths, NULL when none. */
struct sw_fetched {
	char *sym;                  /* a .sym or .sym.gz */
	char *elf[2];               /* ELF files: a binary and/or a debug file */
};
void sw_fetched_free(struct sw_fetched *f);

/* Fetches module m's symbol files of the kinds asked for, as described
 * above; the cache is looked in first (a file there is used without a
 * request, a remembered miss skips its server). warn receives each
 * problem as one line: an HTTP error or a timeout naming the URL, a file
 * refused; and once, when every server missed, that the module is on
 * none. True when any file was found.
 * Threads may share srv (a batch's walks): a cache hit is answered at
 * once, requests are made one at a time (and a file another thread
 * fetched meanwhile is then found in the cache). */
bool sw_symbol_server_fetch(struct sw_symbol_server *srv, const struct sw_module *m,
                            unsigned kinds, struct sw_fetched *out,
                            void (*warn)(void *self, const char *line), void *warn_self);

#endif
