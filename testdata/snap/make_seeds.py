#!/usr/bin/env python3
"""Writes the .snap fixtures of testdata/snap/ from docs/snap-format.md alone
(a second implementation of the format, beside formats/snap_writer.c):

  cortex_m.snap     a Cortex-M4 HardFault: main -> func_a -> func_b -> func_c,
                    the code bytes (Thumb BL calls) and the stack captured;
                    cortex_m.sym is its Breakpad symbol file
  riscv32.snap      an RV32 firmware trap (mcause 2) with an s0 frame chain
  amd64_zlib.snap   a Linux amd64 thread whose stack is a MEMORY_ZLIB record,
                    with a later revision's record type and a project's own
  cut.snap          cortex_m.snap cut inside its stack's MEMORY record
  flipped.snap      cortex_m.snap with one bit flipped in its CRASH record

They are the libFuzzer seeds of tests/fuzz_snap.c and the inputs of
tests/cli.py's .snap checks. Usage: make_seeds.py [OUT_DIR]"""
import os
import struct
import sys
import zlib

MAGIC = b"\x89SNAP\r\n\x1a"
CPU_ARM, CPU_AMD64, CPU_RISCV32 = 3, 2, 9
SYSTEM, THREAD, MEMORY, MEMORY_ZLIB, MODULE, CRASH, ANNOTATION, END = range(1, 9)
REGSET_AMD64, REGSET_RISCV, REGSET_CORTEX_M = 2, 7, 8


def header(cpu, word_size, variant=0, big_endian=False, time=0):
    h = MAGIC + struct.pack("<HHHBBIQ", 1, 32, cpu, word_size, 1 if big_endian else 0, variant, time)
    return h + struct.pack("<I", zlib.crc32(h))


def s(text):
    b = text.encode()
    return struct.pack("<H", len(b)) + b


class Snap:
    def __init__(self, cpu, word_size, variant=0, time=0):
        self.word_size = word_size
        self.data = bytearray(header(cpu, word_size, variant, time=time))
        self.records = 0

    def record(self, rtype, payload):
        head = struct.pack("<HHI", rtype, 0, len(payload)) + payload
        self.data += head + struct.pack("<I", zlib.crc32(head))
        self.records += 1

    def system(self, os_id, name="", version="", model="", device="", firmware=""):
        self.record(SYSTEM, struct.pack("<H", os_id) + s(name) + s(version) + s(model) + s(device) + s(firmware))

    def thread(self, tid, regset, regs, name="", flags=0, stack=(0, 0)):
        mask = 0
        for i in regs:
            mask |= 1 << i
        fmt = "<I" if self.word_size == 4 else "<Q"
        values = b"".join(struct.pack(fmt, regs[i]) for i in sorted(regs))
        self.record(THREAD, struct.pack("<IHHQQQ", tid, regset, flags, mask, stack[0], stack[1]) + s(name) + values)

    def memory(self, base, data):
        self.record(MEMORY, struct.pack("<Q", base) + bytes(data))

    def memory_zlib(self, base, data):
        self.record(MEMORY_ZLIB, struct.pack("<QQ", base, len(data)) + zlib.compress(bytes(data), 9))

    def module(self, name, base, size, bias=0, build_id=b""):
        self.record(MODULE, struct.pack("<QQQH", base, size, bias, len(build_id)) + build_id + s(name))

    def crash(self, tid, kind, code, subcode=0, address=None, reason=""):
        flags = 0 if address is None else 1
        self.record(CRASH, struct.pack("<IHHIIQ", tid, kind, flags, code, subcode, address or 0) + s(reason))

    def annotation(self, key, value):
        self.record(ANNOTATION, s(key) + s(value))

    def end(self):
        self.record(END, struct.pack("<I", self.records))
        return bytes(self.data)


def thumb_bl(at, target):
    """The 32-bit Thumb BL at `at` that calls `target` (ARMv7-M ARM A7.7.18, T1)."""
    off = target - (at + 4)
    s_bit = 1 if off < 0 else 0
    off &= (1 << 25) - 1
    i1, i2 = (off >> 23) & 1, (off >> 22) & 1
    j1, j2 = (1 - i1) ^ s_bit, (1 - i2) ^ s_bit
    hw1 = 0xF000 | s_bit << 10 | (off >> 12) & 0x3FF
    hw2 = 0xD000 | j1 << 13 | j2 << 11 | (off >> 1) & 0x7FF
    return struct.pack("<HH", hw1, hw2)


# ---- Cortex-M ----------------------------------------------------------------

FW_BASE, FW_SIZE = 0x08000000, 0x1000
FW_BUILD_ID = bytes(range(0xA0, 0xB4))      # 20 bytes, as ld's sha1 style
FUNCS = [("main", 0x000), ("func_a", 0x040), ("func_b", 0x080), ("func_c", 0x0C0)]
STACK = 0x20001F00


def cortex_m():
    code = bytearray(b"\x00\xbf" * 0x80)    # Thumb nop
    # Each function calls the next 0x10 bytes in; func_c faults at +8.
    for (_, caller), (_, callee) in zip(FUNCS, FUNCS[1:]):
        code[caller + 0x10:caller + 0x14] = thumb_bl(FW_BASE + caller + 0x10, FW_BASE + callee)
    code[0xC8:0xCA] = b"\x00\xde"              # udf #0
    ra = {name: FW_BASE + off + 0x14 + 1 for name, off in FUNCS[:3]}   # Thumb: odd
    stack = bytearray(0x40)
    words = {0x00: 0x12345678, 0x04: ra["func_a"], 0x08: 0x20001F40,
             0x0C: FW_BASE + 0x31,             # into main, but after no call: stale
             0x10: ra["main"], 0x14: 0}
    for off, v in words.items():
        stack[off:off + 4] = struct.pack("<I", v)
    sn = Snap(CPU_ARM, 4, variant=ord("M") | 7 << 8 | 0x03 << 24, time=1700000000)
    sn.system(1, "FreeRTOS", "10.5.1", "Cortex-M4F", "demo board rev B", "1.2.3")
    sn.module("firmware.elf", FW_BASE, FW_SIZE, 0, FW_BUILD_ID)
    # A UsageFault escalated to HardFault: CFSR.UNDEFINSTR.
    sn.crash(1, 2, 3, 1 << 16, None)
    regs = {i: 0x1000 + i for i in range(13)}
    regs.update({13: STACK, 14: ra["func_b"], 15: FW_BASE + 0xC8, 16: 0x01000000,
                 17: 0x20002000, 18: STACK, 19: 2, 20: 0xFFFFFFFD, 24: 1 << 16, 25: 0x40000000})
    sn.thread(1, REGSET_CORTEX_M, regs, "main_task", flags=1, stack=(0x20001000, 0x20002000))
    sn.memory(STACK, stack)
    sn.memory(FW_BASE, code)
    sn.thread(2, REGSET_CORTEX_M, {13: 0x20000F00, 14: 0xFFFFFFFD, 15: FW_BASE + 0x84}, "IDLE")
    sn.annotation("boot_count", "17")
    return sn.end()


def cortex_m_sym():
    did = struct.unpack("<IHH", FW_BUILD_ID[:8])
    debug_id = "%08X%04X%04X%s0" % (did + ("".join("%02X" % b for b in FW_BUILD_ID[8:16]),))
    lines = ["MODULE Linux arm %s firmware.elf" % debug_id]
    lines += ["FUNC %x 40 0 %s" % (off, name) for name, off in FUNCS]
    return "\n".join(lines) + "\n"


# ---- RISC-V --------------------------------------------------------------------

def riscv32():
    base = 0x42000000
    code = bytearray(b"\x01\x00" * 0x80)    # c.nop
    # jal ra, +0 at the end of each caller's call site: ra = call + 4.
    jal = struct.pack("<I", 0x000000EF)
    for call in (0x10, 0x50):
        code[call:call + 4] = jal
    stack_base, fp1 = 0x3FC80000, 0x3FC80020
    stack = bytearray(0x40)
    # The s0 chain (-fno-omit-frame-pointer): s0 is the frame's CFA, its
    # return address at s0-4 and the caller's s0 at s0-8. Frame 0 (code at
    # 0x80) was called from 0x50, that one from main's 0x10.
    fp2 = 0x3FC80040
    stack[0x18:0x20] = struct.pack("<II", fp2, base + 0x54)
    stack[0x38:0x40] = struct.pack("<II", 0, base + 0x14)
    sn = Snap(CPU_RISCV32, 4, variant=(1 << 8) | (1 << 12) | 1 | (1 << 2))   # IMAC
    sn.system(1, "Zephyr", "3.6.0", "rv32imac_zicsr", "", "0.9")
    sn.module("app.elf", base, 0x1000, 0, bytes(range(20)))
    sn.crash(7, 2, 2, 0, 0x42000088)
    regs = {1: base + 0x54, 2: stack_base + 0x10, 8: fp1, 33: 2, 34: base + 0x88, 35: 0xFFFF, 36: 0x1880}
    sn.thread(7, REGSET_RISCV, regs, "worker", flags=1)
    sn.memory(stack_base, stack)
    sn.memory(base, code)
    return sn.end()


# ---- amd64 with compressed memory --------------------------------------------

def amd64_zlib():
    sn = Snap(CPU_AMD64, 8)
    sn.system(2, "", "6.1.0", "", "", "")
    sn.module("/usr/bin/app", 0x555555554000, 0x2000, 0x555555554000, bytes(range(1, 21)))
    regs = {6: 0x7FFFFFFFE010, 7: 0x7FFFFFFFE000, 16: 0x555555555123}
    sn.thread(100, REGSET_AMD64, regs, "app", flags=1)
    stack = bytearray(0x200)
    stack[0x10:0x20] = struct.pack("<QQ", 0x7FFFFFFFE040, 0x555555555200)
    sn.memory_zlib(0x7FFFFFFFE000, stack)
    sn.record(9, b"a later revision's record")
    sn.record(0x8001, b"a project's own record")
    sn.crash(100, 1, 11, 1, 0x10)
    return sn.end()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    cm = cortex_m()
    files = {
        "cortex_m.snap": cm,
        "cortex_m.sym": cortex_m_sym().encode(),
        "riscv32.snap": riscv32(),
        "amd64_zlib.snap": amd64_zlib(),
        # Cut 20 bytes into the stack's MEMORY record: its head and the
        # first bytes are there.
        "cut.snap": cm[:cm.index(struct.pack("<HHI", MEMORY, 0, 8 + 0x40)) + 8 + 8 + 12],
    }
    flipped = bytearray(cm)
    at = flipped.index(struct.pack("<HHI", CRASH, 0, 26)) + 8 + 8
    flipped[at] ^= 0x04
    files["flipped.snap"] = bytes(flipped)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print("%-16s %5d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
