/* The call-instruction check that validates scanned return addresses on
 * x86 and amd64 (Intel SDM vol. 2, "CALL—Call Procedure"):
 *   E8 cd           call rel32                     5 bytes
 *   FF /2           call r/m: ModRM.reg == 2, length from ModRM/SIB/disp
 * Prefixes (REX, segment, operand size) precede the opcode and do not change
 * where the instruction ends, so they need no decoding here. */
#include "x86_call.h"

#include "lib/walker.h"

/* Length of an FF /2 instruction whose ModRM byte is modrm and whose SIB
 * byte (if any) is sib; 0 if ModRM.reg is not 2. In 64-bit mode mod=00
 * rm=101 is RIP-relative, with the same disp32 length. */
static unsigned ff2_length(uint8_t modrm, uint8_t sib)
{
	unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
	if (reg != 2)
		return 0;
	unsigned len = 2;
	if (mod == 3)
		return len;
	if (rm == 4) {
		len += 1; /* SIB */
		if (mod == 0 && (sib & 7) == 5)
			len += 4;
	}
	if (mod == 0 && rm == 5)
		len += 4;
	else if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

bool sw_x86_call_precedes(const struct sw_walk *w, uint64_t ra, bool *known)
{
	uint8_t code[7];
	*known = false;
	if (ra < sizeof code || !sw_walk_read(w, ra - sizeof code, code, sizeof code))
		return true;
	*known = true;
	/* code[6] is the byte just before ra; code[7 - n] starts an n-byte call. */
	if (code[7 - 5] == 0xe8)
		return true;
	for (unsigned n = 2; n <= 7; n++) {
		const uint8_t *insn = &code[7 - n];
		if (insn[0] != 0xff)
			continue;
		uint8_t sib = n >= 3 ? insn[2] : 0;
		if (ff2_length(insn[1], sib) == n)
			return true;
	}
	return false;
}
