/* ELF core reader, the file: the ELF header, the program headers, the
 * memory (PT_LOAD), the system info, the crash, and the order of the
 * work: memory first (the notes' strings and the modules are read from
 * it), then the notes, then the modules.
 *
 * The layout is the System V gABI's ("ELF Header", "Program Header");
 * what a core holds is Linux's fs/binfmt_elf.c (elf_core_dump: one
 * PT_NOTE, then one PT_LOAD per mapping, p_filesz 0 or shorter than
 * p_memsz where the kernel left pages out). */
#include "elfcore.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch/registry.h"
#include "elfcore_internal.h"
#include "lib/mapped_file.h"
#include "open.h"

/* e_ident and e_type (same offsets in both classes). */
bool sw_elfcore_is(const uint8_t *data, size_t size)
{
	if (!data || size < EI_NIDENT + 2 || memcmp(data, ELFMAG, SELFMAG) != 0)
		return false;
	uint8_t cls = data[EI_CLASS], order = data[EI_DATA];
	if ((cls != ELFCLASS32 && cls != ELFCLASS64) ||
	    (order != ELFDATA2LSB && order != ELFDATA2MSB))
		return false;
	struct sw_span s = { data, size, 0, order == ELFDATA2MSB };
	return sw_u16(s, offsetof(Elf64_Ehdr, e_type)) == ET_CORE;
}

/* ---- The file and program headers ------------------------------------ */

/* The ELF header's fields the reader uses, from either class. */
struct ec_ehdr {
	uint64_t phoff, shoff;
	uint32_t phnum;
	uint16_t phentsize, shentsize;
};

static bool read_ehdr(struct ec_reader *r, struct ec_ehdr *h)
{
	struct sw_span f = r->file;
	bool is64 = r->word == 8;
	uint64_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (!sw_span_has(f, 0, ehsize)) {
		problem(r, false, "%llu bytes: shorter than an ELF header", (unsigned long long)f.size);
		return false;
	}
	r->machine = sw_u16(f, offsetof(Elf64_Ehdr, e_machine));
	if (is64) {
		h->phoff = sw_u64(f, offsetof(Elf64_Ehdr, e_phoff));
		h->shoff = sw_u64(f, offsetof(Elf64_Ehdr, e_shoff));
		r->e_flags = sw_u32(f, offsetof(Elf64_Ehdr, e_flags));
		h->phentsize = sw_u16(f, offsetof(Elf64_Ehdr, e_phentsize));
		h->phnum = sw_u16(f, offsetof(Elf64_Ehdr, e_phnum));
		h->shentsize = sw_u16(f, offsetof(Elf64_Ehdr, e_shentsize));
	} else {
		h->phoff = sw_u32(f, offsetof(Elf32_Ehdr, e_phoff));
		h->shoff = sw_u32(f, offsetof(Elf32_Ehdr, e_shoff));
		r->e_flags = sw_u32(f, offsetof(Elf32_Ehdr, e_flags));
		h->phentsize = sw_u16(f, offsetof(Elf32_Ehdr, e_phentsize));
		h->phnum = sw_u16(f, offsetof(Elf32_Ehdr, e_phnum));
		h->shentsize = sw_u16(f, offsetof(Elf32_Ehdr, e_shentsize));
	}
	/* gABI "Extended numbering": with more than 0xfffe program headers
	 * e_phnum is PN_XNUM and the count is section header 0's sh_info. */
	if (h->phnum == PN_XNUM) {
		uint64_t at = h->shoff + (is64 ? offsetof(Elf64_Shdr, sh_info)
		                               : offsetof(Elf32_Shdr, sh_info));
		if (h->shoff == 0 || !sw_span_has(f, at, 4)) {
			problem(r, false, "e_phnum is PN_XNUM but section header 0 is not in "
			                  "the file: no program header read");
			return false;
		}
		h->phnum = sw_u32(f, at);
	}
	uint64_t want = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (h->phentsize < want) {
		problem(r, false, "e_phentsize %u is smaller than a program header (%llu)",
		        h->phentsize, (unsigned long long)want);
		return false;
	}
	return true;
}

static void read_phdr(const struct ec_reader *r, struct sw_span ph, uint32_t *type,
                      struct ec_load *l)
{
	*type = sw_u32(ph, 0);
	if (r->word == 8) {
		l->flags = sw_u32(ph, offsetof(Elf64_Phdr, p_flags));
		l->offset = sw_u64(ph, offsetof(Elf64_Phdr, p_offset));
		l->vaddr = sw_u64(ph, offsetof(Elf64_Phdr, p_vaddr));
		l->filesz = sw_u64(ph, offsetof(Elf64_Phdr, p_filesz));
		l->memsz = sw_u64(ph, offsetof(Elf64_Phdr, p_memsz));
	} else {
		l->offset = sw_u32(ph, offsetof(Elf32_Phdr, p_offset));
		l->vaddr = sw_u32(ph, offsetof(Elf32_Phdr, p_vaddr));
		l->filesz = sw_u32(ph, offsetof(Elf32_Phdr, p_filesz));
		l->memsz = sw_u32(ph, offsetof(Elf32_Phdr, p_memsz));
		l->flags = sw_u32(ph, offsetof(Elf32_Phdr, p_flags));
	}
}

/* The program headers that fit in the file: PT_LOAD ones kept in
 * r->loads, PT_NOTE ones in *notes (both arena arrays). */
static void read_phdrs(struct ec_reader *r, const struct ec_ehdr *h, struct ec_load **notes,
                       uint32_t *nnotes)
{
	struct sw_snapshot *s = r->snap;
	uint64_t n = h->phnum;
	uint64_t room = h->phoff <= r->file.size ? (r->file.size - h->phoff) / h->phentsize : 0;
	if (n > room) {
		problem(r, false, "%llu program headers at 0x%llx, but the file holds %llu: "
		                  "the rest ignored",
		        (unsigned long long)n, (unsigned long long)h->phoff,
		        (unsigned long long)room);
		n = room;
	}
	if (n > EC_MAX_LOADS)
		n = EC_MAX_LOADS;
	*nnotes = 0;
	if (n == 0)
		return;
	r->loads = sw_arena_array(&s->arena, (size_t)n, sizeof *r->loads);
	*notes = sw_arena_array(&s->arena, (size_t)n, sizeof **notes);
	if (!r->loads || !*notes) {
		problem(r, false, "out of memory for %llu program headers", (unsigned long long)n);
		r->loads = NULL;
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct sw_span ph;
		if (!sw_span_sub(r->file, h->phoff + i * h->phentsize, h->phentsize, &ph))
			break;
		uint32_t type;
		struct ec_load l;
		read_phdr(r, ph, &type, &l);
		if (type == PT_LOAD)
			r->loads[r->nloads++] = l;
		else if (type == PT_NOTE)
			(*notes)[(*nnotes)++] = l;
	}
}

/* One region per PT_LOAD with file bytes: only p_filesz of p_memsz was
 * written; the rest is absent (not zeros), so the region ends there. */
static void read_memory(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	if (r->nloads == 0)
		return;
	s->mem = sw_arena_array(&s->arena, r->nloads, sizeof *s->mem);
	if (!s->mem) {
		problem(r, false, "out of memory for %u memory segments", r->nloads);
		return;
	}
	uint64_t top = r->word == 4 ? UINT32_MAX : UINT64_MAX;
	for (uint32_t i = 0; i < r->nloads; i++) {
		const struct ec_load *l = &r->loads[i];
		uint64_t len = l->filesz;
		if (len == 0)
			continue;
		if (len > l->memsz) {
			problem(r, true, "PT_LOAD at 0x%llx: p_filesz 0x%llx exceeds p_memsz "
			                 "0x%llx: cut to p_memsz",
			        (unsigned long long)l->vaddr, (unsigned long long)len,
			        (unsigned long long)l->memsz);
			len = l->memsz;
		}
		if (l->vaddr > top || len - 1 > top - l->vaddr) {
			problem(r, false, "PT_LOAD at 0x%llx, 0x%llx bytes: runs past the end of "
			                  "the address space: ignored",
			        (unsigned long long)l->vaddr, (unsigned long long)len);
			continue;
		}
		struct sw_span seg = sw_span_clip(r->file, l->offset, len);
		if (seg.size < len) {
			problem(r, false, "PT_LOAD at 0x%llx: 0x%llx bytes at file offset 0x%llx, "
			                  "but the file holds 0x%llx of them (a truncated core): "
			                  "the rest is absent",
			        (unsigned long long)l->vaddr, (unsigned long long)len,
			        (unsigned long long)l->offset, (unsigned long long)seg.size);
		}
		if (seg.size == 0)
			continue;
		s->mem[s->nmem++] = (struct sw_mem_region){ l->vaddr, seg.size, seg.data };
	}
}

/* ---- System info and the crash --------------------------------------- */

static void set_system_info(struct ec_reader *r)
{
	struct sw_system_info *sys = &r->snap->sys;
	sys->os = r->netbsd ? SW_OS_NETBSD : SW_OS_LINUX;
	sys->os_name = r->netbsd ? "NetBSD" : "Linux";
	sys->cpu = r->cpu;
	sys->cpu_name = r->cpu_name;
	sys->word_size = r->word;
	const struct sw_arch *a = sw_arch_for_cpu(r->cpu);
	if (a)
		sys->word_size = a->word_size;
	sys->big_endian = r->file.big_endian;
	if (r->auxv.has_platform)
		sys->cpu_info = ec_mem_string(r, r->auxv.platform, 64);
}

/* The executable's path (docs/json.md, "process"): AT_EXECFN, the path
 * execve(2) was given, as the process's stack kept it (the kernel puts
 * it there for the dynamic loader); else the main module's path from
 * NT_FILE or the link map. pr_fname is no path (the command's first 15
 * bytes) and is not used. */
static void set_executable(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	if (r->auxv.has_execfn)
		s->executable = ec_mem_string(r, r->auxv.execfn, EC_MAX_PATH);
	if (!s->executable && s->main_module >= 0 && (uint32_t)s->main_module < s->nmodules)
		s->executable = s->modules[s->main_module].code_file;
}

/* The thread the signal was delivered to: the one whose pr_cursig is set
 * (the kernel sets it in the dumping thread only), else the first;
 * NetBSD's procinfo names the LWP (cpi_siglwp; 0: process-wide). */
static int32_t crashing_thread(const struct ec_reader *r)
{
	const struct sw_snapshot *s = r->snap;
	if (s->nthreads == 0)
		return -1;
	if (r->netbsd) {
		for (uint32_t i = 0; i < s->nthreads; i++)
			if (r->nb_siglwp != 0 && s->threads[i].id == r->nb_siglwp)
				return (int32_t)i;
		return 0;
	}
	for (uint32_t i = 0; i < s->nthreads; i++)
		if (r->cursig[i] != 0)
			return (int32_t)i;
	return 0;
}

/* The crashing thread's NT_SIGINFO, else the only one there is (a
 * kernel core's follows the dumping thread's registers; a gcore has one
 * per thread, and the others' say gdb's SIGSTOP). */
static const struct ec_siginfo *crash_siginfo(const struct ec_reader *r, int32_t t)
{
	if (t >= 0 && r->thread_notes[t].siginfo.present)
		return &r->thread_notes[t].siginfo;
	const struct ec_siginfo *only = r->siginfo.present ? &r->siginfo : NULL;
	for (uint32_t i = 0; i < r->snap->nthreads; i++) {
		if (!r->thread_notes[i].siginfo.present)
			continue;
		if (only)
			return NULL;
		only = &r->thread_notes[i].siginfo;
	}
	return only;
}

static void set_crash(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	int32_t t = crashing_thread(r);
	uint32_t sig = 0, code = 0;
	uint64_t addr = 0;
	const struct ec_siginfo *si = crash_siginfo(r, t);
	if (si) {
		sig = si->signo;
		code = si->code;
		addr = si->has_addr ? si->addr : 0;
	} else if (r->netbsd && r->has_nb_proc) {
		sig = r->nb_signo;
		code = r->nb_sigcode;
	} else if (t >= 0) {
		sig = r->cursig[t];
	}
	if (sig == 0 || t < 0)
		return;
	s->crash.present = true;
	s->crash.thread_id = s->threads[t].id;
	s->crash.code = sig;
	s->crash.flags = code;
	s->crash.address = addr;
	s->crash.ctx = s->threads[t].ctx;
	s->has_requesting_thread_id = true;
	s->requesting_thread_id = s->threads[t].id;
}

/* ---- The reader ------------------------------------------------------ */

static enum sw_err_code verdict(const struct ec_reader *r, struct sw_err *err)
{
	return sw_snapshot_verdict(r->snap, r->path, r->what, r->damage, err);
}

enum sw_err_code sw_elfcore_read(const char *path, const struct sw_open_options *opts,
                                 struct sw_snapshot *out, struct sw_err *err)
{
	static const struct sw_reader_entry entry = {
		.format = "elfcore",
		/* A core holds no file-backed code (the kernel's default
		 * coredump_filter leaves it out), and on Linux the modules'
		 * files are at hand to supply it: a scanned word must be proven
		 * by the code before it, never taken on Breakpad's rule alone
		 * (which, on a core without its program, takes stale ld.so
		 * words and the auxiliary vector above _start for frames). */
		.scans_need_code = true,
		/* The magic: sw_elfcore_read_image's, which an ESP-IDF core
		 * dump's ELF core passes through as well. */
	};
	struct sw_span core;
	enum sw_err_code rc = sw_reader_begin(path, opts, &entry, out, &core, err);
	if (rc != SW_OK)
		return rc;
	return sw_elfcore_read_image(path, opts, core, NULL, out, err);
}

enum sw_err_code sw_elfcore_read_image(const char *path, const struct sw_open_options *opts,
                                       struct sw_span core, const struct sw_elfcore_outer *outer,
                                       struct sw_snapshot *out, struct sw_err *err)
{
	const char *what = outer && outer->what ? outer->what : "ELF core";
	if (!sw_elfcore_is(core.data, (size_t)core.size))
		return sw_err_set(err, SW_ERR_FORMAT, "%s: %s: not an ELF core", path, what);
	struct ec_reader r = { .snap = out, .opts = opts, .path = path, .what = what,
	                       .outer = outer, .damage = outer ? outer->damage : 0 };
	r.file = (struct sw_span){ core.data, core.size, 0, core.data[EI_DATA] == ELFDATA2MSB };
	r.word = core.data[EI_CLASS] == ELFCLASS64 ? 8 : 4;

	struct ec_ehdr h;
	if (!read_ehdr(&r, &h))
		return verdict(&r, err);
	r.cpu = ec_cpu_of(r.machine, r.word, &r.cpu_name);
	struct ec_load *notes = NULL;
	uint32_t nnotes = 0;
	read_phdrs(&r, &h, &notes, &nnotes);
	read_memory(&r);
	sw_snapshot_finish(out);

	/* The notes, twice: to count the threads, then to read them. */
	r.notes = notes;
	r.nnotes = nnotes;
	if (nnotes == 0)
		problem(&r, false, "no PT_NOTE: no thread, no register");
	r.thread_cap = ec_count_threads(&r);
	if (r.thread_cap) {
		out->threads = sw_arena_array(&out->arena, r.thread_cap, sizeof *out->threads);
		r.cursig = sw_arena_array(&out->arena, r.thread_cap, sizeof *r.cursig);
		r.thread_notes = sw_arena_array(&out->arena, r.thread_cap, sizeof *r.thread_notes);
		if (!out->threads || !r.cursig || !r.thread_notes) {
			out->threads = NULL;
			r.thread_cap = 0;
			problem(&r, false, "out of memory for the threads");
		}
	}
	ec_read_notes(&r);
	set_system_info(&r);
	/* ESP-IDF's tasks get their registers from elfcore_esp.c, and a CPU
	 * without a register table has none to read (said below). */
	bool esp = r.esp.present || (outer && outer->has_esp_version);
	if (nnotes > 0)
		ec_check_thread_registers(&r, !esp && r.cpu != SW_CPU_UNKNOWN);
	if (r.cpu == SW_CPU_UNKNOWN)
		problem(&r, true, "%s: CPU not supported: %u thread(s) listed with no "
		                   "walkable context",
		        r.cpu_name, out->nthreads);
	/* An ESP-IDF image's core is one even when its notes were cut off. */
	if (r.esp.present || (outer && outer->has_esp_version)) {
		ec_esp_finish(&r);
	} else {
		set_crash(&r);
		ec_find_modules(&r);
		set_executable(&r);
	}
	sw_snapshot_finish(out);
	return verdict(&r, err);
}
