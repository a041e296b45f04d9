#!/bin/sh
# build.sh OUTDIR: builds the crash firmware for the three boards of
# tests/firmware.py (arm-none-eabi-gcc) into OUTDIR/BOARD.elf.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../..
out=$1
mkdir -p "$out"
build() { # board cpu arch_major fpu [flags]
	board=$1 cpu=$2 major=$3 fpu=$4; shift 4
	arm-none-eabi-gcc -mcpu="$cpu" -mthumb "$@" -DFPU="$fpu" -DARCH_MAJOR="$major" \
		-DBOARD="\"$board\"" -O1 -g -ffreestanding -nostdlib -Wl,--build-id \
		-Wall -Wextra -Werror -T "$here/link.ld" -I "$root/formats" -I "$here/../common" \
		-o "$out/$board.elf" "$here/fw.c" "$root/formats/snap_writer.c"
}
build mps2-an385 cortex-m3 7 0
build microbit cortex-m0 6 0
build mps2-an386 cortex-m4 7 1 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
