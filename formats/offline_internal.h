/* Shared between the offline reader's four files: offline.c reads the
 * folder (memory files, system info, the verdict), offline_regs.c
 * regs.txt and the CPU, offline_maps.c the modules of maps.txt (which
 * proc_maps.c reads), offline_probe.c a debug probe's capture. Not a
 * public API. */
#ifndef SW_FORMATS_OFFLINE_INTERNAL_H
#define SW_FORMATS_OFFLINE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"
#include "open.h"
#include "reader.h"
#include "text_lines.h"

enum {
	/* regs.txt lines kept: every CPU has fewer than 64 registers; a
	 * longer file repeats names or is not a register file. */
	OL_MAX_REGS = 256,
};
/* Memory read from the folder's files, all together: a thread's stack is
 * at most a few MiB; upstream's largest captures (JIT debug data) 1.4 MiB;
 * a probe's RAM dump of a microcontroller a few hundred KiB. */
#define OL_MAX_MEMORY ((uint64_t)1 << 30)

/* One line of regs.txt, before the CPU is known. */
struct ol_reg {
	const char *name;         /* as written (arena) */
	uint64_t value;
	uint64_t line;            /* 1-based, for messages */
};

struct ol_reader {
	struct sw_snapshot *snap;
	const char *dir;          /* the folder, as given */
	uint32_t damage;          /* problems that are not warnings */

	struct ol_reg *regs;      /* regs.txt's registers, in order */
	uint32_t nregs;

	/* Per module (snap->modules' order): e_machine and ELF class of its
	 * ELF, 0 when none was read. */
	uint16_t *module_machine;
	uint8_t *module_word_size;

	/* links.txt's text (arena), read on the first file lookup. */
	bool links_read;
	struct sw_span links;
};

/* len bytes at offset off of the file at path, read into the arena (*got
 * of them: fewer when the file is shorter, a problem); NULL when none. */
const uint8_t *ol_read_file(struct ol_reader *r, const char *path, uint64_t off, uint64_t len,
                            uint64_t *got);
/* The CPU: `guess` (from the register names), unless the ELF of the
 * module holding the pc is another CPU's. */
enum sw_cpu ol_choose_cpu(struct ol_reader *r, const char *regs_path, enum sw_cpu guess);

/* regs.txt (path names it in messages): fills r->regs. */
void ol_read_regs(struct ol_reader *r, struct sw_span text, const char *path);
/* The CPU the register names tell (SW_CPU_UNKNOWN when no register). */
enum sw_cpu ol_regs_cpu(const struct ol_reader *r);
/* Does cpu have a register called name (ours or libunwindstack's)? */
bool ol_reg_known(enum sw_cpu cpu, const char *name);
/* The pc regs.txt gives for cpu ("pc", "eip", "rip"). */
bool ol_regs_pc(const struct ol_reader *r, enum sw_cpu cpu, uint64_t *pc);
/* The context in cpu's register numbering; names cpu does not know are
 * problems. */
void ol_regs_context(struct ol_reader *r, enum sw_cpu cpu, const char *path,
                     struct sw_regs *ctx);

/* One module per mapped ELF (and per named executable map without one),
 * from snap->maps and the files of the folder; memory must be read. */
void ol_find_modules(struct ol_reader *r);
/* The CPU of an ELF e_machine and class; SW_CPU_UNKNOWN if none. */
enum sw_cpu ol_elf_cpu(uint16_t machine, uint8_t word_size);

/* ---- A debug probe's capture (offline_probe.c) ---- */

/* The start address a memory file's name gives ("mem-HEX.bin"); false
 * when the name is not one. */
bool ol_probe_memory_name(const char *name, uint64_t *base);
/* Does folder dir hold a file named mem-*.bin? */
bool ol_folder_has_probe_memory(const char *dir);
/* The capture of a probe into the snapshot and its one thread t, once
 * regs.txt is read into r->regs: the memory files, the modules (the
 * folder's *.elf, and the ELF executables among opts' search paths that
 * hold the pc), the CPU and system info, t's context and named
 * registers. */
void ol_read_probe(struct ol_reader *r, const char *regs_path, const struct sw_open_options *opts,
                   struct sw_thread *t);

#endif
