#!/usr/bin/env python3
"""Cores walked on the machine that wrote them, with no option but the
snapshot, frame for frame as gdb walks them (issue 31 items 2 and 4).

Small programs (testdata/localcores) are built here and crashed under gdb,
which prints its backtrace of the crashing thread and writes the core
(`generate-core-file`, as `gcore` does); where the kernel writes cores into
the working folder (core_pattern a plain name, core limit not 0), each
program is also crashed without gdb and gdb's backtrace taken on the
kernel's core. Then, for each core:

- `stackwalk --json CORE` (nothing else: the modules are read at the
  paths the core records, their debug files from /usr/lib/debug, as gdb
  does) must name every frame gdb names, in gdb's order, with as many
  frames (inline frames counted, as gdb counts them);
- the crashing instruction is the one gdb's `x/i $pc` prints (modulo
  syntax), and a segmentation fault's address is one of its memory
  accesses; a read through a non-canonical pointer (reported at address
  0) gets that pointer as its adjusted address; a read through a pointer
  with one bit flipped lists the address it was meant to be among the
  possible bit flips, with the register that held it; a call through a
  pointer with bit 47 flipped gets where it would have gone as its
  instruction pointer update and adjusted address, and the function one
  bit away as a non-canonical bit flip;
- the crash reason is the crashing thread's signal: a two-thread gcore has
  an NT_SIGINFO per thread, and the other thread's says SIGSTOP;
- `--no-local-modules` leaves the program's frames unnamed (the program
  is in no symbol path);
- the program's debug file alone (`--debug-dir` holding it by build-id,
  `--no-local-modules`): names, and one warning that the module has no
  unwind tables;
- the core converted to a .snap (whose files are not read by default)
  walks with `--local-modules` and nothing else as the core does;
- the gcore compressed with zstd and named as systemd-coredump names its
  cores walks as the core does (when the zstd tool is there).

A missing g++ or gdb, or gdb unable to run a program (no ptrace), skips
the cases that need it with a line saying so (exit 77 when nothing ran).

Usage: localcores.py --stackwalk PATH --testdata DIR --work DIR
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys

from swtest import Checks, fresh_dir, run_stackwalk

# The frames gdb finds, one line each: "LCFRAME KIND PC NAME" (gdb's frame
# type: normal, inline, tailcall, sigtramp, ...).
GDB_FRAMES_PY = r"""
import gdb
KINDS = {gdb.NORMAL_FRAME: 'normal', gdb.INLINE_FRAME: 'inline',
         gdb.TAILCALL_FRAME: 'tailcall', gdb.SIGTRAMP_FRAME: 'sigtramp'}
gdb.execute('set disassembly-flavor intel')
gdb.write('LCINSN %s\n' % gdb.execute('x/i $pc', to_string=True).strip().split('\n')[0])
f = gdb.selected_frame()
while f is not None:
    try:
        name = f.name() or '??'
    except gdb.error:
        name = '??'
    gdb.write('LCFRAME %s 0x%x %s\n' % (KINDS.get(f.type(), 'other'), f.pc(),
                                         name.replace(' ', '_')))
    f = f.older()
"""

PROGRAMS = [
    # name, source, compiler, what the crash reason must start with
    ('two_threads', 'two_threads.c', ['gcc', '-pthread'], 'SIGSEGV'),
    ('terminate', 'terminate.cc', ['g++'], 'SIGABRT'),
    ('noncanonical', 'noncanonical.c', ['gcc'], 'SIGSEGV'),
    ('bitflip', 'bitflip.c', ['gcc', '-no-pie'], 'SIGSEGV'),
    ('badcall', 'badcall.c', ['gcc', '-no-pie'], 'SIGSEGV'),
    ('divzero', 'divzero.c', ['gcc'], 'SIGFPE'),
    ('falsefpe', 'falsefpe.c', ['gcc'], 'SIGFPE'),
]


def plain_name(name):
    """A function name as both tools may spell it: without its parameter
    list ('std::terminate()' and 'std::terminate'), and without the
    '__GI_' of glibc's hidden aliases (gdb prints the assembler name
    '__GI_raise' from libc's DWARF; the function is raise)."""
    if not name or name == '??':
        return None
    name = name.split('(')[0].strip()
    return name[len('__GI_'):] if name.startswith('__GI_') else name


def gdb_frames(text):
    """gdb's frames, inline ones included, as [(kind, pc, name)]. Its
    tail-call frames are left out: gdb makes them up from DWARF call-site
    records (DW_TAG_call_site), for a function that jumped to its callee
    and so left no return address; stackwalk walks what is on the stack."""
    frames = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == 'LCFRAME' and parts[1] != 'tailcall':
            frames.append((parts[1], int(parts[2], 16), plain_name(parts[3])))
    return frames


def our_frames(doc):
    """The crashing thread's frames, each frame's inline frames first (as
    gdb lists them): [(kind, pc, name)], pc the call site of a caller."""
    out = []
    thread = doc.get('crashing_thread') or {}
    for fr in thread.get('frames', []):
        pc = int(fr['offset'], 16) if fr.get('offset') else None
        for inl in fr.get('inlines') or []:
            out.append(('inline', pc, plain_name(inl.get('function'))))
        out.append(('normal', pc, plain_name(fr.get('function'))))
    return out


def names(frames):
    return [f[2] for f in frames]


GDB_SETUP = ['-nx', '-batch', '-ex', 'set debuginfod enabled off', '-ex', 'set pagination off',
             '-ex', 'set confirm off', '-ex', 'set backtrace past-main on']


def gdb_backtrace_args(work):
    script = os.path.join(work, 'frames.py')
    if not os.path.isfile(script):
        with open(script, 'w') as f:
            f.write(GDB_FRAMES_PY)
    return ['-ex', 'source ' + script]


def gdb_run(prog, core, cwd):
    """Runs prog under gdb to its fatal signal: gdb's backtrace, and the
    core gdb writes (None when gdb could not run it)."""
    p = subprocess.run(['gdb'] + GDB_SETUP + ['-ex', 'run'] + gdb_backtrace_args(cwd) +
                       ['-ex', 'generate-core-file ' + core, prog],
                       capture_output=True, text=True, cwd=cwd, timeout=120)
    if not os.path.isfile(core):
        return None, p.stdout + p.stderr
    return p.stdout, ''


def kernel_core_possible():
    try:
        pattern = open('/proc/sys/kernel/core_pattern').read().strip()
    except OSError:
        return False
    if not pattern or pattern.startswith('|') or '/' in pattern:
        return False
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    return hard != 0


def kernel_run(prog, cwd):
    """Runs prog natively to its fatal signal: the kernel's core, or None."""
    before = set(os.listdir(cwd))

    def unlimited():
        soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))

    subprocess.run([prog], cwd=cwd, preexec_fn=unlimited, capture_output=True, timeout=60)
    new = [f for f in set(os.listdir(cwd)) - before if f.startswith('core')]
    return os.path.join(cwd, new[0]) if len(new) == 1 else None


def walk(args, argv):
    code, out, err = run_stackwalk(args.stackwalk, argv, timeout=120)
    doc = None
    try:
        doc = json.loads(out)
    except ValueError:
        pass
    return code, doc, err


def compare_with_gdb(checks, what, doc, gdb_text):
    """Frame for frame: as many frames, each physical one at gdb's pc
    (ours is the call site, gdb's the return address: one byte apart at
    most), each named as gdb names it where gdb has a name."""
    ref = gdb_frames(gdb_text)
    ours = our_frames(doc)
    checks.check(len(ref) >= 3, '%s: gdb found %d frames' % (what, len(ref)))
    checks.check(len(ours) == len(ref), '%s: %d frames, gdb %d: ours %s, gdb %s'
                 % (what, len(ours), len(ref), names(ours), names(ref)))
    for i, (kind, pc, name) in enumerate(ref):
        if i >= len(ours):
            break
        okind, opc, oname = ours[i]
        if name is not None:
            checks.check(oname == name, '%s: frame %d is %s, gdb says %s' % (what, i, oname, name))
        if kind != 'inline' and okind != 'inline':
            checks.check(opc is not None and 0 <= pc - opc <= 1,
                         '%s: frame %d (%s) at %s, gdb 0x%x' % (what, i, name,
                                                                hex(opc) if opc else None, pc))


def insn_key(text):
    """An instruction as both print it, modulo syntax: gdb's `x/i $pc`
    (Intel flavor: "=> 0x4011b6 <main+16>:\tmov    DWORD PTR [rax],0x1")
    and our crash_info.instruction ("mov dword [rax], 0x1"): the address
    and symbols gdb adds, "ptr", case and spaces left out, a negative
    immediate as we print it."""
    if text is None:
        return None
    text = text.split(':\t', 1)[1] if ':\t' in text else text
    text = re.sub(r'<[^>]*>', '', text).lower().replace(' ptr ', ' ')
    # A negative immediate: ours "-0xfff", gdb's its 64-bit two's
    # complement ("0xfffffffffffff001").
    text = re.sub(r'(?<![\w])0x[0-9a-f]{16}\b',
                  lambda m: ('-0x%x' % ((1 << 64) - int(m.group(0), 16))
                             if int(m.group(0), 16) >> 63 else m.group(0)), text)
    return re.sub(r'\s+', '', text)


def gdb_instruction(text):
    for line in text.splitlines():
        if line.startswith('LCINSN '):
            return line[len('LCINSN '):]
    return None


def check_core(args, checks, what, prog, core, gdb_text, reason):
    code, doc, err = walk(args, ['--json', core])
    checks.check(code == 0 and doc is not None, '%s: exit %s (%s)' % (what, code, err.strip()[:300]))
    if doc is None:
        return
    crash = (doc.get('crash_info') or {}).get('type') or ''
    checks.check(crash.startswith(reason), '%s: crash reason %r, want %s' % (what, crash, reason))
    compare_with_gdb(checks, what, doc, gdb_text)
    # The crashing instruction, as gdb's x/i $pc reads it (issue 33).
    ours, theirs = (doc.get('crash_info') or {}).get('instruction'), gdb_instruction(gdb_text)
    checks.check(theirs is not None and insn_key(ours) == insn_key(theirs),
                 '%s: crash instruction %r, gdb %r' % (what, ours, theirs))
    # A fault on a data access: the instruction's accesses hold its address,
    # or for a non-canonical one (reported as 0) the address really used.
    ci = doc.get('crash_info') or {}
    addrs = [a.get('address') for a in ci.get('memory_accesses') or []]
    adjusted = ci.get('adjusted_address')
    if os.path.basename(prog) == 'noncanonical':
        want = {'kind': 'non-canonical', 'address': '0x4141414141410001'}
        checks.check(adjusted == want and want['address'] in addrs,
                     '%s: adjusted address %s, memory accesses %s' % (what, adjusted, addrs))
    if os.path.basename(prog) == 'bitflip':
        # The global the pointer was meant to name, one bit (40) away.
        nm = subprocess.run(['nm', prog], capture_output=True, text=True).stdout
        target = [int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(' target')]
        flips = ci.get('possible_bit_flips') or []
        want = '0x%016x' % target[0] if target else None
        checks.check(any(f.get('address') == want and f.get('source_register')
                         for f in flips),
                     '%s: bit flips %s, want %s from a register' % (what, flips, want))
    if os.path.basename(prog) == 'badcall':
        # The call's target, the function's address with bit 47 set.
        nm = subprocess.run(['nm', prog], capture_output=True, text=True).stdout
        callee = [int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(' callee')]
        fn = callee[0] if callee else 0
        bad = '0x%016x' % (fn ^ (1 << 47))
        ipu = ci.get('instruction_pointer_update')
        flips = ci.get('possible_bit_flips') or []
        checks.check(ipu == {'address': bad} and
                     adjusted == {'kind': 'non-canonical', 'address': bad} and
                     any(f.get('address') == '0x%016x' % fn and
                         (f.get('details') or {}).get('was_non_canonical') for f in flips),
                     '%s: pc update %s, adjusted %s, bit flips %s; want %s from %s'
                     % (what, ipu, adjusted, flips, bad, hex(fn)))
    if reason == 'SIGSEGV' and os.path.basename(prog) not in ('noncanonical', 'badcall'):
        # A read through NULL (two_threads) is a null pointer plus its
        # offset, the address reported.
        low = int(ci.get('address') or '0', 16) < 0x10000
        checks.check(ci.get('address') in addrs and
                     (adjusted is None or
                      (low and adjusted == {'kind': 'null-pointer',
                                            'offset': ci.get('address')})),
                     '%s: memory accesses %s, crash address %s, adjusted %s'
                     % (what, addrs, ci.get('address'), adjusted))
    # The reason disagrees with the instruction only where the program
    # made it so: a SIGFPE saying "divide by zero" sent at a system call.
    want_inconsistent = (['int_div_by_zero_not_possible']
                         if os.path.basename(prog) == 'falsefpe' else [])
    checks.check(ci.get('crash_inconsistencies') == want_inconsistent,
                 '%s: crash inconsistencies %s, want %s'
                 % (what, ci.get('crash_inconsistencies'), want_inconsistent))
    program_frames = [i for i, f in enumerate((doc.get('crashing_thread') or {}).get('frames', []))
                      if (f.get('module') or '') == os.path.basename(prog)]
    checks.check(bool(program_frames), '%s: no frame in the program' % what)

    # Without the files at the recorded paths, the program has no names.
    code, bare, err = walk(args, ['--json', '--no-local-modules', '--debug-dir=', core])
    if bare is not None:
        frames = (bare.get('crashing_thread') or {}).get('frames', [])
        named = [f.get('function') for f in frames if f.get('module') == os.path.basename(prog)
                 and f.get('function')]
        checks.check(not named, '%s --no-local-modules: program frames named %s' % (what, named))
    else:
        checks.check(False, '%s --no-local-modules: exit %s' % (what, code))


def debug_only(args, checks, what, prog, core, work):
    """Names from a debug file whose binary is not at hand: used, with
    one warning that the module has no unwind tables."""
    build_id = None
    out = subprocess.run(['readelf', '-n', prog], capture_output=True, text=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    if not m:
        checks.check(False, '%s: the program has no build-id' % what)
        return
    build_id = m.group(1)
    ddir = fresh_dir(os.path.join(work, 'debugdir'))
    dst = os.path.join(ddir, '.build-id', build_id[:2], build_id[2:] + '.debug')
    os.makedirs(os.path.dirname(dst))
    subprocess.run(['objcopy', '--only-keep-debug', prog, dst], check=True)
    code, doc, err = walk(args, ['--json', '--no-local-modules', '--debug-dir=' + ddir, core])
    checks.check(doc is not None, '%s debug file only: exit %s' % (what, code))
    if doc is None:
        return
    top = ((doc.get('crashing_thread') or {}).get('frames') or [{}])[0]
    checks.check(top.get('function') == 'store_null',
                 '%s debug file only: frame 0 is %s' % (what, top.get('function')))
    warned = [l for l in err.splitlines() if 'no unwind tables' in l]
    checks.check(len(warned) == 1 and dst in warned[0],
                 '%s debug file only: want one "no unwind tables" warning naming %s, got %s'
                 % (what, dst, err.strip()[:400]))


def snap_local_modules(args, checks, what, core, work):
    """A .snap's modules are not read from their paths by default;
    --local-modules alone (no symbol path) reads them."""
    snap = os.path.join(work, 'converted.snap')
    code, out, err = run_stackwalk(args.stackwalk, ['convert', core, snap], timeout=120)
    if code != 0:
        checks.check(False, '%s: convert exit %s (%s)' % (what, code, err.strip()[:200]))
        return
    _, from_core, _ = walk(args, ['--json', core])
    _, plain, _ = walk(args, ['--json', snap])
    _, local, _ = walk(args, ['--json', '--local-modules', snap])
    if not (from_core and plain and local):
        checks.check(False, '%s: a .snap walk failed' % what)
        return
    checks.check(names(our_frames(local)) == names(our_frames(from_core)),
                 '%s: the .snap with --local-modules: %s, the core: %s'
                 % (what, names(our_frames(local)), names(our_frames(from_core))))
    checks.check(names(our_frames(plain)) != names(our_frames(from_core)),
                 '%s: the .snap without --local-modules walks as the core does' % what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--testdata', required=True)
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    args.stackwalk = os.path.abspath(args.stackwalk)
    work = fresh_dir(args.work)
    checks = Checks('localcores')
    if not shutil.which('gdb'):
        print('localcores: skipped: no gdb')
        return 77
    ran = 0
    kernel = kernel_core_possible()
    if not kernel:
        print('localcores: kernel cores skipped: core_pattern is not a plain name in the '
              'working folder, or the core limit is 0')
    for name, source, cc, reason in PROGRAMS:
        if not shutil.which(cc[0]):
            print('localcores: %s skipped: no %s' % (name, cc[0]))
            continue
        pdir = fresh_dir(os.path.join(work, name))
        prog = os.path.join(pdir, name)
        subprocess.run(cc + ['-g', '-O0', '-o', prog, os.path.join(args.testdata, 'localcores',
                                                                   source)], check=True)
        core = os.path.join(pdir, 'gcore')
        gdb_text, why = gdb_run(prog, core, pdir)
        if gdb_text is None:
            print('localcores: %s skipped: gdb wrote no core (%s)' % (name, why.strip()[-200:]))
            continue
        ran += 1
        check_core(args, checks, name + ' gcore', prog, core, gdb_text, reason)
        if shutil.which('zstd'):
            # As systemd-coredump stores it: compressed, named for the crash.
            zcore = os.path.join(pdir, 'core.%s.1000.0123456789abcdef.4242.1700000000000000.zst'
                                 % name)
            subprocess.run(['zstd', '-q', '-f', core, '-o', zcore], check=True)
            check_core(args, checks, name + ' gcore .zst', prog, zcore, gdb_text, reason)
        if name == 'two_threads':
            debug_only(args, checks, name + ' gcore', prog, core, pdir)
            snap_local_modules(args, checks, name + ' gcore', core, pdir)
        if kernel:
            kcore = kernel_run(prog, pdir)
            if not kcore:
                checks.check(False, '%s: the kernel wrote no core in %s' % (name, pdir))
                continue
            text = subprocess.run(['gdb'] + GDB_SETUP + gdb_backtrace_args(pdir) + [prog, kcore],
                                  capture_output=True, text=True, timeout=120).stdout
            check_core(args, checks, name + ' kernel core', prog, kcore, text, reason)
    if not ran:
        print('localcores: skipped: nothing ran')
        return 77
    return checks.summary()


if __name__ == '__main__':
    sys.exit(main())
