/* ELF core reader, the notes: each PT_NOTE segment is a run of records
 * (gABI "Note Section": namesz, descsz, type, the owner's name and the
 * descriptor, each padded to 4 bytes). Linux's come from
 * fs/binfmt_elf.c (fill_note_info): per thread NT_PRSTATUS (then its FP
 * and vector notes), and once NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE;
 * owner "CORE", or "LINUX" for the CPU-specific ones (NT_ARM_PAC_MASK).
 * NetBSD's (sys/kern/core_elf32.c): "NetBSD-CORE" type 1 is struct
 * netbsd_elfcore_procinfo, type 2 the auxiliary vector, and each LWP's
 * registers are under "NetBSD-CORE@LWPID" with the CPU's ptrace request
 * number as type (PT_GETREGS: aarch64 32, amd64 33; its FP registers
 * PT_GETFPREGS, which the walk does not need: elfcore_regs.c). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/registry.h"
#include "elfcore_internal.h"

#ifndef NT_ARM_PAC_MASK
#define NT_ARM_PAC_MASK 0x406
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif

enum {
	NB_CORE_PROCINFO = 1,     /* ELF_NOTE_NETBSD_CORE_PROCINFO */
	NB_CORE_AUXV = 2,         /* ELF_NOTE_NETBSD_CORE_AUXV */
	/* struct netbsd_elfcore_procinfo (sys/sys/exec_elf.h), version 1+ */
	NB_SIGNO = 8, NB_SIGCODE = 12, NB_PID = 80, NB_NAME = 124, NB_NAME_LEN = 32,
	NB_SIGLWP = 156,          /* version 2 */
	/* struct elf_prpsinfo ends with pr_fname[16], pr_psargs[80]; pr_pid
	 * sits 112 bytes before the end whatever the size of pr_uid (16 bits
	 * on i386 and arm, 32 elsewhere) and of pr_flag (a long). */
	PS_FNAME_FROM_END = 96, PS_PSARGS_FROM_END = 80, PS_PID_FROM_END = 112,
	PS_FNAME_LEN = 16, PS_PSARGS_LEN = 80,
};

struct ec_note {
	struct sw_span name;      /* without the terminating NUL */
	uint32_t type;
	struct sw_span desc;
	uint64_t file_off;        /* where the record starts, for messages */
};

static bool name_is(const struct ec_note *n, const char *s)
{
	size_t len = strlen(s);
	return n->name.size == len && memcmp(n->name.data, s, len) == 0;
}

static bool name_starts(const struct ec_note *n, const char *s)
{
	size_t len = strlen(s);
	return n->name.size >= len && memcmp(n->name.data, s, len) == 0;
}

typedef void (*note_fn)(struct ec_reader *r, const struct ec_note *n);

/* Calls fn for every well-formed note of every PT_NOTE segment. report:
 * say what is broken (the second pass), so each problem is said once. */
static void each_note(struct ec_reader *r, bool report, note_fn fn)
{
	for (uint32_t i = 0; i < r->nnotes; i++) {
		const struct ec_load *p = &r->notes[i];
		struct sw_span seg = sw_span_clip(r->file, p->offset, p->filesz);
		if (seg.size < p->filesz && report)
			problem(r, false, "PT_NOTE at file offset 0x%llx: 0x%llx bytes, but the "
			                  "file holds 0x%llx of them: notes cut there",
			        (unsigned long long)p->offset, (unsigned long long)p->filesz,
			        (unsigned long long)seg.size);
		uint64_t pos = 0;
		while (pos < seg.size) {
			if (!sw_span_has(seg, pos, 12)) {
				if (report)
					problem(r, false, "note at file offset 0x%llx: %llu bytes left, "
					                  "not a note header: ignored",
					        (unsigned long long)(seg.off + pos),
					        (unsigned long long)(seg.size - pos));
				break;
			}
			uint64_t namesz = sw_u32(seg, pos), descsz = sw_u32(seg, pos + 4);
			struct ec_note n = { .type = sw_u32(seg, pos + 8), .file_off = seg.off + pos };
			uint64_t name_at = pos + 12;
			uint64_t desc_at = name_at + ((namesz + 3) & ~(uint64_t)3);
			if (!sw_span_sub(seg, name_at, namesz, &n.name) ||
			    !sw_span_sub(seg, desc_at, descsz, &n.desc)) {
				if (report)
					problem(r, false, "note at file offset 0x%llx (type 0x%x): its "
					                  "name (%llu bytes) or descriptor (%llu bytes) runs "
					                  "past its segment: the segment's later notes are "
					                  "lost",
					        (unsigned long long)n.file_off, n.type,
					        (unsigned long long)namesz, (unsigned long long)descsz);
				break;
			}
			const uint8_t *nul = n.name.size ? memchr(n.name.data, '\0', (size_t)n.name.size)
			                                 : NULL;
			if (nul)
				n.name.size = (uint64_t)(nul - n.name.data);
			fn(r, &n);
			pos = desc_at + ((descsz + 3) & ~(uint64_t)3);
		}
	}
}

/* ---- Counting -------------------------------------------------------- */

static void count_note(struct ec_reader *r, const struct ec_note *n)
{
	if (name_is(n, "CORE") && n->type == NT_PRSTATUS) {
		r->nprstatus++;
	} else if (name_starts(n, "NetBSD-CORE")) {
		r->netbsd = true;
		if (name_starts(n, "NetBSD-CORE@"))
			r->nprstatus++;
	}
}

uint32_t ec_count_threads(struct ec_reader *r)
{
	r->nprstatus = 0;
	each_note(r, false, count_note);
	uint32_t n = r->nprstatus;
	r->nprstatus = 0;
	if (n > EC_MAX_THREADS) {
		problem(r, false, "%u thread notes: only the first %d are read", n,
		        EC_MAX_THREADS);
		n = EC_MAX_THREADS;
	}
	return n;
}

/* ---- Linux notes ----------------------------------------------------- */

static struct sw_thread *new_thread(struct ec_reader *r, uint32_t id)
{
	struct sw_snapshot *s = r->snap;
	if (s->nthreads >= r->thread_cap)
		return NULL;
	struct sw_thread *t = &s->threads[s->nthreads];
	memset(t, 0, sizeof *t);
	t->id = id;
	t->cpu = r->cpu;
	r->cursig[s->nthreads] = 0;
	memset(&r->thread_notes[s->nthreads], 0, sizeof r->thread_notes[0]);
	s->nthreads++;
	return t;
}

/* ---- Notes not understood -------------------------------------------- */

/* A note of an owner the reader does not know, kept for the message of a
 * core without threads (an owner's name is shown up to EC_OWNER_NAMED - 1
 * bytes, unprintable bytes as '?'). */
static void note_unread(struct ec_reader *r, const struct ec_note *n)
{
	struct ec_unread_notes *u = &r->unread;
	if (u->n == EC_NOTES_NAMED) {
		u->more++;
		return;
	}
	size_t len = n->name.size < EC_OWNER_NAMED - 1 ? (size_t)n->name.size : EC_OWNER_NAMED - 1;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = n->name.data[i];
		u->owner[u->n][i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	u->owner[u->n][len] = '\0';
	u->type[u->n++] = n->type;
}

/* A note of thread i that does not hold what the reader reads there. */
static void thread_note_unread(struct ec_reader *r, uint32_t i, uint32_t type)
{
	struct ec_thread_notes *t = &r->thread_notes[i];
	if (t->n == EC_NOTES_NAMED)
		t->more++;
	else
		t->type[t->n++] = type;
}

/* struct elf_prstatus: pr_cursig at 12 (a short), pr_pid at 24 (4-byte
 * longs) or 32 (8-byte longs); see elfcore_regs.c for the rest. */
static void read_prstatus(struct ec_reader *r, const struct ec_note *n)
{
	uint64_t pid_at = r->word == 8 ? 32 : 24;
	if (!sw_span_has(n->desc, pid_at, 4)) {
		problem(r, false, "NT_PRSTATUS at file offset 0x%llx: %llu bytes, too short "
		                  "for a thread: ignored",
		        (unsigned long long)n->file_off, (unsigned long long)n->desc.size);
		return;
	}
	struct sw_thread *t = new_thread(r, sw_u32(n->desc, pid_at));
	if (!t)
		return;
	r->cursig[r->snap->nthreads - 1] = sw_u16(n->desc, 12);
	r->thread_notes[r->snap->nthreads - 1].regs_note = true;
	if (r->cpu != SW_CPU_UNKNOWN)
		ec_prstatus_regs(r, n->desc, &t->ctx);
}

static const char *fixed_string(struct ec_reader *r, struct sw_span s)
{
	struct sw_span text = s;
	const uint8_t *nul = s.size ? memchr(s.data, '\0', (size_t)s.size) : NULL;
	if (nul)
		text.size = (uint64_t)(nul - s.data);
	/* Trailing blanks of pr_psargs. */
	while (text.size > 0 && text.data[text.size - 1] == ' ')
		text.size--;
	if (text.size == 0)
		return NULL;
	char *out = sw_arena_strndup(&r->snap->arena, (const char *)text.data, (size_t)text.size);
	for (char *p = out; p && *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = '?';
	return out;
}

static void read_prpsinfo(struct ec_reader *r, const struct ec_note *n)
{
	uint64_t size = n->desc.size;
	if (size < PS_PID_FROM_END + 4) {
		problem(r, true, "NT_PRPSINFO of %llu bytes: too short: ignored", (unsigned long long)size);
		return;
	}
	struct sw_snapshot *s = r->snap;
	r->has_psinfo = true;
	s->has_pid = true;
	s->pid = sw_u32(n->desc, size - PS_PID_FROM_END);
	struct sw_span fname = sw_span_clip(n->desc, size - PS_FNAME_FROM_END, PS_FNAME_LEN);
	struct sw_span args = sw_span_clip(n->desc, size - PS_PSARGS_FROM_END, PS_PSARGS_LEN);
	r->fname = fixed_string(r, fname);
	const char *cmd = fixed_string(r, args);
	if (cmd) {
		s->cmdline = cmd;
		s->cmdline_len = strlen(cmd);
	}
}

/* siginfo_t (include/uapi/asm-generic/siginfo.h): si_signo, si_errno,
 * si_code (MIPS swaps the last two: arch/mips/include/uapi/asm/
 * siginfo.h), then the union, aligned to the word: si_addr first for the
 * faults. */
static void read_siginfo(struct ec_reader *r, const struct ec_note *n)
{
	if (!sw_span_has(n->desc, 0, 12)) {
		problem(r, true, "NT_SIGINFO of %llu bytes: too short: ignored", (unsigned long long)n->desc.size);
		return;
	}
	uint32_t nthreads = r->snap->nthreads;
	struct ec_siginfo *si = nthreads ? &r->thread_notes[nthreads - 1].siginfo : &r->siginfo;
	si->present = true;
	si->signo = sw_u32(n->desc, 0);
	si->code = sw_u32(n->desc, r->machine == EM_MIPS ? 4 : 8);
	uint64_t union_at = r->word == 8 ? 16 : 12;
	int32_t code = (int32_t)si->code;
	/* si_addr is there for the kernel's own fault signals (si_code > 0):
	 * SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV (MIPS: SIGBUS is 10). */
	uint32_t sig = si->signo;
	bool fault = sig == 4 || sig == 5 || sig == 7 || sig == 8 || sig == 11 ||
	             (r->machine == EM_MIPS && sig == 10);
	if (fault && code > 0 && sw_span_has(n->desc, union_at, r->word)) {
		si->has_addr = true;
		si->addr = sw_uint(n->desc, union_at, r->word);
	}
}

static void read_auxv(struct ec_reader *r, struct sw_span d, uint8_t w)
{
	struct ec_auxv *a = &r->auxv;
	a->present = true;
	for (uint64_t at = 0; sw_span_has(d, at, 2 * (uint64_t)w); at += 2 * (uint64_t)w) {
		uint64_t type = sw_uint(d, at, w), val = sw_uint(d, at + w, w);
		switch (type) {
		case AT_NULL: return;
		case AT_PHDR: a->phdr = val; a->has_phdr = true; break;
		case AT_PHENT: a->phent = val; break;
		case AT_PHNUM: a->phnum = val; break;
		case AT_PAGESZ: a->pagesz = val; break;
		case AT_BASE: a->base = val; break;
		case AT_ENTRY: a->entry = val; a->has_entry = true; break;
		case AT_HWCAP: a->hwcap = val; break;
		case AT_HWCAP2: a->hwcap2 = val; break;
		case AT_PLATFORM: a->platform = val; a->has_platform = true; break;
		case AT_EXECFN: a->execfn = val; a->has_execfn = true; break;
		case AT_SYSINFO_EHDR: a->sysinfo_ehdr = val; a->has_sysinfo_ehdr = true; break;
		default: break;
		}
	}
}

/* ---- NT_FILE --------------------------------------------------------- */

static int compare_loads(const void *a, const void *b)
{
	const struct ec_load *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The flags of the PT_LOAD holding addr (loads sorted by vaddr), as
 * /proc/PID/maps spells permissions. */
static void perms_at(const struct ec_load *sorted, uint32_t n, uint64_t addr, char out[5])
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sorted[mid].vaddr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	memcpy(out, "---p", 5);
	if (lo == 0)
		return;
	const struct ec_load *l = &sorted[lo - 1];
	if (addr - l->vaddr >= l->memsz)
		return;
	out[0] = l->flags & PF_R ? 'r' : '-';
	out[1] = l->flags & PF_W ? 'w' : '-';
	out[2] = l->flags & PF_X ? 'x' : '-';
}

/* Does the descriptor read as an NT_FILE with w-byte words: count, page
 * size (a power of two), count {start, end, file offset in pages}
 * triples with start < end, then count NUL-terminated names? */
static bool file_note_fits(struct sw_span d, uint8_t w, uint64_t *count, uint64_t *page)
{
	*count = sw_uint(d, 0, w);
	*page = sw_uint(d, w, w);
	if (!sw_span_has(d, 0, 2 * (uint64_t)w) || *page == 0 || (*page & (*page - 1)) != 0)
		return false;
	uint64_t room = (d.size - 2 * (uint64_t)w) / (3 * (uint64_t)w);
	if (*count > room)
		return false;
	for (uint64_t i = 0; i < *count && i < 16; i++) {
		uint64_t at = 2 * (uint64_t)w + i * 3 * w;
		if (sw_uint(d, at, w) >= sw_uint(d, at + w, w))
			return false;
	}
	return true;
}

/* NT_FILE (fs/binfmt_elf.c fill_files_note) into snap->maps. Some 64-bit
 * kernels wrote the note of a 32-bit (compat) process with 64-bit words
 * (lldb's mips o32 and n32 test cores): when the class's word size does
 * not give a well-formed note and 8 does, 8 is taken. */
static void read_file_note(struct ec_reader *r, const struct ec_note *n)
{
	struct sw_snapshot *s = r->snap;
	if (r->has_nt_file) {
		problem(r, true, "a second NT_FILE note: ignored");
		return;
	}
	uint8_t w = r->word;
	uint64_t count, page;
	if (!file_note_fits(n->desc, w, &count, &page)) {
		if (w == 4 && file_note_fits(n->desc, 8, &count, &page)) {
			w = 8;
		} else {
			problem(r, false, "NT_FILE at file offset 0x%llx is malformed (count "
			                  "%llu, page size %llu, %llu bytes): no module map from it",
			        (unsigned long long)n->file_off, (unsigned long long)count,
			        (unsigned long long)page, (unsigned long long)n->desc.size);
			return;
		}
	}
	r->has_nt_file = true;
	if (count == 0)
		return;
	if (count > EC_MAX_FILES) {
		problem(r, false, "NT_FILE lists %llu mappings: only the first %d are read",
		        (unsigned long long)count, EC_MAX_FILES);
		count = EC_MAX_FILES;
	}
	s->maps = sw_arena_array(&s->arena, (size_t)count, sizeof *s->maps);
	struct ec_load *sorted = r->nloads ? malloc(r->nloads * sizeof *sorted) : NULL;
	if (!s->maps || (r->nloads && !sorted)) {
		free(sorted);
		s->maps = NULL;
		problem(r, false, "out of memory for %llu mappings", (unsigned long long)count);
		return;
	}
	if (sorted) {
		memcpy(sorted, r->loads, r->nloads * sizeof *sorted);
		qsort(sorted, r->nloads, sizeof *sorted, compare_loads);
	}
	uint64_t names_at = 2 * (uint64_t)w + sw_uint(n->desc, 0, w) * 3 * w;
	struct sw_span names = sw_span_clip(n->desc, names_at, n->desc.size);
	uint64_t pos = 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t at = 2 * (uint64_t)w + i * 3 * w;
		struct sw_mapping *m = &s->maps[s->nmaps];
		m->start = sw_uint(n->desc, at, w);
		m->end = sw_uint(n->desc, at + w, w);
		uint64_t pages = sw_uint(n->desc, at + 2 * (uint64_t)w, w);
		m->offset = pages * page;
		struct sw_span rest = sw_span_clip(names, pos, names.size);
		const uint8_t *nul = rest.size ? memchr(rest.data, '\0', (size_t)rest.size) : NULL;
		if (!nul) {
			problem(r, false, "NT_FILE: the names end after %llu of %llu mappings: "
			                  "the rest ignored",
			        (unsigned long long)i, (unsigned long long)count);
			break;
		}
		uint64_t len = (uint64_t)(nul - rest.data);
		pos += len + 1;
		if (m->start >= m->end)
			continue;
		m->path = len ? fixed_string(r, sw_span_clip(rest, 0, len)) : NULL;
		perms_at(sorted, r->nloads, m->start, m->perms);
		s->nmaps++;
	}
	free(sorted);
}

/* ---- NetBSD notes ---------------------------------------------------- */

static void read_netbsd_procinfo(struct ec_reader *r, const struct ec_note *n)
{
	struct sw_snapshot *s = r->snap;
	if (!sw_span_has(n->desc, 0, NB_NAME + NB_NAME_LEN)) {
		problem(r, true, "NetBSD procinfo of %llu bytes: too short: ignored", (unsigned long long)n->desc.size);
		return;
	}
	r->has_nb_proc = true;
	r->nb_signo = sw_u32(n->desc, NB_SIGNO);
	r->nb_sigcode = sw_u32(n->desc, NB_SIGCODE);
	r->nb_siglwp = sw_u32(n->desc, NB_SIGLWP); /* 0 when version 1 (absent) */
	s->has_pid = true;
	s->pid = sw_u32(n->desc, NB_PID);
	r->fname = fixed_string(r, sw_span_clip(n->desc, NB_NAME, NB_NAME_LEN));
}

/* "NetBSD-CORE@LWPID": the LWP id in decimal. */
static bool netbsd_lwp(const struct ec_note *n, uint32_t *lwp)
{
	uint64_t v = 0, at = strlen("NetBSD-CORE@");
	if (n->name.size <= at)
		return false;
	for (; at < n->name.size; at++) {
		uint8_t c = n->name.data[at];
		if (c < '0' || c > '9' || v > UINT32_MAX / 10)
			return false;
		v = v * 10 + (c - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*lwp = (uint32_t)v;
	return true;
}

static void read_netbsd_lwp(struct ec_reader *r, const struct ec_note *n)
{
	struct sw_snapshot *s = r->snap;
	uint32_t lwp;
	if (!netbsd_lwp(n, &lwp)) {
		problem(r, false, "note at file offset 0x%llx: an LWP note without an LWP "
		                  "number: ignored",
		        (unsigned long long)n->file_off);
		return;
	}
	/* An LWP's notes follow each other: a new id starts a thread. */
	struct sw_thread *t = s->nthreads && s->threads[s->nthreads - 1].id == lwp
	                              ? &s->threads[s->nthreads - 1]
	                              : new_thread(r, lwp);
	if (!t)
		return;
	uint32_t i = (uint32_t)(t - s->threads);
	uint32_t regs_type = ec_netbsd_regs_type(r);
	if (regs_type != 0 && n->type == regs_type && !r->thread_notes[i].regs_note) {
		r->thread_notes[i].regs_note = true;
		ec_netbsd_regs(r, n->desc, &t->ctx);
	} else if (regs_type == 0 || n->type != regs_type) {
		thread_note_unread(r, i, n->type);
	}
}

/* ---- The second pass ------------------------------------------------- */

static void read_note(struct ec_reader *r, const struct ec_note *n)
{
	if (name_is(n, "CORE")) {
		switch (n->type) {
		case NT_PRSTATUS: read_prstatus(r, n); break;
		case NT_PRPSINFO: read_prpsinfo(r, n); break;
		case NT_SIGINFO: read_siginfo(r, n); break;
		case NT_AUXV: read_auxv(r, n->desc, r->word); break;
		case NT_FILE: read_file_note(r, n); break;
		default: break;
		}
	} else if (name_is(n, "LINUX")) {
		if (n->type == NT_ARM_PAC_MASK && sw_span_has(n->desc, 0, 16))
			/* struct user_pac_mask {data_mask, insn_mask}: code
			 * pointers are signed under insn_mask. */
			r->snap->sys.pointer_auth_mask = sw_u64(n->desc, 8);
	} else if (name_is(n, "NetBSD-CORE")) {
		if (n->type == NB_CORE_PROCINFO)
			read_netbsd_procinfo(r, n);
		else if (n->type == NB_CORE_AUXV)
			read_auxv(r, n->desc, r->word);
	} else if (name_starts(n, "NetBSD-CORE@")) {
		read_netbsd_lwp(r, n);
	} else if (!ec_esp_read_note(r, n->name, n->type, n->desc)) {
		note_unread(r, n);
	}
}

void ec_read_notes(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	each_note(r, true, read_note);
	/* Linux keeps no thread names in a core: pr_fname (the program's
	 * name, 16 bytes) names each thread, as lldb and gdb show it. */
	if (r->fname)
		for (uint32_t i = 0; i < s->nthreads; i++)
			if (!s->threads[i].name)
				s->threads[i].name = r->fname;
}

/* ---- Threads without registers --------------------------------------- */

/* "OWNER type T, ..." of u, "(and N more)" after the named ones. */
static void describe_unread(const struct ec_unread_notes *u, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = '\0';
	for (uint32_t i = 0; i < u->n && used < cap; i++)
		used += (size_t)snprintf(out + used, cap - used, "%s\"%s\" type %u", i ? ", " : "",
		                         u->owner[i], u->type[i]);
	if (u->more && used < cap)
		snprintf(out + used, cap - used, " (and %u more)", u->more);
}

/* "35, 36" of a thread's unread note types. */
static void describe_types(const struct ec_thread_notes *t, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = '\0';
	for (uint32_t i = 0; i < t->n && used < cap; i++)
		used += (size_t)snprintf(out + used, cap - used, "%s%u", i ? ", " : "", t->type[i]);
	if (t->more && used < cap)
		snprintf(out + used, cap - used, " (and %u more)", t->more);
}

void ec_check_thread_registers(struct ec_reader *r, bool each_thread)
{
	struct sw_snapshot *s = r->snap;
	char what[EC_NOTES_NAMED * (EC_OWNER_NAMED + 24) + 32];
	if (s->nthreads == 0) {
		describe_unread(&r->unread, what, sizeof what);
		if (what[0])
			problem(r, false, "no thread note (Linux's \"CORE\" NT_PRSTATUS, NetBSD's "
			                  "\"NetBSD-CORE@LWP\"): no register; notes not understood: %s",
			        what);
		else
			problem(r, false, "no thread note (NT_PRSTATUS): no register");
		return;
	}
	const struct sw_arch *a = sw_arch_for_cpu(r->cpu);
	if (!each_thread || !a)
		return;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct ec_thread_notes *t = &r->thread_notes[i];
		/* A register note that was read and failed said so itself. */
		if (t->regs_note || sw_reg_valid(&s->threads[i].ctx, a->pc))
			continue;
		describe_types(t, what, sizeof what);
		uint32_t regs_type = ec_netbsd_regs_type(r);
		if (r->netbsd && regs_type)
			problem(r, false, "LWP %u: no registers: no \"NetBSD-CORE@%u\" note of type %u "
			                  "(PT_GETREGS, %s), and its notes of type %s are not "
			                  "understood",
			        s->threads[i].id, s->threads[i].id, regs_type, r->cpu_name,
			        what[0] ? what : "(none)");
		else if (r->netbsd)
			problem(r, false, "LWP %u: no registers: its \"NetBSD-CORE@%u\" notes of type "
			                  "%s are not understood (no NetBSD register layout of %s here)",
			        s->threads[i].id, s->threads[i].id, what[0] ? what : "(none)",
			        r->cpu_name);
		else
			problem(r, false, "thread %u: no registers", s->threads[i].id);
	}
}
