/* Crash reasons, per OS, in Breakpad's and rust-minidump's wording.
 *
 * Sources of the codes: Windows winnt.h / ntstatus.h (EXCEPTION_*,
 * STATUS_*), the FAST_FAIL_* codes of __fastfail (winnt.h), Linux
 * <asm-generic/siginfo.h> (si_code values), macOS <mach/exception_types.h>
 * and <mach/kern_return.h>. The wording rules (which words, where the " / "
 * goes) follow what each tool prints; see docs/output.md. */
#include "crash_reason.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct code_name {
	uint32_t code;
	const char *name;
};

static const char *find_name(const struct code_name *t, size_t n, uint32_t code)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

#define FIND(t, c) find_name((t), sizeof(t) / sizeof((t)[0]), (c))

static const char *fmt(char *buf, size_t n, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

static const char *fmt(char *buf, size_t n, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, n, f, ap);
	va_end(ap);
	return buf;
}

/* ---- Windows ---------------------------------------------------------- */

enum {
	WIN_ACCESS_VIOLATION = 0xc0000005,
	WIN_IN_PAGE_ERROR = 0xc0000006,
	WIN_STACK_BUFFER_OVERRUN = 0xc0000409,
};

/* Exception codes both tools name the same way (winnt.h EXCEPTION_*). */
static const struct code_name win_exceptions[] = {
	{ 0x80000001, "EXCEPTION_GUARD_PAGE" },
	{ 0x80000002, "EXCEPTION_DATATYPE_MISALIGNMENT" },
	{ 0x80000003, "EXCEPTION_BREAKPOINT" },
	{ 0x80000004, "EXCEPTION_SINGLE_STEP" },
	{ 0xc0000005, "EXCEPTION_ACCESS_VIOLATION" },
	{ 0xc0000006, "EXCEPTION_IN_PAGE_ERROR" },
	{ 0xc0000008, "EXCEPTION_INVALID_HANDLE" },
	{ 0xc000001d, "EXCEPTION_ILLEGAL_INSTRUCTION" },
	{ 0xc0000025, "EXCEPTION_NONCONTINUABLE_EXCEPTION" },
	{ 0xc0000026, "EXCEPTION_INVALID_DISPOSITION" },
	{ 0xc000008c, "EXCEPTION_BOUNDS_EXCEEDED" },
	{ 0xc000008d, "EXCEPTION_FLT_DENORMAL_OPERAND" },
	{ 0xc000008e, "EXCEPTION_FLT_DIVIDE_BY_ZERO" },
	{ 0xc000008f, "EXCEPTION_FLT_INEXACT_RESULT" },
	{ 0xc0000090, "EXCEPTION_FLT_INVALID_OPERATION" },
	{ 0xc0000091, "EXCEPTION_FLT_OVERFLOW" },
	{ 0xc0000092, "EXCEPTION_FLT_STACK_CHECK" },
	{ 0xc0000093, "EXCEPTION_FLT_UNDERFLOW" },
	{ 0xc0000094, "EXCEPTION_INT_DIVIDE_BY_ZERO" },
	{ 0xc0000095, "EXCEPTION_INT_OVERFLOW" },
	{ 0xc0000096, "EXCEPTION_PRIV_INSTRUCTION" },
	{ 0xc00000fd, "EXCEPTION_STACK_OVERFLOW" },
	{ 0xc0000194, "EXCEPTION_POSSIBLE_DEADLOCK" },
	{ 0xe0000008, "Out of Memory" },
	{ 0xe06d7363, "Unhandled C++ Exception" },
	{ 0x0517a7ed, "Simulated Exception" },
};

/* Codes only Breakpad names (rust-minidump calls them by NTSTATUS name). */
static const struct code_name win_breakpad_only[] = {
	{ 0x40010005, "DBG_CONTROL_C" },
	{ 0xc00000ff, "EXCEPTION_BAD_FUNCTION_TABLE" },
	{ 0xc0000374, "EXCEPTION_HEAP_CORRUPTION" },
};

/* Codes only rust-minidump's ExceptionCodeWindows names. */
static const struct code_name win_rust_only[] = {
	{ 0xe0434352, "MANAGED_EXCEPTION_CODE_V4" },
};

/* The NTSTATUS values crashes commonly carry (ntstatus.h). */
static const struct code_name ntstatus_names[] = {
	{ 0x00000000, "STATUS_SUCCESS" },
	{ 0x40010005, "DBG_CONTROL_C" },
	{ 0x80000001, "STATUS_GUARD_PAGE_VIOLATION" },
	{ 0x80000002, "STATUS_DATATYPE_MISALIGNMENT" },
	{ 0x80000003, "STATUS_BREAKPOINT" },
	{ 0x80000004, "STATUS_SINGLE_STEP" },
	{ 0xc0000001, "STATUS_UNSUCCESSFUL" },
	{ 0xc0000002, "STATUS_NOT_IMPLEMENTED" },
	{ 0xc0000005, "STATUS_ACCESS_VIOLATION" },
	{ 0xc0000006, "STATUS_IN_PAGE_ERROR" },
	{ 0xc0000008, "STATUS_INVALID_HANDLE" },
	{ 0xc000000d, "STATUS_INVALID_PARAMETER" },
	{ 0xc000000e, "STATUS_NO_SUCH_DEVICE" },
	{ 0xc000000f, "STATUS_NO_SUCH_FILE" },
	{ 0xc0000017, "STATUS_NO_MEMORY" },
	{ 0xc000001d, "STATUS_ILLEGAL_INSTRUCTION" },
	{ 0xc0000022, "STATUS_ACCESS_DENIED" },
	{ 0xc0000025, "STATUS_NONCONTINUABLE_EXCEPTION" },
	{ 0xc0000026, "STATUS_INVALID_DISPOSITION" },
	{ 0xc0000034, "STATUS_OBJECT_NAME_NOT_FOUND" },
	{ 0xc000008c, "STATUS_ARRAY_BOUNDS_EXCEEDED" },
	{ 0xc000008d, "STATUS_FLOAT_DENORMAL_OPERAND" },
	{ 0xc000008e, "STATUS_FLOAT_DIVIDE_BY_ZERO" },
	{ 0xc000008f, "STATUS_FLOAT_INEXACT_RESULT" },
	{ 0xc0000090, "STATUS_FLOAT_INVALID_OPERATION" },
	{ 0xc0000091, "STATUS_FLOAT_OVERFLOW" },
	{ 0xc0000092, "STATUS_FLOAT_STACK_CHECK" },
	{ 0xc0000093, "STATUS_FLOAT_UNDERFLOW" },
	{ 0xc0000094, "STATUS_INTEGER_DIVIDE_BY_ZERO" },
	{ 0xc0000095, "STATUS_INTEGER_OVERFLOW" },
	{ 0xc0000096, "STATUS_PRIVILEGED_INSTRUCTION" },
	{ 0xc000009a, "STATUS_INSUFFICIENT_RESOURCES" },
	{ 0xc000009c, "STATUS_DEVICE_DATA_ERROR" },
	{ 0xc000009d, "STATUS_DEVICE_NOT_CONNECTED" },
	{ 0xc00000fd, "STATUS_STACK_OVERFLOW" },
	{ 0xc00000ff, "STATUS_BAD_FUNCTION_TABLE" },
	{ 0xc0000135, "STATUS_DLL_NOT_FOUND" },
	{ 0xc0000139, "STATUS_ENTRYPOINT_NOT_FOUND" },
	{ 0xc000013a, "STATUS_CONTROL_C_EXIT" },
	{ 0xc0000142, "STATUS_DLL_INIT_FAILED" },
	{ 0xc0000185, "STATUS_IO_DEVICE_ERROR" },
	{ 0xc0000194, "STATUS_POSSIBLE_DEADLOCK" },
	{ 0xc00001ad, "STATUS_COMMITMENT_LIMIT" },
	{ 0xc0000225, "STATUS_NOT_FOUND" },
	{ 0xc000026e, "STATUS_VOLUME_DISMOUNTED" },
	{ 0xc0000374, "STATUS_HEAP_CORRUPTION" },
	{ 0xc0000409, "STATUS_STACK_BUFFER_OVERRUN" },
	{ 0xc0000417, "STATUS_INVALID_CRUNTIME_PARAMETER" },
	{ 0xc0000420, "STATUS_ASSERTION_FAILURE" },
	{ 0xc0000602, "STATUS_FAIL_FAST_EXCEPTION" },
	{ 0xc000070a, "STATUS_THREADPOOL_HANDLE_EXCEPTION" },
	{ 0xc0000906, "STATUS_VIRUS_DELETED" },
	{ 0xc0020043, "RPC_NT_INTERNAL_ERROR" },
};

/* Win32 error codes (winerror.h) commonly seen as exception codes or as a
 * thread's last error. */
static const struct code_name win_error_names[] = {
	{ 0, "ERROR_SUCCESS" },
	{ 1, "ERROR_INVALID_FUNCTION" },
	{ 2, "ERROR_FILE_NOT_FOUND" },
	{ 3, "ERROR_PATH_NOT_FOUND" },
	{ 4, "ERROR_TOO_MANY_OPEN_FILES" },
	{ 5, "ERROR_ACCESS_DENIED" },
	{ 6, "ERROR_INVALID_HANDLE" },
	{ 8, "ERROR_NOT_ENOUGH_MEMORY" },
	{ 14, "ERROR_OUTOFMEMORY" },
	{ 18, "ERROR_NO_MORE_FILES" },
	{ 32, "ERROR_SHARING_VIOLATION" },
	{ 87, "ERROR_INVALID_PARAMETER" },
	{ 122, "ERROR_INSUFFICIENT_BUFFER" },
	{ 126, "ERROR_MOD_NOT_FOUND" },
	{ 127, "ERROR_PROC_NOT_FOUND" },
	{ 183, "ERROR_ALREADY_EXISTS" },
	{ 187, "ERROR_SEM_NOT_FOUND" },
	{ 203, "ERROR_ENVVAR_NOT_FOUND" },
	{ 234, "ERROR_MORE_DATA" },
	{ 258, "WAIT_TIMEOUT" },
	{ 997, "ERROR_IO_PENDING" },
	{ 1008, "ERROR_NO_TOKEN" },
	{ 1168, "ERROR_NOT_FOUND" },
	{ 1400, "ERROR_INVALID_WINDOW_HANDLE" },
};

/* __fastfail codes (winnt.h FAST_FAIL_*), by value 0..76. */
static const char *const fast_fail_names[] = {
	"FAST_FAIL_LEGACY_GS_VIOLATION", "FAST_FAIL_VTGUARD_CHECK_FAILURE",
	"FAST_FAIL_STACK_COOKIE_CHECK_FAILURE", "FAST_FAIL_CORRUPT_LIST_ENTRY",
	"FAST_FAIL_INCORRECT_STACK", "FAST_FAIL_INVALID_ARG",
	"FAST_FAIL_GS_COOKIE_INIT", "FAST_FAIL_FATAL_APP_EXIT",
	"FAST_FAIL_RANGE_CHECK_FAILURE", "FAST_FAIL_UNSAFE_REGISTRY_ACCESS",
	"FAST_FAIL_GUARD_ICALL_CHECK_FAILURE", "FAST_FAIL_GUARD_WRITE_CHECK_FAILURE",
	"FAST_FAIL_INVALID_FIBER_SWITCH", "FAST_FAIL_INVALID_SET_OF_CONTEXT",
	"FAST_FAIL_INVALID_REFERENCE_COUNT", NULL, NULL, NULL,
	"FAST_FAIL_INVALID_JUMP_BUFFER", "FAST_FAIL_MRDATA_MODIFIED",
	"FAST_FAIL_CERTIFICATION_FAILURE", "FAST_FAIL_INVALID_EXCEPTION_CHAIN",
	"FAST_FAIL_CRYPTO_LIBRARY", "FAST_FAIL_INVALID_CALL_IN_DLL_CALLOUT",
	"FAST_FAIL_INVALID_IMAGE_BASE", "FAST_FAIL_DLOAD_PROTECTION_FAILURE",
	"FAST_FAIL_UNSAFE_EXTENSION_CALL", "FAST_FAIL_DEPRECATED_SERVICE_INVOKED",
	"FAST_FAIL_INVALID_BUFFER_ACCESS", "FAST_FAIL_INVALID_BALANCED_TREE",
	"FAST_FAIL_INVALID_NEXT_THREAD", "FAST_FAIL_GUARD_ICALL_CHECK_SUPPRESSED",
	"FAST_FAIL_APCS_DISABLED", "FAST_FAIL_INVALID_IDLE_STATE",
	"FAST_FAIL_MRDATA_PROTECTION_FAILURE", "FAST_FAIL_UNEXPECTED_HEAP_EXCEPTION",
	"FAST_FAIL_INVALID_LOCK_STATE", "FAST_FAIL_GUARD_JUMPTABLE",
	"FAST_FAIL_INVALID_LONGJUMP_TARGET", "FAST_FAIL_INVALID_DISPATCH_CONTEXT",
	"FAST_FAIL_INVALID_THREAD", "FAST_FAIL_INVALID_SYSCALL_NUMBER",
	"FAST_FAIL_INVALID_FILE_OPERATION", "FAST_FAIL_LPAC_ACCESS_DENIED",
	"FAST_FAIL_GUARD_SS_FAILURE", "FAST_FAIL_LOADER_CONTINUITY_FAILURE",
	"FAST_FAIL_GUARD_EXPORT_SUPPRESSION_FAILURE", "FAST_FAIL_INVALID_CONTROL_STACK",
	"FAST_FAIL_SET_CONTEXT_DENIED", "FAST_FAIL_INVALID_IAT",
	"FAST_FAIL_HEAP_METADATA_CORRUPTION", "FAST_FAIL_PAYLOAD_RESTRICTION_VIOLATION",
	"FAST_FAIL_LOW_LABEL_ACCESS_DENIED", "FAST_FAIL_ENCLAVE_CALL_FAILURE",
	"FAST_FAIL_UNHANDLED_LSS_EXCEPTON", "FAST_FAIL_ADMINLESS_ACCESS_DENIED",
	"FAST_FAIL_UNEXPECTED_CALL", "FAST_FAIL_CONTROL_INVALID_RETURN_ADDRESS",
	"FAST_FAIL_UNEXPECTED_HOST_BEHAVIOR", "FAST_FAIL_FLAGS_CORRUPTION",
	"FAST_FAIL_VEH_CORRUPTION", "FAST_FAIL_ETW_CORRUPTION",
	"FAST_FAIL_RIO_ABORT", "FAST_FAIL_INVALID_PFN",
	"FAST_FAIL_GUARD_ICALL_CHECK_FAILURE_XFG", "FAST_FAIL_CAST_GUARD",
	"FAST_FAIL_HOST_VISIBILITY_CHANGE", "FAST_FAIL_KERNEL_CET_SHADOW_STACK_ASSIST",
	"FAST_FAIL_PATCH_CALLBACK_FAILED", "FAST_FAIL_NTDLL_PATCH_FAILED",
	"FAST_FAIL_INVALID_FLS_DATA", "FAST_FAIL_ASAN_ERROR",
	"FAST_FAIL_CLR_EXCEPTION_AOT", "FAST_FAIL_POINTER_AUTH_INVALID_RETURN_ADDRESS",
	"FAST_FAIL_INVALID_THREAD_STATE", "FAST_FAIL_CORRUPT_WOW64_STATE",
	"FAST_FAIL_INVALID_EXTENDED_STATE",
};

const char *sw_windows_fast_fail_name(uint64_t code)
{
	if (code < sizeof fast_fail_names / sizeof fast_fail_names[0])
		return fast_fail_names[code];
	return NULL;
}

const char *sw_windows_ntstatus_name(uint32_t code)
{
	return FIND(ntstatus_names, code);
}

const char *sw_windows_error_name(uint32_t code)
{
	return FIND(win_error_names, code);
}

/* ExceptionInformation[0] of an access violation / in-page error. */
static const char *win_access_type(uint64_t t)
{
	switch (t) {
	case 0: return "READ";
	case 1: return "WRITE";
	case 8: return "EXEC";
	}
	return NULL;
}

static const char *windows_breakpad(const struct sw_crash *c, char *buf, size_t n,
                                    const char *fallback)
{
	const char *name;
	switch (c->code) {
	case WIN_ACCESS_VIOLATION:
	case WIN_IN_PAGE_ERROR: {
		const char *base = c->code == WIN_ACCESS_VIOLATION ?
			"EXCEPTION_ACCESS_VIOLATION" : "EXCEPTION_IN_PAGE_ERROR";
		const char *type = c->nparams >= 1 ? win_access_type(c->params[0]) : NULL;
		if (type)
			fmt(buf, n, "%s_%s", base, type);
		else
			fmt(buf, n, "%s", base);
		if (c->code == WIN_IN_PAGE_ERROR && c->nparams >= 3) {
			uint32_t st = (uint32_t)c->params[2];
			size_t len = strlen(buf);
			const char *sn = sw_windows_ntstatus_name(st);
			if (sn)
				fmt(buf + len, n - len, " / %s", sn);
			else
				fmt(buf + len, n - len, " / 0x%08x", st);
		}
		return buf;
	}
	case WIN_STACK_BUFFER_OVERRUN:
		/* Breakpad skips code 0 (legacy GS) and knows codes 1..70. */
		if (c->nparams >= 1 && c->params[0] >= 1 && c->params[0] <= 70 &&
		    (name = sw_windows_fast_fail_name(c->params[0])))
			return fmt(buf, n, "%s", name);
		return fmt(buf, n, "EXCEPTION_STACK_BUFFER_OVERRUN");
	}
	if ((name = FIND(win_exceptions, c->code)) || (name = FIND(win_breakpad_only, c->code)))
		return fmt(buf, n, "%s", name);
	return fallback;
}

static const char *windows_rust(const struct sw_crash *c, char *buf, size_t n)
{
	const char *name;
	if (c->code == WIN_ACCESS_VIOLATION && c->nparams >= 1 &&
	    (name = win_access_type(c->params[0])))
		return fmt(buf, n, "EXCEPTION_ACCESS_VIOLATION_%s", name);
	if (c->code == WIN_IN_PAGE_ERROR && c->nparams >= 3 &&
	    (name = win_access_type(c->params[0]))) {
		uint32_t st = (uint32_t)c->params[2];
		const char *sn = sw_windows_ntstatus_name(st);
		if (sn)
			return fmt(buf, n, "EXCEPTION_IN_PAGE_ERROR_%s / %s", name, sn);
		return fmt(buf, n, "EXCEPTION_IN_PAGE_ERROR_%s / 0x%08x", name, st);
	}
	if (c->code == WIN_STACK_BUFFER_OVERRUN && c->nparams >= 1) {
		uint64_t ff = c->params[0] & 0xffffffff;
		const char *fn = sw_windows_fast_fail_name(ff);
		if (fn)
			return fmt(buf, n, "EXCEPTION_STACK_BUFFER_OVERRUN / %s", fn);
		return fmt(buf, n, "EXCEPTION_STACK_BUFFER_OVERRUN / 0x%08llx",
		           (unsigned long long)ff);
	}
	if ((name = FIND(win_exceptions, c->code)) || (name = FIND(win_rust_only, c->code)))
		return fmt(buf, n, "%s", name);
	/* Then as a Win32 error, then as an NTSTATUS. */
	if ((name = sw_windows_error_name(c->code)) || (name = sw_windows_ntstatus_name(c->code)))
		return fmt(buf, n, "%s", name);
	return fmt(buf, n, "unknown 0x%08x", c->code);
}

/* ---- Linux / Android --------------------------------------------------- */

static const char *const linux_signals[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
	"SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2",
	"SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",
	"SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

/* Breakpad's MD_EXCEPTION_CODE_LIN_DUMP_REQUESTED: a dump without a crash. */
enum { LINUX_DUMP_REQUESTED = 0xffffffff };

const char *sw_linux_signal_name(uint32_t sig)
{
	if (sig < sizeof linux_signals / sizeof linux_signals[0])
		return linux_signals[sig];
	if (sig == LINUX_DUMP_REQUESTED)
		return "DUMP_REQUESTED";
	return NULL;
}

/* MIPS Linux keeps IRIX's numbers from 7 on (arch/mips/include/uapi/asm/
 * signal.h): SIGEMT 7, SIGBUS 10, SIGSYS 12, SIGUSR1 16, SIGCHLD 18, ...
 * Cores, minidumps and microdumps of MIPS processes record the signal as
 * the kernel numbered it (Breakpad's processor names it with the generic
 * table, which says SIGUSR1 for a MIPS SIGBUS). sparc and alpha number
 * their own way too; no walker of ours runs there. */
static const char *const mips_linux_signals[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
	"SIGEMT", "SIGFPE", "SIGKILL", "SIGBUS", "SIGSEGV", "SIGSYS", "SIGPIPE",
	"SIGALRM", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGPWR",
	"SIGWINCH", "SIGURG", "SIGIO", "SIGSTOP", "SIGTSTP", "SIGCONT",
	"SIGTTIN", "SIGTTOU", "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGXFSZ",
};

static bool cpu_is_mips(enum sw_cpu cpu)
{
	return cpu == SW_CPU_MIPS || cpu == SW_CPU_MIPS64;
}

const char *sw_linux_cpu_signal_name(enum sw_cpu cpu, uint32_t sig)
{
	if (cpu_is_mips(cpu) && sig < sizeof mips_linux_signals / sizeof mips_linux_signals[0])
		return mips_linux_signals[sig];
	return sw_linux_signal_name(sig);
}

/* The asm-generic number of the signals whose si_code has names of its
 * own (SIGILL 4, SIGTRAP 5, SIGBUS 7, SIGFPE 8, SIGSEGV 11, SIGSYS 31);
 * 0 for every other signal of a MIPS process. */
static uint32_t generic_fault_signal(enum sw_cpu cpu, uint32_t sig)
{
	if (!cpu_is_mips(cpu))
		return sig;
	switch (sig) {
	case 4: case 5: case 8: case 11: return sig;
	case 10: return 7;  /* SIGBUS */
	case 12: return 31; /* SIGSYS */
	default: return 0;
	}
}

/* si_code names per signal, <asm-generic/siginfo.h>. */
static const char *const sigill_codes[] = {
	NULL, "ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP",
	"ILL_PRVOPC", "ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK", "ILL_BADIADDR",
};
static const char *const sigtrap_codes[] = {
	NULL, "TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT",
	"TRAP_UNK", "TRAP_PERF",
};
static const char *const sigfpe_codes[] = {
	NULL, "FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF",
	"FPE_FLTUND", "FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB",
};
static const char *const sigsegv_codes[] = {
	NULL, "SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR",
	"SEGV_ACCADI", "SEGV_ADIDERR", "SEGV_ADIPERR", "SEGV_MTEAERR",
	"SEGV_MTESERR",
};
static const char *const sigbus_codes[] = {
	NULL, "BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR",
	"BUS_MCEERR_AO",
};
static const char *const sigsys_codes[] = {
	NULL, "SYS_SECCOMP", "SYS_USER_DISPATCH",
};

#define PICK(t, i) ((i) < sizeof(t) / sizeof((t)[0]) ? (t)[i] : NULL)

/* The si_code name of sig, limited to what `style` knows. */
static const char *linux_si_code(uint32_t sig, uint32_t code, enum sw_reason_style style)
{
	bool rust = style == SW_REASON_RUST;
	switch (sig) {
	case 4: return PICK(sigill_codes, code < (rust ? 10u : 9u) ? code : 99u);
	case 5: return rust ? PICK(sigtrap_codes, code) : NULL;
	case 7: return PICK(sigbus_codes, code);
	case 8: return PICK(sigfpe_codes, code);
	case 11: return PICK(sigsegv_codes, code < (rust ? 5u : 10u) ? code : 99u);
	case 31: return rust ? PICK(sigsys_codes, code) : NULL;
	}
	return NULL;
}

static const char *linux_breakpad(const struct sw_crash *c, enum sw_cpu cpu, char *buf,
                                  size_t n, const char *fallback)
{
	const char *sig = sw_linux_cpu_signal_name(cpu, c->code);
	if (!sig)
		return fallback;
	uint32_t generic = generic_fault_signal(cpu, c->code);
	switch (generic) {
	case 4: case 7: case 8: case 11: {
		const char *code = linux_si_code(generic, c->flags, SW_REASON_BREAKPAD);
		/* Breakpad writes "SIGSEGV /" without the space the others have. */
		const char *sep = generic == 11 ? " /" : " / ";
		if (code)
			return fmt(buf, n, "%s%s%s", sig, sep, code);
		return fmt(buf, n, "%s%s0x%08x", sig, sep, c->flags);
	}
	}
	return fmt(buf, n, "%s", sig);
}

/* Generic si_code values (SI_USER, SI_KERNEL, ...), <asm-generic/siginfo.h>;
 * MIPS orders three of them as IRIX did (arch/mips/include/uapi/asm/
 * siginfo.h: SI_ASYNCIO -2, SI_TIMER -3, SI_MESGQ -4). */
static const char *linux_generic_si_code(enum sw_cpu cpu, int32_t code)
{
	if (cpu_is_mips(cpu) && code >= -4 && code <= -2)
		code = code == -2 ? -4 : code == -4 ? -3 : -2;
	switch (code) {
	case 0x80: return "SI_KERNEL";
	case -1: return "SI_QUEUE";
	case -2: return "SI_TIMER";
	case -3: return "SI_MESGQ";
	case -4: return "SI_ASYNCIO";
	case -5: return "SI_SIGIO";
	case -6: return "SI_TKILL";
	case -7: return "SI_DETHREAD";
	case -60: return "SI_ASYNCNL";
	}
	return NULL;
}

static const char *linux_rust(const struct sw_crash *c, enum sw_cpu cpu, char *buf, size_t n)
{
	const char *sig = sw_linux_cpu_signal_name(cpu, c->code);
	if (!sig)
		return fmt(buf, n, "unknown 0x%08x / 0x%08x", c->code, c->flags);
	const char *code = linux_si_code(generic_fault_signal(cpu, c->code), c->flags,
	                                 SW_REASON_RUST);
	if (code)
		return fmt(buf, n, "%s / %s", sig, code);
	if (c->flags == 0) /* SI_USER: sent by kill() */
		return fmt(buf, n, "%s", sig);
	if ((code = linux_generic_si_code(cpu, (int32_t)c->flags)))
		return fmt(buf, n, "%s / %s", sig, code);
	return fmt(buf, n, "%s / 0x%08x", sig, c->flags);
}

/* ---- NetBSD ------------------------------------------------------------ */

/* NetBSD's numbering (sys/sys/signal.h), which is not Linux's past 9. */
static const char *const netbsd_signals[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGEMT",
	"SIGFPE", "SIGKILL", "SIGBUS", "SIGSEGV", "SIGSYS", "SIGPIPE", "SIGALRM",
	"SIGTERM", "SIGURG", "SIGSTOP", "SIGTSTP", "SIGCONT", "SIGCHLD", "SIGTTIN",
	"SIGTTOU", "SIGIO", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
	"SIGINFO", "SIGUSR1", "SIGUSR2", "SIGPWR",
};

/* The fault codes (sys/sys/siginfo.h) have the POSIX values Linux uses;
 * SI_NOINFO (32767, what a core's procinfo holds when the signal carried
 * none) and other codes leave the signal alone. */
static const char *netbsd_reason(const struct sw_crash *c, char *buf, size_t n)
{
	const char *sig = PICK(netbsd_signals, c->code);
	if (!sig)
		return fmt(buf, n, "unknown 0x%08x / 0x%08x", c->code, c->flags);
	uint32_t as_linux = c->code == 10 ? 7 : c->code; /* SIGBUS */
	const char *code = c->code == 4 || c->code == 8 || c->code == 10 || c->code == 11
	                           ? linux_si_code(as_linux, c->flags, SW_REASON_RUST)
	                           : NULL;
	return code ? fmt(buf, n, "%s / %s", sig, code) : fmt(buf, n, "%s", sig);
}

/* ---- macOS / iOS -------------------------------------------------------- */

enum {
	MAC_BAD_ACCESS = 1, MAC_BAD_INSTRUCTION, MAC_ARITHMETIC, MAC_EMULATION,
	MAC_SOFTWARE, MAC_BREAKPOINT, MAC_SYSCALL, MAC_MACH_SYSCALL,
	MAC_RPC_ALERT, MAC_RESOURCE = 11, MAC_GUARD,
	MAC_SIMULATED = 0x43507378,      /* 'CPsx': Crashpad's simulated crash */
	MAC_NS_EXCEPTION = 0x43506e78,   /* 'CPnx': uncaught NSException */
};

static const char *const mac_exc_names[] = {
	NULL, "EXC_BAD_ACCESS", "EXC_BAD_INSTRUCTION", "EXC_ARITHMETIC",
	"EXC_EMULATION", "EXC_SOFTWARE", "EXC_BREAKPOINT", "EXC_SYSCALL",
	"EXC_MACH_SYSCALL", "EXC_RPC_ALERT", NULL, "EXC_RESOURCE", "EXC_GUARD",
};

static const struct code_name mac_kern[] = {
	{ 1, "KERN_INVALID_ADDRESS" }, { 2, "KERN_PROTECTION_FAILURE" },
	{ 5, "KERN_FAILURE" }, { 8, "KERN_NO_ACCESS" }, { 9, "KERN_MEMORY_FAILURE" },
	{ 10, "KERN_MEMORY_ERROR" }, { 50, "KERN_CODESIGN_ERROR" },
};
static const struct code_name mac_bad_access_arm[] = {
	{ 0x101, "EXC_ARM_DA_ALIGN" }, { 0x102, "EXC_ARM_DA_DEBUG" },
	{ 0x103, "EXC_ARM_SP_ALIGN" }, { 0x104, "EXC_ARM_SWP" },
	{ 0x105, "EXC_ARM_PAC_FAIL" },
};
static const struct code_name mac_bad_access_ppc[] = {
	{ 0x101, "EXC_PPC_VM_PROT_READ" }, { 0x102, "EXC_PPC_BADSPACE" },
	{ 0x103, "EXC_PPC_UNALIGNED" },
};
static const struct code_name mac_bad_access_x86[] = { { 13, "EXC_I386_GPFLT" } };
static const struct code_name mac_bad_instr_arm[] = { { 1, "EXC_ARM_UNDEFINED" } };
static const struct code_name mac_bad_instr_ppc[] = {
	{ 1, "EXC_PPC_INVALID_SYSCALL" }, { 2, "EXC_PPC_UNIPL_INST" },
	{ 3, "EXC_PPC_PRIVINST" }, { 4, "EXC_PPC_PRIVREG" }, { 5, "EXC_PPC_TRACE" },
	{ 6, "EXC_PPC_PERFMON" },
};
static const struct code_name mac_bad_instr_x86[] = {
	{ 1, "EXC_I386_INVOP" }, { 10, "EXC_I386_INVTSSFLT" },
	{ 11, "EXC_I386_SEGNPFLT" }, { 12, "EXC_I386_STKFLT" },
	{ 13, "EXC_I386_GPFLT" }, { 17, "EXC_I386_ALIGNFLT" },
};
static const struct code_name mac_arith_arm[] = {
	{ 1, "EXC_ARM_FP_IO" }, { 2, "EXC_ARM_FP_DZ" }, { 3, "EXC_ARM_FP_OF" },
	{ 4, "EXC_ARM_FP_UF" }, { 5, "EXC_ARM_FP_IX" }, { 6, "EXC_ARM_FP_ID" },
};
static const struct code_name mac_arith_ppc[] = {
	{ 1, "EXC_PPC_OVERFLOW" }, { 2, "EXC_PPC_ZERO_DIVIDE" }, { 3, "EXC_FLT_INEXACT" },
	{ 4, "EXC_PPC_FLT_ZERO_DIVIDE" }, { 5, "EXC_PPC_FLT_UNDERFLOW" },
	{ 6, "EXC_PPC_FLT_OVERFLOW" }, { 7, "EXC_PPC_FLT_NOT_A_NUMBER" },
	{ 8, "EXC_PPC_NOEMULATION" }, { 9, "EXC_PPC_ALTIVECASSIST" },
};
static const struct code_name mac_arith_x86[] = {
	{ 1, "EXC_I386_DIV" }, { 2, "EXC_I386_INTO" }, { 3, "EXC_I386_NOEXT" },
	{ 4, "EXC_I386_EXTOVR" }, { 5, "EXC_I386_EXTERR" }, { 6, "EXC_I386_EMERR" },
	{ 7, "EXC_I386_BOUND" }, { 8, "EXC_I386_SSEEXTERR" },
};
static const struct code_name mac_software[] = {
	{ 0x00010002, "SIGABRT" }, { 0xdeadc0de, "UNCAUGHT_NS_EXCEPTION" },
	{ 0x00000001, "EXC_PPC_TRAP" }, { 0x00010100, "EXC_PPC_MIGRATE" },
};
static const struct code_name mac_bpt_arm[] = {
	{ 1, "EXC_ARM_BREAKPOINT" },
};
static const struct code_name mac_bpt_arm_breakpad[] = {
	{ 0x101, "EXC_ARM_DA_ALIGN" }, { 0x102, "EXC_ARM_DA_DEBUG" },
	{ 1, "EXC_ARM_BREAKPOINT" },
};
static const struct code_name mac_bpt_ppc[] = { { 1, "EXC_PPC_BREAKPOINT" } };
static const struct code_name mac_bpt_x86[] = { { 1, "EXC_I386_SGL" }, { 2, "EXC_I386_BPT" } };

static const char *const mac_resource_types[] = {
	NULL, "RESOURCE_TYPE_CPU", "RESOURCE_TYPE_WAKEUPS", "RESOURCE_TYPE_MEMORY",
	"RESOURCE_TYPE_IO", "RESOURCE_TYPE_THREADS",
};
static const char *const mac_guard_types[] = {
	"GUARD_TYPE_NONE", "GUARD_TYPE_MACH_PORT", "GUARD_TYPE_FD", "GUARD_TYPE_USER",
	"GUARD_TYPE_VN", "GUARD_TYPE_VIRT_MEMORY", "GUARD_TYPE_REJECTED_SC",
};

/* CPU families as the Mac tables split them. */
enum mac_family { MAC_ARM, MAC_PPC, MAC_X86, MAC_OTHER };

static enum mac_family mac_family(const struct sw_snapshot *s, enum sw_reason_style style)
{
	switch (s->sys.cpu) {
	/* Breakpad's tables test MD_CPU_ARCHITECTURE_ARM and ARM64_OLD only;
	 * rust-minidump's test Arm64 only. */
	case SW_CPU_ARM: return style == SW_REASON_BREAKPAD ? MAC_ARM : MAC_OTHER;
	case SW_CPU_ARM64:
		/* MD_CPU_ARCHITECTURE_ARM64_OLD = 0x8003 */
		return style == SW_REASON_RUST || s->sys.raw_arch == 0x8003 ? MAC_ARM : MAC_OTHER;
	case SW_CPU_PPC: case SW_CPU_PPC64: return MAC_PPC;
	case SW_CPU_X86: case SW_CPU_AMD64: return MAC_X86;
	default: return MAC_OTHER;
	}
}

static const char *mac_detail(const struct sw_snapshot *s, enum sw_reason_style style)
{
	const struct sw_crash *c = &s->crash;
	uint32_t f = c->flags;
	enum mac_family fam = mac_family(s, style);
	bool rust = style == SW_REASON_RUST;
	const char *name;
	switch (c->code) {
	case MAC_BAD_ACCESS:
		if ((name = FIND(mac_kern, f)))
			/* Breakpad does not know KERN_FAILURE. */
			return (!rust && f == 5) ? NULL : name;
		if (fam == MAC_ARM)
			return rust ? FIND(mac_bad_access_arm, f) :
			       (f == 0x101 || f == 0x102) ? FIND(mac_bad_access_arm, f) : NULL;
		if (fam == MAC_PPC)
			return FIND(mac_bad_access_ppc, f);
		if (fam == MAC_X86)
			return FIND(mac_bad_access_x86, f);
		return NULL;
	case MAC_BAD_INSTRUCTION:
		if (fam == MAC_ARM) return FIND(mac_bad_instr_arm, f);
		if (fam == MAC_PPC) return FIND(mac_bad_instr_ppc, f);
		if (fam == MAC_X86) return FIND(mac_bad_instr_x86, f);
		return NULL;
	case MAC_ARITHMETIC:
		if (fam == MAC_ARM) return rust ? FIND(mac_arith_arm, f) : NULL;
		if (fam == MAC_PPC) return FIND(mac_arith_ppc, f);
		if (fam == MAC_X86) return FIND(mac_arith_x86, f);
		return NULL;
	case MAC_SOFTWARE:
		return FIND(mac_software, f);
	case MAC_BREAKPOINT:
		if (fam == MAC_ARM) return rust ? FIND(mac_bpt_arm, f) : FIND(mac_bpt_arm_breakpad, f);
		if (fam == MAC_PPC) return FIND(mac_bpt_ppc, f);
		if (fam == MAC_X86) return FIND(mac_bpt_x86, f);
		return NULL;
	}
	return NULL;
}

static const char *mac_breakpad(const struct sw_snapshot *s, char *buf, size_t n,
                                const char *fallback)
{
	const struct sw_crash *c = &s->crash;
	if (c->code == MAC_SIMULATED)
		return fmt(buf, n, "Simulated Exception");
	if (c->code == MAC_NS_EXCEPTION)
		return fmt(buf, n, "Uncaught NSException");
	if (c->code == 0 || c->code >= sizeof mac_exc_names / sizeof mac_exc_names[0] ||
	    !mac_exc_names[c->code])
		return fallback;
	const char *d = mac_detail(s, SW_REASON_BREAKPAD);
	if (d)
		return fmt(buf, n, "%s / %s", mac_exc_names[c->code], d);
	return fmt(buf, n, "%s / 0x%08x", mac_exc_names[c->code], c->flags);
}

static const char *mac_rust(const struct sw_snapshot *s, char *buf, size_t n)
{
	const struct sw_crash *c = &s->crash;
	if (c->code == MAC_SIMULATED)
		return fmt(buf, n, "Simulated Exception");
	if (c->code == 0 || c->code >= sizeof mac_exc_names / sizeof mac_exc_names[0] ||
	    !mac_exc_names[c->code])
		return fmt(buf, n, "unknown 0x%08x / 0x%08x", c->code, c->flags);
	const char *exc = mac_exc_names[c->code];
	uint32_t type = (c->flags >> 29) & 7;
	if (c->code == MAC_RESOURCE && type >= 1 && type <= 5) {
		/* The flavor-specific decoding of code/subcode is not done: the
		 * raw values follow the type, as rust-minidump prints an
		 * unknown flavor. */
		return fmt(buf, n, "EXC_RESOURCE / %s / 0x%016llx / 0x%016llx",
		           mac_resource_types[type],
		           (unsigned long long)(c->nparams > 1 ? c->params[1] : 0),
		           (unsigned long long)(c->nparams > 2 ? c->params[2] : 0));
	}
	if (c->code == MAC_GUARD && type <= 6) {
		if (type == 0)
			return fmt(buf, n, "EXC_GUARD / GUARD_TYPE_NONE");
		return fmt(buf, n, "EXC_GUARD / %s / 0x%016llx / 0x%016llx",
		           mac_guard_types[type],
		           (unsigned long long)(c->nparams > 1 ? c->params[1] : 0),
		           (unsigned long long)(c->nparams > 2 ? c->params[2] : 0));
	}
	const char *d = mac_detail(s, SW_REASON_RUST);
	if (d)
		return fmt(buf, n, "%s / %s", exc, d);
	return fmt(buf, n, "%s / 0x%08x", exc, c->flags);
}

/* ---- bare-metal RISC-V -------------------------------------------------- */

/* A firmware crash (SW_OS_NONE) on RISC-V: code is the trap's mcause
 * (RISC-V privileged ISA, "Machine Cause Register": bit XLEN-1 set for
 * interrupts, else the exception code of the table below). */
static const char *const riscv_exception_names[] = {
	[0] = "Instruction address misaligned",
	[1] = "Instruction access fault",
	[2] = "Illegal instruction",
	[3] = "Breakpoint",
	[4] = "Load address misaligned",
	[5] = "Load access fault",
	[6] = "Store/AMO address misaligned",
	[7] = "Store/AMO access fault",
	[8] = "Environment call from U-mode",
	[9] = "Environment call from S-mode",
	[11] = "Environment call from M-mode",
	[12] = "Instruction page fault",
	[13] = "Load page fault",
	[15] = "Store/AMO page fault",
};

static const char *riscv_mcause(const struct sw_crash *c, char *buf, size_t n)
{
	if (c->code & 0x80000000u)
		return fmt(buf, n, "Interrupt %u", c->code & 0x7fffffffu);
	if (c->code < sizeof riscv_exception_names / sizeof riscv_exception_names[0] &&
	    riscv_exception_names[c->code])
		return fmt(buf, n, "%s", riscv_exception_names[c->code]);
	return fmt(buf, n, "mcause 0x%08x", c->code);
}

static bool is_bare_riscv(const struct sw_snapshot *s)
{
	return s->sys.os == SW_OS_NONE &&
	       (s->sys.cpu == SW_CPU_RISCV32 || s->sys.cpu == SW_CPU_RISCV64);
}

/* ---- bare-metal Cortex-M ----------------------------------------------- */

/* A firmware crash (SW_OS_NONE) on an M-profile ARM: code is the exception
 * number (IPSR; ARMv7-M ARM B1.5.2, "Exception number definition"), flags
 * the Configurable Fault Status Register, whose set bits say which fault
 * (B3.2.15: MMFSR bits 0-7, BFSR 8-15, UFSR 16-31; ARMv8-M adds STKOF).
 * The *VALID bits only say that MMFAR or BFAR hold the address. */
static const char *const cortex_m_exception_names[] = {
	[1] = "Reset", [2] = "NMI", [3] = "HardFault", [4] = "MemManage", [5] = "BusFault",
	[6] = "UsageFault", [7] = "SecureFault", [11] = "SVCall", [12] = "DebugMonitor",
	[14] = "PendSV", [15] = "SysTick",
};

static const struct {
	uint32_t bit;
	const char *name;
} cfsr_bits[] = {
	{ 1u << 0, "IACCVIOL" }, { 1u << 1, "DACCVIOL" }, { 1u << 3, "MUNSTKERR" },
	{ 1u << 4, "MSTKERR" }, { 1u << 5, "MLSPERR" }, { 1u << 8, "IBUSERR" },
	{ 1u << 9, "PRECISERR" }, { 1u << 10, "IMPRECISERR" }, { 1u << 11, "UNSTKERR" },
	{ 1u << 12, "STKERR" }, { 1u << 13, "LSPERR" }, { 1u << 16, "UNDEFINSTR" },
	{ 1u << 17, "INVSTATE" }, { 1u << 18, "INVPC" }, { 1u << 19, "NOCP" },
	{ 1u << 20, "STKOF" }, { 1u << 24, "UNALIGNED" }, { 1u << 25, "DIVBYZERO" },
};

static const char *cortex_m_exception(const struct sw_crash *c, char *buf, size_t n)
{
	size_t len;
	if (c->code < sizeof cortex_m_exception_names / sizeof cortex_m_exception_names[0] &&
	    cortex_m_exception_names[c->code])
		len = (size_t)snprintf(buf, n, "%s", cortex_m_exception_names[c->code]);
	else if (c->code >= 16)
		len = (size_t)snprintf(buf, n, "IRQ %u", c->code - 16);
	else
		len = (size_t)snprintf(buf, n, "exception %u", c->code);
	const char *sep = " / ";
	for (size_t i = 0; i < sizeof cfsr_bits / sizeof cfsr_bits[0] && len < n; i++)
		if (c->flags & cfsr_bits[i].bit) {
			len += (size_t)snprintf(buf + len, n - len, "%s%s", sep, cfsr_bits[i].name);
			sep = " | ";
		}
	return buf;
}

static bool is_bare_cortex_m(const struct sw_snapshot *s)
{
	return s->sys.os == SW_OS_NONE && s->sys.cpu == SW_CPU_ARM && s->sys.arm_profile == 'M';
}

/* ---- entry points -------------------------------------------------------- */

static bool is_microdump(const struct sw_snapshot *s)
{
	return s->format && strcmp(s->format, "microdump") == 0;
}

const char *sw_crash_reason(const struct sw_snapshot *s, enum sw_reason_style style,
                            char *buf, size_t n)
{
	if (n == 0)
		return buf;
	buf[0] = '\0';
	const struct sw_crash *c = &s->crash;
	if (!c->present)
		return buf;
	/* The snapshot's own words (an ESP-IDF panic) say more than a code. */
	if (c->reason && *c->reason)
		return fmt(buf, n, "%s", c->reason);
	if (is_bare_riscv(s))
		return riscv_mcause(c, buf, n);
	if (is_bare_cortex_m(s))
		return cortex_m_exception(c, buf, n);

	/* A microdump's reason is its "R <signo> <NAME> <addr>" line; without
	 * one Breakpad reports a crash with an empty reason. */
	if (is_microdump(s)) {
		const char *sig = c->code ? sw_linux_cpu_signal_name(s->sys.cpu, c->code) : NULL;
		return fmt(buf, n, "%s", sig ? sig : "");
	}

	if (style == SW_REASON_BREAKPAD) {
		/* Breakpad's default when it cannot name the code. */
		char fallback[32];
		snprintf(fallback, sizeof fallback, "0x%08x / 0x%08x", c->code, c->flags);
		const char *r = NULL;
		switch (s->sys.os) {
		case SW_OS_WINDOWS: r = windows_breakpad(c, buf, n, NULL); break;
		case SW_OS_LINUX: case SW_OS_ANDROID:
			r = linux_breakpad(c, s->sys.cpu, buf, n, NULL);
			break;
		case SW_OS_MACOS: case SW_OS_IOS: r = mac_breakpad(s, buf, n, NULL); break;
		case SW_OS_NETBSD: r = netbsd_reason(c, buf, n); break;
		default: break;
		}
		return r ? r : fmt(buf, n, "%s", fallback);
	}

	switch (s->sys.os) {
	case SW_OS_WINDOWS: return windows_rust(c, buf, n);
	case SW_OS_LINUX: case SW_OS_ANDROID: return linux_rust(c, s->sys.cpu, buf, n);
	case SW_OS_MACOS: case SW_OS_IOS: return mac_rust(s, buf, n);
	case SW_OS_NETBSD: return netbsd_reason(c, buf, n);
	default: break;
	}
	return fmt(buf, n, "unknown 0x%08x / 0x%08x", c->code, c->flags);
}

/* 32-bit CPUs whose crash address is cut to 32 bits. Breakpad's
 * GetAddressForArchitecture lists x86, MIPS, PPC, SHX, ARM (not MIPS64,
 * PPC64); rust-minidump cuts by pointer width. */
static bool cpu_is_32bit(const struct sw_snapshot *s, enum sw_reason_style style)
{
	switch (s->sys.cpu) {
	case SW_CPU_X86: case SW_CPU_ARM: case SW_CPU_MIPS: case SW_CPU_PPC:
		return true;
	case SW_CPU_RISCV32:
		return style == SW_REASON_RUST;
	case SW_CPU_UNKNOWN:
		return style == SW_REASON_RUST && s->sys.word_size == 4;
	default:
		return false;
	}
}

uint64_t sw_crash_address(const struct sw_snapshot *s, enum sw_reason_style style)
{
	const struct sw_crash *c = &s->crash;
	if (!c->present)
		return 0;
	uint64_t addr = c->address;
	if (s->sys.os == SW_OS_WINDOWS && !is_microdump(s) &&
	    (c->code == WIN_ACCESS_VIOLATION || c->code == WIN_IN_PAGE_ERROR) &&
	    c->nparams >= 2)
		addr = c->params[1];
	if (cpu_is_32bit(s, style))
		addr &= 0xffffffff;
	return addr;
}
