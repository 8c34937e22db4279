/* libdeep — a shared library whose exported functions crash three calls deep:
 * deep_a() -> deep_b() -> deep_c(), which writes through a NULL pointer.
 *
 * Built -O2 -fomit-frame-pointer and stripped to its .dynsym (mkosi.build), so the only names
 * are the exported ones and the only way up the stack is .eh_frame. noipa keeps each function
 * a function of its own (no inlining, cloning or tail calls into it); each caller uses its
 * callee's result, so no call is a tail call.
 */
#define DEEP_EXPORT __attribute__((visibility("default"), noipa))

/* Read at run time: the compiler cannot see the NULL and turn the store into a trap. */
int *volatile deep_target;

DEEP_EXPORT int deep_c(int x)
{
	*deep_target = x;	/* SIGSEGV */
	return x + 1;
}

DEEP_EXPORT int deep_b(int x)
{
	int r = deep_c(x * 3);
	return r ^ 0x5a;
}

DEEP_EXPORT int deep_a(int x)
{
	int r = deep_b(x + 7);
	return r * 5 - 1;
}
