/* Compressed ELF sections kept inflated in the symbol cache directory
 * (docs/symbol-cache.md, "ELF files"): a walk with Debian's debug files
 * (zlib-compressed DWARF) spent half of its time inflating them, every
 * time. The first walk writes each section it inflates (of at least
 * SECTION_CACHE_MIN bytes) to
 *
 *   DIR/elf-sections/<FNV-1a 64 of the file's real path>-<image offset>-<sh_offset>.swsec
 *
 * (a 4 KiB header, then the inflated bytes), through a temporary file and
 * a rename; later walks map it instead of inflating. Nothing is used
 * before it is checked: the header's magic, version and CRC-32, the
 * source's identity (size, mtime, ctime, inode, device, as it was when
 * the image was opened), the section's place and compressed size, the
 * file's length, and the CRC-32 of the inflated bytes (libdeflate's, a
 * few milliseconds for megabytes). A file that fails any check is
 * inflated again and rewritten. */
#include "symbols/elf_image_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fnv.h"
#include "symbols/cache_prune.h"
#include "lib/mapped_file.h"

#define SECTION_MAGIC "SWSECT1\n"
enum {
	SECTION_VERSION = 1,
	SECTION_DATA_AT = 4096,          /* the inflated bytes, page-aligned for mmap */
};

/* All fields host-endian: another byte order reads as a bad magic or CRC,
 * and the section is inflated again. */
struct section_header {
	char magic[8];
	uint32_t version, header_size;
	uint64_t src_size, src_ino, src_dev;
	int64_t src_mtime_ns, src_ctime_ns;
	uint64_t image_offset;           /* where the ELF starts in its file */
	uint64_t sh_offset, sh_size;     /* the compressed section */
	uint64_t data_size;
	uint32_t data_crc;
	uint32_t header_crc;             /* of every byte before it */
};

static int64_t ns_of(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The header the section at sh, inflated to data_size bytes, has in the
 * cache (data_crc left 0). */
static void header_of(const struct sw_elf *e, const struct elf_shdr *sh, uint64_t data_size,
                      struct section_header *h)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, SECTION_MAGIC, 8);
	h->version = SECTION_VERSION;
	h->header_size = sizeof *h;
	h->src_size = (uint64_t)e->src_st.st_size;
	h->src_ino = (uint64_t)e->src_st.st_ino;
	h->src_dev = (uint64_t)e->src_st.st_dev;
	h->src_mtime_ns = ns_of(e->src_st.st_mtim);
	h->src_ctime_ns = ns_of(e->src_st.st_ctim);
	h->image_offset = e->img.off;
	h->sh_offset = sh->offset;
	h->sh_size = sh->size;
	h->data_size = data_size;
}

static uint32_t header_crc(const struct section_header *h)
{
	return (uint32_t)libdeflate_crc32(0, h, offsetof(struct section_header, header_crc));
}

/* The cache file of the section at sh into path (false: no cache, or
 * no name for it). */
static bool section_path(const struct sw_elf *e, const struct elf_shdr *sh, char *path,
                         size_t n, bool dir_only)
{
	if (!e->section_cache_dir || !e->src_path)
		return false;
	int w = dir_only
	        ? snprintf(path, n, "%s/elf-sections", e->section_cache_dir)
	        : snprintf(path, n, "%s/elf-sections/%016llx-%llx-%llx.swsec", e->section_cache_dir,
	                   (unsigned long long)sw_fnv1a64(e->src_path),
	                   (unsigned long long)e->img.off, (unsigned long long)sh->offset);
	return w > 0 && (size_t)w < n;
}

static bool keep_mapping(struct sw_elf *e, void *p, size_t n)
{
	struct elf_cached_map *v = realloc(e->cached_maps, (e->n_cached_maps + 1) * sizeof *v);
	if (!v)
		return false;
	e->cached_maps = v;
	v[e->n_cached_maps++] = (struct elf_cached_map){ p, n };
	return true;
}

bool elf_section_from_cache(struct sw_elf *e, const struct elf_shdr *sh,
                            struct sw_elf_section *out)
{
	char path[4096];
	if (!section_path(e, sh, path, sizeof path, false))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct section_header h, want;
	struct stat st;
	bool ok = pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h && fstat(fd, &st) == 0;
	if (ok) {
		header_of(e, sh, h.data_size, &want);
		ok = memcmp(&h, &want, offsetof(struct section_header, data_crc)) == 0 &&
		     h.header_crc == header_crc(&h) && h.data_size > 0 &&
		     h.data_size <= (uint64_t)st.st_size &&
		     (uint64_t)st.st_size - SECTION_DATA_AT == h.data_size;
	}
	void *map = MAP_FAILED;
	if (ok)
		map = mmap(NULL, (size_t)h.data_size, PROT_READ, MAP_PRIVATE, fd, SECTION_DATA_AT);
	if (map != MAP_FAILED)
		sw_cache_touch(fd, &st); /* a use, for the pruner (cache_prune.h) */
	close(fd);
	if (map == MAP_FAILED)
		return false;
	if ((uint32_t)libdeflate_crc32(0, map, (size_t)h.data_size) != h.data_crc ||
	    !keep_mapping(e, map, (size_t)h.data_size)) {
		munmap(map, (size_t)h.data_size);
		return false;
	}
	out->data = map;
	out->size = h.data_size;
	out->flags &= ~(uint64_t)SHF_COMPRESSED;
	out->cached = true;
	return true;
}


void elf_section_to_cache(struct sw_elf *e, const struct elf_shdr *sh,
                          const struct sw_elf_section *sec)
{
	static atomic_uint serial;
	char dir[4096], path[4096], tmp[4096 + 64];
	if (sec->size < SECTION_CACHE_MIN || !section_path(e, sh, dir, sizeof dir, true) ||
	    !section_path(e, sh, path, sizeof path, false))
		return;
	if (!sw_make_dirs(dir))
		return;
	/* Writers killed mid-write leave *.swsec.tmp.* files: swept once a
	 * process, the folder being flat (and maybe large). */
	static atomic_bool swept;
	if (!atomic_exchange(&swept, true))
		sw_remove_stale_files(dir, ".swsec.tmp.", 3600);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
	         atomic_fetch_add(&serial, 1));
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	struct section_header h;
	header_of(e, sh, sec->size, &h);
	h.data_crc = (uint32_t)libdeflate_crc32(0, sec->data, (size_t)sec->size);
	h.header_crc = header_crc(&h);
	bool ok = sw_pwrite_all(fd, &h, sizeof h, 0) &&
	          sw_pwrite_all(fd, sec->data, sec->size, SECTION_DATA_AT);
	if (close(fd) != 0)
		ok = false;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
}

void elf_section_cache_free(struct sw_elf *e)
{
	for (size_t i = 0; i < e->n_cached_maps; i++)
		munmap(e->cached_maps[i].p, e->cached_maps[i].n);
	free(e->cached_maps);
	free(e->section_cache_dir);
	free(e->src_path);
}

bool sw_elf_set_section_cache(struct sw_elf *e, const char *dir)
{
	if (!e || !dir || !e->src_path || e->section_cache_dir)
		return false;
	e->section_cache_dir = strdup(dir);
	return e->section_cache_dir != NULL;
}
