/* SPDX-License-Identifier: MIT */
/* examples/plugin/bytes_per_stream.c: a cuaudit plugin that sums the bytes every memory copy moves, per stream, and reports them at exit. */
#include <cuaudit/cuaudit.h>
#include <cuaudit/cuaudit_roles.h>
#include <stdint.h>

/* No CUDA function is named here: the subscription asks for the role "copy" and
   cuaudit_call_copy reads bytes and stream from whichever copy it is (driver or runtime,
   1D/2D/3D, peer, batch, sync or async), so a new toolkit's copies are counted too. No
   cuaudit_ids.h either: the plugin loads into any cuaudit 1.2 or later. */
CUAUDIT_PLUGIN_INFO("bytes_per_stream", "1.0");

/* Callbacks run on the application's threads: no printf, no malloc. The table is filled
   with atomic operations, so any number of threads may copy at once. */
#define MAX_STREAMS 64

static struct {
	uintptr_t stream; /* as passed: 0 is the flavour's default stream */
	int flavour;      /* CUAUDIT_STREAM_LEGACY or _PER_THREAD */
	int used;         /* 0 free, 1 being claimed, 2 ready */
	uint64_t bytes, copies;
} streams[MAX_STREAMS];
static uint64_t lost; /* copies on streams past MAX_STREAMS */
static const struct cuaudit_host *host;

static void add(uintptr_t stream, int flavour, uint64_t bytes)
{
	for (unsigned i = 0; i < MAX_STREAMS; i++) {
		int used = __atomic_load_n(&streams[i].used, __ATOMIC_ACQUIRE);

		if (used == 0) {
			int expect = 0;

			if (!__atomic_compare_exchange_n(&streams[i].used, &expect, 1, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				i--; /* someone claimed it: look again */
				continue;
			}
			streams[i].stream = stream;
			streams[i].flavour = flavour;
			__atomic_store_n(&streams[i].used, 2, __ATOMIC_RELEASE);
			used = 2;
		}
		while (used == 1)
			used = __atomic_load_n(&streams[i].used, __ATOMIC_ACQUIRE);
		if (streams[i].stream == stream && streams[i].flavour == flavour) {
			__atomic_add_fetch(&streams[i].bytes, bytes, __ATOMIC_RELAXED);
			__atomic_add_fetch(&streams[i].copies, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
}

static void on_exit_call(const struct cuaudit_call *c, void *ctx)
{
	CUAUDIT_OPTS(cuaudit_copy, copy);

	(void)ctx;
	/* What the application copied: a runtime copy's driver copy inside (depth 1) is the
	   same bytes. Only copies that succeeded moved anything. */
	if (c->depth != 0 || c->skipped || (int)c->result != 0)
		return;
	if (cuaudit_call_copy(c, &copy) == 0)
		add((uintptr_t)copy.stream, copy.stream_flavour, copy.bytes);
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

static void line(const char *what, uintptr_t stream, int flavour, uint64_t bytes, uint64_t copies)
{
	char text[128], *p = text;

	p = put_str(p, what);
	if (what[0] == 's') {
		p = put_hex(p, stream);
		if (flavour == CUAUDIT_STREAM_PER_THREAD)
			p = put_str(p, " (per-thread)");
	}
	p = put_str(p, ": ");
	p = put_dec(p, bytes);
	p = put_str(p, " bytes in ");
	p = put_dec(p, copies);
	p = put_str(p, copies == 1 ? " copy" : " copies");
	*p = '\0';
	host->plugin_log(host->plugin, CUAUDIT_LEVEL_INFO, text);
}

static void report(void *ctx)
{
	uint64_t bytes = 0, copies = 0;

	(void)ctx;
	for (unsigned i = 0; i < MAX_STREAMS; i++) {
		if (__atomic_load_n(&streams[i].used, __ATOMIC_ACQUIRE) != 2)
			continue;
		line("stream ", streams[i].stream, streams[i].flavour, streams[i].bytes,
		     streams[i].copies);
		bytes += streams[i].bytes;
		copies += streams[i].copies;
	}
	line("total", 0, 0, bytes, copies);
	if (__atomic_load_n(&lost, __ATOMIC_RELAXED))
		host->plugin_log(host->plugin, CUAUDIT_LEVEL_WARN,
				 "more than 64 streams: some copies are not counted");
}

CUAUDIT_API int cuaudit_plugin_init(const struct cuaudit_host *h)
{
	/* Every copy, and nothing else: the other functions keep their direct entries. No
	   times asked (flags 0): a copy costs no clock read. */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = on_exit_call,
		     .roles = CUAUDIT_ROLE_BIT(CUAUDIT_ROLE_COPY));

	/* Roles came with 1.2; an older host would refuse the subscription anyway. */
	if (h->size < sizeof(*h) || h->version_major != CUAUDIT_VERSION_MAJOR ||
	    h->version_minor < 2)
		return -1;
	host = h;
	if (h->subscribe(&sub) != 0 || h->at_exit(report, NULL) != 0)
		return -1;
	return 0;
}
