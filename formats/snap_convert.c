/* Snapshot → .snap (docs/snap-format.md, "Converting"): the reverse of
 * snap_records.c and snap_regs.c, through the device's own writer in
 * stream mode. The aim is an identical walk, not a smaller file: every
 * memory region the input captured goes along (the walk may read code
 * bytes around a pc, a module's ELF image mapped in memory, a signal
 * frame), except the stacks of threads left out; modules keep the
 * identity the input gives them (a Windows module's PDB name and GUID,
 * a load bias), in the fields a converter adds after the version-1 ones. */
#include "snap_convert.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "arch/registry.h"
#include "lib/build_id.h"
#include "snap_internal.h"

/* MEMORY_ZLIB's limit is 256 MiB a record (docs/snap-format.md, "Limits"):
 * larger regions go as several records. */
enum { ZLIB_CHUNK = 64 << 20 };

/* ---- A record's payload, built in memory ----------------------------- */

struct payload {
	uint8_t *b;
	size_t n, cap;
	bool failed;
};

static void put(struct payload *p, const void *bytes, size_t n)
{
	if (p->failed || n == 0)
		return;
	if (p->n + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		while (cap < p->n + n)
			cap *= 2;
		uint8_t *b = realloc(p->b, cap);
		if (!b) {
			p->failed = true;
			return;
		}
		p->b = b;
		p->cap = cap;
	}
	memcpy(p->b + p->n, bytes, n);
	p->n += n;
}

/* Little-endian whatever the host (the format's integers). */
static void put_le(struct payload *p, uint64_t v, unsigned size)
{
	uint8_t b[8];
	for (unsigned i = 0; i < size; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(p, b, size);
}

/* A str: NULL is empty; text past the u16's reach is cut. */
static void put_str(struct payload *p, const char *text)
{
	size_t n = text ? strlen(text) : 0;
	if (n > SNAP_MAX_STRING)
		n = SNAP_MAX_STRING;
	put_le(p, n, 2);
	put(p, text, n);
}

static int write_payload(struct snap_writer *w, uint16_t type, struct payload *p)
{
	if (p->failed || p->n > SNAP_MAX_PAYLOAD)
		return SNAP_INVALID;
	int rc = snap_record_begin(w, type, (uint32_t)p->n);
	if (rc == SNAP_OK)
		rc = snap_record_write(w, p->b, p->n);
	if (rc == SNAP_OK)
		rc = snap_record_end(w);
	p->n = 0;
	return rc;
}

/* ---- Header and SYSTEM ------------------------------------------------ */

static uint16_t snap_cpu_of(enum sw_cpu cpu, uint8_t *word_size)
{
	for (uint16_t id = SNAP_CPU_X86; id <= SNAP_CPU_RISCV64; id++)
		if (sr_cpu(id, word_size) == cpu)
			return id;
	return 0;
}

static uint16_t snap_os_of(enum sw_os os)
{
	switch (os) {
	case SW_OS_NONE: return SNAP_OS_NONE;
	case SW_OS_LINUX: return SNAP_OS_LINUX;
	case SW_OS_ANDROID: return SNAP_OS_ANDROID;
	case SW_OS_WINDOWS: return SNAP_OS_WINDOWS;
	case SW_OS_MACOS: return SNAP_OS_MACOS;
	case SW_OS_IOS: return SNAP_OS_IOS;
	case SW_OS_FUCHSIA: return SNAP_OS_FUCHSIA;
	case SW_OS_NETBSD: return SNAP_OS_NETBSD;
	case SW_OS_SOLARIS: return SNAP_OS_SOLARIS;
	default: return SNAP_OS_UNKNOWN;
	}
}

/* ARM's variant: the profile and the architecture version the reader gives
 * back as arm_profile and processor_level; the others have none we know. */
static uint32_t cpu_variant(const struct sw_system_info *sys)
{
	if (sys->cpu != SW_CPU_ARM)
		return 0;
	return SNAP_ARM_VARIANT(sys->arm_profile, sys->processor_level, 0, 0);
}

/* The five strings, then the walk fields a converter adds: how the input
 * is walked where a device's .snap is walked otherwise (a minidump's
 * scanned frames need no proof from code, a microdump's modules overlap). */
static int write_system(struct snap_writer *w, const struct sw_snapshot *s, struct payload *p)
{
	put_le(p, snap_os_of(s->sys.os), 2);
	put_str(p, s->sys.os_name);
	put_str(p, s->sys.os_version);
	put_str(p, s->sys.cpu_info);
	put_str(p, NULL); /* device */
	put_str(p, NULL); /* firmware version */
	uint32_t flags = (s->scans_need_code ? 0 : SNAP_SYS_SCANS_BY_RULE) |
	                 (s->modules_by_end ? SNAP_SYS_MODULES_BY_END : 0);
	put_le(p, flags, 4);
	put_le(p, s->sys.pointer_auth_mask, 8);
	return write_payload(w, SNAP_REC_SYSTEM, p);
}

/* ---- Modules ----------------------------------------------------------- */

/* The module's GNU build-id, when its code id is one: hex whose Breakpad
 * debug id is the module's (a Windows code id is hex too, but no build-id).
 * Its length in bytes, 0 when none. */
static size_t module_build_id(const struct sw_module *m, uint8_t out[SNAP_MAX_BUILD_ID])
{
	size_t len = m->code_id ? strlen(m->code_id) : 0;
	if (len == 0 || len % 2 || len > 2 * SNAP_MAX_BUILD_ID || !m->debug_id)
		return 0;
	for (size_t i = 0; i < len / 2; i++) {
		unsigned byte;
		if (sscanf(m->code_id + 2 * i, "%2x", &byte) != 1)
			return 0;
		out[i] = (uint8_t)byte;
	}
	struct sw_arena a;
	sw_arena_init(&a);
	const char *debug_id = sw_build_id_debug_id(&a, (struct sw_span){ out, len / 2, 0, false });
	bool same = debug_id && strcmp(debug_id, m->debug_id) == 0;
	sw_arena_free(&a);
	return same ? len / 2 : 0;
}

/* base, size, bias, build-id, name; then the identity fields. The bias is
 * run-time − link address: base + load_bias when the image's first byte is
 * linked at 0 (shared libraries, PIE); a reader of this revision takes the
 * load bias itself from the identity fields instead. */
static int write_module(struct snap_writer *w, const struct sw_module *m, struct payload *p)
{
	uint8_t build_id[SNAP_MAX_BUILD_ID];
	size_t id_len = module_build_id(m, build_id);
	put_le(p, m->base, 8);
	put_le(p, m->size, 8);
	put_le(p, m->base + m->load_bias, 8);
	put_le(p, id_len, 2);
	put(p, build_id, id_len);
	put_str(p, m->code_file);
	put_str(p, m->debug_file);
	put_str(p, m->debug_id);
	put_str(p, m->code_id);
	put_str(p, m->version);
	put_le(p, SNAP_MOD_HAS_LOAD_BIAS | (m->image_addr ? SNAP_MOD_HAS_IMAGE_ADDR : 0), 1);
	put_le(p, m->load_bias, 8);
	put_le(p, m->image_addr, 8);
	put_le(p, m->image_offset, 8);
	/* The image file as this machine sees it: absolute, so that the .snap
	 * is walked from any directory. */
	char real[PATH_MAX];
	put_str(p, m->image_path && realpath(m->image_path, real) ? real : m->image_path);
	return write_payload(w, SNAP_REC_MODULE, p);
}

/* ---- Crash ------------------------------------------------------------- */

static uint16_t crash_kind(enum sw_os os)
{
	switch (os) {
	case SW_OS_UNKNOWN: return SNAP_CRASH_UNSPECIFIED;
	case SW_OS_NONE: return SNAP_CRASH_CPU_EXCEPTION;
	case SW_OS_WINDOWS:
	case SW_OS_MACOS:
	case SW_OS_IOS: return SNAP_CRASH_OS_EXCEPTION;
	default: return SNAP_CRASH_SIGNAL;
	}
}

static int write_crash(struct snap_writer *w, const struct sw_snapshot *s)
{
	const struct sw_crash *c = &s->crash;
	return snap_crash(w, &(struct snap_crash){
		.thread_id = c->thread_id,
		.kind = crash_kind(s->sys.os),
		.flags = SNAP_CRASH_HAS_ADDRESS,
		.code = c->code,
		.subcode = c->flags,
		.address = c->address,
		.reason = c->reason,
	});
}

/* ---- Threads ----------------------------------------------------------- */

/* The thread the walk reports as crashed (lib/walker.c's rule): the
 * exception's, else the one that asked for the dump; NULL when neither. */
static const struct sw_thread *crashing_thread(const struct sw_snapshot *s)
{
	bool has = s->crash.present || s->has_requesting_thread_id;
	uint32_t id = s->crash.present ? s->crash.thread_id : s->requesting_thread_id;
	for (uint32_t i = 0; has && i < s->nthreads; i++)
		if (s->threads[i].id == id)
			return &s->threads[i];
	return NULL;
}

/* The thread that wrote a minidump, which the walk lists but does not
 * walk (Breakpad's rule): its registers are the dump writer's own. */
static bool is_dump_thread(const struct sw_snapshot *s, const struct sw_thread *t)
{
	return s->has_dump_thread_id && t->id == s->dump_thread_id && crashing_thread(s) != t;
}

/* Is thread t written? With all threads, every one; else the crashing
 * one, or every one when none crashed (there is no thread to choose). */
static bool thread_written(const struct sw_snapshot *s, const struct sw_thread *t,
                           const struct sw_snap_convert_options *o)
{
	const struct sw_thread *crashed = crashing_thread(s);
	if (crashed == t)
		return true;
	if (is_dump_thread(s, t) && !o->all_threads)
		return false;
	return o->all_threads || !crashed;
}

/* A Cortex-M thread keeps its exception and fault registers in the
 * Cortex-M set; an A-profile thread's cpsr is the arm set's. */
static uint16_t regset_of(const struct sw_snapshot *s, const struct sw_thread *t)
{
	uint64_t xpsr;
	switch (s->sys.cpu) {
	case SW_CPU_X86: return SNAP_REGSET_X86;
	case SW_CPU_AMD64: return SNAP_REGSET_AMD64;
	case SW_CPU_ARM:
		return sw_thread_extra_reg(t, "xpsr", &xpsr) ? SNAP_REGSET_CORTEX_M : SNAP_REGSET_ARM;
	case SW_CPU_ARM64: return SNAP_REGSET_ARM64;
	case SW_CPU_MIPS:
	case SW_CPU_MIPS64: return SNAP_REGSET_MIPS;
	case SW_CPU_PPC:
	case SW_CPU_PPC64: return SNAP_REGSET_PPC;
	case SW_CPU_RISCV32:
	case SW_CPU_RISCV64: return SNAP_REGSET_RISCV;
	default: return 0;
	}
}

/* The values of set `regset` from a context in the arch table's numbering
 * (the reverse of sr_regs_to_thread): registers 0..same-1 are the table's
 * 0..same-1, the named ones after them are found by name. Returns the
 * valid mask. */
static uint64_t regset_values(const struct sw_arch *a, const struct sw_thread *t,
                              const struct sw_regs *ctx, uint16_t regset, uint64_t v[64])
{
	unsigned nregs = sr_regset_size(regset);
	uint64_t mask = 0;
	for (unsigned i = 0; i < nregs; i++) {
		/* A named register is the arch table's register of that name
		 * (riscv's vlenb), else the thread's extra register. */
		const char *name = sr_regset_name(regset, i);
		int ours = name ? sw_arch_reg_index(a, name, strlen(name)) : (int)i;
		bool have = ours >= 0 && (unsigned)ours < a->nregs && sw_reg_valid(ctx, (unsigned)ours);
		if (have)
			v[i] = sw_reg_get(ctx, (unsigned)ours);
		else if (name)
			have = sw_thread_extra_reg(t, name, &v[i]);
		if (have)
			mask |= (uint64_t)1 << i;
	}
	return mask;
}

static int write_thread(struct snap_writer *w, const struct sw_snapshot *s,
                        const struct sw_thread *t, uint8_t word_size)
{
	const struct sw_arch *a = sw_arch_for_cpu(s->sys.cpu);
	/* The walk starts the crashing thread from the exception's context
	 * when there is one (a minidump's exception record). */
	bool crashed = s->crash.present && t->id == s->crash.thread_id;
	const struct sw_regs *ctx = crashed && s->crash.ctx.valid ? &s->crash.ctx : &t->ctx;
	uint16_t regset = regset_of(s, t);
	uint64_t v[64] = { 0 }, mask = 0;
	/* The dump writer goes without registers: listed, not walked. */
	if (a && regset && ctx->valid && !is_dump_thread(s, t))
		mask = regset_values(a, t, ctx, regset, v);
	/* snap_thread reads words of the header's size in our own order. */
	uint32_t v32[64];
	for (unsigned i = 0; i < 64; i++)
		v32[i] = (uint32_t)v[i];
	bool requesting = !s->crash.present && s->has_requesting_thread_id &&
	                  t->id == s->requesting_thread_id;
	return snap_thread(w, &(struct snap_thread){
		.id = t->id,
		.regset = regset,
		.flags = requesting ? SNAP_THREAD_RUNNING : 0,
		.name = t->name,
		.valid = mask,
		.values = word_size == 4 ? (const void *)v32 : (const void *)v,
		.stack_lo = t->stack_size ? t->stack_base : 0,
		.stack_hi = t->stack_size ? t->stack_base + t->stack_size : 0,
	});
}

/* ---- Memory ------------------------------------------------------------ */

static bool region_holds(const struct sw_mem_region *r, uint64_t addr)
{
	return addr >= r->base && addr - r->base < r->size;
}

/* Is region r another thread's stack, one not written? Then it stays out:
 * it holds that thread's sp, and no written thread's. */
static bool region_wanted(const struct sw_snapshot *s, const struct sw_mem_region *r,
                          const struct sw_snap_convert_options *o)
{
	const struct sw_arch *a = sw_arch_for_cpu(s->sys.cpu);
	if (o->all_threads || !a)
		return true;
	bool other_stack = false;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct sw_thread *t = &s->threads[i];
		bool crashed = s->crash.present && t->id == s->crash.thread_id;
		const struct sw_regs *ctx = crashed && s->crash.ctx.valid ? &s->crash.ctx : &t->ctx;
		if (!sw_reg_valid(ctx, a->sp) || !region_holds(r, sw_reg_get(ctx, a->sp)))
			continue;
		if (thread_written(s, t, o))
			return true;
		other_stack = true;
	}
	return !other_stack;
}

/* One region, compressed (MEMORY_ZLIB) in chunks the reader takes; a
 * chunk that does not shrink goes as it is (MEMORY). */
static int write_region(struct snap_writer *w, const struct sw_mem_region *r)
{
	uLong cap = compressBound(ZLIB_CHUNK);
	Bytef *z = malloc(cap);
	if (!z)
		return -1;
	int rc = SNAP_OK;
	for (uint64_t at = 0; at < r->size && rc == SNAP_OK; at += ZLIB_CHUNK) {
		uint64_t n = r->size - at < ZLIB_CHUNK ? r->size - at : ZLIB_CHUNK;
		uLongf zlen = cap;
		if (compress2(z, &zlen, r->data + at, (uLong)n, Z_DEFAULT_COMPRESSION) == Z_OK &&
		    zlen < n)
			rc = snap_memory_zlib(w, r->base + at, n, z, zlen);
		else
			rc = snap_memory(w, r->base + at, r->data + at, (size_t)n);
	}
	free(z);
	return rc;
}

/* ---- The whole --------------------------------------------------------- */

struct file_out {
	FILE *f;
};

static int write_to_file(void *ctx, const void *bytes, size_t n)
{
	struct file_out *o = ctx;
	return fwrite(bytes, 1, n, o->f) == n ? 0 : 1;
}

/* In the order the format recommends: what matters most first. */
static int write_records(struct snap_writer *w, const struct sw_snapshot *s,
                         const struct sw_snap_convert_options *o, uint8_t word_size,
                         struct payload *p)
{
	int rc = write_system(w, s, p);
	for (uint32_t i = 0; i < s->nmodules && rc == SNAP_OK; i++)
		rc = write_module(w, &s->modules[i], p);
	if (rc == SNAP_OK && s->crash.present)
		rc = write_crash(w, s);
	const struct sw_thread *crashed = crashing_thread(s);
	if (rc == SNAP_OK && crashed)
		rc = write_thread(w, s, crashed, word_size);
	for (uint32_t i = 0; i < s->nthreads && rc == SNAP_OK; i++)
		if (&s->threads[i] != crashed && thread_written(s, &s->threads[i], o))
			rc = write_thread(w, s, &s->threads[i], word_size);
	for (uint32_t i = 0; i < s->nmem && rc == SNAP_OK; i++)
		if (s->mem[i].data && region_wanted(s, &s->mem[i], o))
			rc = write_region(w, &s->mem[i]);
	for (uint32_t i = 0; i < s->nannotations && rc == SNAP_OK; i++)
		if (s->annotations[i].module == -1 && s->annotations[i].key)
			rc = snap_annotation(w, s->annotations[i].key, s->annotations[i].value);
	return rc == SNAP_OK ? snap_end(w) : rc;
}

enum sw_err_code sw_snap_convert(const struct sw_snapshot *s,
                                 const struct sw_snap_convert_options *o, snap_write_fn write,
                                 void *ctx, struct sw_err *err)
{
	static const struct sw_snap_convert_options defaults = { 0 };
	if (!o)
		o = &defaults;
	uint8_t word_size;
	uint16_t cpu = snap_cpu_of(s->sys.cpu, &word_size);
	if (!cpu)
		return sw_err_set(err, SW_ERR_UNSUPPORTED, "%s: CPU '%s' has no .snap CPU id",
		                  s->path, s->sys.cpu_name ? s->sys.cpu_name : "unknown");
	struct snap_writer w;
	snap_init_stream(&w, write, ctx);
	struct payload p = { 0 };
	int rc = snap_begin(&w, &(struct snap_header){
		.cpu = cpu,
		.word_size = word_size,
		.big_endian = s->sys.big_endian,
		.cpu_variant = cpu_variant(&s->sys),
		.time = s->dump_time,
	});
	if (rc == SNAP_OK)
		rc = write_records(&w, s, o, word_size, &p);
	bool nomem = p.failed || rc < 0;
	free(p.b);
	if (rc == SNAP_OK)
		return SW_OK;
	if (nomem)
		return sw_err_set(err, SW_ERR_NOMEM, "%s: out of memory while converting", s->path);
	if (rc == SNAP_IO)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot write the .snap", s->path);
	return sw_err_set(err, SW_ERR_UNSUPPORTED,
	                  "%s: a record too large for the .snap format (over 4 GiB)", s->path);
}

enum sw_err_code sw_snap_convert_file(const struct sw_snapshot *s,
                                      const struct sw_snap_convert_options *o,
                                      const char *out_path, struct sw_err *err)
{
	struct file_out out = { fopen(out_path, "wb") };
	if (!out.f)
		return sw_err_set(err, SW_ERR_IO, "%s: cannot create: %s", out_path, strerror(errno));
	enum sw_err_code rc = sw_snap_convert(s, o, write_to_file, &out, err);
	int saved = errno;
	if (fclose(out.f) != 0 && rc == SW_OK) {
		saved = errno;
		rc = SW_ERR_IO;
	}
	if (rc == SW_ERR_IO)
		sw_err_set(err, SW_ERR_IO, "%s: cannot write: %s", out_path, strerror(saved));
	if (rc != SW_OK)
		remove(out_path);
	return rc;
}
