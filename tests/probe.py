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

Then which ELF a folder's walk uses (mps2-an385's capture, with
mps2-an386.elf as "another build": the same addresses, other code):

- an ELF named on the command line wins over one lying in the folder: the
  walk is the .snap's, and stderr names the folder's file when it is
  another build (nothing when it is the same build copied there);
- of two ELF files in the folder at the same addresses, the one whose
  code the captured memory holds (a flash dump, mem-0.bin) is used,
  whatever the names' order, without a warning; when the capture holds
  none of their code, the first by name is used and one warning names
  both.

Usage: probe.py --stackwalk PATH [--work DIR] [-v]
Prints one line per board and check, and "probe: N passed, N failed".
"""
import argparse
import json
import os
import shutil
import struct
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


def flash_image(elf):
    """(address, bytes) of an ELF32's first read-only loadable segment: what
    a probe dumping the flash would save."""
    data = open(elf, 'rb').read()
    phoff, = struct.unpack_from('<I', data, 28)
    phentsize, phnum = struct.unpack_from('<HH', data, 42)
    for i in range(phnum):
        typ, off, vaddr, _, filesz, _, flags = struct.unpack_from('<IIIIIII', data,
                                                                   phoff + i * phentsize)
        if typ == 1 and not flags & 2 and filesz:
            return vaddr, data[off:off + filesz]
    raise ValueError('%s: no read-only loadable segment' % elf)


def choice_cases(args, work):
    """[(label, problems)] of the ELF-choice checks (see the docstring)."""
    board, other = 'mps2-an385', 'mps2-an386'
    snap = os.path.join(FIXTURES, board + '.snap')
    right = os.path.join(FIXTURES, board + '.elf')
    wrong = os.path.join(FIXTURES, other + '.elf')
    want, _ = walk(args.stackwalk, snap, right)
    folder = os.path.join(work, 'choice')

    def capture(files, flash=False):
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, CONVERTER, snap, folder], check=True,
                       capture_output=True, text=True, timeout=60)
        for name, src in files:
            shutil.copy(src, os.path.join(folder, name))
        if flash:
            base, data = flash_image(right)
            open(os.path.join(folder, 'mem-%x.bin' % base), 'wb').write(data)

    def run(symbols, says=(), silent=False):
        code, out, err = run_stackwalk(args.stackwalk, ['--json', folder] + symbols, timeout=60)
        problems = [] if code == 0 else ['exit %s: %s' % (code, err.strip())]
        if code == 0:
            thread = json.loads(out).get('crashing_thread') or {}
            got = [(f.get('function'), f.get('offset'), f.get('trust'))
                   for f in thread.get('frames') or []]
            problems += compare(want, got)
        warnings = [l for l in err.splitlines() if 'warning:' in l]
        for text in says:
            if not any(text in l for l in warnings):
                problems.append('no warning saying %r: %r' % (text, err.strip()))
        if silent and warnings:
            problems.append('warned: %r' % err.strip())
        return problems

    out = []
    capture([('old.elf', wrong)])
    out.append(('the named ELF wins over another build in the folder',
                run([right], says=('old.elf: another build than ' + right,))))
    capture([('fw.elf', right)])
    out.append(('the named ELF and the same build in the folder: one module, no warning',
                run([right], silent=True)))
    capture([('a-old.elf', wrong), ('fw.elf', right)], flash=True)
    out.append(('of two ELFs in the folder, the one the captured flash holds',
                run([], silent=True)))
    capture([('a-old.elf', wrong), ('fw.elf', right)])
    problems = run([], says=('a-old.elf, fw.elf: 2 ELF files of the folder hold',
                             'a-old.elf is used'))
    # The walk is the wrong build's: what is checked is the warning.
    problems = [p for p in problems if not p.startswith('frame ')]
    out.append(('two ELFs in the folder and no code captured: a warning names both', problems))
    return out


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
    try:
        choices = choice_cases(args, work)
    except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
        choices = [('choosing the ELF', [str(e)])]
    for label, problems in choices:
        if problems:
            failed += 1
            print('FAIL %s: %s' % (label, '; '.join(problems)))
        else:
            passed += 1
            print('ok   %s' % label)
    summary('probe', passed, failed)
    return 1 if failed or not passed else 0


if __name__ == '__main__':
    sys.exit(main())
