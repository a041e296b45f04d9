#!/usr/bin/env bash
# Shards starting cold on one machine (docs/batch.md, "Shards on one machine
# share their cache builds"): P stackwalk processes started at once on the
# same dump, on an empty symbol cache, two ways in the same run, alternating
# round by round:
#   shared    one cache directory for all P: the first process to need an
#             index builds it (holding NAME.swidx.lock), the others wait
#             and map what it wrote;
#   separate  a cache directory each: every process parses and writes
#             every index itself, as when nothing is shared.
# Reported per way, the median over the rounds of: wall time from the first
# start to the last end, CPU seconds (user + sys) summed over the P
# processes, peak RSS summed over them; and whether every output is
# byte for byte the same as a --no-cache run's.
#
# Usage: bench/shards.sh [STACKWALK] [BENCH_DIR]
# Environment: P (default 8), ROUNDS (default 3), WORKLOADS (default
#   "gen48k_depth500 rustc_abrt").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sw=$(realpath "${1:-$here/../build/cmd/stackwalk}")
bench=$(realpath "${2:-$here/../../shared/bench}")
procs=${P:-8} rounds=${ROUNDS:-3}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }
tmp=$(mktemp -d /tmp/sw-shards.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# one_round WAY DUMP STORE: prints "wall cpu rss_kib same(0/1)".
one_round() {
  local way=$1 dump=$2 store=$3 i
  rm -rf "$tmp/c" && mkdir -p "$tmp/c"
  local start end
  start=$(date +%s.%N)
  for i in $(seq 1 "$procs"); do
    local cache="$tmp/c/shared"
    [ "$way" = separate ] && cache="$tmp/c/own$i"
    /usr/bin/time -f "%U %S %M" -o "$tmp/t$i" \
      "$sw" --symbols-cache "$cache" "$dump" "$store" > "$tmp/o$i" 2>/dev/null &
  done
  wait
  end=$(date +%s.%N)
  local same=1
  for i in $(seq 1 "$procs"); do cmp -s "$tmp/ref" "$tmp/o$i" || same=0; done
  cat "$tmp"/t* | awk -v s="$start" -v e="$end" -v same="$same" \
    '{ cpu += $1 + $2; rss += $3 } END { printf "%.3f %.3f %d %d\n", e - s, cpu, rss, same }'
  rm -f "$tmp"/t* "$tmp"/o*
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-16s %-9s %9s %9s %12s %s\n' workload way wall_s cpu_s rss_sum_MB outputs
for w in ${WORKLOADS:-gen48k_depth500 rustc_abrt}; do
  dump=$(ls "$bench/$w"/*.dmp | head -1) store="$bench/$w/symbols"
  "$sw" --no-cache "$dump" "$store" > "$tmp/ref" 2>/dev/null || true
  : > "$tmp/shared.res"; : > "$tmp/separate.res"
  for r in $(seq 1 "$rounds"); do
    for way in shared separate; do one_round "$way" "$dump" "$store" >> "$tmp/$way.res"; done
  done
  for way in shared separate; do
    f="$tmp/$way.res"
    printf '%-16s %-9s %9s %9s %12.0f %s\n' "$w" "$way" \
      "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
      "$(cut -d' ' -f3 "$f" | median | awk '{ print $1 / 1024 }')" \
      "$(awk '{ s += $4 } END { print (s == NR ? "all same" : "DIFFER") }' "$f")"
  done
done
