/* elfbomb — gives a symbol of a shared library a name of BYTES bytes, for the attack case 87.
 *
 *   elfbomb IN OUT SYMBOL BYTES
 *
 * OUT is IN with a new string table appended: the old .dynstr, then "hostile_bomb_" and 'A's up
 * to BYTES bytes, then NUL. The section header of .dynstr (the one .dynsym links to) points at it,
 * and SYMBOL's .dynsym entry names that long string. The loaded image is unchanged but for that one
 * st_name: the dynamic loader reads names through DT_STRTAB, never looks SYMBOL up (libhostile is
 * linked -Bsymbolic), and the library loads and runs as before. A reader of the file's sections — an
 * unwinder naming the frame — finds a name of BYTES bytes covering SYMBOL's code.
 * ELF64 little-endian only.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
	fprintf(stderr, "elfbomb: %s\n", what);
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s IN OUT SYMBOL BYTES\n", argv[0]);
		return 64;
	}
	size_t bytes = strtoull(argv[4], NULL, 0);
	FILE *in = fopen(argv[1], "rb");
	if (!in)
		die("cannot open IN");
	fseek(in, 0, SEEK_END);
	long size = ftell(in);
	rewind(in);
	unsigned char *f = malloc((size_t)size);
	if (!f || fread(f, 1, (size_t)size, in) != (size_t)size)
		die("cannot read IN");
	fclose(in);

	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	if ((size_t)size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)size)
		die("IN is no ELF64 file with section headers");
	Elf64_Shdr *sh = (Elf64_Shdr *)(f + eh->e_shoff);
	Elf64_Shdr *dynsym = NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = &sh[i];
	if (!dynsym || dynsym->sh_link >= eh->e_shnum || dynsym->sh_entsize != sizeof(Elf64_Sym))
		die("IN has no .dynsym");
	Elf64_Shdr *dynstr = &sh[dynsym->sh_link];
	if (dynstr->sh_offset + dynstr->sh_size > (uint64_t)size || dynsym->sh_offset + dynsym->sh_size > (uint64_t)size)
		die("IN's .dynsym or .dynstr lies outside it");

	Elf64_Sym *sym = (Elf64_Sym *)(f + dynsym->sh_offset), *target = NULL;
	const char *strs = (const char *)(f + dynstr->sh_offset);
	for (size_t i = 0; i < dynsym->sh_size / sizeof(*sym); i++)
		if (sym[i].st_name < dynstr->sh_size && strcmp(strs + sym[i].st_name, argv[3]) == 0)
			target = &sym[i];
	if (!target)
		die("SYMBOL is not in .dynsym");

	static const char prefix[] = "hostile_bomb_";
	if (bytes < sizeof(prefix))
		die("BYTES too small");
	size_t old = dynstr->sh_size;
	size_t start = ((size_t)size + 15) & ~(size_t)15;
	FILE *out = fopen(argv[2], "wb");
	if (!out)
		die("cannot create OUT");
	target->st_name = (Elf64_Word)old;
	dynstr->sh_offset = start;
	dynstr->sh_size = old + bytes + 1;
	if (fwrite(f, 1, (size_t)size, out) != (size_t)size)
		die("cannot write OUT");
	for (size_t i = (size_t)size; i < start; i++)
		fputc(0, out);
	fwrite(strs, 1, old, out);	/* f still holds the old table at its old offset */
	fwrite(prefix, 1, sizeof(prefix) - 1, out);
	for (size_t i = sizeof(prefix) - 1; i < bytes; i++)
		fputc('A', out);
	fputc(0, out);
	if (fclose(out) != 0)
		die("cannot write OUT");
	printf("%s: %s named by %zu bytes at offset %zu\n", argv[2], argv[3], bytes, start + old);
	return 0;
}
