/* SPDX-License-Identifier: MIT */
/* tests/cases/nvtx_gpu_prog.c: NVTX ranges around kernels of known mock GPU durations and calls of known host time, for the per-range CUDA calls and GPU time of the summary. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <nvtx3/nvToolsExt.h>
#include "common.h"

static CUfunction add_one;
static CUdeviceptr dev;

/* A grid of N blocks takes N ms of mock GPU time, on the legacy stream. */
static void launch(unsigned grid)
{
	int n = 64;
	void *params[] = { &dev, &n };

	CHECK(cuLaunchKernel(add_one, grid, 1, 1, 64, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS);
}

/* Per iteration: iter { k3 { 100 ms, 100 ms, count }, k5 { 5 ms, count }, iter { 2 ms } }:
   for "iter" 4 kernels (207 ms) and 6 calls (the nested iter's counted once), "k3" 2 kernels
   (200 ms) and 3 calls, "k5" 1 kernel (5 ms) and 2 calls. Outside any range: a 7 ms kernel.
   The first kernel starts on an idle stream (its GPU time is a bound); every later one is
   queued behind 100 ms of work or more, so that its time is exact even where the host is
   held up for a while between launches (a loaded machine). */
int main(void)
{
	CUcontext ctx;
	CUdevice d;
	CUmodule mod = NULL;
	int count = 0;

	CHECK(cuInit(0) == CUDA_SUCCESS);
	CHECK(cuDeviceGet(&d, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	CHECK(cuModuleGetFunction(&add_one, mod, "_Z7add_onePii") == CUDA_SUCCESS);
	CHECK(cuMemAlloc_v2(&dev, 8192) == CUDA_SUCCESS);
	for (int i = 0; i < 3; i++) {
		nvtxRangePushA("iter");
		nvtxRangePushA("k3");
		launch(100);
		launch(100);
		CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
		nvtxRangePop();
		nvtxRangePushA("k5");
		launch(5);
		CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
		nvtxRangePop();
		nvtxRangePushA("iter");
		launch(2);
		nvtxRangePop();
		nvtxRangePop();
	}
	launch(7);
	CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
	printf("done\n");
	return 0;
}
