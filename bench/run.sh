#!/usr/bin/env bash
# Benchmarks stackwalk on the ../shared/bench workloads, the way the
# reference figures there were taken: one untimed warm-up, then 5 timed runs
# of `stackwalk DUMP STORE > /dev/null` with /usr/bin/time (wall seconds, peak
# RSS KiB). stackwalk reads the gzipped store directly, so decompression is
# inside the timing. Also counts frames and trust levels of the text output,
# so "faster but wrong" shows.
#
# Usage: bench/run.sh [STACKWALK] [BENCH_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sw=${1:-$here/../build/cmd/stackwalk}
bench=${2:-$here/../../shared/bench}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }

# Breakpad minidump_stackwalk figures from $bench/README.md (median wall s,
# median peak RSS KiB), same machine class.
declare -A ref_wall=([gen48k_depth500]=0.58 [rustc_abrt]=3.33)
declare -A ref_rss=([gen48k_depth500]=155456 [rustc_abrt]=719428)

printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %22s %26s %14s %24s\n' workload "wall s median (min-max)" "peak RSS KiB median (min-max)" "vs Breakpad" "frames: ctx/cfi/fp/scan"
for w in gen48k_depth500 rustc_abrt; do
  dump="$bench/$w/$w.dmp" store="$bench/$w/symbols"
  [ -f "$dump" ] || { echo "$w: $dump missing"; continue; }
  times=$(mktemp)
  "$sw" "$dump" "$store" >/dev/null 2>&1 || true
  for i in 1 2 3 4 5; do
    /usr/bin/time -f '%e %M' -a -o "$times" "$sw" "$dump" "$store" >/dev/null 2>&1 || true
  done
  read -r wmed wmin wmax < <(sort -n "$times" | awk '{w[NR]=$1} END{print w[3], w[1], w[NR]}')
  read -r mmed mmin mmax < <(sort -k2,2n "$times" | awk '{m[NR]=$2} END{print m[3], m[1], m[NR]}')
  rm -f "$times"
  out=$("$sw" "$dump" "$store" 2>/dev/null || true)
  frames=$(grep -c 'Found by:' <<<"$out" || true)
  ctx=$(grep -c 'Found by: given as instruction pointer' <<<"$out" || true)
  cfi=$(grep -c 'Found by: call frame info$' <<<"$out" || true)
  fp=$(grep -c "Found by: previous frame's frame pointer" <<<"$out" || true)
  scan=$(grep -c 'Found by: stack scanning' <<<"$out" || true)
  speed=$(awk -v a="${ref_wall[$w]}" -v b="$wmed" 'BEGIN{ if (b > 0) printf "%.1fx faster", a / b; else print "-" }')
  mem=$(awk -v a="${ref_rss[$w]}" -v b="$mmed" 'BEGIN{ printf "%.0f%% RSS", 100 * b / a }')
  printf '%-16s %8s (%s-%s) %12s (%s-%s) %14s %s  %s: %s/%s/%s/%s\n' \
    "$w" "$wmed" "$wmin" "$wmax" "$mmed" "$mmin" "$mmax" "$speed" "$mem" "$frames" "$ctx" "$cfi" "$fp" "$scan"
  printf '%-16s %8s %27s   (Breakpad minidump_stackwalk, %s)\n' "" "${ref_wall[$w]}" "${ref_rss[$w]}" "bench/README.md"
done
