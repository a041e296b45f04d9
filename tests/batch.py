#!/usr/bin/env python3
"""stackwalk --batch end to end (docs/batch.md), over the real corpus: each
NDJSON line is, but for its "file" key, the --json document of a single run
of that input; lines come in input order with 1 and 4 jobs; an unreadable
file, a damaged one and a folder of dumps in the middle of the list each
give their lines and the batch goes on; "-" reads paths from stdin (by
lines, or NUL-separated with --null) and walks them as they come; exit
statuses; progress only on a terminal; threads sharing one symbol cache
leave one index per symbol file; each microdump of a log holding several
is named by its line's "microdump" key."""
import argparse, glob, gzip, json, os, pty, select, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--stackwalk", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--example", required=True, help="testdata/example")
ap.add_argument("--quick", action="store_true", help="fewer dumps (sanitizer builds)")
a = ap.parse_args()

if not os.path.isfile(os.path.join(a.corpus, "manifest.tsv")):
    print("%s not found: batch skipped" % a.corpus)
    sys.exit(77)

fails = 0
def check(ok, what):
    global fails
    if not ok:
        fails += 1
        print("FAIL:", what)

# The dumps of the corpus's manifest (one row per dump, its first symbol
# path) and the bundled example. A batch takes one list of symbol paths for
# all its inputs: every store is given, to the single runs alike.
dumps, stores = [], []
for line in open(os.path.join(a.corpus, "manifest.tsv")):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    if len(f) < 7 or f[2] != "-":
        continue
    d = os.path.join(a.corpus, f[0], f[1])
    if os.path.isfile(d) and d not in dumps:
        dumps.append(d)
    if f[6] != "-":
        s = os.path.join(a.corpus, f[0], f[6])
        if os.path.isdir(s) and s not in stores:
            stores.append(s)
dumps.append(os.path.join(a.example, "test.dmp"))
stores.append(os.path.join(a.example, "symbols"))
if a.quick:
    dumps = dumps[::6]
sym_args = [w for s in stores for w in ("--symbols-path", s)]

work = tempfile.mkdtemp(prefix="sw_batch_")
cache = os.path.join(work, "cache")
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "xdg"))

def run(args, stdin=None):
    p = subprocess.run([a.stackwalk] + args, input=stdin, capture_output=True, env=env)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")

# What a single run prints: one JSON document per line (a microdump log:
# one per microdump), or nothing when the input is unreadable.
single = {}
not_snapshot = set()   # paths a single run refuses as no snapshot at all
def single_docs(path):
    if path not in single:
        rc, out, err = run(["--json", "--no-cache", path] + sym_args)
        single[path] = (rc, [json.loads(l) for l in out.splitlines() if l.strip()])
        if rc == 3 and "not a snapshot" in err:
            not_snapshot.add(path)
    return single[path]

def lines_of(out):
    docs = []
    for l in out.splitlines():
        try:
            docs.append(json.loads(l))
        except ValueError:
            check(False, "not a JSON line: %r" % l[:200])
    return docs

# A log of several microdumps: where each is, from the headers a single
# --machine run prints before each report ("Microdump|2|3|192").
def microdump_keys(path):
    rc, out, err = run(["-m", "--no-cache", path])
    return [{"number": int(f[1]), "count": int(f[2]), "line": int(f[3])}
            for f in (l.split("|") for l in out.splitlines()) if f[0] == "Microdump"]

# The lines a batch of `inputs` must print, from single runs: a file in a
# folder that is no snapshot is SKIPPED, one named itself an error.
def expected(inputs, in_folder=False):
    want = []
    for p in inputs:
        if os.path.isdir(p):
            names = sorted(n for n in os.listdir(p) if not n.startswith("."))
            want += expected([os.path.join(p, n) for n in names
                              if os.path.isfile(os.path.join(p, n))], True)
            continue
        rc, docs = single_docs(p)
        if not docs:
            skipped = in_folder and p in not_snapshot
            want.append({"file": p, "status": "SKIPPED" if skipped else "ERROR_UNREADABLE"})
        keys = microdump_keys(p) if len(docs) > 1 else []
        check(len(keys) == (len(docs) if len(docs) > 1 else 0),
              "%s: %d documents, %d microdump headers" % (p, len(docs), len(keys)))
        for i, d in enumerate(docs):
            want.append(dict(d, file=p, **({"microdump": keys[i]} if keys else {})))
    return want

def compare(got, want, what):
    check(len(got) == len(want), "%s: %d lines, want %d" % (what, len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if g.get("file") != w["file"]:
            check(False, "%s: line %d is %s, want %s (input order)" % (what, i, g.get("file"), w["file"]))
            return
        if w.get("status") == "ERROR_UNREADABLE":
            check(g.get("status") == "ERROR_UNREADABLE" and set(g) == {"file", "status", "error"}
                  and isinstance(g["error"], str) and "\n" not in g["error"],
                  "%s: %s: want an ERROR_UNREADABLE line, got %s" % (what, w["file"], str(g)[:200]))
            continue
        if w.get("status") == "SKIPPED":
            check(list(g) == ["file", "status", "reason"] and g["status"] == "SKIPPED"
                  and "not a snapshot" in g["reason"] and "\n" not in g["reason"],
                  "%s: %s: want a SKIPPED line, got %s" % (what, w["file"], str(g)[:200]))
            continue
        check(next(iter(g)) == "file", "%s: %s: \"file\" is not the first key" % (what, w["file"]))
        if "microdump" in g:
            check(list(g)[1] == "microdump", "%s: %s: \"microdump\" is not the second key"
                  % (what, w["file"]))
        check(g == w, "%s: line %d (%s) differs from its --json run" % (what, i, w["file"]))

try:
    # A folder of dumps (and what a folder may also hold: a dot-file, a
    # subfolder, a file that is no snapshot), a missing file and a damaged
    # dump, in the middle of the list.
    folder = os.path.join(work, "folder")
    os.makedirs(os.path.join(folder, "sub"))
    for i, d in enumerate(dumps[:3]):
        shutil.copy(d, os.path.join(folder, "%d-%s" % (2 - i, os.path.basename(d))))
    shutil.copy(dumps[0], os.path.join(folder, ".hidden.dmp"))
    shutil.copy(dumps[0], os.path.join(folder, "sub", "deeper.dmp"))
    open(os.path.join(folder, "notes.txt"), "w").write("not a dump\n")
    missing = os.path.join(work, "no-such.dmp")
    damaged = os.path.join(a.corpus, "rust-minidump", "invalid-range.dmp")
    half = len(dumps) // 2
    inputs = dumps[:half] + [missing, damaged, folder] + dumps[half:]
    want = expected(inputs)
    check(any(w.get("status") == "DAMAGED" for w in want), "the damaged dump is not DAMAGED alone")

    for jobs in ("1", "4"):
        rc, out, err = run(["--batch", "--jobs", jobs, "--no-cache"] + inputs + sym_args)
        compare(lines_of(out), want, "--jobs %s" % jobs)
        check(rc == 1, "--jobs %s: exit %d with a damaged and a missing input, want 1" % (jobs, rc))
        check("done" not in err, "--jobs %s: progress on a stderr that is no terminal" % jobs)
        check("no-such.dmp: cannot open" in err, "--jobs %s: the missing file is not named on stderr" % jobs)

    # Only intact dumps: exit 0. Options after the inputs are options.
    intact = [d for d in dumps if single_docs(d)[0] == 0][:6]
    rc, out, err = run(["--batch"] + intact + ["--jobs", "2", "--no-cache"] + sym_args)
    compare(lines_of(out), expected(intact), "intact dumps")
    check(rc == 0, "intact dumps: exit %d, want 0: %s" % (rc, err[:300]))

    # A folder of intact dumps and files that are no snapshot (a text, a
    # .sym, an empty file, a gzip of text): each of those is one SKIPPED
    # line and one line on stderr, and the batch exits 0. Named on the
    # command line, the same text is an error: exit 1.
    mixed = os.path.join(work, "mixed")
    os.mkdir(mixed)
    for i, d in enumerate(intact[:2]):
        shutil.copy(d, os.path.join(mixed, "%d.dmp" % i))
    open(os.path.join(mixed, "README"), "w").write("dumps of 2 Dec\n")
    open(os.path.join(mixed, "app.sym"), "w").write("MODULE Linux x86_64 0 app\n")
    open(os.path.join(mixed, "empty.dmp"), "w").close()
    with gzip.open(os.path.join(mixed, "log.gz"), "wb") as z:
        z.write(b"a log\n")
    rc, out, err = run(["--batch", "--no-cache", mixed] + sym_args)
    got = lines_of(out)
    compare(got, expected([mixed]), "a folder with files that are no snapshot")
    skipped = [g["file"] for g in got if g.get("status") == "SKIPPED"]
    check(rc == 0 and sorted(os.path.basename(f) for f in skipped)
          == ["README", "app.sym", "empty.dmp", "log.gz"],
          "a folder with files that are no snapshot: exit %d, skipped %s" % (rc, skipped))
    check(len([l for l in err.splitlines() if l.endswith("(skipped)")]) == 4,
          "a folder with files that are no snapshot: stderr %r" % err[:400])
    readme = os.path.join(mixed, "README")
    rc, out, err = run(["--batch", "--no-cache", readme, intact[0]] + sym_args)
    got = lines_of(out)
    check(rc == 1 and len(got) == 2 and got[0].get("status") == "ERROR_UNREADABLE",
          "a text named as an INPUT: exit %d, %r" % (rc, out[:200]))
    # A damaged snapshot in a folder stays an error, not SKIPPED.
    shutil.copy(damaged, os.path.join(mixed, "z-damaged.dmp"))
    open(os.path.join(mixed, "z-cut.dmp"), "wb").write(b"MDMP\x93\xa7")
    rc, out, err = run(["--batch", "--no-cache", mixed] + sym_args)
    got = {os.path.basename(g["file"]): g for g in lines_of(out)}
    check(rc == 1 and got.get("z-damaged.dmp", {}).get("status") == "DAMAGED"
          and got.get("z-cut.dmp", {}).get("status") == "ERROR_UNREADABLE",
          "damaged dumps in a folder: exit %d, %s" % (rc, {k: v.get("status") for k, v in got.items()}))

    # "-": the paths on stdin, one per line (an empty line skipped), a
    # folder among them expanded; "-" and paths on the command line mixed.
    listed = [dumps[1], "", folder, damaged]
    rc, out, err = run(["--batch", "--no-cache", dumps[0], "-", dumps[2]] + sym_args,
                       stdin=("\n".join(listed) + "\n").encode())
    compare(lines_of(out), expected([dumps[0], dumps[1], folder, damaged, dumps[2]]), "stdin")
    check(rc == 1, "stdin: exit %d, want 1" % rc)

    # A path that is no UTF-8 and holds a quote and a newline is still a
    # JSON string (invalid bytes as U+FFFD, as the reports' strings).
    odd = os.path.join(work.encode(), b"odd")
    os.mkdir(odd)
    shutil.copy(dumps[0], os.path.join(odd, b'we"ird\n\xff.dmp'))
    rc, out, err = run(["--batch", "--no-cache", odd.decode()])
    got = lines_of(out)
    check(len(got) == 1 and got[0].get("file", "").endswith('/we"ird\n\ufffd.dmp'),
          "odd name: %r" % out[:120])

    # --null (-0): the paths on stdin end with NUL bytes (find -print0), so
    # a name may hold a newline.
    odd_file = os.path.join(odd, b'we"ird\n\xff.dmp')
    rc, out, err = run(["--batch", "-0", "--no-cache", "-"],
                       stdin=odd_file + b"\0" + dumps[0].encode() + b"\0")
    got = lines_of(out)
    check(rc == 0 and len(got) == 2 and got[0].get("file", "").endswith('/we"ird\n\ufffd.dmp')
          and got[1].get("file") == dumps[0], "--null: exit %d, %r" % (rc, out[:200]))

    ex = os.path.join(a.example, "test.dmp")

    # A path on stdin longer than any path (16 KiB) is one error line, read
    # to its end (a stream without newlines cannot grow a line forever).
    rc, out, err = run(["--batch", "--no-cache", "-"], stdin=b"x" * 20000 + b"\n" + dumps[0].encode() + b"\n")
    got = lines_of(out)
    check(rc == 1 and len(got) == 2 and got[0].get("status") == "ERROR_UNREADABLE"
          and "longer than 16384 bytes" in got[0].get("error", "") and len(got[0]["file"]) == 256
          and got[1].get("file") == dumps[0], "a 20,000-byte path: exit %d, %r" % (rc, out[:300]))

    # stdin that cannot be read (a directory) is "-" unreadable: one line.
    fd = os.open(work, os.O_RDONLY)
    p = subprocess.run([a.stackwalk, "--batch", "--no-cache", "-"], stdin=fd, capture_output=True, env=env)
    os.close(fd)
    got = lines_of(p.stdout.decode(errors="replace"))
    check(p.returncode == 1 and len(got) == 1 and got[0].get("file") == "-"
          and got[0].get("status") == "ERROR_UNREADABLE" and "Is a directory" in got[0].get("error", ""),
          "stdin a directory: exit %d, %r" % (p.returncode, p.stdout[:200]))

    # stdin is walked as it comes: each path's line is out before the next
    # path is written (a queue of paths that does not end), with one
    # thread and with several; a reader that goes away ends the batch at
    # the next line, stdin still open.
    def line_within(p, seconds):
        ready, _, _ = select.select([p.stdout], [], [], seconds)
        return p.stdout.readline() if ready else b""
    for jobs in ("1", "3"):
        p = subprocess.Popen([a.stackwalk, "--batch", "--jobs", jobs, "--no-cache", "-"] + sym_args,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        lines = []
        for path in (ex, missing, ex):
            p.stdin.write(path.encode() + b"\n")
            p.stdin.flush()
            lines.append(line_within(p, 30))
        p.stdin.close()
        rest = p.stdout.read()
        rc = p.wait()
        got = [json.loads(l) for l in lines if l]
        check(len(got) == 3 and [g.get("file") for g in got] == [ex, missing, ex] and rest == b""
              and got[1].get("status") == "ERROR_UNREADABLE" and rc == 1,
              "streamed stdin, --jobs %s: %d lines as the paths came, then %r, exit %d"
              % (jobs, len(got), rest[:100], rc))
        p = subprocess.Popen([a.stackwalk, "--batch", "--jobs", jobs, "--no-cache", "-"] + sym_args,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        p.stdin.write(ex.encode() + b"\n")
        p.stdin.flush()
        first = line_within(p, 30)
        p.stdout.close()
        p.stdin.write(ex.encode() + b"\n")
        p.stdin.flush()
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "still running"
        err = p.stderr.read().decode(errors="replace")
        p.stdin.close()
        check(first and rc == 0 and err == "",
              "streamed stdin, --jobs %s: the reader gone, stdin open: exit %s, %r" % (jobs, rc, err[-200:]))

    # A refused symbol file (another build's: its MODULE line's id is not
    # the module's) is said once per batch, for the first input, not once
    # per dump; a single run says it once too.
    bad = os.path.join(work, "badstore")
    shutil.copytree(os.path.join(a.example, "symbols"), bad)
    bad_sym = glob.glob(os.path.join(bad, "**", "*.sym"), recursive=True)[0]
    text = open(bad_sym).read().split("\n", 1)
    f = text[0].split(" ")
    f[3] = "0" * len(f[3])
    open(bad_sym, "w").write(" ".join(f) + "\n" + text[1])
    for jobs in ("1", "3"):
        rc, out, err = run(["--batch", "--jobs", jobs, "--no-cache", "--symbols-path", bad] + [ex] * 4)
        check(len(lines_of(out)) == 4 and err.count("symbol file not used") == 1,
              "a refused symbol file, --jobs %s: said %d times for 4 dumps: %s"
              % (jobs, err.count("symbol file not used"), err[:300]))
    rc, out, err = run(["--no-cache", ex, bad])
    check(err.count("symbol file not used") == 1, "a refused symbol file, single run: %r" % err[:300])

    # An empty folder: nothing to walk, nothing printed, exit 0.
    empty = os.path.join(work, "empty")
    os.mkdir(empty)
    rc, out, err = run(["--batch", empty])
    check(rc == 0 and out == "", "an empty folder: exit %d, output %r" % (rc, out[:100]))

    # --output-file: the same lines, written whole.
    of = os.path.join(work, "out.ndjson")
    rc, out, err = run(["--batch", "--jobs", "3", "--no-cache", "--output-file", of] + inputs + sym_args)
    compare(lines_of(open(of).read()), want, "--output-file")
    check(rc == 1 and out == "", "--output-file: exit %d, stdout %r" % (rc, out[:100]))

    # Usage errors: exit 2, nothing on stdout.
    for args in (["--batch"], ["--batch", "--machine", dumps[0]], ["--batch", "--pretty", dumps[0]],
                 ["--batch", "--cyborg", of, dumps[0]], ["--batch", "--jobs", "0", dumps[0]],
                 ["--batch", "--jobs", "x", dumps[0]], ["--jobs", "0", dumps[0]],
                 ["--batch", "--maps", of, dumps[0]], ["--batch", "--null", dumps[0]],
                 ["--null", dumps[0]]):
        rc, out, err = run(args)
        check(rc == 2 and out == "" and err.count("\n") == 1, "%s: exit %d, want 2 (%s)" % (args, rc, err.strip()))

    # Output that cannot be written: exit 4, one line saying why. A reader
    # that stops reading: the batch ends quietly.
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            p = subprocess.run([a.stackwalk, "--batch", "--no-cache"] + intact * 20 + sym_args,
                               stdout=full, stderr=subprocess.PIPE, env=env)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 4 and "cannot write the output: No space left on device" in err,
              "/dev/full: exit %d, %r" % (p.returncode, err[-200:]))
    p = subprocess.Popen([a.stackwalk, "--batch", "--jobs", "2", "--no-cache"] + intact * 50 + sym_args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read().decode(errors="replace")
    check(p.wait() == 0 and err == "", "closed pipe: exit %d, %r" % (p.returncode, err[-200:]))

    # A single run with --symbols-path is a run with that SYMBOL_PATH.
    r1 = run(["--json", "--no-cache", ex, os.path.join(a.example, "symbols")])
    r2 = run(["--json", "--no-cache", ex, "--symbols-path", os.path.join(a.example, "symbols")])
    check(r1 == r2 and r1[0] == 0, "--symbols-path in a single run differs from a SYMBOL_PATH")

    # Threads sharing one symbol cache: the same dumps several times, 4
    # jobs, an empty cache: the lines are the uncached ones, and the cache
    # holds one index per symbol file read and no temporary file.
    with_syms = [d for d in intact if any(m.get("loaded_symbols")
                                          for doc in single_docs(d)[1] for m in doc["modules"])][:3]
    if with_syms:
        rep = with_syms * 4
        rc, out, err = run(["--batch", "--jobs", "4", "--symbols-cache", cache] + rep + sym_args)
        compare(lines_of(out), expected(rep), "shared cache, cold")
        idx = glob.glob(os.path.join(cache, "**", "*.swidx"), recursive=True)
        tmp = [f for f in glob.glob(os.path.join(cache, "**", "*"), recursive=True) if ".tmp." in f]
        loaded = {(m["debug_file"], m["debug_id"]) for d in with_syms for doc in single_docs(d)[1]
                  for m in doc["modules"] if m.get("loaded_symbols")}
        check(len(idx) >= 1 and len(idx) <= len(loaded) and not tmp,
              "shared cache: %d indexes for %d modules with symbols, temporary files %s"
              % (len(idx), len(loaded), tmp))
        rc, out, err = run(["--batch", "--jobs", "4", "--symbols-cache", cache] + rep + sym_args)
        compare(lines_of(out), expected(rep), "shared cache, warm")

    # A log holding two microdumps: two lines, each naming which of the
    # log's microdumps it is and where it begins; a log of one has no such
    # key (docs/batch.md).
    multi = os.path.join(a.corpus, "breakpad", "microdump-multiple.dmp")
    one = os.path.join(a.corpus, "breakpad", "microdump-arm.dmp")
    if os.path.isfile(multi) and os.path.isfile(one):
        rc, out, err = run(["--batch", "--no-cache", multi, one, multi] + sym_args)
        got = lines_of(out)
        compare(got, expected([multi, one, multi]), "microdumps")
        check([g.get("microdump") for g in got] ==
              [{"number": 1, "count": 2, "line": 7}, {"number": 2, "count": 2, "line": 192}, None,
               {"number": 1, "count": 2, "line": 7}, {"number": 2, "count": 2, "line": 192}],
              "microdumps: %s" % [g.get("microdump") for g in got])

    # Progress: on a terminal, "N/M done, K failed"; the lines unchanged.
    pid, fd = pty.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.execve(a.stackwalk, [a.stackwalk, "--batch", "--no-cache", dumps[0], missing], env)
    text = b""
    while True:
        try:
            r, _, _ = select.select([fd], [], [], 60)
            chunk = os.read(fd, 4096) if r else b""
        except OSError:
            chunk = b""
        if not chunk:
            break
        text += chunk
    _, st = os.waitpid(pid, 0)
    check(b"2/2 done, 1 failed" in text, "no progress on a terminal: %r" % text[-200:])
    check(os.waitstatus_to_exitcode(st) == 1, "progress run: exit %d" % os.waitstatus_to_exitcode(st))
finally:
    shutil.rmtree(work, ignore_errors=True)

print("%d dumps, %d single runs: %s" % (len(dumps), len(single), "FAIL" if fails else "ok"))
sys.exit(1 if fails else 0)
