/* stackwalk's command line read into struct cli_options (args.h): each
 * option checked as it comes, then the combinations. */
#include "args.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "symbols/cache_prune.h"
#include "symbols/symbol_server.h"

static void usage(FILE *f)
{
	/* "  or:" is how help2man (the man page, docs/meson.build) knows
	 * another usage line. */
	fputs("Usage: stackwalk [OPTIONS] SNAPSHOT [SYMBOL_PATH...]\n"
	      "  or:  stackwalk --batch [--jobs=N] [OPTIONS] INPUT... [--symbols-path=PATH...]\n"
	      "  or:  stackwalk convert [--all-threads] IN OUT.snap [SYMBOL_PATH...]\n"
	      "\n"
	      "Walks the stack of every thread in SNAPSHOT (a minidump, an ELF core file, an\n"
	      "ESP-IDF core dump as base64 text or flash image, a microdump log, an offline\n"
	      "capture folder, or a device's .snap file) and prints each frame's function,\n"
	      "source line and how it was found. A SNAPSHOT compressed with gzip, xz, zstd\n"
	      "or lz4 (systemd-coredump's core.*.zst) is read as it is; '-' reads it from\n"
	      "standard input.\n"
	      "\n"
	      "SYMBOL_PATH is a directory holding Breakpad symbols (NAME/DEBUG_ID/NAME.sym,\n"
	      ".sym.gz also read) or ELF files (by .build-id/xx/rest[.debug], by NAME,\n"
	      "NAME.debug or NAME/BUILD_ID/NAME), a single .sym/.sym.gz file, or a single\n"
	      "ELF file (binary or debug file; an ESP-IDF core dump's firmware ELF).\n"
	      "Files are used only for the build they describe (debug id, build-id,\n"
	      "debuglink CRC, the firmware's SHA-256).\n"
	      "\n"
	      "--batch walks many snapshots in one process: each INPUT is a SNAPSHOT, a\n"
	      "folder (its files, by name; not its subfolders) or '-' (paths on stdin, one\n"
	      "per line, walked as they come). It prints one JSON line per snapshot, in\n"
	      "input order: --json's document with \"file\" first, or {\"file\", \"status\":\n"
	      "\"ERROR_UNREADABLE\", \"error\"}; a file of a folder that is no snapshot is\n"
	      "{\"file\", \"status\": \"SKIPPED\", \"reason\"}, no failure. Symbol paths are\n"
	      "given only as --symbols-path (docs/batch.md).\n"
	      "\n"
	      "Options:\n"
	      "  --json            one JSON document (rust-minidump's schema) on stdout\n"
	      "  --pretty          indent the JSON\n"
	      "  --machine, -m     Breakpad's pipe-delimited format\n"
	      "  --brief, -c       walk and print only the crashing thread (else the\n"
	      "                    thread that requested the dump, else the first)\n"
	      "  --registers=WHICH  whose registers the report shows: all (the default;\n"
	      "                    every frame's in the text, the crashing thread's first\n"
	      "                    frame's in the JSON), crashing (the crashing thread's\n"
	      "                    frames only) or none\n"
	      "  --output-file=FILE  write the report to FILE instead of stdout: a regular\n"
	      "                    file complete or not at all (written beside it, then\n"
	      "                    renamed); a device or FIFO through, in place; a\n"
	      "                    symbolic link followed; a directory refused\n"
	      "  --cyborg=FILE     also write the JSON report to FILE (text on stdout)\n"
	      "  --require-symbols  exit 5 when a module the crash signature is made\n"
	      "                    of has no symbols\n"
	      "  --signature-skip=FILE  more crash-signature rules (docs/signature.md):\n"
	      "                    'irrelevant GLOB', 'prefix GLOB', 'keep GLOB', 'reset'\n"
	      "  --max-frames=N    stop each thread's walk after N frames (default 1048576)\n"
	      "  --no-scan         never guess frames by stack scanning\n"
	      "  --explain         say under each frame why it is there: the method\n"
	      "                    that found it, what it read, the methods refused\n"
	      "                    before it (text: Evidence lines; JSON: evidence)\n"
	      "  --local-modules   also read each module's ELF file at its own path on\n"
	      "                    this machine (when the same build is installed here);\n"
	      "                    the default for an ELF core\n"
	      "  --no-local-modules  never read the files at the snapshot's paths\n"
	      "  --debug-dir=DIR   look for ELF debug files in DIR by build-id and\n"
	      "                    debuglink, as gdb's debug-file-directory; may be given\n"
	      "                    several times; replaces the default /usr/lib/debug\n"
	      "                    (--debug-dir= : none)\n"
	      "  --symbols-cache=DIR  keep an index of each .sym/.sym.gz read in DIR\n"
	      "                    (default $XDG_CACHE_HOME/stackwalk, else\n"
	      "                    $HOME/.cache/stackwalk); docs/symbol-cache.md\n"
	      "  --symbols-cache-max=SIZE  after a run that added to the symbol cache,\n"
	      "                    remove the least recently used files until it holds\n"
	      "                    at most SIZE (default 4G; K, M, G, T; 0: no limit)\n"
	      "  --no-cache        neither read nor write symbol indexes\n"
	      "  --symbols-url=URL  fetch symbols a SYMBOL_PATH lacks from a symbol\n"
	      "                    server (URL/NAME/DEBUG_ID/NAME.sym[.gz],\n"
	      "                    URL/NAME/BUILD_ID/NAME) into the symbol cache; may be\n"
	      "                    given several times, tried in order;\n"
	      "                    docs/symbol-servers.md\n"
	      "  --symbols-header='NAME: VALUE'  send this request header to the\n"
	      "                    --symbols-url servers (a private server's token), and\n"
	      "                    only to them; @FILE: one header per line of FILE\n"
	      "  --symbols-timeout=SECONDS  time limit of each download (default 30)\n"
	      "  --symbols-miss-ttl=SECONDS  how long a module a server does not have is\n"
	      "                    not asked for again (default 3600; 0: always asked)\n"
	      "  --debuginfod      fetch ELF modules' files by build-id from the debuginfod\n"
	      "                    servers DEBUGINFOD_URLS names\n"
	      "  --max-decompressed=SIZE  the most a compressed SNAPSHOT (gzip, xz, zstd,\n"
	      "                    lz4) or standard input may decompress to, in a\n"
	      "                    temporary file under $TMPDIR (default 32G; K, M, G, T:\n"
	      "                    KiB, MiB, GiB, TiB)\n"
	      "  --maps=FILE       the crashed process's /proc/PID/maps: the module list of\n"
	      "                    an ELF core that has none (no NT_FILE: qemu-user cores);\n"
	      "                    without it such a core's modules are found through the\n"
	      "                    dynamic loader, the executable and libraries being\n"
	      "                    looked for in the SYMBOL_PATHs when the core lacks them\n"
	      "  --batch           many snapshots, one JSON line each (see above)\n"
	      "  --null, -0        with --batch: the paths on stdin end with a NUL byte,\n"
	      "                    not a newline (find -print0)\n"
	      "  --jobs=N          walk on N threads (default: one per online CPU, at\n"
	      "                    most 8; 1: one after the other): a snapshot's threads\n"
	      "                    at once, or with --batch its snapshots; the output is\n"
	      "                    the same\n"
	      "  --symbols-path=PATH  a SYMBOL_PATH; may be given several times (after the\n"
	      "                    positional ones; with --batch the only way to give one)\n"
	      "  --help, -h        this text\n"
	      "  --version, -V     the version\n"
	      "\n"
	      "Options may come before or after SNAPSHOT; '--' ends them. --json and\n"
	      "--machine exclude each other, and --json excludes --cyborg; --pretty\n"
	      "needs --json or --cyborg.\n"
	      "\n"
	      "Exit status: 0 walked; 1 walked a damaged input (what was intact is\n"
	      "printed, stderr says what was not); 2 usage error; 3 input unreadable;\n"
	      "4 internal failure (or cannot write the output); 5 --require-symbols\n"
	      "and the crash's modules lack symbols. A reader that stops reading\n"
	      "(stackwalk ... | head) is no error. --batch: 0 every snapshot walked (or\n"
	      "skipped: no snapshot, in a folder); 1 one was damaged or unreadable (its\n"
	      "line says which); 2, 4, 5 as above.\n",
	      f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("stackwalk: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see stackwalk --help)\n", stderr);
	return SW_EXIT_USAGE;
}

/* One --symbols-header line, checked: -1, else the exit status (a usage
 * error said). */
static int add_header(struct cli_options *o, const char *h)
{
	const char *why = sw_symbol_server_header_problem(h);
	if (why) {
		char name[64];
		sw_symbol_server_header_name(h, name, sizeof name);
		fprintf(stderr, "stackwalk: --symbols-header '%s': %s (see stackwalk --help)\n", name,
		        why);
		return SW_EXIT_USAGE;
	}
	const char **v = realloc(o->symbol_headers, (o->nsymbol_headers + 1) * sizeof *v);
	if (!v) {
		fputs("stackwalk: out of memory\n", stderr);
		return SW_EXIT_INTERNAL;
	}
	o->symbol_headers = v;
	v[o->nsymbol_headers++] = h;
	return -1;
}

/* --symbols-header @FILE: each line of FILE a header (empty lines and
 * '#' comments skipped), so that a token is in no process list or shell
 * history. At most 64 KiB. */
static int add_header_file(struct cli_options *o, const char *path)
{
	enum { MAX_HEADER_FILE = 64 * 1024 };
	FILE *f = fopen(path, "r");
	char *text = f ? malloc(MAX_HEADER_FILE + 1) : NULL;
	size_t n = text ? fread(text, 1, MAX_HEADER_FILE + 1, f) : 0;
	bool bad = !f || !text || ferror(f);
	int err = errno;
	if (f)
		fclose(f);
	if (bad || n > MAX_HEADER_FILE) {
		free(text);
		if (!f || bad)
			fprintf(stderr, "stackwalk: --symbols-header @%s: cannot read: %s\n", path,
			        strerror(err));
		else
			fprintf(stderr, "stackwalk: --symbols-header @%s: larger than %d bytes\n", path,
			        MAX_HEADER_FILE);
		return SW_EXIT_USAGE;
	}
	char **texts = realloc(o->header_texts, (o->nheader_texts + 1) * sizeof *texts);
	if (!texts) {
		free(text);
		fputs("stackwalk: out of memory\n", stderr);
		return SW_EXIT_INTERNAL;
	}
	o->header_texts = texts;
	texts[o->nheader_texts++] = text;
	text[n] = '\0';
	for (char *line = text, *next; line < text + n; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + n - line));
		next = nl ? nl + 1 : text + n;
		char *end = nl ? nl : text + n;
		if (end > line && end[-1] == '\r')
			end--;
		*end = '\0';
		if (*line == '\0' || *line == '#')
			continue;
		int rc = add_header(o, line);
		if (rc >= 0)
			return rc;
	}
	return -1;
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
		return SW_EXIT_USAGE;
	}
	for (const struct option *lo = longopts; lo->name; lo++)
		if (opt == lo->val && lo->has_arg == no_argument) {
			fprintf(stderr, "stackwalk: option '--%s' takes no value (see stackwalk --help)\n",
			        lo->name);
			return SW_EXIT_USAGE;
		}
	fprintf(stderr, "stackwalk: unknown option '-%c' (see stackwalk --help)\n", opt);
	return SW_EXIT_USAGE;
}

/* A size: digits, then K, M, G or T (powers of 1024, as in 32G; a
 * trailing "iB" or "B" is allowed), at least 1 byte. False for anything
 * else or an overflow. */
static bool parse_size(const char *arg, uint64_t *out)
{
	char *end;
	errno = 0;
	if (arg[0] < '0' || arg[0] > '9')
		return false;
	unsigned long long n = strtoull(arg, &end, 10);
	if (errno || n == 0)
		return false;
	static const char units[] = "KMGT";
	const char *u = *end ? strchr(units, *end & ~0x20) : NULL;
	unsigned shift = u ? 10 * (unsigned)(u - units + 1) : 0;
	if (u)
		end++;
	if (u && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
		end += strlen(end);
	if (*end || (shift && n > UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)n << shift;
	return true;
}

/* --registers=WHICH: whose register lines a report prints. */
static bool parse_registers(const char *arg, enum sw_output_registers *out)
{
	static const char *const names[] = { [SW_REGISTERS_ALL] = "all",
		                             [SW_REGISTERS_CRASHING] = "crashing",
		                             [SW_REGISTERS_NONE] = "none" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(arg, names[i]) == 0) {
			*out = (enum sw_output_registers)i;
			return true;
		}
	return false;
}

/* --batch: what a batch takes of the options, after the checks of
 * parse_args. Every positional word is an input; symbol paths are given
 * only as --symbols-path, so no path can be taken for the other kind.
 * --json is implied: a batch's lines are --json's documents. */
static int batch_args(struct cli_options *o, size_t npos)
{
	if (o->format == SW_OUTPUT_MACHINE)
		return usage_error("%s", "--batch prints JSON lines: --machine does not apply");
	if (o->pretty)
		return usage_error("%s", "--batch prints one JSON document per line: --pretty does not apply");
	if (o->cyborg_file)
		return usage_error("%s", "--batch prints JSON lines: --cyborg does not apply");
	if (o->maps_file)
		return usage_error("%s", "--maps names one core's modules: it does not apply to --batch");
	if (npos == 0)
		return usage_error("%s", "--batch: no SNAPSHOT, folder or '-' given");
	/* Asked for and not given, a NUL-separated list would be read as one
	 * path. */
	bool reads_stdin = false;
	for (size_t i = 0; i < npos; i++)
		reads_stdin |= strcmp(o->positional[i], "-") == 0;
	if (o->null_separated && !reads_stdin)
		return usage_error("%s", "--null says how '-' lists paths on stdin: no '-' given");
	o->format = SW_OUTPUT_JSON;
	o->inputs = o->positional;
	o->ninputs = npos;
	o->symbol_paths = o->symbols_opt;
	o->nsymbol_paths = o->nsymbols_opt;
	return -1;
}

/* The longest --symbols-miss-ttl: 30 days. A symbol uploaded later than
 * that is not found for a month, which no one would want. */
enum { MAX_MISS_TTL = 30 * 24 * 3600 };

/* Returns -1 to go on, else the exit status; o->positional is to be freed
 * either way. Options are read left to right, before or after SNAPSHOT
 * (GNU style), until "--"; --help and --version answer at once. */
int sw_cli_parse_args(int argc, char **argv, struct cli_options *o)
{
	enum {
		OPT_JSON = 256, OPT_PRETTY, OPT_MAX_FRAMES, OPT_NO_SCAN, OPT_LOCAL_MODULES, OPT_MAPS,
		OPT_NO_LOCAL_MODULES, OPT_DEBUG_DIR,
		OPT_OUTPUT_FILE, OPT_CYBORG, OPT_REQUIRE_SYMBOLS, OPT_SIGNATURE_SKIP,
		OPT_SYMBOLS_CACHE, OPT_NO_CACHE, OPT_SYMBOLS_URL, OPT_SYMBOLS_TIMEOUT, OPT_DEBUGINFOD,
		OPT_BATCH, OPT_JOBS, OPT_SYMBOLS_PATH, OPT_SYMBOLS_HEADER, OPT_MAX_DECOMPRESSED,
		OPT_REGISTERS, OPT_SYMBOLS_CACHE_MAX, OPT_SYMBOLS_MISS_TTL, OPT_EXPLAIN,
	};
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "machine", no_argument, NULL, 'm' },
		{ "brief", no_argument, NULL, 'c' },
		{ "registers", required_argument, NULL, OPT_REGISTERS },
		{ "output-file", required_argument, NULL, OPT_OUTPUT_FILE },
		{ "cyborg", required_argument, NULL, OPT_CYBORG },
		{ "require-symbols", no_argument, NULL, OPT_REQUIRE_SYMBOLS },
		{ "signature-skip", required_argument, NULL, OPT_SIGNATURE_SKIP },
		{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
		{ "no-scan", no_argument, NULL, OPT_NO_SCAN },
		{ "explain", no_argument, NULL, OPT_EXPLAIN },
		{ "local-modules", no_argument, NULL, OPT_LOCAL_MODULES },
		{ "no-local-modules", no_argument, NULL, OPT_NO_LOCAL_MODULES },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "symbols-cache", required_argument, NULL, OPT_SYMBOLS_CACHE },
		{ "symbols-cache-max", required_argument, NULL, OPT_SYMBOLS_CACHE_MAX },
		{ "symbols-miss-ttl", required_argument, NULL, OPT_SYMBOLS_MISS_TTL },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "symbols-url", required_argument, NULL, OPT_SYMBOLS_URL },
		{ "symbols-timeout", required_argument, NULL, OPT_SYMBOLS_TIMEOUT },
		{ "symbols-header", required_argument, NULL, OPT_SYMBOLS_HEADER },
		{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
		{ "maps", required_argument, NULL, OPT_MAPS },
		{ "max-decompressed", required_argument, NULL, OPT_MAX_DECOMPRESSED },
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "null", no_argument, NULL, '0' },
		{ "symbols-path", required_argument, NULL, OPT_SYMBOLS_PATH },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	/* Positional arguments are at most argc - 1 of the words (+1: argc
	 * may be 0 when a program execs us without argv[0]). */
	o->positional = calloc((size_t)argc + 1, sizeof *o->positional);
	o->skip_files = calloc((size_t)argc + 1, sizeof *o->skip_files);
	o->symbols_opt = calloc((size_t)argc + 1, sizeof *o->symbols_opt);
	o->symbol_urls = calloc((size_t)argc + 1, sizeof *o->symbol_urls);
	o->debug_dirs = calloc((size_t)argc + 1, sizeof *o->debug_dirs);
	o->local_modules = -1;
	o->cache_max = SW_CACHE_MAX_DEFAULT;
	if (!o->positional || !o->skip_files || !o->symbol_urls || !o->symbols_opt ||
	    !o->debug_dirs) {
		fputs("stackwalk: out of memory\n", stderr);
		return SW_EXIT_INTERNAL;
	}
	size_t npos = 0;
	bool json = false, machine = false;
	opterr = 0;
	/* '-' first: each positional argument comes back in turn (as 1), so
	 * an option after SNAPSHOT is still an option, whatever
	 * POSIXLY_CORRECT says. ':' next: a missing value is ':', told apart
	 * from an unknown option ('?'). */
	int c;
	while ((c = getopt_long(argc, argv, "-:mchV0", longopts, NULL)) != -1) {
		switch (c) {
		case 1: o->positional[npos++] = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_PRETTY: o->pretty = true; break;
		case 'm': machine = true; break;
		case 'c': o->brief = true; break;
		case OPT_REGISTERS:
			if (!parse_registers(optarg, &o->registers))
				return usage_error("--registers wants all, crashing or none, not '%s'", optarg);
			break;
		case OPT_OUTPUT_FILE: o->output_file = optarg; break;
		case OPT_CYBORG: o->cyborg_file = optarg; break;
		case OPT_REQUIRE_SYMBOLS: o->require_symbols = true; break;
		case OPT_SIGNATURE_SKIP: o->skip_files[o->nskip_files++] = optarg; break;
		case OPT_NO_SCAN: o->walk.no_scan = true; break;
		case OPT_EXPLAIN: o->walk.explain = true; break;
		case OPT_LOCAL_MODULES: o->local_modules = 1; break;
		case OPT_NO_LOCAL_MODULES: o->local_modules = 0; break;
		case OPT_DEBUG_DIR:
			o->debug_dirs_given = true;
			if (*optarg)
				o->debug_dirs[o->ndebug_dirs++] = optarg;
			break;
		case OPT_SYMBOLS_CACHE: o->cache_dir = optarg; break;
		case OPT_NO_CACHE: o->no_cache = true; break;
		case OPT_SYMBOLS_CACHE_MAX:
			/* 0: no cap (parse_size takes no 0: a snapshot limit of 0
			 * bytes means nothing). */
			if (strcmp(optarg, "0") == 0)
				o->cache_max = 0;
			else if (!parse_size(optarg, &o->cache_max))
				return usage_error("--symbols-cache-max wants a size such as 500M or 4G "
				                   "(K, M, G, T: powers of 1024; 0: no limit), not '%s'",
				                   optarg);
			break;
		case OPT_SYMBOLS_MISS_TTL: {
			char *end;
			errno = 0;
			unsigned long n = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' || n > MAX_MISS_TTL)
				return usage_error("--symbols-miss-ttl wants a number of seconds from 0 to "
				                   "2592000 (30 days), not '%s'", optarg);
			o->miss_ttl_s = n ? (long)n : -1;
			break;
		}
		case OPT_SYMBOLS_URL: o->symbol_urls[o->nsymbol_urls++] = optarg; break;
		case OPT_SYMBOLS_HEADER: {
			int rc = optarg[0] == '@' ? add_header_file(o, optarg + 1) : add_header(o, optarg);
			if (rc >= 0)
				return rc;
			break;
		}
		case OPT_DEBUGINFOD: o->debuginfod = true; break;
		case OPT_SYMBOLS_TIMEOUT: {
			char *end;
			errno = 0;
			unsigned long n = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || n == 0 || n > 3600)
				return usage_error("--symbols-timeout wants a number of seconds from 1 to 3600, "
				                   "not '%s'", optarg);
			o->symbols_timeout = (unsigned)n;
			break;
		}
		case OPT_MAPS: o->maps_file = optarg; break;
		case OPT_MAX_DECOMPRESSED:
			if (!parse_size(optarg, &o->max_decompressed))
				return usage_error("--max-decompressed wants a size such as 500M or 64G "
				                   "(K, M, G, T: powers of 1024), not '%s'", optarg);
			break;
		case OPT_BATCH: o->batch = true; break;
		case '0': o->null_separated = true; break;
		case OPT_SYMBOLS_PATH: o->symbols_opt[o->nsymbols_opt++] = optarg; break;
		case OPT_JOBS: {
			char *end;
			errno = 0;
			unsigned long n = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' || n == 0 || n > 1024)
				return usage_error("--jobs wants a number from 1 to 1024, not '%s'", optarg);
			o->jobs = (unsigned)n;
			break;
		}
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
		case 'h': usage(stdout); return SW_EXIT_WALKED;
		case 'V': printf("stackwalk %s\n", SW_VERSION); return SW_EXIT_WALKED;
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
	o->format = json ? SW_OUTPUT_JSON : machine ? SW_OUTPUT_MACHINE : SW_OUTPUT_TEXT;
	/* --cyborg is "text and JSON": with --json the same JSON twice. */
	if (json && o->cyborg_file)
		return usage_error("%s", "--cyborg writes the JSON to its FILE: give --json or --cyborg");
	/* A batch's own refusal of --pretty (batch_args) says why: its lines
	 * are JSON, one document each. */
	if (o->pretty && !json && !o->cyborg_file && !o->batch)
		return usage_error("%s", "--pretty only applies to --json (or --cyborg's JSON)");
	if (o->output_file && o->cyborg_file && strcmp(o->output_file, o->cyborg_file) == 0)
		return usage_error("--output-file and --cyborg name the same file '%s'", o->output_file);
	if ((o->output_file && !*o->output_file) || (o->cyborg_file && !*o->cyborg_file))
		return usage_error("%s", "an empty FILE name for --output-file or --cyborg");
	if (o->batch)
		return batch_args(o, npos);
	if (o->null_separated)
		return usage_error("%s", "--null applies to --batch's list of paths on stdin");
	if (npos == 0)
		return usage_error("%s", "no SNAPSHOT given");
	/* The --symbols-path ones after the positional ones: npos +
	 * nsymbols_opt words at most fill the argc + 1 slots. */
	for (size_t i = 0; i < o->nsymbols_opt; i++)
		o->positional[npos + i] = o->symbols_opt[i];
	o->snapshot = o->positional[0];
	o->symbol_paths = &o->positional[1];
	o->nsymbol_paths = npos - 1 + o->nsymbols_opt;
	/* Standard input holds one thing, the snapshot: "-" among the symbol
	 * paths would be read as a file named "-" (missing) by surprise. */
	for (size_t i = 0; i < o->nsymbol_paths; i++)
		if (strcmp(o->symbol_paths[i], "-") == 0)
			return usage_error("%s", "'-' (standard input) can only be the SNAPSHOT, not a "
			                   "symbol path");
	return -1;
}

void sw_cli_options_free(struct cli_options *o)
{
	free(o->skip_files);
	free(o->symbol_urls);
	free(o->debug_dirs);
	free(o->symbol_headers);
	for (size_t i = 0; i < o->nheader_texts; i++)
		free(o->header_texts[i]);
	free(o->header_texts);
	free(o->positional);
	free(o->symbols_opt);
}
