/* SPDX-License-Identifier: MIT */
/* hooks/memlimit.h: what the memory limit hook shows to other parts of cuaudit (metrics, reports). */
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

#endif
