/* DWARF call frame information: CIE and FDE parsing for .eh_frame and
 * .debug_frame, and finding the FDE of a pc through .eh_frame_hdr's
 * sorted table or, without a usable one, through a sorted index of every
 * FDE built once. The instructions are run in dwarf_cfi_program.c.
 *
 * Spec: DWARF 5 §6.4.1 (CIE and FDE layout), §7.2.2 (32/64-bit formats);
 * LSB 5.0 "Exception Frames" (.eh_frame: CIE id 0, relative CIE pointer,
 * augmentation "z" data, DW_EH_PE_* encodings) and ".eh_frame_hdr". */
#include <stdlib.h>
#include <string.h>

#include "dwarf_cfi_internal.h"
#include "lib/bsearch.h"
#include "lib/mapped_file.h"

/* ---- Encoded pointers. */

unsigned sw_pe_size(uint8_t enc, uint8_t address_size)
{
	switch (enc & 0x0f) {
	case SW_PE_ABSPTR:
	case SW_PE_SIGNED:
		return address_size;
	case SW_PE_UDATA2:
	case SW_PE_SDATA2:
		return 2;
	case SW_PE_UDATA4:
	case SW_PE_SDATA4:
		return 4;
	case SW_PE_UDATA8:
	case SW_PE_SDATA8:
		return 8;
	default:
		return 0;
	}
}

/* The value part of an encoding, before its application. */
static bool pe_value(struct sw_dcur *c, uint8_t enc, uint8_t address_size, uint64_t *out)
{
	switch (enc & 0x0f) {
	case SW_PE_ULEB128:
		*out = sw_dcur_uleb(c);
		break;
	case SW_PE_SLEB128:
		*out = (uint64_t)sw_dcur_sleb(c);
		break;
	case SW_PE_ABSPTR:
	case SW_PE_UDATA2:
	case SW_PE_UDATA4:
	case SW_PE_UDATA8:
		*out = sw_dcur_uint(c, sw_pe_size(enc, address_size));
		break;
	case SW_PE_SIGNED:
	case SW_PE_SDATA2:
	case SW_PE_SDATA4:
	case SW_PE_SDATA8: {
		unsigned n = sw_pe_size(enc, address_size);
		*out = (uint64_t)sw_sext(sw_dcur_uint(c, n), n);
		break;
	}
	default:
		return false;
	}
	return !c->bad;
}

/* DW_EH_PE_aligned: the value sits at the next multiple of the address
 * size (of the address, which is the section's vaddr + position). */
static bool pe_align(struct sw_dcur *c, uint64_t section_vaddr, uint8_t address_size)
{
	if (address_size == 0)
		return false;
	uint64_t addr = section_vaddr + c->pos;
	uint64_t pad = (address_size - addr % address_size) % address_size;
	return sw_dcur_skip(c, pad);
}

bool sw_pe_skip(struct sw_dcur *c, uint8_t enc, uint8_t address_size, uint64_t span_offset)
{
	if (enc == SW_PE_OMIT)
		return true;
	if ((enc & 0x70) == SW_PE_ALIGNED && !pe_align(c, span_offset, address_size))
		return false;
	uint64_t v;
	return pe_value(c, enc, address_size, &v);
}

bool sw_pe_read(struct sw_dcur *c, uint8_t enc, const struct sw_pe_bases *b, uint64_t *out)
{
	if (enc == SW_PE_OMIT || (enc & SW_PE_INDIRECT))
		return false;
	uint64_t at = b->section_vaddr + c->pos;
	if ((enc & 0x70) == SW_PE_ALIGNED) {
		if (!pe_align(c, b->section_vaddr, b->address_size))
			return false;
		enc = SW_PE_ABSPTR;
	}
	uint64_t v;
	if (!pe_value(c, enc, b->address_size, &v))
		return false;
	switch (enc & 0x70) {
	case 0:
		break;
	case SW_PE_PCREL:
		v += at;
		break;
	case SW_PE_DATAREL:
		if (!b->has_datarel)
			return false;
		v += b->datarel;
		break;
	case SW_PE_FUNCREL:
		if (!b->has_funcrel)
			return false;
		v += b->funcrel;
		break;
	default: /* textrel: nobody tells us where .text is */
		return false;
	}
	*out = v & sw_addr_mask(b->address_size);
	return true;
}

/* ---- Windows: where a parse reads the section's bytes. */

bool sw_cfi_window_cursor(const struct sw_cfi_window *w, uint64_t at, uint64_t end,
                          struct sw_dcur *d)
{
	struct sw_span s;
	if (at < w->base || end < at || !sw_span_sub(w->s, 0, end - w->base, &s))
		return false;
	*d = (struct sw_dcur){ s, at - w->base, false };
	return true;
}

/* The section offset a cursor over w has reached. */
static uint64_t window_pos(const struct sw_cfi_window *w, const struct sw_dcur *d)
{
	return w->base + d->pos;
}

/* The whole section in place: for the one pass of sw_cfi_create over
 * it (sequential, its pages given back after). */
static struct sw_cfi_window whole_section(const struct sw_cfi *c)
{
	return (struct sw_cfi_window){ c->frame, 0 };
}

/* ---- Entries. */

/* The header every entry starts with: its length (DWARF 5 §7.2.2: 0xffffffff
 * announces the 64-bit format) and its id / CIE pointer. */
struct entry_head {
	uint64_t end;       /* offset just past the entry */
	uint64_t id_pos;    /* offset of the id / CIE pointer field */
	uint64_t id;
	uint64_t body;      /* offset just past the id */
	bool is64;
	bool terminator;    /* a zero length */
};

/* The length is checked against the section, not the window: a lookup's
 * first copy of an entry may hold only its start. */
static bool read_entry_head(const struct sw_cfi *c, const struct sw_cfi_window *w, uint64_t off,
                            struct entry_head *h)
{
	struct sw_dcur d;
	if (!sw_cfi_window_cursor(w, off, w->base + w->s.size, &d))
		return false;
	uint64_t len = sw_dcur_uint(&d, 4);
	h->is64 = false;
	h->terminator = false;
	if (len == 0xffffffff) {
		len = sw_dcur_uint(&d, 8);
		h->is64 = true;
	} else if (len >= 0xfffffff0) {
		return false; /* reserved */
	}
	if (d.bad)
		return false;
	uint64_t pos = window_pos(w, &d);
	if (len == 0) {
		h->terminator = true;
		h->end = pos;
		return true;
	}
	if (!sw_span_has(c->frame, pos, len))
		return false;
	h->end = pos + len;
	h->id_pos = pos;
	h->id = sw_dcur_uint(&d, h->is64 ? 8 : 4);
	h->body = window_pos(w, &d);
	return !d.bad && h->body <= h->end;
}

static bool is_cie(const struct sw_cfi *c, const struct entry_head *h)
{
	if (c->is_eh)
		return h->id == 0;
	return h->is64 ? h->id == UINT64_MAX : h->id == 0xffffffff;
}

/* Where an FDE's CIE starts. */
static bool cie_offset(const struct sw_cfi *c, const struct entry_head *h, uint64_t *out)
{
	if (!c->is_eh) {
		*out = h->id;
		return true;
	}
	/* LSB: the CIE pointer is the distance back from this field. */
	if (h->id > h->id_pos)
		return false;
	*out = h->id_pos - h->id;
	return true;
}

/* ---- Copies: how lookups read entries. A lookup reads one FDE and its
 * CIE at a place nothing near was read before; through the mapping each
 * would map the kernel's fault-around window (64 KiB), and a few thousand
 * lookups keep the whole section resident. They are copied out of the
 * file instead (sw_mapped_peek; a plain copy for bytes in memory). */

/* Most FDEs are shorter (20 to 60 bytes for a compiled function): one
 * read of this much gets the whole entry. */
enum { ENTRY_FIRST_READ = 128 };
/* Longer entries are read in place: no compiler emits one, and a hostile
 * length must not make a lookup allocate a copy of the section. */
enum { ENTRY_COPY_MAX = 64 * 1024 };

struct sw_cfi_copy {
	bool valid;
	uint64_t base;              /* section offset of bytes[0] */
	uint64_t len;
	uint8_t *bytes;
	size_t cap;
};

/* FDEs point to very few CIEs: GCC and Clang emit one or two per object
 * file, and a linked .eh_frame keeps one of each distinct kind. */
enum { CIE_COPIES = 4 };

struct sw_cfi_copies {
	struct sw_cfi_copy fde;
	struct sw_cfi_copy cie[CIE_COPIES];
	unsigned next_cie;          /* the one replaced next */
};

static bool copy_reserve(struct sw_cfi_copy *k, uint64_t n)
{
	if (n <= k->cap)
		return true;
	size_t cap = k->cap ? k->cap : ENTRY_FIRST_READ;
	while (cap < n)
		cap *= 2;
	uint8_t *b = realloc(k->bytes, cap);
	if (!b)
		return false;
	k->bytes = b;
	k->cap = cap;
	return true;
}

/* Section bytes [from, to) into the copy. */
static void copy_in(const struct sw_cfi *c, struct sw_cfi_copy *k, uint64_t from, uint64_t to)
{
	sw_mapped_peek(c->p.file, c->frame.data + from, to - from, k->bytes + (from - k->base));
}

static struct sw_cfi_window copy_window(const struct sw_cfi *c, const struct sw_cfi_copy *k)
{
	return (struct sw_cfi_window){ { k->bytes, k->len, k->base, c->frame.big_endian }, k->base };
}

/* The entry at off in a window: the copy k already holds, else read into
 * k (its start, then the rest its length asks for). */
static bool copy_entry(const struct sw_cfi *c, struct sw_cfi_copy *k, uint64_t off,
                       struct sw_cfi_window *w, struct entry_head *h)
{
	if (k->valid && k->base == off) {
		*w = copy_window(c, k);
		return read_entry_head(c, w, off, h);
	}
	k->valid = false;
	if (off >= c->frame.size)
		return false;
	uint64_t first = c->frame.size - off;
	if (first > ENTRY_FIRST_READ)
		first = ENTRY_FIRST_READ;
	if (!copy_reserve(k, first))
		return false;
	k->base = off;
	k->len = first;
	copy_in(c, k, off, off + first);
	*w = copy_window(c, k);
	if (!read_entry_head(c, w, off, h))
		return false;
	uint64_t len = h->end - off;
	if (len > ENTRY_COPY_MAX) {
		*w = whole_section(c);
		return true;
	}
	if (len > first) {
		if (!copy_reserve(k, len))
			return false;
		copy_in(c, k, off + first, h->end);
		k->len = len;
		*w = copy_window(c, k);
	}
	k->valid = true;
	return true;
}

/* The copy that holds, or is to hold, the CIE at off. */
static struct sw_cfi_copy *cie_copy(const struct sw_cfi *c, uint64_t off)
{
	struct sw_cfi_copies *k = c->copies;
	for (unsigned i = 0; i < CIE_COPIES; i++)
		if (k->cie[i].valid && k->cie[i].base == off)
			return &k->cie[i];
	struct sw_cfi_copy *next = &k->cie[k->next_cie];
	k->next_cie = (k->next_cie + 1) % CIE_COPIES;
	return next;
}

bool sw_cfi_entry_window(const struct sw_cfi *c, uint64_t off, bool is_cie,
                         struct sw_cfi_window *out)
{
	struct entry_head h;
	return copy_entry(c, is_cie ? cie_copy(c, off) : &c->copies->fde, off, out, &h);
}

static void copies_free(struct sw_cfi_copies *k)
{
	if (!k)
		return;
	free(k->fde.bytes);
	for (unsigned i = 0; i < CIE_COPIES; i++)
		free(k->cie[i].bytes);
	free(k);
}

/* ---- Parsing, from a window. */

static bool parse_cie(const struct sw_cfi *c, const struct sw_cfi_window *w, uint64_t off,
                      struct sw_cfi_cie *cie)
{
	struct entry_head h;
	if (!read_entry_head(c, w, off, &h) || h.terminator || !is_cie(c, &h))
		return false;
	struct sw_dcur d;
	if (!sw_cfi_window_cursor(w, h.body, h.end, &d))
		return false;
	memset(cie, 0, sizeof *cie);
	cie->offset = off;
	cie->version = sw_dcur_u8(&d);
	if (c->is_eh ? (cie->version != 1 && cie->version != 3)
	             : (cie->version != 1 && cie->version != 3 && cie->version != 4))
		return false;
	const char *aug = (const char *)sw_span_ptr(d.s, d.pos);
	if (!aug)
		return false;
	size_t aug_len = strnlen(aug, d.s.size - d.pos);
	if (aug_len == d.s.size - d.pos)
		return false;
	d.pos += aug_len + 1;
	cie->address_size = c->p.address_size;
	cie->fde_enc = SW_PE_ABSPTR;
	cie->lsda_enc = SW_PE_OMIT;
	/* "eh" (GCC before 3.0): a pointer to exception data follows. */
	if (aug_len >= 2 && aug[0] == 'e' && aug[1] == 'h')
		sw_dcur_skip(&d, c->p.address_size);
	if (cie->version == 4) {
		cie->address_size = sw_dcur_u8(&d);
		cie->segment_size = sw_dcur_u8(&d);
		if (cie->address_size != 4 && cie->address_size != 8 && cie->address_size != 2)
			return false;
	}
	cie->code_align = sw_dcur_uleb(&d);
	cie->data_align = sw_dcur_sleb(&d);
	cie->ra_column = cie->version == 1 ? sw_dcur_u8(&d) : sw_dcur_uleb(&d);
	if (d.bad)
		return false;
	if (aug_len > 0 && aug[0] == 'z') {
		cie->has_z = true;
		uint64_t zlen = sw_dcur_uleb(&d);
		uint64_t zend = d.pos + zlen;
		if (d.bad || !sw_span_has(d.s, d.pos, zlen))
			return false;
		for (size_t i = 1; i < aug_len; i++) {
			switch (aug[i]) {
			case 'R':
				cie->fde_enc = sw_dcur_u8(&d);
				break;
			case 'L':
				cie->lsda_enc = sw_dcur_u8(&d);
				break;
			case 'P': {
				uint8_t penc = sw_dcur_u8(&d);
				/* The personality routine is not ours to call. */
				if (!sw_pe_skip(&d, penc, cie->address_size, w->base))
					return false;
				break;
			}
			case 'S':
				cie->signal_frame = true;
				break;
			case 'B':
				cie->b_key = true;
				break;
			case 'G':
				break;
			default:
				/* Unknown: the "z" length still tells where the
				 * instructions start; the ones we know came first. */
				i = aug_len;
				break;
			}
			if (d.bad || d.pos > zend)
				return false;
		}
		d.pos = zend;
	} else if (aug_len > 0 && !(aug[0] == 'e' && aug[1] == 'h')) {
		/* DWARF 5 §6.4.1: a consumer that does not know an augmentation
		 * cannot know where the initial instructions start, and only 'z'
		 * gives the length of the augmentation data. But the GNU letters
		 * 'S' (a signal frame: the caller is an interrupted context,
		 * its pc exact), 'B' and 'G' carry no data at all, and GNU as
		 * writes them into .debug_frame's CIEs without a 'z' (a CIE of
		 * .cfi_sections .debug_frame, -fno-asynchronous-unwind-tables:
		 * augmentation "S" for `.cfi_signal_frame`); GDB and libgcc read
		 * them so. Any other letter leaves the CIE unusable. */
		for (size_t i = 0; i < aug_len; i++) {
			if (aug[i] == 'S')
				cie->signal_frame = true;
			else if (aug[i] == 'B')
				cie->b_key = true;
			else if (aug[i] != 'G')
				return false; /* cannot know where the instructions start */
		}
	}
	if (cie->code_align == 0)
		cie->code_align = 1; /* a zero factor only makes every advance empty */
	cie->insns = window_pos(w, &d);
	cie->insns_end = h.end;
	return !d.bad && cie->insns <= h.end;
}

/* The bases of the pointers in .eh_frame: pcrel only (datarel there would
 * be the GOT, which no linker uses for FDEs). */
static struct sw_pe_bases frame_bases(const struct sw_cfi *c, const struct sw_cfi_window *w,
                                      uint8_t address_size)
{
	return (struct sw_pe_bases){ .section_vaddr = c->frame_vaddr + w->base,
	                             .address_size = address_size };
}

/* The FDE's fields past its header, read with its CIE's encodings. */
static bool fde_body(const struct sw_cfi *c, const struct sw_cfi_window *w, uint64_t off,
                     const struct entry_head *h, const struct sw_cfi_cie *cie,
                     struct sw_cfi_fde *fde)
{
	struct sw_dcur d;
	if (!sw_cfi_window_cursor(w, h->body, h->end, &d))
		return false;
	uint64_t begin, range;
	if (c->is_eh) {
		struct sw_pe_bases b = frame_bases(c, w, cie->address_size);
		if (!sw_pe_read(&d, cie->fde_enc, &b, &begin))
			return false;
		/* The range is a length: the format without the application. */
		if (!pe_value(&d, cie->fde_enc & 0x0f, cie->address_size, &range))
			return false;
	} else {
		sw_dcur_skip(&d, cie->segment_size);
		begin = sw_dcur_uint(&d, cie->address_size);
		range = sw_dcur_uint(&d, cie->address_size);
	}
	if (cie->has_z) {
		uint64_t zlen = sw_dcur_uleb(&d);
		sw_dcur_skip(&d, zlen);
	}
	if (d.bad)
		return false;
	uint64_t mask = sw_addr_mask(cie->address_size);
	fde->offset = off;
	fde->cie_offset = cie->offset;
	fde->pc_begin = begin & mask;
	fde->pc_end = fde->pc_begin + (range & mask);
	if (fde->pc_end < fde->pc_begin)
		fde->pc_end = UINT64_MAX; /* clipped, not wrapped */
	fde->insns = window_pos(w, &d);
	fde->insns_end = h->end;
	return true;
}

bool sw_cfi_parse_cie(const struct sw_cfi *c, uint64_t off, struct sw_cfi_cie *cie)
{
	struct sw_cfi_window w;
	struct entry_head h;
	return copy_entry(c, cie_copy(c, off), off, &w, &h) && parse_cie(c, &w, off, cie);
}

bool sw_cfi_parse_fde(const struct sw_cfi *c, uint64_t off, struct sw_cfi_fde *fde,
                      struct sw_cfi_cie *cie)
{
	struct sw_cfi_window w;
	struct entry_head h;
	uint64_t cie_off;
	if (!copy_entry(c, &c->copies->fde, off, &w, &h) || h.terminator || is_cie(c, &h) ||
	    !cie_offset(c, &h, &cie_off))
		return false;
	/* The CIE has its own copies: w stays valid. */
	if (cie_off == off || !sw_cfi_parse_cie(c, cie_off, cie))
		return false;
	return fde_body(c, &w, off, &h, cie, fde);
}

/* An FDE's range, read in place, with its CIE parsed only when it differs
 * from the previous FDE's (one CIE usually serves them all). */
static bool fde_range(const struct sw_cfi *c, uint64_t off, uint64_t *cached_cie,
                      struct sw_cfi_cie *cie, uint64_t *begin, uint64_t *end)
{
	struct sw_cfi_window w = whole_section(c);
	struct entry_head h;
	uint64_t cie_off;
	if (!read_entry_head(c, &w, off, &h) || h.terminator || is_cie(c, &h) ||
	    !cie_offset(c, &h, &cie_off))
		return false;
	if (cie_off != *cached_cie) {
		/* A failed parse leaves *cie half written: nothing cached. */
		*cached_cie = UINT64_MAX;
		if (cie_off == off || !parse_cie(c, &w, cie_off, cie))
			return false;
		*cached_cie = cie_off;
	}
	struct sw_cfi_fde fde;
	if (!fde_body(c, &w, off, &h, cie, &fde))
		return false;
	*begin = fde.pc_begin;
	*end = fde.pc_end;
	return true;
}

/* ---- .eh_frame_hdr (LSB: version, eh_frame_ptr_enc, fde_count_enc,
 * table_enc, eh_frame_ptr, fde_count, then fde_count pairs of
 * (initial location, FDE address), sorted by initial location). */

/* Lookups search a compact copy of the table, made by the pass that
 * checks it, rather than the table: read in place, each search would map
 * the fault-around window of the page it reads, and a walk's few thousand
 * lookups keep the whole table resident; read with pread, each would cost
 * a system call. Sorted starts differ by a function's size and FDE offsets
 * by about an FDE's: each entry is kept as its two differences from the
 * entry before (ULEB128, SLEB128; 2 to 3 bytes against the table's 8),
 * and the first of every HDR_BLOCK entries in full, so that a
 * lookup finds a block by bisection and decodes it. */
enum { HDR_BLOCK = 64 };

struct hdr_block {
	uint64_t start;             /* the first entry's initial location */
	uint64_t fde;               /* and its FDE's offset in the section */
	size_t deltas;              /* where the differences of the rest start */
};

struct sw_cfi_hdr_index {
	uint64_t count;
	struct hdr_block *blocks;
	size_t nblocks;
	uint8_t *deltas;
	size_t ndeltas, cap;
	uint64_t last_start, last_fde;  /* of the entry added last */
};

static void hdr_index_free(struct sw_cfi_hdr_index *x)
{
	if (!x)
		return;
	free(x->blocks);
	free(x->deltas);
	free(x);
}

static struct sw_cfi_hdr_index *hdr_index_new(uint64_t count)
{
	struct sw_cfi_hdr_index *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	x->count = count;
	x->nblocks = (size_t)((count + HDR_BLOCK - 1) / HDR_BLOCK);
	x->blocks = malloc(x->nblocks * sizeof *x->blocks);
	if (!x->blocks) {
		hdr_index_free(x);
		return NULL;
	}
	return x;
}

/* Room for two LEB128 values of 64 bits. */
enum { TWO_LEB_MAX = 20 };

static bool deltas_reserve(struct sw_cfi_hdr_index *x)
{
	if (x->cap - x->ndeltas >= TWO_LEB_MAX)
		return true;
	size_t cap = x->cap ? 2 * x->cap : 4 * HDR_BLOCK * TWO_LEB_MAX;
	uint8_t *d = realloc(x->deltas, cap);
	if (!d)
		return false;
	x->deltas = d;
	x->cap = cap;
	return true;
}

static void put_uleb(struct sw_cfi_hdr_index *x, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		x->deltas[x->ndeltas++] = byte | (v ? 0x80 : 0);
	} while (v);
}

static void put_sleb(struct sw_cfi_hdr_index *x, int64_t v)
{
	for (;;) {
		uint8_t byte = v & 0x7f;
		v >>= 7; /* arithmetic: GCC and Clang define it */
		bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
		x->deltas[x->ndeltas++] = byte | (done ? 0 : 0x80);
		if (done)
			return;
	}
}

/* Appends entry i; entries come in the table's order. */
static bool hdr_index_add(struct sw_cfi_hdr_index *x, uint64_t i, uint64_t start, uint64_t fde)
{
	if (i % HDR_BLOCK == 0) {
		x->blocks[i / HDR_BLOCK] = (struct hdr_block){ start, fde, x->ndeltas };
	} else {
		if (!deltas_reserve(x))
			return false;
		put_uleb(x, start - x->last_start);          /* sorted: not negative */
		put_sleb(x, (int64_t)(fde - x->last_fde));   /* offsets < 2^63 */
	}
	x->last_start = start;
	x->last_fde = fde;
	return true;
}

/* How many entries before the candidate a lookup also tries: FDEs may
 * nest or overlap (a cold part inside its parent's range); the nearest
 * start below vaddr need not be the one covering it. */
enum { OVERLAP_LOOKBACK = 4 };

/* The last OVERLAP_LOOKBACK FDE offsets a decoding passed. */
struct candidates {
	uint64_t fde[OVERLAP_LOOKBACK];
	size_t n;                   /* how many were passed in all */
};

/* Passes block b's entries that start at or below vaddr (a prefix: the
 * table is sorted) to r; returns how many. */
static size_t hdr_decode_block(const struct sw_cfi_hdr_index *x, size_t b, uint64_t vaddr,
                               struct candidates *r)
{
	const struct hdr_block *blk = &x->blocks[b];
	uint64_t first = (uint64_t)b * HDR_BLOCK;
	uint64_t n = x->count - first < HDR_BLOCK ? x->count - first : HDR_BLOCK;
	struct sw_dcur d = { { x->deltas, x->ndeltas, 0, false }, blk->deltas, false };
	uint64_t start = blk->start, fde = blk->fde;
	size_t passed = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (i > 0) {
			start += sw_dcur_uleb(&d);
			fde += (uint64_t)sw_dcur_sleb(&d);
		}
		if (start > vaddr)
			break;
		r->fde[r->n++ % OVERLAP_LOOKBACK] = fde;
		passed++;
	}
	return passed;
}

static uint64_t block_start_at(const void *set, size_t i)
{
	return ((const struct hdr_block *)set)[i].start;
}

/* The value at pos in the table: what sw_pe_read gives for the encodings
 * hdr_setup accepts (fixed size; absolute, datarel or pcrel), read
 * directly: sw_cfi_create reads every entry. UINT64_MAX when it does not
 * fit. */
static uint64_t hdr_value(const struct sw_cfi *c, uint64_t pos)
{
	unsigned n = c->hdr_entry_size;
	if (!sw_span_has(c->hdr, pos, n))
		return UINT64_MAX;
	uint64_t v = sw_uint(c->hdr, pos, n);
	if (c->hdr_enc & SW_PE_SIGNED)
		v = (uint64_t)sw_sext(v, n);
	if ((c->hdr_enc & 0x70) == SW_PE_DATAREL)
		v += c->hdr_vaddr;
	else if ((c->hdr_enc & 0x70) == SW_PE_PCREL)
		v += c->hdr_vaddr + pos;
	return v & sw_addr_mask(c->p.address_size);
}

static bool hdr_setup(struct sw_cfi *c, const struct sw_cfi_section *hdr)
{
	struct sw_span s = { hdr->data, hdr->size, 0, c->p.big_endian };
	struct sw_dcur d = { s, 0, false };
	struct sw_pe_bases b = { .section_vaddr = hdr->vaddr, .datarel = hdr->vaddr,
	                         .has_datarel = true, .address_size = c->p.address_size };
	uint8_t version = sw_dcur_u8(&d);
	uint8_t ptr_enc = sw_dcur_u8(&d);
	uint8_t count_enc = sw_dcur_u8(&d);
	uint8_t table_enc = sw_dcur_u8(&d);
	if (d.bad || version != 1 || count_enc == SW_PE_OMIT || table_enc == SW_PE_OMIT)
		return false;
	uint64_t ptr, count;
	if (ptr_enc != SW_PE_OMIT && !sw_pe_read(&d, ptr_enc, &b, &ptr))
		return false;
	if (!sw_pe_read(&d, count_enc, &b, &count))
		return false;
	/* Binary search needs entries of one size; the application must be
	 * one we can resolve for every entry. */
	unsigned size = sw_pe_size(table_enc, c->p.address_size);
	uint8_t app = table_enc & 0x70;
	if (size == 0 || (table_enc & SW_PE_INDIRECT) ||
	    (app != 0 && app != SW_PE_DATAREL && app != SW_PE_PCREL))
		return false;
	if (count == 0 || count > s.size / (2 * size) || !sw_span_has(s, d.pos, count * 2 * size))
		return false;
	c->hdr = s;
	c->hdr_vaddr = hdr->vaddr;
	c->hdr_table = d.pos;
	c->hdr_count = count;
	c->hdr_enc = table_enc;
	c->hdr_entry_size = size;
	c->hdr_index = hdr_index_new(count);
	if (!c->hdr_index)
		return false;
	/* One pass over the table: sorted, every FDE inside .eh_frame,
	 * starting where the table says and not empty. A table that breaks
	 * any of these is not used at all (a wrong answer from a binary
	 * search would be silent). lld keeps one entry per start address;
	 * when a discarded function left an empty FDE at the same address as
	 * a real one (seen in Android's libart and libc), the table may name
	 * the empty one and the real FDE is out of the binary search's reach:
	 * the index built from every FDE finds the real one. */
	uint64_t prev = 0;
	uint64_t cached_cie = UINT64_MAX;
	struct sw_cfi_cie cie;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t pos = d.pos + i * 2 * size;
		uint64_t loc = hdr_value(c, pos);
		uint64_t fde = hdr_value(c, pos + size);
		if (loc == UINT64_MAX || fde == UINT64_MAX || (i > 0 && loc < prev))
			return false;
		if (fde < c->frame_vaddr || fde - c->frame_vaddr >= c->frame.size)
			return false;
		uint64_t off = fde - c->frame_vaddr, begin, end;
		if (!fde_range(c, off, &cached_cie, &cie, &begin, &end) || begin != loc || end <= begin)
			return false;
		if (!hdr_index_add(c->hdr_index, i, loc, off))
			return false;
		prev = loc;
	}
	struct sw_cfi_hdr_index *x = c->hdr_index;
	uint8_t *fit = x->ndeltas ? realloc(x->deltas, x->ndeltas) : NULL;
	if (fit) {
		x->deltas = fit;
		x->cap = x->ndeltas;
	}
	return true;
}

/* The last entry starting at or below vaddr and the few before it (the
 * lookback), from the block the bisection finds, and the block before
 * when the lookback reaches into it. */
static bool hdr_find_fde(const struct sw_cfi *c, uint64_t vaddr, struct sw_cfi_fde *fde,
                         struct sw_cfi_cie *cie)
{
	const struct sw_cfi_hdr_index *x = c->hdr_index;
	size_t nb = sw_upper_bound(x->blocks, x->nblocks, block_start_at, vaddr);
	if (nb == 0)
		return false;
	struct candidates r = { .n = 0 };
	if (hdr_decode_block(x, nb - 1, vaddr, &r) < OVERLAP_LOOKBACK && nb > 1) {
		r.n = 0;
		hdr_decode_block(x, nb - 2, vaddr, &r);
		hdr_decode_block(x, nb - 1, vaddr, &r);
	}
	for (size_t k = 0; k < OVERLAP_LOOKBACK && k < r.n; k++) {
		uint64_t off = r.fde[(r.n - 1 - k) % OVERLAP_LOOKBACK];
		if (sw_cfi_parse_fde(c, off, fde, cie) && fde->pc_begin <= vaddr &&
		    vaddr < fde->pc_end)
			return true;
	}
	return false;
}

/* ---- The built index. */

static int range_cmp(const void *a, const void *b)
{
	const struct sw_cfi_range *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->fde != y->fde)
		return x->fde < y->fde ? -1 : 1;
	return 0;
}

static uint64_t range_key_at(const void *set, size_t i)
{
	return ((const struct sw_cfi_range *)set)[i].begin;
}

static bool build_index(struct sw_cfi *c)
{
	size_t cap = 0;
	uint64_t off = 0;
	uint64_t cached_cie = UINT64_MAX;
	struct sw_cfi_cie cie;
	struct sw_cfi_window w = whole_section(c);
	/* Each step moves past one whole entry (its length checked against
	 * the section), so the walk ends. */
	while (off < c->frame.size) {
		struct entry_head h;
		if (!read_entry_head(c, &w, off, &h))
			break;
		if (h.terminator) {
			if (c->is_eh)
				break;
			off = h.end;
			continue;
		}
		uint64_t begin, end;
		if (!is_cie(c, &h) && fde_range(c, off, &cached_cie, &cie, &begin, &end) &&
		    end > begin) {
			if (c->nranges == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct sw_cfi_range *n = realloc(c->ranges, ncap * sizeof *n);
				if (!n)
					return false;
				c->ranges = n;
				cap = ncap;
			}
			c->ranges[c->nranges++] = (struct sw_cfi_range){ begin, end, off };
		}
		off = h.end;
	}
	if (c->nranges > 1)
		qsort(c->ranges, c->nranges, sizeof *c->ranges, range_cmp);
	return true;
}

struct sw_cfi *sw_cfi_create(const struct sw_cfi_section *frame, bool is_eh_frame,
                             const struct sw_cfi_section *hdr,
                             const struct sw_cfi_params *p)
{
	if (!frame || !frame->data || frame->size == 0 || !p ||
	    (p->address_size != 4 && p->address_size != 8))
		return NULL;
	struct sw_cfi *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->copies = calloc(1, sizeof *c->copies);
	if (!c->copies) {
		free(c);
		return NULL;
	}
	c->frame = (struct sw_span){ frame->data, frame->size, 0, p->big_endian };
	c->frame_vaddr = frame->vaddr;
	c->is_eh = is_eh_frame;
	c->p = *p;
	if (is_eh_frame && hdr && hdr->data && hdr->size > 0)
		c->use_hdr = hdr_setup(c, hdr);
	if (!c->use_hdr) {
		hdr_index_free(c->hdr_index);
		c->hdr_index = NULL;
	}
	bool ok = c->use_hdr || build_index(c);
	/* Lookups copy what they read: the pages of the passes above are
	 * not needed again. */
	sw_mapped_release(p->file, frame->data, frame->size);
	if (hdr)
		sw_mapped_release(p->file, hdr->data, hdr->size);
	if (!ok) {
		sw_cfi_free(c);
		return NULL;
	}
	return c;
}

void sw_cfi_free(struct sw_cfi *c)
{
	if (!c)
		return;
	free(c->ranges);
	hdr_index_free(c->hdr_index);
	copies_free(c->copies);
	free(c);
}

bool sw_cfi_uses_hdr(const struct sw_cfi *c)
{
	return c && c->use_hdr;
}

bool sw_cfi_find_fde(const struct sw_cfi *c, uint64_t vaddr, struct sw_cfi_fde *fde,
                     struct sw_cfi_cie *cie)
{
	if (!c)
		return false;
	if (c->use_hdr)
		return hdr_find_fde(c, vaddr, fde, cie);
	size_t n = sw_upper_bound(c->ranges, c->nranges, range_key_at, vaddr);
	for (size_t k = 0; k < OVERLAP_LOOKBACK && n > k; k++) {
		const struct sw_cfi_range *r = &c->ranges[n - 1 - k];
		if (r->begin <= vaddr && vaddr < r->end)
			return sw_cfi_parse_fde(c, r->fde, fde, cie);
	}
	return false;
}

bool sw_cfi_covers(const struct sw_cfi *c, uint64_t vaddr)
{
	struct sw_cfi_fde fde;
	struct sw_cfi_cie cie;
	return sw_cfi_find_fde(c, vaddr, &fde, &cie);
}
