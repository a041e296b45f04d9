/* stackwalk: the command line. Parses arguments (args.c), has the pipeline
 * read the snapshot, load symbols on demand, walk every thread (or with
 * --brief the crashing one) and sign it (pipeline/pipeline.h), and prints
 * one of three formats, to stdout or to a file.
 * Exit statuses (docs/cli.md):
 *   0  walked
 *   1  walked, but the input was damaged: what was intact is printed and
 *      stderr names the problem
 *   2  usage error
 *   3  input unreadable: cannot open it, or not a snapshot we know
 *   4  internal failure (out of memory, cannot write the output)
 *   5  --require-symbols: walked, but a module the crash signature is made
 *      of had no symbols */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "batch.h"
#include "convert.h"
#include "output_sink.h"
#include "said_once.h"
#include "pipeline/pipeline.h"

static int status_for(enum sw_err_code code)
{
	switch (code) {
	case SW_OK: return SW_EXIT_WALKED;
	case SW_ERR_CORRUPT: return SW_EXIT_DAMAGED;
	case SW_ERR_USAGE: return SW_EXIT_USAGE;
	case SW_ERR_IO:
	case SW_ERR_FORMAT:
	case SW_ERR_UNSUPPORTED: return SW_EXIT_UNREADABLE;
	case SW_ERR_NOMEM: break;
	}
	return SW_EXIT_INTERNAL;
}

/* What one run writes to and decides with, besides the options. */
struct run {
	struct sink out;           /* the report (--output-file or stdout) */
	struct sink cyborg;        /* --cyborg's JSON; f NULL without it */
	struct sw_sig_rules rules; /* crash-signature rules */
	/* --symbols-url / --debuginfod (docs/symbol-servers.md), or NULL. */
	struct sw_symbol_server *servers;
	/* The symbol index cache (docs/symbol-cache.md), one for the run (a
	 * batch's threads share it); NULL: none. */
	struct sw_sym_cache *cache;
	FILE *msgs;                /* stderr, or a batch input's messages */
	/* A batch's symbol warnings already given (shared by its threads);
	 * NULL in a single run. */
	struct said_once *said;
};

/* The JSON "status" of a report that exits with status (docs/json.md). */
static const char *json_status(int status, bool unsupported_cpu)
{
	if (unsupported_cpu)
		return "UNSUPPORTED_CPU";
	return status == SW_EXIT_DAMAGED ? "DAMAGED" : "OK";
}

/* --require-symbols: each module holding a frame the signature is made of
 * whose symbols were not loaded (missing, corrupt, or no symbol path),
 * one line each. True when there
 * was one. */
static bool report_missing_symbols(const struct cli_options *o, FILE *msgs,
                                   const struct sw_snapshot *s,
                                   const struct sw_walk_result *w, const struct sw_stack *st,
                                   const struct sw_signature *sig)
{
	bool any = false;
	for (uint32_t k = 0; k < sig->nframes; k++) {
		int32_t m = st->frames[sig->frames[k]].module;
		if (m < 0 || (uint32_t)m >= s->nmodules || !w->module_status)
			continue;
		/* NOT_LOOKED too: with no symbol path the store looks nowhere. */
		enum sw_symbols_status ss = w->module_status[m];
		if (ss == SW_SYMS_LOADED)
			continue;
		bool seen = false; /* said for an earlier frame */
		for (uint32_t e = 0; e < k && !seen; e++)
			seen = st->frames[sig->frames[e]].module == m;
		if (seen)
			continue;
		const struct sw_module *mod = &s->modules[m];
		const char *name = sw_basename(mod->code_file);
		const char *debug_file = sw_basename(mod->debug_file);
		fprintf(msgs, "stackwalk: %s: %s symbols for %s (%s, %s), which holds frame %u of the "
		        "crashing thread\n", o->snapshot, ss == SW_SYMS_CORRUPT ? "corrupt" : "no",
		        name && *name ? name : "?", debug_file && *debug_file ? debug_file : "?",
		        mod->debug_id && *mod->debug_id ? mod->debug_id : "no debug id",
		        sig->frames[k]);
		any = true;
	}
	return any;
}

/* A symbol path that is not there is not an error (the walk goes on
 * without it, as with a module whose symbols are missing), but it is most
 * likely a typo: say so, once, on stderr. */
static void warn_missing_symbol_paths(const struct cli_options *o, FILE *msgs)
{
	for (size_t i = 0; i < o->nsymbol_paths; i++) {
		const char *why = sw_pipeline_symbol_path_missing(o->symbol_paths[i]);
		if (why)
			fprintf(msgs, "stackwalk: %s: symbol path ignored: %s\n", o->symbol_paths[i], why);
	}
}

/* A log with several microdumps is walked one by one: text and machine
 * output name each before its report, JSON prints one document each
 * (docs/cli.md, "Microdumps"). */
static void print_part_header(FILE *f, enum sw_output_format format,
                              const struct sw_snapshot *snap)
{
	const struct sw_part *p = &snap->part;
	if (p->count < 2)
		return;
	if (format == SW_OUTPUT_TEXT)
		fprintf(f, "%sMicrodump %u of %u (line %llu)\n\n", p->index ? "\n" : "", p->index + 1,
		        p->count, (unsigned long long)p->line);
	else if (format == SW_OUTPUT_MACHINE)
		fprintf(f, "Microdump|%u|%u|%llu\n", p->index + 1, p->count, (unsigned long long)p->line);
}

/* A batch line's "microdump" key when part is one of several microdumps
 * of a log (docs/batch.md), into buf; else "". */
static const char *part_key(const struct sw_part *part, char *buf, size_t size)
{
	buf[0] = '\0';
	if (part && part->count >= 2)
		snprintf(buf, size, "\"microdump\":{\"number\":%u,\"count\":%u,\"line\":%llu}",
		         part->index + 1, part->count, (unsigned long long)part->line);
	return buf;
}

/* A snapshot without a report (status 3 or 4): its message, and in a
 * batch its line, with the microdump key when part (NULL: the input's
 * first, not known yet) is one of several. Returns status. */
static int no_report(const struct cli_options *o, struct run *r, const struct sw_part *part,
                     int status, const char *msg)
{
	fprintf(r->msgs, "stackwalk: %s\n", msg);
	char key[96];
	if (o->batch)
		sw_batch_put_error(r->out.f, o->snapshot, part_key(part, key, sizeof key),
		                   status == SW_EXIT_UNREADABLE ? "ERROR_UNREADABLE" : "ERROR_INTERNAL",
		                   msg);
	return status;
}

/* A batch's file from a folder that is no snapshot: its SKIPPED line, and
 * one line on stderr; the batch's status does not change. */
static int skipped(struct run *r, const char *path, const char *why)
{
	fprintf(r->msgs, "stackwalk: %s (skipped)\n", why);
	sw_batch_put_skipped(r->out.f, path, why);
	return SW_EXIT_WALKED;
}

/* A batch's line for one report: the JSON document --json prints, with
 * the input's path in front and, for one of several microdumps of a log,
 * which one it is (docs/batch.md). False when out of memory. */
static bool put_batch_report(const struct cli_options *o, FILE *f, const struct sw_snapshot *snap,
                             const struct sw_arch *arch, const struct sw_walk_result *walk,
                             const struct sw_output_options *out)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&doc, &len);
	if (!m)
		return false;
	/* The microdump key goes in front of the document's own keys, after
	 * "file" (sw_batch_put_report puts that first). */
	char key[96];
	if (*part_key(&snap->part, key, sizeof key))
		fprintf(m, "{%s,", key);
	long body = ftell(m);
	sw_output(m, SW_OUTPUT_JSON, snap, arch, walk, out);
	bool ok = !ferror(m);
	if (fclose(m) != 0)
		ok = false;
	/* Drop the document's own "{", which follows the microdump key's
	 * "{...},". */
	if (ok && body > 0 && (size_t)body < len && doc[body] == '{') {
		memmove(doc + body, doc + body + 1, len - (size_t)body);
		len--;
	}
	if (ok)
		sw_batch_put_report(f, o->snapshot, doc, len);
	free(doc);
	return ok;
}

/* Online CPUs, at most 8 (a walk's threads rarely keep more busy). */
static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
}

/* The report of a walked snapshot to r's sinks (a batch's line, else the
 * output and --cyborg's JSON), --require-symbols checked: the status. */
static int report(const struct cli_options *o, struct run *r, const struct sw_snapshot *snap,
                  const struct sw_pipeline_result *res, int status, bool unsupported_cpu)
{
	const char *signature = NULL;
	if (res->signed_stack) {
		signature = res->sig.text;
		if (o->require_symbols && report_missing_symbols(o, r->msgs, snap, &res->walk,
		                                                 res->signed_stack, &res->sig))
			status = sw_worse_status(status, SW_EXIT_NO_SYMBOLS);
	}
	/* --brief walks and prints one thread, the walker's choice
	 * (sw_walk_chosen_thread, as the API's STACKWALK_WALK_CRASHING_ONLY);
	 * the others are listed unwalked (walk_end "not_walked"). */
	int32_t chosen = o->brief ? sw_walk_chosen_thread(snap) : -1;
	struct sw_output_options out = {
		.pretty = o->pretty,
		.one_thread = chosen >= 0,
		.thread = chosen >= 0 ? (uint32_t)chosen : 0,
		.signature = signature,
		.status = json_status(status, unsupported_cpu),
		.registers = o->registers,
	};
	if (o->batch) {
		if (!put_batch_report(o, r->out.f, snap, res->arch, &res->walk, &out))
			status = SW_EXIT_INTERNAL;
	} else if (!r->out.reader_gone && !r->out.failed) {
		print_part_header(r->out.f, o->format, snap);
		sw_output(r->out.f, o->format, snap, res->arch, &res->walk, &out);
		if (!sink_check(&r->out))
			status = SW_EXIT_INTERNAL;
	}
	if (r->cyborg.f && !r->cyborg.failed) {
		sw_output(r->cyborg.f, SW_OUTPUT_JSON, snap, res->arch, &res->walk, &out);
		if (!sink_check(&r->cyborg))
			status = SW_EXIT_INTERNAL;
	}
	return status;
}

/* The symbol side of the walk, the walker's settings and the rules, as
 * the options and the run give them. */
static struct sw_pipeline_options pipeline_options(const struct cli_options *o,
                                                   const struct run *r)
{
	struct sw_pipeline_options po = {
		.name = o->snapshot,
		.symbols = {
			.paths = o->symbol_paths,
			.npaths = o->nsymbol_paths,
			.local_modules = o->local_modules,
			.local_modules_name = "--local-modules",
			.debug_dirs_given = o->debug_dirs_given,
			.debug_dirs = o->debug_dirs,
			.ndebug_dirs = o->ndebug_dirs,
			.cache = r->cache,
			.servers = r->servers,
		},
		.walk = o->walk,
		.rules = &r->rules,
	};
	po.walk.crashing_only = o->brief;
	/* The snapshot's threads walked at once (--jobs); a batch walks its
	 * snapshots at once instead. */
	po.walk.threads = o->batch ? 1 : o->jobs ? o->jobs : online_cpus();
	return po;
}

/* Everything after the command line for one snapshot of the input: the
 * first (part NULL), or the one part names. Returns the exit status; *more
 * says whether the input holds another, *next which. */
static int walk_snapshot(const struct cli_options *o, struct run *r, const struct sw_part *part,
                         struct sw_part *next, bool *more)
{
	struct sw_err err = { 0 };
	struct sw_snapshot snap;
	/* An ELF core without NT_FILE finds its executable and libraries in
	 * the symbol paths. */
	struct sw_open_options open_opts = {
		.search_paths = o->symbol_paths,
		.nsearch_paths = o->nsymbol_paths,
		.maps_file = o->maps_file,
		.input = o->input,
		.max_decompressed = o->max_decompressed,
	};
	enum sw_err_code rc = sw_pipeline_open(o->snapshot, &open_opts, part, &snap, &err);
	*more = snap.has_next;
	*next = snap.next;
	if (rc != SW_OK && rc != SW_ERR_CORRUPT) {
		bool skip = o->skip_non_snapshot && snap.not_a_snapshot;
		sw_snapshot_free(&snap);
		return skip ? skipped(r, o->snapshot, err.msg) : no_report(o, r, part, status_for(rc),
		                                                           err.msg);
	}
	int status = status_for(rc);
	if (rc == SW_ERR_CORRUPT)
		fprintf(r->msgs, "stackwalk: %s\n", err.msg);
	else if (snap.nproblems == 1)
		fprintf(r->msgs, "stackwalk: %s: %s\n", o->snapshot, snap.problems[0]);
	else if (snap.nproblems > 1)
		fprintf(r->msgs, "stackwalk: %s: %s (and %u more)\n", o->snapshot, snap.problems[0],
		        sw_snapshot_problems_found(&snap) - 1);

	if (!part && !o->batch) /* once per input, not per microdump; a batch's once */
		warn_missing_symbol_paths(o, r->msgs);

	struct sw_pipeline_options po = pipeline_options(o, r);
	struct sw_pipeline_result res;
	struct sw_err walk_err = { 0 };
	enum sw_err_code wrc = sw_pipeline_walk(&snap, &po, &res, &walk_err);
	/* The messages in the order the steps met them: the CPU, the store,
	 * the symbol files refused while the walk loaded them
	 * (symbols/store.h), the walk. */
	bool unsupported_cpu = !res.arch && snap.nthreads;
	if (unsupported_cpu) {
		fprintf(r->msgs, "stackwalk: %s: CPU '%s' is not supported; threads are not walked\n",
		        o->snapshot, snap.sys.cpu_name ? snap.sys.cpu_name : "unknown");
		status = SW_EXIT_DAMAGED; /* a report without stacks is not a walk */
	}
	if (res.store && res.store_err.code != SW_OK && sw_say_first_time(r->said, res.store_err.msg))
		fprintf(r->msgs, "stackwalk: %s\n", res.store_err.msg);
	for (uint32_t i = 0; res.store && i < sw_sym_store_nwarnings(res.store); i++)
		if (sw_say_first_time(r->said, sw_sym_store_warning(res.store, i)))
			fprintf(r->msgs, "stackwalk: %s\n", sw_sym_store_warning(res.store, i));
	if (wrc != SW_OK)
		status = no_report(o, r, &snap.part, status_for(wrc), walk_err.msg);
	else
		status = report(o, r, &snap, &res, status, unsupported_cpu);
	sw_pipeline_result_free(&res);
	sw_snapshot_free(&snap);
	return status;
}

/* The signature rules: the built-in ones, then each --signature-skip
 * file's. A file that cannot be read or holds a bad line is a usage
 * error (one line naming it and the line). */
static int load_signature_rules(const struct cli_options *o, struct sw_sig_rules *rules)
{
	if (!sw_sig_rules_add_defaults(rules)) {
		fputs("stackwalk: out of memory\n", stderr);
		return SW_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < o->nskip_files; i++) {
		struct sw_err err = { 0 };
		if (!sw_sig_rules_load(rules, o->skip_files[i], &err)) {
			fprintf(stderr, "stackwalk: %s (see --signature-skip in docs/signature.md)\n",
			        err.msg);
			return err.code == SW_ERR_NOMEM ? SW_EXIT_INTERNAL : SW_EXIT_USAGE;
		}
	}
	return -1;
}

/* The symbol servers of --symbols-url and --debuginfod, downloading into
 * the symbol cache's directory (--no-cache, or no cache directory: a
 * temporary one, removed at the end). -1 to go on, else the exit status
 * (a URL that is not one, a server kind this build lacks: usage). */
static int open_symbol_servers(const struct cli_options *o, struct run *r)
{
	if (!o->nsymbol_urls && !o->debuginfod && !o->nsymbol_headers)
		return -1;
	/* The library's messages name its settings by these flags. */
	static const struct sw_symbol_server_names flags = {
		.url = "--symbols-url",
		.header = "--symbols-header",
		.debuginfod = "--debuginfod",
		.timeout = "--symbols-timeout",
		.symbol_path = "SYMBOL_PATH",
	};
	struct sw_symbol_server_options so = {
		.urls = o->symbol_urls,
		.nurls = o->nsymbol_urls,
		.headers = o->symbol_headers,
		.nheaders = o->nsymbol_headers,
		.debuginfod = o->debuginfod,
		.timeout_s = o->symbols_timeout,
		.miss_ttl_s = o->miss_ttl_s,
		.names = &flags,
	};
	struct sw_err err = { 0 };
	r->servers = sw_pipeline_servers_create(&so, r->cache, &err);
	if (r->servers)
		return -1;
	fprintf(stderr, "stackwalk: %s%s\n", err.msg,
	        err.code == SW_ERR_USAGE ? " (see stackwalk --help)" : "");
	return err.code == SW_ERR_USAGE ? SW_EXIT_USAGE : SW_EXIT_INTERNAL;
}

/* A batch's walk of one input (cmd/batch.h): the run's options and
 * shared state with this input's path, lines and messages. */
struct batch_walk {
	const struct cli_options *o;
	struct run *r;             /* its sink is the batch's; workers copy the rest */
};

static int run_input(const struct cli_options *o, struct run *r);

static int walk_batch_input(void *ctx, const char *path, bool in_folder, FILE *out, FILE *msgs)
{
	const struct batch_walk *bw = ctx;
	struct cli_options o = *bw->o;
	o.snapshot = path;
	o.skip_non_snapshot = in_folder;
	/* The rules, cache and servers are read (or locked) by every thread;
	 * the sinks are this input's (the batch's own is the main thread's,
	 * which writes its flags meanwhile: not copied). */
	struct run r = {
		.out = { .f = out },
		.rules = bw->r->rules,
		.servers = bw->r->servers,
		.cache = bw->r->cache,
		.said = bw->r->said,
		.msgs = msgs,
	};
	return run_input(&o, &r);
}

/* After each input of a batch: has stdout's reader gone, or did a write
 * fail (status 4, said)? write_errno: a write of the lines that failed. */
static bool batch_out_ok(void *ctx, int write_errno, int *status)
{
	struct batch_walk *bw = ctx;
	struct sink *k = &bw->r->out;
	if (write_errno)
		sink_write_failed(k, write_errno);
	if (!sink_check(k)) {
		*status = SW_EXIT_INTERNAL;
		return false;
	}
	return !k->reader_gone;
}

/* --batch: every input's lines to r's sink, in order (cmd/batch.c). */
static int run_batch(const struct cli_options *o, struct run *r)
{
	warn_missing_symbol_paths(o, stderr);
	struct said_once said = { .lock = PTHREAD_MUTEX_INITIALIZER };
	r->said = &said;
	struct batch_walk bw = { .o = o, .r = r };
	struct sw_batch b = {
		.inputs = o->inputs,
		.ninputs = o->ninputs,
		.null_separated = o->null_separated,
		.jobs = o->jobs,
		.walk = walk_batch_input,
		.ctx = &bw,
		.out = r->out.f,
		.out_ok = batch_out_ok,
	};
	int status = sw_batch_run(&b);
	r->said = NULL;
	free(said.slots);
	return status;
}

/* Runs every snapshot of the input into r's sinks; the worst status. */
static int run_input(const struct cli_options *o, struct run *r)
{
	/* SNAPSHOT "-" (a single run's; a batch's "-" lists paths): standard
	 * input is read once, for every microdump it may hold, and named
	 * "standard input" in messages. */
	struct cli_options with_stdin;
	struct sw_input in = { .fd = -1 };
	if (!o->batch && strcmp(o->snapshot, "-") == 0) {
		struct sw_err err = { 0 };
		enum sw_err_code rc = sw_input_stdin(o->max_decompressed, &in, &err);
		if (rc != SW_OK)
			return no_report(o, r, NULL, status_for(rc), err.msg);
		with_stdin = *o;
		with_stdin.snapshot = SW_INPUT_STDIN_NAME;
		with_stdin.input = &in;
		o = &with_stdin;
	}
	/* Each microdump of a log in turn; the worst status counts. A reader
	 * that stopped reading stdout ends the run quietly. */
	struct sw_part part, next;
	bool more;
	int status = walk_snapshot(o, r, NULL, &next, &more);
	while (more && !(r->out.reader_gone && !r->cyborg.f)) {
		part = next;
		status = sw_worse_status(status, walk_snapshot(o, r, &part, &next, &more));
	}
	sw_input_close(&in);
	return status;
}

/* --symbols-cache-max: the cache kept to its size after a run that added
 * to it (sw_pipeline_prune_cache). started: when the run began. */
static void prune_cache(const struct cli_options *o, const struct run *r, time_t started)
{
	if (!sw_pipeline_prune_cache(r->cache, r->servers, o->cache_max, started))
		fprintf(stderr, "stackwalk: %s: out of memory while pruning the symbol cache\n",
		        sw_sym_cache_dir(r->cache));
}

/* The soft limit of open files raised to the hard one (at most 65,536): a
 * cold walk of a process with hundreds of modules keeps, for each index
 * waiting to be written, its source and its lock file open (besides the
 * mapped modules, at most 256), and the usual soft limit of 1,024 would
 * then refuse a symbol file. Nothing here uses select(2), which fds past
 * 1,024 would break. */
static void raise_open_file_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = want;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int main(int argc, char **argv)
{
	/* A temporary file past the file size limit (ulimit -f: a compressed
	 * snapshot's, a .snap written) is a write error (EFBIG) naming the
	 * file, not a death by SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
	/* A subcommand: a SNAPSHOT named "convert" is given as ./convert. */
	if (argc > 1 && strcmp(argv[1], "convert") == 0)
		return sw_convert_main(argc - 1, argv + 1);
	/* A closed pipe is a write error (EPIPE) to handle, not a death:
	 * `stackwalk big.dmp | head` ends quietly (sink_check). */
	signal(SIGPIPE, SIG_IGN);
	/* Large buffers (inflated symbol files, record arrays) mapped and
	 * unmapped on their own, at a fixed threshold: glibc raises its
	 * threshold after each large free, and later large buffers then come
	 * from heaps that keep what is freed (cold walks: 0.9 MB more peak RSS
	 * for gen48k_depth500, 1.7 MB for rustc_abrt, at no measured time
	 * cost). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	raise_open_file_limit();
	struct cli_options o;
	struct run r;
	memset(&r, 0, sizeof r);
	r.msgs = stderr;
	sw_sig_rules_init(&r.rules);
	int status = sw_cli_parse_args(argc, argv, &o);
	if (status < 0)
		status = load_signature_rules(&o, &r.rules);
	if (status < 0) {
		/* The symbol index cache (docs/symbol-cache.md), where servers
		 * download to as well; without HOME or a --symbols-cache there is
		 * none, silently. */
		struct sw_err cache_err = { 0 };
		r.cache = o.no_cache ? NULL : sw_sym_cache_create(o.cache_dir, &cache_err);
		status = open_symbol_servers(&o, &r);
	}
	if (status < 0) {
		if (!sink_open(&r.out, o.output_file) ||
		    (o.cyborg_file && !sink_open(&r.cyborg, o.cyborg_file))) {
			status = SW_EXIT_INTERNAL;
			sink_close(&r.out, false);
		} else {
			time_t started = time(NULL);
			status = o.batch ? run_batch(&o, &r) : run_input(&o, &r);
			prune_cache(&o, &r, started);
			/* A file is kept when it holds a report: walked, even if
			 * damaged; not after an unreadable input or a failure. */
			bool keep = status == SW_EXIT_WALKED || status == SW_EXIT_DAMAGED ||
			            status == SW_EXIT_NO_SYMBOLS;
			if (!sink_close(&r.out, keep))
				status = SW_EXIT_INTERNAL;
			if (!sink_close(&r.cyborg, keep))
				status = SW_EXIT_INTERNAL;
		}
	}
	sw_sig_rules_free(&r.rules);
	sw_symbol_server_free(r.servers);
	sw_sym_cache_free(r.cache);
	sw_cli_options_free(&o);
	return status;
}
