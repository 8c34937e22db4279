/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Capabilities the daemon needs only while it sets up (attaching the crash-context probe needs
 * CAP_BPF, CAP_PERFMON and, on kernels with a restricted perf_event_paranoid, CAP_SYS_ADMIN) are
 * dropped before the first crash is served.  Per crash it keeps CAP_SYS_PTRACE and
 * CAP_DAC_READ_SEARCH, to open /proc/<pid>/{exe,auxv,mem} of processes of any user, CAP_SETUID
 * and CAP_SETGID, which only the parser it starts uses, to drop to the crashing user's ids, and
 * CAP_KILL, to kill that parser at its deadline.
 */

/* Locks the daemon down for serving crashes: the bounding set shrinks to those five (when we hold
 * more; needs CAP_SETPCAP), the system call filter goes in (privileges_install_syscall_filter()),
 * and the permitted, effective, inheritable and ambient sets keep those five (where held). 0 or
 * -errno (logged); the daemon must not serve crashes then. */
int privileges_drop_setup_capabilities(void);

/* The daemon's own system call filter, built with libseccomp for any architecture: what the unit's
 * SystemCallFilter= denies (@obsolete, @swap, @reboot, @module, @mount, @raw-io, @clock,
 * @cpu-emulation; ptrace, process_vm_readv/writev, kcmp, pidfd_getfd) answered EPERM, and after
 * setup perf_event_open() and every bpf() command but the probe's map reads and deletes; a call of
 * another ABI kills. Stacked on whatever the daemon inherited, inherited by its children. 0, or
 * -errno (logged) where it cannot be built or loaded: the daemon must not serve crashes then. */
int privileges_install_syscall_filter(void);
