/* SPDX-License-Identifier: MIT */
/* tests/cases/gpu_time.c: GPU work of known mock durations on every stream form, a capture, a graph, two contexts, a fork and a queue, for CUAUDIT_GPU_TIME. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "mockstate.h"

CUresult cuMockGraphDescribe(CUgraph graph, const char **desc);
CUresult cuMockKernelUnitNs(unsigned long long ns);
CUresult cuMockStreamEnd(CUstream stream, unsigned long long *end);
CUresult cuMockDelayNextRecordUs(long us);

static CUfunction add_one;
static CUdeviceptr dev;

static void launch(CUstream s, unsigned grid, int per_thread)
{
	int n = 64;
	void *params[] = { &dev, &n };
	CUresult r = per_thread ? cuLaunchKernel_ptsz(add_one, grid, 1, 1, 64, 1, 1, 0, s, params, NULL)
				: cuLaunchKernel(add_one, grid, 1, 1, 64, 1, 1, 0, s, params, NULL);

	if (r != CUDA_SUCCESS)
		printf("launch of %u blocks failed: %d\n", grid, (int)r);
}

/* Legacy stream: 4 x 3 us and 2 x 5 us of add_one; per-thread: 3 x 2 us; a created stream:
   a 1000-byte memset, 4096-byte copies both ways; a synchronous 2048-byte copy. */
static void work(void)
{
	CUstream s;
	int host[1024] = { 0 };

	for (int i = 0; i < 4; i++)
		launch(NULL, 3, 0);
	launch(CU_STREAM_LEGACY, 5, 0);
	launch(NULL, 5, 0);
	for (int i = 0; i < 3; i++)
		launch(NULL, 2, 1);
	CHECK(cuStreamCreate(&s, 0) == CUDA_SUCCESS);
	CHECK(cuMemsetD8Async(dev, 0, 1000, s) == CUDA_SUCCESS);
	CHECK(cuMemcpyHtoDAsync_v2(dev, host, 4096, s) == CUDA_SUCCESS);
	CHECK(cuMemcpyDtoHAsync_v2(host, dev, 4096, s) == CUDA_SUCCESS);
	CHECK(cuMemcpyHtoD_v2(dev, host, 2048) == CUDA_SUCCESS);
	CHECK(cuStreamDestroy_v2(s) == CUDA_SUCCESS);
}

/* Captures a launch, prints the graph, launches it twice (5 us each). */
static void capture(void)
{
	CUstream s;
	CUgraph g;
	CUgraphExec ex;
	const char *desc = "";

	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
	SHOW(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	launch(s, 4, 0);
	/* Meanwhile the program's other work goes on, on the legacy stream. */
	SHOW(cuMemsetD8Async(dev, 1, 64, s));
	SHOW(cuStreamEndCapture(s, &g));
	CHECK(g && cuMockGraphDescribe(g, &desc) == CUDA_SUCCESS);
	printf("captured graph: %s\n", desc);
	SHOW(cuGraphInstantiateWithFlags(&ex, g, 0));
	SHOW(cuGraphLaunch(ex, s));
	SHOW(cuGraphLaunch(ex, s));
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* 20 times on a created stream: a 1 ms kernel, then, once it is within lead_us of its end
   (the mock GPU's clock), a 2 us kernel queued behind it. The short kernel's end event is
   stamped less than lead_us + 2 us after its record: only stream order can prove it exact.
   With delay_us, the next event record after each short launch (the tool's end event) is
   delayed that long: the stream has gone idle by then, and the event is stamped late. */
static void queued(long lead_us, long delay_us)
{
	unsigned long long end;
	CUstream s;

	CHECK(cuStreamCreate(&s, 0) == CUDA_SUCCESS);
	for (int i = 0; i < 20; i++) {
		launch(s, 1, 0);
		CHECK(cuMockStreamEnd(s, &end) == CUDA_SUCCESS);
		while (mono_ns() + (unsigned long long)lead_us * 1000 < end)
			;
		cuMockKernelUnitNs(1000);
		cuMockDelayNextRecordUs(delay_us);
		launch(s, 2, 0);
		cuMockDelayNextRecordUs(0);
		cuMockKernelUnitNs(1000000);
	}
	CHECK(cuStreamDestroy_v2(s) == CUDA_SUCCESS);
}

/* live READY: 12 launches of 1, 2 and 3 ms on the legacy stream, a wait until the stream
   has run them, then 8 launches of 1 ms (the 16th timed call harvests the first 12, which
   have ended); then READY is made and the program waits, at most a minute, until it is
   removed: the live view is read meanwhile. */
static void live(const char *ready)
{
	unsigned long long end;
	FILE *f;

	for (int i = 0; i < 12; i++)
		launch(NULL, 1 + i % 3, 0);
	CHECK(cuMockStreamEnd(NULL, &end) == CUDA_SUCCESS);
	while (mono_ns() < end + 1000000)
		;
	for (int i = 0; i < 8; i++)
		launch(NULL, 1, 0);
	CHECK((f = fopen(ready, "w")) != NULL);
	fclose(f);
	for (int i = 0; i < 6000 && access(ready, F_OK) == 0; i++) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	CUcontext ctx, second;
	CUdevice d;
	CUmodule mod = NULL;

	CHECK(cuInit(0) == CUDA_SUCCESS);
	CHECK(cuDeviceGet(&d, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	CHECK(cuModuleGetFunction(&add_one, mod, "_Z7add_onePii") == CUDA_SUCCESS);
	CHECK(cuMemAlloc_v2(&dev, 8192) == CUDA_SUCCESS);
	errno = 0;
	if (strcmp(mode, "all") == 0 || strcmp(mode, "work") == 0)
		work();
	if (strcmp(mode, "all") == 0 || strcmp(mode, "capture") == 0)
		capture();
	if (strcmp(mode, "all") == 0 || strcmp(mode, "contexts") == 0) {
		/* A second context: 6 us on its legacy stream. */
		CHECK(cuCtxCreate_v4(&second, NULL, 0, d) == CUDA_SUCCESS);
		CHECK(cuCtxSetCurrent(second) == CUDA_SUCCESS);
		launch(NULL, 6, 0);
		CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	}
	if (strcmp(mode, "fork") == 0) {
		pid_t pid;
		int st;

		launch(NULL, 7, 0);
		pid = fork();
		if (pid == 0) {
			launch(NULL, 9, 0);
			exit(0);
		}
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	if (strcmp(mode, "pending") == 0)
		for (int i = 0; i < 10; i++)
			launch(NULL, 3, 0);
	if (strcmp(mode, "slowharvest") == 0) {
		struct timespec gap = { 0, 60000000 }, idle = { 0, 8000000 };

		/* 7 x 1 ms; after 60 ms the 8th call both harvests them (slowly, with
		   MOCK_ELAPSED_SLEEP_MS) and records an anchor; then 5 x 3 ms, each on an idle
		   stream, timed from that anchor. */
		for (int i = 0; i < 7; i++)
			launch(NULL, 1, 0);
		nanosleep(&gap, NULL);
		launch(NULL, 1, 0);
		for (int i = 0; i < 5; i++) {
			nanosleep(&idle, NULL);
			launch(NULL, 3, 0);
		}
	}
	if (strcmp(mode, "queued") == 0)
		queued(argc > 2 ? atol(argv[2]) : 15, argc > 3 ? atol(argv[3]) : 0);
	if (strcmp(mode, "live") == 0 && argc > 2)
		live(argv[2]);
	if (strcmp(mode, "many") == 0)
		for (int i = 0; i < 2000; i++)
			launch(NULL, 1, 0);
	/* The program's errno is its own: cuaudit's event calls leave it alone. */
	printf("errno %d\n", errno);
	printf("data[0] %d\n", *(int *)(uintptr_t)dev);
	/* On stderr: cuaudit's own event records are counted too. */
	fprintf(stderr, "mock event records %ld\n", mock_calls("cuEventRecord"));
	return 0;
}
