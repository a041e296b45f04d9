#!/usr/bin/env python3
"""ELF/DWARF symbols end to end, over the real corpus.

1. symbolic/linux/mini.dmp walked with its ELF files (crash + crash.debug)
   against the same dump walked with Breakpad's crash.sym: the same
   physical frames, functions and trust, except the scanned frames that the
   binary's code proves invented (the bytes before them are not a call),
   plus the inline frames and lines only DWARF has.
2. Each way the store finds ELF files (.build-id/xx/rest[.debug],
   NAME + NAME.debug, NAME/BUILDID/NAME, a single file, .gnu_debuglink
   with its CRC) gives that walk; a file of another build is refused with
   one warning naming it.
3. A mixed walk: one module by a .sym file, another by its ELF file.
4. symbolic/macos/mini.dmp with crash.dSYM against crash.sym.

Usage: elf_symbols.py STACKWALK CORPUS WORKDIR
Prints "elf_symbols: N passed, N failed".
"""
import gzip
import json
import os
import re
import shutil
import struct
import sys

from corpus_skip import require_corpus
from swtest import Checks, fresh_dir, run_stackwalk

checks = Checks('elf_symbols')
check = checks.check


def walk(sw, args):
    return run_stackwalk(sw, args, timeout=120)


def crashing_frames(sw, args):
    code, out, err = walk(sw, ['--json'] + args)
    doc = json.loads(out)
    frames = []
    for f in doc['crashing_thread']['frames']:
        for i in f.get('inlines') or []:
            frames.append(('inline', i['function'], i.get('file'), i.get('line')))
        frames.append((f['trust'], f['function'], f.get('file'), f.get('line'), f['offset']))
    return frames, err


def physical(frames):
    return [(f[0], f[1], f[4]) for f in frames if f[0] != 'inline']


def test_linux_elf_vs_sym(sw, corpus, work):
    d = os.path.join(corpus, 'symbolic', 'linux')
    dump = os.path.join(d, 'mini.dmp')
    sym, _ = crashing_frames(sw, [dump, os.path.join(d, 'crash.sym')])
    elf, err = crashing_frames(sw, [dump, os.path.join(d, 'crash'), os.path.join(d, 'crash.debug')])
    # Above __libc_start_main (CFI) lie two words Breakpad's walk takes for
    # return addresses: 0x401c70 and 0x414ca0, the entries of main and
    # __libc_csu_fini that _start passed to __libc_start_main. Neither
    # is a return address: each is a function's first byte, and the direct
    # call to __libc_start_main@plt before _start + 0x29 proves that word
    # instead, so both walks refuse them and reach _start alike; DWARF adds
    # only inline frames and lines.
    ours = physical(elf)
    kept = [f for f in physical(sym) if f in ours]
    invented = [f for f in physical(sym) if f not in ours]
    check(invented == [] and len(ours) == 3 and ours[2][1] == '_start',
          'linux: the .sym and ELF walks agree up to _start: %s / %s' % (invented, ours))
    check(ours == kept, 'linux: ELF walk keeps the .sym walk\'s other frames, in order:\n  %s\n  %s'
          % (ours, kept))
    # DWARF adds what the .sym (PUBLIC records only) cannot say: main.cpp
    # lines, and crash() inlined into start() inlined into main().
    inl = [(f[1], f[3]) for f in elf if f[0] == 'inline']
    check(inl == [('crash', 23), ('start', 27)], 'linux: inline frames %s' % inl)
    top = [f for f in elf if f[0] != 'inline'][0]
    check(top[1] == 'main' and top[2] and top[2].endswith('main.cpp') and top[3] == 35,
          'linux: frame 0 is main at main.cpp:35, got %s' % (top,))
    check('not used' not in err, 'linux: no file refused: %s' % err.strip())
    return elf


def build_id(path):
    data = open(path, 'rb').read()
    # NT_GNU_BUILD_ID: namesz 4, descsz, type 3, "GNU\0", then the id.
    i = data.find(b'GNU\0')
    while i >= 0:
        namesz, descsz, typ = struct.unpack_from('<III', data, i - 12)
        if namesz == 4 and typ == 3:
            return data[i + 4:i + 4 + descsz].hex()
        i = data.find(b'GNU\0', i + 1)
    raise ValueError('no build-id in ' + path)


def test_layouts(sw, corpus, work, reference):
    d = os.path.join(corpus, 'symbolic', 'linux')
    dump = os.path.join(d, 'mini.dmp')
    crash, debug = os.path.join(d, 'crash'), os.path.join(d, 'crash.debug')
    bid = build_id(crash)
    layouts = {
        'build-id': [('.build-id/%s/%s' % (bid[:2], bid[2:]), crash),
                     ('.build-id/%s/%s.debug' % (bid[:2], bid[2:]), debug)],
        'name': [('crash', crash), ('crash.debug', debug)],
        'server': [('crash/%s/crash' % bid, crash), ('crash.debug', debug)],
        'gzipped': [('crash.gz', None), ('crash.debug.gz', None)],
    }
    for name, files in layouts.items():
        root = os.path.join(work, 'layout-' + name)
        shutil.rmtree(root, ignore_errors=True)
        for rel, src in files:
            dst = os.path.join(root, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if src is None:
                plain = os.path.join(d, os.path.basename(rel)[:-3])
                with open(plain, 'rb') as f, gzip.open(dst, 'wb') as g:
                    g.write(f.read())
            else:
                shutil.copyfile(src, dst)
        frames, err = crashing_frames(sw, [dump, root])
        check(frames == reference, 'layout %s: walk differs from the ELF walk:\n  %s\n  %s'
              % (name, frames, reference))
    # The binary's .gnu_debuglink names crash.debug: given only the binary,
    # the debug file next to it is found, and its CRC checked.
    root = fresh_dir(os.path.join(work, 'layout-debuglink'))
    shutil.copyfile(crash, os.path.join(root, 'crash'))
    shutil.copyfile(debug, os.path.join(root, 'crash.debug'))
    frames, err = crashing_frames(sw, [dump, os.path.join(root, 'crash')])
    check(frames == reference, 'debuglink: walk differs:\n  %s\n  %s' % (frames, reference))
    # A debug file that is not the one the debuglink was made for: its
    # CRC differs, so it is refused (with one warning) and only the
    # binary's own symbols are left.
    with open(os.path.join(root, 'crash.debug'), 'r+b') as f:
        f.seek(0, 2)
        f.write(b'\0')
    frames, err = crashing_frames(sw, [dump, os.path.join(root, 'crash')])
    check(err.count('crash.debug: debug file not used: its CRC32') == 1,
          'debuglink: one CRC warning, got: %s' % err.strip())
    check(not any(f[0] == 'inline' for f in frames), 'debuglink: no DWARF from a refused file')
    # A file of another build (another build-id) is refused by name.
    root = fresh_dir(os.path.join(work, 'layout-other-build'))
    other = os.path.join(corpus, 'symbolic', 'linux', 'crash')
    data = bytearray(open(other, 'rb').read())
    i = bytes(data).find(bytes.fromhex(build_id(other)))
    data[i + 19] ^= 0xff  # the id's last byte: the module's name still matches
    open(os.path.join(root, 'crash'), 'wb').write(data)
    code, out, err = walk(sw, [dump, root])
    check(re.search(r'layout-other-build/crash: ELF file not used: its build-id is [0-9a-f]+, '
                    r'the module\'s is f1c3bcc0', err) is not None and err.count('not used') == 1,
          'other build: one warning naming the file and both ids, got: %s' % err.strip())
    check(code == 0, 'other build: still a walk (exit %d)' % code)


def test_mixed(sw, corpus, work):
    """signal_fde_x86_64 (an offline capture: the ELF files are next to
    maps.txt): libc.so's names from a hand-written .sym given as a symbol
    path, libunwindstack_test's from its ELF."""
    src = os.path.join(corpus, 'libunwindstack', 'signal_fde_x86_64')
    case = os.path.join(work, 'mixed')
    shutil.rmtree(case, ignore_errors=True)
    shutil.copytree(src, case)
    code, out, err = walk(sw, ['--json', case])
    doc = json.loads(out)
    libc = [m for m in doc['modules'] if m['filename'] == 'libc.so'][0]
    frames = doc['threads'][0]['frames']
    restore = [f for f in frames if f['module'] == 'libc.so' and f['function'] == '__restore_rt']
    check(len(restore) == 1,
          'mixed: the ELF names libc.so\'s frame __restore_rt: %s' % restore)
    base = int(libc['base_addr'], 16)
    off = int(restore[0]['offset'], 16) - base
    sym = os.path.join(work, 'libc.so.sym')
    with open(sym, 'w') as f:
        f.write('MODULE Linux x86_64 %s libc.so\n' % libc['debug_id'])
        f.write('FUNC %x 10 0 restore_rt_named_by_the_sym\n' % off)
    code, out, err = walk(sw, ['--json', case, sym])
    doc = json.loads(out)
    frames = doc['threads'][0]['frames']
    names = [(f['module'], f['function']) for f in frames]
    check(('libc.so', 'restore_rt_named_by_the_sym') in names,
          'mixed: libc.so named by the .sym: %s' % names)
    check(('libunwindstack_test', 'SignalOuterFunction') in names,
          'mixed: libunwindstack_test named by its ELF: %s' % names)
    check(len(frames) >= 18, 'mixed: the walk still reaches its end (%d frames)' % len(frames))


def test_macos_dsym(sw, corpus, work):
    """symbolic/macos/mini.dmp walked with crash.dSYM (DWARF in Mach-O, read
    by our DWARF reader) against the walk with crash.sym: the same physical frames,
    functions and trust; the dSYM adds the inline frames the .sym lacks."""
    d = os.path.join(corpus, 'symbolic', 'macos')
    dump = os.path.join(d, 'mini.dmp')
    sym, _ = crashing_frames(sw, [dump, os.path.join(d, 'crash.sym')])
    for path in (os.path.join(d, 'crash.dSYM'), d,
                 os.path.join(d, 'crash.dSYM', 'Contents', 'Resources', 'DWARF', 'crash')):
        dsym, err = crashing_frames(sw, [dump, path])
        check(physical(dsym) == physical(sym), 'macos %s: physical frames %s vs %s'
              % (path, physical(dsym), physical(sym)))
        inl = [(f[1], f[3]) for f in dsym if f[0] == 'inline']
        check(inl == [('(anonymous namespace)::crash()', 21), ('(anonymous namespace)::start()', 25)],
              'macos %s: inline frames %s' % (path, inl))
        check('not used' not in err, 'macos: no file refused: %s' % err.strip())


def main():
    sw, corpus, work = sys.argv[1:4]
    require_corpus(corpus, 'elf_symbols', os.path.join('symbolic', 'linux'))
    os.makedirs(work, exist_ok=True)
    reference = test_linux_elf_vs_sym(sw, corpus, work)
    test_layouts(sw, corpus, work, reference)
    test_mixed(sw, corpus, work)
    test_macos_dsym(sw, corpus, work)
    return checks.summary()


if __name__ == '__main__':
    sys.exit(main())
