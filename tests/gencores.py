#!/usr/bin/env python3
"""Conformance over the generated cores of testdata/cores (gen_cores.sh).

Each fixture testdata/cores/ARCH-FLAVOUR/CASE holds core.gz (the core of
`crash CASE`), gdb.txt (gdb-multiarch's backtrace of the same crash) and,
in ARCH-FLAVOUR/, the program and library as they ran (stripped in the
nounwind flavour, with the unstripped copies in symbols/). For each
fixture the core is decompressed into the work directory and walked with

    stackwalk --json CORE [ARCH-FLAVOUR/symbols] ARCH-FLAVOUR LIBC_DIR

On riscv64, whose qemu-user writes no core, CASE itself is an offline
snapshot folder (regs.txt, maps.txt, links.txt, stack*.data: the crashing
thread captured through qemu's gdb stub at the fatal signal) and is
walked in place of CORE, with the same symbol paths and the same checks.

where LIBC_DIR is this machine's copy of the libc the program ran with
(Debian 12's: /lib/x86_64-linux-gnu, /lib32 for i386, or the cross sysroot
/usr/TRIPLE/lib; stackwalk refuses a file of another build by its
build-id). The crashing thread's frames (inline frames expanded,
innermost first) are compared with gdb's `bt` of the crashing thread:

- the walk has at least as many frames as gdb shows (gdb stops at main);
- frame i has gdb's function name; gdb's `??` (no symbol: static functions
  of the stripped libc, a NULL pc) and `<signal handler called>` (the
  sigreturn trampoline) match any frame there; two names of one address in
  the module (raise/gsignal) are equal, and so are GCC's names for a part
  of a function (do_abort.cold, gdb's do_abort[cold]) and the function;
- where gdb prints frame i's pc, the walker's is the same (frame 0) or the
  call site just before gdb's return address (callers: stackwalk reports
  the return address - 1 on x86, per the CPU, docs/json.md `offset`). The
  x86_64 references are gdb on the very core; the qemu references are gdb
  on a second run under qemu-user's gdb stub, which qemu lays out at the
  same addresses.

In the nounwind flavour (no CFI in the program and library) gdb.txt is
gdb's own walk with the unstripped copies, which may stop early or go
astray; gdb-unwind.txt, gdb on the same case built with unwind tables
(O2nofp: the same code on x86_64 and MIPS, checked with objdump; aarch64
keeps frame records without unwind tables), is then the reference for the
names and the length, and gdb.txt's pcs are checked as far as its names
agree with it.

The nounwind fixtures are walked a second time without symbols/ (the
stripped program only, "nosyms"): the walk must still reach a frame whose
pc is in main (by the unstripped copy's symbol table), by prologue analysis
or backward search; in a second thread, which never runs main, the
reference's outermost function of the program (thread_main), and then as
many frames past it as the reference has (glibc's start_thread).

Every run's module list must name the program, libcrashlib.so, libc.so.6
and the dynamic loader (the program's PT_INTERP), each with the build-id
of the file it ran from (the fixture's, or the one in LIBC_DIRS): the
qemu-user cores have no NT_FILE and none of the ELF header pages, so the
modules come from the loader's link_map chain, where the loader's own
entry names it by the PT_INTERP string in the program's first page, which
is not in the core either (docs/cli.md, "ELF cores").

Every run must exit below 128. A difference passes only when
KNOWN_DIFFERENCES names it with the evidence (and, where
KNOWN_DIFFERENCE_PROBLEMS pins the problems it shows, only those); a listed
difference that no longer happens fails (the list must stay true).

Usage: gencores.py --stackwalk PATH [--fixtures DIR] [--work DIR]
                   [--case SUBSTR] [-v]
Prints one line per case and "gencores: N passed, N failed".
"""
import argparse
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

# "ARCH-FLAVOUR/CASE" or "ARCH-FLAVOUR/CASE nosyms" -> why the difference
# is right. The check that differs is named in the message; all of a
# case's differences are excused together.
_ARM_SIGFRAME = ("gdb 13.1 through qemu-arm 7.2's stub misreads the interrupted "
    "context after <signal handler called>: pc 0x0, then '__stack_chk_guard' in "
    "ld-linux-armhf.so.3 and 'previous frame identical' (gdb.txt); the walker "
    "continues through glibc's __default_rt_sa_restorer to the interrupted code "
    "(signal: 2 pthread_kill frames, raise, raise_usr1, main; sigspin: "
    "spin_until_signalled, main), as on every other CPU")
_PPC64_SIGFRAME = ("gdb 13.1 through qemu-ppc64le 7.2's stub does not take qemu's sigreturn "
    "trampoline page (frame 1, 0x4002884008: li r0,172; sc) for a signal frame, so its frame "
    "2 is 0x4002821e18, an address on the thread's stack (the stack mapping ends at "
    "0x4002822000), in no module; the walker restores the interrupted context from the "
    "rt_sigframe (sigcontext.regs at r1 + 368 points at gp_regs just after it) and goes on "
    "from the interrupted pc in libc's pthread_kill to raise, raise_usr1, main, as on every "
    "other CPU")
_PPC64_SIGSPIN = ("gdb 13.1 through qemu-ppc64le 7.2's stub does not take qemu's sigreturn "
    "trampoline page (frame 1, 0x4002884008) for a signal frame and skips the interrupted "
    "spin_until_signalled, reaching main by the back chain with a stale link-register save "
    "word (O2fp: frame 2 0x4002821e18 on the stack, then main at 0x4000000ec4; O2nofp: main "
    "at 0x4000000eb8; each the return from main's earlier call of pthread_create); the "
    "walker restores the interrupted context from the rt_sigframe: spin_until_signalled, "
    "then main at its call of spin_until_signalled (0x4000000ecc in O2fp, 0x4000000ec0 in "
    "O2nofp), as on every other CPU")
KNOWN_DIFFERENCES = {
    'arm-O0/signal': _ARM_SIGFRAME,
    'arm-O2fp/signal': _ARM_SIGFRAME,
    'arm-O2fp/sigspin': _ARM_SIGFRAME,
    'arm-O2nofp/signal': _ARM_SIGFRAME,
    'arm-O2nofp/sigspin': _ARM_SIGFRAME,
    'ppc64le-O0/signal': _PPC64_SIGFRAME,
    'ppc64le-O2fp/signal': _PPC64_SIGFRAME,
    'ppc64le-O2nofp/signal': _PPC64_SIGFRAME,
    'ppc64le-O2fp/sigspin': _PPC64_SIGSPIN,
    'ppc64le-O2nofp/sigspin': _PPC64_SIGSPIN,
}
# The problems a listed difference may show, when they can be pinned: any
# other (a walk that ends short again, another frame) fails the case.
_GDB_STACK_PC = r'frame 2 \(\?\?\): pc 0x[0-9a-f]+, gdb 0x4002821e18'
KNOWN_DIFFERENCE_PROBLEMS = {
    'ppc64le-O0/signal': _GDB_STACK_PC,
    'ppc64le-O2fp/signal': _GDB_STACK_PC,
    'ppc64le-O2nofp/signal': _GDB_STACK_PC,
    'ppc64le-O2fp/sigspin': _GDB_STACK_PC +
        r'|frame 3 \(main\): pc 0x4000000ecc, gdb 0x4000000ec4',
    'ppc64le-O2nofp/sigspin': r'frame 2: spin_until_signalled, gdb main'
        r'|frame 2 \(main\): pc 0x[0-9a-f]+, gdb 0x4000000eb8',
}

# Walks that end short of gdb's today: not differences where ours is right
# but work still to do (issue 10), pinned here so that each shows as a gap,
# counted neither passed nor failed, and a gap that closes fails until it
# is taken off this list.
KNOWN_GAPS = {}

# CPU -> where this machine keeps the libc and the dynamic loader the
# fixture ran with (every folder that exists is given).
LIBC_DIRS = {
    'x86_64': ['/lib/x86_64-linux-gnu'],
    'i386': ['/lib32'],  # libc6-i386: gen_cores.sh runs i386 with sysroot /
    'aarch64': ['/usr/aarch64-linux-gnu/lib'],
    'arm': ['/usr/arm-linux-gnueabihf/lib'],
    'mips': ['/usr/mips-linux-gnu/lib'],
    'mipsel': ['/usr/mipsel-linux-gnu/lib'],
    # n64's loader is /lib64/ld.so.1, its libc in lib/
    'mips64el': ['/usr/mips64el-linux-gnuabi64/lib', '/usr/mips64el-linux-gnuabi64/lib64'],
    'ppc64le': ['/usr/powerpc64le-linux-gnu/lib'],
    'riscv64': ['/usr/riscv64-linux-gnu/lib'],
}

# The modules every fixture's process had, besides its dynamic loader.
EXPECTED_MODULES = ('crash', 'libcrashlib.so', 'libc.so.6')

GDB_FRAME = re.compile(
    r'^#(\d+)\s+(?:(0x[0-9a-fA-F]+) in )?(<signal handler called>|\S+)')
WILDCARDS = ('??', '<signal handler called>')


def gdb_crashing_frames(path):
    """[(name, pc or None)] of gdb's `bt` of the crashing thread."""
    frames = []
    section = False
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('=== crashing thread'):
                section = True
                continue
            if line.startswith('=== '):
                section = False
                continue
            m = GDB_FRAME.match(line) if section else None
            if m:
                pc = int(m.group(2), 16) if m.group(2) else None
                frames.append((m.group(3), pc))
    return frames


# GCC's names for parts and clones of a function (do_abort.cold, f.part.0,
# f.isra.0, f.constprop.0; gdb says do_abort[cold] from the ELF symbol table)
# name the function of the source.
CLONE_SUFFIX = re.compile(r'(\[cold\]|\.(cold|part|isra|constprop|lto_priv)(\.\d+)*)+$')


def base_name(name):
    return CLONE_SUFFIX.sub('', name) if name else name


def walker_frames(doc):
    """[(name, pc, trust)] of the crashing thread, inline frames expanded."""
    out = []
    thread = doc.get('crashing_thread') or {}
    for fr in thread.get('frames', []):
        pc = int(fr['offset'], 16) if fr.get('offset') else None
        for inl in fr.get('inlines') or []:
            out.append((inl.get('function'), pc, fr.get('trust')))
        out.append((fr.get('function'), pc, fr.get('trust')))
    return out


_symbol_cache = {}


def symbol_values(path):
    """name -> value of an ELF file's symbols (nm, both tables)."""
    if path not in _symbol_cache:
        values = {}
        for extra in ([], ['-D']):
            try:
                out = subprocess.run(['nm', '--defined-only'] + extra + [path],
                                     capture_output=True, text=True).stdout
            except OSError:
                out = ''
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3:
                    values.setdefault(parts[2].split('@')[0], int(parts[0], 16))
        _symbol_cache[path] = values
    return _symbol_cache[path]


def aliases(name_a, name_b, module, dirs):
    """True when both names are symbols at one address of MODULE's file."""
    if not module:
        return False
    for d in dirs:
        path = os.path.join(d, module)
        if os.path.isfile(path):
            values = symbol_values(path)
            if name_a in values and values.get(name_a) == values.get(name_b):
                return True
    return False


def module_of_frame(doc, index):
    """The module name of expanded frame INDEX of the crashing thread."""
    n = 0
    for fr in (doc.get('crashing_thread') or {}).get('frames', []):
        n += len(fr.get('inlines') or []) + 1
        if index < n:
            return fr.get('module')
    return None


def same_name(gname, wname, doc, i, dirs):
    return (gname in WILDCARDS or base_name(wname) == base_name(gname)
            or aliases(gname, wname, module_of_frame(doc, i), dirs))


def compare(gdb, ref, walk, doc, dirs):
    """Problems (strings) of the walk against gdb's frames.

    GDB: gdb's frames on this core (or this program under the stub); REF:
    the reference for the names, GDB itself or, without unwind tables, gdb
    on the same code built with them (gdb-unwind.txt)."""
    problems = []
    if len(walk) < len(ref):
        problems.append('walk has %d frames, gdb %d' % (len(walk), len(ref)))
    for i, (gname, _) in enumerate(ref):
        if i < len(walk) and not same_name(gname, walk[i][0], doc, i, dirs):
            problems.append('frame %d: %s, gdb %s' % (i, walk[i][0], gname))
    # pcs: gdb's own frames, as far as its names agree with the reference.
    # gdb prints a caller's return address; stackwalk the call site (the
    # return address - 1 on x86, per the CPU: docs/json.md, `offset`).
    for i, (gname, gpc) in enumerate(gdb):
        if i >= len(walk) or (i < len(ref) and gname != ref[i][0]):
            break
        wpc = walk[i][1]
        if gpc is None or wpc is None:
            continue
        if gpc != wpc if i == 0 else not 0 <= gpc - wpc <= 8:
            problems.append('frame %d (%s): pc 0x%x, gdb 0x%x' % (i, gname, wpc, gpc))
    return problems


def function_range(path, name):
    """(start, end) of function NAME in the ELF file PATH, and whether the
    file is position-independent (ET_DYN: addresses are module offsets)."""
    with open(path, 'rb') as f:
        head = f.read(18)
    e_type = int.from_bytes(head[16:18], 'little' if head[5] == 1 else 'big')
    out = subprocess.run(['nm', '-S', '--defined-only', path],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == name:
            start = int(parts[0], 16)
            return start, start + int(parts[1], 16), e_type == 3
    return None


def outermost_program_function(ref, path):
    """The last of the reference's frames named by a function of the
    program PATH (main; thread_main in a second thread), and how many
    frames the reference has past it."""
    for i in range(len(ref) - 1, -1, -1):
        if ref[i][0] not in WILDCARDS and function_range(path, ref[i][0]):
            return ref[i][0], len(ref) - 1 - i
    return 'main', 0


def reaches_function(doc, exe_name, rng):
    """The number of frames of the crashing thread past the first whose pc
    is in RNG, or None when none is."""
    start, end, pie = rng
    frames = (doc.get('crashing_thread') or {}).get('frames', [])
    for i, fr in enumerate(frames):
        if fr.get('module') != exe_name:
            continue
        key = 'module_offset' if pie else 'offset'
        if fr.get(key) and start <= int(fr[key], 16) < end:
            return len(frames) - 1 - i
    return None


def elf_identity(path):
    """(PT_INTERP string or None, GNU build-id as hex or None) of an ELF
    file, from its program headers."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError:
        return None, None
    if data[:4] != b'\x7fELF':
        return None, None
    is64 = data[4] == 2
    e = '<' if data[5] == 1 else '>'
    interp = build_id = None
    try:
        if is64:
            phoff, = struct.unpack_from(e + 'Q', data, 0x20)
            phentsize, phnum = struct.unpack_from(e + 'HH', data, 0x36)
        else:
            phoff, = struct.unpack_from(e + 'I', data, 0x1c)
            phentsize, phnum = struct.unpack_from(e + 'HH', data, 0x2a)
        for i in range(phnum):
            o = phoff + i * phentsize
            if is64:
                typ, _, off, _, _, filesz = struct.unpack_from(e + 'IIQQQQ', data, o)
            else:
                typ, off, _, _, filesz = struct.unpack_from(e + 'IIIII', data, o)
            if typ == 3:  # PT_INTERP
                interp = data[off:off + filesz].split(b'\0')[0].decode('utf-8', 'replace')
            elif typ == 4:  # PT_NOTE
                p, end = off, off + filesz
                while p + 12 <= end:
                    namesz, descsz, ntype = struct.unpack_from(e + 'III', data, p)
                    name_at, desc_at = p + 12, p + 12 + ((namesz + 3) & ~3)
                    if ntype == 3 and data[name_at:name_at + namesz] == b'GNU\0':
                        build_id = data[desc_at:desc_at + descsz].hex()
                    p = desc_at + ((descsz + 3) & ~3)
    except struct.error:
        pass
    return interp, build_id


ANALYSED = {'instruction': 0, 'accesses': 0}


def check_crash_analysis(doc):
    """Issue 33 on real cores: a segmentation fault's address is one of the
    crashing instruction's memory accesses, where they are known (x86,
    amd64, arm64), the instruction is there wherever its code is, and no
    crash inconsistency is claimed."""
    ci = doc.get('crash_info') or {}
    if ci.get('instruction'):
        ANALYSED['instruction'] += 1
    # Real crashes, each reported by the kernel (or qemu) as it happened:
    # the reason never disagrees with the instruction.
    if ci.get('crash_inconsistencies'):
        return ['crash %s at %r: inconsistencies %s' % (
            ci.get('type'), ci.get('instruction'), ci.get('crash_inconsistencies'))]
    acc = ci.get('memory_accesses')
    if not acc or not (ci.get('type') or '').startswith('SIGSEGV'):
        return []
    ANALYSED['accesses'] += 1
    addrs = [a.get('address') for a in acc]
    if ci.get('address') in addrs or (ci.get('adjusted_address') or {}).get('address') in addrs:
        return []
    return ['crash address %s is none of %r\'s memory accesses %s'
            % (ci.get('address'), ci.get('instruction'), addrs)]


def check_modules(doc, dirs):
    """Problems (strings) of the walk's module list: each of
    EXPECTED_MODULES and the program's dynamic loader must be there, with
    the build-id of its file in DIRS (the first folder holding a file of
    that name)."""
    def find(name):
        for d in dirs:
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return path
        return None

    exe = find('crash')
    interp = elf_identity(exe)[0] if exe else None
    wanted = list(EXPECTED_MODULES) + ([os.path.basename(interp)] if interp else [])
    if not interp:
        return ['crash has no PT_INTERP']
    problems = []
    modules = {m.get('filename'): m for m in doc.get('modules') or []}
    for name in wanted:
        path = find(name)
        want = elf_identity(path)[1] if path else None
        mod = modules.get(name)
        if not mod:
            problems.append('module %s missing (modules: %s)' % (name, ' '.join(sorted(
                str(k) for k in modules))))
        elif want and mod.get('code_id') != want:
            problems.append('module %s: code_id %s, its file %s' % (
                name, mod.get('code_id'), want))
    return problems


def run_walker(stackwalk, core, dirs):
    # Only the files given: the gdb references were made without libc's
    # debug file (libc6-dbg), and a 'nosyms' run must not find the
    # program at the path the core records.
    proc = subprocess.run([stackwalk, '--json', '--no-local-modules', '--debug-dir=', core] + dirs,
                          capture_output=True, text=True)
    doc = None
    if proc.stdout.strip():
        try:
            doc = json.loads(proc.stdout)
        except ValueError:
            doc = None
    return proc, doc


def describe(walk):
    return ' '.join('%s[%s]' % (n or '?', t) for n, _, t in walk)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--fixtures', default=os.path.join(here, '..', 'testdata', 'cores'))
    ap.add_argument('--work')
    ap.add_argument('--case', default='')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()

    work = args.work or tempfile.mkdtemp(prefix='gencores.')
    os.makedirs(work, exist_ok=True)
    passed = failed = 0
    unused_known = set(KNOWN_DIFFERENCES)

    fixtures = os.path.abspath(args.fixtures)
    for af in sorted(os.listdir(fixtures)):
        adir = os.path.join(fixtures, af)
        if not os.path.isfile(os.path.join(adir, 'crash')):
            continue
        arch, flavour = af.rsplit('-', 1)
        libc = [d for d in LIBC_DIRS.get(arch, []) if os.path.isdir(d)]
        if not libc:
            # The C library the fixtures ran with comes from Debian's
            # libc6-*-cross packages (scripts/setup.sh installs them).
            print('skip %s: no %s' % (af, ' or '.join(LIBC_DIRS.get(arch, ['libc']))))
            continue
        syms = os.path.join(adir, 'symbols')
        for case in sorted(os.listdir(adir)):
            cdir = os.path.join(adir, case)
            offline = all(os.path.isfile(os.path.join(cdir, f))
                          for f in ('regs.txt', 'maps.txt'))
            if not offline and not os.path.isfile(os.path.join(cdir, 'core.gz')):
                continue
            name = '%s/%s' % (af, case)
            if args.case not in name:
                continue
            if offline:
                core = cdir  # the folder is the snapshot: nothing to unpack
            else:
                core = os.path.join(work, af, case, 'core')
                os.makedirs(os.path.dirname(core), exist_ok=True)
                with gzip.open(os.path.join(cdir, 'core.gz')) as src, open(core, 'wb') as dst:
                    shutil.copyfileobj(src, dst)
            gdb = gdb_crashing_frames(os.path.join(cdir, 'gdb.txt'))
            ref = gdb
            if os.path.isfile(os.path.join(cdir, 'gdb-unwind.txt')):
                ref = gdb_crashing_frames(os.path.join(cdir, 'gdb-unwind.txt'))

            runs = []
            if os.path.isdir(syms):
                runs.append((name, [syms, adir] + libc, 'names'))
                runs.append((name + ' nosyms', [adir] + libc, 'main'))
            else:
                runs.append((name, [adir] + libc, 'names'))
            for label, dirs, mode in runs:
                proc, doc = run_walker(args.stackwalk, core, dirs)
                problems = []
                if proc.returncode >= 128 or proc.returncode < 0:
                    problems.append('exit %d' % proc.returncode)
                if 'Sanitizer' in proc.stderr:
                    problems.append('sanitizer report')
                walk = walker_frames(doc) if doc else []
                if not doc:
                    problems.append('no JSON (exit %d: %s)' % (
                        proc.returncode, proc.stderr.strip().splitlines()[-1:] or ''))
                # Not a difference the lists below can excuse: every run
                # must find every module.
                module_problems = check_modules(doc, dirs) if doc else []
                module_problems += check_crash_analysis(doc) if doc else []
                if doc and not gdb:
                    problems.append('gdb.txt has no frames of the crashing thread')
                elif doc and mode == 'names':
                    problems += compare(gdb, ref, walk, doc, dirs)
                elif doc:
                    exe = os.path.join(syms, 'crash')
                    target, beyond = outermost_program_function(ref, exe)
                    rng = function_range(exe, target)
                    past = reaches_function(doc, 'crash', rng) if rng else None
                    if not rng:
                        problems.append('symbols/crash has no %s' % target)
                    elif past is None:
                        problems.append("no frame in %s (walk: %s)" % (target, describe(walk)))
                    elif past < beyond:
                        problems.append("%d frames past %s, gdb %d (walk: %s)" % (
                            past, target, beyond, describe(walk)))
                if module_problems:
                    print('FAIL %s: %s' % (label, '; '.join(module_problems + problems)))
                    unused_known.discard(label)
                    failed += 1
                    continue
                gap = KNOWN_GAPS.get(label)
                if gap:
                    if problems:
                        print('gap  %s: %s (%s)' % (label, '; '.join(problems), gap))
                    else:
                        print('FAIL %s: listed in KNOWN_GAPS but walks right now' % label)
                        failed += 1
                    continue
                known = KNOWN_DIFFERENCES.get(label)
                pinned = KNOWN_DIFFERENCE_PROBLEMS.get(label)
                other = [p for p in problems if pinned and not re.fullmatch(pinned, p)]
                if known:
                    unused_known.discard(label)
                    if other:
                        print('FAIL %s: %s (not the listed difference: %s)' % (
                            label, '; '.join(other), known))
                        failed += 1
                    elif problems:
                        print('ok   %s (known difference: %s; %s)' % (
                            label, '; '.join(problems), known))
                        passed += 1
                    else:
                        print('FAIL %s: listed in KNOWN_DIFFERENCES but walks right now'
                              % label)
                        failed += 1
                elif problems:
                    print('FAIL %s: %s' % (label, '; '.join(problems)))
                    if args.verbose:
                        print('     gdb:  %s' % ' '.join(n for n, _ in ref))
                        print('     walk: %s' % describe(walk))
                    failed += 1
                else:
                    print('ok   %s' % label)
                    if args.verbose:
                        print('     walk: %s' % describe(walk))
                    passed += 1
    for label in sorted(unused_known):
        if args.case in label:
            print('FAIL %s: listed in KNOWN_DIFFERENCES but not run' % label)
            failed += 1
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    print('gencores: crash analysis: %d walks with the crashing instruction, %d segmentation '
          'faults checked against its memory accesses' % (ANALYSED['instruction'], ANALYSED['accesses']))
    print('gencores: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
