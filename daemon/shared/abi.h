/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The kernel ABI coredumpd speaks, in one place.
 *
 * Debian bookworm's headers predate the coredump socket protocol (Linux 6.16/6.17) and the pidfd
 * information ioctl, so the constants and layouts are spelled out here. Every define is guarded so a
 * newer linux/coredump.h or linux/pidfd.h included first wins; the static_asserts pin the layouts to
 * what the kernel's uapi headers publish.
 */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* ---- socket options ------------------------------------------------------------------------ */

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* ---- linux/coredump.h: the coredump socket protocol ---------------------------------------- */

#if !defined(_LINUX_COREDUMP_H) && !defined(_UAPI_LINUX_COREDUMP_H)

/* coredump_req.mask / coredump_ack.mask */
#define COREDUMP_KERNEL         (UINT64_C(1) << 0) /* the kernel writes the core into the socket */
#define COREDUMP_USERSPACE      (UINT64_C(1) << 1) /* userspace writes it; the parent sees WCOREDUMP */
#define COREDUMP_REJECT         (UINT64_C(1) << 2) /* no core at all */
#define COREDUMP_WAIT           (UINT64_C(1) << 3) /* hold the task until the server closes */

#define COREDUMP_REQ_SIZE_VER0  16U
#define COREDUMP_ACK_SIZE_VER0  16U

/* The u32 the kernel answers an ack with. */
#define COREDUMP_MARK_REQACK      0U
#define COREDUMP_MARK_MINSIZE     1U
#define COREDUMP_MARK_MAXSIZE     2U
#define COREDUMP_MARK_UNSUPPORTED 3U
#define COREDUMP_MARK_CONFLICTING 4U

struct coredump_req {
        uint32_t size;          /* size of the request the kernel sent */
        uint32_t size_ack;      /* largest ack the kernel understands */
        uint64_t mask;          /* COREDUMP_* the kernel offers */
};

struct coredump_ack {
        uint32_t size;          /* bytes of ack actually sent */
        uint32_t spare;         /* must be zero */
        uint64_t mask;          /* exactly one of KERNEL/USERSPACE/REJECT, optionally WAIT */
};

#endif

/* The part of a request that holds size and size_ack; anything shorter cannot be a request. */
#define COREDUMP_REQ_HEADER_SIZE 8U

static_assert(sizeof(struct coredump_req) == COREDUMP_REQ_SIZE_VER0, "coredump_req layout");
static_assert(offsetof(struct coredump_req, size_ack) == 4, "coredump_req.size_ack");
static_assert(offsetof(struct coredump_req, mask) == 8, "coredump_req.mask");
static_assert(sizeof(struct coredump_ack) == COREDUMP_ACK_SIZE_VER0, "coredump_ack layout");
static_assert(offsetof(struct coredump_ack, spare) == 4, "coredump_ack.spare");
static_assert(offsetof(struct coredump_ack, mask) == 8, "coredump_ack.mask");

/* ---- linux/pidfd.h: PIDFD_GET_INFO --------------------------------------------------------- */

/* A task's user namespace from its pidfd (7.2, and the series' PIDFD_GET_*_NAMESPACE patch). */
#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)
#endif

#ifndef PIDFD_INFO_SIZE_VER0

#define PIDFD_INFO_PID             (UINT64_C(1) << 0) /* always returned */
#define PIDFD_INFO_CREDS           (UINT64_C(1) << 1) /* always returned */
#define PIDFD_INFO_CGROUPID        (UINT64_C(1) << 2) /* returned if available */
#define PIDFD_INFO_EXIT            (UINT64_C(1) << 3) /* only if requested */
#define PIDFD_INFO_COREDUMP        (UINT64_C(1) << 4) /* only if requested */
#define PIDFD_INFO_SUPPORTED_MASK  (UINT64_C(1) << 5) /* want/got supported_mask */
#define PIDFD_INFO_COREDUMP_SIGNAL (UINT64_C(1) << 6) /* with PIDFD_INFO_COREDUMP */
#define PIDFD_INFO_COREDUMP_CODE   (UINT64_C(1) << 7) /* with PIDFD_INFO_COREDUMP */

#define PIDFD_INFO_SIZE_VER0 64
#define PIDFD_INFO_SIZE_VER1 72
#define PIDFD_INFO_SIZE_VER2 80
#define PIDFD_INFO_SIZE_VER3 88

/* pidfd_info.coredump_mask */
#define PIDFD_COREDUMPED     (1U << 0) /* the task crashed and is dumping (or dumped) core */
#define PIDFD_COREDUMP_SKIP  (1U << 1) /* generation was skipped */
#define PIDFD_COREDUMP_USER  (1U << 2) /* dumped with the task's own credentials (dumpable) */
#define PIDFD_COREDUMP_ROOT  (1U << 3) /* dumped as root (suid_dumpable=2, not dumpable) */

struct pidfd_info {
        uint64_t mask;
        uint64_t cgroupid;
        uint32_t pid;
        uint32_t tgid;
        uint32_t ppid;
        uint32_t ruid;
        uint32_t rgid;
        uint32_t euid;
        uint32_t egid;
        uint32_t suid;
        uint32_t sgid;
        uint32_t fsuid;
        uint32_t fsgid;
        int32_t exit_code;
        uint32_t coredump_mask;
        uint32_t coredump_signal;
        uint32_t coredump_code;
        uint32_t coredump_pad;
        uint64_t supported_mask;
};

#define PIDFS_IOCTL_MAGIC 0xFF
#define PIDFD_GET_INFO _IOWR(PIDFS_IOCTL_MAGIC, 11, struct pidfd_info)

#endif

/* statfs(2) f_type of the file systems a crash's identity is checked against (linux/magic.h), and
 * the inode number of the procfs root (PROCFS_ROOT_INO). */
#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif
#define PROCFS_ROOT_INODE 1

static_assert(sizeof(struct pidfd_info) == PIDFD_INFO_SIZE_VER3, "pidfd_info size");
static_assert(offsetof(struct pidfd_info, cgroupid) == 8, "pidfd_info.cgroupid");
static_assert(offsetof(struct pidfd_info, pid) == 16, "pidfd_info.pid");
static_assert(offsetof(struct pidfd_info, tgid) == 20, "pidfd_info.tgid");
static_assert(offsetof(struct pidfd_info, ruid) == 28, "pidfd_info.ruid");
static_assert(offsetof(struct pidfd_info, rgid) == 32, "pidfd_info.rgid");
static_assert(offsetof(struct pidfd_info, euid) == 36, "pidfd_info.euid");
static_assert(offsetof(struct pidfd_info, egid) == 40, "pidfd_info.egid");
static_assert(offsetof(struct pidfd_info, exit_code) == 60, "pidfd_info.exit_code");
static_assert(offsetof(struct pidfd_info, coredump_mask) == PIDFD_INFO_SIZE_VER0, "pidfd_info.coredump_mask");
static_assert(offsetof(struct pidfd_info, coredump_signal) == 68, "pidfd_info.coredump_signal");
static_assert(offsetof(struct pidfd_info, coredump_code) == PIDFD_INFO_SIZE_VER1, "pidfd_info.coredump_code");
static_assert(offsetof(struct pidfd_info, supported_mask) == PIDFD_INFO_SIZE_VER2, "pidfd_info.supported_mask");
static_assert(PIDFD_GET_INFO == 0xc058ff0bU, "PIDFD_GET_INFO encoding");

/* ---- pidfd syscalls (glibc 2.36 has no sys/pidfd.h) ---------------------------------------- */

#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static inline int sys_pidfd_open(pid_t pid, unsigned flags) {
        return (int) syscall(SYS_pidfd_open, pid, flags);
}
