/* libhostile — the shared library of the attack cases (85, 87): hostile_entry() calls
 * hostile_target(), which writes through a NULL pointer.
 *
 * Linked with -Bsymbolic (mkosi.build): the call and every other reference inside the library are
 * bound when it is linked, so the dynamic loader never looks hostile_target up by name. Case 87
 * rewrites that symbol's name in the file's .dynsym (src/elfbomb.c) and the library still loads
 * and crashes in it; only a reader of the file's section headers (the unwinder) sees the new name.
 */
#define HOSTILE_EXPORT __attribute__((visibility("default"), noipa))

int *volatile hostile_null;

HOSTILE_EXPORT int hostile_target(int x)
{
	*hostile_null = x;	/* SIGSEGV */
	return x + 1;
}

HOSTILE_EXPORT int hostile_entry(int x)
{
	int r = hostile_target(x + 3);
	return r * 7;
}
