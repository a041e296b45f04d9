#!/usr/bin/env bash
# make_seeds.sh BUILD: writes the seeds of tests/fuzz_sym_index.c here,
# one symbol index per source the harness carries, plain and gzipped
# (BUILD: a -Dfuzzing=true build, e.g. build-fz). The harness makes them
# itself (SW_FUZZ_SYM_INDEX_SEEDS), with the cache's own writer: run this
# again when the index format (symbols/sym_index.c) or the records
# (symbols/breakpad_sym_internal.h) change, or the harness's sources do.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="${1:?usage: make_seeds.sh BUILD}"
ninja -C "$build" tests/fuzz_sym_index >/dev/null
# (the regress-*.seed files beside them are findings, kept)
SW_FUZZ_SYM_INDEX_SEEDS="$here" "$build/tests/fuzz_sym_index"
ls -l "$here"/*.seed
