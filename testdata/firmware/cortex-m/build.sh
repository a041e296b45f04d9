#!/bin/sh
# build.sh OUTDIR: builds the crash firmware for the boards of
# tests/firmware.py (arm-none-eabi-gcc) into OUTDIR/BOARD.elf.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../..
out=$1
mkdir -p "$out"
build() { # board memory cpu arch_major fpu secure ns_irq [flags]
	board=$1 memory=$2 cpu=$3 major=$4 fpu=$5 secure=$6 ns_irq=$7; shift 7
	arm-none-eabi-gcc -mcpu="$cpu" -mthumb "$@" -DFPU="$fpu" -DARCH_MAJOR="$major" \
		-DSECURE="$secure" -DNS_IRQ="$ns_irq" -DBOARD="\"$board\"" \
		-O1 -g -ffreestanding -nostdlib \
		-nostdinc -isystem "$(arm-none-eabi-gcc -print-file-name=include)" \
		-I "$here/../common/include" \
		-Wl,--build-id -Wall -Wextra -Werror \
		-T "$here/memory-$memory.ld" -T "$here/link.ld" \
		-I "$root/formats" -I "$here/../common" \
		-o "$out/$board.elf" "$here/fw.c" "$root/formats/snap_writer.c"
}
build mps2-an385 mps2 cortex-m3 7 0 0 0
# PendSV_Handler a leaf that faults itself (fw.c LEAF_HANDLER).
build mps2-an385-leaf mps2 cortex-m3 7 0 0 0 -DLEAF_HANDLER=1
build microbit mps2 cortex-m0 6 0 0 0
build mps2-an386 mps2 cortex-m4 7 1 0 0 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
build mps2-an505 an505 cortex-m33 8 1 1 0 -mfpu=fpv5-sp-d16 -mfloat-abi=hard
build mps2-an505-ns an505-ns cortex-m33 8 1 1 1 -mfpu=fpv5-sp-d16 -mfloat-abi=hard
# STM32-style: flash at 0x08000000, the vector table's segment first, at
# file offset 0x10000 (memory-stm32.ld; tests/firmware_sym.py).
build netduino2 stm32 cortex-m3 7 0 0 0 -DIMAGE_START -Wl,-z,max-page-size=0x10000
# Stripped copies (no symbols, no .debug_frame: the code and the vector
# table only), which tests/firmware.py also walks.
for board in mps2-an385 mps2-an385-leaf; do
	arm-none-eabi-strip -o "$out/$board-stripped.elf" "$out/$board.elf"
done
