/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_probe.c: a library with driver references whose dependency is missing: a Python-style optional-extension probe. */
#include <cuda.h>

int missing_dep_value(void);

__attribute__((visibility("default"))) int probe_run(void)
{
	int n = 0;

	return cuDeviceGetCount(&n) == CUDA_SUCCESS ? n + missing_dep_value() : -1;
}
