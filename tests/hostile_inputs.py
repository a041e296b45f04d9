#!/usr/bin/env python3
"""Hostile inputs stay bounded: stackwalk on every input fuzzing found
(../shared/corpus/fuzz-found/*.dmp and hostile/*.dmp) and on the synthetic
hostile dumps of hostile/gen.py (written into WORKDIR at test time, with a
sparse 1 GiB file whose header claims 2^32 - 1 streams), each under a memory
cap (RLIMIT_AS, as `ulimit -v`: 512 MiB plus the input's size, which is
mapped) and a timeout, asserting the documented exit status (docs/cli.md:
0 walked, 1 damaged input) and that stdout and stderr stay bounded (stdout
at most 16 times the input plus 1 MiB). Docs/cli.md, "Limits", says what
bounds each.

Not a timing test: the timeout only catches hangs and blow-ups (each input
takes well under a second in a release build).

Usage: hostile_inputs.py STACKWALK FUZZ_FOUND_DIR WORKDIR [--sanitized]
  --sanitized: the binary runs under AddressSanitizer, which reserves
  terabytes of address space: no memory cap, and a longer timeout."""
import json
import os
import resource
import struct
import subprocess
import sys

from corpus_skip import require_corpus

sw, found, work = sys.argv[1], sys.argv[2], sys.argv[3]
require_corpus(found, "hostile_inputs")
sanitized = "--sanitized" in sys.argv[4:]
timeout = 60 if sanitized else 10
passed = failed = 0

# Expected exit statuses; an input not listed may exit 0 or 1.
EXPECTED = {
    # fuzz-found/: all damaged.
    "dso-debug-name-amplification.dmp": 1,
    "huge-module-count.dmp": 1,
    "module-name-amplification.dmp": 1,
    "crashpad-annotation-amplification.dmp": 1,
    "walk-riscv-prologue-search.dmp": 1,
    "fuzz_timeout.dmp": 1,
    "sparc_noctx.dmp": 1,  # a CPU stackwalk cannot walk: not a walk
    # gen.py's outputs.
    "synthetic_ok.dmp": 0,
    "streams_4g.dmp": 1,
    "memlist_count_4g.dmp": 1,
    "mem64_count_max.dmp": 1,
    "memlist_1M_ranges.dmp": 0,
    "modname_len_4g.dmp": 1,
    "modname_1MiB_x2000.dmp": 0,
    "modname_1MiB_x200.dmp": 0,
    "threads_shared_stack_x1000.dmp": 1,
    "threads_shared_stack_x4000.dmp": 1,
    "recursive_stack_1MiB.dmp": 0,
    "same_id_modules_20k.dmp": 0,
    "same_id_modules_80k.dmp": 0,
    "sparse_1g_streams.dmp": 1,
}

# Extra options per input (the text output, with its module list grouped
# by identity for the symbol warnings, is the default for all).
OPTIONS = {}


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok    " + name)
    else:
        failed += 1
        print("FAIL  %s\n      %s" % (name, detail))


def generate():
    """gen.py's dumps and the sparse file, once per gen.py version."""
    gen = os.path.join(found, "hostile", "gen.py")
    out = os.path.join(work, "generated")
    stamp = os.path.join(out, ".stamp")
    os.makedirs(out, exist_ok=True)
    if not (os.path.exists(stamp) and os.path.getmtime(stamp) >= os.path.getmtime(gen)):
        subprocess.run([sys.executable, gen, out], check=True, timeout=120)
        with open(os.path.join(out, "sparse_1g_streams.dmp"), "wb") as f:
            # MINIDUMP_HEADER: 2^32 - 1 streams, the directory at 32; the rest
            # of the 1 GiB is a hole (zeros: unused entries).
            f.write(struct.pack("<IIIIIIQ", 0x504D444D, 0xA793, 0xFFFFFFFF, 32, 0, 0, 0))
            f.truncate(1 << 30)
        open(stamp, "w").close()
    return sorted(os.path.join(out, n) for n in os.listdir(out) if n.endswith(".dmp"))


def inputs():
    listed = []
    for d in (found, os.path.join(found, "hostile")):
        listed += sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".dmp"))
    return listed + generate()


def run(path, extra=()):
    """(exit status or None on timeout, stdout bytes, stderr text)."""
    size = os.path.getsize(path)
    cap = (512 << 20) + size

    def limit():
        if not sanitized:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    name = os.path.basename(path)
    out_path = os.path.join(work, "stdout")
    with open(out_path, "wb") as out:
        try:
            p = subprocess.run([sw] + OPTIONS.get(name, []) + list(extra) + [path], stdout=out,
                               stderr=subprocess.PIPE, timeout=timeout, preexec_fn=limit)
            code, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            code, err = None, (e.stderr or b"").decode("utf-8", "replace")
    return code, os.path.getsize(out_path), err


os.makedirs(work, exist_ok=True)
for path in inputs():
    name = os.path.basename(path)
    code, out_size, err = run(path)
    want = EXPECTED.get(name)
    if code is None:
        check(name, False, "no answer within %d s" % timeout)
        continue
    status_ok = code == want if want is not None else code in (0, 1)
    check("%s: exit %s" % (name, want if want is not None else "0 or 1"), status_ok,
          "exit %d; stderr: %s" % (code, err[:500]))
    in_size = os.path.getsize(path)
    bound = 16 * in_size + (1 << 20)
    # A sparse input's size is no measure of its content: the 1 MiB alone.
    if os.stat(path).st_blocks * 512 < in_size // 2:
        bound = 1 << 20
    check("%s: output of %d bytes is at most %d" % (name, out_size, bound), out_size <= bound)
    # Every message is one line; a damaged input names its first problem
    # and a count, not every problem.
    check("%s: stderr stays short" % name, len(err) <= 8192 and err.count("\n") <= 16,
          "%d bytes, %d lines: %s" % (len(err), err.count("\n"), err[:500]))

    # The JSON report lists the problems three of a kind, 100 in all, and
    # one line counting the rest (docs/cli.md, "Limits on hostile input").
    if code in (0, 1):
        jcode, _, _ = run(path, ["--json"])
        try:
            with open(os.path.join(work, "stdout"), encoding="utf-8") as f:
                problems = json.load(f).get("problems", [])
            listed_ok = isinstance(problems, list) and len(problems) <= 101
        except ValueError:
            problems, listed_ok = [], False
        check("%s: --json parses and lists at most 101 problems" % name,
              jcode == code and listed_ok,
              "exit %s, %d problems" % (jcode, len(problems)))

print("hostile_inputs: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
