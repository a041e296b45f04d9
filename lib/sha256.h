/* SHA-256 (FIPS 180-4 §6.2), for ESP-IDF core dumps: their image's
 * checksum (header versions 1.1, 1.3, 1.4) and the firmware's identity
 * (ESP_CORE_DUMP_INFO holds a prefix of the firmware ELF file's SHA-256).
 * None of the libraries stackwalk links exports one (zlib has CRC-32 only;
 * liblzma's SHA-256 is internal), and a crypto library for two checksums
 * would be the heaviest dependency of all. */
#ifndef SW_SHA256_H
#define SW_SHA256_H

#include <stddef.h>
#include <stdint.h>

enum { SW_SHA256_SIZE = 32 };

struct sw_sha256 {
	uint32_t h[8];
	uint64_t length;          /* bytes hashed so far */
	uint8_t block[64];
	size_t used;              /* bytes waiting in block */
};

void sw_sha256_init(struct sw_sha256 *c);
void sw_sha256_update(struct sw_sha256 *c, const void *data, size_t n);
void sw_sha256_final(struct sw_sha256 *c, uint8_t digest[SW_SHA256_SIZE]);

/* The digest of [data, data + n) in one call. */
void sw_sha256(const void *data, size_t n, uint8_t digest[SW_SHA256_SIZE]);

#endif
