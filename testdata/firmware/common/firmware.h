/* What both crash firmwares share: the two C library functions the .snap
 * writer needs, the GNU build-id note, and sending a capture to the host
 * as crash.snap by semihosting (its operations are the same on ARM and
 * RISC-V: "Semihosting for AArch32 and AArch64" v2, RISC-V Semihosting
 * v0.2). A fw.c includes it after defining, for its CPU,
 *     static int semihost(int op, const void *arg);
 * and the linker script defines __build_id_note. */
#ifndef FW_FIRMWARE_H
#define FW_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

#include "snap_writer.h"

enum { SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITE = 0x05, SYS_EXIT = 0x18 };

extern const uint8_t __build_id_note[];

/* The writer needs memcpy, and GCC may call memset for a zeroed array;
 * nothing else of a C library is linked. */
void *memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}

static void semihost_exit(void)
{
	/* ADP_Stopped_ApplicationExit: qemu exits with status 0. */
	semihost(SYS_EXIT, (const void *)0x20026);
	for (;;)
		;
}

/* The GNU build-id note the linker put in the image (ELF note: namesz,
 * descsz, type, "GNU\0", the id). */
static const uint8_t *build_id(size_t *len)
{
	const uint32_t *n = (const uint32_t *)__build_id_note;
	*len = n[1];
	return __build_id_note + 12 + ((n[0] + 3) & ~3u);
}

/* The semihosting file (bss: the firmware keeps no initialized data). */
static int fd;

static int send(void *ctx, const void *bytes, size_t n)
{
	(void)ctx;
	uint32_t args[3] = { (uint32_t)fd, (uint32_t)bytes, (uint32_t)n };
	return semihost(SYS_WRITE, args) == 0 ? 0 : -1;
}

/* Streams capture's records into crash.snap on the host, then ends the
 * emulation. */
static void send_capture(void (*capture)(struct snap_writer *w))
{
	static const char name[] = "crash.snap";
	uint32_t open_args[3] = { (uint32_t)name, 5 /* "wb" */, sizeof name - 1 };
	fd = semihost(SYS_OPEN, open_args);
	if (fd >= 0) {
		struct snap_writer w;
		snap_init_stream(&w, send, NULL);
		capture(&w);
		uint32_t close_args[1] = { (uint32_t)fd };
		semihost(SYS_CLOSE, close_args);
	}
	semihost_exit();
}

#endif
