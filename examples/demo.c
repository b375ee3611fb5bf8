/* SPDX-License-Identifier: MIT */
/* examples/demo.c: the quick-start demo: a small driver-API program that runs on a real GPU or on the mock. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#define TRY(call)                                                                              \
	do {                                                                                   \
		CUresult r_ = (call);                                                          \
		if (r_ != CUDA_SUCCESS) {                                                      \
			const char *n_ = NULL;                                                 \
			cuGetErrorName(r_, &n_);                                               \
			fprintf(stderr, "demo: %s failed: %s\n", #call, n_ ? n_ : "?");        \
			return 1;                                                              \
		}                                                                              \
	} while (0)

int main(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr buf;
	char name[128];
	int version, count;
	size_t free_b, total_b;
	unsigned in[1024], out[1024];

	TRY(cuInit(0));
	TRY(cuDriverGetVersion(&version));
	TRY(cuDeviceGetCount(&count));
	TRY(cuDeviceGet(&dev, 0));
	TRY(cuDeviceGetName(name, sizeof(name), dev));
	TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
	TRY(cuCtxSetCurrent(ctx));
	printf("driver %d.%d, %d device(s), device 0: %s\n", version / 1000, version % 1000 / 10,
	       count, name);

	for (unsigned i = 0; i < 1024; i++)
		in[i] = i * 2654435761u;
	TRY(cuMemAlloc(&buf, sizeof(in)));
	TRY(cuMemcpyHtoD(buf, in, sizeof(in)));
	TRY(cuMemGetInfo(&free_b, &total_b));
	TRY(cuMemcpyDtoH(out, buf, sizeof(out)));
	TRY(cuMemFree(buf));
	printf("round trip of %zu bytes through device memory: %s\n", sizeof(in),
	       memcmp(in, out, sizeof(in)) == 0 ? "identical" : "DIFFERENT");
	printf("device memory: %zu MiB total\n", total_b >> 20);
	return memcmp(in, out, sizeof(in)) != 0;
}
