/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build-config.h"
#include "selfdump/probe.h"
#include "shared/cleanup.h"
#include "shared/log.h"

#if HAVE_PROBE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "selfdump/bpf/crash-context.bpf.h"
#endif

struct probe {
#if HAVE_PROBE
        struct bpf_object *obj;
        struct bpf_link *stash_link;
        struct bpf_link *crash_link;
        int stash_fd;
        int crashes_fd;
#endif
        const char *crash_symbol;
        bool pinned;                    /* the maps of the pinned probe (coredumpd-probe.service) */
};

void probe_regs_to_core(const uint64_t pt_regs[CRASH_CONTEXT_NREGS], uint64_t regs[CORE_NREGS]) {
        memset(regs, 0, CORE_NREGS * sizeof regs[0]);
        /* user_regs_struct begins with exactly the fields of pt_regs, in the same order. */
        memcpy(regs, pt_regs, CRASH_CONTEXT_NREGS * sizeof pt_regs[0]);
}

bool probe_record_not_before(uint64_t boot_ns, uint64_t start_time_ticks) {
        long hz = sysconf(_SC_CLK_TCK);
        if (hz <= 0)
                hz = 100;
        /* start_time is rounded down to a tick, so a record of this process is never before it. */
        return boot_ns / (UINT64_C(1000000000) / (uint64_t) hz) >= start_time_ticks;
}

bool probe_is_loaded(const struct probe *p) {
        return p != NULL;
}

const char *probe_crash_symbol(const struct probe *p) {
        return p ? p->crash_symbol : NULL;
}

bool probe_is_pinned(const struct probe *p) {
        return p && p->pinned;
}

#if HAVE_PROBE

/* The names under PROBE_PIN_DIR: the two maps, and a link per program named by its kprobe's symbol,
 * so that the daemon knows where the crash record is taken without asking the kernel. */
static const char *const stash_symbols[] = { "arch_do_signal_or_restart", NULL };
/* The coredump's entry: vfs_coredump since 6.16, do_coredump before. */
static const char *const crash_symbols[] = { "vfs_coredump", "do_coredump", NULL };

static void pin_path(char *buf, size_t size, const char *dir, const char *kind, const char *name) {
        snprintf(buf, size, "%s/%s%s%s", dir, kind, *kind ? "-" : "", name);
}

static int libbpf_print(enum libbpf_print_level level, const char *format, va_list ap) {
        if (level == LIBBPF_DEBUG)
                return 0;
        char line[512];
        vsnprintf(line, sizeof line, format, ap);
        size_t n = strlen(line);
        while (n > 0 && line[n - 1] == '\n')
                line[--n] = 0;
        log_debug("libbpf: %s", line);
        return 0;
}

static struct bpf_link *attach_first(struct bpf_program *prog, const char *const *symbols, const char **ret_symbol) {
        int err = ENOENT;

        for (const char *const *s = symbols; *s; s++) {
                struct bpf_link *link = bpf_program__attach_kprobe(prog, false, *s);
                if (link) {
                        *ret_symbol = *s;
                        return link;
                }
                err = errno;
        }
        errno = err;
        return NULL;
}

/* The embedded object loaded and its two programs attached: p->obj, p->stash_link, p->crash_link,
 * p->stash_fd, p->crashes_fd, p->crash_symbol. On failure, errno and *what say why. */
static int load_and_attach(struct probe *p, const char **what, const char **ret_stash_symbol) {
        *what = "open the BPF object";
        p->obj = bpf_object__open_mem(crash_context_bpf_object, sizeof crash_context_bpf_object, NULL);
        if (!p->obj)
                return -1;
        *what = "load the BPF programs (needs CAP_BPF and CAP_PERFMON)";
        if (bpf_object__load(p->obj) < 0)
                return -1;

        struct bpf_program *stash = bpf_object__find_program_by_name(p->obj, "stash_regs");
        struct bpf_program *crash = bpf_object__find_program_by_name(p->obj, "record_crash");
        p->stash_fd = bpf_object__find_map_fd_by_name(p->obj, "stash");
        p->crashes_fd = bpf_object__find_map_fd_by_name(p->obj, "crashes");
        *what = "find the programs and maps";
        if (!stash || !crash || p->stash_fd < 0 || p->crashes_fd < 0) {
                errno = ENOENT;
                return -1;
        }

        *what = "attach a kprobe to arch_do_signal_or_restart";
        p->stash_link = attach_first(stash, stash_symbols, ret_stash_symbol);
        if (!p->stash_link)
                return -1;
        *what = "attach a kprobe to vfs_coredump or do_coredump";
        p->crash_link = attach_first(crash, crash_symbols, &p->crash_symbol);
        if (!p->crash_link)
                return -1;
        return 0;
}

/* Whether a pinned map is the one this build's probe writes: a map of another layout (an older
 * package's, still pinned) would hand us records we would misread. */
static bool map_fits(int fd, const char *name, __u32 type, __u32 key_size, __u32 value_size) {
        struct bpf_map_info info = {};
        __u32 len = sizeof info;

        if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
                return false;
        return info.type == type && info.key_size == key_size && info.value_size == value_size &&
               strncmp(info.name, name, sizeof info.name) == 0;
}

static int obj_get(const char *dir, const char *kind, const char *name) {
        char path[256];
        pin_path(path, sizeof path, dir, kind, name);
        return bpf_obj_get(path);
}

/* The probe coredumpd-probe.service pinned at boot: its maps, if both links are still pinned (the
 * kprobes attached) and the maps have our layout. The links themselves are not kept open: the
 * pins hold them. -ENOENT: nothing (whole) pinned; -EPROTO: pinned by another build. */
static int open_pinned(const char *dir, struct probe *p, const char **ret_stash_symbol) {
        const char *stash_symbol = NULL;

        for (const char *const *s = stash_symbols; *s && !stash_symbol; s++) {
                int fd = obj_get(dir, "link-stash", *s);
                if (fd >= 0) {
                        stash_symbol = *s;
                        close(fd);
                }
        }
        for (const char *const *s = crash_symbols; *s && !p->crash_symbol; s++) {
                int fd = obj_get(dir, "link-crash", *s);
                if (fd >= 0) {
                        p->crash_symbol = *s;
                        close(fd);
                }
        }
        if (!stash_symbol || !p->crash_symbol)
                return -ENOENT;
        /* From here on probe_free() closes what was opened, whatever follows. */
        p->pinned = true;
        p->stash_fd = obj_get(dir, "", "stash");
        p->crashes_fd = obj_get(dir, "", "crashes");
        if (p->stash_fd < 0 || p->crashes_fd < 0)
                return -ENOENT;
        if (!map_fits(p->stash_fd, "stash", BPF_MAP_TYPE_LRU_HASH, sizeof(__u32), sizeof(struct crash_context_regs)) ||
            !map_fits(p->crashes_fd, "crashes", BPF_MAP_TYPE_LRU_HASH, sizeof(__u32),
                      sizeof(struct crash_context_record)))
                return -EPROTO;
        *ret_stash_symbol = stash_symbol;
        return 0;
}

static struct probe *probe_new(void) {
        struct probe *p = calloc(1, sizeof *p);
        if (p)
                p->stash_fd = p->crashes_fd = -1;
        return p;
}

int probe_open_at(const char *pin_dir, struct probe **ret) {
        const char *what, *stash_symbol = NULL;
        int r;

        *ret = NULL;
        libbpf_set_print(libbpf_print);

        struct probe *p = probe_new();
        if (!p)
                return log_error_errno(ENOMEM, "%m");

        r = open_pinned(pin_dir, p, &stash_symbol);
        if (r == 0) {
                log_info("Crash-context probe attached (kprobes on %s and %s), pinned in %s: it saw the crashes "
                         "of the time the daemon was away too.", stash_symbol, p->crash_symbol, pin_dir);
                *ret = p;
                return 0;
        }
        if (r == -EPROTO)
                log_warning("The crash-context probe pinned in %s is of another build (maps of another layout); "
                            "restart coredumpd-probe.service. Attaching one of our own meanwhile.", pin_dir);
        probe_free(p);

        /* Nothing pinned (coredumpd-probe.service not run, or no bpffs): a probe of our own, which
         * sees only the crashes after this start. The crash that socket-activated us is not among
         * them: its trace may come out cut short, and is then marked so (crash/backtrace.h). */
        p = probe_new();
        if (!p)
                return log_error_errno(ENOMEM, "%m");
        if (load_and_attach(p, &what, &stash_symbol) < 0)
                goto fail;

        log_info("Crash-context probe attached (kprobes on %s and %s), by this daemon only: nothing pinned in %s "
                 "(coredumpd-probe.service), so a crash that starts the daemon is not seen.", stash_symbol,
                 p->crash_symbol, pin_dir);
        *ret = p;
        return 0;

fail:
        r = errno > 0 ? -errno : -EIO;
        log_full_errno(LOG_NOTICE, r, "Crash-context probe unavailable, going on without it: cannot %s: %m", what);
        probe_free(p);
        return r;
}

int probe_open(struct probe **ret) {
        return probe_open_at(PROBE_PIN_DIR, ret);
}

static int unpin_all(const char *dir) {
        static const char *const maps[] = { "stash", "crashes", NULL };
        char path[256];
        int r = 0;

        for (const char *const *s = stash_symbols; *s; s++) {
                pin_path(path, sizeof path, dir, "link-stash", *s);
                if (unlink(path) < 0 && errno != ENOENT)
                        r = -errno;
        }
        for (const char *const *s = crash_symbols; *s; s++) {
                pin_path(path, sizeof path, dir, "link-crash", *s);
                if (unlink(path) < 0 && errno != ENOENT)
                        r = -errno;
        }
        for (const char *const *s = maps; *s; s++) {
                pin_path(path, sizeof path, dir, "", *s);
                if (unlink(path) < 0 && errno != ENOENT)
                        r = -errno;
        }
        if (rmdir(dir) < 0 && errno != ENOENT)
                r = -errno;
        return r;
}

int probe_unpin(const char *dir) {
        int r = unpin_all(dir);
        if (r < 0)
                return log_error_errno(r, "Cannot remove the crash-context probe pinned in %s: %m", dir);
        log_info("Crash-context probe unpinned from %s and detached.", dir);
        return 0;
}

int probe_pin(const char *dir) {
        const char *what, *stash_symbol = NULL;
        char path[256];
        int r;

        libbpf_set_print(libbpf_print);

        /* Already there and of our layout (the unit restarted, or run twice): keep it, and what its
         * maps hold of crashes not yet served. */
        struct probe *p = probe_new();
        if (!p)
                return log_error_errno(ENOMEM, "%m");
        r = open_pinned(dir, p, &stash_symbol);
        if (r == 0) {
                log_info("Crash-context probe already pinned in %s (kprobes on %s and %s).", dir, stash_symbol,
                         p->crash_symbol);
                probe_free(p);
                return 0;
        }
        probe_free(p);
        /* Whatever else is there (a part, another build's) goes. */
        (void) unpin_all(dir);

        p = probe_new();
        if (!p)
                return log_error_errno(ENOMEM, "%m");
        if (load_and_attach(p, &what, &stash_symbol) < 0)
                goto fail;

        what = "create the pin directory (is bpffs mounted on /sys/fs/bpf?)";
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                goto fail;
        /* Maps first: a daemon that finds both links pinned finds the maps too. */
        what = "pin the maps";
        pin_path(path, sizeof path, dir, "", "stash");
        if (bpf_obj_pin(p->stash_fd, path) < 0)
                goto fail;
        pin_path(path, sizeof path, dir, "", "crashes");
        if (bpf_obj_pin(p->crashes_fd, path) < 0)
                goto fail;
        what = "pin the kprobe links (needs a kernel with BPF perf links, 5.15 or later)";
        pin_path(path, sizeof path, dir, "link-stash", stash_symbol);
        if (bpf_link__pin(p->stash_link, path) < 0)
                goto fail;
        pin_path(path, sizeof path, dir, "link-crash", p->crash_symbol);
        if (bpf_link__pin(p->crash_link, path) < 0)
                goto fail;

        log_info("Crash-context probe attached (kprobes on %s and %s) and pinned in %s: it stays while the "
                 "daemon is away.", stash_symbol, p->crash_symbol, dir);
        probe_free(p);
        return 0;

fail:
        r = errno > 0 ? -errno : -EIO;
        log_full_errno(LOG_WARNING, r, "Cannot pin the crash-context probe: cannot %s: %m. The daemon attaches one "
                       "of its own when it starts; the crash that starts it is then unwound from its sp and pc only.",
                       what);
        probe_free(p);
        (void) unpin_all(dir);
        return r;
}

int probe_check_object(void) {
        struct bpf_object *obj = bpf_object__open_mem(crash_context_bpf_object, sizeof crash_context_bpf_object, NULL);
        if (!obj)
                return errno > 0 ? -errno : -EIO;
        int r = bpf_object__find_program_by_name(obj, "stash_regs") &&
                bpf_object__find_program_by_name(obj, "record_crash") &&
                bpf_object__find_map_by_name(obj, "stash") && bpf_object__find_map_by_name(obj, "crashes")
                ? 0 : -ENOENT;
        bpf_object__close(obj);
        return r;
}

struct probe *probe_free(struct probe *p) {
        if (!p)
                return NULL;
        bpf_link__destroy(p->crash_link);
        bpf_link__destroy(p->stash_link);
        bpf_object__close(p->obj);
        /* The pinned probe's maps are ours to close; the object's own are closed with it. */
        if (p->pinned) {
                if (p->stash_fd >= 0)
                        close(p->stash_fd);
                if (p->crashes_fd >= 0)
                        close(p->crashes_fd);
        }
        free(p);
        return NULL;
}

int probe_take(struct probe *p, pid_t tgid, int signo, bool si_code_known, int si_code, uint64_t start_time,
               struct probe_crash *ret) {
        struct crash_context_record rec;
        __u32 key = (__u32) tgid;

        if (!p)
                return -ENOENT;
        if (bpf_map_lookup_elem(p->crashes_fd, &key, &rec) < 0)
                return -ENOENT;
        (void) bpf_map_delete_elem(p->crashes_fd, &key);

        if (rec.tgid != (__u32) tgid || (signo > 0 && rec.signo != signo) ||
            (si_code_known && rec.si_code != si_code) || !probe_record_not_before(rec.boot_ns, start_time))
                return -ESTALE;

        *ret = (struct probe_crash) {
                .tid = (pid_t) rec.tid,
                .signo = rec.signo,
                .si_errno = rec.si_errno,
                .si_code = rec.si_code,
                .fault_addr = rec.fault_addr,
                .boot_ns = rec.boot_ns,
                .have_regs = rec.have_regs && rec.regs.boot_ns <= rec.boot_ns,
        };
        if (ret->have_regs) {
                probe_regs_to_core((const uint64_t *) rec.regs.regs, ret->regs);
                key = rec.tid;
                (void) bpf_map_delete_elem(p->stash_fd, &key);
        }
        return 0;
}

bool probe_thread_regs(struct probe *p, pid_t tid, uint64_t not_before_ns, uint64_t sp, uint64_t pc,
                       uint64_t regs[CORE_NREGS]) {
        struct crash_context_regs stashed;
        __u32 key = (__u32) tid;

        if (!p || bpf_map_lookup_elem(p->stash_fd, &key, &stashed) < 0)
                return false;
        if (stashed.boot_ns < not_before_ns ||
            (sp != 0 && stashed.regs[CRASH_CONTEXT_REG_SP] != sp) ||
            (pc != 0 && stashed.regs[CRASH_CONTEXT_REG_IP] != pc))
                return false;
        (void) bpf_map_delete_elem(p->stash_fd, &key);
        probe_regs_to_core((const uint64_t *) stashed.regs, regs);
        return true;
}

#else /* !HAVE_PROBE */

int probe_open_at(const char *pin_dir, struct probe **ret) {
        *ret = NULL;
        log_notice("Crash-context probe unavailable, going on without it: coredumpd was built without BPF support.");
        return -EOPNOTSUPP;
}

int probe_open(struct probe **ret) {
        return probe_open_at(PROBE_PIN_DIR, ret);
}

int probe_pin(const char *dir) {
        return log_error_errno(EOPNOTSUPP, "Cannot pin the crash-context probe: coredumpd was built without BPF support.");
}

int probe_unpin(const char *dir) {
        return 0;
}

int probe_check_object(void) {
        return -EOPNOTSUPP;
}

struct probe *probe_free(struct probe *p) {
        return NULL;
}

int probe_take(struct probe *p, pid_t tgid, int signo, bool si_code_known, int si_code, uint64_t start_time,
               struct probe_crash *ret) {
        return -ENOENT;
}

bool probe_thread_regs(struct probe *p, pid_t tid, uint64_t not_before_ns, uint64_t sp, uint64_t pc,
                       uint64_t regs[CORE_NREGS]) {
        return false;
}

#endif
