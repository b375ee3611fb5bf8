/* SPDX-License-Identifier: MIT */
/* tests/cases/spin_plugin.c: a plugin whose callbacks busy-wait, so that a call's time that took in other hooks' work shows it. */
#include <cuaudit/cuaudit.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

CUAUDIT_PLUGIN_INFO("spin", "1");

/* SPIN_PLUGIN_NS: each enter and each exit callback waits this long (default 2 ms). */
static long long wait_ns = 2000000;

static void spin(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < wait_ns);
}

static int on_enter(struct cuaudit_call *c, void *ctx)
{
	(void)c, (void)ctx;
	spin();
	return CUAUDIT_CALL_REAL;
}

static void on_exit_call(const struct cuaudit_call *c, void *ctx)
{
	(void)c, (void)ctx;
	spin();
}

CUAUDIT_API int cuaudit_plugin_init(const struct cuaudit_host *h)
{
	/* Only the functions the truth cases time: the others stay fast. */
	static const char *const names[] = { "cuStreamSynchronize", "cuLaunchKernel", "cudaDeviceSynchronize",
					     "cudaLaunchKernel" };
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = on_enter, .exit = on_exit_call,
		     .elf_names = names, .nnames = 4);
	const char *v = getenv("SPIN_PLUGIN_NS");

	if (v)
		wait_ns = atoll(v);
	return h->subscribe(&sub);
}
