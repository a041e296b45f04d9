/* The crashing instruction as text (lib/disasm.h): Capstone's reading of
 * each CPU's bytes in the snapshot's byte order, ARM's two instruction
 * sets, x86 as rust-minidump prints it, and no answer where there is
 * none; x86 memory accesses from the registers. The expected texts are what objdump and gdb read from the same
 * bytes, in Capstone's syntax. */
#include <check.h>
#include <string.h>

#include "lib/disasm.h"

static const char *dis(enum sw_cpu cpu, bool big_endian, bool thumb, const char *bytes,
                       size_t len)
{
	static char out[160];
	if (!sw_disassemble(cpu, big_endian, thumb, 0x1000, (const uint8_t *)bytes, len, out,
	                    sizeof out))
		return NULL;
	return out;
}

#define DIS(cpu, be, thumb, bytes) dis(cpu, be, thumb, bytes, sizeof bytes - 1)

/* rust-minidump's JSON (crash_info.instruction of its linux-mini.dmp
 * test: "mov dword [0x45], 0x5"): no "ptr", numbers in hex, register
 * indices left alone. */
START_TEST(test_x86_prints_as_rust_minidump)
{
	ck_assert_str_eq(DIS(SW_CPU_AMD64, false, false, "\xc7\x04\x25\x45\x00\x00\x00\x05\x00\x00\x00"),
	                 "mov dword [0x45], 0x5");
	ck_assert_str_eq(DIS(SW_CPU_AMD64, false, false, "\x48\x8b\x45\xf8"), "mov rax, qword [rbp - 0x8]");
	ck_assert_str_eq(DIS(SW_CPU_AMD64, false, false, "\xff\xd0"), "call rax");
	ck_assert_str_eq(DIS(SW_CPU_AMD64, false, false, "\xd9\xc1"), "fld st(1)");
	ck_assert_str_eq(DIS(SW_CPU_AMD64, false, false, "\x44\x89\x40\x10"), "mov dword [rax + 0x10], r8d");
	ck_assert_str_eq(DIS(SW_CPU_X86, false, false, "\x89\x45\xfc"), "mov dword [ebp - 0x4], eax");
}
END_TEST

START_TEST(test_risc_cpus_in_their_byte_order)
{
	ck_assert_str_eq(DIS(SW_CPU_ARM64, false, false, "\x01\x00\x00\xb9"), "str w1, [x0]");
	ck_assert_str_eq(DIS(SW_CPU_ARM, false, false, "\x00\x10\x80\xe5"), "str r1, [r0]");
	ck_assert_str_eq(DIS(SW_CPU_ARM, false, true, "\x01\x60"), "str r1, [r0]");
	ck_assert_str_eq(DIS(SW_CPU_MIPS, true, false, "\xac\x82\x00\x00"), "sw $v0, ($a0)");
	ck_assert_str_eq(DIS(SW_CPU_MIPS, false, false, "\x00\x00\x82\xac"), "sw $v0, ($a0)");
	ck_assert_str_eq(DIS(SW_CPU_PPC64, false, false, "\x00\x8f\x69\x98"), "stb r3, -0x7100(r9)");
	ck_assert_str_eq(DIS(SW_CPU_PPC, true, false, "\x98\x69\x8f\x00"), "stb r3, -0x7100(r9)");
}
END_TEST

/* Nothing is said where nothing is known: a CPU with no decoder here
 * (SPARC), no bytes, an instruction cut short, a buffer too small for the
 * text. */
START_TEST(test_no_answer_without_a_decoding)
{
	char small[4];
	ck_assert_ptr_null(DIS(SW_CPU_SPARC, false, false, "\x23\x20\xb5\x00"));
	ck_assert_str_eq(DIS(SW_CPU_RISCV64, false, false, "\x23\x20\xb5\x00"), "sw a1, 0(a0)");
	ck_assert_ptr_null(dis(SW_CPU_AMD64, false, false, "", 0));
	ck_assert_ptr_null(DIS(SW_CPU_AMD64, false, false, "\x48\x8b"));
	ck_assert(!sw_disassemble(SW_CPU_ARM64, false, false, 0, (const uint8_t *)"\x01\x00\x00\xb9", 4,
	                          small, sizeof small));
}
END_TEST

/* Register values by name for the access tests, as an amd64 frame names
 * them (rax = 0x1'0000'1000: an addr32 operand reads its low half, rbx =
 * 3, rsp = 0x7000, rsi = 0x2000, rdi = 0x3000) or an x86 one (eax =
 * 0x100, ebx = 0x10, esp = 0x8000); rcx is not known. */
/* (arm64: x0 = 0x10, x1 = 0x5000, x2 = 0xffffffff (w2 = -1), sp =
 * 0x7000, x30 = 0x401000; MIPS a0 = 0x1000; PowerPC r9 = 0x20000, r1 =
 * 0x7000; ARM r0 = 0x2000, r1 = 0x3000, r2 = 4, r11 = 0x9000, sp =
 * 0x7000.) */
enum reg_set { X86, AMD64, ARM64, RISC, ARM };

static bool regs(void *ctx, const char *name, uint64_t *v)
{
	static const struct { enum reg_set set; const char *name; uint64_t v; } table[] = {
		{ AMD64, "rax", 0x100001000 }, { AMD64, "rbx", 3 }, { AMD64, "rsp", 0x7000 },
		{ AMD64, "rsi", 0x2000 }, { AMD64, "rdi", 0x3000 },
		{ X86, "eax", 0x100 }, { X86, "esp", 0x8000 }, { X86, "ebx", 0x10 },
		{ ARM64, "x0", 0x10 }, { ARM64, "x1", 0x5000 }, { ARM64, "x2", 0xffffffff },
		{ ARM64, "sp", 0x7000 }, { ARM64, "x30", 0x401000 },
		{ RISC, "a0", 0x1000 }, { RISC, "r9", 0x20000 }, { RISC, "r1", 0x7000 },
		{ ARM, "r0", 0x2000 }, { ARM, "r1", 0x3000 }, { ARM, "r2", 4 }, { ARM, "r11", 0x9000 },
		{ ARM, "sp", 0x7000 },
	};
	enum reg_set set = *(const enum reg_set *)ctx;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].set == set && strcmp(table[i].name, name) == 0) {
			*v = table[i].v;
			return true;
		}
	return false;
}

static int acc(enum sw_cpu cpu, const char *bytes, size_t len, struct sw_mem_access *out)
{
	static enum reg_set sets[] = { X86, AMD64, ARM64 };
	return sw_memory_accesses(cpu, 0x1000, (const uint8_t *)bytes, len, regs,
	                          cpu == SW_CPU_AMD64 ? &sets[1] : cpu == SW_CPU_ARM64 ? &sets[2]
	                                                                           : &sets[0],
	                          out, 4);
}

#define ACC(cpu, bytes, out) acc(cpu, bytes, sizeof bytes - 1, out)

static void is_access(const struct sw_mem_access *a, uint64_t address, unsigned size, bool write)
{
	ck_assert_uint_eq(a->address, address);
	ck_assert_uint_eq(a->size, size);
	ck_assert_int_eq(a->write, write);
}

/* Each operand's effective address from the registers (Intel SDM vol. 2,
 * 2.1.5: base + index * scale + displacement; rip-relative from the next
 * instruction), its size and direction; the stack slots of push, call,
 * pop and ret; both operands of a string instruction; none for lea. */
START_TEST(test_x86_memory_accesses_from_the_registers)
{
	struct sw_mem_access a[4];
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x89\x4c\x98\x10", a), 1); /* mov [rax+rbx*4+0x10], ecx */
	is_access(&a[0], 0x100001000 + 3 * 4 + 0x10, 4, true);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x48\x8b\x05\x10\x00\x00\x00", a), 1); /* mov rax, [rip+0x10] */
	is_access(&a[0], 0x1000 + 7 + 0x10, 8, false);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x55", a), 1);                 /* push rbp */
	is_access(&a[0], 0x7000 - 8, 8, true);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\xc3", a), 1);                 /* ret */
	is_access(&a[0], 0x7000, 8, false);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\xff\x10", a), 2);             /* call [rax] */
	is_access(&a[0], 0x100001000, 8, false);
	is_access(&a[1], 0x7000 - 8, 8, true);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\xf3\xa4", a), 2);             /* rep movsb */
	ck_assert_uint_eq(a[0].address + a[1].address, 0x2000 + 0x3000);
	ck_assert_int_eq(a[0].write + a[1].write, 1);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x83\x00\x01", a), 2);         /* add dword [rax], 1 */
	is_access(&a[0], 0x100001000, 4, false);
	is_access(&a[1], 0x100001000, 4, true);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x48\x8d\x03", a), 0);         /* lea rax, [rbx] */
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x67\x8b\x00", a), 1);         /* mov eax, [eax]: addr32 */
	is_access(&a[0], 0x1000, 4, false);
	ck_assert_int_eq(ACC(SW_CPU_X86, "\x89\x18", a), 1);                /* mov [eax], ebx */
	is_access(&a[0], 0x100, 4, true);
	ck_assert_int_eq(ACC(SW_CPU_X86, "\x50", a), 1);                     /* push eax */
	is_access(&a[0], 0x8000 - 4, 4, true);
}
END_TEST

/* Not known, never guessed: a register the frame lacks, an fs-relative
 * operand (the thread's fs base is not in the context), a CPU without
 * this analysis yet, bytes that are no instruction. */
START_TEST(test_x86_memory_accesses_unknown)
{
	struct sw_mem_access a[4];
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x8b\x01", a), -1);             /* mov eax, [rcx] */
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x64\x48\x8b\x04\x25\x28\x00\x00\x00", a), -1);
	ck_assert_int_eq(ACC(SW_CPU_RISCV64, "\x23\x20\xb5\x00", a), -1);
	ck_assert_int_eq(ACC(SW_CPU_AMD64, "\x48\x8b", a), -1);
}
END_TEST

/* The stack word at 0x7000 is 0x401000 (a return address); the word at
 * 0x100001000 (where rax points) is 0x402000; nothing else is captured. */
static bool words(void *ctx, uint64_t addr, unsigned size, uint64_t *v)
{
	(void)ctx;
	(void)size;
	if (addr == 0x7000)
		*v = 0x401000;
	else if (addr == 0x100001000)
		*v = 0x402000;
	else
		return false;
	return true;
}

static bool ipu(const char *bytes, size_t len, uint64_t *target)
{
	static enum reg_set set = AMD64;
	return sw_instruction_pointer_update(SW_CPU_AMD64, 0x1000, (const uint8_t *)bytes, len, regs,
	                                     words, &set, target);
}

#define IPU(bytes, target) ipu(bytes, sizeof bytes - 1, target)

/* Where a call, jump or return sends the pc (rust-minidump's
 * instruction_pointer_update): a register's value, a word in memory, the
 * word at sp; a direct call names its own target: not reported. */
START_TEST(test_x86_instruction_pointer_update)
{
	uint64_t t = 0;
	ck_assert(IPU("\xff\xd0", &t));          /* call rax */
	ck_assert_uint_eq(t, 0x100001000);
	ck_assert(IPU("\xff\x20", &t));          /* jmp [rax] */
	ck_assert_uint_eq(t, 0x402000);
	ck_assert(IPU("\xc3", &t));               /* ret */
	ck_assert_uint_eq(t, 0x401000);
	ck_assert(!IPU("\xe8\x00\x00\x00\x00", &t)); /* call .+5 */
	ck_assert(!IPU("\xff\x11", &t));         /* call [rcx]: rcx not known */
	ck_assert(!IPU("\x89\x18", &t));         /* mov [rax], ebx */
}
END_TEST

/* arm64 (Arm ARM C6.2): the operand's base, its index extended and
 * shifted, the offset a pre-index form shows (a post-index form accesses
 * the base); the size by the register or the mnemonic; a pair moves both
 * registers; the direction by the mnemonic. And where br/blr/ret go. */
START_TEST(test_arm64_memory_accesses_and_branches)
{
	struct sw_mem_access a[4];
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\x01\x00\x00\xb9", a), 1);     /* str w1, [x0] */
	is_access(&a[0], 0x10, 4, true);
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\x20\x84\x40\xf8", a), 1);     /* ldr x0, [x1], #8 */
	is_access(&a[0], 0x5000, 8, false);
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\x20\x8c\x40\xf8", a), 1);     /* ldr x0, [x1, #8]! */
	is_access(&a[0], 0x5008, 8, false);
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\x20\xd8\x62\xf8", a), 1);     /* ldr x0, [x1, w2, sxtw #3] */
	is_access(&a[0], 0x5000 - 8, 8, false);
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\xfd\x7b\xbf\xa9", a), 1);     /* stp x29, x30, [sp, #-16]! */
	is_access(&a[0], 0x7000 - 16, 16, true);
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\x20\x00\x40\x39", a), 1);     /* ldrb w0, [x1] */
	is_access(&a[0], 0x5000, 1, false);
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\x20\x00\x00\x8b", a), 0);     /* add x0, x1, x0 */
	ck_assert_int_eq(ACC(SW_CPU_ARM64, "\x60\x00\x40\xf9", a), -1);    /* ldr x0, [x3]: x3 unknown */
	uint64_t t = 0;
	static enum reg_set set = ARM64;
	ck_assert(sw_instruction_pointer_update(SW_CPU_ARM64, 0x1000,
	                                        (const uint8_t *)"\x40\x00\x1f\xd6", 4, regs, words,
	                                        &set, &t));                   /* br x2 */
	ck_assert_uint_eq(t, 0xffffffff);
	ck_assert(sw_instruction_pointer_update(SW_CPU_ARM64, 0x1000,
	                                        (const uint8_t *)"\xc0\x03\x5f\xd6", 4, regs, words,
	                                        &set, &t));                   /* ret */
	ck_assert_uint_eq(t, 0x401000);
}
END_TEST

static int risc_acc(enum sw_cpu cpu, bool big_endian, const char *bytes,
                    struct sw_mem_access *out)
{
	static enum reg_set set = RISC;
	return sw_memory_accesses_in(cpu, big_endian, false, 0x1000, (const uint8_t *)bytes, 4, regs,
	                             &set, out, 4);
}

/* MIPS and PowerPC: offset(base), sized by the mnemonic, in the snapshot's
 * byte order; an indexed PowerPC store is not known; an ALU instruction
 * touches nothing. */
START_TEST(test_mips_and_ppc_memory_accesses)
{
	struct sw_mem_access a[4];
	ck_assert_int_eq(risc_acc(SW_CPU_MIPS, true, "\xac\x82\x00\x10", a), 1);  /* sw $v0, 0x10($a0) */
	is_access(&a[0], 0x1010, 4, true);
	ck_assert_int_eq(risc_acc(SW_CPU_MIPS64, false, "\xf0\xff\x82\x90", a), 1); /* lbu $v0, -0x10($a0) */
	is_access(&a[0], 0x1000 - 0x10, 1, false);
	ck_assert_int_eq(risc_acc(SW_CPU_PPC64, false, "\x00\x8f\x69\x98", a), 1); /* stb r3, -0x7100(r9) */
	is_access(&a[0], 0x20000 - 0x7100, 1, true);
	ck_assert_int_eq(risc_acc(SW_CPU_PPC64, false, "\xc1\xff\x21\xf8", a), 1); /* stdu r1, -0x40(r1) */
	is_access(&a[0], 0x7000 - 0x40, 8, true);
	ck_assert_int_eq(risc_acc(SW_CPU_PPC64, false, "\x2e\x49\xc7\x7c", a), -1); /* stwx r6, r7, r9 */
	ck_assert_int_eq(risc_acc(SW_CPU_MIPS, true, "\x00\x85\x10\x21", a), 0);  /* addu $v0, $a0, $a1 */
}
END_TEST

static int arm_acc(bool thumb, const char *bytes, size_t len, struct sw_mem_access *out)
{
	static enum reg_set set = ARM;
	return sw_memory_accesses_in(SW_CPU_ARM, false, thumb, 0x1000, (const uint8_t *)bytes, len,
	                             regs, &set, out, 4);
}

#define ARM_ACC(thumb, bytes, out) arm_acc(thumb, bytes, sizeof bytes - 1, out)

/* ARM and Thumb: base ± index shifted + offset (post-index: the base),
 * sized by the instruction; push and ldm over their lists; a pc-relative
 * load is not known; fp names r11. */
START_TEST(test_arm_memory_accesses)
{
	struct sw_mem_access a[4];
	ck_assert_int_eq(ARM_ACC(false, "\x00\x10\x80\xe5", a), 1);     /* str r1, [r0] */
	is_access(&a[0], 0x2000, 4, true);
	ck_assert_int_eq(ARM_ACC(false, "\x04\x10\x90\xe4", a), 1);     /* ldr r1, [r0], #4 */
	is_access(&a[0], 0x2000, 4, false);
	ck_assert_int_eq(ARM_ACC(false, "\x02\x11\x90\xe7", a), 1);     /* ldr r1, [r0, r2, lsl #2] */
	is_access(&a[0], 0x2010, 4, false);
	ck_assert_int_eq(ARM_ACC(false, "\x02\x10\x10\xe7", a), 1);     /* ldr r1, [r0, -r2] */
	is_access(&a[0], 0x1ffc, 4, false);
	ck_assert_int_eq(ARM_ACC(false, "\xb2\x10\xd0\xe1", a), 1);     /* ldrh r1, [r0, #2] */
	is_access(&a[0], 0x2002, 2, false);
	ck_assert_int_eq(ARM_ACC(false, "\x10\x40\x2d\xe9", a), 1);     /* push {r4, lr} */
	is_access(&a[0], 0x7000 - 8, 8, true);
	ck_assert_int_eq(ARM_ACC(false, "\x04\x10\x1b\xe5", a), 1);     /* ldr r1, [fp, #-4] */
	is_access(&a[0], 0x9000 - 4, 4, false);
	ck_assert_int_eq(ARM_ACC(false, "\x04\x10\x9f\xe5", a), -1);    /* ldr r1, [pc, #4] */
	ck_assert_int_eq(ARM_ACC(true, "\x01\x60", a), 1);                /* str r1, [r0] (Thumb) */
	is_access(&a[0], 0x2000, 4, true);
	ck_assert_int_eq(ARM_ACC(true, "\x88\x68", a), 1);                /* ldr r0, [r1, #8] */
	is_access(&a[0], 0x3008, 4, false);
}
END_TEST

/* The registers an address is computed from, or a jump goes through,
 * each once, with their values (the bit flips' sources). */
START_TEST(test_address_registers)
{
	static enum reg_set amd64 = AMD64, arm64 = ARM64;
	struct sw_reg_use u[4];
	ck_assert_uint_eq(sw_address_registers(SW_CPU_AMD64, false, false, 0x1000,
	                                       (const uint8_t *)"\x89\x4c\x98\x10", 4, regs, &amd64,
	                                       u, 4), 2);            /* mov [rax+rbx*4+0x10], ecx */
	ck_assert_str_eq(u[0].name, "rax");
	ck_assert_uint_eq(u[0].value, 0x100001000);
	ck_assert_str_eq(u[1].name, "rbx");
	ck_assert_uint_eq(sw_address_registers(SW_CPU_AMD64, false, false, 0x1000,
	                                       (const uint8_t *)"\xff\xd0", 2, regs, &amd64, u, 4), 1);
	ck_assert_str_eq(u[0].name, "rax");                          /* call rax */
	ck_assert_uint_eq(sw_address_registers(SW_CPU_AMD64, false, false, 0x1000,
	                                       (const uint8_t *)"\xc7\x04\x25\x45\x00\x00\x00\x05\x00\x00\x00",
	                                       11, regs, &amd64, u, 4), 0); /* mov dword [0x45], 5 */
	ck_assert_uint_eq(sw_address_registers(SW_CPU_ARM64, false, false, 0x1000,
	                                       (const uint8_t *)"\xc0\x03\x5f\xd6", 4, regs, &arm64,
	                                       u, 4), 1);            /* ret: x30 */
	ck_assert_uint_eq(u[0].value, 0x401000);
}
END_TEST

/* ARM, MIPS and PowerPC: where an indirect branch, a return or a pop
 * into pc sends it. Registers: lr = 0x8001 (a Thumb caller), r3 = 0x9003,
 * sp = 0x7000, MIPS ra = 0x400100, t9 = 0x400200, PowerPC lr = 0x10000100,
 * ctr = 0x10000200; memory: the word at 0x7000 is 0x5001, at 0x7004
 * 0x6000 (in either byte order). */
static bool ip_regs(void *ctx, const char *name, uint64_t *v)
{
	(void)ctx;
	static const struct { const char *name; uint64_t v; } table[] = {
		{ "lr", 0x8001 }, { "r3", 0x9003 }, { "sp", 0x7000 }, { "ra", 0x400100 },
		{ "t9", 0x400200 }, { "ctr", 0x200 },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].name, name) == 0) {
			*v = table[i].v;
			return true;
		}
	return false;
}

static bool ip_words(void *ctx, uint64_t addr, unsigned size, uint64_t *v)
{
	(void)ctx;
	if (size != 4 || (addr != 0x7000 && addr != 0x7004))
		return false;
	*v = addr == 0x7000 ? 0x5001 : 0x6000;
	return true;
}

static bool ipu_in(enum sw_cpu cpu, bool be, bool thumb, const char *bytes, size_t len,
                   uint64_t *t)
{
	return sw_instruction_pointer_update_in(cpu, be, thumb, 0x1000, (const uint8_t *)bytes, len,
	                                        ip_regs, ip_words, NULL, t);
}

START_TEST(test_arm_mips_ppc_instruction_pointer_update)
{
	uint64_t t = 0;
	ck_assert(ipu_in(SW_CPU_ARM, false, false, "\x1e\xff\x2f\xe1", 4, &t)); /* bx lr */
	ck_assert_uint_eq(t, 0x8000);
	ck_assert(ipu_in(SW_CPU_ARM, false, false, "\x10\x80\xbd\xe8", 4, &t)); /* pop {r4, pc} */
	ck_assert_uint_eq(t, 0x6000);
	ck_assert(ipu_in(SW_CPU_ARM, false, false, "\x04\xf0\x9d\xe4", 4, &t)); /* ldr pc, [sp], #4 */
	ck_assert_uint_eq(t, 0x5000);
	ck_assert(ipu_in(SW_CPU_ARM, false, true, "\x18\x47", 2, &t));            /* bx r3 */
	ck_assert_uint_eq(t, 0x9002);
	ck_assert(!ipu_in(SW_CPU_ARM, false, false, "\x1e\xff\x2f\x01", 4, &t)); /* bxeq lr */
	ck_assert(!ipu_in(SW_CPU_ARM, false, false, "\x10\x40\xbd\xe8", 4, &t)); /* pop {r4, lr} */
	ck_assert(ipu_in(SW_CPU_MIPS, true, false, "\x03\xe0\x00\x08", 4, &t));  /* jr $ra */
	ck_assert_uint_eq(t, 0x400100);
	ck_assert(ipu_in(SW_CPU_MIPS, false, false, "\x09\xf8\x20\x03", 4, &t)); /* jalr $t9 */
	ck_assert_uint_eq(t, 0x400200);
	ck_assert(ipu_in(SW_CPU_PPC, true, false, "\x4e\x80\x00\x20", 4, &t));   /* blr */
	ck_assert_uint_eq(t, 0x8001);
	ck_assert(ipu_in(SW_CPU_PPC, true, false, "\x4e\x80\x04\x21", 4, &t));   /* bctrl */
	ck_assert_uint_eq(t, 0x200);
	ck_assert(!ipu_in(SW_CPU_PPC, true, false, "\x4d\x82\x00\x20", 4, &t));  /* beqlr */
}
END_TEST

/* RISC-V, which Capstone 4 lacks (lib/riscv_disasm.c): GNU's mnemonics
 * and aliases, compressed instructions as what they expand to; loads,
 * stores and atomics at base + offset; where jalr and c.jr go. Encodings
 * from Debian's riscv64 libc. Registers: a2 = 0x3000, a4 = 0x5000, s0 =
 * 0x6000, t2 = 0x10000, sp = 0x7000, ra = 0x401001 (a jump clears bit 0);
 * a0 is not known. */
static bool rv_regs(void *ctx, const char *name, uint64_t *v)
{
	(void)ctx;
	static const struct { const char *name; uint64_t v; } table[] = {
		{ "a2", 0x3000 }, { "a4", 0x5000 }, { "s0", 0x6000 }, { "t2", 0x10000 },
		{ "sp", 0x7000 }, { "ra", 0x401001 },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].name, name) == 0) {
			*v = table[i].v;
			return true;
		}
	return false;
}

START_TEST(test_riscv_text_accesses_and_jumps)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *text;
	} texts[] = {
		{ "\x03\xbe\x03\xd6", 4, "ld t3, -672(t2)" },
		{ "\x81\xe7", 2, "bnez a5, 0x1008" },
		{ "\x82\x80", 2, "ret" },
		{ "\x06\xe4", 2, "sd ra, 8(sp)" },
		{ "\xaf\x27\xd7\x04", 4, "amoadd.w.aq a5, a3, (a4)" },
		{ "\xaf\x26\xe4\x1c", 4, "sc.w.aq a3, a4, (s0)" },
		{ "\x13\x01\x01\xff", 4, "addi sp, sp, -16" },
		{ "\x0f\x00\x50\x0f", 4, "fence iorw, ow" },
		{ "\x63\x40\x05\x0e", 4, "bltz a0, 0x10e0" },
	};
	char out[64];
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		ck_assert(sw_disassemble(SW_CPU_RISCV64, false, false, 0x1000,
		                         (const uint8_t *)texts[i].bytes, texts[i].len, out, sizeof out));
		ck_assert_str_eq(out, texts[i].text);
	}
	/* F/D arithmetic (fmv.x.d), the illegal zero, a cut 32-bit one: nothing. */
	ck_assert(!sw_disassemble(SW_CPU_RISCV64, false, false, 0x1000,
	                          (const uint8_t *)"\x53\x07\x05\xe2", 4, out, sizeof out));
	ck_assert(!sw_disassemble(SW_CPU_RISCV64, false, false, 0x1000,
	                          (const uint8_t *)"\x00\x00", 2, out, sizeof out));
	ck_assert(!sw_disassemble(SW_CPU_RISCV64, false, false, 0x1000,
	                          (const uint8_t *)"\x03\xbe", 2, out, sizeof out));

	struct sw_mem_access a[4];
	ck_assert_int_eq(sw_memory_accesses(SW_CPU_RISCV64, 0x1000, (const uint8_t *)"\x03\xbe\x03\xd6",
	                                    4, rv_regs, NULL, a, 4), 1);
	is_access(&a[0], 0x10000 - 672, 8, false);
	ck_assert_int_eq(sw_memory_accesses(SW_CPU_RISCV64, 0x1000, (const uint8_t *)"\x06\xe4", 2,
	                                    rv_regs, NULL, a, 4), 1);
	is_access(&a[0], 0x7008, 8, true);
	ck_assert_int_eq(sw_memory_accesses(SW_CPU_RISCV64, 0x1000,
	                                    (const uint8_t *)"\xaf\x27\xd7\x04", 4, rv_regs, NULL, a,
	                                    4), 2);
	is_access(&a[0], 0x5000, 4, false);
	is_access(&a[1], 0x5000, 4, true);
	ck_assert_int_eq(sw_memory_accesses(SW_CPU_RISCV64, 0x1000,
	                                    (const uint8_t *)"\x13\x01\x01\xff", 4, rv_regs, NULL, a,
	                                    4), 0);
	/* c.lw a0, 0(a0)... with a0 not known: not known. */
	ck_assert_int_eq(sw_memory_accesses(SW_CPU_RISCV64, 0x1000, (const uint8_t *)"\x08\x41", 2,
	                                    rv_regs, NULL, a, 4), -1);

	uint64_t t = 0;
	ck_assert(sw_instruction_pointer_update(SW_CPU_RISCV64, 0x1000, (const uint8_t *)"\x82\x80", 2,
	                                        rv_regs, NULL, NULL, &t));
	ck_assert_uint_eq(t, 0x401000);
	ck_assert(!sw_instruction_pointer_update(SW_CPU_RISCV64, 0x1000, (const uint8_t *)"\x81\xe7",
	                                         2, rv_regs, NULL, NULL, &t));
	struct sw_reg_use u[4];
	ck_assert_uint_eq(sw_address_registers(SW_CPU_RISCV64, false, false, 0x1000,
	                                       (const uint8_t *)"\x06\xe4", 2, rv_regs, NULL, u, 4), 1);
	ck_assert_str_eq(u[0].name, "sp");
	ck_assert_uint_eq(u[0].value, 0x7000);
}
END_TEST

Suite *test_suite(void);
Suite *test_suite(void)
{
	Suite *s = suite_create("disasm");
	TCase *tc = tcase_create("disasm");
	tcase_add_test(tc, test_x86_prints_as_rust_minidump);
	tcase_add_test(tc, test_risc_cpus_in_their_byte_order);
	tcase_add_test(tc, test_no_answer_without_a_decoding);
	tcase_add_test(tc, test_x86_memory_accesses_from_the_registers);
	tcase_add_test(tc, test_x86_memory_accesses_unknown);
	tcase_add_test(tc, test_x86_instruction_pointer_update);
	tcase_add_test(tc, test_arm64_memory_accesses_and_branches);
	tcase_add_test(tc, test_mips_and_ppc_memory_accesses);
	tcase_add_test(tc, test_arm_memory_accesses);
	tcase_add_test(tc, test_address_registers);
	tcase_add_test(tc, test_riscv_text_accesses_and_jumps);
	tcase_add_test(tc, test_arm_mips_ppc_instruction_pointer_update);
	suite_add_tcase(s, tc);
	return s;
}
