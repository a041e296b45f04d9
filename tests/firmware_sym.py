#!/usr/bin/env python3
"""Firmware symbols: a Breakpad .sym made by dump_syms and the ELF it was
made from name the same frames.

Breakpad's dump_syms writes every address of a .sym relative to the p_vaddr
of the ELF's first PT_LOAD, whatever that segment's file offset
(src/common/linux/dump_symbols.cc, GetLoadingAddress); stackwalk's ELF/DWARF
provider counts module offsets from where the ELF's file byte 0 would be
linked (p_vaddr - p_offset of that segment). A firmware's first segment
sits at file offset 0x1000 or 0x10000, not 0, so the two differ by that
much, and a module that takes symbols from both at once (docs/cli.md,
SYMBOL_PATH) must look the .sym up that much lower.

For each firmware of testdata/firmware/fixtures (BOARD.elf and BOARD.snap,
tests/firmware.py's) and of its breakpad/ folder (BOARD.elf.gz and
BOARD.snap, this test's own), with breakpad/BOARD.sym.gz, the .sym
dump_syms made from that ELF, the crash is walked with:

    elf           the ELF alone (the reference: the board's call chain)
    sym           the .sym alone, from a store (DIR/fw.elf/ID/fw.elf.sym.gz)
    sym-file      the .sym alone, given as a file
    sym+elf       the .sym and the ELF: names and lines from DWARF
    sym+nodwarf   the .sym and the ELF with its .debug_info hidden: names
                  and lines from the .sym, unwind rules and code bytes from
                  the ELF
    sym+nocfi     the .sym and the ELF with .debug_info and .debug_frame
                  hidden: names, lines and unwind rules from the .sym, code
                  bytes from the ELF

and every walk must give the reference's function and line for every frame,
and as many frames, except where a .sym cannot (SYM_LIMITS, each with its
reason: the walk then stops early, but the frames it has must still agree).

The .sym files were made once, with Breakpad's own dump_syms (commit
418aacd6, built from its source with ./configure && make
src/tools/linux/dump_syms/dump_syms), from a copy of each fixture ELF named
fw.elf (the name the firmware gives its module, so the MODULE line says
fw.elf): CI has no Breakpad. Remake them with
    firmware_sym.py --stackwalk PATH --dump-syms PATH/TO/dump_syms
after the fixtures change (a .sym of another build is refused by its debug
id, and the test says so).

netduino2 (testdata/firmware/cortex-m/memory-stm32.ld) is linked as an STM32
project is: flash at 0x08000000, the vector table in a segment of its own
at file offset 0x10000, a segment whose load and run addresses differ
(.data-like). Its ELF is kept gzipped (the 0x10000 alignment pads it to
180 KB). It was made with build.sh and captured under qemu-system-arm -M
netduino2 as tests/firmware.py does for its boards.

Usage: firmware_sym.py --stackwalk PATH [--dump-syms PATH] [-v]
Prints one line per board and mode, then "firmware_sym: N passed, N failed".
"""
import argparse
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import firmware  # noqa: E402  (the boards' call chains)
from swtest import summary, walk_json  # noqa: E402

FIXTURES = firmware.FIXTURES
BREAKPAD = os.path.join(FIXTURES, 'breakpad')

CHAINS = {board: spec[3] for board, spec in firmware.BOARDS.items()}
CHAINS['netduino2'] = firmware.CORTEX_M_CHAIN

# Where a .sym cannot give what the ELF does: board -> [(modes, frames,
# why)]. frames = N: the walk may end after N frames, not before, and the
# frames it has are the reference's; frames = 'unnamed': one frame, the
# context's, named by nothing; frames = ('unplaced', N): the context's
# frame named by nothing, and the next N - 1 at the reference's addresses,
# whatever the misplaced .sym names them (the rest is not judged: the
# .sym's rules are read at the wrong places); frames = ('wrong', names): a
# known wrong walk, pinned function by function so that a change shows.
SYM_ALONE = ('sym', 'sym-file')
SYM_LIMITS = {
    # The capture names one image from the Non-secure code (0x00040000) up
    # to the Secure flash's end; the ELF's first segment, which the .sym
    # counts from, is the Secure code at 0x10000000 (GNU ld lists the
    # program headers in load-address order, not p_vaddr order). Without
    # the ELF the module's base is taken for the .sym's 0: the context
    # frame is named by nothing and has no rule, but the HardFault handler
    # holds EXC_RETURN in lr, so its exception frame is unstacked from the
    # captured MSP_NS (arch/cortex_m.c): frame 1 is faulty_driver's pc, named
    # by whatever the misplaced .sym has there.
    'mps2-an505-ns': [(SYM_ALONE, ('unplaced', 2), 'the capture\'s image starts below the '
                       'ELF\'s first segment: a .sym alone cannot place it')],
    # dump_syms leaves the CFA offset of RISC-V GCC's CIE uninitialized (a
    # DW_CFA_def_cfa_register before any CFA rule, dwarf2reader.cc): every
    # STACK CFI INIT line says ".cfa: sp <garbage> +", a different garbage
    # each run. Where the walk needs that row (a leaf, a function's first
    # instruction) the .sym's rule fails.
    'riscv32-espidf': [(SYM_ALONE + ('sym+nocfi',), 5, 'dump_syms wrote garbage CFA '
                        'offsets in the STACK CFI INIT lines of RISC-V')],
    'riscv32-virt': [(SYM_ALONE + ('sym+nocfi',), 1, 'dump_syms wrote garbage CFA '
                      'offsets in the STACK CFI INIT lines of RISC-V')],
    # Breakpad's dwarf2reader.cc (CallFrameInfo::ReadCIEFields) reports a
    # CIE augmentation without 'z' as unrecognized and drops the CIE, so
    # the .sym has no STACK CFI for trap_vector, whose CIE in .debug_frame
    # is "S" (the bug stackwalk had before issue 30): without the ELF the
    # walk ends there. With the ELF's code but not its .debug_frame,
    # prologue analysis reads trap_vector's save of the interrupted ra as
    # the save of its own return address, and read_sensor, which the trap
    # interrupted, is lost: a RISC-V trap entry without CFI is not known
    # from its code yet (tests/firmware.py's walk has the CFI).
    'riscv32-cfi': [(SYM_ALONE, 3, 'dump_syms drops .debug_frame\'s CIE "S": no STACK CFI '
                     'for trap_vector'),
                    (('sym+nocfi',), ('wrong', ['crash_capture', 'trap_handler', 'trap_vector',
                                                'poll_sensors', 'app_step', 'app_step', 'main',
                                                '_start']),
                     'without CFI, prologue analysis takes the trap entry\'s save of the '
                     'interrupted ra for its own return address: read_sensor is lost')],
    # The FreeRTOS trap frame is found through pxCurrentTCB, whose address
    # the trap routine's code gives: a .sym has no code bytes.
    'riscv32-freertos': [(SYM_ALONE, 3, 'the trap frame is found from the code, '
                          'which a .sym does not hold'),
                         (('sym+nocfi',), 3, 'dump_syms wrote garbage CFA offsets in the '
                          'STACK CFI INIT lines of RISC-V')],
}

MODES = ('elf', 'sym', 'sym-file', 'sym+elf', 'sym+nodwarf', 'sym+nocfi')


def hide_sections(src, dst, names):
    """Copies the ELF src to dst with the sections called `names` renamed
    (same length, in .shstrtab), so that stackwalk does not see them."""
    data = bytearray(open(src, 'rb').read())
    if data[:4] != b'\x7fELF':
        raise ValueError('%s: not an ELF file' % src)
    is64, end = data[4] == 2, '<' if data[5] == 1 else '>'
    if is64:
        shoff, = struct.unpack_from(end + 'Q', data, 0x28)
        shentsize, _, shstrndx = struct.unpack_from(end + 'HHH', data, 0x3a)
        sh = shoff + shstrndx * shentsize
        off, size = struct.unpack_from(end + 'QQ', data, sh + 0x18)
    else:
        shoff, = struct.unpack_from(end + 'I', data, 0x20)
        shentsize, _, shstrndx = struct.unpack_from(end + 'HHH', data, 0x2e)
        sh = shoff + shstrndx * shentsize
        off, size = struct.unpack_from(end + 'II', data, sh + 0x10)
    table = bytes(data[off:off + size])
    for name in names:
        hidden = b'.hidden' + name[len('.hidden'):]
        table = table.replace(name + b'\0', hidden + b'\0')
    data[off:off + size] = table
    with open(dst, 'wb') as f:
        f.write(data)


def sym_module_line(path):
    with gzip.open(path, 'rt', errors='replace') as f:
        return f.readline().split()


class Frame(tuple):
    """(function, line) of a frame, which compares as that pair; its
    address (the JSON's offset) rides along as .offset."""
    def __new__(cls, function, line, offset):
        f = super().__new__(cls, (function, line))
        f.offset = offset
        return f


def walk(stackwalk, snap, paths):
    doc = walk_json(stackwalk, ['--no-cache', snap] + paths)
    frames = doc.get('crashing_thread', {}).get('frames') or []
    return [Frame(f.get('function'), f.get('line'), f.get('offset')) for f in frames]


def fixture_elf(board, d):
    """The board's ELF: tests/firmware.py's, else this test's, unpacked in d."""
    elf = os.path.join(FIXTURES, board + '.elf')
    if os.path.exists(elf):
        return elf
    elf = os.path.join(d, 'fw.elf')
    with gzip.open(os.path.join(BREAKPAD, board + '.elf.gz'), 'rb') as f, open(elf, 'wb') as out:
        shutil.copyfileobj(f, out)
    return elf


def fixture_snap(board):
    snap = os.path.join(FIXTURES, board + '.snap')
    return snap if os.path.exists(snap) else os.path.join(BREAKPAD, board + '.snap')


def setup_board(board, work):
    """The board's files for each mode: {mode: [symbol paths]}, and its snap."""
    d = os.path.join(work, board)
    os.makedirs(d, exist_ok=True)
    elf = fixture_elf(board, d)
    sym = os.path.join(BREAKPAD, board + '.sym.gz')
    mod = sym_module_line(sym)
    if len(mod) != 5 or mod[0] != 'MODULE':
        raise RuntimeError('%s: no MODULE line' % sym)
    store = os.path.join(d, 'store')
    filed = os.path.join(store, mod[4], mod[3])
    os.makedirs(filed, exist_ok=True)
    shutil.copy(sym, os.path.join(filed, mod[4] + '.sym.gz'))
    nodwarf = os.path.join(d, 'nodwarf.elf')
    hide_sections(elf, nodwarf, [b'.debug_info'])
    nocfi = os.path.join(d, 'nocfi.elf')
    hide_sections(elf, nocfi, [b'.debug_info', b'.debug_frame'])
    paths = {
        'elf': [elf],
        'sym': [store],
        'sym-file': [sym],
        'sym+elf': [store, elf],
        'sym+nodwarf': [store, nodwarf],
        'sym+nocfi': [store, nocfi],
    }
    return fixture_snap(board), paths


def compare(board, mode, ref, got):
    """The problems of `got` against the reference walk: [] when right."""
    want, why = ref, None
    for modes, frames, reason in SYM_LIMITS.get(board, []):
        if mode in modes:
            why = reason
            if frames == 'unnamed':
                want = [(None, None)]
            elif isinstance(frames, tuple) and frames[0] == 'wrong':
                names = [f for f, _ in got]
                return [] if names == frames[1] else [
                    'walk %s, not the known wrong walk %s (%s)' % (names, frames[1], why)]
            elif isinstance(frames, tuple) and frames[0] == 'unplaced':
                n = frames[1]
                problems = [] if len(got) >= n and got[0] == (None, None) else [
                    'frames %s, expected an unnamed context frame and %d more' % (
                        list(got), n - 1)]
                for i in range(1, min(n, len(got))):
                    if got[i].offset != ref[i].offset:
                        problems.append('frame %d at %s, expected %s' % (
                            i, got[i].offset, ref[i].offset))
                return problems + (['(%s)' % why] if problems else [])
            elif frames <= len(got) < len(ref):
                want = ref[:len(got)]
    problems = []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w != g:
            problems.append('frame %d: %s, expected %s' % (i, g, w))
    if problems and why:
        problems.append('(%s)' % why)
    return problems


def remake_syms(dump_syms, work):
    """Runs dump_syms on a copy of each fixture ELF named fw.elf."""
    for board in CHAINS:
        d = os.path.join(work, 'dump', board)
        os.makedirs(d, exist_ok=True)
        elf = os.path.join(d, 'fw.elf')
        src = fixture_elf(board, d)
        if src != elf:
            shutil.copy(src, elf)
        sym = subprocess.run([dump_syms, elf], capture_output=True, check=True).stdout
        with open(os.path.join(BREAKPAD, board + '.sym.gz'), 'wb') as raw:
            with gzip.GzipFile(fileobj=raw, mode='wb', filename='', mtime=0) as out:
                out.write(sym)
        print('made %s.sym.gz: %s' % (board, sym.split(b'\n', 1)[0].decode()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--dump-syms', help='remake the fixtures\' .sym files with this dump_syms')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix='firmware-sym-')
    try:
        if args.dump_syms:
            remake_syms(args.dump_syms, work)
        passed = failed = 0
        for board, chain in CHAINS.items():
            try:
                snap, paths = setup_board(board, work)
                ref = walk(args.stackwalk, snap, paths['elf'])
            except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
                failed += 1
                print('FAIL %s: %s' % (board, e))
                continue
            names = [f for f, _ in ref]
            if names != chain:
                failed += 1
                print('FAIL %s elf: %s, expected %s' % (board, names, chain))
                continue
            for mode in MODES[1:]:
                try:
                    problems = compare(board, mode, ref, walk(args.stackwalk, snap, paths[mode]))
                except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
                    problems = [str(e)]
                    if re.search(r'symbol file not used', str(e)):
                        problems.append('the .sym is of another build: remake it (--dump-syms)')
                if problems:
                    failed += 1
                    print('FAIL %s %s: %s' % (board, mode, '; '.join(problems)))
                else:
                    passed += 1
                    if args.v:
                        print('ok   %s %s' % (board, mode))
            if args.v:
                print('     %s: %s' % (board, ref))
        return summary('firmware_sym', passed, failed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
