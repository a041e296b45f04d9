/* The crash reason and crash address, worded as the outputs print them.
 * The same exception is named differently by Breakpad (whose wording the
 * text and machine outputs keep) and rust-minidump (whose wording the JSON
 * keeps): "SIGSEGV /0x00000000" vs "SIGSEGV", "0xc000000d / 0x00000000" vs
 * "STATUS_INVALID_PARAMETER". Both are decoded here, per OS. */
#ifndef SW_CRASH_REASON_H
#define SW_CRASH_REASON_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

enum sw_reason_style {
	SW_REASON_BREAKPAD,       /* minidump_processor.cc GetCrashReason */
	SW_REASON_RUST,           /* rust-minidump CrashReason Display */
};

/* Writes the reason for s->crash into buf (always NUL-terminated) and
 * returns buf. "" when the snapshot has no crash. */
const char *sw_crash_reason(const struct sw_snapshot *s, enum sw_reason_style style,
                            char *buf, size_t n);

/* The crash address as the style reports it: the faulting data address for
 * Windows access violations / in-page errors (ExceptionInformation[1]),
 * else ExceptionAddress; cut to 32 bits on 32-bit CPUs. */
uint64_t sw_crash_address(const struct sw_snapshot *s, enum sw_reason_style style);

/* Name tables, exposed for tests and the JSON last_error_value: NULL when
 * the value has no name. */
const char *sw_linux_signal_name(uint32_t sig);
/* The same, as Linux numbers signals on cpu (MIPS differs from 7 on). */
const char *sw_linux_cpu_signal_name(enum sw_cpu cpu, uint32_t sig);
const char *sw_windows_fast_fail_name(uint64_t code);
const char *sw_windows_ntstatus_name(uint32_t code);
const char *sw_windows_error_name(uint32_t code);

#endif
