/* filtercrash — a crasher whose memory says what its core may hold (case
 * selfdump-honours-dontdump-filter):
 *
 *   filtercrash COMM FILTER ADDRFILE PRIVFILE SHAREDFILE
 *
 * Sets comm to COMM (for MatchComm=) and /proc/self/coredump_filter to FILTER, then maps 64 KiB each of
 *   S  anonymous private memory marked MADV_DONTDUMP, filled with "DONTDUMP-SECRET-"
 *   A  anonymous private memory, filled with "ANONPRIV-KEPT---"
 *   P  PRIVFILE mapped private and writable, only read (no page of it is written: no anon_vma)
 *   F  SHAREDFILE mapped shared and writable, only read
 * writes "S=0x… A=0x… P=0x… F=0x…" to ADDRFILE and dies of SIGSEGV. The upper-case patterns are
 * made at run time, in their mappings only: no other byte of this process holds them.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define SIZE (64 * 1024)

static void fill_upper(volatile unsigned char *p, const char *lower)
{
	size_t n = strlen(lower);

	for (size_t i = 0; i < SIZE; i++)
		p[i] = (unsigned char)toupper((unsigned char)lower[i % n]);
}

static volatile unsigned char *map_file(const char *path, int shared)
{
	int fd = open(path, shared ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	void *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	close(fd);
	return p;
}

__attribute__((noinline)) static void crash_here(void)
{
	*(volatile int *)NULL = 1;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: filtercrash COMM FILTER ADDRFILE PRIVFILE SHAREDFILE\n");
		return 2;
	}
	prctl(PR_SET_NAME, argv[1]);
	FILE *f = fopen("/proc/self/coredump_filter", "w");
	if (!f || fprintf(f, "%s\n", argv[2]) < 0 || fclose(f) != 0) {
		perror("coredump_filter");
		return 2;
	}
	volatile unsigned char *s = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile unsigned char *a = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED || a == MAP_FAILED || madvise((void *)s, SIZE, MADV_DONTDUMP) < 0) {
		perror("mmap/madvise");
		return 2;
	}
	fill_upper(s, "dontdump-secret-");
	fill_upper(a, "anonpriv-kept---");
	volatile unsigned char *p = map_file(argv[4], 0), *fs = map_file(argv[5], 1);
	unsigned sum = 0;
	for (size_t i = 0; i < SIZE; i += 4096)
		sum += p[i] + fs[i];
	f = fopen(argv[3], "w");
	if (!f || fprintf(f, "S=%p A=%p P=%p F=%p\n", (void *)s, (void *)a, (void *)p, (void *)fs) < 0 || fclose(f) != 0) {
		perror(argv[3]);
		return 2;
	}
	(void)sum;
	crash_here();
	return 0;
}
