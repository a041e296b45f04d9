/* Crashpad's info stream (MDRawCrashpadInfo, Crashpad's
 * minidump_extensions.h): process-wide simple annotations, and per module
 * list annotations, simple annotations and annotation objects. Strings are
 * MinidumpUTF8String; object values of type String are a MinidumpByteArray
 * (uint32 length + bytes) holding unterminated UTF-8. */
#include <stdio.h>
#include <string.h>

#include "minidump_internal.h"

enum {
	MD_CRASHPAD_INFO_MIN = 52,       /* version .. module_list */
	MD_MODULE_LINK_SIZE = 12,        /* MDRawModuleCrashpadInfoLink */
	MD_MODULE_INFO_SIZE = 28,        /* MDRawModuleCrashpadInfo */
	MD_DICT_ENTRY_SIZE = 8,          /* MDRawSimpleStringDictionaryEntry */
	MD_ANNOTATION_SIZE = 12,         /* MDRawCrashpadAnnotation */
	MD_ANNOTATION_STRING = 1,        /* Annotation::Type::kString */
	MD_MAX_ANNOTATIONS = 1 << 20,
};

/* Every list entry read is charged to the reader's annotation budget, and
 * every annotation its text too: strings are decoded once and shared, but
 * a list that many modules share is read, kept and printed once per
 * module, so its cost is per reference. False: no more may be read. */
static bool charge_entry(struct md_reader *r)
{
	return md_charge_annotation(r, sizeof(struct sw_annotation));
}

/* Adds an annotation; false when no more may be added. */
static bool add_annotation(struct md_reader *r, uint32_t *cap, int32_t module,
                           enum sw_annotation_kind kind, const char *key, const char *value)
{
	struct sw_snapshot *s = r->snap;
	if (!value)
		return true;
	if (s->nannotations >= MD_MAX_ANNOTATIONS ||
	    !md_charge_annotation(r, (key ? strlen(key) : 0) + strlen(value)))
		return false;
	if (s->nannotations == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 16;
		struct sw_annotation *a = sw_arena_array(&s->arena, ncap, sizeof *a);
		if (!a)
			return false;
		for (uint32_t i = 0; i < s->nannotations; i++)
			a[i] = s->annotations[i];
		s->annotations = a;
		*cap = ncap;
	}
	struct sw_annotation *a = &s->annotations[s->nannotations++];
	a->module = module;
	a->kind = kind;
	a->key = key;
	a->value = value;
	return true;
}

/* A list stream inside the Crashpad info: count at 0, then records. */
static uint32_t sub_list(struct md_reader *r, uint32_t size, uint32_t rva, uint64_t rec,
                         const char *what, struct sw_span *entries)
{
	struct sw_span s;
	if (size == 0)
		return 0;
	md_location(r, size, rva, what, &s);
	return md_list(r, s, 4, sw_u32(s, 0), rec, what, entries);
}

/* The readers below return false once no more annotations may be added:
 * the caller stops too, so that a hostile file's lists are not walked in
 * vain (module links × list entries can be the square of the file). */
static bool read_dictionary(struct md_reader *r, uint32_t *cap, int32_t module,
                            uint32_t size, uint32_t rva)
{
	struct sw_span e;
	uint32_t n = sub_list(r, size, rva, MD_DICT_ENTRY_SIZE, "Crashpad simple annotations", &e);
	for (uint32_t i = 0; i < n; i++) {
		if (!charge_entry(r))
			return false;
		uint64_t off = (uint64_t)i * MD_DICT_ENTRY_SIZE;
		const char *key = md_utf8_string(r, sw_u32(e, off), "Crashpad annotation key");
		const char *value = md_utf8_string(r, sw_u32(e, off + 4), "Crashpad annotation value");
		if (key && !add_annotation(r, cap, module, SW_ANNOT_SIMPLE, key, value))
			return false;
	}
	return true;
}

static bool read_string_list(struct md_reader *r, uint32_t *cap, int32_t module,
                             uint32_t size, uint32_t rva)
{
	struct sw_span e;
	uint32_t n = sub_list(r, size, rva, 4, "Crashpad list annotations", &e);
	for (uint32_t i = 0; i < n; i++)
		if (!charge_entry(r) ||
		    !add_annotation(r, cap, module, SW_ANNOT_LIST, NULL,
		                    md_utf8_string(r, sw_u32(e, (uint64_t)i * 4),
		                                   "Crashpad list annotation")))
			return false;
	return true;
}

static bool read_objects(struct md_reader *r, uint32_t *cap, int32_t module, uint32_t size,
                         uint32_t rva)
{
	struct sw_span e;
	uint32_t n = sub_list(r, size, rva, MD_ANNOTATION_SIZE, "Crashpad annotation objects", &e);
	for (uint32_t i = 0; i < n; i++) {
		if (!charge_entry(r))
			return false;
		uint64_t off = (uint64_t)i * MD_ANNOTATION_SIZE;
		if (sw_u16(e, off + 4) != MD_ANNOTATION_STRING)
			continue;  /* only string objects have a printable value */
		const char *name = md_utf8_string(r, sw_u32(e, off), "Crashpad annotation name");
		const char *value = md_utf8_string(r, sw_u32(e, off + 8), "Crashpad annotation value");
		if (name && !add_annotation(r, cap, module, SW_ANNOT_OBJECT, name, value))
			return false;
	}
	return true;
}

void md_read_crashpad_info(struct md_reader *r, struct sw_span s)
{
	if (!md_stream_holds(r, s, MD_CRASHPAD_INFO_MIN, "Crashpad info"))
		return;
	uint32_t cap = 0;
	/* version 0, report_id 4, client_id 20, simple_annotations 36,
	 * module_list 44 (location descriptors: size, rva). */
	if (!read_dictionary(r, &cap, -1, sw_u32(s, 36), sw_u32(s, 40)))
		return;
	struct sw_span links;
	uint32_t n = sub_list(r, sw_u32(s, 44), sw_u32(s, 48), MD_MODULE_LINK_SIZE,
	                      "Crashpad module list", &links);
	for (uint32_t i = 0; i < n; i++) {
		if (!charge_entry(r))
			return;
		uint64_t off = (uint64_t)i * MD_MODULE_LINK_SIZE;
		uint32_t index = sw_u32(links, off);
		struct sw_span info;
		if (!md_location(r, sw_u32(links, off + 4), sw_u32(links, off + 8),
		                 "Crashpad module info", &info) ||
		    !sw_span_has(info, 0, MD_MODULE_INFO_SIZE))
			continue;
		int32_t module = index <= INT32_MAX ? (int32_t)index : -1;
		/* version 0, list_annotations 4, simple_annotations 12,
		 * annotation_objects 20. */
		if (!read_string_list(r, &cap, module, sw_u32(info, 4), sw_u32(info, 8)) ||
		    !read_dictionary(r, &cap, module, sw_u32(info, 12), sw_u32(info, 16)) ||
		    !read_objects(r, &cap, module, sw_u32(info, 20), sw_u32(info, 24)))
			return;
	}
}
