/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `coredumpd-parser --reader` (parser/wire.h): a long-lived reader of held tasks' /proc text and
 * stacks for one tenant and its ids. It enters its cell before it takes a request, then answers one
 * request at a time from the fds that came with it, and ends when the daemon closes its end, when
 * it has been idle READER_IDLE_SECONDS, or when the daemon kills it (at a request's deadline).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "parser/reader.h"
#include "parser/sandbox.h"
#include "parser/wire.h"
#include "selfdump/proc-maps.h"
#include "shared/cleanup.h"

/* Longer than the daemon keeps an idle reader (parser/reader-client.c): it is the daemon that ends
 * one, this is for a daemon that is gone. */
#define READER_IDLE_SECONDS 60

/* Up to max bytes of fd from its start, NUL-terminated; *ret_size without the NUL. */
static int read_head(int fd, size_t max, char **ret, size_t *ret_size) {
        size_t size = 0, cap = MIN(max, (size_t) 64 * 1024);
        char *buf = malloc(cap + 1);

        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (size == cap) {
                        if (cap >= max)
                                break;
                        size_t bigger_cap = MIN(max, cap * 2);
                        char *bigger = realloc(buf, bigger_cap + 1);
                        if (!bigger) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = bigger;
                        cap = bigger_cap;
                }
                ssize_t n = read(fd, buf + size, cap - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = -errno;
                        free(buf);
                        return r;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
        }
        buf[size] = 0;
        *ret = buf;
        if (ret_size)
                *ret_size = size;
        return 0;
}

/* The top of the stack as words, where every page of it is in memory (crash/site.h). */
static size_t stack_top(int pagemap_fd, int mem_fd, const struct proc_mapping *stack, uint64_t sp, uint64_t frames_end,
                        uint64_t words[static READER_WORDS_MAX]) {
        long page_size = sysconf(_SC_PAGESIZE);
        uint64_t from = sp & ~UINT64_C(7);
        uint64_t end = frames_end > from && frames_end <= stack->end ? frames_end : stack->end;
        uint64_t to = end - from > READER_WORDS_MAX * 8 ? from + READER_WORDS_MAX * 8 : end;

        if (to <= from || page_size <= 0)
                return 0;
        uint64_t first_page = from / (uint64_t) page_size, last_page = (to - 1) / (uint64_t) page_size;
        bool in[READER_WORDS_MAX * 8 / 4096 + 2];

        if (last_page - first_page + 1 > sizeof in / sizeof in[0] ||
            proc_pagemap_in_memory(pagemap_fd, first_page * (uint64_t) page_size, (uint64_t) page_size,
                                   last_page - first_page + 1, in) < 0)
                return 0;
        for (uint64_t p = 0; p <= last_page - first_page; p++)
                if (!in[p])
                        return 0;
        ssize_t got = pread(mem_fd, words, to - from, (off_t) from);
        return got > 0 ? (size_t) got / 8 : 0;
}

static bool is_code(const struct proc_mapping *m) {
        return m && m->exec && m->inode != 0 && proc_mapping_is_file(m);
}

/* READER_SITE: what crash/site.c computes the key from — the words on the top of the stack, the
 * code mappings of the pc and of those words (in the maps' order), the executable's device and inode. */
static void site(const struct reader_request *req, const int *fds, struct reader_answer *a) {
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ bool *named = NULL;
        struct proc_maps maps = {};

        if (read_head(fds[0], PROC_MAPS_MAX, &text, NULL) < 0 || proc_maps_parse(text, &maps) < 0) {
                a->why = READER_SITE_NO_MAPS;
                goto done;
        }
        const struct proc_mapping *stack = proc_maps_find(&maps, req->sp);
        if (!stack || stack->inode != 0 || stack->shared || !stack->read) {
                a->why = READER_SITE_SP_NOT_ANON;
                goto done;
        }
        for (size_t i = 0; req->exe[0] && i < maps.n; i++)
                if (maps.mappings[i].path && strcmp(maps.mappings[i].path, req->exe) == 0) {
                        a->exe_dev = makedev(maps.mappings[i].dev_major, maps.mappings[i].dev_minor);
                        a->exe_ino = maps.mappings[i].inode;
                        break;
                }
        a->n_words = stack_top(fds[1], fds[2], stack, req->sp, req->frames_end, a->words);
        if (a->n_words == 0) {
                a->why = READER_SITE_NOT_IN_MEMORY;
                goto done;
        }
        /* Each code mapping the pc or a word is in, once, in the maps' order (sorted, disjoint). */
        named = calloc(maps.n ? maps.n : 1, sizeof *named);
        if (!named) {
                a->error = -ENOMEM;
                a->n_words = 0;
                goto done;
        }
        for (size_t w = 0; w <= a->n_words; w++) {
                const struct proc_mapping *m = proc_maps_find(&maps, w == 0 ? req->pc : a->words[w - 1]);
                if (is_code(m))
                        named[m - maps.mappings] = true;
        }
        for (size_t i = 0; i < maps.n && a->n_maps < READER_MAPS_MAX; i++)
                if (named[i])
                        a->maps[a->n_maps++] = (struct reader_mapping) {
                                .start = maps.mappings[i].start,
                                .end = maps.mappings[i].end,
                                .offset = maps.mappings[i].offset,
                                .inode = maps.mappings[i].inode,
                                .dev_major = maps.mappings[i].dev_major,
                                .dev_minor = maps.mappings[i].dev_minor,
                        };
done:
        proc_maps_done(&maps);
}

/* READER_FILES: a container's files for crash/keep-files.c — the executable's mapping and the first
 * PARSER_KEEP_FILES_MAX other files, by the maps alone (none opened), each once, none on a remote
 * file system (without a readable mountinfo, every file is taken as remote), in the maps' order. */
static void files(const struct reader_request *req, const int *fds, struct reader_answer *a) {
        _cleanup_free_ char *text = NULL, *mountinfo = NULL;
        struct proc_maps maps = {};
        size_t others = 0, used = 0;

        int r = read_head(fds[0], PROC_MAPS_MAX, &text, NULL);
        if (r >= 0)
                r = proc_maps_parse(text, &maps);
        if (r < 0) {
                a->error = r;
                goto done;
        }
        if (read_head(fds[1], PROC_MAPS_MAX, &mountinfo, NULL) < 0)
                mountinfo = NULL;
        proc_maps_mark(mountinfo, &maps);
        a->text = malloc(READER_TEXT_MAX);
        if (!a->text) {
                a->error = -ENOMEM;
                goto done;
        }
        for (size_t i = 0; i < maps.n; i++) {
                const struct proc_mapping *m = &maps.mappings[i];
                if (!proc_mapping_is_file(m))
                        continue;
                a->n_files++;
                a->n_remote += m->remote;
                bool exe = req->exe[0] && strcmp(m->path, req->exe) == 0;
                size_t len = strlen(m->path);
                if (m->remote || m->inode == 0 || len > PARSER_KEEP_PATH_MAX || (!exe && others >= PARSER_KEEP_FILES_MAX) ||
                    a->n_maps >= READER_FILES_MAX || used + len + 1 > READER_TEXT_MAX)
                        continue;
                bool seen = false;
                for (size_t k = 0; k < a->n_maps && !seen; k++)
                        seen = a->maps[k].inode == m->inode && a->maps[k].dev_major == m->dev_major &&
                               a->maps[k].dev_minor == m->dev_minor;
                if (seen)
                        continue;
                others += !exe;
                a->maps[a->n_maps++] = (struct reader_mapping) {
                        .start = m->start,
                        .end = m->end,
                        .offset = m->offset,
                        .inode = m->inode,
                        .dev_major = m->dev_major,
                        .dev_minor = m->dev_minor,
                };
                memcpy(a->text + used, m->path, len + 1);
                used += len + 1;
        }
        a->text_size = used;
done:
        proc_maps_done(&maps);
}

static void cmdline(const int *fds, struct reader_answer *a) {
        int r = read_head(fds[0], READER_TEXT_MAX, &a->text, &a->text_size);
        if (r < 0)
                a->error = r;
}

/* READER_PROC: a kept crash's status, maps and limits for its record, each up to its bound, cut at
 * the end of its last whole line within it (and at a NUL, which none has); one that cannot be read
 * is empty. */
static void proc(const int *fds, struct reader_answer *a) {
        size_t used = 0;

        a->text = malloc(READER_TEXT_MAX);
        if (!a->text) {
                a->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < READER_PROC_PARTS; i++) {
                _cleanup_free_ char *text = NULL;
                size_t size = 0, max = reader_proc_max(i);
                /* A byte more than the bound: whether the text goes on past it. */
                if (read_head(fds[i], max + 1, &text, &size) < 0)
                        size = 0;
                size = text ? strnlen(text, size) : 0;
                if (size > max || (size > 0 && text[size - 1] != '\n')) {
                        const char *nl = memrchr(text, '\n', MIN(size, max));
                        size = nl ? (size_t) (nl - text) + 1 : 0;
                }
                if (size > 0)
                        memcpy(a->text + used, text, size);
                a->text[used + size] = 0;
                used += size + 1;
        }
        a->text_size = used;
}

/* One message and up to READER_FDS_MAX fds; fds past those, or a message cut, close them all. The
 * message's size, 0 at the end of the stream, or -errno. */
static ssize_t receive(int fd, struct reader_request *req, int *fds, size_t *ret_n_fds) {
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * READER_FDS_MAX)];
        } control;
        struct iovec iov = { .iov_base = req, .iov_len = sizeof *req };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control };

        *ret_n_fds = 0;
        ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0)
                return -errno;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                        continue;
                size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k; i++) {
                        int got;
                        memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
                        if (*ret_n_fds < READER_FDS_MAX)
                                fds[(*ret_n_fds)++] = got;
                        else
                                close(got);
                }
        }
        if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
                return -EBADMSG;
        return n;
}

int reader_main(void) {
        static char out[READER_ANSWER_MAX];
        struct reader_hello hello;
        char reason[256] = "";

        /* Told apart from the per-crash parser in ps and top (and by the operator's pkill): a reader
         * lives on between crashes, idle in poll(). */
        (void) prctl(PR_SET_NAME, "coredumpd-read", 0, 0, 0);

        struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
        if (poll(&p, 1, READER_IDLE_SECONDS * 1000) <= 0 ||
            recv(STDIN_FILENO, &hello, sizeof hello, 0) != (ssize_t) sizeof hello || !reader_hello_valid(&hello))
                return 2;
        struct cell_limits limits = {
                .address_space = UINT64_C(256) << 20,
                .cpu_seconds = 60, /* in all, over its life: past it, it ends and another is started */
                .open_files = 16,
                .file_size = 0,
        };
        if (sandbox_enter(hello.uid, hello.gid, &limits, SANDBOX_READER, reason, sizeof reason) < 0)
                return EXIT_FAILURE;

        /* From here on, everything read is the tasks'. */
        for (;;) {
                static struct reader_request req;
                int fds[READER_FDS_MAX];
                size_t n_fds;

                p = (struct pollfd) { .fd = STDIN_FILENO, .events = POLLIN };
                int k = poll(&p, 1, READER_IDLE_SECONDS * 1000);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return EXIT_SUCCESS;
                ssize_t n = receive(STDIN_FILENO, &req, fds, &n_fds);
                if (n == 0)
                        return EXIT_SUCCESS;
                bool valid = n == (ssize_t) sizeof req && reader_request_valid(&req, n_fds);
                struct reader_answer *a = calloc(1, sizeof *a);
                if (!a || !valid) {
                        /* Not the daemon's: nothing more is believed of this stream. */
                        for (size_t i = 0; i < n_fds; i++)
                                close(fds[i]);
                        free(a);
                        return 2;
                }
                a->kind = req.kind;
                if (req.kind == READER_SITE)
                        site(&req, fds, a);
                else if (req.kind == READER_FILES)
                        files(&req, fds, a);
                else if (req.kind == READER_PROC)
                        proc(fds, a);
                else
                        cmdline(fds, a);
                for (size_t i = 0; i < n_fds; i++)
                        close(fds[i]);
                size_t size = reader_answer_encode(a, req.seq, out);
                reader_answer_done(a);
                free(a);
                struct iovec iov = { .iov_base = out, .iov_len = size };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
                if (sendmsg(STDOUT_FILENO, &msg, MSG_NOSIGNAL) < 0)
                        return EXIT_FAILURE;
        }
}
