#!/usr/bin/env python3
"""The command-line contract of docs/cli.md: outputs of the bundled example,
exit statuses, and one-line error messages naming the file.

Usage: cli.py STACKWALK TESTDATA_DIR"""
import gzip
import json
import os
import re
import stat
import subprocess
import sys
import tempfile

sw, testdata = sys.argv[1], sys.argv[2]
example = os.path.join(testdata, "example")
dump, syms = os.path.join(example, "test.dmp"), os.path.join(example, "symbols")
passed = failed = 0


def run(*args):
    try:
        p = subprocess.run([sw] + list(args), capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out (blocked?)"
    return p.returncode, p.stdout, p.stderr


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok    " + name)
    else:
        failed += 1
        print("FAIL  %s\n      %s" % (name, detail))


def without_signature(text):
    """Our text less its lines that are not Breakpad's (docs/output.md)."""
    return "".join(l for l in text.splitlines(True)
                   if not l.startswith(("Signature: ", "Crash instruction: ")))


code, out, err = run(dump, syms)
check("text output of the example is Breakpad's, plus its Signature and Crash instruction lines",
      code == 0 and without_signature(out) == open(os.path.join(example, "expected.txt")).read()
      and "\nSignature: `anonymous namespace'::CrashFunction\nProcess uptime:" in out,
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
code, out3, err = run(dump, syms, "--json", "--max-frames=2")
check("options after SNAPSHOT and symbol paths are options, not symbol paths",
      code == 0 and err == "" and json.loads(out3)["crashing_thread"]["frames"][1]["function"] == "main"
      and len(json.loads(out3)["crashing_thread"]["frames"]) == 2, "exit %d %r %s" % (code, err, out3[:300]))
code, out, err = run("--max-frames=1", dump, syms, "--max-frames=2")
check("an option given twice: the last value counts", code == 0 and " 1  test_app.exe!main" in out and " 2  " not in out,
      out[:1500])
code, out, err = run(dump, "--", "--json")
check("-- ends options: a later '--json' is a symbol path",
      code == 0 and out.startswith("Operating system:") and "--json: symbol path ignored" in err,
      "exit %d %r" % (code, err))

for args, what, says in [((), "no arguments", "no SNAPSHOT"),
                         (("--bogus", dump), "unknown option", "unknown option '--bogus'"),
                         ((dump, syms, "--bogus"), "unknown option after SNAPSHOT", "unknown option '--bogus'"),
                         ((dump, "-x"), "unknown short option", "unknown option '-x'"),
                         ((dump, "--ma"), "a prefix of two options", "ambiguous option '--ma'"),
                         ((dump, "--json=1"), "a value to an option that takes none", "'--json' takes no value"),
                         ((dump, "--max-frames"), "--max-frames without its value", "needs a value"),
                         (("--json", "-m", dump), "--json with -m", "--json and --machine"),
                         ((dump, "--machine", "--json"), "--machine with --json", "--json and --machine"),
                         (("--pretty", dump), "--pretty without --json", "--pretty"),
                         (("--pretty", "-m", dump), "--pretty with --machine", "--pretty"),
                         (("--max-frames=0", dump), "--max-frames=0", "--max-frames"),
                         ((dump, "--output-file"), "--output-file without its value", "needs a value"),
                         ((dump, "--cyborg"), "--cyborg without its value", "needs a value"),
                         ((dump, "--signature-skip"), "--signature-skip without its value", "needs a value"),
                         ((dump, "--json", "--cyborg=x.json"), "--cyborg with --json", "--cyborg"),
                         ((dump, "--output-file=r", "--cyborg=r"), "--output-file and --cyborg the same",
                          "the same file 'r'"),
                         ((dump, "--output-file="), "an empty --output-file", "empty FILE"),
                         ((dump, "--brief=1"), "a value to --brief", "'--brief' takes no value"),
                         ((dump, "--signature-skip=/nonexistent/rules"), "--signature-skip of a missing file",
                          "/nonexistent/rules: cannot open")]:
    code, out, err = run(*args)
    check("usage error: %s -> exit 2, one line" % what,
          code == 2 and out == "" and len(err.splitlines()) == 1 and err.startswith("stackwalk: ") and says in err,
          "exit %d %r" % (code, err))

with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "missing.dmp")
    code, out, err = run(missing)
    check("missing file -> exit 3, one line naming it",
          code == 3 and out == "" and err.count("\n") == 1 and "missing.dmp" in err, "exit %d %r" % (code, err))
    unknown = os.path.join(tmp, "not-a-dump")
    open(unknown, "wb").write(b"\x01\x02\x03\x04" + b"\0" * 60)
    code, out, err = run(unknown)
    check("not a snapshot -> exit 3, one line naming it and its first bytes",
          code == 3 and err.count("\n") == 1 and "not-a-dump" in err and "starts with 01 02 03 04" in err
          and "an ELF core" in err and "offline capture folder" in err,
          "exit %d %r" % (code, err))

    # Files that are not snapshots say what they are: one line naming the
    # file, exit 3 (docs/cli.md, "Messages").
    sym = open(os.path.join(syms, "test_app.pdb", "5A9832E5287241C1838ED98914E9B7FF1", "test_app.sym"), "rb").read()
    elf = open("/bin/true", "rb").read()
    # The same ELF file with e_type ET_CORE (4), in its byte order (EI_DATA).
    core = elf[:16] + (4).to_bytes(2, "little" if elf[5] == 1 else "big") + elf[18:]
    kinds = [("a-directory", None, "is a directory"),
             ("a-fifo", None, "is a FIFO"),
             ("app.sym", sym, "a Breakpad symbol file, not a snapshot: give it as a SYMBOL_PATH"),
             # A compressed file is judged by what it holds (a gzip'd
             # minidump is walked: tests/compressed.py).
             ("app.sym.gz", gzip.compress(sym), "gzip-compressed: a Breakpad symbol file, not a snapshot"),
             ("true", elf, "not a snapshot: give it as a SYMBOL_PATH"),
             ("notes.gz", gzip.compress(b"hello\n" * 100), "gzip-compressed: not a snapshot stackwalk reads (starts with 68 65"),
             # Names a microdump but has no usable BEGIN line: not one the reader takes.
             ("odd.microdump", b"google-breakpad: BREAKPAD MICRODUMP follows\n"
                               b"O A arm 02 armv7l OS VERSION INFO\n", "microdump"),
             ("empty.dmp", b"", "empty file")]
    for name, data, says in kinds:
        path = os.path.join(tmp, name)
        if name == "a-directory":
            os.mkdir(path)
        elif name == "a-fifo":
            os.mkfifo(path)  # opening it would block: stackwalk must not
        else:
            open(path, "wb").write(data)
        code, out, err = run(path)
        check("refused %s -> exit 3, one line naming it and what it is" % name,
              code == 3 and out == "" and err.count("\n") == 1 and err.startswith("stackwalk: " + path + ": ")
              and says in err, "exit %d %r" % (code, err))
    # An ELF core is read (formats/elfcore.c): one without a thread note is
    # damaged, exit 1, one line naming it and what is missing.
    path = os.path.join(tmp, "core")
    open(path, "wb").write(core)
    code, out, err = run(path)
    check("core without threads -> exit 1, one line naming it",
          code == 1 and err.count("\n") == 1 and err.startswith("stackwalk: " + path + ": ")
          and "no thread note" in err, "exit %d %r" % (code, err))
    # A directory is read when it is an offline capture (regs.txt and
    # maps.txt, docs/offline-format.md); other directories are refused above.
    offline = os.path.join(tmp, "offline")
    os.mkdir(offline)
    open(os.path.join(offline, "regs.txt"), "w").write("pc: 1010\nsp: 2000\nlr: 1020\n")
    open(os.path.join(offline, "maps.txt"), "w").write("1000-2000 r-xp 0 00:00 0   app\n")
    open(os.path.join(offline, "stack.data"), "wb").write((0x2000).to_bytes(8, "little") + bytes(16))
    code, out, err = run(offline)
    check("offline folder -> exit 0, its thread and module printed",
          code == 0 and err == "" and "Thread 0" in out and "app + 0x10" in out, "exit %d %r %r" % (code, err, out))
    cut = os.path.join(tmp, "cut.dmp")
    open(cut, "wb").write(open(dump, "rb").read()[:6000])
    code, out, err = run(cut, syms)
    check("truncated dump -> exit 1, intact part printed, one line naming it",
          code == 1 and "Operating system: Windows NT" in out and err.count("\n") == 1 and "cut.dmp" in err,
          "exit %d %r" % (code, err))
    code, out, err = run(dump, os.path.join(tmp, "no-such-store"))
    check("a missing symbol path is not an error", code == 0 and "test_app.exe + 0x429e" in out, "exit %d" % code)
    check("a missing symbol path: one warning line naming it",
          err == "stackwalk: %s: symbol path ignored: No such file or directory\n" % os.path.join(tmp, "no-such-store"),
          repr(err))

# Crash pipelines (docs/cli.md): --brief, --output-file, --cyborg, pipes,
# the JSON status, --require-symbols, signatures and --signature-skip.
code, full, err = run(dump, syms)
for args in [("--brief", dump, syms), ("-c", dump, syms), (dump, syms, "--brief")]:
    code, out, err = run(*args)
    check("%s: only the crashing thread, the rest of the report as always" % " ".join(a for a in args if a.startswith("-")),
          code == 0 and err == "" and "Thread 0 (crashed)" in out and "\nThread 1" not in out
          and out.split("\nThread 0")[0] == full.split("\nThread 0")[0]
          and out.split("Loaded modules:")[1] == full.split("Loaded modules:")[1], "exit %d %r" % (code, err))
code, out, err = run("-c", "-m", dump, syms)
check("--brief --machine: the crashing thread's frames only",
      code == 0 and "\n0|0|test_app.exe|" in out and "\n1|" not in out, out[-500:])
code, out, err = run("-c", "--json", dump, syms)
doc = json.loads(out) if code == 0 else {}
code2, out2, _ = run("--json", dump, syms)
doc2 = json.loads(out2) if code2 == 0 else {}
check("--brief --json: every thread listed, only the crashing one walked",
      code == 0 and doc["thread_count"] == doc2["thread_count"] and doc["crashing_thread"] == doc2["crashing_thread"]
      and all(t["walk_end"] == "not_walked" and t["frames"] == [] for i, t in enumerate(doc["threads"]) if i != 0),
      out[:300])
check("--json: the signature and status OK",
      doc2.get("signature") == "`anonymous namespace'::CrashFunction" and doc2.get("status") == "OK", out2[:200])

with tempfile.TemporaryDirectory() as tmp:
    report = os.path.join(tmp, "report.txt")
    code, out, err = run(dump, syms, "--output-file", report)
    check("--output-file: the report in FILE, nothing on stdout, no temporary file left",
          code == 0 and out == "" and err == "" and open(report).read() == full and os.listdir(tmp) == ["report.txt"],
          "exit %d %r %r" % (code, err, os.listdir(tmp)))
    open(report, "w").write("old report\n")
    code, out, err = run(os.path.join(tmp, "missing.dmp"), "--output-file=" + report)
    check("--output-file after an unreadable input: exit 3, FILE left as it was",
          code == 3 and open(report).read() == "old report\n" and sorted(os.listdir(tmp)) == ["report.txt"],
          "exit %d %r %r" % (code, err, os.listdir(tmp)))
    nodir = os.path.join(tmp, "no", "report.txt")
    code, out, err = run(dump, "--output-file=" + nodir)
    check("--output-file in a missing folder: exit 4, one line naming it",
          code == 4 and out == "" and err == "stackwalk: %s: cannot create: No such file or directory\n" % nodir,
          "exit %d %r" % (code, err))
    cy = os.path.join(tmp, "report.json")
    code, out, err = run("--cyborg", cy, dump, syms)
    check("--cyborg: text on stdout, the JSON in FILE",
          code == 0 and err == "" and out == full and json.loads(open(cy).read()) == doc2, "exit %d %r" % (code, err))
    code, out, err = run("--cyborg=" + cy, "--pretty", "-m", "--output-file=" + report, dump, syms)
    check("--cyborg --pretty with -m and --output-file: machine to FILE, indented JSON to the other",
          code == 0 and out == "" and open(report).read().startswith("OS|Windows NT|")
          and open(cy).read().startswith("{\n  \"crash_info\"") and json.loads(open(cy).read()) == doc2,
          "exit %d %r" % (code, err))

    # Output files that are not regular files are written through, never
    # renamed over (as root, a rename over /dev/null would replace the
    # system's device with a regular file).
    def same_node(path, before):
        st = os.lstat(path)
        return stat.S_IFMT(st.st_mode) == stat.S_IFMT(before.st_mode) and st.st_rdev == before.st_rdev

    def leftovers(folder):
        return [f for f in os.listdir(folder) if ".tmp-" in f]

    for opt in ("--output-file", "--cyborg"):
        dev_null = os.lstat("/dev/null")
        code, out, err = run(dump, syms, opt, "/dev/null")
        check("%s /dev/null: exit 0, /dev/null still the device, nothing left in /dev" % opt,
              code == 0 and err == "" and same_node("/dev/null", dev_null) and not leftovers("/dev"),
              "exit %d %r" % (code, err))
        code, out, err = run(dump, syms, opt, "/dev/full")
        check("%s /dev/full: written through, exit 4, one line naming it" % opt,
              code == 4 and err == "stackwalk: /dev/full: cannot write: No space left on device\n"
              and stat.S_ISCHR(os.lstat("/dev/full").st_mode), "exit %d %r" % (code, err))
    with tempfile.TemporaryDirectory() as nodes:
        if os.geteuid() == 0:
            node = os.path.join(nodes, "null")
            os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            before = os.lstat(node)
            code, out, err = run(dump, syms, "--output-file", node)
            check("--output-file on a mknod'ed device node (as root): written through, the node kept",
                  code == 0 and err == "" and same_node(node, before) and os.listdir(nodes) == ["null"],
                  "exit %d %r %r" % (code, err, os.listdir(nodes)))
            os.unlink(node)
        else:
            print("skip  --output-file on a mknod'ed device node: needs root")
        fifo = os.path.join(nodes, "fifo")
        os.mkfifo(fifo)
        for opt, want in (("--output-file", full), ("--cyborg", None)):
            before = os.lstat(fifo)
            p = subprocess.Popen([sw, dump, syms, opt, fifo], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            with open(fifo) as reader:
                got = reader.read()
            out, err = p.communicate(timeout=60)
            ok = want is None and json.loads(got) == doc2 or got == want
            check("%s on a FIFO: the report read from its other end, the FIFO kept" % opt,
                  p.returncode == 0 and err == "" and ok and same_node(fifo, before) and os.listdir(nodes) == ["fifo"],
                  "exit %d %r %r" % (p.returncode, err, os.listdir(nodes)))
        os.unlink(fifo)
        target = os.path.join(nodes, "real.txt")
        with open(target, "w") as f:
            f.write("old\n")
        os.chmod(target, 0o640)
        link = os.path.join(nodes, "link.txt")
        os.symlink("real.txt", link)
        code, out, err = run(dump, syms, "--output-file", link)
        check("--output-file on a symlink: the link kept, its target holds the report with its mode",
              code == 0 and os.path.islink(link) and os.readlink(link) == "real.txt" and open(target).read() == full
              and stat.S_IMODE(os.stat(target).st_mode) == 0o640 and not leftovers(nodes),
              "exit %d %r %r" % (code, err, os.listdir(nodes)))
        code, out, err = run(os.path.join(nodes, "missing.dmp"), "--output-file", link)
        check("--output-file on a symlink after an unreadable input: exit 3, link and target as they were",
              code == 3 and os.path.islink(link) and open(target).read() == full and not leftovers(nodes),
              "exit %d %r" % (code, err))
        dangling = os.path.join(nodes, "dangling.json")
        os.mkdir(os.path.join(nodes, "sub"))
        os.symlink("sub/new.json", dangling)
        code, out, err = run(dump, syms, "--cyborg", dangling)
        check("--cyborg on a dangling symlink: the link kept, the report created where it points",
              code == 0 and os.path.islink(dangling)
              and json.loads(open(os.path.join(nodes, "sub", "new.json")).read()) == doc2
              and not leftovers(os.path.join(nodes, "sub")), "exit %d %r" % (code, err))
        folder = os.path.join(nodes, "sub")
        code, out, err = run(dump, syms, "--output-file", folder)
        check("--output-file on a directory: refused, exit 4, one line naming it, nothing created",
              code == 4 and out == "" and err == "stackwalk: %s: cannot create: Is a directory\n" % folder
              and os.listdir(folder) == ["new.json"], "exit %d %r" % (code, err))
        p = subprocess.run("%s %s %s --output-file /dev/stdout | cat" % (sw, dump, syms), shell=True,
                           capture_output=True, text=True)
        check("--output-file /dev/stdout into a pipe: the report through the pipe",
              p.returncode == 0 and p.stdout == full and p.stderr == "", "exit %d %r" % (p.returncode, p.stderr))

    # A write error on a file: the file size limit (SIGXFSZ ignored, so
    # the write fails with EFBIG instead of killing the process).
    def small_files():
        import resource
        import signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
    for opt in ("--output-file", "--cyborg"):
        target = os.path.join(tmp, "big" + opt.replace("-", "_"))
        p = subprocess.run([sw, opt, target, dump, syms], capture_output=True, text=True, preexec_fn=small_files)
        check("%s: a write error -> exit 4, one line naming the file, no file" % opt,
              p.returncode == 4 and p.stderr == "stackwalk: %s: cannot write: File too large\n" % target
              and not os.path.exists(target) and not [f for f in os.listdir(tmp) if ".tmp-" in f],
              "exit %d %r" % (p.returncode, p.stderr))
    with open("/dev/full", "w") as full_dev:
        p = subprocess.run([sw, dump, syms], stdout=full_dev, stderr=subprocess.PIPE, text=True)
    check("stdout that cannot be written -> exit 4, one line",
          p.returncode == 4 and p.stderr == "stackwalk: cannot write the output: No space left on device\n",
          "exit %d %r" % (p.returncode, p.stderr))

    # A reader that stops reading: `stackwalk ... | head`. The read end is
    # closed before stackwalk writes; the exit is the walk's, stderr empty.
    for args in [(dump, syms), ("--json", dump, syms), ("-m", dump, syms)]:
        p = subprocess.Popen([sw] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.close()
        err = p.stderr.read().decode()
        code = p.wait(timeout=60)
        check("a closed pipe on stdout (%s) -> exit 0, nothing said" % (args[0] if args[0].startswith("-") else "text"),
              code == 0 and err == "", "exit %d %r" % (code, err))
    p = subprocess.Popen("%s %s %s | head -1" % (sw, dump, syms), shell=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=60)
    check("stackwalk DUMP | head -1: one line, nothing on stderr",
          out == b"Operating system: Windows NT\n" and err == b"", repr(err))

    # The JSON status says what the exit status says.
    cut = os.path.join(tmp, "cut.dmp")
    open(cut, "wb").write(open(dump, "rb").read()[:6000])
    code, out, err = run("--json", cut, syms)
    check("--json of a damaged input: status DAMAGED, exit 1",
          code == 1 and json.loads(out)["status"] == "DAMAGED" and json.loads(out)["problems"], out[-300:])

    # --require-symbols: exit 5 when the signature's modules lack symbols.
    code, out, err = run("--require-symbols", dump, syms)
    check("--require-symbols with the symbols -> exit 0", code == 0 and err == "", "exit %d %r" % (code, err))
    code, out, err = run(dump, "--require-symbols")
    check("--require-symbols without them -> exit 5, one line naming the module and its debug id, the report printed",
          code == 5 and err == "stackwalk: %s: no symbols for test_app.exe (test_app.pdb, "
          "5A9832E5287241C1838ED98914E9B7FF1), which holds frame 0 of the crashing thread\n" % dump
          and "Signature: test_app.exe\n" in out and "Loaded modules:" in out, "exit %d %r" % (code, err))
    code, out, err = run("--json", dump, "--require-symbols")
    check("--require-symbols --json -> exit 5, status OK", code == 5 and json.loads(out)["status"] == "OK",
          "exit %d" % code)
    code, out, err = run(cut, "--require-symbols")
    check("--require-symbols on a damaged input: 1 wins over 5", code == 1, "exit %d %r" % (code, err))

    # --signature-skip: rules after the built-in ones.
    rules = os.path.join(tmp, "rules.txt")
    open(rules, "w").write("# our crash helpers\nirrelevant *::CrashFunction\n")
    code, out, err = run(dump, syms, "--signature-skip", rules)
    check("--signature-skip drops a frame: the signature moves on to main",
          code == 0 and "\nSignature: main\n" in out, "exit %d %r" % (code, err))
    open(rules, "w").write("prefix *::CrashFunction\n")
    code, out, err = run("--json", dump, syms, "--signature-skip=" + rules)
    check("--signature-skip prefix: the signature goes on past it",
          code == 0 and json.loads(out)["signature"] == "`anonymous namespace'::CrashFunction | main",
          "exit %d %r" % (code, err))
    open(rules, "w").write("prefix x\nskip y\n")
    code, out, err = run(dump, syms, "--signature-skip", rules)
    check("--signature-skip with a bad line -> exit 2, one line naming file and line",
          code == 2 and out == "" and err.startswith("stackwalk: %s:2: 'skip' is not a rule" % rules)
          and err.count("\n") == 1, "exit %d %r" % (code, err))

# The exit statuses are listed four times for four readers: README.md,
# docs/cli.md, the man page (docs/stackwalk.1.h2m) and --help. Each lists
# the same ones, 0 to 5, and says 5 is --require-symbols' (README.md's
# short list once lacked it).
root = os.path.dirname(os.path.abspath(testdata))
readme = open(os.path.join(root, "README.md")).read()
cli_md = open(os.path.join(root, "docs", "cli.md")).read()
man = open(os.path.join(root, "docs", "stackwalk.1.h2m")).read()
_, help_text, _ = run("--help")


def table_rows(text):
    """The rows of the first Markdown table in text."""
    return text.split("\n| --- |")[1].split("\n\n")[0]


help_statuses = " ".join(help_text.split("Exit status:")[1].split()).split(". A reader")[0]
lists = {
    "README.md": [(int(n), t) for n, t in re.findall(r"\*\*(\d)\*\* ([^;]*)",
                                                   readme.split("\nExit status: ")[1].split("\n\n")[0])],
    "docs/cli.md": [(int(n), t) for n, t in re.findall(r"\n\| (\d) \| ([^|]*)",
                                                     table_rows(cli_md.split("\n## Exit status\n")[1]))],
    "docs/stackwalk.1.h2m": [(int(n), t) for n, t in re.findall(r"\n\.B (\d)\n([^\n]*)",
                                                              man.split("[EXIT STATUS]")[1].split("\n[")[0])],
    "--help": [(int(n), t) for n, t in re.findall(r"(?:^|; )(\d) ([^;]*)", help_statuses)],
}
for where, statuses in sorted(lists.items()):
    check("exit statuses in %s: 0 to 5, 5 for --require-symbols" % where,
          [n for n, _ in statuses] == [0, 1, 2, 3, 4, 5]
          and "require-symbols" in dict(statuses)[5].replace("\\-", "-"), repr(statuses))

# A call through a NULL function pointer (testdata/cores, case nullcall):
# the signature is @0x0 and its caller, and --require-symbols asks for the
# caller's symbols (docs/signature.md).
nullcall = os.path.join(testdata, "cores", "x86_64-O2nofp", "nullcall", "core.gz")
nullcall_bin = os.path.join(testdata, "cores", "x86_64-O2nofp")
with tempfile.TemporaryDirectory() as nodebug:
    alone = ("--no-local-modules", "--debug-dir", nodebug, nullcall)
    code, out, err = run("--json", "--require-symbols", *alone, nullcall_bin)
    doc = json.loads(out) if code == 0 else {}
    check("a NULL call: the signature goes on to its caller, @0x0 | call_null",
          code == 0 and doc.get("signature") == "@0x0 | call_null", "exit %d %r %r" % (code, err, out[:200]))
    code, out, err = run("--require-symbols", *alone)
    check("a NULL call, --require-symbols without the caller's symbols -> exit 5 naming its module",
          code == 5 and "\nSignature: @0x0 | crash\n" in out
          and "stackwalk: %s: no symbols for crash (crash, E5010C961E8EB639E9419F83F67238BE0), which "
          "holds frame 1 of the crashing thread\n" % nullcall in err, "exit %d %r" % (code, err))

# .snap files (docs/snap-format.md): testdata/snap/make_seeds.py's, with
# the Breakpad symbols of their firmware.
snapdir = os.path.join(testdata, "snap")
snapsym = os.path.join(snapdir, "cortex_m.sym")
code, out, err = run(os.path.join(snapdir, "cortex_m.snap"), snapsym)
check(".snap of a Cortex-M HardFault -> exit 0, walked to main, the fault named",
      code == 0 and err == "" and "Crash reason:  HardFault / UNDEFINSTR" in out
      and " 3  firmware.elf!main + 0x13" in out and "Found by: stack scanning" in out,
      "exit %d %r %s" % (code, err, out[:1500]))
code, out, err = run("--json", os.path.join(snapdir, "cortex_m.snap"), snapsym)
doc = json.loads(out) if code == 0 else {}
check(".snap --json: the crashing thread's frames",
      code == 0 and [f.get("function") for f in doc["crashing_thread"]["frames"]]
      == ["func_c", "func_b", "func_a", "main"], out[:500])
for name, says in [("cut.snap", "damaged .snap: offset 358: MEMORY record of 72 bytes cut by the end of the file"),
                   ("flipped.snap", "damaged .snap: offset 173: CRASH record of 26 bytes: bad CRC: skipped")]:
    path = os.path.join(snapdir, name)
    code, out, err = run(path, snapsym)
    check("damaged .snap (%s) -> exit 1, walked, one line naming the record" % name,
          code == 1 and "Thread 0" in out and err.count("\n") == 1
          and err.startswith("stackwalk: " + path + ": " + says), "exit %d %r" % (code, err))
with tempfile.TemporaryDirectory() as tmp:
    newer = bytearray(open(os.path.join(snapdir, "riscv32.snap"), "rb").read())
    newer[8] = 2
    path = os.path.join(tmp, "newer.snap")
    open(path, "wb").write(newer)
    code, out, err = run(path)
    check(".snap of version 2 -> exit 3, one line",
          code == 3 and out == "" and err == "stackwalk: %s: .snap version 2, which this stackwalk does not "
          "read (it reads 1)\n" % path, "exit %d %r" % (code, err))

# stackwalk convert: the example as a .snap walks as the example does.
with tempfile.TemporaryDirectory() as tmp:
    out_snap = os.path.join(tmp, "test.snap")
    code, out, err = run("convert", dump, out_snap)
    check("convert the example -> exit 0, nothing said", code == 0 and out == "" and err == "",
          "exit %d %r" % (code, err))
    code, a, _ = run("--json", dump, syms)
    code2, b, _ = run("--json", out_snap, syms)
    frames = lambda text: [(f.get("function"), f.get("module"), f.get("offset"), f.get("trust"))
                           for f in json.loads(text)["crashing_thread"]["frames"]]
    check("convert: the .snap's crashing thread walks as the minidump's",
          code == 0 and code2 == 0 and frames(a) == frames(b), "%s\n%s" % (a[:300], b[:300]))
    code, out, err = run("convert", "--all-threads", dump, out_snap)
    code2, b, _ = run("--json", out_snap, syms)
    check("convert --all-threads: every thread",
          code == 0 and code2 == 0 and len(json.loads(b)["threads"]) == len(json.loads(a)["threads"]),
          "exit %d %r" % (code, err))
    for args, status, says in [((), 2, "stackwalk: convert: no IN given"),
                               ((dump,), 2, "stackwalk: convert: no OUT.snap given"),
                               (("--bogus", dump, out_snap), 2, "stackwalk: convert: unknown option '--bogus'"),
                               ((os.path.join(tmp, "missing.dmp"), out_snap), 3,
                                "stackwalk: %s: cannot open: " % os.path.join(tmp, "missing.dmp")),
                               ((dump, os.path.join(tmp, "no", "out.snap")), 4,
                                "stackwalk: %s: cannot create: " % os.path.join(tmp, "no", "out.snap"))]:
        code, out, err = run("convert", *args)
        check("convert %s -> exit %d, one line" % (" ".join(a[len(tmp):] if a.startswith(tmp) else a
                                                           for a in args) or "(nothing)", status),
              code == status and out == "" and err.count("\n") == 1 and err.startswith(says),
              "exit %d %r" % (code, err))
    code, out, err = run("convert", "--help")
    check("convert --help, exit 0", code == 0 and out.startswith("Usage: stackwalk convert"))

# Issue 31 item 7: what a pipeline keeps of a report.
# "tool": the name and the version --version prints (one version).
code, out, err = run("--json", dump, syms)
doc = json.loads(out) if code == 0 else {}
_, ver, _ = run("--version")
check("--json names the tool and its version, the one --version prints",
      doc.get("tool") == {"name": "stackwalk", "version": ver.split()[-1]}, str(doc.get("tool")))
check("--json of a Windows minidump: its executable is the main module's path, no command line",
      doc.get("process") == {"arguments": None, "command_line": None, "executable": "c:\\test_app.exe"},
      str(doc.get("process")))
core = os.path.join(testdata, "cores", "x86_64-O0", "chain", "core.gz")
code, out, err = run("--json", core, os.path.dirname(core))
doc = json.loads(out) if code == 0 else {}
check("--json of an ELF core: pr_psargs as command_line (no exact argv), AT_EXECFN as executable",
      doc.get("process") == {"arguments": None, "command_line": "/tmp/gencores/x86_64-O0/bin/crash chain",
                             "executable": "/tmp/gencores/x86_64-O0/bin/crash"}, str(doc.get("process")))

# --registers: all (the default, today's output), crashing, none.
two = os.path.join(testdata, "cores", "aarch64-O2nofp", "thread", "core.gz")
texts = {r: run("--registers=" + r, two, os.path.dirname(two)) for r in ("all", "crashing", "none")}
code, default_text, _ = run(two, os.path.dirname(two))
check("--registers=all is the default text", texts["all"] == (code, default_text, texts["all"][2]))
def reg_lines(text):
    """Register lines per thread: {thread header: count}."""
    counts, cur = {}, None
    for l in text.splitlines():
        if l.startswith("Thread "):
            cur = l
            counts[cur] = 0
        elif cur and " = 0x" in l:
            counts[cur] += 1
    return counts
r_all, r_crash, r_none = (reg_lines(texts[r][1]) for r in ("all", "crashing", "none"))
crashed = [t for t in r_all if "(crashed)" in t]
check("--registers=crashing keeps the crashing thread's register lines only",
      len(r_all) >= 2 and len(crashed) == 1 and r_crash[crashed[0]] == r_all[crashed[0]] > 0
      and all(n == 0 for t, n in r_crash.items() if t != crashed[0])
      and all(n > 0 for n in r_all.values()), "%s / %s" % (r_all, r_crash))
check("--registers=none: no register lines, each frame still says how it was found",
      all(n == 0 for n in r_none.values()) and texts["none"][1].count("Found by:")
      == texts["all"][1].count("Found by:") and len(texts["none"][1]) < len(texts["crashing"][1])
      < len(texts["all"][1]), "%d %d %d bytes" % tuple(len(texts[r][1]) for r in ("all", "crashing", "none")))
check("--registers: the text is the same but for the register lines",
      [l for l in texts["all"][1].splitlines() if " = 0x" not in l and l != " "]
      == [l for l in texts["none"][1].splitlines()])
js = {r: run("--json", "--registers=" + r, two, os.path.dirname(two))[1] for r in ("all", "crashing", "none")}
docs = {r: json.loads(js[r]) for r in js}
check("--json --registers=crashing is the default (registers only on crashing_thread's frame 0)",
      js["crashing"] == run("--json", two, os.path.dirname(two))[1]
      and "registers" in docs["all"]["crashing_thread"]["frames"][0])
check("--json --registers=none leaves out the registers object, nothing else",
      "registers" not in docs["none"]["crashing_thread"]["frames"][0] and len(js["none"]) < len(js["all"])
      and json.dumps(docs["none"]) == json.dumps(docs["all"]).replace(
          ', "registers": ' + json.dumps(docs["all"]["crashing_thread"]["frames"][0]["registers"]), ""))
for r in ("none", "crashing"):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(js[r])
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "json_check.py"), f.name], capture_output=True, text=True)
    os.unlink(f.name)
    check("--json --registers=%s passes tests/json_check.py" % r, p.returncode == 0, p.stdout[-500:])
for bad in ("--registers=some", "--registers="):
    code, out, err = run(bad, dump)
    check("%s is a usage error" % bad, code == 2 and out == "" and "--registers wants all, crashing or none" in err, err)
for args in (("--batch", "--pretty", dump), ("--batch", "--json", "--pretty", dump)):
    code, out, err = run(*args)
    check("%s is refused: a batch is one JSON document per line" % " ".join(args[:-1]),
          code == 2 and out == "" and err.count("\n") == 1
          and "--batch prints one JSON document per line: --pretty does not apply" in err, err)
code, out, err = run("--re", dump)
check("--re is ambiguous (--require-symbols, --registers)", code == 2 and "ambiguous option '--re'" in err, err)
code, out, err = run("--req", dump, syms)
check("--req is still --require-symbols", code == 0, err)

# Issue 31 item 11: the README's exit statuses and the man page's
# (docs/stackwalk.1.h2m, EXIT STATUS) say the same, status for status.
def _norm(text):
    text = re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-")
    return " ".join(text.replace("**", "").split())
source = os.path.dirname(os.path.abspath(testdata))
h2m = open(os.path.join(source, "docs", "stackwalk.1.h2m")).read()
sec = h2m[h2m.index("[EXIT STATUS]"):h2m.index("[EXAMPLES]")]
man_status = {n: _norm(t) for n, t in
              re.findall(r"\.TP\n\.B (\d)\n(.*?)(?=\n\.TP|\n\.PP|\n\[)", sec, re.S)}
readme = open(os.path.join(source, "README.md")).read()
readme_status = {n: _norm(t) for n, t in
                 re.findall(r"^- \*\*(\d)\*\* (.*?)(?=^- \*\*\d|^$)", readme, re.S | re.M)}
check("the README's exit statuses are the man page's, word for word",
      sorted(man_status) == list("012345") and readme_status == man_status,
      "man %s\nREADME %s" % (man_status, readme_status))

print("cli: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
