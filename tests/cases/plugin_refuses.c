/* SPDX-License-Identifier: MIT */
/* tests/cases/plugin_refuses.c: a plugin that registers every kind of callback (calls, GPU records, exit) and then refuses to start, so that cuaudit must drop them all before it unloads the plugin. */
#include <cuaudit/cuaudit.h>
#include <errno.h>
#include <unistd.h>

CUAUDIT_PLUGIN_INFO("refuses", "1.0");

static void say(const char *s, size_t n)
{
	if (write(2, s, n) < 0)
		return;
}

static int on_enter(struct cuaudit_call *c, void *ctx)
{
	(void)c;
	(void)ctx;
	say("refuses: call seen\n", 19);
	return CUAUDIT_CALL_REAL;
}

static void on_record(const struct cuaudit_gpu_record *r, void *ctx)
{
	(void)r;
	(void)ctx;
	say("refuses: gpu record seen\n", 25);
}

static void on_exit_fn(void *ctx)
{
	(void)ctx;
	say("refuses: at_exit ran\n", 21);
}

CUAUDIT_API int cuaudit_plugin_init(const struct cuaudit_host *host)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = on_enter);
	CUAUDIT_OPTS(cuaudit_gpu_subscription, gsub, .fn = on_record);

	if (host->subscribe(&sub) != 0 || host->at_exit(on_exit_fn, NULL) != 0 ||
	    host->gpu_subscribe(&gsub) != 0)
		say("refuses: a registration failed\n", 31);
	return -EINVAL;
}
