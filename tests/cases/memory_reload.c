/* SPDX-License-Identifier: MIT */
/* tests/cases/memory_reload.c: dlopens the driver, allocates and keeps KIB KiB, asks for the memory info, dlcloses the driver until it unloads (its memory goes with it), N times. */
#include <dlfcn.h>
#include "common.h"

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4, unloaded = 0;
	size_t bytes = (size_t)(argc > 2 ? atoi(argv[2]) : 6) * 1024;

	for (int i = 0; i < rounds; i++) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW);
		CUresult (*init)(unsigned), (*get)(CUdevice *, int), (*retain)(CUcontext *, CUdevice);
		CUresult (*set_current)(CUcontext), (*alloc)(CUdeviceptr *, size_t);
		CUresult (*info)(size_t *, size_t *);
		CUdevice dev = 0;
		CUcontext ctx = NULL;
		CUdeviceptr d = 0;
		size_t free_b = 0, total_b = 0;
		CUresult r;

		CHECK(h != NULL);
		init = (CUresult(*)(unsigned))dlsym(h, "cuInit");
		get = (CUresult(*)(CUdevice *, int))dlsym(h, "cuDeviceGet");
		retain = (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain");
		set_current = (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent");
		alloc = (CUresult(*)(CUdeviceptr *, size_t))dlsym(h, "cuMemAlloc_v2");
		info = (CUresult(*)(size_t *, size_t *))dlsym(h, "cuMemGetInfo_v2");
		CHECK(init && get && retain && set_current && alloc && info);
		CHECK(init(0) == CUDA_SUCCESS && get(&dev, 0) == CUDA_SUCCESS &&
		      retain(&ctx, dev) == CUDA_SUCCESS && set_current(ctx) == CUDA_SUCCESS);
		/* Kept: the driver's unload takes it back. */
		r = alloc(&d, bytes);
		printf("round %d: cuMemAlloc -> %d\n", i, (int)r);
		CHECK(info(&free_b, &total_b) == CUDA_SUCCESS);
		/* Only under a limit is the total small enough to print. */
		if (total_b < 1024 * 1024)
			printf("round %d: free %zu total %zu\n", i, free_b, total_b);
		CHECK(dlclose(h) == 0);
		unloaded += dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) == NULL;
	}
	printf("unloaded after %d of %d rounds\n", unloaded, rounds);
	return 0;
}
