/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/acl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/log.h"
#include "shared/timestamp.h"
#include "shared/names.h"
#include "store/core-extent.h"
#include "store/core-writer.h"
#include "shared/fileio.h"
#include "store/store.h"

/* More than the kernel queues on a coredump socket (its send buffer, wmem_default) */
#define STREAM_BUFFER_SIZE (256 * 1024)
#define CORE_FILE_MODE 0640

/* ---- the store directory --------------------------------------------------------------------- */

int store_open(const char *path, const struct config *config, struct store **ret) {
        if (mkdir(path, 0751) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Cannot create store directory %s: %m", path);

        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return log_error_errno(errno, "Cannot open store directory %s: %m", path);

        struct store *s = calloc(1, sizeof *s);
        if (!s || !(s->path = strdup(path))) {
                free(s);
                return log_error_errno(ENOMEM, "%m");
        }
        s->dir_fd = TAKE_FD(fd);
        s->max_use = config->max_use;
        s->max_use_per_user = config->max_use_per_user;
        s->keep_free = config->keep_free;
        s->compress_level = config->compress_level;
        pthread_mutex_init(&s->vacuum_lock, NULL);
        pthread_mutex_init(&s->reserve_lock, NULL);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        (void) sem_init(&s->compress_slots, 0, (unsigned) MAX(1L, cpus / 2));
        atomic_init(&s->interrupted, false);
        *ret = s;
        return 0;
}

struct store *store_free(struct store *s) {
        if (!s)
                return NULL;
        safe_close(s->dir_fd);
        pthread_mutex_destroy(&s->vacuum_lock);
        pthread_mutex_destroy(&s->reserve_lock);
        sem_destroy(&s->compress_slots);
        free(s->path);
        free(s);
        return NULL;
}

void stored_core_done(struct stored_core *c) {
        free(c->name);
        free(c->path);
        *c = (struct stored_core) {};
}

char *store_core_name(const char *comm, uid_t uid, const char *boot_id, pid_t pid, uint64_t timestamp_usec,
                      enum compression compression) {
        _cleanup_free_ char *part = escape_filename_part(comm);
        char *name;

        if (!part)
                return NULL;
        if (asprintf(&name, "core.%s.%" PRIu32 ".%s.%" PRIi32 ".%" PRIu64 "%s", part, (uint32_t) uid, boot_id,
                     (int32_t) pid, timestamp_usec, compression == COMPRESSION_ZSTD ? ".zst" : "") < 0)
                return NULL;
        return name;
}

/* ---- metadata on the file -------------------------------------------------------------------- */

static int set_xattr(int fd, enum field field, const char *value) {
        if (!value)
                return 0;
        return fsetxattr(fd, field_table[field].xattr, value, strlen(value), 0) < 0 ? negative_errno() : 0;
}

/* The crash's fields that have an attribute (user.coredump.* as systemd-coredump sets them, and
 * ours), so that the core carries its record even when the journal loses it. */
static void store_set_xattrs(int fd, const struct fields *metadata, bool truncated, const char *tag) {
        int r = 0;

        if (!metadata)
                return; /* not a core: a file kept beside one */

        for (enum field f = 0; f < _FIELD_MAX && r >= 0; f++)
                if (field_table[f].xattr)
                        r = set_xattr(fd, f, fields_get(metadata, f));
        if (truncated && r >= 0)
                r = set_xattr(fd, FIELD_TRUNCATED, "1");

        if (r < 0)
                log_crash_errno(tag, r == -EOPNOTSUPP ? LOG_DEBUG : LOG_WARNING, r,
                                "Cannot set user.coredump.* attributes on the core: %m");
}

/* Grants the crashing user read access through an ACL entry user:<uid>:r--. */
static int store_grant_user_read(int fd, uid_t uid, const char *tag) {
        acl_t acl = NULL;
        acl_entry_t entry;
        acl_permset_t permset;
        int r = 0;

        if (uid == 0 || uid == STORE_NO_READER)
                return 0; /* root reads it anyway */

        acl = acl_get_fd(fd);
        if (!acl ||
            acl_create_entry(&acl, &entry) < 0 ||
            acl_set_tag_type(entry, ACL_USER) < 0 ||
            acl_set_qualifier(entry, &uid) < 0 ||
            acl_get_permset(entry, &permset) < 0 ||
            acl_clear_perms(permset) < 0 ||
            acl_add_perm(permset, ACL_READ) < 0 ||
            acl_calc_mask(&acl) < 0 ||
            acl_set_fd(fd, acl) < 0)
                r = negative_errno();
        if (acl)
                acl_free(acl);

        if (r < 0)
                log_crash_errno(tag, r == -EOPNOTSUPP ? LOG_NOTICE : LOG_WARNING, r,
                                "Cannot grant uid %u read access to its dump: %m", (unsigned) uid);
        return r;
}

static int store_link(struct store *s, int fd, const char *name) {
        char proc_path[64];

        snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc_path, s->dir_fd, name, AT_SYMLINK_FOLLOW) >= 0)
                return 0;
        if (errno != ENOENT)
                return negative_errno();

        /* No /proc: linking an fd directly needs CAP_DAC_READ_SEARCH, which root has. */
        return linkat(fd, "", s->dir_fd, name, AT_EMPTY_PATH) < 0 ? negative_errno() : 0;
}

/* ---- streaming ------------------------------------------------------------------------------- */

struct stream_result {
        uint64_t received;
        bool truncated;
};

/* Whether the peer has more data after we hit the cap (a blocking peek of one byte). */
static bool peer_has_more(int sock_fd) {
        char c;
        ssize_t n;
        do
                n = recv(sock_fd, &c, 1, MSG_PEEK);
        while (n < 0 && errno == EINTR);
        return n > 0;
}

/* The stream's bytes: what to do with a failed receive, and the progress the deadline watches. */
static int stream_receive_failed(int r, const struct stream_result *res, char *reason, size_t reason_size) {
        snprintf(reason, reason_size, "receiving the core failed after %" PRIu64 " bytes: %s", res->received,
                 strerror(-r));
        return r;
}

/* A plain core, socket → pipe → file with splice(): the kernel hands the stream's pages to the
 * pipe and copies them once into the file, where read()/write() copies them twice through our
 * buffer (bench/README.md has the figures). Returns -ENOTSUP before taking any byte when the
 * socket cannot splice, so that the caller receives with recv() instead (a file that cannot is
 * the writer's business: core_writer_splice()). */
static int stream_splice(int sock_fd, struct core_writer *w, uint64_t max_size, struct store_progress *progress,
                         struct stream_result *res, char *reason, size_t reason_size) {
        _cleanup_close_ int pipe_rd = -1, pipe_wr = -1;
        int p[2];

        if (w->compression != COMPRESSION_NONE || pipe2(p, O_CLOEXEC) < 0)
                return -ENOTSUP;
        pipe_rd = p[0];
        pipe_wr = p[1];
        /* A larger pipe, fewer round trips; the default 64 KiB still works. */
        int pipe_size = fcntl(pipe_wr, F_SETPIPE_SZ, STREAM_BUFFER_SIZE);
        if (pipe_size <= 0)
                pipe_size = fcntl(pipe_wr, F_GETPIPE_SZ);
        if (pipe_size <= 0)
                pipe_size = 65536;

        for (;;) {
                if (res->received >= max_size) {
                        res->truncated = peer_has_more(sock_fd);
                        return 0;
                }
                size_t want = (size_t) MIN((uint64_t) pipe_size, max_size - res->received);
                ssize_t n = splice(sock_fd, NULL, pipe_wr, NULL, want, SPLICE_F_MOVE);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if ((errno == EINVAL || errno == ENOSYS) && res->received == 0)
                                return -ENOTSUP;
                        return stream_receive_failed(negative_errno(), res, reason, reason_size);
                }
                if (n == 0)
                        return 0;
                if (progress) {
                        atomic_store(&progress->last_usec, now_monotonic_usec());
                        atomic_fetch_add(&progress->received, (uint64_t) n);
                }

                long moved = core_writer_splice(w, pipe_rd, (size_t) n);
                if (moved < 0 || moved != n) {
                        int r = moved < 0 ? (int) moved : -EIO;
                        snprintf(reason, reason_size, "writing the core failed: %s", strerror(-r));
                        return r;
                }
                res->received += (uint64_t) n;
        }
}

/* Any core, with recv() into our buffer (compressed writers, and where splice() cannot). */
static int stream_recv(int sock_fd, struct core_writer *w, uint64_t max_size, struct store_progress *progress,
                       struct stream_result *res, char *reason, size_t reason_size) {
        _cleanup_free_ uint8_t *buf = malloc(STREAM_BUFFER_SIZE);
        int r;

        if (!buf)
                return -ENOMEM;

        for (;;) {
                if (res->received >= max_size) {
                        res->truncated = peer_has_more(sock_fd);
                        return 0;
                }

                size_t want = (size_t) MIN((uint64_t) STREAM_BUFFER_SIZE, max_size - res->received);
                ssize_t n = recv(sock_fd, buf, want, 0);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return stream_receive_failed(negative_errno(), res, reason, reason_size);
                }
                if (n == 0)
                        return 0;
                if (progress) {
                        atomic_store(&progress->last_usec, now_monotonic_usec());
                        atomic_fetch_add(&progress->received, (uint64_t) n);
                }

                r = core_writer_write(w, buf, (size_t) n);
                if (r < 0) {
                        snprintf(reason, reason_size, "writing the core failed: %s", strerror(-r));
                        return r;
                }
                res->received += (uint64_t) n;
        }
}

static int stream_into(int sock_fd, struct core_writer *w, uint64_t max_size, struct store_progress *progress,
                       struct stream_result *res, char *reason, size_t reason_size) {
        int r = stream_splice(sock_fd, w, max_size, progress, res, reason, reason_size);
        if (r != -ENOTSUP)
                return r;
        return stream_recv(sock_fd, w, max_size, progress, res, reason, reason_size);
}

/* A stream that ended early is not a core: the peer vanished, or the deadline cut it. */
static int stream_check_complete(struct core_writer *w, const struct stream_result *res,
                                 struct store_progress *progress, char *reason, size_t reason_size) {
        uint64_t expected;
        int r;

        if (res->truncated)
                return 0;
        if (progress && atomic_load(&progress->expired)) {
                const char *why = atomic_load(&progress->expired_why);
                snprintf(reason, reason_size, "deadline reached%s%s%s after %" PRIu64 " bytes of core", why ? " (" : "",
                         why ? why : "", why ? ")" : "", res->received);
                return -ETIMEDOUT;
        }
        if (res->received == 0) {
                snprintf(reason, reason_size, "the kernel sent no core data");
                return -ENODATA;
        }
        if (w->compression != COMPRESSION_NONE)
                return 0; /* streamed cores are taken plain (crash/steps.c); nothing to read back here */
        r = core_writer_finish(w); /* the file's length, trailing hole included */
        if (r < 0) {
                snprintf(reason, reason_size, "finishing the core failed: %s", strerror(-r));
                return r;
        }
        r = core_extent_of_file(w->fd, &expected);
        if (r > 0 && res->received < expected) {
                snprintf(reason, reason_size,
                         "core ended after %" PRIu64 " of %" PRIu64 " bytes (the peer vanished mid-stream)",
                         res->received, expected);
                return -EPIPE;
        }
        return 0;
}

static int store_finish_file(int fd, const struct store_target *t, bool truncated, char *reason,
                             size_t reason_size) {
        if (fchmod(fd, CORE_FILE_MODE) < 0 || (geteuid() == 0 && fchown(fd, 0, 0) < 0)) {
                int r = negative_errno();
                snprintf(reason, reason_size, "cannot set owner and mode of the core: %s", strerror(-r));
                return r;
        }

        store_set_xattrs(fd, t->metadata, truncated, t->tag);
        (void) store_grant_user_read(fd, t->reader_uid, t->tag);

        if (fdatasync(fd) < 0) {
                int r = negative_errno();
                snprintf(reason, reason_size, "cannot sync the core: %s", strerror(-r));
                return r;
        }
        return 0;
}

/* Fills the dump from the kernel's stream on the coredump socket. */
struct socket_fill {
        int sock_fd;
        uint64_t max_size;
        struct store_progress *progress;
};

static int fill_from_socket(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                            size_t reason_size) {
        const struct socket_fill *f = userdata;
        struct stream_result res = {};

        int r = stream_into(f->sock_fd, w, f->max_size, f->progress, &res, reason, reason_size);
        if (r >= 0)
                r = stream_check_complete(w, &res, f->progress, reason, reason_size);
        *ret_truncated = res.truncated;
        return r;
}

int store_core(struct store *s, int sock_fd, const struct store_target *t, struct store_progress *progress,
               struct stored_core *ret, char *reason, size_t reason_size) {
        struct socket_fill fill = {
                .sock_fd = sock_fd,
                .max_size = t->max_size,
                .progress = progress,
        };

        return store_core_generated(s, t, fill_from_socket, &fill, ret, reason, reason_size);
}

/* ---- any core: written by a fill function into an unnamed file, then linked ------------------- */

int store_core_generated(struct store *s, const struct store_target *t, store_generate_fn generate,
                         void *userdata, struct stored_core *ret, char *reason, size_t reason_size) {
        _cleanup_(core_writer_done) struct core_writer writer = {};
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *name = NULL, *path = NULL;
        bool truncated = false;
        int r;

        name = strdup(t->name);
        if (!name || asprintf(&path, "%s/%s", s->path, name) < 0) {
                path = NULL;
                snprintf(reason, reason_size, "out of memory");
                return -ENOMEM;
        }
        fd = openat(s->dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC | O_NOFOLLOW, CORE_FILE_MODE);
        if (fd < 0) {
                r = negative_errno();
                snprintf(reason, reason_size, "cannot create an unnamed file (O_TMPFILE) in %s: %s", s->path,
                         strerror(-r));
                return r;
        }
        r = core_writer_init(&writer, fd, t->compress, s->compress_level);
        if (r < 0) {
                snprintf(reason, reason_size, "cannot set up the compressor: %s", strerror(-r));
                return r;
        }

        r = generate(&writer, userdata, &truncated, reason, reason_size);
        if (r >= 0) {
                r = core_writer_finish(&writer);
                if (r < 0)
                        snprintf(reason, reason_size, "finishing the core failed: %s", strerror(-r));
        }
        if (r >= 0)
                r = store_finish_file(fd, t, truncated, reason, reason_size);
        if (r >= 0) {
                r = store_link(s, fd, name);
                if (r < 0)
                        snprintf(reason, reason_size, "cannot link the core as %s: %s", path, strerror(-r));
        }
        if (r < 0)
                return r;

        struct stat st;
        *ret = (struct stored_core) {
                .name = TAKE_PTR(name),
                .path = TAKE_PTR(path),
                .size = writer.size,
                .disk_size = fstat(fd, &st) >= 0 ? (uint64_t) st.st_blocks * 512 : 0,
                .truncated = truncated,
                .linked_usec = now_usec(),
                .compression = t->compress,
        };
        if (truncated)
                log_crash(t->tag, LOG_WARNING, "Core truncated at %" PRIu64 " bytes (MaxSize=).", writer.size);
        return 0;
}

/* ---- compression after the task is released -------------------------------------------------- */

void store_interrupt(struct store *s) {
        atomic_store(&s->interrupted, true);
}

struct file_fill {
        struct store *store;
        int fd;
        const char *what;       /* for the reason: "the plain core", "the file" */
        uint64_t max_size;      /* bytes read at most; the file must not be longer (-EFBIG) */
        bool truncated;         /* the plain core was already cut at MaxSize= */
};

/* Fills from a regular file, from its start whatever its offset: a plain core to compress, or a
 * file kept beside a core. */
static int fill_from_file(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                          size_t reason_size) {
        struct file_fill *f = userdata;
        _cleanup_free_ uint8_t *buf = malloc(STREAM_BUFFER_SIZE);
        uint64_t offset = 0;

        if (!buf)
                return -ENOMEM;
        (void) posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        for (;;) {
                if (atomic_load(&f->store->interrupted)) {
                        snprintf(reason, reason_size, "interrupted: the daemon is stopping");
                        return -ECANCELED;
                }
                ssize_t n = pread(f->fd, buf, STREAM_BUFFER_SIZE, (off_t) offset);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = negative_errno();
                        snprintf(reason, reason_size, "reading %s failed: %s", f->what, strerror(-r));
                        return r;
                }
                if (n == 0)
                        break;
                if ((uint64_t) n > f->max_size - offset) {
                        snprintf(reason, reason_size, "longer than the %" PRIu64 " bytes left", f->max_size);
                        return -EFBIG;
                }
                offset += (uint64_t) n;
                int r = core_writer_write(w, buf, (size_t) n);
                if (r < 0) {
                        snprintf(reason, reason_size, "writing the copy failed: %s", strerror(-r));
                        return r;
                }
        }
        *ret_truncated = f->truncated;
        return 0;
}

/* Low CPU and I/O priority for the calling thread (best effort: Linux applies both per thread). */
static void thread_lower_priority(void) {
        pid_t tid = (pid_t) syscall(SYS_gettid);
        (void) setpriority(PRIO_PROCESS, (id_t) tid, 10);
        /* IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT, for IOPRIO_WHO_PROCESS */
        (void) syscall(SYS_ioprio_set, 1, tid, 3 << 13);
}

int store_compress(struct store *s, struct stored_core *plain, const struct store_target *t, char *reason,
                   size_t reason_size) {
        struct file_fill fill = {
                .store = s,
                .what = "the plain core",
                .max_size = UINT64_MAX,
                .truncated = plain->truncated,
        };
        struct stored_core compressed = {};
        int r;

        fill.fd = openat(s->dir_fd, plain->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fill.fd < 0) {
                r = negative_errno();
                snprintf(reason, reason_size, "cannot open the plain core: %s", strerror(-r));
                return r;
        }

        /* Wait for a slot, looking up every 100 ms in case the daemon is stopping. */
        for (;;) {
                struct timespec until = realtime_after(100 * 1000);
                if (sem_timedwait(&s->compress_slots, &until) == 0)
                        break;
                if (atomic_load(&s->interrupted)) {
                        safe_close(fill.fd);
                        snprintf(reason, reason_size, "interrupted: the daemon is stopping");
                        return -ECANCELED;
                }
        }
        thread_lower_priority();
        r = store_core_generated(s, t, fill_from_file, &fill, &compressed, reason, reason_size);
        (void) sem_post(&s->compress_slots);
        safe_close(fill.fd);
        if (r < 0)
                return r;

        if (unlinkat(s->dir_fd, plain->name, 0) < 0)
                log_crash_errno(t->tag, LOG_WARNING, errno, "Cannot remove the plain core %s after compressing it: %m",
                                plain->path);
        compressed.linked_usec = plain->linked_usec;
        stored_core_done(plain);
        *plain = compressed;
        return 0;
}

/* ---- generating in a process that can be killed ---------------------------------------------- */

struct child_share {
        int r;
        bool done;
        bool truncated;
        uint64_t size;
        char reason[256];
        uint8_t result[];
};

/* In the writer's process: it must not hold other crashes' connections (their tasks would stay held
 * while it runs), nor the listening socket. What it needs (the file, /proc, BPF maps) is no socket. */
static void close_sockets(void) {
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d))) {
                struct stat st;
                int fd = atoi(de->d_name);
                if (fd > STDERR_FILENO && fd != dirfd(d) && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
                        (void) close(fd);
        }
        closedir(d);
}

int store_generate_killable(struct core_writer *w, store_generate_fn generate, void *userdata,
                            const atomic_bool *cancel, void *result, size_t result_size, bool *ret_truncated,
                            char *reason, size_t reason_size) {
        size_t share_size = sizeof(struct child_share) + result_size;
        struct child_share *share = mmap(NULL, share_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        int r;

        if (share == MAP_FAILED) {
                r = negative_errno();
                snprintf(reason, reason_size, "cannot map memory to share with the core's writer: %s", strerror(-r));
                return r;
        }

        pid_t pid = fork();
        if (pid < 0) {
                r = negative_errno();
                munmap(share, share_size);
                snprintf(reason, reason_size, "cannot start the core's writer: %s", strerror(-r));
                return r;
        }
        if (pid == 0) {
                /* The child: only this thread exists here; locks other threads held stay held. */
                log_after_fork();
                close_sockets();
                bool truncated = false;
                r = generate(w, userdata, &truncated, share->reason, sizeof share->reason);
                if (r >= 0)
                        r = core_writer_finish(w);
                share->r = r;
                share->truncated = truncated;
                share->size = w->size;
                if (result_size > 0)
                        memcpy(share->result, result, result_size);
                share->done = true;
                _exit(0);
        }

        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        bool killed = false, abandoned = false;
        uint64_t killed_usec = 0;
        for (;;) {
                if (pidfd >= 0) {
                        struct pollfd p = { .fd = pidfd, .events = POLLIN };
                        if (poll(&p, 1, 50) > 0)
                                break;
                } else {
                        if (waitpid(pid, NULL, WNOHANG) == pid) {
                                pid = -1; /* reaped already */
                                break;
                        }
                        usleep(50000);
                }
                if (cancel && atomic_load(cancel) && !killed) {
                        (void) kill(pid, SIGKILL);
                        killed = true;
                        killed_usec = now_monotonic_usec();
                } else if (killed && now_monotonic_usec() - killed_usec > CHILD_KILL_GRACE_USEC) {
                        /* SIGKILL did not end it: it waits in the kernel where no signal reaches
                         * (a file system whose server does not answer). Do not wait with it. */
                        abandoned = true;
                        break;
                }
        }
        int status = 0;
        if (abandoned)
                child_reap_later(pid);
        else if (pid > 0)
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
        safe_close(pidfd);

        if (abandoned) {
                snprintf(reason, reason_size,
                         "deadline reached while writing the core: its writer was killed, but is stuck in the kernel; "
                         "left to end on its own");
                r = -ETIMEDOUT;
        } else if (killed && !share->done) {
                snprintf(reason, reason_size, "deadline reached while writing the core: its writer was killed");
                r = -ETIMEDOUT;
        } else if (!share->done) {
                snprintf(reason, reason_size, "the core's writer died (%s %d)",
                         WIFSIGNALED(status) ? "signal" : "exit status",
                         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
                r = -EIO;
        } else if (share->r < 0) {
                snprintf(reason, reason_size, "%s", share->reason);
                r = share->r;
        } else {
                core_writer_adopt(w, share->size);
                *ret_truncated = share->truncated;
                if (result_size > 0)
                        memcpy(result, share->result, result_size);
                r = 0;
        }
        munmap(share, share_size);
        return r;
}

/* ---- files kept with a core ------------------------------------------------------------------ */

#define ATTACHMENT_INFIX ".file-"

char *store_attachment_name(const char *core_name, unsigned n) {
        size_t len = strlen(core_name);
        char *name;

        if (len >= 4 && strcmp(core_name + len - 4, ".zst") == 0)
                len -= 4;
        if (asprintf(&name, "%.*s" ATTACHMENT_INFIX "%u", (int) len, core_name, n) < 0)
                return NULL;
        return name;
}

bool store_name_is_attachment(const char *name, size_t *ret_base_len) {
        if (strncmp(name, "core.", 5) != 0)
                return false;
        const char *p = strstr(name + 5, ATTACHMENT_INFIX);
        if (!p || p == name + 5)
                return false; /* a core's name comes first */
        const char *digits = p + strlen(ATTACHMENT_INFIX);
        if (!*digits || strspn(digits, "0123456789") != strlen(digits))
                return false;
        if (ret_base_len)
                *ret_base_len = (size_t) (p - name);
        return true;
}

int store_save_file(struct store *s, int src_fd, const char *name, uid_t reader_uid, uint64_t max_size,
                    uint64_t *ret_disk_size, const char *tag, char *reason, size_t reason_size) {
        struct file_fill fill = { .store = s, .fd = src_fd, .what = "the file", .max_size = max_size };
        const struct store_target t = {
                .name = name,
                .reader_uid = reader_uid,
                .max_size = max_size,
                .compress = COMPRESSION_NONE,
                .tag = tag,
        };
        struct stored_core saved = {};
        struct stat st;

        if (fstat(src_fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                snprintf(reason, reason_size, "not a regular file");
                return -EBADF;
        }
        if ((uint64_t) st.st_size > max_size) {
                snprintf(reason, reason_size, "%" PRIu64 " bytes, more than the %" PRIu64 " left", (uint64_t) st.st_size,
                         max_size);
                return -EFBIG;
        }
        int r = store_core_generated(s, &t, fill_from_file, &fill, &saved, reason, reason_size);
        if (r < 0)
                return r;
        if (ret_disk_size)
                *ret_disk_size = saved.disk_size;
        stored_core_done(&saved);
        return 0;
}
