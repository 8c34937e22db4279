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
 * more; needs CAP_SETPCAP), a system call filter refuses perf_event_open() and every bpf() command
 * but the probe's map reads and deletes, and the permitted, effective, inheritable and ambient sets
 * keep those five (where held). 0 or -errno (logged); the daemon must not serve crashes then. */
int privileges_drop_setup_capabilities(void);
