/* SPDX-License-Identifier: MIT */
/* hooks/kernels/kernels.h: the hook that feeds kernel names into the core's registry (rt/kernelnames.h). */
#ifndef CUA_KERNELS_H
#define CUA_KERNELS_H

/* Subscribes to the calls whose role is kernel_name or version when the log, the trace,
   the summary or GPU timing is on (they name launches), and turns the registry on. From la_version,
   after those hooks. */
struct cua_config;
int cua_kernels_init(const struct cua_config *all);

#endif
