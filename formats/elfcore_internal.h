/* Shared between the ELF core reader's files: elfcore.c reads the
 * file and program headers, the memory and the verdict; elfcore_notes.c
 * the notes; elfcore_regs.c each CPU's register set; elfcore_modules.c
 * the module list (NT_FILE, a maps file, or the dynamic loader's
 * link_map chain) and the vDSO; elfcore_esp.c what an ESP-IDF core's
 * notes, tasks and firmware add. Not a public API. */
#ifndef SW_FORMATS_ELFCORE_INTERNAL_H
#define SW_FORMATS_ELFCORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "elfcore.h"
#include "lib/snapshot.h"
#include "lib/span.h"
#include "open.h"
#include "reader.h"

enum {
	/* Threads kept: a process with more than a million threads does not
	 * fit in memory; a core claiming more is hostile. */
	EC_MAX_THREADS = 1 << 20,
	/* Memory segments kept (PT_LOAD): e_phnum is 16 bits, or 32 through
	 * PN_XNUM (section 0's sh_info); also bounded by the file's size. */
	EC_MAX_LOADS = 1 << 22,
	/* NT_FILE entries kept: a large process maps ~100,000 files. */
	EC_MAX_FILES = 1 << 20,
	/* link_map entries followed: a process loads at most a few thousand
	 * libraries; a longer chain loops or is not a chain. */
	EC_MAX_LINK_MAP = 4096,
	/* Bytes of a path read from the core's memory. */
	EC_MAX_PATH = 4096,
	/* Notes not understood that a message names: per thread, and of the
	 * whole core (the rest are counted). */
	EC_NOTES_NAMED = 4,
	EC_OWNER_NAMED = 24,
};

/* Notes of an owner the reader does not know, for the message of a core
 * without threads: owner and type of the first few, the rest counted. */
struct ec_unread_notes {
	char owner[EC_NOTES_NAMED][EC_OWNER_NAMED];
	uint32_t type[EC_NOTES_NAMED];
	uint32_t n;               /* named */
	uint32_t more;            /* not named */
};

/* What one thread's own notes (NetBSD's "NetBSD-CORE@LWPID") said of its
 * registers, for the message of a thread without them. */
/* An NT_SIGINFO note's signal. */
struct ec_siginfo {
	bool present;
	bool has_addr;
	uint32_t signo, code;
	uint64_t addr;
};

struct ec_thread_notes {
	uint32_t type[EC_NOTES_NAMED];  /* types not understood, the first few */
	uint32_t n, more;
	bool regs_note;           /* the note that holds its registers was read
	                             (and a failure to decode it said) */
	/* The NT_SIGINFO after its NT_PRSTATUS: the kernel writes one, for
	 * the thread that dumped; gdb's gcore one per thread (the others'
	 * SIGSTOP from gdb's own tkill). */
	struct ec_siginfo siginfo;
};

/* One PT_LOAD program header, as read. */
struct ec_load {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags;           /* PF_R | PF_W | PF_X */
};

/* The auxiliary vector's entries the reader uses (<elf.h> AT_*). */
struct ec_auxv {
	bool present;
	uint64_t phdr, phent, phnum, pagesz, base, entry;
	uint64_t hwcap, hwcap2, sysinfo_ehdr, execfn, platform;
	bool has_entry, has_phdr, has_sysinfo_ehdr, has_execfn, has_platform;
};

/* What ESP-IDF's notes say (elfcore_esp.c). */
struct ec_esp {
	bool present;             /* an ESP note was seen: a FreeRTOS firmware's core */
	bool has_info;            /* ESP_CORE_DUMP_INFO */
	uint32_t info_version;    /* its version word: the image header's ver */
	char sha_prefix[65];      /* the firmware ELF's SHA-256, as many hex digits as kept */
	bool has_chip_rev;        /* ESP_CHIP_REV (esp-coredump --save-core), or the header */
	uint32_t chip_rev;
	bool has_crashed_tcb;     /* ESP_EXTRA_INFO */
	uint32_t crashed_tcb;
	bool in_isr;
	const char *panic;        /* ESP_PANIC_DETAILS (arena), or NULL */
};

struct ec_reader {
	struct sw_snapshot *snap;
	const struct sw_open_options *opts;
	const char *path;
	const char *what;         /* "ELF core", or the container's kind */
	const struct sw_elfcore_outer *outer;  /* NULL: a core file */
	uint32_t damage;          /* problems that are not warnings */

	struct sw_span file;      /* the whole core, in its byte order */
	uint8_t word;             /* 4 (ELFCLASS32) or 8 */
	uint16_t machine;         /* e_machine */
	uint32_t e_flags;
	enum sw_cpu cpu;          /* SW_CPU_UNKNOWN: no register table here */
	const char *cpu_name;     /* "amd64", "s390x", ... */

	struct ec_load *loads;
	uint32_t nloads;
	const struct ec_load *notes;  /* the PT_NOTE headers (same fields) */
	uint32_t nnotes;

	bool netbsd;              /* NetBSD-CORE notes */
	uint32_t thread_cap;
	uint32_t *cursig;         /* per thread: pr_cursig (Linux) */
	struct ec_thread_notes *thread_notes;  /* per thread */
	struct ec_unread_notes unread;  /* every note not understood */
	uint32_t nprstatus;       /* NT_PRSTATUS notes seen */

	/* An NT_SIGINFO before any thread's NT_PRSTATUS (a process's). */
	struct ec_siginfo siginfo;

	bool has_psinfo;
	const char *fname;        /* pr_fname (arena), or NULL */

	/* NetBSD's process note (struct netbsd_elfcore_procinfo). */
	bool has_nb_proc;
	uint32_t nb_signo, nb_sigcode, nb_siglwp;

	struct ec_auxv auxv;
	bool has_nt_file;

	struct ec_esp esp;
};

/* ---- elfcore_notes.c ---- */

/* First pass over every PT_NOTE: how many threads the notes hold. */
uint32_t ec_count_threads(struct ec_reader *r);
/* Second pass: threads, process, signal, auxv, NT_FILE (into snap->maps),
 * the PAC mask. snap->threads has room for r->thread_cap threads. */
void ec_read_notes(struct ec_reader *r);
/* After the notes: a core without threads, or (each_thread: a process
 * core on a CPU with a register table) a thread whose registers were not
 * read, is damaged, with a message naming the notes that were not
 * understood. A thread must never look like one that merely has no
 * frames. */
void ec_check_thread_registers(struct ec_reader *r, bool each_thread);

/* ---- elfcore_regs.c ---- */

/* The CPU of the core's e_machine and class (SW_CPU_UNKNOWN when
 * stackwalk has no register table for it), and its name for messages. */
enum sw_cpu ec_cpu_of(uint16_t machine, uint8_t word, const char **name);
/* A Linux NT_PRSTATUS descriptor's general registers into *out, in the
 * arch's numbering; false (and *out invalid) when the CPU has no layout
 * here or the descriptor is too short for it. */
bool ec_prstatus_regs(struct ec_reader *r, struct sw_span desc, struct sw_regs *out);
/* The type of a NetBSD LWP note holding its registers on this core's CPU
 * (PT_GETREGS), or 0 when no NetBSD layout of the CPU is known here. */
uint32_t ec_netbsd_regs_type(const struct ec_reader *r);
/* A NetBSD PT_GETREGS note's registers (struct reg of the CPU). */
bool ec_netbsd_regs(struct ec_reader *r, struct sw_span desc, struct sw_regs *out);

/* ---- elfcore_esp.c ---- */

/* An ESP-IDF note (owner ESP_CORE_DUMP_INFO, ESP_CHIP_REV, ESP_EXTRA_INFO
 * or EXTRA_INFO, ESP_PANIC_DETAILS) into r->esp; false: not one. */
bool ec_esp_read_note(struct ec_reader *r, struct sw_span name, uint32_t type,
                      struct sw_span desc);
/* After the notes of an ESP-IDF core: the system, the tasks' names, the
 * crash and the firmware module. */
void ec_esp_finish(struct ec_reader *r);

/* ---- elfcore_modules.c ---- */

/* Modules: from snap->maps (NT_FILE, or the maps file of the options),
 * else from the dynamic loader's data; then the vDSO. Memory must be
 * read. */
void ec_find_modules(struct ec_reader *r);
/* Reads a NUL-terminated string of at most cap - 1 bytes at addr in the
 * core's memory into the arena; NULL when unreadable or unterminated. */
const char *ec_mem_string(struct ec_reader *r, uint64_t addr, size_t cap);

#endif
