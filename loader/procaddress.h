/* SPDX-License-Identifier: MIT */
/* loader/procaddress.h: maps real CUDA function addresses back to wrappers, for pointers the driver hands out. */
#ifndef CUA_PROCADDRESS_H
#define CUA_PROCADDRESS_H

#include <stdint.h>

/* How many pointers lookups have swapped for wrappers, by layer (enum cuaudit_layer). */
uint64_t cua_procaddress_handed_out(unsigned layer);

/* Called by the generated wrappers of cuGetProcAddress* and cudaGetDriverEntryPoint* after
   the real call: swaps *pointer for the wrapper of the same function (result 0 only). */
void cua_procaddress_wrap(const char *symbol, long version, uint64_t flags, void **pointer,
			  int result);

#endif
