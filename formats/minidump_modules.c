/* ModuleList (MINIDUMP_MODULE), its CodeView records (PDB 7.0 'RSDS',
 * PDB 2.0 'NB10', Breakpad's ELF build id 'BpEL') and VS_FIXEDFILEINFO,
 * and UnloadedModuleList (MINIDUMP_UNLOADED_MODULE). Identifiers are
 * formatted as Breakpad's MinidumpModule does (debug_identifier,
 * code_identifier), except macOS code ids, which follow rust-minidump
 * (the Mach-O UUID) because Breakpad only prints "id" there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/build_id.h"
#include "minidump_internal.h"

enum {
	MD_MODULE_SIZE = 108,
	MD_UNLOADED_MODULE_SIZE = 24,
	MD_UNLOADED_LIST_HEADER = 12,
	MD_VSFIXEDFILEINFO_SIGNATURE = 0xfeef04bd,
	MD_VSFIXEDFILEINFO_VERSION = 0x00010000,
	MD_CV_PDB70 = 0x53445352, /* "RSDS" */
	MD_CV_PDB20 = 0x3031424e, /* "NB10" */
	MD_CV_ELF = 0x4270454c,   /* "BpEL" */
};

/* A GUID (Data1 u32, Data2 u16, Data3 u16, Data4[8]) as hex digits: Data1
 * %08X, Data2 %04X, Data3 %04X, then Data4's bytes. Data1-3 are integers,
 * read in the span's byte order; Data4 is bytes (Breakpad's Swap(MDGUID*)
 * swaps data1-3 of a byte-swapped dump and leaves data4). */
static size_t format_guid(char *buf, size_t cap, struct sw_span guid, bool upper)
{
	size_t n = (size_t)snprintf(buf, cap, upper ? "%08X%04X%04X" : "%08x%04x%04x",
	                            sw_u32(guid, 0), sw_u16(guid, 4), sw_u16(guid, 6));
	for (unsigned i = 0; i < 8 && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, upper ? "%02X" : "%02x", sw_u8(guid, 8 + i));
	return n;
}

/* Debug id as Breakpad spells it (MinidumpModule::debug_identifier): the
 * GUID in upper-case hex, then the age in lower-case hex. */
static const char *guid_age_id(struct md_reader *r, struct sw_span guid, uint32_t age)
{
	char buf[48];
	size_t n = format_guid(buf, sizeof buf, guid, true);
	snprintf(buf + n, sizeof buf - n, "%x", age);
	return sw_arena_strdup(&r->snap->arena, buf);
}

/* rust-minidump's macOS code id: the Mach-O UUID that Crashpad stores as
 * the PDB 7.0 GUID, in lower-case GUID order without the age. */
static const char *guid_lower(struct md_reader *r, struct sw_span guid)
{
	char buf[40];
	format_guid(buf, sizeof buf, guid, false);
	return sw_arena_strdup(&r->snap->arena, buf);
}

/* The NUL-terminated 8-bit name inside a CodeView record, from off on
 * (decoded once however many modules share the record). */
static const char *cv_name(struct md_reader *r, struct sw_span cv, uint64_t off)
{
	return md_cstring(r, sw_span_clip(cv, off, cv.size), "CodeView PDB name");
}

static void read_codeview(struct md_reader *r, struct sw_module *m, struct sw_span cv)
{
	uint32_t sig = sw_u32(cv, 0);
	struct sw_span guid;
	if (sig == MD_CV_PDB70 && sw_span_sub(cv, 4, 16, &guid) && sw_span_has(cv, 20, 4)) {
		/* CV_INFO_PDB70: signature GUID at 4, age at 20, name at 24. */
		m->debug_id = guid_age_id(r, guid, sw_u32(cv, 20));
		m->debug_file = sw_basename(cv_name(r, cv, 24));
		if (r->snap->sys.os == SW_OS_MACOS || r->snap->sys.os == SW_OS_IOS)
			m->code_id = guid_lower(r, guid);
	} else if (sig == MD_CV_PDB20 && sw_span_has(cv, 0, 16)) {
		/* CV_INFO_PDB20: CV header (8), signature at 8, age at 12, name. */
		m->debug_id = sw_arena_printf(&r->snap->arena, "%08X%x", sw_u32(cv, 8),
		                              sw_u32(cv, 12));
		m->debug_file = sw_basename(cv_name(r, cv, 16));
	} else if (sig == MD_CV_ELF) {
		/* Breakpad's MDCVInfoELF: the build id follows the signature;
		 * its ids as lib/build_id.h makes them. The build id is bytes,
		 * which a byte-swapped dump leaves as they are (Breakpad swaps
		 * only cv_signature): the id dump_syms gives the same library. */
		struct sw_span id = sw_span_clip(cv, 4, cv.size);
		m->debug_id = sw_build_id_debug_id(&r->snap->arena, id);
		m->code_id = sw_build_id_code_id(&r->snap->arena, id);
		m->debug_file = sw_basename(m->code_file);
	}
	/* Other records (CodeView 4.1 'NB09', 5.0 'NB11') carry no id we use. */
}

/* The fields MINIDUMP_MODULE and MINIDUMP_UNLOADED_MODULE share at their
 * start: BaseOfImage, SizeOfImage, CheckSum, TimeDateStamp, ModuleNameRva.
 * `kind` names the list in messages ("module 3 name"). */
static void read_module_head(struct md_reader *r, struct sw_span e, const char *kind,
                             uint32_t i, struct sw_module *m)
{
	m->base = sw_u64(e, 0);
	m->size = sw_u32(e, 8);
	m->checksum = sw_u32(e, 12);
	m->time_date_stamp = sw_u32(e, 16);
	char what[48];
	snprintf(what, sizeof what, "%s %u name", kind, i);
	m->code_file = md_path(r, sw_u32(e, 20), what);
	if (!m->code_file)
		m->code_file = "";
}

/* A Windows module's code id, as Breakpad prints it: TimeDateStamp (8 hex
 * digits) then SizeOfImage. */
static void set_pe_code_id(struct sw_snapshot *snap, struct sw_module *m)
{
	m->code_id = sw_arena_printf(&snap->arena, "%08X%x", m->time_date_stamp,
	                             (uint32_t)m->size);
}

void md_read_module_list(struct md_reader *r, struct sw_span s)
{
	struct sw_snapshot *snap = r->snap;
	struct sw_span list;
	uint32_t n = md_list(r, s, 4, sw_u32(s, 0), MD_MODULE_SIZE, "module list", &list);
	snap->modules = sw_arena_array(&snap->arena, n ? n : 1, sizeof *snap->modules);
	if (!snap->modules)
		return;
	bool windows = snap->sys.os == SW_OS_WINDOWS;
	for (uint32_t i = 0; i < n; i++) {
		/* md_list sized `list` to hold n whole records, so this cannot
		 * fail; stopping if it ever does keeps `e` from being read unset. */
		struct sw_span e;
		if (!sw_span_sub(list, (uint64_t)i * MD_MODULE_SIZE, MD_MODULE_SIZE, &e))
			break;
		struct sw_module *m = &snap->modules[snap->nmodules++];
		read_module_head(r, e, "module", i, m);

		/* VS_FIXEDFILEINFO at 24: Breakpad prints dwFileVersionMS/LS as
		 * four 16-bit parts when the signature and struct version match. */
		if (sw_u32(e, 24) == MD_VSFIXEDFILEINFO_SIGNATURE &&
		    (sw_u32(e, 28) & MD_VSFIXEDFILEINFO_VERSION)) {
			uint32_t hi = sw_u32(e, 32), lo = sw_u32(e, 36);
			m->version = sw_arena_printf(&snap->arena, "%u.%u.%u.%u", hi >> 16,
			                             hi & 0xffff, lo >> 16, lo & 0xffff);
		}

		/* CvRecord at 76 (after the 52-byte VS_FIXEDFILEINFO). */
		uint32_t cv_size = sw_u32(e, 76);
		if (cv_size > 0) {
			struct sw_span cv;
			char what[40];
			snprintf(what, sizeof what, "module %u CodeView record", i);
			md_location(r, cv_size, sw_u32(e, 80), what, &cv);
			read_codeview(r, m, cv);
		}
		if (windows)
			set_pe_code_id(snap, m);
	}
	/* Breakpad's MinidumpModuleList::GetMainModule: the first module is
	 * the main executable. */
	snap->main_module = snap->nmodules ? 0 : -1;
	/* Its path is the process's executable (docs/json.md, "process"). */
	if (snap->nmodules && snap->modules[0].code_file && *snap->modules[0].code_file)
		snap->executable = snap->modules[0].code_file;
}

void md_read_unloaded_modules(struct md_reader *r, struct sw_span s)
{
	struct sw_snapshot *snap = r->snap;
	uint32_t header = sw_u32(s, 0), entry = sw_u32(s, 4), count = sw_u32(s, 8);
	if (!sw_span_has(s, 0, MD_UNLOADED_LIST_HEADER) || header < MD_UNLOADED_LIST_HEADER ||
	    entry < MD_UNLOADED_MODULE_SIZE) {
		problem(r, r->optional,
		        "unloaded module list: bad header (header %u, entry %u bytes)", header, entry);
		return;
	}
	struct sw_span list;
	uint32_t n = md_list(r, s, header, count, entry, "unloaded module list", &list);
	snap->unloaded = sw_arena_array(&snap->arena, n ? n : 1, sizeof *snap->unloaded);
	if (!snap->unloaded)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct sw_span e;
		if (!sw_span_sub(list, (uint64_t)i * entry, entry, &e))
			break; /* cannot happen: see md_read_module_list */
		struct sw_module *m = &snap->unloaded[snap->nunloaded++];
		read_module_head(r, e, "unloaded module", i, m);
		if (snap->sys.os == SW_OS_WINDOWS)
			set_pe_code_id(snap, m);
	}
}

/* A module's identity for linking split entries, sorted by identity and
 * then dump order, so that each library's entries lie together. */
struct split_key {
	const char *id, *file;
	uint64_t base;
	uint32_t index;
};

static int compare_split_keys(const void *a, const void *b)
{
	const struct split_key *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	if (c == 0)
		c = strcmp(x->file, y->file);
	if (c == 0)
		c = x->index < y->index ? -1 : x->index > y->index;
	return c;
}

/* Breakpad's Linux writer emits one module entry per executable mapping it
 * cannot merge: a BOLT-optimized library, whose hot code is a second
 * PT_LOAD far from the first, gets a second entry with the same debug id
 * (and a doubled path), based at the mapping before that code. Its symbol
 * file is still relative to where the library was loaded, which is the
 * first entry's base; so the later entry's load bias points back there.
 * (Breakpad's processor looks such addresses up against the wrong base and
 * finds neither symbols nor CFI; the DSO list's l_addr confirms the first
 * base.)
 * Each later entry links to the first earlier entry of its library (in
 * dump order) whose base is lower. Sorting, then a binary search over the
 * running minimum of the bases of each library's entries, finds that entry
 * in O(n log n): with every entry compared with every earlier one, 80,000
 * entries of one id (a hostile file) took seconds. The running minimum
 * only falls, and the first entry whose base is below b is where it first
 * falls below b. */
void md_link_split_modules(struct md_reader *r)
{
	struct sw_snapshot *snap = r->snap;
	struct split_key *keys = malloc((snap->nmodules ? snap->nmodules : 1) * sizeof *keys);
	uint64_t *low = malloc((snap->nmodules ? snap->nmodules : 1) * sizeof *low);
	uint32_t n = 0;
	if (!keys || !low) {
		problem(r, r->optional, "module list: out of memory linking split modules");
		goto out;
	}
	for (uint32_t i = 0; i < snap->nmodules; i++) {
		const struct sw_module *m = &snap->modules[i];
		if (m->debug_id && m->debug_file)
			keys[n++] = (struct split_key){ m->debug_id, m->debug_file, m->base, i };
	}
	qsort(keys, n, sizeof *keys, compare_split_keys);
	for (uint32_t g = 0, end; g < n; g = end) {
		end = g + 1;
		while (end < n && strcmp(keys[end].id, keys[g].id) == 0 &&
		       strcmp(keys[end].file, keys[g].file) == 0)
			end++;
		low[g] = keys[g].base;
		for (uint32_t j = g + 1; j < end; j++) {
			low[j] = keys[j].base < low[j - 1] ? keys[j].base : low[j - 1];
			/* The first p in [g, j) with low[p] < base, if any. */
			uint32_t lo = g, hi = j;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (low[mid] < keys[j].base)
					hi = mid;
				else
					lo = mid + 1;
			}
			if (lo < j) {
				struct sw_module *m = &snap->modules[keys[j].index];
				m->load_bias = keys[lo].base - m->base;
			}
		}
	}
out:
	free(keys);
	free(low);
}
