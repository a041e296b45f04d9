#!/bin/sh
# Makes testdata/names (README.md): the crash program built against glibc
# (dynamic) and musl (static, musl-gcc -static), each crashed natively
# with the kernel writing the core, and what gdb and eu-stack print.
# Usage: testdata/names/make.sh [DEST]   (default: this folder)
# Needs gcc, musl-tools, gdb, elfutils and a kernel core_pattern of "core".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$here/crash.c" .
gcc -g -O1 -fdebug-prefix-map="$work"=. -o glibc_dynamic crash.c
musl-gcc -static -g -O1 -fdebug-prefix-map="$work"=. -o musl_static crash.c
ulimit -c unlimited
crash() { # NAME PROGRAM ARGS...: runs it, keeps its core as NAME.core
	name=$1; shift
	rm -f core
	"$@" || true
	test -f core || { echo "make.sh: no core from $*" >&2; exit 1; }
	mv core "$name.core"
}
crash glibc_abort ./glibc_dynamic abort
crash musl_segv ./musl_static
for c in glibc_abort:glibc_dynamic musl_segv:musl_static; do
	name=${c%%:*} prog=${c#*:}
	gdb -nx -batch -iex 'set debuginfod enabled off' \
	    -iex 'set debug-file-directory /nonexistent' -iex 'set backtrace past-main on' \
	    -ex 'echo BACKTRACE\n' -ex bt "./$prog" "$name.core" 2>&1 |
	    sed -n '/^BACKTRACE$/,$p' | grep '^#' > "$name.gdb.txt" || true
	eu-stack --debuginfo-path=/nonexistent --core="$name.core" --executable="./$prog" \
	    2>&1 | sed "s|$work/||g" > "$name.eu-stack.txt" || true
	gzip -9n < "$name.core" > "$dest/$name.core.gz"
	cp "$name.gdb.txt" "$name.eu-stack.txt" "$dest/"
done
cp glibc_dynamic musl_static "$dest/"
# The libc the glibc core ran with: the test walks it only when this
# machine's copy is the same build.
readelf -n /lib/x86_64-linux-gnu/libc.so.6 | sed -n 's/.*Build ID: //p' > "$dest/glibc_abort.libc-build-id"
