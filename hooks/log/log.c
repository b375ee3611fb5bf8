/* SPDX-License-Identifier: MIT */
/* hooks/log/log.c: the verbose log hook: one line per intercepted call (all calls, or the failed ones). */
#include <time.h>
#include "callfmt.h"
#include "configs.h"
#include "config.h"
#include "dispatch.h"
#include "hooks.h"
#include "log.h"
#include "nvtx.h"
#include "out.h"
#include "process.h"
#include "table.h"

/* This hook's slice of the configuration: CUAUDIT_LOG=errors. */
static int errors_only;
static int on_demand;
static int nvtx_capture;

static void log_exit(const struct cuaudit_call *c, void *ctx)
{
	char line[4096];
	struct timespec ts;

	(void)ctx;
	if (errors_only && !cua_failed(c->id, (int)c->result))
		return;
	/* CUAUDIT_CAPTURE=ctl: only while `cuaudit ctl PID log start` has it on. */
	if (CUA_UNLIKELY(on_demand) && !(cua_live_ctl() & CUA_LIVE_CTL_LOG))
		return;
	/* CUAUDIT_CAPTURE=nvtx:NAME: inside that range on this thread. */
	if (CUA_UNLIKELY(nvtx_capture) && !cua_nvtx_capturing())
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	size_t n = cua_callfmt_call(line, sizeof(line), c, cua_process_id(),
				       (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	cua_out_log(line, n);
}

void cua_log_init(const struct cua_config *all)
{
	static unsigned ids[CUAUDIT_ID_COUNT];
	/* CUAUDIT_INCLUDE/EXCLUDE: the log covers only the ids they leave. */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = log_exit, .ids = ids,
		     .nids = cua_config_filter_ids(all, ids), .flags = CUAUDIT_SUB_TIMES);

	errors_only = all->log_errors;
	on_demand = all->capture == CUA_CAPTURE_CTL;
	nvtx_capture = all->capture == CUA_CAPTURE_NVTX;
	if (cua_log_on(CUA_LOG_VERBOSE) || errors_only)
		cua_dispatch_subscribe(&sub);
}

/* The registry's entry (hooks/registry.c). */
void cua_log_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)cfg;
	cua_log_init(all);
}
