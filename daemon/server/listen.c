/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "server/listen.h"
#include "shared/cleanup.h"
#include "shared/log.h"

static int fd_set_nonblock(int fd) {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                return negative_errno();
        return 0;
}

int listen_fd_from_systemd(void) {
        int n = sd_listen_fds(1);
        if (n < 0)
                return log_error_errno(n, "Cannot get sockets from systemd: %m");
        if (n == 0)
                return -ENOENT;
        if (n > 1)
                return log_error_errno(EINVAL, "Expected one socket from systemd, got %d.", n);

        int fd = SD_LISTEN_FDS_START;
        int r = sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot check the socket from systemd: %m");
        if (r == 0)
                return log_error_errno(EINVAL, "The socket from systemd is not a listening AF_UNIX stream socket.");

        r = fd_set_nonblock(fd);
        if (r < 0)
                return log_error_errno(r, "Cannot make the listening socket non-blocking: %m");
        return fd;
}

int listen_fd_bind(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct stat st;

        if (strlen(path) >= sizeof sa.sun_path)
                return log_error_errno(ENAMETOOLONG, "Socket path %s is too long: %m", path);
        strcpy(sa.sun_path, path);

        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return log_error_errno(errno, "Cannot create a socket: %m");

        /* Replace a stale socket from an earlier run, but nothing else. */
        if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
                (void) unlink(path);

        mode_t old = umask(0177);
        int r = bind(fd, (struct sockaddr *) &sa, sizeof sa);
        umask(old);
        if (r < 0)
                return log_error_errno(errno, "Cannot bind to %s: %m", path);
        if (listen(fd, SOMAXCONN) < 0)
                return log_error_errno(errno, "Cannot listen on %s: %m", path);
        return TAKE_FD(fd);
}
