#!/usr/bin/env python3
"""Debug-probe folders end to end: a firmware crash saved as a debug probe
would save it (regs.txt and mem-<hex>.bin, docs/offline-format.md,
"Debug-probe captures") walks as the .snap the firmware captured of itself.

For each board in testdata/firmware/fixtures (BOARD.snap, BOARD.elf: the
Cortex-M boards and riscv32-virt, made by tests/firmware.py):

    snap_to_probe.py BOARD.snap WORK/BOARD     the probe folder
    stackwalk --json BOARD.snap BOARD.elf      the reference walk
    stackwalk --json WORK/BOARD BOARD.elf      the probe walk

and the crashing thread's frames must be the same, frame by frame:
function, pc (offset) and trust; the registers, the memory and the ELF
are what decide the frames, and they are the same. A probe has no crash
record: its reader derives one from the registers (IPSR and CFSR on a
Cortex-M, mcause and mtval on RISC-V), and the crash lines (reason,
address, crashing thread) must be the .snap's too.

Usage: probe.py --stackwalk PATH [--work DIR] [-v]
Prints one line per board and "probe: N passed, N failed".
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from swtest import run_stackwalk, summary

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'testdata', 'firmware', 'fixtures')
CONVERTER = os.path.join(HERE, 'snap_to_probe.py')


def walk(stackwalk, snapshot, elf):
    code, out, err = run_stackwalk(stackwalk, ['--json', snapshot, elf], timeout=60)
    if code != 0:
        raise RuntimeError('%s: stackwalk exit %s: %s' % (snapshot, code, err.strip()))
    doc = json.loads(out)
    thread = doc.get('crashing_thread') or {}
    return [(f.get('function'), f.get('offset'), f.get('trust'))
            for f in thread.get('frames') or []], doc


def crash_lines(doc):
    info = doc.get('crash_info') or {}
    return (info.get('type'), info.get('address'), info.get('crashing_thread'))


def compare(want, got):
    """The problems of the probe walk against the .snap's: [] when equal."""
    problems = []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w != g:
            problems.append('frame %d: %s, expected %s' % (i, g, w))
    if not want or not want[0][0]:
        problems.append('the .snap walk names no function: nothing proved')
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--work')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix='probe-')
    os.makedirs(work, exist_ok=True)
    boards = sorted(f[:-5] for f in os.listdir(FIXTURES) if f.endswith('.snap'))
    passed = failed = 0
    for board in boards:
        snap = os.path.join(FIXTURES, board + '.snap')
        elf = os.path.join(FIXTURES, board + '.elf')
        folder = os.path.join(work, board)
        try:
            if os.path.isdir(folder):
                for f in os.listdir(folder):
                    os.remove(os.path.join(folder, f))
            subprocess.run([sys.executable, CONVERTER, snap, folder], check=True,
                           capture_output=True, text=True, timeout=60)
            want, want_doc = walk(args.stackwalk, snap, elf)
            got, doc = walk(args.stackwalk, folder, elf)
            problems = compare(want, got)
            if crash_lines(doc) != crash_lines(want_doc):
                problems.append('crash %s, expected %s' % (crash_lines(doc),
                                                          crash_lines(want_doc)))
            if not crash_lines(doc)[0]:
                problems.append('no crash reason derived')
            if doc.get('system_info', {}).get('os') != 'Bare metal':
                problems.append('os %s, expected Bare metal' %
                                doc.get('system_info', {}).get('os'))
        except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
            problems = [str(e)]
        if problems:
            failed += 1
            print('FAIL %s: %s' % (board, '; '.join(problems)))
        else:
            passed += 1
            print('ok   %s: %d frames and the crash (%s), as the .snap' %
                  (board, len(want), crash_lines(doc)[0]))
            if args.v:
                for f in got:
                    print('     %s %s %s' % f)
    summary('probe', passed, failed)
    return 1 if failed or not passed else 0


if __name__ == '__main__':
    sys.exit(main())
