/* hostile — what an unprivileged user does to the daemon's readers (the attack cases 85-87).
 *
 *   hostile dlcrash LIB [GO]    dlopen(LIB), wait until the file GO exists (if given), then call
 *                               its hostile_entry(), which crashes in the library (SIGSEGV)
 *   hostile truncwatch FILE     watch FILE (inotify): at its first IN_OPEN, ftruncate() it to 0;
 *                               prints "watching", "truncated" and, if a close of an fd opened
 *                               before the truncation follows, "closed"; ends then or after 60 s
 *   hostile argv FILE PAD       map page 1 of FILE over a page inside the argument PAD (a string of
 *                               a few pages: /proc/PID/cmdline then reads across that mapping;
 *                               not in its first 128 bytes)
 *                               and crash (SIGSEGV at NULL)
 *   hostile stack FILE          map FILE (from page 16) and die with %rsp and %rbp inside it (ud2:
 *                               SIGILL, no signal frame is written there)
 *   hostile frame FILE          map FILE (from page 16) executable and die (ud2) in code without
 *                               call frame information, %rbp pointing at a frame whose return
 *                               address is inside that mapping
 *   hostile detached FUSESTALL  in a user and mount namespace of its own (unshare -Urm), start
 *                               FUSESTALL there on a new directory (its file never answers a READ;
 *                               the server outlives this program: prints "server PID", the caller
 *                               ends it), map its "stall" as "stack" does, detach the FUSE mount
 *                               (umount -l: its device is then in no line of this task's
 *                               mountinfo) and die with %rsp and %rbp inside that mapping
 *   hostile jump FILE           map FILE executable and call its first byte (a file that is no
 *                               code: SIGILL or SIGSEGV with the pc inside it)
 *   hostile mmaplock FILE GO    hold the mmap_lock of its memory from processes that share it and
 *                               survive the dump (clone(CLONE_VM), not threads): one reads its own
 *                               /proc/self/mem over page 16 of FILE mapped (taking the lock to read,
 *                               it waits in the fault for FILE's server: prints "reader PID"); once
 *                               GO exists (the case saw the server take the READ), another munmap()s
 *                               a page (queued for the lock to write: every later reader of maps,
 *                               mem or cmdline queues behind it; "writer PID" once it waits); then
 *                               die (ud2: SIGILL, no page fault, which would queue too)
 *
 * Prints "pid PID" first and "armed" on stdout before each crash. x86_64 only for stack and frame.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096ul

static void armed(void)
{
	printf("armed\n");
	fflush(stdout);
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "hostile: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

static void *map_or_die(void *at, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = mmap(at, len, prot, flags, fd, off);
	if (p == MAP_FAILED) {
		fprintf(stderr, "hostile: mmap: %s\n", strerror(errno));
		exit(2);
	}
	return p;
}

static int dlcrash(const char *lib, const char *go)
{
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "hostile: dlopen: %s\n", dlerror());
		return 2;
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, "hostile_entry");
	if (!entry) {
		fprintf(stderr, "hostile: dlsym: %s\n", dlerror());
		return 2;
	}
	printf("loaded\n");
	fflush(stdout);
	if (go)
		for (int i = 0; i < 6000 && access(go, F_OK) != 0; i++)
			usleep(10 * 1000);
	armed();
	return entry(1);
}

static int truncwatch(const char *path)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int fd = open_or_die(path, O_RDWR);
	int in = inotify_init1(IN_CLOEXEC);
	int truncated = 0;

	if (in < 0 || inotify_add_watch(in, path, IN_OPEN | IN_CLOSE_NOWRITE | IN_CLOSE_WRITE) < 0) {
		perror("hostile: inotify");
		return 2;
	}
	alarm(60);
	printf("watching\n");
	fflush(stdout);
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n <= 0) {
			perror("hostile: inotify read");
			return 2;
		}
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;
			if ((e->mask & IN_OPEN) && !truncated) {
				if (ftruncate(fd, 0) < 0) {
					perror("hostile: ftruncate");
					return 2;
				}
				truncated = 1;
				printf("truncated\n");
				fflush(stdout);
			} else if ((e->mask & (IN_CLOSE_NOWRITE | IN_CLOSE_WRITE)) && truncated) {
				printf("closed\n");
				fflush(stdout);
				return 0;
			}
			p += sizeof(*e) + e->len;
		}
	}
}

static int argv_over(const char *path, char *pad)
{
	size_t len = strlen(pad);	/* before the mapping: the pad's bytes are the file's after it */
	/* Past the first 128 bytes: the kernel copies the first 80 of the arguments into its own
	 * core's NT_PRPSINFO, from inside the dumping task. */
	uintptr_t start = ((uintptr_t)pad + 128 + PAGE - 1) & ~(PAGE - 1);
	int fd = open_or_die(path, O_RDONLY);

	if (start + PAGE > (uintptr_t)pad + len) {
		fprintf(stderr, "hostile: the pad (%zu bytes) holds no whole page\n", len);
		return 64;
	}
	map_or_die((void *)start, PAGE, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, PAGE);
	printf("argv page %#lx of [%p, +%zu) now maps %s\n", (unsigned long)start, (void *)pad, len, path);
	armed();
	*(volatile int *)0 = 1;	/* SIGSEGV */
	return 0;
}

#if defined(__x86_64__)
/* rdi: the new %rsp, rsi: the new %rbp; then ud2. No CFI: unwinders fall back to %rbp. */
void hostile_sp_crash(uint64_t sp, uint64_t bp);
__asm__(".text\n"
	".globl hostile_sp_crash\n"
	".type hostile_sp_crash, @function\n"
	"hostile_sp_crash:\n"
	"\tmov %rdi, %rsp\n"
	"\tmov %rsi, %rbp\n"
	"\tud2\n"
	".size hostile_sp_crash, . - hostile_sp_crash\n");
/* rdi: the new %rbp; then ud2 (the stack stays ours). */
void hostile_bp_crash(uint64_t bp);
__asm__(".text\n"
	".globl hostile_bp_crash\n"
	".type hostile_bp_crash, @function\n"
	"hostile_bp_crash:\n"
	"\tmov %rdi, %rbp\n"
	"\tud2\n"
	".size hostile_bp_crash, . - hostile_bp_crash\n");
#endif

static int stack_in(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	char *m = map_or_die(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 16 * PAGE);
	uint64_t sp = (uint64_t)(uintptr_t)(m + 8 * PAGE);

	printf("stack at %#llx in %s\n", (unsigned long long)sp, path);
	armed();
#if defined(__x86_64__)
	hostile_sp_crash(sp, sp);
#endif
	return 2;
}

static void put(const char *path, const char *text)
{
	int fd = open_or_die(path, O_WRONLY);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		fprintf(stderr, "hostile: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	close(fd);
}

static int detached(const char *fusestall)
{
	char map[64], dir[] = "/tmp/hostile-detached.XXXXXX", stall[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct stat st;

	if (!mkdtemp(dir) || unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
		fprintf(stderr, "hostile: unshare: %s\n", strerror(errno));
		return 2;
	}
	put("/proc/self/setgroups", "deny");
	snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
	put("/proc/self/uid_map", map);
	snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
	put("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "hostile: private mounts: %s\n", strerror(errno));
		return 2;
	}
	pid_t server = fork();
	if (server == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 1);	/* "ready" not into the caller's output; stderr stays */
		execl(fusestall, fusestall, dir, (char *)NULL);
		_exit(127);
	}
	if (server < 0)
		return 2;
	printf("server %d\n", (int)server);
	snprintf(stall, sizeof stall, "%s/stall", dir);
	for (int i = 0; stat(stall, &st) < 0; i++) {
		if (i == 200) {
			fprintf(stderr, "hostile: no FUSE mount at %s\n", dir);
			return 2;
		}
		usleep(25 * 1000);
	}
	int fd = open_or_die(stall, O_RDONLY);
	char *m = map_or_die(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 16 * PAGE);
	close(fd);
	if (umount2(dir, MNT_DETACH) < 0) {
		fprintf(stderr, "hostile: umount -l %s: %s\n", dir, strerror(errno));
		return 2;
	}
	uint64_t sp = (uint64_t)(uintptr_t)(m + 8 * PAGE);
	printf("stack at %#llx in %s, detached\n", (unsigned long long)sp, stall);
	armed();
#if defined(__x86_64__)
	hostile_sp_crash(sp, sp);
#endif
	return 2;
}

static int frame_in(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	char *m = map_or_die(NULL, 16 * PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 16 * PAGE);
	static uint64_t frame[2];

	frame[0] = 0;	/* the caller's %rbp: the end */
	frame[1] = (uint64_t)(uintptr_t)(m + 4 * PAGE + 0x10);	/* its return address */
	printf("return address %#llx in %s\n", (unsigned long long)frame[1], path);
	armed();
#if defined(__x86_64__)
	hostile_bp_crash((uint64_t)(uintptr_t)frame);
#endif
	return 2;
}

static int jump_into(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	void *m = map_or_die(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

	printf("calling %p, the start of %s\n", m, path);
	armed();
	((void (*)(void))m)();
	return 2;
}

static char lock_stack[2][64 * 1024] __attribute__((aligned(16)));
static void *lock_page;

static int mem_reader(void *arg)
{
	char c;
	int fd = open("/proc/self/mem", O_RDONLY);
	(void)arg;
	if (fd >= 0)
		(void)pread(fd, &c, 1, (off_t)(uintptr_t)lock_page);
	_exit(0);
}

static int unmapper(void *arg)
{
	munmap(arg, PAGE);
	_exit(0);
}

/* Its state letter in /proc/PID/stat (after the ")" of its comm). */
static char state_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static int mmap_lock_held(const char *file, const char *go)
{
	int fd = open_or_die(file, O_RDONLY);
	lock_page = map_or_die(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 16 * PAGE);
	char *spare = map_or_die(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	spare[0] = 1;
	pid_t r = clone(mem_reader, lock_stack[0] + sizeof lock_stack[0], CLONE_VM | SIGCHLD, NULL);
	if (r < 0)
		return 2;
	printf("reader %d\n", (int)r);
	for (int i = 0; i < 6000 && access(go, F_OK) != 0; i++)
		usleep(10000);
	/* Once the writer waits, a page fault of ours would queue too: every page this uses from here
	 * on is touched now. */
	(void)state_of(getpid());
	pid_t w = clone(unmapper, lock_stack[1] + sizeof lock_stack[1], CLONE_VM | SIGCHLD, spare);
	if (w < 0)
		return 2;
	for (int i = 0; i < 500 && state_of(w) != 'D'; i++)
		usleep(10000);
	printf("writer %d\n", (int)w);
	armed();
	__asm__ volatile("ud2");
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("pid %d\n", (int)getpid());
	if (strcmp(mode, "dlcrash") == 0 && (argc == 3 || argc == 4))
		return dlcrash(argv[2], argc == 4 ? argv[3] : NULL);
	if (strcmp(mode, "truncwatch") == 0 && argc == 3)
		return truncwatch(argv[2]);
	if (strcmp(mode, "argv") == 0 && argc == 4)
		return argv_over(argv[2], argv[3]);
	if (strcmp(mode, "stack") == 0 && argc == 3)
		return stack_in(argv[2]);
	if (strcmp(mode, "frame") == 0 && argc == 3)
		return frame_in(argv[2]);
	if (strcmp(mode, "detached") == 0 && argc == 3)
		return detached(argv[2]);
	if (strcmp(mode, "jump") == 0 && argc == 3)
		return jump_into(argv[2]);
	if (strcmp(mode, "mmaplock") == 0 && argc == 4)
		return mmap_lock_held(argv[2], argv[3]);
	fprintf(stderr, "usage: %s dlcrash LIB [GO] | truncwatch FILE | argv FILE PAD | stack FILE | frame FILE | detached FUSESTALL | jump FILE | mmaplock FILE GO\n",
		argv[0]);
	return 64;
}
