#!/usr/bin/env python3
"""The ARM EHABI fixtures of testdata/cores/arm-ehabi (gen_arm_ehabi.sh,
README.md there): armhf programs whose own code has no unwind rules
(crt1.o's EXIDX_CANTUNWIND for _start covers it all), crashed deep in the
program or through Debian's libc abort(), which has no .ARM.exidx entry.
Each core is walked with the program as it ran and with its stripped copy:

    stackwalk --json --brief CORE VARIANT[/stripped] /usr/arm-linux-gnueabihf/lib

and its crashing thread must be exactly the frames below (module!function,
`?` where the files name none), ending as said: `outermost` only at the
program's real entry (_start), `no_caller_found` where nothing proves a
caller. The program's own frames must be the chain it wrote while running
(run.txt: "enter NAME", innermost last), gdb's (gdb.txt, through qemu's
gdb stub) as far as gdb goes, and the stripped walk must give the same pcs
as the unstripped one. Before EXIDX_CANTUNWIND stopped meaning "no caller"
and before ARM prologue analysis, every one of these walks ended at the
program's first frame, or after a scanned frame in the dynamic loader.

Usage: armehabi.py --stackwalk PATH [--fixtures DIR] [--work DIR] [-v]
Prints one line per walk and "armehabi: N passed, N failed"; exits 77
(skipped) without Debian's armhf C library (libc6-armhf-cross)."""
import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LIBC = '/usr/arm-linux-gnueabihf/lib'

START = ['libc.so.6!?', 'libc.so.6!__libc_start_main', 'ehabi!_start']
ABORT = ['libc.so.6!?', 'libc.so.6!?', 'libc.so.6!raise', 'libc.so.6!abort']

# variant/case -> (frames, walk end). libc.so.6!? below main is the static
# __libc_start_call_main; in `thread`, start_thread and clone's child
# (past __clone's symbol), the thread's first frame, whose caller nothing
# gives (gdb stops at start_thread).
EXPECTED = {
    'thumb-O2/deep': (['ehabi!inner', 'ehabi!middle', 'ehabi!outer', 'ehabi!main'] + START,
                      'outermost'),
    'thumb-O2/abort': (ABORT + ['ehabi!fail', 'ehabi!middle', 'ehabi!outer', 'ehabi!main'] + START,
                       'outermost'),
    'thumb-O2/leaf': (['ehabi!leaf_store', 'ehabi!outer', 'ehabi!main'] + START, 'outermost'),
    'thumb-O2/thread': (['ehabi!inner', 'ehabi!middle', 'ehabi!thread_main', 'libc.so.6!?',
                         'libc.so.6!?'], 'no_caller_found'),
    'arm-O0/deep': (['ehabi!inner', 'ehabi!middle', 'ehabi!outer', 'ehabi!main'] + START,
                    'outermost'),
    'arm-O0/abort': (ABORT + ['ehabi!fail', 'ehabi!middle', 'ehabi!outer', 'ehabi!main'] + START,
                     'outermost'),
    'arm-O2-unwind/abort': (ABORT + ['ehabi!fail', 'ehabi!middle', 'ehabi!outer', 'ehabi!main'] +
                            START, 'outermost'),
}

GDB_FRAME = re.compile(r'^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+)')


def walk(stackwalk, core, paths):
    # Only the files given: a stripped walk must not find the program at
    # the path the core records (local modules are the default for a core).
    p = subprocess.run([stackwalk, '--json', '--brief', '--no-local-modules', core] + paths,
                       capture_output=True, text=True, timeout=120)
    if p.returncode >= 2:
        return None, 'exit %d: %s' % (p.returncode, p.stderr.strip()[:300])
    t = json.loads(p.stdout).get('crashing_thread') or {}
    return t, ''


def names(thread):
    return ['%s!%s' % (f.get('module'), f.get('function') or '?') for f in thread['frames']]


def chain(run_txt):
    """The program's own frames, innermost first (a thread's from its start)."""
    entered = [l.split()[1] for l in open(run_txt) if l.startswith('enter ')]
    if 'thread_main' in entered:
        entered = entered[entered.index('thread_main'):]
    return list(reversed(entered))


def gdb_names(gdb_txt):
    out = []
    section = False
    for line in open(gdb_txt, errors='replace'):
        if line.startswith('=== crashing thread'):
            section = True
        elif line.startswith('==='):
            section = False
        elif section:
            m = GDB_FRAME.match(line)
            if m:
                out.append(m.group(2))
    return out


def libc_aliases():
    """Names of one address in the C library (raise and its weak alias
    gsignal)."""
    out = subprocess.run(['nm', '-D', '--defined-only', os.path.join(LIBC, 'libc.so.6')],
                         capture_output=True, text=True).stdout
    at = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            at.setdefault(parts[0], set()).add(parts[2].split('@')[0])
    return {n: names for names in at.values() for n in names}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--stackwalk', required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--fixtures', default=os.path.join(here, '..', 'testdata', 'cores',
                                                       'arm-ehabi'))
    ap.add_argument('--work')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    if not os.path.isdir(LIBC):
        print('%s not found (libc6-armhf-cross): armehabi skipped' % LIBC)
        return 77
    work = args.work or tempfile.mkdtemp(prefix='armehabi-')
    os.makedirs(work, exist_ok=True)
    aliases = libc_aliases()
    passed = failed = 0
    for label, (want, want_end) in sorted(EXPECTED.items()):
        variant, case = label.split('/')
        src = os.path.join(args.fixtures, variant, case)
        core = os.path.join(work, '%s-%s.core' % (variant, case))
        with gzip.open(os.path.join(src, 'core.gz')) as f, open(core, 'wb') as out:
            shutil.copyfileobj(f, out)
        walks = {}
        for how, sub in (('full', ''), ('stripped', 'stripped')):
            problems = []
            t, err = walk(args.stackwalk, core, [os.path.join(args.fixtures, variant, sub), LIBC])
            if t is None:
                print('FAIL %s %s: %s' % (label, how, err))
                failed += 1
                continue
            walks[how] = t
            got = names(t)
            expect = want if how == 'full' else [
                'ehabi!?' if n.startswith('ehabi!') else n for n in want]
            if got != expect:
                problems.append('frames %s, expected %s' % (' '.join(got), ' '.join(expect)))
            if t.get('walk_end') != want_end:
                problems.append('walk_end %s, expected %s' % (t.get('walk_end'), want_end))
            if how == 'full':
                # leaf_store, the frameless leaf, says nothing of itself.
                own = [n.split('!')[1] for n in got
                       if n.startswith('ehabi!') and n not in ('ehabi!_start', 'ehabi!leaf_store')]
                truth = chain(os.path.join(src, 'run.txt'))
                if own != truth:
                    problems.append('program frames %s, run.txt %s' % (own, truth))
                gdb = gdb_names(os.path.join(src, 'gdb.txt'))
                for i, g in enumerate(gdb):
                    name = got[i].split('!')[1] if i < len(got) else None
                    if g != '??' and name not in (g, '?') and name not in aliases.get(g, ()):
                        problems.append('frame %d: %s, gdb %s' % (i, name, g))
            elif 'full' in walks:
                pcs = [f.get('offset') for f in walks['full']['frames']]
                if [f.get('offset') for f in t['frames']] != pcs:
                    problems.append('pcs differ from the unstripped walk')
            if problems:
                print('FAIL %s %s: %s' % (label, how, '; '.join(problems)))
                failed += 1
            else:
                print('ok   %s %s%s' % (label, how, (': ' + ' '.join(got)) if args.verbose else ''))
                passed += 1
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    print('armehabi: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
