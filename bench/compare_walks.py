#!/usr/bin/env python3
"""Compares two `stackwalk --json` walks of the same dump frame by frame:
the walk under test (e.g. symbols from ELF/DWARF files) against a reference
walk (e.g. from the Breakpad .sym store).

Usage: compare_walks.py REFERENCE.json TEST.json [LABEL]

For the crashing thread and for all threads it counts the reference's
frames, the test walk's frames, the frames at the same index with the same
pc (module + module_offset), and of those the ones whose function name
matches, whose file:line matches exactly, and whose file base name:line
matches (the two sources may spell a file's directory differently).
Prints one summary line per scope and up to 5 examples of mismatches.
Exit 1 when a frame of the same pc differs in function name."""
import json
import os
import sys


def frames_of(doc):
    out = []
    crashing = (doc.get("crashing_thread") or {}).get("threads_index")
    for i, t in enumerate(doc.get("threads") or []):
        out.append((i, i == crashing, t.get("frames") or []))
    return out


def key(f):
    return (f.get("module"), f.get("module_offset"))


def main():
    ref = json.load(open(sys.argv[1]))
    test = json.load(open(sys.argv[2]))
    label = sys.argv[3] if len(sys.argv) > 3 else "test"
    rt, tt = frames_of(ref), frames_of(test)
    if len(rt) != len(tt):
        print("%s: %d threads vs %d in the reference" % (label, len(tt), len(rt)))
    bad_func = 0
    examples = []
    for scope in ("crashing thread", "all threads"):
        n = dict(ref=0, test=0, pc=0, func=0, lined=0, fileline=0, baseline=0, sym_ref=0, sym_test=0)
        for (i, crashed, rf), (_, _, tf) in zip(rt, tt):
            if scope == "crashing thread" and not crashed:
                continue
            n["ref"] += len(rf)
            n["test"] += len(tf)
            n["sym_ref"] += sum(1 for f in rf if f.get("function"))
            n["sym_test"] += sum(1 for f in tf if f.get("function"))
            for a, b in zip(rf, tf):
                if key(a) != key(b):
                    continue
                n["pc"] += 1
                if a.get("function") == b.get("function"):
                    n["func"] += 1
                elif scope == "all threads":
                    bad_func += 1
                    if len(examples) < 5:
                        examples.append("thread %d frame %s: function %r vs %r" %
                                        (i, a.get("frame"), a.get("function"), b.get("function")))
                la, lb = a.get("line"), b.get("line")
                fa, fb = a.get("file"), b.get("file")
                if not fa:
                    continue
                n["lined"] += 1
                if fa == fb and la == lb:
                    n["fileline"] += 1
                elif scope == "all threads" and len(examples) < 10:
                    examples.append("thread %d frame %s (%s): %s:%s vs %s:%s" %
                                    (i, a.get("frame"), a.get("function"), fa, la, fb, lb))
                if fb and os.path.basename(fa) == os.path.basename(fb) and la == lb:
                    n["baseline"] += 1
        print("%s, %s: %d frames (reference %d); %d at the same pc; of those, function name "
              "equal %d; of the %d with a reference file:line, equal %d (base name:line %d); "
              "named frames %d (reference %d)" %
              (label, scope, n["test"], n["ref"], n["pc"], n["func"], n["lined"], n["fileline"],
               n["baseline"],
               n["sym_test"], n["sym_ref"]))
    for e in examples:
        print("  " + e)
    return 1 if bad_func else 0


if __name__ == "__main__":
    sys.exit(main())
