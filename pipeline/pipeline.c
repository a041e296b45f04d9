/* The pipeline's steps, in the order a walk takes them (pipeline.h): open,
 * build the store, pick the CPU, walk, sign. */
#include "pipeline.h"

#include <string.h>

#include "arch/registry.h"
#include "formats/offline.h"

enum sw_err_code sw_pipeline_open(const char *path, const struct sw_open_options *opts,
                                  const struct sw_part *part, struct sw_snapshot *snap,
                                  struct sw_err *err)
{
	return part ? sw_snapshot_open_part(path, opts, part, snap, err)
	            : sw_snapshot_open_with(path, opts, snap, err);
}

bool sw_pipeline_is_snapshot_folder(const char *dir)
{
	return sw_offline_is_folder(dir);
}

/* The store of snap's modules over sym, into res->store (its complaint in
 * res->store_err). */
static enum sw_err_code make_store(const struct sw_snapshot *snap,
                                   const struct sw_pipeline_symbols *sym, bool concurrent,
                                   struct sw_pipeline_result *res, struct sw_err *err)
{
	res->store = sw_sym_store_create(sym->paths, sym->npaths, snap, &res->store_err);
	if (!res->store) {
		enum sw_err_code code = res->store_err.code ? res->store_err.code : SW_ERR_NOMEM;
		return sw_err_set(err, code, "%s", res->store_err.code ? res->store_err.msg
		                                                       : "out of memory");
	}
	if (sym->local_modules >= 0)
		sw_sym_store_set_local_modules(res->store, sym->local_modules);
	if (sym->local_modules_name)
		sw_sym_store_set_local_modules_name(res->store, sym->local_modules_name);
	if (sym->debug_dirs_given &&
	    !sw_sym_store_set_debug_dirs(res->store, sym->debug_dirs, sym->ndebug_dirs)) {
		sw_sym_store_free(res->store);
		res->store = NULL;
		return sw_err_set(err, SW_ERR_NOMEM, "out of memory");
	}
	sw_sym_store_set_symbol_server(res->store, sym->servers);
	sw_sym_store_set_cache(res->store, sym->cache);
	/* Several walker threads load symbols at once. */
	if (concurrent)
		sw_sym_store_set_concurrent(res->store);
	return SW_OK;
}

/* The signature of the crashing (else requesting) thread, if any. */
static void sign(const struct sw_snapshot *snap, const struct sw_sig_rules *rules,
                 struct sw_pipeline_result *res)
{
	const struct sw_walk_result *w = &res->walk;
	if (!rules || w->crashing < 0 || (uint32_t)w->crashing >= w->nstacks)
		return;
	res->signed_stack = &w->stacks[w->crashing];
	sw_signature_make(rules, snap, res->signed_stack, &res->sig);
}

enum sw_err_code sw_pipeline_walk(const struct sw_snapshot *snap,
                                  const struct sw_pipeline_options *opt,
                                  struct sw_pipeline_result *res, struct sw_err *err)
{
	memset(res, 0, sizeof *res);
	sw_arena_init(&res->arena);
	res->arch = sw_arch_for_cpu(snap->sys.cpu);
	struct sw_walk_options wo = opt->walk;
	wo.arch_for_cpu = sw_arch_for_cpu; /* a thread whose context names another CPU */
	enum sw_err_code rc = make_store(snap, &opt->symbols, wo.threads > 1, res, err);
	if (rc != SW_OK)
		return rc;
	if (!sw_walk_snapshot(snap, res->arch, sw_sym_store_source(res->store), &wo, &res->arena,
	                      &res->walk))
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory while walking", opt->name);
	sign(snap, opt->rules, res);
	return SW_OK;
}

void sw_pipeline_result_free(struct sw_pipeline_result *res)
{
	sw_arena_free(&res->arena);
	sw_sym_store_free(res->store);
	res->store = NULL;
}
