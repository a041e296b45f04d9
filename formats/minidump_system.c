/* SystemInfo (MINIDUMP_SYSTEM_INFO), MiscInfo (MINIDUMP_MISC_INFO_N) and
 * Breakpad's info stream (MDRawBreakpadInfo). The OS and CPU strings are
 * the ones Breakpad's minidump_stackwalk prints (MinidumpProcessor::
 * GetOSInfo / GetCPUInfo), so text output can print them as they are. */
#include <stdio.h>
#include <string.h>

#include "minidump_internal.h"

enum {
	MD_SYSTEM_INFO_SIZE = 56,
	MD_MISC_INFO_SIZE = 24,           /* MINIDUMP_MISC_INFO (version 1) */
	MD_MISC1_PROCESS_ID = 0x1,
	MD_MISC1_PROCESS_TIMES = 0x2,
	MD_BREAKPAD_INFO_SIZE = 12,
	MD_BREAKPAD_VALID_DUMP_THREAD = 0x1,
	MD_BREAKPAD_VALID_REQUESTING_THREAD = 0x2,
};

/* MINIDUMP_SYSTEM_INFO.PlatformId: VER_PLATFORM_* and Breakpad's values. */
static const struct {
	uint32_t id;
	enum sw_os os;
	const char *name;
} md_platforms[] = {
	{ 1, SW_OS_WINDOWS, "Windows" },        /* VER_PLATFORM_WIN32_WINDOWS */
	{ 2, SW_OS_WINDOWS, "Windows NT" },     /* VER_PLATFORM_WIN32_NT */
	{ 0x8101, SW_OS_MACOS, "Mac OS X" },
	{ 0x8102, SW_OS_IOS, "iOS" },
	{ 0x8201, SW_OS_LINUX, "Linux" },
	{ 0x8202, SW_OS_SOLARIS, "Solaris" },
	{ 0x8203, SW_OS_ANDROID, "Android" },
	{ 0x8204, SW_OS_PS3, "PS3" },
	{ 0x8205, SW_OS_NACL, "NaCl" },
	{ 0x8206, SW_OS_FUCHSIA, "Fuchsia" },
};

/* ProcessorArchitecture: PROCESSOR_ARCHITECTURE_* and Breakpad's 0x800x. */
static const struct {
	uint16_t id;
	enum sw_cpu cpu;
	const char *name;
	uint8_t word_size;
} md_cpus[] = {
	{ 0, SW_CPU_X86, "x86", 4 },
	{ 10, SW_CPU_X86, "x86", 4 },      /* IA32 on Win64 (WoW64) */
	{ 1, SW_CPU_MIPS, "mips", 4 },
	{ 3, SW_CPU_PPC, "ppc", 4 },
	{ 5, SW_CPU_ARM, "arm", 4 },
	{ 9, SW_CPU_AMD64, "amd64", 8 },
	{ 12, SW_CPU_ARM64, "arm64", 8 },
	{ 0x8001, SW_CPU_SPARC, "sparc", 8 },
	{ 0x8002, SW_CPU_PPC64, "ppc64", 8 },
	{ 0x8003, SW_CPU_ARM64, "arm64", 8 }, /* Breakpad's old ARM64 id */
	{ 0x8004, SW_CPU_MIPS64, "mips64", 8 },
	{ 0x8005, SW_CPU_RISCV32, "riscv32", 4 },
	{ 0x8006, SW_CPU_RISCV64, "riscv64", 8 },
};

/* Breakpad's GetARMCpuInfo: "ARMv7 ARM Cortex-A9 features: swp,half,...". */
static const char *arm_cpu_info(struct md_reader *r, uint16_t level, uint32_t cpuid,
                                uint32_t hwcaps)
{
	static const struct {
		uint32_t id;
		const char *name;
	} vendors[] = {
		{ 0x41, "ARM" }, { 0x51, "Qualcomm" }, { 0x56, "Marvell" },
		{ 0x69, "Intel/Marvell" },
	}, parts[] = {
		{ 0x4100c050, "Cortex-A5" }, { 0x4100c080, "Cortex-A8" },
		{ 0x4100c090, "Cortex-A9" }, { 0x4100c0f0, "Cortex-A15" },
		{ 0x4100c140, "Cortex-R4" }, { 0x4100c150, "Cortex-R5" },
		{ 0x4100b360, "ARM1136" }, { 0x4100b560, "ARM1156" },
		{ 0x4100b760, "ARM1176" }, { 0x4100b020, "ARM11-MPCore" },
		{ 0x41009260, "ARM926" }, { 0x41009460, "ARM946" },
		{ 0x41009660, "ARM966" }, { 0x510006f0, "Krait" },
		{ 0x510000f0, "Scorpion" },
	};
	/* Linux AT_HWCAP bits for 32-bit ARM, in bit order. */
	static const char *const features[] = {
		"swp", "half", "thumb", "26bit", "fastmult", "fpa", "vfpv2", "edsp",
		"java", "iwmmxt", "crunch", "thumbee", "neon", "vfpv3", "vfpv3d16",
		"tls", "vfpv4", "idiva", "idivt",
	};
	char buf[512];
	size_t n = (size_t)snprintf(buf, sizeof buf, "ARMv%d", level);
	if (cpuid != 0) {
		const char *vendor = NULL, *part = NULL;
		for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
			if (vendors[i].id == (cpuid >> 24 & 0xff))
				vendor = vendors[i].name;
		for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
			if (parts[i].id == (cpuid & 0xff00fff0))
				part = parts[i].name;
		if (vendor)
			n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", vendor);
		else
			n += (size_t)snprintf(buf + n, sizeof buf - n, " vendor(0x%x)", cpuid >> 24 & 0xff);
		if (part)
			n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", part);
		else
			n += (size_t)snprintf(buf + n, sizeof buf - n, " part(0x%x)", cpuid & 0xff00fff0);
	}
	if (hwcaps != 0) {
		const char *sep = " features: ";
		for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
			if (hwcaps & (1u << i) && n < sizeof buf) {
				n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", sep, features[i]);
				sep = ",";
			}
	}
	return sw_arena_strdup(&r->snap->arena, buf);
}

void md_read_system_info(struct md_reader *r, struct sw_span s)
{
	struct sw_system_info *sys = &r->snap->sys;
	if (!md_stream_holds(r, s, MD_SYSTEM_INFO_SIZE, "system info"))
		return;
	sys->raw_arch = sw_u16(s, 0);
	sys->processor_level = sw_u16(s, 2);
	sys->processor_revision = sw_u16(s, 4);
	sys->cpu_count = sw_u8(s, 6);
	sys->os_major = sw_u32(s, 8);
	sys->os_minor = sw_u32(s, 12);
	sys->os_build = sw_u32(s, 16);
	sys->platform_id = sw_u32(s, 20);
	uint32_t csd_rva = sw_u32(s, 24);

	struct sw_arena *a = &r->snap->arena;
	sys->os = SW_OS_UNKNOWN;
	sys->os_name = NULL;
	for (size_t i = 0; i < sizeof md_platforms / sizeof md_platforms[0]; i++)
		if (md_platforms[i].id == sys->platform_id) {
			sys->os = md_platforms[i].os;
			sys->os_name = md_platforms[i].name;
		}
	if (!sys->os_name)
		sys->os_name = sw_arena_printf(a, "0x%08x", sys->platform_id);

	/* Breakpad appends " " and the CSD string whenever the string can be
	 * read, even when it is empty ("10.0.17763 "). */
	sys->csd_version = csd_rva ? md_string(r, csd_rva, "system info CSD version") : NULL;
	if (sys->csd_version)
		sys->os_version = sw_arena_printf(a, "%u.%u.%u %s", sys->os_major, sys->os_minor,
		                                  sys->os_build, sys->csd_version);
	else
		sys->os_version = sw_arena_printf(a, "%u.%u.%u", sys->os_major, sys->os_minor,
		                                  sys->os_build);

	sys->cpu = SW_CPU_UNKNOWN;
	sys->cpu_name = NULL;
	for (size_t i = 0; i < sizeof md_cpus / sizeof md_cpus[0]; i++)
		if (md_cpus[i].id == sys->raw_arch) {
			sys->cpu = md_cpus[i].cpu;
			sys->cpu_name = md_cpus[i].name;
			sys->word_size = md_cpus[i].word_size;
		}
	/* Memory is in the byte order of the process, which wrote the header
	 * in it too (Breakpad's Minidump::swap()): the file's order, whatever
	 * the CPU (a ppc64le dump is "MDMP", a PowerPC Mac's "PMDM"). */
	sys->big_endian = r->file.big_endian;
	if (!sys->cpu_name)
		sys->cpu_name = sw_arena_printf(a, "0x%04x", sys->raw_arch);

	/* CPU_INFORMATION: x86 cpuid vendor (EBX, EDX, ECX of leaf 0), or ARM
	 * MIDR + Linux hwcaps. Breakpad names the vendor for 32-bit x86 only. */
	if (sys->raw_arch == 0 || sys->raw_arch == 10) {
		char vendor[13];
		size_t n = 0;
		for (unsigned i = 0; i < 12; i++) {
			uint8_t c = sw_u8(s, 32 + i);
			if (c == 0)
				break;
			vendor[n++] = (char)c;
		}
		vendor[n] = '\0';
		sys->cpu_vendor = sw_arena_strdup(a, vendor);
	}
	if (sys->cpu == SW_CPU_X86 || sys->cpu == SW_CPU_AMD64) {
		sys->cpu_info = sw_arena_printf(a, "%s%sfamily %u model %u stepping %u",
		                                sys->cpu_vendor ? sys->cpu_vendor : "",
		                                sys->cpu_vendor ? " " : "", sys->processor_level,
		                                sys->processor_revision >> 8,
		                                sys->processor_revision & 0xff);
	} else if (sys->raw_arch == 5) {
		sys->cpu_info = arm_cpu_info(r, sys->processor_level, sw_u32(s, 32), sw_u32(s, 36));
	} else {
		sys->cpu_info = NULL;
	}
}

void md_read_misc_info(struct md_reader *r, struct sw_span s)
{
	if (!md_stream_holds(r, s, MD_MISC_INFO_SIZE, "misc info"))
		return;
	uint32_t flags = sw_u32(s, 4);
	if (flags & MD_MISC1_PROCESS_ID) {
		r->snap->has_pid = true;
		r->snap->pid = sw_u32(s, 8);
	}
	if (flags & MD_MISC1_PROCESS_TIMES) {
		r->snap->has_process_create_time = true;
		r->snap->process_create_time = sw_u32(s, 12);
	}
}

void md_read_breakpad_info(struct md_reader *r, struct sw_span s)
{
	if (!md_stream_holds(r, s, MD_BREAKPAD_INFO_SIZE, "Breakpad info"))
		return;
	uint32_t validity = sw_u32(s, 0);
	if (validity & MD_BREAKPAD_VALID_DUMP_THREAD) {
		r->snap->has_dump_thread_id = true;
		r->snap->dump_thread_id = sw_u32(s, 4);
	}
	if (validity & MD_BREAKPAD_VALID_REQUESTING_THREAD) {
		r->snap->has_requesting_thread_id = true;
		r->snap->requesting_thread_id = sw_u32(s, 8);
	}
}
