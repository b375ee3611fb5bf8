/* SPDX-License-Identifier: MIT */
/* tests/cases/static_rt_dso.c: a shared object with the runtime linked in, dlopened by a program that also uses the shared runtime. */
#include <cuda_runtime_api.h>
#include "common.h"

void **__cudaRegisterFatBinary(void *fat_cubin);
static int fatbin;
static int registered;

/* Registration from a constructor, as nvcc's code does: patched before it runs, it is seen. */
__attribute__((constructor)) static void register_fatbin(void)
{
	registered = __cudaRegisterFatBinary(&fatbin) != NULL;
}

__attribute__((visibility("default"))) int dso_run(void)
{
	int dev = -1;
	void *d = NULL;
	int r = (int)cudaGetDevice(&dev);

	printf("dso: registered %d, cudaGetDevice -> %d, device %d\n", registered, r, dev);
	printf("dso: cudaMalloc -> %d\n", (int)cudaMalloc(&d, 16));
	printf("dso: cudaFree -> %d\n", (int)cudaFree(d));
	return dev;
}
