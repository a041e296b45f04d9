/* What the files of the ELF image (elf_image.c: headers, notes, sections;
 * elf_symtab.c: the symbol index; elf_debugdata.c: compressed sections and
 * MiniDebugInfo; elf_section_cache.c: inflated sections kept on disk)
 * share:
 * the image and its header tables, decoded once into fixed-size records of
 * the widest type so that no code below the parser asks for the class or
 * the byte order again. */
#ifndef SW_SYMBOLS_ELF_IMAGE_INTERNAL_H
#define SW_SYMBOLS_ELF_IMAGE_INTERNAL_H

#include "symbols/elf_image.h"

#include "lib/mapped_file.h"
#include "lib/span.h"

#include <sys/stat.h>

/* One program header (gABI "Program Header"), either class. */
struct elf_phdr {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
};

/* One section header (gABI "Sections"), either class. */
struct elf_shdr {
	const char *name;   /* in .shstrtab, NUL-terminated inside it; "" when unreadable */
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t addralign;
	uint64_t entsize;
};

/* A section's contents once looked at: inflated, or known to be unusable. */
struct elf_section_cache {
	bool done;
	bool ok;
	struct sw_elf_section sec;
};

/* The merged .symtab + .dynsym index (elf_symtab.c). */
struct elf_symbol_index;

struct sw_elf {
	char *name;
	struct sw_mapped_file map;  /* the mapped file, when opened by path */
	uint8_t *owned;             /* freed with the image (inflated file, debugdata) */
	struct sw_span img;         /* the ELF's bytes, clipped to image_size */
	struct sw_elf_info info;
	struct sw_arena arena;      /* header tables, names, the symbol index */

	struct elf_phdr *phdrs;
	size_t phnum;
	struct elf_shdr *shdrs;
	size_t shnum;
	struct elf_section_cache *sections;  /* shnum entries, NULL until needed */
	uint8_t **inflated;                  /* malloc'd section contents, freed with e */
	size_t n_inflated;

	bool symbols_built;
	struct elf_symbol_index *symbols;

	bool debugdata_tried;
	struct sw_elf *debugdata;

	/* The inflated-section cache (elf_section_cache.c): the file's real
	 * path and identity when opened by path, the cache directory once
	 * set, and the cache files mapped for sections. */
	char *src_path;
	struct stat src_st;
	char *section_cache_dir;
	struct elf_cached_map {
		void *p;
		size_t n;
	} *cached_maps;
	size_t n_cached_maps;

	Elf *libelf;
};

/* The window [off, off + size) of the image, false when it does not fit. */
bool elf_image_window(const struct sw_elf *e, uint64_t off, uint64_t size,
                      struct sw_span *out);
/* The section at index i, inflated when compressed (as sw_elf_section). */
bool elf_section_at(struct sw_elf *e, size_t i, struct sw_elf_section *out);
/* The contents of a SHF_COMPRESSED section (raw: its bytes, Chdr first)
 * or of a .zdebug_* one, inflated into a buffer e keeps; *out's data, size
 * and flags updated. False when damaged, not zlib, or absurdly large. */
bool elf_inflate_compressed(struct sw_elf *e, struct sw_span raw, struct sw_elf_section *out);
bool elf_inflate_zdebug(struct sw_elf *e, struct sw_span raw, struct sw_elf_section *out);
/* The smallest inflated section worth a cache file. */
enum { SECTION_CACHE_MIN = 64 * 1024 };
/* Section sh from its inflated copy in the cache, checked (*out's data,
 * size, flags and cached updated); false when there is none usable. */
bool elf_section_from_cache(struct sw_elf *e, const struct elf_shdr *sh,
                            struct sw_elf_section *out);
/* Writes the inflated section sec of sh to the cache (best effort). */
void elf_section_to_cache(struct sw_elf *e, const struct elf_shdr *sh,
                          const struct sw_elf_section *sec);
/* Unmaps the cache files, frees the cache's strings. */
void elf_section_cache_free(struct sw_elf *e);
/* Frees the MiniDebugInfo image. */
void elf_debugdata_free(struct sw_elf *e);
/* Frees the symbol index. */
void elf_symbol_index_free(struct elf_symbol_index *x);

#endif
