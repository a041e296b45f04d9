# What the gen_*.sh fixture generators of this folder share; each sources
# it (it is not run on its own) after `set -eu`, with $out set to this
# folder. Sourcing it makes $work, a temporary folder removed on exit, and
# writes there the awk pieces the generators read objdump and readelf with:
#   $work/common.awk   hexval and hexstr (mawk's printf %x stops at 32
#                      bits) and insn_fields, which splits an objdump -d
#                      instruction line
#   $work/cfi.awk      readelf --debug-dump=frames-interp -> fde/cfi lines;
#                      run with the generator's own regs.awk (below)
# The shell functions each say what they do above them. The fixture format
# is in README.md.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# write_sources "ENTRY" FUNCTION...: $work/funcs.c with the named functions
# of those below, in the order given, then entry(), which calls check(1)
# and returns ENTRY; and $work/other.c with what they call. The functions:
# a leaf, a non-leaf, an 8 KiB frame (past RISC-V's and AArch64's 12-bit
# immediates), a 70000-byte frame (past MIPS's 16-bit ones; ARM: two
# immediates or a literal), alloca, a variable-length array, calls through
# a function pointer, a switch dense enough for a jump table (ARM: TBB/TBH
# in Thumb code, a table after the branch in ARM code), and a call to a
# function that does not return (its return address lies past the
# caller's end). other.c (ext, die, and the memset GCC calls for
# __builtin_memset) is built apart: on ARM in the other instruction set,
# so that the linker turns the calls between them into BLX.
write_sources() {
	entry=$1
	shift
	{
		echo 'extern int ext(int);'
		echo 'extern void die(int) __attribute__((noreturn));'
		for fn in "$@"; do
			source_of "$fn"
		done
		printf 'int entry(void)\n{\n\tcheck(1);\n\treturn %s;\n}\n' "$entry"
	} >"$work/funcs.c"
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
}

# source_of FUNCTION: the C text of one of write_sources' functions.
source_of() {
	case $1 in
	leaf) echo 'int leaf(int a, int b) { return a * b + 3; }' ;;
	nonleaf) echo 'int nonleaf(int a) { return ext(a) + leaf(a, 2) + 1; }' ;;
	bigframe) frame_source bigframe 8192 4095 ;;
	hugeframe) frame_source hugeframe 70000 65535 ;;
	use_alloca) cat <<'EOF' ;;
int use_alloca(int n)
{
	char *p = __builtin_alloca(n);
	__builtin_memset(p, 0, n);
	return ext(p[n / 2]) + 2;
}
EOF
	use_vla) cat <<'EOF' ;;
int use_vla(int n)
{
	volatile char v[n];
	v[0] = (char)n;
	return ext(v[n - 1]) + 3;
}
EOF
	callptr) echo 'int callptr(int (*fn)(int), int a) { return fn(a) + fn(a + 1); }' ;;
	dispatch) cat <<'EOF' ;;
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
EOF
	check) cat <<'EOF' ;;
void check(int a)
{
	if (a < 0)
		die(a);
}
EOF
	*) echo "source_of: no function $1" >&2; exit 1 ;;
	esac
}

# frame_source NAME SIZE MASK: a function with a SIZE-byte frame (a
# volatile array, so that it is not optimized away) that calls ext.
frame_source() {
	printf 'int %s(int a)\n{\n\tvolatile char buf[%s];\n' "$1" "$2"
	printf '\tbuf[a & %s] = 1;\n\treturn ext(buf[(a + 1) & %s]) + 1;\n}\n' "$3" "$3"
}

# build_prog CC PROG "FUNCS_FLAGS" "OTHER_FLAGS" "LINK": funcs.c compiled
# with FUNCS_FLAGS, other.c with OTHER_FLAGS (and no loop turned into a
# memset call), linked into PROG without libc, entered at entry(), without
# a build-id note. LINK: the flags of gcc's link, or ld:EMULATION to link
# with the target's ld directly (RV32: no libgcc here).
build_prog() {
	# shellcheck disable=SC2086
	$1 $3 -c "$work/funcs.c" -o "$2.funcs.o"
	# shellcheck disable=SC2086
	$1 $4 -fno-tree-loop-distribute-patterns -c "$work/other.c" -o "$2.other.o"
	case $5 in
	ld:*)
		"${1%-gcc}-ld" -m "${5#ld:}" -static -e entry --build-id=none \
			"$2.funcs.o" "$2.other.o" -o "$2" ;;
	*)
		# shellcheck disable=SC2086
		$1 $5 -nostdlib -static -Wl,-e,entry -Wl,--build-id=none \
			"$2.funcs.o" "$2.other.o" -o "$2" ;;
	esac
}

# fixture_header CC "HOW": a fixture's first lines: the generator that
# made it, the compiler's version, and HOW (the flags of the two files).
fixture_header() {
	echo "# Code fixture made by testdata/code/$(basename "$0") (do not edit): see README.md."
	echo "# $($1 --version | head -n 1)"
	echo "# $2"
}

# text_section TRIPLE PROG: PROG's .text copied to PROG.text.bin; its
# address (objdump's hex digits) in text_addr, its byte count in text_size.
text_section() {
	"$1-objcopy" -O binary -j .text "$2" "$2.text.bin"
	text_addr=$("$1-objdump" -h "$2" | awk '$2 == ".text" { print $4 }')
	text_size=$(wc -c <"$2.text.bin" | tr -d ' ')
	text_bin=$2.text.bin
}

# text_lines: the last text_section's "text" line and its bytes, 32 a
# "bytes" line, then an empty line.
text_lines() {
	echo "text 0x$text_addr $text_size"
	od -An -v -tx1 "$text_bin" | tr -d ' \n' | fold -w 64 | sed 's/^/bytes /'
	echo
}

# func_lines TRIPLE PROG: "func 0xADDR 0xSIZE NAME" for each code symbol
# nm gives a size, in address order.
func_lines() {
	"$1-nm" -S --defined-only "$2" |
		awk 'NF == 4 && ($3 == "T" || $3 == "t") { printf "func 0x%s 0x%s %s\n", $1, $2, $4 }' |
		sort
}

# classify_lines TRIPLE PROG [ARCH]: PROG's objdump -d read by the
# generator's $work/classify.awk (call/insn lines and what else it adds),
# with ARCH in its variable arch.
classify_lines() {
	"$1-objdump" -d "$2" |
		awk -v arch="${3:-}" -f "$work/common.awk" -f "$work/classify.awk"
}

# cfi_lines TRIPLE FILE: FILE's CFI as fde and cfi lines, its registers
# named by the generator's $work/regs.awk.
cfi_lines() {
	"$1-readelf" --debug-dump=frames-interp "$2" |
		awk -f "$work/common.awk" -f "$work/regs.awk" -f "$work/cfi.awk"
}

cat >"$work/common.awk" <<'EOF'
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
# An objdump -d instruction line (FS a tab): addr (its hex digits), bytes
# (the encoding as objdump groups it: one group a Thumb halfword or an
# ARM/AArch64 word), mnem and ops as objdump prints them, start and end
# (the addresses of the instruction and right after it).
function insn_fields(    hex) {
	addr = $1
	sub(/^ */, "", addr)
	sub(/:$/, "", addr)
	bytes = $2
	gsub(/ +$/, "", bytes)
	mnem = $3
	ops = $4
	hex = bytes
	gsub(/ /, "", hex)
	start = hexval(addr)
	end = start + length(hex) / 2
}
EOF

# Reads readelf --debug-dump=frames-interp and prints, per FDE, "fde LO HI"
# and its rows "cfi LOC CFAREG CFAOFF REG=OFF...": from LOC on, the CFA is
# CFAREG + CFAOFF and each listed register is saved at CFA + OFF ("?": a
# rule the tests skip); registers the compiler says nothing about are left
# out. An FDE without rows has the CIE's initial row. The generator's
# regs.awk gives regname(r), the fixture's name for readelf's r, and
# kept(r), whether a column so named is written at all.
cat >"$work/cfi.awk" <<'EOF'
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
		col[i] = regname($i)
	next
}
/^[0-9a-f]+ / {
	cfa = $2
	split(cfa, cr, /[+]/)
	if (cfa !~ /^[a-z0-9]+\+[0-9]+$/)
		row = "? 0"
	else
		row = regname(cr[1]) " " cr[2]
	for (i = 3; i <= NF && i <= ncols; i++) {
		if ($i == "u" || !kept(col[i]))
			continue
		if ($i ~ /^c[-+][0-9]+$/)
			row = row " " col[i] "=" substr($i, 2) + 0
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
