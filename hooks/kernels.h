/* SPDX-License-Identifier: MIT */
/* hooks/kernels.h: kernel names by launch handle, recorded where programs register or look up kernels. */
#ifndef CUA_KERNELS_H
#define CUA_KERNELS_H

#include <stdint.h>
#include "cuaudit.h"
#include "cuaudit_ids.h"

/* Subscribes the registry to the registration and look-up calls when the log, the trace, GPU timing or
   the summary is on (they name launches). From la_version, after those hooks. */
struct cua_config;
int cua_kernels_init(const struct cua_config *all);

/* A bit per id that launches a kernel (cuLaunchKernel, cudaLaunchKernel, __cudaLaunchKernel,
   ...); set by cua_kernels_init, read-only after. */
extern uint8_t cua_kernels_launch_mask[(CUAUDIT_ID_COUNT + 7) / 8];

static inline int cua_kernels_is_launch(unsigned id)
{
	return (cua_kernels_launch_mask[id >> 3] >> (id & 7)) & 1;
}

/* The name of the kernel a launch call launched, from an exit callback: a string that lives
   as long as the process, or NULL when it is unknown. Falls back on the driver's
   cuFuncGetName (called directly, not through a wrapper) after a successful driver launch.
   Lock-free; repeated calls for the same call are answered from a per-thread cache. */
const char *cua_kernels_of_call(const struct cuaudit_call *c);

/* Records a name for a key, for tests: space 0 is host functions (runtime launches), 1 is
   driver handles (CUfunction, CUkernel). The name is copied unless 'stable'. */
void cua_kernels_add(unsigned space, uintptr_t key, const char *name, int stable);
/* The name recorded for a key (made stable), or NULL. */
const char *cua_kernels_lookup(unsigned space, uintptr_t key);

#endif
