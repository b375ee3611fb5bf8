/* SPDX-License-Identifier: MIT */
/* hooks/procaddress.h: maps real CUDA function addresses back to wrappers, for pointers the driver hands out. */
#ifndef CUA_PROCADDRESS_H
#define CUA_PROCADDRESS_H

#include <stdint.h>

/* Records one exported function of an intercepted CUDA library into the next version of the
   index, built off to the side. Loader callbacks only, before cua_procaddress_seal. */
void cua_procaddress_add(const char *elf_name, uintptr_t addr, unsigned layer);
/* Sorts the next version and publishes it with one atomic store; it is read-only after. */
void cua_procaddress_seal(void);
/* Publishes a version without the exports in [lo, hi): a library that was unloaded. */
void cua_procaddress_retire(uintptr_t lo, uintptr_t hi);

/* The real address of an id from the export index, or NULL (for cuaudit's own calls into
   the driver, such as cuCtxGetDevice for the memory limit). */
void *cua_procaddress_real(unsigned id);

/* Finds a real address: returns the id, or -1 with *elf_name set when the address is an
   export without a prototype, or -2 when it is no export at all. */
int cua_procaddress_find(uintptr_t addr, const char **elf_name);

/* How many pointers lookups have swapped for wrappers, by layer (enum cuaudit_layer). */
uint64_t cua_procaddress_handed_out(unsigned layer);

/* Called by the generated wrappers of cuGetProcAddress* and cudaGetDriverEntryPoint* after
   the real call: swaps *pointer for the wrapper of the same function (result 0 only). */
void cua_procaddress_wrap(const char *symbol, long version, uint64_t flags, void **pointer,
			  int result);

#endif
