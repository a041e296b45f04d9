/* Decoding Breakpad's register context records (MDRawContext<CPU>, the
 * minidump_cpu_*.h structs of google_breakpad/common), shared by the
 * minidump reader (thread and exception contexts) and the microdump reader
 * (whose C line is one such record in hex: Breakpad's microdump_writer.cc,
 * DumpCPUState). */
#ifndef SW_FORMATS_MINIDUMP_CONTEXT_H
#define SW_FORMATS_MINIDUMP_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/regs.h"
#include "lib/snapshot.h"
#include "lib/span.h"

enum md_context_status {
	MD_CONTEXT_OK,
	MD_CONTEXT_UNRECOGNISED,  /* no layout fits the record's flags and size */
	MD_CONTEXT_NO_ARCH,       /* a known layout, but no register table here */
};

/* Which layout decoded a record. */
struct md_context_info {
	enum sw_cpu cpu;          /* the layout's CPU */
	const char *layout;       /* Breakpad's struct name: "MDRawContextARM" */
	uint64_t full_size;       /* sizeof that struct */
	uint32_t flags;           /* the record's context_flags */
	bool by_flags;            /* its CPU bits chose the layout (else `cpu` or the size) */
};

/* Decodes the record ctx into *out (cleared first; untouched unless OK).
 * The layout is the one whose CPU bits context_flags carries; a record
 * without CPU bits is read as the layout of `cpu` (the CPU its container
 * names; SW_CPU_UNKNOWN: none), else as the one layout of its size. A
 * record shorter than its layout is decoded when it holds every register
 * the layout reads. *info is filled whenever a layout was found. */
enum md_context_status md_decode_context(struct sw_span ctx, enum sw_cpu cpu,
                                         struct sw_regs *out, struct md_context_info *info);

#endif
