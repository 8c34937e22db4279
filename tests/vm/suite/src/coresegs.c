/* coresegs — the PT_LOAD segments of a 64-bit ELF core, one line each:
 *   VADDR FILESZ MEMSZ   (hex, with 0x)
 * (the image has no readelf). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: coresegs CORE\n");
		return 2;
	}
	if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_CORE || eh.e_phentsize != sizeof ph) {
		fprintf(stderr, "%s: not a 64-bit ELF core\n", argv[1]);
		return 1;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof ph), SEEK_SET) != 0 || fread(&ph, sizeof ph, 1, f) != 1) {
			fprintf(stderr, "%s: short program header %u\n", argv[1], i);
			return 1;
		}
		if (ph.p_type == PT_LOAD)
			printf("0x%llx 0x%llx 0x%llx\n", (unsigned long long)ph.p_vaddr,
			       (unsigned long long)ph.p_filesz, (unsigned long long)ph.p_memsz);
	}
	return 0;
}
