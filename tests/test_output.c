/* The three output formats over hand-built walks: an x86 Windows crash
 * (context frame, CFI frame, scan frame, a frame outside every module) and
 * an amd64 Linux crash with an inline frame. Expected strings follow the
 * layout of Breakpad's minidump_stackwalk (text, -m) and rust-minidump's
 * --json. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/registry.h"
#include "lib/output.h"
#include "lib/output_internal.h"

/* ---- register tables, shaped like arch/x86.c and arch/amd64.c ---------- */

enum { EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI, EIP, EFL, X86_N };
static const char *const x86_names[] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags",
};
static const char *const x86_text[] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "efl",
};
static const uint8_t x86_order[] = { EIP, ESP, EBP, EBX, ESI, EDI, EAX, ECX, EDX, EFL };
static const struct sw_arch test_x86 = {
	.name = "x86", .cpu = SW_CPU_X86, .word_size = 4, .nregs = X86_N,
	.reg_names = x86_names, .pc = EIP, .sp = ESP, .fp = EBP, .ra = -1,
	.print_order = x86_order, .nprint = sizeof x86_order, .text_names = x86_text,
};

enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15, RIP, A64_N };
static const char *const amd64_names[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "rip",
};
static const uint8_t amd64_order[] = {
	RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15, RIP,
};
static const struct sw_arch test_amd64 = {
	.name = "amd64", .cpu = SW_CPU_AMD64, .word_size = 8, .nregs = A64_N,
	.reg_names = amd64_names, .pc = RIP, .sp = RSP, .fp = RBP, .ra = -1,
	.print_order = amd64_order, .nprint = sizeof amd64_order,
};

/* ---- the x86 Windows fixture ---------------------------------------------- */

struct fixture {
	struct sw_snapshot s;
	struct sw_walk_result w;
	struct sw_stack stacks[3];
	struct sw_frame frames[8];        /* as the walk makes them */
	struct sw_stack_frame stored[8];  /* as a stack keeps them */
	struct sw_arena arena;            /* their register values */
	struct sw_thread threads[3];
	struct sw_module modules[3];
	enum sw_symbols_status status[3];
};

static struct fixture fx;

/* The first n fixture frames as a stack keeps them. */
static struct sw_stack_frame *stored_frames(uint32_t n)
{
	sw_arena_init(&fx.arena);
	for (uint32_t i = 0; i < n; i++)
		ck_assert(sw_stack_frame_store(&fx.frames[i], &fx.arena, &fx.stored[i]));
	return fx.stored;
}

static void set(struct sw_regs *r, unsigned i, uint64_t v)
{
	sw_reg_set(r, i, v);
}

static void build_x86(void)
{
	memset(&fx, 0, sizeof fx);
	struct sw_snapshot *s = &fx.s;
	sw_snapshot_init(s, "test.dmp");
	s->format = "minidump";
	s->sys = (struct sw_system_info){
		.os = SW_OS_WINDOWS, .os_name = "Windows NT",
		.os_version = "5.1.2600 Service Pack 2", .os_major = 5, .os_minor = 1,
		.os_build = 2600, .csd_version = "Service Pack 2", .cpu = SW_CPU_X86,
		.cpu_name = "x86", .cpu_info = "GenuineIntel family 6 model 13 stepping 8",
		.cpu_count = 1, .word_size = 4,
	};
	fx.modules[0] = (struct sw_module){
		.base = 0x400000, .size = 0x2d000, .code_file = "C:\\test_app.exe",
		.code_id = "45D35F6C2d000", .debug_file = "C:\\build\\test_app.pdb",
		.debug_id = "5A9832E5287241C1838ED98914E9B7FF1",
	};
	fx.modules[1] = (struct sw_module){
		.base = 0x7c800000, .size = 0xf4000, .code_file = "C:\\WINDOWS\\system32\\kernel32.dll",
		.code_id = "44AB9A84f4000", .debug_file = "kernel32.pdb",
		.debug_id = "BCE8785C57B44245A669896B6A19B9542", .version = "5.1.2600.2945",
	};
	fx.modules[2] = (struct sw_module){
		.base = 0x59a60000, .size = 0xa1000, .code_file = "C:\\WINDOWS\\system32\\dbghelp.dll",
		.code_id = "4110969Aa1000", .debug_file = "dbghelp.pdb",
		.debug_id = "39559573E21B46F28E286923BE9E6A761", .version = "5.1.2600.2180",
	};
	s->modules = fx.modules;
	s->nmodules = 3;
	s->main_module = 0;
	fx.status[0] = SW_SYMS_LOADED;
	fx.status[1] = SW_SYMS_MISSING;
	fx.status[2] = SW_SYMS_NOT_LOOKED;

	fx.threads[0] = (struct sw_thread){ .id = 3060 };
	fx.threads[1] = (struct sw_thread){ .id = 4544, .name = "worker \"two\"" };
	s->threads = fx.threads;
	s->nthreads = 2;

	s->crash = (struct sw_crash){
		.present = true, .thread_id = 3060, .code = 0xc0000005, .address = 0x40429e,
		.nparams = 2, .params = { 1, 0x45 },
	};
	s->dump_time = 1000;
	s->has_process_create_time = true;
	s->process_create_time = 990;
	s->has_pid = true;
	s->pid = 3932;

	/* Frame 0: the context, with symbols and a line. */
	struct sw_frame *f = fx.frames;
	f[0] = (struct sw_frame){
		.pc = 0x40429e, .lookup_pc = 0x40429e, .trust = SW_TRUST_CONTEXT, .module = 0,
		.unloaded_module = -1, .function = "`anonymous namespace'::CrashFunction",
		.function_base = 0x404290, .file = "c:\\test_app.cc", .line = 58,
		.line_base = 0x40429b,
	};
	set(&f[0].regs, EIP, 0x40429e); set(&f[0].regs, ESP, 0x12fe84);
	set(&f[0].regs, EBP, 0x12fe88); set(&f[0].regs, EBX, 0x7c80abc1);
	set(&f[0].regs, ESI, 2); set(&f[0].regs, EDI, 0xa28);
	set(&f[0].regs, EAX, 0x45); set(&f[0].regs, ECX, 0x12fe94);
	set(&f[0].regs, EDX, 0x42bc58); set(&f[0].regs, EFL, 0x10246);
	/* Frame 1: CFI, a function without line records (PUBLIC). */
	f[1] = (struct sw_frame){
		.pc = 0x404200, .lookup_pc = 0x4041ff, .trust = SW_TRUST_CFI, .module = 0,
		.unloaded_module = -1, .function = "main", .function_base = 0x4041b0,
		.function_is_public = true,
	};
	set(&f[1].regs, EIP, 0x404200); set(&f[1].regs, ESP, 0x12fe90);
	set(&f[1].regs, EBP, 0x12ff70);
	/* Frame 2: scan, in a module without symbols. */
	f[2] = (struct sw_frame){
		.pc = 0x7c816fd7, .lookup_pc = 0x7c816fd6, .trust = SW_TRUST_SCAN, .module = 1,
		.unloaded_module = -1,
	};
	set(&f[2].regs, EIP, 0x7c816fd7); set(&f[2].regs, ESP, 0x12ffc8);
	/* Frame 3: frame pointer, outside every module. */
	f[3] = (struct sw_frame){
		.pc = 0x10000, .lookup_pc = 0xffff, .trust = SW_TRUST_FRAME_POINTER, .module = -1,
		.unloaded_module = -1,
	};
	set(&f[3].regs, EIP, 0x10000); set(&f[3].regs, ESP, 0x12ffd0);
	set(&f[3].regs, EBP, 0x12fff0);

	fx.stacks[0] = (struct sw_stack){ .thread = 0, .frames = stored_frames(4), .nframes = 4 };
	fx.stacks[1] = (struct sw_stack){ .thread = 1, .frames = NULL, .nframes = 0 };
	fx.w = (struct sw_walk_result){
		.stacks = fx.stacks, .nstacks = 2, .crashing = 0, .module_status = fx.status,
	};
}

/* ---- the amd64 Linux fixture with an inline frame -------------------------- */

static void build_amd64(void)
{
	memset(&fx, 0, sizeof fx);
	struct sw_snapshot *s = &fx.s;
	sw_snapshot_init(s, "linux.dmp");
	s->format = "minidump";
	s->sys = (struct sw_system_info){
		.os = SW_OS_LINUX, .os_name = "Linux",
		.os_version = "0.0.0 Linux 4.9.60 #1 SMP x86_64", .csd_version = "Linux 4.9.60 #1 SMP x86_64",
		.cpu = SW_CPU_AMD64, .cpu_name = "amd64", .cpu_info = "family 6 model 70 stepping 1",
		.cpu_count = 4, .word_size = 8,
	};
	fx.modules[0] = (struct sw_module){
		.base = 0x400000, .size = 0x1a000, .code_file = "/tmp/crash",
		.code_id = "f1c3bcc0279865fe3058404b2831d9e64135386c", .debug_file = "crash",
		.debug_id = "C0BCC3F19827FE653058404B2831D9E60",
	};
	s->modules = fx.modules;
	s->nmodules = 1;
	s->main_module = 0;
	fx.status[0] = SW_SYMS_LOADED;
	fx.threads[0] = (struct sw_thread){ .id = 1304, .name = "crash" };
	s->threads = fx.threads;
	s->nthreads = 1;
	s->crash = (struct sw_crash){
		.present = true, .thread_id = 1304, .code = 11, .flags = 1, .address = 0x45,
	};

	struct sw_frame *f = fx.frames;
	/* Frame 0 is inlined into frame 1 (the context frame). */
	f[0] = (struct sw_frame){
		.pc = 0x401d72, .lookup_pc = 0x401d72, .trust = SW_TRUST_INLINE, .module = 0,
		.unloaded_module = -1, .function = "inlined_store", .function_base = 0x401d60,
		.file = "/src/store.h", .line = 12, .line_base = 0x401d70,
	};
	f[1] = (struct sw_frame){
		.pc = 0x401d72, .lookup_pc = 0x401d72, .trust = SW_TRUST_CONTEXT, .module = 0,
		.unloaded_module = -1, .function = "crash_here", .function_base = 0x401d50,
		.file = "/src/main.c", .line = 30, .line_base = 0x401d6e, .ninlines = 1,
	};
	for (unsigned r = 0; r < A64_N; r++)
		set(&f[1].regs, r, 0x1000 + r);
	set(&f[1].regs, RIP, 0x401d72);
	f[2] = (struct sw_frame){
		.pc = 0x401ec0, .lookup_pc = 0x401ebf, .trust = SW_TRUST_CFI_SCAN, .module = 0,
		.unloaded_module = -1, .function = "main", .function_base = 0x401e80,
		.file = "/src/main.c", .line = 40, .line_base = 0x401eb8,
	};
	set(&f[2].regs, RIP, 0x401ec0); set(&f[2].regs, RSP, 0x7fff5ae4ab00);
	fx.stacks[0] = (struct sw_stack){ .thread = 0, .frames = stored_frames(3), .nframes = 3 };
	fx.w = (struct sw_walk_result){
		.stacks = fx.stacks, .nstacks = 1, .crashing = 0, .module_status = fx.status,
	};
}

enum fmt_kind { TEXT, MACHINE, JSON_PRETTY, JSON_COMPACT };

/* Renders into a malloc'ed string. */
static char *render(enum fmt_kind k, const struct sw_arch *arch)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	switch (k) {
	case TEXT: sw_output_text(f, &fx.s, arch, &fx.w); break;
	case MACHINE: sw_output_machine(f, &fx.s, arch, &fx.w); break;
	case JSON_PRETTY: sw_output_json(f, &fx.s, arch, &fx.w, true); break;
	case JSON_COMPACT: sw_output_json(f, &fx.s, arch, &fx.w, false); break;
	}
	fclose(f);
	return buf;
}

/* sw_output with options, into a malloc'ed string. */
static char *render_with(enum sw_output_format fmt, const struct sw_output_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	sw_output(f, fmt, &fx.s, &test_x86, &fx.w, o);
	fclose(f);
	return buf;
}

static void teardown(void)
{
	fx.s.modules = NULL;
	fx.s.threads = NULL;
	sw_snapshot_free(&fx.s);
	sw_arena_free(&fx.arena);
}

#define ASSERT_OUTPUT(kind, arch, expected) do { \
	char *got_ = render((kind), (arch)); \
	if (!got_) \
		ck_abort_msg("no output"); \
	else if (strcmp(got_, (expected)) != 0) \
		fprintf(stderr, "---- got:\n%s---- expected:\n%s----\n", got_, (expected)); \
	ck_assert_str_eq(got_, (expected)); \
	free(got_); \
} while (0)


static const char expected_x86_text[] =
	"Operating system: Windows NT\n"
	"                  5.1.2600 Service Pack 2\n"
	"CPU: x86\n"
	"     GenuineIntel family 6 model 13 stepping 8\n"
	"     1 CPU\n"
	"\n"
	"GPU: UNKNOWN\n"
	"\n"
	"Crash reason:  EXCEPTION_ACCESS_VIOLATION_WRITE\n"
	"Crash address: 0x45\n"
	"Crash parameters:\n"
	"    value: 0x0000000000000001  description: \n"
	"    value: 0x0000000000000045  description: \n"
	"Process uptime: 10 seconds\n"
	"\n"
	"Thread 0 (crashed)\n"
	" 0  test_app.exe!`anonymous namespace'::CrashFunction [test_app.cc : 58 + 0x3]\n"
	"    eip = 0x0040429e   esp = 0x0012fe84   ebp = 0x0012fe88   ebx = 0x7c80abc1\n"
	"    esi = 0x00000002   edi = 0x00000a28   eax = 0x00000045   ecx = 0x0012fe94\n"
	"    edx = 0x0042bc58   efl = 0x00010246\n"
	"    Found by: given as instruction pointer in context\n"
	" 1  test_app.exe!main + 0x50\n"
	"    eip = 0x00404200   esp = 0x0012fe90   ebp = 0x0012ff70\n"
	"    Found by: call frame info\n"
	" 2  kernel32.dll + 0x16fd7\n"
	"    eip = 0x7c816fd7   esp = 0x0012ffc8\n"
	"    Found by: stack scanning\n"
	" 3  0x10000\n"
	"    eip = 0x00010000   esp = 0x0012ffd0   ebp = 0x0012fff0\n"
	"    Found by: previous frame's frame pointer\n"
	"\n"
	"Thread 1\n"
	" <no frames>\n"
	"\n"
	"Loaded modules:\n"
	"0x00400000 - 0x0042cfff  test_app.exe  ???  (main)\n"
	"0x59a60000 - 0x59b00fff  dbghelp.dll  5.1.2600.2180\n"
	"0x7c800000 - 0x7c8f3fff  kernel32.dll  5.1.2600.2945  (WARNING: No symbols, kernel32.pdb, BCE8785C57B44245A669896B6A19B9542)\n";

START_TEST(test_x86_text)
{
	build_x86();
	ASSERT_OUTPUT(TEXT, &test_x86, expected_x86_text);
	teardown();
}
END_TEST

static const char expected_x86_machine[] =
	"OS|Windows NT|5.1.2600 Service Pack 2\n"
	"CPU|x86|GenuineIntel family 6 model 13 stepping 8|1\n"
	"GPU|||\n"
	"Crash|EXCEPTION_ACCESS_VIOLATION_WRITE|0x45|0\n"
	"Module|test_app.exe||test_app.pdb|5A9832E5287241C1838ED98914E9B7FF1|0x00400000|0x0042cfff|1\n"
	"Module|dbghelp.dll|5.1.2600.2180|dbghelp.pdb|39559573E21B46F28E286923BE9E6A761|0x59a60000|0x59b00fff|0\n"
	"Module|kernel32.dll|5.1.2600.2945|kernel32.pdb|BCE8785C57B44245A669896B6A19B9542|0x7c800000|0x7c8f3fff|0\n"
	"\n"
	"0|0|test_app.exe|`anonymous namespace'::CrashFunction|c:\\test_app.cc|58|0x3\n"
	"0|1|test_app.exe|main|||0x50\n"
	"0|2|kernel32.dll||||0x16fd7\n"
	"0|3|||||0x10000\n";

START_TEST(test_x86_machine)
{
	build_x86();
	ASSERT_OUTPUT(MACHINE, &test_x86, expected_x86_machine);
	teardown();
}
END_TEST

static const char expected_x86_json_pretty[] =
	"{\n"
	"  \"crash_info\": {\n"
	"    \"address\": \"0x00000045\",\n"
	"    \"adjusted_address\": null,\n"
	"    \"assertion\": null,\n"
	"    \"crash_inconsistencies\": [],\n"
	"    \"crashing_thread\": 0,\n"
	"    \"instruction\": null,\n"
	"    \"instruction_pointer_update\": null,\n"
	"    \"memory_accesses\": null,\n"
	"    \"possible_bit_flips\": null,\n"
	"    \"type\": \"EXCEPTION_ACCESS_VIOLATION_WRITE\"\n"
	"  },\n"
	"  \"crashing_thread\": {\n"
	"    \"frame_count\": 4,\n"
	"    \"frames\": [\n"
	"      {\n"
	"        \"file\": \"c:\\\\test_app.cc\",\n"
	"        \"frame\": 0,\n"
	"        \"function\": \"`anonymous namespace'::CrashFunction\",\n"
	"        \"function_offset\": \"0x0000000e\",\n"
	"        \"inlines\": null,\n"
	"        \"line\": 58,\n"
	"        \"missing_symbols\": false,\n"
	"        \"module\": \"test_app.exe\",\n"
	"        \"module_offset\": \"0x0000429e\",\n"
	"        \"offset\": \"0x0040429e\",\n"
	"        \"registers\": {\n"
	"          \"eax\": \"0x00000045\",\n"
	"          \"ebp\": \"0x0012fe88\",\n"
	"          \"ebx\": \"0x7c80abc1\",\n"
	"          \"ecx\": \"0x0012fe94\",\n"
	"          \"edi\": \"0x00000a28\",\n"
	"          \"edx\": \"0x0042bc58\",\n"
	"          \"eflags\": \"0x00010246\",\n"
	"          \"eip\": \"0x0040429e\",\n"
	"          \"esi\": \"0x00000002\",\n"
	"          \"esp\": \"0x0012fe84\"\n"
	"        },\n"
	"        \"trust\": \"context\",\n"
	"        \"unloaded_modules\": null\n"
	"      },\n"
	"      {\n"
	"        \"file\": null,\n"
	"        \"frame\": 1,\n"
	"        \"function\": \"main\",\n"
	"        \"function_offset\": \"0x0000004f\",\n"
	"        \"inlines\": null,\n"
	"        \"line\": null,\n"
	"        \"missing_symbols\": false,\n"
	"        \"module\": \"test_app.exe\",\n"
	"        \"module_offset\": \"0x000041ff\",\n"
	"        \"offset\": \"0x004041ff\",\n"
	"        \"trust\": \"cfi\",\n"
	"        \"unloaded_modules\": null\n"
	"      },\n"
	"      {\n"
	"        \"file\": null,\n"
	"        \"frame\": 2,\n"
	"        \"function\": null,\n"
	"        \"function_offset\": null,\n"
	"        \"inlines\": null,\n"
	"        \"line\": null,\n"
	"        \"missing_symbols\": true,\n"
	"        \"module\": \"kernel32.dll\",\n"
	"        \"module_offset\": \"0x00016fd6\",\n"
	"        \"offset\": \"0x7c816fd6\",\n"
	"        \"trust\": \"scan\",\n"
	"        \"unloaded_modules\": null\n"
	"      },\n"
	"      {\n"
	"        \"file\": null,\n"
	"        \"frame\": 3,\n"
	"        \"function\": null,\n"
	"        \"function_offset\": null,\n"
	"        \"inlines\": null,\n"
	"        \"line\": null,\n"
	"        \"missing_symbols\": true,\n"
	"        \"module\": null,\n"
	"        \"module_offset\": null,\n"
	"        \"offset\": \"0x0000ffff\",\n"
	"        \"trust\": \"frame_pointer\",\n"
	"        \"unloaded_modules\": null\n"
	"      }\n"
	"    ],\n"
	"    \"last_error_value\": null,\n"
	"    \"thread_id\": 3060,\n"
	"    \"thread_name\": null,\n"
	"    \"threads_index\": 0,\n"
	"    \"truncated\": false,\n"
	"    \"walk_end\": \"not_walked\"\n"
	"  },\n"
	"  \"handles\": null,\n"
	"  \"linux_memory_map_count\": null,\n"
	"  \"lsb_release\": null,\n"
	"  \"mac_boot_args\": null,\n"
	"  \"mac_crash_info\": null,\n"
	"  \"main_module\": 0,\n"
	"  \"modules\": [\n"
	"    {\n"
	"      \"base_addr\": \"0x00400000\",\n"
	"      \"cert_subject\": null,\n"
	"      \"code_id\": \"45d35f6c2d000\",\n"
	"      \"corrupt_symbols\": false,\n"
	"      \"debug_file\": \"test_app.pdb\",\n"
	"      \"debug_id\": \"5A9832E5287241C1838ED98914E9B7FF1\",\n"
	"      \"end_addr\": \"0x0042d000\",\n"
	"      \"filename\": \"test_app.exe\",\n"
	"      \"loaded_symbols\": true,\n"
	"      \"missing_symbols\": false,\n"
	"      \"symbol_url\": null,\n"
	"      \"version\": null\n"
	"    },\n"
	"    {\n"
	"      \"base_addr\": \"0x7c800000\",\n"
	"      \"cert_subject\": null,\n"
	"      \"code_id\": \"44ab9a84f4000\",\n"
	"      \"corrupt_symbols\": false,\n"
	"      \"debug_file\": \"kernel32.pdb\",\n"
	"      \"debug_id\": \"BCE8785C57B44245A669896B6A19B9542\",\n"
	"      \"end_addr\": \"0x7c8f4000\",\n"
	"      \"filename\": \"kernel32.dll\",\n"
	"      \"loaded_symbols\": false,\n"
	"      \"missing_symbols\": true,\n"
	"      \"symbol_url\": null,\n"
	"      \"version\": \"5.1.2600.2945\"\n"
	"    },\n"
	"    {\n"
	"      \"base_addr\": \"0x59a60000\",\n"
	"      \"cert_subject\": null,\n"
	"      \"code_id\": \"4110969aa1000\",\n"
	"      \"corrupt_symbols\": false,\n"
	"      \"debug_file\": \"dbghelp.pdb\",\n"
	"      \"debug_id\": \"39559573E21B46F28E286923BE9E6A761\",\n"
	"      \"end_addr\": \"0x59b01000\",\n"
	"      \"filename\": \"dbghelp.dll\",\n"
	"      \"loaded_symbols\": false,\n"
	"      \"missing_symbols\": false,\n"
	"      \"symbol_url\": null,\n"
	"      \"version\": \"5.1.2600.2180\"\n"
	"    }\n"
	"  ],\n"
	"  \"modules_contains_cert_info\": false,\n"
	"  \"pid\": 3932,\n"
	"  \"problems\": [],\n"
	"  \"proc_limits\": null,\n"
	"  \"process\": {\n"
	"    \"arguments\": null,\n"
	"    \"command_line\": null,\n"
	"    \"executable\": null\n"
	"  },\n"
	"  \"process_uptime\": 10,\n"
	"  \"signature\": null,\n"
	"  \"soft_errors\": null,\n"
	"  \"status\": \"OK\",\n"
	"  \"system_info\": {\n"
	"    \"cpu_arch\": \"x86\",\n"
	"    \"cpu_count\": 1,\n"
	"    \"cpu_info\": \"GenuineIntel family 6 model 13 stepping 8\",\n"
	"    \"cpu_microcode_version\": null,\n"
	"    \"os\": \"Windows NT\",\n"
	"    \"os_ver\": \"5.1.2600 Service Pack 2\"\n"
	"  },\n"
	"  \"thread_count\": 2,\n"
	"  \"threads\": [\n"
	"    {\n"
	"      \"frame_count\": 4,\n"
	"      \"frames\": [\n"
	"        {\n"
	"          \"file\": \"c:\\\\test_app.cc\",\n"
	"          \"frame\": 0,\n"
	"          \"function\": \"`anonymous namespace'::CrashFunction\",\n"
	"          \"function_offset\": \"0x0000000e\",\n"
	"          \"inlines\": null,\n"
	"          \"line\": 58,\n"
	"          \"missing_symbols\": false,\n"
	"          \"module\": \"test_app.exe\",\n"
	"          \"module_offset\": \"0x0000429e\",\n"
	"          \"offset\": \"0x0040429e\",\n"
	"          \"trust\": \"context\",\n"
	"          \"unloaded_modules\": null\n"
	"        },\n"
	"        {\n"
	"          \"file\": null,\n"
	"          \"frame\": 1,\n"
	"          \"function\": \"main\",\n"
	"          \"function_offset\": \"0x0000004f\",\n"
	"          \"inlines\": null,\n"
	"          \"line\": null,\n"
	"          \"missing_symbols\": false,\n"
	"          \"module\": \"test_app.exe\",\n"
	"          \"module_offset\": \"0x000041ff\",\n"
	"          \"offset\": \"0x004041ff\",\n"
	"          \"trust\": \"cfi\",\n"
	"          \"unloaded_modules\": null\n"
	"        },\n"
	"        {\n"
	"          \"file\": null,\n"
	"          \"frame\": 2,\n"
	"          \"function\": null,\n"
	"          \"function_offset\": null,\n"
	"          \"inlines\": null,\n"
	"          \"line\": null,\n"
	"          \"missing_symbols\": true,\n"
	"          \"module\": \"kernel32.dll\",\n"
	"          \"module_offset\": \"0x00016fd6\",\n"
	"          \"offset\": \"0x7c816fd6\",\n"
	"          \"trust\": \"scan\",\n"
	"          \"unloaded_modules\": null\n"
	"        },\n"
	"        {\n"
	"          \"file\": null,\n"
	"          \"frame\": 3,\n"
	"          \"function\": null,\n"
	"          \"function_offset\": null,\n"
	"          \"inlines\": null,\n"
	"          \"line\": null,\n"
	"          \"missing_symbols\": true,\n"
	"          \"module\": null,\n"
	"          \"module_offset\": null,\n"
	"          \"offset\": \"0x0000ffff\",\n"
	"          \"trust\": \"frame_pointer\",\n"
	"          \"unloaded_modules\": null\n"
	"        }\n"
	"      ],\n"
	"      \"last_error_value\": null,\n"
	"      \"thread_id\": 3060,\n"
	"      \"thread_name\": null,\n"
	"      \"truncated\": false,\n"
	"      \"walk_end\": \"not_walked\"\n"
	"    },\n"
	"    {\n"
	"      \"frame_count\": 0,\n"
	"      \"frames\": [],\n"
	"      \"last_error_value\": null,\n"
	"      \"thread_id\": 4544,\n"
	"      \"thread_name\": \"worker \\\"two\\\"\",\n"
	"      \"truncated\": false,\n"
	"      \"walk_end\": \"not_walked\"\n"
	"    }\n"
	"  ],\n"
	"  \"tool\": {\n"
	"    \"name\": \"stackwalk\",\n"
	"    \"version\": \"" SW_VERSION "\"\n"
	"  },\n"
	"  \"unloaded_modules\": []\n"
	"}\n";

START_TEST(test_x86_json_pretty)
{
	build_x86();
	ASSERT_OUTPUT(JSON_PRETTY, &test_x86, expected_x86_json_pretty);
	teardown();
}
END_TEST

static const char expected_x86_json_compact[] =
	"{\"crash_info\":{\"address\":\"0x00000045\",\"adjusted_address\":null,\"assertion\":null,\"crash_inconsistencies\":[],\"crashing_thread\":0,\"instruction\":null,\"instruction_pointer_update\":null,\"memory_accesses\":null,\"possible_bit_flips\":null,\"type\":\"EXCEPTION_ACCESS_VIOLATION_WRITE\"},\"crashing_thread\":{\"frame_count\":4,\"frames\":[{\"file\":\"c:\\\\test_app.cc\",\"frame\":0,\"function\":\"`anonymous namespace'::CrashFunction\",\"function_offset\":\"0x0000000e\",\"inlines\":null,\"line\":58,\"missing_symbols\":false,\"module\":\"test_app.exe\",\"module_offset\":\"0x0000429e\",\"offset\":\"0x0040429e\",\"registers\":{\"eax\":\"0x00000045\",\"ebp\":\"0x0012fe88\",\"ebx\":\"0x7c80abc1\",\"ecx\":\"0x0012fe94\",\"edi\":\"0x00000a28\",\"edx\":\"0x0042bc58\",\"eflags\":\"0x00010246\",\"eip\":\"0x0040429e\",\"esi\":\"0x00000002\",\"esp\":\"0x0012fe84\"},\"trust\":\"context\",\"unloaded_modules\":null},{\"file\":null,\"frame\":1,\"function\":\"main\",\"function_offset\":\"0x0000004f\",\"inlines\":null,\"line\":null,\"missing_symbols\":false,\"module\":\"test_app.exe\",\"module_offset\":\"0x000041ff\",\"offset\":\"0x004041ff\",\"trust\":\"cfi\",\"unloaded_modules\":null},{\"file\":null,\"frame\":2,\"function\":null,\"function_offset\":null,\"inlines\":null,\"line\":null,\"missing_symbols\":true,\"module\":\"kernel32.dll\",\"module_offset\":\"0x00016fd6\",\"offset\":\"0x7c816fd6\",\"trust\":\"scan\",\"unloaded_modules\":null},{\"file\":null,\"frame\":3,\"function\":null,\"function_offset\":null,\"inlines\":null,\"line\":null,\"missing_symbols\":true,\"module\":null,\"module_offset\":null,\"offset\":\"0x0000ffff\",\"trust\":\"frame_pointer\",\"unloaded_modules\":null}],\"last_error_value\":null,\"thread_id\":3060,\"thread_name\":null,\"threads_index\":0,\"truncated\":false,\"walk_end\":\"not_walked\"},\"handles\":null,\"linux_memory_map_count\":null,\"lsb_release\":null,\"mac_boot_args\":null,\"mac_crash_info\":null,\"main_module\":0,\"modules\":[{\"base_addr\":\"0x00400000\",\"cert_subject\":null,\"code_id\":\"45d35f6c2d000\",\"corrupt_symbols\":false,\"debug_file\":\"test_app.pdb\",\"debug_id\":\"5A9832E5287241C1838ED98914E9B7FF1\",\"end_addr\":\"0x0042d000\",\"filename\":\"test_app.exe\",\"loaded_symbols\":true,\"missing_symbols\":false,\"symbol_url\":null,\"version\":null},{\"base_addr\":\"0x7c800000\",\"cert_subject\":null,\"code_id\":\"44ab9a84f4000\",\"corrupt_symbols\":false,\"debug_file\":\"kernel32.pdb\",\"debug_id\":\"BCE8785C57B44245A669896B6A19B9542\",\"end_addr\":\"0x7c8f4000\",\"filename\":\"kernel32.dll\",\"loaded_symbols\":false,\"missing_symbols\":true,\"symbol_url\":null,\"version\":\"5.1.2600.2945\"},{\"base_addr\":\"0x59a60000\",\"cert_subject\":null,\"code_id\":\"4110969aa1000\",\"corrupt_symbols\":false,\"debug_file\":\"dbghelp.pdb\",\"debug_id\":\"39559573E21B46F28E286923BE9E6A761\",\"end_addr\":\"0x59b01000\",\"filename\":\"dbghelp.dll\",\"loaded_symbols\":false,\"missing_symbols\":false,\"symbol_url\":null,\"version\":\"5.1.2600.2180\"}],\"modules_contains_cert_info\":false,\"pid\":3932,\"problems\":[],\"proc_limits\":null,\"process\":{\"arguments\":null,\"command_line\":null,\"executable\":null},\"process_uptime\":10,\"signature\":null,\"soft_errors\":null,\"status\":\"OK\",\"system_info\":{\"cpu_arch\":\"x86\",\"cpu_count\":1,\"cpu_info\":\"GenuineIntel family 6 model 13 stepping 8\",\"cpu_microcode_version\":null,\"os\":\"Windows NT\",\"os_ver\":\"5.1.2600 Service Pack 2\"},\"thread_count\":2,\"threads\":[{\"frame_count\":4,\"frames\":[{\"file\":\"c:\\\\test_app.cc\",\"frame\":0,\"function\":\"`anonymous namespace'::CrashFunction\",\"function_offset\":\"0x0000000e\",\"inlines\":null,\"line\":58,\"missing_symbols\":false,\"module\":\"test_app.exe\",\"module_offset\":\"0x0000429e\",\"offset\":\"0x0040429e\",\"trust\":\"context\",\"unloaded_modules\":null},{\"file\":null,\"frame\":1,\"function\":\"main\",\"function_offset\":\"0x0000004f\",\"inlines\":null,\"line\":null,\"missing_symbols\":false,\"module\":\"test_app.exe\",\"module_offset\":\"0x000041ff\",\"offset\":\"0x004041ff\",\"trust\":\"cfi\",\"unloaded_modules\":null},{\"file\":null,\"frame\":2,\"function\":null,\"function_offset\":null,\"inlines\":null,\"line\":null,\"missing_symbols\":true,\"module\":\"kernel32.dll\",\"module_offset\":\"0x00016fd6\",\"offset\":\"0x7c816fd6\",\"trust\":\"scan\",\"unloaded_modules\":null},{\"file\":null,\"frame\":3,\"function\":null,\"function_offset\":null,\"inlines\":null,\"line\":null,\"missing_symbols\":true,\"module\":null,\"module_offset\":null,\"offset\":\"0x0000ffff\",\"trust\":\"frame_pointer\",\"unloaded_modules\":null}],\"last_error_value\":null,\"thread_id\":3060,\"thread_name\":null,\"truncated\":false,\"walk_end\":\"not_walked\"},{\"frame_count\":0,\"frames\":[],\"last_error_value\":null,\"thread_id\":4544,\"thread_name\":\"worker \\\"two\\\"\",\"truncated\":false,\"walk_end\":\"not_walked\"}],\"tool\":{\"name\":\"stackwalk\",\"version\":\"" SW_VERSION "\"},\"unloaded_modules\":[]}\n";

START_TEST(test_x86_json_compact)
{
	build_x86();
	ASSERT_OUTPUT(JSON_COMPACT, &test_x86, expected_x86_json_compact);
	teardown();
}
END_TEST

static const char expected_amd64_text[] =
	"Operating system: Linux\n"
	"                  0.0.0 Linux 4.9.60 #1 SMP x86_64\n"
	"CPU: amd64\n"
	"     family 6 model 70 stepping 1\n"
	"     4 CPUs\n"
	"\n"
	"GPU: UNKNOWN\n"
	"\n"
	"Crash reason:  SIGSEGV /SEGV_MAPERR\n"
	"Crash address: 0x45\n"
	"Process uptime: not available\n"
	"\n"
	"Thread 0 (crashed)\n"
	" 0  crash!inlined_store [store.h : 12 + 0x2]\n"
	" \n"
	"    Found by: inline record\n"
	" 1  crash!crash_here [main.c : 30 + 0x4]\n"
	"    rax = 0x0000000000001000   rdx = 0x0000000000001001\n"
	"    rcx = 0x0000000000001002   rbx = 0x0000000000001003\n"
	"    rsi = 0x0000000000001004   rdi = 0x0000000000001005\n"
	"    rbp = 0x0000000000001006   rsp = 0x0000000000001007\n"
	"     r8 = 0x0000000000001008    r9 = 0x0000000000001009\n"
	"    r10 = 0x000000000000100a   r11 = 0x000000000000100b\n"
	"    r12 = 0x000000000000100c   r13 = 0x000000000000100d\n"
	"    r14 = 0x000000000000100e   r15 = 0x000000000000100f\n"
	"    rip = 0x0000000000401d72\n"
	"    Found by: given as instruction pointer in context\n"
	" 2  crash!main [main.c : 40 + 0x8]\n"
	"    rsp = 0x00007fff5ae4ab00   rip = 0x0000000000401ec0\n"
	"    Found by: call frame info with scanning\n"
	"\n"
	"Loaded modules:\n"
	"0x00400000 - 0x00419fff  crash  ???  (main)\n";

START_TEST(test_amd64_text)
{
	build_amd64();
	ASSERT_OUTPUT(TEXT, &test_amd64, expected_amd64_text);
	teardown();
}
END_TEST

static const char expected_amd64_machine[] =
	"OS|Linux|0.0.0 Linux 4.9.60 #1 SMP x86_64\n"
	"CPU|amd64|family 6 model 70 stepping 1|4\n"
	"GPU|||\n"
	"Crash|SIGSEGV /SEGV_MAPERR|0x45|0\n"
	"Module|crash||crash|C0BCC3F19827FE653058404B2831D9E60|0x00400000|0x00419fff|1\n"
	"\n"
	"0|0|crash|inlined_store|/src/store.h|12|0x2\n"
	"0|1|crash|crash_here|/src/main.c|30|0x4\n"
	"0|2|crash|main|/src/main.c|40|0x8\n";

START_TEST(test_amd64_machine)
{
	build_amd64();
	ASSERT_OUTPUT(MACHINE, &test_amd64, expected_amd64_machine);
	teardown();
}
END_TEST

static const char expected_amd64_json_pretty[] =
	"{\n"
	"  \"crash_info\": {\n"
	"    \"address\": \"0x0000000000000045\",\n"
	"    \"adjusted_address\": null,\n"
	"    \"assertion\": null,\n"
	"    \"crash_inconsistencies\": [],\n"
	"    \"crashing_thread\": 0,\n"
	"    \"instruction\": null,\n"
	"    \"instruction_pointer_update\": null,\n"
	"    \"memory_accesses\": null,\n"
	"    \"possible_bit_flips\": null,\n"
	"    \"type\": \"SIGSEGV / SEGV_MAPERR\"\n"
	"  },\n"
	"  \"crashing_thread\": {\n"
	"    \"frame_count\": 2,\n"
	"    \"frames\": [\n"
	"      {\n"
	"        \"file\": \"/src/main.c\",\n"
	"        \"frame\": 0,\n"
	"        \"function\": \"crash_here\",\n"
	"        \"function_offset\": \"0x0000000000000022\",\n"
	"        \"inlines\": [\n"
	"          {\n"
	"            \"file\": \"/src/store.h\",\n"
	"            \"function\": \"inlined_store\",\n"
	"            \"line\": 12\n"
	"          }\n"
	"        ],\n"
	"        \"line\": 30,\n"
	"        \"missing_symbols\": false,\n"
	"        \"module\": \"crash\",\n"
	"        \"module_offset\": \"0x0000000000001d72\",\n"
	"        \"offset\": \"0x0000000000401d72\",\n"
	"        \"registers\": {\n"
	"          \"r10\": \"0x000000000000100a\",\n"
	"          \"r11\": \"0x000000000000100b\",\n"
	"          \"r12\": \"0x000000000000100c\",\n"
	"          \"r13\": \"0x000000000000100d\",\n"
	"          \"r14\": \"0x000000000000100e\",\n"
	"          \"r15\": \"0x000000000000100f\",\n"
	"          \"r8\": \"0x0000000000001008\",\n"
	"          \"r9\": \"0x0000000000001009\",\n"
	"          \"rax\": \"0x0000000000001000\",\n"
	"          \"rbp\": \"0x0000000000001006\",\n"
	"          \"rbx\": \"0x0000000000001003\",\n"
	"          \"rcx\": \"0x0000000000001002\",\n"
	"          \"rdi\": \"0x0000000000001005\",\n"
	"          \"rdx\": \"0x0000000000001001\",\n"
	"          \"rip\": \"0x0000000000401d72\",\n"
	"          \"rsi\": \"0x0000000000001004\",\n"
	"          \"rsp\": \"0x0000000000001007\"\n"
	"        },\n"
	"        \"trust\": \"context\",\n"
	"        \"unloaded_modules\": null\n"
	"      },\n"
	"      {\n"
	"        \"file\": \"/src/main.c\",\n"
	"        \"frame\": 1,\n"
	"        \"function\": \"main\",\n"
	"        \"function_offset\": \"0x000000000000003f\",\n"
	"        \"inlines\": null,\n"
	"        \"line\": 40,\n"
	"        \"missing_symbols\": false,\n"
	"        \"module\": \"crash\",\n"
	"        \"module_offset\": \"0x0000000000001ebf\",\n"
	"        \"offset\": \"0x0000000000401ebf\",\n"
	"        \"trust\": \"cfi_scan\",\n"
	"        \"unloaded_modules\": null\n"
	"      }\n"
	"    ],\n"
	"    \"last_error_value\": null,\n"
	"    \"thread_id\": 1304,\n"
	"    \"thread_name\": \"crash\",\n"
	"    \"threads_index\": 0,\n"
	"    \"truncated\": false,\n"
	"    \"walk_end\": \"not_walked\"\n"
	"  },\n"
	"  \"handles\": null,\n"
	"  \"linux_memory_map_count\": null,\n"
	"  \"lsb_release\": null,\n"
	"  \"mac_boot_args\": null,\n"
	"  \"mac_crash_info\": null,\n"
	"  \"main_module\": 0,\n"
	"  \"modules\": [\n"
	"    {\n"
	"      \"base_addr\": \"0x0000000000400000\",\n"
	"      \"cert_subject\": null,\n"
	"      \"code_id\": \"f1c3bcc0279865fe3058404b2831d9e64135386c\",\n"
	"      \"corrupt_symbols\": false,\n"
	"      \"debug_file\": \"crash\",\n"
	"      \"debug_id\": \"C0BCC3F19827FE653058404B2831D9E60\",\n"
	"      \"end_addr\": \"0x000000000041a000\",\n"
	"      \"filename\": \"crash\",\n"
	"      \"loaded_symbols\": true,\n"
	"      \"missing_symbols\": false,\n"
	"      \"symbol_url\": null,\n"
	"      \"version\": null\n"
	"    }\n"
	"  ],\n"
	"  \"modules_contains_cert_info\": false,\n"
	"  \"pid\": null,\n"
	"  \"problems\": [],\n"
	"  \"proc_limits\": null,\n"
	"  \"process\": {\n"
	"    \"arguments\": null,\n"
	"    \"command_line\": null,\n"
	"    \"executable\": null\n"
	"  },\n"
	"  \"process_uptime\": null,\n"
	"  \"signature\": null,\n"
	"  \"soft_errors\": null,\n"
	"  \"status\": \"OK\",\n"
	"  \"system_info\": {\n"
	"    \"cpu_arch\": \"amd64\",\n"
	"    \"cpu_count\": 4,\n"
	"    \"cpu_info\": \"family 6 model 70 stepping 1\",\n"
	"    \"cpu_microcode_version\": null,\n"
	"    \"os\": \"Linux\",\n"
	"    \"os_ver\": \"4.9.60 #1 SMP\"\n"
	"  },\n"
	"  \"thread_count\": 1,\n"
	"  \"threads\": [\n"
	"    {\n"
	"      \"frame_count\": 2,\n"
	"      \"frames\": [\n"
	"        {\n"
	"          \"file\": \"/src/main.c\",\n"
	"          \"frame\": 0,\n"
	"          \"function\": \"crash_here\",\n"
	"          \"function_offset\": \"0x0000000000000022\",\n"
	"          \"inlines\": [\n"
	"            {\n"
	"              \"file\": \"/src/store.h\",\n"
	"              \"function\": \"inlined_store\",\n"
	"              \"line\": 12\n"
	"            }\n"
	"          ],\n"
	"          \"line\": 30,\n"
	"          \"missing_symbols\": false,\n"
	"          \"module\": \"crash\",\n"
	"          \"module_offset\": \"0x0000000000001d72\",\n"
	"          \"offset\": \"0x0000000000401d72\",\n"
	"          \"trust\": \"context\",\n"
	"          \"unloaded_modules\": null\n"
	"        },\n"
	"        {\n"
	"          \"file\": \"/src/main.c\",\n"
	"          \"frame\": 1,\n"
	"          \"function\": \"main\",\n"
	"          \"function_offset\": \"0x000000000000003f\",\n"
	"          \"inlines\": null,\n"
	"          \"line\": 40,\n"
	"          \"missing_symbols\": false,\n"
	"          \"module\": \"crash\",\n"
	"          \"module_offset\": \"0x0000000000001ebf\",\n"
	"          \"offset\": \"0x0000000000401ebf\",\n"
	"          \"trust\": \"cfi_scan\",\n"
	"          \"unloaded_modules\": null\n"
	"        }\n"
	"      ],\n"
	"      \"last_error_value\": null,\n"
	"      \"thread_id\": 1304,\n"
	"      \"thread_name\": \"crash\",\n"
	"      \"truncated\": false,\n"
	"      \"walk_end\": \"not_walked\"\n"
	"    }\n"
	"  ],\n"
	"  \"tool\": {\n"
	"    \"name\": \"stackwalk\",\n"
	"    \"version\": \"" SW_VERSION "\"\n"
	"  },\n"
	"  \"unloaded_modules\": []\n"
	"}\n";

START_TEST(test_amd64_json_pretty)
{
	build_amd64();
	ASSERT_OUTPUT(JSON_PRETTY, &test_amd64, expected_amd64_json_pretty);
	teardown();
}
END_TEST

static const char expected_amd64_json_compact[] =
	"{\"crash_info\":{\"address\":\"0x0000000000000045\",\"adjusted_address\":null,\"assertion\":null,\"crash_inconsistencies\":[],\"crashing_thread\":0,\"instruction\":null,\"instruction_pointer_update\":null,\"memory_accesses\":null,\"possible_bit_flips\":null,\"type\":\"SIGSEGV / SEGV_MAPERR\"},\"crashing_thread\":{\"frame_count\":2,\"frames\":[{\"file\":\"/src/main.c\",\"frame\":0,\"function\":\"crash_here\",\"function_offset\":\"0x0000000000000022\",\"inlines\":[{\"file\":\"/src/store.h\",\"function\":\"inlined_store\",\"line\":12}],\"line\":30,\"missing_symbols\":false,\"module\":\"crash\",\"module_offset\":\"0x0000000000001d72\",\"offset\":\"0x0000000000401d72\",\"registers\":{\"r10\":\"0x000000000000100a\",\"r11\":\"0x000000000000100b\",\"r12\":\"0x000000000000100c\",\"r13\":\"0x000000000000100d\",\"r14\":\"0x000000000000100e\",\"r15\":\"0x000000000000100f\",\"r8\":\"0x0000000000001008\",\"r9\":\"0x0000000000001009\",\"rax\":\"0x0000000000001000\",\"rbp\":\"0x0000000000001006\",\"rbx\":\"0x0000000000001003\",\"rcx\":\"0x0000000000001002\",\"rdi\":\"0x0000000000001005\",\"rdx\":\"0x0000000000001001\",\"rip\":\"0x0000000000401d72\",\"rsi\":\"0x0000000000001004\",\"rsp\":\"0x0000000000001007\"},\"trust\":\"context\",\"unloaded_modules\":null},{\"file\":\"/src/main.c\",\"frame\":1,\"function\":\"main\",\"function_offset\":\"0x000000000000003f\",\"inlines\":null,\"line\":40,\"missing_symbols\":false,\"module\":\"crash\",\"module_offset\":\"0x0000000000001ebf\",\"offset\":\"0x0000000000401ebf\",\"trust\":\"cfi_scan\",\"unloaded_modules\":null}],\"last_error_value\":null,\"thread_id\":1304,\"thread_name\":\"crash\",\"threads_index\":0,\"truncated\":false,\"walk_end\":\"not_walked\"},\"handles\":null,\"linux_memory_map_count\":null,\"lsb_release\":null,\"mac_boot_args\":null,\"mac_crash_info\":null,\"main_module\":0,\"modules\":[{\"base_addr\":\"0x0000000000400000\",\"cert_subject\":null,\"code_id\":\"f1c3bcc0279865fe3058404b2831d9e64135386c\",\"corrupt_symbols\":false,\"debug_file\":\"crash\",\"debug_id\":\"C0BCC3F19827FE653058404B2831D9E60\",\"end_addr\":\"0x000000000041a000\",\"filename\":\"crash\",\"loaded_symbols\":true,\"missing_symbols\":false,\"symbol_url\":null,\"version\":null}],\"modules_contains_cert_info\":false,\"pid\":null,\"problems\":[],\"proc_limits\":null,\"process\":{\"arguments\":null,\"command_line\":null,\"executable\":null},\"process_uptime\":null,\"signature\":null,\"soft_errors\":null,\"status\":\"OK\",\"system_info\":{\"cpu_arch\":\"amd64\",\"cpu_count\":4,\"cpu_info\":\"family 6 model 70 stepping 1\",\"cpu_microcode_version\":null,\"os\":\"Linux\",\"os_ver\":\"4.9.60 #1 SMP\"},\"thread_count\":1,\"threads\":[{\"frame_count\":2,\"frames\":[{\"file\":\"/src/main.c\",\"frame\":0,\"function\":\"crash_here\",\"function_offset\":\"0x0000000000000022\",\"inlines\":[{\"file\":\"/src/store.h\",\"function\":\"inlined_store\",\"line\":12}],\"line\":30,\"missing_symbols\":false,\"module\":\"crash\",\"module_offset\":\"0x0000000000001d72\",\"offset\":\"0x0000000000401d72\",\"trust\":\"context\",\"unloaded_modules\":null},{\"file\":\"/src/main.c\",\"frame\":1,\"function\":\"main\",\"function_offset\":\"0x000000000000003f\",\"inlines\":null,\"line\":40,\"missing_symbols\":false,\"module\":\"crash\",\"module_offset\":\"0x0000000000001ebf\",\"offset\":\"0x0000000000401ebf\",\"trust\":\"cfi_scan\",\"unloaded_modules\":null}],\"last_error_value\":null,\"thread_id\":1304,\"thread_name\":\"crash\",\"truncated\":false,\"walk_end\":\"not_walked\"}],\"tool\":{\"name\":\"stackwalk\",\"version\":\"" SW_VERSION "\"},\"unloaded_modules\":[]}\n";

START_TEST(test_amd64_json_compact)
{
	build_amd64();
	ASSERT_OUTPUT(JSON_COMPACT, &test_amd64, expected_amd64_json_compact);
	teardown();
}
END_TEST

/* A frame outside every module but inside an unloaded one lists it. */
START_TEST(test_json_frame_in_unloaded_module)
{
	build_x86();
	struct sw_module unloaded[2] = {
		{ .base = 0xf000, .size = 0x2000, .code_file = "gone.dll", .code_id = "AB1000" },
		{ .base = 0xff00, .size = 0x1000, .code_file = "also.dll" },
	};
	fx.s.unloaded = unloaded;
	fx.s.nunloaded = 2;
	char *got = render(JSON_COMPACT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got,
		"\"offset\":\"0x0000ffff\",\"trust\":\"frame_pointer\",\"unloaded_modules\":"
		"[{\"module\":\"also.dll\",\"offsets\":[\"0x000000ff\"]},"
		"{\"module\":\"gone.dll\",\"offsets\":[\"0x00000fff\"]}]}"));
	ck_assert_ptr_nonnull(strstr(got,
		"\"unloaded_modules\":[{\"base_addr\":\"0x0000f000\",\"cert_subject\":null,"
		"\"code_id\":\"ab1000\",\"end_addr\":\"0x00011000\",\"filename\":\"gone.dll\"},"));
	free(got);
	fx.s.unloaded = NULL;
	teardown();
}
END_TEST

/* Control characters are escaped, invalid UTF-8 becomes U+FFFD, valid
 * multi-byte sequences pass through. */
START_TEST(test_json_string_escaping)
{
	build_x86();
	fx.threads[1].name = "a\x01\tb\xff\xc3\xa9\xe2\x82";
	char *got = render(JSON_COMPACT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got,
		"\"thread_name\":\"a\\u0001\\tb\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\","));
	free(got);
	teardown();
}
END_TEST

/* Snapshot problems go into the "problems" extension; no crash gives
 * nulls in crash_info and "No crash" in the Breakpad formats. */
START_TEST(test_no_crash_and_problems)
{
	build_x86();
	fx.s.crash.present = false;
	fx.w.crashing = -1;
	sw_snapshot_problem(&fx.s, "stream %d truncated", 7);
	char *got = render(JSON_COMPACT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got,
		"{\"crash_info\":{\"address\":null,\"adjusted_address\":null,\"assertion\":null,"
		"\"crash_inconsistencies\":null,\"crashing_thread\":null,\"instruction\":null,"
		"\"instruction_pointer_update\":null,\"memory_accesses\":null,"
		"\"possible_bit_flips\":null,\"type\":null},\"handles\":null,"));
	ck_assert_ptr_nonnull(strstr(got, "\"problems\":[\"stream 7 truncated\"],"));
	free(got);
	got = render(TEXT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "GPU: UNKNOWN\n\nNo crash\nProcess uptime: 10 seconds\n\nThread 0\n 0  "));
	free(got);
	got = render(MACHINE, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "GPU|||\nCrash|No crash||\nModule|"));
	free(got);
	teardown();
}
END_TEST

/* The signature follows the crash lines in the text (the one line that
 * is not Breakpad's) and is a top-level JSON key; the JSON status is the
 * caller's. The machine format is unchanged. */
START_TEST(test_signature_and_status_options)
{
	build_x86();
	struct sw_output_options o = { .signature = "CrashFunction | main", .status = "DAMAGED" };
	char *got = render_with(SW_OUTPUT_TEXT, &o);
	ck_assert_ptr_nonnull(strstr(got, "description: \nSignature: CrashFunction | main\n"
	                                  "Process uptime: 10 seconds\n"));
	free(got);
	got = render_with(SW_OUTPUT_JSON, &o);
	ck_assert_ptr_nonnull(strstr(got, "\"process_uptime\":10,\"signature\":\"CrashFunction | main\","
	                                  "\"soft_errors\":null,\"status\":\"DAMAGED\","));
	free(got);
	got = render_with(SW_OUTPUT_MACHINE, &o);
	ck_assert_ptr_null(strstr(got, "CrashFunction | main"));
	free(got);
	teardown();
}
END_TEST

/* The "process" extension: a LinuxCmdLine stream's argv listed exactly
 * (an empty argument kept, a space inside one kept) and joined with spaces
 * as ps shows it; a joined text (a core's pr_psargs) only as
 * command_line; the executable as the reader found it. */
START_TEST(test_json_process_command_line)
{
	build_x86();
	static const char argv_bytes[] = "./app\0--flag\0\0a b\0";
	fx.s.cmdline = argv_bytes;
	fx.s.cmdline_len = sizeof argv_bytes - 1;
	fx.s.cmdline_is_argv = true;
	fx.s.executable = "/opt/app/bin/app";
	char *got = render(JSON_COMPACT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "\"proc_limits\":null,\"process\":{\"arguments\":"
	                                  "[\"./app\",\"--flag\",\"\",\"a b\"],\"command_line\":"
	                                  "\"./app --flag  a b\",\"executable\":\"/opt/app/bin/app\"},"
	                                  "\"process_uptime\":10,"));
	free(got);
	static const char psargs[] = "/bin/app --flag a b";
	fx.s.cmdline = psargs;
	fx.s.cmdline_len = sizeof psargs - 1;
	fx.s.cmdline_is_argv = false;
	fx.s.executable = NULL;
	got = render(JSON_COMPACT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "\"process\":{\"arguments\":null,\"command_line\":"
	                                  "\"/bin/app --flag a b\",\"executable\":null},"));
	free(got);
	teardown();
}
END_TEST

/* --registers: crashing keeps the crashing thread's register lines, none
 * drops them all (and the JSON's registers object); the frames stay. */
START_TEST(test_registers_option)
{
	build_x86();
	struct sw_output_options o = { .registers = SW_REGISTERS_NONE };
	char *got = render_with(SW_OUTPUT_TEXT, &o);
	ck_assert_ptr_null(strstr(got, "eip = "));
	ck_assert_ptr_nonnull(strstr(got, "CrashFunction [test_app.cc : 58 + 0x3]\n"
	                                  "    Found by: given as instruction pointer in context\n"));
	free(got);
	got = render_with(SW_OUTPUT_JSON, &o);
	ck_assert_ptr_null(strstr(got, "\"registers\""));
	free(got);
	o.registers = SW_REGISTERS_CRASHING;
	got = render_with(SW_OUTPUT_JSON, &o);
	char *all = render(JSON_COMPACT, &test_x86);
	ck_assert_str_eq(got, all);
	free(all);
	free(got);
	teardown();
}
END_TEST

/* --brief: the text and machine formats print the chosen thread only,
 * "(crashed)" only when it is the crashing one. */
START_TEST(test_one_thread_prints_that_thread_only)
{
	build_x86();
	struct sw_output_options o = { .one_thread = true, .thread = 0 };
	char *got = render_with(SW_OUTPUT_TEXT, &o);
	ck_assert_ptr_nonnull(strstr(got, "\nThread 0 (crashed)\n"));
	ck_assert_ptr_null(strstr(got, "\nThread 1"));
	ck_assert_ptr_nonnull(strstr(got, "\nLoaded modules:\n"));
	free(got);
	got = render_with(SW_OUTPUT_MACHINE, &o);
	ck_assert_ptr_nonnull(strstr(got, "\n0|0|test_app.exe|"));
	ck_assert_ptr_null(strstr(got, "\n1|"));
	free(got);
	o.thread = 1;
	got = render_with(SW_OUTPUT_TEXT, &o);
	ck_assert_ptr_nonnull(strstr(got, "\nThread 1\n <no frames>\n\nLoaded modules:"));
	ck_assert_ptr_null(strstr(got, "Thread 0"));
	free(got);
	got = render_with(SW_OUTPUT_MACHINE, &o);
	ck_assert_ptr_null(strstr(got, "\n0|0|"));
	free(got);
	teardown();
}
END_TEST

/* Breakpad does not number the thread that wrote the dump: the threads
 * after it are numbered one lower, in the text, in the machine format's
 * threads and in its crash line. */
START_TEST(test_dump_thread_is_not_numbered)
{
	build_x86();
	fx.threads[2] = (struct sw_thread){ .id = 4600 };
	fx.s.nthreads = 3;
	fx.stacks[2] = (struct sw_stack){ .thread = 2 };
	fx.stacks[1].dump_thread = true;
	fx.w.nstacks = 3;
	fx.w.crashing = 2;
	char *got = render(TEXT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "\nThread 1 (crashed)\n <no frames>\n\nThread 0\n 0  "));
	ck_assert_ptr_null(strstr(got, "Thread 2"));
	free(got);
	got = render(MACHINE, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "|0x45|1\n"));
	ck_assert_ptr_nonnull(strstr(got, "\n0|0|test_app.exe|"));
	ck_assert_ptr_null(strstr(got, "\n2|"));
	free(got);
	teardown();
}
END_TEST

/* Without an arch table no registers are printed. */
START_TEST(test_text_without_arch)
{
	build_x86();
	char *got = render(TEXT, NULL);
	ck_assert_ptr_nonnull(strstr(got,
		"Thread 0 (crashed)\n 0  test_app.exe!`anonymous namespace'::CrashFunction "
		"[test_app.cc : 58 + 0x3]\n \n    Found by: given as instruction pointer in context\n"));
	free(got);
	teardown();
}
END_TEST

/* An input that records no processor count (an ELF core) prints no
 * "0 CPUs" line in the text; the machine and JSON formats keep their
 * numeric field, 0. */
START_TEST(test_unknown_cpu_count_is_not_printed)
{
	build_x86();
	fx.s.sys.cpu_count = 0;
	char *got = render(TEXT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got,
		"CPU: x86\n     GenuineIntel family 6 model 13 stepping 8\n\nGPU: UNKNOWN\n"));
	ck_assert_ptr_null(strstr(got, "CPUs"));
	free(got);
	got = render(MACHINE, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "CPU|x86|GenuineIntel family 6 model 13 stepping 8|0\n"));
	free(got);
	got = render(JSON_COMPACT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "\"cpu_count\":0,"));
	free(got);
	teardown();
}
END_TEST

/* Breakpad removes '|' and newlines from machine fields. */
START_TEST(test_machine_strips_separators)
{
	build_x86();
	fx.stored[1].function = "operator|\nfoo";
	char *got = render(MACHINE, &test_x86);
	ck_assert_ptr_nonnull(strstr(got, "0|1|test_app.exe|operatorfoo|||0x50\n"));
	free(got);
	teardown();
}
END_TEST

/* A module sharing debug file and id with one whose symbols are missing
 * gets the warning too (Breakpad's ContainsModule); corrupt symbols. */
START_TEST(test_text_corrupt_symbols_warning)
{
	build_x86();
	fx.status[1] = SW_SYMS_CORRUPT;
	char *got = render(TEXT, &test_x86);
	ck_assert_ptr_nonnull(strstr(got,
		"0x7c800000 - 0x7c8f3fff  kernel32.dll  5.1.2600.2945  (WARNING: Corrupt symbols, "
		"kernel32.pdb, BCE8785C57B44245A669896B6A19B9542)\n"));
	free(got);
	teardown();
}
END_TEST

/* sw_out_fmt_hex is printf's %x and %0<width>x, at every digit count. */
START_TEST(test_fmt_hex_matches_printf)
{
	uint64_t v = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 2000; i++) {
		/* Values of every length: the shift gives 0 to 64 bits. */
		uint64_t x = (v ^ (v >> 29)) >> (i % 65 == 64 ? 63 : i % 65);
		if (i % 65 == 64)
			x = 0;
		static const unsigned widths[] = { 0, 1, 8, 16 };
		for (unsigned w = 0; w < 4; w++) {
			unsigned width = widths[w];
			char want[32], got[32];
			int n = snprintf(want, sizeof want, "%0*" PRIx64, (int)width, x);
			size_t len = sw_out_fmt_hex(got, x, width);
			got[len] = '\0';
			ck_assert_int_eq((int)len, n);
			ck_assert_str_eq(got, want);
		}
		v = v * 6364136223846793005u + 1442695040888963407u;
	}
}
END_TEST

/* The JSON writer copies keys as they are (output_json.c key()): the
 * register names it uses as keys must need no escaping. */
START_TEST(test_json_register_keys_need_no_escaping)
{
	const struct sw_arch *const arches[] = { &sw_arch_x86, &sw_arch_amd64, &sw_arch_arm,
		                                 &sw_arch_arm64, &sw_arch_mips, &sw_arch_mips64,
		                                 &sw_arch_riscv32, &sw_arch_riscv64, &sw_arch_ppc,
		                                 &sw_arch_ppc64 };
	for (size_t a = 0; a < sizeof arches / sizeof *arches; a++) {
		const struct sw_arch *arch = arches[a];
		const char *const *spelled = arch->json_names ? arch->json_names : arch->reg_names;
		for (unsigned r = 0; spelled && r < arch->nregs; r++) {
			const char *name = spelled[r];
			for (const char *c = name; c && *c; c++)
				ck_assert_msg(*c > 0x20 && *c < 0x7f && *c != '"' && *c != '\\',
				              "%s register %u: %s", arch->name, r, name);
		}
	}
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("output");
	tcase_add_test(tc, test_x86_text);
	tcase_add_test(tc, test_x86_machine);
	tcase_add_test(tc, test_x86_json_pretty);
	tcase_add_test(tc, test_x86_json_compact);
	tcase_add_test(tc, test_amd64_text);
	tcase_add_test(tc, test_amd64_machine);
	tcase_add_test(tc, test_amd64_json_pretty);
	tcase_add_test(tc, test_amd64_json_compact);
	tcase_add_test(tc, test_json_frame_in_unloaded_module);
	tcase_add_test(tc, test_json_string_escaping);
	tcase_add_test(tc, test_json_register_keys_need_no_escaping);
	tcase_add_test(tc, test_fmt_hex_matches_printf);
	tcase_add_test(tc, test_no_crash_and_problems);
	tcase_add_test(tc, test_text_without_arch);
	tcase_add_test(tc, test_signature_and_status_options);
	tcase_add_test(tc, test_one_thread_prints_that_thread_only);
	tcase_add_test(tc, test_dump_thread_is_not_numbered);
	tcase_add_test(tc, test_unknown_cpu_count_is_not_printed);
	tcase_add_test(tc, test_machine_strips_separators);
	tcase_add_test(tc, test_text_corrupt_symbols_warning);
	tcase_add_test(tc, test_json_process_command_line);
	tcase_add_test(tc, test_registers_option);
	suite_add_tcase(s, tc);
	return s;
}
