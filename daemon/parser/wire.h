/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one seam between the daemon and its parser (coredumpd-parser, parser/main.c): what the daemon
 * asks, and what the parser answers. Everything the crashing task controls — its memory, the ELF
 * and DWARF of the files it maps, their names — is read by the parser, an unprivileged process per
 * crash that the daemon kills at its deadline. The daemon reads back only the bounded result below,
 * checks every length, count and character of it (parser_result_decode()), and trusts nothing else
 * the parser does.
 *
 * Both directions are plain bytes on a pipe, in the host's byte order (both ends are built from this
 * tree, for one machine):
 *   request  struct parser_request, fixed size
 *   result   struct parser_result_header, then per thread struct parser_wire_thread and its frames,
 *            each struct parser_wire_frame followed by its module name and symbol name (not
 *            NUL-terminated, lengths in the frame); the header's size counts all of it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* x86-64's user_regs_struct: 27 registers, in the kernel's order (selfdump/core-notes.h). */
#define PARSER_NREGS 27

#define UNWIND_MAX_FRAMES 64
#define UNWIND_MAX_THREADS 16
/* A module's name and a symbol's, in bytes; longer ones arrive cut (a symbol-name bomb stops here). */
#define PARSER_MODULE_MAX 1024
#define PARSER_SYMBOL_MAX 512
/* The largest result: every thread and frame with names at their longest. */
#define PARSER_RESULT_MAX                                                                                      \
        (sizeof(struct parser_result_header) +                                                             \
         UNWIND_MAX_THREADS * (sizeof(struct parser_wire_thread) +                                          \
                               UNWIND_MAX_FRAMES * (sizeof(struct parser_wire_frame) + PARSER_MODULE_MAX + \
                                                    PARSER_SYMBOL_MAX)))

#define PARSER_MAGIC UINT32_C(0x52504443) /* "CDPR" */
/* 2: PARSER_FD_MAP_FILES in place of the task's root, and max_files. */
#define PARSER_VERSION 2

/* ---- the decoded result: what the daemon keeps of an unwind --------------------------------- */

struct unwind_frame {
        uint64_t pc;                    /* the frame's pc (a return address for all but the first) */
        char build_id[41];              /* of its module, lowercase hex; "" if unknown */
        uint64_t module_offset;         /* pc (minus one for return addresses) from the module's base */
        char *module;                   /* the module's file name, or NULL; raw bytes, no NUL */
        char *symbol;                   /* the function, or NULL; raw bytes, no NUL */
        uint64_t symbol_offset;
};

/* Why a thread's trace ended before its outermost frame (the one whose call frame information
 * says there is no caller, as glibc's _start and clone3 do). */
enum unwind_cut {
        UNWIND_CUT_NONE = 0,            /* complete: it reached the outermost frame */
        UNWIND_CUT_ERROR,               /* the unwinder could go no further (no CFI, a register or
                                         * stack word it could not know or read) */
        UNWIND_CUT_BUDGET,              /* UnwindTimeout= */
        UNWIND_CUT_FRAMES,              /* UnwindMaxFrames= */
        _UNWIND_CUT_MAX,
};

/* "error", "budget", "frames"; NULL for UNWIND_CUT_NONE. */
const char *unwind_cut_to_string(enum unwind_cut cut);

struct unwind_thread {
        pid_t tid;
        struct unwind_frame *frames;
        size_t n_frames;
        uint8_t cut;                    /* enum unwind_cut */
};

struct unwind_result {
        struct unwind_thread *threads;  /* the crashing thread first */
        size_t n_threads;
        char exe_build_id[41];          /* of the main executable, "" if unknown */
        uint64_t usec;                  /* time spent */
};

void unwind_result_done(struct unwind_result *r);
/* "#0  0x... function+0x12 (module)" lines of a thread, systemd-coredump's layout. */
char *unwind_thread_format(const struct unwind_thread *t);

/* ---- the request ----------------------------------------------------------------------------- */

/* The fds the parser is started with, besides stdin (the request) and stdout (the result). */
enum {
        PARSER_FD_MEM = 3,              /* /proc/<pid>/mem, opened by the daemon: keeps its open-time access */
        PARSER_FD_MAPS = 4,             /* /proc/<pid>/maps */
        PARSER_FD_MOUNTINFO = 5,        /* /proc/<pid>/mountinfo: which mappings are on remote file systems */
        PARSER_FD_MAP_FILES = 6,        /* /proc/<tid>/map_files (tid: the crashing thread), open for
                                         * reading: the mapped files are reached only through it
                                         * (parser/map-files.h), never by a path in the task's root */
        _PARSER_FD_MAX,
};

/* The mapped files the unwinder takes at most (parser/map-files.h's MAP_FILES_MAX). */
#define PARSER_MAP_FILES_MAX 256

struct parser_thread {
        int32_t tid;
        uint32_t crashed;               /* the crashing thread with its full registers (the probe's);
                                         * 0: only sp and pc are known, the rest is not (not 0) */
        uint64_t regs[PARSER_NREGS];
};

struct parser_request {
        uint32_t magic, version;
        int32_t pid;                    /* the task, as the daemon's /proc names it (a name only) */
        uint32_t uid, gid;              /* the parser runs as these (never 0: the daemon picks) */
        uint32_t max_frames;            /* per thread, at most UNWIND_MAX_FRAMES */
        uint64_t budget_usec;           /* the parser's own budget: it answers with what it has by then */
        uint64_t memory_max;            /* RLIMIT_AS of the parser, bytes */
        uint32_t n_threads;             /* at most UNWIND_MAX_THREADS; the crashing one first */
        uint32_t max_files;             /* mapped files the unwinder may take, at most PARSER_MAP_FILES_MAX */
        struct parser_thread threads[UNWIND_MAX_THREADS];
        char exe[4096];                 /* /proc/<pid>/exe as the daemon read it, NUL-terminated */
};

/* Whether a request read by the parser is one it can act on (magic, version, counts, strings). */
bool parser_request_valid(const struct parser_request *req);

/* ---- the result on the wire ------------------------------------------------------------------- */

struct parser_result_header {
        uint32_t magic, version;
        uint32_t size;                  /* of everything, this header included */
        int32_t error;                  /* 0, or -errno: nothing could be looked at */
        uint32_t n_threads;
        uint32_t reserved;
        uint64_t usec;
        char exe_build_id[40];          /* hex, NUL-padded */
};

struct parser_wire_thread {
        int32_t tid;
        uint16_t n_frames;
        uint8_t cut;
        uint8_t reserved;
};

struct parser_wire_frame {
        uint64_t pc, module_offset, symbol_offset;
        char build_id[40];              /* hex, NUL-padded */
        uint16_t module_len;            /* 0: none */
        uint16_t symbol_len;            /* 0: none */
        uint32_t reserved;
};

/* The parser's side: r (error 0) or only error, into a malloc'ed buffer of at most PARSER_RESULT_MAX
 * bytes (names cut to their maxima). 0, or -ENOMEM. */
int parser_result_encode(const struct unwind_result *r, int error, void **ret_buf, size_t *ret_size);

/* ---- a crash record, submitted again as the crashing user ---------------------------------- */

/*
 * `coredumpd-parser --record`: the daemon's record of a crash the user may read, sent to journald
 * once more as that user, so that journald files it in the user's journal, where the user's own
 * dumpctl and coredumpctl find it. On stdin: struct parser_record_header, then per field a
 * uint32_t length and its bytes ("NAME=value").
 */
#define PARSER_RECORD_MAGIC UINT32_C(0x52524443) /* "CDRR" */
#define PARSER_RECORD_FIELDS_MAX 1024
/* The fields, and a compact core of the largest JournalSizeMax= (PARSER_COMPACT_MAX, 64M): a
 * regular user's copy carries it (crash/record.h). */
#define PARSER_RECORD_MAX ((UINT32_C(8) << 20) + (UINT32_C(64) << 20))

struct parser_record_header {
        uint32_t magic, version;
        uint32_t uid, gid;              /* never 0 */
        uint32_t n_fields;
        uint32_t size;                  /* of everything, this header included */
};

/* 0 and a malloc'ed buffer, -E2BIG beyond the maxima, -ENOMEM. */
int parser_record_encode(const struct iovec *v, size_t n, uid_t uid, gid_t gid, void **ret_buf, size_t *ret_size);
/* Checks the buffer (sizes add up, counts within the maxima, every field NAME=...); 0 and *ret_v
 * (malloc'ed, pointing into buf), or -EBADMSG. */
int parser_record_decode(const void *buf, size_t size, struct iovec **ret_v, size_t *ret_n, uid_t *ret_uid,
                         gid_t *ret_gid);

/* The daemon's side: the bytes the parser sent, checked before anything is believed — magic,
 * version, sizes that add up exactly, counts within the maxima, build-ids of hex digits, names
 * without NUL. 0 and *ret filled (ret_error: the parser's own -errno, *ret then empty), or -EBADMSG
 * and a reason. Never reads outside buf. */
int parser_result_decode(const void *buf, size_t size, struct unwind_result *ret, int *ret_error, char *reason,
                         size_t reason_size);

/* ---- build-ids ------------------------------------------------------------------------------- */

/*
 * `coredumpd-parser --build-ids`: the GNU build-ids of files the daemon opened (a container's
 * executable and libraries, and the host's files of the same names), read in the cell, so that no
 * ELF note of a crasher's file is parsed by the daemon. Started with the files as fds 3, 4, ...;
 * on stdin struct parser_build_id_request; on stdout one line per file: its build-id in lowercase
 * hex (2 to 40 digits, an even number), or "-" (none, or not an ELF file).
 */
#define PARSER_BUILD_ID_MAGIC UINT32_C(0x42504443) /* "CDPB" */
#define PARSER_BUILD_ID_FILES_MAX 128
#define PARSER_BUILD_ID_ANSWER_MAX (PARSER_BUILD_ID_FILES_MAX * 41)

struct parser_build_id_request {
        uint32_t magic, version;
        uint32_t uid, gid;              /* never 0 */
        uint32_t n_files;               /* at fds 3 .. 3 + n_files - 1; at most PARSER_BUILD_ID_FILES_MAX */
};

bool parser_build_id_request_valid(const struct parser_build_id_request *req);
/* The answer checked: exactly n lines, each "-" or 2..40 lowercase hex digits (an even number).
 * 0 and ret[i] filled ("" for "-"), or -EBADMSG. Never reads outside buf. */
int parser_build_ids_decode(const char *buf, size_t size, size_t n, char (*ret)[41]);


/* ---- a compact core -------------------------------------------------------------------------- */

/*
 * `coredumpd-parser --compact-core`: the small core a crash's journal record carries (COREDUMP=),
 * made from its stored core (fd 3: the plain file, or the zstd one) by parser/compact-core.c in
 * the cell. On stdin struct parser_compact_request; on stdout the compact core, at most max_size
 * bytes; exit status 0 when it is complete. The daemon believes only its size and that it starts as
 * an x86-64 ELF core whose program headers lie within it (parser_compact_core_valid()): it is
 * attached to the record as bytes, never parsed there.
 */
#define PARSER_COMPACT_MAGIC UINT32_C(0x43504443) /* "CDPC" */
/* The largest compact core the parser makes, whatever is asked (JournalSizeMax= is capped here). */
#define PARSER_COMPACT_MAX (UINT64_C(64) << 20)
_Static_assert(PARSER_RECORD_MAX >= PARSER_COMPACT_MAX + (UINT64_C(8) << 20),
               "a user's copy of a record has room for the largest compact core");

struct parser_compact_request {
        uint32_t magic, version;
        uint32_t uid, gid;              /* never 0 */
        uint64_t max_size;              /* at most PARSER_COMPACT_MAX */
};

/* The exit status of a parser whose compact core would not fit max_size even with the least it
 * keeps (the headers and notes): the daemon tells "too large" from any other failure by it. */
#define PARSER_COMPACT_EXIT_TOO_LARGE 3

bool parser_compact_request_valid(const struct parser_compact_request *req);
/* Whether size bytes at buf are what the daemon attaches: an ELF64 little-endian x86-64 ET_CORE
 * header, its program header table inside the buffer, at most max_size bytes. */
bool parser_compact_core_valid(const void *buf, size_t size, uint64_t max_size);

/* ---- a container's files kept with its core -------------------------------------------------- */

/*
 * `coredumpd-parser --keep-files`: a container's executable and mapped ELF objects opened, compared
 * with the host's and read for the copy kept next to the core — in the cell, never in the daemon,
 * whose threads would otherwise wait on whatever file system the crasher put under them (a FUSE
 * server of their own that never answers, reached through an overlay). Started with the task's
 * root (an O_PATH directory the daemon opened through the pidfd-verified /proc/<pid>) as fd 3.
 *
 * 1. On stdin struct parser_keep_request and then the n paths (path_len bytes each, no NUL). The
 *    cell opens each inside the root (O_PATH, no symlink followed; only a regular file that is the
 *    mapped inode is opened for reading, and only an ELF file is held) and answers
 *    struct parser_keep_opened, while the task is still held.
 * 2. After the release the daemon writes one byte, PARSER_KEEP_GO (end of stdin instead: the cell
 *    ends). The cell answers, for each file it holds in order, a struct parser_keep_entry (the
 *    host's file of the same name the same: PARSER_KEEP_HOST; to keep: PARSER_KEEP_COPY followed
 *    by exactly size bytes, the file's, within what is left of max_bytes; PARSER_KEEP_NONE with
 *    why), then one with PARSER_KEEP_END. The daemon checks every entry (parser_keep_entry_check())
 *    and writes the bytes into the store itself.
 */
#define PARSER_KEEP_MAGIC UINT32_C(0x4b504443) /* "CDPK" */
#define PARSER_KEEP_FILES_MAX 64
#define PARSER_KEEP_PATH_MAX 4095
#define PARSER_KEEP_GO 'G'
#define PARSER_FD_KEEP_ROOT 3

struct parser_keep_file {
        uint64_t inode;
        uint32_t dev_major, dev_minor;  /* as the maps line names them */
        uint32_t path_len;              /* 1 .. PARSER_KEEP_PATH_MAX, the path follows the request */
        uint32_t reserved;
};

struct parser_keep_request {
        uint32_t magic, version;
        uint32_t uid, gid;              /* never 0 */
        uint32_t n_files;               /* at most PARSER_KEEP_FILES_MAX; the executable first */
        uint32_t reserved;
        uint64_t max_bytes;             /* copied in all (MaxSize=) */
        struct parser_keep_file files[PARSER_KEEP_FILES_MAX];
};

struct parser_keep_opened {
        uint32_t magic, n_files;
        int32_t error[PARSER_KEEP_FILES_MAX];   /* 0: held (a regular ELF file, the mapped one); -errno */
};

enum {
        PARSER_KEEP_END = 1,
        PARSER_KEEP_HOST,               /* the host's file at that path is the same (inode or build-id) */
        PARSER_KEEP_COPY,               /* size bytes follow */
        PARSER_KEEP_NONE,               /* neither: error says why (-EFBIG: beyond what is left) */
};

struct parser_keep_entry {
        uint32_t magic, index;          /* index into the request's files, increasing */
        uint32_t what;                  /* PARSER_KEEP_* */
        int32_t error;
        char build_id[40];              /* of the container's file: hex, NUL-padded */
        uint64_t size;
};

bool parser_keep_request_valid(const struct parser_keep_request *req);
/* The answer of step 1 checked against the request's n: 0, or -EBADMSG. */
int parser_keep_opened_check(const struct parser_keep_opened *o, size_t n);
/* An entry of step 2 checked: magic, index after *next (then moved past it) and held in opened,
 * what, error, build-id hex (into ret_build_id), size at most *budget for a copy (then taken from
 * it). 0, or -EBADMSG. */
int parser_keep_entry_check(const struct parser_keep_entry *e, const struct parser_keep_opened *opened, size_t n,
                            uint32_t *next, uint64_t *budget, char ret_build_id[static 41]);

/* ---- the reader: the task's /proc text and stack read for the daemon ------------------------- */

/*
 * `coredumpd-parser --reader`: what the daemon's threads would otherwise read of a held task
 * themselves — the site key's maps and stack words (crash/site.c), the command line (crash/context.c),
 * a container's mapped files (crash/keep-files.c) — read by a long-lived process in the cell. A reader of /proc/<pid>/{maps,mem,pagemap,cmdline}
 * takes the task's mmap_lock, which a process sharing its memory (CLONE_VM, not a thread: it
 * survives the dump) can hold for as long as a file system it made does not answer; the daemon
 * only opens those files (open takes no mmap_lock) and hands the fds over. One reader per tenant
 * and ids (parser/reader-client.c): what one tenant's task gives it to read never reaches a reader
 * that serves another.
 *
 * On a SOCK_SEQPACKET socket (the reader's stdin), one message each way per errand:
 *   start    struct reader_hello (once): the ids it runs as; it enters its cell before anything else
 *   request  struct reader_request, its fds as SCM_RIGHTS: READER_SITE maps, pagemap, mem;
 *            READER_CMDLINE cmdline; READER_FILES maps, mountinfo; READER_PROC status, maps, limits
 *   answer   struct reader_answer_header, then n_maps struct reader_mapping (sorted, disjoint), n_words
 *            words, text_size bytes (READER_FILES: the n_maps paths, each NUL-terminated;
 *            READER_PROC: the three texts in the request's order, each NUL-terminated, each within
 *            its bound and cut at a line's end) — checked whole by reader_answer_decode()
 */
#define READER_MAGIC UINT32_C(0x51524443) /* "CDRQ" */
#define READER_HELLO_MAGIC UINT32_C(0x48524443) /* "CDRH" */
#define READER_ANSWER_MAGIC UINT32_C(0x41524443) /* "CDRA" */
#define READER_VERSION 1
/* The top of a stack the site key reads (crash/site.h's SITE_STACK_BYTES), in words. */
#define READER_WORDS_MAX 256
/* The code mappings a site key may name: the pc's and one per word. */
#define READER_MAPS_MAX (READER_WORDS_MAX + 1)
/* READER_FILES: the mapped files of a container kept with its core (the executable's and the first
 * PARSER_KEEP_FILES_MAX others). */
#define READER_FILES_MAX (PARSER_KEEP_FILES_MAX + 1)
/* A command line (the kernel's limit for arguments is larger; the record takes this much); the
 * paths of READER_FILES together. */
#define READER_TEXT_MAX (128 * 1024)
/* READER_PROC, a kept crash's texts for its record (COREDUMP_PROC_STATUS=, _MAPS=, _LIMITS=): each
 * cut at the end of its last whole line within this many bytes. Together well within
 * READER_TEXT_MAX. */
#define READER_PROC_STATUS_MAX (8 * 1024)
#define READER_PROC_MAPS_MAX (96 * 1024)
#define READER_PROC_LIMITS_MAX (4 * 1024)
#define READER_PROC_PARTS 3
_Static_assert(READER_PROC_STATUS_MAX + READER_PROC_MAPS_MAX + READER_PROC_LIMITS_MAX + READER_PROC_PARTS <= READER_TEXT_MAX,
               "the /proc texts fit one answer");
#define READER_EXE_MAX 4096
#define READER_FDS_MAX 3
/* A message either way is at most this (well under a socket's default send buffer). */
#define READER_ANSWER_MAX                                                                                  \
        (sizeof(struct reader_answer_header) + READER_MAPS_MAX * sizeof(struct reader_mapping) +            \
         READER_WORDS_MAX * sizeof(uint64_t) + READER_TEXT_MAX)

enum reader_kind {
        READER_SITE = 1,
        READER_CMDLINE,
        READER_FILES,
        READER_PROC,
        _READER_KIND_MAX,
};

/* Why a site answer has no words (READER_SITE): the daemon logs it, the crash is then unwound. */
enum reader_site_why {
        READER_SITE_OK = 0,
        READER_SITE_NO_MAPS,            /* its maps could not be read */
        READER_SITE_SP_NOT_ANON,        /* sp is not in an anonymous private readable mapping */
        READER_SITE_NOT_IN_MEMORY,      /* a page of the stack's top is not in memory */
        _READER_SITE_WHY_MAX,
};

struct reader_hello {
        uint32_t magic, version;
        uint32_t uid, gid;              /* never 0 */
};

struct reader_request {
        uint32_t magic, version;
        uint32_t kind;                  /* enum reader_kind */
        uint32_t seq;                   /* echoed: an answer to an earlier request is refused */
        uint64_t pc, sp;                /* READER_SITE: the crashing thread's */
        uint64_t frames_end;            /* READER_SITE: where its frames end (0: the stack mapping's end) */
        char exe[READER_EXE_MAX];       /* READER_SITE, READER_FILES: /proc/<pid>/exe's target,
                                         * NUL-terminated, or "" */
};

struct reader_mapping {
        uint64_t start, end;            /* [start, end): a mapping of a file (READER_SITE: executable;
                                         * READER_FILES: not on a remote file system, one per file) */
        uint64_t offset, inode;
        uint32_t dev_major, dev_minor;
};

struct reader_answer_header {
        uint32_t magic, version;
        uint32_t kind, seq;             /* the request's */
        int32_t error;                  /* 0, or the reader's -errno: nothing follows */
        uint32_t why;                   /* READER_SITE: enum reader_site_why */
        uint64_t exe_dev, exe_ino;      /* READER_SITE: the mapping named as exe (0, 0: none) */
        uint32_t n_maps, n_words;
        uint32_t text_size;
        uint32_t n_files, n_remote;     /* READER_FILES: mapped files, and those on remote file systems
                                         * (or all, where that cannot be told) */
        uint32_t reserved;
};

/* What the daemon keeps of an answer. */
struct reader_answer {
        uint32_t kind;
        int error;
        uint32_t why;
        uint64_t exe_dev, exe_ino;
        struct reader_mapping maps[READER_MAPS_MAX];
        size_t n_maps;
        uint64_t words[READER_WORDS_MAX];
        size_t n_words;
        char *text;                     /* malloc'ed, text_size bytes and a NUL (raw: may hold NULs) */
        size_t text_size;
        uint32_t n_files, n_remote;
        const char *paths[READER_FILES_MAX]; /* READER_FILES: maps[i]'s path, in text (decoded only) */
        const char *proc[READER_PROC_PARTS]; /* READER_PROC: status, maps, limits, in text (decoded only;
                                              * "": not read) */
};
/* The bound of READER_PROC's text i (status, maps, limits). */
size_t reader_proc_max(size_t i);

bool reader_hello_valid(const struct reader_hello *h);
/* The request as it arrived with n_fds fds: magic, version, kind, the fds that kind takes, exe
 * NUL-terminated. */
bool reader_request_valid(const struct reader_request *req, size_t n_fds);
/* The number of fds a kind takes; 0 for no kind. */
size_t reader_kind_fds(uint32_t kind);
/* The answer, encoded into buf (at least READER_ANSWER_MAX bytes): its size. */
size_t reader_answer_encode(const struct reader_answer *a, uint32_t seq, void *buf);
/* An answer checked whole before it is believed: magic, version, the kind and seq asked, every
 * count within its bound and the size they add up to exactly, mappings sorted and disjoint, words
 * only for a site, text only for a command line, the files' paths (one absolute path per mapping,
 * each NUL-terminated and at most PARSER_KEEP_PATH_MAX) or the three /proc texts (each
 * NUL-terminated, within its reader_proc_max(), empty or ending in a newline), why known. 0 and *ret (its text
 * malloc'ed: reader_answer_done()), or -EBADMSG with reason. */
int reader_answer_decode(const void *buf, size_t size, uint32_t kind, uint32_t seq, struct reader_answer *ret,
                         char *reason, size_t reason_size);
void reader_answer_done(struct reader_answer *a);
