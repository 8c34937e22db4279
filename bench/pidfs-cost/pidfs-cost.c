// SPDX-License-Identifier: GPL-2.0
/*
 * pidfs-cost — what the series' pidfs state costs a short-lived process.
 *
 * The patched 6.1 gives a pid pidfs state (an xarray entry, taken under one
 * global IRQ-off lock) the first time it is recorded as an AF_UNIX peer, and
 * erases it under the same lock when the pid is freed.  This measures the
 * loop where that happens once per process — fork, socketpair(), exit, reap —
 * next to the same loop with pipe() (a comparable pair of descriptors that
 * registers nothing) and with nothing at all, on all CPUs at once.  The
 * difference between the socketpair and the pipe row is the price of the
 * registration on this kernel; compare it across kernels booted with the same
 * number of CPUs.
 *
 *   pidfs-cost [SECONDS_PER_ROW [WORKERS]]
 *
 * SECONDS_PER_ROW rounds of one second per variant, taking turns; each row
 * is the median round.  Defaults: ROW_SECONDS (5 unless built with
 * -DROW_SECONDS=N) and the CPUs online; kernel/run-selftests runs it without
 * arguments.
 *
 * Prints TAP (for kernel/run-selftests) with one "# row:" line per variant.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum variant { FORK_EXIT, FORK_PIPE_EXIT, FORK_SOCKETPAIR_EXIT, N_VARIANTS };
#ifndef ROW_SECONDS
#define ROW_SECONDS 5
#endif

static const char *const names[N_VARIANTS] = {
	"fork-exit", "fork-pipe-exit", "fork-socketpair-exit",
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One worker: loop until @until, return the number of processes reaped. */
static long worker(enum variant v, double until)
{
	long n = 0;
	int fds[2], status;
	pid_t pid;

	while (now() < until) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			if (v == FORK_PIPE_EXIT && pipe(fds))
				_exit(1);
			if (v == FORK_SOCKETPAIR_EXIT &&
			    socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
				_exit(1);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || status != 0)
			return -1;
		n++;
	}
	return n;
}

/* Run @workers workers for @secs; processes per second, or -1. */
static double row(enum variant v, int workers, double secs)
{
	int out[2], i, status, bad = 0;
	long total = 0, n;
	double start, until;

	if (pipe(out))
		return -1;
	start = now();
	until = start + secs;
	for (i = 0; i < workers; i++) {
		if (fork() == 0) {
			n = worker(v, until);
			_exit(write(out[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
		}
	}
	close(out[1]);
	for (i = 0; i < workers; i++) {
		if (read(out[0], &n, sizeof(n)) != sizeof(n) || n < 0)
			bad = 1;
		else
			total += n;
	}
	while (wait(&status) > 0)
		;
	close(out[0]);
	return bad ? -1 : total / (now() - start);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : ROW_SECONDS;
	int workers = argc > 2 ? atoi(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
	int rounds = secs < 1 ? 1 : (int)secs, r, v, ok = 1;
	double rate[N_VARIANTS][64];

	if (rounds > 64)
		rounds = 64;
	printf("TAP version 13\n1..1\n");
	printf("# workers: %d, %d rounds of 1 s per variant, interleaved\n",
	       workers, rounds);
	/* A short warm-up so that the first round does not pay for page faults. */
	row(FORK_EXIT, workers, 0.5);
	/*
	 * The variants take turns, one second each, and each reports its
	 * median: drift of the machine under the VM hits them all alike.
	 */
	for (r = 0; r < rounds; r++)
		for (v = 0; v < N_VARIANTS; v++) {
			rate[v][r] = row(v, workers, 1);
			if (rate[v][r] <= 0)
				ok = 0;
		}
	for (v = 0; v < N_VARIANTS; v++) {
		qsort(rate[v], rounds, sizeof(double), cmp_double);
		printf("# row: %s %.0f (min %.0f, max %.0f)\n", names[v],
		       rate[v][rounds / 2], rate[v][0], rate[v][rounds - 1]);
	}
	printf("%sok 1 pidfs-cost\n", ok ? "" : "not ");
	return !ok;
}
