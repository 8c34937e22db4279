/* uscrash — a crasher for the Action=userspace cases: dies of SIGSEGV (or SIGABRT) in
 * crash_here(), called from crash_caller(), optionally on a worker thread of several.
 *
 *   uscrash [-c null|wild|abort] [-t THREADS] [-m MiB] [-f FILE] [-n COMM] [-p PIDFILE]
 *
 * -c  null: write to address 0 (default); wild: write to 0x1000000 (unmapped, above the NULL
 *     page); abort: abort()
 * -t  run THREADS threads in all (default 1); the last one started crashes, the others wait
 * -m  first touch MiB of heap (a pattern, so it compresses somewhat but every page is present)
 * -f  map FILE private and writable, without touching it (its pages are read only by whoever
 *     reads this process's memory: a dump taken from /proc/PID/mem)
 * -n  set comm (for MatchComm= rules)
 * -p  write our pid to this file first
 * Built with -g -O0 so that gdb's backtrace names crash_here and crash_caller.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind = "null";
static volatile unsigned char *ballast;

__attribute__((noinline)) static void crash_here(int depth)
{
	if (strcmp(kind, "abort") == 0)
		abort();
	volatile int *p = strcmp(kind, "wild") == 0 ? (volatile int *)0x1000000 : NULL;
	*p = depth;	/* SIGSEGV */
}

__attribute__((noinline)) static void crash_caller(int depth)
{
	crash_here(depth + 1);
	printf("not reached\n");
}

static void *waiter(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static void *crasher(void *arg)
{
	usleep(100 * 1000);	/* let the others settle in pause() */
	crash_caller(1);
	return NULL;
}

int main(int argc, char **argv)
{
	int opt, threads = 1;
	size_t mib = 0;
	const char *pidfile = NULL, *mapfile = NULL;

	while ((opt = getopt(argc, argv, "c:t:m:f:n:p:")) != -1) {
		switch (opt) {
		case 'c': kind = optarg; break;
		case 't': threads = atoi(optarg); break;
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'f': mapfile = optarg; break;
		case 'n': prctl(PR_SET_NAME, optarg); break;
		case 'p': pidfile = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-c null|wild|abort] [-t THREADS] [-m MiB] [-f FILE] [-n COMM] [-p PIDFILE]\n", argv[0]);
			return 64;
		}
	}
	if (mib) {
		size_t n = mib << 20;
		unsigned char *b = malloc(n);
		if (!b) {
			perror("uscrash: malloc");
			return 2;
		}
		for (size_t i = 0; i < n; i += 64)
			memset(b + i, (int)(i * 2654435761u >> 24), 64);
		ballast = b;
	}
	if (mapfile) {
		struct stat st;
		int fd = open(mapfile, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) < 0 ||
		    mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror("uscrash: map");
			return 2;
		}
		close(fd);
	}
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");
		if (f) {
			fprintf(f, "%d\n", getpid());
			fclose(f);
		}
	}
	if (threads <= 1) {
		crash_caller(1);
		return 0;
	}
	pthread_t t;
	for (int i = 0; i < threads - 2; i++)
		pthread_create(&t, NULL, waiter, NULL);
	pthread_create(&t, NULL, crasher, NULL);
	for (;;)
		pause();
}
