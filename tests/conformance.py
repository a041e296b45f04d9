#!/usr/bin/env python3
"""Conformance over the real corpus: every minidump and microdump of
../shared/corpus/manifest.tsv, on every CPU, is walked and compared, thread by thread and
frame by frame, with Google Breakpad's minidump_stackwalk reference: the frame
as a user reads it (module!function [file : line + off], module + off, or an
address) and how it was found (trust).

Every difference must be listed in KNOWN_DIFFERENCES with the reason ours is
more correct; an unlisted difference fails the test, and so does a listed one
that no longer happens (the list must stay true).

Also checked: the damaged dumps give a one-line error and a documented exit
code, and truncated copies of every dump never crash the walker. Crash
signatures (docs/signature.md): every input of the corpus that names a
crashing thread gets one, the same with --brief as with the full walk, and
a pinned sample across CPUs and input formats matches exactly
(PINNED_SIGNATURES).

Usage: conformance.py --stackwalk PATH --corpus DIR [--only SUBSTRING] [-v]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import struct
import tempfile

from corpus_skip import require_corpus
from swtest import run_stackwalk, summary

TRUST = {
    "given as instruction pointer in context": "context",
    "call frame info": "cfi",
    "call frame info with scanning": "cfi_scan",
    "previous frame's frame pointer": "frame_pointer",
    "stack scanning": "scan",
    "inline record": "inline",
    "prologue analysis": "prologue",
}

# (dump[+variant], thread, frame): why our frame differs from Breakpad's.
# thread and frame are Breakpad's numbering. A frame of ours that Breakpad
# does not have is listed under the index it would take; "*" as the frame
# covers every frame from the first difference on.
MACOS_THREAD_START = (
    "Breakpad's arm64 frame-pointer rule reads one frame record ahead (the caller's x30 from "
    "[caller x29 + 8]) and so stops one frame early, at the last record whose own saved x29 is "
    "not readable. The record at the previous frame's x29 holds {x29 = 0, x30 = this pc}: an "
    "intact record, the last of the chain (AAPCS64 6.4.6), whose owner is thread_start in "
    "libsystem_pthread; the walk ends after it")
MIPS64_CALL_SITE = (
    "same function and trust; the offset is 8 more than Breakpad's. Breakpad's 64-bit MIPS walker "
    "takes the caller's pc as $ra - 2 * sizeof(uint64_t) = $ra - 16 (stackwalker_mips.cc, CFI "
    "path); MIPS64 instructions are 4 bytes, so the jal/jalr is at $ra - 8 (the delay slot "
    "follows it), which is what we print")
MAIN_RECORD = (
    "frame 1 is main: its frame record holds rbp 0 (_start clears rbp, SysV AMD64 ABI 3.4.1: the "
    "deepest frame's rbp is 0) and the return address into __libc_start_main + 0xf5 "
    "(libc-2.19.so + 0x21ec5), which we take as frame 2 (trust frame_pointer). Breakpad refuses "
    "a record whose saved rbp is 0 and scans: its frames from 2 up to __libc_start_main are "
    "words left on the stack by earlier calls (ld.so's, libpthread's, driver's); past "
    "__libc_start_main (no libc file, no CFI) both walks scan the junk above _start, from "
    "different stack positions")
MAIN_RECORD_MODULES = (
    "the module Breakpad warns has no symbols (ld-2.19.so or libpthread-2.19.so) holds none of "
    "our frames: its frames in Breakpad's walk are the stale words above main (MAIN_RECORD)")
ZERO_RECORD = (
    "the last frame (thread_start, dyld's start) was found through its frame record, and the "
    "record its rbp points at is {saved rbp 0, return address 0}: the zeroed record a thread's "
    "entry pushes (SysV AMD64 ABI 3.4.1), the end of the chain (walk_end null_return). "
    "Breakpad refuses records whose saved rbp is 0 and scans on into the words above the entry")
LINUX_MINI_JUNK = (
    "frame 1 (__libc_start_main, CFI) is reached by main's caller rule; Breakpad's frames "
    "2 (WriteProcFile + 0x70) and 4 are a return address whose call, decoded from the dump's "
    "code, goes to a function of crash itself: such a call cannot lead into libc (no tail "
    "jump there), so the word is left over (lib/walker.c, call_may_enter_module); we go on "
    "to __libc_csu_init's and _start's words as Breakpad does")
KNOWN_DIFFERENCES = {
    ("macos-no-fp.dmp", 0, 2):
        "frame 0 (_platform_memset, a leaf without CFI) returns to trigger_crash through x30; "
        "trigger_crash's STACK CFI (CFA = sp + 16, .ra = [CFA - 8]) from there gives main, "
        "whose own CFI gives dyld's start. Breakpad also takes x30 but sets the caller's sp to "
        "x29 + 16, the thread's outermost record, so trigger_crash's CFI reads zeros",
    ("macos-no-fp.dmp", 0, 3): "see frame 2: main's STACK CFI gives dyld's start",
    ("macos-no-fp.dmp", "modules", 0):
        "dyld's symbols are looked up (and missing) because the walk reaches dyld's start",
    ("macos-no-fp.dmp", 1, 5): MACOS_THREAD_START,
    ("macos-no-fp.dmp", 2, 2): MACOS_THREAD_START,
    ("macos-no-fp.dmp+truncated-cfi", 1, 5): MACOS_THREAD_START,
    ("macos-no-fp.dmp+truncated-cfi", 2, 2): MACOS_THREAD_START,
    ("microdump-multiple.dmp", "exit", 1):
        "the log's second microdump (line 192) is cut after its S 0 line, where the log ends: "
        "stackwalk walks every microdump of a log and reports that one as damaged; Breakpad "
        "reads only the first",
    ("microdump-mips64.dmp", 0, 1): MIPS64_CALL_SITE,
    ("microdump-mips64.dmp", 0, 2): MIPS64_CALL_SITE,
    ("microdump-mips64.dmp", 0, 3): MIPS64_CALL_SITE,
    ("microdump-multiple.dmp", 0, "*"):
        "Breakpad's scanned frames 1 (pc 0xe501cdce) and 4 (pc 0xe501cd6a) are even addresses that "
        "are 2 mod 4: an ARM-mode BL/BLX leaves a multiple of 4, a Thumb call an odd address, so "
        "no call returns there. We refuse both and keep Breakpad's frames 2 and 3; the walk then "
        "ends where nothing else validates",
    ("microdump-x86.dmp", 0, "*"):
        "frames 0-4 are Breakpad's. Breakpad's frame 5 (0xf77c2c40) comes from an ebp record at "
        "0xffb44c0c whose saved ebp 0xf7333346 is neither 4-aligned nor on the thread's stack "
        "(0xffb4xxxx) and whose return address lies in no module of the log's M lines: a broken "
        "chain. A scan from a broken chain must prove its word by the code bytes before it, and a "
        "microdump holds none, so the walk ends after frame 4 (no_caller_found); Breakpad's "
        "frames 5-16 all rest on that frame",
    ("microdump-x86.dmp", "modules", 0):
        "libchrome.so holds no frame of ours (see frame 5), so its missing symbols are not "
        "reported",
    ("linux_divide_by_zero.dmp", 0, "*"): MAIN_RECORD,
    ("linux_executable_heap.dmp", 0, "*"): MAIN_RECORD,
    ("linux_executable_stack.dmp", 0, "*"): MAIN_RECORD,
    ("linux_inside_module_exe_region1.dmp", 0, "*"): MAIN_RECORD,
    ("linux_inside_module_exe_region2.dmp", 0, "*"): MAIN_RECORD,
    ("linux_jmp_to_0.dmp", 0, "*"): MAIN_RECORD,
    ("linux_jmp_to_module_not_exe_region.dmp", 0, "*"): MAIN_RECORD,
    ("linux_null_dereference.dmp", 0, "*"): MAIN_RECORD,
    ("linux_outside_module.dmp", 0, "*"): MAIN_RECORD,
    ("linux_raise_sigabrt.dmp", 0, "*"): MAIN_RECORD,
    ("linux_stack_pointer_in_module.dmp", 0, "*"): MAIN_RECORD,
    ("linux_stack_pointer_in_stack.dmp", 0, "*"): MAIN_RECORD,
    ("linux_stack_pointer_in_stack_alt_name.dmp", 0, "*"): MAIN_RECORD,
    ("linux_write_to_nonwritable_module.dmp", 0, "*"): MAIN_RECORD,
    ("linux_write_to_nonwritable_region_math.dmp", 0, "*"): MAIN_RECORD,
    ("linux_write_to_outside_module.dmp", 0, "*"): MAIN_RECORD,
    ("linux_write_to_outside_module_via_math.dmp", 0, "*"): MAIN_RECORD,
    ("linux_write_to_under_4k.dmp", 0, "*"): MAIN_RECORD,
    ("minidump_crashpad_annotation.dmp", 0, "*"): ZERO_RECORD,
    ("minidump_crashpad_annotation.dmp", 2, "*"): ZERO_RECORD,
    ("minidump_crashpad_annotation.dmp", 3, "*"): ZERO_RECORD,
    ("minidump_crashpad_annotation.dmp", 4, "*"): ZERO_RECORD,
    ("minidump_crashpad_annotation.dmp", 5, "*"): ZERO_RECORD,
    ("linux/mini.dmp", 0, "*"): LINUX_MINI_JUNK,
    ("py-tests/crash_linux.dmp", 0, "*"):
        "above __libc_start_main (CFI), Breakpad's scan takes 0x401f10 (printed \"_init + 0x4a8\", "
        "the lookup of the byte before it) and 0x4213a0: the first bytes of _start and "
        "__libc_csu_fini (the .sym's PUBLIC records; py-tests/crash_linux's symbol table agrees), "
        "function pointers passed to __libc_start_main, not return addresses (no direct call "
        "ends before either entry); we scan on to ld.so's words and _start + 0x29 as Breakpad "
        "then does",
    ("macos/mini.dmp", 0, 1):
        "the same frame (libdyld's start + 1); found by prologue analysis instead of a scan: frame "
        "0's function starts at the .sym's FUNC record, and its code from there to pc, captured in "
        "the dump, pushes and allocates 0x138 bytes, which puts the return address 0x140 bytes "
        "above rsp: the slot the scan also found",
    ("macos/mini.dmp+nosym", 0, 1):
        "the same frame, by prologue analysis as with the .sym: without symbols frame 0's start "
        "is the one its captured code shows (sw_x86_start_without_symbols), and the pushes and the "
        "0x138-byte allocation from there to pc give the slot the scan also found",
    ("linux_divide_by_zero.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_executable_heap.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_executable_stack.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_inside_module_exe_region1.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_inside_module_exe_region2.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_jmp_to_0.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_jmp_to_module_not_exe_region.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_null_dereference.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_outside_module.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_stack_pointer_in_module.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_stack_pointer_in_stack.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_stack_pointer_in_stack_alt_name.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_write_to_nonwritable_module.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_write_to_nonwritable_region_math.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_write_to_outside_module.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_write_to_outside_module_via_math.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_write_to_under_4k.dmp", "modules", 0): MAIN_RECORD_MODULES,
    ("linux_stacksmash.dmp", 0, "*"):
        "stack_smash's return address was overwritten with ASCII ('not stra'): Breakpad's CFI takes "
        "0x6172747320746f6e, a non-canonical address, as the caller. We treat that as a failed rule, "
        "scan from stack_smash's frame and find __libc_start_main + 0xfd, whose preceding bytes "
        "decode as a call (main's own frame was smashed, so main is missing, not invented); CFI "
        "then reaches _start",
}


def parse_text(text, with_pc=False):
    """Breakpad text layout -> {thread: [(desc, trust)]}, or with_pc:
    {thread: [(desc, trust, pc)]} (pc from the rip/eip register line)."""
    threads, cur, frame = {}, None, None
    for line in text.splitlines():
        m = re.match(r"^Thread (\d+)", line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            frame = None
            continue
        if line.startswith("Loaded modules") or line.startswith("Unloaded modules"):
            cur = None
            continue
        if cur is None:
            continue
        m = re.match(r"^\s?(\d+)\s+(\S.*)$", line)
        if m and not line.startswith("    "):
            frame = [m.group(2).strip(), None, None, None]
            cur.append(frame)
            continue
        m = re.match(r"^\s+Found by: (.*)$", line)
        if m and frame is not None:
            frame[1] = TRUST.get(m.group(1).strip(), m.group(1).strip())
            continue
        m = re.search(r"\b(?:rip|eip|pc) = (0x[0-9a-f]+)", line)
        if m and frame is not None:
            frame[2] = int(m.group(1), 16)
        m = re.search(r"\b(?:rsp|esp|sp) = (0x[0-9a-f]+)", line)
        if m and frame is not None:
            frame[3] = int(m.group(1), 16)
    n = 4 if with_pc else 2
    return {t: [tuple(f[:n]) for f in fs] for t, fs in threads.items()}


class MinidumpMemory:
    """The captured memory of a minidump (MemoryList and Memory64List), read
    independently of stackwalk's reader to check its claims."""

    def __init__(self, path):
        self.data = open(path, "rb").read()
        self.regions = []
        d = self.data
        try:
            _, _, count, rva = struct.unpack_from("<4sIII", d, 0)
            for i in range(count):
                kind, size, at = struct.unpack_from("<III", d, rva + 12 * i)
                if kind == 5:  # MemoryListStream
                    (n,) = struct.unpack_from("<I", d, at)
                    # Some writers pad the count to 8 bytes.
                    first = at + (8 if size == 8 + 16 * n else 4)
                    for k in range(n):
                        base, length, where = struct.unpack_from("<QII", d, first + 16 * k)
                        self.regions.append((base, length, where))
                elif kind == 9:  # Memory64ListStream
                    n, where = struct.unpack_from("<QQ", d, at)
                    for k in range(n):
                        base, length = struct.unpack_from("<QQ", d, at + 16 + 16 * k)
                        self.regions.append((base, length, where))
                        where += length
        except struct.error:
            pass

    def read(self, addr, n):
        for base, length, where in self.regions:
            if base <= addr and addr + n <= base + length and where + (addr - base) + n <= len(self.data):
                return self.data[where + addr - base:where + addr - base + n]
        return None


def x86_call_ends_at(code):
    """True if the bytes `code` (the 7 before an address) end with a near
    call: E8 rel32, or FF /2 with its ModRM/SIB/displacement (Intel SDM)."""
    if code[2] == 0xE8:
        return True
    for n in range(2, 8):
        insn = code[7 - n:]
        if insn[0] != 0xFF:
            continue
        modrm = insn[1]
        mod, reg, rm = modrm >> 6, (modrm >> 3) & 7, modrm & 7
        if reg != 2:
            continue
        length = 2
        if mod != 3:
            if rm == 4:
                length += 1
                if mod == 0 and n >= 3 and (insn[2] & 7) == 5:
                    length += 4
            if mod == 0 and rm == 5:
                length += 4
            elif mod == 1:
                length += 1
            elif mod == 2:
                length += 4
        if length == n:
            return True
    return False


def not_after_call(memory, pc):
    """The bytes before pc are in the dump and are not a call."""
    if pc is None or pc < 7:
        return False
    code = memory.read(pc - 7, 7)
    return code is not None and not x86_call_ends_at(code)


PART_HEADER = re.compile(r"^Microdump (\d+) of (\d+) \(line \d+\)$")


def first_part(text):
    """The report of a log's first microdump: stackwalk walks each in turn
    under a "Microdump K of N (line L)" line (docs/cli.md); Breakpad's
    processor reads only the first."""
    lines = text.splitlines()
    if not lines or not PART_HEADER.match(lines[0]):
        return text
    end = next((i for i in range(1, len(lines)) if PART_HEADER.match(lines[i])), len(lines))
    return "\n".join(lines[2:end]) + "\n"


def header(text):
    """The lines before the first thread: OS, CPU, crash reason/address.
    Our "Signature:" and "Crash instruction:" lines are not Breakpad's
    (docs/output.md): left out."""
    out = []
    for line in text.splitlines():
        if line.startswith("Thread "):
            break
        if not line.startswith(("Signature: ", "Crash instruction: ")):
            out.append(line.rstrip())
    return out


def module_list(text):
    """The "Loaded modules:" block, as printed."""
    lines = text.splitlines()
    if "Loaded modules:" not in lines:
        return []
    block = lines[lines.index("Loaded modules:") + 1:]
    return [l for l in block if l.strip()]


def read_manifest(corpus):
    rows = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            folder, dump, variant, kind, arch, os_, sympath, ref, code = line.rstrip("\n").split("\t")
            rows.append(dict(folder=folder, dump=dump, variant=variant, kind=kind, arch=arch,
                             os=os_, sympath=sympath, ref=ref, code=code))
    return rows


def run(stackwalk, args, timeout=120):
    return run_stackwalk(stackwalk, args, timeout)


class Result:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.lines = []

    def ok(self, name, detail=""):
        self.passed += 1
        self.lines.append("ok    %s%s" % (name, (" — " + detail) if detail else ""))

    def fail(self, name, detail):
        self.failed += 1
        self.lines.append("FAIL  %s\n      %s" % (name, detail.replace("\n", "\n      ")))


def drop_invented(ref, memory):
    """Frames of Breakpad's that are verifiably not frames, dropped from the
    reference before comparing (and counted):
    - scan frames: Breakpad accepts any word inside a module; we also demand
      that a call instruction end right before it. Where the dump holds the
      code bytes and they are not a call, the word is no return address.
    - a CFI frame whose pc is in no module and on the stack (within 1 MiB of
      its own stack pointer): Breakpad's .sym CFI cannot say "no return
      address", so the rule of the outermost frame (_start, clone) computes
      a stack address. We end the walk there; the frame and whatever
      Breakpad then found from it are dropped.
    - a scan frame whose pc is the frame's right below it again: a return
      address repeated above the frame it returned from is a stale copy
      (the call left it twice, or a callee spilled it); recursion would
      need the call's target to be the function's own start, which a
      module without symbols cannot show (lib/walker.c,
      own_earlier_call)."""
    dropped = []
    out = {}
    for t, frames in ref.items():
        kept = []
        last_pc = None
        for i, (desc, trust, pc, sp) in enumerate(frames):
            if memory is not None and trust == "scan" and not_after_call(memory, pc):
                dropped.append("thread %d frame %d %s: Breakpad's scan took it, but the bytes before "
                               "it (%s) are not a call" % (t, i, desc, memory.read(pc - 7, 7).hex(" ")))
                continue
            if trust == "scan" and pc is not None and pc == last_pc and "[" not in desc:
                dropped.append("thread %d frame %d %s: Breakpad's scan took the return address of the "
                               "frame below it again" % (t, i, desc))
                continue
            last_pc = pc
            if (trust == "cfi" and desc.startswith("0x") and pc is not None and sp is not None
                    and abs(pc - sp) < (1 << 20)):
                dropped.append("thread %d frames %d-%d: Breakpad's CFI gave pc %s, an address on the "
                               "stack past the outermost frame; the walk ends there"
                               % (t, i, len(frames) - 1, desc))
                break
            kept.append((desc, trust))
        out[t] = kept
    return out, dropped


def compare_walk(name, ours, ref, used):
    """Returns a list of unexplained differences."""
    problems = []
    for t in sorted(set(ref) | set(ours)):
        a, b = ours.get(t, []), ref.get(t, [])
        if t not in ours:
            problems.append("thread %d missing (Breakpad has %d frames)" % (t, len(b)))
            continue
        if t not in ref:
            problems.append("thread %d extra (%d frames)" % (t, len(a)))
            continue
        star = KNOWN_DIFFERENCES.get((name, t, "*"))
        for i in range(max(len(a), len(b))):
            fa = a[i] if i < len(a) else None
            fb = b[i] if i < len(b) else None
            if fa == fb:
                continue
            if star is not None:
                used.add((name, t, "*"))
                break
            key = (name, t, i)
            if key in KNOWN_DIFFERENCES:
                used.add(key)
                continue
            problems.append("thread %d frame %d: ours %s, Breakpad %s" % (t, i, fa, fb))
    return problems


def check_walks(args, rows, res, used):
    for r in rows:
        if r["kind"] not in ("minidump", "microdump") or r["code"] != "0":
            continue
        if r["kind"] == "microdump" and args.skip_microdumps:
            continue
        name = r["dump"] + ("" if r["variant"] == "-" else "+" + r["variant"])
        if args.only and args.only not in name:
            continue
        base = os.path.join(args.corpus, r["folder"])
        dump = os.path.join(base, r["dump"])
        syms = [] if r["sympath"] == "-" else [os.path.join(base, r["sympath"])]
        code, out, err = run(args.stackwalk, [dump] + syms)
        label = "%s/%s" % (r["folder"], name)
        out = first_part(out)
        if code != 0 and (name, "exit", code) in KNOWN_DIFFERENCES:
            used.add((name, "exit", code))
        elif code != 0:
            res.fail(label, "exit %d: %s" % (code, err.strip()))
            continue
        with open(os.path.join(base, r["ref"]), encoding="utf-8", errors="replace") as f:
            ref_text = f.read()
        problems = []
        ours_h, ref_h = header(out), header(ref_text)
        if ours_h != ref_h:
            key = (name, "header", 0)
            if key in KNOWN_DIFFERENCES:
                used.add(key)
            else:
                for x, y in zip(ours_h + [""] * len(ref_h), ref_h + [""] * len(ours_h)):
                    if x != y:
                        problems.append("header: ours %r, Breakpad %r" % (x, y))
                        break
        ours_m, ref_m = module_list(out), module_list(ref_text)
        if ours_m != ref_m and (name, "modules", 0) in KNOWN_DIFFERENCES:
            used.add((name, "modules", 0))
        elif ours_m != ref_m:
            for x, y in zip(ours_m + [""] * len(ref_m), ref_m + [""] * len(ours_m)):
                if x != y:
                    problems.append("modules: ours %r, Breakpad %r" % (x, y))
                    break
        problems += json_schema_problems(args, [dump] + syms, code)
        # The call check decodes x86 code only; other CPUs' scan frames are
        # compared as they are.
        memory = MinidumpMemory(dump) if r["arch"] in ("x86", "amd64") else None
        ref_frames, dropped = drop_invented(parse_text(ref_text, with_pc=True), memory)
        problems += compare_walk(name, parse_text(out), ref_frames, used)
        if problems:
            res.fail(label, "\n".join(problems[:12]) + ("\n..." if len(problems) > 12 else ""))
        else:
            nframes = sum(len(v) for v in parse_text(out).values())
            res.ok(label, "%d frames%s" % (nframes, "".join("\n        differs: " + d for d in dropped)))


def json_schema_problems(args, cmd, text_code=0):
    """--json of the same walk must follow docs/json.md (json_check.py), and
    exit as the text output did. A log with several microdumps gives one
    document per line, one per microdump."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import json_check
    code, out, err = run(args.stackwalk, ["--json"] + cmd)
    if code != text_code:
        return ["--json: exit %d: %s" % (code, err.strip())]
    try:
        docs = [json.loads(line) for line in out.splitlines() if line.strip()]
    except ValueError as e:
        return ["--json: not JSON: %s" % e]
    checker = json_check.Checker()
    for doc in docs:
        checker.check(doc)
    return ["--json schema: " + e for e in checker.errors[:5]]


# (dump, symbols or None, rust-minidump snapshot): the --json acceptance.
JSON_CASES = [
    ("test.dmp", "symbols", "json-pretty-symbols"),
    ("linux-mini.dmp", None, "linux_json_pretty"),
    ("pipeline-inlines-macos-segv.dmp", "symbols", "macos_inlines_json_pretty"),
]


def check_json(args, res):
    """--json --pretty against rust-minidump's own snapshots, field by field
    (tests/json_check.py). rust-minidump's scans accept what Breakpad's do,
    so its frames that the dump's code bytes show are not after a call, and
    its scanned frames that repeat the frame below them, are dropped from
    the expectation first, as for the text comparison."""
    here = os.path.dirname(os.path.abspath(__file__))
    base = os.path.join(args.corpus, "rust-minidump")
    for dump, syms, snap in JSON_CASES:
        if args.only and args.only not in dump:
            continue
        label = "rust-minidump/%s (--json vs %s)" % (dump, snap)
        cmd = ["--json", "--pretty", os.path.join(base, dump)] + ([os.path.join(base, syms)] if syms else [])
        code, out, err = run(args.stackwalk, cmd)
        if code != 0:
            res.fail(label, "exit %d: %s" % (code, err.strip()))
            continue
        text = open(os.path.join(base, "expected", "test_minidump_stackwalk__%s.snap" % snap),
                    encoding="utf-8").read()
        expected = json.loads(text.split("---", 2)[2])
        memory = MinidumpMemory(os.path.join(base, dump))
        dropped = 0
        for thread in expected.get("threads", []) + [expected.get("crashing_thread") or {}]:
            frames = thread.get("frames") or []
            kept = []
            for f in frames:
                if f.get("trust") == "scan" and not_after_call(memory, int(f["offset"], 16) + 1):
                    continue
                # A return address taken again right above its own frame
                # (drop_invented).
                if (f.get("trust") == "scan" and kept and kept[-1]["offset"] == f["offset"]
                        and f.get("function") is None):
                    continue
                kept.append(f)
            dropped += len(frames) - len(kept)
            for n, f in enumerate(kept):
                f["frame"] = n
            if "frames" in thread:
                thread["frames"] = kept
                thread["frame_count"] = len(kept)
        with tempfile.TemporaryDirectory() as tmp:
            ours, theirs = os.path.join(tmp, "ours.json"), os.path.join(tmp, "expected.json")
            open(ours, "w").write(out)
            json.dump(expected, open(theirs, "w"))
            p = subprocess.run([sys.executable, os.path.join(here, "json_check.py"), ours, theirs],
                               capture_output=True, text=True)
        if p.returncode != 0:
            res.fail(label, (p.stdout + p.stderr).strip())
        else:
            res.ok(label, "same threads, frames, modules, crash_info%s" %
                   ("; %d invented scan frames of rust-minidump's dropped" % dropped
                    if dropped else ""))


def check_damaged(args, rows, res):
    """Dumps Breakpad refuses: one line on stderr naming the file, exit 1."""
    for r in rows:
        if r["code"] == "0":
            continue
        dump = os.path.join(args.corpus, r["folder"], r["dump"])
        label = "%s/%s (damaged)" % (r["folder"], r["dump"])
        code, out, err = run(args.stackwalk, [dump, os.path.join(args.corpus, r["folder"], "symbols")])
        lines = [l for l in err.splitlines() if l.strip()]
        if code not in (1, 3):
            res.fail(label, "exit %d, expected 1 (damaged) or 3 (unreadable)" % code)
        elif len(lines) != 1 or r["dump"] not in lines[0]:
            res.fail(label, "stderr should be one line naming the file, got: %r" % err)
        else:
            res.ok(label, "exit %d: %s" % (code, lines[0]))


def check_truncated(args, rows, res):
    """Truncated copies of every dump: exit 0, 1 or 3, never a signal."""
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            if r["kind"] != "minidump":
                continue
            dump = os.path.join(args.corpus, r["folder"], r["dump"])
            if dump in seen or (args.only and args.only not in r["dump"]):
                continue
            seen.add(dump)
            data = open(dump, "rb").read()
            cuts = sorted(set([0, 4, 31, 32, 100, len(data) // 3, len(data) // 2,
                               len(data) * 9 // 10, max(len(data) - 1, 0)]))
            bad = []
            for cut in cuts:
                path = os.path.join(tmp, "cut.dmp")
                with open(path, "wb") as f:
                    f.write(data[:cut])
                code, out, err = run(args.stackwalk, [path])
                lines = [l for l in err.splitlines() if l.strip()]
                if code not in (0, 1, 3) or "Sanitizer" in err or "runtime error" in err:
                    bad.append("cut at %d: exit %d %s" % (cut, code, err.strip()[:300]))
                elif code != 0 and (not lines or "cut.dmp" not in lines[0]):
                    bad.append("cut at %d: exit %d without a message naming the file" % (cut, code))
            label = "%s/%s (truncated x%d)" % (r["folder"], r["dump"], len(cuts))
            if bad:
                res.fail(label, "\n".join(bad))
            else:
                res.ok(label)


# Crash signatures (docs/signature.md), pinned across CPUs and input
# formats: (label, argv relative to the corpus, signature). "@TMP/" names a
# file check_signatures decompresses from the corpus's .bz2 first.
PINNED_SIGNATURES = [
    ("x86 Windows minidump", ["rust-minidump/test.dmp", "rust-minidump/symbols"],
     "`anonymous namespace'::CrashFunction"),
    # Outside every module: the signature goes on to the caller (Socorro's
    # @0x0 prefix); the program has no symbols here.
    ("amd64 call through NULL", ["breakpad/linux_jmp_to_0.dmp", "breakpad/symbols"], "@0x0 | driver"),
    ("amd64 jump outside every module", ["breakpad/linux_outside_module.dmp", "breakpad/symbols"],
     "??? | driver"),
    ("amd64 Windows, a module without symbols lowercased",
     ["rust-minidump/invalid-parameter.dmp", "rust-minidump/symbols"], "crashtest.exe"),
    ("amd64, raise without libc symbols", ["breakpad/linux_raise_sigabrt.dmp", "breakpad/symbols"],
     "libpthread-2.19.so"),
    ("amd64 INLINE records", ["breakpad/linux_inline.dmp", "breakpad/symbols-variants/linux_inline-new"],
     "func"),
    ("amd64 macOS Rust, inline frames, core::ptr prefix",
     ["rust-minidump/pipeline-inlines-macos-segv.dmp", "rust-minidump/symbols"],
     "core::ptr::write_volatile::<T> | sadness_generator::raise_segfault"),
    ("arm64 macOS without frame pointers", ["symbolicator/macos-no-fp.dmp", "symbolicator/symbols"],
     "libsystem_platform.dylib"),
    ("arm microdump", ["breakpad/microdump-arm.dmp", "breakpad/symbols/microdump"],
     "MicrodumpWriterTest_Setup_Test::TestBody"),
    ("arm64 microdump", ["breakpad/microdump-arm64.dmp", "breakpad/symbols/microdump"],
     "MicrodumpWriterTest_Setup_Test::TestBody"),
    ("mips32 microdump", ["breakpad/microdump-mips32.dmp", "breakpad/symbols/microdump"], "blaTest"),
    ("mips64 microdump", ["breakpad/microdump-mips64.dmp", "breakpad/symbols/microdump"], "blaTest"),
    ("x86 microdump", ["breakpad/microdump-x86.dmp", "breakpad/symbols/microdump"], "libc.so"),
    ("aarch64 ELF core: raise skipped",
     ["@TMP/elf-cores/elfutils/backtrace.aarch64.core", "@TMP/elf-cores/elfutils/backtrace.aarch64.exec"],
     "sigusr2"),
    ("ppc32 ELF core: raise skipped",
     ["@TMP/elf-cores/elfutils/backtrace.ppc.core", "@TMP/elf-cores/elfutils/backtrace.ppc.exec"],
     "sigusr2"),
    ("mips64el n64 ELF core", ["elf-cores/lldb/elf-core/linux-mips64el-gnuabi64.core",
                               "elf-cores/lldb/elf-core/linux-mips64el-gnuabi64.out"], "bar"),
    ("ppc64le ELF core", ["elf-cores/lldb/elf-core/linux-ppc64le.core",
                          "elf-cores/lldb/elf-core/linux-ppc64le.out"], "bar"),
    ("riscv32 ESP-IDF core dump: ESP-IDF's panic path skipped",
     ["esp-coredump/esp32c3/coredump.b64", "esp-coredump/esp32c3/esp32c3.elf"], "fail_once"),
    ("riscv64 offline capture", ["libunwindstack/vlenb_riscv64"],
     "unwindstack::Verify_test_Test::TestBody"),
    ("arm offline capture: Android's aborter skipped", ["libunwindstack/straddle_arm"], "libhidlbase.so"),
    ("amd64 offline capture, signal frame", ["libunwindstack/signal_fde_x86_64"], "SignalInnerFunction"),
]


def signature_docs(args, argv):
    """The JSON documents of `stackwalk --brief --json ARGV` (one per
    microdump of a log), and the exit status."""
    code, out, err = run(args.stackwalk, ["--brief", "--json"] + argv)
    try:
        return code, [json.loads(l) for l in out.splitlines() if l.strip()], err
    except ValueError as e:
        return code, None, "not JSON: %s" % e


def check_signatures(args, rows, res):
    """Every corpus input that names a crashing thread gets a signature, and
    the same with --brief as without (the brief walk is the same walk of
    that thread); a pinned sample matches exactly."""
    import bz2
    with tempfile.TemporaryDirectory() as tmp:
        def path(p):
            if not p.startswith("@TMP/"):
                return os.path.join(args.corpus, p)
            out = os.path.join(tmp, os.path.basename(p[5:]))
            if not os.path.exists(out):
                with bz2.open(os.path.join(args.corpus, p[5:] + ".bz2")) as f, open(out, "wb") as g:
                    g.write(f.read())
            return out

        inputs = []
        for r in rows:
            syms = [] if r["sympath"] == "-" else [os.path.join(args.corpus, r["folder"], r["sympath"])]
            inputs.append(("%s/%s%s" % (r["folder"], r["dump"], "" if r["variant"] == "-" else "+" + r["variant"]),
                           [os.path.join(args.corpus, r["folder"], r["dump"])] + syms))
        for case in sorted(os.listdir(os.path.join(args.corpus, "libunwindstack"))):
            folder = os.path.join(args.corpus, "libunwindstack", case)
            if os.path.exists(os.path.join(folder, "regs.txt")):
                inputs.append(("libunwindstack/" + case, [folder]))
        for label, argv, _ in PINNED_SIGNATURES:
            if argv[0].startswith("@TMP/") or "elf-cores" in argv[0] or "esp-coredump" in argv[0]:
                inputs.append((label, [path(a) for a in argv]))
        bad, with_crash = [], 0
        for label, argv in inputs:
            if args.only and args.only not in label:
                continue
            code, docs, err = signature_docs(args, argv)
            if docs is None or code not in (0, 1):
                if code != 1 or docs is None:
                    bad.append("%s: exit %d %s" % (label, code, err.strip()[:200]))
                continue
            for doc in docs:
                crashing = doc["crash_info"]["crashing_thread"]
                sig = doc.get("signature")
                if crashing is None:
                    if sig is not None:
                        bad.append("%s: a signature %r without a crashing thread" % (label, sig))
                    continue
                with_crash += 1
                if not sig or (sig.startswith("EMPTY") and doc["status"] == "OK"
                               and doc["crashing_thread" if "crashing_thread" in doc else "threads"]):
                    bad.append("%s: signature %r" % (label, sig))
            # The full walk names the same signature.
            _, full, _ = run(args.stackwalk, ["--json"] + argv)
            try:
                full_sigs = [json.loads(l).get("signature") for l in full.splitlines() if l.strip()]
            except ValueError:
                full_sigs = None
            if full_sigs != [d.get("signature") for d in docs]:
                bad.append("%s: --brief %r, full walk %r" % (label, [d.get("signature") for d in docs],
                                                            full_sigs))
        if bad:
            res.fail("signatures of every input", "\n".join(bad[:20]))
        else:
            res.ok("signatures of every input", "%d inputs, %d with a crashing thread" % (len(inputs), with_crash))

        for label, argv, expected in PINNED_SIGNATURES:
            if args.only and args.only not in " ".join(argv):
                continue
            code, docs, err = signature_docs(args, [path(a) for a in argv])
            got = docs[0].get("signature") if docs else None
            if got != expected:
                res.fail("signature: " + label, "exit %d, got %r, expected %r %s" % (code, got, expected, err.strip()[:200]))
            else:
                res.ok("signature: " + label, expected)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stackwalk", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--only")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--skip-microdumps", action="store_true")
    args = ap.parse_args()
    require_corpus(args.corpus, "conformance")
    rows = read_manifest(args.corpus)
    res, used = Result(), set()
    check_walks(args, rows, res, used)
    check_json(args, res)
    check_signatures(args, rows, res)
    check_damaged(args, rows, res)
    check_truncated(args, rows, res)
    if not args.only:
        for key in sorted(set(KNOWN_DIFFERENCES) - used, key=str):
            res.fail("stale known difference %s" % (key,),
                     "listed in KNOWN_DIFFERENCES but no longer happens: remove it")
    print("\n".join(res.lines))
    return summary("conformance", res.passed, res.failed)


if __name__ == "__main__":
    sys.exit(main())
