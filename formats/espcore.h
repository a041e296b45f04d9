/* ESP-IDF core dumps: the image an ESP32 writes to its core dump flash
 * partition or prints on its console (components/espcoredump; decoded by
 * espressif/esp-coredump's corefile/loader.py, the spec followed here):
 *
 *   image  = header | data | checksum, integers little-endian
 *   header = tot_len, ver (chip id << 16 | dump version major << 8 | minor),
 *            then per version task_num, tcbsz, segs_num, chip_rev
 *   data   = 1.x: a 32-bit ELF core (one NT_PRSTATUS per FreeRTOS task,
 *            PT_LOADs for each task's TCB and stack, ESP notes), read by
 *            the ELF core reader;
 *            0.x: the tasks as {tcb_addr, stack_top, stack_end, TCB,
 *            stack} records, then memory segments, converted here into
 *            the ELF core esp-coredump would make of them
 *   checksum = CRC-32 (zlib's) or SHA-256 over header | data
 *
 * An image is taken as it comes: raw (a partition read from flash, its
 * erased 0xFF tail after tot_len ignored), or as the base64 text the
 * panic handler prints on the console, each line encoded on its own,
 * between "CORE DUMP START" and "CORE DUMP END" lines or without them,
 * amid other console lines. The bare ELF core (what esp-coredump's
 * --save-core writes) is an ELF core file and read as one. */
#ifndef SW_FORMATS_ESPCORE_H
#define SW_FORMATS_ESPCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"
#include "lib/sw_err.h"

struct sw_open_options;

/* Dump versions (loader.py's names), the low 16 bits of `ver`. */
enum sw_esp_dump_version {
	SW_ESP_BIN_V1 = 0x0001,          /* tot_len ver task_num tcbsz; CRC-32 */
	SW_ESP_BIN_V2 = 0x0002,          /* + segs_num */
	SW_ESP_BIN_V2_1 = 0x0003,        /* + segs_num chip_rev */
	SW_ESP_ELF_CRC32_V2 = 0x0100,    /* tot_len ver task_num tcbsz segs_num */
	SW_ESP_ELF_SHA256_V2 = 0x0101,   /* the same, SHA-256 */
	SW_ESP_ELF_CRC32_V2_1 = 0x0102,  /* + chip_rev */
	SW_ESP_ELF_SHA256_V2_1 = 0x0103, /* + chip_rev, SHA-256 */
	SW_ESP_ELF_SHA256_V2_2 = 0x0104, /* tot_len ver chip_rev; SHA-256 */
};

struct sw_esp_header {
	uint32_t tot_len;         /* the whole image, header and checksum included */
	uint32_t ver;             /* as stored */
	uint16_t chip;            /* ver >> 16: 5 ESP32-C3, 13 ESP32-C6, ... */
	uint16_t dump_version;    /* ver & 0xffff */
	uint32_t task_num, tcbsz, segs_num, chip_rev;
	bool has_segs_num, has_chip_rev;
	uint32_t header_size;     /* 12, 16, 20 or 24 */
	uint32_t checksum_size;   /* 4 (CRC-32) or 32 (SHA-256) */
	bool elf;                 /* 1.x: data is an ELF core */
};

enum sw_esp_header_status {
	SW_ESP_HEADER_NONE = 0,   /* not an ESP-IDF image header */
	SW_ESP_HEADER_OK,
	/* An ESP chip's image of a dump version this reader does not know. */
	SW_ESP_HEADER_UNKNOWN_VERSION,
};

/* Parses an image header at the start of s (the image's first bytes).
 * NONE unless the dump version and the chip id (sw_esp_chip_name) are known
 * (UNKNOWN_VERSION: a known chip id and a 0.x/1.x major with another
 * minor). tot_len is not judged here. */
enum sw_esp_header_status sw_esp_header_parse(struct sw_span s, struct sw_esp_header *h);

/* Base64 console text: the image's bytes, decoded line by line (RFC 4648
 * §4 alphabet; a quantum may straddle lines, '=' ends one). The text's
 * lines between a "CORE DUMP START" line and a "CORE DUMP END" line are
 * the image; without such lines, the first run of base64 lines (blank
 * lines inside it allowed) that decodes to an image header. At most cap
 * bytes are written to out; *len receives how many. *first_line the
 * 1-based line where the image starts (0: none found). Returns false when
 * no run of base64 lines starts an image. */
bool sw_esp_b64_decode(struct sw_span text, uint8_t *out, size_t cap, size_t *len,
                       uint64_t *first_line);

/* The content check on a file's first bytes: a raw image header of a
 * known version, or base64 text whose decoded start is an ESP image
 * header. */
bool sw_espcore_is(const uint8_t *data, size_t size);
/* The same check over a whole text file: a console log whose dump starts
 * past the first bytes the content check sees (a boot log before it). */
bool sw_espcore_text_holds_dump(const char *path, const struct sw_open_options *opts);

/* Reads the image at path into *out (out->format "espcore"): decodes it,
 * checks the header and the checksum, and reads the ELF core it holds
 * (opts as for sw_elfcore_read: the symbol paths, where the firmware ELF
 * is looked for). Returns SW_OK; SW_ERR_CORRUPT (a checksum mismatch, a
 * truncated image: what is intact is in *out, the problems in
 * out->problems; *err names the file and the first one); SW_ERR_IO,
 * SW_ERR_FORMAT or SW_ERR_UNSUPPORTED (an unknown dump version) when
 * nothing could be read. */
enum sw_err_code sw_espcore_read(const char *path, const struct sw_open_options *opts,
                                 struct sw_snapshot *out, struct sw_err *err);

#endif
