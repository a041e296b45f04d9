#!/usr/bin/env python3
"""check_fixtures.py: the zoo's regression test (meson test `zoo`, suite
`zoo`).

    check_fixtures.py --stackwalk PATH --work DIR [--fixtures FILE]
                      [--sample N] [--sample-seed S] [--jobs J] [--cpu CPU,...]

1. Every row of fixtures.tsv (a pinned program: CPU, seed, flag family,
   the verdict each walk must have, and why the row is there) is built,
   crashed and walked; a walk whose verdict is not as pinned fails the test.
2. A fixed sample: N seeds per CPU, S+100k .. S+100k+N-1 for the k-th CPU
   of zoo_run.CPUS (flag family drawn from the seed, as `run` does),
   asserting that no walk of the three ways holds a wrong frame (invented,
   or a live frame skipped). A program the table pins is checked as pinned
   instead (a known miss is pinned there with its reason).

A row or sample program whose compiler, qemu or C library is missing here
is reported as skipped (one line per CPU); when nothing at all could run,
the exit status is 77 (meson's "skipped"). gdb's answer is not asserted
(it belongs to gdb's version), and not run unless a row pins it.

fixtures.tsv: tab-separated, # starts a comment, columns

    CPU  SEED  FAMILY  EXPECT  CLASS/REASON

FAMILY is unwind, fp, nofp or all (drawn from the seed). EXPECT is
space-separated WAY=SPEC for the ways full, stripped, alone (and gdb); a
way not named is not checked. SPEC is a verdict kind (exact, short,
invented, skipped, empty, error), ok (every frame true: exact, short or
empty), or !KIND (anything but KIND; !invented means ok: neither
invented nor skipped nor failed); several specs joined by | are
alternatives."""
import argparse
import concurrent.futures
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("exact", "short", "invented", "skipped", "empty", "error")


class Row:
    def __init__(self, cpu, seed, family, expect, why, where):
        self.cpu, self.seed, self.family = cpu, seed, family
        self.expect = expect          # way -> [spec, ...]
        self.why = why
        self.where = where

    def key(self):
        return (self.cpu, self.seed)


def parse_spec(text, where):
    specs = text.split("|")
    for s in specs:
        if s.lstrip("!") not in KINDS + ("ok",):
            raise SystemExit("%s: unknown verdict %r" % (where, s))
    return specs


def read_fixtures(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            where = "%s:%d" % (os.path.basename(path), n)
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 4:
                raise SystemExit("%s: want CPU, SEED, FAMILY, EXPECT, REASON (tabs)" % where)
            cpu, seed, family, expect = cols[:4]
            if cpu not in zoo_run.CPUS:
                raise SystemExit("%s: unknown CPU %s" % (where, cpu))
            if family != "all" and family not in zoo_run.FAMILIES:
                raise SystemExit("%s: unknown flag family %s" % (where, family))
            exp = {}
            for item in expect.split():
                way, _, spec = item.partition("=")
                if way not in zoo_run.WAYS + ("gdb",):
                    raise SystemExit("%s: unknown walk %s" % (where, way))
                exp[way] = parse_spec(spec, where)
            rows.append(Row(cpu, int(seed), family, exp, cols[4] if len(cols) > 4 else "", where))
    return rows


def kind_of(res, way):
    w = res.walks.get(way)
    if not w:
        return None
    return "error" if w[0] is None else w[0].kind


def spec_holds(spec, kind):
    """Whether a walk's verdict kind meets one spec."""
    if spec in ("ok", "!invented"):
        return kind in ("exact", "short", "empty")
    if spec.startswith("!"):
        return kind != spec[1:]
    return kind == spec


def check_row(row, res):
    """[] when every pinned walk is as pinned, else what differs."""
    bad = []
    for way, specs in row.expect.items():
        kind = kind_of(res, way)
        if kind is None or not any(spec_holds(s, kind) for s in specs):
            bad.append("%s=%s, pinned %s" % (way, res.text(way) or "none", "|".join(specs)))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stackwalk", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fixtures", default=os.path.join(HERE, "fixtures.tsv"))
    ap.add_argument("--sample", type=int, default=5, help="seeds per CPU in the sample")
    ap.add_argument("--sample-seed", type=int, default=5000)
    ap.add_argument("--cpu", help="only these CPUs (comma-separated)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 2))
    a = ap.parse_args()
    sw = os.path.abspath(a.stackwalk)
    rows = read_fixtures(a.fixtures)
    cpus = a.cpu.split(",") if a.cpu else list(zoo_run.CPUS)
    rows = [r for r in rows if r.cpu in cpus]
    pinned = {r.key() for r in rows}
    # Each CPU its own seeds (S + 100 x the CPU's place in zoo_run.CPUS):
    # the same seed is the same program on every CPU.
    order = list(zoo_run.CPUS)
    sample = [(c, s) for c in cpus
              for s in range(a.sample_seed + 100 * order.index(c),
                             a.sample_seed + 100 * order.index(c) + a.sample)
              if (c, s) not in pinned]
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)

    # What this machine cannot run: one line per CPU, not per program.
    missing_cpu = {c: zoo_run.CPUS[c].missing() for c in cpus}
    for c, m in missing_cpu.items():
        if m:
            print("zoo: %s skipped: missing %s" % (c, ", ".join(m)))
    todo = [("row", r) for r in rows if not missing_cpu[r.cpu]] + \
           [("sample", (c, s)) for c, s in sample if not missing_cpu[c]]

    def run(item):
        what, x = item
        if what == "row":
            return item, zoo_run.run_one(x.seed, x.cpu, x.family, sw, a.work,
                                         use_gdb="gdb" in x.expect)
        c, s = x
        return item, zoo_run.run_one(s, c, "all", sw, a.work, use_gdb=False)

    failed = ran = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for (what, x), res in ex.map(run, todo):
            if res.skip:
                skipped += 1
                print("zoo: %s skipped: missing %s" % (res.line().split("  ")[0], ", ".join(res.skip)))
                continue
            ran += 1
            if res.error:
                bad = ["not built or not crashed: " + res.error.splitlines()[0]]
            elif what == "row":
                bad = check_row(x, res)
            else:
                bad = ["%s has a wrong frame" % w for w in zoo_run.WAYS
                       if kind_of(res, w) in ("invented", "skipped", "error")]
            tag = "%s %s" % (what, x.where if what == "row" else "")
            print("%s  %s%s" % ("FAIL" if bad else "ok  ", res.line(),
                                "" if not bad else "  [%s: %s]" % (tag.strip(), "; ".join(bad))),
                  flush=True)
            if bad:
                failed += 1
                if res.work:
                    print("      kept in %s" % res.work)
                d = res.details()
                if d:
                    print(d)
    skipped += len(rows) + len(sample) - len(todo)
    print("zoo fixtures: %d rows, %d sample programs; %d ran, %d skipped" % (
        len(rows), len(sample), ran, skipped))
    # The line tests/count_results.py reads.
    print("zoo: %d passed, %d failed" % (ran - failed, failed))
    if ran == 0:
        return 77
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
