/* uscrash — a crasher for the Action=userspace cases: dies of SIGSEGV (or SIGABRT) in
 * crash_here(), called from crash_caller(), optionally on a worker thread of several.
 *
 *   uscrash [-c null|wild|abort] [-t THREADS] [-m MiB] [-n COMM] [-p PIDFILE]
 *
 * -c  null: write to address 0 (default); wild: write to 0x1000000 (unmapped, above the NULL
 *     page); abort: abort()
 * -t  run THREADS threads in all (default 1); the last one started crashes, the others wait
 * -m  first touch MiB of heap (a pattern, so it compresses somewhat but every page is present)
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
#include <sys/prctl.h>
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
	const char *pidfile = NULL;

	while ((opt = getopt(argc, argv, "c:t:m:n:p:")) != -1) {
		switch (opt) {
		case 'c': kind = optarg; break;
		case 't': threads = atoi(optarg); break;
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'n': prctl(PR_SET_NAME, optarg); break;
		case 'p': pidfile = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-c null|wild|abort] [-t THREADS] [-m MiB] [-n COMM] [-p PIDFILE]\n", argv[0]);
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
