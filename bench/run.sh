#!/usr/bin/env bash
# Benchmarks stackwalk on the ../shared/bench workloads side by side with the
# tools it is compared with, in the same run: one untimed warm-up each, then
# 5 rounds in which every tool runs once (interleaved, so machine load hits
# them alike), each `TOOL DUMP STORE > /dev/null` timed by bench/runone.py:
# wall time from spawn to wait4, peak RSS and CPU time (user + sys) from the
# rusage wait4 returns, of the tool's own process and nothing else (the
# perf stat + /usr/bin/time wrapping this used before added ~10 ms of its
# own to every wall time, most of a warm walk). CPU time is what a loaded
# machine disturbs least. Medians with min-max. stackwalk
# reads the gzipped store directly, so decompression is inside its timing; Breakpad
# cannot read .sym.gz and gets a store decompressed once, outside the timing.
# Also counts frames and trust levels of each tool's text output, so
# "faster but wrong" shows.
#
# Then, when BENCH_DIR/gen48k_depth500/elf exists, the ELF/DWARF workload:
# the same gen48k_depth500 dump with the three program modules' symbols
# and CFI taken from their ELF files (DWARF) instead of the .sym store --
# unstripped files (elf/), stripped files + NAME.debug (elf-split/by-name/)
# and a .build-id tree (elf-split/by-build-id/) -- interleaved with the
# .sym.gz walk. libc and ld.so come from the .sym.gz store in every run (a
# store holding only their two files), so only the program modules differ.
# Laziness check: the same walks with --max-frames=N (ELF_MAX_FRAMES, default
# "1 5 50"): a lazy DWARF reader costs about the units (CUs) its frames land
# in, an eager one the size of .debug_info whatever the frame count. Each
# walk's "units" is how many of the files' compilation units its frames
# name (one source file per unit in gen48k; a lazy reader reads no others).
# Each ELF walk's frames are compared with the .sym walk's (bench/compare_walks.py: same pc,
# function name, file:line) and its chains with the ground truth
# (bench/check_gen48k.py).
#
# Usage: bench/run.sh [STACKWALK] [BENCH_DIR]
# Environment:
#   BREAKPAD_STACKWALK  Breakpad's minidump_stackwalk (built by
#                       BENCH_DIR/build-breakpad.sh into /tmp/bpbin)
#   BASELINE_STACKWALK  another stackwalk build (e.g. the last release), to
#                       measure a change against
#   ROUNDS              timed rounds (default 5)
#   ELF_MAX_FRAMES      --max-frames values of the laziness check (default
#                       "1 5 50"; empty: none)
#   NO_ELF=1            skip the ELF/DWARF workload
#   NO_CORE=1           skip the ELF core workload (gen48k_core)
#   NO_BATCH=1          skip bench/batch.sh (--batch against single runs and
#                       Breakpad, in dumps per second per core; docs/batch.md)
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

# The symbol cache (docs/symbol-cache.md): "stackwalk" parses every file
# (--no-cache, as before the cache); "sw-cold" starts each round on a fresh
# empty cache directory (parse + write the indexes); "sw-warm" on a cache
# the warm-up round filled (map the indexes).
# Each tool is a command line (paths here hold no spaces); {FRESH} is a
# new empty directory per run (bench/runone.py).
names=(stackwalk sw-cold sw-warm)
cmds=("$sw --no-cache" "$sw --symbols-cache {FRESH}" "$sw --symbols-cache $tmp/warm-cache")
if [ -n "$base" ]; then names+=(baseline); cmds+=("$base"); fi
command -v python3 >/dev/null || { echo "needs python3"; exit 2; }
if [ -n "$bp" ]; then names+=(breakpad); cmds+=("$bp"); fi
[ -n "$bp" ] || echo "(no Breakpad: set BREAKPAD_STACKWALK, or run $bench/build-breakpad.sh; figures from another run are not compared)"

printf 'load average: %s; %s rounds\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$rounds"
printf '%-16s %-10s %24s %28s %24s %24s\n' workload tool "wall s median (min-max)" "peak RSS KiB median (min-max)" "frames: ctx/cfi/fp/scan" "CPU ms median (min-max)"
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
    python3 "$here/runone.py" /dev/null --fresh-dir "$tmp" -- ${cmds[$i]} "$dump" "$(store_for "${names[$i]}")"
    : > "$tmp/times.$i"
  done
  for _ in $(seq "$rounds"); do
    for i in "${!cmds[@]}"; do
      # Wall seconds, peak RSS KiB and CPU ms of the tool's own process
      # (bench/runone.py: wait4's rusage, no wrapper process counted).
      python3 "$here/runone.py" "$tmp/times.$i" --fresh-dir "$tmp" -- \
        ${cmds[$i]} "$dump" "$(store_for "${names[$i]}")"
    done
  done
  for i in "${!cmds[@]}"; do
    t="$tmp/times.$i"
    read -r wmed wmin wmax < <(sort -n "$t" | awk '{w[NR]=$1} END{print w[int((NR+1)/2)], w[1], w[NR]}')
    read -r mmed mmin mmax < <(sort -k2,2n "$t" | awk '{m[NR]=$2} END{print m[int((NR+1)/2)], m[1], m[NR]}')
    read -r cmed cmin cmax < <(sort -k3,3n "$t" | awk '{c[NR]=$3} END{print c[int((NR+1)/2)], c[1], c[NR]}')
    out=$(${cmds[$i]/\{FRESH\}/$tmp/warm-cache} "$dump" "$(store_for "${names[$i]}")" 2>/dev/null || true)
    frames=$(grep -c 'Found by:' <<<"$out" || true)
    ctx=$(grep -c 'Found by: given as instruction pointer' <<<"$out" || true)
    cfi=$(grep -c 'Found by: call frame info$' <<<"$out" || true)
    fp=$(grep -c "Found by: previous frame's frame pointer" <<<"$out" || true)
    scan=$(grep -c 'Found by: stack scanning' <<<"$out" || true)
    printf '%-16s %-10s %8s (%s-%s) %14s (%s-%s) %8s: %s/%s/%s/%s %10s (%s-%s)\n' \
      "$w" "${names[$i]}" "$wmed" "$wmin" "$wmax" "$mmed" "$mmin" "$mmax" "$frames" "$ctx" "$cfi" "$fp" "$scan" \
      "$cmed" "$cmin" "$cmax"
    echo "$wmed $mmed $cmed" > "$tmp/median.$i"
  done
  for i in "${!cmds[@]}"; do
    [ "$i" -eq 0 ] && continue
    read -r w0 m0 _ < "$tmp/median.0"
    read -r wi mi _ < "$tmp/median.$i"
    awk -v n="${names[$i]}" -v a="$wi" -v b="$w0" -v c="$mi" -v d="$m0" 'BEGIN{
      printf "%-16s stackwalk vs %s: %.2fx the speed, %.0f%% of the memory\n", "", n, (b > 0 ? a / b : 0), (c > 0 ? 100 * d / c : 0) }'
  done
  # Each stackwalk variant against Breakpad (the issue's targets: warm
  # >= 50x at <= 1/10 of the RSS, cold >= 8x at <= 1/4).
  for i in "${!cmds[@]}"; do
    [ "${names[$i]}" = breakpad ] || continue
    read -r wb mb cb < "$tmp/median.$i"
    for j in "${!cmds[@]}"; do
      case ${names[$j]} in stackwalk|sw-cold|sw-warm) ;; *) continue ;; esac
      read -r wj mj cj < "$tmp/median.$j"
      awk -v n="${names[$j]}" -v a="$wb" -v b="$wj" -v c="$mb" -v d="$mj" -v e="$cb" -v f="$cj" 'BEGIN{
        printf "%-16s %s vs breakpad: %.1fx the speed, %.1f%% of the memory", "", n, (b > 0 ? a / b : 0), (c > 0 ? 100 * d / c : 0)
        if (e + 0 > 0 && f + 0 > 0) printf ", %.1fx less CPU time", e / f
        printf "\n" }'
    done
  done
  rm -rf "$tmp"/cold.* "$tmp/warm-cache"
done

# ---- ELF/DWARF symbol provider on gen48k_depth500 ----
w=gen48k_depth500
elf="$bench/$w/elf" split="$bench/$w/elf-split"
if [ -z "${NO_ELF:-}" ] && [ -d "$elf" ]; then
  dump="$bench/$w/$w.dmp" gz_store="$bench/$w/symbols"
  # libc and ld.so have no ELF files here: a store with only their .sym.gz,
  # so the program modules can be found only in the ELF files.
  sys="$tmp/elf-sys/symbols"
  for m in libc.so.6 ld-linux-x86-64.so.2; do
    if [ -d "$gz_store/$m" ]; then mkdir -p "$sys" && cp -r "$gz_store/$m" "$sys/"; fi
  done
  labels=() argv=()
  add() { labels+=("$1"); shift; argv+=("$*"); }   # paths here hold no spaces
  add ".sym.gz" "$dump" "$gz_store"
  add "elf" "$dump" "$elf" "$sys"
  if [ -d "$split/by-name" ]; then add "elf-split/name" "$dump" "$split/by-name" "$sys"; fi
  if [ -d "$split/by-build-id" ]; then add "elf-split/bid" "$dump" "$split/by-build-id" "$sys"; fi
  for n in ${ELF_MAX_FRAMES-1 5 50}; do
    add ".sym.gz,max$n" "--max-frames=$n" "$dump" "$gz_store"
    add "elf,max$n" "--max-frames=$n" "$dump" "$elf" "$sys"
  done
  echo
  di=$(python3 - "$elf"/* <<'PY'
import re, subprocess, sys
n = 0
for f in sys.argv[1:]:
    o = subprocess.run(["readelf", "-S", "-W", f], capture_output=True, text=True).stdout
    m = re.search(r"\]\s+\.debug_info\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", o)
    n += int(m.group(1), 16) if m else 0
print(n)
PY
)
  units=0
  for f in "$elf"/*; do
    units=$((units + $(readelf --debug-dump=aranges "$f" 2>/dev/null | grep -c 'Offset into .debug_info' || true)))
  done
  printf 'ELF/DWARF: %s (.debug_info of the 3 files: %s bytes in %s units); load average: %s\n' \
    "$w" "$di" "$units" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-16s %-18s %24s %28s %24s %6s\n' workload "symbols" "wall s median (min-max)" "peak RSS KiB median (min-max)" "frames: ctx/cfi/fp/scan" units
  for i in "${!labels[@]}"; do
    # shellcheck disable=SC2086
    "$sw" ${argv[$i]} >/dev/null 2>&1 || true
    : > "$tmp/etimes.$i"
  done
  for _ in $(seq "$rounds"); do
    for i in "${!labels[@]}"; do
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %M' -a -o "$tmp/etimes.$i" "$sw" ${argv[$i]} >/dev/null 2>&1 || true
    done
  done
  for i in "${!labels[@]}"; do
    t="$tmp/etimes.$i"
    read -r wmed wmin wmax < <(sort -n "$t" | awk '{w[NR]=$1} END{print w[int((NR+1)/2)], w[1], w[NR]}')
    read -r mmed mmin mmax < <(sort -k2,2n "$t" | awk '{m[NR]=$2} END{print m[int((NR+1)/2)], m[1], m[NR]}')
    # shellcheck disable=SC2086
    "$sw" ${argv[$i]} > "$tmp/eout.$i" 2>"$tmp/eerr.$i" || true
    # shellcheck disable=SC2086
    "$sw" --json ${argv[$i]} > "$tmp/ejson.$i" 2>/dev/null || true
    out=$(cat "$tmp/eout.$i")
    frames=$(grep -c 'Found by:' <<<"$out" || true)
    ctx=$(grep -c 'Found by: given as instruction pointer' <<<"$out" || true)
    cfi=$(grep -c 'Found by: call frame info$' <<<"$out" || true)
    fp=$(grep -c "Found by: previous frame's frame pointer" <<<"$out" || true)
    scan=$(grep -c 'Found by: stack scanning' <<<"$out" || true)
    # units touched: distinct (module, source file) of the program modules' frames
    touched=$(python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print("?"); sys.exit()
print(len({(f["module"], f["file"]) for t in d.get("threads") or [] for f in t.get("frames") or []
           if f.get("file") and (f.get("module") or "").startswith(("gen48k", "libgen48k"))}))' "$tmp/ejson.$i")
    printf '%-16s %-18s %8s (%s-%s) %14s (%s-%s) %8s: %s/%s/%s/%s %6s\n' \
      "$w" "${labels[$i]}" "$wmed" "$wmin" "$wmax" "$mmed" "$mmin" "$mmax" "$frames" "$ctx" "$cfi" "$fp" "$scan" "$touched"
  done
  # Correctness of each ELF walk: its frames against the .sym walk of the
  # same frame limit, its chains against the ground truth.
  for i in "${!labels[@]}"; do
    l=${labels[$i]}
    case $l in elf*) ;; *) continue ;; esac
    want=.sym.gz
    [ "${l#*,}" = "$l" ] || want=".sym.gz,${l#*,}"
    ref=0
    for j in "${!labels[@]}"; do if [ "${labels[$j]}" = "$want" ]; then ref=$j; fi; done
    python3 "$here/compare_walks.py" "$tmp/ejson.$ref" "$tmp/ejson.$i" "$l vs ${labels[$ref]}" || true
    if [ "${l#*,}" = "$l" ] && [ -f "$bench/$w/expected_chains.txt" ]; then
      python3 "$here/check_gen48k.py" "$bench/$w/expected_chains.txt" "$tmp/eout.$i" | tail -1 | sed "s|^|$l: ground truth: |" || true
    fi
    if [ -s "$tmp/eerr.$i" ]; then sed -n "1,3s|^|$l: stderr: |p" "$tmp/eerr.$i"; fi
  done
fi

# ---- ELF core: gen48k_core beside eu-stack and gdb ----
# The gen48k crash as gdb's gcore wrote it (BENCH_DIR/gen48k_core: core,
# bin/ with the program's three ELF files, DWARF 5 inside). stackwalk gets
# bin/ and this machine's libc directory as symbol paths; eu-stack and gdb
# open the files at the paths the core names (/tmp/g48/src, where the
# program ran), linked to bin/ when missing. Each walks every thread
# (eu-stack -n 1000: its default stops at 256 frames); the chains are
# checked against the ground truth.
cdir="$bench/gen48k_core"
if [ -z "${NO_CORE:-}" ] && [ -f "$cdir/core" ]; then
  core="$cdir/core" bin="$cdir/bin"
  if [ ! -e /tmp/g48/src ]; then mkdir -p /tmp/g48 && ln -s "$bin" /tmp/g48/src; fi
  clabels=(stackwalk) cargv=("$sw $core $bin /lib/x86_64-linux-gnu")
  if command -v eu-stack >/dev/null; then
    clabels+=(eu-stack); cargv+=("eu-stack -n 1000 --core $core -e /tmp/g48/src/gen48k")
  fi
  if command -v gdb >/dev/null; then
    clabels+=(gdb); cargv+=("gdb -nx -batch -ex set\ pagination\ off -ex thread\ apply\ all\ bt /tmp/g48/src/gen48k $core")
  fi
  echo
  printf 'ELF core: gen48k_core (%s bytes, 9 threads); load average: %s\n' \
    "$(stat -L -c %s "$core")" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-16s %-10s %24s %28s %8s\n' workload tool "wall s median (min-max)" "peak RSS KiB median (min-max)" frames
  run_core() { eval "${cargv[$1]}"; }
  for i in "${!clabels[@]}"; do run_core "$i" >/dev/null 2>&1 || true; : > "$tmp/ctimes.$i"; done
  for _ in $(seq "$rounds"); do
    for i in "${!clabels[@]}"; do
      # shellcheck disable=SC2046
      /usr/bin/time -f '%e %M' -a -o "$tmp/ctimes.$i" bash -c "$(declare -p cargv); eval \"\${cargv[$i]}\"" >/dev/null 2>&1 || true
    done
  done
  for i in "${!clabels[@]}"; do
    t="$tmp/ctimes.$i"
    read -r wmed wmin wmax < <(sort -n "$t" | awk '{w[NR]=$1} END{print w[int((NR+1)/2)], w[1], w[NR]}')
    read -r mmed mmin mmax < <(sort -k2,2n "$t" | awk '{m[NR]=$2} END{print m[int((NR+1)/2)], m[1], m[NR]}')
    run_core "$i" > "$tmp/cout.$i" 2>/dev/null || true
    case ${clabels[$i]} in
      stackwalk) frames=$(grep -cE '^ *[0-9]+  ' "$tmp/cout.$i" || true) ;;
      eu-stack) frames=$(grep -cE '^#[0-9]+ ' "$tmp/cout.$i" || true) ;;
      gdb) frames=$(grep -cE '^#[0-9]+ ' "$tmp/cout.$i" || true) ;;
    esac
    printf '%-16s %-10s %8s (%s-%s) %14s (%s-%s) %8s\n' gen48k_core "${clabels[$i]}" \
      "$wmed" "$wmin" "$wmax" "$mmed" "$mmin" "$mmax" "$frames"
    echo "$wmed $mmed" > "$tmp/cmedian.$i"
  done
  for i in "${!clabels[@]}"; do
    [ "$i" -eq 0 ] && continue
    read -r w0 m0 < "$tmp/cmedian.0"
    read -r wi mi < "$tmp/cmedian.$i"
    awk -v n="${clabels[$i]}" -v a="$wi" -v b="$w0" -v c="$mi" -v d="$m0" 'BEGIN{
      printf "%-16s stackwalk vs %s: %.2fx the speed, %.0f%% of the memory\n", "", n, (b > 0 ? a / b : 0), (c > 0 ? 100 * d / c : 0) }'
  done
  if [ -f "$bench/gen48k_depth500/expected_chains.txt" ]; then
    python3 "$here/check_gen48k.py" "$bench/gen48k_depth500/expected_chains.txt" "$tmp/cout.0" | tail -1 |
      sed 's|^|gen48k_core stackwalk: ground truth: |' || true
  fi
fi

# ---- Batch mode: --batch against single runs and Breakpad ----
if [ -z "${NO_BATCH:-}" ]; then
  BREAKPAD_STACKWALK=$bp "$here/batch.sh" "$sw" "$bench" || true
fi
