#!/bin/sh
# Regenerates the ARM prologue-analysis fixtures (testdata/code/arm-pro-*.txt)
# from small C functions built with Debian's arm-linux-gnueabihf-gcc, in ARM
# and in Thumb-2 code, at -O0 and -O2, with and without a frame pointer.
# The format is gen_mips_riscv.sh's (README.md: text, func, call/insn with
# the Thumb bit on Thumb addresses, store, fde and cfi lines) plus an `isa`
# line, `move` lines (the instructions that change sp, r7 or r11) and
# `data` lines (where objdump reads data in the text: literal pools, jump
# tables); the CFI is the compiler's own .debug_frame (-g: GCC describes ARM
# frames for exceptions in .ARM.exidx, which says nothing about the
# instructions between, and for debuggers in .debug_frame, row by row).
# Both files of a variant are built in the same instruction set: the tests
# give the whole text one set. The stores are objdump's reading of each
# save: push {...} (STMDB sp!), str rN, [sp, #-4]!, strd, str rN, [sp, #off],
# with the offset from sp as it was before the instruction.
#
# Usage: testdata/code/gen_arm_prologue.sh   (from anywhere; needs the compiler)
set -eu

out=$(cd "$(dirname "$0")" && pwd)
. "$out/gen_common.sh"
triple=arm-linux-gnueabihf
cc=$triple-gcc

# gen_mips_riscv.sh's functions and the jump table (write_sources); the
# 70000-byte frame takes two immediates, or a constant from the literal pool.
write_sources 'callptr(ext, 1) + nonleaf(2) + bigframe(3) + hugeframe(4) + use_alloca(5) +
	       use_vla(6) + dispatch(3, 4)' \
	leaf nonleaf bigframe hugeframe use_alloca use_vla callptr dispatch check

# objdump -d -> "call RA MNEMONIC" / "insn END" for every instruction (RA
# and END with the Thumb bit in Thumb code; data skipped), then "store ADDR
# REG sp OFF" for each save of r4-r11 or lr into the frame.
cat >"$work/classify.awk" <<'EOF'
function reg(r) {
	if (r == "sb") return "r9"
	if (r == "sl") return "r10"
	if (r == "fp") return "r11"
	if (r == "ip") return "r12"
	return r
}
function tracked(r) {
	return r == "lr" || r ~ /^r([4-9]|1[01])$/
}
function store(a, r, off) {
	r = reg(r)
	if (tracked(r))
		printf "store 0x%x %s sp %d\n", a, r, off
}
BEGIN {
	FS = "\t"
	conds = "^(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)$"
}
/^ *[0-9a-f]+:\t/ {
	insn_fields()
	sub(/[ \t]*[@;].*$/, "", ops)
	if (mnem ~ /^\./)
		printf "data 0x%x\n", start
	if (mnem == "" || mnem ~ /^\./)
		next
	thumb = length(bytes) > 0 && index(bytes " ", " ") == 5
	m = mnem
	sub(/\.[nw]$/, "", m)
	call = m == "bl" || m == "blx" || (m ~ /^blx/ && substr(m, 4) ~ conds) ||
	       (m ~ /^bl/ && substr(m, 3) ~ conds)
	ra = end + (thumb ? 1 : 0)
	if (call)
		printf "call 0x%x %s\n", ra, m
	else
		printf "insn 0x%x\n", ra
	# Instructions that change sp, r7 or r11 (the registers a CFA is
	# based on): GCC's CFI lags behind some (epilogues).
	if (m ~ /^(push|pop|vpush|vpop)$/ || ops ~ /^sp, / || ops ~ /\[sp\], #/ ||
	    ops ~ /\[sp, #-?[0-9]+\]!/ || ops ~ /^sp!, /)
		printf "move 0x%x sp\n", start
	if (ops ~ /^(r7|fp), / || (m ~ /^(pop|ldm)/ && ops ~ /[{ ,](r7|fp)[,}]/))
		printf "move 0x%x %s\n", start, ops ~ /^r7|[{ ,]r7[,}]/ ? "r7" : "r11"
	# Saves into the frame, offsets from sp before the instruction.
	if ((m == "push" || (m == "stmdb" && ops ~ /^sp!, /)) && match(ops, /\{.*\}/)) {
		n = split(substr(ops, RSTART + 1, RLENGTH - 2), regs, /, */)
		for (k = 1; k <= n; k++)
			store(start, regs[k], -4 * n + 4 * (k - 1))
	} else if (m == "str" && match(ops, /^[a-z0-9]+, \[sp, #-?[0-9]+\]!?$/)) {
		split(ops, o, /, \[sp, #|\]/)
		store(start, o[1], o[2] + 0)
	} else if (m == "str" && match(ops, /^[a-z0-9]+, \[sp\]$/)) {
		split(ops, o, /,/)
		store(start, o[1], 0)
	} else if (m == "strd" && match(ops, /^[a-z0-9]+, [a-z0-9]+, \[sp, #-?[0-9]+\]!?$/)) {
		split(ops, o, /, \[sp, #|\]|, /)
		store(start, o[1], o[3] + 0)
		store(start, o[2], o[3] + 4)
	}
}
EOF

# The CFI's register names (cfi.awk): ARM's r13 is sp, r15 pc, and the
# return-address column (r14) lr.
cat >"$work/regs.awk" <<'EOF'
function regname(r) {
	if (r == "r13") return "sp"
	if (r == "r14" || r == "ra") return "lr"
	if (r == "r15") return "pc"
	return r
}
function kept(r) { return 1 }
EOF

# variant NAME ISA "CFLAGS": funcs.c with CFLAGS, other.c at -O2, both -m$ISA
# and -g, linked without libc.
variant() {
	name=$1 isa=$2 flags=$3
	dir=$work/$name
	mkdir -p "$dir"
	build_prog "$cc" "$dir/prog" "-m$isa $flags -g" "-m$isa -O2 -g" "-m$isa"
	text_section "$triple" "$dir/prog"
	{
		fixture_header "$cc" "funcs.c: -m$isa $flags -g; other.c: -m$isa -O2 -g"
		echo "arch arm"
		echo "isa $isa"
		echo "endian little"
		text_lines
		func_lines "$triple" "$dir/prog"
		classify_lines "$triple" "$dir/prog"
		cfi_lines "$triple" "$dir/prog"
	} >"$out/$name.txt"
}

for isa in arm thumb; do
	for opt in O0 O2; do
		variant "arm-pro-$isa-$opt-fp" "$isa" "-$opt -fno-omit-frame-pointer"
		variant "arm-pro-$isa-$opt-nofp" "$isa" "-$opt -fomit-frame-pointer"
	done
done
