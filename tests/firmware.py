#!/usr/bin/env python3
"""Firmware end to end: a crash captured as a .snap by the firmware itself.

testdata/firmware/cortex-m/fw.c and testdata/firmware/riscv32/fw.c crash the
way firmware crashes, and their fault handlers capture a .snap with the
shipped writer (formats/snap_writer.c, compiled into them) and send it to
the host by semihosting. For each board:

    build.sh WORK             the firmware, with Debian's cross compilers
    qemu-system-ARCH ...      runs it: WORK/BOARD/crash.snap
    stackwalk --json crash.snap BOARD.elf

and the crashing thread's frames must be the firmware's call chain, known
by construction (the comment at the top of each fw.c), function by
function, and no other frame: a frame more is an invented one. Each frame
also names its trust: the capture's context, then what proved each next
frame.

Boards of STRIPPED are also walked with BOARD-stripped.elf (build.sh strips
them: no symbols, no .debug_frame; the code and the vector table are all a
walk has). Its first frames, through the thread function the exceptions
interrupted, must be the full walk's, pc and trust (the exception frames
unstacked from the handlers' EXC_RETURN in lr, arch/cortex_m.c); what a scan
finds after them must be frames of the full walk, in its order (a stripped
Cortex-M firmware has nothing that proves a thread frame's caller, so a
scan may skip one, but never invents one).

Without the cross compiler or qemu, the boards are walked from the copies
committed in testdata/firmware/fixtures (BOARD.elf, BOARD.snap, made by
this script with --update), and the line says so.

Usage: firmware.py --stackwalk PATH [--work DIR] [--update] [-v]
Prints one line per board and "firmware: N passed, N failed".
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from swtest import summary, walk_json

HERE = os.path.dirname(os.path.abspath(__file__))
FIRMWARE = os.path.join(HERE, '..', 'testdata', 'firmware')
FIXTURES = os.path.join(FIRMWARE, 'fixtures')

# The call chain from the crash out, by construction.
CORTEX_M_CHAIN = ['HardFault_Handler', 'faulty_driver', 'handle_event', 'PendSV_Handler',
                  'trigger_interrupt', 'compute', 'compute', 'compute', 'task_loop', 'main',
                  'Reset_Handler']
# Cortex-M whose PendSV handler is a leaf that faults itself (fw.c
# LEAF_HANDLER).
CORTEX_M_LEAF_CHAIN = ['HardFault_Handler', 'PendSV_Handler'] + CORTEX_M_CHAIN[4:]
# Cortex-M with the Non-secure interrupt handler (fw.c NS_IRQ).
CORTEX_M_NS_CHAIN = [('NonSecure_IRQ_Handler' if f == 'PendSV_Handler' else f)
                     for f in CORTEX_M_CHAIN]
RV32_CHAIN = ['read_sensor', 'poll_sensors', 'app_step', 'app_step', 'main', '_start']
# The same crash behind a trap entry of FreeRTOS's and of ESP-IDF's layout
# (testdata/firmware/riscv32/fw_trap.c): the capture's own frame, the C
# hook, the entry routine, then the context its frame restores.
RV32_FREERTOS_CHAIN = (['crash_capture', 'freertos_risc_v_application_exception_handler',
                        'freertos_risc_v_trap_handler'] + RV32_CHAIN)
RV32_ESPIDF_CHAIN = ['crash_capture', 'xt_unhandled_exception', '_panic_handler'] + RV32_CHAIN
# Behind a trap entry of no known layout whose CFI, in .debug_frame only
# (-g -fno-asynchronous-unwind-tables), has a CIE with augmentation "S"
# and return address column 64, the saved mepc.
RV32_CFI_CHAIN = ['crash_capture', 'trap_handler', 'trap_vector'] + RV32_CHAIN

# Boards also walked stripped -> how many frames the stripped walk must
# prove: the HardFault handler (the capture, at its first instruction),
# each handler the exceptions interrupted, and the thread function.
STRIPPED = {
    'mps2-an385': 2,       # HardFault_Handler, faulty_driver
    'mps2-an385-leaf': 3,  # HardFault_Handler, PendSV_Handler (a leaf), trigger_interrupt
}

# board -> (source folder, compiler, qemu command, chain)
BOARDS = {
    'mps2-an385': ('cortex-m', 'arm-none-eabi-gcc',
                   ['qemu-system-arm', '-M', 'mps2-an385'], CORTEX_M_CHAIN),
    # PendSV_Handler a leaf that executes the udf itself (fw.c LEAF_HANDLER).
    'mps2-an385-leaf': ('cortex-m', 'arm-none-eabi-gcc',
                        ['qemu-system-arm', '-M', 'mps2-an385'], CORTEX_M_LEAF_CHAIN),
    'mps2-an386': ('cortex-m', 'arm-none-eabi-gcc',
                   ['qemu-system-arm', '-M', 'mps2-an386'], CORTEX_M_CHAIN),
    'microbit': ('cortex-m', 'arm-none-eabi-gcc',
                 ['qemu-system-arm', '-M', 'microbit'], CORTEX_M_CHAIN),
    # Cortex-M33 (ARMv8-M, Security Extension) in Secure state: frames on
    # the Secure stacks, PendSV's extended with s16-s31 (FPCCR.TS).
    'mps2-an505': ('cortex-m', 'arm-none-eabi-gcc',
                   ['qemu-system-arm', '-M', 'mps2-an505'], CORTEX_M_CHAIN),
    # The same with a Non-secure interrupt handler over the Secure thread:
    # its frame on PSP_S under the additional state context (r4-r11 and the
    # integrity signature), the HardFault's on MSP_NS.
    'mps2-an505-ns': ('cortex-m', 'arm-none-eabi-gcc',
                      ['qemu-system-arm', '-M', 'mps2-an505'], CORTEX_M_NS_CHAIN),
    'riscv32-virt': ('riscv32', 'riscv64-linux-gnu-gcc',
                     ['qemu-system-riscv32', '-machine', 'virt', '-bios', 'none'], RV32_CHAIN),
    'riscv32-freertos': ('riscv32', 'riscv64-linux-gnu-gcc',
                         ['qemu-system-riscv32', '-machine', 'virt', '-bios', 'none'],
                         RV32_FREERTOS_CHAIN),
    'riscv32-espidf': ('riscv32', 'riscv64-linux-gnu-gcc',
                       ['qemu-system-riscv32', '-machine', 'virt', '-bios', 'none'],
                       RV32_ESPIDF_CHAIN),
    'riscv32-cfi': ('riscv32', 'riscv64-linux-gnu-gcc',
                    ['qemu-system-riscv32', '-machine', 'virt', '-bios', 'none'], RV32_CFI_CHAIN),
}


def capture(board, work, built):
    """Runs the board's firmware under qemu; the path of its crash.snap."""
    folder, _, qemu, _ = BOARDS[board]
    run_dir = os.path.join(work, board)
    os.makedirs(run_dir, exist_ok=True)
    snap = os.path.join(run_dir, 'crash.snap')
    if os.path.exists(snap):
        os.remove(snap)
    elf = os.path.join(built[folder], board + '.elf')
    subprocess.run(qemu + ['-nographic', '-monitor', 'none', '-serial', 'none',
                           '-semihosting-config', 'enable=on,target=native', '-kernel', elf],
                   cwd=run_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, timeout=60, check=True)
    if not os.path.exists(snap) or os.path.getsize(snap) == 0:
        raise RuntimeError('the firmware wrote no crash.snap')
    return elf, snap


def walk(stackwalk, snap, elf):
    return walk_json(stackwalk, [snap, elf])


def check(doc, chain):
    """The problems of the walk against the chain: [] when right."""
    thread = doc.get('crashing_thread') or {}
    frames = thread.get('frames') or []
    names = [f.get('function') for f in frames]
    problems = []
    for i, want in enumerate(chain):
        got = names[i] if i < len(names) else None
        if got != want:
            problems.append('frame %d: %s, expected %s' % (i, got, want))
    if len(names) > len(chain):
        problems.append('frames after %s: %s (invented)' % (chain[-1], names[len(chain):]))
    if frames and frames[0].get('trust') != 'context':
        problems.append('frame 0 trust %s, expected context' % frames[0].get('trust'))
    for i, f in enumerate(frames[1:len(chain)], 1):
        if f.get('trust') in ('scan', 'cfi_scan', None):
            problems.append('frame %d (%s) found by %s, not proved' %
                            (i, f.get('function'), f.get('trust')))
    return problems


def frame_keys(doc):
    frames = (doc.get('crashing_thread') or {}).get('frames') or []
    return [(f.get('offset'), f.get('trust')) for f in frames]


def check_stripped(full, stripped, proven):
    """The problems of the stripped walk against the full one: [] when
    right, and a note of how many frames the scan after the proven ones
    skipped."""
    want, got = frame_keys(full), frame_keys(stripped)
    problems = []
    for i in range(proven):
        g = got[i] if i < len(got) else None
        if g != want[i]:
            problems.append('stripped frame %d: %s, expected %s' % (i, g, want[i]))
    # The rest: frames of the full walk, in order. A scanned frame
    # prints its call site, the return address - 2 (Thumb); the full walk
    # prints a handler whose caller is an exception frame at its return
    # address itself (as a sigreturn trampoline: lib/walker.c).
    def same(full_offset, offset):
        return full_offset is not None and offset is not None and (
            int(full_offset, 16) in (int(offset, 16), int(offset, 16) + 2))

    rest, k = want[proven:], 0
    for i, (offset, trust) in enumerate(got[proven:], proven):
        # Without symbols nothing but the code proves these frames: the
        # scan, or the code itself read back (Thumb prologue analysis, an r7
        # record the code sets up). Never CFI, which the ELF carried.
        if trust not in ('scan', 'cfi_scan', 'prologue', 'frame_pointer'):
            problems.append('stripped frame %d found by %s, not from the code' % (i, trust))
        while k < len(rest) and not same(rest[k][0], offset):
            k += 1
        if k == len(rest):
            problems.append('stripped frame %d (%s) is no frame of the full walk, or out of '
                            'order (invented)' % (i, offset))
            break
        k += 1
    return problems, len(want) - len(got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--work')
    ap.add_argument('--update', action='store_true',
                    help='copy each board built here to testdata/firmware/fixtures')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix='firmware-')
    os.makedirs(work, exist_ok=True)

    built = {}
    for folder in sorted({b[0] for b in BOARDS.values()}):
        cc = next(b[1] for b in BOARDS.values() if b[0] == folder)
        if not shutil.which(cc):
            continue
        out = os.path.join(work, 'build-' + folder)
        p = subprocess.run([os.path.join(FIRMWARE, folder, 'build.sh'), out],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print('FAIL build %s: %s' % (folder, p.stderr.strip()[-2000:]))
            print('firmware: 0 passed, 1 failed')
            return 1
        built[folder] = out

    passed = failed = 0
    for board, (folder, _, qemu, chain) in BOARDS.items():
        how = 'built and run here'
        try:
            if folder in built and shutil.which(qemu[0]):
                elf, snap = capture(board, work, built)
                if args.update:
                    os.makedirs(FIXTURES, exist_ok=True)
                    shutil.copy(elf, os.path.join(FIXTURES, board + '.elf'))
                    shutil.copy(snap, os.path.join(FIXTURES, board + '.snap'))
                    if board in STRIPPED:
                        shutil.copy(elf[:-len('.elf')] + '-stripped.elf',
                                    os.path.join(FIXTURES, board + '-stripped.elf'))
            else:
                elf = os.path.join(FIXTURES, board + '.elf')
                snap = os.path.join(FIXTURES, board + '.snap')
                how = 'committed fixture (no %s here)' % (
                    qemu[0] if folder in built else BOARDS[board][1])
            doc = walk(args.stackwalk, snap, elf)
            problems = check(doc, chain)
            note = ''
            if board in STRIPPED:
                sdoc = walk(args.stackwalk, snap, elf[:-len('.elf')] + '-stripped.elf')
                more, skipped = check_stripped(doc, sdoc, STRIPPED[board])
                problems += more
                note = '; stripped: %d proven, %d frames the scan did not find' % (
                    STRIPPED[board], skipped)
        except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
            problems = [str(e)]
        if problems:
            failed += 1
            print('FAIL %s (%s): %s' % (board, how, '; '.join(problems)))
        else:
            passed += 1
            print('ok   %s (%s): %d frames%s' % (board, how, len(chain), note))
    return summary('firmware', passed, failed)


if __name__ == '__main__':
    sys.exit(main())
