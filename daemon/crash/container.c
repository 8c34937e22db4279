/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Namespaces and containers of a crashed process: the parsers, then the gathering. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crash/container.h"
#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/fileio.h"
#include "shared/log.h"

#define STATUS_MAX (16 * 1024)
#define ID_MAP_MAX 4096
#define MAX_ANCESTORS 64

static const char *const namespace_names[_NAMESPACE_MAX] = {
        [NAMESPACE_PID] = "pid",
        [NAMESPACE_MNT] = "mnt",
        [NAMESPACE_USER] = "user",
};

const char *namespace_kind_to_string(enum namespace_kind k) {
        return k >= 0 && k < _NAMESPACE_MAX ? namespace_names[k] : NULL;
}

bool container_ns_differs(const struct container_info *ci, enum namespace_kind k) {
        return ci->ns[k] != 0 && ci->host_ns[k] != 0 && ci->ns[k] != ci->host_ns[k];
}

bool container_info_in_container(const struct container_info *ci) {
        return ci->name || container_ns_differs(ci, NAMESPACE_PID);
}

/* ---- the cgroup path ------------------------------------------------------------------------- */

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* A unit name's instance or scope name, with systemd's \xNN escapes decoded (\x00 stays as it is). */
static char *unit_name_unescape(const char *s, size_t n) {
        char *out = malloc(n + 1), *o = out;
        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                int hi, lo;
                if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
                    (hi = hex_digit(s[i + 2])) >= 0 && (lo = hex_digit(s[i + 3])) >= 0 && (hi || lo)) {
                        *o++ = (char) (hi << 4 | lo);
                        i += 3;
                } else
                        *o++ = s[i];
        }
        *o = 0;
        return out;
}

struct container_pattern {
        const char *kind;
        const char *prefix;
        const char *suffix;             /* "" for none */
        const char *not_prefix;         /* a helper beside the container, not in it (conmon) */
        bool unescape;                  /* a systemd unit name: \xNN escapes */
};

static const struct container_pattern patterns[] = {
        { "nspawn",     "systemd-nspawn@", ".service", NULL,              true },
        { "machine",    "machine-",        ".scope",   NULL,              true },
        { "podman",     "libpod-",         ".scope",   "libpod-conmon-",  false },
        { "podman",     "libpod-",         "",         "libpod-conmon-",  false },
        { "docker",     "docker-",         ".scope",   NULL,              false },
        { "containerd", "cri-containerd-", ".scope",   NULL,              false },
        { "cri-o",      "crio-",           ".scope",   "crio-conmon-",    false },
        { "lxc",        "lxc.payload.",    "",         NULL,              false },
};

static bool starts_with(const char *s, size_t n, const char *prefix) {
        size_t k = strlen(prefix);
        return n >= k && memcmp(s, prefix, k) == 0;
}

/* One path component against the patterns: the matching pattern and the name's span, or NULL. */
static const struct container_pattern *match_component(const char *s, size_t n, const char **ret_name,
                                                       size_t *ret_len) {
        for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
                const struct container_pattern *p = &patterns[i];
                size_t pre = strlen(p->prefix), suf = strlen(p->suffix);

                if (!starts_with(s, n, p->prefix) || (p->not_prefix && starts_with(s, n, p->not_prefix)))
                        continue;
                if (n <= pre + suf || memcmp(s + n - suf, p->suffix, suf) != 0)
                        continue;
                const char *name = s + pre;
                size_t len = n - pre - suf;
                /* "libpod-ID" without a suffix is cgroupfs' form: no dots in it (else a unit name). */
                if (suf == 0 && p->prefix[strlen(p->prefix) - 1] == '-' && memchr(name, '.', len))
                        continue;
                *ret_name = name;
                *ret_len = len;
                return p;
        }
        return NULL;
}

int cgroup_path_to_container(const char *path, size_t trusted_len, char **ret_kind, char **ret_name) {
        const char *prev = NULL;
        size_t prev_len = 0;

        *ret_kind = *ret_name = NULL;
        path = path ? path : "";
        for (const char *p = path; *p;) {
                p += strspn(p, "/");
                size_t n = strcspn(p, "/");
                if (n == 0 || (size_t) (p - path) + n > trusted_len)
                        break;

                const char *name = NULL;
                size_t len = 0;
                const struct container_pattern *pat = match_component(p, n, &name, &len);
                const char *kind = pat ? pat->kind : NULL;
                /* docker's cgroupfs driver: /docker/<id>. */
                if (!pat && prev && prev_len == 6 && memcmp(prev, "docker", 6) == 0) {
                        kind = "docker";
                        name = p;
                        len = n;
                }
                if (kind) {
                        *ret_name = pat && pat->unescape ? unit_name_unescape(name, len) : strndup(name, len);
                        *ret_kind = strdup(kind);
                        if (!*ret_name || !*ret_kind) {
                                free(*ret_name);
                                free(*ret_kind);
                                *ret_kind = *ret_name = NULL;
                                return -ENOMEM;
                        }
                        return 0;
                }
                prev = p;
                prev_len = n;
                p += n;
        }
        return -ENOENT;
}

size_t cgroup_delegation_boundary(int cgroup_root_fd, const char *path, int64_t *ret_owner) {
        _cleanup_close_ int dir = -1;
        size_t verified = 0;

        *ret_owner = -1;
        if (cgroup_root_fd < 0 || !path)
                return 0;
        for (const char *p = path; *p;) {
                p += strspn(p, "/");
                size_t n = strcspn(p, "/");
                if (n == 0)
                        break;
                char name[NAME_MAX + 1];
                if (n > NAME_MAX)
                        return verified;
                memcpy(name, p, n);
                name[n] = 0;
                int fd = openat(dir >= 0 ? dir : cgroup_root_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) < 0) {
                        safe_close(fd);
                        return verified;
                }
                safe_close(dir);
                dir = fd;
                p += n;
                verified = (size_t) (p - path);
                if (st.st_uid != 0) {
                        *ret_owner = st.st_uid;
                        return verified;
                }
        }
        return strlen(path);
}

/* ---- /proc/<pid>/status and the id maps -------------------------------------------------------- */

/* The pids on the line of status that starts with key: the last of them (list), or the only one;
 * each at least min. */
static int status_pids(const char *status, const char *key, bool list, long long min, pid_t *ret) {
        for (const char *line = status; line && *line;) {
                const char *eol = strchr(line, '\n');
                const char *end = eol ? eol : line + strlen(line);

                if (strncmp(line, key, strlen(key)) != 0) {
                        line = eol ? eol + 1 : NULL;
                        continue;
                }
                long long last = -1;
                size_t n = 0;
                for (const char *p = line + strlen(key); p < end;) {
                        p += strspn(p, " \t");
                        if (p >= end)
                                break;
                        char *e;
                        errno = 0;
                        long long v = strtoll(p, &e, 10);
                        if (errno != 0 || e == p || v < min || v > INT32_MAX || e > end ||
                            (e < end && *e != ' ' && *e != '\t'))
                                return -EINVAL;
                        last = v;
                        n++;
                        p = e;
                }
                if (n == 0 || (!list && n > 1))
                        return -EINVAL;
                *ret = (pid_t) last;
                return 0;
        }
        return -ENOENT;
}

int parse_status_ppid(const char *status, pid_t *ret) {
        return status_pids(status, "PPid:", false, 0, ret);
}

int parse_status_nspid(const char *status, pid_t *ret) {
        return status_pids(status, "NSpid:", true, 1, ret);
}

int parse_status_vm_size(const char *status, uint64_t *ret) {
        const char *p = strstr(status, "\nVmSize:");
        unsigned long long kib;
        if (!p || sscanf(p + strlen("\nVmSize:"), "%llu kB", &kib) != 1 || kib > UINT64_MAX / 1024)
                return -EINVAL;
        *ret = (uint64_t) kib * 1024;
        return 0;
}

int id_map_to_inside(const char *map, uint32_t outside, uint32_t *ret_inside) {
        for (const char *line = map; line && *line;) {
                unsigned long long inside, lower, count;
                int used = 0;

                if (sscanf(line, " %llu %llu %llu%n", &inside, &lower, &count, &used) == 3 && used > 0 &&
                    inside <= UINT32_MAX && lower <= UINT32_MAX && count <= (unsigned long long) UINT32_MAX + 1 &&
                    outside >= lower && outside - lower < count && inside + (outside - lower) <= UINT32_MAX) {
                        *ret_inside = (uint32_t) (inside + (outside - lower));
                        return 0;
                }
                const char *eol = strchr(line, '\n');
                line = eol ? eol + 1 : NULL;
        }
        return -ENOENT;
}

/* ---- gathering ------------------------------------------------------------------------------- */

static uint64_t namespace_id(int dir_fd, const char *prefix, enum namespace_kind k) {
        char path[96];
        struct stat st;

        snprintf(path, sizeof path, "%sns/%s", prefix, namespace_names[k]);
        return fstatat(dir_fd, path, &st, 0) == 0 ? (uint64_t) st.st_ino : 0;
}

static int64_t map_id(int proc_fd, const char *map_name, uint32_t outside, const char *tag) {
        _cleanup_free_ char *map = NULL;
        uint32_t inside;

        int r = read_file_at(proc_fd, map_name, ID_MAP_MAX, &map, NULL, NULL);
        if (r >= 0)
                r = id_map_to_inside(map, outside, &inside);
        if (r < 0) {
                log_crash_errno(tag, LOG_DEBUG, r, "Cannot map %" PRIu32 " through %s: %m", outside, map_name);
                return -1;
        }
        return inside;
}

/* A process of the host by its pid, pinned: a pidfd taken first, then its /proc directory; what is
 * read through the directory is that process's only if it has not exited when the reading is done
 * (pinned_alive()): a pid of a process that ended meanwhile may name another by now. */
struct pinned {
        int pidfd, dir_fd;
};

static void pinned_done(struct pinned *p) {
        safe_close(p->pidfd);
        safe_close(p->dir_fd);
}

static int pinned_open(int proc_root_fd, pid_t pid, struct pinned *ret) {
        char name[32];
        *ret = (struct pinned) { .pidfd = -1, .dir_fd = -1 };
        ret->pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (ret->pidfd < 0)
                return -errno;
        snprintf(name, sizeof name, "%" PRIi32, (int32_t) pid);
        ret->dir_fd = openat(proc_root_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (ret->dir_fd < 0) {
                int r = -errno;
                pinned_done(ret);
                return r;
        }
        return 0;
}

static bool pinned_alive(const struct pinned *p) {
        struct pollfd f = { .fd = p->pidfd, .events = POLLIN };
        return poll(&f, 1, 0) == 0; /* readable once it has exited */
}

/* The container's manager: up the parents from the process (its status, relative to the /proc
 * root) to the first one in the host's pid namespace; its command line, unless it is PID 1. Each
 * ancestor is pinned while it is read (pinned_open()); one that exits on the way ends the walk
 * (nothing recorded). */
static char *manager_cmdline(int proc_root_fd, pid_t pid, uint64_t host_pid_ns, cmdline_reader_t read_cmdline,
                             void *userdata) {
        for (int i = 0; i < MAX_ANCESTORS && pid > 1; i++) {
                _cleanup_(pinned_done) struct pinned self = { .pidfd = -1, .dir_fd = -1 };
                _cleanup_(pinned_done) struct pinned up = { .pidfd = -1, .dir_fd = -1 };
                _cleanup_free_ char *status = NULL;
                pid_t parent;
                if (pinned_open(proc_root_fd, pid, &self) < 0 ||
                    read_file_at(self.dir_fd, "status", STATUS_MAX, &status, NULL, NULL) < 0 ||
                    parse_status_ppid(status, &parent) < 0 || parent <= 1 || !pinned_alive(&self))
                        return NULL;
                if (pinned_open(proc_root_fd, parent, &up) < 0)
                        return NULL;
                if (namespace_id(up.dir_fd, "", NAMESPACE_PID) != host_pid_ns) {
                        if (!pinned_alive(&up))
                                return NULL;
                        pid = parent;
                        continue;
                }
                _cleanup_free_ char *raw = NULL;
                size_t size;
                if (read_cmdline(userdata, up.dir_fd, &raw, &size) < 0 || size == 0 ||
                    !pinned_alive(&up))
                        return NULL;
                return escape_cmdline(raw, size);
        }
        return NULL;
}

void host_namespaces_read(int proc_root_fd, struct host_namespaces *ret) {
        *ret = (struct host_namespaces) { .own_user_ns = namespace_id(proc_root_fd, "self/", NAMESPACE_USER) };
        for (enum namespace_kind k = 0; k < _NAMESPACE_MAX; k++)
                ret->ns[k] = namespace_id(proc_root_fd, "1/", k) ?: namespace_id(proc_root_fd, "self/", k);
}

void container_info_name(const char *cgroup, int cgroup_root_fd, const char *tag, struct container_info *ci) {
        int64_t owner;
        if (!cgroup || ci->name)
                return;
        size_t trusted = cgroup_delegation_boundary(cgroup_root_fd, cgroup, &owner);
        container_info_name_known(cgroup, trusted, owner, tag, ci);
}

void container_info_name_known(const char *cgroup, size_t trusted_len, int64_t delegated_to, const char *tag,
                               struct container_info *ci) {
        if (!cgroup || ci->name)
                return;
        ci->delegated_to = delegated_to;
        if (cgroup_path_to_container(cgroup, trusted_len, &ci->kind, &ci->name) == -ENOMEM)
                log_crash(tag, LOG_WARNING, "Out of memory naming the container.");
}

void container_info_gather(int proc_fd, const struct host_namespaces *host, uid_t uid, gid_t gid, const char *tag,
                           struct container_info *ci) {
        _cleanup_free_ char *status = NULL;

        int r = read_file_at(proc_fd, "status", STATUS_MAX, &status, NULL, NULL);
        if (r >= 0)
                r = parse_status_nspid(status, &ci->ns_pid);
        if (r < 0)
                log_crash_errno(tag, LOG_DEBUG, r, "Cannot read the pid in its namespace (NSpid:): %m");
        if (status && parse_status_vm_size(status, &ci->vm_size) < 0)
                ci->vm_size = 0;

        for (enum namespace_kind k = 0; k < _NAMESPACE_MAX; k++) {
                ci->ns[k] = namespace_id(proc_fd, "", k);
                ci->host_ns[k] = host->ns[k];
        }
        /* The maps of a process in our own user namespace are relative to the parent namespace;
         * of one in another, relative to ours. */
        if (ci->ns[NAMESPACE_USER] != 0 && ci->ns[NAMESPACE_USER] == host->own_user_ns) {
                ci->ns_uid = uid;
                ci->ns_gid = gid;
        } else {
                ci->ns_uid = map_id(proc_fd, "uid_map", uid, tag);
                ci->ns_gid = map_id(proc_fd, "gid_map", gid, tag);
        }
}

void container_info_gather_manager(int proc_root_fd, pid_t pid, cmdline_reader_t read_cmdline, void *userdata,
                                   struct container_info *ci) {
        if (!ci->manager_cmdline && container_ns_differs(ci, NAMESPACE_PID))
                ci->manager_cmdline = manager_cmdline(proc_root_fd, pid, ci->host_ns[NAMESPACE_PID], read_cmdline,
                                                      userdata);
}

void container_info_done(struct container_info *ci) {
        free(ci->kind);
        free(ci->name);
        free(ci->manager_cmdline);
        *ci = (struct container_info) { .ns_uid = -1, .ns_gid = -1, .delegated_to = -1 };
}
