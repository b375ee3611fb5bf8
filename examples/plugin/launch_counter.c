/* SPDX-License-Identifier: MIT */
/* examples/plugin/launch_counter.c: a cuaudit plugin that counts kernel launches per stream and reports them at exit. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cuaudit/cuaudit.h>
#include <cuaudit/cuaudit_args.h>
#include <stdint.h>

/* No cuaudit_ids.h: the plugin names functions by ELF name and asks the host for their ids
   at init, so it loads into any cuaudit 1.x whatever toolkit that was built from. */
CUAUDIT_PLUGIN_INFO("launch_counter", "1.1");

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

/* The launch entry points, by ELF name, and the host's id of each, found at init. */
enum launch { L_CU, L_CU_PTSZ, L_CU_EX, L_CU_EX_PTSZ, L_RT, L_RT_PTSZ, L_NVCC, L_NVCC_PTSZ, L_COUNT };
static const char *const launch_names[L_COUNT] = {
	"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz",
	"cudaLaunchKernel", "cudaLaunchKernel_ptsz",
	/* What nvcc 13 emits for <<<...>>>. */
	"__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
};
static int launch_ids[L_COUNT];

/* The stream argument of each launch entry point, by its generated argument struct: a
   struct is named after its ELF name, whose prototype never changes. */
static uintptr_t stream_of(const struct cuaudit_call *c)
{
	int which = L_COUNT;

	for (int i = 0; i < L_COUNT; i++)
		if (launch_ids[i] == (int)c->id)
			which = i;
	switch (which) {
	case L_CU:
		return (uintptr_t)((const struct cuaudit_args_cuLaunchKernel *)c->args)->hStream;
	case L_CU_PTSZ:
		return (uintptr_t)((const struct cuaudit_args_cuLaunchKernel_ptsz *)c->args)->hStream;
	case L_CU_EX:
		return (uintptr_t)((const struct cuaudit_args_cuLaunchKernelEx *)c->args)->config->hStream;
	case L_CU_EX_PTSZ:
		return (uintptr_t)((const struct cuaudit_args_cuLaunchKernelEx_ptsz *)c->args)->config->hStream;
	case L_RT:
		return (uintptr_t)((const struct cuaudit_args_cudaLaunchKernel *)c->args)->stream;
	case L_RT_PTSZ:
		return (uintptr_t)((const struct cuaudit_args_cudaLaunchKernel_ptsz *)c->args)->stream;
	case L_NVCC:
		return (uintptr_t)((const struct cuaudit_args___cudaLaunchKernel *)c->args)->stream;
	case L_NVCC_PTSZ:
		return (uintptr_t)((const struct cuaudit_args___cudaLaunchKernel_ptsz *)c->args)->stream;
	default:
		return UINTPTR_MAX;
	}
}

static void on_exit_call(const struct cuaudit_call *c, void *ctx)
{
	(void)ctx;
	/* Count what the application launched, not the driver launch inside a runtime one. */
	if (c->depth == 0 && (int)c->result == 0 && !c->skipped)
		count(stream_of(c));
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
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = on_exit_call, .elf_names = launch_names,
		     .nnames = L_COUNT);

	/* 1.1 added plugin_log; an older host has a shorter struct. */
	if (h->size < sizeof(*h) || h->version_major != CUAUDIT_VERSION_MAJOR)
		return -1;
	host = h;
	for (int i = 0; i < L_COUNT; i++)
		launch_ids[i] = h->api_id(launch_names[i]);
	if (h->subscribe(&sub) != 0 || h->at_exit(report, NULL) != 0)
		return -1;
	return 0;
}
