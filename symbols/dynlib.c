/* Loading libcurl and libdebuginfod on first use (dynlib.h says why). */
#include "dynlib.h"

#if defined(SW_HAVE_CURL) || defined(SW_HAVE_DEBUGINFOD)
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Each function pointer of a table is looked up by its name; a library
 * that lacks one is not used at all (a half-loaded API would fail later,
 * mid-download). */
struct symbol {
	const char *name;
	size_t offset; /* of the pointer in the table */
};

static bool load(const char *soname, const struct symbol *syms, size_t n, void *table,
                 const char **why)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		*why = dlerror();
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(lib, syms[i].name);
		if (!f) {
			*why = dlerror();
			dlclose(lib);
			return false;
		}
		/* POSIX dlsym: a function's address comes back as void *. */
		*(void **)((char *)table + syms[i].offset) = f;
	}
	return true; /* kept loaded until the process ends */
}
#endif

#ifdef SW_HAVE_CURL
#define CURL_SYMBOL(field, name) { name, offsetof(struct sw_curl_api, field) }
static const struct symbol curl_symbols[] = {
	CURL_SYMBOL(global_init, "curl_global_init"),
	CURL_SYMBOL(easy_init, "curl_easy_init"),
	CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup"),
	CURL_SYMBOL(easy_reset, "curl_easy_reset"),
	CURL_SYMBOL(easy_setopt, "curl_easy_setopt"),
	CURL_SYMBOL(easy_perform, "curl_easy_perform"),
	CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo"),
	CURL_SYMBOL(easy_strerror, "curl_easy_strerror"),
	CURL_SYMBOL(easy_escape, "curl_easy_escape"),
	CURL_SYMBOL(free, "curl_free"),
	CURL_SYMBOL(slist_append, "curl_slist_append"),
	CURL_SYMBOL(slist_free_all, "curl_slist_free_all"),
};
static struct sw_curl_api curl_table;
static const char *curl_why;
static bool curl_loaded;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void load_curl(void)
{
	curl_loaded = load("libcurl.so.4", curl_symbols,
	                   sizeof curl_symbols / sizeof curl_symbols[0], &curl_table, &curl_why);
	/* Once per process, here under pthread_once: curl_global_init is
	 * not thread-safe in every libcurl build. */
	if (curl_loaded && curl_table.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		curl_loaded = false;
		curl_why = "curl_global_init failed";
	}
}

const struct sw_curl_api *sw_curl_api(const char **why)
{
	pthread_once(&curl_once, load_curl);
	*why = curl_why;
	return curl_loaded ? &curl_table : NULL;
}
#endif

#ifdef SW_HAVE_DEBUGINFOD
#define DEBUGINFOD_SYMBOL(field, name) { name, offsetof(struct sw_debuginfod_api, field) }
static const struct symbol debuginfod_symbols[] = {
	DEBUGINFOD_SYMBOL(begin, "debuginfod_begin"),
	DEBUGINFOD_SYMBOL(end, "debuginfod_end"),
	DEBUGINFOD_SYMBOL(find_debuginfo, "debuginfod_find_debuginfo"),
	DEBUGINFOD_SYMBOL(find_executable, "debuginfod_find_executable"),
	DEBUGINFOD_SYMBOL(set_user_data, "debuginfod_set_user_data"),
	DEBUGINFOD_SYMBOL(get_user_data, "debuginfod_get_user_data"),
	DEBUGINFOD_SYMBOL(set_progressfn, "debuginfod_set_progressfn"),
};
static struct sw_debuginfod_api debuginfod_table;
static const char *debuginfod_why;
static bool debuginfod_loaded;
static pthread_once_t debuginfod_once = PTHREAD_ONCE_INIT;

static void load_debuginfod(void)
{
	debuginfod_loaded = load("libdebuginfod.so.1", debuginfod_symbols,
	                         sizeof debuginfod_symbols / sizeof debuginfod_symbols[0],
	                         &debuginfod_table, &debuginfod_why);
}

const struct sw_debuginfod_api *sw_debuginfod_api(const char **why)
{
	pthread_once(&debuginfod_once, load_debuginfod);
	*why = debuginfod_why;
	return debuginfod_loaded ? &debuginfod_table : NULL;
}
#endif
