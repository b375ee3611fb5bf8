/* SPDX-License-Identifier: MIT */
/* audit/filesyms.h: reads the full symbol table (.symtab) of an object's file on disk, bounded. */
#ifndef CUA_FILESYMS_H
#define CUA_FILESYMS_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/* An ELF file mapped read-only, with its tables checked against the file's size. */
struct cua_filesyms {
	const uint8_t *file;
	size_t size;
	const Elf64_Sym *symtab; /* NULL when the file has no .symtab (stripped) */
	size_t nsyms;
	const char *strtab;
	size_t strsize;
	const Elf64_Phdr *phdr;  /* the file's program headers */
	unsigned phnum;
	int has_fatbin;          /* a .nvFatBinSegment section: nvcc-compiled device code */
	int imports_runtime;     /* .dynsym has __cudaRegisterFatBinary undefined: a shared cudart */
};

/* Maps path and finds its tables; every offset and size is checked. Returns 0, or -1 for a
   file that cannot be read or is not a 64-bit ELF of this machine. */
int cua_filesyms_open(struct cua_filesyms *f, const char *path);
void cua_filesyms_close(struct cua_filesyms *f);

/* The name of symbol i, or NULL when it does not lie inside the string table. */
const char *cua_filesyms_name(const struct cua_filesyms *f, size_t i);

/* Index of the defined function named elf_name, or -1. */
long cua_filesyms_find_function(const struct cua_filesyms *f, const char *elf_name);

/* The file's bytes at virtual address vaddr, n of them, or NULL if no PT_LOAD holds them. */
const uint8_t *cua_filesyms_at(const struct cua_filesyms *f, uint64_t vaddr, size_t n);

#endif
