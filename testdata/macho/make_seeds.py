#!/usr/bin/env python3
"""Writes fuzz_macho_dsym seeds: 64-bit Mach-O dSYM files (MH_DSYM) holding
an LC_UUID, a __TEXT segment command and a __DWARF segment whose __debug_*
sections are those of a tests/fuzz_dwarf_info seed (testdata/dwarf: real
DWARF, each section cut to 4 KiB) or of a real dSYM's DWARF file (cut the
same way). Layout: <mach-o/loader.h> mach_header_64, uuid_command,
segment_command_64 + section_64 records.

Usage: make_seeds.py OUT_DIR (testdata/dwarf/*.bin | DSYM_DWARF_FILE)...
"""
import hashlib
import os
import struct
import sys

MH_MAGIC_64, MH_DSYM, CPU_X86_64 = 0xfeedfacf, 10, 0x01000007
LC_SEGMENT_64, LC_UUID = 0x19, 0x1b
TEXT_VMADDR = 0x100000000
# The fuzz_dwarf_info layout's order, and the Mach-O names (16 bytes at most).
MACHO_NAMES = ['__debug_info', '__debug_abbrev', '__debug_str', '__debug_line_str',
               '__debug_str_offs', '__debug_addr', '__debug_ranges', '__debug_rnglists',
               '__debug_line', '__debug_aranges']
CUT = 4096


def from_fuzz_dwarf_info(blob):
    sizes = struct.unpack_from('<10H', blob, 0)
    at, parts = 20, []
    for n in sizes:
        parts.append(blob[at:at + n])
        at += n
    return dict(zip(MACHO_NAMES, parts))


def from_dsym(data):
    ncmds = struct.unpack_from('<I', data, 16)[0]
    off, out = 32, {}
    for _ in range(ncmds):
        cmd, size = struct.unpack_from('<II', data, off)
        if cmd == LC_SEGMENT_64 and data[off + 8:off + 16] == b'__DWARF\0':
            for k in range(struct.unpack_from('<I', data, off + 64)[0]):
                sec = off + 72 + 80 * k
                name = data[sec:sec + 16].rstrip(b'\0').decode()
                _, size_, foff = struct.unpack_from('<QQI', data, sec + 32)
                if name in MACHO_NAMES:
                    out[name] = data[foff:foff + min(size_, CUT)]
        off += size
    return out


def macho(sections, uuid):
    present = [(n, sections[n]) for n in MACHO_NAMES if sections.get(n)]
    text = struct.pack('<II16sQQQQiiII', LC_SEGMENT_64, 72, b'__TEXT', TEXT_VMADDR, 0x10000,
                       0, 0, 7, 5, 0, 0)
    dwarf_cmd_size = 72 + 80 * len(present)
    uuid_cmd = struct.pack('<II16s', LC_UUID, 24, uuid)
    sizeofcmds = len(uuid_cmd) + len(text) + dwarf_cmd_size
    data_off = 32 + sizeofcmds
    records, blobs, at = b'', b'', data_off
    for name, body in present:
        records += struct.pack('<16s16sQQIIIIIIII', name.encode(), b'__DWARF',
                               TEXT_VMADDR + 0x20000 + (at - data_off), len(body), at,
                               0, 0, 0, 0, 0, 0, 0)
        blobs += body
        at += len(body)
    dwarf = struct.pack('<II16sQQQQiiII', LC_SEGMENT_64, dwarf_cmd_size, b'__DWARF',
                        TEXT_VMADDR + 0x20000, len(blobs), data_off, len(blobs), 7, 3,
                        len(present), 0) + records
    header = struct.pack('<IiiIIIII', MH_MAGIC_64, CPU_X86_64, 3, MH_DSYM, 3, sizeofcmds, 0, 0)
    return header + uuid_cmd + text + dwarf + blobs


def main():
    out_dir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for path in files:
        data = open(path, 'rb').read()
        is_macho = struct.unpack_from('<I', data, 0)[0] == MH_MAGIC_64
        sections = from_dsym(data) if is_macho else from_fuzz_dwarf_info(data)
        name = os.path.basename(path).split('.')[0] + ('_dsym' if is_macho else '') + '.macho'
        blob = macho(sections, hashlib.md5(name.encode()).digest())
        with open(os.path.join(out_dir, name), 'wb') as f:
            f.write(blob)
        print(name, len(blob))


main()
