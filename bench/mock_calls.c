/* SPDX-License-Identifier: MIT */
/* bench/mock_calls.c: bench/calls' four call paths on the mock driver, so that bench/run.sh --mock measures cuaudit's added cost per call without a GPU. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

typedef CUresult (*ctx_get_current_fn)(CUcontext *);
/* The mock's own (not in any header): what one block of a kernel lasts on this thread. */
CUresult cuMockKernelUnitNs(unsigned long long ns);

static void empty_kernel(void **params, unsigned threads)
{
	(void)params, (void)threads;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median ns per call of 'passes' passes of n calls each, after one warm-up pass. */
#define MEDIAN_NS(result, n, passes, body)                                                     \
	do {                                                                                   \
		double v_[passes];                                                             \
		for (int p_ = -1; p_ < (passes); p_++) {                                       \
			double t0_ = now_ns();                                                 \
			for (long i_ = 0; i_ < (n); i_++) {                                    \
				body;                                                          \
			}                                                                      \
			if (p_ >= 0)                                                           \
				v_[p_] = (now_ns() - t0_) / (double)(n);                       \
		}                                                                              \
		qsort(v_, (passes), sizeof(double), by_value);                                 \
		(result) = v_[(passes) / 2];                                                   \
	} while (0)

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plt";
	long n = argc > 2 ? atol(argv[2]) : 200000;
	const char *scale = getenv("BENCH_SCALE");
	CUcontext ctx;
	CUdevice dev;
	double ns = 0;

	if (scale && atoi(scale) > 1)
		n /= atoi(scale);
	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
		return 1;
	if (!strcmp(mode, "plt")) {
		MEDIAN_NS(ns, n, 9, cuCtxGetCurrent(&ctx));
	} else if (!strcmp(mode, "procaddress")) {
		void *p = NULL;
		CUdriverProcAddressQueryResult st;
		ctx_get_current_fn f;

		if (cuGetProcAddress("cuCtxGetCurrent", &p, 12000, 0, &st) != CUDA_SUCCESS || !p)
			return 1;
		f = (ctx_get_current_fn)p;
		MEDIAN_NS(ns, n, 9, f(&ctx));
	} else if (!strcmp(mode, "cudart")) {
		int d, count;

		/* The runtime starts here (its driver lookups), so that start-up is no part of
		   the cudaGetDevice calls measured. */
		if (cudaGetDeviceCount(&count) != cudaSuccess)
			return 1;
		MEDIAN_NS(ns, n, 9, cudaGetDevice(&d));
	} else if (!strcmp(mode, "launch")) {
		MEDIAN_NS(ns, n, 9,
			  cuLaunchKernel((CUfunction)(void *)empty_kernel, 1, 1, 1, 1, 1, 1, 0, NULL,
					 NULL, NULL));
	} else if (!strcmp(mode, "sync")) {
		/* A launch whose work ends at once on the mock, then a context synchronise: the
		   synchronise's exit finds one finished record, as after a real one. */
		if (cuMockKernelUnitNs(0) != CUDA_SUCCESS)
			return 1;
		MEDIAN_NS(ns, n, 9,
			  cuLaunchKernel((CUfunction)(void *)empty_kernel, 1, 1, 1, 1, 1, 1, 0, NULL,
					 NULL, NULL);
			  cuCtxSynchronize());
	} else if (!strcmp(mode, "tsc")) {
		volatile unsigned long long sink;

		MEDIAN_NS(ns, n, 9, sink = __rdtsc());
		(void)sink;
	} else {
		fprintf(stderr, "usage: mock_calls plt|procaddress|cudart|launch|sync|tsc [CALLS]\n");
		return 2;
	}
	printf("%s %.2f\n", mode, ns);
	return 0;
}
