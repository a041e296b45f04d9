#!/usr/bin/env bash
# Throughput of stackwalk --batch (docs/batch.md) beside N single runs of
# stackwalk and N runs of Breakpad's minidump_stackwalk, in the same run,
# on the same list of dumps: dumps per second, per core, and per CPU
# second (user + sys).
#
# Two lists:
#   corpus  the real corpus's minidumps (../shared/corpus: breakpad/ and
#           rust-minidump/, plain .sym stores), repeated to N (default 200);
#   bench   the ../shared/bench workloads' dumps (gen48k_depth500 and
#           rustc_abrt, alternating) with their .sym.gz stores, repeated to
#           BENCH_N (default 20: Breakpad takes ~1.3 s and ~5 s on them).
#           Breakpad cannot read .sym.gz and gets the stores decompressed
#           once, outside the timing (as bench/run.sh does).
#
# Variants, each over the whole list, one after the other:
#   breakpad        N runs of minidump_stackwalk DUMP STORE... (sequential)
#   sw-single       N runs of stackwalk --json DUMP --symbols-path STORE...
#                   (sequential), on a symbol cache that starts empty (the
#                   first walk of each module writes its index)
#   batch-j1        one stackwalk --batch --jobs 1, cache starting empty
#   batch-jJ        one stackwalk --batch --jobs J (J = online CPUs), cache
#                   starting empty
#   batch-jJ-warm   the same on the cache batch-jJ filled
#   batch-jJ-nocache  --no-cache: every snapshot parses its .sym files
# "cores" is what the variant may use (1, or J); per core = dumps/s / cores.
#
# Usage: bench/batch.sh [STACKWALK] [BENCH_DIR] [CORPUS]
# Environment: BREAKPAD_STACKWALK (default /tmp/bpbin/minidump_stackwalk),
#   N, BENCH_N, JOBS (default: online CPUs), NO_BENCH=1, NO_CORPUS=1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sw=$(realpath "${1:-$here/../build/cmd/stackwalk}")
bench=$(realpath "${2:-$here/../../shared/bench}")
corpus=$(realpath "${3:-$here/../../shared/corpus}")
bp=${BREAKPAD_STACKWALK:-}
[ -n "$bp" ] || { [ -x /tmp/bpbin/minidump_stackwalk ] && bp=/tmp/bpbin/minidump_stackwalk; } || true
n_corpus=${N:-200} n_bench=${BENCH_N:-20}
jobs=${JOBS:-$(nproc)}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# repeat N FILE...: the files cycled to N lines.
repeat() {
  local n=$1; shift
  local i=0
  while [ "$i" -lt "$n" ]; do
    for f in "$@"; do
      [ "$i" -lt "$n" ] || break
      echo "$f"; i=$((i + 1))
    done
  done
}

# timed LABEL CORES N CMD...: runs CMD (stdout to a file, stderr dropped)
# and prints wall, CPU, dumps/s, per core, per CPU second, peak RSS.
timed() {
  local label=$1 cores=$2 n=$3; shift 3
  /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" > "$tmp/out.$label" 2>/dev/null || true
  read -r wall user sys rss < <(tail -1 "$tmp/t")
  awk -v l="$label" -v c="$cores" -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN{
    cpu = u + s; rate = (w > 0 ? n / w : 0)
    printf "%-18s %5d %8.2f %8.2f %9.2f %9.2f %9.2f %9d\n", l, c, w, cpu, rate, rate / c, (cpu > 0 ? n / cpu : 0), r }'
}

header() {
  printf '\n%s: %s dumps (%s distinct); load average: %s; %s CPUs\n' "$1" "$2" "$3" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
  printf '%-18s %5s %8s %8s %9s %9s %9s %9s\n' variant cores "wall s" "CPU s" dumps/s "/s/core" "/CPU-s" "RSS KiB"
}

# run_list NAME LIST SW_STORES BP_STORES: every variant over LIST.
run_list() {
  local name=$1 list=$2 sw_stores=$3 bp_stores=$4
  local n; n=$(wc -l < "$list")
  local distinct; distinct=$(sort -u "$list" | wc -l)
  local sym=()
  for s in $sw_stores; do sym+=(--symbols-path "$s"); done
  header "$name" "$n" "$distinct"
  if [ -n "$bp" ]; then
    # shellcheck disable=SC2016
    timed breakpad 1 "$n" bash -c 'while read -r f; do "$0" "$f" $1 > /dev/null 2>&1 || true; done < "$2"' \
      "$bp" "$bp_stores" "$list"
  fi
  # shellcheck disable=SC2016
  timed sw-single 1 "$n" bash -c 'c=$1 list=$2; shift 2; while read -r f; do "$0" --json --symbols-cache "$c" "$f" "$@" > /dev/null 2>&1 || true; done < "$list"' \
    "$sw" "$tmp/cache-single-$name" "$list" "${sym[@]}"
  timed batch-j1 1 "$n" "$sw" --batch --jobs 1 --symbols-cache "$tmp/cache-j1-$name" - "${sym[@]}" < "$list"
  timed "batch-j$jobs" "$jobs" "$n" "$sw" --batch --jobs "$jobs" --symbols-cache "$tmp/cache-jn-$name" - "${sym[@]}" < "$list"
  timed "batch-j$jobs-warm" "$jobs" "$n" "$sw" --batch --jobs "$jobs" --symbols-cache "$tmp/cache-jn-$name" - "${sym[@]}" < "$list"
  timed "batch-j$jobs-nocache" "$jobs" "$n" "$sw" --batch --jobs "$jobs" --no-cache - "${sym[@]}" < "$list"
  # Every batch printed one line per dump (microdump logs aside: none here).
  for f in "$tmp"/out.batch-*; do
    [ "$(wc -l < "$f")" -ge "$n" ] || echo "${f##*/out.}: $(wc -l < "$f") lines for $n dumps"
  done
  rm -f "$tmp"/out.*
}

[ -n "$bp" ] || echo "(no Breakpad: set BREAKPAD_STACKWALK, or run $bench/build-breakpad.sh)"

if [ -z "${NO_CORPUS:-}" ] && [ -f "$corpus/manifest.tsv" ]; then
  # The minidumps of the manifest (microdumps are not Breakpad's
  # minidump_stackwalk's), each once.
  mapfile -t dumps < <(awk -F'\t' '!/^#/ && $3 == "-" && $4 == "minidump" &&
                                   ($1 == "breakpad" || $1 == "rust-minidump") {print $1 "/" $2}' \
                         "$corpus/manifest.tsv" | sort -u | sed "s|^|$corpus/|")
  repeat "$n_corpus" "${dumps[@]}" > "$tmp/corpus.list"
  stores="$corpus/breakpad/symbols $corpus/rust-minidump/symbols"
  run_list corpus "$tmp/corpus.list" "$stores" "$stores"
fi

if [ -z "${NO_BENCH:-}" ] && [ -f "$bench/gen48k_depth500/gen48k_depth500.dmp" ]; then
  ws=(gen48k_depth500 rustc_abrt)
  dumps=() sw_stores="" bp_stores=""
  for w in "${ws[@]}"; do
    [ -f "$bench/$w/$w.dmp" ] || continue
    dumps+=("$bench/$w/$w.dmp")
    sw_stores+=" $bench/$w/symbols"
    if [ -n "$bp" ]; then
      (cd "$bench/$w" && find symbols -name '*.sym.gz') | while read -r f; do
        mkdir -p "$tmp/plain/$w/$(dirname "$f")"
        gzip -dc "$bench/$w/$f" > "$tmp/plain/$w/${f%.gz}"
      done
      bp_stores+=" $tmp/plain/$w/symbols"
    fi
  done
  repeat "$n_bench" "${dumps[@]}" > "$tmp/bench.list"
  run_list bench "$tmp/bench.list" "$sw_stores" "$bp_stores"
fi
