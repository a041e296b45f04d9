#!/usr/bin/env python3
"""Conformance over Android libunwindstack's offline snapshots.

Each case of ../shared/corpus/libunwindstack (registers, maps, stack bytes
and the process's ELF files, captured by AOSP's unwinder tests) is walked
straight from the corpus with `stackwalk --json CASE_DIR` (two cases get
the extra process memory their upstream test adds), and
compared frame by frame with the case's output.txt: the module, the
module-relative pc (libunwindstack's REL_PC: the ELF virtual address of the
pc, less the "pc adjustment" for callers), the function and its offset; and
with expected_pc_sp.txt (absolute pc and sp) where the case has one.

A difference must be named in KNOWN_DIFFERENCES with the evidence that ours
is right (or why the frame cannot be had); any other difference fails.

Usage: libunwindstack.py --stackwalk PATH --corpus DIR [--work DIR] [-v]
Prints "N passed, N failed" (one check per case).
"""
import argparse
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys

from corpus_skip import require_corpus
from swtest import run_stackwalk, summary

# case -> (frames of output.txt we do not reproduce, why). The evidence is
# in the reason; the frames listed must be exactly the ones that differ.
SIGNAL_NULL_CALL_SP = (
    "frame #05 is the interrupted context, stopped at pc 0 after a call through a NULL "
    "function pointer; the caller (#06, InnerFunction) returns to the word at its sp. "
    "libunwindstack sets the caller's pc to that word but leaves sp as it was; once the "
    "return address is popped the caller's sp is one word higher, which is what we print "
    "(its CFA: frame #07's sp, which both agree on, is computed from it)")
KNOWN_DIFFERENCES = {
    'maps_compiled_arm64/28667': (
        ['#04', '#05', '#06', '#07', '#08', '#09', '#10'],
        "libunwindstack stops at frame #03 because CronetDynamite.apk's file is not in the "
        "capture, so it has no unwind tables for it. stackwalk follows the AAPCS64 frame "
        "records (x29 chain) through it: five more CronetDynamite.apk frames, then "
        "libc.so!__pthread_start and __start_thread, where every Android thread begins; "
        "a chain that lands exactly on the thread's entry is an intact chain"),
    'eh_frame_bias_x86': (
        ['#10'],
        "libunwindstack's last frame is 'pc 00000001 <unknown>': the vDSO's CFI for "
        "__kernel_vsyscall's caller reads a word that is no code address (1 is below the "
        "first page and in no map). stackwalk does not emit it: the walk ends after frame "
        "#09 (no_caller_found)"),
    'load_bias_different_section_bias_arm64': (
        ['#04'],
        "identical code folding put four 8-byte functions at 0x459f8 of `test`: the LOCAL "
        "std::__ndk1::__throw_bad_cast (listed first, which libunwindstack prints), "
        "testing::internal::posix::Abort and __throw_bad_function_call, and the GLOBAL "
        "Linker_Test_Test::TestBody. Of several names at one address stackwalk prints the "
        "GLOBAL one, as elfutils does (eu-addr2line -S -e test 0x459fc: "
        "_ZN16Linker_Test_Test8TestBodyEv+0x4); gdb 13 prints the last in strcmp order "
        "(info symbol 0x459fc: std::__ndk1::__throw_bad_function_call() + 4). Same pc, "
        "same offset, one code"),
    'signal_fde_x86': (['#06'], SIGNAL_NULL_CALL_SP),
    'signal_fde_x86_64': (['#06'], SIGNAL_NULL_CALL_SP),
}


def read_maps(path):
    maps = []
    with open(path) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 5:
                continue
            start, end = (int(x, 16) for x in parts[0].split('-'))
            name = parts[5].strip() if len(parts) > 5 else ''
            maps.append({'start': start, 'end': end, 'perms': parts[1],
                         'offset': int(parts[2], 16), 'name': name})
    return maps


class Elf:
    """Just enough of an ELF for libunwindstack's address rules."""

    def __init__(self, data):
        self.data = data
        self.ok = len(data) >= 52 and data[:4] == b'\x7fELF'
        self.load_bias = 0
        self.soname = None
        if not self.ok:
            return
        self.is64 = data[4] == 2
        e = '<' if data[5] == 1 else '>'
        self.e = e
        try:
            if self.is64:
                phoff, = struct.unpack_from(e + 'Q', data, 32)
                phentsize, phnum = struct.unpack_from(e + 'HH', data, 54)
            else:
                phoff, = struct.unpack_from(e + 'I', data, 28)
                phentsize, phnum = struct.unpack_from(e + 'HH', data, 42)
            self.phdrs = []
            for i in range(phnum):
                o = phoff + i * phentsize
                if self.is64:
                    typ, flags, off, vaddr, _, filesz = struct.unpack_from(e + 'IIQQQQ', data, o)
                else:
                    typ, off, vaddr, _, filesz, _, flags = struct.unpack_from(e + 'IIIIIII', data, o)
                self.phdrs.append((typ, flags, off, vaddr, filesz))
        except struct.error:
            self.phdrs = []
        for typ, flags, off, vaddr, _ in self.phdrs:
            if typ == 1 and flags & 1:  # PT_LOAD, PF_X
                self.load_bias = vaddr - off
                break

    def word_at_vaddr(self, vaddr):
        for typ, _, off, v, filesz in self.phdrs:
            if typ == 1 and v <= vaddr and vaddr + 4 <= v + filesz:
                o = off + vaddr - v
                if o + 4 <= len(self.data):
                    return struct.unpack_from(self.e + 'I', self.data, o)[0]
        return None


def load_file(path):
    for p in (path, path + '.gz'):
        if os.path.isfile(p):
            with open(p, 'rb') as f:
                data = f.read()
            if data[:2] == b'\x1f\x8b':
                data = gzip.decompress(data)
            return data
    return None


def elf_for_map(case_dir, maps, i, cache):
    """(elf, elf_offset) of map i by libunwindstack's rules, or (None, 0)."""
    m = maps[i]
    if not m['name'] or m['name'].startswith('['):
        return None, 0
    path = os.path.join(case_dir, m['name'])
    if path not in cache:
        cache[path] = load_file(path)
    data = cache[path]
    off = m['offset']
    if data is None:
        # No file: the ELF comes from process memory, starting at the
        # previous r--p map of the same name when there is one.
        for j in range(i - 1, -1, -1):
            p = maps[j]
            if not p['name'] and p['perms'] == '---p':
                continue
            if p['name'] == m['name'] and p['perms'].startswith('r--') and p['offset'] < off:
                return None, off - p['offset']
            break
        return None, 0
    if off == 0:
        return Elf(data), 0
    if data[off:off + 4] == b'\x7fELF':
        return Elf(data[off:]), 0
    if data[:4] == b'\x7fELF':
        return Elf(data), off
    for j in range(i - 1, -1, -1):
        p = maps[j]
        if not p['name'] and p['perms'] == '---p':
            continue
        if p['name'] == m['name'] and p['perms'].startswith('r--') and p['offset'] < off:
            if data[p['offset']:p['offset'] + 4] == b'\x7fELF':
                return Elf(data[p['offset']:]), off - p['offset']
        break
    return None, 0


def adjusted_pc(arch, rel_pc, elf, frame_no, signal):
    """libunwindstack's pc adjustment (README: 'pc adjustment')."""
    if frame_no == 0 or signal:
        return 0
    if arch in ('arm64', 'riscv64'):
        return 4 if rel_pc >= 4 else 0
    if arch in ('x86', 'x86_64'):
        return 1 if rel_pc else 0
    if elf is None or not elf.ok:
        return 2
    x = rel_pc - elf.load_bias
    if x < 2:
        return 0
    if x < 5:
        return 2
    if x & 1:
        # The word at ELF offset x - 5 (its vaddr is that plus the bias).
        w = elf.word_at_vaddr(x - 5 + elf.load_bias)
        return 4 if w is not None and (w & 0xe000f000) == 0xe000f000 else 2
    return 4


PAC_MASK = 0x007fff8000000000
PC_REG = {'arm': 'pc', 'arm64': 'pc', 'x86': 'eip', 'x86_64': 'rip', 'riscv64': 'pc'}
SP_REG = {'arm': 'sp', 'arm64': 'sp', 'x86': 'esp', 'x86_64': 'rsp', 'riscv64': 'sp'}


def describe(arch, case_dir, maps, pc_abs, frame_no, signal, cache):
    """Our frame in output.txt's terms: (map text, rel_pc, adjusted abs pc)."""
    for i, m in enumerate(maps):
        if m['start'] <= pc_abs < m['end']:
            elf, elf_offset = elf_for_map(case_dir, maps, i, cache)
            bias = elf.load_bias if elf is not None and elf.ok else 0
            rel = pc_abs - m['start'] + elf_offset + bias
            adj = adjusted_pc(arch, rel, elf, frame_no, signal)
            name = m['name'] or '<anonymous:%x>' % m['start']
            return name, rel - adj, pc_abs - adj
    adj = adjusted_pc(arch, pc_abs, None, frame_no, signal)
    return '<unknown>', pc_abs - adj, pc_abs - adj


def parse_output(path):
    """output.txt's frames: '  #NN pc REL  MAP[ (offset 0x..)][ (FUNC[+OFF])]'.
    A map name holds no ' (' (the offset note and the function follow it),
    a function name may (C++ templates, function types)."""
    frames = []
    with open(path) as f:
        for line in f:
            body = line.strip()
            if not body:
                continue
            rest = body.split(' pc ', 1)[1]
            rel, tail = rest.split('  ', 1)
            mapname, sep, after = tail.partition(' (')
            func = off = None
            if sep and after.startswith('offset 0x'):
                after = after.split(')', 1)[1]
                after = after[2:] if after.startswith(' (') else ''
            if sep and after:
                func = after[:-1] if after.endswith(')') else after
                head, plus, digits = func.rpartition('+')
                if plus and digits.isdigit():
                    func, off = head, int(digits)
                else:
                    off = 0
            frames.append({'rel': int(rel, 16), 'map': mapname,
                           'func': func.replace('> >', '>>') if func else None, 'off': off})
    return frames


def prepare(corpus, work, case, extra):
    """The case folder as stackwalk reads it: straight from the corpus (the
    reader inflates the .gz ELF files and follows links.txt into common/),
    except for the two cases whose upstream test adds process memory."""
    src = os.path.join(corpus, 'libunwindstack', case)
    if not extra.startswith('apk_memory='):
        return src
    # apk_memory=fake.apk@0x4000->0x7426d2d000+0x2000: the upstream test
    # adds these bytes of the apk as process memory; a stackN.data file is
    # how an offline folder holds process memory.
    dst = os.path.join(work, case)
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    links = os.path.join(dst, 'links.txt')
    if os.path.isfile(links):
        # Targets are relative to the case folder: make them absolute for
        # the copy.
        with open(links) as f:
            rows = [line.split() for line in f if len(line.split()) == 2]
        with open(links, 'w') as f:
            for target, name in rows:
                f.write('%s %s\n' % (os.path.abspath(os.path.join(src, target)), name))
    spec = extra[len('apk_memory='):]
    fname, rest = spec.split('@')
    file_off, rest = rest.split('->')
    addr, length = rest.split('+')
    file_off, addr, length = int(file_off, 16), int(addr, 16), int(length, 16)
    data = load_file(os.path.join(dst, fname))
    with open(os.path.join(dst, 'stack9.data'), 'wb') as out:
        out.write(struct.pack('<Q', addr) + data[file_off:file_off + length])
    return dst


def read_pc_sp(path):
    rows = {}
    if not os.path.isfile(path):
        return rows
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            n, pc, sp = line.split()[:3]
            rows[int(n)] = (None if pc == '-' else int(pc, 16), None if sp == '-' else int(sp, 16))
    return rows


def text_frame_registers(text):
    """The registers of each physical frame of the first thread, from the
    text output ('name = 0x...' lines up to 'Found by:')."""
    frames = []
    regs = None
    in_thread = False
    for line in text.splitlines():
        if line.startswith('Thread '):
            if in_thread:
                break
            in_thread = True
            continue
        if not in_thread:
            continue
        if line.strip().startswith('Found by:'):
            if regs is not None and 'inline' not in line:
                frames.append(regs)
            regs = None
            continue
        parts = line.split()
        if parts and parts[0].isdigit() and regs is None:
            regs = {}
            continue
        if regs is not None:
            for k, v in zip(parts[0::3], parts[2::3]):
                if v.startswith('0x'):
                    regs[k] = v
    return frames


def compare_case(args, case, arch, extra):
    case_dir = prepare(args.corpus, args.work, case, extra)
    code, out, err = run_stackwalk(args.stackwalk, ['--json', case_dir], timeout=120)
    if not out.strip():
        return ['stackwalk printed nothing (exit %s): %s' % (code, err.strip())]
    doc = json.loads(out)
    threads = doc.get('threads') or []
    if not threads:
        return ['no thread in the output']
    ours = [f for f in threads[0]['frames'] if f.get('trust') != 'inline']
    # The JSON (rust-minidump's schema) has registers for the crashing
    # thread's frame 0 only: every frame's raw pc and sp come from the text
    # output, which prints the registers each frame recovered.
    _, text, _ = run_stackwalk(args.stackwalk, [case_dir], timeout=120)
    text_regs = text_frame_registers(text)
    for f, regs in zip(ours, text_regs):
        f['registers'] = regs
    expected = parse_output(os.path.join(case_dir, 'output.txt'))
    pc_sp = read_pc_sp(os.path.join(case_dir, 'expected_pc_sp.txt'))
    maps = read_maps(os.path.join(case_dir, 'maps.txt'))
    cache = {}
    problems = []
    restored_exact = []
    # Callers printed at their pc itself (not at the call before it): a
    # sigreturn trampoline, and the context restored from its signal frame.
    unadjusted = [False] * len(ours)
    for i, f in enumerate(ours):
        regs = f.get('registers') or {}
        if i > 0 and PC_REG[arch] in regs:
            unadjusted[i] = int(regs[PC_REG[arch]], 16) == int(f['offset'], 16)
    # libunwindstack's dex-pc frames: ART's interpreter CFI (a
    # DW_CFA_val_expression tagged 'DEX1') names the Java bytecode an
    # nterp frame was executing, as a frame in the .dex map (named by the
    # map, rel_pc = the DEX pc less the map's start). Ours are trust
    # "dex_pc" frames in the same place.
    dex = 0
    for i in range(max(len(ours), len(expected))):
        if i >= len(ours):
            problems.append('#%02d missing: expected %s %x %s' % (
                i, expected[i]['map'], expected[i]['rel'], expected[i]['func']))
            continue
        if i >= len(expected):
            problems.append('#%02d extra frame (trust %s)' % (i, ours[i].get('trust')))
            continue
        f = ours[i]
        e = expected[i]
        if f.get('trust') == 'dex_pc' or e['map'].endswith('.dex'):
            rel = int(f['module_offset'], 16) if f.get('module_offset') else None
            if f.get('trust') != 'dex_pc' or f.get('module') != e['map'] or rel != e['rel'] \
                    or (f.get('function') or None) != e['func']:
                problems.append('#%02d (%s): %s+%s %s, expected dex frame %s+%x %s' % (
                    i, f.get('trust'), f.get('module'), f.get('module_offset'),
                    f.get('function'), e['map'], e['rel'], e['func']))
            dex += 1
            continue
        regs = f.get('registers') or {}
        pc = int(regs[PC_REG[arch]], 16) if PC_REG[arch] in regs else int(f['offset'], 16)
        if arch == 'arm64' and not any(m['start'] <= pc < m['end'] for m in maps):
            pc &= ~PAC_MASK  # pauth_pc_arm64's test sets this mask
        # A frame whose caller is a restored signal context is the sigreturn
        # trampoline: no call led there, libunwindstack keeps its pc as is,
        # and so do we. The restored frame itself is where the thread was
        # interrupted: we print that pc exactly (as gdb does, and as
        # Breakpad prints a context), libunwindstack adjusts it like a
        # return address (RESTORED_PC below).
        restored = i > 1 and unadjusted[i] and unadjusted[i - 1]
        trampoline = unadjusted[i] and not restored
        mapname, rel, adj_abs = describe(arch, case_dir, maps, pc, i, restored or trampoline,
                                         cache)
        what = []
        if restored and rel != e['rel']:
            _, lus_rel, lus_abs = describe(arch, case_dir, maps, pc, i, False, cache)
            if lus_rel == e['rel']:
                restored_exact.append(i)
                rel, adj_abs = lus_rel, lus_abs
        if os.path.basename(mapname) != os.path.basename(e['map'].split('!')[0]) and \
                not (e['map'].startswith('<') and mapname.startswith('<')):
            what.append('map %s, expected %s' % (mapname, e['map']))
        if rel != e['rel']:
            what.append('rel_pc %x, expected %x' % (rel, e['rel']))
        func = f.get('function')
        if func:
            func = func.replace('> >', '>>')
            base = int(f['offset'], 16) - int(f['function_offset'], 16)
            # ARM: the offset of the instruction, Thumb bit cleared.
            off = (adj_abs & ~1 if arch == 'arm' else adj_abs) - (base & ~1 if arch == 'arm' else base)
        else:
            off = None
        if (func or None) != e['func'] or (func and off != e['off']):
            what.append('function %s+%s, expected %s+%s' % (func, off, e['func'], e['off']))
        if i in pc_sp:
            want_pc, want_sp = pc_sp[i]
            sp = int(regs[SP_REG[arch]], 16) if SP_REG[arch] in regs else None
            if want_pc is not None and adj_abs != want_pc:
                what.append('pc %x, expected %x' % (adj_abs, want_pc))
            if want_sp is not None and sp != want_sp:
                what.append('sp %s, expected %x' % ('%x' % sp if sp is not None else None, want_sp))
        if what:
            problems.append('#%02d (%s): %s' % (i, f.get('trust'), '; '.join(what)))
    if restored_exact:
        print('       (%s: frames %s are interrupted contexts, printed at their exact pc)'
              % (case, ','.join('#%02d' % i for i in restored_exact)))
    if dex and not problems:
        print('       (%s: %d dex-pc frames, as libunwindstack)' % (case, dex))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--work', default=None)
    ap.add_argument('--case', action='append')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    require_corpus(args.corpus, 'libunwindstack', 'libunwindstack')
    root = os.path.join(args.corpus, 'libunwindstack')
    if args.work is None:
        args.work = os.path.join(os.getcwd(), 'libunwindstack-work')
    os.makedirs(args.work, exist_ok=True)
    cases = []
    with open(os.path.join(root, 'cases.tsv')) as f:
        next(f)
        for line in f:
            c = line.rstrip('\n').split('\t')
            cases.append((c[0], c[1], c[6]))
    passed = failed = 0
    for case, arch, extra in cases:
        if args.case and case not in args.case:
            continue
        try:
            problems = compare_case(args, case, arch, extra)
        except (subprocess.TimeoutExpired, ValueError, KeyError) as exc:
            problems = ['error: %r' % exc]
        known = KNOWN_DIFFERENCES.get(case)
        if problems and known and sorted(known[0]) == sorted(p.split(' ')[0] for p in problems):
            print('ok   %s (named difference: %s)' % (case, known[1]))
            passed += 1
        elif problems:
            print('FAIL %s' % case)
            for p in problems[:40 if args.v else 6]:
                print('       ' + p)
            failed += 1
        else:
            print('ok   %s' % case)
            passed += 1
    return summary('libunwindstack', passed, failed)


if __name__ == '__main__':
    sys.exit(main())
