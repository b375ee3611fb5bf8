/* SPDX-License-Identifier: MIT */
/* tests/cases/static_rt_dlopen.c: uses the shared runtime, then dlopens an object with its own runtime linked in; each call must reach its own copy. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include "common.h"

int main(void)
{
	int dev = -1;
	void *h;
	int (*dso_run)(void);

	int r = (int)cudaGetDevice(&dev);

	printf("shared: cudaGetDevice -> %d, device %d\n", r, dev);
	h = dlopen("libstatic_rt_dso.so", RTLD_NOW);
	CHECK(h != NULL);
	dso_run = (int (*)(void))dlsym(h, "dso_run");
	CHECK(dso_run != NULL);
	printf("dso_run -> %d\n", dso_run());
	dev = -1;
	r = (int)cudaGetDevice(&dev);
	printf("shared again: cudaGetDevice -> %d, device %d\n", r, dev);
	return 0;
}
