/* fusestall — FUSE file systems that are slow or never answer (for the reliability cases).
 *
 *   fusestall MOUNTPOINT
 *   fusestall --disk MiB --rate KiB MOUNTPOINT
 *   fusestall --stall-lookups MOUNTPOINT
 *   fusestall --trickle SECONDS MOUNTPOINT
 *   fusestall --private ... MOUNTPOINT
 *
 * Mounts (as root, straight through /dev/fuse, no libfuse) a file system holding one regular file.
 * Lookups, attributes, open and release are answered at once.
 *
 * Without --disk the file is MOUNTPOINT/stall, 16 MiB: a READ request is taken from the kernel and
 * never answered, so whoever touches the file's data — a page fault of a task that mapped it, or a
 * reader of that task's /proc/PID/mem — waits for as long as this process lives ("read stalled"
 * on stderr per READ).
 *
 * With --disk the file is MOUNTPOINT/disk, MiB of zeroes kept in memory, readable and writable:
 * a backing file for a loop device, i.e. a slow disk.  Reads are answered at once; each WRITE is
 * answered only after as long as writing it at --rate KiB/s takes.  SIGUSR1 switches the rate
 * limit on, SIGUSR2 off (it starts off, so that mkfs runs at full speed).
 *
 * With --trickle the file is MOUNTPOINT/trickle, 16 MiB of a pattern, read-only in effect: every
 * READ is answered in full, but a page at a time (the kernel is told max_readahead 4 KiB) and only
 * SECONDS after the previous answer — a file that trickles; every other request (lookups, open, flush:
 * a task mapping the file meanwhile) is answered at once.  A task that mapped it and is dumped
 * with its file pages (coredump_filter) streams its core at a few hundred bytes a second, yet
 * never stalls for long ("read N" on stderr per READ answered).
 *
 * With --stall-lookups no LOOKUP is ever answered ("lookup stalled NAME" on stderr per LOOKUP):
 * whoever walks a path through MOUNTPOINT waits there, as a path walk waits for a server that a
 * user mounted over a directory of a path.
 *
 * With --private the mount is without allow_other, as a user's own FUSE mount is: only processes
 * with the mounter's uid and gid (all three of each, in any user namespace) may use it.
 *
 * Prints "ready" on stdout once mounted.  Ends when the mount goes away (the kernel aborts the
 * connection) or on SIGTERM; unmount with umount -l MOUNTPOINT or write to
 * /sys/fs/fuse/connections/N/abort.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define FILE_INO 2
#define FILE_SIZE (16u << 20)
#define BUF_SIZE (FUSE_MIN_READ_BUFFER + (1u << 20))

static int fuse_fd;
static unsigned char *disk;	/* --disk: the file's content */
static uint64_t disk_size = FILE_SIZE;
static unsigned long rate_kib;
static volatile sig_atomic_t slow;

static void on_usr(int sig)
{
	slow = sig == SIGUSR1;
}

static void reply(uint64_t unique, int error, const void *body, size_t len)
{
	struct fuse_out_header h = {
		.len = (uint32_t)(sizeof(h) + len),
		.error = -error,
		.unique = unique,
	};
	char buf[sizeof(h) + 512];

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), body, len);
	if (write(fuse_fd, buf, h.len) < 0 && errno != ENOENT)
		perror("fusestall: write reply");
}

/* A READ reply: the header and LEN bytes of data, written together. */
static void reply_data(uint64_t unique, const void *data, size_t len)
{
	struct fuse_out_header h = {
		.len = (uint32_t)(sizeof(h) + len),
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)data, .iov_len = len },
	};

	if (writev(fuse_fd, iov, 2) < 0 && errno != ENOENT)
		perror("fusestall: write data");
}

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = disk_size;
		a->blocks = disk_size / 512;
	}
}

static bool stall_lookups;
static unsigned trickle_s;	/* --trickle: seconds between two READ answers */

/* --trickle: READs waiting for their answer, oldest first; everything else is answered at once. */
struct pending_read {
	uint64_t unique, offset, size;
};
static struct pending_read pending[4096];
static unsigned first_pending, n_pending;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Answers the oldest waiting READ in full (a pattern). */
static void trickle_answer(void)
{
	static unsigned char page[256 << 10];	/* more than FUSE's largest READ */
	static unsigned long answered;
	struct pending_read *r = &pending[first_pending];
	uint64_t len = r->size;

	if (r->offset >= disk_size)
		len = 0;
	else if (len > disk_size - r->offset)
		len = disk_size - r->offset;
	if (len > sizeof(page))
		len = sizeof(page);
	memset(page, 0x5a ^ (int)(r->offset >> 12), len);
	reply_data(r->unique, page, len);	/* ENOENT if the reader was interrupted meanwhile */
	fprintf(stderr, "read %lu\n", ++answered);
	first_pending = (first_pending + 1) % (sizeof(pending) / sizeof(pending[0]));
	n_pending--;
}

int main(int argc, char **argv)
{
	static char buf[BUF_SIZE];
	static const struct option longopts[] = {
		{ "disk", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "stall-lookups", no_argument, NULL, 'l' },
		{ "trickle", required_argument, NULL, 't' },
		{ "private", no_argument, NULL, 'p' },
		{}
	};
	const char *name = "stall";
	char opts[128];
	bool private = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': disk_size = strtoull(optarg, NULL, 0) << 20; name = "disk"; break;
		case 'r': rate_kib = strtoul(optarg, NULL, 0); break;
		case 'l': stall_lookups = true; break;
		case 't': trickle_s = strtoul(optarg, NULL, 0); name = "trickle"; break;
		case 'p': private = true; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1) {
usage:
		fprintf(stderr, "usage: %s [--disk MiB --rate KiB | --stall-lookups | --trickle SECONDS] [--private] MOUNTPOINT\n",
			argv[0]);
		return 64;
	}
	if (strcmp(name, "disk") == 0) {
		disk = calloc(1, disk_size);
		if (!disk) {
			perror("fusestall: disk");
			return 2;
		}
		signal(SIGUSR1, on_usr);
		signal(SIGUSR2, on_usr);
	}
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		perror("fusestall: /dev/fuse");
		return 2;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0%s", fuse_fd, private ? "" : ",allow_other");
	if (mount("fusestall", argv[optind], "fuse", MS_NOSUID | MS_NODEV, opts) < 0) {
		perror("fusestall: mount");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);

	uint64_t next_answer = 0;

	for (;;) {
		if (trickle_s) {
			/* One READ answered every trickle_s seconds; other requests meanwhile at once. */
			struct pollfd p = { .fd = fuse_fd, .events = POLLIN };
			int timeout = -1;

			if (n_pending) {
				uint64_t now = now_ns();

				if (next_answer == 0)
					next_answer = now + trickle_s * 1000000000ull;
				if (now >= next_answer) {
					trickle_answer();
					next_answer = now + trickle_s * 1000000000ull;
					continue;
				}
				timeout = (int)((next_answer - now) / 1000000) + 1;
			} else
				next_answer = 0;
			if (poll(&p, 1, timeout) == 0)
				continue;
		}
		ssize_t n = read(fuse_fd, buf, sizeof(buf));
		struct fuse_in_header *in = (struct fuse_in_header *)buf;
		void *arg = buf + sizeof(*in);

		if (n < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			if (errno != ENODEV)
				perror("fusestall: read");
			return errno == ENODEV ? 0 : 1;
		}
		if ((size_t)n < sizeof(*in))
			continue;
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *ii = arg;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor : FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = trickle_s ? 4096 : ii->max_readahead,
				.max_write = 128 << 10,
			};

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out e = { .nodeid = FILE_INO };

			if (stall_lookups) {
				fprintf(stderr, "lookup stalled %s\n", (const char *)arg);
				break;	/* never answered */
			}
			if (in->nodeid != FUSE_ROOT_ID || strcmp((const char *)arg, name) != 0) {
				reply(in->unique, ENOENT, NULL, 0);
				break;
			}
			fill_attr(&e.attr, FILE_INO);
			e.entry_valid = e.attr_valid = 3600;
			reply(in->unique, 0, &e, sizeof(e));
			break;
		}
		case FUSE_GETATTR:
		case FUSE_SETATTR: {	/* nothing to change: the attributes stay */
			struct fuse_attr_out a = { .attr_valid = 3600 };

			fill_attr(&a.attr, in->nodeid);
			reply(in->unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_STATFS: {	/* overlayfs asks a lower layer for its name length */
			struct fuse_statfs_out o = { .st = { .bsize = 4096, .frsize = 4096, .namelen = 255 } };

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			const struct fuse_read_in *r = arg;
			uint64_t len = r->size;

			if (trickle_s) {	/* answered later, one at a time (trickle_answer()) */
				if (n_pending == sizeof(pending) / sizeof(pending[0])) {
					reply(in->unique, EAGAIN, NULL, 0);
					break;
				}
				pending[(first_pending + n_pending++) % (sizeof(pending) / sizeof(pending[0]))] =
					(struct pending_read){ in->unique, r->offset, len };
				break;
			}
			if (!disk) {
				fprintf(stderr, "read stalled\n");
				break;	/* never answered */
			}
			if (r->offset >= disk_size)
				len = 0;
			else if (len > disk_size - r->offset)
				len = disk_size - r->offset;
			reply_data(in->unique, disk + (len ? r->offset : 0), len);
			break;
		}
		case FUSE_WRITE: {
			const struct fuse_write_in *wi = arg;
			struct fuse_write_out o = { .size = wi->size };

			if (!disk || wi->offset + wi->size > disk_size) {
				reply(in->unique, disk ? ENOSPC : EROFS, NULL, 0);
				break;
			}
			memcpy(disk + wi->offset, (const char *)(wi + 1), wi->size);
			if (slow && rate_kib) {
				uint64_t ns = (uint64_t)wi->size * 1000000000ull / (rate_kib << 10);
				struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
						       .tv_nsec = (long)(ns % 1000000000ull) };

				while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
					;
			}
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;	/* no reply expected (an interrupted READ stays unanswered) */
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
		case FUSE_FLUSH:
			reply(in->unique, 0, NULL, 0);
			break;
		case FUSE_DESTROY:
			reply(in->unique, 0, NULL, 0);
			return 0;
		default:
			reply(in->unique, ENOSYS, NULL, 0);
			break;
		}
	}
}
