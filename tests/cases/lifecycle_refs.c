/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_refs.c: a library that reaches the driver through its GOT (-fno-plt) and through a table of function pointers, for dlopen. */
#include <cuda.h>

typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);

/* R_X86_64_64 relocations in data: a table of driver functions. */
__attribute__((visibility("default"))) alloc_fn refs_table[] = { cuMemAlloc_v2 };
static CUresult (*const refs_free[])(CUdeviceptr) = { cuMemFree_v2 };
static int version_at_load;

/* Runs before dlopen returns, after relocation: its call goes through the GOT too. */
__attribute__((constructor)) static void at_load(void)
{
	cuDriverGetVersion(&version_at_load);
}

__attribute__((visibility("default"))) int refs_run(void)
{
	CUdeviceptr d = 0;
	CUdevice dev = 0;
	CUcontext ctx = NULL;
	int n = 0;

	/* A real driver allocates only in a context; the mock does not mind. */
	return cuInit(0) == CUDA_SUCCESS && cuDeviceGetCount(&n) == CUDA_SUCCESS && n >= 1 &&
	       cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
	       cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS &&
	       cuCtxSetCurrent(ctx) == CUDA_SUCCESS &&
	       refs_table[0](&d, 32) == CUDA_SUCCESS && refs_free[0](d) == CUDA_SUCCESS &&
	       version_at_load > 0;
}
