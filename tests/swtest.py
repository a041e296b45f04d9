"""What the Python suites share: running stackwalk under a timeout,
counting checks, a fresh work folder, and the closing
"NAME: P passed, F failed" line that count_results.py reads (the skip status
and its one line are corpus_skip.py's)."""
import json
import os
import shutil
import subprocess
import sys


def stackwalk_env(env=None, unset=()):
    """os.environ without the variables whose names start with one of
    unset (a server the test did not start must not answer), with env's set
    over it; None when there is nothing to change."""
    if not env and not unset:
        return None
    e = {k: v for k, v in os.environ.items() if not k.startswith(tuple(unset))}
    e.update(env or {})
    return e


def run_stackwalk(stackwalk, argv, timeout=120, env=None, unset=(), raw_stdout=False):
    """Runs STACKWALK ARGV; returns (exit status, stdout, stderr), decoded as
    UTF-8 with bad bytes replaced (stdout left as bytes with raw_stdout, for
    tests that compare outputs byte for byte). A run that outlives timeout
    seconds (None: no limit) is killed and returns (None, '', 'timed out
    after N s')."""
    try:
        p = subprocess.run([stackwalk] + argv, capture_output=True, timeout=timeout,
                           env=stackwalk_env(env, unset))
    except subprocess.TimeoutExpired:
        return None, b'' if raw_stdout else '', 'timed out after %d s' % timeout
    out = p.stdout if raw_stdout else p.stdout.decode('utf-8', 'replace')
    return p.returncode, out, p.stderr.decode('utf-8', 'replace')


def walk_json(stackwalk, argv, timeout=60):
    """The document stackwalk --json ARGV prints; RuntimeError when it exits
    with another status than 0 or says anything on stderr (a fixture's walk
    is clean)."""
    code, out, err = run_stackwalk(stackwalk, ['--json'] + argv, timeout)
    if code != 0:
        raise RuntimeError('stackwalk exit %s: %s' % (code, err.strip()))
    if err.strip():
        raise RuntimeError('stackwalk said: %s' % err.strip())
    return json.loads(out)


def fresh_dir(path):
    """path as an empty folder: what an earlier run left there is removed."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def summary(name, passed, failed):
    """Prints the closing line; returns the exit status (1 when a check
    failed)."""
    print('%s: %d passed, %d failed' % (name, passed, failed))
    sys.stdout.flush()
    return 1 if failed else 0


class Checks:
    """A suite's count of checks: a failed one prints "FAIL what" (prefix
    'FAIL ' unless told) at once, so a timeout later still shows it."""

    def __init__(self, name, prefix='FAIL '):
        self.name = name
        self.prefix = prefix
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(self.prefix + what)
            sys.stdout.flush()
        return ok

    def summary(self):
        return summary(self.name, self.passed, self.failed)
