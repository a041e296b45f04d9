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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
triple=aarch64-linux-gnu
cc=$triple-gcc

# gen_mips_riscv.sh's functions: a leaf, a non-leaf, an 8 KiB frame, a
# 70000-byte frame (past AArch64's 12-bit immediates: sub sp, sp, #N, lsl
# #12 or a constant in x16), alloca, a variable-length array, calls
# through a function pointer, a call to a function that does not return.
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

# objdump -d -> "call RA MNEMONIC" (bl, blr and the authenticating blraa,
# blraaz, blrab, blrabz: RA is the instruction's end) or "insn END", and
# "store ADDR REG BASE OFF" for each register of x19-x30 an stp/str saves
# at [sp|x29, #off] or [sp|x29, #off]! (stp: the second at off + 8).
cat >"$work/classify.awk" <<'EOF'
function hexstr(v,    s, d) {
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
function saved(r) { return r ~ /^x(19|2[0-9]|30)$/ }
BEGIN { FS = "\t" }
/^ *[0-9a-f]+:\t/ {
	addr = $1
	sub(/^ */, "", addr)
	sub(/:$/, "", addr)
	m = $3
	ops = $4
	sub(/ *\/\/.*/, "", ops)
	if (m == "" || m ~ /^\./)
		next
	end = hexval(addr) + 4
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
			printf "store %s %s %s %d\n", hexstr(hexval(addr)), f[1], base, off
		if (m == "stp" && saved(f[2]))
			printf "store %s %s %s %d\n", hexstr(hexval(addr)), f[2], base, off + 8
	}
}
EOF

# readelf --debug-dump=frames-interp -> "fde LO HI" and its rows "cfi LOC
# CFAREG CFAOFF REG=OFF..." (gen_mips_riscv.sh's reading; readelf names
# AArch64 registers x0-x29 and sp, and x30, the CIE's return-address
# column, "ra"). Other columns (ra_state, pointer authentication; d8-d15)
# are left out: the tests strip nothing and track no FP registers.
cat >"$work/cfi.awk" <<'EOF'
function hexstr(v,    s, d) {
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
function flush() {
	if (infde && !rows)
		printf "cfi %s %s\n", hexstr(fde_lo), cie_row
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
	printf "fde %s %s\n", hexstr(fde_lo), hexstr(hexval(lh[2]))
	next
}
/^ +LOC +CFA/ {
	ncols = NF
	for (i = 1; i <= NF; i++)
		col[i] = $i == "ra" ? "x30" : $i
	next
}
/^[0-9a-f]+ / {
	cfa = $2
	split(cfa, cr, /[+]/)
	if (cfa !~ /^[a-z0-9]+\+[0-9]+$/)
		row = "? 0"
	else
		row = cr[1] " " cr[2]
	for (i = 3; i <= NF && i <= ncols; i++) {
		if ($i == "u" || col[i] !~ /^(x[0-9]+|sp)$/)
			continue
		v = $i
		if (v ~ /^c[-+][0-9]+$/)
			row = row " " col[i] "=" substr(v, 2) + 0
		else
			row = row " " col[i] "=?"
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

# variant NAME "CFLAGS": funcs.c with CFLAGS, other.c at -O2 with the
# same branch protection, linked without libc.
variant() {
	name=$1 cflags=$2
	dir=$work/$name
	mkdir -p "$dir"
	target=$(echo "$cflags" | sed 's/ *-O.*//')
	# shellcheck disable=SC2086
	$cc $cflags -fasynchronous-unwind-tables -c "$work/funcs.c" -o "$dir/funcs.o"
	# shellcheck disable=SC2086
	$cc $target -O2 -fasynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
		-c "$work/other.c" -o "$dir/other.o"
	# shellcheck disable=SC2086
	$cc $target -nostdlib -static -Wl,-e,entry -Wl,--build-id=none \
		"$dir/funcs.o" "$dir/other.o" -o "$dir/prog"
	"$triple-objcopy" -O binary -j .text "$dir/prog" "$dir/text.bin"
	text_addr=$("$triple-objdump" -h "$dir/prog" | awk '$2 == ".text" { print $4 }')
	text_size=$(wc -c <"$dir/text.bin" | tr -d ' ')
	{
		echo "# Code fixture made by testdata/code/gen_arm64.sh (do not edit): see README.md."
		echo "# $($cc --version | head -n 1)"
		echo "# funcs.c: $cflags -fasynchronous-unwind-tables; other.c: -O2 with the same target flags"
		echo "arch arm64"
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

for opt in O0 O2; do
	variant "aarch64-$opt-fp" "-$opt -fno-omit-frame-pointer"
	variant "aarch64-$opt-nofp" "-$opt -fomit-frame-pointer"
done
variant aarch64-pac-O2-nofp "-mbranch-protection=standard -O2 -fomit-frame-pointer"
