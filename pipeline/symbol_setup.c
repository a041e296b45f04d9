/* The symbol side a run sets up around its walks (pipeline.h): the
 * servers downloading into the cache, the cache kept to its size after the
 * run, the symbol paths that are not there. */
#include "pipeline.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/path.h"
#include "symbols/cache_prune.h"

struct sw_symbol_server *sw_pipeline_servers_create(const struct sw_symbol_server_options *so,
                                                    const struct sw_sym_cache *cache,
                                                    struct sw_err *err)
{
	struct sw_symbol_server_options o = *so;
	o.cache_dir = cache ? sw_sym_cache_dir(cache) : NULL;
	return sw_symbol_server_create(&o, err);
}

bool sw_pipeline_prune_cache(struct sw_sym_cache *cache, struct sw_symbol_server *servers,
                             uint64_t max_bytes, time_t started)
{
	if (!cache || max_bytes == 0)
		return true;
	const char *dir = sw_sym_cache_dir(cache);
	char sections[4096];
	struct stat st;
	/* Sections are written into one folder, whose mtime a new file
	 * changes. */
	bool added = sw_sym_cache_added(cache) || sw_symbol_server_kept(servers) > 0 ||
	             (sw_path_printf(sections, sizeof sections, "%s/elf-sections", dir) &&
	              stat(sections, &st) == 0 && st.st_mtime >= started);
	struct sw_cache_prune_result res;
	return !added || sw_cache_prune(dir, max_bytes, time(NULL), SW_CACHE_KEEP_RECENT_S, &res);
}

const char *sw_pipeline_symbol_path_missing(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? NULL : strerror(errno);
}
