/* SPDX-License-Identifier: MIT */
/* hooks/log.c: the verbose log hook: one line per intercepted call (all calls, or the failed ones). */
#include <time.h>
#include "callfmt.h"
#include "config.h"
#include "dispatch.h"
#include "log.h"
#include "out.h"
#include "process.h"
#include "table.h"

static int is_error(const struct cuaudit_call *c)
{
	unsigned ret = cua_api[c->id].ret;

	return (ret == CUA_RET_CURESULT || ret == CUA_RET_CUDAERROR) && (int)c->result != 0;
}

static void log_exit(const struct cuaudit_call *c, void *ctx)
{
	char line[4096];
	struct timespec ts;

	(void)ctx;
	if (cua_cfg.log_errors && !is_error(c))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	size_t n = cua_callfmt_call(line, sizeof(line), c, cua_process_id(),
				       (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	cua_out_log(line, n);
}

void cua_log_init(void)
{
	static unsigned ids[CUAUDIT_ID_COUNT];
	/* CUAUDIT_INCLUDE/EXCLUDE: the log covers only the ids they leave. */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = log_exit, .ids = ids,
		     .nids = cua_config_filter_ids(&cua_cfg, ids), .flags = CUAUDIT_SUB_TIMES);

	if (cua_log_on(CUA_LOG_VERBOSE) || cua_cfg.log_errors)
		cua_dispatch_subscribe(&sub);
}
