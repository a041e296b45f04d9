/* stackwalk's command line: what it asks for, read from argv (GNU
 * style: options before or after SNAPSHOT, until "--"), and its --help. */
#ifndef SW_CMD_ARGS_H
#define SW_CMD_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/output.h"
#include "lib/walker.h"

struct sw_input; /* formats/input.h: standard input, read once */

struct cli_options {
	enum sw_output_format format;
	bool pretty;
	bool brief;                /* --brief, -c: the crashing thread only */
	enum sw_output_registers registers; /* --registers=all|crashing|none */
	bool require_symbols;      /* --require-symbols: exit 5 (see above) */
	struct sw_walk_options walk;
	const char *snapshot;
	const char *const *symbol_paths;
	size_t nsymbol_paths;
	int local_modules;         /* --[no-]local-modules: 1, 0; -1 the default */
	/* --debug-dir DIRs, in the order given (malloc'd: free); none given:
	 * the default (symbols/store.h). */
	const char **debug_dirs;
	size_t ndebug_dirs;
	bool debug_dirs_given;
	const char *cache_dir;     /* --symbols-cache DIR, or NULL: the default */
	bool no_cache;             /* --no-cache */
	/* --symbols-cache-max SIZE: the cache pruned to it after a run that
	 * added to it; 0: never pruned. */
	uint64_t cache_max;
	/* --symbols-miss-ttl SECONDS: 0 the default, -1 misses not kept. */
	long miss_ttl_s;
	/* --symbols-url URLs, in the order given (malloc'd: free). */
	const char **symbol_urls;
	size_t nsymbol_urls;
	/* --symbols-header lines, those of @FILEs included (malloc'd: free;
	 * the lines of a file point into its text, kept in header_texts). */
	const char **symbol_headers;
	size_t nsymbol_headers;
	char **header_texts;
	size_t nheader_texts;
	unsigned symbols_timeout;  /* --symbols-timeout SECONDS; 0: the default */
	bool debuginfod;           /* --debuginfod */
	const char *maps_file;     /* --maps FILE, or NULL */
	/* --max-decompressed SIZE: what a compressed snapshot (or stdin) may
	 * decompress to; 0: SW_INPUT_MAX_DEFAULT. */
	uint64_t max_decompressed;
	/* SNAPSHOT "-": standard input, decompressed or copied once for all
	 * its microdumps (run_input); NULL: the file SNAPSHOT names. */
	const struct sw_input *input;
	const char *output_file;   /* --output-file FILE, or NULL: stdout */
	const char *cyborg_file;   /* --cyborg FILE: the JSON goes there too */
	/* --signature-skip FILEs, in the order given (malloc'd: free). */
	const char **skip_files;
	size_t nskip_files;
	/* SNAPSHOT and the symbol paths, in the order given, then the
	 * --symbols-path ones (malloc'd: free). */
	const char **positional;
	/* --batch: positional holds the inputs (SNAPSHOTs, folders, "-"),
	 * symbol paths come only from --symbols-path (docs/batch.md). */
	bool batch;
	bool null_separated;       /* --null, -0: stdin's paths end with NUL bytes */
	/* A batch's file found in a folder: if it is no snapshot, it is
	 * skipped, not an error (docs/batch.md). */
	bool skip_non_snapshot;
	unsigned jobs;             /* --jobs N; 0: one per online CPU */
	const char *const *inputs;
	size_t ninputs;
	/* --symbols-path PATHs, in the order given (malloc'd: free). */
	const char **symbols_opt;
	size_t nsymbols_opt;
};

/* Reads argv into *o. Returns -1 to go on, else the exit status (a usage
 * error said on stderr; --help and --version answered on stdout); *o is
 * to be freed with sw_cli_options_free either way. */
int sw_cli_parse_args(int argc, char **argv, struct cli_options *o);
void sw_cli_options_free(struct cli_options *o);

#endif
