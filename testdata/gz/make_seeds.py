#!/usr/bin/env python3
"""Writes fuzz_gz seeds (tests/fuzz_gz.c): a limit byte, then gzip data
made from a small real .sym file: one member; a member with FEXTRA, FNAME,
FCOMMENT and FHCRC; two members (gzip -c a b); a member then bytes that
start no member; a stored (level 0) member; an empty member; a member cut
short; a member whose ISIZE lies. The limit bytes differ, so the limits
the harness picks (0 to 1 MiB) are all seeded.

Usage: make_seeds.py OUT_DIR SYM_FILE
"""
import gzip
import os
import struct
import sys
import zlib


def member(body, level=6, flags=0, extra=b'', name=b'', comment=b''):
    head = b'\x1f\x8b\x08' + bytes([flags]) + struct.pack('<I', 0) + b'\x00\x03'
    if flags & 4:
        head += struct.pack('<H', len(extra)) + extra
    if flags & 8:
        head += name + b'\0'
    if flags & 16:
        head += comment + b'\0'
    if flags & 2:
        head += struct.pack('<H', zlib.crc32(head) & 0xffff)
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    raw = c.compress(body) + c.flush()
    return head + raw + struct.pack('<II', zlib.crc32(body), len(body) & 0xffffffff)


def main():
    out_dir, sym = sys.argv[1], sys.argv[2]
    text = open(sym, 'rb').read()
    one = member(text)
    seeds = {
        'one_member': (7, one),
        'header_fields': (3, member(text, flags=2 | 4 | 8 | 16, extra=b'AB\x02\x00hi',
                                    name=b'crash.sym', comment=b'seed')),
        'two_members': (7, member(text[:300]) + member(text[300:])),
        'trailing_bytes': (5, one + b'\x1f\x8bnot a member'),
        'stored': (4, member(text[:1000], level=0)),
        'empty': (1, member(b'')),
        'cut_short': (7, one[:len(one) * 2 // 3]),
        'isize_lies': (6, one[:-4] + struct.pack('<I', 0xfffffff0)),
        'at_the_limit': (2, member(b'x' * 255)),
    }
    assert gzip.decompress(one) == text
    os.makedirs(out_dir, exist_ok=True)
    for name, (limit, body) in seeds.items():
        with open(os.path.join(out_dir, name + '.gz.bin'), 'wb') as f:
            f.write(bytes([limit]) + body)
        print(name, 1 + len(body))


main()
