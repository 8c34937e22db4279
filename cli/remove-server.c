/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coredumpd-remove: a user's `dumpctl remove`, done as root. Started per connection by
 * coredumpd-remove.socket (Accept=yes; the connection on stdin and stdout): reads one core's name,
 * removes it for the connecting user (SO_PEERCRED) as store_remove_core() allows — their own crash's
 * core, theirs to read; root any — and answers one line: "0 N" (N files removed) or "-ERRNO why".
 * The name is looked up in the store directory only (an fd of it), never through a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "build-config.h"
#include "config/conf-files.h"
#include "config/config.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/log.h"
#include "store/store.h"

#define REQUEST_MAX 512

static int reply(int fd, int r, const char *text) {
        char line[REQUEST_MAX];
        int n = snprintf(line, sizeof line, "%d %s\n", r, text);
        return write_full(fd, line, (size_t) MIN(n, (int) sizeof line - 1));
}

/* One line, at most REQUEST_MAX bytes, within the socket's receive timeout. */
static int read_request(int fd, char buf[static REQUEST_MAX]) {
        size_t n = 0;
        while (n < REQUEST_MAX - 1) {
                ssize_t k = read(fd, buf + n, REQUEST_MAX - 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t) k;
                if (memchr(buf, '\n', n))
                        break;
        }
        buf[n] = 0;
        char *nl = strchr(buf, '\n');
        if (!nl)
                return -EBADMSG;
        *nl = 0;
        return 0;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "store", required_argument, NULL, 's' },
                {}
        };
        const char *store = NULL;
        struct config config;
        char request[REQUEST_MAX], why[256] = "";
        struct ucred cred;
        socklen_t len = sizeof cred;
        int c;

        log_set_program_name("coredumpd-remove");
        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
                if (c != 's') {
                        fprintf(stderr, "Usage: coredumpd-remove [--store=DIR]  (run by coredumpd-remove.socket)\n");
                        return EXIT_FAILURE;
                }
                store = optarg;
        }
        config_init_defaults(&config);
        if (!store) {
                (void) config_load_with_dropins(&config, COREDUMPD_CONFIG_FILE, false, config_dropin_dirs(NULL, false));
                store = config.storage;
        }
        if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
                log_error_errno(errno, "Not started on a connection (coredumpd-remove.socket): %m");
                config_done(&config);
                return EXIT_FAILURE;
        }
        struct timeval tv = { .tv_sec = 5 };
        (void) setsockopt(STDIN_FILENO, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);

        int r = read_request(STDIN_FILENO, request);
        if (r < 0) {
                (void) reply(STDOUT_FILENO, -EBADMSG, "expected one line: the name of a core in the store");
                config_done(&config);
                return EXIT_FAILURE;
        }
        _cleanup_close_ int dir_fd = open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        unsigned removed = 0;
        if (dir_fd < 0) {
                r = -errno;
                snprintf(why, sizeof why, "cannot open the store %s: %s", store, strerror(errno));
        } else
                r = store_remove_core(dir_fd, request, cred.uid, &removed, why, sizeof why);
        if (r < 0) {
                log_notice("Not removing %.255s for uid %u: %s.", request, (unsigned) cred.uid, why);
                (void) reply(STDOUT_FILENO, r, why);
        } else {
                log_info("Removed %s/%s for uid %u (%u file%s).", store, request, (unsigned) cred.uid, removed,
                         removed == 1 ? "" : "s");
                char n[16];
                snprintf(n, sizeof n, "%u", removed);
                (void) reply(STDOUT_FILENO, 0, n);
        }
        config_done(&config);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
