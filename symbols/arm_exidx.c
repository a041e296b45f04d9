/* ARM EHABI unwinding (Arm IHI 0038): find the .ARM.exidx entry of a pc,
 * collect its unwind instruction bytes (inline, or from .ARM.extab), and
 * run them on a virtual stack pointer over the snapshot's memory.
 *
 * Reads top-down: the index (prel31 words, binary search), the entry's
 * bytes (compact and generic models), the decoder (one switch over the
 * §10.3 encodings), then the interpreter that executes decoded ops. */
#include "arm_exidx_internal.h"

#include <string.h>

#include "lib/span.h"

/* DWARF register numbers of the core registers (AAPCS DWARF, §3.1). */
enum { ARM_SP = 13, ARM_LR = 14, ARM_PC = 15, ARM_NCORE = 16 };

enum { EXIDX_CANTUNWIND = 1 };

/* Unwind instructions executed per frame at most. Every op consumes at
 * least one byte, so SW_EXIDX_MAX_BYTES already bounds the loop; the
 * budget states it. */
enum { EXIDX_MAX_STEPS = SW_EXIDX_MAX_BYTES };

/* --- The index table (EHABI §6) ----------------------------------------- */

static struct sw_span exidx_span(const struct sw_exidx_sections *s)
{
	return (struct sw_span){ s->exidx, s->exidx ? s->exidx_size : 0, 0, s->big_endian };
}

/* A prel31 word (EHABI §4.4.2): bits 30..0 are a signed offset from the
 * word's own address; bit 31 belongs to the word's other use. Addresses
 * are 32-bit: the sum wraps. */
static uint32_t prel31_target(uint32_t word, uint64_t word_addr)
{
	uint32_t off = word & 0x7fffffffu;
	if (off & 0x40000000u)
		off |= 0x80000000u;
	return (uint32_t)word_addr + off;
}

uint32_t sw_exidx_count(const struct sw_exidx_sections *s)
{
	uint64_t n = exidx_span(s).size / 8;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static uint32_t entry_start(const struct sw_exidx_sections *s, uint32_t i)
{
	uint64_t off = (uint64_t)i * 8;
	return prel31_target(sw_u32(exidx_span(s), off), s->exidx_vaddr + off);
}

bool sw_exidx_entry_at(const struct sw_exidx_sections *s, uint32_t i,
                       struct sw_exidx_entry *e)
{
	uint32_t n = sw_exidx_count(s);
	if (i >= n)
		return false;
	uint64_t off = (uint64_t)i * 8;
	memset(e, 0, sizeof *e);
	e->index = i;
	e->fn_start = entry_start(s, i);
	if (i + 1 < n)
		e->fn_end = entry_start(s, i + 1);
	else
		e->fn_end = s->text_end ? s->text_end : (uint64_t)1 << 32;
	e->word = sw_u32(exidx_span(s), off + 4);
	if (e->word == EXIDX_CANTUNWIND) {
		e->kind = SW_EXIDX_CANTUNWIND;
	} else if (e->word & 0x80000000u) {
		e->kind = SW_EXIDX_INLINE;
	} else {
		e->kind = SW_EXIDX_EXTAB;
		e->extab_addr = prel31_target(e->word, s->exidx_vaddr + off + 4);
	}
	return true;
}

/* The entries are sorted by function start (the linker sorts them); the
 * covering one is the last whose start is <= vaddr, and it reaches to the
 * next one's start. */
bool sw_exidx_find(const struct sw_exidx_sections *s, uint64_t vaddr,
                   struct sw_exidx_entry *e)
{
	uint32_t n = sw_exidx_count(s);
	if (n == 0 || vaddr > UINT32_MAX)
		return false;
	uint32_t lo = 0, hi = n; /* answer in [lo, hi): first start > vaddr is hi */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (entry_start(s, mid) <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	if (!sw_exidx_entry_at(s, lo - 1, e))
		return false;
	/* An unsorted (damaged) table can put vaddr past the next start. */
	return vaddr >= e->fn_start && vaddr < e->fn_end;
}

bool sw_exidx_covers(const struct sw_exidx_sections *s, uint64_t vaddr)
{
	struct sw_exidx_entry e;
	return sw_exidx_find(s, vaddr, &e);
}

bool sw_exidx_entry_start(const struct sw_exidx_sections *s, uint64_t vaddr, uint64_t *start,
                          bool *cantunwind)
{
	struct sw_exidx_entry e;
	if (!sw_exidx_find(s, vaddr, &e))
		return false;
	*start = e.fn_start;
	*cantunwind = e.kind == SW_EXIDX_CANTUNWIND;
	return true;
}

/* --- An entry's instruction bytes (EHABI §6.3, §7.2, §9.2) -------------- */

/* Appends the bytes of a word from bit `from_byte` (3 = most significant)
 * down to the least significant one. */
static void put_word_bytes(struct sw_exidx_program *p, uint32_t w, int from_byte)
{
	for (int b = from_byte; b >= 0; b--)
		p->bytes[p->nbytes++] = (uint8_t)(w >> (8 * b));
}

enum sw_cfi_status sw_exidx_program_of(const struct sw_exidx_sections *s,
                                       const struct sw_exidx_entry *e,
                                       struct sw_exidx_program *p)
{
	memset(p, 0, offsetof(struct sw_exidx_program, bytes));
	p->nbytes = 0;
	if (e->kind == SW_EXIDX_CANTUNWIND)
		return SW_CFI_END;
	if (e->kind == SW_EXIDX_INLINE) {
		/* An inline entry is always Su16: three bytes, no room for the
		 * extra words of index 1 or 2. */
		if (((e->word >> 24) & 0x7f) != 0)
			return SW_CFI_FAILED;
		put_word_bytes(p, e->word, 2);
		return SW_CFI_OK;
	}
	struct sw_span extab = { s->extab, s->extab ? s->extab_size : 0, 0, s->big_endian };
	if (e->extab_addr < s->extab_vaddr)
		return SW_CFI_FAILED;
	uint64_t off = e->extab_addr - s->extab_vaddr;
	if (!sw_span_has(extab, off, 4))
		return SW_CFI_FAILED;
	uint32_t w = sw_u32(extab, off);
	uint32_t count;
	if (w & 0x80000000u) {
		/* Compact model: bits 27..24 name the ARM-defined personality
		 * routine (__aeabi_unwind_cpp_pr0..2); 3..15 are reserved. */
		p->personality = (int)((w >> 24) & 0x0f);
		if (p->personality == 0) {
			put_word_bytes(p, w, 2);
			return SW_CFI_OK;
		}
		if (p->personality > 2)
			return SW_CFI_FAILED;
		count = (w >> 16) & 0xff;
		put_word_bytes(p, w, 1);
	} else {
		/* Generic model: the word is a prel31 to the personality routine;
		 * libgcc's routines read ARM-defined instructions in the next
		 * word, in Lu16's layout (count in its top byte). */
		p->personality = -1;
		p->personality_addr = prel31_target(w, e->extab_addr);
		off += 4;
		if (!sw_span_has(extab, off, 4))
			return SW_CFI_FAILED;
		w = sw_u32(extab, off);
		count = w >> 24;
		put_word_bytes(p, w, 2);
	}
	if (!sw_span_has(extab, off + 4, (uint64_t)count * 4))
		return SW_CFI_FAILED;
	for (uint32_t i = 0; i < count; i++)
		put_word_bytes(p, sw_u32(extab, off + 4 + (uint64_t)i * 4), 3);
	return SW_CFI_OK;
}

/* --- The decoder (EHABI §10.3) ------------------------------------------ */

/* Decodes the op at bytes[at]; *op->length bytes long. */
static void decode_one(const uint8_t *bytes, size_t n, size_t at, struct sw_exidx_op *op)
{
	memset(op, 0, sizeof *op);
	op->offset = (uint32_t)at;
	op->length = 1;
	uint8_t b = bytes[at];
	bool has2 = at + 1 < n;
	uint8_t b2 = has2 ? bytes[at + 1] : 0;

	if ((b & 0xc0) == 0x00) {          /* 00xxxxxx: vsp += (x << 2) + 4 */
		op->kind = SW_EXIDX_OP_VSP_ADD;
		op->arg = ((uint32_t)(b & 0x3f) << 2) + 4;
	} else if ((b & 0xc0) == 0x40) {   /* 01xxxxxx: vsp -= (x << 2) + 4 */
		op->kind = SW_EXIDX_OP_VSP_SUB;
		op->arg = ((uint32_t)(b & 0x3f) << 2) + 4;
	} else if ((b & 0xf0) == 0x80) {   /* 1000iiii iiiiiiii */
		if (!has2) {
			op->kind = SW_EXIDX_OP_TRUNCATED;
			return;
		}
		op->length = 2;
		uint32_t mask = ((uint32_t)(b & 0x0f) << 8) | b2;
		if (mask == 0) {
			op->kind = SW_EXIDX_OP_REFUSE;
		} else {
			op->kind = SW_EXIDX_OP_POP_CORE;
			op->arg = mask << 4; /* bit 0 of the mask is r4 */
		}
	} else if ((b & 0xf0) == 0x90) {   /* 1001nnnn: vsp = r[nnnn] */
		if ((b & 0x0f) == 13 || (b & 0x0f) == 15) {
			op->kind = SW_EXIDX_OP_RESERVED;
		} else {
			op->kind = SW_EXIDX_OP_VSP_REG;
			op->arg = b & 0x0f;
		}
	} else if ((b & 0xf0) == 0xa0) {   /* 1010Lnnn: pop r4-r[4+nnn] (+ r14) */
		op->kind = SW_EXIDX_OP_POP_CORE;
		op->arg = ((1u << ((b & 7) + 1)) - 1) << 4;
		if (b & 0x08)
			op->arg |= 1u << ARM_LR;
	} else if (b == 0xb0) {
		op->kind = SW_EXIDX_OP_FINISH;
	} else if (b == 0xb1) {            /* 10110001 0000iiii: pop r0-r3 */
		if (!has2) {
			op->kind = SW_EXIDX_OP_TRUNCATED;
			return;
		}
		op->length = 2;
		if (b2 == 0 || (b2 & 0xf0) != 0) {
			op->kind = SW_EXIDX_OP_SPARE;
		} else {
			op->kind = SW_EXIDX_OP_POP_CORE;
			op->arg = b2;
		}
	} else if (b == 0xb2) {            /* vsp += 0x204 + (uleb128 << 2) */
		uint64_t v = 0;
		size_t i = at + 1;
		unsigned shift = 0;
		for (;;) {
			if (i >= n) {
				op->kind = SW_EXIDX_OP_TRUNCATED;
				op->length = (uint32_t)(i - at);
				return;
			}
			uint8_t c = bytes[i++];
			if (shift < 32)
				v |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
			if (!(c & 0x80))
				break;
		}
		op->kind = SW_EXIDX_OP_VSP_ADD;
		op->length = (uint32_t)(i - at);
		/* vsp is 32 bits: the delta wraps like the register would. */
		op->arg = (uint32_t)(0x204 + (v << 2));
	} else if (b == 0xb3 || b == 0xc8 || b == 0xc9) {
		/* 10110011 sssscccc: d[ssss]-d[ssss+cccc], FSTMFDX;
		 * 11001000: d[16+ssss]-..., 11001001: d[ssss]-..., FSTMFDD. */
		if (!has2) {
			op->kind = SW_EXIDX_OP_TRUNCATED;
			return;
		}
		op->length = 2;
		op->kind = SW_EXIDX_OP_POP_VFP;
		op->first = (b2 >> 4) + (b == 0xc8 ? 16 : 0);
		op->count = (b2 & 0x0f) + 1u;
		op->fstmfdx = b == 0xb3;
	} else if (b == 0xb4) {
		op->kind = SW_EXIDX_OP_POP_PAC;
	} else if (b == 0xb5) {
		op->kind = SW_EXIDX_OP_PAC_MODIFIER;
	} else if ((b & 0xf8) == 0xb8 || (b & 0xf8) == 0xd0) {
		/* 10111nnn: d8-d[8+nnn] FSTMFDX; 11010nnn: the same, FSTMFDD. */
		op->kind = SW_EXIDX_OP_POP_VFP;
		op->first = 8;
		op->count = (b & 7) + 1u;
		op->fstmfdx = (b & 0xf8) == 0xb8;
	} else if (b >= 0xc0 && b <= 0xc5) {   /* 11000nnn: wR10-wR[10+nnn] */
		op->kind = SW_EXIDX_OP_POP_WMMX;
		op->first = 10;
		op->count = (b & 7) + 1u;
	} else if (b == 0xc6) {                /* 11000110 sssscccc */
		if (!has2) {
			op->kind = SW_EXIDX_OP_TRUNCATED;
			return;
		}
		op->length = 2;
		op->kind = SW_EXIDX_OP_POP_WMMX;
		op->first = b2 >> 4;
		op->count = (b2 & 0x0f) + 1u;
	} else if (b == 0xc7) {                /* 11000111 0000iiii: wCGR */
		if (!has2) {
			op->kind = SW_EXIDX_OP_TRUNCATED;
			return;
		}
		op->length = 2;
		if (b2 == 0 || (b2 & 0xf0) != 0) {
			op->kind = SW_EXIDX_OP_SPARE;
		} else {
			op->kind = SW_EXIDX_OP_POP_WCGR;
			op->arg = b2;
		}
	} else {
		/* 10110101..10110111 (minus the PAC ops), 11001010-11001111,
		 * 11011xxx, 111xxxxx: spare. */
		op->kind = SW_EXIDX_OP_SPARE;
	}
}

size_t sw_exidx_decode(const uint8_t *bytes, size_t n, struct sw_exidx_op *ops,
                       size_t max_ops)
{
	size_t nops = 0;
	size_t at = 0;
	while (at < n && nops < max_ops) {
		decode_one(bytes, n, at, &ops[nops]);
		at += ops[nops].length;
		nops++;
	}
	return nops;
}

/* --- The interpreter (EHABI §9.3: the virtual register set) ------------- */

struct exidx_vm {
	const struct sw_unwind_io *io;
	uint32_t vsp;
	uint32_t r[ARM_NCORE];
	uint32_t popped;    /* registers the instructions recovered */
};

/* r[n]: recovered in this frame, else the callee's. */
static bool vm_reg(struct exidx_vm *vm, uint32_t n, uint32_t *v)
{
	if (vm->popped & (1u << n)) {
		*v = vm->r[n];
		return true;
	}
	uint64_t x;
	if (!vm->io->read_reg(vm->io->self, n, &x))
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool vm_read_word(struct exidx_vm *vm, uint32_t addr, uint32_t *v)
{
	uint8_t b[4];
	if (!vm->io->read_mem(vm->io->self, addr, b, sizeof b))
		return false;
	struct sw_span w = { b, sizeof b, 0, vm->io->big_endian };
	*v = sw_u32(w, 0);
	return true;
}

/* Runs one op. SW_CFI_OK to go on; SW_CFI_END at "refuse to unwind";
 * SW_CFI_FAILED on a reserved/spare/truncated op or unreadable memory. */
static enum sw_cfi_status vm_step(struct exidx_vm *vm, const struct sw_exidx_op *op)
{
	switch (op->kind) {
	case SW_EXIDX_OP_VSP_ADD:
		vm->vsp += op->arg;
		return SW_CFI_OK;
	case SW_EXIDX_OP_VSP_SUB:
		vm->vsp -= op->arg;
		return SW_CFI_OK;
	case SW_EXIDX_OP_REFUSE:
		return SW_CFI_END;
	case SW_EXIDX_OP_POP_CORE: {
		/* Lowest-numbered register at the lowest address (a POP/LDM);
		 * when sp is among them, vsp becomes the loaded value (§10.3,
		 * note on 1000iiii). */
		uint32_t mask = op->arg;
		for (uint32_t n = 0; n < ARM_NCORE; n++) {
			if (!(mask & (1u << n)))
				continue;
			if (!vm_read_word(vm, vm->vsp, &vm->r[n]))
				return SW_CFI_FAILED;
			vm->popped |= 1u << n;
			vm->vsp += 4;
		}
		if (mask & (1u << ARM_SP))
			vm->vsp = vm->r[ARM_SP];
		return SW_CFI_OK;
	}
	case SW_EXIDX_OP_VSP_REG:
		return vm_reg(vm, op->arg, &vm->vsp) ? SW_CFI_OK : SW_CFI_FAILED;
	case SW_EXIDX_OP_POP_VFP:
		/* FSTMFDX stores one extra pad word after the registers. */
		vm->vsp += 8 * op->count + (op->fstmfdx ? 4 : 0);
		return SW_CFI_OK;
	case SW_EXIDX_OP_POP_WMMX:
		vm->vsp += 8 * op->count;
		return SW_CFI_OK;
	case SW_EXIDX_OP_POP_WCGR:
		vm->vsp += 4 * (uint32_t)__builtin_popcount(op->arg);
		return SW_CFI_OK;
	case SW_EXIDX_OP_POP_PAC:
		vm->vsp += 4;
		return SW_CFI_OK;
	case SW_EXIDX_OP_PAC_MODIFIER:
		return SW_CFI_OK;
	case SW_EXIDX_OP_FINISH:
	case SW_EXIDX_OP_RESERVED:
	case SW_EXIDX_OP_SPARE:
	case SW_EXIDX_OP_TRUNCATED:
		break;
	}
	return SW_CFI_FAILED;
}

enum sw_cfi_status sw_exidx_unwind(const struct sw_exidx_sections *s, uint64_t vaddr,
                                   const struct sw_unwind_io *io,
                                   struct sw_unwind_result *out)
{
	struct sw_exidx_entry e;
	if (!sw_exidx_find(s, vaddr, &e))
		return SW_CFI_NO_RULE;
	struct sw_exidx_program prog;
	enum sw_cfi_status st = sw_exidx_program_of(s, &e, &prog);
	if (st != SW_CFI_OK)
		return st;

	struct exidx_vm vm = { .io = io };
	if (!vm_reg(&vm, ARM_SP, &vm.vsp))
		return SW_CFI_FAILED;
	size_t at = 0;
	unsigned steps = 0;
	/* Running out of bytes without "finish" finishes (§9.3). */
	while (at < prog.nbytes) {
		if (++steps > EXIDX_MAX_STEPS)
			return SW_CFI_FAILED;
		struct sw_exidx_op op;
		decode_one(prog.bytes, prog.nbytes, at, &op);
		at += op.length;
		if (op.kind == SW_EXIDX_OP_FINISH)
			break;
		st = vm_step(&vm, &op);
		if (st != SW_CFI_OK)
			return st;
	}

	/* The caller's pc: a popped pc (pop {..., pc}), else the return
	 * address in lr, recovered or still the callee's (a leaf). */
	uint32_t caller_pc;
	if (vm.popped & (1u << ARM_PC))
		caller_pc = vm.r[ARM_PC];
	else if (!vm_reg(&vm, ARM_LR, &caller_pc))
		return SW_CFI_FAILED;

	memset(out, 0, sizeof *out);
	for (uint32_t n = 0; n < ARM_NCORE; n++)
		if (vm.popped & (1u << n))
			sw_unwind_set(out, n, vm.r[n]);
	sw_unwind_set(out, ARM_SP, vm.vsp);
	sw_unwind_set(out, ARM_PC, caller_pc);
	out->cfa = vm.vsp;
	out->ra_column = ARM_PC;
	return SW_CFI_OK;
}
