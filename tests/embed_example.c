/* A program embedding libstackwalk as the README shows: built by
 * tests/install.py against an installed tree with `pkg-config --cflags
 * --libs stackwalk`, shared and static. Walks SNAPSHOT's crashing thread
 * with SYMBOL_PATH and prints, through the accessors (no JSON):
 *     version HEADER'S LIBRARY'S
 *     crash REASON at 0x... thread INDEX
 *     N MODULE!FUNCTION [FILE : LINE] pc=0x... sp=0x... TRUST
 *     signature SIGNATURE
 *     module NAME base=0x... size=0x... debug_id=... code_id=... SYMBOLS
 * and whether the JSON report, rendered into a buffer, looks whole. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <stackwalk.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: embed_example SNAPSHOT SYMBOL_PATH\n");
		return 2;
	}
	stackwalk_options *opt = stackwalk_options_new();
	if (!opt || stackwalk_options_add_symbol_path(opt, argv[2]) != STACKWALK_OK)
		return 4;
	stackwalk_snapshot *snap;
	if (stackwalk_snapshot_open(argv[1], opt, &snap) > STACKWALK_DAMAGED) {
		fprintf(stderr, "embed_example: %s\n", stackwalk_errmsg());
		return 3;
	}
	stackwalk_result *res;
	if (stackwalk_walk(snap, opt, STACKWALK_WALK_CRASHING_ONLY, &res) > STACKWALK_DAMAGED) {
		fprintf(stderr, "embed_example: %s\n", stackwalk_errmsg());
		return 4;
	}
	/* The header's version, then the library's: one version everywhere. */
	printf("version %s %s\n", STACKWALK_VERSION, stackwalk_version());
	printf("version macros %d.%d.%d\n", STACKWALK_VERSION_MAJOR, STACKWALK_VERSION_MINOR,
	       STACKWALK_VERSION_PATCH);
	const stackwalk_thread *t = stackwalk_result_crashing_thread(res);
	printf("libstackwalk %s, %s, crashing thread %" PRIu64 "\n", stackwalk_version(),
	       stackwalk_snapshot_format(snap), t ? stackwalk_thread_id(t) : 0);
	uint64_t addr;
	if (stackwalk_result_crash_address(res, STACKWALK_WORDING_TEXT, &addr))
		printf("crash %s at 0x%" PRIx64 " thread %td\n",
		       stackwalk_result_crash_reason(res, STACKWALK_WORDING_TEXT), addr,
		       stackwalk_result_crashing_thread_index(res));
	else
		printf("no crash\n");
	for (size_t i = 0; i < stackwalk_thread_frame_count(t); i++) {
		const stackwalk_frame *f = stackwalk_thread_frame(t, i);
		const char *module = stackwalk_frame_module(f), *fn = stackwalk_frame_function(f);
		printf("%zu %s!%s", i, module ? module : "?", fn ? fn : "?");
		if (stackwalk_frame_file(f))
			printf(" [%s : %" PRIu32 "]", stackwalk_frame_file(f), stackwalk_frame_line(f));
		printf(" pc=0x%" PRIx64, stackwalk_frame_pc(f));
		if (stackwalk_frame_has_sp(f))
			printf(" sp=0x%" PRIx64, stackwalk_frame_sp(f));
		printf(" %s\n", stackwalk_trust_name(stackwalk_frame_trust(f)));
	}
	/* NULL when nothing crashed (a dump taken on request). */
	const char *signature = stackwalk_result_signature(res);
	printf("signature %s\n", signature ? signature : "(none)");
	for (size_t i = 0; i < stackwalk_result_module_count(res); i++) {
		const stackwalk_module *m = stackwalk_result_module(res, i);
		const char *name = stackwalk_module_name(m), *debug_id = stackwalk_module_debug_id(m),
		           *code_id = stackwalk_module_code_id(m);
		printf("module %s base=0x%" PRIx64 " size=0x%" PRIx64 " debug_id=%s code_id=%s %s\n",
		       name ? name : "?", stackwalk_module_base(m), stackwalk_module_size(m),
		       debug_id ? debug_id : "-", code_id ? code_id : "-",
		       stackwalk_symbols_name(stackwalk_module_symbols(m)));
	}
	char *json;
	size_t len;
	if (stackwalk_render_buffer(res, STACKWALK_FORMAT_JSON, 0, &json, &len) != STACKWALK_OK) {
		fprintf(stderr, "embed_example: %s\n", stackwalk_errmsg());
		return 4;
	}
	printf("json %s\n", len > 2 && json[0] == '{' && json[len - 1] == '\n' ? "ok" : "bad");
	stackwalk_buffer_free(json);
	stackwalk_result_free(res);
	stackwalk_snapshot_close(snap);
	stackwalk_options_free(opt);
	return 0;
}
