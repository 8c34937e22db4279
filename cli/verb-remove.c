/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl remove: the cores of the matching crashes removed from the store (their records stay).
 * Root removes any, in the store directory itself; a user their own only, through
 * coredumpd-remove.socket, whose helper checks as root that each is theirs (store_remove_core()). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "store/store.h"

#define REMOVE_SOCKET "/run/coredumpd/remove.socket"

/* A user's removal, asked of coredumpd-remove as root: 0 and the files removed, or -errno and why. */
static int remove_by_helper(const char *name, unsigned *ret_removed, char *why, size_t why_size) {
        const char *path = getenv("COREDUMPD_REMOVE_SOCKET") ?: REMOVE_SOCKET;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char line[512];

        if (strlen(path) >= sizeof sa.sun_path)
                return snprintf(why, why_size, "%s: name too long", path), -EINVAL;
        memcpy(sa.sun_path, path, strlen(path) + 1);
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                int r = -errno;
                snprintf(why, why_size, "cannot reach %s (coredumpd-remove.socket): %s", path, strerror(errno));
                return r;
        }
        struct timeval tv = { .tv_sec = 10 };
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        int n = snprintf(line, sizeof line, "%s\n", name);
        if (write(fd, line, (size_t) n) != n) {
                snprintf(why, why_size, "cannot ask coredumpd-remove: %s", strerror(errno));
                return -EIO;
        }
        (void) shutdown(fd, SHUT_WR);
        size_t got = 0;
        for (ssize_t k; got < sizeof line - 1 && (k = read(fd, line + got, sizeof line - 1 - got)) > 0;)
                got += (size_t) k;
        line[got] = 0;
        char *end;
        long r = strtol(line, &end, 10);
        if (got == 0 || end == line || *end != ' ' || !strchr(end, '\n') || r > 0 || r < -4095) {
                snprintf(why, why_size, "no answer from coredumpd-remove");
                return -EIO;
        }
        *strchr(end, '\n') = 0;
        if (r < 0) {
                snprintf(why, why_size, "%s", end + 1);
                return (int) r;
        }
        *ret_removed = (unsigned) strtoul(end + 1, NULL, 10);
        return 0;
}

/* The core's name in the store, if path names a file right in it. */
static const char *name_in_store(const char *path, const char *store) {
        const char *slash = path ? strrchr(path, '/') : NULL;
        size_t n = strlen(store);
        while (n > 1 && store[n - 1] == '/')
                n--;
        if (!slash || (size_t) (slash - path) != n || strncmp(path, store, n) != 0 || !store_name_is_core(slash + 1))
                return NULL;
        return slash + 1;
}

int verb_remove(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        _cleanup_close_ int dir_fd = -1;
        size_t hidden = 0;
        unsigned n_removed = 0, n_denied = 0, n_failed = 0, n_none = 0;
        uid_t me = getuid();

        if (arg.n_matches == 0) {
                log_error("remove takes a MATCH: which crashes' cores to remove (a PID, a crash id, COMM, ...).");
                return EXIT_USAGE;
        }
        if (gather(&l, &hidden, arg.lines_given ? arg.lines : 0) < 0)
                return EXIT_ERROR;
        if (l.n == 0)
                return no_dump_status(hidden);
        const char *store = store_path();
        if (!store)
                return EXIT_ERROR;
        if (me == 0) {
                dir_fd = open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (dir_fd < 0) {
                        log_error_errno(errno, "Cannot open the store %s: %m", store);
                        return EXIT_ERROR;
                }
        }
        for (size_t i = 0; i < l.n; i++) {
                const struct entry *d = &l.entries[i];
                const char *path = fields_get(&d->fields, FIELD_FILENAME);
                const char *comm = field_or(d, "COREDUMP_COMM", "n/a");
                char why[256] = "";
                unsigned removed = 0;
                int r;

                if (d->presence != ENTRY_PRESENT && d->presence != ENTRY_INACCESSIBLE) {
                        n_none++;
                        if (!arg.quiet)
                                log_notice("Crash of pid %lld (%s): no core here to remove (%s).", d->pid, comm,
                                           entry_presence_to_string(d->presence));
                        continue;
                }
                const char *name = d->remote ? NULL : name_in_store(path, store);
                if (!name) {
                        n_denied++;
                        log_error("Not removing %s: not a core in the store %s.", path ? path : "(none)", store);
                        continue;
                }
                /* The record's uid: a user's own crash only (the helper checks the core's too). */
                if (me != 0 && d->uid != (long long) me) {
                        n_denied++;
                        log_error("Permission denied: the crash of pid %lld (%s) is another user's.", d->pid, comm);
                        continue;
                }
                r = me == 0 ? store_remove_core(dir_fd, name, 0, &removed, why, sizeof why)
                            : remove_by_helper(name, &removed, why, sizeof why);
                if (r == -EPERM || r == -EACCES) {
                        n_denied++;
                        log_error("Permission denied: %s: %s.", path, why);
                } else if (r == -ENOENT) {
                        n_none++;
                        log_notice("%s is gone already.", path);
                } else if (r < 0) {
                        n_failed++;
                        log_error("Cannot remove %s: %s.", path, why);
                } else {
                        n_removed++;
                        printf("Removed %s (pid %lld, %s%s).\n", path, d->pid, comm,
                               removed > 1 ? ", with the files kept beside it" : "");
                }
        }
        return n_failed > 0  ? EXIT_ERROR
               : n_denied > 0 ? EXIT_PERMISSION
               : n_removed == 0 ? EXIT_NOT_PRESENT
                                : EXIT_OK;
}
