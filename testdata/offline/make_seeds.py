#!/usr/bin/env python3
"""Writes the fuzz_offline seeds (tests/fuzz_offline.c's container: three
little-endian u16 lengths, regs.txt, maps.txt, stack.data, then lib.so).

    make_seeds.py OUT_DIR [CORPUS]

x86.seed takes its registers and first stack bytes from the corpus's
libunwindstack/debug_frame_first_x86 case and its 52-byte libc.so stub (an
ELF header only); arm64_apk.seed holds a small AArch64 ELF made here (a
PT_LOAD, a DT_SONAME and a GNU build-id) stored at offset 0x100 of lib.so
as in an APK; riscv64_damaged.seed has vlenb and damaged lines."""
import gzip
import os
import struct
import sys


def container(regs, maps, stack, lib):
    return struct.pack("<HHH", len(regs), len(maps), len(stack)) + regs + maps + stack + lib


def memory(addr, data):
    return struct.pack("<Q", addr) + data


def small_elf():
    """ELF64 little-endian AArch64 shared object: one PT_LOAD, PT_DYNAMIC
    with DT_SONAME, PT_NOTE with NT_GNU_BUILD_ID, and section headers."""
    ph_off, ph_n = 64, 3
    note_off = ph_off + 56 * ph_n
    build_id = bytes(range(1, 21))
    note = struct.pack("<III", 4, len(build_id), 3) + b"GNU\0" + build_id
    dynstr_off = note_off + len(note)
    dynstr = b"\0libseed.so\0"
    dyn_off = (dynstr_off + len(dynstr) + 7) & ~7
    dyn = struct.pack("<qQqQqQqQ", 5, dynstr_off, 10, len(dynstr), 14, 1, 0, 0)
    shstr_off = dyn_off + len(dyn)
    shstr = b"\0.note.gnu.build-id\0.dynstr\0.dynamic\0.shstrtab\0"
    sh_off = (shstr_off + len(shstr) + 7) & ~7
    end = sh_off + 64 * 5
    hdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    hdr += struct.pack("<HHIQQQIHHHHHH", 3, 183, 1, 0, ph_off, sh_off, 0, 64, 56, ph_n, 64, 5, 4)
    phdrs = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, end, end, 0x1000)
    phdrs += struct.pack("<IIQQQQQQ", 2, 6, dyn_off, dyn_off, dyn_off, len(dyn), len(dyn), 8)
    phdrs += struct.pack("<IIQQQQQQ", 4, 4, note_off, note_off, note_off, len(note), len(note), 4)

    def sh(name, typ, flags, off, size, link=0, align=1, entsize=0):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, off, off, size, link, 0, align, entsize)

    shdrs = bytes(64)
    shdrs += sh(1, 7, 2, note_off, len(note), align=4)
    shdrs += sh(20, 3, 2, dynstr_off, len(dynstr))
    shdrs += sh(28, 6, 3, dyn_off, len(dyn), link=2, align=8, entsize=16)
    shdrs += sh(37, 3, 0, shstr_off, len(shstr))
    out = bytearray(end)
    for off, part in ((0, hdr), (ph_off, phdrs), (note_off, note), (dynstr_off, dynstr),
                      (dyn_off, dyn), (shstr_off, shstr), (sh_off, shdrs)):
        out[off:off + len(part)] = part
    return bytes(out)


def main():
    out = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "shared", "corpus")
    case = os.path.join(corpus, "libunwindstack", "debug_frame_first_x86")
    regs = open(os.path.join(case, "regs.txt"), "rb").read()
    stack = open(os.path.join(case, "stack.data"), "rb").read()[:8 + 64]
    stub = gzip.open(os.path.join(case, "libc.so.gz")).read()
    maps = (b"56598000-56599000 r-xp 0 00:00 0   lib.so\n"
            b"f7432000-f75e3000 r-xp 0 00:00 0   /does/not/exist/libc.so\n"
            b"ffcf9000-ffcfa000 rw-p 0 00:00 0   [stack]\n")
    seeds = {"x86.seed": container(regs, maps, stack, stub)}

    elf = small_elf()
    regs = (b"x0: 0\nx29: 7fdd1419a0\nlr: 7000000120\nsp: 7fdd141990\n"
            b"pc: 7000001010\npst: 80001000\n")
    maps = (b"7000000000-7000001000 r--p 100 00:00 0   lib.so\n"
            b"7000001000-7000002000 r-xp 1100 00:00 0   lib.so\n"
            b"7000002000-7000003000 ---p 0 00:00 0\n"
            b"7000003000-7000004000 rw-p 2100 00:00 0   lib.so\n"
            b"7fdd141000-7fdd142000 rw-p 0 00:00 0   [stack]\n")
    stack = memory(0x7fdd141990, bytes(range(64)))
    seeds["arm64_apk.seed"] = container(regs, maps, stack, bytes(0x100) + elf)

    regs = (b"pc: 555c440735dc\nra: 555c4408be00\nsp: 7fffe388a680\ns0: 7fffe388a6a0\n"
            b"a0: 0\nvlenb: 10\nt9: 1\nbogus line\nsp: zz\n")
    maps = (b"555c43ae2000-555c43bf3000 r--p 0 00:00 0   app\n"
            b"555c43bf3000-555c440d3000 r-xp 110000 00:00 0   app\n"
            b"5-4 r-xp 0 00:00 0 backwards\n"
            b"7fffe388a000-7fffe388b000 rw-p 0 00:00 0   [stack]\n")
    stack = memory(0x7fffe388a680, bytes(32))
    seeds["riscv64_damaged.seed"] = container(regs, maps, stack, b"\x7fELF")

    os.makedirs(out, exist_ok=True)
    for name, data in seeds.items():
        open(os.path.join(out, name), "wb").write(data)


if __name__ == "__main__":
    main()
