/* SPDX-License-Identifier: MIT */
/* tests/cases/gpu_reload.c: dlopens the driver, launches kernels of known mock durations, waits until they ran, dlcloses it until it unloads, N times: GPU timing across driver reloads. */
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include "common.h"

#define SYM(h, name) dlsym_checked(h, #name)

static void *dlsym_checked(void *h, const char *name)
{
	void *p = dlsym(h, name);

	CHECK(p != NULL);
	return p;
}

/* Until the mock GPU has run everything on the legacy stream (its clock is CLOCK_MONOTONIC). */
static void wait_idle(CUresult (*stream_end)(CUstream, unsigned long long *))
{
	unsigned long long end = 0;
	struct timespec ts;

	CHECK(stream_end(NULL, &end) == CUDA_SUCCESS);
	for (;;) {
		struct timespec nap = { 0, 200000 };

		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec > end + 100000)
			return;
		nanosleep(&nap, NULL);
	}
}

/* One load of the driver: 16 launches of 100 us, a wait until they ran, 8 more (the timing's
   harvest then takes the first 16), and the driver closed while those 8 are still queued
   (800 us of work on the mock GPU, which the next driver's streams do not wait for). */
static int one_round(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW);
	CUresult (*init)(unsigned), (*get)(CUdevice *, int), (*retain)(CUcontext *, CUdevice);
	CUresult (*set_current)(CUcontext), (*get_function)(CUfunction *, CUmodule, const char *);
	CUresult (*alloc)(CUdeviceptr *, size_t), (*release)(CUdeviceptr);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, CUstream, void **, void **);
	CUresult (*unit)(unsigned long long), (*stream_end)(CUstream, unsigned long long *);
	CUdevice dev = 0;
	CUcontext ctx = NULL;
	CUfunction f = NULL;
	CUdeviceptr d = 0;
	int n = 64, ok = 1;
	void *params[] = { &d, &n };

	CHECK(h != NULL);
	init = SYM(h, cuInit);
	get = SYM(h, cuDeviceGet);
	retain = SYM(h, cuDevicePrimaryCtxRetain);
	set_current = SYM(h, cuCtxSetCurrent);
	get_function = SYM(h, cuModuleGetFunction);
	alloc = SYM(h, cuMemAlloc_v2);
	release = SYM(h, cuMemFree_v2);
	launch = SYM(h, cuLaunchKernel);
	unit = SYM(h, cuMockKernelUnitNs);
	stream_end = SYM(h, cuMockStreamEnd);
	CHECK(init(0) == CUDA_SUCCESS && get(&dev, 0) == CUDA_SUCCESS && retain(&ctx, dev) == CUDA_SUCCESS &&
	      set_current(ctx) == CUDA_SUCCESS && get_function(&f, NULL, "_Z7add_onePii") == CUDA_SUCCESS &&
	      alloc(&d, 4096) == CUDA_SUCCESS);
	CHECK(unit(100000) == CUDA_SUCCESS);
	for (int i = 0; i < 24; i++) {
		ok &= launch(f, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS;
		if (i == 15)
			wait_idle(stream_end);
	}
	ok &= release(d) == CUDA_SUCCESS;
	CHECK(dlclose(h) == 0);
	return ok;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4, ok = 0, unloaded = 0;
	const char *lib = argc > 2 ? argv[2] : "libcuda.so.1";

	for (int i = 0; i < rounds; i++) {
		ok += one_round(lib);
		unloaded += dlopen(lib, RTLD_NOW | RTLD_NOLOAD) == NULL;
	}
	printf("rounds %d, all launches succeeded in %d, unloaded after %d\n", rounds, ok, unloaded);
	return ok == rounds ? 0 : 1;
}
