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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
triple=arm-linux-gnueabihf
cc=$triple-gcc

# gen_mips_riscv.sh's functions: a leaf, a non-leaf, an 8 KiB frame, a
# 70000-byte frame (two immediates, or a constant from the literal pool),
# alloca, a variable-length array, calls through a function pointer, a
# call to a function that does not return; and a switch dense enough for a
# jump table (TBB/TBH in Thumb code, a table after the branch in ARM code).
cat >"$work/funcs.c" <<'EOF'
extern int ext(int);
extern void die(int) __attribute__((noreturn));
int leaf(int a, int b) { return a * b + 3; }
int nonleaf(int a) { return ext(a) + leaf(a, 2) + 1; }
int bigframe(int a)
{
	volatile char buf[8192];
	buf[a & 4095] = 1;
	return ext(buf[(a + 1) & 4095]) + 1;
}
int hugeframe(int a)
{
	volatile char buf[70000];
	buf[a & 65535] = 1;
	return ext(buf[(a + 1) & 65535]) + 1;
}
int use_alloca(int n)
{
	char *p = __builtin_alloca(n);
	__builtin_memset(p, 0, n);
	return ext(p[n / 2]) + 2;
}
int use_vla(int n)
{
	volatile char v[n];
	v[0] = (char)n;
	return ext(v[n - 1]) + 3;
}
int callptr(int (*fn)(int), int a) { return fn(a) + fn(a + 1); }
int dispatch(int k, int a)
{
	switch (k) {
	case 0: return ext(a);
	case 1: return ext(a + 1) * 3;
	case 2: return leaf(a, ext(a));
	case 3: return ext(a) - 9;
	case 4: return ext(ext(a));
	case 5: return a * 7;
	case 6: return ext(a) ^ 5;
	default: return 0;
	}
}
void check(int a)
{
	if (a < 0)
		die(a);
}
int entry(void)
{
	check(1);
	return callptr(ext, 1) + nonleaf(2) + bigframe(3) + hugeframe(4) + use_alloca(5) +
	       use_vla(6) + dispatch(3, 4);
}
EOF
cat >"$work/other.c" <<'EOF'
int ext(int a) { return a + 7; }
void die(int a) { for (;;) a = ext(a); }
void *memset(void *p, int c, unsigned long n)
{
	char *q = p;
	while (n--)
		*q++ = (char)c;
	return p;
}
EOF

# objdump -d -> "call RA MNEMONIC" / "insn END" for every instruction (RA
# and END with the Thumb bit in Thumb code; data skipped), then "store ADDR
# REG sp OFF" for each save of r4-r11 or lr into the frame.
cat >"$work/classify.awk" <<'EOF'
function hexval(s,    v, i, c) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			break
		v = v * 16 + c - 1
	}
	return v
}
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
	addr = $1
	sub(/^ */, "", addr)
	sub(/:$/, "", addr)
	bytes = $2
	gsub(/ +$/, "", bytes)
	mnem = $3
	ops = $4
	sub(/[ \t]*[@;].*$/, "", ops)
	if (mnem ~ /^\./)
		printf "data 0x%x\n", hexval(addr)
	if (mnem == "" || mnem ~ /^\./)
		next
	hex = bytes
	gsub(/ /, "", hex)
	start = hexval(addr)
	end = start + length(hex) / 2
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

# readelf --debug-dump=frames-interp -> "fde LO HI" and "cfi LOC CFA OFF
# REG=OFF..." rows (gen_mips_riscv.sh's cfi.awk, with ARM's register names:
# r13 is sp, the return-address column (r14) lr).
cat >"$work/cfi.awk" <<'EOF'
function hexval(s,    v, i, c) {
	v = 0
	s = tolower(s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			break
		v = v * 16 + c - 1
	}
	return v
}
function regname(r) {
	if (r == "r13") return "sp"
	if (r == "r14" || r == "ra") return "lr"
	if (r == "r15") return "pc"
	return r
}
function flush() {
	if (infde && !rows)
		printf "cfi 0x%x %s\n", fde_lo, cie_row
	infde = 0
}
/ CIE / { flush(); incie = 1; next }
/ FDE / {
	flush()
	incie = 0
	infde = 1
	rows = 0
	r = $0
	sub(/.*pc=/, "", r)
	split(r, lh, /\.\./)
	fde_lo = hexval(lh[1])
	printf "fde 0x%x 0x%x\n", fde_lo, hexval(lh[2])
	next
}
/^ +LOC +CFA/ {
	ncols = NF
	for (i = 1; i <= NF; i++)
		col[i] = $i
	next
}
/^[0-9a-f]+ / {
	cfa = $2
	split(cfa, cr, /[+]/)
	row = cfa ~ /^[a-z0-9]+\+[0-9]+$/ ? regname(cr[1]) " " cr[2] : "? 0"
	for (i = 3; i <= NF && i <= ncols; i++) {
		if ($i == "u")
			continue
		if ($i ~ /^c[-+][0-9]+$/)
			row = row " " regname(col[i]) "=" substr($i, 2) + 0
		else
			row = row " " regname(col[i]) "=?"
	}
	if (incie) {
		cie_row = row
		next
	}
	if (infde) {
		printf "cfi 0x%x %s\n", hexval($1), row
		rows++
	}
	next
}
END { flush() }
EOF

# variant NAME ISA "CFLAGS": funcs.c with CFLAGS, other.c at -O2, both -m$ISA
# and -g, linked without libc.
variant() {
	name=$1 isa=$2 flags=$3
	dir=$work/$name
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	$cc -m$isa $flags -g -c "$work/funcs.c" -o "$dir/funcs.o"
	$cc -m$isa -O2 -g -fno-tree-loop-distribute-patterns -c "$work/other.c" -o "$dir/other.o"
	$cc -m$isa -nostdlib -static -Wl,-e,entry -Wl,--build-id=none \
		"$dir/funcs.o" "$dir/other.o" -o "$dir/prog"
	"$triple-objcopy" -O binary -j .text "$dir/prog" "$dir/text.bin"
	text_addr=$("$triple-objdump" -h "$dir/prog" | awk '$2 == ".text" { print $4 }')
	text_size=$(wc -c <"$dir/text.bin" | tr -d ' ')
	{
		echo "# Code fixture made by testdata/code/gen_arm_prologue.sh (do not edit): see README.md."
		echo "# $($cc --version | head -n 1)"
		echo "# funcs.c: -m$isa $flags -g; other.c: -m$isa -O2 -g"
		echo "arch arm"
		echo "isa $isa"
		echo "endian little"
		echo "text 0x$text_addr $text_size"
		od -An -v -tx1 "$dir/text.bin" | tr -d ' \n' | fold -w 64 | sed 's/^/bytes /'
		echo
		"$triple-nm" -S --defined-only "$dir/prog" |
			awk 'NF == 4 && ($3 == "T" || $3 == "t") { printf "func 0x%s 0x%s %s\n", $1, $2, $4 }' |
			sort
		"$triple-objdump" -d "$dir/prog" | awk -f "$work/classify.awk"
		"$triple-readelf" --debug-dump=frames-interp "$dir/prog" | awk -f "$work/cfi.awk"
	} >"$out/$name.txt"
}

for isa in arm thumb; do
	for opt in O0 O2; do
		variant "arm-pro-$isa-$opt-fp" "$isa" "-$opt -fno-omit-frame-pointer"
		variant "arm-pro-$isa-$opt-nofp" "$isa" "-$opt -fomit-frame-pointer"
	done
done
