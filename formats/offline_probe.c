/* Offline reader, a debug probe's capture: what a firmware developer saves
 * from OpenOCD, pyOCD or J-Link with the target halted at the crash
 * (docs/offline-format.md, "Debug-probe captures"):
 *
 *   regs.txt          "NAME: HEX" per line, the names the probe prints
 *   mem-HEX.bin       raw memory: the bytes from address HEX on
 *   *.elf             optional: the firmware, at its link addresses
 *
 * and the firmware ELF given as a symbol path. No maps.txt: firmware runs
 * where it was linked, so a module is an ELF's own loadable segments.
 *
 * The CPU is told by the names: msp or psp is a Cortex-M (ARM, profile
 * 'M'); RISC-V names with no value wider than 32 bits an RV32 hart (a
 * probe prints an RV64's addresses in 64 bits); the ELF holding the pc has
 * the last word, as for libunwindstack's folders. The registers the arch
 * tables do not number (xpsr, msp, psp, control, cfsr..., mcause, mepc...)
 * are the .snap register sets' named ones and are kept and used as the
 * .snap reader keeps and uses them (formats/snap_regs.h). */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/registry.h"
#include "lib/build_id.h"
#include "lib/mapped_file.h"
#include "offline_internal.h"
#include "snap_regs.h"
#include "symbols/elf_image.h"

enum {
	/* mem-*.bin files kept: a probe dump is a handful of RAM banks and
	 * peripheral windows. */
	OL_MAX_PROBE_FILES = 256,
	/* ELF files made modules (the folder's and the symbol paths'). */
	OL_MAX_PROBE_MODULES = 64,
};

/* ---- Names ------------------------------------------------------------ */

/* The address a memory file's name gives: "mem-" HEX ".bin", 1-16 hex
 * digits (an optional 0x); false for any other name. */
bool ol_probe_memory_name(const char *name, uint64_t *base)
{
	size_t n = strlen(name);
	if (n <= 8 || strncmp(name, "mem-", 4) != 0 || strcmp(name + n - 4, ".bin") != 0)
		return false;
	struct sw_span hex = { (const uint8_t *)name + 4, n - 8, 0, false };
	return hex.size <= 18 && text_hex(hex, base);
}

/* Does the folder hold a file named "mem-*.bin" (well named or not: a bad
 * name is then the reader's problem to report, not a reason to call the
 * folder something else)? */
bool ol_folder_has_probe_memory(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		found = n > 8 && strncmp(e->d_name, "mem-", 4) == 0 &&
		        strcmp(e->d_name + n - 4, ".bin") == 0;
	}
	closedir(d);
	return found;
}

/* A probe's spelling of a register as regs.txt's: lower case (OpenOCD
 * prints xPSR), without OpenOCD's number and width. */
static const char *probe_reg_name(struct sw_arena *a, const char *name)
{
	/* OpenOCD's `reg` prints "(17) msp (/32): 0x20001000": the number
	 * before the name and the width after it go. */
	if (name[0] == '(' && strchr(name, ' '))
		name = strchr(name, ' ') + 1;
	char *low = sw_arena_strdup(a, name);
	if (!low)
		return name;
	low[strcspn(low, " \t")] = '\0';
	for (char *p = low; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return low;
}

/* A RISC-V x-name (x0-x31) or fp as the ABI name the arch table has
 * (RISC-V psABI, "Integer Register Convention"); else name itself. */
static const char *riscv_abi_name(const char *name)
{
	static const char *const abi[32] = {
		"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
		"a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
		"s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
	};
	char *end;
	if (name[0] == 'x' && name[1] >= '0' && name[1] <= '9') {
		unsigned long k = strtoul(name + 1, &end, 10);
		if (*end == '\0' && k < 32 && (name[1] != '0' || name[2] == '\0'))
			return abi[k];
	}
	return strcmp(name, "fp") == 0 ? "s0" : name;
}

static bool has_reg(const struct ol_reader *r, const char *name)
{
	for (uint32_t i = 0; i < r->nregs; i++)
		if (strcmp(r->regs[i].name, name) == 0)
			return true;
	return false;
}

/* ---- Memory ----------------------------------------------------------- */

struct probe_file {
	const char *name;
	uint64_t base, size;
};

static int by_base(const void *a, const void *b)
{
	const struct probe_file *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base ? 1 : strcmp(x->name, y->name);
}

/* The folder's mem-*.bin files with their addresses and sizes; bad names
 * and empty or unreadable files are problems. */
static struct probe_file *list_probe_files(struct ol_reader *r, uint32_t *n)
{
	*n = 0;
	DIR *d = opendir(r->dir);
	if (!d) {
		problem(r, false, "%s: cannot list the folder: %s", r->dir, strerror(errno));
		return NULL;
	}
	struct probe_file *files =
		sw_arena_array(&r->snap->arena, OL_MAX_PROBE_FILES, sizeof *files);
	struct dirent *e;
	while (files && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len <= 4 || strncmp(e->d_name, "mem-", 4) != 0 ||
		    strcmp(e->d_name + len - 4, ".bin") != 0)
			continue;
		uint64_t base;
		if (!ol_probe_memory_name(e->d_name, &base)) {
			problem(r, false, "%s/%s: not mem-HEX.bin (the start address in hex, as "
			                  "mem-20000000.bin): ignored",
			        r->dir, e->d_name);
			continue;
		}
		if (*n >= OL_MAX_PROBE_FILES) {
			problem(r, false, "%s/%s: more than %d memory files: ignored", r->dir,
			        e->d_name, OL_MAX_PROBE_FILES);
			continue;
		}
		const char *path = sw_arena_printf(&r->snap->arena, "%s/%s", r->dir, e->d_name);
		struct stat st;
		if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			problem(r, false, "%s/%s: not a readable regular file: ignored", r->dir,
			        e->d_name);
			continue;
		}
		if (st.st_size == 0) {
			problem(r, true, "%s: empty: no memory at 0x%llx", path,
			        (unsigned long long)base);
			continue;
		}
		files[(*n)++] = (struct probe_file){ path, base, (uint64_t)st.st_size };
	}
	closedir(d);
	if (files && *n > 1)
		qsort(files, *n, sizeof *files, by_base);
	return files;
}

/* Does file f fit the address space of a CPU with this word size (0: not
 * known)? */
static bool fits_address_space(const struct probe_file *f, uint8_t word_size)
{
	uint64_t last = word_size == 4 ? UINT32_MAX : UINT64_MAX;
	return f->base <= last && f->size - 1 <= last - f->base;
}

/* Each mem-*.bin, in address order. Two files that overlap would give an
 * address two values: the later one is refused rather than one chosen
 * silently (a probe dump of the same RAM twice is a mistake to tell). */
static void read_probe_memory(struct ol_reader *r, uint8_t word_size)
{
	struct sw_snapshot *s = r->snap;
	uint32_t n;
	struct probe_file *files = list_probe_files(r, &n);
	if (!files || n == 0)
		return;
	s->mem = sw_arena_array(&s->arena, n, sizeof *s->mem);
	if (!s->mem)
		return;
	uint64_t total = 0;
	const struct probe_file *prev = NULL;
	for (uint32_t i = 0; i < n; i++) {
		const struct probe_file *f = &files[i];
		if (!fits_address_space(f, word_size)) {
			problem(r, false, "%s: 0x%llx bytes from 0x%llx run past the end of the "
			                  "%u-bit address space: ignored",
			        f->name, (unsigned long long)f->size, (unsigned long long)f->base,
			        word_size == 4 ? 32 : 64);
			continue;
		}
		if (prev && f->base - prev->base < prev->size) {
			problem(r, false, "%s: overlaps %s (0x%llx-0x%llx): ignored", f->name,
			        prev->name, (unsigned long long)prev->base,
			        (unsigned long long)(prev->base + prev->size));
			continue;
		}
		if (f->size > OL_MAX_MEMORY - total) {
			problem(r, false, "%s: 0x%llx bytes: more memory than stackwalk reads from a "
			                  "folder (%llu MiB in all): ignored",
			        f->name, (unsigned long long)f->size,
			        (unsigned long long)(OL_MAX_MEMORY >> 20));
			continue;
		}
		uint64_t got;
		const uint8_t *data = ol_read_file(r, f->name, 0, f->size, &got);
		if (!data)
			continue;
		total += got;
		s->mem[s->nmem++] = (struct sw_mem_region){ f->base, got, data };
		prev = f;
	}
}

/* ---- Registers -------------------------------------------------------- */

/* The .snap register set whose named registers the CPU's probe prints. */
static uint16_t probe_regset(enum sw_cpu cpu, bool cortex_m)
{
	if (cortex_m)
		return SNAP_REGSET_CORTEX_M;
	return cpu == SW_CPU_RISCV32 || cpu == SW_CPU_RISCV64 ? SNAP_REGSET_RISCV : 0;
}

/* The CPU the names and widths tell, before any ELF is seen. */
static enum sw_cpu probe_cpu(const struct ol_reader *r, bool *cortex_m)
{
	*cortex_m = has_reg(r, "msp") || has_reg(r, "psp");
	if (*cortex_m)
		return SW_CPU_ARM;
	enum sw_cpu cpu = ol_regs_cpu(r);
	bool wide = false;
	for (uint32_t i = 0; i < r->nregs; i++)
		wide |= r->regs[i].value > UINT32_MAX;
	if (cpu == SW_CPU_RISCV64 && !wide)
		return SW_CPU_RISCV32;
	return cpu;
}

/* Moves regs.txt's named registers (xpsr, msp, mcause...) out of r->regs
 * into thread t's extra registers; the rest stay for the context. */
static void take_named_regs(struct ol_reader *r, uint16_t regset, struct sw_thread *t)
{
	struct sw_named_reg *extra =
		r->nregs ? sw_arena_array(&r->snap->arena, r->nregs, sizeof *extra) : NULL;
	uint32_t kept = 0, nextra = 0;
	for (uint32_t i = 0; i < r->nregs; i++) {
		const char *named = regset ? sw_snap_named_reg(regset, r->regs[i].name) : NULL;
		if (named && extra)
			extra[nextra++] = (struct sw_named_reg){ named, r->regs[i].value };
		else if (!named)
			r->regs[kept++] = r->regs[i];
	}
	r->nregs = kept;
	t->extra_regs = extra;
	t->nextra_regs = nextra;
}

/* Drops the registers cpu does not have, with a warning: a probe prints
 * every register its target description lists (a RISC-V hart's FPU and
 * a hundred CSRs, a Cortex-M's FPU), which are no fault in the capture. */
static void drop_unknown_regs(struct ol_reader *r, enum sw_cpu cpu, const char *path)
{
	uint32_t kept = 0, dropped = 0;
	const char *first = NULL;
	for (uint32_t i = 0; i < r->nregs; i++) {
		if (ol_reg_known(cpu, r->regs[i].name)) {
			r->regs[kept++] = r->regs[i];
		} else if (dropped++ == 0) {
			first = r->regs[i].name;
		}
	}
	r->nregs = kept;
	if (dropped)
		problem(r, true, "%s: %u registers stackwalk does not use (%s%s): ignored", path,
		        dropped, first, dropped > 1 ? ", ..." : "");
}

/* ---- Modules ---------------------------------------------------------- */

/* The link-time span of an ELF's loadable segments that are not writable:
 * the firmware image in flash. RAM segments (.data, .bss, and often the
 * stack and heap after them) are left out, so that a stack address is
 * never taken for code; an image with no read-only segment (one RWX
 * segment in RAM, as a RISC-V image run from RAM) spans its file bytes. */
static bool image_span(struct sw_elf *elf, uint64_t *lo, uint64_t *hi)
{
	Elf *e = sw_elf_libelf(elf);
	size_t n;
	if (!e || elf_getphdrnum(e, &n) != 0)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		*lo = UINT64_MAX;
		*hi = 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_memsz == 0)
				continue;
			if (pass == 0 && (ph.p_flags & PF_W))
				continue;
			uint64_t size = pass == 0 ? ph.p_memsz : ph.p_filesz;
			if (size == 0 || size - 1 > UINT64_MAX - ph.p_vaddr)
				continue;
			*lo = ph.p_vaddr < *lo ? ph.p_vaddr : *lo;
			*hi = ph.p_vaddr + size > *hi ? ph.p_vaddr + size : *hi;
		}
		if (*lo < *hi)
			return true;
	}
	return false;
}

/* An ELF file that may be a module: where its image lies, its build-id
 * and what the captured memory says of it. */
struct probe_elf {
	const char *path;
	bool named;               /* a symbol path (the command line), not the folder's */
	uint64_t lo, hi;          /* image_span */
	uint64_t file_vaddr;
	uint16_t machine;
	uint8_t word_size;
	const uint8_t *build_id;  /* arena copy, or NULL */
	size_t build_id_len;
	/* The capture against the image's read-only bytes: how many were
	 * compared, and the first address that differs (when differs). */
	uint64_t compared;
	bool differs;
	uint64_t differs_at;
};

/* Compares the read-only loadable bytes of elf (code and constants: they
 * never change while the firmware runs) with every captured memory region
 * that holds some of them: a debug probe that dumped the flash, or a
 * RISC-V image copied to RAM, shows which build ran. At most
 * PROBE_COMPARE_MAX bytes are compared; the first difference ends it. */
enum { PROBE_COMPARE_MAX = 64 << 20, PROBE_COMPARE_CHUNK = 4096 };

static void compare_with_capture(const struct sw_snapshot *s, struct sw_elf *elf,
                                 struct probe_elf *pe)
{
	Elf *e = sw_elf_libelf(elf);
	size_t n;
	if (!e || elf_getphdrnum(e, &n) != 0)
		return;
	uint8_t buf[PROBE_COMPARE_CHUNK];
	for (size_t i = 0; i < n && !pe->differs; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || (ph.p_flags & PF_W) ||
		    ph.p_filesz == 0 || ph.p_filesz - 1 > UINT64_MAX - ph.p_vaddr)
			continue;
		uint64_t seg_lo = ph.p_vaddr, seg_hi = ph.p_vaddr + ph.p_filesz;
		for (uint32_t k = 0; k < s->nmem && !pe->differs; k++) {
			const struct sw_mem_region *m = &s->mem[k];
			uint64_t lo = m->base > seg_lo ? m->base : seg_lo;
			uint64_t m_hi = m->size > UINT64_MAX - m->base ? UINT64_MAX : m->base + m->size;
			uint64_t hi = m_hi < seg_hi ? m_hi : seg_hi;
			for (uint64_t a = lo; a < hi && !pe->differs && pe->compared < PROBE_COMPARE_MAX;) {
				size_t len = hi - a < sizeof buf ? (size_t)(hi - a) : sizeof buf;
				if (!sw_elf_read(elf, a, buf, len))
					break;
				const uint8_t *have = m->data + (a - m->base);
				if (memcmp(buf, have, len) != 0) {
					size_t j = 0;
					while (buf[j] == have[j])
						j++;
					pe->differs = true;
					pe->differs_at = a + j;
				}
				pe->compared += len;
				a += len;
			}
		}
	}
}

/* Reads the ELF at path into *pe: false (with a warning for a folder's
 * file) when it is no firmware image, or (need_pc) when its image does not
 * hold the pc: a symbol path given for another purpose is no module. */
static bool probe_elf_open(struct ol_reader *r, const char *path, bool named, bool has_pc,
                           uint64_t pc, struct probe_elf *pe)
{
	struct sw_snapshot *s = r->snap;
	struct sw_err err = { 0 };
	memset(pe, 0, sizeof *pe);
	struct sw_elf *elf = sw_elf_open_file(path, 0, &err);
	if (!elf) {
		if (!named)
			problem(r, true, "%s: not an ELF file stackwalk reads (%s): no module", path,
			        err.msg);
		return false;
	}
	const struct sw_elf_info *info = sw_elf_info(elf);
	bool ok = info->type == ET_EXEC && image_span(elf, &pe->lo, &pe->hi);
	if (named && (!ok || !has_pc || pc - pe->lo >= pe->hi - pe->lo)) {
		sw_elf_free(elf);
		return false;
	}
	if (!ok) {
		problem(r, true, "%s: not an executable with loadable segments (ET_EXEC): no "
		                 "module",
		        path);
		sw_elf_free(elf);
		return false;
	}
	pe->path = sw_arena_strdup(&s->arena, path);
	pe->named = named;
	pe->file_vaddr = info->file_vaddr;
	pe->machine = info->machine;
	pe->word_size = info->word_size;
	if (info->build_id && info->build_id_len > 0) {
		uint8_t *id = sw_arena_alloc(&s->arena, info->build_id_len);
		if (id) {
			memcpy(id, info->build_id, info->build_id_len);
			pe->build_id = id;
			pe->build_id_len = info->build_id_len;
		}
	}
	compare_with_capture(s, elf, pe);
	sw_elf_free(elf);
	return pe->path != NULL;
}

static bool spans_overlap(const struct probe_elf *a, const struct probe_elf *b)
{
	return a->lo < b->hi && b->lo < a->hi;
}

/* Are a and b one build: the same GNU build-id, or, without one, the
 * same bytes (a firmware copied into the capture's folder)? */
static bool same_build(const struct probe_elf *a, const struct probe_elf *b)
{
	if (a->build_id_len || b->build_id_len)
		return a->build_id_len == b->build_id_len &&
		       memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
	struct sw_mapped_file fa, fb;
	struct sw_err err = { 0 };
	if (sw_map_file(a->path, &fa, &err) != SW_OK)
		return false;
	bool same = false;
	if (sw_map_file(b->path, &fb, &err) == SW_OK) {
		same = fa.size == fb.size && memcmp(fa.data, fb.data, fa.size) == 0;
		sw_unmap_file(&fb);
	}
	sw_unmap_file(&fa);
	return same;
}

static void add_module(struct ol_reader *r, const struct probe_elf *pe)
{
	struct sw_snapshot *s = r->snap;
	if (s->nmodules >= OL_MAX_PROBE_MODULES)
		return;
	uint32_t mi = s->nmodules++;
	struct sw_module *m = &s->modules[mi];
	m->base = pe->lo;
	m->size = pe->hi - pe->lo;
	m->code_file = pe->path;
	m->debug_file = sw_basename(m->code_file);
	m->image_path = m->code_file;
	/* Offsets the providers take are address - base - load_bias, plus
	 * file_vaddr: the link address is the address itself. */
	m->load_bias = pe->file_vaddr - pe->lo;
	if (pe->build_id_len > 0) {
		struct sw_span id = { pe->build_id, pe->build_id_len, 0, false };
		m->code_id = sw_build_id_code_id(&s->arena, id);
		m->debug_id = sw_build_id_debug_id(&s->arena, id);
	}
	r->module_machine[mi] = pe->machine;
	r->module_word_size[mi] = pe->word_size;
}

/* The module already taken that pe overlaps, or NULL. */
static const struct probe_elf *overlapped(const struct probe_elf *taken, uint32_t ntaken,
                                          const struct probe_elf *pe)
{
	for (uint32_t i = 0; i < ntaken; i++)
		if (spans_overlap(&taken[i], pe))
			return &taken[i];
	return NULL;
}

static void warn_differs(struct ol_reader *r, const struct probe_elf *pe)
{
	problem(r, true, "%s: its code differs from the captured memory at 0x%llx: another "
	                 "build than the one that ran?",
	        pe->path, (unsigned long long)pe->differs_at);
}

/* Of the folder's ELF files from `first` on that overlap it (one image
 * address range, several files: an old build left beside the capture),
 * the one the capture proves: the only one whose read-only bytes were
 * compared with captured memory and all equal. None proven, or more than
 * one: the first in name order, with a warning naming them. */
static uint32_t choose_among_overlapping(struct ol_reader *r, const struct probe_elf *elfs,
                                         uint32_t n, uint32_t first, const bool *used)
{
	uint32_t group[OL_MAX_PROBE_MODULES], ng = 0, proven = 0, chosen = first;
	for (uint32_t i = first; i < n; i++)
		if (!used[i] && (i == first || spans_overlap(&elfs[first], &elfs[i])))
			group[ng++] = i;
	if (ng == 1)
		return first;
	for (uint32_t k = 0; k < ng; k++) {
		const struct probe_elf *pe = &elfs[group[k]];
		if (pe->compared > 0 && !pe->differs && proven++ == 0)
			chosen = group[k];
	}
	if (proven == 1)
		return chosen;
	bool compared = false;
	for (uint32_t k = 0; k < ng; k++)
		compared |= elfs[group[k]].compared > 0;
	const char *why = proven > 1  ? "the captured memory matches more than one"
	                  : compared ? "the captured memory matches none of them"
	                             : "the captured memory holds none of their code";
	problem(r, true, "%s, %s%s: %u ELF files of the folder hold 0x%llx-0x%llx and %s: "
	                 "%s is used; give the firmware that ran on the command line",
	        elfs[group[0]].path, sw_basename(elfs[group[1]].path), ng > 2 ? ", ..." : "",
	        ng, (unsigned long long)elfs[first].lo, (unsigned long long)elfs[first].hi, why,
	        sw_basename(elfs[first].path));
	return first;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* The modules. An ELF executable named as a symbol path (a file, not a
 * folder) whose image holds the pc comes first and wins: what the user
 * names is the firmware that ran, whatever lies in the folder. Then each
 * *.elf of the folder (in name order) at addresses no module has yet; of
 * several at the same addresses, the one the captured memory proves
 * (choose_among_overlapping). A folder's ELF that a named file displaces
 * is said only when it is another build. */
static void find_probe_modules(struct ol_reader *r, const struct sw_open_options *opts,
                               bool has_pc, uint64_t pc)
{
	struct sw_snapshot *s = r->snap;
	s->modules = sw_arena_array(&s->arena, OL_MAX_PROBE_MODULES, sizeof *s->modules);
	r->module_machine = sw_arena_array(&s->arena, OL_MAX_PROBE_MODULES, sizeof(uint16_t));
	r->module_word_size = sw_arena_array(&s->arena, OL_MAX_PROBE_MODULES, sizeof(uint8_t));
	char **names = sw_arena_array(&s->arena, OL_MAX_PROBE_MODULES, sizeof *names);
	struct probe_elf *taken = sw_arena_array(&s->arena, OL_MAX_PROBE_MODULES, sizeof *taken);
	struct probe_elf *folder = sw_arena_array(&s->arena, OL_MAX_PROBE_MODULES, sizeof *folder);
	bool *used = sw_arena_array(&s->arena, OL_MAX_PROBE_MODULES, sizeof *used);
	if (!s->modules || !r->module_machine || !r->module_word_size || !names || !taken ||
	    !folder || !used) {
		s->modules = NULL;
		problem(r, false, "%s: out of memory for the modules", r->dir);
		return;
	}
	uint32_t ntaken = 0;
	for (size_t i = 0; opts && i < opts->nsearch_paths && ntaken < OL_MAX_PROBE_MODULES; i++) {
		struct stat st;
		const char *p = opts->search_paths[i];
		struct probe_elf pe;
		if (!p || stat(p, &st) != 0 || !S_ISREG(st.st_mode) ||
		    !probe_elf_open(r, p, true, has_pc, pc, &pe))
			continue;
		const struct probe_elf *over = overlapped(taken, ntaken, &pe);
		if (over) {
			if (!same_build(over, &pe))
				problem(r, true, "%s: 0x%llx-0x%llx overlaps %s, named before it: no "
				                 "module",
				        p, (unsigned long long)pe.lo, (unsigned long long)pe.hi,
				        over->path);
			continue;
		}
		if (pe.differs)
			warn_differs(r, &pe);
		taken[ntaken++] = pe;
	}

	uint32_t n = 0, nfolder = 0;
	DIR *d = opendir(r->dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL && n < OL_MAX_PROBE_MODULES)
		if (ends_with(e->d_name, ".elf"))
			names[n++] = sw_arena_printf(&s->arena, "%s/%s", r->dir, e->d_name);
	if (d)
		closedir(d);
	qsort(names, n, sizeof *names, compare_names);
	for (uint32_t i = 0; i < n; i++) {
		if (!names[i] || !probe_elf_open(r, names[i], false, has_pc, pc, &folder[nfolder]))
			continue;
		const struct probe_elf *over = overlapped(taken, ntaken, &folder[nfolder]);
		if (over && over->named) {
			/* The named file wins; the same build copied into the
			 * folder is one module, said nothing about. */
			if (!same_build(over, &folder[nfolder]))
				problem(r, true, "%s: another build than %s, which the command line "
				                 "names and which is used",
				        folder[nfolder].path, over->path);
			continue;
		}
		nfolder++;
	}
	for (uint32_t i = 0; i < nfolder && ntaken < OL_MAX_PROBE_MODULES; i++) {
		if (used[i])
			continue;
		uint32_t c = choose_among_overlapping(r, folder, nfolder, i, used);
		for (uint32_t k = i; k < nfolder; k++)
			if (!used[k] && (k == i || spans_overlap(&folder[i], &folder[k])))
				used[k] = true;
		const struct probe_elf *over = overlapped(taken, ntaken, &folder[c]);
		if (over) {
			problem(r, true, "%s: 0x%llx-0x%llx overlaps %s: no module", folder[c].path,
			        (unsigned long long)folder[c].lo, (unsigned long long)folder[c].hi,
			        over->path);
			continue;
		}
		if (folder[c].differs)
			warn_differs(r, &folder[c]);
		taken[ntaken++] = folder[c];
	}
	/* The named ones first (sw_snapshot_finish indexes them by address). */
	for (uint32_t i = 0; i < ntaken; i++)
		add_module(r, &taken[i]);
}

/* ---- The crash --------------------------------------------------------- */

enum {
	XPSR_IPSR = 0x1ff,            /* ARMv7-M ARM B1.4.2: the exception number */
	CFSR_MMARVALID = 1u << 7,     /* B3.2.15: MMFAR holds the address */
	CFSR_BFARVALID = 1u << 15,    /* BFAR holds the address */
};

/* The crash the registers tell, as a .snap's CRASH record would give it
 * (docs/snap-format.md; lib/crash_reason.c names it from code and flags):
 * on a Cortex-M halted in a handler (IPSR not 0), the exception number,
 * CFSR as the flags and the fault address MMFAR or BFAR holds when CFSR
 * says it is valid; on RISC-V, mcause (its interrupt bit moved to bit 31,
 * as lib/crash_reason.c reads a 32-bit code) and mtval. A Cortex-M in
 * Thread mode, or a RISC-V capture without mcause, has none: the target
 * was halted, not trapped. The crashing thread is the probe's, id 0. */
static void derive_crash(struct sw_snapshot *s, const struct sw_thread *t, bool cortex_m)
{
	uint64_t v, xlen_top;
	struct sw_crash *c = &s->crash;
	if (cortex_m) {
		if (!sw_thread_extra_reg(t, "xpsr", &v) || (v & XPSR_IPSR) == 0)
			return;
		c->code = (uint32_t)(v & XPSR_IPSR);
		if (sw_thread_extra_reg(t, "cfsr", &v))
			c->flags = (uint32_t)v;
		if ((c->flags & CFSR_MMARVALID) && sw_thread_extra_reg(t, "mmfar", &v))
			c->address = v;
		else if ((c->flags & CFSR_BFARVALID) && sw_thread_extra_reg(t, "bfar", &v))
			c->address = v;
	} else if (s->sys.cpu == SW_CPU_RISCV32 || s->sys.cpu == SW_CPU_RISCV64) {
		if (!sw_thread_extra_reg(t, "mcause", &v))
			return;
		/* Privileged ISA, "Machine Cause Register": bit XLEN-1 is Interrupt. */
		xlen_top = (uint64_t)1 << (s->sys.word_size == 8 ? 63 : 31);
		c->code = (uint32_t)(v & 0x7fffffffu) | (v & xlen_top ? 0x80000000u : 0);
		if (sw_thread_extra_reg(t, "mtval", &v))
			c->address = v;
	} else {
		return;
	}
	c->present = true;
	c->thread_id = t->id;
}

/* ---- The capture ------------------------------------------------------ */

void ol_read_probe(struct ol_reader *r, const char *regs_path, const struct sw_open_options *opts,
                   struct sw_thread *t)
{
	struct sw_snapshot *s = r->snap;
	for (uint32_t i = 0; i < r->nregs; i++)
		r->regs[i].name = probe_reg_name(&s->arena, r->regs[i].name);
	/* x0-x30 are also AArch64's names: x-names are RISC-V's only beside
	 * what AArch64 has not, x31, zero or a machine-mode CSR. */
	if (has_reg(r, "x31") || has_reg(r, "zero") || has_reg(r, "mepc") || has_reg(r, "mcause") ||
	    has_reg(r, "mstatus"))
		for (uint32_t i = 0; i < r->nregs; i++)
			r->regs[i].name = riscv_abi_name(r->regs[i].name);
	bool cortex_m;
	enum sw_cpu guess = probe_cpu(r, &cortex_m);
	uint16_t regset = probe_regset(guess, cortex_m);
	take_named_regs(r, regset, t);
	const struct sw_arch *ga = sw_arch_for_cpu(guess);

	read_probe_memory(r, ga ? ga->word_size : 0);
	uint64_t pc = 0;
	bool has_pc = guess != SW_CPU_UNKNOWN && ol_regs_pc(r, guess, &pc);
	if (!has_pc && regset == SNAP_REGSET_RISCV)
		has_pc = sw_thread_extra_reg(t, "mepc", &pc);
	find_probe_modules(r, opts, has_pc, pc);
	if (s->nmodules == 0)
		problem(r, true, "%s: no ELF holds the pc: give the firmware's ELF as a symbol "
		                 "path (stackwalk %s firmware.elf)",
		        r->dir, r->dir);

	enum sw_cpu cpu = ol_choose_cpu(r, regs_path, guess);
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	s->sys.os = SW_OS_NONE;
	s->sys.os_name = "Bare metal";
	s->sys.cpu = cpu;
	s->sys.cpu_name = a ? a->name : "unknown";
	s->sys.word_size = a ? a->word_size : 0;
	s->sys.cpu_count = 1;
	/* Cortex-M and RISC-V microcontrollers are little-endian. */
	s->sys.big_endian = false;
	if (cortex_m && cpu == SW_CPU_ARM)
		s->sys.arm_profile = 'M';

	t->id = 0;
	t->cpu = cpu;
	if (cpu != SW_CPU_UNKNOWN)
		drop_unknown_regs(r, cpu, regs_path);
	ol_regs_context(r, cpu, regs_path, &t->ctx);
	if (a)
		sw_snap_context_from_named(probe_regset(cpu, cortex_m), a, t);
	derive_crash(s, t, cortex_m && cpu == SW_CPU_ARM);
}
