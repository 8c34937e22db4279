/* keepstall — a regular user's container crash whose mapped file is a FUSE server's behind an
 * overlay (issue 38 gap 1).
 *
 *   keepstall FUSEDIR
 *
 * As any user: enters a user and mount namespace of its own (unshare -Urm), mounts an overlay with
 * two lower layers, FUSEDIR (whose file "stall" never answers a READ: fusestall) and an empty
 * directory, maps the overlay's "stall" (no page of it touched), mounts a tmpfs, pivot_root()s into
 * it, lazily unmounts the old root and crashes (SIGSEGV). The task's root is not the host's, so
 * coredumpd keeps its files: whatever opens "stall" and reads its ELF header waits on the server.
 * Prints "pid=PID" first.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what) {
	perror(what);
	exit(1);
}

static void put(const char *path, const char *text) {
	int fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text))
		die(path);
	close(fd);
}

int main(int argc, char **argv) {
	char map[64], base[] = "/tmp/keepstall.XXXXXX", opts[512], p[3][300], stall[320];

	if (argc != 2)
		return 2;
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (!mkdtemp(base))
		die("mkdtemp");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		die("unshare");
	put("/proc/self/setgroups", "deny");
	snprintf(map, sizeof map, "0 %u 1", (unsigned) uid);
	put("/proc/self/uid_map", map);
	snprintf(map, sizeof map, "0 %u 1", (unsigned) gid);
	put("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("private");
	snprintf(p[0], sizeof p[0], "%s/empty", base);
	snprintf(p[1], sizeof p[1], "%s/ovl", base);
	snprintf(p[2], sizeof p[2], "%s/root", base);
	for (int i = 0; i < 3; i++)
		if (mkdir(p[i], 0755) < 0)
			die("mkdir");
	snprintf(opts, sizeof opts, "lowerdir=%s:%s", argv[1], p[0]);
	if (mount("overlay", p[1], "overlay", 0, opts) < 0)
		die("overlay");
	snprintf(stall, sizeof stall, "%s/stall", p[1]);
	int fd = open(stall, O_RDONLY);
	if (fd < 0)
		die("open stall");
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		die("map stall");
	close(fd);
	if (mount("tmpfs", p[2], "tmpfs", 0, "size=1m") < 0 || chdir(p[2]) < 0 || mkdir("old", 0755) < 0)
		die("tmpfs");
	if (syscall(SYS_pivot_root, ".", "old") < 0 || chdir("/") < 0 || umount2("/old", MNT_DETACH) < 0)
		die("pivot_root");
	printf("pid=%d\n", (int) getpid());
	fflush(stdout);
	signal(SIGSEGV, SIG_DFL);
	*(volatile int *) 0 = 1;
	return 0;
}
