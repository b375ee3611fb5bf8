/* SPDX-License-Identifier: MIT */
/* audit/filesyms.c: reads the full symbol table (.symtab) of an object's file on disk, bounded. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "filesyms.h"

/* Bounds far above any real program, so that a hostile file cannot make us walk forever. */
#define MAX_FILE_SIZE ((size_t)1 << 34)
#define MAX_SYMBOLS ((size_t)1 << 24)

/* 1 when [off, off + len) lies inside a file of size bytes, without overflow. */
static int inside(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static const Elf64_Shdr *section(const struct cua_filesyms *f, const Elf64_Ehdr *eh, unsigned i)
{
	return (const Elf64_Shdr *)(f->file + eh->e_shoff) + i;
}

static int header_ok(const struct cua_filesyms *f, const Elf64_Ehdr *eh)
{
	return f->size >= sizeof(*eh) && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh->e_machine == EM_X86_64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
	       eh->e_shoff % _Alignof(Elf64_Shdr) == 0 && eh->e_phoff % _Alignof(Elf64_Phdr) == 0 &&
	       inside(f->size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) &&
	       eh->e_phentsize == sizeof(Elf64_Phdr) &&
	       inside(f->size, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
}

/* A symbol section and its string table, both inside the file. */
static int table_of(const struct cua_filesyms *f, const Elf64_Ehdr *eh, const Elf64_Shdr *s,
		    const Elf64_Sym **syms, size_t *n, const char **str, size_t *strsize)
{
	const Elf64_Shdr *str_sh;

	if (s->sh_entsize != sizeof(Elf64_Sym) || !inside(f->size, s->sh_offset, s->sh_size) ||
	    s->sh_link >= eh->e_shnum || s->sh_offset % _Alignof(Elf64_Sym) != 0)
		return -1;
	str_sh = section(f, eh, s->sh_link);
	if (str_sh->sh_type != SHT_STRTAB || !inside(f->size, str_sh->sh_offset, str_sh->sh_size))
		return -1;
	*syms = (const Elf64_Sym *)(f->file + s->sh_offset);
	*n = s->sh_size / sizeof(Elf64_Sym);
	if (*n > MAX_SYMBOLS)
		*n = MAX_SYMBOLS;
	*str = (const char *)(f->file + str_sh->sh_offset);
	*strsize = str_sh->sh_size;
	return 0;
}

static const char *name_in(const char *str, size_t strsize, uint32_t off)
{
	if (off >= strsize || !memchr(str + off, '\0', strsize - off))
		return NULL;
	return str + off;
}

static int section_named(const struct cua_filesyms *f, const Elf64_Ehdr *eh,
			 const Elf64_Shdr *s, const char *want)
{
	const Elf64_Shdr *names;
	const char *n;

	if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum)
		return 0;
	names = section(f, eh, eh->e_shstrndx);
	if (!inside(f->size, names->sh_offset, names->sh_size))
		return 0;
	n = name_in((const char *)f->file + names->sh_offset, names->sh_size, s->sh_name);
	return n && strcmp(n, want) == 0;
}

static int imports_runtime(const struct cua_filesyms *f, const Elf64_Ehdr *eh,
			   const Elf64_Shdr *dynsym)
{
	const Elf64_Sym *syms;
	const char *str, *n;
	size_t count, strsize;

	if (table_of(f, eh, dynsym, &syms, &count, &str, &strsize) != 0)
		return 0;
	for (size_t i = 1; i < count; i++)
		if (syms[i].st_shndx == SHN_UNDEF &&
		    (n = name_in(str, strsize, syms[i].st_name)) &&
		    strcmp(n, "__cudaRegisterFatBinary") == 0)
			return 1;
	return 0;
}

static int find_tables(struct cua_filesyms *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->file;

	if (!header_ok(f, eh))
		return -1;
	f->phdr = (const Elf64_Phdr *)(f->file + eh->e_phoff);
	f->phnum = eh->e_phnum;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = section(f, eh, i);

		if (s->sh_type == SHT_SYMTAB && !f->symtab &&
		    table_of(f, eh, s, &f->symtab, &f->nsyms, &f->strtab, &f->strsize) != 0)
			f->symtab = NULL;
		else if (s->sh_type == SHT_DYNSYM)
			f->imports_runtime = imports_runtime(f, eh, s);
		else if (s->sh_type == SHT_PROGBITS && section_named(f, eh, s, ".nvFatBinSegment"))
			f->has_fatbin = 1;
	}
	return 0;
}

int cua_filesyms_open(struct cua_filesyms *f, const char *path)
{
	struct stat st;
	void *p;
	int fd;

	memset(f, 0, sizeof(*f));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
	    (uint64_t)st.st_size > MAX_FILE_SIZE) {
		close(fd);
		return -1;
	}
	/* Mapped, not read: only the pages of the headers and tables are ever touched. */
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	f->file = p;
	f->size = (size_t)st.st_size;
	if (find_tables(f) != 0) {
		cua_filesyms_close(f);
		return -1;
	}
	return 0;
}

void cua_filesyms_close(struct cua_filesyms *f)
{
	if (f->file)
		munmap((void *)f->file, f->size);
	memset(f, 0, sizeof(*f));
}

const char *cua_filesyms_name(const struct cua_filesyms *f, size_t i)
{
	return i < f->nsyms ? name_in(f->strtab, f->strsize, f->symtab[i].st_name) : NULL;
}

long cua_filesyms_find_function(const struct cua_filesyms *f, const char *elf_name)
{
	for (size_t i = 1; i < f->nsyms; i++) {
		const char *n;

		if (f->symtab[i].st_shndx == SHN_UNDEF ||
		    ELF64_ST_TYPE(f->symtab[i].st_info) != STT_FUNC)
			continue;
		if ((n = cua_filesyms_name(f, i)) && strcmp(n, elf_name) == 0)
			return (long)i;
	}
	return -1;
}

const uint8_t *cua_filesyms_at(const struct cua_filesyms *f, uint64_t vaddr, size_t n)
{
	for (unsigned i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->phdr[i];

		if (ph->p_type != PT_LOAD || vaddr < ph->p_vaddr || n > ph->p_filesz ||
		    vaddr - ph->p_vaddr > ph->p_filesz - n)
			continue;
		if (!inside(f->size, ph->p_offset, ph->p_filesz))
			return NULL;
		return f->file + ph->p_offset + (vaddr - ph->p_vaddr);
	}
	return NULL;
}
