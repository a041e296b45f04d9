#!/usr/bin/env bash
# zoo_campaign.sh: thousands of zoo programs (tests/zoo, docs/zoo.md):
# every CPU x flag family over a seed range, each program built, crashed,
# walked three ways and checked against the chain it recorded itself.
#
#   scripts/zoo_campaign.sh [options]
#
#   --cpu LIST      CPUs, comma-separated, or all (default): x86_64 i386
#                   aarch64 armhf mips mipsel mips64el ppc64le riscv64
#   --flags LIST    flag families, comma-separated, or all (default):
#                   unwind fp nofp (the family is forced; optimisation,
#                   debug info, linking, musl, ARM/Thumb are drawn from
#                   the seed)
#   --seeds A-B     the seeds, inclusive (default 1-100)
#   --jobs N        programs at once (default: the number of CPUs)
#   --time S        start no program after S seconds (default: no limit)
#   --results DIR   where results go (default $ZOO_RESULTS, else
#                   /tmp/zoo-campaign); a campaign resumes there
#   --stackwalk P   the stackwalk to test (default build/cmd/stackwalk)
#   --no-gdb        do not record gdb's answer
#   --table         only print the table of DIR/results.tsv
#
# DIR/results.tsv gets a row per program (verdicts of the three walks and
# gdb's); DIR/failing.txt a line per failing program (an invented or
# skipped frame, a walk that failed, a program that did not build or
# crash), whose folder is kept as DIR/fail/CPU-FAMILY-SEED/ (sources,
# binaries, the core gzipped or the offline capture, stackwalk's walks,
# gdb's backtrace, the truth and each walk's tokens). A program of the
# same stackwalk build already in results.tsv is not run again. The table
# (docs/zoo.md's) is printed at the end. Everything runs under nice -n 19.
# Exit status: 1 when a program of this run failed, 2 on a usage error.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
exec nice -n 19 python3 "$here/tests/zoo/zoo_campaign.py" "$@"
