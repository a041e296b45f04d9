#!/usr/bin/env python3
"""Writes the fuzz_offline seeds of the debug-probe layout (tests/fuzz_offline.c:
"PR", a u8 count of memory files, a u16 length and regs.txt; per memory file
a u8 name form, a u32 address, a u16 length and the bytes; the rest is
firmware.elf) from the firmware fixtures, as tests/snap_to_probe.py turns
a .snap into a probe folder:

    make_probe_seeds.py OUT_DIR

probe_riscv32_freertos.seed, probe_riscv32_espidf.seed and
probe_cortex_m.seed carry their firmware ELF (the walk then crosses the
FreeRTOS and ESP-IDF trap frames and the Cortex-M exception frames with the
ELF's CFI); probe_riscv32_noelf.seed and
probe_cortex_m_noelf.seed have none, probe_cortex_m_noelf.seed names one
memory file mem-0xHEX.bin and one badly."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'firmware', 'fixtures')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tests'))
import snap_to_probe  # noqa: E402


def seed(board, with_elf, forms=None):
    word, (regset, regs), memory = snap_to_probe.read_snap(os.path.join(FIXTURES, board + '.snap'))
    names = snap_to_probe.NAMES[regset]
    text = ''.join('%s: 0x%0*x\n' % (names[i], word * 2, v) for i, v in regs).encode()
    mem = snap_to_probe.without_overlaps(memory)
    out = b'PR' + struct.pack('<BH', len(mem), len(text)) + text
    for k, (base, data) in enumerate(mem):
        form = forms[k] if forms and k < len(forms) else 0
        out += struct.pack('<BIH', form, base, len(data)) + data
    if with_elf:
        with open(os.path.join(FIXTURES, board + '.elf'), 'rb') as f:
            out += f.read()
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    seeds = {
        'probe_riscv32_freertos.seed': seed('riscv32-freertos', True),
        'probe_riscv32_espidf.seed': seed('riscv32-espidf', True),
        'probe_riscv32_noelf.seed': seed('riscv32-virt', False),
        'probe_cortex_m.seed': seed('mps2-an385', True),
        'probe_cortex_m_noelf.seed': seed('microbit', False, forms=[1, 2]),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
