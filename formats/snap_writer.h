/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the stackwalk authors
 *
 * snap_writer: writes a .snap crash snapshot, version 1 (stackwalk's
 * docs/snap-format.md): registers, stack windows, the image map and the
 * crash of a device that cannot write a minidump or an ELF core.
 *
 * This header and snap_writer.c may be copied into a device project as they
 * are (MIT license: keep the SPDX line and the copyright notice). They are
 * C99, include nothing but <stddef.h>, <stdint.h> and <string.h> (memcpy),
 * allocate nothing, keep no global state (all of it is in the caller's
 * struct snap_writer: reentrant), and use little stack and no recursion:
 * safe in a fault handler. A host program (a converter) uses them too.
 *
 * Use:
 *   struct snap_writer w;
 *   snap_init_buffer(&w, area, sizeof area);    or  snap_init_stream(&w, send, ctx);
 *   snap_begin(&w, &header);
 *   snap_system / snap_module / snap_crash / snap_thread / snap_memory /
 *   snap_annotation ... in any order, each one record;
 *   snap_end(&w);
 * Every call returns SNAP_OK or a status below. In buffer mode a record
 * that does not fit is not written at all (SNAP_FULL) and room for the END
 * record is always kept, so what is in the buffer is a complete file. */
#ifndef SNAP_WRITER_H
#define SNAP_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SNAP_VERSION = 1, SNAP_HEADER_SIZE = 32 };

/* The file's magic: "\x89SNAP\r\n\x1a". */
#define SNAP_MAGIC "\x89SNAP\r\n\x1a"
enum { SNAP_MAGIC_SIZE = 8 };

/* CPUs (the header's cpu field). */
enum snap_cpu {
	SNAP_CPU_X86 = 1,
	SNAP_CPU_AMD64 = 2,
	SNAP_CPU_ARM = 3,
	SNAP_CPU_ARM64 = 4,
	SNAP_CPU_MIPS = 5,
	SNAP_CPU_MIPS64 = 6,
	SNAP_CPU_PPC = 7,
	SNAP_CPU_PPC64 = 8,
	SNAP_CPU_RISCV32 = 9,
	SNAP_CPU_RISCV64 = 10,
};

/* The header's flags. */
enum { SNAP_HEADER_BIG_ENDIAN = 1 };

/* ARM's cpu_variant: profile 'A', 'R' or 'M', the architecture's major and
 * minor version, and flags. RISC-V's is misa's extension bits:
 * SNAP_RISCV_EXT('C') is the C extension. */
#define SNAP_ARM_VARIANT(profile, major, minor, flags)                              \
	((uint32_t)(uint8_t)(profile) | (uint32_t)(uint8_t)(major) << 8 |             \
	 (uint32_t)(uint8_t)(minor) << 16 | (uint32_t)(uint8_t)(flags) << 24)
enum {
	SNAP_ARM_FPU = 1,
	SNAP_ARM_DSP = 2,       /* ARMv7E-M */
	SNAP_ARM_MAINLINE = 4,  /* ARMv8-M Main Extension */
	SNAP_ARM_SECURITY = 8,  /* ARMv8-M Security Extension (TrustZone-M) */
};
#define SNAP_RISCV_EXT(letter) ((uint32_t)1 << ((letter) - 'A'))

/* Operating systems (SYSTEM record). */
enum snap_os {
	SNAP_OS_UNKNOWN = 0,
	SNAP_OS_NONE = 1,       /* bare metal, or an RTOS linked into the firmware */
	SNAP_OS_LINUX = 2,
	SNAP_OS_ANDROID = 3,
	SNAP_OS_WINDOWS = 4,
	SNAP_OS_MACOS = 5,
	SNAP_OS_IOS = 6,
	SNAP_OS_FUCHSIA = 7,
	SNAP_OS_NETBSD = 8,
	SNAP_OS_SOLARIS = 9,
};

/* Record types. 0x8000-0xfffe are free for a project's own records. */
enum snap_record_type {
	SNAP_REC_SYSTEM = 1,
	SNAP_REC_THREAD = 2,
	SNAP_REC_MEMORY = 3,
	SNAP_REC_MEMORY_ZLIB = 4,
	SNAP_REC_MODULE = 5,
	SNAP_REC_CRASH = 6,
	SNAP_REC_ANNOTATION = 7,
	SNAP_REC_END = 8,
	SNAP_REC_USER = 0x8000,
};

/* A record's type, flags and length before its payload; its CRC after. */
enum { SNAP_RECORD_HEAD = 8, SNAP_RECORD_CRC = 4 };

/* Register sets (THREAD record), numbered as docs/snap-format.md says. */
enum snap_regset {
	SNAP_REGSET_X86 = 1,
	SNAP_REGSET_AMD64 = 2,
	SNAP_REGSET_ARM = 3,
	SNAP_REGSET_ARM64 = 4,
	SNAP_REGSET_MIPS = 5,
	SNAP_REGSET_PPC = 6,
	SNAP_REGSET_RISCV = 7,
	SNAP_REGSET_CORTEX_M = 8,
};

/* Cortex-M register numbers (SNAP_REGSET_CORTEX_M). */
enum {
	SNAP_CM_R0 = 0, SNAP_CM_R7 = 7, SNAP_CM_R12 = 12,
	SNAP_CM_SP = 13, SNAP_CM_LR = 14, SNAP_CM_PC = 15,
	SNAP_CM_XPSR = 16, SNAP_CM_MSP = 17, SNAP_CM_PSP = 18, SNAP_CM_CONTROL = 19,
	SNAP_CM_EXC_RETURN = 20, SNAP_CM_PRIMASK = 21, SNAP_CM_BASEPRI = 22,
	SNAP_CM_FAULTMASK = 23, SNAP_CM_CFSR = 24, SNAP_CM_HFSR = 25, SNAP_CM_DFSR = 26,
	SNAP_CM_MMFAR = 27, SNAP_CM_BFAR = 28, SNAP_CM_AFSR = 29, SNAP_CM_SFSR = 30,
	SNAP_CM_SFAR = 31, SNAP_CM_MSP_NS = 32, SNAP_CM_PSP_NS = 33, SNAP_CM_MSP_S = 34,
	SNAP_CM_PSP_S = 35, SNAP_CM_FPCCR = 36, SNAP_CM_CONTROL_NS = 37, SNAP_CM_CONTROL_S = 38,
	SNAP_CM_NREGS = 39,
};

/* RISC-V register numbers (SNAP_REGSET_RISCV): x0-x31 are 0-31. */
enum {
	SNAP_RV_RA = 1, SNAP_RV_SP = 2, SNAP_RV_S0 = 8,
	SNAP_RV_PC = 32, SNAP_RV_MCAUSE = 33, SNAP_RV_MEPC = 34, SNAP_RV_MTVAL = 35,
	SNAP_RV_MSTATUS = 36, SNAP_RV_VLENB = 37,
	SNAP_RV_NREGS = 38,
};

/* The valid mask of registers 0..n-1 (n at most 64). */
#define SNAP_MASK(n) ((n) >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (n)) - 1))

/* THREAD flags. */
enum { SNAP_THREAD_RUNNING = 1 };

/* CRASH kinds and flags. */
enum snap_crash_kind {
	SNAP_CRASH_UNSPECIFIED = 0,
	SNAP_CRASH_SIGNAL = 1,          /* code: signal number; subcode: si_code */
	SNAP_CRASH_CPU_EXCEPTION = 2,   /* code: IPSR exception number, mcause, vector */
	SNAP_CRASH_OS_EXCEPTION = 3,    /* code: NTSTATUS, Mach exception type */
	SNAP_CRASH_SOFTWARE = 4,        /* code: the project's own (assert, panic) */
};
enum { SNAP_CRASH_HAS_ADDRESS = 1 };

/* The fields a host's converter adds after a SYSTEM record's strings and
 * a MODULE record's name (docs/snap-format.md): a device writes none. */
enum {
	SNAP_SYS_SCANS_BY_RULE = 1,   /* a scanned word needs no proof from code */
	SNAP_SYS_MODULES_BY_END = 2,  /* overlapping modules: the one ending first */
};
enum {
	SNAP_MOD_HAS_LOAD_BIAS = 1,
	SNAP_MOD_HAS_IMAGE_ADDR = 2,
};

/* Limits of the format. */
#define SNAP_MAX_STRING 0xffffu         /* bytes of a str */
#define SNAP_MAX_PAYLOAD 0xffffffffu    /* bytes of a record's payload */
enum { SNAP_MAX_BUILD_ID = 64 };

enum snap_status {
	SNAP_OK = 0,
	SNAP_FULL = 1,     /* buffer mode: the record does not fit; nothing of it written */
	SNAP_IO = 2,       /* stream mode: the callback failed; the writer has stopped */
	SNAP_INVALID = 3,  /* a bad argument or a call out of order; nothing written */
};

/* Stream mode's output: sends n bytes, returns 0 on success, nonzero to
 * stop the writer. */
typedef int (*snap_write_fn)(void *ctx, const void *bytes, size_t n);

/* The writer's state; its fields are private. */
struct snap_writer {
	uint8_t *buf;          /* buffer mode: the caller's area */
	size_t cap, used;
	snap_write_fn write;   /* stream mode */
	void *ctx;
	size_t written;        /* bytes output, both modes */
	size_t record_start;   /* where the open record began (buffer mode) */
	uint32_t crc;          /* running CRC-32 of the open record, pre-inverted */
	uint32_t left;         /* payload bytes the open record still expects */
	uint32_t records;      /* records completed */
	uint8_t word_size;
	uint8_t state;
};

struct snap_header {
	uint16_t cpu;          /* enum snap_cpu */
	uint8_t word_size;     /* 4 or 8: the width of the CPU's registers */
	uint8_t big_endian;    /* nonzero: the target's memory is big-endian */
	uint32_t cpu_variant;  /* SNAP_ARM_VARIANT(...), misa's bits, or 0 */
	uint64_t time;         /* seconds since 1970 UTC; 0 = unknown */
};

/* NULL strings are written empty. */
struct snap_system {
	uint16_t os;           /* enum snap_os */
	const char *os_name, *os_version, *cpu_model, *device, *firmware_version;
};

struct snap_thread {
	uint32_t id;
	uint16_t regset;       /* enum snap_regset */
	uint16_t flags;        /* SNAP_THREAD_RUNNING */
	const char *name;      /* NULL: unnamed */
	uint64_t valid;        /* bit i: values[i] is stored */
	/* Words of the header's word size, in the writer's own byte order,
	 * indexed by register number; only those whose valid bit is set are
	 * read. */
	const void *values;
	uint64_t stack_lo, stack_hi; /* the thread's whole stack; 0, 0: not said */
};

struct snap_crash {
	uint32_t thread_id;
	uint16_t kind;         /* enum snap_crash_kind */
	uint16_t flags;        /* SNAP_CRASH_HAS_ADDRESS */
	uint32_t code, subcode;
	uint64_t address;
	const char *reason;    /* NULL: none */
};

/* Output into buf[0..cap). */
void snap_init_buffer(struct snap_writer *w, void *buf, size_t cap);
/* Output through write(ctx, bytes, n). */
void snap_init_stream(struct snap_writer *w, snap_write_fn write, void *ctx);

/* The file header. First. */
int snap_begin(struct snap_writer *w, const struct snap_header *h);
int snap_system(struct snap_writer *w, const struct snap_system *s);
int snap_thread(struct snap_writer *w, const struct snap_thread *t);
/* len bytes from bytes, which is read once, where it is (no copy in stream
 * mode). Longer than SNAP_MAX_PAYLOAD - 8: SNAP_INVALID (split it). The
 * range must be readable (check a stack pointer against the RAM's bounds
 * first) and, in buffer mode, must not overlap the buffer. */
int snap_memory(struct snap_writer *w, uint64_t base, const void *bytes, size_t len);
/* A zlib stream (RFC 1950) of `size` bytes at base: for hosts. */
int snap_memory_zlib(struct snap_writer *w, uint64_t base, uint64_t size, const void *zbytes,
                     size_t zlen);
/* bias: run-time address - link address (0 for firmware). build_id may be
 * NULL (len 0); at most SNAP_MAX_BUILD_ID bytes. */
int snap_module(struct snap_writer *w, const char *name, uint64_t base, uint64_t size,
                uint64_t bias, const void *build_id, size_t build_id_len);
int snap_crash(struct snap_writer *w, const struct snap_crash *c);
int snap_annotation(struct snap_writer *w, const char *key, const char *value);
/* The END record. Last; in buffer mode it always fits. */
int snap_end(struct snap_writer *w);

/* A record of any type, its payload in pieces: begin, write until `len`
 * bytes are given, end. A record whose pieces do not add up is refused
 * (SNAP_INVALID): in buffer mode it is taken back; in stream mode, where it
 * has gone out in part, the writer stops and later calls return SNAP_IO. */
int snap_record_begin(struct snap_writer *w, uint16_t type, uint32_t len);
int snap_record_write(struct snap_writer *w, const void *bytes, size_t n);
int snap_record_end(struct snap_writer *w);

/* The payload bytes the next record may have (buffer mode; SIZE_MAX in
 * stream mode), and the bytes output so far. */
size_t snap_room(const struct snap_writer *w);
size_t snap_size(const struct snap_writer *w);

#ifdef __cplusplus
}
#endif

#endif
