#!/usr/bin/env python3
"""Makes testdata/example/ from the real corpus: rust-minidump's test.dmp
(MIT; the same file as Breakpad's minidump2.dmp, BSD-3-Clause) and a copy of
its test_app.sym cut down to the records a walk of that dump uses: MODULE,
the FUNC records (with their line records) and STACK WIN records covering
the given module offsets, and the FILE records those lines name.

Usage: testdata/make_example.py CORPUS_DIR OUT_DIR OFFSET...
Made with: testdata/make_example.py ../shared/corpus testdata/example 429e 41ff 53eb
"""
import os
import shutil
import sys


def covers(line, offsets, addr_field, size_field):
    f = line.split()
    start, size = int(f[addr_field], 16), int(f[size_field], 16)
    return any(start <= o < start + size for o in offsets)


def main():
    corpus, out, offsets = sys.argv[1], sys.argv[2], [int(x, 16) for x in sys.argv[3:]]
    src_dir = os.path.join(corpus, "rust-minidump")
    debug_id = "5A9832E5287241C1838ED98914E9B7FF1"
    sym = os.path.join(src_dir, "symbols", "test_app.pdb", debug_id, "test_app.sym")
    lines = open(sym, encoding="utf-8").read().splitlines()
    kept, files, in_func = [], set(), False
    for line in lines:
        kind = line.split(" ", 1)[0]
        if kind == "MODULE":
            kept.append(line)
        elif kind == "FUNC":
            in_func = covers(line, offsets, 1, 2)
            if in_func:
                kept.append(line)
        elif kind == "STACK":
            in_func = False
            if line.startswith("STACK WIN") and covers(line, offsets, 3, 4):
                kept.append(line)
        elif kind in ("FILE", "PUBLIC", "INFO"):
            in_func = False
        elif in_func:  # a line record of a kept FUNC
            kept.append(line)
            files.add(line.split()[3])
    file_lines = [l for l in lines if l.startswith("FILE ") and l.split()[1] in files]
    kept = kept[:1] + file_lines + kept[1:]
    dest = os.path.join(out, "symbols", "test_app.pdb", debug_id)
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "test_app.sym"), "w", encoding="utf-8") as f:
        f.write("\n".join(kept) + "\n")
    shutil.copyfile(os.path.join(src_dir, "test.dmp"), os.path.join(out, "test.dmp"))


if __name__ == "__main__":
    main()
