#!/usr/bin/env python3
"""`stackwalk convert` against the real corpus: every input the conformance
tests walk (minidumps and microdumps of manifest.tsv, the ELF cores of
elf-cores/cases.tsv, libunwindstack's offline folders, the gencores fixtures
of testdata/cores, ESP-IDF core dumps in their three forms) is converted to a
.snap, and the input and the .snap are walked with the same symbol paths.
The crashing thread's frames must be identical (function, module, offsets,
trust, file and line); with --all-threads, every thread's.

A difference that has a principled reason is listed in KNOWN_DIFFERENCES
with its evidence; an unlisted one fails, and so does a listed one that no
longer happens.

Usage: convert.py --stackwalk PATH --corpus DIR --testdata DIR [--work DIR]
                  [--only SUBSTRING] [--all] [-v]
"""
import argparse
import bz2
import concurrent.futures
import gzip
import json
import os
import re
import shutil
import sys
import tempfile

from swtest import run_stackwalk, summary

# (input label, mode): why the walks differ.
KNOWN_DIFFERENCES = {}

NO_SNAP_CPU = 'has no .snap CPU id'

FRAME_FIELDS = ('function', 'function_offset', 'module', 'module_offset', 'offset', 'trust',
                'file', 'line')


SANITIZER = re.compile(r'runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer')


def run(stackwalk, argv, timeout=120):
    code, out, err = run_stackwalk(stackwalk, argv, timeout)
    # A sanitizer's report is a failure whatever the exit status.
    if code is not None and SANITIZER.search(err):
        return 'sanitizer', '', err
    return code, out, err


def first_document(text):
    """The first JSON document of the output (a microdump log prints one
    per microdump; the converter takes the first)."""
    doc, _ = json.JSONDecoder().raw_decode(text.lstrip())
    return doc


def frames_of(thread):
    out = []
    for f in thread.get('frames') or []:
        # An ART Java frame (trust dex_pc) is named by the .dex file's
        # mapping, and .snap records modules, not mappings
        # (docs/snap-format.md): the converted walk has the frame, at the
        # same DEX pc, without the name.
        skip = ('module', 'module_offset') if f.get('trust') == 'dex_pc' else ()
        row = tuple(None if k in skip else f.get(k) for k in FRAME_FIELDS)
        inl = tuple(tuple(i.get(k) for k in ('function', 'file', 'line'))
                    for i in f.get('inlines') or [])
        out.append((row, inl))
    return out


def threads_of(doc, all_threads):
    """{thread id: frames} of the crashing thread, or of every thread."""
    if not all_threads:
        ct = doc.get('crashing_thread')
        return {'crashing': frames_of(ct)} if ct else {}
    return {t.get('thread_id'): frames_of(t) for t in doc.get('threads') or []}


def describe(frames, i):
    if i >= len(frames):
        return '(none)'
    row = dict(zip(FRAME_FIELDS, frames[i][0]))
    return '%s %s %s %s' % (row['module'], row['function'], row['offset'], row['trust'])


def compare(orig, conv):
    """The first difference between two {thread: frames}, or None."""
    for tid in sorted(set(orig) | set(conv), key=str):
        a, b = orig.get(tid), conv.get(tid)
        if a is None or b is None:
            return 'thread %s: only in the %s walk' % (tid, 'input' if b is None else '.snap')
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b) or a[i] != b[i]:
                return 'thread %s frame %d: input %s, .snap %s (%d vs %d frames)' % (
                    tid, i, describe(a, i), describe(b, i), len(a), len(b))
    return None


class Inputs:
    """(label, input path, symbol paths) of every corpus input."""

    def __init__(self, args):
        self.args = args
        self.items = []

    def add(self, label, path, syms):
        if os.path.exists(path):
            self.items.append((label, path, [s for s in syms if s]))

    def manifest(self):
        path = os.path.join(self.args.corpus, 'manifest.tsv')
        if not os.path.isfile(path):
            return
        seen = set()
        with open(path) as f:
            for line in f:
                if line.startswith('#') or not line.strip():
                    continue
                folder, dump, variant, kind, arch, _os, sympath = line.rstrip('\n').split('\t')[:7]
                key = (folder, dump, sympath)
                if key in seen:
                    continue
                seen.add(key)
                syms = [] if sympath == '-' else [os.path.join(self.args.corpus, folder, sympath)]
                label = '%s/%s%s (%s %s)' % (folder, dump, '' if variant == '-' else '+' + variant,
                                             kind, arch)
                self.add(label, os.path.join(self.args.corpus, folder, dump), syms)

    def unpacked(self, src, opener, suffix):
        dst = os.path.join(self.args.work, 'unpacked',
                           os.path.relpath(src, self.args.corpus).replace(os.sep, '_')[:-len(suffix)])
        if not os.path.isfile(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with opener(src) as i, open(dst, 'wb') as o:
                shutil.copyfileobj(i, o)
        return dst

    def elf_cores(self):
        path = os.path.join(self.args.corpus, 'elf-cores', 'cases.tsv')
        if not os.path.isfile(path):
            return
        with open(path) as f:
            for line in f:
                if line.startswith('#') or not line.strip():
                    continue
                folder, core, exe, arch = line.rstrip('\n').split('\t')[:4]
                d = os.path.join(self.args.corpus, 'elf-cores', folder)

                def local(name):
                    p = os.path.join(d, name)
                    if name.endswith('.bz2'):
                        return self.unpacked(p, bz2.open, '.bz2')
                    if name.endswith('.gz'):
                        return self.unpacked(p, gzip.open, '.gz')
                    return p
                if not os.path.exists(os.path.join(d, core)):
                    continue
                syms = [] if exe == '-' else [local(exe)]
                self.add('elf-cores/%s/%s (%s)' % (folder, core, arch.split(' ')[0]), local(core),
                         syms)

    def offline(self):
        path = os.path.join(self.args.corpus, 'libunwindstack', 'cases.tsv')
        if not os.path.isfile(path):
            return
        with open(path) as f:
            for line in f.readlines()[1:]:
                case, arch = line.split('\t')[:2]
                self.add('libunwindstack/%s (offline %s)' % (case, arch),
                         os.path.join(self.args.corpus, 'libunwindstack', case), [])

    def gencores(self):
        root = os.path.join(self.args.testdata, 'cores')
        if not os.path.isdir(root):
            return
        arches = [af for af in sorted(os.listdir(root))
                  if os.path.isdir(os.path.join(root, af)) and not af.startswith('__')]
        cpus_seen = set()
        for n, af in enumerate(arches):
            # One folder per CPU (its cores unpack to ~20 MB each), every
            # folder with --all.
            cpu = af.split('-')[0]
            if not self.args.all and cpu in cpus_seen:
                continue
            cpus_seen.add(cpu)
            adir = os.path.join(root, af)
            syms = [os.path.join(adir, 'symbols')] if os.path.isdir(os.path.join(adir, 'symbols')) \
                else []
            cases = sorted(os.listdir(adir))
            for k, case in enumerate(cases):
                # One case per CPU (of ~230 fixtures) keeps the run short;
                # which case turns with the folder (--all: every fixture).
                if not self.args.all and k != n % len(cases):
                    continue
                cdir = os.path.join(adir, case)
                if os.path.isfile(os.path.join(cdir, 'core.gz')):
                    core = os.path.join(self.args.work, 'cores', af, case, 'core')
                    if not os.path.isfile(core):
                        os.makedirs(os.path.dirname(core), exist_ok=True)
                        with gzip.open(os.path.join(cdir, 'core.gz')) as i, open(core, 'wb') as o:
                            shutil.copyfileobj(i, o)
                    self.add('cores/%s/%s (ELF core)' % (af, case), core, syms + [adir])
                elif all(os.path.isfile(os.path.join(cdir, f)) for f in ('regs.txt', 'maps.txt')):
                    self.add('cores/%s/%s (offline)' % (af, case), cdir, syms + [adir])

    def esp(self):
        root = os.path.join(self.args.corpus, 'esp-coredump')
        if not os.path.isdir(root):
            return
        for chip in sorted(os.listdir(root)):
            d = os.path.join(root, chip)
            if not os.path.isdir(d):
                continue
            fw = os.path.join(d, chip + '.elf')
            for form in ('coredump.b64', 'coredump.bin', 'coredump.elf'):
                self.add('esp-coredump/%s/%s (ESP-IDF)' % (chip, form), os.path.join(d, form),
                         [fw] if os.path.isfile(fw) else [])


def check(args, label, path, syms, snapdir):
    """Problems (mode, text) of one input, in both modes."""
    # The same files for both walks: an ELF core would also read the
    # modules at the paths it records (the default), a .snap not.
    code, out, err = run(args.stackwalk, ['--json', '--no-local-modules', path] + syms)
    if code is None or code not in (0, 1) or not out.strip():
        return [('walk', 'the input does not walk (exit %s): %s' % (code, err.strip()[:200]))], 0
    orig = first_document(out)
    problems, walked = [], 0
    for mode, flags in (('crashing', []), ('all-threads', ['--all-threads'])):
        snap = os.path.join(snapdir, 'out-%s.snap' % mode)
        ccode, _, cerr = run(args.stackwalk, ['convert'] + flags + [path, snap] + syms)
        if ccode == 3 and NO_SNAP_CPU in cerr:
            # The format has no id for the CPU (s390x, sparc, or none said):
            # refused as docs/cli.md says, one line naming the file.
            return [], 'refused: ' + cerr.strip().split(': ')[-1]
        if ccode not in (0, 1) or not os.path.isfile(snap):
            problems.append((mode, 'convert failed (exit %s): %s' % (ccode, cerr.strip()[:200])))
            continue
        scode, sout, serr = run(args.stackwalk, ['--json', '--no-local-modules', snap] + syms)
        if scode not in (0, 1) or not sout.strip():
            problems.append((mode, 'the .snap does not walk (exit %s): %s'
                             % (scode, serr.strip()[:200])))
            continue
        if scode != 0:
            problems.append((mode, 'the .snap is damaged (exit %s): %s'
                             % (scode, serr.strip()[:200])))
        diff = compare(threads_of(orig, mode == 'all-threads'),
                       threads_of(first_document(sout), mode == 'all-threads'))
        if diff:
            problems.append((mode, diff))
        walked += len(threads_of(orig, mode == 'all-threads'))
    return problems, walked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--testdata', required=True)
    ap.add_argument('--work', default=None)
    ap.add_argument('--only', default='')
    ap.add_argument('--all', action='store_true', help='every gencores fixture, not one per folder')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    # Never inside the checkout by default: the unpacked cores are large.
    args.work = args.work or tempfile.mkdtemp(prefix='sw-convert-')
    if not os.path.isdir(args.corpus):
        # The testdata fixtures still convert; only the corpus part is skipped.
        print('%s not found: convert checks testdata only' % args.corpus)
    os.makedirs(args.work, exist_ok=True)
    inputs = Inputs(args)
    inputs.manifest()
    inputs.elf_cores()
    inputs.offline()
    inputs.gencores()
    inputs.esp()
    passed = failed = 0
    used = set()
    snapdir = tempfile.mkdtemp(dir=args.work)
    todo = [(i, item) for i, item in enumerate(inputs.items) if args.only in item[0]]

    def check_one(job):
        i, (label, path, syms) = job
        own = os.path.join(snapdir, str(i))
        os.makedirs(own, exist_ok=True)
        try:
            return check(args, label, path, syms, own)
        finally:
            shutil.rmtree(own, ignore_errors=True)

    # Each input's walks and conversions run as processes of their own: as
    # many at once as there are CPUs (the slowest of the conformance tests).
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(check_one, todo))
    for (_, (label, path, syms)), (problems, threads) in zip(todo, results):
        real = []
        for mode, text in problems:
            reason = KNOWN_DIFFERENCES.get((label, mode))
            if reason:
                used.add((label, mode))
                print('known %s [%s]: %s (%s)' % (label, mode, text, reason))
            else:
                real.append((mode, text))
        if real:
            failed += 1
            print('FAIL  %s' % label)
            for mode, text in real:
                print('        [%s] %s' % (mode, text))
        else:
            passed += 1
            print('ok    %s (%s)' % (label, threads if isinstance(threads, str)
                                          else '%d threads compared' % threads))
    for key in sorted(set(KNOWN_DIFFERENCES) - used, key=str):
        if args.only in key[0]:
            failed += 1
            print('FAIL  %s [%s]: listed as a known difference, which no longer happens'
                  % key)
    shutil.rmtree(snapdir, ignore_errors=True)
    return summary('convert', passed, failed)


if __name__ == '__main__':
    sys.exit(main())
