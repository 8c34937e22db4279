/* deep — calls into libdeep, which crashes three calls deep (deep_a -> deep_b -> deep_c).
 *
 *   deep [-n COMM]
 *
 * -n  set comm (for MatchComm= rules)
 * Built -O2 -fomit-frame-pointer and stripped (strip -s), against libdeep.so (rpath to the
 * suite's lib/): the case 63 checks that coredumpd's pre-ack backtrace names the library's
 * frames as gdb does on the stored core.
 */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

int deep_a(int x);

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "-n") == 0)
		prctl(PR_SET_NAME, argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [-n COMM]\n", argv[0]);
		return 64;
	}
	int r = deep_a(argc);
	printf("deep: not reached (%d)\n", r);
	return 0;
}
