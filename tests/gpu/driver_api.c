/* SPDX-License-Identifier: MIT */
/* tests/gpu/driver_api.c: a driver-API program (nvcc ... -lcuda) that loads a cubin and launches a kernel. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                              \
	do {                                                                                   \
		CUresult r_ = (call);                                                          \
		if (r_ != CUDA_SUCCESS) {                                                      \
			fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                    \
			return 1;                                                              \
		}                                                                              \
	} while (0)

int main(int argc, char **argv)
{
	enum { N = 1 << 20 };
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr a, b, c;
	int n = N, version;
	float *ha = malloc(N * sizeof(float)), *hb = malloc(N * sizeof(float));
	float *hc = malloc(N * sizeof(float));
	double sum = 0;

	if (argc != 2)
		return 2;
	for (int i = 0; i < N; i++) {
		ha[i] = (float)(i % 1000) * 0.5f;
		hb[i] = (float)(i % 7);
	}
	TRY(cuInit(0));
	TRY(cuDriverGetVersion(&version));
	TRY(cuDeviceGet(&dev, 0));
	TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
	TRY(cuCtxSetCurrent(ctx));
	TRY(cuModuleLoad(&mod, argv[1]));
	TRY(cuModuleGetFunction(&fn, mod, "vecadd"));
	TRY(cuMemAlloc(&a, N * sizeof(float)));
	TRY(cuMemAlloc(&b, N * sizeof(float)));
	TRY(cuMemAlloc(&c, N * sizeof(float)));
	TRY(cuMemcpyHtoD(a, ha, N * sizeof(float)));
	TRY(cuMemcpyHtoD(b, hb, N * sizeof(float)));
	void *params[] = { &a, &b, &c, &n };
	for (int rep = 0; rep < 10; rep++)
		TRY(cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
	TRY(cuCtxSynchronize());
	TRY(cuMemcpyDtoH(hc, c, N * sizeof(float)));
	for (int i = 0; i < N; i++)
		sum += hc[i];
	TRY(cuMemFree(a));
	TRY(cuMemFree(b));
	TRY(cuMemFree(c));
	TRY(cuModuleUnload(mod));
	printf("driver %d, 10 launches, checksum %.1f\n", version, sum);
	return 0;
}
