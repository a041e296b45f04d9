#!/bin/sh
# build.sh OUTDIR: builds the RV32 crash firmware of tests/firmware.py into
# OUTDIR/riscv32-virt.elf with Debian's riscv64-linux-gnu-gcc, which builds
# RV32 code freestanding (-march=rv32imac_zicsr: binutils 2.40 wants Zicsr
# named for the CSR instructions).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../..
out=$1
mkdir -p "$out"
cc=riscv64-linux-gnu-gcc
# No RV32 C library headers in Debian's cross compiler: GCC's own
# freestanding ones (stddef.h, stdint.h) and ../common/include/string.h.
build() {
	elf=$1; shift
	$cc -march=rv32imac_zicsr -mabi=ilp32 -O1 -g -ffreestanding -nostdlib \
		-nostdinc -isystem "$($cc -print-file-name=include)" -I "$here/../common/include" \
		-nostartfiles -static -Wl,-m,elf32lriscv -Wl,--build-id -Wl,--no-warn-rwx-segments \
		-Wall -Wextra -Werror -T "$here/link.ld" -I "$root/formats" -I "$here/../common" \
		-o "$out/$elf" "$@" "$root/formats/snap_writer.c"
}
build riscv32-virt.elf "$here/fw.c"
# The same crash behind trap entries of FreeRTOS's and ESP-IDF's layouts.
build riscv32-freertos.elf -DLAYOUT_FREERTOS "$here/fw_trap.c"
build riscv32-espidf.elf -DLAYOUT_ESPIDF "$here/fw_trap.c"
# Behind a trap entry known only by its CFI, all of it in .debug_frame.
build riscv32-cfi.elf -DLAYOUT_CFI -fno-asynchronous-unwind-tables "$here/fw_trap.c"
