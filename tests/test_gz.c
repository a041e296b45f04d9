/* .sym.gz inflation: the fast path, its fallbacks, and damaged input. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "symbols/gz.h"

/* One gzip member of data[0..n). */
static size_t gzip_member(const char *data, size_t n, uint8_t *out, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = cap - z.avail_out;
	deflateEnd(&z);
	return len;
}

static char *text_of(size_t n)
{
	char *t = malloc(n);
	for (size_t i = 0; i < n; i++)
		t[i] = "FUNC 1000 10 0 main\n"[i % 20];
	return t;
}

START_TEST(test_gz_inflates_one_member)
{
	char *t = text_of(100000);
	uint8_t gz[200000];
	size_t n = gzip_member(t, 100000, gz, sizeof gz);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(gz, n, 1 << 30, "a.sym.gz", &out, &len, &err), SW_OK);
	ck_assert_uint_eq(len, 100000);
	ck_assert(memcmp(out, t, len) == 0);
	free(out);
	free(t);
}
END_TEST

START_TEST(test_gz_joins_members)
{
	/* gzip -c a b > ab: the trailer's ISIZE covers only the last member,
	 * so the buffer must grow. */
	char *t = text_of(300000);
	uint8_t gz[400000];
	size_t n1 = gzip_member(t, 250000, gz, sizeof gz);
	size_t n2 = gzip_member(t + 250000, 50000, gz + n1, sizeof gz - n1);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(gz, n1 + n2, 1 << 30, "ab.sym.gz", &out, &len, &err), SW_OK);
	ck_assert_uint_eq(len, 300000);
	ck_assert(memcmp(out, t, len) == 0);
	free(out);
	free(t);
}
END_TEST

START_TEST(test_gz_survives_lying_isize)
{
	char *t = text_of(200000);
	uint8_t gz[300000];
	size_t n = gzip_member(t, 200000, gz, sizeof gz);
	memset(gz + n - 4, 0, 4); /* ISIZE 0 */
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	/* libdeflate checks ISIZE and calls the member damaged; the streaming
	 * path then inflates it and reports the bad trailer. */
	enum sw_err_code rc = sw_gz_inflate(gz, n, 1 << 30, "lie.sym.gz", &out, &len, &err);
	ck_assert(rc == SW_OK || rc == SW_ERR_CORRUPT);
	ck_assert_uint_eq(len, 200000);
	ck_assert(memcmp(out, t, len) == 0);
	free(out);
	free(t);
}
END_TEST

START_TEST(test_gz_keeps_what_precedes_truncation)
{
	char *t = text_of(200000);
	uint8_t gz[300000];
	size_t n = gzip_member(t, 200000, gz, sizeof gz);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(gz, n / 2, 1 << 30, "cut.sym.gz", &out, &len, &err),
	                 SW_ERR_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "cut.sym.gz"));
	ck_assert_uint_gt(len, 0);
	ck_assert(memcmp(out, t, len) == 0);
	free(out);
	free(t);
}
END_TEST

START_TEST(test_gz_refuses_output_past_the_limit)
{
	char *t = text_of(200000);
	uint8_t gz[300000];
	size_t n = gzip_member(t, 200000, gz, sizeof gz);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	/* Refused whole, not cut: half a symbol file would look complete. */
	ck_assert_int_eq(sw_gz_inflate(gz, n, 100000, "big.sym.gz", &out, &len, &err),
	                 SW_ERR_UNSUPPORTED);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "big.sym.gz: inflates to more than 100000 bytes"));
	free(t);
}
END_TEST

START_TEST(test_gz_refuses_past_the_limit_on_the_streaming_path_too)
{
	/* A bad trailer sends the data to zlib's streaming inflate. */
	char *t = text_of(200000);
	uint8_t gz[300000];
	size_t n = gzip_member(t, 200000, gz, sizeof gz);
	memset(gz + n - 8, 0, 4); /* CRC 0 */
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(gz, n, 100000, "crc.sym.gz", &out, &len, &err),
	                 SW_ERR_UNSUPPORTED);
	ck_assert_ptr_null(out);
	free(t);
}
END_TEST

START_TEST(test_gz_accepts_output_of_exactly_the_limit)
{
	char *t = text_of(100000);
	uint8_t gz[200000];
	size_t n = gzip_member(t, 100000, gz, sizeof gz);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(gz, n, 100000, "exact.sym.gz", &out, &len, &err), SW_OK);
	ck_assert_uint_eq(len, 100000);
	free(out);
	free(t);
}
END_TEST

START_TEST(test_gz_limit_is_64_times_the_size_between_64_mib_and_4_gib)
{
	ck_assert_uint_eq(sw_gz_limit(0), (size_t)64 << 20);
	ck_assert_uint_eq(sw_gz_limit(1 << 20), (size_t)64 << 20);
	ck_assert_uint_eq(sw_gz_limit(10 << 20), (size_t)640 << 20);
	ck_assert_uint_eq(sw_gz_limit((size_t)1 << 30), (size_t)1 << 32);
	ck_assert_uint_eq(sw_gz_limit(SIZE_MAX), (size_t)1 << 32);
}
END_TEST

/* gzip of n MiB of zeros: about 1 KiB per MiB. */
static uint8_t *zero_bomb(size_t mib, size_t *len)
{
	static uint8_t zeros[1 << 20];
	size_t cap = mib * 2048 + 1024;
	uint8_t *gz = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof z);
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	for (size_t i = 0; i < mib; i++) {
		z.next_in = zeros;
		z.avail_in = sizeof zeros;
		ck_assert_int_eq(deflate(&z, i + 1 == mib ? Z_FINISH : Z_NO_FLUSH),
		                 i + 1 == mib ? Z_STREAM_END : Z_OK);
	}
	*len = cap - z.avail_out;
	deflateEnd(&z);
	return gz;
}

START_TEST(test_gz_refuses_a_decompression_bomb_at_its_size_limit)
{
	/* 100 MiB of zeros in ~100 KiB: past sw_gz_limit (64 MiB for a file
	 * this small), so refused after at most 64 MiB of output. */
	size_t n;
	uint8_t *gz = zero_bomb(100, &n);
	ck_assert_uint_lt(n, 1 << 20);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(gz, n, sw_gz_limit(n), "bomb.sym.gz", &out, &len, &err),
	                 SW_ERR_UNSUPPORTED);
	ck_assert_ptr_null(out);
	free(gz);
}
END_TEST

START_TEST(test_gz_rejects_non_gzip)
{
	static const uint8_t text[] = "MODULE Linux x86_64 0123 app\nFUNC 1000 10 0 main\n";
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(text, sizeof text, 1 << 20, "x.sym", &out, &len, &err),
	                 SW_ERR_FORMAT);
	ck_assert_ptr_null(out);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("gz");
	TCase *tc = tcase_create("inflate");
	tcase_add_test(tc, test_gz_inflates_one_member);
	tcase_add_test(tc, test_gz_joins_members);
	tcase_add_test(tc, test_gz_survives_lying_isize);
	tcase_add_test(tc, test_gz_keeps_what_precedes_truncation);
	tcase_add_test(tc, test_gz_refuses_output_past_the_limit);
	tcase_add_test(tc, test_gz_refuses_past_the_limit_on_the_streaming_path_too);
	tcase_add_test(tc, test_gz_accepts_output_of_exactly_the_limit);
	tcase_add_test(tc, test_gz_limit_is_64_times_the_size_between_64_mib_and_4_gib);
	tcase_add_test(tc, test_gz_refuses_a_decompression_bomb_at_its_size_limit);
	tcase_add_test(tc, test_gz_rejects_non_gzip);
	suite_add_tcase(s, tc);
	return s;
}
