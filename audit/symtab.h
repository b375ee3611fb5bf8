/* SPDX-License-Identifier: MIT */
/* audit/symtab.h: walks a loaded object's own dynamic symbol table. */
#ifndef CUA_SYMTAB_H
#define CUA_SYMTAB_H

#include <link.h>
#include <stdint.h>

typedef void (*cua_symtab_fn)(void *ctx, const char *elf_name, uintptr_t addr);

/* Calls each() for every defined global or weak function of the object, with its run-time
   address. Works from la_objopen on: the table is mapped before relocation. Returns how many
   functions it reported, or -1 when the object has no usable table. */
long cua_symtab_each_function(const struct link_map *map, cua_symtab_fn each, void *ctx);

/* Returns 1 if the object has an undefined symbol whose name starts with "cu" or "__cuda":
   only such an object can bind to a CUDA function through its PLT or GOT. */
int cua_symtab_references_cuda(const struct link_map *map);

#endif
