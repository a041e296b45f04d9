#!/usr/bin/env bash
# fuzz_smoke.sh FUZZER WORKDIR SEED_DIR...: runs a libFuzzer target for a few
# seconds. New inputs go to WORKDIR (the seed folders stay read-only).
#
# Fails when the fuzzer fails (a crash, a leak, a sanitizer report, a
# timeout, out of memory) and also when it saw almost no code: libFuzzer's
# final "cov: N" counts the instrumented edges the inputs reached. With the
# library instrumented a target reaches 1,000 edges or more within seconds;
# below FUZZ_MIN_COV (default 200) only the harness is instrumented and the
# fuzzer mutates blind, which would pass forever while finding nothing.
# FUZZ_SECONDS (default 5) sets the time per target.
set -euo pipefail
fuzzer="$1" work="$2"; shift 2
min_cov="${FUZZ_MIN_COV:-200}"
seconds="${FUZZ_SECONDS:-5}"
mkdir -p "$work"
log="$work.log"
status=0
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
  "$work" "$@" >"$log" 2>&1 || status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
  echo "fuzz_smoke: $(basename "$fuzzer") failed (exit $status): see above" >&2
  exit "$status"
fi
# The highest "cov: N" of the run: status lines are "#N <event> cov: N ft: ...".
cov=$(grep -o 'cov: [0-9]*' "$log" | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
if [ "$cov" -lt "$min_cov" ]; then
  echo "fuzz_smoke: $(basename "$fuzzer") reached $cov edges, fewer than $min_cov:" \
       "is the library built with -fsanitize=fuzzer-no-link?" >&2
  exit 1
fi
echo "fuzz_smoke: $(basename "$fuzzer") reached $cov edges"
