/* naive-server — the bench's minimal reference server for the kernel's coredump socket
 * (core_pattern "@@PATH"): what anyone would write in an afternoon, with no tricks.
 *
 *   naive-server [--reject | --splice | --discard] SOCKET DIR
 *
 * Listens on SOCKET and serves one connection at a time: reads the kernel's coredump_req,
 * answers a coredump_ack asking for COREDUMP_KERNEL | COREDUMP_WAIT, reads the kernel's u32
 * mark (COREDUMP_MARK_REQACK = 0 when the ack was taken), then copies the core into
 * DIR/core.PID with a plain read()/write() loop of 64 KiB (no holes, no splice, no
 * compression), closes the file and then the connection, which releases the task.
 * For every connection one line on stdout:
 *   done pid=PID bytes=N mark=M rt_us=CLOCK_REALTIME-when-the-file-was-closed
 * With --reject it answers COREDUMP_REJECT at once instead (no context, no record: the protocol's
 * own round trip, the floor of any server's REJECT) and prints "rejected pid=PID mark=M".
 * Two more ways to take the stream, to tell where a socket server's time goes (bench/README.md,
 * "the last copy"): --splice moves it socket → pipe → DIR/core.PID with splice() (the page
 * cache copy only, no pass of ours over the bytes: no holes, no MaxSize=, no deadline), and
 * --discard splices it into /dev/null (nothing stored: the kernel's own side of the stream
 * and the protocol, the floor of any server that keeps the core). Their "done" line is the same.
 * Runs until killed.  The protocol constants are those of linux/coredump.h (Linux 6.16+).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define COREDUMP_KERNEL		(UINT64_C(1) << 0)
#define COREDUMP_USERSPACE	(UINT64_C(1) << 1)
#define COREDUMP_REJECT		(UINT64_C(1) << 2)
#define COREDUMP_WAIT		(UINT64_C(1) << 3)
#define COREDUMP_ACK_SIZE_VER0	16U
#define COREDUMP_MARK_REQACK	0U

struct coredump_req { uint32_t size, size_ack; uint64_t mask; };
struct coredump_ack { uint32_t size, spare; uint64_t mask; };

static long long rt_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int reject_mode;
enum { COPY_READ_WRITE, COPY_SPLICE, COPY_DISCARD } copy_mode = COPY_READ_WRITE;

/* socket → pipe → out with splice(): the stream's pages handed on, never in our memory. */
static int splice_stream(int fd, int out, unsigned long long *total)
{
	int p[2];
	int rc = 0;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	(void)fcntl(p[1], F_SETPIPE_SZ, 256 * 1024);
	for (;;) {
		ssize_t n = splice(fd, NULL, p[1], NULL, 256 * 1024, SPLICE_F_MOVE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -1 : 0;
			break;
		}
		for (ssize_t left = n; left > 0;) {
			ssize_t m = splice(p[0], NULL, out, NULL, (size_t)left, SPLICE_F_MOVE);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				rc = -1;
				goto done;
			}
			left -= m;
		}
		*total += (unsigned long long)n;
	}
done:
	close(p[0]);
	close(p[1]);
	return rc;
}

static void serve(int fd, const char *dir)
{
	static char buf[65536];
	struct coredump_req req = { 0 };
	struct coredump_ack ack = { .size = COREDUMP_ACK_SIZE_VER0, .mask = COREDUMP_KERNEL | COREDUMP_WAIT };
	struct ucred cr = { 0 };
	socklen_t crl = sizeof(cr);
	uint32_t size = 0, mark = UINT32_MAX;
	unsigned long long total = 0;
	char path[4096];
	int out;

	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl);
	/* The request: peek its size, then take it whole (a newer kernel may send more). */
	if (recv(fd, &size, sizeof(size), MSG_PEEK | MSG_WAITALL) != sizeof(size) ||
	    size < sizeof(req) || size > sizeof(buf) ||
	    recv(fd, buf, size, MSG_WAITALL) != (ssize_t)size) {
		printf("error pid=%d what=request errno=%d\n", cr.pid, errno);
		return;
	}
	memcpy(&req, buf, sizeof(req));
	if (reject_mode)
		ack.mask = COREDUMP_REJECT;
	if ((req.mask & ack.mask) != ack.mask || req.size_ack < ack.size) {
		printf("error pid=%d what=unsupported mask=0x%llx size_ack=%u\n", cr.pid,
		       (unsigned long long)req.mask, req.size_ack);
		return;
	}
	if (write_all(fd, (const char *)&ack, sizeof(ack)) < 0 ||
	    recv(fd, &mark, sizeof(mark), MSG_WAITALL) != sizeof(mark)) {
		printf("error pid=%d what=ack errno=%d\n", cr.pid, errno);
		return;
	}
	if (mark != COREDUMP_MARK_REQACK) {
		printf("error pid=%d what=mark mark=%u\n", cr.pid, mark);
		return;
	}
	if (reject_mode) {
		printf("rejected pid=%d mark=%u\n", cr.pid, mark);
		return;
	}
	snprintf(path, sizeof(path), "%s/core.%d", dir, cr.pid);
	if (copy_mode == COPY_DISCARD)
		out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	else
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0) {
		printf("error pid=%d what=open errno=%d\n", cr.pid, errno);
		return;
	}
	if (copy_mode != COPY_READ_WRITE) {
		if (splice_stream(fd, out, &total) < 0)
			printf("error pid=%d what=splice errno=%d\n", cr.pid, errno);
		else
			printf("done pid=%d bytes=%llu mark=%u rt_us=%lld\n", cr.pid, total, mark, rt_us());
		close(out);
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (write_all(out, buf, (size_t)n) < 0) {
			printf("error pid=%d what=write errno=%d\n", cr.pid, errno);
			break;
		}
		total += (unsigned long long)n;
	}
	close(out);
	printf("done pid=%d bytes=%llu mark=%u rt_us=%lld\n", cr.pid, total, mark, rt_us());
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd;

	if (argc > 1 && strcmp(argv[1], "--reject") == 0)
		reject_mode = 1;
	else if (argc > 1 && strcmp(argv[1], "--splice") == 0)
		copy_mode = COPY_SPLICE;
	else if (argc > 1 && strcmp(argv[1], "--discard") == 0)
		copy_mode = COPY_DISCARD;
	if (reject_mode || copy_mode != COPY_READ_WRITE) {
		argc--;
		argv++;
	}
	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: naive-server [--reject | --splice | --discard] SOCKET DIR\n");
		return 64;
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 128) < 0) {
		perror("naive-server: listen");
		return 2;
	}
	printf("listening %s\n", argv[1]);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("naive-server: accept");
			return 2;
		}
		serve(fd, argv[2]);
		close(fd);
	}
}
