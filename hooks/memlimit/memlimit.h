/* SPDX-License-Identifier: MIT */
/* hooks/memlimit/memlimit.h: what the memory limit hook shows to other parts of cuaudit (metrics, reports). */
#ifndef CUA_MEMLIMIT_H
#define CUA_MEMLIMIT_H

#include <stdint.h>
#include "memlimit_config.h"

/* Bytes the calls of this process hold on device dev, as the limit counts them (0 when
   neither a limit nor the live view is on, or dev is out of range). Safe on any thread; a relaxed snapshot. */
uint64_t cua_memlimit_used(unsigned dev);
/* The limits CUAUDIT_MEM_LIMIT set (all zero when none), as the hook started with them:
   what the metrics show as quotas. */
const struct cua_memlimit_config *cua_memlimit_limits(void);
/* The quota of device dev in bytes, or 0 when it has none. */
uint64_t cua_memlimit_quota(unsigned dev);
/* What a program asking about device dev's memory is shown: 1 when dev has a quota, with
   *quota and *in_use (the group's use in a memory group, this process's otherwise); 0 when
   nothing is clamped. Takes back dead processes' slots of the group first. */
int cua_memlimit_view(unsigned dev, uint64_t *quota, uint64_t *in_use);
/* Joins the memory group CUAUDIT_MEM_GROUP names, once, when the first CUDA or NVML library
   opens (under the loader's lock): a process that never loads one makes no file and takes
   no slot. A failure says so once, and the limit stays the process's own. */
void cua_memlimit_prepare(void);
/* A driver loads after the owning one was unloaded: the old driver's memory went with it
   (its contexts are gone, and its addresses may come back from the new one), so every live
   allocation is credited back to the quota and the group. Not at the unload itself: glibc's
   exit (_dl_fini) closes the driver too, before the exit report of what was still held. */
void cua_memlimit_driver_reloaded(void);
/* The memory group this process joined (CUAUDIT_MEM_GROUP), or NULL when none. */
const char *cua_memlimit_group(void);
/* The group's use of device dev in bytes (granted to live or not yet reclaimed slots); 0
   outside a group. A snapshot. */
uint64_t cua_memlimit_group_used(unsigned dev);

#endif
