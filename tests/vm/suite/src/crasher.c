/* crasher — a program that dies of SIGSEGV in crash_here(), called from main().
 *
 *   crasher [-m MiB] [-s SECONDS] [-k SIGNAL] [-p PIDFILE]
 *
 * -m  first fill MiB of memory with incompressible bytes (bigger, slower dumps)
 * -s  sleep this long before crashing
 * -k  die of this signal instead of a NULL write (e.g. 6 for SIGABRT)
 * -p  write our pid to this file first
 * Built with -g -O0 so that gdb's backtrace names crash_here and main.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int kill_signal;
static volatile unsigned char *ballast;

__attribute__((noinline)) static void crash_here(int depth)
{
	if (kill_signal) {
		signal(kill_signal, SIG_DFL);
		raise(kill_signal);
	}
	volatile int *p = NULL;
	*p = depth;	/* SIGSEGV */
}

static void fill(size_t mib)
{
	size_t n = mib << 20;
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	unsigned char *b = malloc(n);

	if (!b) {
		perror("crasher: malloc");
		exit(2);
	}
	for (size_t i = 0; i + 8 <= n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(b + i, &x, 8);
	}
	ballast = b;
}

int main(int argc, char **argv)
{
	int opt;
	unsigned secs = 0;
	size_t mib = 0;
	const char *pidfile = NULL;

	while ((opt = getopt(argc, argv, "m:s:k:p:")) != -1) {
		switch (opt) {
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 's': secs = strtoul(optarg, NULL, 0); break;
		case 'k': kill_signal = atoi(optarg); break;
		case 'p': pidfile = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-m MiB] [-s SECONDS] [-k SIGNAL] [-p PIDFILE]\n", argv[0]);
			return 64;
		}
	}
	if (mib)
		fill(mib);
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");
		if (f) {
			fprintf(f, "%d\n", getpid());
			fclose(f);
		}
	}
	if (secs)
		sleep(secs);
	crash_here(1);
	return 0;
}
