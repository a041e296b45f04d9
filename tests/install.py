#!/usr/bin/env python3
"""`meson install` into a temporary tree, then a program built against it.

Installs the build into WORK/root (--destdir), checks that the tree holds
the binary, the shared and static library, the header, stackwalk.pc and the
man page, that the shared library exports only the stackwalk_* API, and
builds tests/embed_example.c with `pkg-config --cflags --libs stackwalk`
(PKG_CONFIG_SYSROOT_DIR pointing into the tree) twice, linked to
libstackwalk.so and statically to libstackwalk.a. Each walks
testdata/example/test.dmp's crashing thread with its symbols and must print
the README's frames, the crash and the modules through the accessors. The
README's library example itself is built and run the same way. One version
everywhere: the header's STACKWALK_VERSION macros, stackwalk_version(),
`stackwalk --version`, `pkg-config --modversion` and the newest version
node of lib/stackwalk.map (its MAJOR.MINOR) agree.

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
    lines = out.splitlines()
    check("crash EXCEPTION_ACCESS_VIOLATION_WRITE at 0x45 thread 0" in lines,
          f"{how}: the crash reason, address and thread index")
    modules = [l for l in lines if l.startswith("module ")]
    check(len(modules) == 13 and modules[0] ==
          "module test_app.exe base=0x400000 size=0x2d000 "
          "debug_id=5A9832E5287241C1838ED98914E9B7FF1 code_id=45D35F6C2d000 loaded",
          f"{how}: the modules ({len(modules)}; first {modules[0] if modules else None})")


def check_versions(a, bindir, includedir, env):
    """The version as meson.build gives it, in every place it shows."""
    r = run([os.path.join(bindir, "stackwalk"), "--version"])
    cli = r.stdout.strip().removeprefix("stackwalk ")
    pc = run(["pkg-config", "--modversion", "stackwalk"], env=env).stdout.strip()
    header = open(os.path.join(includedir, "stackwalk_version.h")).read()
    macro = re.search(r'#define STACKWALK_VERSION "([^"]*)"', header)
    parts = [re.search(rf"#define STACKWALK_VERSION_{p} (\d+)", header) for p in
             ("MAJOR", "MINOR", "PATCH")]
    macro = macro.group(1) if macro else None
    split = ".".join(m.group(1) if m else "?" for m in parts)
    check(re.fullmatch(r"\d+\.\d+\.\d+", cli or "") is not None and cli == pc == macro == split,
          f"one version: --version {cli}, stackwalk.pc {pc}, STACKWALK_VERSION {macro}, "
          f"MAJOR.MINOR.PATCH {split}")
    mapfile = open(os.path.join(a.source, "lib", "stackwalk.map")).read()
    nodes = re.findall(r"^STACKWALK_(\d+)(?:\.(\d+))? \{", mapfile, re.M)
    newest = max((int(x), int(y or 0)) for x, y in nodes) if nodes else None
    check(newest is not None and cli.split(".")[:2] == [str(n) for n in newest],
          f"the newest version node STACKWALK_{'.'.join(map(str, newest or ()))} is the "
          f"version's MAJOR.MINOR ({cli})")
    return cli


def readme_example(a, work, cflags, link, run_env, env):
    """README.md's library example, as a main(), built against the tree and
    run where crash.dmp and symbols/ are the example's."""
    readme = open(os.path.join(a.source, "README.md")).read()
    section = readme[readme.find("## Embedding"):]
    m = re.search(r"```c\n(.*?)```", section, re.S)
    if not check(m is not None, "README: the library example is found"):
        return
    code = m.group(1)
    check("json" not in code.lower() and "stackwalk_result_crash_reason" in code
          and "stackwalk_result_module" in code,
          "README: the example uses the accessors and no JSON")
    includes = "".join(l + "\n" for l in code.splitlines() if l.startswith("#include"))
    body = "".join("\t" + l + "\n" for l in code.splitlines() if not l.startswith("#include"))
    d = os.path.join(work, "readme")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "readme_example.c")
    with open(src, "w") as f:
        f.write("#include <stdio.h>\n" + includes + "int main(void)\n{\n" + body
                + "\treturn 0;\n}\n")
    os.symlink(os.path.join(a.source, "testdata", "example", "test.dmp"),
               os.path.join(d, "crash.dmp"))
    os.symlink(os.path.join(a.source, "testdata", "example", "symbols"),
               os.path.join(d, "symbols"))
    exe = os.path.join(d, "readme_example")
    r = run([a.cc, "-std=c17", "-Wall", "-Wextra", "-Werror"] + a.cflag + cflags
            + [src, "-o", exe] + link, env=env)
    if not check(r.returncode == 0, "README: the example compiles with -Wall -Wextra -Werror"):
        print(r.stderr)
        return
    r = run([exe], env=run_env, cwd=d)
    print(r.stdout, end="")
    lines = r.stdout.splitlines()
    check(r.returncode == 0
          and "EXCEPTION_ACCESS_VIOLATION_WRITE at 0x45" in lines
          and "0 test_app.exe!`anonymous namespace'::CrashFunction context" in lines
          and "signature `anonymous namespace'::CrashFunction" in lines
          and "0x400000 test_app.exe 5A9832E5287241C1838ED98914E9B7FF1 symbols loaded" in lines,
          "README: the example prints the crash, the frames and the modules")


DOCS = ["cli.md", "output.md", "json.md", "batch.md", "symbol-cache.md", "symbol-servers.md",
        "signature.md", "snap-format.md", "offline-format.md", "README.md"]


def check_man_page(page, root):
    """What issue 31 item 11 asks of the installed page: no option entry
    with its description fused into its name, an ENVIRONMENT section
    naming every variable the code reads, the cache's default place, the
    convert subcommand explained, and the documents' installed folder."""
    def plain(t):
        return re.sub(r"\\f[BIRP]|\\[,/]", "", t).replace("\\-", "-")
    opts = page[page.index(".SH OPTIONS"):page.index(".SH", page.index(".SH OPTIONS") + 4)]
    tags = [plain(t) for t in re.findall(r"^\.TP\n(.*)$", opts, re.M)]
    fused = [t for t in tags
             if not re.fullmatch(r"(-[-\w]+(=[^ ]+|='[^']*')?)(, -[-\w]+)*", t)]
    check(len(tags) > 25 and not fused,
          f"stackwalk.1: {len(tags)} option entries, none fused with its text {fused[:3]}")
    env = page[page.index(".SH ENVIRONMENT"):page.index(".SH FILES")]
    check(all(re.search(rf"^\.B {v}$", env, re.M)
              for v in ("XDG_CACHE_HOME", "HOME", "DEBUGINFOD_URLS", "TMPDIR")),
          "stackwalk.1: ENVIRONMENT names XDG_CACHE_HOME, HOME, DEBUGINFOD_URLS, TMPDIR")
    files = plain(page[page.index(".SH FILES"):])
    check("~/.cache/stackwalk" in files and "on by default" in files,
          "stackwalk.1: FILES says the symbol cache is on by default, and where")
    check(re.search(r'^\.SH "CONVERTING TO \.SNAP"', page, re.M) is not None,
          "stackwalk.1: a section explains stackwalk convert")
    m = re.search(r"The full reference is (\S+)/cli\.md", plain(page))
    check(m is not None and os.path.isfile(root + m.group(1) + "/cli.md"),
          f"stackwalk.1 names the installed documents' folder ({m.group(1) if m else None})")


def main():
    ap = argparse.ArgumentParser()
    for opt in ("build", "source", "work", "prefix", "bindir", "libdir", "includedir",
                "mandir", "datadir", "man"):
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
             os.path.join(includedir, "stackwalk_version.h"),
             os.path.join(libdir, "pkgconfig", "stackwalk.pc")]
    # The documents the man page points to (docs/meson.build).
    docdir = os.path.join(under(root, a.prefix, a.datadir), "doc", "stackwalk")
    files += [os.path.join(docdir, d) for d in DOCS]
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
        check_man_page(page, root)

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
                  and "stackwalk_walk@@STACKWALK_0" in api
                  and "stackwalk_result_module@@STACKWALK_0.5" in api
                  and "stackwalk_frame_evidence@@STACKWALK_0.6" in api,
                  "the 0.2 functions are in version node STACKWALK_0.2, the 0.5 ones in "
                  "STACKWALK_0.5, the 0.6 ones in STACKWALK_0.6, the others in STACKWALK_0")
    r = run(["readelf", "-d", so]) if shutil.which("readelf") else None
    if r:
        check("Library soname: [libstackwalk.so.0]" in r.stdout, "SONAME libstackwalk.so.0")

    env = dict(os.environ,
               PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"),
               PKG_CONFIG_SYSROOT_DIR=root)
    version = check_versions(a, bindir, includedir, env)
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
    for out in outputs[:1]:
        check(f"version {version} {version}" in out.splitlines()
              and f"version macros {version}" in out.splitlines(),
              f"the program's STACKWALK_VERSION macros and stackwalk_version() are {version}")
    readme_example(a, work, cflags, builds[0][1], builds[0][2], env)
    print(f"install: {len(passes)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
