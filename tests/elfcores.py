#!/usr/bin/env python3
"""Conformance over real Linux (and NetBSD) core files made by others.

../shared/corpus/elf-cores holds elfutils' backtrace test cores (aarch64 with
and without unwind tables, ppc, ppc64le, s390, s390x, sparc64; riscv64 and
aarch64 cores without their programs) and lldb's (mips64el n64 and n32,
mipsel o32, ppc64le, s390x; NetBSD aarch64), each with the outputs of
eu-stack and gdb on it (reference/*.eu-stack.txt, *.gdb.txt; cases.tsv
indexes them). Each core is walked with `stackwalk --json CORE [EXEC]` (and
the text output, for each frame's pc) and checked against:

- upstream's own expectation (cases.tsv, frames_expected_upstream):
  elfutils (tests/backtrace.c): the signalled thread's frames are raise,
  sigusr2, stdarg, backtracegen in that order (one repeated sigusr2 is
  tolerated, as for frame-pointer walkers), every other thread reaches main,
  no frame is named gsignal. lldb (TestLinuxCore.py): exactly bar, foo,
  _start, each on the source line marked "// Frame NAME"; TestNetBSDCore.py:
  at least bar, foo, main or lwp_main on the given LWP, same lines. The pid
  and the thread count of cases.tsv, and the signal.
- the reference walkers: every thread walks at least as far as eu-stack and
  as gdb (their consecutive repeated frames counted once), and where both
  have frame i, the pcs are equal and, where both name it, the names are
  equal (or aliases: two symbols of the executable at one address) and so
  are gdb's source lines.
- what no reference says but the core does: every module lies in memory
  the process had mapped (a PT_LOAD of the core, or the one holding
  AT_ENTRY), no frame follows the program's entry function (_start,
  __start, NetBSD's ___start): nothing called it, and no frame's stack
  pointer lies in the auxiliary vector or above it on the initial stack.
- s390, s390x and sparc64 cores: stackwalk does not walk these CPUs. It must
  say so on stderr ("CPU not supported") with exit 1, as docs/cli.md
  ("Exit status") documents, or walk them; never crash.

Every run must exit below 128 with no sanitizer report. A difference passes
only when KNOWN_DIFFERENCES names it with the evidence; a listed difference
that no longer happens fails (the list must stay true).

The elfutils files are bzip2-compressed upstream; they are decompressed into
the work directory once per run, and the lldb files used in place.

Usage: elfcores.py --stackwalk PATH --corpus DIR [--work DIR] [--case SUBSTR] [-v]
Prints one line per case and "elfcores: N passed, N failed".
"""
import argparse
import bz2
import json
import os
import re
import shutil
import struct
import subprocess
import sys

from corpus_skip import require_corpus
from swtest import run_stackwalk, summary

# (case, key) -> why the difference is right. Keys: "TOOL:TID:#N" (frame N
# of the reference, its repeated frames counted once), "TOOL:TID:length",
# "upstream:...", "exit", "pid", "threads", "signal", "crashing_thread".
KNOWN_DIFFERENCES = {
}

# What a reference cannot say, and why: printed with the case, never a
# failure, and checked to still be true (the reference has no frames there).
REFERENCE_GAPS = {
    ('linux-mips64el-gnuabi64', 'eu-stack'): "eu-stack 0.188 has no MIPS unwinder "
        "('dwfl_core_file_attach: Unwinding not supported for this architecture')",
    ('linux-mips64el-gnuabin32', 'eu-stack'): "eu-stack 0.188 has no MIPS unwinder",
    ('linux-mipsel-gnuabio32', 'eu-stack'): "eu-stack 0.188 has no MIPS unwinder",
    ('linux-mips64el-gnuabin32', 'gdb'): "gdb 13.1 crashes on this core (internal-error "
        "frame_unwind_find_by_frame failed, exit 134): it does not know the 440-byte n32 "
        "NT_PRSTATUS ('Couldn't find general-purpose registers in core file')",
    ('1lwp_SIGSEGV.aarch64', 'eu-stack'): "eu-stack does not read NetBSD cores (exit 2)",
    ('2lwp_t2_SIGSEGV.aarch64', 'eu-stack'): "eu-stack does not read NetBSD cores (exit 2)",
    ('2lwp_process_SIGSEGV.aarch64', 'eu-stack'): "eu-stack does not read NetBSD cores (exit 2)",
    ('1lwp_SIGSEGV.aarch64', 'gdb'): "gdb 13.1 (Debian) has no NetBSD OS ABI: 'Core file "
        "format not supported'",
    ('2lwp_t2_SIGSEGV.aarch64', 'gdb'): "gdb 13.1 (Debian) has no NetBSD OS ABI",
    ('2lwp_process_SIGSEGV.aarch64', 'gdb'): "gdb 13.1 (Debian) has no NetBSD OS ABI",
    ('backtrace.sparc', 'gdb'): "gdb 13.1 finds no general-purpose registers in this "
        "sparc64 core ('#0 <unavailable> in ?? ()')",
}

# The lines marked "// Frame NAME" in the programs' sources, which lldb's
# tests compare each frame's line with (line_number(src, "Frame " + name)).
# Linux: lldb's linux-core/main.c (bar 4, foo 10, _start 16), as gdb reports
# them on the four Linux lldb cores it reads (reference/linux-*.gdb.txt;
# checked below against those references). NetBSD: 1lwp_SIGSEGV.c,
# 2lwp_t2_SIGSEGV.c and 2lwp_process_SIGSEGV.c of lldb's
# functionalities/postmortem/netbsd-core; each is a statement row of the
# executable's .debug_line (readelf --debug-dump=decodedline).
UPSTREAM_LINES = {
    'linux': {'bar': 4, 'foo': 10, '_start': 16},
    '1lwp_SIGSEGV.aarch64': {'bar': 3, 'foo': 8, 'main': 13},
    '2lwp_t2_SIGSEGV.aarch64': {'bar': 7, 'foo': 12, 'lwp_main': 17},
    '2lwp_process_SIGSEGV.aarch64': {'bar': 12, 'foo': 17, 'lwp_main': 22},
}

UNSUPPORTED_CPUS = ('s390', 'sparc')  # s390 (31-bit), s390x, sparc64
SANITIZER = re.compile(r'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|'
                       r'UndefinedBehaviorSanitizer|ThreadSanitizer|MemorySanitizer')
# ARM/AArch64 mapping symbols ($x: A64 code, $a/$t/$d) name no function:
# eu-stack prints "$x" for _start, whose own symbol it did not prefer.
MAPPING_SYMBOL = re.compile(r'^\$[atdx](\..*)?$')
PC_NAMES = ('pc', 'srr0', 'rip', 'eip')
SP_NAMES = ('sp', 'r1', 'rsp', 'esp')
# The program's entry functions: no code calls them. The kernel (static
# programs) or the dynamic loader jumps to the ELF entry: glibc's _start
# clears the link register first; NetBSD's ld.elf_so ends _rtld_start with
# `br x17` (libexec/ld.elf_so/arch/aarch64/rtld_start.S), and its __start
# (the entry, 0x200100640 in 1lwp_SIGSEGV.aarch64) is `mov x1, x2;
# b ___start`: x30 in ___start still holds the return address of
# _rtld_start's earlier `bl _rtld`. A frame after one of them is whatever
# a rule or a scan made of a stale register or a stack word: invented.
# (Thread entries such as clone are not listed: in the thread that creates
# another, clone has a caller.)
ENTRY_FUNCTIONS = ('_start', '__start', '___start')


class Frame:
    __slots__ = ('name', 'pc', 'line', 'trust', 'sp')

    def __init__(self, name, pc, line=None, trust=None, sp=None):
        if name is not None and (name == '??' or MAPPING_SYMBOL.match(name)):
            name = None
        self.name, self.pc, self.line, self.trust, self.sp = name, pc, line, trust, sp

    def __str__(self):
        s = '%s %s' % ('0x%x' % self.pc if self.pc is not None else '-', self.name or '??')
        if self.line is not None:
            s += ':%d' % self.line
        if self.trust:
            s += ' (%s)' % self.trust
        return s


def collapse(frames):
    """Consecutive repeats of a frame (same pc, same name) counted once:
    frame-pointer walkers repeat the frame whose record is not set up yet."""
    out = []
    for f in frames:
        if out and out[-1].pc == f.pc and out[-1].name == f.name and f.pc is not None:
            continue
        out.append(f)
    return out


# ---------------------------------------------------------------- references

def parse_eu_stack(path):
    """{tid: [Frame]}, pid, [tids in order]."""
    threads, order, pid, cur = {}, [], None, None
    if not os.path.isfile(path):
        return threads, pid, order
    for line in open(path, encoding='utf-8', errors='replace'):
        m = re.match(r'^PID (\d+)', line)
        if m:
            pid = int(m.group(1))
            continue
        m = re.match(r'^TID (\d+):', line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            order.append(int(m.group(1)))
            continue
        m = re.match(r'^#(\d+)\s+0x([0-9a-f]+)\s*(- 1\b)?\s*(.*)$', line.rstrip('\n'))
        if m and cur is not None:
            rest = m.group(4).strip()
            name = None if not rest or rest.startswith('- ') or rest == '-' else rest.split(' - ')[0]
            cur.append(Frame(name, int(m.group(2), 16)))
    return threads, pid, order


def parse_gdb(path):
    """{tid: [Frame]}, the current (signalled) thread's tid."""
    threads, cur, current = {}, None, None
    if not os.path.isfile(path):
        return threads, current
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = re.match(r'^\[Current thread is \d+ \((?:LWP|process) (\d+)', line)
        if m:
            current = int(m.group(1))
        m = re.match(r'^Thread \d+ \((?:LWP|process) (\d+)', line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r'^#(\d+)\s+(?:(0x[0-9a-f]+|<unavailable>) in )?(\S+) \(', line)
        if m and cur is not None:
            pc = int(m.group(2), 16) if m.group(2) and m.group(2).startswith('0x') else None
            lm = re.search(r'\) at (\S+):(\d+)$', line)
            cur.append(Frame(m.group(3), pc, int(lm.group(2)) if lm else None))
    # A frame with neither pc nor name (gdb found no registers) is no frame.
    for tid in list(threads):
        threads[tid] = [f for f in threads[tid] if f.pc is not None or f.name is not None]
        if not threads[tid]:
            del threads[tid]
    return threads, current


def elf_aliases(path):
    """{function name: {addresses}} from an ELF file's .symtab and .dynsym:
    two names sharing an address are one function (clone/__clone,
    raise/gsignal)."""
    names = {}
    try:
        data = open(path, 'rb').read()
    except OSError:
        return names
    if data[:4] != b'\x7fELF':
        return names
    is64 = data[4] == 2
    e = '<' if data[5] == 1 else '>'
    try:
        if is64:
            shoff, = struct.unpack_from(e + 'Q', data, 0x28)
            shentsize, shnum = struct.unpack_from(e + 'HH', data, 0x3a)
        else:
            shoff, = struct.unpack_from(e + 'I', data, 0x20)
            shentsize, shnum = struct.unpack_from(e + 'HH', data, 0x2e)
        secs = []
        for i in range(shnum):
            o = shoff + i * shentsize
            if is64:
                _, typ, _, _, off, size, link, _, _, entsize = struct.unpack_from(e + 'IIQQQQIIQQ', data, o)
            else:
                _, typ, _, _, off, size, link, _, _, entsize = struct.unpack_from(e + 'IIIIIIIIII', data, o)
            secs.append((typ, off, size, link, entsize))
        for typ, off, size, link, entsize in secs:
            if typ not in (2, 11) or not entsize or link >= len(secs):
                continue
            stroff = secs[link][1]
            for k in range(size // entsize):
                o = off + k * entsize
                if is64:
                    st_name, info, _, shndx, value = struct.unpack_from(e + 'IBBHQ', data, o)
                else:
                    st_name, value, _, info, _, shndx = struct.unpack_from(e + 'IIIBBH', data, o)
                if shndx == 0 or (info & 0xf) not in (0, 2, 10) or not value:
                    continue
                end = data.find(b'\0', stroff + st_name)
                name = data[stroff + st_name:end].decode('utf-8', 'replace')
                if name and not MAPPING_SYMBOL.match(name):
                    names.setdefault(name, set()).add(value)
    except struct.error:
        pass
    return names


def read_core(path):
    """([(vaddr, memsz)] of the core's PT_LOAD segments: the process's
    mappings, dumped or not (p_filesz may be 0); the address of the
    auxiliary vector on the process's initial stack, or None). The kernel
    writes the auxv above argc, argv[] and envp[] at the top of the main
    thread's stack and copies it into NT_AUXV (Linux, note "CORE" type 6) or
    the NetBSD-CORE note of type 2; it is found by those bytes."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF':
        return [], None
    is64 = data[4] == 2
    e = '<' if data[5] == 1 else '>'
    if is64:
        phoff, = struct.unpack_from(e + 'Q', data, 0x20)
        phentsize, phnum = struct.unpack_from(e + 'HH', data, 0x36)
    else:
        phoff, = struct.unpack_from(e + 'I', data, 0x1c)
        phentsize, phnum = struct.unpack_from(e + 'HH', data, 0x2a)
    loads, dumped, notes = [], [], []
    for i in range(phnum):
        o = phoff + i * phentsize
        if is64:
            typ, _, off, vaddr, _, filesz, memsz = struct.unpack_from(e + 'IIQQQQQ', data, o)
        else:
            typ, off, vaddr, _, filesz, memsz = struct.unpack_from(e + 'IIIIII', data, o)
        if typ == 1:
            loads.append((vaddr, memsz))
            dumped.append((vaddr, off, filesz))
        elif typ == 4:
            notes.append((off, filesz))
    auxv = None
    for off, size in notes:
        p = off
        while p + 12 <= off + size:
            namesz, descsz, typ = struct.unpack_from(e + 'III', data, p)
            name = data[p + 12:p + 12 + namesz].rstrip(b'\0')
            desc = p + 12 + ((namesz + 3) & ~3)
            if (name == b'CORE' and typ == 6) or (name == b'NetBSD-CORE' and typ == 2):
                auxv = data[desc:desc + descsz]
            p = desc + ((descsz + 3) & ~3)
    at = None
    if auxv and len(auxv) >= 32:
        for vaddr, off, filesz in dumped:
            k = data.find(auxv, off, off + filesz)
            if k >= 0:
                at = vaddr + k - off
                break
    return loads, at


def same_name(a, b, aliases):
    return a == b or bool(aliases.get(a, set()) & aliases.get(b, set()))


# --------------------------------------------------------------------- ours

def parse_text(text):
    """{thread index: [(pc, sp) of each physical frame]} from the text
    output, whose register lines give each frame's pc (the return address
    in callers: docs/output.md) and stack pointer."""
    threads, cur, regs, inline = {}, None, None, False
    for line in text.splitlines():
        m = re.match(r'^Thread (\d+)', line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            regs = None
            continue
        if line.startswith('Loaded modules'):
            cur = None
            continue
        if cur is None:
            continue
        if re.match(r'^\s?\d+\s+\S', line) and not line.startswith('    '):
            regs = {}
            continue
        m = re.match(r'^\s+Found by: (.*)$', line)
        if m and regs is not None:
            if 'inline' not in m.group(1):
                cur.append((next((int(regs[n], 16) for n in PC_NAMES if n in regs), None),
                            next((int(regs[n], 16) for n in SP_NAMES if n in regs), None)))
            regs = None
            continue
        if regs is not None:
            for k, v in re.findall(r'(\w+) = (0x[0-9a-f]+)', line):
                regs[k] = v
    return threads


def our_threads(doc, text_pcs):
    """{tid: (physical [Frame], expanded [Frame] with inline frames as gdb
    shows them: innermost first)}, and the problems of reading them."""
    out, notes = {}, []
    for i, t in enumerate(doc.get('threads') or []):
        pcs = text_pcs.get(i)
        phys, full = [], []
        frames = t.get('frames') or []
        if pcs is not None and len(pcs) != len(frames):
            notes.append('thread %s: the text output has %d frames, the JSON %d'
                         % (t.get('thread_id'), len(pcs), len(frames)))
            pcs = None
        for k, f in enumerate(frames):
            pc, sp = pcs[k] if pcs is not None else (None, None)
            if pc is None:
                pc = int(f['offset'], 16)
            fr = Frame(f.get('function'), pc, f.get('line'), f.get('trust'), sp)
            phys.append(fr)
            for inl in f.get('inlines') or []:
                full.append(Frame(inl.get('function'), pc, inl.get('line'), 'inline'))
            full.append(fr)
        out[t.get('thread_id')] = (phys, full)
    return out, notes


# ------------------------------------------------------------------- checks

def compare_with(tool, tid, ref, ours, aliases, problems):
    """Frame by frame with one reference thread (both collapsed)."""
    ref, ours = collapse(ref), collapse(ours)
    for i in range(min(len(ref), len(ours))):
        r, o = ref[i], ours[i]
        what = []
        if r.pc is not None and o.pc is not None and r.pc != o.pc:
            what.append('pc 0x%x, %s 0x%x' % (o.pc, tool, r.pc))
        if r.name is not None and o.name is None:
            what.append('no function name, %s says %s' % (tool, r.name))
        elif r.name is not None and not same_name(r.name, o.name, aliases):
            what.append('function %s, %s says %s' % (o.name, tool, r.name))
        elif r.line is not None and r.name is not None and o.line != r.line:
            what.append('line %s, %s says %d' % (o.line, tool, r.line))
        if what:
            problems.append(('%s:%d:#%d' % (tool, tid, i), 'thread %d frame %d: %s' % (
                tid, i, '; '.join(what)), ours[i:i + 3], ref[i:i + 3]))
    if len(ours) < len(ref):
        problems.append(('%s:%d:length' % (tool, tid),
                         'thread %d: the walk ends after %d frames, %s reaches %d' % (
                             tid, len(ours), tool, len(ref)), ours[-2:], ref[len(ours):len(ours) + 3]))


def parse_upstream(text):
    """cases.tsv's frames_expected_upstream -> (kind, tid or None, [names], pid, regions, tname)."""
    if text.startswith('-'):
        return None
    pid = re.search(r'pid (\d+)', text)
    regions = re.search(r'(\d+) memory regions', text)
    tname = re.search(r'thread name "([^"]*)"', text)
    m = re.match(r'^signalled thread: ([\w ]+?) \(', text)
    if m:
        return ('elfutils', None, m.group(1).split(), None, None, None)
    m = re.match(r'^(?:thread (\d+): )?([\w |]+?)(?: \(|;)', text)
    if not m:
        raise ValueError('cannot read frames_expected_upstream: %r' % text)
    return ('lldb', int(m.group(1)) if m.group(1) else None, m.group(2).split(),
            int(pid.group(1)) if pid else None, int(regions.group(1)) if regions else None,
            tname.group(1) if tname else None)


def check_upstream(case, row, doc, ours, sig_tid, problems, notes):
    up = parse_upstream(row['expected'])
    if up is None:
        return
    kind, tid, names, pid, regions, tname = up
    if kind == 'elfutils':
        if sig_tid not in ours:
            problems.append(('upstream:thread', 'the signalled thread %s is not in the output'
                             % sig_tid, [], []))
            return
        got = [f.name for f in ours[sig_tid][0]]
        if got[1:3] == ['sigusr2', 'sigusr2']:
            got = got[:2] + got[3:]  # the one repeat backtrace.c tolerates
        if got[:len(names)] != names:
            problems.append(('upstream:signalled', 'thread %d: frames %s, upstream expects %s'
                             % (sig_tid, got[:len(names) + 1], names), ours[sig_tid][0][:5], []))
        for t, (phys, _) in sorted(ours.items()):
            if t != sig_tid and 'main' not in [f.name for f in phys]:
                problems.append(('upstream:main:%d' % t, 'thread %d does not reach main' % t,
                                 phys[-3:], []))
        for t, (_, full) in sorted(ours.items()):
            if any(f.name == 'gsignal' for f in full):
                problems.append(('upstream:gsignal', 'thread %d has a frame named gsignal' % t,
                                 [], []))
        return
    # lldb
    netbsd = row['os'].startswith('NetBSD')
    lines = UPSTREAM_LINES.get(case if netbsd else 'linux', {})
    if tid is None:
        tid = sig_tid
    if tid not in ours:
        problems.append(('upstream:thread', 'thread %s is not in the output' % tid, [], []))
        return
    phys = ours[tid][0]
    got = [f.name for f in phys]
    # Linux: exactly these frames (GetNumFrames() == 3); NetBSD: at least.
    if got[:len(names)] != names:
        problems.append(('upstream:frames', 'thread %d: frames %s, upstream expects %s%s'
                         % (tid, got, names, '' if netbsd else ' exactly'), phys[:4], []))
    elif not netbsd and len(got) != len(names):
        problems.append(('upstream:frames', 'thread %d: %d frames %s, upstream expects exactly %s'
                         % (tid, len(got), got, names), phys[len(names):len(names) + 3], []))
    else:
        for f in phys[:len(names)]:
            want = lines.get(f.name)
            if want is not None and f.line != want:
                problems.append(('upstream:line:%s' % f.name, 'thread %d: %s is on line %s, '
                                 'upstream expects %d (// Frame %s)' % (tid, f.name, f.line, want,
                                                                       f.name), [f], []))
    if pid is not None:
        if doc.get('pid') is None:
            notes.append('pid not in the JSON (upstream: %d)' % pid)
        elif doc['pid'] != pid:
            problems.append(('pid', 'pid %s, upstream expects %d' % (doc['pid'], pid), [], []))
    if regions is not None:
        got_regions = next((doc[k] for k in ('memory_region_count', 'memory_regions')
                            if k in doc), None)
        if isinstance(got_regions, list):
            got_regions = len(got_regions)
        if got_regions is None:
            notes.append('memory regions not in the JSON (upstream: %d)' % regions)
        elif got_regions != regions:
            problems.append(('regions', '%s memory regions, upstream expects %d'
                             % (got_regions, regions), [], []))
    if tname is not None:
        t = next((t for t in doc.get('threads') or [] if t.get('thread_id') == tid), {})
        if t.get('thread_name') is None:
            notes.append('thread name not in the JSON (upstream: "%s")' % tname)
        elif t['thread_name'] != tname:
            problems.append(('thread_name', 'thread name %r, upstream expects %r'
                             % (t['thread_name'], tname), [], []))


def run(args, argv):
    return run_stackwalk(args.stackwalk, argv, timeout=60)


def check_case(args, row, case, core, exe):
    problems, notes = [], []
    sym = [exe] if exe else []
    code, out, err = run(args, ['--json', core] + sym)
    tcode, text, terr = run(args, [core] + sym)
    for c, e, o, what in ((code, err, out, '--json'), (tcode, terr, text, 'text')):
        if c is None:
            problems.append(('crash', '%s run: %s' % (what, e), [], []))
        elif c < 0 or c >= 128:
            problems.append(('crash', '%s run: exit %d (a signal): %s' % (what, c, e.strip()[-300:]),
                             [], []))
        if SANITIZER.search(e) or SANITIZER.search(o):
            problems.append(('crash', '%s run: sanitizer report: %s' % (what, e.strip()[:300]), [], []))
    if problems:
        return problems, notes
    ref_dir = os.path.join(args.corpus, 'elf-cores', row['folder'], os.path.dirname(row['ref']))
    base = os.path.basename(row['ref'])
    unsupported = row['arch'].startswith(UNSUPPORTED_CPUS)
    if unsupported and code == 1 and re.search(r'not supported', err):
        notes.append('%s (exit 1, as docs/cli.md "Exit status" says)' % err.strip().split('\n')[0])
        if out.strip():
            try:
                doc = json.loads(out)
                if doc.get('thread_count') != int(row['threads']):
                    problems.append(('threads', 'thread_count %s, the core has %s'
                                     % (doc.get('thread_count'), row['threads']), [], []))
            except ValueError as exc:
                problems.append(('json', 'stdout is not JSON: %s' % exc, [], []))
        return problems, notes
    if code not in (0, 1) or not out.strip():
        problems.append(('exit', 'exit %s, stderr: %s' % (code, err.strip()[:400]), [], []))
        return problems, notes
    if code == 1:
        problems.append(('exit', 'exit 1 (damaged input): %s' % err.strip()[:400], [], []))
    try:
        doc = json.loads(out)
    except ValueError as exc:
        problems.append(('json', 'stdout is not JSON: %s' % exc, [], []))
        return problems, notes
    ours, n = our_threads(doc, parse_text(text))
    notes += n
    aliases = elf_aliases(exe) if exe else {}
    eu, eu_pid, eu_order = parse_eu_stack(os.path.join(ref_dir, base + '.eu-stack.txt'))
    gdb, gdb_current = parse_gdb(os.path.join(ref_dir, base + '.gdb.txt'))
    # Which thread the signal hit: gdb's current thread, eu-stack's first
    # (the first NT_PRSTATUS), or the LWP cases.tsv names.
    m = re.search(r'thread (\d+) only', row['signal'])
    sig_tid = int(m.group(1)) if m else gdb_current or (eu_order[0] if eu_order else None)
    if sig_tid is None and int(row['threads']) == 1:
        sig_tid = next(iter(gdb), None) or next(iter(ours), None)
    if doc.get('thread_count') != int(row['threads']):
        problems.append(('threads', 'thread_count %s, the core has %s'
                         % (doc.get('thread_count'), row['threads']), [], []))
    ci = doc.get('crash_info') or {}
    want_sig = row['signal'].split()[0]
    if not (ci.get('type') or '').startswith(want_sig):
        problems.append(('signal', 'crash type %r, the core says %s' % (ci.get('type'), want_sig),
                         [], []))
    # RISC-V's crashing instruction, from our own decoder (Capstone 4 has
    # none): gdb's `x/i $pc` on the core, modulo spaces.
    if row['arch'].startswith('riscv') and shutil.which('gdb-multiarch'):
        g = subprocess.run(['gdb-multiarch', '-batch', '-ex', 'core-file ' + core,
                            '-ex', 'x/i $pc'], capture_output=True, text=True)
        m = re.search(r'^=> 0x[0-9a-f]+(?: <[^>]*>)?:\t(.*)$', g.stdout, re.M)
        want = re.sub(r'\s+', '', m.group(1)) if m else None
        got = re.sub(r'\s+', '', ci.get('instruction') or '')
        if want is None or got != want:
            problems.append(('instruction', 'crash instruction %r, gdb %r'
                             % (ci.get('instruction'), m.group(1) if m else None), [], []))
    idx = ci.get('crashing_thread')
    threads = doc.get('threads') or []
    if sig_tid is not None and 'process' not in row['signal']:
        got_tid = threads[idx].get('thread_id') if isinstance(idx, int) and idx < len(threads) else None
        if got_tid != sig_tid:
            problems.append(('crashing_thread', 'crashing thread %s, the signal hit %d'
                             % (got_tid, sig_tid), [], []))
    if eu_pid is not None and doc.get('pid') is None:
        notes.append('pid not in the JSON (eu-stack: %d)' % eu_pid)
    elif eu_pid is not None and doc['pid'] != eu_pid:
        problems.append(('pid', 'pid %s, eu-stack says %d' % (doc['pid'], eu_pid), [], []))
    check_upstream(case, row, doc, ours, sig_tid, problems, notes)
    # Every module is memory the process had mapped: a PT_LOAD of the core,
    # or (linux-ppc64le.core has no PT_LOAD for its executable) the one
    # holding the kernel's AT_ENTRY (eu-readelf's reading of NT_AUXV).
    loads, auxv_at = read_core(core)
    entry = None
    notes_path = os.path.join(ref_dir, base + '.notes.txt')
    if os.path.isfile(notes_path):
        m = re.search(r'^\s+ENTRY: (0x[0-9a-f]+)', open(notes_path).read(), re.M)
        entry = int(m.group(1), 16) if m else None
    for mod in doc.get('modules') or []:
        lo, hi = int(mod['base_addr'], 16), int(mod['end_addr'], 16)
        if not any(v < hi and lo < v + n for v, n in loads) and \
                not (entry is not None and lo <= entry < hi):
            problems.append(('module:%s@%s' % (mod.get('filename'), mod['base_addr']),
                             'module %s at %s-%s lies in no PT_LOAD segment of the core (no '
                             'mapping of the process)' % (mod.get('filename'), mod['base_addr'],
                                                          mod['end_addr']), [], []))
    # Nothing was ever called at or above the auxv: its words (AT_ENTRY,
    # AT_PHDR...) are no return addresses, whatever a scan makes of them.
    if auxv_at is not None:
        top = next((v + n for v, n in loads if v <= auxv_at < v + n), auxv_at)
        for tid, (phys, _) in sorted(ours.items()):
            bad = [i for i, f in enumerate(phys) if i and f.sp is not None
                   and auxv_at <= f.sp < top]
            if bad:
                problems.append(('initial-stack:%d' % tid, 'thread %d: frame%s %s ha%s sp at or '
                                 'above the auxiliary vector (0x%x, the top of the initial stack: '
                                 'argc, argv, envp, auxv)' % (
                                     tid, 's' if len(bad) > 1 else '', ', '.join(map(str, bad)),
                                     've' if len(bad) > 1 else 's', auxv_at),
                                 [phys[i] for i in bad[:3]], []))
    for tid, (phys, _) in sorted(ours.items()):
        for i, f in enumerate(phys[:-1]):
            if f.name in ENTRY_FUNCTIONS:
                n = len(phys) - 1 - i
                problems.append(('entry:%d' % tid, 'thread %d: %d frame%s after %s (frame %d), '
                                 'which no code calls' % (tid, n, 's' if n > 1 else '', f.name, i),
                                 phys[i:i + 4], []))
                break
    for tool, ref in (('eu-stack', eu), ('gdb', gdb)):
        gap = REFERENCE_GAPS.get((case, tool))
        if gap:
            if ref:
                problems.append(('gap:' + tool, 'REFERENCE_GAPS says %s has nothing here, but it '
                                 'has frames: remove the entry' % tool, [], []))
            notes.append('%s: %s' % (tool, gap))
            continue
        if not ref:
            problems.append(('gap:' + tool, '%s has no frames here and REFERENCE_GAPS does not '
                             'say why' % tool, [], []))
        for tid, frames in sorted(ref.items()):
            if tid not in ours:
                problems.append(('%s:%d:thread' % (tool, tid), 'thread %d (%s: %d frames) is not '
                                 'in the output' % (tid, tool, len(frames)), [], frames[:3]))
                continue
            compare_with(tool, tid, frames, ours[tid][1 if tool == 'gdb' else 0], aliases, problems)
        if tool == 'gdb' and row['folder'] == 'lldb' and not row['os'].startswith('NetBSD'):
            for frames in ref.values():  # UPSTREAM_LINES['linux'] is what gdb says
                for f in frames:
                    want = UPSTREAM_LINES['linux'].get(f.name)
                    if want is not None and f.line != want:
                        problems.append(('harness', 'UPSTREAM_LINES: %s is on line %s in %s'
                                         % (f.name, f.line, base), [], []))
    return problems, notes


def prepare(args, rows):
    """Decompress the .bz2 files into the work directory (once per run)."""
    os.makedirs(args.work, exist_ok=True)
    paths = {}
    for row in rows:
        for col in ('core', 'exe'):
            name = row[col]
            if name == '-':
                continue
            src = os.path.join(args.corpus, 'elf-cores', row['folder'], name)
            if name.endswith('.bz2'):
                dst = os.path.join(args.work, os.path.basename(name)[:-4])
                with open(src, 'rb') as f:
                    data = bz2.decompress(f.read())
                with open(dst + '.tmp', 'wb') as f:
                    f.write(data)
                os.replace(dst + '.tmp', dst)
                paths[src] = dst
            else:
                paths[src] = src
    return paths


def read_cases(corpus):
    rows = []
    with open(os.path.join(corpus, 'elf-cores', 'cases.tsv')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            c = line.rstrip('\n').split('\t')
            rows.append(dict(folder=c[0], core=c[1], exe=c[2], arch=c[3], os=c[4], threads=c[5],
                             signal=c[6], expected=c[7], eu_exit=c[8], gdb_exit=c[9], ref=c[10]))
    return rows


def fmt_frames(frames):
    return ' | '.join(str(f) for f in frames) if frames else '-'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--work', default=None)
    ap.add_argument('--case', action='append')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    require_corpus(args.corpus, 'elfcores', 'elf-cores')
    if args.work is None:
        args.work = os.path.join(os.getcwd(), 'elfcores-work')
    rows = read_cases(args.corpus)
    if args.case:
        rows = [r for r in rows if any(s in r['core'] for s in args.case)]
    paths = prepare(args, rows)
    passed = failed = 0
    used = set()
    for row in rows:
        case = os.path.basename(row['ref'])
        core = paths[os.path.join(args.corpus, 'elf-cores', row['folder'], row['core'])]
        exe = None if row['exe'] == '-' else \
            paths[os.path.join(args.corpus, 'elf-cores', row['folder'], row['exe'])]
        try:
            problems, notes = check_case(args, row, case, core, exe)
        except (ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
            problems, notes = [('error', 'harness error: %r' % exc, [], [])], []
        real, named = [], []
        for key, text, ours, ref in problems:
            reason = KNOWN_DIFFERENCES.get((case, key))
            if reason:
                used.add((case, key))
                named.append('%s (named difference: %s)' % (text, reason))
            else:
                real.append((key, text, ours, ref))
        label = '%s/%s' % (row['folder'], case)
        if real:
            failed += 1
            print('FAIL %s' % label)
            for key, text, ours, ref in real[:20 if args.v else 6]:
                print('       ' + text)
                tool = key.split(':')[0]
                length = key.endswith(':length')
                if ours:
                    print('         %-16s %s' % ('ours (last):' if length else 'ours:',
                                                 fmt_frames(ours)))
                if ref:
                    print('         %-16s %s' % ('%s (beyond):' % tool if length else tool + ':',
                                                 fmt_frames(ref)))
            if len(real) > (20 if args.v else 6):
                print('       ... %d more' % (len(real) - (20 if args.v else 6)))
        else:
            passed += 1
            print('ok   %s' % label)
        for line in named + notes:
            print('       (%s)' % line)
    if not args.case:
        for key in sorted(set(KNOWN_DIFFERENCES) - used):
            failed += 1
            print('FAIL stale known difference %s: it no longer happens; remove it' % (key,))
    return summary('elfcores', passed, failed)


if __name__ == '__main__':
    sys.exit(main())
