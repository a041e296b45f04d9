#!/usr/bin/env python3
"""Compressed snapshots and a snapshot on standard input (issue 31, item 3;
docs/cli.md, "Compressed snapshots and standard input").

Real snapshots (testdata's example minidump and an x86_64 ELF core; from
../shared/corpus a Linux minidump, a log of several microdumps and an
ESP-IDF console log) are compressed with the zstd, xz, lz4 and gzip tools
(a tool that is missing is skipped with a line) and walked: text and JSON
must equal the uncompressed file's walk, byte for byte, and so must their
exit status and stderr (with the file's name in place of the other's). The
x86_64 core goes by systemd-coredump's name
(core.PROG.UID.BOOTID.PID.TIME.zst) and walks with no option but the
snapshot as its uncompressed core walks, crash reason and frame 0 as gdb's.

Also: concatenated frames/members, '-' from a pipe and from a redirected
file (compressed or not), --batch over a folder of compressed files, and
the errors: truncated and damaged data, the --max-decompressed limit, a
compressed symbol file, an unwritable temporary (ulimit -f), a TMPDIR that
does not exist, '-' as a symbol path. Each error: its exit status and one
line naming the file.

usage: compressed.py --stackwalk PATH --corpus DIR --testdata DIR --work DIR
"""
import argparse
import gzip
import json
import os
import re
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from swtest import Checks, fresh_dir  # noqa: E402

TOOLS = {  # tool: (compress argv, extension)
    'zstd': (['zstd', '-q', '-c'], '.zst'),
    'xz': (['xz', '-c'], '.xz'),
    'lz4': (['lz4', '-q', '-c'], '.lz4'),
    'gzip': (['gzip', '-c'], '.gz'),
}


def run(stackwalk, argv, stdin=None, data=None, env=None, preexec=None, timeout=120):
    """(exit status, stdout bytes, stderr text) of stackwalk ARGV; stdin a
    file object (a regular file) or data bytes fed through a pipe."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([stackwalk] + argv, stdin=stdin, input=data, capture_output=True,
                       env=e, preexec_fn=preexec, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode('utf-8', 'replace')


def compress(tool, src, dst):
    with open(src, 'rb') as i, open(dst, 'wb') as o:
        subprocess.run(TOOLS[tool][0], stdin=i, stdout=o, check=True)


def compress_bytes(tool, data):
    return subprocess.run(TOOLS[tool][0], input=data, capture_output=True, check=True).stdout


def one_line(err, name):
    return err.count('\n') == 1 and err.startswith('stackwalk: %s: ' % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--testdata', required=True)
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    sw = args.stackwalk
    work = fresh_dir(args.work)
    c = Checks('compressed')

    tools = []
    for t in TOOLS:
        if shutil.which(TOOLS[t][0][0]):
            tools.append(t)
        else:
            print('skip %s: the %s tool is not installed' % (t, t))

    # The snapshots: (label, file, symbol paths).
    inputs = []
    example = os.path.join(args.testdata, 'example')
    inputs.append(('example', os.path.join(example, 'test.dmp'), [os.path.join(example, 'symbols')]))
    cores = os.path.join(args.testdata, 'cores', 'x86_64-O2nofp')
    core = os.path.join(work, 'core')
    with gzip.open(os.path.join(cores, 'abort', 'core.gz')) as f, open(core, 'wb') as o:
        shutil.copyfileobj(f, o)
    core_dirs = [cores] + [d for d in ['/lib/x86_64-linux-gnu'] if os.path.isdir(d)]
    inputs.append(('x86_64 core', core, core_dirs))
    corpus = args.corpus
    if os.path.isdir(corpus):
        rm = os.path.join(corpus, 'rust-minidump')
        bp = os.path.join(corpus, 'breakpad')
        esp = os.path.join(corpus, 'esp-coredump', 'esp32c3')
        inputs += [
            ('linux-mini', os.path.join(rm, 'linux-mini.dmp'), [os.path.join(rm, 'symbols')]),
            ('microdump-multiple', os.path.join(bp, 'microdump-multiple.dmp'),
             [os.path.join(bp, 'symbols', 'microdump')]),
            ('esp32c3 console log', os.path.join(esp, 'coredump.b64'),
             [os.path.join(esp, 'esp32c3.elf')]),
        ]
    else:
        print('%s not found: its snapshots skipped' % corpus)

    # 1. Each snapshot, each tool: the same walk as the file itself.
    for label, path, syms in inputs:
        for fmt in ([], ['--json'], ['--machine']):
            want = run(sw, fmt + [path] + syms)
            for tool in tools:
                z = os.path.join(work, os.path.basename(path) + TOOLS[tool][1])
                if not os.path.exists(z):
                    compress(tool, path, z)
                got = run(sw, fmt + [z] + syms)
                c.check(got[0] == want[0] and got[1] == want[1] and
                        got[2] == want[2].replace(path, z),
                        '%s %s %s: walk differs from the uncompressed file\'s (exit %d/%d) %r'
                        % (label, tool, ' '.join(fmt), got[0], want[0], got[2][-300:]))
        # Standard input: a pipe of the zstd file, a redirected zstd file,
        # a pipe and a redirect of the file itself.
        want = run(sw, ['--json', path] + syms)
        z = os.path.join(work, os.path.basename(path) + '.zst')
        if 'zstd' in tools:
            got = run(sw, ['--json', '-'] + syms, data=open(z, 'rb').read())
            c.check(got[:2] == want[:2], '%s: cat FILE.zst | stackwalk - differs: %r' % (label, got[2]))
            with open(z, 'rb') as f:
                got = run(sw, ['--json', '-'] + syms, stdin=f)
            c.check(got[:2] == want[:2], '%s: stackwalk - < FILE.zst differs: %r' % (label, got[2]))
        got = run(sw, ['--json', '-'] + syms, data=open(path, 'rb').read())
        c.check(got[:2] == want[:2], '%s: cat FILE | stackwalk - differs: %r' % (label, got[2]))
        with open(path, 'rb') as f:
            got = run(sw, ['--json', '-'] + syms, stdin=f)
        c.check(got[:2] == want[:2], '%s: stackwalk - < FILE differs: %r' % (label, got[2]))

    # 2. Concatenated frames / members: the halves compressed apart.
    dump = os.path.join(example, 'test.dmp')
    syms = [os.path.join(example, 'symbols')]
    data = open(dump, 'rb').read()
    want = run(sw, ['--json', dump] + syms)
    for tool in tools:
        z = os.path.join(work, 'halves' + TOOLS[tool][1])
        half = len(data) // 2
        open(z, 'wb').write(compress_bytes(tool, data[:half]) + compress_bytes(tool, data[half:]))
        got = run(sw, ['--json', z] + syms)
        c.check(got[:2] == want[:2], '%s: two concatenated frames differ: %r' % (tool, got[2]))

    # 3. systemd-coredump's name for the core, and no option but it: the
    # uncompressed core's walk; the crash reason and frame 0 gdb's.
    if 'zstd' in tools:
        sd = os.path.join(work, 'coredump')
        os.makedirs(sd, exist_ok=True)
        name = os.path.join(sd, 'core.crash.1000.0123456789abcdef0123456789abcdef.1234.1700000000000000.zst')
        compress('zstd', core, name)
        want = run(sw, ['--json', core])
        got = run(sw, ['--json', name])
        c.check(got[:2] == want[:2] and got[0] == 0,
                'systemd core alone: differs from the core (exit %d) %r' % (got[0], got[2]))
        doc = json.loads(got[1]) if got[0] == 0 else {}
        gdb = open(os.path.join(cores, 'abort', 'gdb.txt')).read()
        gdb_pcs = [int(m, 16) for m in re.findall(r'^#\d+\s+(0x[0-9a-f]+) in', gdb.split('=== all threads')[0]
                                                   .split('=== crashing thread: bt')[-1], re.M)]
        crash = doc.get('crash_info', {})
        frames = doc.get('threads', [{}])[crash.get('crashing_thread') or 0].get('frames', []) if doc else []
        c.check((crash.get('type') or '').startswith('SIGABRT') and 'Program terminated with signal SIGABRT' in gdb,
                'systemd core: crash reason %r, gdb says SIGABRT' % crash.get('type'))
        c.check(bool(frames) and bool(gdb_pcs) and int(frames[0]['offset'], 16) == gdb_pcs[0],
                'systemd core: frame 0 is not gdb\'s #0 (%s, %s)' % (frames[:1], gdb_pcs[:1]))
        # With the program and its libraries (as tests/gencores.py walks
        # it): gdb's frames, pc for pc, as the uncompressed core gives them.
        want = run(sw, ['--json', core] + core_dirs)
        got = run(sw, ['--json', name] + core_dirs)
        c.check(got[:2] == want[:2], 'systemd core with its files: differs from the core')
        doc = json.loads(got[1]) if got[0] == 0 else {}
        crashing = doc.get('crash_info', {}).get('crashing_thread') or 0
        pcs = [int(f['offset'], 16) for f in doc.get('threads', [{}])[crashing].get('frames', [])]
        # gdb prints return addresses past frame 0, our JSON the byte of
        # the call before them (rust-minidump's "offset").
        c.check(len(pcs) >= len(gdb_pcs) and pcs[0] == gdb_pcs[0] and
                all(p + 1 == g for p, g in zip(pcs[1:], gdb_pcs[1:])),
                'systemd core with its files: frames %s, gdb %s' % ([hex(p) for p in pcs], [hex(p) for p in gdb_pcs]))

        # 4. --batch over the folder (systemd's /var/lib/systemd/coredump):
        # each compressed file's line is its uncompressed file's.
        for tool in tools:
            if tool != 'zstd':
                compress(tool, dump, os.path.join(sd, 'example.dmp' + TOOLS[tool][1]))
        shutil.copy(core, os.path.join(sd, 'plain-core'))
        code, out, err = run(sw, ['--batch', '--jobs', '2', sd, '--symbols-path', syms[0]])
        lines = [json.loads(l) for l in out.decode().splitlines()]
        c.check(code == 0 and len(lines) == len(os.listdir(sd)) and err == '',
                'batch over a folder of compressed snapshots: exit %d, %d lines %r' % (code, len(lines), err))
        ref_code, ref_out, _ = run(sw, ['--batch', dump, core, '--symbols-path', syms[0]])
        ref = [json.loads(l) for l in ref_out.decode().splitlines()]
        for line in lines:
            base = ref[1] if 'core' in os.path.basename(line['file']) else ref[0]
            a = dict(line, file=None)
            b = dict(base, file=None)
            c.check(a == b, 'batch: %s differs from the uncompressed line' % line['file'])

    # 5. Errors: one line naming the file, exit 3 (2 for usage).
    if 'zstd' in tools:
        z = os.path.join(work, 'test.dmp.zst')
        blob = open(z, 'rb').read()
        cut = os.path.join(work, 'cut.zst')
        open(cut, 'wb').write(blob[:len(blob) // 2])
        code, out, err = run(sw, [cut] + syms)
        c.check(code == 3 and out == b'' and one_line(err, cut) and 'truncated zstd data' in err,
                'truncated .zst: exit %d %r' % (code, err))
        code, out, err = run(sw, ['-'] + syms, data=blob[:len(blob) // 2])
        c.check(code == 3 and out == b'' and one_line(err, 'standard input') and 'truncated zstd data' in err,
                'truncated .zst on stdin: exit %d %r' % (code, err))
        # test.dmp is 11,317 bytes: 11K is under it, 12K over.
        code, out, err = run(sw, ['--max-decompressed=11K', z] + syms)
        c.check(code == 3 and one_line(err, z) and 'decompresses to more than 11 KiB' in err,
                'over --max-decompressed: exit %d %r' % (code, err))
        code, out, err = run(sw, ['--max-decompressed=11K', '-'] + syms, data=data)
        c.check(code == 3 and one_line(err, 'standard input') and 'holds more than 11 KiB' in err,
                'stdin over --max-decompressed: exit %d %r' % (code, err))
        code, out, err = run(sw, ['--max-decompressed=12K', z] + syms)
        c.check(code == 0, '--max-decompressed=12K: exit %d %r' % (code, err))
        # A file size limit stands in for a full disk.
        code, out, err = run(sw, [z] + syms, preexec=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (8192, resource.RLIM_INFINITY)))
        c.check(code == 3 and one_line(err, z) and 'cannot write a temporary file' in err,
                'temporary over ulimit -f: exit %d %r' % (code, err))
        code, out, err = run(sw, [z] + syms, env={'TMPDIR': os.path.join(work, 'no-such-dir')})
        c.check(code == 3 and one_line(err, z) and 'cannot make a temporary file in' in err,
                'TMPDIR missing: exit %d %r' % (code, err))
    if 'xz' in tools:
        z = os.path.join(work, 'test.dmp.xz')
        blob = bytearray(open(z, 'rb').read())
        for i in range(len(blob) // 2, len(blob) // 2 + 8):
            blob[i] ^= 0x55
        bad = os.path.join(work, 'bad.xz')
        open(bad, 'wb').write(blob)
        code, out, err = run(sw, [bad] + syms)
        c.check(code == 3 and out == b'' and one_line(err, bad) and 'damaged xz data' in err,
                'damaged .xz: exit %d %r' % (code, err))
    sym = os.path.join(syms[0], 'test_app.pdb', '5A9832E5287241C1838ED98914E9B7FF1', 'test_app.sym')
    symgz = os.path.join(work, 'test_app.sym.gz')
    open(symgz, 'wb').write(gzip.compress(open(sym, 'rb').read()))
    code, out, err = run(sw, [symgz])
    c.check(code == 3 and one_line(err, symgz) and 'gzip-compressed: a Breakpad symbol file, not a snapshot' in err,
            '.sym.gz as snapshot: exit %d %r' % (code, err))
    code, out, err = run(sw, [dump, '-'])
    c.check(code == 2 and err.count('\n') == 1 and "'-' (standard input) can only be the SNAPSHOT" in err,
            "'-' as a symbol path: exit %d %r" % (code, err))
    for bad in ('0', 'abc', '12X', '-5'):
        code, out, err = run(sw, ['--max-decompressed=' + bad, dump])
        c.check(code == 2 and '--max-decompressed wants a size' in err,
                '--max-decompressed=%s: exit %d %r' % (bad, code, err))
    code, out, err = run(sw, ['-'], data=b'')
    c.check(code == 3 and one_line(err, 'standard input') and 'empty' in err,
            'empty stdin: exit %d %r' % (code, err))

    # 6. convert reads a compressed IN and '-' alike.
    if 'zstd' in tools:
        a, b, s = (os.path.join(work, n) for n in ('plain.snap', 'zst.snap', 'stdin.snap'))
        r1 = run(sw, ['convert', core, a] + core_dirs)
        r2 = run(sw, ['convert', os.path.join(work, 'core.zst') if os.path.exists(os.path.join(work, 'core.zst'))
                      else name, b] + core_dirs)
        with open(name, 'rb') as f:
            r3 = run(sw, ['convert', '-', s] + core_dirs, stdin=f)
        c.check(r1[0] == r2[0] == r3[0] == 0 and open(a, 'rb').read() == open(b, 'rb').read() == open(s, 'rb').read(),
                'convert: the .snap of a .zst core or of stdin differs (%d %d %d)' % (r1[0], r2[0], r3[0]))
    return c.summary()


if __name__ == '__main__':
    sys.exit(main())
