/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's side of `coredumpd-parser --reader` (parser/client.h): the pool of readers, one
 * errand at a time each, within its deadline. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "parser/client.h"
#include "parser/launch.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

/* Idle readers kept: of one tenant and ids (as many as its crashes asked at once, at most this), in
 * all. */
#define READER_IDLE_PER_KEY 2
#define READER_IDLE_MAX 16

struct reader {
        struct reader *next;
        pid_t pid;
        int pidfd, sock;
        struct tenant owner;
        uid_t uid;
        gid_t gid;
        uint32_t seq;
        uint64_t idle_since;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reader *idle;             /* most recently used first */
static atomic_uint running;

/* Killed (an idle one at once: it waits in poll()), reaped, or left to the reaper counted against
 * its tenant when SIGKILL cannot end it. Whether it was reaped. */
static bool reader_end(struct reader *r) {
        if (!r)
                return true;
        safe_close(r->sock);
        bool reaped = child_kill_and_reap(r->pid, r->pidfd, &r->owner, NULL);
        safe_close(r->pidfd);
        atomic_fetch_sub(&running, 1);
        free(r);
        return reaped;
}

static bool same_key(const struct reader *r, const struct tenant *owner, uid_t uid, gid_t gid) {
        return tenant_equal(&r->owner, owner) && r->uid == uid && r->gid == gid;
}

static bool has_ended(const struct reader *r) {
        struct pollfd p = { .fd = r->pidfd, .events = POLLIN };
        return r->pidfd >= 0 && poll(&p, 1, 0) != 0;
}

/* An idle reader of the key, taken out of the pool; those idle too long or ended meanwhile go. */
static struct reader *pool_take(const struct tenant *owner, uid_t uid, gid_t gid) {
        struct reader *found = NULL, *gone = NULL;
        uint64_t now = now_monotonic_usec();

        pthread_mutex_lock(&pool_lock);
        for (struct reader **p = &idle; *p;) {
                struct reader *r = *p;
                if (now - r->idle_since >= READER_KEEP_USEC || has_ended(r)) {
                        *p = r->next;
                        r->next = gone;
                        gone = r;
                } else if (!found && same_key(r, owner, uid, gid)) {
                        *p = r->next;
                        found = r;
                } else
                        p = &r->next;
        }
        pthread_mutex_unlock(&pool_lock);
        while (gone) {
                struct reader *next = gone->next;
                reader_end(gone);
                gone = next;
        }
        return found;
}

static void pool_put(struct reader *r) {
        size_t all = 0, same = 0;

        pthread_mutex_lock(&pool_lock);
        for (struct reader *o = idle; o; o = o->next) {
                all++;
                same += same_key(o, &r->owner, r->uid, r->gid);
        }
        bool keep = all < READER_IDLE_MAX && same < READER_IDLE_PER_KEY;
        if (keep) {
                r->idle_since = now_monotonic_usec();
                r->next = idle;
                idle = r;
        }
        pthread_mutex_unlock(&pool_lock);
        if (!keep)
                reader_end(r);
}

void reader_pool_end(void) {
        pthread_mutex_lock(&pool_lock);
        struct reader *all = idle;
        idle = NULL;
        pthread_mutex_unlock(&pool_lock);
        while (all) {
                struct reader *next = all->next;
                reader_end(all);
                all = next;
        }
}

unsigned reader_pool_count(void) {
        return atomic_load(&running);
}

static int reader_start(const struct reader_job *job, struct reader **ret, char *reason, size_t reason_size) {
        int sv[2];

        /* Each reader SIGKILL could not end is a process in the kernel and a thread of ours. */
        if (stuck_budget_exhausted(job->owner))
                return fail_reason(-EBUSY, reason, reason_size, "%s", "not started: too much of its tenant's work is stuck in the kernel");
        if (job->uid == 0 || job->gid == 0)
                return fail_reason(-EPERM, reason, reason_size, "%s", "not as root");
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return fail_reason(-errno, reason, reason_size, "%s", "cannot make its socket");
        struct reader *r = calloc(1, sizeof *r);
        if (!r) {
                safe_close(sv[0]);
                safe_close(sv[1]);
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        }
        *r = (struct reader) { .sock = sv[0], .pidfd = -1, .owner = *job->owner, .uid = job->uid, .gid = job->gid };
        struct reader_hello hello = {
                .magic = READER_HELLO_MAGIC,
                .version = READER_VERSION,
                .uid = job->uid,
                .gid = job->gid,
        };
        /* Kept under the job's ids (its key); it runs as the hello's (an id of its own for CELL_IDS_ANY). */
        int k = parser_spawn(NULL, 0, sv[1], sv[1], "--reader", &hello.uid, &hello.gid, &r->pid);
        safe_close(sv[1]);
        if (k < 0) {
                safe_close(r->sock);
                free(r);
                return fail_reason(k, reason, reason_size, "cannot start %s", parser_program());
        }
        atomic_fetch_add(&running, 1);
        r->pidfd = (int) syscall(SYS_pidfd_open, r->pid, 0);
        /* An empty socket takes it at once. */
        if (send(r->sock, &hello, sizeof hello, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t) sizeof hello) {
                k = -errno;
                reader_end(r);
                return fail_reason(k, reason, reason_size, "%s", "cannot hand it its ids");
        }
        *ret = r;
        return 0;
}

static int send_request(struct reader *r, const struct reader_request *req, const int *fds, size_t n_fds) {
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * READER_FDS_MAX)];
        } control = {};
        struct iovec iov = { .iov_base = (void *) req, .iov_len = sizeof *req };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = CMSG_SPACE(sizeof(int) * n_fds),
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        /* Its socket is empty between errands: the request is taken at once, or the reader is gone. */
        ssize_t k = sendmsg(r->sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        return k == (ssize_t) sizeof *req ? 0 : k < 0 ? -errno : -EIO;
}

/* One errand: the request and its fds sent to a reader of the job's key (a fresh one if the idle one
 * turns out gone), its answer awaited until the deadline and decoded. */
static int ask(const struct reader_job *job, struct reader_request *req, const int *fds, size_t n_fds,
               struct reader_answer *ret, char *reason, size_t reason_size) {
        struct reader *r = NULL;
        int k;

        req->magic = READER_MAGIC;
        req->version = READER_VERSION;
        for (int attempt = 0;; attempt++) {
                r = attempt == 0 ? pool_take(job->owner, job->uid, job->gid) : NULL;
                if (!r && (k = reader_start(job, &r, reason, reason_size)) < 0)
                        return k;
                req->seq = ++r->seq;
                k = send_request(r, req, fds, n_fds);
                if (k >= 0)
                        break;
                reader_end(r);
                if (attempt > 0)
                        return fail_reason(k, reason, reason_size, "%s", "cannot hand it the request");
        }
        _cleanup_free_ char *buf = malloc(READER_ANSWER_MAX + 1);
        if (!buf) {
                reader_end(r);
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        }
        ssize_t size;
        for (;;) {
                k = parser_wait_fd(r->sock, POLLIN, job->deadline_usec);
                if (k < 0) {
                        bool reaped = reader_end(r);
                        return k == -ETIMEDOUT
                                ? fail_reason(k, reason, reason_size, "%s",
                                       reaped ? "killed at its deadline" : "killed at its deadline, but stuck in the kernel")
                                : fail_reason(k, reason, reason_size, "%s", "cannot wait for it");
                }
                /* No control buffer: an fd the reader might send along is dropped by the kernel. */
                size = recv(r->sock, buf, READER_ANSWER_MAX + 1, MSG_DONTWAIT);
                if (size < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                break;
        }
        if (size <= 0) {
                k = size == 0 ? -ECHILD : -errno;
                reader_end(r);
                return fail_reason(k, reason, reason_size, "%s", k == -ECHILD ? "it ended without an answer" : "cannot read its answer");
        }
        char why[160] = "";
        k = size > (ssize_t) READER_ANSWER_MAX ? -EBADMSG
                                                : reader_answer_decode(buf, (size_t) size, req->kind, req->seq, ret, why,
                                                                       sizeof why);
        if (k < 0) {
                /* Not believed, nor is anything it says next. */
                reader_end(r);
                return fail_reason(k, reason, reason_size, "its answer is malformed: %s", why[0] ? why : "too large");
        }
        pool_put(r);
        if (ret->error < 0) {
                k = ret->error;
                reader_answer_done(ret);
                return fail_reason(k, reason, reason_size, "it could not read it: %s", strerror(-k));
        }
        return 0;
}

/* The task's files names[n] opened here (opening takes no mmap_lock) and handed to the reader. */
static int ask_with(const struct reader_job *job, struct reader_request *req, const char *const *names, size_t n,
                    struct reader_answer *ret, char *reason, size_t reason_size) {
        int fds[READER_FDS_MAX];
        size_t opened = 0;
        int k = 0;

        for (; opened < n; opened++) {
                fds[opened] = openat(job->proc_fd, names[opened], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
                if (fds[opened] < 0) {
                        k = fail_reason(-errno, reason, reason_size, "cannot open the task's %s", names[opened]);
                        break;
                }
        }
        if (k == 0)
                k = ask(job, req, fds, n, ret, reason, reason_size);
        for (size_t i = 0; i < opened; i++)
                safe_close(fds[i]);
        return k;
}

int reader_site(const struct reader_job *job, uint64_t pc, uint64_t sp, uint64_t frames_end, const char *exe,
                struct reader_answer *ret, char *reason, size_t reason_size) {
        static const char *const names[] = { "maps", "pagemap", "mem" };

        _cleanup_free_ struct reader_request *req = calloc(1, sizeof *req);
        if (!req)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        *req = (struct reader_request) { .kind = READER_SITE, .pc = pc, .sp = sp, .frames_end = frames_end };
        if (exe && strlen(exe) < sizeof req->exe)
                strcpy(req->exe, exe);
        return ask_with(job, req, names, ELEMENTSOF(names), ret, reason, reason_size);
}

int reader_files(const struct reader_job *job, const char *exe, struct reader_answer *ret, char *reason,
                 size_t reason_size) {
        static const char *const names[] = { "maps", "mountinfo" };

        _cleanup_free_ struct reader_request *req = calloc(1, sizeof *req);
        if (!req)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        req->kind = READER_FILES;
        if (exe && strlen(exe) < sizeof req->exe)
                strcpy(req->exe, exe);
        return ask_with(job, req, names, ELEMENTSOF(names), ret, reason, reason_size);
}

int reader_cmdline(const struct reader_job *job, int dir_fd, const char *name, char **ret, size_t *ret_size,
                   char *reason, size_t reason_size) {
        _cleanup_free_ struct reader_answer *a = calloc(1, sizeof *a);
        _cleanup_free_ struct reader_request *req = calloc(1, sizeof *req);
        if (!a || !req)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
        if (fd < 0)
                return fail_reason(-errno, reason, reason_size, "cannot open the task's %s", name);
        req->kind = READER_CMDLINE;
        int k = ask(job, req, &fd, 1, a, reason, reason_size);
        safe_close(fd);
        if (k < 0)
                return k;
        *ret = TAKE_PTR(a->text);
        *ret_size = a->text_size;
        return 0;
}

int reader_proc_texts(const struct reader_job *job, char *ret[static READER_PROC_PARTS], char *reason,
                      size_t reason_size) {
        static const char *const names[READER_PROC_PARTS] = { "status", "maps", "limits" };

        _cleanup_free_ struct reader_answer *a = calloc(1, sizeof *a);
        _cleanup_free_ struct reader_request *req = calloc(1, sizeof *req);
        if (!a || !req)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        req->kind = READER_PROC;
        int k = ask_with(job, req, names, READER_PROC_PARTS, a, reason, reason_size);
        if (k < 0)
                return k;
        char *texts[READER_PROC_PARTS] = {};
        for (size_t i = 0; i < READER_PROC_PARTS; i++)
                if (!(texts[i] = strdup(a->proc[i]))) {
                        for (size_t j = 0; j < i; j++)
                                free(texts[j]);
                        reader_answer_done(a);
                        return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
                }
        reader_answer_done(a);
        memcpy(ret, texts, sizeof texts);
        return 0;
}

struct proc_mapping reader_proc_mapping(const struct reader_mapping *m, const char *path) {
        return (struct proc_mapping) {
                .start = m->start,
                .end = m->end,
                .offset = m->offset,
                .inode = m->inode,
                .dev_major = m->dev_major,
                .dev_minor = m->dev_minor,
                .path = (char *) path,
        };
}
