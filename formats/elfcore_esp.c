/* ELF core reader, ESP-IDF's cores: the ELF core an ESP32's panic handler
 * writes (components/espcoredump, esp_core_dump_elf.c; decoded by
 * espressif/esp-coredump, whose corefile/loader.py and elf.py are the spec
 * here). It is a FreeRTOS firmware's task list, not a process:
 *
 *   NT_PRSTATUS   one per task, the crashed one first: pr_pid is the
 *                 task's TCB address, pr_reg its registers (RISC-V: pc,
 *                 x1-x31, as Linux's riscv32 user_regs_struct)
 *   PT_LOAD       each task's TCB, and its stack from its saved registers
 *                 up (the crashed task's begins with the exception frame)
 *   notes         "ESP_CORE_DUMP_INFO" type 0x204a: u32 version (the
 *                   image header's ver), then the firmware ELF's SHA-256
 *                   as NUL-padded hex text (CONFIG_APP_RETRIEVE_LEN_ELF_SHA
 *                   digits of it, 9 by default)
 *                 "ESP_EXTRA_INFO" type 0x2a5: u32 words, [0] the crashed
 *                   task's TCB; [1] on RISC-V, [37] on Xtensa (after the
 *                   exception registers' id/value pairs), the in-ISR flag
 *                   ("EXTRA_INFO" in the cores esp-coredump converts from
 *                   the binary format)
 *                 "ESP_PANIC_DETAILS" type 0x2a7: the panic reason, text
 *                 "ESP_CHIP_REV" type 0x204a: u32 chip revision (added by
 *                   esp-coredump's --save-core)
 *
 * So: threads are tasks (id = TCB address, named from the TCB), the crash
 * is the panic, and the one module is the firmware ELF the user names among
 * the symbol paths, checked against the SHA-256 the core records. */
#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfcore_internal.h"
#include "lib/mapped_file.h"
#include "lib/sha256.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#ifndef EM_XTENSA
#define EM_XTENSA 94
#endif

enum {
	ESP_NOTE_INFO = 0x204a,           /* ESP_CORE_DUMP_INFO, ESP_CHIP_REV */
	ESP_NOTE_EXTRA_INFO = 0x2a5,
	ESP_NOTE_PANIC_DETAILS = 0x2a7,
	ESP_INFO_SHA_LEN = 64,            /* hex digits room in ESP_CORE_DUMP_INFO */
	ESP_EXTRA_ISR_RISCV = 1,          /* word index of the in-ISR flag */
	ESP_EXTRA_ISR_XTENSA = 37,
	ESP_MAX_PANIC = 1024,             /* bytes of the panic reason kept */

	/* FreeRTOS's TCB (FreeRTOS-Kernel tasks.c, tskTCB, as ESP-IDF builds
	 * it: no MPU settings, no list integrity check bytes): pxTopOfStack,
	 * xStateListItem and xEventListItem (ListItem_t: xItemValue, pxNext,
	 * pxPrevious, pvOwner, pxContainer: 5 words), uxPriority, pxStack,
	 * then pcTaskName[configMAX_TASK_NAME_LEN = 16]. Both list items'
	 * pvOwner point back at the TCB: what proves the layout. */
	TCB_STATE_OWNER = 4 + 12,
	TCB_EVENT_OWNER = 4 + 20 + 12,
	TCB_NAME = 4 + 20 + 20 + 4 + 4,
	TCB_NAME_LEN = 16,

	/* The exception frame ESP-IDF's RISC-V panic entry saves
	 * (components/riscv/include/riscv/rvruntime-frames.h, RvExcFrame):
	 * mepc, x1-x31 (pr_reg's order), then mstatus, mtvec, mcause, mtval,
	 * mhartid. */
	EXC_NREGS = 32,
	EXC_MCAUSE = 34,
	EXC_MTVAL = 35,
	EXC_WORDS = 37,

	/* Firmware files looked at in one symbol directory. */
	ESP_MAX_DIR_FILES = 256,

	/* esp_app_desc_t (see read_app_desc). */
	APP_DESC_MAGIC = 0xabcd5432,
	APP_VERSION = 16,
	APP_IDF_VERSION = 112,
	APP_TEXT = 32,
};

/* Chip ids (ESP-IDF esp_chip_info.h, esp_chip_model_t; loader.py's
 * EspCoreDumpVersion). */
static const struct {
	uint16_t id;
	const char *name;
} esp_chips[] = {
	{ 0, "ESP32" }, { 2, "ESP32-S2" }, { 9, "ESP32-S3" }, { 5, "ESP32-C3" },
	{ 12, "ESP32-C2" }, { 13, "ESP32-C6" }, { 16, "ESP32-H2" }, { 18, "ESP32-P4" },
	{ 20, "ESP32-C61" }, { 23, "ESP32-C5" }, { 25, "ESP32-H21" }, { 28, "ESP32-H4" },
	{ 32, "ESP32-S31" },
};

const char *sw_esp_chip_name(uint16_t chip)
{
	for (size_t i = 0; i < sizeof esp_chips / sizeof esp_chips[0]; i++)
		if (esp_chips[i].id == chip)
			return esp_chips[i].name;
	return NULL;
}

static bool owner_is(struct sw_span name, const char *s)
{
	size_t len = strlen(s);
	return name.size == len && memcmp(name.data, s, len) == 0;
}

/* ---- The notes ------------------------------------------------------- */

static void read_info(struct ec_reader *r, struct sw_span d)
{
	if (!sw_span_has(d, 0, 4)) {
		problem(r, true, "ESP_CORE_DUMP_INFO of %llu bytes: too short: ignored",
		        (unsigned long long)d.size);
		return;
	}
	struct ec_esp *e = &r->esp;
	e->has_info = true;
	e->info_version = sw_u32(d, 0);
	/* The hex digits up to the first NUL; anything else is no SHA. */
	struct sw_span hex = sw_span_clip(d, 4, ESP_INFO_SHA_LEN);
	size_t n = 0;
	while (n < hex.size && hex.data[n] != 0) {
		uint8_t c = hex.data[n];
		bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		if (!digit) {
			problem(r, true, "ESP_CORE_DUMP_INFO: the firmware's SHA-256 is not hex "
			                 "text: the firmware cannot be checked");
			n = 0;
			break;
		}
		e->sha_prefix[n] = (char)(c | 0x20); /* lower case */
		n++;
	}
	e->sha_prefix[n] = '\0';
}

static void read_extra_info(struct ec_reader *r, struct sw_span d)
{
	struct ec_esp *e = &r->esp;
	if (!sw_span_has(d, 0, 4)) {
		problem(r, true, "ESP_EXTRA_INFO of %llu bytes: too short: the crashed task "
		                 "is unknown",
		        (unsigned long long)d.size);
		return;
	}
	e->has_crashed_tcb = true;
	e->crashed_tcb = sw_u32(d, 0);
	uint64_t isr = r->machine == EM_XTENSA ? ESP_EXTRA_ISR_XTENSA : ESP_EXTRA_ISR_RISCV;
	e->in_isr = sw_u32(d, 4 * isr) != 0;
}

/* The reason as text: control characters (a trailing newline, the
 * console's) become blanks, trailing blanks go. */
static void read_panic(struct ec_reader *r, struct sw_span d)
{
	struct sw_span text = sw_span_clip(d, 0, ESP_MAX_PANIC);
	const uint8_t *nul = text.size ? memchr(text.data, '\0', (size_t)text.size) : NULL;
	if (nul)
		text.size = (uint64_t)(nul - text.data);
	while (text.size > 0 && (text.data[text.size - 1] <= ' ' || text.data[text.size - 1] == 0x7f))
		text.size--;
	if (text.size == 0)
		return;
	char *s = sw_arena_strndup(&r->snap->arena, (const char *)text.data, (size_t)text.size);
	for (char *p = s; p && *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = ' ';
	r->esp.panic = s;
}

bool ec_esp_read_note(struct ec_reader *r, struct sw_span name, uint32_t type,
                      struct sw_span desc)
{
	struct ec_esp *e = &r->esp;
	if (owner_is(name, "ESP_CORE_DUMP_INFO") && type == ESP_NOTE_INFO) {
		read_info(r, desc);
	} else if (owner_is(name, "ESP_CHIP_REV") && type == ESP_NOTE_INFO) {
		e->has_chip_rev = sw_span_has(desc, 0, 4);
		e->chip_rev = sw_u32(desc, 0);
	} else if ((owner_is(name, "ESP_EXTRA_INFO") || owner_is(name, "EXTRA_INFO")) &&
	           type == ESP_NOTE_EXTRA_INFO) {
		read_extra_info(r, desc);
	} else if (owner_is(name, "ESP_PANIC_DETAILS") && type == ESP_NOTE_PANIC_DETAILS) {
		read_panic(r, desc);
	} else {
		return false;
	}
	e->present = true;
	return true;
}

/* ---- The system and the tasks ---------------------------------------- */

static void set_system(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	struct ec_esp *e = &r->esp;
	const struct sw_elfcore_outer *o = r->outer;
	uint32_t ver = o && o->has_esp_version ? o->esp_version : e->info_version;
	bool has_ver = (o && o->has_esp_version) || e->has_info;
	if (o && o->has_chip_rev && !e->has_chip_rev) {
		e->has_chip_rev = true;
		e->chip_rev = o->chip_rev;
	}
	if (o && o->has_esp_version && e->has_info && e->info_version != o->esp_version)
		problem(r, true, "ESP_CORE_DUMP_INFO's version 0x%08x is not the image "
		                 "header's 0x%08x",
		        e->info_version, o->esp_version);
	s->sys.os = SW_OS_NONE;
	s->sys.os_name = "ESP-IDF";
	if (has_ver)
		s->sys.os_version = sw_arena_printf(&s->arena, "core dump %u.%u", (ver >> 8) & 0xff,
		                                    ver & 0xff);
	const char *chip = has_ver ? sw_esp_chip_name((uint16_t)(ver >> 16)) : NULL;
	char chip_buf[24];
	if (has_ver && !chip) {
		snprintf(chip_buf, sizeof chip_buf, "ESP chip %u", ver >> 16);
		chip = chip_buf;
	}
	if (chip && e->has_chip_rev)
		s->sys.cpu_info = sw_arena_printf(&s->arena, "%s, chip revision %u", chip, e->chip_rev);
	else if (chip)
		s->sys.cpu_info = sw_arena_strndup(&s->arena, chip, strlen(chip));
}

/* A task's name, from its TCB when the layout is proven (see TCB_NAME):
 * printable ASCII, NUL-terminated within the field. */
static void name_tasks(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		struct sw_thread *t = &s->threads[i];
		uint32_t state_owner, event_owner;
		uint8_t name[TCB_NAME_LEN];
		if (!sw_mem_read_u32(s, (uint64_t)t->id + TCB_STATE_OWNER, &state_owner) ||
		    !sw_mem_read_u32(s, (uint64_t)t->id + TCB_EVENT_OWNER, &event_owner) ||
		    state_owner != t->id || event_owner != t->id ||
		    !sw_mem_read(s, (uint64_t)t->id + TCB_NAME, name, sizeof name))
			continue;
		size_t len = 0;
		while (len < sizeof name && name[len] >= 0x20 && name[len] < 0x7f)
			len++;
		if (len == 0 || len == sizeof name || name[len] != 0)
			continue;
		t->name = sw_arena_strndup(&s->arena, (const char *)name, len);
	}
}

/* The trap's mcause and mtval, from the crashed task's exception frame:
 * the stack segment of the crashed task starts with it, and its first 32
 * words are the task's registers (what proves it is the frame). */
static bool exception_cause(struct ec_reader *r, const struct sw_thread *t, uint32_t *mcause,
                            uint32_t *mtval)
{
	const struct sw_snapshot *s = r->snap;
	if (r->cpu != SW_CPU_RISCV32 || !sw_reg_valid(&t->ctx, 2))
		return false;
	const struct sw_mem_region *m = sw_mem_find(s, sw_reg_get(&t->ctx, 2));
	if (!m || m->size < EXC_WORDS * 4)
		return false;
	struct sw_span f = { m->data, m->size, 0, false };
	for (unsigned i = 0; i < EXC_NREGS; i++) {
		/* pr_reg's slot 0 is the pc, which the arch numbers 32. */
		unsigned reg = i == 0 ? 32 : i;
		if (!sw_reg_valid(&t->ctx, reg) || sw_u32(f, 4 * i) != sw_reg_get(&t->ctx, reg))
			return false;
	}
	*mcause = sw_u32(f, 4 * EXC_MCAUSE);
	*mtval = sw_u32(f, 4 * EXC_MTVAL);
	return true;
}

/* The crashed task: ESP_EXTRA_INFO's TCB, else the first task (the panic
 * handler writes it first; esp-coredump takes the first for binary dumps). */
static void set_crash(struct ec_reader *r)
{
	struct sw_snapshot *s = r->snap;
	struct ec_esp *e = &r->esp;
	if (s->nthreads == 0 || (!e->has_crashed_tcb && !e->panic))
		return;
	uint32_t t = 0;
	if (e->has_crashed_tcb) {
		while (t < s->nthreads && s->threads[t].id != e->crashed_tcb)
			t++;
		if (t == s->nthreads) {
			problem(r, true, "ESP_EXTRA_INFO names task 0x%08x, which has no note: the "
			                 "first task is taken for the crashed one",
			        e->crashed_tcb);
			t = 0;
		}
	}
	struct sw_crash *c = &s->crash;
	c->present = true;
	c->thread_id = s->threads[t].id;
	c->ctx = s->threads[t].ctx;
	uint32_t mcause, mtval;
	if (exception_cause(r, &s->threads[t], &mcause, &mtval)) {
		c->code = mcause;
		/* Access faults and misaligned accesses leave the address in
		 * mtval (RISC-V privileged ISA, "Machine Trap Value Register");
		 * other traps: the pc. */
		bool addressed = !(mcause & 0x80000000u) &&
		                 (mcause <= 1 || (mcause >= 4 && mcause <= 7) || mcause == 12 ||
		                  mcause == 13 || mcause == 15);
		c->address = addressed ? mtval : sw_reg_get(&c->ctx, 32);
	} else if (sw_reg_valid(&c->ctx, 32)) {
		c->address = sw_reg_get(&c->ctx, 32);
	}
	if (e->panic && e->in_isr)
		c->reason = sw_arena_printf(&s->arena, "%s (in an interrupt handler)", e->panic);
	else
		c->reason = e->panic;
	s->has_requesting_thread_id = true;
	s->requesting_thread_id = c->thread_id;
}

/* ---- The firmware ---------------------------------------------------- */

/* One PT_LOAD of the firmware ELF. */
struct fw_load {
	uint32_t vaddr, memsz, offset, flags;
};

/* A candidate firmware file: ELF32 little-endian ET_EXEC of the core's
 * machine, its loadable segments and the digest of the whole file. */
struct firmware {
	struct fw_load loads[64];
	uint32_t nloads;
	uint32_t file_vaddr;      /* the first PT_LOAD's p_vaddr - p_offset */
	uint8_t sha[SW_SHA256_SIZE];
	/* From its application descriptor, "" when it has none. */
	char app_version[APP_TEXT + 1], idf_version[APP_TEXT + 1];
};

/* A fixed-size text field: printable ASCII up to a NUL inside it, else "". */
static void app_text(struct sw_span desc, uint64_t at, char out[APP_TEXT + 1])
{
	struct sw_span f = sw_span_clip(desc, at, APP_TEXT);
	size_t n = 0;
	while (n < f.size && f.data[n] >= 0x20 && f.data[n] < 0x7f)
		n++;
	if (n == f.size || f.data[n] != 0)
		n = 0;
	memcpy(out, f.data, n);
	out[n] = '\0';
}

/* The application descriptor every ESP-IDF application links into its
 * section .flash.appdesc (components/esp_app_format, esp_app_desc_t):
 * magic_word 0xABCD5432, secure_version, reserv1[2], version[32],
 * project_name[32], time[16], date[16], idf_ver[32], ... The section is
 * found by its name (section headers; gABI "Sections"). */
static void read_app_desc(struct sw_span f, struct firmware *fw)
{
	uint32_t shoff = sw_u32(f, offsetof(Elf32_Ehdr, e_shoff));
	uint16_t shentsize = sw_u16(f, offsetof(Elf32_Ehdr, e_shentsize));
	uint16_t shnum = sw_u16(f, offsetof(Elf32_Ehdr, e_shnum));
	uint16_t shstrndx = sw_u16(f, offsetof(Elf32_Ehdr, e_shstrndx));
	struct sw_span strtab_hdr;
	if (shentsize < sizeof(Elf32_Shdr) || shstrndx >= shnum ||
	    !sw_span_sub(f, shoff + (uint64_t)shstrndx * shentsize, shentsize, &strtab_hdr))
		return;
	struct sw_span names = sw_span_clip(f, sw_u32(strtab_hdr, offsetof(Elf32_Shdr, sh_offset)),
	                                    sw_u32(strtab_hdr, offsetof(Elf32_Shdr, sh_size)));
	static const char want[] = ".flash.appdesc";
	for (uint32_t i = 0; i < shnum; i++) {
		struct sw_span sh, desc;
		if (!sw_span_sub(f, shoff + (uint64_t)i * shentsize, shentsize, &sh))
			return;
		uint32_t name = sw_u32(sh, offsetof(Elf32_Shdr, sh_name));
		if (!sw_span_has(names, name, sizeof want) ||
		    memcmp(names.data + name, want, sizeof want) != 0)
			continue;
		if (!sw_span_sub(f, sw_u32(sh, offsetof(Elf32_Shdr, sh_offset)),
		                 sw_u32(sh, offsetof(Elf32_Shdr, sh_size)), &desc) ||
		    sw_u32(desc, 0) != APP_DESC_MAGIC)
			return;
		app_text(desc, APP_VERSION, fw->app_version);
		app_text(desc, APP_IDF_VERSION, fw->idf_version);
		return;
	}
}

static bool parse_firmware(const struct ec_reader *r, struct sw_span f, struct firmware *fw)
{
	memset(fw, 0, sizeof *fw);
	if (!sw_span_has(f, 0, sizeof(Elf32_Ehdr)) || memcmp(f.data, ELFMAG, SELFMAG) != 0 ||
	    f.data[EI_CLASS] != ELFCLASS32 || f.data[EI_DATA] != ELFDATA2LSB ||
	    sw_u16(f, offsetof(Elf32_Ehdr, e_type)) != ET_EXEC ||
	    sw_u16(f, offsetof(Elf32_Ehdr, e_machine)) != r->machine)
		return false;
	uint32_t phoff = sw_u32(f, offsetof(Elf32_Ehdr, e_phoff));
	uint16_t phentsize = sw_u16(f, offsetof(Elf32_Ehdr, e_phentsize));
	uint16_t phnum = sw_u16(f, offsetof(Elf32_Ehdr, e_phnum));
	if (phentsize < sizeof(Elf32_Phdr))
		return false;
	bool first = true;
	for (uint32_t i = 0; i < phnum; i++) {
		struct sw_span ph;
		if (!sw_span_sub(f, phoff + (uint64_t)i * phentsize, phentsize, &ph))
			return false;
		if (sw_u32(ph, offsetof(Elf32_Phdr, p_type)) != PT_LOAD)
			continue;
		struct fw_load l = {
			.vaddr = sw_u32(ph, offsetof(Elf32_Phdr, p_vaddr)),
			.memsz = sw_u32(ph, offsetof(Elf32_Phdr, p_memsz)),
			.offset = sw_u32(ph, offsetof(Elf32_Phdr, p_offset)),
			.flags = sw_u32(ph, offsetof(Elf32_Phdr, p_flags)),
		};
		/* The symbol provider's rule (symbols/elf_image.h, file_vaddr):
		 * module offsets are ELF addresses less this. */
		if (first)
			fw->file_vaddr = l.vaddr - l.offset;
		first = false;
		if (fw->nloads < sizeof fw->loads / sizeof fw->loads[0])
			fw->loads[fw->nloads++] = l;
	}
	return fw->nloads > 0;
}

static void hex_of(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

enum fw_verdict { FW_NOT_FIRMWARE, FW_OTHER_BUILD, FW_TAKEN };

/* Maps path and judges it: not an ELF of the core's kind, another build
 * (its SHA-256 does not start with the core's record, said once as a
 * warning, as the symbol store refuses a file of another build-id), or
 * the firmware. */
static enum fw_verdict try_firmware(struct ec_reader *r, const char *path, struct firmware *fw)
{
	struct sw_mapped_file m = { 0 };
	struct sw_err err = { 0 };
	if (sw_map_file(path, &m, &err) != SW_OK)
		return FW_NOT_FIRMWARE;
	struct sw_span f = { m.data ? m.data : (const uint8_t *)"", m.data ? m.size : 0, 0, false };
	enum fw_verdict v = FW_NOT_FIRMWARE;
	if (parse_firmware(r, f, fw)) {
		sw_sha256(f.data, (size_t)f.size, fw->sha);
		char hex[2 * SW_SHA256_SIZE + 1];
		hex_of(fw->sha, sizeof fw->sha, hex);
		size_t n = strlen(r->esp.sha_prefix);
		read_app_desc(f, fw);
		v = FW_TAKEN;
		if (n && strncmp(hex, r->esp.sha_prefix, n) != 0) {
			problem(r, true, "%s: firmware ELF not used: its SHA-256 starts %.*s, the "
			                 "core dump's firmware's %s: another build",
			        path, (int)n, hex, r->esp.sha_prefix);
			v = FW_OTHER_BUILD;
		}
	}
	sw_unmap_file(&m);
	return v;
}

/* The modules of the firmware at path: one per executable PT_LOAD, each
 * at its link address (a firmware is not relocated). Its segments lie far
 * apart with ROM and RAM between them (ESP32-C3: IRAM at 0x40380000, flash
 * code at 0x42000000, the mask ROM at 0x40000000), so one module over
 * their hull would claim ROM and stack addresses for the firmware. Each
 * module's offsets are the provider's (file_vaddr-based): load_bias makes
 * offset + file_vaddr the link address, so all of them share one offset
 * space and one symbol provider. */
static void add_firmware_modules(struct ec_reader *r, const char *path, const struct firmware *fw)
{
	struct sw_snapshot *s = r->snap;
	uint32_t n = 0;
	for (uint32_t i = 0; i < fw->nloads; i++)
		n += (fw->loads[i].flags & PF_X) && fw->loads[i].memsz;
	if (n == 0) {
		problem(r, true, "%s: the firmware ELF has no executable segment: no module", path);
		return;
	}
	s->modules = sw_arena_array(&s->arena, n, sizeof *s->modules);
	if (!s->modules) {
		problem(r, false, "out of memory for %u modules", n);
		return;
	}
	for (uint32_t i = 0; i < fw->nloads; i++) {
		const struct fw_load *l = &fw->loads[i];
		if (!(l->flags & PF_X) || l->memsz == 0 || l->vaddr > UINT32_MAX - (l->memsz - 1))
			continue;
		struct sw_module *m = &s->modules[s->nmodules++];
		memset(m, 0, sizeof *m);
		m->base = l->vaddr;
		m->size = l->memsz;
		m->load_bias = (uint64_t)fw->file_vaddr - l->vaddr;
		m->code_file = path;
		m->debug_file = sw_basename(path);
		m->image_path = path;
		if (fw->app_version[0])
			m->version = sw_arena_strndup(&s->arena, fw->app_version,
			                              strlen(fw->app_version));
	}
	s->main_module = 0;
	/* The OS version is the ESP-IDF release the firmware was built with. */
	if (fw->idf_version[0])
		s->sys.os_version = s->sys.os_version
		                            ? sw_arena_printf(&s->arena, "%s, %s", fw->idf_version,
		                                              s->sys.os_version)
		                            : sw_arena_strndup(&s->arena, fw->idf_version,
		                                               strlen(fw->idf_version));
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* The firmware among the symbol paths: a file given as one, else a file
 * NAME.elf directly in a directory given (an ESP-IDF build directory holds
 * PROJECT.elf; only taken there when the core's SHA-256 vouches for it).
 * Returns the path (arena) or NULL. */
static const char *find_firmware(struct ec_reader *r, struct firmware *fw, bool *refused)
{
	const struct sw_open_options *o = r->opts;
	*refused = false;
	for (size_t i = 0; o && i < o->nsearch_paths; i++) {
		const char *p = o->search_paths[i];
		if (!p || !sw_is_regular_file(p))
			continue;
		enum fw_verdict v = try_firmware(r, p, fw);
		*refused |= v == FW_OTHER_BUILD;
		if (v == FW_TAKEN)
			return p;
	}
	if (!r->esp.sha_prefix[0])
		return NULL;
	for (size_t i = 0; o && i < o->nsearch_paths; i++) {
		const char *p = o->search_paths[i];
		if (!p || !sw_is_directory(p))
			continue;
		const char *found = NULL;
		uint32_t tried = 0;
		struct sw_arena *a = &r->snap->arena;
		/* Names in sorted order, for the same answer on every system. */
		struct dirent **names = NULL;
		int n = scandir(p, &names, NULL, alphasort);
		for (int k = 0; k < n; k++) {
			const char *name = names[k]->d_name;
			const char *full = !found && tried < ESP_MAX_DIR_FILES && ends_with(name, ".elf")
			                           ? sw_arena_printf(a, "%s/%s", p, name)
			                           : NULL;
			if (full && sw_is_regular_file(full)) {
				tried++;
				enum fw_verdict v = try_firmware(r, full, fw);
				*refused |= v == FW_OTHER_BUILD;
				if (v == FW_TAKEN)
					found = full;
			}
			free(names[k]);
		}
		free(names);
		if (found)
			return found;
	}
	return NULL;
}

static void find_modules(struct ec_reader *r)
{
	struct firmware fw;
	bool refused;
	const char *path = find_firmware(r, &fw, &refused);
	if (path) {
		if (!r->esp.sha_prefix[0])
			problem(r, true, "%s: the core dump records no firmware SHA-256: the "
			                 "firmware ELF is used unchecked",
			        path);
		add_firmware_modules(r, path, &fw);
	} else if (!refused) {
		problem(r, true, "no firmware ELF among the symbol paths (the application's "
		                 "ELF file, build/PROJECT.elf%s%s): frames are not symbolized",
		        r->esp.sha_prefix[0] ? ", SHA-256 " : "", r->esp.sha_prefix);
	}
}

void ec_esp_finish(struct ec_reader *r)
{
	r->esp.present = true;
	set_system(r);
	name_tasks(r);
	set_crash(r);
	find_modules(r);
}
