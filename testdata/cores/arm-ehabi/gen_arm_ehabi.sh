#!/bin/bash
# gen_arm_ehabi.sh: builds ehabi.c for armhf in a few ways, crashes each
# case under qemu-arm, and installs the cores (gzipped), the programs and
# what they and gdb said into this folder (README.md). tests/armehabi.py
# walks them.
#
#   gen_arm_ehabi.sh [WORK]      (default: a temporary folder, removed)
#
# Needs Debian 12's arm-linux-gnueabihf-gcc 12.2, libc6-armhf-cross 2.36,
# qemu-user 7.2 and gdb-multiarch 13.1 (testdata/cores/README.md says why
# qemu's cores are as they are and why gdb's answer comes from a second run
# under qemu's gdb stub).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SYSROOT=/usr/arm-linux-gnueabihf
CC=arm-linux-gnueabihf-gcc
if [ $# -ge 1 ]; then
    mkdir -p "$1"
    WORK=$(cd "$1" && pwd)
else
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
fi

# VARIANT:FLAGS:CASES. No -g anywhere (no .debug_frame): the program's
# unwind information is what its .ARM.exidx says, or nothing.
#   thumb-O2         Thumb-2 without unwind tables: crt1.o's CANTUNWIND
#                    covers the program; also walked stripped
#   arm-O0           ARM code at -O0: r11 frame records, no unwind tables
#   arm-O2-unwind    ARM code with -funwind-tables: the program has its
#                    entries, libc's abort has none
VARIANTS="
thumb-O2:-mthumb -O2 -fomit-frame-pointer -fno-unwind-tables -fno-asynchronous-unwind-tables:deep,abort,leaf,thread
arm-O0:-marm -O0 -fno-unwind-tables -fno-asynchronous-unwind-tables:deep,abort
arm-O2-unwind:-marm -O2 -fomit-frame-pointer -funwind-tables:abort
"

GDB_COMMON=(-nx -batch -ex 'set debug-file-directory /nonexistent'
            -ex 'set pagination off' -ex 'set width 0' -ex 'set print frame-arguments none')

wait_for_port() {
    for _ in $(seq 50); do
        ss -ltn 2>/dev/null | grep -q ":$1 " && return 0
        sleep 0.1
    done
}

port=$((20000 + $$ % 10000))
while IFS=: read -r variant flags cases; do
    [ -n "$variant" ] || continue
    dir=$WORK/$variant
    rm -rf "$dir"
    mkdir -p "$dir/stripped"
    # shellcheck disable=SC2086
    (cd "$HERE" && $CC $flags -std=gnu17 -Wall -Wextra -Wl,--build-id -pthread \
        -o "$dir/ehabi" ehabi.c)
    arm-linux-gnueabihf-strip --strip-all -R .comment -o "$dir/stripped/ehabi" "$dir/ehabi"
    for c in ${cases//,/ }; do
        out=$dir/$c
        mkdir -p "$out"
        (
            cd "$out"
            ulimit -c unlimited
            timeout 120 env -i qemu-arm -L "$SYSROOT" "$dir/ehabi" "$c" >run.txt 2>&1 && true
            echo "exit $?" >>run.txt
            core=$(find . -maxdepth 1 -name 'qemu_ehabi_*.core' -printf '%f\n' | head -1)
            [ -n "$core" ] && mv "$core" core
            # qemu itself, dumped by the kernel beside its guest's core
            rm -f core.[0-9]* ./core.qemu
            [ -f core ] || { echo "gen_arm_ehabi.sh: $variant/$c: no core" >&2; exit 1; }
            env -i qemu-arm -L "$SYSROOT" -g "$port" "$dir/ehabi" "$c" >/dev/null 2>&1 &
            qpid=$!
            wait_for_port "$port"
            timeout 120 gdb-multiarch "${GDB_COMMON[@]}" -ex "set sysroot $SYSROOT" \
                -ex "file $dir/ehabi" -ex "target remote :$port" -ex continue \
                -ex 'echo === crashing thread: bt\n' -ex bt \
                -ex 'echo === all threads: thread apply all bt\n' -ex 'thread apply all bt' \
                -ex kill >gdb.txt 2>&1 || true
            kill "$qpid" 2>/dev/null || true
            wait "$qpid" 2>/dev/null || true
            rm -f qemu_ehabi_*.core
        )
        port=$((port + 1))
    done
done <<<"$VARIANTS"

# Install: per variant the program (and its stripped copy), per case
# core.gz, run.txt and gdb.txt (scratch paths replaced).
while IFS=: read -r variant flags cases; do
    [ -n "$variant" ] || continue
    src=$WORK/$variant
    dest=$HERE/$variant
    rm -rf "$dest"
    mkdir -p "$dest/stripped"
    cp "$src/ehabi" "$dest/"
    cp "$src/stripped/ehabi" "$dest/stripped/"
    for c in ${cases//,/ }; do
        mkdir -p "$dest/$c"
        gzip -9 -n -c "$src/$c/core" >"$dest/$c/core.gz"
        cp "$src/$c/run.txt" "$dest/$c/"
        sed "s#$src/#BIN/#g" "$src/$c/gdb.txt" >"$dest/$c/gdb.txt"
    done
done <<<"$VARIANTS"
du -sh "$HERE"
