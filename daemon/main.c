/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "build-config.h"
#include "config/check.h"
#include "config/conf-files.h"
#include "config/config.h"
#include "config/policy.h"
#include "crash/record.h"
#include "selfdump/probe.h"
#include "crash/first-seen.h"
#include "crash/repeats.h"
#include "parser/client.h"
#include "server/fatal.h"
#include "server/hooks.h"
#include "server/listen.h"
#include "server/privileges.h"
#include "server/server.h"
#include "shared/cell-ids.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/kernel-handler.h"
#include "shared/log.h"
#include "shared/strv.h"
#include "store/store.h"

struct arguments {
        const char *config_path;
        bool config_explicit;
        const char *listen_path;
        char **config_dirs;
        char **policy_dirs;
        bool check_config;
        bool check_policy;
        bool probe;
        int probe_pin;          /* 1: --pin-probe, -1: --unpin-probe */
};

static void help(void) {
        printf("Usage: coredumpd [OPTIONS]\n\n"
               "Coredump server for the kernel's coredump socket protocol (core_pattern=@@SOCKET).\n\n"
               "  -h --help              Show this help\n"
               "     --version           Show the version\n"
               "     --config=PATH       Configuration file (default %s, with drop-ins)\n"
               "     --config-dir=DIR    Drop-in directory, repeatable, first wins for equal names\n"
               "                         (default: %s\n"
               "                         %s\n"
               "                         %s; none with --config=)\n"
               "     --listen=PATH       Bind the socket ourselves instead of socket activation\n"
               "     --policy-dir=DIR    Policy directory, repeatable, first wins for equal names\n"
               "                         (default: $COREDUMPD_POLICY_PATH or %s:%s:%s)\n"
               "     --check-config      Validate configuration and policy, print the effective configuration\n"
               "     --check-policy      Validate configuration and policy, print the effective rules\n"
               "     --no-probe          Do not attach the crash-context probe (BPF kprobes)\n"
               "     --pin-probe         Attach the crash-context probe and pin it in %s, then exit\n"
               "                         (coredumpd-probe.service, at boot)\n"
               "     --unpin-probe       Remove the pinned probe, then exit\n"
               "  -v --verbose           Log debug messages\n",
               COREDUMPD_CONFIG_FILE, COREDUMPD_DROPIN_DIR_ETC, COREDUMPD_DROPIN_DIR_RUN, COREDUMPD_DROPIN_DIR_VENDOR,
               COREDUMPD_POLICY_DIR_ETC, COREDUMPD_POLICY_DIR_RUN, COREDUMPD_POLICY_DIR_VENDOR, PROBE_PIN_DIR);
}

static int parse_arguments(int argc, char *argv[], struct arguments *a) {
        enum {
                ARG_VERSION = 0x100, ARG_CONFIG, ARG_CONFIG_DIR, ARG_LISTEN, ARG_POLICY_DIR, ARG_CHECK_CONFIG,
                ARG_CHECK_POLICY, ARG_NO_PROBE, ARG_PIN_PROBE, ARG_UNPIN_PROBE,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "config", required_argument, NULL, ARG_CONFIG },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "listen", required_argument, NULL, ARG_LISTEN },
                { "policy-dir", required_argument, NULL, ARG_POLICY_DIR },
                { "check-policy", no_argument, NULL, ARG_CHECK_POLICY },
                { "no-probe", no_argument, NULL, ARG_NO_PROBE },
                { "pin-probe", no_argument, NULL, ARG_PIN_PROBE },
                { "unpin-probe", no_argument, NULL, ARG_UNPIN_PROBE },
                { "verbose", no_argument, NULL, 'v' },
                {}
        };
        int c;

        a->config_path = COREDUMPD_CONFIG_FILE;
        a->probe = true;
        while ((c = getopt_long(argc, argv, "hv", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("coredumpd %s\n", COREDUMPD_VERSION);
                        return 0;
                case ARG_CONFIG:
                        a->config_path = optarg;
                        a->config_explicit = true;
                        break;
                case ARG_CONFIG_DIR:
                        if (strv_extend(&a->config_dirs, optarg) < 0)
                                return log_error_errno(ENOMEM, "%m");
                        break;
                case ARG_CHECK_CONFIG:
                        a->check_config = true;
                        break;
                case ARG_LISTEN:
                        a->listen_path = optarg;
                        break;
                case ARG_POLICY_DIR:
                        if (strv_extend(&a->policy_dirs, optarg) < 0)
                                return log_error_errno(ENOMEM, "%m");
                        break;
                case ARG_CHECK_POLICY:
                        a->check_policy = true;
                        break;
                case ARG_NO_PROBE:
                        a->probe = false;
                        break;
                case ARG_PIN_PROBE:
                        a->probe_pin = 1;
                        break;
                case ARG_UNPIN_PROBE:
                        a->probe_pin = -1;
                        break;
                case 'v':
                        log_set_max_priority(LOG_DEBUG);
                        break;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc)
                return log_error_errno(EINVAL, "Unexpected argument: %s", argv[optind]);
        return 1;
}

/* --check-config, --check-policy: every problem of every file, the warnings, then what is in force
 * (config/check.c, the same as `dumpctl check`). Exit status 1 if anything was left out. */
static int check(const struct arguments *a) {
        struct config_check c = {
                .config_path = a->config_path,
                .config_explicit = a->config_explicit,
                .config_dropin_dirs = config_dropin_dirs(a->config_dirs, a->config_explicit),
                .policy_dirs = policy_dirs_or_default(a->policy_dirs),
                .print_config = a->check_config,
                .print_policy = a->check_policy,
        };
        return config_check_run(&c) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* The policy in force at start: what is wrong in a file is left out (logged), the rest applies. */
static struct policy *initial_policy(const struct arguments *a) {
        struct policy *p = NULL;

        (void) policy_load(policy_dirs_or_default(a->policy_dirs), &p);
        return p;
}

static int block_signals(void) {
        sigset_t mask;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return negative_errno();
        signal(SIGPIPE, SIG_IGN);
        return 0;
}

static int run(const struct arguments *a, struct config *config) {
        _cleanup_(policy_unrefp) struct policy *policy = NULL;
        struct store *store = NULL;
        struct server *server = NULL;
        struct probe *probe = NULL;
        struct repeats *repeats = NULL;
        struct first_seen *first_seen = NULL;
        struct hooks *hooks = NULL;
        int fd, r;

        r = block_signals();
        if (r < 0)
                return log_error_errno(r, "Cannot block signals: %m");
        r = fatal_signals_install();
        if (r < 0)
                return log_error_errno(r, "Cannot install the fatal signal handlers: %m");

        /* The crash socket systemd passes is the host's: its parser is the installed one, whatever
         * the environment says ($COREDUMPD_PARSER is for tests, which listen on a socket of their own). */
        if (!a->listen_path && getenv("COREDUMPD_PARSER")) {
                log_warning("Ignoring $COREDUMPD_PARSER: the host's crashes are parsed by %s.", COREDUMPD_PARSER_PATH);
                (void) unsetenv("COREDUMPD_PARSER");
        }
        fd = a->listen_path ? listen_fd_bind(a->listen_path) : listen_fd_from_systemd();
        if (fd == -ENOENT)
                return log_error_errno(ENOENT, "No socket: start coredumpd through coredumpd.socket or use --listen=PATH.");
        if (fd < 0)
                return fd;

        r = store_open(config->storage, config, &store);
        if (r < 0) {
                safe_close(fd);
                return r;
        }

        policy = initial_policy(a);
        if (!policy) {
                safe_close(fd);
                store_free(store);
                return log_error_errno(ENOMEM, "%m");
        }

        /* The cells' own ids: without them, every cell not the crashing user's shares nobody's uid. */
        char why[512];
        if (cell_ids_init("", why, sizeof why) < 0)
                log_warning("Cells that do not run as the crashing user run as nobody: %s.", why);

        /* Without the probe everything works, only crash context (registers, fault address) is missing. */
        if (a->probe)
                (void) probe_open(&probe);
        else
                log_info("Crash-context probe not attached (--no-probe).");
        /* Attaching was the last thing that needed more than CAP_SYS_PTRACE. */
        r = privileges_drop_setup_capabilities();
        if (r < 0) {
                probe_free(probe);
                store_free(store);
                safe_close(fd);
                return log_error_errno(r, "Refusing to serve crashes with the privileges of setting up.");
        }

        repeats = repeats_new(store->dir_fd);
        first_seen = first_seen_new(store->dir_fd);
        if (!repeats || !first_seen) {
                repeats_free(repeats);
                first_seen_free(first_seen);
                probe_free(probe);
                store_free(store);
                safe_close(fd);
                return log_error_errno(ENOMEM, "%m");
        }

        struct server_options o = {
                .config = config,
                .config_path = a->config_path,
                .config_must_exist = a->config_explicit,
                .config_dropin_dirs = config_dropin_dirs(a->config_dirs, a->config_explicit),
                .listen_fd = fd,
                .store = store,
                .policy = policy,
                .policy_dirs = policy_dirs_or_default(a->policy_dirs),
                .authenticate = authenticate_peer,
                .record_sink = record_sink_journal,
                .user_records = true,
                .packages = true,
                .probe = probe,
                .repeats = repeats,
                .exit_wait_usec = SERVER_EXIT_WAIT_USEC,
                .handle_signals = true,
                .notify = true,
                .first_seen = first_seen,
        };
        /* The hooks (crash/notify.h) on a thread of their own; without it, none. */
        hooks = hooks_new(NULL);
        if (hooks) {
                o.hook_start = hooks_start;
                o.hook_userdata = hooks;
                child_set_stuck_handler(hooks_scope_stuck_child, hooks);
        }
        r = server_new(&o, &server);
        if (r >= 0)
                r = server_run(server);

        server_free(server);
        reader_pool_end(); /* the idle readers (parser/client.h) */
        if (stuck_threads() > 0)
                return r; /* their steps may still use these: the exit ends them (server_free()) */
        child_set_stuck_handler(NULL, NULL);
        hooks_free(hooks);
        first_seen_free(first_seen);
        repeats_free(repeats);
        probe_free(probe);
        store_free(store);
        return r;
}

int main(int argc, char *argv[]) {
        struct arguments a = {};
        struct config config;
        int r;

        /* Our own crash must never come back to our own socket: not dumpable, and a fatal signal
         * ends us without a dump even where fs.suid_dumpable=2 would dump us anyway. */
        (void) prctl(PR_SET_DUMPABLE, 0);

        /* Crashes are handled on threads that each malloc a lot for a short while (the unwinder's
         * ELF and DWARF tables): glibc's default of 8 arenas per CPU left the peak RSS at ~40 MiB
         * in a burst of 100 (bench/run). As many arenas as CPUs keep them from contending.
         * Large short-lived blocks (zstd's 3 MiB workspace, stream buffers) are mmapped and go back
         * to the kernel when freed: left to itself, glibc raises its mmap threshold to the largest
         * block freed so far and serves the next ones from the heap, which then stays resident
         * (a burst's peak: 16.9 MiB with the heap holding 7.6, 10.2 MiB with fixed thresholds). */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        (void) mallopt(M_ARENA_MAX, (int) (cpus < 2 ? 2 : cpus > 64 ? 64 : cpus));
        (void) mallopt(M_MMAP_THRESHOLD, 256 * 1024);
        (void) mallopt(M_TRIM_THRESHOLD, 1024 * 1024);

        r = parse_arguments(argc, argv, &a);
        if (r <= 0) {
                strv_free(a.config_dirs);
                strv_free(a.policy_dirs);
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }

        /* coredumpd-probe.service: nothing of the configuration matters to the probe. */
        if (a.probe_pin != 0) {
                r = a.probe_pin > 0 ? probe_pin(PROBE_PIN_DIR) : probe_unpin(PROBE_PIN_DIR);
                strv_free(a.config_dirs);
                strv_free(a.policy_dirs);
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }

        if (a.check_config || a.check_policy) {
                r = check(&a);
                strv_free(a.config_dirs);
                strv_free(a.policy_dirs);
                return r;
        }

        /* What is wrong in coredumpd.conf or a drop-in is logged at its file:line and left out: a
         * typo never stops crash collection. */
        config_init_defaults(&config);
        r = config_load_with_dropins(&config, a.config_path, a.config_explicit,
                                     config_dropin_dirs(a.config_dirs, a.config_explicit));
        if (r >= 0)
                r = run(&a, &config);

        config_done(&config);
        strv_free(a.config_dirs);
        strv_free(a.policy_dirs);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
