#!/usr/bin/env python3
"""zoo_campaign.py: thousands of zoo programs (scripts/zoo_campaign.sh is
its front door; docs/zoo.md).

    zoo_campaign.py [--cpu CPU,...|all] [--flags FAMILY,...|all]
                    [--seeds A-B] [--jobs J] [--time SECONDS]
                    [--results DIR] [--stackwalk PATH] [--no-gdb] [--table]

Runs every CPU x flag family over the seeds A..B (inclusive), the family
forced (not drawn from the seed) so that each cell of the table gets the
seeds, until done or until --time seconds have passed (no program starts
after that). Results go to DIR (default $ZOO_RESULTS, else
/tmp/zoo-campaign), and a campaign resumes there:

    results.tsv        one row per program: cpu family seed label crash
                       full stripped alone gdb (verdicts), its seconds, and
                       the stackwalk build it was walked with
    failing.txt        one line per failing program (a walk with a wrong
                       frame, a failed walk, a program that did not build
                       or crash): cpu family seed and its verdicts, appended
    fail/CPU-FAMILY-SEED/  that program's folder: src/ (prog.c, lib.c,
                       manifest.json), the binaries (ref/ unstripped,
                       full/, stripped/), the core gzipped (core.gz) or the
                       offline capture, walk-WAY.txt (stackwalk's command,
                       exit status, stderr and JSON), gdb.txt, verdicts.txt
                       (trail, truth pattern, each walk's tokens)

A program already in results.tsv for the same stackwalk (by the
executable's SHA-256) is not run again. At the end (and with --table
alone) it prints the table of docs/zoo.md from results.tsv: per CPU and
family the programs, exact walks with every file, walks with an invented
frame (all three ways), short walks with every file, and gdb's exact
walks. Exit status 1 when any program of this run failed."""
import argparse
import collections
import concurrent.futures
import gzip
import hashlib
import os
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_run  # noqa: E402

HEADER = ["cpu", "family", "seed", "label", "crash", "full", "stripped", "alone", "gdb",
          "seconds", "stackwalk"]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def read_results(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) == len(HEADER):
                    rows.append(dict(zip(HEADER, cols)))
    return rows


def keep_failure(res, results, family):
    """Moves the program's folder under results/fail/, its core gzipped."""
    if not res.work or not os.path.isdir(res.work):
        return None
    dest = os.path.join(results, "fail", "%s-%s-%d" % (res.cpu, family, res.seed))
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.move(res.work, dest)
    run = os.path.join(dest, "run")
    if os.path.isdir(run):
        for f in os.listdir(run):
            path = os.path.join(run, f)
            if os.path.isfile(path) and (f == "core" or f.endswith(".core")):
                with open(path, "rb") as src, gzip.open(os.path.join(dest, "core.gz"), "wb") as dst:
                    shutil.copyfileobj(src, dst)
                os.unlink(path)
    for f in ("bin", "gdb.sock"):
        p = os.path.join(dest, f)
        if os.path.isdir(p):
            shutil.rmtree(p)          # a copy of full/
        elif os.path.exists(p):
            os.unlink(p)
    return dest


def verdict_text(res, way):
    if res.skip:
        return "not-run"
    if res.error:
        return "error"
    return res.text(way) or "-"


def table(rows):
    """docs/zoo.md's table (markdown) from results rows."""
    cells = collections.OrderedDict()
    for cpu in zoo_run.CPUS:
        for fam in sorted(zoo_run.FAMILIES):
            cells[(cpu, fam)] = collections.Counter()
    for r in rows:
        c = cells.setdefault((r["cpu"], r["family"]), collections.Counter())
        if r["full"] == "not-run":
            continue
        c["programs"] += 1
        if r["full"] == "error":
            c["errors"] += 1
            continue
        c["exact"] += r["full"].startswith("exact")
        c["short"] += r["full"].startswith(("short", "empty"))
        for way in ("full", "stripped", "alone"):
            c["invented"] += r[way].startswith(("invented", "skipped"))
            c["walk_errors"] += r[way].startswith("error")
        if r["gdb"] not in ("-", ""):
            c["gdb_walks"] += 1
            c["gdb"] += r["gdb"].startswith("exact")
    out = ["| CPU | family | programs | exact (full) | invented (3 ways) | short (full) | gdb exact |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    total = collections.Counter()
    for (cpu, fam), c in cells.items():
        if not c["programs"]:
            continue
        total.update(c)
        out.append(row_text(cpu, fam, c))
    out.append(row_text("all", "", total))
    return "\n".join(out)


def row_text(cpu, fam, c):
    extra = ""
    if c["errors"]:
        extra = " (%d not built or not crashed)" % c["errors"]
    gdb = "%d of %d" % (c["gdb"], c["gdb_walks"]) if c["gdb_walks"] != c["programs"] - c["errors"] \
        else "%d" % c["gdb"]
    inv = "%d" % c["invented"] + (" (+%d failed)" % c["walk_errors"] if c["walk_errors"] else "")
    return "| %s | %s | %d%s | %d | %s | %d | %s |" % (cpu, fam, c["programs"], extra, c["exact"],
                                                   inv, c["short"], gdb)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpu", default="all")
    ap.add_argument("--flags", default="all")
    ap.add_argument("--seeds", default="1-100", help="A-B, inclusive")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--time", type=float, default=0, help="seconds; 0: no limit")
    ap.add_argument("--results", default=os.environ.get("ZOO_RESULTS", "/tmp/zoo-campaign"))
    ap.add_argument("--stackwalk", default=os.path.join(zoo_run.REPO, "build", "cmd", "stackwalk"))
    ap.add_argument("--no-gdb", action="store_true")
    ap.add_argument("--table", action="store_true", help="only print the table of results.tsv")
    a = ap.parse_args()
    results = os.path.abspath(a.results)
    os.makedirs(results, exist_ok=True)
    tsv = os.path.join(results, "results.tsv")
    if a.table:
        print(table(read_results(tsv)))
        return 0
    cpus = list(zoo_run.CPUS) if a.cpu == "all" else a.cpu.split(",")
    fams = sorted(zoo_run.FAMILIES) if a.flags == "all" else a.flags.split(",")
    for c in cpus:
        if c not in zoo_run.CPUS:
            sys.exit("zoo_campaign: unknown CPU %s" % c)
    for f in fams:
        if f not in zoo_run.FAMILIES:
            sys.exit("zoo_campaign: unknown flag family %s" % f)
    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    sw = os.path.abspath(a.stackwalk)
    sw_id = sha256(sw)
    done = {(r["cpu"], r["family"], r["seed"]) for r in read_results(tsv) if r["stackwalk"] == sw_id}
    # Interleaved: every cell advances together, so a time budget leaves a
    # table with every cell filled alike.
    todo = [(c, f, s) for s in seeds for c in cpus for f in fams if (c, f, str(s)) not in done]
    work = os.path.join(results, "work")
    os.makedirs(work, exist_ok=True)
    if not os.path.exists(tsv):
        with open(tsv, "w") as f:
            f.write("#" + "\t".join(HEADER) + "\n")
    lock = threading.Lock()
    deadline = time.time() + a.time if a.time else None
    failed = 0

    def one(job):
        cpu, fam, seed = job
        if deadline and time.time() > deadline:
            return None
        t0 = time.time()
        res = zoo_run.run_one(seed, cpu, fam, sw, work, use_gdb=not a.no_gdb)
        secs = time.time() - t0
        kept = None
        if res.failed():
            kept = keep_failure(res, results, fam)
        elif res.work:
            shutil.rmtree(res.work, ignore_errors=True)
        row = [cpu, fam, str(seed), res.label, res.crash] + \
              [verdict_text(res, w) for w in zoo_run.WAYS + ("gdb",)] + ["%.1f" % secs, sw_id]
        with lock:
            with open(tsv, "a") as f:
                f.write("\t".join(row) + "\n")
            if res.failed():
                with open(os.path.join(results, "failing.txt"), "a") as f:
                    f.write("%s %s %d  %s%s\n" % (cpu, fam, seed, res.line().split("  ", 1)[-1],
                                                 "  " + kept if kept else ""))
            print(res.line(), flush=True)
        return res

    print("zoo_campaign: %d programs to run (%d already in %s)" % (len(todo), len(done), tsv),
          flush=True)
    totals = zoo_run.Totals()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for res in ex.map(one, todo):
            if res is None:
                continue
            totals.add(res)
            failed += res.failed()
    shutil.rmtree(work, ignore_errors=True)
    print(totals.line())
    print()
    print(table(read_results(tsv)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
