#!/usr/bin/env python3
"""Checks a walk of gen48k_depth500 against its ground truth: every chain of
expected_chains.txt must appear, deepest function first, as consecutive
frames of one thread, each found by CFI (the crash frame: by context).

Usage: check_gen48k.py EXPECTED_CHAINS.txt OUR_TEXT_OUTPUT.txt
Prints one line per chain and a summary; exit 1 if a chain is missing."""
import re
import sys


def chains(path):
    out, cur = [], None
    for line in open(path):
        if line.startswith("#"):
            continue
        if line.startswith("thread "):
            cur = (line.split()[1], line.split()[2], [])
            out.append(cur)
            continue
        depth, _, module, function = line.split()
        cur[2].append("%s!%s" % (module, function))
    return out


def threads(path):
    out, cur, frame = [], None, None
    for line in open(path, errors="replace"):
        if line.startswith("Thread "):
            cur = []
            out.append(cur)
        elif line.startswith("Loaded modules"):
            cur = None
        elif cur is not None:
            m = re.match(r"^\s?\d+\s+(\S+?)(?: \[| \+ |$)", line)
            if m and not line.startswith("    "):
                frame = [m.group(1), None]
                cur.append(frame)
            m = re.match(r"^\s+Found by: (.*)$", line)
            if m and frame is not None:
                frame[1] = m.group(1).strip()
    return out


def main():
    expected, walked = chains(sys.argv[1]), threads(sys.argv[2])
    missing = 0
    for tid, name, chain in expected:
        want = list(reversed(chain))
        found = False
        for frames in walked:
            names = [f[0] for f in frames]
            for start in range(len(names) - len(want) + 1):
                if names[start:start + len(want)] == want:
                    trusts = {f[1] for f in frames[start:start + len(want)]}
                    ok = trusts <= {"call frame info", "given as instruction pointer in context"}
                    print("chain %s %-9s %d functions: found, %s" %
                          (tid, name, len(want), "all by CFI" if ok else "NOT all by CFI: %s" % trusts))
                    found = ok
                    break
            if found:
                break
        if not found:
            missing += 1
            print("chain %s %-9s %d functions: MISSING" % (tid, name, len(want)))
    print("%d of %d chains walked exactly" % (len(expected) - missing, len(expected)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
