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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The functions the fixtures hold: a leaf, a non-leaf, a large frame,
# alloca, calls through a function pointer, and a call to a function that
# does not return (its return address lies past the caller's end).
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
int use_alloca(int n)
{
	char *p = __builtin_alloca(n);
	__builtin_memset(p, 0, n);
	return ext(p[n / 2]) + 2;
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
	return callptr(ext, 1) + nonleaf(2) + bigframe(3) + use_alloca(4);
}
EOF
# What funcs.c calls; on ARM built in the other instruction set, so that
# the linker turns the calls between them into BLX (interworking).
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

# variant NAME ARCH ENDIAN TRIPLE "FUNCS_FLAGS" "OTHER_FLAGS" "LINK_FLAGS"
variant() {
	name=$1 arch=$2 endian=$3 triple=$4 fflags=$5 oflags=$6 lflags=$7
	cc=$triple-gcc
	dir=$work/$name
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	$cc $fflags -c "$work/funcs.c" -o "$dir/funcs.o"
	# shellcheck disable=SC2086
	$cc $oflags -fno-tree-loop-distribute-patterns -c "$work/other.c" -o "$dir/other.o"
	# shellcheck disable=SC2086
	$cc $lflags -nostdlib -static -Wl,-e,entry -Wl,--build-id=none \
		"$dir/funcs.o" "$dir/other.o" -o "$dir/prog"
	"$triple-objcopy" -O binary -j .text "$dir/prog" "$dir/text.bin"
	text_addr=$("$triple-objdump" -h "$dir/prog" | awk '$2 == ".text" { print $4 }')
	text_size=$(wc -c <"$dir/text.bin" | tr -d ' ')
	{
		echo "# Code fixture made by testdata/code/gen_arm_ppc.sh (do not edit): see README.md."
		echo "# $($cc --version | head -n 1)"
		echo "# funcs.c: $fflags; other.c: $oflags"
		echo "arch $arch"
		echo "endian $endian"
		echo "text 0x$text_addr $text_size"
		od -An -v -tx1 "$dir/text.bin" | tr -d ' \n' | fold -w 64 | sed 's/^/bytes /'
		echo
		"$triple-objdump" -d "$dir/prog" >"$dir/disasm"
		awk -v end="$(printf '%d' "0x$text_addr")" -v size="$text_size" \
			-f "$work/functions.awk" "$dir/disasm"
		awk -v arch="$arch" -f "$work/classify.awk" "$dir/disasm"
	} >"$out/$name.txt"
}

# Reads objdump -d and prints its function headers ("ADDR <name>:") as
# "func 0xADDR 0xSIZE NAME", each up to the next (the last to the end of
# .text). objdump's, not nm's: ELFv1's symbols name function descriptors,
# objdump names the code (".leaf").
cat >"$work/functions.awk" <<'EOF'
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
BEGIN { n = 0 }
/^[0-9a-f]+ <[^>]+>:$/ {
	start[n] = hexval($1)
	name[n] = substr($2, 2, length($2) - 3)
	n++
}
END {
	for (i = 0; i < n; i++) {
		stop = i + 1 < n ? start[i + 1] : end + size
		printf "func 0x%08x 0x%x %s\n", start[i], stop - start[i], name[i]
	}
}
EOF

# Reads objdump -d and prints, for every instruction, "call RA MNEMONIC" if
# it is a call (RA: the return address it leaves, with the Thumb bit for
# Thumb code) or "insn END" otherwise (END in the same notation). Data
# (.word, .long, ...) is skipped. The classification is objdump's, not the
# walker's decoder: the test checks one against the other.
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
	# PowerPC objdump separates the operands with spaces, not a tab.
	if (ops == "" && match(mnem, / +/)) {
		ops = substr(mnem, RSTART + RLENGTH)
		mnem = substr(mnem, 1, RSTART - 1)
	}
	if (mnem == "" || mnem ~ /^\./)
		next
	hex = bytes
	gsub(/ /, "", hex)
	len = length(hex) / 2
	start = hexval(addr)
	end = start + len
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
