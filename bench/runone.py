#!/usr/bin/env python3
"""Runs one command twice and appends "WALL_S PEAK_RSS_KIB CPU_MS" to OUT.

    bench/runone.py OUT [--fresh-dir PARENT] -- COMMAND [ARG...]

First run: the command alone, spawned by this process. Wall time runs
from just before the spawn to the return of wait4(); CPU time (user +
sys) is the rusage wait4() gives. Nothing else is counted: `perf stat`
around /usr/bin/time, used before, added ~10 ms of its own to every wall
time (most of a warm walk), and GNU time alone adds ~2 ms of wall and CPU.

Second run: under GNU time, for the peak RSS (%M). The first run's rusage
cannot give it: a process started from this Python process (posix_spawn
shares its memory until exec; fork copies its page tables) starts with
Python's resident set as its high-water mark, which the kernel keeps
across exec (~13 MB, more than a warm walk's). GNU time is small: the
command it forks starts near zero.

--fresh-dir PARENT replaces every argument that is exactly {FRESH} with a
new empty directory under PARENT, made before the clock starts, one per
run (a cold symbol cache). stdout and stderr go to /dev/null.
"""
import os
import sys
import tempfile
import time


def spawn(cmd, fresh_parent):
    if fresh_parent:
        fresh = tempfile.mkdtemp(dir=fresh_parent, prefix='cold.')
        cmd = [fresh if a == '{FRESH}' else a for a in cmd]
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=actions)
    _, _, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    os.close(devnull)
    return t1 - t0, (ru.ru_utime + ru.ru_stime) * 1000


def main(argv):
    if len(argv) < 3 or '--' not in argv:
        sys.exit(__doc__)
    out = argv[1]
    opts, cmd = argv[2:argv.index('--')], argv[argv.index('--') + 1:]
    fresh_parent = opts[1] if opts[:1] == ['--fresh-dir'] else None
    wall, cpu_ms = spawn(cmd, fresh_parent)
    fd, rss_file = tempfile.mkstemp()
    os.close(fd)
    spawn(['/usr/bin/time', '-f', '%M', '-o', rss_file] + cmd, fresh_parent)
    with open(rss_file) as f:
        rss_kib = int(f.read().split()[-1])
    os.unlink(rss_file)
    with open(out, 'a') as f:
        f.write('%.4f %d %.1f\n' % (wall, rss_kib, cpu_ms))


if __name__ == '__main__':
    main(sys.argv)
