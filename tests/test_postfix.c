/* Breakpad's postfix language: operators, assignment programs, errors. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "symbols/postfix.h"

/* Memory for ^: word at addr = addr + 1, except below 0x100 (unreadable). */
static bool fake_read(void *ctx, uint64_t addr, uint64_t *out)
{
	(void)ctx;
	if (addr < 0x100)
		return false;
	*out = addr + 1;
	return true;
}

static enum sw_pf_status eval(const char *e, uint8_t word, uint64_t *out)
{
	struct sw_pf_dict d;
	sw_pf_dict_init(&d);
	sw_pf_dict_set(&d, "$esp", 0x1000);
	sw_pf_dict_set(&d, ".cfa", 0x2000);
	struct sw_postfix pf = {.dict = &d, .read = fake_read, .word_size = word};
	return sw_postfix_eval(&pf, e, strlen(e), out);
}

static uint64_t value_of(const char *e)
{
	uint64_t v = 0xdead;
	enum sw_pf_status s = eval(e, 8, &v);
	ck_assert_msg(s == SW_PF_OK, "%s: %s", e, sw_pf_status_name(s));
	return v;
}

static enum sw_pf_status status_of(const char *e)
{
	uint64_t v;
	return eval(e, 8, &v);
}

START_TEST(test_postfix_evaluates_every_binary_operator)
{
	ck_assert_uint_eq(value_of("3 4 +"), 7);
	ck_assert_uint_eq(value_of("10 4 -"), 6);
	ck_assert_uint_eq(value_of("6 7 *"), 42);
	ck_assert_uint_eq(value_of("45 7 /"), 6);
	ck_assert_uint_eq(value_of("45 7 %"), 3);
	ck_assert_uint_eq(value_of("0x1237 16 @"), 0x1230);
	ck_assert_uint_eq(value_of("$esp 8 + 3 *"), 0x3018);
}
END_TEST

START_TEST(test_postfix_parses_decimal_negative_and_hex_numbers)
{
	ck_assert_uint_eq(value_of("123"), 123);
	ck_assert_uint_eq(value_of("0x7f"), 0x7f);
	ck_assert_uint_eq(value_of("0XFF"), 0xff);
	ck_assert_uint_eq(value_of(".cfa -8 +"), 0x1ff8);
	ck_assert_uint_eq(value_of("-0x10"), (uint64_t)-16);
}
END_TEST

START_TEST(test_postfix_dereferences_through_callback)
{
	ck_assert_uint_eq(value_of("$esp ^"), 0x1001);
	ck_assert_uint_eq(value_of(".cfa 8 - ^"), 0x1ff9);
	ck_assert_int_eq(status_of("16 ^"), SW_PF_ERR_MEMORY);
}
END_TEST

START_TEST(test_postfix_wraps_at_the_word_size)
{
	uint64_t v;
	ck_assert_int_eq(eval("0 4 -", 4, &v), SW_PF_OK);
	ck_assert_uint_eq(v, 0xfffffffcu);
	ck_assert_int_eq(eval("4294967295 2 +", 4, &v), SW_PF_OK);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(eval("0 4 -", 8, &v), SW_PF_OK);
	ck_assert_uint_eq(v, UINT64_MAX - 3);
}
END_TEST

START_TEST(test_postfix_runs_stack_win_assignment_program)
{
	struct sw_pf_dict d;
	sw_pf_dict_init(&d);
	sw_pf_dict_set(&d, "$ebp", 0x2000);
	sw_pf_dict_set(&d, "$esp", 0x1ff0);
	sw_pf_dict_set(&d, ".cbSavedRegs", 4);
	sw_pf_dict_set(&d, ".cbParams", 8);
	struct sw_postfix pf = {.dict = &d, .read = fake_read, .word_size = 4};
	const char *prog = "$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + = "
	                   "$L $T0 .cbSavedRegs - = $P $T0 8 + .cbParams + =";
	ck_assert_int_eq(sw_postfix_run(&pf, prog, strlen(prog)), SW_PF_OK);
	uint64_t v;
	ck_assert(sw_pf_dict_get(&d, "$eip", &v) && v == 0x2005);
	ck_assert(sw_pf_dict_get(&d, "$ebp", &v) && v == 0x2001);
	ck_assert(sw_pf_dict_get(&d, "$esp", &v) && v == 0x2008);
	ck_assert(sw_pf_dict_get(&d, "$L", &v) && v == 0x1ffc);
	ck_assert(sw_pf_dict_get(&d, "$P", &v) && v == 0x2010);
	ck_assert(sw_pf_dict_assigned(&d, "$eip"));
	ck_assert(!sw_pf_dict_assigned(&d, ".cbParams"));
}
END_TEST

START_TEST(test_postfix_accepts_assignment_glued_to_next_token)
{
	struct sw_pf_dict d;
	sw_pf_dict_init(&d);
	struct sw_postfix pf = {.dict = &d, .word_size = 4};
	const char *prog = "$T0 5 =$T1 6 =";
	ck_assert_int_eq(sw_postfix_run(&pf, prog, strlen(prog)), SW_PF_OK);
	uint64_t v;
	ck_assert(sw_pf_dict_get(&d, "$T0", &v) && v == 5);
	ck_assert(sw_pf_dict_get(&d, "$T1", &v) && v == 6);
}
END_TEST

static bool resolve_rsp(void *ctx, const char *name, size_t len, uint64_t *out)
{
	(void)ctx;
	if (len == 4 && memcmp(name, "$rsp", 4) == 0) {
		*out = 0x7000;
		return true;
	}
	return false;
}

START_TEST(test_postfix_asks_resolver_for_unknown_identifiers)
{
	struct sw_postfix pf = {.resolve = resolve_rsp, .word_size = 8};
	uint64_t v;
	ck_assert_int_eq(sw_postfix_eval(&pf, "$rsp 8 +", 8, &v), SW_PF_OK);
	ck_assert_uint_eq(v, 0x7008);
	ck_assert_int_eq(sw_postfix_eval(&pf, "$rbx 8 +", 8, &v), SW_PF_ERR_UNKNOWN_VAR);
}
END_TEST

START_TEST(test_postfix_reports_undef)
{
	ck_assert_int_eq(status_of(".undef"), SW_PF_UNDEF);
	ck_assert_int_eq(status_of("  .undef "), SW_PF_UNDEF);
	ck_assert_int_eq(status_of(".undef 4 +"), SW_PF_ERR_UNKNOWN_VAR);
}
END_TEST

START_TEST(test_postfix_rejects_stack_underflow)
{
	ck_assert_int_eq(status_of("+"), SW_PF_ERR_UNDERFLOW);
	ck_assert_int_eq(status_of("1 +"), SW_PF_ERR_UNDERFLOW);
	ck_assert_int_eq(status_of("^"), SW_PF_ERR_UNDERFLOW);
	ck_assert_int_eq(status_of(""), SW_PF_ERR_UNDERFLOW);
}
END_TEST

START_TEST(test_postfix_rejects_division_by_zero)
{
	ck_assert_int_eq(status_of("1 0 /"), SW_PF_ERR_DIV_ZERO);
	ck_assert_int_eq(status_of("1 0 %"), SW_PF_ERR_DIV_ZERO);
	ck_assert_int_eq(status_of("1 0 @"), SW_PF_ERR_DIV_ZERO);
}
END_TEST

START_TEST(test_postfix_rejects_unknown_variable)
{
	ck_assert_int_eq(status_of("$nope 1 +"), SW_PF_ERR_UNKNOWN_VAR);
}
END_TEST

START_TEST(test_postfix_rejects_garbage_tokens)
{
	ck_assert_int_eq(status_of("1 2 &"), SW_PF_ERR_TOKEN);
	ck_assert_int_eq(status_of("5x"), SW_PF_ERR_TOKEN);
	ck_assert_int_eq(status_of("0x"), SW_PF_ERR_TOKEN);
	ck_assert_int_eq(status_of("99999999999999999999999"), SW_PF_ERR_TOKEN);
	ck_assert_int_eq(status_of("$a!b"), SW_PF_ERR_TOKEN);
}
END_TEST

START_TEST(test_postfix_rejects_leftover_values)
{
	ck_assert_int_eq(status_of("1 2"), SW_PF_ERR_RESULT);
	struct sw_pf_dict d;
	sw_pf_dict_init(&d);
	struct sw_postfix pf = {.dict = &d, .word_size = 4};
	ck_assert_int_eq(sw_postfix_run(&pf, "$T0 1 = 5", 9), SW_PF_ERR_RESULT);
}
END_TEST

START_TEST(test_postfix_rejects_assignment_to_non_variable)
{
	struct sw_pf_dict d;
	sw_pf_dict_init(&d);
	struct sw_postfix pf = {.dict = &d, .word_size = 4};
	ck_assert_int_eq(sw_postfix_run(&pf, "4 5 =", 5), SW_PF_ERR_ASSIGN);
	ck_assert_int_eq(sw_postfix_run(&pf, ".x 5 =", 6), SW_PF_ERR_ASSIGN);
	ck_assert_int_eq(sw_postfix_run(&pf, "5 =", 3), SW_PF_ERR_UNDERFLOW);
}
END_TEST

START_TEST(test_postfix_rejects_stack_overflow_and_full_dictionary)
{
	char buf[2048] = "";
	for (int i = 0; i < SW_PF_STACK + 1; i++)
		strcat(buf, "1 ");
	ck_assert_int_eq(status_of(buf), SW_PF_ERR_OVERFLOW);
	struct sw_pf_dict d;
	sw_pf_dict_init(&d);
	struct sw_postfix pf = {.dict = &d, .word_size = 4};
	buf[0] = '\0';
	for (int i = 0; i < SW_PF_MAX_VARS + 1; i++)
		sprintf(buf + strlen(buf), "$v%d 1 = ", i);
	ck_assert_int_eq(sw_postfix_run(&pf, buf, strlen(buf)), SW_PF_ERR_DICT_FULL);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("postfix");
	TCase *tc = tcase_create("postfix");
	tcase_add_test(tc, test_postfix_evaluates_every_binary_operator);
	tcase_add_test(tc, test_postfix_parses_decimal_negative_and_hex_numbers);
	tcase_add_test(tc, test_postfix_dereferences_through_callback);
	tcase_add_test(tc, test_postfix_wraps_at_the_word_size);
	tcase_add_test(tc, test_postfix_runs_stack_win_assignment_program);
	tcase_add_test(tc, test_postfix_accepts_assignment_glued_to_next_token);
	tcase_add_test(tc, test_postfix_asks_resolver_for_unknown_identifiers);
	tcase_add_test(tc, test_postfix_reports_undef);
	tcase_add_test(tc, test_postfix_rejects_stack_underflow);
	tcase_add_test(tc, test_postfix_rejects_division_by_zero);
	tcase_add_test(tc, test_postfix_rejects_unknown_variable);
	tcase_add_test(tc, test_postfix_rejects_garbage_tokens);
	tcase_add_test(tc, test_postfix_rejects_leftover_values);
	tcase_add_test(tc, test_postfix_rejects_assignment_to_non_variable);
	tcase_add_test(tc, test_postfix_rejects_stack_overflow_and_full_dictionary);
	suite_add_tcase(s, tc);
	return s;
}
