/* SPDX-License-Identifier: MIT */
/* tests/cases/driver_api.c: a driver-API program linked with -lcuda; the runner builds it lazy, bind-now and per-thread. */
#include <errno.h>
#include <string.h>
#include "common.h"
#include "mockstate.h"

/* An export of the mock that no CUDA header declares. */
long cuMockFutureCall(long, long, long, long, long, long, long, long, double, double);

int main(void)
{
	CUdevice dev;
	CUcontext ctx, cur;
	CUdeviceptr d;
	CUstream stream;
	size_t free_b, total_b;
	int count, version, attr, in[8], out[8], n = 8, ctxdev;
	char name[64];
	const char *str;
	const void *table;
	CUuuid bad = { { 0 } };

	SHOW(cuInit(0));
	SHOW(cuDriverGetVersion(&version));
	SHOW(cuDeviceGetCount(&count));
	SHOW(cuDeviceGet(&dev, 0));
	SHOW(cuDeviceGetName(name, sizeof(name), dev));
	printf("version=%d count=%d dev=%d name=%s\n", version, count, dev, name);

	errno = 0;
	SHOW(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
	printf("attr=%d errno after a call that sets it: %d\n", attr, errno);

	SHOW(cuDevicePrimaryCtxRetain(&ctx, dev));
	SHOW(cuCtxSetCurrent(ctx));
	errno = 1234;
	SHOW(cuCtxGetCurrent(&cur));
	printf("errno after a call that leaves it: %d, current is primary: %d\n", errno,
	       cur == ctx);
	SHOW(cuCtxGetDevice(&ctxdev));
	printf("ctx device (2.0 variant)=%d\n", ctxdev);
	SHOW(cuCtxGetDevice_v2(&ctxdev, ctx));
	printf("ctx device (13.0 variant)=%d\n", ctxdev);

	for (int i = 0; i < n; i++)
		in[i] = i * 7 - 3;
	SHOW(cuMemAlloc(&d, sizeof(in)));
	SHOW(cuMemcpyHtoD(d, in, sizeof(in)));
	SHOW(cuMemGetInfo(&free_b, &total_b));
	printf("used=%zu total=%zu\n", total_b - free_b, total_b);
	SHOW(cuStreamCreate(&stream, 0));
	{
		void *params[] = { &d, &d, &n };
		SHOW(cuLaunchKernel((CUfunction)(void *)mock_double_kernel, 1, 1, 1, 8, 1, 1, 0,
				    stream, params, NULL));
	}
	SHOW(cuStreamSynchronize(stream));
	memset(out, 0, sizeof(out));
	SHOW(cuMemcpyDtoH(out, d, sizeof(out)));
	for (int i = 0; i < n; i++)
		printf("%d ", out[i]);
	printf("\n");
	SHOW(cuMemFree(d));

	SHOW(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &str));
	printf("name=%s\n", str);
	SHOW(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &str));
	printf("string=%s\n", str);
	SHOW(cuGetExportTable(&table, &bad));
	printf("unknown export table=%p\n", table);
	printf("future=%ld\n", cuMockFutureCall(1, 2, 3, 4, 5, 6, 7, 8, 0.5, 0.25));

	/* What the mock itself counted: proves each call reached the variant its name says. */
	static const char *const names[] = {
		"cuCtxGetDevice", "cuCtxGetDevice_v2", "cuMemAlloc", "cuMemAlloc_v2",
		"cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds", "cuMemcpyDtoH_v2",
		"cuMemcpyDtoH_v2_ptds", "cuStreamSynchronize", "cuStreamSynchronize_ptsz",
		"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuMockFutureCall",
	};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("mock %s: %ld\n", names[i], mock_calls(names[i]));
	return 0;
}
