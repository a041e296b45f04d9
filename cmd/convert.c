/* stackwalk convert [--all-threads] IN OUT.snap [SYMBOL_PATH...]: reads IN
 * with the reader its content calls for (sw_pipeline_open) and writes what a
 * walk of it needs as a .snap (formats/snap_convert.c). Exit statuses are
 * the walk's (docs/cli.md):
 *   0  converted
 *   1  converted a damaged input: what was intact is in OUT.snap
 *   2  usage error
 *   3  IN unreadable, or its CPU has no .snap CPU id
 *   4  internal failure: out of memory, OUT.snap cannot be written */
#include "convert.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "formats/snap_convert.h"
#include "pipeline/pipeline.h"

static void convert_usage(FILE *f)
{
	fputs("Usage: stackwalk convert [--all-threads] IN OUT.snap [SYMBOL_PATH...]\n"
	      "\n"
	      "Reads IN (any snapshot stackwalk walks) and writes OUT.snap: the system, the\n"
	      "module map, the crash, the crashing thread's registers and the memory the\n"
	      "input captured (compressed), so that 'stackwalk OUT.snap SYMBOL_PATH...'\n"
	      "walks it as 'stackwalk IN SYMBOL_PATH...' does. The SYMBOL_PATHs are where\n"
	      "IN's reader looks for the modules' files (an ELF core without NT_FILE).\n"
	      "IN may be compressed (gzip, xz, zstd, lz4); '-' reads it from standard input.\n"
	      "\n"
	      "Options:\n"
	      "  --all-threads     every thread and its stack, not only the crashing one\n"
	      "  --help, -h        this text\n"
	      "\n"
	      "Exit status: 0 converted; 1 converted a damaged input (what was intact);\n"
	      "2 usage error; 3 IN unreadable or its CPU not in the .snap format;\n"
	      "4 internal failure (out of memory, OUT.snap cannot be written).\n",
	      f);
}

static int convert_usage_error(const char *what)
{
	fprintf(stderr, "stackwalk: convert: %s (see stackwalk convert --help)\n", what);
	return 2;
}

/* `reading`: an I/O error is IN's (unreadable, 3), else OUT.snap's (4). */
static int exit_status(enum sw_err_code code, bool reading)
{
	switch (code) {
	case SW_OK: return 0;
	case SW_ERR_CORRUPT: return 1;
	case SW_ERR_USAGE: return 2;
	case SW_ERR_IO: return reading ? 3 : 4;
	case SW_ERR_FORMAT:
	case SW_ERR_UNSUPPORTED: return 3;
	case SW_ERR_NOMEM: break;
	}
	return 4;
}

int sw_convert_main(int argc, char **argv)
{
	enum { OPT_ALL_THREADS = 256 };
	static const struct option longopts[] = {
		{ "all-threads", no_argument, NULL, OPT_ALL_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sw_snap_convert_options conv = { 0 };
	opterr = 0;
	optind = 1;
	int c;
	/* '+': options before IN only, so that the paths may be anything. */
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ALL_THREADS: conv.all_threads = true; break;
		case 'h': convert_usage(stdout); return 0;
		default: {
			char what[160];
			snprintf(what, sizeof what, "unknown option '%s'", argv[optind - 1]);
			return convert_usage_error(what);
		}
		}
	}
	if (argc - optind < 2)
		return convert_usage_error(argc - optind ? "no OUT.snap given" : "no IN given");
	const char *in = argv[optind], *out = argv[optind + 1];
	struct sw_open_options open_opts = {
		.search_paths = (const char *const *)&argv[optind + 2],
		.nsearch_paths = (size_t)(argc - optind - 2),
	};
	struct sw_err err = { 0 };
	/* IN "-": standard input, copied (or decompressed) as a snapshot's
	 * walk reads it (formats/input.h), within the default limit. */
	struct sw_input stdin_input = { .fd = -1 };
	if (strcmp(in, "-") == 0) {
		enum sw_err_code rc = sw_input_stdin(0, &stdin_input, &err);
		if (rc != SW_OK) {
			fprintf(stderr, "stackwalk: %s\n", err.msg);
			return exit_status(rc, true);
		}
		in = SW_INPUT_STDIN_NAME;
		open_opts.input = &stdin_input;
	}
	struct sw_snapshot snap;
	enum sw_err_code rc = sw_pipeline_open(in, &open_opts, NULL, &snap, &err);
	sw_input_close(&stdin_input); /* the snapshot maps what it needs */
	if (rc != SW_OK && rc != SW_ERR_CORRUPT) {
		fprintf(stderr, "stackwalk: %s\n", err.msg);
		sw_snapshot_free(&snap);
		return exit_status(rc, true);
	}
	/* One line on stderr: why nothing was written, else what was damaged
	 * in what was. */
	int status = exit_status(rc, true);
	struct sw_err conv_err = { 0 };
	enum sw_err_code crc = sw_snap_convert_file(&snap, &conv, out, &conv_err);
	if (crc != SW_OK) {
		fprintf(stderr, "stackwalk: %s\n", conv_err.msg);
		status = exit_status(crc, false);
	} else if (rc == SW_ERR_CORRUPT) {
		fprintf(stderr, "stackwalk: %s\n", err.msg);
	}
	sw_snapshot_free(&snap);
	return status;
}
