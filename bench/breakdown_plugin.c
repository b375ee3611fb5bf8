/* SPDX-License-Identifier: MIT */
/* bench/breakdown_plugin.c: an empty subscriber on every function, so bench/run.sh can split a call's cost into entry, dispatch and clock reads. */
#include <cuaudit.h>

CUAUDIT_PLUGIN_INFO(BREAKDOWN_NAME, "1");

/* One store the compiler must keep: the callback itself is the cost being measured. */
static void on_exit_call(const struct cuaudit_call *call, void *ctx)
{
	(void)call;
	*(volatile unsigned *)ctx = 1;
}

static unsigned sink;

CUAUDIT_API int cuaudit_plugin_init(const struct cuaudit_host *host)
{
#ifdef BREAKDOWN_TIMED
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = on_exit_call, .ctx = &sink,
		     .flags = CUAUDIT_SUB_TIMES);
#else
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = on_exit_call, .ctx = &sink);
#endif
	return host->subscribe(&sub);
}
