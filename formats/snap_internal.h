/* Shared between the .snap reader's files: snap.c reads the header and
 * finds the records (CRCs, resynchronisation, END), snap_records.c turns
 * each record into the snapshot, snap_regs.c maps the register sets onto
 * the arch tables, snap_modules.c relates the modules to their ELF files;
 * and with snap_convert.c, which writes a snapshot of any format as a
 * .snap. Not a public API. */
#ifndef SW_FORMATS_SNAP_INTERNAL_H
#define SW_FORMATS_SNAP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"
#include "open.h"
#include "reader.h"
#include "snap_writer.h"

/* The limits of docs/snap-format.md ("Limits"). */
enum {
	SR_MAX_HEADER = 4096,
	SR_MAX_RECORDS = 1 << 22,
	SR_MAX_THREADS = 1 << 16,
	SR_MAX_MODULES = 1 << 16,
	SR_MAX_ANNOTATIONS = 1 << 16,
	SR_MAX_MEMORY_RECORDS = 1 << 20,
	SR_MAX_REGS = 64,
};
#define SR_MAX_INFLATED_RECORD ((uint64_t)256 << 20)
#define SR_MAX_INFLATED ((uint64_t)1 << 30)

/* A record found intact (or a MEMORY record cut by the end of the file,
 * whose bytes are kept unverified). */
struct sr_record {
	uint16_t type;
	bool cut;                 /* a MEMORY record's first bytes only, no CRC */
	uint64_t off;             /* of the record's head in the file */
	struct sw_span payload;
};

struct sr_reader {
	struct sw_snapshot *snap;
	const char *path;
	const struct sw_open_options *opts;
	struct sw_span file;
	uint32_t damage;          /* problems that are not warnings */

	/* The header. */
	uint16_t cpu_id;
	enum sw_cpu cpu;
	uint8_t word_size;
	bool big_endian;
	uint32_t cpu_variant;
	uint64_t time;

	/* The records, in file order (snap.c). */
	struct sr_record *records;
	uint32_t nrecords, records_cap;

	/* Filled while the records are read (snap_records.c). */
	uint64_t inflated;        /* bytes MEMORY_ZLIB records inflated to */
	bool has_system, has_crash, has_running;
	uint16_t crash_kind;      /* the CRASH record's */
	uint32_t running;         /* the thread flagged running */
	bool cortex_m;            /* a thread used the Cortex-M register set */
	const char *device, *firmware_version;
	bool scans_by_rule;       /* SYSTEM's SNAP_SYS_SCANS_BY_RULE */
};

/* The record type's name for messages: "THREAD", or "type 0x8001". */
const char *sr_type_name(uint16_t type, char *buf, size_t cap);

/* snap_records.c: every record of r->records into the snapshot. */
void sr_read_records(struct sr_reader *r);

/* snap_regs.c */
/* The CPU of a header's cpu id and its word size; SW_CPU_UNKNOWN when the
 * id is none of the format's. */
enum sw_cpu sr_cpu(uint16_t id, uint8_t *word_size);
/* Registers in register set `regset`; 0 when the set is unknown. */
unsigned sr_regset_size(uint16_t regset);
/* The name of register i of set `regset` when it is one of the set's named
 * registers (after the arch table's own: Cortex-M's xpsr..., RISC-V's
 * trap CSRs); NULL for a register numbered as the arch table numbers it. */
const char *sr_regset_name(uint16_t regset, unsigned i);
/* Can a thread of cpu use register set `regset`? */
bool sr_regset_fits(uint16_t regset, enum sw_cpu cpu);
/* The thread's context from a register set's values (mask bit i: the next
 * word of `values` is register i): ctx in the arch's numbering, the rest
 * in t->extra_regs. `values` holds the words, checked by the caller. */
void sr_regs_to_thread(struct sr_reader *r, struct sw_thread *t, uint16_t regset,
                         uint64_t mask, struct sw_span values);

/* snap_modules.c: each module's load bias, from its ELF file in the symbol
 * paths when there is one (see docs/snap-format.md, MODULE). bias[i] is
 * module i's bias as its record gives it; linked[i] says its record gave
 * the load bias itself (a converter's), which is then kept. */
void sr_link_modules(struct sr_reader *r, const uint64_t *bias, const bool *linked);

#endif
