/* Crash reasons and addresses in Breakpad's and rust-minidump's wording;
 * the cases are the corpus dumps' exception records (see the references
 * under ../shared/corpus) plus the decoding rules around them. */
#include <check.h>
#include <string.h>

#include "lib/crash_reason.h"

static struct sw_snapshot snap;

static void setup_crash(enum sw_os os, enum sw_cpu cpu, uint32_t code, uint32_t flags,
                        uint64_t address)
{
	memset(&snap, 0, sizeof snap);
	snap.format = "minidump";
	snap.sys.os = os;
	snap.sys.cpu = cpu;
	snap.sys.word_size = (cpu == SW_CPU_X86 || cpu == SW_CPU_ARM || cpu == SW_CPU_MIPS) ? 4 : 8;
	snap.crash.present = true;
	snap.crash.code = code;
	snap.crash.flags = flags;
	snap.crash.address = address;
}

static void params(uint32_t n, uint64_t a, uint64_t b, uint64_t c)
{
	snap.crash.nparams = n;
	snap.crash.params[0] = a;
	snap.crash.params[1] = b;
	snap.crash.params[2] = c;
}

#define REASONS(bp, rust) do { \
	char buf_[256]; \
	ck_assert_str_eq(sw_crash_reason(&snap, SW_REASON_BREAKPAD, buf_, sizeof buf_), (bp)); \
	ck_assert_str_eq(sw_crash_reason(&snap, SW_REASON_RUST, buf_, sizeof buf_), (rust)); \
} while (0)

START_TEST(test_windows_access_violation_read_write_exec)
{
	setup_crash(SW_OS_WINDOWS, SW_CPU_X86, 0xc0000005, 0, 0x40429e);
	params(2, 0, 0x41414141, 0);
	REASONS("EXCEPTION_ACCESS_VIOLATION_READ", "EXCEPTION_ACCESS_VIOLATION_READ");
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_BREAKPAD), 0x41414141);
	params(2, 1, 0x45, 0);
	REASONS("EXCEPTION_ACCESS_VIOLATION_WRITE", "EXCEPTION_ACCESS_VIOLATION_WRITE");
	params(2, 8, 0x3df944, 0);
	REASONS("EXCEPTION_ACCESS_VIOLATION_EXEC", "EXCEPTION_ACCESS_VIOLATION_EXEC");
	params(2, 5, 0x45, 0);
	REASONS("EXCEPTION_ACCESS_VIOLATION", "EXCEPTION_ACCESS_VIOLATION");
	/* Without parameters the address is ExceptionAddress. */
	params(0, 0, 0, 0);
	REASONS("EXCEPTION_ACCESS_VIOLATION", "EXCEPTION_ACCESS_VIOLATION");
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_RUST), 0x40429e);
}
END_TEST

/* minidump_32bit_crash_addr.dmp: parameter 0xffffffff00000045, address 0x45. */
START_TEST(test_windows_x86_address_cut_to_32_bits)
{
	setup_crash(SW_OS_WINDOWS, SW_CPU_X86, 0xc0000005, 0, 0x1234);
	params(2, 1, 0xffffffff00000045ull, 0);
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_BREAKPAD), 0x45);
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_RUST), 0x45);
	/* write_av_non_canonical.dmp (amd64): kept whole. */
	setup_crash(SW_OS_WINDOWS, SW_CPU_AMD64, 0xc0000005, 0, 0x1234);
	params(2, 0, 0xffffffffffffffffull, 0);
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_BREAKPAD), 0xffffffffffffffffull);
}
END_TEST

/* tiny-exe-fastfail.dmp: STATUS_STACK_BUFFER_OVERRUN with FAST_FAIL_FATAL_APP_EXIT. */
START_TEST(test_windows_fast_fail)
{
	setup_crash(SW_OS_WINDOWS, SW_CPU_AMD64, 0xc0000409, 1, 0x7ff75355af42);
	params(1, 7, 0, 0);
	REASONS("FAST_FAIL_FATAL_APP_EXIT", "EXCEPTION_STACK_BUFFER_OVERRUN / FAST_FAIL_FATAL_APP_EXIT");
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_BREAKPAD), 0x7ff75355af42);
	params(1, 0, 0, 0);
	REASONS("EXCEPTION_STACK_BUFFER_OVERRUN",
	        "EXCEPTION_STACK_BUFFER_OVERRUN / FAST_FAIL_LEGACY_GS_VIOLATION");
	params(1, 999, 0, 0);
	REASONS("EXCEPTION_STACK_BUFFER_OVERRUN", "EXCEPTION_STACK_BUFFER_OVERRUN / 0x000003e7");
	params(0, 0, 0, 0);
	REASONS("EXCEPTION_STACK_BUFFER_OVERRUN", "STATUS_STACK_BUFFER_OVERRUN");
}
END_TEST

/* invalid-parameter.dmp and stack_exhaustion.dmp. */
START_TEST(test_windows_other_codes)
{
	setup_crash(SW_OS_WINDOWS, SW_CPU_AMD64, 0xc000000d, 0, 0);
	params(2, 0xfc218feac0, 0xfc218fecc0, 0);
	REASONS("0xc000000d / 0x00000000", "STATUS_INVALID_PARAMETER");
	setup_crash(SW_OS_WINDOWS, SW_CPU_X86, 0xc00000fd, 0, 0xdea637);
	REASONS("EXCEPTION_STACK_OVERFLOW", "EXCEPTION_STACK_OVERFLOW");
	setup_crash(SW_OS_WINDOWS, SW_CPU_X86, 0xe06d7363, 1, 0);
	REASONS("Unhandled C++ Exception", "Unhandled C++ Exception");
	setup_crash(SW_OS_WINDOWS, SW_CPU_X86, 0xc0000374, 0, 0);
	REASONS("EXCEPTION_HEAP_CORRUPTION", "STATUS_HEAP_CORRUPTION");
	setup_crash(SW_OS_WINDOWS, SW_CPU_X86, 0xdeadbeef, 0, 0);
	REASONS("0xdeadbeef / 0x00000000", "unknown 0xdeadbeef");
}
END_TEST

START_TEST(test_windows_in_page_error)
{
	setup_crash(SW_OS_WINDOWS, SW_CPU_AMD64, 0xc0000006, 0, 0x1000);
	params(3, 0, 0x7000, 0xc000009c);
	REASONS("EXCEPTION_IN_PAGE_ERROR_READ / STATUS_DEVICE_DATA_ERROR",
	        "EXCEPTION_IN_PAGE_ERROR_READ / STATUS_DEVICE_DATA_ERROR");
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_RUST), 0x7000);
}
END_TEST

/* The linux_*.dmp references: si_code 0 gives Breakpad's "SIGSEGV /0x00000000". */
START_TEST(test_linux_signals)
{
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 11, 0, 0x45);
	REASONS("SIGSEGV /0x00000000", "SIGSEGV");
	snap.crash.flags = 1;
	REASONS("SIGSEGV /SEGV_MAPERR", "SIGSEGV / SEGV_MAPERR");
	snap.crash.flags = 9;
	REASONS("SIGSEGV /SEGV_MTESERR", "SIGSEGV / 0x00000009");
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 4, 2, 0);
	REASONS("SIGILL / ILL_ILLOPN", "SIGILL / ILL_ILLOPN");
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 8, 0, 0);
	REASONS("SIGFPE / 0x00000000", "SIGFPE");
	snap.crash.flags = 1;
	REASONS("SIGFPE / FPE_INTDIV", "SIGFPE / FPE_INTDIV");
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 6, (uint32_t)-6, 0);
	REASONS("SIGABRT", "SIGABRT / SI_TKILL");
	setup_crash(SW_OS_ANDROID, SW_CPU_ARM, 5, 1, 0);
	REASONS("SIGTRAP", "SIGTRAP / TRAP_BRKPT");
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 7, 2, 0);
	REASONS("SIGBUS / BUS_ADRERR", "SIGBUS / BUS_ADRERR");
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 0xffffffff, 0, 0);
	REASONS("DUMP_REQUESTED", "DUMP_REQUESTED");
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 77, 3, 0);
	REASONS("0x0000004d / 0x00000003", "unknown 0x0000004d / 0x00000003");
}
END_TEST

/* MIPS Linux numbers signals as IRIX did from 7 on (arch/mips/include/
 * uapi/asm/signal.h): 10 is SIGBUS there, with its si_code names, not
 * SIGUSR1; 7 is SIGEMT, 16 SIGUSR1, 12 SIGSYS; and SI_TIMER is -3. */
START_TEST(test_mips_linux_signal_numbers)
{
	setup_crash(SW_OS_LINUX, SW_CPU_MIPS, 10, 2, 0x45);
	REASONS("SIGBUS / BUS_ADRERR", "SIGBUS / BUS_ADRERR");
	setup_crash(SW_OS_LINUX, SW_CPU_MIPS64, 16, 0, 0);
	REASONS("SIGUSR1", "SIGUSR1");
	setup_crash(SW_OS_ANDROID, SW_CPU_MIPS, 7, 0, 0);
	REASONS("SIGEMT", "SIGEMT");
	setup_crash(SW_OS_LINUX, SW_CPU_MIPS, 12, 1, 0);
	REASONS("SIGSYS", "SIGSYS / SYS_SECCOMP");
	setup_crash(SW_OS_LINUX, SW_CPU_MIPS, 14, (uint32_t)-3, 0);
	REASONS("SIGALRM", "SIGALRM / SI_TIMER");
	setup_crash(SW_OS_LINUX, SW_CPU_MIPS, 11, 1, 0);
	REASONS("SIGSEGV /SEGV_MAPERR", "SIGSEGV / SEGV_MAPERR");
	/* Numbers past MIPS's table: as every CPU names them. */
	setup_crash(SW_OS_LINUX, SW_CPU_MIPS, 0xffffffff, 0, 0);
	REASONS("DUMP_REQUESTED", "DUMP_REQUESTED");
	/* The generic numbering elsewhere. */
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 10, 0, 0);
	REASONS("SIGUSR1", "SIGUSR1");
	ck_assert_str_eq(sw_linux_cpu_signal_name(SW_CPU_MIPS64, 18), "SIGCHLD");
	ck_assert_str_eq(sw_linux_cpu_signal_name(SW_CPU_ARM64, 17), "SIGCHLD");
}
END_TEST

/* pipeline-inlines-macos-segv.dmp, simple-crashpad.dmp,
 * minidump_crashpad_annotation.dmp (iOS 'CPnx'). */
START_TEST(test_mac_exceptions)
{
	setup_crash(SW_OS_MACOS, SW_CPU_AMD64, 1, 1, 0xffffffff80000042ull);
	REASONS("EXC_BAD_ACCESS / KERN_INVALID_ADDRESS", "EXC_BAD_ACCESS / KERN_INVALID_ADDRESS");
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_BREAKPAD), 0xffffffff80000042ull);
	setup_crash(SW_OS_MACOS, SW_CPU_AMD64, 0, 0, 0x7fff6f41333a);
	REASONS("0x00000000 / 0x00000000", "unknown 0x00000000 / 0x00000000");
	setup_crash(SW_OS_IOS, SW_CPU_AMD64, 0x43506e78, 0, 0x1030e9c34);
	REASONS("Uncaught NSException", "unknown 0x43506e78 / 0x00000000");
	setup_crash(SW_OS_MACOS, SW_CPU_ARM64, 1, 0x101, 0);
	REASONS("EXC_BAD_ACCESS / 0x00000101", "EXC_BAD_ACCESS / EXC_ARM_DA_ALIGN");
	setup_crash(SW_OS_MACOS, SW_CPU_AMD64, 2, 1, 0);
	REASONS("EXC_BAD_INSTRUCTION / EXC_I386_INVOP", "EXC_BAD_INSTRUCTION / EXC_I386_INVOP");
	setup_crash(SW_OS_MACOS, SW_CPU_AMD64, 5, 0x10002, 0);
	REASONS("EXC_SOFTWARE / SIGABRT", "EXC_SOFTWARE / SIGABRT");
	setup_crash(SW_OS_MACOS, SW_CPU_ARM64, 6, 1, 0);
	/* Breakpad decodes ARM only for ARM and ARM64_OLD dumps. */
	REASONS("EXC_BREAKPOINT / 0x00000001", "EXC_BREAKPOINT / EXC_ARM_BREAKPOINT");
	setup_crash(SW_OS_MACOS, SW_CPU_AMD64, 0x43507378, 0, 0);
	REASONS("Simulated Exception", "Simulated Exception");
}
END_TEST

/* Breakpad's microdumps: the "R" line's signal, else an empty reason. */
START_TEST(test_microdump_reason)
{
	setup_crash(SW_OS_ANDROID, SW_CPU_ARM, 5, 0, 0x4a7cb000);
	snap.format = "microdump";
	REASONS("SIGTRAP", "SIGTRAP");
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_BREAKPAD), 0x4a7cb000);
	snap.crash.code = 0;
	snap.crash.address = 0;
	REASONS("", "");
}
END_TEST

START_TEST(test_no_crash_is_empty)
{
	setup_crash(SW_OS_LINUX, SW_CPU_AMD64, 11, 0, 0x45);
	snap.crash.present = false;
	REASONS("", "");
	ck_assert_uint_eq(sw_crash_address(&snap, SW_REASON_BREAKPAD), 0);
}
END_TEST

START_TEST(test_unknown_os_uses_numbers)
{
	setup_crash(SW_OS_UNKNOWN, SW_CPU_UNKNOWN, 11, 2, 0x45);
	REASONS("0x0000000b / 0x00000002", "unknown 0x0000000b / 0x00000002");
	char small[8];
	sw_crash_reason(&snap, SW_REASON_BREAKPAD, small, sizeof small);
	ck_assert_str_eq(small, "0x00000");
}
END_TEST

START_TEST(test_name_tables)
{
	ck_assert_str_eq(sw_linux_signal_name(11), "SIGSEGV");
	ck_assert_ptr_null(sw_linux_signal_name(0));
	ck_assert_str_eq(sw_windows_fast_fail_name(70), "FAST_FAIL_INVALID_FLS_DATA");
	ck_assert_ptr_null(sw_windows_fast_fail_name(15));
	ck_assert_str_eq(sw_windows_ntstatus_name(0xc0000005), "STATUS_ACCESS_VIOLATION");
	ck_assert_str_eq(sw_windows_error_name(0), "ERROR_SUCCESS");
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("crash_reason");
	TCase *tc = tcase_create("crash_reason");
	tcase_add_test(tc, test_windows_access_violation_read_write_exec);
	tcase_add_test(tc, test_windows_x86_address_cut_to_32_bits);
	tcase_add_test(tc, test_windows_fast_fail);
	tcase_add_test(tc, test_windows_other_codes);
	tcase_add_test(tc, test_windows_in_page_error);
	tcase_add_test(tc, test_linux_signals);
	tcase_add_test(tc, test_mips_linux_signal_numbers);
	tcase_add_test(tc, test_mac_exceptions);
	tcase_add_test(tc, test_microdump_reason);
	tcase_add_test(tc, test_no_crash_is_empty);
	tcase_add_test(tc, test_unknown_os_uses_numbers);
	tcase_add_test(tc, test_name_tables);
	suite_add_tcase(s, tc);
	return s;
}
