/* stackwalk: the command line. Parses arguments, reads the snapshot, loads
 * symbols on demand, walks every thread and prints one of three formats.
 * Exit statuses (docs/cli.md):
 *   0  walked
 *   1  walked, but the input was damaged: what was intact is printed and
 *      stderr names the problem
 *   2  usage error
 *   3  input unreadable: cannot open it, or not a snapshot we know
 *   4  internal failure (out of memory) */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arch/registry.h"
#include "convert.h"
#include "formats/open.h"
#include "lib/output.h"
#include "lib/walker.h"
#include "symbols/store.h"

enum exit_status {
	EXIT_WALKED = 0,
	EXIT_DAMAGED = 1,
	EXIT_USAGE = 2,
	EXIT_UNREADABLE = 3,
	EXIT_INTERNAL = 4,
};

enum output_format { OUT_TEXT, OUT_JSON, OUT_MACHINE };

struct options {
	enum output_format format;
	bool pretty;
	struct sw_walk_options walk;
	const char *snapshot;
	const char *const *symbol_paths;
	size_t nsymbol_paths;
	bool local_modules;
	const char *maps_file;     /* --maps FILE, or NULL */
	/* SNAPSHOT and the symbol paths, in the order given (malloc'd: free). */
	const char **positional;
};

static void usage(FILE *f)
{
	fputs("Usage: stackwalk [OPTIONS] SNAPSHOT [SYMBOL_PATH...]\n"
	      "       stackwalk convert [--all-threads] IN OUT.snap [SYMBOL_PATH...]\n"
	      "\n"
	      "Walks the stack of every thread in SNAPSHOT (a minidump, an ELF core file, an\n"
	      "ESP-IDF core dump as base64 text or flash image, a microdump log, an offline\n"
	      "capture folder, or a device's .snap file) and prints each frame's function,\n"
	      "source line and how it was found.\n"
	      "\n"
	      "SYMBOL_PATH is a directory holding Breakpad symbols (NAME/DEBUG_ID/NAME.sym,\n"
	      ".sym.gz also read) or ELF files (by .build-id/xx/rest[.debug], by NAME,\n"
	      "NAME.debug or NAME/BUILD_ID/NAME), a single .sym/.sym.gz file, or a single\n"
	      "ELF file (binary or debug file; an ESP-IDF core dump's firmware ELF).\n"
	      "Files are used only for the build they describe (debug id, build-id,\n"
	      "debuglink CRC, the firmware's SHA-256).\n"
	      "\n"
	      "Options:\n"
	      "  --json            one JSON document (rust-minidump's schema) on stdout\n"
	      "  --pretty          indent the JSON\n"
	      "  --machine, -m     Breakpad's pipe-delimited format\n"
	      "  --max-frames=N    stop each thread's walk after N frames (default 1048576)\n"
	      "  --no-scan         never guess frames by stack scanning\n"
	      "  --local-modules   also read each module's ELF file at its own path on\n"
	      "                    this machine (when the same build is installed here)\n"
	      "  --maps=FILE       the crashed process's /proc/PID/maps: the module list of\n"
	      "                    an ELF core that has none (no NT_FILE: qemu-user cores);\n"
	      "                    without it such a core's modules are found through the\n"
	      "                    dynamic loader, the executable and libraries being\n"
	      "                    looked for in the SYMBOL_PATHs when the core lacks them\n"
	      "  --help, -h        this text\n"
	      "  --version, -V     the version\n"
	      "\n"
	      "Options may come before or after SNAPSHOT; '--' ends them. --json and\n"
	      "--machine exclude each other; --pretty needs --json.\n"
	      "\n"
	      "Exit status: 0 walked; 1 walked a damaged input (what was intact is\n"
	      "printed, stderr says what was not); 2 usage error; 3 input unreadable;\n"
	      "4 internal failure.\n",
	      f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("stackwalk: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see stackwalk --help)\n", stderr);
	return EXIT_USAGE;
}

/* getopt's '?': an option that is not ours, a prefix of more than one of
 * ours (getopt_long takes any unique prefix: --js is --json), or a value
 * given to an option that takes none ("--json=1"). `arg` is the word it
 * was in, opt getopt's optopt. */
static int bad_option(const struct option *longopts, const char *arg, int opt)
{
	if (opt == 0 && arg[0] == '-' && arg[1] == '-') {
		size_t len = strcspn(arg + 2, "=");
		unsigned matches = 0;
		for (const struct option *lo = longopts; lo->name; lo++)
			matches += strncmp(lo->name, arg + 2, len) == 0;
		fprintf(stderr, "stackwalk: %s option '%.*s' (see stackwalk --help)\n",
		        matches > 1 ? "ambiguous" : "unknown", (int)len + 2, arg);
		return EXIT_USAGE;
	}
	for (const struct option *lo = longopts; lo->name; lo++)
		if (opt == lo->val && lo->has_arg == no_argument) {
			fprintf(stderr, "stackwalk: option '--%s' takes no value (see stackwalk --help)\n",
			        lo->name);
			return EXIT_USAGE;
		}
	fprintf(stderr, "stackwalk: unknown option '-%c' (see stackwalk --help)\n", opt);
	return EXIT_USAGE;
}

/* Returns -1 to go on, else the exit status; o->positional is to be freed
 * either way. Options are read left to right, before or after SNAPSHOT
 * (GNU style), until "--"; --help and --version answer at once. */
static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_JSON = 256, OPT_PRETTY, OPT_MAX_FRAMES, OPT_NO_SCAN, OPT_LOCAL_MODULES, OPT_MAPS };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "machine", no_argument, NULL, 'm' },
		{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
		{ "no-scan", no_argument, NULL, OPT_NO_SCAN },
		{ "local-modules", no_argument, NULL, OPT_LOCAL_MODULES },
		{ "maps", required_argument, NULL, OPT_MAPS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	/* Positional arguments are at most argc - 1 of the words (+1: argc
	 * may be 0 when a program execs us without argv[0]). */
	o->positional = calloc((size_t)argc + 1, sizeof *o->positional);
	if (!o->positional) {
		fputs("stackwalk: out of memory\n", stderr);
		return EXIT_INTERNAL;
	}
	size_t npos = 0;
	bool json = false, machine = false;
	opterr = 0;
	/* '-' first: each positional argument comes back in turn (as 1), so
	 * an option after SNAPSHOT is still an option, whatever
	 * POSIXLY_CORRECT says. ':' next: a missing value is ':', told apart
	 * from an unknown option ('?'). */
	int c;
	while ((c = getopt_long(argc, argv, "-:mhV", longopts, NULL)) != -1) {
		switch (c) {
		case 1: o->positional[npos++] = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_PRETTY: o->pretty = true; break;
		case 'm': machine = true; break;
		case OPT_NO_SCAN: o->walk.no_scan = true; break;
		case OPT_LOCAL_MODULES: o->local_modules = true; break;
		case OPT_MAPS: o->maps_file = optarg; break;
		case OPT_MAX_FRAMES: {
			/* Given twice, the last value counts (as for any GNU tool):
			 * a script may append to a command line it was handed. */
			char *end;
			errno = 0;
			unsigned long n = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || n == 0 || n > SW_DEFAULT_MAX_FRAMES)
				return usage_error("--max-frames wants a number from 1 to 1048576, not '%s'", optarg);
			o->walk.max_frames = (uint32_t)n;
			break;
		}
		case 'h': usage(stdout); return EXIT_WALKED;
		case 'V': printf("stackwalk %s\n", SW_VERSION); return EXIT_WALKED;
		case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
		default: return bad_option(longopts, argv[optind - 1], optopt);
		}
	}
	/* After "--": every word is positional, even one starting with '-'. */
	while (optind < argc)
		o->positional[npos++] = argv[optind++];

	/* Two output formats asked for: neither is "the" answer, and a script
	 * that parses one would silently get the other. */
	if (json && machine)
		return usage_error("%s", "--json and --machine are two different outputs: give one");
	o->format = json ? OUT_JSON : machine ? OUT_MACHINE : OUT_TEXT;
	if (o->pretty && !json)
		return usage_error("%s", "--pretty only applies to --json");
	if (npos == 0)
		return usage_error("%s", "no SNAPSHOT given");
	o->snapshot = o->positional[0];
	o->symbol_paths = &o->positional[1];
	o->nsymbol_paths = npos - 1;
	return -1;
}

static int status_for(enum sw_err_code code)
{
	switch (code) {
	case SW_OK: return EXIT_WALKED;
	case SW_ERR_CORRUPT: return EXIT_DAMAGED;
	case SW_ERR_USAGE: return EXIT_USAGE;
	case SW_ERR_IO:
	case SW_ERR_FORMAT:
	case SW_ERR_UNSUPPORTED: return EXIT_UNREADABLE;
	case SW_ERR_NOMEM: break;
	}
	return EXIT_INTERNAL;
}

static void print(const struct options *o, const struct sw_snapshot *snap,
                  const struct sw_arch *arch, const struct sw_walk_result *walk)
{
	switch (o->format) {
	case OUT_TEXT: sw_output_text(stdout, snap, arch, walk); break;
	case OUT_MACHINE: sw_output_machine(stdout, snap, arch, walk); break;
	case OUT_JSON: sw_output_json(stdout, snap, arch, walk, o->pretty); break;
	}
}

/* A symbol path that is not there is not an error (the walk goes on
 * without it, as with a module whose symbols are missing), but it is most
 * likely a typo: say so, once, on stderr. */
static void warn_missing_symbol_paths(const struct options *o)
{
	for (size_t i = 0; i < o->nsymbol_paths; i++) {
		struct stat st;
		if (stat(o->symbol_paths[i], &st) != 0)
			fprintf(stderr, "stackwalk: %s: symbol path ignored: %s\n", o->symbol_paths[i],
			        strerror(errno));
	}
}

/* A log with several microdumps is walked one by one: text and machine
 * output name each before its report, JSON prints one document each
 * (docs/cli.md, "Microdumps"). */
static void print_part_header(const struct options *o, const struct sw_snapshot *snap)
{
	const struct sw_part *p = &snap->part;
	if (p->count < 2)
		return;
	if (o->format == OUT_TEXT)
		printf("%sMicrodump %u of %u (line %llu)\n\n", p->index ? "\n" : "", p->index + 1,
		       p->count, (unsigned long long)p->line);
	else if (o->format == OUT_MACHINE)
		printf("Microdump|%u|%u|%llu\n", p->index + 1, p->count, (unsigned long long)p->line);
}

/* Everything after the command line for one snapshot of the input: the
 * first (part NULL), or the one part names. Returns the exit status; *more
 * says whether the input holds another, *next which. */
static int walk_snapshot(const struct options *o, const struct sw_part *part,
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
	};
	enum sw_err_code rc = part ? sw_snapshot_open_part(o->snapshot, part, &snap, &err)
	                           : sw_snapshot_open_with(o->snapshot, &open_opts, &snap, &err);
	*more = snap.has_next;
	*next = snap.next;
	if (rc != SW_OK && rc != SW_ERR_CORRUPT) {
		fprintf(stderr, "stackwalk: %s\n", err.msg);
		sw_snapshot_free(&snap);
		return status_for(rc);
	}
	int status = status_for(rc);
	if (rc == SW_ERR_CORRUPT)
		fprintf(stderr, "stackwalk: %s\n", err.msg);
	else if (snap.nproblems == 1)
		fprintf(stderr, "stackwalk: %s: %s\n", o->snapshot, snap.problems[0]);
	else if (snap.nproblems > 1)
		fprintf(stderr, "stackwalk: %s: %s (and %u more)\n", o->snapshot, snap.problems[0],
		        snap.nproblems - 1);

	if (!part) /* once per input, not per microdump */
		warn_missing_symbol_paths(o);

	const struct sw_arch *arch = sw_arch_for_cpu(snap.sys.cpu);
	if (!arch && snap.nthreads) {
		fprintf(stderr, "stackwalk: %s: CPU '%s' is not supported; threads are not walked\n",
		        o->snapshot, snap.sys.cpu_name ? snap.sys.cpu_name : "unknown");
		status = EXIT_DAMAGED; /* a report without stacks is not a walk */
	}

	struct sw_err sym_err = { 0 };
	struct sw_sym_store *store =
		sw_sym_store_create(o->symbol_paths, o->nsymbol_paths, &snap, &sym_err);
	if (!store) {
		fprintf(stderr, "stackwalk: %s\n", sym_err.msg);
		sw_snapshot_free(&snap);
		return status_for(sym_err.code ? sym_err.code : SW_ERR_NOMEM);
	}
	sw_sym_store_set_local_modules(store, o->local_modules);
	if (sym_err.code != SW_OK)
		fprintf(stderr, "stackwalk: %s\n", sym_err.msg);

	struct sw_arena walk_arena;
	sw_arena_init(&walk_arena);
	struct sw_walk_result walk;
	struct sw_walk_options walk_opt = o->walk;
	walk_opt.arch_for_cpu = sw_arch_for_cpu; /* a thread whose context names another CPU */
	bool walked = sw_walk_snapshot(&snap, arch, sw_sym_store_source(store), &walk_opt,
	                               &walk_arena, &walk);
	/* Symbol files refused while the walk loaded them (symbols/store.h). */
	for (uint32_t i = 0; i < sw_sym_store_nwarnings(store); i++)
		fprintf(stderr, "stackwalk: %s\n", sw_sym_store_warning(store, i));
	if (!walked) {
		fprintf(stderr, "stackwalk: %s: out of memory while walking\n", o->snapshot);
		status = EXIT_INTERNAL;
	} else {
		print_part_header(o, &snap);
		print(o, &snap, arch, &walk);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "stackwalk: cannot write the output: %s\n", strerror(errno));
			status = EXIT_INTERNAL;
		}
	}

	sw_arena_free(&walk_arena);
	sw_sym_store_free(store);
	sw_snapshot_free(&snap);
	return status;
}

int main(int argc, char **argv)
{
	/* A subcommand: a SNAPSHOT named "convert" is given as ./convert. */
	if (argc > 1 && strcmp(argv[1], "convert") == 0)
		return sw_convert_main(argc - 1, argv + 1);
	struct options o;
	int status = parse_args(argc, argv, &o);
	if (status < 0) {
		/* Each microdump of a log in turn; the worst status counts. */
		struct sw_part part, next;
		bool more;
		status = walk_snapshot(&o, NULL, &next, &more);
		while (more) {
			part = next;
			int s = walk_snapshot(&o, &part, &next, &more);
			status = s > status ? s : status;
		}
	}
	free(o.positional);
	return status;
}
