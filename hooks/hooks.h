/* SPDX-License-Identifier: MIT */
/* hooks/hooks.h: starting the built-in hooks, each from la_version (hooks/registry.c). */
#ifndef CUA_HOOKS_H
#define CUA_HOOKS_H

#include <stdint.h>
#include "process.h"

struct cua_config;
struct cua_fault_config;
struct cua_memlimit_config;
struct cua_trace_config;
struct cua_summary_config;
struct cua_metrics_config;
struct cua_plugins_config;
struct cua_errcount_config;
struct cua_hook_configs;

/* Starts every built-in hook in the registry's order (hooks/registry.c), from la_version,
   before the plan closes. A hook's start may adjust a later hook's configuration (the compute
   share turns GPU timing on). */
void cua_hooks_start(const struct cua_config *all, struct cua_hook_configs *cfg);

/* Each copies its own configuration (hooks/<hook>/<hook>_config.h, read by its own loader) and the
   shared fields it needs from the core's (no hook reads the global record, on the hot path or
   elsewhere; tests/layers.py checks) and subscribes if enabled; from la_version, in this
   order: the ones that may skip or fail calls first, observers after. Return 0 or -errno. */
int cua_memlimit_init(const struct cua_config *all, const struct cua_memlimit_config *own);
int cua_fault_init(const struct cua_fault_config *own);
/* The summary also renders the metrics (CUAUDIT_METRICS), so it takes their configuration. */
int cua_summary_init(const struct cua_config *all, const struct cua_summary_config *own,
		     const struct cua_metrics_config *metrics);
/* 1 once the summary started with a place to write (CUAUDIT_SUMMARY). */
int cua_summary_on(void);
int cua_trace_init(const struct cua_config *all, const struct cua_trace_config *own);
/* 1 once the trace started with a file to write (CUAUDIT_TRACE). */
int cua_trace_on(void);
int cua_plugins_load(const struct cua_plugins_config *own);
/* Registers the per-call log hook (hooks/log/log.c) when the level is verbose or above, or
   errors. */
void cua_log_init(const struct cua_config *all);
/* Counts failed calls into the file CUAUDIT_ERROR_COUNT names (cuaudit run --error-exitcode). */
int cua_errcount_init(const struct cua_errcount_config *own);
/* The live view (CUAUDIT_LIVE): each thread's call in flight, last calls and counters in a
   shared file `cuaudit ps` reads. */
int cua_live_init(const struct cua_config *all);


#endif
