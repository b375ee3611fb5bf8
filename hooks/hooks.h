/* SPDX-License-Identifier: MIT */
/* hooks/hooks.h: starting the built-in hooks, running their exit work, and process identity. */
#ifndef CUA_HOOKS_H
#define CUA_HOOKS_H

#include <stdint.h>

/* Each reads its part of cua_cfg and subscribes if enabled; from la_version, in this order:
   the ones that may skip or fail calls first, observers after. Return 0 or -errno. */
int cua_memlimit_init(void);
int cua_fault_init(void);
int cua_summary_init(void);
int cua_trace_init(void);
int cua_plugins_load(void);
/* Counts failed calls into cua_cfg.error_count's file (cuaudit run --error-exitcode). */
int cua_errcount_init(void);

/* Work to do when the process exits normally, in registration order. */
void cua_finish_add(void (*fn)(void));
void cua_finish_run(void);

/* Sets up the fork detector; from la_version. */
void cua_process_init(void);
/* This process's id in one load: the cache lives in a page the kernel wipes in a forked
   child (MADV_WIPEONFORK), since pthread_atfork handlers of the audit namespace never run. */
uint64_t cua_process_id(void);

#endif
