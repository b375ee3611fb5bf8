/* SPDX-License-Identifier: MIT */
/* hooks/compute/compute.h: the compute share (CUAUDIT_COMPUTE_LIMIT): holds a launching thread back while its group is over its share of a GPU. */
#ifndef CUA_COMPUTE_H
#define CUA_COMPUTE_H

#include <stdint.h>
#include "compute_config.h"

/* Subscribes when a compute limit is set; group is CUAUDIT_MEM_GROUP's name ("" : the process
   is its own group), dir the share directory. From la_version, after the hooks that may skip
   a call and before GPU timing, which must be on (cua_compute_wants_gpu_time). */
int cua_compute_init(const struct cua_compute_config *own, const char *group, const char *dir);
/* Whether the compute share needs GPU timing turned on. */
int cua_compute_on(void);
/* This process's group on device dev over the last window, in thousandths: its limit word
   (compshare.h) and its achieved share. 0 when there is none to say (no limit on dev, not
   attached, or the rule's scratch in use by a launch at that moment). */
int cua_compute_view(unsigned dev, uint32_t *limit, uint64_t *achieved_permille,
		     const char **group);

#endif
