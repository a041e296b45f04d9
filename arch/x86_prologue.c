/* Prologue analysis for x86-64 code without unwind tables (prologue.h has
 * the frame state; this file knows the instructions).
 *
 * SysV AMD64 ABI §3.2.2: `call` pushes the return address, so at a
 * function's first instruction the return address is at [rsp] and the CFA
 * (the caller's rsp) is rsp + 8. A compiler then saves the callee-saved
 * registers it uses with `push` (rbx, rbp, r12-r15; §3.2.1) and allocates
 * its frame with `sub $N, %rsp`, possibly interleaving instructions that
 * do not touch rsp (GCC -O2 schedules loads and register moves between
 * the pushes); with a frame pointer it also does `mov %rsp, %rbp` after
 * pushing rbp, and may then move rsp by amounts known only at run time
 * (alloca, VLAs). Until the epilogue, rsp stays where the prologue left
 * it: x86-64 code passes arguments in registers, and `call` / `ret` pair
 * up. The epilogue undoes the prologue (`add $N, %rsp` or `leave`, then
 * `pop`s and `ret`).
 *
 * The decoder walks the instructions from the function's start towards
 * pc, turning each into frame events: push, pop, rsp += imm, rbp = rsp,
 * rsp = rbp, a write to a register, a return or jump (a path's end). It
 * knows the lengths of the general-purpose and common SSE instructions
 * compilers emit; at the first instruction it cannot size it stops and
 * takes the frame as it is then: past the prologue rsp no longer moves.
 * The return address the state predicts must then pass every check a
 * scanned word does, so a wrong guess costs a refused step, not a frame. */
#include "x86_prologue.h"

#include <string.h>

#include "lib/walker.h"
#include "prologue.h"
#include "x86_call.h"

enum {
	RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15, RIP,
	X86_MAX_INSN = 15,
	/* Bytes of code decoded from a function's start: prologues are short,
	 * but a frame 0 may be deep in a long function. */
	DECODE_BYTES = 16 * 1024,
};

/* Hardware register number (ModRM/REX encoding, Intel SDM vol. 2 §2.1)
 * -> DWARF number (SysV AMD64 ABI figure 3.36): the two orders differ. */
static const uint8_t dwarf_of_hw[16] = {
	RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15,
};

enum event {
	EV_NONE,        /* no effect on the frame */
	EV_PUSH,        /* push reg (reg < 0: an immediate or memory) */
	EV_POP,         /* pop reg */
	EV_SP_ADD,      /* rsp += imm */
	EV_SP_UNKNOWN,  /* rsp changed by an amount not known here */
	EV_FP_FROM_SP,  /* rbp = rsp + imm */
	EV_SP_FROM_FP,  /* rsp = rbp + imm */
	EV_LEAVE,       /* rsp = rbp; pop rbp */
	EV_WRITE,       /* reg = an unknown value */
	EV_RET,         /* ret: no fall-through */
	EV_PATH_END,    /* jmp: no fall-through */
	EV_STOP,        /* an instruction not sized here (or a trap) */
};

struct insn {
	unsigned len;
	enum event ev;
	int reg;        /* DWARF number, or -1 */
	int64_t imm;
	bool branch;    /* a direct jmp or jcc, to the next instruction + rel */
	int64_t rel;    /* a branch's or a direct call's displacement */
	bool indirect;  /* jmp through a register or memory */
	bool call;      /* a direct call (call rel32) */
	bool call_indirect; /* call r/m */
	uint32_t clobbers; /* further registers written (1 << DWARF number):
	                      string instructions, cpuid, cmpxchg */
};

static int32_t rel32_at(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	                 (uint32_t)p[3] << 24);
}

/* Bytes after the opcode taken by a ModRM operand (ModRM, SIB,
 * displacement; SDM vol. 2 tables 2-2 and 2-3), 0 if they do not fit. */
static unsigned modrm_size(const uint8_t *m, size_t avail)
{
	if (avail < 1)
		return 0;
	unsigned mod = m[0] >> 6, rm = m[0] & 7, n = 1;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (avail < 2)
			return 0;
		n++;
		if (mod == 0 && (m[1] & 7) == 5)
			n += 4;
	} else if (mod == 0 && rm == 5) {
		n += 4; /* rip + disp32 */
	}
	n += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	return n <= avail ? n : 0;
}

static int32_t read_le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	                 (uint32_t)p[3] << 24);
}

/* The register operand of a ModRM instruction written by it: reg field
 * (dest_reg) or r/m when it is a register (mod 3). */
static int modrm_reg(uint8_t modrm, uint8_t rex)
{
	return dwarf_of_hw[((modrm >> 3) & 7) | (rex & 4 ? 8 : 0)];
}

static int modrm_rm(uint8_t modrm, uint8_t rex)
{
	return (modrm >> 6) == 3 ? dwarf_of_hw[(modrm & 7) | (rex & 1 ? 8 : 0)] : -1;
}

/* A write to `reg` by an instruction: to rsp it is a move of the frame
 * by an unknown amount, to anything else a register the caller may not
 * get back. */
static void writes(struct insn *in, int reg)
{
	if (reg < 0)
		return;
	in->ev = reg == RSP ? EV_SP_UNKNOWN : EV_WRITE;
	in->reg = reg;
}

/* ALU group 1 with an immediate (80, 81, 83 /op): add, or, adc, sbb, and,
 * sub, xor, cmp. On rsp: add and sub are frame moves, and realigns, the
 * others (cmp) nothing. */
static void alu_imm(struct insn *in, uint8_t modrm, uint8_t rex, int64_t imm)
{
	unsigned op = (modrm >> 3) & 7;
	int rm = modrm_rm(modrm, rex);
	if (op == 7)
		return; /* cmp */
	if (rm == RSP && op == 0) {
		in->ev = EV_SP_ADD;
		in->imm = imm;
	} else if (rm == RSP && op == 5) {
		in->ev = EV_SP_ADD;
		in->imm = -imm;
	} else {
		writes(in, rm);
	}
}

/* Two-byte opcodes 0f xx with a ModRM operand (SDM vol. 2 table A-3), the
 * ones compilers emit in ordinary code: their length, and the GPR they
 * write, if any (as_reg: the reg field is the destination). */
static bool two_byte_modrm(uint8_t op, bool *as_reg, bool *as_rm, bool *imm8)
{
	*as_reg = *as_rm = *imm8 = false;
	if ((op >= 0x40 && op <= 0x4f) || op == 0xaf || op == 0xb6 || op == 0xb7 ||
	    op == 0xbe || op == 0xbf || op == 0xbc || op == 0xbd) {
		*as_reg = true; /* cmovcc, imul, movzx, movsx, bsf, bsr */
		return true;
	}
	if (op >= 0x90 && op <= 0x9f) {
		*as_rm = true; /* setcc */
		return true;
	}
	if (op == 0x1f || op == 0x18 || op == 0xa3 || op == 0xab || op == 0xb3 || op == 0xbb)
		return true; /* nop r/m, prefetch, bt family (writes flags, or memory) */
	if (op == 0xba) {
		*imm8 = true;
		return true;
	}
	/* SSE moves and arithmetic on xmm registers (10-17, 28-2f, 50-7f,
	 * c2, c6, d0-ff): no GPR written but by movd/movq/pmovmskb/cvt*2si,
	 * which compilers do not put in prologues; a write there is only a
	 * register the caller may not get back. */
	if ((op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2f) || (op >= 0x50 && op <= 0x7f) ||
	    op >= 0xd0 || op == 0xc2 || op == 0xc6 || op == 0x70 || op == 0x71 ||
	    op == 0x72 || op == 0x73) {
		*imm8 = op == 0xc2 || op == 0xc6 || (op >= 0x70 && op <= 0x73);
		return true;
	}
	return false;
}

/* Two-byte opcodes that write registers of their own or stop a path
 * (SDM vol. 2 table A-3): cpuid, rdtsc, cmpxchg, xadd, bswap, shld/shrd,
 * ud2, popcnt, the 0f 38 / 0f 3a maps of SSSE3-SSE4.2 (crc32, movbe,
 * pextr*). Sets in->len to the bytes after the 0f; false for any other. */
static bool two_byte_special(const uint8_t *m, size_t left, uint8_t rex, struct insn *in)
{
	uint8_t op = m[0];
	unsigned mr;
	in->ev = EV_NONE;
	if (op == 0xa2 || op == 0x31) { /* cpuid, rdtsc */
		in->len = 1;
		writes(in, RAX);
		in->clobbers = 1u << RDX | (op == 0xa2 ? 1u << RBX | 1u << RCX : 0);
		return true;
	}
	if (op == 0x0b) { /* ud2: a trap, no fall-through */
		in->len = 1;
		in->ev = EV_PATH_END;
		return true;
	}
	if (op >= 0xc8 && op <= 0xcf) { /* bswap */
		in->len = 1;
		writes(in, dwarf_of_hw[(op & 7) | (rex & 1 ? 8 : 0)]);
		return true;
	}
	bool cmpxchg = op == 0xb0 || op == 0xb1, xadd = op == 0xc0 || op == 0xc1;
	bool shift = op == 0xa4 || op == 0xa5 || op == 0xac || op == 0xad;
	bool three = (op == 0x38 || op == 0x3a) && left >= 2;
	bool group = op == 0xae || op == 0xc7 || op == 0x0d || op == 0xb8 || op == 0xc3 ||
	             op == 0xc4 || op == 0xc5;
	if (!cmpxchg && !xadd && !shift && !three && !group)
		return false;
	const uint8_t *modrm = m + (three ? 2 : 1);
	size_t rest = left - (three ? 2 : 1);
	if (!(mr = modrm_size(modrm, rest)))
		return false;
	bool imm8 = op == 0xa4 || op == 0xac || op == 0x3a || op == 0xc4 || op == 0xc5;
	in->len = (three ? 2 : 1) + mr + (imm8 ? 1 : 0);
	if (in->len > left)
		return false;
	int reg = modrm_reg(modrm[0], rex), rm = modrm_rm(modrm[0], rex);
	if (cmpxchg) {
		writes(in, rm);
		in->clobbers = 1u << RAX;
	} else if (xadd) {
		writes(in, rm);
		in->clobbers = 1u << reg;
	} else if (shift) {
		writes(in, rm);
	} else if (op == 0xb8 || op == 0xc5) { /* popcnt, pextrw */
		writes(in, reg);
	} else if (op == 0xc7 && ((modrm[0] >> 3) & 7) == 1) { /* cmpxchg8b */
		in->clobbers = 1u << RAX | 1u << RDX;
	} else if (op == 0xc7) { /* rdrand, rdseed, rdpid */
		writes(in, rm);
	} else if (op == 0x38 && (m[1] == 0xf0 || m[1] == 0xf1)) { /* crc32, movbe load */
		writes(in, reg);
	} else if (op == 0x3a && m[1] >= 0x14 && m[1] <= 0x17) { /* pextrb/w/d/q, extractps */
		writes(in, rm);
	}
	return true;
}

/* Decodes the instruction at c (avail bytes readable), 64-bit or 32-bit
 * code (where 40-4f are inc and dec, not REX prefixes). */
static void decode(const uint8_t *c, size_t avail, bool is64, struct insn *in)
{
	memset(in, 0, sizeof *in);
	in->reg = -1;
	in->ev = EV_STOP;
	size_t i = 0;
	uint8_t rex = 0;
	bool opsize = false;
	bool repeat = false;
	/* Legacy prefixes (operand size, rep, lock, segment), then REX. */
	while (i < avail && i < 4 &&
	       (c[i] == 0x66 || c[i] == 0xf2 || c[i] == 0xf3 || c[i] == 0xf0 || c[i] == 0x64 ||
	        c[i] == 0x65 || c[i] == 0x2e || c[i] == 0x3e || c[i] == 0x26 || c[i] == 0x36)) {
		opsize |= c[i] == 0x66;
		repeat |= c[i] == 0xf2 || c[i] == 0xf3;
		i++;
	}
	if (is64 && i < avail && (c[i] & 0xf0) == 0x40)
		rex = c[i++];
	if (i >= avail)
		return;
	uint8_t op = c[i++];
	const uint8_t *m = c + i;
	size_t left = avail - i;
	unsigned mr;
	if (!is64 && op >= 0x40 && op <= 0x4f) { /* inc, dec r32 */
		in->len = (unsigned)i;
		writes(in, dwarf_of_hw[op & 7]);
		return;
	}
	unsigned imm_size = opsize ? 2 : 4;

	/* endbr64 / endbr32 (f3 0f 1e fa/fb) */
	if (op == 0x0f && left >= 2 && m[0] == 0x1e && (m[1] == 0xfa || m[1] == 0xfb)) {
		in->len = (unsigned)i + 2;
		in->ev = EV_NONE;
		return;
	}
	/* syscall, sysenter (0f 05, 0f 34), int $0x80 (cd 80): the kernel
	 * returns to the next instruction; rax/eax holds its result. */
	if ((op == 0x0f && left >= 1 && (m[0] == 0x05 || m[0] == 0x34)) ||
	    (op == 0xcd && left >= 1 && m[0] == 0x80)) {
		in->len = (unsigned)i + 1;
		writes(in, RAX);
		return;
	}
	if (op >= 0x50 && op <= 0x57) {
		in->len = (unsigned)i;
		in->ev = EV_PUSH;
		in->reg = dwarf_of_hw[(op & 7) | (rex & 1 ? 8 : 0)];
		return;
	}
	if (op >= 0x58 && op <= 0x5f) {
		in->len = (unsigned)i;
		in->ev = EV_POP;
		in->reg = dwarf_of_hw[(op & 7) | (rex & 1 ? 8 : 0)];
		return;
	}
	if (op == 0x6a || op == 0x68) {
		in->len = (unsigned)i + (op == 0x6a ? 1 : 4);
		in->ev = EV_PUSH;
		return;
	}
	if (op == 0xc9) { /* leave */
		in->len = (unsigned)i;
		in->ev = EV_LEAVE;
		return;
	}
	if (op == 0xc3 || op == 0xc2) {
		in->len = (unsigned)i + (op == 0xc2 ? 2 : 0);
		in->ev = EV_RET;
		return;
	}
	if ((op == 0xeb && left >= 1) || (op == 0xe9 && left >= 4)) {
		in->len = (unsigned)i + (op == 0xeb ? 1 : 4);
		in->ev = EV_PATH_END;
		in->branch = true;
		in->rel = op == 0xeb ? (int8_t)m[0] : rel32_at(m);
		return;
	}
	if (op >= 0x70 && op <= 0x7f && left >= 1) { /* jcc rel8 */
		in->len = (unsigned)i + 1;
		in->ev = EV_NONE;
		in->branch = true;
		in->rel = (int8_t)m[0];
		return;
	}
	if (op == 0xe8 && left >= 4) { /* call rel32 */
		in->len = (unsigned)i + 4;
		in->ev = EV_NONE;
		in->call = true;
		in->rel = rel32_at(m);
		return;
	}
	if (op == 0x0f && left >= 5 && m[0] >= 0x80 && m[0] <= 0x8f) { /* jcc rel32 */
		in->len = (unsigned)i + 5;
		in->ev = EV_NONE;
		in->branch = true;
		in->rel = rel32_at(m + 1);
		return;
	}
	if (op >= 0xa0 && op <= 0xa3) { /* mov between al/eax/rax and an absolute address */
		in->len = (unsigned)i + (is64 ? 8 : 4);
		in->ev = EV_NONE;
		if (op <= 0xa1)
			writes(in, RAX);
		return;
	}
	if (op == 0x90 || op == 0x98 || op == 0x99 || op == 0xfc || op == 0xfd || op == 0xf5 ||
	    op == 0xf8 || op == 0xf9 || op == 0x9b || op == 0x9e) {
		in->len = (unsigned)i;
		in->ev = EV_NONE;
		if (op == 0x99)
			writes(in, RDX); /* cdq */
		return;
	}
	if (op >= 0x91 && op <= 0x97) { /* xchg eax, reg */
		in->len = (unsigned)i;
		int reg = dwarf_of_hw[(op & 7) | (rex & 1 ? 8 : 0)];
		writes(in, reg);
		if (in->ev != EV_SP_UNKNOWN)
			in->clobbers = 1u << RAX;
		return;
	}
	if (op == 0x9c || op == 0x9d) { /* pushf, popf */
		in->len = (unsigned)i;
		in->ev = op == 0x9c ? EV_PUSH : EV_POP;
		return;
	}
	if (op == 0xf4) { /* hlt: a trap in user code, no fall-through */
		in->len = (unsigned)i;
		in->ev = EV_PATH_END;
		return;
	}
	/* String instructions (movs, cmps, stos, lods, scas; SDM vol. 2
	 * chapter 4): rdi and rsi move, rcx counts down under rep, lods
	 * loads rax. */
	if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf)) {
		in->len = (unsigned)i;
		bool src = op <= 0xa7 || op == 0xac || op == 0xad, dst = op != 0xac && op != 0xad;
		in->ev = EV_WRITE;
		in->reg = dst ? RDI : RSI;
		in->clobbers = (src && dst ? 1u << RSI : 0) | (repeat ? 1u << RCX : 0) |
		               (op == 0xac || op == 0xad ? 1u << RAX : 0);
		return;
	}
	/* x87 (d8-df, SDM vol. 2 table A-7): memory or st(i) operands, no
	 * general register written but by fnstsw %ax (df e0). */
	if (op >= 0xd8 && op <= 0xdf) {
		if (!(mr = modrm_size(m, left)))
			return;
		in->len = (unsigned)i + mr;
		in->ev = EV_NONE;
		if (op == 0xdf && m[0] == 0xe0)
			writes(in, RAX);
		return;
	}
	if (op >= 0xb0 && op <= 0xbf) { /* mov imm -> reg */
		unsigned n = op < 0xb8 ? 1 : (rex & 8) ? 8 : imm_size;
		in->len = (unsigned)i + n;
		writes(in, dwarf_of_hw[(op & 7) | (rex & 1 ? 8 : 0)]);
		if (op < 0xb8)
			in->ev = in->reg == RSP ? EV_NONE : in->ev; /* mov imm8, spl... */
		return;
	}
	/* Accumulator forms with an immediate: add/or/adc/sbb/and/sub/xor/cmp
	 * al/eax, test al/eax. */
	if ((op & 0xc7) == 0x04 || (op & 0xc7) == 0x05 || op == 0xa8 || op == 0xa9) {
		in->len = (unsigned)i + ((op & 1) ? imm_size : 1);
		in->ev = EV_NONE;
		return;
	}
	/* ALU r/m, r and r, r/m (00-3b), test (84, 85), xchg (86, 87), mov
	 * (88-8b), lea (8d), movsxd (63), imul with immediate (69, 6b). */
	if ((op < 0x40 && (op & 7) < 4) || op == 0x84 || op == 0x85 || op == 0x86 || op == 0x87 ||
	    (op >= 0x88 && op <= 0x8b) || op == 0x8d || op == 0x63 || op == 0x69 || op == 0x6b) {
		if (!(mr = modrm_size(m, left)))
			return;
		unsigned n = op == 0x69 ? imm_size : op == 0x6b ? 1 : 0;
		in->len = (unsigned)i + mr + n;
		in->ev = EV_NONE;
		uint8_t modrm = m[0];
		int reg = modrm_reg(modrm, rex), rm = modrm_rm(modrm, rex);
		bool cmp = (op & 0xf8) == 0x38 || op == 0x84 || op == 0x85;
		if (cmp)
			return;
		if (op == 0x89 && rm == RBP && reg == RSP) {
			in->ev = EV_FP_FROM_SP;
			in->reg = RBP;
			return;
		}
		if (op == 0x8b && reg == RBP && rm == RSP) {
			in->ev = EV_FP_FROM_SP;
			in->reg = RBP;
			return;
		}
		if ((op == 0x89 && rm == RSP && reg == RBP) || (op == 0x8b && reg == RSP && rm == RBP)) {
			in->ev = EV_SP_FROM_FP;
			return;
		}
		/* lea disp(%rsp), %rsp / lea disp(%rbp), %rsp: a frame move. */
		if (op == 0x8d && reg == RSP && (modrm >> 6) != 3) {
			unsigned base = (modrm & 7) == 4 ? (m[1] & 7) : (modrm & 7);
			bool extb = rex & 1;
			unsigned mod = modrm >> 6;
			int64_t disp = mod == 1 ? (int8_t)m[mr - 1] : mod == 2 ? read_le32(&m[mr - 4]) : 0;
			bool plain = (modrm & 7) != 4 || ((m[1] >> 3) & 7) == 4; /* no index */
			if (plain && !extb && base == 4 && mod != 0) {
				in->ev = EV_SP_ADD;
				in->imm = disp;
				return;
			}
			if (plain && !extb && base == 5 && mod != 0) {
				in->ev = EV_SP_FROM_FP;
				in->imm = disp;
				return;
			}
			in->ev = EV_SP_UNKNOWN;
			return;
		}
		/* Which operand is written: the r/m one for the stores (00, 01,
		 * 08, ..., 88, 89), the reg one for the loads (02, 03, ..., 8a,
		 * 8b, 8d, 63, 69, 6b), both for xchg. */
		bool to_rm = op < 0x40 ? (op & 2) == 0 : op == 0x88 || op == 0x89;
		if (op == 0x86 || op == 0x87) {
			writes(in, rm);
			if (in->ev != EV_SP_UNKNOWN)
				writes(in, reg);
			return;
		}
		writes(in, to_rm ? rm : reg);
		return;
	}
	if (op == 0x80 || op == 0x81 || op == 0x83) {
		if (!(mr = modrm_size(m, left)))
			return;
		unsigned n = op == 0x81 ? imm_size : 1;
		if (left < mr + n)
			return;
		int64_t imm = op == 0x81 && !opsize ? read_le32(&m[mr]) : (int8_t)m[mr];
		in->len = (unsigned)i + mr + n;
		in->ev = EV_NONE;
		if ((rex & 8) && op != 0x80 && (m[0] >> 6) == 3 && (((m[0] >> 3) & 7) == 4) &&
		    modrm_rm(m[0], rex) == RSP) {
			in->ev = EV_SP_UNKNOWN; /* and $-16, %rsp: a realignment */
			return;
		}
		alu_imm(in, m[0], rex, imm);
		return;
	}
	if (op == 0xc6 || op == 0xc7) { /* mov imm -> r/m */
		if (!(mr = modrm_size(m, left)))
			return;
		in->len = (unsigned)i + mr + (op == 0xc6 ? 1 : imm_size);
		in->ev = EV_NONE;
		writes(in, modrm_rm(m[0], rex));
		return;
	}
	if (op == 0xc0 || op == 0xc1 || op == 0xd0 || op == 0xd1 || op == 0xd2 || op == 0xd3) {
		if (!(mr = modrm_size(m, left)))
			return;
		in->len = (unsigned)i + mr + (op <= 0xc1 ? 1 : 0);
		in->ev = EV_NONE;
		writes(in, modrm_rm(m[0], rex));
		return;
	}
	if (op == 0xf6 || op == 0xf7) {
		if (!(mr = modrm_size(m, left)))
			return;
		unsigned sub = (m[0] >> 3) & 7;
		in->len = (unsigned)i + mr + (sub <= 1 ? (op == 0xf6 ? 1 : imm_size) : 0);
		in->ev = EV_NONE;
		if (sub == 2 || sub == 3)
			writes(in, modrm_rm(m[0], rex)); /* not, neg */
		return;
	}
	if (op == 0xfe || op == 0xff) {
		if (!(mr = modrm_size(m, left)))
			return;
		unsigned sub = (m[0] >> 3) & 7;
		in->len = (unsigned)i + mr;
		in->ev = EV_NONE;
		if (sub <= 1)
			writes(in, modrm_rm(m[0], rex)); /* inc, dec */
		else if (sub == 4 || sub == 5) {
			in->ev = EV_PATH_END; /* jmp r/m */
			in->indirect = true;
		}
		else if (sub == 6)
			in->ev = EV_PUSH;
		else if (sub == 7)
			in->ev = EV_STOP;
		else
			in->call_indirect = true; /* call r/m (2, 3): rsp as before */
		return;
	}
	if (op == 0x0f && left >= 1 && two_byte_special(m, left, rex, in)) {
		in->len += (unsigned)i;
		return;
	}
	if (op == 0x0f && left >= 1) {
		bool as_reg, as_rm, imm8;
		if (!two_byte_modrm(m[0], &as_reg, &as_rm, &imm8) ||
		    !(mr = modrm_size(m + 1, left - 1)))
			return;
		in->len = (unsigned)i + 1 + mr + (imm8 ? 1 : 0);
		in->ev = EV_NONE;
		if (as_reg)
			writes(in, modrm_reg(m[1], rex));
		else if (as_rm)
			writes(in, modrm_rm(m[1], rex));
		return;
	}
	/* Anything else (string instructions, x87, traps, far transfers):
	 * not sized here. */
}

/* Reads up to X86_MAX_INSN bytes at addr through the code window; how
 * many could be read. */
static size_t read_insn(struct sw_code *c, uint64_t addr, uint8_t *buf)
{
	size_t n = 0;
	while (n < X86_MAX_INSN) {
		unsigned k = X86_MAX_INSN - n < 8 ? (unsigned)(X86_MAX_INSN - n) : 8;
		if (!sw_code_read(c, addr + n, buf + n, k))
			break;
		n += k;
	}
	/* The end of a region: byte by byte. */
	while (n < X86_MAX_INSN && sw_code_read(c, addr + n, buf + n, 1))
		n++;
	return n;
}

/* What decoding from a function's start towards pc found. */
enum decoded {
	UNREADABLE,     /* no code at the start */
	DECODED_TO_PC,  /* every instruction up to pc */
	STOPPED,        /* an instruction not sized here: the frame as there */
	LEFT_FUNCTION,  /* a return, then padding or another function's
	                   prologue, before pc (only when asked to look) */
};

/* The padding assemblers put between functions (Intel SDM vol. 2 "NOP"):
 * int3, nop, the multi-byte nops 0f 1f /0 with zero displacements (after
 * any number of 66 and 2e prefixes: 66 90, 66 2e 0f 1f 84 ...), and
 * i386's lea 0(%esi), %esi and mov %esi, %esi forms. */
static const struct {
	uint8_t len;
	uint8_t bytes[8];
} gas_padding[] = {
	{ 1, { 0xcc } },
	{ 1, { 0x90 } },
	{ 3, { 0x0f, 0x1f, 0x00 } },
	{ 4, { 0x0f, 0x1f, 0x40, 0x00 } },
	{ 5, { 0x0f, 0x1f, 0x44, 0x00, 0x00 } },
	{ 7, { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 } },
	{ 8, { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ 3, { 0x8d, 0x76, 0x00 } },
	{ 4, { 0x8d, 0x74, 0x26, 0x00 } },
	{ 7, { 0x8d, 0xb4, 0x26, 0x00, 0x00, 0x00, 0x00 } },
	{ 7, { 0x8d, 0xbc, 0x27, 0x00, 0x00, 0x00, 0x00 } },
	{ 6, { 0x8d, 0xb6, 0x00, 0x00, 0x00, 0x00 } },
	{ 6, { 0x8d, 0xbf, 0x00, 0x00, 0x00, 0x00 } },
	{ 3, { 0x8d, 0x7f, 0x00 } },
	{ 2, { 0x89, 0xf6 } },
};
enum { GAS_PADDING_FORMS = sizeof gas_padding / sizeof gas_padding[0] };

/* How many bytes of padding begin at b[0..n): 0 when none does. */
static size_t padding_len(const uint8_t *b, size_t n)
{
	size_t p = 0;
	while (p < n && (b[p] == 0x66 || b[p] == 0x2e))
		p++;
	for (size_t k = 0; k < GAS_PADDING_FORMS; k++)
		if (p + gas_padding[k].len <= n &&
		    memcmp(b + p, gas_padding[k].bytes, gas_padding[k].len) == 0)
			return p + gas_padding[k].len;
	return 0;
}

/* Does the code before an address end a function, as it lies in
 * before[0..n) (the bytes right before it)? A return (c3), a jump to
 * itself, or padding. A
 * false match costs nothing where the decode from the address then fails
 * to land on pc. */
static bool ends_before_function(const uint8_t *before, size_t n)
{
	if (n == 0)
		return false;
	if (before[n - 1] == 0xc3)
		return true;
	/* jmp to itself: the endless loop a noreturn function ends in (zoo
	 * x86_64 1045, musl static: f8's `jmp .`, then f7). */
	if (n >= 2 && before[n - 2] == 0xeb && before[n - 1] == 0xfe)
		return true;
	for (size_t k = 0; k < GAS_PADDING_FORMS; k++)
		if (gas_padding[k].len <= n &&
		    memcmp(before + n - gas_padding[k].len, gas_padding[k].bytes, gas_padding[k].len) == 0)
			return true;
	return false;
}

/* Is b's first instruction a callee-saved push (SysV psABIs: rbp, rbx,
 * r12-r15; on i386 also esi, edi)? Its length in *len. */
static bool saves_register(const uint8_t *b, size_t n, bool is64, size_t *len)
{
	*len = is64 && n >= 2 && b[0] == 0x41 ? 2 : 1;
	if (*len == 2)
		return b[1] >= 0x54 && b[1] <= 0x57;
	return n >= 1 && (b[0] == 0x55 || b[0] == 0x53 || (!is64 && (b[0] == 0x56 || b[0] == 0x57)));
}

/* Does a function's first instruction, as compilers emit it, begin at b:
 * endbr64/endbr32, a push of a callee-saved register (rbp, rbx, r12-r15;
 * on i386 also esi, edi), or a sub from rsp/esp? */
static bool opens_function(const uint8_t *b, size_t n, bool is64)
{
	if (n < 4)
		return false;
	if (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && (b[3] == 0xfa || b[3] == 0xfb))
		return true;
	size_t len;
	if (saves_register(b, n, is64, &len))
		return true;
	const uint8_t *sub = is64 && b[0] == 0x48 ? b + 1 : b;
	return (sub[0] == 0x83 || sub[0] == 0x81) && sub[1] == 0xec;
}

/* Does b open as no block inside a function does: endbr, or `push %rbp;
 * mov %rsp,%rbp` (a frame's set-up, made only on entry)? */
static bool opens_with_entry_code(const uint8_t *b, size_t n, bool is64)
{
	static const uint8_t frame32[] = { 0x55, 0x89, 0xe5 }, frame64[] = { 0x55, 0x48, 0x89, 0xe5 };
	if (n < 4)
		return false;
	if (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && (b[3] == 0xfa || b[3] == 0xfb))
		return true;
	return is64 ? memcmp(b, frame64, sizeof frame64) == 0 : memcmp(b, frame32, sizeof frame32) == 0;
}

/* Does b open as only a function does: entry code, or two callee-saved
 * pushes in a row (a block inside a function rarely begins saving
 * registers)? */
static bool opens_only_a_function(const uint8_t *b, size_t n, bool is64)
{
	size_t first, second;
	return opens_with_entry_code(b, n, is64) ||
	       (n >= 4 && saves_register(b, n, is64, &first) &&
	        saves_register(b + first, n - first, is64, &second));
}

/* Padding, zeros or the start of another function (its opening, or a push
 * of any register, as clang's push %rax aligning the stack) right after a
 * return: the function that returned ends there. A shrink-wrapped
 * function may put its prologue right after an early return, which this
 * takes for another function: callers use it only where nothing better is
 * known. */
static bool starts_another_function(const uint8_t *b, size_t n)
{
	if (n < 2)
		return false;
	if (padding_len(b, n) || (b[0] == 0 && b[1] == 0) || opens_function(b, n, true))
		return true;
	return (b[0] >= 0x50 && b[0] <= 0x57) || (b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57);
}

/* Feeds the frame events of the instructions in [start, pc) to p. With
 * find_end, a return followed by what starts another function ends the
 * decoding (LEFT_FUNCTION). */
static enum decoded analyze(struct sw_code *c, struct sw_prologue *p, uint64_t start, uint64_t pc,
                            bool find_end)
{
	/* At the entry the return address is at [rsp] = CFA - 8. */
	p->decoded_from = start;
	sw_pro_sp_add(p, -8);
	sw_pro_store(p, RIP, RSP, 0, 8);
	uint64_t at = start, reach = start;
	bool after_ret = false;
	while (at < pc && at - start < DECODE_BYTES) {
		uint8_t buf[X86_MAX_INSN];
		size_t n = read_insn(c, at, buf);
		if (n == 0)
			return at > start ? STOPPED : UNREADABLE;
		/* Padding after a return that a jump of the function leads past
		 * aligns a branch target (66 90 before a loop): the function
		 * goes on. */
		if (after_ret && find_end && at > reach && starts_another_function(buf, n))
			return LEFT_FUNCTION;
		struct insn in;
		decode(buf, n, true, &in);
		if (in.ev == EV_STOP || in.len == 0 || at + in.len > pc)
			return at + in.len > pc && in.ev != EV_STOP ? DECODED_TO_PC : STOPPED;
		if (in.branch && at + in.len + (uint64_t)in.rel > reach)
			reach = at + in.len + (uint64_t)in.rel;
		after_ret = in.ev == EV_RET;
		switch (in.ev) {
		case EV_PUSH:
			sw_pro_sp_add(p, -8);
			if (in.reg >= 0)
				sw_pro_store(p, (unsigned)in.reg, RSP, 0, 8);
			break;
		case EV_POP:
			if (in.reg >= 0)
				sw_pro_load(p, (unsigned)in.reg, RSP, 0);
			sw_pro_sp_add(p, 8);
			break;
		case EV_SP_ADD:
			sw_pro_sp_add(p, in.imm);
			break;
		case EV_SP_UNKNOWN:
			sw_pro_sp_unknown(p);
			break;
		case EV_FP_FROM_SP:
			sw_pro_fp_from_sp(p, 0);
			break;
		case EV_SP_FROM_FP:
			sw_pro_sp_from_fp(p, in.imm);
			break;
		case EV_LEAVE:
			sw_pro_sp_from_fp(p, 0);
			sw_pro_load(p, RBP, RSP, 0);
			sw_pro_sp_add(p, 8);
			break;
		case EV_WRITE:
			if (in.reg >= 0)
				sw_pro_write(p, (unsigned)in.reg);
			break;
		case EV_RET:
		case EV_PATH_END:
			sw_pro_path_end(p);
			break;
		case EV_NONE:
		case EV_STOP:
			break;
		}
		for (unsigned r = 0; r < RIP; r++)
			if (in.clobbers & 1u << r)
				sw_pro_write(p, r);
		at += in.len;
	}
	return DECODED_TO_PC;
}

enum sw_unwind_status sw_amd64_caller_by_prologue(const struct sw_step *s, struct sw_caller *out)
{
	const struct sw_frame *callee = s->callee;
	uint64_t start = sw_pro_symbol_start(s);
	/* A caller's lookup pc is inside its call: the frame is as at the
	 * call, whose own push is undone by the callee's return. */
	uint64_t pc = sw_frame_code_pc(callee);
	if (!sw_reg_valid(&callee->regs, RSP))
		return SW_UNWIND_NO_RULE;
	/* Without symbols, the start the code shows (its search lands on an
	 * instruction boundary: the return address for a caller). */
	uint64_t boundary = sw_frame_has_live_context(callee) ? callee->pc : callee->lookup_pc + 1;
	if (!start && !sw_x86_start_without_symbols(s->walk, boundary, true, &start))
		return SW_UNWIND_NO_RULE;
	if (start > pc || callee->function_is_public)
		return SW_UNWIND_NO_RULE;
	struct sw_code c;
	sw_code_init(&c, s->walk);
	struct sw_prologue p;
	sw_pro_init(&p, s->walk->arch);
	p.ra = RIP;
	p.tracked |= 1u << RIP;
	if (analyze(&c, &p, start, pc, false) == UNREADABLE)
		return SW_UNWIND_NO_RULE;
	/* A NULL return address in the predicted slot is no proof of the
	 * outermost frame here (the decoder may have stopped short of a push
	 * or an adjustment): the rule failed, other methods get their turn.
	 * x86 threads end at their entry's CFI or name. */
	enum sw_unwind_status st = sw_pro_caller(&p, s, out);
	return st == SW_UNWIND_END ? SW_UNWIND_NO_RULE : st;
}

/* Decodes the instruction at *at and moves *at past it; *to is a direct
 * branch's destination (in->branch). False for code that cannot be read
 * or decoded, or that stops the decoder. */
static bool next_insn(struct sw_code *c, uint64_t *at, bool is64, struct insn *in, uint64_t *to)
{
	uint8_t buf[X86_MAX_INSN];
	size_t n = read_insn(c, *at, buf);
	if (n == 0)
		return false;
	decode(buf, n, is64, in);
	if (in->ev == EV_STOP || in->len == 0)
		return false;
	*at += in->len;
	*to = *at + (uint64_t)in->rel;
	if (!is64) {
		*at &= 0xffffffffu;
		*to &= 0xffffffffu;
	}
	return true;
}

/* How many instructions ahead of pc the epilogue is sought. */
enum { EPILOGUE_REACH = 32 };

/* The code from pc straight to its `ret`: no branch, call or jump on the
 * way, within EPILOGUE_REACH instructions, sp moved only by push, pop and
 * constants. *touches_fp: a pop or write of rbp on the way (rbp = rsp
 * + imm too); *released:
 * the bytes sp rises by before the `ret`. False when the code does not
 * run so. */
static bool straight_to_ret(const struct sw_walk *w, uint64_t pc, bool is64, bool *touches_fp,
                            int64_t *released)
{
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t at = pc, to;
	int64_t size = is64 ? 8 : 4;
	struct insn in;
	*touches_fp = false;
	*released = 0;
	for (unsigned k = 0; k < EPILOGUE_REACH; k++) {
		if (!next_insn(&c, &at, is64, &in, &to) || in.branch || in.indirect || in.call ||
		    in.call_indirect || in.ev == EV_PATH_END)
			return false;
		*touches_fp |= (in.clobbers & 1u << RBP) != 0;
		switch (in.ev) {
		case EV_RET:
			return true;
		case EV_PUSH:
			*released -= size;
			*touches_fp |= in.reg == RBP;
			break;
		case EV_POP:
			*released += size;
			*touches_fp |= in.reg == RBP;
			break;
		case EV_WRITE:
			*touches_fp |= in.reg == RBP;
			break;
		case EV_SP_ADD:
			*released += in.imm;
			break;
		case EV_FP_FROM_SP:
			*touches_fp = true;
			break;
		case EV_SP_FROM_FP: case EV_LEAVE: case EV_SP_UNKNOWN:
			return false;
		default:
			break;
		}
	}
	return false;
}

bool sw_x86_returns_leaving_fp(const struct sw_walk *w, uint64_t pc, bool is64)
{
	bool touches_fp;
	int64_t released;
	return straight_to_ret(w, pc, is64, &touches_fp, &released) && !touches_fp;
}

bool sw_x86_return_slot_ahead(const struct sw_walk *w, uint64_t pc, bool is64, uint64_t *offset)
{
	bool touches_fp;
	int64_t released;
	if (!straight_to_ret(w, pc, is64, &touches_fp, &released) || released < 0)
		return false;
	*offset = (uint64_t)released;
	return true;
}

/* Does padding begin at `at`? One nop after a call may be executed (MSVC
 * puts one between a call and an epilogue): a nop counts only before more
 * padding. */
static bool padding_at(struct sw_code *c, uint64_t at)
{
	uint8_t b[X86_MAX_INSN];
	size_t n = read_insn(c, at, b);
	if (n >= 2 && b[0] == 0x90)
		return padding_len(b + 1, n - 1) > 0;
	return padding_len(b, n) > 0;
}

/* Does the instruction `in`, which ends at `at`, end its path: a return,
 * a jump, or a direct call followed by padding (a call to a function
 * that does not return, __stack_chk_fail, abort, ends its function)? */
static bool ends_path(struct sw_code *c, const struct insn *in, uint64_t at)
{
	return in->ev == EV_RET || in->ev == EV_PATH_END || (in->call && padding_at(c, at));
}

/* How decoding a function's code from its start ended. */
enum function_end {
	END_UNKNOWN, /* code that cannot be decoded (strict: or a jump through
	                a register or below the start) before either */
	END_FOUND,   /* the function ends before the limit */
	END_BEYOND,  /* no end before the limit */
};

/* Is the instruction at `at` a pop of a register (the i386 idiom `call 1f;
 * 1: pop %ebx` reads its own address with a call to the next byte)? */
static bool pops_at(struct sw_code *c, uint64_t at)
{
	uint8_t b[2];
	if (!sw_code_read(c, at, b, 2))
		return false;
	return (b[0] >= 0x58 && b[0] <= 0x5f) || (b[0] == 0x41 && b[1] >= 0x58 && b[1] <= 0x5f);
}

/* Is `to`, a call's target, the entry of a function past `start` and
 * before `limit` (not a pop's: the i386 `call 1f; 1: pop` idiom)? */
static bool names_entry_within(struct sw_code *c, uint64_t to, uint64_t start, uint64_t limit)
{
	return to != start && to - start < limit - start && !pops_at(c, to);
}

/* Decodes the code from `start` until the function ends: a return, jump or
 * noreturn call past which no jump of its own leads (a jump to the very
 * next byte continues the function). *at is where decoding stopped: the
 * end, or the first instruction boundary at or past `limit`. With strict,
 * a jump through a register (a tail call, a switch) or below `start` (a
 * .cold part) makes the end unknown. *enters: a direct call decoded names
 * an address past `start` and before `limit` (not a pop's: the i386 `call
 * 1f; 1: pop` idiom), itself or through the PLT stub it calls (zoo i386
 * 3532, -O0 PIC: f6 ends `call f7@plt`, f7 follows at once), the entry
 * of another function, which the code decoded thus ran into. */
static enum function_end decode_to_end(struct sw_code *c, uint64_t start, uint64_t limit, bool is64,
                                       bool strict, uint64_t *at, bool *called, bool *enters)
{
	uint64_t reach = start, to, entry;
	struct insn in;
	*at = start;
	*called = false;
	*enters = false;
	/* Measured from start: i386 addresses wrap at 4 GiB. */
	while (*at - start < limit - start) {
		if (!next_insn(c, at, is64, &in, &to) || (strict && in.indirect))
			return END_UNKNOWN;
		*called |= in.call || in.call_indirect;
		if (in.call && (names_entry_within(c, to, start, limit) ||
		                (sw_x86_call_target(c->w, *at, is64, &entry) && entry != to &&
		                 names_entry_within(c, entry, start, limit))))
			*enters = true;
		if (in.branch) {
			if (strict && to < start)
				return END_UNKNOWN;
			if (to > reach)
				reach = to;
		}
		if (ends_path(c, &in, *at) && *at > reach && *at - start < limit - start)
			return END_FOUND;
	}
	return END_BEYOND;
}

/* Does the function a direct call entered at `target` stay away from pc?
 * It does when its code, decoded from `target` on, leaves only by its
 * returns (its jumps all land between `target` and a return or jump
 * past which none reaches: a closed piece of code, as __x86.get_pc_thunk
 * or a syscall wrapper is) and pc is not in it. A call to it then cannot
 * have led to pc: whatever it calls returns to it, and it returns to its
 * caller. A jump below `target` (GCC's .cold parts lie below their
 * function), through a register or a GOT slot (a tail call, a switch), or
 * code that cannot be decoded: not known, false. */
static bool closed_function_excludes(struct sw_code *c, uint64_t target, uint64_t pc, bool is64)
{
	uint64_t end;
	bool called, enters;
	return pc != target &&
	       decode_to_end(c, target, target + DECODE_BYTES, is64, true, &end, &called, &enters) ==
	               END_FOUND &&
	       (pc < target || pc >= end);
}

/* How far below its function a cold part may lie (GCC's .text.unlikely
 * parts of a translation unit sit just before its hot code). */
enum { X86_COLD_REACH = 64 * 1024 };

bool sw_x86_cold_part_holds(const struct sw_walk *w, uint64_t target, uint64_t pc, bool is64)
{
	if (pc >= target || target - pc > X86_COLD_REACH)
		return false;
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t at = target, reach = target, to;
	struct insn in;
	while (at - target < DECODE_BYTES && next_insn(&c, &at, is64, &in, &to)) {
		if (in.branch) {
			if (to < target && to <= pc && pc - to < X86_COLD_REACH)
				return true;
			if (to > reach)
				reach = to;
		}
		/* Past the function's last return with nothing jumping beyond:
		 * its code ends here. */
		if ((in.ev == EV_RET || in.ev == EV_PATH_END || in.indirect) && at > reach)
			return false;
	}
	return false;
}

/* How far back from pc a function's start is sought without symbols, and
 * how far into a function its opening is read. */
enum { START_REACH = 4096, X86_PROLOGUE_DECODE = 256 };

/* Is the instruction at a an i386 PIC function's first: a call of a pc
 * thunk (__x86.get_pc_thunk.REG: mov (%esp), REG; ret)? */
static bool calls_pc_thunk(const struct sw_walk *w, uint64_t a)
{
	uint8_t call[5], thunk[4];
	if (!sw_walk_read(w, a, call, sizeof call) || call[0] != 0xe8)
		return false;
	uint32_t rel = (uint32_t)call[1] | (uint32_t)call[2] << 8 | (uint32_t)call[3] << 16 |
	               (uint32_t)call[4] << 24;
	uint64_t target = (a + 5 + rel) & 0xffffffffu;
	return sw_walk_read(w, target, thunk, sizeof thunk) && thunk[0] == 0x8b &&
	       (thunk[1] & 0xc7) == 0x04 && thunk[2] == 0x24 && thunk[3] == 0xc3;
}

/* Does the code from a up to pc make a direct call followed, before pc,
 * by what opens a function? Such a call may not return (abort), and the
 * next function begin right after it: then a's function ended there (zoo
 * x86_64 195: f7's `push %rbp; mov %rsp,%rbp; call abort`, then f4's
 * `sub $8,%rsp`). */
static bool calls_before_an_opening(struct sw_code *c, uint64_t a, uint64_t pc, bool is64)
{
	uint64_t at = a, dest;
	struct insn in;
	uint8_t next[4];
	while (at < pc && next_insn(c, &at, is64, &in, &dest))
		if (in.call && at < pc && sw_walk_read(c->w, at, next, sizeof next) &&
		    opens_function(next, sizeof next, is64))
			return true;
	return false;
}

/* Does a candidate at code[off] (address a) begin pc's function, and
 * where: *start. */
static bool candidate_start(const struct sw_walk *w, struct sw_code *c, const uint8_t *code,
                            size_t off, size_t have, uint64_t a, uint64_t pc, bool is64,
                            uint64_t *start)
{
	size_t n = have - off < 4 ? have - off : 4;
	size_t k = off < 8 ? off : 8;
	/* After a tail jump (jmp rel32) only a function's own opening counts
	 * (zoo i386 4103 -Os static, stripped: f2's `push %ebp; push %edi`
	 * right after frame_dummy's `jmp register_tm_clones`). */
	bool tail_jump = k >= 5 && code[off - 5] == 0xe9 && opens_only_a_function(&code[off], n, is64);
	/* After a call, only entry code: a call that does not return may end
	 * a function, the next one right after it (zoo x86_64 6018 `nofp
	 * -O1`, stripped: f5 ends `call abort`, f4's `push %rbp; mov
	 * %rsp,%rbp` follows; with no start found, f4's record was refused,
	 * its saved rbp a number qsort kept there, and a scan skipped f3). */
	bool noreturn_call = k >= 5 && code[off - 5] == 0xe8 && opens_with_entry_code(&code[off], n, is64);
	if (!(opens_function(&code[off], n, is64) || (!is64 && calls_pc_thunk(w, a))) ||
	    !(ends_before_function(&code[off - k], k) || tail_jump || noreturn_call))
		return false;
	/* From a, every instruction up to pc, none of them ending the
	 * function before pc: pc is in a's function. Where a's function
	 * ends before pc (frame_dummy's `endbr64; jmp
	 * register_tm_clones`, then a leaf with no prologue: zoo x86_64
	 * 1041), pc's function begins right after that end, when its
	 * code runs on to pc making no call: a function without an
	 * opening instruction is a leaf (the psABIs align the stack
	 * for a call, which takes a push or a sub first); one that opens
	 * (zoo x86_64 1077, musl -Os: f6's `push %rbx` right after
	 * frame_dummy's jmp) may have called. A direct call
	 * on the way to pc that names an address between a and pc shows
	 * another function's entry there: a's function ended before it,
	 * its last instruction maybe a call that does not return (zoo
	 * x86_64 195, -O0 static musl: f6 ends `call f7`, f7 `call
	 * abort`, f4 follows, none with padding; f6's start was taken,
	 * and with it f7's record). */
	uint64_t at, next;
	bool called, enters;
	enum function_end e = decode_to_end(c, a, pc, is64, false, &at, &called, &enters);
	if (enters || (noreturn_call && !ends_before_function(&code[off - k], k) && !tail_jump &&
	               calls_before_an_opening(c, a, pc, is64)))
		return false;
	if (e == END_BEYOND && at == pc) {
		*start = a;
		return true;
	}
	uint8_t first[4];
	if (e == END_FOUND &&
	    decode_to_end(c, at, pc, is64, false, &next, &called, &enters) == END_BEYOND &&
	    next == pc && !enters &&
	    (!called || (sw_walk_read(w, at, first, sizeof first) &&
	                 opens_function(first, sizeof first, is64)))) {
		*start = at;
		return true;
	}
	return false;
}

/* Does the code from `from` up to `to` make a conditional jump to an
 * address in [to, pc]? */
static bool branches_into(struct sw_code *c, uint64_t from, uint64_t to, uint64_t pc, bool is64)
{
	uint64_t at = from, dest;
	struct insn in;
	while (at - from < to - from && next_insn(c, &at, is64, &in, &dest))
		if (in.branch && in.ev == EV_NONE && dest - to <= pc - to)
			return true;
	return false;
}

/* Does the code decoded from `from` step over `to`, an instruction of it
 * covering that address? Then `to` is no start: every function starts on
 * an instruction boundary of the code that runs through it. */
static bool steps_over(struct sw_code *c, uint64_t from, uint64_t to, bool is64)
{
	uint64_t at = from, dest;
	struct insn in;
	while (at - from < to - from)
		if (!next_insn(c, &at, is64, &in, &dest))
			return false;
	return at != to;
}

/* Is `start` a block of the function that begins at `earlier` (whose
 * code runs on to pc): does that code jump into it on a condition, or
 * step over it inside one of its instructions? */
static bool holds_start(struct sw_code *c, uint64_t earlier, uint64_t start, uint64_t pc,
                        bool is64)
{
	return branches_into(c, earlier, start, pc, is64) || steps_over(c, earlier, start, is64);
}

/* Does the code from a section's start run on to pc (no end, no entry
 * of another function named on the way)? The section's first function
 * begins there, whatever precedes it: zoo x86_64 5032 (`nofp -Os`,
 * stripped): main, first in .text, opens `push %rbx; sub $0xa0,%rsp`
 * right after the PLT's last `jmp`, which no start search takes for an
 * end before a lone push; a scan then took the sigaction handler's
 * address in main's frame (after a noreturn call) for a return. */
static bool section_runs_to(struct sw_code *c, uint64_t section, uint64_t pc, bool is64)
{
	uint64_t at;
	bool called, enters;
	return decode_to_end(c, section, pc, is64, false, &at, &called, &enters) == END_BEYOND &&
	       at == pc && !enters;
}

static bool start_without_symbols(const struct sw_walk *w, uint64_t pc, bool is64,
                                  uint64_t *start)
{
	uint8_t code[START_REACH + X86_MAX_INSN];
	uint64_t lo = sw_pro_search_floor(w, pc, START_REACH), section;
	bool in_section = sw_walk_code_section_start(w, pc, &section) && section >= lo;
	if (in_section)
		lo = section;
	/* The code before pc, as much of the reach as is captured. */
	while (pc - lo >= 16 && !sw_walk_read(w, lo, code, (size_t)(pc - lo)))
		lo = pc - (pc - lo) / 2;
	if (pc - lo < 16 || !sw_walk_read(w, lo, code, (size_t)(pc - lo)))
		return false;
	in_section = in_section && lo == section;
	size_t have = (size_t)(pc - lo);
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t a = pc - 1, s;
	for (; a > lo; a--)
		if (candidate_start(w, &c, code, (size_t)(a - lo), have, a, pc, is64, &s))
			break;
	if (a <= lo) {
		if (!in_section || !section_runs_to(&c, section, pc, is64))
			return false;
		*start = section;
		return true;
	}
	/* The nearest start, unless an earlier one's code runs on to pc
	 * and jumps into the nearer one's code on a condition: then the
	 * nearer is a block of the earlier function that a return and
	 * padding precede (zoo i386 210: f3 returns early, and its
	 * recursive call's block, aligned after the padding, begins with
	 * a sub from esp; taken for a start, it made f3 frameless, its
	 * record was not followed, and a scan took a stale return).
	 * Compilers make conditional jumps within a function. Nor when an
	 * earlier start's code runs on to pc through the nearer one, which
	 * lies inside one of its instructions: the nearer is bytes of an
	 * instruction that look like an opening after a ret (zoo i386 3536,
	 * stripped: `add $0xb8756,%ebx` is 81 c3 56 ...: a c3, then a push
	 * of esi; taken for f3's start, it made f3 frameless, and a scan
	 * took a stale return over f3's record). */
	*start = s;
	for (a--; a > lo; a--) {
		uint64_t earlier;
		if (candidate_start(w, &c, code, (size_t)(a - lo), have, a, pc, is64, &earlier) &&
		    earlier < *start && holds_start(&c, earlier, *start, pc, is64))
			*start = earlier;
	}
	if (in_section && section < *start && section_runs_to(&c, section, pc, is64) &&
	    holds_start(&c, section, *start, pc, is64))
		*start = section;
	return true;
}

bool sw_x86_start_without_symbols(const struct sw_walk *w, uint64_t pc, bool is64,
                                  uint64_t *start)
{
	struct sw_walk_memo *m = w->memo;
	uint64_t key = pc << 1 | (is64 ? 1 : 0);
	if (m && m->valid && m->key == key) {
		*start = m->value;
		return m->answer;
	}
	bool found = start_without_symbols(w, pc, is64, start);
	if (m)
		*m = (struct sw_walk_memo){ .valid = true, .answer = found, .key = key,
		                            .value = found ? *start : 0 };
	return found;
}

uint64_t sw_x86_opening_size(const struct sw_walk *w, uint64_t start, uint64_t pc, bool is64)
{
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t at = start, next, to, bytes = 0;
	/* The callee-saved registers (SysV psABIs): a push of one that the
	 * code has not written saves the caller's value. */
	uint32_t saved = 1u << RBX | 1u << RBP |
	                 (is64 ? 1u << R12 | 1u << R13 | 1u << R14 | 1u << R15 : 1u << RSI | 1u << RDI);
	bool allocated = false;
	struct insn in;
	while (at - start < pc - start && at - start < X86_PROLOGUE_DECODE) {
		next = at;
		if (!next_insn(&c, &next, is64, &in, &to))
			break;
		bool plain = (in.ev == EV_NONE || in.ev == EV_WRITE || in.ev == EV_FP_FROM_SP) &&
		             !in.branch && !in.call && !in.call_indirect && !in.indirect;
		if (in.ev == EV_PUSH && in.reg >= 0 && (saved & 1u << in.reg) && !allocated)
			bytes += is64 ? 8 : 4;
		else if (in.ev == EV_SP_ADD && in.imm < 0 && !allocated)
			bytes += (uint64_t)-in.imm, allocated = true;
		else if (!plain && !(!is64 && in.call && calls_pc_thunk(w, at)))
			break;
		if (in.ev == EV_WRITE && in.reg >= 0)
			saved &= ~(1u << in.reg);
		saved &= ~in.clobbers;
		at = next;
	}
	return bytes;
}

/* Where the ModRM byte of the instruction in b[0..n) is: past its prefixes
 * (segment, notrack 3e, operand size, REX) and its opcode byte. 0 when
 * there is none to read. *notrack: the jump is a switch's (CET). */
static size_t modrm_at(const uint8_t *b, size_t n, bool is64, uint8_t *rex, bool *notrack)
{
	size_t i = 0;
	*rex = 0;
	*notrack = false;
	while (i < n && (b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x66 || b[i] == 0x65 || b[i] == 0x64)) {
		*notrack |= b[i] == 0x3e;
		i++;
	}
	if (is64 && i < n && (b[i] & 0xf0) == 0x40)
		*rex = b[i++];
	return i + 1 < n ? i + 1 : 0;
}

/* Is the instruction in b[0..n) a load of register `reg` (hardware number,
 * REX included) from a slot a base register names, `mov disp(base), reg`
 * without an index (as a function pointer is fetched from a structure)? */
static bool loads_pointer_into(const uint8_t *b, size_t n, bool is64, unsigned reg)
{
	uint8_t rex;
	bool notrack;
	size_t m = modrm_at(b, n, is64, &rex, &notrack);
	if (!m || b[m - 1] != 0x8b || (is64 && !(rex & 8)))
		return false;
	uint8_t modrm = b[m], mod = modrm >> 6, rm = modrm & 7;
	unsigned r = (modrm >> 3 & 7) + (rex & 4 ? 8u : 0u);
	return mod != 3 && rm != 4 && !(mod == 0 && rm == 5) && r == reg;
}

enum { X86_TAIL_DECODE = 4096 };

bool sw_x86_tail_calls_through_pointer(const struct sw_walk *w, uint64_t fn, bool is64)
{
	struct sw_code c;
	sw_code_init(&c, w);
	uint64_t at = fn, reach = fn;
	uint8_t prev[X86_MAX_INSN];
	size_t prev_len = 0;
	enum event prev_ev = EV_NONE;
	int64_t prev_imm = 0;
	while (at - fn < X86_TAIL_DECODE) {
		uint8_t b[X86_MAX_INSN];
		size_t n = read_insn(&c, at, b);
		struct insn in;
		if (n == 0)
			return false;
		decode(b, n, is64, &in);
		if (in.ev == EV_STOP || in.len == 0)
			return false;
		if (in.indirect) {
			uint8_t rex;
			bool notrack;
			size_t m = modrm_at(b, in.len, is64, &rex, &notrack);
			uint8_t mod = m ? b[m] >> 6 : 0, rm = m ? b[m] & 7 : 4;
			bool pointer = m && !notrack && rm != 4;
			if (pointer && mod != 3 && !(mod == 0 && rm == 5))
				return true;
			if (pointer && mod == 3 &&
			    (prev_ev == EV_POP || prev_ev == EV_LEAVE || (prev_ev == EV_SP_ADD && prev_imm > 0) ||
			     loads_pointer_into(prev, prev_len, is64, rm + (rex & 1 ? 8u : 0u))))
				return true;
		}
		uint64_t next = at + in.len;
		if (in.branch && next + (uint64_t)in.rel > reach)
			reach = next + (uint64_t)in.rel;
		if (!is64)
			next &= 0xffffffffu;
		if (ends_path(&c, &in, next) && next > reach)
			return false;
		memcpy(prev, b, in.len);
		prev_len = in.len;
		prev_ev = in.ev;
		prev_imm = in.imm;
		at = next;
	}
	return false;
}

bool sw_x86_call_reaches(const struct sw_walk *w, uint64_t target, uint64_t pc, bool is64)
{
	struct sw_code c;
	sw_code_init(&c, w);
	return !closed_function_excludes(&c, target, pc, is64);
}

bool sw_amd64_call_reaches(const struct sw_walk *w, uint64_t target, uint64_t pc)
{
	return sw_x86_call_reaches(w, target, pc, true);
}

bool sw_amd64_slot_fits_call(const struct sw_walk *w, const struct sw_frame *callee,
                             uint64_t target, uint64_t slot)
{
	uint64_t pc = sw_frame_code_pc(callee);
	if (!sw_x86_call_reaches(w, target, pc, true))
		return false;
	if (target > pc || pc - target > DECODE_BYTES || !sw_reg_valid(&callee->regs, RSP))
		return true;
	struct sw_code c;
	sw_code_init(&c, w);
	struct sw_prologue p;
	sw_pro_init(&p, w->arch);
	p.ra = RIP;
	p.tracked |= 1u << RIP;
	/* The callee's own function known (its symbols), the decoding runs to
	 * pc as prologue analysis does; not known, a function that returns
	 * and ends before pc is not the callee's: a direct call to it did not
	 * lead there (tail calls aside, which a stripped module cannot show). */
	uint64_t own;
	bool known = sw_walk_function_start(w, pc, &own);
	enum decoded d = analyze(&c, &p, target, pc, !known);
	if (d == LEFT_FUNCTION)
		return false;
	if (d == UNREADABLE || p.failed)
		return true;
	/* sp = CFA + sp_off (fp likewise); the return address is at CFA - 8.
	 * From the register that defined the CFA last (after alloca, rbp). */
	const struct sw_pro_frame *f = &p.cur;
	bool by_fp = f->fp_known && sw_reg_valid(&callee->regs, RBP) && (f->cfa_from_fp || !f->sp_known);
	if (!by_fp && !f->sp_known)
		return true;
	uint64_t cfa = by_fp ? callee->regs.v[RBP] - (uint64_t)f->fp_off
	                     : callee->regs.v[RSP] - (uint64_t)f->sp_off;
	return cfa - 8 == slot;
}
