/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <systemd/sd-id128.h>
#include <time.h>
#include <unistd.h>

#include "crash/cgroup-names.h"
#include "crash/context-memory.h"
#include "crash/context.h"
#include "selfdump/task-files.h"
#include "selfdump/proc-threads.h"
#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/fileio.h"
#include "shared/log.h"
#include "shared/timestamp.h"
#include "shared/parse.h"

#define SMALL_FILE_MAX (16 * 1024)
#define AUXV_MAX (8 * 1024)

/* ---- pure parsers ---------------------------------------------------------------------------- */

int parse_limits_core(const char *limits, uint64_t *ret_soft) {
        static const char key[] = "Max core file size";

        for (const char *line = limits; line && *line;) {
                const char *eol = strchr(line, '\n');
                if (strncmp(line, key, strlen(key)) == 0) {
                        const char *p = line + strlen(key);
                        p += strspn(p, " \t");
                        if (strncmp(p, "unlimited", 9) == 0) {
                                *ret_soft = RLIMIT_UNLIMITED;
                                return 0;
                        }
                        char *end;
                        errno = 0;
                        unsigned long long v = strtoull(p, &end, 10);
                        if (errno != 0 || end == p || (*end != ' ' && *end != '\t'))
                                return -EINVAL;
                        *ret_soft = v;
                        return 0;
                }
                line = eol ? eol + 1 : NULL;
        }
        return -ENOENT;
}

/* auxv is a vector of (type, value) pairs of the process's word size, ended by AT_NULL. */
#define DEFINE_AUXV_SCAN(bits)                                                                        \
        static int auxv_scan_##bits(const void *data, size_t size, int *ret) {                         \
                const size_t pair = 2 * sizeof(uint##bits##_t);                                       \
                if (size == 0 || size % pair != 0)                                                    \
                        return -EINVAL;                                                               \
                int secure = -1;                                                                      \
                for (size_t off = 0; off < size; off += pair) {                                       \
                        uint##bits##_t type, value;                                                   \
                        memcpy(&type, (const uint8_t *) data + off, sizeof type);                     \
                        memcpy(&value, (const uint8_t *) data + off + sizeof type, sizeof value);     \
                        if (type == AT_NULL) {                                                        \
                                if (value != 0 || secure < 0)                                         \
                                        return -EINVAL;                                               \
                                *ret = secure;                                                        \
                                return 0;                                                             \
                        }                                                                             \
                        if (type > 4096) /* no such AT_ type: wrong word size */                      \
                                return -EINVAL;                                                       \
                        if (type == AT_SECURE) {                                                      \
                                if (value > 1)                                                        \
                                        return -EINVAL;                                               \
                                secure = (int) value;                                                 \
                        }                                                                             \
                }                                                                                     \
                return -EINVAL;                                                                       \
        }
DEFINE_AUXV_SCAN(64)
DEFINE_AUXV_SCAN(32)

int parse_auxv_at_secure(const void *data, size_t size, int *ret) {
        /* Try the native word size first; a 32-bit process on a 64-bit kernel has a 32-bit auxv. */
        if (sizeof(long) == 8 && auxv_scan_64(data, size, ret) == 0)
                return 0;
        return auxv_scan_32(data, size, ret);
}

int parse_proc_cgroup(const char *text, char **ret_path) {
        const char *v1_systemd = NULL;

        for (const char *line = text; line && *line;) {
                const char *eol = strchr(line, '\n');
                size_t len = eol ? (size_t) (eol - line) : strlen(line);

                if (len >= 3 && strncmp(line, "0::", 3) == 0) {
                        char *p = strndup(line + 3, len - 3);
                        if (!p)
                                return -ENOMEM;
                        *ret_path = p;
                        return 0;
                }
                const char *colon = memchr(line, ':', len);
                if (colon && (size_t) (line + len - colon) > 15 && strncmp(colon, ":name=systemd:", 14) == 0)
                        v1_systemd = line;
                line = eol ? eol + 1 : NULL;
        }

        if (v1_systemd) {
                const char *p = strstr(v1_systemd, ":name=systemd:") + 14;
                char *path = strndup(p, strcspn(p, "\n"));
                if (!path)
                        return -ENOMEM;
                *ret_path = path;
                return 0;
        }
        return -ENOENT;
}

static bool has_suffix(const char *s, size_t n, const char *suffix) {
        size_t k = strlen(suffix);
        return n > k && memcmp(s + n - k, suffix, k) == 0;
}

static bool is_unit_name(const char *s, size_t n) {
        static const char *const suffixes[] = { ".service", ".scope", ".socket", ".mount", ".swap", ".timer" };
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (has_suffix(s, n, suffixes[i]))
                        return true;
        return false;
}

/* "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service" → unit user@1000.service,
 * user unit foo.service, slice user-1000.slice. */
int cgroup_path_to_units(const char *path, char **ret_unit, char **ret_user_unit, char **ret_slice) {
        const char *unit = NULL, *user_unit = NULL, *slice = NULL;
        size_t unit_len = 0, user_unit_len = 0, slice_len = 0;

        for (const char *p = path; *p;) {
                p += strspn(p, "/");
                size_t n = strcspn(p, "/");
                if (n == 0)
                        break;

                if (!unit) {
                        if (has_suffix(p, n, ".slice")) {
                                slice = p;
                                slice_len = n;
                        } else if (is_unit_name(p, n)) {
                                unit = p;
                                unit_len = n;
                        } else
                                break;
                } else if (strncmp(unit, "user@", 5) == 0 && !user_unit && !has_suffix(p, n, ".slice")) {
                        if (is_unit_name(p, n)) {
                                user_unit = p;
                                user_unit_len = n;
                        }
                        break;
                } else if (strncmp(unit, "user@", 5) != 0)
                        break;
                p += n;
        }

        *ret_unit = unit ? strndup(unit, unit_len) : NULL;
        *ret_user_unit = user_unit ? strndup(user_unit, user_unit_len) : NULL;
        *ret_slice = slice ? strndup(slice, slice_len) : strdup("-.slice");
        if ((unit && !*ret_unit) || (user_unit && !*ret_user_unit) || !*ret_slice) {
                free(*ret_unit);
                free(*ret_user_unit);
                free(*ret_slice);
                return -ENOMEM;
        }
        return 0;
}

/* ---- gathering ------------------------------------------------------------------------------- */

/* A pidfd polls readable once its process has exited; until then its pid cannot be reused. Needs no
 * permission over the process, unlike signalling it. */
static bool pidfd_has_exited(int pidfd) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        return poll(&p, 1, 0) != 0; /* readable, or an error: either way not provably alive */
}

int proc_root_check(int fd, char *reason, size_t size) {
        struct statfs sfs;
        struct stat st;

        if (fstatfs(fd, &sfs) < 0) {
                int r = negative_errno();
                snprintf(reason, size, "cannot statfs /proc: %s", strerror(-r));
                return r;
        }
        if ((uint64_t) sfs.f_type != PROC_SUPER_MAGIC) {
                snprintf(reason, size, "/proc is not procfs (file system type 0x%llx), refusing to trust it",
                         (unsigned long long) sfs.f_type);
                return -EXDEV;
        }
        if (fstat(fd, &st) < 0) {
                int r = negative_errno();
                snprintf(reason, size, "cannot stat /proc: %s", strerror(-r));
                return r;
        }
        if (st.st_ino != PROCFS_ROOT_INODE) {
                snprintf(reason, size, "/proc is not the root of a procfs mount (inode %llu), refusing to trust it",
                         (unsigned long long) st.st_ino);
                return -EXDEV;
        }
        return 0;
}

/* The host's cgroup2 hierarchy, where the paths of /proc/<pid>/cgroup's "0::" line start. */
static int cgroup2_root_open(void) {
        static const char *const candidates[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
        for (size_t i = 0; i < ELEMENTSOF(candidates); i++) {
                int fd = open(candidates[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
                struct statfs sfs;
                if (fd >= 0 && fstatfs(fd, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC)
                        return fd;
                safe_close(fd);
        }
        return -1;
}

void host_view_open(const char *proc_path, struct host_view *ret) {
        *ret = (struct host_view) { .proc_fd = -1, .cgroup_fd = -1, .null_page_end = 4096, .boot_id = "unknown" };
        proc_path = proc_path ?: "/proc";
        ret->cgroup_fd = cgroup2_root_open();
        ret->cgroup_names = cgroup_names_new(); /* NULL: every crash reads its cgroup */

        sd_id128_t boot;
        if (sd_id128_get_boot(&boot) >= 0)
                sd_id128_to_string(boot, ret->boot_id);

        _cleanup_close_ int fd = open(proc_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                snprintf(ret->refused, sizeof ret->refused, "cannot open %s: %s", proc_path, strerror(errno));
                return;
        }
        if (proc_root_check(fd, ret->refused, sizeof ret->refused) < 0)
                return;

        _cleanup_free_ char *min_addr = NULL;
        unsigned long long v = 0;
        if (read_file_at(fd, "sys/vm/mmap_min_addr", 64, &min_addr, NULL, NULL) >= 0 &&
            sscanf(min_addr, "%llu", &v) == 1 && v > ret->null_page_end)
                ret->null_page_end = v;
        host_namespaces_read(fd, &ret->ns);
        ret->proc_fd = TAKE_FD(fd);
}

void host_view_close(struct host_view *v) {
        safe_close(v->proc_fd);
        safe_close(v->cgroup_fd);
        cgroup_names_free(v->cgroup_names);
        *v = (struct host_view) { .proc_fd = -1, .cgroup_fd = -1 };
}

/* Opens <proc root>/<pid> and proves, via the pidfd, that it is the crashed process: the pidfd
 * still names that pid and the process is still alive after the open, so the pid cannot have been
 * recycled in between. */
static int context_open_proc_dir(const struct peer *peer, int proc_root_fd, pid_t pid, const char *tag) {
        char path[32];
        struct pidfd_info now;
        int r;

        snprintf(path, sizeof path, "%" PRIi32, (int32_t) pid);
        _cleanup_close_ int fd = openat(proc_root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return log_crash_errno(tag, LOG_ERR, errno, "Cannot open /proc/%s: %m", path);

        r = pidfd_query_info(peer->pidfd, PIDFD_INFO_PID, &now);
        if (r < 0)
                return log_crash_errno(tag, LOG_ERR, r, "Cannot re-query the pidfd after opening /proc/%s: %m", path);
        if ((pid_t) now.tgid != pid && (pid_t) now.pid != pid)
                return log_crash_errno(tag, LOG_ERR, ESTALE, "pidfd names pid %u, not %" PRIi32 ": %m",
                                       now.tgid, (int32_t) pid);
        if (pidfd_has_exited(peer->pidfd))
                return log_crash_errno(tag, LOG_ERR, ESRCH, "Process exited while opening /proc/%s: %m", path);

        return TAKE_FD(fd);
}

/* COREDUMPD_CRASH_ID: the pidfd's inode where pidfds live on pidfs (unique in a boot; known
 * before /proc is read, so even a crash whose context fails has it), else the pid and its start
 * time (CONTEXT_START, once /proc/<pid>/stat is read). */
static void gather_crash_id_pidfs(const struct peer *peer, struct crash_context *c) {
        struct statfs sfs;
        struct stat st;

        if (fstatfs(peer->pidfd, &sfs) == 0 && (uint64_t) sfs.f_type == PID_FS_MAGIC && fstat(peer->pidfd, &st) == 0)
                (void) crash_id_from_pidfs(c->crash_id, c->boot_id, (uint64_t) st.st_ino);
}

static void gather_comm(int proc_fd, struct crash_context *c) {
        const char *tag = c->tag;
        int r = read_file_at(proc_fd, "comm", SMALL_FILE_MAX, &c->comm, NULL, NULL);
        if (r < 0)
                log_crash_errno(tag, LOG_WARNING, r, "Cannot read comm: %m");
        else
                strip_trailing_newlines(c->comm);
}

static void gather_exe(int proc_fd, struct crash_context *c) {
        const char *tag = c->tag;
        int r = read_link_at(proc_fd, "exe", &c->exe);
        if (r < 0)
                log_crash_errno(tag, LOG_WARNING, r, "Cannot read exe: %m");
}

#define JOURNALD_UNIT "systemd-journald.service"
static const char *const journald_paths[] = { "/usr/lib/systemd/systemd-journald", "/lib/systemd/systemd-journald" };

bool context_is_journald(const struct crash_context *c) {
        struct stat task_exe, ours;
        bool named = false;

        if (!c->unit || strcmp(c->unit, JOURNALD_UNIT) != 0 || !c->exe || c->proc_fd < 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(journald_paths); i++)
                named = named || strcmp(c->exe, journald_paths[i]) == 0;
        if (!named || fstatat(c->proc_fd, "exe", &task_exe, 0) < 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(journald_paths); i++)
                if (stat(journald_paths[i], &ours) >= 0 && S_ISREG(ours.st_mode) && ours.st_dev == task_exe.st_dev &&
                    ours.st_ino == task_exe.st_ino)
                        return true;
        return false;
}

/* The cgroup's path: from the table of cgroups seen before when the pidfd's cgroup id is there (no
 * file of the task's is read, no system call made), else from /proc/<pid>/cgroup, walking the tree
 * for the delegation boundary, and kept for the next crash from it once the path is seen to lead to
 * the pidfd's id. Then the unit, slice and container name from the path. */
static void gather_cgroup(int proc_fd, struct crash_context *c) {
        const struct host_view *host = c->host;
        const char *tag = c->tag;
        _cleanup_(cgroup_name_done) struct cgroup_name known = { .delegated_to = -1 };
        _cleanup_free_ char *text = NULL;
        int r;

        r = cgroup_names_get(host->cgroup_names, c->cgroup_id, &known);
        if (r > 0) {
                c->cgroup = TAKE_PTR(known.path);
                c->cgroup_cached = true;
        } else {
                r = read_file_at(proc_fd, "cgroup", SMALL_FILE_MAX, &text, NULL, NULL);
                if (r >= 0)
                        r = parse_proc_cgroup(text, &c->cgroup);
                if (r >= 0) {
                        known.trusted_len = cgroup_delegation_boundary(host->cgroup_fd, c->cgroup, &known.delegated_to);
                        uint64_t id;
                        known.path = c->cgroup;
                        /* A task moved meanwhile, or no cgroup2: nothing is kept. */
                        if (c->cgroup_id && cgroup_id_of_path(host->cgroup_fd, c->cgroup, &id) >= 0 &&
                            id == c->cgroup_id && cgroup_names_put(host->cgroup_names, id, &c->owner, &known) < 0)
                                log_crash(tag, LOG_DEBUG, "Out of memory keeping the cgroup's name.");
                        known.path = NULL;
                }
        }
        if (r >= 0)
                r = cgroup_path_to_units(c->cgroup, &c->unit, &c->user_unit, &c->slice);
        if (r < 0)
                log_crash_errno(tag, LOG_WARNING, r, "Cannot determine cgroup: %m");
        else
                container_info_name_known(c->cgroup, known.trusted_len, known.delegated_to, tag, &c->container);
}

static void gather_rlimit(int proc_fd, struct crash_context *c) {
        const char *tag = c->tag;
        _cleanup_free_ char *text = NULL;

        int r = read_file_at(proc_fd, "limits", SMALL_FILE_MAX, &text, NULL, NULL);
        if (r >= 0)
                r = parse_limits_core(text, &c->rlimit_core);
        if (r < 0)
                log_crash_errno(tag, LOG_WARNING, r, "Cannot determine RLIMIT_CORE: %m");
        else
                c->rlimit_known = true;
}

static void gather_at_secure(int proc_fd, struct crash_context *c) {
        const char *tag = c->tag;
        _cleanup_free_ char *data = NULL;
        size_t size;

        c->at_secure = -1;
        int r = read_file_at(proc_fd, "auxv", AUXV_MAX, &data, &size, NULL);
        if (r >= 0)
                r = parse_auxv_at_secure(data, size, &c->at_secure);
        if (r < 0)
                log_crash_errno(tag, LOG_WARNING, r, "Cannot determine AT_SECURE, treating the process as setuid: %m");
}

static void gather_start_time(int proc_fd, struct crash_context *c) {
        struct proc_stat stat;

        if (proc_stat_read(proc_fd, &stat) >= 0) {
                c->start_time_known = true;
                c->start_time = stat.start_time;
        }
}

static bool signal_has_fault_address(int signo, int si_code) {
        /* Kernel-generated (si_code > 0) SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGTRAP carry si_addr; for the
         * others the union holds a sender's pid and uid. */
        return si_code > 0 &&
               (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL || signo == SIGFPE || signo == SIGTRAP);
}

/* The probe's record of this crash, if any (have_probe, fault_addr, si_code). */
static void gather_probe(struct probe *probe, struct crash_context *c) {
        const char *tag = c->tag;

        if (!probe || !c->start_time_known)
                return;

        int r = probe_take(probe, c->pid, c->signal, c->si_code_known, c->si_code, c->start_time, &c->probe);
        if (r == -ESTALE)
                log_crash(tag, LOG_NOTICE, "The probe's record for this pid belongs to another crash; ignoring it.");
        if (r < 0) {
                if (r == -ENOENT)
                        log_crash(tag, LOG_DEBUG, "The crash-context probe has no record of this crash.");
                return;
        }
        c->have_probe = true;
        if (!c->si_code_known) {
                c->si_code_known = true;
                c->si_code = c->probe.si_code;
        }
        c->fault_addr_known = signal_has_fault_address(c->probe.signo, c->probe.si_code);
        c->fault_addr = c->fault_addr_known ? c->probe.fault_addr : 0;
}

static void gather_host(const struct host_view *host, struct crash_context *c) {
        snprintf(c->boot_id, sizeof c->boot_id, "%s", host->boot_id);
        if (gethostname(c->hostname, sizeof c->hostname - 1) < 0)
                c->hostname[0] = 0;
        c->hostname[sizeof c->hostname - 1] = 0;
}

int context_open(const struct peer *peer, const struct host_view *host, struct probe *probe, const char *tag,
                 struct crash_context *c) {
        const struct pidfd_info *info = &peer->info;
        uint64_t t0 = now_monotonic_usec();

        *c = (struct crash_context) {
                .tag = tag,
                .host = host,
                .prober = probe,
                .pid = (pid_t) (info->tgid ? info->tgid : info->pid),
                .owner = peer->tenant,
                .uid = info->ruid,
                .euid = info->euid,
                .gid = info->rgid,
                .egid = info->egid,
                .signal = (info->mask & PIDFD_INFO_COREDUMP_SIGNAL) ? (int) info->coredump_signal : 0,
                .dumpable = (info->mask & PIDFD_INFO_COREDUMP) && (info->coredump_mask & PIDFD_COREDUMP_USER),
                .cgroup_id = (info->mask & PIDFD_INFO_CGROUPID) ? info->cgroupid : 0,
                .si_code_known = info->mask & PIDFD_INFO_COREDUMP_CODE,
                .si_code = (info->mask & PIDFD_INFO_COREDUMP_CODE) ? (int) info->coredump_code : 0,
                .null_page_end = host->null_page_end,
                .proc_fd = -1,
                .root_fd = -1,
                .at_secure = -1,
                .timestamp_usec = now_usec(),
                .container = { .ns_uid = -1, .ns_gid = -1, .delegated_to = -1 },
        };
        gather_host(host, c);
        gather_crash_id_pidfs(peer, c);

        if (host->proc_fd < 0) {
                snprintf(c->refused, sizeof c->refused, "%s", host->refused);
                return log_crash_errno(tag, LOG_ERR, EXDEV, "Not reading the crash's context: %s", host->refused);
        }
        int proc_fd = context_open_proc_dir(peer, host->proc_fd, c->pid, tag);
        c->read_usec = now_monotonic_usec() - t0;
        if (proc_fd < 0)
                return proc_fd;
        c->proc_fd = proc_fd;
        c->opened = true;
        return 0;
}

void context_read(struct crash_context *c, unsigned parts) {
        if (!c->opened)
                return;
        /* What each part needs first. */
        if ((parts & CONTEXT_CRASH_ID) && !c->crash_id[0])
                parts |= CONTEXT_START;
        if (parts & CONTEXT_PROBE)
                parts |= CONTEXT_START;
        if (parts & (CONTEXT_CONTAINER | CONTEXT_MEMORY))
                parts |= CONTEXT_CGROUP | CONTEXT_CONTAINER;
        parts &= ~c->parts;
        if (parts == 0)
                return;

        uint64_t t0 = now_monotonic_usec();
        int fd = c->proc_fd;
        if (parts & CONTEXT_COMM)
                gather_comm(fd, c);
        if (parts & CONTEXT_EXE)
                gather_exe(fd, c);
        if (parts & CONTEXT_CGROUP)
                gather_cgroup(fd, c);
        if (parts & CONTEXT_RLIMIT)
                gather_rlimit(fd, c);
        if (parts & CONTEXT_AT_SECURE)
                gather_at_secure(fd, c);
        if (parts & CONTEXT_START) {
                gather_start_time(fd, c);
                if (!c->crash_id[0] && c->start_time_known)
                        (void) crash_id_from_start_time(c->crash_id, c->boot_id, c->pid, c->start_time);
        }
        if (parts & CONTEXT_PROBE)
                gather_probe(c->prober, c);
        if (parts & CONTEXT_CONTAINER)
                container_info_gather(fd, &c->host->ns, c->uid, c->gid, c->tag, &c->container);
        if (parts & CONTEXT_MEMORY)
                context_read_memory(c); /* by the crash's reader (crash/context-memory.c) */
        c->parts |= parts;
        c->read_usec += now_monotonic_usec() - t0;
}

void context_done(struct crash_context *c) {
        free(c->comm);
        free(c->exe);
        free(c->cmdline);
        for (size_t i = 0; i < READER_PROC_PARTS; i++)
                free(c->proc_text[i]);
        free(c->cgroup);
        free(c->unit);
        free(c->user_unit);
        free(c->slice);
        unwind_result_done(&c->unwind);
        container_info_done(&c->container);
        safe_close(c->proc_fd);
        safe_close(c->root_fd);
        *c = (struct crash_context) { .proc_fd = -1, .root_fd = -1, .at_secure = -1, .container = { .ns_uid = -1, .ns_gid = -1, .delegated_to = -1 } };
}

int context_open_root(struct crash_context *c, const char *tag) {
        if (c->root_looked_at)
                return c->root_fd >= 0;
        c->root_looked_at = true;
        if (c->proc_fd < 0)
                return 0;
        int r = task_root_open(c->proc_fd, c->have_probe ? c->probe.tid : 0, &c->root_fd);
        if (r < 0) {
                log_crash_errno(tag, LOG_NOTICE, r, "Cannot look at the task's root, taking it as ours: %m");
                c->root_fd = -1;
                return 0;
        }
        if (r > 0)
                log_crash(tag, LOG_DEBUG, "The task has a root of its own: its files are opened inside it.");
        return r;
}
