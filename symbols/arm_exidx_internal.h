/* The parts of the EHABI unwinder the tests look at: the index entries,
 * the instruction bytes an entry names, and those bytes decoded into a
 * list of operations (what `readelf -u` prints), so that the decoder can be
 * compared with binutils' over whole real tables. */
#ifndef SW_SYMBOLS_ARM_EXIDX_INTERNAL_H
#define SW_SYMBOLS_ARM_EXIDX_INTERNAL_H

#include "arm_exidx.h"

/* What the second word of an index entry says (EHABI §6). */
enum sw_exidx_entry_kind {
	SW_EXIDX_CANTUNWIND,  /* EXIDX_CANTUNWIND (1) */
	SW_EXIDX_INLINE,      /* bit 31 set: a compact model entry in the word */
	SW_EXIDX_EXTAB,       /* bit 31 clear: prel31 to the .ARM.extab entry */
};

struct sw_exidx_entry {
	uint32_t index;       /* its position in .ARM.exidx */
	uint32_t fn_start;    /* the function's ELF address (prel31 target) */
	uint64_t fn_end;      /* the next entry's start, text_end, or 2^32 */
	enum sw_exidx_entry_kind kind;
	uint32_t word;        /* the second word as stored */
	uint32_t extab_addr;  /* SW_EXIDX_EXTAB: the address it points to */
};

/* Number of entries in the index (exidx_size / 8). */
uint32_t sw_exidx_count(const struct sw_exidx_sections *s);

/* Entry i; false when i is out of range. */
bool sw_exidx_entry_at(const struct sw_exidx_sections *s, uint32_t i,
                       struct sw_exidx_entry *e);

/* The entry covering vaddr (binary search); false when none does. */
bool sw_exidx_find(const struct sw_exidx_sections *s, uint64_t vaddr,
                   struct sw_exidx_entry *e);

/* The most instruction bytes an entry can hold: 3 in the first word, then
 * up to 255 more words (Lu16/Lu32 and the generic model's count byte). */
enum { SW_EXIDX_MAX_BYTES = 3 + 255 * 4 };

/* An entry's unwind instructions, as the personality routine sees them. */
struct sw_exidx_program {
	/* 0 = Su16, 1 = Lu16, 2 = Lu32 (compact model, EHABI §6.3); -1 = a
	 * generic personality routine (§7.2) at personality_addr. */
	int personality;
	uint32_t personality_addr;
	uint8_t bytes[SW_EXIDX_MAX_BYTES];
	uint32_t nbytes;
};

/* Collects the instruction bytes of a non-CANTUNWIND entry: from the
 * inline word, or from .ARM.extab (compact model: bytes 2..3 of the first
 * word after the count, then the count's extra words; generic model: the
 * word after the personality routine's address, laid out as Lu16, as
 * libgcc's __gcc_personality_v0 / __gxx_personality_v0 read it).
 * SW_CFI_FAILED when the entry points outside .ARM.extab, its words are
 * truncated, or its personality index is not 0..2. */
enum sw_cfi_status sw_exidx_program_of(const struct sw_exidx_sections *s,
                                       const struct sw_exidx_entry *e,
                                       struct sw_exidx_program *p);

/* One decoded unwind instruction (EHABI §10.3). */
enum sw_exidx_op_kind {
	SW_EXIDX_OP_VSP_ADD,      /* vsp += arg (00xxxxxx, 10110010 uleb128) */
	SW_EXIDX_OP_VSP_SUB,      /* vsp -= arg (01xxxxxx) */
	SW_EXIDX_OP_REFUSE,       /* 10000000 00000000 */
	SW_EXIDX_OP_POP_CORE,     /* pop the core registers in mask arg (bit n = rn) */
	SW_EXIDX_OP_VSP_REG,      /* vsp = r[arg] (1001nnnn) */
	SW_EXIDX_OP_FINISH,       /* 10110000 */
	SW_EXIDX_OP_POP_VFP,      /* d[first]..d[first+count-1]; 8 bytes each,
	                             + 4 when saved by FSTMFDX (fstmx) */
	SW_EXIDX_OP_POP_WMMX,     /* wR[first]..wR[first+count-1], 8 bytes each */
	SW_EXIDX_OP_POP_WCGR,     /* wCGR registers in mask arg, 4 bytes each */
	SW_EXIDX_OP_POP_PAC,      /* 10110100: ra_auth_code (4 bytes, M-profile) */
	SW_EXIDX_OP_PAC_MODIFIER, /* 10110101: vsp as the PAC modifier (no effect) */
	SW_EXIDX_OP_RESERVED,     /* 10011101, 10011111 */
	SW_EXIDX_OP_SPARE,        /* every other encoding, incl. a bad mask */
	SW_EXIDX_OP_TRUNCATED,    /* an operand byte (or uleb128's end) missing */
};

struct sw_exidx_op {
	enum sw_exidx_op_kind kind;
	uint32_t offset;   /* where its encoding starts in the byte list */
	uint32_t length;   /* its encoding's length in bytes */
	uint32_t arg;      /* vsp delta, register mask or register number */
	uint32_t first, count;
	bool fstmfdx;
};

/* Decodes bytes[0..n) into ops (at most max_ops; every op consumes at
 * least one byte, so n ops always suffice). Does not stop at "finish":
 * readelf prints the padding finishes too. Returns the number of ops. */
size_t sw_exidx_decode(const uint8_t *bytes, size_t n, struct sw_exidx_op *ops,
                       size_t max_ops);

#endif
