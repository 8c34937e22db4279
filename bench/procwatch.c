/* procwatch — the peak resident memory (VmHWM) of the processes of some cgroups, sampled.
 *
 *   procwatch [-i MS] [-c] CGROUP_DIR...
 *
 * Every MS milliseconds (default 20) it lists the processes in each CGROUP_DIR (a directory
 * under /sys/fs/cgroup; missing ones are skipped, sub-cgroups are included) and reads each one's
 * VmHWM from /proc/PID/status.  On SIGTERM or SIGINT it prints the largest VmHWM any single
 * process reached while it watched, and whose it was:
 *   hwm_kib=N pid=P comm=NAME processes=SEEN
 * Short-lived processes (systemd-coredump@.service instances) are caught as long as they live
 * longer than one interval; the figure of a process is its high-water mark up to its last sample.
 * With -c it first prints one line per process name (comm), the largest VmHWM of one process of
 * that name and how many of them it saw, before the line above:
 *   comm name=NAME hwm_kib=N processes=SEEN
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static long best_kib, seen;
static int best_pid, last_pids[4096], nlast;
static char best_comm[64];

/* -c: the same per process name */
#define MAX_COMMS 64
static struct { char name[64]; long kib, seen; } comms[MAX_COMMS];
static int ncomms, per_comm;

static void comm_note(const char *name, long kib, int new_pid)
{
	int i;

	for (i = 0; i < ncomms; i++)
		if (!strcmp(comms[i].name, name))
			break;
	if (i == ncomms) {
		if (ncomms == MAX_COMMS)
			return;
		snprintf(comms[ncomms].name, sizeof(comms[ncomms].name), "%s", name);
		comms[ncomms].kib = -1;
		ncomms++;
	}
	if (kib > comms[i].kib)
		comms[i].kib = kib;
	if (new_pid)
		comms[i].seen++;
}

static void look_pid(int pid)
{
	char path[64], line[256], comm[64] = "?";
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:", 5))
			sscanf(line + 5, " %63s", comm);
		else if (!strncmp(line, "VmHWM:", 6)) {
			kib = strtol(line + 6, NULL, 10);
			break;
		}
	}
	fclose(f);
	if (kib > best_kib) {
		best_kib = kib;
		best_pid = pid;
		snprintf(best_comm, sizeof(best_comm), "%s", comm);
	}
	int known = 0;
	for (int i = 0; i < nlast; i++)
		if (last_pids[i] == pid)
			known = 1;
	if (!known) {
		seen++;
		if (nlast < (int)(sizeof(last_pids) / sizeof(last_pids[0])))
			last_pids[nlast++] = pid;
	}
	if (per_comm)
		comm_note(comm, kib, !known);
}

static void walk(const char *dir, int depth)
{
	char path[4096];
	FILE *f;
	DIR *d;
	struct dirent *e;
	int pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fscanf(f, "%d", &pid) == 1)
		look_pid(pid);
	fclose(f);
	if (depth > 4 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			walk(path, depth + 1);
		}
	closedir(d);
}

int main(int argc, char **argv)
{
	int opt, ms = 20;

	while ((opt = getopt(argc, argv, "i:c")) != -1) {
		switch (opt) {
		case 'i': ms = atoi(optarg); break;
		case 'c': per_comm = 1; break;
		default: goto usage;
		}
	}
	if (optind >= argc || ms < 1)
		goto usage;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	while (!stop) {
		for (int i = optind; i < argc; i++)
			walk(argv[i], 0);
		usleep(ms * 1000);
	}
	for (int i = optind; i < argc; i++)
		walk(argv[i], 0);
	for (int i = 0; i < ncomms; i++)
		printf("comm name=%s hwm_kib=%ld processes=%ld\n", comms[i].name, comms[i].kib, comms[i].seen);
	printf("hwm_kib=%ld pid=%d comm=%s processes=%ld\n", best_kib, best_pid, best_comm[0] ? best_comm : "-", seen);
	return 0;
usage:
	fprintf(stderr, "usage: procwatch [-i MS] [-c] CGROUP_DIR...\n");
	return 64;
}
