#!/usr/bin/env python3
"""The command-line contract of docs/cli.md: outputs of the bundled example,
exit statuses, and one-line error messages naming the file.

Usage: cli.py STACKWALK TESTDATA_DIR"""
import json
import os
import subprocess
import sys
import tempfile

sw, testdata = sys.argv[1], sys.argv[2]
example = os.path.join(testdata, "example")
dump, syms = os.path.join(example, "test.dmp"), os.path.join(example, "symbols")
passed = failed = 0


def run(*args):
    p = subprocess.run([sw] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok    " + name)
    else:
        failed += 1
        print("FAIL  %s\n      %s" % (name, detail))


code, out, err = run(dump, syms)
check("text output of the example is Breakpad's", code == 0 and out == open(os.path.join(example, "expected.txt")).read(),
      "exit %d\n%s" % (code, out[:2000]))
code, out, err = run("--machine", dump, syms)
check("--machine output of the example is Breakpad's -m",
      code == 0 and out == open(os.path.join(example, "expected.machine.txt")).read(), out[:2000])
code, out, err = run("-m", dump, syms)
check("-m is --machine", code == 0 and out.startswith("OS|Windows NT|"), out[:200])
code, out, err = run("--json", dump, syms)
doc = json.loads(out) if code == 0 else {}
check("--json is one JSON document on one line",
      code == 0 and out.count("\n") == 1 and doc["crashing_thread"]["frames"][1]["function"] == "main", out[:300])
code, out2, err = run("--json", "--pretty", dump, syms)
check("--pretty indents the same document", code == 0 and json.loads(out2) == doc and "\n  \"crash_info\"" in out2)
code, out, err = run("--max-frames=2", dump, syms)
check("--max-frames caps the walk", code == 0 and " 1  test_app.exe!main" in out and " 2  " not in out, out[:1500])
code, out, err = run("--help")
check("--help prints usage, exit 0", code == 0 and out.startswith("Usage: stackwalk"))
code, out, err = run("--version")
check("--version, exit 0", code == 0 and out.startswith("stackwalk "))

for args, what in [((), "no arguments"), (("--bogus", dump), "unknown option"),
                   (("--pretty", dump), "--pretty without --json"),
                   (("--max-frames=0", dump), "--max-frames=0")]:
    code, out, err = run(*args)
    check("usage error: %s -> exit 2, one line" % what,
          code == 2 and out == "" and len(err.splitlines()) == 1 and err.startswith("stackwalk: "), "exit %d %r" % (code, err))

with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "missing.dmp")
    code, out, err = run(missing)
    check("missing file -> exit 3, one line naming it",
          code == 3 and out == "" and err.count("\n") == 1 and "missing.dmp" in err, "exit %d %r" % (code, err))
    elf = os.path.join(tmp, "not-a-dump")
    open(elf, "wb").write(b"\x7fELF" + b"\0" * 60)
    code, out, err = run(elf)
    check("not a snapshot -> exit 3, one line naming it",
          code == 3 and err.count("\n") == 1 and "not-a-dump" in err and "not a snapshot" in err, "exit %d %r" % (code, err))
    empty = os.path.join(tmp, "empty.dmp")
    open(empty, "wb").close()
    code, out, err = run(empty)
    check("empty file -> exit 3", code == 3 and "empty.dmp" in err, "exit %d %r" % (code, err))
    cut = os.path.join(tmp, "cut.dmp")
    open(cut, "wb").write(open(dump, "rb").read()[:6000])
    code, out, err = run(cut, syms)
    check("truncated dump -> exit 1, intact part printed, one line naming it",
          code == 1 and "Operating system: Windows NT" in out and err.count("\n") == 1 and "cut.dmp" in err,
          "exit %d %r" % (code, err))
    code, out, err = run(dump, os.path.join(tmp, "no-such-store"))
    check("a missing symbol path is not an error", code == 0 and "test_app.exe + 0x429e" in out, "exit %d" % code)

print("cli: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
