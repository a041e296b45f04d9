#include "snapshot.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsearch.h"
#include "no_coverage.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

void sw_snapshot_init(struct sw_snapshot *s, const char *path)
{
	memset(s, 0, sizeof *s);
	sw_arena_init(&s->arena);
	s->path = path;
	s->main_module = -1;
}

void sw_snapshot_free(struct sw_snapshot *s)
{
	free(s->problems);
	sw_arena_free(&s->arena);
	sw_unmap_file(&s->file);
	memset(s, 0, sizeof *s);
}

enum { SUMMARY_SIZE = 112, PROBLEM_SIZE = 512 };

static bool is_warning(const char *problem)
{
	return strncmp(problem, "warning: ", 9) == 0;
}

/* Character classes of a problem's text: a digit starts a number, which
 * goes on over digits, hex letters and 'x' (12, 0x1f00). */
enum { NUMBER_START = 1, NUMBER_PART = 2 };
static const uint8_t char_class[256] = {
	['0'] = NUMBER_START | NUMBER_PART, ['1'] = NUMBER_START | NUMBER_PART,
	['2'] = NUMBER_START | NUMBER_PART, ['3'] = NUMBER_START | NUMBER_PART,
	['4'] = NUMBER_START | NUMBER_PART, ['5'] = NUMBER_START | NUMBER_PART,
	['6'] = NUMBER_START | NUMBER_PART, ['7'] = NUMBER_START | NUMBER_PART,
	['8'] = NUMBER_START | NUMBER_PART, ['9'] = NUMBER_START | NUMBER_PART,
	['a'] = NUMBER_PART, ['b'] = NUMBER_PART, ['c'] = NUMBER_PART,
	['d'] = NUMBER_PART, ['e'] = NUMBER_PART, ['f'] = NUMBER_PART,
	['A'] = NUMBER_PART, ['B'] = NUMBER_PART, ['C'] = NUMBER_PART,
	['D'] = NUMBER_PART, ['E'] = NUMBER_PART, ['F'] = NUMBER_PART,
	['x'] = NUMBER_PART,
};

/* A problem's kind, its shape: a hash of the format it was made with and
 * of its string arguments with every number in them left out (a run that
 * starts with a digit: 12, 0x1f00), so that "module 7 name at 0x34d0c ..."
 * and "module 8 name at 0x34d34 ..." are one kind, and so are "thread 5
 * (0x1f) stack ..." and "thread 6 (0x20) stack ...", labels passed as %s.
 * Made without printing: a hostile file has thousands of problems, almost
 * all dropped as a fourth of their kind, and printing each (then hashing
 * the text) was most of the cost of reading such a file. The format is
 * known by its address: the readers' formats are literals. */
struct shape {
	uint32_t h;                 /* FNV-1a */
	bool in_number;
};

static void shape_byte(struct shape *sh, unsigned char c)
{
	sh->h = (sh->h ^ c) * 16777619u;
	sh->in_number = false;
}

/* Hashes up to max bytes of text (to its NUL), in locals: the loop runs
 * for every byte of thousands of problems. A fuzzing build leaves it out
 * of the coverage it traces: comparisons of bytes on their way into a hash
 * steer no fuzzer, and a fuzzer's time goes to code whose branches follow
 * the input (docs/fuzzing.md, "Cost"). */
SW_NO_COVERAGE static void shape_text(struct shape *sh, const char *text, size_t max)
{
	const unsigned char *p = (const unsigned char *)text;
	uint32_t h = sh->h;
	bool in_number = sh->in_number;
	for (size_t i = 0; i < max && p[i]; i++) {
		uint8_t class = char_class[p[i]];
		if (in_number && (class & NUMBER_PART))
			continue;
		in_number = class & NUMBER_START;
		h = (h ^ (in_number ? '#' : p[i])) * 16777619u;
	}
	sh->h = h;
	sh->in_number = in_number;
}

/* The shape of the problem fmt makes with ap (consumed), a warning or
 * not; 0 when fmt has a conversion this does not read (the caller then
 * hashes the printed text). The conversions are C17 7.21.6.1's but %n:
 * each is marked in the hash, and a string or character argument's text
 * hashed; the values of the others are the numbers left out. */
SW_NO_COVERAGE static uint32_t format_shape(bool warning, const char *fmt, va_list ap)
{
	struct shape sh = { 2166136261u, false };
	uintptr_t at = (uintptr_t)fmt;
	for (size_t i = 0; i < sizeof at; i++)
		shape_byte(&sh, (unsigned char)(at >> 8 * i));
	shape_byte(&sh, warning);
	for (const char *p = strchrnul(fmt, '%'); *p; p = strchrnul(p + 1, '%')) {
		p++;
		shape_byte(&sh, '%');
		while (*p && strchr("-+ #0", *p))
			p++;
		if (*p == '*') {
			(void)va_arg(ap, int);
			p++;
		}
		while (*p >= '0' && *p <= '9')
			p++;
		size_t precision = SIZE_MAX;
		if (*p == '.') {
			p++;
			if (*p == '*') {
				int v = va_arg(ap, int);
				precision = v < 0 ? SIZE_MAX : (size_t)v;
				p++;
			} else {
				precision = 0;
				while (*p >= '0' && *p <= '9')
					precision = precision * 10 + (size_t)(*p++ - '0');
			}
		}
		/* The length: which type va_arg takes. */
		enum { INT, LONG, LLONG, SIZE, INTMAX, PTRDIFF, LDOUBLE } len = INT;
		if (p[0] == 'h') {
			p += p[1] == 'h' ? 2 : 1;
		} else if (p[0] == 'l') {
			len = p[1] == 'l' ? LLONG : LONG;
			p += p[1] == 'l' ? 2 : 1;
		} else if (*p == 'z' || *p == 'j' || *p == 't' || *p == 'L') {
			len = *p == 'z' ? SIZE : *p == 'j' ? INTMAX : *p == 't' ? PTRDIFF : LDOUBLE;
			p++;
		}
		switch (*p) {
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			switch (len) {
			case LONG: (void)va_arg(ap, long); break;
			case LLONG: (void)va_arg(ap, long long); break;
			case SIZE: (void)va_arg(ap, size_t); break;
			case INTMAX: (void)va_arg(ap, intmax_t); break;
			case PTRDIFF: (void)va_arg(ap, ptrdiff_t); break;
			default: (void)va_arg(ap, int); break;
			}
			break;
		case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
			if (len == LDOUBLE)
				(void)va_arg(ap, long double);
			else
				(void)va_arg(ap, double);
			break;
		case 'p':
			(void)va_arg(ap, void *);
			break;
		case 'c':
			if (len != INT)
				return 0; /* %lc: a wint_t */
			shape_byte(&sh, (unsigned char)va_arg(ap, int));
			break;
		case 's': {
			if (len != INT)
				return 0; /* %ls: a wide string */
			const char *arg = va_arg(ap, const char *);
			shape_text(&sh, arg ? arg : "(null)", precision);
			break;
		}
		case '%':
			break;
		default:
			return 0;
		}
	}
	return sh.h | 1; /* 0 marks a free slot */
}

/* The shape of a printed problem. */
static uint32_t text_shape(const char *text)
{
	struct shape sh = { 2166136261u, false };
	shape_text(&sh, text, SIZE_MAX);
	return sh.h | 1;
}

/* How many lines of this shape are listed already, counting this one
 * (open addressing with at most SHAPE_PROBES probes: when those slots are
 * taken, shapes are not told apart and SW_MAX_PROBLEMS alone bounds the
 * list; a hostile file of thousands of distinct problems would otherwise
 * probe the whole full table for each). */
enum { SHAPE_PROBES = 16 };
SW_NO_COVERAGE static uint32_t shape_seen(struct sw_snapshot *s, uint32_t shape)
{
	_Static_assert((SW_PROBLEM_SHAPES & (SW_PROBLEM_SHAPES - 1)) == 0, "a power of two");
	uint32_t mask = SW_PROBLEM_SHAPES - 1;
	for (uint32_t i = 0, k = shape & mask; i < SHAPE_PROBES; i++, k = (k + 1) & mask) {
		if (s->problem_shapes[k] == shape) {
			if (s->problem_shape_count[k] < UINT8_MAX)
				s->problem_shape_count[k]++;
			return s->problem_shape_count[k];
		}
		if (s->problem_shapes[k] == 0) {
			s->problem_shapes[k] = shape;
			return s->problem_shape_count[k] = 1;
		}
	}
	return 1;
}

/* Room for one more line in the array: SW_MAX_PROBLEMS and the summary
 * at most. */
static bool problems_room(struct sw_snapshot *s)
{
	if (s->nproblems < s->problems_cap)
		return true;
	uint32_t cap = s->problems_cap ? s->problems_cap * 2 : 8;
	if (cap > SW_MAX_PROBLEMS + 1)
		cap = SW_MAX_PROBLEMS + 1;
	const char **p = realloc(s->problems, cap * sizeof *p);
	if (!p)
		return false;
	s->problems = p;
	s->problems_cap = cap;
	return true;
}

/* Adds one to the decimal count a summary starts with, in place: false
 * when the count gains a digit (the summary is then written again). */
SW_NO_COVERAGE static bool count_up(char *summary)
{
	size_t n = 0;
	while (summary[n] >= '0' && summary[n] <= '9')
		n++;
	while (n > 0) {
		if (summary[n - 1] != '9') {
			summary[n - 1]++;
			return true;
		}
		summary[--n] = '0';
	}
	return false;
}

/* A problem not listed: counted in the last line, made the first time
 * and counted up in place as the count grows (a hostile file drops
 * thousands). Problem bookkeeping, not a decision about the input: not
 * traced for coverage (SW_NO_COVERAGE), nor are the shape functions. */
SW_NO_COVERAGE static void count_dropped(struct sw_snapshot *s)
{
	if (!s->problems_summary) {
		if (!problems_room(s))
			return;
		s->problems_summary = sw_arena_alloc(&s->arena, SUMMARY_SIZE);
		if (!s->problems_summary)
			return;
		s->problems[s->nproblems++] = s->problems_summary;
	}
	s->problems_dropped++;
	if (s->problems_dropped > 1 && count_up(s->problems_summary))
		return;
	static const char rest[] = " more problems not listed: more of the kinds above ("
	                           STRINGIFY(SW_PROBLEMS_OF_A_KIND) " of each are), or past the first "
	                           STRINGIFY(SW_MAX_PROBLEMS);
	char digits[10];
	int n = 0;
	for (uint32_t v = s->problems_dropped; v || n == 0; v /= 10)
		digits[n++] = (char)('0' + v % 10);
	char *out = s->problems_summary;
	while (n)
		*out++ = digits[--n];
	_Static_assert(sizeof rest + 10 <= SUMMARY_SIZE, "the summary fits");
	memcpy(out, rest, sizeof rest);
}

void sw_snapshot_problem(struct sw_snapshot *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sw_snapshot_vproblem(s, false, fmt, ap);
	va_end(ap);
}

void sw_snapshot_vproblem(struct sw_snapshot *s, bool warning, const char *fmt, va_list ap)
{
	/* A full list takes nothing more: counted without formatting. */
	uint32_t listed = s->nproblems - (s->problems_summary ? 1 : 0);
	if (listed >= SW_MAX_PROBLEMS) {
		count_dropped(s);
		return;
	}
	va_list args;
	va_copy(args, ap);
	uint32_t shape = format_shape(warning, fmt, args);
	va_end(args);
	char buf[PROBLEM_SIZE];
	size_t at = 0;
	bool printed = false;
	if (warning) {
		static const char prefix[] = "warning: ";
		memcpy(buf, prefix, sizeof prefix - 1);
		at = sizeof prefix - 1;
	}
	if (!shape) {
		vsnprintf(buf + at, sizeof buf - at, fmt, ap);
		shape = text_shape(buf);
		printed = true;
	}
	if (shape_seen(s, shape) > SW_PROBLEMS_OF_A_KIND || !problems_room(s)) {
		count_dropped(s);
		return;
	}
	if (!printed)
		vsnprintf(buf + at, sizeof buf - at, fmt, ap);
	const char *copy = sw_arena_strdup(&s->arena, buf);
	if (!copy)
		return;
	/* The summary stays the last line. */
	if (s->problems_summary) {
		s->problems[s->nproblems - 1] = copy;
		s->problems[s->nproblems++] = s->problems_summary;
	} else {
		s->problems[s->nproblems++] = copy;
	}
}

static int compare_regions(const void *a, const void *b)
{
	const struct sw_mem_region *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return 0;
}

/* A module's sort key: its base, then its index (stable for equal bases:
 * the earlier module wins lookups). Sorting keys instead of indexes needs
 * no shared context, so snapshots may be built on several threads. */
struct module_key {
	uint64_t base;
	uint32_t index;
};

static int compare_module_keys(const void *a, const void *b)
{
	const struct module_key *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void sw_snapshot_finish(struct sw_snapshot *s)
{
	if (s->nmem > 1) {
		qsort(s->mem, s->nmem, sizeof *s->mem, compare_regions);
		uint32_t kept = 1;
		for (uint32_t i = 1; i < s->nmem; i++) {
			const struct sw_mem_region *prev = &s->mem[kept - 1];
			if (s->mem[i].base < prev->base + prev->size) {
				sw_snapshot_problem(s, "memory region at 0x%llx overlaps the one at 0x%llx; ignored",
				                    (unsigned long long)s->mem[i].base,
				                    (unsigned long long)prev->base);
				continue;
			}
			s->mem[kept++] = s->mem[i];
		}
		s->nmem = kept;
	}
	s->module_by_base = NULL;
	if (s->nmodules) {
		s->module_by_base = sw_arena_array(&s->arena, s->nmodules, sizeof *s->module_by_base);
		struct module_key *keys = malloc(s->nmodules * sizeof *keys);
		if (s->module_by_base && keys) {
			for (uint32_t i = 0; i < s->nmodules; i++)
				keys[i] = (struct module_key){ s->modules[i].base, i };
			qsort(keys, s->nmodules, sizeof *keys, compare_module_keys);
			for (uint32_t i = 0; i < s->nmodules; i++)
				s->module_by_base[i] = keys[i].index;
		} else {
			s->module_by_base = NULL;
		}
		free(keys);
	}
}

static uint64_t region_base(const void *set, size_t i)
{
	return ((const struct sw_mem_region *)set)[i].base;
}

const struct sw_mapping *sw_mapping_at(const struct sw_snapshot *s, uint64_t addr)
{
	for (uint32_t i = 0; i < s->nmaps; i++)
		if (addr >= s->maps[i].start && addr < s->maps[i].end)
			return &s->maps[i];
	return NULL;
}

const struct sw_mem_region *sw_mem_find(const struct sw_snapshot *s, uint64_t addr)
{
	size_t lo = sw_upper_bound(s->mem, s->nmem, region_base, addr);
	if (lo == 0)
		return NULL;
	const struct sw_mem_region *r = &s->mem[lo - 1];
	return addr - r->base < r->size ? r : NULL;
}

static const uint8_t *mem_at(const struct sw_snapshot *s, uint64_t addr, size_t n)
{
	const struct sw_mem_region *r = sw_mem_find(s, addr);
	if (!r || !r->data)
		return NULL;
	uint64_t off = addr - r->base;
	return n <= r->size - off ? r->data + off : NULL;
}

bool sw_mem_read(const struct sw_snapshot *s, uint64_t addr, void *out, size_t n)
{
	const uint8_t *p = mem_at(s, addr, n);
	if (p)
		memcpy(out, p, n);
	return p != NULL;
}

bool sw_mem_peek(const struct sw_snapshot *s, uint64_t addr, void *out, size_t n)
{
	const uint8_t *p = mem_at(s, addr, n);
	if (p)
		sw_mapped_peek(&s->file, p, n, out);
	return p != NULL;
}

static uint64_t load_uint(const uint8_t *b, unsigned n, bool big_endian)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)b[big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

bool sw_mem_read_u32(const struct sw_snapshot *s, uint64_t addr, uint32_t *out)
{
	uint8_t b[4];
	if (!sw_mem_read(s, addr, b, 4))
		return false;
	*out = (uint32_t)load_uint(b, 4, s->sys.big_endian);
	return true;
}

bool sw_mem_read_word(const struct sw_snapshot *s, uint64_t addr, uint64_t *out)
{
	uint8_t b[8];
	unsigned n = s->sys.word_size == 4 ? 4 : 8;
	if (!sw_mem_read(s, addr, b, n))
		return false;
	*out = load_uint(b, n, s->sys.big_endian);
	return true;
}

static int32_t module_in(const struct sw_module *m, uint32_t n, uint64_t addr)
{
	for (uint32_t i = 0; i < n; i++)
		if (addr - m[i].base < m[i].size)
			return (int32_t)i;
	return -1;
}

/* The base of the i-th module in order of base. */
static uint64_t module_base_in_order(const void *set, size_t i)
{
	const struct sw_snapshot *s = set;
	return s->modules[s->module_by_base[i]].base;
}

int32_t sw_module_at(const struct sw_snapshot *s, uint64_t addr)
{
	if (!s->module_by_base)
		return module_in(s->modules, s->nmodules, addr);
	/* Last module whose base <= addr, then walk back over overlapping
	 * earlier-based modules (rare: BOLT's split mappings, microdumps'
	 * load-biased starts). */
	uint32_t lo = (uint32_t)sw_upper_bound(s, s->nmodules, module_base_in_order, addr);
	int32_t found = -1;
	uint64_t found_end = 0;
	for (uint32_t k = lo; k > 0; k--) {
		uint32_t i = s->module_by_base[k - 1];
		const struct sw_module *m = &s->modules[i];
		if (addr - m->base < m->size) {
			if (!s->modules_by_end)
				return (int32_t)i;
			/* The one that ends first (an end is base + size - 1,
			 * which cannot wrap for a non-empty module). */
			uint64_t end = m->base + (m->size - 1);
			if (found < 0 || end < found_end) {
				found = (int32_t)i;
				found_end = end;
			}
		}
		if (lo - k >= 8)
			break;
	}
	return found;
}

int32_t sw_unloaded_module_at(const struct sw_snapshot *s, uint64_t addr)
{
	return module_in(s->unloaded, s->nunloaded, addr);
}

const char *sw_basename(const char *path)
{
	if (!path)
		return NULL;
	/* Two vectorized searches: every frame's module and source file
	 * names pass here (a byte loop was a tenth of printing gen48k). */
	const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
	const char *last = !slash ? back : !back ? slash : slash > back ? slash : back;
	return last ? last + 1 : path;
}

bool sw_thread_extra_reg(const struct sw_thread *t, const char *name, uint64_t *out)
{
	for (uint32_t i = 0; i < t->nextra_regs; i++)
		if (strcmp(t->extra_regs[i].name, name) == 0) {
			*out = t->extra_regs[i].value;
			return true;
		}
	return false;
}

enum sw_err_code sw_snapshot_verdict(const struct sw_snapshot *s, const char *path,
                                     const char *what, uint32_t damage, struct sw_err *err)
{
	if (damage == 0)
		return SW_OK;
	const char *first = s->nproblems ? s->problems[0] : "?";
	for (uint32_t i = 0; i < s->nproblems; i++)
		if (s->problems[i] != s->problems_summary && !is_warning(s->problems[i])) {
			first = s->problems[i];
			break;
		}
	/* Problems may name the file: the message names it once, first. */
	size_t n = strlen(path);
	if (strncmp(first, path, n) == 0 && strncmp(first + n, ": ", 2) == 0)
		first += n + 2;
	if (damage == 1)
		return sw_err_set(err, SW_ERR_CORRUPT, "%s: damaged %s: %s", path, what, first);
	return sw_err_set(err, SW_ERR_CORRUPT, "%s: damaged %s: %s (and %u more problems)", path,
	                  what, first, damage - 1);
}
