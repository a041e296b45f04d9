#!/bin/sh
# Regenerates the AArch64 prologue-analysis fixtures (testdata/code/aarch64-*.txt)
# from gen_mips_riscv.sh's small C functions built with Debian's
# aarch64-linux-gnu-gcc at -O0 and -O2, with and without a frame pointer,
# and once with return-address signing (-mbranch-protection=standard:
# paciasp, autiasp, bti c). The format is gen_mips_riscv.sh's (README.md:
# text, func, call/insn, store, fde and cfi lines); the CFI is the
# compiler's own .eh_frame as readelf interprets it. The stores are
# objdump's reading of each save of x19-x30: stp and str, pre-indexed
# ([sp, #-N]!) or at an offset from sp or x29, with the offset from the base
# as it was before the instruction.
#
# Usage: testdata/code/gen_arm64.sh   (from anywhere; needs the compiler)
set -eu

out=$(cd "$(dirname "$0")" && pwd)
. "$out/gen_common.sh"
triple=aarch64-linux-gnu
cc=$triple-gcc

# gen_mips_riscv.sh's functions (write_sources); the 70000-byte frame is
# past AArch64's 12-bit immediates: sub sp, sp, #N, lsl #12 or a constant
# in x16.
write_sources 'callptr(ext, 1) + nonleaf(2) + bigframe(3) + hugeframe(4) + use_alloca(5) +
	       use_vla(6)' \
	leaf nonleaf bigframe hugeframe use_alloca use_vla callptr check

# objdump -d -> "call RA MNEMONIC" (bl, blr and the authenticating blraa,
# blraaz, blrab, blrabz: RA is the instruction's end) or "insn END", and
# "store ADDR REG BASE OFF" for each register of x19-x30 an stp/str saves
# at [sp|x29, #off] or [sp|x29, #off]! (stp: the second at off + 8).
cat >"$work/classify.awk" <<'EOF'
function saved(r) { return r ~ /^x(19|2[0-9]|30)$/ }
BEGIN { FS = "\t" }
/^ *[0-9a-f]+:\t/ {
	insn_fields()
	m = mnem
	sub(/ *\/\/.*/, "", ops)
	if (m == "" || m ~ /^\./)
		next
	if (m ~ /^(bl|blr|blraa|blraaz|blrab|blrabz)$/)
		printf "call %s %s\n", hexstr(end), m
	else
		printf "insn %s\n", hexstr(end)
	if ((m == "stp" || m == "str") && match(ops, /\[(sp|x29)(, #-?[0-9]+)?\]!?$/)) {
		o = ops
		gsub(/ /, "", o)
		n = split(o, f, /[,\[\]#]+/)
		base = (m == "stp") ? f[3] : f[2]
		off = (m == "stp") ? f[4] : f[3]
		if (off == "" || off == "!")
			off = 0
		off += 0
		if (saved(f[1]))
			printf "store %s %s %s %d\n", hexstr(start), f[1], base, off
		if (m == "stp" && saved(f[2]))
			printf "store %s %s %s %d\n", hexstr(start), f[2], base, off + 8
	}
}
EOF

# The CFI's register names (cfi.awk): readelf names AArch64 registers
# x0-x29 and sp, and x30, the CIE's return-address column, "ra". Other
# columns (ra_state, pointer authentication; d8-d15) are left out: the
# tests strip nothing and track no FP registers.
cat >"$work/regs.awk" <<'EOF'
function regname(r) { return r == "ra" ? "x30" : r }
function kept(r) { return r ~ /^(x[0-9]+|sp)$/ }
EOF

# variant NAME "CFLAGS": funcs.c with CFLAGS, other.c at -O2 with the
# same branch protection, linked without libc.
variant() {
	name=$1 cflags=$2
	dir=$work/$name
	mkdir -p "$dir"
	target=$(echo "$cflags" | sed 's/ *-O.*//')
	build_prog "$cc" "$dir/prog" "$cflags -fasynchronous-unwind-tables" \
		"$target -O2 -fasynchronous-unwind-tables" "$target"
	text_section "$triple" "$dir/prog"
	{
		fixture_header "$cc" "funcs.c: $cflags -fasynchronous-unwind-tables; other.c: -O2 with the same target flags"
		echo "arch arm64"
		echo "endian little"
		text_lines
		func_lines "$triple" "$dir/prog"
		classify_lines "$triple" "$dir/prog"
		cfi_lines "$triple" "$dir/prog"
	} >"$out/$name.txt"
}

for opt in O0 O2; do
	variant "aarch64-$opt-fp" "-$opt -fno-omit-frame-pointer"
	variant "aarch64-$opt-nofp" "-$opt -fomit-frame-pointer"
done
variant aarch64-pac-O2-nofp "-mbranch-protection=standard -O2 -fomit-frame-pointer"
