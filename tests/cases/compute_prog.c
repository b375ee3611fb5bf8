/* SPDX-License-Identifier: MIT */
/* tests/cases/compute_prog.c: a GPU-bound loop on the mock for the compute share: each launch is followed by a wait as long as its mock GPU time, as a synchronising program on a real GPU waits. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits until the mock GPU's stream has run what was put on it (its clock is
   CLOCK_MONOTONIC): the work "runs" from its start for its duration. */
static void until(uint64_t t)
{
	while (now_ns() < t) {
		struct timespec ts = { 0, 200000 };

		nanosleep(&ts, NULL);
	}
}

/* usage: compute_prog SECONDS MS [kernel|graph|memset|aftersync [IDLE_MS]]: for SECONDS, one
   piece of work of MS ms of mock GPU time at a time; with IDLE_MS, after each piece has run, a
   cuStreamSynchronize and IDLE_MS ms without a launch. aftersync: each piece is a 1 ms
   kernel, waited for, a cuStreamSynchronize, then at once the MS ms kernel, and IDLE_MS ms
   without a launch or a synchronise (the MS ms run meanwhile). Prints how many ran, the
   longest launch call and how many calls took over 60 ms. The device: COMPUTE_DEVICE. */
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	unsigned ms = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
	const char *kind = argc > 3 ? argv[3] : "kernel";
	unsigned idle_ms = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	CUcontext ctx;
	CUdevice d;
	CUfunction f;
	CUdeviceptr dev;
	CUstream s;
	CUgraphExec ex = NULL;
	uint64_t end, longest = 0, n = 0, over60 = 0, gpu_end = 0, work_ns;
	int count = 64;
	void *params[] = { &dev, &count };

	CHECK(cuInit(0) == CUDA_SUCCESS);
	/* COMPUTE_DEVICE: the ordinal to run on (0 by default; the mock has 2 with
	   MOCK_DEVICE_COUNT=2). */
	CHECK(cuDeviceGet(&d, getenv("COMPUTE_DEVICE") ? atoi(getenv("COMPUTE_DEVICE")) : 0) ==
	      CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	CHECK(cuModuleGetFunction(&f, NULL, "_Z7add_onePii") == CUDA_SUCCESS);
	CHECK(cuMemAlloc_v2(&dev, 8192) == CUDA_SUCCESS);
	/* A blocking stream: the mock's late stamps (MOCK_LATE_ANCHOR_NS) are for cuaudit's own. */
	CHECK(cuStreamCreate(&s, 0) == CUDA_SUCCESS);
	if (strcmp(kind, "graph") == 0) {
		CUgraph g;

		/* The mock runs a graph launch as 5 ms of GPU time. */
		CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
		CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, s, params, NULL) == CUDA_SUCCESS);
		CHECK(cuStreamEndCapture(s, &g) == CUDA_SUCCESS);
		CHECK(cuGraphInstantiateWithFlags(&ex, g, 0) == CUDA_SUCCESS);
		ms = 5;
	}
	/* The mock's durations: a grid of N blocks N ms, a memset 5 ms + 50 ns a byte. */
	work_ns = strcmp(kind, "memset") == 0 ? 5000000ull + 50 * 4096 : (uint64_t)ms * 1000000ull;
	end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		uint64_t t0 = now_ns(), t1;
		CUresult r;

		if (strcmp(kind, "aftersync") == 0) {
			CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, s, params, NULL) == CUDA_SUCCESS);
			until(now_ns() + 1000000ull);
			CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
			t0 = now_ns();
			r = cuLaunchKernel(f, ms, 1, 1, 64, 1, 1, 0, s, params, NULL);
			t1 = now_ns();
			CHECK(r == CUDA_SUCCESS);
			if (t1 - t0 > longest)
				longest = t1 - t0;
			over60 += t1 - t0 > 60000000ull;
			n++;
			until(t1 + (uint64_t)idle_ms * 1000000ull);
			continue;
		}
		if (ex)
			r = cuGraphLaunch(ex, s);
		else if (strcmp(kind, "memset") == 0)
			r = cuMemsetD8Async(dev, 0, 4096, s);
		else
			r = cuLaunchKernel(f, ms, 1, 1, 64, 1, 1, 0, s, params, NULL);
		t1 = now_ns();
		CHECK(r == CUDA_SUCCESS);
		if (t1 - t0 > longest)
			longest = t1 - t0;
		over60 += t1 - t0 > 60000000ull;
		n++;
		/* The stream's work ends at most ms after the launch returned, or after the last. */
		gpu_end = (gpu_end > t0 ? gpu_end : t0) + work_ns;
		until(gpu_end);
		if (idle_ms) {
			CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
			until(now_ns() + (uint64_t)idle_ms * 1000000ull);
		}
	}
	printf("launches %llu\n", (unsigned long long)n);
	printf("longest_call_ms %.3f\n", (double)longest / 1e6);
	printf("calls_over_60ms %llu\n", (unsigned long long)over60);
	fflush(stdout);
	return 0;
}
