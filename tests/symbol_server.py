#!/usr/bin/env python3
"""Symbol servers end to end (docs/symbol-servers.md), on loopback only: a
small HTTP server (symbol_server_http.py) on 127.0.0.1 serves a store built
from the test's own files, and stackwalk --symbols-url walks against it.

Pins: the walk equals the walk with the local store; the download lands in
the cache in the store's layout and a second run asks nothing; .sym.gz is
served; a stalled server ends within --symbols-timeout with one warning and
the walk goes on without symbols; a 404 is remembered (no request on the
next run), one warning per module, for --symbols-miss-ttl seconds (0: not
remembered); an HTML page and random bytes are
refused and not kept; a gzip bomb is refused within the inflation limit; 8
processes on one empty cache print the same and leave one file per module
and no temporary file; ELF files by build-id (NAME/BUILD_ID/NAME); only
modules holding frames are asked for; --no-cache removes its downloads; a
plain path is refused as a URL.

Usage: symbol_server.py --stackwalk SW --corpus CORPUS --testdata TESTDATA --work DIR
Exit 77 (one line) when stackwalk was built without libcurl.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from swtest import Checks, fresh_dir, run_stackwalk, stackwalk_env  # noqa: E402
from symbol_server_http import SymbolServer  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument('--stackwalk', required=True)
ap.add_argument('--corpus', required=True)
ap.add_argument('--testdata', required=True)
ap.add_argument('--work', required=True)
a = ap.parse_args()

checks = Checks('symbol_server')
check = checks.check
# Only this test's server answers: a DEBUGINFOD_URLS in the user's
# environment is dropped.
NO_DEBUGINFOD = ('DEBUGINFOD_URLS',)


def walk(args, env=None):
    return run_stackwalk(a.stackwalk, args, timeout=300, env=env, unset=NO_DEBUGINFOD,
                         raw_stdout=True)


def stderr_lines(err):
    return [line for line in err.splitlines() if line]


def files_under(d, pattern):
    return sorted(glob.glob(os.path.join(d, '**', pattern), recursive=True))


def temp_files(d):
    return [f for f in files_under(d, '*') if '.tmp-' in f or '.tmp.' in f]


# Built without libcurl: --symbols-url refuses with a message saying so.
code, _, err = walk(['--symbols-url', 'http://127.0.0.1:9/', '/nonexistent.dmp'])
if code == 2 and 'without libcurl' in err:
    print('stackwalk built without libcurl: symbol_server skipped')
    sys.exit(77)

work = fresh_dir(a.work)

# The served store: testdata/example's symbols, and a corpus dump's.
store = os.path.join(work, 'store')
shutil.copytree(os.path.join(a.testdata, 'example', 'symbols'), store)
example = os.path.join(a.testdata, 'example', 'test.dmp')
cases = [('example', example)]
corpus_dump = os.path.join(a.corpus, 'breakpad', 'linux_overflow.dmp')
corpus_store = os.path.join(a.corpus, 'breakpad', 'symbols')
if os.path.isfile(corpus_dump) and os.path.isdir(corpus_store):
    for d in os.listdir(corpus_store):
        if not os.path.exists(os.path.join(store, d)):
            shutil.copytree(os.path.join(corpus_store, d), os.path.join(store, d))
    cases.append(('linux_overflow', corpus_dump))
else:
    print('%s not found: the corpus case is skipped' % corpus_dump)
empty = os.path.join(work, 'empty')
os.makedirs(empty)

n_cache = [0]


def new_cache():
    n_cache[0] += 1
    d = os.path.join(work, 'cache%d' % n_cache[0])
    return d


with SymbolServer(store) as srv:
    # 1. Each case: the walk through the server is the walk with the local
    # store; the files land in the cache; a second run asks nothing.
    for name, dump in cases:
        _, local_out, _ = walk(['--no-cache', dump, store])
        _, empty_out, _ = walk(['--no-cache', dump, empty])
        cache = new_cache()
        before = srv.count()
        code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url('ok'), dump])
        check(code == 0, '%s: exit %d' % (name, code))
        check(out == local_out, '%s: the walk through the server differs from the local walk'
              % name)
        check(out != empty_out, '%s: the walk without symbols is the same: nothing was tested'
              % name)
        asked = srv.requests[before:]
        check(len(asked) > 0, '%s: no request made' % name)
        syms = files_under(cache, '*.sym')
        check(len(syms) > 0, '%s: nothing in the cache' % name)
        for s in syms:
            rel = os.path.relpath(s, cache)
            check(os.path.isfile(os.path.join(store, rel)),
                  '%s: %s is not in the store\'s layout' % (name, rel))
        # The modules with no symbols on the server: one line each.
        missing = [l for l in stderr_lines(err) if 'not on the symbol servers' in l]
        check(len(missing) == len(set(missing)), '%s: a missing module said twice' % name)
        before = srv.count()
        code, out2, err2 = walk(['--symbols-cache', cache, '--symbols-url', srv.url('ok'), dump])
        check(out2 == local_out, '%s: the second walk differs' % name)
        check(srv.count() == before, '%s: the second run asked %s' % (name, srv.requests[before:]))
        # The cache is a local store now.
        _, out3, _ = walk(['--no-cache', dump, cache])
        check(out3 == local_out, '%s: the cache read as a SYMBOL_PATH differs' % name)

    # A redirect (Tecken's answer) and a file:// URL give the same walk.
    _, local_out, _ = walk(['--no-cache', example, store])
    for url in (srv.url('redirect'), 'file://' + os.path.abspath(store)):
        cache = new_cache()
        code, out, err = walk(['--symbols-cache', cache, '--symbols-url', url, example])
        check(out == local_out, '%s: the walk differs from the local walk' % url)

    # 2. Only the modules that hold a frame are asked for (test.dmp has 13
    # modules; its frames are in test_app.exe and kernel32.dll).
    cache = new_cache()
    before = srv.count()
    walk(['--symbols-cache', cache, '--symbols-url', srv.url('ok'), example])
    asked = sorted(set(p.split('/')[2] for p in srv.requests[before:]))
    check(asked == ['kernel32.pdb', 'test_app.pdb'], 'asked for %s' % asked)

    # 3. .sym.gz: NAME.sym is 404, NAME.sym.gz served.
    _, local_out, _ = walk(['--no-cache', example, store])
    cache = new_cache()
    code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url('gz'), example])
    check(out == local_out, '.sym.gz: the walk differs from the local walk')
    check(len(files_under(cache, 'test_app.sym.gz')) == 1, '.sym.gz: not in the cache')
    check(files_under(cache, '*.sym') == [], '.sym.gz: a .sym in the cache')

    # 4. A server that never answers: the timeout, one warning, and the
    # walk goes on without symbols (as with an empty store).
    _, empty_out, _ = walk(['--no-cache', example, empty])
    cache = new_cache()
    t0 = time.monotonic()
    code, out, err = walk(['--symbols-cache', cache, '--symbols-timeout', '2',
                           '--symbols-url', srv.url('stall'), example])
    elapsed = time.monotonic() - t0
    check(code == 0, 'stall: exit %d' % code)
    check(elapsed < 8, 'stall: took %.1f s with a 2 s timeout' % elapsed)
    check(out == empty_out, 'stall: the walk differs from a walk without symbols')
    lines = stderr_lines(err)
    check(len(lines) == 1 and srv.url('stall') in lines[0] and '2 s' in lines[0],
          'stall: stderr is %r' % lines)
    check(srv.count('stall') == 1, 'stall: %d requests (the server is skipped after one)'
          % srv.count('stall'))

    # 5. 404: one warning per module, remembered: the next run asks nothing.
    cache = new_cache()
    before = srv.count()
    code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url('missing'), example])
    lines = stderr_lines(err)
    check(out == empty_out, '404: the walk differs from a walk without symbols')
    check(len(lines) == 2 and all('not on the symbol servers' in l for l in lines),
          '404: stderr is %r' % lines)
    check(srv.count() - before == 4, '404: %d requests (2 modules x .sym, .sym.gz)'
          % (srv.count() - before))
    check(len(files_under(cache, '.missing-*')) == 2, '404: markers %s'
          % files_under(cache, '.missing-*'))
    before = srv.count()
    code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url('missing'), example])
    check(srv.count() == before, '404: the second run asked %s' % srv.requests[before:])
    check(len(stderr_lines(err)) == 2, '404: the second run says %r' % stderr_lines(err))
    # A miss older than the time it is remembered is asked again.
    for m in files_under(cache, '.missing-*'):
        old = time.time() - 2 * 3600
        os.utime(m, (old, old))
    before = srv.count()
    walk(['--symbols-cache', cache, '--symbols-url', srv.url('missing'), example])
    check(srv.count() - before == 4, '404: an expired miss was not asked again')
    # --symbols-miss-ttl SECONDS: a miss younger than it is not asked
    # again, an older one is; 0 keeps no miss (asked every run, no marker).
    for m in files_under(cache, '.missing-*'):
        os.utime(m, (time.time() - 30, time.time() - 30))
    before = srv.count()
    walk(['--symbols-cache', cache, '--symbols-url', srv.url('missing'), '--symbols-miss-ttl=60',
          example])
    check(srv.count() == before, '--symbols-miss-ttl=60: a 30 s old miss was asked again')
    before = srv.count()
    walk(['--symbols-cache', cache, '--symbols-url', srv.url('missing'), '--symbols-miss-ttl=10',
          example])
    check(srv.count() - before == 4, '--symbols-miss-ttl=10: a 30 s old miss was not asked again')
    cache0 = new_cache()
    for _ in range(2):
        before = srv.count()
        code, out, err = walk(['--symbols-cache', cache0, '--symbols-url', srv.url('missing'),
                               '--symbols-miss-ttl=0', example])
        check(code == 0 and srv.count() - before == 4,
              '--symbols-miss-ttl=0: %d requests, want 4 each run' % (srv.count() - before))
    check(files_under(cache0, '.missing-*') == [], '--symbols-miss-ttl=0 wrote markers')
    for bad in ('-1', '2592001', 'x', ''):
        code, out, err = walk(['--symbols-miss-ttl=' + bad, example])
        check(code == 2 and '--symbols-miss-ttl wants a number of seconds' in err,
              '--symbols-miss-ttl=%s: exit %s %r' % (bad, code, err))
    # The next server in the list is still asked.
    _, local_out, _ = walk(['--no-cache', example, store])
    code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url('missing'),
                           '--symbols-url', srv.url('ok'), example])
    check(out == local_out, '404 then ok: the second server\'s symbols not used')

    # 6. Garbage with status 200: refused with one line naming the URL, not kept.
    for mode in ('html', 'random'):
        cache = new_cache()
        code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url(mode), example])
        lines = stderr_lines(err)
        check(out == empty_out, '%s: the walk differs from a walk without symbols' % mode)
        refused = [l for l in lines if 'refused' in l]
        check(len(refused) >= 2 and all(srv.url(mode) in l for l in refused),
              '%s: stderr is %r' % (mode, lines))
        check(files_under(cache, '*.sym*') == [] and temp_files(cache) == [],
              '%s: kept %s' % (mode, files_under(cache, '*')))
        before = srv.count()
        walk(['--symbols-cache', cache, '--symbols-url', srv.url(mode), example])
        check(srv.count() > before, '%s: a refused file was remembered as a miss' % mode)

    # 7. A gzip bomb: 200 KB inflating to 200 MiB, refused at the limit.
    cache = new_cache()
    t0 = time.monotonic()
    code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url('bomb'), example])
    elapsed = time.monotonic() - t0
    lines = stderr_lines(err)
    check(any('inflates to more than 67108864 bytes' in l and srv.url('bomb') in l for l in lines),
          'bomb: stderr is %r' % lines)
    check(files_under(cache, '*.sym*') == [] and temp_files(cache) == [],
          'bomb: kept %s' % files_under(cache, '*'))
    check(elapsed < 30, 'bomb: took %.1f s' % elapsed)

    # 8. Eight processes at once on one empty cache.
    _, local_out, _ = walk(['--no-cache', example, store])
    cache = new_cache()
    env = stackwalk_env(unset=NO_DEBUGINFOD)
    before = srv.count()
    procs = [subprocess.Popen([a.stackwalk, '--symbols-cache', cache, '--symbols-url',
                               srv.url('ok'), example], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env) for _ in range(8)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    check(all(o == local_out for o in outs), '8 at once: an output differs')
    # They take turns on each module (a lock file in its directory): each
    # file is asked for once, whoever asks first.
    with srv.lock:
        asked = srv.requests[before:]
    check(asked and len(set(asked)) == len(asked), '8 at once: a file asked for twice: %s'
          % sorted(asked))
    syms = files_under(cache, '*.sym*')
    dirs = [os.path.dirname(f) for f in syms]
    check(len(syms) == 2 and len(set(dirs)) == len(dirs), '8 at once: %s' % syms)
    check(temp_files(cache) == [], '8 at once: temporary files left: %s' % temp_files(cache))

    # 8b. A batch's threads share the servers (--batch --jobs 4): the same
    # report as the batch over the local store, one file per module.
    dumps = [dump for _, dump in cases] * 3
    code, local_batch, _ = walk(['--batch', '--jobs', '4', '--no-cache', '--symbols-path', store]
                                + dumps)
    if code == 2:
        print('no --batch in this build: the batch case is skipped')
    else:
        cache = new_cache()
        code, out, err = walk(['--batch', '--jobs', '4', '--symbols-cache', cache,
                               '--symbols-url', srv.url('ok')] + dumps)
        check(out == local_batch, 'batch: the report differs from the local batch')
        syms = files_under(cache, '*.sym*')
        dirs = [os.path.dirname(f) for f in syms]
        check(len(syms) >= 2 and len(set(dirs)) == len(dirs), 'batch: %s' % syms)
        check(temp_files(cache) == [], 'batch: temporary files left: %s' % temp_files(cache))

        # 8c. The batch's threads download different modules at once: a
        # server that takes 0.4 s per answer holds two requests at once
        # (the dumps' modules differ), and the report is the same.
        cache = new_cache()
        code, out, err = walk(['--batch', '--jobs', '4', '--symbols-cache', cache,
                               '--symbols-url', srv.url('slow')] + dumps)
        check(out == local_batch, 'batch, slow server: the report differs from the local batch')
        check(srv.max_active >= 2, 'batch, slow server: at most %d request at once: the '
              'threads took turns' % srv.max_active)
        with srv.lock:
            slow = [p for p in srv.requests if p.startswith('/slow/')]
        check(slow and len(set(slow)) == len(slow), 'batch, slow server: a file asked for '
              'twice (two threads fetched one module): %s' % sorted(slow))

    # 8d. One snapshot walked on 4 threads: threads in different modules
    # fetch them at once (the store lets go of its lock while it
    # downloads), and the report is --jobs 1's.
    many = os.path.join(a.corpus, 'rust-minidump', 'invalid-parameter.dmp')
    if os.path.isfile(many):
        _, one_out, one_err = walk(['--jobs', '1', '--symbols-cache', new_cache(),
                                    '--symbols-url', srv.url('ok'), many])
        with srv.lock:
            srv.max_active = 0
        code, out, err = walk(['--jobs', '4', '--symbols-cache', new_cache(),
                               '--symbols-url', srv.url('slow'), many])
        check(code == 0 and out == one_out, 'one dump, 4 threads, slow server: the report '
              'differs from --jobs 1 (exit %d)' % code)
        check(stderr_lines(err) == stderr_lines(one_err.replace('/ok/', '/slow/')),
              'one dump, 4 threads: the warnings differ: %s' % err)
        check(srv.max_active >= 2, 'one dump, 4 threads, slow server: at most %d request at '
              'once: the threads took turns' % srv.max_active)
    else:
        print('%s not found: the one-dump case is skipped' % many)

    # 9. ELF files by build-id: symbolic/linux's binary served as
    # crash/BUILD_ID/crash gives the walk of the same local layout.
    elf_dump = os.path.join(a.corpus, 'symbolic', 'linux', 'mini.dmp')
    elf_file = os.path.join(a.corpus, 'symbolic', 'linux', 'crash')
    if os.path.isfile(elf_dump) and os.path.isfile(elf_file):
        build_id = 'f1c3bcc0279865fe3058404b2831d9e64135386c'
        d = os.path.join(store, 'crash', build_id)
        os.makedirs(d, exist_ok=True)
        shutil.copy(elf_file, os.path.join(d, 'crash'))
        local = os.path.join(work, 'elf-local')
        os.makedirs(os.path.join(local, 'crash', build_id))
        shutil.copy(elf_file, os.path.join(local, 'crash', build_id, 'crash'))
        _, local_out, _ = walk(['--no-cache', elf_dump, local])
        _, empty_out, _ = walk(['--no-cache', elf_dump, empty])
        cache = new_cache()
        code, out, err = walk(['--symbols-cache', cache, '--symbols-url', srv.url('ok'), elf_dump])
        check(out == local_out, 'ELF: the walk differs from the local walk')
        check(out != empty_out, 'ELF: the walk without symbols is the same')
        check(os.path.isfile(os.path.join(cache, 'crash', build_id, 'crash')),
              'ELF: not in the cache as crash/BUILD_ID/crash')
    else:
        print('%s not found: the ELF case is skipped' % elf_dump)

    # 10. --no-cache: downloads in a temporary directory, removed at exit.
    tmp = os.path.join(work, 'tmp')
    os.makedirs(tmp)
    _, local_out, _ = walk(['--no-cache', example, store])
    code, out, err = walk(['--no-cache', '--symbols-url', srv.url('ok'), example],
                          env={'TMPDIR': tmp})
    check(out == local_out, '--no-cache: the walk differs from the local walk')
    check(os.listdir(tmp) == [], '--no-cache: left %s' % os.listdir(tmp))

    # 10b. A killed process's temporary download (older than an hour) is
    # removed by the next run's first download; a live one's is not.
    cache = new_cache()
    os.makedirs(cache)
    stale = os.path.join(cache, '.download.tmp-dead01')
    fresh = os.path.join(cache, '.download.tmp-live01')
    for f in (stale, fresh):
        with open(f, 'w') as fh:
            fh.write('partial')
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    walk(['--symbols-cache', cache, '--symbols-url', srv.url('ok'), example])
    check(not os.path.exists(stale) and os.path.exists(fresh),
          'stale downloads: %s' % sorted(os.listdir(cache)))

    # 11. A local store first: a module it serves is not asked for.
    cache = new_cache()
    before = srv.count()
    walk(['--symbols-cache', cache, '--symbols-url', srv.url('ok'), example, store])
    asked = sorted(set(p.split('/')[2] for p in srv.requests[before:]))
    check('test_app.pdb' not in asked, 'the local store\'s module was asked for: %s' % asked)

# 14. Request headers (a private server's token): sent to the server,
# kept across a redirect to the same origin, never sent to another origin
# (Tecken redirects to its storage); from @FILE too.
header = 'Auth-Token: s3cret-token'
with SymbolServer(store) as srv, SymbolServer(store) as far:
    srv.away_base = 'http://127.0.0.1:%d' % far.port
    _, local_out, _ = walk(['--no-cache', example, store])
    hfile = os.path.join(work, 'headers.txt')
    with open(hfile, 'w') as f:
        f.write('# the token of the symbol server\n\n%s\r\nX-Team: crash\n' % header)
    for how, args in (('argument', ['--symbols-header', header]),
                      ('@FILE', ['--symbols-header', '@' + hfile])):
        code, out, err = walk(['--symbols-cache', new_cache(), '--symbols-url', srv.url('ok')]
                              + args + [example])
        sent = srv.headers_of('ok')
        check(code == 0 and out == local_out and sent and
              all(h.get('auth-token') == 's3cret-token' for h in sent),
              'header (%s): exit %d, sent %r' % (how, code, [h.get('auth-token') for h in sent]))
        with srv.lock:
            srv.headers.clear()
    walk(['--symbols-cache', new_cache(), '--symbols-url', srv.url('redirect'),
          '--symbols-header', header, example])
    sent = srv.headers_of('ok')
    check(sent and all(h.get('auth-token') == 's3cret-token' for h in sent),
          'header kept across a redirect to the same origin: %r' % sent)
    code, out, err = walk(['--symbols-cache', new_cache(), '--symbols-url', srv.url('away'),
                           '--symbols-header', header, example])
    away = far.headers_of('ok')
    check(code == 0 and out == local_out and away and
          all('auth-token' not in h for h in away),
          'header not sent to another origin: exit %d, %r' % (code, away))
    check(all(h.get('auth-token') == 's3cret-token' for h in srv.headers_of('away')),
          'header sent to the server itself before its redirect')

    # 15. A busy server (503, Retry-After: 1) is asked again: the walk is
    # the local one, nothing said; one that stays busy: 3 requests a path,
    # one line each.
    t0 = time.monotonic()
    code, out, err = walk(['--symbols-cache', new_cache(), '--symbols-url', srv.url('busy'),
                           example])
    check(code == 0 and out == local_out and stderr_lines(err) == [],
          'busy then ok: exit %d, %r' % (code, stderr_lines(err)))
    paths = [p for p in srv.requests if p.startswith('/busy/')]
    check(all(paths.count(p) == 2 for p in set(paths)) and time.monotonic() - t0 < 60,
          'busy: each path asked twice: %r' % paths)
    code, out, err = walk(['--symbols-cache', new_cache(), '--symbols-url', srv.url('down503'),
                           example])
    lines = stderr_lines(err)
    paths = [p for p in srv.requests if p.startswith('/down503/')]
    check(code == 0 and paths and all(paths.count(p) == 3 for p in set(paths)) and
          all('HTTP status 503, 3 times' in l for l in lines if 'down503' in l) and
          any('HTTP status 503, 3 times' in l for l in lines),
          'always 503: 3 requests a path, %r' % lines)

# 16. Usage: a header that is not one, or with no server to go to.
for args, want in ((['--symbols-header', 'NoColon'], 'not followed by'),
                   (['--symbols-header', 'Bad Name: x'], 'not followed by'),
                   (['--symbols-header', ': x'], 'no header name'),
                   (['--symbols-header', 'X: a\r\nInjected: 1'], 'control character'),
                   (['--symbols-header', '@/nonexistent/headers'], 'cannot read'),
                   (['--symbols-header', 'X: y'], 'no --symbols-url')):
    code, out, err = walk(args + [example])
    check(code == 2 and want in err and out == b'' and len(stderr_lines(err)) == 1 and
          '\r' not in err and 'Injected' not in err,
          '%s: exit %d, %r' % (args, code, err))
# A bad header's value (a token) is never shown.
code, out, err = walk(['--symbols-header', 'Auth-Token: s3cret\x01', '--symbols-url',
                       'http://127.0.0.1:9/', example])
check(code == 2 and "'Auth-Token'" in err and 's3cret' not in err,
      'a bad header: its name only: %r' % err)

# 12. Usage: a plain path, a bad timeout.
for args, want in ((['--symbols-url', '/srv/symbols', example], 'http://, https:// or file://'),
                   (['--symbols-url', 'ftp://x/', example], 'http://, https:// or file://'),
                   (['--symbols-timeout', '0', example], '--symbols-timeout')):
    code, out, err = walk(args)
    check(code == 2 and want in err and out == b'', '%s: exit %d, %r' % (args, code, err))

# 13. A server nobody listens on: one line, the walk goes on.
code, out, err = walk(['--symbols-cache', new_cache(), '--symbols-url', 'http://127.0.0.1:9/x',
                       example])
lines = stderr_lines(err)
check(code == 0 and len(lines) == 1 and '127.0.0.1:9' in lines[0], 'refused port: %r' % lines)

sys.exit(checks.summary())
