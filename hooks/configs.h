/* SPDX-License-Identifier: MIT */
/* hooks/configs.h: every hook's own configuration, read together by la_version and by `cuaudit run`. */
#ifndef CUA_CONFIGS_H
#define CUA_CONFIGS_H

#include "config.h"
#include "compute_config.h"
#include "errcount_config.h"
#include "fault_config.h"
#include "gpu_config.h"
#include "memlimit_config.h"
#include "metrics_config.h"
#include "plugins_config.h"
#include "summary_config.h"
#include "trace_config.h"

/* One member per hook that has variables of its own; each member's type, parser and messages
   live with its hook (hooks/<hook>/<hook>_config.c). The core's struct cua_config keeps only what
   every hook shares. */
struct cua_hook_configs {
	struct cua_fault_config fault;
	struct cua_memlimit_config memlimit;
	struct cua_compute_config compute;
	struct cua_gpu_config gpu;
	struct cua_trace_config trace;
	struct cua_summary_config summary;
	struct cua_metrics_config metrics;
	struct cua_plugins_config plugins;
	struct cua_errcount_config errcount;
};

/* Reads every hook's variables through get, after cua_config_load filled core (its secure
   flag and shared fields). Each bad value: one message through diag, and that feature off. */
void cua_hook_configs_load(struct cua_hook_configs *h, const struct cua_config *core,
			   cua_getenv_fn get, cua_diag_fn diag);

#endif
