/* SPDX-License-Identifier: MIT */
/* tests/cases/truth_prog.c: calls whose true durations the mock measures (MOCK_SPIN), for the cases that check every figure cuaudit prints against them. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x)                                                                               \
	do {                                                                                   \
		CUresult rc_ = (x);                                                            \
		if (rc_ != CUDA_SUCCESS) {                                                     \
			fprintf(stderr, "%s: %d\n", #x, (int)rc_);                            \
			return 1;                                                              \
		}                                                                              \
	} while (0)

static long long elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* The mock's "device code" is a host function; this one does nothing. */
static void nothing(void **params, unsigned threads)
{
	(void)params, (void)threads;
}

/* times [SYNCS LAUNCHES FAST]: SYNCS cuStreamSynchronize, LAUNCHES launches of add_one and FAST
   cuCtxGetCurrent; hang SYNCS LAUNCHES READY (below); runtime N: N runtime launches; periodic N: N calls of cuDeviceGetCount (the mock makes every 64th slow). */
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "times";
	CUdevice dev;
	CUcontext ctx;

	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	if (strcmp(mode, "times") == 0) {
		int syncs = argc > 2 ? atoi(argv[2]) : 20, launches = argc > 3 ? atoi(argv[3]) : 30;
		int fast = argc > 4 ? atoi(argv[4]) : 20000;
		CUmodule mod = NULL;
		CUfunction f;
		CUdeviceptr d;
		int n = 4, v[4] = { 0 };
		void *params[] = { &d, &n };

		CHECK(cuModuleGetFunction(&f, mod, "_Z7add_onePii"));
		CHECK(cuMemAlloc(&d, sizeof(v)));
		CHECK(cuMemcpyHtoD(d, v, sizeof(v)));
		for (int i = 0; i < syncs; i++)
			CHECK(cuStreamSynchronize(NULL));
		for (int i = 0; i < launches; i++)
			CHECK(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, params, NULL));
		for (int i = 0; i < fast; i++) {
			CUcontext c;

			CHECK(cuCtxGetCurrent(&c));
		}
		/* TRUTH_HOLD=FILE: FILE.ready made, then a wait while FILE exists, outside any
		   CUDA call, so that the live view's history can be read before the process ends. */
		if (getenv("TRUTH_HOLD")) {
			char ready[4096];
			struct timespec ts = { 0, 10000000 };
			FILE *f;

			snprintf(ready, sizeof(ready), "%s.ready", getenv("TRUTH_HOLD"));
			if ((f = fopen(ready, "w")) != NULL)
				fclose(f);
			while (access(getenv("TRUTH_HOLD"), F_OK) == 0)
				nanosleep(&ts, NULL);
		}
		CHECK(cuMemcpyDtoH(v, d, sizeof(v)));
		CHECK(cuMemFree(d));
		printf("v[0] %d\n", v[0]);
	} else if (strcmp(mode, "hang") == 0) {
		/* hang SYNCS LAUNCHES READY BLOCK: 3 MiB allocated, SYNCS cuStreamSynchronize and
		   LAUNCHES launches of add_one, then BLOCK and READY made and a cuMemsetD32Async
		   that waits while MOCK_BLOCK_FILE (BLOCK) exists: a hung call after a known
		   history. */
		int syncs = argc > 2 ? atoi(argv[2]) : 20, launches = argc > 3 ? atoi(argv[3]) : 30;
		CUmodule mod = NULL;
		CUfunction f;
		CUdeviceptr d;
		int n = 4;
		void *params[] = { &d, &n };
		FILE *ready;

		/* TRUTH_OUTER=FILE: each of those calls' time as the program saw it, a
		   CLOCK_MONOTONIC read either side ("NAME NS" a line, in order): what cuaudit
		   measures lies inside, whatever the load. */
		FILE *outer = getenv("TRUTH_OUTER") ? fopen(getenv("TRUTH_OUTER"), "w") : NULL;
		struct timespec t0, t1;

		CHECK(cuModuleGetFunction(&f, mod, "_Z7add_onePii"));
		CHECK(cuMemAlloc(&d, 3u << 20));
		for (int i = 0; i < syncs; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			CHECK(cuStreamSynchronize(NULL));
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (outer)
				fprintf(outer, "cuStreamSynchronize %lld\n", elapsed_ns(&t0, &t1));
		}
		for (int i = 0; i < launches; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			CHECK(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, params, NULL));
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (outer)
				fprintf(outer, "cuLaunchKernel %lld\n", elapsed_ns(&t0, &t1));
		}
		if (outer)
			fclose(outer);
		/* BLOCK (MOCK_BLOCK_FILE's path) made only now: the synchronisations above
		   would wait on it too. */
		if (argc > 5 && (ready = fopen(argv[5], "w")) != NULL)
			fclose(ready);
		if (argc > 4 && (ready = fopen(argv[4], "w")) != NULL)
			fclose(ready);
		CHECK(cuMemsetD32Async(d, 7, 4, NULL));
		CHECK(cuMemFree(d));
		printf("hang done\n");
	} else if (strcmp(mode, "runtime") == 0) {
		/* runtime N: N cudaLaunchKernel, each making its cuLaunchKernel inside, through
		   the pointer the runtime got from cuGetProcAddress. */
		int launches = argc > 2 ? atoi(argv[2]) : 30;
		dim3 one = { 1, 1, 1 };

		for (int i = 0; i < launches; i++)
			if (cudaLaunchKernel((const void *)nothing, one, one, NULL, 0, NULL) != cudaSuccess)
				return 1;
		printf("runtime %d\n", launches);
	} else if (strcmp(mode, "periodic") == 0) {
		int calls = argc > 2 ? atoi(argv[2]) : 256000;

		for (int i = 0; i < calls; i++) {
			int count;

			CHECK(cuDeviceGetCount(&count));
		}
		printf("periodic %d\n", calls);
	}
	return 0;
}
