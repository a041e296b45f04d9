#!/usr/bin/env bash
# fuzz_smoke.sh FUZZER WORKDIR SEED_DIR...: runs a libFuzzer target for a few
# seconds. New inputs go to WORKDIR (the seed folders stay read-only).
set -euo pipefail
fuzzer="$1" work="$2"; shift 2
mkdir -p "$work"
exec "$fuzzer" -max_total_time=8 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "$work" "$@"
