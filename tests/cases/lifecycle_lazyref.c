/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_lazyref.c: a library with undefined driver symbols and no DT_NEEDED on the driver, that loads lazily without it. */
#include <cuda.h>

__attribute__((visibility("default"))) int lazyref_count(void)
{
	int n = 0;

	return cuDeviceGetCount(&n) == CUDA_SUCCESS ? n : -1;
}
