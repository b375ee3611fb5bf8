/* SPDX-License-Identifier: MIT */
/* tests/gpu/cupti_busy.c: a CUPTI injection library (CUDA_INJECTION64_PATH) that measures, from
 * outside cuaudit, how long the GPU ran this process's kernels. The driver loads it at cuInit and
 * calls InitializeInjection; CUPTI's activity records give each kernel's start and end on the
 * GPU. The busy time is summed into 10 ms buckets of CLOCK_REALTIME, written at exit to
 * $CUPTI_BUSY_DIR/PID.busy: a head line "base_realtime_ns bucket_ns kernels dropped status", then
 * "BUCKET BUSY_NS" for each bucket with work. scripts/gpu-check-share.sh divides a window's busy
 * time by its length: the process's share of the GPU, known to the GPU, not to cuaudit.
 * Kernels of one process are counted as a union in arrival order: an interval's part before the
 * end of the last one counted is dropped, which is exact for one stream (the check's workers use
 * one) and an undercount of overlap otherwise. A test tool: it runs at exit, not on a hot path. */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { BUF_BYTES = 8 << 20, BUCKETS = 200000 }; /* 10 ms buckets: 2000 s */
static const uint64_t BUCKET_NS = 10000000ull;

static uint64_t busy[BUCKETS];
static uint64_t base_cupti, base_real, last_end, kernels;
static size_t dropped;
static const char *status = "ok";

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void add(uint64_t start, uint64_t end)
{
	if (start < last_end)
		start = last_end;
	if (start < base_cupti)
		start = base_cupti;
	if (end <= start)
		return;
	last_end = end;
	kernels++;
	while (start < end) {
		uint64_t b = (start - base_cupti) / BUCKET_NS;
		uint64_t edge = base_cupti + (b + 1) * BUCKET_NS;
		uint64_t stop = end < edge ? end : edge;
		if (b >= BUCKETS)
			return;
		busy[b] += stop - start;
		start = stop;
	}
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_BYTES);
	*size = *buffer ? BUF_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			       size_t valid)
{
	CUpti_Activity *r = NULL;
	size_t lost = 0;
	(void)size;
	while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
		if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
		    r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
			const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
			add(k->start, k->end);
		}
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &lost) == CUPTI_SUCCESS)
		dropped += lost;
	free(buffer);
}

static void dump(void)
{
	const char *dir = getenv("CUPTI_BUSY_DIR");
	char path[4096];
	FILE *f;
	if (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != CUPTI_SUCCESS)
		status = "flush-failed";
	if (!dir)
		return;
	snprintf(path, sizeof path, "%s/%d.busy", dir, (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%llu %llu %llu %zu %s\n", (unsigned long long)base_real,
		(unsigned long long)BUCKET_NS, (unsigned long long)kernels, dropped, status);
	for (size_t b = 0; b < BUCKETS; b++)
		if (busy[b])
			fprintf(f, "%zu %llu\n", b, (unsigned long long)busy[b]);
	if (fclose(f) != 0)
		fprintf(stderr, "cupti_busy: writing %s failed\n", path);
}

/* Called by the driver at cuInit. It returns 1 even when CUPTI refuses, so that the check's
 * worker runs on: the file then says why it has no kernels. */
int InitializeInjection(void)
{
	uint64_t before = realtime_ns(), after;
	if (cuptiGetTimestamp(&base_cupti) != CUPTI_SUCCESS)
		status = "no-timestamp";
	after = realtime_ns();
	base_real = before + (after - before) / 2;
	if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS)
		status = "register-failed";
	else if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
		status = "enable-failed";
	cuptiActivityFlushPeriod(500);
	atexit(dump);
	return 1;
}
