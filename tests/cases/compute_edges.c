/* SPDX-License-Identifier: MIT */
/* tests/cases/compute_edges.c: the compute share's edges on the mock: launches into a capturing stream while the group is over its cap, a thread jumped out of its hold, and what a synchronise asks of the driver. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "mockstate.h"

/* The mock's own: when a stream's queued work ends (CLOCK_MONOTONIC), and one block's time. */
CUresult cuMockStreamEnd(CUstream stream, unsigned long long *end);
CUresult cuMockKernelUnitNs(unsigned long long ns);

static CUfunction f;
static CUdeviceptr dev;
static int count = 64;
static void *params[] = { &dev, &count };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static CUresult launch(CUstream s, unsigned blocks)
{
	return cuLaunchKernel(f, blocks, 1, 1, 64, 1, 1, 0, s, params, NULL);
}

/* 600 ms of GPU work on s, waited out: a 30% cap's group is over it for the next 700 ms
   (the window is the last second). */
static void go_over(CUstream s)
{
	unsigned long long end;

	CHECK(launch(s, 600) == CUDA_SUCCESS);
	CHECK(cuMockStreamEnd(s, &end) == CUDA_SUCCESS);
	while (now_ns() < end)
		sleep_ns(1000000);
}

/* Over the cap, 50 launches into a capturing stream: each only adds a node to a graph. Then
   one plain launch, which the cap holds (the group was over: the captured ones were let go
   for being captured, not by luck). */
static void capture(CUstream s)
{
	CUstream cs;
	CUgraph g;
	uint64_t t0, t1, t2;
	CUresult r;

	CHECK(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
	go_over(s);
	CHECK(cuStreamBeginCapture_v2(cs, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
	t0 = now_ns();
	for (int i = 0; i < 50; i++)
		CHECK(launch(cs, 5) == CUDA_SUCCESS);
	t1 = now_ns();
	r = cuStreamEndCapture(cs, &g);
	printf("capture_end %d\n", (int)r);
	t2 = now_ns();
	CHECK(launch(s, 1) == CUDA_SUCCESS);
	printf("capture_total_ms %.3f\n", (double)(t1 - t0) / 1e6);
	printf("plain_after_ms %.3f\n", (double)(now_ns() - t2) / 1e6);
}

static __thread sigjmp_buf jump;
static volatile int in_launch, jumped;

static void on_usr1(int sig)
{
	(void)sig;
	jumped = 1;
	siglongjmp(jump, 1);
}

static void *held_thread(void *arg)
{
	CUstream s = arg;
	CUcontext ctx;

	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	go_over(s);
	if (sigsetjmp(jump, 1) == 0) {
		__atomic_store_n(&in_launch, 1, __ATOMIC_RELEASE);
		/* Held (the group is over its cap) until the signal jumps out of the hold. */
		launch(s, 1);
	}
	return NULL;
}

/* A thread jumped out of its hold (a signal handler's siglongjmp, as a cancelled thread
   leaves it too: without returning), then, once the group is under its cap again, 2000
   quick launches: how many took the slow path (each reads the current device once). */
static void cancel(CUstream s)
{
	struct sigaction sa;
	pthread_t t;
	long before, looks;
	uint64_t t0, t1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(pthread_create(&t, NULL, held_thread, s) == 0);
	while (!__atomic_load_n(&in_launch, __ATOMIC_ACQUIRE))
		sleep_ns(1000000);
	sleep_ns(100000000);
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	printf("jumped %d\n", jumped);
	/* The window forgets the 600 ms: the group is far under its cap. */
	sleep_ns(1500000000);
	CHECK(cuMockKernelUnitNs(1000) == CUDA_SUCCESS);
	before = mock_calls("cuCtxGetDevice");
	t0 = now_ns();
	for (int i = 0; i < 2000; i++)
		CHECK(launch(s, 1) == CUDA_SUCCESS);
	t1 = now_ns();
	looks = mock_calls("cuCtxGetDevice") - before;
	printf("looks %ld\n", looks);
	printf("launches_ms %.3f\n", (double)(t1 - t0) / 1e6);
}

/* The mock's event calls so far, by anyone in the process: GPU timing's poll asks these
   (an elapsed time per finished record, a query for an anchor), the program none. */
static long event_calls(void)
{
	return mock_calls("cuEventQuery") + mock_calls("cuEventElapsedTime") +
	       mock_calls("cuEventElapsedTime_v2");
}

/* For secs seconds: a 1 ms kernel, waited out, then a stream synchronise; how many
   synchronises made an event call of cuaudit's inside them (a poll of GPU timing that found
   the kernel's record to harvest). */
static void syncs(CUstream s, double secs)
{
	uint64_t stop = now_ns() + (uint64_t)(secs * 1e9);
	long n = 0, polled = 0;

	while (now_ns() < stop) {
		unsigned long long end;
		long before;

		CHECK(launch(s, 1) == CUDA_SUCCESS);
		CHECK(cuMockStreamEnd(s, &end) == CUDA_SUCCESS);
		while (now_ns() < end)
			sleep_ns(200000);
		before = event_calls();
		CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
		polled += event_calls() > before;
		n++;
	}
	printf("syncs %ld\n", n);
	printf("polled %ld\n", polled);
}

/* usage: compute_edges capture|cancel|syncs [SECONDS] */
int main(int argc, char **argv)
{
	CUcontext ctx;
	CUdevice d;
	CUstream s;

	CHECK(argc > 1);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	CHECK(cuDeviceGet(&d, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	CHECK(cuModuleGetFunction(&f, NULL, "_Z7add_onePii") == CUDA_SUCCESS);
	CHECK(cuMemAlloc_v2(&dev, 8192) == CUDA_SUCCESS);
	CHECK(cuStreamCreate(&s, 0) == CUDA_SUCCESS);
	if (strcmp(argv[1], "capture") == 0)
		capture(s);
	else if (strcmp(argv[1], "cancel") == 0)
		cancel(s);
	else if (strcmp(argv[1], "syncs") == 0)
		syncs(s, argc > 2 ? atof(argv[2]) : 1);
	else
		return 2;
	fflush(stdout);
	return 0;
}
