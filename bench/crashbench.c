/* crashbench — crash COUNT children at the same instant and time each from its crash to the
 * moment its parent reaped it ("crash → reaped": how long the crashed task was held).
 *
 *   crashbench [-m MiB] [-n COUNT] [-r ROUNDS] [-c COMM] [-z] [-t TIMEOUT_S]
 *
 * -m  every child first fills MiB of heap with the bench's fill (below); default 0
 * -n  children per round, released at once; default 1
 * -r  rounds, one after the other; default 1
 * -c  the children's comm (for MatchComm= rules); default "crashbench"
 * -z  the children set RLIMIT_CORE to 0 (with a file core_pattern: no dump at all, the floor)
 * -t  give up (SIGKILL what is left, exit 1) after TIMEOUT_S seconds per round; default 900
 *
 * The fill, documented so that the bench's "bytes stored" mean something: in every 4 KiB page
 * the first 1 KiB is xorshift64 output (seeded by the pid, so no two children share data) and
 * the other 3 KiB are zero.  Every page is present and none is all zero (the core has no holes),
 * and zstd -1/-3 stores it at 1/3.97 of its size (gzip and xz ~1/4 as well).
 *
 * A child fills its memory, says it is ready and waits; when all are ready the parent releases
 * them together. Each child notes CLOCK_MONOTONIC (and CLOCK_REALTIME) in a shared page
 * right before it writes to address 0; the parent blocks in waitpid() and notes the time each
 * child is reaped.  One line per child:
 *   crash round=R i=I pid=P us=CRASH_TO_REAPED signaled=0|1 signal=S core=0|1 crash_rt_us=T
 * and one per round:  round R count=N wall_us=RELEASE_TO_LAST_REAP
 * task_cpu_us (in the crash line, after crash_rt_us) is the child's CPU time (user + system) from
 * its crash to its end, its wait4() rusage less what it had used right before the crash: the
 * kernel's side of the dump, run by the crashing task itself (walking its memory, writing the
 * file, or sending the socket's stream), and its exit. The time it slept waiting for a server
 * (a full socket, COREDUMP_WAIT) is not in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct slot {
	int64_t crash_ns;	/* CLOCK_MONOTONIC, written by the child */
	int64_t crash_rt_us;	/* CLOCK_REALTIME */
	int64_t cpu_us;		/* its CPU time (user + system) right before the crash */
};

static int64_t rusage_us(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000LL + ru->ru_utime.tv_usec +
	       ru->ru_stime.tv_usec;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t rt_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static volatile unsigned char *ballast;

static void fill(size_t mib)
{
	size_t n = mib << 20;
	uint64_t x = 0x9e3779b97f4a7c15ull ^ ((uint64_t)getpid() << 17);
	unsigned char *b;

	if (!n)
		return;
	b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED) {
		perror("crashbench: mmap");
		_exit(2);
	}
	for (size_t page = 0; page < n; page += 4096)
		for (size_t i = 0; i < 1024; i += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(b + page + i, &x, 8);
		}
	ballast = b;
}

__attribute__((noinline)) static void crash_here(struct slot *s)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	s->cpu_us = rusage_us(&ru);
	s->crash_rt_us = rt_us();
	s->crash_ns = mono_ns();
	*(volatile int *)NULL = 1;	/* SIGSEGV */
}

static volatile sig_atomic_t timed_out;
static void on_alarm(int sig) { (void)sig; timed_out = 1; }

int main(int argc, char **argv)
{
	int opt, count = 1, rounds = 1, zero = 0, timeout = 900, failed = 0;
	size_t mib = 0;
	const char *comm = "crashbench";

	while ((opt = getopt(argc, argv, "m:n:r:c:zt:")) != -1) {
		switch (opt) {
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'n': count = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'c': comm = optarg; break;
		case 'z': zero = 1; break;
		case 't': timeout = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc || count < 1 || rounds < 1)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: waitpid() returns EINTR */

	struct slot *slots = mmap(NULL, sizeof(*slots) * count, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t *pids = calloc(count, sizeof(*pids));
	int64_t *reaped = calloc(count, sizeof(*reaped));
	int64_t *cpu = calloc(count, sizeof(*cpu));
	int *status = calloc(count, sizeof(*status));
	if (slots == MAP_FAILED || !pids || !reaped || !cpu || !status) {
		perror("crashbench: memory");
		return 2;
	}

	for (int r = 0; r < rounds; r++) {
		int ready[2], go[2], left = count;
		int64_t release, last = 0;
		char c;

		memset(slots, 0, sizeof(*slots) * count);
		memset(reaped, 0, sizeof(*reaped) * count);
		if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
			perror("crashbench: pipe");
			return 2;
		}
		for (int i = 0; i < count; i++) {
			pids[i] = fork();
			if (pids[i] < 0) {
				perror("crashbench: fork");
				return 2;
			}
			if (pids[i] == 0) {
				struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
				close(ready[0]);
				close(go[1]);
				prctl(PR_SET_NAME, comm);
				if (zero)
					rl.rlim_cur = 0;
				else
					getrlimit(RLIMIT_CORE, &rl), rl.rlim_cur = rl.rlim_max;
				setrlimit(RLIMIT_CORE, &rl);
				fill(mib);
				if (write(ready[1], "r", 1) != 1)
					_exit(3);
				close(ready[1]);
				while (read(go[0], &c, 1) < 0 && errno == EINTR)
					;
				crash_here(&slots[i]);
				_exit(4);
			}
		}
		close(ready[1]);
		close(go[0]);
		for (int got = 0; got < count;) {
			ssize_t n = read(ready[0], &c, 1);
			if (n == 1)
				got++;
			else if (n == 0 || errno != EINTR) {
				fprintf(stderr, "crashbench: a child died before it was ready\n");
				return 2;
			}
		}
		close(ready[0]);
		alarm(timeout);
		release = mono_ns();
		close(go[1]);	/* all go */
		while (left > 0) {
			int st;
			struct rusage ru;
			pid_t p = wait4(-1, &st, 0, &ru);
			int64_t now = mono_ns();
			if (p < 0) {
				if (errno == EINTR && timed_out)
					break;
				if (errno == EINTR)
					continue;
				break;
			}
			for (int i = 0; i < count; i++)
				if (pids[i] == p) {
					reaped[i] = now;
					status[i] = st;
					cpu[i] = rusage_us(&ru);
					last = now;
					left--;
					break;
				}
		}
		alarm(0);
		for (int i = 0; i < count; i++) {
			if (!reaped[i]) {
				kill(pids[i], SIGKILL);
				waitpid(pids[i], NULL, 0);
				printf("crash round=%d i=%d pid=%d timeout=1\n", r, i, pids[i]);
				failed = 1;
				continue;
			}
			int st = status[i];
			printf("crash round=%d i=%d pid=%d us=%lld signaled=%d signal=%d core=%d crash_rt_us=%lld task_cpu_us=%lld\n",
			       r, i, pids[i],
			       slots[i].crash_ns ? (long long)((reaped[i] - slots[i].crash_ns) / 1000) : -1LL,
			       WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : 0,
			       WIFSIGNALED(st) ? !!WCOREDUMP(st) : 0, (long long)slots[i].crash_rt_us,
			       slots[i].crash_ns ? (long long)(cpu[i] - slots[i].cpu_us) : -1LL);
		}
		printf("round %d count=%d wall_us=%lld\n", r, count,
		       last ? (long long)((last - release) / 1000) : -1LL);
		if (timed_out) {
			fprintf(stderr, "crashbench: round %d: children left after %d s\n", r, timeout);
			return 1;
		}
	}
	return failed;
usage:
	fprintf(stderr, "usage: crashbench [-m MiB] [-n COUNT] [-r ROUNDS] [-c COMM] [-z] [-t TIMEOUT_S]\n");
	return 64;
}
