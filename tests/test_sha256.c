/* SHA-256 (lib/sha256.c) against the test vectors of FIPS 180-2's
 * appendix B (B.1 "abc", B.2 the 448-bit message, B.3 one million 'a'),
 * the empty message, and the same digests fed in pieces that straddle the
 * 64-byte blocks and the padding's 56-byte boundary. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lib/sha256.h"

static void hex(const uint8_t d[SW_SHA256_SIZE], char out[2 * SW_SHA256_SIZE + 1])
{
	for (unsigned i = 0; i < SW_SHA256_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check_digest(const void *data, size_t n, const char *want)
{
	uint8_t d[SW_SHA256_SIZE];
	char got[2 * SW_SHA256_SIZE + 1];
	sw_sha256(data, n, d);
	hex(d, got);
	ck_assert_str_eq(got, want);
}

START_TEST(test_sha256_fips_b1_abc)
{
	check_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST(test_sha256_fips_b2_two_blocks)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	check_digest(m, strlen(m),
	             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(test_sha256_fips_b3_million_a)
{
	/* Fed in 1000 pieces of 1000 bytes: most do not end on a block. */
	static char a[1000];
	memset(a, 'a', sizeof a);
	struct sw_sha256 c;
	sw_sha256_init(&c);
	for (int i = 0; i < 1000; i++)
		sw_sha256_update(&c, a, sizeof a);
	uint8_t d[SW_SHA256_SIZE];
	char got[2 * SW_SHA256_SIZE + 1];
	sw_sha256_final(&c, d);
	hex(d, got);
	ck_assert_str_eq(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(test_sha256_empty_message)
{
	check_digest(NULL, 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

/* Every split of B.2's 56-byte message (its padding needs a second
 * block) gives the one-call digest. */
START_TEST(test_sha256_pieces_equal_one_call)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	size_t n = strlen(m);
	uint8_t want[SW_SHA256_SIZE], got[SW_SHA256_SIZE];
	sw_sha256(m, n, want);
	for (size_t cut = 0; cut <= n; cut++) {
		struct sw_sha256 c;
		sw_sha256_init(&c);
		sw_sha256_update(&c, m, cut);
		sw_sha256_update(&c, m + cut, n - cut);
		sw_sha256_final(&c, got);
		ck_assert_mem_eq(got, want, SW_SHA256_SIZE);
	}
}
END_TEST

Suite *test_suite(void);

Suite *test_suite(void)
{
	Suite *s = suite_create("sha256");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_sha256_fips_b1_abc);
	tcase_add_test(tc, test_sha256_fips_b2_two_blocks);
	tcase_add_test(tc, test_sha256_fips_b3_million_a);
	tcase_add_test(tc, test_sha256_empty_message);
	tcase_add_test(tc, test_sha256_pieces_equal_one_call);
	suite_add_tcase(s, tc);
	return s;
}
