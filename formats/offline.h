/* The offline snapshot reader: a folder holding what Android's
 * libunwindstack and simpleperf capture of a thread to unwind it later
 * (libunwindstack/offline_files/, docs/offline-format.md):
 *
 *   regs.txt             one register per line, "NAME: HEX"
 *   maps.txt             the process's /proc/PID/maps
 *   stack.data, stackN.data (and descriptor/entry/jit N .data)
 *                        memory: a little-endian u64 start address, then
 *                        the bytes from that address on
 *   NAME, NAME.gz        the ELF files maps.txt names, relative to the
 *                        folder (or absolute paths that exist)
 *
 * One thread (id 0) with the registers; the CPU is told by the register
 * names and checked against the ELF holding the pc.
 *
 * A debug probe's capture (OpenOCD, pyOCD, J-Link) is the same folder
 * without maps.txt: regs.txt and raw memory files mem-HEX.bin (the bytes
 * from address HEX on); the firmware ELF is a *.elf in the folder or an
 * ELF executable given as a symbol path (formats/offline_probe.c). */
#ifndef SW_FORMATS_OFFLINE_H
#define SW_FORMATS_OFFLINE_H

#include <stdbool.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"
#include "open.h"

/* Is dir a directory holding regs.txt and maps.txt, or regs.txt and a
 * mem-*.bin file (a probe's capture)? */
bool sw_offline_is_folder(const char *dir);

/* Reads the offline snapshot in folder dir into *out (initialised by the
 * reader; out->format "offline"). Returns SW_OK; SW_ERR_CORRUPT (what is
 * intact is in *out, problems in out->problems, each naming its file and
 * line; *err names the folder and the first one); SW_ERR_IO (the folder
 * cannot be read) or SW_ERR_FORMAT (no regs.txt, or neither
 * maps.txt nor a mem-*.bin file in it). */
enum sw_err_code sw_offline_read(const char *dir, struct sw_snapshot *out, struct sw_err *err);
/* The same with the open options: a probe's capture takes its firmware
 * ELF from opts' search paths (NULL: none). */
enum sw_err_code sw_offline_read_with(const char *dir, const struct sw_open_options *opts,
                                      struct sw_snapshot *out, struct sw_err *err);

#endif
