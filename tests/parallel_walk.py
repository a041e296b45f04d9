#!/usr/bin/env python3
"""A snapshot's threads walked at once (--jobs 4) print exactly what they
print walked one after the other (--jobs 1): text, stderr, exit status and
the JSON document, for every minidump, microdump and ELF core of the corpus
manifest with its symbols, uncached, and for the gen48k_depth500 benchmark
(9 threads of 500 frames over three 8.8 MB .sym.gz) uncached, cold and warm.

Usage: parallel_walk.py --stackwalk PATH --corpus DIR [--bench DIR] --work DIR
"""
import argparse
import os
import shutil

from corpus_skip import require_corpus
from swtest import Checks, fresh_dir, run_stackwalk


def same_walks(c, stackwalk, what, args, cache_args):
    """--jobs 1 and --jobs 4 over args, as text and as JSON."""
    for fmt in ([], ['--json']):
        got = []
        for jobs in ('1', '4'):
            cache = cache_args(jobs)
            got.append(run_stackwalk(stackwalk, ['--jobs', jobs] + cache + fmt + args,
                                     timeout=300, raw_stdout=True))
        c.check(got[0][0] is not None and got[0] == got[1],
                '%s %s: --jobs 4 differs from --jobs 1 (exit %s vs %s)'
                % (what, ' '.join(fmt), got[0][0], got[1][0]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--bench')
    ap.add_argument('--work', required=True)
    a = ap.parse_args()
    require_corpus(a.corpus, 'parallel_walk')
    c = Checks('parallel_walk')
    no_cache = lambda jobs: ['--no-cache']
    with open(os.path.join(a.corpus, 'manifest.tsv')) as f:
        rows = [l.rstrip('\n').split('\t') for l in f if l.strip() and not l.startswith('#')]
    for row in rows:
        folder, dump, sym = row[0], row[1], row[6]
        path = os.path.join(a.corpus, folder, dump)
        if not os.path.isfile(path):
            continue
        args = [path]
        if sym and sym != '-':
            args.append(os.path.join(a.corpus, folder, sym))
        same_walks(c, a.stackwalk, dump, args, no_cache)
    gen = os.path.join(a.bench or '', 'gen48k_depth500')
    if a.bench and os.path.isdir(gen):
        args = [os.path.join(gen, 'gen48k_depth500.dmp'), os.path.join(gen, 'symbols')]
        same_walks(c, a.stackwalk, 'gen48k uncached', args, no_cache)
        work = fresh_dir(a.work)
        # Cold: a fresh cache for each run; warm: the cache the cold runs filled.
        runs = iter(range(1000))
        cold = lambda jobs: ['--symbols-cache', fresh_dir(os.path.join(work, 'cold%d' % next(runs)))]
        same_walks(c, a.stackwalk, 'gen48k cold', args, cold)
        warm = lambda jobs: ['--symbols-cache', os.path.join(work, 'cold0')]
        same_walks(c, a.stackwalk, 'gen48k warm', args, warm)
        shutil.rmtree(work, ignore_errors=True)
    return c.summary()


if __name__ == '__main__':
    raise SystemExit(main())
