/* rust-minidump's `minidump-stackwalk --json` schema, field for field (see
 * docs/json.md). serde_json prints object keys in sorted order, so every
 * object here writes its keys alphabetically; pretty output indents by two
 * spaces and writes empty containers as [] / {}. Addresses are hex strings
 * of the dump's pointer width ("0x%08x" or "0x%016x"). Inline frames are
 * not frames in this schema: they fold into their physical frame's
 * "inlines", and "frame" counts physical frames. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "crash_reason.h"
#include "no_coverage.h"
#include "output_internal.h"

enum { MAX_DEPTH = 32 };

/* The writer: its bytes go through out (struct sw_out_buf). Its plumbing
 * (separators, indentation, copying bytes) is SW_NO_COVERAGE: a fuzzed
 * report is thousands of keys, and a fuzzer's time goes to code whose
 * branches follow the input, not to tracing each byte copied; the values,
 * put_string's escapes of the input's names above all, stay traced. */
struct jw {
	struct sw_out_buf out;
	bool pretty;
	int depth;
	bool has_items[MAX_DEPTH]; /* the open container has an element */
	bool after_key;            /* the next value follows "key": */
	unsigned word;             /* 4 or 8: hex width of addresses */
};

SW_NO_COVERAGE static void jw_put(struct jw *j, const void *s, size_t n)
{
	sw_out_put(&j->out, s, n);
}

SW_NO_COVERAGE static void jw_puts(struct jw *j, const char *s)
{
	jw_put(j, s, strlen(s));
}

SW_NO_COVERAGE static void jw_putc(struct jw *j, char c)
{
	if (j->out.n == sizeof j->out.b)
		sw_out_flush(&j->out);
	j->out.b[j->out.n++] = c;
}

SW_NO_COVERAGE static void newline_indent(struct jw *j)
{
	if (!j->pretty)
		return;
	jw_putc(j, '\n');
	for (int i = 0; i < j->depth; i++)
		jw_put(j, "  ", 2);
}

/* Separator and indentation before a value or key. */
SW_NO_COVERAGE static void before_item(struct jw *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (j->has_items[j->depth - 1])
			jw_putc(j, ',');
		j->has_items[j->depth - 1] = true;
		newline_indent(j);
	}
}

/* The bytes a JSON string takes as they are (RFC 8259 §7): ASCII from
 * 0x20 but the quote and the backslash; a table, as every byte of every
 * name in a report is tested. */
static const uint8_t plain[256] = {
	[' '] = 1, ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1,
	['('] = 1, [')'] = 1, ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1,
	['/'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1, [';'] = 1, ['<'] = 1,
	['='] = 1, ['>'] = 1, ['?'] = 1, ['@'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1,
	['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
	['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1,
	['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1, ['['] = 1, [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['{'] = 1, ['|'] = 1,
	['}'] = 1, ['~'] = 1, [0x7f] = 1,
};

static bool plain_byte(unsigned char c)
{
	return plain[c] != 0;
}

/* Writes s as a JSON string: escapes quotes, backslashes and control
 * characters, replaces invalid UTF-8 with U+FFFD as serde's lossy
 * conversion does. Runs of plain bytes (nearly all of a report) are
 * copied whole. */
static void put_string(struct jw *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	jw_putc(j, '"');
	while (*p) {
		const unsigned char *run = p;
		while (plain_byte(*p))
			p++;
		if (p > run) {
			jw_put(j, run, (size_t)(p - run));
			continue;
		}
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			jw_putc(j, '\\');
			jw_putc(j, (char)c);
			p++;
		} else if (c < 0x20) {
			char u[8];
			switch (c) {
			case '\n': jw_put(j, "\\n", 2); break;
			case '\r': jw_put(j, "\\r", 2); break;
			case '\t': jw_put(j, "\\t", 2); break;
			case '\b': jw_put(j, "\\b", 2); break;
			case '\f': jw_put(j, "\\f", 2); break;
			default:
				snprintf(u, sizeof u, "\\u%04x", c);
				jw_put(j, u, 6);
				break;
			}
			p++;
		} else {
			/* Length and minimum value of the UTF-8 sequence. */
			unsigned len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
			if (c >= 0xf5)
				len = 0;
			uint32_t cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
			unsigned k = 1;
			for (; k < len; k++) {
				if ((p[k] & 0xc0) != 0x80)
					break;
				cp = cp << 6 | (p[k] & 0x3f);
			}
			bool ok = len != 0 && k == len &&
			          !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
			          !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
			if (ok) {
				jw_put(j, p, len);
				p += len;
			} else {
				jw_put(j, "\xef\xbf\xbd", 3);
				p += k > 1 ? k : 1;
			}
		}
	}
	jw_putc(j, '"');
}

/* Keys are this file's own names and the architectures' register names:
 * plain ASCII, so they are copied as they are, not scanned for escapes
 * (a report is one third keys). */
SW_NO_COVERAGE static void key(struct jw *j, const char *k)
{
	before_item(j);
	jw_putc(j, '"');
	jw_puts(j, k);
	jw_put(j, "\": ", j->pretty ? 3 : 2);
	j->after_key = true;
}

static void open_c(struct jw *j, char c)
{
	before_item(j);
	jw_putc(j, c);
	if (j->depth < MAX_DEPTH)
		j->has_items[j->depth] = false;
	j->depth++;
}

static void close_c(struct jw *j, char c)
{
	j->depth--;
	if (j->depth < MAX_DEPTH && j->has_items[j->depth])
		newline_indent(j);
	jw_putc(j, c);
}

static void obj(struct jw *j) { open_c(j, '{'); }
static void end_obj(struct jw *j) { close_c(j, '}'); }
static void arr(struct jw *j) { open_c(j, '['); }
static void end_arr(struct jw *j) { close_c(j, ']'); }

static void v_null(struct jw *j)
{
	before_item(j);
	jw_put(j, "null", 4);
}

static void v_str(struct jw *j, const char *s)
{
	if (!s) {
		v_null(j);
		return;
	}
	before_item(j);
	put_string(j, s);
}

static void v_u64(struct jw *j, uint64_t v)
{
	before_item(j);
	char buf[24];
	jw_put(j, buf, sw_out_fmt_dec(buf, v));
}

static void v_bool(struct jw *j, bool v)
{
	before_item(j);
	jw_puts(j, v ? "true" : "false");
}

/* A float as serde_json writes an f32: the fewest digits that read back
 * as the same f32 (rust-minidump's bit-flip confidence). */
static void v_f32(struct jw *j, float v)
{
	char buf[32];
	for (int p = 1; p <= 9; p++) {
		snprintf(buf, sizeof buf, "%.*g", p, (double)v);
		if (strtof(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	before_item(j);
	jw_puts(j, buf);
}

/* An address in the dump's pointer width (rust-minidump's Address). */
static void v_hex(struct jw *j, uint64_t v)
{
	char buf[24] = "\"0x";
	size_t n = 3 + (j->word == 4 ? sw_out_fmt_hex(buf + 3, v & 0xffffffff, 8)
	                             : sw_out_fmt_hex(buf + 3, v, 16));
	buf[n++] = '"';
	before_item(j);
	jw_put(j, buf, n);
}

static void k_str(struct jw *j, const char *k, const char *v) { key(j, k); v_str(j, v); }
static void k_null(struct jw *j, const char *k) { key(j, k); v_null(j); }
static void k_u64(struct jw *j, const char *k, uint64_t v) { key(j, k); v_u64(j, v); }
static void k_bool(struct jw *j, const char *k, bool v) { key(j, k); v_bool(j, v); }
static void k_hex(struct jw *j, const char *k, uint64_t v) { key(j, k); v_hex(j, v); }

/* ---- sections ----------------------------------------------------------- */

static bool module_valid(const struct sw_snapshot *s, int32_t i)
{
	return i >= 0 && (uint32_t)i < s->nmodules;
}

/* rust-minidump's os_ver: "major.minor.build[ csd]"; for Linux dumps with
 * version 0.0.0 the kernel version and build from the `uname -srvmo`
 * string ("Linux 4.9.60 #1 SMP ... x86_64" -> "4.9.60 #1 SMP ..."). */
static void write_os_ver(struct jw *j, const struct sw_system_info *sys)
{
	char ver[48];
	snprintf(ver, sizeof ver, "%" PRIu32 ".%" PRIu32 ".%" PRIu32,
	         sys->os_major, sys->os_minor, sys->os_build);
	const char *csd = sys->csd_version ? sys->csd_version : "";
	/* The build part is the CSD string trimmed. */
	while (*csd == ' ' || *csd == '\t' || *csd == '\n' || *csd == '\r')
		csd++;
	size_t clen = strlen(csd);
	while (clen && strchr(" \t\r\n", csd[clen - 1]))
		clen--;

	char *out = NULL;
	size_t outlen = 0;
	FILE *m = open_memstream(&out, &outlen);
	if (!m) {
		v_str(j, ver);
		return;
	}
	bool done = false;
	if (sys->os == SW_OS_LINUX && strcmp(ver, "0.0.0") == 0) {
		/* Split the untrimmed string on single spaces. */
		const char *raw = sys->csd_version ? sys->csd_version : "";
		size_t n = strlen(raw), nparts = 1;
		for (size_t i = 0; i < n; i++)
			nparts += raw[i] == ' ';
		const char **start = calloc(nparts, sizeof *start);
		size_t *len = calloc(nparts, sizeof *len);
		if (start && len) {
			size_t p = 0;
			start[0] = raw;
			for (size_t i = 0; i <= n; i++) {
				if (i == n || raw[i] == ' ') {
					len[p] = (size_t)(raw + i - start[p]);
					if (i < n)
						start[++p] = raw + i + 1;
				}
			}
			if (nparts >= 2 && !(len[1] == 5 && memcmp(start[1], "0.0.0", 5) == 0)) {
				size_t last = nparts; /* one past the build parts */
				if (nparts > 2) {
					last--; /* the arch, or "Linux/GNU" */
					if (len[last] == 9 && memcmp(start[last], "Linux/GNU", 9) == 0 &&
					    last > 2)
						last--;
				}
				fwrite(start[1], 1, len[1], m);
				fputc(' ', m);
				for (size_t i = 2; i < last; i++) {
					if (i > 2)
						fputc(' ', m);
					fwrite(start[i], 1, len[i], m);
				}
				done = true;
			}
		}
		free(start);
		free(len);
	}
	if (!done) {
		fputs(ver, m);
		if (clen) {
			fputc(' ', m);
			fwrite(csd, 1, clen, m);
		}
	}
	fclose(m);
	v_str(j, out);
	free(out);
}

static void write_system_info(struct jw *j, const struct sw_snapshot *s)
{
	const struct sw_system_info *sys = &s->sys;
	key(j, "system_info");
	obj(j);
	k_str(j, "cpu_arch", sys->cpu_name ? sys->cpu_name : "unknown");
	k_u64(j, "cpu_count", sys->cpu_count);
	k_str(j, "cpu_info", sys->cpu_info);
	key(j, "cpu_microcode_version");
	if (sys->has_cpu_microcode) {
		char buf[24];
		snprintf(buf, sizeof buf, "0x%" PRIx64, sys->cpu_microcode);
		v_str(j, buf);
	} else {
		v_null(j);
	}
	k_str(j, "os", sys->os_name ? sys->os_name : "Unknown");
	key(j, "os_ver");
	write_os_ver(j, sys);
	end_obj(j);
}

static void write_crash_info(struct jw *j, const struct sw_snapshot *s,
                             const struct sw_walk_result *w)
{
	bool crashed = s->crash.present;
	key(j, "crash_info");
	obj(j);
	key(j, "address");
	if (crashed)
		v_hex(j, sw_crash_address(s, SW_REASON_RUST));
	else
		v_null(j);
	/* The address the instruction really used (rust-minidump's
	 * AdjustedAddress): a null pointer's offset, or a non-canonical
	 * address the crash did not report. */
	struct sw_crash_analysis a;
	sw_crash_analyze(s, w, &a);
	key(j, "adjusted_address");
	if (a.adjusted == SW_ADJUSTED_NULL_POINTER) {
		obj(j);
		k_str(j, "kind", "null-pointer");
		k_hex(j, "offset", a.adjusted_address);
		end_obj(j);
	} else if (a.adjusted == SW_ADJUSTED_NON_CANONICAL) {
		obj(j);
		k_str(j, "kind", "non-canonical");
		k_hex(j, "address", a.adjusted_address);
		end_obj(j);
	} else {
		v_null(j);
	}
	k_str(j, "assertion", s->assertion);
	key(j, "crash_inconsistencies");
	if (crashed) {
		arr(j);
		for (unsigned bit = 1; bit <= SW_INCONSISTENT_ACCESS_NOT_FOUND; bit <<= 1)
			if (a.inconsistencies & bit)
				v_str(j, sw_crash_inconsistency_name(bit));
		end_arr(j);
	} else {
		v_null(j);
	}
	key(j, "crashing_thread");
	if (w && w->crashing >= 0 && (uint32_t)w->crashing < w->nstacks)
		v_u64(j, (uint64_t)w->crashing);
	else
		v_null(j);
	if (a.has_instruction)
		k_str(j, "instruction", a.instruction);
	else
		k_null(j, "instruction");
	key(j, "instruction_pointer_update");
	if (a.has_ip_update) {
		obj(j);
		k_hex(j, "address", a.ip_update);
		if (a.ip_update_in_guard_page)
			k_bool(j, "is_likely_guard_page", true);
		end_obj(j);
	} else {
		v_null(j);
	}
	const struct sw_mem_access *acc = a.accesses;
	key(j, "memory_accesses");
	if (a.naccesses < 0) {
		v_null(j);
	} else {
		arr(j);
		for (int i = 0; i < a.naccesses; i++) {
			obj(j);
			k_str(j, "access_type", acc[i].write ? "write" : "read");
			k_hex(j, "address", acc[i].address);
			/* Only when affirmative, as rust-minidump writes it. */
			if (a.access_in_guard_page[i])
				k_bool(j, "is_likely_guard_page", true);
			key(j, "size");
			v_u64(j, acc[i].size);
			end_obj(j);
		}
		end_arr(j);
	}
	const struct sw_bit_flip *flips = a.flips;
	key(j, "possible_bit_flips");
	if (a.nflips == 0) {
		v_null(j); /* rust-minidump: null, not [], when there is none */
	} else {
		arr(j);
		for (unsigned i = 0; i < a.nflips; i++) {
			obj(j);
			k_hex(j, "address", flips[i].address);
			key(j, "confidence");
			v_f32(j, flips[i].confidence);
			key(j, "details");
			obj(j);
			k_bool(j, "is_null", flips[i].is_null);
			k_u64(j, "nearby_registers", flips[i].nearby_registers);
			k_bool(j, "poison_registers", flips[i].poison_registers);
			k_bool(j, "was_low", flips[i].was_low);
			k_bool(j, "was_non_canonical", flips[i].was_non_canonical);
			end_obj(j);
			k_str(j, "source_register", flips[i].source_register);
			end_obj(j);
		}
		end_arr(j);
	}
	key(j, "type");
	if (crashed) {
		char reason[256];
		v_str(j, sw_crash_reason(s, SW_REASON_RUST, reason, sizeof reason));
	} else {
		v_null(j);
	}
	end_obj(j);
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The valid registers of print_order, keys sorted, rust-minidump names. */
static void write_registers(struct jw *j, const struct sw_arch *arch, const struct sw_regs *r)
{
	key(j, "registers");
	obj(j);
	if (arch && arch->print_order && arch->reg_names) {
		const char *names[SW_MAX_REGS];
		uint64_t values[SW_MAX_REGS];
		unsigned n = 0;
		for (unsigned i = 0; i < arch->nprint && n < SW_MAX_REGS; i++) {
			unsigned reg = arch->print_order[i];
			const char *const *spelled = arch->json_names ? arch->json_names : arch->reg_names;
			if (sw_reg_valid(r, reg) && spelled[reg]) {
				names[n] = spelled[reg];
				values[n++] = r->v[reg];
			}
		}
		/* Sort the names, carrying the values along. */
		const char *sorted[SW_MAX_REGS];
		memcpy(sorted, names, n * sizeof *names);
		qsort(sorted, n, sizeof *sorted, cmp_cstr);
		for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < n; k++)
				if (names[k] == sorted[i]) {
					k_hex(j, sorted[i], values[k]);
					break;
				}
	}
	end_obj(j);
}

static uint32_t physical_frames(const struct sw_stack *st)
{
	uint32_t n = 0;
	for (uint32_t i = 0; st && i < st->nframes; i++)
		n += st->frames[i].trust != SW_TRUST_INLINE;
	return n;
}

/* Unloaded modules covering addr, grouped by name (sorted), each with its
 * sorted offsets: rust-minidump's BTreeMap<name, BTreeSet<offset>>. */
static void write_frame_unloaded(struct jw *j, const struct sw_snapshot *s, uint64_t addr)
{
	uint32_t *hits = NULL, nhits = 0;
	if (s->nunloaded)
		hits = malloc(s->nunloaded * sizeof *hits);
	for (uint32_t i = 0; hits && i < s->nunloaded; i++) {
		const struct sw_module *u = &s->unloaded[i];
		if (addr >= u->base && addr - u->base < u->size)
			hits[nhits++] = i;
	}
	key(j, "unloaded_modules");
	if (nhits == 0) {
		v_null(j);
		free(hits);
		return;
	}
	/* Selection-sort by (name, offset): n is tiny. */
	for (uint32_t a = 0; a < nhits; a++)
		for (uint32_t b = a + 1; b < nhits; b++) {
			const struct sw_module *x = &s->unloaded[hits[a]], *y = &s->unloaded[hits[b]];
			int c = strcmp(x->code_file ? x->code_file : "", y->code_file ? y->code_file : "");
			if (c > 0 || (c == 0 && addr - y->base < addr - x->base)) {
				uint32_t t = hits[a];
				hits[a] = hits[b];
				hits[b] = t;
			}
		}
	arr(j);
	for (uint32_t a = 0; a < nhits;) {
		const char *name = s->unloaded[hits[a]].code_file ? s->unloaded[hits[a]].code_file : "";
		obj(j);
		k_str(j, "module", name);
		key(j, "offsets");
		arr(j);
		uint64_t last = 0;
		bool any = false;
		for (; a < nhits; a++) {
			const struct sw_module *u = &s->unloaded[hits[a]];
			if (strcmp(u->code_file ? u->code_file : "", name) != 0)
				break;
			uint64_t off = addr - u->base;
			if (any && off == last)
				continue;
			v_hex(j, off);
			last = off;
			any = true;
		}
		end_arr(j);
		end_obj(j);
	}
	end_arr(j);
	free(hits);
}

/* One physical frame with the inline frames before it (frames[first ..
 * phys-1]). `registers`: write the frame's registers (crashing thread,
 * frame 0). */
/* The attempts [first, first + n) of st as [{"method", "reason"}]. */
static void write_attempts(struct jw *j, const struct sw_stack *st, uint32_t first, uint32_t n)
{
	arr(j);
	for (uint32_t i = first; i < first + n && i < st->nattempts; i++) {
		obj(j);
		k_str(j, "method", sw_method_name((enum sw_method)st->attempts[i].method));
		k_str(j, "reason", sw_refusal_name((enum sw_refusal)st->attempts[i].refusal));
		end_obj(j);
	}
	end_arr(j);
}

/* --explain: why frame i is there (docs/json.md, "evidence"). Keys in
 * the order the method reads them; only those that apply. */
static void write_evidence(struct jw *j, const struct sw_snapshot *s, const struct sw_stack *st,
                           uint32_t i)
{
	const struct sw_evidence *e = &st->evidence[i];
	obj(j);
	k_str(j, "method", sw_method_name(e->method));
	switch (e->method) {
	case SW_METHOD_FRAME_POINTER:
		if (e->where)
			k_hex(j, "frame_record", e->where);
		break;
	case SW_METHOD_SIGNAL_FRAME:
		k_hex(j, "signal_frame", e->where);
		break;
	case SW_METHOD_EXCEPTION_FRAME:
		k_hex(j, "exception_frame", e->where);
		k_hex(j, "exc_return", e->exc_return);
		break;
	case SW_METHOD_PROLOGUE:
		if (e->function_start)
			k_hex(j, "function_start", e->function_start);
		break;
	case SW_METHOD_CFI:
		if (e->anchored)
			k_bool(j, "anchored_on_frame_record", true);
		if (e->cfi_scan)
			k_bool(j, "return_address_scanned", true);
		if (e->restores_context)
			k_bool(j, "restores_context", true);
		if (e->rule) {
			k_str(j, "rule", e->rule);
			k_str(j, "rule_module", module_valid(s, e->rule_module)
			                                ? sw_basename(s->modules[e->rule_module].code_file)
			                                : NULL);
		}
		break;
	default:
		break;
	}
	if (e->ra_in_register)
		k_str(j, "return_address_from", "link_register");
	else if (e->ra_slot)
		k_hex(j, "return_address_slot", e->ra_slot);
	if (sw_method_reads_call(e->method)) {
		key(j, "call");
		obj(j);
		key(j, "decoded");
		if (e->call_known)
			v_bool(j, e->call_decoded);
		else
			v_null(j);
		key(j, "target");
		if (e->call_direct)
			v_hex(j, e->call_target);
		else
			v_null(j);
		end_obj(j);
	}
	if (e->method != SW_METHOD_INLINE && e->method != SW_METHOD_DEX_PC) {
		key(j, "refused");
		write_attempts(j, st, e->first_attempt, e->nattempts);
	}
	end_obj(j);
}

/* --explain: what each method answered at the step that ended the walk. */
static void write_end_evidence(struct jw *j, const struct sw_stack *st)
{
	obj(j);
	key(j, "tried");
	write_attempts(j, st, st->end_first_attempt, st->end_nattempts);
	end_obj(j);
}

void sw_output_evidence_json(FILE *f, const struct sw_snapshot *s, const struct sw_stack *st,
                             int64_t frame)
{
	struct jw jw = { .out.f = f, .word = sw_out_word_size(s, st->arch) };
	if (!st->evidence)
		jw_puts(&jw, "null");
	else if (frame < 0)
		write_end_evidence(&jw, st);
	else if ((uint64_t)frame < st->nframes)
		write_evidence(&jw, s, st, (uint32_t)frame);
	sw_out_flush(&jw.out);
}

static void write_frame(struct jw *j, const struct sw_snapshot *s, const struct sw_arch *arch,
                        const struct sw_stack *st, uint32_t first, uint32_t phys,
                        uint32_t index, bool registers)
{
	const struct sw_stack_frame *fr = &st->frames[phys];
	bool has_module = module_valid(s, fr->module);
	const struct sw_module *m = has_module ? &s->modules[fr->module] : NULL;
	uint64_t addr = fr->lookup_pc;

	obj(j);
	if (st->evidence) {
		key(j, "evidence");
		write_evidence(j, s, st, phys);
	}
	k_str(j, "file", fr->file);
	k_u64(j, "frame", index);
	k_str(j, "function", fr->function);
	key(j, "function_offset");
	if (fr->function)
		v_hex(j, addr - fr->function_base);
	else
		v_null(j);
	key(j, "inlines");
	if (phys > first) {
		arr(j);
		for (uint32_t i = first; i < phys; i++) {
			const struct sw_stack_frame *in = &st->frames[i];
			obj(j);
			if (st->evidence) {
				key(j, "evidence");
				write_evidence(j, s, st, i);
			}
			k_str(j, "file", in->file);
			k_str(j, "function", in->function);
			key(j, "line");
			if (in->file && in->line)
				v_u64(j, in->line);
			else
				v_null(j);
			end_obj(j);
		}
		end_arr(j);
	} else {
		v_null(j);
	}
	key(j, "line");
	if (fr->file && fr->line)
		v_u64(j, fr->line);
	else
		v_null(j);
	k_bool(j, "missing_symbols", fr->function == NULL);
	const char *place;
	uint64_t base;
	bool placed = sw_out_frame_place(s, fr, &place, &base);
	k_str(j, "module", placed ? place : NULL);
	key(j, "module_offset");
	if (placed)
		v_hex(j, addr - base);
	else
		v_null(j);
	k_hex(j, "offset", addr);
	if (registers) {
		struct sw_regs r;
		sw_stack_frame_regs(fr, &r);
		write_registers(j, st->arch ? st->arch : arch, &r);
	}
	k_str(j, "trust", sw_trust_name(fr->trust));
	if (m)
		k_null(j, "unloaded_modules");
	else
		write_frame_unloaded(j, s, addr);
	end_obj(j);
}

/* crashing: the crashing_thread copy (threads_index, and frame 0's
 * registers when `registers`). */
static void write_thread(struct jw *j, const struct sw_snapshot *s, const struct sw_arch *arch,
                         const struct sw_stack *st, uint32_t index, bool crashing, bool registers)
{
	const struct sw_thread *t = st && st->thread < s->nthreads ? &s->threads[st->thread] :
	                            index < s->nthreads ? &s->threads[index] : NULL;
	obj(j);
	k_u64(j, "frame_count", physical_frames(st));
	key(j, "frames");
	arr(j);
	uint32_t first = 0, n = 0;
	for (uint32_t i = 0; st && i < st->nframes; i++) {
		if (st->frames[i].trust == SW_TRUST_INLINE)
			continue;
		write_frame(j, s, arch, st, first, i, n, crashing && registers && n == 0);
		n++;
		first = i + 1;
	}
	end_arr(j);
	key(j, "last_error_value");
	if (t && t->has_last_error) {
		const char *name = sw_windows_error_name(t->last_error);
		if (!name)
			name = sw_windows_ntstatus_name(t->last_error);
		char buf[32];
		if (!name) {
			snprintf(buf, sizeof buf, "unknown 0x%08" PRIx32, t->last_error);
			name = buf;
		}
		v_str(j, name);
	} else {
		v_null(j);
	}
	key(j, "thread_id");
	if (t)
		v_u64(j, t->id);
	else
		v_null(j);
	k_str(j, "thread_name", t ? t->name : NULL);
	if (crashing)
		k_u64(j, "threads_index", index);
	/* Extensions (docs/json.md): why the walk ended, and whether a limit
	 * cut it. */
	k_bool(j, "truncated", st && st->truncated);
	k_str(j, "walk_end", sw_walk_end_name(st ? st->end : SW_END_NOT_WALKED));
	/* --explain: what each method answered at the step that ended it. */
	if (st && st->evidence) {
		key(j, "walk_end_evidence");
		write_end_evidence(j, st);
	}
	end_obj(j);
}

/* A module's code id, lower-cased as rust-minidump prints it ("" when
 * none). */
static void k_code_id(struct jw *j, const struct sw_module *m)
{
	char code_id[256];
	const char *in = m->code_id ? m->code_id : "";
	size_t i = 0;
	for (; in[i] && i + 1 < sizeof code_id; i++)
		code_id[i] = (in[i] >= 'A' && in[i] <= 'Z') ? (char)(in[i] - 'A' + 'a') : in[i];
	code_id[i] = '\0';
	k_str(j, "code_id", code_id);
}

static void write_modules(struct jw *j, const struct sw_snapshot *s,
                          const struct sw_walk_result *w)
{
	key(j, "modules");
	arr(j);
	for (uint32_t i = 0; i < s->nmodules; i++) {
		const struct sw_module *m = &s->modules[i];
		enum sw_symbols_status st = sw_out_module_status(w, s, (int32_t)i);
		obj(j);
		k_hex(j, "base_addr", m->base);
		k_null(j, "cert_subject");
		k_code_id(j, m);
		k_bool(j, "corrupt_symbols", st == SW_SYMS_CORRUPT);
		k_str(j, "debug_file", m->debug_file ? sw_basename(m->debug_file) : "");
		k_str(j, "debug_id", m->debug_id ? m->debug_id : "");
		k_hex(j, "end_addr", m->base + m->size);
		k_str(j, "filename", m->code_file ? sw_basename(m->code_file) : "");
		k_bool(j, "loaded_symbols", st == SW_SYMS_LOADED);
		/* "missing" only when the walk looked for them. */
		k_bool(j, "missing_symbols", st == SW_SYMS_MISSING || st == SW_SYMS_CORRUPT);
		k_null(j, "symbol_url");
		k_str(j, "version", m->version);
		end_obj(j);
	}
	end_arr(j);
}

static void write_unloaded(struct jw *j, const struct sw_snapshot *s)
{
	key(j, "unloaded_modules");
	arr(j);
	for (uint32_t i = 0; i < s->nunloaded; i++) {
		const struct sw_module *m = &s->unloaded[i];
		obj(j);
		k_hex(j, "base_addr", m->base);
		k_null(j, "cert_subject");
		k_code_id(j, m);
		k_hex(j, "end_addr", m->base + m->size);
		k_str(j, "filename", m->code_file ? m->code_file : "");
		end_obj(j);
	}
	end_arr(j);
}

static const char *lsb_value(const struct sw_snapshot *s, const char *k1, const char *k2)
{
	for (uint32_t i = 0; i < s->nlsb_release; i++) {
		const char *k = s->lsb_release[i].key;
		if (k && (strcmp(k, k1) == 0 || strcmp(k, k2) == 0))
			return s->lsb_release[i].value ? s->lsb_release[i].value : "";
	}
	return "";
}

/* /etc/lsb-release keys, or /etc/os-release ones; values as stored (the
 * reader strips the quotes). */
static void write_lsb(struct jw *j, const struct sw_snapshot *s)
{
	key(j, "lsb_release");
	if (s->nlsb_release == 0) {
		v_null(j);
		return;
	}
	obj(j);
	k_str(j, "codename", lsb_value(s, "DISTRIB_CODENAME", "VERSION_CODENAME"));
	k_str(j, "description", lsb_value(s, "DISTRIB_DESCRIPTION", "PRETTY_NAME"));
	k_str(j, "id", lsb_value(s, "DISTRIB_ID", "ID"));
	k_str(j, "release", lsb_value(s, "DISTRIB_RELEASE", "VERSION_ID"));
	end_obj(j);
}

/* Extension (docs/json.md, "process"): the command line and executable
 * the snapshot records. A LinuxCmdLine stream is argv, NUL-separated (the
 * kernel's /proc/PID/cmdline, a NUL after each argument): "arguments"
 * lists it exactly and "command_line" joins it with spaces, as ps shows
 * it. A core's pr_psargs was joined and cut at 80 bytes by the kernel:
 * only "command_line", as it is. */
static void write_process(struct jw *j, const struct sw_snapshot *s)
{
	key(j, "process");
	obj(j);
	key(j, "arguments");
	size_t len = s->cmdline ? s->cmdline_len : 0;
	if (len && s->cmdline_is_argv) {
		arr(j);
		for (size_t at = 0; at < len;) {
			const char *arg = s->cmdline + at;
			const char *nul = memchr(arg, '\0', len - at);
			size_t n = nul ? (size_t)(nul - arg) : len - at;
			/* The arena copy ends with a NUL: a last argument without
			 * its own is still a string. */
			v_str(j, arg);
			at += n + 1;
		}
		end_arr(j);
	} else {
		v_null(j);
	}
	key(j, "command_line");
	if (len) {
		char *joined = malloc(len + 1);
		if (joined) {
			memcpy(joined, s->cmdline, len);
			joined[len] = '\0';
			/* argv's NULs become spaces; the one after the last argument
			 * goes. */
			while (len && joined[len - 1] == '\0')
				joined[--len] = '\0';
			for (size_t i = 0; i < len; i++)
				if (joined[i] == '\0')
					joined[i] = ' ';
		}
		if (joined)
			v_str(j, joined);
		else
			v_null(j);
		free(joined);
	} else {
		v_null(j);
	}
	k_str(j, "executable", s->executable);
	end_obj(j);
}

/* Extension: who wrote the report, for a pipeline that keeps reports of
 * several versions (the version is meson.build's, as --version's). */
static void write_tool(struct jw *j)
{
	key(j, "tool");
	obj(j);
	k_str(j, "name", "stackwalk");
	k_str(j, "version", SW_VERSION);
	end_obj(j);
}

void sw_out_json(FILE *f, const struct sw_snapshot *s, const struct sw_arch *arch,
                 const struct sw_walk_result *w, const struct sw_output_options *o)
{
	struct jw jw = { .out.f = f, .pretty = o->pretty, .word = sw_out_word_size(s, arch) };
	struct jw *j = &jw;
	uint32_t nstacks = w ? w->nstacks : 0;
	int32_t crashing = w ? w->crashing : -1;
	if (crashing >= 0 && (uint32_t)crashing >= nstacks)
		crashing = -1;

	obj(j);
	write_crash_info(j, s, w);
	/* Only when the crashing thread has a frame, as rust-minidump. */
	if (crashing >= 0 && physical_frames(sw_out_stack(w, (uint32_t)crashing)) > 0) {
		key(j, "crashing_thread");
		write_thread(j, s, arch, sw_out_stack(w, (uint32_t)crashing), (uint32_t)crashing, true,
		             o->registers != SW_REGISTERS_NONE);
	}
	k_null(j, "handles");
	key(j, "linux_memory_map_count");
	if (s->maps)
		v_u64(j, s->nmaps);
	else
		v_null(j);
	write_lsb(j, s);
	k_null(j, "mac_boot_args");
	k_null(j, "mac_crash_info");
	/* rust-minidump always reports 0: its first module is the main one. */
	k_u64(j, "main_module", 0);
	write_modules(j, s, w);
	k_bool(j, "modules_contains_cert_info", false);
	key(j, "pid");
	if (s->has_pid)
		v_u64(j, s->pid);
	else
		v_null(j);
	/* Extension: what the reader could not read, one line each. */
	key(j, "problems");
	arr(j);
	for (uint32_t i = 0; i < s->nproblems; i++)
		v_str(j, s->problems[i]);
	end_arr(j);
	k_null(j, "proc_limits");
	write_process(j, s);
	key(j, "process_uptime");
	if (s->has_process_create_time && s->dump_time != 0)
		v_u64(j, s->dump_time >= s->process_create_time ?
		         s->dump_time - s->process_create_time : 0);
	else
		v_null(j);
	/* Extension: the crash signature (docs/signature.md). */
	k_str(j, "signature", o->signature);
	k_null(j, "soft_errors");
	/* "OK", or why the report is incomplete (docs/json.md). */
	k_str(j, "status", o->status ? o->status : "OK");
	write_system_info(j, s);
	k_u64(j, "thread_count", nstacks);
	key(j, "threads");
	arr(j);
	for (uint32_t i = 0; i < nstacks; i++)
		write_thread(j, s, arch, sw_out_stack(w, i), i, false, false);
	end_arr(j);
	write_tool(j);
	write_unloaded(j, s);
	end_obj(j);
	jw_putc(j, '\n');
	sw_out_flush(&j->out);
}
