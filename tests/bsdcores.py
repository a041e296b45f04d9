#!/usr/bin/env python3
"""Real NetBSD amd64 cores (testdata/bsdcores, from LLDB's test suite; its
README.md says where from and how the references were made), and cores
whose register notes the reader cannot decode.

For each core of cases.tsv, walked with `stackwalk [--json] CORE [PROGRAM]`:

- exit 0, status OK; the pid, the thread count and the signalled LWP (the
  crashing thread) of LLDB's TestNetBSDCore.py, SIGSEGV;
- that LWP's frames start with upstream's (bar, foo, main or lwp_main),
  each on the line marked "// Frame NAME";
- every thread's registers at frame 0 are LLDB 14's (`register read`:
  the 16 general registers and rip), and the frames' pcs are
  LLDB's as far as LLDB's are in the program (past it LLDB follows frame
  pointers through libc code the core does not hold);
- no frame follows ___start, the program's entry.

Then cores damaged on purpose, each from a real one: an LWP register note
of another type, the LWP notes' owner renamed, one LWP's of two without
registers. Each must exit 1 with one stderr line naming the file, the
LWP and the notes it did not understand, and JSON status DAMAGED; a
thread it could read is still walked. Never "OK" with "<no frames>". A
core with FreeBSD's notes (made here: stackwalk does not read FreeBSD
cores) likewise exits 1 naming them.

Usage: bsdcores.py --stackwalk PATH --testdata DIR --work DIR
"""
import argparse
import gzip
import json
import os
import re
import struct
import sys

from swtest import Checks, fresh_dir, run_stackwalk

# The registers the text output prints (rflags is read but not printed).
REGS = ('rax', 'rbx', 'rcx', 'rdx', 'rdi', 'rsi', 'rbp', 'rsp', 'r8', 'r9', 'r10', 'r11',
        'r12', 'r13', 'r14', 'r15', 'rip')
ENTRY = '___start'


def read_cases(folder):
    rows = []
    for line in open(os.path.join(folder, 'cases.tsv')):
        if line.startswith('#') or not line.strip():
            continue
        c = line.rstrip('\n').split('\t')
        rows.append(dict(core=c[0], program=c[1], pid=int(c[2]), threads=int(c[3]),
                         lwp=int(c[4]), frames=[] if c[5] == '-' else c[5].split(),
                         lines=[] if c[6] == '-' else [int(x) for x in c[6].split()]))
    return rows


def gunzip(src, dst):
    with gzip.open(src) as f, open(dst, 'wb') as out:
        out.write(f.read())
    return dst


def parse_lldb(path):
    """{tid: {'frames': [pc], 'regs': {name: value}}} from the lldb-14
    transcript: `thread backtrace all`, then `register read` per thread."""
    threads, by_index, cur, regs_of = {}, {}, None, None
    for line in open(path):
        m = re.match(r'^[* ] thread #(\d+): tid = (\d+)', line)
        if m:
            by_index[int(m.group(1))] = int(m.group(2))
            threads.setdefault(int(m.group(2)), {'frames': [], 'regs': {}})
            continue
        m = re.match(r'^\* thread #(\d+), stop reason', line) or \
            re.match(r'^  thread #(\d+), stop reason', line)
        if m:
            cur = by_index.get(int(m.group(1)))
            continue
        m = re.match(r'^\s+\*? ?frame #\d+: (0x[0-9a-f]+)( (\S+)`)?', line)
        if m and cur is not None and regs_of is None:
            threads[cur]['frames'].append((int(m.group(1), 16), m.group(3)))
            continue
        m = re.match(r'^\(lldb\) thread select (\d+)', line)
        if m:
            regs_of = by_index.get(int(m.group(1)))
            continue
        m = re.match(r'^\s+(\w+) = (0x[0-9a-f]+)', line)
        if m and regs_of is not None:
            threads[regs_of]['regs'].setdefault(m.group(1), int(m.group(2), 16))
        if line.startswith('(lldb) register read') and regs_of is None:
            regs_of = next(iter(threads), None)
    return threads


def parse_text(text):
    """[(thread index, [(pc, {reg: value}) per frame])] from the text output."""
    out, cur, regs = {}, None, None
    for line in text.splitlines():
        m = re.match(r'^Thread (\d+)', line)
        if m:
            cur = out.setdefault(int(m.group(1)), [])
            continue
        if line.startswith('Loaded modules'):
            cur = None
            continue
        if cur is None:
            continue
        if re.match(r'^\s?\d+\s+\S', line) and not line.startswith('    '):
            regs = {}
            cur.append(regs)
            continue
        if regs is not None:
            for k, v in re.findall(r'(\w+) = (0x[0-9a-f]+)', line):
                regs[k] = int(v, 16)
    return out


def check_case(args, checks, folder, row):
    name = row['core'][:-len('.core.gz')]
    core = gunzip(os.path.join(folder, row['core']), os.path.join(args.work, name + '.core'))
    prog = [] if row['program'] == '-' else [
        gunzip(os.path.join(folder, row['program']), os.path.join(args.work, name))]
    code, out, err = run_stackwalk(args.stackwalk, ['--json', core] + prog, timeout=60)
    tcode, text, _ = run_stackwalk(args.stackwalk, [core] + prog, timeout=60)
    checks.check(code == 0 and tcode == 0, '%s: exit %s/%s: %s' % (name, code, tcode, err.strip()))
    try:
        doc = json.loads(out)
    except ValueError:
        checks.check(False, '%s: stdout is not JSON' % name)
        return
    checks.check(doc.get('status') == 'OK', '%s: status %r' % (name, doc.get('status')))
    checks.check(doc.get('pid') == row['pid'], '%s: pid %s, upstream %d'
                 % (name, doc.get('pid'), row['pid']))
    threads = doc.get('threads') or []
    checks.check(len(threads) == row['threads'], '%s: %d threads, upstream %d'
                 % (name, len(threads), row['threads']))
    ci = doc.get('crash_info') or {}
    checks.check(ci.get('type') == 'SIGSEGV', '%s: crash %r' % (name, ci.get('type')))
    idx = ci.get('crashing_thread')
    crashed = threads[idx] if isinstance(idx, int) and idx < len(threads) else {}
    checks.check(crashed.get('thread_id') == row['lwp'], '%s: crashing thread %s, upstream LWP %d'
                 % (name, crashed.get('thread_id'), row['lwp']))
    frames = crashed.get('frames') or []
    got = [f.get('function') for f in frames[:len(row['frames'])]]
    checks.check(got == row['frames'], '%s: frames %s, upstream %s' % (name, got, row['frames']))
    lines = [f.get('line') for f in frames[:len(row['lines'])]]
    checks.check(lines == row['lines'], '%s: lines %s, upstream %s' % (name, lines, row['lines']))
    for t in threads:
        names = [f.get('function') for f in t.get('frames') or []]
        if ENTRY in names:
            checks.check(names.index(ENTRY) == len(names) - 1, '%s: thread %s: frames after %s: %s'
                         % (name, t.get('thread_id'), ENTRY, names))
    # Registers and pcs against LLDB's.
    lldb = parse_lldb(os.path.join(folder, name + '.lldb.txt'))
    ours = parse_text(text)
    checks.check(len(lldb) == len(threads), '%s: lldb lists %d threads' % (name, len(lldb)))
    for i, t in enumerate(threads):
        ref = lldb.get(t.get('thread_id'))
        walk = ours.get(i) or []
        if ref is None or not walk:
            checks.check(False, '%s: thread %s: no frames (or not in lldb\'s)' % (name, t.get('thread_id')))
            continue
        for reg in REGS:
            checks.check(walk[0].get(reg) == ref['regs'].get(reg),
                         '%s: thread %s: %s = %s, lldb %s' % (name, t.get('thread_id'), reg,
                                                             walk[0].get(reg), ref['regs'].get(reg)))
        for k, (pc, module) in enumerate(ref['frames']):
            if module is None or (k > 0 and ref['frames'][k - 1][1] is None):
                break  # lldb has left the program: libc, not in the core
            checks.check(k < len(walk) and walk[k].get('rip') == pc,
                         '%s: thread %s frame %d: pc %s, lldb 0x%x'
                         % (name, t.get('thread_id'), k, hex(walk[k].get('rip', 0))
                            if k < len(walk) else 'none', pc))


# ------------------------------------------------------------ damaged cores

def notes_of(data):
    """[(offset of the note header, owner, type)] of every PT_NOTE."""
    phoff, = struct.unpack_from('<Q', data, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
    out = []
    for i in range(phnum):
        typ, _, off, _, _, filesz = struct.unpack_from('<IIQQQQ', data, phoff + i * phentsize)
        if typ != 4:
            continue
        p = off
        while p + 12 <= off + filesz:
            namesz, descsz, ntype = struct.unpack_from('<III', data, p)
            owner = data[p + 12:p + 12 + namesz].rstrip(b'\0').decode('ascii', 'replace')
            out.append((p, owner, ntype))
            p += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
    return out


def damaged(args, checks, folder, label, source, program, change, says, walked_lwp=None):
    """Walks a copy of SOURCE changed by CHANGE(bytearray): exit 1, one
    stderr line naming the file and each of SAYS, JSON status DAMAGED; the
    thread WALKED_LWP, when given, still has frames."""
    data = bytearray(gzip.open(os.path.join(folder, source)).read())
    change(data)
    core = os.path.join(args.work, label + '.core')
    open(core, 'wb').write(data)
    prog = gunzip(os.path.join(folder, program), os.path.join(args.work, label + '.prog'))
    for fmt in ([], ['--json']):
        code, out, err = run_stackwalk(args.stackwalk, fmt + [core, prog], timeout=60)
        lines = [l for l in err.splitlines() if 'warning:' not in l]
        checks.check(code == 1, '%s %s: exit %s, want 1 (%s)' % (label, fmt, code, err.strip()))
        checks.check(len(lines) == 1 and lines[0].startswith('stackwalk: %s: ' % core)
                     and all(s in lines[0] for s in says),
                     '%s: stderr %r should be one line naming the file and %s'
                     % (label, err.strip(), says))
        if fmt:
            try:
                doc = json.loads(out)
            except ValueError:
                checks.check(False, '%s: stdout is not JSON' % label)
                continue
            checks.check(doc.get('status') == 'DAMAGED', '%s: status %r, want DAMAGED'
                         % (label, doc.get('status')))
            if walked_lwp is not None:
                t = next((t for t in doc['threads'] if t.get('thread_id') == walked_lwp), {})
                checks.check(bool(t.get('frames')), '%s: LWP %d is no longer walked'
                             % (label, walked_lwp))
        else:
            checks.check(not (code == 0 and '<no frames>' in out), '%s: OK with <no frames>' % label)


def set_type(owner, old, new):
    def change(data):
        hits = [p for p, o, t in notes_of(bytes(data)) if o == owner and t == old]
        assert hits, 'no %s note of type %d' % (owner, old)
        for p in hits:
            struct.pack_into('<I', data, p + 8, new)
    return change


def rename(old, new):
    def change(data):
        hits = [p for p, o, _ in notes_of(bytes(data)) if o == old]
        assert hits and len(old) == len(new)
        for p in hits:
            data[p + 12:p + 12 + len(new)] = new.encode()
    return change


def freebsd_like_core(path):
    """A small amd64 ELF core whose notes are FreeBSD's ("FreeBSD" NT_PRSTATUS
    (1), NT_PRPSINFO (3), NT_THRMISC (7): sys/sys/procfs.h, elf_common.h),
    which stackwalk does not read: made here, field by field."""
    def note(owner, ntype, desc):
        name = owner.encode() + b'\0'
        pad = lambda b: b + b'\0' * (-len(b) % 4)
        return struct.pack('<III', len(name), len(desc), ntype) + pad(name) + pad(desc)
    notes = note('FreeBSD', 1, bytes(224)) + note('FreeBSD', 3, bytes(120)) + \
        note('FreeBSD', 7, bytes(24))
    ehdr = b'\x7fELF\x02\x01\x01\x09' + bytes(8) + struct.pack(
        '<HHIQQQIHHHHHH', 4, 62, 1, 0, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    phdr = struct.pack('<IIQQQQQQ', 4, 4, 64 + 56, 0, 0, len(notes), 0, 4)
    open(path, 'wb').write(ehdr + phdr + notes)


def check_freebsd(args, checks):
    core = os.path.join(args.work, 'freebsd-like.core')
    freebsd_like_core(core)
    code, out, err = run_stackwalk(args.stackwalk, ['--json', core], timeout=60)
    lines = err.strip().splitlines()
    checks.check(code == 1 and len(lines) == 1 and lines[0].startswith('stackwalk: %s: ' % core)
                 and '"FreeBSD" type 1' in lines[0] and '"FreeBSD" type 3' in lines[0],
                 'a FreeBSD core: exit %s, stderr %r: want exit 1 naming the "FreeBSD" notes'
                 % (code, err.strip()))
    try:
        checks.check(json.loads(out).get('status') == 'DAMAGED', 'a FreeBSD core: not DAMAGED')
    except ValueError:
        checks.check(False, 'a FreeBSD core: stdout is not JSON')


def check_damaged(args, checks, folder):
    one = ('1lwp_SIGSEGV.amd64.core.gz', '1lwp_SIGSEGV.amd64.gz')
    two = ('2lwp_t2_SIGSEGV.amd64.core.gz', '2lwp_t2_SIGSEGV.amd64.gz')
    # PT_GETREGS (33) of LWP 1 given another type: its registers are there
    # but not in a note the reader knows.
    damaged(args, checks, folder, 'regs-type-99', *one, set_type('NetBSD-CORE@1', 33, 99),
            ['LWP 1', 'NetBSD-CORE@1', 'type 33', '99, 35'])
    # The LWP notes' owner renamed: no thread at all.
    damaged(args, checks, folder, 'owner-renamed', *one, rename('NetBSD-CORE@1', 'NetBSD-CXRE@1'),
            ['no thread note', '"NetBSD-CXRE@1" type 33', '"NetBSD-CXRE@1" type 35'])
    # Of two LWPs, LWP 1 without registers: LWP 2, which crashed, is walked.
    damaged(args, checks, folder, 'one-lwp-of-two', *two, set_type('NetBSD-CORE@1', 33, 34),
            ['LWP 1', 'type 33', '34, 35'], walked_lwp=2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--testdata', required=True)
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    fresh_dir(args.work)
    folder = os.path.join(args.testdata, 'bsdcores')
    checks = Checks('bsdcores')
    for row in read_cases(folder):
        check_case(args, checks, folder, row)
    check_damaged(args, checks, folder)
    check_freebsd(args, checks)
    print('bsdcores: %d passed, %d failed' % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == '__main__':
    sys.exit(main())
