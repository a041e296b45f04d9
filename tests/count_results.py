#!/usr/bin/env python3
"""Counts the checks behind meson's test results, for tests/run's closing
line: each Check suite's "Checks: N, Failures: F, Errors: E", each Python
test's "NAME: P passed, F failed"; a test that printed neither (a fuzzer)
counts once by its result, a test that failed without saying so (it
crashed) adds one failure, and a skipped one (exit 77) is named on stderr.

Usage: count_results.py BUILD_DIR... ; prints "PASSED FAILED"."""
import json
import re
import sys

passed = failed = 0
for build in sys.argv[1:]:
    try:
        lines = open(build + "/meson-logs/testlog.json", encoding="utf-8").readlines()
    except OSError:
        continue
    for line in lines:
        t = json.loads(line)
        out = t.get("stdout") or ""
        # Skipped (exit 77: the ../shared corpus is absent, a tool is
        # missing): neither passed nor failed, but said.
        if t.get("result") == "SKIP":
            print("skipped: %s: %s" % (t.get("name"), (out.strip().splitlines() or [""])[-1]),
                  file=sys.stderr)
            continue
        ok = t.get("result") == "OK"
        p = f = 0
        found = False
        for m in re.finditer(r"Checks: (\d+), Failures: (\d+), Errors: (\d+)", out):
            found = True
            n, fl, er = map(int, m.groups())
            p, f = p + n - fl - er, f + fl + er
        for m in re.finditer(r"^\w[\w-]*: (\d+) passed, (\d+) failed$", out, re.M):
            found = True
            p, f = p + int(m.group(1)), f + int(m.group(2))
        if not found:
            p, f = (1, 0) if ok else (0, 1)
        elif not ok and f == 0:
            f = 1
        passed += p
        failed += f
print(passed, failed)
