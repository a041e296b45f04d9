#!/bin/bash
# gen_entry.sh: builds entry.c for mips, mipsel and mips64el as Debian's
# cross compilers build a program (-O2 -g, PIE), crashes each case under
# qemu-user for a core, runs it again under qemu-user's gdb stub for gdb's
# backtrace of the same crash, and installs the fixtures (README.md).
#
#   gen_entry.sh [-a ARCHES] [-c CASES] WORK [DEST]
#
# WORK/ARCH/{entry,CASE/{core,gdb.txt,run.txt}}; with DEST (normally
# testdata/cores/entry): DEST/ARCH/entry and DEST/ARCH/CASE/{core.gz,
# gdb.txt,trail.txt}. Needs gcc-<triple>, qemu-user 7.2, gdb-multiarch
# (../shared/NOTES.md beside the checkout: what qemu's cores hold, and why gdb's
# answer comes from the stub).
set -euo pipefail

SRC=$(cd "$(dirname "$0")" && pwd)
arches="mips mipsel mips64el" cases="badptr sigentry"
while getopts a:c: opt; do
    case $opt in
    a) arches=${OPTARG//,/ } ;;
    c) cases=${OPTARG//,/ } ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
mkdir -p "$1"
WORK=$(cd "$1" && pwd)
DEST=${2:-}

triple() {
    case $1 in
    mips) echo mips-linux-gnu ;;
    mipsel) echo mipsel-linux-gnu ;;
    mips64el) echo mips64el-linux-gnuabi64 ;;
    *) echo "gen_entry.sh: unknown CPU $1" >&2; return 1 ;;
    esac
}

GDB=(gdb-multiarch -nx -batch -ex 'set debug-file-directory /nonexistent'
     -ex 'set pagination off' -ex 'set width 0' -ex 'set print frame-arguments none')

port=$((21000 + $$ % 9000))
for arch in $arches; do
    t=$(triple "$arch")
    sysroot=/usr/$t
    dir=$WORK/$arch
    rm -rf "$dir"
    mkdir -p "$dir"
    # Relative names: DWARF says entry.c in testdata/cores/entry.
    (cd "$SRC" && "$t-gcc" -O2 -g -std=gnu17 -Wall -Wextra -Werror \
        -ffile-prefix-map="$SRC"=testdata/cores/entry -Wl,--build-id \
        -o "$dir/entry" entry.c -pthread)
    for c in $cases; do
        out=$dir/$c
        mkdir -p "$out"
        (
            cd "$out"
            ulimit -c unlimited
            timeout 120 env -i "qemu-$arch" -L "$sysroot" "$dir/entry" "$c" >run.txt 2>&1 && true
            echo "exit $?" >>run.txt
            core=$(find . -maxdepth 1 -name 'qemu_entry_*.core' -printf '%f\n' | head -1)
            [ -n "$core" ] && mv "$core" core
            rm -f core.[0-9]* # qemu itself, dumped by the kernel
            [ -f core ] || echo "gen_entry.sh: $arch/$c: no core" >&2
            # The reference: the same program and case, live under the stub.
            env -i "qemu-$arch" -L "$sysroot" -g "$port" "$dir/entry" "$c" >stub-run.txt 2>&1 &
            qpid=$!
            for _ in $(seq 50); do
                ss -ltn 2>/dev/null | grep -q ":$port " && break
                sleep 0.1
            done
            timeout 120 "${GDB[@]}" -ex "set sysroot $sysroot" -ex "file $dir/entry" \
                -ex 'handle SIGUSR1 nostop noprint pass' -ex "target remote :$port" \
                -ex continue -ex 'echo === crashing thread: bt\n' -ex bt \
                -ex 'echo === all threads: thread apply all bt\n' -ex 'thread apply all bt' \
                -ex kill >gdb.txt 2>&1 || true
            kill "$qpid" 2>/dev/null || true
            wait "$qpid" 2>/dev/null || true
            rm -f stub-run.txt qemu_entry_*.core core.[0-9]*
        )
        port=$((port + 1))
    done
done

[ -n "$DEST" ] || exit 0
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
for arch in $arches; do
    src=$WORK/$arch
    rm -rf "${DEST:?}/$arch"
    mkdir -p "$DEST/$arch"
    cp "$src/entry" "$DEST/$arch/"
    for c in $cases; do
        [ -f "$src/$c/core" ] || { echo "gen_entry.sh: $arch/$c: no core, not installed" >&2; continue; }
        mkdir -p "$DEST/$arch/$c"
        gzip -9 -n -c "$src/$c/core" >"$DEST/$arch/$c/core.gz"
        grep '^trail:' "$src/$c/run.txt" >"$DEST/$arch/$c/trail.txt"
        sed "s#$src/#BIN/#g" "$src/$c/gdb.txt" >"$DEST/$arch/$c/gdb.txt"
    done
done
du -sh "$DEST"
