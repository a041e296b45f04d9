#!/usr/bin/env python3
"""Frames named as debuggers name them, on real x86_64 cores
(testdata/names, made by its make.sh; README.md there).

- musl_segv: a static musl program writes through NULL. musl's _start is
  a NOTYPE GLOBAL symbol of size 0 (hand-written assembly), and musl's
  libc has no unwind tables: the caller of libc_start_main_stage2 is only
  found by a validated scan, and only named when _start names the code up
  to the next symbol. The walk must be inner, outer, main,
  libc_start_main_stage2, _start and end there as outermost (walk_end
  "outermost": nothing calls _start). gdb 13.1 (past-main on) prints
  stage2's caller as "0x0000000000000000 in ?? ()", eu-stack 0.188 stops at
  stage2 ("address out of range"): where they have frames, the names are
  theirs.
- glibc_abort: a glibc program calls abort(). libc.so.6 lists gsignal
  (WEAK) and raise (GLOBAL) at one address; gdb and eu-stack print raise,
  and so must we (GLOBAL over WEAK over LOCAL, as libdwfl ranks them).
  The core ran with this machine's libc: the case is walked with
  /lib/x86_64-linux-gnu when that libc is the same build (its GNU
  build-id is in glibc_abort.libc-build-id), else it is skipped with a
  line saying so.

Usage: names.py --stackwalk PATH --testdata DIR --work DIR
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys

from swtest import Checks, fresh_dir, run_stackwalk

HOST_LIBC_DIR = '/lib/x86_64-linux-gnu'


def gdb_names(path):
    """gdb's function of each frame of `bt` ('??' as None)."""
    names = []
    for line in open(path):
        m = re.match(r'^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(', line)
        if m:
            names.append(None if m.group(1) == '??' else m.group(1))
    return names


def eu_stack_names(path):
    names = []
    for line in open(path):
        m = re.match(r'^#\d+\s+0x[0-9a-f]+\s*(\S*)', line)
        if m:
            names.append(m.group(1) or None)
    return names


def unpack(testdata, work, name):
    dst = os.path.join(work, name + '.core')
    with gzip.open(os.path.join(testdata, 'names', name + '.core.gz')) as f, \
            open(dst, 'wb') as out:
        out.write(f.read())
    return dst


def walk(args, checks, core, paths, what):
    # --debug-dir=: the references were made without libc's debug file
    # (libc6-dbg), so the names are the symbol tables' on both sides.
    code, out, err = run_stackwalk(args.stackwalk, ['--json', '--debug-dir=', core] + paths,
                                   timeout=60)
    checks.check(code == 0, '%s: exit %s (%s)' % (what, code, err.strip()[:300]))
    try:
        doc = json.loads(out)
    except ValueError:
        checks.check(False, '%s: stdout is not JSON' % what)
        return None
    return doc


def same_names(checks, what, ours, ref, tool):
    """Frame by frame where the reference has a frame and a name."""
    for i, name in enumerate(ref):
        if i >= len(ours):
            checks.check(False, '%s: %s has frame %d (%s), the walk ends before it'
                         % (what, tool, i, name))
            return
        if name is not None:
            checks.check(ours[i] == name, '%s: frame %d is %s, %s says %s'
                         % (what, i, ours[i], tool, name))


def check_musl(args, checks):
    t = os.path.join(args.testdata, 'names')
    core = unpack(args.testdata, args.work, 'musl_segv')
    doc = walk(args, checks, core, [os.path.join(t, 'musl_static')], 'musl_segv')
    if doc is None:
        return
    th = doc['threads'][0]
    names = [f.get('function') for f in th['frames']]
    want = ['inner', 'outer', 'main', 'libc_start_main_stage2', '_start']
    checks.check(names == want, 'musl_segv: frames %s, want %s' % (names, want))
    checks.check(th.get('walk_end') == 'outermost',
                 'musl_segv: walk_end %r, want outermost (the walk ends at _start)'
                 % th.get('walk_end'))
    checks.check(doc.get('status') == 'OK', 'musl_segv: status %r' % doc.get('status'))
    # gdb's frame 4 is its invented "0x0 in ?? ()": the names up to main
    # and stage2 are compared, and that frame is not.
    gdb = gdb_names(os.path.join(t, 'musl_segv.gdb.txt'))
    checks.check(gdb[4:] == [None], 'musl_segv.gdb.txt: frame 4 is no longer gdb\'s ?? at 0x0')
    same_names(checks, 'musl_segv', names, gdb[:4], 'gdb')
    same_names(checks, 'musl_segv', names, eu_stack_names(os.path.join(t, 'musl_segv.eu-stack.txt')),
               'eu-stack')


def build_id(path):
    try:
        out = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
    except OSError:
        return None
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return m.group(1) if m else None


def check_glibc(args, checks):
    t = os.path.join(args.testdata, 'names')
    want_id = open(os.path.join(t, 'glibc_abort.libc-build-id')).read().strip()
    have_id = build_id(os.path.join(HOST_LIBC_DIR, 'libc.so.6'))
    if have_id != want_id:
        print('glibc_abort skipped: %s/libc.so.6 is build %s, the core ran with %s'
              % (HOST_LIBC_DIR, have_id, want_id))
        return
    core = unpack(args.testdata, args.work, 'glibc_abort')
    doc = walk(args, checks, core, [os.path.join(t, 'glibc_dynamic'), HOST_LIBC_DIR],
               'glibc_abort')
    if doc is None:
        return
    names = [f.get('function') for f in doc['threads'][0]['frames']]
    checks.check('gsignal' not in names, 'glibc_abort: a frame is named gsignal: %s' % names)
    checks.check(names[1:3] == ['raise', 'abort'], 'glibc_abort: frames 1-2 %s, want raise, abort'
                 % names[1:3])
    same_names(checks, 'glibc_abort', names, gdb_names(os.path.join(t, 'glibc_abort.gdb.txt')),
               'gdb')
    same_names(checks, 'glibc_abort', names,
               eu_stack_names(os.path.join(t, 'glibc_abort.eu-stack.txt')), 'eu-stack')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--testdata', required=True)
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    fresh_dir(args.work)
    checks = Checks('names')
    check_musl(args, checks)
    check_glibc(args, checks)
    print('names: %d passed, %d failed' % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == '__main__':
    sys.exit(main())
