/* keepstall — a regular user's container crash whose mapped file is the user's own FUSE server's
 * behind an overlay (issue 38 gap 1).
 *
 *   keepstall FUSESTALL
 *
 * As any user: enters a user and mount namespace of its own (unshare -Urm), starts FUSESTALL there
 * (its file "stall" never answers a READ; the server runs as the user, in the user's namespaces,
 * and outlives this program: the caller ends it), mounts an overlay with two lower layers, the
 * FUSE mount and an empty directory, maps the overlay's "stall" (no page of it touched), lazily
 * unmounts the FUSE mount, mounts a tmpfs, pivot_root()s into it (chroot()s on an initramfs), lazily unmounts the old root
 * and crashes (SIGSEGV). The task's root is not the host's, so coredumpd keeps its files: whatever
 * opens "stall" and reads its ELF header waits on the user's server. Prints "server=PID" and
 * "pid=PID".
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include <time.h>
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
	char map[64], base[] = "/tmp/keepstall.XXXXXX", opts[700], p[4][300], stall[320];
	struct stat st;

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
	snprintf(p[3], sizeof p[3], "%s/fuse", base);
	for (int i = 0; i < 4; i++)
		if (mkdir(p[i], 0755) < 0)
			die("mkdir");
	/* The user's own FUSE server, in these namespaces. */
	pid_t server = fork();
	if (server < 0)
		die("fork");
	if (server == 0) {
		execl(argv[1], argv[1], p[3], (char *) NULL);
		die("exec fusestall");
	}
	printf("server=%d\n", (int) server);
	fflush(stdout);
	snprintf(stall, sizeof stall, "%s/stall", p[3]);
	for (int i = 0; stat(stall, &st) < 0; i++) {
		if (i == 100)
			die("fusestall's mount");
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	snprintf(opts, sizeof opts, "lowerdir=%s:%s", p[3], p[0]);
	if (mount("overlay", p[1], "overlay", 0, opts) < 0)
		die("overlay");
	snprintf(stall, sizeof stall, "%s/stall", p[1]);
	int fd = open(stall, O_RDONLY);
	if (fd < 0)
		die("open stall");
	/* Not at offset 0: the kernel's own dump reads the first page of a file mapping there (is it an
	 * ELF header?), which would stall the dump itself rather than whoever keeps the file. */
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 4096) == MAP_FAILED)
		die("map stall");
	close(fd);
	if (umount2(p[3], MNT_DETACH) < 0)
		die("umount fuse");
	if (mount("tmpfs", p[2], "tmpfs", 0, "size=1m") < 0 || chdir(p[2]) < 0 || mkdir("old", 0755) < 0)
		die("tmpfs");
	if (syscall(SYS_pivot_root, ".", "old") == 0) {
		if (chdir("/") < 0 || umount2("/old", MNT_DETACH) < 0)
			die("pivot_root");
	} else if (errno == EINVAL) {
		/* The root is an initramfs's rootfs (the suite's cpio image), which 6.1 cannot pivot away
		 * from: a root of its own by chroot() then. */
		if (chroot(".") < 0 || chdir("/") < 0)
			die("chroot");
	} else {
		die("pivot_root");
	}
	printf("pid=%d\n", (int) getpid());
	fflush(stdout);
	signal(SIGSEGV, SIG_DFL);
	*(volatile int *) 0 = 1;
	return 0;
}
