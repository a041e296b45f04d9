/* libcurl and libdebuginfod, loaded with dlopen when a symbol server is
 * first set up instead of linked: linked, they and the ~30 libraries they
 * pull in cost every run ~9 ms of relocation and ~6 MB of resident memory
 * (docs/symbol-cache.md measured it: more than a warm walk's whole time),
 * and only runs given --symbols-url or --debuginfod use them. The headers
 * are still the build's (types and constants); the functions come from the
 * libraries' stable sonames. */
#ifndef SW_DYNLIB_H
#define SW_DYNLIB_H

#ifdef SW_HAVE_CURL
#include <curl/curl.h>

/* curl_global_init has been called once (when the library was loaded),
 * and curl_global_cleanup never is: other threads (an embedding program's
 * walks) may hold handles until the process ends. */
struct sw_curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *c);
	void (*easy_reset)(CURL *c);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	char *(*easy_escape)(CURL *c, const char *s, int len);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
};

/* The loaded API (once per process, thread-safe), or NULL with *why the
 * dlerror() line. */
const struct sw_curl_api *sw_curl_api(const char **why);
#endif

#ifdef SW_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

struct sw_debuginfod_api {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *id, int idlen,
	                      char **path);
	int (*find_executable)(debuginfod_client *c, const unsigned char *id, int idlen,
	                       char **path);
	void (*set_user_data)(debuginfod_client *c, void *data);
	void *(*get_user_data)(debuginfod_client *c);
	void (*set_progressfn)(debuginfod_client *c, debuginfod_progressfn_t fn);
};

const struct sw_debuginfod_api *sw_debuginfod_api(const char **why);
#endif

#endif
