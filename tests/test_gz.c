/* .sym.gz inflation: the fast path, its fallbacks, and damaged input. */
#include <check.h>
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

START_TEST(test_gz_enforces_output_limit)
{
	char *t = text_of(200000);
	uint8_t gz[300000];
	size_t n = gzip_member(t, 200000, gz, sizeof gz);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_gz_inflate(gz, n, 100000, "big.sym.gz", &out, &len, &err), SW_ERR_CORRUPT);
	ck_assert_uint_le(len, 100000);
	free(out);
	free(t);
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
	tcase_add_test(tc, test_gz_enforces_output_limit);
	tcase_add_test(tc, test_gz_rejects_non_gzip);
	suite_add_tcase(s, tc);
	return s;
}
