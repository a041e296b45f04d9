#!/usr/bin/env python3
"""Writes fuzz_dwarf_info seeds: the DWARF sections of real ELF files in the
layout tests/fuzz_dwarf_info.c reads (ten 16-bit sizes, then the sections),
each section cut to 4 KiB so that a seed stays small.

Usage: make_seeds.py OUT_DIR ELF_FILE...
"""
import struct
import subprocess
import sys
import os

NAMES = ['.debug_info', '.debug_abbrev', '.debug_str', '.debug_line_str',
         '.debug_str_offsets', '.debug_addr', '.debug_ranges', '.debug_rnglists',
         '.debug_line', '.debug_aranges']
CUT = 4096


def section(path, name):
    out = subprocess.run(['objcopy', '--dump-section', name + '=/dev/stdout', path, '/dev/null'],
                         capture_output=True)
    return out.stdout[:CUT] if out.returncode == 0 else b''


def main():
    out_dir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for path in files:
        parts = [section(path, n) for n in NAMES]
        if not parts[0]:
            continue
        blob = struct.pack('<10H', *[len(p) for p in parts]) + b''.join(parts)
        name = '_'.join(path.split('/')[-2:]).replace('.', '_').replace('-', '_') + '.bin'
        with open(os.path.join(out_dir, name), 'wb') as f:
            f.write(blob)
        print(name, len(blob))


main()
