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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The functions the fixtures hold: a leaf, a non-leaf, an 8 KiB frame (past
# RISC-V's 12-bit immediates), a 70000-byte frame (past MIPS's 16-bit ones),
# alloca, a variable-length array, calls through a function pointer, and a
# call to a function that does not return (its return address lies past the
# caller's end).
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
void check(int a)
{
	if (a < 0)
		die(a);
}
int entry(void)
{
	check(1);
	return callptr(ext, 1) + nonleaf(2) + bigframe(3) + hugeframe(4) + use_alloca(5) +
	       use_vla(6);
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
function hexstr(v,    s, d) {
	# printf's %x stops at 32 bits in mawk: convert by hand (exact below 2^53)
	s = ""
	do {
		d = v % 16
		s = substr("0123456789abcdef", d + 1, 1) s
		v = (v - d) / 16
	} while (v > 0)
	return "0x" s
}
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
BEGIN { FS = "\t" }
/^ *[0-9a-f]+:\t/ {
	addr = $1
	sub(/^ */, "", addr)
	sub(/:$/, "", addr)
	bytes = $2
	gsub(/ +$/, "", bytes)
	m = $3
	ops = $4
	if (m == "" || m ~ /^\./)
		next
	hex = bytes
	gsub(/ /, "", hex)
	end = hexval(addr) + length(hex) / 2
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
		printf "store %s %s %s %d\n", hexstr(hexval(addr)), o[1], o[3], o[2]
	}
}
EOF

# Reads readelf --debug-dump=frames-interp and prints, per FDE, "fde LO HI"
# and its rows "cfi LOC CFAREG CFAOFF REG=OFF...": from LOC on, the CFA is
# CFAREG + CFAOFF and each listed register is saved at CFA + OFF (registers
# the compiler says nothing about are left out). An FDE without rows has the
# CIE's initial row. MIPS registers get their ABI names.
cat >"$work/cfi.awk" <<'EOF'
function hexstr(v,    s, d) {
	# printf's %x stops at 32 bits in mawk: convert by hand (exact below 2^53)
	s = ""
	do {
		d = v % 16
		s = substr("0123456789abcdef", d + 1, 1) s
		v = (v - d) / 16
	} while (v > 0)
	return "0x" s
}
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
function regname(r,    n) {
	if (r ~ /^r[0-9]+$/) {
		n = substr(r, 2) + 0
		return mips[n + 1]
	}
	return r
}
function flush() {
	if (infde && !rows)
		printf "cfi %s %s\n", hexstr(fde_lo), cie_row
	infde = 0
}
BEGIN {
	split("zero at v0 v1 a0 a1 a2 a3 t0 t1 t2 t3 t4 t5 t6 t7 s0 s1 s2 s3 s4 s5 s6 s7 t8 t9 k0 k1 gp sp fp ra", mips, " ")
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
	printf "fde %s %s\n", hexstr(fde_lo), hexstr(hexval(lh[2]))
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
	if (cfa !~ /^[a-z0-9]+\+[0-9]+$/) {
		row = "? 0"
	} else {
		row = regname(cr[1]) " " cr[2]
	}
	for (i = 3; i <= NF && i <= ncols; i++) {
		if ($i == "u")
			continue
		v = $i
		if (v ~ /^c[-+][0-9]+$/)
			row = row " " regname(col[i]) "=" substr(v, 2) + 0
		else
			row = row " " regname(col[i]) "=?"
	}
	if (incie) {
		cie_row = row
		next
	}
	if (infde) {
		printf "cfi %s %s\n", hexstr(hexval($1)), row
		rows++
	}
	next
}
END { flush() }
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
	"$triple-objcopy" -O binary -j .text "$dir/prog" "$dir/text.bin"
	text_addr=$("$triple-objdump" -h "$dir/prog" | awk '$2 == ".text" { print $4 }')
	text_size=$(wc -c <"$dir/text.bin" | tr -d ' ')
	{
		echo "# Code fixture made by testdata/code/gen_mips_riscv.sh (do not edit): see README.md."
		echo "# $($cc --version | head -n 1)"
		echo "# funcs.c: $cflags; other.c: -O2 with the same target flags"
		echo "arch $arch"
		echo "endian $endian"
		echo "abi $abi"
		echo "text 0x$text_addr $text_size"
		od -An -v -tx1 "$dir/text.bin" | tr -d ' \n' | fold -w 64 | sed 's/^/bytes /'
		echo
		"$triple-nm" -S --defined-only "$dir/prog" |
			awk 'NF == 4 && ($3 == "T" || $3 == "t") { printf "func 0x%s 0x%s %s\n", $1, $2, $4 }' |
			sort
		"$triple-objdump" -d "$dir/prog" | awk -v arch="$arch" -f "$work/classify.awk"
		"$triple-readelf" --debug-dump=frames-interp "$cfi_from" | awk -f "$work/cfi.awk"
	} >"$out/$name.txt"
}

# build OUTPUT "CFLAGS": funcs.c with CFLAGS, other.c at -O2 with the
# target flags (those before the first -O), linked without libc.
build() {
	prog=$1 flags=$2
	target=$(echo "$flags" | sed 's/ *-O.*//')
	# shellcheck disable=SC2086
	$cc $flags -c "$work/funcs.c" -o "$prog.funcs.o"
	# shellcheck disable=SC2086
	$cc $target -O2 -fasynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
		-c "$work/other.c" -o "$prog.other.o"
	case $link in
	ld:*)
		"$triple-ld" -m "${link#ld:}" -static -e entry --build-id=none \
			"$prog.funcs.o" "$prog.other.o" -o "$prog" ;;
	*)
		# shellcheck disable=SC2086
		$cc $target -nostdlib -static -Wl,-e,entry -Wl,--build-id=none \
			"$prog.funcs.o" "$prog.other.o" -o "$prog" ;;
	esac
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
