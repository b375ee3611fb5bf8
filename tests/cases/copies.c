/* SPDX-License-Identifier: MIT */
/* tests/cases/copies.c: copies of known sizes on two streams and the default one, a memset and a failing copy, for the bytes-per-stream plugin. */
#include <string.h>
#include "common.h"
#include "mockstate.h"

int main(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr d;
	CUstream s1, s2;
	static char host[4096];

	SHOW(cuInit(0));
	SHOW(cuDeviceGet(&dev, 0));
	SHOW(cuDevicePrimaryCtxRetain(&ctx, dev));
	SHOW(cuCtxSetCurrent(ctx));
	SHOW(cuMemAlloc_v2(&d, sizeof(host)));
	SHOW(cuStreamCreate(&s1, 0));
	SHOW(cuStreamCreate(&s2, 0));
	memset(host, 7, sizeof(host));
	/* s1: 2000 bytes in 2 copies; s2: 300 bytes in 1; the default stream: 10 bytes in 1. */
	SHOW(cuMemcpyHtoDAsync_v2(d, host, 1000, s1));
	SHOW(cuMemcpyHtoDAsync_v2(d + 1000, host, 1000, s1));
	SHOW(cuMemcpyDtoHAsync_v2(host, d, 300, s2));
	SHOW(cuMemcpyHtoD_v2(d, host, 10));
	/* Not copies: a memset of 64 32-bit words, and a copy the driver refuses. */
	SHOW(cuMemsetD32Async(d, 1, 64, s2));
	SHOW(cuMemcpyHtoDAsync_v2(0, host, 500, s1));
	SHOW(cuStreamSynchronize(s1));
	printf("mock bytes: htod async %ld, dtoh async %ld, htod %ld calls\n",
	       mock_calls("bytes:cuMemcpyHtoDAsync_v2"), mock_calls("bytes:cuMemcpyDtoHAsync_v2"),
	       mock_calls("cuMemcpyHtoD_v2"));
	return 0;
}
