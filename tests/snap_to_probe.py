#!/usr/bin/env python3
"""Saves a .snap as the folder a debug probe leaves (docs/offline-format.md,
"Debug-probe captures"): what a firmware developer would have got by halting
the same crash under OpenOCD, pyOCD or J-Link.

    regs.txt            the crashing thread's registers, "name: hex", with
                        the names a probe prints (r0-r12, sp, lr, pc, xpsr,
                        msp, psp, control, cfsr... on Cortex-M; ABI names,
                        pc and the m* CSRs on RISC-V)
    mem-<hex>.bin       each MEMORY record's bytes, named by its base

The .snap is read per docs/snap-format.md; only what a probe sees is kept
(no MODULE, CRASH or ANNOTATION record: a probe has none of them).
MEMORY_ZLIB records are inflated. Overlapping records keep the lower base,
as a .snap reader does, so the folder's files never overlap.

Usage: snap_to_probe.py SNAP FOLDER
"""
import os
import struct
import sys
import zlib

MAGIC = b'\x89SNAP\r\n\x1a'
THREAD, MEMORY, MEMORY_ZLIB, CRASH, END = 2, 3, 4, 6, 8
REGSET_RISCV, REGSET_CORTEX_M = 7, 8

# Register names by set and number (docs/snap-format.md, "Register sets").
RISCV_NAMES = ['zero', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2', 's0', 's1',
               'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 's2', 's3', 's4',
               's5', 's6', 's7', 's8', 's9', 's10', 's11', 't3', 't4', 't5', 't6',
               'pc', 'mcause', 'mepc', 'mtval', 'mstatus', 'vlenb']
CORTEX_M_NAMES = (['r%d' % i for i in range(13)] +
                  ['sp', 'lr', 'pc', 'xpsr', 'msp', 'psp', 'control', 'exc_return',
                   'primask', 'basepri', 'faultmask', 'cfsr', 'hfsr', 'dfsr', 'mmfar',
                   'bfar', 'afsr', 'sfsr', 'sfar', 'msp_ns', 'psp_ns', 'msp_s', 'psp_s',
                   'fpccr', 'control_ns', 'control_s'])
NAMES = {REGSET_RISCV: RISCV_NAMES, REGSET_CORTEX_M: CORTEX_M_NAMES}


def records(data):
    """(type, payload) of each record after the header."""
    if data[:8] != MAGIC:
        raise ValueError('not a .snap file')
    pos = struct.unpack_from('<H', data, 10)[0]
    while pos + 8 <= len(data):
        rtype, _, length = struct.unpack_from('<HHI', data, pos)
        payload = data[pos + 8:pos + 8 + length]
        yield rtype, payload
        if rtype == END:
            return
        pos += 8 + length + 4


def read_snap(path):
    with open(path, 'rb') as f:
        data = f.read()
    word = data[14]
    threads, memory, crashed = {}, [], None
    for rtype, p in records(data):
        if rtype == THREAD:
            tid, regset, _, mask = struct.unpack_from('<IHHQ', p, 0)
            name_len = struct.unpack_from('<H', p, 32)[0]
            at = 34 + name_len
            regs = []
            for i in range(64):
                if mask >> i & 1:
                    regs.append((i, int.from_bytes(p[at:at + word], 'little')))
                    at += word
            threads[tid] = (regset, regs)
        elif rtype == MEMORY:
            memory.append((struct.unpack_from('<Q', p, 0)[0], p[8:]))
        elif rtype == MEMORY_ZLIB:
            memory.append((struct.unpack_from('<Q', p, 0)[0], zlib.decompress(p[16:])))
        elif rtype == CRASH:
            crashed = struct.unpack_from('<I', p, 0)[0]
    if crashed not in threads:
        crashed = next(iter(threads))
    return word, threads[crashed], memory


def without_overlaps(memory):
    """The regions a .snap reader keeps: the lower base wins an overlap."""
    kept, end = [], 0
    for base, data in sorted(memory, key=lambda m: m[0]):
        if base < end:
            data = data[end - base:]
            base = end
        if data:
            kept.append((base, data))
            end = base + len(data)
    return kept


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    word, (regset, regs), memory = read_snap(sys.argv[1])
    names = NAMES.get(regset)
    if not names:
        sys.exit('%s: register set %d: not a firmware capture' % (sys.argv[1], regset))
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'regs.txt'), 'w') as f:
        for i, v in regs:
            f.write('%s: 0x%0*x\n' % (names[i], word * 2, v))
    for base, data in without_overlaps(memory):
        with open(os.path.join(out, 'mem-%08x.bin' % base), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
