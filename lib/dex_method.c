/* The Java method at a DEX offset (lib/dex_method.h). */
#include "dex_method.h"

#include <string.h>

/* header_item (dex-format "header_item"): the fields read here. */
enum {
	DEX_HEADER_SIZE = 0x70,
	DEX_FILE_SIZE = 0x20,
	DEX_ENDIAN_TAG = 0x28,
	DEX_STRING_IDS = 0x38,   /* size, then offset */
	DEX_TYPE_IDS = 0x40,
	DEX_METHOD_IDS = 0x58,
	DEX_CLASS_DEFS = 0x60,
	DEX_LITTLE_ENDIAN = 0x12345678,
	CLASS_DEF_SIZE = 32,     /* class_def_item */
	CLASS_DATA_OFF = 24,     /* class_def_item.class_data_off */
	METHOD_ID_SIZE = 8,      /* method_id_item: class_idx u2, proto_idx u2, name_idx u4 */
	CODE_ITEM_INSNS_SIZE = 12, /* code_item.insns_size (u4, in 16-bit units) */
	CODE_ITEM_INSNS = 16,    /* code_item.insns */
	MAX_NAME = 1024,         /* a descriptor or a name longer than this is cut */
};

struct dex {
	sw_dex_read_fn read;
	void *ctx;
	uint32_t size;           /* header_item.file_size */
	/* Bytes of class data left to read: a well-formed file's class_data
	 * items do not overlap, so its size is enough; class_defs that all
	 * name one large item would otherwise cost classes x methods. */
	uint64_t budget;
};

static bool read_u32(const struct dex *d, uint64_t off, uint32_t *v)
{
	uint8_t b[4];
	if (off > d->size || d->size - off < 4 || !d->read(d->ctx, off, b, 4))
		return false;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return true;
}

static bool read_u16(const struct dex *d, uint64_t off, uint16_t *v)
{
	uint8_t b[2];
	if (off > d->size || d->size - off < 2 || !d->read(d->ctx, off, b, 2))
		return false;
	*v = (uint16_t)(b[0] | b[1] << 8);
	return true;
}

/* A table of `count` items of `item` bytes at `off`, wholly in the file. */
static bool table_fits(const struct dex *d, uint32_t count, uint32_t off, uint32_t item)
{
	return off <= d->size && (uint64_t)count * item <= d->size - off;
}

/* A uleb128 (at most 5 bytes for 32 bits) at *off, advancing it. */
static bool read_uleb(struct dex *d, uint64_t *off, uint32_t *v)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < 5; i++) {
		uint8_t b;
		if (*off >= d->size || d->budget == 0 || !d->read(d->ctx, *off, &b, 1))
			return false;
		d->budget--;
		(*off)++;
		r |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* String idx's MUTF-8 bytes (string_data_item: a uleb128 length in
 * UTF-16 units, then the bytes up to a NUL) into buf. */
static bool read_string(struct dex *d, const uint32_t ids[2], uint32_t idx, char *buf,
                        size_t cap)
{
	uint32_t data_off, units;
	if (idx >= ids[0] || !read_u32(d, (uint64_t)ids[1] + 4u * idx, &data_off))
		return false;
	uint64_t at = data_off;
	if (!read_uleb(d, &at, &units))
		return false;
	size_t n = 0;
	for (; n + 1 < cap; n++) {
		uint8_t b;
		if (at + n >= d->size || !d->read(d->ctx, at + n, &b, 1))
			return false;
		if (b == 0)
			break;
		buf[n] = (char)b;
	}
	buf[n] = 0;
	return true;
}

/* "Ljava/lang/Thread;" -> "java.lang.Thread" (ART's PrettyDescriptor for
 * a class; other descriptors are left as they are). */
static void pretty_class(char *s)
{
	size_t n = strlen(s);
	if (n < 2 || s[0] != 'L' || s[n - 1] != ';')
		return;
	memmove(s, s + 1, n - 2);
	s[n - 2] = 0;
	for (char *p = s; *p; p++)
		if (*p == '/')
			*p = '.';
}

struct found {
	uint32_t method_idx;
	uint64_t code;           /* the insns' file offset */
};

/* Walks one class's encoded_method lists; true with *f when a method's
 * instructions hold `offset`. *ok false on a malformed list. */
static bool class_holds(struct dex *d, uint32_t class_data, uint64_t offset, uint32_t nmethods,
                        struct found *f, bool *ok)
{
	uint64_t at = class_data;
	uint32_t counts[4]; /* static fields, instance fields, direct, virtual methods */
	for (unsigned i = 0; i < 4; i++)
		if (!read_uleb(d, &at, &counts[i]))
			return *ok = false;
	/* Each encoded item is at least 2 (field) or 3 (method) bytes. */
	uint64_t fields = (uint64_t)counts[0] + counts[1], methods = (uint64_t)counts[2] + counts[3];
	if (fields * 2 + methods * 3 > d->size - at)
		return *ok = false;
	for (uint64_t i = 0; i < fields; i++) {
		uint32_t skip;
		if (!read_uleb(d, &at, &skip) || !read_uleb(d, &at, &skip))
			return *ok = false;
	}
	for (unsigned list = 0; list < 2; list++) {
		uint32_t idx = 0;
		for (uint32_t i = 0; i < counts[2 + list]; i++) {
			uint32_t diff, flags, code_off, insns;
			if (!read_uleb(d, &at, &diff) || !read_uleb(d, &at, &flags) ||
			    !read_uleb(d, &at, &code_off))
				return *ok = false;
			idx += diff;
			if (idx >= nmethods)
				return *ok = false;
			if (code_off == 0 || !read_u32(d, (uint64_t)code_off + CODE_ITEM_INSNS_SIZE, &insns))
				continue; /* abstract or native: no code */
			uint64_t start = (uint64_t)code_off + CODE_ITEM_INSNS;
			if (offset >= start && offset - start < (uint64_t)insns * 2) {
				*f = (struct found){ idx, start };
				return true;
			}
		}
	}
	return false;
}

bool sw_dex_method_at(sw_dex_read_fn read, void *ctx, uint64_t offset, struct sw_arena *a,
                      struct sw_dex_method *out)
{
	uint8_t h[DEX_HEADER_SIZE];
	if (!read(ctx, 0, h, sizeof h) || memcmp(h, "dex\n0", 5) != 0 || h[7] != 0)
		return false;
	struct dex d = { read, ctx, DEX_HEADER_SIZE, 0 };
	uint32_t endian, strings[2], types[2], methods[2], classes[2];
	if (!read_u32(&d, DEX_FILE_SIZE, &d.size) || d.size < DEX_HEADER_SIZE ||
	    !read_u32(&d, DEX_ENDIAN_TAG, &endian) || endian != DEX_LITTLE_ENDIAN)
		return false;
	if (offset >= d.size)
		return false;
	d.budget = d.size;
	for (unsigned i = 0; i < 2; i++)
		if (!read_u32(&d, DEX_STRING_IDS + 4u * i, &strings[i]) ||
		    !read_u32(&d, DEX_TYPE_IDS + 4u * i, &types[i]) ||
		    !read_u32(&d, DEX_METHOD_IDS + 4u * i, &methods[i]) ||
		    !read_u32(&d, DEX_CLASS_DEFS + 4u * i, &classes[i]))
			return false;
	if (!table_fits(&d, strings[0], strings[1], 4) || !table_fits(&d, types[0], types[1], 4) ||
	    !table_fits(&d, methods[0], methods[1], METHOD_ID_SIZE) ||
	    !table_fits(&d, classes[0], classes[1], CLASS_DEF_SIZE))
		return false;
	struct found f = { 0, 0 };
	bool hit = false, ok = true;
	for (uint32_t c = 0; c < classes[0] && !hit && ok; c++) {
		uint32_t data;
		if (!read_u32(&d, (uint64_t)classes[1] + (uint64_t)c * CLASS_DEF_SIZE + CLASS_DATA_OFF,
		              &data))
			return false;
		if (data != 0)
			hit = class_holds(&d, data, offset, methods[0], &f, &ok);
	}
	if (!hit)
		return false;
	/* method_id_item: the class's type, the name's string. */
	uint64_t mid = (uint64_t)methods[1] + (uint64_t)f.method_idx * METHOD_ID_SIZE;
	uint16_t class_idx;
	uint32_t name_idx, descriptor_idx;
	char cls[MAX_NAME], name[MAX_NAME];
	if (!read_u16(&d, mid, &class_idx) || !read_u32(&d, mid + 4, &name_idx) ||
	    class_idx >= types[0] ||
	    !read_u32(&d, (uint64_t)types[1] + 4u * class_idx, &descriptor_idx) ||
	    !read_string(&d, strings, descriptor_idx, cls, sizeof cls) ||
	    !read_string(&d, strings, name_idx, name, sizeof name))
		return false;
	pretty_class(cls);
	out->name = sw_arena_printf(a, "%s.%s", cls, name);
	out->code_offset = f.code;
	return out->name != NULL;
}
