#!/usr/bin/env python3
"""The symbol index cache end to end (docs/symbol-cache.md), over real dumps:
cold and warm walks print exactly what --no-cache prints; 8 processes started
at once on one empty cache leave one valid index per symbol file and no
temporary file; a walk waits for another process's build of an index (its
lock file held) and maps what it wrote; a truncated or flipped index is noticed (one warning naming
it) and rebuilt. --symbols-cache-max (over testdata/example, corpus or not):
a run that adds an index prunes the least recently used module folders and
section files down to the cap, keeps lock files and what was used in the
last 10 minutes, a run that adds nothing prunes nothing, 0 is no cap, a
warm walk stamps the index it maps."""
import argparse, fcntl, glob, os, shutil, subprocess, sys, tempfile, time

from swtest import Checks, run_stackwalk

ap = argparse.ArgumentParser()
ap.add_argument("--stackwalk", required=True)
ap.add_argument("--corpus", required=True)
a = ap.parse_args()

# Real minidumps with Breakpad stores (plain .sym) from the corpus, and a
# .sym.gz store made from one of them.
cases = []
for dump, store in [("breakpad/linux_inline.dmp", "breakpad/symbols"),
                    ("breakpad/minidump2.dmp", "breakpad/symbols"),
                    ("symbolic/linux/mini.dmp", "symbolic/symbols")]:
    d, s = os.path.join(a.corpus, dump), os.path.join(a.corpus, store)
    if os.path.isfile(d) and os.path.isdir(s):
        cases.append((d, s))
if not cases:
    for d in sorted(glob.glob(os.path.join(a.corpus, "**", "*.dmp"), recursive=True)):
        s = os.path.join(os.path.dirname(d), "symbols")
        if os.path.isdir(s) and glob.glob(os.path.join(s, "**", "*.sym"), recursive=True):
            cases.append((d, s))
        if len(cases) >= 3:
            break
def indexes(cache):
    return sorted(glob.glob(os.path.join(cache, "**", "*.swidx"), recursive=True))

checks = Checks("symbol_cache", prefix="FAIL: ")
check = checks.check

# ---- --symbols-cache-max: pruning, least recently used first ----
MiB = 1 << 20
example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "example")
ex_dump, ex_syms = os.path.join(example, "test.dmp"), os.path.join(example, "symbols")

def fill_cache(cache, now):
    """Old module folders and a section file of 1 MiB each, oldest first,
    plus one used 60 s ago; each folder has a lock file. Returns
    {name: path} of the big files."""
    big = {}
    def put(rel, age):
        path = os.path.join(cache, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"\0" * MiB)
        if not rel.startswith("elf-"):
            # made before the folder's mtime is set: a new entry is a use
            open(os.path.join(os.path.dirname(path), "x.swidx.lock"), "w").close()
        os.utime(path, (now - age, now - age))
        os.utime(os.path.dirname(path), (now - age, now - age))
        big[rel.split("/")[0] if not rel.startswith("elf-") else "section"] = path
    put("elf-sections/0123456789abcdef-0-40.swsec", 10 * 86400)
    for i in range(6):
        put("fake%d.pdb/ID%d/fake%d.sym" % (i, i, i), (7 - i) * 86400)
    put("recent.pdb/ID/recent.sym", 60)
    return big

def ex_run(args, cache):
    return run_stackwalk(a.stackwalk, ["--symbols-cache", cache] + args + [ex_dump, ex_syms],
                         timeout=60, raw_stdout=True)

prune_work = tempfile.mkdtemp(prefix="sw_prune_")
try:
    _, ref, _ = run_stackwalk(a.stackwalk, ["--no-cache", ex_dump, ex_syms], raw_stdout=True)
    # A cold walk (it writes test_app.sym's index) with a 4 MiB cap over
    # 8 MiB: the section file and fake0..fake3 go (down to 3.5 MiB), the
    # rest stays.
    cache = os.path.join(prune_work, "c1")
    now = time.time()
    big = fill_cache(cache, now)
    code, out, err = ex_run(["--symbols-cache-max=4M"], cache)
    check(code == 0 and out == ref, "prune: the walk's output changed: %s" % err)
    gone = sorted(k for k, p in big.items() if not os.path.exists(p))
    check(gone == ["fake0.pdb", "fake1.pdb", "fake2.pdb", "fake3.pdb", "section"],
          "prune: removed %s, want the section and fake0..fake3 (oldest first)" % gone)
    check(len(indexes(cache)) == 1, "prune: the index this walk wrote is gone: %s" % indexes(cache))
    check(all(os.path.exists(os.path.join(cache, "fake%d.pdb/ID%d/x.swidx.lock" % (i, i))) for i in range(6)),
          "prune: a lock file was removed")
    # A warm walk adds nothing: nothing is pruned, however far over.
    big = fill_cache(cache, now)
    code, out, err = ex_run(["--symbols-cache-max=1M"], cache)
    check(code == 0 and out == ref and all(os.path.exists(p) for p in big.values()),
          "prune: a warm walk (nothing added) pruned: %s" % [k for k, p in big.items() if not os.path.exists(p)])
    # Nothing used in the last 10 minutes goes, even over the cap.
    for f in indexes(cache):
        os.unlink(f)
    code, out, err = ex_run(["--symbols-cache-max=1K"], cache)
    check(os.path.exists(big["recent.pdb"]) and len(indexes(cache)) == 1
          and not os.path.exists(big["fake5.pdb"]),
          "prune: what was used in the last 10 minutes was removed, or the old was not")
    # 0: no cap.
    cache = os.path.join(prune_work, "c2")
    big = fill_cache(cache, now)
    code, out, err = ex_run(["--symbols-cache-max=0"], cache)
    check(code == 0 and len(indexes(cache)) == 1 and all(os.path.exists(p) for p in big.values()),
          "prune: --symbols-cache-max=0 removed files")
    # The default cap (4 GiB) leaves a small cache alone.
    cache = os.path.join(prune_work, "c3")
    big = fill_cache(cache, now)
    ex_run([], cache)
    check(all(os.path.exists(p) for p in big.values()), "prune: the default cap removed files")
    # A warm walk stamps the index it maps (indexes are read with O_NOATIME).
    idx = indexes(cache)[0]
    os.utime(idx, (now - 5 * 86400, now - 5 * 86400))
    ex_run([], cache)
    check(os.stat(idx).st_mtime > now - 3600, "prune: a warm walk did not stamp its index's mtime")
    for bad in ("12X", "-1", "", "4Q"):
        code, out, err = run_stackwalk(a.stackwalk, ["--symbols-cache-max=" + bad, ex_dump])
        check(code == 2 and "--symbols-cache-max wants a size" in err, "--symbols-cache-max=%s: exit %s %s" % (bad, code, err))
finally:
    shutil.rmtree(prune_work, ignore_errors=True)
print("ok: --symbols-cache-max")

if not cases:
    print("no dump with a symbol store in the corpus: skipped")
    sys.exit(1 if checks.failed else 77)

def run(args, cache=None):
    cache_args = ["--no-cache"] if cache is None else ["--symbols-cache", cache]
    _, out, err = run_stackwalk(a.stackwalk, cache_args + args, timeout=None, raw_stdout=True)
    return out, err

def temps(cache):
    return [f for f in glob.glob(os.path.join(cache, "**", "*"), recursive=True) if ".tmp." in f]

total_indexes = 0
shared_tested = set()   # the labels whose shared-build case ran
work = tempfile.mkdtemp(prefix="sw_symcache_")
try:
    for n, (dump, store) in enumerate(cases):
        gz = os.path.join(work, "gz%d" % n)
        shutil.copytree(store, gz)
        for f in glob.glob(os.path.join(gz, "**", "*.sym"), recursive=True):
            subprocess.run(["gzip", "-9", "-n", f], check=True)
        for label, st in (("plain", store), ("gz", gz)):
            name = "%s [%s]" % (os.path.relpath(dump, a.corpus), label)
            for fmt in ([], ["--json"], ["-m"]):
                ref, _ = run(fmt + [dump, st])
                cache = os.path.join(work, "c-%d-%s-%d" % (n, label, len(fmt)))
                cold, _ = run(fmt + [dump, st], cache)
                warm, err = run(fmt + [dump, st], cache)
                check(cold == ref, name + " %s: cold output differs from --no-cache" % fmt)
                check(warm == ref, name + " %s: warm output differs from --no-cache" % fmt)
                check("index" not in err, name + ": warm walk warned: " + err)
            # 8 processes at once on one empty cache.
            cache = os.path.join(work, "race-%d-%s" % (n, label))
            ref, _ = run([dump, st])
            procs = [subprocess.Popen([a.stackwalk, "--symbols-cache", cache, dump, st],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for _ in range(8)]
            outs = [p.communicate()[0] for p in procs]
            check(all(o == ref for o in outs), name + ": concurrent outputs differ")
            idx = indexes(cache)
            nsym = len(glob.glob(os.path.join(st, "**", "*.sym*"), recursive=True))
            # (a file with bad records is not indexed: linux_inline's)
            check(len(idx) <= nsym, name + ": %d indexes for %d symbol files" % (len(idx), nsym))
            total_indexes += len(idx)
            check(not temps(cache), name + ": temporary files left: %s" % temps(cache))
            warm, err = run([dump, st], cache)
            check(warm == ref and "index" not in err, name + ": concurrent indexes not valid: " + err)
            # Another process building the same indexes (it holds each
            # index's lock file): the walk waits for it and maps what it
            # wrote (the files it finds keep their inodes: not parsed and
            # written again); a builder gone without writing: it builds.
            if idx and label not in shared_tested:
                shared_tested.add(label)
                for wrote in (True, False):
                    shared = os.path.join(work, "shared-%s-%s" % (label, wrote))
                    rels = [os.path.relpath(f, cache) for f in idx]
                    locks = []
                    for r in rels:
                        os.makedirs(os.path.dirname(os.path.join(shared, r)), exist_ok=True)
                        fd = os.open(os.path.join(shared, r) + ".lock", os.O_RDONLY | os.O_CREAT, 0o644)
                        fcntl.flock(fd, fcntl.LOCK_EX)
                        locks.append(fd)
                    p = subprocess.Popen([a.stackwalk, "--symbols-cache", shared, dump, st],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    time.sleep(1.0)
                    check(p.poll() is None,
                          name + ": walked while another process held the index locks")
                    inodes = {}
                    if wrote:
                        for r in rels:
                            shutil.copy(os.path.join(cache, r), os.path.join(shared, r))
                            inodes[r] = os.stat(os.path.join(shared, r)).st_ino
                    for fd in locks:
                        os.close(fd)
                    out, err = p.communicate()
                    check(out == ref and "index" not in err.decode(errors="replace"),
                          name + ": after another process's build (wrote=%s): %s" % (wrote, err[-300:]))
                    after = sorted(os.path.relpath(f, shared) for f in indexes(shared))
                    check(after == sorted(rels), name + ": indexes after a shared build: %s" % after)
                    if wrote:
                        check(all(os.stat(os.path.join(shared, r)).st_ino == i for r, i in inodes.items()),
                              name + ": the other process's indexes were written again, not mapped")
            # Damage: truncate one index, flip a byte in the middle of another.
            for how in ("truncate", "flip"):
                for f in idx:
                    data = open(f, "rb").read()
                    if how == "truncate":
                        data = data[:len(data) // 2]
                    else:
                        b = bytearray(data)
                        b[len(b) // 2] ^= 0x20
                        data = bytes(b)
                    open(f, "wb").write(data)
                out, err = run([dump, st], cache)
                check(out == ref, name + ": %s index: output differs" % how)
                if how == "truncate":
                    for f in idx:
                        check(f in err, name + ": truncated %s not warned about: %s" % (f, err))
                else:
                    check("index" in err or out == ref, name + ": flipped index not noticed")
                # Rebuilt: the next walk uses intact indexes, silently.
                out, err = run([dump, st], cache)
                check(out == ref and "index" not in err, name + ": %s index not rebuilt: %s" % (how, err))
            print("ok:", name)
finally:
    shutil.rmtree(work, ignore_errors=True)
check(total_indexes > 0, "no index written at all")
check(shared_tested == {"plain", "gz"}, "the shared-build case ran for %s only" % shared_tested)
# Its closing line stays the failure count alone: tests/run counts this
# suite as one check by its result, as before.
print("%d failure(s)" % checks.failed)
sys.exit(1 if checks.failed else 0)
