/* sockclient — connect to a unix stream socket as an ordinary process, send a
 * few bytes that look like nothing in particular, and report whether and when
 * the server closed the connection.
 *
 *   sockclient PATH [TIMEOUT_S]
 *
 * Prints "closed ms=M" or "open-after-timeout" or "connect-failed errno=E".
 * Exit: 0 closed by the server, 1 still open at the timeout, 2 connect failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, timeout = argc > 2 ? atoi(argv[2]) : 10;
	struct timespec t0, t1;
	char buf[4096];

	if (argc < 2) {
		fprintf(stderr, "usage: sockclient PATH [TIMEOUT_S]\n");
		return 64;
	}
	strncpy(sa.sun_path, argv[1], sizeof(sa.sun_path) - 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("connect-failed errno=%d (%s)\n", errno, strerror(errno));
		return 2;
	}
	/* Pretend to be a coredump_ack-sized peer; a server must not trust it. */
	(void)!write(fd, "\x10\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0", 16);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms > timeout * 1000L) {
			printf("open-after-timeout\n");
			return 1;
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0)
			continue;	/* whatever the server says, keep waiting for EOF */
		printf("closed ms=%ld%s\n", ms, n < 0 ? " (reset)" : "");
		return 0;
	}
}
