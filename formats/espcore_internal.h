/* Shared between espcore.c (the image: text, header, checksum) and
 * espcore_bin.c (the 0.x task list). Not a public API. */
#ifndef SW_FORMATS_ESPCORE_INTERNAL_H
#define SW_FORMATS_ESPCORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "espcore.h"
#include "lib/snapshot.h"
#include "lib/span.h"
#include "reader.h"

struct esp_reader {
	struct sw_snapshot *snap;
	const char *path;
	uint32_t damage;          /* problems that are not warnings */
};

/* The data of a 0.x image (h: its header) as the ELF core esp-coredump
 * converts it to, built in the snapshot's arena: *elf. False when no
 * task could be read (problems recorded). */
bool esp_bin_to_elf(struct esp_reader *r, struct sw_span data, const struct sw_esp_header *h,
                    struct sw_span *elf);

#endif
