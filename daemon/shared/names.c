/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shared/abi.h"
#include "shared/cleanup.h"
#include "shared/names.h"

static const char *const signal_names[] = {
        [SIGHUP] = "SIGHUP",       [SIGINT] = "SIGINT",       [SIGQUIT] = "SIGQUIT",
        [SIGILL] = "SIGILL",       [SIGTRAP] = "SIGTRAP",     [SIGABRT] = "SIGABRT",
        [SIGBUS] = "SIGBUS",       [SIGFPE] = "SIGFPE",       [SIGKILL] = "SIGKILL",
        [SIGUSR1] = "SIGUSR1",     [SIGSEGV] = "SIGSEGV",     [SIGUSR2] = "SIGUSR2",
        [SIGPIPE] = "SIGPIPE",     [SIGALRM] = "SIGALRM",     [SIGTERM] = "SIGTERM",
        [SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD",     [SIGCONT] = "SIGCONT",
        [SIGSTOP] = "SIGSTOP",     [SIGTSTP] = "SIGTSTP",     [SIGTTIN] = "SIGTTIN",
        [SIGTTOU] = "SIGTTOU",     [SIGURG] = "SIGURG",       [SIGXCPU] = "SIGXCPU",
        [SIGXFSZ] = "SIGXFSZ",     [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
        [SIGWINCH] = "SIGWINCH",   [SIGIO] = "SIGIO",         [SIGPWR] = "SIGPWR",
        [SIGSYS] = "SIGSYS",
};

const char *signal_to_name(int sig) {
        if (sig <= 0 || (size_t) sig >= ELEMENTSOF(signal_names))
                return NULL;
        return signal_names[sig];
}

int signal_from_string(const char *s) {
        if (!s || !*s)
                return -EINVAL;

        for (size_t i = 1; i < ELEMENTSOF(signal_names); i++) {
                if (!signal_names[i])
                        continue;
                if (strcasecmp(s, signal_names[i]) == 0 || strcasecmp(s, signal_names[i] + 3) == 0)
                        return (int) i;
        }

        char *end;
        errno = 0;
        long n = strtol(s, &end, 10);
        if (errno != 0 || *end || end == s || n < 1 || n > 64)
                return -EINVAL;
        return (int) n;
}

const char *mark_to_name(uint32_t mark) {
        switch (mark) {
        case COREDUMP_MARK_REQACK:      return "REQACK";
        case COREDUMP_MARK_MINSIZE:     return "MINSIZE";
        case COREDUMP_MARK_MAXSIZE:     return "MAXSIZE";
        case COREDUMP_MARK_UNSUPPORTED: return "UNSUPPORTED";
        case COREDUMP_MARK_CONFLICTING: return "CONFLICTING";
        default:                        return NULL;
        }
}

static const char *const action_names[_ACTION_MAX] = {
        [ACTION_KERNEL] = "kernel",
        [ACTION_USERSPACE] = "userspace",
        [ACTION_REJECT] = "reject",
};

const char *action_to_string(enum action a) {
        if (a < 0 || a >= _ACTION_MAX)
                return NULL;
        return action_names[a];
}

enum action action_from_string(const char *s) {
        for (int a = 0; a < _ACTION_MAX; a++)
                if (s && strcmp(s, action_names[a]) == 0)
                        return (enum action) a;
        return _ACTION_INVALID;
}
