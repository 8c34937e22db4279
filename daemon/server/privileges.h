/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Capabilities the daemon needs only while it sets up (attaching the crash-context probe needs
 * CAP_BPF, CAP_PERFMON and, on kernels with a restricted perf_event_paranoid, CAP_SYS_ADMIN) are
 * dropped before the first crash is served.  Per crash it keeps CAP_SYS_PTRACE and
 * CAP_DAC_READ_SEARCH, to read /proc/<pid>/{exe,auxv,mem} of processes of any user.
 */

/* Reduces the permitted and effective sets to those two (where held). 0 or -errno. */
int privileges_drop_setup_capabilities(void);
