/* spawn — run COUNT copies of a program at once and report how each ended.
 *
 *   spawn [-n COUNT] [-t TIMEOUT_S] [-p PIDFILE] -- PROGRAM [ARGS...]
 *
 * For each child, one line on stdout once all have ended:
 *   pid=P exited=0|1 status=N signaled=0|1 signal=S core=0|1 ms=M coredumping_ms=C
 * core is WCOREDUMP(); coredumping_ms is how long /proc/P/status showed
 * "CoreDumping: 1": from the first to the last time a poll (every few ms) saw it.
 * PIDFILE gets the children's pids, one per line, as soon as they are forked.
 * Exits 0 when all children ended before TIMEOUT_S (default 120), else 1
 * (the remaining children are SIGKILLed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct child {
	pid_t pid;
	int done, status;
	long ms, dumping_ms, dump_first, dump_last;
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int coredumping(pid_t pid)
{
	char path[64], line[256];
	int r = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "CoreDumping:", 12) == 0) {
			r = atoi(line + 12) == 1;
			break;
		}
	fclose(f);
	return r;
}

int main(int argc, char **argv)
{
	int opt, n = 1, timeout = 120, left;
	const char *pidfile = NULL;
	struct child *c;
	long start;
	FILE *pf = NULL;

	while ((opt = getopt(argc, argv, "+n:t:p:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'p': pidfile = optarg; break;
		default: goto usage;
		}
	}
	if (optind >= argc || n < 1)
		goto usage;
	c = calloc(n, sizeof(*c));
	if (pidfile)
		pf = fopen(pidfile, "we");
	start = now_ms();
	for (int i = 0; i < n; i++) {
		c[i].pid = fork();
		if (c[i].pid < 0) {
			perror("spawn: fork");
			return 2;
		}
		if (c[i].pid == 0) {
			execv(argv[optind], argv + optind);
			perror("spawn: exec");
			_exit(127);
		}
		if (pf) {
			fprintf(pf, "%d\n", c[i].pid);
			fflush(pf);
		}
	}
	if (pf)
		fclose(pf);

	left = n;
	while (left > 0) {
		for (int i = 0; i < n; i++) {
			if (c[i].done)
				continue;
			int st;
			pid_t r = waitpid(c[i].pid, &st, WNOHANG);
			if (r == c[i].pid) {
				c[i].done = 1;
				c[i].status = st;
				c[i].ms = now_ms() - start;
				left--;
			} else if (coredumping(c[i].pid)) {
				long t = now_ms();
				if (!c[i].dump_first)
					c[i].dump_first = t;
				c[i].dump_last = t;
				c[i].dumping_ms = c[i].dump_last - c[i].dump_first;
			}
		}
		if (left == 0)
			break;
		if (now_ms() - start > timeout * 1000L) {
			fprintf(stderr, "spawn: %d children still running after %d s, killing\n", left, timeout);
			for (int i = 0; i < n; i++)
				if (!c[i].done) {
					kill(c[i].pid, SIGKILL);
					printf("pid=%d timeout=1\n", c[i].pid);
				}
			return 1;
		}
		usleep(2000);
	}
	for (int i = 0; i < n; i++) {
		int st = c[i].status;
		printf("pid=%d exited=%d status=%d signaled=%d signal=%d core=%d ms=%ld coredumping_ms=%ld\n",
		       c[i].pid, WIFEXITED(st), WIFEXITED(st) ? WEXITSTATUS(st) : 0,
		       WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : 0,
		       WIFSIGNALED(st) ? !!WCOREDUMP(st) : 0, c[i].ms, c[i].dumping_ms);
	}
	return 0;
usage:
	fprintf(stderr, "usage: spawn [-n COUNT] [-t TIMEOUT_S] [-p PIDFILE] -- PROGRAM [ARGS...]\n");
	return 64;
}
