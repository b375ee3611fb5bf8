/* SPDX-License-Identifier: MIT */
/* loader/symtab.h: walks a loaded object's own dynamic symbol table. */
#ifndef CUA_SYMTAB_H
#define CUA_SYMTAB_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

/* A dynamic-section address (d_ptr) as a pointer: glibc relocates d_ptr in place on most
   targets, but not everywhere, so both forms are accepted. */
uintptr_t cua_symtab_dyn_ptr(const struct link_map *map, ElfW(Addr) p);

typedef void (*cua_symtab_fn)(void *ctx, const char *elf_name, uintptr_t addr);

/* Calls each() for every defined global or weak function of the object, with its run-time
   address. Works from la_objopen on: the table is mapped before relocation. Returns how many
   functions it reported, or -1 when the object has no usable table. */
long cua_symtab_each_function(const struct link_map *map, cua_symtab_fn each, void *ctx);

/* What an undefined symbol's name is to the caller: a set of bits, 0 for nothing. */
typedef unsigned (*cua_symtab_kind_fn)(const char *elf_name);
/* The bits kind() gives the object's undefined symbols, OR-ed; the walk stops once all are
   found. An object without a usable table is taken to import everything (all). */
unsigned cua_symtab_imports(const struct link_map *map, cua_symtab_kind_fn kind, unsigned all);

/* Returns 1 if the object itself defines a global or weak function of that ELF name. */
int cua_symtab_defines(const struct link_map *map, const char *elf_name);
/* The run-time address of the object's own global or weak STT_FUNC of that name (not an
   IFUNC, whose address is its resolver), or 0. */
uintptr_t cua_symtab_function_address(const struct link_map *map, const char *elf_name);

/* The run-time address of the object's own global or weak STT_OBJECT of that name and exactly
   that size, or 0. The address is valid from la_objopen on. */
uintptr_t cua_symtab_object_address(const struct link_map *map, const char *name, size_t size);

/* The object's program headers: the executable's from the aux vector (dl_iterate_phdr does
   not list it while the loader is still starting it), a shared object's from its ELF header. */
const ElfW(Phdr) *cua_symtab_phdrs(const struct link_map *map, unsigned *count);

/* The addresses the object's PT_LOAD segments span: [*lo, *hi). Returns 0, or -1. */
int cua_symtab_span(const struct link_map *map, uintptr_t *lo, uintptr_t *hi);

#endif
