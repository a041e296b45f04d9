#!/bin/bash
# gen_cores.sh: build crash.c + libcrashlib.c for each CPU and flavour, make
# a core of each crash case and record gdb's backtrace for it; optionally
# copy a compact subset into testdata/cores as fixtures.
#
#   gen_cores.sh [-a ARCHES] [-f FLAVOURS] [-c CASES] [-i DEST] [-n] [-j N] WORK
#
#   -a  comma-separated CPUs (default: all of $ALL_ARCHES)
#   -f  comma-separated flavours (default: all of $ALL_FLAVOURS)
#   -c  comma-separated cases (default: all of $ALL_CASES)
#   -i  after generating, copy the fixture subset ($FIXTURES) that was
#       generated into DEST (normally testdata/cores) and gzip the cores
#   -n  generate nothing: only install (-i) from an earlier run into WORK
#   -j  cases run in parallel (default 2)
#   WORK  a scratch directory: WORK/<arch>-<flavour>/{bin,symbols,<case>}
#
# Needs Debian 12's cross compilers (gcc-<triple>), qemu-user 7.2,
# gdb-multiarch 13.1; x86_64 runs natively (the kernel's
# core_pattern must be a plain file name such as `core`), the others under
# qemu-user, which writes qemu_<prog>_<date>_<pid>.core into the current
# directory. qemu-user 7.2 writes no riscv cores: riscv64 ($OFFLINE_ARCHES)
# is captured instead as an offline snapshot folder (docs/offline-format.md)
# through qemu's gdb stub, stopped at the fatal signal: offline_capture.py
# writes the crashing thread's registers, the modules' maps from the
# loader's link_map and the stack, into WORK/<arch>-<flavour>/<case>/.
#
# Flavours:
#   O0        -O0 -g
#   O2fp      -O2 -g -fno-omit-frame-pointer
#   O2nofp    -O2 -g -fomit-frame-pointer
#   nounwind  -O2 -fno-asynchronous-unwind-tables -fno-unwind-tables (no -g,
#             so no .debug_frame either), run stripped; the unstripped copy
#             is kept in symbols/
#
# gdb's answer (<case>/gdb.txt): for native cores, gdb on the core
# (`gdb -batch ... -ex 'file PROG' -ex 'core-file CORE' -ex bt -ex 'thread
# apply all bt'`); for qemu cores, which gdb cannot relocate (no NT_FILE, no
# ELF header pages), gdb on a second run of the same program and case under
# qemu-user's gdb stub, stopped at the same fault. The unstripped program is
# given to gdb in the nounwind flavour. debug-file-directory is
# /nonexistent, so gdb reads no separate debug files (libc6-dbg).
set -euo pipefail

ALL_ARCHES="x86_64 i386 aarch64 arm mips mipsel mips64el ppc64le riscv64"
# CPUs whose qemu-user writes no core: captured as offline folders.
OFFLINE_ARCHES="riscv64"
ALL_FLAVOURS="O0 O2fp O2nofp nounwind"
ALL_CASES="chain leaf alloca recurse qsort nullcall abort signal sigspin thread"
# The compact subset committed as fixtures: ARCH-FLAVOUR:CASE,CASE... or :all.
# i386 is generated but not committed: gdb 13.1 through qemu-i386 7.2's stub
# relocates nothing (no program symbols, "No shared libraries loaded"), so
# there is no reference answer (README.md). riscv64's offline folders are
# 7-14 KB each (no core): every case of every flavour is committed.
FIXTURES="
x86_64-O0:chain,signal
x86_64-O2fp:chain,signal,sigspin
x86_64-O2nofp:all
aarch64-O0:chain,signal
aarch64-O2fp:chain,signal,sigspin
aarch64-O2nofp:all
arm-O0:chain,signal
arm-O2fp:chain,signal,sigspin
arm-O2nofp:all
mips-O0:chain,signal
mips-O2fp:chain,signal,sigspin
mips-O2nofp:all
mips-nounwind:all
mipsel-O0:chain,signal
mipsel-O2fp:chain,signal,sigspin
mipsel-O2nofp:all
mipsel-nounwind:all
mips64el-O0:chain,signal
mips64el-O2fp:chain,signal,sigspin
mips64el-O2nofp:all
mips64el-nounwind:all
ppc64le-O0:chain,signal
ppc64le-O2fp:chain,signal,sigspin
ppc64le-O2nofp:all
riscv64-O0:all
riscv64-O2fp:all
riscv64-O2nofp:all
riscv64-nounwind:all
"

SRC=$(cd "$(dirname "$0")" && pwd)
arches=$ALL_ARCHES flavours=$ALL_FLAVOURS cases=$ALL_CASES dest="" jobs=2 generate=1
while getopts a:f:c:i:j:n opt; do
    case $opt in
    a) arches=${OPTARG//,/ } ;;
    f) flavours=${OPTARG//,/ } ;;
    c) cases=${OPTARG//,/ } ;;
    i) dest=$(mkdir -p "$OPTARG" && cd "$OPTARG" && pwd) ;;
    j) jobs=$OPTARG ;;
    n) generate=0 ;;
    *) sed -n '2,14p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
mkdir -p "$1"
WORK=$(cd "$1" && pwd)

# arch -> "compiler qemu sysroot"; qemu "-" runs natively. i386 runs under
# qemu-i386 too: this machine's kernel has no IA32 emulation ("Exec format
# error"); on a kernel with it, "i686-linux-gnu-gcc - /" gives kernel cores
# (with libc6-i386 installed). Its sysroot is / (libc6-i386: /lib/ld-linux.so.2
# and /lib32), not /usr/i686-linux-gnu: the host's ld.so.cache sends the cross
# sysroot's ld.so to /lib32's libc, a mismatched pair that hangs in
# pthread_create. aarch64 runs as a
# Cortex-A72 (ARMv8.0): with qemu's default CPU, "max", the signal frame holds
# an SVE record whose vector length gdb 13.1 rejects through the stub
# ("Invalid vector length in signal frame 4 vs 16"), and it has pointer
# authentication, whose mask neither qemu's core nor its stub carries.
arch_info() {
    case $1 in
    x86_64)   echo "gcc - /" ;;
    i386)     echo "i686-linux-gnu-gcc qemu-i386 /" ;;
    aarch64)  echo "aarch64-linux-gnu-gcc qemu-aarch64,-cpu,cortex-a72 /usr/aarch64-linux-gnu" ;;
    arm)      echo "arm-linux-gnueabihf-gcc qemu-arm /usr/arm-linux-gnueabihf" ;;
    mips)     echo "mips-linux-gnu-gcc qemu-mips /usr/mips-linux-gnu" ;;
    mipsel)   echo "mipsel-linux-gnu-gcc qemu-mipsel /usr/mipsel-linux-gnu" ;;
    mips64el) echo "mips64el-linux-gnuabi64-gcc qemu-mips64el /usr/mips64el-linux-gnuabi64" ;;
    ppc64le)  echo "powerpc64le-linux-gnu-gcc qemu-ppc64le /usr/powerpc64le-linux-gnu" ;;
    riscv64)  echo "riscv64-linux-gnu-gcc qemu-riscv64 /usr/riscv64-linux-gnu" ;;
    *) echo "gen_cores.sh: unknown CPU $1" >&2; return 1 ;;
    esac
}

flavour_flags() {
    case $1 in
    O0)       echo "-O0 -g" ;;
    O2fp)     echo "-O2 -g -fno-omit-frame-pointer" ;;
    O2nofp)   echo "-O2 -g -fomit-frame-pointer" ;;
    nounwind) echo "-O2 -fno-asynchronous-unwind-tables -fno-unwind-tables" ;;
    *) echo "gen_cores.sh: unknown flavour $1" >&2; return 1 ;;
    esac
}

# build ARCH FLAVOUR: WORK/ARCH-FLAVOUR/bin/{crash,libcrashlib.so} (what
# runs) and symbols/ (the unstripped copies, nounwind only).
build() {
    local arch=$1 flavour=$2 cc qemu sysroot flags dir
    read -r cc qemu sysroot < <(arch_info "$arch")
    flags=$(flavour_flags "$flavour")
    dir=$WORK/$arch-$flavour
    rm -rf "$dir"
    mkdir -p "$dir/bin"
    # Compiled from testdata/cores with relative names: DWARF says crash.c in
    # testdata/cores (DW_AT_comp_dir), not this checkout's path.
    local common="-std=gnu17 -Wall -Wextra -ffile-prefix-map=$SRC=testdata/cores"
    # shellcheck disable=SC2086,SC2016 # word-split flags; $ORIGIN is for ld
    (cd "$SRC" && "$cc" $flags $common -fPIC -shared -Wl,--build-id \
        -o "$dir/bin/libcrashlib.so" libcrashlib.c &&
     "$cc" $flags $common -Wl,--build-id -o "$dir/bin/crash" crash.c \
        -L"$dir/bin" -lcrashlib -Wl,-rpath,'$ORIGIN' -pthread)
    if [ "$flavour" = nounwind ]; then
        mkdir -p "$dir/symbols"
        cp "$dir/bin/crash" "$dir/bin/libcrashlib.so" "$dir/symbols/"
        local strip=${cc%gcc}strip
        command -v "$strip" >/dev/null || strip="strip"
        "$strip" "$dir/bin/crash" "$dir/bin/libcrashlib.so"
    fi
}

GDB_COMMON=(-nx -batch -ex 'set debug-file-directory /nonexistent'
            -ex 'set pagination off' -ex 'set width 0' -ex 'set print frame-arguments none')
GDB_REPORT=(-ex 'echo === crashing thread: bt\n' -ex 'bt'
            -ex 'echo === all threads: thread apply all bt\n' -ex 'thread apply all bt')

is_offline() {
    case " $OFFLINE_ARCHES " in *" $1 "*) return 0 ;; esac
    return 1
}

# wait_for_port PORT: until qemu's gdb stub listens (5 s at most).
wait_for_port() {
    for _ in $(seq 50); do
        ss -ltn 2>/dev/null | grep -q ":$1 " && return 0
        sleep 0.1
    done
    return 0
}

# run_case ARCH FLAVOUR CASE PORT: WORK/ARCH-FLAVOUR/CASE/{core,gdb.txt,run.txt},
# or for $OFFLINE_ARCHES the offline folder (regs.txt, maps.txt, links.txt,
# stack*.data) with gdb.txt and run.txt in it.
run_case() {
    local arch=$1 flavour=$2 case=$3 port=$4 cc qemu sysroot
    read -r cc qemu sysroot < <(arch_info "$arch")
    local -a qcmd
    IFS=, read -r -a qcmd <<<"$qemu"
    local dir=$WORK/$arch-$flavour
    local out=$dir/$case prog=$dir/bin/crash libdir=$dir/bin
    if [ "$flavour" = nounwind ]; then prog=$dir/symbols/crash; libdir=$dir/symbols; fi
    rm -rf "$out"
    mkdir -p "$out"
    (
        cd "$out"
        ulimit -c unlimited
        if [ "$qemu" = - ]; then
            timeout 120 env -i "$dir/bin/crash" "$case" >run.txt 2>&1 && true
            echo "exit $?" >>run.txt
            local core
            core=$(find . -maxdepth 1 -name 'core*' -printf '%f\n' | sort | head -1)
            [ -n "$core" ] && [ "$core" != core ] && mv "$core" core
            gdb "${GDB_COMMON[@]}" -ex "file $prog" -ex 'core-file core' \
                "${GDB_REPORT[@]}" >gdb.txt 2>&1 || true
        elif is_offline "$arch"; then
            # No core: one run under the stub, stopped at the fatal signal
            # (SIGUSR1 passed to the handler), captured there by
            # offline_capture.py from the live process (the program as it
            # ran, stripped or not), then gdb's answer on the same stop.
            env -i "${qcmd[@]}" -L "$sysroot" -g "$port" "$dir/bin/crash" "$case" \
                >run.txt 2>&1 &
            local qpid=$!
            wait_for_port "$port"
            timeout 120 gdb-multiarch "${GDB_COMMON[@]}" -ex "set sysroot $sysroot" \
                -ex "set solib-search-path $libdir" -ex "file $prog" \
                -ex 'handle SIGUSR1 nostop noprint pass' \
                -ex "target remote :$port" -ex continue \
                -ex "source $SRC/offline_capture.py" -ex "offline-capture $out $dir/bin/crash" \
                "${GDB_REPORT[@]}" -ex kill >gdb.txt 2>&1 || true
            kill "$qpid" 2>/dev/null || true
            wait "$qpid" 2>/dev/null || true
            rm -f core.[0-9]*
        else
            timeout 120 env -i "${qcmd[@]}" -L "$sysroot" "$dir/bin/crash" "$case" >run.txt 2>&1 && true
            echo "exit $?" >>run.txt
            local core
            core=$(find . -maxdepth 1 -name 'qemu_crash_*.core' -printf '%f\n' | head -1)
            [ -n "$core" ] && mv "$core" core
            # core.<pid> of qemu itself (riscv, see NOTES.md) is not wanted
            rm -f core.[0-9]*
            # The reference: the same program and case, live under the stub.
            env -i "${qcmd[@]}" -L "$sysroot" -g "$port" "$dir/bin/crash" "$case" \
                >stub-run.txt 2>&1 &
            local qpid=$!
            wait_for_port "$port"
            timeout 120 gdb-multiarch "${GDB_COMMON[@]}" -ex "set sysroot $sysroot" \
                -ex "set solib-search-path $libdir" -ex "file $prog" \
                -ex 'handle SIGUSR1 nostop noprint pass' \
                -ex "target remote :$port" -ex continue \
                "${GDB_REPORT[@]}" -ex kill >gdb.txt 2>&1 || true
            kill "$qpid" 2>/dev/null || true
            wait "$qpid" 2>/dev/null || true
            rm -f stub-run.txt qemu_crash_*.core core.[0-9]*
        fi
        if is_offline "$arch"; then
            [ -f regs.txt ] && [ -f stack.data ] ||
                echo "gen_cores.sh: $arch-$flavour/$case: no offline capture" >&2
        else
            [ -f core ] || echo "gen_cores.sh: $arch-$flavour/$case: no core" >&2
        fi
    )
}

for arch in $arches; do
    arch_info "$arch" >/dev/null
    [ "$generate" = 1 ] || continue
    for flavour in $flavours; do
        echo "== build $arch-$flavour"
        build "$arch" "$flavour"
    done
done

port=$((20000 + $$ % 10000))
running=0
[ "$generate" = 1 ] || arches=""
for arch in $arches; do
    for flavour in $flavours; do
        for case in $cases; do
            run_case "$arch" "$flavour" "$case" "$port" &
            port=$((port + 1))
            running=$((running + 1))
            if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
        done
    done
done
wait

# Summarise: frames of the crashing thread, per case (gdb's names).
[ "$generate" = 1 ] && for arch in $arches; do
    for flavour in $flavours; do
        for case in $cases; do
            f=$WORK/$arch-$flavour/$case/gdb.txt
            [ -f "$f" ] || continue
            frames=$(sed -n '/^=== crashing thread/,/^=== all threads/p' "$f" |
                sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ (]*\).*/\2/p' | tr '\n' ' ')
            echo "$arch-$flavour/$case: $frames"
        done
    done
done >"$WORK/summary.txt" && cat "$WORK/summary.txt"

[ -n "$dest" ] || exit 0

# Install the fixture subset: per ARCH-FLAVOUR the program and library (as
# run), symbols/ (nounwind), and per case core.gz and gdb.txt; for
# $OFFLINE_ARCHES the case folder is the offline snapshot (regs.txt,
# maps.txt, stack*.data uncompressed: the reader takes memory files as they
# are; a few KiB each), with links.txt sending the program and library to
# ARCH-FLAVOUR/ (../) and the C library to the cross sysroot.
for spec in $FIXTURES; do
    af=${spec%%:*}
    src=$WORK/$af
    [ -d "$src/bin" ] || continue
    rm -rf "${dest:?}/$af"
    mkdir -p "$dest/$af"
    cp "$src/bin/crash" "$src/bin/libcrashlib.so" "$dest/$af/"
    [ -d "$src/symbols" ] && cp -r "$src/symbols" "$dest/$af/"
    fixture_cases=${spec#*:}
    [ "$fixture_cases" = all ] && fixture_cases=${ALL_CASES// /,}
    for c in ${fixture_cases//,/ }; do
        if is_offline "${af%-*}"; then
            [ -f "$src/$c/regs.txt" ] ||
                { echo "gen_cores.sh: $af/$c: no offline capture, not installed" >&2; continue; }
            mkdir -p "$dest/$af/$c"
            cp "$src/$c/regs.txt" "$src/$c/maps.txt" "$src/$c"/stack*.data "$dest/$af/$c/"
            sed "s#^$WORK/$af/bin/#../#" "$src/$c/links.txt" >"$dest/$af/$c/links.txt"
        else
            [ -f "$src/$c/core" ] || { echo "gen_cores.sh: $af/$c: no core, not installed" >&2; continue; }
            mkdir -p "$dest/$af/$c"
            gzip -9 -n -c "$src/$c/core" >"$dest/$af/$c/core.gz"
        fi
        # Paths of this machine's scratch directory are not fixtures' business.
        sed "s#$WORK/$af/bin/#BIN/#g; s#$WORK/$af/symbols/#SYMBOLS/#g; s#$WORK/$af/$c#CASE#g" \
            "$src/$c/gdb.txt" >"$dest/$af/$c/gdb.txt"
        # Without CFI gdb's own walk may stop early or go wrong: the same
        # case built with unwind tables (O2nofp: the same code) is the
        # reference for the function names.
        with=$WORK/${af%-nounwind}-O2nofp/$c/gdb.txt
        if [ "${af##*-}" = nounwind ] && [ -f "$with" ]; then
            sed "s#$WORK/[^ ]*/bin/#BIN/#g" "$with" >"$dest/$af/$c/gdb-unwind.txt"
        fi
    done
done
du -sh "$dest"
