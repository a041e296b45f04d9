/* ESP-IDF core dumps of the binary format (dump versions 0.1-0.3, ESP-IDF
 * before v4.1 and CONFIG_ESP_COREDUMP_DATA_FORMAT_BIN since), converted
 * into the ELF core esp-coredump makes of them (loader.py,
 * _extract_bin_corefile), so that one reader serves both formats.
 *
 * The data (components/espcoredump, esp_core_dump_binary.c) is task_num
 * records, each field padded to 4 bytes (loader.py's AlignedStruct(4)):
 *   u32 tcb_addr, u32 stack_top, u32 stack_end, TCB[tcbsz],
 *   stack[|stack_top - stack_end|]   (from the saved registers up)
 * then, from version 0.2, segs_num memory segments
 *   u32 mem_start, u32 mem_sz, data[mem_sz].
 * A RISC-V task's registers are the first 32 words of its stack bytes
 * (riscv.py get_registers_from_stack: pc, x1-x31, pr_reg's order). The
 * ELF core holds one NT_PRSTATUS note per task (pr_pid the TCB address,
 * pr_reg at 72: riscv.py's PrStruct), ESP_CORE_DUMP_INFO (the header's
 * ver) and EXTRA_INFO (the first task's TCB: the crashed one), and a
 * PT_LOAD for each TCB, stack and segment. */
#include <elf.h>
#include <string.h>

#include "espcore_internal.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#ifndef EM_XTENSA
#define EM_XTENSA 94
#endif

enum {
	BIN_TASK_HEADER = 12,
	BIN_SEG_HEADER = 8,
	PRSTATUS_SIZE = 204,      /* riscv.py: PRSTATUS_SIZE */
	PRSTATUS_PID = 24,
	PRSTATUS_REG = 72,
	REG_WORDS = 32,
	NOTE_HEADER = 12,
};

struct bin_piece {
	uint32_t addr;
	struct sw_span bytes;
};

struct bin_task {
	uint32_t tcb;
	struct bin_piece tcb_bytes, stack;
};

static uint64_t align4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/* A little-endian writer into a buffer sized beforehand. */
struct out {
	uint8_t *p;
	uint64_t at, size;
};

static void put_bytes(struct out *o, const void *b, uint64_t n)
{
	if (n && o->at + n <= o->size)
		memcpy(o->p + o->at, b, (size_t)n);
	o->at += n;
}

static void put_u32(struct out *o, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put_bytes(o, b, 4);
}

static void put_u16(struct out *o, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	put_bytes(o, b, 2);
}

static void put_zeros(struct out *o, uint64_t n)
{
	if (o->at + n <= o->size)
		memset(o->p + o->at, 0, (size_t)n);
	o->at += n;
}

static void put_note(struct out *o, const char *name, uint32_t type, const void *desc,
                     uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	put_u32(o, namesz);
	put_u32(o, descsz);
	put_u32(o, type);
	put_bytes(o, name, namesz);
	put_zeros(o, align4(namesz) - namesz);
	put_bytes(o, desc, descsz);
	put_zeros(o, align4(descsz) - descsz);
}

static uint64_t note_size(const char *name, uint32_t descsz)
{
	return NOTE_HEADER + align4(strlen(name) + 1) + align4(descsz);
}

static void put_phdr(struct out *o, uint32_t type, uint64_t offset, uint32_t vaddr,
                     uint64_t size)
{
	put_u32(o, type);
	put_u32(o, (uint32_t)offset);
	put_u32(o, vaddr);
	put_u32(o, vaddr);
	put_u32(o, (uint32_t)size);
	put_u32(o, (uint32_t)size);
	put_u32(o, type == PT_LOAD ? PF_R | PF_W : 0);
	put_u32(o, 0);
}

/* Reads the task records; *n of them into tasks (room for h->task_num).
 * *end: where the segments start. */
static void read_tasks(struct esp_reader *r, struct sw_span data, const struct sw_esp_header *h,
                       struct bin_task *tasks, uint32_t *n, uint64_t *end)
{
	uint64_t at = 0;
	*n = 0;
	for (uint32_t i = 0; i < h->task_num; i++) {
		struct sw_span hdr;
		if (!sw_span_sub(data, at, BIN_TASK_HEADER, &hdr)) {
			problem(r, false, "task %u of %u: its record runs past the data: the rest "
			                  "are lost", i + 1, h->task_num);
			break;
		}
		uint32_t tcb = sw_u32(hdr, 0), top = sw_u32(hdr, 4), bottom = sw_u32(hdr, 8);
		uint64_t stack_len = top < bottom ? (uint64_t)bottom - top : (uint64_t)top - bottom;
		struct bin_task *t = &tasks[*n];
		t->tcb = tcb;
		t->tcb_bytes.addr = tcb;
		t->stack.addr = top < bottom ? top : bottom;
		uint64_t tcb_at = at + BIN_TASK_HEADER;
		uint64_t stack_at = tcb_at + align4(h->tcbsz);
		if (!sw_span_sub(data, tcb_at, h->tcbsz, &t->tcb_bytes.bytes) ||
		    !sw_span_sub(data, stack_at, stack_len, &t->stack.bytes)) {
			problem(r, false, "task %u of %u (TCB 0x%08x): its TCB (%u bytes) or stack "
			                  "(%llu bytes) runs past the data: the rest are lost",
			        i + 1, h->task_num, tcb, h->tcbsz, (unsigned long long)stack_len);
			break;
		}
		at = stack_at + align4(stack_len);
		/* loader.py refuses stacks that grow up; the registers are the
		 * first words of a stack that grows down. */
		if (bottom < top || stack_len < 4 * REG_WORDS) {
			problem(r, true, "task %u (TCB 0x%08x): stack 0x%08x-0x%08x %s: no "
			                 "registers",
			        i + 1, tcb, top, bottom,
			        bottom < top ? "grows up" : "is shorter than the saved registers");
		}
		(*n)++;
	}
	*end = at;
}

bool esp_bin_to_elf(struct esp_reader *r, struct sw_span data, const struct sw_esp_header *h,
                    struct sw_span *elf)
{
	struct sw_arena *a = &r->snap->arena;
	/* Every record takes at least its header's bytes: a count beyond
	 * them is not believed (nothing is allocated for it). */
	uint32_t ntask_max = h->task_num;
	if ((uint64_t)ntask_max * BIN_TASK_HEADER > data.size) {
		problem(r, false, "the header counts %u tasks, but %llu bytes of data hold at "
		                  "most %llu",
		        h->task_num, (unsigned long long)data.size,
		        (unsigned long long)(data.size / BIN_TASK_HEADER));
		ntask_max = (uint32_t)(data.size / BIN_TASK_HEADER);
	}
	struct sw_esp_header hh = *h;
	hh.task_num = ntask_max;
	struct bin_task *tasks = ntask_max ? sw_arena_array(a, ntask_max, sizeof *tasks) : NULL;
	if (ntask_max && !tasks)
		return false;
	uint32_t ntasks;
	uint64_t at;
	read_tasks(r, data, &hh, tasks, &ntasks, &at);
	if (ntasks == 0)
		return false;

	/* The last task's stack is padded to 4 bytes: its end (at) may lie
	 * up to 3 bytes past data that ends unpadded. */
	uint64_t left = at < data.size ? data.size - at : 0;
	uint32_t nsegs_max = h->has_segs_num ? h->segs_num : 0;
	if ((uint64_t)nsegs_max * BIN_SEG_HEADER > left) {
		problem(r, false, "the header counts %u memory segments, but %llu bytes are left "
		                  "for them",
		        h->segs_num, (unsigned long long)left);
		nsegs_max = (uint32_t)(left / BIN_SEG_HEADER);
	}
	struct bin_piece *segs = nsegs_max ? sw_arena_array(a, nsegs_max, sizeof *segs) : NULL;
	if (nsegs_max && !segs)
		return false;
	uint32_t nsegs = 0;
	for (uint32_t i = 0; i < nsegs_max; i++) {
		struct sw_span hdr;
		if (!sw_span_sub(data, at, BIN_SEG_HEADER, &hdr) ||
		    !sw_span_sub(data, at + BIN_SEG_HEADER, sw_u32(hdr, 4), &segs[nsegs].bytes)) {
			problem(r, false, "memory segment %u of %u runs past the data: the rest are "
			                  "lost", i + 1, h->segs_num);
			break;
		}
		segs[nsegs++].addr = sw_u32(hdr, 0);
		at += BIN_SEG_HEADER + sw_u32(hdr, 4);
	}

	/* The layout: ELF header, program headers, the two note segments,
	 * then the bytes of every load. */
	static const char *const info_name = "ESP_CORE_DUMP_INFO", *const extra_name = "EXTRA_INFO";
	uint64_t nloads = 2 * (uint64_t)ntasks + nsegs;
	uint64_t phoff = sizeof(Elf32_Ehdr);
	uint64_t notes1 = phoff + (2 + nloads) * sizeof(Elf32_Phdr);
	uint64_t notes1_size = ntasks * note_size("CORE", PRSTATUS_SIZE);
	uint64_t notes2 = notes1 + notes1_size;
	uint64_t notes2_size = note_size(info_name, 4) + note_size(extra_name, 4);
	uint64_t total = notes2 + notes2_size;
	for (uint32_t i = 0; i < ntasks; i++)
		total += align4(tasks[i].tcb_bytes.bytes.size) + align4(tasks[i].stack.bytes.size);
	for (uint32_t i = 0; i < nsegs; i++)
		total += align4(segs[i].bytes.size);
	if (nloads + 2 > 0xffff || total > UINT32_MAX)
		return false;
	uint8_t *buf = sw_arena_alloc(a, (size_t)total);
	if (!buf)
		return false;
	struct out o = { buf, 0, total };

	bool xtensa = h->chip == 0 || h->chip == 2 || h->chip == 9;
	put_bytes(&o, ELFMAG, SELFMAG);
	put_bytes(&o, (const uint8_t[]){ ELFCLASS32, ELFDATA2LSB, EV_CURRENT }, 3);
	put_zeros(&o, EI_NIDENT - 7);
	put_u16(&o, ET_CORE);
	put_u16(&o, xtensa ? EM_XTENSA : EM_RISCV);
	put_u32(&o, EV_CURRENT);
	put_u32(&o, 0);                       /* e_entry */
	put_u32(&o, (uint32_t)phoff);
	put_u32(&o, 0);                       /* e_shoff */
	put_u32(&o, 0);                       /* e_flags */
	put_u16(&o, sizeof(Elf32_Ehdr));
	put_u16(&o, sizeof(Elf32_Phdr));
	put_u16(&o, (uint16_t)(2 + nloads));
	put_u16(&o, sizeof(Elf32_Shdr));
	put_u16(&o, 0);
	put_u16(&o, 0);

	put_phdr(&o, PT_NOTE, notes1, 0, notes1_size);
	uint64_t load_at = total;
	for (uint32_t i = 0; i < ntasks; i++)
		load_at -= align4(tasks[i].tcb_bytes.bytes.size) + align4(tasks[i].stack.bytes.size);
	for (uint32_t i = 0; i < nsegs; i++)
		load_at -= align4(segs[i].bytes.size);
	for (uint32_t i = 0; i < ntasks; i++) {
		const struct bin_piece *p[2] = { &tasks[i].tcb_bytes, &tasks[i].stack };
		for (int k = 0; k < 2; k++) {
			put_phdr(&o, PT_LOAD, load_at, p[k]->addr, p[k]->bytes.size);
			load_at += align4(p[k]->bytes.size);
		}
	}
	for (uint32_t i = 0; i < nsegs; i++) {
		put_phdr(&o, PT_LOAD, load_at, segs[i].addr, segs[i].bytes.size);
		load_at += align4(segs[i].bytes.size);
	}
	put_phdr(&o, PT_NOTE, notes2, 0, notes2_size);

	for (uint32_t i = 0; i < ntasks; i++) {
		uint8_t pr[PRSTATUS_SIZE] = { 0 };
		struct out d = { pr, PRSTATUS_PID, sizeof pr };
		put_u32(&d, tasks[i].tcb);
		d.at = PRSTATUS_REG;
		if (tasks[i].stack.bytes.size >= 4 * REG_WORDS)
			put_bytes(&d, tasks[i].stack.bytes.data, 4 * REG_WORDS);
		put_note(&o, "CORE", NT_PRSTATUS, pr, sizeof pr);
	}
	uint8_t word[4];
	struct out w = { word, 0, sizeof word };
	put_u32(&w, h->ver);
	put_note(&o, info_name, 0x204a, word, 4);
	w.at = 0;
	put_u32(&w, tasks[0].tcb);
	put_note(&o, extra_name, 0x2a5, word, 4);

	for (uint32_t i = 0; i < ntasks; i++) {
		const struct bin_piece *p[2] = { &tasks[i].tcb_bytes, &tasks[i].stack };
		for (int k = 0; k < 2; k++) {
			put_bytes(&o, p[k]->bytes.data, p[k]->bytes.size);
			put_zeros(&o, align4(p[k]->bytes.size) - p[k]->bytes.size);
		}
	}
	for (uint32_t i = 0; i < nsegs; i++) {
		put_bytes(&o, segs[i].bytes.data, segs[i].bytes.size);
		put_zeros(&o, align4(segs[i].bytes.size) - segs[i].bytes.size);
	}
	if (o.at != total)
		return false;
	*elf = (struct sw_span){ buf, total, 0, false };
	return true;
}
