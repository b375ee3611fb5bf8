/* SPDX-License-Identifier: MIT */
/* hooks/trace/trace_config.h: the trace's configuration (CUAUDIT_TRACE, CUAUDIT_TRACE_MAX, CUAUDIT_TRACE_EXIT_TIME), read once in la_version. */
#ifndef CUA_TRACE_CONFIG_H
#define CUA_TRACE_CONFIG_H

#include <stdint.h>
#include "config.h"

struct cua_trace_config {
	char path[CUA_PATH_MAX]; /* CUAUDIT_TRACE: a file-name template, or empty (off) */
	uint64_t max;            /* CUAUDIT_TRACE_MAX bytes of records; 0: no bound */
	uint64_t exit_ns;        /* CUAUDIT_TRACE_EXIT_TIME: the most exit spends converting
				    the raw file (default CUA_TRACE_EXIT_DEFAULT_NS) */
};

#define CUA_TRACE_EXIT_DEFAULT_NS 5000000000ull

/* Reads the variables through get. A bad value: one message through diag, and that part at
   its default (no trace, no bound). In a secure process (AT_SECURE) no trace is written. */
void cua_trace_config_load(struct cua_trace_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			   int secure);

#endif
