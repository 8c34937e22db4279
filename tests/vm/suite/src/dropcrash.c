/* dropcrash — a daemon's life in brief: starts as root, drops to UID:GID with setresuid() (all
 * three ids, groups cleared, as a daemon dropping its privileges does), then dies of SIGSEGV in
 * crash_after_drop().
 *
 *   dropcrash UID GID
 *
 * Prints "dropped uid=U euid=U dumpable=D" first (D: prctl(PR_GET_DUMPABLE) after the drop; the
 * kernel set it from fs.suid_dumpable when the credentials changed: 0 with 0, 2 with 2). Exits 2
 * if the drop fails. Built with -g -O0 so that gdb's backtrace names crash_after_drop.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

__attribute__((noinline)) static void crash_after_drop(int depth)
{
	volatile int *p = NULL;
	*p = depth;	/* SIGSEGV */
}

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc != 3) {
		fprintf(stderr, "usage: dropcrash UID GID\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	gid = (gid_t)strtoul(argv[2], NULL, 10);
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
		perror("dropcrash: dropping root");
		return 2;
	}
	printf("dropped uid=%u euid=%u dumpable=%d\n", (unsigned)getuid(), (unsigned)geteuid(),
	       prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	fflush(stdout);
	crash_after_drop(1);
	return 1;
}
