/* SPDX-License-Identifier: MIT */
/* examples/plugin/launch_counter.c: a cuaudit plugin that counts kernel launches per stream and reports them at exit. */
#include <cuaudit/cuaudit.h>
#include <cuaudit/cuaudit_roles.h>
#include <stdint.h>

/* No CUDA function is named here and no cuaudit_ids.h is included: the subscription asks
   for the role "launch" (driver, runtime, cooperative, Ex and nvcc's <<<>>> entry points)
   and cuaudit_call_stream reads the stream of whichever it is, so the plugin loads into any
   cuaudit 1.2 or later, whatever toolkit that was built from. */
CUAUDIT_PLUGIN_INFO("launch_counter", "1.2");

/* Callbacks run on the application's threads: no printf here (see the README). The table is
   filled with atomic operations, so any number of threads may launch at once. */
#define MAX_STREAMS 64

static struct {
	uintptr_t stream; /* 0 is the legacy default stream; slots are claimed once */
	int used;
	uint64_t launches;
} streams[MAX_STREAMS];
static const struct cuaudit_host *host;

static void count(uintptr_t stream)
{
	for (unsigned i = 0; i < MAX_STREAMS; i++) {
		int used = __atomic_load_n(&streams[i].used, __ATOMIC_ACQUIRE);

		if (used == 2 && streams[i].stream == stream) {
			__atomic_add_fetch(&streams[i].launches, 1, __ATOMIC_RELAXED);
			return;
		}
		if (used == 0) {
			int expect = 0;

			if (!__atomic_compare_exchange_n(&streams[i].used, &expect, 1, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				i--; /* someone claimed it: look again */
				continue;
			}
			streams[i].stream = stream;
			__atomic_store_n(&streams[i].used, 2, __ATOMIC_RELEASE);
			__atomic_add_fetch(&streams[i].launches, 1, __ATOMIC_RELAXED);
			return;
		}
		while (used == 1)
			used = __atomic_load_n(&streams[i].used, __ATOMIC_ACQUIRE);
		if (streams[i].stream == stream) {
			__atomic_add_fetch(&streams[i].launches, 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

static void on_exit_call(const struct cuaudit_call *c, void *ctx)
{
	void *stream;

	(void)ctx;
	/* Count what the application launched, not the driver launch inside a runtime one. */
	if (c->depth == 0 && (int)c->result == 0 && !c->skipped &&
	    cuaudit_call_stream(c, &stream, NULL) == 0)
		count((uintptr_t)stream);
}

static char *put_hex(char *p, uintptr_t v)
{
	char tmp[16];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
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
	(void)ctx;
	for (unsigned i = 0; i < MAX_STREAMS; i++) {
		char line[96], *p = line;

		if (__atomic_load_n(&streams[i].used, __ATOMIC_ACQUIRE) != 2)
			continue;
		p = put_str(p, "stream ");
		p = put_hex(p, streams[i].stream);
		p = put_str(p, ": ");
		p = put_dec(p, streams[i].launches);
		p = put_str(p, streams[i].launches == 1 ? " launch" : " launches");
		*p = '\0';
		host->plugin_log(host->plugin, CUAUDIT_LEVEL_INFO, line);
	}
}

CUAUDIT_API int cuaudit_plugin_init(const struct cuaudit_host *h)
{
	/* No times asked (flags 0): the launches cost no clock read. */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = on_exit_call,
		     .roles = CUAUDIT_ROLE_BIT(CUAUDIT_ROLE_LAUNCH));

	/* 1.1 added plugin_log, 1.2 roles; an older host has a shorter struct or refuses. */
	if (h->size < sizeof(*h) || h->version_major != CUAUDIT_VERSION_MAJOR ||
	    h->version_minor < 2)
		return -1;
	host = h;
	if (h->subscribe(&sub) != 0 || h->at_exit(report, NULL) != 0)
		return -1;
	return 0;
}
