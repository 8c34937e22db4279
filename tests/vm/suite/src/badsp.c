/* badsp — dies with a stack nobody can unwind: %rsp and %rbp point at garbage, and the fault
 * comes from code without call frame information (x86_64 only).
 *
 *   badsp [low|noncanonical]
 *
 * low (default): both registers 0x10, then a store through %rsp faults (SIGSEGV at 0x10).
 * noncanonical:  both 0xdead000000000000, then the store faults (#SS or #GP: SIGBUS or SIGSEGV).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
void garbage_stack_crash(uint64_t sp);
__asm__(".text\n"
	".globl garbage_stack_crash\n"
	".type garbage_stack_crash, @function\n"
	"garbage_stack_crash:\n"
	"\tmov %rdi, %rsp\n"
	"\tmov %rdi, %rbp\n"
	"\tmovq $0, (%rsp)\n"
	"\tud2\n"
	".size garbage_stack_crash, . - garbage_stack_crash\n");
#endif

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "low";
	uint64_t sp;

	if (strcmp(kind, "low") == 0)
		sp = 0x10;
	else if (strcmp(kind, "noncanonical") == 0)
		sp = 0xdead000000000000ull;
	else {
		fprintf(stderr, "usage: %s [low|noncanonical]\n", argv[0]);
		return 64;
	}
#if defined(__x86_64__)
	garbage_stack_crash(sp);
#endif
	fprintf(stderr, "badsp: not on x86_64\n");
	return 2;
}
