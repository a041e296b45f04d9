/* Microdump reader, the records: one per line, a letter and its fields, as
 * Breakpad's microdump_writer.cc writes them (MicrodumpWriter::Dump, in
 * this order):
 *
 *   V PRODUCT:VERSION                       DumpProductInformation
 *   O OS ARCH NCPUS HW-ARCH FINGERPRINT     DumpOSInformation (OS: A Android, L Linux)
 *   P PROCESS-TYPE                          DumpProcessType
 *   R SIGNO SIGNAME ADDRESS                 DumpCrashReason
 *   G GL-VERSION|GL-VENDOR|GL-RENDERER      DumpGPUInformation ("UNKNOWN": none given)
 *   H ...                                   DumpFreeSpace: address-space holes, not read
 *   S 0 SP STACK-START STACK-LENGTH         DumpThreadStack, then chunks of 384 bytes:
 *   S ADDRESS HEX-BYTES
 *   C HEX-BYTES                             DumpCPUState: an MDRawContext<CPU> record
 *   M START FILE-OFFSET SIZE DEBUG-ID NAME  DumpModule, one per executable mapping
 *
 * Numbers are upper-case hex at their type's full width (LogAppend). Every
 * field is checked before use; a damaged record is reported and what it
 * held that is intact is kept. */
#include <stdio.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/crash_reason.h"
#include "lib/hex.h"
#include "microdump_internal.h"
#include "minidump_context.h"

/* The O line's ARCH (kArch in DumpOSInformation) and the minidump
 * ProcessorArchitecture value of the same CPU. Breakpad's processor reads
 * the first five; the writer also emits the last three. */
static const struct {
	const char *word;
	enum sw_cpu cpu;
	uint16_t raw_arch;
} mc_cpus[] = {
	{ "arm", SW_CPU_ARM, 5 },
	{ "arm64", SW_CPU_ARM64, 12 },
	{ "x86", SW_CPU_X86, 0 },
	{ "mips", SW_CPU_MIPS, 1 },
	{ "mips64", SW_CPU_MIPS64, 0x8004 },
	{ "x86_64", SW_CPU_AMD64, 9 },
	{ "riscv32", SW_CPU_RISCV32, 0x8005 },
	{ "riscv64", SW_CPU_RISCV64, 0x8006 },
};

/* The O line's OS id: kOSId in DumpOSInformation; the names and ids are
 * Breakpad's (Microdump::Microdump, MD_OS_ANDROID / MD_OS_LINUX). */
static const struct {
	const char *word;
	enum sw_os os;
	uint32_t platform_id;
	const char *name;
} mc_oses[] = {
	{ "A", SW_OS_ANDROID, 0x8203, "Android" },
	{ "L", SW_OS_LINUX, 0x8201, "Linux" },
};

enum {
	MC_DEBUG_ID_DIGITS = 33,  /* a GUID and the age "0" (DumpModule) */
	MC_SHOWN_MAX = 48,        /* bytes of a field quoted in a message */
};

/* ---- Words ---------------------------------------------------------------- */

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated word of *rest (empty at its end); *rest then
 * starts right after the word. The words are read through the span's
 * pointer: a record's stack is megabytes of hex, and one bounds check
 * per byte (sw_u8) doubled the cost of reading it. */
static struct sw_span next_word(struct sw_span *rest)
{
	const uint8_t *p = rest->data;
	uint64_t n = rest->size, i = 0;
	while (i < n && is_blank(p[i]))
		i++;
	uint64_t j = i;
	while (j < n && !is_blank(p[j]))
		j++;
	struct sw_span w = sw_span_clip(*rest, i, j - i);
	*rest = sw_span_clip(*rest, j, rest->size);
	return w;
}

static bool word_is(struct sw_span w, const char *s)
{
	size_t n = strlen(s);
	return w.size == n && (n == 0 || memcmp(sw_span_ptr(w, 0), s, n) == 0);
}

/* A word of 1 to 16 hex digits, as a number. */
static bool hex_number(struct sw_span w, uint64_t *out)
{
	if (w.size == 0 || w.size > 16)
		return false;
	uint64_t v = 0;
	for (uint64_t i = 0; i < w.size; i++) {
		unsigned d = sw_hex_digit1[w.data[i]];
		if (d == 0)
			return false;
		v = v << 4 | (d - 1);
	}
	*out = v;
	return true;
}

static bool all_hex(struct sw_span w)
{
	for (uint64_t i = 0; i < w.size; i++)
		if (sw_hex_digit1[w.data[i]] == 0)
			return false;
	return true;
}

/* Decodes w's pairs of hex digits into out, which has room for w.size / 2
 * bytes: how many were decoded, up to the first pair that is not hex. */
static uint64_t hex_bytes(struct sw_span w, uint8_t *out)
{
	const uint8_t *p = w.data;
	uint64_t pairs = w.size / 2, n = 0;
	for (; n < pairs; n++) {
		unsigned hi = sw_hex_digit1[p[2 * n]], lo = sw_hex_digit1[p[2 * n + 1]];
		if (hi == 0 || lo == 0)
			break;
		out[n] = (uint8_t)((hi - 1) << 4 | (lo - 1));
	}
	return n;
}

/* w as a NUL-terminated string in the snapshot's arena ("" when empty). */
static const char *word_str(struct mc_reader *r, struct sw_span w)
{
	const uint8_t *p = sw_span_ptr(w, 0);
	return sw_arena_strndup(&r->snap->arena, p ? (const char *)p : "", p ? (size_t)w.size : 0);
}

/* w quoted in a one-line message: at most MC_SHOWN_MAX bytes, anything
 * unprintable as '?'. */
static const char *shown(struct sw_span w, char *buf, size_t cap)
{
	size_t n = 0;
	for (uint64_t i = 0; i < w.size && n + 4 < cap && n < MC_SHOWN_MAX; i++) {
		uint8_t c = sw_u8(w, i);
		buf[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (w.size > n && n + 4 < cap)
		memcpy(buf + n, "...", 3), n += 3;
	buf[n] = '\0';
	return buf;
}

/* ---- The first pass ------------------------------------------------------- */

/* A record is a letter alone or a letter, a space and its fields. */
static bool is_record(struct sw_span rec)
{
	return rec.size == 1 || (rec.size >= 2 && sw_u8(rec, 1) == ' ');
}

void mc_count_record(struct mc_counts *c, struct sw_span rec)
{
	if (!is_record(rec))
		return;
	switch (sw_u8(rec, 0)) {
	case 'S':
		/* An upper bound: the address's digits count too. */
		c->stack_bytes += rec.size / 2;
		if (c->stack_lines < UINT32_MAX)
			c->stack_lines++;
		break;
	case 'M':
		if (c->modules < UINT32_MAX)
			c->modules++;
		break;
	}
}

bool mc_reader_init(struct mc_reader *r, struct sw_snapshot *snap, const struct mc_counts *c)
{
	memset(r, 0, sizeof *r);
	r->snap = snap;
	struct sw_arena *a = &snap->arena;
	snap->threads = sw_arena_alloc(a, sizeof *snap->threads);
	snap->modules = sw_arena_array(a, c->modules ? c->modules : 1, sizeof *snap->modules);
	snap->mem = sw_arena_array(a, c->stack_lines ? c->stack_lines : 1, sizeof *snap->mem);
	snap->annotations = sw_arena_array(a, 2, sizeof *snap->annotations);
	r->stack = c->stack_bytes ? sw_arena_alloc(a, (size_t)c->stack_bytes) : NULL;
	r->stack_cap = r->stack ? c->stack_bytes : 0;
	r->module_cap = c->modules;
	r->mem_cap = c->stack_lines;
	return snap->threads && snap->modules && snap->mem && snap->annotations &&
	       (c->stack_bytes == 0 || r->stack);
}

/* ---- O, G, R, V, P: system and crash ---------------------------------- */

static void read_os(struct mc_reader *r, struct sw_span rest)
{
	char buf[64];
	if (r->seen_os) {
		mc_problem(r, true, "a second O line: ignored");
		return;
	}
	r->seen_os = true;
	struct sw_system_info *sys = &r->snap->sys;
	struct sw_span os = next_word(&rest), arch = next_word(&rest);
	struct sw_span ncpus = next_word(&rest);
	/* The hardware's own name (uname's machine: armv8l under a 32-bit
	 * arm process); Breakpad's processor does not use it either. */
	(void)next_word(&rest);
	/* The build fingerprint (or uname's release and version) is the
	 * rest of the line after one space; Breakpad drops just that one. */
	if (sw_u8(rest, 0) == ' ')
		rest = sw_span_clip(rest, 1, rest.size);
	sys->os_version = word_str(r, rest);

	for (size_t i = 0; i < sizeof mc_oses / sizeof mc_oses[0]; i++)
		if (word_is(os, mc_oses[i].word)) {
			sys->os = mc_oses[i].os;
			sys->platform_id = mc_oses[i].platform_id;
			sys->os_name = mc_oses[i].name;
		}
	if (!sys->os_name) {
		sys->os_name = word_str(r, os);
		mc_problem(r, true, "O line: unknown OS '%s' (A is Android, L Linux)",
		           shown(os, buf, sizeof buf));
	}

	for (size_t i = 0; i < sizeof mc_cpus / sizeof mc_cpus[0]; i++)
		if (word_is(arch, mc_cpus[i].word)) {
			const struct sw_arch *a = sw_arch_for_cpu(mc_cpus[i].cpu);
			sys->cpu = mc_cpus[i].cpu;
			sys->raw_arch = mc_cpus[i].raw_arch;
			sys->cpu_name = a ? a->name : mc_cpus[i].word;
			sys->word_size = a ? a->word_size : 0;
		}
	/* Every CPU Android and Breakpad's Linux client run on is
	 * little-endian, and Breakpad's reader reads the stack so. */
	sys->big_endian = false;
	if (sys->cpu == SW_CPU_UNKNOWN) {
		sys->cpu_name = word_str(r, arch);
		mc_problem(r, false, "O line: unknown CPU architecture '%s'",
		           shown(arch, buf, sizeof buf));
	}

	uint64_t n;
	if (hex_number(ncpus, &n) && n <= 0xff)
		sys->cpu_count = (uint32_t)n;
	else
		mc_problem(r, true, "O line: CPU count '%s' is not a hex byte",
		           shown(ncpus, buf, sizeof buf));
}

/* "G UNKNOWN" when the client gave no GPU fingerprint; else the three GL
 * strings split at '|' (Breakpad's reader takes the text up to each '|'). */
static void read_gpu(struct mc_reader *r, struct sw_span rest)
{
	if (r->seen_gpu) {
		mc_problem(r, true, "a second G line: ignored");
		return;
	}
	r->seen_gpu = true;
	if (word_is(rest, "UNKNOWN") || rest.size == 0)
		return;
	const char **fields[] = { &r->snap->sys.gl_version, &r->snap->sys.gl_vendor,
	                          &r->snap->sys.gl_renderer };
	uint64_t pos = 0;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		uint64_t end = pos;
		while (end < rest.size && sw_u8(rest, end) != '|')
			end++;
		*fields[i] = word_str(r, sw_span_clip(rest, pos, end - pos));
		pos = end < rest.size ? end + 1 : end;
	}
}

static void read_crash_reason(struct mc_reader *r, struct sw_span rest)
{
	char buf[64];
	if (r->seen_reason) {
		mc_problem(r, true, "a second R line: ignored");
		return;
	}
	r->seen_reason = true;
	struct sw_span signo = next_word(&rest), name = next_word(&rest), addr = next_word(&rest);
	uint64_t sig, address = 0;
	if (!hex_number(signo, &sig) || sig > UINT32_MAX) {
		mc_problem(r, false, "R line: signal number '%s' is not a 32-bit hex number",
		           shown(signo, buf, sizeof buf));
		return;
	}
	if (!hex_number(addr, &address))
		mc_problem(r, false, "R line: crash address '%s' is not hex",
		           shown(addr, buf, sizeof buf));
	struct sw_crash *c = &r->snap->crash;
	c->code = (uint32_t)sig;
	c->address = address;
	/* The writer names the number (GetCrashSignalString, with the
	 * device's own numbering: MIPS differs) and the outputs name it the
	 * same way; a name that disagrees is worth a word. The O line, which
	 * names the CPU, comes first. */
	const char *known = sw_linux_cpu_signal_name(r->snap->sys.cpu, c->code);
	if (known && !word_is(name, known))
		mc_problem(r, true, "R line: signal %u is %s, not '%s'", c->code, known,
		           shown(name, buf, sizeof buf));
}

/* V and P: Breakpad's MicrodumpExtraInfo product_info and process_type,
 * kept as process-wide annotations. */
static void read_extra_info(struct mc_reader *r, bool *seen, const char *key,
                            struct sw_span rest)
{
	struct sw_snapshot *s = r->snap;
	if (*seen) {
		mc_problem(r, true, "a second %s line: ignored", key);
		return;
	}
	*seen = true;
	if (s->nannotations >= 2)
		return;
	s->annotations[s->nannotations++] = (struct sw_annotation){
		.module = -1, .kind = SW_ANNOT_SIMPLE, .key = key, .value = word_str(r, rest),
	};
}

/* ---- S: the crashing thread's stack --------------------------------------- */

/* Chunks that follow each other form one memory region. */
static void close_run(struct mc_reader *r)
{
	struct sw_snapshot *s = r->snap;
	if (!r->in_run)
		return;
	r->in_run = false;
	if (s->nmem >= r->mem_cap || r->stack_used == r->run_start)
		return;
	s->mem[s->nmem++] = (struct sw_mem_region){
		.base = r->run_addr,
		.size = r->stack_used - r->run_start,
		.data = r->stack + r->run_start,
	};
}

/* "S 0 SP START LENGTH": what the chunks should cover. Breakpad's reader
 * skips it; here it checks that no chunk was lost. */
static void read_stack_header(struct mc_reader *r, struct sw_span rest)
{
	if (r->has_stack_header) {
		mc_problem(r, true, "a second S 0 line: ignored");
		return;
	}
	struct sw_span sp = next_word(&rest), start = next_word(&rest), len = next_word(&rest);
	if (!hex_number(sp, &r->stack_sp) || !hex_number(start, &r->stack_base) ||
	    !hex_number(len, &r->stack_len) || r->stack_len > UINT64_MAX - r->stack_base) {
		mc_problem(r, false, "S 0 line: the stack pointer, start and length must be hex "
		                     "numbers, the stack inside the address space: ignored");
		return;
	}
	r->has_stack_header = true;
}

static void read_stack(struct mc_reader *r, struct sw_span rest)
{
	char buf[64];
	struct sw_span first = next_word(&rest);
	if (word_is(first, "0")) {
		read_stack_header(r, rest);
		return;
	}
	struct sw_span hex = next_word(&rest);
	uint64_t addr;
	if (!hex_number(first, &addr)) {
		mc_problem(r, false, "S line: address '%s' is not hex: chunk ignored",
		           shown(first, buf, sizeof buf));
		return;
	}
	/* The first pass counted half of every S line, so the bytes fit. */
	uint64_t room = r->stack_cap - r->stack_used, n = 0;
	if (r->stack && hex.size / 2 <= room)
		n = hex_bytes(hex, r->stack + r->stack_used);
	if (n * 2 != hex.size)
		mc_problem(r, false, "S line at 0x%llx: not hex after %llu bytes: the chunk is cut there",
		           (unsigned long long)addr, (unsigned long long)n);
	if (n == 0)
		return;
	if (n > UINT64_MAX - addr) {
		mc_problem(r, false, "S line at 0x%llx: %llu bytes run past the end of the address "
		                     "space: ignored",
		           (unsigned long long)addr, (unsigned long long)n);
		return;
	}
	/* The writer logs chunks in address order, each right after the one
	 * before; a gap is a lost log line, an overlap a repeated one. */
	if (r->has_chunk && addr < r->next_addr) {
		mc_problem(r, false, "S line at 0x%llx: overlaps the chunk before it, which ends at "
		                     "0x%llx: ignored",
		           (unsigned long long)addr, (unsigned long long)r->next_addr);
		return;
	}
	if (r->has_chunk && addr > r->next_addr) {
		mc_problem(r, false, "S line at 0x%llx: the 0x%llx bytes of stack before it are missing",
		           (unsigned long long)addr, (unsigned long long)(addr - r->next_addr));
		close_run(r);
	}
	if (r->has_stack_header &&
	    (addr < r->stack_base || n > r->stack_base + r->stack_len - addr ||
	     addr - r->stack_base > r->stack_len))
		mc_problem(r, false, "S line at 0x%llx: outside the stack the S 0 line announced "
		                     "(0x%llx bytes from 0x%llx)",
		           (unsigned long long)addr, (unsigned long long)r->stack_len,
		           (unsigned long long)r->stack_base);
	if (!r->in_run) {
		r->in_run = true;
		r->run_addr = addr;
		r->run_start = r->stack_used;
	}
	r->stack_used += n;
	r->has_chunk = true;
	r->next_addr = addr + n;
}

/* ---- C: the register context ---------------------------------------------- */

static void read_context(struct mc_reader *r, struct sw_span rest)
{
	if (r->seen_context) {
		mc_problem(r, true, "a second C line: ignored");
		return;
	}
	r->seen_context = true;
	struct sw_span hex = next_word(&rest);
	uint8_t *bytes = sw_arena_alloc(&r->snap->arena, (size_t)(hex.size / 2) + 1);
	if (!bytes) {
		mc_problem(r, false, "C line: out of memory");
		return;
	}
	uint64_t n = hex_bytes(hex, bytes);
	if (n * 2 != hex.size)
		mc_problem(r, false, "C line: not hex after %llu bytes: the context is cut there",
		           (unsigned long long)n);
	struct sw_span ctx = { bytes, n, 0, false };
	enum sw_cpu os_cpu = r->snap->sys.cpu;
	struct md_context_info info;
	switch (md_decode_context(ctx, os_cpu, &r->context, &info)) {
	case MD_CONTEXT_UNRECOGNISED:
		mc_problem(r, false, "C line: %llu bytes with flags 0x%08x are no register context "
		                     "stackwalk knows",
		           (unsigned long long)n, sw_u32(ctx, 0));
		return;
	case MD_CONTEXT_NO_ARCH:
		mc_problem(r, false, "C line: %s has no register table here", info.layout);
		return;
	case MD_CONTEXT_OK:
		break;
	}
	/* Breakpad's reader wants exactly sizeof(MDRawContext<CPU>); a
	 * shorter record still holding every register is read, and said. */
	if (n < info.full_size)
		mc_problem(r, false, "C line: %llu bytes, shorter than %s (%llu): the registers it "
		                     "holds are read",
		           (unsigned long long)n, info.layout, (unsigned long long)info.full_size);
	else if (n > info.full_size)
		mc_problem(r, true, "C line: %llu bytes, longer than %s (%llu): the rest is ignored",
		           (unsigned long long)n, info.layout, (unsigned long long)info.full_size);
	if (os_cpu != SW_CPU_UNKNOWN && os_cpu != info.cpu)
		mc_problem(r, false, "C line: an %s, but the O line says %s", info.layout,
		           r->snap->sys.cpu_name ? r->snap->sys.cpu_name : "?");
	if (!info.by_flags)
		mc_problem(r, true, "C line: context flags 0x%x name no CPU; read as %s", info.flags,
		           info.layout);
	r->context_cpu = info.cpu;
}

/* ---- M: modules ----------------------------------------------------------- */

static void read_module(struct mc_reader *r, struct sw_span rest)
{
	char buf[64];
	struct sw_snapshot *s = r->snap;
	struct sw_span start = next_word(&rest), offset = next_word(&rest);
	struct sw_span size = next_word(&rest), id = next_word(&rest);
	/* The file's name as the writer found it; Breakpad's reader takes one
	 * word, and symbol files are found by that word. */
	struct sw_span name = next_word(&rest);
	uint64_t base, file_offset, len;
	if (!hex_number(start, &base) || !hex_number(offset, &file_offset) ||
	    !hex_number(size, &len)) {
		mc_problem(r, false, "M line: start, file offset and size must be hex numbers: "
		                     "module ignored");
		return;
	}
	/* The mapping's offset in its file: Breakpad's reader does not use it,
	 * nor does the walk (symbol addresses count from the start). */
	(void)file_offset;
	if (name.size == 0) {
		mc_problem(r, false, "M line at 0x%llx: no name: module ignored",
		           (unsigned long long)base);
		return;
	}
	if (len == 0 || len - 1 > UINT64_MAX - base) {
		mc_problem(r, false, "M line: %s at 0x%llx: size 0x%llx %s: module ignored",
		           shown(name, buf, sizeof buf), (unsigned long long)base,
		           (unsigned long long)len,
		           len == 0 ? "is empty" : "runs past the end of the address space");
		return;
	}
	if (s->nmodules >= r->module_cap)
		return; /* cannot happen: the first pass counted every M line */
	struct sw_module *m = &s->modules[s->nmodules++];
	m->base = base;
	m->size = len;
	m->code_file = word_str(r, name);
	m->debug_file = m->code_file;
	if (id.size > 0 && all_hex(id)) {
		m->debug_id = word_str(r, id);
		if (id.size != MC_DEBUG_ID_DIGITS)
			mc_problem(r, true, "M line: %s: debug id of %llu digits (Breakpad's have %d)",
			           m->code_file, (unsigned long long)id.size, MC_DEBUG_ID_DIGITS);
	} else {
		mc_problem(r, false, "M line: %s: debug id '%s' is not hex: its symbols cannot be found",
		           m->code_file, shown(id, buf, sizeof buf));
	}
}

/* ---- Dispatch ------------------------------------------------------------- */

/* `logcat -v long` puts "[ DATE TIME PID:TID LEVEL/TAG ]" on a line of its
 * own before each message, and a blank line after it. */
static bool is_log_header(struct sw_span rec)
{
	return rec.size >= 4 && sw_u8(rec, 0) == '[' && sw_u8(rec, 1) == ' ' &&
	       sw_u8(rec, rec.size - 2) == ' ' && sw_u8(rec, rec.size - 1) == ']';
}

void mc_read_record(struct mc_reader *r, struct sw_span rec, bool cut)
{
	char buf[64];
	if (rec.size == 0 || is_log_header(rec))
		return;
	if (!is_record(rec)) {
		mc_problem(r, true, "not a microdump record: '%s': ignored", shown(rec, buf, sizeof buf));
		return;
	}
	struct sw_span rest = sw_span_clip(rec, 2, rec.size);
	uint8_t letter = sw_u8(rec, 0);
	/* A line the file ends inside may have lost its end. The hex of S and
	 * C lines is kept as far as it goes (their bytes are checked); the
	 * fields of the others cannot tell a cut (a shorter name, address or
	 * debug id reads as another), so they are not read. */
	if (cut && letter != 'S' && letter != 'C') {
		mc_problem(r, false, "the file ends inside this %c line: not read",
		           letter >= 0x20 && letter < 0x7f ? (char)letter : '?');
		return;
	}
	switch (letter) {
	case 'V': read_extra_info(r, &r->seen_product, "product_info", rest); break;
	case 'O': read_os(r, rest); break;
	case 'P': read_extra_info(r, &r->seen_process, "process_type", rest); break;
	case 'R': read_crash_reason(r, rest); break;
	case 'G': read_gpu(r, rest); break;
	case 'H': break; /* free address space: nothing a walk uses */
	case 'S': read_stack(r, rest); break;
	case 'C': read_context(r, rest); break;
	case 'M': read_module(r, rest); break;
	default:
		mc_problem(r, true, "unknown record '%c': ignored",
		           letter >= 0x20 && letter < 0x7f ? (char)letter : '?');
		break;
	}
}

/* ---- After the last record ------------------------------------------------ */

void mc_finish(struct mc_reader *r)
{
	struct sw_snapshot *s = r->snap;
	struct sw_system_info *sys = &s->sys;
	close_run(r);
	r->line = 0; /* what follows is about the whole microdump */

	if (!r->seen_os)
		mc_problem(r, false, "no O line: the OS and CPU are not known");
	if (!r->seen_context)
		mc_problem(r, false, "no C line: no register context, the thread cannot be walked");
	uint64_t captured = 0, lo = UINT64_MAX, hi = 0;
	for (uint32_t i = 0; i < s->nmem; i++) {
		captured += s->mem[i].size;
		if (s->mem[i].base < lo)
			lo = s->mem[i].base;
		if (s->mem[i].base + s->mem[i].size > hi)
			hi = s->mem[i].base + s->mem[i].size;
	}
	if (r->has_stack_header && captured < r->stack_len)
		mc_problem(r, false, "the S 0 line announced 0x%llx bytes of stack from 0x%llx; "
		                     "the S lines hold 0x%llx",
		           (unsigned long long)r->stack_len, (unsigned long long)r->stack_base,
		           (unsigned long long)captured);
	else if (!r->has_stack_header && captured == 0)
		mc_problem(r, true, "no stack (no S lines): only the context's frame can be found");

	/* A context whose CPU the O line did not give tells it. */
	if (sys->cpu == SW_CPU_UNKNOWN && r->context.valid) {
		const struct sw_arch *a = sw_arch_for_cpu(r->context_cpu);
		sys->cpu = r->context_cpu;
		sys->cpu_name = a->name;
		sys->word_size = a->word_size;
	}

	/* One thread, the one that crashed; Breakpad's processor numbers it 0
	 * and always reports a crash (MicrodumpProcessor::Process). */
	struct sw_thread *t = &s->threads[0];
	s->nthreads = 1;
	t->id = 0;
	t->ctx = r->context;
	t->cpu = r->context.valid ? r->context_cpu : SW_CPU_UNKNOWN;
	if (captured) {
		t->stack_base = lo;
		t->stack_size = hi - lo;
	}
	s->crash.present = true;
	s->crash.thread_id = 0;
	s->crash.ctx = r->context;
	/* The writer moves each module's start back to its load bias, so
	 * starts may reach into the module below; ends are exact. */
	s->modules_by_end = true;
}
