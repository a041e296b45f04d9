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

bool sw_pe_skip(struct sw_dcur *c, uint8_t enc, uint8_t address_size)
{
	if (enc == SW_PE_OMIT)
		return true;
	if ((enc & 0x70) == SW_PE_ALIGNED && !pe_align(c, 0, address_size))
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

static bool read_entry_head(const struct sw_cfi *c, uint64_t off, struct entry_head *h)
{
	struct sw_dcur d = { c->frame, off, false };
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
	if (len == 0) {
		h->terminator = true;
		h->end = d.pos;
		return true;
	}
	if (!sw_span_has(c->frame, d.pos, len))
		return false;
	h->end = d.pos + len;
	h->id_pos = d.pos;
	h->id = sw_dcur_uint(&d, h->is64 ? 8 : 4);
	h->body = d.pos;
	return !d.bad && d.pos <= h->end;
}

static bool is_cie(const struct sw_cfi *c, const struct entry_head *h)
{
	if (c->is_eh)
		return h->id == 0;
	return h->is64 ? h->id == UINT64_MAX : h->id == 0xffffffff;
}

bool sw_cfi_parse_cie(const struct sw_cfi *c, uint64_t off, struct sw_cfi_cie *cie)
{
	struct entry_head h;
	if (!read_entry_head(c, off, &h) || h.terminator || !is_cie(c, &h))
		return false;
	struct sw_span body;
	if (!sw_span_sub(c->frame, 0, h.end, &body))
		return false;
	struct sw_dcur d = { body, h.body, false };
	memset(cie, 0, sizeof *cie);
	cie->offset = off;
	cie->version = sw_dcur_u8(&d);
	if (c->is_eh ? (cie->version != 1 && cie->version != 3)
	             : (cie->version != 1 && cie->version != 3 && cie->version != 4))
		return false;
	const char *aug = (const char *)sw_span_ptr(body, d.pos);
	if (!aug)
		return false;
	size_t aug_len = strnlen(aug, body.size - d.pos);
	if (aug_len == body.size - d.pos)
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
		if (d.bad || !sw_span_has(body, d.pos, zlen))
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
				if (!sw_pe_skip(&d, penc, cie->address_size))
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
		return false; /* cannot know where the instructions start */
	}
	if (cie->code_align == 0)
		cie->code_align = 1; /* a zero factor only makes every advance empty */
	cie->insns = d.pos;
	cie->insns_end = h.end;
	return !d.bad && d.pos <= h.end;
}

/* The bases of the pointers in .eh_frame: pcrel only (datarel there would
 * be the GOT, which no linker uses for FDEs). */
static struct sw_pe_bases frame_bases(const struct sw_cfi *c, uint8_t address_size)
{
	return (struct sw_pe_bases){ .section_vaddr = c->frame_vaddr,
	                             .address_size = address_size };
}

static bool fde_body(const struct sw_cfi *c, uint64_t off, const struct entry_head *hp,
                     const struct sw_cfi_cie *cie, struct sw_cfi_fde *fde);

bool sw_cfi_parse_fde(const struct sw_cfi *c, uint64_t off, struct sw_cfi_fde *fde,
                      struct sw_cfi_cie *cie)
{
	struct entry_head h;
	if (!read_entry_head(c, off, &h) || h.terminator || is_cie(c, &h))
		return false;
	uint64_t cie_off;
	if (c->is_eh) {
		/* LSB: the CIE pointer is the distance back from this field. */
		if (h.id > h.id_pos)
			return false;
		cie_off = h.id_pos - h.id;
	} else {
		cie_off = h.id;
	}
	if (cie_off == off || !sw_cfi_parse_cie(c, cie_off, cie))
		return false;
	return fde_body(c, off, &h, cie, fde);
}

/* The FDE's fields past its header, read with its CIE's encodings. */
static bool fde_body(const struct sw_cfi *c, uint64_t off, const struct entry_head *hp,
                     const struct sw_cfi_cie *cie, struct sw_cfi_fde *fde)
{
	struct entry_head h = *hp;
	uint64_t cie_off = cie->offset;
	struct sw_span body;
	if (!sw_span_sub(c->frame, 0, h.end, &body))
		return false;
	struct sw_dcur d = { body, h.body, false };
	uint64_t begin, range;
	if (c->is_eh) {
		struct sw_pe_bases b = frame_bases(c, cie->address_size);
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
	fde->cie_offset = cie_off;
	fde->pc_begin = begin & mask;
	fde->pc_end = fde->pc_begin + (range & mask);
	if (fde->pc_end < fde->pc_begin)
		fde->pc_end = UINT64_MAX; /* clipped, not wrapped */
	fde->insns = d.pos;
	fde->insns_end = h.end;
	return true;
}

/* An FDE's range, with its CIE parsed only when it differs from the
 * previous FDE's (one CIE usually serves them all). */
static bool fde_range(const struct sw_cfi *c, uint64_t off, uint64_t *cached_cie,
                      struct sw_cfi_cie *cie, uint64_t *begin, uint64_t *end)
{
	struct entry_head h;
	if (!read_entry_head(c, off, &h) || h.terminator || is_cie(c, &h))
		return false;
	uint64_t cie_off = c->is_eh ? h.id_pos - h.id : h.id;
	if (c->is_eh && h.id > h.id_pos)
		return false;
	if (cie_off != *cached_cie) {
		if (cie_off == off || !sw_cfi_parse_cie(c, cie_off, cie))
			return false;
		*cached_cie = cie_off;
	}
	struct sw_cfi_fde fde;
	if (!fde_body(c, off, &h, cie, &fde))
		return false;
	*begin = fde.pc_begin;
	*end = fde.pc_end;
	return true;
}

/* ---- .eh_frame_hdr (LSB: version, eh_frame_ptr_enc, fde_count_enc,
 * table_enc, eh_frame_ptr, fde_count, then fde_count pairs of
 * (initial location, FDE address), sorted by initial location). */

static uint64_t hdr_value(const struct sw_cfi *c, uint64_t pos)
{
	struct sw_dcur d = { c->hdr, pos, false };
	struct sw_pe_bases b = { .section_vaddr = c->hdr_vaddr, .datarel = c->hdr_vaddr,
	                         .has_datarel = true, .address_size = c->p.address_size };
	uint64_t v = 0;
	if (!sw_pe_read(&d, c->hdr_enc, &b, &v))
		return UINT64_MAX;
	return v;
}

static uint64_t hdr_key_at(const void *set, size_t i)
{
	const struct sw_cfi *c = set;
	return hdr_value(c, c->hdr_table + (uint64_t)i * 2 * c->hdr_entry_size);
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
	/* One pass over the table: sorted, and every FDE inside .eh_frame.
	 * A table that breaks either is not used at all (a wrong answer from
	 * a binary search would be silent). */
	uint64_t prev = 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t pos = d.pos + i * 2 * size;
		uint64_t loc = hdr_value(c, pos);
		uint64_t fde = hdr_value(c, pos + size);
		if (loc == UINT64_MAX || fde == UINT64_MAX || (i > 0 && loc < prev))
			return false;
		if (fde < c->frame_vaddr || fde - c->frame_vaddr >= c->frame.size)
			return false;
		prev = loc;
	}
	/* And every entry's FDE starts where the table says and is not
	 * empty. lld keeps one entry per start address; when a discarded
	 * function left an empty FDE at the same address as a real one (seen
	 * in Android's libart and libc), the table may name the empty one
	 * and the real FDE is out of the binary search's reach. Such a table
	 * is not used: the index built from every FDE finds the real one. */
	uint64_t cached_cie = UINT64_MAX;
	struct sw_cfi_cie cie;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t pos = d.pos + i * 2 * size;
		uint64_t loc = hdr_value(c, pos);
		uint64_t off = hdr_value(c, pos + size) - c->frame_vaddr;
		uint64_t begin, end;
		if (!fde_range(c, off, &cached_cie, &cie, &begin, &end) || begin != loc || end <= begin)
			return false;
	}
	return true;
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
	/* Each step moves past one whole entry (its length checked against
	 * the section), so the walk ends. */
	while (off < c->frame.size) {
		struct entry_head h;
		if (!read_entry_head(c, off, &h))
			break;
		if (h.terminator) {
			if (c->is_eh)
				break;
			off = h.end;
			continue;
		}
		struct sw_cfi_fde fde;
		struct sw_cfi_cie cie;
		if (!is_cie(c, &h) && sw_cfi_parse_fde(c, off, &fde, &cie) &&
		    fde.pc_end > fde.pc_begin) {
			if (c->nranges == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct sw_cfi_range *n = realloc(c->ranges, ncap * sizeof *n);
				if (!n)
					return false;
				c->ranges = n;
				cap = ncap;
			}
			c->ranges[c->nranges++] = (struct sw_cfi_range){ fde.pc_begin, fde.pc_end, off };
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
	c->frame = (struct sw_span){ frame->data, frame->size, 0, p->big_endian };
	c->frame_vaddr = frame->vaddr;
	c->is_eh = is_eh_frame;
	c->p = *p;
	if (is_eh_frame && hdr && hdr->data && hdr->size > 0)
		c->use_hdr = hdr_setup(c, hdr);
	if (!c->use_hdr && !build_index(c)) {
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
	free(c);
}

bool sw_cfi_uses_hdr(const struct sw_cfi *c)
{
	return c && c->use_hdr;
}

/* How many entries before the candidate a lookup also tries: FDEs may
 * nest or overlap (a cold part inside its parent's range); the nearest
 * start below vaddr need not be the one covering it. */
enum { OVERLAP_LOOKBACK = 4 };

bool sw_cfi_find_fde(const struct sw_cfi *c, uint64_t vaddr, struct sw_cfi_fde *fde,
                     struct sw_cfi_cie *cie)
{
	if (!c)
		return false;
	if (c->use_hdr) {
		size_t n = sw_upper_bound(c, (size_t)c->hdr_count, hdr_key_at, vaddr);
		for (size_t k = 0; k < OVERLAP_LOOKBACK && n > k; k++) {
			uint64_t pos = c->hdr_table + (uint64_t)(n - 1 - k) * 2 * c->hdr_entry_size;
			uint64_t addr = hdr_value(c, pos + c->hdr_entry_size);
			if (addr == UINT64_MAX || addr < c->frame_vaddr)
				continue;
			if (sw_cfi_parse_fde(c, addr - c->frame_vaddr, fde, cie) &&
			    fde->pc_begin <= vaddr && vaddr < fde->pc_end)
				return true;
		}
		return false;
	}
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
