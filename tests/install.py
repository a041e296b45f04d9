#!/usr/bin/env python3
"""`meson install` into a temporary tree, then a program built against it.

Installs the build into WORK/root (--destdir), checks that the tree holds
the binary, the shared and static library, the header, stackwalk.pc and the
man page, that the shared library exports only the stackwalk_* API, and
builds tests/embed_example.c with `pkg-config --cflags --libs stackwalk`
(PKG_CONFIG_SYSROOT_DIR pointing into the tree) twice, linked to
libstackwalk.so and statically to libstackwalk.a. Each walks
testdata/example/test.dmp's crashing thread with its symbols and must print
the README's frames.

usage: install.py --build DIR --source DIR --work DIR --prefix P --bindir D
                  --libdir D --includedir D --mandir D --man yes|no
                  [--cc CC] [--cflag FLAG...]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

# Frames 0-2 of the crashing thread (README's quick start: what the CLI
# prints for the same walk), and the trust each was found by.
EXPECTED = [
    ("test_app.exe", "`anonymous namespace'::CrashFunction", "test_app.cc", 58, "context"),
    ("test_app.exe", "main", "test_app.cc", 65, "cfi"),
    ("test_app.exe", "__tmainCRTStartup", "crt0.c", 327, "cfi"),
]

failures = []
passes = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    (passes if ok else failures).append(what)
    return ok


def run(cmd, env=None, **kw):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)


def under(root, prefix, d):
    # meson's directory options are relative to the prefix unless absolute.
    return os.path.join(root + prefix, d) if not os.path.isabs(d) else root + d


def check_frames(out, how):
    frames = [l for l in out.splitlines() if re.match(r"\d+ ", l)]
    for i, (module, function, file, line, trust) in enumerate(EXPECTED):
        # The file as the symbols name it (c:\test_app.cc), pc and sp.
        want = (rf"{i} {re.escape(module)}!{re.escape(function)} "
                rf"\[[^]]*{re.escape(file)} : {line}\] pc=0x[0-9a-f]+ sp=0x[0-9a-f]+ {trust}")
        got = frames[i] if i < len(frames) else "(missing)"
        check(re.fullmatch(want, got) is not None, f"{how}: frame {i} is {function} ({trust})")
    check("json ok" in out.splitlines(), f"{how}: JSON rendered into a buffer")
    check("signature `anonymous namespace'::CrashFunction" in out.splitlines(),
          f"{how}: the crash signature")


def main():
    ap = argparse.ArgumentParser()
    for opt in ("build", "source", "work", "prefix", "bindir", "libdir", "includedir",
                "mandir", "man"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cflag", action="append", default=[])
    a = ap.parse_args()

    for tool in ("pkg-config", a.cc):
        if not shutil.which(tool):
            print(f"{tool} not found: install test skipped")
            return 77
    work = os.path.abspath(a.work)
    root = os.path.join(work, "root")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    r = run(["meson", "install", "-C", a.build, "--destdir", root, "--no-rebuild", "--quiet"])
    if not check(r.returncode == 0, "meson install --destdir"):
        print(r.stdout + r.stderr)
        return 1

    bindir = under(root, a.prefix, a.bindir)
    libdir = under(root, a.prefix, a.libdir)
    includedir = under(root, a.prefix, a.includedir)
    mandir = under(root, a.prefix, a.mandir)
    files = [os.path.join(bindir, "stackwalk"),
             os.path.join(libdir, "libstackwalk.so"),
             os.path.join(libdir, "libstackwalk.so.0"),
             os.path.join(libdir, "libstackwalk.a"),
             os.path.join(includedir, "stackwalk.h"),
             os.path.join(libdir, "pkgconfig", "stackwalk.pc")]
    if a.man == "yes":
        files.append(os.path.join(mandir, "man1", "stackwalk.1"))
    else:
        print("note: built without help2man (-Dman): no man page to check")
    for f in files:
        check(os.path.exists(f), "installed " + os.path.relpath(f, root))
    if failures:
        return 1
    if a.man == "yes":
        page = open(os.path.join(mandir, "man1", "stackwalk.1")).read()
        check(all(s in page for s in (".SH \"EXIT STATUS\"", "\\-\\-json", ".SH EXAMPLES")),
              "stackwalk.1 has the options, EXIT STATUS and EXAMPLES")

    # Only the API leaves the shared library (lib/stackwalk.map).
    so = os.path.realpath(os.path.join(libdir, "libstackwalk.so"))
    if shutil.which("nm"):
        r = run(["nm", "-D", "--defined-only", so])
        names = [l.split()[-1] for l in r.stdout.splitlines() if l.strip()]
        api = [n for n in names if n.startswith("stackwalk_")]
        # The version nodes (STACKWALK_0, STACKWALK_0.2, ...) are symbols too.
        other = [n for n in names
                 if not n.startswith("stackwalk_") and not re.fullmatch(r"STACKWALK_[0-9.]+", n)]
        check(r.returncode == 0 and len(api) > 20 and not other,
              f"libstackwalk.so exports {len(api)} stackwalk_* functions and nothing else"
              + (f" (also: {' '.join(other[:8])})" if other else ""))
        # A function added after 0.1 is in its own node (lib/stackwalk.map);
        # nm prints NAME@@NODE when it knows versions.
        if any("@@" in n for n in api):
            check("stackwalk_result_signature@@STACKWALK_0.2" in api
                  and "stackwalk_walk@@STACKWALK_0" in api,
                  "the 0.2 functions are in version node STACKWALK_0.2, the others in STACKWALK_0")
    r = run(["readelf", "-d", so]) if shutil.which("readelf") else None
    if r:
        check("Library soname: [libstackwalk.so.0]" in r.stdout, "SONAME libstackwalk.so.0")

    env = dict(os.environ,
               PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"),
               PKG_CONFIG_SYSROOT_DIR=root)
    cflags = run(["pkg-config", "--cflags", "stackwalk"], env=env).stdout.split()
    libs = run(["pkg-config", "--libs", "stackwalk"], env=env).stdout.split()
    static_libs = run(["pkg-config", "--static", "--libs", "stackwalk"], env=env).stdout.split()
    check(any(f.startswith("-I" + root) for f in cflags) and "-lstackwalk" in libs,
          "pkg-config --cflags --libs stackwalk: " + " ".join(cflags + libs))
    src = os.path.join(a.source, "tests", "embed_example.c")
    dump = os.path.join(a.source, "testdata", "example", "test.dmp")
    symbols = os.path.join(a.source, "testdata", "example", "symbols")

    builds = [
        ("shared", libs, dict(env, LD_LIBRARY_PATH=libdir)),
        # -l:libstackwalk.a: the archive, though the .so sits beside it.
        ("static", [("-l:libstackwalk.a" if f == "-lstackwalk" else f) for f in static_libs],
         env),
    ]
    outputs = []
    for how, link, run_env in builds:
        exe = os.path.join(work, "embed_" + how)
        cmd = [a.cc, "-std=c17", "-Wall", "-Wextra", "-Werror"] + a.cflag + cflags + \
            [src, "-o", exe] + link
        r = run(cmd, env=env)
        if not check(r.returncode == 0, f"{how}: " + " ".join(cmd[:1] + cmd[-len(link) - 3:])):
            print(r.stderr)
            continue
        if how == "static" and shutil.which("readelf"):
            needed = run(["readelf", "-d", exe]).stdout
            check("libstackwalk" not in needed, "static: no libstackwalk.so needed at run time")
        r = run([exe, dump, symbols], env=run_env)
        if not check(r.returncode == 0, f"{how}: embed_example exits 0"):
            print(r.stdout + r.stderr)
            continue
        print(r.stdout, end="")
        check_frames(r.stdout, how)
        outputs.append(r.stdout)
    if len(outputs) == 2:
        check(outputs[0] == outputs[1], "shared and static builds print the same")
    print(f"install: {len(passes)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
