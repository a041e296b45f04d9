/* Compressed snapshots (lib/decompress*.c, formats/input.c): each format
 * round trip, members joined, truncated, damaged and empty input, the
 * decompressed-size limit, a temporary that cannot be written, and a
 * compressed minidump opened as the file it holds. The compressed data is
 * made here with the libraries' own encoders, with the integrity checks
 * their command-line tools write by default. */
#include <check.h>
#include <errno.h>
#include <lz4frame.h>
#include <lzma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/input.h"
#include "formats/open.h"
#include "lib/decompress.h"

static const enum sw_compression formats[] = {
	SW_COMPRESSION_GZIP, SW_COMPRESSION_XZ, SW_COMPRESSION_ZSTD, SW_COMPRESSION_LZ4,
};
enum { NFORMATS = sizeof formats / sizeof *formats };

/* n bytes that compress, but not to nothing: text with a counter in it. */
static uint8_t *sample(size_t n)
{
	uint8_t *p = malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)("thread 0 frame 1 pc 0x4010 "[i % 27] ^ ((i / 4099) & 7));
	return p;
}

/* data compressed as one member of c, in a new buffer (*len bytes). */
static uint8_t *compress_as(enum sw_compression c, const uint8_t *data, size_t n, size_t *len)
{
	size_t cap = n + n / 2 + 4096;
	uint8_t *out = malloc(cap);
	switch (c) {
	case SW_COMPRESSION_GZIP: {
		z_stream z;
		memset(&z, 0, sizeof z);
		ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
		                 Z_OK);
		z.next_in = (Bytef *)data;
		z.avail_in = (uInt)n;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
		*len = cap - z.avail_out;
		deflateEnd(&z);
		break;
	}
	case SW_COMPRESSION_XZ: {
		*len = 0;
		ck_assert_int_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, data, n, out, len,
		                                         cap),
		                 LZMA_OK);
		break;
	}
	case SW_COMPRESSION_ZSTD: {
		/* The zstd tool writes a content checksum by default. */
		ZSTD_CCtx *z = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
		*len = ZSTD_compress2(z, out, cap, data, n);
		ck_assert(!ZSTD_isError(*len));
		ZSTD_freeCCtx(z);
		break;
	}
	case SW_COMPRESSION_LZ4: {
		/* So does the lz4 tool. */
		LZ4F_preferences_t prefs;
		memset(&prefs, 0, sizeof prefs);
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		ck_assert_uint_le(LZ4F_compressFrameBound(n, &prefs), cap);
		*len = LZ4F_compressFrame(out, cap, data, n, &prefs);
		ck_assert(!LZ4F_isError(*len));
		break;
	}
	case SW_COMPRESSION_NONE:
		memcpy(out, data, n);
		*len = n;
		break;
	}
	return out;
}

/* A descriptor holding data, at offset `skip` (what a caller that read
 * the first bytes already would hand the decoder). */
static int file_of(const uint8_t *data, size_t n, size_t skip)
{
	int fd = memfd_create("compressed", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert(n == 0 || write(fd, data, n) == (ssize_t)n);
	ck_assert_int_eq(lseek(fd, (off_t)skip, SEEK_SET), (off_t)skip);
	return fd;
}

/* Everything c's decoder gives for data, read in pieces of `piece` bytes
 * (the first `pre` bytes handed over as already read): the result code,
 * the bytes in *out (malloc'd), their count in *len. */
static enum sw_err_code decode_all(enum sw_compression c, const uint8_t *data, size_t n,
                                   size_t pre, size_t piece, uint8_t **out, size_t *len,
                                   struct sw_err *err)
{
	int fd = file_of(data, n, pre);
	struct sw_decoder *d = sw_decoder_new(c, fd, data, pre, "test.z", err);
	ck_assert_ptr_nonnull(d);
	size_t cap = 1 << 20;
	*out = malloc(cap);
	*len = 0;
	enum sw_err_code rc;
	for (;;) {
		if (cap - *len < piece)
			*out = realloc(*out, cap *= 2);
		size_t got;
		rc = sw_decoder_read(d, *out + *len, piece, &got, err);
		if (rc != SW_OK || got == 0)
			break;
		*len += got;
	}
	sw_decoder_free(d);
	close(fd);
	return rc;
}

START_TEST(test_compression_told_by_magic_bytes)
{
	ck_assert_int_eq(sw_compression_of((const uint8_t *)"\x1f\x8b\x08", 3), SW_COMPRESSION_GZIP);
	ck_assert_int_eq(sw_compression_of((const uint8_t *)"\xfd" "7zXZ\0\0", 7), SW_COMPRESSION_XZ);
	ck_assert_int_eq(sw_compression_of((const uint8_t *)"\x28\xb5\x2f\xfd", 4),
	                 SW_COMPRESSION_ZSTD);
	ck_assert_int_eq(sw_compression_of((const uint8_t *)"\x04\x22\x4d\x18", 4),
	                 SW_COMPRESSION_LZ4);
	/* A minidump, the legacy lz4 format, a magic cut short. */
	ck_assert_int_eq(sw_compression_of((const uint8_t *)"MDMP", 4), SW_COMPRESSION_NONE);
	ck_assert_int_eq(sw_compression_of((const uint8_t *)"\x02\x21\x4c\x18", 4),
	                 SW_COMPRESSION_NONE);
	ck_assert_int_eq(sw_compression_of((const uint8_t *)"\x28\xb5\x2f", 3), SW_COMPRESSION_NONE);
	ck_assert_str_eq(sw_compression_name(SW_COMPRESSION_ZSTD), "zstd");
}
END_TEST

START_TEST(test_decompress_round_trips_each_format)
{
	enum sw_compression c = formats[_i];
	size_t n = 3 << 20; /* several input and output buffers */
	uint8_t *data = sample(n);
	size_t clen;
	uint8_t *z = compress_as(c, data, n, &clen);
	/* Read whole, in odd pieces, and with the magic already read by the
	 * caller (as formats/open.c hands it over). */
	static const size_t pieces[] = { 1 << 20, 4099 };
	for (size_t k = 0; k < 2; k++) {
		uint8_t *out;
		size_t len;
		struct sw_err err = { 0 };
		ck_assert_int_eq(decode_all(c, z, clen, k ? 6 : 0, pieces[k], &out, &len, &err), SW_OK);
		ck_assert_uint_eq(len, n);
		ck_assert(memcmp(out, data, n) == 0);
		free(out);
	}
	free(z);
	free(data);
}
END_TEST

START_TEST(test_decompress_joins_concatenated_members)
{
	/* gzip -c a b, zstd's and lz4's frames one after another, xz streams
	 * with Stream Padding between them: one byte stream, as their tools
	 * decompress it. */
	enum sw_compression c = formats[_i];
	size_t n = 300000;
	uint8_t *data = sample(n);
	size_t l1, l2;
	uint8_t *a = compress_as(c, data, 200000, &l1);
	uint8_t *b = compress_as(c, data + 200000, n - 200000, &l2);
	size_t pad = c == SW_COMPRESSION_XZ ? 8 : 0;
	uint8_t *ab = calloc(1, l1 + pad + l2);
	memcpy(ab, a, l1);
	memcpy(ab + l1 + pad, b, l2);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(decode_all(c, ab, l1 + pad + l2, 0, 65536, &out, &len, &err), SW_OK);
	ck_assert_uint_eq(len, n);
	ck_assert(memcmp(out, data, n) == 0);
	free(out);
	free(ab);
	free(a);
	free(b);
	free(data);
}
END_TEST

START_TEST(test_decompress_refuses_truncated_stream)
{
	enum sw_compression c = formats[_i];
	size_t n = 500000;
	uint8_t *data = sample(n);
	size_t clen;
	uint8_t *z = compress_as(c, data, n, &clen);
	/* Cut in the middle, and cut by the last byte alone (a trailer or end
	 * mark missing): both are an error, never a short success. */
	size_t cuts[] = { clen / 2, clen - 1 };
	for (size_t k = 0; k < 2; k++) {
		uint8_t *out;
		size_t len;
		struct sw_err err = { 0 };
		ck_assert_int_eq(decode_all(c, z, cuts[k], 0, 65536, &out, &len, &err), SW_ERR_FORMAT);
		ck_assert_msg(strstr(err.msg, "test.z: truncated ") != NULL ||
		                      strstr(err.msg, "test.z: damaged ") != NULL,
		              "%s", err.msg);
		ck_assert_ptr_nonnull(strstr(err.msg, sw_compression_name(c)));
		free(out);
	}
	free(z);
	free(data);
}
END_TEST

START_TEST(test_decompress_refuses_corrupt_stream)
{
	enum sw_compression c = formats[_i];
	size_t n = 500000;
	uint8_t *data = sample(n);
	size_t clen;
	uint8_t *z = compress_as(c, data, n, &clen);
	/* Bytes in the middle changed: the data or its checksum says so. */
	for (size_t i = clen / 2; i < clen / 2 + 16; i++)
		z[i] ^= 0x5a;
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(decode_all(c, z, clen, 0, 65536, &out, &len, &err), SW_ERR_FORMAT);
	ck_assert_msg(strncmp(err.msg, "test.z: damaged ", 16) == 0, "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(err.msg, "at compressed byte "));
	free(out);
	/* So is garbage after a complete member. */
	uint8_t *small = compress_as(c, data, 1000, &clen);
	memcpy(z, small, clen);
	memcpy(z + clen, "garbage!", 8);
	free(small);
	err = (struct sw_err){ 0 };
	ck_assert_int_ne(decode_all(c, z, clen + 8, 0, 65536, &out, &len, &err), SW_OK);
	free(out);
	free(z);
	free(data);
}
END_TEST

START_TEST(test_decompress_refuses_empty_input)
{
	/* No member at all is not a compressed file; a copied stdin that is
	 * empty is simply empty. */
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(decode_all(formats[_i], (const uint8_t *)"", 0, 0, 100, &out, &len, &err),
	                 SW_ERR_FORMAT);
	ck_assert_msg(strstr(err.msg, "test.z: empty, no ") != NULL, "%s", err.msg);
	free(out);
	err = (struct sw_err){ 0 };
	ck_assert_int_eq(decode_all(SW_COMPRESSION_NONE, (const uint8_t *)"", 0, 0, 100, &out, &len,
	                            &err),
	                 SW_OK);
	ck_assert_uint_eq(len, 0);
	free(out);
}
END_TEST

START_TEST(test_decompress_reads_an_empty_member)
{
	/* `zstd < /dev/null`: a valid stream of no bytes. */
	enum sw_compression c = formats[_i];
	size_t clen;
	uint8_t *z = compress_as(c, (const uint8_t *)"", 0, &clen);
	uint8_t *out;
	size_t len;
	struct sw_err err = { 0 };
	ck_assert_int_eq(decode_all(c, z, clen, 0, 100, &out, &len, &err), SW_OK);
	ck_assert_uint_eq(len, 0);
	free(out);
	free(z);
}
END_TEST

/* Spills c's compression of data through a decoder, with the limit max,
 * under TMPDIR set to a new folder. */
static enum sw_err_code spill(enum sw_compression c, const uint8_t *data, size_t n,
                              uint64_t max, struct sw_input *in, struct sw_err *err)
{
	char dir[] = "/tmp/test_decompress.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("TMPDIR", dir, 1);
	size_t clen;
	uint8_t *z = compress_as(c, data, n, &clen);
	int fd = file_of(z, clen, 0);
	struct sw_decoder *d = sw_decoder_new(c, fd, NULL, 0, "core.zst", err);
	enum sw_err_code rc = sw_input_spill(d, c, "core.zst", NULL, 0, max, in, err);
	sw_decoder_free(d);
	close(fd);
	free(z);
	/* The temporary has no name: the folder is empty again at once. */
	ck_assert_int_eq(rmdir(dir), 0);
	unsetenv("TMPDIR");
	return rc;
}

START_TEST(test_spill_keeps_the_limit_exactly)
{
	size_t n = 1 << 20;
	uint8_t *data = sample(n);
	struct sw_input in;
	struct sw_err err = { 0 };
	/* Exactly the limit is read... */
	ck_assert_int_eq(spill(SW_COMPRESSION_ZSTD, data, n, n, &in, &err), SW_OK);
	struct stat st;
	ck_assert_int_eq(fstat(in.fd, &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)n);
	ck_assert_int_eq(st.st_nlink, 0);
	ck_assert_int_eq(in.compression, SW_COMPRESSION_ZSTD);
	struct sw_mapped_file m;
	ck_assert_int_eq(sw_input_map("core.zst", &in, &m, &err), SW_OK);
	ck_assert(m.size == n && memcmp(m.data, data, n) == 0);
	sw_unmap_file(&m);
	sw_input_close(&in);
	ck_assert_int_eq(in.fd, -1);
	/* ... one byte more is refused, naming the file and the limit. */
	ck_assert_int_eq(spill(SW_COMPRESSION_ZSTD, data, n, n - 1, &in, &err), SW_ERR_FORMAT);
	ck_assert_int_eq(in.fd, -1);
	ck_assert_str_eq(err.msg, "core.zst: zstd-compressed, decompresses to more than 1048575 "
	                          "bytes, the limit for a snapshot read this way "
	                          "(--max-decompressed=SIZE raises it)");
	err = (struct sw_err){ 0 };
	ck_assert_int_eq(spill(SW_COMPRESSION_GZIP, data, n, 512 << 10, &in, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than 512 KiB"));
	free(data);
}
END_TEST

START_TEST(test_spill_says_when_the_temporary_cannot_be_written)
{
	/* A file size limit stands in for a full disk: the write fails
	 * (EFBIG, SIGXFSZ ignored as the CLI ignores it) and the error names
	 * the snapshot and the folder. */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, small = { 256 << 10, 0 };
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	size_t n = 1 << 20;
	uint8_t *data = sample(n);
	struct sw_input in;
	struct sw_err err = { 0 };
	enum sw_err_code rc = spill(SW_COMPRESSION_XZ, data, n, 0, &in, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	ck_assert_int_eq(rc, SW_ERR_IO);
	ck_assert_int_eq(in.fd, -1);
	ck_assert_msg(strstr(err.msg, "core.zst: cannot write a temporary file in /tmp/") &&
	                      strstr(err.msg, strerror(EFBIG)) &&
	                      strstr(err.msg, "(TMPDIR chooses another folder)"),
	              "%s", err.msg);
	free(data);
}
END_TEST

START_TEST(test_size_text_names_whole_units)
{
	char buf[32];
	sw_input_size_text(SW_INPUT_MAX_DEFAULT, buf, sizeof buf);
	ck_assert_str_eq(buf, "32 GiB");
	sw_input_size_text(3 << 20, buf, sizeof buf);
	ck_assert_str_eq(buf, "3 MiB");
	sw_input_size_text(1000, buf, sizeof buf);
	ck_assert_str_eq(buf, "1000 bytes");
}
END_TEST

/* testdata/example/test.dmp compressed as c into a file of this test. */
static void write_compressed_example(enum sw_compression c, const char *path)
{
	char dmp[4096];
	snprintf(dmp, sizeof dmp, "%s/example/test.dmp", getenv("SW_TESTDATA"));
	struct sw_mapped_file m;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_map_file(dmp, &m, &err), SW_OK);
	size_t clen;
	uint8_t *z = compress_as(c, m.data, m.size, &clen);
	FILE *f = fopen(path, "wb");
	ck_assert_uint_eq(fwrite(z, 1, clen, f), clen);
	fclose(f);
	free(z);
	sw_unmap_file(&m);
}

START_TEST(test_open_reads_a_compressed_minidump_as_the_file)
{
	char path[] = "/tmp/test_decompress_dmp.XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	write_compressed_example(formats[_i], path);
	struct sw_snapshot s, plain;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snapshot_open(path, &s, &err), SW_OK);
	char dmp[4096];
	snprintf(dmp, sizeof dmp, "%s/example/test.dmp", getenv("SW_TESTDATA"));
	ck_assert_int_eq(sw_snapshot_open(dmp, &plain, &err), SW_OK);
	/* The snapshot is the user's file, not the temporary, and reads as
	 * the file it holds. */
	ck_assert_str_eq(s.path, path);
	ck_assert_str_eq(s.format, "minidump");
	ck_assert_uint_eq(s.nthreads, plain.nthreads);
	ck_assert_uint_eq(s.nmodules, plain.nmodules);
	ck_assert_uint_eq(s.nmem, plain.nmem);
	ck_assert(s.crash.present && s.crash.code == plain.crash.code &&
	          s.crash.address == plain.crash.address);
	ck_assert_uint_eq(s.file.size, plain.file.size);
	ck_assert(memcmp(s.file.data, plain.file.data, s.file.size) == 0);
	sw_snapshot_free(&plain);
	sw_snapshot_free(&s);
	/* Over the limit: refused before any reader sees it. */
	struct sw_open_options o = { .max_decompressed = 4096 };
	err = (struct sw_err){ 0 };
	ck_assert_int_eq(sw_snapshot_open_with(path, &o, &s, &err), SW_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "decompresses to more than 4 KiB"));
	ck_assert(strncmp(err.msg, path, strlen(path)) == 0);
	sw_snapshot_free(&s);
	unlink(path);
}
END_TEST

START_TEST(test_open_refuses_compressed_non_snapshot_by_what_it_holds)
{
	char path[] = "/tmp/test_decompress_sym.XXXXXX";
	int fd = mkstemp(path);
	static const char sym[] = "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 app\n";
	size_t clen;
	uint8_t *z = compress_as(SW_COMPRESSION_XZ, (const uint8_t *)sym, sizeof sym - 1, &clen);
	ck_assert(write(fd, z, clen) == (ssize_t)clen);
	close(fd);
	struct sw_snapshot s;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_snapshot_open(path, &s, &err), SW_ERR_FORMAT);
	char want[256];
	snprintf(want, sizeof want,
	         "%s: xz-compressed: a Breakpad symbol file, not a snapshot: give it as a "
	         "SYMBOL_PATH",
	         path);
	ck_assert_str_eq(err.msg, want);
	sw_snapshot_free(&s);
	unlink(path);
	free(z);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("decompress");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_compression_told_by_magic_bytes);
	tcase_add_loop_test(tc, test_decompress_round_trips_each_format, 0, NFORMATS);
	tcase_add_loop_test(tc, test_decompress_joins_concatenated_members, 0, NFORMATS);
	tcase_add_loop_test(tc, test_decompress_refuses_truncated_stream, 0, NFORMATS);
	tcase_add_loop_test(tc, test_decompress_refuses_corrupt_stream, 0, NFORMATS);
	tcase_add_loop_test(tc, test_decompress_refuses_empty_input, 0, NFORMATS);
	tcase_add_loop_test(tc, test_decompress_reads_an_empty_member, 0, NFORMATS);
	tcase_add_test(tc, test_spill_keeps_the_limit_exactly);
	tcase_add_test(tc, test_spill_says_when_the_temporary_cannot_be_written);
	tcase_add_test(tc, test_size_text_names_whole_units);
	tcase_add_loop_test(tc, test_open_reads_a_compressed_minidump_as_the_file, 0, NFORMATS);
	tcase_add_test(tc, test_open_refuses_compressed_non_snapshot_by_what_it_holds);
	suite_add_tcase(s, tc);
	return s;
}
