/* One ELF image, read with libelf: the file header, the notes that name it
 * (GNU build-id, .gnu_debuglink, DT_SONAME), its loadable segments, its
 * sections (decompressed when SHF_COMPRESSED), its symbols (.symtab and
 * .dynsym), its MiniDebugInfo (.gnu_debugdata, an xz-compressed ELF), and
 * its code bytes by virtual address.
 *
 * An image is opened over bytes that outlive it: a mapped file (at the
 * offset where the ELF starts, for a library stored in an APK), memory
 * read from a snapshot, or an inflated buffer the image owns. Everything
 * read from the image is bounds-checked: a hostile file yields an error or
 * less information, never a read outside its bytes, and nothing is
 * allocated for a count before the bytes that would hold it are known to
 * exist. */
#ifndef SW_SYMBOLS_ELF_IMAGE_H
#define SW_SYMBOLS_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "lib/arena.h"
#include "lib/sw_err.h"

struct sw_elf;

/* Maps `path` and opens the ELF that starts at file offset `offset` (0 for
 * a plain file). The error names the file. */
struct sw_elf *sw_elf_open_file(const char *path, uint64_t offset, struct sw_err *err);

/* Keeps the sections this image inflates (SHF_COMPRESSED, .zdebug_*) in
 * the symbol cache directory dir and reads them from there on later opens
 * of the same file (symbols/elf_section_cache.c, docs/symbol-cache.md).
 * Only for images opened by path; false otherwise, or out of memory. */
bool sw_elf_set_section_cache(struct sw_elf *e, const char *dir);
/* Opens the ELF in [data, data + size). owned: the image frees data (with
 * free()) when it is freed, and so does a failed open. `name` is for
 * messages. */
struct sw_elf *sw_elf_open_bytes(const uint8_t *data, size_t size, bool owned,
                                 const char *name, struct sw_err *err);
void sw_elf_free(struct sw_elf *e);

struct sw_elf_info {
	uint8_t word_size;          /* 4 (ELFCLASS32) or 8 */
	bool big_endian;
	uint16_t machine;           /* e_machine: EM_ARM, EM_AARCH64, ... */
	uint16_t type;              /* e_type: ET_EXEC, ET_DYN, ET_CORE, ... */
	uint64_t entry;             /* e_entry */
	const uint8_t *build_id;    /* NT_GNU_BUILD_ID's descriptor, or NULL */
	size_t build_id_len;
	const char *soname;         /* DT_SONAME, or NULL */
	const char *debuglink;      /* .gnu_debuglink's file name, or NULL */
	uint32_t debuglink_crc;     /* its CRC32 of the debug file */
	/* p_vaddr - p_offset of the first loadable segment: the virtual
	 * address of the file's byte 0 once loaded (0 for most shared
	 * libraries, 0x400000 for a classic x86-64 executable). A module's
	 * offset (address - module base) plus this is the ELF address. */
	uint64_t file_vaddr;
	/* p_vaddr of the first loadable segment, whatever its file offset:
	 * what Breakpad's dump_syms takes for the load address and subtracts
	 * from every address of a .sym (dump_symbols.cc GetLoadingAddress).
	 * A .sym address + first_load_vaddr - file_vaddr is a module offset. */
	uint64_t first_load_vaddr;
	/* p_vaddr - p_offset of the first executable loadable segment
	 * (libunwindstack's "load bias"): differs from file_vaddr when the
	 * linker gave segments different biases (lld, Android). */
	uint64_t exec_load_bias;
	bool has_exec_segment;
	/* Bytes from the image's start to the end of the furthest section,
	 * program or section header table, or loadable segment: how long an
	 * ELF embedded in a larger file is. */
	uint64_t image_size;
	bool has_debug_info;        /* a .debug_info section */
	bool has_symtab;            /* a .symtab section (else only .dynsym) */
};

const struct sw_elf_info *sw_elf_info(const struct sw_elf *e);
const char *sw_elf_name(const struct sw_elf *e);

struct sw_elf_section {
	const uint8_t *data;        /* the contents, inflated if compressed */
	uint64_t size;
	uint64_t addr;              /* sh_addr */
	uint64_t offset;            /* sh_offset in the image */
	uint32_t type;              /* sh_type */
	uint64_t flags;             /* sh_flags (SHF_COMPRESSED cleared once inflated) */
	bool cached;                /* inflated earlier: read from the symbol cache's copy */
};

/* The section called `name` (".eh_frame", ".debug_frame", ...), inflated
 * when SHF_COMPRESSED (zlib; a compressed section whose inflated size is
 * absurd for the file is refused). The data lives as long as the image.
 * False when absent, SHT_NOBITS, or unreadable. */
bool sw_elf_section(struct sw_elf *e, const char *name, struct sw_elf_section *out);

/* The ELF symbol covering `vaddr`: among .symtab and .dynsym functions
 * (STT_FUNC, STT_GNU_IFUNC; on ARM the Thumb bit cleared), the one whose
 * [value, value + size) holds vaddr; else the nearest lower one of size 0
 * (extent unknown, up to the next symbol). `name` is the raw (mangled)
 * name, read from the file into a buffer of the image: valid until the
 * next sw_elf_symbol_at on it. Built into a sorted array on first use
 * (one per image). */
struct sw_elf_symbol {
	const char *name;
	uint64_t addr;
	uint64_t size;              /* 0: extent unknown */
};
bool sw_elf_symbol_at(struct sw_elf *e, uint64_t vaddr, struct sw_elf_symbol *out);
/* Whether sw_elf_symbol_at finds one, without reading its name. */
bool sw_elf_has_symbol_at(struct sw_elf *e, uint64_t vaddr);
/* How far vaddr lies into the function s (the "+OFF" of a frame): vaddr -
 * addr, except on EM_ARM, where a Thumb pc carries the Thumb bit that the
 * instruction's address does not: (vaddr & ~1) - addr, as libunwindstack
 * prints it (abort+64 for pc 0x1a9f8 and ioctl+30 for pc 0x2140f, both
 * Thumb functions, in its straddle_arm and debug_frame_load_bias_arm
 * outputs). */
uint64_t sw_elf_symbol_offset(const struct sw_elf *e, const struct sw_elf_symbol *s,
                              uint64_t vaddr);

/* Copies n bytes at virtual address vaddr from the file-backed part of a
 * loadable segment that is not writable (code and read-only data: what the
 * process held unchanged). False when any byte is outside such a part. */
bool sw_elf_read(struct sw_elf *e, uint64_t vaddr, void *out, size_t n);
/* Is vaddr inside an executable PT_LOAD (p_flags PF_X, up to p_memsz)?
 * *known: the file has an executable segment to go by. */
bool sw_elf_in_code_segment(const struct sw_elf *e, uint64_t vaddr, bool *known);
/* The start of the allocated executable section (SHF_ALLOC |
 * SHF_EXECINSTR) holding vaddr, by the section headers (a stripped file
 * keeps them; a debug file's NOBITS copies hold the same addresses). */
bool sw_elf_code_section_start(const struct sw_elf *e, uint64_t vaddr, uint64_t *start);

/* The MiniDebugInfo image (.gnu_debugdata, xz: liblzma), inflated on first
 * use and owned by e; NULL when absent or unreadable. */
struct sw_elf *sw_elf_debugdata(struct sw_elf *e);

struct sw_mapped_file;
/* The file the image was mapped from (its bytes read in place), NULL when
 * it lives in memory (inflated, read from a snapshot). */
const struct sw_mapped_file *sw_elf_mapped_file(const struct sw_elf *e);

/* The libelf handle. */
Elf *sw_elf_libelf(struct sw_elf *e);

/* The demangled form of an ELF symbol name (Itanium C++ ABI, Rust legacy
 * and v0: libiberty's cplus_demangle), in arena a; the name itself when it
 * is not mangled; NULL only when out of memory. */
const char *sw_demangle(const char *name, struct sw_arena *a);

/* The CRC32 .gnu_debuglink uses (zlib's crc32) of a file's contents. */
bool sw_elf_file_crc32(const char *path, uint32_t *crc);

#endif
