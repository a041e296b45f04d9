"""The real-corpus tests' one way of saying the corpus is not there:
meson's skip status (77) and one line naming the folder and the test, so a
checkout without ../shared builds and tests (as a packager's does) instead
of failing every conformance suite."""
import os
import sys

SKIP = 77  # meson: the test was skipped


def require_corpus(corpus, name, folder=None):
    """Returns when corpus (and corpus/folder, when given) is a directory;
    else prints "CORPUS not found: NAME skipped" and exits with SKIP."""
    for path in (corpus, os.path.join(corpus, folder) if folder else None):
        if path and not os.path.isdir(path):
            print('%s not found: %s skipped' % (path, name))
            sys.stdout.flush()
            sys.exit(SKIP)
