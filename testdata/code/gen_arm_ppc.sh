#!/bin/sh
# Regenerates the ARM and PowerPC code fixtures (testdata/code/arm-*.txt,
# ppc*.txt) from small C functions built with Debian's cross compilers:
#   arm-linux-gnueabihf-gcc      ARM and Thumb-2 (and ARMv4T's mov lr, pc idiom)
#   powerpc-linux-gnu-gcc        ppc32, big-endian (SysV ABI)
#   powerpc64le-linux-gnu-gcc    ppc64 little-endian (ELFv2), and with
#                                -mbig-endian -mabi=elfv1 big-endian ELFv1
# Each variant is linked (no libc) so that calls are resolved as a real
# program has them (Thumb <-> ARM calls become BLX), and its .text is
# written out with the functions, every return address a call leaves, and
# every other instruction end. The format is described in README.md.
# CI does not run this: the tests read only the committed fixtures.
#
# Usage: testdata/code/gen_arm_ppc.sh   (from anywhere; needs the compilers)
set -eu

out=$(cd "$(dirname "$0")" && pwd)
. "$out/gen_common.sh"

# gen_common.sh's functions but the 70000-byte frame, the variable-length
# array and the jump table (write_sources).
write_sources 'callptr(ext, 1) + nonleaf(2) + bigframe(3) + use_alloca(4)' \
	leaf nonleaf bigframe use_alloca callptr check

# variant NAME ARCH ENDIAN TRIPLE "FUNCS_FLAGS" "OTHER_FLAGS" "LINK_FLAGS"
variant() {
	name=$1 arch=$2 endian=$3 triple=$4 fflags=$5 oflags=$6 lflags=$7
	cc=$triple-gcc
	dir=$work/$name
	mkdir -p "$dir"
	build_prog "$cc" "$dir/prog" "$fflags" "$oflags" "$lflags"
	text_section "$triple" "$dir/prog"
	{
		fixture_header "$cc" "funcs.c: $fflags; other.c: $oflags"
		echo "arch $arch"
		echo "endian $endian"
		text_lines
		"$triple-objdump" -d "$dir/prog" |
			awk -v text_start="$(printf '%d' "0x$text_addr")" -v size="$text_size" \
				-f "$work/common.awk" -f "$work/functions.awk"
		classify_lines "$triple" "$dir/prog" "$arch"
	} >"$out/$name.txt"
}

# Reads objdump -d and prints its function headers ("ADDR <name>:") as
# "func 0xADDR 0xSIZE NAME", each up to the next (the last to the end of
# .text). objdump's, not nm's: ELFv1's symbols name function descriptors,
# objdump names the code (".leaf").
cat >"$work/functions.awk" <<'EOF'
BEGIN { n = 0 }
/^[0-9a-f]+ <[^>]+>:$/ {
	starts[n] = hexval($1)
	name[n] = substr($2, 2, length($2) - 3)
	n++
}
END {
	for (i = 0; i < n; i++) {
		stop = i + 1 < n ? starts[i + 1] : text_start + size
		printf "func 0x%08x 0x%x %s\n", starts[i], stop - starts[i], name[i]
	}
}
EOF

# Reads objdump -d and prints, for every instruction, "call RA MNEMONIC" if
# it is a call (RA: the return address it leaves, with the Thumb bit for
# Thumb code) or "insn END" otherwise (END in the same notation). Data
# (.word, .long, ...) is skipped. The classification is objdump's, not the
# walker's decoder: the test checks one against the other.
cat >"$work/classify.awk" <<'EOF'
BEGIN {
	FS = "\t"
	conds = "^(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)$"
}
/^ *[0-9a-f]+:\t/ {
	insn_fields()
	# PowerPC objdump separates the operands with spaces, not a tab.
	if (ops == "" && match(mnem, / +/)) {
		ops = substr(mnem, RSTART + RLENGTH)
		mnem = substr(mnem, 1, RSTART - 1)
	}
	if (mnem == "" || mnem ~ /^\./)
		next
	thumb = arch == "arm" && length(bytes) > 0 && index(bytes " ", " ") == 5
	m = mnem
	sub(/\.[nw]$/, "", m)
	sub(/[+-]$/, "", m)
	call = 0
	if (arch == "arm") {
		if (m == "bl" || m == "blx")
			call = 1
		else if (m ~ /^blx/ && substr(m, 4) ~ conds)
			call = 1
		else if (m ~ /^bl/ && substr(m, 3) ~ conds)
			call = 1
		# ARMv4T: mov lr, pc then a branch; the branch is the call.
		if (after_mov_lr_pc)
			call = 1
		after_mov_lr_pc = (m == "mov" && ops == "lr, pc")
	} else {
		if (m ~ /^b.*l$/ || m ~ /^b.*la$/)
			call = 1
		# bcl 20,31,.+4 reads the pc into lr (PIC code): not a call.
		if (m ~ /^bc?l$/ && ops ~ /,/) {
			target = ops
			sub(/ <.*$/, "", target)
			sub(/^.*,/, "", target)
			if (hexval(target) == end)
				call = 0
		}
	}
	ra = end + (thumb ? 1 : 0)
	if (call)
		printf "call 0x%x %s\n", ra, m
	else
		printf "insn 0x%x\n", ra
}
EOF

arm_fp_variants() {
	mode=$1 other=$2
	for opt in O0 O2; do
		variant "arm-$mode-$opt-fp" arm little arm-linux-gnueabihf \
			"-m$mode -$opt -fno-omit-frame-pointer" "-m$other -O2" ""
		variant "arm-$mode-$opt-nofp" arm little arm-linux-gnueabihf \
			"-m$mode -$opt -fomit-frame-pointer" "-m$other -O2" ""
	done
}
arm_fp_variants arm thumb
arm_fp_variants thumb arm
# ARMv4T has no BLX: calls through a register are mov lr, pc; bx rN.
variant arm-v4t-O2 arm little arm-linux-gnueabihf \
	"-marm -march=armv4t -mfloat-abi=soft -O2" "-marm -march=armv4t -mfloat-abi=soft -O2" \
	"-march=armv4t -mfloat-abi=soft"

ppc_variants() {
	prefix=$1 arch=$2 endian=$3 triple=$4 abi=$5
	for opt in O0 O2; do
		variant "$prefix-$opt-fp" "$arch" "$endian" "$triple" \
			"$abi -$opt -fno-omit-frame-pointer" "$abi -O2" "$abi"
		variant "$prefix-$opt-nofp" "$arch" "$endian" "$triple" \
			"$abi -$opt -fomit-frame-pointer" "$abi -O2" "$abi"
	done
}
ppc_variants ppc32 ppc big powerpc-linux-gnu ""
ppc_variants ppc64le ppc64 little powerpc64le-linux-gnu ""
ppc_variants ppc64-elfv1 ppc64 big powerpc64le-linux-gnu "-mbig-endian -mabi=elfv1"
