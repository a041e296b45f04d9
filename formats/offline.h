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
 * names and checked against the ELF holding the pc. */
#ifndef SW_FORMATS_OFFLINE_H
#define SW_FORMATS_OFFLINE_H

#include <stdbool.h>

#include "lib/snapshot.h"
#include "lib/sw_err.h"

/* Is dir a directory holding regs.txt and maps.txt? */
bool sw_offline_is_folder(const char *dir);

/* Reads the offline snapshot in folder dir into *out (initialised by the
 * reader; out->format "offline"). Returns SW_OK; SW_ERR_CORRUPT (what is
 * intact is in *out, problems in out->problems, each naming its file and
 * line; *err names the folder and the first one); SW_ERR_IO (the folder
 * cannot be read) or SW_ERR_FORMAT (no regs.txt or maps.txt in it). */
enum sw_err_code sw_offline_read(const char *dir, struct sw_snapshot *out, struct sw_err *err);

#endif
