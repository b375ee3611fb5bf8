/* SPDX-License-Identifier: MIT */
/* tests/cases/threads.c: calls the driver from 8 threads it creates, under a non-C locale. */
#include <locale.h>
#include <pthread.h>
#include "common.h"
#include "mockstate.h"

#define THREADS 8
#define CALLS 500

static void *worker(void *arg)
{
	CUcontext ctx = arg, cur;
	int ok = 0;

	cuCtxSetCurrent(ctx);
	for (int i = 0; i < CALLS; i++)
		ok += cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx;
	return (void *)(long)ok;
}

int main(void)
{
	pthread_t t[THREADS];
	CUcontext ctx;
	CUdevice dev;
	long ok = 0;

	/* The locale hazard: formatting through libc on these threads can crash on glibc < 2.42. */
	setlocale(LC_ALL, "");
	CHECK(cuInit(0) == CUDA_SUCCESS);
	CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, ctx) == 0);
	for (int i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("successful calls: %ld of %d; mock counted %ld\n", ok, THREADS * CALLS,
	       mock_calls("cuCtxGetCurrent"));
	return ok == THREADS * CALLS ? 0 : 1;
}
