#!/usr/bin/env python3
"""MIPS frames stopped at a function's first instruction (issue 30, item 4):
the cores of testdata/cores/entry (gen_entry.sh, README.md there).

Each fixture ARCH/CASE (mips, mipsel, mips64el; badptr, sigentry) holds
core.gz, gdb.txt (gdb-multiarch's backtrace of the same crash through
qemu-user's gdb stub, with the C library) and trail.txt (the chain of calls
the program wrote itself before it crashed). In both cases a frame is at
the first instruction of the C library's __fpending, entered by a `jalr t9`
through a function pointer: frame 0 (badptr), or the context a signal
frame restores (sigentry). The core is walked twice:

    libc     stackwalk --json CORE ARCH LIBC_DIR  (the sysroot's libc, as it ran)
    nolibc   stackwalk --json CORE ARCH           (the program's file only)

`libc` must be gdb's walk, name and pc for every frame gdb shows (through
main; tests/gencores.py's comparison). `nolibc` has no code, symbols or
unwind tables for __fpending: only the call before its ra, and t9, prove
that nothing of it has run (arch/mips.c). It must be gdb's walk pc for pc
(the program's frames by name too), and every frame past main must be the
`libc` walk's: a frame more is an invented one. The program's trail must
be gdb's program frames (the reference itself is checked).

Without the sysroot's libc (scripts/setup.sh installs libc6-mips*-cross)
the `libc` walk is skipped and `nolibc` is checked against gdb alone, with
a line saying so.

A difference passes only when KNOWN_DIFFERENCES names it and pins its
problems; a listed difference that no longer happens fails.

Usage: entrycores.py --stackwalk PATH [--fixtures DIR] [--work DIR] [-v]
Prints one line per fixture and walk, and "entrycores: N passed, N failed".
"""
import argparse
import gzip
import os
import re
import shutil
import sys
import tempfile

from gencores import LIBC_DIRS, compare, describe, gdb_crashing_frames, run_walker, walker_frames
from swtest import summary

# "ARCH/CASE WALK" -> (why, the problems it shows, a regular expression
# each must match).
KNOWN_DIFFERENCES = {
    label: ("past main, in libc.so.6 whose file the walk does not have, Breakpad's MIPS scan "
            "takes a word it cannot check by code for a return address (its rule without code "
            "bytes: arch.h call_precedes): a stale return address of __libc_start_call_main, "
            "then a word into the program's own code. Not this fixture's subject: the frames "
            "it is about, through main and main's caller, are right",
            r'frame \d+ \((scan|cfi_scan)\): pc 0x[0-9a-f]+, the libc walk\'s (0x[0-9a-f]+|none)')
    for label in ('mips/badptr nolibc', 'mips/sigentry nolibc', 'mipsel/badptr nolibc',
                  'mipsel/sigentry nolibc')
}


def physical(doc):
    """[(function, offset, trust)] of the crashing thread's physical frames."""
    return [(f.get('function'), int(f['offset'], 16) if f.get('offset') else None,
             f.get('trust'))
            for f in (doc.get('crashing_thread') or {}).get('frames', [])]


def trail_of(path):
    with open(path) as f:
        for line in f:
            if line.startswith('trail:'):
                return line.split()[1:]
    return []


def check_trail(gdb, trail):
    """The program's own chain against gdb's program frames."""
    named = [n for n, _ in gdb if n in trail or n == 'main']
    return [] if named == list(reversed(trail)) else [
        "gdb's program frames %s, the program's trail %s" % (named, trail)]


def check_nolibc(gdb, trail, walk, ref):
    """The program-only walk: gdb's pcs (and the program's names) through
    main, then the libc walk's frames (REF, or None without the sysroot)."""
    problems = []
    if len(walk) < len(gdb):
        problems.append('walk has %d frames, gdb %d' % (len(walk), len(gdb)))
    for i, (gname, gpc) in enumerate(gdb):
        if i >= len(walk):
            break
        wname, wpc, _ = walk[i]
        if gname in trail and wname != gname:
            problems.append('frame %d: %s, gdb %s' % (i, wname, gname))
        # gdb prints a caller's return address, stackwalk its call site
        # (ra - 8 on MIPS: docs/json.md, `offset`).
        if gpc is not None and wpc is not None and (
                gpc != wpc if i == 0 else not 0 <= gpc - wpc <= 8):
            problems.append('frame %d (%s): pc 0x%x, gdb 0x%x' % (i, gname, wpc, gpc))
    if ref is not None:
        for i in range(len(gdb), len(walk)):
            want = ref[i][1] if i < len(ref) else None
            if walk[i][1] != want:
                problems.append("frame %d (%s): pc 0x%x, the libc walk's %s" % (
                    i, walk[i][2], walk[i][1], '0x%x' % want if want is not None else 'none'))
    return problems


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--fixtures', default=os.path.join(here, '..', 'testdata', 'cores', 'entry'))
    ap.add_argument('--work')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix='entrycores.')
    os.makedirs(work, exist_ok=True)
    fixtures = os.path.abspath(args.fixtures)
    passed = failed = 0
    unused_known = set(KNOWN_DIFFERENCES)

    def report(label, problems):
        nonlocal passed, failed
        known = KNOWN_DIFFERENCES.get(label)
        unused_known.discard(label)
        if known:
            why, pinned = known
            other = [p for p in problems if not re.fullmatch(pinned, p)]
            if other:
                print('FAIL %s: %s (not the listed difference: %s)' % (
                    label, '; '.join(other), why))
                failed += 1
            elif problems:
                print('ok   %s (known difference: %s; %s)' % (label, '; '.join(problems), why))
                passed += 1
            else:
                print('FAIL %s: listed in KNOWN_DIFFERENCES but walks right now' % label)
                failed += 1
        elif problems:
            print('FAIL %s: %s' % (label, '; '.join(problems)))
            failed += 1
        else:
            print('ok   %s' % label)
            passed += 1

    for arch in sorted(os.listdir(fixtures)):
        adir = os.path.join(fixtures, arch)
        if not os.path.isfile(os.path.join(adir, 'entry')):
            continue
        libc = [d for d in LIBC_DIRS.get(arch, []) if os.path.isdir(d)]
        for case in sorted(os.listdir(adir)):
            cdir = os.path.join(adir, case)
            if not os.path.isfile(os.path.join(cdir, 'core.gz')):
                continue
            name = '%s/%s' % (arch, case)
            core = os.path.join(work, arch, case, 'core')
            os.makedirs(os.path.dirname(core), exist_ok=True)
            with gzip.open(os.path.join(cdir, 'core.gz')) as src, open(core, 'wb') as dst:
                shutil.copyfileobj(src, dst)
            gdb = gdb_crashing_frames(os.path.join(cdir, 'gdb.txt'))
            trail = trail_of(os.path.join(cdir, 'trail.txt'))
            problems = check_trail(gdb, trail) if gdb and trail else [
                'no frames in gdb.txt or no trail']

            ref = None
            if libc:
                proc, doc = run_walker(args.stackwalk, core, [adir] + libc)
                if not doc or proc.returncode != 0:
                    report(name + ' libc', problems + ['exit %d, no JSON' % proc.returncode])
                else:
                    ref = physical(doc)
                    walk = walker_frames(doc)
                    # Inline frames expanded, as gdb lists them.
                    report(name + ' libc', problems + compare(gdb, gdb, walk, doc, [adir] + libc))
                    if args.verbose:
                        print('     walk: %s' % describe(walk))
            else:
                print('skip %s libc: no %s (the nolibc walk is checked against gdb alone)' % (
                    name, ' or '.join(LIBC_DIRS.get(arch, ['libc']))))

            proc, doc = run_walker(args.stackwalk, core, [adir])
            if not doc or proc.returncode != 0:
                report(name + ' nolibc', problems + ['exit %d, no JSON' % proc.returncode])
                continue
            # gdb's frames with inline ones as separate entries: compared
            # with the physical walk, gdb's inline frame (a line without a
            # pc, in the function of the frame below it) is left out.
            gdb_physical = [(n, pc) for i, (n, pc) in enumerate(gdb)
                            if not (pc is None and i > 0 and gdb[i - 1][0] == n)]
            walk = physical(doc)
            report(name + ' nolibc', problems + check_nolibc(gdb_physical, trail, walk, ref))
            if args.verbose:
                print('     walk: %s' % ' '.join('%s[%s]' % (n or hex(pc or 0), t)
                                               for n, pc, t in walk))
    for label in sorted(unused_known):
        print('FAIL %s: listed in KNOWN_DIFFERENCES but not run' % label)
        failed += 1
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return summary('entrycores', passed, failed)


if __name__ == '__main__':
    sys.exit(main())
