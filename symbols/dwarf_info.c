/* Unit headers, abbreviation tables, DIEs and their attribute values,
 * range lists and address ranges tables (see dwarf_info.h). Every read is
 * bounds-checked through a cursor: a damaged unit stops where the damage
 * is, and nothing is allocated for a count before its bytes are known to
 * exist. */
#include "dwarf_info.h"

#include <stdlib.h>
#include <string.h>

#include "dwarf_consts.h"
#include "lib/mapped_file.h"

/* Abbreviation codes up to this get a direct index (GCC and clang number
 * them 1..n; a table is a few hundred at most). */
enum { MAX_INDEXED_CODE = 1 << 16 };
/* DW_FORM_indirect may name another indirect form: followed this often. */
enum { MAX_INDIRECT = 4 };
/* dw_die_peek's first read (most DIEs are a few dozen bytes), and its
 * last. */
enum { DIE_WINDOW = 256, MAX_DIE_WINDOW = 64 << 10 };
/* dw_section_string_dup's first read: most names are shorter. */
enum { STRING_CHUNK = 256 };

/* ---- unit headers (§7.5.1) ---------------------------------------------- */

uint64_t dw_initial_length(struct sw_dcur *c, uint8_t *offset_size)
{
	uint64_t len = sw_dcur_uint(c, 4);
	*offset_size = 4;
	if (len == 0xffffffff) {
		len = sw_dcur_uint(c, 8);
		*offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return 0;
	}
	return c->bad ? 0 : len;
}

bool dw_cu_read(const struct sw_dwarf_sections *s, uint64_t off, struct dw_cu *cu)
{
	struct sw_dcur c = { s->info, off, false };
	memset(cu, 0, sizeof *cu);
	cu->off = off;
	uint64_t len = dw_initial_length(&c, &cu->offset_size);
	if (len == 0 || !sw_span_has(s->info, c.pos, len))
		return false;
	cu->end = c.pos + len;
	cu->version = (uint16_t)sw_dcur_uint(&c, 2);
	if (cu->version < 2 || cu->version > 5)
		return false;
	cu->unit_type = SW_DW_UT_compile;
	if (cu->version >= 5) {
		cu->unit_type = sw_dcur_u8(&c);
		cu->addr_size = sw_dcur_u8(&c);
		cu->abbrev_off = sw_dcur_uint(&c, cu->offset_size);
		/* Type and skeleton units carry a signature/type offset more. */
		switch (cu->unit_type) {
		case SW_DW_UT_skeleton:
		case SW_DW_UT_split_compile:
			sw_dcur_skip(&c, 8);
			break;
		case SW_DW_UT_type:
		case SW_DW_UT_split_type:
			sw_dcur_skip(&c, 8 + cu->offset_size);
			break;
		default:
			break;
		}
	} else {
		cu->abbrev_off = sw_dcur_uint(&c, cu->offset_size);
		cu->addr_size = sw_dcur_u8(&c);
	}
	if (c.bad || c.pos > cu->end || cu->addr_size == 0 || cu->addr_size > 8)
		return false;
	cu->die_off = c.pos;
	cu->str_offsets_base = cu->offset_size == 8 ? 16 : 8;
	return true;
}

/* ---- abbreviation tables (§7.5.3) --------------------------------------- */

void dw_abbrevs_free(struct dw_abbrevs *ab)
{
	free(ab->decls);
	free(ab->specs);
	free(ab->by_code);
	memset(ab, 0, sizeof *ab);
}

bool dw_abbrevs_read(const struct sw_dwarf_sections *s, uint64_t off, struct dw_abbrevs *out)
{
	memset(out, 0, sizeof *out);
	/* Counted first (every declaration takes at least 3 bytes and every
	 * specification 2), so that the arrays are allocated once. */
	struct sw_dcur c = { s->abbrev, off, false };
	size_t ndecls = 0, nspecs = 0;
	uint64_t max_code = 0;
	for (;;) {
		uint64_t code = sw_dcur_uleb(&c);
		if (c.bad)
			return false;
		if (code == 0)
			break;
		max_code = code > max_code ? code : max_code;
		sw_dcur_uleb(&c); /* tag */
		sw_dcur_u8(&c);   /* children */
		for (;;) {
			uint64_t name = sw_dcur_uleb(&c), form = sw_dcur_uleb(&c);
			if (c.bad)
				return false;
			if (name == 0 && form == 0)
				break;
			if (form == SW_DW_FORM_implicit_const)
				sw_dcur_sleb(&c);
			nspecs++;
		}
		ndecls++;
	}
	out->decls = calloc(ndecls ? ndecls : 1, sizeof *out->decls);
	out->specs = calloc(nspecs ? nspecs : 1, sizeof *out->specs);
	if (max_code < MAX_INDEXED_CODE) {
		out->ncodes = (size_t)max_code + 1;
		out->by_code = calloc(out->ncodes, sizeof *out->by_code);
	}
	if (!out->decls || !out->specs || (max_code < MAX_INDEXED_CODE && !out->by_code)) {
		dw_abbrevs_free(out);
		return false;
	}
	c = (struct sw_dcur){ s->abbrev, off, false };
	for (size_t i = 0; i < ndecls; i++) {
		struct dw_abbrev *a = &out->decls[i];
		a->code = sw_dcur_uleb(&c);
		uint64_t tag = sw_dcur_uleb(&c);
		a->tag = tag <= UINT16_MAX ? (uint16_t)tag : 0xffff;
		a->children = sw_dcur_u8(&c) != 0;
		a->first = (uint32_t)out->nspecs;
		for (;;) {
			uint64_t name = sw_dcur_uleb(&c), form = sw_dcur_uleb(&c);
			if (name == 0 && form == 0)
				break;
			struct dw_attr_spec *sp = &out->specs[out->nspecs++];
			sp->name = name <= UINT16_MAX ? (uint16_t)name : 0xffff;
			sp->form = form <= UINT16_MAX ? (uint16_t)form : 0xffff;
			sp->implicit_const = form == SW_DW_FORM_implicit_const ? sw_dcur_sleb(&c) : 0;
		}
		a->count = (uint32_t)(out->nspecs - a->first);
		if (out->by_code && !out->by_code[a->code])
			out->by_code[a->code] = (uint32_t)(i + 1);
	}
	out->ndecls = ndecls;
	return true;
}

static const struct dw_abbrev *abbrev_of(const struct dw_abbrevs *ab, uint64_t code)
{
	if (ab->by_code)
		return code < ab->ncodes && ab->by_code[code] ? &ab->decls[ab->by_code[code] - 1]
		                                              : NULL;
	for (size_t i = 0; i < ab->ndecls; i++)
		if (ab->decls[i].code == code)
			return &ab->decls[i];
	return NULL;
}

/* ---- attribute values (§7.5.5) ------------------------------------------ */

const char *dw_section_string(struct sw_span sec, uint64_t off)
{
	if (off >= sec.size)
		return NULL;
	const char *p = (const char *)sec.data + off;
	return memchr(p, '\0', (size_t)(sec.size - off)) ? p : NULL;
}

const char *dw_inline_string(struct sw_dcur *c)
{
	const char *p = dw_section_string(c->s, c->pos);
	if (!p) {
		c->bad = true;
		return NULL;
	}
	c->pos += strlen(p) + 1;
	return p;
}

/* A string reference (see struct dw_die): the section in the top two
 * bits, the offset in the rest. */
enum { REF_INFO = 1, REF_STR = 2, REF_LINE_STR = 3 };
static uint64_t string_ref(unsigned sec, uint64_t off)
{
	return off >> 62 ? 0 : (uint64_t)sec << 62 | off;
}

char *dw_section_string_dup(struct sw_span sec, const struct sw_mapped_file *m, uint64_t off)
{
	if (off >= sec.size)
		return NULL;
	const char *p = (const char *)sec.data + off;
	size_t max = (size_t)(sec.size - off);
	/* Most names fit in one read; a longer one is measured first. */
	char chunk[STRING_CHUNK];
	size_t n = max < sizeof chunk ? max : sizeof chunk;
	sw_mapped_peek(m, p, n, chunk);
	const char *nul = memchr(chunk, '\0', n);
	size_t len = nul ? (size_t)(nul - chunk) : sw_mapped_strnlen(m, p, max);
	if (len == 0 || len == max)
		return NULL; /* empty, or no NUL before the section's end */
	char *out = malloc(len + 1);
	if (!out)
		return NULL;
	if (nul)
		memcpy(out, chunk, len);
	else
		sw_mapped_peek(m, p, len, out);
	out[len] = '\0';
	return out;
}

char *dw_string_dup(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                    uint64_t ref)
{
	uint64_t off = ref & (((uint64_t)1 << 62) - 1);
	switch (ref >> 62) {
	case REF_INFO:
		return dw_section_string_dup(s->info, m, off);
	case REF_STR:
		return dw_section_string_dup(s->str, m, off);
	case REF_LINE_STR:
		return dw_section_string_dup(s->line_str, m, off);
	default:
		return NULL;
	}
}

/* The n-byte integer at `at` of sec (the caller checked it is there),
 * read from the file when m is given (see dw_die_peek). */
static uint64_t section_uint(const struct sw_mapped_file *m, struct sw_span sec, uint64_t at,
                             unsigned n)
{
	uint8_t b[8];
	sw_mapped_peek(m, sec.data + at, n, b);
	return sw_uint((struct sw_span){ b, n, 0, sec.big_endian }, 0, n);
}

/* §7.26: entry idx of the unit's .debug_str_offsets contribution. */
static uint64_t indexed_string(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                               const struct dw_cu *cu, uint64_t idx)
{
	if (idx > (UINT64_MAX - cu->str_offsets_base) / cu->offset_size)
		return 0;
	uint64_t at = cu->str_offsets_base + idx * cu->offset_size;
	if (!sw_span_has(s->str_offsets, at, cu->offset_size))
		return 0;
	return string_ref(REF_STR, section_uint(m, s->str_offsets, at, cu->offset_size));
}

/* §7.27: entry idx of the unit's .debug_addr contribution. */
static bool indexed_address(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                            const struct dw_cu *cu, uint64_t idx, uint64_t *out)
{
	if (idx > (UINT64_MAX - cu->addr_base) / cu->addr_size)
		return false;
	uint64_t at = cu->addr_base + idx * cu->addr_size;
	if (!sw_span_has(s->addr, at, cu->addr_size))
		return false;
	*out = section_uint(m, s->addr, at, cu->addr_size);
	return true;
}

/* A value read by form: an integer (constants, references, offsets,
 * indexes, addresses), a string, or neither (blocks, expressions). */
enum value_kind { V_NONE, V_UINT, V_STRING, V_UNIT_REF, V_ADDR, V_ADDRX, V_STRX };
struct value {
	enum value_kind kind;
	uint64_t u;                  /* V_STRING: a string reference */
};

/* Reads (or skips) one value of `form` at c, whose bytes are those of
 * .debug_info from offset `base` on. False when the form is unknown or
 * its bytes are not there: the rest of the unit cannot be parsed. */
static bool read_value(const struct dw_cu *cu, struct sw_dcur *c, uint64_t base, uint16_t form,
                       int64_t implicit_const, struct value *v)
{
	v->kind = V_UINT;
	for (int hops = 0;; hops++) {
		switch (form) {
		case SW_DW_FORM_addr:
			v->kind = V_ADDR;
			v->u = sw_dcur_uint(c, cu->addr_size);
			break;
		case SW_DW_FORM_addrx:
		case SW_DW_FORM_GNU_addr_index:
			v->kind = V_ADDRX;
			v->u = sw_dcur_uleb(c);
			break;
		case SW_DW_FORM_addrx1:
		case SW_DW_FORM_addrx2:
		case SW_DW_FORM_addrx3:
		case SW_DW_FORM_addrx4:
			v->kind = V_ADDRX;
			v->u = sw_dcur_uint(c, (unsigned)(form - SW_DW_FORM_addrx1 + 1));
			break;
		case SW_DW_FORM_data1:
		case SW_DW_FORM_ref1:
		case SW_DW_FORM_flag:
			v->u = sw_dcur_u8(c);
			break;
		case SW_DW_FORM_data2:
		case SW_DW_FORM_ref2:
			v->u = sw_dcur_uint(c, 2);
			break;
		case SW_DW_FORM_data4:
		case SW_DW_FORM_ref4:
		case SW_DW_FORM_ref_sup4:
			v->u = sw_dcur_uint(c, 4);
			break;
		case SW_DW_FORM_data8:
		case SW_DW_FORM_ref8:
		case SW_DW_FORM_ref_sig8:
		case SW_DW_FORM_ref_sup8:
			v->u = sw_dcur_uint(c, 8);
			break;
		case SW_DW_FORM_data16:
			v->kind = V_NONE;
			sw_dcur_skip(c, 16);
			break;
		case SW_DW_FORM_sdata:
			v->u = (uint64_t)sw_dcur_sleb(c);
			break;
		case SW_DW_FORM_udata:
		case SW_DW_FORM_ref_udata:
		case SW_DW_FORM_loclistx:
		case SW_DW_FORM_rnglistx:
			v->u = sw_dcur_uleb(c);
			break;
		case SW_DW_FORM_implicit_const:
			v->u = (uint64_t)implicit_const;
			break;
		case SW_DW_FORM_flag_present:
			v->u = 1;
			break;
		case SW_DW_FORM_ref_addr:
			/* DWARF 2 wrote it address-sized (§7.5.4 of DWARF 3). */
			v->u = sw_dcur_uint(c, cu->version <= 2 ? cu->addr_size : cu->offset_size);
			break;
		case SW_DW_FORM_sec_offset:
		case SW_DW_FORM_GNU_ref_alt:
		case SW_DW_FORM_strp_sup:
		case SW_DW_FORM_GNU_strp_alt:
			v->u = sw_dcur_uint(c, cu->offset_size);
			break;
		case SW_DW_FORM_strp:
			v->kind = V_STRING;
			v->u = string_ref(REF_STR, sw_dcur_uint(c, cu->offset_size));
			break;
		case SW_DW_FORM_line_strp:
			v->kind = V_STRING;
			v->u = string_ref(REF_LINE_STR, sw_dcur_uint(c, cu->offset_size));
			break;
		case SW_DW_FORM_string: {
			v->kind = V_STRING;
			uint64_t at = c->pos;
			const char *p = dw_inline_string(c);
			v->u = p && *p ? string_ref(REF_INFO, base + at) : 0;
			break;
		}
		case SW_DW_FORM_strx:
		case SW_DW_FORM_GNU_str_index:
			v->kind = V_STRX;
			v->u = sw_dcur_uleb(c);
			break;
		case SW_DW_FORM_strx1:
		case SW_DW_FORM_strx2:
		case SW_DW_FORM_strx3:
		case SW_DW_FORM_strx4:
			v->kind = V_STRX;
			v->u = sw_dcur_uint(c, (unsigned)(form - SW_DW_FORM_strx1 + 1));
			break;
		case SW_DW_FORM_block1:
			v->kind = V_NONE;
			sw_dcur_skip(c, sw_dcur_u8(c));
			break;
		case SW_DW_FORM_block2:
			v->kind = V_NONE;
			sw_dcur_skip(c, sw_dcur_uint(c, 2));
			break;
		case SW_DW_FORM_block4:
			v->kind = V_NONE;
			sw_dcur_skip(c, sw_dcur_uint(c, 4));
			break;
		case SW_DW_FORM_block:
		case SW_DW_FORM_exprloc:
			v->kind = V_NONE;
			sw_dcur_skip(c, sw_dcur_uleb(c));
			break;
		case SW_DW_FORM_indirect: {
			uint64_t f = sw_dcur_uleb(c);
			if (c->bad || hops >= MAX_INDIRECT || f > UINT16_MAX)
				return false;
			form = (uint16_t)f;
			continue;
		}
		default:
			return false;
		}
		if (form == SW_DW_FORM_ref1 || form == SW_DW_FORM_ref2 || form == SW_DW_FORM_ref4 ||
		    form == SW_DW_FORM_ref8 || form == SW_DW_FORM_ref_udata)
			v->kind = V_UNIT_REF;
		/* Supplementary-file references point into another file. */
		if (form == SW_DW_FORM_ref_sup4 || form == SW_DW_FORM_ref_sup8 ||
		    form == SW_DW_FORM_GNU_ref_alt || form == SW_DW_FORM_ref_sig8)
			v->kind = V_NONE;
		return !c->bad;
	}
}

static bool is_constant_form(uint16_t form)
{
	switch (form) {
	case SW_DW_FORM_data1:
	case SW_DW_FORM_data2:
	case SW_DW_FORM_data4:
	case SW_DW_FORM_data8:
	case SW_DW_FORM_sdata:
	case SW_DW_FORM_udata:
	case SW_DW_FORM_implicit_const:
		return true;
	default:
		return false;
	}
}

/* A reference as a global .debug_info offset (0: none or elsewhere). */
static uint64_t ref_value(const struct dw_cu *cu, uint16_t form, const struct value *v)
{
	if (v->kind == V_UNIT_REF)
		return v->u < cu->end - cu->off ? cu->off + v->u : 0;
	if (form == SW_DW_FORM_ref_addr)
		return v->u;
	return 0;
}

/* The values a DIE's attributes had, resolved once the unit's bases are
 * known (a unit DIE may give DW_AT_addr_base after DW_AT_low_pc). */
struct pending {
	struct value low, high, name, linkage, comp_dir;
	uint16_t high_form;
};

static uint64_t resolve_string(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                               const struct dw_cu *cu, const struct value *v)
{
	if (v->kind == V_STRING)
		return v->u;
	if (v->kind == V_STRX)
		return indexed_string(s, m, cu, v->u);
	return 0;
}

static bool resolve_address(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                            const struct dw_cu *cu, const struct value *v, uint64_t *out)
{
	if (v->kind == V_ADDR) {
		*out = v->u;
		return true;
	}
	if (v->kind == V_ADDRX)
		return indexed_address(s, m, cu, v->u, out);
	return false;
}

/* Reads the DIE at c, whose bytes are those of .debug_info from offset
 * `base` on (the section itself, or a copy of a part of it); indexed
 * strings and addresses are read from the file when m is given. False
 * when damaged, or (c->bad) when its bytes run past c's end. */
static bool read_die(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                     struct dw_cu *cu, const struct dw_abbrevs *ab, struct sw_dcur *c,
                     uint64_t base, struct dw_die *die)
{
	memset(die, 0, sizeof *die);
	die->off = base + c->pos;
	uint64_t code = sw_dcur_uleb(c);
	if (c->bad)
		return false;
	die->next = base + c->pos;
	if (code == 0)
		return true;
	const struct dw_abbrev *a = abbrev_of(ab, code);
	if (!a)
		return false;
	die->tag = a->tag;
	die->children = a->children;
	struct pending p = {0};
	bool unit_die = a->tag == SW_DW_TAG_compile_unit || a->tag == SW_DW_TAG_partial_unit ||
	                a->tag == SW_DW_TAG_skeleton_unit || a->tag == SW_DW_TAG_type_unit;
	for (uint32_t i = 0; i < a->count; i++) {
		const struct dw_attr_spec *sp = &ab->specs[a->first + i];
		struct value v;
		if (!read_value(cu, c, base, sp->form, sp->implicit_const, &v))
			return false;
		switch (sp->name) {
		case SW_DW_AT_low_pc:
			p.low = v;
			break;
		case SW_DW_AT_high_pc:
			p.high = v;
			p.high_form = sp->form;
			break;
		case SW_DW_AT_ranges:
			die->has |= DW_HAS_RANGES;
			die->ranges = v.u;
			die->ranges_form = sp->form;
			break;
		case SW_DW_AT_name:
			p.name = v;
			break;
		case SW_DW_AT_linkage_name:
		case SW_DW_AT_MIPS_linkage_name:
			p.linkage = v;
			break;
		case SW_DW_AT_comp_dir:
			p.comp_dir = v;
			break;
		case SW_DW_AT_specification:
			die->spec = ref_value(cu, sp->form, &v);
			break;
		case SW_DW_AT_abstract_origin:
			die->origin = ref_value(cu, sp->form, &v);
			break;
		case SW_DW_AT_sibling:
			die->sibling = ref_value(cu, sp->form, &v);
			break;
		case SW_DW_AT_call_file:
			if (v.kind == V_UINT) {
				die->has |= DW_HAS_CALL_FILE;
				die->call_file = v.u;
			}
			break;
		case SW_DW_AT_call_line:
			if (v.kind == V_UINT) {
				die->has |= DW_HAS_CALL_LINE;
				die->call_line = v.u;
			}
			break;
		case SW_DW_AT_declaration:
			if (v.u)
				die->has |= DW_HAS_DECLARATION;
			break;
		case SW_DW_AT_stmt_list:
			if (v.kind == V_UINT) {
				die->has |= DW_HAS_STMT_LIST;
				die->stmt_list = v.u;
			}
			break;
		case SW_DW_AT_str_offsets_base:
			if (unit_die && v.kind == V_UINT)
				cu->str_offsets_base = v.u;
			break;
		case SW_DW_AT_addr_base:
		case SW_DW_AT_GNU_addr_base:
			if (unit_die && v.kind == V_UINT)
				cu->addr_base = v.u;
			break;
		case SW_DW_AT_rnglists_base:
		case SW_DW_AT_GNU_ranges_base:
			if (unit_die && v.kind == V_UINT)
				cu->rnglists_base = v.u;
			break;
		default:
			break;
		}
	}
	die->next = base + c->pos;
	if (resolve_address(s, m, cu, &p.low, &die->low_pc))
		die->has |= DW_HAS_LOW_PC;
	if (p.high.kind != V_NONE && p.high_form) {
		/* DWARF 4 §2.17.2: a constant high pc is the length. */
		if (is_constant_form(p.high_form)) {
			if (die->has & DW_HAS_LOW_PC) {
				die->high_pc = die->low_pc + p.high.u;
				die->has |= DW_HAS_HIGH_PC;
			}
		} else if (resolve_address(s, m, cu, &p.high, &die->high_pc)) {
			die->has |= DW_HAS_HIGH_PC;
		}
	}
	die->name = resolve_string(s, m, cu, &p.name);
	die->linkage = resolve_string(s, m, cu, &p.linkage);
	die->comp_dir = resolve_string(s, m, cu, &p.comp_dir);
	if (unit_die && (die->has & DW_HAS_LOW_PC))
		cu->base = die->low_pc;
	return true;
}

bool dw_die_read(const struct sw_dwarf_sections *s, struct dw_cu *cu, const struct dw_abbrevs *ab,
                 uint64_t off, struct dw_die *die)
{
	struct sw_dcur c = { sw_span_clip(s->info, 0, cu->end), off, false };
	return read_die(s, NULL, cu, ab, &c, 0, die);
}

bool dw_die_peek(const struct sw_dwarf_sections *s, const struct sw_mapped_file *m,
                 struct dw_cu *cu, const struct dw_abbrevs *ab, uint64_t off, struct dw_die *die)
{
	uint64_t end = cu->end < s->info.size ? cu->end : s->info.size;
	if (off >= end)
		return dw_die_read(s, cu, ab, off, die);
	/* A DIE's size is known only once it is read: a small window first,
	 * wider ones (up to the unit's end) while its bytes run past. (With
	 * m NULL the windows are copies of the section's bytes: one path, the
	 * one the fuzzer runs.) */
	uint8_t small[DIE_WINDOW];
	for (uint64_t want = sizeof small; want <= MAX_DIE_WINDOW; want *= 16) {
		uint64_t n = want < end - off ? want : end - off;
		uint8_t *buf = n <= sizeof small ? small : malloc((size_t)n);
		if (!buf)
			return false;
		sw_mapped_peek(m, s->info.data + off, (size_t)n, buf);
		struct sw_dcur c = { { buf, n, 0, s->info.big_endian }, 0, false };
		bool ok = read_die(s, m, cu, ab, &c, off, die);
		if (buf != small)
			free(buf);
		if (ok || !c.bad || n == end - off)
			return ok;
	}
	/* Longer still (a block of many KiB, or damage): read in place. */
	return dw_die_read(s, cu, ab, off, die);
}

uint64_t dw_skip_children(const struct sw_dwarf_sections *s, struct dw_cu *cu,
                          const struct dw_abbrevs *ab, uint64_t off, int depth_left)
{
	if (depth_left <= 0)
		return 0;
	for (;;) {
		struct dw_die d;
		if (!dw_die_read(s, cu, ab, off, &d))
			return 0;
		if (d.tag == 0)
			return d.next;
		off = d.next;
		if (!d.children)
			continue;
		/* A sibling link past this DIE saves reading its subtree. */
		if (d.sibling > d.off && d.sibling < cu->end)
			off = d.sibling;
		else if (!(off = dw_skip_children(s, cu, ab, off, depth_left - 1)))
			return 0;
	}
}

/* ---- address ranges (§2.17) --------------------------------------------- */

static bool push_pair(struct dw_pairs *out, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return true; /* empty (or reversed): covers nothing */
	if (out->n == out->cap) {
		size_t ncap = out->cap ? out->cap * 2 : 16;
		uint64_t *nv = realloc(out->v, ncap * 2 * sizeof *nv);
		if (!nv)
			return false;
		out->v = nv;
		out->cap = ncap;
	}
	out->v[2 * out->n] = lo;
	out->v[2 * out->n + 1] = hi;
	out->n++;
	return true;
}

/* DWARF <= 4 (§2.17.3 of DWARF 4): .debug_ranges pairs relative to a base
 * address, the unit's low pc until a base-address-selection entry (first
 * address all ones) changes it; (0, 0) ends the list. */
static bool ranges_v4(const struct sw_dwarf_sections *s, const struct dw_cu *cu, uint64_t off,
                      struct dw_pairs *out)
{
	unsigned n = cu->addr_size;
	uint64_t all_ones = n >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * n)) - 1;
	uint64_t base = cu->base;
	struct sw_dcur c = { s->ranges, off, false };
	for (;;) {
		uint64_t a = sw_dcur_uint(&c, n), b = sw_dcur_uint(&c, n);
		if (c.bad || (a == 0 && b == 0))
			return true;
		if (a == all_ones)
			base = b;
		else if (!push_pair(out, base + a, base + b))
			return false;
	}
}

/* DWARF 5 (§2.17.3, §7.25): .debug_rnglists entries. */
static bool ranges_v5(const struct sw_dwarf_sections *s, const struct dw_cu *cu, uint64_t off,
                      struct dw_pairs *out)
{
	uint64_t base = cu->base;
	struct sw_dcur c = { s->rnglists, off, false };
	for (;;) {
		uint8_t kind = sw_dcur_u8(&c);
		uint64_t a = 0, b = 0;
		bool ok = true;
		switch (kind) {
		case SW_DW_RLE_end_of_list:
			return true;
		case SW_DW_RLE_base_addressx:
			if (indexed_address(s, NULL, cu, sw_dcur_uleb(&c), &a))
				base = a;
			continue;
		case SW_DW_RLE_startx_endx:
			ok = indexed_address(s, NULL, cu, sw_dcur_uleb(&c), &a);
			ok = indexed_address(s, NULL, cu, sw_dcur_uleb(&c), &b) && ok;
			break;
		case SW_DW_RLE_startx_length:
			ok = indexed_address(s, NULL, cu, sw_dcur_uleb(&c), &a);
			b = a + sw_dcur_uleb(&c);
			break;
		case SW_DW_RLE_offset_pair:
			a = base + sw_dcur_uleb(&c);
			b = base + sw_dcur_uleb(&c);
			break;
		case SW_DW_RLE_base_address:
			base = sw_dcur_uint(&c, cu->addr_size);
			continue;
		case SW_DW_RLE_start_end:
			a = sw_dcur_uint(&c, cu->addr_size);
			b = sw_dcur_uint(&c, cu->addr_size);
			break;
		case SW_DW_RLE_start_length:
			a = sw_dcur_uint(&c, cu->addr_size);
			b = a + sw_dcur_uleb(&c);
			break;
		default:
			return true; /* unknown entry: its size is unknown */
		}
		if (c.bad)
			return true;
		if (ok && !push_pair(out, a, b))
			return false;
	}
}

bool dw_die_ranges(const struct sw_dwarf_sections *s, const struct dw_cu *cu,
                   const struct dw_die *die, struct dw_pairs *out)
{
	if ((die->has & DW_HAS_LOW_PC) && (die->has & DW_HAS_HIGH_PC))
		return push_pair(out, die->low_pc, die->high_pc);
	if (!(die->has & DW_HAS_RANGES))
		return true;
	if (die->ranges_form == SW_DW_FORM_rnglistx) {
		/* §7.28: the offsets table that follows the rnglists header;
		 * each offset is relative to the table's start. */
		uint64_t at = cu->rnglists_base + die->ranges * cu->offset_size;
		if (die->ranges > s->rnglists.size || !sw_span_has(s->rnglists, at, cu->offset_size))
			return true;
		return ranges_v5(s, cu, cu->rnglists_base + sw_uint(s->rnglists, at, cu->offset_size),
		                 out);
	}
	if (cu->version >= 5)
		return ranges_v5(s, cu, die->ranges, out);
	return ranges_v4(s, cu, die->ranges, out);
}

/* ---- .debug_aranges (§6.1.2) -------------------------------------------- */

void dw_aranges_each(const struct sw_dwarf_sections *s,
                     void (*fn)(void *ctx, uint64_t unit_off, uint64_t lo, uint64_t hi),
                     void *ctx)
{
	uint64_t off = 0;
	while (off < s->aranges.size) {
		struct sw_dcur c = { s->aranges, off, false };
		uint8_t offset_size;
		uint64_t len = dw_initial_length(&c, &offset_size);
		if (len == 0 || !sw_span_has(s->aranges, c.pos, len))
			return;
		uint64_t end = c.pos + len;
		c.s = sw_span_clip(s->aranges, 0, end);
		uint16_t version = (uint16_t)sw_dcur_uint(&c, 2);
		uint64_t unit = sw_dcur_uint(&c, offset_size);
		uint8_t addr_size = sw_dcur_u8(&c), seg_size = sw_dcur_u8(&c);
		if (c.bad || version != 2 || addr_size == 0 || addr_size > 8 || seg_size != 0)
			return;
		/* Tuples start at a multiple of twice the address size from the
		 * set's start. */
		uint64_t tuple = 2u * addr_size;
		uint64_t rel = c.pos - off;
		c.pos = off + (rel + tuple - 1) / tuple * tuple;
		/* A (0, 0) pair ends the set (§6.1.2), but linkers leave such
		 * pairs for discarded functions before the real ones (ESP-IDF's
		 * firmware: port.c's ranges follow two of them): the set is read
		 * to its length, empty pairs skipped. */
		while (c.pos < end) {
			uint64_t lo = sw_dcur_uint(&c, addr_size), n = sw_dcur_uint(&c, addr_size);
			if (c.bad)
				break;
			if (n > 0 && lo + n > lo)
				fn(ctx, unit, lo, lo + n);
		}
		off = end;
	}
}
