/* SPDX-License-Identifier: MIT */
/* tests/cases/gpu_plugin.c: a plugin that receives completed GPU records (host->gpu_subscribe) and writes its totals to stderr at exit. */
#include <cuaudit/cuaudit.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

CUAUDIT_PLUGIN_INFO("gpu_records", "1.0");

static uint64_t kernels, kernel_min_ns, kernel_max_ns, copies, bytes, graphs, synthetic, bad;

static void on_record(const struct cuaudit_gpu_record *r, void *ctx)
{
	(void)ctx;
	/* Bounds in order: earliest start, latest start, end; one start where exact. */
	if (r->size < sizeof(*r) || r->start_max_ns < r->start_ns || r->end_ns < r->start_max_ns ||
	    (r->exact && r->start_ns != r->start_max_ns) || !r->correlation_id)
		bad++;
	synthetic += r->synthetic != 0;
	if (r->op == CUAUDIT_GPU_KERNEL) {
		kernels++;
		kernel_min_ns += r->end_ns - r->start_max_ns;
		kernel_max_ns += r->end_ns - r->start_ns;
		if (!r->name || strcmp(r->name, "_Z7add_onePii") != 0)
			bad++;
	} else if (r->op == CUAUDIT_GPU_GRAPH) {
		graphs++;
	} else {
		copies++;
		bytes += r->bytes;
	}
}

static void put(char *b, size_t *n, const char *s)
{
	while (*s)
		b[(*n)++] = *s++;
}

static void put_u64(char *b, size_t *n, uint64_t v)
{
	char t[24];
	int i = 0;

	do
		t[i++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (i)
		b[(*n)++] = t[--i];
}

static void report(void *ctx)
{
	char b[256];
	size_t n = 0;

	(void)ctx;
	put(b, &n, "gpu_records: kernels ");
	put_u64(b, &n, kernels);
	/* The kernels' total lies between these, in microseconds (rounded outwards). */
	put(b, &n, " kernel_us ");
	put_u64(b, &n, kernel_min_ns / 1000);
	put(b, &n, "..");
	put_u64(b, &n, (kernel_max_ns + 999) / 1000);
	put(b, &n, " memory ");
	put_u64(b, &n, copies);
	put(b, &n, " bytes ");
	put_u64(b, &n, bytes);
	put(b, &n, " graphs ");
	put_u64(b, &n, graphs);
	put(b, &n, " synthetic ");
	put_u64(b, &n, synthetic);
	put(b, &n, " bad ");
	put_u64(b, &n, bad);
	put(b, &n, "\n");
	if (write(2, b, n) < 0)
		return;
}

CUAUDIT_API int cuaudit_plugin_init(const struct cuaudit_host *host)
{
	CUAUDIT_OPTS(cuaudit_gpu_subscription, sub, .fn = on_record);
	int r;

	/* A host older than 1.3 has no gpu_subscribe. */
	if (host->size < offsetof(struct cuaudit_host, gpu_subscribe) + sizeof(host->gpu_subscribe))
		return -ENOTSUP;
	r = host->gpu_subscribe(&sub);
	if (r == -ENOTSUP)
		return write(2, "gpu_records: GPU timing is off\n", 31) < 0 ? r : r;
	if (r)
		return r;
	return host->at_exit(report, NULL);
}
