/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "selfdump/proc-maps.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define MAPS_MAX PROC_MAPS_MAX

void proc_maps_done(struct proc_maps *m) {
        for (size_t i = 0; i < m->n; i++)
                free(m->mappings[i].path);
        free(m->mappings);
        *m = (struct proc_maps) {};
}

/* A number of the kernel's own writing at *p (before end): digits of base 16 or 10, at least one,
 * without sign or prefix, and no more than fit; *p moves past them. */
static bool take_number(const char **p, const char *end, unsigned base, unsigned long long *ret) {
        unsigned long long v = 0;
        const char *q = *p;

        for (; q < end; q++) {
                unsigned d;
                if (*q >= '0' && *q <= '9')
                        d = (unsigned) (*q - '0');
                else if (base == 16 && *q >= 'a' && *q <= 'f')
                        d = (unsigned) (*q - 'a' + 10);
                else if (base == 16 && *q >= 'A' && *q <= 'F')
                        d = (unsigned) (*q - 'A' + 10);
                else
                        break;
                if (v > (ULLONG_MAX - d) / base)
                        return false;
                v = v * base + d;
        }
        if (q == *p)
                return false;
        *p = q;
        *ret = v;
        return true;
}

/* One character c at *p, then (spaces) any more blanks. */
static bool take_separator(const char **p, const char *end, char c, bool spaces) {
        if (*p >= end || **p != c)
                return false;
        (*p)++;
        while (spaces && *p < end && **p == ' ')
                (*p)++;
        return true;
}

/* "start-end perms offset major:minor inode [path]": parsed in place, per line of a crash loop's
 * every crash (no copy of the line, no scanf). The path is the rest of the line after the blanks. */
static int parse_line(const char *line, size_t len, struct proc_mapping *ret) {
        const char *p = line, *end = line + len;
        unsigned long long start, end_addr, offset, major, minor, inode;

        if (!take_number(&p, end, 16, &start) || !take_separator(&p, end, '-', false) ||
            !take_number(&p, end, 16, &end_addr) || !take_separator(&p, end, ' ', true) || end - p < 4)
                return -EINVAL;
        const char *perms = p;
        p += 4;
        if (!take_separator(&p, end, ' ', true) || !take_number(&p, end, 16, &offset) ||
            !take_separator(&p, end, ' ', true) || !take_number(&p, end, 16, &major) ||
            !take_separator(&p, end, ':', false) || !take_number(&p, end, 16, &minor) ||
            !take_separator(&p, end, ' ', true) || !take_number(&p, end, 10, &inode) ||
            (p < end && !take_separator(&p, end, ' ', true)) || end_addr < start || major > UINT_MAX ||
            minor > UINT_MAX)
                return -EINVAL;

        *ret = (struct proc_mapping) {
                .start = start,
                .end = end_addr,
                .offset = offset,
                .read = perms[0] == 'r',
                .write = perms[1] == 'w',
                .exec = perms[2] == 'x',
                .shared = perms[3] == 's',
                .inode = inode,
                .dev_major = (unsigned) major,
                .dev_minor = (unsigned) minor,
        };
        if (p < end) {
                ret->path = strndup(p, (size_t) (end - p));
                if (!ret->path)
                        return -ENOMEM;
        }
        return 0;
}

/* Calls fn for each non-empty line of text (without its newline); stops at its first error. */
static int for_each_line(const char *text, int (*fn)(const char *line, size_t len, void *userdata), void *userdata) {
        for (const char *line = text; line && *line;) {
                const char *eol = strchr(line, '\n');
                size_t len = eol ? (size_t) (eol - line) : strlen(line);

                if (len > 0) {
                        int r = fn(line, len, userdata);
                        if (r < 0)
                                return r;
                }
                line = eol ? eol + 1 : NULL;
        }
        return 0;
}

static int add_maps_line(const char *line, size_t len, void *userdata) {
        struct proc_maps *m = userdata;

        /* Room doubles (a power of two from 16): no realloc() per line. */
        if (m->n >= 16 && (m->n & (m->n - 1)) == 0) {
                struct proc_mapping *grown = reallocarray(m->mappings, m->n * 2, sizeof *grown);
                if (!grown)
                        return -ENOMEM;
                m->mappings = grown;
        } else if (!m->mappings) {
                m->mappings = malloc(16 * sizeof *m->mappings);
                if (!m->mappings)
                        return -ENOMEM;
        }
        int r = parse_line(line, len, &m->mappings[m->n]);
        if (r < 0)
                return r;
        m->n++;
        return 0;
}

int proc_maps_parse(const char *text, struct proc_maps *ret) {
        struct proc_maps m = {};

        int r = for_each_line(text, add_maps_line, &m);
        if (r < 0) {
                proc_maps_done(&m);
                return r;
        }
        *ret = m;
        return 0;
}

/* <proc_fd>/NAME, whole. */
static int read_proc_text(int proc_fd, const char *name, char **ret) {
        int truncated = 0;

        int r = read_file_at(proc_fd, name, MAPS_MAX, ret, NULL, &truncated);
        if (r < 0)
                return r;
        if (truncated) {
                free(*ret);
                *ret = NULL;
                return -EFBIG;
        }
        return 0;
}

int proc_maps_read(int proc_fd, struct proc_maps *ret) {
        _cleanup_free_ char *text = NULL;

        int r = read_proc_text(proc_fd, "maps", &text);
        return r < 0 ? r : proc_maps_parse(text, ret);
}

const struct proc_mapping *proc_maps_find(const struct proc_maps *m, uint64_t addr) {
        size_t lo = 0, hi = m->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (addr < m->mappings[mid].start)
                        hi = mid;
                else if (addr >= m->mappings[mid].end)
                        lo = mid + 1;
                else
                        return &m->mappings[mid];
        }
        return NULL;
}

bool proc_mapping_is_file(const struct proc_mapping *p) {
        return p->path && p->path[0] == '/';
}

/* File systems whose every byte the kernel itself serves from memory or a local device: no process,
 * network or other mount stands behind a read of their files. Anything else is remote, overlay too:
 * its files' pages come from its layers, which an unprivileged user may have made (their own FUSE
 * server under a lower directory, in a namespace of their own). */
bool fstype_is_local(const char *t) {
        static const char *const local[] = {
                /* memory */
                "tmpfs", "ramfs", "rootfs", "devtmpfs", "hugetlbfs",
                /* the kernel's own */
                "proc", "sysfs", "devpts", "mqueue", "cgroup", "cgroup2", "bpf", "debugfs", "tracefs",
                "securityfs", "configfs", "efivarfs", "pstore", "binfmt_misc", "fusectl", "nsfs",
                /* a local block or flash device */
                "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "jfs", "reiserfs", "nilfs2", "bcachefs",
                "zfs", "vfat", "msdos", "exfat", "ntfs", "ntfs3", "hfs", "hfsplus", "iso9660", "udf",
                "squashfs", "erofs", "cramfs", "romfs", "minix", "ufs", "jffs2", "ubifs", "zonefs",
        };
        for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
                if (strcmp(t, local[i]) == 0)
                        return true;
        return false;
}

bool fstype_is_remote(const char *t) {
        return !fstype_is_local(t);
}

/* The device of the kernel's own tmpfs mount, in no mountinfo: memfd_create(), SysV shared memory
 * and MAP_SHARED|MAP_ANONYMOUS (maps: "/dev/zero (deleted)") are its files. Learned from a memfd
 * of our own; 0: not yet asked, 1: known, -1: could not be learned (such mappings count as remote). */
static int kernel_shm_known;
static unsigned kernel_shm_major, kernel_shm_minor;
/* Our own /proc/self/mountinfo (the daemon's mount namespace), opened before the cell, read afresh at
 * each mark: -1 if not opened. */
static int own_mountinfo_fd = -1;

void proc_maps_prepare(void) {
        struct stat st;

        if (own_mountinfo_fd < 0)
                own_mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        if (kernel_shm_known != 0)
                return;
        int fd = memfd_create("coredumpd-shm-dev", MFD_CLOEXEC);
        if (fd >= 0 && fstat(fd, &st) == 0) {
                kernel_shm_major = major(st.st_dev);
                kernel_shm_minor = minor(st.st_dev);
                kernel_shm_known = 1;
        } else {
                kernel_shm_known = -1;
        }
        if (fd >= 0)
                close(fd);
}

/* The text of own_mountinfo_fd, generated now (a read from offset 0 starts it anew); NULL if none. */
static char *own_mountinfo_now(void) {
        if (own_mountinfo_fd < 0 || lseek(own_mountinfo_fd, 0, SEEK_SET) < 0)
                return NULL;
        char *buf = malloc(PROC_MAPS_MAX + 1);
        long n = buf ? read_full(own_mountinfo_fd, buf, PROC_MAPS_MAX) : -ENOMEM;
        if (n < 0) {
                free(buf);
                return NULL;
        }
        buf[n] = 0;
        return buf;
}

/* mountinfo: "id parent major:minor root mountpoint options [optional fields…] - fstype source
 * super". The kernel escapes blanks in every field (mount point, root, type, source): 1 for a
 * remote type (fstype_is_remote()), 0 for a local one. */
static int mountinfo_line_remote(const char *line, size_t len, unsigned *major, unsigned *minor) {
        _cleanup_free_ char *copy = strndup(line, len);
        char fstype[64];

        if (!copy)
                return -ENOMEM;
        if (sscanf(copy, "%*u %*u %u:%u", major, minor) != 2)
                return -EINVAL;
        const char *sep = strstr(copy, " - ");
        if (!sep || sscanf(sep + 3, "%63s", fstype) != 1)
                return -EINVAL;
        return fstype_is_remote(fstype);
}

/* Whether a mountinfo line's super options say DAX: 1 (dax, dax=always), 2 (dax=inode: per file), 0. */
static int mountinfo_line_dax(const char *line, size_t len) {
        _cleanup_free_ char *copy = strndup(line, len);
        char options[1024];

        if (!copy)
                return 0;
        const char *sep = strstr(copy, " - ");
        if (!sep || sscanf(sep + 3, "%*s %*s %1023s", options) != 1)
                return 0;
        int dax = 0;
        for (char *save = NULL, *o = strtok_r(options, ",", &save); o; o = strtok_r(NULL, ",", &save))
                if (strcmp(o, "dax") == 0 || strcmp(o, "dax=always") == 0)
                        dax = 1;
                else if (strcmp(o, "dax=inode") == 0)
                        dax = 2;
                else if (strcmp(o, "dax=never") == 0)
                        dax = 0;
        return dax;
}

/* Per mapping while the lines are read: bit 0 a local line has its device, bit 1 a remote one. */
struct mark_state {
        struct proc_maps *maps;
        uint8_t *seen;
};

static int mark_remote_line(const char *line, size_t len, void *userdata) {
        struct mark_state *st = userdata;
        struct proc_maps *m = st->maps;
        unsigned major, minor;

        int r = mountinfo_line_remote(line, len, &major, &minor);
        if (r < 0)
                return r;
        int dax = mountinfo_line_dax(line, len);
        for (size_t i = 0; i < m->n; i++)
                if (proc_mapping_is_file(&m->mappings[i]) && m->mappings[i].dev_major == major &&
                    m->mappings[i].dev_minor == minor) {
                        st->seen[i] |= r > 0 ? 2 : 1;
                        if (dax > 0)
                                m->mappings[i].dax = (uint8_t) dax;
                }
        return 0;
}

/* The one rule: a file mapping is local only when its device is the kernel's own tmpfs, or is found
 * on a local file system type (fstype_is_local()) in the task's mountinfo or in ours, and on no other
 * type in either. A device number names one super block for as long as the held task maps the file,
 * so any mount namespace's line of it tells its type; the task's mountinfo lists only the mounts
 * under its root (a chroot sees none of the host's), ours only the host's. A device in neither — a
 * mount lazily detached (umount -l) after the file was mapped, a mount of a namespace of the user's
 * own reached through an fd or outside the task's root — is remote, as is every type not known to be
 * local. */
int proc_maps_mark_from(const char *task_mountinfo, const char *own_mountinfo, struct proc_maps *m) {
        _cleanup_free_ uint8_t *seen = calloc(m->n ? m->n : 1, 1);
        struct mark_state st = { .maps = m, .seen = seen };

        if (!seen)
                return -ENOMEM;
        int r = for_each_line(task_mountinfo, mark_remote_line, &st);
        if (r >= 0 && own_mountinfo)
                r = for_each_line(own_mountinfo, mark_remote_line, &st);
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->n; i++) {
                struct proc_mapping *p = &m->mappings[i];
                bool shm = kernel_shm_known > 0 && p->dev_major == kernel_shm_major && p->dev_minor == kernel_shm_minor;
                p->remote = proc_mapping_is_file(p) && !shm && seen[i] != 1;
        }
        return 0;
}

int proc_maps_mark_remote_from(const char *mountinfo, struct proc_maps *m) {
        _cleanup_free_ char *own = own_mountinfo_now();
        return proc_maps_mark_from(mountinfo, own, m);
}

/* The mount point of a mountinfo line (its fifth field), with the kernel's octal escapes (\040 for a
 * space, \011, \012, \134) undone, into out. */
static int mountinfo_mount_point(const char *line, size_t len, char *out, size_t size) {
        size_t i = 0, field = 0;

        while (field < 4) {
                while (i < len && line[i] != ' ')
                        i++;
                if (i >= len)
                        return -EINVAL;
                i++;
                field++;
        }
        size_t k = 0;
        for (; i < len && line[i] != ' '; i++) {
                char c = line[i];
                if (c == '\\' && i + 3 < len && line[i + 1] >= '0' && line[i + 1] <= '3' && line[i + 2] >= '0' &&
                    line[i + 2] <= '7' && line[i + 3] >= '0' && line[i + 3] <= '7') {
                        c = (char) ((line[i + 1] - '0') * 64 + (line[i + 2] - '0') * 8 + (line[i + 3] - '0'));
                        i += 3;
                }
                if (k + 1 >= size)
                        return -ENAMETOOLONG;
                out[k++] = c;
        }
        out[k] = 0;
        return k > 0 && out[0] == '/' ? 0 : -EINVAL;
}

struct path_mount {
        const char *path;
        size_t best_len;        /* of the mount point holding path so far; 0: none yet */
        bool found;
        bool remote;
};

static int path_mount_line(const char *line, size_t len, void *userdata) {
        struct path_mount *pm = userdata;
        char mount_point[4096];
        unsigned major, minor;

        int remote = mountinfo_line_remote(line, len, &major, &minor);
        if (remote < 0)
                return remote;
        int r = mountinfo_mount_point(line, len, mount_point, sizeof mount_point);
        if (r < 0)
                return r;
        size_t n = strlen(mount_point);
        if (n > 1 && mount_point[n - 1] == '/')
                n--;
        bool holds = n == 1 || (strncmp(pm->path, mount_point, n) == 0 && (pm->path[n] == '/' || pm->path[n] == 0));
        /* The longest mount point wins; of equal ones the later line, mounted over the earlier. */
        if (holds && (!pm->found || n >= pm->best_len)) {
                pm->found = true;
                pm->best_len = n;
                pm->remote = remote > 0;
        }
        return 0;
}

int mountinfo_path_is_remote(const char *mountinfo, const char *path) {
        struct path_mount pm = { .path = path };

        if (!path || path[0] != '/')
                return -EINVAL;
        int r = for_each_line(mountinfo, path_mount_line, &pm);
        if (r < 0)
                return r;
        if (!pm.found)
                return -ENOENT;
        return pm.remote;
}

int proc_maps_read_marked(int proc_fd, struct proc_maps *ret) {
        _cleanup_free_ char *mountinfo = NULL;

        int r = proc_maps_read(proc_fd, ret);
        if (r < 0)
                return r;
        if (read_proc_text(proc_fd, "mountinfo", &mountinfo) < 0)
                mountinfo = NULL;
        proc_maps_mark(mountinfo, ret);
        return 0;
}

void proc_maps_mark(const char *mountinfo, struct proc_maps *m) {
        if (!mountinfo || proc_maps_mark_remote_from(mountinfo, m) < 0)
                /* Which file system is which is not known: every file is taken as remote, and as
                 * maybe DAX (2). */
                for (size_t i = 0; i < m->n; i++) {
                        m->mappings[i].remote = proc_mapping_is_file(&m->mappings[i]);
                        m->mappings[i].dax = proc_mapping_is_file(&m->mappings[i]) ? 2 : 0;
                }
}

#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_SWAPPED (1ULL << 62)

int proc_pagemap_in_memory(int pagemap_fd, uint64_t addr, uint64_t page_size, size_t n, bool *in) {
        uint64_t entries[512];

        for (size_t done = 0; done < n;) {
                size_t k = MIN(n - done, sizeof entries / sizeof entries[0]);
                off_t at = (off_t) ((addr / page_size + done) * sizeof entries[0]);
                ssize_t got = pread(pagemap_fd, entries, k * sizeof entries[0], at);
                if (got < 0)
                        return -errno;
                if ((size_t) got < sizeof entries[0])
                        return -EIO;
                k = (size_t) got / sizeof entries[0];
                for (size_t i = 0; i < k; i++)
                        in[done + i] = (entries[i] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)) != 0;
                done += k;
        }
        return 0;
}
