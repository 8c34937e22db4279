/* probe — a minimal coredump server speaking the socket request protocol
 * (core_pattern "@@PATH"), for checking the kernel side without coredumpd.
 *
 *   probe PATH ACTION [HOLD_S]
 *
 * ACTION: kernel | userspace | reject | kernel-wait | bad-flags
 * Listens on PATH, accepts one connection (60 s at most), reads the
 * coredump_req, answers with a coredump_ack asking for ACTION, reads the
 * kernel's mark, then (kernel*) reads the dump to EOF.  With kernel-wait it
 * then keeps the socket open HOLD_S seconds (default 2) and checks that the
 * crashing task is still alive (not a zombie) while held.
 * Prints key=value lines; exits 0 when the exchange completed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define CD_KERNEL	(1ULL << 0)
#define CD_USERSPACE	(1ULL << 1)
#define CD_REJECT	(1ULL << 2)
#define CD_WAIT		(1ULL << 3)

struct req { uint32_t size, size_ack; uint64_t mask; };
struct ack { uint32_t size, spare; uint64_t mask; };

static char task_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return '-';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *action;
	int lfd, fd, hold;
	unsigned char buf[65536];
	struct req rq = { 0 };
	struct ack ak = { .size = sizeof(struct ack) };
	struct ucred cr = { 0 };
	socklen_t crl = sizeof(cr);
	uint32_t mark = 0xffffffff;
	unsigned long long total = 0;
	int elf = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: probe PATH kernel|userspace|reject|kernel-wait|bad-flags [HOLD_S]\n");
		return 64;
	}
	action = argv[2];
	hold = argc > 3 ? atoi(argv[3]) : 2;
	strncpy(sa.sun_path, argv[1], sizeof(sa.sun_path) - 1);
	unlink(argv[1]);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 8) < 0) {
		printf("error=bind errno=%d\n", errno);
		return 2;
	}
	printf("listening=1\n");
	fflush(stdout);

	struct pollfd p = { .fd = lfd, .events = POLLIN };
	if (poll(&p, 1, 60000) <= 0) {
		printf("error=no-connection\n");
		return 3;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		printf("error=accept errno=%d\n", errno);
		return 3;
	}
	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl);
	printf("peer_pid=%d peer_uid=%d\n", cr.pid, cr.uid);

	/* Peek the size, then read what the kernel sent (we know 16 bytes). */
	uint32_t size = 0;
	if (recv(fd, &size, sizeof(size), MSG_PEEK | MSG_WAITALL) != sizeof(size)) {
		printf("error=peek errno=%d\n", errno);
		return 4;
	}
	if (size < sizeof(rq) || size > sizeof(buf)) {
		printf("error=req-size size=%u\n", size);
		return 4;
	}
	if (recv(fd, buf, size, MSG_WAITALL) != (ssize_t)size) {
		printf("error=req-read errno=%d\n", errno);
		return 4;
	}
	memcpy(&rq, buf, sizeof(rq));
	printf("req_size=%u req_size_ack=%u req_mask=0x%llx\n", rq.size, rq.size_ack,
	       (unsigned long long)rq.mask);

	if (!strcmp(action, "kernel"))
		ak.mask = CD_KERNEL;
	else if (!strcmp(action, "kernel-wait"))
		ak.mask = CD_KERNEL | CD_WAIT;
	else if (!strcmp(action, "userspace"))
		ak.mask = CD_USERSPACE;
	else if (!strcmp(action, "reject"))
		ak.mask = CD_REJECT;
	else if (!strcmp(action, "bad-flags"))
		ak.mask = CD_KERNEL | CD_REJECT;	/* conflicting */
	if (write(fd, &ak, sizeof(ak)) != sizeof(ak)) {
		printf("error=ack-write errno=%d\n", errno);
		return 5;
	}
	if (recv(fd, &mark, sizeof(mark), MSG_WAITALL) != sizeof(mark)) {
		printf("error=mark-read errno=%d\n", errno);
		return 5;
	}
	printf("mark=%u\n", mark);

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		if (total == 0 && n >= 4 && !memcmp(buf, "\177ELF", 4))
			elf = 1;
		total += n;
	}
	printf("dump_bytes=%llu elf=%d\n", total, elf);

	if (ak.mask & CD_WAIT) {
		char st1, st2;
		st1 = task_state(cr.pid);
		sleep(hold);
		st2 = task_state(cr.pid);
		printf("held_state_start=%c held_state_end=%c\n", st1, st2);
	}
	printf("state_at_close=%c\n", task_state(cr.pid));
	close(fd);
	close(lfd);
	unlink(argv[1]);
	printf("done=1\n");
	return 0;
}
