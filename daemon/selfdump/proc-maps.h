/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * /proc/<pid>/maps as a sorted array of mappings, for the self-generated core: which ranges exist,
 * their permissions, and which file (at which offset) backs them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The VmFlags of /proc/<pid>/smaps that decide what a core holds (dump-filter.c). */
enum {
        PROC_VM_READ = 1U << 0,         /* rd */
        PROC_VM_SHARED = 1U << 1,       /* sh */
        PROC_VM_IO = 1U << 2,           /* io */
        PROC_VM_DONTDUMP = 1U << 3,     /* dd */
        PROC_VM_HUGETLB = 1U << 4,      /* ht */
};

struct proc_mapping {
        uint64_t start, end;            /* [start, end) */
        uint64_t offset;                /* file offset of start */
        bool read, write, exec, shared;
        uint64_t inode;
        unsigned dev_major, dev_minor;  /* the device of the file system holding the file */
        bool remote;                    /* on a file system a process or a network serves */
        char *path;                     /* "/usr/lib/…", "[stack]", "[heap]", "[vdso]"…, or NULL */
        uint8_t dax;                    /* enum tristate (dump-filter.h): the file is DAX, by its mount */
        /* From /proc/<pid>/smaps (proc_smaps_annotate()): */
        bool smaps_known;               /* its VmFlags were there */
        uint32_t vm_flags;              /* PROC_VM_* */
        bool anon_pages;                /* Anonymous: or Swap: above 0 */
};

struct proc_maps {
        struct proc_mapping *mappings;
        size_t n;
};

/* Parses the text of a maps file. -EINVAL on a malformed line. */
int proc_maps_parse(const char *text, struct proc_maps *ret);
/* Reads <proc_fd>/maps and parses it. */
int proc_maps_read(int proc_fd, struct proc_maps *ret);
void proc_maps_done(struct proc_maps *m);

/* The mapping holding addr, or NULL. */
const struct proc_mapping *proc_maps_find(const struct proc_maps *m, uint64_t addr);

/* A mapping of a file (its path starts with '/'). */
bool proc_mapping_is_file(const struct proc_mapping *p);

/*
 * Whether a file system type is remote: anything but the file systems whose data the kernel itself
 * serves from memory or a local device (fstype_is_local(): tmpfs, proc, ext4, xfs, btrfs, vfat,
 * squashfs…). FUSE (fuse, fuse.*, fuseblk, virtiofs), NFS, CIFS/SMB, 9p, Ceph, AFS, overlay (its
 * layers may be a user's FUSE) and every type not known are remote. Touching a page of such a file
 * that is not in memory may wait for a server — possibly forever, and in the kernel, where after the
 * request was taken no signal ends the wait (a FUSE server that never answers). Whoever reads a
 * crashed task must not fault such pages in, nor open such files.
 */
bool fstype_is_local(const char *fstype);
bool fstype_is_remote(const char *fstype);
/* Opens our own /proc/self/mountinfo (read afresh at each mark) and learns the device of the
 * kernel's own tmpfs mount (memfd, SysV shared memory, shared anonymous memory), which no mountinfo
 * lists, from a memfd of its own: call it before a cell or system call filter. Without it only the
 * task's mountinfo is asked, and those mappings count as remote. */
void proc_maps_prepare(void);
/* The one rule, used by every reader of a crashed task (the parser's unwinder and reader, the
 * self-dump): a file mapping is local only when its device is the kernel's own tmpfs (above), or is
 * found in task_mountinfo (the text of /proc/<pid>/mountinfo: the mounts under the task's root) or
 * in own_mountinfo (ours, or NULL) on a local file system type, and on no remote one. A device in
 * no line — a FUSE mount lazily detached (umount -l) after the file was mapped, a mount of another
 * namespace reached through an fd — is remote. Sets `remote` on every mapping, and `dax` on those
 * of files on mounts with the dax option. -EINVAL on a malformed line. */
int proc_maps_mark_from(const char *task_mountinfo, const char *own_mountinfo, struct proc_maps *m);
/* proc_maps_mark_from() with our own mountinfo as it is now (proc_maps_prepare()). */
int proc_maps_mark_remote_from(const char *mountinfo, struct proc_maps *m);
/* The marks from the text of mountinfo (NULL: it could not be read); if there is none or it cannot
 * be parsed, every file mapping is taken as remote, and as maybe DAX. */
void proc_maps_mark(const char *mountinfo, struct proc_maps *m);
/* The size of a maps text read at most (-EFBIG beyond). */
#define PROC_MAPS_MAX (16U * 1024 * 1024)
/* proc_maps_read(), then the marks from <proc_fd>/mountinfo; if that cannot be read or parsed,
 * every file mapping is taken as remote, and as maybe DAX. */
int proc_maps_read_marked(int proc_fd, struct proc_maps *ret);

/* Whether the file system holding path (the mount with the longest mount point that holds it, in
 * the text of a mountinfo) is a remote one (fstype_is_remote(): overlay and unknown types too): 1
 * or 0 (the path itself is never looked up); -ENOENT when no mount holds it, -EINVAL on a malformed line. */
int mountinfo_path_is_remote(const char *mountinfo, const char *path);

/* Whether the page at addr is in memory (present or swapped out) by <pagemap_fd> (an open
 * /proc/<pid>/pagemap): reading it then waits for no file system. Fills in[n] for the n pages from
 * addr on; -errno if pagemap cannot be read. */
int proc_pagemap_in_memory(int pagemap_fd, uint64_t addr, uint64_t page_size, size_t n, bool *in);
