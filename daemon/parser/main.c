/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coredumpd-parser — the crashing task's memory and files, read by a process that cannot hurt the
 * daemon. Started by the daemon for one crash (parser/client.c) with the fds of parser/wire.h; reads
 * the request on stdin, enters its cell (parser/sandbox.c) before it reads anything the task
 * controls, unwinds the task's stacks (parser/unwind.c) and writes the bounded result on stdout.
 * Whatever happens to it — a crafted ELF file, a truncated library, a file that never answers —
 * happens to this process, which the daemon kills at its deadline. --record, --build-ids,
 * --compact-core, --keep-files (a container's files kept with its core, parser/keep.c), --reader
 * (a long-lived reader of held tasks' /proc text and stacks, parser/reader.c) and --package (the
 * package a kept crash belongs to, parser/package.c) are its other errands (parser/wire.h,
 * parser/package-wire.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "parser/compact-core.h"
#include "parser/keep.h"
#include "parser/map-files.h"
#include "parser/reader.h"
#include "parser/package.h"
#include "parser/sandbox.h"
#include "parser/unwind.h"
#include "parser/wire.h"
#include "selfdump/proc-maps.h"
#include "shared/cleanup.h"
#include "shared/elf-build-id.h"
#include "shared/fileio.h"

/* A maps or mountinfo text: at most this much is read (a task with 65530 mappings of long names). */
#define PROC_TEXT_MAX (32u * 1024 * 1024)

static char *read_text(int fd) {
        size_t size = 0, cap = 64 * 1024;
        char *text = malloc(cap + 1);

        while (text) {
                ssize_t n = read(fd, text + size, cap - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                size += (size_t) n;
                if (size == cap) {
                        if (cap >= PROC_TEXT_MAX)
                                break;
                        char *bigger = realloc(text, cap * 2 + 1);
                        if (!bigger)
                                break;
                        text = bigger;
                        cap *= 2;
                }
        }
        if (text)
                text[size] = 0;
        return text;
}

static int answer(const struct unwind_result *r, int error) {
        void *buf = NULL;
        size_t size = 0;
        if (parser_result_encode(r, error, &buf, &size) < 0)
                return EXIT_FAILURE;
        int k = write_full(STDOUT_FILENO, buf, size);
        free(buf);
        return k < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* --record: the daemon's record of a crash, sent to journald as the crashing user. Exits 0 when
 * journald took it. */
static int submit_record(void) {
        char reason[256] = "";
        _cleanup_free_ char *buf = malloc(PARSER_RECORD_MAX + 1);
        size_t size = 0;

        if (!buf)
                return EXIT_FAILURE;
        for (;;) {
                ssize_t n = read(STDIN_FILENO, buf + size, PARSER_RECORD_MAX + 1 - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                size += (size_t) n;
                if (size > PARSER_RECORD_MAX)
                        return 2;
        }
        struct iovec *v = NULL;
        size_t n = 0;
        uid_t uid;
        gid_t gid;
        if (parser_record_decode(buf, size, &v, &n, &uid, &gid) < 0)
                return 2;
        struct cell_limits limits = {
                .address_space = UINT64_C(256) << 20,
                .cpu_seconds = 5,
                .open_files = 16,
                .file_size = PARSER_RECORD_MAX,
        };
        int r = sandbox_enter(uid, gid, &limits, SANDBOX_JOURNAL, reason, sizeof reason);
        if (r >= 0)
                r = sd_journal_sendv(v, (int) n);
        free(v);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* --build-ids: the build-id of each file the daemon handed over, one line each. */
static int build_ids(void) {
        struct parser_build_id_request req;
        char reason[256] = "";

        if (read_exact(STDIN_FILENO, &req, sizeof req) < 0 || !parser_build_id_request_valid(&req))
                return 2;
        struct cell_limits limits = {
                .address_space = UINT64_C(256) << 20,
                .cpu_seconds = 5,
                .open_files = PARSER_BUILD_ID_FILES_MAX + 8,
                .file_size = 0,
        };
        int r = sandbox_enter(req.uid, req.gid, &limits, SANDBOX_READ, reason, sizeof reason);
        if (r < 0)
                return EXIT_FAILURE;
        /* From here on, everything read is the files'. */
        _cleanup_free_ char *out = malloc(PARSER_BUILD_ID_ANSWER_MAX);
        size_t size = 0;
        if (!out)
                return EXIT_FAILURE;
        for (uint32_t i = 0; i < req.n_files; i++) {
                char id[41];
                if (elf_file_build_id(PARSER_FD_MEM + (int) i, id) < 0 || !id[0])
                        snprintf(id, sizeof id, "-");
                size += (size_t) snprintf(out + size, PARSER_BUILD_ID_ANSWER_MAX - size, "%s\n", id);
        }
        return write_full(STDOUT_FILENO, out, size) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* --compact-core: the small core of a stored one (fd 3), for the journal record. */
static int compact(void) {
        struct parser_compact_request req;
        char reason[256] = "";

        if (read_exact(STDIN_FILENO, &req, sizeof req) < 0 || !parser_compact_request_valid(&req))
                return 2;
        struct cell_limits limits = {
                .address_space = req.max_size + (UINT64_C(256) << 20),
                .cpu_seconds = 30,
                .open_files = 16,
                .file_size = 0,
        };
        if (sandbox_enter(req.uid, req.gid, &limits, SANDBOX_READ, reason, sizeof reason) < 0)
                return EXIT_FAILURE;
        /* From here on, everything read is the crashed task's memory. */
        struct compact_limits lim = {
                .max_size = req.max_size,
                .crash_stack = COMPACT_CRASH_STACK,
                .thread_stack = COMPACT_THREAD_STACK,
                .small_segment = COMPACT_SMALL_SEGMENT,
        };
        int r = compact_core(PARSER_FD_MEM, STDOUT_FILENO, &lim, reason, sizeof reason);
        return r == -E2BIG ? PARSER_COMPACT_EXIT_TOO_LARGE : r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv) {
        static struct parser_request req;
        char reason[256] = "";
        int r;

        if (argc == 2 && strcmp(argv[1], "--record") == 0)
                return submit_record();
        if (argc == 2 && strcmp(argv[1], "--build-ids") == 0)
                return build_ids();
        if (argc == 2 && strcmp(argv[1], "--compact-core") == 0)
                return compact();
        if (argc == 2 && strcmp(argv[1], "--keep-files") == 0)
                return keep_files_main();
        if (argc == 2 && strcmp(argv[1], "--reader") == 0)
                return reader_main();
        if (argc == 2 && strcmp(argv[1], "--package") == 0)
                return package_main();
        if (argc > 1) {
                fprintf(stderr, "%s takes no arguments but --record, --build-ids, --compact-core, --keep-files, --reader or --package: the coredumpd daemon starts it "
                        "for one crash.\n",
                        argv[0]);
                return 2;
        }
        r = read_exact(STDIN_FILENO, &req, sizeof req);
        if (r < 0 || !parser_request_valid(&req))
                return 2;

        /* Before the cell, with the CAP_CHECKPOINT_RESTORE its links need: the task's mapped files
         * looked up through map_files (O_PATH, nothing opened, nothing of the task's read), the
         * files holding the threads' pcs first. Without them, frames stay unnamed. */
        static struct map_files files;
        uint64_t pcs[UNWIND_MAX_THREADS];
        for (uint32_t i = 0; i < req.n_threads; i++)
                pcs[i] = unwind_thread_pc(&req.threads[i]);
        map_files_init(&files, req.max_files);
        (void) map_files_collect(PARSER_FD_MAP_FILES, pcs, req.n_threads, &files);
        (void) close(PARSER_FD_MAP_FILES);

        struct cell_limits limits = {
                .address_space = req.memory_max,
                .file_size = 0,
                .cpu_seconds = req.budget_usec / 1000000 + 2,
                .open_files = 1024,
        };
        r = sandbox_enter(req.uid, req.gid, &limits, SANDBOX_READ, reason, sizeof reason);
        if (r < 0) {
                fprintf(stderr, "coredumpd-parser: %s\n", reason);
                return answer(NULL, r);
        }

        /* From here on, everything read is the task's. */
        _cleanup_free_ char *maps_text = read_text(PARSER_FD_MAPS);
        _cleanup_free_ char *mountinfo = read_text(PARSER_FD_MOUNTINFO);
        struct proc_maps maps = {};
        if (!maps_text || proc_maps_parse(maps_text, &maps) < 0)
                return answer(NULL, -EBADMSG);
        /* Which files are remote (never opened, their memory never read): proc_maps_mark()'s one rule;
         * without a readable mountinfo every file is. */
        proc_maps_mark(mountinfo, &maps);
        /* Only the files a local mapping names are opened (read-only, in the cell); the rest closed. */
        (void) map_files_open_local(&files, &maps);

        struct unwind_request ureq = {
                .pid = req.pid,
                .mem_fd = PARSER_FD_MEM,
                .maps_text = maps_text,
                .maps = &maps,
                .files = &files,
                .threads = req.threads,
                .n_threads = req.n_threads,
                .exe = req.exe,
                .budget_usec = req.budget_usec,
                .max_frames = req.max_frames,
        };
        struct unwind_result res = {};
        r = unwind_task(&ureq, &res);
        int k = answer(&res, r < 0 ? r : 0);
        unwind_result_done(&res);
        proc_maps_done(&maps);
        map_files_done(&files);
        return k;
}
