#!/usr/bin/env bash
# Benchmarks stackwalk on the ../shared/bench workloads side by side with the
# tools it is compared with, in the same run: one untimed warm-up each, then
# 5 rounds in which every tool runs once (interleaved, so machine load hits
# them alike), each `TOOL DUMP STORE > /dev/null` timed with /usr/bin/time
# (wall seconds, peak RSS KiB). Medians with min-max. stackwalk reads the
# gzipped store directly, so decompression is inside its timing; Breakpad
# cannot read .sym.gz and gets a store decompressed once, outside the timing.
# Also counts frames and trust levels of each tool's text output, so
# "faster but wrong" shows.
#
# Usage: bench/run.sh [STACKWALK] [BENCH_DIR]
# Environment:
#   BREAKPAD_STACKWALK  Breakpad's minidump_stackwalk (built by
#                       BENCH_DIR/build-breakpad.sh into /tmp/bpbin)
#   BASELINE_STACKWALK  another stackwalk build (e.g. the last release), to
#                       measure a change against
#   ROUNDS              timed rounds (default 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sw=${1:-$here/../build/cmd/stackwalk}
bench=${2:-$here/../../shared/bench}
rounds=${ROUNDS:-5}
bp=${BREAKPAD_STACKWALK:-}
[ -n "$bp" ] || { [ -x /tmp/bpbin/minidump_stackwalk ] && bp=/tmp/bpbin/minidump_stackwalk; } || true
base=${BASELINE_STACKWALK:-}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=(stackwalk)
cmds=("$sw")
if [ -n "$base" ]; then names+=(baseline); cmds+=("$base"); fi
if [ -n "$bp" ]; then names+=(breakpad); cmds+=("$bp"); fi
[ -n "$bp" ] || echo "(no Breakpad: set BREAKPAD_STACKWALK, or run $bench/build-breakpad.sh; figures from another run are not compared)"

printf 'load average: %s; %s rounds\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$rounds"
printf '%-16s %-10s %24s %28s %24s\n' workload tool "wall s median (min-max)" "peak RSS KiB median (min-max)" "frames: ctx/cfi/fp/scan"
for w in gen48k_depth500 rustc_abrt; do
  dump="$bench/$w/$w.dmp" gz_store="$bench/$w/symbols"
  [ -f "$dump" ] || { echo "$w: $dump missing"; continue; }
  plain_store=""
  if [ -n "$bp" ]; then
    plain_store="$tmp/$w/symbols"
    (cd "$bench/$w" && find symbols -name '*.sym.gz') | while read -r f; do
      mkdir -p "$tmp/$w/$(dirname "$f")"
      gzip -dc "$bench/$w/$f" > "$tmp/$w/${f%.gz}"
    done
  fi
  store_for() { [ "$1" = breakpad ] && echo "$plain_store" || echo "$gz_store"; }
  for i in "${!cmds[@]}"; do
    "${cmds[$i]}" "$dump" "$(store_for "${names[$i]}")" >/dev/null 2>&1 || true
    : > "$tmp/times.$i"
  done
  for _ in $(seq "$rounds"); do
    for i in "${!cmds[@]}"; do
      /usr/bin/time -f '%e %M' -a -o "$tmp/times.$i" \
        "${cmds[$i]}" "$dump" "$(store_for "${names[$i]}")" >/dev/null 2>&1 || true
    done
  done
  for i in "${!cmds[@]}"; do
    t="$tmp/times.$i"
    read -r wmed wmin wmax < <(sort -n "$t" | awk '{w[NR]=$1} END{print w[int((NR+1)/2)], w[1], w[NR]}')
    read -r mmed mmin mmax < <(sort -k2,2n "$t" | awk '{m[NR]=$2} END{print m[int((NR+1)/2)], m[1], m[NR]}')
    out=$("${cmds[$i]}" "$dump" "$(store_for "${names[$i]}")" 2>/dev/null || true)
    frames=$(grep -c 'Found by:' <<<"$out" || true)
    ctx=$(grep -c 'Found by: given as instruction pointer' <<<"$out" || true)
    cfi=$(grep -c 'Found by: call frame info$' <<<"$out" || true)
    fp=$(grep -c "Found by: previous frame's frame pointer" <<<"$out" || true)
    scan=$(grep -c 'Found by: stack scanning' <<<"$out" || true)
    printf '%-16s %-10s %8s (%s-%s) %14s (%s-%s) %8s: %s/%s/%s/%s\n' \
      "$w" "${names[$i]}" "$wmed" "$wmin" "$wmax" "$mmed" "$mmin" "$mmax" "$frames" "$ctx" "$cfi" "$fp" "$scan"
    echo "$wmed $mmed" > "$tmp/median.$i"
  done
  for i in "${!cmds[@]}"; do
    [ "$i" -eq 0 ] && continue
    read -r w0 m0 < "$tmp/median.0"
    read -r wi mi < "$tmp/median.$i"
    awk -v n="${names[$i]}" -v a="$wi" -v b="$w0" -v c="$mi" -v d="$m0" 'BEGIN{
      printf "%-16s stackwalk vs %s: %.2fx the speed, %.0f%% of the memory\n", "", n, (b > 0 ? a / b : 0), (c > 0 ? 100 * d / c : 0) }'
  done
done
