/* The offline reader, the folder: which files it holds, the memory files
 * (stack.data and the like), the system info, and the order of the work:
 * registers, memory, maps, modules, then the CPU check against the ELF
 * that holds the pc. The folder's layout is libunwindstack's offline
 * unwind tests' (libunwindstack/tests/UnwindOfflineTest.cpp,
 * offline_files/) and simpleperf's; docs/offline-format.md describes it
 * for users. */
#include "offline.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/registry.h"
#include "lib/hex.h"
#include "lib/mapped_file.h"
#include "offline_internal.h"
#include "proc_maps.h"

enum {
	OL_MAX_MEMORY_FILES = 1024,
	OL_ADDR_SIZE = 8,               /* the start address before the bytes */
};

/* ---- The folder -------------------------------------------------------- */

static bool is_file_in(const char *dir, const char *name)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
		return false;
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool sw_offline_is_folder(const char *dir)
{
	struct stat st;
	return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && is_file_in(dir, "regs.txt") &&
	       (is_file_in(dir, "maps.txt") || ol_folder_has_probe_memory(dir));
}

/* Maps a text file into *m; false with *err set when it cannot. */
static bool map_text(const char *path, struct sw_mapped_file *m, struct sw_err *err)
{
	memset(m, 0, sizeof *m);
	return sw_map_file(path, m, err) == SW_OK;
}

/* The mapped text as a span; an empty file maps to no memory, and a span
 * is never cut from a null pointer. */
static struct sw_span text_span(const struct sw_mapped_file *m)
{
	static const uint8_t empty[1];
	return (struct sw_span){ m->data ? m->data : empty, m->data ? m->size : 0, 0, false };
}

/* Is name one of the memory files libunwindstack loads: the regular
 * expression ^(descriptor|stack|entry|jit)\d*\.data$? */
static bool is_memory_file(const char *name)
{
	static const char *const stems[] = { "descriptor", "stack", "entry", "jit" };
	for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
		size_t n = strlen(stems[i]);
		if (strncmp(name, stems[i], n) != 0)
			continue;
		const char *p = name + n;
		while (*p >= '0' && *p <= '9')
			p++;
		return strcmp(p, ".data") == 0;
	}
	return false;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The memory files of the folder, sorted by name (in the arena); their
 * count in *n. */
static char **list_memory_files(struct ol_reader *r, uint32_t *n)
{
	*n = 0;
	DIR *d = opendir(r->dir);
	if (!d) {
		problem(r, false, "%s: cannot list the folder: %s", r->dir, strerror(errno));
		return NULL;
	}
	char **names = sw_arena_array(&r->snap->arena, OL_MAX_MEMORY_FILES, sizeof *names);
	struct dirent *e;
	bool told = false;
	while (names && (e = readdir(d)) != NULL) {
		if (!is_memory_file(e->d_name))
			continue;
		if (*n >= OL_MAX_MEMORY_FILES) {
			if (!told)
				problem(r, false, "%s: more than %d memory files: the rest ignored",
				        r->dir, OL_MAX_MEMORY_FILES);
			told = true;
			continue;
		}
		names[*n] = sw_arena_strdup(&r->snap->arena, e->d_name);
		if (names[*n])
			(*n)++;
	}
	closedir(d);
	if (names && *n > 1)
		qsort(names, *n, sizeof *names, compare_names);
	return names;
}

/* Reads exactly len bytes at file offset off; how many it got. */
static uint64_t read_at(int fd, uint8_t *buf, uint64_t len, uint64_t off)
{
	uint64_t got = 0;
	while (got < len) {
		ssize_t k = pread(fd, buf + got, (size_t)(len - got), (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (uint64_t)k;
	}
	return got;
}

const uint8_t *ol_read_file(struct ol_reader *r, const char *path, uint64_t off, uint64_t len,
                            uint64_t *got)
{
	*got = 0;
	unsigned mode;
	int fd = sw_open_regular_file(path, &mode);
	if (fd < 0) {
		problem(r, false, "%s: cannot open: %s", path,
		        mode ? "not a regular file" : strerror(errno));
		return NULL;
	}
	uint8_t *data = sw_arena_alloc(&r->snap->arena, (size_t)len);
	if (!data) {
		problem(r, false, "%s: out of memory for 0x%llx bytes", path, (unsigned long long)len);
		close(fd);
		return NULL;
	}
	*got = read_at(fd, data, len, off);
	close(fd);
	if (*got < len)
		problem(r, false, "%s: read 0x%llx of 0x%llx bytes (the file shrank?)", path,
		        (unsigned long long)*got, (unsigned long long)len);
	return *got ? data : NULL;
}

/* One memory file: its start address, then the bytes (copied into the
 * arena: the snapshot maps no file of a folder). */
static void read_memory_file(struct ol_reader *r, const char *name, uint64_t *total)
{
	struct sw_snapshot *s = r->snap;
	const char *path = sw_arena_printf(&s->arena, "%s/%s", r->dir, name);
	if (!path)
		return;
	unsigned mode;
	int fd = sw_open_regular_file(path, &mode);
	if (fd < 0) {
		problem(r, false, "%s: cannot open: %s", path,
		        mode ? "not a regular file" : strerror(errno));
		return;
	}
	struct stat st = { 0 };
	uint8_t head[OL_ADDR_SIZE];
	if (fstat(fd, &st) != 0 || st.st_size < OL_ADDR_SIZE ||
	    read_at(fd, head, OL_ADDR_SIZE, 0) != OL_ADDR_SIZE) {
		problem(r, false, "%s: %lld bytes: shorter than the 8-byte start address that "
		                  "begins a memory file: ignored",
		        path, (long long)st.st_size);
		close(fd);
		return;
	}
	struct sw_span h = { head, sizeof head, 0, false };
	uint64_t base = sw_u64(h, 0);
	uint64_t len = (uint64_t)st.st_size - OL_ADDR_SIZE;
	if (len == 0) {
		problem(r, true, "%s: no bytes after the start address 0x%llx", path,
		        (unsigned long long)base);
		close(fd);
		return;
	}
	if (len > OL_MAX_MEMORY - *total) {
		problem(r, false, "%s: 0x%llx bytes: more memory than stackwalk reads from a "
		                  "folder (%llu MiB in all): ignored",
		        path, (unsigned long long)len, (unsigned long long)(OL_MAX_MEMORY >> 20));
		close(fd);
		return;
	}
	if (len - 1 > UINT64_MAX - base) {
		problem(r, false, "%s: 0x%llx bytes from 0x%llx run past the end of the address "
		                  "space: cut there",
		        path, (unsigned long long)len, (unsigned long long)base);
		len = UINT64_MAX - base + 1;
	}
	close(fd);
	uint64_t got;
	const uint8_t *data = ol_read_file(r, path, OL_ADDR_SIZE, len, &got);
	if (!data)
		return;
	*total += got;
	s->mem[s->nmem++] = (struct sw_mem_region){ base, got, data };
}

static void read_memory(struct ol_reader *r)
{
	uint32_t n;
	char **names = list_memory_files(r, &n);
	if (!names)
		return;
	if (n == 0) {
		problem(r, true, "%s: no stack.data or stackN.data: no memory, only the "
		                 "registers' frame can be found",
		        r->dir);
		return;
	}
	r->snap->mem = sw_arena_array(&r->snap->arena, n, sizeof *r->snap->mem);
	if (!r->snap->mem)
		return;
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		read_memory_file(r, names[i], &total);
}

/* ---- System info and the thread -------------------------------------- */

static bool is_android_path(const char *p)
{
	return strncmp(p, "/system/", 8) == 0 || strncmp(p, "/apex/", 6) == 0 ||
	       strncmp(p, "/vendor/", 8) == 0 || strncmp(p, "/product/", 9) == 0 ||
	       strstr(p, ".apk") != NULL;
}

static void set_system_info(struct ol_reader *r, enum sw_cpu cpu)
{
	struct sw_snapshot *s = r->snap;
	struct sw_system_info *sys = &s->sys;
	sys->os = SW_OS_LINUX;
	sys->os_name = "Linux";
	for (uint32_t i = 0; i < s->nmaps; i++)
		if (s->maps[i].path && is_android_path(s->maps[i].path)) {
			sys->os = SW_OS_ANDROID;
			sys->os_name = "Android";
			break;
		}
	const struct sw_arch *a = sw_arch_for_cpu(cpu);
	sys->cpu = cpu;
	sys->cpu_name = a ? a->name : "unknown";
	sys->word_size = a ? a->word_size : 0;
	/* Every CPU libunwindstack and simpleperf run on is little-endian,
	 * and the memory files' start addresses are little-endian. */
	sys->big_endian = false;
	sys->cpu_count = 1;
}

/* The module holding addr, by a linear search (the index is built by
 * sw_snapshot_finish, at the end). */
static int32_t module_holding(const struct sw_snapshot *s, uint64_t addr)
{
	for (uint32_t i = 0; i < s->nmodules; i++)
		if (addr - s->modules[i].base < s->modules[i].size)
			return (int32_t)i;
	return -1;
}

enum sw_cpu ol_choose_cpu(struct ol_reader *r, const char *regs_path, enum sw_cpu cpu)
{
	struct sw_snapshot *s = r->snap;
	uint64_t pc;
	if (cpu == SW_CPU_UNKNOWN) {
		problem(r, false, "%s: no register names a CPU stackwalk knows: no context",
		        regs_path);
		return cpu;
	}
	if (!ol_regs_pc(r, cpu, &pc)) {
		problem(r, true, "%s: no pc: the CPU is told by the register names only",
		        regs_path);
		return cpu;
	}
	int32_t m = module_holding(s, pc);
	if (m < 0 || !r->module_machine[m])
		return cpu;
	enum sw_cpu elf_cpu = ol_elf_cpu(r->module_machine[m], r->module_word_size[m]);
	if (elf_cpu != SW_CPU_UNKNOWN && elf_cpu != cpu) {
		const struct sw_arch *a = sw_arch_for_cpu(cpu), *b = sw_arch_for_cpu(elf_cpu);
		problem(r, false, "%s: the register names say %s but %s, which holds the pc, is "
		                  "%s code: read as %s",
		        regs_path, a ? a->name : "?", s->modules[m].code_file,
		        b ? b->name : "?", b ? b->name : "?");
		cpu = elf_cpu;
	}
	return cpu;
}

/* ---- The reader ------------------------------------------------------ */

static enum sw_err_code verdict(const char *dir, const struct ol_reader *r, struct sw_err *err)
{
	return sw_snapshot_verdict(r->snap, dir, "offline snapshot", r->damage, err);
}

enum sw_err_code sw_offline_read(const char *dir, struct sw_snapshot *out, struct sw_err *err)
{
	return sw_offline_read_with(dir, NULL, out, err);
}

/* A debug probe's capture (offline_probe.c): one thread, the registers,
 * the memory files and the ELF files as modules. */
static void read_probe_folder(struct ol_reader *r, const char *regs_path,
                              const struct sw_open_options *opts)
{
	struct sw_snapshot *s = r->snap;
	s->format = "probe";
	s->threads = sw_arena_alloc(&s->arena, sizeof *s->threads);
	if (!s->threads) {
		problem(r, false, "%s: out of memory", r->dir);
		return;
	}
	s->nthreads = 1;
	ol_read_probe(r, regs_path, opts, &s->threads[0]);
	s->has_requesting_thread_id = true;
	s->requesting_thread_id = 0;
}

enum sw_err_code sw_offline_read_with(const char *dir, const struct sw_open_options *opts,
                                      struct sw_snapshot *out, struct sw_err *err)
{
	sw_snapshot_init(out, dir);
	out->format = "offline";
	out->scans_need_code = true;
	struct stat st;
	if (stat(dir, &st) != 0)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot open: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sw_err_set(err, SW_ERR_FORMAT, "%s: not a folder", dir);
	struct ol_reader r = { .snap = out, .dir = dir };
	const char *regs_path = sw_arena_printf(&out->arena, "%s/regs.txt", dir);
	const char *maps_path = sw_arena_printf(&out->arena, "%s/maps.txt", dir);
	if (!regs_path || !maps_path)
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory", dir);
	bool has_maps = is_file_in(dir, "maps.txt");
	bool probe = !has_maps && ol_folder_has_probe_memory(dir);
	const char *missing = !is_file_in(dir, "regs.txt") ? "regs.txt"
	                      : !has_maps && !probe        ? "maps.txt"
	                                                   : NULL;
	if (missing)
		return sw_err_set(err, SW_ERR_FORMAT,
		                  "%s: not an offline snapshot folder: no %s (it holds regs.txt, "
		                  "maps.txt and stack.data; a debug probe's capture regs.txt and "
		                  "mem-ADDRESS.bin files)",
		                  dir, missing);

	struct sw_mapped_file regs, maps;
	if (!map_text(regs_path, &regs, err))
		return err->code;
	ol_read_regs(&r, text_span(&regs), regs_path);
	sw_unmap_file(&regs);
	if (r.nregs == 0)
		problem(&r, false, "%s: no register: no context", regs_path);
	if (probe) {
		read_probe_folder(&r, regs_path, opts);
		sw_snapshot_finish(out);
		return verdict(dir, &r, err);
	}

	/* Memory before the modules: an ELF whose file is not in the folder
	 * may be in it. */
	read_memory(&r);
	sw_snapshot_finish(out);

	if (!map_text(maps_path, &maps, err))
		return err->code;
	r.damage += sw_proc_maps_read(r.snap, text_span(&maps), maps_path);
	sw_unmap_file(&maps);
	if (out->nmaps == 0)
		problem(&r, false, "%s: no map: no module", maps_path);
	ol_find_modules(&r);

	enum sw_cpu cpu = r.nregs ? ol_choose_cpu(&r, regs_path, ol_regs_cpu(&r)) : SW_CPU_UNKNOWN;
	set_system_info(&r, cpu);

	out->threads = sw_arena_alloc(&out->arena, sizeof *out->threads);
	if (out->threads) {
		struct sw_thread *t = &out->threads[0];
		out->nthreads = 1;
		t->id = 0;
		t->cpu = cpu;
		ol_regs_context(&r, cpu, regs_path, &t->ctx);
		/* No stack bounds: the walker uses the region holding sp. */
		out->has_requesting_thread_id = true;
		out->requesting_thread_id = 0;
	}
	sw_snapshot_finish(out);
	return verdict(dir, &r, err);
}
