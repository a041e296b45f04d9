#!/bin/sh
# Regenerates the MIPS and RISC-V code fixtures (testdata/code/mips*.txt,
# riscv*.txt) from small C functions built with Debian's cross compilers:
#   mipsel-linux-gnu-gcc          o32 little-endian: PIC (the default: jalr t9,
#                                 .cpload's lui gp), non-PIC (jal) and MIPS32R6
#                                 (compact balc / jialc calls)
#   mips-linux-gnu-gcc            o32 big-endian
#   mips64el-linux-gnuabi64-gcc   n64, and n32 (-mabi=n32: 64-bit registers
#                                 saved with sd, 32-bit pointers)
#   riscv64-linux-gnu-gcc         rv64gc (lp64d), rv64g without the C
#                                 extension, and rv32imac (ilp32), which has
#                                 no libc here: compiled with -c and linked by
#                                 ld -m elf32lriscv (its relaxation turns calls
#                                 into jal and c.jal)
# Each variant is linked (no libc) so that calls are resolved as a real
# program has them, and its .text is written out with the functions, every
# return address a call leaves, every other instruction end, and the
# compiler's own call frame information (readelf's interpretation of
# .eh_frame) for every address: the reference the prologue-analysis tests
# compare against. A variant built with -fno-asynchronous-unwind-tables has
# no .eh_frame; its CFI comes from a twin built with the tables, after
# checking that both twins have the same instructions at the same addresses
# (only the gp offsets of PIC code may differ: .eh_frame moves the GOT).
# The format is described in README.md. CI does not run this: the tests
# read only the committed fixtures.
#
# Usage: testdata/code/gen_mips_riscv.sh   (from anywhere; needs the compilers)
set -eu

out=$(cd "$(dirname "$0")" && pwd)
. "$out/gen_common.sh"

# gen_common.sh's functions but the jump table (write_sources).
write_sources 'callptr(ext, 1) + nonleaf(2) + bigframe(3) + hugeframe(4) + use_alloca(5) +
	       use_vla(6)' \
	leaf nonleaf bigframe hugeframe use_alloca use_vla callptr check

# Reads objdump -d and prints, for every instruction, "call RA MNEMONIC" if
# it is a call (RA: the return address it leaves in the link register) or
# "insn END" otherwise (END: the address right after it). The reading is
# objdump's mnemonic, not the walker's decoder: the tests check one against
# the other. Stores of registers into the frame follow as "store ADDR REG
# BASE OFFSET" (objdump's operands): when each save really runs, which the
# CFI may name a few instructions late, or early (a store in a delay slot).
#   MIPS: jal, jalr (objdump says jr when rd is zero), bal, bgezal, bltzal,
#   bgezall, bltzall, jalx return past their delay slot (RA = END + 4); the
#   R6 compact calls balc, jialc (jalrc) have none (RA = END).
#   RISC-V: jal and jalr (and their compressed forms, which objdump prints
#   alike) whose link register is ra; objdump omits rd when it is ra.
cat >"$work/classify.awk" <<'EOF'
BEGIN { FS = "\t" }
/^ *[0-9a-f]+:\t/ {
	insn_fields()
	m = mnem
	if (m == "" || m ~ /^\./)
		next
	call = 0
	ra = end
	if (arch ~ /^mips/) {
		if (m ~ /^(jal|jalr|jalr\.hb|bal|bgezal|bltzal|bgezall|bltzall|jalx)$/) {
			call = 1
			ra = end + 4
		} else if (m ~ /^(balc|jialc|jalrc)$/) {
			call = 1
		}
	} else if (m == "jal" || m == "jalr") {
		call = 1
		if (ops ~ /^[a-z0-9]+,/ && ops !~ /^ra,/)
			call = 0
	}
	if (call)
		printf "call %s %s\n", hexstr(ra), m
	else
		printf "insn %s\n", hexstr(end)
	# A store of a register the CFI may describe, relative to sp or the
	# frame pointer: "store ADDR REG BASE OFFSET" (MIPS s8 is fp).
	if ((m == "sw" || m == "sd") && \
	    match(ops, /^(ra|gp|fp|s[0-9]+),-?[0-9]+\((sp|fp|s8|s0)\)$/)) {
		split(ops, o, /[,()]/)
		if (arch ~ /^mips/) {
			if (o[1] == "s8")
				o[1] = "fp"
			if (o[3] == "s8")
				o[3] = "fp"
		}
		printf "store %s %s %s %d\n", hexstr(start), o[1], o[3], o[2]
	}
}
EOF

# The CFI's register names (cfi.awk): MIPS registers get their ABI names.
cat >"$work/regs.awk" <<'EOF'
BEGIN {
	split("zero at v0 v1 a0 a1 a2 a3 t0 t1 t2 t3 t4 t5 t6 t7 s0 s1 s2 s3 s4 s5 s6 s7 t8 t9 k0 k1 gp sp fp ra", mips, " ")
}
function regname(r) {
	if (r ~ /^r[0-9]+$/)
		return mips[substr(r, 2) + 1]
	return r
}
function kept(r) { return 1 }
EOF

# variant NAME ARCH ENDIAN ABI TRIPLE "CFLAGS" ["LINK"]
# LINK "ld:EMULATION" links with ld directly (rv32: no libgcc here).
variant() {
	name=$1 arch=$2 endian=$3 abi=$4 triple=$5 link=${7:-}
	cflags=$(echo "$6" | sed 's/^ *//')
	cc=$triple-gcc
	dir=$work/$name
	mkdir -p "$dir"
	build "$dir/prog" "$cflags"
	case " $cflags " in
	*" -fno-asynchronous-unwind-tables "*)
		# The CFI twin: same flags with unwind tables.
		twin_flags=$(echo "$cflags" | sed 's/-fno-asynchronous-unwind-tables/-fasynchronous-unwind-tables/')
		build "$dir/twin" "$twin_flags"
		"$triple-objdump" -d --no-show-raw-insn "$dir/prog" | awk -F'\t' '/^ *[0-9a-f]+:/ { print $1, $2 }' >"$dir/prog.ins"
		"$triple-objdump" -d --no-show-raw-insn "$dir/twin" | awk -F'\t' '/^ *[0-9a-f]+:/ { print $1, $2 }' >"$dir/twin.ins"
		if ! cmp -s "$dir/prog.ins" "$dir/twin.ins"; then
			echo "$name: the unwind-table twin has other instructions" >&2
			exit 1
		fi
		cfi_from=$dir/twin ;;
	*)
		cfi_from=$dir/prog ;;
	esac
	text_section "$triple" "$dir/prog"
	{
		fixture_header "$cc" "funcs.c: $cflags; other.c: -O2 with the same target flags"
		echo "arch $arch"
		echo "endian $endian"
		echo "abi $abi"
		text_lines
		func_lines "$triple" "$dir/prog"
		classify_lines "$triple" "$dir/prog" "$arch"
		cfi_lines "$triple" "$cfi_from"
	} >"$out/$name.txt"
}

# build OUTPUT "CFLAGS": funcs.c with CFLAGS, other.c at -O2 with the
# target flags (those before the first -O), linked without libc (or by
# variant's LINK).
build() {
	target=$(echo "$2" | sed 's/ *-O.*//')
	build_prog "$cc" "$1" "$2" "$target -O2 -fasynchronous-unwind-tables" "${link:-$target}"
}

# Both optimization levels, with and without the frame pointer; the CFI is
# asked for explicitly (MIPS GCC emits none by default).
opt_fp_variants() {
	prefix=$1 arch=$2 endian=$3 abi=$4 triple=$5 target=$6 link=${7:-}
	for opt in O0 O2; do
		variant "$prefix-$opt-fp" "$arch" "$endian" "$abi" "$triple" \
			"$target -$opt -fno-omit-frame-pointer -fasynchronous-unwind-tables" "$link"
		variant "$prefix-$opt-nofp" "$arch" "$endian" "$abi" "$triple" \
			"$target -$opt -fomit-frame-pointer -fasynchronous-unwind-tables" "$link"
	done
}

opt_fp_variants mipsel-o32 mips little o32 mipsel-linux-gnu ""
variant mipsel-o32-O2-nofp-nouw mips little o32 mipsel-linux-gnu \
	"-O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables"
variant mipsel-o32-nopic-O2-nofp mips little o32 mipsel-linux-gnu \
	"-mno-abicalls -fno-pic -O2 -fomit-frame-pointer -fasynchronous-unwind-tables"
variant mipsel-r6-O2-nofp mips little o32 mipsel-linux-gnu \
	"-march=mips32r6 -mno-abicalls -fno-pic -mcompact-branches=always -O2 -fomit-frame-pointer -fasynchronous-unwind-tables"
variant mips-o32-O0-fp mips big o32 mips-linux-gnu \
	"-O0 -fno-omit-frame-pointer -fasynchronous-unwind-tables"
variant mips-o32-O2-nofp mips big o32 mips-linux-gnu \
	"-O2 -fomit-frame-pointer -fasynchronous-unwind-tables"
opt_fp_variants mips64el-n64 mips64 little n64 mips64el-linux-gnuabi64 ""
variant mips64el-n32-O2-nofp mips little n32 mips64el-linux-gnuabi64 \
	"-mabi=n32 -O2 -fomit-frame-pointer -fasynchronous-unwind-tables"
variant mips64el-n32-O0-fp mips little n32 mips64el-linux-gnuabi64 \
	"-mabi=n32 -O0 -fno-omit-frame-pointer -fasynchronous-unwind-tables"

opt_fp_variants riscv64 riscv64 little lp64d riscv64-linux-gnu ""
variant riscv64-O2-nofp-nouw riscv64 little lp64d riscv64-linux-gnu \
	"-O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables"
variant riscv64-noc-O2-fp riscv64 little lp64d riscv64-linux-gnu \
	"-march=rv64g -O2 -fno-omit-frame-pointer -fasynchronous-unwind-tables"
opt_fp_variants riscv32 riscv32 little ilp32 riscv64-linux-gnu "-march=rv32imac -mabi=ilp32" \
	ld:elf32lriscv
