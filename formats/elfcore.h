/* The ELF core reader: the core files Linux writes (the kernel's
 * fs/binfmt_elf.c, systemd-coredump, gdb's gcore, qemu-user) and NetBSD's
 * (sys/kern/core_elf32.c), in both classes and byte orders:
 *
 *   PT_LOAD    the process's memory (p_filesz bytes of it; the rest of
 *              p_memsz was not dumped and reads as absent, not as zeros)
 *   PT_NOTE    "CORE"/"LINUX" notes: NT_PRSTATUS per thread (its id, its
 *              signal, its general registers), NT_PRPSINFO (the process),
 *              NT_SIGINFO (the crash), NT_AUXV, NT_FILE (the mapped files),
 *              NT_ARM_PAC_MASK; "NetBSD-CORE" and "NetBSD-CORE@LWP" notes
 *              (the process, then each LWP's registers)
 *
 * Modules come from NT_FILE; without it (qemu-user cores, gdb cores) from
 * the dynamic loader's link_map chain found through the auxiliary vector
 * (see elfcore_modules.c), or from a /proc/PID/maps file. The vDSO is read
 * from the core's own memory.
 *
 * An ESP-IDF core (ESP_* notes: a FreeRTOS firmware's task list, see
 * elfcore_esp.c) has tasks for threads, its panic for the crash, and the
 * firmware ELF from the symbol paths for its module. */
#ifndef SW_FORMATS_ELFCORE_H
#define SW_FORMATS_ELFCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot.h"
#include "lib/span.h"
#include "lib/sw_err.h"

struct sw_open_options;

/* The content check: an ELF file header of type ET_CORE. */
bool sw_elfcore_is(const uint8_t *data, size_t size);

/* Reads the core at path into *out (initialised by the reader; out->format
 * "elfcore"). opts (may be NULL) names where the executable and libraries
 * may be found (needed only when the core has no NT_FILE) and a maps file.
 * Returns SW_OK; SW_ERR_CORRUPT (what is intact is in *out, problems in
 * out->problems; *err names the file and the first one); SW_ERR_IO or
 * SW_ERR_FORMAT when nothing could be read. */
enum sw_err_code sw_elfcore_read(const char *path, const struct sw_open_options *opts,
                                 struct sw_snapshot *out, struct sw_err *err);

/* What the container of an ELF core says about it: an ESP-IDF core dump
 * image (formats/espcore.h) holds one after its header. */
struct sw_elfcore_outer {
	const char *what;         /* the input's kind in messages: "ESP-IDF core dump" */
	uint32_t damage;          /* problems already in out->problems that are not warnings */
	bool has_esp_version;     /* the image header's ver (chip id, dump version) */
	uint32_t esp_version;
	bool has_chip_rev;        /* the header's chip_rev */
	uint32_t chip_rev;
};

/* The ESP chip named by id ("ESP32-C3"), or NULL when unknown: the chip
 * id of the image header's and ESP_CORE_DUMP_INFO's ver (elfcore_esp.c). */
const char *sw_esp_chip_name(uint16_t chip);

/* Reads the ELF core in `core`, bytes that live as long as *out (a part
 * of out->file, or of out->arena), the snapshot already initialised by
 * the caller (format, file). Returns as sw_elfcore_read; the message of
 * *err names path and outer->what. */
enum sw_err_code sw_elfcore_read_image(const char *path, const struct sw_open_options *opts,
                                       struct sw_span core, const struct sw_elfcore_outer *outer,
                                       struct sw_snapshot *out, struct sw_err *err);

#endif
