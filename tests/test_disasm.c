/* The crashing instruction as text (lib/disasm.h): Capstone's reading of
 * each CPU's bytes in the snapshot's byte order, ARM's two instruction
 * sets, x86 as rust-minidump prints it, and no answer where there is
 * none. The expected texts are what objdump and gdb read from the same
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

/* Nothing is said where nothing is known: a CPU Capstone 4 lacks, no
 * bytes, an instruction cut short, a buffer too small for the text. */
START_TEST(test_no_answer_without_a_decoding)
{
	char small[4];
	ck_assert_ptr_null(DIS(SW_CPU_RISCV64, false, false, "\x23\x20\xb5\x00"));
	ck_assert_ptr_null(dis(SW_CPU_AMD64, false, false, "", 0));
	ck_assert_ptr_null(DIS(SW_CPU_AMD64, false, false, "\x48\x8b"));
	ck_assert(!sw_disassemble(SW_CPU_ARM64, false, false, 0, (const uint8_t *)"\x01\x00\x00\xb9", 4,
	                          small, sizeof small));
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
	suite_add_tcase(s, tc);
	return s;
}
