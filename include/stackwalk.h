/* libstackwalk: stackwalk's post-mortem stack walker as a library.
 *
 *     stackwalk_options *opt = stackwalk_options_new();
 *     stackwalk_options_add_symbol_path(opt, "symbols");
 *     stackwalk_snapshot *snap;
 *     if (stackwalk_snapshot_open("crash.dmp", opt, &snap) > STACKWALK_DAMAGED)
 *         fprintf(stderr, "%s\n", stackwalk_errmsg());   // nothing to walk
 *     stackwalk_result *res;
 *     stackwalk_walk(snap, opt, STACKWALK_WALK_CRASHING_ONLY, &res);
 *     ... stackwalk_result_crashing_thread(res), stackwalk_thread_frame(t, i),
 *         stackwalk_result_crash_reason(res, STACKWALK_WORDING_TEXT),
 *         stackwalk_result_module(res, i), stackwalk_module_name(m) ...
 *     stackwalk_result_free(res); stackwalk_options_free(opt);
 *     stackwalk_snapshot_close(snap);
 *
 * Every name is prefixed stackwalk_ (types, functions) or STACKWALK_
 * (constants): the library's own code uses sw_ and SW_ everywhere, and the
 * shared library exports exactly the stackwalk_* names (its version
 * script), so a name of this header can never meet an internal one.
 *
 * ABI: every type is opaque (a handle from a function of this header,
 * freed by another); options are set one by one through setters, so a
 * later option (a cache directory, ...) is a new function, never a change
 * of a struct's layout. Enum values are never renumbered; new ones are
 * added at the end. The shared library's SONAME is libstackwalk.so.0.
 *
 * Errors: a function that can fail returns an enum stackwalk_status;
 * STACKWALK_OK is 0. stackwalk_errmsg() then gives the one-line message
 * of the calling thread's last failure, naming the file and the problem.
 *
 * Threads: the library has no global state. Handles are not locked: use
 * each snapshot, options and result handle (and the threads and frames of
 * a result) from one thread at a time; different handles may be used in
 * different threads at once, also for the same file. One exception: once
 * set up, an options handle may be passed to stackwalk_walk in several
 * threads at once (it only reads it), so walks share its symbol cache and
 * symbol servers; no setter may be called meanwhile.
 *
 * Lifetimes: a result refers to its snapshot (free the result first);
 * strings returned by a handle's accessors live as long as the handle. */
#ifndef STACKWALK_H
#define STACKWALK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stackwalk_version.h" /* STACKWALK_VERSION, _MAJOR, _MINOR, _PATCH */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(STACKWALK_BUILDING) && defined(__GNUC__)
#define STACKWALK_API __attribute__((visibility("default")))
#else
#define STACKWALK_API
#endif

typedef struct stackwalk_snapshot stackwalk_snapshot;
typedef struct stackwalk_options stackwalk_options;
typedef struct stackwalk_result stackwalk_result;
typedef struct stackwalk_thread stackwalk_thread;
typedef struct stackwalk_frame stackwalk_frame;

/* The CLI maps them to its exit statuses (docs/cli.md): DAMAGED to 1,
 * EINVAL to 2, EIO, EFORMAT and EUNSUPPORTED to 3, ENOMEM to 4. DAMAGED
 * still gives a handle, with what was intact. */
enum stackwalk_status {
	STACKWALK_OK = 0,
	STACKWALK_DAMAGED = 1,     /* read, but part of the input was damaged */
	STACKWALK_EINVAL = 2,      /* a bad argument (NULL handle, bad value) */
	STACKWALK_EIO = 3,         /* cannot open or read the file */
	STACKWALK_EFORMAT = 4,     /* not a snapshot stackwalk reads */
	STACKWALK_EUNSUPPORTED = 5,/* a valid input it cannot handle (a CPU, ...) */
	STACKWALK_ENOMEM = 6,      /* out of memory */
	STACKWALK_ENOENT = 7,      /* nothing there (no next microdump) */
};

/* "ok", "damaged", "invalid argument", ... */
STACKWALK_API const char *stackwalk_status_name(enum stackwalk_status status);
/* The message of the calling thread's last failed call ("" if none):
 * valid until the thread's next call into the library. */
STACKWALK_API const char *stackwalk_errmsg(void);
/* The library's version, "MAJOR.MINOR.PATCH": STACKWALK_VERSION of the
 * header it was built with (a program may compare it with the
 * STACKWALK_VERSION it was compiled with). */
STACKWALK_API const char *stackwalk_version(void);

/* Snapshots: a minidump, ELF core, ESP-IDF core dump, microdump log,
 * offline capture folder or .snap file, chosen by its contents, also
 * compressed with gzip, xz, zstd or lz4 (systemd-coredump's core.*.zst):
 * then decompressed into an unnamed temporary file under $TMPDIR (at most
 * stackwalk_options_set_max_decompressed's bytes), which the handle holds
 * until it is closed. opt (may be NULL) lends its symbol paths and maps
 * file to an ELF core that does not name its modules. On OK and DAMAGED *out is a handle (DAMAGED: what
 * was intact, the problems in stackwalk_snapshot_problem); otherwise *out
 * is NULL. */
STACKWALK_API enum stackwalk_status stackwalk_snapshot_open(const char *path,
                                                            const stackwalk_options *opt,
                                                            stackwalk_snapshot **out);
/* A log holding several microdumps opens as its first; this opens the one
 * after snap in the same file (ENOENT: snap is the last). */
STACKWALK_API enum stackwalk_status stackwalk_snapshot_open_next(const stackwalk_snapshot *snap,
                                                                 stackwalk_snapshot **out);
STACKWALK_API void stackwalk_snapshot_close(stackwalk_snapshot *snap);
/* "minidump", "elf core", ...; the CPU ("amd64", "arm64", ...). */
STACKWALK_API const char *stackwalk_snapshot_format(const stackwalk_snapshot *snap);
STACKWALK_API const char *stackwalk_snapshot_cpu(const stackwalk_snapshot *snap);
/* What could not be read, one line each: three of each kind (the same
 * text but for its numbers), 100 in all, then one line counting the
 * rest. */
STACKWALK_API size_t stackwalk_snapshot_problem_count(const stackwalk_snapshot *snap);
STACKWALK_API const char *stackwalk_snapshot_problem(const stackwalk_snapshot *snap, size_t i);

/* Walk options. A new handle walks without symbols, all frames, with
 * stack scanning, no symbol cache (nothing is written to disk), no symbol
 * server and the built-in crash-signature rules. */
STACKWALK_API stackwalk_options *stackwalk_options_new(void);
STACKWALK_API void stackwalk_options_free(stackwalk_options *opt);
/* A Breakpad symbol store, a .sym/.sym.gz file, a folder of ELF files or
 * an ELF file (stackwalk(1)'s SYMBOL_PATH); tried in the order added. */
STACKWALK_API enum stackwalk_status stackwalk_options_add_symbol_path(stackwalk_options *opt,
                                                                      const char *path);
/* Each thread's walk stops after max_frames frames (1 to 1048576). */
STACKWALK_API enum stackwalk_status stackwalk_options_set_max_frames(stackwalk_options *opt,
                                                                     uint32_t max_frames);
/* 0: never guess a frame by scanning the stack. */
STACKWALK_API enum stackwalk_status stackwalk_options_set_scan(stackwalk_options *opt, int on);
/* 1: also read each module's ELF file at its own path on this machine
 * (when its build-id is the module's); 0: never. Not set: on for an ELF
 * core, off for other snapshots. */
STACKWALK_API enum stackwalk_status stackwalk_options_set_local_modules(stackwalk_options *opt,
                                                                        int on);
/* The crashed process's /proc/PID/maps, for an ELF core without a module
 * list (stackwalk(1)'s --maps); NULL: none. */
STACKWALK_API enum stackwalk_status stackwalk_options_set_maps_file(stackwalk_options *opt,
                                                                    const char *path);

/* Added in 0.2 (version node STACKWALK_0.2). */

/* The symbol index cache (stackwalk(1)'s --symbols-cache; see its
 * docs/symbol-cache.md): each .sym/.sym.gz read is indexed once into dir,
 * and later walks, in this process or another, map the index instead of
 * parsing the file; output is the same. dir NULL: stackwalk(1)'s default,
 * $XDG_CACHE_HOME/stackwalk, else $HOME/.cache/stackwalk (ENOENT when
 * neither is set). A new handle has no cache: a library writes nothing to
 * disk unless asked. The directory is created with the first index; one
 * that cannot be written is a warning (stackwalk_result_warning) of the
 * first walk that tries, and walks go on uncached. Every walk with opt
 * (and its result, until freed) shares one cache, across threads too.
 * The symbol servers, if any, download into dir from then on. */
STACKWALK_API enum stackwalk_status stackwalk_options_set_symbol_cache(stackwalk_options *opt,
                                                                       const char *dir);
/* No symbol cache (stackwalk(1)'s --no-cache): every walk parses its
 * symbol files; downloads go to a temporary directory (see below). */
STACKWALK_API enum stackwalk_status stackwalk_options_disable_symbol_cache(stackwalk_options *opt);
/* A symbol server (stackwalk(1)'s --symbols-url; docs/symbol-servers.md):
 * an http://, https:// or file:// URL laid out as a Breakpad store
 * (URL/NAME/DEBUG_ID/NAME.sym[.gz], URL/NAME/BUILD_ID/NAME for ELF files),
 * asked for the modules holding a frame that no symbol path served, the
 * URLs in the order added. EINVAL: not such a URL, or a library built
 * without libcurl; EIO: libcurl cannot be loaded (it is loaded by the
 * first call), or the temporary directory (below) cannot be made. */
STACKWALK_API enum stackwalk_status stackwalk_options_add_symbol_url(stackwalk_options *opt,
                                                                     const char *url);
/* Added in 0.3 (version node STACKWALK_0.3). A request header sent to the
 * symbol servers (stackwalk(1)'s
 * --symbols-header), "Name: value": a private server's token
 * ("Auth-Token: ..." for Mozilla's Tecken). Sent with every request to the
 * URLs' servers, and only to their own origins (scheme, host and port):
 * not to the storage a server redirects to. Headers added before any URL
 * wait for one. EINVAL: not a header (no name, no ':', a control
 * character such as CR or LF in the value). */
STACKWALK_API enum stackwalk_status stackwalk_options_add_symbol_header(stackwalk_options *opt,
                                                                        const char *header);
/* 1: also ask debuginfod, by build-id, for ELF modules' files (stackwalk(1)'s
 * --debuginfod), the servers being those $DEBUGINFOD_URLS names (read now).
 * EINVAL: DEBUGINFOD_URLS is not set, or a library built without
 * libdebuginfod. */
STACKWALK_API enum stackwalk_status stackwalk_options_set_debuginfod(stackwalk_options *opt,
                                                                     int on);
/* Added in 0.4 (version node STACKWALK_0.4). The most bytes a compressed
 * snapshot may decompress to (stackwalk(1)'s --max-decompressed; a new
 * handle: 32 GiB). A snapshot over it does not open: STACKWALK_EFORMAT,
 * the message naming the file and the limit. EINVAL: 0. */
STACKWALK_API enum stackwalk_status stackwalk_options_set_max_decompressed(stackwalk_options *opt,
                                                                           uint64_t bytes);
/* Each download's time limit, connecting included (stackwalk(1)'s
 * --symbols-timeout; 1 to 3600 seconds, default 30): a server slower than
 * that is a warning of the walk. */
STACKWALK_API enum stackwalk_status stackwalk_options_set_symbols_timeout(stackwalk_options *opt,
                                                                          unsigned seconds);
/* The URLs' downloads go into the symbol cache's directory and stay there
 * for later walks; without a cache (a new handle's default), into a
 * temporary directory ($TMPDIR/stackwalk-symbols-XXXXXX) that is removed
 * once opt and every result walked with it are freed, or the servers or
 * the cache are set anew (debuginfod's files stay in libdebuginfod's own
 * cache). A server that cannot be reached, or a file it refuses, is a
 * warning of the walk, never a failure: the walk goes on without that
 * module's symbols. */

/* More crash-signature rules (stackwalk(1)'s --signature-skip; the file
 * format is docs/signature.md's: "irrelevant GLOB", "prefix GLOB", "keep
 * GLOB", "reset"), after the built-in ones and those of files added
 * before. EIO: the file cannot be read; EINVAL: a bad line (the message
 * names the file and the line); either way no rule of it is added. */
STACKWALK_API enum stackwalk_status stackwalk_options_add_signature_skip(stackwalk_options *opt,
                                                                         const char *path);

/* Walk a snapshot's threads on up to threads threads at once (1 to 1024;
 * a new handle: 1, one after the other; stackwalk(1)'s --jobs). The
 * result is the same whatever the number (docs/cli.md, "Threads"). */
STACKWALK_API enum stackwalk_status stackwalk_options_set_threads(stackwalk_options *opt,
                                                                  uint32_t threads);

/* Walking. flags: 0 walks every thread; STACKWALK_WALK_CRASHING_ONLY only
 * the crashing one, or when none crashed nor requested the dump the first
 * thread that did not write it (the others are listed without frames;
 * the thread stackwalk(1)'s --brief prints). opt may be
 * NULL (the defaults). Returns OK, or DAMAGED when the snapshot's CPU is
 * one stackwalk cannot walk (threads listed, not walked), with *out set;
 * or an error with *out NULL. Symbol files refused and symbol paths
 * skipped are not errors: see stackwalk_result_warning. */
enum {
	STACKWALK_WALK_CRASHING_ONLY = 1u << 0,
	/* Keep each frame's evidence (stackwalk_frame_evidence): stackwalk(1)'s
	 * --explain. Added in 0.6. */
	STACKWALK_WALK_EXPLAIN = 1u << 1,
};
STACKWALK_API enum stackwalk_status stackwalk_walk(const stackwalk_snapshot *snap,
                                                   const stackwalk_options *opt,
                                                   unsigned flags, stackwalk_result **out);
STACKWALK_API void stackwalk_result_free(stackwalk_result *res);
/* Warnings of the walk: symbol paths skipped, symbol files refused,
 * symbol servers that failed, a symbol cache that cannot be written. */
STACKWALK_API size_t stackwalk_result_warning_count(const stackwalk_result *res);
STACKWALK_API const char *stackwalk_result_warning(const stackwalk_result *res, size_t i);
/* The crash signature (docs/signature.md): the crashing thread's first
 * meaningful function names joined by " | ", by the options' rules; what
 * stackwalk(1) prints as "Signature:" and in the JSON's "signature". NULL
 * when no thread crashed or requested the dump (added in 0.2). */
STACKWALK_API const char *stackwalk_result_signature(const stackwalk_result *res);

/* Threads, in the snapshot's order; the crashing one (the exception's, or
 * the one that asked for the dump) or NULL. */
STACKWALK_API size_t stackwalk_result_thread_count(const stackwalk_result *res);
STACKWALK_API const stackwalk_thread *stackwalk_result_thread(const stackwalk_result *res,
                                                              size_t i);
STACKWALK_API const stackwalk_thread *stackwalk_result_crashing_thread(const stackwalk_result *res);
STACKWALK_API uint64_t stackwalk_thread_id(const stackwalk_thread *t);
STACKWALK_API const char *stackwalk_thread_name(const stackwalk_thread *t); /* NULL: none */
STACKWALK_API int stackwalk_thread_is_crashing(const stackwalk_thread *t);
/* Why the walk ended: "outermost", "null_return", "no_caller_found",
 * "frame_limit", "scan_limit", "frame_budget", "not_walked", "error". */
STACKWALK_API const char *stackwalk_thread_end(const stackwalk_thread *t);
STACKWALK_API size_t stackwalk_thread_frame_count(const stackwalk_thread *t);
/* Frame 0 is the innermost. An inline frame precedes the physical frame it
 * was inlined into, and has the same pc. */
STACKWALK_API const stackwalk_frame *stackwalk_thread_frame(const stackwalk_thread *t, size_t i);

/* How a frame was found, least to most trusted (Breakpad's FrameTrust). */
enum stackwalk_trust {
	STACKWALK_TRUST_NONE = 0,
	STACKWALK_TRUST_SCAN,          /* a stack word pointing after a call */
	STACKWALK_TRUST_CFI_SCAN,      /* CFI for the stack pointer, a scan for the pc */
	STACKWALK_TRUST_LEAF,          /* the context frame's return address */
	STACKWALK_TRUST_FRAME_POINTER, /* the frame-pointer chain */
	STACKWALK_TRUST_PROLOGUE,      /* decoded the function's prologue */
	STACKWALK_TRUST_CFI,           /* call frame information */
	STACKWALK_TRUST_PREWALKED,     /* the snapshot carried the frame */
	STACKWALK_TRUST_CONTEXT,       /* the register context */
	STACKWALK_TRUST_INLINE,        /* an inlined call inside a physical frame */
	/* Added in 0.6.1: the Java method an Android ART interpreter frame
	 * (the frame before it) was running, at the DEX pc its CFI gave; the
	 * frame's module is the .dex file's mapping, it has no sp. */
	STACKWALK_TRUST_DEX,
};
STACKWALK_API enum stackwalk_trust stackwalk_frame_trust(const stackwalk_frame *f);
/* "context", "cfi", "frame_pointer", "scan", "inline", ... (the JSON's). */
STACKWALK_API const char *stackwalk_trust_name(enum stackwalk_trust trust);
STACKWALK_API int stackwalk_frame_is_inline(const stackwalk_frame *f);
/* The instruction pointer (in callers, the return address) and the stack
 * pointer; 0 and has_sp 0 when the frame does not know it (inline). */
STACKWALK_API uint64_t stackwalk_frame_pc(const stackwalk_frame *f);
STACKWALK_API int stackwalk_frame_has_sp(const stackwalk_frame *f);
STACKWALK_API uint64_t stackwalk_frame_sp(const stackwalk_frame *f);
/* The module's file name ("libc.so.6"), or NULL outside every module; pc's
 * offset in it. */
STACKWALK_API const char *stackwalk_frame_module(const stackwalk_frame *f);
STACKWALK_API uint64_t stackwalk_frame_module_offset(const stackwalk_frame *f);
/* The function (NULL: unknown) and pc's offset from its start. */
STACKWALK_API const char *stackwalk_frame_function(const stackwalk_frame *f);
STACKWALK_API uint64_t stackwalk_frame_function_offset(const stackwalk_frame *f);
/* The source file (NULL: unknown) and line (0: unknown). */
STACKWALK_API const char *stackwalk_frame_file(const stackwalk_frame *f);
STACKWALK_API uint32_t stackwalk_frame_line(const stackwalk_frame *f);

/* Added in 0.6 (version node STACKWALK_0.6). With STACKWALK_WALK_EXPLAIN:
 * why a frame is there, as one line of JSON, the object the JSON output's
 * frames carry as "evidence" (docs/json.md): the method that found it,
 * what it read, the methods refused before it. The thread's: what each
 * method answered at the step that ended the walk ("walk_end_evidence").
 * NULL without STACKWALK_WALK_EXPLAIN, for NULL and for a thread without
 * frames. */
STACKWALK_API const char *stackwalk_frame_evidence(const stackwalk_frame *f);
STACKWALK_API const char *stackwalk_thread_end_evidence(const stackwalk_thread *t);

/* Added in 0.5 (version node STACKWALK_0.5): what the reports say about
 * the crash and the modules, without rendering and parsing them. Every
 * accessor takes NULL (a handle, or an index past the end) and then
 * answers "absent": NULL, 0, -1 or STACKWALK_SYMBOLS_NOT_LOOKED_FOR. */

/* 1 when the snapshot records an exception or signal (the text's "Crash
 * reason:" lines, the JSON's crash_info.type), 0 when not ("No crash": a
 * dump taken on request, a live process's core). */
STACKWALK_API int stackwalk_result_has_crash(const stackwalk_result *res);
/* The crash as the outputs word it: TEXT as the text output's "Crash
 * reason:" (Breakpad's "SIGSEGV /SEGV_MAPERR", "SIGSEGV /0x00000000"),
 * JSON as the JSON's crash_info.type (rust-minidump's "SIGSEGV /
 * SEGV_MAPERR", "SIGSEGV"). Windows exceptions read the same in both
 * ("EXCEPTION_ACCESS_VIOLATION_WRITE"), and so does a snapshot's own
 * wording (an ESP-IDF panic's reason). */
enum stackwalk_wording {
	STACKWALK_WORDING_TEXT = 0,
	STACKWALK_WORDING_JSON = 1,
};
/* The reason; NULL: no crash (or an unknown wording). */
STACKWALK_API const char *stackwalk_result_crash_reason(const stackwalk_result *res,
                                                        enum stackwalk_wording wording);
/* The crash address as the wording reports it (the text's "Crash
 * address:", the JSON's crash_info.address): the faulting data address
 * of a Windows access violation, else the exception's address; in 32 bits
 * for a 32-bit CPU. Returns 1 and sets *address (when address is not
 * NULL); 0 when there is no crash (*address then 0). */
STACKWALK_API int stackwalk_result_crash_address(const stackwalk_result *res,
                                                 enum stackwalk_wording wording,
                                                 uint64_t *address);
/* The crash as numbers: the signal number (Linux, macOS, ... the
 * snapshot's OS numbering) or Windows exception code (0xc0000005), and
 * the signal's si_code or the exception's flags. 0 when there is no
 * crash; tell a crash from none by stackwalk_result_has_crash. */
STACKWALK_API uint32_t stackwalk_result_crash_code(const stackwalk_result *res);
STACKWALK_API uint32_t stackwalk_result_crash_flags(const stackwalk_result *res);
/* The index (for stackwalk_result_thread) of the crashing thread, as the
 * JSON's crash_info.crashing_thread: -1 when none (then
 * stackwalk_result_crashing_thread is NULL). */
STACKWALK_API ptrdiff_t stackwalk_result_crashing_thread_index(const stackwalk_result *res);

/* The snapshot's modules (loaded code: executable, libraries), in its
 * order, as the JSON's "modules" lists them; count 0 when it names none. */
typedef struct stackwalk_module stackwalk_module;
STACKWALK_API size_t stackwalk_result_module_count(const stackwalk_result *res);
STACKWALK_API const stackwalk_module *stackwalk_result_module(const stackwalk_result *res,
                                                              size_t i);
/* The module of a frame (NULL: outside every module); the same handle as
 * stackwalk_result_module's. */
STACKWALK_API const stackwalk_module *stackwalk_frame_module_handle(const stackwalk_frame *f);
/* The code file's name ("libc.so.6", "test_app.exe": the JSON's
 * "filename", stackwalk_frame_module's) and its path as the snapshot
 * recorded it ("/usr/lib/x86_64-linux-gnu/libc.so.6"); NULL: unknown. */
STACKWALK_API const char *stackwalk_module_name(const stackwalk_module *m);
STACKWALK_API const char *stackwalk_module_path(const stackwalk_module *m);
/* Where it was loaded, and its size in bytes. */
STACKWALK_API uint64_t stackwalk_module_base(const stackwalk_module *m);
STACKWALK_API uint64_t stackwalk_module_size(const stackwalk_module *m);
/* Its identity as symbol stores use it: the debug file's name
 * ("test_app.pdb"; an ELF module's own name), the debug id in Breakpad's
 * form (33 upper-case hex digits: "5A9832E5287241C1838ED98914E9B7FF1"),
 * and the code id as the snapshot recorded it (an ELF build-id in hex, a
 * Windows TIMESTAMP+SIZE; the JSON prints it lower-cased); its version
 * ("5.1.2600.2180"). NULL: not recorded. */
STACKWALK_API const char *stackwalk_module_debug_file(const stackwalk_module *m);
STACKWALK_API const char *stackwalk_module_debug_id(const stackwalk_module *m);
STACKWALK_API const char *stackwalk_module_code_id(const stackwalk_module *m);
STACKWALK_API const char *stackwalk_module_version(const stackwalk_module *m);
/* What the walk found of its symbols (the JSON's loaded_symbols,
 * missing_symbols and corrupt_symbols): only modules that held a frame
 * are looked for. */
enum stackwalk_symbols {
	STACKWALK_SYMBOLS_NOT_LOOKED_FOR = 0, /* the walk never needed them */
	STACKWALK_SYMBOLS_LOADED = 1,         /* found and read */
	STACKWALK_SYMBOLS_MISSING = 2,        /* looked for, none found */
	STACKWALK_SYMBOLS_CORRUPT = 3,        /* found, but could not be read */
};
STACKWALK_API enum stackwalk_symbols stackwalk_module_symbols(const stackwalk_module *m);
/* "not_looked_for", "loaded", "missing", "corrupt". */
STACKWALK_API const char *stackwalk_symbols_name(enum stackwalk_symbols symbols);

/* Rendering, as stackwalk(1) prints it: TEXT is Breakpad's
 * minidump_stackwalk layout, MACHINE its pipe-delimited one (-m), JSON
 * rust-minidump's schema (flag STACKWALK_RENDER_PRETTY indents it). The
 * crash signature is in TEXT and JSON as stackwalk(1) prints it, and so is
 * the JSON's "status" ("DAMAGED" for a snapshot opened DAMAGED,
 * "UNSUPPORTED_CPU" for threads of a CPU it cannot walk, else "OK"). Every
 * thread is printed, those CRASHING_ONLY left unwalked without frames. */
enum stackwalk_format {
	STACKWALK_FORMAT_TEXT = 0,
	STACKWALK_FORMAT_MACHINE = 1,
	STACKWALK_FORMAT_JSON = 2,
};
enum { STACKWALK_RENDER_PRETTY = 1u << 0 };
STACKWALK_API enum stackwalk_status stackwalk_render(const stackwalk_result *res,
                                                     enum stackwalk_format format,
                                                     unsigned flags, FILE *out);
/* The same into a NUL-terminated buffer of *len bytes; release it with
 * stackwalk_buffer_free. */
STACKWALK_API enum stackwalk_status stackwalk_render_buffer(const stackwalk_result *res,
                                                            enum stackwalk_format format,
                                                            unsigned flags, char **buf,
                                                            size_t *len);
STACKWALK_API void stackwalk_buffer_free(char *buf);

#ifdef __cplusplus
}
#endif

#endif
