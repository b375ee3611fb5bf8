/* SPDX-License-Identifier: MIT */
/* tests/cases/static_rt_copy.c: one of several shared objects, each with its own runtime linked in; its calls must reach its own copy. */
#include <cuda_runtime_api.h>
#include "common.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

void **__cudaRegisterFatBinary(void *fat_cubin);
static int fatbin;
static int registered;

/* Registration from a constructor, as nvcc's code does: patched before it runs, it is seen. */
__attribute__((constructor)) static void register_fatbin(void)
{
	registered = __cudaRegisterFatBinary(&fatbin) != NULL;
}

/* copy_<name>_run: a device from this copy's own runtime (its MOCK_DEVICE_OFFSET), or exit 1
   when the call reached another copy. */
__attribute__((visibility("default"))) int CAT(CAT(copy_, COPY_NAME), _run)(void)
{
	int dev = -1;
	void *d = NULL;
	int r = (int)cudaGetDevice(&dev);

	printf("%s: registered %d, cudaGetDevice -> %d, device %d\n", STR(COPY_NAME), registered,
	       r, dev);
	CHECK(r == 0 && dev % 100 == MOCK_DEVICE_OFFSET);
	CHECK(cudaMalloc(&d, 16) == cudaSuccess);
	CHECK(cudaFree(d) == cudaSuccess);
	return dev;
}

/* copy_<name>_check: n quiet calls, each checked against this copy's offset (exit 1 else). */
__attribute__((visibility("default"))) int CAT(CAT(copy_, COPY_NAME), _check)(int n)
{
	for (int i = 0; i < n; i++) {
		int dev = -1;

		CHECK(cudaGetDevice(&dev) == cudaSuccess && dev % 100 == MOCK_DEVICE_OFFSET);
	}
	return n;
}
