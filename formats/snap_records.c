/* The .snap reader, the records: each intact record that snap.c found,
 * into the snapshot (docs/snap-format.md, "Records" and "How stackwalk maps
 * a snapshot"). Every field is read through the record's span, and a
 * record too short for its fields is dropped whole. Bytes after the fields
 * a record type has in version 1 are a later revision's and ignored, but
 * for the fields a converter adds to SYSTEM and MODULE (stackwalk convert:
 * how its input is walked, and each module's identity). */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "arch/registry.h"
#include "lib/build_id.h"
#include "snap_internal.h"

/* ---- Fields ----------------------------------------------------------- */

/* The str at *at of s, copied into the arena (NULL when empty); *at moves
 * past it. False when it does not fit in s. */
static bool read_str(struct sr_reader *r, struct sw_span s, uint64_t *at, const char **out)
{
	*out = NULL;
	if (!sw_span_has(s, *at, 2))
		return false;
	uint16_t n = sw_u16(s, *at);
	struct sw_span text;
	if (!sw_span_sub(s, *at + 2, n, &text))
		return false;
	*at += 2u + n;
	if (n && text.data[0] != '\0')
		*out = sw_arena_strndup(&r->snap->arena, (const char *)text.data, n);
	return true;
}

/* A record too short for its fields: dropped. */
static void too_short(struct sr_reader *r, const struct sr_record *rec)
{
	char tb[24];
	problem(r, false, "offset %llu: %s record of %llu bytes is shorter than its fields: "
	                    "dropped",
	          (unsigned long long)rec->off, sr_type_name(rec->type, tb, sizeof tb),
	          (unsigned long long)rec->payload.size);
}

static unsigned popcount64(uint64_t v)
{
	return (unsigned)__builtin_popcountll(v);
}

/* ---- SYSTEM ------------------------------------------------------------ */

static const struct {
	uint16_t id;
	enum sw_os os;
	const char *name;      /* when the record names none */
} sr_oses[] = {
	{ SNAP_OS_UNKNOWN, SW_OS_UNKNOWN, "Unknown" },
	{ SNAP_OS_NONE, SW_OS_NONE, "Bare metal" },
	{ SNAP_OS_LINUX, SW_OS_LINUX, "Linux" },
	{ SNAP_OS_ANDROID, SW_OS_ANDROID, "Android" },
	{ SNAP_OS_WINDOWS, SW_OS_WINDOWS, "Windows NT" },
	{ SNAP_OS_MACOS, SW_OS_MACOS, "Mac OS X" },
	{ SNAP_OS_IOS, SW_OS_IOS, "iOS" },
	{ SNAP_OS_FUCHSIA, SW_OS_FUCHSIA, "Fuchsia" },
	{ SNAP_OS_NETBSD, SW_OS_NETBSD, "NetBSD" },
	{ SNAP_OS_SOLARIS, SW_OS_SOLARIS, "Solaris" },
};

/* The fields a converter adds after the five strings (docs/snap-format.md,
 * "SYSTEM"): how the snapshot it came from is walked. A device writes
 * none; a record that has some but not all is damaged. */
static void read_system_walk_fields(struct sr_reader *r, const struct sr_record *rec,
                                    uint64_t at)
{
	struct sw_snapshot *s = r->snap;
	struct sw_span p = rec->payload;
	if (at == p.size)
		return;
	if (!sw_span_has(p, at, 12)) {
		problem(r, false, "offset %llu: SYSTEM record's walk fields are cut short: ignored",
		          (unsigned long long)rec->off);
		return;
	}
	uint32_t flags = sw_u32(p, at);
	r->scans_by_rule = (flags & SNAP_SYS_SCANS_BY_RULE) != 0;
	s->modules_by_end = (flags & SNAP_SYS_MODULES_BY_END) != 0;
	s->sys.pointer_auth_mask = sw_u64(p, at + 4);
}

static void read_system(struct sr_reader *r, const struct sr_record *rec)
{
	struct sw_system_info *sys = &r->snap->sys;
	if (r->has_system) {
		problem(r, true, "offset %llu: a second SYSTEM record: the first is kept",
		          (unsigned long long)rec->off);
		return;
	}
	struct sw_span p = rec->payload;
	const char *name, *version, *model, *device, *firmware;
	uint64_t at = 2;
	if (!sw_span_has(p, 0, 2) || !read_str(r, p, &at, &name) || !read_str(r, p, &at, &version) ||
	    !read_str(r, p, &at, &model) || !read_str(r, p, &at, &device) ||
	    !read_str(r, p, &at, &firmware)) {
		too_short(r, rec);
		return;
	}
	r->has_system = true;
	uint16_t os = sw_u16(p, 0);
	sys->os = SW_OS_UNKNOWN;
	sys->os_name = "Unknown";
	for (size_t i = 0; i < sizeof sr_oses / sizeof sr_oses[0]; i++)
		if (sr_oses[i].id == os) {
			sys->os = sr_oses[i].os;
			sys->os_name = sr_oses[i].name;
		}
	if (name)
		sys->os_name = name;
	sys->os_version = version;
	sys->cpu_info = model;
	r->device = device;
	r->firmware_version = firmware;
	read_system_walk_fields(r, rec, at);
}

/* ---- THREAD ------------------------------------------------------------- */

enum { THREAD_FIXED = 32 };   /* id .. stack high, before the name */

static bool has_thread(const struct sw_snapshot *s, uint32_t id, uint32_t before)
{
	for (uint32_t i = 0; i < before; i++)
		if (s->threads[i].id == id)
			return true;
	return false;
}

/* The thread's stack bounds, when they hold its sp: the walker keeps to
 * them. A handler's context runs on another stack than its task (a
 * Cortex-M's MSP): then they are not used. */
static void set_stack_bounds(struct sr_reader *r, const struct sr_record *rec,
                             struct sw_thread *t, uint64_t lo, uint64_t hi)
{
	if (lo == 0 && hi == 0)
		return;
	if (lo >= hi) {
		problem(r, true, "offset %llu: thread %u: stack bounds 0x%llx-0x%llx are "
		                   "empty: not used",
		          (unsigned long long)rec->off, t->id, (unsigned long long)lo,
		          (unsigned long long)hi);
		return;
	}
	const struct sw_arch *a = sw_arch_for_cpu(r->cpu);
	uint64_t sp = a ? sw_reg_get(&t->ctx, a->sp) : 0;
	if (a && sw_reg_valid(&t->ctx, a->sp) && sp >= lo && sp < hi) {
		t->stack_base = lo;
		t->stack_size = hi - lo;
	}
}

static void read_thread(struct sr_reader *r, const struct sr_record *rec)
{
	struct sw_snapshot *s = r->snap;
	struct sw_span p = rec->payload;
	const char *name;
	uint64_t at = THREAD_FIXED;
	if (!read_str(r, p, &at, &name)) {
		too_short(r, rec);
		return;
	}
	uint64_t mask = sw_u64(p, 8);
	struct sw_span values;
	if (!sw_span_sub(p, at, (uint64_t)popcount64(mask) * r->word_size, &values)) {
		too_short(r, rec);
		return;
	}
	if (s->nthreads == SR_MAX_THREADS) {
		problem(r, false, "offset %llu: more than %d threads: the rest ignored",
		          (unsigned long long)rec->off, SR_MAX_THREADS);
		return;
	}
	struct sw_thread *t = &s->threads[s->nthreads];
	memset(t, 0, sizeof *t);
	t->id = sw_u32(p, 0);
	t->name = name;
	t->cpu = r->cpu;
	uint16_t regset = sw_u16(p, 4), flags = sw_u16(p, 6);
	if (has_thread(s, t->id, s->nthreads))
		problem(r, true, "offset %llu: thread id %u given again", (unsigned long long)rec->off,
		          t->id);
	unsigned size = sr_regset_size(regset);
	if (size == 0)
		problem(r, true, "offset %llu: thread %u: register set %u is unknown to this "
		                   "stackwalk: the thread has no registers",
		          (unsigned long long)rec->off, t->id, regset);
	else if (!sr_regset_fits(regset, r->cpu))
		problem(r, false, "offset %llu: thread %u: register set %u is not one of CPU "
		                    "id %u's: the thread has no registers",
		          (unsigned long long)rec->off, t->id, regset, r->cpu_id);
	else {
		if (size < SR_MAX_REGS && mask >> size)
			problem(r, true, "offset %llu: thread %u: registers %u and above are not in "
			                   "register set %u: ignored",
			          (unsigned long long)rec->off, t->id, size, regset);
		sr_regs_to_thread(r, t, regset, mask, values);
		r->cortex_m |= regset == SNAP_REGSET_CORTEX_M;
	}
	set_stack_bounds(r, rec, t, sw_u64(p, 16), sw_u64(p, 24));
	if ((flags & SNAP_THREAD_RUNNING) && !r->has_running) {
		r->has_running = true;
		r->running = t->id;
	}
	s->nthreads++;
}

/* ---- MEMORY and MEMORY_ZLIB ------------------------------------------- */

/* A region, cut where it would run past the end of the address space. */
static void add_region(struct sr_reader *r, const struct sr_record *rec, uint64_t base,
                       uint64_t size, const uint8_t *data)
{
	struct sw_snapshot *s = r->snap;
	if (size == 0)
		return;
	if (s->nmem == SR_MAX_MEMORY_RECORDS) {
		problem(r, false, "offset %llu: more than %d memory records: the rest ignored",
		          (unsigned long long)rec->off, SR_MAX_MEMORY_RECORDS);
		return;
	}
	if (size - 1 > UINT64_MAX - base) {
		problem(r, false, "offset %llu: memory at 0x%llx runs past the end of the "
		                    "address space: cut there",
		          (unsigned long long)rec->off, (unsigned long long)base);
		size = UINT64_MAX - base + 1;
	}
	s->mem[s->nmem++] = (struct sw_mem_region){ base, size, data };
}

static void read_memory(struct sr_reader *r, const struct sr_record *rec)
{
	struct sw_span p = rec->payload;
	if (!sw_span_has(p, 0, 8)) {
		too_short(r, rec);
		return;
	}
	add_region(r, rec, sw_u64(p, 0), p.size - 8, sw_span_ptr(p, 8));
}

/* How much a MEMORY_ZLIB record may inflate to (docs/snap-format.md,
 * "Limits"): deflate packs at most 1032 bytes into one (RFC 1951's longest
 * match, 258 bytes, in 2 bits at best), so a claim beyond that is a lie
 * that must not become an allocation. */
static uint64_t inflate_limit(uint64_t zlen)
{
	uint64_t by_ratio = zlen * 1032 + (64u << 10);
	return by_ratio < SR_MAX_INFLATED_RECORD ? by_ratio : SR_MAX_INFLATED_RECORD;
}

static void read_memory_zlib(struct sr_reader *r, const struct sr_record *rec)
{
	struct sw_span p = rec->payload;
	if (!sw_span_has(p, 0, 16)) {
		too_short(r, rec);
		return;
	}
	uint64_t base = sw_u64(p, 0), size = sw_u64(p, 8);
	struct sw_span z = sw_span_clip(p, 16, p.size - 16);
	if (size == 0)
		return;
	if (size > inflate_limit(z.size) || size > SR_MAX_INFLATED - r->inflated) {
		problem(r, false, "offset %llu: MEMORY_ZLIB record at 0x%llx claims %llu bytes "
		                    "from %llu compressed, past the limits (256 MiB a record, 1 GiB "
		                    "in all, deflate's ratio): dropped",
		          (unsigned long long)rec->off, (unsigned long long)base,
		          (unsigned long long)size, (unsigned long long)z.size);
		return;
	}
	uint8_t *out = sw_arena_alloc(&r->snap->arena, (size_t)size);
	if (!out) {
		problem(r, false, "offset %llu: out of memory for %llu inflated bytes",
		          (unsigned long long)rec->off, (unsigned long long)size);
		return;
	}
	r->inflated += size;
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit(&zs) != Z_OK) {
		problem(r, false, "offset %llu: zlib cannot start", (unsigned long long)rec->off);
		return;
	}
	zs.next_in = (Bytef *)z.data;
	zs.avail_in = (uInt)z.size;  /* a record's payload is below 4 GiB */
	zs.next_out = out;
	zs.avail_out = (uInt)size;   /* at most 256 MiB */
	int zr = inflate(&zs, Z_FINISH);
	uint64_t got = size - zs.avail_out;
	inflateEnd(&zs);
	if (zr != Z_STREAM_END || got != size)
		problem(r, false, "offset %llu: MEMORY_ZLIB record at 0x%llx inflates to %llu of "
		                    "its %llu bytes (%s): those are kept",
		          (unsigned long long)rec->off, (unsigned long long)base,
		          (unsigned long long)got, (unsigned long long)size,
		          zr == Z_STREAM_END ? "the stream ends early"
		          : zr == Z_BUF_ERROR && got == size ? "the stream goes on"
		                                             : "a damaged stream");
	add_region(r, rec, base, got, out);
}

/* ---- MODULE ------------------------------------------------------------ */

/* The fields a converter adds after the name (docs/snap-format.md,
 * "MODULE"): the module's identity as the snapshot it came from gives it
 * (a Windows module's PDB name and GUID, not a build-id), and where its
 * symbol offsets and its image are. True when they give the load bias:
 * then it is not worked out again from the module's ELF file. */
static bool read_module_identity(struct sr_reader *r, const struct sr_record *rec,
                                 struct sw_module *m, uint64_t at)
{
	struct sw_span p = rec->payload;
	if (at == p.size)
		return false;
	const char *debug_file, *debug_id, *code_id, *version, *image_path;
	bool fits = read_str(r, p, &at, &debug_file) && read_str(r, p, &at, &debug_id) &&
	            read_str(r, p, &at, &code_id) && read_str(r, p, &at, &version) &&
	            sw_span_has(p, at, 25);
	uint64_t fixed = at;
	at += 25;
	if (!fits || !read_str(r, p, &at, &image_path)) {
		problem(r, false, "offset %llu: MODULE record's identity fields are cut short: "
		                    "ignored",
		          (unsigned long long)rec->off);
		return false;
	}
	if (debug_file)
		m->debug_file = debug_file;
	if (debug_id)
		m->debug_id = debug_id;
	if (code_id)
		m->code_id = code_id;
	m->version = version;
	uint8_t flags = sw_u8(p, fixed);
	if (flags & SNAP_MOD_HAS_IMAGE_ADDR)
		m->image_addr = sw_u64(p, fixed + 9);
	m->image_path = image_path;
	m->image_offset = sw_u64(p, fixed + 17);
	if (!(flags & SNAP_MOD_HAS_LOAD_BIAS))
		return false;
	m->load_bias = sw_u64(p, fixed + 1);
	return true;
}

static void read_module(struct sr_reader *r, const struct sr_record *rec, uint64_t *bias,
                        bool *linked)
{
	struct sw_snapshot *s = r->snap;
	struct sw_span p = rec->payload;
	struct sw_span build_id;
	const char *name = NULL;
	bool fits = sw_span_has(p, 0, 26) && sw_span_sub(p, 26, sw_u16(p, 24), &build_id);
	uint64_t at = 26 + build_id.size;
	if (!fits || !read_str(r, p, &at, &name)) {
		too_short(r, rec);
		return;
	}
	if (s->nmodules == SR_MAX_MODULES) {
		problem(r, false, "offset %llu: more than %d modules: the rest ignored",
		          (unsigned long long)rec->off, SR_MAX_MODULES);
		return;
	}
	struct sw_module *m = &s->modules[s->nmodules];
	memset(m, 0, sizeof *m);
	m->base = sw_u64(p, 0);
	m->size = sw_u64(p, 8);
	if (m->size && m->size - 1 > UINT64_MAX - m->base) {
		problem(r, true, "offset %llu: module %s runs past the end of the address "
		                   "space: cut there",
		          (unsigned long long)rec->off, name ? name : "(unnamed)");
		m->size = UINT64_MAX - m->base + 1;
	}
	m->code_file = name ? name : "";
	m->debug_file = sw_basename(m->code_file);
	if (build_id.size > SNAP_MAX_BUILD_ID)
		problem(r, true, "offset %llu: module %s: a build-id of %llu bytes, more than 64: "
		                   "not used",
		          (unsigned long long)rec->off, m->code_file,
		          (unsigned long long)build_id.size);
	else if (build_id.size) {
		m->code_id = sw_build_id_code_id(&s->arena, build_id);
		m->debug_id = sw_build_id_debug_id(&s->arena, build_id);
	}
	bias[s->nmodules] = sw_u64(p, 16);
	linked[s->nmodules] = read_module_identity(r, rec, m, at);
	s->nmodules++;
}

/* ---- CRASH ------------------------------------------------------------- */

static void read_crash(struct sr_reader *r, const struct sr_record *rec)
{
	struct sw_snapshot *s = r->snap;
	if (r->has_crash) {
		problem(r, true, "offset %llu: a second CRASH record: the first is kept",
		          (unsigned long long)rec->off);
		return;
	}
	struct sw_span p = rec->payload;
	const char *reason;
	uint64_t at = 24;
	if (!read_str(r, p, &at, &reason)) {
		too_short(r, rec);
		return;
	}
	r->has_crash = true;
	struct sw_crash *c = &s->crash;
	c->present = true;
	c->thread_id = sw_u32(p, 0);
	uint16_t kind = sw_u16(p, 4), flags = sw_u16(p, 6);
	r->crash_kind = kind;
	c->code = sw_u32(p, 8);
	c->flags = sw_u32(p, 12);
	c->address = (flags & SNAP_CRASH_HAS_ADDRESS) ? sw_u64(p, 16) : 0;
	c->reason = reason;
	/* What lib/crash_reason.c cannot name from the code alone: it reads a
	 * code as the OS's signal or exception, or on bare metal as the CPU's
	 * exception. */
	if (!reason && kind == SNAP_CRASH_SOFTWARE)
		c->reason = sw_arena_printf(&s->arena, "software fault 0x%08x / 0x%08x", c->code,
		                            c->flags);
	else if (!reason && kind == SNAP_CRASH_CPU_EXCEPTION && s->sys.os != SW_OS_NONE)
		c->reason = sw_arena_printf(&s->arena, "CPU exception 0x%08x / 0x%08x", c->code,
		                            c->flags);
}

/* ---- ANNOTATION -------------------------------------------------------- */

static void add_annotation(struct sw_snapshot *s, const char *key, const char *value)
{
	s->annotations[s->nannotations++] =
		(struct sw_annotation){ -1, SW_ANNOT_SIMPLE, key ? key : "", value ? value : "" };
}

static void read_annotation(struct sr_reader *r, const struct sr_record *rec)
{
	struct sw_snapshot *s = r->snap;
	const char *key, *value;
	uint64_t at = 0;
	if (!read_str(r, rec->payload, &at, &key) || !read_str(r, rec->payload, &at, &value)) {
		too_short(r, rec);
		return;
	}
	if (s->nannotations >= SR_MAX_ANNOTATIONS) {
		problem(r, false, "offset %llu: more than %d annotations: the rest ignored",
		          (unsigned long long)rec->off, SR_MAX_ANNOTATIONS);
		return;
	}
	add_annotation(s, key, value);
}

/* ---- The whole -------------------------------------------------------- */

static uint32_t count_type(const struct sr_reader *r, uint16_t a, uint16_t b, uint32_t cap)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->nrecords; i++)
		n += r->records[i].type == a || r->records[i].type == b;
	return n < cap ? n : cap;
}

/* The arrays the records go into, sized by the records found (each
 * record holds one; the file's size bounds their number). */
static bool allocate(struct sr_reader *r, uint64_t **bias, bool **linked)
{
	struct sw_snapshot *s = r->snap;
	struct sw_arena *a = &s->arena;
	uint32_t nt = count_type(r, SNAP_REC_THREAD, SNAP_REC_THREAD, SR_MAX_THREADS);
	uint32_t nm = count_type(r, SNAP_REC_MEMORY, SNAP_REC_MEMORY_ZLIB, SR_MAX_MEMORY_RECORDS);
	uint32_t nmod = count_type(r, SNAP_REC_MODULE, SNAP_REC_MODULE, SR_MAX_MODULES);
	uint32_t na = count_type(r, SNAP_REC_ANNOTATION, SNAP_REC_ANNOTATION, SR_MAX_ANNOTATIONS);
	s->threads = sw_arena_array(a, nt ? nt : 1, sizeof *s->threads);
	s->mem = sw_arena_array(a, nm ? nm : 1, sizeof *s->mem);
	s->modules = sw_arena_array(a, nmod ? nmod : 1, sizeof *s->modules);
	*bias = sw_arena_array(a, nmod ? nmod : 1, sizeof **bias);
	*linked = sw_arena_array(a, nmod ? nmod : 1, sizeof **linked);
	/* Two more: the SYSTEM record's device and firmware version. */
	s->annotations = sw_arena_array(a, na + 2, sizeof *s->annotations);
	if (!s->threads || !s->mem || !s->modules || !*bias || !*linked || !s->annotations) {
		problem(r, false, "out of memory for %u threads, %u memory records, %u modules",
		          nt, nm, nmod);
		return false;
	}
	return true;
}

static void set_system_info(struct sr_reader *r)
{
	struct sw_snapshot *s = r->snap;
	struct sw_system_info *sys = &s->sys;
	const struct sw_arch *a = sw_arch_for_cpu(r->cpu);
	sys->cpu = r->cpu;
	sys->cpu_name = a ? a->name : "unknown";
	sys->word_size = r->word_size;
	sys->big_endian = r->big_endian;
	if (!r->has_system)
		sys->os_name = "Unknown";
	if (r->cpu == SW_CPU_ARM) {
		char profile = (char)(r->cpu_variant & 0xff);
		if (profile == 'A' || profile == 'R' || profile == 'M')
			sys->arm_profile = profile;
		else if (r->cortex_m)
			sys->arm_profile = 'M';
		sys->processor_level = (uint16_t)((r->cpu_variant >> 8) & 0xff);
	}
	if (r->device && sys->cpu_info)
		sys->cpu_info = sw_arena_printf(&s->arena, "%s, %s", sys->cpu_info, r->device);
	else if (r->device)
		sys->cpu_info = r->device;
	if (r->time)
		s->dump_time = r->time > UINT32_MAX ? UINT32_MAX : (uint32_t)r->time;
	if (r->device)
		add_annotation(s, "device", r->device);
	if (r->firmware_version) {
		add_annotation(s, "firmware_version", r->firmware_version);
		if (s->nmodules && !s->modules[0].version)
			s->modules[0].version = r->firmware_version;
	}
}

static const struct sw_thread *thread_with_id(const struct sw_snapshot *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].id == id)
			return &s->threads[i];
	return NULL;
}

/* The crashing thread, or without a crash the running one. A Cortex-M
 * exception whose CRASH record leaves the fault status out (0) takes the
 * CFSR its thread's registers hold: the same register, read once. */
static void set_threads_of_interest(struct sr_reader *r)
{
	struct sw_snapshot *s = r->snap;
	const struct sw_thread *crashed =
		s->crash.present ? thread_with_id(s, s->crash.thread_id) : NULL;
	if (s->crash.present && !crashed)
		problem(r, true, "the CRASH record names thread %u, which no THREAD record gives",
		          s->crash.thread_id);
	uint64_t cfsr;
	if (crashed && r->crash_kind == SNAP_CRASH_CPU_EXCEPTION && s->crash.flags == 0 &&
	    sw_thread_extra_reg(crashed, "cfsr", &cfsr))
		s->crash.flags = (uint32_t)cfsr;
	if (!s->crash.present && r->has_running) {
		s->has_requesting_thread_id = true;
		s->requesting_thread_id = r->running;
	}
}

void sr_read_records(struct sr_reader *r)
{
	struct sw_snapshot *s = r->snap;
	uint64_t *bias;
	bool *linked;
	if (!allocate(r, &bias, &linked))
		return;
	uint32_t unknown = 0;
	const struct sr_record *first_unknown = NULL;
	/* SYSTEM first: the crash reason depends on the OS. */
	for (uint32_t i = 0; i < r->nrecords; i++)
		if (r->records[i].type == SNAP_REC_SYSTEM)
			read_system(r, &r->records[i]);
	for (uint32_t i = 0; i < r->nrecords; i++) {
		const struct sr_record *rec = &r->records[i];
		switch (rec->type) {
		case SNAP_REC_SYSTEM: case SNAP_REC_END: break;
		case SNAP_REC_THREAD: read_thread(r, rec); break;
		case SNAP_REC_MEMORY: read_memory(r, rec); break;
		case SNAP_REC_MEMORY_ZLIB: read_memory_zlib(r, rec); break;
		case SNAP_REC_MODULE: read_module(r, rec, bias, linked); break;
		case SNAP_REC_CRASH: read_crash(r, rec); break;
		case SNAP_REC_ANNOTATION: read_annotation(r, rec); break;
		default:
			/* A later revision's record, or a project's own (0x8000 and
			 * up, which are expected and not mentioned). */
			if (rec->type < SNAP_REC_USER && unknown++ == 0)
				first_unknown = rec;
			break;
		}
	}
	if (unknown) {
		char more[48] = "";
		if (unknown > 1)
			snprintf(more, sizeof more, ", and %u more of unknown types", unknown - 1);
		problem(r, true, "offset %llu: record type 0x%x is not one this stackwalk "
		                   "knows (a later revision's): skipped%s",
		          (unsigned long long)first_unknown->off, first_unknown->type, more);
	}
	set_system_info(r);
	set_threads_of_interest(r);
	if (s->nmodules)
		s->main_module = 0;
	sr_link_modules(r, bias, linked);
	if (r->scans_by_rule)
		s->scans_need_code = false;
	sw_snapshot_finish(s);
}
