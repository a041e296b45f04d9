/* The snapshot model: what a crashed process left behind, independent of the
 * file format it came in. Readers (formats/) fill it; the walker and the
 * outputs read it. All strings and arrays live in the snapshot's arena or
 * point into the mapped input file, which outlives the snapshot. */
#ifndef SW_SNAPSHOT_H
#define SW_SNAPSHOT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "mapped_file.h"
#include "regs.h"

enum sw_os {
	SW_OS_UNKNOWN = 0,
	SW_OS_WINDOWS,
	SW_OS_MACOS,
	SW_OS_IOS,
	SW_OS_LINUX,
	SW_OS_SOLARIS,
	SW_OS_ANDROID,
	SW_OS_PS3,
	SW_OS_NACL,
	SW_OS_FUCHSIA,
	SW_OS_NONE, /* bare metal firmware */
	SW_OS_NETBSD,
};

enum sw_cpu {
	SW_CPU_UNKNOWN = 0,
	SW_CPU_X86,
	SW_CPU_AMD64,
	SW_CPU_ARM,
	SW_CPU_ARM64,
	SW_CPU_MIPS,
	SW_CPU_MIPS64,
	SW_CPU_RISCV32,
	SW_CPU_RISCV64,
	SW_CPU_PPC,
	SW_CPU_PPC64,
	SW_CPU_SPARC,
};

struct sw_system_info {
	enum sw_os os;
	uint32_t platform_id;     /* raw MINIDUMP_SYSTEM_INFO.PlatformId */
	const char *os_name;      /* "Windows NT", "Linux", "Mac OS X", ... */
	const char *os_version;   /* "5.1.2600 Service Pack 2" (Breakpad's) */
	uint32_t os_major, os_minor, os_build;
	const char *csd_version;  /* service pack / uname tail, may be NULL */

	enum sw_cpu cpu;
	uint16_t raw_arch;        /* raw ProcessorArchitecture */
	const char *cpu_name;     /* "x86", "amd64", "arm64", ... */
	const char *cpu_info;     /* "GenuineIntel family 6 model 13 stepping 8" */
	const char *cpu_vendor;   /* "GenuineIntel", may be NULL */
	uint16_t processor_level, processor_revision;
	uint32_t cpu_count;
	uint64_t cpu_microcode;   /* 0 = unknown */
	bool has_cpu_microcode;
	uint8_t word_size;        /* 4 or 8 */
	bool big_endian;
	/* The GPU, from a microdump's G line (Breakpad's SystemInfo gl_version,
	 * gl_vendor, gl_renderer); NULL when unknown. */
	const char *gl_version, *gl_vendor, *gl_renderer;
	/* Bits of a code pointer that hold a pointer-authentication signature
	 * (Linux NT_ARM_PAC_MASK); 0: unknown (the walker then strips what no
	 * module or region uses). */
	uint64_t pointer_auth_mask;
	/* ARM's architecture profile: 'A', 'R' or 'M' (a Cortex-M: Thumb
	 * code only, exception frames and EXC_RETURN, MSP and PSP); 0 when the
	 * snapshot does not say. processor_level is then the architecture's
	 * major version (6, 7, 8). */
	char arm_profile;
};

/* One stretch of captured memory; data points into the mapped input. */
struct sw_mem_region {
	uint64_t base;
	uint64_t size;
	const uint8_t *data;
};

/* A register the CPU's context has no number for (struct sw_arch's
 * reg_names), kept by name for the arch hooks that need it: a Cortex-M's
 * "msp", "psp", "control", "exc_return", "xpsr" and fault status registers
 * ("cfsr", "hfsr", "mmfar", "bfar", ...), a RISC-V hart's "mcause",
 * "mepc", "mtval", "mstatus" (a .snap's register sets,
 * docs/snap-format.md). */
struct sw_named_reg {
	const char *name;
	uint64_t value;
};

struct sw_thread {
	uint32_t id;
	const char *name;         /* NULL when unnamed */
	struct sw_regs ctx;       /* ctx.valid == 0: no context */
	enum sw_cpu cpu;          /* the context's CPU; UNKNOWN: the system's */
	uint64_t stack_base;      /* start of the captured stack (lowest address) */
	uint64_t stack_size;      /* 0: no stack captured */
	uint64_t teb;
	uint32_t suspend_count;
	uint32_t priority_class, priority;
	uint32_t last_error;      /* Windows GetLastError() from the TEB, if read */
	bool has_last_error;
	/* Registers of the context outside ctx's numbering (see
	 * sw_named_reg); sw_thread_extra_reg finds one by name. */
	const struct sw_named_reg *extra_regs;
	uint32_t nextra_regs;
};

struct sw_module {
	uint64_t base;
	uint64_t size;
	const char *code_file;    /* full path as the writer recorded it */
	const char *code_id;      /* Windows: TIMESTAMP+SIZE hex; ELF: build-id hex */
	const char *debug_file;   /* pdb name, or the ELF file name */
	const char *debug_id;     /* Breakpad form: 33 upper-case hex digits, or NULL */
	const char *version;      /* "5.1.2600.2180" or NULL */
	uint32_t time_date_stamp;
	uint32_t checksum;
	uint64_t load_bias;       /* added to .sym addresses; 0 usually (see BOLT note in docs) */
	/* Where the module's own ELF image can be read, when the snapshot
	 * says (an offline capture keeps the files next to maps.txt): a file
	 * (image_path, with the ELF starting at image_offset in it: a library
	 * stored in an APK), or the snapshot's memory at image_addr (a file
	 * the capture could not copy, mapped whole). NULL / 0: unknown. */
	const char *image_path;
	uint64_t image_offset;
	uint64_t image_addr;
};

/* Exception / signal that killed the process. */
struct sw_crash {
	bool present;
	uint32_t thread_id;
	uint32_t code;            /* Windows exception code, or signal number */
	uint32_t flags;           /* Windows exception flags, or si_code */
	uint64_t address;         /* ExceptionAddress */
	uint32_t nparams;
	uint64_t params[15];      /* ExceptionInformation */
	struct sw_regs ctx;       /* ctx.valid == 0: none */
	/* The reason in the snapshot's own words (an ESP-IDF panic's
	 * ESP_PANIC_DETAILS: "abort() was called at PC 0x42009351 on core
	 * 0"): every output prints it as the crash reason instead of one
	 * decoded from code. NULL: none. */
	const char *reason;
};

/* Crashpad / Breakpad annotations: module == -1 for process-wide ones. */
enum sw_annotation_kind {
	SW_ANNOT_SIMPLE,          /* simple_annotations key=value */
	SW_ANNOT_LIST,            /* list_annotations (key = NULL) */
	SW_ANNOT_OBJECT,          /* annotation_objects name=value (string ones) */
};

struct sw_annotation {
	int32_t module;
	enum sw_annotation_kind kind;
	const char *key;
	const char *value;
};

/* A line of a Linux /proc/PID/maps capture (MD_LINUX_MAPS). */
struct sw_mapping {
	uint64_t start, end, offset;
	char perms[5];            /* "r-xp" */
	const char *path;         /* NULL for anonymous */
};

/* A link_map entry (MD_LINUX_DSO_DEBUG): where the dynamic loader put a DSO. */
struct sw_link_map_entry {
	uint64_t addr;            /* l_addr: load bias */
	uint64_t ld;
	const char *name;
};

struct sw_keyval {
	const char *key;
	const char *value;
};

/* A snapshot's place in an input that holds several: a log with several
 * microdumps, each one snapshot. */
struct sw_part {
	uint32_t index;           /* 0-based */
	uint32_t count;           /* how many the input holds */
	uint64_t offset;          /* the byte where it starts in the input */
	uint64_t line;            /* and its line, 1-based */
};

/* The problems a snapshot lists: the first 3 of each kind (the same text
 * but for its numbers), 100 in all, then one line counting the rest. A
 * real file has a few; a damaged one can have a problem per record
 * (module names that do not read, DSO records naming one huge string),
 * and listing them all costs memory, time and a report nobody reads, and
 * buries the one line that differs (a text budget spent after hundreds of
 * names past the end of the file): what is listed stays bounded, whatever
 * the input. */
#define SW_MAX_PROBLEMS 100
#define SW_PROBLEMS_OF_A_KIND 3
#define SW_PROBLEM_SHAPES 128

struct sw_snapshot {
	struct sw_arena arena;
	const char *path;         /* the input file as given */
	const char *format;       /* "minidump", ... */
	/* The mapped input file: memory regions and strings may point into
	 * it; sw_snapshot_free unmaps it (readers that map their input). */
	struct sw_mapped_file file;
	/* Inputs with several snapshots (microdump logs): which one this is
	 * (count 0 for inputs that hold one), and the next one, if any, for
	 * sw_snapshot_open_part (formats/open.h). */
	struct sw_part part;
	bool has_next;
	struct sw_part next;
	/* The open failed because no reader takes the file: it is no
	 * snapshot (a text, a symbol file, an ELF binary), not a damaged or
	 * unsupported one. A batch skips such a file in a folder. */
	bool not_a_snapshot;

	struct sw_system_info sys;

	struct sw_thread *threads;
	uint32_t nthreads;

	struct sw_mem_region *mem;  /* sorted by base, non-overlapping */
	uint32_t nmem;

	struct sw_module *modules;  /* in the dump's order */
	uint32_t nmodules;
	int32_t main_module;        /* index, -1 if unknown */
	struct sw_module *unloaded;
	uint32_t nunloaded;

	struct sw_crash crash;

	/* MiscInfo and header */
	uint32_t dump_time;         /* seconds since epoch, 0 unknown */
	bool has_pid;
	uint32_t pid;
	bool has_process_create_time;
	uint32_t process_create_time;
	/* Breakpad info stream (MDRawBreakpadInfo): the thread that wrote the
	 * dump (Breakpad's processor leaves it out of the thread list) and the
	 * thread that asked for it (the "crashed" one when no exception). */
	bool has_dump_thread_id;
	uint32_t dump_thread_id;
	bool has_requesting_thread_id;
	uint32_t requesting_thread_id;

	struct sw_annotation *annotations;
	uint32_t nannotations;

	/* Breakpad's Linux streams, when present */
	struct sw_mapping *maps;
	uint32_t nmaps;
	struct sw_link_map_entry *link_map;
	uint32_t nlink_map;
	struct sw_keyval *lsb_release;   /* from /etc/lsb-release */
	uint32_t nlsb_release;
	const char *proc_status;         /* raw text */
	const char *cpuinfo;             /* raw text */
	const char *environ;             /* NUL-separated, length below */
	size_t environ_len;
	/* The process's command line, cmdline_len bytes: argv, a NUL after
	 * each argument, when cmdline_is_argv (a minidump's LinuxCmdLine
	 * stream, /proc/PID/cmdline); else one text its writer joined with
	 * spaces and may have cut (an ELF core's pr_psargs, 80 bytes). */
	const char *cmdline;
	size_t cmdline_len;
	bool cmdline_is_argv;
	/* The path of the process's executable as the snapshot records it
	 * (a core's AT_EXECFN, else its main module's path; a minidump's main
	 * module's path); NULL: unknown (docs/json.md, "process"). */
	const char *executable;
	const char *assertion;           /* Breakpad assertion stream, or NULL */

	/* A scanned return address must be proven by the code before it:
	 * the snapshot comes from a system whose modules' files are at hand
	 * (an offline capture, an ELF core), so where their code cannot be
	 * read (blanked, missing) nothing vouches for a stack word, and
	 * Breakpad's rule alone (inside a module and a function) is not
	 * taken. */
	bool scans_need_code;

	/* Built by sw_snapshot_finish: module indexes sorted by base. */
	uint32_t *module_by_base;
	/* How overlapping modules resolve. false: an address belongs to the
	 * module that starts last (Breakpad's minidump rule). true: to the one
	 * that ends first, and outputs list modules by their end: a microdump
	 * writer moves a module's start back to its load bias, into the module
	 * below, while its end stays exact (Breakpad's microdump reader,
	 * RangeMap kTruncateUpper, keyed by the end). */
	bool modules_by_end;

	/* What could not be read: one line each, in the order found, as
	 * SW_MAX_PROBLEMS says; the last line then counts those not listed
	 * (problems_summary, rewritten as the count grows). */
	const char **problems;
	uint32_t nproblems;
	uint32_t problems_cap;
	uint32_t problems_dropped;
	char *problems_summary;
	uint32_t problem_shapes[SW_PROBLEM_SHAPES]; /* kinds listed (0: free) */
	uint8_t problem_shape_count[SW_PROBLEM_SHAPES];
};


/* How many problems were found: those listed, without the summary line,
 * and those it counts. */
static inline uint32_t sw_snapshot_problems_found(const struct sw_snapshot *s)
{
	return s->nproblems - (s->problems_summary ? 1u : 0u) + s->problems_dropped;
}

void sw_snapshot_init(struct sw_snapshot *s, const char *path);
void sw_snapshot_free(struct sw_snapshot *s);

/* Records a problem (printf-style). Never fails: when memory is short the
 * problem is dropped. */
void sw_snapshot_problem(struct sw_snapshot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, from a reader's own problem function: "warning: " before the
 * text when warning (what the walk can do without), formatted once. */
void sw_snapshot_vproblem(struct sw_snapshot *s, bool warning, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* A reader's verdict once it read path (a `what`: "minidump", ...): SW_OK
 * when nothing was damaged, else SW_ERR_CORRUPT with the one line
 * "PATH: damaged WHAT: FIRST (and N more problems)", FIRST being the
 * first problem that is damage (warnings may precede it), without the
 * path it may begin with. */
enum sw_err_code sw_snapshot_verdict(const struct sw_snapshot *s, const char *path,
                                     const char *what, uint32_t damage, struct sw_err *err);

/* Readers call it once, after filling the snapshot: sorts s->mem by base and
 * drops regions that overlap an earlier one (so every address has at most
 * one region), and builds the address index of the modules. */
void sw_snapshot_finish(struct sw_snapshot *s);

/* The one checked accessor for captured memory: copies n bytes at addr into
 * out. False when any byte is not captured. */
bool sw_mem_read(const struct sw_snapshot *s, uint64_t addr, void *out, size_t n);
/* sw_mem_read for bytes read once at a random place (code bytes): from the
 * input file without mapping its pages in (sw_mapped_peek). */
bool sw_mem_peek(const struct sw_snapshot *s, uint64_t addr, void *out, size_t n);
/* Reads a word of the snapshot's word size and byte order. */
bool sw_mem_read_word(const struct sw_snapshot *s, uint64_t addr, uint64_t *out);
bool sw_mem_read_u32(const struct sw_snapshot *s, uint64_t addr, uint32_t *out);
/* The region holding addr, or NULL. */
const struct sw_mem_region *sw_mem_find(const struct sw_snapshot *s, uint64_t addr);
/* The first of the process's listed mappings (s->maps) that holds addr;
 * NULL when none does. */
const struct sw_mapping *sw_mapping_at(const struct sw_snapshot *s, uint64_t addr);

/* Thread t's extra register `name` ("psp"): true and *out when the
 * snapshot has it. */
bool sw_thread_extra_reg(const struct sw_thread *t, const char *name, uint64_t *out);

/* The module whose [base, base+size) holds addr, or -1. */
int32_t sw_module_at(const struct sw_snapshot *s, uint64_t addr);
int32_t sw_unloaded_module_at(const struct sw_snapshot *s, uint64_t addr);

/* The last path component, after '/' or '\\'. */
const char *sw_basename(const char *path);

#endif
