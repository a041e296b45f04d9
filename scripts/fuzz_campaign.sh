#!/usr/bin/env bash
# fuzz_campaign.sh: long libFuzzer runs of every fuzz target of a
# -Dfuzzing=true build, resumable across sessions (docs/fuzzing.md).
#
#   scripts/fuzz_campaign.sh [options] [TARGET...]
#
#   --build DIR     the build (default build-fz: CC=clang meson setup build-fz
#                   -Dfuzzing=true -Db_lundef=false)
#   --runs N        executions each target must reach (default 10000000)
#   --time S        at most S seconds per target in this invocation (default:
#                   no limit; the campaign resumes where it stopped)
#   --chunk S       one libFuzzer run lasts at most S seconds (default 900):
#                   progress is saved after each, so a killed session loses
#                   at most one chunk
#   --until HH:MM   stop at this time (local clock): no chunk starts after
#                   it, and the last one is cut short to end there
#   --measure S     only measure: each target S seconds (default 30), its
#                   exec/s saved; the campaign then runs the quickest first
#   --timeout S     libFuzzer -timeout: an input slower than this is a hang
#                   (default 10)
#   --rss MB        libFuzzer -rss_limit_mb (default 2048)
#   --retry         run targets again that crashed for this commit
#   --table         print the results table (docs/fuzzing.md) and exit:
#                   each target's newest row, a --measure one only when
#                   it has no other
#   --list          print the targets and their seed folders and exit
#
# Targets and seeds come from the build itself: the fuzz-smoke tests that
# tests/meson.build declares (one entry per target in fuzz_seeds), as meson
# records them in DIR/meson-info/intro-tests.json, so the campaign and the
# smoke suite never drift apart. ../shared/corpus/fuzz-found (inputs that
# broke the minidump reader before) is added for the minidump targets.
#
# Work goes to $FUZZ_WORK (default /work/fuzz-work when /work is writable,
# else $HOME/.cache/stackwalk-fuzz), outside the repository:
#   TARGET/corpus/      the target's corpus (the seed folders stay read-only)
#   TARGET/artifacts/   what libFuzzer wrote (crash-*, timeout-*, oom-*, leak-*)
#   TARGET/chunk-N.log  each run's output
#   TARGET/campaign.PID each campaign running the target: the executions
#                       its running chunk asked for (two campaigns on one
#                       target share what is left instead of each running
#                       all of it)
#   findings/TARGET/    copies of every crash, hang, leak or out-of-memory input
#   state.tsv           per commit and target: executions, seconds, status
#                       (restored from $FUZZ_RESULTS when missing: a new
#                       machine resumes where the committed results stop)
# (the commit is HEAD's; FUZZ_KEY=NAME keeps one campaign's progress across
# commits instead, e.g. while the tree moves under a long campaign)
#   rates.tsv           measured exec/s per target (--measure)
# Each chunk appends a row to $FUZZ_RESULTS (default docs/fuzzing-results.tsv):
#   date commit target executions seconds exec/s cov ft crashes hangs status cpu
# (seconds: wall time; cpu: user + system seconds), with the totals of that
# commit so far; --table prints the newest row of each target.
#
# Every fuzzer runs under nice -n 19, one at a time. Exit status: 0 when no
# target found anything, 1 when a target crashed, hung, leaked or ran out of
# memory (the inputs are named on stderr), 2 on a usage or setup error.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=build-fz runs=10000000 time_budget=0 chunk=900 until="" measure=0
timeout=10 rss=2048 retry=0 mode=run
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --time) time_budget="$2"; shift 2 ;;
    --chunk) chunk="$2"; shift 2 ;;
    --until) until="$2"; shift 2 ;;
    --measure) mode=measure
               if [[ "${2:-}" =~ ^[0-9]+$ ]]; then measure="$2"; shift 2; else measure=30; shift; fi ;;
    --timeout) timeout="$2"; shift 2 ;;
    --rss) rss="$2"; shift 2 ;;
    --retry) retry=1; shift ;;
    --table) mode=table; shift ;;
    --list) mode=list; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz_campaign: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
case "$build" in /*) ;; *) build="$here/$build" ;; esac

if [ -z "${FUZZ_WORK:-}" ]; then
  if [ -w /work ]; then FUZZ_WORK=/work/fuzz-work; else FUZZ_WORK="$HOME/.cache/stackwalk-fuzz"; fi
fi
results="${FUZZ_RESULTS:-$here/docs/fuzzing-results.tsv}"
state="$FUZZ_WORK/state.tsv" rates="$FUZZ_WORK/rates.tsv"
fuzz_found=$(cd "$here/../shared/corpus/fuzz-found" 2>/dev/null && pwd || true)
results_header=$'date\tcommit\ttarget\texecutions\tseconds\texec_per_s\tcov\tft\tcrashes\thangs\tstatus\tcpu_seconds'

# The results table: the newest row of each target (of any commit); a
# --measure row only for a target that has no other.
if [ "$mode" = table ]; then
  [ -f "$results" ] || { echo "fuzz_campaign: no $results yet" >&2; exit 2; }
  echo "| target | executions | exec/s | cov (edges) | ft | crashes | hangs | status | date | commit |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |"
  awk -F'\t' 'NR > 1 && $11 ~ /^measure/ { m[$3] = $0 } NR > 1 && $11 !~ /^measure/ { last[$3] = $0 }
       END { for (t in m) if (!(t in last)) last[t] = m[t]; for (t in last) print last[t] }' "$results" |
    sort -t$'\t' -k3,3 |
    awk -F'\t' '{ printf "| %s | %\047d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                  $3, $4, $6, $7, $8, $9, $10, $11, substr($1, 1, 10), $2 }'
  exit 0
fi

intro="$build/meson-info/intro-tests.json"
if [ ! -f "$intro" ]; then
  echo "fuzz_campaign: $build is not a meson build (no $intro)" >&2
  exit 2
fi
# TARGET<TAB>EXE<TAB>SEED...: the fuzz-smoke tests' arguments
# (tests/fuzz_smoke.sh FUZZER WORKDIR SEED_DIR...).
listing=$(python3 - "$intro" "$build" <<'EOF'
import json, os, sys
intro, build = sys.argv[1], sys.argv[2]
for t in json.load(open(intro)):
    if not any(s.endswith('fuzz-smoke') for s in t['suite']):
        continue
    exe, _work, *seeds = t['cmd'][1:]
    exe = exe if os.path.isabs(exe) else os.path.join(build, exe)
    print('\t'.join([t['name'], exe] + [os.path.normpath(s) for s in seeds]))
EOF
)
if [ -z "$listing" ]; then
  echo "fuzz_campaign: $build has no fuzz targets: configure it with -Dfuzzing=true" >&2
  exit 2
fi

target_line() { awk -F'\t' -v t="$1" '$1 == t' <<<"$listing"; }
seeds_of() {
  target_line "$1" | cut -f3- | tr '\t' '\n'
  case "$1" in
    fuzz_minidump|fuzz_walk_minidump) [ -n "$fuzz_found" ] && echo "$fuzz_found" ;;
  esac
  return 0
}

if [ "$mode" = list ]; then
  while IFS=$'\t' read -r name exe _; do
    echo "$name ($exe)"
    seeds_of "$name" | sed 's/^/  /'
  done <<<"$listing"
  exit 0
fi

if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cut -f1 <<<"$listing")
fi
for t in "${targets[@]}"; do
  [ -n "$(target_line "$t")" ] || { echo "fuzz_campaign: no target $t in $build" >&2; exit 2; }
  [ -x "$(target_line "$t" | cut -f2)" ] ||
    { echo "fuzz_campaign: $t is not built: ninja -C $build tests/$t" >&2; exit 2; }
done

commit=${FUZZ_KEY:-$(git -C "$here" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
mkdir -p "$FUZZ_WORK/findings"
if [ ! -f "$state" ]; then
  printf 'commit\ttarget\texecutions\tseconds\tstatus\tcov\tft\tcrashes\thangs\tcpu_seconds\n' >"$state"
  # A new machine has no $FUZZ_WORK: the campaign's progress comes back
  # from the committed results (the newest row of each target of this
  # commit or FUZZ_KEY); the corpora grow again from the seeds.
  if [ -f "$results" ]; then
    awk -F'\t' -v c="$commit" 'NR > 1 && $2 == c { last[$3] = $0 }
         END { for (t in last) print last[t] }' "$results" |
      awk -F'\t' 'BEGIN { OFS = "\t" } $11 !~ /^measure/ {
             print $2, $3, $4, $5, $11, $7, $8, $9, $10, ($12 == "" ? $5 : $12) }' >>"$state"
    restored=$(($(wc -l <"$state") - 1))
    [ "$restored" -gt 0 ] &&
      echo "fuzz_campaign: $state restored from $results: $restored targets of $commit"
  fi
fi
[ -f "$results" ] || printf '%s\n' "$results_header" >"$results"

# The newest state of (commit, target): executions seconds status cov ft crashes hangs cpu.
state_of() {
  awk -F'\t' -v c="$commit" -v t="$1" '$1 == c && $2 == t { s = $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8 "\t" $9 "\t" ($10 == "" ? $4 : $10) }
       END { print (s == "" ? "0\t0\tnew\t0\t0\t0\t0\t0" : s) }' "$state"
}

until_epoch=""
if [ -n "$until" ]; then
  until_epoch=$(date -d "$until" +%s) ||
    { echo "fuzz_campaign: --until $until: not a time" >&2; exit 2; }
fi

# The campaigns on target $1 now, as "RUNNING IDLE CLAIMED": how many
# (this one, $2, included), how many are between chunks (this one
# included), and the executions the others' running chunks asked for. A
# campaign.PID file whose process is gone is removed (a reused PID only
# makes a share smaller: the next chunk makes up for it).
campaigns_on() {
  local f running=1 idle=1 claimed=0 c
  for f in "$FUZZ_WORK/$1"/campaign.*; do
    [ -e "$f" ] && [ "$f" != "$2" ] || continue
    if ! kill -0 "${f##*.}" 2>/dev/null; then rm -f "$f"; continue; fi
    running=$((running + 1))
    c=$(cat "$f" 2>/dev/null || true)
    [[ "$c" =~ ^[0-9]+$ ]] || c=0
    if [ "$c" -eq 0 ]; then idle=$((idle + 1)); else claimed=$((claimed + c)); fi
  done
  echo "$running $idle $claimed"
}

# Whether a timeout input is slow on its own: true when its single-input
# run takes at least the timeout in CPU seconds, fails, or cannot be
# measured. Sets r_recheck (the CPU seconds).
timeout_reproduces() {
  local exe="$1" input="$2" out rc=0
  r_recheck=?
  [ -x /usr/bin/time ] || return 0
  out=$(mktemp)
  /usr/bin/time -o "$out" -f '%U %S' "$exe" -timeout=$((timeout * 6)) -rss_limit_mb="$rss" \
    "$input" >/dev/null 2>&1 || rc=$?
  r_recheck=$(awk 'END { printf "%.1f", $1 + $2 }' "$out")
  rm -f "$out"
  [ "$rc" -ne 0 ] && return 0
  awk -v c="$r_recheck" -v t="$timeout" 'BEGIN { exit !(c >= t) }'
}

# One libFuzzer run of target for at most secs seconds and runs executions.
# Sets: r_execs r_secs r_cpu r_cov r_ft r_found (crash/hang/leak/oom artifacts, new
# ones copied to the findings) r_status (ok, crash, hang, oom, leak).
run_chunk() {
  local t="$1" secs="$2" nruns="$3" log="$4"
  local exe dir
  exe=$(target_line "$t" | cut -f2)
  dir="$FUZZ_WORK/$t"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local before after
  before=$(ls "$dir/artifacts" | sort)
  local seeds=()
  mapfile -t seeds < <(seeds_of "$t")
  local start end rc=0
  start=$(date +%s)
  # Run from the work folder: a stray file a harness writes lands there.
  # CPU seconds too (user + system): on a shared machine wall time is not
  # what a target costs.
  local timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -o "$log.cpu" -f '%U %S')
  # The minidump targets' inputs are capped at 128 KB: their corpus has
  # dumps of up to 1 MB (three seeds above the cap), and mutants that big
  # ran half as fast for the same coverage (fuzz_minidump, 25 s: 412 exec/s
  # and 1,097 edges uncapped, 878 and 1,096 capped). The microdump target's
  # at 64 KB: every real microdump of the corpus but one (268 KB) fits
  # whole, and it ran 1.7 times as fast as at 128 KB for the same coverage
  # (25 s from the campaign's corpus: 580 exec/s and 462 edges, 342 and
  # 455 at 128 KB).
  # fuzz_breakpad_sym's at 64 KB: its seeds are 1-46 KB, and the corpus
  # its first runs grew from an 818 KB seed (885 MB, mutants of up to
  # 800 KB) ran at 985 exec/s; merged at 64 KB it kept its 958 edges in
  # 11 MB (`-merge=1 -max_len=65536`) and runs at ~3,000.
  local limits=()
  case $t in
    fuzz_minidump|fuzz_walk_minidump) limits=(-max_len=131072) ;;
    fuzz_microdump|fuzz_breakpad_sym) limits=(-max_len=65536) ;;
  esac
  rm -f "$log.cpu"
  (cd "$dir" && nice -n 19 "${timer[@]}" "$exe" -runs="$nruns" -max_total_time="$secs" \
      -timeout="$timeout" -rss_limit_mb="$rss" -print_final_stats=1 "${limits[@]}" \
      -artifact_prefix="$dir/artifacts/" "$dir/corpus" "${seeds[@]}") >"$log" 2>&1 || rc=$?
  end=$(date +%s)
  r_secs=$((end - start))
  r_cpu=$r_secs
  [ -s "$log.cpu" ] && r_cpu=$(awk 'END { printf "%d", $1 + $2 + 0.5 }' "$log.cpu")
  r_execs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log" | tail -1)
  if [ -z "$r_execs" ]; then
    # No final stats (a crash): the last status line's count.
    r_execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  fi
  r_execs=${r_execs:-0}
  local covline
  covline=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 || true)
  r_cov=$(awk '{ print $2 }' <<<"$covline"); r_cov=${r_cov:-0}
  r_ft=$(awk '{ print $4 }' <<<"$covline"); r_ft=${r_ft:-0}
  after=$(ls "$dir/artifacts" | sort)
  r_found=()
  local f
  for f in $(comm -13 <(echo "$before") <(echo "$after")); do
    case "$f" in
      crash-*|timeout-*|oom-*|leak-*)
        mkdir -p "$FUZZ_WORK/findings/$t"
        cp "$dir/artifacts/$f" "$FUZZ_WORK/findings/$t/"
        r_found+=("$FUZZ_WORK/findings/$t/$f") ;;
    esac
  done
  # A timeout is confirmed by running its input again on its own:
  # libFuzzer's -timeout is wall time, and a fuzzer at nice 19 beside a
  # build or a test suite gets almost no CPU (29 Nov: two inputs that run
  # in 0.7 and 6.5 s timed out at 13 s while the CI ran beside them). One
  # that takes less CPU than the timeout in that run (which executes it
  # twice, the leak check's second time included) is not a hang: it is
  # moved to findings/TARGET/unconfirmed/ and does not stop the campaign.
  local kept=() dropped=0
  for f in "${r_found[@]}"; do
    case "$(basename "$f")" in
      timeout-*)
        if ! timeout_reproduces "$exe" "$f"; then
          mkdir -p "$FUZZ_WORK/findings/$t/unconfirmed"
          mv "$f" "$FUZZ_WORK/findings/$t/unconfirmed/"
          echo "fuzz_campaign: $t: $(basename "$f"): $r_recheck CPU seconds on its own: not a hang (findings/$t/unconfirmed/)" >&2
          dropped=$((dropped + 1))
          continue
        fi ;;
    esac
    kept+=("$f")
  done
  r_found=("${kept[@]}")
  [ "$dropped" -gt 0 ] && [ ${#r_found[@]} -eq 0 ] && rc=0
  r_status=ok
  for f in "${r_found[@]}"; do
    case "$(basename "$f")" in
      crash-*) r_status=crash ;;
      timeout-*) [ "$r_status" = ok ] && r_status=hang ;;
      oom-*) [ "$r_status" = ok ] && r_status=oom ;;
      leak-*) [ "$r_status" = ok ] && r_status=leak ;;
    esac
  done
  if [ "$rc" -ne 0 ] && [ "$r_status" = ok ]; then
    r_status=crash # failed without an artifact (e.g. while loading the seeds)
    echo "fuzz_campaign: $t exited $rc without an artifact: see $log" >&2
  fi
  return 0
}

append_result() { # target execs secs cov ft crashes hangs status cpu
  local rate=0
  [ "$3" -gt 0 ] && rate=$(( $2 / $3 ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    "$commit" "$1" "$2" "$3" "$rate" "$4" "$5" "$6" "$7" "$8" "$9" >>"$results"
}

all_found=()

if [ "$mode" = measure ]; then
  [ -f "$rates" ] || printf 'commit\ttarget\texec_per_s\tcov\tft\texec_per_cpu_s\n' >"$rates"
  for t in "${targets[@]}"; do
    log="$FUZZ_WORK/$t/measure.log"
    mkdir -p "$FUZZ_WORK/$t"
    run_chunk "$t" "$measure" 2000000000 "$log"
    rate=0
    [ "$r_secs" -gt 0 ] && rate=$((r_execs / r_secs))
    cpurate=0
    [ "$r_cpu" -gt 0 ] && cpurate=$((r_execs / r_cpu))
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$commit" "$t" "$rate" "$r_cov" "$r_ft" "$cpurate" >>"$rates"
    crashes=0 hangs=0
    case "$r_status" in crash|oom|leak) crashes=1 ;; hang) hangs=1 ;; esac
    append_result "$t" "$r_execs" "$r_secs" "$r_cov" "$r_ft" "$crashes" "$hangs" "measure-$r_status" "$r_cpu"
    printf '%-20s %8s exec/s %8s exec/cpu-s  cov %6s  ft %6s  %s\n' "$t" "$rate" "$cpurate" \
      "$r_cov" "$r_ft" "$r_status"
    all_found+=("${r_found[@]}")
  done
else
  # The quickest targets first (measured exec/s, newest measurement of
  # each; unmeasured ones last, in the build's order).
  if [ -f "$rates" ]; then
    mapfile -t targets < <(
      for t in "${targets[@]}"; do
        r=$(awk -F'\t' -v t="$t" '$2 == t { r = $3 } END { print r + 0 }' "$rates")
        printf '%s\t%s\n' "$r" "$t"
      done | sort -t$'\t' -k1,1nr -s | cut -f2)
  fi
  for t in "${targets[@]}"; do
    IFS=$'\t' read -r done_execs done_secs status cov ft crashes hangs done_cpu <<<"$(state_of "$t")"
    if [ "$status" = done ]; then
      echo "fuzz_campaign: $t: done for $commit ($done_execs executions): skipped"
      continue
    fi
    if { [ "$status" = crash ] || [ "$status" = hang ] || [ "$status" = oom ] ||
         [ "$status" = leak ]; } && [ "$retry" -eq 0 ]; then
      echo "fuzz_campaign: $t: $status for $commit: skipped (--retry runs it again)"
      all_found+=($(ls "$FUZZ_WORK/findings/$t" 2>/dev/null | sed "s|^|$FUZZ_WORK/findings/$t/|"))
      continue
    fi
    spent=0 waiting=""
    mkdir -p "$FUZZ_WORK/$t"
    registered="$FUZZ_WORK/$t/campaign.$$"
    echo 0 >"$registered"
    trap 'rm -f "$registered"' EXIT
    while :; do
      # Another campaign may run this target too (one per core on the
      # last targets): its chunks count, read afresh before each chunk.
      IFS=$'\t' read -r done_execs done_secs _ _ _ now_crashes now_hangs _ <<<"$(state_of "$t")"
      [ "$done_execs" -lt "$runs" ] || break
      if [ $((now_crashes + now_hangs)) -gt $((crashes + hangs)) ]; then
        echo "fuzz_campaign: $t: another campaign's chunk found something: stopping it here" >&2
        break
      fi
      now=$(date +%s)
      if [ -n "$until_epoch" ] && [ "$now" -ge "$until_epoch" ]; then
        echo "fuzz_campaign: $until reached: stopping ($t at $done_execs executions)"
        break 2
      fi
      secs=$chunk
      if [ "$time_budget" -gt 0 ]; then
        [ "$spent" -ge "$time_budget" ] && break
        [ $((time_budget - spent)) -lt "$secs" ] && secs=$((time_budget - spent))
      fi
      if [ -n "$until_epoch" ] && [ $((until_epoch - now)) -lt "$secs" ]; then
        secs=$((until_epoch - now))
      fi
      # Each campaign on this target (a campaign.PID file holding the
      # executions its running chunk asked for, 0 between chunks) takes
      # an equal share, with the others between chunks, of what the
      # running chunks have not asked for, so that together they stop
      # near the goal instead of each running the whole remainder. Beside
      # other campaigns a chunk asks for no more than it can run in its
      # time (the target's executions per second of chunk so far, plus a
      # half), so that a long chunk does not claim work a campaign
      # starting beside it could do. A share cut short by the chunk's
      # time is asked for again by the next chunk.
      read -r running idle claimed <<<"$(campaigns_on "$t" "$registered")"
      left=$((runs - done_execs - claimed))
      if [ "$left" -le 0 ]; then
        # On to the next target; on the last one, wait: a chunk that
        # ends on its time leaves some of its share to do.
        others="the rest is being run by $((running - 1)) other campaign(s)"
        if [ "$t" != "${targets[-1]}" ]; then
          echo "fuzz_campaign: $t: $others: leaving it to them"
          break
        fi
        [ "$waiting" = "$t" ] || echo "fuzz_campaign: $t: $others: waiting for them"
        waiting=$t
        sleep 10
        continue
      fi
      waiting=
      share=$(( (left + idle - 1) / idle ))
      if [ "$running" -gt 1 ] && [ "$done_secs" -gt 0 ] && [ "$done_execs" -gt 0 ]; then
        cap=$(( done_execs * secs * 3 / (done_secs * 2) + 1 ))
        [ "$share" -gt "$cap" ] && share=$cap
      fi
      echo "$share" >"$registered"
      # The next free log name, taken atomically (noclobber).
      n=$(ls "$FUZZ_WORK/$t" 2>/dev/null | grep -c "^chunk-.*\.log$" || true)
      until (set -C; : >"$FUZZ_WORK/$t/chunk-$((n + 1)).log") 2>/dev/null; do n=$((n + 1)); done
      log="$FUZZ_WORK/$t/chunk-$((n + 1)).log"
      echo "fuzz_campaign: $t: $done_execs of $runs executions; next chunk ${secs} s, at most $share executions ($running campaigns) ($log)"
      run_chunk "$t" "$secs" "$share" "$log"
      spent=$((spent + r_secs))
      # The chunk is added to the newest state under a lock, so that two
      # campaigns of one target add both their chunks.
      exec 9>>"$state.lock"
      flock 9
      IFS=$'\t' read -r done_execs done_secs status cov ft crashes hangs done_cpu <<<"$(state_of "$t")"
      done_execs=$((done_execs + r_execs))
      done_secs=$((done_secs + r_secs))
      done_cpu=$((done_cpu + r_cpu))
      [ "$r_cov" -gt 0 ] && cov=$r_cov ft=$r_ft
      case "$r_status" in crash|oom|leak) crashes=$((crashes + 1)) ;; hang) hangs=$((hangs + 1)) ;; esac
      status=$r_status
      [ "$status" = ok ] && status=partial
      [ "$status" = partial ] && [ "$done_execs" -ge "$runs" ] && status=done
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$commit" "$t" "$done_execs" "$done_secs" \
        "$status" "$cov" "$ft" "$crashes" "$hangs" "$done_cpu" >>"$state"
      append_result "$t" "$done_execs" "$done_secs" "$cov" "$ft" "$crashes" "$hangs" "$status" \
        "$done_cpu"
      flock -u 9
      exec 9>&-
      echo 0 >"$registered"
      all_found+=("${r_found[@]}")
      if [ "$r_status" != ok ]; then
        echo "fuzz_campaign: $t: $r_status after $done_execs executions" >&2
        break
      fi
      # A chunk that ended early without reaching its runs (and without
      # an artifact) would loop forever.
      [ "$r_execs" -eq 0 ] && { echo "fuzz_campaign: $t made no progress: see $log" >&2; break; }
    done
    rm -f "$registered"
  done
fi

if [ ${#all_found[@]} -gt 0 ]; then
  echo "fuzz_campaign: findings (crash, hang, leak or out-of-memory inputs):" >&2
  printf '  %s\n' "${all_found[@]}" >&2
  exit 1
fi
exit 0
