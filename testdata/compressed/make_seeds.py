#!/usr/bin/env python3
"""Writes fuzz_decompress seeds (tests/fuzz_decompress.c): a byte choosing
the format, the limit and whether the file is opened as a snapshot, then
testdata/example/test.dmp (11 KB, a real minidump) compressed by each
tool: whole; as two members/frames; cut short; with bytes changed in the
middle; and the dump itself for the identity format. gzip and xz come
from Python's own modules, zstd and lz4 from their command-line tools
(skipped, with a line, when missing).

Usage: make_seeds.py OUT_DIR DUMP
"""
import gzip
import lzma
import os
import shutil
import subprocess
import sys

FORMATS = {'none': 0, 'gzip': 1, 'xz': 2, 'zstd': 3, 'lz4': 4}


def compressor(fmt):
    if fmt == 'gzip':
        return lambda b: gzip.compress(b, mtime=0)
    if fmt == 'xz':
        return lambda b: lzma.compress(b)
    tool = {'zstd': ['zstd', '-q', '-c'], 'lz4': ['lz4', '-q', '-c']}[fmt]
    if not shutil.which(tool[0]):
        return None
    return lambda b: subprocess.run(tool, input=b, capture_output=True, check=True).stdout


def main():
    out, dump = sys.argv[1], sys.argv[2]
    data = open(dump, 'rb').read()
    os.makedirs(out, exist_ok=True)
    # Limit bits 3-4: 3 is 1 MiB (the whole dump fits); open bit 5.
    whole = 3 << 3 | 1 << 5
    open(os.path.join(out, 'none.bin'), 'wb').write(bytes([FORMATS['none'] | whole]) + data)
    for fmt in ('gzip', 'xz', 'zstd', 'lz4'):
        z = compressor(fmt)
        if not z:
            print('skip %s: no %s tool' % (fmt, fmt))
            continue
        one = z(data)
        two = z(data[:5000]) + z(data[5000:])
        bad = bytearray(one)
        for i in range(len(bad) // 2, len(bad) // 2 + 4):
            bad[i] ^= 0x5a
        seeds = {'one': (whole, one), 'two': (whole, two),
                 'cut': (whole, one[:len(one) // 2]), 'bad': (whole, bytes(bad)),
                 'limit4k': (1 << 3, one)}
        for name, (flags, body) in seeds.items():
            path = os.path.join(out, '%s_%s.bin' % (fmt, name))
            open(path, 'wb').write(bytes([FORMATS[fmt] | flags]) + body)


if __name__ == '__main__':
    main()
