/* SPDX-License-Identifier: MIT */
/* hooks/hooks.h: starting the built-in hooks, each from la_version. */
#ifndef CUA_HOOKS_H
#define CUA_HOOKS_H

#include <stdint.h>
#include "process.h"

/* Each reads its part of cua_cfg and subscribes if enabled; from la_version, in this order:
   the ones that may skip or fail calls first, observers after. Return 0 or -errno. */
int cua_memlimit_init(void);
int cua_fault_init(void);
int cua_summary_init(void);
int cua_trace_init(void);
int cua_plugins_load(void);
/* Counts failed calls into cua_cfg.error_count's file (cuaudit run --error-exitcode). */
int cua_errcount_init(void);


#endif
