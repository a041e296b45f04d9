/* A program embedding libstackwalk as the README shows: built by
 * tests/install.py against an installed tree with `pkg-config --cflags
 * --libs stackwalk`, shared and static. Walks SNAPSHOT's crashing thread
 * with SYMBOL_PATH and prints one line per frame:
 *     N MODULE!FUNCTION [FILE : LINE] pc=0x... sp=0x... TRUST
 * then the crash signature and whether the JSON report, rendered into a
 * buffer, looks whole. */
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
	const stackwalk_thread *t = stackwalk_result_crashing_thread(res);
	printf("libstackwalk %s, %s, crashing thread %" PRIu64 "\n", stackwalk_version(),
	       stackwalk_snapshot_format(snap), t ? stackwalk_thread_id(t) : 0);
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
