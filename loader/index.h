/* SPDX-License-Identifier: MIT */
/* loader/index.h: the export index: real CUDA function addresses by id and by address. */
#ifndef CUA_INDEX_H
#define CUA_INDEX_H

#include <stdint.h>

/* Records one exported function of an intercepted CUDA library into the next version of the
   index, built off to the side. Loader callbacks only, before cua_index_seal. */
void cua_index_add(const char *elf_name, uintptr_t addr, unsigned layer);
/* Sorts the next version and publishes it with one atomic store; it is read-only after. */
void cua_index_seal(void);
/* Publishes a version without the exports in [lo, hi): a library that was unloaded. */
void cua_index_retire(uintptr_t lo, uintptr_t hi);

/* The real address of an id from the export index, or NULL (for cuaudit's own calls into
   the driver, such as cuCtxGetDevice for the memory limit). */
void *cua_index_real(unsigned id);

/* Finds a real address: returns the id, or -1 with *elf_name set when the address is an
   export without a prototype, or -2 when it is no export at all. */
int cua_index_find(uintptr_t addr, const char **elf_name);

/* Whether addr is one of cuaudit's own entry points (a pointer an inner lookup already
   wrapped); 0 before the first index is published. */
int cua_index_is_wrapper(uintptr_t addr);

#endif
