/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The crash-context probe (bpf/crash-context.bpf.c), loaded with libbpf when the daemon starts:
 * what the kernel saw as a thread group entered core dumping — signal, si_code, fault address,
 * the dumping thread and its user registers. The daemon takes the record when the crash's
 * connection arrives, after checking that it belongs to this very crash (same signal and si_code as
 * the pidfd reports, taken no earlier than the process started), so that a reused pid is never
 * confused with an old crash. When the probe cannot be loaded (no BPF, no kprobes, no privilege, a
 * daemon built without clang), that is logged once and everything works without it.
 *
 * The daemon is socket-activated and exits when idle, so the crash that starts it happened before
 * it could attach anything. coredumpd-probe.service therefore attaches the probe at boot and pins
 * it in bpffs (PROBE_PIN_DIR: the two maps, and a BPF link per kprobe, named after its symbol); the
 * pins keep it attached while no daemon runs, and each daemon opens those maps instead of loading a
 * probe of its own. Only when nothing (whole, of this build's layout) is pinned does the daemon
 * attach its own, which then sees only the crashes after its start.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "selfdump/bpf/crash-context.h"
#include "selfdump/core-notes.h"

struct probe;

#define PROBE_PIN_DIR "/sys/fs/bpf/coredumpd"

/* What the probe saw, as the daemon uses it. */
struct probe_crash {
        pid_t tid;                      /* the dumping thread */
        int signo, si_errno, si_code;
        uint64_t fault_addr;
        uint64_t boot_ns;               /* CLOCK_BOOTTIME of the dump's start */
        bool have_regs;
        uint64_t regs[CORE_NREGS];      /* user_regs_struct order; fs_base and the rest are 0 */
};

/* Loads and attaches the probe. Returns 0 and *ret, or a negative errno with *ret = NULL (logged,
 * once). */
int probe_open(struct probe **ret);
/* The same, looking for the pinned probe in pin_dir (tests). */
int probe_open_at(const char *pin_dir, struct probe **ret);
struct probe *probe_free(struct probe *p);
bool probe_is_loaded(const struct probe *p);
/* Whether it is the pinned probe (coredumpd-probe.service's), not one of this daemon's own. */
bool probe_is_pinned(const struct probe *p);

/* coredumpd --pin-probe: loads and attaches the probe and pins its maps and links in dir, keeping a
 * pinned probe of this build's layout that is already there (and what it holds); anything else
 * there is replaced. Needs CAP_BPF, CAP_PERFMON (CAP_SYS_ADMIN where perf_event_paranoid > 2) and a
 * writable bpffs. 0, or a negative errno (logged). */
int probe_pin(const char *dir);
/* coredumpd --unpin-probe: removes the pins; the kprobes detach at once (a running daemon keeps
 * the maps, which no longer fill). */
int probe_unpin(const char *dir);
/* "vfs_coredump" or "do_coredump": where the crash record is taken. */
const char *probe_crash_symbol(const struct probe *p);

/* Takes (looks up and deletes) the record of thread group tgid if it matches: signo and si_code
 * (each when >= 0 / known) and a record no older than the process (start_time in clock ticks after
 * boot, /proc/<pid>/stat field 22). 0: *ret filled. -ENOENT: none. -ESTALE: a record that is not
 * this crash's (deleted). */
int probe_take(struct probe *p, pid_t tgid, int signo, bool si_code_known, int si_code, uint64_t start_time,
               struct probe_crash *ret);

/* Full registers of another thread of the crash, from the stash, if they were taken after the
 * crash started (the kernel killing the thread for the dump) and agree with sp and pc as /proc
 * shows them (each when not 0). */
bool probe_thread_regs(struct probe *p, pid_t tid, uint64_t not_before_ns, uint64_t sp, uint64_t pc,
                       uint64_t regs[CORE_NREGS]);

/* Opens the embedded BPF object without loading anything into the kernel and checks that it has
 * its programs and maps (for tests). -EOPNOTSUPP when built without the probe. */
int probe_check_object(void);

/* Whether a crash record's record time is consistent with a process start time (clock ticks). */
bool probe_record_not_before(uint64_t boot_ns, uint64_t start_time_ticks);
/* Converts the probe's pt_regs into user_regs_struct order. */
void probe_regs_to_core(const uint64_t pt_regs[CRASH_CONTEXT_NREGS], uint64_t regs[CORE_NREGS]);
