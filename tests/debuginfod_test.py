#!/usr/bin/env python3
"""debuginfod end to end (docs/symbol-servers.md), on loopback only:
elfutils' own debuginfod server on 127.0.0.1 indexes a directory holding
symbolic/linux's crash binary and its crash.debug (GNU build-id f1c3bcc0...),
and stackwalk --debuginfod, with DEBUGINFOD_URLS naming it, walks
symbolic/linux/mini.dmp.

Pins: the walk equals the walk with the same files as a local SYMBOL_PATH
(function names, lines, trust); the files come from debuginfod's client
cache (DEBUGINFOD_CACHE_PATH) on the next run, without a request; without
--debuginfod, DEBUGINFOD_URLS alone asks nothing; --debuginfod without
DEBUGINFOD_URLS is a usage error; a debuginfod server that never answers
ends within --symbols-timeout with one warning and the walk goes on.

Usage: debuginfod_test.py --stackwalk SW --corpus CORPUS --work DIR
Exit 77 (one line) when debuginfod is not installed or stackwalk was built
without libdebuginfod.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_skip import require_corpus  # noqa: E402
from swtest import Checks, fresh_dir, run_stackwalk  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument('--stackwalk', required=True)
ap.add_argument('--corpus', required=True)
ap.add_argument('--work', required=True)
a = ap.parse_args()

BUILD_ID = 'f1c3bcc0279865fe3058404b2831d9e64135386c'
checks = Checks('debuginfod_test')
check = checks.check


def walk(args, env):
    # Only the servers this test starts answer: the user's DEBUGINFOD_* go.
    return run_stackwalk(a.stackwalk, args, timeout=300, env=env, unset=('DEBUGINFOD_',))


def frames(json_text):
    doc = json.loads(json_text)
    out = []
    for t in doc['threads']:
        for f in t['frames']:
            for i in f.get('inlines') or []:
                out.append(('inline', i.get('function'), i.get('file'), i.get('line')))
            out.append((f.get('trust'), f.get('function'), f.get('file'), f.get('line'),
                        f.get('offset')))
    return out


daemon = shutil.which('debuginfod')
if not daemon:
    print('debuginfod not installed: debuginfod_test skipped')
    sys.exit(77)
code, _, err = walk(['--debuginfod', '/nonexistent.dmp'], {'DEBUGINFOD_URLS': 'http://127.0.0.1:9'})
if code == 2 and 'without libdebuginfod' in err:
    print('stackwalk built without libdebuginfod: debuginfod_test skipped')
    sys.exit(77)
require_corpus(a.corpus, 'debuginfod_test', os.path.join('symbolic', 'linux'))

fresh_dir(a.work)
files = os.path.join(a.work, 'files')
os.makedirs(files)
for f in ('crash', 'crash.debug'):
    shutil.copy(os.path.join(a.corpus, 'symbolic', 'linux', f), files)
dump = os.path.join(a.corpus, 'symbolic', 'linux', 'mini.dmp')
empty = os.path.join(a.work, 'empty')
os.makedirs(empty)
client_cache = os.path.join(a.work, 'client-cache')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def start_debuginfod():
    """debuginfod on a free port, once it has scanned both files."""
    for _ in range(5):
        port = free_port()
        log = open(os.path.join(a.work, 'debuginfod.log'), 'w')
        proc = subprocess.Popen([daemon, '-p', str(port), '-F', '-d',
                                 os.path.join(a.work, 'db-%d.sqlite' % port), '-t', '1', files],
                                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=2) as r:
                    metrics = r.read().decode()
                scanned = [l for l in metrics.splitlines()
                           if l.startswith('scanned_files_total{source="file"}')]
                if scanned and int(float(scanned[0].split()[-1])) >= 2:
                    return proc, port
            except OSError:
                pass
            time.sleep(0.2)
        proc.terminate()
        proc.wait()
    print('FAIL debuginfod did not start or scan')
    sys.exit(1)


def requests_served(port):
    with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=5) as r:
        metrics = r.read().decode()
    return sum(int(float(l.split()[-1])) for l in metrics.splitlines()
               if l.startswith('http_responses_total') and 'result="file"' in l)


proc, port = start_debuginfod()
try:
    url = 'http://127.0.0.1:%d' % port
    env = {'DEBUGINFOD_URLS': url, 'DEBUGINFOD_CACHE_PATH': client_cache}
    _, local_json, _ = walk(['--no-cache', '--json', dump, files], {})
    _, local_text, _ = walk(['--no-cache', dump, files], {})
    _, empty_json, _ = walk(['--no-cache', '--json', dump, empty], {})
    check(frames(local_json) != frames(empty_json), 'the local walk has no more than no symbols')

    # The walk through debuginfod gives the local files' frames.
    before = requests_served(port)
    code, out, err = walk(['--no-cache', '--debuginfod', '--json', dump], env)
    check(code == 0, 'exit %d: %s' % (code, err))
    check(frames(out) == frames(local_json), 'the debuginfod walk differs from the local walk:\n'
          '%s\n%s' % (frames(out)[:8], frames(local_json)[:8]))
    check(requests_served(port) > before, 'debuginfod served nothing')
    names = [f[1] for f in frames(out) if f[1]]
    check('main' in names, 'no function names: %s' % names)
    code, out, err = walk(['--no-cache', '--debuginfod', dump], env)
    check(out == local_text, 'the text output differs from the local walk')
    # libc is not on this server (the only other module holding a frame):
    # one line, none for crash.
    lines = [l for l in err.splitlines() if l]
    check(len(lines) == 1 and all('not on the symbol servers' in l and 'crash' not in l
                                  for l in lines), 'stderr: %r' % lines)
    check(os.path.isfile(os.path.join(client_cache, BUILD_ID, 'debuginfo')),
          'nothing in DEBUGINFOD_CACHE_PATH')

    # The next run reads debuginfod's client cache: no request.
    before = requests_served(port)
    code, out, err = walk(['--no-cache', '--debuginfod', dump], env)
    check(out == local_text, 'the second walk differs')
    check(requests_served(port) == before, 'the second run made %d requests'
          % (requests_served(port) - before))

    # Opt-in: DEBUGINFOD_URLS alone (Debian's profile may set it) asks nothing.
    shutil.rmtree(client_cache)
    before = requests_served(port)
    code, out, err = walk(['--no-cache', '--json', dump, empty], env)
    check(requests_served(port) == before, 'DEBUGINFOD_URLS without --debuginfod made a request')
    check(frames(out) == frames(empty_json), 'DEBUGINFOD_URLS without --debuginfod found symbols')

    # --debuginfod without DEBUGINFOD_URLS.
    code, out, err = walk(['--debuginfod', dump], {})
    check(code == 2 and 'DEBUGINFOD_URLS' in err and out == '',
          '--debuginfod without DEBUGINFOD_URLS: exit %d, %r' % (code, err))
finally:
    proc.terminate()
    proc.wait()

# A debuginfod server that never answers: a socket that listens and does
# not accept. The walk ends within the timeout, with one warning.
with socket.socket() as s:
    s.bind(('127.0.0.1', 0))
    s.listen(16)
    env = {'DEBUGINFOD_URLS': 'http://127.0.0.1:%d' % s.getsockname()[1],
           'DEBUGINFOD_CACHE_PATH': os.path.join(a.work, 'client-cache-stall')}
    t0 = time.monotonic()
    code, out, err = walk(['--no-cache', '--debuginfod', '--symbols-timeout', '2', '--json',
                           dump], env)
    elapsed = time.monotonic() - t0
    lines = [l for l in err.splitlines() if l]
    check(code == 0, 'stalled debuginfod: exit %d' % code)
    check(elapsed < 10, 'stalled debuginfod: took %.1f s with a 2 s timeout' % elapsed)
    check(len(lines) == 1 and 'debuginfod' in lines[0], 'stalled debuginfod: stderr %r' % lines)
    check(frames(out) == frames(empty_json) or all(f[1] is None for f in frames(out)),
          'stalled debuginfod: symbols found')

sys.exit(checks.summary())
