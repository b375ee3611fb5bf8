/* SPDX-License-Identifier: MIT */
/* tests/cases/perf_plugin.c: test plugins built against the generator fixture's id table, in the variants the ABI checks must accept or refuse. */
#include <cuda.h>
#include <cuaudit/cuaudit.h>
#include <cuaudit/cuaudit_args.h>
#include <stdint.h>
#ifdef USE_IDS
/* The fixture's ids: cuMemAlloc_v2 is 4 there and names another function in a real build. */
#include <cuaudit/cuaudit_ids.h>
#endif

#if defined(NO_INFO)
/* Built as a 1.0 plugin was: no cuaudit_plugin_info. */
#elif defined(OTHER_MAJOR)
CUAUDIT_API const struct cuaudit_plugin_info cuaudit_plugin_info = {
	sizeof(struct cuaudit_plugin_info), "other_major", "1", CUAUDIT_VERSION_MAJOR + 1, 0, 0, 0
};
#else
CUAUDIT_PLUGIN_INFO(PLUGIN_NAME, "1");
#endif

static const struct cuaudit_host *host;
static int alloc_id, current_id;
static uint64_t bytes, calls, timed;

static void on_exit_call(const struct cuaudit_call *c, void *ctx)
{
	(void)ctx;
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (c->t_enter_ns && c->t_exit_ns >= c->t_enter_ns)
		__atomic_add_fetch(&timed, 1, __ATOMIC_RELAXED);
	/* The argument struct of the fixture's cuMemAlloc_v2: the same prototype as CUDA's. */
	if ((int)c->id == alloc_id)
		__atomic_add_fetch(&bytes,
				   ((const struct cuaudit_args_cuMemAlloc_v2 *)c->args)->bytesize,
				   __ATOMIC_RELAXED);
}

static char *put_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static void report(void *ctx)
{
	char line[128], *p = line;

	(void)ctx;
	p = put_str(p, "bytes ");
	p = put_dec(p, bytes);
	p = put_str(p, " calls ");
	p = put_dec(p, calls);
	p = put_str(p, " timed ");
	p = put_dec(p, timed);
	*p = '\0';
	host->plugin_log(host->plugin, CUAUDIT_LEVEL_INFO, line);
}

CUAUDIT_API int cuaudit_plugin_init(const struct cuaudit_host *h)
{
#ifdef USE_IDS
	static const unsigned ids[] = { CUAUDIT_ID_cuMemAlloc_v2 };
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = on_exit_call, .ids = ids, .nids = 1);
#else
	static const char *const names[] = { "cuMemAlloc_v2", "cuCtxGetCurrent" };
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = on_exit_call, .elf_names = names,
		     .nnames = 2
#ifdef WANT_TIMES
		     , .flags = CUAUDIT_SUB_TIMES
#endif
	);
#endif

	if (h->size < sizeof(*h) || h->version_major != CUAUDIT_VERSION_MAJOR)
		return -1;
	host = h;
	alloc_id = h->api_id("cuMemAlloc_v2");
	current_id = h->api_id("cuCtxGetCurrent");
	if (h->subscribe(&sub) != 0 || h->at_exit(report, NULL) != 0)
		return -1;
	return 0;
}
